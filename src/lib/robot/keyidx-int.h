/*
 * keyidx-int.h - an open-addressing index from byte-string keys to the
 * elements 0..n-1 of a caller's array (the TF buffer's frames by name, the
 * diagnostics' statuses by name and hardware id). The index holds only
 * element numbers; the caller's array holds the keys, read back through a
 * callback. Invariant: cap is 0 or a power of two at least twice the
 * elements, so a probe always ends at an empty slot.
 */
#ifndef BAGSCOPE_KEYIDX_INT_H
#define BAGSCOPE_KEYIDX_INT_H

#include <stddef.h>
#include <stdint.h>

struct keyidx {
	uint32_t *slot;               /* element + 1; 0: empty */
	size_t cap;
};

/* The key of element i of ctx's array: its bytes, length in *len. */
typedef const char *(*keyidx_key_fn)(const void *ctx, uint32_t i, size_t *len);

/* The slot holding key (slot[s] != 0: element slot[s] - 1) or where it would go; cap > 0. */
size_t keyidx_slot(const struct keyidx *x, const char *key, size_t len, keyidx_key_fn kf, const void *ctx);

/*
 * Room for element n - 1 (elements 0..n-2 are indexed): grows and rehashes
 * when needed. 0, or BAG_ENOMEM (also past UINT32_MAX - 1 elements).
 */
int keyidx_reserve(struct keyidx *x, size_t n, keyidx_key_fn kf, const void *ctx);

#endif
