/*
 * view-list.c - the message list: one row per shown message, in time order.
 *
 * Virtual over any number of rows: a frame asks the view for the index facts
 * of rows [top, top + height) only (bag_view_entry: no chunk is read), draws
 * row number, time and topic at once, and takes size and summary from the
 * row cache. Rows the cache lacks are drawn with a placeholder and collected
 * into app_list_wants(), which the app posts to the worker after the frame,
 * together with the rows a page above and below (prefetch).
 */
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "tui/app.h"

/* Column widths for this frame. */
struct list_cols {
	int row_w, time_w, topic_w, size_w, summary_x;
};

static struct list_cols list_columns(struct app *app, struct pane *p)
{
	struct list_cols c;
	char buf[32];
	size_t longest = 8;

	snprintf(buf, sizeof buf, "%llu", (unsigned long long)bag_view_count(app->view));
	c.row_w = (int)strlen(buf) < 4 ? 4 : (int)strlen(buf);
	c.time_w = app->time_relative ? 14 : 20;
	for (size_t k = 0; k < app->topics.n; k++)
		if (app->topics.rows[k].shown && strlen(app->topics.rows[k].topic) > longest)
			longest = strlen(app->topics.rows[k].topic);
	c.topic_w = (int)longest;
	if (c.topic_w > p->rect.w / 4)
		c.topic_w = p->rect.w / 4;
	c.size_w = 6;
	c.summary_x = 1 + c.row_w + 2 + c.time_w + 2 + c.topic_w + 2 + c.size_w + 2;
	return c;
}

static void list_draw(struct app *app, struct pane *p)
{
	struct list_cols c = list_columns(app, p);
	struct scroller *sc = &p->sc;
	char title[256], right[128], buf[96];
	struct bag_message m;
	int body = p->rect.h - 1;

	scroller_set_count(sc, bag_view_count(app->view));
	snprintf(title, sizeof title, "%*s  %-*s  %-*s  %*s  %s", c.row_w, "#", c.time_w,
	         app->time_relative ? "Time (s from start)" : "Time", c.topic_w, "Topic", c.size_w, "Size",
	         "Summary");
	fmt_count(buf, sizeof buf, sc->count);
	snprintf(right, sizeof right, " %s messages ", buf);
	draw_title(app, p, title, right);
	app->list_missing = 0;
	for (int y = 0; y < body; y++) {
		uint64_t row = scroller_row_at(sc, y);
		int sy = p->rect.y + 1 + y, x = p->rect.x;
		bool sel = row == sc->cursor;
		int base;

		if (row >= sc->count)
			break;
		base = sel ? draw_attr(app, app->focus == p->id ? C_SELECT : C_SELECT_DIM) : (int)A_NORMAL;
		attrset(base);
		draw_fill(sy, x, p->rect.w);
		if (bag_view_entry(app->view, row, &m) != BAG_OK) {
			attrset(draw_attr(app, C_ERROR));
			draw_text(sy, x + 1, p->rect.w - 2, bag_view_errmsg(app->view), 0);
			attrset(A_NORMAL);
			continue;
		}
		snprintf(buf, sizeof buf, "%*llu", c.row_w, (unsigned long long)row + 1);
		draw_text(sy, x + 1, c.row_w, buf, 0);
		if (app->time_relative)
			fmt_time_rel(buf, sizeof buf, m.time_ns, app->start_ns);
		else
			fmt_time_abs(buf, sizeof buf, m.time_ns);
		char tb[100];
		snprintf(tb, sizeof tb, "%*s", c.time_w, buf);
		attrset(sel ? base : draw_attr(app, C_TIME));
		draw_text(sy, x + 1 + c.row_w + 2, c.time_w, tb, 0);
		size_t tr = topics_find_conn(&app->topics, m.conn_index);
		attrset(sel ? base : draw_topic_attr(app, tr < app->topics.n ? app->topics.rows[tr].color : 0));
		int tx = x + 1 + c.row_w + 2 + c.time_w + 2;
		int tw = draw_width(m.conn->topic);
		draw_text(sy, tx, c.topic_w, m.conn->topic, tw > c.topic_w ? tw - c.topic_w : 0);
		attrset(base);

		struct msg_ref ref = app_ref(&m);
		const struct row_fact *f = rowcache_get(&app->cache, &ref);
		int sx = tx + c.topic_w + 2;
		if (f == NULL) {
			app_list_want(app, &ref);
			app->list_missing++;
			attrset(sel ? base : draw_attr(app, C_DIM));
			draw_text(sy, sx + c.size_w - 1, 1, "…", 0);
			draw_text(sy, x + c.summary_x, p->rect.w - c.summary_x - 1, "…", 0);
		} else {
			fmt_size(buf, sizeof buf, f->size);
			snprintf(tb, sizeof tb, "%*s", c.size_w, buf);
			draw_text(sy, sx, c.size_w, tb, 0);
			if (f->failed)
				attrset(sel ? base : draw_attr(app, C_ERROR));
			draw_text(sy, x + c.summary_x, p->rect.w - c.summary_x - 1, f->summary ? f->summary : "",
			          p->hscroll);
		}
		attrset(A_NORMAL);
	}
	if (sc->count == 0) {
		attrset(draw_attr(app, C_DIM));
		draw_text(p->rect.y + 2, p->rect.x + 2, p->rect.w - 4,
		          app->topics.n == 0 ? "this bag has no messages" : "no topic shown: press f or F on a topic", 0);
		attrset(A_NORMAL);
	}
}

static bool list_action(struct app *app, struct pane *p, enum action a)
{
	struct scroller *sc = &p->sc;

	switch (a) {
	case ACT_UP: scroller_move(sc, -1); break;
	case ACT_DOWN: scroller_move(sc, 1); break;
	case ACT_PAGE_UP: scroller_page(sc, -1); break;
	case ACT_PAGE_DOWN: scroller_page(sc, 1); break;
	case ACT_HOME: scroller_goto(sc, 0); break;
	case ACT_END: scroller_goto(sc, sc->count ? sc->count - 1 : 0); break;
	case ACT_LEFT: p->hscroll = p->hscroll > 8 ? p->hscroll - 8 : 0; break;
	case ACT_RIGHT: p->hscroll += 8; break;
	case ACT_ENTER:
		app->focus = PANE_DETAIL;
		break;
	default:
		return false;
	}
	return true;
}

static void list_click(struct app *app, struct pane *p, int y, int x)
{
	uint64_t row = scroller_row_at(&p->sc, y);

	if (row < p->sc.count)
		scroller_goto(&p->sc, row);
}

static void list_wheel(struct app *app, struct pane *p, int delta)
{
	scroller_scroll(&p->sc, delta);
}

const struct pane_ops view_list_ops = {
	.name = "messages",
	.draw = list_draw,
	.action = list_action,
	.click = list_click,
	.wheel = list_wheel,
};
