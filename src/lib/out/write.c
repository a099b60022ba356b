/*
 * write.c - the bag writer (format 2.0), laid out as rosbag's C++ Bag class
 * writes a bag:
 *
 *   "#ROSBAG V2.0\n"
 *   bag header record (op 3), header_len + data_len = 4096 with space
 *     padding; written with index_pos 0 at open, rewritten at close
 *   for each chunk: the chunk record (op 5, size = uncompressed length), then
 *     one index data record (op 4, ver 1) per connection that has messages in
 *     it, in connection id order
 *   at index_pos: every connection record (op 7) by id, then one chunk info
 *     record (op 6, ver 1) per chunk in file order
 *
 * Header fields of the records the writer makes are in name order, as
 * rosbag's std::map keeps them; a connection added with its whole header
 * (bag_writer_add_conn) keeps its fields as given. Each connection holds its
 * connection header as the bytes written (header); its record goes into the
 * chunk holding its first message.
 *
 * The open chunk is built uncompressed in memory (chunk) and cut once its
 * length exceeds the threshold, as rosbag does: its buffer moves into a
 * compression job (compress.c's pool) together with its index data records,
 * built then, and the next chunk starts in a recycled buffer. Jobs come back
 * from the pool in order and are written (write_job), so chunk infos are
 * noted in file order. Each connection holds the index entries of its
 * messages in the open chunk; like rosbag's multiset they end up in time
 * order, equal times in write order (sorted at the cut only when some entry
 * came earlier than the one before). touched lists the connections with
 * entries in the open chunk.
 *
 * Connections are found by spec through an open-addressing table (slots
 * hold index + 1, 0 is empty, at most half full) keyed by a hash of topic,
 * md5sum, callerid and latching, a hit confirmed by comparing every field;
 * by whole header through a hash compared over the list; and, for
 * bag_writer_copy(), by the reader's connection pointer through a second
 * table. A connection's handle is its index in conns; its file id is id
 * (equal for a new bag; an appended bag keeps its ids and new ones follow
 * the largest).
 *
 * Failures: bad arguments (BAG_EINVAL) leave the writer unchanged; any other
 * failure is sticky: failed holds its code, later calls return it and the
 * message stays the one that described it.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <bagscope/record.h>
#include <bagscope/write.h>
#include "lib/formats/bag-int.h"
#include "lib/out/chunker-int.h"
#include "lib/out/outfile-int.h"
#include "lib/common/util-int.h"

#define DEFAULT_THRESHOLD (768u * 1024u)
#define BAG_HEADER_SIZE (8 + 4096)  /* the bag header record, lengths included */
#define VERSION_LINE "#ROSBAG V2.0\n"
#define MSG_HEADER_LEN 38       /* conn, op and time fields */
#define MSG_OVERHEAD (4 + MSG_HEADER_LEN + 4)

/* One connection, with its share of the open chunk's index. */
struct conn {
	uint32_t id;                /* connection id in the file */
	char *topic;                /* the connection record's topic */
	uint8_t *header;            /* the connection header as written */
	uint32_t header_len;
	uint32_t hash;              /* spec_hash() (spec) or header_hash() */
	uint32_t hhash;             /* header_hash(), for the header table */
	bool spec;                  /* findable by spec: in the spec table */
	bool written;               /* its record is in the file (or open chunk) */
	char *type, *md5sum, *definition, *callerid;  /* spec connections only */
	bool latching;
	struct chunk_stream st;     /* its messages in the open chunk */
};

/* A written chunk, for its chunk info record. */
struct chunk_info {
	uint64_t pos;               /* of the chunk record */
	int64_t start_ns, end_ns;   /* min and max message time */
	size_t first;               /* its first entry in counts */
	uint32_t n;                 /* connections in it */
};

/* Messages of one connection in one chunk. */
struct conn_count {
	uint32_t conn;              /* file id */
	uint32_t count;
};

/* A reader's connection and the writer's connection it was copied to. */
struct ptr_slot {
	const void *key;
	uint32_t conn;
};

struct bag_writer {
	struct wcore c;            /* path, file, chunker, record, error (chunker-int.h) */
	enum bag_compression compression;
	bool append;                /* writing into path in place */
	uint32_t header_size;       /* bytes of the bag header record */
	uint32_t next_id;           /* file id of the next new connection */
	struct conn *conns;         /* by handle */
	size_t nconns, conns_cap;
	uint32_t *table;            /* spec hash slots: handle + 1, 0 = empty */
	uint32_t *htable;           /* every connection by header_hash(): handle + 1, 0 = empty */
	size_t table_size;          /* power of two, >= 2 * nconns (both tables) */
	struct ptr_slot *ptrs;      /* bag_writer_copy()'s table */
	size_t ptrs_size, nptrs;
	struct chunk_info *chunks;  /* written, in file order */
	size_t nchunks, chunks_cap;
	struct conn_count *counts;  /* chunk_info.first indexes this */
	size_t ncounts, counts_cap;
};

/* Record "PATH: message" as the last error; returns code. */
#define w_error(w, ...) wcore_error(&(w)->c, __VA_ARGS__)

static void le32(uint8_t *out, uint32_t v)
{
	out[0] = (uint8_t)v;
	out[1] = (uint8_t)(v >> 8);
	out[2] = (uint8_t)(v >> 16);
	out[3] = (uint8_t)(v >> 24);
}

/* A ROS time (secs, nsecs) as one little-endian 8-byte value. */
static uint64_t ros_time(int64_t ns)
{
	return (uint64_t)(ns / BAG_NSEC_PER_SEC) | (uint64_t)(ns % BAG_NSEC_PER_SEC) << 32;
}

/* The bytes a name=value field takes, length prefix included. */
static size_t field_size(const char *name, size_t value_len)
{
	return 4 + strlen(name) + 1 + value_len;
}

static void put_field(struct cbuf *b, const char *name, const void *value, size_t len)
{
	size_t n = strlen(name);

	cbuf_put32(b, (uint32_t)(n + 1 + len));
	cbuf_put(b, name, n);
	cbuf_put(b, "=", 1);
	cbuf_put(b, value, len);
}

static void put_field_u8(struct cbuf *b, const char *name, uint8_t v)
{
	put_field(b, name, &v, 1);
}

static void put_field_u32(struct cbuf *b, const char *name, uint32_t v)
{
	uint8_t le[4];

	le32(le, v);
	put_field(b, name, le, 4);
}

static void put_field_u64(struct cbuf *b, const char *name, uint64_t v)
{
	uint8_t le[8];

	le32(le, (uint32_t)v);
	le32(le + 4, (uint32_t)(v >> 32));
	put_field(b, name, le, 8);
}

static void put_field_str(struct cbuf *b, const char *name, const char *s)
{
	put_field(b, name, s, strlen(s));
}

/* Append n bytes to the file. */
static int out_write(bag_writer_t *w, const void *p, size_t n)
{
	return outfile_write(&w->c.out, p, n, &w->c.err);
}

/* Append a record: the header fields in hdr, then data[0..len). */
static int out_record(bag_writer_t *w, const struct cbuf *hdr, const void *data, size_t len)
{
	uint8_t le[4];
	int rc;

	le32(le, (uint32_t)hdr->len);
	if ((rc = out_write(w, le, 4)) != BAG_OK || (rc = out_write(w, hdr->p, hdr->len)) != BAG_OK)
		goto fail;
	le32(le, (uint32_t)len);
	if ((rc = out_write(w, le, 4)) != BAG_OK)
		goto fail;
	rc = out_write(w, data, len);
fail:
	return rc;
}

/* Bytes of c's whole connection record (op 7). */
static size_t conn_record_size(const struct conn *c)
{
	return 8 + field_size("conn", 4) + field_size("op", 1) + field_size("topic", strlen(c->topic)) +
	       c->header_len;
}

/* Append c's whole connection record (op 7) to b; 0 or -1 (no memory). */
static int put_conn_record(struct cbuf *b, const struct conn *c)
{
	if (cbuf_reserve(b, conn_record_size(c)) != 0)
		return -1;
	cbuf_put32(b, (uint32_t)(field_size("conn", 4) + field_size("op", 1) + field_size("topic", strlen(c->topic))));
	put_field_u32(b, "conn", c->id);
	put_field_u8(b, "op", BAG_OP_CONNECTION);
	put_field_str(b, "topic", c->topic);
	cbuf_put32(b, c->header_len);
	cbuf_put(b, c->header, c->header_len);
	return 0;
}

/* The bag header record, header_size bytes with its space padding, into b. */
static int bag_header_record(bag_writer_t *w, uint64_t index_pos, struct cbuf *b)
{
	uint8_t hbuf[128];
	struct cbuf h = { hbuf, 0, sizeof hbuf };

	put_field_u32(&h, "chunk_count", (uint32_t)w->nchunks);
	put_field_u32(&h, "conn_count", (uint32_t)w->nconns);
	put_field_u64(&h, "index_pos", index_pos);
	put_field_u8(&h, "op", BAG_OP_FILE_HEADER);
	b->len = 0;
	if (cbuf_reserve(b, w->header_size) != 0)
		return w_error(w, BAG_ENOMEM, "out of memory");
	cbuf_put32(b, (uint32_t)h.len);
	cbuf_put(b, h.p, h.len);
	cbuf_put32(b, w->header_size - 8 - (uint32_t)h.len);
	memset(b->p + b->len, ' ', w->header_size - 8 - h.len);
	b->len = w->header_size;
	return BAG_OK;
}

/* Write the bag header record at the file position (13 at close). */
static int out_bag_header(bag_writer_t *w, uint64_t index_pos)
{
	int rc = bag_header_record(w, index_pos, &w->c.rec);

	return rc != BAG_OK ? rc : out_write(w, w->c.rec.p, w->c.rec.len);
}

/* Write a job that came back from the pool: the chunk, its index records (failures said). */
static int write_job(void *arg, struct cjob *j)
{
	bag_writer_t *w = arg;
	uint8_t hbuf[64];
	struct cbuf h = { hbuf, 0, sizeof hbuf };
	uint64_t pos = w->c.out.pos;
	int rc;

	if (bag_grow((void **)&w->chunks, &w->chunks_cap, w->nchunks + 1, sizeof *w->chunks) != 0 ||
	    bag_grow((void **)&w->counts, &w->counts_cap, w->ncounts + j->nconns, sizeof *w->counts) != 0)
		return w_error(w, BAG_ENOMEM, "out of memory for chunk %zu", w->nchunks);
	put_field_str(&h, "compression", bag_compression_name(j->compression));
	put_field_u8(&h, "op", BAG_OP_CHUNK);
	put_field_u32(&h, "size", (uint32_t)j->in.len);
	if ((rc = out_record(w, &h, j->data, j->data_len)) != BAG_OK ||
	    (rc = out_write(w, j->index.p, j->index.len)) != BAG_OK)
		return rc;
	w->chunks[w->nchunks++] = (struct chunk_info){ pos, j->start_ns, j->end_ns, w->ncounts,
	                                               (uint32_t)j->nconns };
	for (size_t k = 0; k < j->nconns; k++)
		w->counts[w->ncounts++] = (struct conn_count){ j->conns[k].id, j->conns[k].count };
	return BAG_OK;
}

/* Conn handle k's index data record for the open chunk, into job j. */
static int job_index(void *arg, struct cjob *j, uint32_t k, const struct chunk_stream *s)
{
	bag_writer_t *w = arg;
	const struct conn *c = &w->conns[k];
	uint8_t hbuf[64];
	struct cbuf h = { hbuf, 0, sizeof hbuf };

	put_field_u32(&h, "conn", c->id);
	put_field_u32(&h, "count", (uint32_t)s->n);
	put_field_u8(&h, "op", BAG_OP_INDEX_DATA);
	put_field_u32(&h, "ver", 1);
	if (cbuf_reserve(&j->index, 8 + h.len + s->n * 12) != 0 ||
	    bag_grow((void **)&j->conns, &j->conns_cap, j->nconns + 1, sizeof *j->conns) != 0)
		return w_error(w, BAG_ENOMEM, "out of memory for an index of %zu %s", s->n, s->n == 1 ? "entry" : "entries");
	cbuf_put32(&j->index, (uint32_t)h.len);
	cbuf_put(&j->index, h.p, h.len);
	cbuf_put32(&j->index, (uint32_t)(s->n * 12));
	for (size_t i = 0; i < s->n; i++) {
		cbuf_put64(&j->index, ros_time(s->entries[i].time_ns));
		cbuf_put32(&j->index, (uint32_t)s->entries[i].offset);
	}
	j->conns[j->nconns++] = (struct cjob_conn){ c->id, (uint32_t)s->n, 0 };
	return BAG_OK;
}

static struct chunk_stream *conn_stream(void *arg, uint32_t k)
{
	return &((bag_writer_t *)arg)->conns[k].st;
}

static const struct chunker_ops bag_chunker = { conn_stream, job_index, write_job };

/* FNV-1a over s and its terminator. */
static uint32_t hash_str(uint32_t h, const char *s)
{
	do
		h = (h ^ (uint8_t)*s) * 16777619u;
	while (*s++ != '\0');
	return h;
}

/* Type and definition follow from md5sum in practice, so they are left out. */
static uint32_t spec_hash(const struct bag_conn_spec *s)
{
	uint32_t h = 2166136261u;

	h = hash_str(h, s->topic);
	h = hash_str(h, s->md5sum);
	h = hash_str(h, s->callerid ? s->callerid : "");
	return (h ^ (s->callerid != NULL) << 1 ^ s->latching) * 16777619u;
}

/* FNV-1a over the topic and the header bytes. */
static uint32_t header_hash(const char *topic, const uint8_t *p, size_t n)
{
	uint32_t h = hash_str(2166136261u, topic);

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static bool spec_equal(const struct conn *c, const struct bag_conn_spec *s)
{
	if ((c->callerid == NULL) != (s->callerid == NULL) || c->latching != s->latching)
		return false;
	return strcmp(c->topic, s->topic) == 0 && strcmp(c->md5sum, s->md5sum) == 0 &&
	       strcmp(c->type, s->type) == 0 && strcmp(c->definition, s->definition) == 0 &&
	       (c->callerid == NULL || strcmp(c->callerid, s->callerid) == 0);
}

/* The table slot holding s's connection, or the empty slot it would take. */
static size_t table_slot(const bag_writer_t *w, const struct bag_conn_spec *s, uint32_t h)
{
	size_t mask = w->table_size - 1, i;

	for (i = h & mask; w->table[i] != 0; i = (i + 1) & mask) {
		const struct conn *c = &w->conns[w->table[i] - 1];
		if (c->hash == h && spec_equal(c, s))
			break;
	}
	return i;
}

/* Put handle k into the open-addressing table t of size slots under hash h. */
static void slot_put(uint32_t *t, size_t size, uint32_t h, size_t k)
{
	size_t i = h & (size - 1);

	while (t[i] != 0)
		i = (i + 1) & (size - 1);
	t[i] = (uint32_t)k + 1;
}

/* Rebuild the spec and header tables at twice the size; 0 or -1. */
static int table_grow(bag_writer_t *w)
{
	size_t size = w->table_size ? w->table_size * 2 : 64;
	uint32_t *t = calloc(size, sizeof *t), *ht = calloc(size, sizeof *ht);

	if (t == NULL || ht == NULL) {
		free(t);
		free(ht);
		return -1;
	}
	for (size_t k = 0; k < w->nconns; k++) {
		if (w->conns[k].spec)
			slot_put(t, size, w->conns[k].hash, k);
		slot_put(ht, size, w->conns[k].hhash, k);
	}
	free(w->table);
	free(w->htable);
	w->table = t;
	w->htable = ht;
	w->table_size = size;
	return 0;
}

static void conn_free(struct conn *c)
{
	free(c->topic);
	free(c->header);
	free(c->type);
	free(c->md5sum);
	free(c->definition);
	free(c->callerid);
	free(c->st.entries);
}

/* The connection header a spec gives: its fields in name order. */
static int spec_header(const struct bag_conn_spec *s, struct cbuf *b)
{
	size_t n = (s->callerid ? field_size("callerid", strlen(s->callerid)) : 0) + field_size("latching", 1) +
	           field_size("md5sum", strlen(s->md5sum)) +
	           field_size("message_definition", strlen(s->definition)) +
	           field_size("topic", strlen(s->topic)) + field_size("type", strlen(s->type));

	b->len = 0;
	if (cbuf_reserve(b, n) != 0)
		return -1;
	if (s->callerid != NULL)
		put_field_str(b, "callerid", s->callerid);
	put_field_str(b, "latching", s->latching ? "1" : "0");
	put_field_str(b, "md5sum", s->md5sum);
	put_field_str(b, "message_definition", s->definition);
	put_field_str(b, "topic", s->topic);
	put_field_str(b, "type", s->type);
	return 0;
}

/* Keep s's strings on c, making c findable by spec; false without memory. */
static bool conn_take_spec(struct conn *c, const struct bag_conn_spec *s)
{
	c->type = strdup(s->type);
	c->md5sum = strdup(s->md5sum);
	c->definition = strdup(s->definition);
	c->callerid = s->callerid ? strdup(s->callerid) : NULL;
	c->latching = s->latching;
	c->spec = true;
	return c->type && c->md5sum && c->definition && (s->callerid == NULL || c->callerid);
}

/*
 * Add a connection (topic, header bytes; file id) at handle nconns, taking
 * spec's strings when spec is not NULL; *out gets the handle. On failure
 * nothing has changed.
 */
static int conn_add(bag_writer_t *w, const char *topic, const uint8_t *header, size_t header_len,
                    uint32_t id, const struct bag_conn_spec *spec, uint32_t *out)
{
	struct conn c = { .id = id };
	int rc = BAG_OK;

	c.topic = strdup(topic);
	c.header = malloc(header_len ? header_len : 1);
	c.header_len = (uint32_t)header_len;
	c.hhash = header_hash(topic, header, header_len);
	c.hash = spec ? spec_hash(spec) : c.hhash;
	if (c.topic == NULL || c.header == NULL || (spec != NULL && !conn_take_spec(&c, spec)) ||
	    bag_grow((void **)&w->conns, &w->conns_cap, w->nconns + 1, sizeof *w->conns) != 0 ||
	    ((w->nconns + 1) * 2 > w->table_size && table_grow(w) != 0)) {
		conn_free(&c);
		rc = w_error(w, BAG_ENOMEM, "out of memory for connection %zu (%s)", w->nconns, topic);
		goto fail;
	}
	memcpy(c.header, header, header_len);
	if (c.spec)
		slot_put(w->table, w->table_size, c.hash, w->nconns);
	slot_put(w->htable, w->table_size, c.hhash, w->nconns);
	w->conns[w->nconns] = c;
	*out = (uint32_t)w->nconns++;
	if (id >= w->next_id)
		w->next_id = id + 1;
fail:
	return rc;
}

/* The value of field name in a connection's fields, or NULL. */
static const struct bag_kv *kv_find(const struct bag_connection *c, const char *name)
{
	for (size_t i = 0; i < c->nfields; i++)
		if (strcmp(c->fields[i].name, name) == 0)
			return &c->fields[i];
	return NULL;
}

/* Serialize nfields fields as a connection header into b (replaced). */
static int fields_header(const struct bag_kv *fields, size_t nfields, struct cbuf *b)
{
	size_t n = 0;

	for (size_t i = 0; i < nfields; i++)
		n += field_size(fields[i].name, fields[i].value_len);
	b->len = 0;
	if (cbuf_reserve(b, n) != 0)
		return -1;
	for (size_t i = 0; i < nfields; i++)
		put_field(b, fields[i].name, fields[i].value, fields[i].value_len);
	return 0;
}

/*
 * Take an appended bag's connection: its header as it is, and findable by
 * spec when the header is exactly what that spec would write.
 */
static int take_conn(bag_writer_t *w, const struct bag_connection *c)
{
	const struct bag_kv *caller = kv_find(c, "callerid"), *latching = kv_find(c, "latching");
	struct bag_conn_spec s = { c->topic, c->type, c->md5sum, c->definition,
	                           caller ? caller->value : NULL,
	                           latching != NULL && strcmp(latching->value, "1") == 0 };
	struct cbuf mine = { 0 };
	uint32_t handle;
	bool spec;
	int rc;

	if (fields_header(c->fields, c->nfields, &w->c.rec) != 0 || spec_header(&s, &mine) != 0) {
		free(mine.p);
		return w_error(w, BAG_ENOMEM, "out of memory");
	}
	spec = mine.len == w->c.rec.len && memcmp(mine.p, w->c.rec.p, mine.len) == 0 &&
	       strcmp(kv_find(c, "topic") ? kv_find(c, "topic")->value : "", c->topic) == 0;
	free(mine.p);
	rc = conn_add(w, c->topic, w->c.rec.p, w->c.rec.len, c->id, spec ? &s : NULL, &handle);
	if (rc == BAG_OK)
		w->conns[handle].written = true;
	return rc;
}

/* Write the bag header at byte 13 of fd directly and sync it (append). */
static int pwrite_header(bag_writer_t *w, int fd, uint64_t index_pos)
{
	int rc = bag_header_record(w, index_pos, &w->c.rec);

	if (rc == BAG_OK && (pwrite(fd, w->c.rec.p, w->c.rec.len, (off_t)strlen(VERSION_LINE)) != (ssize_t)w->c.rec.len ||
	                     fdatasync(fd) != 0))
		rc = w_error(w, BAG_EIO, "cannot write: %s", strerror(errno));
	return rc;
}

/*
 * Open w->c.path for append: read its index, rewrite its header unindexed,
 * cut the index section off, and position at its end.
 */
static int open_append(bag_writer_t *w)
{
	struct bag_open_opts oo = BAG_OPEN_OPTS_INIT;
	bag_t *bag = NULL;
	int fd = -1, major, minor, rc;

	oo.no_recover = true;
	w->c.out.path = w->c.path;
	w->c.out.placed = true;   /* never removed */
	w->c.out.tmp_path = strdup(w->c.path);
	if (w->c.out.tmp_path == NULL) {
		rc = w_error(w, BAG_ENOMEM, "out of memory");
		goto fail;
	}
	if ((rc = bag_open(&bag, w->c.path, &oo)) != BAG_OK) {
		if (rc == BAG_ENOINDEX)
			w_error(w, rc, "has no usable index: it cannot be appended to (an export writes a repaired copy)");
		else
			bag_error_copy(&w->c.err, bag_last_error(bag));
		goto fail;
	}
	bag_version(bag, &major, &minor);
	if (major != 2 || minor != 0) {
		rc = w_error(w, BAG_EVERSION, "only a bag 2.0 can be appended to, not %d.%d", major, minor);
		goto fail;
	}
	if (bag->body_pos < strlen(VERSION_LINE) + 8 + 64 || bag->index_pos < bag->body_pos ||
	    bag->index_pos > bag->file_size) {
		rc = w_error(w, BAG_ECORRUPT, "its bag header or index_pos is not as expected");
		goto fail;
	}
	w->header_size = (uint32_t)(bag->body_pos - strlen(VERSION_LINE));
	for (size_t i = 0; i < bag_conn_count(bag); i++)
		if ((rc = take_conn(w, bag_conn(bag, i))) != BAG_OK)
			goto fail;
	for (size_t i = 0; i < bag_chunk_count(bag); i++) {
		size_t n = bag_chunk_conn_n(bag, i);
		struct chunk_info ci = { bag_chunk_pos(bag, i), 0, 0, w->ncounts, (uint32_t)n };
		bag_chunk_span(bag, i, &ci.start_ns, &ci.end_ns);
		if (bag_grow((void **)&w->chunks, &w->chunks_cap, w->nchunks + 1, sizeof *w->chunks) != 0 ||
		    bag_grow((void **)&w->counts, &w->counts_cap, w->ncounts + n, sizeof *w->counts) != 0) {
			rc = w_error(w, BAG_ENOMEM, "out of memory");
			goto fail;
		}
		for (size_t k = 0; k < n; k++) {
			size_t idx;
			uint32_t count;
			bag_chunk_conn_at(bag, i, k, &idx, &count);
			w->counts[w->ncounts++] = (struct conn_count){ bag_conn(bag, idx)->id, count };
		}
		w->chunks[w->nchunks++] = ci;
	}
	fd = open(w->c.path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		rc = w_error(w, BAG_EIO, "cannot open for writing: %s", strerror(errno));
		goto fail;
	}
	if ((rc = pwrite_header(w, fd, 0)) != BAG_OK)
		goto fail;
	if (ftruncate(fd, (off_t)bag->index_pos) != 0) {
		rc = w_error(w, BAG_EIO, "cannot cut its index off: %s", strerror(errno));
		goto fail;
	}
	w->c.out.f = fdopen(fd, "r+b");
	if (w->c.out.f == NULL || fseeko(w->c.out.f, (off_t)bag->index_pos, SEEK_SET) != 0) {
		rc = w_error(w, BAG_EIO, "cannot open for writing: %s", strerror(errno));
		goto fail;
	}
	fd = -1;
	setvbuf(w->c.out.f, NULL, _IOFBF, 1 << 20);
	w->c.out.pos = bag->index_pos;
fail:
	if (fd >= 0)
		close(fd);
	bag_close(bag);
	return rc;
}

BAG_API int bag_writer_open(bag_writer_t **out, const char *path, const struct bag_writer_opts *opts)
{
	struct bag_writer_opts o;
	bag_writer_t *w;
	int rc = BAG_OK;

	assert(out != NULL);
	*out = w = calloc(1, sizeof *w);
	if (w == NULL) {
		rc = BAG_ENOMEM;
		goto fail;
	}
	w->header_size = BAG_HEADER_SIZE;
	if ((rc = wcore_open(&w->c, path, &o, sizeof o, opts, "bag_writer_opts")) != BAG_OK)
		goto fail;
	w->compression = o.compression;
	w->append = o.append;
	w->c.no_replace = o.no_replace;
	if ((unsigned)w->compression > BAG_COMPRESSION_LZ4) {
		rc = w_error(w, BAG_EINVAL, "unknown compression %d", (int)w->compression);
		goto fail;
	}
	if ((rc = wcore_chunker(&w->c, &bag_chunker, w, w->compression,
	                        o.chunk_threshold ? o.chunk_threshold : DEFAULT_THRESHOLD,
	                        w->compression == BAG_COMPRESSION_NONE ? 1 : o.threads)) != BAG_OK)
		goto fail;
	if (w->append) {
		rc = open_append(w);
		goto fail;
	}
	if ((rc = outfile_create(&w->c.out, w->c.path, &w->c.err)) != BAG_OK)
		goto fail;
	if ((rc = out_write(w, VERSION_LINE, strlen(VERSION_LINE))) != BAG_OK ||
	    (rc = out_bag_header(w, 0)) != BAG_OK)
		goto fail;
fail:
	if (rc != BAG_OK && w != NULL)
		w->c.failed = rc;
	return rc;
}

/* Append one message record to the open chunk (room reserved). */
static void put_message(bag_writer_t *w, uint32_t id, int64_t time_ns, const void *data, size_t len)
{
	struct cbuf *b = &w->c.ck.buf;

	cbuf_put32(b, MSG_HEADER_LEN);
	cbuf_put32(b, 9);
	cbuf_put(b, "conn=", 5);
	cbuf_put32(b, id);
	cbuf_put32(b, 4);
	cbuf_put(b, "op=\x02", 4);
	cbuf_put32(b, 13);
	cbuf_put(b, "time=", 5);
	cbuf_put64(b, ros_time(time_ns));
	cbuf_put32(b, (uint32_t)len);
	cbuf_put(b, data, len);
}

/* Check a message's time and size; 0 or BAG_EINVAL (writer unchanged). */
static int check_message(bag_writer_t *w, int64_t time_ns, const void *data, size_t len)
{
	if (data == NULL && len > 0)
		return w_error(w, BAG_EINVAL, "a message of %zu byte%s needs its data", len, BAG_S(len));
	if (time_ns < 0 || time_ns / BAG_NSEC_PER_SEC > UINT32_MAX)
		return w_error(w, BAG_EINVAL, "time %lld ns is outside what a bag can store", (long long)time_ns);
	if (len > UINT32_MAX - MSG_OVERHEAD)
		return w_error(w, BAG_EINVAL, "a %zu-byte message does not fit in a chunk", len);
	return BAG_OK;
}

/* A usable writer: 0, its sticky failure, or BAG_EINVAL once closed. */
static int check_open(bag_writer_t *w)
{
	if (w->c.failed)
		return w->c.failed;
	return w->c.closed ? w_error(w, BAG_EINVAL, "writer is closed") : BAG_OK;
}

/* Append a checked message on connection handle k; cut the chunk when full. */
static int write_on(bag_writer_t *w, uint32_t k, int64_t time_ns, const void *data, size_t len)
{
	struct conn *c = &w->conns[k];
	size_t need = MSG_OVERHEAD + len + (c->written ? 0 : conn_record_size(c));
	int rc = BAG_OK;

	if (need > UINT32_MAX - 8) {
		rc = w_error(w, BAG_EINVAL, "connection %s is too large for a chunk", c->topic);
		goto out;
	}
	if (w->c.ck.buf.len > UINT32_MAX - need && (rc = chunker_cut(&w->c.ck)) != BAG_OK)
		goto fail;
	if (chunker_reserve(&w->c.ck, &c->st, need) != BAG_OK) {
		rc = w_error(w, BAG_ENOMEM, "out of memory for a %zu-byte message", len);
		goto fail;
	}
	if (!c->written) {
		put_conn_record(&w->c.ck.buf, c);
		c->written = true;
	}
	chunker_note(&w->c.ck, k, &c->st, time_ns);
	put_message(w, c->id, time_ns, data, len);
	if (w->c.ck.buf.len > w->c.ck.threshold)
		rc = chunker_cut(&w->c.ck);
fail:
	if (rc != BAG_OK)
		w->c.failed = rc;
out:
	return rc;
}

BAG_API int bag_writer_write(bag_writer_t *w, const struct bag_conn_spec *spec,
                             int64_t time_ns, const void *data, size_t len)
{
	uint32_t h, k;
	size_t slot;
	int rc;

	assert(w != NULL);
	if ((rc = check_open(w)) != BAG_OK)
		goto out;
	if (spec == NULL || spec->topic == NULL || spec->type == NULL || spec->md5sum == NULL ||
	    spec->definition == NULL) {
		rc = w_error(w, BAG_EINVAL, "a message needs a connection with topic, type, md5sum and definition");
		goto out;
	}
	if ((rc = check_message(w, time_ns, data, len)) != BAG_OK)
		goto out;
	if (w->table_size == 0 && table_grow(w) != 0) {
		rc = w->c.failed = w_error(w, BAG_ENOMEM, "out of memory for the connection table");
		goto out;
	}
	h = spec_hash(spec);
	slot = table_slot(w, spec, h);
	if (w->table[slot] != 0) {
		k = w->table[slot] - 1;
	} else {
		if (spec_header(spec, &w->c.rec) != 0) {
			rc = w->c.failed = w_error(w, BAG_ENOMEM, "out of memory");
			goto out;
		}
		if (w->c.rec.len > UINT32_MAX / 2) {
			rc = w_error(w, BAG_EINVAL, "connection %s is too large for a chunk", spec->topic);
			goto out;
		}
		if ((rc = conn_add(w, spec->topic, w->c.rec.p, w->c.rec.len, w->next_id, spec, &k)) != BAG_OK) {
			w->c.failed = rc;
			goto out;
		}
	}
	rc = write_on(w, k, time_ns, data, len);
out:
	return rc;
}

BAG_API int bag_writer_add_conn(bag_writer_t *w, const char *topic, const struct bag_kv *fields,
                                size_t nfields, uint32_t *conn)
{
	uint32_t h;
	int rc;

	assert(w != NULL && conn != NULL);
	if ((rc = check_open(w)) != BAG_OK)
		goto out;
	if (topic == NULL || (fields == NULL && nfields > 0)) {
		rc = w_error(w, BAG_EINVAL, "a connection needs a topic and its header fields");
		goto out;
	}
	for (size_t i = 0; i < nfields; i++)
		if (fields[i].name == NULL || fields[i].name[0] == '\0' || strchr(fields[i].name, '=') != NULL ||
		    (fields[i].value == NULL && fields[i].value_len > 0)) {
			rc = w_error(w, BAG_EINVAL, "connection %s: header field %zu has no name, a name with '=', "
			             "or no value", topic, i);
			goto out;
		}
	if (fields_header(fields, nfields, &w->c.rec) != 0) {
		rc = w->c.failed = w_error(w, BAG_ENOMEM, "out of memory");
		goto out;
	}
	if (w->c.rec.len > UINT32_MAX / 2 || strlen(topic) > UINT32_MAX / 4) {
		rc = w_error(w, BAG_EINVAL, "connection %s is too large for a chunk", topic);
		goto out;
	}
	h = header_hash(topic, w->c.rec.p, w->c.rec.len);
	for (size_t i = h & (w->table_size - 1); w->table_size > 0 && w->htable[i] != 0; i = (i + 1) & (w->table_size - 1)) {
		const struct conn *c = &w->conns[w->htable[i] - 1];
		if (c->hhash == h && c->header_len == w->c.rec.len && memcmp(c->header, w->c.rec.p, c->header_len) == 0 &&
		    strcmp(c->topic, topic) == 0) {
			*conn = w->htable[i] - 1;
			goto out;
		}
	}
	rc = conn_add(w, topic, w->c.rec.p, w->c.rec.len, w->next_id, NULL, conn);
	if (rc != BAG_OK)
		w->c.failed = rc;
out:
	return rc;
}

BAG_API int bag_writer_write_conn(bag_writer_t *w, uint32_t conn, int64_t time_ns, const void *data,
                                  size_t len)
{
	int rc;

	assert(w != NULL);
	if ((rc = check_open(w)) != BAG_OK)
		return rc;
	if (conn >= w->nconns)
		return w_error(w, BAG_EINVAL, "no connection %u", conn);
	if ((rc = check_message(w, time_ns, data, len)) != BAG_OK)
		return rc;
	return write_on(w, conn, time_ns, data, len);
}

/* Pointer hash (the copy table). */
static size_t ptr_hash(const void *p)
{
	uint64_t x = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ULL;

	return (size_t)(x >> 32);
}

/* Rebuild the copy table at twice the size; 0 or -1. */
static int ptrs_grow(bag_writer_t *w)
{
	size_t size = w->ptrs_size ? w->ptrs_size * 2 : 64;
	struct ptr_slot *t = calloc(size, sizeof *t);

	if (t == NULL)
		return -1;
	for (size_t i = 0; i < w->ptrs_size; i++) {
		size_t j;
		if (w->ptrs[i].key == NULL)
			continue;
		for (j = ptr_hash(w->ptrs[i].key) & (size - 1); t[j].key != NULL; j = (j + 1) & (size - 1))
			;
		t[j] = w->ptrs[i];
	}
	free(w->ptrs);
	w->ptrs = t;
	w->ptrs_size = size;
	return 0;
}

BAG_API int bag_writer_copy(bag_writer_t *w, const struct bag_message *m)
{
	size_t i = 0;
	uint32_t k;
	int rc;

	assert(w != NULL);
	if ((rc = check_open(w)) != BAG_OK)
		goto out;
	if (m == NULL || m->conn == NULL || (m->data == NULL && m->size > 0)) {
		rc = w_error(w, BAG_EINVAL, "a message to copy needs its connection and data");
		goto out;
	}
	if (w->ptrs_size > 0)
		for (i = ptr_hash(m->conn) & (w->ptrs_size - 1); w->ptrs[i].key != NULL && w->ptrs[i].key != m->conn;
		     i = (i + 1) & (w->ptrs_size - 1))
			;
	if (w->ptrs_size > 0 && w->ptrs[i].key == m->conn) {
		k = w->ptrs[i].conn;
	} else {
		if ((rc = bag_writer_add_conn(w, m->conn->topic, m->conn->fields, m->conn->nfields, &k)) != BAG_OK)
			goto out;
		if ((w->nptrs + 1) * 2 > w->ptrs_size && ptrs_grow(w) != 0) {
			rc = w->c.failed = w_error(w, BAG_ENOMEM, "out of memory");
			goto out;
		}
		for (i = ptr_hash(m->conn) & (w->ptrs_size - 1); w->ptrs[i].key != NULL; i = (i + 1) & (w->ptrs_size - 1))
			;
		w->ptrs[i] = (struct ptr_slot){ m->conn, k };
		w->nptrs++;
	}
	rc = bag_writer_write_conn(w, k, m->time_ns, m->data, m->size);
out:
	return rc;
}

BAG_API size_t bag_writer_chunk_count(const bag_writer_t *w)
{
	return w->nchunks;
}

BAG_API size_t bag_writer_conn_count(const bag_writer_t *w)
{
	return w->nconns;
}

/* Write the index section: connection records, then chunk infos. */
static int out_index_section(bag_writer_t *w)
{
	int rc = BAG_OK;

	for (size_t k = 0; k < w->nconns; k++) {
		w->c.rec.len = 0;
		if (put_conn_record(&w->c.rec, &w->conns[k]) != 0) {
			rc = w_error(w, BAG_ENOMEM, "out of memory");
			goto fail;
		}
		if ((rc = out_write(w, w->c.rec.p, w->c.rec.len)) != BAG_OK)
			goto fail;
	}
	for (size_t i = 0; i < w->nchunks; i++) {
		const struct chunk_info *ci = &w->chunks[i];
		uint8_t hbuf[160];
		struct cbuf h = { hbuf, 0, sizeof hbuf };

		put_field_u64(&h, "chunk_pos", ci->pos);
		put_field_u32(&h, "count", ci->n);
		put_field_u64(&h, "end_time", ros_time(ci->end_ns));
		put_field_u8(&h, "op", BAG_OP_CHUNK_INFO);
		put_field_u64(&h, "start_time", ros_time(ci->start_ns));
		put_field_u32(&h, "ver", 1);
		w->c.rec.len = 0;
		if (cbuf_reserve(&w->c.rec, (size_t)ci->n * 8) != 0) {
			rc = w_error(w, BAG_ENOMEM, "out of memory");
			goto fail;
		}
		for (uint32_t k = 0; k < ci->n; k++) {
			cbuf_put32(&w->c.rec, w->counts[ci->first + k].conn);
			cbuf_put32(&w->c.rec, w->counts[ci->first + k].count);
		}
		if ((rc = out_record(w, &h, w->c.rec.p, w->c.rec.len)) != BAG_OK)
			goto fail;
	}
fail:
	return rc;
}

/* Finish an appended bag in place: the index on disk before the header points at it. */
static int close_append(bag_writer_t *w, uint64_t index_pos)
{
	FILE *f = w->c.out.f;
	int rc = BAG_OK;

	if (fflush(f) != 0 || fdatasync(fileno(f)) != 0 || fseeko(f, (off_t)strlen(VERSION_LINE), SEEK_SET) != 0) {
		rc = w_error(w, BAG_EIO, "cannot write: %s", strerror(errno));
		goto fail;
	}
	if ((rc = out_bag_header(w, index_pos)) != BAG_OK)
		goto fail;
	if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
		rc = w_error(w, BAG_EIO, "cannot write: %s", strerror(errno));
		goto fail;
	}
	w->c.out.f = NULL;
	if (fclose(f) != 0)
		rc = w_error(w, BAG_EIO, "cannot write: %s", strerror(errno));
fail:
	return rc;
}

/* After the last chunk: the index section, then the bag header (or the append's end); the file placed. */
static int finish(void *arg)
{
	bag_writer_t *w = arg;
	uint64_t index_pos = w->c.out.pos;
	int rc;

	if ((rc = out_index_section(w)) != BAG_OK)
		return rc;
	if (w->append)
		return close_append(w, index_pos);
	if (fseeko(w->c.out.f, (off_t)strlen(VERSION_LINE), SEEK_SET) != 0)
		return w_error(w, BAG_EIO, "cannot seek in %s: %s", w->c.out.tmp_path, strerror(errno));
	if ((rc = out_bag_header(w, index_pos)) != BAG_OK)
		return rc;
	return outfile_place(&w->c.out, w->c.no_replace, &w->c.err);
}

BAG_API int bag_writer_close(bag_writer_t *w)
{
	assert(w != NULL);
	return wcore_close(&w->c, finish, w);
}

BAG_API void bag_writer_free(bag_writer_t *w)
{
	if (w == NULL)
		return;
	wcore_free(&w->c);
	for (size_t i = 0; i < w->nconns; i++)
		conn_free(&w->conns[i]);
	free(w->conns);
	free(w->table);
	free(w->htable);
	free(w->ptrs);
	free(w->chunks);
	free(w->counts);
	free(w);
}

BAG_API const struct bag_error *bag_writer_error(const bag_writer_t *w)
{
	return w != NULL ? &w->c.err : &bag_error_nomem;
}
