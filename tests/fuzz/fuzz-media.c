/*
 * fuzz-media.c - camera images and point clouds (image.h, cloud.h). Input:
 * one byte choosing the type (0 sensor_msgs/Image, 1 CompressedImage,
 * 2 PointCloud2, others modulo 3), then the message bytes, read with ROS's
 * definition of that type. A decoded image is scaled for the screen and
 * written as PNG; a decoded cloud has its first points read.
 */
#include <stdlib.h>
#include <string.h>

#include <bagscope/bagscope.h>
#include "fuzz.h"

#define HEADER "================================================================================\n" \
	"MSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n"

static const struct {
	const char *type, *def;
} types[3] = {
	{ "sensor_msgs/Image", "Header header\nuint32 height\nuint32 width\nstring encoding\nuint8 is_bigendian\n"
	                       "uint32 step\nuint8[] data\n" HEADER },
	{ "sensor_msgs/CompressedImage", "Header header\nstring format\nuint8[] data\n" HEADER },
	{ "sensor_msgs/PointCloud2", "Header header\nuint32 height\nuint32 width\nPointField[] fields\n"
	                             "bool is_bigendian\nuint32 point_step\nuint32 row_step\nuint8[] data\nbool is_dense\n"
	                             HEADER "================================================================================\n"
	                             "MSG: sensor_msgs/PointField\nstring name\nuint32 offset\nuint8 datatype\nuint32 count\n" },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bag_msgdef_t *def = NULL;
	struct bag_error err;

	if (size < 1)
		return 0;
	int k = data[0] % 3;
	if (bag_msgdef_parse(&def, types[k].type, types[k].def, strlen(types[k].def)) != BAG_OK)
		abort();
	if (k < 2) {
		struct bag_image img;
		if (bag_image_decode(&img, def, data + 1, size - 1, &err) == BAG_OK) {
			uint8_t rgb[7 * 5 * 3], *png = NULL;
			size_t len;
			if (bag_image_to_rgb(&img, 7, 5, rgb) != BAG_OK)
				abort();
			if ((uint64_t)img.width * img.height <= 1 << 20 && bag_image_png(&img, &png, &len, &err) == BAG_OK)
				free(png);
			bag_image_free(&img);
		}
	} else {
		struct bag_cloud c;
		if (bag_cloud_decode(&c, def, data + 1, size - 1, &err) == BAG_OK) {
			for (uint64_t i = 0; i < c.points && i < 8; i++)
				for (size_t f = 0; f < c.nfields; f++)
					(void)bag_cloud_value(&c, i, f, 0);
			bag_cloud_free(&c);
		}
	}
	bag_msgdef_free(def);
	return 0;
}
