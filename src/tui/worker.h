/*
 * worker.h - the thread that reads chunks so the screen never waits.
 *
 * The worker opens its own bag_t handles on the same paths (handles are not
 * thread-safe) and its own timeline over them, so row numbers of a view with
 * the same mask agree with the main thread's. The main thread posts work;
 * the worker posts results and writes a byte to a pipe that the main loop
 * polls beside the terminal.
 *
 * Work, most urgent first: the selected message's bytes (one slot, latest
 * wins); facts for visible rows (size and one-line summary; the list is
 * replaced at each post); the same for rows a page away (prefetch, warming
 * the neighbouring chunks); a search, run in steps of a few milliseconds
 * that yield to the above; and the timeline's density counts.
 */
#ifndef BAGSCOPE_TUI_WORKER_H
#define BAGSCOPE_TUI_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where one message is: enough to read it with bag_message_read(). */
struct msg_ref {
	uint32_t bag_index;
	uint32_t chunk;
	uint32_t offset;
	uint32_t conn_id;     /* file id */
	uint32_t conn_index;  /* timeline connection index */
	int64_t time_ns;
};

static inline bool msg_ref_eq(const struct msg_ref *a, const struct msg_ref *b)
{
	return a->bag_index == b->bag_index && a->chunk == b->chunk && a->offset == b->offset;
}

enum result_kind {
	RES_ROW,          /* ref, size, summary (or error) */
	RES_DETAIL,       /* ref, bytes, size (or error) */
	RES_SEARCH_STEP,  /* search progress: done of total */
	RES_SEARCH_DONE,  /* found (row) or not */
	RES_DENSITY,      /* counts: ntopics x cols */
	RES_READY,        /* the worker's bags are open */
	RES_FAILED,       /* the worker could not open the bags: error */
};

/* One result; the receiver owns text/bytes/counts and frees them. */
struct result {
	enum result_kind kind;
	struct msg_ref ref;
	uint32_t size;
	char *text;         /* RES_ROW: summary; any: error message (NULL if none) */
	bool failed;        /* text is an error */
	uint8_t *bytes;     /* RES_DETAIL */
	uint64_t gen;       /* RES_SEARCH_* / RES_DENSITY: the job it answers */
	uint64_t done, total;
	bool found;
	uint64_t row;
	uint32_t *counts;   /* RES_DENSITY */
	size_t ntopics;
	int cols;
};

struct worker;

/* Start the thread over paths (copied). 0 or BAG_ENOMEM / BAG_EIO. */
int worker_start(struct worker **out, char *const *paths, size_t npaths);
/* Stop it and free everything; accepts NULL. */
void worker_stop(struct worker *w);
/* The pipe's read end: readable when results wait. */
int worker_fd(const struct worker *w);
/* Take the next result; false when none. Drains the pipe when empty. */
bool worker_take(struct worker *w, struct result *out);
void result_free(struct result *r);

/* Replace the visible-row and prefetch requests. */
void worker_want_rows(struct worker *w, const struct msg_ref *rows, size_t n,
                      const struct msg_ref *pre, size_t npre);
/* Ask for one message's bytes (replaces an earlier detail request). */
void worker_want_detail(struct worker *w, const struct msg_ref *ref);

/*
 * Search the view selecting mask (nconns entries) for needle, starting at
 * row from (inclusive), forward (dir > 0) or backward. Replaces any running
 * search; results carry gen.
 */
void worker_search(struct worker *w, const bool *mask, size_t nconns, const char *needle,
                   uint64_t from, int dir, uint64_t gen);
void worker_search_cancel(struct worker *w);

/*
 * Count messages per topic in cols equal slices of [t0, t1]: masks holds
 * ntopics masks of nconns entries. The result carries gen.
 */
void worker_density(struct worker *w, const bool *masks, size_t ntopics, size_t nconns,
                    int cols, int64_t t0, int64_t t1, uint64_t gen);

/* Whether the worker has work in hand (for a "loading" indicator). */
bool worker_busy(struct worker *w);

#endif
