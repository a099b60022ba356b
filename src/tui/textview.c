/*
 * textview.c - a struct detail in a pane (textview.h). The cursor and top
 * are rows of the visible lines (collapsed nodes hide their children),
 * kept in sight by the one scroller (scroll.h) before each draw.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/draw.h"
#include "tui/scroll.h"
#include "tui/textview.h"

/* One line, and with wrap on its continuation rows; returns the next free row. */
static int draw_line(struct app *app, struct rect r, int y, const char *line, int depth, bool sel, bool wrap, int hs)
{
	const struct app *hl = sel ? NULL : app;

	if (!wrap) {
		draw_put_match(hl, y++, r.x, r.w, line, hs);
		return y;
	}
	int width = draw_width(line), indent = depth * 2 + 3;
	draw_put_match(hl, y++, r.x, r.w, line, 0);
	for (int from = r.w; from < width && y < r.y + r.h && r.w - indent > 0; from += r.w - indent) {
		draw_put(y, r.x, indent, "");
		draw_put_match(hl, y++, r.x + indent, r.w - indent, line, from);
	}
	return y;
}

void textview_draw(struct app *app, struct pane *p, struct detail *d, const char *rest, bool wrap)
{
	struct rect r = p->r;
	size_t *idx = malloc((d->n + 1) * sizeof *idx), n;
	bool focus = &app->panes[app->m.focus] == p;

	draw_pane_title(app, p, rest);
	if (idx == NULL)
		return;
	n = detail_visible(d, idx, d->n);
	scroll_keep(&d->cursor, &d->top, n, r.h - 1);
	int y = r.y + 1;
	for (size_t v = d->top; y < r.y + r.h; v++) {
		char line[2048];
		if (v >= n) {
			draw_put(y++, r.x, r.w, "");
			continue;
		}
		const struct dline *l = &d->lines[idx[v]];
		snprintf(line, sizeof line, " %*s%s%s", l->depth * 2, "", l->node ? (l->collapsed ? "+ " : "- ") : "  ", l->text);
		bool sel = v == d->cursor && focus;
		if (sel)
			attron(A_REVERSE);
		y = draw_line(app, r, y, line, l->depth, sel, wrap, d->hscroll);
		if (sel)
			attroff(A_REVERSE);
	}
	free(idx);
}

bool textview_key(struct detail *d, enum action a, int page_rows)
{
	uint64_t page = page_rows > 2 ? (uint64_t)page_rows - 2 : 1;

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

void textview_click(struct detail *d, int row)
{
	if (row >= 1)
		d->cursor = d->top + (uint64_t)row - 1;
}
