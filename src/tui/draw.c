/*
 * draw.c - curses output shared by the panes: colours (or attributes when
 * the terminal has none or NO_COLOR is set), clipped multibyte text, title
 * bars, the status line, the prompt and the help overlay; and draw_screen,
 * which erases and draws every pane in its rectangle. curses computes the
 * difference from the previous frame, so a full redraw per keypress costs
 * only what changed on the wire.
 */
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "tui/app.h"

/* Colour pairs by slot: foreground, background (-1: terminal default). */
static const short pair_colors[][2] = {
	[C_NORMAL] = { -1, -1 },
	[C_TITLE] = { COLOR_BLACK, COLOR_WHITE },
	[C_TITLE_FOCUS] = { COLOR_BLACK, COLOR_CYAN },
	[C_SELECT] = { COLOR_BLACK, COLOR_CYAN },
	[C_SELECT_DIM] = { -1, -1 },
	[C_DIM] = { COLOR_BLUE, -1 },
	[C_ERROR] = { COLOR_WHITE, COLOR_RED },
	[C_STATUS] = { COLOR_WHITE, COLOR_BLUE },
	[C_TIME] = { COLOR_YELLOW, -1 },
	[C_KEY] = { COLOR_CYAN, -1 },
	[C_VALUE] = { COLOR_GREEN, -1 },
	[C_CURSOR] = { COLOR_BLACK, COLOR_YELLOW },
	[C_TOPIC0 + 0] = { COLOR_GREEN, -1 },
	[C_TOPIC0 + 1] = { COLOR_MAGENTA, -1 },
	[C_TOPIC0 + 2] = { COLOR_CYAN, -1 },
	[C_TOPIC0 + 3] = { COLOR_YELLOW, -1 },
	[C_TOPIC0 + 4] = { COLOR_RED, -1 },
	[C_TOPIC0 + 5] = { COLOR_BLUE, -1 },
};

void draw_init_colors(struct app *app)
{
	const char *no_color = getenv("NO_COLOR");

	app->color = has_colors() && (no_color == NULL || no_color[0] == '\0');
	if (!app->color)
		return;
	start_color();
	use_default_colors();
	for (size_t i = 1; i < sizeof pair_colors / sizeof *pair_colors; i++)
		init_pair((short)i, pair_colors[i][0], pair_colors[i][1]);
}

int draw_attr(const struct app *app, enum color_slot slot)
{
	if (app->color) {
		switch (slot) {
		case C_NORMAL: return A_NORMAL;
		case C_SELECT_DIM: return A_REVERSE;
		case C_TITLE_FOCUS: case C_STATUS: case C_ERROR: return (int)(COLOR_PAIR(slot) | A_BOLD);
		default: return (int)COLOR_PAIR(slot);
		}
	}
	switch (slot) {
	case C_TITLE: case C_STATUS: case C_SELECT_DIM: return A_REVERSE;
	case C_TITLE_FOCUS: case C_SELECT: case C_ERROR: case C_CURSOR: return A_REVERSE | A_BOLD;
	case C_DIM: return A_DIM;
	case C_KEY: return A_BOLD;
	default: return A_NORMAL;
	}
}

int draw_topic_attr(const struct app *app, size_t color)
{
	return app->color ? (int)COLOR_PAIR(C_TOPIC0 + (short)(color % NTOPIC_COLORS)) : A_NORMAL;
}

int draw_width(const char *s)
{
	mbstate_t st = { 0 };
	int w = 0;
	wchar_t wc;
	size_t n;

	while (*s) {
		n = mbrtowc(&wc, s, MB_CUR_MAX, &st);
		if (n == (size_t)-1 || n == (size_t)-2) {
			memset(&st, 0, sizeof st);
			s++;
			w++;
			continue;
		}
		int cw = wcwidth(wc);
		w += cw > 0 ? cw : 0;
		s += n;
	}
	return w;
}

int draw_text(int y, int x, int w, const char *s, int skip)
{
	mbstate_t st = { 0 };
	wchar_t wc;
	size_t n;
	int col = 0, put = 0;

	if (w <= 0)
		return 0;
	move(y, x);
	while (*s && put < w) {
		n = mbrtowc(&wc, s, MB_CUR_MAX, &st);
		if (n == (size_t)-1 || n == (size_t)-2) {
			memset(&st, 0, sizeof st);
			wc = L'?';
			n = 1;
		}
		if (wc < 0x20 || wc == 0x7f)
			wc = L'·';
		int cw = wcwidth(wc);
		if (cw < 0)
			cw = 1, wc = L'?';
		if (col >= skip) {
			if (put + cw > w)
				break;
			cchar_t cc;
			wchar_t ws[2] = { wc, 0 };
			attr_t a;
			short pair;
			attr_get(&a, &pair, NULL);
			setcchar(&cc, ws, a, pair, NULL);
			add_wch(&cc);
			put += cw;
		}
		col += cw;
		s += n;
	}
	return put;
}

void draw_fill(int y, int x, int w)
{
	if (w > 0)
		mvhline(y, x, ' ', w);
}

void draw_title(struct app *app, struct pane *p, const char *title, const char *right)
{
	bool focus = app->focus == p->id;
	int a = draw_attr(app, focus ? C_TITLE_FOCUS : C_TITLE);
	int rw = right ? draw_width(right) : 0;

	attrset(a);
	draw_fill(p->rect.y, p->rect.x, p->rect.w);
	draw_text(p->rect.y, p->rect.x + 1, p->rect.w - 2, title, 0);
	if (right != NULL && rw < p->rect.w - draw_width(title) - 3)
		draw_text(p->rect.y, p->rect.x + p->rect.w - rw - 1, rw, right, 0);
	attrset(A_NORMAL);
}

/* The last line: file, row i/N, time, worker state, error or note. */
static void draw_status(struct app *app)
{
	struct rect r = app->layout.status;
	struct bag_message m;
	char left[512], right[256], t[40], d[48];
	uint64_t count = app->view ? bag_view_count(app->view) : 0;
	const char *name = strrchr(app->paths[0], '/');
	struct bag_cache_stats cs = { 0 };

	name = name ? name + 1 : app->paths[0];
	if (app_selected(app, &m)) {
		fmt_time_abs(t, sizeof t, m.time_ns);
		fmt_date(d, sizeof d, m.time_ns);
		snprintf(left, sizeof left, " %s%s  row %llu/%llu  %s  %s", name,
		         app->nbags > 1 ? " +" : "", (unsigned long long)app->pane[PANE_LIST].sc.cursor + 1,
		         (unsigned long long)count, t, d);
		if (app->nbags > 1) {
			char more[24];
			snprintf(more, sizeof more, "%zu", app->nbags - 1);
			size_t l = strlen(left);
			/* "file.bag +2" */
			char *plus = strstr(left, " +  row");
			if (plus != NULL && l + strlen(more) < sizeof left) {
				memmove(plus + 2 + strlen(more), plus + 2, strlen(plus + 2) + 1);
				memcpy(plus + 2, more, strlen(more));
			}
		}
	} else {
		snprintf(left, sizeof left, " %s  no messages shown", name);
	}
	for (size_t i = 0; i < app->nbags; i++) {
		struct bag_cache_stats s;
		bag_cache_stats(app->bags[i], &s);
		cs.loads += s.loads;
	}
	if (app->searching)
		snprintf(right, sizeof right, "searching /%s %llu%%  Esc cancels ", app->pattern,
		         app->search_total ? (unsigned long long)(app->search_done * 100 / app->search_total) : 0ULL);
	else if (!app->worker_ready)
		snprintf(right, sizeof right, "opening… ");
	else if (worker_busy(app->worker))
		snprintf(right, sizeof right, "loading… ");
	else
		snprintf(right, sizeof right, "ready  ? help ");
	attrset(draw_attr(app, C_STATUS));
	draw_fill(r.y, r.x, r.w);
	int rw = draw_width(right);
	draw_text(r.y, r.x, r.w - rw - 1, left, 0);
	draw_text(r.y, r.x + r.w - rw, rw, right, 0);
	if (app->error[0] != '\0' || app->note[0] != '\0') {
		int lw = draw_width(left);
		const char *msg = app->error[0] ? app->error : app->note;
		int avail = r.w - lw - rw - 4;
		if (avail < 20) {
			avail = r.w - rw - 2;
			lw = -2;
		}
		attrset(draw_attr(app, app->error[0] ? C_ERROR : C_STATUS));
		draw_fill(r.y, r.x + lw + 2, avail);
		draw_text(r.y, r.x + lw + 3, avail - 1, msg, 0);
	}
	attrset(A_NORMAL);
}

/* The prompt replaces the status line while typing. */
static void draw_prompt(struct app *app)
{
	struct rect r = app->layout.status;
	const char *label = app->prompt == PROMPT_JUMP ? "jump to (epoch, date, +off, 5s, 50%, #row): " : "/";
	int lw = draw_width(label);

	attrset(A_NORMAL);
	draw_fill(r.y, r.x, r.w);
	attrset(draw_attr(app, C_KEY));
	draw_text(r.y, r.x, r.w, label, 0);
	attrset(A_NORMAL);
	int iw = draw_width(app->input);
	int skip = iw > r.w - lw - 1 ? iw - (r.w - lw - 1) : 0;
	draw_text(r.y, r.x + lw, r.w - lw - 1, app->input, skip);
	move(r.y, r.x + lw + iw - skip);
}

/* The help screen, built from the action table. */
static void draw_help(struct app *app)
{
	size_t n;
	const struct action_info *t = keys_table(&n);
	int w = app->width - 8 < 78 ? app->width - 8 : 78;
	int h = app->height - 4;
	int x0 = (app->width - w) / 2, y0 = 2;
	int rows = h - 3;

	if (app->help_top > (int)n - rows)
		app->help_top = (int)n - rows > 0 ? (int)n - rows : 0;
	attrset(draw_attr(app, C_TITLE_FOCUS));
	draw_fill(y0, x0, w);
	draw_text(y0, x0 + 2, w - 4, "bagscope keys", 0);
	attrset(A_NORMAL);
	for (int i = 0; i < h - 1; i++) {
		draw_fill(y0 + 1 + i, x0, w);
		mvaddch(y0 + 1 + i, x0, ACS_VLINE);
		mvaddch(y0 + 1 + i, x0 + w - 1, ACS_VLINE);
	}
	for (int i = 0; i < rows && app->help_top + i < (int)n; i++) {
		const struct action_info *a = &t[app->help_top + i];
		attrset(draw_attr(app, C_KEY));
		draw_text(y0 + 2 + i, x0 + 3, 14, a->keys, 0);
		attrset(A_NORMAL);
		draw_text(y0 + 2 + i, x0 + 18, w - 20, a->help, 0);
	}
	mvhline(y0 + h - 1, x0, ACS_HLINE, w);
	mvaddch(y0 + h - 1, x0, ACS_LLCORNER);
	mvaddch(y0 + h - 1, x0 + w - 1, ACS_LRCORNER);
	attrset(draw_attr(app, C_DIM));
	draw_text(y0 + h - 1, x0 + 3, w - 6, " j/k scroll · any other key closes ", 0);
	attrset(A_NORMAL);
}

void draw_screen(struct app *app)
{
	erase();
	if (app->layout.too_small) {
		char msg[96];
		snprintf(msg, sizeof msg, "terminal too small: %dx%d, bagscope needs %dx%d", app->width,
		         app->height, LAYOUT_MIN_W, LAYOUT_MIN_H);
		int w = draw_width(msg);
		draw_text(app->height / 2, w < app->width ? (app->width - w) / 2 : 0, app->width, msg, 0);
		curs_set(0);
		return;
	}
	for (int i = 0; i < PANE_COUNT; i++)
		if (app->pane[i].rect.h > 0)
			app->pane[i].ops->draw(app, &app->pane[i]);
	if (app->prompt != PROMPT_NONE) {
		draw_prompt(app);
		curs_set(1);
	} else {
		draw_status(app);
		curs_set(0);
	}
	if (app->help)
		draw_help(app);
}
