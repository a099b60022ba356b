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

/*
 * The element budget. Decoding one message of n bytes may visit at most
 * BAG_DECODE_BUDGET(n) elements: every value, every nested message and the
 * top message count one each, an array counts its elements. That is
 * BAG_DECODE_BUDGET_BASE + BAG_DECODE_BUDGET_PER_BYTE * n, and never more
 * than BAG_DECODE_BUDGET_MAX. Every value but an empty message takes bytes,
 * so a message fits unless it nests many empty messages (or arrays of
 * them): `Mid[] m`, Mid being `Empty[65536] e`, would make 2^32 elements of
 * 4 bytes. A message over budget does not decode (BAG_EDECODE, "expands to
 * more than N elements"), whoever decodes it: bag_decode(), `check`, the
 * browser, and the code `bagscope gen` writes.
 */
#define BAG_DECODE_BUDGET_BASE 65536u
#define BAG_DECODE_BUDGET_PER_BYTE 16u
#define BAG_DECODE_BUDGET_MAX (UINT64_C(1) << 32)
#define BAG_DECODE_BUDGET(n)                                                                       \
	((uint64_t)(n) < (BAG_DECODE_BUDGET_MAX - BAG_DECODE_BUDGET_BASE) / BAG_DECODE_BUDGET_PER_BYTE \
	         ? BAG_DECODE_BUDGET_BASE + (uint64_t)(n) * BAG_DECODE_BUDGET_PER_BYTE                 \
	         : BAG_DECODE_BUDGET_MAX)

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
			int64_t secs;   /* as stored: uint32 for time, int32 for duration */
			int64_t nsecs;  /* likewise (a duration's -5 is -5, not 4294967291) */
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

/*
 * The constants an integer value stands for, from its message's definition
 * (`uint8 ERROR=2` beside `uint8 level`): those of type (the message that
 * declares field) with field's primitive type and v's value. When some of
 * them begin with the field's name and '_' (case aside: STATUS_NO_FIX for
 * `status`), only those. Integers only (else 0). Writes up to max of them to
 * out in definition order and returns how many there are.
 */
BAG_API size_t bag_msgdef_const_match(const struct bag_msgdef_type *type, const struct bag_msgdef_field *field,
                                      const struct bag_value *v, const struct bag_msgdef_const **out, size_t max);

/*
 * Asked after begin_array: whether to visit the array's elements. false
 * skips elements of a fixed size (numbers, fixed messages) in one step,
 * their bytes checked to be there; others are visited anyway. at: the
 * message's bytes from the first element on, avail of them (the ROS 1
 * layout: little-endian, no padding), so that numbers can be looked at in
 * bulk.
 */
typedef bool (*bag_elements_fn)(void *ud, const struct bag_msgdef_field *field, uint32_t len, const uint8_t *at,
                                size_t avail);

/* bag_decode, asking elements (not NULL) before each array's elements. */
BAG_API int bag_decode_some(const bag_msgdef_t *def, const uint8_t *data, size_t len,
                            const struct bag_visitor *vis, bag_elements_fn elements, void *ud,
                            struct bag_error *err);

#ifdef __cplusplus
}
#endif

#endif
