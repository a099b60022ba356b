/*
 * view-timeline.c - the timeline at the bottom: the shown topics' message
 * density summed on the first row, then one strip per shown topic (display
 * order) on the rows the layout gave, labelled; the selection is a
 * reversed cell. Densities come from the index (model_density*) and are
 * kept until the view or the width changes. On the first row, cells that
 * hold a /rosout warning or error, or a diagnostic status turning WARN or
 * worse, are ticks (yellow / red, bold without colour): their times come
 * from a dupjob started with the browser (log.h, diag.h on the scan engine),
 * so they appear when it is done and no key waits for them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/draw.h"
#include "tui/dupjob.h"

#define PAIR_TICK_WARN 52

struct timeline_pane {
	double *density;              /* bins, for density_view and density_w */
	const bag_view_t *density_view;
	int density_w;
	double *topic_density;        /* per-topic strips: ntopics x topic_density_w bins */
	int topic_density_w;
	struct dupjob job;            /* finds the ticks */
	struct tick *ticks;           /* record time, level 1 warn / 2 error */
	size_t nticks, tickcap;
	uint8_t *cells;               /* per column of the first row: the worst tick there */
	int cells_w;
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
	double span = (double)(m->end_ns - m->start_ns);

	if (!dupjob_finished(&s->job) || s->job.rc != BAG_OK || s->cells_w == w)
		return;
	free(s->cells);
	if ((s->cells = calloc((size_t)w, 1)) == NULL)
		return;
	s->cells_w = w;
	for (size_t k = 0; k < s->nticks; k++) {
		int c = span > 0 ? (int)((double)(s->ticks[k].t - m->start_ns) / span * w) : 0;
		c = c < 0 ? 0 : c >= w ? w - 1 : c;
		s->cells[c] = s->ticks[k].level > s->cells[c] ? s->ticks[k].level : s->cells[c];
	}
}

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
		int pair = ticks == NULL || ticks[i] == 0 ? 0 : ticks[i] == 2 ? C_ERROR : PAIR_TICK_WARN;
		if (i == cur)
			attron(A_REVERSE);
		if (pair)
			draw_colour_on(app, pair, A_BOLD);
		level = pair && level == 0 ? 1 : level;
		if (app->utf8)
			addstr(blocks[level]);
		else
			addch((chtype)ascii[level]);
		if (pair)
			draw_colour_off(app, pair, A_BOLD);
		if (i == cur)
			attroff(A_REVERSE);
	}
}

/*
 * The timeline: the shown topics summed on the first line, then one strip
 * per shown topic (display order) on the lines the layout gave, labelled.
 */
static void draw(struct app *app, struct pane *p)
{
	struct model *m = &app->m;
	struct timeline_pane *s = p->state;
	struct rect r = p->r;
	int w = r.w - 10;

	if (w <= 0)
		return;
	if (s->density_view != m->view || s->density_w != w) {
		free(s->density);
		s->density = calloc((size_t)w, sizeof *s->density);
		if (s->density == NULL)
			return;
		model_density(m, s->density, w);
		s->density_view = m->view;
		s->density_w = w;
	}
	if ((r.h - 1) > 0 && s->topic_density_w != w) {
		free(s->topic_density);
		s->topic_density = calloc(m->ntopics * (size_t)w, sizeof *s->topic_density);
		s->topic_density_w = s->topic_density ? w : 0;
		if (s->topic_density != NULL)
			model_density_topics(m, s->topic_density, w);
	}
	double span = (double)(m->end_ns - m->start_ns);
	int cur = span > 0 ? (int)((double)(model_time(m) - m->start_ns) / span * w) : 0;
	cur = cur < 0 ? 0 : cur >= w ? w - 1 : cur;
	draw_colour_on(app, C_DIM, 0);
	char title[24];
	snprintf(title, sizeof title, " %s ", p->ops->title);
	draw_put(r.y, r.x, 10, title);
	draw_colour_off(app, C_DIM, 0);
	if (app->colour && !s->pair) {
		init_pair(PAIR_TICK_WARN, COLOR_YELLOW, -1);
		s->pair = true;
	}
	tick_cells(app, s, w);
	draw_strip(app, r.y, r.x + 10, s->density, w, cur, s->cells_w == w ? s->cells : NULL);
	if ((r.h - 1) == 0 || s->topic_density == NULL)
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
		draw_strip(app, y, r.x + 10, s->topic_density + t * (size_t)w, w, cur, NULL);
		y++;
	}
	term_scratch_free(&sc);
}

/* The summed row, and a strip per topic as room allows (a tenth of the screen, 6 at most). */
static int height(const struct app *app, const struct pane *p, int avail)
{
	const struct model *m = &app->m;
	int strips = (int)m->ntopics < LINES / 10 ? (int)m->ntopics : LINES / 10;

	(void)p;
	(void)avail;
	if (strips > 6)
		strips = 6;
	if (strips < 0 || m->ntopics < 2)
		strips = 0;
	return 1 + strips;
}

/* A click jumps to that time; the list takes the focus. */
static void click(struct app *app, struct pane *p, int row, int col)
{
	struct model *m = &app->m;
	int w = p->r.w - 10;

	(void)row;
	if (w <= 0 || col < 10)
		return;
	model_seek(m, m->start_ns + (int64_t)((double)(col - 10) / w * (double)(m->end_ns - m->start_ns)));
	m->focus = PANE_LIST;
}

static int init(struct app *app, struct pane *p)
{
	struct timeline_pane *s = calloc(1, sizeof *s);

	if ((p->state = s) == NULL)
		return -1;
	/* the ticks read every /rosout and diagnostics message: not of a bag at a URL */
	if (!app_any_url(app) && dupjob_start(&s->job, app, find_ticks, s) != 0)
		dupjob_free(&s->job);    /* no ticks, the rest works */
	return 0;
}

static bool busy(const struct app *app, const struct pane *p)
{
	const struct timeline_pane *s = p->state;

	(void)app;
	return dupjob_running(&s->job);
}

static void pane_free(struct app *app, struct pane *p)
{
	struct timeline_pane *s = p->state;

	(void)app;
	if (s != NULL) {
		dupjob_free(&s->job);
		free(s->density);
		free(s->topic_density);
		free(s->ticks);
		free(s->cells);
	}
}

const struct pane_ops pane_timeline = {
	.title = "timeline",
	.help = "message density over the bag's span, summed and per topic; a click jumps there",
	.slot = SLOT_BOTTOM,
	.init = init,
	.draw = draw,
	.height = height,
	.busy = busy,
	.click = click,
	.free = pane_free,
};
