/*
 * textview.h - drawing and moving through a struct detail (detail.h) in a
 * pane: the lines the detail and the log panes show, folded nodes marked +,
 * a cursor on one, long lines cut (scrolled sideways) or wrapped.
 */
#ifndef BAGSCOPE_TUI_TEXTVIEW_H
#define BAGSCOPE_TUI_TEXTVIEW_H

#include "tui/detail.h"
#include "tui/pane.h"

struct app;

/* Draw d in p: the title row (rest after the pane's name), then the lines from d->top. */
void textview_draw(struct app *app, struct pane *p, struct detail *d, const char *rest, bool wrap);

/* Moves and folds in d with a window of page rows; false for actions that are not these. */
bool textview_key(struct detail *d, enum action a, int page);

/* A click on row (of the pane, the title being 0): the cursor goes there. */
void textview_click(struct detail *d, int row);

#endif
