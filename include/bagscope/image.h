/*
 * bagscope/image.h - camera images in messages: sensor_msgs/Image and
 * sensor_msgs/CompressedImage decoded into plain pixels, converted to RGB
 * (scaled, for a terminal) and encoded as PNG.
 *
 * sensor_msgs/Image encodings: rgb8, bgr8, rgba8, bgra8, mono8, 8UC1, 8UC3
 * (taken as bgr, as OpenCV and image_view do), 8UC4 (bgra), mono16, 16UC1,
 * 32FC1, bayer_rggb8, bayer_bggr8, bayer_gbrg8, bayer_grbg8 (demosaiced to
 * RGB, bilinear), yuv422 (UYVY) and yuv422_yuy2 (YUYV) (to RGB, BT.601).
 * Rows are read `step` bytes apart and multi-byte samples in the byte order
 * is_bigendian gives. sensor_msgs/CompressedImage: jpeg (libturbojpeg) and
 * png (libspng), told by their signatures; a compressedDepth png's 12-byte
 * header is skipped.
 *
 * The definition is checked field by field against the ROS layout of the
 * type (any other layout is refused), and every length against the bytes
 * there are: a bad image is an error with a one-line reason, never a crash.
 * Functions here take `struct bag_error *err` for that line (common.h).
 */
#ifndef BAGSCOPE_IMAGE_H
#define BAGSCOPE_IMAGE_H

#include <bagscope/msgdef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How decoded pixels are held: packed rows, samples in host byte order. */
enum bag_pixel {
	BAG_PIXEL_GRAY8,
	BAG_PIXEL_GRAY16,
	BAG_PIXEL_RGB8,
	BAG_PIXEL_RGBA8,
	BAG_PIXEL_FLOAT32,    /* one float channel (depth, 32FC1) */
};

/* The largest image decoded, in pixels (a bigger one is refused). */
#define BAG_IMAGE_MAX_PIXELS ((uint64_t)1 << 26)

/* A decoded image. Zero-initialise; bag_image_free() after a decode. */
struct bag_image {
	uint32_t width, height;
	enum bag_pixel pixel;
	uint8_t *pixels;          /* owned: height * width pixels, rows top first */
	char encoding[32];        /* as the message gave it ("bayer_rggb8", "jpeg") */
	const uint8_t *png;       /* CompressedImage png: its bytes (borrowed from the message), else NULL */
	size_t png_len;
};

/* Whether type is one bag_image_decode() reads (Image or CompressedImage). */
BAG_API bool bag_image_type(const char *type);

/*
 * Decode the message data[0..len) whose definition is def (its top type
 * sensor_msgs/Image or sensor_msgs/CompressedImage). Returns 0; BAG_EUNSUPP
 * (not an image type, another layout, an unknown encoding or compressed
 * format); BAG_EDECODE (the message is shorter than its fields, the data
 * shorter than height x step, a step too small for the width, a corrupt
 * jpeg or png, a size of 0 or beyond BAG_IMAGE_MAX_PIXELS); BAG_ENOMEM.
 * On failure err says why in one line and *img holds nothing to free.
 * img->png (when set) points into data.
 */
BAG_API int bag_image_decode(struct bag_image *img, const bag_msgdef_t *def, const uint8_t *data, size_t len,
                             struct bag_error *err);

/* Free the pixels and zero *img; accepts a zeroed image. */
BAG_API void bag_image_free(struct bag_image *img);

/*
 * The image as 8-bit RGB, scaled to w x h (box filter when shrinking,
 * nearest when growing) into rgb[0 .. w*h*3). Grey is replicated, alpha
 * dropped; 16-bit and float images are stretched over their finite range
 * (NaN black, +inf white). Returns 0, BAG_EINVAL (w or h 0) or BAG_ENOMEM.
 */
BAG_API int bag_image_to_rgb(const struct bag_image *img, uint32_t w, uint32_t h, uint8_t *rgb);

/*
 * Encode as PNG into a malloc'd buffer (*out, *outlen; the caller frees):
 * grey 8 and 16, RGB and RGBA losslessly in their own depth, a float image
 * as 16-bit grey over its finite range (NaN 0, +inf 65535). Returns 0,
 * BAG_ENOMEM or BAG_EIO (the encoder failed; err says why).
 */
BAG_API int bag_image_png(const struct bag_image *img, uint8_t **out, size_t *outlen, struct bag_error *err);

#ifdef __cplusplus
}
#endif

#endif
