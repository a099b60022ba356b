/*
 * test-image.c - camera images: for every encoding, an image of a known
 * pattern is written into a bag with the project's writer (rows padded past
 * the width, so that step matters; both byte orders for 16-bit and float),
 * read back through a view and decoded; its pixels are checked one by one.
 * Bayer mosaics demosaic to the colour they sample, yuv422 converts by
 * BT.601, jpeg (made here with libturbojpeg) decodes close to its source
 * and png (made by bag_image_png) exactly; bag_image_png's output read back
 * with libspng has the samples in their own depth; display scaling keeps a
 * block pattern and stretches depth over its finite range. Damaged images
 * (short data, small step, unknown encoding, corrupt jpeg/png, a message
 * cut inside its fields, a foreign layout, absurd sizes) are refused with
 * their reason. PointCloud2 summaries (cloud.h): fields, per-field extremes
 * and NaN counts over rows padded past their points, in both byte orders.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#include <cmocka.h>

#include <spng.h>
#include <turbojpeg.h>

#include <bagscope/bagscope.h>

#define HEADER_DEF "================================================================================\n" \
	"MSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n"
#define IMAGE_DEF "Header header\nuint32 height\nuint32 width\nstring encoding\nuint8 is_bigendian\n" \
	"uint32 step\nuint8[] data\n" HEADER_DEF
#define IMAGE_MD5 "060021388200f6f0f447d0fcd9c64743"
#define CIMAGE_DEF "Header header\nstring format\nuint8[] data\n" HEADER_DEF
#define CIMAGE_MD5 "8f7a12909da2c9d3332d540a0977563f"

static const struct bag_conn_spec image_conn = { "/cam", "sensor_msgs/Image", IMAGE_MD5, IMAGE_DEF, NULL, false };
static const struct bag_conn_spec cimage_conn = { "/cam/compressed", "sensor_msgs/CompressedImage", CIMAGE_MD5,
                                                  CIMAGE_DEF, NULL, false };

/* A growable message buffer. */
struct buf {
	uint8_t *p;
	size_t len;
};

static void put(struct buf *b, const void *p, size_t n)
{
	b->p = realloc(b->p, b->len + n + 1);
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void put32(struct buf *b, uint32_t v)
{
	uint8_t x[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
	put(b, x, 4);
}

static void put_str(struct buf *b, const char *s, size_t n)
{
	put32(b, (uint32_t)n);
	put(b, s, n);
}

static void put_header(struct buf *b)
{
	put32(b, 7);
	put32(b, 1500000000);
	put32(b, 0);
	put_str(b, "cam", 3);
}

/* A serialized sensor_msgs/Image; data holds data_len bytes. */
static struct buf image_msg(uint32_t w, uint32_t h, const char *enc, int big, uint32_t step, const uint8_t *data,
                            size_t data_len)
{
	struct buf b = { 0 };
	put_header(&b);
	put32(&b, h);
	put32(&b, w);
	put_str(&b, enc, strlen(enc));
	put(&b, &(uint8_t){ (uint8_t)big }, 1);
	put32(&b, step);
	put_str(&b, (const char *)data, data_len);
	return b;
}

static struct buf cimage_msg(const char *format, const uint8_t *data, size_t len)
{
	struct buf b = { 0 };
	put_header(&b);
	put_str(&b, format, strlen(format));
	put_str(&b, (const char *)data, len);
	return b;
}

/*
 * Write msg into a bag with the project's writer, read it back through a
 * view, and decode it with the connection's definition. Returns the decode
 * result; err gets the reason.
 */
static int roundtrip(const struct bag_conn_spec *conn, const struct buf *msg, struct bag_image *img, struct bag_error *err)
{
	char path[64];
	bag_writer_t *w;
	bag_t *bag;
	bag_timeline_t *tl;
	bag_view_t *v;
	bag_msgdef_t *def;
	struct bag_message m;

	snprintf(path, sizeof path, "/tmp/test-image-%d.bag", (int)getpid());
	assert_int_equal(bag_writer_open(&w, path, NULL), BAG_OK);
	assert_int_equal(bag_writer_write(w, conn, 1500000000LL * BAG_NSEC_PER_SEC, msg->p, msg->len), BAG_OK);
	assert_int_equal(bag_writer_close(w), BAG_OK);
	bag_writer_free(w);
	assert_int_equal(bag_open(&bag, path, NULL), BAG_OK);
	assert_int_equal(bag_timeline_open(&tl, &bag, 1), BAG_OK);
	assert_int_equal(bag_view_open(&v, tl, NULL), BAG_OK);
	assert_int_equal(bag_view_read(v, 0, &m), BAG_OK);
	assert_int_equal(m.size, msg->len);
	assert_true(bag_image_type(m.conn->type));
	assert_int_equal(bag_msgdef_parse(&def, m.conn->type, m.conn->definition, strlen(m.conn->definition)), BAG_OK);
	int rc = bag_image_decode(img, def, m.data, m.size, err);
	/* img->png points into the message: keep a copy that outlives the view */
	if (rc == BAG_OK && img->png != NULL) {
		uint8_t *copy = malloc(img->png_len);
		memcpy(copy, img->png, img->png_len);
		img->png = copy;
	}
	bag_msgdef_free(def);
	bag_view_free(v);
	bag_timeline_free(tl);
	bag_close(bag);
	unlink(path);
	return rc;
}

/* The pattern: channel c of pixel (x, y). */
static uint8_t pat(uint32_t x, uint32_t y, int c)
{
	return (uint8_t)(x * 40 + y * 71 + c * 19 + 3);
}

#define W 5
#define H 3
#define PAD 3

/* Raw 8-bit encodings: channels as stored, and how they come out. */
static void test_raw8(void **state)
{
	static const struct {
		const char *enc;
		int n;              /* stored channels */
		int order[4];       /* output channel k comes from stored channel order[k] */
		enum bag_pixel out;
		int nout;
	} cases[] = {
		{ "rgb8", 3, { 0, 1, 2 }, BAG_PIXEL_RGB8, 3 },
		{ "bgr8", 3, { 2, 1, 0 }, BAG_PIXEL_RGB8, 3 },
		{ "8UC3", 3, { 2, 1, 0 }, BAG_PIXEL_RGB8, 3 },
		{ "rgba8", 4, { 0, 1, 2, 3 }, BAG_PIXEL_RGBA8, 4 },
		{ "bgra8", 4, { 2, 1, 0, 3 }, BAG_PIXEL_RGBA8, 4 },
		{ "mono8", 1, { 0 }, BAG_PIXEL_GRAY8, 1 },
		{ "8UC1", 1, { 0 }, BAG_PIXEL_GRAY8, 1 },
	};
	struct bag_error err;

	(void)state;
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		uint32_t step = W * (uint32_t)cases[k].n + PAD;
		uint8_t data[H * (W * 4 + PAD)];
		memset(data, 0xEE, sizeof data);
		for (uint32_t y = 0; y < H; y++)
			for (uint32_t x = 0; x < W; x++)
				for (int c = 0; c < cases[k].n; c++)
					data[y * step + x * (uint32_t)cases[k].n + (uint32_t)c] = pat(x, y, c);
		struct buf msg = image_msg(W, H, cases[k].enc, 0, step, data, H * step);
		struct bag_image img;
		assert_int_equal(roundtrip(&image_conn, &msg, &img, &err), BAG_OK);
		assert_int_equal(img.width, W);
		assert_int_equal(img.height, H);
		assert_int_equal(img.pixel, cases[k].out);
		assert_string_equal(img.encoding, cases[k].enc);
		for (uint32_t y = 0; y < H; y++)
			for (uint32_t x = 0; x < W; x++)
				for (int c = 0; c < cases[k].nout; c++)
					assert_int_equal(img.pixels[(y * W + x) * (uint32_t)cases[k].nout + (uint32_t)c],
					                 pat(x, y, cases[k].order[c]));
		/* display at full size is the same colours (grey replicated, alpha dropped) */
		uint8_t rgb[W * H * 3];
		assert_int_equal(bag_image_to_rgb(&img, W, H, rgb), BAG_OK);
		for (uint32_t i = 0; i < W * H; i++)
			for (int c = 0; c < 3; c++)
				assert_int_equal(rgb[i * 3 + (uint32_t)c],
				                 pat(i % W, i / W, cases[k].order[cases[k].nout == 1 ? 0 : c]));
		bag_image_free(&img);
		free(msg.p);
	}
}

/* mono16 / 16UC1 and 32FC1 in both byte orders; the display stretch and the png depth. */
static void test_deep(void **state)
{
	struct bag_error err;

	(void)state;
	for (int big = 0; big <= 1; big++) {
		for (int which = 0; which < 2; which++) {
			const char *enc = which ? "16UC1" : "mono16";
			uint32_t step = W * 2 + PAD;
			uint8_t data[H * (W * 2 + PAD)];
			memset(data, 0xEE, sizeof data);
			for (uint32_t y = 0; y < H; y++)
				for (uint32_t x = 0; x < W; x++) {
					uint16_t v = (uint16_t)(1000 + x * 3000 + y * 17);
					data[y * step + 2 * x + (uint32_t)big] = (uint8_t)v;
					data[y * step + 2 * x + (uint32_t)!big] = (uint8_t)(v >> 8);
				}
			struct buf msg = image_msg(W, H, enc, big, step, data, H * step);
			struct bag_image img;
			assert_int_equal(roundtrip(&image_conn, &msg, &img, &err), BAG_OK);
			assert_int_equal(img.pixel, BAG_PIXEL_GRAY16);
			for (uint32_t y = 0; y < H; y++)
				for (uint32_t x = 0; x < W; x++) {
					uint16_t v;
					memcpy(&v, img.pixels + 2 * (y * W + x), 2);
					assert_int_equal(v, 1000 + x * 3000 + y * 17);
				}
			/* display: the smallest sample black, the largest white */
			uint8_t rgb[W * H * 3];
			assert_int_equal(bag_image_to_rgb(&img, W, H, rgb), BAG_OK);
			assert_int_equal(rgb[0], 0);
			assert_int_equal(rgb[(W * H - 1) * 3], 255);
			/* png: 16-bit grey, the same samples (SPNG_FMT_RAW: as in the file, big-endian) */
			uint8_t *png;
			size_t len;
			assert_int_equal(bag_image_png(&img, &png, &len, &err), BAG_OK);
			spng_ctx *ctx = spng_ctx_new(0);
			struct spng_ihdr ihdr;
			uint8_t back[W * H * 2];
			spng_set_png_buffer(ctx, png, len);
			assert_int_equal(spng_get_ihdr(ctx, &ihdr), 0);
			assert_int_equal(ihdr.bit_depth, 16);
			assert_int_equal(ihdr.color_type, SPNG_COLOR_TYPE_GRAYSCALE);
			assert_int_equal(spng_decode_image(ctx, back, sizeof back, SPNG_FMT_RAW, 0), 0);
			for (uint32_t i = 0; i < W * H; i++)
				assert_int_equal(back[2 * i] << 8 | back[2 * i + 1], 1000 + (i % W) * 3000 + (i / W) * 17);
			spng_ctx_free(ctx);
			free(png);
			bag_image_free(&img);
			free(msg.p);
		}
		/* 32FC1 with NaN and infinities */
		float vals[W * H];
		for (int i = 0; i < W * H; i++)
			vals[i] = 0.5f + (float)i * 0.25f;
		vals[3] = NAN;
		vals[4] = INFINITY;
		vals[5] = -INFINITY;
		uint32_t step = W * 4 + PAD;
		uint8_t data[H * (W * 4 + PAD)];
		memset(data, 0xEE, sizeof data);
		for (int i = 0; i < W * H; i++) {
			uint32_t u;
			memcpy(&u, &vals[i], 4);
			for (int b = 0; b < 4; b++)
				data[(uint32_t)(i / W) * step + (uint32_t)(i % W) * 4 + (uint32_t)(big ? 3 - b : b)] =
					(uint8_t)(u >> (8 * b));
		}
		struct buf msg = image_msg(W, H, "32FC1", big, step, data, H * step);
		struct bag_image img;
		assert_int_equal(roundtrip(&image_conn, &msg, &img, &err), BAG_OK);
		assert_int_equal(img.pixel, BAG_PIXEL_FLOAT32);
		for (int i = 0; i < W * H; i++) {
			float f;
			memcpy(&f, img.pixels + 4 * i, 4);
			assert_memory_equal(&f, &vals[i], 4);
		}
		uint8_t rgb[W * H * 3];
		assert_int_equal(bag_image_to_rgb(&img, W, H, rgb), BAG_OK);
		assert_int_equal(rgb[0], 0);              /* 0.5, the finite minimum */
		assert_int_equal(rgb[3 * 3], 0);          /* NaN */
		assert_int_equal(rgb[4 * 3], 255);        /* +inf */
		assert_int_equal(rgb[5 * 3], 0);          /* -inf */
		assert_int_equal(rgb[14 * 3], 255);       /* 4.0, the finite maximum */
		assert_int_equal(rgb[6 * 3], (uint8_t)lround((2.0 - 0.5) / 3.5 * 255));
		uint8_t *png;
		size_t len;
		assert_int_equal(bag_image_png(&img, &png, &len, &err), BAG_OK);
		spng_ctx *ctx = spng_ctx_new(0);
		uint8_t back[W * H * 2];
		spng_set_png_buffer(ctx, png, len);
		assert_int_equal(spng_decode_image(ctx, back, sizeof back, SPNG_FMT_RAW, 0), 0);
		assert_int_equal(back[0] << 8 | back[1], 0);           /* minimum */
		assert_int_equal(back[6] << 8 | back[7], 0);           /* NaN */
		assert_int_equal(back[8] << 8 | back[9], 65535);       /* +inf */
		assert_int_equal(back[28] << 8 | back[29], 65535);     /* maximum */
		assert_int_equal(back[12] << 8 | back[13], (int)lround((2.0 - 0.5) / 3.5 * 65535));
		spng_ctx_free(ctx);
		free(png);
		bag_image_free(&img);
		free(msg.p);
	}
}

/* Each bayer pattern over a scene of one colour, and over a scene of varying colour at its own sites. */
static void test_bayer(void **state)
{
	static const char *const names[] = { "rggb", "bggr", "gbrg", "grbg" };
	const uint8_t colour[3] = { 200, 100, 50 };
	struct bag_error err;
	char enc[32];

	(void)state;
	for (int k = 0; k < 4; k++) {
		uint32_t w = 6, h = 4, step = w + PAD;
		uint8_t flat[4 * 9], scene[4 * 9];
		memset(flat, 0xEE, sizeof flat);
		memset(scene, 0xEE, sizeof scene);
		for (uint32_t y = 0; y < h; y++)
			for (uint32_t x = 0; x < w; x++) {
				char site = names[k][(y % 2) * 2 + x % 2];
				int c = site == 'r' ? 0 : site == 'g' ? 1 : 2;
				flat[y * step + x] = colour[c];
				scene[y * step + x] = pat(x, y, c);
			}
		snprintf(enc, sizeof enc, "bayer_%s8", names[k]);
		struct buf msg = image_msg(w, h, enc, 0, step, flat, h * step);
		struct bag_image img;
		assert_int_equal(roundtrip(&image_conn, &msg, &img, &err), BAG_OK);
		assert_int_equal(img.pixel, BAG_PIXEL_RGB8);
		for (uint32_t i = 0; i < w * h; i++)
			assert_memory_equal(img.pixels + 3 * i, colour, 3);
		bag_image_free(&img);
		free(msg.p);
		/* a site keeps its own sample in its own channel */
		msg = image_msg(w, h, enc, 0, step, scene, h * step);
		assert_int_equal(roundtrip(&image_conn, &msg, &img, &err), BAG_OK);
		for (uint32_t y = 0; y < h; y++)
			for (uint32_t x = 0; x < w; x++) {
				char site = names[k][(y % 2) * 2 + x % 2];
				int c = site == 'r' ? 0 : site == 'g' ? 1 : 2;
				assert_int_equal(img.pixels[(y * w + x) * 3 + (uint32_t)c], pat(x, y, c));
			}
		/* green at an interior red site: the mean of its four green neighbours */
		for (uint32_t y = 1; y + 1 < h; y++)
			for (uint32_t x = 1; x + 1 < w; x++) {
				if (names[k][(y % 2) * 2 + x % 2] != 'r')
					continue;
				unsigned g = scene[(y - 1) * step + x] + scene[(y + 1) * step + x] + scene[y * step + x - 1] +
				             scene[y * step + x + 1];
				assert_int_equal(img.pixels[(y * w + x) * 3 + 1], (g + 2) / 4);
			}
		bag_image_free(&img);
		free(msg.p);
	}
}

/* yuv422 (UYVY) and yuv422_yuy2 (YUYV). */
static void test_yuv(void **state)
{
	struct bag_error err;
	struct bag_image img;

	(void)state;
	/* two pixels: Y 100 and 128, U 128, V 200 */
	const uint8_t uyvy[] = { 128, 100, 200, 128, 0, 0 }, yuyv[] = { 100, 128, 128, 200, 0, 0 };
	const uint8_t want[6] = { 200, 49, 100, 228, 77, 128 };
	for (int k = 0; k < 2; k++) {
		struct buf msg = image_msg(2, 1, k ? "yuv422_yuy2" : "yuv422", 0, 6, k ? yuyv : uyvy, 6);
		assert_int_equal(roundtrip(&image_conn, &msg, &img, &err), BAG_OK);
		assert_int_equal(img.pixel, BAG_PIXEL_RGB8);
		assert_memory_equal(img.pixels, want, 6);
		bag_image_free(&img);
		free(msg.p);
	}
	const uint8_t eight[8] = { 128, 100, 200, 128, 128, 100, 200, 128 };
	struct buf odd = image_msg(3, 1, "yuv422", 0, 8, eight, 8);
	assert_int_equal(roundtrip(&image_conn, &odd, &img, &err), BAG_EDECODE);
	assert_non_null(strstr(err.message, "even width"));
	free(odd.p);
}

/* jpeg made with libturbojpeg from blocks of colour; png from bag_image_png of a pattern. */
static void test_compressed(void **state)
{
	struct bag_error err;
	uint32_t w = 32, h = 16;
	uint8_t *src = malloc(w * h * 3);
	struct bag_image img, made;

	(void)state;
	for (uint32_t y = 0; y < h; y++)
		for (uint32_t x = 0; x < w; x++) {
			uint8_t *p = src + (y * w + x) * 3;
			p[0] = x < 16 ? 220 : 30;
			p[1] = y < 8 ? 200 : 40;
			p[2] = 90;
		}
	tjhandle tj = tjInitCompress();
	unsigned char *jpg = NULL;
	unsigned long jlen = 0;
	assert_int_equal(tjCompress2(tj, src, (int)w, 0, (int)h, TJPF_RGB, &jpg, &jlen, TJSAMP_444, 95, 0), 0);
	struct buf msg = cimage_msg("rgb8; jpeg compressed bgr8", jpg, jlen);
	assert_int_equal(roundtrip(&cimage_conn, &msg, &img, &err), BAG_OK);
	assert_int_equal(img.width, w);
	assert_int_equal(img.height, h);
	assert_int_equal(img.pixel, BAG_PIXEL_RGB8);
	assert_string_equal(img.encoding, "jpeg");
	assert_null(img.png);
	for (uint32_t y = 0; y < h; y++)
		for (uint32_t x = 0; x < w; x++) {
			if (x == 15 || x == 16 || y == 7 || y == 8)
				continue;   /* ringing at the block edges */
			for (int c = 0; c < 3; c++)
				assert_true(abs(img.pixels[(y * w + x) * 3 + (uint32_t)c] - src[(y * w + x) * 3 + (uint32_t)c]) <= 6);
		}
	bag_image_free(&img);
	free(msg.p);
	/* corrupt jpegs: cut short, and garbage after the markers */
	msg = cimage_msg("jpeg", jpg, jlen / 2);
	assert_int_equal(roundtrip(&cimage_conn, &msg, &img, &err), BAG_EDECODE);
	assert_non_null(strstr(err.message, "corrupt jpeg"));
	free(msg.p);
	msg = cimage_msg("jpeg", jpg, jlen - 30);
	assert_int_equal(roundtrip(&cimage_conn, &msg, &img, &err), BAG_EDECODE);
	assert_non_null(strstr(err.message, "corrupt jpeg"));
	free(msg.p);
	/* tables only (SOI, the DQT and DHT segments, EOI): libturbojpeg reads the header without a size */
	uint8_t tables[2048];
	size_t tn = 0;
	tables[tn++] = 0xFF;
	tables[tn++] = 0xD8;
	for (size_t at = 2; at + 4 < jlen && jpg[at + 1] != 0xDA;) {
		size_t seg = (size_t)jpg[at + 2] << 8 | jpg[at + 3];
		if ((jpg[at + 1] == 0xDB || jpg[at + 1] == 0xC4) && tn + seg + 4 < sizeof tables) {
			memcpy(tables + tn, jpg + at, seg + 2);
			tn += seg + 2;
		}
		at += seg + 2;
	}
	tables[tn++] = 0xFF;
	tables[tn++] = 0xD9;
	msg = cimage_msg("jpeg", tables, tn);
	assert_int_equal(roundtrip(&cimage_conn, &msg, &img, &err), BAG_EDECODE);
	assert_non_null(strstr(err.message, "corrupt jpeg: no frame header"));
	free(msg.p);
	jpg[3] = 0x01;   /* the marker after SOI is no marker */
	msg = cimage_msg("jpeg", jpg, jlen);
	assert_int_equal(roundtrip(&cimage_conn, &msg, &img, &err), BAG_EDECODE);
	assert_non_null(strstr(err.message, "corrupt jpeg"));
	free(msg.p);
	tjFree(jpg);
	tjDestroy(tj);

	/* png of each kind, through bag_image_png and back */
	static const enum bag_pixel kinds[] = { BAG_PIXEL_GRAY8, BAG_PIXEL_RGB8, BAG_PIXEL_RGBA8, BAG_PIXEL_GRAY16 };
	for (size_t k = 0; k < 4; k++) {
		size_t bpp = kinds[k] == BAG_PIXEL_GRAY8 ? 1 : kinds[k] == BAG_PIXEL_RGB8 ? 3 : kinds[k] == BAG_PIXEL_RGBA8 ? 4 : 2;
		made = (struct bag_image){ .width = w, .height = h, .pixel = kinds[k] };
		made.pixels = malloc(w * h * bpp);
		for (size_t i = 0; i < w * h * bpp; i++)
			made.pixels[i] = pat((uint32_t)(i % (w * bpp)), (uint32_t)(i / (w * bpp)), 0);
		uint8_t *png;
		size_t len;
		assert_int_equal(bag_image_png(&made, &png, &len, &err), BAG_OK);
		msg = cimage_msg("png", png, len);
		assert_int_equal(roundtrip(&cimage_conn, &msg, &img, &err), BAG_OK);
		assert_int_equal(img.pixel, kinds[k]);
		assert_string_equal(img.encoding, "png");
		assert_memory_equal(img.pixels, made.pixels, w * h * bpp);
		assert_int_equal(img.png_len, len);
		assert_memory_equal(img.png, png, len);   /* frames copies these bytes as they are */
		free((void *)img.png);
		bag_image_free(&img);
		free(msg.p);
		/* compressedDepth: a 12-byte header before the png */
		if (kinds[k] == BAG_PIXEL_GRAY16) {
			uint8_t *withhdr = malloc(len + 12);
			memset(withhdr, 0, 12);
			memcpy(withhdr + 12, png, len);
			msg = cimage_msg("16UC1; compressedDepth png", withhdr, len + 12);
			assert_int_equal(roundtrip(&cimage_conn, &msg, &img, &err), BAG_OK);
			assert_memory_equal(img.pixels, made.pixels, w * h * 2);
			free((void *)img.png);
			bag_image_free(&img);
			free(msg.p);
			free(withhdr);
		}
		/* a flipped byte in the image data: its CRC fails */
		png[len - 20] ^= 0x40;
		msg = cimage_msg("png", png, len);
		assert_int_equal(roundtrip(&cimage_conn, &msg, &img, &err), BAG_EDECODE);
		assert_non_null(strstr(err.message, "corrupt png"));
		free(msg.p);
		free(png);
		bag_image_free(&made);
	}
	msg = cimage_msg("tiff", (const uint8_t *)"II*\0abcd", 8);
	assert_int_equal(roundtrip(&cimage_conn, &msg, &img, &err), BAG_EUNSUPP);
	assert_non_null(strstr(err.message, "unknown compressed format 'tiff'"));
	free(msg.p);
	free(src);
}

/* Damaged raw images and foreign layouts. */
static void test_damaged(void **state)
{
	struct bag_error err;
	struct bag_image img;
	uint8_t data[64] = { 0 };
	struct buf msg;

	(void)state;
	msg = image_msg(4, 4, "rgb8", 0, 12, data, 40);
	assert_int_equal(roundtrip(&image_conn, &msg, &img, &err), BAG_EDECODE);
	assert_string_equal(err.message, "data holds 40 bytes, height 4 x step 12 needs 48");
	free(msg.p);
	msg = image_msg(4, 2, "rgb8", 0, 10, data, 40);
	assert_int_equal(roundtrip(&image_conn, &msg, &img, &err), BAG_EDECODE);
	assert_string_equal(err.message, "step 10 is less than width 4 x 3 bytes of rgb8");
	free(msg.p);
	msg = image_msg(4, 2, "rgb9", 0, 12, data, 24);
	assert_int_equal(roundtrip(&image_conn, &msg, &img, &err), BAG_EUNSUPP);
	assert_string_equal(err.message, "unknown image encoding 'rgb9'");
	free(msg.p);
	msg = image_msg(0, 2, "mono8", 0, 0, data, 0);
	assert_int_equal(roundtrip(&image_conn, &msg, &img, &err), BAG_EDECODE);
	assert_non_null(strstr(err.message, "empty"));
	free(msg.p);
	msg = image_msg(70000, 70000, "mono8", 0, 0, data, 0);
	assert_int_equal(roundtrip(&image_conn, &msg, &img, &err), BAG_EDECODE);
	free(msg.p);
	/* a message cut inside its fields: the data length promises more than there is */
	msg = image_msg(4, 2, "mono8", 0, 4, data, 8);
	msg.len -= 3;
	assert_int_equal(roundtrip(&image_conn, &msg, &img, &err), BAG_EDECODE);
	assert_non_null(strstr(err.message, "ends inside its fields"));
	free(msg.p);
	/* an Image definition with another layout is refused, not misread */
	struct bag_conn_spec odd = image_conn;
	odd.definition = "Header header\nuint32 width\nuint32 height\nstring encoding\nuint8 is_bigendian\n"
	                 "uint32 step\nuint8[] data\n" HEADER_DEF;
	msg = image_msg(4, 2, "mono8", 0, 4, data, 8);
	assert_int_equal(roundtrip(&odd, &msg, &img, &err), BAG_EUNSUPP);
	assert_non_null(strstr(err.message, "other fields"));
	free(msg.p);
	/* not an image type */
	bag_msgdef_t *def;
	assert_int_equal(bag_msgdef_parse(&def, "std_msgs/Int32", "int32 data\n", 11), BAG_OK);
	assert_false(bag_image_type("std_msgs/Int32"));
	assert_int_equal(bag_image_decode(&img, def, data, 4, &err), BAG_EUNSUPP);
	bag_msgdef_free(def);
}

/* Scaling for display: 2x2 blocks of colour halve to single pixels; growing repeats. */
static void test_scale(void **state)
{
	struct bag_image img = { .width = 8, .height = 4, .pixel = BAG_PIXEL_RGB8 };
	uint8_t out[4 * 2 * 3], big[16 * 8 * 3];

	(void)state;
	img.pixels = malloc(8 * 4 * 3);
	for (uint32_t y = 0; y < 4; y++)
		for (uint32_t x = 0; x < 8; x++)
			for (int c = 0; c < 3; c++)
				img.pixels[(y * 8 + x) * 3 + (uint32_t)c] = pat(x / 2, y / 2, c);
	assert_int_equal(bag_image_to_rgb(&img, 4, 2, out), BAG_OK);
	for (uint32_t y = 0; y < 2; y++)
		for (uint32_t x = 0; x < 4; x++)
			for (int c = 0; c < 3; c++)
				assert_int_equal(out[(y * 4 + x) * 3 + (uint32_t)c], pat(x, y, c));
	assert_int_equal(bag_image_to_rgb(&img, 16, 8, big), BAG_OK);
	for (uint32_t y = 0; y < 8; y++)
		for (uint32_t x = 0; x < 16; x++)
			assert_int_equal(big[(y * 16 + x) * 3], pat(x / 4, y / 4, 0));
	assert_int_equal(bag_image_to_rgb(&img, 0, 2, out), BAG_EINVAL);
	bag_image_free(&img);
}

#define CLOUD_DEF "Header header\nuint32 height\nuint32 width\nPointField[] fields\nbool is_bigendian\n" \
	"uint32 point_step\nuint32 row_step\nuint8[] data\nbool is_dense\n" HEADER_DEF \
	"================================================================================\n" \
	"MSG: sensor_msgs/PointField\nuint8 INT8=1\nuint8 FLOAT32=7\nstring name\nuint32 offset\nuint8 datatype\nuint32 count\n"

static void put_be(uint8_t *p, const void *v, size_t n, int big)
{
	for (size_t i = 0; i < n; i++)
		p[i] = ((const uint8_t *)v)[big ? n - 1 - i : i];
}

/* A 2 x 3 cloud: x, y, z float32, intensity float64, ring uint16[2], a field past point_step. */
static void test_cloud(void **state)
{
	static const struct bag_conn_spec conn = { "/points", "sensor_msgs/PointCloud2",
	                                           "1158d486dd51d683ce2f1be655c3c181", CLOUD_DEF, NULL, false };
	struct bag_error err;
	char path[64];
	(void)state;
	for (int big = 0; big <= 1; big++) {
		const uint32_t point_step = 28, row_step = 3 * 28 + 6;
		uint8_t pts[2 * (3 * 28 + 6)];
		memset(pts, 0xAB, sizeof pts);
		for (uint32_t i = 0; i < 6; i++) {
			uint8_t *p = pts + (i / 3) * row_step + (i % 3) * point_step;
			float x = (float)i - 2.5f, y = (float)(i * i), z = i == 4 ? NAN : 0.5f * (float)i;
			double in = 100.0 + i;
			uint16_t ring[2] = { (uint16_t)i, (uint16_t)(60000 - i) };
			put_be(p, &x, 4, big);
			put_be(p + 4, &y, 4, big);
			put_be(p + 8, &z, 4, big);
			put_be(p + 12, &in, 8, big);
			put_be(p + 20, &ring[0], 2, big);
			put_be(p + 22, &ring[1], 2, big);
		}
		struct buf b = { 0 };
		static const struct { const char *name; uint32_t off; uint8_t type; uint32_t count; } f[] = {
			{ "x", 0, 7, 1 }, { "y", 4, 7, 1 }, { "z", 8, 7, 1 }, { "intensity", 12, 8, 1 }, { "ring", 20, 4, 2 },
			{ "beyond", 26, 6, 1 },
		};
		put_header(&b);
		put32(&b, 2);
		put32(&b, 3);
		put32(&b, 6);
		for (int k = 0; k < 6; k++) {
			put_str(&b, f[k].name, strlen(f[k].name));
			put32(&b, f[k].off);
			put(&b, &f[k].type, 1);
			put32(&b, f[k].count);
		}
		put(&b, &(uint8_t){ (uint8_t)big }, 1);
		put32(&b, point_step);
		put32(&b, row_step);
		put_str(&b, (const char *)pts, sizeof pts);
		put(&b, &(uint8_t){ 0 }, 1);

		bag_writer_t *w;
		bag_t *bag;
		bag_timeline_t *tl;
		bag_view_t *v;
		bag_msgdef_t *def;
		struct bag_message m;
		struct bag_cloud c;
		snprintf(path, sizeof path, "/tmp/test-cloud-%d.bag", (int)getpid());
		assert_int_equal(bag_writer_open(&w, path, NULL), BAG_OK);
		assert_int_equal(bag_writer_write(w, &conn, 1500000000LL * BAG_NSEC_PER_SEC, b.p, b.len), BAG_OK);
		assert_int_equal(bag_writer_close(w), BAG_OK);
		bag_writer_free(w);
		assert_int_equal(bag_open(&bag, path, NULL), BAG_OK);
		assert_int_equal(bag_timeline_open(&tl, &bag, 1), BAG_OK);
		assert_int_equal(bag_view_open(&v, tl, NULL), BAG_OK);
		assert_int_equal(bag_view_read(v, 0, &m), BAG_OK);
		assert_int_equal(bag_msgdef_parse(&def, m.conn->type, m.conn->definition, strlen(m.conn->definition)), BAG_OK);
		assert_int_equal(bag_cloud_decode(&c, def, m.data, m.size, &err), BAG_OK);
		assert_int_equal(c.points, 6);
		assert_int_equal(c.nfields, 6);
		assert_int_equal(c.is_bigendian, big);
		assert_int_equal(c.x, 0);
		assert_int_equal(c.y, 1);
		assert_int_equal(c.z, 2);
		assert_string_equal(c.fields[3].name, "intensity");
		assert_string_equal(bag_cloud_type_name(c.fields[3].datatype), "float64");
		assert_true(c.fields[0].min == -2.5 && c.fields[0].max == 2.5);
		assert_true(c.fields[1].min == 0 && c.fields[1].max == 25);
		assert_int_equal(c.fields[2].nan, 1);
		assert_true(c.fields[2].min == 0 && c.fields[2].max == 2.5);
		assert_true(c.fields[3].min == 100 && c.fields[3].max == 105);
		assert_true(c.fields[4].min == 0 && c.fields[4].max == 60000);
		assert_false(c.fields[5].readable);
		assert_false(c.fields[5].summarised);
		assert_true(c.fields[0].summarised);
		assert_true(isnan(c.fields[5].min));
		assert_true(bag_cloud_value(&c, 4, 0, 0) == 1.5);
		assert_true(bag_cloud_value(&c, 5, 4, 1) == 59995);
		assert_true(isnan(bag_cloud_value(&c, 6, 0, 0)));
		bag_cloud_free(&c);
		/* damaged: the data cut short, and a row_step too small */
		uint8_t *cut = malloc(m.size);
		memcpy(cut, m.data, m.size);
		size_t data_len_at = m.size - 1 - sizeof pts - 4;
		uint32_t shorter = sizeof pts - 7;
		memcpy(cut + data_len_at, &shorter, 4);
		assert_int_equal(bag_cloud_decode(&c, def, cut, data_len_at + 4 + shorter + 1, &err), BAG_EDECODE);
		assert_string_equal(err.message, "data holds 173 bytes, height 2 x row_step 90 needs 180");
		uint32_t small = 80;
		memcpy(cut + data_len_at - 4, &small, 4);
		assert_int_equal(bag_cloud_decode(&c, def, cut, m.size, &err), BAG_EDECODE);
		assert_string_equal(err.message, "row_step 80 is less than width 3 x point_step 28");
		assert_int_equal(bag_cloud_decode(&c, def, cut, 30, &err), BAG_EDECODE);
		/* 2 x 3 points of point_step 0 (and row_step 0): refused, not read */
		memset(cut + data_len_at - 8, 0, 8);
		assert_int_equal(bag_cloud_decode(&c, def, cut, m.size, &err), BAG_EDECODE);
		assert_string_equal(err.message, "point_step is 0 for 6 points");
		free(cut);
		bag_msgdef_free(def);
		bag_view_free(v);
		bag_timeline_free(tl);
		bag_close(bag);
		unlink(path);
		free(b.p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_raw8),
		cmocka_unit_test(test_deep),
		cmocka_unit_test(test_bayer),
		cmocka_unit_test(test_yuv),
		cmocka_unit_test(test_compressed),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_scale),
		cmocka_unit_test(test_cloud),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
