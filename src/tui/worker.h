/*
 * worker.h - a thread that fetches and decodes messages for the browser so
 * that a keypress never waits for a chunk. It works on its own bag handles
 * (bag_dup: the index shared, its own descriptor and cache), takes requests newest first,
 * and hands back each message's size and one-line summary (and, when asked,
 * a copy of its bytes). A pipe becomes readable when results are waiting.
 */
#ifndef BAGSCOPE_TUI_WORKER_H
#define BAGSCOPE_TUI_WORKER_H

#include <bagscope/bagscope.h>

#define WORK_SUMMARY_MAX 200
#define WORK_COLS_MAX 256

/*
 * An extra text per message, made on the worker thread after its summary
 * (the list's columns): bag index, connection index in that bag, the bytes
 * and the time; appends to out. Must be safe against the main thread.
 */
typedef void (*work_extra_fn)(void *arg, size_t bag, size_t conn_index, const uint8_t *data, uint32_t size,
                              int64_t time_ns, struct bag_text *out);

/* Where a message is: enough for the worker to read and decode it. */
struct work_item {
	uint64_t key;            /* work_key() of the place */
	size_t bag;
	size_t chunk;
	uint32_t offset;
	uint32_t conn_id;
	int64_t time_ns;
	bool want_bytes;
};

struct work_result {
	uint64_t key;
	int rc;                  /* 0, or the read/decode error */
	uint32_t size;
	char summary[WORK_SUMMARY_MAX];   /* or the error message, problem first */
	char cols[WORK_COLS_MAX];         /* the extra hook's text (list columns), or "" */
	uint8_t *bytes;          /* want_bytes: malloc'd copy, the caller frees */
};

struct worker;

/* The key of a message's place (bag < 256, chunk < 2^24). */
static inline uint64_t work_key(size_t bag, size_t chunk, uint32_t offset)
{
	return (uint64_t)bag << 56 | (uint64_t)(chunk & 0xFFFFFF) << 32 | offset;
}

/*
 * Start a worker over bags[0..n) (open, on the calling thread): it takes a
 * bag_dup() of each, so nothing is opened or scanned again. 0 or a BAG_E code.
 */
int worker_start(struct worker **out, bag_t *const *bags, size_t n);

/* Stop the thread and free everything; accepts NULL. */
void worker_stop(struct worker *w);

/* Replace the pending requests with items[0..n) (first = most wanted). */
void worker_request(struct worker *w, const struct work_item *items, size_t n);

/* A file descriptor that is readable while results wait. */
int worker_fd(const struct worker *w);

/* Set the extra hook (NULL: none). */
void worker_set_extra(struct worker *w, work_extra_fn fn, void *arg);

/* Take up to max results. */
size_t worker_take(struct worker *w, struct work_result *out, size_t max);

/* Messages decoded so far and whether requests are pending (status line). */
void worker_stats(struct worker *w, uint64_t *done, size_t *pending);

/*
 * Whether timeline group `group` of tl (the worker's bags' timeline) has had
 * its index fetched (bag_timeline_warm on the worker's handles, whose block
 * cache the browser's handles share): true, and loading it reads no network.
 * If not, it is queued (the newest first, before any message) and false is
 * returned; the pipe wakes the loop when it is done.
 */
bool worker_warm(struct worker *w, const bag_timeline_t *tl, size_t group);
/* The same, but nothing is queued. */
bool worker_warm_done(struct worker *w, size_t group);

/* Index groups queued or being fetched (the status line's transfer note). */
size_t worker_warming(struct worker *w);

/* Esc: forget the queued groups (the one being fetched finishes). */
void worker_warm_cancel(struct worker *w);
/* Whether anything is asked of the worker or being read: a group, rows, the selection. */
bool worker_busy(struct worker *w);

#endif
