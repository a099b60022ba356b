/*
 * test-print.c - the printers against the real ROS tools, byte for byte:
 * tests/data/decode holds raw messages with their definitions and what the
 * fixtures' refjson.py (JSON) and genpy's strify_message (YAML, as rostopic
 * echo prints it) make of them, written by tests/data/decode/extract.py from
 * the fixture bags and from synthetic messages with awkward strings, floats
 * and shapes. No bag reader is involved; every prefix of each group's first
 * message must be refused cleanly. Then unit cases for the float
 * format and PyYAML's string styles.
 */
#include <dirent.h>
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <bagscope/bagscope.h>

#define DATA TEST_DATA_DIR "/decode/"

/* The whole of a data file, NUL-terminated; *len without the NUL. */
static char *slurp(const char *name, const char *ext, size_t *len)
{
	char path[512];
	FILE *f;
	char *p;
	long n;

	snprintf(path, sizeof path, DATA "%s%s", name, ext);
	f = fopen(path, "rb");
	if (f == NULL)
		fail_msg("cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	p = malloc((size_t)n + 1);
	assert_non_null(p);
	assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
	p[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return p;
}

/* Fail naming the first byte where got and want differ, with context. */
static void expect_same(const char *what, const char *got, size_t got_len, const char *want, size_t want_len)
{
	size_t i = 0, line = 1, bol = 0;

	while (i < got_len && i < want_len && got[i] == want[i]) {
		if (got[i] == '\n') {
			line++;
			bol = i + 1;
		}
		i++;
	}
	if (i == got_len && i == want_len)
		return;
	fail_msg("%s differs at line %zu:\n  want: %.120s\n  got:  %.120s", what, line,
	         want + bol, got + bol);
}

/*
 * Every proper prefix of a good message must be refused with BAG_EDECODE,
 * read nothing past its end (the copy is exactly that long, for ASan and
 * valgrind) and leave a message naming a byte offset.
 */
static void check_prefixes(const bag_msgdef_t *def, const uint8_t *msg, size_t len)
{
	struct bag_text t = { 0 };
	struct bag_error err;

	for (size_t cut = 0; cut < len; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);
		assert_non_null(copy);
		memcpy(copy, msg, cut);
		t.len = 0;
		assert_int_equal(bag_print_yaml(&t, def, copy, cut, &err), BAG_EDECODE);
		assert_non_null(strstr(err.message, "at byte "));
		free(copy);
	}
	bag_text_free(&t);
}

/* One group: md5, JSON lines and YAML documents. */
static void check_group(const char *name)
{
	size_t dlen, mlen, jlen, ylen;
	char *deftext = slurp(name, ".def", &dlen), *msgs = slurp(name, ".msgs", &mlen);
	char *json = slurp(name, ".jsonl", &jlen), *yaml = slurp(name, ".yaml", &ylen);
	char *type = deftext, *md5 = strchr(type, '\n') + 1, *text = strchr(md5, '\n') + 1;
	struct bag_text tj = { 0 }, ty = { 0 };
	bag_msgdef_t *def;
	struct bag_error err;
	char what[300];

	md5[-1] = '\0';
	text[-1] = '\0';
	if (bag_msgdef_parse(&def, type, text, dlen - (size_t)(text - deftext)) != BAG_OK)
		fail_msg("%s: %s", name, bag_msgdef_error(def)->message);
	snprintf(what, sizeof what, "%s md5", name);
	expect_same(what, bag_msgdef_root(def)->md5, 32, md5, strlen(md5));
	for (size_t at = 0; at + 4 <= mlen;) {
		uint32_t n;
		memcpy(&n, msgs + at, 4);
		at += 4;
		assert_true(n <= mlen - at);
		if (bag_print_json(&tj, def, (const uint8_t *)msgs + at, n, &err) != BAG_OK ||
		    bag_print_yaml(&ty, def, (const uint8_t *)msgs + at, n, &err) != BAG_OK)
			fail_msg("%s: %s", name, err.message);
		bag_text_append(&tj, "\n", 1);
		if (at == 4)
			check_prefixes(def, (const uint8_t *)msgs + at, n);
		bag_text_append(&ty, "---\n", 4);
		at += n;
	}
	snprintf(what, sizeof what, "%s.jsonl", name);
	expect_same(what, tj.p, tj.len, json, jlen);
	snprintf(what, sizeof what, "%s.yaml", name);
	expect_same(what, ty.p, ty.len, yaml, ylen);
	bag_text_free(&tj);
	bag_text_free(&ty);
	bag_msgdef_free(def);
	free(deftext);
	free(msgs);
	free(json);
	free(yaml);
}

static void test_golden_groups(void **state)
{
	DIR *d = opendir(DATA);
	struct dirent *e;
	size_t groups = 0;
	bool synthetic = false;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		char name[256];
		if (n < 5 || n >= sizeof name || strcmp(e->d_name + n - 4, ".def") != 0)
			continue;
		memcpy(name, e->d_name, n - 4);
		name[n - 4] = '\0';
		check_group(name);
		synthetic |= strcmp(name, "synthetic") == 0;
		groups++;
	}
	closedir(d);
	assert_true(synthetic);
	assert_true(groups >= 20);
}

static void test_python_float_repr(void **state)
{
	static const struct { double d; const char *s; } cases[] = {
		{ 0.0, "0.0" }, { -0.0, "-0.0" }, { 1e15, "1000000000000000.0" }, { 1e16, "1e+16" },
		{ 123456789012345678.0, "1.2345678901234568e+17" }, { 1e-4, "0.0001" }, { 1e-5, "1e-05" },
		{ 1.5e-7, "1.5e-07" }, { 1e300, "1e+300" }, { 5e-324, "5e-324" }, { 0.000123456, "0.000123456" },
		{ 9007199254740994.0, "9007199254740994.0" }, { 2.0 / 3, "0.6666666666666666" },
		{ 1234.5, "1234.5" }, { -1e22, "-1e+22" }, { 0.1f, "0.10000000149011612" },
		{ 1.7976931348623157e308, "1.7976931348623157e+308" },
	};
	struct bag_text t = { 0 };

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		t.len = 0;
		bag_text_double(&t, cases[i].d);
		assert_string_equal(t.p, cases[i].s);
	}
	bag_text_free(&t);
}

/*
 * Under a comma-decimal locale (as a program that calls setlocale(LC_ALL, "")
 * runs), numbers still come out as Python writes them: the library never
 * lets the locale's decimal point through.
 */
static void test_double_ignores_locale(void **state)
{
	static const struct { double d; const char *s; } cases[] = {
		{ 0.5, "0.5" }, { 1.0 / 3, "0.3333333333333333" }, { 1e-5, "1e-05" }, { 1.5e-7, "1.5e-07" },
		{ 1234.5, "1234.5" }, { 5e-324, "5e-324" }, { 1e16, "1e+16" }, { 0.1f, "0.10000000149011612" },
	};
	struct bag_text t = { 0 };
	bag_msgdef_t *def;
	double x = 1.0 / 3;
	struct bag_error err;
	char buf[16];

	if (setlocale(LC_ALL, "de_DE.UTF-8") == NULL)
		fail_msg("locale de_DE.UTF-8 missing: scripts/setup.sh --test installs locales-all");
	snprintf(buf, sizeof buf, "%.1f", 0.5);
	assert_string_equal(buf, "0,5");          /* the locale took effect */
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		t.len = 0;
		bag_text_double(&t, cases[i].d);
		assert_string_equal(t.p, cases[i].s);
	}
	assert_int_equal(bag_msgdef_parse(&def, "test/F", "float64 x\n", 10), BAG_OK);
	t.len = 0;
	assert_int_equal(bag_print_yaml(&t, def, (const uint8_t *)&x, sizeof x, &err), BAG_OK);
	assert_string_equal(t.p, "x: 0.3333333333333333\n");
	t.len = 0;
	assert_int_equal(bag_print_json(&t, def, (const uint8_t *)&x, sizeof x, &err), BAG_OK);
	assert_string_equal(t.p, "{\"x\":0.3333333333333333}");
	bag_msgdef_free(def);
	bag_text_free(&t);
	setlocale(LC_ALL, "C");
}

/* YAML of one string[] field holding the given strings. */
static void yaml_strings(struct bag_text *t, const char *const *words, size_t n)
{
	bag_msgdef_t *def;
	uint8_t buf[1024];
	size_t len = 4;
	uint32_t u = (uint32_t)n;
	struct bag_error err;

	assert_int_equal(bag_msgdef_parse(&def, "p/W", "string[] w\n", 11), BAG_OK);
	memcpy(buf, &u, 4);
	for (size_t i = 0; i < n; i++) {
		u = (uint32_t)strlen(words[i]);
		memcpy(buf + len, &u, 4);
		memcpy(buf + len + 4, words[i], u);
		len += 4 + u;
	}
	t->len = 0;
	assert_int_equal(bag_print_yaml(t, def, buf, len, &err), BAG_OK);
	bag_msgdef_free(def);
}

static void test_yaml_string_styles(void **state)
{
	static const char *const words[] = { "plain", "", "yes", "12", "a: b", "it's", "\xC3\xBC", "- x" };
	struct bag_text t = { 0 };

	yaml_strings(&t, words, sizeof words / sizeof *words);
	assert_string_equal(t.p, "w: \n  - plain\n  - ''\n  - 'yes'\n  - '12'\n  - 'a: b'\n"
	                         "  - it's\n  - \"\\xFC\"\n  - '- x'\n");
	bag_text_free(&t);
}

static void test_hex_dump(void **state)
{
	struct bag_text t = { 0 };
	uint8_t data[18];

	for (int i = 0; i < 18; i++)
		data[i] = (uint8_t)(0x3e + i * 7);
	bag_print_hex(&t, data, 0);
	assert_int_equal(t.len, 0);
	bag_print_hex(&t, data, 18);
	assert_string_equal(t.p,
		"00000000  3e 45 4c 53 5a 61 68 6f  76 7d 84 8b 92 99 a0 a7  |>ELSZahov}......|\n"
		"00000010  ae b5                                             |..|\n");
	bag_text_free(&t);
}

/*
 * A definition nesting levels messages, each but the last an array of the
 * next ("deep/T1[] a"), the last "int32 x"; into *data the message with one
 * element per array and x = 7.
 */
static char *deep_def(int levels, uint8_t **data, size_t *len)
{
	struct bag_text t = { 0 };
	uint32_t one = 1, seven = 7;

	*len = 4 * (size_t)levels;
	*data = malloc(*len);
	assert_non_null(*data);
	for (int l = 0; l < levels; l++) {
		if (l > 0)
			bag_text_printf(&t, "================================================================================\n"
			                    "MSG: deep/T%d\n", l);
		if (l + 1 < levels)
			bag_text_printf(&t, "deep/T%d[] a\n", l + 1);
		else
			bag_text_printf(&t, "int32 x\n");
		memcpy(*data + 4 * l, l + 1 < levels ? &one : &seven, 4);
	}
	return t.p;
}

/*
 * The deepest definition the parser takes, arrays at every level, prints
 * whole: the printers' stacks hold a message and an array per level (they
 * held 72 levels for the decoder's 64 messages, and lost count past them).
 */
static void test_deepest_nesting(void **state)
{
	const int levels = BAG_MSGDEF_MAX_DEPTH;
	struct bag_text t = { 0 }, want = { 0 };
	bag_msgdef_t *def;
	uint8_t *data;
	size_t len;
	struct bag_error err;
	char *text = deep_def(levels, &data, &len);

	if (bag_msgdef_parse(&def, "deep/T0", text, strlen(text)) != BAG_OK)
		fail_msg("%s", bag_msgdef_error(def)->message);
	for (int l = 0; l + 1 < levels; l++)
		bag_text_printf(&want, "{\"a\":[");
	bag_text_printf(&want, "{\"x\":7}");
	for (int l = 0; l + 1 < levels; l++)
		bag_text_printf(&want, "]}");
	assert_int_equal(bag_print_json(&t, def, data, len, &err), BAG_OK);
	assert_string_equal(t.p, want.p);
	t.len = 0;
	want.len = 0;
	assert_int_equal(bag_print_yaml(&t, def, data, len, &err), BAG_OK);
	for (int l = 0; l + 1 < levels; l++)
		bag_text_printf(&want, "%*sa: \n%*s- \n", 4 * l, "", 4 * l + 2, "");
	bag_text_printf(&want, "%*sx: 7\n", 4 * (levels - 1), "");
	assert_string_equal(t.p, want.p);
	bag_text_free(&t);
	bag_text_free(&want);
	bag_msgdef_free(def);
	free(data);
	free(text);
}

/* Issue 18: 24 levels of two fields each would be 2^25 lines; the tree stops expanding past 20000. */
static void test_tree_is_cut(void **state)
{
	struct bag_text def = { 0 }, t = { 0 };
	bag_msgdef_t *md;
	size_t lines = 0;
	(void)state;

	for (int i = 0; i <= 24; i++) {
		if (i > 0)
			bag_text_printf(&def, "================\nMSG: t/L%d\n", i);
		if (i < 24)
			bag_text_printf(&def, "L%d a\nL%d b\n", i + 1, i + 1);
	}
	assert_int_equal(bag_msgdef_parse(&md, "t/L0", def.p, def.len), BAG_OK);
	bag_print_msgdef_tree(&t, md, 2);
	for (size_t k = 0; k < t.len; k++)
		lines += t.p[k] == '\n';
	assert_true(lines > 20000 && lines < 20100);
	static const char cut[] = "  # (cut: nested types past 20000 lines are not expanded)\n";
	assert_string_equal(t.p + t.len - (sizeof cut - 1), cut);   /* the last line */
	/* a small tree is whole, without the line */
	bag_msgdef_free(md);
	t.len = 0;
	static const char small[] = "L1 a\n===\nMSG: t/L1\nuint8 x\n";
	assert_int_equal(bag_msgdef_parse(&md, "t/L0", small, sizeof small - 1), BAG_OK);
	bag_print_msgdef_tree(&t, md, 0);
	assert_string_equal(t.p, "t/L1 a\n  uint8 x\n");
	bag_msgdef_free(md);
	bag_text_free(&def);
	bag_text_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_groups),
		cmocka_unit_test(test_python_float_repr),
		cmocka_unit_test(test_double_ignores_locale),
		cmocka_unit_test(test_yaml_string_styles),
		cmocka_unit_test(test_hex_dump),
		cmocka_unit_test(test_tree_is_cut),
		cmocka_unit_test(test_deepest_nesting),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
