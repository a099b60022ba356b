/*
 * layout.c - the one place that turns the terminal size into pane
 * rectangles, by slot (pane.h): a title row; the SLOT_TOP pane across the
 * top; the main pane and the side pane side by side (or, on a narrow
 * terminal, the side pane under the main one); the SLOT_BOTTOM panes
 * stacked above the status line; a SLOT_SCREEN pane, when open, over
 * everything. Each pane's height op says how many rows it wants out of
 * what is left. A pane not placed has h == 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/draw.h"

#define WIDE_COLS 110

/* Rows pane p wants out of avail (its height op; none: all of it). */
static int wants(struct app *app, struct pane *p, int avail)
{
	int h = p->ops->height != NULL ? p->ops->height(app, p, avail) : avail;
	return h < 0 ? 0 : h > avail ? avail : h;
}

/* The pane shown in slot s: the last in the table that wants rows (the side: a log covers the detail). */
static struct pane *in_slot(struct app *app, enum slot s, int avail)
{
	struct pane *best = NULL;

	for (int i = 0; i < PANE_COUNT; i++)
		if (app->panes[i].ops->slot == s && wants(app, &app->panes[i], avail) > 0)
			best = &app->panes[i];
	return best;
}

/* The bottom panes, from the lowest up, above the status line; returns the first row they take. */
static int place_bottom(struct app *app, int top, int bottom)
{
	for (int i = PANE_COUNT - 1; i >= 0; i--) {
		struct pane *p = &app->panes[i];
		if (p->ops->slot != SLOT_BOTTOM)
			continue;
		int h = wants(app, p, bottom - top);
		bottom -= h;
		p->r = (struct rect){ bottom, 0, h, COLS };
	}
	return bottom;
}

/* The main and side panes in the body [y, y + h). */
static void place_body(struct app *app, int y, int h)
{
	struct pane *main = in_slot(app, SLOT_MAIN, h), *side = in_slot(app, SLOT_SIDE, h);
	int cols = COLS;

	if (main == NULL || side == NULL)
		return;
	if (cols >= WIDE_COLS) {
		/* wide: side by side */
		int list_w = cols * 62 / 100;
		main->r = (struct rect){ y, 0, h, list_w };
		side->r = (struct rect){ y, list_w, h, cols - list_w };
	} else {
		/* narrow: the main pane keeps the full width for its summaries, the side one goes below */
		int list_h = h / 2 + 1;
		main->r = (struct rect){ y, 0, list_h, cols };
		side->r = (struct rect){ y + list_h, 0, h - list_h, cols };
	}
}

void layout_compute(struct app *app, int status_h)
{
	int lines = LINES, cols = COLS;
	struct pane *top, *modal, *side;

	for (int i = 0; i < PANE_COUNT; i++)
		app->panes[i].r = (struct rect){ 0, 0, 0, 0 };
	app->too_small = lines < MIN_LINES || cols < MIN_COLS;
	int srows = app->too_small || status_h < 1 ? 1 : status_h;
	app->status = (struct rect){ lines - srows, 0, srows, cols };
	lines -= srows - 1;          /* below: lines - 1 is the row above the status line */
	if ((modal = in_slot(app, SLOT_SCREEN, lines - 1)) != NULL) {
		modal->r = (struct rect){ 0, 0, lines - 1, cols };
		return;
	}
	if (app->zoom && (side = in_slot(app, SLOT_SIDE, lines - 1)) != NULL) {
		side->r = (struct rect){ 0, 0, lines - 1, cols };
		return;
	}
	int body_y = 1;
	if ((top = in_slot(app, SLOT_TOP, (lines - 4) / 3)) != NULL) {
		top->r = (struct rect){ 1, 0, wants(app, top, (lines - 4) / 3), cols };
		body_y += top->r.h;
	}
	int body_end = place_bottom(app, body_y, lines - 1);
	place_body(app, body_y, body_end - body_y);
	app->m.topic_height = app->panes[PANE_CONNS].r.h - 2;
	/* the list's title row, and its columns' titles when it has columns or several bags */
	app->m.list_height = app->panes[PANE_LIST].r.h - 1 - (app->cols.n > 0 || app->cb.nbags > 1);
}

int layout_pane_at(const struct app *app, int y, int x)
{
	for (int p = PANE_COUNT - 1; p >= 0; p--) {
		const struct rect *r = &app->panes[p].r;
		if (r->h > 0 && y >= r->y && y < r->y + r->h && x >= r->x && x < r->x + r->w)
			return p;
	}
	return PANE_COUNT;
}
