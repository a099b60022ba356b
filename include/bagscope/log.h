/*
 * bagscope/log.h - the ROS log of a timeline: every rosgraph_msgs/Log
 * message (normally on /rosout and /rosout_agg), in record-time order, read
 * with bag_scan(). A message seen on two connections (the same node, stamp
 * and text: rosout republishing it on /rosout_agg) is given once, from the
 * first. Filters run on the scan's workers.
 */
#ifndef BAGSCOPE_LOG_H
#define BAGSCOPE_LOG_H

#include <bagscope/view.h>

#ifdef __cplusplus
extern "C" {
#endif

/* rosgraph_msgs/Log's levels; ordered, so "this level and worse" is >=. */
enum bag_log_level {
	BAG_LOG_DEBUG = 1,
	BAG_LOG_INFO = 2,
	BAG_LOG_WARN = 4,
	BAG_LOG_ERROR = 8,
	BAG_LOG_FATAL = 16,
};

/* "DEBUG" ... "FATAL" for a level; NULL for other values. */
BAG_API const char *bag_log_level_name(unsigned level);

/* One log message. Strings are NUL-terminated and live until the callback returns. */
struct bag_log_entry {
	int64_t time_ns;        /* record time */
	int64_t stamp_ns;       /* header.stamp: when the node logged it */
	unsigned level;         /* as sent (normally one of enum bag_log_level) */
	const char *node;       /* name */
	const char *msg;
	const char *file;
	const char *function;
	uint32_t line;
	const char *topics;     /* ntopics strings one after the other, each NUL-terminated */
	size_t ntopics;
	const struct bag_connection *conn;  /* where it was recorded */
};

/* Called in record-time order; non-zero stops the scan and is returned. */
typedef int (*bag_log_fn)(void *arg, const struct bag_log_entry *e);

/* Options; start from BAG_LOG_OPTS_INIT (common.h's growth rule). */
struct bag_log_opts {
	size_t size;
	unsigned min_level;        /* only this level and worse; 0: all */
	const char *node_regex;    /* POSIX extended regex on the node name; NULL: all */
	const char *grep_regex;    /* ... on the message text; NULL: all */
	int64_t start_ns, end_ns;  /* record-time window; 0, 0: all */
	unsigned threads;          /* 0: one per core */
	bag_progress_fn progress;  /* non-zero cancels */
	void *progress_arg;
};
#define BAG_LOG_OPTS_INIT { sizeof(struct bag_log_opts), 0, NULL, NULL, 0, 0, 0, NULL, NULL }

/* What a scan saw. */
struct bag_log_stats {
	uint64_t messages;         /* Log messages read */
	uint64_t shown;            /* given to the callback */
	uint64_t duplicates;       /* left out as seen on another connection */
	uint64_t bad;              /* that did not parse (or could not be read) */
	char first_bad[200];       /* the first one's reason */
};

/*
 * Scan tl's Log messages and call fn for each that passes the filters.
 * st may be NULL. Returns 0, BAG_EINVAL (a regex that does not compile,
 * or options of an unknown size), BAG_ENOMEM, a read error of the scan,
 * BAG_ECANCELED, or what fn returned; the failure in *err (may be NULL).
 */
BAG_API int bag_log_scan(bag_timeline_t *tl, const struct bag_log_opts *opts, bag_log_fn fn, void *arg,
                         struct bag_log_stats *st, struct bag_error *err);

#ifdef __cplusplus
}
#endif

#endif
