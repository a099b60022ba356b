/*
 * paint.c - the drawing helpers every pane shares (draw.h): colours, text
 * escaped and clipped to a width, a search match in reverse video, a pane's
 * title row, times and dates as the screen shows them. No pane state.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include "tui/draw.h"
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
	if (!t.failed && t.len > 0 && app != NULL && app->find.hl_on)
		if (!match_find(&app->find.hl, t.p, t.len, &hs, &he) || he == hs)
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

/* Whether s starts a key hint: "[s] sort", "[Esc] back". */
static bool is_hint(const char *s)
{
	size_t n = strcspn(s + 1, "] ");

	return s[0] == '[' && n >= 1 && n <= 5 && s[1 + n] == ']' && s[2 + n] == ' ';
}

/*
 * A title wider than w loses its key hints from the right, whole ("[s]
 * sort", never "[s] sor"); text before the first hint is left to draw_put.
 */
static void drop_hints(char *line, int w)
{
	char *hint;

	while (draw_width(line) > w && (hint = strrchr(line, '[')) != NULL && hint > line) {
		while (hint > line && !is_hint(hint))
			hint--;
		if (hint == line)
			return;
		*hint = '\0';
		for (size_t n = strlen(line); n > 0 && line[n - 1] == ' '; n--)
			line[n - 1] = '\0';
	}
}

/* A pane's title row: its name, then rest. */
void draw_pane_title(struct app *app, const struct pane *p, const char *rest)
{
	bool focus = &app->panes[app->m.focus] == p;
	char line[1024];

	snprintf(line, sizeof line, " %s%s", p->ops->title, rest);
	drop_hints(line, p->r.w);
	draw_colour_on(app, focus ? C_FOCUS : C_TITLE, focus ? A_BOLD : 0);
	draw_put(p->r.y, p->r.x, p->r.w, line);
	draw_colour_off(app, focus ? C_FOCUS : C_TITLE, focus ? A_BOLD : 0);
}

/* "19:24:47.844" in the zone the screen shows. */
static void fmt_clock(const struct app *app, int64_t t, char *buf, size_t cap)
{
	time_t secs = (time_t)(t / 1000000000 - (t % 1000000000 < 0));
	struct tm tm;

	if (app->m.local)
		localtime_r(&secs, &tm);
	else
		gmtime_r(&secs, &tm);
	snprintf(buf, cap, "%02d:%02d:%02d.%03lld", tm.tm_hour, tm.tm_min, tm.tm_sec,
	         (long long)((t % 1000000000 + 1000000000) % 1000000000 / 1000000));
}

/*
 * "1396293887.844783943" or "+12.345678901": to the nanosecond, as ties
 * differ by that much; or the time of day "19:24:47.844".
 */
void draw_fmt_time(const struct app *app, int64_t ns, char *buf, size_t cap)
{
	if (app->m.clock && !bag_relative_times(app->cb.bags[0])) {
		fmt_clock(app, ns, buf, cap);
	} else if (app->m.relative) {
		/* padded to the digits of the bag's span, so the column keeps its width */
		int64_t d = ns - app->m.start_ns, span = app->m.end_ns - app->m.start_ns;
		int digits = snprintf(NULL, 0, "%lld", (long long)(span / 1000000000));
		snprintf(buf, cap, "%s%*lld.%09lld", d < 0 ? "-" : "+", digits, (long long)(llabs(d) / 1000000000),
		         (long long)(llabs(d) % 1000000000));
	} else {
		snprintf(buf, cap, "%lld.%09lld", (long long)(ns / 1000000000), (long long)(ns % 1000000000));
	}
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
