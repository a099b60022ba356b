/*
 * bagscope/write.h - writing bags (format 2.0), as rosbag's Bag in write
 * and append modes: choose compression and chunk threshold, write messages
 * (described by a connection spec, or on a connection given its whole
 * header, or copied from a reader without decoding), close.
 *
 * A new bag is written to a temporary file beside the target and renamed
 * onto it by a successful bag_writer_close(), so a failure never leaves a
 * half file under the target name. An appended bag is written in place
 * (see bag_writer_opts.append). Full chunks are compressed on a pool of
 * threads and written in order. Output reads back in the ROS tools.
 */
#ifndef BAGSCOPE_WRITE_H
#define BAGSCOPE_WRITE_H

#include <bagscope/view.h>

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
	unsigned threads;                 /* compression threads: 0 = one per
	                                     online core, 1 = compress on the
	                                     calling thread */
	bool no_replace;                  /* close fails (BAG_EIO, "exists") rather
	                                     than replace a file at path */
	bool append;                      /* add to the bag at path (below) */
};
#define BAG_WRITER_OPTS_INIT { sizeof(struct bag_writer_opts), BAG_COMPRESSION_NONE, 0, 0, false, false }

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
 * Append (opts->append): path must be an indexed bag 2.0 (a bag that needs
 * recovery is refused with BAG_ENOINDEX: export it first). Its connections
 * and chunks are kept; a write with a spec equal to one of its connections
 * goes on that connection. Before anything is added, its bag header is
 * rewritten with index_pos 0 and synced, then its index section is cut off;
 * chunks are appended in place and bag_writer_close() writes the new index
 * section and header. So a crash or a failed close leaves a bag without an
 * index whose chunks recovery (bag_open) reads, the old ones and those
 * written since; bag_writer_free() without a close leaves it that way too.
 *
 * *out is set even on failure (to NULL only for BAG_ENOMEM) so that
 * bag_writer_error() can be read; always bag_writer_free() it.
 * Returns 0, BAG_EIO (the message names the file and errno's text),
 * BAG_EINVAL (no path, unknown compression, opts->size not set or unknown
 * options), BAG_EUNSUPP (lz4 in a build without liblz4) or BAG_ENOMEM; in
 * append mode also what bag_open() returns, BAG_ENOINDEX, and BAG_EVERSION
 * for a bag that is not 2.0.
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
 * the same code and bag_writer_error() keeps describing the first failure.
 */
BAG_API int bag_writer_write(bag_writer_t *w, const struct bag_conn_spec *conn,
                             int64_t time_ns, const void *data, size_t len);

/*
 * Add a connection given its whole connection header: nfields fields in the
 * order given (names without '=', values any bytes), written as they are,
 * under topic (the connection record's topic; the header's own topic field,
 * if any, is kept as given). A connection whose topic and header equal one
 * added before, or one of an appended bag, is that connection. Its record
 * goes into the chunk of its first message. *conn is the handle for
 * bag_writer_write_conn() (not necessarily the file's connection id).
 * Returns 0; BAG_EINVAL for a bad argument (writer unchanged); BAG_ENOMEM
 * (sticky, as for bag_writer_write()).
 */
BAG_API int bag_writer_add_conn(bag_writer_t *w, const char *topic, const struct bag_kv *fields,
                                size_t nfields, uint32_t *conn);

/*
 * Append one message on connection conn (from bag_writer_add_conn()); as
 * bag_writer_write() otherwise, and cheaper: no lookup by spec.
 */
BAG_API int bag_writer_write_conn(bag_writer_t *w, uint32_t conn, int64_t time_ns, const void *data,
                                  size_t len);

/*
 * Copy a message read from a bag (m->conn and m->data set, as
 * bag_view_read() or a scan with keep_data gives it) without decoding it:
 * its bytes and time as they are, on a connection with m->conn's whole
 * header (added at its first copy, found by pointer afterwards: m->conn
 * must stay valid while the writer is open). Returns as bag_writer_write().
 */
BAG_API int bag_writer_copy(bag_writer_t *w, const struct bag_message *m);

/* Chunks and connections written so far (for a result summary). */
BAG_API size_t bag_writer_chunk_count(const bag_writer_t *w);
BAG_API size_t bag_writer_conn_count(const bag_writer_t *w);

/*
 * Finish the bag: write the last chunk and its index, the connection and
 * chunk info records, rewrite the bag header with index_pos and the counts,
 * flush and fsync, and rename the file into place (an appended bag stays
 * where it is). A bag with no messages is valid (no chunks). Call once, then
 * bag_writer_free().
 *
 * Returns 0; BAG_EIO, BAG_ENOMEM or BAG_ECOMPRESS (the target is then
 * untouched and free removes the temporary file); BAG_EIO with "exists" when
 * no_replace is set and path exists; a broken writer's code; BAG_EINVAL if
 * already closed.
 */
BAG_API int bag_writer_close(bag_writer_t *w);

/*
 * Free the writer; accepts NULL. If bag_writer_close() did not succeed, the
 * temporary file is deleted and nothing appears at the target path (an
 * appended bag is left without its index, for recovery).
 */
BAG_API void bag_writer_free(bag_writer_t *w);

/*
 * The last failure as one line naming the file ("" if none). Borrowed: valid
 * until the next call on w or bag_writer_free(). NULL w (bag_writer_open()
 * out of memory) gives "out of memory".
 */
BAG_API const struct bag_error *bag_writer_error(const bag_writer_t *w);

#ifdef __cplusplus
}
#endif

#endif
