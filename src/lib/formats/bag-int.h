/*
 * bag-int.h - the bag handle's insides, shared by bag.c (open, index
 * section), chunk.c (chunk headers, decompression, cache), index.c
 * (timeline) and recover.c (scanning a bag whose index is unusable).
 * Never installed.
 */
#ifndef BAGSCOPE_BAG_INT_H
#define BAGSCOPE_BAG_INT_H

#include <bagscope/bag.h>
#include <bagscope/record.h>
#include "lib/formats/codec-int.h"
#include "lib/formats/record-int.h"
#include "lib/io/source-int.h"

#define NO_CHUNK UINT32_MAX
#define INDEX_ENTRY_BYTES 12          /* one index-data entry: time, offset */

/* A connection count inside one chunk (a chunk info's data). */
struct chunk_conn {
	uint32_t conn;   /* dense connection index (bag_connection.index) */
	uint32_t count;  /* messages on it in the chunk */
};

/* One chunk: its chunk info, its record header once read, its cache slot. */
struct chunk {
	uint64_t pos;             /* chunk record offset */
	int64_t start_ns;         /* chunk info start_time */
	int64_t end_ns;           /* chunk info end_time */
	uint64_t count;           /* messages, sum of its chunk_conns */
	uint32_t conn_first;      /* first of its entries in bag->chunk_conns */
	uint32_t conn_n;          /* how many */
	uint64_t index_end;       /* end of the index-data region after it */
	bool no_index;            /* recovered without index records: entries
	                             come from walking its data (recover.c) */
	bool partial;             /* recovered from a cut-off stream: size is the
	                             decodable prefix, the rest is ignored */
	bool estimated;           /* its counts are the reader's estimate (rosbag2
	                             sqlite3 spans): the timeline takes the rows it
	                             finds, check does not hold the data to them */
	bool stat_loaded;         /* the fields below are valid */
	enum bag_compression compression;
	uint32_t size;            /* uncompressed bytes */
	uint32_t data_len;        /* compressed bytes */
	uint64_t span_size;       /* a read_span format's uncompressed bytes as it counts
	                             them (0: data_len), for bag_chunk_stat() */
	uint64_t data_pos;        /* offset of the data */
	uint8_t *buf;             /* decompressed data, or NULL if not cached */
	size_t buf_cap;           /* bytes allocated at buf (>= size + 1) */
	uint32_t pins;            /* callers holding buf */
	uint32_t lru_prev;        /* cache LRU list, NO_CHUNK at the ends */
	uint32_t lru_next;
};

struct bag_reader;

struct bag {
	char *path;
	char *temp_path;          /* a zstd-compressed file's decompressed copy that src reads
	                             (bag.c), removed at the last close; NULL for most */
	struct bag_source *src;   /* where the bytes come from (io/source-int.h) */
	struct bag_codec_ctx codec;   /* decompression contexts, this handle's own */
	uint64_t file_size;
	int major, minor;
	uint64_t index_pos;       /* from the bag header */
	uint64_t body_pos;        /* first record after the bag header */
	uint32_t hdr_conn_count;  /* connections the bag header promises */
	uint32_t hdr_chunk_count; /* chunks the bag header promises */
	struct bag_connection *conns;   /* sorted by id */
	size_t nconns;
	struct chunk *chunks;     /* sorted by pos */
	size_t nchunks;
	struct chunk_conn *chunk_conns;
	size_t nchunk_conns;
	uint64_t message_count;
	bool counts_estimated;    /* message_count and the connections' are estimates (bag_counts_exact()) */
	int64_t start_ns, end_ns;
	size_t cache_limit;       /* bytes */
	size_t cache_bytes;       /* bytes held in chunk bufs */
	uint32_t lru_head;        /* most recently used */
	uint32_t lru_tail;
	uint8_t *spare;           /* a dropped chunk buffer kept for the next load */
	size_t spare_cap;
	uint8_t *raw;             /* compressed bytes being read (scratch) */
	size_t raw_cap;
	size_t stat_ahead_lo;     /* chunks in [stat_ahead_lo, stat_ahead) had their headers prefetched */
	size_t stat_ahead;
	size_t region_batch;      /* regions the last prefetch asked for */
	size_t region_next;       /* the chunk whose index region a walk reads next */
	size_t region_ahead;      /* chunks below this had their index regions prefetched */
	uint64_t cache_loads;
	uint64_t read_bytes, reads; /* what bag_read_at() read for this handle (bag_read_totals) */
	bool verify_sums;         /* bag_check() reads: a reader checks the sums its chunks carry */
	uint64_t cache_hits;
	bag_progress_fn progress; /* from bag_open_opts */
	void *progress_arg;
	struct bag_recovery recovery;   /* reason and losses' what point below */
	char *recovery_reason;
	struct bag_loss *losses;
	size_t nlosses;
	char **warnings;          /* at most BAG_WARNINGS_MAX */
	size_t nwarnings;         /* all warnings, kept or not */
	int *shared;              /* handles sharing path, conns, chunk_conns, losses,
	                             warnings and fmt_state (bag_dup); NULL while alone */
	const struct bag_reader *fmt;   /* its format's reader (reader-int.h) */
	void *fmt_state;          /* that reader's own facts, shared by dups */
	char format_name[32];     /* "2.0", "1.2 (unindexed)", ... */
	bool relative;            /* times are durations since the recording started */
	struct bag_error err;      /* the last failure (bag_fail) */
};

/*
 * The modules below bag.c, bottom first; each calls only those above it in
 * this list (and record.c, codec.c): handle.c, conn.c, recover.c, the
 * format readers (reader-int.h), chunk.c. bag.c (open, dup, close) sits on
 * all of them.
 */

/* ---- handle.c: the open file, its errors, warnings and totals ---- */

/*
 * Record a failure on the handle: "PATH: at byte OFF: TEXT" (the offset part
 * left out when off is UINT64_MAX). Returns code, for `return bag_fail(...)`.
 */
int bag_fail(bag_t *bag, int code, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * Keep a warning "PATH: at byte OFF: TEXT" (offset left out for UINT64_MAX).
 * Returns 0 or BAG_ENOMEM.
 */
int bag_warn(bag_t *bag, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Read exactly len bytes at off through the bag's source: the one call the
 * library reads through. BAG_EIO / BAG_ETRUNCATED (or a remote source's
 * code) with a message.
 */
int bag_read_at(bag_t *bag, uint64_t off, void *buf, size_t len);

/* File bytes at hand (bag_bytes_at): mapped from the page cache, or read into a buffer. */
struct bag_bytes {
	const uint8_t *p;         /* the bytes; borrowed until bag_bytes_free() */
	void *base;               /* the mapping, or NULL */
	size_t base_len;
	uint8_t *own;             /* the buffer read into (len + 1 bytes), or NULL */
};

/*
 * len bytes at off into *b without a copy where the source can map them
 * (a local file, BAG_MAP_MIN bytes or more), else read into a buffer of
 * len + 1 bytes. The same checks and failures as bag_read_at(); on failure
 * *b holds nothing. Free with bag_bytes_free() (accepts an empty *b).
 */
#define BAG_MAP_MIN ((size_t)256 << 10)
int bag_bytes_at(bag_t *bag, uint64_t off, size_t len, struct bag_bytes *b);
void bag_bytes_free(bag_t *bag, struct bag_bytes *b);

/* Hint that these spans are read next (a remote source merges them). */
void bag_prefetch(bag_t *bag, const struct bag_span *spans, size_t n);
/* These bytes will be read soon (a remote source fetches them in the background). */
void bag_read_ahead(bag_t *bag, uint64_t off, uint64_t len);
/* Those bytes handed over in a malloc'd buffer of len + 1 bytes, when fetched ahead; or NULL. */
uint8_t *bag_take_at(bag_t *bag, uint64_t off, size_t len);
/* A malloc'd buffer of cap bytes (0: unknown) no longer needed: freed, or kept for reuse by a remote source. */
void bag_give_back(bag_t *bag, uint8_t *buf, size_t cap);

/* Whether the bag's bytes are the local file st describes. */
bool bag_is_file(const bag_t *bag, const struct stat *st);

/* Add a linked chunk's messages to the bag's count, start and end. */
void bag_count_chunk(bag_t *bag, const struct chunk *ch);

/* ---- conn.c: connection records ---- */

/* Find the connection index for a file conn id; -1 if none (O(log n)). */
long bag_conn_lookup(const bag_t *bag, uint32_t conn_id);
/* The index of the chunk whose record is at pos (chunks are sorted by it), or -1. */
long bag_chunk_lookup(const bag_t *bag, uint64_t pos);

/* Where connection index conn is among chunk i's chunk_conns (sorted by it): k from conn_first, or -1. */
long bag_chunk_conn_slot(const bag_t *bag, size_t i, uint32_t conn);

/* Sort conns by id and set each one's index. */
void bag_conns_sort(bag_t *bag);

/* Parse a connection record (op 7) found at file offset off into *c. */
int bag_parse_connection(bag_t *bag, const struct bag_record *rec, uint64_t off,
                         struct bag_connection *c);

/*
 * Build c (id, topic, and the header fields kv[0..n) in order, copied) in
 * the one-allocation layout bag_parse_connection() makes, so that
 * bag_conn_free() frees it. Returns 0 or BAG_ENOMEM.
 */
int bag_conn_build(struct bag_connection *c, uint32_t id, const char *topic, const struct bag_kv *kv, size_t n);

/* Free what bag_parse_connection() allocated in c. */
void bag_conn_free(struct bag_connection *c);

/*
 * Drop every connection and chunk, and the totals (before a recovery scan,
 * and at close). The chunk cache must be empty.
 */
void bag_reset_index(bag_t *bag);

/* ---- chunk.c: chunk headers, the cache ---- */

/* Read chunk i's record header if not yet done (fills the stat fields). */
int chunk_load_stat(bag_t *bag, size_t i);

/* Free every cached chunk buffer (at close). */
void chunk_cache_clear(bag_t *bag);


/* ---- recover.c ---- */

/*
 * Rebuild connections and chunks by scanning the file from byte start (the
 * first record after the bag header). reason says why the index was not
 * used. The bag must have no connections or chunks. Returns 0, BAG_ENOMEM,
 * BAG_EIO or BAG_ECANCELED.
 */
int bag_recover(bag_t *bag, uint64_t start, const char *reason);

/*
 * The first record in (from, to) that parses as a chunk record (the scan's
 * forward search): *found is its offset, or to if there is none. Returns 0,
 * BAG_ENOMEM or BAG_EIO.
 */
int bag_find_chunk(bag_t *bag, uint64_t from, uint64_t to, uint64_t *found);

#endif
