/*
 * test-expr.c - the filter language: the reference cases made with the real
 * ROS reader (tests/data/fixtures/expected/manifest.json: every filter case
 * selects exactly the expected messages, every filter error is refused),
 * parse errors with their positions, precedence, exact numbers and times,
 * evaluation on the fixture bags' messages (64-bit extremes, NaN, missing
 * fields, [*], negative indexes, regex, len, abs, arithmetic, $time/$topic),
 * what compiles where, constants answered from the index, malformed
 * messages (every cut and a huge count), values, message paths and two
 * threads sharing one program.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <pthread.h>
#include <cmocka.h>

#include <bagscope/bagscope.h>

#define FIX TEST_DATA_DIR "/fixtures/"

/* ---- a small JSON reader, for the manifest ------------------------------- */

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct json {
	enum jtype type;
	char *str;                 /* J_STR */
	double num;                /* J_NUM, J_BOOL */
	size_t n;                  /* J_ARR, J_OBJ */
	struct json *items;
	char **keys;               /* J_OBJ */
};

static void json_ws(const char **p)
{
	while (**p == ' ' || **p == '\n' || **p == '\t' || **p == '\r')
		(*p)++;
}

static char *json_string(const char **p)
{
	char *out = malloc(strlen(*p) + 1), *o = out;

	assert_int_equal(**p, '"');
	for ((*p)++; **p != '"'; (*p)++) {
		assert_true(**p != '\0');
		if (**p != '\\') {
			*o++ = **p;
			continue;
		}
		(*p)++;
		switch (**p) {
		case 'n': *o++ = '\n'; break;
		case 't': *o++ = '\t'; break;
		case 'u': {
			unsigned cp = (unsigned)strtoul((char[5]){ (*p)[1], (*p)[2], (*p)[3], (*p)[4], 0 }, NULL, 16);
			assert_true(cp < 0x80);   /* the manifest is ASCII */
			*o++ = (char)cp;
			*p += 4;
			break;
		}
		default: *o++ = **p;
		}
	}
	(*p)++;
	*o = '\0';
	return out;
}

static void json_parse(const char **p, struct json *j)
{
	memset(j, 0, sizeof *j);
	json_ws(p);
	if (**p == '{' || **p == '[') {
		bool obj = **p == '{';
		j->type = obj ? J_OBJ : J_ARR;
		(*p)++;
		json_ws(p);
		while (**p != (obj ? '}' : ']')) {
			j->items = realloc(j->items, (j->n + 1) * sizeof *j->items);
			if (obj) {
				j->keys = realloc(j->keys, (j->n + 1) * sizeof *j->keys);
				json_ws(p);
				j->keys[j->n] = json_string(p);
				json_ws(p);
				assert_int_equal(**p, ':');
				(*p)++;
			}
			json_parse(p, &j->items[j->n++]);
			json_ws(p);
			if (**p == ',')
				(*p)++;
			json_ws(p);
		}
		(*p)++;
	} else if (**p == '"') {
		j->type = J_STR;
		j->str = json_string(p);
	} else if (strncmp(*p, "true", 4) == 0 || strncmp(*p, "false", 5) == 0) {
		j->type = J_BOOL;
		j->num = **p == 't';
		*p += **p == 't' ? 4 : 5;
	} else if (strncmp(*p, "null", 4) == 0) {
		*p += 4;
	} else {
		char *end;
		j->type = J_NUM;
		j->num = strtod(*p, &end);
		assert_true(end != *p);
		*p = end;
	}
}

static void json_free(struct json *j)
{
	for (size_t i = 0; i < j->n; i++) {
		json_free(&j->items[i]);
		if (j->keys)
			free(j->keys[i]);
	}
	free(j->items);
	free(j->keys);
	free(j->str);
}

static const struct json *json_get(const struct json *j, const char *key)
{
	for (size_t i = 0; j->type == J_OBJ && i < j->n; i++)
		if (strcmp(j->keys[i], key) == 0)
			return &j->items[i];
	return NULL;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* ---- a bag, its view and one program per selected connection ------------ */

struct fx {
	bag_t *bag;
	bag_timeline_t *tl;
	bag_view_t *view;
	size_t nconn;
	bag_msgdef_t **defs;       /* per timeline connection; NULL if it does not parse */
	bag_expr_prog_t **progs;   /* per timeline connection; NULL if not selected */
};

struct hit {
	char topic[64];
	int64_t time_ns;
};

static void fx_open(struct fx *f, const char *path, const char *const *topics, size_t ntopics)
{
	struct bag_query q;

	memset(f, 0, sizeof *f);
	if (bag_open(&f->bag, path, NULL) != BAG_OK)
		fail_msg("%s", bag_last_error(f->bag)->message);
	assert_int_equal(bag_timeline_open(&f->tl, &f->bag, 1), BAG_OK);
	bag_query_init(&q);
	q.topics = topics;
	q.ntopics = ntopics;
	assert_int_equal(bag_view_open(&f->view, f->tl, &q), BAG_OK);
	f->nconn = bag_timeline_conn_count(f->tl);
	f->defs = calloc(f->nconn + 1, sizeof *f->defs);
	f->progs = calloc(f->nconn + 1, sizeof *f->progs);
	for (size_t i = 0; i < f->nconn; i++) {
		const struct bag_connection *c = bag_timeline_conn(f->tl, i, NULL);
		if (bag_msgdef_parse(&f->defs[i], c->type, c->definition, strlen(c->definition)) != BAG_OK) {
			bag_msgdef_free(f->defs[i]);
			f->defs[i] = NULL;
		}
	}
}

static void fx_drop_progs(struct fx *f)
{
	for (size_t i = 0; i < f->nconn; i++) {
		bag_expr_prog_free(f->progs[i]);
		f->progs[i] = NULL;
	}
}

/* Compile e for every selected connection; bag_expr_check()'s result. */
static int fx_compile(struct fx *f, bag_expr_t *e)
{
	bag_expr_prog_t *sel[64];
	size_t n = 0;

	fx_drop_progs(f);
	for (size_t i = 0; i < f->nconn; i++) {
		if (!bag_view_selects(f->view, i))
			continue;
		assert_int_equal(bag_expr_compile(&f->progs[i], e, bag_timeline_conn(f->tl, i, NULL), f->defs[i]), BAG_OK);
		assert_true(n < 64);
		sel[n++] = f->progs[i];
	}
	return bag_expr_check(e, sel, n);
}

/* The messages e selects, in view order; reads bytes only when a program needs them. */
static size_t fx_run(struct fx *f, struct hit *hits, size_t cap)
{
	size_t n = 0;

	for (uint64_t row = 0; row < bag_view_count(f->view); row++) {
		struct bag_message m;
		int r;
		assert_int_equal(bag_view_entry(f->view, row, &m), BAG_OK);
		const bag_expr_prog_t *p = f->progs[m.conn_index];
		assert_non_null(p);
		if (bag_expr_prog_needs_data(p)) {
			assert_int_equal(bag_view_read(f->view, row, &m), BAG_OK);
			r = bag_expr_eval(p, m.data, m.size, m.time_ns);
		} else {
			r = bag_expr_eval(p, NULL, 0, m.time_ns);
		}
		assert_true(r == 0 || r == 1);
		if (r == 1 && n < cap) {
			snprintf(hits[n].topic, sizeof hits[n].topic, "%s", m.conn->topic);
			hits[n].time_ns = m.time_ns;
		}
		n += r == 1;
	}
	return n;
}

static void fx_close(struct fx *f)
{
	fx_drop_progs(f);
	for (size_t i = 0; i < f->nconn; i++)
		bag_msgdef_free(f->defs[i]);
	free(f->defs);
	free(f->progs);
	bag_view_free(f->view);
	bag_timeline_free(f->tl);
	bag_close(f->bag);
}

static bag_expr_t *parse_ok(const char *text)
{
	bag_expr_t *e;

	if (bag_expr_parse(&e, text, strlen(text)) != BAG_OK)
		fail_msg("'%s': %s at %zu", text, bag_expr_error(e)->message, bag_expr_error(e)->offset);
	return e;
}

/* How many messages of fixture bag name the filter selects. */
static size_t count(const char *name, const char *filter)
{
	char path[512];
	struct fx f;
	bag_expr_t *e = parse_ok(filter);
	size_t n;

	snprintf(path, sizeof path, FIX "bags/%s.bag", name);
	fx_open(&f, path, NULL, 0);
	if (fx_compile(&f, e) != BAG_OK)
		fail_msg("'%s' refused: %s at %zu", filter, bag_expr_error(e)->message, bag_expr_error(e)->offset);
	n = fx_run(&f, NULL, 0);
	fx_close(&f);
	bag_expr_free(e);
	return n;
}

/* The filter parses but is refused on fixture bag name; the message and position. */
static void refused(const char *name, const char *filter, size_t pos, const char *msg)
{
	char path[512];
	struct fx f;
	bag_expr_t *e = parse_ok(filter);

	snprintf(path, sizeof path, FIX "bags/%s.bag", name);
	fx_open(&f, path, NULL, 0);
	assert_int_equal(fx_compile(&f, e), BAG_EEXPR);
	if (strstr(bag_expr_error(e)->message, msg) == NULL || bag_expr_error(e)->offset != pos)
		fail_msg("'%s': got \"%s\" at %zu, wanted \"%s\" at %zu", filter, bag_expr_error(e)->message,
		         bag_expr_error(e)->offset, msg, pos);
	fx_close(&f);
	bag_expr_free(e);
}

/* ---- the reference cases ------------------------------------------------- */

static void run_case(const char *bagname, const struct json *c)
{
	const char *filter = json_get(c, "filter")->str;
	const struct json *args = json_get(c, "args");
	const char *topics[8];
	size_t ntopics = 0, nexp = 0, n;
	char path[512];
	struct hit hits[256], exp[256];
	struct fx f;
	bag_expr_t *e = parse_ok(filter);

	for (size_t i = 0; i + 1 < args->n; i += 2) {
		assert_string_equal(args->items[i].str, "--topic");   /* the only option the cases use */
		topics[ntopics++] = args->items[i + 1].str;
	}
	snprintf(path, sizeof path, FIX "expected/%s", json_get(c, "expect")->str);
	FILE *in = fopen(path, "r");
	char line[1 << 16];
	assert_non_null(in);
	while (fgets(line, sizeof line, in) != NULL) {
		const char *t = strstr(line, "\"topic\":\""), *ts = strstr(line, "\"time_ns\":");
		assert_non_null(t);
		assert_non_null(ts);
		t += 9;
		snprintf(exp[nexp].topic, sizeof exp[nexp].topic, "%.*s", (int)strcspn(t, "\""), t);
		exp[nexp++].time_ns = strtoll(ts + 10, NULL, 10);
	}
	fclose(in);
	assert_int_equal(nexp, (size_t)json_get(c, "messages")->num);

	snprintf(path, sizeof path, FIX "%s", bagname);
	fx_open(&f, path, topics, ntopics);
	if (fx_compile(&f, e) != BAG_OK)
		fail_msg("%s: '%s' refused: %s", bagname, filter, bag_expr_error(e)->message);
	n = fx_run(&f, hits, 256);
	if (n != nexp)
		fail_msg("%s: '%s' selects %zu messages, the reference %zu", bagname, filter, n, nexp);
	for (size_t i = 0; i < n; i++)
		if (strcmp(hits[i].topic, exp[i].topic) != 0 || hits[i].time_ns != exp[i].time_ns)
			fail_msg("%s: '%s' message %zu is %s@%lld, the reference's %s@%lld", bagname, filter, i,
			         hits[i].topic, (long long)hits[i].time_ns, exp[i].topic, (long long)exp[i].time_ns);
	fx_close(&f);
	bag_expr_free(e);
}

static void run_refusal(const char *bagname, const struct json *c)
{
	const char *filter = json_get(c, "filter")->str;
	char path[512];
	struct fx f;
	bag_expr_t *e;
	int rc = bag_expr_parse(&e, filter, strlen(filter));

	if (rc == BAG_OK) {
		snprintf(path, sizeof path, FIX "%s", bagname);
		fx_open(&f, path, NULL, 0);
		rc = fx_compile(&f, e);
		fx_close(&f);
	}
	if (rc != BAG_EEXPR)
		fail_msg("%s: '%s' was not refused", bagname, filter);
	assert_true(strlen(bag_expr_error(e)->message) > 0);
	assert_true(bag_expr_error(e)->offset <= strlen(filter));
	bag_expr_free(e);
}

static void test_reference_cases(void **state)
{
	char *text = slurp(FIX "expected/manifest.json");
	const char *p = text;
	struct json m;
	size_t ncases = 0, nerrors = 0;

	json_parse(&p, &m);
	const struct json *bags = json_get(&m, "bags");
	assert_non_null(bags);
	for (size_t b = 0; b < bags->n; b++) {
		const struct json *cases = json_get(&bags->items[b], "filter_cases");
		const struct json *errors = json_get(&bags->items[b], "filter_errors");
		const char *bag = json_get(&bags->items[b], "bag")->str;
		for (size_t i = 0; cases && i < cases->n; i++, ncases++)
			run_case(bag, &cases->items[i]);
		for (size_t i = 0; errors && i < errors->n; i++, nerrors++)
			run_refusal(bag, &errors->items[i]);
	}
	assert_true(ncases >= 15);
	assert_true(nerrors >= 3);
	json_free(&m);
	free(text);
}

/* ---- parsing ------------------------------------------------------------- */

static void parse_fails(const char *text, bool filter, size_t pos, const char *msg)
{
	bag_expr_t *e;
	int rc = filter ? bag_expr_parse(&e, text, strlen(text)) : bag_expr_parse_value(&e, text, strlen(text));

	if (rc != BAG_EEXPR)
		fail_msg("'%s' parsed (%d)", text, rc);
	if (strstr(bag_expr_error(e)->message, msg) == NULL || bag_expr_error(e)->offset != pos)
		fail_msg("'%s': got \"%s\" at %zu, wanted \"%s\" at %zu", text, bag_expr_error(e)->message, bag_expr_error(e)->offset,
		         msg, pos);
	bag_expr_free(e);
}

static void test_parse_errors(void **state)
{
	parse_fails("data >", true, 6, "expected a value after '>'");
	parse_fails("", true, 0, "empty expression");
	parse_fails("   ", true, 3, "empty expression");
	parse_fails("(data > 1", true, 0, "unclosed '('");
	parse_fails("x && (a || (b > 1)", true, 5, "unclosed '('");
	parse_fails("(data > 1 x", true, 10, "expected ')' here, not 'x'");
	parse_fails("data > 1)", true, 8, "unmatched ')'");
	parse_fails("data > 1 x", true, 9, "unexpected 'x'");
	parse_fails("data =~ \"(\"", true, 8, "bad regex");
	parse_fails("data =~ \"a\\0b\"", true, 8, "a regex cannot hold a NUL byte");
	parse_fails("data =~ other", true, 8, "a regex must be a string literal");
	parse_fails("data =~", true, 7, "expected a value after '=~'");
	parse_fails("data > 12abc", true, 7, "bad number '12abc'");
	parse_fails("1.2.3 == x", true, 0, "bad number '1.2.3'");
	parse_fails("x == 0x", true, 5, "bad number '0x'");
	parse_fails("x == 1e+", true, 5, "bad number '1e+'");
	parse_fails("x == 0x1ffffffffffffffff", true, 5, "out of range");
	parse_fails("x == 1e999", true, 5, "out of range");
	parse_fails("data = 1", true, 5, "use '==' to compare");
	parse_fails("a | b", true, 2, "use '||'");
	parse_fails("a & b", true, 2, "use '&&'");
	parse_fails("a < b < c", true, 6, "comparisons do not chain");
	parse_fails("x == \"abc", true, 5, "unterminated string");
	parse_fails("x == \"\\x4\"", true, 6, "\\x needs two hex digits");
	parse_fails("$foo == 1", true, 0, "unknown variable '$foo'");
	parse_fails("a[1.5] > 0", true, 2, "expected an integer index");
	parse_fails("a[x] > 0", true, 2, "expected an integer index");
	parse_fails("a[1 > 0", true, 4, "expected ']'");
	parse_fails("a. > 1", true, 3, "expected a field name");
	parse_fails("a[9223372036854775808] > 1", true, 2, "index out of range");
	parse_fails("x == 1 #", true, 7, "unexpected character '#'");
	parse_fails("x == \x01", true, 5, "unexpected byte 0x01");
	/* shapes: a value where a test is needed, a test where a number is */
	parse_fails("data + 1", true, 0, "expected a test");
	parse_fails("a && 5", true, 5, "expected a test");
	parse_fails("!len(a)", true, 1, "expected a test");
	parse_fails("(a > 1) + 1 > 2", true, 0, "a test cannot be used as a number");
	parse_fails("abs(a > 1) > 2", true, 4, "a test cannot be used as a number");
	parse_fails("len(1) > 2", true, 4, "len() takes a field path");
	/* [*] belongs to a comparison */
	parse_fails("ranges[*]", false, 0, "[*] is only allowed inside a comparison");
	parse_fails("len(ranges[*]) + 1", false, 4, "[*] is only allowed inside a comparison");
	parse_fails("a[*]+b[*]+c[*]+d[*]+e[*]+f[*]+g[*]+h[*]+i[*]+j[*]+k[*]+l[*]+m[*]+n[*]+o[*]+p[*]+q[*] > 0",
	            true, 80, "more than 16 paths with [*]");
	/* depth */
	char deep[2048] = "";
	for (int i = 0; i < 300; i++)
		strcat(deep, "(");
	parse_fails(deep, true, 200, "nested too deeply");
	char chain[2048] = "x";
	for (int i = 0; i < 300; i++)
		strcat(chain, "+1");
	strcat(chain, " > 0");
	parse_fails(chain, true, 399, "nested too deeply");
	/* a regex whose repetitions glibc would write out past the bounds (issue 18) */
	parse_fails("$topic =~ \"(.*){1,32000}[bc]\"", true, 10, "a repetition count over 255");
	parse_fails("$topic =~ \"((a{1,200}){1,200})\"", true, 10, "exceed 1000 atoms");
	parse_fails("$topic =~ \"((.*){1,100}){1,99}x\"", true, 10, "exceed 1000 atoms");
	bag_expr_free(parse_ok("$topic =~ \"^/(a|b)[]x[:alpha:]]{2,5}(.*){1,255}$\""));
	/* integers past 64 bits are refused at the literal (issue 18), not rounded to a double */
	parse_fails("u == 18446744073709551616", true, 5, "out of range");
	parse_fails("u == 99999999999999999999999999999999999999999999999999", true, 5, "out of range");
	/* and what is fine */
	const char *good[] = {
		"a", "!a", "not a", "a and b or not c", "a.b[0].c[-1][*].d == 1", "x =~ 'single \\'quoted\\''",
		"len(s) == abs(-3)", "$topic == \"/a\" || $type =~ \"^sensor\" && $time > 1.5e9", "a . b [ 0 ] > .5",
		"x.and == 1 && y.not", "len == 1 && abs > 2", "true", "(((a)))", "0x7fffffffffffffff == 9223372036854775807",
		"x == 99999999999999999999.0", "a[*].b == c[*].d",
	};
	for (size_t i = 0; i < sizeof good / sizeof *good; i++)
		bag_expr_free(parse_ok(good[i]));
	bag_expr_t *e;
	assert_int_equal(bag_expr_parse_value(&e, "a * 2 + len(b)", 14), BAG_OK);
	bag_expr_free(e);
	/* not NUL-terminated: only len bytes are read */
	assert_int_equal(bag_expr_parse(&e, "a > 1 garbage", 5), BAG_OK);
	bag_expr_free(e);
}

/* ---- constants, precedence and numbers (no message needed) -------------- */

static const struct bag_connection test_conn = { .topic = "/t/x", .type = "pkg/T" };

/* The filter's truth with no message (time_ns as $time). */
static int truth_at(const char *text, int64_t time_ns)
{
	bag_expr_t *e = parse_ok(text);
	bag_expr_prog_t *p;
	int r;

	assert_int_equal(bag_expr_compile(&p, e, &test_conn, NULL), BAG_OK);
	if (bag_expr_check(e, &p, 1) != BAG_OK)
		fail_msg("'%s' refused: %s", text, bag_expr_error(e)->message);
	assert_false(bag_expr_prog_needs_data(p));
	r = bag_expr_eval(p, NULL, 0, time_ns);
	bag_expr_prog_free(p);
	bag_expr_free(e);
	return r;
}

static int truth(const char *text)
{
	return truth_at(text, 0);
}

#define TRUE(text) do { if (truth(text) != 1) fail_msg("'%s' is not true", text); } while (0)
#define FALSE(text) do { if (truth(text) != 0) fail_msg("'%s' is not false", text); } while (0)

static void test_precedence(void **state)
{
	TRUE("true || false && false");         /* && binds tighter */
	FALSE("(true || false) && false");
	TRUE("true or false and false");
	TRUE("!false && true");                 /* ! binds tighter than && */
	FALSE("!(false || true)");
	TRUE("not false and true");
	TRUE("!1 == 2");                        /* ! takes the comparison: !(1 == 2) */
	TRUE("!true == false");                 /* the same as (!true) == false */
	TRUE("1 + 2 * 3 == 7");
	TRUE("(1 + 2) * 3 == 9");
	TRUE("10 - 2 - 3 == 5");                /* left to right */
	TRUE("2 * 3 / 4 == 1.5");
	TRUE("-2 * 3 == -6");
	TRUE("- - 2 == 2");
	TRUE("-(1 + 2) == -3");
	TRUE("(1 < 2) == (3 < 4)");
	FALSE("(1 < 2) != (3 < 4)");
	TRUE("true == !false");                 /* inside an operand, ! takes the operand */
	TRUE("!false == true");
	TRUE("1 < 2 && !(2 < 1) == true");
	TRUE("1 + 1 == 2 && 2 * 2 == 4 || false");
}

static void test_numbers(void **state)
{
	/* integers exact across int64 and uint64 */
	TRUE("9223372036854775807 + 1 == 9223372036854775808");
	TRUE("-9223372036854775808 == -9223372036854775807 - 1");
	TRUE("9223372036854775808 > 9223372036854775807");
	TRUE("-1 < 18446744073709551615");
	TRUE("abs(-9223372036854775808) == 9223372036854775808");
	TRUE("-(-9223372036854775808) == 9223372036854775808");
	TRUE("-9223372036854775808 * -1 == 9223372036854775808");
	TRUE("2 * 4611686018427387904 == 9223372036854775808");
	TRUE("-2 * 4611686018427387904 == -9223372036854775808");
	TRUE("18446744073709551615 - 18446744073709551614 == 1");
	TRUE("9007199254740993 != 9007199254740992");        /* doubles would say equal */
	TRUE("9007199254740993 != 9007199254740992.0");      /* int with float: exactly (issue 18) */
	TRUE("9007199254740993 > 9007199254740992.0 && 9007199254740992 == 9007199254740992.0");
	TRUE("18446744073709551615 + 1 == 18446744073709551616.0"); /* beyond uint64: a double, no UB */
	FALSE("18446744073709551615 + 1 == 18446744073709551615");  /* ... which no uint64 equals */
	TRUE("18446744073709551615 < 18446744073709551616.0 && -9223372036854775808 == -9223372036854775808.0");
	TRUE("-9223372036854775808 > -9223372036854777856.0 && 3 < 3.5 && 3 > 2.5 && -3 > -3.5 && -3 < -2.5");
	TRUE("9223372036854775807 * 9223372036854775807 > 8.5e37");
	TRUE("0x10 == 16 && 0XfF == 255");
	TRUE("1e3 == 1000 && .5 == 0.5 && 2.5e-1 == 0.25");
	TRUE("99999999999999999999.0 > 18446744073709551615");
	/* / divides as doubles; NaN and inf */
	TRUE("1 / 2 == 0.5");
	TRUE("7 / 7 == 1");
	TRUE("1 / 0 > 1e308");
	TRUE("-1 / 0 < -1e308");
	FALSE("0.0 / 0 == 0.0 / 0");
	TRUE("0.0 / 0 != 0.0 / 0");
	FALSE("0.0 / 0 < 1");
	FALSE("0.0 / 0 >= 1");
	FALSE("abs(0.0 / 0) > 0");
	TRUE("abs(-2.5) == 2.5 && abs(3) == 3 && abs(-0.0) == 0");
	/* strings: bytewise, NULs count, a prefix is less */
	TRUE("\"abc\" < \"abd\"");
	TRUE("\"ab\" < \"abc\"");
	TRUE("\"a\\0b\" > \"a\"");
	TRUE("\"a\\0b\" != \"a\\0c\"");
	TRUE("\"\\x41\\t\" == 'A\\t'");
	TRUE("\"\\xff\" > \"a\"");
	TRUE("\"a.b\" =~ \"a\\.b\" && \"axb\" !~ \"a\\.b\"");    /* "\." stays a backslash */
	TRUE("\"x\\0yz\" =~ \"yz$\"");                          /* matched past a NUL */
	TRUE("\"\" =~ \"^$\"");
	/* bools */
	TRUE("true != false");
	/* $topic, $type */
	TRUE("$topic == \"/t/x\" && $type == \"pkg/T\"");
	TRUE("$topic =~ \"^/t/\" && $topic !~ \"y\"");
	TRUE("$topic < \"/u\"");
}

static void test_flat_chains(void **state)
{
	/* a flat chain of && or || is not nesting (issue 18): 3000 terms parse, evaluate in a loop */
	size_t cap = 3000 * 24 + 64, n = 0;
	char *flat = malloc(cap);
	assert_non_null(flat);
	for (int i = 0; i < 3000; i++)
		n += (size_t)snprintf(flat + n, cap - n, "%s$topic == \"/%d\"", i ? " || " : "", i);
	snprintf(flat + n, cap - n, " || $topic == \"/t/x\"");
	assert_int_equal(truth(flat), 1);
	flat[n] = '\0';
	assert_int_equal(truth(flat), 0);
	for (size_t k = 0; k < n; k++)       /* the same terms joined by && */
		if (flat[k] == '|')
			flat[k] = '&';
	assert_int_equal(truth(flat), 0);
	free(flat);
	/* and depth still counts inside a chain */
	char nested[2048] = "a || ";
	for (int i = 0; i < 250; i++)
		strcat(nested, "(");
	parse_fails(nested, true, 205, "nested too deeply");
}

static void test_time_exact(void **state)
{
	const int64_t t = 1500000004500000000;

	assert_int_equal(truth_at("$time >= 1500000004.5", t), 1);
	assert_int_equal(truth_at("$time >= 1500000004.5", t - 1), 0);
	assert_int_equal(truth_at("$time == 1500000004.5", t), 1);
	assert_int_equal(truth_at("$time == 15000000045e-1", t), 1);
	assert_int_equal(truth_at("$time == 1.5000000045e9", t), 1);
	/* a nanosecond apart: doubles could not tell */
	assert_int_equal(truth_at("$time == 1500000004.500000001", t + 1), 1);
	assert_int_equal(truth_at("$time == 1500000004.500000001", t), 0);
	assert_int_equal(truth_at("$time > 1500000004.500000001", t + 1), 0);
	/* a fraction of a nanosecond: strictly between two times */
	assert_int_equal(truth_at("$time > 1500000004.4999999999", t - 1), 0);
	assert_int_equal(truth_at("$time < 1500000004.4999999999", t - 1), 1);
	assert_int_equal(truth_at("$time > 1500000004.4999999999", t), 1);
	assert_int_equal(truth_at("$time != 1500000004.4999999999", t - 1), 1);
	/* negative literals, integers (exact seconds), far away numbers */
	assert_int_equal(truth_at("$time == -1.5", -1500000000), 1);
	assert_int_equal(truth_at("$time > -1.0000000001", -1000000000), 1);
	assert_int_equal(truth_at("$time < -1.0000000001", -1000000001), 1);
	assert_int_equal(truth_at("$time == 1500000004", 1500000004000000000), 1);
	assert_int_equal(truth_at("$time < 1500000005", 1500000004999999999), 1);
	assert_int_equal(truth_at("$time < 18446744073709551615", t), 1);
	assert_int_equal(truth_at("$time > -9223372036854775808", t), 1);
	assert_int_equal(truth_at("$time < 1e30", t), 1);
	/* time arithmetic: time - time stays exact; time with a number is a double */
	assert_int_equal(truth_at("$time - $time == 0", t), 1);
	assert_int_equal(truth_at("$time + $time == 3000000009", t), 1);
	assert_int_equal(truth_at("$time - 1500000000 == 4.5", t), 1);
	assert_int_equal(truth_at("abs(-$time) == 1500000004.5", t), 1);
	assert_int_equal(truth_at("$time / 2 == 750000002.25", t), 1);
}

/* ---- evaluation on the fixtures' messages ------------------------------- */

static void test_basic_values(void **state)
{
	/* 64-bit extremes, exactly */
	assert_int_equal(count("basic_none", "data == 9223372036854775807"), 1);
	assert_int_equal(count("basic_none", "data == -9223372036854775808"), 1);
	assert_int_equal(count("basic_none", "data > 9223372036854775806"), 2);     /* and inf */
	assert_int_equal(count("basic_none", "data + 1 == 9223372036854775808"), 1); /* no overflow */
	/* INT64_MIN - 1 fits no integer: a double, equal to -2^63 as doubles */
	assert_int_equal(count("basic_none", "data - 1 < -9223372036854775808"), 1); /* -inf */
	assert_int_equal(count("basic_none", "data - 1 == -9223372036854775808.0"), 1);
	assert_int_equal(count("basic_none", "abs(data) == 9223372036854775808"), 1);
	/* NaN, infinities, -0.0, tiny */
	assert_int_equal(count("basic_none", "$topic == \"/value\" && data != data"), 1);
	assert_int_equal(count("basic_none", "$topic == \"/value\" && data == data"), 5);
	assert_int_equal(count("basic_none", "data == 1 / 0"), 1);
	assert_int_equal(count("basic_none", "data == 0 && $topic == \"/value\""), 1); /* -0.0 */
	assert_int_equal(count("basic_none", "data > 0 && data < 1e-299"), 1);
	assert_int_equal(count("basic_none", "data < 0"), 4);   /* -1, INT64_MIN, -inf, the -2.75 s duration */
	/* strings: bytes, regex, len; a string against a number here is false */
	assert_int_equal(count("basic_none", "data == \"hello\""), 1);
	assert_int_equal(count("basic_none", "data == \"quote \\\" and \\\\ backslash\""), 1);
	assert_int_equal(count("basic_none", "data =~ \"^gr\xc3\xbc\xc3\x9f\""), 1);
	assert_int_equal(count("basic_none", "data =~ \"\\t\""), 1);
	assert_int_equal(count("basic_none", "data !~ \"e\""), 3);  /* "", grüß dich, こんにちは */
	assert_int_equal(count("basic_none", "len(data) == 0"), 1);
	assert_int_equal(count("basic_none", "len(data) == 15"), 1); /* こんにちは in UTF-8 */
	assert_int_equal(count("basic_none", "len(data) > 10"), 4);
	assert_int_equal(count("basic_none", "data > \"a\""), 6);
	/* header fields, time and duration to the nanosecond */
	assert_int_equal(count("basic_none", "stamp == 1500000000.999999999"), 1);
	assert_int_equal(count("basic_none", "stamp > 1500000000.9999999989 && stamp < 1500000001"), 1);
	assert_int_equal(count("basic_none", "stamp.secs == 1500000000 && seq == 1"), 1);
	assert_int_equal(count("basic_none", "$time - stamp > 5 && $time - stamp < 5.0000000011"), 1);
	assert_int_equal(count("basic_none", "data == -2.75"), 1);
	assert_int_equal(count("basic_none", "data.secs == -3 && data.nsecs == 250000000"), 1);
	assert_int_equal(count("basic_none", "abs(data) == 2.75"), 1);
	/* missing: a comparison is false, its negation true */
	assert_int_equal(count("basic_none", "frame_id == \"base\" || frame_id != \"base\""), 1);
	assert_int_equal(count("basic_none", "!(frame_id == \"x\")"), 23);
	assert_int_equal(count("basic_none", "!(data != data)"), 22);
	/* $time, $topic, $type */
	assert_int_equal(count("basic_none", "$time >= 1500000006 && $time < 1500000006.000000002"), 2);
	assert_int_equal(count("basic_none", "$type =~ \"Int64$\""), 7);
	assert_int_equal(count("basic_none", "$topic == \"/greeting\" || $topic == \"/empty\""), 8);
}

static void test_nested_values(void **state)
{
	/* uint64 and int64 near their ends */
	assert_int_equal(count("nested_bz2", "bigger == 18446744073709551615"), 1);
	assert_int_equal(count("nested_bz2", "bigger >= 18446744073709551613"), 3);
	assert_int_equal(count("nested_bz2", "big < -4611686018427387903"), 1);
	assert_int_equal(count("nested_bz2", "bigger > big"), 5);
	assert_int_equal(count("nested_bz2", "bigger + big == 13835058055282163711"), 5); /* one up, one down */
	/* beyond uint64: a double, and so is the literal */
	assert_int_equal(count("nested_bz2", "bigger - big == 23058430092136939519.0"), 5);
	/* 2^64 - 1 equals no double and no 2^64 (issue 18) */
	assert_int_equal(count("nested_bz2", "bigger == 18446744073709551615 + 1"), 0);
	assert_int_equal(count("nested_bz2", "bigger == 18446744073709551616.0"), 0);
	assert_int_equal(count("nested_bz2", "bigger < 18446744073709551616.0"), 5);
	assert_int_equal(count("nested_bz2", "bigger - 18446744073709551611 == header.seq * -1 + 4"), 5);
	assert_int_equal(count("nested_bz2", "ratio == 0.3333333432674408"), 5);     /* float32 widened */
	/* fixed arrays: positive and negative indexes */
	assert_int_equal(count("nested_bz2", "code[0] == 65 && code[-1] == 255 && code[2] == 0"), 5);
	assert_int_equal(count("nested_bz2", "len(code) == 4"), 5);
	/* variable arrays: indexes, out of range is missing */
	assert_int_equal(count("nested_bz2", "blob[-1] == 11"), 1);
	assert_int_equal(count("nested_bz2", "blob[0] == 0"), 4);
	assert_int_equal(count("nested_bz2", "blob[12] >= 0"), 0);
	assert_int_equal(count("nested_bz2", "blob[-13] >= 0"), 0);
	assert_int_equal(count("nested_bz2", "!(blob[8] >= 0)"), 13);
	assert_int_equal(count("nested_bz2", "len(blob) == 3 * (header.seq)"), 5);
	/* arrays of messages with strings inside: index and [*] */
	assert_int_equal(count("nested_bz2", "parts[-1].name == \"p3\""), 1);
	assert_int_equal(count("nested_bz2", "parts[1].offsets[0] == -1"), 3);
	assert_int_equal(count("nested_bz2", "pair[1].offsets[-1] == -32768 && pair[0].ok && !pair[1].ok"), 5);
	assert_int_equal(count("nested_bz2", "parts[*].offsets[*] == 2"), 1);
	assert_int_equal(count("nested_bz2", "parts[*].ok == false"), 3);
	assert_int_equal(count("nested_bz2", "!parts[*].ok"), 11);   /* not (any ok): the first widget, markers, paths */
	assert_int_equal(count("nested_bz2", "parts[*].name =~ \"^p[23]$\""), 2);
	assert_int_equal(count("nested_bz2", "len(parts[*].offsets) == 6"), 1);
	/* several [*] in one comparison: any combination */
	assert_int_equal(count("nested_bz2", "samples[*] > samples[*]"), 3);
	assert_int_equal(count("nested_bz2", "samples[*] != samples[*]"), 3);
	assert_int_equal(count("nested_bz2", "parts[*].offsets[*] + pair[*].offsets[*] == 32769"), 1);
	assert_int_equal(count("nested_bz2", "samples[*] != samples[*] && samples[*] == samples[*]"), 3);
	assert_int_equal(count("nested_bz2", "abs(samples[*] - 2.8) < 0.1"), 2);
	/* NaN inside an array */
	assert_int_equal(count("nested_bz2", "samples[-1] != samples[-1]"), 1);
	/* times and durations */
	assert_int_equal(count("nested_bz2", "seen.nsecs == 1 || seen == 1500000000.000000004"), 2);
	assert_int_equal(count("nested_bz2", "ttl == -0.5 && ttl.secs == -1 && abs(ttl) == 0.5"), 5);
	assert_int_equal(count("nested_bz2", "header.stamp - seen == 103.999999996"), 1);  /* time - time: exact */
	assert_int_equal(count("nested_bz2", "header.stamp - seen > 102.999999996"), 2);
	/* another type's paths on the same bag */
	assert_int_equal(count("nested_bz2", "markers[0].pose.orientation.w == 1 && markers[0].ns == \"fx\""), 5);
	assert_int_equal(count("nested_bz2", "poses[-1].header.stamp.nsecs == 1"), 1);
	assert_int_equal(count("nested_bz2", "poses[-1].header.stamp.nsecs == len(poses) - 1"), 5);
	assert_int_equal(count("nested_bz2", "poses[-2].pose.position.x == 0.5 * (len(poses) - 2)"), 4);
	assert_int_equal(count("nested_bz2", "len(poses) == 1 || kind == 2"), 3);
}

static void test_tf_values(void **state)
{
	assert_int_equal(count("tf_lz4", "transforms[*].transform.translation.y == 1"), 8);
	assert_int_equal(count("tf_lz4", "transforms[0].header.frame_id == \"odom\""), 8);
	assert_int_equal(count("tf_lz4", "status[-1].level == 2 && status[0].values[0].value == \"40\""), 2);
	assert_int_equal(count("tf_lz4", "status[*].values[*].value == \"42\""), 2);
	assert_int_equal(count("tf_lz4", "data[17] == 17 && len(data) == 18 && encoding == \"rgb8\" && height * width == 6"), 1);
	assert_int_equal(count("tf_lz4", "data[*] > 16"), 1);
}

/* ---- what compiles where ------------------------------------------------- */

static void test_refusals(void **state)
{
	refused("basic_none", "no_such_field > 1", 0, "no field 'no_such_field' in ");
	refused("basic_none", "no_such_field > 1", 0, "fits none of the other 5 connections");
	refused("basic_none", "$topic == \"/a\" || nope == 1", 18, "no field 'nope'");
	refused("basic_none", "frame_id > 1", 9, "cannot compare a string with a number");
	refused("basic_none", "$topic > 1", 7, "cannot compare a string with a number");
	refused("basic_none", "seq", 0, "a number is not a test");
	refused("basic_none", "stamp.foo == 1", 6, "'stamp' is a time: it has only .secs and .nsecs");
	refused("basic_none", "stamp.secs.x == 1", 11, "has no parts");
	refused("basic_none", "header.frame_id == \"x\"", 0, "no field 'header'");
	refused("basic_none", "data[0] == 1", 4, "not an array");
	refused("basic_none", "len(seq) == 1", 4, "len() needs an array or a string");
	refused("basic_none", "stamp + \"x\" > 1", 6, "arithmetic needs numbers");
	refused("basic_none", "abs(frame_id) > 1", 0, "abs() needs a number");
	refused("basic_none", "-frame_id > 1", 0, "'-' needs a number");
	refused("basic_none", "seq =~ \"1\"", 4, "a regex matches strings");
	refused("basic_none", "true < false", 5, "bools compare only with == and !=");
	refused("nested_bz2", "code[4] == 0", 4, "index 4 is out of range of 'code' (char[4])");
	refused("nested_bz2", "code[-5] == 0", 4, "out of range");
	refused("nested_bz2", "header == 1", 0, "'header' is a message (std_msgs/Header), not a value");
	refused("nested_bz2", "header[0].seq == 1", 6, "is a message");
	refused("nested_bz2", "parts.name == \"p0\"", 6, "'parts' is an array (fixture_pkg/Part[]): index it");
	refused("nested_bz2", "blob == 1", 0, "is an array (uint8[]): use [i], [*] or len()");
	refused("nested_bz2", "ratio.x == 1", 6, "'ratio' is a float32: it has no field 'x'");
	/* a different problem on each connection is still none compiling */
	refused("basic_none", "data > true", 5, "cannot compare");
	/* but a part that fits somewhere is fine, missing elsewhere */
	assert_int_equal(count("nested_bz2", "kind == 1 || poses[0].pose.position.x >= 0"), 8);
	assert_int_equal(count("basic_none", "data == \"tie\" || data == 99"), 2);
	/* and nothing selected refuses nothing */
	bag_expr_t *e = parse_ok("no_such_field > 1");
	assert_int_equal(bag_expr_check(e, NULL, 0), BAG_OK);
	bag_expr_free(e);
}

static void test_definition_missing(void **state)
{
	struct bag_connection c = { .topic = "/x", .type = "pkg/Broken" };
	bag_expr_t *e = parse_ok("$topic == \"/x\" && a > 1");
	bag_expr_prog_t *p;

	assert_int_equal(bag_expr_compile(&p, e, &c, NULL), BAG_OK);
	assert_int_equal(bag_expr_check(e, &p, 1), BAG_EEXPR);
	assert_string_equal(bag_expr_error(e)->message, "the definition of pkg/Broken does not parse");
	assert_int_equal(bag_expr_error(e)->offset, 18);
	assert_int_equal(bag_expr_prog_constant(p), 0);
	bag_expr_prog_free(p);
	bag_expr_free(e);
}

/* ---- constants answered without the message ----------------------------- */

static void test_constants(void **state)
{
	struct fx f;
	static const struct {
		const char *filter, *topic;
		int konst;
		bool needs;
	} cases[] = {
		{ "$topic == \"/counter\"", "/counter", 1, false },
		{ "$topic == \"/counter\"", "/value", 0, false },
		{ "$time > 1500000004", "/counter", -1, false },
		{ "data > 1", "/empty", 0, false },
		{ "data > 1", "/counter", -1, true },
		{ "!(data == 42)", "/empty", 1, false },
		{ "$topic == \"/value\" && data > 0", "/counter", 0, false },
		{ "$topic == \"/value\" && data > 0", "/value", -1, true },
		{ "$topic == \"/value\" || data > 0", "/value", 1, false },
		{ "$type == \"std_msgs/Int64\" || $time < 0", "/value", -1, false },
		{ "data =~ \"x\" || frame_id == \"base\"", "/counter", 0, false },
		{ "true", "/counter", 1, false },
		{ "not true", "/counter", 0, false },
		{ "1 + 1 == 2", "/counter", 1, false },
	};

	fx_open(&f, FIX "bags/basic_none.bag", NULL, 0);
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		bag_expr_t *e = parse_ok(cases[k].filter);
		fx_compile(&f, e);
		for (size_t i = 0; i < f.nconn; i++) {
			if (strcmp(bag_timeline_conn(f.tl, i, NULL)->topic, cases[k].topic) != 0)
				continue;
			if (bag_expr_prog_constant(f.progs[i]) != cases[k].konst ||
			    bag_expr_prog_needs_data(f.progs[i]) != cases[k].needs)
				fail_msg("'%s' on %s: constant %d needs_data %d", cases[k].filter, cases[k].topic,
				         bag_expr_prog_constant(f.progs[i]), bag_expr_prog_needs_data(f.progs[i]));
		}
		fx_drop_progs(&f);
		bag_expr_free(e);
	}
	fx_close(&f);
}

/* ---- malformed messages -------------------------------------------------- */

/* The first message of topic in a fixture bag, copied to the heap (exact size). */
static uint8_t *first_message(struct fx *f, const char *bag, const char *topic, size_t *len, size_t *conn)
{
	char path[512];
	const char *topics[] = { topic };
	struct bag_message m;

	snprintf(path, sizeof path, FIX "bags/%s.bag", bag);
	fx_open(f, path, topics, 1);
	assert_int_equal(bag_view_read(f->view, 0, &m), BAG_OK);
	uint8_t *copy = malloc(m.size);
	memcpy(copy, m.data, m.size);
	*len = m.size;
	*conn = m.conn_index;
	return copy;
}

static void test_malformed(void **state)
{
	static const char *const filters[] = {
		"poses[-1].pose.position.x > 0 || poses[-1].header.stamp.nsecs == 1",
		"poses[*].header.frame_id == \"nope\"",
		"len(poses) > 5",
		"header.frame_id == \"map\" && poses[0].pose.orientation.w == 1",
	};
	struct fx f;
	size_t len, ci;
	uint8_t *msg = first_message(&f, "nested_bz2", "/path", &len, &ci);

	for (size_t k = 0; k < sizeof filters / sizeof *filters; k++) {
		bag_expr_t *e = parse_ok(filters[k]);
		bag_expr_prog_t *p;
		assert_int_equal(bag_expr_compile(&p, e, bag_timeline_conn(f.tl, ci, NULL), f.defs[ci]), BAG_OK);
		int whole = bag_expr_eval(p, msg, len, 0);
		assert_true(whole == 0 || whole == 1);
		/* every cut: an answer or BAG_EDECODE, never a read past the end (ASan/valgrind watch) */
		size_t decode_errors = 0;
		for (size_t cut = 0; cut < len; cut++) {
			uint8_t *part = malloc(cut ? cut : 1);
			memcpy(part, msg, cut);
			int r = bag_expr_eval(p, part, cut, 0);
			assert_true(r == 0 || r == 1 || r == BAG_EDECODE);
			decode_errors += r == BAG_EDECODE;
			free(part);
		}
		assert_true(decode_errors > 0);
		bag_expr_prog_free(p);
		bag_expr_free(e);
	}
	/* a huge element count fails at once */
	bag_expr_t *e = parse_ok("poses[-1].pose.position.x > 0");
	bag_expr_prog_t *p;
	assert_int_equal(bag_expr_compile(&p, e, bag_timeline_conn(f.tl, ci, NULL), f.defs[ci]), BAG_OK);
	/* Path: header (seq, stamp, frame_id "map") then the poses count */
	size_t at = 4 + 8 + 4 + 3;
	memcpy(msg + at, (uint32_t[]){ 0xffffffffu }, 4);
	assert_int_equal(bag_expr_eval(p, msg, len, 0), BAG_EDECODE);
	memcpy(msg + at, (uint32_t[]){ 0 }, 4);
	assert_int_equal(bag_expr_eval(p, msg, len, 0), 0);    /* no element: missing */
	/* a string length past the end */
	memcpy(msg + 12, (uint32_t[]){ 0x7fffffffu }, 4);
	assert_int_equal(bag_expr_eval(p, msg, len, 0), BAG_EDECODE);
	bag_expr_prog_free(p);
	bag_expr_free(e);
	free(msg);
	fx_close(&f);
}

/* Fixed sizes near 2^64 bytes: skipped at run time and refused, no overflow while compiling. */
static void test_huge_fixed_sizes(void **state)
{
	static const char def_text[] =
		"Big[4294967295] a\nint32 x\n"
		"================================================================================\n"
		"MSG: pkg/Big\nfloat64[536870911] v\n";
	static const char *const filters[] = { "x == 1", "a[4294967294].v[536870910] > 0", "a[-1].v[-1] > 0",
	                                       "len(a[3].v) == 536870911", "a[*].v[0] > 0" };
	bag_msgdef_t *def;
	uint8_t msg[16] = { 0 };

	assert_int_equal(bag_msgdef_parse(&def, "pkg/Huge", def_text, sizeof def_text - 1), BAG_OK);
	for (size_t k = 0; k < sizeof filters / sizeof *filters; k++) {
		bag_expr_t *e = parse_ok(filters[k]);
		bag_expr_prog_t *p;
		assert_int_equal(bag_expr_compile(&p, e, &test_conn, def), BAG_OK);
		assert_int_equal(bag_expr_check(e, &p, 1), BAG_OK);
		if (bag_expr_eval(p, msg, sizeof msg, 0) != BAG_EDECODE)
			fail_msg("'%s' on 16 bytes did not fail", filters[k]);
		bag_expr_prog_free(p);
		bag_expr_free(e);
	}
	bag_msgdef_free(def);
}

/* ---- values -------------------------------------------------------------- */

static void value_of(struct fx *f, const char *text, size_t row, struct bag_expr_val *out)
{
	bag_expr_t *e;
	bag_expr_prog_t *p;
	struct bag_message m;

	if (bag_expr_parse_value(&e, text, strlen(text)) != BAG_OK)
		fail_msg("'%s': %s", text, bag_expr_error(e)->message);
	assert_int_equal(bag_view_read(f->view, row, &m), BAG_OK);
	assert_int_equal(bag_expr_compile(&p, e, m.conn, f->defs[m.conn_index]), BAG_OK);
	assert_int_equal(bag_expr_eval_value(p, m.data, m.size, m.time_ns, out), BAG_OK);
	bag_expr_prog_free(p);
	bag_expr_free(e);
}

static void test_values(void **state)
{
	struct fx f;
	struct bag_expr_val v;

	fx_open(&f, FIX "bags/basic_none.bag", NULL, 0);
	/* row 7: /counter INT64_MAX; row 1: /counter 0; row 5: /value nan; row 0: /greeting hello */
	value_of(&f, "data", 7, &v);
	assert_int_equal(v.kind, BAG_EXPR_INT);
	assert_true(v.v.i == INT64_MAX);
	value_of(&f, "data + 1", 7, &v);
	assert_int_equal(v.kind, BAG_EXPR_UINT);
	assert_true(v.v.u == (uint64_t)INT64_MAX + 1);
	value_of(&f, "data * 4", 7, &v);
	assert_int_equal(v.kind, BAG_EXPR_FLOAT);
	assert_true(v.num == 4 * 9223372036854775807.0);
	value_of(&f, "data / 4", 1, &v);
	assert_int_equal(v.kind, BAG_EXPR_FLOAT);
	assert_true(v.num == 0);
	value_of(&f, "data", 5, &v);
	assert_int_equal(v.kind, BAG_EXPR_FLOAT);
	assert_true(isnan(v.num));
	value_of(&f, "data", 0, &v);
	assert_int_equal(v.kind, BAG_EXPR_STRING);
	assert_int_equal(v.v.s.len, 5);
	assert_memory_equal(v.v.s.p, "hello", 5);
	assert_true(isnan(v.num));
	value_of(&f, "len(data)", 0, &v);
	assert_int_equal(v.kind, BAG_EXPR_INT);
	assert_int_equal(v.v.i, 5);
	value_of(&f, "$topic", 0, &v);
	assert_int_equal(v.kind, BAG_EXPR_STRING);
	assert_memory_equal(v.v.s.p, "/greeting", 9);
	value_of(&f, "$time", 0, &v);
	assert_int_equal(v.kind, BAG_EXPR_TIME);
	assert_true(v.v.ns == 1500000000000000000);
	assert_true(v.num == 1500000000.0);
	value_of(&f, "stamp", 18, &v);
	assert_int_equal(v.kind, BAG_EXPR_TIME);
	assert_true(v.v.ns == 1500000000999999999);
	value_of(&f, "data", 19, &v);
	assert_int_equal(v.kind, BAG_EXPR_TIME);
	assert_true(v.v.ns == -2750000000);
	assert_true(v.num == -2.75);
	value_of(&f, "data > 0", 1, &v);
	assert_int_equal(v.kind, BAG_EXPR_BOOL);
	assert_false(v.v.b);
	value_of(&f, "no_such_field", 1, &v);
	assert_int_equal(v.kind, BAG_EXPR_MISSING);
	assert_true(isnan(v.num));
	value_of(&f, "data == 0 && no_such_field == 1", 1, &v);
	assert_int_equal(v.kind, BAG_EXPR_BOOL);
	fx_close(&f);
	fx_open(&f, FIX "bags/nested_bz2.bag", NULL, 0);
	value_of(&f, "blob[100]", 0, &v);
	assert_int_equal(v.kind, BAG_EXPR_MISSING);
	value_of(&f, "blob[100] + 1", 0, &v);
	assert_int_equal(v.kind, BAG_EXPR_MISSING);
	value_of(&f, "bigger", 0, &v);
	assert_int_equal(v.kind, BAG_EXPR_UINT);
	assert_true(v.v.u == UINT64_MAX);
	value_of(&f, "samples[*] > 1", 6, &v);
	assert_int_equal(v.kind, BAG_EXPR_BOOL);
	assert_true(v.v.b);
	fx_close(&f);
}

/* ---- message paths ------------------------------------------------------- */

static void test_topic_prefix(void **state)
{
	const char *const topics[] = { "/imu", "/imu/data", "/tf", "/tf_static", "/a.b" };

	assert_int_equal(bag_expr_topic_prefix("/imu/data.linear_acceleration.x", topics, 5), 9);
	assert_int_equal(bag_expr_topic_prefix("/imu.x", topics, 5), 4);
	assert_int_equal(bag_expr_topic_prefix("/imu/dat.x", topics, 5), 0);
	assert_int_equal(bag_expr_topic_prefix("/tf.transforms[0].transform.translation.x", topics, 5), 3);
	assert_int_equal(bag_expr_topic_prefix("/tf_static.transforms[0]", topics, 5), 10);
	assert_int_equal(bag_expr_topic_prefix("/tf[0]", topics, 5), 3);
	assert_int_equal(bag_expr_topic_prefix("/tf", topics, 5), 3);
	assert_int_equal(bag_expr_topic_prefix("/a.b.c", topics, 5), 4);
	assert_int_equal(bag_expr_topic_prefix("/tfx.y", topics, 5), 0);
	assert_int_equal(bag_expr_topic_prefix("/imu", topics, 0), 0);
}

/* ---- threads ------------------------------------------------------------- */

struct job {
	const bag_expr_prog_t *p;
	const uint8_t *const *msgs;
	const size_t *lens;
	size_t n;
	size_t hits;
};

static void *run_job(void *arg)
{
	struct job *j = arg;

	for (int rep = 0; rep < 2000; rep++)
		for (size_t i = 0; i < j->n; i++)
			j->hits += bag_expr_eval(j->p, j->msgs[i], j->lens[i], 0) == 1;
	return NULL;
}

static void test_threads(void **state)
{
	struct fx f;
	const uint8_t *msgs[16];
	size_t lens[16], n = 0;
	const char *topics[] = { "/widgets" };
	bag_expr_t *e = parse_ok("parts[*].name =~ \"^p[12]$\" && samples[*] > 1 || bigger == 18446744073709551615");
	bag_expr_prog_t *p;

	fx_open(&f, FIX "bags/nested_bz2.bag", topics, 1);
	for (uint64_t row = 0; row < bag_view_count(f.view); row++) {
		struct bag_message m;
		assert_int_equal(bag_view_read(f.view, row, &m), BAG_OK);
		uint8_t *copy = malloc(m.size);
		memcpy(copy, m.data, m.size);
		msgs[n] = copy;
		lens[n++] = m.size;
	}
	struct bag_message m;
	assert_int_equal(bag_view_entry(f.view, 0, &m), BAG_OK);
	assert_int_equal(bag_expr_compile(&p, e, m.conn, f.defs[m.conn_index]), BAG_OK);
	struct job jobs[2] = { { p, msgs, lens, n, 0 }, { p, msgs, lens, n, 0 } };
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, run_job, &jobs[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	/* widgets 0 (bigger max), 2, 3, 4 (p1 and a sample > 1) */
	assert_int_equal(jobs[0].hits, 4 * 2000);
	assert_int_equal(jobs[1].hits, 4 * 2000);
	bag_expr_prog_free(p);
	bag_expr_free(e);
	for (size_t i = 0; i < n; i++)
		free((void *)msgs[i]);
	fx_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reference_cases),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_time_exact),
		cmocka_unit_test(test_basic_values),
		cmocka_unit_test(test_nested_values),
		cmocka_unit_test(test_tf_values),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_definition_missing),
		cmocka_unit_test(test_constants),
		cmocka_unit_test(test_flat_chains),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_huge_fixed_sizes),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_topic_prefix),
		cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
