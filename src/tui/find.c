/*
 * find.c - search (/ n N) and filter (&) on the scan engine (scanjob.h):
 * starting them from the prompt, and taking their news in the loop
 * (progress, a search's match, a filter's rows as found). app->find holds
 * the last search (and its matcher for highlights) and the filter with the
 * text it was made from; m.filtered says whether the list shows its rows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/app.h"

/* Start a search for f->search from the selection in direction dir. */
void find_again(struct app *app, int dir)
{
	struct model *m = &app->m;
	struct find *f = &app->find;
	struct job_req r = { .kind = JOB_SEARCH, .dir = dir };
	char scope[256];
	bool *mask;

	if (f->search[0] == '\0') {
		snprintf(m->note, sizeof m->note, "no search yet: press /");
		return;
	}
	if (f->js.running && f->js.kind == JOB_FILTER) {
		snprintf(m->note, sizeof m->note, "the filter is still running: wait, or Esc to stop it");
		return;
	}
	if (f->hl_on)
		match_free(&f->hl);
	r.pattern = match_scope(f->search, scope, sizeof scope);
	r.scope = scope;
	f->hl_on = match_init(&f->hl, r.pattern) == 0;
	if (!f->hl_on) {
		snprintf(m->note, sizeof m->note, "bad regex '%s': %s", f->search, f->hl.err);
		return;
	}
	if (model_count(m) == 0) {
		snprintf(m->note, sizeof m->note, "no messages to search");
		return;
	}
	if ((mask = app_shown_mask(app)) == NULL)
		return;
	r.conn_mask = mask;
	r.row = model_view_row(m, m->row);
	r.time_ns = model_time(m);
	f->dir = dir;
	r.filter = m->filtered ? f->filter : NULL;
	job_start(f->job, &r);
	f->js.running = true;
	f->js.kind = JOB_SEARCH;
	f->t0 = app_now_ns();
	f->cpu0 = app_cpu_ns();
	free(mask);
	m->note[0] = '\0';
}

void find_search(struct app *app, const char *text)
{
	if (text[0] != '\0')
		snprintf(app->find.search, sizeof app->find.search, "%s", text);
	find_again(app, 1);
}

/* The filter goes: the list shows every row again. */
static void filter_off(struct app *app)
{
	model_filter_off(&app->m);
	bag_expr_free(app->find.filter);
	app->find.filter = NULL;
	app->find.filter_text[0] = '\0';
	app->find.stopped = -1;
	snprintf(app->m.note, sizeof app->m.note, "filter off");
}

/* The distinct types of the shown connections, "a, b and 3 more", for a refused filter's note. */
static void shown_types(struct app *app, const bool *mask, char *out, size_t cap)
{
	size_t n = bag_timeline_conn_count(app->cb.tl), listed = 0, more = 0, len = 0;
	const char *seen[6];

	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const char *type = bag_timeline_conn(app->cb.tl, i, NULL)->type;
		bool dup = false;
		for (size_t k = 0; k < listed && !dup; k++)
			dup = strcmp(seen[k], type) == 0;
		for (size_t k = 0; k < i && !dup && listed == 6; k++)
			dup = mask[k] && strcmp(bag_timeline_conn(app->cb.tl, k, NULL)->type, type) == 0;
		if (!mask[i] || dup)
			continue;
		if (listed == 6) {
			more++;
			continue;
		}
		seen[listed++] = type;
		len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%s%s", listed > 1 ? ", " : "", type);
	}
	if (more > 0 && len < cap)
		snprintf(out + len, cap - len, " and %zu more", more);
}

/*
 * A refused filter's note: the reason, then the expression with a caret
 * under the column named (the status line keeps the caret under it however
 * narrow the screen: screen.c's caret rows).
 */
static void filter_refused(struct app *app, const char *text, const bag_expr_t *e, const char *types)
{
	size_t col = e ? bag_expr_error(e)->offset : 0, len = strlen(text);

	col = col > len ? len : col;
	snprintf(app->m.note, sizeof app->m.note, "filter kept as it was; column %zu:\n%.300s\n"
	         "%*s^ %s%s%s%s", col + 1, text, (int)(col > 300 ? 300 : col), "",
	         e ? bag_expr_error(e)->message : "out of memory", types ? " (types tried: " : "", types ? types : "",
	         types ? ")" : "");
}

/*
 * Whether e fits the shown connections (bag_expr_check over each one's
 * program, as the scan will compile it); if not, the note says why and
 * which types were tried.
 */
static bool filter_fits(struct app *app, const char *text, bag_expr_t *e, const bool *mask)
{
	size_t n = bag_timeline_conn_count(app->cb.tl), np = 0;
	bag_expr_prog_t **progs = calloc(n + 1, sizeof *progs);
	bool ok = progs != NULL;
	char types[512];

	for (size_t i = 0; ok && i < n; i++)
		if (mask[i])
			ok = bag_expr_compile(&progs[np++], e, bag_timeline_conn(app->cb.tl, i, NULL), app_def(app, i)) == BAG_OK;
	if (ok && bag_expr_check(e, progs, np) != BAG_OK) {
		shown_types(app, mask, types, sizeof types);
		filter_refused(app, text, e, types);
		ok = false;
	}
	for (size_t i = 0; progs != NULL && i < np; i++)
		bag_expr_prog_free(progs[i]);
	free(progs);
	return ok;
}

/* Start (or, with empty text, end) the filter; a refused expression leaves the active one as it was. */
void find_filter(struct app *app, const char *text)
{
	struct model *m = &app->m;
	struct find *f = &app->find;
	struct job_req r = { .kind = JOB_FILTER };
	bag_expr_t *e = NULL;
	bool *mask;

	if (text[strspn(text, " ")] == '\0') {
		job_wait(f->job);
		f->js.running = false;
		filter_off(app);
		return;
	}
	if (bag_expr_parse(&e, text, strlen(text)) != BAG_OK) {
		filter_refused(app, text, e, NULL);
		bag_expr_free(e);
		return;
	}
	if ((mask = app_shown_mask(app)) == NULL || !filter_fits(app, text, e, mask)) {
		free(mask);
		bag_expr_free(e);
		return;
	}
	job_wait(f->job);
	f->js.running = false;
	f->stopped = -1;
	f->anchor = m->filtered ? model_view_row(m, m->row) : m->row;
	if (f->anchor == UINT64_MAX)
		f->anchor = 0;
	f->follow = true;
	bag_expr_free(f->filter);
	f->filter = e;
	snprintf(f->filter_text, sizeof f->filter_text, "%s", text);
	m->filtered = true;
	m->filter_stale = false;
	m->nfrows = 0;
	model_goto(m, 0);
	r.conn_mask = mask;
	r.filter = e;
	job_start(f->job, &r);
	f->js.running = true;
	f->js.kind = JOB_FILTER;
	f->t0 = app_now_ns();
	free(mask);
	m->note[0] = '\0';
}

/* The topics shown changed under a filter: run it again. */
void find_rerun_stale(struct app *app)
{
	if (app->m.filtered && app->m.filter_stale && app->find.filter_text[0]) {
		char text[256];
		snprintf(text, sizeof text, "%s", app->find.filter_text);
		find_filter(app, text);
	}
}

/* BAGSCOPE_TIMING: a search's end, its time and the CPU time the process spent meanwhile (ms). */
static void timing_search(struct app *app, const char *what)
{
	if (app->timing == NULL)
		return;
	fprintf(app->timing, "%s %.3f cpu %.3f\n", what, (double)(app_now_ns() - app->find.t0) / 1e6,
	        (double)(app_cpu_ns() - app->find.cpu0) / 1e6);
	fflush(app->timing);
}

/* A search that has ended: go to its match or say why not. */
static void search_done(struct app *app, uint64_t before_row)
{
	struct model *m = &app->m;
	struct find *f = &app->find;

	if (f->js.rc == BAG_ECANCELED)
		snprintf(m->note, sizeof m->note, "search cancelled");
	else if (f->js.rc != BAG_OK)
		snprintf(m->note, sizeof m->note, "search: %s", f->js.err);
	else if (!f->js.found) {
		timing_search(app, "search-missed");
		snprintf(m->note, sizeof m->note, "'%s' not found", f->search);
	} else {
		model_goto_view_row(m, f->js.found_row);
		f->to_match = true;
		timing_search(app, "search-found");
		snprintf(m->note, sizeof m->note, "found '%s' at row %llu%s", f->search, (unsigned long long)m->row + 1,
		         !f->js.wrapped ? "" : f->js.found_row == before_row ? " (the only match)" :
		         f->dir > 0 ? " (past the end, from the start)" : " (past the start, from the end)");
	}
}

/* A filter that has ended early: stopped, or failed. */
static void filter_done(struct app *app)
{
	struct model *m = &app->m;
	struct find *f = &app->find;

	if (f->js.rc == BAG_ECANCELED) {
		f->stopped = f->js.total ? (int)(f->js.done * 100 / f->js.total) : 0;
		snprintf(m->note, sizeof m->note, "filter stopped at %d%%: %zu match%s so far", f->stopped, m->nfrows,
		         m->nfrows == 1 ? "" : "es");
	}
	else if (f->js.rc != BAG_OK) {
		snprintf(m->note, sizeof m->note, "filter: %s", f->js.err);
		model_filter_off(m);
	}
}

/* News from the job: rates, progress, a search's match, a filter's rows. */
void find_take(struct app *app)
{
	struct model *m = &app->m;
	struct find *f = &app->find;
	double *rates = calloc(m->ntopics + 1, sizeof *rates);
	uint64_t *counts = calloc(bag_timeline_conn_count(m->tl) + 1, sizeof *counts);

	if (rates != NULL && counts != NULL && job_take_rates(f->job, rates, counts)) {
		model_set_counts(m, counts);
		model_set_rates(m, rates);
	}
	free(rates);
	free(counts);
	bool was = f->js.running;
	uint64_t before_row = model_view_row(m, m->row);

	if (!job_poll(f->job, &f->js, m->filtered ? &m->frows : NULL, &m->nfrows, &m->capfrows) && !was)
		return;
	if (f->js.kind == JOB_FILTER && m->filtered) {
		if (f->follow)
			model_goto_view_row(m, f->anchor);
		else
			model_move(m, 0);
	}
	if (f->js.running || !was)
		return;
	if (f->js.kind == JOB_SEARCH)
		search_done(app, before_row);
	else if (f->js.kind == JOB_FILTER)
		filter_done(app);
}

void find_free(struct app *app)
{
	job_close(app->find.job);
	app->find.job = NULL;
	bag_expr_free(app->find.filter);
	app->find.filter = NULL;
	if (app->find.hl_on)
		match_free(&app->find.hl);
	app->find.hl_on = false;
}
