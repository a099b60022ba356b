/*
 * view-detail.c - the detail pane: the lines detail.c built for the
 * selection (decoded tree, hex, connection), scrolled to a cursor, with
 * folding and horizontal scrolling of its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/draw.h"

/* The detail the pane shows: the log view, or the message's. */
static struct detail *shown(struct app *app)
{
	return app->show_log ? &app->log : &app->detail;
}

/*
 * The visible lines of the detail, folded nodes marked +, the cursor on
 * one; long lines cut (scrolled by h, l) or, with wrap on, continued on
 * the rows below.
 */
static void draw_detail(struct app *app, struct rect r)
{
	static const char *const modes[] = { "decoded", "hex", "connection" };
	struct detail *d = shown(app);
	char title[256];
	size_t *idx = malloc((d->n + 1) * sizeof *idx), n;
	int rows = r.h - 1;

	if (!app->show_log && app->conns_topic < 0 && media_draw(app, r)) {
		free(idx);
		return;
	}

	if (app->show_log)
		snprintf(title, sizeof title, " Log: recovery, warnings, errors   [L] close%s", app->zoom ? "" : " [z] zoom");
	else if (app->conns_topic >= 0)
		snprintf(title, sizeof title, " Detail: the topic's connections   [Esc] back");
	else
		snprintf(title, sizeof title, " Detail: %s   [v] mode [H] hex [z] zoom [w] wrap%s", modes[app->m.detail],
		         app->wrap ? " (on)" : "");
	draw_pane_title(app, r, title, PANE_DETAIL);
	if (idx == NULL)
		return;
	n = detail_visible(d, idx, d->n);
	if (d->cursor >= n)
		d->cursor = n ? n - 1 : 0;
	if (d->cursor < d->top)
		d->top = d->cursor;
	if (d->cursor >= d->top + (size_t)rows)
		d->top = d->cursor - (size_t)(rows - 1);
	int y = r.y + 1;
	for (size_t v = d->top; y < r.y + r.h; v++) {
		char line[2048];
		if (v >= n) {
			draw_put(y++, r.x, r.w, "");
			continue;
		}
		const struct dline *l = &d->lines[idx[v]];
		snprintf(line, sizeof line, " %*s%s%s", l->depth * 2, "", l->node ? (l->collapsed ? "+ " : "- ") : "  ", l->text);
		bool sel = v == d->cursor && app->m.focus == PANE_DETAIL;
		if (sel)
			attron(A_REVERSE);
		if (!app->wrap && !app->show_log) {
			draw_put_match(sel ? NULL : app, y++, r.x, r.w, line, d->hscroll);
		} else {
			int width = draw_width(line), indent = l->depth * 2 + 3;
			draw_put_match(sel ? NULL : app, y++, r.x, r.w, line, 0);
			for (int from = r.w; from < width && y < r.y + r.h; from += r.w - indent) {
				char cont[2048];
				snprintf(cont, sizeof cont, "%*s", indent, "");
				draw_put(y, r.x, indent, cont);
				draw_put_match(sel ? NULL : app, y++, r.x + indent, r.w - indent, line, from);
				if (r.w - indent <= 0)
					break;
			}
		}
		if (sel)
			attroff(A_REVERSE);
	}
	free(idx);
}

/* Moves and folds inside the detail; false for actions that are not its own. */
static bool detail_act(struct app *app, enum action a)
{
	struct detail *d = shown(app);
	size_t page = app->panes[PANE_DETAIL].h > 2 ? (size_t)app->panes[PANE_DETAIL].h - 2 : 1;

	switch (a) {
	case ACTION_UP: d->cursor = d->cursor ? d->cursor - 1 : 0; break;
	case ACTION_DOWN: d->cursor++; break;
	case ACTION_HALF_UP: d->cursor = d->cursor > page / 2 ? d->cursor - page / 2 : 0; break;
	case ACTION_HALF_DOWN: d->cursor += page / 2; break;
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
