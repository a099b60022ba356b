/*
 * test-find.c - bag_finder (the browser search's fast test) against the
 * text the browser shows: on every message of every fixture bag, for
 * needles cut from that text (across labels, values and separators), needles
 * whose letters all occur in field names, unicode, upper case (smart case)
 * and regexes (their required literal, match_literal), the finder says
 * "maybe" wherever the summary or a detail line holds it, and "no"
 * wherever neither does, except where the summary was cut short.
 */
#include <ctype.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "scale.h"

#include <bagscope/bagscope.h>
#include <bagscope/find.h>

#include "tui/detail.h"
#include "tui/match.h"

#define FIX TEST_DATA_DIR "/fixtures/"
#define SUMMARY_MAX 199
#define MAX_NEEDLES 400
#define MAX_ROWS 3000

struct msg {
	bag_msgdef_t *def;
	uint8_t *data;
	size_t len;
	char *summary;      /* as the list shows it */
	bool cut;           /* the summary reached SUMMARY_MAX */
	char **lines;       /* the detail's */
	size_t nlines;
	size_t first;       /* the first message of the same definition */
	char *text;         /* the definition's text */
};

struct corpus {
	struct msg *m;
	size_t n;
	char *needles[MAX_NEEDLES];
	size_t nneedles;
};

static void keep_line(void *arg, int depth, bool node, const char *text, size_t len, const char *path)
{
	struct msg *m = arg;

	(void)depth, (void)node, (void)path;
	m->lines = realloc(m->lines, (m->nlines + 1) * sizeof *m->lines);
	assert_non_null(m->lines);
	m->lines[m->nlines++] = strndup(text, len);
}

/* Every message of path, decoded and rendered as the browser renders it. */
static void load(struct corpus *c, const char *path)
{
	bag_t *bag;
	bag_timeline_t *tl;
	bag_view_t *v;
	struct bag_message bm;
	struct bag_error err;

	assert_int_equal(bag_open(&bag, path, NULL), BAG_OK);
	assert_int_equal(bag_timeline_open(&tl, &bag, 1), BAG_OK);
	assert_int_equal(bag_view_open(&v, tl, NULL), BAG_OK);
	uint64_t rows = bag_view_count(v);
	/* under valgrind a TEST_SCALE-th of the rows, spread over the bag (scale.h) */
	for (uint64_t r = 0; r < rows && c->n < test_scaled(MAX_ROWS); r += test_scale()) {
		if (bag_view_read(v, r, &bm) != BAG_OK || bm.conn == NULL)
			continue;
		struct msg *m;
		bag_msgdef_t *def = NULL;
		if (bag_msgdef_parse(&def, bm.conn->type, bm.conn->definition, strlen(bm.conn->definition)) != BAG_OK) {
			bag_msgdef_free(def);
			continue;
		}
		c->m = realloc(c->m, (c->n + 1) * sizeof *c->m);
		assert_non_null(c->m);
		m = &c->m[c->n++];
		memset(m, 0, sizeof *m);
		m->def = def;
		m->first = c->n - 1;
		for (size_t k = 0; k + 1 < c->n; k++)
			if (strcmp(bag_msgdef_root(c->m[k].def)->name, bag_msgdef_root(def)->name) == 0 &&
			    strcmp(bag_msgdef_md5(c->m[k].def), bag_msgdef_md5(def)) == 0 &&
			    strcmp(c->m[k].text, bm.conn->definition) == 0) {
				m->first = c->m[k].first;
				break;
			}
		m->text = strdup(bm.conn->definition);
		m->len = bm.size;
		m->data = malloc(bm.size + 1);
		memcpy(m->data, bm.data, bm.size);
		struct bag_text t = { 0 };
		bag_print_summary(&t, def, m->data, m->len, SUMMARY_MAX, &err);
		m->summary = strndup(t.p ? t.p : "", t.len);
		m->cut = t.len + 4 >= SUMMARY_MAX;
		bag_text_free(&t);
		detail_decode_lines(def, m->data, m->len, keep_line, m, &err);
	}
	bag_view_free(v);
	bag_timeline_free(tl);
	bag_close(bag);
}

static void corpus_free(struct corpus *c)
{
	for (size_t i = 0; i < c->n; i++) {
		for (size_t l = 0; l < c->m[i].nlines; l++)
			free(c->m[i].lines[l]);
		free(c->m[i].lines);
		free(c->m[i].summary);
		free(c->m[i].data);
		free(c->m[i].text);
		bag_msgdef_free(c->m[i].def);
	}
	free(c->m);
	for (size_t i = 0; i < c->nneedles; i++)
		free(c->needles[i]);
	memset(c, 0, sizeof *c);
}

/* MAX_NEEDLES, fewer under valgrind (scale.h) */
static size_t needles_max(void)
{
	return test_scaled(MAX_NEEDLES);
}

static void add_needle(struct corpus *c, const char *s, size_t len)
{
	if (c->nneedles < needles_max() && len > 0 && memchr(s, '\0', len) == NULL)
		c->needles[c->nneedles++] = strndup(s, len);
}

/* Needles cut from the shown text: every 7th message, at spread offsets, 1 to 24 bytes. */
static void cut_needles(struct corpus *c)
{
	static const char *const fixed[] = {
		"zzznotthere", "seq: 1", "x: 0", "0.0", "nan", "inf", "e-05", "1.0, ", "=0", "x=", "]", "}", "  ",
		"\xE2\x80\xA6", "\xC3\xA9", "True", "False", "true", "rue", "position", "Position", "orientation",
		"covariance: float64[9]", "[3]: ", ": 0.", "stamp: ", "frame_id: \"", "\"", "data=", ", \xE2\x80\xA6 (",
		"ationcovar", "rotation", "pose.position", "secs", "nsecs", "-", "e", "a", " ", ": ", "0", "1",
	};
	for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
		add_needle(c, fixed[i], strlen(fixed[i]));
	for (size_t i = 0; i < c->n && c->nneedles < needles_max(); i += 7) {
		const struct msg *m = &c->m[i];
		size_t sl = strlen(m->summary);
		for (size_t k = 0; k < 4 && sl > 0; k++) {
			size_t at = (sl * (2 * k + 1)) / 8, n = 1 + (i * 5 + k * 7) % 24;
			add_needle(c, m->summary + at, at + n <= sl ? n : sl - at);
		}
		for (size_t l = 0; l < m->nlines; l += 3) {
			size_t ll = strlen(m->lines[l]), at = (i + l) % (ll ? ll : 1), n = 1 + (i + 3 * l) % 24;
			if (ll > 0)
				add_needle(c, m->lines[l] + at, at + n <= ll ? n : ll - at);
		}
	}
}

/* Whether the browser's text of m shows the pattern. */
static bool shown(const struct matcher *mt, const struct msg *m)
{
	size_t a, b;

	if (match_find(mt, m->summary, strlen(m->summary), &a, &b))
		return true;
	for (size_t l = 0; l < m->nlines; l++)
		if (match_find(mt, m->lines[l], strlen(m->lines[l]), &a, &b))
			return true;
	return false;
}

/* The finder for a pattern on def: the pattern itself, or a regex's required literal. */
static bag_finder_t *finder_for(const struct matcher *mt, const bag_msgdef_t *def)
{
	bag_finder_t *f;
	char lit[256];
	size_t n = mt->len;
	const char *s = mt->fold;

	if (mt->regex) {
		n = match_literal(mt, lit, sizeof lit);
		s = lit;
	}
	assert_int_equal(bag_finder_new(&f, def, s, n, mt->icase, SUMMARY_MAX), BAG_OK);
	return f;
}

/* Check every pattern on every message; counts of answers for the caller. */
static size_t string_only;   /* checks where the byte prefilter applied */

static void check_all(struct corpus *c, const char *const *patterns, size_t np, size_t *yes, size_t *no)
{
	struct bag_text a = { 0 };
	bag_finder_t **fs = calloc(c->n + 1, sizeof *fs);

	for (size_t p = 0; p < np; p++) {
		struct matcher mt;
		if (match_init(&mt, patterns[p]) != 0)
			continue;
		for (size_t i = 0; i < c->n; i++) {
			const struct msg *m = &c->m[i];
			/* one finder per definition, made on the first message's parse of it */
			bag_finder_t *f = fs[m->first];
			if (f == NULL)
				f = fs[m->first] = finder_for(&mt, c->m[m->first].def);
			bool want = shown(&mt, m), got = bag_finder_maybe(f, m->def, m->data, m->len, &a);
			/* the byte prefilter the search puts before the finder (scanjob.c) */
			struct matcher lm;
			char lit[256];
			match_init_literal(&lm, lit, match_literal(&mt, lit, sizeof lit), mt.icase);
			const struct matcher *pre = mt.regex ? &lm : &mt;
			if (lm.len > 0 && (!match_needs_text(pre, m->def) || match_string_only(pre, m->def))) {
				string_only++;
				if (want && !match_in_bytes(pre, m->data, m->len))
					fail_msg("'%s' is shown by message %zu (%s) but its bytes lack '%s'", patterns[p], i,
					         m->summary, pre->fold);
			}
			if (want && !got)
				fail_msg("'%s' is shown by message %zu (%s) but the finder says no", patterns[p], i,
				         m->summary);
			if (got && !want && !m->cut && !mt.regex)
				fail_msg("'%s' is not shown by message %zu (%s) but the finder says maybe", patterns[p], i,
				         m->summary);
			*(want ? yes : no) += 1;
		}
		for (size_t i = 0; i < c->n; i++) {
			bag_finder_free(fs[i]);
			fs[i] = NULL;
		}
		match_free(&mt);
	}
	free(fs);
	bag_text_free(&a);
}

static void check_bag(const char *path)
{
	struct corpus c = { 0 };
	size_t yes = 0, no = 0;

	load(&c, path);
	assert_true(c.n > 0);
	cut_needles(&c);
	string_only = 0;
	check_all(&c, (const char *const *)c.needles, c.nneedles, &yes, &no);
	printf("# %s: the byte prefilter applied in %zu of %zu checks\n", path, string_only, c.nneedles * c.n);
	assert_true(string_only > 0);
	/* the needles were cut from the text: many messages show them, many do not */
	assert_true(yes > c.n);
	assert_true(no > c.n);
	corpus_free(&c);
}

static void test_basic(void **state) { (void)state; check_bag(FIX "bags/basic_none.bag"); }
static void test_nested(void **state) { (void)state; check_bag(FIX "bags/nested_bz2.bag"); }
static void test_tf(void **state) { (void)state; check_bag(FIX "bags/tf_lz4.bag"); }
static void test_large(void **state) { (void)state; check_bag(FIX "bags/large_lz4.bag"); }
static void test_images(void **state) { (void)state; check_bag(FIX "made/images.bag"); }
static void test_freq(void **state) { (void)state; check_bag(FIX "made/freq_times.bag"); }

/* Regexes: the finder of the required literal never rules out a message the regex matches. */
static void test_regex(void **state)
{
	static const char *const res[] = {
		"x: [0-9]+", "seq: 1.*", "po(s|r)ition", "frame_id: \"[a-z]+\"", "rota+tion", "stamp: 1[0-9]*\\.",
		"^header", "w: 1\\.0$", "[xyz]=0\\.", "(position|orientation)=", "in?f", "x?y: ", "covariance\\[",
		"Position.*x", "a{2}", "\\.5,", "",
	};
	static const char *const bags[] = { "bags/basic_none.bag", "bags/nested_bz2.bag", "bags/tf_lz4.bag" };
	(void)state;
	for (size_t i = 0; i < sizeof bags / sizeof *bags; i++) {
		struct corpus c = { 0 };
		size_t yes = 0, no = 0;
		char path[512];
		snprintf(path, sizeof path, "%s%s", FIX, bags[i]);
		load(&c, path);
		check_all(&c, res, sizeof res / sizeof *res, &yes, &no);
		assert_true(yes > 0);
		corpus_free(&c);
	}
}

/* The literal a regex requires: the longest run outside groups, classes and optional parts. */
static void test_literal(void **state)
{
	static const struct { const char *re, *lit; } cases[] = {
		{ "seq: [0-9]+", "seq: " }, { "conver.*seq=13", "conver" }, { "abc?def", "def" },
		{ "(x|y)=12345", "=12345" }, { "a|bcdef", "" }, { "x\\.yz+w", "x.yz" }, { "^status$", "status" },
		{ "a{2}bb", "bb" }, { "\\w+foo", "foo" }, { "ab[cd]efg", "efg" }, { "3[.]1415926535[0-9]", "3.1415926535" },
		{ "ab[c]*de", "ab" }, { "x[^.]yz", "yz" },
	};
	char lit[256];
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct matcher mt;
		assert_int_equal(match_init(&mt, cases[i].re), 0);
		size_t n = match_literal(&mt, lit, sizeof lit);
		if (n != strlen(cases[i].lit) || memcmp(lit, cases[i].lit, n) != 0)
			fail_msg("'%s': literal '%.*s', not '%s'", cases[i].re, (int)n, lit, cases[i].lit);
		match_free(&mt);
	}
}

/* One message of a definition, rendered as load() renders a bag's. */
static void add_message(struct corpus *c, const char *type, const char *text, const uint8_t *data, size_t len)
{
	struct bag_error err;
	struct bag_text t = { 0 };
	struct msg *m;

	c->m = realloc(c->m, (c->n + 1) * sizeof *c->m);
	assert_non_null(c->m);
	m = &c->m[c->n];
	memset(m, 0, sizeof *m);
	assert_int_equal(bag_msgdef_parse(&m->def, type, text, strlen(text)), BAG_OK);
	m->first = c->n;   /* or the first message of the same definition, as load() does */
	for (size_t k = 0; k < c->n; k++)
		if (strcmp(bag_msgdef_root(c->m[k].def)->name, type) == 0 && strcmp(c->m[k].text, text) == 0) {
			m->first = c->m[k].first;
			break;
		}
	c->n++;
	m->text = strdup(text);
	m->data = malloc(len);
	memcpy(m->data, data, len);
	m->len = len;
	bag_print_summary(&t, m->def, m->data, m->len, SUMMARY_MAX, &err);
	m->summary = strndup(t.p ? t.p : "", t.len);
	bag_text_free(&t);
	detail_decode_lines(m->def, m->data, m->len, keep_line, m, &err);
}

static size_t put_string(uint8_t *p, const char *s)
{
	uint32_t n = (uint32_t)strlen(s);

	memcpy(p, &n, 4);
	memcpy(p + 4, s, n);
	return 4 + n;
}

/*
 * Made-up messages for what the fixtures lack: a string past the summary's
 * 64 bytes, escapes and invalid UTF-8, a needle across the summary's cut
 * string and the next field, floats across fields and array elements.
 */
static void test_made(void **state)
{
	static const char *const pats[] = {
		"abcd\"  b=", "ghij\"  b=", "END", "jEND", "d\"  b=\"tail", "\\n", "\\u0001", "\xEF\xBF\xBD", "b: \"tail\"",
		"0.25  y=-1.5", "y=-1.5  v=", "-1.5", "v=[1.0, 2.0", "2.0, 3.0, 4.0, \xE2\x80\xA6 (6)]", "[5]: 6.0",
		"1e+16", "e-05", "5e-05", "inf", "nan", "x: 0.25", "z=True", "z: true", "True", "rue  ",
	};
	struct corpus c = { 0 };
	uint8_t buf[512];
	size_t n = 0, yes = 0, no = 0;
	char s1[128];
	(void)state;
	for (int i = 0; i < 100; i++)
		s1[i] = (char)('a' + i % 10);   /* bytes 60..63, the summary's last: "abcd" */
	strcpy(s1 + 100, "END");
	n += put_string(buf + n, s1);
	n += put_string(buf + n, "tail");
	add_message(&c, "t/S", "string a\nstring b\n", buf, n);
	n = put_string(buf, "line\nbreak \x01 bad \xff utf8 \xE2\x82");
	add_message(&c, "t/S1", "string a\n", buf, n);
	double x = 0.25, y = -1.5, v[6] = { 1, 2, 3, 4, 5, 6 }, w[3] = { 1e16, 5e-05, 1.0 / 0.0 };
	n = 0;
	memcpy(buf + n, &x, 8), n += 8;
	memcpy(buf + n, &y, 8), n += 8;
	uint32_t six = 6;
	memcpy(buf + n, &six, 4), n += 4;
	memcpy(buf + n, v, sizeof v), n += sizeof v;
	memcpy(buf + n, w, sizeof w), n += sizeof w;
	buf[n++] = 1;
	add_message(&c, "t/F", "float64 x\nfloat64 y\nfloat64[] v\nfloat64[3] w\nbool z\n", buf, n);
	check_all(&c, pats, sizeof pats / sizeof *pats, &yes, &no);
	assert_true(yes >= 15);
	assert_true(no >= 15);
	corpus_free(&c);
}

/*
 * Floats: the finder skips formatting a float whose text cannot hold a
 * needle made of float bytes (digits, ".-+e", "nan", "inf"). Random values
 * of every kind (fixed, scientific, integral, float32, signed zeros,
 * nonfinite, near the layout's switches) in scalars and an array; needles
 * cut from their texts at random places ('.' escaped, so that the finder
 * gets all of it), and near misses (one digit changed), checked against
 * the shown text.
 */
/* cut as a needle, then again with its first digit changed (by 1 + i % 8): a near miss */
static void add_needle_and_twin(struct corpus *c, char *cut, size_t i)
{
	add_needle(c, cut, strlen(cut));
	for (size_t k = 0; cut[k]; k++)
		if (cut[k] >= '0' && cut[k] <= '9') {
			cut[k] = (char)('0' + (cut[k] - '0' + 1 + i % 8) % 10);
			break;
		}
	add_needle(c, cut, strlen(cut));
}

/* Every needle on every message; many must be shown and many not. Frees the corpus. */
static void check_needles(struct corpus *c)
{
	size_t yes = 0, no = 0;

	check_all(c, (const char *const *)c->needles, c->nneedles, &yes, &no);
	printf("# %zu needles on %zu messages: %zu shown, %zu not\n", c->nneedles, c->n, yes, no);
	assert_true(yes > c->n);
	assert_true(no > c->n);
	corpus_free(c);
}

static void test_floats(void **state)
{
	static const char *const fixed[] = {
		"0.5", "1e-05", "3.14159", "-0.0", "0.0", ".0", "-", ".", "e+", "e-0", "nan", "inf", "-inf", "1.0",
		"-1", "00", "9.99", "3\\.14", "0\\.5", "-0\\.0", "\\.25", "7\\.",
		"0.000", "12.", "-12.", "5e-324", "1e+16", "3.14159265358", "2.5e-05", "99.9",
	};
	struct corpus c = { 0 };
	uint64_t r = 0x2545F4914F6CDD1DULL;
	(void)state;
	for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
		add_needle(&c, fixed[i], strlen(fixed[i]));
	for (int i = 0; i < 240; i++) {
		double v[8];
		uint8_t buf[128];
		size_t n = 0;
		for (int k = 0; k < 8; k++) {
			r ^= r << 13, r ^= r >> 7, r ^= r << 17;
			double m = (double)(r >> 11) / 9007199254740992.0, e = (double)((int)(r % 41) - 20);
			switch ((r >> 8) % 8) {
			case 0: v[k] = m * pow(10, e); break;
			case 1: v[k] = -m * pow(10, e / 4); break;
			case 2: v[k] = (double)(float)(m * 100); break;
			case 3: v[k] = floor(m * 1e6) / 1000; break;
			case 4: v[k] = (double)(int64_t)(r % 100000) - 50000; break;
			case 5: v[k] = (r & 1 ? -1 : 1) * (r & 2 ? 1e16 : 1e-4) * (1 + (double)(r % 5 - 2) * 1e-16); break;
			case 6: v[k] = (r & 1) ? -0.0 : (r & 2) ? NAN : (r & 4) ? -INFINITY : INFINITY; break;
			default: memcpy(&v[k], &r, 8); break;
			}
		}
		uint32_t four = 4;
		memcpy(buf + n, v, 4 * 8), n += 32;
		memcpy(buf + n, &four, 4), n += 4;
		memcpy(buf + n, v + 4, 4 * 8), n += 32;
		add_message(&c, "t/G", "float64 a\nfloat64 b\nfloat64 c\nfloat64 d\nfloat64[] v\n", buf, n);
	}
	/* pieces of the values' texts ("a: TEXT", "[i]: TEXT"), and each with a digit changed */
	for (size_t i = 0; i < c.n && c.nneedles + 2 <= needles_max(); i++) {
		const struct msg *m = &c.m[i];
		for (size_t l = 0; l < m->nlines && c.nneedles + 2 <= needles_max(); l += 2 + i % 3) {
			const char *t = strstr(m->lines[l], ": ");
			if (t == NULL || t[2] == '\0' || t[2] == 'f')
				continue;
			t += 2;
			size_t tl = strlen(t), at = (i * 7 + l) % tl, len = 1 + (i * 13 + l * 3) % (tl - at);
			char cut[48];
			size_t k = 0;
			for (size_t j = at; j < at + len; j++) {   /* '.' escaped: the regex's literal is all of it */
				if (t[j] == '.')
					cut[k++] = '\\';
				cut[k++] = t[j];
			}
			cut[k] = '\0';
			add_needle_and_twin(&c, cut, i);
		}
	}
	check_needles(&c);
}

/* A number-shaped pattern is read as typed: its '.' is a point, not "any byte". */
static void test_number(void **state)
{
	static const struct { const char *pat, *text; bool regex, hit; } cases[] = {
		{ "3.14", "x: 3.14159", false, true }, { "3.14", "x: 3714", false, false },
		{ "-1.5e-07", "y: -1.5e-07", false, true }, { "1.2.3", "v: 1x2y3", true, true },
		{ "3[.]14", "x: 3.14", true, true }, { "3.14|2", "x: 2", true, true }, { ".5", "x: 0.5", false, true },
		{ ".", "x", true, true }, { "1+", "11", false, false },
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct matcher mt;
		size_t a, b;
		assert_int_equal(match_init(&mt, cases[i].pat), 0);
		if (mt.regex != cases[i].regex ||
		    match_find(&mt, cases[i].text, strlen(cases[i].text), &a, &b) != cases[i].hit)
			fail_msg("'%s' on '%s': regex %d, match %d", cases[i].pat, cases[i].text, mt.regex, !cases[i].hit);
		match_free(&mt);
	}
}

static uint64_t xorshift(uint64_t *r)
{
	*r ^= *r << 13, *r ^= *r >> 7, *r ^= *r << 17;
	return *r;
}

/* A random double of one of several kinds (fixed, scientific, tiny, huge, integral, float32, nonfinite). */
static double random_double(uint64_t *r)
{
	uint64_t u = xorshift(r);
	double m = (double)(u >> 11) / 9007199254740992.0, d;

	switch (u % 7) {
	case 0: return m * pow(10, (double)((int)(u >> 3 & 63) - 32));
	case 1: return -m * pow(10, (double)((int)(u >> 3 & 511) - 300));
	case 2: return (double)(float)(m * 100);
	case 3: return floor(m * 1e6) / 1000;
	case 4: return (u & 8 ? -0.0 : u & 16 ? NAN : INFINITY);
	default: memcpy(&d, &u, 8); return d;
	}
}

/*
 * The finder's quick walk (all-float needles no name holds): messages with
 * floats, a time, an integer, strings (some with bytes the detail escapes)
 * and arrays past the 64 elements shown, at every level; needles cut from
 * the shown values' texts and near misses, checked against the shown text.
 */
static void test_quick(void **state)
{
	static const char *def = "float64 w\ntime t\nint32 k\nstring s\nP[] ps\nfloat64[] v\n"
	                         "================================================================================\n"
	                         "MSG: t/P\nfloat32 x\nstring y\n";
	static const char *const fixed[] = { "1e-77", "7e-77", "e-3", "e+2", "e-30", "3.14159265358", "-0.0", "nan",
	                                     "9999", "-12", "0.000", ".5", "\\n", "65", "66", "5e-77", "e-77", "9e-7" };
	struct corpus c = { 0 };
	uint64_t r = 0x9E3779B97F4A7C15ULL;
	static uint8_t buf[4096];
	(void)state;
	for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
		add_needle(&c, fixed[i], strlen(fixed[i]));
	for (int i = 0; i < (int)test_scaled(200); i++) {
		size_t n = 0;
		double d = random_double(&r);
		uint32_t u32 = (uint32_t)xorshift(&r), np = 60 + (uint32_t)(xorshift(&r) % 10), nv = 60 + i % 10;
		memcpy(buf + n, &d, 8), n += 8;
		memcpy(buf + n, &u32, 4), n += 4;
		u32 = (uint32_t)(xorshift(&r) % 1000000000);
		memcpy(buf + n, &u32, 4), n += 4;
		u32 = (uint32_t)xorshift(&r) >> (xorshift(&r) % 32);
		memcpy(buf + n, &u32, 4), n += 4;
		n += put_string(buf + n, i % 5 == 0 ? "a\nb" : i % 5 == 1 ? "1.5e-77" : "");
		memcpy(buf + n, &np, 4), n += 4;
		for (uint32_t k = 0; k < np; k++) {
			float x = (float)random_double(&r);
			memcpy(buf + n, &x, 4), n += 4;
			n += put_string(buf + n, k % 7 ? "" : "9e-77");
		}
		memcpy(buf + n, &nv, 4), n += 4;
		for (uint32_t k = 0; k < nv; k++, n += 8)
			d = random_double(&r), memcpy(buf + n, &d, 8);
		add_message(&c, "t/Q", def, buf, n);
	}
	for (size_t i = 0; i < c.n && c.nneedles + 2 <= needles_max(); i++) {
		const struct msg *m = &c.m[i];
		const char *t = strstr(m->lines[(i * 7) % m->nlines], ": ");
		if (t == NULL || t[2] == '\0' || strspn(t + 2, "0123456789.-+e") == 0)
			continue;
		t += 2;
		size_t tl = strspn(t, "0123456789.-+e"), at = (i * 5) % tl, len = 1 + (i * 3) % (tl - at);
		char cut[48];
		snprintf(cut, sizeof cut, "%.*s", (int)len, t + at);
		add_needle_and_twin(&c, cut, i);
	}
	check_needles(&c);
}

/* match_find on plain patterns against a naive search, on random texts of few distinct bytes. */
static void test_plain(void **state)
{
	static const char pats[][8] = { "ab", "Ab", "zq", "aaa", "ba-", "b", "e", "q1", "QZ", "zzzzz", "xay" };
	static const char bytes[] = "abAB zZqQ-1e\xE9xy";
	uint64_t r = 88172645463325252ULL;
	char text[200];
	(void)state;
	for (int round = 0; round < (int)test_scaled(20000); round++) {
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		size_t n = r % sizeof text;
		for (size_t i = 0; i < n; i++) {
			r ^= r << 13, r ^= r >> 7, r ^= r << 17;
			text[i] = bytes[r % (sizeof bytes - 1)];
		}
		struct matcher mt;
		const char *pat = pats[round % (sizeof pats / sizeof *pats)];
		assert_int_equal(match_init(&mt, pat), 0);
		size_t want = SIZE_MAX, a, b, pl = strlen(pat);
		for (size_t i = 0; i + pl <= n && want == SIZE_MAX; i++) {
			size_t j = 0;
			while (j < pl && (mt.icase ? tolower((unsigned char)text[i + j]) == tolower((unsigned char)pat[j])
			                           : text[i + j] == pat[j]))
				j++;
			if (j == pl)
				want = i;
		}
		bool got = match_find(&mt, text, n, &a, &b);
		if (got != (want != SIZE_MAX) || (got && a != want))
			fail_msg("'%s' in '%.*s': at %zu, not %zu", pat, (int)n, text, got ? a : SIZE_MAX, want);
		assert_int_equal(match_in_bytes(&mt, (const uint8_t *)text, n), got);
		match_free(&mt);
	}
}

/* "PATH=~TEXT" scopes a search to a field; anything else is all pattern. */
static void test_scope(void **state)
{
	char path[64];
	(void)state;
	assert_string_equal(match_scope("pose.position.x=~0.5", path, sizeof path), "0.5");
	assert_string_equal(path, "pose.position.x");
	assert_string_equal(match_scope("transforms[0].child_frame_id=~base", path, sizeof path), "base");
	assert_string_equal(path, "transforms[0].child_frame_id");
	assert_string_equal(match_scope("a b=~c", path, sizeof path), "a b=~c");
	assert_string_equal(path, "");
	assert_string_equal(match_scope("=~c", path, sizeof path), "=~c");
	assert_string_equal(match_scope("x=1", path, sizeof path), "x=1");
	assert_true(match_in_scope("pose.position", "pose.position.x"));
	assert_true(match_in_scope("pose.position", "pose.position"));
	assert_true(match_in_scope("ranges", "ranges[3]"));
	assert_false(match_in_scope("pose.position", "pose.positions"));
	assert_false(match_in_scope("pose.position.x", "pose.position"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),  cmocka_unit_test(test_nested), cmocka_unit_test(test_tf),
		cmocka_unit_test(test_large),  cmocka_unit_test(test_images), cmocka_unit_test(test_freq),
		cmocka_unit_test(test_regex),  cmocka_unit_test(test_literal), cmocka_unit_test(test_scope),
		cmocka_unit_test(test_made),   cmocka_unit_test(test_floats), cmocka_unit_test(test_plain),
		cmocka_unit_test(test_number), cmocka_unit_test(test_quick),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
