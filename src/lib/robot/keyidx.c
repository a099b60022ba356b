/* keyidx.c - the robot modules' key index (see keyidx-int.h): FNV-1a hash, linear probing. */
#include <stdlib.h>
#include <string.h>

#include <bagscope/common.h>
#include "lib/robot/keyidx-int.h"

static uint64_t fnv(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

size_t keyidx_slot(const struct keyidx *x, const char *key, size_t len, keyidx_key_fn kf, const void *ctx)
{
	size_t mask = x->cap - 1, i = (size_t)fnv(key, len) & mask;
	for (; x->slot[i] != 0; i = (i + 1) & mask) {
		size_t klen;
		const char *k = kf(ctx, x->slot[i] - 1, &klen);
		if (klen == len && memcmp(k, key, len) == 0)
			break;
	}
	return i;
}

int keyidx_reserve(struct keyidx *x, size_t n, keyidx_key_fn kf, const void *ctx)
{
	if (2 * n <= x->cap)
		return 0;
	if (n >= UINT32_MAX - 1)
		return BAG_ENOMEM;
	size_t cap = x->cap ? x->cap * 2 : 64;
	struct keyidx y = { calloc(cap, sizeof *y.slot), cap };
	if (y.slot == NULL)
		return BAG_ENOMEM;
	for (uint32_t k = 0; k + 1 < n; k++) {
		size_t len;
		const char *key = kf(ctx, k, &len);
		y.slot[keyidx_slot(&y, key, len, kf, ctx)] = k + 1;
	}
	free(x->slot);
	*x = y;
	return 0;
}
