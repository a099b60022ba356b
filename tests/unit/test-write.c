/*
 * test-write.c - the writer, read back through the library's own reader:
 * all three compressions, chunk splitting, out-of-order times (overlapping
 * chunks), many connections, and failures that must leave no file behind.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <bagscope/bagscope.h>

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

/* Write n messages alternating two connections; times from time_of(i). */
static void write_bag(const char *path, enum bag_compression comp, uint32_t threshold, int n,
                      int64_t (*time_of)(int))
{
	struct bag_writer_opts opts = { comp, threshold };
	bag_writer_t *w;

	if (bag_writer_open(&w, path, &opts) != BAG_OK)
		fail_msg("%s", bag_writer_errmsg(w));
	for (int i = 0; i < n; i++) {
		int64_t v = i;
		char s[64];
		uint32_t len = (uint32_t)snprintf(s + 4, sizeof s - 4, "message %d", i);
		memcpy(s, &len, 4);
		int rc = i % 2 ? bag_writer_write(w, &str_conn, time_of(i), s, 4 + len)
		               : bag_writer_write(w, &int_conn, time_of(i), &v, 8);
		if (rc != BAG_OK)
			fail_msg("%s", bag_writer_errmsg(w));
	}
	if (bag_writer_close(w) != BAG_OK)
		fail_msg("%s", bag_writer_errmsg(w));
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
		fail_msg("%s", bag_errmsg(bag));
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
			fail_msg("%s", bag_view_errmsg(view));
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

static void test_failures_leave_no_file(void **state)
{
	char path[128];
	struct stat st;
	bag_writer_t *w;

	assert_int_equal(bag_writer_open(&w, "/nonexistent-dir/x.bag", NULL), BAG_EIO);
	assert_non_null(strstr(bag_writer_errmsg(w), "/nonexistent-dir/x.bag"));
	bag_writer_free(w);
	/* abandoned before close: neither the target nor the temporary remains */
	snprintf(path, sizeof path, "%s/abandoned.bag", dir);
	assert_int_equal(bag_writer_open(&w, path, NULL), BAG_OK);
	int64_t v = 1;
	assert_int_equal(bag_writer_write(w, &int_conn, in_order(0), &v, 8), BAG_OK);
	assert_int_equal(bag_writer_write(w, &int_conn, -1, &v, 8), BAG_EINVAL);
	bag_writer_free(w);
	assert_int_equal(stat(path, &st), -1);
	char cmd[160];
	snprintf(cmd, sizeof cmd, "test -z \"$(ls %s | grep abandoned)\"", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_three_compressions),
		cmocka_unit_test(test_default_threshold_one_chunk),
		cmocka_unit_test(test_overlapping_chunks_ordered),
		cmocka_unit_test(test_many_connections),
		cmocka_unit_test(test_failures_leave_no_file),
	};
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
