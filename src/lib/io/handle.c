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
#include "lib/formats/bag-int.h"

int bag_fail(bag_t *bag, int code, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (off == UINT64_MAX)
		n = snprintf(bag->errmsg, sizeof bag->errmsg, "%s: ", bag->path);
	else
		n = snprintf(bag->errmsg, sizeof bag->errmsg, "%s: at byte %llu: ",
		             bag->path, (unsigned long long)off);
	if (n < 0 || (size_t)n >= sizeof bag->errmsg)
		return code;
	va_start(ap, fmt);
	vsnprintf(bag->errmsg + n, sizeof bag->errmsg - (size_t)n, fmt, ap);
	va_end(ap);
	return code;
}

int bag_warn(bag_t *bag, uint64_t off, const char *fmt, ...)
{
	char line[BAG_ERRMSG_MAX];
	va_list ap;
	int n;

	bag->nwarnings++;
	if (bag->nwarnings > BAG_WARNINGS_MAX)
		return BAG_OK;
	if (bag->warnings == NULL) {
		bag->warnings = calloc(BAG_WARNINGS_MAX, sizeof *bag->warnings);
		if (bag->warnings == NULL)
			goto nomem;
	}
	if (off == UINT64_MAX)
		n = snprintf(line, sizeof line, "%s: ", bag->path);
	else
		n = snprintf(line, sizeof line, "%s: at byte %llu: ", bag->path, (unsigned long long)off);
	if (n >= 0 && (size_t)n < sizeof line) {
		va_start(ap, fmt);
		vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
		va_end(ap);
	}
	bag->warnings[bag->nwarnings - 1] = strdup(line);
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
