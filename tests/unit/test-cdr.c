/*
 * test-cdr.c - ROS 2 definitions (ros2msg) and the CDR decoder, on bytes
 * that @foxglove/rosmsg2-serialization wrote (cdr-vectors.h, made by
 * tests/tools/cdr-vectors.cjs) in both byte orders: every primitive, every
 * array kind, nested, empty and same-package types. The decoder's visitor
 * output must be the token stream of the values the writer was given.
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
#include "cdr-vectors.h"

struct toks {
	char buf[8192];
	size_t n;
};

static void put(struct toks *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct toks *t, const char *fmt, ...)
{
	va_list ap;

	if (t->n > 0 && t->n < sizeof t->buf)
		t->buf[t->n++] = ' ';
	va_start(ap, fmt);
	if (t->n < sizeof t->buf)
		t->n += (size_t)vsnprintf(t->buf + t->n, sizeof t->buf - t->n, fmt, ap);
	va_end(ap);
}

static void on_begin_message(void *ud, const struct bag_msgdef_field *f, int64_t i, const struct bag_msgdef_type *t)
{
	(void)f, (void)i, (void)t;
	put(ud, "{");
}

static void on_end_message(void *ud, const struct bag_msgdef_field *f, int64_t i)
{
	(void)f, (void)i;
	put(ud, "}");
}

static void on_begin_array(void *ud, const struct bag_msgdef_field *f, uint32_t n)
{
	(void)f;
	put(ud, "[%u", n);
}

static void on_end_array(void *ud, const struct bag_msgdef_field *f, uint32_t n)
{
	(void)f, (void)n;
	put(ud, "]");
}

static void on_value(void *ud, const struct bag_msgdef_field *f, int64_t i, const struct bag_value *v)
{
	struct toks *t = ud;

	(void)f, (void)i;
	switch (v->prim) {
	case BAG_PRIM_BOOL: put(t, "%s", v->v.b ? "T" : "F"); break;
	case BAG_PRIM_INT8: case BAG_PRIM_INT16: case BAG_PRIM_INT32: case BAG_PRIM_INT64:
		put(t, "%lld", (long long)v->v.i);
		break;
	case BAG_PRIM_FLOAT32: {
		float x = (float)v->v.f;
		uint32_t u;
		memcpy(&u, &x, 4);
		put(t, "f%08x", u);
		break;
	}
	case BAG_PRIM_FLOAT64: {
		uint64_t u;
		memcpy(&u, &v->v.f, 8);
		put(t, "d%016llx", (unsigned long long)u);
		break;
	}
	case BAG_PRIM_STRING:
		put(t, "s");
		for (uint32_t k = 0; k < v->v.s.len; k++)
			t->n += (size_t)snprintf(t->buf + t->n, sizeof t->buf - t->n, "%02x", (uint8_t)v->v.s.p[k]);
		break;
	default:
		put(t, "%llu", (unsigned long long)v->v.u);
	}
}

static const struct bag_visitor tok_visitor = {
	on_begin_message, on_end_message, on_begin_array, on_end_array, on_value,
};

static bag_msgdef_t *parse2(const char *type, const char *text)
{
	bag_msgdef_t *def;

	if (bag_msgdef_parse_as(&def, type, text, strlen(text), BAG_ENCODING_CDR) != BAG_OK)
		fail_msg("%s: %s", type, bag_msgdef_error(def)->message);
	return def;
}

/* Every vector decodes to the values it was written from, using every byte. */
static void test_vectors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof cdr_vectors / sizeof *cdr_vectors; i++) {
		const struct cdr_vector *c = &cdr_vectors[i];
		bag_msgdef_t *def = parse2(c->type, c->text);
		struct toks t = { .n = 0 };
		struct bag_error err = BAG_ERROR_INIT;
		size_t used = 0;

		assert_int_equal(bag_msgdef_encoding(def), BAG_ENCODING_CDR);
		if (bag_decode(def, c->bytes, c->len, &tok_visitor, &t, &used, &err) != BAG_OK)
			fail_msg("%s: %s", c->name, err.message);
		if (strcmp(t.buf, c->want) != 0)
			fail_msg("%s:\n got  %s\n want %s", c->name, t.buf, c->want);
		/* the writer pads the buffer to its computed size at most */
		assert_true(used <= c->len && used + 8 > c->len);
		/* checking only (runs of fixed fields skipped at once) takes the same bytes */
		size_t quiet_used = 0;
		assert_int_equal(bag_decode(def, c->bytes, c->len, NULL, NULL, &quiet_used, &err), BAG_OK);
		assert_int_equal(quiet_used, used);
		bag_msgdef_free(def);
	}
}

/* Cut anywhere before its end, a message fails with an error, never reads past. */
static void test_truncated(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof cdr_vectors / sizeof *cdr_vectors; i++) {
		const struct cdr_vector *c = &cdr_vectors[i];
		bag_msgdef_t *def = parse2(c->type, c->text);
		size_t used;
		struct bag_error err = BAG_ERROR_INIT;

		assert_int_equal(bag_decode(def, c->bytes, c->len, NULL, NULL, &used, &err), BAG_OK);
		for (size_t n = 0; n < used; n++) {
			uint8_t *copy = malloc(n ? n : 1);
			struct toks t = { .n = 0 };
			memcpy(copy, c->bytes, n);
			assert_int_equal(bag_decode(def, copy, n, &tok_visitor, &t, NULL, &err), BAG_EDECODE);
			assert_int_equal(bag_decode(def, copy, n, NULL, NULL, NULL, &err), BAG_EDECODE);
			assert_true(strlen(err.message) > 0);
			free(copy);
		}
		bag_msgdef_free(def);
	}
}

/*
 * Runs of fixed fields and fixed messages met at every alignment (the odd
 * uint8 fields move them): checking only, which skips a run at once by its
 * table, agrees with the field-by-field walk of a visitor on the bytes used
 * and, cut at every length, on failing.
 */
static void test_fixed_runs_aligned(void **state)
{
	static const char text[] =
		"uint8 a\nP p\nuint8 b\nP[3] ps\nuint16 c\nE e\nE[2] es\nuint8 d\nfloat64[2] f\nuint8 g\nQ q\nstring s\n"
		"================================================================================\nMSG: p/P\nuint8 x\nfloat64 y\nint16 z\n"
		"================================================================================\nMSG: p/E\n"
		"================================================================================\nMSG: p/Q\nint32 i\nP p\n";
	bag_msgdef_t *def = parse2("p/msg/Runs", text);
	uint8_t buf[400] = { 0, 1, 0, 0 };
	struct bag_error err = BAG_ERROR_INIT;
	size_t used = 0, quiet_used = 0;
	(void)state;

	struct toks t = { .n = 0 };
	assert_int_equal(bag_decode(def, buf, sizeof buf, &tok_visitor, &t, &used, &err), BAG_OK);
	assert_int_equal(bag_decode(def, buf, sizeof buf, NULL, NULL, &quiet_used, &err), BAG_OK);
	assert_int_equal(quiet_used, used);
	for (size_t n = 0; n <= used; n++) {
		struct toks u = { .n = 0 };
		int full = bag_decode(def, buf, n, &tok_visitor, &u, NULL, &err);
		assert_int_equal(bag_decode(def, buf, n, NULL, NULL, NULL, &err), full);
		assert_int_equal(full == BAG_OK, n == used);
	}
	bag_msgdef_free(def);
}

static void test_header(void **state)
{
	bag_msgdef_t *def = parse2("p/msg/T", "uint32 x\n");
	const uint8_t pl[] = { 0, 3, 0, 0, 1, 0, 0, 0 }, le[] = { 0, 1, 0, 0, 1, 0, 0, 0 },
	              be[] = { 0, 0, 0, 0, 0, 0, 0, 1 };
	struct toks t = { .n = 0 };
	struct bag_error err = BAG_ERROR_INIT;

	(void)state;
	assert_int_equal(bag_decode(def, pl, sizeof pl, NULL, NULL, NULL, &err), BAG_EDECODE);
	assert_string_equal(err.message, "at byte 0: CDR representation 0x0003 is not plain CDR (only XCDR1 is read)");
	assert_int_equal(bag_decode(def, pl, 2, NULL, NULL, NULL, &err), BAG_EDECODE);
	assert_int_equal(bag_decode(def, le, sizeof le, &tok_visitor, &t, NULL, &err), BAG_OK);
	assert_int_equal(bag_decode(def, be, sizeof be, &tok_visitor, &t, NULL, &err), BAG_OK);
	assert_string_equal(t.buf, "{ 1 } { 1 }");
	bag_msgdef_free(def);
}

/* A huge sequence count fails at once, before any element. */
static void test_huge_count(void **state)
{
	bag_msgdef_t *def = parse2("p/msg/T", "uint8 a\nfloat64[] v\nstring[] s\n");
	const uint8_t b[] = { 0, 1, 0, 0, 7, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0 };
	struct bag_error err = BAG_ERROR_INIT;

	(void)state;
	assert_int_equal(bag_decode(def, b, sizeof b, NULL, NULL, NULL, &err), BAG_EDECODE);
	assert_string_equal(err.message, "v at byte 12: array of 4294967295 elements cannot fit in the 1 byte that remain");
	bag_msgdef_free(def);
}

/* ros2msg names: pkg/msg/Name sections, short names, Header; dialect differences. */
static void test_ros2_names(void **state)
{
	const char *text =
		"std_msgs/msg/Header header\nPoint position\ngeometry_msgs/Point[<=3] more\nbyte b\nchar c\n"
		"string<=8 name \"a b\"\nint32 N=5\nuint8[] data [1, 2]\n"
		"=====\nMSG: std_msgs/msg/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n"
		"=====\nMSG: builtin_interfaces/msg/Time\nint32 sec\nuint32 nanosec\n"
		"=====\nMSG: geometry_msgs/msg/Point\nfloat64 x\n";
	bag_msgdef_t *def = parse2("geometry_msgs/msg/Pose", text);
	const struct bag_msgdef_type *t = bag_msgdef_root(def);
	bag_msgdef_t *bad;

	(void)state;
	assert_int_equal(t->nfields, 7);
	assert_int_equal(t->nconsts, 1);
	assert_string_equal(t->fields[0].type_name, "std_msgs/msg/Header");
	assert_string_equal(t->fields[0].msg->fields[0].type_name, "builtin_interfaces/msg/Time");
	assert_string_equal(t->fields[1].type_name, "geometry_msgs/msg/Point");
	assert_string_equal(t->fields[2].type_name, "geometry_msgs/msg/Point");
	assert_int_equal(t->fields[2].array, BAG_ARRAY_VARIABLE);
	assert_int_equal(t->fields[2].bound, 3);
	assert_int_equal(t->fields[3].prim, BAG_PRIM_UINT8);
	assert_int_equal(t->fields[4].prim, BAG_PRIM_UINT8);
	assert_int_equal(t->fields[5].string_bound, 8);
	assert_string_equal(t->fields[5].default_value, "\"a b\"");
	assert_string_equal(t->fields[6].default_value, "[1, 2]");
	assert_string_equal(t->consts[0].value, "5");
	bag_msgdef_free(def);
	/* the same text is not ROS 1 (defaults, bounds), and byte is int8 there */
	assert_int_equal(bag_msgdef_parse(&bad, "p/T", text, strlen(text)), BAG_EDEFINITION);
	bag_msgdef_free(bad);
	assert_int_equal(bag_msgdef_parse(&bad, "p/T", "byte b\ntime t\n", 14), BAG_OK);
	assert_int_equal(bag_msgdef_root(bad)->fields[0].prim, BAG_PRIM_INT8);
	bag_msgdef_free(bad);
	/* time is no primitive in ROS 2; wstring is not ROS 1's */
	assert_int_equal(bag_msgdef_parse_as(&bad, "p/T", "time t\n", 7, BAG_ENCODING_CDR), BAG_EDEFINITION);
	bag_msgdef_free(bad);
	assert_int_equal(bag_msgdef_parse(&bad, "p/T", "wstring w\n", 10), BAG_EDEFINITION);
	bag_msgdef_free(bad);
	assert_int_equal(bag_msgdef_parse_as(&bad, "p/T", "string<=x s\n", 12, BAG_ENCODING_CDR), BAG_EDEFINITION);
	bag_msgdef_free(bad);
}

/* The printers run over CDR unchanged: uint8 sequences as integer arrays. */
static void test_json(void **state)
{
	bag_msgdef_t *def = parse2("p/msg/T", "byte[] d\nstring s\nfloat32 f\n");
	const uint8_t b[] = { 0, 1, 0, 0, 2, 0, 0, 0, 0xff, 0x01, 0, 0, 3, 0, 0, 0, 'h', 'i', 0, 0, 0, 0, 0xc0, 0x7f };
	struct bag_text t = { 0 };
	struct bag_error err = BAG_ERROR_INIT;

	(void)state;
	assert_int_equal(bag_print_json(&t, def, b, sizeof b, &err), BAG_OK);
	assert_string_equal(t.p, "{\"d\":[255,1],\"s\":\"hi\",\"f\":\"nan\"}");
	bag_text_free(&t);
	bag_msgdef_free(def);
}

/* One message of "wstring a / wstring<=4 b / int32 c" as JSON, or "" when it does not decode. */
static void wide_json(const uint8_t *b, size_t n, const char *want)
{
	bag_msgdef_t *def = parse2("p/msg/W", "wstring a\nwstring<=4 b\nint32 c\n");
	struct bag_text t = { 0 };
	struct bag_error err = BAG_ERROR_INIT;
	int rc = bag_print_json(&t, def, b, n, &err);

	if (want[0] == '\0') {
		assert_int_equal(rc, BAG_EDECODE);
	} else {
		assert_int_equal(rc, BAG_OK);
		assert_string_equal(t.p, want);
	}
	bag_text_free(&t);
	bag_msgdef_free(def);
}

/*
 * wstring: a count of UTF-16 code units, 4 bytes each (Fast-CDR 1) or 2
 * (Fast-CDR 2), as UTF-8; U+1F600 is the pair D83D DE00, a lone surrogate is
 * U+FFFD. The Python writer of tests/cli/rosbag2-sqlite.sh checks the same
 * against Python's own UTF-16 codec.
 */
static void test_wstring(void **state)
{
	const uint8_t w4[] = { 0, 1, 0, 0, 4, 0, 0, 0, 'h', 0, 0, 0, 0xe9, 0, 0, 0, 0x3d, 0xd8, 0, 0, 0, 0xde, 0, 0,
	                       1, 0, 0, 0, 0, 0xdc, 0, 0, 7, 0, 0, 0 };
	const uint8_t w2[] = { 0, 1, 0, 0, 4, 0, 0, 0, 'h', 0, 0xe9, 0, 0x3d, 0xd8, 0, 0xde, 0, 0, 0, 0, 7, 0, 0, 0 };
	const uint8_t be2[] = { 0, 0, 0, 0, 0, 0, 0, 2, 0, 'o', 0, 'k', 0, 0, 0, 0, 0, 0, 0, 9 };
	const uint8_t huge[] = { 0, 1, 0, 0, 0xff, 0xff, 0xff, 0x7f, 'h', 0, 0, 0 };

	(void)state;
	wide_json(w4, sizeof w4, "{\"a\":\"h\u00e9\U0001f600\",\"b\":\"\ufffd\",\"c\":7}");
	wide_json(w2, sizeof w2, "{\"a\":\"h\u00e9\U0001f600\",\"b\":\"\",\"c\":7}");
	wide_json(be2, sizeof be2, "{\"a\":\"ok\",\"b\":\"\",\"c\":9}");
	wide_json(huge, sizeof huge, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_fixed_runs_aligned),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_huge_count),
		cmocka_unit_test(test_ros2_names),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_wstring),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
