/*
 * test-corrupt.c - damage in the middle of an indexed bag: each class gives
 * an error naming the byte offset for the messages it touches (the rest of
 * the bag stays readable), or is skipped with a warning, or makes the index
 * unusable so that the bag is recovered by a scan. Bags are built by
 * bagbuild.h and patched byte by byte.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <bagscope/bagscope.h>
#include "bagbuild.h"

/* Three chunks of five messages, times 100.., 110.., 120..: three groups. */
static void three_chunks(struct tb_chunk *c, const char *comp)
{
	memset(c, 0, 3 * sizeof *c);
	for (int i = 0; i < 3; i++) {
		c[i].compression = comp;
		c[i].nmsgs = 5;
		for (int m = 0; m < 5; m++)
			c[i].msgs[m] = (struct tb_msg){ (uint32_t)(m % 2), (uint32_t)(100 + i * 10 + m),
			                                (uint32_t)(i * 100 + m) };
	}
}

struct outcome {
	int open_rc;
	char open_msg[512];
	bool recovered;
	size_t warnings;
	char warning[512];
	int rc[15];           /* per row, in time order (row = chunk * 5 + m) */
	char msg[15][512];
	uint64_t rows;
	uint32_t value[15];   /* each row's payload */
	size_t tl_warnings;   /* index damage the timeline worked around */
	char tl_warning[3][512];
	int view_rc;
};

/* Open b, read every row, and record what happened. */
static void run(const struct tb_buf *b, struct outcome *o)
{
	const char *path = tb_write_tmp(b, 0);
	bag_timeline_t *tl = NULL;
	bag_view_t *v = NULL;
	struct bag_recovery r;
	bag_t *bag;

	memset(o, 0, sizeof *o);
	o->open_rc = bag_open(&bag, path, NULL);
	unlink(path);
	snprintf(o->open_msg, sizeof o->open_msg, "%s", bag_last_error(bag)->message);
	if (o->open_rc != BAG_OK)
		goto done;
	bag_recovery_report(bag, &r);
	o->recovered = r.recovered;
	o->warnings = bag_warning_count(bag);
	if (o->warnings)
		snprintf(o->warning, sizeof o->warning, "%s", bag_warning(bag, 0));
	assert_int_equal(bag_timeline_open(&tl, &bag, 1), BAG_OK);
	o->view_rc = bag_view_open(&v, tl, NULL);
	if (o->view_rc != BAG_OK)
		goto done;
	/* the count can be corrected as groups load: ask again per row */
	for (uint64_t row = 0; row < bag_view_count(v) && row < 15; row++) {
		struct bag_message m;
		o->rc[row] = bag_view_read(v, row, &m);
		snprintf(o->msg[row], sizeof o->msg[row], "%s", o->rc[row] ? bag_view_error(v)->message : "");
		if (o->rc[row] == BAG_OK) {
			assert_int_equal(m.size, 4);
			o->value[row] = bag_le32(m.data);
		}
	}
	o->rows = bag_view_count(v);
	o->tl_warnings = bag_timeline_warning_count(tl);
	for (size_t i = 0; i < o->tl_warnings && i < 3; i++)
		snprintf(o->tl_warning[i], sizeof o->tl_warning[i], "%s", bag_timeline_warning(tl, i));
done:
	bag_view_free(v);
	bag_timeline_free(tl);
	bag_close(bag);
}

/* Rows [lo, hi) fail with code and a message holding want; the rest read. */
static void expect_rows(const struct outcome *o, int lo, int hi, int code, const char *want)
{
	assert_int_equal(o->open_rc, BAG_OK);
	assert_int_equal(o->rows, 15);
	for (int r = 0; r < 15; r++) {
		if (r >= lo && r < hi) {
			if (o->rc[r] != code || strstr(o->msg[r], want) == NULL)
				fail_msg("row %d: %s (%d), wanted '%s' (%d)", r, o->msg[r], o->rc[r], want, code);
			assert_null(strchr(o->msg[r], '\n'));
		} else if (o->rc[r] != BAG_OK) {
			fail_msg("row %d should read: %s", r, o->msg[r]);
		}
	}
}

static void at_byte(char *buf, size_t n, size_t off)
{
	snprintf(buf, n, "at byte %zu:", off);
}

/* Offset of the value of field name in the header of the record at rec. */
static size_t field_at(const struct tb_buf *b, size_t rec, const char *name)
{
	char pat[32];
	snprintf(pat, sizeof pat, "%s=", name);
	const uint8_t *p = memmem(b->p + rec + 4, b->p[rec] | b->p[rec + 1] << 8, pat, strlen(pat));
	assert_non_null(p);
	return (size_t)(p - b->p) + strlen(pat);
}

static void test_corrupt_compressed_data(void **state)
{
	const char *comps[] = { "bz2",
#ifdef HAVE_LZ4
	                        "lz4",
#endif
	};
	for (size_t k = 0; k < sizeof comps / sizeof *comps; k++) {
		struct tb_chunk c[3];
		struct tb_layout lay;
		struct tb_buf b = { 0 };
		struct outcome o;
		char want[64];

		three_chunks(c, comps[k]);
		tb_build(&b, c, 3, 0, &lay);
		for (size_t i = lay.data_pos[1] + 12; i < lay.index_pos[1] - 8; i++)
			b.p[i] ^= 0xa5;
		run(&b, &o);
		at_byte(want, sizeof want, lay.chunk_pos[1]);
		expect_rows(&o, 5, 10, BAG_ECOMPRESS, want);
		free(b.p);
	}
}

static void test_wrong_decompressed_size(void **state)
{
	struct tb_chunk c[3];
	struct tb_layout lay;
	struct tb_buf b = { 0 };
	struct outcome o;
	char want[64];

	three_chunks(c, "bz2");
	tb_build(&b, c, 3, 0, &lay);
	size_t at = field_at(&b, lay.chunk_pos[2], "size");
	tb_set32(&b, at, bag_le32(b.p + at) + 7);
	run(&b, &o);
	at_byte(want, sizeof want, lay.chunk_pos[2]);
	expect_rows(&o, 10, 15, BAG_ECOMPRESS, want);
	assert_non_null(strstr(o.msg[10], "decompresses to"));
	free(b.p);

	/* an uncompressed chunk whose size disagrees with its data_len */
	memset(&b, 0, sizeof b);
	three_chunks(c, "none");
	tb_build(&b, c, 3, 0, &lay);
	at = field_at(&b, lay.chunk_pos[0], "size");
	tb_set32(&b, at, bag_le32(b.p + at) - 1);
	run(&b, &o);
	at_byte(want, sizeof want, lay.chunk_pos[0]);
	expect_rows(&o, 0, 5, BAG_ECORRUPT, want);
	assert_non_null(strstr(o.msg[0], "uncompressed chunk holds"));
	free(b.p);
}

/* Every row reads, in time order, with the payload three_chunks() gave it. */
static void expect_all_rows(const struct outcome *o)
{
	static const uint32_t want[15] = { 0, 1, 2, 3, 4, 100, 101, 102, 103, 104, 200, 201, 202, 203, 204 };

	assert_int_equal(o->open_rc, BAG_OK);
	assert_int_equal(o->rows, 15);
	for (int r = 0; r < 15; r++) {
		if (o->rc[r] != BAG_OK)
			fail_msg("row %d: %s", r, o->msg[r]);
		assert_int_equal(o->value[r], want[r]);
	}
}

/*
 * Index entries that point at the wrong record, connection or time, or into
 * the middle of a record, while the chunks are intact: each damaged chunk is
 * indexed from its data when it is first read (one warning each), and every
 * message reads.
 */
static void test_index_entry_damage(void **state)
{
	struct tb_chunk c[3];
	struct tb_layout lay;
	struct tb_buf b = { 0 };
	struct outcome o;
	char want[64];

	three_chunks(c, "none");
	tb_build(&b, c, 3, 0, &lay);
	/* chunk 0's first index record (conn 0): entry 0 -> the connection record */
	size_t ent = lay.index_pos[0] + 4 + (b.p[lay.index_pos[0]]) + 4;
	tb_set32(&b, ent + 8, (uint32_t)lay.conn_off[0]);
	/* chunk 1, entry 0 of conn 0: time off by one second */
	size_t ent1 = lay.index_pos[1] + 4 + (b.p[lay.index_pos[1]]) + 4;
	tb_set32(&b, ent1, 99);
	/* chunk 2, entry 0 of conn 0: into the middle of a record */
	size_t ent2 = lay.index_pos[2] + 4 + (b.p[lay.index_pos[2]]) + 4;
	tb_set32(&b, ent2 + 8, (uint32_t)lay.msg_off[2][0] + 3);
	run(&b, &o);
	expect_all_rows(&o);
	assert_int_equal(o.tl_warnings, 3);
	for (int k = 0; k < 3; k++) {
		at_byte(want, sizeof want, lay.chunk_pos[k]);
		assert_non_null(strstr(o.tl_warning[k], want));
		assert_non_null(strstr(o.tl_warning[k], "do not match its 5 messages"));
	}
	free(b.p);

	/* two message records swapped in an uncompressed chunk */
	memset(&b, 0, sizeof b);
	tb_build(&b, c, 3, 0, &lay);
	size_t m1 = lay.data_pos[1] + lay.msg_off[1][1], m2 = lay.data_pos[1] + lay.msg_off[1][2];
	size_t l1 = m2 - m1, l2 = lay.msg_off[1][3] - lay.msg_off[1][2];
	uint8_t tmp[256];
	memcpy(tmp, b.p + m1, l1);
	memmove(b.p + m1, b.p + m2, l2);
	memcpy(b.p + m1 + l2, tmp, l1);
	run(&b, &o);
	expect_all_rows(&o);
	assert_int_equal(o.tl_warnings, 1);
	free(b.p);
}

/*
 * A chunk info whose count disagrees with the chunk's index data: what the
 * index data and the chunk hold is trusted (rosbag's reader lists them all).
 */
static void test_chunk_info_count_mismatch(void **state)
{
	struct tb_chunk c[3];
	struct tb_layout lay;
	struct tb_buf b = { 0 };
	struct outcome o;
	char want[64];

	three_chunks(c, "none");
	tb_build(&b, c, 3, 0, &lay);
	size_t ci = lay.chunkinfo_pos[1];
	size_t data = ci + 4 + (b.p[ci] | b.p[ci + 1] << 8) + 4;
	tb_set32(&b, data + 4, 2);       /* conn 0 has 3 messages in chunk 1 */
	run(&b, &o);
	expect_all_rows(&o);
	assert_int_equal(o.tl_warnings, 1);
	at_byte(want, sizeof want, lay.index_pos[1]);
	assert_non_null(strstr(o.tl_warning[0], want));
	assert_non_null(strstr(o.tl_warning[0], "index data for connection 0 holds 3 entries"));
	assert_non_null(strstr(o.tl_warning[0], "the chunk is indexed from its data"));
	free(b.p);

	/* one more than the chunk holds, in the first of three groups */
	memset(&b, 0, sizeof b);
	tb_build(&b, c, 3, 0, &lay);
	ci = lay.chunkinfo_pos[0];
	data = ci + 4 + (b.p[ci] | b.p[ci + 1] << 8) + 4;
	tb_set32(&b, data + 4, 4);
	run(&b, &o);
	expect_all_rows(&o);
	free(b.p);
}

/*
 * A chunk info whose chunk_pos misses its chunk record: the chunk record
 * between its neighbours is read instead, with a warning.
 */
static void test_chunk_pos_damaged(void **state)
{
	struct tb_chunk c[3];
	struct tb_layout lay;
	struct tb_buf b = { 0 };
	struct outcome o;

	three_chunks(c, "bz2");
	for (int k = 0; k < 3; k++) {
		memset(&b, 0, sizeof b);
		tb_build(&b, c, 3, 0, &lay);
		size_t at = field_at(&b, lay.chunkinfo_pos[k], "chunk_pos");
		tb_set32(&b, at, (uint32_t)lay.chunk_pos[k] + (k == 1 ? 17 : 1));
		run(&b, &o);
		expect_all_rows(&o);
		free(b.p);
	}
}

/* An index record naming a connection that does not exist: the chunk is read from its data. */
static void test_index_names_undefined_connection(void **state)
{
	struct tb_chunk c[3];
	struct tb_layout lay;
	struct tb_buf b = { 0 };
	struct outcome o;
	char want[64];

	three_chunks(c, "none");
	tb_build(&b, c, 3, 0, &lay);
	tb_set32(&b, field_at(&b, lay.index_pos[2], "conn"), 42);
	run(&b, &o);
	expect_all_rows(&o);
	at_byte(want, sizeof want, lay.index_pos[2]);
	assert_int_equal(o.tl_warnings, 1);
	assert_non_null(strstr(o.tl_warning[0], want));
	assert_non_null(strstr(o.tl_warning[0], "index data for connection 42"));
	free(b.p);
}

/*
 * An unknown op code in the index section is skipped with a warning; a
 * record after the counted ones is left unread (as rosbag does), with a
 * warning naming the bytes.
 */
static void test_unknown_op_skipped(void **state)
{
	struct tb_chunk c[3];
	struct tb_layout lay;
	struct tb_buf b = { 0 }, h = { 0 }, in = { 0 };
	struct outcome o;
	char want[128];

	three_chunks(c, "none");
	tb_build(&b, c, 3, 0, &lay);
	/* inside the section: before its first record (index_pos points at it) */
	tb_put(&in, b.p, lay.index_section);
	tb_f8(&h, "op", 0x42);
	tb_record(&in, &h, "xyz", 3);
	tb_put(&in, b.p + lay.index_section, b.len - lay.index_section);
	run(&in, &o);
	expect_rows(&o, 0, 0, 0, "");
	assert_false(o.recovered);
	assert_int_equal(o.warnings, 1);
	snprintf(want, sizeof want, "at byte %zu: record with op 66 in the index section skipped",
	         lay.index_section);
	assert_non_null(strstr(o.warning, want));
	/* after the last counted record */
	size_t at = b.len;
	tb_f8(&h, "op", 0x42);
	tb_record(&b, &h, "xyz", 3);
	run(&b, &o);
	expect_rows(&o, 0, 0, 0, "");
	assert_false(o.recovered);
	assert_int_equal(o.warnings, 1);
	snprintf(want, sizeof want, "at byte %zu: %zu bytes after the index section's last record left unread",
	         at, b.len - at);
	assert_non_null(strstr(o.warning, want));
	free(b.p);
	free(in.p);
}

/* Damage that makes the index section unusable: the bag is recovered. */
static void test_index_section_damage_recovers(void **state)
{
	struct tb_chunk c[3];
	struct tb_layout lay;
	struct tb_buf b = { 0 };
	struct outcome o;

	three_chunks(c, "none");
	tb_build(&b, c, 3, 0, &lay);
	uint8_t *op = memmem(b.p + lay.chunkinfo_pos[0], 32, "op=\x06", 4);
	assert_non_null(op);
	op[0] = 'q';                                      /* a record without op */
	run(&b, &o);
	expect_rows(&o, 0, 0, 0, "");
	assert_true(o.recovered);
	free(b.p);

	memset(&b, 0, sizeof b);
	tb_build(&b, c, 3, 0, &lay);
	tb_set32(&b, lay.chunkinfo_pos[2], 0xFFFFFFFF);   /* header_len 0xFFFFFFFF */
	run(&b, &o);
	expect_rows(&o, 0, 0, 0, "");
	assert_true(o.recovered);
	free(b.p);

	memset(&b, 0, sizeof b);
	tb_build(&b, c, 3, 0, &lay);
	/* a chunk info counting more messages than the file could index */
	size_t ci = lay.chunkinfo_pos[1];
	tb_set32(&b, ci + 4 + (b.p[ci] | b.p[ci + 1] << 8) + 4 + 4, 0x7fffffff);
	{
		struct bag_open_opts strict = { .size = sizeof(struct bag_open_opts), .no_recover = true };
		const char *path = tb_write_tmp(&b, 1);
		bag_t *bag;
		char want[128];
		assert_int_equal(bag_open(&bag, path, &strict), BAG_ENOINDEX);
		snprintf(want, sizeof want, "chunk at byte %zu counts 2147483649 messages, more than", lay.chunk_pos[1]);
		if (strstr(bag_last_error(bag)->message, want) == NULL)
			fail_msg("%s", bag_last_error(bag)->message);
		bag_close(bag);
		unlink(path);
	}
	run(&b, &o);
	expect_rows(&o, 0, 0, 0, "");
	assert_true(o.recovered);
	free(b.p);

	memset(&b, 0, sizeof b);
	tb_build(&b, c, 3, 0, &lay);
	/* a field length running past its header */
	tb_set32(&b, lay.chunkinfo_pos[1] + 4, 0x10000);
	run(&b, &o);
	expect_rows(&o, 0, 0, 0, "");
	assert_true(o.recovered);
	free(b.p);
}

/* Damaged chunk records in an indexed bag: errors for that chunk only. */
static void test_chunk_record_lengths(void **state)
{
	struct tb_chunk c[3];
	struct tb_layout lay;
	struct tb_buf b = { 0 };
	struct outcome o;
	char want[64];

	three_chunks(c, "bz2");
	tb_build(&b, c, 3, 0, &lay);
	tb_set32(&b, lay.data_pos[1] - 4, 0xFFFFFFFF);    /* data_len */
	run(&b, &o);
	at_byte(want, sizeof want, lay.chunk_pos[1]);
	expect_rows(&o, 5, 10, BAG_ETRUNCATED, want);
	free(b.p);

	memset(&b, 0, sizeof b);
	tb_build(&b, c, 3, 0, &lay);
	tb_set32(&b, lay.chunk_pos[0], 0xFFFFFFFF);       /* header_len */
	run(&b, &o);
	at_byte(want, sizeof want, lay.chunk_pos[0]);
	expect_rows(&o, 0, 5, BAG_ETRUNCATED, want);
	free(b.p);

	/* a size no compression ratio justifies: refused before allocating */
	memset(&b, 0, sizeof b);
	tb_build(&b, c, 3, 0, &lay);
	tb_set32(&b, field_at(&b, lay.chunk_pos[2], "size"), 0xFFFFFFF0);
	run(&b, &o);
	at_byte(want, sizeof want, lay.chunk_pos[2]);
	expect_rows(&o, 10, 15, BAG_ECORRUPT, want);
	assert_non_null(strstr(o.msg[10], "implausible"));
	free(b.p);

	/* a chunk info pointing at something that is not a chunk */
	memset(&b, 0, sizeof b);
	tb_build(&b, c, 3, 0, &lay);
	uint8_t *op = memmem(b.p + lay.chunk_pos[2], 64, "op=\x05", 4);
	op[3] = 0x09;
	run(&b, &o);
	at_byte(want, sizeof want, lay.chunk_pos[2]);
	expect_rows(&o, 10, 15, BAG_ECORRUPT, want);
	assert_non_null(strstr(o.msg[10], "not a chunk"));
	free(b.p);
}

/* A file whose first record is not a bag header. */
static void test_bad_bag_header(void **state)
{
	struct tb_chunk c[3];
	struct tb_layout lay;
	struct tb_buf b = { 0 };
	struct outcome o;

	three_chunks(c, "none");
	tb_build(&b, c, 3, 0, &lay);
	uint8_t *op = memmem(b.p + lay.header_pos, 32, "op=\x03", 4);
	op[3] = 0x02;
	run(&b, &o);
	assert_int_equal(o.open_rc, BAG_ECORRUPT);
	assert_non_null(strstr(o.open_msg, "at byte 13: first record is not a bag header"));
	free(b.p);

	/* a padding length past the end of the file: the fields still count */
	memset(&b, 0, sizeof b);
	tb_build(&b, c, 3, 0, &lay);
	size_t hlen = bag_le32(b.p + lay.header_pos);
	tb_set32(&b, lay.header_pos + 4 + hlen, (uint32_t)b.len + 100);
	run(&b, &o);
	expect_all_rows(&o);
	assert_false(o.recovered);
	assert_int_equal(o.warnings, 1);
	assert_non_null(strstr(o.warning, "at byte 13: bag header's padding length"));
	free(b.p);

	/* and without an index section: the scan searches for the first chunk */
	memset(&b, 0, sizeof b);
	tb_build(&b, c, 3, TB_NO_INDEX_SECTION, &lay);
	tb_set32(&b, lay.header_pos + 4 + hlen, 0xFFFFFFF0);
	run(&b, &o);
	expect_all_rows(&o);
	assert_true(o.recovered);
	free(b.p);
}

struct found {
	size_t n;
	uint64_t off[32];
	int code[32];
	char text[32][512];
};

static int collect(void *arg, const struct bag_finding *f)
{
	struct found *fd = arg;

	if (fd->n < 32) {
		fd->off[fd->n] = f->offset;
		fd->code[fd->n] = f->code;
		snprintf(fd->text[fd->n], sizeof fd->text[0], "%s", f->text);
	}
	fd->n++;
	return 0;
}

/* bag_check on b; returns its findings. */
static void run_check(const struct tb_buf *b, unsigned flags, struct found *fd, struct bag_check_stats *st)
{
	const char *path = tb_write_tmp(b, 0);
	bag_t *bag;

	memset(fd, 0, sizeof *fd);
	assert_int_equal(bag_open(&bag, path, NULL), BAG_OK);
	unlink(path);
	assert_int_equal(bag_check(bag, flags, collect, fd, st), BAG_OK);
	assert_int_equal(st->findings, fd->n);
	bag_close(bag);
}

static void test_check(void **state)
{
	struct tb_chunk c[3];
	struct tb_layout lay;
	struct tb_buf b = { 0 };
	struct found fd;
	struct bag_check_stats st;

	three_chunks(c, "bz2");
	tb_build(&b, c, 3, 0, &lay);
	run_check(&b, 0, &fd, &st);
	assert_int_equal(fd.n, 0);
	assert_int_equal(st.chunks, 3);
	assert_int_equal(st.messages, 15);
	assert_int_equal(st.records, 3 + 6 + 2 + 3);

	/* a corrupt chunk: the full check sees it, the quick one does not read data */
	for (size_t i = lay.data_pos[1] + 12; i < lay.index_pos[1] - 8; i++)
		b.p[i] ^= 0xa5;
	run_check(&b, BAG_CHECK_QUICK, &fd, &st);
	assert_int_equal(fd.n, 0);
	assert_int_equal(st.chunks, 0);
	run_check(&b, 0, &fd, &st);
	/* one fault, one line: the chunk, not again for each of its messages */
	assert_int_equal(fd.n, 1);
	assert_int_equal(fd.off[0], lay.chunk_pos[1]);
	assert_int_equal(fd.code[0], BAG_ECOMPRESS);
	assert_null(strstr(fd.text[0], "at byte"));
	assert_int_equal(st.messages, 15);
	free(b.p);

	/* a chunk-info count the index disagrees with: found by --quick */
	memset(&b, 0, sizeof b);
	tb_build(&b, c, 3, 0, &lay);
	size_t ci = lay.chunkinfo_pos[2];
	size_t data = ci + 4 + (b.p[ci] | b.p[ci + 1] << 8) + 4;
	tb_set32(&b, data + 4, 2);
	run_check(&b, BAG_CHECK_QUICK, &fd, &st);
	assert_true(fd.n >= 1);
	assert_non_null(strstr(fd.text[0], "index data for connection 0 holds 3 entries"));
	free(b.p);

	/* an md5sum that is not the definition's */
	memset(&b, 0, sizeof b);
	tb_build(&b, c, 3, 0, &lay);
	uint8_t *md5 = memmem(b.p + lay.conninfo_pos[1], 200, "md5sum=304a", 11);
	assert_non_null(md5);
	md5[7] = 'f';
	run_check(&b, 0, &fd, &st);
	assert_int_equal(fd.n, 1);
	assert_int_equal(fd.code[0], BAG_EDEFINITION);
	assert_non_null(strstr(fd.text[0], "md5sum f04a39449588c7f8ce2df6e8001c5fce, the definition's is 304a"));
	free(b.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corrupt_compressed_data),
		cmocka_unit_test(test_wrong_decompressed_size),
		cmocka_unit_test(test_index_entry_damage),
		cmocka_unit_test(test_chunk_info_count_mismatch),
		cmocka_unit_test(test_chunk_pos_damaged),
		cmocka_unit_test(test_index_names_undefined_connection),
		cmocka_unit_test(test_unknown_op_skipped),
		cmocka_unit_test(test_index_section_damage_recovers),
		cmocka_unit_test(test_chunk_record_lengths),
		cmocka_unit_test(test_bad_bag_header),
		cmocka_unit_test(test_check),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
