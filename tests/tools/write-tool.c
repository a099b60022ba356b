/*
 * write-tool.c - bags for the export and append tests (export.sh), written
 * through the library's writer:
 *
 *   write-tool big OUT N SIZE none|bz2|lz4
 *       N std_msgs/String messages of SIZE bytes (SIZE >= 4; their text half
 *       random control characters, half NUL, so they compress as real data
 *       does) alternating /a and /b (latched), 1 ms apart from 1500000000 s.
 *   write-tool append BAG SRC N [crash]
 *       open BAG for append (2 KiB chunks, uncompressed), copy every message
 *       of SRC into it (bag_writer_copy: connections equal to BAG's are
 *       reused), then write N std_msgs/Int64 messages i = 0..N-1 on
 *       /appended, 1 ms apart after SRC's end; close. With crash, stop with
 *       _exit(3) instead of closing (what a killed process leaves).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bagscope/bagscope.h>

static const struct bag_conn_spec int_conn = {
	"/appended", "std_msgs/Int64", "34add168574510e6e17f5d23ecc077ef", "int64 data\n", "/tool", false,
};

static int big(const char *out, long n, long size, const char *comp)
{
	struct bag_writer_opts o = BAG_WRITER_OPTS_INIT;
	struct bag_conn_spec c[2] = {
		{ "/a", "std_msgs/String", "992ce8a1687cec8c8bd883ec73ca41d1", "string data\n", "/big", false },
		{ "/b", "std_msgs/String", "992ce8a1687cec8c8bd883ec73ca41d1", "string data\n", "/big", true },
	};
	uint8_t *buf = calloc(1, (size_t)size + 1);
	uint64_t x = 88172645463325252ULL;
	bag_writer_t *w = NULL;
	int rc;

	if (buf == NULL || size < 4 || bag_compression_parse(comp, strlen(comp), &o.compression) != BAG_OK)
		return 2;
	rc = bag_writer_open(&w, out, &o);
	for (long i = 0; i < n && rc == BAG_OK; i++) {
		buf[0] = (uint8_t)(size - 4);
		buf[1] = (uint8_t)((size - 4) >> 8);
		buf[2] = (uint8_t)((size - 4) >> 16);
		buf[3] = (uint8_t)((size - 4) >> 24);
		for (long k = 4; k < size / 2; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf[k] = (uint8_t)(x % 16);
		}
		rc = bag_writer_write(w, &c[i % 2], 1500000000LL * BAG_NSEC_PER_SEC + i * 1000000LL, buf, (size_t)size);
	}
	if (rc == BAG_OK)
		rc = bag_writer_close(w);
	if (rc != BAG_OK)
		fprintf(stderr, "write-tool: %s\n", bag_writer_error(w)->message);
	bag_writer_free(w);
	free(buf);
	return rc == BAG_OK ? 0 : 1;
}

static int append(const char *path, const char *src, long n, bool crash)
{
	struct bag_writer_opts o = BAG_WRITER_OPTS_INIT;
	bag_t *bag = NULL;
	bag_timeline_t *tl = NULL;
	bag_view_t *v = NULL;
	bag_writer_t *w = NULL;
	struct bag_message m;
	int64_t t;
	int rc;

	o.chunk_threshold = 2048;
	o.append = true;
	if ((rc = bag_open(&bag, src, NULL)) != BAG_OK || (rc = bag_timeline_open(&tl, &bag, 1)) != BAG_OK ||
	    (rc = bag_view_open(&v, tl, NULL)) != BAG_OK) {
		fprintf(stderr, "write-tool: %s: %s\n", src, bag_strerror(rc));
		return 1;
	}
	rc = bag_writer_open(&w, path, &o);
	for (uint64_t r = 0; r < bag_view_count(v) && rc == BAG_OK; r++)
		if ((rc = bag_view_read(v, r, &m)) == BAG_OK)
			rc = bag_writer_copy(w, &m);
	t = bag_end_time(bag);
	for (long i = 0; i < n && rc == BAG_OK; i++) {
		int64_t value = i;
		rc = bag_writer_write(w, &int_conn, t + (i + 1) * 1000000LL, &value, sizeof value);
	}
	if (crash)
		_exit(3);
	if (rc == BAG_OK)
		rc = bag_writer_close(w);
	if (rc != BAG_OK)
		fprintf(stderr, "write-tool: %s\n", bag_writer_error(w)->message);
	bag_writer_free(w);
	bag_view_free(v);
	bag_timeline_free(tl);
	bag_close(bag);
	return rc == BAG_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 6 && strcmp(argv[1], "big") == 0)
		return big(argv[2], atol(argv[3]), atol(argv[4]), argv[5]);
	if ((argc == 5 || (argc == 6 && strcmp(argv[5], "crash") == 0)) && strcmp(argv[1], "append") == 0)
		return append(argv[2], argv[3], atol(argv[4]), argc == 6);
	fprintf(stderr, "usage: write-tool big OUT N SIZE none|bz2|lz4 | append BAG SRC N [crash]\n");
	return 2;
}
