/*
 * fuzz-open.c - a whole bag from bytes: written to a memory file, opened
 * (recovering when the index is unusable), every message read through a
 * view, and the integrity check run. Whatever the bytes, nothing may crash,
 * hang or leak. With FUZZ_PREFIX defined (fuzz-mcap.c), those bytes come
 * first, so that every input reaches one format's reader.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bagscope/bagscope.h>
#include "fuzz.h"

#define MAX_ROWS 20000

static int ignore(void *arg, const struct bag_finding *f)
{
	(void)arg;
	(void)f;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	bag_t *bag = NULL;
	bag_timeline_t *tl = NULL;
	bag_view_t *v = NULL;
	struct bag_open_opts opts = { .size = sizeof(struct bag_open_opts), .cache_bytes = 1 << 20 };
	int fd = memfd_create("fuzz-bag", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
#ifdef FUZZ_PREFIX
	if (write(fd, FUZZ_PREFIX, sizeof FUZZ_PREFIX - 1) != (ssize_t)sizeof FUZZ_PREFIX - 1)
		goto done;
#endif
	if (write(fd, data, size) != (ssize_t)size)
		goto done;
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	if (bag_open(&bag, path, &opts) != BAG_OK)
		goto done;
	if (bag_timeline_open(&tl, &bag, 1) != BAG_OK)
		goto done;
	if (bag_view_open(&v, tl, NULL) == BAG_OK) {
		for (uint64_t r = 0; r < bag_view_count(v) && r < MAX_ROWS; r++) {
			struct bag_message m;
			(void)bag_view_read(v, r, &m);
		}
		uint64_t row;
		(void)bag_view_seek(v, bag_timeline_start(tl) + 1, &row);
	}
	(void)bag_check(bag, 0, ignore, NULL, NULL);
done:
	bag_view_free(v);
	bag_timeline_free(tl);
	bag_close(bag);
	close(fd);
	return 0;
}
