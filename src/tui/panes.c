/*
 * panes.c - the pane table (one row per pane, from TUI_PANES in pane.h)
 * and what is done to all panes at once: init, free, the moved and busy
 * ops, key dispatch and focus. Invariant: app->panes[i].ops is
 * pane_table[i] after panes_init; a pane is on screen when its r.h > 0.
 */
#include <stdlib.h>

#include "tui/draw.h"

#define TUI_X_EXTERN(e, name) extern const struct pane_ops pane_##name;
TUI_PANES(TUI_X_EXTERN)
#undef TUI_X_EXTERN

const struct pane_ops *const pane_table[PANE_COUNT] = {
#define TUI_X_ROW(e, name) [PANE_##e] = &pane_##name,
	TUI_PANES(TUI_X_ROW)
#undef TUI_X_ROW
};

int panes_init(struct app *app)
{
	for (int i = 0; i < PANE_COUNT; i++) {
		struct pane *p = &app->panes[i];
		p->ops = pane_table[i];
		if (p->ops->init != NULL && p->ops->init(app, p) != 0)
			return -1;
	}
	return 0;
}

void panes_free(struct app *app)
{
	for (int i = 0; i < PANE_COUNT; i++) {
		struct pane *p = &app->panes[i];
		if (p->ops != NULL && p->ops->free != NULL)
			p->ops->free(app, p);
		free(p->state);
		p->state = NULL;
	}
}

void panes_moved(struct app *app)
{
	for (int i = 0; i < PANE_COUNT; i++)
		if (app->panes[i].ops->moved != NULL)
			app->panes[i].ops->moved(app, &app->panes[i]);
}

bool panes_busy(const struct app *app)
{
	for (int i = 0; i < PANE_COUNT; i++)
		if (app->panes[i].ops->busy != NULL && app->panes[i].ops->busy(app, &app->panes[i]))
			return true;
	return false;
}

struct pane *panes_modal(struct app *app)
{
	for (int i = 0; i < PANE_COUNT; i++) {
		struct pane *p = &app->panes[i];
		if (p->ops->slot == SLOT_SCREEN && p->ops->height != NULL && p->ops->height(app, p, 1) > 0)
			return p;
	}
	return NULL;
}

bool panes_key(struct app *app, enum action a)
{
	struct pane *modal = panes_modal(app), *f = &app->panes[app->m.focus];

	if (modal != NULL)
		return modal->ops->key(app, modal, a, true);
	if (f->ops->key != NULL && f->ops->key(app, f, a, true))
		return true;
	/* the others, the later (covering) ones first */
	for (int i = PANE_COUNT - 1; i >= 0; i--) {
		struct pane *p = &app->panes[i];
		if (p != f && p->ops->key != NULL && p->ops->key(app, p, a, false))
			return true;
	}
	return false;
}

void panes_focus_next(struct app *app, int dir)
{
	int at = (int)app->m.focus;

	for (int k = 0; k < PANE_COUNT; k++) {
		at = (at + dir + PANE_COUNT) % PANE_COUNT;
		const struct pane *p = &app->panes[at];
		if (p->r.h > 0 && p->ops->key != NULL && p->ops->slot != SLOT_SCREEN &&
		    (p->ops->slot != SLOT_BOTTOM || p->ops->takes_focus)) {
			app->m.focus = (enum pane_id)at;
			return;
		}
	}
}
