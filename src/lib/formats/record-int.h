/*
 * record-int.h - the chunk-data walker: the records of decompressed chunk
 * data in order, each with its op and, for a message, its connection and
 * time. recover.c (counting a chunk's messages), index.c (entries of a
 * chunk read from its data) and check.c walk chunks with it, so that they
 * always agree on what a chunk holds. Never installed.
 */
#ifndef BAGSCOPE_RECORD_INT_H
#define BAGSCOPE_RECORD_INT_H

#include <bagscope/bag.h>
#include <bagscope/record.h>

/* One record met while walking decompressed chunk data. */
struct chunk_item {
	uint8_t op;                    /* 0 when the header has no readable op; BAG_OP_OTHER */
	uint32_t offset;               /* record offset in the chunk data */
	struct bag_record rec;         /* a 2.0 record as parsed (a format's own records: zero) */
	bool msg_ok;                   /* op 2 with readable conn and time: */
	uint32_t conn_id;
	int64_t time_ns;
	const uint8_t *data;           /* a message's bytes */
	uint32_t data_len;
};

/* A record of a format's own (read_span's) that is no message of a known connection: passed over. */
#define BAG_OP_OTHER 0xff

/* Called per record; a non-zero return stops the walk and is returned. */
typedef int (*chunk_walk_fn)(void *arg, const struct chunk_item *it);

/* The op, connection, time and data of the 2.0 record rec (a parsed record) into it (all but offset). */
void bag_chunk_item(const struct bag_record *rec, struct chunk_item *it);

/*
 * The record at data[at..len) of bag's chunk data as *it: a 2.0 record, or
 * the format's own where its reader has an item op (reader-int.h). Returns
 * its bytes, or 0 when no whole record lies there.
 */
size_t bag_chunk_record(const bag_t *bag, const uint8_t *data, size_t len, size_t at, struct chunk_item *it);

/*
 * Walk the records of bag's decompressed chunk data in order (bag NULL: 2.0
 * records). Stops at the first record that does not fit in len; *used (may
 * be NULL) is then the bytes of complete records. Returns 0 or what fn
 * returned.
 */
int bag_chunk_walk(const bag_t *bag, const uint8_t *data, size_t len, chunk_walk_fn fn, void *arg, size_t *used);

#endif
