/*
 * mcap.c - the MCAP writer, ros1 profile (see mcap.h), from the
 * specification at mcap.dev/spec:
 *
 *   magic "\x89MCAP0\r\n", Header (op 0x01: profile, library)
 *   per chunk: Chunk (0x06: start, end, uncompressed size and CRC,
 *     compression, uint64-prefixed records) holding the Schema (0x03) and
 *     Channel (0x04) records of its first use and the Message records
 *     (0x05), then one Message Index (0x07) per channel in it, by id
 *   Data End (0x0F: CRC-32 of every byte before it, magic included)
 *   summary: the Schemas, the Channels, Statistics (0x0B), the Chunk
 *     Indexes (0x08), each group of one opcode together
 *   Summary Offset (0x0E) per group, Footer (0x02: summary start, summary
 *     offset start, CRC of the summary through the footer's second field),
 *     magic.
 * Every record is opcode, uint64 content length, content; integers little
 * endian, strings and maps uint32-length prefixed.
 *
 * The open chunk is built in memory (chunk) with the index entries of each
 * channel (time, record offset in the chunk); at the cut its buffer and its
 * Message Index records go to compress.c's pool as one job, which also
 * computes the records' CRC, and finished jobs are written in order, noting
 * each chunk's Chunk Index (chunk_indexes, with the message index offsets
 * of all chunks in mi_offsets). Schemas are found by (name, data), channels
 * by (topic, schema, metadata bytes), each through a hash compared over the
 * list; a handle is a channel's index, its id index + 1.
 *
 * Failures as in write.c: bad arguments leave the writer unchanged, others
 * are sticky.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <bagscope/mcap.h>
#include "lib/out/compress-int.h"
#include "lib/out/outfile-int.h"
#include "lib/common/util-int.h"

#define DEFAULT_CHUNK (768u * 1024u)
#define MAGIC "\x89MCAP0\r\n"
#define MAGIC_LEN 8
#define MAX_IDS 65535

enum {
	OP_HEADER = 0x01, OP_FOOTER = 0x02, OP_SCHEMA = 0x03, OP_CHANNEL = 0x04, OP_MESSAGE = 0x05,
	OP_CHUNK = 0x06, OP_MESSAGE_INDEX = 0x07, OP_CHUNK_INDEX = 0x08, OP_STATISTICS = 0x0B,
	OP_SUMMARY_OFFSET = 0x0E, OP_DATA_END = 0x0F,
};

#define MSG_FIXED (2 + 4 + 8 + 8)   /* channel, sequence, log and publish time */
#define MSG_OVERHEAD (1 + 8 + MSG_FIXED)

struct schema {
	char *name;               /* the datatype */
	uint8_t *data;            /* the definition text */
	size_t len;
	uint32_t hash;
	bool written;             /* its record is in the data section */
};

struct entry {
	uint64_t time_ns;
	uint64_t offset;          /* of its Message record in the chunk */
};

struct channel {
	char *topic;
	uint32_t schema;          /* index in schemas */
	uint8_t *meta;            /* the metadata map, length prefix included */
	size_t meta_len;
	uint32_t hash;
	bool written;
	uint32_t seq;             /* messages so far: the next one's sequence */
	uint64_t count;
	struct entry *entries;    /* in the open chunk */
	size_t nentries, cap;
	bool unsorted;
};

/* A written chunk, for its Chunk Index. */
struct chunk_index {
	uint64_t start_ns, end_ns;
	uint64_t pos, length;     /* the Chunk record */
	uint64_t compressed, uncompressed;
	size_t first_mi;          /* its channels in mi_offsets */
	size_t nmi;
	uint64_t mi_length;       /* bytes of its Message Index records */
	enum bag_compression compression;
};

/* Where one channel's Message Index record of a chunk is. */
struct mi_offset {
	uint16_t channel;
	uint64_t pos;
};

struct bag_mcap_writer {
	char *path;
	struct outfile out;
	enum bag_compression compression;
	uint32_t chunk_size;
	bool no_replace;
	struct schema *schemas;
	size_t nschemas, schemas_cap;
	struct channel *channels;
	size_t nchannels, channels_cap;
	uint32_t *touched;        /* channels with entries in the open chunk */
	size_t ntouched, touched_cap;
	struct cbuf chunk;        /* the open chunk's records */
	struct cbuf rec;          /* a record being built */
	uint64_t chunk_start, chunk_end;
	bool chunk_has_msgs;
	struct cpool *pool;
	uint64_t chunks_cut;
	struct chunk_index *chunks;
	size_t nchunks, chunks_cap;
	struct mi_offset *mi;
	size_t nmi, mi_cap;
	uint64_t messages;
	uint64_t start_ns, end_ns;  /* over the file (messages > 0) */
	int failed;
	bool closed;
	struct bag_error err;      /* the last failure (common.h) */
};

static int m_error(bag_mcap_writer_t *w, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Record "PATH: message" as the last error; returns code. */
static int m_error(bag_mcap_writer_t *w, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bag_error_vset(&w->err, code, w->path ? w->path : "mcap", BAG_NO_OFFSET, fmt, ap);
	va_end(ap);
	return code;
}

/* A String: uint32 length, bytes. */
static void put_str(struct cbuf *b, const void *s, size_t n)
{
	cbuf_put32(b, (uint32_t)n);
	cbuf_put(b, s, n);
}

/* Start a record of content length len in b (room for all of it reserved). */
static int rec_start(struct cbuf *b, uint8_t op, size_t len)
{
	if (cbuf_reserve(b, 9 + len) != 0)
		return -1;
	cbuf_put8(b, op);
	cbuf_put64(b, len);
	return 0;
}

static int out_write(bag_mcap_writer_t *w, const void *p, size_t n)
{
	struct bag_error err;
	int rc = outfile_write(&w->out, p, n, &err);

	return rc == BAG_OK ? rc : m_error(w, rc, "%s", err.message);
}

/* FNV-1a over n bytes, continuing h. */
static uint32_t fnv(uint32_t h, const void *p, size_t n)
{
	const uint8_t *s = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 16777619u;
	return h;
}

/* The Schema record of schema k (id k + 1) into b. */
static int put_schema(struct cbuf *b, const struct schema *s, size_t k)
{
	size_t name = strlen(s->name);

	if (rec_start(b, OP_SCHEMA, 2 + 4 + name + 4 + 7 + 4 + s->len) != 0)
		return -1;
	cbuf_put16(b, (uint16_t)(k + 1));
	put_str(b, s->name, name);
	put_str(b, "ros1msg", 7);
	put_str(b, s->data, s->len);
	return 0;
}

/* The Channel record of channel k (id k + 1) into b. */
static int put_channel(struct cbuf *b, const struct channel *c, size_t k)
{
	size_t topic = strlen(c->topic);

	if (rec_start(b, OP_CHANNEL, 2 + 2 + 4 + topic + 4 + 4 + c->meta_len) != 0)
		return -1;
	cbuf_put16(b, (uint16_t)(k + 1));
	cbuf_put16(b, (uint16_t)(c->schema + 1));
	put_str(b, c->topic, topic);
	put_str(b, "ros1", 4);
	cbuf_put(b, c->meta, c->meta_len);
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return (x->offset > y->offset) - (x->offset < y->offset);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Write a finished job: the Chunk record, then its Message Index records. */
static int write_job(bag_mcap_writer_t *w, struct cjob *j)
{
	const char *comp = j->compression == BAG_COMPRESSION_LZ4 ? "lz4" : "";
	size_t clen = strlen(comp);
	uint64_t pos = w->out.pos, mi_pos;
	struct chunk_index *ci;
	int rc = BAG_OK;

	if (w->failed) {
		rc = w->failed;
		goto fail;
	}
	if (j->rc != BAG_OK) {
		rc = m_error(w, j->rc, "chunk %llu: %s", (unsigned long long)j->seq, j->err.message);
		goto fail;
	}
	w->rec.len = 0;
	if (bag_grow((void **)&w->chunks, &w->chunks_cap, w->nchunks + 1, sizeof *w->chunks) != 0 ||
	    bag_grow((void **)&w->mi, &w->mi_cap, w->nmi + j->nconns, sizeof *w->mi) != 0 ||
	    rec_start(&w->rec, OP_CHUNK, 8 + 8 + 8 + 4 + 4 + clen + 8 + j->data_len) != 0) {
		rc = m_error(w, BAG_ENOMEM, "out of memory for chunk %zu", w->nchunks);
		goto fail;
	}
	cbuf_put64(&w->rec, (uint64_t)j->start_ns);
	cbuf_put64(&w->rec, (uint64_t)j->end_ns);
	cbuf_put64(&w->rec, j->in.len);
	cbuf_put32(&w->rec, j->crc);
	put_str(&w->rec, comp, clen);
	cbuf_put64(&w->rec, j->data_len);
	if ((rc = out_write(w, w->rec.p, w->rec.len)) != BAG_OK || (rc = out_write(w, j->data, j->data_len)) != BAG_OK)
		goto fail;
	mi_pos = w->out.pos;
	if ((rc = out_write(w, j->index.p, j->index.len)) != BAG_OK)
		goto fail;
	ci = &w->chunks[w->nchunks++];
	*ci = (struct chunk_index){ (uint64_t)j->start_ns, (uint64_t)j->end_ns, pos, mi_pos - pos, j->data_len,
	                            j->in.len, w->nmi, j->nconns, j->index.len, j->compression };
	for (size_t k = 0; k < j->nconns; k++)
		w->mi[w->nmi++] = (struct mi_offset){ (uint16_t)j->conns[k].id, mi_pos + j->conns[k].off };
fail:
	if (rc != BAG_OK)
		w->failed = rc;
	return rc;
}

/* Write what the pool has finished, in order; wait for all of it if all. */
static int drain(bag_mcap_writer_t *w, bool all)
{
	struct cjob *j;
	int rc = BAG_OK;

	while ((j = cpool_next(w->pool, all)) != NULL) {
		int r = write_job(w, j);
		if (rc == BAG_OK)
			rc = r;
		cpool_recycle(w->pool, j);
	}
	return rc;
}

/* Channel k's Message Index record for the open chunk, into job j. */
static int job_index(bag_mcap_writer_t *w, struct cjob *j, uint32_t k)
{
	struct channel *c = &w->channels[k];
	uint64_t off = j->index.len;

	if (c->unsorted)
		bag_sort(c->entries, c->nentries, sizeof *c->entries, cmp_entry);
	if (rec_start(&j->index, OP_MESSAGE_INDEX, 2 + 4 + 16 * c->nentries) != 0 ||
	    bag_grow((void **)&j->conns, &j->conns_cap, j->nconns + 1, sizeof *j->conns) != 0)
		return m_error(w, BAG_ENOMEM, "out of memory for an index of %zu entries", c->nentries);
	cbuf_put16(&j->index, (uint16_t)(k + 1));
	cbuf_put32(&j->index, (uint32_t)(16 * c->nentries));
	for (size_t i = 0; i < c->nentries; i++) {
		cbuf_put64(&j->index, c->entries[i].time_ns);
		cbuf_put64(&j->index, c->entries[i].offset);
	}
	j->conns[j->nconns++] = (struct cjob_conn){ k + 1, (uint32_t)c->nentries, off };
	c->nentries = 0;
	c->unsorted = false;
	return BAG_OK;
}

/* Cut the open chunk into a job for the pool; write what is finished. */
static int flush_chunk(bag_mcap_writer_t *w)
{
	struct cjob *j;
	struct cbuf swap;
	int rc = BAG_OK;

	if (!w->chunk_has_msgs)
		goto fail;
	if ((j = cpool_job(w->pool)) == NULL) {
		rc = m_error(w, BAG_ENOMEM, "out of memory for chunk %llu", (unsigned long long)w->chunks_cut);
		goto fail;
	}
	bag_sort(w->touched, w->ntouched, sizeof *w->touched, cmp_u32);
	for (size_t k = 0; k < w->ntouched; k++)
		if ((rc = job_index(w, j, w->touched[k])) != BAG_OK) {
			cpool_recycle(w->pool, j);
			goto fail;
		}
	w->ntouched = 0;
	swap = j->in;
	j->in = w->chunk;
	w->chunk = swap;
	w->chunk.len = 0;
	j->compression = w->compression;
	j->want_crc = true;
	j->start_ns = (int64_t)w->chunk_start;
	j->end_ns = (int64_t)w->chunk_end;
	j->seq = w->chunks_cut++;
	w->chunk_has_msgs = false;
	cpool_submit(w->pool, j);
	rc = drain(w, false);
fail:
	if (rc != BAG_OK)
		w->failed = rc;
	return rc;
}

BAG_API int bag_mcap_writer_open(bag_mcap_writer_t **out, const char *path, const struct bag_mcap_opts *opts)
{
	struct bag_mcap_opts o;
	bag_mcap_writer_t *w;
	struct bag_error err;
	char library[64];
	int rc = BAG_OK;

	assert(out != NULL);
	*out = w = calloc(1, sizeof *w);
	if (w == NULL) {
		rc = BAG_ENOMEM;
		goto fail;
	}
	if (path == NULL || *path == '\0') {
		rc = m_error(w, BAG_EINVAL, "no path given");
		goto fail;
	}
	if ((w->path = strdup(path)) == NULL) {
		rc = m_error(w, BAG_ENOMEM, "out of memory");
		goto fail;
	}
	if (bag_opts_read(&o, sizeof o, opts) != BAG_OK) {
		rc = m_error(w, BAG_EINVAL, "bag_mcap_opts.size is %zu: set it to sizeof(struct bag_mcap_opts) "
		             "(%zu), and leave unknown fields zero", opts->size, sizeof o);
		goto fail;
	}
	w->compression = o.compression;
	w->chunk_size = o.chunk_size ? o.chunk_size : DEFAULT_CHUNK;
	w->no_replace = o.no_replace;
	if (w->compression != BAG_COMPRESSION_NONE && w->compression != BAG_COMPRESSION_LZ4) {
		rc = m_error(w, BAG_EINVAL, "MCAP chunks are lz4 or uncompressed, not %s",
		             w->compression == BAG_COMPRESSION_BZ2 ? "bz2" : "an unknown compression");
		goto fail;
	}
#ifndef HAVE_LZ4
	if (w->compression == BAG_COMPRESSION_LZ4) {
		rc = m_error(w, BAG_EUNSUPP, "lz4 is not supported by this build");
		goto fail;
	}
#endif
	/* the records' CRC is computed on the pool, so it runs with none too */
	if (cpool_new(&w->pool, o.threads, 0) != BAG_OK) {
		rc = m_error(w, BAG_ENOMEM, "out of memory");
		goto fail;
	}
	if ((rc = outfile_create(&w->out, w->path, &err)) != BAG_OK) {
		m_error(w, rc, "%s", err.message);
		goto fail;
	}
	w->out.crc_on = true;
	snprintf(library, sizeof library, "bagscope %s", bag_version_string());
	w->rec.len = 0;
	if (rec_start(&w->rec, OP_HEADER, 4 + 4 + 4 + strlen(library)) != 0) {
		rc = m_error(w, BAG_ENOMEM, "out of memory");
		goto fail;
	}
	put_str(&w->rec, "ros1", 4);
	put_str(&w->rec, library, strlen(library));
	if ((rc = out_write(w, MAGIC, MAGIC_LEN)) != BAG_OK || (rc = out_write(w, w->rec.p, w->rec.len)) != BAG_OK)
		goto fail;
fail:
	if (rc != BAG_OK && w != NULL)
		w->failed = rc;
	return rc;
}

/* The schema for (name, data): found, or added; *k its index. */
static int find_schema(bag_mcap_writer_t *w, const char *name, const void *data, size_t len, uint32_t *k)
{
	uint32_t h = fnv(fnv(2166136261u, name, strlen(name) + 1), data, len);
	struct schema s = { 0 };

	for (size_t i = 0; i < w->nschemas; i++) {
		const struct schema *t = &w->schemas[i];
		if (t->hash == h && t->len == len && strcmp(t->name, name) == 0 && memcmp(t->data, data, len) == 0) {
			*k = (uint32_t)i;
			return BAG_OK;
		}
	}
	if (w->nschemas >= MAX_IDS)
		return m_error(w, BAG_EINVAL, "more than %d schemas", MAX_IDS);
	s.name = strdup(name);
	s.data = malloc(len ? len : 1);
	s.len = len;
	s.hash = h;
	if (s.name == NULL || s.data == NULL ||
	    bag_grow((void **)&w->schemas, &w->schemas_cap, w->nschemas + 1, sizeof *w->schemas) != 0) {
		free(s.name);
		free(s.data);
		return w->failed = m_error(w, BAG_ENOMEM, "out of memory");
	}
	memcpy(s.data, data, len);
	*k = (uint32_t)w->nschemas;
	w->schemas[w->nschemas++] = s;
	return BAG_OK;
}

/* Append one metadata entry (key, value) to the map in b. */
static int meta_put(struct cbuf *b, const char *key, const void *value, size_t len)
{
	size_t klen = strlen(key);

	if (cbuf_reserve(b, 8 + klen + len) != 0)
		return -1;
	put_str(b, key, klen);
	put_str(b, value, len);
	return 0;
}

BAG_API int bag_mcap_writer_add_conn(bag_mcap_writer_t *w, const char *topic, const struct bag_kv *fields,
                                     size_t nfields, uint32_t *conn)
{
	const char *type = "", *def = "";
	size_t def_len = 0;
	struct channel c = { 0 };
	uint32_t schema = 0;
	int rc;

	assert(w != NULL && conn != NULL);
	if (w->failed || w->closed) {
		rc = w->failed ? w->failed : m_error(w, BAG_EINVAL, "writer is closed");
		goto out;
	}
	if (topic == NULL || (fields == NULL && nfields > 0)) {
		rc = m_error(w, BAG_EINVAL, "a connection needs a topic and its header fields");
		goto out;
	}
	w->rec.len = 0;
	if (cbuf_reserve(&w->rec, 4) != 0)
		goto nomem;
	w->rec.len = 4;
	for (size_t i = 0; i < nfields; i++) {
		const struct bag_kv *f = &fields[i];
		bool dup = false;
		if (f->name == NULL || (f->value == NULL && f->value_len > 0)) {
			rc = m_error(w, BAG_EINVAL, "connection %s: header field %zu has no name or no value", topic, i);
			goto out;
		}
		for (size_t k = 0; k < i && !dup; k++)
			dup = strcmp(fields[k].name, f->name) == 0;
		if (dup || strcmp(f->name, "topic") == 0)
			continue;
		if (strcmp(f->name, "type") == 0) {
			type = f->value;
		} else if (strcmp(f->name, "message_definition") == 0) {
			def = f->value;
			def_len = f->value_len;
		} else if (strcmp(f->name, "latching") == 0 && (strcmp(f->value, "1") == 0 || strcmp(f->value, "0") == 0)) {
			const char *b = f->value[0] == '1' ? "true" : "false";
			if (meta_put(&w->rec, "latching", b, strlen(b)) != 0)
				goto nomem;
		} else if (meta_put(&w->rec, f->name, f->value, f->value_len) != 0) {
			goto nomem;
		}
	}
	if (w->rec.len - 4 > UINT32_MAX / 2) {
		rc = m_error(w, BAG_EINVAL, "connection %s: header too large", topic);
		goto out;
	}
	w->rec.p[0] = (uint8_t)(w->rec.len - 4);
	w->rec.p[1] = (uint8_t)((w->rec.len - 4) >> 8);
	w->rec.p[2] = (uint8_t)((w->rec.len - 4) >> 16);
	w->rec.p[3] = (uint8_t)((w->rec.len - 4) >> 24);
	if ((rc = find_schema(w, type, def, def_len, &schema)) != BAG_OK)
		goto out;
	c.hash = fnv(fnv(fnv(2166136261u, topic, strlen(topic) + 1), &schema, sizeof schema), w->rec.p, w->rec.len);
	for (size_t i = 0; i < w->nchannels; i++) {
		const struct channel *t = &w->channels[i];
		if (t->hash == c.hash && t->schema == schema && t->meta_len == w->rec.len &&
		    memcmp(t->meta, w->rec.p, w->rec.len) == 0 && strcmp(t->topic, topic) == 0) {
			*conn = (uint32_t)i;
			goto out;
		}
	}
	if (w->nchannels >= MAX_IDS) {
		rc = m_error(w, BAG_EINVAL, "more than %d channels", MAX_IDS);
		goto out;
	}
	c.topic = strdup(topic);
	c.schema = schema;
	c.meta = malloc(w->rec.len);
	c.meta_len = w->rec.len;
	if (c.topic == NULL || c.meta == NULL ||
	    bag_grow((void **)&w->channels, &w->channels_cap, w->nchannels + 1, sizeof *w->channels) != 0) {
		free(c.topic);
		free(c.meta);
		goto nomem;
	}
	memcpy(c.meta, w->rec.p, w->rec.len);
	*conn = (uint32_t)w->nchannels;
	w->channels[w->nchannels++] = c;
	rc = BAG_OK;
	goto out;
nomem:
	rc = w->failed = m_error(w, BAG_ENOMEM, "out of memory");
out:
	return rc;
}

BAG_API int bag_mcap_writer_write(bag_mcap_writer_t *w, uint32_t conn, int64_t time_ns, const void *data,
                                  size_t len)
{
	struct channel *c;
	struct schema *s;
	size_t need;
	int rc = BAG_OK;

	assert(w != NULL);
	if (w->failed || w->closed) {
		rc = w->failed ? w->failed : m_error(w, BAG_EINVAL, "writer is closed");
		goto out;
	}
	if (conn >= w->nchannels || time_ns < 0 || (data == NULL && len > 0)) {
		rc = m_error(w, BAG_EINVAL, "a message needs a channel, a time >= 0 and its data");
		goto out;
	}
	c = &w->channels[conn];
	s = &w->schemas[c->schema];
	if (len > SIZE_MAX / 2) {
		rc = m_error(w, BAG_EINVAL, "a %zu-byte message is too large", len);
		goto out;
	}
	need = MSG_OVERHEAD + len;
	if (bag_grow((void **)&c->entries, &c->cap, c->nentries + 1, sizeof *c->entries) != 0 ||
	    bag_grow((void **)&w->touched, &w->touched_cap, w->ntouched + 1, sizeof *w->touched) != 0 ||
	    (!s->written && put_schema(&w->chunk, s, c->schema) != 0) ||
	    (!c->written && put_channel(&w->chunk, c, conn) != 0) || cbuf_reserve(&w->chunk, need) != 0) {
		rc = m_error(w, BAG_ENOMEM, "out of memory for a %zu-byte message", len);
		goto fail;
	}
	s->written = c->written = true;
	if (c->nentries == 0)
		w->touched[w->ntouched++] = conn;
	else if ((uint64_t)time_ns < c->entries[c->nentries - 1].time_ns)
		c->unsorted = true;
	c->entries[c->nentries++] = (struct entry){ (uint64_t)time_ns, w->chunk.len };
	cbuf_put8(&w->chunk, OP_MESSAGE);
	cbuf_put64(&w->chunk, MSG_FIXED + len);
	cbuf_put16(&w->chunk, (uint16_t)(conn + 1));
	cbuf_put32(&w->chunk, c->seq++);
	cbuf_put64(&w->chunk, (uint64_t)time_ns);
	cbuf_put64(&w->chunk, (uint64_t)time_ns);
	cbuf_put(&w->chunk, data, len);
	c->count++;
	if (!w->chunk_has_msgs) {
		w->chunk_start = w->chunk_end = (uint64_t)time_ns;
		w->chunk_has_msgs = true;
	} else if ((uint64_t)time_ns < w->chunk_start) {
		w->chunk_start = (uint64_t)time_ns;
	} else if ((uint64_t)time_ns > w->chunk_end) {
		w->chunk_end = (uint64_t)time_ns;
	}
	if (w->messages++ == 0 || (uint64_t)time_ns < w->start_ns)
		w->start_ns = (uint64_t)time_ns;
	if ((uint64_t)time_ns > w->end_ns)
		w->end_ns = (uint64_t)time_ns;
	if (w->chunk.len > w->chunk_size)
		rc = flush_chunk(w);
fail:
	if (rc != BAG_OK)
		w->failed = rc;
out:
	return rc;
}

BAG_API size_t bag_mcap_writer_chunk_count(const bag_mcap_writer_t *w)
{
	return w->nchunks;
}

BAG_API size_t bag_mcap_writer_channel_count(const bag_mcap_writer_t *w)
{
	return w->nchannels;
}

/* Where one group of summary records is. */
struct group {
	uint8_t op;
	uint64_t start, length;
};

/* The Statistics record into w->rec. */
static int put_statistics(bag_mcap_writer_t *w)
{
	size_t n = 0;

	for (size_t i = 0; i < w->nchannels; i++)
		n += w->channels[i].count > 0;
	w->rec.len = 0;
	if (rec_start(&w->rec, OP_STATISTICS, 8 + 2 + 4 + 4 + 4 + 4 + 8 + 8 + 4 + 10 * n) != 0)
		return -1;
	cbuf_put64(&w->rec, w->messages);
	cbuf_put16(&w->rec, (uint16_t)w->nschemas);
	cbuf_put32(&w->rec, (uint32_t)w->nchannels);
	cbuf_put32(&w->rec, 0);   /* attachments */
	cbuf_put32(&w->rec, 0);   /* metadata */
	cbuf_put32(&w->rec, (uint32_t)w->nchunks);
	cbuf_put64(&w->rec, w->messages ? w->start_ns : 0);
	cbuf_put64(&w->rec, w->messages ? w->end_ns : 0);
	cbuf_put32(&w->rec, (uint32_t)(10 * n));
	for (size_t i = 0; i < w->nchannels; i++)
		if (w->channels[i].count > 0) {
			cbuf_put16(&w->rec, (uint16_t)(i + 1));
			cbuf_put64(&w->rec, w->channels[i].count);
		}
	return 0;
}

/* The Chunk Index record of chunk i into w->rec. */
static int put_chunk_index(bag_mcap_writer_t *w, size_t i)
{
	const struct chunk_index *ci = &w->chunks[i];
	const char *comp = ci->compression == BAG_COMPRESSION_LZ4 ? "lz4" : "";
	size_t clen = strlen(comp);

	w->rec.len = 0;
	if (rec_start(&w->rec, OP_CHUNK_INDEX, 8 * 4 + 4 + 10 * ci->nmi + 8 + 4 + clen + 8 + 8) != 0)
		return -1;
	cbuf_put64(&w->rec, ci->start_ns);
	cbuf_put64(&w->rec, ci->end_ns);
	cbuf_put64(&w->rec, ci->pos);
	cbuf_put64(&w->rec, ci->length);
	cbuf_put32(&w->rec, (uint32_t)(10 * ci->nmi));
	for (size_t k = 0; k < ci->nmi; k++) {
		cbuf_put16(&w->rec, w->mi[ci->first_mi + k].channel);
		cbuf_put64(&w->rec, w->mi[ci->first_mi + k].pos);
	}
	cbuf_put64(&w->rec, ci->mi_length);
	put_str(&w->rec, comp, clen);
	cbuf_put64(&w->rec, ci->compressed);
	cbuf_put64(&w->rec, ci->uncompressed);
	return 0;
}

/* Write the summary section, noting its groups. */
static int out_summary(bag_mcap_writer_t *w, struct group *g, size_t *ng)
{
	int rc = BAG_OK;

	for (int pass = 0; pass < 4; pass++) {
		static const uint8_t ops[] = { OP_SCHEMA, OP_CHANNEL, OP_STATISTICS, OP_CHUNK_INDEX };
		size_t n = pass == 0 ? w->nschemas : pass == 1 ? w->nchannels : pass == 2 ? 1 : w->nchunks;
		uint64_t start = w->out.pos;
		for (size_t i = 0; i < n; i++) {
			w->rec.len = 0;
			if ((pass == 0 && put_schema(&w->rec, &w->schemas[i], i) != 0) ||
			    (pass == 1 && put_channel(&w->rec, &w->channels[i], i) != 0) ||
			    (pass == 2 && put_statistics(w) != 0) || (pass == 3 && put_chunk_index(w, i) != 0)) {
				rc = m_error(w, BAG_ENOMEM, "out of memory");
				goto fail;
			}
			if ((rc = out_write(w, w->rec.p, w->rec.len)) != BAG_OK)
				goto fail;
		}
		if (n > 0)
			g[(*ng)++] = (struct group){ ops[pass], start, w->out.pos - start };
	}
fail:
	return rc;
}

/* Data End, the summary, Summary Offsets, Footer and magic. */
static int out_end(bag_mcap_writer_t *w)
{
	struct group g[4];
	size_t ng = 0;
	uint64_t summary_start, offsets_start;
	int rc;

	w->rec.len = 0;
	if (rec_start(&w->rec, OP_DATA_END, 4) != 0)
		return m_error(w, BAG_ENOMEM, "out of memory");
	cbuf_put32(&w->rec, w->out.crc);
	if ((rc = out_write(w, w->rec.p, w->rec.len)) != BAG_OK)
		return rc;
	w->out.crc = 0;
	summary_start = w->out.pos;
	if ((rc = out_summary(w, g, &ng)) != BAG_OK)
		return rc;
	offsets_start = w->out.pos;
	for (size_t i = 0; i < ng; i++) {
		w->rec.len = 0;
		if (rec_start(&w->rec, OP_SUMMARY_OFFSET, 17) != 0)
			return m_error(w, BAG_ENOMEM, "out of memory");
		cbuf_put8(&w->rec, g[i].op);
		cbuf_put64(&w->rec, g[i].start);
		cbuf_put64(&w->rec, g[i].length);
		if ((rc = out_write(w, w->rec.p, w->rec.len)) != BAG_OK)
			return rc;
	}
	w->rec.len = 0;
	if (rec_start(&w->rec, OP_FOOTER, 20) != 0)
		return m_error(w, BAG_ENOMEM, "out of memory");
	cbuf_put64(&w->rec, summary_start);
	cbuf_put64(&w->rec, offsets_start);
	if ((rc = out_write(w, w->rec.p, w->rec.len)) != BAG_OK)
		return rc;
	w->rec.len = 0;
	cbuf_put32(&w->rec, w->out.crc);
	if ((rc = out_write(w, w->rec.p, w->rec.len)) != BAG_OK)
		return rc;
	return out_write(w, MAGIC, MAGIC_LEN);
}

BAG_API int bag_mcap_writer_close(bag_mcap_writer_t *w)
{
	struct bag_error err;
	int rc;

	assert(w != NULL);
	if (w->failed || w->closed) {
		rc = w->failed ? w->failed : m_error(w, BAG_EINVAL, "writer is already closed");
		goto out;
	}
	if ((rc = flush_chunk(w)) != BAG_OK || (rc = drain(w, true)) != BAG_OK || (rc = out_end(w)) != BAG_OK)
		goto fail;
	if ((rc = outfile_place(&w->out, w->no_replace, &err)) != BAG_OK)
		m_error(w, rc, "%s", err.message);
fail:
	if (rc != BAG_OK)
		w->failed = rc;
	else
		w->closed = true;
out:
	return rc;
}

BAG_API void bag_mcap_writer_free(bag_mcap_writer_t *w)
{
	if (w == NULL)
		return;
	cpool_free(w->pool);
	outfile_close(&w->out);
	for (size_t i = 0; i < w->nschemas; i++) {
		free(w->schemas[i].name);
		free(w->schemas[i].data);
	}
	for (size_t i = 0; i < w->nchannels; i++) {
		free(w->channels[i].topic);
		free(w->channels[i].meta);
		free(w->channels[i].entries);
	}
	free(w->schemas);
	free(w->channels);
	free(w->touched);
	free(w->chunk.p);
	free(w->rec.p);
	free(w->chunks);
	free(w->mi);
	free(w->path);
	free(w);
}

BAG_API const struct bag_error *bag_mcap_writer_error(const bag_mcap_writer_t *w)
{
	return w != NULL ? &w->err : &bag_error_nomem;
}
