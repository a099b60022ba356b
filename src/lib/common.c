/*
 * common.c - error texts and compression names (fixed tables, no state), and
 * the array-growing helper the modules share (util-int.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/common.h>
#include "lib/util-int.h"

BAG_API const char *bag_strerror(int code)
{
	switch (code) {
#define BAG_X_TEXT(name, value, text) case value: return text;
	BAG_ERRORS(BAG_X_TEXT)
#undef BAG_X_TEXT
	}
	return "unknown error";
}

static const char *const compression_names[] = {
	[BAG_COMPRESSION_NONE] = "none",
	[BAG_COMPRESSION_BZ2] = "bz2",
	[BAG_COMPRESSION_LZ4] = "lz4",
};

BAG_API const char *bag_compression_name(enum bag_compression c)
{
	if ((unsigned)c < sizeof compression_names / sizeof *compression_names)
		return compression_names[c];
	return "unknown";
}

BAG_API int bag_compression_parse(const char *name, size_t len,
                                  enum bag_compression *out)
{
	for (size_t i = 0; i < sizeof compression_names / sizeof *compression_names; i++) {
		if (strlen(compression_names[i]) == len && memcmp(compression_names[i], name, len) == 0) {
			*out = (enum bag_compression)i;
			return BAG_OK;
		}
	}
	return BAG_EUNSUPP;
}

int bag_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return BAG_OK;
	while (n < need && n <= SIZE_MAX / 2)
		n *= 2;
	if (n < need || n > SIZE_MAX / elem || (q = realloc(*p, n * elem)) == NULL)
		return BAG_ENOMEM;
	*p = q;
	*cap = n;
	return BAG_OK;
}
