/*
 * draw.h - what the panes share for drawing (paint.c): colours, clipped
 * text, a pane's title row, time formatting; and the screen (screen.c),
 * the layout (layout.c) and the pane table (panes.c). Only these and the
 * view-*.c files call curses.
 */
#ifndef BAGSCOPE_TUI_DRAW_H
#define BAGSCOPE_TUI_DRAW_H

#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED
#endif
#include <curses.h>

#include "tui/app.h"

enum { C_TITLE = 1, C_FOCUS, C_DIM, C_HIDDEN, C_ERROR, C_BAR };

/* The smallest terminal the panes fit in. */
#define MIN_COLS 60
#define MIN_LINES 16
/* The status line's rows at most: a long note wraps (the rest: L). */
#define STATUS_ROWS 4

/* Turn a colour pair (and attributes) on or off; attributes only without colour. */
void draw_colour_on(struct app *app, int pair, attr_t extra);
void draw_colour_off(struct app *app, int pair, attr_t extra);

/*
 * Text at (y, x), escaped (common/termtext.h: control characters and bad
 * UTF-8 become visible escapes), cut to w terminal columns, the rest of the
 * width blanked. All text reaches the screen through here.
 */
void draw_put(int y, int x, int w, const char *s);
/* The same from column skip on, with the search's match (app->hl) in reverse video (app may be NULL). */
void draw_put_match(const struct app *app, int y, int x, int w, const char *s, int skip);
/* Columns s takes as draw_put writes it. */
int draw_width(const char *s);
/* The rows the status line needs at w columns (1 to STATUS_ROWS). */
int status_rows(struct app *app, int w);
/* A date as the status line shows it, in UTC or local time (m.local), with the zone. */
void draw_fmt_date(const struct app *app, int64_t t, char *buf, size_t cap);

/* A pane's title row: " " its ops' title, then rest; highlighted when the pane has the focus. */
void draw_pane_title(struct app *app, const struct pane *p, const char *rest);

/* A message time as the list shows it: epoch or relative, to the nanosecond. */
void draw_fmt_time(const struct app *app, int64_t ns, char *buf, size_t cap);

void draw_init_colours(struct app *app);

/* screen.c: the whole screen (the layout first). */
void draw_all(struct app *app);

/* layout.c: pane rectangles from the terminal size and the status line's rows
 * (status_h: status_rows); the pane at (y, x) or PANE_COUNT. */
void layout_compute(struct app *app, int status_h);
int layout_pane_at(const struct app *app, int y, int x);

/* panes.c: the table, and what is done to every pane. */
extern const struct pane_ops *const pane_table[PANE_COUNT];
int panes_init(struct app *app);
void panes_free(struct app *app);
/* The selected message changed: each pane's moved op. */
void panes_moved(struct app *app);
bool panes_busy(const struct app *app);
/* The open modal pane (SLOT_SCREEN), or NULL. */
struct pane *panes_modal(struct app *app);
/* An action: the modal pane, else the focused pane, then every other open pane. */
bool panes_key(struct app *app, enum action a);
/* Tab and Shift-Tab: the next pane on screen that takes keys. */
void panes_focus_next(struct app *app, int dir);

#endif
