/*
 * write-gen.c - a bag for tests/cli/gen.sh with what the code generator must
 * name and lay out carefully, written with bagscope's writer:
 *   write-gen DIR   writes DIR/versions.bag
 * Topic /thing has two connections carrying two definitions of
 * fixture_pkg/Thing (a type that changed between recordings), and so do
 * their nested fixture_pkg/Part; /other carries the second again. Field
 * names are C and C++ keywords, a macro (errno) and the struct's own name;
 * constants of every kind, one out of range; comments hold comment
 * delimiters, a trigraph and a trailing backslash; arrays of empty
 * messages, a zero-length fixed array, times, durations, bools.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/bagscope.h>

static const char v1[] =
	"# A thing, first version: */ and /* and ?\?/ in a comment, then a backslash \\\n"
	"int8 NEG=-128\n"
	"uint64 BIG=18446744073709551615\n"
	"int64 MIN=-9223372036854775808\n"
	"float64 PI=3.14159\n"
	"float32 HALF=0.5\n"
	"bool YES=True\n"
	"int8 BAD=300   # out of range: left out\n"
	"string S=a \"quoted\" \\ back?\?/ slash\n"
	"\n"
	"int32 x\n"
	"string class      # a C++ keyword\n"
	"fixture_pkg/Part part\n"
	"================================================================================\n"
	"MSG: fixture_pkg/Part\n"
	"uint8 int\n";

static const char v2[] =
	"# second version\n"
	"int32 x\n"
	"float64 y\n"
	"string class\n"
	"Part part\n"
	"Part[2] pair\n"
	"Part[] parts\n"
	"std_msgs/Empty[3] nothing\n"
	"std_msgs/Empty[] nothings\n"
	"int32[0] none\n"
	"time[2] stamps\n"
	"duration[] durs\n"
	"bool[] flags\n"
	"char c\n"
	"byte b\n"
	"int16 Thing   # named as its struct\n"
	"uint32 errno\n"
	"================================================================================\n"
	"MSG: fixture_pkg/Part\n"
	"uint8 int\n"
	"string namespace\n"
	"================================================================================\n"
	"MSG: std_msgs/Empty\n";

struct buf {
	uint8_t b[1024];
	size_t n;
};

static void put(struct buf *b, const void *p, size_t n)
{
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void u8(struct buf *b, uint8_t v) { put(b, &v, 1); }

static void u32(struct buf *b, uint32_t v)
{
	uint8_t le[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
	put(b, le, 4);
}

static void str(struct buf *b, const char *s)
{
	u32(b, (uint32_t)strlen(s));
	put(b, s, strlen(s));
}

static void part2(struct buf *b, uint8_t i, const char *ns)
{
	u8(b, i);
	str(b, ns);
}

/* A message of the second version; k varies it. */
static void thing2(struct buf *b, int k)
{
	double y = k * 0.25 - 1;

	b->n = 0;
	u32(b, (uint32_t)(-k));
	put(b, &y, 8);
	str(b, k ? "obj" : "");
	part2(b, (uint8_t)k, "ns");
	part2(b, 1, "left");
	part2(b, 2, "right\xff");
	u32(b, (uint32_t)k);
	for (int i = 0; i < k; i++)
		part2(b, (uint8_t)(10 + i), "p");
	u32(b, (uint32_t)k * 2);          /* nothings: empty messages take no bytes */
	u32(b, 1500000000);
	u32(b, 1);
	u32(b, 7);
	u32(b, 999999999);
	u32(b, 1);
	u32(b, (uint32_t)-2);
	u32(b, (uint32_t)-500);
	u32(b, 3);
	u8(b, 0);
	u8(b, 1);
	u8(b, 2);
	u8(b, 'A');
	u8(b, 0x80);
	u8(b, 0xff);
	u8(b, 0x7f);
	u32(b, 0xffffffffu);
}

static int spec(struct bag_conn_spec *c, const char *topic, const char *def, const char *callerid,
                bag_msgdef_t **keep)
{
	memset(c, 0, sizeof *c);
	if (bag_msgdef_parse(keep, "fixture_pkg/Thing", def, strlen(def)) != BAG_OK) {
		fprintf(stderr, "write-gen: %s\n", bag_msgdef_error(*keep)->message);
		return -1;
	}
	c->topic = topic;
	c->type = "fixture_pkg/Thing";
	c->md5sum = bag_msgdef_md5(*keep);
	c->definition = def;
	c->callerid = callerid;
	return 0;
}

int main(int argc, char **argv)
{
	struct bag_conn_spec a, b, other;
	bag_msgdef_t *da = NULL, *db = NULL, *dc = NULL;
	bag_writer_t *w = NULL;
	struct buf m;
	char path[4096];
	int rc = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: write-gen DIR\n");
		return 2;
	}
	snprintf(path, sizeof path, "%s/versions.bag", argv[1]);
	if (spec(&a, "/thing", v1, "/old", &da) || spec(&b, "/thing", v2, "/new", &db) ||
	    spec(&other, "/other", v2, "/new", &dc))
		goto done;
	if (bag_writer_open(&w, path, NULL) != BAG_OK)
		goto fail;
	for (int k = 0; k < 3; k++) {
		m.n = 0;
		u32(&m, (uint32_t)(k * 1000 - 1));
		str(&m, k == 1 ? "tab\there" : "c");
		u8(&m, (uint8_t)(200 + k));
		if (bag_writer_write(w, &a, 1500000000000000000LL + k, m.b, m.n) != BAG_OK)
			goto fail;
		thing2(&m, k);
		if (bag_writer_write(w, &b, 1500000000500000000LL + k, m.b, m.n) != BAG_OK ||
		    bag_writer_write(w, &other, 1500000000700000000LL + k, m.b, m.n) != BAG_OK)
			goto fail;
	}
	if (bag_writer_close(w) != BAG_OK)
		goto fail;
	rc = 0;
	goto done;
fail:
	fprintf(stderr, "write-gen: %s\n", w ? bag_writer_error(w)->message : "cannot open");
done:
	bag_writer_free(w);
	bag_msgdef_free(da);
	bag_msgdef_free(db);
	bag_msgdef_free(dc);
	return rc;
}
