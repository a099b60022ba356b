/*
 * view-list.c - the message list: virtual over every row of the view (or
 * the filter's rows), only the rows in sight are looked at. Columns: row,
 * mark, time (fixed width), topic (its distinguishing tail when long),
 * size, then the message paths added as columns and the summary, which
 * scroll sideways (h, l). Navigation is the model's (model_act); a count
 * typed before a move (5j, 100G) is taken here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/draw.h"

struct list_pane {
	int hscroll;                  /* sideways scroll of the summaries, in columns */
};

/* The last w columns of s as "…tail" when s is longer (bytes; the topic is escaped first). */
static void tail_of(const char *s, int w, bool utf8, char *out, size_t cap)
{
	size_t len = strlen(s);

	if ((int)len <= w || w < 2) {
		snprintf(out, cap, "%s", s);
		return;
	}
	size_t from = len - (size_t)(w - 1);
	while (from < len && ((unsigned char)s[from] & 0xC0) == 0x80)
		from++;
	snprintf(out, cap, "%s%s", utf8 ? "\xE2\x80\xA6" : "~", s + from);
}

/* Rows [top, top + height) from the index; size and summary once the worker sent them. */
/* The title: rows shown, or the filter's matches (so far, or partial when it was stopped). */
static void title(struct app *app, struct pane *p, uint64_t count)
{
	const struct model *m = &app->m;
	char partial[64] = "", line[512];

	if (app->find.js.running && app->find.js.kind == JOB_FILTER)
		snprintf(partial, sizeof partial, " so far");
	else if (app->find.stopped >= 0)
		snprintf(partial, sizeof partial, " (partial: stopped at %d%%)", app->find.stopped);
	if (m->filtered)
		snprintf(line, sizeof line, "  %llu of %llu match the filter%s: %s", (unsigned long long)count,
		         (unsigned long long)bag_view_count(m->view), partial, app->find.filter_text);
	else
		snprintf(line, sizeof line, "  %llu shown%s", (unsigned long long)count,
		         m->relative ? "  (times relative to the start)" : "");
	draw_pane_title(app, p, line);
}

static void draw(struct app *app, struct pane *p)
{
	struct model *m = &app->m;
	struct rect r = p->r;
	const struct list_pane *st = p->state;
	struct term_scratch sc = { 0 };
	uint64_t count = model_count(m);
	char line[1024], t[48], size[16], topic[256];
	struct bag_message msg;

	title(app, p, count);
	int topic_w = 8;
	for (size_t i = 0; i < m->ntopics; i++)
		if (m->topics[i].shown && (int)strlen(term_str(&sc, m->topics[i].topic)) > topic_w)
			topic_w = (int)strlen(term_str(&sc, m->topics[i].topic));
	int cap_w = r.w / 4 < 12 ? 12 : r.w / 4;
	topic_w = topic_w > cap_w ? cap_w : topic_w;
	int num_w = snprintf(NULL, 0, "%llu", (unsigned long long)count);
	num_w = num_w < 3 ? 3 : num_w;
	for (int row = 0; row < r.h - 1; row++) {
		uint64_t i = m->top + (uint64_t)row;
		int y = r.y + 1 + row;
		if (i >= count) {
			draw_put(y, r.x, r.w, i == 0 ? (m->filtered ? (app->find.js.running ? " (filtering\xE2\x80\xA6)" :
			                                                " (no message matches the filter)")
			                                         : " (no messages shown)") : "");
			continue;
		}
		int erc = model_entry(m, i, &msg);
		if (erc == MODEL_PENDING) {
			snprintf(line, sizeof line, "%*llu \xE2\x80\xA6 fetching the index", num_w, (unsigned long long)i + 1);
			draw_put(y, r.x, r.w, line);
			app->pending_rows++;
			continue;
		}
		if (erc != BAG_OK) {
			char why[600];
			detail_problem_first(bag_view_error(m->view)->message, why, sizeof why);
			snprintf(line, sizeof line, "%*llu cannot read the index here: %s", num_w, (unsigned long long)i + 1, why);
			draw_colour_on(app, C_ERROR, 0);
			draw_put(y, r.x, r.w, line);
			draw_colour_off(app, C_ERROR, 0);
			continue;
		}
		uint64_t key = work_key(msg.bag_index, msg.chunk, msg.offset);
		const struct summary *s = app_summary(app, key);
		bool bad = s != NULL && s->rc != BAG_OK;
		draw_fmt_time(app, msg.time_ns, t, sizeof t);
		if (s != NULL)
			snprintf(size, sizeof size, bad ? "-" : "%u", s->size);
		else
			snprintf(size, sizeof size, "...");
		tail_of(term_str(&sc, msg.conn->topic), topic_w, app->utf8, topic, sizeof topic);
		int n = snprintf(line, sizeof line, "%*llu%s%s %s ", num_w, (unsigned long long)i + 1,
		                 app_marked(app, key) ? "*" : " ", t, topic);
		/* the topic column: pad by screen columns, not bytes */
		int pad = topic_w - draw_width(topic);
		n += snprintf(line + n, sizeof line - (size_t)n, "%*s%6s ", pad > 0 ? pad : 0, "", size);
		bool sel = i == m->row;
		if (sel)
			attron(m->focus == PANE_LIST ? A_REVERSE : A_BOLD);
		if (bad)
			draw_colour_on(app, C_ERROR, 0);
		int fixed = draw_width(line);
		draw_put(y, r.x, fixed < r.w ? fixed : r.w, line);
		if (fixed < r.w) {
			char rest[800];
			snprintf(rest, sizeof rest, "%s%s%s", bad ? "cannot read: " : "", s ? s->cols : "", s ? s->text : "");
			draw_put_match(sel ? NULL : app, y, r.x + fixed, r.w - fixed, rest, st->hscroll);
		}
		if (bad)
			draw_colour_off(app, C_ERROR, 0);
		if (sel)
			attroff(m->focus == PANE_LIST ? A_REVERSE : A_BOLD);
	}
	term_scratch_free(&sc);
}

/* A move repeated count times (app->count, taken; 0: once). */
static bool counted_move(struct app *app, enum action a)
{
	struct model *m = &app->m;
	int64_t half = m->list_height > 2 ? m->list_height / 2 : 1;
	uint64_t count = app->count, n = model_count(m);
	int64_t times = count ? (int64_t)count : 1;

	switch (a) {
	case ACTION_UP: model_move(m, -times); break;
	case ACTION_DOWN: model_move(m, times); break;
	case ACTION_HALF_UP: model_move(m, -half * times); break;
	case ACTION_HALF_DOWN: model_move(m, half * times); break;
	case ACTION_BOTTOM:
		if (count == 0)
			return false;
		model_goto(m, count - 1 < n ? count - 1 : (n ? n - 1 : 0));
		break;
	default: return false;
	}
	app->count = 0;
	return true;
}

static bool key(struct app *app, struct pane *p, enum action a, bool focused)
{
	struct list_pane *st = p->state;

	if (!focused)
		return false;
	if (counted_move(app, a))
		return true;
	switch (a) {
	case ACTION_LEFT: case ACTION_RIGHT:
		st->hscroll += a == ACTION_RIGHT ? 8 : -8;
		st->hscroll = st->hscroll < 0 ? 0 : st->hscroll;
		return true;
	case ACTION_ENTER:
		app->m.focus = PANE_DETAIL;
		return true;
	case ACTION_PAGE_UP: case ACTION_PAGE_DOWN: case ACTION_TOP: case ACTION_BOTTOM:
		return model_act(&app->m, a);
	default:
		return false;
	}
}

/* A click selects the row. */
static void click(struct app *app, struct pane *p, int row, int col)
{
	(void)p;
	(void)col;
	if (row >= 1)
		model_goto(&app->m, app->m.top + (uint64_t)row - 1);
}

static int init(struct app *app, struct pane *p)
{
	(void)app;
	return (p->state = calloc(1, sizeof(struct list_pane))) != NULL ? 0 : -1;
}

const struct pane_ops pane_list = {
	.title = "Messages",
	.help = "every message of the shown topics (or the filter's) in time order",
	.slot = SLOT_MAIN,
	.init = init,
	.draw = draw,
	.key = key,
	.click = click,
};
