/*
 * layout-int.h - reading messages of a few well-known types (images, point
 * clouds) straight from their bytes: the definition is first checked field
 * by field against the ROS layout, then a bounded cursor walks the data.
 * Shared by image.c and cloud.c. Never installed.
 */
#ifndef BAGSCOPE_LAYOUT_INT_H
#define BAGSCOPE_LAYOUT_INT_H

#include <stdio.h>
#include <string.h>

#include <bagscope/msgdef.h>

/* One expected field: its name, primitive and array shape (sub: a nested layout). */
struct layout_field {
	const char *name;
	enum bag_prim prim;
	enum bag_array array;
	const struct layout_field *sub;   /* BAG_PRIM_MESSAGE: its fields, ended by a NULL name */
};

/* std_msgs/Header, for the layouts' first field. */
extern const struct layout_field layout_header[];

/* Whether type t has exactly the fields of want (ended by a NULL name). */
bool layout_match(const struct bag_msgdef_type *t, const struct layout_field *want);

/* A cursor over message bytes; bad is set by the first read past the end. */
struct layout_rd {
	const uint8_t *p;
	size_t len, at;
	bool bad;
};

static inline const uint8_t *layout_take(struct layout_rd *r, size_t n)
{
	if (r->bad || r->len - r->at < n) {
		r->bad = true;
		return NULL;
	}
	r->at += n;
	return r->p + r->at - n;
}

static inline uint32_t layout_u32(struct layout_rd *r)
{
	const uint8_t *b = layout_take(r, 4);
	return b ? (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24 : 0;
}

static inline uint8_t layout_u8(struct layout_rd *r)
{
	const uint8_t *b = layout_take(r, 1);
	return b ? b[0] : 0;
}

/* A string or uint8[]: its length and bytes. */
static inline const uint8_t *layout_bytes(struct layout_rd *r, uint32_t *n)
{
	*n = layout_u32(r);
	const uint8_t *b = layout_take(r, *n);
	if (b == NULL)
		*n = 0;
	return b;
}

/* Skip a std_msgs/Header. */
static inline void layout_skip_header(struct layout_rd *r)
{
	uint32_t n;
	layout_take(r, 12);
	layout_bytes(r, &n);
}

#endif
