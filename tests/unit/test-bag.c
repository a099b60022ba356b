/*
 * test-bag.c - opening real bags (made by the ROS tools) from their index
 * section, chunk headers, the three decompressions, the cache bound, and
 * the errors for files that are not (whole) bags.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "scale.h"

#include <bagscope/bagscope.h>

#define FIX TEST_DATA_DIR "/fixtures/"

static bag_t *open_ok(const char *path)
{
	bag_t *bag;
	int rc = bag_open(&bag, path, NULL);

	if (rc != BAG_OK)
		fail_msg("%s", bag_last_error(bag)->message);
	return bag;
}

static void test_open_basic(void **state)
{
	bag_t *bag = open_ok(FIX "bags/basic_none.bag");
	int major, minor;

	bag_version(bag, &major, &minor);
	assert_int_equal(major, 2);
	assert_int_equal(minor, 0);
	assert_int_equal(bag_file_size(bag), 9239);
	assert_int_equal(bag_message_count(bag), 23);
	assert_int_equal(bag_start_time(bag), 1500000000000000000LL);
	assert_int_equal(bag_end_time(bag), 1500000007000000000LL);
	assert_int_equal(bag_conn_count(bag), 6);
	const struct bag_connection *c = bag_conn(bag, 0);
	assert_int_equal(c->id, 0);
	assert_string_equal(c->topic, "/greeting");
	assert_string_equal(c->type, "std_msgs/String");
	assert_string_equal(c->md5sum, "992ce8a1687cec8c8bd883ec73ca41d1");
	assert_string_equal(c->definition, "string data\n");
	assert_int_equal(c->message_count, 7);
	assert_ptr_equal(bag_conn_by_id(bag, c->id), c);
	assert_null(bag_conn_by_id(bag, 999));
	bag_close(bag);
}

static void test_connection_header_kept(void **state)
{
	bag_t *bag = open_ok(FIX "bags/tf_lz4.bag");
	bool saw_latched = false;

	for (size_t i = 0; i < bag_conn_count(bag); i++) {
		const struct bag_connection *c = bag_conn(bag, i);
		if (strcmp(c->topic, "/image") == 0) {
			assert_true(c->latching);
			saw_latched = true;
		}
		/* every field of the header is kept, in file order */
		bool has_type = false;
		for (size_t k = 0; k < c->nfields; k++)
			has_type |= strcmp(c->fields[k].name, "type") == 0;
		assert_true(has_type);
		if (c->id == 0)
			assert_string_equal(c->callerid, "/broadcaster_0");
		if (c->id == 1)   /* this one was recorded without a callerid */
			assert_string_equal(c->callerid, "");
	}
	assert_true(saw_latched);
	bag_close(bag);
}

/* Read every chunk of path and check sizes; returns chunks of kind. */
static size_t read_chunks(const char *path, enum bag_compression kind)
{
	bag_t *bag = open_ok(path);
	struct bag_chunk_info ci;
	size_t n = 0;

	for (size_t i = 0; i < bag_chunk_count(bag); i++) {
		const uint8_t *data;
		size_t len;
		assert_int_equal(bag_chunk_stat(bag, i, &ci), BAG_OK);
		n += ci.compression == kind;
		assert_int_equal(bag_chunk_get(bag, i, &data, &len), BAG_OK);
		assert_int_equal(len, ci.size);
		/* decompressed data starts with a record: a 4-byte header length */
		assert_true(len > 8);
		bag_chunk_unpin(bag, i);
	}
	bag_close(bag);
	return n;
}

static void test_decompress_three_kinds(void **state)
{
	assert_int_equal(read_chunks(FIX "bags/basic_none.bag", BAG_COMPRESSION_NONE), 1);
	assert_int_equal(read_chunks(FIX "bags/nested_bz2.bag", BAG_COMPRESSION_BZ2), 4);
	assert_int_equal(read_chunks(FIX "bags/tf_lz4.bag", BAG_COMPRESSION_LZ4), 1);
	assert_int_equal(read_chunks(FIX "bags/large_lz4.bag", BAG_COMPRESSION_LZ4), 2);
	assert_int_equal(read_chunks(FIX "foreign/rosbag.js/example-bz2.bag", BAG_COMPRESSION_BZ2), 1);
}

static void test_chunk_stat_sums(void **state)
{
	bag_t *bag = open_ok(FIX "bags/nested_bz2.bag");
	struct bag_chunk_info ci;
	uint64_t size = 0, comp = 0;

	for (size_t i = 0; i < bag_chunk_count(bag); i++) {
		assert_int_equal(bag_chunk_stat(bag, i, &ci), BAG_OK);
		size += ci.size;
		comp += ci.compressed_size;
	}
	/* the figures `rosbag info --yaml` gives for this bag */
	assert_int_equal(size, 12744);
	assert_int_equal(comp, 3998);
	bag_close(bag);
}

static void test_cache_bounded(void **state)
{
	struct bag_open_opts opts = { .size = sizeof(struct bag_open_opts), .cache_bytes = 1 };
	struct bag_cache_stats st;
	bag_t *bag;

	assert_int_equal(bag_open(&bag, FIX "bags/nested_bz2.bag", &opts), BAG_OK);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < bag_chunk_count(bag); i++) {
			const uint8_t *data;
			size_t len;
			assert_int_equal(bag_chunk_get(bag, i, &data, &len), BAG_OK);
			bag_cache_stats(bag, &st);
			assert_int_equal(st.bytes, len);    /* only the pinned one */
			bag_chunk_unpin(bag, i);
		}
	bag_cache_stats(bag, &st);
	assert_int_equal(st.loads, 8);
	assert_int_equal(st.hits, 0);
	bag_close(bag);

	assert_int_equal(bag_open(&bag, FIX "bags/nested_bz2.bag", NULL), BAG_OK);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < bag_chunk_count(bag); i++) {
			const uint8_t *data;
			size_t len;
			assert_int_equal(bag_chunk_get(bag, i, &data, &len), BAG_OK);
			bag_chunk_unpin(bag, i);
		}
	bag_cache_stats(bag, &st);
	assert_int_equal(st.loads, 4);
	assert_int_equal(st.hits, 4);
	bag_close(bag);
}

/* Open must fail with code, and the message must hold want. */
static void expect_open_error_opts(const char *path, const struct bag_open_opts *opts, int code,
                                   const char *want)
{
	bag_t *bag;
	int rc = bag_open(&bag, path, opts);

	assert_int_equal(rc, code);
	if (strstr(bag_last_error(bag)->message, want) == NULL)
		fail_msg("message '%s' lacks '%s'", bag_last_error(bag)->message, want);
	assert_null(strchr(bag_last_error(bag)->message, '\n'));
	bag_close(bag);
}

static void expect_open_error(const char *path, int code, const char *want)
{
	expect_open_error_opts(path, NULL, code, want);
}

static void test_open_errors(void **state)
{
	/* without no_recover these two are recovered (test-recover.c) */
	struct bag_open_opts strict = { .size = sizeof(struct bag_open_opts), .no_recover = true };

	expect_open_error(FIX "broken/not_a_bag.bag", BAG_ENOTBAG, "not_a_bag.bag: at byte 0:");
	expect_open_error(FIX "foreign/rosbag.js/empty-file.bag", BAG_ENOTBAG, "empty file");
	expect_open_error_opts(FIX "broken/crashed_none.bag", &strict, BAG_ENOINDEX, "at byte 13: index_pos is 0");
	expect_open_error_opts(FIX "broken/truncated_bz2.bag", &strict, BAG_ENOINDEX,
	                       "index_pos 8982 lies outside the file");
	expect_open_error(FIX "no-such-file.bag", BAG_EIO, "no-such-file.bag: No such file");
	expect_open_error(TEST_DATA_DIR, BAG_EIO, "not a regular file");
}

/* under valgrind a hundredth (scale.h): the linear lookups the size shows up are the
 * as-built and ASan runs' to find; valgrind looks for memory errors on the same paths */
#define MANY_CONNS ((uint32_t)test_sized(100000))

/*
 * A bag of n connections, each its own topic ("/c0000042") with one message
 * (the value i at 1600000000 s + i us), all in one chunk: every chunk-info
 * lookup and index record goes through the per-connection paths at once.
 */
static void write_many_conns(const char *path, uint32_t n)
{
	struct bag_writer_opts opts = { .size = sizeof(struct bag_writer_opts), .chunk_threshold = UINT32_MAX };
	bag_writer_t *w;
	char topic[32];

	assert_int_equal(bag_writer_open(&w, path, &opts), BAG_OK);
	for (uint32_t i = 0; i < n; i++) {
		struct bag_conn_spec c = { topic, "std_msgs/UInt32", "304a39449588c7f8ce2df6e8001c5fce",
		                           "uint32 data\n", NULL, false };
		snprintf(topic, sizeof topic, "/c%07u", i);
		assert_int_equal(bag_writer_write(w, &c, 1600000000LL * BAG_NSEC_PER_SEC + (int64_t)i * 1000,
		                                  &i, sizeof i), BAG_OK);
	}
	assert_int_equal(bag_writer_close(w), BAG_OK);
	bag_writer_free(w);
}

/*
 * 100k connections open, and every per-connection fact is right: ids,
 * topics, counts, the chunk's counts, the timeline's order, and a check.
 * (Before, this took minutes: lookups by id in a chunk info were linear.)
 */
static void test_many_connections(void **state)
{
	char dir[] = "/tmp/bagscope-conns-XXXXXX", path[64];
	struct bag_check_stats st;
	struct bag_message m;
	bag_timeline_t *tl;
	bag_view_t *view;
	bag_t *bag;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/many.bag", dir);
	write_many_conns(path, MANY_CONNS);
	bag = open_ok(path);
	assert_int_equal(bag_conn_count(bag), MANY_CONNS);
	assert_int_equal(bag_message_count(bag), MANY_CONNS);
	assert_int_equal(bag_chunk_count(bag), 1);
	assert_int_equal(bag_chunk_conn_n(bag, 0), MANY_CONNS);
	for (uint32_t i = 0; i < MANY_CONNS; i++) {
		const struct bag_connection *c = bag_conn_by_id(bag, i);
		char topic[32];
		snprintf(topic, sizeof topic, "/c%07u", i);
		assert_non_null(c);
		assert_int_equal(c->index, i);
		assert_string_equal(c->topic, topic);
		assert_int_equal(c->message_count, 1);
		assert_int_equal(bag_chunk_conn_messages(bag, 0, i), 1);
	}
	assert_null(bag_conn_by_id(bag, MANY_CONNS));
	assert_int_equal(bag_chunk_conn_messages(bag, 0, MANY_CONNS), 0);
	assert_int_equal(bag_timeline_open(&tl, &bag, 1), BAG_OK);
	assert_int_equal(bag_timeline_load(tl, 0), 1);
	assert_int_equal(bag_view_open(&view, tl, NULL), BAG_OK);
	assert_int_equal(bag_view_count(view), MANY_CONNS);
	for (uint64_t row = 0; row < MANY_CONNS; row += 997) {
		assert_int_equal(bag_view_read(view, row, &m), BAG_OK);
		assert_int_equal(m.conn->id, row);
		assert_int_equal(m.time_ns, 1600000000LL * BAG_NSEC_PER_SEC + (int64_t)row * 1000);
		assert_int_equal(m.size, 4);
		assert_memory_equal(m.data, &(uint32_t){ (uint32_t)row }, 4);
	}
	bag_view_free(view);
	bag_timeline_free(tl);
	assert_int_equal(bag_check(bag, 0, NULL, NULL, &st), BAG_OK);
	assert_int_equal(st.findings, 0);
	assert_int_equal(st.messages, MANY_CONNS);
	bag_close(bag);
	unlink(path);
	rmdir(dir);
}

/*
 * bag_open_opts.size: 0 (a caller that did not set it) is refused; an older,
 * shorter struct gets defaults for what it lacks; a newer, longer one is
 * taken when the fields this library does not know are zero.
 */
static void test_open_opts_size(void **state)
{
	struct {
		struct bag_open_opts o;
		uint64_t newer;           /* a field a later version might add */
	} big;
	struct bag_open_opts zero = { 0 }, old = BAG_OPEN_OPTS_INIT;
	struct bag_cache_stats cs;
	bag_t *bag;

	expect_open_error_opts(FIX "bags/basic_none.bag", &zero, BAG_EINVAL,
	                       "bag_open_opts.size is 0: set it to sizeof(struct bag_open_opts)");
	old.size = offsetof(struct bag_open_opts, no_recover);   /* size and cache_bytes only */
	old.cache_bytes = 12345;
	old.no_recover = true;                                   /* beyond its size: not read */
	assert_int_equal(bag_open(&bag, FIX "broken/crashed_none.bag", &old), BAG_OK);
	bag_cache_stats(bag, &cs);
	assert_int_equal(cs.limit, 12345);
	bag_close(bag);
	memset(&big, 0, sizeof big);
	big.o.size = sizeof big;
	big.o.cache_bytes = 4096;
	assert_int_equal(bag_open(&bag, FIX "bags/basic_none.bag", &big.o), BAG_OK);
	bag_cache_stats(bag, &cs);
	assert_int_equal(cs.limit, 4096);
	bag_close(bag);
	big.newer = 1;
	expect_open_error_opts(FIX "bags/basic_none.bag", &big.o, BAG_EINVAL, "leave unknown fields zero");
}

/* A FIFO is refused at once: opening it must not wait for a writer. */
static void test_open_fifo(void **state)
{
	char dir[] = "/tmp/bagscope-fifo-XXXXXX", path[64];

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/pipe.bag", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	alarm(10);                  /* a blocking open ends the test here */
	expect_open_error(path, BAG_EIO, "pipe.bag: not a regular file");
	alarm(0);
	unlink(path);
	rmdir(dir);
}

static void test_input_untouched(void **state)
{
	struct stat before, after;
	bag_t *bag;

	assert_int_equal(stat(FIX "bags/tf_lz4.bag", &before), 0);
	bag = open_ok(FIX "bags/tf_lz4.bag");
	const uint8_t *data;
	size_t len;
	assert_int_equal(bag_chunk_get(bag, 0, &data, &len), BAG_OK);
	bag_chunk_unpin(bag, 0);
	bag_close(bag);
	assert_int_equal(stat(FIX "bags/tf_lz4.bag", &after), 0);
	assert_int_equal(before.st_size, after.st_size);
	assert_int_equal(before.st_mtime, after.st_mtime);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_basic),
		cmocka_unit_test(test_connection_header_kept),
		cmocka_unit_test(test_decompress_three_kinds),
		cmocka_unit_test(test_chunk_stat_sums),
		cmocka_unit_test(test_cache_bounded),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_open_fifo),
		cmocka_unit_test(test_open_opts_size),
		cmocka_unit_test(test_many_connections),
		cmocka_unit_test(test_input_untouched),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
