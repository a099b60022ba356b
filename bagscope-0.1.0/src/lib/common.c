/*
 * common.c - error texts and compression names. Both are fixed tables, so
 * there is no state here.
 */
#include <string.h>

#include <bagscope/common.h>

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
