/*
 * fuzz-msgdef.c - the definition parser on any text, then the tree printer
 * over whatever parsed.
 */
#include <bagscope/bagscope.h>
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bag_msgdef_t *def = NULL;

	if (bag_msgdef_parse(&def, "fuzz_pkg/Msg", (const char *)data, size) == BAG_OK) {
		struct bag_text t = { 0 };
		bag_print_msgdef_tree(&t, def, 0);
		bag_text_free(&t);
		for (size_t i = 0; i < bag_msgdef_type_count(def); i++)
			(void)bag_msgdef_type_at(def, i)->md5[0];
	}
	bag_msgdef_free(def);
	return 0;
}
