/*
 * app.h - what the browser holds globally: the bags and their model, the
 * panes, the decoding worker and its summary cache, the selection's bytes,
 * the prompt, the search and filter, marks, columns, what cannot be read
 * and the status. Every pane keeps its own state (pane.h); only what
 * several panes share is here.
 */
#ifndef BAGSCOPE_TUI_APP_H
#define BAGSCOPE_TUI_APP_H

#include <pthread.h>
#include <stdio.h>

#include <bagscope/bagscope.h>

#include "common/bagset.h"
#include "common/termtext.h"
#include "tui/detail.h"
#include "tui/match.h"
#include "tui/model.h"
#include "tui/pane.h"
#include "tui/prompt.h"
#include "tui/scanjob.h"
#include "tui/tui.h"
#include "tui/worker.h"

#define CACHE_SLOTS 16384
#define MAX_COLUMNS 8
#define COL_SEP "\x1f"           /* between the cells of a summary's cols */

/*
 * A column of the list: a message path evaluated on its topic's messages,
 * or a tf(TARGET,SOURCE).FIELD term on every message at its time.
 */
struct column {
	char text[128];               /* "/odom.pose.pose.position.x" */
	const char *path;             /* the path after the topic, in text */
	char topic[128];              /* "" for a tf() column */
	bool tf;                      /* a tf() column: values once the buffer is built */
	bag_expr_t *expr;
	bag_expr_prog_t **progs;      /* per timeline connection of the topic; NULL elsewhere */
	const struct bag_msgdef_type **owner;    /* per connection: the message declaring the path's field */
	const struct bag_msgdef_field **field;   /* that field (its constants name values), or NULL */
	int width;                    /* the widest value seen (main thread only) */
};

struct columns {
	struct column c[MAX_COLUMNS];
	int n;
	bool tf_bound;                /* the tf() columns have the buffer */
	char gen;                     /* 'a'..'z', changed with the columns: starts each summary's cols */
	pthread_mutex_t lock;         /* c and n, read by the worker */
};

/* What the worker told about one message. */
struct summary {
	uint64_t key;            /* 0: empty slot (keys are never 0: see core.c) */
	uint32_t size;
	int rc;
	char text[WORK_SUMMARY_MAX];
	char cols[WORK_COLS_MAX];  /* the list's columns, or "" */
};

/* The selected message's bytes, as the worker sent them (NULL until then). */
struct selection {
	uint64_t key;
	uint8_t *bytes;
	uint32_t size;
	bool fresh;                   /* new bytes: panes showing them rebuild */
};

/* Search and filter, on the scan engine (scanjob.h). */
struct find {
	struct scanjob *job;
	struct job_state js;
	char search[256];             /* the last search */
	int dir;                      /* its direction */
	struct matcher hl;            /* it, for highlights (hl_on) */
	bool hl_on;
	bool to_match;                /* the detail scrolls to the match once built */
	bag_expr_t *filter;           /* the filter being or last run */
	char filter_text[256];
	uint64_t anchor;              /* view row selected when the filter started */
	bool follow;                  /* keep the selection there while the filter fills */
	int stopped;                  /* the filter was stopped at this percentage (its rows are partial), or -1 */
	int64_t t0;                   /* the last search's or filter's start (monotonic ns) */
	int64_t cpu0;                 /* app_cpu_ns() then */
};

/* Marks: pairs (time_ns, message key) sorted, persisted per bag content. */
struct marks {
	uint64_t *v;
	size_t n, cap;
	char file[512];
};

/* What cannot be read: chunks found unreadable, files that did not open. */
struct damage {
	uint8_t **chunks;             /* per bag: a bitmap of chunks */
	uint64_t msgs;                /* messages in them */
	size_t nchunks;
	struct bag_text skipped;      /* files that did not open, one line each */
	struct chunkcheck *check;     /* chunkcheck.c: every chunk read once in the background, or NULL */
};

struct app {
	char *const *paths;
	size_t npaths;
	struct bagset cb;             /* the bags and their timeline */
	struct model m;               /* topics, the list's cursor, the focus, the note */
	struct pane panes[PANE_COUNT];
	struct rect status;
	struct worker *worker;
	struct summary *cache;        /* CACHE_SLOTS, open addressing */
	size_t cache_used;
	bag_msgdef_t **defs;          /* main thread's, per timeline connection */
	struct selection sel;
	struct prompt prompt;
	struct find find;
	struct exportjob *export;     /* W: a write running (exportjob.c), or NULL */
	struct marks marks;
	struct columns cols;
	struct damage bad;
	char last_note[1024];         /* the status line's last note, whole, for L */
	bool too_small, colour, utf8, zoom, quit, quit_asked;
	uint64_t count;               /* digits typed before a key */
	FILE *timing;                 /* BAGSCOPE_TIMING's file, or NULL */
	int64_t t0;                   /* start (monotonic ns) */
	size_t pending_rows;          /* rows the last draw showed as being fetched (URL bags) */
	bool fetch_stopped;           /* Esc stopped the fetching (URL bags): nothing is asked until a key */
	bool first_due;               /* BAGSCOPE_TIMING: the first full screen is still to come */
	bool user_busy;               /* atomic: a search, filter or write runs; background jobs wait (dupjob's hold) */
};

/* core.c: monotonic ns; the CPU time of every thread of the process (ns). */
int64_t app_now_ns(void);
int64_t app_cpu_ns(void);
/* The cached summary of a message, or NULL (and a request is due). */
const struct summary *app_summary(struct app *app, uint64_t key);
void app_cache_put(struct app *app, const struct work_result *r);
void app_cache_flush(struct app *app);
/* The connection definition for timeline connection i (parsed once). */
bag_msgdef_t *app_def(struct app *app, size_t conn_index);
/* The selected message's key, or UINT64_MAX. */
uint64_t app_selected_key(struct app *app);
/* A read error of a whole chunk (rc of a result for key): counted once. */
void app_note_bad_chunk(struct app *app, uint64_t key, int rc);
/* An index that could not be read ("PATH: at byte N: ..."): that chunk counted. */
void app_note_bad_index(struct app *app, const char *msg);
/* The mask of shown connections, per timeline connection (the caller frees). */
bool *app_shown_mask(struct app *app);
/* The bag's name without its directory. */
const char *app_base_name(const char *path);
/* Bag b as rows and titles name it: its base name, "2:NAME" when another bag has the same (buf holds it then). */
const char *app_bag_label(const struct app *app, size_t b, char *buf, size_t cap);

/*
 * core.c: whether a bag is read from a URL. Whole-bag passes that only fill
 * something in (the topic rates, the timeline's ticks) then wait or are
 * left out, so that opening does not fetch the whole recording.
 */
bool app_any_url(const struct app *app);

/*
 * chunkcheck.c: damage found early. After open, every chunk of a local bag
 * is read once on a thread; take() (each turn) counts what it found so far
 * into app->bad; percent() is its progress while it runs, else -1.
 */
void app_check_start(struct app *app);
void app_check_take(struct app *app);
int app_check_percent(const struct app *app);
void app_check_stop(struct app *app);

/* marks.c: marks (m ' u U), kept per bag content in $XDG_STATE_HOME/bagscope. */
void app_marks_load(struct app *app);
void app_mark_act(struct app *app, enum action a);
bool app_marked(const struct app *app, uint64_t key);

/*
 * exportjob.c: W writes the marked range of the shown topics (and the
 * filter) to a bag through bag_export(), on a thread; its pipe wakes the loop.
 */
/* W: the name to offer (false, with a note, when nothing is marked or a write runs). */
bool app_export_prefill(struct app *app, char *buf, size_t cap);
void app_export_start(struct app *app, const char *out);
/* The answer to "replace it?" for out (the name W was given): y or yes replaces. */
void app_export_replace(struct app *app, const char *answer, const char *out);
int app_export_fd(const struct app *app);
void app_export_poll(struct app *app);
bool app_export_running(const struct app *app);
bool app_export_cancel(struct app *app);
void app_export_stop(struct app *app);

/* copy.c: y Y c, to the clipboard through OSC 52. */
void app_copy(struct app *app, enum action a);

/* columns.c: C, message paths as list columns. */
void app_column_set(struct app *app, const char *text);
void app_columns_free(struct app *app);
/* Whether a tf() column waits for the buffer (then binds it when built: call at each draw). */
bool app_columns_waiting(struct app *app);

/* view-tf.c: the transform buffer, its build started on the first call; NULL until built (*failed: never). */
const bag_tf_t *tf_pane_buffer(struct app *app, bool *failed);

/* find.c: / n N and the filter (&), on the scan engine. */
void find_search(struct app *app, const char *text);
void find_again(struct app *app, int dir);
void find_filter(struct app *app, const char *text);
void find_take(struct app *app);
void find_rerun_stale(struct app *app);
void find_free(struct app *app);

#endif
