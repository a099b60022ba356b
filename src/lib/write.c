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
 * Header fields are written in name order, as rosbag's std::map keeps them.
 * A connection's record also goes into the chunk holding its first message.
 *
 * The open chunk is built uncompressed in memory (chunk) and is compressed and
 * written once its length exceeds the threshold, as rosbag does. Each
 * connection holds the index entries of its messages in the open chunk; like
 * rosbag's multiset they end up in time order, equal times in write order.
 * They are appended as written and sorted once at flush when some entry came
 * earlier than the one before (unsorted).
 *
 * Connections are found through an open-addressing table (slots hold id + 1,
 * 0 is empty, at most half full) keyed by a hash of topic, md5sum, callerid
 * and latching; a hit is confirmed by comparing every field.
 *
 * Failures: bad arguments (BAG_EINVAL) leave the writer unchanged; any other
 * failure is sticky: failed holds its code, later calls return it and the
 * message stays the one that described it.
 */
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

#include <bzlib.h>
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifdef HAVE_LZ4
#include <lz4frame.h>
#endif

#include <bagscope/record.h>
#include <bagscope/write.h>
#include "lib/util-int.h"

#define DEFAULT_THRESHOLD (768u * 1024u)
#define BAG_HEADER_LEN 4096
#define VERSION_LINE "#ROSBAG V2.0\n"
#define MSG_HEADER_LEN 38       /* conn, op and time fields */
#define MSG_OVERHEAD (4 + MSG_HEADER_LEN + 4)

/* A growable byte buffer. */
struct bytes {
	uint8_t *p;
	size_t len;                 /* bytes in use */
	size_t cap;                 /* bytes allocated */
};

/* Where one message of the open chunk is. */
struct index_entry {
	int64_t time_ns;
	uint32_t offset;            /* of its record in the uncompressed chunk */
};

/* One connection, with its share of the open chunk's index. */
struct conn {
	char *topic, *type, *md5sum, *definition;
	char *callerid;             /* NULL: the connection header has none */
	bool latching;
	uint32_t hash;              /* spec_hash() of the above */
	struct index_entry *entries;    /* messages in the open chunk */
	size_t nentries, cap;
	bool unsorted;              /* some entry is earlier than its predecessor */
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
	uint32_t conn;
	uint32_t count;
};

struct bag_writer {
	char *path;                 /* the target name */
	char *tmp_path;             /* the file being written; NULL until created */
	FILE *f;
	uint64_t pos;               /* bytes written so far (the file offset) */
	enum bag_compression compression;
	uint32_t threshold;         /* close a chunk above this many bytes */
	struct conn *conns;         /* by id */
	size_t nconns, conns_cap;
	uint32_t *table;            /* hash slots: conn id + 1, 0 = empty */
	size_t table_size;          /* power of two, >= 2 * nconns */
	struct bytes chunk;         /* the open chunk, uncompressed */
	struct bytes packed;        /* compressor output, reused */
	struct bytes rec;           /* a record being assembled, reused */
	int64_t chunk_start, chunk_end; /* time range of the open chunk */
	bool chunk_has_msgs;        /* the open chunk has a message */
	struct chunk_info *chunks;  /* in file order */
	size_t nchunks, chunks_cap;
	struct conn_count *counts;  /* chunk_info.first indexes this */
	size_t ncounts, counts_cap;
	int failed;                 /* 0, or the code of a sticky failure */
	bool closed;                /* bag_writer_close() succeeded */
	char errmsg[512];
};

static int w_error(bag_writer_t *w, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Record "PATH: message" as the last error; returns code. */
static int w_error(bag_writer_t *w, int code, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(w->errmsg, sizeof w->errmsg, "%s: ", w->path ? w->path : "bag");

	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof w->errmsg)
		vsnprintf(w->errmsg + n, sizeof w->errmsg - (size_t)n, fmt, ap);
	va_end(ap);
	return code;
}

/* Make room for more bytes after b->len; 0 or BAG_ENOMEM. */
static int bytes_reserve(struct bytes *b, size_t more)
{
	if (more > SIZE_MAX - b->len)
		return BAG_ENOMEM;
	return bag_grow((void **)&b->p, &b->cap, b->len + more, 1);
}

/* The put functions append to room reserved beforehand. */
static void put(struct bytes *b, const void *p, size_t n)
{
	if (n == 0)
		return;   /* an empty message may come with data NULL */
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void le32(uint8_t *out, uint32_t v)
{
	out[0] = (uint8_t)v;
	out[1] = (uint8_t)(v >> 8);
	out[2] = (uint8_t)(v >> 16);
	out[3] = (uint8_t)(v >> 24);
}

static void put32(struct bytes *b, uint32_t v)
{
	le32(b->p + b->len, v);
	b->len += 4;
}

static void put64(struct bytes *b, uint64_t v)
{
	put32(b, (uint32_t)v);
	put32(b, (uint32_t)(v >> 32));
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

static void put_field(struct bytes *b, const char *name, const void *value, size_t len)
{
	size_t n = strlen(name);

	put32(b, (uint32_t)(n + 1 + len));
	put(b, name, n);
	put(b, "=", 1);
	put(b, value, len);
}

static void put_field_u8(struct bytes *b, const char *name, uint8_t v)
{
	put_field(b, name, &v, 1);
}

static void put_field_u32(struct bytes *b, const char *name, uint32_t v)
{
	uint8_t le[4];

	le32(le, v);
	put_field(b, name, le, 4);
}

static void put_field_u64(struct bytes *b, const char *name, uint64_t v)
{
	uint8_t le[8];

	le32(le, (uint32_t)v);
	le32(le + 4, (uint32_t)(v >> 32));
	put_field(b, name, le, 8);
}

static void put_field_str(struct bytes *b, const char *name, const char *s)
{
	put_field(b, name, s, strlen(s));
}

/* Append n bytes to the file. */
static int out_write(bag_writer_t *w, const void *p, size_t n)
{
	int rc = BAG_OK;

	if (n > 0 && fwrite(p, 1, n, w->f) != n) {
		rc = w_error(w, BAG_EIO, "cannot write %s: %s", w->tmp_path, strerror(errno));
		goto fail;
	}
	w->pos += n;
fail:
	return rc;
}

/* Append a record: the header fields in hdr, then data[0..len). */
static int out_record(bag_writer_t *w, const struct bytes *hdr, const void *data, size_t len)
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

/* Header and data lengths of c's connection record. */
static void conn_record_sizes(const struct conn *c, size_t *hdr, size_t *data)
{
	*hdr = field_size("conn", 4) + field_size("op", 1) + field_size("topic", strlen(c->topic));
	*data = (c->callerid ? field_size("callerid", strlen(c->callerid)) : 0) +
	        field_size("latching", 1) + field_size("md5sum", strlen(c->md5sum)) +
	        field_size("message_definition", strlen(c->definition)) +
	        field_size("topic", strlen(c->topic)) + field_size("type", strlen(c->type));
}

/* Append c's whole connection record (op 7) to b; 0 or -1 (no memory). */
static int put_conn_record(struct bytes *b, const struct conn *c, uint32_t id)
{
	size_t hdr, data;

	conn_record_sizes(c, &hdr, &data);
	if (bytes_reserve(b, 8 + hdr + data) != 0)
		return -1;
	put32(b, (uint32_t)hdr);
	put_field_u32(b, "conn", id);
	put_field_u8(b, "op", BAG_OP_CONNECTION);
	put_field_str(b, "topic", c->topic);
	put32(b, (uint32_t)data);
	if (c->callerid != NULL)
		put_field_str(b, "callerid", c->callerid);
	put_field_str(b, "latching", c->latching ? "1" : "0");
	put_field_str(b, "md5sum", c->md5sum);
	put_field_str(b, "message_definition", c->definition);
	put_field_str(b, "topic", c->topic);
	put_field_str(b, "type", c->type);
	return 0;
}

/* Write the bag header record at the file position (13 at close). */
static int out_bag_header(bag_writer_t *w, uint64_t index_pos)
{
	static const uint8_t spaces[BAG_HEADER_LEN] = { [0 ... BAG_HEADER_LEN - 1] = ' ' };
	uint8_t hbuf[128];
	struct bytes h = { hbuf, 0, sizeof hbuf };

	put_field_u32(&h, "chunk_count", (uint32_t)w->nchunks);
	put_field_u32(&h, "conn_count", (uint32_t)w->nconns);
	put_field_u64(&h, "index_pos", index_pos);
	put_field_u8(&h, "op", BAG_OP_FILE_HEADER);
	return out_record(w, &h, spaces, BAG_HEADER_LEN - h.len);
}

/* Time order; equal times keep write order (offsets grow with it). */
static int cmp_entry(const void *a, const void *b)
{
	const struct index_entry *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return (x->offset > y->offset) - (x->offset < y->offset);
}

/* Compress the open chunk; data and len get what the chunk record holds. */
static int compress_chunk(bag_writer_t *w, const uint8_t **data, size_t *len)
{
	int rc = BAG_OK;

	*data = w->chunk.p;
	*len = w->chunk.len;
	w->packed.len = 0;
	if (w->compression == BAG_COMPRESSION_BZ2) {
		size_t bound = w->chunk.len + w->chunk.len / 100 + 600;
		unsigned int out = bound > UINT32_MAX ? UINT32_MAX : (unsigned int)bound;
		int bz;

		if (bytes_reserve(&w->packed, out) != 0) {
			rc = w_error(w, BAG_ENOMEM, "out of memory for a %zu-byte chunk", w->chunk.len);
			goto fail;
		}
		bz = BZ2_bzBuffToBuffCompress((char *)w->packed.p, &out, (char *)w->chunk.p,
		                              (unsigned int)w->chunk.len, 9, 0, 30);
		if (bz != BZ_OK) {
			rc = w_error(w, bz == BZ_MEM_ERROR ? BAG_ENOMEM : BAG_ECOMPRESS,
			             "bz2 compression of chunk %zu failed (%d)", w->nchunks, bz);
			goto fail;
		}
		*data = w->packed.p;
		*len = out;
	}
#ifdef HAVE_LZ4
	else if (w->compression == BAG_COMPRESSION_LZ4) {
		LZ4F_preferences_t prefs;
		size_t bound, n;

		memset(&prefs, 0, sizeof prefs);
		prefs.frameInfo.blockSizeID = LZ4F_max1MB;
		prefs.frameInfo.blockMode = LZ4F_blockIndependent;
		prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
		bound = LZ4F_compressFrameBound(w->chunk.len, &prefs);
		if (bytes_reserve(&w->packed, bound) != 0) {
			rc = w_error(w, BAG_ENOMEM, "out of memory for a %zu-byte chunk", w->chunk.len);
			goto fail;
		}
		n = LZ4F_compressFrame(w->packed.p, bound, w->chunk.p, w->chunk.len, &prefs);
		if (LZ4F_isError(n)) {
			rc = w_error(w, BAG_ECOMPRESS, "lz4 compression of chunk %zu failed: %s",
			             w->nchunks, LZ4F_getErrorName(n));
			goto fail;
		}
		*data = w->packed.p;
		*len = n;
	}
#endif
	if (*len > UINT32_MAX)
		rc = w_error(w, BAG_EINVAL, "chunk %zu compresses to more than 4 GiB", w->nchunks);
fail:
	return rc;
}

/* Write conn id's index data record for the open chunk; count it. */
static int out_index_data(bag_writer_t *w, uint32_t id)
{
	struct conn *c = &w->conns[id];
	uint8_t hbuf[64];
	struct bytes h = { hbuf, 0, sizeof hbuf };
	int rc;

	if (c->unsorted)
		qsort(c->entries, c->nentries, sizeof *c->entries, cmp_entry);
	put_field_u32(&h, "conn", id);
	put_field_u32(&h, "count", (uint32_t)c->nentries);
	put_field_u8(&h, "op", BAG_OP_INDEX_DATA);
	put_field_u32(&h, "ver", 1);
	w->rec.len = 0;
	if (bytes_reserve(&w->rec, c->nentries * 12) != 0) {
		rc = w_error(w, BAG_ENOMEM, "out of memory for an index of %zu entries", c->nentries);
		goto fail;
	}
	for (size_t k = 0; k < c->nentries; k++) {
		put64(&w->rec, ros_time(c->entries[k].time_ns));
		put32(&w->rec, c->entries[k].offset);
	}
	if ((rc = out_record(w, &h, w->rec.p, w->rec.len)) != BAG_OK)
		goto fail;
	w->counts[w->ncounts++] = (struct conn_count){ id, (uint32_t)c->nentries };
	w->chunks[w->nchunks - 1].n++;
	c->nentries = 0;
	c->unsorted = false;
fail:
	return rc;
}

/* Write the open chunk and its index data records; note its chunk info. */
static int flush_chunk(bag_writer_t *w)
{
	uint8_t hbuf[64];
	struct bytes h = { hbuf, 0, sizeof hbuf };
	const uint8_t *data;
	size_t len;
	int rc = BAG_OK;

	if (!w->chunk_has_msgs)
		goto fail;
	if (bag_grow((void **)&w->chunks, &w->chunks_cap, w->nchunks + 1, sizeof *w->chunks) != 0 ||
	    bag_grow((void **)&w->counts, &w->counts_cap, w->ncounts + w->nconns, sizeof *w->counts) != 0) {
		rc = w_error(w, BAG_ENOMEM, "out of memory for chunk %zu", w->nchunks);
		goto fail;
	}
	if ((rc = compress_chunk(w, &data, &len)) != BAG_OK)
		goto fail;
	w->chunks[w->nchunks++] = (struct chunk_info){ w->pos, w->chunk_start, w->chunk_end, w->ncounts, 0 };
	put_field_str(&h, "compression", bag_compression_name(w->compression));
	put_field_u8(&h, "op", BAG_OP_CHUNK);
	put_field_u32(&h, "size", (uint32_t)w->chunk.len);
	if ((rc = out_record(w, &h, data, len)) != BAG_OK)
		goto fail;
	for (size_t id = 0; id < w->nconns; id++)
		if (w->conns[id].nentries > 0 && (rc = out_index_data(w, (uint32_t)id)) != BAG_OK)
			goto fail;
	w->chunk.len = 0;
	w->chunk_has_msgs = false;
fail:
	return rc;
}

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

/* Rebuild the hash table at twice the size; 0 or -1. */
static int table_grow(bag_writer_t *w)
{
	size_t size = w->table_size ? w->table_size * 2 : 64;
	uint32_t *t = calloc(size, sizeof *t);

	if (t == NULL)
		return -1;
	for (size_t id = 0; id < w->nconns; id++) {
		size_t i = w->conns[id].hash & (size - 1);
		while (t[i] != 0)
			i = (i + 1) & (size - 1);
		t[i] = (uint32_t)id + 1;
	}
	free(w->table);
	w->table = t;
	w->table_size = size;
	return 0;
}

static void conn_free(struct conn *c)
{
	free(c->topic);
	free(c->type);
	free(c->md5sum);
	free(c->definition);
	free(c->callerid);
	free(c->entries);
}

/*
 * Add s as connection nconns at the empty table slot given, and put its
 * record into the open chunk. On failure nothing has changed.
 */
static int conn_add(bag_writer_t *w, const struct bag_conn_spec *s, uint32_t h, size_t slot)
{
	struct conn c = { 0 };
	int rc = BAG_OK;

	c.topic = strdup(s->topic);
	c.type = strdup(s->type);
	c.md5sum = strdup(s->md5sum);
	c.definition = strdup(s->definition);
	c.callerid = s->callerid ? strdup(s->callerid) : NULL;
	c.latching = s->latching;
	c.hash = h;
	if (!c.topic || !c.type || !c.md5sum || !c.definition || (s->callerid && !c.callerid) ||
	    bag_grow((void **)&w->conns, &w->conns_cap, w->nconns + 1, sizeof *w->conns) != 0 ||
	    put_conn_record(&w->chunk, &c, (uint32_t)w->nconns) != 0) {
		conn_free(&c);
		rc = w_error(w, BAG_ENOMEM, "out of memory for connection %zu (%s)", w->nconns, s->topic);
		goto fail;
	}
	w->conns[w->nconns] = c;
	w->table[slot] = (uint32_t)++w->nconns;
fail:
	return rc;
}

/*
 * Create the temporary file beside path, named path.tmp-XXXXXX, with the
 * mode a new file gets (0666 less the umask).
 */
static int create_temp(bag_writer_t *w)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	size_t n = strlen(w->path);
	struct timespec ts;
	uint64_t x;
	int fd = -1, rc = BAG_OK;

	w->tmp_path = malloc(n + sizeof ".tmp-XXXXXX");
	if (w->tmp_path == NULL) {
		rc = w_error(w, BAG_ENOMEM, "out of memory");
		goto fail;
	}
	memcpy(w->tmp_path, w->path, n);
	memcpy(w->tmp_path + n, ".tmp-", 5);
	clock_gettime(CLOCK_REALTIME, &ts);
	x = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30 ^ (uint64_t)getpid() << 40 ^ (uintptr_t)w;
	for (int attempt = 0; fd < 0 && attempt < 100; attempt++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		for (int i = 0; i < 6; i++)
			w->tmp_path[n + 5 + i] = alphabet[(x >> (20 + 6 * i)) % (sizeof alphabet - 1)];
		w->tmp_path[n + 11] = '\0';
		fd = open(w->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		rc = w_error(w, BAG_EIO, "cannot create %s: %s", w->tmp_path, strerror(errno));
		free(w->tmp_path);
		w->tmp_path = NULL;
		goto fail;
	}
	w->f = fdopen(fd, "wb");
	if (w->f == NULL) {
		rc = w_error(w, BAG_EIO, "cannot open %s: %s", w->tmp_path, strerror(errno));
		close(fd);
		goto fail;
	}
	setvbuf(w->f, NULL, _IOFBF, 1 << 20);
fail:
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
	if (path == NULL || *path == '\0') {
		rc = w_error(w, BAG_EINVAL, "no path given");
		goto fail;
	}
	w->path = strdup(path);
	if (w->path == NULL) {
		rc = w_error(w, BAG_ENOMEM, "out of memory");
		goto fail;
	}
	if (bag_opts_read(&o, sizeof o, opts) != BAG_OK) {
		rc = w_error(w, BAG_EINVAL, "bag_writer_opts.size is %zu: set it to sizeof(struct "
		             "bag_writer_opts) (%zu), and leave unknown fields zero", opts->size, sizeof o);
		goto fail;
	}
	w->compression = o.compression;
	w->threshold = o.chunk_threshold ? o.chunk_threshold : DEFAULT_THRESHOLD;
	if ((unsigned)w->compression > BAG_COMPRESSION_LZ4) {
		rc = w_error(w, BAG_EINVAL, "unknown compression %d", (int)w->compression);
		goto fail;
	}
#ifndef HAVE_LZ4
	if (w->compression == BAG_COMPRESSION_LZ4) {
		rc = w_error(w, BAG_EUNSUPP, "lz4 is not supported by this build");
		goto fail;
	}
#endif
	if ((rc = create_temp(w)) != BAG_OK ||
	    (rc = out_write(w, VERSION_LINE, strlen(VERSION_LINE))) != BAG_OK ||
	    (rc = out_bag_header(w, 0)) != BAG_OK)
		goto fail;
fail:
	if (rc != BAG_OK && w != NULL)
		w->failed = rc;
	return rc;
}

/* Append one message record to the open chunk (room reserved). */
static void put_message(bag_writer_t *w, uint32_t id, int64_t time_ns, const void *data, size_t len)
{
	struct bytes *b = &w->chunk;

	put32(b, MSG_HEADER_LEN);
	put32(b, 9);
	put(b, "conn=", 5);
	put32(b, id);
	put32(b, 4);
	put(b, "op=\x02", 4);
	put32(b, 13);
	put(b, "time=", 5);
	put64(b, ros_time(time_ns));
	put32(b, (uint32_t)len);
	put(b, data, len);
}

BAG_API int bag_writer_write(bag_writer_t *w, const struct bag_conn_spec *spec,
                             int64_t time_ns, const void *data, size_t len)
{
	struct conn *c;
	uint32_t h;
	size_t slot, need, hdr, rec;
	int rc = BAG_OK;

	assert(w != NULL);
	if (w->failed || w->closed) {
		rc = w->failed ? w->failed : w_error(w, BAG_EINVAL, "writer is closed");
		goto out;
	}
	if (spec == NULL || spec->topic == NULL || spec->type == NULL || spec->md5sum == NULL ||
	    spec->definition == NULL || (data == NULL && len > 0)) {
		rc = w_error(w, BAG_EINVAL, "a message needs data and a connection with topic, type, md5sum and definition");
		goto out;
	}
	if (time_ns < 0 || time_ns / BAG_NSEC_PER_SEC > UINT32_MAX) {
		rc = w_error(w, BAG_EINVAL, "time %lld ns is outside what a bag can store", (long long)time_ns);
		goto out;
	}
	if (len > UINT32_MAX - MSG_OVERHEAD) {
		rc = w_error(w, BAG_EINVAL, "a %zu-byte message does not fit in a chunk", len);
		goto out;
	}
	if ((w->nconns + 1) * 2 > w->table_size && table_grow(w) != 0) {
		rc = w_error(w, BAG_ENOMEM, "out of memory for the connection table");
		goto fail;
	}
	h = spec_hash(spec);
	slot = table_slot(w, spec, h);
	need = MSG_OVERHEAD + len;
	if (w->table[slot] == 0) {
		struct conn probe = { .topic = (char *)spec->topic, .type = (char *)spec->type,
		                      .md5sum = (char *)spec->md5sum, .definition = (char *)spec->definition,
		                      .callerid = (char *)spec->callerid };
		conn_record_sizes(&probe, &hdr, &rec);
		if (hdr + rec > UINT32_MAX - 8 - need) {
			rc = w_error(w, BAG_EINVAL, "connection %s is too large for a chunk", spec->topic);
			goto out;
		}
		need += 8 + hdr + rec;
	}
	if (w->chunk.len > UINT32_MAX - need && (rc = flush_chunk(w)) != BAG_OK)
		goto fail;
	if (w->table[slot] == 0 && (rc = conn_add(w, spec, h, slot)) != BAG_OK)
		goto fail;
	c = &w->conns[w->table[slot] - 1];
	if (bag_grow((void **)&c->entries, &c->cap, c->nentries + 1, sizeof *c->entries) != 0 ||
	    bytes_reserve(&w->chunk, MSG_OVERHEAD + len) != 0) {
		rc = w_error(w, BAG_ENOMEM, "out of memory for a %zu-byte message", len);
		goto fail;
	}
	if (c->nentries > 0 && time_ns < c->entries[c->nentries - 1].time_ns)
		c->unsorted = true;
	c->entries[c->nentries++] = (struct index_entry){ time_ns, (uint32_t)w->chunk.len };
	put_message(w, w->table[slot] - 1, time_ns, data, len);
	if (!w->chunk_has_msgs) {
		w->chunk_start = w->chunk_end = time_ns;
		w->chunk_has_msgs = true;
	} else if (time_ns < w->chunk_start) {
		w->chunk_start = time_ns;
	} else if (time_ns > w->chunk_end) {
		w->chunk_end = time_ns;
	}
	if (w->chunk.len > w->threshold)
		rc = flush_chunk(w);
fail:
	if (rc != BAG_OK)
		w->failed = rc;
out:
	return rc;
}

/* Write the index section: connection records, then chunk infos. */
static int out_index_section(bag_writer_t *w)
{
	int rc = BAG_OK;

	for (size_t id = 0; id < w->nconns; id++) {
		w->rec.len = 0;
		if (put_conn_record(&w->rec, &w->conns[id], (uint32_t)id) != 0) {
			rc = w_error(w, BAG_ENOMEM, "out of memory");
			goto fail;
		}
		if ((rc = out_write(w, w->rec.p, w->rec.len)) != BAG_OK)
			goto fail;
	}
	for (size_t i = 0; i < w->nchunks; i++) {
		const struct chunk_info *ci = &w->chunks[i];
		uint8_t hbuf[160];
		struct bytes h = { hbuf, 0, sizeof hbuf };

		put_field_u64(&h, "chunk_pos", ci->pos);
		put_field_u32(&h, "count", ci->n);
		put_field_u64(&h, "end_time", ros_time(ci->end_ns));
		put_field_u8(&h, "op", BAG_OP_CHUNK_INFO);
		put_field_u64(&h, "start_time", ros_time(ci->start_ns));
		put_field_u32(&h, "ver", 1);
		w->rec.len = 0;
		if (bytes_reserve(&w->rec, (size_t)ci->n * 8) != 0) {
			rc = w_error(w, BAG_ENOMEM, "out of memory");
			goto fail;
		}
		for (uint32_t k = 0; k < ci->n; k++) {
			put32(&w->rec, w->counts[ci->first + k].conn);
			put32(&w->rec, w->counts[ci->first + k].count);
		}
		if ((rc = out_record(w, &h, w->rec.p, w->rec.len)) != BAG_OK)
			goto fail;
	}
fail:
	return rc;
}

BAG_API int bag_writer_close(bag_writer_t *w)
{
	uint64_t index_pos;
	int rc = BAG_OK;

	assert(w != NULL);
	if (w->failed || w->closed) {
		rc = w->failed ? w->failed : w_error(w, BAG_EINVAL, "writer is already closed");
		goto out;
	}
	if ((rc = flush_chunk(w)) != BAG_OK)
		goto fail;
	index_pos = w->pos;
	if ((rc = out_index_section(w)) != BAG_OK)
		goto fail;
	if (fseeko(w->f, (off_t)strlen(VERSION_LINE), SEEK_SET) != 0) {
		rc = w_error(w, BAG_EIO, "cannot seek in %s: %s", w->tmp_path, strerror(errno));
		goto fail;
	}
	if ((rc = out_bag_header(w, index_pos)) != BAG_OK)
		goto fail;
	if (fflush(w->f) != 0 || fsync(fileno(w->f)) != 0) {
		rc = w_error(w, BAG_EIO, "cannot write %s: %s", w->tmp_path, strerror(errno));
		goto fail;
	}
	rc = fclose(w->f);
	w->f = NULL;
	if (rc != 0) {
		rc = w_error(w, BAG_EIO, "cannot write %s: %s", w->tmp_path, strerror(errno));
		goto fail;
	}
	if (rename(w->tmp_path, w->path) != 0) {
		rc = w_error(w, BAG_EIO, "cannot rename %s into place: %s", w->tmp_path, strerror(errno));
		goto fail;
	}
	w->closed = true;
fail:
	if (rc != BAG_OK)
		w->failed = rc;
out:
	return rc;
}

BAG_API void bag_writer_free(bag_writer_t *w)
{
	if (w == NULL)
		return;
	if (w->f != NULL)
		fclose(w->f);
	if (!w->closed && w->tmp_path != NULL)
		unlink(w->tmp_path);
	for (size_t i = 0; i < w->nconns; i++)
		conn_free(&w->conns[i]);
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
