/*
 * view-conns.c - the connections pane: one row per topic (its connections
 * folded together) with type, message count, rate and connection count; a
 * mark says whether the topic is shown in the message list. Toggling a
 * topic rebuilds the list's view with a new conn_mask (app_refilter).
 */
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "tui/app.h"

static void conns_draw(struct app *app, struct pane *p)
{
	struct scroller *sc = &p->sc;
	struct topics *t = &app->topics;
	char title[512], right[96], cnt[32], rate[32], buf[256];
	int w = p->rect.w, body = p->rect.h - 1;
	int type_w = 0, topic_w = 12;
	uint64_t shown_msgs;
	size_t shown = topics_shown(t, &shown_msgs);
	const char *arrow = app->utf8 ? "▼" : "v";

	scroller_set_count(sc, t->n);
	for (size_t k = 0; k < t->n; k++) {
		int l = draw_width(t->rows[k].topic);
		if (l > topic_w)
			topic_w = l;
		l = draw_width(t->rows[k].type) + (t->rows[k].mixed_types ? 2 : 0);
		if (l > type_w)
			type_w = l;
	}
	/* mark(3) topic type count(9) rate(9) conns(6) */
	int fixed = 3 + 2 + 9 + 2 + 9 + 2 + 6 + 1;
	if (topic_w + type_w + 2 + fixed > w) {
		int avail = w - fixed - 2;
		if (topic_w > avail * 11 / 20)
			topic_w = avail * 11 / 20 > avail - type_w ? avail * 11 / 20 : avail - type_w;
		type_w = avail - topic_w;
	}
	if (type_w < 4)
		type_w = 4;
	/* headings; an arrow marks the sort key (padded by display width) */
	char th[64], ch[32], rh[32];
	snprintf(th, sizeof th, "Topic%s", t->sort == SORT_NAME ? arrow : "");
	snprintf(ch, sizeof ch, "%sMessages", t->sort == SORT_COUNT ? arrow : "");
	snprintf(rh, sizeof rh, "%sHz", t->sort == SORT_RATE ? arrow : "");
	snprintf(title, sizeof title, "  %s%*s  %-*s  %*s %*s %5s", th, topic_w - draw_width(th), "", type_w,
	         "Type", 9 + (int)strlen(ch) - draw_width(ch), ch, 9 + (int)strlen(rh) - draw_width(rh), rh,
	         "Conns");
	snprintf(right, sizeof right, " %zu/%zu shown ", shown, t->n);
	draw_title(app, p, title, right);
	for (int y = 0; y < body; y++) {
		uint64_t k = scroller_row_at(sc, y);
		int sy = p->rect.y + 1 + y, x = p->rect.x;
		struct topic_row *r;
		bool sel;
		int base;

		if (k >= t->n)
			break;
		r = &t->rows[k];
		sel = k == sc->cursor;
		base = sel ? draw_attr(app, app->focus == p->id ? C_SELECT : C_SELECT_DIM)
		           : r->shown ? (int)A_NORMAL : draw_attr(app, C_DIM);
		attrset(base);
		draw_fill(sy, x, w);
		draw_text(sy, x + 1, 1, r->shown ? (app->utf8 ? "●" : "*") : (app->utf8 ? "○" : "-"), 0);
		if (!sel && r->shown)
			attrset(draw_topic_attr(app, r->color));
		draw_text(sy, x + 3, topic_w, r->topic, 0);
		attrset(base);
		snprintf(buf, sizeof buf, "%s%s", r->type, r->mixed_types ? " *" : "");
		draw_text(sy, x + 3 + topic_w + 2, type_w, buf, 0);
		fmt_count(cnt, sizeof cnt, r->count);
		fmt_rate(rate, sizeof rate, r->rate);
		snprintf(buf, sizeof buf, "%9s %9s %5zu", cnt, rate, r->nconns);
		draw_text(sy, x + 3 + topic_w + 2 + type_w + 2, w - (3 + topic_w + 2 + type_w + 2), buf, 0);
		attrset(A_NORMAL);
	}
}

/* Keep the cursor on the same topic across a re-sort. */
static void conns_resort(struct app *app, struct pane *p, enum topic_sort sort)
{
	const char *cur = app->topics.n ? app->topics.rows[p->sc.cursor].topic : NULL;

	topics_sort(&app->topics, sort);
	for (size_t k = 0; cur != NULL && k < app->topics.n; k++)
		if (app->topics.rows[k].topic == cur)
			scroller_goto(&p->sc, k);
	app_note(app, "topics sorted by %s", topic_sort_name(sort));
}

static bool conns_action(struct app *app, struct pane *p, enum action a)
{
	struct scroller *sc = &p->sc;
	struct topics *t = &app->topics;

	switch (a) {
	case ACT_UP: scroller_move(sc, -1); break;
	case ACT_DOWN: scroller_move(sc, 1); break;
	case ACT_PAGE_UP: scroller_page(sc, -1); break;
	case ACT_PAGE_DOWN: scroller_page(sc, 1); break;
	case ACT_HOME: scroller_goto(sc, 0); break;
	case ACT_END: scroller_goto(sc, t->n ? t->n - 1 : 0); break;
	case ACT_TOGGLE:
		if (t->n == 0)
			break;
		t->rows[sc->cursor].shown = !t->rows[sc->cursor].shown;
		app_note(app, "%s %s", t->rows[sc->cursor].topic, t->rows[sc->cursor].shown ? "shown" : "hidden");
		app_refilter(app);
		break;
	case ACT_SOLO: {
		if (t->n == 0)
			break;
		bool only = t->rows[sc->cursor].shown && topics_shown(t, NULL) == 1;
		for (size_t k = 0; k < t->n; k++)
			t->rows[k].shown = only || k == sc->cursor;
		app_note(app, only ? "all topics shown" : "only %s shown", t->rows[sc->cursor].topic);
		app_refilter(app);
		break;
	}
	case ACT_SORT:
		conns_resort(app, p, (enum topic_sort)((t->sort + 1) % SORT_N));
		break;
	case ACT_ENTER:
		if (t->n > 0) {
			app_show_conn(app, sc->cursor);
			app->focus = PANE_DETAIL;
		}
		break;
	default:
		return false;
	}
	return true;
}

static void conns_click(struct app *app, struct pane *p, int y, int x)
{
	uint64_t k = scroller_row_at(&p->sc, y);

	if (k >= app->topics.n)
		return;
	scroller_goto(&p->sc, k);
	if (x < 3)   /* the mark: toggle */
		conns_action(app, p, ACT_TOGGLE);
}

static void conns_wheel(struct app *app, struct pane *p, int delta)
{
	scroller_scroll(&p->sc, delta);
}

const struct pane_ops view_conns_ops = {
	.name = "topics",
	.draw = conns_draw,
	.action = conns_action,
	.click = conns_click,
	.wheel = conns_wheel,
};
