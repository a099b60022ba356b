/*
 * test-write.c - the writer, checked two ways.
 *
 * First byte by byte, with a small reader local to this file (struct parsed,
 * parse_bag()) that walks the whole file and asserts the layout rosbag
 * writes: the version line, the 4096-byte bag header, chunks with their
 * connection and message records, index data records in time order after
 * each chunk, connection and chunk info records at index_pos, header fields
 * in name order, and every count and offset consistent. Then through the
 * library's own reader (bag_open, timeline, view) for round trips.
 *
 * Covers all three compressions, threshold splitting, out-of-order and equal
 * times, connection identity, empty bags, and failures that must leave no
 * file at the target and keep their first error.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <bzlib.h>
#ifdef HAVE_LZ4
#include <lz4frame.h>
#endif

#include <bagscope/bagscope.h>

#define MAX_CONNS 8
#define MAX_CHUNKS 4096

/* A message record found inside a chunk. */
struct pmsg {
	uint32_t conn;
	int64_t time_ns;
	const uint8_t *data;
	uint32_t len;
	uint32_t offset;          /* of its record in the uncompressed chunk */
	size_t chunk;
};

/* A connection record from the index section. */
struct pconn {
	char topic[64], type[64], md5sum[40], callerid[64], latching[4];
	char definition[256];
	bool has_callerid;
	size_t first_chunk;       /* the chunk whose data holds its record */
	int records_in_chunks;
};

struct pchunk {
	uint64_t pos;
	char compression[8];
	uint8_t *plain;           /* decompressed */
	uint32_t size;
	size_t first_msg, nmsgs;  /* into parsed.msgs */
	bool reordered;           /* some index entry's offset is below its predecessor's */
};

/* Everything parse_bag() found. */
struct parsed {
	uint8_t *file;
	size_t flen;
	uint64_t index_pos;
	uint32_t conn_count, chunk_count;
	struct pmsg *msgs;        /* in file order */
	size_t nmsgs, cap;
	struct pconn conns[MAX_CONNS];
	struct pchunk *chunks;
	size_t nchunks;
};

/* One record: header and data. */
struct prec {
	const uint8_t *hdr, *data;
	uint32_t hlen, dlen;
};

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int64_t rdtime(const uint8_t *p)
{
	return bag_time_from_ros(rd32(p), rd32(p + 4));
}

/* A time field's value (secs, then nsecs) as nanoseconds. */
static int64_t ros_ns(uint64_t v)
{
	return bag_time_from_ros((uint32_t)v, (uint32_t)(v >> 32));
}

/* The record at *pos within buf[0..len); advances *pos. */
static void next_record(const uint8_t *buf, size_t len, size_t *pos, struct prec *r)
{
	assert_true(*pos + 4 <= len);
	r->hlen = rd32(buf + *pos);
	assert_true(*pos + 8 + r->hlen <= len);
	r->hdr = buf + *pos + 4;
	r->dlen = rd32(r->hdr + r->hlen);
	assert_true(*pos + 8 + r->hlen + r->dlen <= len);
	r->data = r->hdr + r->hlen + 4;
	*pos += 8 + (size_t)r->hlen + r->dlen;
}

/*
 * Field name's value in fields[0..len) (a record header or a connection
 * header), asserting fields are well formed and in strictly increasing name
 * order as rosbag's std::map writes them. NULL if absent.
 */
static const uint8_t *field(const uint8_t *f, uint32_t len, const char *name, uint32_t *vlen)
{
	const uint8_t *found = NULL;
	char prev[64] = "";
	size_t at = 0;

	while (at < len) {
		assert_true(at + 4 <= len);
		uint32_t n = rd32(f + at);
		const uint8_t *eq;
		assert_true(at + 4 + n <= len);
		eq = memchr(f + at + 4, '=', n);
		assert_non_null(eq);
		size_t nlen = (size_t)(eq - (f + at + 4));
		char cur[64];
		assert_true(nlen < sizeof cur);
		memcpy(cur, f + at + 4, nlen);
		cur[nlen] = '\0';
		assert_true(strcmp(prev, cur) < 0);
		strcpy(prev, cur);
		if (strcmp(cur, name) == 0) {
			found = eq + 1;
			*vlen = n - (uint32_t)nlen - 1;
		}
		at += 4 + n;
	}
	return found;
}

static uint32_t field_u32(const struct prec *r, const char *name)
{
	uint32_t n = 0;
	const uint8_t *v = field(r->hdr, r->hlen, name, &n);
	if (v == NULL)
		fail_msg("no field %s", name);
	assert_int_equal(n, 4);
	return rd32(v);
}

static uint64_t field_u64(const struct prec *r, const char *name)
{
	uint32_t n = 0;
	const uint8_t *v = field(r->hdr, r->hlen, name, &n);
	if (v == NULL)
		fail_msg("no field %s", name);
	assert_int_equal(n, 8);
	return rd32(v) | (uint64_t)rd32(v + 4) << 32;
}

static int field_op(const struct prec *r)
{
	uint32_t n = 0;
	const uint8_t *v = field(r->hdr, r->hlen, "op", &n);
	assert_non_null(v);
	assert_int_equal(n, 1);
	return v[0];
}

/* A string field copied into out (size bytes); false if absent. */
static bool field_str(const uint8_t *f, uint32_t len, const char *name, char *out, size_t size)
{
	uint32_t n = 0;
	const uint8_t *v = field(f, len, name, &n);
	if (v == NULL)
		return false;
	assert_true(n < size);
	memcpy(out, v, n);
	out[n] = '\0';
	return true;
}

static uint8_t *decompress(const char *comp, const uint8_t *src, uint32_t srclen, uint32_t size)
{
	uint8_t *out = malloc(size ? size : 1);

	assert_non_null(out);
	if (strcmp(comp, "none") == 0) {
		assert_int_equal(srclen, size);
		memcpy(out, src, size);
	} else if (strcmp(comp, "bz2") == 0) {
		unsigned int n = size;
		assert_int_equal(BZ2_bzBuffToBuffDecompress((char *)out, &n, (char *)src, srclen, 0, 0), BZ_OK);
		assert_int_equal(n, size);
	} else {
#ifdef HAVE_LZ4
		LZ4F_dctx *dctx;
		size_t dst = size, consumed = srclen;
		assert_false(LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION)));
		size_t rc = LZ4F_decompress(dctx, out, &dst, src, &consumed, NULL);
		assert_int_equal(rc, 0);                /* frame complete */
		assert_int_equal(consumed, srclen);
		assert_int_equal(dst, size);
		LZ4F_freeDecompressionContext(dctx);
#else
		fail_msg("lz4 chunk in a build without lz4");
#endif
	}
	return out;
}

/* The messages and connection records inside chunk c. */
static void parse_chunk(struct parsed *pb, size_t ci)
{
	struct pchunk *c = &pb->chunks[ci];
	size_t pos = 0;
	struct prec r;

	c->first_msg = pb->nmsgs;
	while (pos < c->size) {
		uint32_t offset = (uint32_t)pos;
		next_record(c->plain, c->size, &pos, &r);
		int op = field_op(&r);
		if (op == BAG_OP_CONNECTION) {
			uint32_t id = field_u32(&r, "conn");
			assert_true(id < MAX_CONNS);
			if (pb->conns[id].records_in_chunks++ == 0)
				pb->conns[id].first_chunk = ci;
			continue;
		}
		assert_int_equal(op, BAG_OP_MSG_DATA);
		assert_int_equal(r.hlen, 38);
		if (pb->nmsgs == pb->cap) {
			pb->cap = pb->cap ? 2 * pb->cap : 1024;
			pb->msgs = realloc(pb->msgs, pb->cap * sizeof *pb->msgs);
			assert_non_null(pb->msgs);
		}
		uint32_t n = 0;
		const uint8_t *t = field(r.hdr, r.hlen, "time", &n);
		assert_non_null(t);
		assert_int_equal(n, 8);
		pb->msgs[pb->nmsgs] = (struct pmsg){ field_u32(&r, "conn"), rdtime(t), r.data, r.dlen, offset, ci };
		assert_true(pb->msgs[pb->nmsgs++].conn < MAX_CONNS);
	}
	assert_int_equal(pos, c->size);
	c->nmsgs = pb->nmsgs - c->first_msg;
	assert_true(c->nmsgs > 0);
}

/*
 * Chunk ci's index data records from *pos: one per connection in it, by id;
 * entries are its messages in time order (ties in chunk order).
 */
static void parse_index_data(struct parsed *pb, size_t ci, size_t *pos)
{
	struct pchunk *c = &pb->chunks[ci];
	size_t total = 0;
	int64_t prev_conn = -1;
	struct prec r;

	while (*pos < pb->index_pos) {
		size_t save = *pos;
		next_record(pb->file, pb->flen, pos, &r);
		if (field_op(&r) != BAG_OP_INDEX_DATA) {
			*pos = save;
			break;
		}
		assert_int_equal(field_u32(&r, "ver"), 1);
		uint32_t conn = field_u32(&r, "conn"), count = field_u32(&r, "count");
		assert_true((int64_t)conn > prev_conn);
		prev_conn = conn;
		assert_int_equal(r.dlen, count * 12);
		size_t k = 0;
		int64_t last_t = INT64_MIN;
		uint32_t last_off = 0;
		for (size_t m = 0; m < count; m++) {
			int64_t t = rdtime(r.data + 12 * m);
			uint32_t off = rd32(r.data + 12 * m + 8);
			assert_true(t > last_t || (t == last_t && off > last_off));
			if (m > 0 && off < last_off)
				c->reordered = true;
			last_t = t;
			last_off = off;
			for (k = 0; k < c->nmsgs; k++)
				if (pb->msgs[c->first_msg + k].offset == off)
					break;
			assert_true(k < c->nmsgs);
			assert_int_equal(pb->msgs[c->first_msg + k].conn, conn);
			assert_true(pb->msgs[c->first_msg + k].time_ns == t);
		}
		size_t in_chunk = 0;
		for (k = 0; k < c->nmsgs; k++)
			in_chunk += pb->msgs[c->first_msg + k].conn == conn;
		assert_int_equal(in_chunk, count);
		total += count;
	}
	assert_int_equal(total, c->nmsgs);
}

/* The chunk info record r describes chunk ci. */
static void check_chunk_info(struct parsed *pb, size_t ci, const struct prec *r)
{
	const struct pchunk *c = &pb->chunks[ci];
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	uint32_t per_conn[MAX_CONNS] = { 0 }, nconns = 0;

	assert_int_equal(field_op(r), BAG_OP_CHUNK_INFO);
	assert_int_equal(field_u32(r, "ver"), 1);
	assert_int_equal(field_u64(r, "chunk_pos"), c->pos);
	for (size_t k = 0; k < c->nmsgs; k++) {
		const struct pmsg *m = &pb->msgs[c->first_msg + k];
		lo = m->time_ns < lo ? m->time_ns : lo;
		hi = m->time_ns > hi ? m->time_ns : hi;
		nconns += per_conn[m->conn]++ == 0;
	}
	assert_true(ros_ns(field_u64(r, "start_time")) == lo);
	assert_true(ros_ns(field_u64(r, "end_time")) == hi);
	assert_int_equal(field_u32(r, "count"), nconns);
	assert_int_equal(r->dlen, nconns * 8);
	for (uint32_t k = 0; k < nconns; k++) {
		uint32_t conn = rd32(r->data + 8 * k);
		assert_true(conn < MAX_CONNS);
		assert_int_equal(rd32(r->data + 8 * k + 4), per_conn[conn]);
	}
}

/* Read and check the whole bag at path. */
static void parse_bag(const char *path, struct parsed *pb)
{
	FILE *f = fopen(path, "rb");
	struct prec r;
	size_t pos = 13;

	memset(pb, 0, sizeof *pb);
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	pb->flen = (size_t)ftell(f);
	rewind(f);
	pb->file = malloc(pb->flen + 1);
	assert_int_equal(fread(pb->file, 1, pb->flen, f), pb->flen);
	fclose(f);
	assert_memory_equal(pb->file, "#ROSBAG V2.0\n", 13);

	next_record(pb->file, pb->flen, &pos, &r);
	assert_int_equal(r.hlen + r.dlen, 4096);
	assert_int_equal(pos, 4117);
	assert_int_equal(field_op(&r), BAG_OP_FILE_HEADER);
	for (uint32_t i = 0; i < r.dlen; i++)
		assert_int_equal(r.data[i], ' ');
	pb->index_pos = field_u64(&r, "index_pos");
	pb->conn_count = field_u32(&r, "conn_count");
	pb->chunk_count = field_u32(&r, "chunk_count");
	assert_true(pb->conn_count <= MAX_CONNS && pb->chunk_count <= MAX_CHUNKS);
	pb->chunks = calloc(pb->chunk_count + 1, sizeof *pb->chunks);

	while (pos < pb->index_pos) {
		struct pchunk *c = &pb->chunks[pb->nchunks];
		assert_true(pb->nchunks < pb->chunk_count);
		c->pos = pos;
		next_record(pb->file, pb->flen, &pos, &r);
		assert_int_equal(field_op(&r), BAG_OP_CHUNK);
		assert_true(field_str(r.hdr, r.hlen, "compression", c->compression, sizeof c->compression));
		c->size = field_u32(&r, "size");
		c->plain = decompress(c->compression, r.data, r.dlen, c->size);
		parse_chunk(pb, pb->nchunks);
		parse_index_data(pb, pb->nchunks, &pos);
		pb->nchunks++;
	}
	assert_int_equal(pos, pb->index_pos);
	assert_int_equal(pb->nchunks, pb->chunk_count);

	for (uint32_t id = 0; id < pb->conn_count; id++) {
		struct pconn *c = &pb->conns[id];
		char topic[64];
		next_record(pb->file, pb->flen, &pos, &r);
		assert_int_equal(field_op(&r), BAG_OP_CONNECTION);
		assert_int_equal(field_u32(&r, "conn"), id);
		assert_true(field_str(r.hdr, r.hlen, "topic", topic, sizeof topic));
		assert_true(field_str(r.data, r.dlen, "topic", c->topic, sizeof c->topic));
		assert_string_equal(topic, c->topic);
		assert_true(field_str(r.data, r.dlen, "type", c->type, sizeof c->type));
		assert_true(field_str(r.data, r.dlen, "md5sum", c->md5sum, sizeof c->md5sum));
		assert_true(field_str(r.data, r.dlen, "message_definition", c->definition, sizeof c->definition));
		assert_true(field_str(r.data, r.dlen, "latching", c->latching, sizeof c->latching));
		c->has_callerid = field_str(r.data, r.dlen, "callerid", c->callerid, sizeof c->callerid);
		assert_int_equal(c->records_in_chunks, 1);
	}
	for (size_t i = 0; i < pb->nchunks; i++) {
		next_record(pb->file, pb->flen, &pos, &r);
		check_chunk_info(pb, i, &r);
	}
	assert_int_equal(pos, pb->flen);
	for (size_t i = 0; i < pb->nmsgs; i++) {
		assert_true(pb->msgs[i].conn < pb->conn_count);
		if (pb->conns[pb->msgs[i].conn].first_chunk > pb->msgs[i].chunk)
			fail_msg("message %zu comes before its connection record", i);
	}
}

static void parsed_free(struct parsed *pb)
{
	for (size_t i = 0; i < pb->nchunks; i++)
		free(pb->chunks[i].plain);
	free(pb->chunks);
	free(pb->msgs);
	free(pb->file);
}

static const struct bag_conn_spec int_conn = {
	"/count", "std_msgs/Int64", "34add168574510e6e17f5d23ecc077ef", "int64 data\n", "/counter", false,
};
static const struct bag_conn_spec str_conn = {
	"/say", "std_msgs/String", "992ce8a1687cec8c8bd883ec73ca41d1", "string data\n", NULL, true,
};

static char dir[64];

static int make_dir(void **state)
{
	snprintf(dir, sizeof dir, "/tmp/bagscope-write-XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int remove_dir(void **state)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Entries of dir whose name starts with prefix. */
static int count_files(const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return n;
}

/* Write n messages alternating two connections; times from time_of(i). */
static void write_bag(const char *path, enum bag_compression comp, uint32_t threshold, int n,
                      int64_t (*time_of)(int))
{
	struct bag_writer_opts opts = { .size = sizeof(struct bag_writer_opts), .compression = comp,
	                                .chunk_threshold = threshold };
	bag_writer_t *w;

	if (bag_writer_open(&w, path, &opts) != BAG_OK)
		fail_msg("%s", bag_writer_error(w)->message);
	for (int i = 0; i < n; i++) {
		int64_t v = i;
		char s[64];
		uint32_t len = (uint32_t)snprintf(s + 4, sizeof s - 4, "message %d", i);
		memcpy(s, &len, 4);
		int rc = i % 2 ? bag_writer_write(w, &str_conn, time_of(i), s, 4 + len)
		               : bag_writer_write(w, &int_conn, time_of(i), &v, 8);
		if (rc != BAG_OK)
			fail_msg("%s", bag_writer_error(w)->message);
	}
	if (bag_writer_close(w) != BAG_OK)
		fail_msg("%s", bag_writer_error(w)->message);
	bag_writer_free(w);
}

static int64_t in_order(int i)
{
	return 1600000000LL * BAG_NSEC_PER_SEC + (int64_t)i * 1000000;
}

/* Every third message goes 5 s back: chunks overlap in time. */
static int64_t shuffled(int i)
{
	return 1600000000LL * BAG_NSEC_PER_SEC + (int64_t)i * 10000000 - (i % 3 == 0 ? 5 * BAG_NSEC_PER_SEC : 0);
}

/* Check what write_bag wrote: counts, connections, order, payloads. */
static void read_back(const char *path, int n, enum bag_compression comp, size_t min_chunks)
{
	bag_t *bag;
	bag_timeline_t *tl;
	bag_view_t *view;
	struct bag_message m;
	struct bag_chunk_info ci;
	int64_t last = INT64_MIN;
	int seen_int = 0, seen_str = 0;

	if (bag_open(&bag, path, NULL) != BAG_OK)
		fail_msg("%s", bag_last_error(bag)->message);
	assert_int_equal(bag_message_count(bag), n);
	assert_int_equal(bag_conn_count(bag), 2);
	assert_string_equal(bag_conn(bag, 0)->callerid, "/counter");
	assert_false(bag_conn(bag, 0)->latching);
	assert_true(bag_conn(bag, 1)->latching);
	assert_string_equal(bag_conn(bag, 1)->definition, "string data\n");
	assert_true(bag_chunk_count(bag) >= min_chunks);
	for (size_t i = 0; i < bag_chunk_count(bag); i++) {
		assert_int_equal(bag_chunk_stat(bag, i, &ci), BAG_OK);
		assert_int_equal(ci.compression, comp);
	}
	assert_int_equal(bag_timeline_open(&tl, &bag, 1), BAG_OK);
	assert_int_equal(bag_view_open(&view, tl, NULL), BAG_OK);
	assert_int_equal(bag_view_count(view), n);
	for (uint64_t r = 0; r < (uint64_t)n; r++) {
		if (bag_view_read(view, r, &m) != BAG_OK)
			fail_msg("%s", bag_view_error(view)->message);
		assert_true(m.time_ns >= last);
		last = m.time_ns;
		if (m.conn->id == 0) {
			int64_t v;
			assert_int_equal(m.size, 8);
			memcpy(&v, m.data, 8);
			assert_true(v % 2 == 0 && v < n);
			seen_int++;
		} else {
			assert_memory_equal(m.data + 4, "message ", 8);
			seen_str++;
		}
	}
	assert_int_equal(seen_int, (n + 1) / 2);
	assert_int_equal(seen_str, n / 2);
	bag_view_free(view);
	bag_timeline_free(tl);
	bag_close(bag);
}

/* ---- round trips through the library reader --------------------------- */

static void test_roundtrip_three_compressions(void **state)
{
	static const enum bag_compression kinds[] = {
		BAG_COMPRESSION_NONE, BAG_COMPRESSION_BZ2, BAG_COMPRESSION_LZ4,
	};
	char path[128];

	for (size_t k = 0; k < 3; k++) {
		snprintf(path, sizeof path, "%s/rt-%s.bag", dir, bag_compression_name(kinds[k]));
		write_bag(path, kinds[k], 4096, 2000, in_order);
		read_back(path, 2000, kinds[k], 10);
	}
}

static void test_default_threshold_one_chunk(void **state)
{
	char path[128];

	snprintf(path, sizeof path, "%s/one.bag", dir);
	write_bag(path, BAG_COMPRESSION_NONE, 0, 100, in_order);
	read_back(path, 100, BAG_COMPRESSION_NONE, 1);
	bag_t *bag;
	assert_int_equal(bag_open(&bag, path, NULL), BAG_OK);
	assert_int_equal(bag_chunk_count(bag), 1);
	/* the first chunk follows the 4096-byte bag header, as rosbag writes it */
	struct bag_chunk_info ci;
	assert_int_equal(bag_chunk_stat(bag, 0, &ci), BAG_OK);
	assert_int_equal(ci.pos, 13 + 8 + 4096);
	bag_close(bag);
}

static void test_overlapping_chunks_ordered(void **state)
{
	char path[128];

	snprintf(path, sizeof path, "%s/shuffled.bag", dir);
	write_bag(path, BAG_COMPRESSION_LZ4, 2048, 3000, shuffled);
	read_back(path, 3000, BAG_COMPRESSION_LZ4, 20);
}

static void test_many_connections(void **state)
{
	char path[128], topic[32];
	bag_writer_t *w;
	bag_t *bag;

	snprintf(path, sizeof path, "%s/many.bag", dir);
	assert_int_equal(bag_writer_open(&w, path, NULL), BAG_OK);
	for (int i = 0; i < 5000; i++) {
		struct bag_conn_spec c = int_conn;
		int64_t v = i;
		snprintf(topic, sizeof topic, "/t%d", i % 500);
		c.topic = topic;
		assert_int_equal(bag_writer_write(w, &c, in_order(i), &v, 8), BAG_OK);
	}
	assert_int_equal(bag_writer_close(w), BAG_OK);
	bag_writer_free(w);
	assert_int_equal(bag_open(&bag, path, NULL), BAG_OK);
	assert_int_equal(bag_conn_count(bag), 500);
	assert_int_equal(bag_message_count(bag), 5000);
	assert_string_equal(bag_conn_by_id(bag, 499)->topic, "/t499");
	assert_int_equal(bag_conn_by_id(bag, 499)->message_count, 10);
	bag_close(bag);
}


/* ---- byte-level checks through parse_bag() ---------------------------- */

static const struct bag_conn_spec point_conn = {
	"/point", "geometry_msgs/Point", "4a842b65f413084dc2b10fb484ea7f17",
	"float64 x\nfloat64 y\nfloat64 z\n", "/pub", true,
};

/* What test_layout writes as message i: connection, time and payload. */
static const struct bag_conn_spec *layout_conn(int i)
{
	return i % 5 == 4 ? &point_conn : i % 2 ? &str_conn : &int_conn;
}

static int64_t layout_time(int i)
{
	return 1500000000LL * BAG_NSEC_PER_SEC + (int64_t)(i / 3) * 250000000;
}

static size_t layout_payload(int i, uint8_t *buf)
{
	return (size_t)snprintf((char *)buf, 64, "payload %d of %s", i, layout_conn(i)->topic);
}

static void check_layout(enum bag_compression comp)
{
	struct bag_writer_opts opts = { .size = sizeof(struct bag_writer_opts), .compression = comp,
	                                .chunk_threshold = 2048 };
	struct parsed pb;
	bag_writer_t *w;
	char path[128];
	uint8_t buf[64];
	const int n = 700;

	snprintf(path, sizeof path, "%s/layout-%s.bag", dir, bag_compression_name(comp));
	if (bag_writer_open(&w, path, &opts) != BAG_OK)
		fail_msg("%s", bag_writer_error(w)->message);
	for (int i = 0; i < n; i++) {
		size_t len = layout_payload(i, buf);
		if (bag_writer_write(w, layout_conn(i), layout_time(i), buf, len) != BAG_OK)
			fail_msg("%s", bag_writer_error(w)->message);
	}
	assert_int_equal(bag_writer_close(w), BAG_OK);
	bag_writer_free(w);
	assert_int_equal(count_files("layout-"), (int)comp + 1);

	parse_bag(path, &pb);
	assert_int_equal(pb.nmsgs, n);
	assert_int_equal(pb.conn_count, 3);
	assert_true(pb.nchunks >= 8);
	for (size_t c = 0; c < pb.nchunks; c++)
		assert_string_equal(pb.chunks[c].compression, bag_compression_name(comp));
	for (int i = 0; i < n; i++) {
		const struct pmsg *m = &pb.msgs[i];
		size_t len = layout_payload(i, buf);
		assert_int_equal(m->conn, i % 5 == 4 ? 2 : i % 2 ? 1 : 0);
		assert_true(m->time_ns == layout_time(i));
		assert_int_equal(m->len, len);
		assert_memory_equal(m->data, buf, len);
	}
	assert_string_equal(pb.conns[0].topic, "/count");
	assert_string_equal(pb.conns[0].type, "std_msgs/Int64");
	assert_string_equal(pb.conns[0].md5sum, "34add168574510e6e17f5d23ecc077ef");
	assert_string_equal(pb.conns[0].definition, "int64 data\n");
	assert_true(pb.conns[0].has_callerid);
	assert_string_equal(pb.conns[0].callerid, "/counter");
	assert_string_equal(pb.conns[0].latching, "0");
	assert_false(pb.conns[1].has_callerid);
	assert_string_equal(pb.conns[1].latching, "1");
	assert_string_equal(pb.conns[2].definition, "float64 x\nfloat64 y\nfloat64 z\n");
	assert_int_equal(pb.conns[0].first_chunk, 0);
	assert_int_equal(pb.conns[2].first_chunk, 0);
	parsed_free(&pb);
}

static void test_layout_none(void **state) { check_layout(BAG_COMPRESSION_NONE); }
static void test_layout_bz2(void **state) { check_layout(BAG_COMPRESSION_BZ2); }
static void test_layout_lz4(void **state) { check_layout(BAG_COMPRESSION_LZ4); }

/* A chunk closes as soon as it is longer than the threshold, not before. */
static void test_threshold_splits(void **state)
{
	struct bag_writer_opts opts = { .size = sizeof(struct bag_writer_opts), .compression = BAG_COMPRESSION_LZ4,
	                                .chunk_threshold = 1000 };
	const size_t rec = 4 + 38 + 4 + 100;
	struct parsed pb;
	bag_writer_t *w;
	char path[128];
	uint8_t payload[100];
	size_t total = 0;

	snprintf(path, sizeof path, "%s/threshold.bag", dir);
	assert_int_equal(bag_writer_open(&w, path, &opts), BAG_OK);
	for (int i = 0; i < 1000; i++) {
		memset(payload, i & 0xff, sizeof payload);
		assert_int_equal(bag_writer_write(w, &int_conn, in_order(i), payload, sizeof payload), BAG_OK);
	}
	assert_int_equal(bag_writer_close(w), BAG_OK);
	bag_writer_free(w);
	parse_bag(path, &pb);
	assert_int_equal(pb.nmsgs, 1000);
	assert_true(pb.nchunks > 100);
	for (size_t c = 0; c < pb.nchunks; c++) {
		const struct pchunk *ch = &pb.chunks[c];
		if (c + 1 < pb.nchunks) {
			assert_true(ch->size > 1000);
			assert_true(ch->size - rec <= 1000);
		} else {
			assert_true(ch->size <= 1000 + rec);
		}
		total += ch->nmsgs;
		for (size_t k = 0; k < ch->nmsgs; k++)
			assert_int_equal(pb.msgs[ch->first_msg + k].data[0], (ch->first_msg + k) & 0xff);
	}
	assert_int_equal(total, 1000);
	parsed_free(&pb);
}

/*
 * Times going backwards and repeating: chunk times are min/max, the index is
 * in time order with ties in write order (parse_bag checks both), and the
 * records in the chunk stay in write order.
 */
static void test_out_of_order_times(void **state)
{
	struct bag_writer_opts opts = { .size = sizeof(struct bag_writer_opts), .compression = BAG_COMPRESSION_BZ2,
	                                .chunk_threshold = 4096 };
	struct parsed pb;
	bag_writer_t *w;
	char path[128];
	bool reordered = false;

	snprintf(path, sizeof path, "%s/unordered.bag", dir);
	assert_int_equal(bag_writer_open(&w, path, &opts), BAG_OK);
	for (int i = 0; i < 2000; i++) {
		int64_t t = 1000 * BAG_NSEC_PER_SEC + (int64_t)((i * 7919) % 23) * 1000 + (i % 4 == 0 ? 0 : 5);
		int64_t v = i;
		assert_int_equal(bag_writer_write(w, i % 3 ? &int_conn : &str_conn, t, &v, 8), BAG_OK);
	}
	assert_int_equal(bag_writer_close(w), BAG_OK);
	bag_writer_free(w);
	parse_bag(path, &pb);
	assert_int_equal(pb.nmsgs, 2000);
	for (int i = 0; i < 2000; i++) {
		int64_t v;
		memcpy(&v, pb.msgs[i].data, 8);
		assert_int_equal(v, i);
	}
	for (size_t c = 0; c < pb.nchunks; c++)
		reordered |= pb.chunks[c].reordered;
	assert_true(reordered);
	parsed_free(&pb);
}

/* No messages: a valid bag with no chunks and the index right after the header. */
static void test_empty_bag(void **state)
{
	struct parsed pb;
	bag_writer_t *w;
	char path[128];

	snprintf(path, sizeof path, "%s/empty.bag", dir);
	assert_int_equal(bag_writer_open(&w, path, NULL), BAG_OK);
	assert_int_equal(bag_writer_close(w), BAG_OK);
	assert_int_equal(bag_writer_close(w), BAG_EINVAL);
	bag_writer_free(w);
	parse_bag(path, &pb);
	assert_int_equal(pb.index_pos, 4117);
	assert_int_equal(pb.flen, 4117);
	assert_int_equal(pb.chunk_count, 0);
	assert_int_equal(pb.conn_count, 0);
	parsed_free(&pb);
}

/* Every field of the spec counts; ids go by first use; buffers may be reused. */
static void test_connection_identity(void **state)
{
	struct bag_conn_spec s[5] = { int_conn, int_conn, int_conn, int_conn, int_conn };
	char topic[16] = "/a";
	struct parsed pb;
	bag_writer_t *w;
	char path[128];
	int64_t v = 0;

	s[1].callerid = NULL;
	s[2].callerid = "";
	s[3].latching = true;
	s[4].definition = "int64 data  # other comment\n";
	snprintf(path, sizeof path, "%s/identity.bag", dir);
	assert_int_equal(bag_writer_open(&w, path, NULL), BAG_OK);
	for (int round = 0; round < 3; round++)
		for (int i = 4; i >= 0; i--)
			assert_int_equal(bag_writer_write(w, &s[i], in_order(round), &v, 8), BAG_OK);
	s[0].topic = topic;
	assert_int_equal(bag_writer_write(w, &s[0], in_order(5), &v, 8), BAG_OK);
	strcpy(topic, "/b");
	assert_int_equal(bag_writer_write(w, &s[0], in_order(6), &v, 8), BAG_OK);
	strcpy(topic, "/a");
	assert_int_equal(bag_writer_write(w, &s[0], in_order(7), &v, 8), BAG_OK);
	assert_int_equal(bag_writer_close(w), BAG_OK);
	bag_writer_free(w);
	parse_bag(path, &pb);
	assert_int_equal(pb.conn_count, 7);
	for (int i = 0; i < 15; i++)
		assert_int_equal(pb.msgs[i].conn, i % 5);
	assert_int_equal(pb.msgs[15].conn, 5);
	assert_int_equal(pb.msgs[16].conn, 6);
	assert_int_equal(pb.msgs[17].conn, 5);
	assert_string_equal(pb.conns[0].definition, "int64 data  # other comment\n");
	assert_string_equal(pb.conns[1].latching, "1");
	assert_true(pb.conns[2].has_callerid);
	assert_string_equal(pb.conns[2].callerid, "");
	assert_false(pb.conns[3].has_callerid);
	assert_string_equal(pb.conns[4].callerid, "/counter");
	assert_string_equal(pb.conns[6].topic, "/b");
	parsed_free(&pb);
}

/* ---- failures -------------------------------------------------------- */

static void test_open_in_missing_dir(void **state)
{
	bag_writer_t *w;
	struct stat st;

	assert_int_equal(bag_writer_open(&w, "/nonexistent-dir/x.bag", NULL), BAG_EIO);
	assert_non_null(strstr(bag_writer_error(w)->message, "/nonexistent-dir/x.bag"));
	assert_non_null(strstr(bag_writer_error(w)->message, strerror(ENOENT)));
	int64_t v = 1;
	assert_int_equal(bag_writer_write(w, &int_conn, in_order(0), &v, 8), BAG_EIO);
	assert_int_equal(bag_writer_close(w), BAG_EIO);
	assert_non_null(strstr(bag_writer_error(w)->message, strerror(ENOENT)));
	bag_writer_free(w);
	assert_int_equal(stat("/nonexistent-dir/x.bag", &st), -1);
	bag_writer_free(NULL);
}

/* Bad arguments are refused without spoiling the writer. */
static void test_bad_arguments(void **state)
{
	struct bag_writer_opts bad = { .size = sizeof(struct bag_writer_opts), .compression = (enum bag_compression)7,
	                                .chunk_threshold = 0 };
	struct bag_conn_spec no_md5 = int_conn;
	struct parsed pb;
	bag_writer_t *w;
	char path[128];
	int64_t v = 42;

	snprintf(path, sizeof path, "%s/args.bag", dir);
	assert_int_equal(bag_writer_open(&w, path, &bad), BAG_EINVAL);
	bag_writer_free(w);
	assert_int_equal(count_files("args"), 0);
	/* options without their size (a caller that zeroed them), or with fields unknown here */
	struct bag_writer_opts unsized = { 0 };
	struct { struct bag_writer_opts o; uint32_t newer; } big = { BAG_WRITER_OPTS_INIT, 1 };
	big.o.size = sizeof big;
	assert_int_equal(bag_writer_open(&w, path, &unsized), BAG_EINVAL);
	assert_non_null(strstr(bag_writer_error(w)->message, "bag_writer_opts.size is 0"));
	bag_writer_free(w);
	assert_int_equal(bag_writer_open(&w, path, &big.o), BAG_EINVAL);
	bag_writer_free(w);
	assert_int_equal(count_files("args"), 0);
	no_md5.md5sum = NULL;
	assert_int_equal(bag_writer_open(&w, path, NULL), BAG_OK);
	assert_int_equal(bag_writer_write(w, &int_conn, -1, &v, 8), BAG_EINVAL);
	assert_non_null(strstr(bag_writer_error(w)->message, "time"));
	assert_int_equal(bag_writer_write(w, &int_conn, (INT64_C(1) << 32) * BAG_NSEC_PER_SEC, &v, 8), BAG_EINVAL);
	assert_int_equal(bag_writer_write(w, NULL, in_order(0), &v, 8), BAG_EINVAL);
	assert_int_equal(bag_writer_write(w, &no_md5, in_order(0), &v, 8), BAG_EINVAL);
	assert_int_equal(bag_writer_write(w, &int_conn, in_order(0), NULL, 8), BAG_EINVAL);
	assert_int_equal(bag_writer_write(w, &int_conn, in_order(0), NULL, 0), BAG_OK);
	assert_int_equal(bag_writer_write(w, &int_conn, (int64_t)UINT32_MAX * BAG_NSEC_PER_SEC + 999999999, &v, 8), BAG_OK);
	assert_int_equal(bag_writer_close(w), BAG_OK);
	assert_int_equal(bag_writer_write(w, &int_conn, in_order(1), &v, 8), BAG_EINVAL);
	bag_writer_free(w);
	parse_bag(path, &pb);
	assert_int_equal(pb.nmsgs, 2);
	assert_int_equal(pb.msgs[0].len, 0);
	assert_true(pb.msgs[1].time_ns == (int64_t)UINT32_MAX * BAG_NSEC_PER_SEC + 999999999);
	assert_int_equal(pb.conn_count, 1);
	parsed_free(&pb);
}

/* A bag never closed leaves neither itself nor its temporary file; an older file at the target survives. */
static void test_abandoned_leaves_nothing(void **state)
{
	char path[128], buf[8] = "";
	bag_writer_t *w;
	FILE *f;
	int64_t v = 1;

	snprintf(path, sizeof path, "%s/abandoned.bag", dir);
	assert_int_equal(bag_writer_open(&w, path, NULL), BAG_OK);
	assert_int_equal(count_files("abandoned.bag.tmp-"), 1);
	assert_int_equal(bag_writer_write(w, &int_conn, in_order(0), &v, 8), BAG_OK);
	bag_writer_free(w);
	assert_int_equal(count_files("abandoned"), 0);

	f = fopen(path, "w");
	fputs("old", f);
	fclose(f);
	assert_int_equal(bag_writer_open(&w, path, NULL), BAG_OK);
	assert_int_equal(bag_writer_write(w, &int_conn, in_order(0), &v, 8), BAG_OK);
	bag_writer_free(w);
	f = fopen(path, "r");
	assert_non_null(fgets(buf, sizeof buf, f));
	fclose(f);
	assert_string_equal(buf, "old");
	assert_int_equal(count_files("abandoned"), 1);
	unlink(path);
}

/*
 * A write error (here the file size limit, EFBIG) is sticky: later calls
 * return the same code, the message still names the first failure, and
 * nothing is left behind.
 */
static void test_io_error_is_sticky(void **state)
{
	struct bag_writer_opts opts = { .size = sizeof(struct bag_writer_opts), .compression = BAG_COMPRESSION_NONE,
	                                .chunk_threshold = 4096 };
	struct rlimit old, small;
	char path[128], msg[512];
	uint8_t payload[1000] = { 0 };
	bag_writer_t *w;
	int rc = BAG_OK, i;

	snprintf(path, sizeof path, "%s/full.bag", dir);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(bag_writer_open(&w, path, &opts), BAG_OK);
	small = old;
	small.rlim_cur = 64 * 1024;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	for (i = 0; i < 10000 && rc == BAG_OK; i++)
		rc = bag_writer_write(w, &int_conn, in_order(i), payload, sizeof payload);
	if (rc == BAG_OK)
		rc = bag_writer_close(w);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_int_equal(rc, BAG_EIO);
	snprintf(msg, sizeof msg, "%s", bag_writer_error(w)->message);
	assert_non_null(strstr(msg, path));
	assert_non_null(strstr(msg, strerror(EFBIG)));
	assert_int_equal(bag_writer_write(w, &int_conn, in_order(0), payload, 8), BAG_EIO);
	assert_int_equal(bag_writer_close(w), BAG_EIO);
	assert_string_equal(bag_writer_error(w)->message, msg);
	bag_writer_free(w);
	assert_int_equal(count_files("full"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_none),
		cmocka_unit_test(test_layout_bz2),
		cmocka_unit_test(test_layout_lz4),
		cmocka_unit_test(test_threshold_splits),
		cmocka_unit_test(test_out_of_order_times),
		cmocka_unit_test(test_empty_bag),
		cmocka_unit_test(test_connection_identity),
		cmocka_unit_test(test_roundtrip_three_compressions),
		cmocka_unit_test(test_default_threshold_one_chunk),
		cmocka_unit_test(test_overlapping_chunks_ordered),
		cmocka_unit_test(test_many_connections),
		cmocka_unit_test(test_open_in_missing_dir),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_abandoned_leaves_nothing),
		cmocka_unit_test(test_io_error_is_sticky),
	};
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
