/*
 * test-decode.c - the decoder on hostile bytes (lengths past the end, huge
 * array counts, truncated nested messages), and the printers' escaping,
 * UTF-8 repair, number formats and summaries.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <bagscope/bagscope.h>

static const char *const marker_def =
	"Item[] items\n"
	"================================================================================\n"
	"MSG: pkg/Item\n"
	"string name\n"
	"Point pos\n"
	"================================================================================\n"
	"MSG: pkg/Point\n"
	"float64 x\nfloat64 y\n";

static bag_msgdef_t *parse_ok(const char *type, const char *text)
{
	bag_msgdef_t *def;

	if (bag_msgdef_parse(&def, type, text, strlen(text)) != BAG_OK)
		fail_msg("%s", bag_msgdef_error(def)->message);
	return def;
}

/* Decode to JSON; returns the code, the text in *out (static). */
static int to_json(const bag_msgdef_t *def, const void *data, size_t len, const char **out, struct bag_error *err)
{
	static struct bag_text t;

	bag_text_free(&t);
	int rc = bag_print_json(&t, def, data, len, err);
	*out = t.len ? t.p : "";
	return rc;
}

static size_t put_u32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
	return 4;
}

static void test_nested_ok(void **state)
{
	bag_msgdef_t *def = parse_ok("pkg/Markers", marker_def);
	uint8_t buf[64];
	size_t n = 0;
	double x = 1.5, y = -2;
	const char *json;
	struct bag_error err;

	n += put_u32(buf + n, 1);
	n += put_u32(buf + n, 2);
	memcpy(buf + n, "ab", 2);
	n += 2;
	memcpy(buf + n, &x, 8);
	memcpy(buf + n + 8, &y, 8);
	n += 16;
	assert_int_equal(to_json(def, buf, n, &json, &err), BAG_OK);
	assert_string_equal(json, "{\"items\":[{\"name\":\"ab\",\"pos\":{\"x\":1.5,\"y\":-2.0}}]}");
	/* an element that cannot fit is refused before it is read */
	assert_int_equal(to_json(def, buf, n - 3, &json, &err), BAG_EDECODE);
	assert_string_equal(err.message, "items at byte 4: array of 1 element cannot fit in the 19 bytes that remain");
	/* a string that claims 3 bytes too many: the path and offset of the field that runs out */
	put_u32(buf + 4, 5);
	assert_int_equal(to_json(def, buf, n, &json, &err), BAG_EDECODE);
	assert_string_equal(err.message, "items[0].pos.y at byte 21: needs 8 bytes for a float64, 5 remain");
	bag_msgdef_free(def);
}

static void test_huge_counts_fail_fast(void **state)
{
	bag_msgdef_t *def = parse_ok("pkg/Markers", marker_def);
	bag_msgdef_t *bytes = parse_ok("pkg/Blob", "uint8[] data\nstring s\n");
	bag_msgdef_t *empty = parse_ok("pkg/E", "Nothing[] n\n=====\nMSG: pkg/Nothing\n");
	uint8_t buf[16] = { 0 };
	const char *json;
	struct bag_error err;

	put_u32(buf, 0xFFFFFFFFu);
	assert_int_equal(to_json(def, buf, 10, &json, &err), BAG_EDECODE);
	assert_non_null(strstr(err.message, "array of 4294967295 elements cannot fit in the 6 bytes"));
	assert_int_equal(to_json(bytes, buf, 10, &json, &err), BAG_EDECODE);
	/* a string length past the end */
	put_u32(buf, 0);
	put_u32(buf + 4, 1000);
	assert_int_equal(to_json(bytes, buf, 12, &json, &err), BAG_EDECODE);
	assert_string_equal(err.message, "s at byte 4: string of 1000 bytes, 4 remain");
	/* elements that take no bytes: a huge count is refused, not looped over */
	put_u32(buf, 0xFFFFFFFFu);
	assert_int_equal(to_json(empty, buf, 4, &json, &err), BAG_EDECODE);
	put_u32(buf, 3);
	assert_int_equal(to_json(empty, buf, 4, &json, &err), BAG_OK);
	assert_string_equal(json, "{\"n\":[{},{},{}]}");
	/* no bytes at all */
	assert_int_equal(to_json(bytes, buf, 0, &json, &err), BAG_EDECODE);
	bag_msgdef_free(def);
	bag_msgdef_free(bytes);
	bag_msgdef_free(empty);
}

static void test_json_strings(void **state)
{
	struct bag_text t = { 0 };

	bag_text_json_string(&t, "a\"b\\c\n\x01", 7);
	assert_string_equal(t.p, "\"a\\\"b\\\\c\\n\\u0001\"");
	t.len = 0;
	bag_text_json_string(&t, "\0x", 2);
	assert_string_equal(t.p, "\"\\u0000x\"");
	t.len = 0;
	/* valid multi-byte text passes through */
	bag_text_json_string(&t, "gr\xC3\xBC\xC3\x9F \xE3\x81\x93", 10);
	assert_string_equal(t.p, "\"gr\xC3\xBC\xC3\x9F \xE3\x81\x93\"");
	t.len = 0;
	/* Latin-1 bytes: each invalid byte becomes U+FFFD, as Python's 'replace' */
	bag_text_json_string(&t, "gr\xFC\xDF", 4);
	assert_string_equal(t.p, "\"gr\xEF\xBF\xBD\xEF\xBF\xBD\"");
	t.len = 0;
	/* a truncated 3-byte sequence is one maximal invalid part: one U+FFFD */
	bag_text_json_string(&t, "\xE3\x81" "A", 3);
	assert_string_equal(t.p, "\"\xEF\xBF\xBD" "A\"");
	t.len = 0;
	/* surrogates encoded in UTF-8 are invalid: ED A0 80 -> three U+FFFD */
	bag_text_json_string(&t, "\xED\xA0\x80", 3);
	assert_string_equal(t.p, "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");
	bag_text_free(&t);
}

static void test_doubles(void **state)
{
	struct bag_text t = { 0 };
	static const struct { double d; const char *s; } cases[] = {
		{ 0.5, "0.5" }, { 100, "100.0" }, { -0.0, "-0.0" }, { 1e-300, "1e-300" },
		{ 0.1, "0.1" }, { 1.0 / 3, "0.3333333333333333" }, { 0.3333333432674408, "0.3333333432674408" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		t.len = 0;
		bag_text_double(&t, cases[i].d);
		assert_string_equal(t.p, cases[i].s);
	}
	bag_text_free(&t);
}

static void test_special_values_json(void **state)
{
	bag_msgdef_t *def = parse_ok("pkg/V", "float32 f\nfloat64 d\nbool ok\nint64 big\nuint64 ubig\nduration dur\n");
	uint8_t buf[64];
	size_t n = 0;
	float nanf = __builtin_nanf("");
	double inf = -__builtin_inf();
	int64_t big = INT64_MIN;
	uint64_t ubig = UINT64_MAX;
	int32_t secs = -1;
	const char *json;
	struct bag_error err;

	memcpy(buf + n, &nanf, 4), n += 4;
	memcpy(buf + n, &inf, 8), n += 8;
	buf[n++] = 1;
	memcpy(buf + n, &big, 8), n += 8;
	memcpy(buf + n, &ubig, 8), n += 8;
	memcpy(buf + n, &secs, 4), n += 4;
	n += put_u32(buf + n, 500000000);
	assert_int_equal(to_json(def, buf, n, &json, &err), BAG_OK);
	assert_string_equal(json, "{\"f\":\"nan\",\"d\":\"-inf\",\"ok\":true,\"big\":-9223372036854775808,"
	                          "\"ubig\":18446744073709551615,\"dur\":{\"secs\":-1,\"nsecs\":500000000}}");
	bag_msgdef_free(def);
}

static void test_summary_elides(void **state)
{
	bag_msgdef_t *def = parse_ok("pkg/B", "uint8[] data\nstring s\n");
	uint8_t buf[64] = { 0 };
	struct bag_text t = { 0 };
	struct bag_error err;

	put_u32(buf, 10);
	for (int i = 0; i < 10; i++)
		buf[4 + i] = (uint8_t)i;
	put_u32(buf + 14, 2);
	memcpy(buf + 18, "hi", 2);
	assert_int_equal(bag_print_summary(&t, def, buf, 20, 200, &err), BAG_OK);
	assert_string_equal(t.p, "data=[0, 1, 2, 3, \xE2\x80\xA6 (10)]  s=\"hi\"");
	t.len = 0;
	assert_int_equal(bag_print_summary(&t, def, buf, 20, 8, &err), BAG_OK);
	assert_int_equal(t.len, 8);
	bag_text_free(&t);
	bag_msgdef_free(def);
}

/*
 * Checking only (no callbacks) skips fixed-size parts in one step: it must
 * accept and refuse exactly what the full walk does, at every length, and
 * use the same bytes, or fail with the same words. A message with fixed
 * arrays, fixed nested messages, strings, arrays of strings (passed over by
 * their lengths) and a variable array of fixed elements.
 */
static void test_quiet_walk_agrees(void **state)
{
	static const char def_text[] =
		"Point p\nfloat64[9] cov\nstring s\nPoint[] pts\nPoint[2] pair\nstring[] names\nstring[2] two\nuint8 tail\n"
		"================================================================================\n"
		"MSG: pkg/Point\nfloat64 x\nfloat64 y\nint16 z\n";
	static const struct bag_visitor none = { 0 };
	bag_msgdef_t *def = parse_ok("pkg/Q", def_text);
	uint8_t buf[512];
	size_t n = 0;
	struct bag_error err;
	(void)state;

	memset(buf, 7, sizeof buf);
	n += 18;                        /* p */
	n += 72;                        /* cov */
	n += put_u32(buf + n, 3);       /* s */
	n += 3;
	n += put_u32(buf + n, 4);       /* pts: 4 of 18 bytes */
	n += 4 * 18;
	n += 2 * 18;                    /* pair */
	n += put_u32(buf + n, 3);       /* names: "ab", "", "c" */
	n += put_u32(buf + n, 2) + 2;
	n += put_u32(buf + n, 0);
	n += put_u32(buf + n, 1) + 1;
	n += put_u32(buf + n, 0);       /* two: "", "xyz" */
	n += put_u32(buf + n, 3) + 3;
	n += 1;                         /* tail */
	for (size_t len = 0; len <= n + 3; len++) {
		const char *json;
		size_t used_q = 0;
		int quiet = bag_decode(def, buf, len, &none, NULL, &used_q, &err);
		char quiet_err[sizeof err.message];
		snprintf(quiet_err, sizeof quiet_err, "%s", err.message);
		int full = to_json(def, buf, len, &json, &err);
		assert_int_equal(quiet, full);
		assert_string_equal(quiet_err, quiet == BAG_OK ? "" : err.message);
		assert_int_equal(quiet == BAG_OK, len >= n);
		if (quiet == BAG_OK)
			assert_int_equal(used_q, n);
	}
	bag_msgdef_free(def);
}

/* Issue 18: the element budget, BAG_DECODE_BUDGET(len), the same with and without a visitor. */
static void test_element_budget(void **state)
{
	static const struct bag_visitor none = { 0 };
	bag_msgdef_t *nested = parse_ok("b/Nested", "Mid[] m\n=====\nMSG: b/Mid\nEmpty[65536] e\n=====\nMSG: b/Empty\n");
	bag_msgdef_t *flat = parse_ok("b/Flat", "Empty[] e\n=====\nMSG: b/Empty\n");
	bag_msgdef_t *zero = parse_ok("b/Zero", "Z[] z\n=====\nMSG: b/Z\nstring[0] s\nuint8[0] u\n");
	bag_msgdef_t *bytes = parse_ok("b/Bytes", "uint8[] data\n");
	uint8_t *buf = calloc(1, 1 << 20);
	const char *json;
	struct bag_error err;
	(void)state;

	assert_non_null(buf);
	assert_int_equal(BAG_DECODE_BUDGET(0), 65536);
	assert_int_equal(BAG_DECODE_BUDGET(4), 65536 + 64);
	assert_int_equal(BAG_DECODE_BUDGET(SIZE_MAX), UINT64_C(1) << 32);
	/* 65536 Mids of 65536 Empties each: 2^32 elements in 4 bytes, refused at once */
	put_u32(buf, 65536);
	assert_int_equal(to_json(nested, buf, 4, &json, &err), BAG_EDECODE);
	assert_string_equal(err.message, "m at byte 4: the message expands to more than 65600 elements, the budget for 4 bytes");
	assert_int_equal(bag_decode(nested, buf, 4, &none, NULL, NULL, &err), BAG_EDECODE);
	/* one Mid is 1 + 65536 elements, and the top message one: 65538 of the 65600 of 4 bytes; two are not */
	put_u32(buf, 1);
	assert_int_equal(bag_decode(nested, buf, 4, &none, NULL, NULL, &err), BAG_OK);
	assert_int_equal(to_json(nested, buf, 4, &json, &err), BAG_OK);
	put_u32(buf, 2);
	assert_int_equal(bag_decode(nested, buf, 4, &none, NULL, NULL, &err), BAG_EDECODE);
	assert_int_equal(to_json(nested, buf, 4, &json, &err), BAG_EDECODE);
	/* the edge, with and without a visitor: the top message and n Empties in 4 bytes */
	for (uint32_t n = 65595; n <= 65600; n++) {
		put_u32(buf, n);
		int want = 1 + n <= 65536 + 64 ? BAG_OK : BAG_EDECODE;
		assert_int_equal(bag_decode(flat, buf, 4, &none, NULL, NULL, &err), want);
		assert_int_equal(to_json(flat, buf, 4, &json, &err), want);
	}
	/* a type of no bytes made of zero-length arrays of strings is fixed too: charged at once */
	put_u32(buf, 0xFFFFFFFFu);
	assert_int_equal(to_json(zero, buf, 4, &json, &err), BAG_EDECODE);
	assert_non_null(strstr(err.message, "expands to more than"));
	/* a run of fixed fields (skipped at once when checking) is charged all it holds: 1 + 2 x 40000 elements */
	bag_msgdef_t *runs = parse_ok("b/Runs", "E[40000] a\nE[40000] b\nuint8 c\n=====\nMSG: b/E\n");
	for (size_t len = 903; len <= 906; len++) {
		int want = 1 + 80001 <= 65536 + 16 * len ? BAG_OK : BAG_EDECODE;
		assert_int_equal(bag_decode(runs, buf, len, &none, NULL, NULL, &err), want);
		assert_int_equal(to_json(runs, buf, len, &json, &err), want);
	}
	bag_msgdef_free(runs);
	/* bytes are never over budget: a megabyte of uint8 decodes */
	put_u32(buf, (1 << 20) - 4);
	assert_int_equal(to_json(bytes, buf, 1 << 20, &json, &err), BAG_OK);
	free(buf);
	bag_msgdef_free(nested);
	bag_msgdef_free(flat);
	bag_msgdef_free(zero);
	bag_msgdef_free(bytes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quiet_walk_agrees),
		cmocka_unit_test(test_element_budget),
		cmocka_unit_test(test_nested_ok),
		cmocka_unit_test(test_huge_counts_fail_fast),
		cmocka_unit_test(test_json_strings),
		cmocka_unit_test(test_doubles),
		cmocka_unit_test(test_special_values_json),
		cmocka_unit_test(test_summary_elides),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
