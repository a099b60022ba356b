/*
 * screen.c - drawing the screen: the layout, the title row, every pane on
 * screen through its ops, the status line (or the prompt), then the panes'
 * flush ops after curses' refresh. Only rows in sight are looked at.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/timeparse.h"
#include "tui/draw.h"

/* The prompt on the status line, the end of a long input in sight, the cursor after it. */
static void draw_prompt(struct app *app, struct rect r)
{
	char line[2048];

	prompt_line(app, line, sizeof line);
	draw_colour_on(app, C_BAR, A_BOLD);
	int wdt = draw_width(line);
	draw_put_match(NULL, r.y, r.x, r.w, line, wdt >= r.w ? wdt - r.w + 1 : 0);
	draw_colour_off(app, C_BAR, A_BOLD);
	move(r.y, wdt < r.w ? wdt : r.w - 1);
}

/* ", 12 s left": the running job's time to go at its pace so far, once it has run 0.3 s. */
static void status_eta(const struct app *app, char *buf, size_t cap)
{
	const struct find *f = &app->find;
	int64_t el = app_now_ns() - f->t0;

	buf[0] = '\0';
	if (f->js.done == 0 || f->js.total <= f->js.done || el < 300000000)
		return;
	double left = (double)el / 1e9 * (double)(f->js.total - f->js.done) / (double)f->js.done;
	if (left < 10)
		snprintf(buf, cap, ", %.1f s left", left);
	else if (left < 120)
		snprintf(buf, cap, ", %.0f s left", left);
	else
		snprintf(buf, cap, ", %.0f min left", left / 60);
}

/* What runs (a search, a filter, a count typed) or the time since the last mark. */
static void status_extra(struct app *app, int64_t t, char *extra, size_t cap)
{
	const struct find *f = &app->find;

	extra[0] = '\0';
	if (f->js.running) {
		int pct = f->js.total ? (int)(f->js.done * 100 / f->js.total) : 0;
		char eta[32];
		status_eta(app, eta, sizeof eta);
		if (f->js.kind == JOB_SEARCH)
			snprintf(extra, cap, "searching '%.60s'%s: %d%%%s  (Esc cancels)", f->search,
			         f->js.wrapped ? " from the start" : "", pct, eta);
		else
			snprintf(extra, cap, "filtering: %zu match%s, %d%%%s  (Esc stops)", app->m.nfrows,
			         app->m.nfrows == 1 ? "" : "es", pct, eta);
	}
	if (app->count > 0)
		snprintf(extra, cap, "count %llu", (unsigned long long)app->count);
	if (app->marks.n > 0 && extra[0] == '\0') {
		/* time since the nearest mark at or before the selection */
		int64_t best = INT64_MIN;
		for (size_t i = 0; i < app->marks.n; i++)
			if ((int64_t)app->marks.v[2 * i] <= t && (int64_t)app->marks.v[2 * i] > best)
				best = (int64_t)app->marks.v[2 * i];
		if (best != INT64_MIN)
			snprintf(extra, cap, "%.3f s after the mark", (double)(t - best) / 1e9);
	}
}

/* URL bags: the bytes fetched so far (all handles), and whether the index is being fetched. */
static void status_fetched(struct app *app, char *sizes, size_t cap)
{
	uint64_t total = 0, requests = 0;
	size_t n = strlen(sizes);

	for (size_t b = 0; b < app->cb.nbags; b++) {
		uint64_t bytes, reqs;
		bag_fetched(app->cb.bags[b], &bytes, &reqs);
		total += bytes;
		requests += reqs;
	}
	if (requests > 0 && n < cap)
		snprintf(sizes + n, cap - n, ", %.1f MB fetched in %llu requests%s", (double)total / 1e6,
		         (unsigned long long)requests, worker_warming(app->worker) > 0 ? ", fetching (Esc: stop)" : "");
}

/* The status line's text (it may hold '\n's: a filter's expression and its caret); whether it is an alarm. */
static bool status_text(struct app *app, char *line, size_t cap)
{
	struct model *m = &app->m;
	char when[64] = "", sizes[160], extra[256];
	uint64_t done;
	size_t pending;
	int64_t t = model_time(m);

	if (model_count(m) > 0 && bag_relative_times(app->cb.bags[0]))
		/* an old recorder's durations since it started (bag_relative_times), not dates */
		snprintf(when, sizeof when, "+%lld.%03llds since the recording started", (long long)(t / 1000000000),
		         (long long)(t % 1000000000 / 1000000));
	else if (model_count(m) > 0)
		draw_fmt_date(app, t, when, sizeof when);
	worker_stats(app->worker, &done, &pending);
	snprintf(sizes, sizeof sizes, pending ? "decoding (%zu queued)" : "ready", pending);
	if (!pending && app_check_percent(app) >= 0)
		snprintf(sizes, sizeof sizes, "checking the chunks %d%%", app_check_percent(app));
	if (app->bad.msgs > 0)
		snprintf(sizes, sizeof sizes, "%zu unreadable chunk%s, %llu message%s lost%s (L: log)", app->bad.nchunks,
		         BAG_S(app->bad.nchunks), (unsigned long long)app->bad.msgs, BAG_S(app->bad.msgs),
		         app_check_percent(app) >= 0 ? " so far" : "");
	status_fetched(app, sizes, sizeof sizes);
	status_extra(app, t, extra, sizeof extra);
	/* a note (an error, a search's progress) comes before the less urgent facts */
	int n = snprintf(line, cap, " %s%s  row %llu/%llu%s  ", app_base_name(bag_path(app->cb.bags[0])),
	                 app->cb.nbags > 1 ? " +more" : "", (unsigned long long)(model_count(m) ? m->row + 1 : 0),
	                 (unsigned long long)model_count(m),
	                 !m->filtered ? "" : app->find.stopped >= 0 ? " filtered, partial" : " filtered");
	char note[1100];
	detail_problem_first(m->note, note, sizeof note);
	if (app->quit_asked && app_export_running(app))
		snprintf(note, sizeof note, "a write is running: q again cancels it and quits, any other key goes on");
	if (extra[0] && n < (int)cap)
		n += snprintf(line + n, cap - (size_t)n, "| %s  ", extra);
	if (app->bad.msgs > 0 && n < (int)cap)
		n += snprintf(line + n, cap - (size_t)n, "| %s  ", sizes);
	/* a note (an error, a search's progress) before the less urgent facts; a long one wraps */
	if (note[0] && n < (int)cap)
		n += snprintf(line + n, cap - (size_t)n, "| %s  ", note);
	if (n < (int)cap)
		snprintf(line + n, cap - (size_t)n, "%s  %s  ? help", when, app->bad.msgs > 0 ? "" : sizes);
	return note[0] || app->bad.msgs > 0;
}

/* Bytes of s that fit w columns (whole characters), up to its end or a '\n'. */
static size_t fit_bytes(const char *s, int w)
{
	size_t i = 0;
	int cols = 0;

	while (s[i] && s[i] != '\n') {
		size_t k = 1;
		while ((s[i + k] & 0xC0) == 0x80)
			k++;
		if (++cols > w)
			break;
		i += k;
	}
	return i;
}

/* Whether the row at s starts with spaces and a '^' (then a space or its end): a caret under the row above. */
static bool caret_row(const char *s, size_t *col)
{
	size_t n = strspn(s, " ");
	*col = n;
	return s[n] == '^' && (s[n + 1] == '\0' || s[n + 1] == '\n' || s[n + 1] == ' ');
}

/*
 * The status text in rows of w columns, at most STATUS_ROWS: rows[k] is
 * [start, start + len) of line, and skip[k] columns of it are left out on
 * the left (an expression longer than the row, shifted so that its caret
 * row's '^' stays under the column it points at). Returns the row count.
 */
static int status_cut(const char *line, int w, size_t *start, size_t *len)
{
	int rows = 0;
	const char *s = line;

	while (*s && rows < STATUS_ROWS) {
		const char *nl = strchr(s, '\n');
		size_t col, full = nl ? (size_t)(nl - s) : strlen(s);
		if (nl && caret_row(nl + 1, &col) && (int)full > w) {
			/* an expression wider than the row: the window around its caret, the caret row with it */
			size_t from = col > (size_t)w / 2 ? col - (size_t)w / 2 : 0;
			from = from + (size_t)w > full ? full - (size_t)w : from;
			start[rows] = (size_t)(s - line) + from;
			len[rows++] = (size_t)w;
			s = nl + 1 + from;       /* the caret row shifted as much, then wrapped as text */
			continue;
		}
		size_t k = fit_bytes(s, w);
		if (s[k] && s[k] != '\n') {
			/* break at a space in the row's last third, else where it is full */
			size_t b = k;
			while (b > 0 && s[b] != ' ' && b > k * 2 / 3)
				b--;
			k = s[b] == ' ' ? b : k;
		}
		start[rows] = (size_t)(s - line);
		len[rows++] = k;
		s += k;
		s += *s == '\n' || *s == ' ';
	}
	return rows ? rows : 1;
}

int status_rows(struct app *app, int w)
{
	char line[2048];
	size_t start[STATUS_ROWS], len[STATUS_ROWS];

	if (app->prompt.kind)
		return 1;
	status_text(app, line, sizeof line);
	return status_cut(line, w, start, len);
}

static void draw_status(struct app *app, struct rect r)
{
	char line[2048], row[2048];
	size_t start[STATUS_ROWS], len[STATUS_ROWS];

	if (app->prompt.kind) {
		draw_prompt(app, r);
		return;
	}
	bool alarm = status_text(app, line, sizeof line);
	int n = status_cut(line, r.w, start, len);
	draw_colour_on(app, alarm ? C_ERROR : C_BAR, 0);
	for (int k = 0; k < r.h; k++) {
		size_t l = k < n ? len[k] : 0;
		bool more = k == r.h - 1 && k < n && line[start[k] + l] != '\0' && line[start[k] + l + 1] != '\0';
		/* the last row, when the note goes on past it, says where the whole of it is */
		if (more)
			l = fit_bytes(line + start[k], r.w - 10) < l ? fit_bytes(line + start[k], r.w - 10) : l;
		snprintf(row, sizeof row, "%.*s%s", (int)l, k < n ? line + start[k] : "", more ? " \xe2\x80\xa6 L: all" : "");
		draw_put(r.y + k, r.x, r.w, row);
	}
	draw_colour_off(app, alarm ? C_ERROR : C_BAR, 0);
}

/*
 * The title: the bag (or "N bags" and their names), its messages ("~N" while
 * a lone .db3 is being counted: model_title_count) and span.
 * A bag's path too long for the row is cut in its middle, so the counts stay.
 */
static void draw_title(struct app *app)
{
	char title[1024], names[256] = "", rest[300], buf[300], path[512], span[32];
	struct term_scratch sc = { 0 };
	size_t n = 0;

	for (size_t b = 0; app->cb.nbags > 1 && b < app->cb.nbags && n < sizeof names - 1; b++)
		n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", b ? ", " : "  ",
		                      term_str(&sc, app_bag_label(app, b, buf, sizeof buf)));
	bool estimate;
	uint64_t count = model_title_count(&app->m, &estimate);

	if (count == 0 && !estimate)
		snprintf(rest, sizeof rest, "  no messages%s", names);
	else {
		span_text(span, sizeof span, (double)(app->m.end_ns - app->m.start_ns) / 1e9);
		snprintf(rest, sizeof rest, "  %s%llu message%s  %s%s", estimate ? "~" : "", (unsigned long long)count,
		         BAG_S(count), span, names);
	}
	if (app->cb.nbags > 1) {
		snprintf(title, sizeof title, " bagscope  %zu bags%s", app->cb.nbags, rest);
	} else {
		int room = COLS - (int)strlen(" bagscope  ") - (int)strlen(rest);
		term_cut_middle(term_str(&sc, bag_path(app->cb.bags[0])), room > 12 ? room : 12, path, sizeof path);
		snprintf(title, sizeof title, " bagscope  %s%s", path, rest);
	}
	draw_colour_on(app, C_TITLE, A_BOLD);
	draw_put(0, 0, COLS, title);
	draw_colour_off(app, C_TITLE, A_BOLD);
	term_scratch_free(&sc);
}

/* Rows no pane took (between the body and the bottom panes) are cleared. */
static void clear_gaps(struct app *app)
{
	int y = 1, bottom = app->status.y;
	bool used[512] = { false };

	for (int i = 0; i < PANE_COUNT; i++) {
		const struct rect *r = &app->panes[i].r;
		for (int k = r->y; r->h > 0 && k < r->y + r->h && k < 512; k++)
			used[k] = true;
	}
	for (; y < bottom && y < 512; y++)
		if (!used[y])
			draw_put(y, 0, COLS, "");
}

/* After refresh, every pane's flush, on screen or not: one that went may have output to take back. */
static void flush_all(struct app *app)
{
	for (int i = 0; i < PANE_COUNT; i++)
		if (app->panes[i].ops->flush != NULL)
			app->panes[i].ops->flush(app, &app->panes[i]);
}

void draw_all(struct app *app)
{
	app->pending_rows = 0;
	layout_compute(app, status_rows(app, COLS));
	if (app->too_small) {
		erase();
		mvprintw(0, 0, "terminal too small: %dx%d, bagscope needs %dx%d", COLS, LINES, MIN_COLS, MIN_LINES);
		refresh();
		for (int i = 0; i < PANE_COUNT; i++)
			app->panes[i].r.h = 0;
		flush_all(app);
		return;
	}
	if (panes_modal(app) == NULL)
		draw_title(app);
	for (int i = 0; i < PANE_COUNT; i++)
		if (app->panes[i].r.h > 0)
			app->panes[i].ops->draw(app, &app->panes[i]);
	if (panes_modal(app) == NULL) {
		if (!app->zoom)
			clear_gaps(app);
		draw_status(app, app->status);
	}
	if (!app->prompt.kind)
		move(LINES - 1, COLS - 1);
	refresh();
	flush_all(app);
}
