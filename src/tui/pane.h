/*
 * pane.h - a pane of the browser as an object, in the manner of tig's view
 * ops and htop's Panel: each pane (topics, messages, detail, log, plot,
 * timeline, help) keeps its own state (rows, cursor, scroll) behind
 * pane.state and is driven only through its ops. The layout asks each pane
 * for its height and places it in its slot; the screen draws every placed
 * pane; an action goes to the focused pane first, then to the others
 * (focused = false) for the few keys that work from anywhere (the plot's
 * zoom, L for the log).
 *
 * Adding a pane: one file that defines `const struct pane_ops pane_NAME`
 * with designated initialisers, and one row in TUI_PANES below.
 */
#ifndef BAGSCOPE_TUI_PANE_H
#define BAGSCOPE_TUI_PANE_H

#include <stdbool.h>

#include "tui/actions.h"

/* Every pane, in drawing order: X(ENUM, name). A pane later in a slot covers one before it. */
#define TUI_PANES(X) \
	X(CONNS, conns) \
	X(LIST, list) \
	X(DETAIL, detail) \
	X(LOG, log) \
	X(TF, tf) \
	X(DIAG, diag) \
	X(ROSOUT, rosout) \
	X(PLOT, plot) \
	X(TIMELINE, timeline) \
	X(HELP, help)

enum pane_id {
#define TUI_X_PANE(e, name) PANE_##e,
	TUI_PANES(TUI_X_PANE)
#undef TUI_X_PANE
	PANE_COUNT
};

/* A rectangle of the screen. */
struct rect {
	int y, x, h, w;
};

/*
 * Where the layout puts a pane: across the top, the main (left or upper)
 * body, beside it (right or lower; the last open one there is shown),
 * stacked at the bottom above the status line, or the whole screen (a
 * modal pane that takes every key while open).
 */
enum slot { SLOT_TOP, SLOT_MAIN, SLOT_SIDE, SLOT_BOTTOM, SLOT_SCREEN };

struct app;
struct pane;

struct pane_ops {
	const char *title;            /* its name: starts its title row; the help lists it */
	const char *help;             /* one line for the help screen: what it shows */
	enum slot slot;
	bool takes_focus;             /* a SLOT_BOTTOM pane that Tab cycles to (the others in it do not) */
	int (*init)(struct app *app, struct pane *p);                 /* allocate p->state; 0 or -1 */
	void (*draw)(struct app *app, struct pane *p);               /* inside p->r */
	/* an action: focused, or offered to every open pane when the focused one did not take it */
	bool (*key)(struct app *app, struct pane *p, enum action a, bool focused);
	int (*height)(const struct app *app, const struct pane *p, int avail);   /* rows wanted; 0: closed */
	bool (*busy)(const struct app *app, const struct pane *p);  /* a thread fills it: redraw often */
	void (*moved)(struct app *app, struct pane *p);              /* the selected message changed */
	void (*click)(struct app *app, struct pane *p, int row, int col);   /* a click, inside p->r */
	void (*flush)(struct app *app, struct pane *p);              /* after refresh: output curses cannot hold */
	void (*free)(struct app *app, struct pane *p);
};

struct pane {
	const struct pane_ops *ops;
	void *state;                  /* the pane's own, opaque to the rest */
	struct rect r;                /* where the layout put it; h == 0: not on screen */
};

#endif
