/* util-int.h - small helpers every library module shares. Never installed. */
#ifndef BAGSCOPE_UTIL_INT_H
#define BAGSCOPE_UTIL_INT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <bagscope/common.h>

/*
 * The one error setter. Fills e (nothing when e is NULL): code, offset off
 * (BAG_NO_OFFSET if none) and the message printf(fmt, ...), prefixed with
 * "PATH: " when path is not NULL and then "at byte OFF: " when off is not
 * BAG_NO_OFFSET. Truncates to the message buffer. Returns code, so a failure
 * reads `return bag_error_set(&h->err, BAG_EIO, h->path, off, "...")`.
 * Every module's own helper (bag_fail, bag_warn, w_fail ...) is a wrapper.
 */
int bag_error_set(struct bag_error *e, int code, const char *path, uint64_t off,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
int bag_error_vset(struct bag_error *e, int code, const char *path, uint64_t off,
                   const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

/* bag_error_set() without a path or an offset, the common case. */
#define bag_error_say(e, code, ...) bag_error_set((e), (code), NULL, BAG_NO_OFFSET, __VA_ARGS__)

/* Back to "no error" (code 0, no offset, ""). e may be NULL. */
static inline void bag_error_clear(struct bag_error *e)
{
	if (e != NULL) {
		e->code = BAG_OK;
		e->offset = BAG_NO_OFFSET;
		e->message[0] = '\0';
	}
}

/* Copy src into dst (dst may be NULL); returns src's code. */
int bag_error_copy(struct bag_error *dst, const struct bag_error *src);

/* What an accessor returns for a NULL handle: BAG_ENOMEM, "out of memory". */
extern const struct bag_error bag_error_nomem;

/*
 * Make room in the array *p (capacity *cap elements of elem bytes) for need
 * elements, doubling from 16. Returns 0 (BAG_OK), or BAG_ENOMEM with *p and
 * *cap unchanged (also when the size would overflow).
 */
int bag_grow(void **p, size_t *cap, size_t need, size_t elem);

/*
 * Read a caller's option struct src (NULL = defaults), whose first member is
 * its size_t size, into the library's own dst (dst_size bytes): fields an
 * older caller's struct lacks are zero (their defaults); the fields of a newer
 * one that this library does not know must be zero. Returns 0, or BAG_EINVAL
 * (size smaller than the size member, or unknown non-zero fields).
 */
int bag_opts_read(void *dst, size_t dst_size, const void *src);

/* qsort for arrays that may be empty (and NULL): nothing to do below two elements. */
static inline void bag_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/*
 * Roll, pitch and yaw (rpy[0..2], radians) of the rotation quaternion q
 * (x y z w), as tf2's Matrix3x3::getRPY gives them (q need not be unit).
 */
void bag_quat_rpy(const double q[4], double rpy[3]);

/* CRC-32 (ISO-HDLC, as zlib and MCAP; crc32.c): start with 0, feed pieces in order. */
uint32_t bag_crc32(uint32_t crc, const void *p, size_t n);

#endif
