/*
 * bagscope/reduce.h - numeric series for plots: message paths evaluated over
 * a whole bag on the scan engine, reduced to per-column true minimum,
 * maximum and count for any time range and width.
 *
 * A series is named by a message path: a topic, a '.', and a value of the
 * expression language (expr.h) on that topic's messages:
 * "/imu/data.linear_acceleration.x", "/scan.ranges[0]",
 * "/joint_states.position[-1]", "/odom.abs(twist.twist.linear.x)".
 * bag_reduce_run() passes
 * once over the messages of the series' topics (bag_scan: every core, in time
 * order) and keeps each series' samples, (record time, value) pairs, with a
 * min/max pyramid over them. Any later query, for any time range and any
 * number of columns, is then answered from memory in O(columns x log n):
 * zooming and panning never read the bag again.
 *
 * Columns (bag_reduce_columns): [t0, t1] is split into W spans of whole
 * nanoseconds; with N = t1 - t0 + 1, a sample at time t falls in column
 * (t - t0) * W / N (integer division, exact), so column c spans
 * t0 + ceil(c * N / W) to t0 + ceil((c + 1) * N / W) - 1. Each column gets
 * the count of its samples and their true minimum and maximum: every sample
 * counts, so a one-sample spike always shows.
 *
 * What is a sample: a message of the series' topic whose value is a number
 * (integers, floats, bools as 0/1, times and durations in seconds). A
 * missing value (a field the type lacks, an index out of range), a string
 * or NaN is no sample; a message too short for its path is counted as
 * failed (bag_reduce_failed()). Integers beyond 2^53 lose precision as
 * doubles. Memory: 16 bytes per sample, plus 1/8 of that for the pyramid.
 *
 * Threads: bag_reduce_run() runs on one thread; meanwhile another thread may
 * call bag_reduce_count(), bag_reduce_columns(), bag_reduce_sample_at() and
 * bag_reduce_cancel(), which see the samples gathered so far (a progressive
 * plot). The timeline must not be used by any other thread during the run.
 */
#ifndef BAGSCOPE_REDUCE_H
#define BAGSCOPE_REDUCE_H

#include <bagscope/view.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bag_reduce bag_reduce_t;

/* One column of a series. */
struct bag_reduce_col {
	int64_t t_start_ns;     /* the span's first nanosecond */
	int64_t t_end_ns;       /* its last nanosecond */
	uint64_t count;         /* samples in the span */
	double min, max;        /* their true extremes; NaN when count is 0 */
};

/* Options for bag_reduce_run(); start from BAG_REDUCE_OPTS_INIT. */
struct bag_reduce_opts {
	size_t size;               /* sizeof(struct bag_reduce_opts) */
	int64_t start_ns;          /* first time included (BAG_TIME_MIN: the start) */
	int64_t end_ns;            /* last time included (BAG_TIME_MAX: the end) */
	unsigned threads;          /* scan workers; 0 = one per core */
	bag_progress_fn progress;  /* rows passed / rows to pass, now and then; may be NULL */
	void *progress_arg;
};
#define BAG_REDUCE_OPTS_INIT { sizeof(struct bag_reduce_opts), BAG_TIME_MIN, BAG_TIME_MAX, 0, NULL, NULL }

/*
 * Prepare series for paths[0..n) (NUL-terminated, copied) over the
 * timeline tl (borrowed: it must outlive the reduction): each path's topic
 * is the longest topic of tl that prefixes it (bag_expr_topic_prefix), the
 * rest after its '.' is parsed as a value and compiled for every connection
 * of that topic. *out is set even on failure (unless BAG_ENOMEM) so that
 * bag_reduce_error() can be read; always bag_reduce_free() it. Returns 0,
 * BAG_EEXPR (no topic prefixes the path, nothing after the topic, a syntax
 * error, or a part that fits none of the topic's connections: the message
 * says which, bag_reduce_errpath() which path and bag_reduce_error()'s offset the
 * byte offset in it), BAG_EINVAL (n == 0) or BAG_ENOMEM.
 */
BAG_API int bag_reduce_open(bag_reduce_t **out, bag_timeline_t *tl, const char *const *paths, size_t n);

/* Free; accepts NULL. Not while bag_reduce_run() runs. */
BAG_API void bag_reduce_free(bag_reduce_t *r);

/*
 * The last failure (common.h; its offset is the byte offset in the path),
 * and the index of the path it concerns.
 */
BAG_API const struct bag_error *bag_reduce_error(const bag_reduce_t *r);
BAG_API size_t bag_reduce_errpath(const bag_reduce_t *r);

/* Series (the paths given), and the topic of series i (borrowed from tl). */
BAG_API size_t bag_reduce_series_count(const bag_reduce_t *r);
BAG_API const char *bag_reduce_topic(const bag_reduce_t *r, size_t i);

/*
 * Gather the samples of every series over [opts->start_ns, opts->end_ns]
 * (opts NULL: the whole bag) in one bag_scan(). Samples gathered by an
 * earlier run are dropped first. Returns 0, BAG_ECANCELED (by
 * bag_reduce_cancel() or the progress function: the samples so far are
 * kept), BAG_ENOMEM, BAG_EINVAL (bad opts) or an index error (message in
 * bag_reduce_error()). Messages that cannot be read are counted by
 * bag_reduce_failed(), the first reason kept; they are not an error.
 */
BAG_API int bag_reduce_run(bag_reduce_t *r, const struct bag_reduce_opts *opts);

/* Ask a running bag_reduce_run() to stop soon (any thread). */
BAG_API void bag_reduce_cancel(bag_reduce_t *r);

/* Whether bag_reduce_run() has finished (any thread). */
BAG_API bool bag_reduce_done(bag_reduce_t *r);

/*
 * Messages whose value could not be read (unreadable chunks, messages too
 * short for the path), and the first one's reason, copied into *first
 * (code 0 and "" when none; first may be NULL). Safe from any thread.
 */
BAG_API uint64_t bag_reduce_failed(bag_reduce_t *r, struct bag_error *first);

/* Samples of series i gathered so far. */
BAG_API uint64_t bag_reduce_count(bag_reduce_t *r, size_t i);

/* Whether series i's samples are times since the epoch (header.stamp, $time): label them as times of day. */
BAG_API bool bag_reduce_is_time(bag_reduce_t *r, size_t i);

/*
 * Reduce series i over [t0, t1] (t0 <= t1) into cols[0..ncols) (ncols >= 1)
 * as the header says. Returns 0 or BAG_EINVAL.
 */
BAG_API int bag_reduce_columns(bag_reduce_t *r, size_t i, int64_t t0, int64_t t1, size_t ncols,
                               struct bag_reduce_col *cols);

/*
 * The last sample of series i at or before t: *time_ns and *value.
 * Returns 0, or BAG_ENOTFOUND when there is none.
 */
BAG_API int bag_reduce_sample_at(bag_reduce_t *r, size_t i, int64_t t, int64_t *time_ns, double *value);

#ifdef __cplusplus
}
#endif

#endif
