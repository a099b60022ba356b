/*
 * test-timeline.c - the timeline's order against the reference reader's
 * (rosbag.Bag.read_messages(), stored as expected JSON lines), lazy loading,
 * time lookup, topic/type/time queries, overlapping chunks and several bags.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <bagscope/bagscope.h>

#define FIX TEST_DATA_DIR "/fixtures/"

struct ref_msg {
	char topic[128];
	int64_t time_ns;
};

/* The (topic, time_ns) sequence of an expected .cat.jsonl file. */
static size_t load_ref(const char *path, struct ref_msg *out, size_t cap)
{
	FILE *f = fopen(path, "r");
	char line[1 << 16];
	size_t n = 0;

	assert_non_null(f);
	while (n < cap && fgets(line, sizeof line, f) != NULL) {
		const char *t = strstr(line, "\"topic\":\"");
		const char *ts = strstr(line, "\"time_ns\":");
		assert_non_null(t);
		assert_non_null(ts);
		t += 9;
		size_t len = strcspn(t, "\"");
		assert_true(len < sizeof out[n].topic);
		memcpy(out[n].topic, t, len);
		out[n].topic[len] = '\0';
		out[n].time_ns = strtoll(ts + 10, NULL, 10);
		n++;
	}
	fclose(f);
	return n;
}

struct fixture {
	bag_t *bag;
	bag_timeline_t *tl;
	bag_view_t *view;
};

static void fx_open(struct fixture *fx, const char *path, const struct bag_query *q)
{
	memset(fx, 0, sizeof *fx);
	if (bag_open(&fx->bag, path, NULL) != BAG_OK)
		fail_msg("%s", bag_last_error(fx->bag)->message);
	assert_int_equal(bag_timeline_open(&fx->tl, &fx->bag, 1), BAG_OK);
	if (bag_view_open(&fx->view, fx->tl, q) != BAG_OK)
		fail_msg("%s", bag_view_error(fx->view)->message);
}

static void fx_close(struct fixture *fx)
{
	bag_view_free(fx->view);
	bag_timeline_free(fx->tl);
	bag_close(fx->bag);
}

/* Every row of the view matches the reference sequence, bytes included. */
static void check_order(const char *bag, const char *ref_path, const struct bag_query *q)
{
	static struct ref_msg ref[16384];
	size_t n = load_ref(ref_path, ref, 16384);
	struct fixture fx;
	struct bag_message m;

	fx_open(&fx, bag, q);
	assert_int_equal(bag_view_count(fx.view), n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(bag_view_read(fx.view, i, &m), BAG_OK);
		assert_int_equal(m.row, i);
		if (m.time_ns != ref[i].time_ns || strcmp(m.conn->topic, ref[i].topic) != 0)
			fail_msg("row %zu: %s @%lld, reference %s @%lld", i, m.conn->topic,
			         (long long)m.time_ns, ref[i].topic, (long long)ref[i].time_ns);
		assert_non_null(m.data);
	}
	fx_close(&fx);
}

static void test_order_matches_reference(void **state)
{
	check_order(FIX "bags/basic_none.bag", FIX "expected/basic_none.cat.jsonl", NULL);
	check_order(FIX "bags/nested_bz2.bag", FIX "expected/nested_bz2.cat.jsonl", NULL);
	check_order(FIX "bags/tf_lz4.bag", FIX "expected/tf_lz4.cat.jsonl", NULL);
}

static void test_equal_times_by_connection(void **state)
{
	struct fixture fx;
	struct bag_message a, b;

	fx_open(&fx, FIX "bags/basic_none.bag", NULL);
	/* rows 0 and 1 share a time; /greeting (conn 0) comes before /counter */
	assert_int_equal(bag_view_entry(fx.view, 0, &a), BAG_OK);
	assert_int_equal(bag_view_entry(fx.view, 1, &b), BAG_OK);
	assert_int_equal(a.time_ns, b.time_ns);
	assert_true(a.conn->id < b.conn->id);
	assert_string_equal(a.conn->topic, "/greeting");
	fx_close(&fx);
}

static void test_lazy_until_needed(void **state)
{
	struct fixture fx;
	struct bag_message m;

	fx_open(&fx, FIX "bags/nested_bz2.bag", NULL);
	/* counts known from the chunk infos alone */
	assert_int_equal(bag_view_count(fx.view), 15);
	assert_int_equal(bag_timeline_loaded_rows(fx.tl), 0);
	assert_int_equal(bag_view_entry(fx.view, 14, &m), BAG_OK);
	assert_true(bag_timeline_loaded_rows(fx.tl) < 15);
	struct bag_cache_stats st;
	bag_cache_stats(fx.bag, &st);
	assert_int_equal(st.loads, 0);          /* no chunk decompressed */
	assert_int_equal(bag_timeline_load(fx.tl, 0), 1);
	assert_int_equal(bag_timeline_loaded_rows(fx.tl), 15);
	assert_true(bag_timeline_memory(fx.tl) <= 15 * 16 + 512);
	fx_close(&fx);
}

static void test_seek(void **state)
{
	struct fixture fx;
	struct bag_message m;
	uint64_t row;

	fx_open(&fx, FIX "bags/basic_none.bag", NULL);
	assert_int_equal(bag_view_seek(fx.view, 0, &row), BAG_OK);
	assert_int_equal(row, 0);
	assert_int_equal(bag_view_seek(fx.view, 1500000001000000100LL, &row), BAG_OK);
	assert_int_equal(bag_view_entry(fx.view, row, &m), BAG_OK);
	assert_int_equal(m.time_ns, 1500000001000000100LL);
	assert_string_equal(m.conn->topic, "/greeting");
	assert_int_equal(bag_view_entry(fx.view, row - 1, &m), BAG_OK);
	assert_true(m.time_ns < 1500000001000000100LL);
	/* between messages: the next one */
	assert_int_equal(bag_view_seek(fx.view, 1500000001000000102LL, &row), BAG_OK);
	assert_int_equal(bag_view_entry(fx.view, row, &m), BAG_OK);
	assert_true(m.time_ns >= 1500000001000000102LL);
	assert_int_equal(bag_view_seek(fx.view, INT64_MAX, &row), BAG_OK);
	assert_int_equal(row, bag_view_count(fx.view));
	assert_int_equal(bag_view_entry(fx.view, row, &m), BAG_EINVAL);
	fx_close(&fx);
}

/* A seek that never reads: the group's first row until its index is loaded, then the exact row. */
static void test_seek_loaded(void **state)
{
	struct fixture fx;
	const int64_t t = 1500000103000000000LL;
	uint64_t row, exact, again, bytes0, reads0, bytes1, reads1;
	size_t g, g2;

	fx_open(&fx, FIX "bags/nested_bz2.bag", NULL);
	bag_read_totals(fx.bag, &bytes0, &reads0);
	assert_int_equal(bag_view_seek_loaded(fx.view, t, &row, &g), 1);
	bag_read_totals(fx.bag, &bytes1, &reads1);
	assert_int_equal(reads1, reads0);                  /* nothing read */
	assert_int_equal(bag_timeline_loaded_rows(fx.tl), 0);
	assert_true(g > 0);                                /* not the first of the 4 chunks' groups */
	assert_int_equal(bag_view_seek(fx.view, t, &exact), BAG_OK);
	assert_true(row <= exact && exact < bag_view_count(fx.view));
	assert_int_equal(bag_view_seek_loaded(fx.view, t, &again, &g2), BAG_OK);
	assert_int_equal(again, exact);
	assert_int_equal(g2, g);
	assert_int_equal(bag_view_seek_loaded(fx.view, INT64_MAX, &again, &g2), BAG_OK);
	assert_int_equal(again, bag_view_count(fx.view));
	fx_close(&fx);
}

static void test_topic_query(void **state)
{
	const char *topics[] = { "/counter" };
	struct bag_query q;

	bag_query_init(&q);
	q.topics = topics;
	q.ntopics = 1;
	check_order(FIX "bags/basic_none.bag", FIX "expected/basic_none.cat.counter_only.jsonl", &q);
}

static void test_time_query(void **state)
{
	struct bag_query q;

	bag_query_init(&q);
	q.start_ns = 1500000002000000000LL;
	q.end_ns = 1500000003000000300LL;
	check_order(FIX "bags/basic_none.bag", FIX "expected/basic_none.cat.window.jsonl", &q);
}

static void test_type_query_and_seek(void **state)
{
	const char *types[] = { "fixture_pkg/Widget" };
	struct bag_query q;
	struct fixture fx;
	struct bag_message m;
	uint64_t row;

	bag_query_init(&q);
	q.types = types;
	q.ntypes = 1;
	check_order(FIX "bags/nested_bz2.bag", FIX "expected/nested_bz2.cat.widgets.jsonl", &q);
	fx_open(&fx, FIX "bags/nested_bz2.bag", &q);
	assert_int_equal(bag_view_seek(fx.view, 1500000102000000000LL, &row), BAG_OK);
	assert_int_equal(bag_view_entry(fx.view, row, &m), BAG_OK);
	assert_string_equal(m.conn->type, "fixture_pkg/Widget");
	assert_true(m.time_ns >= 1500000102000000000LL);
	fx_close(&fx);
}

static void test_unsorted_chunks(void **state)
{
	struct fixture fx;
	struct bag_message m;
	int64_t last = INT64_MIN;

	fx_open(&fx, FIX "foreign/rosbag.js/example-unsorted-chunks.bag", NULL);
	assert_int_equal(bag_view_count(fx.view), 3);
	for (uint64_t i = 0; i < 3; i++) {
		assert_int_equal(bag_view_read(fx.view, i, &m), BAG_OK);
		assert_true(m.time_ns >= last);
		last = m.time_ns;
	}
	/* the true min and max, not the first and last chunk in the file */
	assert_int_equal(bag_timeline_start(fx.tl), 1000000000LL);
	assert_int_equal(bag_timeline_end(fx.tl), 3000000000LL);
	fx_close(&fx);
}

static void test_two_bags_merged(void **state)
{
	bag_t *bags[2];
	bag_timeline_t *tl;
	bag_view_t *view;
	struct bag_message m;
	int64_t last = INT64_MIN;
	size_t from[2] = { 0, 0 };

	assert_int_equal(bag_open(&bags[0], FIX "bags/basic_none.bag", NULL), BAG_OK);
	assert_int_equal(bag_open(&bags[1], FIX "bags/tf_lz4.bag", NULL), BAG_OK);
	assert_int_equal(bag_timeline_open(&tl, bags, 2), BAG_OK);
	assert_int_equal(bag_timeline_conn_count(tl), 6 + bag_conn_count(bags[1]));
	assert_int_equal(bag_view_open(&view, tl, NULL), BAG_OK);
	assert_int_equal(bag_view_count(view), 23 + 11);
	for (uint64_t i = 0; i < bag_view_count(view); i++) {
		assert_int_equal(bag_view_read(view, i, &m), BAG_OK);
		assert_true(m.time_ns >= last);
		last = m.time_ns;
		from[m.bag_index]++;
	}
	assert_int_equal(from[0], 23);
	assert_int_equal(from[1], 11);
	bag_view_free(view);
	bag_timeline_free(tl);
	bag_close(bags[0]);
	bag_close(bags[1]);
}

/*
 * bag_timeline_times() gives each topic's times in order, as the real
 * rosbag's reading of the bag lists them (the reference .cat.jsonl), with
 * one topic left out; from the index alone (no group is loaded).
 */
static void check_times(const char *bag, const char *ref_path)
{
	static struct ref_msg ref[16384];
	size_t n = load_ref(ref_path, ref, 16384), nc, ntopics = 0;
	char topics[16][128];
	struct fixture fx;

	fx_open(&fx, bag, NULL);
	nc = bag_timeline_conn_count(fx.tl);
	size_t *group = calloc(nc, sizeof *group);
	assert_non_null(group);
	for (size_t c = 0; c < nc; c++) {
		const char *topic = bag_timeline_conn(fx.tl, c, NULL)->topic;
		size_t t = 0;
		while (t < ntopics && strcmp(topics[t], topic) != 0)
			t++;
		if (t == ntopics) {
			assert_true(ntopics < 16);
			snprintf(topics[ntopics++], sizeof topics[0], "%s", topic);
		}
		group[c] = t == 0 ? SIZE_MAX : t - 1;   /* the first topic is left out */
	}
	int64_t *times[16];
	uint64_t count[16];
	assert_int_equal(bag_timeline_times(fx.tl, group, ntopics - 1, times, count), BAG_OK);
	assert_int_equal(bag_timeline_loaded_rows(fx.tl), 0);
	for (size_t t = 1; t < ntopics; t++) {
		uint64_t k = 0;
		for (size_t i = 0; i < n; i++) {
			if (strcmp(ref[i].topic, topics[t]) != 0)
				continue;
			assert_true(k < count[t - 1]);
			assert_int_equal(times[t - 1][k], ref[i].time_ns);
			k++;
		}
		assert_int_equal(k, count[t - 1]);
		free(times[t - 1]);
	}
	free(group);
	fx_close(&fx);
}

static void test_times_per_topic(void **state)
{
	check_times(FIX "bags/basic_none.bag", FIX "expected/basic_none.cat.jsonl");
	check_times(FIX "bags/nested_bz2.bag", FIX "expected/nested_bz2.cat.jsonl");
	check_times(FIX "bags/tf_lz4.bag", FIX "expected/tf_lz4.cat.jsonl");
}

/* Write bag's (topic, time) sequence, as its merged timeline reads it, to a reference file. */
static void view_ref(const char *bag, const char *out)
{
	struct fixture fx;
	struct bag_message m;
	FILE *f = fopen(out, "w");

	assert_non_null(f);
	fx_open(&fx, bag, NULL);
	for (uint64_t i = 0; i < bag_view_count(fx.view); i++) {
		assert_int_equal(bag_view_entry(fx.view, i, &m), BAG_OK);
		fprintf(f, "{\"topic\":\"%s\",\"time_ns\":%lld}\n", m.conn->topic, (long long)m.time_ns);
	}
	fclose(f);
	fx_close(&fx);
}

/* The same as the merged timeline on a larger bag and on ones recovered by a scan. */
static void test_times_like_timeline(void **state)
{
	const char *bags[] = { FIX "bags/large_lz4.bag", FIX "broken/crashed_none.bag",
	                       FIX "broken/truncated_bz2.bag", FIX "foreign/rosbag.js/example-unsorted-chunks.bag" };
	char tmp[] = "/tmp/test-times-XXXXXX";
	int fd = mkstemp(tmp);

	assert_true(fd >= 0);
	close(fd);
	for (size_t i = 0; i < sizeof bags / sizeof *bags; i++) {
		view_ref(bags[i], tmp);
		check_times(bags[i], tmp);
	}
	unlink(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_matches_reference),
		cmocka_unit_test(test_equal_times_by_connection),
		cmocka_unit_test(test_lazy_until_needed),
		cmocka_unit_test(test_seek),
		cmocka_unit_test(test_seek_loaded),
		cmocka_unit_test(test_topic_query),
		cmocka_unit_test(test_time_query),
		cmocka_unit_test(test_type_query_and_seek),
		cmocka_unit_test(test_unsorted_chunks),
		cmocka_unit_test(test_two_bags_merged),
		cmocka_unit_test(test_times_per_topic),
		cmocka_unit_test(test_times_like_timeline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
