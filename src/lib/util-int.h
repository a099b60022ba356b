/* util-int.h - small helpers every library module shares. Never installed. */
#ifndef BAGSCOPE_UTIL_INT_H
#define BAGSCOPE_UTIL_INT_H

#include <stddef.h>

/*
 * Make room in the array *p (capacity *cap elements of elem bytes) for need
 * elements, doubling from 16. Returns 0 (BAG_OK), or BAG_ENOMEM with *p and
 * *cap unchanged (also when the size would overflow).
 */
int bag_grow(void **p, size_t *cap, size_t need, size_t elem);

#endif
