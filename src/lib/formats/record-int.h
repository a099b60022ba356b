/*
 * record-int.h - the chunk-data walker: the records of decompressed chunk
 * data in order, each with its op and, for a message, its connection and
 * time. recover.c (counting a chunk's messages), index.c (entries of a
 * chunk read from its data) and check.c walk chunks with it, so that they
 * always agree on what a chunk holds. Never installed.
 */
#ifndef BAGSCOPE_RECORD_INT_H
#define BAGSCOPE_RECORD_INT_H

#include <bagscope/record.h>

/* One record met while walking decompressed chunk data. */
struct chunk_item {
	uint8_t op;                    /* 0 when the header has no readable op */
	uint32_t offset;               /* record offset in the chunk data */
	const struct bag_record *rec;
	bool msg_ok;                   /* op 2 with readable conn and time: */
	uint32_t conn_id;
	int64_t time_ns;
};

/* Called per record; a non-zero return stops the walk and is returned. */
typedef int (*chunk_walk_fn)(void *arg, const struct chunk_item *it);

/* The op, connection and time of the record rec (a parsed record) into it (all but offset). */
void bag_chunk_item(const struct bag_record *rec, struct chunk_item *it);

/*
 * Walk the records of decompressed chunk data in order. Stops at the first
 * record that does not fit in len; *used (may be NULL) is then the bytes of
 * complete records. Returns 0 or what fn returned.
 */
int bag_chunk_walk(const uint8_t *data, size_t len, chunk_walk_fn fn, void *arg, size_t *used);

#endif
