/*
 * bagscope/mcap.h - writing ROS 1 messages as an MCAP file (the "ros1"
 * profile), the format Foxglove and the mcap tools read, written from the
 * published specification (mcap.dev/spec, major version 0).
 *
 * What a file holds: the Header (profile "ros1"), chunks of Schema, Channel
 * and Message records (lz4 or uncompressed, each with the CRC-32 of its
 * records) each followed by its Message Index records, Data End with the CRC
 * of the data section, and a summary section - every Schema and Channel,
 * one Statistics record with per-channel counts, one Chunk Index per chunk -
 * with a Summary Offset record per group and a Footer with the summary's CRC.
 *
 * The ros1 profile: a schema per (datatype, definition), encoding "ros1msg",
 * name the datatype ("std_msgs/String"), data the message_definition text; a
 * channel per connection, message encoding "ros1", its metadata the other
 * connection header fields (callerid, md5sum, ...) with latching written as
 * "true" or "false". A message's log_time and publish_time are both its bag
 * time; sequence counts the channel's messages from 0. Chunks are cut and
 * compressed as the bag writer's are (write.h), on a pool of threads.
 */
#ifndef BAGSCOPE_MCAP_H
#define BAGSCOPE_MCAP_H

#include <bagscope/bag.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An MCAP file being written; opaque. */
typedef struct bag_mcap_writer bag_mcap_writer_t;

/*
 * Options for bag_mcap_writer_open(); NULL means all defaults. Start from
 * BAG_MCAP_OPTS_INIT (size set, the rest zero = defaults), as for
 * bag_writer_opts.
 */
struct bag_mcap_opts {
	size_t size;                      /* sizeof(struct bag_mcap_opts) */
	enum bag_compression compression; /* NONE (default) or LZ4; BZ2 is refused */
	uint32_t chunk_size;              /* a chunk is closed once its records
	                                     exceed this many bytes; 0 = 768 KiB */
	unsigned threads;                 /* compression threads, as bag_writer_opts */
	bool no_replace;                  /* close fails ("exists") rather than
	                                     replace a file at path */
	enum bag_encoding encoding;       /* ROS1: the ros1 profile (ros1msg, ros1);
	                                     CDR: ros2 (ros2msg, cdr, no md5sum) */
};
#define BAG_MCAP_OPTS_INIT { sizeof(struct bag_mcap_opts), BAG_COMPRESSION_NONE, 0, 0, false, BAG_ENCODING_ROS1 }

/*
 * Start writing an MCAP file that will be called path once
 * bag_mcap_writer_close() succeeds; until then it is path.tmp-XXXXXX beside
 * it, removed by bag_mcap_writer_free() if not closed. *out is set even on
 * failure (NULL only for BAG_ENOMEM); always free it. Returns 0, BAG_EIO,
 * BAG_ENOMEM, BAG_EINVAL (no path, bz2 or an unknown compression, bad
 * opts->size) or BAG_EUNSUPP (lz4 in a build without liblz4).
 */
BAG_API int bag_mcap_writer_open(bag_mcap_writer_t **out, const char *path,
                                 const struct bag_mcap_opts *opts);

/*
 * Add a channel for a ROS connection given its whole connection header
 * (fields in order, as struct bag_connection holds them: type and
 * message_definition make its schema, the others its metadata) on topic. A
 * connection equal in topic, schema and metadata to one added before is
 * that channel. *conn is the handle for bag_mcap_writer_write(). Returns 0,
 * BAG_EINVAL (bad argument, or more than 65535 channels or schemas; writer
 * unchanged) or BAG_ENOMEM (sticky).
 */
BAG_API int bag_mcap_writer_add_conn(bag_mcap_writer_t *w, const char *topic,
                                     const struct bag_kv *fields, size_t nfields, uint32_t *conn);

/*
 * Append one message on channel conn at time_ns (>= 0): len bytes of data
 * (copied). Times need not be in order. Returns 0; BAG_EINVAL for a bad
 * argument (writer unchanged); BAG_EIO, BAG_ENOMEM or BAG_ECOMPRESS when a
 * full chunk could not be written, after which the writer is broken (every
 * later call returns that code, the message stays the first failure's).
 */
BAG_API int bag_mcap_writer_write(bag_mcap_writer_t *w, uint32_t conn, int64_t time_ns,
                                  const void *data, size_t len);

/* Chunks written and channels added so far. */
BAG_API size_t bag_mcap_writer_chunk_count(const bag_mcap_writer_t *w);
BAG_API size_t bag_mcap_writer_channel_count(const bag_mcap_writer_t *w);

/*
 * Finish: the last chunk, Data End, the summary and its offsets, Footer and
 * magic; sync and put the file in place. Returns 0 or a failure code as for
 * bag_writer_close() (BAG_EIO "exists" with no_replace). Call once.
 */
BAG_API int bag_mcap_writer_close(bag_mcap_writer_t *w);

/* Free; accepts NULL. An unclosed writer's temporary file is removed. */
BAG_API void bag_mcap_writer_free(bag_mcap_writer_t *w);

/* The last failure as one line naming the file; "out of memory" for NULL. */
BAG_API const struct bag_error *bag_mcap_writer_error(const bag_mcap_writer_t *w);

#ifdef __cplusplus
}
#endif

#endif
