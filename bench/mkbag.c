/*
 * mkbag.c - write the benchmark bag: 4 million messages of real ROS types on
 * 8 topics, as a robot's recording would hold them.
 *
 *   bench/mkbag [-n MESSAGES] [-c none|bz2|lz4] [-d DEFS_DIR] OUT.bag
 *
 * Per 60 messages: 20 sensor_msgs/Imu on /imu/data (so a third of the bag,
 * 1.33 M of 4 M), 12 tf2_msgs/TFMessage on /tf, 12 sensor_msgs/JointState on
 * /joint_states, 6 nav_msgs/Odometry on /odom, 4 sensor_msgs/NavSatFix on
 * /gps/fix, 3 rosgraph_msgs/Log on /rosout, 2 diagnostic_msgs/DiagnosticArray
 * on /diagnostics and 1 sensor_msgs/LaserScan (360 beams) on /scan; times
 * advance 2.5 ms a message. Values are deterministic functions of the message
 * number; one /rosout message near the end (at 99.99 %) says
 * "bagscope-needle", for search benchmarks. Definitions and md5 sums are read
 * from DEFS_DIR (bench/defs: first line md5, then the full text, as genpy
 * has them).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/bagscope.h>

/* A growing little-endian byte buffer for one message. */
struct buf {
	uint8_t p[8192];
	size_t n;
};

static void put(struct buf *b, const void *p, size_t n)
{
	memcpy(b->p + b->n, p, n);
	b->n += n;
}
static void u8(struct buf *b, uint8_t v) { put(b, &v, 1); }
static void u32(struct buf *b, uint32_t v) { put(b, &v, 4); }
static void f32(struct buf *b, float v) { put(b, &v, 4); }
static void f64(struct buf *b, double v) { put(b, &v, 8); }
static void str(struct buf *b, const char *s) { u32(b, (uint32_t)strlen(s)); put(b, s, strlen(s)); }

static void header(struct buf *b, uint32_t seq, int64_t t, const char *frame)
{
	u32(b, seq);
	u32(b, (uint32_t)(t / BAG_NSEC_PER_SEC));
	u32(b, (uint32_t)(t % BAG_NSEC_PER_SEC));
	str(b, frame);
}

static void vec3(struct buf *b, double x, double y, double z) { f64(b, x); f64(b, y); f64(b, z); }
static void quat(struct buf *b, double a) { vec3(b, 0, 0, sin(a / 2)); f64(b, cos(a / 2)); }
static void cov(struct buf *b, int n, double d)
{
	for (int i = 0; i < n * n; i++)
		f64(b, i % (n + 1) == 0 ? d : 0.0);
}

static void imu(struct buf *b, uint32_t k, int64_t t)
{
	double s = k * 0.001;
	header(b, k, t, "imu_link");
	quat(b, s);
	cov(b, 3, 0.01);
	vec3(b, 0.1 * sin(s), 0.1 * cos(s), 0.01);
	cov(b, 3, 0.02);
	vec3(b, sin(s * 7) + (k % 1000 == 0 ? 5.0 : 0.0), 0.2 * cos(s * 3), 9.81 + 0.05 * sin(s * 11));
	cov(b, 3, 0.04);
}

static void tf(struct buf *b, uint32_t k, int64_t t)
{
	u32(b, 1);
	header(b, k, t, "odom");
	str(b, "base_link");
	vec3(b, k * 0.0001, sin(k * 0.0001), 0);
	quat(b, k * 0.00005);
}

static void joints(struct buf *b, uint32_t k, int64_t t)
{
	static const char *const names[] = { "shoulder", "upper_arm", "elbow", "wrist_1", "wrist_2", "wrist_3" };
	header(b, k, t, "");
	u32(b, 6);
	for (int j = 0; j < 6; j++)
		str(b, names[j]);
	for (int a = 0; a < 3; a++) {
		u32(b, 6);
		for (int j = 0; j < 6; j++)
			f64(b, sin(k * 0.002 * (j + 1) + a));
	}
}

static void odom(struct buf *b, uint32_t k, int64_t t)
{
	header(b, k, t, "odom");
	str(b, "base_link");
	vec3(b, k * 0.0004, sin(k * 0.0004), 0);
	quat(b, k * 0.0002);
	cov(b, 6, 0.05);
	vec3(b, 0.5, 0, 0);
	vec3(b, 0, 0, 0.1 * sin(k * 0.01));
	cov(b, 6, 0.01);
}

static void gps(struct buf *b, uint32_t k, int64_t t)
{
	header(b, k, t, "gps");
	u8(b, (uint8_t)(k % 97 == 0 ? 0xff : 0));  /* status: -1 now and then */
	put(b, &(uint16_t){ 1 }, 2);
	f64(b, 48.1 + k * 1e-8);
	f64(b, 11.5 + k * 1e-8);
	f64(b, 520 + sin(k * 0.01));
	cov(b, 3, 2.5);
	u8(b, 2);
}

static void rosout(struct buf *b, uint32_t k, int64_t t, bool needle)
{
	char text[96];
	header(b, k, t, "");
	u8(b, k % 50 == 0 ? 4 : 2);
	str(b, "/controller");
	snprintf(text, sizeof text, needle ? "bagscope-needle found at step %u" : "control loop step %u took %u us",
	         k, 800 + k % 400);
	str(b, text);
	str(b, "controller.cpp");
	str(b, "update");
	u32(b, 120 + k % 7);
	u32(b, 2);
	str(b, "/cmd_vel");
	str(b, "/rosout");
}

static void diag(struct buf *b, uint32_t k, int64_t t)
{
	char v[32];
	header(b, k, t, "");
	u32(b, 2);
	for (int s = 0; s < 2; s++) {
		u8(b, (uint8_t)(k % 40 == 0 && s == 1 ? 1 : 0));
		str(b, s ? "battery" : "motors");
		str(b, s ? "Battery OK" : "Motors running");
		str(b, s ? "bms" : "motor_driver");
		u32(b, 2);
		snprintf(v, sizeof v, "%.2f", 24.0 - k * 1e-5);
		str(b, "voltage");
		str(b, v);
		snprintf(v, sizeof v, "%u", 30 + k % 20);
		str(b, "temperature");
		str(b, v);
	}
}

static void scan(struct buf *b, uint32_t k, int64_t t)
{
	header(b, k, t, "laser");
	f32(b, -3.14159f);
	f32(b, 3.14159f);
	f32(b, 0.0174533f);
	f32(b, 0.0f);
	f32(b, 0.1f);
	f32(b, 0.1f);
	f32(b, 30.0f);
	u32(b, 360);
	for (int i = 0; i < 360; i++)
		f32(b, 2.0f + (float)sin(i * 0.05 + k * 0.01));
	u32(b, 360);
	for (int i = 0; i < 360; i++)
		f32(b, (float)(i % 100));
}

struct topic {
	const char *topic, *type, *file;
	int per60;
	char md5[33];
	char *def;
	uint32_t seq;
};

static struct topic topics[] = {
	{ "/imu/data", "sensor_msgs/Imu", "sensor_msgs__Imu.msg", 20, "", NULL, 0 },
	{ "/tf", "tf2_msgs/TFMessage", "tf2_msgs__TFMessage.msg", 12, "", NULL, 0 },
	{ "/joint_states", "sensor_msgs/JointState", "sensor_msgs__JointState.msg", 12, "", NULL, 0 },
	{ "/odom", "nav_msgs/Odometry", "nav_msgs__Odometry.msg", 6, "", NULL, 0 },
	{ "/gps/fix", "sensor_msgs/NavSatFix", "sensor_msgs__NavSatFix.msg", 4, "", NULL, 0 },
	{ "/rosout", "rosgraph_msgs/Log", "rosgraph_msgs__Log.msg", 3, "", NULL, 0 },
	{ "/diagnostics", "diagnostic_msgs/DiagnosticArray", "diagnostic_msgs__DiagnosticArray.msg", 2, "", NULL, 0 },
	{ "/scan", "sensor_msgs/LaserScan", "sensor_msgs__LaserScan.msg", 1, "", NULL, 0 },
};
#define NTOPICS (sizeof topics / sizeof *topics)

static int load_def(struct topic *tp, const char *dir)
{
	char path[4096];
	FILE *f;
	long n;

	snprintf(path, sizeof path, "%s/%s", dir, tp->file);
	if ((f = fopen(path, "rb")) == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 33) {
		fprintf(stderr, "mkbag: cannot read %s\n", path);
		return -1;
	}
	rewind(f);
	tp->def = calloc(1, (size_t)n + 1);
	if (tp->def == NULL || fread(tp->md5, 1, 32, f) != 32 || fgetc(f) != '\n' ||
	    fread(tp->def, 1, (size_t)n - 33, f) != (size_t)n - 33) {
		fprintf(stderr, "mkbag: %s is not md5 + definition\n", path);
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t n = 4000000;
	const char *dir = "bench/defs", *out = NULL;
	struct bag_writer_opts wo = BAG_WRITER_OPTS_INIT;
	struct bag_conn_spec specs[NTOPICS];
	int slot[60], at = 0;
	bag_writer_t *w;
	static struct buf b;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
			n = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "-d") == 0 && i + 1 < argc)
			dir = argv[++i];
		else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc)
			bag_compression_parse(argv[i + 1], strlen(argv[i + 1]), &wo.compression), i++;
		else
			out = argv[i];
	}
	if (out == NULL) {
		fprintf(stderr, "usage: mkbag [-n MESSAGES] [-c none|bz2|lz4] [-d DEFS_DIR] OUT.bag\n");
		return 2;
	}
	/* spread each topic's share over the 60 slots of a cycle */
	for (size_t k = 0; k < NTOPICS; k++) {
		if (load_def(&topics[k], dir) != 0)
			return 1;
		specs[k] = (struct bag_conn_spec){ topics[k].topic, topics[k].type, topics[k].md5, topics[k].def,
		                                   "/bench_robot", false };
	}
	for (int s = 0; s < 60; s++) {
		size_t best = 0;
		double best_lag = -1;
		for (size_t k = 0; k < NTOPICS; k++) {
			double lag = (s + 1) * topics[k].per60 / 60.0 - topics[k].seq;
			if (lag > best_lag) {
				best_lag = lag;
				best = k;
			}
		}
		slot[s] = (int)best;
		topics[best].seq++;
	}
	for (size_t k = 0; k < NTOPICS; k++)
		topics[k].seq = 0;
	if ((rc = bag_writer_open(&w, out, &wo)) != BAG_OK)
		goto fail;
	uint64_t needle = n - n / 10000;
	for (uint64_t i = 0; i < n && rc == BAG_OK; i++) {
		int64_t t = 1600000000LL * BAG_NSEC_PER_SEC + (int64_t)i * 2500000;
		struct topic *tp = &topics[slot[at]];
		uint32_t k = tp->seq++;
		b.n = 0;
		switch (slot[at]) {
		case 0: imu(&b, k, t); break;
		case 1: tf(&b, k, t); break;
		case 2: joints(&b, k, t); break;
		case 3: odom(&b, k, t); break;
		case 4: gps(&b, k, t); break;
		case 5: rosout(&b, k, t, i >= needle && needle != 0 && (needle = 0, true)); break;
		case 6: diag(&b, k, t); break;
		default: scan(&b, k, t); break;
		}
		rc = bag_writer_write(w, &specs[slot[at]], t, b.p, b.n);
		at = (at + 1) % 60;
	}
	if (rc == BAG_OK)
		rc = bag_writer_close(w);
fail:
	if (rc != BAG_OK)
		fprintf(stderr, "mkbag: %s\n", bag_writer_error(w)->message);
	bag_writer_free(w);
	for (size_t k = 0; k < NTOPICS; k++)
		free(topics[k].def);
	return rc == BAG_OK ? 0 : 1;
}
