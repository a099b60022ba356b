/*
 * draw.c - drawing the screen: each pane through its ops, the timeline
 * strips, the status line and the help screen, plus the helpers the pane
 * views share (draw.h). Only rows in sight are looked at.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include "tui/actions.h"
#include "tui/draw.h"
#include "tui/keys.h"
#include "tui/match.h"

void draw_colour_on(struct app *app, int pair, attr_t extra)
{
	if (app->colour)
		attron(COLOR_PAIR(pair) | extra);
	else
		attron(extra);
}

void draw_colour_off(struct app *app, int pair, attr_t extra)
{
	if (app->colour)
		attroff(COLOR_PAIR(pair) | extra);
	else
		attroff(extra);
}

/*
 * Escaped text t[0..len) at (y, x) from column skip on, cut to w columns,
 * the rest blanked; bytes [hs, he) of it in reverse video (a search match).
 * Columns are the terminal's (wcwidth) where the locale is UTF-8;
 * elsewhere each byte beyond ASCII shows as '?'.
 */
static void put_escaped(int y, int x, int w, const char *p, size_t len, int skip, size_t hs, size_t he)
{
	mbstate_t mb;
	size_t at = 0;
	int cols = 0, skipped = 0;
	bool rev = false;

	move(y, x);
	memset(&mb, 0, sizeof mb);
	while (at < len) {
		wchar_t wc;
		size_t n = mbrtowc(&wc, p + at, len - at, &mb);
		int cw = 1;
		bool bad = n == (size_t)-1 || n == (size_t)-2 || n == 0;
		if (!bad) {
			cw = wcwidth(wc);
			cw = cw < 0 ? 1 : cw;
		} else {
			memset(&mb, 0, sizeof mb);
			n = 1;
		}
		if (skipped < skip) {
			skipped += cw;
			at += n;
			continue;
		}
		if (cols + cw > w)
			break;
		bool in = at >= hs && at < he;
		if (in != rev) {
			if (in)
				attron(A_REVERSE);
			else
				attroff(A_REVERSE);
			rev = in;
		}
		if (bad)
			addch('?');
		else
			addnstr(p + at, (int)n);
		at += n;
		cols += cw;
	}
	if (rev)
		attroff(A_REVERSE);
	if (cols < w)
		hline(' ', w - cols);
}

/*
 * Text at (y, x), escaped (termtext.h: control characters and bad UTF-8
 * become visible escapes), cut to w terminal columns, the rest of the width
 * blanked: nothing the text holds can move the cursor or spill past the
 * pane. All text reaches the screen through here.
 */
void draw_put(int y, int x, int w, const char *s)
{
	draw_put_match(NULL, y, x, w, s, 0);
}

void draw_put_match(const struct app *app, int y, int x, int w, const char *s, int skip)
{
	struct bag_text t = { 0 };
	size_t hs = SIZE_MAX, he = SIZE_MAX;

	if (w <= 0)
		return;
	term_escape(&t, s, strlen(s));
	if (!t.failed && t.len > 0 && app != NULL && app->hl_on)
		if (!match_find(&app->hl, t.p, t.len, &hs, &he) || he == hs)
			hs = he = SIZE_MAX;
	put_escaped(y, x, w, t.failed ? "" : t.p ? t.p : "", t.failed ? 0 : t.len, skip, hs, he);
	bag_text_free(&t);
}

/* Columns s takes on the screen (escaped, as draw_put writes it). */
int draw_width(const char *s)
{
	struct bag_text t = { 0 };
	mbstate_t mb;
	int cols = 0;

	term_escape(&t, s, strlen(s));
	memset(&mb, 0, sizeof mb);
	for (size_t at = 0; !t.failed && at < t.len;) {
		wchar_t wc;
		size_t n = mbrtowc(&wc, t.p + at, t.len - at, &mb);
		if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
			memset(&mb, 0, sizeof mb);
			n = 1;
			cols++;
		} else {
			cols += wcwidth(wc) > 0 ? wcwidth(wc) : wcwidth(wc) == 0 ? 0 : 1;
		}
		at += n;
	}
	bag_text_free(&t);
	return cols;
}

/* ", 12 s left": the running job's time to go at its pace so far, once it has run 0.3 s. */
static void draw_eta(const struct app *app, char *buf, size_t cap)
{
	struct timespec ts;
	uint64_t done = app->js.done, total = app->js.total;

	buf[0] = '\0';
	clock_gettime(CLOCK_MONOTONIC, &ts);
	int64_t el = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec - app->job_t0;
	if (done == 0 || total <= done || el < 300000000)
		return;
	double left = (double)el / 1e9 * (double)(total - done) / (double)done;
	if (left < 10)
		snprintf(buf, cap, ", %.1f s left", left);
	else if (left < 120)
		snprintf(buf, cap, ", %.0f s left", left);
	else
		snprintf(buf, cap, ", %.0f min left", left / 60);
}

/* A pane's title row. */
void draw_pane_title(struct app *app, struct rect r, const char *title, int pane)
{
	bool focus = (int)app->m.focus == pane;

	draw_colour_on(app, focus ? C_FOCUS : C_TITLE, focus ? A_BOLD : 0);
	draw_put(r.y, r.x, r.w, title);
	draw_colour_off(app, focus ? C_FOCUS : C_TITLE, focus ? A_BOLD : 0);
}

/* "1396293887.844783943" or "+12.345678901": to the nanosecond, as ties differ by that much. */
void draw_fmt_time(const struct app *app, int64_t ns, char *buf, size_t cap)
{
	if (app->m.relative) {
		/* padded to the digits of the bag's span, so the column keeps its width */
		int64_t d = ns - app->m.start_ns, span = app->m.end_ns - app->m.start_ns;
		int digits = snprintf(NULL, 0, "%lld", (long long)(span / 1000000000));
		snprintf(buf, cap, "%s%*lld.%09lld", d < 0 ? "-" : "+", digits, (long long)(llabs(d) / 1000000000),
		         (long long)(llabs(d) % 1000000000));
	} else {
		snprintf(buf, cap, "%lld.%09lld", (long long)(ns / 1000000000), (long long)(ns % 1000000000));
	}
}

static const struct pane_ops *const panes[PANE_COUNT] = {
	[PANE_CONNS] = &view_conns_ops,
	[PANE_LIST] = &view_list_ops,
	[PANE_DETAIL] = &view_detail_ops,
};

const struct pane_ops *draw_ops(enum pane p)
{
	return panes[p];
}

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
		if (app->topic_density != NULL)
			model_density_topics(m, app->topic_density, w);
	}
	double span = (double)(m->end_ns - m->start_ns);
	int cur = span > 0 ? (int)((double)(model_time(m) - m->start_ns) / span * w) : 0;
	cur = cur < 0 ? 0 : cur >= w ? w - 1 : cur;
	draw_colour_on(app, C_DIM, 0);
	mvaddstr(r.y, r.x, " timeline ");
	draw_colour_off(app, C_DIM, 0);
	draw_strip(app, r.y, r.x + 10, app->density, w, cur);
	if (app->strips == 0 || app->topic_density == NULL)
		return;
	struct term_scratch sc = { 0 };
	int y = r.y + 1;
	for (size_t i = 0; i < m->ntopics && y < r.y + r.h; i++) {
		size_t t = m->order[i];
		if (!m->topics[t].shown)
			continue;
		const char *name = term_str(&sc, m->topics[t].topic);
		size_t len = strlen(name), tail = len > 7 ? len - 7 : 0;
		char label[24];
		/* the topic's tail: "…imu/data" reads better than its head */
		while (tail > 0 && (name[tail] & 0xC0) == 0x80)
			tail--;
		if (len <= 8)
			snprintf(label, sizeof label, " %-8s ", name);
		else
			snprintf(label, sizeof label, " %s%s ", app->utf8 ? "\xE2\x80\xA6" : "~", name + tail);
		draw_colour_on(app, C_DIM, 0);
		draw_put(y, r.x, 10, label);
		draw_colour_off(app, C_DIM, 0);
		draw_strip(app, y, r.x + 10, app->topic_density + t * (size_t)w, w, cur);
		y++;
	}
	term_scratch_free(&sc);
}

/* "2014-03-31 19:24:47.844 UTC" in the zone the screen shows. */
void draw_fmt_date(const struct app *app, int64_t t, char *buf, size_t cap)
{
	time_t secs = (time_t)(t / 1000000000 - (t % 1000000000 < 0));
	struct tm tm;
	char when[48], zone[16] = "UTC";

	if (app->m.local) {
		localtime_r(&secs, &tm);
		strftime(zone, sizeof zone, "%Z", &tm);
	} else {
		gmtime_r(&secs, &tm);
	}
	strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf, cap, "%s.%03lld %s", when, (long long)((t % 1000000000 + 1000000000) % 1000000000 / 1000000), zone);
}

/* The prompt's question, by kind. */
static const char *prompt_label(int kind)
{
	switch (kind) {
	case '/': return "search:";
	case '&': return "filter (e.g. level >= 4 && $topic == \"/rosout\"; empty: off):";
	case 'C': return "column (topic.path, e.g. /odom.pose.pose.position.x; empty: none):";
	case 'W': return "write the marked range of the shown topics to (Esc: no):";
	default: return "jump to (epoch, date, 19:25:00, +12.5, 1m30s, -30s, 50%, #row):";
	}
}

static void draw_status(struct app *app, struct rect r)
{
	struct model *m = &app->m;
	char line[2048], when[64] = "", sizes[160], extra[256] = "";
	uint64_t done;
	size_t pending;
	int64_t t = model_time(m);

	if (app->prompt) {
		if (app->prompt == 'p')
			snprintf(line, sizeof line, "%s", plot_prompt_text(app));
		else
			snprintf(line, sizeof line, "%s %s", prompt_label(app->prompt), app->prompt_buf);
		draw_colour_on(app, C_BAR, A_BOLD);
		/* the end of a long input stays in sight */
		int wdt = draw_width(line);
		draw_put_match(NULL, r.y, r.x, r.w, line, wdt >= r.w ? wdt - r.w + 1 : 0);
		draw_colour_off(app, C_BAR, A_BOLD);
		move(r.y, wdt < r.w ? wdt : r.w - 1);
		return;
	}
	if (model_count(m) > 0 && bag_relative_times(app->bags[0]))
		/* an old recorder's durations since it started (bag_relative_times), not dates */
		snprintf(when, sizeof when, "+%lld.%03llds since the recording started", (long long)(t / 1000000000),
		         (long long)(t % 1000000000 / 1000000));
	else if (model_count(m) > 0)
		draw_fmt_date(app, t, when, sizeof when);
	worker_stats(app->worker, &done, &pending);
	snprintf(sizes, sizeof sizes, pending ? "decoding (%zu queued)" : "ready", pending);
	if (app->bad_msgs > 0)
		snprintf(sizes, sizeof sizes, "%llu messages cannot be read (%zu chunks; L: log)",
		         (unsigned long long)app->bad_msgs, app->bad_nchunks);
	if (app->js.running) {
		int pct = app->js.total ? (int)(app->js.done * 100 / app->js.total) : 0;
		char eta[32];
		draw_eta(app, eta, sizeof eta);
		if (app->js.kind == JOB_SEARCH)
			snprintf(extra, sizeof extra, "searching '%.60s'%s: %d%%%s  (Esc cancels)", app->search,
			         app->js.wrapped ? " from the start" : "", pct, eta);
		else
			snprintf(extra, sizeof extra, "filtering: %zu matches, %d%%%s  (Esc stops)", m->nfrows, pct, eta);
	}
	if (app->count > 0)
		snprintf(extra, sizeof extra, "count %llu", (unsigned long long)app->count);
	if (app->nmarks > 0) {
		/* time since the nearest mark at or before the selection */
		int64_t best = INT64_MIN;
		for (size_t i = 0; i < app->nmarks; i++)
			if ((int64_t)app->marks[2 * i] <= t && (int64_t)app->marks[2 * i] > best)
				best = (int64_t)app->marks[2 * i];
		if (best != INT64_MIN && extra[0] == '\0')
			snprintf(extra, sizeof extra, "%.3f s after the mark", (double)(t - best) / 1e9);
	}
	const char *name = bag_path(app->bags[0]), *slash = strrchr(name, '/');
	name = slash ? slash + 1 : name;
	/* a note (an error, a search's progress) comes before the less urgent facts */
	int n = snprintf(line, sizeof line, " %s%s  row %llu/%llu%s  ", name, app->cb.nbags > 1 ? " +more" : "",
	                 (unsigned long long)(model_count(m) ? m->row + 1 : 0), (unsigned long long)model_count(m),
	                 m->filtered ? " filtered" : "");
	char note[1100];
	detail_problem_first(m->note, note, sizeof note);
	if (extra[0] && n < (int)sizeof line)
		n += snprintf(line + n, sizeof line - (size_t)n, "| %s  ", extra);
	if (app->bad_msgs > 0 && n < (int)sizeof line)
		n += snprintf(line + n, sizeof line - (size_t)n, "| %s  ", sizes);
	if (m->note[0] && n < (int)sizeof line)
		n += snprintf(line + n, sizeof line - (size_t)n, "| %s  ", note);
	if (n < (int)sizeof line)
		snprintf(line + n, sizeof line - (size_t)n, "%s  %s  ? help", when, app->bad_msgs > 0 ? "" : sizes);
	bool alarm = m->note[0] || app->bad_msgs > 0;
	draw_colour_on(app, alarm ? C_ERROR : C_BAR, 0);
	draw_put(r.y, r.x, r.w, line);
	draw_colour_off(app, alarm ? C_ERROR : C_BAR, 0);
}

/* The help screen, from the key table; it scrolls (j, k, PgDn, PgUp) when taller than the screen. */
static void draw_help(struct app *app)
{
	int rows = LINES - 2, total = ACTION_COUNT - 1 + 2;

	if (app->help_top > total - rows)
		app->help_top = total - rows > 0 ? total - rows : 0;
	erase();
	draw_colour_on(app, C_TITLE, A_BOLD);
	draw_put(0, 0, COLS, total > rows ? " bagscope keys  (j/k, PgDn/PgUp scroll; any other key closes)"
	                                  : " bagscope keys  (any key closes this help)");
	draw_colour_off(app, C_TITLE, A_BOLD);
	for (int y = 1; y <= rows; y++) {
		int i = app->help_top + y - 1;
		char line[256];
		if (i < ACTION_COUNT - 1)
			snprintf(line, sizeof line, "  %-16s %s", keys_describe((enum action)(i + 1)),
			         keys_help((enum action)(i + 1)));
		else if (i == ACTION_COUNT - 1)
			snprintf(line, sizeof line, "  %-16s %s", "0-9", "a count before a movement key (5j, 100G)");
		else if (i == ACTION_COUNT)
			snprintf(line, sizeof line, "  %-16s %s", "mouse", "wheel scrolls, click selects, [x] toggles, timeline jumps");
		else
			line[0] = '\0';
		draw_put(y, 0, COLS, line);
	}
	draw_put(LINES - 1, 0, COLS, total > rows ? "  \xE2\x80\xA6 more below and above; bagscope(1) has the rest"
	                                        : "  bagscope(1) has the rest");
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
		media_flush(app);
		return;
	}
	char title[512];
	if (bag_timeline_count(app->tl) == 0)
		snprintf(title, sizeof title, " bagscope  %s%s  no messages", bag_path(app->bags[0]),
		         app->cb.nbags > 1 ? " (+ more bags)" : "");
	else
		snprintf(title, sizeof title, " bagscope  %s%s  %llu messages  %.1f s", bag_path(app->bags[0]),
		         app->cb.nbags > 1 ? " (+ more bags)" : "", (unsigned long long)bag_timeline_count(app->tl),
		         (double)(app->m.end_ns - app->m.start_ns) / 1e9);
	draw_colour_on(app, C_TITLE, A_BOLD);
	draw_put(0, 0, COLS, title);
	draw_colour_off(app, C_TITLE, A_BOLD);
	if (app->zoom) {
		panes[PANE_DETAIL]->draw(app, app->panes[PANE_DETAIL]);
		draw_status(app, app->status);
		refresh();
		return;
	}
	for (int p = 0; p < PANE_COUNT; p++)
		panes[p]->draw(app, app->panes[p]);
	/* rows the panes leave between them and the timeline are cleared */
	for (int y = app->panes[PANE_DETAIL].y + app->panes[PANE_DETAIL].h; y < app->timeline.y; y++)
		draw_put(y, 0, COLS, "");
	if (app->panes[PANE_LIST].y + app->panes[PANE_LIST].h < app->timeline.y &&
	    app->panes[PANE_LIST].x + app->panes[PANE_LIST].w < COLS)
		for (int y = app->panes[PANE_LIST].y + app->panes[PANE_LIST].h; y < app->timeline.y; y++)
			draw_put(y, 0, app->panes[PANE_LIST].w, "");
	plot_draw(app);
	draw_timeline(app, app->timeline);
	draw_status(app, app->status);
	if (!app->prompt)
		move(LINES - 1, COLS - 1);
	refresh();
	media_flush(app);
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
