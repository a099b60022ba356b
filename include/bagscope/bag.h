/*
 * bagscope/bag.h - opening a bag for reading: its header, connections and
 * chunk infos, and chunks fetched on demand through a bounded cache.
 *
 * bag_open() reads only the version line, the bag header and the index
 * section at the end of the file (connection and chunk-info records); nothing
 * in the chunk section is read until a caller asks for it. The file is opened
 * read-only and never written.
 *
 * Formats: 2.0, and the older 1.2 (indexed or not), 1.1, 1.0 and the
 * headerless version 0, told apart by their first bytes and read into the
 * same connections and chunks (an older bag's message section is cut into
 * uncompressed chunks of a few MiB; its records read as 2.0 messages).
 * Connections of 1.2 are its topics; of 1.1 and older each distinct topic,
 * type and md5sum, with definitions from .msg files (bag_open_opts.msg_path)
 * since those bags carry none. Times are kept as stored: see
 * bag_relative_times().
 *
 * When the index cannot be used (index_pos 0 after a crash, past the end of
 * a truncated copy, or an index section that does not parse), bag_open()
 * recovers instead: it scans the chunk section record by record, taking each
 * chunk's index-data records or, where they are missing, indexing the
 * messages in its data, and fills the same structures. bag_recovery_report()
 * tells what was recovered and what was lost.
 *
 * A bag_t is used by one thread at a time; a second thread takes its own
 * handle from bag_dup(), which shares the index read-only.
 */
#ifndef BAGSCOPE_BAG_H
#define BAGSCOPE_BAG_H

#include <bagscope/common.h>
#include <bagscope/msgdef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bag bag_t;

/*
 * Progress of a long scan (a recovery): done of total bytes. Return 0 to go
 * on, non-zero to cancel (bag_open() then returns BAG_ECANCELED).
 */
typedef int (*bag_progress_fn)(void *arg, uint64_t done, uint64_t total);

/*
 * Options for bag_open(); NULL means all defaults. Start from
 * BAG_OPEN_OPTS_INIT (size set, the rest zero = defaults) and set what you
 * need: size lets fields be added without breaking callers built against an
 * older header (their missing fields take defaults); bag_open() refuses a
 * size of 0, and non-zero fields it does not know.
 */
struct bag_open_opts {
	size_t size;               /* sizeof(struct bag_open_opts) */
	size_t cache_bytes;        /* bound on decompressed chunks kept; 0 = 64 MiB */
	bool no_recover;           /* fail with BAG_ENOINDEX rather than scan */
	bag_progress_fn progress;  /* called during a recovery scan, or the scan of a bag
	                              older than 2.0 without an index; may be NULL */
	void *progress_arg;        /* passed to progress */
	/*
	 * Directories of .msg files, for bags that carry no definitions (1.1
	 * and older) or an empty one: a type pkg/Name is looked up as
	 * DIR/pkg/msg/Name.msg (DIR a package root, such as Debian's
	 * /usr/share or a ROS_PACKAGE_PATH entry), or DIR/msg/Name.msg when DIR
	 * is the package's directory; first found wins. These come first; the
	 * directories of the environment follow them, as every front end finds
	 * them: BAGSCOPE_MSG_PATH, then ROS_PACKAGE_PATH (':'-separated), then
	 * /usr/share (where Debian's ros-*-msgs packages install). Borrowed
	 * during bag_open() only. NULL: only the environment's.
	 */
	const char *const *msg_path;
	size_t msg_path_n;
	/*
	 * A URL's bag (http://, https://, s3://): bound on the bytes kept of
	 * what was fetched (0 = 256 MiB), shared with every bag_dup().
	 */
	size_t remote_cache_bytes;
	bool no_sign_request;      /* s3://: anonymous, no credentials (public buckets) */
	/*
	 * When *cancel changes (another thread adds one, a signal handler sets
	 * it), the remote reads then in flight, of the handle and its dups,
	 * stop with BAG_ECANCELED within 50 ms, even on a stalled connection;
	 * nothing of them is kept, and reads begun after the change run (and
	 * fetch again). While it is negative, every remote read stops at once
	 * (a program quitting). Borrowed for the handle's life, its dups' too;
	 * may be NULL.
	 */
	volatile int *cancel;
	bool msg_path_only;        /* true: msg_path alone, not the environment's directories */
	/*
	 * A URL's bag adds the bytes it fetches here (atomically, from any
	 * thread, its dups' too), for a progress line; borrowed like cancel.
	 */
	uint64_t *fetched;
};
#define BAG_OPEN_OPTS_INIT { sizeof(struct bag_open_opts), 0, false, NULL, NULL, NULL, 0, 0, false, NULL, false, NULL }

/* One connection-header field, as recorded. */
struct bag_kv {
	const char *name;   /* NUL-terminated */
	const char *value;  /* NUL-terminated copy; may hold further NULs */
	size_t value_len;   /* bytes in value, without the terminator */
};

/*
 * A connection, read-only, owned by its bag_t and valid until bag_close().
 * topic is the connection record's topic (where messages were written);
 * the other strings come from the connection header in its data, and are ""
 * when the header lacks them.
 */
struct bag_connection {
	uint32_t id;              /* the conn id used in the file */
	uint32_t index;           /* position in bag_conn() order (by id) */
	const char *topic;
	const char *type;
	const char *md5sum;
	const char *definition;   /* message_definition */
	const char *callerid;
	bool latching;
	size_t nfields;           /* the whole connection header, in file order */
	const struct bag_kv *fields;
	uint64_t message_count;   /* sum over the chunk infos */
	enum bag_encoding encoding; /* its messages' wire format (ROS 1 for bags) */
};

/* A chunk's facts. The first four come from its chunk info (no I/O). */
struct bag_chunk_info {
	uint64_t pos;             /* file offset of the chunk record */
	int64_t start_ns;         /* earliest message */
	int64_t end_ns;           /* latest message */
	uint64_t message_count;
	/* These three need the chunk record's header (bag_chunk_stat()). */
	enum bag_compression compression;
	uint32_t size;            /* uncompressed bytes */
	uint32_t compressed_size; /* data_len */
};

/*
 * Open path read-only. *out is set even on failure (unless BAG_ENOMEM), so
 * that bag_last_error(*out) can be read; the caller always calls bag_close().
 * Returns 0, BAG_EINVAL (opts->size not set, or options this library does
 * not know), BAG_EIO (also for a path that is not a regular file, such as a
 * FIFO: refused at once), BAG_ENOTBAG (no version line of a format it
 * reads, nor a version-0 header), BAG_EVERSION,
 * BAG_ECORRUPT or BAG_ETRUNCATED (with the byte offset in the message),
 * BAG_ENOINDEX (index missing or unusable and opts->no_recover set), or
 * BAG_ECANCELED (the progress callback stopped a recovery scan).
 */
BAG_API int bag_open(bag_t **out, const char *path, const struct bag_open_opts *opts);

/*
 * A second handle on an open bag, for another thread: it shares the index
 * (connections, chunk infos, recovery report, warnings; read-only, freed with
 * the last handle) and has its own file descriptor, chunk cache (bounded as
 * bag's) and error message. No I/O; costs a copy of the chunk table. Call it
 * on the thread that uses bag. Returns 0, BAG_ENOMEM or BAG_EIO; on failure
 * *out may be set: bag_close() it.
 */
BAG_API int bag_dup(bag_t **out, bag_t *bag);

/*
 * Close and free; accepts NULL. Borrowed pointers from the bag die here, or,
 * for a bag with handles from bag_dup(), when its last handle is closed.
 */
BAG_API void bag_close(bag_t *bag);

/*
 * The last failure (code 0 and "" if none; common.h); valid until the next
 * call on bag. For NULL (bag_open() out of memory): BAG_ENOMEM.
 */
BAG_API const struct bag_error *bag_last_error(const bag_t *bag);

/* The path given to bag_open(), borrowed; a URL's password redacted (bag_url_redact). */
BAG_API const char *bag_path(const bag_t *bag);

/* File size in bytes. */
BAG_API uint64_t bag_file_size(const bag_t *bag);

/*
 * Read len bytes of the file as stored at off (a fingerprint of its
 * content, for instance), from wherever the bag is. 0 or a BAG_E* code
 * (BAG_ETRUNCATED past the end), the message on the handle.
 */
BAG_API int bag_read_bytes(bag_t *bag, uint64_t off, void *buf, size_t len);

/* Whether path is a URL bag_open() reads remotely (http://, https://, s3://). */
BAG_API bool bag_is_url(const char *path);

/*
 * Bytes this handle (not its dups) has read from its file or URL so far,
 * and in how many reads: what the format readers, the index and the chunk
 * cache asked for (a URL's block cache may fetch more, see bag_fetched).
 */
BAG_API void bag_read_totals(const bag_t *bag, uint64_t *bytes, uint64_t *reads);

/*
 * path with a URL's password (user:PASSWORD@, or a bare token@) replaced by
 * "***", for showing; a copy of any other path. malloc'd; NULL without memory.
 */
BAG_API char *bag_url_redact(const char *path);

/*
 * Bytes and requests a URL's bag has fetched so far, its dups included
 * (0 and 0 for a local file). Safe to call from another thread.
 */
BAG_API void bag_fetched(const bag_t *bag, uint64_t *bytes, uint64_t *requests);

/*
 * Expand s3://bucket/prefix/GLOB (GLOB as fnmatch(3), '*' not crossing
 * '/') through ListObjectsV2 into the sorted s3:// URLs of the matching
 * objects; free them with bag_url_list_free(). 0, or BAG_E* with *err
 * filled (BAG_ENOTFOUND when nothing matches); err may be NULL.
 */
BAG_API int bag_url_expand(const char *pattern, bool no_sign_request, char ***urls, size_t *n,
                           struct bag_error *err);
BAG_API void bag_url_list_free(char **urls, size_t n);

/* Format version, e.g. 2 and 0 (1 and 2 for 1.2; 0 and 0 for version 0). */
BAG_API void bag_version(const bag_t *bag, int *major, int *minor);

/*
 * The format as `rosbag info` names it: "2.0", "1.2", "1.2 (unindexed)"
 * (read by a scan of its records), "1.1", "1.0" or "0". Borrowed from bag.
 */
BAG_API const char *bag_format(const bag_t *bag);

/*
 * The storage files of a rosbag2 recording when path is its directory or
 * its metadata.yaml: the files metadata.yaml lists (relative_file_paths, a
 * split recording's parts in order), else the directory's .mcap and .db3
 * files by name. Open them together (one timeline) to read the recording.
 * *files (malloc'd, each string too) is NULL with *nfiles 0 when path is
 * neither (an ordinary file: open it as it is). Returns 0, BAG_ENOTFOUND
 * (a directory naming no storage file), BAG_EIO or BAG_ENOMEM, with *err
 * filled (err may be NULL).
 */
BAG_API int bag_rosbag2_files(const char *path, char ***files, size_t *nfiles, struct bag_error *err);

/* An attachment (media_type set) or a metadata record (media_type NULL) of an MCAP file. */
struct bag_file_item {
	const char *name;
	const char *media_type;
	uint64_t size;            /* an attachment's data bytes; a metadata record's bytes */
};

/* What kind of file a handle reads, beyond bag_format(). Borrowed from bag. */
struct bag_file_info {
	const char *container;    /* "bag" (ROS 1, every version), "mcap" */
	const char *profile;      /* MCAP's profile ("ros1", "ros2"); "" for bags */
	const char *library;      /* MCAP's writing library; "" for bags */
	const struct bag_file_item *items;  /* attachments, then metadata records */
	size_t nitems;
};
BAG_API void bag_file_info(const bag_t *bag, struct bag_file_info *out);

/*
 * Whether message times are durations since the recording started rather
 * than dates: bags of version 0, 1.0 and #ROSLOG 1.1, whose writers stored
 * the time elapsed, and whose latest time is before 1973 (10^8 s). Times
 * are returned as stored either way; a front end shows these as offsets.
 */
BAG_API bool bag_relative_times(const bag_t *bag);

/*
 * Whether c has a definition: its header has a message_definition field
 * (which is empty for a message without fields, such as std_msgs/Empty).
 * A bag older than 1.2 whose type's .msg file was not found has none, nor a
 * 1.2 topic whose MSG_DEF was empty: such messages are shown as bytes.
 */
BAG_API bool bag_conn_has_definition(const struct bag_connection *c);

/*
 * Parse c's definition for its encoding (bag_msgdef_parse_as()), so that
 * bag_decode() reads its messages. Same contract as bag_msgdef_parse().
 */
BAG_API int bag_conn_msgdef_parse(bag_msgdef_t **out, const struct bag_connection *c);

/* Number of connections, and connection i (0 <= i < count) in id order. */
BAG_API size_t bag_conn_count(const bag_t *bag);
BAG_API const struct bag_connection *bag_conn(const bag_t *bag, size_t i);

/* The connection with file id conn_id, or NULL. */
BAG_API const struct bag_connection *bag_conn_by_id(const bag_t *bag, uint32_t conn_id);

/* Messages in the bag, from the chunk infos (an estimate while bag_counts_exact() is false). */
BAG_API uint64_t bag_message_count(const bag_t *bag);

/*
 * Whether bag_message_count() and each connection's message_count are
 * exact. They are for every format but one: a rosbag2 .db3 file opened
 * without a metadata.yaml that counts its topics (a lone file, or one file
 * of a split recording) opens from the messages table's indexes alone,
 * reading no row, so until bag_counts_set() its counts are estimates: the
 * table's id range for the file, shared evenly among its topics (every
 * topic then counts at least one message, whether it has any or not). The
 * connections, times, spans and every message read are exact all the same;
 * only these counts wait.
 */
BAG_API bool bag_counts_exact(const bag_t *bag);

/*
 * The exact message count of each connection into per[i] for bag_conn(bag,
 * i) (per holds bag_conn_count(bag) counts). Where bag_counts_exact() is
 * true, a copy of the counts (no I/O); else the reader counts (a .db3: one
 * pass over the messages table's topic_id column, rows without data, a ROS
 * time or a known topic left out as reading leaves them out). On the
 * handle bag_open() gave, before any bag_dup() of it, what was left out is
 * said in a warning for each kind (bag_warning()); a dup counts the same
 * and keeps no warning, so a thread may count on a dup while another reads
 * the bag. bag itself is not changed (bag_counts_set() does that). Returns
 * 0, BAG_ENOMEM or BAG_EIO (bag_last_error() says why).
 */
BAG_API int bag_count_messages(bag_t *bag, uint64_t *per);

/*
 * Make per (bag_count_messages() of bag or of a dup of it) the counts of
 * bag and of its dups: each connection's message_count, bag_message_count(),
 * and bag_counts_exact() true on bag. Connections are shared with the dups:
 * call it on the thread that owns bag while no other thread reads its
 * connections' counts. The chunks' counts (bag_chunk_conn_at()) stay the
 * estimates they were; the rows of a loaded index are exact anyway.
 */
BAG_API void bag_counts_set(bag_t *bag, const uint64_t *per);

/*
 * bag_count_messages() then bag_counts_set() on bag itself, for a caller
 * that wants exact counts before it goes on (nothing to do when
 * bag_counts_exact()). Returns 0, BAG_ENOMEM or BAG_EIO (bag_last_error()
 * says why).
 */
BAG_API int bag_counts_make_exact(bag_t *bag);

/*
 * Earliest and latest message time over all chunks (the true min and max,
 * whatever the chunk order). Both 0 when the bag has no messages.
 */
BAG_API int64_t bag_start_time(const bag_t *bag);
BAG_API int64_t bag_end_time(const bag_t *bag);

/* Number of chunks, in file order. */
BAG_API size_t bag_chunk_count(const bag_t *bag);

/*
 * File offset of chunk i's record (UINT64_MAX past the end), from the index:
 * no I/O, and safe to call from any thread while the bag is open.
 */
BAG_API uint64_t bag_chunk_pos(const bag_t *bag, size_t i);

/*
 * Chunk i's time range, and how many messages it holds on connection
 * conn_index (bag_conn() order; 0 if none), from its chunk info: no I/O,
 * O(log n) in the chunk's connections.
 */
BAG_API void bag_chunk_span(const bag_t *bag, size_t i, int64_t *start_ns, int64_t *end_ns);
BAG_API uint32_t bag_chunk_conn_messages(const bag_t *bag, size_t i, size_t conn_index);

/*
 * Chunk i's connections in its chunk info: how many, and the k-th one's
 * connection index (bag_conn() order) and message count, in ascending
 * connection order. No I/O; a pass over every chunk's connections costs
 * what the chunk infos hold.
 */
BAG_API size_t bag_chunk_conn_n(const bag_t *bag, size_t i);
BAG_API void bag_chunk_conn_at(const bag_t *bag, size_t i, size_t k, size_t *conn_index, uint32_t *count);

/*
 * Chunk i's facts. Reads the chunk record's header (a few bytes at
 * info.pos, once; never the data) to fill compression and sizes.
 * Returns 0 or an error (BAG_ECORRUPT, BAG_EIO, BAG_EUNSUPP ...).
 */
BAG_API int bag_chunk_stat(bag_t *bag, size_t i, struct bag_chunk_info *info);

/*
 * Chunk i's decompressed data, from the cache or read and decompressed now:
 * bag 2.0 records (an older bag's or a rosbag2 bag's messages as such), or
 * for an MCAP file the chunk's own records as they are. On success *data points at *len bytes and the chunk is pinned: it stays in
 * memory until the matching bag_chunk_unpin(). Returns 0, BAG_EIO,
 * BAG_ECORRUPT, BAG_ECOMPRESS, BAG_EUNSUPP (e.g. lz4 without liblz4).
 */
BAG_API int bag_chunk_get(bag_t *bag, size_t i, const uint8_t **data, size_t *len);
BAG_API void bag_chunk_unpin(bag_t *bag, size_t i);

/* Cache figures: bytes held now, the bound, and chunks decompressed so far. */
struct bag_cache_stats {
	size_t bytes;
	size_t limit;
	uint64_t loads;
	uint64_t hits;
};
BAG_API void bag_cache_stats(const bag_t *bag, struct bag_cache_stats *out);

/* One stretch of the file whose messages could not be recovered. */
struct bag_loss {
	uint64_t start;           /* first byte of the stretch */
	uint64_t end;             /* one past its last byte */
	uint64_t chunk_pos;       /* the chunk record it belongs to, or UINT64_MAX */
	const char *what;         /* one line: what was lost and why (borrowed) */
};

/* What bag_open() had to do to read the bag. */
struct bag_recovery {
	bool recovered;           /* opened by scanning, not from the index */
	const char *reason;       /* why the index was not used ("" if it was) */
	uint64_t records_end;     /* end of the last complete record scanned */
	uint64_t trailing_bytes;  /* file size - records_end: bytes not usable */
	size_t chunks;            /* chunks recovered (holding messages) */
	size_t chunks_scanned;    /* of those, indexed from their data */
	size_t chunks_partial;    /* of those, cut short: only a prefix is read */
	size_t chunks_failed;     /* chunks none of whose messages could be read */
	uint64_t messages;        /* messages recovered */
	size_t nlosses;           /* entries for bag_recovery_loss() */
};

/*
 * Fill *out (all zero and recovered false for a bag opened from its index).
 * Strings are borrowed from bag and live until bag_close().
 */
BAG_API void bag_recovery_report(const bag_t *bag, struct bag_recovery *out);

/* Loss i (0 <= i < nlosses) in file order, borrowed; NULL past the end. */
BAG_API const struct bag_loss *bag_recovery_loss(const bag_t *bag, size_t i);

/*
 * Things bag_open() skipped while the rest could be trusted (an unknown op
 * code in the index section, a connection defined twice during a
 * recovery, ...): one line each naming the byte offset. At most
 * BAG_WARNINGS_MAX are kept; bag_warning_count() counts all of them.
 */
#define BAG_WARNINGS_MAX 64
BAG_API size_t bag_warning_count(const bag_t *bag);
BAG_API const char *bag_warning(const bag_t *bag, size_t i);

#ifdef __cplusplus
}
#endif

#endif
