/*
 * reader-int.h - the table every file format's reader fills, and the list
 * bag_open() tries. A reader turns its file into the handle's structures
 * (bag-int.h): connections sorted by id, chunks sorted by position with
 * their per-connection counts, and the totals. Everything above (the chunk
 * cache, the timeline, views, the scan engine, check) reads those
 * structures and the 2.0 message records a chunk holds, whatever the format.
 *
 * A format whose file is not made of bag 2.0 chunks says so by having a
 * read_span: its "chunks" are spans of its own records, and read_span gives
 * a span's messages as 2.0 message records (op 2 header with conn and time,
 * then the data), or, with an item op that reads them, as its own records
 * (MCAP's, in place: no copy), which the chunk cache keeps as it keeps a
 * decompressed chunk. A reader reads bytes only through bag_read_at() and
 * bag_bytes_at() (io/handle.c).
 *
 * Adding a format is one file that defines one `const struct bag_reader`
 * and one row in bag_readers[] (readers.c). Never installed.
 */
#ifndef BAGSCOPE_READER_INT_H
#define BAGSCOPE_READER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <bagscope/bag.h>
#include "lib/formats/record-int.h"

/* Every format a reader of bag_readers[] takes, for the messages that refuse a file. */
#define READER_FORMATS "bag versions 2.0, 1.2, 1.1, 1.0 and 0, MCAP files and rosbag2 directories"
#define READER_HEAD_BYTES (3 * 4097 + 16)  /* what detect() is shown: a version-0 bag's three lines */

struct bag_reader {
	const char *name;         /* the format's name before open refines it ("2.0") */
	/*
	 * Whether the file's first len bytes (of size bytes in all; len is
	 * min(size, READER_HEAD_BYTES)) are this format's. No side effects.
	 */
	bool (*detect)(const uint8_t *head, size_t len, uint64_t size);
	/*
	 * Fill bag's connections, chunks and totals (and bag->format_name,
	 * major, minor, relative); keep what the reader needs later in
	 * bag->fmt_state. Returns 0 or a BAG_E* code with the handle's message
	 * set. On failure the caller closes the handle.
	 */
	int (*open)(bag_t *bag, const struct bag_open_opts *o);
	/*
	 * Chunk i's messages as 2.0 message records in *out (malloc'd), setting
	 * chunks[i].size to their length. NULL when the file's chunks are bag
	 * 2.0 chunk records, which the chunk layer reads itself.
	 */
	int (*read_span)(bag_t *bag, size_t i, uint8_t **out);
	/*
	 * Chunk i's messages from the format's own index, without reading the
	 * chunk: add(ctx, conn, time_ns, offset) once per message, offset being
	 * where read_span puts its record, grouped by connection, each in file
	 * order. Only asked for chunks the open left !no_index. Returns 0,
	 * BAG_ECORRUPT (the index is unusable: the chunk is walked instead),
	 * BAG_EIO, BAG_ENOMEM or add's failure, with the handle's message set.
	 * NULL when the format has no such index (or is bag 2.0's).
	 */
	int (*read_index)(bag_t *bag, size_t i, int (*add)(void *ctx, uint32_t conn, int64_t time_ns, uint32_t offset),
	                  void *ctx);
	/*
	 * For a format whose read_span hands out its own records, not 2.0
	 * records: the record at p (len > 0 bytes left in the span) as *it
	 * (all but offset; op BAG_OP_MSG_DATA with msg_ok for a message of a
	 * known connection, BAG_OP_OTHER for any other whole record). Returns
	 * its bytes, or 0 when no whole record lies there. NULL: 2.0 records.
	 */
	size_t (*item)(const bag_t *bag, const uint8_t *p, size_t len, struct chunk_item *it);
	/* Free bag->fmt_state (at the last close of a handle and its dups); NULL when there is none. */
	void (*free)(void *state);
	/*
	 * The format's own record checks for bag_check() (a 2.0 bag's are in
	 * check.c): found(ctx, offset, code, text) once per fault; *records
	 * counts the records walked. Returns 0, BAG_ENOMEM, BAG_EIO or found's
	 * non-zero. NULL when there are none.
	 */
	int (*verify)(bag_t *bag, int (*found)(void *ctx, uint64_t off, int code, const char *text), void *ctx,
	              uint64_t *records);
	/*
	 * Exact counts per connection into per (bag_count_messages()) for a
	 * reader that leaves them estimated at open (bag->counts_estimated);
	 * warnings only when warn. NULL for the others.
	 */
	int (*count)(bag_t *bag, uint64_t *per, bool warn);
	/* Fill what bag_file_info() tells of the file; NULL for ROS 1 bags. */
	void (*describe)(const bag_t *bag, struct bag_file_info *out);
};

/* The readers in the order bag_open() asks them, NULL-terminated (readers.c). */
extern const struct bag_reader *const bag_readers[];

extern const struct bag_reader bag_reader_v20;  /* format-v20.c */
extern const struct bag_reader bag_reader_v12;  /* format-v12.c */
extern const struct bag_reader bag_reader_v1x;  /* format-v1x.c: 1.1, 1.0 and 0 */
extern const struct bag_reader bag_reader_mcap; /* mcap-read.c: MCAP, ros1 and ros2 profiles */
extern const struct bag_reader bag_reader_db3;  /* db3-read.c: rosbag2 sqlite3 storage */

#endif
