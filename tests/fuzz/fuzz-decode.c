/*
 * fuzz-decode.c - the decoder and printers. Input: a 2-byte little-endian
 * length n, n bytes of definition text, then the message bytes. The
 * definition must parse; the message is decoded by every printer. The
 * definition is ROS 1's unless FUZZ_ENCODING says otherwise (fuzz-cdr.c).
 */
#include <bagscope/bagscope.h>
#include "fuzz.h"

#ifndef FUZZ_ENCODING
#define FUZZ_ENCODING BAG_ENCODING_ROS1
#define FUZZ_TYPE "fuzz_pkg/Msg"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bag_msgdef_t *def = NULL;
	struct bag_error err;
	size_t n;

	if (size < 2)
		return 0;
	n = (size_t)data[0] | (size_t)data[1] << 8;
	if (n > size - 2)
		return 0;
	if (bag_msgdef_parse_as(&def, FUZZ_TYPE, (const char *)data + 2, n, FUZZ_ENCODING) == BAG_OK) {
		const uint8_t *msg = data + 2 + n;
		size_t len = size - 2 - n;
		struct bag_text t = { 0 };
		(void)bag_print_json(&t, def, msg, len, &err);
		bag_text_free(&t);
		(void)bag_print_yaml(&t, def, msg, len, &err);
		bag_text_free(&t);
		(void)bag_print_csv(&t, def, msg, len, true, &err);
		bag_text_free(&t);
		(void)bag_print_summary(&t, def, msg, len, 80, &err);
		bag_text_free(&t);
	}
	bag_msgdef_free(def);
	return 0;
}
