/*
 * bagscope/cloud.h - sensor_msgs/PointCloud2 read for a summary: the field
 * layout, the point count, each field's minimum, maximum and NaN count over
 * every point, and any point's fields as numbers.
 *
 * Points are read point_step bytes apart within a row and row_step bytes
 * apart between rows, multi-byte values in the byte order is_bigendian
 * gives; a field with count > 1 is summarised over all its elements. The
 * definition is checked against the ROS layout and every size against the
 * bytes there are, so the work is bounded by the message: a point_step of 0
 * is refused, and only the first BAG_CLOUD_SUMMARY_FIELDS fields are
 * summarised. Errors are one line in `struct bag_error *err`.
 */
#ifndef BAGSCOPE_CLOUD_H
#define BAGSCOPE_CLOUD_H

#include <bagscope/msgdef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fields summarised (the rest are listed with summarised false). */
#define BAG_CLOUD_SUMMARY_FIELDS 32

/* One PointField and what the points hold in it. */
struct bag_cloud_field {
	char name[64];            /* as given, cut to 63 bytes */
	uint32_t offset;          /* in a point */
	uint8_t datatype;         /* PointField's: 1 INT8 ... 7 FLOAT32, 8 FLOAT64 */
	uint32_t count;           /* elements */
	double min, max;          /* over the non-NaN values (NaN when there are none) */
	uint64_t nan;             /* NaN values */
	bool readable;            /* a known datatype that fits in point_step */
	bool summarised;          /* min, max and nan were computed */
};

struct bag_cloud {
	uint32_t height, width;
	uint32_t point_step, row_step;
	bool is_bigendian, is_dense;
	uint64_t points;          /* height x width */
	size_t nfields;
	struct bag_cloud_field *fields;   /* owned */
	int x, y, z;              /* indices of the fields named x, y, z (-1: none) */
	const uint8_t *data;      /* the point data, borrowed from the message */
	size_t data_len;
};

/* The name of a PointField datatype ("float32"; "?" for an unknown one). */
BAG_API const char *bag_cloud_type_name(uint8_t datatype);

/*
 * Read the PointCloud2 message data[0..len) (def: its definition) and
 * summarise every field over every point. Returns 0; BAG_EUNSUPP (not a
 * PointCloud2 or another layout); BAG_EDECODE (the message shorter than its
 * fields, the data shorter than height x row_step, a row_step shorter than
 * width x point_step, a point_step of 0 with points to read); BAG_ENOMEM.
 * c->data points into data.
 */
BAG_API int bag_cloud_decode(struct bag_cloud *c, const bag_msgdef_t *def, const uint8_t *data, size_t len,
                             struct bag_error *err);

/* Element k of field f of point i (row-major), or NaN when it cannot be read. */
BAG_API double bag_cloud_value(const struct bag_cloud *c, uint64_t i, size_t f, uint32_t k);

/* Free the fields and zero *c; accepts a zeroed cloud. */
BAG_API void bag_cloud_free(struct bag_cloud *c);

#ifdef __cplusplus
}
#endif

#endif
