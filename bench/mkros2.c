/*
 * mkros2.c - the ROS 2 bench file: an MCAP (ros2 profile, CDR) of N
 * messages (default 4,000,000) on five topics with the stock definitions:
 * /imu (sensor_msgs/msg/Imu, 40 %), /tf (tf2_msgs/msg/TFMessage, two
 * transforms, 20 %), /joint_states (sensor_msgs/msg/JointState, six joints,
 * 20 %), /odom (nav_msgs/msg/Odometry, 15 %) and /scan
 * (sensor_msgs/msg/LaserScan, 360 ranges, 5 %), 1 kHz, written through the
 * library's MCAP writer. The CDR is laid out here (a small little-endian
 * writer aligning each primitive to its size after the 4-byte header).
 *   bench/mkros2 [-n N] [-c none|lz4|zstd] OUT.mcap
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bagscope/bagscope.h>

#define SEP "================================================================================\n"
#define HEADER SEP "MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n" \
	SEP "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n"
#define QUAT SEP "MSG: geometry_msgs/Quaternion\nfloat64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n"
#define VEC3 SEP "MSG: geometry_msgs/Vector3\nfloat64 x\nfloat64 y\nfloat64 z\n"
#define POINT SEP "MSG: geometry_msgs/Point\nfloat64 x\nfloat64 y\nfloat64 z\n"

static const char imu_def[] =
	"std_msgs/Header header\ngeometry_msgs/Quaternion orientation\nfloat64[9] orientation_covariance\n"
	"geometry_msgs/Vector3 angular_velocity\nfloat64[9] angular_velocity_covariance\n"
	"geometry_msgs/Vector3 linear_acceleration\nfloat64[9] linear_acceleration_covariance\n" HEADER QUAT VEC3;
static const char tf_def[] =
	"geometry_msgs/TransformStamped[] transforms\n"
	SEP "MSG: geometry_msgs/TransformStamped\nstd_msgs/Header header\nstring child_frame_id\nTransform transform\n"
	HEADER SEP "MSG: geometry_msgs/Transform\nVector3 translation\nQuaternion rotation\n" VEC3 QUAT;
static const char joint_def[] =
	"std_msgs/Header header\nstring[] name\nfloat64[] position\nfloat64[] velocity\nfloat64[] effort\n" HEADER;
static const char odom_def[] =
	"std_msgs/Header header\nstring child_frame_id\ngeometry_msgs/PoseWithCovariance pose\n"
	"geometry_msgs/TwistWithCovariance twist\n" HEADER
	SEP "MSG: geometry_msgs/PoseWithCovariance\nPose pose\nfloat64[36] covariance\n"
	SEP "MSG: geometry_msgs/Pose\nPoint position\nQuaternion orientation\n" POINT QUAT
	SEP "MSG: geometry_msgs/TwistWithCovariance\nTwist twist\nfloat64[36] covariance\n"
	SEP "MSG: geometry_msgs/Twist\nVector3 linear\nVector3 angular\n" VEC3;
static const char scan_def[] =
	"std_msgs/Header header\nfloat32 angle_min\nfloat32 angle_max\nfloat32 angle_increment\n"
	"float32 time_increment\nfloat32 scan_time\nfloat32 range_min\nfloat32 range_max\n"
	"float32[] ranges\nfloat32[] intensities\n" HEADER;

/* A CDR message being laid out. */
struct cdr {
	uint8_t buf[8192];
	size_t n;
};

static void align(struct cdr *c, size_t a)
{
	while ((c->n - 4) % a)
		c->buf[c->n++] = 0;
}

static void u32(struct cdr *c, uint32_t v)
{
	align(c, 4);
	memcpy(c->buf + c->n, &v, 4);
	c->n += 4;
}

static void f32(struct cdr *c, float v)
{
	align(c, 4);
	memcpy(c->buf + c->n, &v, 4);
	c->n += 4;
}

static void f64(struct cdr *c, double v)
{
	align(c, 8);
	memcpy(c->buf + c->n, &v, 8);
	c->n += 8;
}

static void str(struct cdr *c, const char *s)
{
	size_t len = strlen(s);

	u32(c, (uint32_t)len + 1);
	memcpy(c->buf + c->n, s, len + 1);
	c->n += len + 1;
}

static void begin(struct cdr *c)
{
	static const uint8_t hdr[4] = { 0, 1, 0, 0 };

	memcpy(c->buf, hdr, 4);
	c->n = 4;
}

static void header(struct cdr *c, int64_t t, const char *frame)
{
	u32(c, (uint32_t)(t / 1000000000));
	u32(c, (uint32_t)(t % 1000000000));
	str(c, frame);
}

static void vec(struct cdr *c, double x, double y, double z)
{
	f64(c, x);
	f64(c, y);
	f64(c, z);
}

static void quat(struct cdr *c, double a)
{
	vec(c, 0, 0, sin(a / 2));
	f64(c, cos(a / 2));
}

static void imu(struct cdr *c, int64_t t, uint64_t i)
{
	header(c, t, "imu_link");
	quat(c, (double)i * 1e-3);
	for (int k = 0; k < 9; k++)
		f64(c, k % 4 == 0 ? 0.01 : 0);
	vec(c, 0.01 * (double)(i % 100), -0.02, 0.5);
	for (int k = 0; k < 9; k++)
		f64(c, k % 4 == 0 ? 0.02 : 0);
	vec(c, 0.1, 0.2 * (double)(i % 7), 9.81);
	for (int k = 0; k < 9; k++)
		f64(c, k % 4 == 0 ? 0.04 : 0);
}

static void tf(struct cdr *c, int64_t t, uint64_t i)
{
	static const char *const child[2] = { "base_link", "laser" };

	u32(c, 2);
	for (int k = 0; k < 2; k++) {
		header(c, t, k ? "base_link" : "odom");
		str(c, child[k]);
		vec(c, (double)(i % 1000) * 0.01, k * 0.2, 0);
		quat(c, (double)i * 1e-4);
	}
}

static void joints(struct cdr *c, int64_t t, uint64_t i)
{
	static const char *const names[6] = { "shoulder_pan", "shoulder_lift", "elbow", "wrist_1", "wrist_2", "wrist_3" };

	header(c, t, "");
	u32(c, 6);
	for (int k = 0; k < 6; k++)
		str(c, names[k]);
	for (int a = 0; a < 3; a++) {
		u32(c, 6);
		for (int k = 0; k < 6; k++)
			f64(c, sin((double)i * 1e-3 + k) * (a + 1));
	}
}

static void odom(struct cdr *c, int64_t t, uint64_t i)
{
	header(c, t, "odom");
	str(c, "base_link");
	vec(c, (double)i * 1e-4, 0.5, 0);
	quat(c, (double)i * 1e-5);
	for (int k = 0; k < 36; k++)
		f64(c, k % 7 == 0 ? 0.001 : 0);
	vec(c, 0.5, 0, 0);
	vec(c, 0, 0, 0.1);
	for (int k = 0; k < 36; k++)
		f64(c, k % 7 == 0 ? 0.002 : 0);
}

static void scan(struct cdr *c, int64_t t, uint64_t i)
{
	header(c, t, "laser");
	f32(c, -3.14159f);
	f32(c, 3.14159f);
	f32(c, 0.0174533f);
	f32(c, 0);
	f32(c, 0.1f);
	f32(c, 0.1f);
	f32(c, 30);
	u32(c, 360);
	for (int k = 0; k < 360; k++)
		f32(c, 2.0f + (float)((i + (uint64_t)k) % 50) * 0.1f);
	u32(c, 0);
}

static const struct topic {
	const char *name, *type, *def;
	void (*fill)(struct cdr *c, int64_t t, uint64_t i);
	unsigned per100;
} topics[] = {
	{ "/imu", "sensor_msgs/msg/Imu", imu_def, imu, 40 },
	{ "/tf", "tf2_msgs/msg/TFMessage", tf_def, tf, 20 },
	{ "/joint_states", "sensor_msgs/msg/JointState", joint_def, joints, 20 },
	{ "/odom", "nav_msgs/msg/Odometry", odom_def, odom, 15 },
	{ "/scan", "sensor_msgs/msg/LaserScan", scan_def, scan, 5 },
};

int main(int argc, char **argv)
{
	struct bag_mcap_opts o = BAG_MCAP_OPTS_INIT;
	bag_mcap_writer_t *w;
	uint32_t conn[5];
	uint64_t n = 4000000;
	struct cdr c;
	int opt;

	o.encoding = BAG_ENCODING_CDR;
	o.compression = BAG_COMPRESSION_ZSTD;
	while ((opt = getopt(argc, argv, "n:c:")) != -1) {
		if (opt == 'n')
			n = strtoull(optarg, NULL, 10);
		else if (opt == 'c' && bag_compression_parse(optarg, strlen(optarg), &o.compression) == BAG_OK)
			continue;
		else
			return 2;
	}
	if (optind != argc - 1) {
		fputs("usage: mkros2 [-n N] [-c none|lz4|zstd] OUT.mcap\n", stderr);
		return 2;
	}
	if (bag_mcap_writer_open(&w, argv[optind], &o) != BAG_OK)
		goto fail;
	for (size_t k = 0; k < 5; k++) {
		struct bag_kv f[2] = { { "type", topics[k].type, strlen(topics[k].type) },
		                       { "message_definition", topics[k].def, strlen(topics[k].def) } };
		if (bag_mcap_writer_add_conn(w, topics[k].name, f, 2, &conn[k]) != BAG_OK)
			goto fail;
	}
	for (uint64_t i = 0; i < n; i++) {
		unsigned r = (unsigned)(i * 37 % 100), k = 0, acc = topics[0].per100;
		int64_t t = 1700000000000000000LL + (int64_t)i * 1000000;
		while (r >= acc)
			acc += topics[++k].per100;
		begin(&c);
		topics[k].fill(&c, t, i);
		if (bag_mcap_writer_write(w, conn[k], t, c.buf, c.n) != BAG_OK)
			goto fail;
	}
	if (bag_mcap_writer_close(w) != BAG_OK)
		goto fail;
	bag_mcap_writer_free(w);
	return 0;
fail:
	fprintf(stderr, "mkros2: %s\n", bag_mcap_writer_error(w)->message);
	bag_mcap_writer_free(w);
	return 1;
}
