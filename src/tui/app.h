/*
 * app.h - the browser's shared state and the interfaces between its parts:
 * the panes' ops table, the layout's rectangles, the row cache that the
 * worker fills, and the drawing helpers.
 *
 * Panes: connections (topics), the message list, the detail pane and the
 * timeline strip. Each is a struct pane holding its ops and its rectangle;
 * the app routes actions to the focused pane's ops first and handles the
 * global ones itself. The status line and the prompt belong to draw.c.
 */
#ifndef BAGSCOPE_TUI_APP_H
#define BAGSCOPE_TUI_APP_H

#include <stdio.h>

#include <bagscope/bagscope.h>

#include "tui/keys.h"
#include "tui/model.h"
#include "tui/worker.h"

/* ---- layout ------------------------------------------------------------- */

struct rect {
	int y, x, h, w;   /* top-left corner and size; h == 0: not shown */
};

enum pane_id { PANE_CONNS, PANE_LIST, PANE_DETAIL, PANE_TIMELINE, PANE_COUNT };

/* Where everything goes for a terminal of a given size. */
struct layout {
	bool too_small;           /* nothing fits: say so instead */
	struct rect pane[PANE_COUNT]; /* each includes its one-line title bar */
	struct rect status;       /* the last line */
};

#define LAYOUT_MIN_W 60
#define LAYOUT_MIN_H 16

/*
 * Rectangles for a width x height terminal, with nconns topic rows and
 * ntimeline topic strips wanted. Pure arithmetic (tests call it).
 */
void layout_compute(struct layout *l, int width, int height, size_t ntopics, size_t ntimeline);

/* ---- panes -------------------------------------------------------------- */

struct app;
struct pane;

/* What a pane can do; every member may be NULL except draw. */
struct pane_ops {
	const char *name;
	/* Draw inside p->rect (title bar on its first line). */
	void (*draw)(struct app *app, struct pane *p);
	/* Handle an action; true if it was this pane's. */
	bool (*action)(struct app *app, struct pane *p, enum action a);
	/* A click at (y, x) relative to the rectangle's body (below the title). */
	void (*click)(struct app *app, struct pane *p, int y, int x);
	/* Mouse wheel: delta rows. */
	void (*wheel)(struct app *app, struct pane *p, int delta);
};

struct pane {
	enum pane_id id;
	const struct pane_ops *ops;
	struct rect rect;
	struct scroller sc;      /* rows of the pane's body */
	int hscroll;             /* columns scrolled off to the left */
};

extern const struct pane_ops view_conns_ops;
extern const struct pane_ops view_list_ops;
extern const struct pane_ops view_detail_ops;
extern const struct pane_ops view_timeline_ops;

/* ---- the row cache: what the worker found about rows -------------------- */

struct row_fact {
	struct msg_ref ref;      /* key: bag_index, chunk, offset */
	bool used;
	bool failed;             /* summary holds an error */
	uint32_t size;
	char *summary;           /* owned */
};

#define ROWCACHE_SLOTS 16384  /* power of two; cleared when 3/4 full */

struct rowcache {
	struct row_fact *slot;
	size_t used;
};

int rowcache_init(struct rowcache *c);
void rowcache_free(struct rowcache *c);
/* The facts for ref, or NULL. */
const struct row_fact *rowcache_get(const struct rowcache *c, const struct msg_ref *ref);
/* Store facts (takes summary). */
void rowcache_put(struct rowcache *c, const struct msg_ref *ref, uint32_t size, char *summary, bool failed);

/* ---- the app ------------------------------------------------------------ */

enum detail_mode { DETAIL_TREE, DETAIL_HEX, DETAIL_CONN };
enum prompt_kind { PROMPT_NONE, PROMPT_JUMP, PROMPT_SEARCH };

struct app {
	/* data */
	size_t nbags;
	char **paths;               /* borrowed from argv */
	bag_t **bags;
	bag_timeline_t *tl;
	bag_view_t *view;           /* the shown topics */
	struct topics topics;
	bool *mask;                 /* view's conn_mask */
	bag_msgdef_t **defs;        /* main thread's parsed definitions, by conn index */
	int *def_rc;
	int64_t start_ns, end_ns;
	struct worker *worker;
	bool worker_ready;
	struct rowcache cache;

	/* panes */
	struct pane pane[PANE_COUNT];
	enum pane_id focus;
	struct layout layout;

	/* message list */
	bool time_relative;
	struct msg_ref want[512];   /* rows drawn without facts this frame */
	size_t nwant;
	uint64_t list_missing;      /* visible rows still waiting for the worker */

	/* detail pane */
	enum detail_mode detail_mode;
	struct msg_ref detail_ref;  /* message the detail shows or waits for */
	bool detail_valid;          /* detail_ref is set */
	bool detail_loaded;         /* bytes below are detail_ref's */
	uint8_t *bytes;
	uint32_t nbytes;
	struct tree tree;
	char detail_err[256];       /* decode error for the tree */
	size_t conn_topic;          /* DETAIL_CONN: the topic row shown */
	struct textlines conninfo;
	bool conninfo_valid;

	/* timeline density */
	uint32_t *density;          /* ntopics x density_cols, by topic colour slot */
	int density_cols;
	uint64_t density_gen;       /* job we wait for */
	bool density_pending;

	/* status */
	char error[256];            /* last error, shown until the next action */
	char note[256];             /* last notice */

	/* prompt */
	enum prompt_kind prompt;
	char input[128];
	size_t input_len;

	/* search */
	char pattern[128];
	bool searching;
	uint64_t search_gen;
	uint64_t search_done, search_total;
	int search_dir;

	/* screen */
	int width, height;
	bool color;
	bool utf8;
	bool help;                  /* the help overlay is up */
	int help_top;
	bool dirty;                 /* redraw needed */
	bool quit;

	/* bench/trace: BAGSCOPE_TRACE=path */
	FILE *trace;
	int64_t t_start;
	bool traced_first, traced_full;
};

/* Run one action: the focused pane first, then the app's global handler. */
void app_action(struct app *app, enum action a);
/* Columns of the timeline's strips inside pane p. */
int timeline_cols_for(const struct pane *p);

/* Entry point: browse paths; returns the process exit status. */
int tui_main(char **paths, size_t npaths);

/* Rebuild the message view from the topic mask, keeping the selected time. */
void app_refilter(struct app *app);
/* Select row in the list (clamped), update the detail request. */
void app_select_row(struct app *app, uint64_t row);
/* Select the first shown message at or after t. */
void app_select_time(struct app *app, int64_t t);
/* The selected message's index facts; false if the list is empty. */
bool app_selected(struct app *app, struct bag_message *m);
/* Record an error for the status line (printf-style). */
void app_error(struct app *app, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void app_note(struct app *app, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The parsed definition of timeline connection i (NULL if bad); errmsg set. */
bag_msgdef_t *app_def(struct app *app, size_t conn_index, const char **errmsg);
/* Show a topic's connections in the detail pane. */
void app_show_conn(struct app *app, size_t topic_row);
/* Start a search forward (dir 1) or backward (-1) from the selection. */
void app_search(struct app *app, int dir);
/* Note that the list drew ref without its facts (the worker will be asked). */
void app_list_want(struct app *app, const struct msg_ref *ref);
/* msg_ref for an index entry. */
struct msg_ref app_ref(const struct bag_message *m);

/* ---- drawing helpers (draw.c) ------------------------------------------- */

enum color_slot {
	C_NORMAL = 0,
	C_TITLE,          /* pane title bar */
	C_TITLE_FOCUS,    /* focused pane's title bar */
	C_SELECT,         /* selected row, focused pane */
	C_SELECT_DIM,     /* selected row, other panes */
	C_DIM,            /* placeholders, hidden topics */
	C_ERROR,
	C_STATUS,
	C_TIME,           /* time column */
	C_KEY,            /* help: keys; tree: field names */
	C_VALUE,          /* tree values */
	C_CURSOR,         /* timeline cursor */
	C_TOPIC0,         /* topic colours C_TOPIC0 .. C_TOPIC0 + NTOPIC_COLORS - 1 */
};
#define NTOPIC_COLORS 6

void draw_init_colors(struct app *app);
/* The attribute for a slot, colour or monochrome. */
int draw_attr(const struct app *app, enum color_slot slot);
int draw_topic_attr(const struct app *app, size_t color);
/* Put s at (y, x), at most w columns (multibyte aware), from column skip. */
int draw_text(int y, int x, int w, const char *s, int skip);
/* Fill w columns at (y, x) with spaces in the current attribute. */
void draw_fill(int y, int x, int w);
/* A title bar: name, then extra text, highlighted when focused. */
void draw_title(struct app *app, struct pane *p, const char *title, const char *right);
/* Whole screen: panes, status line, prompt, help overlay. */
void draw_screen(struct app *app);
/* Display width of a UTF-8 string. */
int draw_width(const char *s);

#endif
