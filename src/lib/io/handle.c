/*
 * handle.c - the open file under a bag_t: reads at an offset, the one-line
 * failure message and the warnings kept on the handle, and the running
 * totals (messages, start, end) as chunks are linked. The bottom of the
 * library's reading side: every module that reads a bag goes through it,
 * and it calls none of them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bagscope/record.h>
#include "lib/common/util-int.h"
#include "lib/formats/bag-int.h"

int bag_fail(bag_t *bag, int code, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bag_error_vset(&bag->err, code, bag->path, off, fmt, ap);
	va_end(ap);
	return code;
}

int bag_warn(bag_t *bag, uint64_t off, const char *fmt, ...)
{
	struct bag_error line;
	va_list ap;

	bag->nwarnings++;
	if (bag->nwarnings > BAG_WARNINGS_MAX)
		return BAG_OK;
	if (bag->warnings == NULL) {
		bag->warnings = calloc(BAG_WARNINGS_MAX, sizeof *bag->warnings);
		if (bag->warnings == NULL)
			goto nomem;
	}
	va_start(ap, fmt);
	bag_error_vset(&line, BAG_OK, bag->path, off, fmt, ap);
	va_end(ap);
	bag->warnings[bag->nwarnings - 1] = strdup(line.message);
	if (bag->warnings[bag->nwarnings - 1] == NULL)
		goto nomem;
	return BAG_OK;
nomem:
	bag->nwarnings--;
	return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
}

int bag_read_at(bag_t *bag, uint64_t off, void *buf, size_t len)
{
	size_t done = 0;

	if (off > bag->file_size || len > bag->file_size - off)
		return bag_fail(bag, BAG_ETRUNCATED, off,
		                "%zu bytes needed but the file ends at byte %llu",
		                len, (unsigned long long)bag->file_size);
	while (done < len) {
		ssize_t n = pread(bag->fd, (uint8_t *)buf + done, len - done, (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return bag_fail(bag, BAG_EIO, off + done, "read failed: %s", strerror(errno));
		if (n == 0)
			return bag_fail(bag, BAG_ETRUNCATED, off + done, "unexpected end of file");
		done += (size_t)n;
	}
	return BAG_OK;
}

void bag_count_chunk(bag_t *bag, const struct chunk *ch)
{
	if (ch->count == 0)
		return;
	if (bag->message_count == 0 || ch->start_ns < bag->start_ns)
		bag->start_ns = ch->start_ns;
	if (bag->message_count == 0 || ch->end_ns > bag->end_ns)
		bag->end_ns = ch->end_ns;
	bag->message_count += ch->count;
}
