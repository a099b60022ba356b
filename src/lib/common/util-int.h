/* util-int.h - small helpers every library module shares. Never installed. */
#ifndef BAGSCOPE_UTIL_INT_H
#define BAGSCOPE_UTIL_INT_H

#include <stddef.h>
#include <stdlib.h>

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

#endif
