/*
 * view-plot.c - the plot pane (see plot.h), driven through pane_plot's ops.
 *
 * State: the paths, a reduction (reduce.h) over a timeline of bag_dup()
 * handles that only the plot's thread uses, the zoom window [z0, z1], and a
 * braille canvas (common/chart.h). The thread runs bag_reduce_run() once;
 * drawing asks for the columns of the window from whatever samples are in
 * so far, so the curve fills in progressively, and zooming or panning is a
 * query on the kept pyramid, never a rescan.
 *
 * Geometry: the chart starts 10 columns in and runs to the right edge,
 * exactly as the timeline strip below it, so that at full zoom a time has
 * the same column in both; each character is 2 dot columns, one reduced
 * column each.
 */
#define _GNU_SOURCE
#include "tui/draw.h"   /* curses, wide characters */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/chart.h"
#include "tui/bgjob.h"
#include "tui/plot.h"
#include "tui/prompt.h"

#define MAX_SERIES 4
#define LABEL_W 10
#define PAIR_BASE 40

static const short series_colour[MAX_SERIES] = { COLOR_CYAN, COLOR_YELLOW, COLOR_MAGENTA, COLOR_GREEN };

struct plot {
	bool open;
	struct rect r;                 /* the pane's, as last drawn */
	char *paths[MAX_SERIES];
	size_t npaths;
	bag_t **bags;                  /* dups for the thread */
	size_t nbags;
	bag_timeline_t *tl;
	bag_reduce_t *red;
	struct bgjob job;              /* the reduction's thread (no pipe: the loop polls while busy) */
	bool finished;                 /* atomic: the run returned */
	int rc;                        /* its result, once finished */
	uint64_t done, total;          /* atomic: rows passed, of */
	int64_t z0, z1;                /* the window shown */
	struct bag_reduce_col *cols;   /* MAX_SERIES x ncols */
	size_t ncols;
	struct chart chart;
	bool pairs;
};

static struct plot *plot_get(struct app *app)
{
	return app->panes[PANE_PLOT].state;
}

static int progress(void *arg, uint64_t done, uint64_t total)
{
	struct plot *p = arg;

	__atomic_store_n(&p->done, done, __ATOMIC_RELAXED);
	__atomic_store_n(&p->total, total, __ATOMIC_RELAXED);
	return 0;
}

static void *run(void *arg)
{
	struct plot *p = arg;
	struct bag_reduce_opts o = BAG_REDUCE_OPTS_INIT;

	o.progress = progress;
	o.progress_arg = p;
	p->rc = bag_reduce_run(p->red, &o);
	__atomic_store_n(&p->finished, true, __ATOMIC_RELEASE);
	return NULL;
}

/* Stop the thread and drop the reduction and its bags. */
static void stop(struct plot *p)
{
	if (p->job.started) {
		bag_reduce_cancel(p->red);
		bgjob_join(&p->job);
	}
	bag_reduce_free(p->red);
	p->red = NULL;
	bag_timeline_free(p->tl);
	p->tl = NULL;
	for (size_t i = 0; i < p->nbags; i++)
		bag_close(p->bags[i]);
	free(p->bags);
	p->bags = NULL;
	p->nbags = 0;
	for (size_t i = 0; i < p->npaths; i++)
		free(p->paths[i]);
	p->npaths = 0;
	p->finished = false;
	p->done = p->total = 0;
}

/* Start plotting the paths in text (separated by ','); a note on failure. */
static void start(struct app *app, struct plot *p, const char *text)
{
	const char *s = text;
	int rc;

	stop(p);
	while (*s && p->npaths < MAX_SERIES) {
		size_t n = strcspn(s, ",");
		const char *a = s, *b = s + n;
		while (a < b && *a == ' ')
			a++;
		while (b > a && b[-1] == ' ')
			b--;
		if (b > a)
			p->paths[p->npaths++] = strndup(a, (size_t)(b - a));
		s += n + (s[n] == ',');
	}
	if (p->npaths == 0) {
		snprintf(app->m.note, sizeof app->m.note, "plot: name a message path, e.g. /imu/data.linear_acceleration.x");
		return;
	}
	if ((p->bags = calloc(app->cb.nbags, sizeof *p->bags)) == NULL)
		goto nomem;
	for (; p->nbags < app->cb.nbags; p->nbags++)
		if (bag_dup(&p->bags[p->nbags], app->cb.bags[p->nbags]) != BAG_OK) {
			bag_close(p->bags[p->nbags]);
			goto nomem;
		}
	if (bag_timeline_open(&p->tl, p->bags, p->nbags) != BAG_OK)
		goto nomem;
	if ((rc = bag_reduce_open(&p->red, p->tl, (const char *const *)p->paths, p->npaths)) != BAG_OK) {
		snprintf(app->m.note, sizeof app->m.note, "plot: %s", bag_reduce_error(p->red)->message);
		stop(p);
		return;
	}
	if (bgjob_start(&p->job, run, p) != 0)
		goto nomem;
	p->open = true;
	p->z0 = app->m.start_ns;
	p->z1 = app->m.end_ns;
	return;
nomem:
	snprintf(app->m.note, sizeof app->m.note, "plot: out of memory");
	stop(p);
}

/* The type of the topic's first connection, parsed; NULL if none. */
static const struct bag_msgdef_type *topic_type(struct app *app, const char *topic, size_t len)
{
	for (size_t i = 0; i < app->m.ntopics; i++) {
		const struct topic_row *t = &app->m.topics[i];
		if (strlen(t->topic) == len && strncmp(t->topic, topic, len) == 0 && t->nconns > 0)
			return bag_msgdef_root(app_def(app, t->conns[0]));
	}
	return NULL;
}

/* Offer names[0..n) for the partial word at input[from..len): extend to their common prefix. */
static void complete(struct prompt *p, size_t from, const char *const *names, const char *const *suffix, size_t n)
{
	size_t have = p->len - from, common = 0;
	size_t k, shown = 0;

	if (n == 0) {
		snprintf(p->hint, sizeof p->hint, "no completion");
		return;
	}
	common = strlen(names[0]);
	for (k = 1; k < n; k++) {
		size_t c = 0;
		while (c < common && names[k][c] == names[0][c])
			c++;
		common = c;
	}
	if (n == 1) {
		snprintf(p->buf + from, sizeof p->buf - from, "%s%s", names[0], suffix[0]);
		p->hint[0] = '\0';
	} else {
		if (common > have)
			snprintf(p->buf + from, sizeof p->buf - from, "%.*s", (int)common, names[0]);
		int len = 0;
		for (k = 0; k < n && len < (int)sizeof p->hint - 40; k++, shown++)
			len += snprintf(p->hint + len, sizeof p->hint - (size_t)len, "%s%s", k ? " " : "", names[k]);
		if (shown < n)
			snprintf(p->hint + len, sizeof p->hint - (size_t)len, " ... (%zu)", n);
	}
	p->len = strlen(p->buf);
}

/* Tab: complete the topic, or the field path after it, of the last path typed. */
void plot_tab(struct app *app, struct prompt *p)
{
	char *word = strrchr(p->buf, ',');
	size_t from = word ? (size_t)(word - p->buf) + 1 : 0;
	const char **names = calloc(app->m.ntopics + 256, sizeof *names), **suffix = calloc(app->m.ntopics + 256, sizeof *suffix);
	const char **topics = calloc(app->m.ntopics + 1, sizeof *topics);
	size_t n = 0;

	if (names == NULL || suffix == NULL || topics == NULL)
		goto done;
	while (p->buf[from] == ' ')
		from++;
	word = p->buf + from;
	for (size_t i = 0; i < app->m.ntopics; i++)
		topics[i] = app->m.topics[i].topic;
	size_t tl = bag_expr_topic_prefix(word, topics, app->m.ntopics);
	if (tl == 0 || word[tl] != '.') {
		for (size_t i = 0; i < app->m.ntopics; i++)
			if (strncmp(topics[i], word, strlen(word)) == 0) {
				names[n] = topics[i];
				suffix[n++] = ".";
			}
		complete(p, from, names, suffix, n);
		goto done;
	}
	/* walk the fields named so far (indices skipped), then offer the last one's */
	const struct bag_msgdef_type *t = topic_type(app, word, tl);
	const char *s = word + tl + 1, *dot;
	while (t != NULL && (dot = strchr(s, '.')) != NULL) {
		size_t len = strcspn(s, ".[");
		const struct bag_msgdef_type *next = NULL;
		for (size_t i = 0; i < t->nfields; i++)
			if (strlen(t->fields[i].name) == len && strncmp(t->fields[i].name, s, len) == 0)
				next = t->fields[i].msg;
		t = next;
		s = dot + 1;
	}
	for (size_t i = 0; t != NULL && i < t->nfields && n < app->m.ntopics + 255; i++) {
		const struct bag_msgdef_field *f = &t->fields[i];
		if (strncmp(f->name, s, strlen(s)) != 0)
			continue;
		names[n] = f->name;
		suffix[n++] = f->prim == BAG_PRIM_MESSAGE ? (f->array != BAG_ARRAY_NONE ? "[0]." : ".")
		                                          : f->array != BAG_ARRAY_NONE ? "[0]" : "";
	}
	complete(p, (size_t)(s - p->buf), names, suffix, n);
done:
	free(names);
	free(suffix);
	free(topics);
}

void plot_submit(struct app *app, const char *text)
{
	struct plot *p = plot_get(app);

	if (p != NULL)
		start(app, p, text);
}

/* Keep the cursor's time inside the window: the window follows the list. */
static void follow(struct app *app, struct plot *p)
{
	int64_t t = model_time(&app->m), span = p->z1 - p->z0;

	if (t >= p->z0 && t <= p->z1)
		return;
	p->z0 = t - span / 2;
	if (p->z0 < app->m.start_ns)
		p->z0 = app->m.start_ns;
	if (p->z0 > app->m.end_ns - span)
		p->z0 = app->m.end_ns - span;
	p->z1 = p->z0 + span;
}

/* Zoom by a factor (0.5 in, 2 out) keeping the cursor where it is on screen. */
static void zoom(struct app *app, struct plot *p, double f)
{
	int64_t t = model_time(&app->m), full = app->m.end_ns - app->m.start_ns;
	double span = (double)(p->z1 - p->z0) * f, left = (double)(t - p->z0) * f;
	int64_t min = (int64_t)(p->ncols ? p->ncols : 1);

	if (span > (double)full)
		span = (double)full;
	if (span < (double)min)
		span = (double)min;
	p->z0 = t - (int64_t)left;
	p->z1 = p->z0 + (int64_t)span;
	if (p->z0 < app->m.start_ns) {
		p->z1 += app->m.start_ns - p->z0;
		p->z0 = app->m.start_ns;
	}
	if (p->z1 > app->m.end_ns) {
		p->z0 -= p->z1 - app->m.end_ns;
		p->z1 = app->m.end_ns;
	}
}

/* Pan by a quarter of the window; the selection moves with it (the list follows). */
static void pan(struct app *app, struct plot *p, int dir)
{
	int64_t d = (p->z1 - p->z0) / 4 * dir, t = model_time(&app->m) + d;

	if (p->z0 + d < app->m.start_ns)
		d = app->m.start_ns - p->z0;
	if (p->z1 + d > app->m.end_ns)
		d = app->m.end_ns - p->z1;
	p->z0 += d;
	p->z1 += d;
	model_seek(&app->m, t < app->m.start_ns ? app->m.start_ns : t);
}

/* The plot's keys work from any pane: zoom, pan, close. */
static bool key(struct app *app, struct pane *pane, enum action a, bool focused)
{
	struct plot *p = pane->state;

	(void)focused;
	if (a != ACTION_PLOT_CLOSE && a != ACTION_PLOT_ZOOM_IN && a != ACTION_PLOT_ZOOM_OUT &&
	    a != ACTION_PLOT_PAN_LEFT && a != ACTION_PLOT_PAN_RIGHT)
		return false;
	if (!p->open) {
		snprintf(app->m.note, sizeof app->m.note, "no plot: press p");
		return true;
	}
	switch (a) {
	case ACTION_PLOT_CLOSE:
		stop(p);
		p->open = false;
		break;
	case ACTION_PLOT_ZOOM_IN: zoom(app, p, 0.5); break;
	case ACTION_PLOT_ZOOM_OUT: zoom(app, p, 2.0); break;
	case ACTION_PLOT_PAN_LEFT: pan(app, p, -1); break;
	case ACTION_PLOT_PAN_RIGHT: pan(app, p, 1); break;
	default: break;
	}
	return true;
}

/* Half the body while open (6 rows at least, or none when the body is too small). */
static int height(const struct app *app, const struct pane *pane, int avail)
{
	const struct plot *p = pane->state;
	int h = avail / 2;

	(void)app;
	if (!p->open)
		return 0;
	return h < 6 ? (avail >= 12 ? 6 : 0) : h;
}

static bool busy(const struct app *app, const struct pane *pane)
{
	const struct plot *p = pane->state;

	(void)app;
	return p->job.started && !__atomic_load_n(&p->finished, __ATOMIC_ACQUIRE);
}

/* Seconds from the bag start, to the millisecond. */
static void rel(const struct app *app, int64_t t, char *buf, size_t cap)
{
	int64_t d = t - app->m.start_ns;
	snprintf(buf, cap, "+%lld.%03lld s", (long long)(d / 1000000000), (long long)(d % 1000000000 / 1000000));
}

/* The title: each series' value under the cursor, and how far the reduction is. */
static void draw_title(struct app *app, struct plot *p)
{
	struct rect r = p->r;
	int64_t t = model_time(&app->m), st;
	char buf[512], val[48];
	int x = r.x;

	draw_pane_title(app, &app->panes[PANE_PLOT], "");
	x += 6;
	for (size_t s = 0; s < p->npaths && x < r.x + r.w; s++) {
		double v;
		if (bag_reduce_sample_at(p->red, s, t, &st, &v) == BAG_OK)
			snprintf(val, sizeof val, "%.6g", v);
		else
			snprintf(val, sizeof val, "-");
		snprintf(buf, sizeof buf, " %s = %s ", p->paths[s], val);
		if (app->colour)
			attron(COLOR_PAIR(PAIR_BASE + (int)s) | A_BOLD);
		draw_put(r.y, x, r.x + r.w - x, buf);
		if (app->colour)
			attroff(COLOR_PAIR(PAIR_BASE + (int)s) | A_BOLD);
		x += (int)strlen(buf) + 1;
	}
	uint64_t done = __atomic_load_n(&p->done, __ATOMIC_RELAXED), total = __atomic_load_n(&p->total, __ATOMIC_RELAXED);
	if (!__atomic_load_n(&p->finished, __ATOMIC_ACQUIRE))
		snprintf(buf, sizeof buf, " reducing %llu%% ", (unsigned long long)(total ? done * 100 / total : 0));
	else if (p->rc != BAG_OK)
		snprintf(buf, sizeof buf, " %.480s ", bag_reduce_error(p->red)->message);
	else
		snprintf(buf, sizeof buf, " %llu sample%s  [+ -] zoom [{ }] pan [P] close ",
		         (unsigned long long)bag_reduce_count(p->red, 0), BAG_S(bag_reduce_count(p->red, 0)));
	int w = (int)strlen(buf);
	if (x < r.x + r.w - w)
		draw_put(r.y, r.x + r.w - w, w, buf);
}

/* The y labels and the braille rows, the cursor's column in bold. */
static void draw_canvas(struct app *app, struct plot *p, double lo, double hi, int cur)
{
	struct rect r = p->r;
	int cw = r.w - LABEL_W, chh = r.h - 2;
	char labels[3][32], cell[4];

	chart_label(hi, hi - lo, labels[0], sizeof labels[0]);
	chart_label((lo + hi) / 2, hi - lo, labels[1], sizeof labels[1]);
	chart_label(lo, hi - lo, labels[2], sizeof labels[2]);
	for (int y = 0; y < chh; y++) {
		const char *l = y == 0 ? labels[0] : y == chh - 1 ? labels[2] : y == chh / 2 && chh > 2 ? labels[1] : "";
		char lab[40];
		snprintf(lab, sizeof lab, "%*.*s%s", LABEL_W - 1, LABEL_W - 1, l, l[0] ? "\xE2\x94\xA4" : "\xE2\x94\x82");
		draw_colour_on(app, C_DIM, 0);
		draw_put(r.y + 1 + y, r.x, LABEL_W, lab);
		draw_colour_off(app, C_DIM, 0);
		move(r.y + 1 + y, r.x + LABEL_W);
		for (int x = 0; x < cw; x++) {
			int s = p->chart.series[y * cw + x];
			attr_t at = cur >= 0 && x == cur / 2 ? A_BOLD : 0;
			if (app->colour && s > 0)
				attron(COLOR_PAIR(PAIR_BASE + s - 1));
			if (at)
				attron(at);
			chart_cell_utf8(&p->chart, x, y, cell);
			if (app->utf8)
				addstr(cell);
			else
				addch(p->chart.dots[y * cw + x] ? (at ? '|' : '*') : ' ');
			if (at)
				attroff(at);
			if (app->colour && s > 0)
				attroff(COLOR_PAIR(PAIR_BASE + s - 1));
		}
	}
}

/* The time axis: the window's ends, and the cursor's time under it. */
static void draw_axis(struct app *app, struct plot *p, int64_t t, int cur)
{
	struct rect r = p->r;
	int cw = r.w - LABEL_W;
	char a[48], b[48], c[48], axis[512];
	rel(app, p->z0, a, sizeof a);
	rel(app, p->z1, b, sizeof b);
	rel(app, t, c, sizeof c);
	int gap = cw - (int)strlen(a) - (int)strlen(b);
	snprintf(axis, sizeof axis, "%*s %s%*s%s", LABEL_W - 1, "", a, gap > 0 ? gap : 1, "", b);
	draw_colour_on(app, C_DIM, 0);
	draw_put(r.y + r.h - 1, r.x, r.w, axis);
	draw_colour_off(app, C_DIM, 0);
	if (cur >= 0 && cw > (int)strlen(c) + 2) {
		int cx = r.x + LABEL_W + cur / 2 - (int)strlen(c) / 2;
		/* the cursor's time under it, unless it would cover an end's */
		if (cx > r.x + LABEL_W + (int)strlen(a) + 1 && cx + (int)strlen(c) < r.x + r.w - (int)strlen(b) - 1) {
			attron(A_BOLD);
			draw_put(r.y + r.h - 1, cx, (int)strlen(c), c);
			attroff(A_BOLD);
		}
	}
}

static void draw(struct app *app, struct pane *pane)
{
	struct plot *p = pane->state;

	p->r = pane->r;
	if (!p->open || p->red == NULL || p->r.h < 3 || p->r.w <= LABEL_W + 2)
		return;
	if (app->colour && !p->pairs) {
		for (int s = 0; s < MAX_SERIES; s++)
			init_pair((short)(PAIR_BASE + s), series_colour[s], -1);
		p->pairs = true;
	}
	struct rect r = p->r;
	int cw = r.w - LABEL_W, chh = r.h - 2;
	size_t ncols = 2 * (size_t)cw;
	if (p->chart.w != cw || p->chart.h != chh || p->cols == NULL || p->ncols != ncols) {
		chart_free(&p->chart);
		free(p->cols);
		p->ncols = ncols;
		p->cols = calloc(MAX_SERIES * ncols, sizeof *p->cols);
		if (p->cols == NULL || chart_init(&p->chart, cw, chh) != 0)
			return;
	}
	follow(app, p);
	double lo = INFINITY, hi = -INFINITY;
	for (size_t s = 0; s < p->npaths; s++) {
		bag_reduce_columns(p->red, s, p->z0, p->z1, ncols, p->cols + s * ncols);
		chart_extent(p->cols + s * ncols, ncols, &lo, &hi);
	}
	chart_pad(&lo, &hi);
	chart_clear(&p->chart);
	for (size_t s = 0; s < p->npaths; s++)
		chart_series(&p->chart, (int)s, p->cols + s * ncols, ncols, lo, hi);
	int64_t t = model_time(&app->m);
	unsigned __int128 N = (unsigned __int128)(uint64_t)(p->z1 - p->z0) + 1;
	int cur = t >= p->z0 && t <= p->z1 ? (int)((unsigned __int128)(uint64_t)(t - p->z0) * ncols / N) : -1;
	if (cur >= 0)
		chart_vline(&p->chart, cur);
	draw_title(app, p);
	draw_canvas(app, p, lo, hi, cur);
	draw_axis(app, p, t, cur);
}

static int init(struct app *app, struct pane *pane)
{
	struct plot *p = calloc(1, sizeof *p);

	(void)app;
	if ((pane->state = p) == NULL)
		return -1;
	p->job.rd = p->job.wr = -1;
	return 0;
}

static void pane_free(struct app *app, struct pane *pane)
{
	struct plot *p = pane->state;

	(void)app;
	if (p == NULL)
		return;
	stop(p);
	chart_free(&p->chart);
	free(p->cols);
}

const struct pane_ops pane_plot = {
	.title = "Plot",
	.help = "message paths over time (p), its axis the timeline's; + - zoom, { } pan, P closes",
	.slot = SLOT_BOTTOM,
	.init = init,
	.draw = draw,
	.key = key,
	.height = height,
	.busy = busy,
	.free = pane_free,
};
