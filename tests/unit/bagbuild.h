/*
 * bagbuild.h - a tiny bag writer for tests that need exact bytes: good bags
 * in any layout, then damaged on purpose. Header-only; everything static.
 *
 * tb_build() lays out: version line, bag header (4096 bytes, as rosbag),
 * chunks (connection records before a connection's first message, then its
 * messages), each followed by its index-data records, then the index
 * section (connections, chunk infos). struct tb_layout records where every
 * piece went so a test can patch it.
 */
#ifndef BAGBUILD_H
#define BAGBUILD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bzlib.h>
#ifdef HAVE_LZ4
#include <lz4frame.h>
#endif

struct tb_buf {
	uint8_t *p;
	size_t len, cap;
};

static void tb_put(struct tb_buf *b, const void *src, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		if (b->p == NULL)
			abort();
	}
	memcpy(b->p + b->len, src, n);
	b->len += n;
}

static void tb_u32(struct tb_buf *b, uint32_t v)
{
	uint8_t x[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
	tb_put(b, x, 4);
}

static void tb_u64(struct tb_buf *b, uint64_t v)
{
	tb_u32(b, (uint32_t)v);
	tb_u32(b, (uint32_t)(v >> 32));
}

static void tb_set32(struct tb_buf *b, size_t at, uint32_t v)
{
	b->p[at] = (uint8_t)v;
	b->p[at + 1] = (uint8_t)(v >> 8);
	b->p[at + 2] = (uint8_t)(v >> 16);
	b->p[at + 3] = (uint8_t)(v >> 24);
}

/* Header fields: <len><name>=<value>. */
static void tb_field(struct tb_buf *h, const char *name, const void *v, size_t n)
{
	tb_u32(h, (uint32_t)(strlen(name) + 1 + n));
	tb_put(h, name, strlen(name));
	tb_put(h, "=", 1);
	tb_put(h, v, n);
}

static void tb_f8(struct tb_buf *h, const char *name, uint8_t v) { tb_field(h, name, &v, 1); }

static void tb_f32(struct tb_buf *h, const char *name, uint32_t v)
{
	uint8_t x[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
	tb_field(h, name, x, 4);
}

static void tb_f64(struct tb_buf *h, const char *name, uint64_t v)
{
	struct tb_buf t = { 0 };
	tb_u64(&t, v);
	tb_field(h, name, t.p, 8);
	free(t.p);
}

static void tb_fstr(struct tb_buf *h, const char *name, const char *s) { tb_field(h, name, s, strlen(s)); }

/* A record from a header buffer (freed) and data. */
static void tb_record(struct tb_buf *out, struct tb_buf *h, const void *data, size_t n)
{
	tb_u32(out, (uint32_t)h->len);
	tb_put(out, h->p, h->len);
	tb_u32(out, (uint32_t)n);
	tb_put(out, data, n);
	free(h->p);
	memset(h, 0, sizeof *h);
}

#define TB_MAX 64

/* One message: connection, time (seconds) and payload (a uint32). */
struct tb_msg {
	uint32_t conn;
	uint32_t sec;
	uint32_t value;
};

struct tb_chunk {
	const char *compression;  /* "none", "bz2", "lz4" */
	size_t nmsgs;
	struct tb_msg msgs[TB_MAX];
	size_t pad;               /* bytes of extra payload per message */
};

enum {
	TB_NO_INDEX_RECORDS = 1,  /* no op-4 records after chunks */
	TB_NO_INDEX_SECTION = 2,  /* index_pos 0, nothing after the chunks */
	TB_UNTERMINATED = 4,      /* last chunk as a killed rosbag leaves it */
	TB_BZ2_SMALL_BLOCKS = 8,  /* bz2 with 100k blocks */
	TB_LZ4_BIG_BLOCKS = 16,   /* lz4 with 1 MB blocks, as roslz4 writes */
};

struct tb_layout {
	size_t header_pos;             /* bag header record */
	size_t chunk_pos[TB_MAX];      /* chunk records */
	size_t data_pos[TB_MAX];       /* their data */
	size_t index_pos[TB_MAX];      /* first index-data record after each */
	size_t msg_off[TB_MAX][TB_MAX];/* message record offsets in the chunk data */
	size_t conn_off[TB_MAX];       /* in-chunk offset of each chunk's first connection record */
	size_t index_section;          /* index_pos (0 with TB_NO_INDEX_SECTION) */
	size_t chunkinfo_pos[TB_MAX];  /* chunk info records */
	size_t conninfo_pos[TB_MAX];   /* connection records in the index section */
	size_t nconns;
};

static void tb_connection(struct tb_buf *out, uint32_t conn)
{
	struct tb_buf h = { 0 }, d = { 0 };
	char topic[32];

	snprintf(topic, sizeof topic, "/t%u", conn);
	tb_f8(&h, "op", 7);
	tb_f32(&h, "conn", conn);
	tb_fstr(&h, "topic", topic);
	tb_fstr(&d, "topic", topic);
	tb_fstr(&d, "type", "std_msgs/UInt32");
	tb_fstr(&d, "md5sum", "304a39449588c7f8ce2df6e8001c5fce");
	tb_fstr(&d, "message_definition", "uint32 data\n");
	tb_record(out, &h, d.p, d.len);
	free(d.p);
}

static void tb_compress(const char *comp, const struct tb_buf *in, struct tb_buf *out, int flags)
{
	if (strcmp(comp, "bz2") == 0) {
		unsigned n = (unsigned)(in->len + in->len / 100 + 700);
		out->p = malloc(n);
		if (BZ2_bzBuffToBuffCompress((char *)out->p, &n, (char *)in->p, (unsigned)in->len,
		                             flags & TB_BZ2_SMALL_BLOCKS ? 1 : 9, 0, 30) != BZ_OK)
			abort();
		out->len = out->cap = n;
#ifdef HAVE_LZ4
	} else if (strcmp(comp, "lz4") == 0) {
		LZ4F_preferences_t prefs;
		memset(&prefs, 0, sizeof prefs);
		prefs.frameInfo.blockSizeID = flags & TB_LZ4_BIG_BLOCKS ? LZ4F_max1MB : LZ4F_max64KB;
		prefs.frameInfo.blockMode = LZ4F_blockIndependent;
		size_t n = LZ4F_compressFrameBound(in->len, &prefs);
		out->p = malloc(n);
		n = LZ4F_compressFrame(out->p, n, in->p, in->len, &prefs);
		if (LZ4F_isError(n))
			abort();
		out->len = out->cap = n;
#endif
	} else {
		out->p = malloc(in->len + 1);
		memcpy(out->p, in->p, in->len);
		out->len = out->cap = in->len;
	}
}

/* Build a bag from chunks into out. */
static void tb_build(struct tb_buf *out, const struct tb_chunk *chunks, size_t nchunks, int flags,
                     struct tb_layout *lay)
{
	bool seen[TB_MAX] = { false };
	uint32_t conn_ids[TB_MAX];
	struct tb_buf h = { 0 };
	size_t nconns = 0, hdr_data = 0;

	memset(lay, 0, sizeof *lay);
	tb_put(out, "#ROSBAG V2.0\n", 13);
	lay->header_pos = out->len;
	tb_f8(&h, "op", 3);
	tb_f64(&h, "index_pos", 0);
	tb_f32(&h, "conn_count", 0);
	tb_f32(&h, "chunk_count", (uint32_t)nchunks);
	{
		size_t hl = h.len;
		char pad[4096];
		memset(pad, ' ', sizeof pad);
		tb_record(out, &h, pad, 4096 - 8 - hl);
		hdr_data = lay->header_pos + 4;
	}
	for (size_t c = 0; c < nchunks; c++) {
		const struct tb_chunk *ch = &chunks[c];
		struct tb_buf body = { 0 }, z = { 0 };
		bool unterminated = (flags & TB_UNTERMINATED) && c + 1 == nchunks;

		lay->conn_off[c] = SIZE_MAX;
		for (size_t m = 0; m < ch->nmsgs; m++) {
			const struct tb_msg *msg = &ch->msgs[m];
			if (!seen[msg->conn]) {
				seen[msg->conn] = true;
				conn_ids[nconns++] = msg->conn;
				if (lay->conn_off[c] == SIZE_MAX)
					lay->conn_off[c] = body.len;
				tb_connection(&body, msg->conn);
			}
			lay->msg_off[c][m] = body.len;
			tb_f8(&h, "op", 2);
			tb_f32(&h, "conn", msg->conn);
			tb_f64(&h, "time", (uint64_t)msg->sec);
			{
				struct tb_buf d = { 0 };
				tb_u32(&d, msg->value);
				for (size_t k = 0; k < ch->pad; k++) {
					uint8_t x = (uint8_t)(k * 2654435761u >> 13 ^ m * 7 ^ c);
					tb_put(&d, &x, 1);
				}
				tb_record(&body, &h, d.p, d.len);
				free(d.p);
			}
		}
		tb_compress(ch->compression, &body, &z, flags);
		lay->chunk_pos[c] = out->len;
		tb_f8(&h, "op", 5);
		tb_fstr(&h, "compression", ch->compression);
		tb_f32(&h, "size", unterminated ? 0 : (uint32_t)body.len);
		tb_u32(out, (uint32_t)h.len);
		tb_put(out, h.p, h.len);
		free(h.p);
		memset(&h, 0, sizeof h);
		tb_u32(out, unterminated ? 0 : (uint32_t)z.len);
		lay->data_pos[c] = out->len;
		tb_put(out, z.p, z.len);
		lay->index_pos[c] = out->len;
		if (!(flags & TB_NO_INDEX_RECORDS) && !unterminated) {
			for (size_t k = 0; k < nconns; k++) {
				struct tb_buf d = { 0 };
				uint32_t n = 0;
				for (size_t m = 0; m < ch->nmsgs; m++) {
					if (ch->msgs[m].conn != conn_ids[k])
						continue;
					tb_u32(&d, ch->msgs[m].sec);
					tb_u32(&d, 0);
					tb_u32(&d, (uint32_t)lay->msg_off[c][m]);
					n++;
				}
				if (n == 0)
					continue;
				tb_f8(&h, "op", 4);
				tb_f32(&h, "ver", 1);
				tb_f32(&h, "conn", conn_ids[k]);
				tb_f32(&h, "count", n);
				tb_record(out, &h, d.p, d.len);
				free(d.p);
			}
		}
		free(body.p);
		free(z.p);
	}
	lay->nconns = nconns;
	if (flags & (TB_NO_INDEX_SECTION | TB_UNTERMINATED))
		return;
	lay->index_section = out->len;
	for (size_t k = 0; k < nconns; k++) {
		lay->conninfo_pos[k] = out->len;
		tb_connection(out, conn_ids[k]);
	}
	for (size_t c = 0; c < nchunks; c++) {
		const struct tb_chunk *ch = &chunks[c];
		struct tb_buf d = { 0 };
		uint32_t lo = UINT32_MAX, hi = 0, n = 0;
		for (size_t k = 0; k < nconns; k++) {
			uint32_t cnt = 0;
			for (size_t m = 0; m < ch->nmsgs; m++)
				cnt += ch->msgs[m].conn == conn_ids[k];
			if (cnt == 0)
				continue;
			tb_u32(&d, conn_ids[k]);
			tb_u32(&d, cnt);
			n++;
		}
		for (size_t m = 0; m < ch->nmsgs; m++) {
			lo = ch->msgs[m].sec < lo ? ch->msgs[m].sec : lo;
			hi = ch->msgs[m].sec > hi ? ch->msgs[m].sec : hi;
		}
		lay->chunkinfo_pos[c] = out->len;
		tb_f8(&h, "op", 6);
		tb_f32(&h, "ver", 1);
		tb_f64(&h, "chunk_pos", lay->chunk_pos[c]);
		tb_f64(&h, "start_time", lo);
		tb_f64(&h, "end_time", hi);
		tb_f32(&h, "count", n);
		tb_record(out, &h, d.p, d.len);
		free(d.p);
	}
	/* patch index_pos and conn_count in the bag header */
	{
		/* fields: op (4+4), index_pos (4+10+8), conn_count (4+11+4) */
		size_t at = hdr_data + 8 + 4 + 10;
		for (int i = 0; i < 8; i++)
			out->p[at + i] = (uint8_t)((uint64_t)lay->index_section >> (8 * i));
		tb_set32(out, hdr_data + 8 + 22 + 4 + 11, (uint32_t)nconns);
	}
}

/* Write b to a new temporary file; returns its path (static storage per slot). */
static const char *tb_write_tmp(const struct tb_buf *b, int slot)
{
	static char paths[4][64];
	char *p = paths[slot & 3];
	int fd;

	snprintf(p, sizeof paths[0], "/tmp/bagscope-test-XXXXXX");
	fd = mkstemp(p);
	if (fd < 0 || write(fd, b->p, b->len) != (ssize_t)b->len)
		abort();
	close(fd);
	return p;
}

#endif
