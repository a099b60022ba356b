/*
 * draw.c - the only code that calls curses to draw: the layout of the panes
 * from the terminal size, each pane through its ops, the timeline strip and
 * the status line. Only rows in sight are looked at: the message list asks
 * the view for [top, top + height) and nothing else.
 */
#define _XOPEN_SOURCE_EXTENDED
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui/actions.h"
#include "tui/app.h"
#include "tui/keys.h"

#define MIN_COLS 60
#define MIN_LINES 16
#define WIDE_COLS 110

enum { C_TITLE = 1, C_FOCUS, C_DIM, C_HIDDEN, C_ERROR, C_BAR };

static void colour_on(struct app *app, int pair, attr_t extra)
{
	if (app->colour)
		attron(COLOR_PAIR(pair) | extra);
	else
		attron(extra);
}

static void colour_off(struct app *app, int pair, attr_t extra)
{
	if (app->colour)
		attroff(COLOR_PAIR(pair) | extra);
	else
		attroff(extra);
}

/* Text at (y, x), cut to w columns, the rest of the width blanked. */
static void put(int y, int x, int w, const char *s)
{
	if (w <= 0)
		return;
	move(y, x);
	addnstr(s, (int)strlen(s));
	int cy, cx;
	getyx(stdscr, cy, cx);
	(void)cy;
	if (cx < x + w && cy == y)
		hline(' ', x + w - cx);
	/* anything that spilled past the pane is drawn over by its neighbour */
}

/* Like put, but counting columns, so multi-byte text is cut at w. */
static void put_cols(int y, int x, int w, const char *s)
{
	char buf[1024];
	size_t n = 0;
	int cols = 0;

	while (*s && cols < w && n + 5 < sizeof buf) {
		unsigned char c = (unsigned char)*s;
		size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
		for (size_t i = 0; i < len && s[i]; i++)
			buf[n++] = s[i];
		s += len;
		cols++;
	}
	buf[n] = '\0';
	put(y, x, w, buf);
}

void draw_layout(struct app *app)
{
	int lines = LINES, cols = COLS;
	struct model *m = &app->m;

	app->too_small = lines < MIN_LINES || cols < MIN_COLS;
	int conns_h = (int)m->ntopics + 2;
	if (conns_h > (lines - 4) / 3)
		conns_h = (lines - 4) / 3;
	if (conns_h < 4)
		conns_h = 4;
	/* one strip per topic under the summed timeline, as room allows */
	app->strips = (int)m->ntopics < lines / 10 ? (int)m->ntopics : lines / 10;
	if (app->strips > 6)
		app->strips = 6;
	if (app->strips < 0 || m->ntopics < 2)
		app->strips = 0;
	int body_y = 1 + conns_h, body_h = lines - 3 - app->strips - body_y;
	app->panes[PANE_CONNS] = (struct rect){ 1, 0, conns_h, cols };
	if (cols >= WIDE_COLS) {
		/* wide: list and detail side by side */
		int list_w = cols * 62 / 100;
		app->panes[PANE_LIST] = (struct rect){ body_y, 0, body_h, list_w };
		app->panes[PANE_DETAIL] = (struct rect){ body_y, list_w, body_h, cols - list_w };
	} else {
		/* narrow: the list keeps the full width for its summaries, the detail goes below */
		int list_h = body_h / 2 + 1;
		app->panes[PANE_LIST] = (struct rect){ body_y, 0, list_h, cols };
		app->panes[PANE_DETAIL] = (struct rect){ body_y + list_h, 0, body_h - list_h, cols };
	}
	app->timeline = (struct rect){ lines - 2 - app->strips, 0, 1 + app->strips, cols };
	app->status = (struct rect){ lines - 1, 0, 1, cols };
	m->topic_height = conns_h - 2;
	m->list_height = app->panes[PANE_LIST].h - 1;
}

int draw_pane_at(const struct app *app, int y, int x)
{
	for (int p = 0; p < PANE_COUNT; p++) {
		const struct rect *r = &app->panes[p];
		if (y >= r->y && y < r->y + r->h && x >= r->x && x < r->x + r->w)
			return p;
	}
	return PANE_COUNT;
}

/* A pane's title row. */
static void draw_title(struct app *app, struct rect r, const char *title, int pane)
{
	bool focus = (int)app->m.focus == pane;

	colour_on(app, focus ? C_FOCUS : C_TITLE, focus ? A_BOLD : 0);
	put(r.y, r.x, r.w, "");
	mvaddnstr(r.y, r.x, title, r.w);
	colour_off(app, focus ? C_FOCUS : C_TITLE, focus ? A_BOLD : 0);
}

/* "1396293887.844783943" or "+12.345678901": to the nanosecond, as ties differ by that much. */
static void fmt_time(const struct app *app, int64_t ns, char *buf, size_t cap)
{
	if (app->m.relative) {
		int64_t d = ns - app->m.start_ns;
		snprintf(buf, cap, "%s%lld.%09lld", d < 0 ? "-" : "+", (long long)(llabs(d) / 1000000000),
		         (long long)(llabs(d) % 1000000000));
	} else {
		snprintf(buf, cap, "%lld.%09lld", (long long)(ns / 1000000000), (long long)(ns % 1000000000));
	}
}

static void draw_conns(struct app *app, struct rect r)
{
	struct model *m = &app->m;
	static const char *const sort_names[] = { "name", "count", "rate" };
	char line[512];
	size_t shown = 0;

	for (size_t i = 0; i < m->ntopics; i++)
		shown += m->topics[i].shown;
	snprintf(line, sizeof line, " Connections  %zu/%zu topics shown  sort: %s   [x] toggle [o] only [a] all [s] sort",
	         shown, m->ntopics, sort_names[m->sort]);
	draw_title(app, r, line, PANE_CONNS);
	int tw = 8, yw = 4;
	for (size_t i = 0; i < m->ntopics; i++) {
		int a = (int)strlen(m->topics[i].topic), b = (int)strlen(m->topics[i].type);
		tw = a > tw ? a : tw;
		yw = b > yw ? b : yw;
	}
	tw = tw > r.w / 3 ? r.w / 3 : tw;
	yw = yw > r.w / 3 ? r.w / 3 : yw;
	colour_on(app, C_DIM, A_UNDERLINE);
	snprintf(line, sizeof line, "    %-*.*s  %-*.*s %10s %10s %6s", tw, tw, "topic", yw, yw, "type",
	         "messages", "rate", "conns");
	put(r.y + 1, r.x, r.w, line);
	colour_off(app, C_DIM, A_UNDERLINE);
	for (int row = 0; row < r.h - 2; row++) {
		size_t i = m->topic_top + (size_t)row;
		if (i >= m->ntopics) {
			put(r.y + 2 + row, r.x, r.w, "");
			continue;
		}
		const struct topic_row *t = &m->topics[m->order[i]];
		char rate[32];
		if (t->rate_hz >= 1000)
			snprintf(rate, sizeof rate, "%.1f kHz", t->rate_hz / 1000);
		else
			snprintf(rate, sizeof rate, t->rate_hz > 0 ? "%.1f Hz" : "-", t->rate_hz);
		snprintf(line, sizeof line, " %s  %-*.*s  %-*.*s %10llu %10s %6zu", t->shown ? "[x]" : "[ ]",
		         tw, tw, t->topic, yw, yw, t->type, (unsigned long long)t->count, rate, t->nconns);
		bool sel = i == m->topic_cursor && m->focus == PANE_CONNS;
		if (sel)
			attron(A_REVERSE);
		if (!t->shown)
			colour_on(app, C_HIDDEN, 0);
		put(r.y + 2 + row, r.x, r.w, line);
		if (!t->shown)
			colour_off(app, C_HIDDEN, 0);
		if (sel)
			attroff(A_REVERSE);
	}
}

static void draw_list(struct app *app, struct rect r)
{
	struct model *m = &app->m;
	uint64_t count = bag_view_count(m->view);
	char line[1024], t[40], size[16];
	struct bag_message msg;

	snprintf(line, sizeof line, " Messages  %llu shown%s", (unsigned long long)count,
	         m->relative ? "  (times relative to the start)" : "");
	draw_title(app, r, line, PANE_LIST);
	int topic_w = 14;
	for (size_t i = 0; i < m->ntopics; i++)
		if (m->topics[i].shown && (int)strlen(m->topics[i].topic) > topic_w)
			topic_w = (int)strlen(m->topics[i].topic);
	topic_w = topic_w > r.w / 4 ? r.w / 4 : topic_w;
	int num_w = snprintf(NULL, 0, "%llu", (unsigned long long)count);
	num_w = num_w < 3 ? 3 : num_w;
	for (int row = 0; row < r.h - 1; row++) {
		uint64_t i = m->top + (uint64_t)row;
		if (i >= count || bag_view_entry(m->view, i, &msg) != BAG_OK) {
			put(r.y + 1 + row, r.x, r.w, i == 0 && count == 0 ? " (no messages shown)" : "");
			continue;
		}
		const struct summary *s = app_summary(app, work_key(msg.bag_index, msg.chunk, msg.offset));
		fmt_time(app, msg.time_ns, t, sizeof t);
		if (s != NULL)
			snprintf(size, sizeof size, "%u", s->size);
		else
			snprintf(size, sizeof size, "...");
		snprintf(line, sizeof line, "%*llu %s %-*.*s %6s %s", num_w, (unsigned long long)i + 1, t, topic_w,
		         topic_w, msg.conn->topic, size, s ? s->text : "");
		bool sel = i == m->row;
		if (sel)
			attron(m->focus == PANE_LIST ? A_REVERSE : A_BOLD);
		if (s != NULL && s->rc != BAG_OK)
			colour_on(app, C_ERROR, 0);
		put_cols(r.y + 1 + row, r.x, r.w, line);
		if (s != NULL && s->rc != BAG_OK)
			colour_off(app, C_ERROR, 0);
		if (sel)
			attroff(m->focus == PANE_LIST ? A_REVERSE : A_BOLD);
	}
}

static void draw_detail(struct app *app, struct rect r)
{
	static const char *const modes[] = { "decoded", "hex", "connection" };
	struct detail *d = &app->detail;
	char title[128];
	size_t *idx = malloc((d->n + 1) * sizeof *idx), n;

	snprintf(title, sizeof title, " Detail: %s   [v] mode [H] hex [Enter] fold", modes[app->m.detail]);
	draw_title(app, r, title, PANE_DETAIL);
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
			put(r.y + 1 + row, r.x, r.w, "");
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
		put_cols(r.y + 1 + row, r.x, r.w, line);
		if (sel)
			attroff(A_REVERSE);
	}
	free(idx);
}

static const struct pane_ops panes[PANE_COUNT] = {
	[PANE_CONNS] = { .title = "Connections", .draw = draw_conns },
	[PANE_LIST] = { .title = "Messages", .draw = draw_list },
	[PANE_DETAIL] = { .title = "Detail", .draw = draw_detail },
};

/* One strip of bins at (y, x), scaled to its own peak; cursor column reversed. */
static void draw_strip(struct app *app, int y, int x, const double *bins, int w, int cur)
{
	static const char *const blocks[] = { " ", "\xE2\x96\x81", "\xE2\x96\x82", "\xE2\x96\x83", "\xE2\x96\x84",
	                                      "\xE2\x96\x85", "\xE2\x96\x86", "\xE2\x96\x87", "\xE2\x96\x88" };
	static const char ascii[] = " .:-=+*#%@";
	double max = 0;

	for (int i = 0; i < w; i++)
		max = bins[i] > max ? bins[i] : max;
	move(y, x);
	for (int i = 0; i < w; i++) {
		int level = max > 0 && bins[i] > 0 ? 1 + (int)(bins[i] / max * 7.999) : 0;
		if (i == cur)
			attron(A_REVERSE);
		if (app->utf8)
			addstr(blocks[level]);
		else
			addch((chtype)ascii[level]);
		if (i == cur)
			attroff(A_REVERSE);
	}
}

/*
 * The timeline: the shown topics summed on the first line, then one strip
 * per shown topic (display order) on the lines the layout gave, labelled.
 */
static void draw_timeline(struct app *app, struct rect r)
{
	struct model *m = &app->m;
	int w = r.w - 10;

	if (w <= 0)
		return;
	if (app->density_view != m->view || app->density_w != w) {
		free(app->density);
		app->density = calloc((size_t)w, sizeof *app->density);
		if (app->density == NULL)
			return;
		model_density(m, app->density, w);
		app->density_view = m->view;
		app->density_w = w;
	}
	if (app->strips > 0 && app->topic_density_w != w) {
		free(app->topic_density);
		app->topic_density = calloc(m->ntopics * (size_t)w, sizeof *app->topic_density);
		app->topic_density_w = app->topic_density ? w : 0;
		for (size_t t = 0; app->topic_density != NULL && t < m->ntopics; t++)
			model_density_topic(m, t, app->topic_density + t * (size_t)w, w);
	}
	double span = (double)(m->end_ns - m->start_ns);
	int cur = span > 0 ? (int)((double)(model_time(m) - m->start_ns) / span * w) : 0;
	cur = cur < 0 ? 0 : cur >= w ? w - 1 : cur;
	colour_on(app, C_DIM, 0);
	mvaddstr(r.y, r.x, " timeline ");
	colour_off(app, C_DIM, 0);
	draw_strip(app, r.y, r.x + 10, app->density, w, cur);
	if (app->strips == 0 || app->topic_density == NULL)
		return;
	int y = r.y + 1;
	for (size_t i = 0; i < m->ntopics && y < r.y + r.h; i++) {
		size_t t = m->order[i];
		if (!m->topics[t].shown)
			continue;
		const char *name = m->topics[t].topic;
		size_t len = strlen(name);
		char label[24];
		/* the topic's tail: "…imu/data" reads better than its head (names are ASCII) */
		if (len <= 8)
			snprintf(label, sizeof label, " %-8s ", name);
		else
			snprintf(label, sizeof label, " %s%s ", app->utf8 ? "\xE2\x80\xA6" : "~", name + len - 7);
		colour_on(app, C_DIM, 0);
		mvaddstr(y, r.x, label);
		colour_off(app, C_DIM, 0);
		draw_strip(app, y, r.x + 10, app->topic_density + t * (size_t)w, w, cur);
		y++;
	}
}

static void draw_status(struct app *app, struct rect r)
{
	struct model *m = &app->m;
	char line[1024], when[64] = "", sizes[64];
	uint64_t done;
	size_t pending;
	int64_t t = model_time(m);
	time_t secs = (time_t)(t / 1000000000);
	struct tm tm;

	if (app->prompt) {
		snprintf(line, sizeof line, "%s %s", app->prompt == '/' ? "search:" : "jump to (epoch, date, +12.5, 1m30s, -200ms, 50%, #row):",
		         app->prompt_buf);
		colour_on(app, C_BAR, A_BOLD);
		put(r.y, r.x, r.w, line);
		colour_off(app, C_BAR, A_BOLD);
		move(r.y, (int)strlen(line) < r.w ? (int)strlen(line) : r.w - 1);
		return;
	}
	gmtime_r(&secs, &tm);
	strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
	worker_stats(app->worker, &done, &pending);
	struct bag_cache_stats cs;
	bag_cache_stats(app->bags[0], &cs);
	snprintf(sizes, sizeof sizes, pending ? "decoding (%zu queued)" : "ready", pending);
	const char *name = strrchr(app->paths[0], '/');
	name = name ? name + 1 : app->paths[0];
	/* a note (an error, a search's progress) comes before the less urgent facts */
	int n = snprintf(line, sizeof line, " %s%s  row %llu/%llu  %lld.%09lld  ", name, app->npaths > 1 ? " +more" : "",
	                 (unsigned long long)(bag_view_count(m->view) ? m->row + 1 : 0),
	                 (unsigned long long)bag_view_count(m->view), (long long)(t / 1000000000),
	                 (long long)(t % 1000000000));
	if (m->note[0] || app->searching)
		snprintf(line + n, sizeof line - (size_t)n, "| %s%s", m->note,
		         app->searching ? "  (Esc cancels)" : "");
	else
		snprintf(line + n, sizeof line - (size_t)n, "%s.%03lld UTC  %s", when,
		         (long long)(t % 1000000000 / 1000000), sizes);
	colour_on(app, m->note[0] ? C_ERROR : C_BAR, 0);
	put_cols(r.y, r.x, r.w, line);
	colour_off(app, m->note[0] ? C_ERROR : C_BAR, 0);
}

static void draw_help(struct app *app)
{
	int y = 1;

	erase();
	colour_on(app, C_TITLE, A_BOLD);
	put(0, 0, COLS, " bagscope keys  (any key closes this help)");
	colour_off(app, C_TITLE, A_BOLD);
	for (int a = 1; a < ACTION_COUNT && y < LINES - 1; a++, y++) {
		char line[256];
		snprintf(line, sizeof line, "  %-18s %s", keys_describe((enum action)a), keys_help((enum action)a));
		put(y, 0, COLS, line);
	}
	put(LINES - 1, 0, COLS, "  mouse: wheel scrolls, click selects;  bagscope(1) has the rest");
}

void draw_all(struct app *app)
{
	if (app->too_small) {
		erase();
		mvprintw(0, 0, "terminal too small: %dx%d, bagscope needs %dx%d", COLS, LINES, MIN_COLS, MIN_LINES);
		refresh();
		return;
	}
	if (app->help) {
		draw_help(app);
		refresh();
		return;
	}
	char title[512];
	snprintf(title, sizeof title, " bagscope  %s%s  %llu messages  %.1f s", app->paths[0],
	         app->npaths > 1 ? " (+ more bags)" : "", (unsigned long long)bag_timeline_count(app->tl),
	         (double)(app->m.end_ns - app->m.start_ns) / 1e9);
	colour_on(app, C_TITLE, A_BOLD);
	put(0, 0, COLS, title);
	colour_off(app, C_TITLE, A_BOLD);
	for (int p = 0; p < PANE_COUNT; p++)
		panes[p].draw(app, app->panes[p]);
	draw_timeline(app, app->timeline);
	draw_status(app, app->status);
	if (!app->prompt)
		move(LINES - 1, COLS - 1);
	refresh();
}

void draw_init_colours(struct app *app)
{
	app->colour = has_colors() && getenv("NO_COLOR") == NULL;
	if (!app->colour)
		return;
	start_color();
	use_default_colors();
	init_pair(C_TITLE, COLOR_BLACK, COLOR_CYAN);
	init_pair(C_FOCUS, COLOR_BLACK, COLOR_YELLOW);
	init_pair(C_DIM, COLOR_CYAN, -1);
	init_pair(C_HIDDEN, COLOR_BLUE, -1);
	init_pair(C_ERROR, COLOR_RED, -1);
	init_pair(C_BAR, COLOR_WHITE, COLOR_BLUE);
}
