/*
 * view-detail.c - the detail pane: the selected message as a decoded tree
 * (expand/collapse) or as a hex dump, or a topic's connection headers and
 * definitions. Lines are produced on demand for the visible range only: a
 * hex line from the bytes, a tree line from tree.vis, a text line from
 * textlines. Long lines scroll sideways (p->hscroll).
 */
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "tui/app.h"

static uint64_t detail_lines(struct app *app)
{
	if (app->detail_mode == DETAIL_CONN)
		return app->conninfo_valid ? app->conninfo.n : 0;
	if (!app->detail_loaded)
		return 0;
	if (app->detail_mode == DETAIL_HEX)
		return hex_line_count(app->nbytes);
	return app->tree.nvis + (app->detail_err[0] ? 1 : 0);
}

static void detail_title(struct app *app, struct pane *p)
{
	char title[256], right[96];
	struct bag_message m;

	if (app->detail_mode == DETAIL_CONN && app->conninfo_valid) {
		struct topic_row *r = &app->topics.rows[app->conn_topic < app->topics.n ? app->conn_topic : 0];
		snprintf(title, sizeof title, "Connection  %s  %s", r->topic, r->type);
		snprintf(right, sizeof right, " c/x back to message ");
	} else if (app_selected(app, &m)) {
		char size[32] = "";
		if (app->detail_loaded)
			snprintf(size, sizeof size, "  %u bytes", app->nbytes);
		snprintf(title, sizeof title, "%s  %s  %s%s", app->detail_mode == DETAIL_HEX ? "Hex" : "Message",
		         m.conn->topic, m.conn->type, size);
		snprintf(right, sizeof right, app->detail_mode == DETAIL_HEX ? " x tree  c connection "
		                                                              : " x hex  c connection  e expand ");
	} else {
		snprintf(title, sizeof title, "Detail");
		right[0] = '\0';
	}
	draw_title(app, p, title, right);
}

/* One tree line: indent, fold mark, name, value. */
static void draw_tree_line(struct app *app, struct pane *p, int sy, size_t line, int base, bool sel)
{
	const struct tree *t = &app->tree;
	uint32_t node = t->vis[line];
	const struct tree_node *n = &t->nodes[node];
	char lead[160];
	int x = p->rect.x + 1, w = p->rect.w - 2, col;
	const char *mark = "  ";

	if (tree_has_children(t, node))
		mark = n->expanded ? (app->utf8 ? "▾ " : "- ") : (app->utf8 ? "▸ " : "+ ");
	snprintf(lead, sizeof lead, "%*s%s", n->depth * 2, "", mark);
	/* the lead and the name scroll with the rest */
	int skip = p->hscroll;
	int lw = draw_width(lead);
	col = 0;
	attrset(base);
	if (skip < lw)
		col += draw_text(sy, x, w, lead, skip);
	skip = skip > lw ? skip - lw : 0;
	attrset(sel ? base : draw_attr(app, C_KEY));
	const char *label = tree_label(t, node);
	int nw = draw_width(label);
	if (skip < nw)
		col += draw_text(sy, x + col, w - col, label, skip);
	skip = skip > nw ? skip - nw : 0;
	attrset(base);
	const char *value = tree_value(t, node);
	if (value[0] != '\0') {
		if (skip < 2)
			col += draw_text(sy, x + col, w - col, ": ", skip);
		skip = skip > 2 ? skip - 2 : 0;
		attrset(sel ? base : draw_attr(app, tree_has_children(t, node) ? C_DIM : C_VALUE));
		draw_text(sy, x + col, w - col, value, skip);
	}
	attrset(A_NORMAL);
}

static void detail_draw(struct app *app, struct pane *p)
{
	struct scroller *sc = &p->sc;
	int body = p->rect.h - 1;
	char buf[128];

	scroller_set_count(sc, detail_lines(app));
	detail_title(app, p);
	if (app->detail_mode != DETAIL_CONN && !app->detail_loaded) {
		attrset(draw_attr(app, C_DIM));
		draw_text(p->rect.y + 1, p->rect.x + 2, p->rect.w - 4,
		          app->detail_valid ? "reading…" : "", 0);
		attrset(A_NORMAL);
		return;
	}
	for (int y = 0; y < body; y++) {
		uint64_t line = scroller_row_at(sc, y);
		int sy = p->rect.y + 1 + y;
		bool sel = line == sc->cursor && app->focus == p->id;
		int base = sel ? draw_attr(app, C_SELECT) : (int)A_NORMAL;

		if (line >= sc->count)
			break;
		attrset(base);
		draw_fill(sy, p->rect.x, p->rect.w);
		switch (app->detail_mode) {
		case DETAIL_HEX:
			if (fmt_hex_line(buf, sizeof buf, app->bytes, app->nbytes, line))
				draw_text(sy, p->rect.x + 1, p->rect.w - 2, buf, p->hscroll);
			break;
		case DETAIL_CONN: {
			const char *s = textlines_line(&app->conninfo, line);
			if (!sel && s[0] != ' ' && strchr(s, ':') == NULL && s[0] != '\0')
				attrset(draw_attr(app, C_KEY));
			draw_text(sy, p->rect.x + 1, p->rect.w - 2, s, p->hscroll);
			break;
		}
		case DETAIL_TREE:
			if (app->detail_err[0] != '\0' && line == app->tree.nvis) {
				attrset(draw_attr(app, C_ERROR));
				draw_text(sy, p->rect.x + 1, p->rect.w - 2, app->detail_err, p->hscroll);
			} else {
				draw_tree_line(app, p, sy, line, base, sel);
			}
			break;
		}
		attrset(A_NORMAL);
	}
}

static bool detail_action(struct app *app, struct pane *p, enum action a)
{
	struct scroller *sc = &p->sc;
	bool tree = app->detail_mode == DETAIL_TREE && app->detail_loaded && sc->cursor < app->tree.nvis;
	size_t node = tree ? app->tree.vis[sc->cursor] : 0;

	switch (a) {
	case ACT_UP: scroller_move(sc, -1); break;
	case ACT_DOWN: scroller_move(sc, 1); break;
	case ACT_PAGE_UP: scroller_page(sc, -1); break;
	case ACT_PAGE_DOWN: scroller_page(sc, 1); break;
	case ACT_HOME: scroller_goto(sc, 0); p->hscroll = 0; break;
	case ACT_END: scroller_goto(sc, sc->count ? sc->count - 1 : 0); break;
	case ACT_ENTER:
		if (tree)
			tree_set_expanded(&app->tree, node, -1);
		break;
	case ACT_RIGHT:
		if (tree && tree_has_children(&app->tree, node) && !app->tree.nodes[node].expanded)
			tree_set_expanded(&app->tree, node, 1);
		else
			p->hscroll += 8;
		break;
	case ACT_LEFT:
		if (p->hscroll > 0)
			p->hscroll = p->hscroll > 8 ? p->hscroll - 8 : 0;
		else if (tree && tree_has_children(&app->tree, node) && app->tree.nodes[node].expanded)
			tree_set_expanded(&app->tree, node, 0);
		else if (tree)
			scroller_goto(sc, tree_parent_line(&app->tree, sc->cursor));
		break;
	default:
		return false;
	}
	return true;
}

static void detail_click(struct app *app, struct pane *p, int y, int x)
{
	uint64_t line = scroller_row_at(&p->sc, y);

	if (line >= p->sc.count)
		return;
	if (line == p->sc.cursor)
		detail_action(app, p, ACT_ENTER);
	scroller_goto(&p->sc, line);
}

static void detail_wheel(struct app *app, struct pane *p, int delta)
{
	scroller_scroll(&p->sc, delta);
}

const struct pane_ops view_detail_ops = {
	.name = "detail",
	.draw = detail_draw,
	.action = detail_action,
	.click = detail_click,
	.wheel = detail_wheel,
};
