/*
 * image.c - camera images (see image.h).
 *
 * Decoding checks the definition against the ROS layout (layout-int.h),
 * walks the message with a bounded cursor, then turns the pixel data into
 * one of the few pixel kinds of image.h: raw encodings row by row through
 * `step` (byte order from is_bigendian; bgr reordered, bayer demosaiced
 * bilinearly, yuv converted), compressed ones through libturbojpeg and
 * libspng. Nothing is trusted: sizes are checked in 64 bits against the
 * bytes there are and against BAG_IMAGE_MAX_PIXELS before any allocation.
 *
 * Display (bag_image_to_rgb) converts to 8-bit RGB at full size once, then
 * box-filters that down to the requested size with running row sums;
 * 16-bit and float images are stretched over their finite range first.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <spng.h>
#include <turbojpeg.h>

#include <bagscope/image.h>
#include "lib/common/util-int.h"
#include "lib/media/layout-int.h"

const struct layout_field layout_header[] = {
	{ "seq", BAG_PRIM_UINT32, BAG_ARRAY_NONE, NULL },
	{ "stamp", BAG_PRIM_TIME, BAG_ARRAY_NONE, NULL },
	{ "frame_id", BAG_PRIM_STRING, BAG_ARRAY_NONE, NULL },
	{ NULL, 0, 0, NULL },
};

static const struct layout_field image_layout[] = {
	{ "header", BAG_PRIM_MESSAGE, BAG_ARRAY_NONE, layout_header },
	{ "height", BAG_PRIM_UINT32, BAG_ARRAY_NONE, NULL },
	{ "width", BAG_PRIM_UINT32, BAG_ARRAY_NONE, NULL },
	{ "encoding", BAG_PRIM_STRING, BAG_ARRAY_NONE, NULL },
	{ "is_bigendian", BAG_PRIM_UINT8, BAG_ARRAY_NONE, NULL },
	{ "step", BAG_PRIM_UINT32, BAG_ARRAY_NONE, NULL },
	{ "data", BAG_PRIM_UINT8, BAG_ARRAY_VARIABLE, NULL },
	{ NULL, 0, 0, NULL },
};

static const struct layout_field compressed_layout[] = {
	{ "header", BAG_PRIM_MESSAGE, BAG_ARRAY_NONE, layout_header },
	{ "format", BAG_PRIM_STRING, BAG_ARRAY_NONE, NULL },
	{ "data", BAG_PRIM_UINT8, BAG_ARRAY_VARIABLE, NULL },
	{ NULL, 0, 0, NULL },
};

bool layout_match(const struct bag_msgdef_type *t, const struct layout_field *want)
{
	size_t n = 0;

	for (; want[n].name != NULL; n++) {
		if (n >= t->nfields)
			return false;
		const struct bag_msgdef_field *f = &t->fields[n];
		if (strcmp(f->name, want[n].name) != 0 || f->prim != want[n].prim ||
		    f->array != want[n].array)
			return false;
		if (f->prim == BAG_PRIM_MESSAGE && (f->msg == NULL || !layout_match(f->msg, want[n].sub)))
			return false;
	}
	return n == t->nfields;
}

/* What a raw encoding is. */
enum kind { K_GRAY8, K_GRAY16, K_RGB8, K_BGR8, K_RGBA8, K_BGRA8, K_FLOAT, K_BAYER, K_UYVY, K_YUYV };

static const struct encoding {
	const char *name;
	enum kind kind;
	unsigned bytes;           /* per pixel */
	const char *bayer;        /* the 2x2 pattern, row by row */
} encodings[] = {
	{ "rgb8", K_RGB8, 3, NULL },
	{ "bgr8", K_BGR8, 3, NULL },
	{ "rgba8", K_RGBA8, 4, NULL },
	{ "bgra8", K_BGRA8, 4, NULL },
	{ "mono8", K_GRAY8, 1, NULL },
	{ "8UC1", K_GRAY8, 1, NULL },
	{ "8UC3", K_BGR8, 3, NULL },
	{ "8UC4", K_BGRA8, 4, NULL },
	{ "mono16", K_GRAY16, 2, NULL },
	{ "16UC1", K_GRAY16, 2, NULL },
	{ "32FC1", K_FLOAT, 4, NULL },
	{ "bayer_rggb8", K_BAYER, 1, "rggb" },
	{ "bayer_bggr8", K_BAYER, 1, "bggr" },
	{ "bayer_gbrg8", K_BAYER, 1, "gbrg" },
	{ "bayer_grbg8", K_BAYER, 1, "grbg" },
	{ "yuv422", K_UYVY, 2, NULL },
	{ "uyvy", K_UYVY, 2, NULL },
	{ "yuv422_yuy2", K_YUYV, 2, NULL },
	{ "yuyv", K_YUYV, 2, NULL },
};

BAG_API bool bag_image_type(const char *type)
{
	return strcmp(type, "sensor_msgs/Image") == 0 || strcmp(type, "sensor_msgs/CompressedImage") == 0;
}

static size_t pixel_bytes(enum bag_pixel p)
{
	static const size_t b[] = { [BAG_PIXEL_GRAY8] = 1, [BAG_PIXEL_GRAY16] = 2, [BAG_PIXEL_RGB8] = 3,
	                            [BAG_PIXEL_RGBA8] = 4, [BAG_PIXEL_FLOAT32] = 4 };
	return b[p];
}

/* Allocate img's pixels for its size and kind. */
static int alloc_pixels(struct bag_image *img, struct bag_error *err)
{
	if (img->width == 0 || img->height == 0 || (uint64_t)img->width * img->height > BAG_IMAGE_MAX_PIXELS)
		return bag_error_say(err, BAG_EDECODE, "an image of %ux%u pixels is %s", img->width, img->height,
		            img->width == 0 || img->height == 0 ? "empty" : "too large to show");
	img->pixels = malloc((size_t)img->width * img->height * pixel_bytes(img->pixel));
	return img->pixels ? BAG_OK : bag_error_say(err, BAG_ENOMEM, "out of memory");
}

static uint8_t clamp8(int v)
{
	return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* BT.601 YUV (studio swing not assumed: full range, as cv_bridge's COLOR_YUV2RGB) to RGB. */
static void yuv_rgb(int y, int u, int v, uint8_t *o)
{
	u -= 128;
	v -= 128;
	o[0] = clamp8(y + ((359 * v) >> 8));
	o[1] = clamp8(y - ((88 * u + 183 * v) >> 8));
	o[2] = clamp8(y + ((454 * u) >> 8));
}

/*
 * Bilinear demosaic: a site keeps its own sample for its own colour; each
 * other channel is the mean of that colour's sites in the 3x3 neighbourhood
 * (the four crosswise or diagonal ones, or the two beside it).
 */
static void demosaic(struct bag_image *img, const uint8_t *src, size_t step, const char *pattern)
{
	uint32_t w = img->width, h = img->height;
	int chan[4];

	for (int i = 0; i < 4; i++)
		chan[i] = pattern[i] == 'r' ? 0 : pattern[i] == 'g' ? 1 : 2;
	for (uint32_t y = 0; y < h; y++) {
		uint8_t *o = img->pixels + (size_t)y * w * 3;
		for (uint32_t x = 0; x < w; x++, o += 3) {
			unsigned sum[3] = { 0, 0, 0 }, cnt[3] = { 0, 0, 0 };
			uint32_t y0 = y ? y - 1 : 0, y1 = y + 1 < h ? y + 1 : y;
			uint32_t x0 = x ? x - 1 : 0, x1 = x + 1 < w ? x + 1 : x;
			for (uint32_t yy = y0; yy <= y1; yy++)
				for (uint32_t xx = x0; xx <= x1; xx++) {
					int c = chan[(yy & 1) * 2 + (xx & 1)];
					sum[c] += src[yy * step + xx];
					cnt[c]++;
				}
			for (int c = 0; c < 3; c++)
				o[c] = (uint8_t)(cnt[c] ? (sum[c] + cnt[c] / 2) / cnt[c] : 0);
			o[chan[(y & 1) * 2 + (x & 1)]] = src[y * step + x];
		}
	}
}

/* The pixel data of a raw Image, row by row through step. */
static void convert_raw(struct bag_image *img, const struct encoding *e, const uint8_t *src, size_t step,
                        bool big)
{
	uint32_t w = img->width, h = img->height;

	if (e->kind == K_BAYER) {
		demosaic(img, src, step, e->bayer);
		return;
	}
	for (uint32_t y = 0; y < h; y++) {
		const uint8_t *s = src + (size_t)y * step;
		uint8_t *o = img->pixels + (size_t)y * w * pixel_bytes(img->pixel);
		switch (e->kind) {
		case K_GRAY8:
		case K_RGB8:
		case K_RGBA8:
			memcpy(o, s, (size_t)w * e->bytes);
			break;
		case K_BGR8:
		case K_BGRA8:
			for (uint32_t x = 0; x < w; x++, s += e->bytes, o += e->bytes) {
				o[0] = s[2];
				o[1] = s[1];
				o[2] = s[0];
				if (e->bytes == 4)
					o[3] = s[3];
			}
			break;
		case K_GRAY16:
			for (uint32_t x = 0; x < w; x++, s += 2) {
				uint16_t v = big ? (uint16_t)(s[0] << 8 | s[1]) : (uint16_t)(s[1] << 8 | s[0]);
				memcpy(o + 2 * x, &v, 2);
			}
			break;
		case K_FLOAT:
			for (uint32_t x = 0; x < w; x++, s += 4) {
				uint32_t u = big ? (uint32_t)s[0] << 24 | (uint32_t)s[1] << 16 | (uint32_t)s[2] << 8 | s[3]
				                 : (uint32_t)s[3] << 24 | (uint32_t)s[2] << 16 | (uint32_t)s[1] << 8 | s[0];
				memcpy(o + 4 * x, &u, 4);
			}
			break;
		case K_UYVY:
		case K_YUYV:
			for (uint32_t x = 0; x < w; x += 2, s += 4, o += 6) {
				int u = e->kind == K_UYVY ? s[0] : s[1], v = e->kind == K_UYVY ? s[2] : s[3];
				int y0 = e->kind == K_UYVY ? s[1] : s[0], y1 = e->kind == K_UYVY ? s[3] : s[2];
				yuv_rgb(y0, u, v, o);
				yuv_rgb(y1, u, v, o + 3);
			}
			break;
		case K_BAYER:
			break;
		}
	}
}

static int decode_raw(struct bag_image *img, struct layout_rd *r, struct bag_error *err)
{
	uint32_t enc_len, data_len;
	const struct encoding *e = NULL;

	img->height = layout_u32(r);
	img->width = layout_u32(r);
	const uint8_t *enc = layout_bytes(r, &enc_len);
	bool big = layout_u8(r) != 0;
	uint32_t step = layout_u32(r);
	const uint8_t *data = layout_bytes(r, &data_len);
	if (r->bad)
		return bag_error_say(err, BAG_EDECODE, "the message ends inside its fields (%zu byte%s)", r->len, BAG_S(r->len));
	snprintf(img->encoding, sizeof img->encoding, "%.*s", (int)enc_len, (const char *)enc);
	for (size_t i = 0; i < sizeof encodings / sizeof *encodings; i++)
		if (strlen(encodings[i].name) == enc_len && memcmp(encodings[i].name, enc, enc_len) == 0)
			e = &encodings[i];
	if (e == NULL)
		return bag_error_say(err, BAG_EUNSUPP, "unknown image encoding '%s'", img->encoding);
	if ((uint64_t)img->width * e->bytes > step)
		return bag_error_say(err, BAG_EDECODE, "step %u is less than width %u x %u byte%s of %s", step,
		            img->width, e->bytes, BAG_S(e->bytes), e->name);
	if ((uint64_t)img->height * step > data_len)
		return bag_error_say(err, BAG_EDECODE, "data holds %u byte%s, height %u x step %u needs %llu",
		                     data_len, BAG_S(data_len),
		            img->height, step, (unsigned long long)img->height * step);
	if ((e->kind == K_UYVY || e->kind == K_YUYV) && img->width % 2 != 0)
		return bag_error_say(err, BAG_EDECODE, "%s needs an even width, not %u", e->name, img->width);
	img->pixel = e->kind == K_GRAY8 ? BAG_PIXEL_GRAY8 : e->kind == K_GRAY16 ? BAG_PIXEL_GRAY16
	           : e->kind == K_RGBA8 || e->kind == K_BGRA8 ? BAG_PIXEL_RGBA8
	           : e->kind == K_FLOAT ? BAG_PIXEL_FLOAT32 : BAG_PIXEL_RGB8;
	int rc = alloc_pixels(img, err);
	if (rc == BAG_OK)
		convert_raw(img, e, data, step, big);
	return rc;
}

static int decode_jpeg(struct bag_image *img, const uint8_t *data, size_t len, struct bag_error *err)
{
	tjhandle tj = tjInitDecompress();
	int w = 0, h = 0, sub, space, rc;

	if (tj == NULL)
		return bag_error_say(err, BAG_ENOMEM, "out of memory");
	if (tjDecompressHeader3(tj, data, (unsigned long)len, &w, &h, &sub, &space) != 0) {
		rc = bag_error_say(err, BAG_EDECODE, "corrupt jpeg: %s", tjGetErrorStr2(tj));
		goto done;
	}
	/* a corrupt stream can pass the header read without a frame header (SOF): no size */
	if (w <= 0 || h <= 0) {
		rc = bag_error_say(err, BAG_EDECODE, "corrupt jpeg: no frame header (SOF) gives its size");
		goto done;
	}
	img->width = (uint32_t)w;
	img->height = (uint32_t)h;
	img->pixel = BAG_PIXEL_RGB8;
	if ((rc = alloc_pixels(img, err)) != BAG_OK)
		goto done;
	if (tjDecompress2(tj, data, (unsigned long)len, img->pixels, w, 0, h, TJPF_RGB, TJFLAG_STOPONWARNING) != 0)
		rc = bag_error_say(err, BAG_EDECODE, "corrupt jpeg: %s", tjGetErrorStr2(tj));
done:
	tjDestroy(tj);
	return rc;
}

static int decode_png(struct bag_image *img, const uint8_t *data, size_t len, struct bag_error *err)
{
	spng_ctx *ctx = spng_ctx_new(0);
	struct spng_ihdr ihdr;
	size_t size;
	int fmt, rc, e;

	if (ctx == NULL)
		return bag_error_say(err, BAG_ENOMEM, "out of memory");
	spng_set_crc_action(ctx, SPNG_CRC_ERROR, SPNG_CRC_ERROR);
	if ((e = spng_set_png_buffer(ctx, data, len)) != 0 || (e = spng_get_ihdr(ctx, &ihdr)) != 0) {
		rc = bag_error_say(err, BAG_EDECODE, "corrupt png: %s", spng_strerror(e));
		goto done;
	}
	img->width = ihdr.width;
	img->height = ihdr.height;
	if (ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE && ihdr.bit_depth == 16) {
		img->pixel = BAG_PIXEL_GRAY16;
		fmt = SPNG_FMT_PNG;   /* the file's layout, samples in host order */
	} else if (ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE) {
		img->pixel = BAG_PIXEL_GRAY8;
		fmt = SPNG_FMT_G8;
	} else if (ihdr.color_type == SPNG_COLOR_TYPE_TRUECOLOR_ALPHA ||
	           ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE_ALPHA) {
		img->pixel = BAG_PIXEL_RGBA8;
		fmt = SPNG_FMT_RGBA8;
	} else {
		img->pixel = BAG_PIXEL_RGB8;
		fmt = SPNG_FMT_RGB8;
	}
	if ((rc = alloc_pixels(img, err)) != BAG_OK)
		goto done;
	if ((e = spng_decoded_image_size(ctx, fmt, &size)) != 0 ||
	    size != (size_t)img->width * img->height * pixel_bytes(img->pixel) ||
	    (e = spng_decode_image(ctx, img->pixels, size, fmt, 0)) != 0) {
		rc = bag_error_say(err, BAG_EDECODE, "corrupt png: %s", e ? spng_strerror(e) : "unexpected size");
		goto done;
	}
done:
	spng_ctx_free(ctx);
	return rc;
}

static const uint8_t png_sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

static int decode_compressed(struct bag_image *img, struct layout_rd *r, struct bag_error *err)
{
	uint32_t fmt_len, len;
	const uint8_t *fmt = layout_bytes(r, &fmt_len);
	const uint8_t *data = layout_bytes(r, &len);

	if (r->bad)
		return bag_error_say(err, BAG_EDECODE, "the message ends inside its fields (%zu byte%s)", r->len, BAG_S(r->len));
	snprintf(img->encoding, sizeof img->encoding, "%.*s", (int)fmt_len, (const char *)fmt);
	if (len >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF) {
		snprintf(img->encoding, sizeof img->encoding, "jpeg");
		return decode_jpeg(img, data, len, err);
	}
	/* compressedDepth: a 12-byte ConfigHeader before the png */
	for (size_t off = 0; off <= 12; off += 12) {
		if (len >= off + 8 && memcmp(data + off, png_sig, 8) == 0) {
			snprintf(img->encoding, sizeof img->encoding, "png");
			img->png = data + off;
			img->png_len = len - off;
			return decode_png(img, data + off, len - off, err);
		}
	}
	if (strstr(img->encoding, "jpeg") != NULL || strstr(img->encoding, "png") != NULL)
		return bag_error_say(err, BAG_EDECODE, "corrupt %s: its data does not start with a %s signature",
		            strstr(img->encoding, "png") ? "png" : "jpeg", strstr(img->encoding, "png") ? "png" : "jpeg");
	return bag_error_say(err, BAG_EUNSUPP, "unknown compressed format '%s' (jpeg and png are read)", img->encoding);
}

BAG_API int bag_image_decode(struct bag_image *img, const bag_msgdef_t *def, const uint8_t *data, size_t len,
                             struct bag_error *err)
{
	const struct bag_msgdef_type *t = bag_msgdef_root(def);
	struct layout_rd r = { data, len, 0, false };
	int rc;

	memset(img, 0, sizeof *img);
	if (t == NULL || !bag_image_type(t->name))
		return bag_error_say(err, BAG_EUNSUPP, "%s is not an image type", t ? t->name : "the definition");
	bool raw = strcmp(t->name, "sensor_msgs/Image") == 0;
	if (!layout_match(t, raw ? image_layout : compressed_layout))
		return bag_error_say(err, BAG_EUNSUPP, "this %s definition has other fields than ROS's", t->name);
	layout_skip_header(&r);
	rc = raw ? decode_raw(img, &r, err) : decode_compressed(img, &r, err);
	if (rc != BAG_OK) {
		free(img->pixels);
		memset(img, 0, sizeof *img);
	}
	return rc;
}

BAG_API void bag_image_free(struct bag_image *img)
{
	free(img->pixels);
	memset(img, 0, sizeof *img);
}

/* The finite extremes of a 16-bit or float image (lo > hi when none). */
static void finite_range(const struct bag_image *img, double *lo, double *hi)
{
	size_t n = (size_t)img->width * img->height;

	*lo = INFINITY;
	*hi = -INFINITY;
	if (img->pixel == BAG_PIXEL_GRAY16) {
		const uint8_t *p = img->pixels;
		uint16_t a = UINT16_MAX, b = 0, v;
		for (size_t i = 0; i < n; i++) {
			memcpy(&v, p + 2 * i, 2);
			a = v < a ? v : a;
			b = v > b ? v : b;
		}
		*lo = a;
		*hi = b;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		float v;
		memcpy(&v, img->pixels + 4 * i, 4);
		if (isfinite(v)) {
			*lo = v < *lo ? v : *lo;
			*hi = v > *hi ? v : *hi;
		}
	}
}

/* A 16-bit or float sample stretched over [lo, hi] to 0..max (NaN 0, +inf max). */
static unsigned stretch(double v, double lo, double hi, unsigned max)
{
	if (isnan(v) || v <= lo)
		return 0;
	if (v >= hi)
		return max;
	return (unsigned)((v - lo) / (hi - lo) * max + 0.5);
}

static double sample_at(const struct bag_image *img, size_t i)
{
	if (img->pixel == BAG_PIXEL_GRAY16) {
		uint16_t v;
		memcpy(&v, img->pixels + 2 * i, 2);
		return v;
	}
	float f;
	memcpy(&f, img->pixels + 4 * i, 4);
	return f;
}

/* Full-size RGB8 (for RGB8 images the pixels themselves: *own false). */
static const uint8_t *full_rgb(const struct bag_image *img, bool *own)
{
	size_t n = (size_t)img->width * img->height;
	uint8_t *o;
	double lo, hi;

	*own = img->pixel != BAG_PIXEL_RGB8;
	if (!*own)
		return img->pixels;
	if ((o = malloc(n * 3)) == NULL)
		return NULL;
	switch (img->pixel) {
	case BAG_PIXEL_GRAY8:
		for (size_t i = 0; i < n; i++)
			o[3 * i] = o[3 * i + 1] = o[3 * i + 2] = img->pixels[i];
		break;
	case BAG_PIXEL_RGBA8:
		for (size_t i = 0; i < n; i++)
			memcpy(o + 3 * i, img->pixels + 4 * i, 3);
		break;
	default:
		finite_range(img, &lo, &hi);
		for (size_t i = 0; i < n; i++)
			o[3 * i] = o[3 * i + 1] = o[3 * i + 2] = (uint8_t)stretch(sample_at(img, i), lo, hi, 255);
		break;
	}
	return o;
}

BAG_API int bag_image_to_rgb(const struct bag_image *img, uint32_t w, uint32_t h, uint8_t *rgb)
{
	bool own;
	const uint8_t *src;
	uint32_t sw = img->width, sh = img->height;
	uint32_t *acc = NULL;

	if (w == 0 || h == 0 || img->pixels == NULL)
		return BAG_EINVAL;
	if ((src = full_rgb(img, &own)) == NULL)
		return BAG_ENOMEM;
	if ((acc = malloc((size_t)w * 4 * sizeof *acc)) == NULL) {
		if (own)
			free((void *)src);
		return BAG_ENOMEM;
	}
	for (uint32_t y = 0; y < h; y++) {
		/* source rows [y0, y1) and, per output column, source columns [x0, x1): at least one */
		uint32_t y0 = (uint32_t)((uint64_t)y * sh / h), y1 = (uint32_t)((uint64_t)(y + 1) * sh / h);
		if (y1 <= y0)
			y1 = y0 + 1;
		memset(acc, 0, (size_t)w * 4 * sizeof *acc);
		for (uint32_t yy = y0; yy < y1; yy++) {
			const uint8_t *row = src + (size_t)yy * sw * 3;
			for (uint32_t x = 0; x < w; x++) {
				uint32_t x0 = (uint32_t)((uint64_t)x * sw / w), x1 = (uint32_t)((uint64_t)(x + 1) * sw / w);
				if (x1 <= x0)
					x1 = x0 + 1;
				uint32_t *a = acc + 4 * x;
				for (uint32_t xx = x0; xx < x1; xx++) {
					a[0] += row[3 * xx];
					a[1] += row[3 * xx + 1];
					a[2] += row[3 * xx + 2];
					a[3]++;
				}
			}
		}
		for (uint32_t x = 0; x < w; x++) {
			uint32_t *a = acc + 4 * x;
			for (int c = 0; c < 3; c++)
				rgb[((size_t)y * w + x) * 3 + c] = (uint8_t)((a[c] + a[3] / 2) / a[3]);
		}
	}
	free(acc);
	if (own)
		free((void *)src);
	return BAG_OK;
}

BAG_API int bag_image_png(const struct bag_image *img, uint8_t **out, size_t *outlen, struct bag_error *err)
{
	struct spng_ihdr ihdr = { .width = img->width, .height = img->height };
	size_t n = (size_t)img->width * img->height, len;
	uint8_t *buf = NULL;
	const uint8_t *src = img->pixels;
	spng_ctx *ctx = NULL;
	int rc = BAG_ENOMEM, e = 0;

	*out = NULL;
	*outlen = 0;
	switch (img->pixel) {
	case BAG_PIXEL_GRAY8: ihdr.color_type = SPNG_COLOR_TYPE_GRAYSCALE; ihdr.bit_depth = 8; break;
	case BAG_PIXEL_RGB8: ihdr.color_type = SPNG_COLOR_TYPE_TRUECOLOR; ihdr.bit_depth = 8; break;
	case BAG_PIXEL_RGBA8: ihdr.color_type = SPNG_COLOR_TYPE_TRUECOLOR_ALPHA; ihdr.bit_depth = 8; break;
	default: ihdr.color_type = SPNG_COLOR_TYPE_GRAYSCALE; ihdr.bit_depth = 16; break;
	}
	len = n * (img->pixel == BAG_PIXEL_RGBA8 ? 4 : img->pixel == BAG_PIXEL_RGB8 ? 3 : ihdr.bit_depth / 8);
	if (ihdr.bit_depth == 16) {
		/* spng takes 16-bit samples in host order (SPNG_FMT_PNG); a float image is stretched first */
		double lo = 0, hi = 0;
		if ((buf = malloc(len)) == NULL)
			goto done;
		if (img->pixel == BAG_PIXEL_FLOAT32)
			finite_range(img, &lo, &hi);
		for (size_t i = 0; i < n; i++) {
			unsigned v = img->pixel == BAG_PIXEL_GRAY16 ? (unsigned)sample_at(img, i)
			                                            : stretch(sample_at(img, i), lo, hi, 65535);
			uint16_t u = (uint16_t)v;
			memcpy(buf + 2 * i, &u, 2);
		}
		src = buf;
	}
	if ((ctx = spng_ctx_new(SPNG_CTX_ENCODER)) == NULL)
		goto done;
	rc = BAG_EIO;
	if ((e = spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1)) != 0 || (e = spng_set_ihdr(ctx, &ihdr)) != 0 ||
	    (e = spng_encode_image(ctx, src, len, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE)) != 0)
		goto done;
	if ((*out = spng_get_png_buffer(ctx, outlen, &e)) == NULL)
		goto done;
	rc = BAG_OK;
done:
	if (rc == BAG_EIO)
		bag_error_say(err, rc, "png encoder: %s", spng_strerror(e));
	else if (rc == BAG_ENOMEM)
		bag_error_say(err, rc, "out of memory");
	spng_ctx_free(ctx);
	free(buf);
	return rc;
}
