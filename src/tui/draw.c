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
 * Text at (y, x), escaped (termtext.h), cut to w columns, the rest of the
 * width blanked: nothing the text holds can move the cursor or spill past
 * the pane. Columns are the terminal's (wcwidth) where the locale is UTF-8;
 * elsewhere each byte beyond ASCII shows as '?'.
 */
void draw_put(int y, int x, int w, const char *s)
{
	struct bag_text t = { 0 };
	mbstate_t mb;
	size_t at = 0;
	int cols = 0;

	if (w <= 0)
		return;
	term_escape(&t, s, strlen(s));
	move(y, x);
	memset(&mb, 0, sizeof mb);
	while (!t.failed && at < t.len) {
		wchar_t wc;
		size_t n = mbrtowc(&wc, t.p + at, t.len - at, &mb);
		int cw = 1;
		if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
			if (cols + 1 > w)
				break;
			addch('?');
			memset(&mb, 0, sizeof mb);
			at++;
			cols++;
			continue;
		}
		cw = wcwidth(wc);
		cw = cw < 0 ? 1 : cw;
		if (cols + cw > w)
			break;
		addnstr(t.p + at, (int)n);
		at += n;
		cols += cw;
	}
	if (cols < w)
		hline(' ', w - cols);
	bag_text_free(&t);
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
		int64_t d = ns - app->m.start_ns;
		snprintf(buf, cap, "%s%lld.%09lld", d < 0 ? "-" : "+", (long long)(llabs(d) / 1000000000),
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
		draw_colour_on(app, C_BAR, A_BOLD);
		draw_put(r.y, r.x, r.w, line);
		draw_colour_off(app, C_BAR, A_BOLD);
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
	else if (bag_relative_times(app->bags[0]))
		/* an old recorder's durations since it started (bag_relative_times), not dates */
		snprintf(line + n, sizeof line - (size_t)n, "+%lld.%03llds since the recording started  %s",
		         (long long)(t / 1000000000), (long long)(t % 1000000000 / 1000000), sizes);
	else
		snprintf(line + n, sizeof line - (size_t)n, "%s.%03lld UTC  %s", when,
		         (long long)(t % 1000000000 / 1000000), sizes);
	draw_colour_on(app, m->note[0] ? C_ERROR : C_BAR, 0);
	draw_put(r.y, r.x, r.w, line);
	draw_colour_off(app, m->note[0] ? C_ERROR : C_BAR, 0);
}

static void draw_help(struct app *app)
{
	int y = 1;

	erase();
	draw_colour_on(app, C_TITLE, A_BOLD);
	draw_put(0, 0, COLS, " bagscope keys  (any key closes this help)");
	draw_colour_off(app, C_TITLE, A_BOLD);
	for (int a = 1; a < ACTION_COUNT && y < LINES - 1; a++, y++) {
		char line[256];
		snprintf(line, sizeof line, "  %-18s %s", keys_describe((enum action)a), keys_help((enum action)a));
		draw_put(y, 0, COLS, line);
	}
	draw_put(LINES - 1, 0, COLS, "  mouse: wheel scrolls, click selects;  bagscope(1) has the rest");
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
	draw_colour_on(app, C_TITLE, A_BOLD);
	draw_put(0, 0, COLS, title);
	draw_colour_off(app, C_TITLE, A_BOLD);
	for (int p = 0; p < PANE_COUNT; p++)
		panes[p]->draw(app, app->panes[p]);
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
