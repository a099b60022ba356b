/*
 * bagscope/scan.h - one pass over every message of a view, on every core.
 *
 * bag_scan() hands the messages of a view to the caller in the view's order
 * (time order). The view's rows are cut into tasks of about one chunk each;
 * a pool of worker threads, each with its own bag handles (bag_dup()) and
 * chunk caches, reads and decompresses the chunks, evaluates the filter and
 * runs the caller's work function on each message. The caller's thread takes
 * the finished tasks back in order and calls emit for every message that
 * passed. Only chunks that hold a selected message are ever read, and memory
 * stays bounded by the caches and the tasks in flight, not by the bag.
 *
 * Two callbacks divide the job: work (optional) runs on the workers, in no
 * particular order, and turns a message into bytes of the caller's choosing
 * (formatted text, a number, nothing); emit runs on the calling thread in
 * order and gets those bytes. A caller that only needs the message bytes
 * sets keep_data and no work.
 */
#ifndef BAGSCOPE_SCAN_H
#define BAGSCOPE_SCAN_H

#include <bagscope/view.h>
#include <bagscope/msgdef.h>
#include <bagscope/print.h>
#include <bagscope/expr.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Runs on a worker thread for each message that passed the filter, with
 * m->data and m->size set and def its connection's parsed definition (when
 * opts.decode; NULL otherwise or when the definition does not parse). It
 * appends what emit should get to out, which may already hold the output
 * of earlier messages of the same task: append only, never rewrite or
 * shorten what was there (emit gets this message's part alone).
 * Returns 0 to emit the message, 1 to drop it, or a negative BAG_E* code:
 * the message is then emitted as failed, with what it appended as the
 * one-line reason. It must be safe to run on several threads at once.
 */
typedef int (*bag_scan_work_fn)(void *arg, const struct bag_message *m, const bag_msgdef_t *def,
                                struct bag_text *out);

/* What emit gets for one message. */
struct bag_scan_item {
	const struct bag_message *m; /* index facts and m->size; m->data when keep_data */
	int rc;                      /* 0, or why the message failed (BAG_E*) */
	const char *text;            /* work's output, or the failure's one line */
	size_t len;                  /* its length */
};

/*
 * Runs on the calling thread, in view order. When the index of a stretch of
 * rows (a group of overlapping chunks) cannot be read, its first row is
 * emitted as failed with m->conn NULL, and the scan goes on after it. A
 * failure to read a chunk is
 * emitted once, on the first of its messages (the others are counted in
 * bag_scan_stats.lost); a failure of work or of the filter on one message is
 * emitted on that message. Return 0 to go on; anything else stops the scan,
 * and bag_scan() returns it (BAG_ECANCELED for a positive value).
 */
typedef int (*bag_scan_emit_fn)(void *arg, const struct bag_scan_item *it);

/*
 * Optional per-chunk hooks, for checks that look at a chunk as a whole.
 * chunk runs on a worker once for each chunk the scan reads, with the
 * worker's handle on its bag (bag_dup() of it: read it, never keep it) and
 * the chunk's decompressed bytes, and appends what chunk_emit should get to out;
 * chunk_emit then runs on the calling thread, in order, just before the
 * emit of the chunk's first selected message (whether or not that message
 * passes the filter). Return values as for emit.
 */
typedef void (*bag_scan_chunk_fn)(void *arg, const bag_t *bag, size_t bag_index, size_t chunk,
                                  const uint8_t *data, size_t len, struct bag_text *out);
typedef int (*bag_scan_chunk_emit_fn)(void *arg, size_t bag_index, size_t chunk, const char *text,
                                      size_t len);

/* Options for bag_scan(). Start from BAG_SCAN_OPTS_INIT (common.h's growth rule). */
struct bag_scan_opts {
	size_t size;               /* sizeof(struct bag_scan_opts), for growth */
	unsigned threads;          /* worker threads; 0 = one per online core */
	bag_expr_t *filter;        /* keep messages for which it is true; NULL = all */
	bool decode;               /* parse definitions and pass them to work */
	bool keep_data;            /* emit sees each message's bytes */
	bag_scan_work_fn work;     /* may be NULL */
	bag_scan_emit_fn emit;     /* may be NULL (then only stats are gathered) */
	bag_scan_chunk_fn chunk;   /* may be NULL */
	bag_scan_chunk_emit_fn chunk_emit; /* may be NULL */
	void *arg;                 /* passed to work and emit */
	bag_progress_fn progress;  /* rows passed / rows of the view, now and then */
	void *progress_arg;
	size_t cache_bytes;        /* chunk cache per worker; 0 = 16 MiB */
};
#define BAG_SCAN_OPTS_INIT { sizeof(struct bag_scan_opts), 0, NULL, false, false, NULL, NULL, NULL, NULL, \
                             NULL, NULL, NULL, 0 }

/* What a scan did. */
struct bag_scan_stats {
	uint64_t rows;             /* rows of the view passed over */
	uint64_t emitted;          /* messages given to emit (passed and failed) */
	uint64_t filtered;         /* rows the filter (or work) dropped */
	uint64_t failed;           /* messages emitted as failed */
	uint64_t lost;             /* messages of unreadable chunks, and of
	                              unreadable index groups, not emitted */
	uint64_t chunks_read;      /* chunk decompressions over all workers */
};

/*
 * Pass over every row of v (see above). The filter is compiled for each
 * selected connection first; one that compiles on none of them is refused
 * before anything is read: BAG_EEXPR, with the reason and position in
 * bag_expr_error(filter). Connections for which
 * the filter is false whatever the message, and rows whose time alone decides
 * it, are settled from the index. stats (may be NULL) is filled in any case.
 * v must not be used by another thread meanwhile; its index groups loaded by
 * the scan are given back as it goes. opts NULL: the defaults (only stats
 * gathered). Returns 0, BAG_EEXPR, BAG_ENOMEM, BAG_EINVAL (opts of a size or
 * with fields this library cannot read: common.h's growth rule), an index
 * load error (in bag_view_error(v)), or what emit returned.
 */
BAG_API int bag_scan(bag_view_t *v, const struct bag_scan_opts *opts, struct bag_scan_stats *stats);

#ifdef __cplusplus
}
#endif

#endif
