/*
 * test-recover.c - opening bags whose index cannot be used: the broken
 * fixtures (against what `rosbag reindex` recovers) and hand-made bags for
 * each way an index goes missing: never written, cut off, unparsable; chunks
 * without index records, unterminated, truncated (none, bz2, lz4); progress
 * and cancel.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <bagscope/bagscope.h>
#include "bagbuild.h"

#define FIX TEST_DATA_DIR "/fixtures/"

/* Read every message of bag through a view; returns rows read, counts errors. */
static uint64_t read_all(bag_t *bag, uint64_t *errors, char *first_err, size_t errlen)
{
	bag_timeline_t *tl;
	bag_view_t *v;
	struct bag_message m;
	uint64_t ok = 0;

	*errors = 0;
	if (first_err)
		first_err[0] = '\0';
	assert_int_equal(bag_timeline_open(&tl, &bag, 1), BAG_OK);
	assert_int_equal(bag_view_open(&v, tl, NULL), BAG_OK);
	for (uint64_t r = 0; r < bag_view_count(v); r++) {
		if (bag_view_read(v, r, &m) == BAG_OK) {
			ok++;
		} else {
			if (*errors == 0 && first_err)
				snprintf(first_err, errlen, "%s", bag_view_error(v)->message);
			(*errors)++;
		}
	}
	bag_view_free(v);
	bag_timeline_free(tl);
	return ok;
}

static bag_t *open_ok(const char *path)
{
	bag_t *bag;
	int rc = bag_open(&bag, path, NULL);

	if (rc != BAG_OK)
		fail_msg("%s: %s", bag_strerror(rc), bag_last_error(bag)->message);
	return bag;
}

/* Each (topic, time_ns) of a recovered.jsonl reference must be in the bag. */
static void check_reference(bag_t *bag, const char *jsonl, size_t want)
{
	FILE *f = fopen(jsonl, "r");
	char line[65536];
	size_t n = 0;
	bag_timeline_t *tl;
	bag_view_t *v;

	assert_non_null(f);
	assert_int_equal(bag_timeline_open(&tl, &bag, 1), BAG_OK);
	assert_int_equal(bag_view_open(&v, tl, NULL), BAG_OK);
	while (fgets(line, sizeof line, f) != NULL) {
		char topic[256];
		long long t;
		const char *p = strstr(line, "\"topic\":"), *q = strstr(line, "\"time_ns\":");
		assert_non_null(p);
		assert_non_null(q);
		assert_int_equal(sscanf(p + 8, " \"%255[^\"]", topic), 1);
		assert_int_equal(sscanf(q + 10, " %lld", &t), 1);
		uint64_t row;
		struct bag_message m;
		bool found = false;
		assert_int_equal(bag_view_seek(v, t, &row), BAG_OK);
		for (; row < bag_view_count(v); row++) {
			assert_int_equal(bag_view_read(v, row, &m), BAG_OK);
			if (m.time_ns != t)
				break;
			found |= strcmp(m.conn->topic, topic) == 0;
		}
		if (!found)
			fail_msg("%s at %lld not recovered", topic, t);
		n++;
	}
	fclose(f);
	assert_int_equal(n, want);
	bag_view_free(v);
	bag_timeline_free(tl);
}

static void test_crashed_fixture(void **state)
{
	bag_t *bag = open_ok(FIX "broken/crashed_none.bag");
	struct bag_recovery r;
	uint64_t errors;

	bag_recovery_report(bag, &r);
	assert_true(r.recovered);
	assert_non_null(strstr(r.reason, "index_pos is 0"));
	/* rosbag reindex recovers 42; the unterminated last chunk holds 3 more */
	assert_true(bag_message_count(bag) >= 42);
	assert_int_equal(bag_message_count(bag), 45);
	assert_int_equal(r.messages, 45);
	assert_int_equal(r.chunks, 5);
	assert_int_equal(r.chunks_scanned, 1);
	assert_int_equal(r.chunks_failed, 0);
	assert_int_equal(r.trailing_bytes, 0);
	assert_int_equal(read_all(bag, &errors, NULL, 0), 45);
	assert_int_equal(errors, 0);
	check_reference(bag, FIX "expected/broken/crashed_none.recovered.jsonl", 42);
	bag_close(bag);
}

static void test_truncated_fixture(void **state)
{
	bag_t *bag = open_ok(FIX "broken/truncated_bz2.bag");
	struct bag_recovery r;
	uint64_t errors;

	bag_recovery_report(bag, &r);
	assert_true(r.recovered);
	assert_non_null(strstr(r.reason, "outside the file"));
	assert_int_equal(bag_message_count(bag), 7);   /* rosbag reindex: 7 */
	assert_int_equal(r.chunks, 2);
	assert_int_equal(r.chunks_failed, 1);
	assert_int_equal(r.records_end, 7935);
	assert_int_equal(r.trailing_bytes, 8334 - 7935);
	assert_int_equal(r.nlosses, 1);
	const struct bag_loss *l = bag_recovery_loss(bag, 0);
	assert_int_equal(l->chunk_pos, 7935);
	assert_int_equal(l->start, 7935);
	assert_int_equal(l->end, 8334);
	assert_non_null(strstr(l->what, "cut off"));
	assert_null(bag_recovery_loss(bag, 1));
	assert_int_equal(read_all(bag, &errors, NULL, 0), 7);
	assert_int_equal(errors, 0);
	check_reference(bag, FIX "expected/broken/truncated_bz2.recovered.jsonl", 7);
	bag_close(bag);
}

static void test_no_recover_option(void **state)
{
	struct bag_open_opts o = { .size = sizeof(struct bag_open_opts), .no_recover = true };
	bag_t *bag;

	assert_int_equal(bag_open(&bag, FIX "broken/crashed_none.bag", &o), BAG_ENOINDEX);
	assert_non_null(strstr(bag_last_error(bag)->message, "at byte 13: index_pos is 0"));
	bag_close(bag);
}

static void test_good_bag_not_recovered(void **state)
{
	bag_t *bag = open_ok(FIX "bags/nested_bz2.bag");
	struct bag_recovery r;

	bag_recovery_report(bag, &r);
	assert_false(r.recovered);
	assert_string_equal(r.reason, "");
	assert_int_equal(r.nlosses, 0);
	assert_int_equal(bag_warning_count(bag), 0);
	bag_close(bag);
}

/* Three chunks, two connections, messages a little out of order. */
static void three_chunks(struct tb_chunk *c, const char *comp)
{
	memset(c, 0, 3 * sizeof *c);
	for (int i = 0; i < 3; i++) {
		c[i].compression = comp;
		c[i].nmsgs = 5;
		for (int m = 0; m < 5; m++)
			c[i].msgs[m] = (struct tb_msg){ (uint32_t)(m % 2), (uint32_t)(100 + i * 10 + (m ^ 1)),
			                                (uint32_t)(i * 100 + m) };
	}
}

/* Build, open (must recover), and check every message reads in time order. */
static bag_t *build_open(const struct tb_chunk *c, size_t n, int flags, struct tb_layout *lay,
                         struct tb_buf *b, size_t cut)
{
	const char *path;
	bag_t *bag;
	int rc;

	memset(b, 0, sizeof *b);
	tb_build(b, c, n, flags, lay);
	if (cut)
		b->len = cut;
	path = tb_write_tmp(b, 0);
	rc = bag_open(&bag, path, NULL);
	unlink(path);
	if (rc != BAG_OK)
		fail_msg("%s", bag_last_error(bag)->message);
	return bag;
}

static void check_order(bag_t *bag)
{
	bag_timeline_t *tl;
	bag_view_t *v;
	struct bag_message m;
	int64_t last = INT64_MIN;

	assert_int_equal(bag_timeline_open(&tl, &bag, 1), BAG_OK);
	assert_int_equal(bag_view_open(&v, tl, NULL), BAG_OK);
	for (uint64_t r = 0; r < bag_view_count(v); r++) {
		assert_int_equal(bag_view_read(v, r, &m), BAG_OK);
		assert_true(m.time_ns >= last);
		last = m.time_ns;
		assert_true(m.size >= 4);
	}
	bag_view_free(v);
	bag_timeline_free(tl);
}

static void test_index_pos_zero_with_index_records(void **state)
{
	struct tb_chunk c[3];
	struct tb_layout lay;
	struct tb_buf b;
	struct bag_recovery r;

	three_chunks(c, "bz2");
	bag_t *bag = build_open(c, 3, TB_NO_INDEX_SECTION, &lay, &b, 0);
	bag_recovery_report(bag, &r);
	assert_true(r.recovered);
	assert_int_equal(bag_message_count(bag), 15);
	assert_int_equal(r.chunks_scanned, 0);  /* counts came from the index records */
	assert_int_equal(bag_conn_count(bag), 2);
	assert_string_equal(bag_conn(bag, 1)->topic, "/t1");
	assert_int_equal(bag_conn(bag, 0)->message_count, 9);
	assert_int_equal(bag_start_time(bag), 100 * BAG_NSEC_PER_SEC);
	assert_int_equal(bag_end_time(bag), 125 * BAG_NSEC_PER_SEC);
	check_order(bag);
	bag_close(bag);
	free(b.p);
}

static void test_no_index_records_anywhere(void **state)
{
	const char *comps[] = { "none", "bz2",
#ifdef HAVE_LZ4
	                        "lz4",
#endif
	};
	for (size_t k = 0; k < sizeof comps / sizeof *comps; k++) {
		struct tb_chunk c[3];
		struct tb_layout lay;
		struct tb_buf b;
		struct bag_recovery r;
		uint64_t errors;

		three_chunks(c, comps[k]);
		bag_t *bag = build_open(c, 3, TB_NO_INDEX_SECTION | TB_NO_INDEX_RECORDS, &lay, &b, 0);
		bag_recovery_report(bag, &r);
		assert_int_equal(bag_message_count(bag), 15);
		assert_int_equal(r.chunks_scanned, 3);
		assert_int_equal(r.nlosses, 0);
		assert_int_equal(read_all(bag, &errors, NULL, 0), 15);
		assert_int_equal(errors, 0);
		check_order(bag);
		bag_close(bag);
		free(b.p);
	}
}

/* A recording killed in its very first chunk: connection records come first. */
static void test_unterminated_first_chunk(void **state)
{
	struct tb_chunk c[3];
	struct tb_layout lay;
	struct tb_buf b;
	struct bag_recovery r;

	three_chunks(c, "none");
	bag_t *bag = build_open(c, 1, TB_UNTERMINATED, &lay, &b, 0);
	bag_recovery_report(bag, &r);
	assert_int_equal(bag_message_count(bag), 5);
	assert_int_equal(bag_conn_count(bag), 2);
	assert_int_equal(r.nlosses, 0);
	check_order(bag);
	bag_close(bag);
	free(b.p);
}

/* The last chunk cut mid-record: its whole records are kept. */
static void test_truncated_none_chunk(void **state)
{
	struct tb_chunk c[3];
	struct tb_layout lay;
	struct tb_buf b;
	struct bag_recovery r;

	struct tb_buf probe = { 0 };

	three_chunks(c, "none");
	/* cut 3 bytes into the 4th message of chunk 2 */
	tb_build(&probe, c, 3, 0, &lay);
	free(probe.p);
	size_t cut = lay.data_pos[2] + lay.msg_off[2][3] + 3;
	bag_t *bag = build_open(c, 3, 0, &lay, &b, cut);
	bag_recovery_report(bag, &r);
	assert_int_equal(bag_message_count(bag), 13);
	assert_int_equal(r.chunks_partial, 1);
	assert_int_equal(r.nlosses, 1);
	assert_int_equal(bag_recovery_loss(bag, 0)->start, lay.data_pos[2] + lay.msg_off[2][3]);
	assert_int_equal(bag_recovery_loss(bag, 0)->end, cut);
	assert_int_equal(r.records_end, lay.data_pos[2] + lay.msg_off[2][3]);
	assert_int_equal(r.trailing_bytes, 3);
	check_order(bag);
	bag_close(bag);
	free(b.p);
}

/* Compressed chunks cut off: whatever whole blocks come before the cut. */
static void cut_compressed(const char *comp, int flags)
{
	struct tb_chunk c[2];
	struct tb_layout lay;
	struct tb_buf b, probe = { 0 };
	struct bag_recovery r;
	uint64_t errors;

	memset(c, 0, sizeof c);
	for (int i = 0; i < 2; i++) {
		c[i].compression = comp;
		c[i].nmsgs = 60;
		c[i].pad = 6000;  /* 360 KB per chunk: several bz2/lz4 blocks */
		for (int m = 0; m < 60; m++)
			c[i].msgs[m] = (struct tb_msg){ 0, (uint32_t)(10 + i * 100 + m), (uint32_t)m };
	}
	tb_build(&probe, c, 2, flags, &lay);
	free(probe.p);
	size_t cut = lay.data_pos[1] + (lay.index_pos[1] - lay.data_pos[1]) * 2 / 3;
	bag_t *bag = build_open(c, 2, flags, &lay, &b, cut);
	bag_recovery_report(bag, &r);
	/* all of chunk 0, a part of chunk 1 */
	assert_true(bag_message_count(bag) > 60);
	assert_true(bag_message_count(bag) < 120);
	assert_int_equal(r.chunks_partial, 1);
	assert_int_equal(r.nlosses, 1);
	assert_int_equal(bag_recovery_loss(bag, 0)->chunk_pos, lay.chunk_pos[1]);
	assert_int_equal(read_all(bag, &errors, NULL, 0), bag_message_count(bag));
	assert_int_equal(errors, 0);
	check_order(bag);
	bag_close(bag);
	free(b.p);
}

static void test_truncated_bz2_blocks(void **state)
{
	cut_compressed("bz2", TB_BZ2_SMALL_BLOCKS);
}

static void test_truncated_lz4_blocks(void **state)
{
#ifdef HAVE_LZ4
	cut_compressed("lz4", 0);
#else
	skip();
#endif
}

/*
 * A cut-off lz4 chunk written as rosbag writes it: one 1 MB block, which
 * liblz4 hands out only whole. The sequences before the cut still give the
 * messages in them.
 */
static void test_truncated_lz4_one_block(void **state)
{
#ifdef HAVE_LZ4
	struct tb_chunk c[2];
	struct tb_layout lay;
	struct tb_buf b, probe = { 0 };
	struct bag_recovery r;
	uint64_t errors;

	memset(c, 0, sizeof c);
	for (int i = 0; i < 2; i++) {
		c[i].compression = "lz4";
		c[i].nmsgs = 60;
		c[i].pad = 6000;
		for (int m = 0; m < 60; m++)
			c[i].msgs[m] = (struct tb_msg){ 0, (uint32_t)(10 + i * 100 + m), (uint32_t)m };
	}
	tb_build(&probe, c, 2, TB_LZ4_BIG_BLOCKS, &lay);
	free(probe.p);
	size_t cut = lay.data_pos[1] + (lay.index_pos[1] - lay.data_pos[1]) / 2;
	bag_t *bag = build_open(c, 2, TB_LZ4_BIG_BLOCKS, &lay, &b, cut);
	bag_recovery_report(bag, &r);
	/* all of chunk 0 and about half of chunk 1 (not nothing) */
	assert_true(bag_message_count(bag) >= 60 + 25);
	assert_true(bag_message_count(bag) < 120);
	assert_int_equal(r.chunks_partial, 1);
	assert_int_equal(read_all(bag, &errors, NULL, 0), bag_message_count(bag));
	assert_int_equal(errors, 0);
	check_order(bag);
	bag_close(bag);
	free(b.p);
#else
	skip();
#endif
}

static void test_index_section_unusable(void **state)
{
	struct tb_chunk c[3];
	struct tb_layout lay;
	struct tb_buf b = { 0 };
	struct bag_recovery r;
	bag_t *bag;

	three_chunks(c, "bz2");
	tb_build(&b, c, 3, 0, &lay);
	/* chunk info 1's first (conn, count) names connection 77 */
	size_t ci = lay.chunkinfo_pos[1];
	size_t data = ci + 4 + (b.p[ci] | b.p[ci + 1] << 8) + 4;
	tb_set32(&b, data, 77);
	const char *path = tb_write_tmp(&b, 0);
	assert_int_equal(bag_open(&bag, path, NULL), BAG_OK);
	bag_recovery_report(bag, &r);
	assert_true(r.recovered);
	assert_non_null(strstr(r.reason, "names connection 77, which is not defined"));
	assert_int_equal(bag_message_count(bag), 15);
	check_order(bag);
	bag_close(bag);

	/* the bag header promises more chunks than the index section lists */
	tb_set32(&b, data, 0);
	struct bag_open_opts o = { .size = sizeof(struct bag_open_opts), .no_recover = true };
	b.len = lay.chunkinfo_pos[2];
	path = tb_write_tmp(&b, 1);
	assert_int_equal(bag_open(&bag, path, &o), BAG_ENOINDEX);
	assert_non_null(strstr(bag_last_error(bag)->message, "2 of the 3 chunks"));
	bag_close(bag);
	assert_int_equal(bag_open(&bag, path, NULL), BAG_OK);
	assert_int_equal(bag_message_count(bag), 15);
	bag_close(bag);
	unlink(path);
	free(b.p);
}

/* A message on a connection that is defined nowhere is skipped with a warning. */
static void test_undefined_connection_skipped(void **state)
{
	struct tb_chunk c[3];
	struct tb_layout lay;
	struct tb_buf b = { 0 };
	bag_t *bag;
	uint64_t errors;

	three_chunks(c, "none");
	tb_build(&b, c, 2, TB_NO_INDEX_SECTION | TB_NO_INDEX_RECORDS, &lay);
	/* message 4 of chunk 1 (conn 0): its conn field becomes 9 */
	size_t rec = lay.data_pos[1] + lay.msg_off[1][4];
	const uint8_t *conn = memmem(b.p + rec, 40, "conn=", 5);
	assert_non_null(conn);
	tb_set32(&b, (size_t)(conn - b.p) + 5, 9);
	const char *path = tb_write_tmp(&b, 0);
	assert_int_equal(bag_open(&bag, path, NULL), BAG_OK);
	unlink(path);
	assert_int_equal(bag_message_count(bag), 9);
	assert_int_equal(bag_warning_count(bag), 1);
	assert_non_null(strstr(bag_warning(bag, 0), "1 message on connection 9, which is defined nowhere"));
	assert_int_equal(read_all(bag, &errors, NULL, 0), 9);
	assert_int_equal(errors, 0);
	bag_close(bag);
	free(b.p);
}

/* Open b (must recover) and check its order; the caller closes the bag. */
static bag_t *open_buf(const struct tb_buf *b)
{
	const char *path = tb_write_tmp(b, 0);
	bag_t *bag;

	if (bag_open(&bag, path, NULL) != BAG_OK)
		fail_msg("%s", bag_last_error(bag)->message);
	unlink(path);
	check_order(bag);
	return bag;
}

/*
 * A record that cannot be read - a header length of 0xFFFFFFFF, a record
 * without op, garbage between chunks - is skipped to the next record that
 * parses as a chunk, and the scan goes on (rosbag reindex stops there); the
 * skipped range is one loss.
 */
static void test_scan_resyncs_after_garbage(void **state)
{
	struct tb_chunk c[3];
	struct tb_layout lay;
	struct tb_buf b = { 0 };
	struct bag_recovery r;
	bag_t *bag;

	three_chunks(c, "none");
	tb_build(&b, c, 3, TB_NO_INDEX_SECTION, &lay);
	/* the middle chunk's header length: chunks 0 and 2 are read */
	tb_set32(&b, lay.chunk_pos[1], 0xFFFFFFFF);
	bag = open_buf(&b);
	bag_recovery_report(bag, &r);
	assert_int_equal(bag_message_count(bag), 10);
	assert_int_equal(r.nlosses, 1);
	assert_int_equal(bag_recovery_loss(bag, 0)->start, lay.chunk_pos[1]);
	assert_int_equal(bag_recovery_loss(bag, 0)->end, lay.chunk_pos[2]);
	assert_non_null(strstr(bag_recovery_loss(bag, 0)->what, "record header runs past the end of the file"));
	assert_non_null(strstr(bag_recovery_loss(bag, 0)->what, "up to the next chunk or connection record skipped"));
	assert_int_equal(bag_warning_count(bag), 0);   /* chunk 1's index records are in the range */
	bag_close(bag);

	/* the last chunk's: nothing after it */
	tb_set32(&b, lay.chunk_pos[1], (uint32_t)(lay.data_pos[1] - lay.chunk_pos[1] - 8));
	tb_set32(&b, lay.chunk_pos[2], 0xFFFFFFFF);
	bag = open_buf(&b);
	bag_recovery_report(bag, &r);
	assert_int_equal(bag_message_count(bag), 10);
	assert_int_equal(r.nlosses, 1);
	assert_int_equal(bag_recovery_loss(bag, 0)->end, b.len);
	assert_non_null(strstr(bag_recovery_loss(bag, 0)->what, "no chunk or connection record after it"));
	bag_close(bag);

	/* the middle chunk's op field renamed: a record without op */
	tb_set32(&b, lay.chunk_pos[2], (uint32_t)(lay.data_pos[2] - lay.chunk_pos[2] - 8));
	uint8_t *op = memmem(b.p + lay.chunk_pos[1], 64, "op=\x05", 4);
	assert_non_null(op);
	op[0] = 'x';
	bag = open_buf(&b);
	assert_int_equal(bag_message_count(bag), 10);
	bag_recovery_report(bag, &r);
	assert_int_equal(r.nlosses, 1);
	assert_non_null(strstr(bag_recovery_loss(bag, 0)->what, "record without an op field"));
	bag_close(bag);
	free(b.p);

	/* 3000 bytes of garbage between two bz2 chunks, index section and all */
	memset(&b, 0, sizeof b);
	three_chunks(c, "bz2");
	tb_build(&b, c, 3, 0, &lay);
	struct tb_buf g = { 0 };
	tb_put(&g, b.p, lay.chunk_pos[1]);
	for (int i = 0; i < 3000; i++) {
		uint8_t x = (uint8_t)(i * 2654435761u >> 7);
		tb_put(&g, &x, 1);
	}
	tb_put(&g, b.p + lay.chunk_pos[1], b.len - lay.chunk_pos[1]);
	bag = open_buf(&g);
	bag_recovery_report(bag, &r);
	assert_true(r.recovered);
	assert_int_equal(bag_message_count(bag), 15);
	assert_int_equal(r.nlosses, 1);
	assert_int_equal(bag_recovery_loss(bag, 0)->start, lay.chunk_pos[1]);
	assert_int_equal(bag_recovery_loss(bag, 0)->end, lay.chunk_pos[1] + 3000);
	bag_close(bag);
	free(g.p);
	free(b.p);
}

/* A damaged compressed chunk in the middle of an unindexed bag. */
static void test_corrupt_chunk_while_scanning(void **state)
{
	struct tb_chunk c[3];
	struct tb_layout lay;
	struct tb_buf b = { 0 };
	struct bag_recovery r;
	bag_t *bag;
	uint64_t errors;

	three_chunks(c, "bz2");
	tb_build(&b, c, 3, TB_NO_INDEX_SECTION | TB_NO_INDEX_RECORDS, &lay);
	for (size_t i = lay.data_pos[1] + 10; i < lay.data_pos[1] + 40; i++)
		b.p[i] ^= 0x5a;
	const char *path = tb_write_tmp(&b, 0);
	assert_int_equal(bag_open(&bag, path, NULL), BAG_OK);
	unlink(path);
	bag_recovery_report(bag, &r);
	assert_int_equal(bag_message_count(bag), 10);
	assert_int_equal(r.chunks_failed, 1);
	assert_int_equal(r.nlosses, 1);
	assert_int_equal(bag_recovery_loss(bag, 0)->chunk_pos, lay.chunk_pos[1]);
	assert_non_null(strstr(bag_recovery_loss(bag, 0)->what, "is damaged"));
	assert_int_equal(read_all(bag, &errors, NULL, 0), 10);
	bag_close(bag);
	free(b.p);
}

struct prog {
	int calls;
	uint64_t last;
	int cancel_at;
};

static int on_progress(void *arg, uint64_t done, uint64_t total)
{
	struct prog *p = arg;

	assert_true(done <= total);
	assert_true(done >= p->last);
	p->last = done;
	return ++p->calls == p->cancel_at;
}

static void test_progress_and_cancel(void **state)
{
	struct prog p = { 0 };
	struct bag_open_opts o = { .size = sizeof(struct bag_open_opts), .progress = on_progress, .progress_arg = &p };
	bag_t *bag;

	assert_int_equal(bag_open(&bag, FIX "broken/crashed_none.bag", &o), BAG_OK);
	assert_true(p.calls >= 2);
	assert_int_equal(p.last, bag_file_size(bag));
	bag_close(bag);
	/* a good bag is not scanned */
	memset(&p, 0, sizeof p);
	assert_int_equal(bag_open(&bag, FIX "bags/basic_none.bag", &o), BAG_OK);
	assert_int_equal(p.calls, 0);
	bag_close(bag);
	memset(&p, 0, sizeof p);
	p.cancel_at = 1;
	assert_int_equal(bag_open(&bag, FIX "broken/truncated_bz2.bag", &o), BAG_ECANCELED);
	assert_non_null(strstr(bag_last_error(bag)->message, "recovery scan cancelled"));
	bag_close(bag);
}

static void test_file_not_written(void **state)
{
	struct stat before, after;
	bag_t *bag;

	assert_int_equal(stat(FIX "broken/crashed_none.bag", &before), 0);
	assert_int_equal(bag_open(&bag, FIX "broken/crashed_none.bag", NULL), BAG_OK);
	uint64_t errors;
	read_all(bag, &errors, NULL, 0);
	bag_close(bag);
	assert_int_equal(stat(FIX "broken/crashed_none.bag", &after), 0);
	assert_int_equal(before.st_size, after.st_size);
	assert_int_equal(before.st_mtime, after.st_mtime);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crashed_fixture),
		cmocka_unit_test(test_truncated_fixture),
		cmocka_unit_test(test_no_recover_option),
		cmocka_unit_test(test_good_bag_not_recovered),
		cmocka_unit_test(test_index_pos_zero_with_index_records),
		cmocka_unit_test(test_no_index_records_anywhere),
		cmocka_unit_test(test_unterminated_first_chunk),
		cmocka_unit_test(test_truncated_none_chunk),
		cmocka_unit_test(test_truncated_bz2_blocks),
		cmocka_unit_test(test_truncated_lz4_blocks),
		cmocka_unit_test(test_truncated_lz4_one_block),
		cmocka_unit_test(test_index_section_unusable),
		cmocka_unit_test(test_undefined_connection_skipped),
		cmocka_unit_test(test_scan_resyncs_after_garbage),
		cmocka_unit_test(test_corrupt_chunk_while_scanning),
		cmocka_unit_test(test_progress_and_cancel),
		cmocka_unit_test(test_file_not_written),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
