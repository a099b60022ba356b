/*
 * view-timeline.c - the timeline strip: message density over the bag's
 * duration, one strip per shown topic (the first strip sums them all when
 * they do not fit), drawn with eighth blocks scaled to each strip's peak;
 * a cursor column marks the selected message's time. The counts come from
 * the worker (RES_DENSITY, per topic, in the topics' colour-slot order) for
 * the current strip width; until then the strips are empty.
 *
 * Left/right on the focused strip, or a click, move the selection in time.
 */
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "tui/app.h"

#define LABEL_W 16

/* Strip geometry inside the rectangle. */
static int timeline_cols(const struct pane *p)
{
	return p->rect.w - LABEL_W - 2;
}

int timeline_cols_for(const struct pane *p)
{
	return timeline_cols(p);
}

/* Column of time t (0..cols-1). */
static int col_of(struct app *app, int cols, int64_t t)
{
	int64_t span = app->end_ns - app->start_ns + 1;
	int64_t c = (int64_t)((double)(t - app->start_ns) * cols / (double)span);

	return c < 0 ? 0 : c >= cols ? cols - 1 : (int)c;
}

/* Start time of column c. */
static int64_t time_of(struct app *app, int cols, int c)
{
	int64_t span = app->end_ns - app->start_ns + 1;

	return app->start_ns + (int64_t)((double)span * c / cols);
}

static void draw_strip(struct app *app, int sy, int x, int cols, const uint32_t *counts, size_t stride,
                       const size_t *which, size_t nwhich, int cursor)
{
	static const char *const blocks[] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	static const char *const ascii[] = { ".", ".", ":", ":", "|", "|", "#", "#" };
	uint64_t peak = 0;

	for (int c = 0; c < cols; c++) {
		uint64_t v = 0;
		for (size_t i = 0; i < nwhich; i++)
			v += counts[which[i] * stride + (size_t)c];
		if (v > peak)
			peak = v;
	}
	for (int c = 0; c < cols; c++) {
		uint64_t v = 0;
		for (size_t i = 0; i < nwhich; i++)
			v += counts[which[i] * stride + (size_t)c];
		const char *s = " ";
		if (v > 0) {
			int level = (int)((v * 8 + peak - 1) / peak);
			level = level < 1 ? 1 : level > 8 ? 8 : level;
			s = app->utf8 ? blocks[level - 1] : ascii[level - 1];
		}
		if (c == cursor) {
			attr_t a;
			short pair;
			attr_get(&a, &pair, NULL);
			attrset(draw_attr(app, C_CURSOR));
			draw_text(sy, x + c, 1, v > 0 ? s : (app->utf8 ? "│" : "|"), 0);
			attr_set(a, pair, NULL);
		} else {
			draw_text(sy, x + c, 1, s, 0);
		}
	}
}

static void timeline_draw(struct app *app, struct pane *p)
{
	struct bag_message m;
	char title[160], right[96], a[32], b[32], cur[48];
	int cols = timeline_cols(p), body = p->rect.h - 1;
	int cursor = -1;
	size_t shown[256], nshown = 0;
	double dur = (double)(app->end_ns - app->start_ns) / 1e9;

	fmt_clock(a, sizeof a, app->start_ns);
	fmt_clock(b, sizeof b, app->end_ns);
	snprintf(title, sizeof title, "Timeline  %s %s %s  (%.3f s)", a, app->utf8 ? "→" : "->", b, dur);
	right[0] = '\0';
	if (app_selected(app, &m)) {
		cursor = col_of(app, cols, m.time_ns);
		fmt_time_rel(cur, sizeof cur, m.time_ns, app->start_ns);
		snprintf(right, sizeof right, " cursor +%s s ", cur);
	}
	draw_title(app, p, title, right);
	for (size_t k = 0; k < app->topics.n && nshown < sizeof shown / sizeof *shown; k++)
		if (app->topics.rows[k].shown)
			shown[nshown++] = k;
	bool have = app->density != NULL && app->density_cols == cols;
	bool sum_first = (int)nshown > body;
	for (int y = 0; y < body; y++) {
		int sy = p->rect.y + 1 + y;
		size_t which[256], nwhich = 0;
		const char *label;
		size_t color = 0;

		if (sum_first && y == 0) {
			for (size_t i = 0; i < nshown; i++)
				which[nwhich++] = app->topics.rows[shown[i]].color;
			label = "(all shown)";
		} else {
			size_t i = (size_t)y - (sum_first ? 1 : 0);
			if (i >= nshown)
				break;
			which[nwhich++] = app->topics.rows[shown[i]].color;
			label = app->topics.rows[shown[i]].topic;
			color = app->topics.rows[shown[i]].color;
		}
		attrset(sum_first && y == 0 ? draw_attr(app, C_DIM) : draw_topic_attr(app, color));
		int lw = draw_width(label);
		draw_text(sy, p->rect.x + 1, LABEL_W - 1, label, lw > LABEL_W - 1 ? lw - (LABEL_W - 1) : 0);
		if (have)
			draw_strip(app, sy, p->rect.x + LABEL_W + 1, cols, app->density, (size_t)cols, which, nwhich,
			           cursor);
		else if (cursor >= 0) {
			attrset(draw_attr(app, C_CURSOR));
			draw_text(sy, p->rect.x + LABEL_W + 1 + cursor, 1, app->utf8 ? "│" : "|", 0);
		}
		attrset(A_NORMAL);
	}
}

static bool timeline_action(struct app *app, struct pane *p, enum action a)
{
	struct bag_message m;
	int cols = timeline_cols(p);

	if (cols <= 0)
		return false;
	switch (a) {
	case ACT_LEFT:
	case ACT_RIGHT:
		if (app_selected(app, &m)) {
			int c = col_of(app, cols, m.time_ns) + (a == ACT_RIGHT ? 1 : -1);
			if (c < 0)
				c = 0;
			if (c >= cols)
				c = cols - 1;
			app_select_time(app, time_of(app, cols, c));
		}
		return true;
	default:
		return false;
	}
}

static void timeline_click(struct app *app, struct pane *p, int y, int x)
{
	int cols = timeline_cols(p), c = x - LABEL_W - 1;

	if (c >= 0 && c < cols)
		app_select_time(app, time_of(app, cols, c));
}

const struct pane_ops view_timeline_ops = {
	.name = "timeline",
	.draw = timeline_draw,
	.action = timeline_action,
	.click = timeline_click,
};
