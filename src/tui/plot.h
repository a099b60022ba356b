/*
 * plot.h - the plot pane (view-plot.c): `p` asks for up to four message
 * paths (Tab completes topics and fields); the whole bag is reduced on the
 * scan engine in a thread of its own (reduce.h) and drawn as it comes, in
 * braille across the full width, its time axis aligned with the timeline;
 * the selected message is a cursor line with each series' value under it;
 * `+`/`-` zoom around the cursor and `{`/`}` pan (the list follows), and the
 * window follows the list. The pane is driven through pane_plot's ops; the
 * prompt's table row (prompt.c) calls these two.
 */
#ifndef BAGSCOPE_TUI_PLOT_H
#define BAGSCOPE_TUI_PLOT_H

struct app;
struct prompt;

/* Enter at the plot prompt: plot the paths in text (',' between). */
void plot_submit(struct app *app, const char *text);
/* Tab at the plot prompt: complete the last path's topic or field. */
void plot_tab(struct app *app, struct prompt *p);

#endif
