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

typedef struct bag_writer bag_writer_t;

/* Options for bag_writer_open(); NULL means all defaults. */
struct bag_writer_opts {
	enum bag_compression compression; /* default BAG_COMPRESSION_NONE */
	uint32_t chunk_threshold;         /* uncompressed bytes per chunk; 0 = 768 KiB */
};

/*
 * What identifies a connection. Strings are copied; NULL callerid means the
 * connection header has none. Messages with an equal spec share a
 * connection; a new spec gets the next connection id (0, 1, 2, ...).
 */
struct bag_conn_spec {
	const char *topic;
	const char *type;
	const char *md5sum;
	const char *definition;   /* message_definition */
	const char *callerid;
	bool latching;
};

/*
 * Start writing a bag that will be called path. *out is set even on
 * failure (unless BAG_ENOMEM) so bag_writer_errmsg() can be read; always
 * bag_writer_free() it. Returns 0, BAG_EIO (naming the path and errno's
 * text), BAG_EINVAL or BAG_EUNSUPP (lz4 without liblz4).
 */
BAG_API int bag_writer_open(bag_writer_t **out, const char *path,
                            const struct bag_writer_opts *opts);

/*
 * Append one message: len bytes of serialized data received at time_ns
 * (0 <= time_ns, seconds within uint32) on the connection conn describes.
 * Times need not be in order. Returns 0, BAG_EINVAL, BAG_EIO, BAG_ENOMEM.
 */
BAG_API int bag_writer_write(bag_writer_t *w, const struct bag_conn_spec *conn,
                             int64_t time_ns, const void *data, size_t len);

/*
 * Finish: write the last chunk and its index, the connections, the chunk
 * infos and the final bag header, then rename the file into place.
 * Returns 0 or BAG_EIO/BAG_ENOMEM; on failure the target is untouched.
 * Call once; then bag_writer_free().
 */
BAG_API int bag_writer_close(bag_writer_t *w);

/* Free; accepts NULL. Deletes the temporary file if not closed successfully. */
BAG_API void bag_writer_free(bag_writer_t *w);

/* The last failure's one-line message ("" if none). */
BAG_API const char *bag_writer_errmsg(const bag_writer_t *w);

#endif
