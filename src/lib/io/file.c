/*
 * file.c - the local byte source: a regular file read with pread, or a range
 * of it mapped read-only (map: a chunk decompressed straight from the page
 * cache, no copy into a buffer of ours).
 *
 * The descriptor is opened read-only and non-blocking (opening a FIFO must
 * not wait for a writer; anything but a regular file is refused). size is
 * st_size at open. dup takes a second descriptor on the same open file, so
 * each bag_dup reads with its own. A mapping covers the pages of one range
 * and is undone as soon as its reader is done: what is mapped is bounded by
 * what is being read, never the file. A range is mapped only while the
 * file still holds it (fstat first), since touching a mapped page past the
 * end of a file cut short is SIGBUS; a file cut in the instant between
 * fstat and the read is the one case left to it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bagscope/common.h>
#include "lib/common/util-int.h"
#include "lib/io/source-int.h"

struct file_source {
	struct bag_source base;
	int fd;
	dev_t dev;
	ino_t ino;
};

static int file_read_at(struct bag_source *s, uint64_t off, void *buf, size_t len, struct bag_error *err)
{
	struct file_source *f = (struct file_source *)s;
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(f->fd, (uint8_t *)buf + done, len - done, (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return bag_error_set(err, BAG_EIO, NULL, off + done, "read failed: %s", strerror(errno));
		if (n == 0)
			return bag_error_set(err, BAG_ETRUNCATED, NULL, off + done, "unexpected end of file");
		done += (size_t)n;
	}
	return BAG_OK;
}

static int file_map(struct bag_source *s, uint64_t off, size_t len, const uint8_t **p, void **base, size_t *base_len)
{
	struct file_source *f = (struct file_source *)s;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), start = off - off % page;
	struct stat st;
	void *m;

	if (fstat(f->fd, &st) != 0 || (uint64_t)st.st_size < off + len)
		return -1;
	m = mmap(NULL, (size_t)(off - start) + len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, f->fd, (off_t)start);
	if (m == MAP_FAILED)
		return -1;
	*p = (const uint8_t *)m + (off - start);
	*base = m;
	*base_len = (size_t)(off - start) + len;
	return 0;
}

static void file_unmap(struct bag_source *s, void *base, size_t base_len)
{
	(void)s;
	munmap(base, base_len);
}

static struct bag_source_ops file_ops;

static struct file_source *file_new(int fd)
{
	struct file_source *f = calloc(1, sizeof *f);

	if (f == NULL)
		return NULL;
	f->base.ops = &file_ops;
	f->fd = fd;
	return f;
}

static int file_dup(struct bag_source *s, struct bag_source **out, struct bag_error *err)
{
	struct file_source *f = (struct file_source *)s, *d;
	int fd;

	*out = NULL;
	fd = fcntl(f->fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return bag_error_say(err, BAG_EIO, "cannot duplicate the file descriptor: %s", strerror(errno));
	d = file_new(fd);
	if (d == NULL) {
		close(fd);
		return bag_error_say(err, BAG_ENOMEM, "out of memory");
	}
	d->base.size = s->size;
	d->dev = f->dev;
	d->ino = f->ino;
	*out = &d->base;
	return BAG_OK;
}

static bool file_same(const struct bag_source *s, const struct stat *st)
{
	const struct file_source *f = (const struct file_source *)s;

	return f->dev == st->st_dev && f->ino == st->st_ino;
}

static void file_close(struct bag_source *s)
{
	struct file_source *f = (struct file_source *)s;

	if (f == NULL)
		return;
	close(f->fd);
	free(f);
}

static struct bag_source_ops file_ops = {
	.read_at = file_read_at,
	.dup = file_dup,
	.same_file = file_same,
	.map = file_map,
	.unmap = file_unmap,
	.close = file_close,
};

int bag_file_open(struct bag_source **out, const char *path, struct bag_error *err)
{
	struct file_source *f;
	struct stat st;
	int fd;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return bag_error_say(err, BAG_EIO, "%s", strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return bag_error_say(err, BAG_EIO, "not a regular file");
	}
	f = file_new(fd);
	if (f == NULL) {
		close(fd);
		return bag_error_say(err, BAG_ENOMEM, "out of memory");
	}
	f->base.size = (uint64_t)st.st_size;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	*out = &f->base;
	return BAG_OK;
}
