/*
 * handle.c - the open file under a bag_t: reads at an offset, the one-line
 * failure message and the warnings kept on the handle, and the running
 * totals (messages, start, end) as chunks are linked. The bottom of the
 * library's reading side: every module that reads a bag goes through it,
 * and it calls none of them. The bytes themselves come from bag->src, a
 * byte source (source-int.h): a local file or a remote one.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	struct bag_error e = { .offset = off };
	int rc;

	if (off > bag->file_size || len > bag->file_size - off)
		return bag_fail(bag, BAG_ETRUNCATED, off,
		                "%zu byte%s needed but the file ends at byte %llu",
		                len, BAG_S(len), (unsigned long long)bag->file_size);
	if (len == 0)
		return BAG_OK;
	bag->read_bytes += len;
	bag->reads++;
	rc = bag->src->ops->read_at(bag->src, off, buf, len, &e);
	if (rc != BAG_OK)
		return bag_fail(bag, rc, e.offset, "%s", e.message);
	return BAG_OK;
}

int bag_bytes_at(bag_t *bag, uint64_t off, size_t len, struct bag_bytes *b)
{
	const struct bag_source_ops *ops = bag->src->ops;
	int rc;

	memset(b, 0, sizeof *b);
	if (len >= BAG_MAP_MIN && ops->map != NULL && off <= bag->file_size && len <= bag->file_size - off &&
	    ops->map(bag->src, off, len, &b->p, &b->base, &b->base_len) == 0) {
		bag->read_bytes += len;
		bag->reads++;
		return BAG_OK;
	}
	if (len == SIZE_MAX || (b->own = malloc(len + 1)) == NULL)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory for %zu byte%s of the file", len, BAG_S(len));
	if ((rc = bag_read_at(bag, off, b->own, len)) != BAG_OK) {
		free(b->own);
		b->own = NULL;
		return rc;
	}
	b->p = b->own;
	return BAG_OK;
}

void bag_bytes_free(bag_t *bag, struct bag_bytes *b)
{
	if (b->base != NULL)
		bag->src->ops->unmap(bag->src, b->base, b->base_len);
	free(b->own);
	memset(b, 0, sizeof *b);
}

void bag_prefetch(bag_t *bag, const struct bag_span *spans, size_t n)
{
	if (bag->src->ops->prefetch != NULL && n > 0)
		bag->src->ops->prefetch(bag->src, spans, n);
}

void bag_read_ahead(bag_t *bag, uint64_t off, uint64_t len)
{
	if (bag->src->ops->ahead != NULL && len > 0 && off <= bag->file_size && len <= bag->file_size - off)
		bag->src->ops->ahead(bag->src, off, len);
}

uint8_t *bag_take_at(bag_t *bag, uint64_t off, size_t len)
{
	if (bag->src->ops->take == NULL || off > bag->file_size || len > bag->file_size - off || len == 0)
		return NULL;
	return bag->src->ops->take(bag->src, off, len);
}

void bag_give_back(bag_t *bag, uint8_t *buf, size_t cap)
{
	if (buf != NULL && cap > 0 && bag->src != NULL && bag->src->ops->give != NULL)
		bag->src->ops->give(bag->src, buf, cap);
	else
		free(buf);
}

bool bag_is_file(const bag_t *bag, const struct stat *st)
{
	return bag->src != NULL && bag->src->ops->same_file(bag->src, st);
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

BAG_API int bag_read_bytes(bag_t *bag, uint64_t off, void *buf, size_t len)
{
	return bag_read_at(bag, off, buf, len);
}

BAG_API bool bag_is_url(const char *path)
{
	return bag_source_is_url(path);
}

BAG_API void bag_read_totals(const bag_t *bag, uint64_t *bytes, uint64_t *reads)
{
	*bytes = bag->read_bytes;
	*reads = bag->reads;
}

BAG_API void bag_fetched(const bag_t *bag, uint64_t *bytes, uint64_t *requests)
{
	*bytes = *requests = 0;
	if (bag->src != NULL && bag->src->ops->fetched != NULL)
		*bytes = bag->src->ops->fetched(bag->src, requests);
}
