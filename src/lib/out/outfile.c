/* outfile.c - a writer's output file: temporary, then put in place (see outfile-int.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bagscope/common.h>
#include "lib/common/util-int.h"
#include "lib/out/compress-int.h"
#include "lib/out/outfile-int.h"

int outfile_create(struct outfile *o, const char *path, struct bag_error *err)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	size_t n = strlen(path);
	struct timespec ts;
	uint64_t x;
	int fd = -1, rc = BAG_OK;

	o->path = (char *)path;
	o->tmp_path = malloc(n + sizeof ".tmp-XXXXXX");
	if (o->tmp_path == NULL) {
		rc = bag_error_set(err, BAG_ENOMEM, o->path, BAG_NO_OFFSET, "out of memory");
		goto fail;
	}
	memcpy(o->tmp_path, path, n);
	memcpy(o->tmp_path + n, ".tmp-", 5);
	clock_gettime(CLOCK_REALTIME, &ts);
	x = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30 ^ (uint64_t)getpid() << 40 ^ (uintptr_t)o;
	for (int attempt = 0; fd < 0 && attempt < 100; attempt++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		for (int i = 0; i < 6; i++)
			o->tmp_path[n + 5 + i] = alphabet[(x >> (20 + 6 * i)) % (sizeof alphabet - 1)];
		o->tmp_path[n + 11] = '\0';
		fd = open(o->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		bag_error_set(err, BAG_EIO, o->path, BAG_NO_OFFSET, "cannot create %s: %s", o->tmp_path, strerror(errno));
		free(o->tmp_path);
		o->tmp_path = NULL;
		rc = BAG_EIO;
		goto fail;
	}
	o->f = fdopen(fd, "wb");
	if (o->f == NULL) {
		bag_error_set(err, BAG_EIO, o->path, BAG_NO_OFFSET, "cannot open %s: %s", o->tmp_path, strerror(errno));
		close(fd);
		rc = BAG_EIO;
		goto fail;
	}
	setvbuf(o->f, NULL, _IOFBF, 1 << 20);
fail:
	return rc;
}

int outfile_write(struct outfile *o, const void *p, size_t n, struct bag_error *err)
{
	if (n == 0)
		return BAG_OK;
	if (fwrite(p, 1, n, o->f) != n) {
		return bag_error_set(err, BAG_EIO, o->path, BAG_NO_OFFSET, "cannot write %s: %s", o->tmp_path, strerror(errno));
	}
	if (o->crc_on)
		o->crc = bag_crc32(o->crc, p, n);
	o->pos += n;
	return BAG_OK;
}

int outfile_place(struct outfile *o, bool no_replace, struct bag_error *err)
{
	int rc = BAG_EIO;

	if (fflush(o->f) != 0 || fsync(fileno(o->f)) != 0) {
		bag_error_set(err, BAG_EIO, o->path, BAG_NO_OFFSET, "cannot write %s: %s", o->tmp_path, strerror(errno));
		goto fail;
	}
	rc = fclose(o->f);
	o->f = NULL;
	if (rc != 0) {
		rc = bag_error_set(err, BAG_EIO, o->path, BAG_NO_OFFSET, "cannot write %s: %s", o->tmp_path, strerror(errno));
		goto fail;
	}
	rc = BAG_EIO;
	if (!no_replace && rename(o->tmp_path, o->path) != 0) {
		bag_error_set(err, BAG_EIO, o->path, BAG_NO_OFFSET, "cannot rename %s into place: %s", o->tmp_path, strerror(errno));
		goto fail;
	}
	if (no_replace && link(o->tmp_path, o->path) != 0) {
		if (errno == EEXIST)
			bag_error_set(err, BAG_EIO, o->path, BAG_NO_OFFSET, "exists: not replaced");
		else
			bag_error_set(err, BAG_EIO, o->path, BAG_NO_OFFSET, "cannot link %s into place: %s", o->tmp_path, strerror(errno));
		goto fail;
	}
	if (no_replace)
		unlink(o->tmp_path);
	o->placed = true;
	rc = BAG_OK;
fail:
	return rc;
}

void outfile_close(struct outfile *o)
{
	if (o->f != NULL)
		fclose(o->f);
	if (!o->placed && o->tmp_path != NULL)
		unlink(o->tmp_path);
	free(o->tmp_path);
	o->f = NULL;
	o->tmp_path = NULL;
}
