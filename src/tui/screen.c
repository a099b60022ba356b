/*
 * screen.c - drawing the screen: the layout, the title row, every pane on
 * screen through its ops, the status line (or the prompt), then the panes'
 * flush ops after curses' refresh. Only rows in sight are looked at.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
			snprintf(extra, cap, "filtering: %zu matches, %d%%%s  (Esc stops)", app->m.nfrows, pct, eta);
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

static void draw_status(struct app *app, struct rect r)
{
	struct model *m = &app->m;
	char line[2048], when[64] = "", sizes[160], extra[256];
	uint64_t done;
	size_t pending;
	int64_t t = model_time(m);

	if (app->prompt.kind) {
		draw_prompt(app, r);
		return;
	}
	if (model_count(m) > 0 && bag_relative_times(app->cb.bags[0]))
		/* an old recorder's durations since it started (bag_relative_times), not dates */
		snprintf(when, sizeof when, "+%lld.%03llds since the recording started", (long long)(t / 1000000000),
		         (long long)(t % 1000000000 / 1000000));
	else if (model_count(m) > 0)
		draw_fmt_date(app, t, when, sizeof when);
	worker_stats(app->worker, &done, &pending);
	snprintf(sizes, sizeof sizes, pending ? "decoding (%zu queued)" : "ready", pending);
	if (app->bad.msgs > 0)
		snprintf(sizes, sizeof sizes, "%llu messages cannot be read (%zu chunks; L: log)",
		         (unsigned long long)app->bad.msgs, app->bad.nchunks);
	status_fetched(app, sizes, sizeof sizes);
	status_extra(app, t, extra, sizeof extra);
	/* a note (an error, a search's progress) comes before the less urgent facts */
	int n = snprintf(line, sizeof line, " %s%s  row %llu/%llu%s  ", app_base_name(bag_path(app->cb.bags[0])),
	                 app->cb.nbags > 1 ? " +more" : "", (unsigned long long)(model_count(m) ? m->row + 1 : 0),
	                 (unsigned long long)model_count(m),
	                 !m->filtered ? "" : app->find.stopped >= 0 ? " filtered, partial" : " filtered");
	char note[1100];
	detail_problem_first(m->note, note, sizeof note);
	if (app->quit_asked && app_export_running(app))
		snprintf(note, sizeof note, "a write is running: q again cancels it and quits, any other key goes on");
	if (extra[0] && n < (int)sizeof line)
		n += snprintf(line + n, sizeof line - (size_t)n, "| %s  ", extra);
	if (app->bad.msgs > 0 && n < (int)sizeof line)
		n += snprintf(line + n, sizeof line - (size_t)n, "| %s  ", sizes);
	if (note[0] && n < (int)sizeof line)
		n += snprintf(line + n, sizeof line - (size_t)n, "| %s  ", note);
	if (n < (int)sizeof line)
		snprintf(line + n, sizeof line - (size_t)n, "%s  %s  ? help", when, app->bad.msgs > 0 ? "" : sizes);
	bool alarm = note[0] || app->bad.msgs > 0;
	draw_colour_on(app, alarm ? C_ERROR : C_BAR, 0);
	draw_put(r.y, r.x, r.w, line);
	draw_colour_off(app, alarm ? C_ERROR : C_BAR, 0);
}

static void draw_title(struct app *app)
{
	char title[512];

	if (bag_timeline_count(app->cb.tl) == 0)
		snprintf(title, sizeof title, " bagscope  %s%s  no messages", bag_path(app->cb.bags[0]),
		         app->cb.nbags > 1 ? " (+ more bags)" : "");
	else
		snprintf(title, sizeof title, " bagscope  %s%s  %llu messages  %.1f s", bag_path(app->cb.bags[0]),
		         app->cb.nbags > 1 ? " (+ more bags)" : "", (unsigned long long)bag_timeline_count(app->cb.tl),
		         (double)(app->m.end_ns - app->m.start_ns) / 1e9);
	draw_colour_on(app, C_TITLE, A_BOLD);
	draw_put(0, 0, COLS, title);
	draw_colour_off(app, C_TITLE, A_BOLD);
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
	layout_compute(app);
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
