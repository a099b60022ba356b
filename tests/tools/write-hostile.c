/*
 * write-hostile.c - bags whose strings hold what a terminal obeys, for
 * tests/cli/hostile.sh: ESC sequences (a window title, clear screen), BEL, C1
 * CSI as UTF-8 (C2 9B) and as a raw byte (9B, invalid UTF-8), newline, tab,
 * DEL.
 *   write-hostile DIR
 * writes
 *   DIR/hostile.bag  with bagscope's writer: topic, type, callerid, a
 *       definition comment, a string constant and string values all hostile;
 *       two messages on one connection (md5sum right, so only escaping shows)
 *   DIR/header.bag   laid out byte by byte (the writer has no API for extra
 *       connection header fields): a connection header field whose name and
 *       value are hostile, and a definition whose field name is, which the
 *       parser must refuse; one message
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/bagscope.h>

/* ESC ]0;PWNED BEL (retitles the window), C1 CSI twice, DEL; then newline and tab */
#define EVIL_LINE "\x1b]0;PWNED\x07\xc2\x9b" "2J\x9b\x7f"
#define EVIL EVIL_LINE "\n\t"

static const char definition[] =
	"# comment " EVIL_LINE " end\n"
	"string data\n"
	"string[] more\n"
	"uint8[] raw\n"
	"string NOTE=\x1b[5mblink\x9b\n";

/* A std_msgs-style string: uint32 length, then the bytes. */
static size_t put_string(uint8_t *out, const char *s)
{
	uint32_t n = (uint32_t)strlen(s);

	memcpy(out, &n, 4);
	memcpy(out + 4, s, n);
	return 4 + n;
}

static int write_hostile(const char *path)
{
	struct bag_conn_spec conn = {
		"/evil" EVIL "topic", "evil_msgs/Str\x1b[2Jing", NULL, definition, "/node\x1b[31m\x9b\x07", false,
	};
	bag_msgdef_t *def = NULL;
	bag_writer_t *w = NULL;
	uint8_t msg[512];
	int rc = bag_msgdef_parse(&def, conn.type, definition, strlen(definition));

	if (rc != BAG_OK) {
		fprintf(stderr, "write-hostile: %s\n", bag_msgdef_error(def)->message);
		goto done;
	}
	conn.md5sum = bag_msgdef_root(def)->md5;
	rc = bag_writer_open(&w, path, NULL);
	for (int i = 0; rc == BAG_OK && i < 2; i++) {
		size_t n = put_string(msg, i ? "plain" : "value" EVIL "end");
		uint32_t count = 2, raw = 3;
		memcpy(msg + n, &count, 4);
		n += 4;
		n += put_string(msg + n, "item\x1b[1m");
		n += put_string(msg + n, "nel\xc2\x85" "csi\xc2\x9b");
		memcpy(msg + n, &raw, 4);
		memcpy(msg + n + 4, "\x1b\x9b\n", 3);
		n += 7;
		rc = bag_writer_write(w, &conn, 1500000000LL * BAG_NSEC_PER_SEC + i * 500000000LL, msg, n);
	}
	if (rc == BAG_OK)
		rc = bag_writer_close(w);
	if (rc != BAG_OK)
		fprintf(stderr, "write-hostile: %s\n", bag_writer_error(w)->message);
done:
	bag_writer_free(w);
	bag_msgdef_free(def);
	return rc;
}

/* A growable byte buffer; exits on allocation failure (a test tool). */
struct buf {
	uint8_t *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *s, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		if ((b->p = realloc(b->p, b->cap)) == NULL)
			exit(1);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static void put32(struct buf *b, uint32_t v)
{
	uint8_t x[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
	put(b, x, 4);
}

static void put64(struct buf *b, uint64_t v)
{
	put32(b, (uint32_t)v);
	put32(b, (uint32_t)(v >> 32));
}

/* A header field: <len><name>=<value>. */
static void field(struct buf *h, const char *name, const void *v, size_t n)
{
	put32(h, (uint32_t)(strlen(name) + 1 + n));
	put(h, name, strlen(name));
	put(h, "=", 1);
	put(h, v, n);
}

static void field8(struct buf *h, const char *name, uint8_t v) { field(h, name, &v, 1); }

static void field32(struct buf *h, const char *name, uint32_t v)
{
	struct buf t = { 0 };
	put32(&t, v);
	field(h, name, t.p, 4);
	free(t.p);
}

static void field64(struct buf *h, const char *name, uint64_t v)
{
	struct buf t = { 0 };
	put64(&t, v);
	field(h, name, t.p, 8);
	free(t.p);
}

static void fieldstr(struct buf *h, const char *name, const char *s) { field(h, name, s, strlen(s)); }

/* A record from header h (freed) and data. */
static void record(struct buf *out, struct buf *h, const void *data, size_t n)
{
	put32(out, (uint32_t)h->len);
	put(out, h->p, h->len);
	put32(out, (uint32_t)n);
	put(out, data, n);
	free(h->p);
	memset(h, 0, sizeof *h);
}

static void connection(struct buf *out)
{
	struct buf h = { 0 }, d = { 0 };

	field8(&h, "op", 7);
	field32(&h, "conn", 0);
	fieldstr(&h, "topic", "/header");
	fieldstr(&d, "callerid", "/talker");
	fieldstr(&d, "md5sum", "0123456789abcdef0123456789abcdef");
	fieldstr(&d, "message_definition", "string data\nint32 bad" EVIL_LINE "name\n");
	fieldstr(&d, "topic", "/header");
	fieldstr(&d, "type", "evil_msgs/Header");
	fieldstr(&d, "x-" EVIL "name", "value" EVIL "end");
	record(out, &h, d.p, d.len);
	free(d.p);
}

static int write_header_bag(const char *path)
{
	const uint64_t chunk_pos = 13 + 4096, sec = 1500000000;
	struct buf body = { 0 }, rest = { 0 }, out = { 0 }, h = { 0 }, d = { 0 };
	uint8_t msg[64];
	size_t msg_off, n;
	int rc = 1;
	FILE *f;

	connection(&body);
	msg_off = body.len;
	field8(&h, "op", 2);
	field32(&h, "conn", 0);
	field64(&h, "time", sec);
	n = put_string(msg, "hello");
	memset(msg + n, 0, 4);
	record(&body, &h, msg, n + 4);

	field8(&h, "op", 5);
	fieldstr(&h, "compression", "none");
	field32(&h, "size", (uint32_t)body.len);
	record(&rest, &h, body.p, body.len);
	field8(&h, "op", 4);
	field32(&h, "ver", 1);
	field32(&h, "conn", 0);
	field32(&h, "count", 1);
	put32(&d, (uint32_t)sec);
	put32(&d, 0);
	put32(&d, (uint32_t)msg_off);
	record(&rest, &h, d.p, d.len);
	free(d.p);
	memset(&d, 0, sizeof d);
	uint64_t index_pos = chunk_pos + rest.len;
	connection(&rest);
	field8(&h, "op", 6);
	field32(&h, "ver", 1);
	field64(&h, "chunk_pos", chunk_pos);
	field64(&h, "start_time", sec);
	field64(&h, "end_time", sec);
	field32(&h, "count", 1);
	put32(&d, 0);
	put32(&d, 1);
	record(&rest, &h, d.p, d.len);
	free(d.p);

	put(&out, "#ROSBAG V2.0\n", 13);
	field8(&h, "op", 3);
	field64(&h, "index_pos", index_pos);
	field32(&h, "conn_count", 1);
	field32(&h, "chunk_count", 1);
	{
		char pad[4096];
		size_t hl = h.len;
		memset(pad, ' ', sizeof pad);
		record(&out, &h, pad, 4096 - 8 - hl);
	}
	put(&out, rest.p, rest.len);
	f = fopen(path, "wb");
	if (f != NULL) {
		rc = fwrite(out.p, 1, out.len, f) != out.len;
		rc |= fclose(f) != 0;
	}
	if (rc != 0)
		fprintf(stderr, "write-hostile: cannot write %s\n", path);
	free(body.p);
	free(rest.p);
	free(out.p);
	return rc;
}

int main(int argc, char **argv)
{
	char path[4096];

	if (argc != 2) {
		fprintf(stderr, "usage: write-hostile DIR\n");
		return 2;
	}
	snprintf(path, sizeof path, "%s/hostile.bag", argv[1]);
	if (write_hostile(path) != BAG_OK)
		return 1;
	snprintf(path, sizeof path, "%s/header.bag", argv[1]);
	return write_header_bag(path) == 0 ? 0 : 1;
}
