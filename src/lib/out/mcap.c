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
#include "lib/out/chunker-int.h"
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

struct channel {
	char *topic;
	uint32_t schema;          /* index in schemas */
	uint8_t *meta;            /* the metadata map, length prefix included */
	size_t meta_len;
	uint32_t hash;
	bool written;
	uint32_t seq;             /* messages so far: the next one's sequence */
	uint64_t count;
	struct chunk_stream st;   /* its messages in the open chunk */
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
	struct wcore c;            /* path, file, chunker, record, error (chunker-int.h) */
	enum bag_encoding encoding;       /* the profile: ros1 or ros2 (cdr) */
	enum bag_compression compression;
	struct schema *schemas;
	size_t nschemas, schemas_cap;
	struct channel *channels;
	size_t nchannels, channels_cap;
	struct chunk_index *chunks;
	size_t nchunks, chunks_cap;
	struct mi_offset *mi;
	size_t nmi, mi_cap;
	uint64_t messages;
	uint64_t start_ns, end_ns;  /* over the file (messages > 0) */
};

/* Record "PATH: message" as the last error; returns code. */
#define m_error(w, ...) wcore_error(&(w)->c, __VA_ARGS__)

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
	return outfile_write(&w->c.out, p, n, &w->c.err);
}

/* FNV-1a over n bytes, continuing h. */
static uint32_t fnv(uint32_t h, const void *p, size_t n)
{
	const uint8_t *s = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 16777619u;
	return h;
}

/* The Schema record of schema k (id k + 1) into b; ros2msg for the ros2 profile. */
static int put_schema(struct cbuf *b, const struct schema *s, size_t k, bool ros2)
{
	size_t name = strlen(s->name);

	if (rec_start(b, OP_SCHEMA, 2 + 4 + name + 4 + 7 + 4 + s->len) != 0)
		return -1;
	cbuf_put16(b, (uint16_t)(k + 1));
	put_str(b, s->name, name);
	put_str(b, ros2 ? "ros2msg" : "ros1msg", 7);
	put_str(b, s->data, s->len);
	return 0;
}

/* The Channel record of channel k (id k + 1) into b; cdr messages for the ros2 profile. */
static int put_channel(struct cbuf *b, const struct channel *c, size_t k, bool ros2)
{
	size_t topic = strlen(c->topic);

	if (rec_start(b, OP_CHANNEL, 2 + 2 + 4 + topic + 4 + (ros2 ? 3 : 4) + c->meta_len) != 0)
		return -1;
	cbuf_put16(b, (uint16_t)(k + 1));
	cbuf_put16(b, (uint16_t)(c->schema + 1));
	put_str(b, c->topic, topic);
	put_str(b, ros2 ? "cdr" : "ros1", ros2 ? 3 : 4);
	cbuf_put(b, c->meta, c->meta_len);
	return 0;
}

/* Write a finished job: the Chunk record, then its Message Index records. */
static int write_job(void *arg, struct cjob *j)
{
	bag_mcap_writer_t *w = arg;
	const char *comp = j->compression == BAG_COMPRESSION_NONE ? "" : bag_compression_name(j->compression);
	size_t clen = strlen(comp);
	uint64_t pos = w->c.out.pos, mi_pos;
	struct chunk_index *ci;
	int rc;

	w->c.rec.len = 0;
	if (bag_grow((void **)&w->chunks, &w->chunks_cap, w->nchunks + 1, sizeof *w->chunks) != 0 ||
	    bag_grow((void **)&w->mi, &w->mi_cap, w->nmi + j->nconns, sizeof *w->mi) != 0 ||
	    rec_start(&w->c.rec, OP_CHUNK, 8 + 8 + 8 + 4 + 4 + clen + 8 + j->data_len) != 0)
		return m_error(w, BAG_ENOMEM, "out of memory for chunk %zu", w->nchunks);
	cbuf_put64(&w->c.rec, (uint64_t)j->start_ns);
	cbuf_put64(&w->c.rec, (uint64_t)j->end_ns);
	cbuf_put64(&w->c.rec, j->in.len);
	cbuf_put32(&w->c.rec, j->crc);
	put_str(&w->c.rec, comp, clen);
	cbuf_put64(&w->c.rec, j->data_len);
	if ((rc = out_write(w, w->c.rec.p, w->c.rec.len)) != BAG_OK || (rc = out_write(w, j->data, j->data_len)) != BAG_OK)
		return rc;
	mi_pos = w->c.out.pos;
	if ((rc = out_write(w, j->index.p, j->index.len)) != BAG_OK)
		return rc;
	ci = &w->chunks[w->nchunks++];
	*ci = (struct chunk_index){ (uint64_t)j->start_ns, (uint64_t)j->end_ns, pos, mi_pos - pos, j->data_len,
	                            j->in.len, w->nmi, j->nconns, j->index.len, j->compression };
	for (size_t k = 0; k < j->nconns; k++)
		w->mi[w->nmi++] = (struct mi_offset){ (uint16_t)j->conns[k].id, mi_pos + j->conns[k].off };
	return BAG_OK;
}

/* Channel k's Message Index record for the open chunk, into job j. */
static int job_index(void *arg, struct cjob *j, uint32_t k, const struct chunk_stream *s)
{
	bag_mcap_writer_t *w = arg;
	uint64_t off = j->index.len;

	if (rec_start(&j->index, OP_MESSAGE_INDEX, 2 + 4 + 16 * s->n) != 0 ||
	    bag_grow((void **)&j->conns, &j->conns_cap, j->nconns + 1, sizeof *j->conns) != 0)
		return m_error(w, BAG_ENOMEM, "out of memory for an index of %zu %s", s->n, s->n == 1 ? "entry" : "entries");
	cbuf_put16(&j->index, (uint16_t)(k + 1));
	cbuf_put32(&j->index, (uint32_t)(16 * s->n));
	for (size_t i = 0; i < s->n; i++) {
		cbuf_put64(&j->index, (uint64_t)s->entries[i].time_ns);
		cbuf_put64(&j->index, s->entries[i].offset);
	}
	j->conns[j->nconns++] = (struct cjob_conn){ k + 1, (uint32_t)s->n, off };
	return BAG_OK;
}

static struct chunk_stream *channel_stream(void *arg, uint32_t k)
{
	return &((bag_mcap_writer_t *)arg)->channels[k].st;
}

static const struct chunker_ops mcap_chunker = { channel_stream, job_index, write_job };

BAG_API int bag_mcap_writer_open(bag_mcap_writer_t **out, const char *path, const struct bag_mcap_opts *opts)
{
	struct bag_mcap_opts o;
	bag_mcap_writer_t *w;
	char library[64];
	int rc = BAG_OK;

	assert(out != NULL);
	*out = w = calloc(1, sizeof *w);
	if (w == NULL) {
		rc = BAG_ENOMEM;
		goto fail;
	}
	if ((rc = wcore_open(&w->c, path, &o, sizeof o, opts, "bag_mcap_opts")) != BAG_OK)
		goto fail;
	w->compression = o.compression;
	w->encoding = o.encoding;
	w->c.ck.want_crc = true;
	w->c.no_replace = o.no_replace;
	if (w->compression != BAG_COMPRESSION_NONE && w->compression != BAG_COMPRESSION_LZ4 &&
	    w->compression != BAG_COMPRESSION_ZSTD) {
		rc = m_error(w, BAG_EINVAL, "MCAP chunks are zstd, lz4 or uncompressed, not %s",
		             w->compression == BAG_COMPRESSION_BZ2 ? "bz2" : "an unknown compression");
		goto fail;
	}
	/* the records' CRC is computed on the pool, so it runs with none too */
	if ((rc = wcore_chunker(&w->c, &mcap_chunker, w, w->compression, o.chunk_size ? o.chunk_size : DEFAULT_CHUNK,
	                        o.threads)) != BAG_OK)
		goto fail;
	if ((rc = outfile_create(&w->c.out, w->c.path, &w->c.err)) != BAG_OK)
		goto fail;
	w->c.out.crc_on = true;
	snprintf(library, sizeof library, "bagscope %s", bag_version_string());
	w->c.rec.len = 0;
	if (rec_start(&w->c.rec, OP_HEADER, 4 + 4 + 4 + strlen(library)) != 0) {
		rc = m_error(w, BAG_ENOMEM, "out of memory");
		goto fail;
	}
	put_str(&w->c.rec, w->encoding == BAG_ENCODING_CDR ? "ros2" : "ros1", 4);
	put_str(&w->c.rec, library, strlen(library));
	if ((rc = out_write(w, MAGIC, MAGIC_LEN)) != BAG_OK || (rc = out_write(w, w->c.rec.p, w->c.rec.len)) != BAG_OK)
		goto fail;
fail:
	if (rc != BAG_OK && w != NULL)
		w->c.failed = rc;
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
		return w->c.failed = m_error(w, BAG_ENOMEM, "out of memory");
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

/*
 * The metadata map of a connection header into w->c.rec (length prefix
 * included), type and message_definition taken out; the first of
 * duplicate names wins, topic is left out. Returns 0, BAG_EINVAL (said) or
 * BAG_ENOMEM (not said).
 */
static int channel_meta(bag_mcap_writer_t *w, const char *topic, const struct bag_kv *fields, size_t nfields,
                        const char **type, const char **def, size_t *def_len)
{
	w->c.rec.len = 0;
	if (cbuf_reserve(&w->c.rec, 4) != 0)
		return BAG_ENOMEM;
	w->c.rec.len = 4;
	for (size_t i = 0; i < nfields; i++) {
		const struct bag_kv *f = &fields[i];
		bool dup = false;
		if (f->name == NULL || (f->value == NULL && f->value_len > 0))
			return m_error(w, BAG_EINVAL, "connection %s: header field %zu has no name or no value", topic, i);
		for (size_t k = 0; k < i && !dup; k++)
			dup = strcmp(fields[k].name, f->name) == 0;
		if (dup || strcmp(f->name, "topic") == 0)
			continue;
		if (strcmp(f->name, "type") == 0) {
			*type = f->value;
		} else if (strcmp(f->name, "message_definition") == 0) {
			*def = f->value;
			*def_len = f->value_len;
		} else if (strcmp(f->name, "latching") == 0 && (strcmp(f->value, "1") == 0 || strcmp(f->value, "0") == 0)) {
			const char *b = f->value[0] == '1' ? "true" : "false";
			if (meta_put(&w->c.rec, "latching", b, strlen(b)) != 0)
				return BAG_ENOMEM;
		} else if (w->encoding == BAG_ENCODING_CDR && strcmp(f->name, "md5sum") == 0) {
			continue;
		} else if (meta_put(&w->c.rec, f->name, f->value, f->value_len) != 0) {
			return BAG_ENOMEM;
		}
	}
	if (w->c.rec.len - 4 > UINT32_MAX / 2)
		return m_error(w, BAG_EINVAL, "connection %s: header too large", topic);
	w->c.rec.p[0] = (uint8_t)(w->c.rec.len - 4);
	w->c.rec.p[1] = (uint8_t)((w->c.rec.len - 4) >> 8);
	w->c.rec.p[2] = (uint8_t)((w->c.rec.len - 4) >> 16);
	w->c.rec.p[3] = (uint8_t)((w->c.rec.len - 4) >> 24);
	return BAG_OK;
}

/* The channel of topic, schema and the metadata in w->c.rec: found, or added. BAG_ENOMEM not said. */
static int find_channel(bag_mcap_writer_t *w, const char *topic, uint32_t schema, uint32_t *conn)
{
	struct channel c = { 0 };

	c.hash = fnv(fnv(fnv(2166136261u, topic, strlen(topic) + 1), &schema, sizeof schema), w->c.rec.p, w->c.rec.len);
	for (size_t i = 0; i < w->nchannels; i++) {
		const struct channel *t = &w->channels[i];
		if (t->hash == c.hash && t->schema == schema && t->meta_len == w->c.rec.len &&
		    memcmp(t->meta, w->c.rec.p, w->c.rec.len) == 0 && strcmp(t->topic, topic) == 0) {
			*conn = (uint32_t)i;
			return BAG_OK;
		}
	}
	if (w->nchannels >= MAX_IDS)
		return m_error(w, BAG_EINVAL, "more than %d channels", MAX_IDS);
	c.topic = strdup(topic);
	c.schema = schema;
	c.meta = malloc(w->c.rec.len);
	c.meta_len = w->c.rec.len;
	if (c.topic == NULL || c.meta == NULL ||
	    bag_grow((void **)&w->channels, &w->channels_cap, w->nchannels + 1, sizeof *w->channels) != 0) {
		free(c.topic);
		free(c.meta);
		return BAG_ENOMEM;
	}
	memcpy(c.meta, w->c.rec.p, w->c.rec.len);
	*conn = (uint32_t)w->nchannels;
	w->channels[w->nchannels++] = c;
	return BAG_OK;
}

BAG_API int bag_mcap_writer_add_conn(bag_mcap_writer_t *w, const char *topic, const struct bag_kv *fields,
                                     size_t nfields, uint32_t *conn)
{
	const char *type = "", *def = "";
	size_t def_len = 0;
	uint32_t schema = 0;
	int rc;

	assert(w != NULL && conn != NULL);
	if (w->c.failed || w->c.closed)
		return w->c.failed ? w->c.failed : m_error(w, BAG_EINVAL, "writer is closed");
	if (topic == NULL || (fields == NULL && nfields > 0))
		return m_error(w, BAG_EINVAL, "a connection needs a topic and its header fields");
	if ((rc = channel_meta(w, topic, fields, nfields, &type, &def, &def_len)) == BAG_OK &&
	    (rc = find_schema(w, type, def, def_len, &schema)) == BAG_OK)
		rc = find_channel(w, topic, schema, conn);
	if (rc == BAG_ENOMEM)
		rc = w->c.failed = m_error(w, BAG_ENOMEM, "out of memory");
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
	if (w->c.failed || w->c.closed) {
		rc = w->c.failed ? w->c.failed : m_error(w, BAG_EINVAL, "writer is closed");
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
	if (chunker_reserve(&w->c.ck, &c->st, 0) != BAG_OK ||
	    (!s->written && put_schema(&w->c.ck.buf, s, c->schema, w->encoding == BAG_ENCODING_CDR) != 0) ||
	    (!c->written && put_channel(&w->c.ck.buf, c, conn, w->encoding == BAG_ENCODING_CDR) != 0) ||
	    cbuf_reserve(&w->c.ck.buf, need) != 0) {
		rc = m_error(w, BAG_ENOMEM, "out of memory for a %zu-byte message", len);
		goto fail;
	}
	s->written = c->written = true;
	chunker_note(&w->c.ck, conn, &c->st, time_ns);
	cbuf_put8(&w->c.ck.buf, OP_MESSAGE);
	cbuf_put64(&w->c.ck.buf, MSG_FIXED + len);
	cbuf_put16(&w->c.ck.buf, (uint16_t)(conn + 1));
	cbuf_put32(&w->c.ck.buf, c->seq++);
	cbuf_put64(&w->c.ck.buf, (uint64_t)time_ns);
	cbuf_put64(&w->c.ck.buf, (uint64_t)time_ns);
	cbuf_put(&w->c.ck.buf, data, len);
	c->count++;
	if (w->messages++ == 0 || (uint64_t)time_ns < w->start_ns)
		w->start_ns = (uint64_t)time_ns;
	if ((uint64_t)time_ns > w->end_ns)
		w->end_ns = (uint64_t)time_ns;
	if (w->c.ck.buf.len > w->c.ck.threshold)
		rc = chunker_cut(&w->c.ck);
fail:
	if (rc != BAG_OK)
		w->c.failed = rc;
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

/* The Statistics record into w->c.rec. */
static int put_statistics(bag_mcap_writer_t *w)
{
	size_t n = 0;

	for (size_t i = 0; i < w->nchannels; i++)
		n += w->channels[i].count > 0;
	w->c.rec.len = 0;
	if (rec_start(&w->c.rec, OP_STATISTICS, 8 + 2 + 4 + 4 + 4 + 4 + 8 + 8 + 4 + 10 * n) != 0)
		return -1;
	cbuf_put64(&w->c.rec, w->messages);
	cbuf_put16(&w->c.rec, (uint16_t)w->nschemas);
	cbuf_put32(&w->c.rec, (uint32_t)w->nchannels);
	cbuf_put32(&w->c.rec, 0);   /* attachments */
	cbuf_put32(&w->c.rec, 0);   /* metadata */
	cbuf_put32(&w->c.rec, (uint32_t)w->nchunks);
	cbuf_put64(&w->c.rec, w->messages ? w->start_ns : 0);
	cbuf_put64(&w->c.rec, w->messages ? w->end_ns : 0);
	cbuf_put32(&w->c.rec, (uint32_t)(10 * n));
	for (size_t i = 0; i < w->nchannels; i++)
		if (w->channels[i].count > 0) {
			cbuf_put16(&w->c.rec, (uint16_t)(i + 1));
			cbuf_put64(&w->c.rec, w->channels[i].count);
		}
	return 0;
}

/* The Chunk Index record of chunk i into w->c.rec. */
static int put_chunk_index(bag_mcap_writer_t *w, size_t i)
{
	const struct chunk_index *ci = &w->chunks[i];
	const char *comp = ci->compression == BAG_COMPRESSION_NONE ? "" : bag_compression_name(ci->compression);
	size_t clen = strlen(comp);

	w->c.rec.len = 0;
	if (rec_start(&w->c.rec, OP_CHUNK_INDEX, 8 * 4 + 4 + 10 * ci->nmi + 8 + 4 + clen + 8 + 8) != 0)
		return -1;
	cbuf_put64(&w->c.rec, ci->start_ns);
	cbuf_put64(&w->c.rec, ci->end_ns);
	cbuf_put64(&w->c.rec, ci->pos);
	cbuf_put64(&w->c.rec, ci->length);
	cbuf_put32(&w->c.rec, (uint32_t)(10 * ci->nmi));
	for (size_t k = 0; k < ci->nmi; k++) {
		cbuf_put16(&w->c.rec, w->mi[ci->first_mi + k].channel);
		cbuf_put64(&w->c.rec, w->mi[ci->first_mi + k].pos);
	}
	cbuf_put64(&w->c.rec, ci->mi_length);
	put_str(&w->c.rec, comp, clen);
	cbuf_put64(&w->c.rec, ci->compressed);
	cbuf_put64(&w->c.rec, ci->uncompressed);
	return 0;
}

/* Write the summary section, noting its groups. */
static int out_summary(bag_mcap_writer_t *w, struct group *g, size_t *ng)
{
	int rc = BAG_OK;

	for (int pass = 0; pass < 4; pass++) {
		static const uint8_t ops[] = { OP_SCHEMA, OP_CHANNEL, OP_STATISTICS, OP_CHUNK_INDEX };
		size_t n = pass == 0 ? w->nschemas : pass == 1 ? w->nchannels : pass == 2 ? 1 : w->nchunks;
		uint64_t start = w->c.out.pos;
		for (size_t i = 0; i < n; i++) {
			w->c.rec.len = 0;
			if ((pass == 0 && put_schema(&w->c.rec, &w->schemas[i], i, w->encoding == BAG_ENCODING_CDR) != 0) ||
			    (pass == 1 && put_channel(&w->c.rec, &w->channels[i], i, w->encoding == BAG_ENCODING_CDR) != 0) ||
			    (pass == 2 && put_statistics(w) != 0) || (pass == 3 && put_chunk_index(w, i) != 0)) {
				rc = m_error(w, BAG_ENOMEM, "out of memory");
				goto fail;
			}
			if ((rc = out_write(w, w->c.rec.p, w->c.rec.len)) != BAG_OK)
				goto fail;
		}
		if (n > 0)
			g[(*ng)++] = (struct group){ ops[pass], start, w->c.out.pos - start };
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

	w->c.rec.len = 0;
	if (rec_start(&w->c.rec, OP_DATA_END, 4) != 0)
		return m_error(w, BAG_ENOMEM, "out of memory");
	cbuf_put32(&w->c.rec, w->c.out.crc);
	if ((rc = out_write(w, w->c.rec.p, w->c.rec.len)) != BAG_OK)
		return rc;
	w->c.out.crc = 0;
	summary_start = w->c.out.pos;
	if ((rc = out_summary(w, g, &ng)) != BAG_OK)
		return rc;
	offsets_start = w->c.out.pos;
	for (size_t i = 0; i < ng; i++) {
		w->c.rec.len = 0;
		if (rec_start(&w->c.rec, OP_SUMMARY_OFFSET, 17) != 0)
			return m_error(w, BAG_ENOMEM, "out of memory");
		cbuf_put8(&w->c.rec, g[i].op);
		cbuf_put64(&w->c.rec, g[i].start);
		cbuf_put64(&w->c.rec, g[i].length);
		if ((rc = out_write(w, w->c.rec.p, w->c.rec.len)) != BAG_OK)
			return rc;
	}
	w->c.rec.len = 0;
	if (rec_start(&w->c.rec, OP_FOOTER, 20) != 0)
		return m_error(w, BAG_ENOMEM, "out of memory");
	cbuf_put64(&w->c.rec, summary_start);
	cbuf_put64(&w->c.rec, offsets_start);
	if ((rc = out_write(w, w->c.rec.p, w->c.rec.len)) != BAG_OK)
		return rc;
	w->c.rec.len = 0;
	cbuf_put32(&w->c.rec, w->c.out.crc);
	if ((rc = out_write(w, w->c.rec.p, w->c.rec.len)) != BAG_OK)
		return rc;
	return out_write(w, MAGIC, MAGIC_LEN);
}

/* After the last chunk: the end of the file (out_end()), then the file placed. */
static int finish(void *arg)
{
	bag_mcap_writer_t *w = arg;
	int rc = out_end(w);

	return rc != BAG_OK ? rc : outfile_place(&w->c.out, w->c.no_replace, &w->c.err);
}

BAG_API int bag_mcap_writer_close(bag_mcap_writer_t *w)
{
	assert(w != NULL);
	return wcore_close(&w->c, finish, w);
}

BAG_API void bag_mcap_writer_free(bag_mcap_writer_t *w)
{
	if (w == NULL)
		return;
	wcore_free(&w->c);
	for (size_t i = 0; i < w->nschemas; i++) {
		free(w->schemas[i].name);
		free(w->schemas[i].data);
	}
	for (size_t i = 0; i < w->nchannels; i++) {
		free(w->channels[i].topic);
		free(w->channels[i].meta);
		free(w->channels[i].st.entries);
	}
	free(w->schemas);
	free(w->channels);
	free(w->chunks);
	free(w->mi);
	free(w);
}

BAG_API const struct bag_error *bag_mcap_writer_error(const bag_mcap_writer_t *w)
{
	return w != NULL ? &w->c.err : &bag_error_nomem;
}
