/*
 * view-diag.c - the diagnostics pane (D): each status (diag.h) with its
 * level at the selected message's time and the worst it reached by then;
 * the selected status opens to its history, one line per level change
 * (time, level, message, values), the one in force marked '>'.
 *
 * State: the statuses (a bag_diag_t) read once, on the first D, by a
 * dupjob; read-only afterwards. The lines are rebuilt at each draw from
 * the selected status (sel) and the time; up/down move sel, the textview
 * scrolls to keep its line in sight.
 */
#define _GNU_SOURCE
#include "tui/draw.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/dupjob.h"
#include "tui/textview.h"

struct diag_pane {
	bool open;
	struct dupjob job;            /* builds diag */
	bag_diag_t *diag;
	size_t sel;                   /* the selected status */
	struct detail d;
};

static int run(struct dupjob *j, void *arg)
{
	struct diag_pane *s = arg;
	struct bag_diag_opts o = BAG_DIAG_OPTS_INIT;

	o.progress = dupjob_progress;
	o.progress_arg = j;
	return bag_diag_build(&s->diag, j->tl, &o);
}

/* The index of status i's transition in force at t, or -1 before its first report. */
static long transition_at(const bag_diag_t *d, size_t i, size_t n, int64_t t)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {   /* the first transition after t */
		size_t mid = (lo + hi) / 2;
		if (bag_diag_transition(d, i, mid)->time_ns <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

static const char *level_name(unsigned level)
{
	const char *n = bag_diag_level_name(level);
	return n ? n : "?";
}

/* Status i's line at t: level then, name, hardware id, message; the worst so far. */
static void status_line(struct diag_pane *s, size_t i, int64_t t, struct bag_text *line)
{
	struct bag_diag_status st;
	unsigned worst = 0;

	bag_diag_status(s->diag, i, &st);
	long k = transition_at(s->diag, i, st.ntransitions, t);
	line->len = 0;
	for (long j = 0; j <= k; j++) {
		unsigned l = bag_diag_transition(s->diag, i, (size_t)j)->level;
		worst = l > worst ? l : worst;
	}
	bag_text_printf(line, "%c %-5s ", i == s->sel ? '>' : ' ', k < 0 ? "-" : level_name(bag_diag_transition(s->diag, i, (size_t)k)->level));
	term_escape(line, st.name, strlen(st.name));
	if (st.hardware_id[0]) {
		bag_text_append(line, " [", 2);
		term_escape(line, st.hardware_id, strlen(st.hardware_id));
		bag_text_append(line, "]", 1);
	}
	if (k >= 0) {
		const char *m = bag_diag_transition(s->diag, i, (size_t)k)->message;
		bag_text_append(line, "  ", 2);
		term_escape(line, m, strlen(m));
		if (worst > bag_diag_transition(s->diag, i, (size_t)k)->level)
			bag_text_printf(line, "  (worst so far %s)", level_name(worst));
	}
}

/* The selected status's changes, under it. */
static void history_lines(struct app *app, struct diag_pane *s, int64_t t, struct bag_text *line)
{
	struct bag_diag_status st;
	char when[64];

	bag_diag_status(s->diag, s->sel, &st);
	long now = transition_at(s->diag, s->sel, st.ntransitions, t);
	for (size_t k = 0; k < st.ntransitions; k++) {
		const struct bag_diag_transition *x = bag_diag_transition(s->diag, s->sel, k);
		draw_fmt_time(app, x->time_ns, when, sizeof when);
		line->len = 0;
		bag_text_printf(line, "%c %s %-5s ", (long)k == now ? '>' : ' ', when, level_name(x->level));
		term_escape(line, x->message, strlen(x->message));
		for (size_t v = 0; v < x->nvalues; v++) {
			bag_text_append(line, v ? ", " : "  (", v ? 2 : 3);
			term_escape(line, x->values[v].key, strlen(x->values[v].key));
			bag_text_append(line, "=", 1);
			term_escape(line, x->values[v].value, strlen(x->values[v].value));
		}
		bag_text_append(line, x->nvalues ? ")" : "", x->nvalues ? 1 : 0);
		detail_add(&s->d, 1, line->p);
	}
}

/* The lines at t; the cursor on the selected status. */
static void build(struct app *app, struct diag_pane *s, int64_t t)
{
	size_t n = bag_diag_count(s->diag);
	struct bag_text line = { 0 };
	uint64_t top = s->d.top;

	detail_clear(&s->d);
	if (n == 0) {
		detail_add(&s->d, 0, "no DiagnosticArray or DiagnosticStatus messages");
		return;
	}
	s->sel = s->sel < n ? s->sel : n - 1;
	for (size_t i = 0; i < n; i++) {
		status_line(s, i, t, &line);
		if (i == s->sel)
			s->d.cursor = s->d.n;
		detail_add(&s->d, 0, line.p);
		if (i == s->sel)
			history_lines(app, s, t, &line);
	}
	s->d.top = top <= s->d.cursor ? top : s->d.cursor;
	bag_text_free(&line);
}

static void draw(struct app *app, struct pane *p)
{
	struct diag_pane *s = p->state;

	if (dupjob_ready(&s->job, "the diagnostics", bag_diag_error(s->diag), &s->d))
		build(app, s, model_time(&app->m));
	if (s->d.cursor >= s->d.top + (uint64_t)(p->r.h > 1 ? p->r.h - 1 : 1))
		s->d.top = s->d.cursor - (uint64_t)(p->r.h > 1 ? p->r.h - 2 : 0);
	textview_draw(app, p, &s->d, ": levels at the selected time   [D] close", false);
}

/* D opens and closes it, Esc closes it; up and down pick a status. */
static bool key(struct app *app, struct pane *p, enum action a, bool focused)
{
	struct diag_pane *s = p->state;

	if (a == ACTION_DIAG || (a == ACTION_CANCEL && s->open && focused)) {
		dupjob_pane_open(&s->job, app, &s->open, a == ACTION_DIAG && !s->open, PANE_DIAG, run, s, "diag");
		return true;
	}
	if (!focused || !s->open)
		return false;
	if (a == ACTION_UP || a == ACTION_DOWN) {
		if (a == ACTION_UP && s->sel > 0)
			s->sel--;
		else if (a == ACTION_DOWN && s->diag != NULL && s->sel + 1 < bag_diag_count(s->diag))
			s->sel++;
		return true;
	}
	return textview_key(&s->d, a, p->r.h);
}

static int height(const struct app *app, const struct pane *p, int avail)
{
	const struct diag_pane *s = p->state;

	(void)app;
	return s->open ? avail : 0;
}

static bool busy(const struct app *app, const struct pane *p)
{
	const struct diag_pane *s = p->state;

	(void)app;
	return s->open && dupjob_running(&s->job);
}

static int init(struct app *app, struct pane *p)
{
	(void)app;
	return (p->state = calloc(1, sizeof(struct diag_pane))) != NULL ? 0 : -1;
}

static void pane_free(struct app *app, struct pane *p)
{
	struct diag_pane *s = p->state;

	(void)app;
	if (s == NULL)
		return;
	dupjob_free(&s->job);
	bag_diag_free(s->diag);
	detail_clear(&s->d);
}

const struct pane_ops pane_diag = {
	.title = "Diagnostics",
	.help = "each diagnostic status's level at the selected time, the selected one's changes",
	.slot = SLOT_SIDE,
	.init = init,
	.draw = draw,
	.key = key,
	.height = height,
	.busy = busy,
	.free = pane_free,
};
