/*
 * write-sample.c - writes a small bag with bagscope's writer for the ROS
 * compatibility test (rosbag-compat.sh, which knows these values):
 * i = 0..99: /chatter std_msgs/String "hello i" and /count std_msgs/Int64
 * i * 1000003 - 50000000, both at 1500000000 s + (i / 2) * 0.1 s (so times
 * repeat), and for every tenth i a latched /point geometry_msgs/Point
 * (i / 2, -i, 1 / (i + 1)) stamped 2 s earlier plus 1 ns (out of order).
 * The 1024-byte threshold makes a dozen chunks.
 *   write-sample OUT.bag none|bz2|lz4
 */
#include <stdio.h>
#include <string.h>

#include <bagscope/bagscope.h>

static const struct bag_conn_spec str_conn = {
	"/chatter", "std_msgs/String", "992ce8a1687cec8c8bd883ec73ca41d1", "string data\n", "/talker", false,
};
static const struct bag_conn_spec int_conn = {
	"/count", "std_msgs/Int64", "34add168574510e6e17f5d23ecc077ef", "int64 data\n", NULL, false,
};
static const struct bag_conn_spec point_conn = {
	"/point", "geometry_msgs/Point", "4a842b65f413084dc2b10fb484ea7f17",
	"float64 x\nfloat64 y\nfloat64 z\n", "/pub", true,
};

int main(int argc, char **argv)
{
	struct bag_writer_opts opts = { .size = sizeof(struct bag_writer_opts), .compression = BAG_COMPRESSION_NONE,
	                                .chunk_threshold = 1024 };
	bag_writer_t *w;
	int rc;

	if (argc != 3 || bag_compression_parse(argv[2], strlen(argv[2]), &opts.compression) != BAG_OK) {
		fprintf(stderr, "usage: write-sample OUT.bag none|bz2|lz4\n");
		return 2;
	}
	rc = bag_writer_open(&w, argv[1], &opts);
	for (int i = 0; rc == BAG_OK && i < 100; i++) {
		int64_t t = 1500000000LL * BAG_NSEC_PER_SEC + (int64_t)(i / 2) * 100000000;
		char s[40];
		int64_t v = (int64_t)i * 1000003 - 50000000;
		double p[3] = { i * 0.5, -i, 1.0 / (i + 1) };
		uint32_t len = (uint32_t)snprintf(s + 4, sizeof s - 4, "hello %d", i);

		memcpy(s, &len, 4);
		rc = bag_writer_write(w, &str_conn, t, s, 4 + len);
		if (rc == BAG_OK)
			rc = bag_writer_write(w, &int_conn, t, &v, 8);
		if (rc == BAG_OK && i % 10 == 0)
			rc = bag_writer_write(w, &point_conn, t - 2 * BAG_NSEC_PER_SEC + 1, p, sizeof p);
	}
	if (rc == BAG_OK)
		rc = bag_writer_close(w);
	if (rc != BAG_OK)
		fprintf(stderr, "write-sample: %s\n", bag_writer_error(w)->message);
	bag_writer_free(w);
	return rc == BAG_OK ? 0 : 1;
}
