/*
 * bench/image.c - the cost of showing one camera frame in the browser:
 * decode (image.h), scale to the picture that fits 160 x 45 cells
 * (picture_fit, bag_image_to_rgb) and make its half-block escape sequences
 * (picture_ansi), for a 640 x 480 frame of several encodings, in 24-bit and
 * 256 colours. Prints the mean milliseconds per frame over many frames.
 *   bench/bench-image [FRAMES]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <turbojpeg.h>

#include <bagscope/bagscope.h>
#include "tui/picture.h"

#define W 640
#define H 480

static const char *const image_def =
	"Header header\nuint32 height\nuint32 width\nstring encoding\nuint8 is_bigendian\nuint32 step\nuint8[] data\n"
	"================================================================================\n"
	"MSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n";
static const char *const cimage_def =
	"Header header\nstring format\nuint8[] data\n"
	"================================================================================\n"
	"MSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n";

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
	return 4;
}

/* A serialized Image (or CompressedImage when format is set) around data. */
static uint8_t *message(const char *enc, uint32_t step, const uint8_t *data, size_t len, const char *format,
                        size_t *out)
{
	uint8_t *m = malloc(len + 64), *p = m;
	p += put32(p, 0);
	p += put32(p, 1500000000);
	p += put32(p, 0);
	p += put32(p, 3);
	memcpy(p, "cam", 3);
	p += 3;
	if (format == NULL) {
		p += put32(p, H);
		p += put32(p, W);
		p += put32(p, (uint32_t)strlen(enc));
		memcpy(p, enc, strlen(enc));
		p += strlen(enc);
		*p++ = 0;
		p += put32(p, step);
	} else {
		p += put32(p, (uint32_t)strlen(format));
		memcpy(p, format, strlen(format));
		p += strlen(format);
	}
	p += put32(p, (uint32_t)len);
	memcpy(p, data, len);
	*out = (size_t)(p - m) + len;
	return m;
}

int main(int argc, char **argv)
{
	int frames = argc > 1 ? atoi(argv[1]) : 30;
	static const struct { const char *enc; int bpp; } raw[] = {
		{ "rgb8", 3 }, { "bgr8", 3 }, { "mono8", 1 }, { "mono16", 2 }, { "32FC1", 4 }, { "bayer_rggb8", 1 },
		{ "yuv422", 2 },
	};
	uint8_t *src = malloc((size_t)W * H * 4);
	bag_msgdef_t *idef, *cdef;
	struct bag_text out = { 0 };
	uint32_t pw, ph;

	for (size_t i = 0; i < (size_t)W * H * 4; i++)
		src[i] = (uint8_t)((i * 2654435761u) >> 24 ^ (i / (W * 4)));
	bag_msgdef_parse(&idef, "sensor_msgs/Image", image_def, strlen(image_def));
	bag_msgdef_parse(&cdef, "sensor_msgs/CompressedImage", cimage_def, strlen(cimage_def));
	picture_fit(W, H, 160, 45, &pw, &ph);
	uint8_t *rgb = malloc((size_t)pw * ph * 3);
	printf("640x480 frame into 160x45 cells (%ux%u pixels, %u rows of half blocks), %d frames each\n", pw, ph,
	       (ph + 1) / 2, frames);
	for (size_t k = 0; k < sizeof raw / sizeof *raw + 2; k++) {
		uint8_t *msg;
		size_t len;
		const char *name;
		const bag_msgdef_t *def = idef;
		unsigned char *jpg = NULL;
		if (k < sizeof raw / sizeof *raw) {
			name = raw[k].enc;
			msg = message(name, (uint32_t)(W * raw[k].bpp), src, (size_t)W * H * (size_t)raw[k].bpp, NULL, &len);
		} else if (k == sizeof raw / sizeof *raw) {
			tjhandle tj = tjInitCompress();
			unsigned long jlen = 0;
			tjCompress2(tj, src, W, 0, H, TJPF_RGB, &jpg, &jlen, TJSAMP_420, 85, 0);
			tjDestroy(tj);
			name = "jpeg";
			def = cdef;
			msg = message(NULL, 0, jpg, jlen, "jpeg", &len);
		} else {
			struct bag_image img = { .width = W, .height = H, .pixel = BAG_PIXEL_RGB8, .pixels = src };
			uint8_t *png;
			size_t plen;
			struct bag_error err;
			bag_image_png(&img, &png, &plen, &err);
			name = "png";
			def = cdef;
			msg = message(NULL, 0, png, plen, "png", &len);
			free(png);
		}
		for (int truecolor = 1; truecolor >= 0; truecolor--) {
			double t0 = now();
			for (int f = 0; f < frames; f++) {
				struct bag_image img;
				struct bag_error err;
				if (bag_image_decode(&img, def, msg, len, &err) != BAG_OK) {
					fprintf(stderr, "%s: %s\n", name, err.message);
					return 1;
				}
				bag_image_to_rgb(&img, pw, ph, rgb);
				out.len = 0;
				picture_ansi(&out, rgb, pw, ph, 1, 0, truecolor);
				bag_image_free(&img);
			}
			printf("  %-12s %-7s %6.2f ms per frame (%zu bytes to the terminal)\n", name,
			       truecolor ? "24-bit" : "256", (now() - t0) * 1e3 / frames, out.len);
		}
		free(msg);
		tjFree(jpg);
	}
	bag_text_free(&out);
	bag_msgdef_free(idef);
	bag_msgdef_free(cdef);
	free(rgb);
	free(src);
	return 0;
}
