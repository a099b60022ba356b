/*
 * test-tui-model.c - the browser's curses-free view model: scrolling over
 * huge row counts, the jump language, formatters, the topic table and its
 * mask on a fixture bag, the decoded tree's expand/collapse, the layout,
 * and the key table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "tui/app.h"
#include "tui/keys.h"
#include "tui/model.h"

#define S(x) ((int64_t)(x) * BAG_NSEC_PER_SEC)

static void check_invariants(const struct scroller *s)
{
	if (s->count == 0) {
		assert_int_equal(s->cursor, 0);
		assert_int_equal(s->top, 0);
		return;
	}
	assert_true(s->cursor < s->count);
	assert_true(s->top <= s->cursor);
	assert_true(s->cursor < s->top + (uint64_t)s->height);
	if (s->count >= (uint64_t)s->height)
		assert_true(s->top + (uint64_t)s->height <= s->count);
	else
		assert_int_equal(s->top, 0);
}

static void test_scroller_moves(void **state)
{
	struct scroller s;

	scroller_init(&s, 100, 10);
	check_invariants(&s);
	scroller_move(&s, 1);
	assert_int_equal(s.cursor, 1);
	assert_int_equal(s.top, 0);
	scroller_move(&s, 9);
	assert_int_equal(s.cursor, 10);
	assert_int_equal(s.top, 1);            /* scrolled the least needed */
	scroller_move(&s, -100);
	assert_int_equal(s.cursor, 0);
	assert_int_equal(s.top, 0);
	scroller_page(&s, 1);
	assert_int_equal(s.cursor, 9);
	assert_int_equal(s.top, 9);
	check_invariants(&s);
	scroller_goto(&s, 99);
	assert_int_equal(s.cursor, 99);
	assert_int_equal(s.top, 90);
	scroller_page(&s, 1);
	assert_int_equal(s.cursor, 99);
	scroller_page(&s, -1);
	assert_int_equal(s.cursor, 90);
	check_invariants(&s);
	scroller_goto(&s, 50);                 /* far jump: a third down */
	assert_int_equal(s.top, 47);
	check_invariants(&s);
}

static void test_scroller_huge_and_edges(void **state)
{
	struct scroller s;
	uint64_t n = 4000000000ULL;

	scroller_init(&s, n, 25);
	scroller_goto(&s, n - 1);
	assert_int_equal(s.top, n - 25);
	scroller_move(&s, INT64_MAX);
	assert_int_equal(s.cursor, n - 1);
	scroller_move(&s, INT64_MIN + 1);
	assert_int_equal(s.cursor, 0);
	check_invariants(&s);
	/* the list shrinks under the cursor (a topic hidden) */
	scroller_goto(&s, 1000);
	scroller_set_count(&s, 10);
	assert_int_equal(s.cursor, 9);
	assert_int_equal(s.top, 0);
	check_invariants(&s);
	scroller_set_count(&s, 0);
	check_invariants(&s);
	scroller_move(&s, 1);
	check_invariants(&s);
	/* the window shrinks (resize) */
	scroller_init(&s, 100, 20);
	scroller_move(&s, 19);
	scroller_set_height(&s, 5);
	assert_int_equal(s.cursor, 19);
	check_invariants(&s);
	scroller_set_height(&s, 0);
	assert_int_equal(s.height, 1);
	check_invariants(&s);
}

static void test_scroller_wheel(void **state)
{
	struct scroller s;

	scroller_init(&s, 100, 10);
	scroller_scroll(&s, 3);
	assert_int_equal(s.top, 3);
	assert_int_equal(s.cursor, 3);         /* dragged along */
	scroller_scroll(&s, 1000);
	assert_int_equal(s.top, 90);
	assert_int_equal(s.cursor, 90);
	scroller_move(&s, 5);
	scroller_scroll(&s, -3);
	assert_int_equal(s.top, 87);
	assert_int_equal(s.cursor, 95);        /* still visible: stays */
	scroller_scroll(&s, -1000);
	assert_int_equal(s.top, 0);
	assert_int_equal(s.cursor, 9);
	check_invariants(&s);
}

static void test_visible_rows(void **state)
{
	struct scroller s;

	scroller_init(&s, 1000000, 12);
	scroller_goto(&s, 500000);
	for (int y = 0; y < s.height; y++)
		assert_true(scroller_row_at(&s, y) >= s.top && scroller_row_at(&s, y) < s.top + 12);
	assert_true(scroller_row_at(&s, (int)(s.cursor - s.top)) == 500000);
}

static const struct jump_ctx ctx = {
	.start_ns = S(1600000000),
	.end_ns = S(1600000100),
	.current_ns = S(1600000050),
};

static int64_t jt(const char *s)
{
	struct jump j;
	assert_int_equal(jump_parse(s, &ctx, &j), 0);
	assert_int_equal(j.kind, JUMP_TIME);
	return j.time_ns;
}

static void test_jump_forms(void **state)
{
	struct jump j;

	assert_true(jt("1600000012.5") == S(1600000012) + 500000000);
	assert_true(jt("  1600000012.123456789 ") == S(1600000012) + 123456789);
	assert_true(jt("2020-09-13 12:26:52.5Z") == S(1600000012) + 500000000);
	assert_true(jt("2020-09-13T12:26:52Z") == S(1600000012));
	assert_true(jt("12:26:52.25Z") == S(1600000012) + 250000000);   /* the selection's day */
	assert_true(jt("+12.5") == S(1600000012) + 500000000);          /* offset from start */
	assert_true(jt("1m30s") == S(1600000090));
	assert_true(jt("90s") == S(1600000090));
	assert_true(jt("12.5") == S(1600000012) + 500000000);           /* small: an offset */
	assert_true(jt("+5s") == S(1600000055));                        /* relative to selection */
	assert_true(jt("-200ms") == S(1600000049) + 800000000);
	assert_true(jt("-3") == S(1600000047));
	assert_true(jt("+1h") == S(1600003650));
	assert_true(jt("50%") == S(1600000050));
	assert_true(jt("0%") == S(1600000000));
	assert_true(jt("100%") == S(1600000100));
	assert_true(jt("12.5%") == S(1600000012) + 500000000);
	assert_int_equal(jump_parse("#12345", &ctx, &j), 0);
	assert_int_equal(j.kind, JUMP_ROW);
	assert_int_equal(j.row, 12344);
	assert_int_equal(jump_parse("#0", &ctx, &j), 0);
	assert_int_equal(j.row, 0);
}

static void test_jump_local_time(void **state)
{
	struct jump j;

	setenv("TZ", "America/New_York", 1);
	tzset();
	/* 2020-09-13 12:26:52 UTC is 08:26:52 EDT */
	assert_int_equal(jump_parse("2020-09-13 08:26:52.5", &ctx, &j), 0);
	assert_true(j.time_ns == S(1600000012) + 500000000);
	setenv("TZ", "UTC", 1);
	tzset();
	assert_int_equal(jump_parse("2020-09-13 12:26:52.5", &ctx, &j), 0);
	assert_true(j.time_ns == S(1600000012) + 500000000);
}

static void test_jump_rejects(void **state)
{
	static const char *const bad[] = {
		"", "   ", "abc", "#", "#12x", "50%%", "101%", "-5%", "1m30", "5 s", "+", "-",
		"2020-13-01 00:00:00Z", "2020-09-13 25:00:00", "12:", "1.2.3", "5parsecs", "++5",
	};
	struct jump j;

	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		assert_int_equal(jump_parse(bad[i], &ctx, &j), -1);
}

static void test_durations(void **state)
{
	int64_t ns;

	assert_int_equal(duration_parse("200ms", &ns), 0);
	assert_true(ns == 200000000);
	assert_int_equal(duration_parse("1m30s", &ns), 0);
	assert_true(ns == S(90));
	assert_int_equal(duration_parse("1.5", &ns), 0);
	assert_true(ns == 1500000000);
	assert_int_equal(duration_parse("10us", &ns), 0);
	assert_true(ns == 10000);
	assert_int_equal(duration_parse("7ns", &ns), 0);
	assert_true(ns == 7);
	assert_int_equal(duration_parse("2h", &ns), 0);
	assert_true(ns == S(7200));
	assert_int_equal(duration_parse("s", &ns), -1);
	assert_int_equal(duration_parse("5x", &ns), -1);
}

static void test_formatters(void **state)
{
	char b[128];
	static const uint8_t data[20] = "hello, world\n\0\x01\xffxyz";

	fmt_time_abs(b, sizeof b, S(1500000000) + 5);
	assert_string_equal(b, "1500000000.000000005");
	fmt_time_rel(b, sizeof b, S(1500000007) + 250000000, S(1500000000));
	assert_string_equal(b, "7.250000000");
	fmt_time_rel(b, sizeof b, S(1500000000) - 500000000, S(1500000000));
	assert_string_equal(b, "-0.500000000");
	setenv("TZ", "UTC", 1);
	tzset();
	fmt_date(b, sizeof b, S(1500000003) + 250000000);
	assert_string_equal(b, "2017-07-14 02:40:03.250 UTC");
	fmt_size(b, sizeof b, 9999);
	assert_string_equal(b, "9999");
	fmt_size(b, sizeof b, 921654);
	assert_string_equal(b, "900.1K");
	fmt_count(b, sizeof b, 4000000);
	assert_string_equal(b, "4000.0k");
	fmt_count(b, sizeof b, 40000000);
	assert_string_equal(b, "40.0M");
	fmt_rate(b, sizeof b, 0);
	assert_string_equal(b, "-");
	fmt_rate(b, sizeof b, 1000);
	assert_string_equal(b, "1000.0");
	assert_true(fmt_hex_line(b, sizeof b, data, sizeof data, 0));
	assert_string_equal(b, "00000000  68 65 6c 6c 6f 2c 20 77  6f 72 6c 64 0a 00 01 ff  |hello, world....|");
	assert_true(fmt_hex_line(b, sizeof b, data, sizeof data, 1));
	assert_string_equal(b, "00000010  78 79 7a 00                                       |xyz.|");
	assert_false(fmt_hex_line(b, sizeof b, data, sizeof data, 2));
	assert_int_equal(hex_line_count(sizeof data), 2);
	assert_int_equal(hex_line_count(0), 1);
}

/* A fixture bag's timeline, for the topic table. */
struct fixture {
	bag_t *bag;
	bag_timeline_t *tl;
};

static int open_fixture(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	assert_int_equal(bag_open(&f->bag, TEST_DATA_DIR "/fixtures/bags/tf_lz4.bag", NULL), 0);
	assert_int_equal(bag_timeline_open(&f->tl, &f->bag, 1), 0);
	*state = f;
	return 0;
}

static int close_fixture(void **state)
{
	struct fixture *f = *state;
	bag_timeline_free(f->tl);
	bag_close(f->bag);
	free(f);
	return 0;
}

static void test_topics_table_and_filter(void **state)
{
	struct fixture *f = *state;
	struct topics t;
	bool *mask;
	uint64_t msgs;
	bag_view_t *v;
	struct bag_query q;

	assert_int_equal(topics_build(&t, f->tl), 0);
	assert_int_equal(t.n, 3);     /* /tf has two connections folded */
	assert_string_equal(t.rows[0].topic, "/diagnostics");
	assert_string_equal(t.rows[2].topic, "/tf");
	assert_int_equal(t.rows[2].nconns, 2);
	assert_int_equal(t.rows[2].count, 8);
	assert_int_equal(topics_shown(&t, &msgs), 3);
	assert_int_equal(msgs, 11);
	topics_sort(&t, SORT_COUNT);
	assert_string_equal(t.rows[0].topic, "/tf");
	assert_string_equal(t.rows[1].topic, "/diagnostics");
	topics_sort(&t, SORT_RATE);
	assert_string_equal(t.rows[0].topic, "/tf");
	assert_true(t.rows[0].rate > t.rows[1].rate);
	topics_sort(&t, SORT_NAME);

	/* hide /tf: the view keeps 3 messages */
	t.rows[2].shown = false;
	mask = calloc(t.nconns, sizeof *mask);
	topics_mask(&t, mask);
	bag_query_init(&q);
	q.conn_mask = mask;
	assert_int_equal(bag_view_open(&v, f->tl, &q), 0);
	assert_int_equal(bag_view_count(v), 3);
	for (uint64_t r = 0; r < 3; r++) {
		struct bag_message m;
		assert_int_equal(bag_view_entry(v, r, &m), 0);
		assert_string_not_equal(m.conn->topic, "/tf");
		assert_int_equal(topics_find_conn(&t, m.conn_index) < 2, true);
	}
	bag_view_free(v);
	assert_int_equal(topics_shown(&t, &msgs), 2);
	assert_int_equal(msgs, 3);
	free(mask);
	topics_free(&t);
}

static void test_tree_expand_collapse(void **state)
{
	static const char def_text[] =
		"Point[] points\nstring name\n"
		"================================================================================\n"
		"MSG: geometry_msgs/Point\nfloat64 x\nfloat64 y\nfloat64 z\n";
	bag_msgdef_t *def;
	struct tree t = { 0 };
	uint8_t data[4 + 20 * 24 + 4 + 2];
	char err[128];
	size_t k = 0;

	assert_int_equal(bag_msgdef_parse(&def, "test/Cloud", def_text, strlen(def_text)), 0);
	data[k++] = 20; data[k++] = 0; data[k++] = 0; data[k++] = 0;
	for (int i = 0; i < 20 * 3; i++) {
		double d = i;
		memcpy(data + k, &d, 8);
		k += 8;
	}
	data[k++] = 2; data[k++] = 0; data[k++] = 0; data[k++] = 0;
	data[k++] = 'h'; data[k++] = 'i';
	assert_int_equal(tree_build(&t, def, data, k, err, sizeof err), 0);
	/* points (20 elements: collapsed), name */
	assert_int_equal(t.nvis, 2);
	assert_string_equal(tree_label(&t, t.vis[0]), "points");
	assert_string_equal(tree_value(&t, t.vis[0]), "geometry_msgs/Point[20]");
	assert_string_equal(tree_label(&t, t.vis[1]), "name");
	assert_string_equal(tree_value(&t, t.vis[1]), "\"hi\"");
	tree_set_expanded(&t, t.vis[0], 1);
	assert_int_equal(t.nvis, 2 + 20 * 4);       /* 20 x ([i], x, y, z) */
	assert_string_equal(tree_label(&t, t.vis[1]), "[0]");
	assert_string_equal(tree_label(&t, t.vis[3]), "y");
	assert_string_equal(tree_value(&t, t.vis[3]), "1.0");
	assert_int_equal(t.nodes[t.vis[3]].depth, 2);
	assert_int_equal(tree_parent_line(&t, 3), 1);
	assert_int_equal(tree_parent_line(&t, 1), 0);
	assert_int_equal(tree_parent_line(&t, 0), 0);
	tree_set_expanded(&t, t.vis[1], 0);          /* collapse [0] */
	assert_int_equal(t.nvis, 2 + 1 + 19 * 4);
	tree_set_all(&t, false);
	assert_int_equal(t.nvis, 2);
	tree_set_all(&t, true);
	assert_int_equal(t.nvis, 2 + 20 * 4);
	/* a truncated message: an error, and what decoded so far */
	assert_int_equal(tree_build(&t, def, data, 30, err, sizeof err), BAG_EDECODE);
	assert_true(strlen(err) > 0);
	tree_free(&t);
	bag_msgdef_free(def);
}

static void test_tree_long_array(void **state)
{
	static const char def_text[] = "uint8[] data\n";
	bag_msgdef_t *def;
	struct tree t = { 0 };
	uint8_t data[4 + 1000];
	char err[128];

	assert_int_equal(bag_msgdef_parse(&def, "test/Blob", def_text, strlen(def_text)), 0);
	memset(data, 7, sizeof data);
	data[0] = 0xe8; data[1] = 0x03; data[2] = 0; data[3] = 0;   /* 1000 */
	assert_int_equal(tree_build(&t, def, data, sizeof data, err, sizeof err), 0);
	tree_set_all(&t, true);
	/* data, 256 elements, "…" (744 more) */
	assert_int_equal(t.nvis, 1 + TREE_ARRAY_SHOWN + 1);
	assert_string_equal(tree_value(&t, t.vis[t.nvis - 1]), "(744 more)");
	tree_free(&t);
	bag_msgdef_free(def);
}

static void test_textlines(void **state)
{
	struct bag_text t = { 0 };
	struct textlines tl;

	bag_text_printf(&t, "one\ntwo\n\nfour\n");
	assert_int_equal(textlines_take(&tl, &t), 0);
	assert_int_equal(tl.n, 4);
	assert_string_equal(textlines_line(&tl, 1), "two");
	assert_string_equal(textlines_line(&tl, 2), "");
	assert_string_equal(textlines_line(&tl, 3), "four");
	assert_null(t.p);
	textlines_free(&tl);
}

static void test_smartcase(void **state)
{
	const char *hay = "frame_id: Base_Link";

	assert_non_null(smartcase_find(hay, strlen(hay), "base_link"));
	assert_non_null(smartcase_find(hay, strlen(hay), "Base"));
	assert_null(smartcase_find(hay, strlen(hay), "BASE"));
	assert_null(smartcase_find(hay, 5, "id"));
}

static void test_layout(void **state)
{
	struct layout l;

	layout_compute(&l, 100, 30, 6, 6);
	assert_false(l.too_small);
	assert_int_equal(l.status.y, 29);
	int total = 0;
	for (int i = 0; i < PANE_COUNT; i++) {
		assert_true(l.pane[i].h >= 2);
		assert_true(l.pane[i].x + l.pane[i].w <= 100);
		if (l.pane[i].x == 0)
			total += l.pane[i].h;
	}
	assert_int_equal(total + 1, 30);   /* panes stacked, then the status line */
	assert_int_equal(l.pane[PANE_CONNS].y, 0);
	assert_int_equal(l.pane[PANE_LIST].y, l.pane[PANE_CONNS].h);
	/* wide: detail beside the list */
	layout_compute(&l, 200, 50, 3, 3);
	assert_int_equal(l.pane[PANE_DETAIL].y, l.pane[PANE_LIST].y);
	assert_int_equal(l.pane[PANE_DETAIL].x, l.pane[PANE_LIST].w);
	layout_compute(&l, 59, 30, 3, 3);
	assert_true(l.too_small);
	layout_compute(&l, 100, 15, 3, 3);
	assert_true(l.too_small);
	layout_compute(&l, LAYOUT_MIN_W, LAYOUT_MIN_H, 1000, 1000);
	assert_false(l.too_small);
	assert_true(l.pane[PANE_LIST].h >= 3);
	assert_true(l.pane[PANE_DETAIL].h >= 2);
}

static void test_key_table(void **state)
{
	size_t n;
	const struct action_info *t = keys_table(&n);

	assert_int_equal(n, ACT_COUNT - 1);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(t[i].action, (int)i + 1);
		assert_true(strlen(t[i].help) > 0);
		assert_int_equal(keys_by_name(t[i].name), t[i].action);
	}
	assert_int_equal(keys_action('j'), ACT_DOWN);
	assert_int_equal(keys_action(KEYC_DOWN), ACT_DOWN);
	assert_int_equal(keys_action(' '), ACT_PAGE_DOWN);
	assert_int_equal(keys_action('G'), ACT_END);
	assert_int_equal(keys_action('q'), ACT_QUIT);
	assert_int_equal(keys_action(':'), ACT_JUMP);
	assert_int_equal(keys_action('Z'), ACT_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scroller_moves),
		cmocka_unit_test(test_scroller_huge_and_edges),
		cmocka_unit_test(test_scroller_wheel),
		cmocka_unit_test(test_visible_rows),
		cmocka_unit_test(test_jump_forms),
		cmocka_unit_test(test_jump_local_time),
		cmocka_unit_test(test_jump_rejects),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_formatters),
		cmocka_unit_test_setup_teardown(test_topics_table_and_filter, open_fixture, close_fixture),
		cmocka_unit_test(test_tree_expand_collapse),
		cmocka_unit_test(test_tree_long_array),
		cmocka_unit_test(test_textlines),
		cmocka_unit_test(test_smartcase),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_key_table),
	};

	setenv("TZ", "UTC", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
