/*
 * bagscope/view.h - the timeline and views over it (the rosbag API's View,
 * Query and MessageInstance, in C).
 *
 * A timeline puts every message of one or more bags in time order, ties
 * broken by connection (bag order, then connection id) and then by position
 * in the file. It is built from the chunk infos alone: row counts are known
 * at once, and a chunk's index-data records are read only when a row in it
 * is first needed (or by bag_timeline_load()). Chunks whose time ranges
 * overlap (or touch) are loaded and merged together as one group, so the
 * order is exact. A loaded message costs 16 bytes.
 *
 * Damaged index data is worked around, not trusted: a chunk whose index
 * records disagree with its chunk info (or do not parse), or whose entries
 * turn out not to match its messages when it is first read, is indexed from
 * its data instead, with a warning. Counts are therefore a promise until a
 * group is loaded: loading may correct them, and bag_timeline_count() and
 * bag_view_count() can change after a load or a read (a caller reading every
 * row asks for the count again as it goes).
 *
 * A view selects connections (by topic, type or an explicit mask) and an
 * inclusive time range, and numbers the selected messages 0..count-1.
 *
 * Lifetimes: bags outlive their timeline, a timeline outlives its views.
 * None of these objects is thread-safe; use one per thread.
 */
#ifndef BAGSCOPE_VIEW_H
#define BAGSCOPE_VIEW_H

#include <bagscope/bag.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bag_timeline bag_timeline_t;
typedef struct bag_view bag_view_t;

/*
 * What a view selects. Start from bag_query_init() (everything), then set
 * what you need. A connection is selected when it matches one of topics (if
 * any are given) and one of types (if any are given); conn_mask, when set,
 * replaces both: conn_mask[i] for timeline connection i.
 */
struct bag_query {
	size_t size;                  /* sizeof(struct bag_query): the growth rule, common.h */
	int64_t start_ns;             /* first time included (BAG_TIME_MIN: none) */
	int64_t end_ns;               /* last time included (BAG_TIME_MAX: none) */
	const char *const *topics;    /* TopicQuery */
	size_t ntopics;
	const char *const *types;     /* TypeQuery */
	size_t ntypes;
	const bool *conn_mask;        /* length bag_timeline_conn_count() */
	/*
	 * The API review's Query: a caller's test of a connection (topic, type,
	 * md5sum, definition, callerid, latching, the whole header in fields),
	 * applied on top of the selection above; NULL: none. Called once per
	 * connection by bag_view_open(), with conn_arg.
	 */
	bool (*conn_pred)(void *conn_arg, const struct bag_connection *c);
	void *conn_arg;
};

/* The query that selects everything, for `struct bag_query q = BAG_QUERY_INIT;`. */
#define BAG_QUERY_INIT { sizeof(struct bag_query), BAG_TIME_MIN, BAG_TIME_MAX, NULL, 0, NULL, 0, NULL, NULL, NULL }

/*
 * Fill q with the query that selects everything (BAG_QUERY_INIT). Always
 * start from one of them: the struct may grow fields (common.h's rule).
 */
BAG_API void bag_query_init(struct bag_query *q);

/*
 * One message of a view: what the index gives (bag_view_entry) and, after
 * bag_view_read, its bytes. data stays valid until the next
 * bag_view_read() on the same view or bag_view_free().
 */
struct bag_message {
	uint64_t row;                       /* row in the view */
	int64_t time_ns;                    /* receipt time */
	size_t bag_index;                   /* which of the timeline's bags */
	const struct bag_connection *conn;  /* borrowed from that bag */
	uint32_t conn_index;                /* timeline connection index */
	size_t chunk;                       /* chunk index in its bag */
	uint32_t offset;                    /* record offset in the chunk's data */
	const uint8_t *data;                /* message bytes (bag_view_read only) */
	uint32_t size;                      /* their length */
};

/*
 * A timeline over nbags open bags (borrowed; they must outlive it; bags[0]
 * first in ties). Returns 0, BAG_ENOMEM or BAG_EINVAL. On failure *out may
 * be set; bag_timeline_free() it.
 */
BAG_API int bag_timeline_open(bag_timeline_t **out, bag_t *const *bags, size_t nbags);

/* Free; accepts NULL. */
BAG_API void bag_timeline_free(bag_timeline_t *tl);

/* The last failure's message (""): names the bag, byte offset and problem. */
BAG_API const struct bag_error *bag_timeline_error(const bag_timeline_t *tl);

/*
 * Index damage worked around so far, one line each ("PATH: at byte N:
 * ..."), in the order met; at most BAG_WARNINGS_MAX are kept, the count
 * counts all. Borrowed until bag_timeline_free(); NULL past the end.
 */
BAG_API size_t bag_timeline_warning_count(const bag_timeline_t *tl);
BAG_API const char *bag_timeline_warning(const bag_timeline_t *tl, size_t i);

/* Messages in all bags, from the chunk infos until groups are loaded. */
BAG_API uint64_t bag_timeline_count(const bag_timeline_t *tl);

/* Bags, and the connections of all bags (bag order, then id order). */
BAG_API size_t bag_timeline_bag_count(const bag_timeline_t *tl);
BAG_API bag_t *bag_timeline_bag(const bag_timeline_t *tl, size_t i);
BAG_API size_t bag_timeline_conn_count(const bag_timeline_t *tl);
BAG_API const struct bag_connection *bag_timeline_conn(const bag_timeline_t *tl, size_t i,
                                                       size_t *bag_index);

/* Earliest and latest message over all bags (0, 0 if none). */
BAG_API int64_t bag_timeline_start(const bag_timeline_t *tl);
BAG_API int64_t bag_timeline_end(const bag_timeline_t *tl);

/*
 * Load index groups until at least max_rows more rows are loaded (0: all).
 * Returns 1 when everything is loaded, 0 when more remains, or an error.
 * Lets a caller load in bounded steps with progress.
 */
BAG_API int bag_timeline_load(bag_timeline_t *tl, uint64_t max_rows);

/* Rows loaded so far, and bytes their entries use. */
/*
 * Every message's record time, from the index alone, gathered per group of
 * connections: group[c] is the group (< ngroups) of timeline connection c
 * for c < bag_timeline_conn_count(tl), or SIZE_MAX to leave it out. On
 * success times[g] is a malloc'd array (free it; NULL when empty) of group
 * g's n[g] times in ascending order. One pass over the chunks' index data
 * (chunks without usable index data are walked, as the timeline does),
 * holding 8 bytes a message and one chunk's entries; the timeline's groups
 * are not loaded. Returns 0 or a BAG_E* code (bag_timeline_error()).
 */
BAG_API int bag_timeline_times(bag_timeline_t *tl, const size_t *group, size_t ngroups, int64_t **times,
                               uint64_t *n);

/*
 * A topic's rate as bagscope gives it (the browser, stats, the Python
 * package; only info --freq keeps rosbag's median): its n - 1 periods over
 * the time from its first message to its last, rostopic hz's average rate
 * over the whole recording. 0 when n < 2 or every message has one time.
 */
BAG_API double bag_rate_hz(uint64_t n, int64_t first_ns, int64_t last_ns);

BAG_API uint64_t bag_timeline_loaded_rows(const bag_timeline_t *tl);
BAG_API size_t bag_timeline_memory(const bag_timeline_t *tl);

/*
 * A view of tl selecting q (NULL: everything). May read the index of the
 * groups at the ends of a time range. Returns 0, BAG_ENOMEM, BAG_EINVAL (q
 * of a size this library cannot read: common.h's growth rule), or a load
 * error; on failure *out may be set for bag_view_error(); free it.
 */
BAG_API int bag_view_open(bag_view_t **out, bag_timeline_t *tl, const struct bag_query *q);

/* Free; accepts NULL. Releases the pinned chunk of the last read. */
BAG_API void bag_view_free(bag_view_t *v);

/* The last failure's message. */
BAG_API const struct bag_error *bag_view_error(const bag_view_t *v);

/* Rows in the view. */
BAG_API uint64_t bag_view_count(const bag_view_t *v);

/* Whether timeline connection i is selected by the view. */
BAG_API bool bag_view_selects(const bag_view_t *v, size_t conn_index);

/*
 * Row's index facts (no chunk data is read; its index group may be).
 * Returns 0, BAG_EINVAL (row >= count) or a load error.
 */
BAG_API int bag_view_entry(bag_view_t *v, uint64_t row, struct bag_message *m);

/*
 * Whether bag_view_entry(v, row) finds the row's index already loaded
 * (true), or would read it from the bag (false); *group is the row's
 * timeline group for bag_timeline_warm(). A row past the end: true.
 */
BAG_API bool bag_view_row_loaded(bag_view_t *v, uint64_t row, size_t *group);

/*
 * Read, through bags (a bag_dup() of each of tl's bags, in tl's order, used
 * by the calling thread only), what loading timeline group `group` reads:
 * its chunks' headers and index regions. Changes nothing in tl, so another
 * thread may call it while tl is in use; for a URL's bag the bytes are then
 * in the block cache its dups share, and the load reads no network. 0 or
 * the first read failure (on bags[...]).
 */
BAG_API int bag_timeline_warm(const bag_timeline_t *tl, size_t group, bag_t *const *bags);

/*
 * Row's facts and bytes: fetches and decompresses its chunk if needed and
 * checks that the record there is a message (op 2) of the expected
 * connection and time. Returns 0, BAG_EINVAL, BAG_ECORRUPT, BAG_ECOMPRESS,
 * BAG_EIO ...
 */
BAG_API int bag_view_read(bag_view_t *v, uint64_t row, struct bag_message *m);

/*
 * The first row at or after time t (count if none), in O(log n).
 * Returns 0 or a load error.
 */
BAG_API int bag_view_seek(bag_view_t *v, int64_t t, uint64_t *row);

/*
 * bag_view_seek() that never reads: 0 with the exact row as it does when
 * the index group holding time t is loaded (or t is past the end); 1 when
 * it is not, with *row that group's first row (where the exact one is, or
 * in a group after it) and *group its timeline group for
 * bag_timeline_warm(); or a negative error code.
 */
BAG_API int bag_view_seek_loaded(bag_view_t *v, int64_t t, uint64_t *row, size_t *group);

/*
 * Read a message by its place, for callers that hold their own bag handle
 * (e.g. a worker thread): the record at offset in chunk must be an op 2 of
 * connection conn_id at time_ns. On success the chunk is pinned: call
 * bag_chunk_unpin(bag, chunk) when done with *data.
 */
BAG_API int bag_message_read(bag_t *bag, size_t chunk, uint32_t offset, uint32_t conn_id,
                             int64_t time_ns, const uint8_t **data, uint32_t *size);

#ifdef __cplusplus
}
#endif

#endif
