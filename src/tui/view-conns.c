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

/* Topics with their counts and rates; [x] marks the shown ones. Names escaped, widths measured after. */
static void draw(struct app *app, struct pane *p)
{
	struct model *m = &app->m;
	struct rect r = p->r;
	static const char *const sort_names[] = { "name", "count", "rate" };
	struct term_scratch sc = { 0 };
	char line[512];
	size_t shown = 0;

	for (size_t i = 0; i < m->ntopics; i++)
		shown += m->topics[i].shown;
	snprintf(line, sizeof line, "  %zu/%zu topics shown  sort: %s   [x] toggle [o] only [a] all [s] sort",
	         shown, m->ntopics, sort_names[m->sort]);
	draw_pane_title(app, p, line);
	int tw = 8, yw = 4;
	for (size_t i = 0; i < m->ntopics; i++) {
		int a = (int)strlen(term_str(&sc, m->topics[i].topic));
		int b = (int)strlen(term_str(&sc, m->topics[i].type));
		tw = a > tw ? a : tw;
		yw = b > yw ? b : yw;
	}
	tw = tw > r.w / 3 ? r.w / 3 : tw;
	yw = yw > r.w / 3 ? r.w / 3 : yw;
	draw_colour_on(app, C_DIM, A_UNDERLINE);
	snprintf(line, sizeof line, "    %-*.*s  %-*.*s %10s %10s %6s", tw, tw, "topic", yw, yw, "type",
	         "messages", "rate", "conns");
	draw_put(r.y + 1, r.x, r.w, line);
	draw_colour_off(app, C_DIM, A_UNDERLINE);
	for (int row = 0; row < r.h - 2; row++) {
		size_t i = m->topic_top + (size_t)row;
		if (i >= m->ntopics) {
			draw_put(r.y + 2 + row, r.x, r.w, "");
			continue;
		}
		const struct topic_row *t = &m->topics[m->order[i]];
		char rate[32];
		/* bag_rate_hz in a unit that fits; "~" while only the chunks' span is known */
		rate[0] = '~';
		rate_text(rate + 1, sizeof rate - 1, t->rate_hz);
		if (t->rate_exact || t->rate_hz <= 0)
			memmove(rate, rate + 1, strlen(rate));
		snprintf(line, sizeof line, " %s  %-*.*s  %-*.*s %10llu %10s %6zu", t->shown ? "[x]" : "[ ]",
		         tw, tw, term_str(&sc, t->topic), yw, yw, term_str(&sc, t->type), (unsigned long long)t->count,
		         rate, t->nconns);
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
