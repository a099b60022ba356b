/*
 * layout.c - pane rectangles from the terminal size; nothing else decides
 * where a pane goes. Top to bottom: connections, message list, detail,
 * timeline, status line. On a wide terminal (>= 150 columns) the detail
 * pane sits to the right of the message list instead of below it.
 */
#include "tui/app.h"

static int imin(int a, int b) { return a < b ? a : b; }
static int imax(int a, int b) { return a > b ? a : b; }

void layout_compute(struct layout *l, int width, int height, size_t ntopics, size_t ntimeline)
{
	int y = 0, conns_h, tl_h, rest, list_h;

	*l = (struct layout){ 0 };
	if (width < LAYOUT_MIN_W || height < LAYOUT_MIN_H) {
		l->too_small = true;
		return;
	}
	l->status = (struct rect){ height - 1, 0, 1, width };
	/* connections: title + one row per topic, at most a fifth of the screen */
	conns_h = 1 + imax(1, imin((int)ntopics, imax(3, height / 5)));
	/* timeline: title + one strip per shown topic, at most 6 */
	tl_h = 1 + imax(1, imin((int)ntimeline, imin(6, height / 8)));
	rest = height - 1 - conns_h - tl_h;
	l->pane[PANE_CONNS] = (struct rect){ y, 0, conns_h, width };
	y += conns_h;
	if (width >= 150) {
		int lw = width * 11 / 20;
		l->pane[PANE_LIST] = (struct rect){ y, 0, rest, lw };
		l->pane[PANE_DETAIL] = (struct rect){ y, lw, rest, width - lw };
	} else {
		list_h = imax(3, rest * 11 / 20);
		l->pane[PANE_LIST] = (struct rect){ y, 0, list_h, width };
		l->pane[PANE_DETAIL] = (struct rect){ y + list_h, 0, rest - list_h, width };
	}
	y += rest;
	l->pane[PANE_TIMELINE] = (struct rect){ y, 0, tl_h, width };
}
