/*
 * bagscope/write.h - writing bags (format 2.0), as rosbag's Bag in write
 * mode: choose compression and chunk threshold, write messages, close.
 *
 * The bag is written to a temporary file beside the target and renamed onto
 * it by a successful bag_writer_close(), so a failure never leaves a half
 * file under the target name. Output reads back in the ROS tools.
 */
#ifndef BAGSCOPE_WRITE_H
#define BAGSCOPE_WRITE_H

#include <bagscope/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A bag being written; opaque. Created by bag_writer_open(), freed by bag_writer_free(). */
typedef struct bag_writer bag_writer_t;

/*
 * Options for bag_writer_open(); NULL means all defaults. Start from
 * BAG_WRITER_OPTS_INIT (size set, the rest zero = defaults): as for
 * bag_open_opts, size lets fields be added without breaking callers, and
 * bag_writer_open() refuses a size of 0 or non-zero fields it does not know.
 */
struct bag_writer_opts {
	size_t size;                      /* sizeof(struct bag_writer_opts) */
	enum bag_compression compression; /* default BAG_COMPRESSION_NONE */
	uint32_t chunk_threshold;         /* a chunk is closed once its uncompressed
	                                     length exceeds this (as rosbag);
	                                     0 = 768 KiB */
};
#define BAG_WRITER_OPTS_INIT { sizeof(struct bag_writer_opts), BAG_COMPRESSION_NONE, 0 }

/*
 * What identifies a connection. All fields are compared: messages whose
 * specs are equal share a connection; a new spec gets the next connection id
 * (0, 1, 2, ...) in order of first use. The writer copies what it keeps, so
 * the strings need only live for the call. callerid NULL means the
 * connection header has no callerid field (distinct from ""). The connection
 * header written is callerid (if any), latching ("1"/"0"), md5sum,
 * message_definition, topic and type.
 */
struct bag_conn_spec {
	const char *topic;        /* required */
	const char *type;         /* required, e.g. "std_msgs/String" */
	const char *md5sum;       /* required, 32 hex digits as ROS gives them */
	const char *definition;   /* required: message_definition, may be "" */
	const char *callerid;     /* NULL = none */
	bool latching;
};

/*
 * Start writing a bag that will be called path once bag_writer_close()
 * succeeds. Until then it is written to path.tmp-XXXXXX in the same
 * directory (mode 0666 less the umask), which bag_writer_free() removes if
 * the bag was not closed; an existing file at path is replaced only by the
 * final rename.
 *
 * *out is set even on failure (to NULL only for BAG_ENOMEM) so that
 * bag_writer_errmsg() can be read; always bag_writer_free() it.
 * Returns 0, BAG_EIO (the message names the file and errno's text),
 * BAG_EINVAL (no path, unknown compression, opts->size not set or unknown
 * options), BAG_EUNSUPP (lz4 in a build
 * without liblz4) or BAG_ENOMEM.
 */
BAG_API int bag_writer_open(bag_writer_t **out, const char *path,
                            const struct bag_writer_opts *opts);

/*
 * Append one message: len bytes of serialized data (copied; may be NULL when
 * len is 0) stamped time_ns on the connection conn describes. time_ns must be
 * >= 0 with its seconds within uint32. Times need not be in order: chunk
 * times are the min and max of their messages, and each chunk's index keeps a
 * connection's messages in time order, equal times in write order (as
 * rosbag's writer does).
 *
 * Returns 0; BAG_EINVAL for a bad argument (the writer is unchanged and may
 * be used further) or a writer that is closed; BAG_EIO, BAG_ENOMEM or
 * BAG_ECOMPRESS when writing a full chunk out failed. After any failure other
 * than BAG_EINVAL the writer is broken: every later write or close returns
 * the same code and bag_writer_errmsg() keeps describing the first failure.
 */
BAG_API int bag_writer_write(bag_writer_t *w, const struct bag_conn_spec *conn,
                             int64_t time_ns, const void *data, size_t len);

/*
 * Finish the bag: write the last chunk and its index, the connection and
 * chunk info records, rewrite the bag header with index_pos and the counts,
 * flush and fsync, and rename the file into place. A bag with no messages is
 * valid (no chunks). Call once, then bag_writer_free().
 *
 * Returns 0; BAG_EIO, BAG_ENOMEM or BAG_ECOMPRESS (the target is then
 * untouched and free removes the temporary file); a broken writer's code;
 * BAG_EINVAL if already closed.
 */
BAG_API int bag_writer_close(bag_writer_t *w);

/*
 * Free the writer; accepts NULL. If bag_writer_close() did not succeed, the
 * temporary file is deleted and nothing appears at the target path.
 */
BAG_API void bag_writer_free(bag_writer_t *w);

/*
 * The last failure as one line naming the file ("" if none). Borrowed: valid
 * until the next call on w or bag_writer_free(). NULL w (bag_writer_open()
 * out of memory) gives "out of memory".
 */
BAG_API const char *bag_writer_errmsg(const bag_writer_t *w);

#ifdef __cplusplus
}
#endif

#endif
