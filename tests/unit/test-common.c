/*
 * test-common.c - what the CLI and the browser share (src/common): the
 * terminal escaping scheme of termtext.h, class by class, and the time
 * parser on times beyond signed 64-bit nanoseconds (clamped, never
 * overflowed: this file runs under UBSan in the sanitizer build), and the
 * selection options of the subcommands (select.h) on a fixture bag.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/select.h"
#include "common/termtext.h"
#include "common/timeparse.h"

/* s escaped, as a NUL-terminated string owned by the caller's buffer t. */
static const char *esc(struct bag_text *t, const char *s, size_t len)
{
	t->len = 0;
	term_escape(t, s, len);
	assert_false(t->failed);
	return t->len ? t->p : "";
}

static void test_escape_scheme(void **state)
{
	static const struct { const char *in; size_t len; const char *out; } cases[] = {
		{ "plain /topic_1 ~x", 17, "plain /topic_1 ~x" },
		{ "back\\slash", 10, "back\\slash" },                   /* kept: idempotent, not reversible */
		{ "\a\b\t\n\v\f\r\x1b", 8, "\\a\\b\\t\\n\\v\\f\\r\\e" },
		{ "nul\0x", 5, "nul\\x00x" },
		{ "\x01\x1f\x7f", 3, "\\x01\\x1f\\x7f" },
		{ "\x1b]0;title\x07", 10, "\\e]0;title\\a" },
		{ "csi\xc2\x9b" "2J", 7, "csi\\u009b2J" },                /* C1 as UTF-8 */
		{ "nel\xc2\x85", 5, "nel\\u0085" },
		{ "raw\x9b" "2J", 6, "raw\\x9b2J" },                      /* C1 byte, invalid UTF-8 */
		{ "nbsp\xc2\xa0\xc3\xa9\xe2\x80\xa6\xf0\x9f\x98\x80", 15,
		  "nbsp\xc2\xa0\xc3\xa9\xe2\x80\xa6\xf0\x9f\x98\x80" },   /* U+00A0 and up kept */
		{ "cut\xe2\x80", 5, "cut\\xe2\\x80" },                     /* truncated sequence */
		{ "\xc0\xaf\xed\xa0\x80\xf5", 6, "\\xc0\\xaf\\xed\\xa0\\x80\\xf5" }, /* overlong, surrogate, > U+10FFFF */
		/* bidirectional controls (issue 18): overrides, embeddings, isolates, marks */
		{ "abc\xe2\x80\xae" "fed", 9, "abc\\u202efed" },
		{ "\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad", 12, "\\u202a\\u202b\\u202c\\u202d" },
		{ "\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9", 12, "\\u2066\\u2067\\u2068\\u2069" },
		{ "\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c", 8, "\\u200e\\u200f\\u061c" },
		{ "\xe2\x80\xaf\xe2\x81\xa5\xe2\x80\x8d", 9, "\xe2\x80\xaf\xe2\x81\xa5\xe2\x80\x8d" }, /* neighbours kept */
	};
	struct bag_text t = { 0 }, again = { 0 };

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const char *out = esc(&t, cases[i].in, cases[i].len);
		if (strcmp(out, cases[i].out) != 0)
			fail_msg("case %zu: got '%s', want '%s'", i, out, cases[i].out);
		assert_int_equal(term_clean(cases[i].in, cases[i].len), strcmp(out, cases[i].in) == 0 &&
		                                                            strlen(cases[i].in) == cases[i].len);
		/* escaped text is clean, and escaping it again changes nothing */
		assert_true(term_clean(t.p ? t.p : "", t.len));
		assert_string_equal(esc(&again, out, strlen(out)), out);
	}
	bag_text_free(&t);
	bag_text_free(&again);
}

static void test_scratch(void **state)
{
	struct term_scratch sc = { 0 };
	const char *clean = "/clean";
	const char *kept[TERM_SCRATCH];

	assert_ptr_equal(term_str(&sc, clean), clean);             /* no copy when clean */
	for (int i = 0; i < TERM_SCRATCH; i++) {
		kept[i] = term_str(&sc, i % 2 ? "\x1b" : "\n");
		assert_string_equal(kept[i], i % 2 ? "\\e" : "\\n");
	}
	for (int i = 0; i < TERM_SCRATCH; i++)                      /* all still alive */
		assert_string_equal(kept[i], i % 2 ? "\\e" : "\\n");
	term_scratch_free(&sc);
}

static void test_json_controls(void **state)
{
	static const char in[] = "{\"s\":\"del\x7f nel\xc2\x85 csi\xc2\x9b nbsp\xc2\xa0 \\u001b rlo\xe2\x80\xae lri\xe2\x81\xa6\"}";
	static const char out[] = "{\"s\":\"del\\u007f nel\\u0085 csi\\u009b nbsp\xc2\xa0 \\u001b rlo\\u202e lri\\u2066\"}";
	struct bag_text t = { 0 };

	assert_false(term_json_clean(in, sizeof in - 1));
	term_json(&t, in, sizeof in - 1);
	assert_string_equal(t.p, out);
	assert_true(term_json_clean(out, sizeof out - 1));
	bag_text_free(&t);
}

static int64_t parse(const char *s, int64_t start, int64_t end, int64_t cur)
{
	struct jump j;
	const char *why;

	if (jump_parse(s, start, end, cur, &j, &why) != 0)
		fail_msg("'%s': %s", s, why);
	assert_int_equal(j.kind, JUMP_TIME);
	return j.time_ns;
}

/* The one rate (bag_rate_hz) and its units: n - 1 periods over the span; "every N s" for slow topics. */
static void test_rate_units(void **state)
{
	static const struct {
		uint64_t n;
		int64_t span_ns;
		const char *text;
	} cases[] = {
		{ 10, 201000000, "44.8 Hz" },          /* example.bag's /rosout */
		{ 2689, 21500000000LL, "125.0 Hz" },
		{ 3, 1000000, "2.0 kHz" },
		{ 3, 5000000000LL, "400 mHz" },
		{ 2, 10000000000LL, "100 mHz" },
		{ 2, 22000000000LL, "every 22 s" },
		{ 4, 630000000000LL, "every 3.5 min" },
		{ 2, 9000000000000LL, "every 2.5 h" },
		{ 2, 302400000000000LL, "every 3.5 days" },
		{ 2, 0, "-" },                          /* two at one time */
		{ 1, 5, "-" },
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		/* near 2^60 ns, where a double has no nanoseconds */
		int64_t first = 1396293887840000001LL;
		rate_text(buf, sizeof buf, bag_rate_hz(cases[i].n, first, first + cases[i].span_ns));
		assert_string_equal(buf, cases[i].text);
	}
	assert_true(bag_rate_hz(2, 1396293887840000001LL, 1396293887840000002LL) == 1e9);
}

/* Spans (the browser's title) in a unit that fits. */
static void test_span_units(void **state)
{
	static const struct {
		double secs;
		const char *text;
	} cases[] = {
		{ 0, "0.0 s" }, { 19.7, "19.7 s" }, { 119.9, "119.9 s" }, { 4000, "66.7 min" },
		{ 10000, "2.8 h" }, { 172799, "48.0 h" }, { 103706216.2, "1200.3 days" },
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		span_text(buf, sizeof buf, cases[i].secs);
		assert_string_equal(buf, cases[i].text);
	}
}

static void test_far_times_clamp(void **state)
{
	const int64_t S = 1000000000, start = 1500000000 * S, end = start + 100 * S;

	setenv("TZ", "UTC", 1);
	/* the last and first instants int64 nanoseconds hold, exactly */
	assert_int_equal(parse("2262-04-11 23:47:16.854775807Z", start, end, start), INT64_MAX);
	assert_int_equal(parse("1677-09-21 00:12:43.145224192Z", start, end, start), INT64_MIN);
	/* beyond them: clamped */
	static const char *const late[] = {
		"2300-01-01", "9999-12-31", "9999-12-31 23:59:59.999999999Z", "2262-04-11 23:47:17Z",
		"9223372037", "99999999999999999999999999999", "+99999999999h", "+9223372037s",
		"99999999999999999h99999999999999999m", ">5s",
	};
	for (size_t i = 0; i < sizeof late / sizeof *late; i++)
		if (parse(late[i], start, end, i + 1 < sizeof late / sizeof *late ? start : INT64_MAX - 1) != INT64_MAX)
			fail_msg("'%s' is not clamped to INT64_MAX", late[i]);
	static const char *const early[] = { "0000-01-01", "0000-01-01 00:00:00Z", "1677-09-21 00:12:43Z",
	                                     "-99999999999h", "-99999999999", "<5s" };
	for (size_t i = 0; i < sizeof early / sizeof *early; i++)
		if (parse(early[i], start, end, i + 1 < sizeof early / sizeof *early ? start : INT64_MIN + 1) != INT64_MIN)
			fail_msg("'%s' is not clamped to INT64_MIN", early[i]);
	/* percentages of the widest span */
	assert_int_equal(parse("100%", INT64_MIN, INT64_MAX, 0), INT64_MAX);
	assert_int_equal(parse("0%", INT64_MIN, INT64_MAX, 0), INT64_MIN);
	/* rows far away are rows, not overflows */
	struct jump j;
	const char *why;
	assert_int_equal(jump_parse("#99999999999999999999999", start, end, start, &j, &why), 0);
	assert_int_equal(j.kind, JUMP_ROW);
	assert_true(j.row > 1000000000000ULL);
}

/* The rows a selection gives on basic_none.bag (/counter Int64 x7, /greeting String x7 ...). */
static uint64_t selected_rows(struct select *s, bag_timeline_t *tl, int *rc, struct bag_error *err)
{
	struct bag_query q;
	bag_view_t *v = NULL;
	uint64_t n;

	if ((*rc = select_query(s, tl, &q, err)) != BAG_OK)
		return 0;
	assert_int_equal(bag_view_open(&v, tl, &q), BAG_OK);
	n = bag_view_count(v);
	bag_view_free(v);
	return n;
}

static void unmatched(void *arg, const char *what, const char *name)
{
	char *out = arg;
	strcat(out, what);
	strcat(out, " ");
	strcat(out, name);
	strcat(out, ";");
}

static void test_select(void **state)
{
	char *argv[] = { "cat", "--topic", "/counter", "--type", "std_msgs/String", "-t", "/nope",
	                 "--start", "+2", "--end", "+4.5", "--filter", "data >", NULL };
	int argc = 13, opt, rc;
	static const struct option longopts[] = {
		SELECT_OPT_TOPIC, SELECT_OPT_TYPE, SELECT_OPT_START, SELECT_OPT_END, SELECT_OPT_FILTER,
		{ NULL, 0, NULL, 0 },
	};
	struct bag_error err;
	struct select s;
	bag_t *bag = NULL;
	bag_timeline_t *tl = NULL;
	char miss[256] = "";
	(void)state;

	assert_int_equal(select_init(&s, "cat", argc), BAG_OK);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "t:y:s:e:", longopts, NULL)) != -1)
		assert_true(select_option(&s, opt, optarg));
	assert_int_equal(s.ntopics, 2);
	assert_int_equal(s.ntypes, 1);
	assert_string_equal(s.start, "+2");
	assert_string_equal(s.end, "+4.5");
	/* the filter is parsed on its own, before any bag is opened */
	assert_int_equal(select_filter(&s), BAG_EEXPR);
	assert_int_equal(bag_expr_error(s.expr)->offset, 6);
	assert_int_equal(bag_open(&bag, TEST_DATA_DIR "/fixtures/bags/basic_none.bag", NULL), BAG_OK);
	assert_int_equal(bag_timeline_open(&tl, &bag, 1), BAG_OK);
	/* topic and type: none is both /counter (or /nope) and a String */
	assert_int_equal(selected_rows(&s, tl, &rc, &err), 0);
	assert_int_equal(rc, BAG_OK);
	/* their union (export): /counter and /greeting in [+2, +4.5]: times 2, 3, 4 of each */
	s.any_name = true;
	assert_int_equal(selected_rows(&s, tl, &rc, &err), 6);
	select_unmatched(&s, tl, unmatched, miss);
	assert_string_equal(miss, "topic /nope;");
	/* a time that does not parse names the command and the argument */
	s.end = "soon";
	assert_int_equal(selected_rows(&s, tl, &rc, &err), 0);
	assert_int_equal(rc, BAG_EINVAL);
	assert_string_equal(err.message, "cat: 'soon' is not a time: give epoch seconds (1500000003.25), a date "
	                    "(2020-09-13 12:26:52.5, local; a trailing Z for UTC), an offset after the bag's start "
	                    "(+12.5, +5s, 1m30s), before its end (-30s) or a fraction of its span (50%)");
	/* a start after the end */
	s.start = "+3";
	s.end = "+2";
	assert_int_equal(selected_rows(&s, tl, &rc, &err), 0);
	assert_int_equal(rc, BAG_EINVAL);
	assert_string_equal(err.message, "cat: --start +3 is after --end +2: nothing lies between");
	select_free(&s);
	bag_timeline_free(tl);
	bag_close(bag);
}

/* Type names cut to a width: the message name kept, the package shortened first, "…" where cut. */
static void test_cut_type(void **state)
{
	char out[64];

	(void)state;
	term_cut_type("diagnostic_msgs/DiagnosticArray", 40, out, sizeof out);
	assert_string_equal(out, "diagnostic_msgs/DiagnosticArray");
	term_cut_type("diagnostic_msgs/DiagnosticArray", 31, out, sizeof out);
	assert_string_equal(out, "diagnostic_msgs/DiagnosticArray");
	term_cut_type("diagnostic_msgs/DiagnosticArray", 30, out, sizeof out);
	assert_string_equal(out, "diagnostic_ms\xE2\x80\xA6/DiagnosticArray");
	term_cut_type("diagnostic_msgs/DiagnosticArray", 17, out, sizeof out);
	assert_string_equal(out, "\xE2\x80\xA6/DiagnosticArray");
	term_cut_type("diagnostic_msgs/DiagnosticArray", 16, out, sizeof out);
	assert_string_equal(out, "\xE2\x80\xA6" "DiagnosticArray");
	term_cut_type("diagnostic_msgs/DiagnosticArray", 15, out, sizeof out);
	assert_string_equal(out, "DiagnosticArra\xE2\x80\xA6");
	term_cut_type("/a/very/long/topic/name", 10, out, sizeof out);
	assert_string_equal(out, "/a/v\xE2\x80\xA6/name");
	term_cut_type("plain_name_here", 6, out, sizeof out);
	assert_string_equal(out, "plain\xE2\x80\xA6");
	/* a two-byte character counts as one column and is never split */
	term_cut_type("p\xC3\xA9kg/Name", 9, out, sizeof out);
	assert_string_equal(out, "p\xC3\xA9kg/Name");
	term_cut_type("p\xC3\xA9kg/Name", 8, out, sizeof out);
	assert_string_equal(out, "p\xC3\xA9\xE2\x80\xA6/Name");
	term_cut_tail("/robot/diagnostics_toplevel_state", 12, out, sizeof out);
	assert_string_equal(out, "\xE2\x80\xA6level_state");
	term_cut_tail("/tf", 3, out, sizeof out);
	assert_string_equal(out, "/tf");
	term_cut_tail("/p\xC3\xA9\xC3\xA9", 3, out, sizeof out);
	assert_string_equal(out, "\xE2\x80\xA6\xC3\xA9\xC3\xA9");
	term_cut_type("x", 0, out, sizeof out);
	assert_string_equal(out, "");
	/* paths: a third of the width from the start, the rest from the end */
	term_cut_middle("/data/recordings/2020/run.bag", 13, out, sizeof out);
	assert_string_equal(out, "/dat\xE2\x80\xA6/run.bag");
	term_cut_middle("/data/run.bag", 13, out, sizeof out);
	assert_string_equal(out, "/data/run.bag");
	term_cut_middle("/\xC3\xA9\xC3\xA9\xC3\xA9/x.bag", 8, out, sizeof out);
	assert_string_equal(out, "/\xC3\xA9\xE2\x80\xA6x.bag");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape_scheme),
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_rate_units),
		cmocka_unit_test(test_span_units),
		cmocka_unit_test(test_scratch),
		cmocka_unit_test(test_json_controls),
		cmocka_unit_test(test_far_times_clamp),
		cmocka_unit_test(test_cut_type),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
