/*
 * layout.c - the one place that turns the terminal size into pane
 * rectangles: a title row, the connections across the top, then the list and
 * the detail side by side (or, on a narrow terminal, the detail under the
 * list), the timeline strips and the status line at the bottom.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/draw.h"

#define WIDE_COLS 110

void layout_compute(struct app *app)
{
	int lines = LINES, cols = COLS;
	struct model *m = &app->m;

	app->too_small = lines < MIN_LINES || cols < MIN_COLS;
	int conns_h = (int)m->ntopics + 2;
	if (conns_h > (lines - 4) / 3)
		conns_h = (lines - 4) / 3;
	if (conns_h < 4)
		conns_h = 4;
	/* one strip per topic under the summed timeline, as room allows */
	app->strips = (int)m->ntopics < lines / 10 ? (int)m->ntopics : lines / 10;
	if (app->strips > 6)
		app->strips = 6;
	if (app->strips < 0 || m->ntopics < 2)
		app->strips = 0;
	int body_y = 1 + conns_h, body_h = lines - 2 - app->strips - body_y;
	int plot_h = plot_height(app, body_h);
	body_h -= plot_h;
	plot_place(app, (struct rect){ body_y + body_h, 0, plot_h, cols });
	app->panes[PANE_CONNS] = (struct rect){ 1, 0, conns_h, cols };
	if (cols >= WIDE_COLS) {
		/* wide: list and detail side by side */
		int list_w = cols * 62 / 100;
		app->panes[PANE_LIST] = (struct rect){ body_y, 0, body_h, list_w };
		app->panes[PANE_DETAIL] = (struct rect){ body_y, list_w, body_h, cols - list_w };
	} else {
		/* narrow: the list keeps the full width for its summaries, the detail goes below */
		int list_h = body_h / 2 + 1;
		app->panes[PANE_LIST] = (struct rect){ body_y, 0, list_h, cols };
		app->panes[PANE_DETAIL] = (struct rect){ body_y + list_h, 0, body_h - list_h, cols };
	}
	app->timeline = (struct rect){ lines - 2 - app->strips, 0, 1 + app->strips, cols };
	app->status = (struct rect){ lines - 1, 0, 1, cols };
	if (app->zoom)
		app->panes[PANE_DETAIL] = (struct rect){ 0, 0, lines - 1, cols };
	m->topic_height = conns_h - 2;
	m->list_height = app->panes[PANE_LIST].h - 1;
}

int layout_pane_at(const struct app *app, int y, int x)
{
	for (int p = 0; p < PANE_COUNT; p++) {
		const struct rect *r = &app->panes[p];
		if (y >= r->y && y < r->y + r->h && x >= r->x && x < r->x + r->w)
			return p;
	}
	return PANE_COUNT;
}

