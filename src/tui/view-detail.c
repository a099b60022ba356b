/*
 * view-detail.c - the detail pane: the lines detail.c built for the
 * selection (decoded tree, hex, connection), scrolled to a cursor, with
 * folding and horizontal scrolling of its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/draw.h"

/* The visible lines of the detail, folded nodes marked +, the cursor on one. */
static void draw_detail(struct app *app, struct rect r)
{
	static const char *const modes[] = { "decoded", "hex", "connection" };
	struct detail *d = &app->detail;
	char title[128];
	size_t *idx, n;

	if (media_draw(app, r))
		return;
	idx = malloc((d->n + 1) * sizeof *idx);
	snprintf(title, sizeof title, " Detail: %s   [v] mode [H] hex [Enter] fold", modes[app->m.detail]);
	draw_pane_title(app, r, title, PANE_DETAIL);
	if (idx == NULL)
		return;
	n = detail_visible(d, idx, d->n);
	if (d->cursor >= n)
		d->cursor = n ? n - 1 : 0;
	if (d->cursor < d->top)
		d->top = d->cursor;
	if (d->cursor >= d->top + (size_t)(r.h - 1))
		d->top = d->cursor - (size_t)(r.h - 2);
	for (int row = 0; row < r.h - 1; row++) {
		size_t v = d->top + (size_t)row;
		char line[1024];
		if (v >= n) {
			draw_put(r.y + 1 + row, r.x, r.w, "");
			continue;
		}
		const struct dline *l = &d->lines[idx[v]];
		const char *text = l->text;
		int skip = d->hscroll;
		while (skip-- > 0 && *text)
			text++;
		snprintf(line, sizeof line, " %*s%s%s", l->depth * 2, "", l->node ? (l->collapsed ? "+ " : "- ") : "  ", text);
		bool sel = v == d->cursor && app->m.focus == PANE_DETAIL;
		if (sel)
			attron(A_REVERSE);
		draw_put(r.y + 1 + row, r.x, r.w, line);
		if (sel)
			attroff(A_REVERSE);
	}
	free(idx);
}

/* Moves and folds inside the detail; false for actions that are not its own. */
static bool detail_act(struct app *app, enum action a)
{
	struct detail *d = &app->detail;
	size_t page = app->panes[PANE_DETAIL].h > 2 ? (size_t)app->panes[PANE_DETAIL].h - 2 : 1;

	switch (a) {
	case ACTION_UP: d->cursor = d->cursor ? d->cursor - 1 : 0; break;
	case ACTION_DOWN: d->cursor++; break;
	case ACTION_PAGE_UP: d->cursor = d->cursor > page ? d->cursor - page : 0; break;
	case ACTION_PAGE_DOWN: d->cursor += page; break;
	case ACTION_TOP: d->cursor = 0; break;
	case ACTION_BOTTOM: d->cursor = d->n; break;
	case ACTION_ENTER: detail_fold(d, d->cursor, -1); break;
	case ACTION_RIGHT:
		/* on a folded node: unfold it; elsewhere: scroll long lines */
		if (!detail_fold(d, d->cursor, 1))
			d->hscroll += 8;
		break;
	case ACTION_LEFT:
		if (d->hscroll > 0)
			d->hscroll = d->hscroll > 8 ? d->hscroll - 8 : 0;
		else
			detail_fold(d, d->cursor, 0);
		break;
	default: return false;
	}
	return true;
}

const struct pane_ops view_detail_ops = {
	.title = "Detail",
	.draw = draw_detail,
	.act = detail_act,
};
