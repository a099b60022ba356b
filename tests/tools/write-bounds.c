/*
 * write-bounds.c - small bags that ask for unbounded work, for the resource
 * tests (tests/cli/resources.sh, tests/cli/bounds.sh), written through the
 * library's writer. Each is a few kilobytes unless said otherwise.
 *
 *   write-bounds nested OUT     /n: `Mid[] m`, Mid is `Empty[65536] e`: the
 *                               4-byte message 00 00 01 00 holds 2^32 elements
 *   write-bounds nestedz OUT    the same, Empty holding `uint8[0] z` (a path can name it)
 *   write-bounds tree OUT       /t: 24 levels of types with two fields of the
 *                               next each, the last empty: 2^24 messages in 0 bytes
 *   write-bounds conns OUT N    N connections, each on a topic of its own
 *                               (/c/K, std_msgs/UInt32), one message each
 *   write-bounds bigdef OUT N   /d: one message of N bytes whose definition has N types
 *                               (d/T0 holds one of each other, each a uint8)
 *   write-bounds duration OUT   /dur: a duration of secs -1, nsecs -5
 *   write-bounds bidi OUT       /bidi U+202E txt.exe: a string holding U+202E, U+2066
 *                               and U+200F
 *   write-bounds names OUT LIST legal ROS names that C or C++ would take for
 *                               their own (issue 18): /fields, type names/Fields, a
 *                               uint8 constant per word of LIST (one a line) and a
 *                               field per word that is a legal field name, and the
 *                               same for the issue's list, with nested types
 *                               named FILE, size_t, uint8_t, std/string, pkg/decode,
 *                               Name (whose constant X is also a field Name_X);
 *                               and topics whose root types are __linux__/T,
 *                               main/T, _IO_FILE, __FILE__, bag; and a topic, type,
 *                               field and string constant of 5000 bytes each
 *   write-bounds bigarray OUT S /big: a type with a fixed uint8[S] array, one
 *                               message of S bytes (empty when S > 2^26)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/bagscope.h>

#define T0 INT64_C(1500000000000000000)

/* Write one message of type/definition on topic into w. */
static int put(bag_writer_t *w, const char *topic, const char *type, const char *def, const void *data,
               size_t len, int64_t t)
{
	bag_msgdef_t *md = NULL;
	int rc = bag_msgdef_parse(&md, type, def, strlen(def));

	if (rc != BAG_OK) {
		fprintf(stderr, "write-bounds: %s: %s\n", type, bag_msgdef_error(md)->message);
	} else {
		struct bag_conn_spec c = { topic, type, bag_msgdef_root(md)->md5, def, "/bounds", false };
		rc = bag_writer_write(w, &c, t, data, len);
	}
	bag_msgdef_free(md);
	return rc;
}

/* t/L0 ... t/L{levels}: each holds two of the next, the last nothing. */
static char *tree_def(int levels)
{
	size_t cap = (size_t)levels * 64 + 64, n = 0;
	char *s = malloc(cap);

	for (int i = 0; s != NULL && i <= levels; i++) {
		if (i > 0)
			n += (size_t)snprintf(s + n, cap - n, "================\nMSG: t/L%d\n", i);
		if (i < levels)
			n += (size_t)snprintf(s + n, cap - n, "L%d a\nL%d b\n", i + 1, i + 1);
	}
	return s;
}

/* d/T0 holds one each of d/T1 ... d/TN-1, each a uint8 (so resolving looks each up). */
static char *big_def(long ntypes)
{
	size_t cap = (size_t)ntypes * 128 + 64, n = 0;
	char *s = malloc(cap);

	if (s != NULL)
		n += (size_t)snprintf(s, cap, "uint8 v0\n");
	for (long k = 1; s != NULL && k < ntypes; k++)
		n += (size_t)snprintf(s + n, cap - n, "T%ld f%ld\n", k, k);
	for (long k = 1; s != NULL && k < ntypes; k++)
		n += (size_t)snprintf(s + n, cap - n, "================================================================================\n"
		                      "MSG: d/T%ld\nuint8 v%ld\n", k, k);
	return s;
}

static const char *const issue_names[] = {
	"SEEK_SET", "FILENAME_MAX", "EINVAL", "INT8_WIDTH", "LC_ALL", "uint8_t", "int32_t", "errno", "stdin",
	"linux", "unix", "i386", "main", "std", "decode", "print_json", "bag", "bag_decode", "BAG_OK", "NULL",
	"EOF", "assert", "offsetof", "true", "bool", "FILE", "size_t", "Name_X", "x__y", "a_", "K",
};

static bool legal_field(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/* The definition of names/Fields: a field per name, a constant per name in names/Consts, the types. */
static int names_def(struct bag_text *d, FILE *list)
{
	struct bag_text consts = { 0 };
	char line[512];

	for (size_t i = 0; i < sizeof issue_names / sizeof *issue_names; i++) {
		bag_text_printf(d, "uint8 %s\n", issue_names[i]);
		bag_text_printf(&consts, "uint8 %s=1\n", issue_names[i]);
	}
	while (list != NULL && fgets(line, sizeof line, list) != NULL) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '\0' || line[strcspn(line, " \t=#")] != '\0')
			continue;
		if (legal_field(line))
			bag_text_printf(d, "uint8 %s\n", line);
		bag_text_printf(&consts, "uint8 %s=1\n", line);   /* a constant's name may be any word */
	}
	bag_text_printf(d, "Consts consts\nFILE t1\nsize_t t2\nuint8_t t3\nstd/string t4\npkg/decode t5\nName t6\n"
	                "Name[2] t7\n");
	bag_text_printf(d, "================\nMSG: names/Consts\n%s", consts.p ? consts.p : "");
	for (int i = 0; i < 6; i++)
		bag_text_printf(d, "================\nMSG: %s\nuint8 a\n",
		                (const char *[]){ "FILE", "size_t", "uint8_t", "std/string", "pkg/decode", "Name" }[i]);
	bag_text_printf(d, "uint8 X=7\n");
	bag_text_free(&consts);
	return d->failed ? BAG_ENOMEM : BAG_OK;
}

/* 5000 bytes of c (static, reused). */
static const char *long_run(char c)
{
	static char s[5001];

	memset(s, c, 5000);
	return s;
}

static int write_names(bag_writer_t *w, const char *path)
{
	static const char *const roots[][2] = {
		{ "/_IO_FILE", "_IO_FILE" }, { "/__FILE__", "__FILE__" }, { "/main", "main/T" },
		{ "/linux", "__linux__/T" }, { "/bag", "bag" }, { "/SEEK_SET", "std/vector" },
	};
	FILE *list = path != NULL ? fopen(path, "r") : NULL;
	struct bag_text d = { 0 };
	uint8_t *msg = calloc(1, 1 << 20);
	int rc = msg != NULL && (path == NULL || list != NULL) ? names_def(&d, list) : BAG_ENOMEM;

	if (rc == BAG_OK)
		rc = put(w, "/fields", "names/Fields", d.p, msg, 1 << 20, T0);
	for (size_t i = 0; rc == BAG_OK && i < sizeof roots / sizeof *roots; i++)
		rc = put(w, roots[i][0], roots[i][1], "uint8 a\nuint8 _IO_FILE=1\nuint8 __FILE__=2\n", msg, 1, T0 + 1);
	/* 5000-byte names: topic, type, field, a string constant's value (past ISO C's 4095-byte literals) */
	if (rc == BAG_OK) {
		struct bag_text topic = { 0 }, type = { 0 }, def = { 0 };
		bag_text_printf(&topic, "/%.5000s", long_run('c'));
		bag_text_printf(&type, "long/%.5000s", long_run('B'));
		bag_text_printf(&def, "uint8 %.5000s\nstring V=%.5000s\n", long_run('a'), long_run('?'));
		rc = topic.failed || type.failed || def.failed ? BAG_ENOMEM : put(w, topic.p, type.p, def.p, msg, 1, T0 + 2);
		bag_text_free(&topic);
		bag_text_free(&type);
		bag_text_free(&def);
	}
	if (list != NULL)
		fclose(list);
	bag_text_free(&d);
	free(msg);
	return rc;
}

static int write_kind(bag_writer_t *w, const char *kind, long n)
{
	static const uint8_t four[4] = { 0, 0, 1, 0 };
	int rc = BAG_OK;

	if (strcmp(kind, "nested") == 0)
		return put(w, "/n", "b/Nested", "Mid[] m\n================\nMSG: b/Mid\nEmpty[65536] e\n"
		           "================\nMSG: b/Empty\n", four, 4, T0);
	if (strcmp(kind, "nestedz") == 0)   /* the same, an Empty holding uint8[0] z: paths can reach into it */
		return put(w, "/n", "b/Nested", "Mid[] m\n================\nMSG: b/Mid\nEmpty[65536] e\n"
		           "================\nMSG: b/Empty\nuint8[0] z\n", four, 4, T0);
	if (strcmp(kind, "tree") == 0) {
		char *d = tree_def(24);
		rc = d ? put(w, "/t", "t/L0", d, "", 0, T0) : BAG_ENOMEM;
		free(d);
		return rc;
	}
	if (strcmp(kind, "conns") == 0) {
		for (long i = 0; i < n && rc == BAG_OK; i++) {
			char topic[32];
			uint8_t v[4] = { (uint8_t)i, (uint8_t)(i >> 8), (uint8_t)(i >> 16), 0 };
			snprintf(topic, sizeof topic, "/c/%ld", i);
			struct bag_conn_spec c = { topic, "std_msgs/UInt32", "304a39449588c7f8ce2df6e8001c5fce",
			                           "uint32 data\n", "/bounds", false };
			rc = bag_writer_write(w, &c, T0 + i, v, 4);
		}
		return rc;
	}
	if (strcmp(kind, "bigdef") == 0) {
		char *d = big_def(n);
		uint8_t *msg = calloc((size_t)n + 1, 1);
		rc = d && msg ? put(w, "/d", "d/T0", d, msg, (size_t)n, T0) : BAG_ENOMEM;
		free(d);
		free(msg);
		return rc;
	}
	if (strcmp(kind, "duration") == 0) {
		static const uint8_t dur[8] = { 0xff, 0xff, 0xff, 0xff, 0xfb, 0xff, 0xff, 0xff };
		return put(w, "/dur", "std_msgs/Duration", "duration data\n", dur, 8, T0);
	}
	if (strcmp(kind, "bidi") == 0) {
		static const char s[] = "abc\xe2\x80\xae" "fed\xe2\x81\xa6" "x\xe2\x80\x8f" "end";
		uint8_t buf[64];
		uint32_t len = (uint32_t)strlen(s);
		memcpy(buf, &len, 4);
		memcpy(buf + 4, s, len);
		return put(w, "/bidi\xe2\x80\xae" "txt.exe", "std_msgs/String", "string data\n", buf, 4 + len, T0);
	}
	if (strcmp(kind, "bigarray") == 0) {
		char def[64];
		size_t len = n <= (1L << 26) ? (size_t)n : 0;
		uint8_t *msg = calloc(len + 1, 1);
		snprintf(def, sizeof def, "uint8[%ld] data\n", n);
		rc = msg ? put(w, "/big", "b/Big", def, msg, len, T0) : BAG_ENOMEM;
		free(msg);
		return rc;
	}
	fprintf(stderr, "write-bounds: unknown kind %s\n", kind);
	return BAG_EINVAL;
}

int main(int argc, char **argv)
{
	bag_writer_t *w = NULL;
	long n = argc > 3 ? strtol(argv[3], NULL, 10) : 0;
	int rc;

	if (argc < 3) {
		fprintf(stderr, "usage: write-bounds nested|tree|conns|bigdef|duration|bidi|bigarray|names OUT [N|LIST]\n");
		return 2;
	}
	rc = bag_writer_open(&w, argv[2], NULL);
	if (rc == BAG_OK)
		rc = strcmp(argv[1], "names") == 0 ? write_names(w, argc > 3 ? argv[3] : NULL) : write_kind(w, argv[1], n);
	if (rc == BAG_OK)
		rc = bag_writer_close(w);
	if (rc != BAG_OK)
		fprintf(stderr, "write-bounds: %s: %s\n", argv[2], w ? bag_writer_error(w)->message : "cannot open");
	bag_writer_free(w);
	return rc == BAG_OK ? 0 : 1;
}
