/*
 * test-msgdef.c - the definition parser and the ROS md5 rule: every
 * connection of every fixture bag (written by the real ROS tools) must
 * recompute to its recorded md5sum; constants, comments, aliases, nested
 * resolution and array shapes parse as genmsg parses them.
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
#include "lib/msg/md5-int.h"

#define FIX TEST_DATA_DIR "/fixtures/"

static bag_msgdef_t *parse_ok(const char *type, const char *text)
{
	bag_msgdef_t *def;

	if (bag_msgdef_parse(&def, type, text, strlen(text)) != BAG_OK)
		fail_msg("%s", bag_msgdef_error(def)->message);
	return def;
}

static void test_md5_of_every_fixture_connection(void **state)
{
	static const char *const bags[] = {
		FIX "bags/basic_none.bag", FIX "bags/nested_bz2.bag", FIX "bags/tf_lz4.bag",
		FIX "bags/large_lz4.bag", FIX "foreign/rosbag.js/example.bag",
		FIX "foreign/rosbag.js/example-bz2.bag", FIX "foreign/rosbag.js/example-unsorted-chunks.bag",
	};
	size_t checked = 0;

	for (size_t b = 0; b < sizeof bags / sizeof *bags; b++) {
		bag_t *bag;
		assert_int_equal(bag_open(&bag, bags[b], NULL), BAG_OK);
		for (size_t i = 0; i < bag_conn_count(bag); i++) {
			const struct bag_connection *c = bag_conn(bag, i);
			bag_msgdef_t *def = parse_ok(c->type, c->definition);
			if (strcmp(bag_msgdef_root(def)->md5, c->md5sum) != 0)
				fail_msg("%s %s: md5 %s, recorded %s", bags[b], c->type,
				         bag_msgdef_root(def)->md5, c->md5sum);
			bag_msgdef_free(def);
			checked++;
		}
		bag_close(bag);
	}
	assert_true(checked >= 30);
}

static void test_constants_and_comments(void **state)
{
	bag_msgdef_t *def = parse_ok("pkg/C",
		"# a comment line\n"
		"   uint8 A=1   # trailing comment\n"
		"int32 B = -7\n"
		"string S=hello # not a comment\n"
		"string EMPTYISH=  spaced  \n"
		"\n"
		"  float64 x  # the value\n");
	const struct bag_msgdef_type *t = bag_msgdef_root(def);

	assert_int_equal(t->nconsts, 4);
	assert_string_equal(t->consts[0].name, "A");
	assert_string_equal(t->consts[0].value, "1");
	assert_string_equal(t->consts[1].name, "B");
	assert_string_equal(t->consts[1].value, "-7");
	assert_string_equal(t->consts[2].name, "S");
	assert_string_equal(t->consts[2].value, "hello # not a comment");
	assert_string_equal(t->consts[3].value, "spaced");
	assert_int_equal(t->nfields, 1);
	assert_string_equal(t->fields[0].name, "x");
	assert_int_equal(t->fields[0].prim, BAG_PRIM_FLOAT64);
	assert_string_equal(t->comment, "");
	assert_string_equal(t->consts[0].comment, "a comment line\ntrailing comment");
	assert_string_equal(t->consts[1].comment, "");
	assert_string_equal(t->consts[2].comment, "");
	assert_string_equal(t->fields[0].comment, "the value");
	bag_msgdef_free(def);
}

/* Comments kept for code generation: which member or type each belongs to. */
static void test_comment_placement(void **state)
{
	bag_msgdef_t *def = parse_ok("pkg/D",
		"# About the type.\n"
		"#   indented, kept\n"
		"\n"
		"# Above a.  \n"
		"\n"
		"#about a too\n"
		"int32 a #  own\r\n"
		"int32 b\n"
		"#\n"
		"# c's\n"
		"int32 c\n"
		"# trailing\n"
		"================\n"
		"MSG: pkg/E\n"
		"string s # e's\n");
	const struct bag_msgdef_type *t = bag_msgdef_root(def);

	assert_string_equal(t->comment, "About the type.\n  indented, kept\nAbove a.\ntrailing");
	assert_string_equal(t->fields[0].comment, "about a too\n own");
	assert_string_equal(t->fields[1].comment, "");
	assert_string_equal(t->fields[2].comment, "\nc's");
	assert_string_equal(bag_msgdef_type_at(def, 1)->fields[0].comment, "e's");
	assert_string_equal(bag_msgdef_type_at(def, 1)->comment, "");
	bag_msgdef_free(def);
}

static void test_aliases_and_arrays(void **state)
{
	bag_msgdef_t *def = parse_ok("pkg/A", "byte b\nchar c\nuint8[] blob\nchar[4] code\nint16[3] xyz\n");
	const struct bag_msgdef_type *t = bag_msgdef_root(def);

	assert_int_equal(t->fields[0].prim, BAG_PRIM_INT8);
	assert_string_equal(t->fields[0].type_name, "byte");
	assert_int_equal(t->fields[1].prim, BAG_PRIM_UINT8);
	assert_int_equal(t->fields[2].array, BAG_ARRAY_VARIABLE);
	assert_int_equal(t->fields[3].array, BAG_ARRAY_FIXED);
	assert_int_equal(t->fields[3].fixed_len, 4);
	assert_int_equal(t->fields[4].fixed_len, 3);
	bag_msgdef_free(def);
}

static void test_nested_resolution(void **state)
{
	bag_msgdef_t *def = parse_ok("pkg/Top",
		"Header header\n"
		"Part[] parts\n"
		"Part[2] pair\n"
		"other/Thing thing\n"
		"================================================================================\n"
		"MSG: std_msgs/Header\n"
		"uint32 seq\ntime stamp\nstring frame_id\n"
		"================================================================================\n"
		"MSG: pkg/Part\n"
		"string name\n"
		"================================================================================\n"
		"MSG: other/Part\n"
		"int8 wrong\n"
		"================================================================================\n"
		"MSG: other/Thing\n"
		"Part p\n");
	const struct bag_msgdef_type *t = bag_msgdef_root(def);

	assert_int_equal(bag_msgdef_type_count(def), 5);
	assert_string_equal(t->fields[0].msg->name, "std_msgs/Header");
	/* a bare name resolves in the enclosing type's package first */
	assert_string_equal(t->fields[1].msg->name, "pkg/Part");
	assert_int_equal(t->fields[2].array, BAG_ARRAY_FIXED);
	assert_string_equal(t->fields[3].msg->name, "other/Thing");
	assert_string_equal(t->fields[3].msg->fields[0].msg->name, "other/Part");
	/* std_msgs/Header's well-known md5 */
	assert_string_equal(t->fields[0].msg->md5, "2176decaecbce78abc3b96ef049fabed");
	bag_msgdef_free(def);
}

static void expect_error(const char *text, const char *want)
{
	bag_msgdef_t *def;

	assert_int_equal(bag_msgdef_parse(&def, "pkg/Bad", text, strlen(text)), BAG_EDEFINITION);
	if (strstr(bag_msgdef_error(def)->message, want) == NULL)
		fail_msg("'%s' lacks '%s'", bag_msgdef_error(def)->message, want);
	bag_msgdef_free(def);
}

static void test_errors(void **state)
{
	expect_error("Missing m\n", "does not define");
	expect_error("int32[x] a\n", "line 1: bad array size");
	expect_error("int32 a b\n", "line 1: expected 'TYPE NAME'");
	expect_error("time T=1\n", "not a constant type");
	expect_error("uint8 a\n=====\nnot a msg line\n", "expected 'MSG: pkg/Type'");
	expect_error("Loop a\n================\nMSG: pkg/Loop\nLoop[] again\n", "contains itself");
}

/* genmsg's rule: field names are a letter then letters, digits, '_'; types may hold '/', never "//". */
static void test_names_are_identifiers(void **state)
{
	static const char *const bad_names[] = {
		"int32 bad\x1b]0;x\x07name\n", "int32 csi\xc2\x9b\n", "int32 raw\x9b\n", "int32 del\x7f\n",
		"int32 1abc\n", "int32 _x\n", "int32 a-b\n", "int32 caf\xc3\xa9\n", "int32 a.b\n",
	};
	static const char *const bad_types[] = {
		"in\x1bt32 x\n", "std_msgs//String x\n", "/std_msgs/String x\n", "9pkg/T x\n", "pkg/T\x9b[] x\n",
	};
	bag_msgdef_t *def;

	for (size_t i = 0; i < sizeof bad_names / sizeof *bad_names; i++)
		expect_error(bad_names[i], "line 1: '");
	expect_error("int32 ok\nint32 bad\x1b[2J\n", "line 2: 'bad\x1b[2J' is not a legal field name");
	for (size_t i = 0; i < sizeof bad_types / sizeof *bad_types; i++)
		expect_error(bad_types[i], "is not a legal field type");
	static const char good[] = "int32 a_1B\nHeader header\nuint8[3] Z\n"
	                           "================\nMSG: std_msgs/Header\nuint32 seq\n";
	assert_int_equal(bag_msgdef_parse(&def, "pkg/Good", good, strlen(good)), BAG_OK);
	bag_msgdef_free(def);
}

/* A chain of n types, pkg/C0 (the top) holding a C1, ... the last an int8. */
static char *chain(int n, int extra_top_field)
{
	struct bag_text t = { 0 };

	for (int l = 0; l < n; l++) {
		if (l > 0)
			bag_text_printf(&t, "================================================================================\n"
			                    "MSG: pkg/C%d\n", l);
		if (l == 0 && extra_top_field >= 0)
			bag_text_printf(&t, "C%d shortcut\n", extra_top_field);
		if (l + 1 < n)
			bag_text_printf(&t, "C%d next\n", l + 1);
		else
			bag_text_printf(&t, "int8 v\n");
	}
	return t.p;
}

/*
 * One nesting limit (BAG_MSGDEF_MAX_DEPTH levels, the top one included): a
 * chain that long parses; one level more is "too deep", not a cycle; so is a
 * type first met near the top and then again deep down; a real cycle still
 * "contains itself".
 */
static void test_depth_limit(void **state)
{
	bag_msgdef_t *def;
	char *text = chain(BAG_MSGDEF_MAX_DEPTH, -1);

	if (bag_msgdef_parse(&def, "pkg/C0", text, strlen(text)) != BAG_OK)
		fail_msg("%s", bag_msgdef_error(def)->message);
	bag_msgdef_free(def);
	free(text);
	text = chain(BAG_MSGDEF_MAX_DEPTH + 1, -1);
	expect_error(text, "too deep");
	free(text);
	/* C40 met first as the top's field (level 2), then 40 levels down: that path counts */
	text = chain(BAG_MSGDEF_MAX_DEPTH - 24 + 1, 40);
	if (bag_msgdef_parse(&def, "pkg/C0", text, strlen(text)) != BAG_OK)
		fail_msg("%s", bag_msgdef_error(def)->message);
	bag_msgdef_free(def);
	free(text);
	text = chain(BAG_MSGDEF_MAX_DEPTH + 2, 40);
	expect_error(text, "too deep");
	free(text);
	expect_error("Loop a\n================\nMSG: pkg/Loop\nLoop[] again\n", "contains itself");
}

static void test_md5_helper_vectors(void **state)
{
	/* std_msgs/Empty: the md5 of the empty text */
	bag_msgdef_t *def = parse_ok("std_msgs/Empty", "");
	assert_string_equal(bag_msgdef_root(def)->md5, "d41d8cd98f00b204e9800998ecf8427e");
	bag_msgdef_free(def);
	/* std_msgs/String */
	def = parse_ok("std_msgs/String", "string data\n");
	assert_string_equal(bag_msgdef_root(def)->md5, "992ce8a1687cec8c8bd883ec73ca41d1");
	bag_msgdef_free(def);
}

static void test_md5_rfc1321(void **state)
{
	static const struct { const char *in, *hex; } vec[] = {
		{ "", "d41d8cd98f00b204e9800998ecf8427e" },
		{ "a", "0cc175b9c0f1b6a831c399e269772661" },
		{ "abc", "900150983cd24fb0d6963f7d28e17f72" },
		{ "message digest", "f96b697d7cb7938d525a2f31aaf161d0" },
		{ "abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b" },
		{ "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
		  "d174ab98d277d9f5a5611c2c9f419d9f" },
		{ "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
		  "57edf4a22be3c955ac49da2e2107b67a" },
	};
	char hex[33];

	for (size_t i = 0; i < sizeof vec / sizeof *vec; i++) {
		md5_hex(vec[i].in, strlen(vec[i].in), hex);
		assert_string_equal(hex, vec[i].hex);
	}
	/* 55 and 56 bytes: the length no longer fits the first padding block */
	md5_hex("0123456789012345678901234567890123456789012345678901234", 55, hex);
	assert_string_equal(hex, "6e7a4fc92eb1c3f6e652425bcc8d44b5");
	md5_hex("01234567890123456789012345678901234567890123456789012345", 56, hex);
	assert_string_equal(hex, "8af270b2847610e742b0791b53648c09");
}

static void test_md5_text_rule(void **state)
{
	/* genmsg: constants first, then fields; a nested type by its md5 and
	 * without array brackets; primitives keep brackets and aliases */
	bag_msgdef_t *def = parse_ok("pkg/T",
		"Leaf[] leaves\nbyte[2] b\nint32 K=3 # c\nLeaf one\nstring S=x # y\n"
		"================================================================================\n"
		"MSG: pkg/Leaf\nint8 v\n");
	char leaf[33], text[256], top[33];

	md5_hex("int8 v", 6, leaf);
	assert_string_equal(bag_msgdef_root(def)->fields[0].msg->md5, leaf);
	snprintf(text, sizeof text, "int32 K=3\nstring S=x # y\n%s leaves\nbyte[2] b\n%s one", leaf, leaf);
	md5_hex(text, strlen(text), top);
	assert_string_equal(bag_msgdef_md5(def), top);
	bag_msgdef_free(def);
}

static void test_bare_name_as_is(void **state)
{
	/* no section in the enclosing package: a section named exactly so */
	bag_msgdef_t *def = parse_ok("pkg/T", "Odd o\n=====\nMSG: Odd\nuint8 x\n");

	assert_string_equal(bag_msgdef_root(def)->fields[0].msg->name, "Odd");
	bag_msgdef_free(def);
	assert_null(bag_msgdef_md5(NULL));
	assert_int_equal(bag_msgdef_type_count(NULL), 0);
}

static void test_tree_text(void **state)
{
	bag_msgdef_t *def = parse_ok("pkg/T",
		"uint8 K=1\nLeaf[2] pair\nchar[] c\n=====\nMSG: pkg/Leaf\nstring S=a#b\nfloat64 x\n");
	struct bag_text t = { 0 };

	bag_print_msgdef_tree(&t, def, 0);
	assert_string_equal(t.p, "uint8 K=1\npkg/Leaf[2] pair\n  string S=a#b\n  float64 x\nchar[] c\n");
	bag_text_free(&t);
	bag_msgdef_free(def);
}

/* The field named name of t. */
static const struct bag_msgdef_field *field_of(const struct bag_msgdef_type *t, const char *name)
{
	for (size_t i = 0; i < t->nfields; i++)
		if (strcmp(t->fields[i].name, name) == 0)
			return &t->fields[i];
	fail_msg("no field %s in %s", name, t->name);
	return NULL;
}

/* The names bag_msgdef_const_match gives for an integer of field's type, '|' between; "" for none. */
static const char *consts_of(const struct bag_msgdef_type *t, const char *name, int64_t x)
{
	static char out[256];
	const struct bag_msgdef_field *f = field_of(t, name);
	const struct bag_msgdef_const *c[8];
	struct bag_value v = { .prim = f->prim };
	bool is_signed = f->prim == BAG_PRIM_INT8 || f->prim == BAG_PRIM_INT16 || f->prim == BAG_PRIM_INT32 ||
	                 f->prim == BAG_PRIM_INT64;

	if (is_signed)
		v.v.i = x;
	else
		v.v.u = (uint64_t)x;
	size_t n = bag_msgdef_const_match(t, f, &v, c, 8);
	out[0] = '\0';
	for (size_t i = 0; i < n && i < 8; i++)
		snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s", i ? "|" : "", c[i]->name);
	return out;
}

/* The type named name among def's. */
static const struct bag_msgdef_type *type_named(const bag_msgdef_t *def, const char *name)
{
	for (size_t i = 0; i < bag_msgdef_type_count(def); i++)
		if (strcmp(bag_msgdef_type_at(def, i)->name, name) == 0)
			return bag_msgdef_type_at(def, i);
	fail_msg("no type %s", name);
	return NULL;
}

/*
 * Enum constants next to values: the definitions ROS's own tools wrote in
 * the fixtures (DiagnosticStatus's level, rosgraph_msgs/Log's level), the
 * name prefix rule (NavSatStatus as sensor_msgs declares it) and a value
 * several constants share.
 */
static void test_const_match(void **state)
{
	bag_t *bag;
	(void)state;

	assert_int_equal(bag_open(&bag, FIX "bags/tf_lz4.bag", NULL), BAG_OK);
	for (size_t i = 0; i < bag_conn_count(bag); i++) {
		const struct bag_connection *c = bag_conn(bag, i);
		if (strcmp(c->type, "diagnostic_msgs/DiagnosticArray") != 0)
			continue;
		bag_msgdef_t *def = parse_ok(c->type, c->definition);
		const struct bag_msgdef_type *st = type_named(def, "diagnostic_msgs/DiagnosticStatus");
		assert_string_equal(consts_of(st, "level", 0), "OK");
		assert_string_equal(consts_of(st, "level", 2), "ERROR");
		assert_string_equal(consts_of(st, "level", 3), "STALE");
		assert_string_equal(consts_of(st, "level", 9), "");
		bag_msgdef_free(def);
	}
	bag_close(bag);
	assert_int_equal(bag_open(&bag, FIX "foreign/rosbag.js/example.bag", NULL), BAG_OK);
	const struct bag_connection *c = bag_conn(bag, 0);
	for (size_t i = 0; i < bag_conn_count(bag); i++)
		if (strcmp(bag_conn(bag, i)->type, "rosgraph_msgs/Log") == 0)
			c = bag_conn(bag, i);
	bag_msgdef_t *def = parse_ok(c->type, c->definition);
	assert_string_equal(consts_of(bag_msgdef_root(def), "level", 2), "INFO");
	assert_string_equal(consts_of(bag_msgdef_root(def), "level", 16), "FATAL");
	assert_string_equal(consts_of(bag_msgdef_root(def), "level", 3), "");
	bag_msgdef_free(def);
	bag_close(bag);

	def = parse_ok("sensor_msgs/NavSatStatus",
		"int8 STATUS_NO_FIX =  -1\nint8 STATUS_FIX =      0\nint8 STATUS_SBAS_FIX = 1\nint8 STATUS_GBAS_FIX = 2\n"
		"int8 status\nuint16 SERVICE_GPS =     1\nuint16 SERVICE_GLONASS = 2\nuint16 SERVICE_COMPASS = 4\n"
		"uint16 SERVICE_GALILEO = 8\nuint16 service\n");
	assert_string_equal(consts_of(bag_msgdef_root(def), "status", -1), "STATUS_NO_FIX");
	assert_string_equal(consts_of(bag_msgdef_root(def), "status", 1), "STATUS_SBAS_FIX");
	assert_string_equal(consts_of(bag_msgdef_root(def), "service", 1), "SERVICE_GPS");
	assert_string_equal(consts_of(bag_msgdef_root(def), "service", 3), "");
	bag_msgdef_free(def);
	/* the field's name picks among constants of one value; else all of them */
	def = parse_ok("pkg/E", "uint8 MODE_A=1\nuint8 KIND_B=1\nuint8 mode\nuint8 ONE=1\nuint8 UNO=1\nuint8 x\n"
	                        "int32 BIG=-2147483648\nint32 y\nint8 Z=5\nint8 w\n");
	assert_string_equal(consts_of(bag_msgdef_root(def), "mode", 1), "MODE_A");
	assert_string_equal(consts_of(bag_msgdef_root(def), "x", 1), "MODE_A|KIND_B|ONE|UNO");
	assert_string_equal(consts_of(bag_msgdef_root(def), "y", -2147483648LL), "BIG");
	assert_string_equal(consts_of(bag_msgdef_root(def), "w", 1), "");   /* the uint8 ones are another type */
	assert_string_equal(consts_of(bag_msgdef_root(def), "w", 5), "Z");
	bag_msgdef_free(def);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_md5_of_every_fixture_connection),
		cmocka_unit_test(test_constants_and_comments),
		cmocka_unit_test(test_const_match),
		cmocka_unit_test(test_comment_placement),
		cmocka_unit_test(test_aliases_and_arrays),
		cmocka_unit_test(test_nested_resolution),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_names_are_identifiers),
		cmocka_unit_test(test_depth_limit),
		cmocka_unit_test(test_md5_helper_vectors),
		cmocka_unit_test(test_md5_rfc1321),
		cmocka_unit_test(test_md5_text_rule),
		cmocka_unit_test(test_bare_name_as_is),
		cmocka_unit_test(test_tree_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
