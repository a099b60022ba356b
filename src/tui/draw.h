/*
 * draw.h - what the pane views share for drawing: colours, clipped text, a
 * pane's title row, time formatting. Only the draw/view/layout files call
 * curses.
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
/* A date as the status line shows it, in UTC or local time (m.local), with the zone. */
void draw_fmt_date(const struct app *app, int64_t t, char *buf, size_t cap);

/* A pane's title row, highlighted when the pane has the focus. */
void draw_pane_title(struct app *app, struct rect r, const char *title, int pane);

/* A message time as the list shows it: epoch or relative, to the nanosecond. */
void draw_fmt_time(const struct app *app, int64_t ns, char *buf, size_t cap);

/* The panes (view-conns.c, view-list.c, view-detail.c). */
extern const struct pane_ops view_conns_ops;
extern const struct pane_ops view_list_ops;
extern const struct pane_ops view_detail_ops;

#endif
