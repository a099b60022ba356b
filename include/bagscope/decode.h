/*
 * bagscope/decode.h - decoding message bytes by their definition.
 *
 * The decoder walks a message (ROS serialization: little-endian; strings
 * and variable arrays preceded by a uint32 length; fixed arrays not; nested
 * messages inline) and reports what it finds to a visitor. Every length is
 * checked against the bytes that remain before it is used, and nothing is
 * allocated: a bad message yields an error naming the field path and byte
 * offset.
 */
#ifndef BAGSCOPE_DECODE_H
#define BAGSCOPE_DECODE_H

#include <bagscope/msgdef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One primitive value. */
struct bag_value {
	enum bag_prim prim;
	union {
		bool b;
		int64_t i;              /* int8..int64 */
		uint64_t u;             /* uint8..uint64 */
		double f;               /* float32 (widened) and float64 */
		struct {
			const char *p;  /* bytes as stored, not NUL-terminated, maybe not UTF-8 */
			uint32_t len;
		} s;
		struct {
			int64_t secs;   /* uint32 for time, int32 for duration */
			uint32_t nsecs;
		} t;
	} v;
};

/*
 * The visitor. field is the field being reported (NULL for the top
 * message); index is the element's position inside an array, or -1. Any
 * callback may be NULL. A message nests begin_message/end_message; an array
 * nests begin_array/end_array around its elements.
 */
struct bag_visitor {
	void (*begin_message)(void *ud, const struct bag_msgdef_field *field, int64_t index,
	                      const struct bag_msgdef_type *type);
	void (*end_message)(void *ud, const struct bag_msgdef_field *field, int64_t index);
	void (*begin_array)(void *ud, const struct bag_msgdef_field *field, uint32_t len);
	void (*end_array)(void *ud, const struct bag_msgdef_field *field, uint32_t len);
	void (*value)(void *ud, const struct bag_msgdef_field *field, int64_t index,
	              const struct bag_value *value);
};

/*
 * Decode data[0..len) as def's top type, calling vis with ud. Returns 0, or
 * BAG_EDECODE with *err (may be NULL; common.h) filled: offset the byte in
 * data, message such as
 * "markers[3].pose.position.x at byte 120: needs 8 bytes, 2 remain".
 * On success *err is cleared (code 0, "").
 * Bytes left over after the message are not an error; *used (if not NULL)
 * tells how many were decoded.
 */
BAG_API int bag_decode(const bag_msgdef_t *def, const uint8_t *data, size_t len,
                       const struct bag_visitor *vis, void *ud, size_t *used,
                       struct bag_error *err);

#ifdef __cplusplus
}
#endif

#endif
