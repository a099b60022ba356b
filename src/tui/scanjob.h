/*
 * scanjob.h - the browser's searches and filters, run in the background on
 * the library's scan engine (bag_scan: every core, messages in order) so the
 * screen stays live and Esc cancels. One job at a time runs on a thread of
 * its own, over its own bag handles (bag_dup) and its own timeline, whose
 * rows are numbered as the browser's. Results and progress come back
 * through a pipe the main loop polls.
 *
 * A search looks for a pattern (match.h) in the text the browser shows of
 * a message: its topic and type, its one-line summary and the detail's
 * "field: value" lines; forward from a row to the end, then around from
 * the start (wrapped); backward in growing windows. A filter keeps the rows
 * for which an expression (expr.h) is true, handed back in order as found.
 */
#ifndef BAGSCOPE_TUI_SCANJOB_H
#define BAGSCOPE_TUI_SCANJOB_H

#include <bagscope/bagscope.h>

enum job_kind { JOB_NONE, JOB_SEARCH, JOB_FILTER };

/* What to run. */
struct job_req {
	enum job_kind kind;
	const bool *conn_mask;     /* the shown connections (copied) */
	bag_expr_t *filter;        /* JOB_FILTER: the filter; JOB_SEARCH: the active one or NULL. Borrowed until done. */
	const char *pattern;       /* JOB_SEARCH */
	const char *scope;         /* JOB_SEARCH: a field path to look in only (match_scope), or NULL */
	int dir;                   /* JOB_SEARCH: 1 forward, -1 backward */
	uint64_t row;              /* JOB_SEARCH: the selected row (of the browser's unfiltered view) */
	int64_t time_ns;           /* its time */
};

/* What a job has done so far (job_poll). */
struct job_state {
	enum job_kind kind;        /* of the last job started */
	bool running;
	uint64_t done, total;      /* rows passed, rows to pass (progress) */
	int rc;                    /* when finished: 0, BAG_ECANCELED, BAG_EEXPR, a read error */
	char err[512];             /* its message */
	bool found;                /* JOB_SEARCH */
	bool wrapped;              /* the match is past the end (or the start) */
	uint64_t found_row;
	uint64_t unreadable;       /* messages that could not be read or decoded */
};

struct scanjob;

/* A job thread over bags[0..n) (bag_dup'd). 0 or a BAG_E code. */
int job_open(struct scanjob **out, bag_t *const *bags, size_t n);
/* Cancel, join and free; accepts NULL. */
void job_close(struct scanjob *j);

/* Start a job (a running one is cancelled first). 0 or BAG_ENOMEM. */
int job_start(struct scanjob *j, const struct job_req *req);
/* Ask the running job to stop; job_poll tells when it has. */
void job_cancel(struct scanjob *j);
/* Wait until no job runs. */
void job_wait(struct scanjob *j);

/*
 * Compute each topic's median rate (as info --freq) on a thread of its own;
 * topic_of maps timeline connections to topics[0..ntopics). 0 or a BAG_E
 * code. job_take_rates() copies them to out[0..ntopics) once, when done,
 * and the messages the pass met on each timeline connection to
 * conn_counts[0..bag_timeline_conn_count()): the exact counts of a bag
 * whose open left them estimated (bag_counts_exact()).
 */
int job_rates(struct scanjob *j, const size_t *topic_of, size_t ntopics);
bool job_take_rates(struct scanjob *j, double *out, uint64_t *conn_counts);

/* Readable while news waits. */
int job_fd(const struct scanjob *j);

/*
 * The state, and for a filter the rows found since the last call appended
 * to *rows (a growable array of *n of *cap, realloc'd). Returns whether
 * anything changed.
 */
bool job_poll(struct scanjob *j, struct job_state *st, uint64_t **rows, size_t *n, size_t *cap);

#endif
