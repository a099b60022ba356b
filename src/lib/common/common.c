/*
 * common.c - the library's version, error texts and compression names (fixed
 * tables, no state), and the helpers the modules share (util-int.h): the one
 * error setter, growing an array, reading a caller's option struct.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/common.h>
#include "lib/common/util-int.h"

BAG_API const char *bag_version_string(void)
{
	return BAG_VERSION_STRING;
}

BAG_API unsigned bag_lib_version(void)
{
	return BAG_VERSION_NUMBER;
}

BAG_API const char *bag_strerror(int code)
{
	switch (code) {
#define BAG_X_TEXT(name, value, text) case value: return text;
	BAG_ERRORS(BAG_X_TEXT)
#undef BAG_X_TEXT
	}
	return "unknown error";
}

const struct bag_error bag_error_nomem = {BAG_ENOMEM, BAG_NO_OFFSET, "out of memory"};

int bag_error_vset(struct bag_error *e, int code, const char *path, uint64_t off,
                   const char *fmt, va_list ap)
{
	int n = 0;

	if (e == NULL)
		return code;
	e->code = code;
	e->offset = off;
	e->message[0] = '\0';
	if (path != NULL && off != BAG_NO_OFFSET)
		n = snprintf(e->message, sizeof e->message, "%s: at byte %llu: ", path,
		             (unsigned long long)off);
	else if (path != NULL)
		n = snprintf(e->message, sizeof e->message, "%s: ", path);
	if (n < 0 || (size_t)n >= sizeof e->message)
		return code;
	vsnprintf(e->message + n, sizeof e->message - (size_t)n, fmt, ap);
	return code;
}

int bag_error_set(struct bag_error *e, int code, const char *path, uint64_t off,
                  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bag_error_vset(e, code, path, off, fmt, ap);
	va_end(ap);
	return code;
}

int bag_error_copy(struct bag_error *dst, const struct bag_error *src)
{
	if (dst != NULL && dst != src)
		memcpy(dst, src, sizeof *dst);
	return src->code;
}

static const char *const compression_names[] = {
	[BAG_COMPRESSION_NONE] = "none",
	[BAG_COMPRESSION_BZ2] = "bz2",
	[BAG_COMPRESSION_LZ4] = "lz4",
	[BAG_COMPRESSION_ZSTD] = "zstd",
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

int bag_opts_read(void *dst, size_t dst_size, const void *src)
{
	size_t size;

	memset(dst, 0, dst_size);
	if (src == NULL) {
		memcpy(dst, &dst_size, sizeof dst_size);
		return BAG_OK;
	}
	memcpy(&size, src, sizeof size);
	if (size < sizeof size)
		return BAG_EINVAL;
	for (size_t i = dst_size; i < size; i++)
		if (((const uint8_t *)src)[i] != 0)
			return BAG_EINVAL;
	memcpy(dst, src, size < dst_size ? size : dst_size);
	return BAG_OK;
}

/* tf2's Matrix3x3::getRPY of the quaternion q (x y z w), not normalised first. */
void bag_quat_rpy(const double q[4], double rpy[3])
{
	double d = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], s = 2.0 / d;
	double xs = q[0] * s, ys = q[1] * s, zs = q[2] * s;
	double wx = q[3] * xs, wy = q[3] * ys, wz = q[3] * zs;
	double xx = q[0] * xs, xy = q[0] * ys, xz = q[0] * zs;
	double yy = q[1] * ys, yz = q[1] * zs, zz = q[2] * zs;
	double m20 = xz - wy, m21 = yz + wx, m22 = 1.0 - (xx + yy), m10 = xy + wz, m00 = 1.0 - (yy + zz);

	if (fabs(m20) >= 1) {
		rpy[2] = 0;
		rpy[1] = m20 < 0 ? M_PI / 2.0 : -M_PI / 2.0;
		rpy[0] = atan2(m21, m22);
		return;
	}
	rpy[1] = -asin(m20);
	rpy[0] = atan2(m21 / cos(rpy[1]), m22 / cos(rpy[1]));
	rpy[2] = atan2(m10 / cos(rpy[1]), m00 / cos(rpy[1]));
}
