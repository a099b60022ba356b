/*
 * bagscope/diag.h - the diagnostics of a timeline: every
 * diagnostic_msgs/DiagnosticArray (normally /diagnostics and
 * /diagnostics_agg) and diagnostic_msgs/DiagnosticStatus (normally
 * /diagnostics_toplevel_state) read with bag_scan(), kept per status
 * (name and hardware_id) as the changes of its level over record time,
 * each with the message and key/values it came with.
 */
#ifndef BAGSCOPE_DIAG_H
#define BAGSCOPE_DIAG_H

#include <bagscope/view.h>

#ifdef __cplusplus
extern "C" {
#endif

/* DiagnosticStatus levels. */
enum bag_diag_level { BAG_DIAG_OK = 0, BAG_DIAG_WARN = 1, BAG_DIAG_ERROR = 2, BAG_DIAG_STALE = 3 };

/* "OK", "WARN", "ERROR", "STALE"; NULL for other values. */
BAG_API const char *bag_diag_level_name(unsigned level);

typedef struct bag_diag bag_diag_t;

/* Options; start from BAG_DIAG_OPTS_INIT (common.h's growth rule). */
struct bag_diag_opts {
	size_t size;
	const char *name_regex;    /* POSIX extended regex on the status name; NULL: all */
	unsigned threads;          /* 0: one per core */
	bag_progress_fn progress;  /* non-zero cancels */
	void *progress_arg;
};
#define BAG_DIAG_OPTS_INIT { sizeof(struct bag_diag_opts), NULL, 0, NULL, NULL }

/*
 * Read tl's diagnostics. *out is set in every case (NULL only after
 * BAG_ENOMEM at once): read bag_diag_error(), then bag_diag_free() it.
 * Returns 0, BAG_EINVAL (a bad regex, options of an unknown size),
 * BAG_ENOMEM, BAG_ECANCELED or a scan's read error. Messages that do not
 * parse are counted in bag_diag_bad().
 */
BAG_API int bag_diag_build(bag_diag_t **out, bag_timeline_t *tl, const struct bag_diag_opts *opts);
BAG_API void bag_diag_free(bag_diag_t *d);
/* The failure of bag_diag_build() (common.h); BAG_ENOMEM for NULL. */
BAG_API const struct bag_error *bag_diag_error(const bag_diag_t *d);
/* Messages that did not parse, and the first one's reason (""). */
BAG_API uint64_t bag_diag_bad(const bag_diag_t *d, const char **first);

/* Statuses, in the order first seen. */
BAG_API size_t bag_diag_count(const bag_diag_t *d);

/* A status; strings borrowed until bag_diag_free(). */
struct bag_diag_status {
	const char *name;
	const char *hardware_id;
	const char *topic;          /* where it was first seen */
	uint64_t messages;          /* times it was reported */
	unsigned worst;             /* the highest level reported */
	unsigned last;              /* the level of its last report */
	int64_t first_ns, last_ns;  /* record times of its first and last report */
	size_t ntransitions;        /* changes of level, the first report included */
	int64_t time_in_level[4];   /* ns spent in OK, WARN, ERROR, STALE up to last_ns */
};
BAG_API void bag_diag_status(const bag_diag_t *d, size_t i, struct bag_diag_status *out);

struct bag_diag_kv {
	const char *key;
	const char *value;
};

/* A change of level: the report that brought it. */
struct bag_diag_transition {
	int64_t time_ns;            /* record time */
	unsigned level;
	const char *message;
	size_t nvalues;
	const struct bag_diag_kv *values;
};

/* Transition k < ntransitions of status i, in time order; borrowed. */
BAG_API const struct bag_diag_transition *bag_diag_transition(const bag_diag_t *d, size_t i, size_t k);

#ifdef __cplusplus
}
#endif

#endif
