/*
 * expr.c - figures for the filter language (bench/bench-expr).
 *
 *   bench/bench-expr [-n MESSAGES] [-r EVALS] [-o DIR] [-k]
 *
 * 1. ns per bag_expr_eval() on sensor_msgs/Imu messages held in memory, for
 *    a few filters (the target one first: linear_acceleration.x > 0.5),
 *    next to one bag_decode() of the same message with no visitor.
 * 2. One thread, the whole way: writes a bag of MESSAGES Imu messages (default
 *    1.33 million, uncompressed), then opens it, builds the timeline and
 *    reads and filters every message in view order, printing the time of
 *    each part. (The scan engine spreads this over cores; this is the floor
 *    one core gives.) -k keeps the bag.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bagscope/bagscope.h>

static const char imu_def[] =
	"Header header\n"
	"geometry_msgs/Quaternion orientation\n"
	"float64[9] orientation_covariance\n"
	"geometry_msgs/Vector3 angular_velocity\n"
	"float64[9] angular_velocity_covariance\n"
	"geometry_msgs/Vector3 linear_acceleration\n"
	"float64[9] linear_acceleration_covariance\n"
	"================================================================================\n"
	"MSG: std_msgs/Header\n"
	"uint32 seq\ntime stamp\nstring frame_id\n"
	"================================================================================\n"
	"MSG: geometry_msgs/Quaternion\n"
	"float64 x\nfloat64 y\nfloat64 z\nfloat64 w\n"
	"================================================================================\n"
	"MSG: geometry_msgs/Vector3\n"
	"float64 x\nfloat64 y\nfloat64 z\n";

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A pseudo-random double in [-1, 1). */
static double rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(*s >> 11) / (double)(1ULL << 52) - 1.0;
}

/* Serialise one Imu message into buf (324 + frame_id bytes); returns its size. */
static size_t make_imu(uint8_t *buf, uint32_t seq, int64_t t, uint64_t *s)
{
	size_t n = 0;
	uint32_t u[3] = { seq, (uint32_t)(t / 1000000000), (uint32_t)(t % 1000000000) };
	const char *frame = "imu_link";
	uint32_t flen = (uint32_t)strlen(frame);
	double d;

	memcpy(buf, u, 12);
	n = 12;
	memcpy(buf + n, &flen, 4);
	memcpy(buf + n + 4, frame, flen);
	n += 4 + flen;
	for (int i = 0; i < 4 + 9 + 3 + 9 + 3 + 9; i++) {
		d = i == 25 ? rnd(s) * 2 : i == 27 ? 9.81 + rnd(s) : rnd(s) * 0.01;   /* 25: linear_acceleration.x */
		memcpy(buf + n, &d, 8);
		n += 8;
	}
	return n;
}

static int micro(long reps)
{
	static const char *const filters[] = {
		"linear_acceleration.x > 0.5",
		"header.frame_id == \"imu_link\"",
		"abs(linear_acceleration.z - 9.81) > 0.5 && angular_velocity.x < 0",
		"linear_acceleration_covariance[-1] > 0.009",
		"orientation_covariance[*] > 0.0099",
		"header.frame_id =~ \"^imu\"",
		"$time > 1500000000.5",
	};
	const struct bag_connection conn = { .topic = "/imu/data", .type = "sensor_msgs/Imu" };
	enum { NMSG = 64 };
	uint8_t msgs[NMSG][512];
	size_t lens[NMSG];
	uint64_t seed = 42;
	bag_msgdef_t *def;

	if (bag_msgdef_parse(&def, "sensor_msgs/Imu", imu_def, sizeof imu_def - 1) != BAG_OK) {
		fprintf(stderr, "bench-expr: %s\n", bag_msgdef_error(def)->message);
		return 1;
	}
	for (int i = 0; i < NMSG; i++)
		lens[i] = make_imu(msgs[i], (uint32_t)i, 1500000000000000000LL + i * 5000000LL, &seed);
	printf("eval on %zu-byte sensor_msgs/Imu messages in memory, %ld evaluations each:\n", lens[0], reps);
	for (size_t f = 0; f < sizeof filters / sizeof *filters; f++) {
		bag_expr_t *e;
		bag_expr_prog_t *p;
		long hits = 0;
		if (bag_expr_parse(&e, filters[f], strlen(filters[f])) != BAG_OK ||
		    bag_expr_compile(&p, e, &conn, def) != BAG_OK || bag_expr_check(e, &p, 1) != BAG_OK) {
			fprintf(stderr, "bench-expr: %s: %s\n", filters[f], bag_expr_error(e)->message);
			return 1;
		}
		double t0 = now();
		for (long r = 0; r < reps; r++)
			hits += bag_expr_eval(p, msgs[r % NMSG], lens[r % NMSG], 1500000000000000000LL + r) == 1;
		double dt = now() - t0;
		printf("  %6.1f ns/eval  %-66s (%.0f%% true)\n", dt / (double)reps * 1e9, filters[f],
		       100.0 * (double)hits / (double)reps);
		bag_expr_prog_free(p);
		bag_expr_free(e);
	}
	double t0 = now();
	long bad = 0;
	for (long r = 0; r < reps; r++)
		bad += bag_decode(def, msgs[r % NMSG], lens[r % NMSG], NULL, NULL, NULL, NULL) != BAG_OK;
	printf("  %6.1f ns/decode bag_decode() of the whole message, no visitor%s\n",
	       (now() - t0) / (double)reps * 1e9, bad ? " (errors!)" : "");
	bag_msgdef_free(def);
	return 0;
}

static int whole(long n, const char *dir, int keep)
{
	char path[4096];
	uint8_t buf[512];
	uint64_t seed = 7;
	const struct bag_conn_spec imu = { "/imu/data", "sensor_msgs/Imu", "6a62c6daae103f4ff57a132d6f95cec2",
	                                   imu_def, "/bench", false };
	const char *filter = "linear_acceleration.x > 0.5";
	bag_writer_t *w;
	bag_t *bag = NULL;
	bag_timeline_t *tl = NULL;
	bag_view_t *view = NULL;
	bag_msgdef_t *def = NULL;
	bag_expr_t *e = NULL;
	bag_expr_prog_t *p = NULL;
	int rc;

	snprintf(path, sizeof path, "%s/bench-expr-%d.bag", dir, (int)getpid());
	double t0 = now();
	if ((rc = bag_writer_open(&w, path, NULL)) == BAG_OK) {
		for (long i = 0; rc == BAG_OK && i < n; i++) {
			int64_t t = 1500000000000000000LL + i * 2500000LL;    /* 400 Hz */
			size_t len = make_imu(buf, (uint32_t)i, t, &seed);
			rc = bag_writer_write(w, &imu, t, buf, len);
		}
		if (rc == BAG_OK)
			rc = bag_writer_close(w);
	}
	if (rc != BAG_OK) {
		fprintf(stderr, "bench-expr: %s\n", bag_writer_error(w)->message);
		bag_writer_free(w);
		return 1;
	}
	bag_writer_free(w);
	printf("wrote %ld Imu messages to %s in %.2f s\n", n, path, now() - t0);

	double t1 = now();
	if ((rc = bag_open(&bag, path, NULL)) != BAG_OK || (rc = bag_timeline_open(&tl, &bag, 1)) != BAG_OK ||
	    (rc = bag_timeline_load(tl, 0)) < 0 || (rc = bag_view_open(&view, tl, NULL)) != BAG_OK) {
		fprintf(stderr, "bench-expr: cannot read %s: %s\n", path, bag_strerror(rc));
		return 1;
	}
	double t2 = now();
	const struct bag_connection *conn = bag_conn(bag, 0);
	if (bag_msgdef_parse(&def, conn->type, conn->definition, strlen(conn->definition)) != BAG_OK ||
	    bag_expr_parse(&e, filter, strlen(filter)) != BAG_OK || bag_expr_compile(&p, e, conn, def) != BAG_OK ||
	    bag_expr_check(e, &p, 1) != BAG_OK) {
		fprintf(stderr, "bench-expr: cannot compile '%s'\n", filter);
		return 1;
	}
	uint64_t hits = 0, rows = bag_view_count(view), sum = 0;
	double t3 = now();
	for (uint64_t r = 0; r < rows; r++) {
		struct bag_message m;
		if (bag_view_read(view, r, &m) != BAG_OK) {
			fprintf(stderr, "bench-expr: %s\n", bag_view_error(view)->message);
			return 1;
		}
		sum += m.data[m.size - 1];
	}
	double t4 = now();
	for (uint64_t r = 0; r < rows; r++) {
		struct bag_message m;
		if (bag_view_read(view, r, &m) != BAG_OK) {
			fprintf(stderr, "bench-expr: %s\n", bag_view_error(view)->message);
			return 1;
		}
		hits += bag_expr_eval(p, m.data, m.size, m.time_ns) == 1;
	}
	double t5 = now();
	printf("one thread, uncompressed, file in the page cache: open + timeline %.3f s; read every message %.3f s; "
	       "read and filter '%s' %.3f s; open + read + filter %.3f s; %llu of %llu messages match%s\n",
	       t2 - t1, t4 - t3, filter, t5 - t4, (t2 - t1) + (t5 - t4),
	       (unsigned long long)hits, (unsigned long long)rows, sum == 1 ? "" : "");
	bag_expr_prog_free(p);
	bag_expr_free(e);
	bag_msgdef_free(def);
	bag_view_free(view);
	bag_timeline_free(tl);
	bag_close(bag);
	if (!keep)
		unlink(path);
	return 0;
}

int main(int argc, char **argv)
{
	long n = 1330000, reps = 20000000;
	const char *dir = "/tmp";
	int keep = 0, opt;

	while ((opt = getopt(argc, argv, "n:r:o:k")) != -1) {
		switch (opt) {
		case 'n': n = atol(optarg); break;
		case 'r': reps = atol(optarg); break;
		case 'o': dir = optarg; break;
		case 'k': keep = 1; break;
		default:
			fprintf(stderr, "usage: bench-expr [-n MESSAGES] [-r EVALS] [-o DIR] [-k]\n");
			return 2;
		}
	}
	if (micro(reps) != 0)
		return 1;
	return n > 0 ? whole(n, dir, keep) : 0;
}
