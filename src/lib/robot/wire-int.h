/*
 * wire-int.h - reading the ROS serialisation of the robot messages (TF, Log,
 * diagnostics) by hand: a cursor over a message's bytes whose readers fail
 * (return -1, cursor unchanged or past the end) rather than read beyond it.
 */
#ifndef BAGSCOPE_WIRE_INT_H
#define BAGSCOPE_WIRE_INT_H

#include <stdint.h>
#include <string.h>

/* A message being read: d[0..len), next byte at off. */
struct wire {
	const uint8_t *d;
	size_t len, off;
};

static inline int wire_bytes(struct wire *w, void *out, size_t n)
{
	if (w->len - w->off < n)
		return -1;
	memcpy(out, w->d + w->off, n);
	w->off += n;
	return 0;
}

static inline int wire_u32(struct wire *w, uint32_t *v)
{
	return wire_bytes(w, v, 4);
}

/* A string: its bytes at *s (not NUL-terminated), length *n. */
static inline int wire_str(struct wire *w, const char **s, uint32_t *n)
{
	if (wire_u32(w, n) != 0 || w->len - w->off < *n)
		return -1;
	*s = (const char *)w->d + w->off;
	w->off += *n;
	return 0;
}

/* A std_msgs/Header: seq skipped, the stamp in nanoseconds, frame_id. */
static inline int wire_header(struct wire *w, int64_t *stamp_ns, const char **frame, uint32_t *flen)
{
	uint32_t seq, sec, nsec;
	if (wire_u32(w, &seq) || wire_u32(w, &sec) || wire_u32(w, &nsec) || wire_str(w, frame, flen))
		return -1;
	*stamp_ns = (int64_t)sec * 1000000000LL + nsec;
	return 0;
}

#endif
