/*
 * readers.c - the formats bag_open() knows, in the order it asks them: the
 * first whose detect() accepts the file's first bytes opens it. Each row
 * is one reader file (reader-int.h).
 */
#include <stddef.h>

#include "lib/formats/reader-int.h"

const struct bag_reader *const bag_readers[] = {
	&bag_reader_mcap,
	&bag_reader_db3,
	&bag_reader_v20,
	&bag_reader_v12,
	&bag_reader_v1x,
	NULL,
};
