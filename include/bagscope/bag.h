/*
 * bagscope/bag.h - opening a bag for reading: its header, connections and
 * chunk infos, and chunks fetched on demand through a bounded cache.
 *
 * bag_open() reads only the version line, the bag header and the index
 * section at the end of the file (connection and chunk-info records); nothing
 * in the chunk section is read until a caller asks for it. The file is opened
 * read-only and never written.
 *
 * A bag_t is used by one thread at a time; a second thread opens its own.
 */
#ifndef BAGSCOPE_BAG_H
#define BAGSCOPE_BAG_H

#include <bagscope/common.h>

typedef struct bag bag_t;

/* Options for bag_open(); NULL means all defaults. */
struct bag_open_opts {
	size_t cache_bytes; /* bound on decompressed chunks kept; 0 = 64 MiB */
};

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
 * that bag_errmsg(*out) can be read; the caller always calls bag_close().
 * Returns 0, BAG_EIO, BAG_ENOTBAG (no "#ROSBAG V" line), BAG_EVERSION,
 * BAG_ECORRUPT or BAG_ETRUNCATED (with the byte offset in the message), or
 * BAG_ENOINDEX (header or index section missing or unusable: an unclosed
 * recording; see bag_open_recover()).
 */
BAG_API int bag_open(bag_t **out, const char *path, const struct bag_open_opts *opts);

/* Close and free; accepts NULL. Borrowed pointers from the bag die here. */
BAG_API void bag_close(bag_t *bag);

/* The last failure's one-line message ("" if none); valid until the next call. */
BAG_API const char *bag_errmsg(const bag_t *bag);

/* The path given to bag_open(), borrowed. */
BAG_API const char *bag_path(const bag_t *bag);

/* File size in bytes. */
BAG_API uint64_t bag_file_size(const bag_t *bag);

/* Format version, e.g. 2 and 0. */
BAG_API void bag_version(const bag_t *bag, int *major, int *minor);

/* Number of connections, and connection i (0 <= i < count) in id order. */
BAG_API size_t bag_conn_count(const bag_t *bag);
BAG_API const struct bag_connection *bag_conn(const bag_t *bag, size_t i);

/* The connection with file id conn_id, or NULL. */
BAG_API const struct bag_connection *bag_conn_by_id(const bag_t *bag, uint32_t conn_id);

/* Messages in the bag, from the chunk infos. */
BAG_API uint64_t bag_message_count(const bag_t *bag);

/*
 * Earliest and latest message time over all chunks (the true min and max,
 * whatever the chunk order). Both 0 when the bag has no messages.
 */
BAG_API int64_t bag_start_time(const bag_t *bag);
BAG_API int64_t bag_end_time(const bag_t *bag);

/* Number of chunks, in file order. */
BAG_API size_t bag_chunk_count(const bag_t *bag);

/*
 * Chunk i's time range and its message count on connection conn_index
 * (bag_conn() order), from its chunk info: no I/O.
 */
BAG_API void bag_chunk_span(const bag_t *bag, size_t i, int64_t *start_ns, int64_t *end_ns);
BAG_API uint32_t bag_chunk_conn_count(const bag_t *bag, size_t i, size_t conn_index);

/*
 * Chunk i's facts. Reads the chunk record's header (a few bytes at
 * info.pos, once; never the data) to fill compression and sizes.
 * Returns 0 or an error (BAG_ECORRUPT, BAG_EIO, BAG_EUNSUPP ...).
 */
BAG_API int bag_chunk_stat(bag_t *bag, size_t i, struct bag_chunk_info *info);

/*
 * Chunk i's decompressed data, from the cache or read and decompressed now.
 * On success *data points at *len bytes and the chunk is pinned: it stays in
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

#endif
