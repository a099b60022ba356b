/*
 * view-conns.c - the connections pane: one row per topic (all its
 * connections together) in the model's sort order, scrolled to the cursor.
 * Navigation and filters are the model's (model_act).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/timeparse.h"
#include "tui/draw.h"
#include "tui/view-detail.h"

/*
 * bag_rate_hz in a unit that fits (timeparse.h's rate_text); "~" while only
 * the chunks' span is known; "?" while the count is pending (so is the rate).
 */
static void topic_rate(const struct topic_row *t, char *buf, size_t cap)
{
	if (t->count_pending) {
		snprintf(buf, cap, "?");
		return;
	}
	buf[0] = '~';
	rate_text(buf + 1, cap - 1, t->rate_hz);
	if (t->rate_exact || t->rate_hz <= 0)
		memmove(buf, buf + 1, strlen(buf));
}

/* s cut to w columns (a type by term_cut_type, a topic by its tail) and padded to w columns, at line + *n. */
static void put_cell(char *line, size_t cap, int *n, const char *s, int w, bool type)
{
	char cut[512];

	(type ? term_cut_type : term_cut_tail)(s, w, cut, sizeof cut);
	int pad = w - draw_width(cut);
	if (*n < (int)cap)
		*n += snprintf(line + *n, cap - (size_t)*n, "%s%*s", cut, pad > 0 ? pad : 0, "");
}

/*
 * The widths: messages, rate and conns whole (never cut); the topic and the
 * type share the rest, each whole when both fit, else the topic at most
 * half of it and the type what is left.
 */
struct conns_widths {
	int topic, type, count, rate;
};

static struct conns_widths widths(const struct model *m, int w, struct term_scratch *sc)
{
	struct conns_widths cw = { 5, 4, 8, 4 };
	char rate[32];

	for (size_t i = 0; i < m->ntopics; i++) {
		int a = draw_width(term_str(sc, m->topics[i].topic)), b = draw_width(term_str(sc, m->topics[i].type));
		int c = m->topics[i].count_pending ? 1 : snprintf(NULL, 0, "%llu", (unsigned long long)m->topics[i].count);
		topic_rate(&m->topics[i], rate, sizeof rate);
		cw.topic = a > cw.topic ? a : cw.topic;
		cw.type = b > cw.type ? b : cw.type;
		cw.count = c > cw.count ? c : cw.count;
		cw.rate = (int)strlen(rate) > cw.rate ? (int)strlen(rate) : cw.rate;
	}
	/* " [x]  " topic "  " type " " count " " rate " " conns */
	int avail = w - 6 - 2 - (1 + cw.count + 1 + cw.rate + 1 + 5);
	if (cw.topic + cw.type > avail) {
		int most = avail - cw.type > avail / 2 ? avail - cw.type : avail / 2;
		cw.topic = cw.topic < most ? cw.topic : most;
		cw.type = avail - cw.topic > 4 ? avail - cw.topic : 4;
	}
	return cw;
}

/* One row (or the header when t is NULL) into line. */
static void conns_row(const struct topic_row *t, const struct conns_widths *cw, struct term_scratch *sc,
                      char *line, size_t cap)
{
	char rate[32], count[24] = "?";
	int n = snprintf(line, cap, " %s  ", t == NULL ? "   " : t->shown ? "[x]" : "[ ]");

	put_cell(line, cap, &n, t ? term_str(sc, t->topic) : "topic", cw->topic, false);
	if (n < (int)cap)
		n += snprintf(line + n, cap - (size_t)n, "  ");
	put_cell(line, cap, &n, t ? term_str(sc, t->type) : "type", cw->type, true);
	if (t != NULL)
		topic_rate(t, rate, sizeof rate);
	if (t != NULL && !t->count_pending)
		snprintf(count, sizeof count, "%llu", (unsigned long long)t->count);
	if (n < (int)cap && t != NULL)
		snprintf(line + n, cap - (size_t)n, " %*s %*s %5zu", cw->count, count, cw->rate, rate, t->nconns);
	else if (n < (int)cap)
		snprintf(line + n, cap - (size_t)n, " %*s %*s %5s", cw->count, "messages", cw->rate, "rate", "conns");
}

/* Topics with their counts and rates; [x] marks the shown ones. Names escaped, widths measured after. */
static void draw(struct app *app, struct pane *p)
{
	struct model *m = &app->m;
	struct rect r = p->r;
	static const char *const sort_names[] = { "name", "count", "rate" };
	struct term_scratch sc = { 0 };
	char line[1200];
	size_t shown = 0;

	for (size_t i = 0; i < m->ntopics; i++)
		shown += m->topics[i].shown;
	snprintf(line, sizeof line, "  %zu/%zu topics shown  sort: %s   [x] toggle [o] only [a] all [s] sort",
	         shown, m->ntopics, sort_names[m->sort]);
	draw_pane_title(app, p, line);
	struct conns_widths cw = widths(m, r.w, &sc);
	draw_colour_on(app, C_DIM, A_UNDERLINE);
	conns_row(NULL, &cw, &sc, line, sizeof line);
	draw_put(r.y + 1, r.x, r.w, line);
	draw_colour_off(app, C_DIM, A_UNDERLINE);
	for (int row = 0; row < r.h - 2; row++) {
		size_t i = m->topic_top + (size_t)row;
		if (i >= m->ntopics) {
			draw_put(r.y + 2 + row, r.x, r.w, "");
			continue;
		}
		const struct topic_row *t = &m->topics[m->order[i]];
		conns_row(t, &cw, &sc, line, sizeof line);
		bool sel = i == m->topic_cursor && m->focus == PANE_CONNS;
		if (sel)
			attron(A_REVERSE);
		if (!t->shown)
			draw_colour_on(app, C_HIDDEN, 0);
		draw_put(r.y + 2 + row, r.x, r.w, line);
		if (!t->shown)
			draw_colour_off(app, C_HIDDEN, 0);
		if (sel)
			attroff(A_REVERSE);
	}
	term_scratch_free(&sc);
}

/* Moves of the topic cursor (the model's); Enter shows the topic's connections in the detail. */
static bool key(struct app *app, struct pane *p, enum action a, bool focused)
{
	struct topic_row *t;

	(void)p;
	if (!focused)
		return false;
	switch (a) {
	case ACTION_UP: case ACTION_DOWN: case ACTION_PAGE_UP: case ACTION_PAGE_DOWN: case ACTION_TOP: case ACTION_BOTTOM:
		return model_act(&app->m, a);
	case ACTION_ENTER:
		if ((t = model_topic(&app->m)) != NULL)
			detail_pane_show_topic(app, (size_t)(t - app->m.topics));
		return true;
	default:
		return false;
	}
}

/* A click selects the topic; on its [x] box it shows or hides it. */
static void click(struct app *app, struct pane *p, int row, int col)
{
	struct model *m = &app->m;

	(void)p;
	if (row < 2 || m->topic_top + (uint64_t)row - 2 >= m->ntopics)
		return;
	m->topic_cursor = m->topic_top + (uint64_t)row - 2;
	if (col >= 1 && col <= 3)
		model_act(m, ACTION_TOGGLE_TOPIC);
}

/* A row per topic under the title and the header, at least 4 rows. */
static int height(const struct app *app, const struct pane *p, int avail)
{
	int h = (int)app->m.ntopics + 2;

	(void)p;
	h = h > avail ? avail : h;
	return h < 4 ? 4 : h;
}

const struct pane_ops pane_conns = {
	.title = "Connections",
	.help = "one row per topic: [x] shown, type, messages, rate, connections",
	.slot = SLOT_TOP,
	.draw = draw,
	.key = key,
	.height = height,
	.click = click,
};
