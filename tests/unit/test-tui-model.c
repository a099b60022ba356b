/*
 * test-tui-model.c - the browser's curses-free half: the jump-to-time
 * language, and the view model's cursor, scrolling, filters and steps on a
 * real bag; densities of a big recording in few chunks (a .db3 SQLite
 * itself writes) drawn from the chunk infos, without loading its rows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "db3build.h"
#include "scale.h"

#include <bagscope/bagscope.h>

#include "tui/match.h"
#include "tui/model.h"
#include "common/timeparse.h"

#define FIX TEST_DATA_DIR "/fixtures/"
#define S 1000000000LL

static const int64_t start = 1500000000 * S, end = 1500000100 * S, cur = 1500000050 * S;

static int64_t jt(const char *s)
{
	struct jump j;
	const char *why;

	if (jump_parse(s, start, end, cur, &j, &why) != 0)
		fail_msg("'%s': %s", s, why);
	assert_int_equal(j.kind, JUMP_TIME);
	return j.time_ns;
}

static void test_jump_forms(void **state)
{
	struct jump j;
	const char *why;

	assert_int_equal(jt("1500000012.5"), 1500000012 * S + 500000000);
	assert_int_equal(jt("1500000003.0000003"), 1500000003 * S + 300);
	assert_int_equal(jt("+12.5"), start + 12 * S + 500000000);
	assert_int_equal(jt("1m30s"), start + 90 * S);
	/* one rule: + (or a unit) after the start, - before the end, > and < from the selected message */
	assert_int_equal(jt("+5s"), start + 5 * S);
	assert_int_equal(jt("5s"), start + 5 * S);
	assert_int_equal(jt("-200ms"), end - 200000000);
	assert_int_equal(jt("-1.5"), end - 1500000000);
	assert_int_equal(jt(">5s"), cur + 5 * S);
	assert_int_equal(jt("<200ms"), cur - 200000000);
	assert_int_equal(jt(">1.5"), cur + 1500000000);
	/* the command line has no selected message: > and < are refused there */
	assert_int_not_equal(jump_parse(">5s", start, end, JUMP_NO_CURSOR, &j, &why), 0);
	assert_int_equal(jump_parse("-5s", start, end, JUMP_NO_CURSOR, &j, &why), 0);
	assert_int_equal(j.time_ns, end - 5 * S);
	assert_int_equal(jt("50%"), start + 50 * S);
	assert_int_equal(jt("0%"), start);
	assert_int_equal(jt("2017-07-14 02:40:02.5Z"), 1500000002 * S + 500000000);
	assert_int_equal(jt("2017-07-14T02:40:00Z"), 1500000000 * S);
	setenv("TZ", "Europe/Berlin", 1);
	assert_int_equal(jt("2017-07-14 04:40:00"), 1500000000 * S);   /* local: UTC+2 in July */
	setenv("TZ", "UTC", 1);
	assert_int_equal(jump_parse("#12345", start, end, cur, &j, &why), 0);
	assert_int_equal(j.kind, JUMP_ROW);
	assert_int_equal(j.row, 12344);
	static const char *const bad[] = { "", "abc", "#0", "#x", "101%", "12q", "2017-13-45 00:00:00", "+", "1m30", ">", "<x",
	                                   ">-5s" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		if (jump_parse(bad[i], start, end, cur, &j, &why) == 0)
			fail_msg("'%s' was accepted", bad[i]);
}

struct fx {
	bag_t *bag;
	bag_timeline_t *tl;
	struct model m;
};

static int fx_open(void **state)
{
	struct fx *fx = calloc(1, sizeof *fx);

	assert_int_equal(bag_open(&fx->bag, FIX "foreign/rosbag.js/example.bag", NULL), BAG_OK);
	assert_int_equal(bag_timeline_open(&fx->tl, &fx->bag, 1), BAG_OK);
	assert_int_equal(model_init(&fx->m, fx->tl), BAG_OK);
	fx->m.list_height = 20;
	fx->m.topic_height = 5;
	*state = fx;
	return 0;
}

static int fx_close(void **state)
{
	struct fx *fx = *state;

	model_free(&fx->m);
	bag_timeline_free(fx->tl);
	bag_close(fx->bag);
	free(fx);
	return 0;
}

static void test_cursor_and_scroll(void **state)
{
	struct model *m = &((struct fx *)*state)->m;

	assert_int_equal(m->ntopics, 9);
	assert_int_equal(bag_view_count(m->view), 8647);
	assert_int_equal(m->row, 0);
	model_act(m, ACTION_DOWN);
	assert_int_equal(m->row, 1);
	model_act(m, ACTION_PAGE_DOWN);
	assert_int_equal(m->row, 20);
	assert_int_equal(m->top, 1);          /* the cursor stays on the last visible row */
	model_act(m, ACTION_BOTTOM);
	assert_int_equal(m->row, 8646);
	assert_int_equal(m->top, 8647 - 20);
	model_act(m, ACTION_DOWN);
	assert_int_equal(m->row, 8646);       /* clamped */
	model_act(m, ACTION_TOP);
	assert_int_equal(m->row, 0);
	assert_int_equal(m->top, 0);
	model_act(m, ACTION_UP);
	assert_int_equal(m->row, 0);
}

/* The jump prompt on times no bag can hold: the last or first row, no overflow. */
static void test_far_jumps(void **state)
{
	struct model *m = &((struct fx *)*state)->m;

	assert_int_equal(model_jump(m, "9999-12-31Z"), 0);
	assert_int_equal(m->row, 8646);
	assert_int_equal(model_jump(m, "0000-01-01Z"), 0);
	assert_int_equal(m->row, 0);
	assert_int_equal(model_jump(m, "+99999999999h"), 0);
	assert_int_equal(m->row, 8646);
	assert_int_equal(model_jump(m, "-99999999999h"), 0);
	assert_int_equal(m->row, 0);
}

static void test_filter_keeps_time(void **state)
{
	struct model *m = &((struct fx *)*state)->m;
	struct bag_message msg;

	assert_int_equal(model_jump(m, "50%"), 0);
	int64_t t = model_time(m);
	/* the connections pane is sorted by name: /rosout first, /tf second */
	m->focus = PANE_CONNS;
	model_act(m, ACTION_DOWN);
	assert_string_equal(model_topic(m)->topic, "/tf");
	model_act(m, ACTION_SOLO_TOPIC);
	assert_int_equal(bag_view_count(m->view), 2688);
	assert_int_equal(bag_view_entry(m->view, m->row, &msg), BAG_OK);
	assert_string_equal(msg.conn->topic, "/tf");
	assert_true(msg.time_ns >= t);
	model_act(m, ACTION_TOGGLE_TOPIC);
	assert_int_equal(bag_view_count(m->view), 0);
	model_act(m, ACTION_ALL_TOPICS);
	assert_int_equal(bag_view_count(m->view), 8647);
	model_act(m, ACTION_SORT);
	assert_string_equal(m->topics[m->order[0]].topic, "/tf");   /* by count */
}

static void test_steps(void **state)
{
	struct model *m = &((struct fx *)*state)->m;
	struct bag_message a, b;

	model_goto(m, 100);
	assert_int_equal(bag_view_entry(m->view, m->row, &a), BAG_OK);
	assert_int_equal(model_step_same_topic(m, 1), 0);
	assert_int_equal(bag_view_entry(m->view, m->row, &b), BAG_OK);
	assert_string_equal(a.conn->topic, b.conn->topic);
	assert_true(b.time_ns >= a.time_ns && m->row > 100);
	/* nothing of the same topic in between */
	for (uint64_t r = 101; r < m->row; r++) {
		struct bag_message x;
		assert_int_equal(bag_view_entry(m->view, r, &x), BAG_OK);
		assert_string_not_equal(x.conn->topic, a.conn->topic);
	}
	assert_int_equal(model_step_same_topic(m, -1), 0);
	assert_int_equal(m->row, 100);
	int64_t t = model_time(m);
	model_act(m, ACTION_FWD_1S);
	assert_true(model_time(m) >= t + S);
	assert_int_equal(model_jump(m, "#8647"), 0);
	assert_int_equal(m->row, 8646);
	/* a row past the end clamps, with a note */
	model_goto(m, 0);
	assert_int_equal(model_jump(m, "#99999"), 0);
	assert_int_equal(m->row, 8646);
	assert_non_null(strstr(m->note, "8647 rows"));
}

static void test_density(void **state)
{
	struct model *m = &((struct fx *)*state)->m;
	double bins[40], total = 0;

	model_density(m, bins, 40);
	for (int i = 0; i < 40; i++)
		total += bins[i];
	assert_int_equal((int)total, 8647);
	assert_true(bins[0] > 0 && bins[39] > 0);
}

/* fx: the model over a new .db3 of n rows at path (a mkstemp template), lone: no metadata.yaml */
static void fx_db3(struct fx *fx, char *path, int n)
{
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	db3_write(path, n, 2, NULL);
	assert_int_equal(bag_open(&fx->bag, path, NULL), BAG_OK);
	assert_int_equal(bag_timeline_open(&fx->tl, &fx->bag, 1), BAG_OK);
	assert_int_equal(model_init(&fx->m, fx->tl), BAG_OK);
}

/*
 * 300,000 messages in 5 spans, fewer than the bins: the densities come from
 * the spans' counts (summing to every message) and load no more rows than
 * the model's first, as the browser's first screen needs; exact ones would
 * read the whole file.
 */
static void test_density_big(void **state)
{
	char path[] = "/tmp/bagscope-density-XXXXXX";
	struct fx fx = { 0 };
	double bins[40], rows[2 * 40], total = 0, total2 = 0;
	(void)state;

	if (test_scale() > 1)
		skip();   /* its point is the size: a big file's timeline reads no table */
	fx_db3(&fx, path, 300000);
	assert_true(bag_chunk_count(fx.bag) < 40);
	uint64_t loaded = bag_timeline_loaded_rows(fx.tl);   /* the model's first rows */
	assert_true(loaded < 300000 / 2);
	model_density(&fx.m, bins, 40);
	model_density_topics(&fx.m, rows, 40);
	for (int i = 0; i < 40; i++)
		total += bins[i];
	for (int i = 0; i < 2 * 40; i++)
		total2 += rows[i];
	assert_int_equal((int)(total + 0.5), 300000);
	assert_int_equal((int)(total2 + 0.5), 300000);
	assert_int_equal(bag_timeline_loaded_rows(fx.tl), loaded);
	model_free(&fx.m);
	bag_timeline_free(fx.tl);
	bag_close(fx.bag);
	unlink(path);
}

/*
 * A lone .db3 opens with its counts estimated: its topics' counts (and the
 * title's) are pending until model_set_counts() gives the exact ones (the
 * browser's rates pass counts them), which become the bag's too.
 */
static void test_counts_pending(void **state)
{
	char path[] = "/tmp/bagscope-pending-XXXXXX";
	struct fx fx = { 0 };
	uint64_t per[2] = { 1001, 999 };
	(void)state;

	fx_db3(&fx, path, 2000);
	assert_int_equal(fx.m.ntopics, 2);
	assert_true(fx.m.topics[0].count_pending && fx.m.topics[1].count_pending);
	bool estimate = false;
	model_title_count(&fx.m, &estimate);
	assert_true(estimate);
	model_set_counts(&fx.m, per);
	assert_int_equal(model_title_count(&fx.m, &estimate), 2000);
	assert_false(estimate);
	assert_true(bag_counts_exact(fx.bag));
	assert_int_equal(bag_message_count(fx.bag), 2000);
	for (size_t t = 0; t < 2; t++) {
		assert_false(fx.m.topics[t].count_pending);
		assert_int_equal(fx.m.topics[t].count, strcmp(fx.m.topics[t].topic, "/a") == 0 ? 1001 : 999);
	}
	model_free(&fx.m);
	bag_timeline_free(fx.tl);
	bag_close(fx.bag);
	unlink(path);
}

/* Per-topic strips: each topic's bins add up to its count; together to the bag's. */
static void test_density_per_topic(void **state)
{
	struct model *m = &((struct fx *)*state)->m;
	double bins[40], all = 0;

	for (size_t t = 0; t < m->ntopics; t++) {
		double total = 0;
		model_density_topic(m, t, bins, 40);
		for (int i = 0; i < 40; i++)
			total += bins[i];
		assert_int_equal((uint64_t)(total + 0.5), m->topics[t].count);
		all += total;
	}
	assert_int_equal((int)(all + 0.5), 8647);
	/* a hidden topic still has its strip */
	m->topics[0].shown = false;
	model_density_topic(m, 0, bins, 40);
	double total = 0;
	for (int i = 0; i < 40; i++)
		total += bins[i];
	assert_int_equal((uint64_t)(total + 0.5), m->topics[0].count);
	/* chunk-info path: more chunks than bins (1 bin here, the bag has 1 chunk: exact) */
	model_density_topic(m, 0, bins, 1);
	assert_int_equal((uint64_t)(bins[0] + 0.5), m->topics[0].count);
	/* every topic in one pass (1 bin: the chunk-info path) agrees with the counts */
	double *rows = calloc(m->ntopics, sizeof *rows);
	assert_non_null(rows);
	model_density_topics(m, rows, 1);
	for (size_t t = 0; t < m->ntopics; t++)
		assert_int_equal((uint64_t)(rows[t] + 0.5), m->topics[t].count);
	/* and at 40 bins (the exact path here) row by row as model_density_topic */
	double *many = calloc(m->ntopics * 40, sizeof *many);
	assert_non_null(many);
	model_density_topics(m, many, 40);
	for (size_t t = 0; t < m->ntopics; t++) {
		model_density_topic(m, t, bins, 40);
		assert_memory_equal(many + 40 * t, bins, sizeof bins);
	}
	free(rows);
	free(many);
}

/*
 * The connections pane over 100k connections (one topic each, one chunk):
 * topics grouped by sorting, not a search per connection, and every strip
 * at once in one pass (not a view per topic).
 */
static void test_many_topics(void **state)
{
	enum { BINS = 16 };
	const uint32_t N = (uint32_t)test_scaled(100000);
	char dir[] = "/tmp/bagscope-model-XXXXXX", path[64], topic[32];
	struct bag_writer_opts opts = { .size = sizeof(struct bag_writer_opts), .chunk_threshold = UINT32_MAX };
	bag_writer_t *w;
	bag_timeline_t *tl;
	struct model m;
	bag_t *bag;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/many.bag", dir);
	assert_int_equal(bag_writer_open(&w, path, &opts), BAG_OK);
	for (uint32_t i = 0; i < N; i++) {
		/* ids and topic names in opposite orders, and two connections on /c0000000 */
		struct bag_conn_spec c = { topic, "std_msgs/UInt32", "304a39449588c7f8ce2df6e8001c5fce",
		                           "uint32 data\n", i == N - 1 ? "/other" : NULL, false };
		snprintf(topic, sizeof topic, "/c%07u", i == N - 1 ? 0 : N - 2 - i);
		assert_int_equal(bag_writer_write(w, &c, 1600000000LL * S + (int64_t)i * 1000, &i, sizeof i), BAG_OK);
	}
	assert_int_equal(bag_writer_close(w), BAG_OK);
	bag_writer_free(w);
	assert_int_equal(bag_open(&bag, path, NULL), BAG_OK);
	assert_int_equal(bag_timeline_open(&tl, &bag, 1), BAG_OK);
	assert_int_equal(model_init(&m, tl), BAG_OK);
	assert_int_equal(m.ntopics, N - 1);
	for (size_t k = 0; k < m.ntopics; k++) {
		const struct topic_row *r = &m.topics[m.order[k]];
		snprintf(topic, sizeof topic, "/c%07zu", k);
		assert_string_equal(r->topic, topic);
		assert_int_equal(r->nconns, k == 0 ? 2 : 1);
		assert_int_equal(r->count, k == 0 ? 2 : 1);
		for (size_t j = 0; j < r->nconns; j++)
			assert_string_equal(bag_timeline_conn(tl, r->conns[j], NULL)->topic, topic);
	}
	assert_int_equal(bag_view_count(m.view), N);
	double *bins = calloc((size_t)N * BINS, sizeof *bins);
	assert_non_null(bins);
	model_density_topics(&m, bins, BINS);
	for (size_t t = 0; t < m.ntopics; t++) {
		double total = 0;
		for (int b = 0; b < BINS; b++)
			total += bins[t * BINS + (size_t)b];
		assert_int_equal((uint64_t)(total + 0.5), m.topics[t].count);
	}
	free(bins);
	model_free(&m);
	bag_timeline_free(tl);
	bag_close(bag);
	unlink(path);
	rmdir(dir);
}

/* The zone of dates and a bare time of day (the browser's jump prompt). */
static void test_jump_zone(void **state)
{
	struct jump j;
	const char *why;

	setenv("TZ", "Europe/Berlin", 1);
	/* shown in UTC: a date without a zone is UTC */
	assert_int_equal(jump_parse_zone("2017-07-14 02:40:10", start, end, cur, true, &j, &why), 0);
	assert_int_equal(j.time_ns, 1500000010 * S);
	/* shown in local time: Berlin, UTC+2 in July */
	assert_int_equal(jump_parse_zone("2017-07-14 04:40:10", start, end, cur, false, &j, &why), 0);
	assert_int_equal(j.time_ns, 1500000010 * S);
	/* a bare time of day is on the bag's date (start: 2017-07-14 02:40:00 UTC) */
	assert_int_equal(jump_parse_zone("02:41:00.5", start, end, cur, true, &j, &why), 0);
	assert_int_equal(j.time_ns, 1500000060 * S + 500000000);
	assert_int_equal(jump_parse_zone("04:41", start, end, cur, false, &j, &why), 0);
	assert_int_equal(j.time_ns, 1500000060 * S);
	assert_int_not_equal(jump_parse_zone("25:00", start, end, cur, true, &j, &why), 0);
	setenv("TZ", "UTC", 1);
}

/* Search patterns: smart case, regex detection, the bytes prefilter and its soundness rule. */
static void test_match(void **state)
{
	struct matcher mt;
	size_t a, b;
	bag_msgdef_t *def = NULL;
	static const char log_def[] = "byte level\nstring name\nstring msg\nfloat64 x\n";

	assert_int_equal(match_init(&mt, "needle"), 0);
	assert_true(mt.icase && !mt.regex);
	assert_true(match_find(&mt, "a NeEdLe here", 13, &a, &b));
	assert_int_equal(a, 2);
	assert_int_equal(b, 8);
	assert_true(match_in_bytes(&mt, (const uint8_t *)"xxNEEDLE", 8));
	match_free(&mt);
	assert_int_equal(match_init(&mt, "Needle"), 0);
	assert_false(mt.icase);
	assert_false(match_find(&mt, "needle", 6, &a, &b));
	match_free(&mt);
	assert_int_equal(match_init(&mt, "x: [0-9]+\\.5"), 0);
	assert_true(mt.regex);
	assert_true(match_find(&mt, "  x: 12.5", 9, &a, &b));
	assert_int_equal(a, 2);
	match_free(&mt);
	assert_int_not_equal(match_init(&mt, "a[b"), 0);
	assert_non_null(mt.err);
	match_free(&mt);

	assert_int_equal(bag_msgdef_parse(&def, "t/Log", log_def, strlen(log_def)), BAG_OK);
	/* 'b', 'g', 'p' are in no field name, number or punctuation: only inside a string */
	assert_int_equal(match_init(&mt, "bagscope-needle"), 0);
	assert_false(match_needs_text(&mt, def));
	assert_true(match_has_strings(def));
	match_free(&mt);
	/* "x: 1" can be made by a number line: every message must be formatted */
	assert_int_equal(match_init(&mt, "x: 1"), 0);
	assert_true(match_needs_text(&mt, def));
	match_free(&mt);
	/* a quote or a backslash reaches into string boundaries and escapes */
	assert_int_equal(match_init(&mt, "b\""), 0);
	assert_true(match_needs_text(&mt, def));
	match_free(&mt);
	bag_msgdef_free(def);
}

/* The filter's rows: the list shows view rows frows[], seeks and moves among them. */
static void test_filter_rows(void **state)
{
	struct model *m = &((struct fx *)*state)->m;
	struct bag_message a, b;
	uint64_t rows[] = { 5, 10, 20, 400 };

	m->frows = malloc(sizeof rows);
	memcpy(m->frows, rows, sizeof rows);
	m->nfrows = m->capfrows = 4;
	m->filtered = true;
	assert_int_equal(model_count(m), 4);
	assert_int_equal(model_entry(m, 1, &a), BAG_OK);
	assert_int_equal(bag_view_entry(m->view, 10, &b), BAG_OK);
	assert_int_equal(a.time_ns, b.time_ns);
	model_goto_view_row(m, 11);
	assert_int_equal(m->row, 2);
	assert_int_equal(model_seek(m, b.time_ns), BAG_OK);
	assert_int_equal(m->row, 1);
	model_act(m, ACTION_BOTTOM);
	assert_int_equal(m->row, 3);
	assert_int_equal(model_view_row(m, m->row), 400);
	model_filter_off(m);
	assert_false(m->filtered);
	assert_int_equal(m->row, 400);
	assert_int_equal(model_count(m), 8647);
}

/* x and o act on the selected message's topic when the list has the focus. */
static void test_focused_topic(void **state)
{
	struct model *m = &((struct fx *)*state)->m;
	struct bag_message msg;

	m->focus = PANE_LIST;
	assert_int_equal(model_jump(m, "50%"), 0);
	assert_int_equal(model_entry(m, m->row, &msg), BAG_OK);
	assert_string_equal(model_focused_topic(m)->topic, msg.conn->topic);
	uint64_t before = bag_view_count(m->view);
	model_act(m, ACTION_TOGGLE_TOPIC);
	assert_false(m->topics[m->topic_of[msg.conn_index]].shown);
	assert_true(bag_view_count(m->view) < before);
	m->focus = PANE_CONNS;
	assert_ptr_equal(model_focused_topic(m), model_topic(m));
}

/*
 * Stepping back always goes back: to the first message in [now - N, now),
 * or when there is none (a gap) to the last one before now - N.
 */
static void test_step_back_gap(void **state)
{
	struct model *m = &((struct fx *)*state)->m;
	struct bag_message here, got, prev;

	m->focus = PANE_CONNS;
	model_act(m, ACTION_SOLO_TOPIC);   /* /rosout: 10 messages with gaps */
	assert_int_equal(bag_view_count(m->view), 10);
	for (uint64_t r = 1; r < 10; r++) {
		model_goto(m, r);
		assert_int_equal(model_entry(m, r, &here), BAG_OK);
		model_step_time(m, -S);
		assert_true(m->row < r);
		assert_int_equal(model_entry(m, m->row, &got), BAG_OK);
		if (got.time_ns < here.time_ns - S) {
			/* a gap: nothing in [now - 1 s, now) */
			assert_int_equal(model_entry(m, m->row + 1, &prev), BAG_OK);
			assert_true(prev.time_ns >= here.time_ns - S);
			assert_int_equal(m->row + 1, r);
		} else if (m->row > 0) {
			assert_int_equal(model_entry(m, m->row - 1, &prev), BAG_OK);
			assert_true(prev.time_ns < here.time_ns - S);
		}
	}
	model_goto(m, 0);
	model_step_time(m, -S);
	assert_int_equal(m->row, 0);
	assert_non_null(strstr(m->note, "first message"));
}

/* model.ready of a URL bag, faked: whether the index "has come in". */
static bool fetched;

static bool fake_ready(void *arg, size_t group)
{
	(void)arg, (void)group;
	return fetched;
}

/* A seek into a group being fetched: at once on its first row, exact when in, unless a key moved first. */
static void test_seek_pending(void **state)
{
	bag_t *bag;
	bag_timeline_t *tl;
	struct model m;
	const int64_t t = 1500000103000000000LL;
	uint64_t exact, reads0, reads1, bytes, moved;
	bag_view_t *v;

	(void)state;
	assert_int_equal(bag_open(&bag, FIX "bags/nested_bz2.bag", NULL), BAG_OK);
	assert_int_equal(bag_timeline_open(&tl, &bag, 1), BAG_OK);
	assert_int_equal(model_init(&m, tl), BAG_OK);
	m.list_height = 5;
	m.ready = fake_ready;
	fetched = false;
	bag_read_totals(bag, &bytes, &reads0);
	assert_int_equal(model_seek(&m, t), BAG_OK);
	bag_read_totals(bag, &bytes, &reads1);
	assert_int_equal(reads1, reads0);       /* answered without a read */
	assert_true(m.seek_pending);
	assert_false(model_settle(&m));        /* still being fetched */
	/* a key before the index comes in decides */
	moved = m.row + 1;
	model_seek_drop(&m);
	model_goto(&m, moved);
	fetched = true;
	assert_false(model_settle(&m));
	assert_int_equal(m.row, moved);
	/* else the exact row once it is in */
	fetched = false;
	model_goto(&m, 0);
	assert_int_equal(model_seek(&m, t), BAG_OK);
	assert_true(m.seek_pending);
	assert_int_equal(bag_view_open(&v, tl, NULL), BAG_OK);
	assert_int_equal(bag_view_seek(v, t, &exact), BAG_OK);
	bag_view_free(v);
	assert_true(m.row < exact);
	fetched = true;
	assert_true(model_settle(&m));
	assert_int_equal(m.row, exact);
	assert_false(m.seek_pending);
	model_free(&m);
	bag_timeline_free(tl);
	bag_close(bag);
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jump_forms),
		cmocka_unit_test(test_many_topics),
		cmocka_unit_test_setup_teardown(test_cursor_and_scroll, fx_open, fx_close),
		cmocka_unit_test_setup_teardown(test_far_jumps, fx_open, fx_close),
		cmocka_unit_test_setup_teardown(test_filter_keeps_time, fx_open, fx_close),
		cmocka_unit_test_setup_teardown(test_steps, fx_open, fx_close),
		cmocka_unit_test_setup_teardown(test_density, fx_open, fx_close),
		cmocka_unit_test_setup_teardown(test_density_per_topic, fx_open, fx_close),
		cmocka_unit_test(test_density_big),
		cmocka_unit_test(test_counts_pending),
		cmocka_unit_test(test_jump_zone),
		cmocka_unit_test(test_match),
		cmocka_unit_test_setup_teardown(test_filter_rows, fx_open, fx_close),
		cmocka_unit_test_setup_teardown(test_focused_topic, fx_open, fx_close),
		cmocka_unit_test_setup_teardown(test_step_back_gap, fx_open, fx_close),
		cmocka_unit_test(test_seek_pending),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
