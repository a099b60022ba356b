/*
 * chunker.c - the open chunk of a writer and its way through the pool
 * (chunker-int.h). Invariants: touched holds each stream with entries in
 * buf exactly once (a stream is added when its first entry is noted);
 * has_msgs is true iff buf holds a message, and start_ns/end_ns then bound
 * their times; after a cut buf, touched and every touched stream are
 * empty, and the job carries the chunk, its index records and its streams
 * in stream order. Jobs are written by ops->write in cut order.
 *
 * Below the chunker, struct wcore: what both writers keep and do the same
 * way (their file, their error, open's start, close's steps, free). Its
 * failed is sticky: once set, close and every write return it.
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/common/util-int.h"
#include "lib/out/chunker-int.h"

int chunker_init(struct chunker *c, const struct chunker_ops *ops, void *w, struct bag_error *err,
                 int *failed, const char *path, unsigned threads)
{
	c->ops = ops;
	c->w = w;
	c->err = err;
	c->failed = failed;
	c->path = path;
	if (cpool_new(&c->pool, threads, 0) != BAG_OK)
		return bag_error_set(err, BAG_ENOMEM, path, BAG_NO_OFFSET, "out of memory");
	return BAG_OK;
}

void chunker_free(struct chunker *c)
{
	cpool_free(c->pool);
	free(c->touched);
	free(c->buf.p);
}

int chunker_reserve(struct chunker *c, struct chunk_stream *s, size_t need)
{
	if (bag_grow((void **)&s->entries, &s->cap, s->n + 1, sizeof *s->entries) != 0 ||
	    bag_grow((void **)&c->touched, &c->touched_cap, c->ntouched + 1, sizeof *c->touched) != 0 ||
	    cbuf_reserve(&c->buf, need) != 0)
		return BAG_ENOMEM;
	return BAG_OK;
}

void chunker_note(struct chunker *c, uint32_t k, struct chunk_stream *s, int64_t time_ns)
{
	if (s->n == 0)
		c->touched[c->ntouched++] = k;
	else if (time_ns < s->entries[s->n - 1].time_ns)
		s->unsorted = true;
	s->entries[s->n++] = (struct chunk_entry){ time_ns, c->buf.len };
	if (!c->has_msgs) {
		c->start_ns = c->end_ns = time_ns;
		c->has_msgs = true;
	} else if (time_ns < c->start_ns) {
		c->start_ns = time_ns;
	} else if (time_ns > c->end_ns) {
		c->end_ns = time_ns;
	}
}

/* Time order; equal times keep write order (offsets grow with it). */
static int cmp_entry(const void *a, const void *b)
{
	const struct chunk_entry *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return (x->offset > y->offset) - (x->offset < y->offset);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Every touched stream's index record into j, in stream order; the streams emptied. */
static int index_streams(struct chunker *c, struct cjob *j)
{
	int rc;

	bag_sort(c->touched, c->ntouched, sizeof *c->touched, cmp_u32);
	for (size_t k = 0; k < c->ntouched; k++) {
		struct chunk_stream *s = c->ops->stream(c->w, c->touched[k]);
		if (s->unsorted)
			bag_sort(s->entries, s->n, sizeof *s->entries, cmp_entry);
		if ((rc = c->ops->index(c->w, j, c->touched[k], s)) != BAG_OK)
			return rc;
		s->n = 0;
		s->unsorted = false;
	}
	c->ntouched = 0;
	return BAG_OK;
}

int chunker_cut(struct chunker *c)
{
	struct cjob *j;
	struct cbuf swap;
	int rc;

	if (!c->has_msgs)
		return BAG_OK;
	if ((j = cpool_job(c->pool)) == NULL)
		return bag_error_set(c->err, BAG_ENOMEM, c->path, BAG_NO_OFFSET, "out of memory for chunk %llu",
		                     (unsigned long long)c->cut);
	if ((rc = index_streams(c, j)) != BAG_OK) {
		cpool_recycle(c->pool, j);
		return rc;
	}
	swap = j->in;
	j->in = c->buf;
	c->buf = swap;
	c->buf.len = 0;
	j->compression = c->compression;
	j->want_crc = c->want_crc;
	j->start_ns = c->start_ns;
	j->end_ns = c->end_ns;
	j->seq = c->cut++;
	c->has_msgs = false;
	cpool_submit(c->pool, j);
	return chunker_drain(c, false);
}

int chunker_drain(struct chunker *c, bool all)
{
	struct cjob *j;
	int rc = BAG_OK;

	while ((j = cpool_next(c->pool, all)) != NULL) {
		int r = *c->failed;
		if (r == BAG_OK && j->rc != BAG_OK)
			r = bag_error_set(c->err, j->rc, c->path, BAG_NO_OFFSET, "chunk %llu: %s",
			                  (unsigned long long)j->seq, j->err.message);
		else if (r == BAG_OK)
			r = c->ops->write(c->w, j);
		if (r != BAG_OK)
			*c->failed = r;
		if (rc == BAG_OK)
			rc = r;
		cpool_recycle(c->pool, j);
	}
	return rc;
}

int wcore_error(struct wcore *c, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bag_error_vset(&c->err, code, c->path ? c->path : "bag", BAG_NO_OFFSET, fmt, ap);
	va_end(ap);
	return code;
}

int wcore_open(struct wcore *c, const char *path, void *o, size_t osize, const void *opts, const char *oname)
{
	if (path == NULL || *path == '\0')
		return wcore_error(c, BAG_EINVAL, "no path given");
	if ((c->path = strdup(path)) == NULL)
		return wcore_error(c, BAG_ENOMEM, "out of memory");
	if (bag_opts_read(o, osize, opts) != BAG_OK)
		return wcore_error(c, BAG_EINVAL, "%s.size is %zu: set it to sizeof(struct %s) (%zu), and leave "
		                   "unknown fields zero", oname, *(const size_t *)opts, oname, osize);
	return BAG_OK;
}

int wcore_chunker(struct wcore *c, const struct chunker_ops *ops, void *w, enum bag_compression compression,
                  uint32_t threshold, unsigned threads)
{
	c->ck.compression = compression;
	c->ck.threshold = threshold;
#ifndef HAVE_LZ4
	if (compression == BAG_COMPRESSION_LZ4)
		return wcore_error(c, BAG_EUNSUPP, "lz4 is not supported by this build");
#endif
	return chunker_init(&c->ck, ops, w, &c->err, &c->failed, c->path, threads);
}

int wcore_close(struct wcore *c, int (*finish)(void *w), void *w)
{
	int rc;

	if (c->failed || c->closed)
		return c->failed ? c->failed : wcore_error(c, BAG_EINVAL, "writer is already closed");
	if ((rc = chunker_cut(&c->ck)) == BAG_OK && (rc = chunker_drain(&c->ck, true)) == BAG_OK)
		rc = finish(w);
	if (rc != BAG_OK)
		c->failed = rc;
	else
		c->closed = true;
	return rc;
}

void wcore_free(struct wcore *c)
{
	chunker_free(&c->ck);
	outfile_close(&c->out);
	free(c->rec.p);
	free(c->path);
}
