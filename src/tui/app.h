/*
 * app.h - the browser's state: the model, the worker, the summary cache,
 * the detail pane, the prompt and a running search. Shared by app.c (the
 * loop and input) and draw.c (the only code that draws).
 */
#ifndef BAGSCOPE_TUI_APP_H
#define BAGSCOPE_TUI_APP_H

#include <bagscope/bagscope.h>

#include "common/bagset.h"
#include "common/termtext.h"
#include "tui/detail.h"
#include "tui/model.h"
#include "tui/plot.h"
#include "tui/media.h"
#include "tui/tui.h"
#include "tui/worker.h"

#define CACHE_SLOTS 16384

/* What the worker told about one message. */
struct summary {
	uint64_t key;            /* 0: empty slot (keys are never 0: see app.c) */
	uint32_t size;
	int rc;
	char text[WORK_SUMMARY_MAX];
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
	int prompt;                   /* 0, '/' or 't' */
	char prompt_buf[128];
	size_t prompt_len;
	/* search */
	char search[128];
	bool searching;
	int search_dir;
	uint64_t search_row;          /* next row to look at */
	uint64_t search_done;
	struct bag_text search_text;
};

/* draw.c */
void draw_all(struct app *app);
void draw_init_colours(struct app *app);
/* The ops of pane p. */
const struct pane_ops *draw_ops(enum pane p);

/* layout.c: pane rectangles from the terminal size; the pane at (y, x) or PANE_COUNT. */
void layout_compute(struct app *app);
int layout_pane_at(const struct app *app, int y, int x);

/* app.c: the cached summary of a message, or NULL (and a request is due). */
const struct summary *app_summary(struct app *app, uint64_t key);
/* The connection definition for timeline connection i (parsed once). */
bag_msgdef_t *app_def(struct app *app, size_t conn_index);

#endif
