/*
 * cloud.c - sensor_msgs/PointCloud2 summaries (see cloud.h): the layout is
 * checked (layout-int.h), the PointFields read, then one pass over the
 * points folds every readable field's values into its min, max and NaN
 * count.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/cloud.h>
#include "lib/common/util-int.h"
#include "lib/media/layout-int.h"

static const struct layout_field point_field_layout[] = {
	{ "name", BAG_PRIM_STRING, BAG_ARRAY_NONE, NULL },
	{ "offset", BAG_PRIM_UINT32, BAG_ARRAY_NONE, NULL },
	{ "datatype", BAG_PRIM_UINT8, BAG_ARRAY_NONE, NULL },
	{ "count", BAG_PRIM_UINT32, BAG_ARRAY_NONE, NULL },
	{ NULL, 0, 0, NULL },
};

static const struct layout_field cloud_layout[] = {
	{ "header", BAG_PRIM_MESSAGE, BAG_ARRAY_NONE, layout_header },
	{ "height", BAG_PRIM_UINT32, BAG_ARRAY_NONE, NULL },
	{ "width", BAG_PRIM_UINT32, BAG_ARRAY_NONE, NULL },
	{ "fields", BAG_PRIM_MESSAGE, BAG_ARRAY_VARIABLE, point_field_layout },
	{ "is_bigendian", BAG_PRIM_BOOL, BAG_ARRAY_NONE, NULL },
	{ "point_step", BAG_PRIM_UINT32, BAG_ARRAY_NONE, NULL },
	{ "row_step", BAG_PRIM_UINT32, BAG_ARRAY_NONE, NULL },
	{ "data", BAG_PRIM_UINT8, BAG_ARRAY_VARIABLE, NULL },
	{ "is_dense", BAG_PRIM_BOOL, BAG_ARRAY_NONE, NULL },
	{ NULL, 0, 0, NULL },
};

/* Bytes of each PointField datatype (index 1..8). */
static const uint8_t type_size[9] = { 0, 1, 1, 2, 2, 4, 4, 4, 8 };

BAG_API const char *bag_cloud_type_name(uint8_t t)
{
	static const char *const names[9] = { "?", "int8", "uint8", "int16", "uint16", "int32", "uint32", "float32",
	                                      "float64" };
	return t < 9 ? names[t] : "?";
}

/* One value of datatype t at p, in the cloud's byte order. */
static double read_value(const uint8_t *p, uint8_t t, bool big)
{
	uint8_t b[8];
	size_t n = type_size[t];

	for (size_t i = 0; i < n; i++)
		b[i] = big ? p[n - 1 - i] : p[i];
	switch (t) {
	case 1: return (int8_t)b[0];
	case 2: return b[0];
	case 3: { int16_t v; memcpy(&v, b, 2); return v; }
	case 4: { uint16_t v; memcpy(&v, b, 2); return v; }
	case 5: { int32_t v; memcpy(&v, b, 4); return v; }
	case 6: { uint32_t v; memcpy(&v, b, 4); return v; }
	case 7: { float v; memcpy(&v, b, 4); return v; }
	case 8: { double v; memcpy(&v, b, 8); return v; }
	}
	return NAN;
}

BAG_API double bag_cloud_value(const struct bag_cloud *c, uint64_t i, size_t f, uint32_t k)
{
	if (i >= c->points || f >= c->nfields || !c->fields[f].readable || k >= c->fields[f].count)
		return NAN;
	const struct bag_cloud_field *fd = &c->fields[f];
	uint64_t row = i / c->width, col = i % c->width;
	size_t at = (size_t)(row * c->row_step + col * c->point_step + fd->offset + (uint64_t)k * type_size[fd->datatype]);
	return read_value(c->data + at, fd->datatype, c->is_bigendian);
}

/* Field i's x/y/z role, whether it fits a point, and (the first few) its min, max and NaNs. */
static void summarise_field(struct bag_cloud *c, size_t i)
{
	struct bag_cloud_field *f = &c->fields[i];
	double lo = INFINITY, hi = -INFINITY;

	f->readable = f->datatype >= 1 && f->datatype <= 8 &&
	              (uint64_t)f->offset + (uint64_t)f->count * type_size[f->datatype] <= c->point_step;
	f->min = f->max = NAN;
	if (strcmp(f->name, "x") == 0 && c->x < 0)
		c->x = (int)i;
	if (strcmp(f->name, "y") == 0 && c->y < 0)
		c->y = (int)i;
	if (strcmp(f->name, "z") == 0 && c->z < 0)
		c->z = (int)i;
	if (!f->readable || i >= BAG_CLOUD_SUMMARY_FIELDS)
		return;
	f->summarised = true;
	for (uint64_t p = 0; p < c->points; p++)
		for (uint32_t k = 0; k < f->count; k++) {
			double v = bag_cloud_value(c, p, i, k);
			if (isnan(v)) {
				f->nan++;
				continue;
			}
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
	if (lo <= hi) {
		f->min = lo;
		f->max = hi;
	}
}

/* The sizes agree with each other and with the data: 0 or BAG_EDECODE (said). */
static int check_geometry(const struct bag_cloud *c, struct bag_error *err)
{
	if (c->points > 0 && c->point_step == 0)
		return bag_error_say(err, BAG_EDECODE, "point_step is 0 for %llu points", (unsigned long long)c->points);
	if ((uint64_t)c->width * c->point_step > c->row_step && c->height > 0)
		return bag_error_say(err, BAG_EDECODE, "row_step %u is less than width %u x point_step %u", c->row_step,
		                     c->width, c->point_step);
	if ((uint64_t)c->height * c->row_step > c->data_len)
		return bag_error_say(err, BAG_EDECODE, "data holds %llu byte%s, height %u x row_step %u needs %llu",
		                     (unsigned long long)c->data_len, BAG_S(c->data_len), c->height, c->row_step,
		                     (unsigned long long)c->height * c->row_step);
	return BAG_OK;
}

BAG_API int bag_cloud_decode(struct bag_cloud *c, const bag_msgdef_t *def, const uint8_t *data, size_t len,
                             struct bag_error *err)
{
	const struct bag_msgdef_type *t = bag_msgdef_root(def);
	struct layout_rd r = { data, len, 0, false };
	uint32_t n, data_len;
	int rc;

	memset(c, 0, sizeof *c);
	c->x = c->y = c->z = -1;
	if (t == NULL || strcmp(t->name, "sensor_msgs/PointCloud2") != 0)
		return bag_error_say(err, BAG_EUNSUPP, "%s is not sensor_msgs/PointCloud2", t ? t->name : "the definition");
	if (!layout_match(t, cloud_layout))
		return bag_error_say(err, BAG_EUNSUPP, "this %s definition has other fields than ROS's", t->name);
	layout_skip_header(&r);
	c->height = layout_u32(&r);
	c->width = layout_u32(&r);
	n = layout_u32(&r);
	if (!r.bad && n > (r.len - r.at) / 13)
		r.bad = true;   /* each PointField takes at least 13 bytes */
	if (!r.bad && (c->fields = calloc(n ? n : 1, sizeof *c->fields)) == NULL)
		return bag_error_say(err, BAG_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < n && !r.bad; i++) {
		struct bag_cloud_field *f = &c->fields[i];
		uint32_t name_len;
		const uint8_t *name = layout_bytes(&r, &name_len);
		snprintf(f->name, sizeof f->name, "%.*s", (int)name_len, name ? (const char *)name : "");
		f->offset = layout_u32(&r);
		f->datatype = layout_u8(&r);
		f->count = layout_u32(&r);
		c->nfields = i + 1;
	}
	c->is_bigendian = layout_u8(&r) != 0;
	c->point_step = layout_u32(&r);
	c->row_step = layout_u32(&r);
	c->data = layout_bytes(&r, &data_len);
	c->data_len = data_len;
	c->is_dense = layout_u8(&r) != 0;
	c->points = (uint64_t)c->height * c->width;
	if (r.bad) {
		rc = bag_error_say(err, BAG_EDECODE, "the message ends inside its fields (%zu byte%s)", len, BAG_S(len));
		goto fail;
	}
	if ((rc = check_geometry(c, err)) != BAG_OK)
		goto fail;
	for (size_t i = 0; i < c->nfields; i++)
		summarise_field(c, i);
	return BAG_OK;
fail:
	bag_cloud_free(c);
	c->x = c->y = c->z = -1;
	return rc;
}

BAG_API void bag_cloud_free(struct bag_cloud *c)
{
	free(c->fields);
	memset(c, 0, sizeof *c);
}
