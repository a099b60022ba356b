/*
 * view-timeline.c - the timeline at the bottom, rqt_bag's core view in a
 * terminal: a label column (names cut by tlrows.h), then strips over the
 * bag's span, one column a slice of time, the cursor time a reversed
 * column on every strip:
 *   - the shown topics' density summed ("timeline"), with ticks where a
 *     /rosout warning or error, or a diagnostic turning WARN or worse,
 *     falls (yellow / red, bold without colour; their times come from a
 *     dupjob started with the browser, so they appear when it is done);
 *   - when there are any, the events: marks, the search's hits so far,
 *     unreadable chunks (the count in app->bad, filled early by
 *     chunkcheck.c), a glyph each, under a legend;
 *   - while a filter is on, the density of its matching rows;
 *   - one strip per shown topic, in display order, scrolled; when the
 *     selected message's topic is out of the window it is pinned on the
 *     last row, so it is always in sight; the columns of its unreadable
 *     chunks hold the unreadable glyph (X without UTF-8), in red.
 * Focused (Tab), j/k and the pages move a topic cursor, h/l the time
 * cursor (the list follows), Enter selects the cursor topic's message
 * nearest the cursor time; it grows while it has the focus. Densities come
 * from the index (model_density*) and are kept until the view, the width
 * or the filter's rows change. Invariant: cur_topic indexes m->topics;
 * row_topic[] maps the rows last drawn to topics (or -1).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/draw.h"
#include "tui/dupjob.h"
#include "tui/tlrows.h"

#define PAIR_TICK_WARN 52
#define MAX_ROWS 512

enum { EV_MARK = 1, EV_HIT = 2, EV_BAD = 4 };
#define TICK_BAD 3
#define BAD_GLYPH "\xE2\x9C\x96"

struct timeline_pane {
	double *density;              /* bins, for density_view and density_w */
	const bag_view_t *density_view;
	int density_w;
	double *topic_density;        /* per-topic strips: ntopics x topic_density_w bins */
	int topic_density_w;
	double *fbins;                /* the filter's rows per column, for fbins_n rows, fbins_w, fbins_view */
	size_t fbins_n;
	int fbins_w;
	const bag_view_t *fbins_view;
	struct dupjob job;            /* finds the ticks */
	struct tick *ticks;           /* record time, level 1 warn / 2 error */
	size_t nticks, tickcap;
	uint8_t *cells;               /* per column of the first row: the worst tick there */
	int cells_w;
	int64_t *hits;                /* times of the search's matches found, for hit_search */
	size_t nhits, hitcap;
	char hit_search[256];
	uint64_t hit_row;             /* the last match taken (UINT64_MAX: none) */
	size_t cur_topic;             /* the topic cursor */
	size_t top;                   /* first shown topic in the window */
	int ntopic_rows;              /* topic rows the pane has */
	int window;                   /* of them, the window's (top on), the rest pinned or blank */
	size_t pinned;                /* the pinned row's place among the shown topics (1-based), or 0 */
	int row_topic[MAX_ROWS];      /* per row of the pane: its topic, or -1 */
	int label_w;
	bool pair;
};

/* A warning (level 1) or an error (2) at a record time. */
struct tick {
	int64_t t;
	uint8_t level;
};

/* On the job's thread: append a tick. */
static int add_tick(struct timeline_pane *s, int64_t t, uint8_t level)
{
	if (s->nticks == s->tickcap) {
		size_t cap = s->tickcap ? s->tickcap * 2 : 256;
		struct tick *n = realloc(s->ticks, cap * sizeof *n);
		if (n == NULL)
			return BAG_ENOMEM;
		s->ticks = n;
		s->tickcap = cap;
	}
	s->ticks[s->nticks++] = (struct tick){ t, level };
	return 0;
}

static int log_tick(void *arg, const struct bag_log_entry *e)
{
	return add_tick(arg, e->time_ns, e->level >= BAG_LOG_ERROR ? 2 : 1);
}

/* On the job's thread: warnings and errors from /rosout, then diagnostics' changes to WARN and worse. */
static int find_ticks(struct dupjob *j, void *arg)
{
	struct timeline_pane *s = arg;
	struct bag_log_opts lo = BAG_LOG_OPTS_INIT;
	struct bag_diag_opts dop = BAG_DIAG_OPTS_INIT;
	bag_diag_t *d = NULL;
	int rc;

	lo.min_level = BAG_LOG_WARN;
	lo.progress = dop.progress = dupjob_progress;
	lo.progress_arg = dop.progress_arg = j;
	if ((rc = bag_log_scan(j->tl, &lo, log_tick, s, NULL, NULL)) == BAG_OK &&
	    (rc = bag_diag_build(&d, j->tl, &dop)) == BAG_OK)
		for (size_t i = 0; rc == BAG_OK && i < bag_diag_count(d); i++) {
			struct bag_diag_status st;
			bag_diag_status(d, i, &st);
			for (size_t k = 0; rc == BAG_OK && k < st.ntransitions; k++) {
				const struct bag_diag_transition *x = bag_diag_transition(d, i, k);
				if (x->level == BAG_DIAG_WARN || x->level == BAG_DIAG_ERROR)
					rc = add_tick(s, x->time_ns, x->level == BAG_DIAG_ERROR ? 2 : 1);
			}
		}
	bag_diag_free(d);
	return rc;
}

/* The worst tick per column of w over [start, end], once the job is done. */
static void tick_cells(struct app *app, struct timeline_pane *s, int w)
{
	const struct model *m = &app->m;

	if (!dupjob_finished(&s->job) || s->job.rc != BAG_OK || s->cells_w == w)
		return;
	free(s->cells);
	if ((s->cells = calloc((size_t)w, 1)) == NULL)
		return;
	s->cells_w = w;
	for (size_t k = 0; k < s->nticks; k++) {
		int c = tl_col(s->ticks[k].t, m->start_ns, m->end_ns, w);
		s->cells[c] = s->ticks[k].level > s->cells[c] ? s->ticks[k].level : s->cells[c];
	}
}

/* A density strip; ticks (or NULL) per column: 1 a warning, 2 an error (coloured), TICK_BAD unreadable (its glyph). */
static void draw_strip(struct app *app, int y, int x, const double *bins, int w, int cur, const uint8_t *ticks)
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
		int pair = ticks == NULL || ticks[i] == 0 ? 0 : ticks[i] >= 2 ? C_ERROR : PAIR_TICK_WARN;
		if (i == cur)
			attron(A_REVERSE);
		if (pair)
			draw_colour_on(app, pair, A_BOLD);
		level = pair && level == 0 ? 1 : level;
		if (ticks != NULL && ticks[i] == TICK_BAD)
			app->utf8 ? addstr(BAD_GLYPH) : addch('X');
		else if (app->utf8)
			addstr(blocks[level]);
		else
			addch((chtype)ascii[level]);
		if (pair)
			draw_colour_off(app, pair, A_BOLD);
		if (i == cur)
			attroff(A_REVERSE);
	}
}

/* The summed density and the per-topic strips, computed again when the view or the width changed. */
static bool densities(struct app *app, struct timeline_pane *s, int w)
{
	struct model *m = &app->m;

	if (s->density_view != m->view || s->density_w != w) {
		free(s->density);
		s->density_w = 0;
		if ((s->density = calloc((size_t)w, sizeof *s->density)) == NULL)
			return false;
		model_density(m, s->density, w);
		s->density_view = m->view;
		s->density_w = w;
	}
	if (s->topic_density_w != w) {
		free(s->topic_density);
		s->topic_density = calloc(m->ntopics * (size_t)w + 1, sizeof *s->topic_density);
		s->topic_density_w = s->topic_density ? w : 0;
		if (s->topic_density != NULL)
			model_density_topics(m, s->topic_density, w);
	}
	return s->topic_density != NULL;
}

/*
 * The filter's rows per column: each column's first view row, the rows
 * counted between. With fewer chunks than columns the first rows come from
 * seeks (exact, as the summed strip is); with more, from the summed
 * strip's counts added up (from the chunk infos: no index is read).
 */
static void filter_bins(struct app *app, struct timeline_pane *s, int w)
{
	struct model *m = &app->m;
	uint64_t *edges;
	size_t chunks = 0;

	if (s->fbins_w == w && s->fbins_n == m->nfrows && s->fbins_view == m->view)
		return;
	free(s->fbins);
	s->fbins_w = 0;
	if ((s->fbins = calloc((size_t)w, sizeof *s->fbins)) == NULL ||
	    (edges = calloc((size_t)w + 1, sizeof *edges)) == NULL)
		return;
	double span = (double)(m->end_ns - m->start_ns), sum = 0;
	for (size_t b = 0; b < app->cb.nbags; b++)
		chunks += bag_chunk_count(app->cb.bags[b]);
	for (int c = 1; c < w; c++) {
		sum += s->density[c - 1];
		edges[c] = (uint64_t)(sum + 0.5);
		int64_t t = m->start_ns + (int64_t)(span * c / w);
		uint64_t exact;
		size_t g;
		/* exact from the index; a URL bag's is not fetched for it (the estimate stays) */
		int rc = chunks >= (size_t)w ? 1 : m->ready != NULL ? bag_view_seek_loaded(m->view, t, &exact, &g)
		                                                   : bag_view_seek(m->view, t, &exact);
		if (rc == BAG_OK)
			edges[c] = exact;
		else if (rc < 0 || edges[c] < edges[c - 1])
			edges[c] = edges[c - 1];
	}
	edges[w] = UINT64_MAX;
	tl_row_bins(m->frows, m->nfrows, edges, w, s->fbins);
	free(edges);
	s->fbins_w = w;
	s->fbins_n = m->nfrows;
	s->fbins_view = m->view;
}

/* The search's matches: a new pattern starts a new list; each match found (n, N) is added once. */
static void take_hits(struct app *app, struct timeline_pane *s)
{
	const struct find *f = &app->find;
	struct bag_message msg;

	if (strcmp(s->hit_search, f->search) != 0) {
		snprintf(s->hit_search, sizeof s->hit_search, "%s", f->search);
		s->nhits = 0;
	}
	if (f->js.kind != JOB_SEARCH || f->js.running || !f->js.found || f->js.found_row == s->hit_row)
		return;
	s->hit_row = f->js.found_row;
	if (bag_view_entry(app->m.view, f->js.found_row, &msg) != BAG_OK)
		return;
	if (s->nhits == s->hitcap) {
		size_t cap = s->hitcap * 2 + 16;
		int64_t *n = realloc(s->hits, cap * sizeof *n);
		if (n == NULL)
			return;
		s->hits = n;
		s->hitcap = cap;
	}
	s->hits[s->nhits++] = msg.time_ns;
}

/* Per column of w: the marks, the hits and the unreadable chunks there (EV_* bits). */
static void events(struct app *app, struct timeline_pane *s, uint8_t *ev, int w)
{
	const struct model *m = &app->m;

	memset(ev, 0, (size_t)w);
	for (size_t i = 0; i < app->marks.n; i++)
		ev[tl_col((int64_t)app->marks.v[2 * i], m->start_ns, m->end_ns, w)] |= EV_MARK;
	for (size_t i = 0; i < s->nhits; i++)
		ev[tl_col(s->hits[i], m->start_ns, m->end_ns, w)] |= EV_HIT;
	for (size_t b = 0; app->bad.nchunks > 0 && b < app->cb.nbags; b++)
		for (size_t ch = 0; ch < bag_chunk_count(app->cb.bags[b]); ch++) {
			int64_t t0, t1;
			if (!(app->bad.chunks[b][ch / 8] & (1u << (ch % 8))))
				continue;
			bag_chunk_span(app->cb.bags[b], ch, &t0, &t1);
			for (int c = tl_col(t0, m->start_ns, m->end_ns, w); c <= tl_col(t1, m->start_ns, m->end_ns, w); c++)
				ev[c] |= EV_BAD;
		}
}

/* The events strip: an unreadable chunk over a mark over a hit, each its glyph (and colour). */
static void draw_events(struct app *app, int y, int x, const uint8_t *ev, int w, int cur)
{
	static const char *const glyphs[] = { " ", "\xE2\x96\xBC", "\xE2\x97\x86", BAD_GLYPH };
	static const char ascii[] = " v*X";
	static const int pairs[] = { 0, C_FOCUS, PAIR_TICK_WARN, C_ERROR };

	move(y, x);
	for (int i = 0; i < w; i++) {
		int k = ev[i] & EV_BAD ? 3 : ev[i] & EV_MARK ? 1 : ev[i] & EV_HIT ? 2 : 0;
		if (i == cur)
			attron(A_REVERSE);
		if (k)
			draw_colour_on(app, pairs[k], A_BOLD);
		if (app->utf8)
			addstr(glyphs[k]);
		else
			addch((chtype)ascii[k]);
		if (k)
			draw_colour_off(app, pairs[k], A_BOLD);
		if (i == cur)
			attroff(A_REVERSE);
	}
}

/* The shown topics in display order, into out; returns how many. */
static size_t shown_topics(const struct model *m, size_t *out)
{
	size_t n = 0;

	for (size_t i = 0; i < m->ntopics; i++)
		if (m->topics[m->order[i]].shown)
			out[n++] = m->order[i];
	return n;
}

/* The selected message's topic, or -1. */
static long selected_topic(struct model *m)
{
	struct bag_message msg;

	if (model_count(m) == 0 || model_entry(m, m->row, &msg) != BAG_OK)
		return -1;
	return (long)m->topic_of[msg.conn_index];
}

/* Where topic t is among shown[0..n), or -1. */
static long index_of(const size_t *shown, size_t n, long t)
{
	for (size_t i = 0; t >= 0 && i < n; i++)
		if ((long)shown[i] == t)
			return (long)i;
	return -1;
}

/* A label: the text in the label column, dim (or the focus colour, or reversed for the cursor). */
static void draw_label(struct app *app, int y, int x, int w, const char *text, int pair, attr_t extra)
{
	draw_colour_on(app, pair, extra);
	draw_put(y, x, w, text);
	draw_colour_off(app, pair, extra);
}

/* Per column of w: TICK_BAD where topic t has messages in a chunk found unreadable; false when it has none. */
static bool topic_bad(struct app *app, size_t t, uint8_t *bad, int w)
{
	const struct model *m = &app->m;
	const struct topic_row *r = &m->topics[t];
	bool any = false;

	memset(bad, 0, (size_t)w);
	for (size_t k = 0; app->bad.nchunks > 0 && k < r->nconns; k++) {
		size_t b;
		const struct bag_connection *c = bag_timeline_conn(m->tl, r->conns[k], &b);
		for (size_t ch = 0; b < app->cb.nbags && ch < bag_chunk_count(app->cb.bags[b]); ch++) {
			int64_t t0, t1;
			if (!(app->bad.chunks[b][ch / 8] & (1u << (ch % 8))) ||
			    bag_chunk_conn_messages(app->cb.bags[b], ch, c->index) == 0)
				continue;
			bag_chunk_span(app->cb.bags[b], ch, &t0, &t1);
			for (int col = tl_col(t0, m->start_ns, m->end_ns, w); col <= tl_col(t1, m->start_ns, m->end_ns, w); col++)
				bad[col] = TICK_BAD;
			any = true;
		}
	}
	return any;
}

/* One topic's row: "▶" for the selected message's topic, its name cut to the label, its strip, its damage. */
static void draw_topic(struct app *app, struct timeline_pane *s, int y, size_t t, bool sel, int w, int cur)
{
	struct model *m = &app->m;
	struct term_scratch sc = { 0 };
	char name[256], label[300];
	bool focused = m->focus == PANE_TIMELINE && t == s->cur_topic;
	uint8_t *bad = malloc((size_t)w);

	tl_cut_name(term_str(&sc, m->topics[t].topic), s->label_w - 2, app->utf8, name, sizeof name);
	term_scratch_free(&sc);
	snprintf(label, sizeof label, "%s%s", sel ? (app->utf8 ? "\xE2\x96\xB6" : ">") : " ", name);
	draw_label(app, y, 0, s->label_w, label, focused ? C_FOCUS : C_DIM, focused || sel ? A_BOLD : 0);
	draw_strip(app, y, s->label_w, s->topic_density + t * (size_t)w, w, cur,
	           bad != NULL && topic_bad(app, t, bad, w) ? bad : NULL);
	free(bad);
}

/* The topic strips from row first of the pane on: the window at top, the selected topic pinned. */
static void draw_topics(struct app *app, struct pane *p, int first, int w, int cur)
{
	struct timeline_pane *s = p->state;
	struct model *m = &app->m;
	size_t *shown = malloc((m->ntopics + 1) * sizeof *shown), rows[MAX_ROWS];
	int n = s->ntopic_rows;

	if (shown == NULL)
		return;
	size_t nshown = shown_topics(m, shown);
	long sel = index_of(shown, nshown, selected_topic(m)), c = index_of(shown, nshown, (long)s->cur_topic);
	if (c >= 0)
		s->top = tl_scroll(s->top, (size_t)c, nshown, n, sel);
	int k = tl_rows(nshown, s->top, n, sel, rows);
	for (int i = 0; i < n; i++) {
		if (i >= k) {
			draw_put(p->r.y + first + i, 0, p->r.w, "");
			continue;
		}
		draw_topic(app, s, p->r.y + first + i, shown[rows[i]], (long)rows[i] == sel, w, cur);
		if (first + i < MAX_ROWS)
			s->row_topic[first + i] = (int)shown[rows[i]];
	}
	/* the window's own rows and the pinned one, for the first row's "3-5, 9/12" */
	s->window = 0;
	s->pinned = 0;
	for (int i = 0; i < k; i++)
		if (rows[i] >= s->top && rows[i] < s->top + (size_t)k)
			s->window++;
		else
			s->pinned = rows[i] + 1;
	free(shown);
}

/*
 * The label of the first row: the pane's name and, when the topics do not all
 * fit, which are in sight: "3-5/12", or "3-5, 9/12" with the selected topic's
 * row pinned under them ("3, 9/12" for a window of one).
 */
static void first_label(struct app *app, struct pane *p, size_t nshown)
{
	struct timeline_pane *s = p->state;
	char label[80], range[48], pin[24] = "";
	bool focus = app->m.focus == PANE_TIMELINE;

	if (nshown > (size_t)s->window && s->window > 0) {
		if (s->window == 1)
			snprintf(range, sizeof range, "%zu", s->top + 1);
		else
			snprintf(range, sizeof range, "%zu-%zu", s->top + 1, s->top + (size_t)s->window);
		if (s->pinned > 0)
			snprintf(pin, sizeof pin, ", %zu", s->pinned);
		snprintf(label, sizeof label, " %s %s%s/%zu", p->ops->title, range, pin, nshown);
	} else
		snprintf(label, sizeof label, " %s", p->ops->title);
	draw_label(app, p->r.y, 0, s->label_w, label, focus ? C_FOCUS : C_DIM, focus ? A_BOLD : 0);
}

/* The label column's width: the longest shown name, within 30 % of the screen (17, the legend, to 40). */
static int label_width(const struct model *m, int cols)
{
	int most = 17, cap = cols * 3 / 10 < 17 ? 17 : cols * 3 / 10 > 40 ? 40 : cols * 3 / 10;

	for (size_t i = 0; i < m->ntopics; i++)
		if (m->topics[i].shown && tl_name_width(m->topics[i].topic) + 2 > most)
			most = tl_name_width(m->topics[i].topic) + 2;
	return most < cap ? most : cap;
}

/* Rows above the topics': the summed strip, the events when there are any, the filter's while one is on. */
static int rows_above(const struct app *app, const struct timeline_pane *s)
{
	return 1 + (app->marks.n > 0 || s->nhits > 0 || app->bad.nchunks > 0) + app->m.filtered;
}

/* The events row: its legend and glyphs. */
static void draw_events_row(struct app *app, struct timeline_pane *s, int y, int w, int cur)
{
	uint8_t *ev = malloc((size_t)w);

	if (ev == NULL)
		return;
	events(app, s, ev, w);
	draw_label(app, y, 0, s->label_w, app->utf8 ? " \xE2\x96\xBCmark \xE2\x97\x86hit \xE2\x9C\x96" "bad" :
	           " vmark *hit Xbad", C_DIM, 0);
	draw_events(app, y, s->label_w, ev, w, cur);
	free(ev);
}

static void draw(struct app *app, struct pane *p)
{
	struct model *m = &app->m;
	struct timeline_pane *s = p->state;
	size_t nshown = 0;
	int row = 1;

	s->label_w = label_width(m, p->r.w);
	int w = p->r.w - s->label_w, cur = tl_col(model_time(m), m->start_ns, m->end_ns, w);
	if (w <= 0 || !densities(app, s, w))
		return;
	for (int i = 0; i < MAX_ROWS; i++)
		s->row_topic[i] = -1;
	for (size_t i = 0; i < m->ntopics; i++)
		nshown += m->topics[i].shown;
	if (app->colour && !s->pair) {
		init_pair(PAIR_TICK_WARN, COLOR_YELLOW, -1);
		s->pair = true;
	}
	tick_cells(app, s, w);
	take_hits(app, s);
	s->ntopic_rows = p->r.h - rows_above(app, s);
	draw_strip(app, p->r.y, s->label_w, s->density, w, cur, s->cells_w == w ? s->cells : NULL);
	if (rows_above(app, s) - m->filtered > 1 && p->r.h > row)
		draw_events_row(app, s, p->r.y + row++, w, cur);
	if (m->filtered && p->r.h > row) {
		char label[64];
		filter_bins(app, s, w);
		snprintf(label, sizeof label, " filter %zu", m->nfrows);
		draw_label(app, p->r.y + row, 0, s->label_w, label, C_DIM, 0);
		if (s->fbins_w == w)
			draw_strip(app, p->r.y + row, s->label_w, s->fbins, w, cur, NULL);
		row++;
	}
	s->window = 0;
	if (s->ntopic_rows > 0)
		draw_topics(app, p, row, w, cur);
	first_label(app, p, nshown);
}

/* The rows above the topics', and topic rows: a tenth of the screen (2 at least), a third while focused. */
static int height(const struct app *app, const struct pane *p, int avail)
{
	const struct model *m = &app->m;
	int nshown = 0, most = m->focus == PANE_TIMELINE ? LINES / 3 : LINES / 10;

	(void)avail;
	for (size_t i = 0; i < m->ntopics; i++)
		nshown += m->topics[i].shown;
	most = most < 2 ? 2 : most;
	return rows_above(app, p->state) + (nshown < most ? nshown : most);
}

/*
 * Select topic t's message nearest the selected time (the later on a tie):
 * its own view seeked there, then that message found in the list.
 */
static void jump_topic(struct app *app, size_t t)
{
	struct model *m = &app->m;
	const char *topic = m->topics[t].topic;
	struct bag_query q;
	bag_view_t *one = NULL;
	struct bag_message a, b;
	uint64_t row;
	int64_t now = model_time(m);

	bag_query_init(&q);
	q.topics = &topic;
	q.ntopics = 1;
	size_t g;
	int rc = bag_view_open(&one, m->tl, &q) == BAG_OK && bag_view_count(one) > 0 ?
	         model_seek_ready(m, one, now, &row, &g) : -1;
	if (rc == 1)
		model_row_ready(m, one, row);   /* its index is being fetched: the note says so */
	if (rc == BAG_OK && (row == 0 || model_row_ready(m, one, row - 1)) &&
	    (row == bag_view_count(one) || model_row_ready(m, one, row))) {
		bool after = row < bag_view_count(one) && bag_view_entry(one, row, &a) == BAG_OK;
		bool before = row > 0 && bag_view_entry(one, row - 1, &b) == BAG_OK;
		if (after && before && now - b.time_ns < a.time_ns - now)
			after = false;
		if (after || before)
			model_goto_message(m, after ? &a : &b);
		if (model_count(m) > 0 && selected_topic(m) != (long)t)
			snprintf(m->note, sizeof m->note, "%s: its nearest message is not in the list (the filter)", topic);
	}
	bag_view_free(one);
}

/* h/l: the time cursor a column back or on; the list selects the first message there (or before it, back). */
static void step_column(struct app *app, struct pane *p, int dir)
{
	struct model *m = &app->m;
	struct timeline_pane *s = p->state;
	int w = p->r.w - s->label_w;
	double span = (double)(m->end_ns - m->start_ns);
	uint64_t row = m->row;

	if (w <= 0)
		return;
	/* back: the column before, or an earlier one when the seek lands on the same row (empty columns) */
	for (int c = tl_col(model_time(m), m->start_ns, m->end_ns, w) + dir; c >= 0 && c < w; c += dir) {
		model_seek(m, m->start_ns + (int64_t)ceil(span * c / w));
		if (m->row != row || dir > 0)
			return;
	}
	if (dir < 0)
		model_goto(m, 0);
}

/* The topic cursor by delta among the shown topics (clamped). */
static void move_cursor(struct app *app, struct timeline_pane *s, int64_t delta)
{
	struct model *m = &app->m;
	size_t *shown = malloc((m->ntopics + 1) * sizeof *shown);

	if (shown == NULL)
		return;
	size_t n = shown_topics(m, shown);
	long c = index_of(shown, n, (long)s->cur_topic);
	int64_t to = (c < 0 ? 0 : c) + delta;
	to = to >= (int64_t)n ? (int64_t)n - 1 : to;
	if (n > 0)
		s->cur_topic = shown[to < 0 ? 0 : to];
	free(shown);
}

static bool key(struct app *app, struct pane *p, enum action a, bool focused)
{
	struct timeline_pane *s = p->state;
	int64_t page = s->ntopic_rows > 1 ? s->ntopic_rows - 1 : 1;

	if (!focused)
		return false;
	switch (a) {
	case ACTION_UP: move_cursor(app, s, -1); return true;
	case ACTION_DOWN: move_cursor(app, s, 1); return true;
	case ACTION_PAGE_UP: move_cursor(app, s, -page); return true;
	case ACTION_PAGE_DOWN: move_cursor(app, s, page); return true;
	case ACTION_HALF_UP: move_cursor(app, s, -page / 2 - 1); return true;
	case ACTION_HALF_DOWN: move_cursor(app, s, page / 2 + 1); return true;
	case ACTION_TOP: move_cursor(app, s, INT32_MIN); return true;
	case ACTION_BOTTOM: move_cursor(app, s, INT32_MAX); return true;
	case ACTION_LEFT: step_column(app, p, -1); return true;
	case ACTION_RIGHT: step_column(app, p, 1); return true;
	case ACTION_ENTER: jump_topic(app, s->cur_topic); return true;
	default: return false;
	}
}

/* The list moved: the topic cursor follows its topic while the timeline is not focused. */
static void moved(struct app *app, struct pane *p)
{
	struct timeline_pane *s = p->state;
	long t;

	if (app->m.focus != PANE_TIMELINE && (t = selected_topic(&app->m)) >= 0)
		s->cur_topic = (size_t)t;
}

/* A click on a strip jumps to that time (on a topic's row: that topic's message nearest it); on a label, the cursor. */
static void click(struct app *app, struct pane *p, int row, int col)
{
	struct model *m = &app->m;
	struct timeline_pane *s = p->state;
	int w = p->r.w - s->label_w, t = row >= 0 && row < MAX_ROWS ? s->row_topic[row] : -1;

	if (t >= 0)
		s->cur_topic = (size_t)t;
	if (w <= 0 || col < s->label_w)
		return;
	model_seek(m, m->start_ns + (int64_t)((double)(col - s->label_w) / w * (double)(m->end_ns - m->start_ns)));
	if (t >= 0)
		jump_topic(app, (size_t)t);
	m->focus = PANE_LIST;
}

static int init(struct app *app, struct pane *p)
{
	struct timeline_pane *s = calloc(1, sizeof *s);

	if ((p->state = s) == NULL)
		return -1;
	s->hit_row = UINT64_MAX;
	/* the ticks read every /rosout and diagnostics message: not of a bag at a URL */
	s->job.hold = &app->user_busy;   /* a background job: it waits while the user's search runs */
	if (!app_any_url(app) && dupjob_start(&s->job, app, find_ticks, s) != 0)
		dupjob_free(&s->job);    /* no ticks, the rest works */
	return 0;
}

/* Busy (redrawn often) while the ticks or the chunks are being read. */
static bool busy(const struct app *app, const struct pane *p)
{
	const struct timeline_pane *s = p->state;

	return dupjob_running(&s->job) || app_check_percent(app) >= 0;
}

static void pane_free(struct app *app, struct pane *p)
{
	struct timeline_pane *s = p->state;

	(void)app;
	if (s != NULL) {
		dupjob_free(&s->job);
		free(s->density);
		free(s->topic_density);
		free(s->fbins);
		free(s->ticks);
		free(s->cells);
		free(s->hits);
	}
}

const struct pane_ops pane_timeline = {
	.title = "timeline",
	.help = "focused: j/k topics, h/l time, Enter that topic's nearest message; density summed and per "
	        "shown topic, marks, search matches, the filter, unreadable chunks; a click jumps",
	.slot = SLOT_BOTTOM,
	.takes_focus = true,
	.init = init,
	.draw = draw,
	.key = key,
	.height = height,
	.busy = busy,
	.moved = moved,
	.click = click,
	.free = pane_free,
};
