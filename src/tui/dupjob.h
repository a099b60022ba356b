/*
 * dupjob.h - a whole-file job for a pane, on a thread: bag_dup() handles
 * of the app's bags and a timeline over them that only the thread uses,
 * progress and cancellation through atomics, and the result code. The
 * TF, rosout and diagnostics panes build their model this way; the main
 * loop polls finished() while the pane says it is busy.
 */
#ifndef BAGSCOPE_TUI_DUPJOB_H
#define BAGSCOPE_TUI_DUPJOB_H

#include <bagscope/bagscope.h>

#include "tui/bgjob.h"
#include "tui/detail.h"

struct app;

struct dupjob {
	bag_t **bags;
	size_t nbags;
	bag_timeline_t *tl;           /* the thread's */
	struct bgjob job;
	int (*run)(struct dupjob *j, void *arg);   /* on the thread: returns the result */
	void *arg;
	int rc;                       /* run's result, once finished */
	bool finished;                /* atomic */
	bool cancel;                  /* atomic: progress says stop */
	uint64_t done, total;         /* atomic: rows passed, of */
	const bool *hold;             /* set before start, or NULL: a background job, whose progress
	                                 waits while *hold (atomic) is true */
	bool low;                     /* set before start: the thread runs at the lowest CPU priority
	                                 (Linux: nice 19), so it takes only a core left idle */
};

/* Start run(j, arg) on a thread over dups of app's bags. 0, or -1 (out of memory; j stays freeable). */
int dupjob_start(struct dupjob *j, struct app *app, int (*run)(struct dupjob *j, void *arg), void *arg);

/*
 * A bag_progress_fn for the library's scans: records progress, waits while
 * the job is held, non-zero once cancelled. arg: the dupjob.
 */
int dupjob_progress(void *arg, uint64_t done, uint64_t total);

/* Whether run returned (then rc holds its result). */
bool dupjob_finished(const struct dupjob *j);
/* Whether it runs now. */
bool dupjob_running(const struct dupjob *j);
/* Percent of rows passed. */
unsigned dupjob_percent(const struct dupjob *j);

/*
 * A pane's open or close: open it (starting the job the first time, a
 * note "what: out of memory" if it cannot) and give it the focus, or close
 * it and give the focus back to the list if it had it.
 */
void dupjob_pane_open(struct dupjob *j, struct app *app, bool *is_open, bool open, int pane,
                      int (*run)(struct dupjob *j, void *arg), void *arg, const char *what);

/*
 * While the job runs, or when it failed: d becomes one line ("reading
 * WHAT ... N%", or err's message) and the result is false; true once the
 * job has finished well.
 */
bool dupjob_ready(const struct dupjob *j, const char *what, const struct bag_error *err, struct detail *d);

/* Cancel and join the thread, close the dups; the caller frees what run made. Accepts a job never started. */
void dupjob_free(struct dupjob *j);

#endif
