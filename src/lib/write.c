/*
 * write.c - the bag writer.
 *
 * Layout written, as rosbag's writer does: the version line; a 4096-byte bag
 * header record (rewritten at close with index_pos and the counts); chunks,
 * each followed by one index-data record per connection in it (connection id
 * order, entries in time order); then the index section: every connection
 * record and every chunk info.
 *
 * The current chunk is built uncompressed in memory (chunk), with each of
 * its connections' index entries in conn_entries[id]; it is compressed and
 * written when it reaches the threshold. A connection's record goes into the
 * chunk where the connection first appears. Connections are found by a hash
 * of their spec in an open-addressing table (slots hold id + 1, 0 = empty).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bzlib.h>
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifdef HAVE_LZ4
#include <lz4frame.h>
#endif

#include <bagscope/record.h>
#include <bagscope/write.h>

#define DEFAULT_THRESHOLD (768u * 1024u)
#define BAG_HEADER_LEN 4096
#define VERSION_LINE "#ROSBAG V2.0\n"

/* A growable byte buffer. */
struct bytes {
	uint8_t *p;
	size_t len;
	size_t cap;
};

struct index_entry {
	int64_t time_ns;
	uint32_t offset;
};

struct conn {
	char *topic, *type, *md5sum, *definition, *callerid;  /* callerid may be NULL */
	bool latching;
	uint64_t hash;
	struct index_entry *entries;   /* in the current chunk */
	uint32_t nentries, cap;
};

struct chunk_info {
	uint64_t pos;
	int64_t start_ns, end_ns;
	uint32_t first;                /* into counts */
	uint32_t n;
};

struct conn_count {
	uint32_t conn;
	uint32_t count;
};

struct bag_writer {
	char *path;
	char *tmp_path;
	FILE *f;
	uint64_t pos;                  /* bytes written so far */
	enum bag_compression compression;
	uint32_t threshold;
	struct conn *conns;
	uint32_t nconns, conns_cap;
	uint32_t *table;               /* hash slots: conn id + 1 */
	uint32_t table_size;           /* power of two */
	struct bytes chunk;            /* current chunk, uncompressed */
	struct bytes packed;           /* compression output, reused */
	struct bytes rec;              /* a record being assembled */
	int64_t chunk_start, chunk_end;
	bool chunk_has_msgs;           /* chunk_start/end are set */
	struct chunk_info *chunks;
	uint32_t nchunks, chunks_cap;
	struct conn_count *counts;
	uint32_t ncounts, counts_cap;
	bool failed, closed;
	char errmsg[512];
};

static int w_fail(bag_writer_t *w, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int w_fail(bag_writer_t *w, int code, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(w->errmsg, sizeof w->errmsg, "%s: ", w->path ? w->path : "bag");

	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof w->errmsg)
		vsnprintf(w->errmsg + n, sizeof w->errmsg - (size_t)n, fmt, ap);
	va_end(ap);
	w->failed = true;
	return code;
}

/* Grow an array of elem-sized items to hold need of them. */
static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
	uint32_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, (size_t)n * elem);
	if (q == NULL)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

static int bytes_reserve(struct bytes *b, size_t more)
{
	size_t n = b->cap ? b->cap : 4096;
	uint8_t *q;

	if (b->len + more <= b->cap)
		return 0;
	while (n < b->len + more)
		n *= 2;
	q = realloc(b->p, n);
	if (q == NULL)
		return -1;
	b->p = q;
	b->cap = n;
	return 0;
}

/* The callers reserve first; these only append. */
static void put(struct bytes *b, const void *p, size_t n)
{
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void put32(struct bytes *b, uint32_t v)
{
	uint8_t le[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
	put(b, le, 4);
}

static void put64(struct bytes *b, uint64_t v)
{
	put32(b, (uint32_t)v);
	put32(b, (uint32_t)(v >> 32));
}

static void put_field(struct bytes *b, const char *name, const void *value, size_t len)
{
	put32(b, (uint32_t)(strlen(name) + 1 + len));
	put(b, name, strlen(name));
	put(b, "=", 1);
	put(b, value, len);
}

static void put_field_u8(struct bytes *b, const char *name, uint8_t v)
{
	put_field(b, name, &v, 1);
}

static void put_field_u32(struct bytes *b, const char *name, uint32_t v)
{
	uint8_t le[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
	put_field(b, name, le, 4);
}

static void put_field_u64(struct bytes *b, const char *name, uint64_t v)
{
	uint8_t le[8];
	for (int i = 0; i < 8; i++)
		le[i] = (uint8_t)(v >> (8 * i));
	put_field(b, name, le, 8);
}

static void put_field_time(struct bytes *b, const char *name, int64_t ns)
{
	put_field_u64(b, name, (uint64_t)(ns / BAG_NSEC_PER_SEC) |
	              (uint64_t)(ns % BAG_NSEC_PER_SEC) << 32);
}

static void put_field_str(struct bytes *b, const char *name, const char *s)
{
	put_field(b, name, s, strlen(s));
}

static int out_write(bag_writer_t *w, const void *p, size_t n)
{
	if (n > 0 && fwrite(p, 1, n, w->f) != n)
		return w_fail(w, BAG_EIO, "write failed: %s", strerror(errno));
	w->pos += n;
	return BAG_OK;
}

/*
 * Write a record whose header fields are in hdr and whose data is
 * data[0..len); the header length is filled in here.
 */
static int out_record(bag_writer_t *w, const struct bytes *hdr, const void *data, size_t len)
{
	uint8_t le[4];
	int rc;

	for (int i = 0; i < 4; i++)
		le[i] = (uint8_t)(hdr->len >> (8 * i));
	if ((rc = out_write(w, le, 4)) != BAG_OK || (rc = out_write(w, hdr->p, hdr->len)) != BAG_OK)
		return rc;
	for (int i = 0; i < 4; i++)
		le[i] = (uint8_t)(len >> (8 * i));
	if ((rc = out_write(w, le, 4)) != BAG_OK)
		return rc;
	return out_write(w, data, len);
}

/* Connection header fields (the data of a connection record). */
static size_t conn_header_size(const struct conn *c)
{
	return 4 * 6 + strlen("topic=") + strlen(c->topic) + strlen("type=") + strlen(c->type) +
	       strlen("md5sum=") + strlen(c->md5sum) + strlen("message_definition=") +
	       strlen(c->definition) + strlen("latching=") + 1 +
	       (c->callerid ? strlen("callerid=") + strlen(c->callerid) : 0) + 32;
}

/* Append a whole connection record (op 7) for conn id to b. */
static int put_conn_record(struct bytes *b, const struct conn *c, uint32_t id)
{
	size_t data_start, hdr_len;

	if (bytes_reserve(b, 64 + strlen(c->topic) + conn_header_size(c)) != 0)
		return -1;
	hdr_len = 4 + 4 + 4 + 9 + 4 + 6 + strlen(c->topic);
	put32(b, (uint32_t)hdr_len);
	put_field_u8(b, "op", BAG_OP_CONNECTION);
	put_field_u32(b, "conn", id);
	put_field_str(b, "topic", c->topic);
	put32(b, 0);
	data_start = b->len;
	put_field_str(b, "topic", c->topic);
	put_field_str(b, "type", c->type);
	put_field_str(b, "md5sum", c->md5sum);
	put_field_str(b, "message_definition", c->definition);
	if (c->callerid != NULL)
		put_field_str(b, "callerid", c->callerid);
	put_field_str(b, "latching", c->latching ? "1" : "0");
	uint32_t dl = (uint32_t)(b->len - data_start);
	for (int i = 0; i < 4; i++)
		b->p[data_start - 4 + i] = (uint8_t)(dl >> (8 * i));
	return 0;
}

/* Write the bag header record at the current position (or at 13 at close). */
static int out_bag_header(bag_writer_t *w, uint64_t index_pos)
{
	static const uint8_t spaces[BAG_HEADER_LEN] = { [0 ... BAG_HEADER_LEN - 1] = ' ' };
	uint8_t hbuf[128];
	struct bytes h = { hbuf, 0, sizeof hbuf };

	put_field_u8(&h, "op", BAG_OP_FILE_HEADER);
	put_field_u64(&h, "index_pos", index_pos);
	put_field_u32(&h, "conn_count", w->nconns);
	put_field_u32(&h, "chunk_count", w->nchunks);
	return out_record(w, &h, spaces, BAG_HEADER_LEN - h.len);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct index_entry *x = a, *y = b;
	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return (x->offset > y->offset) - (x->offset < y->offset);
}

/* Compress w->chunk into w->packed; returns the bytes to write. */
static int compress_chunk(bag_writer_t *w, const uint8_t **data, size_t *len)
{
	if (w->compression == BAG_COMPRESSION_NONE) {
		*data = w->chunk.p;
		*len = w->chunk.len;
		return BAG_OK;
	}
	w->packed.len = 0;
	if (w->compression == BAG_COMPRESSION_BZ2) {
		unsigned int out = (unsigned int)(w->chunk.len + w->chunk.len / 100 + 600);
		if (bytes_reserve(&w->packed, out) != 0)
			return w_fail(w, BAG_ENOMEM, "out of memory");
		if (BZ2_bzBuffToBuffCompress((char *)w->packed.p, &out, (char *)w->chunk.p,
		                             (unsigned int)w->chunk.len, 9, 0, 30) != BZ_OK)
			return w_fail(w, BAG_EIO, "bz2 compression failed");
		*data = w->packed.p;
		*len = out;
		return BAG_OK;
	}
#ifdef HAVE_LZ4
	LZ4F_preferences_t prefs;
	memset(&prefs, 0, sizeof prefs);
	prefs.frameInfo.blockSizeID = LZ4F_max1MB;
	prefs.frameInfo.blockMode = LZ4F_blockIndependent;
	prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
	size_t bound = LZ4F_compressFrameBound(w->chunk.len, &prefs);
	if (bytes_reserve(&w->packed, bound) != 0)
		return w_fail(w, BAG_ENOMEM, "out of memory");
	size_t n = LZ4F_compressFrame(w->packed.p, bound, w->chunk.p, w->chunk.len, &prefs);
	if (LZ4F_isError(n))
		return w_fail(w, BAG_EIO, "lz4 compression failed: %s", LZ4F_getErrorName(n));
	*data = w->packed.p;
	*len = n;
	return BAG_OK;
#else
	return w_fail(w, BAG_EUNSUPP, "lz4 is not supported by this build");
#endif
}

/* Write the current chunk and its index records; note its chunk info. */
static int flush_chunk(bag_writer_t *w)
{
	uint8_t hbuf[256];
	struct bytes h = { hbuf, 0, sizeof hbuf };
	const uint8_t *data = NULL;
	size_t len = 0;
	struct chunk_info *ci;
	int rc;

	if (!w->chunk_has_msgs)
		return BAG_OK;
	if (grow((void **)&w->chunks, &w->chunks_cap, w->nchunks + 1, sizeof *w->chunks) != 0 ||
	    grow((void **)&w->counts, &w->counts_cap, w->ncounts + w->nconns, sizeof *w->counts) != 0)
		return w_fail(w, BAG_ENOMEM, "out of memory");
	ci = &w->chunks[w->nchunks++];
	*ci = (struct chunk_info){ w->pos, w->chunk_start, w->chunk_end, w->ncounts, 0 };
	if ((rc = compress_chunk(w, &data, &len)) != BAG_OK)
		return rc;
	put_field_u8(&h, "op", BAG_OP_CHUNK);
	put_field_str(&h, "compression", bag_compression_name(w->compression));
	put_field_u32(&h, "size", (uint32_t)w->chunk.len);
	if ((rc = out_record(w, &h, data, len)) != BAG_OK)
		return rc;
	for (uint32_t id = 0; id < w->nconns; id++) {
		struct conn *c = &w->conns[id];
		if (c->nentries == 0)
			continue;
		qsort(c->entries, c->nentries, sizeof *c->entries, cmp_entry);
		h.len = 0;
		put_field_u8(&h, "op", BAG_OP_INDEX_DATA);
		put_field_u32(&h, "ver", 1);
		put_field_u32(&h, "conn", id);
		put_field_u32(&h, "count", c->nentries);
		w->rec.len = 0;
		if (bytes_reserve(&w->rec, (size_t)c->nentries * 12) != 0)
			return w_fail(w, BAG_ENOMEM, "out of memory");
		for (uint32_t k = 0; k < c->nentries; k++) {
			put64(&w->rec, (uint64_t)(c->entries[k].time_ns / BAG_NSEC_PER_SEC) |
			      (uint64_t)(c->entries[k].time_ns % BAG_NSEC_PER_SEC) << 32);
			put32(&w->rec, c->entries[k].offset);
		}
		if ((rc = out_record(w, &h, w->rec.p, w->rec.len)) != BAG_OK)
			return rc;
		w->counts[w->ncounts++] = (struct conn_count){ id, c->nentries };
		ci->n++;
		c->nentries = 0;
	}
	w->chunk.len = 0;
	w->chunk_has_msgs = false;
	return BAG_OK;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
	for (; s != NULL && *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ULL;
	return (h ^ 0xff) * 0x100000001b3ULL;
}

static uint64_t spec_hash(const struct bag_conn_spec *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	h = hash_str(h, s->topic);
	h = hash_str(h, s->type);
	h = hash_str(h, s->md5sum);
	h = hash_str(h, s->definition);
	h = hash_str(h, s->callerid ? s->callerid : "\x01");
	return h ^ (uint64_t)s->latching;
}

static bool spec_equal(const struct conn *c, const struct bag_conn_spec *s)
{
	return strcmp(c->topic, s->topic) == 0 && strcmp(c->type, s->type) == 0 &&
	       strcmp(c->md5sum, s->md5sum) == 0 && strcmp(c->definition, s->definition) == 0 &&
	       c->latching == s->latching &&
	       ((c->callerid == NULL && s->callerid == NULL) ||
	        (c->callerid != NULL && s->callerid != NULL && strcmp(c->callerid, s->callerid) == 0));
}

/* Rebuild the hash table at twice the size. */
static int table_grow(bag_writer_t *w)
{
	uint32_t size = w->table_size ? w->table_size * 2 : 64;
	uint32_t *t = calloc(size, sizeof *t);

	if (t == NULL)
		return -1;
	for (uint32_t id = 0; id < w->nconns; id++) {
		uint32_t i = (uint32_t)w->conns[id].hash & (size - 1);
		while (t[i] != 0)
			i = (i + 1) & (size - 1);
		t[i] = id + 1;
	}
	free(w->table);
	w->table = t;
	w->table_size = size;
	return 0;
}

/* The id of spec's connection, adding it (and its record) if new. */
static int conn_lookup(bag_writer_t *w, const struct bag_conn_spec *s, uint32_t *id)
{
	uint64_t h = spec_hash(s);
	uint32_t i;
	struct conn *c;

	if ((w->nconns + 1) * 2 > w->table_size && table_grow(w) != 0)
		return w_fail(w, BAG_ENOMEM, "out of memory");
	for (i = (uint32_t)h & (w->table_size - 1); w->table[i] != 0; i = (i + 1) & (w->table_size - 1)) {
		c = &w->conns[w->table[i] - 1];
		if (c->hash == h && spec_equal(c, s)) {
			*id = w->table[i] - 1;
			return BAG_OK;
		}
	}
	if (grow((void **)&w->conns, &w->conns_cap, w->nconns + 1, sizeof *w->conns) != 0)
		return w_fail(w, BAG_ENOMEM, "out of memory");
	c = &w->conns[w->nconns];
	memset(c, 0, sizeof *c);
	c->topic = strdup(s->topic);
	c->type = strdup(s->type);
	c->md5sum = strdup(s->md5sum);
	c->definition = strdup(s->definition);
	c->callerid = s->callerid ? strdup(s->callerid) : NULL;
	c->latching = s->latching;
	c->hash = h;
	*id = w->nconns++;
	w->table[i] = *id + 1;
	if (!c->topic || !c->type || !c->md5sum || !c->definition || (s->callerid && !c->callerid) ||
	    put_conn_record(&w->chunk, c, *id) != 0)
		return w_fail(w, BAG_ENOMEM, "out of memory");
	return BAG_OK;
}

BAG_API int bag_writer_open(bag_writer_t **out, const char *path, const struct bag_writer_opts *opts)
{
	bag_writer_t *w;
	int fd, rc;
	mode_t mask;

	*out = w = calloc(1, sizeof *w);
	if (w == NULL)
		return BAG_ENOMEM;
	w->compression = opts ? opts->compression : BAG_COMPRESSION_NONE;
	w->threshold = opts && opts->chunk_threshold ? opts->chunk_threshold : DEFAULT_THRESHOLD;
	w->path = strdup(path);
	if (w->path == NULL || asprintf(&w->tmp_path, "%s.tmp-XXXXXX", path) < 0) {
		w->tmp_path = NULL;
		return w_fail(w, BAG_ENOMEM, "out of memory");
	}
	if ((unsigned)w->compression > BAG_COMPRESSION_LZ4)
		return w_fail(w, BAG_EINVAL, "unknown compression %d", (int)w->compression);
#ifndef HAVE_LZ4
	if (w->compression == BAG_COMPRESSION_LZ4)
		return w_fail(w, BAG_EUNSUPP, "lz4 is not supported by this build");
#endif
	fd = mkstemp(w->tmp_path);
	if (fd < 0) {
		rc = w_fail(w, BAG_EIO, "cannot create %s: %s", w->tmp_path, strerror(errno));
		free(w->tmp_path);
		w->tmp_path = NULL;
		return rc;
	}
	mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	w->f = fdopen(fd, "wb");
	if (w->f == NULL) {
		close(fd);
		return w_fail(w, BAG_EIO, "%s", strerror(errno));
	}
	setvbuf(w->f, NULL, _IOFBF, 1 << 20);
	if ((rc = out_write(w, VERSION_LINE, strlen(VERSION_LINE))) != BAG_OK)
		return rc;
	return out_bag_header(w, 0);
}

BAG_API int bag_writer_write(bag_writer_t *w, const struct bag_conn_spec *spec,
                             int64_t time_ns, const void *data, size_t len)
{
	uint8_t hbuf[64];
	struct bytes h = { hbuf, 0, sizeof hbuf };
	struct conn *c;
	uint32_t id = 0;
	int rc;

	if (w->failed || w->closed)
		return w_fail(w, BAG_EINVAL, "writer is closed or failed");
	if (spec == NULL || spec->topic == NULL || spec->type == NULL || spec->md5sum == NULL ||
	    spec->definition == NULL)
		return w_fail(w, BAG_EINVAL, "a connection needs topic, type, md5sum and definition");
	if (time_ns < 0 || time_ns / BAG_NSEC_PER_SEC > UINT32_MAX)
		return w_fail(w, BAG_EINVAL, "time %lld ns is outside what a bag can store", (long long)time_ns);
	if (len > UINT32_MAX - 1024)
		return w_fail(w, BAG_EINVAL, "a %zu-byte message does not fit in a chunk", len);
	if ((rc = conn_lookup(w, spec, &id)) != BAG_OK)
		return rc;
	c = &w->conns[id];
	if (grow((void **)&c->entries, &c->cap, c->nentries + 1, sizeof *c->entries) != 0 ||
	    bytes_reserve(&w->chunk, 64 + len) != 0)
		return w_fail(w, BAG_ENOMEM, "out of memory");
	if (w->chunk.len > UINT32_MAX - 64 - len)
		return w_fail(w, BAG_EINVAL, "chunk would exceed 4 GiB");
	c->entries[c->nentries++] = (struct index_entry){ time_ns, (uint32_t)w->chunk.len };
	put_field_u8(&h, "op", BAG_OP_MSG_DATA);
	put_field_u32(&h, "conn", id);
	put_field_time(&h, "time", time_ns);
	put32(&w->chunk, (uint32_t)h.len);
	put(&w->chunk, h.p, h.len);
	put32(&w->chunk, (uint32_t)len);
	put(&w->chunk, data, len);
	if (!w->chunk_has_msgs) {
		w->chunk_start = w->chunk_end = time_ns;
		w->chunk_has_msgs = true;
	} else {
		if (time_ns < w->chunk_start)
			w->chunk_start = time_ns;
		if (time_ns > w->chunk_end)
			w->chunk_end = time_ns;
	}
	if (w->chunk.len >= w->threshold)
		return flush_chunk(w);
	return BAG_OK;
}

BAG_API int bag_writer_close(bag_writer_t *w)
{
	uint64_t index_pos;
	int rc;

	if (w->failed || w->closed || w->f == NULL)
		return w_fail(w, BAG_EINVAL, "writer is closed or failed");
	if ((rc = flush_chunk(w)) != BAG_OK)
		return rc;
	index_pos = w->pos;
	for (uint32_t id = 0; id < w->nconns; id++) {
		w->rec.len = 0;
		if (put_conn_record(&w->rec, &w->conns[id], id) != 0)
			return w_fail(w, BAG_ENOMEM, "out of memory");
		if ((rc = out_write(w, w->rec.p, w->rec.len)) != BAG_OK)
			return rc;
	}
	for (uint32_t i = 0; i < w->nchunks; i++) {
		const struct chunk_info *ci = &w->chunks[i];
		uint8_t hbuf[160];
		struct bytes h = { hbuf, 0, sizeof hbuf };
		put_field_u8(&h, "op", BAG_OP_CHUNK_INFO);
		put_field_u32(&h, "ver", 1);
		put_field_u64(&h, "chunk_pos", ci->pos);
		put_field_time(&h, "start_time", ci->start_ns);
		put_field_time(&h, "end_time", ci->end_ns);
		put_field_u32(&h, "count", ci->n);
		w->rec.len = 0;
		if (bytes_reserve(&w->rec, (size_t)ci->n * 8) != 0)
			return w_fail(w, BAG_ENOMEM, "out of memory");
		for (uint32_t k = 0; k < ci->n; k++) {
			put32(&w->rec, w->counts[ci->first + k].conn);
			put32(&w->rec, w->counts[ci->first + k].count);
		}
		if ((rc = out_record(w, &h, w->rec.p, w->rec.len)) != BAG_OK)
			return rc;
	}
	if (fseeko(w->f, (off_t)strlen(VERSION_LINE), SEEK_SET) != 0)
		return w_fail(w, BAG_EIO, "seek failed: %s", strerror(errno));
	if ((rc = out_bag_header(w, index_pos)) != BAG_OK)
		return rc;
	if (fflush(w->f) != 0 || fsync(fileno(w->f)) != 0)
		return w_fail(w, BAG_EIO, "write failed: %s", strerror(errno));
	rc = fclose(w->f);
	w->f = NULL;
	if (rc != 0)
		return w_fail(w, BAG_EIO, "close failed: %s", strerror(errno));
	if (rename(w->tmp_path, w->path) != 0)
		return w_fail(w, BAG_EIO, "cannot rename %s into place: %s", w->tmp_path, strerror(errno));
	w->closed = true;
	return BAG_OK;
}

BAG_API void bag_writer_free(bag_writer_t *w)
{
	if (w == NULL)
		return;
	if (w->f != NULL)
		fclose(w->f);
	if (!w->closed && w->tmp_path != NULL)
		unlink(w->tmp_path);
	for (uint32_t i = 0; i < w->nconns; i++) {
		struct conn *c = &w->conns[i];
		free(c->topic);
		free(c->type);
		free(c->md5sum);
		free(c->definition);
		free(c->callerid);
		free(c->entries);
	}
	free(w->conns);
	free(w->table);
	free(w->chunk.p);
	free(w->packed.p);
	free(w->rec.p);
	free(w->chunks);
	free(w->counts);
	free(w->tmp_path);
	free(w->path);
	free(w);
}

BAG_API const char *bag_writer_errmsg(const bag_writer_t *w)
{
	return w ? w->errmsg : "out of memory";
}
