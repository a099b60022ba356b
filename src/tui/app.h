/*
 * app.h - the browser's state: the model, the worker, the summary cache,
 * the detail pane, the prompt and a running search. Shared by app.c (the
 * loop and input) and draw.c (the only code that draws).
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
#include "tui/plot.h"
#include "tui/media.h"
#include "tui/scanjob.h"
#include "tui/tui.h"
#include "tui/worker.h"

#define CACHE_SLOTS 16384
#define HISTORY_MAX 50
#define MAX_COLUMNS 8

/* A prompt's earlier entries, oldest first. */
struct history {
	char *items[HISTORY_MAX];
	int n;
	int at;                       /* while browsing: the entry shown (n: the new one) */
};

/* A column of the list: a message path evaluated on its topic's messages. */
struct column {
	char text[128];               /* "/odom.pose.pose.position.x" */
	const char *path;             /* the path after the topic, in text */
	char topic[128];
	bag_expr_t *expr;
	bag_expr_prog_t **progs;      /* per timeline connection of the topic; NULL elsewhere */
};

/* What the worker told about one message. */
struct summary {
	uint64_t key;            /* 0: empty slot (keys are never 0: see app.c) */
	uint32_t size;
	int rc;
	char text[WORK_SUMMARY_MAX];
	char cols[WORK_COLS_MAX];  /* the list's columns, or "" */
};

/* A rectangle of the screen. */
struct rect {
	int y, x, h, w;
};

/* A pane: how to draw it and where it is. */
struct app;

struct pane_ops {
	const char *title;
	void (*draw)(struct app *app, struct rect r);        /* draw inside r */
	bool (*act)(struct app *app, enum action a);         /* its own actions; NULL: the model's */
};

struct app {
	char *const *paths;
	size_t npaths;
	bag_t **bags;
	bag_timeline_t *tl;
	struct model m;
	struct worker *worker;
	struct summary *cache;        /* CACHE_SLOTS, open addressing */
	size_t cache_used;
	struct detail detail;
	uint64_t detail_key;          /* message the detail shows (0: none) */
	int detail_mode;              /* mode it was built for */
	uint8_t *detail_bytes;
	uint32_t detail_size;
	bag_msgdef_t **defs;          /* main thread's, per timeline connection */
	struct rect panes[PANE_COUNT];
	struct rect timeline, status;
	double *density;              /* timeline bins, for density_view and density_w */
	const bag_view_t *density_view;
	int density_w;
	double *topic_density;        /* per-topic strips: ntopics x topic_density_w bins */
	int topic_density_w;
	int strips;                   /* per-topic strip rows the layout gave the timeline */
	struct bagset cb;             /* the bags and their timeline */
	struct plot *plot;            /* the plot pane (view-plot.c), NULL until used */
	struct media *media;          /* pictures in the detail (view-media.c), NULL until used */
	bool too_small;
	bool help;
	bool colour;
	bool utf8;
	bool quit;
	/* prompt */
	int prompt;                   /* 0, or the key that opened it: '/', '&', 't', 'C' */
	char prompt_buf[256];
	size_t prompt_len;
	struct history hist[5];       /* search, filter, jump, column, write */
	struct exportjob *export;     /* W: a write running (exportjob.c), or NULL */
	/* search and filter, on the scan engine (scanjob.h) */
	struct scanjob *job;
	struct job_state js;
	char search[256];             /* the last search */
	int search_dir;               /* its direction */
	struct matcher hl;            /* it, for highlights (hl_on) */
	bool hl_on;
	bool detail_to_match;         /* scroll the detail to the match once built */
	bag_expr_t *filter;           /* the filter being or last run */
	char filter_text[256];
	uint64_t filter_anchor;       /* view row selected when the filter started */
	bool filter_follow;           /* keep the selection there while the filter fills */
	/* what cannot be read */
	uint8_t **bad_chunks;         /* per bag: chunks known not to read (bitmap) */
	uint64_t bad_msgs;            /* messages in them */
	size_t bad_nchunks;
	struct bag_text skipped;      /* files that did not open, one line each */
	struct detail log;            /* the log view's lines */
	bool show_log;
	int conns_topic;              /* the topic whose connections the detail shows, or -1 */
	bool zoom;                    /* the detail has the whole screen */
	bool wrap;                    /* long detail lines wrap */
	int help_top;                 /* help screen scroll */
	uint64_t count;               /* digits typed before a key */
	char follow_path[256];        /* the detail cursor's field path, kept across messages */
	char **folds;                 /* folded field paths, kept across messages */
	size_t nfolds;
	/* marks: view rows' message keys, persisted per bag content */
	uint64_t *marks;
	size_t nmarks, capmarks;
	char marks_file[512];
	int list_hscroll;             /* sideways scroll of the list, in columns */
	struct column cols[MAX_COLUMNS];
	int ncols;
	pthread_mutex_t cols_lock;    /* cols, read by the worker */
	FILE *timing;                 /* BAGSCOPE_TIMING's file, or NULL */
	int64_t t0, job_t0;           /* start, and the last search's or filter's start (monotonic ns) */
	int64_t job_cpu0;             /* the process's CPU time then (ns) */
};

/* draw.c */
void draw_all(struct app *app);
void draw_init_colours(struct app *app);
/* The ops of pane p. */
const struct pane_ops *draw_ops(enum pane p);

/* layout.c: pane rectangles from the terminal size; the pane at (y, x) or PANE_COUNT. */
void layout_compute(struct app *app);
int layout_pane_at(const struct app *app, int y, int x);

/* The message list's columns for message msg: ", name=value" each, appended to t. */
void app_column_text(struct app *app, const struct bag_message *msg, const uint8_t *data, size_t len,
                     struct bag_text *t);

/* app.c: the log view's lines, built anew. */
void app_log_build(struct app *app);
/* Hex bytes per line that fit the detail pane (16, 8 or 4). */
int app_hex_width(const struct app *app);

/* marks.c: marks (m ' u U), kept per bag content in $XDG_STATE_HOME/bagscope. */
void app_marks_load(struct app *app);
void app_mark_act(struct app *app, enum action a);
/* Whether the message with key is marked; the time since the nearest mark before t (or -1). */
bool app_marked(const struct app *app, uint64_t key);

/* folds: the folded field paths, followed from message to message. */
bool app_folded(const struct app *app, const char *path);
void app_folds_save(struct app *app);
void app_folds_clear(struct app *app);

/*
 * exportjob.c: W writes the marked range of the shown topics (and the
 * filter) to a bag through bag_export(), on a thread; its pipe wakes the loop.
 */
void app_export_prompt(struct app *app);
void app_export_start(struct app *app, const char *out);
int app_export_fd(const struct app *app);
void app_export_poll(struct app *app);
bool app_export_cancel(struct app *app);
void app_export_stop(struct app *app);

/* copy.c: y Y c, to the clipboard through OSC 52. */
void app_copy(struct app *app, enum action a);

/* columns.c: C, message paths as list columns. */
void app_column_set(struct app *app, const char *text);
void app_columns_free(struct app *app);

/* app.c: the cached summary of a message, or NULL (and a request is due). */
const struct summary *app_summary(struct app *app, uint64_t key);
/* The connection definition for timeline connection i (parsed once). */
bag_msgdef_t *app_def(struct app *app, size_t conn_index);

#endif
