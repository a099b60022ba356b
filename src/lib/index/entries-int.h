/*
 * entries-int.h - the index module: a chunk's index entries (one per
 * message: time, offset of its record in the chunk's data, connection),
 * from the chunk's index-data records or walked from its data, and the read
 * of the message an entry names. The timeline merges what it gives, views
 * select rows of that, and the scan schedules reads; none of them parses
 * index records or chunk data itself. Never installed.
 */
#ifndef BAGSCOPE_ENTRIES_INT_H
#define BAGSCOPE_ENTRIES_INT_H

#include <stdint.h>

#include "lib/formats/bag-int.h"

/* One message of a chunk. */
struct chunk_entry {
	int64_t time_ns;
	uint32_t offset;          /* its record's offset in the chunk's data */
	uint32_t conn;            /* bag connection index */
};

/*
 * A chunk's entries, grouped by connection in the order its index records
 * come (walked: by connection index), each connection's in file order.
 * Reused from chunk to chunk; free with chunk_entries_free().
 */
struct chunk_entries {
	struct chunk_entry *e;
	size_t n, cap;
	uint64_t sum;             /* entry_mix() over them: an order-free fingerprint */
	uint8_t *scratch;         /* the index region as read */
	size_t scratch_cap;
};

/*
 * Chunk i's entries from its index-data records, checked against its chunk
 * info (counts per connection, entries inside the chunk). Returns 0,
 * BAG_ECORRUPT (the index data are unusable: walk the chunk instead),
 * BAG_EIO or BAG_ENOMEM, with the handle's message set.
 */
int chunk_entries_read(bag_t *bag, size_t i, struct chunk_entries *out);

/* Chunk i's entries walked from its data (messages on defined connections). */
int chunk_entries_walk(bag_t *bag, size_t i, struct chunk_entries *out);

/*
 * Count and fingerprint chunk i's messages from its data, for comparing
 * with what its index data gave. Returns 0 or the read's error.
 */
int chunk_entries_sum(bag_t *bag, size_t i, uint64_t *n, uint64_t *sum);

void chunk_entries_free(struct chunk_entries *c);

#endif
