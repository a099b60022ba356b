/*
 * plot.h - the browser's plot pane (view-plot.c): `p` asks for up to four
 * message paths (Tab completes topics and fields), the whole bag is reduced
 * on the scan engine in a thread of its own (reduce.h) and drawn as it
 * comes, in braille across the full width, its time axis aligned with the
 * timeline strip; the selected message is a cursor line with each series'
 * value under it; `+`/`-` zoom around the cursor and `{`/`}` pan (the list
 * follows), and the window follows the list. Hooks for app.c, draw.c and
 * layout.c.
 */
#ifndef BAGSCOPE_TUI_PLOT_H
#define BAGSCOPE_TUI_PLOT_H

#include <stdbool.h>

#include "tui/actions.h"

struct app;
struct rect;

/* The plot's own actions (PLOT*): true if a was one. */
bool plot_act(struct app *app, enum action a);

/* A key while the plot's prompt (app->prompt == 'p') is open. */
void plot_prompt_key(struct app *app, int key);

/* The prompt's text for the status line. */
const char *plot_prompt_text(struct app *app);

/* Rows the layout gives the plot out of body_h (0 when closed), and its rectangle. */
int plot_height(struct app *app, int body_h);
void plot_place(struct app *app, struct rect r);

/* Draw the pane (nothing when closed). */
void plot_draw(struct app *app);

/* Whether a reduction is running (the loop then wakes often to draw it). */
bool plot_busy(struct app *app);

/* Stop the thread and free everything; accepts an app that never plotted. */
void plot_free(struct app *app);

#endif
