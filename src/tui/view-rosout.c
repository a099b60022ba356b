/*
 * view-rosout.c - the rosout pane (E), lnav-like: every rosgraph_msgs/Log
 * message (log.h: /rosout and /rosout_agg, a message on both once), one
 * line each with its stamp, level (coloured), node and text; a minimum
 * level (+ raises it, - lowers it), per-node toggles (x hides the cursor's
 * node, a shows all), e / E to the next and previous error, w / W to the
 * next and previous warning. The message list follows the pane's cursor
 * (to the message's record time) and the pane follows the list, so / (the
 * list's search) finds text in the log too.
 *
 * State: the entries, read once on the first E by a dupjob (the scan's
 * callback appends them on the job's thread; the pane reads them only once
 * the job has finished), the nodes they name, and shown[]: the indices of
 * the entries that pass the level and node filters, in record-time order,
 * rebuilt when a filter changes. cursor and top index shown[].
 */
#define _GNU_SOURCE
#include "tui/draw.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/dupjob.h"

#define PAIR_WARN 50
#define PAIR_DEBUG 51
#define MAX_NODES 4096              /* more distinct nodes share the last one's toggle */

struct entry {
	int64_t time_ns, stamp_ns;
	unsigned level;
	uint32_t node;
	char *text;                   /* the message, its newlines made spaces */
};

struct rosout_pane {
	bool open;
	struct dupjob job;
	struct entry *e;
	size_t n, cap;
	char **nodes;                 /* distinct node names, in the order met */
	bool *hidden;                 /* per node */
	size_t nnodes, nodecap;
	unsigned min_level;
	size_t *shown;                /* entries passing the filters */
	size_t nshown;
	size_t cursor, top;           /* in shown */
	bool pairs;
	int64_t sought;               /* the time the pane last moved the list to: moved() then leaves the cursor */
};

/* Room for one more element in *p (capacity *cap); 0 or -1. */
static int grow(void **p, size_t *cap, size_t n, size_t elem)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 256;
	void *q = realloc(*p, c * elem);
	if (q == NULL)
		return -1;
	*p = q;
	*cap = c;
	return 0;
}

/* The index of node name, added when new (the last slot once MAX_NODES are known); -1 without memory. */
static long node_index(struct rosout_pane *s, const char *name)
{
	size_t k;
	for (k = 0; k < s->nnodes && strcmp(s->nodes[k], name) != 0; k++)
		;
	if (k < s->nnodes || k >= MAX_NODES)
		return k < s->nnodes ? (long)k : MAX_NODES - 1;
	if (grow((void **)&s->nodes, &s->nodecap, k, sizeof *s->nodes) != 0 || (s->nodes[k] = strdup(name)) == NULL)
		return -1;
	s->nnodes++;
	return (long)k;
}

/* On the job's thread: keep one entry. */
static int keep(void *arg, const struct bag_log_entry *le)
{
	struct rosout_pane *s = arg;
	long k = node_index(s, le->node);

	if (k < 0 || grow((void **)&s->e, &s->cap, s->n, sizeof *s->e) != 0)
		return BAG_ENOMEM;
	char *t = strdup(le->msg);
	if (t == NULL)
		return BAG_ENOMEM;
	for (char *p = t; (p = strchr(p, '\n')) != NULL;)
		*p = ' ';
	s->e[s->n++] = (struct entry){ le->time_ns, le->stamp_ns, le->level, (uint32_t)k, t };
	return 0;
}

static int run(struct dupjob *j, void *arg)
{
	struct rosout_pane *s = arg;
	struct bag_log_opts o = BAG_LOG_OPTS_INIT;

	o.progress = dupjob_progress;
	o.progress_arg = j;
	return bag_log_scan(j->tl, &o, keep, s, NULL, NULL);
}

/* shown[] from the filters, the cursor kept on the nearest entry at or before its old one. */
static void refilter(struct rosout_pane *s)
{
	size_t old = s->nshown ? s->shown[s->cursor] : 0;

	if (s->hidden == NULL && (s->hidden = calloc(s->nnodes + 1, sizeof *s->hidden)) == NULL)
		return;
	if (s->shown == NULL && (s->shown = malloc((s->n + 1) * sizeof *s->shown)) == NULL)
		return;
	s->nshown = 0;
	s->cursor = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (s->e[i].level < s->min_level || s->hidden[s->e[i].node])
			continue;
		if (i <= old)
			s->cursor = s->nshown;
		s->shown[s->nshown++] = i;
	}
}

/* The shown entry last at or before t, or 0. */
static size_t shown_at(const struct rosout_pane *s, int64_t t)
{
	size_t lo = 0, hi = s->nshown;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s->e[s->shown[mid]].time_ns <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : 0;
}

/* The next (dir 1) or previous shown entry of at least level lo and below hi; false if none. */
static bool find_level(struct rosout_pane *s, int dir, unsigned lo, unsigned hi)
{
	for (size_t k = s->cursor; dir > 0 ? k + 1 < s->nshown : k > 0;) {
		k = dir > 0 ? k + 1 : k - 1;
		unsigned l = s->e[s->shown[k]].level;
		if (l >= lo && l < hi) {
			s->cursor = k;
			return true;
		}
	}
	return false;
}

static int level_pair(struct app *app, struct rosout_pane *s, unsigned level, attr_t *attr)
{
	if (app->colour && !s->pairs) {
		init_pair(PAIR_WARN, COLOR_YELLOW, -1);
		init_pair(PAIR_DEBUG, COLOR_GREEN, -1);
		s->pairs = true;
	}
	*attr = level >= BAG_LOG_FATAL ? A_BOLD : 0;
	return level >= BAG_LOG_ERROR ? C_ERROR : level >= BAG_LOG_WARN ? PAIR_WARN : level <= BAG_LOG_DEBUG ? PAIR_DEBUG : 0;
}

/* One entry's line at row y. */
static void draw_entry(struct app *app, struct rosout_pane *s, const struct pane *p, int y, size_t k)
{
	const struct entry *e = &s->e[s->shown[k]];
	const char *name = bag_log_level_name(e->level);
	char when[64], *line = NULL;
	attr_t attr;
	int pair = level_pair(app, s, e->level, &attr);

	draw_fmt_time(app, e->stamp_ns, when, sizeof when);
	if (asprintf(&line, " %s %-5s [%s] %s", when, name ? name : "?", s->nodes[e->node], e->text) < 0)
		return;
	if (k == s->cursor)
		attron(A_REVERSE);
	if (pair)
		draw_colour_on(app, pair, attr);
	draw_put(y, p->r.x, p->r.w, line);
	if (pair)
		draw_colour_off(app, pair, attr);
	if (k == s->cursor)
		attroff(A_REVERSE);
	free(line);
}

static void draw(struct app *app, struct pane *p)
{
	struct rosout_pane *s = p->state;
	int rows = p->r.h - 1;
	char rest[160];

	if (!dupjob_finished(&s->job) || s->job.rc != BAG_OK) {
		if (s->job.rc != BAG_OK)
			snprintf(rest, sizeof rest, ": the log could not be read (%s)", bag_strerror(s->job.rc));
		else
			snprintf(rest, sizeof rest, ": reading ... %u%%", dupjob_percent(&s->job));
		draw_pane_title(app, p, rest);
		for (int y = 1; y < p->r.h; y++)
			draw_put(p->r.y + y, p->r.x, p->r.w, "");
		return;
	}
	if (s->shown == NULL)
		refilter(s);
	snprintf(rest, sizeof rest, ": %zu of %zu, level %s+  [+-] level [x/a] node [e/E] error [w/W] warn",
	         s->nshown, s->n, bag_log_level_name(s->min_level ? s->min_level : 1));
	draw_pane_title(app, p, rest);
	if (s->cursor < s->top)
		s->top = s->cursor;
	if (rows > 0 && s->cursor >= s->top + (size_t)rows)
		s->top = s->cursor - (size_t)rows + 1;
	for (int y = 0; y < rows; y++) {
		if (s->top + (size_t)y < s->nshown)
			draw_entry(app, s, p, p->r.y + 1 + y, s->top + (size_t)y);
		else
			draw_put(p->r.y + 1 + y, p->r.x, p->r.w, y == 0 && s->nshown == 0 ? "(no log messages shown)" : "");
	}
}

/* A filter or search action on the focused pane; false if a is none of them. */
static bool filter_key(struct rosout_pane *s, enum action a)
{
	switch (a) {
	case ACTION_PLOT_ZOOM_IN: s->min_level = s->min_level >= BAG_LOG_FATAL ? BAG_LOG_FATAL : s->min_level ? s->min_level * 2 : 2; break;
	case ACTION_PLOT_ZOOM_OUT: s->min_level = s->min_level > 1 ? s->min_level / 2 : 0; break;
	case ACTION_TOGGLE_TOPIC: if (s->nshown) s->hidden[s->e[s->shown[s->cursor]].node] = true; break;
	case ACTION_ALL_TOPICS: memset(s->hidden, 0, s->nnodes * sizeof *s->hidden); break;
	case ACTION_ERR_NEXT: return find_level(s, 1, BAG_LOG_ERROR, 1000), true;
	case ACTION_ROSOUT: return find_level(s, -1, BAG_LOG_ERROR, 1000), true;
	case ACTION_WRAP: return find_level(s, 1, BAG_LOG_WARN, BAG_LOG_ERROR), true;
	case ACTION_WRITE: return find_level(s, -1, BAG_LOG_WARN, BAG_LOG_ERROR), true;
	default: return false;
	}
	refilter(s);
	return true;
}

/* Moves of the focused pane's cursor; false if a is not one. */
static bool move_key(struct rosout_pane *s, enum action a, int page)
{
	size_t n = s->nshown, step = page > 2 ? (size_t)page - 2 : 1;
	switch (a) {
	case ACTION_UP: s->cursor -= s->cursor > 0; break;
	case ACTION_DOWN: s->cursor += s->cursor + 1 < n; break;
	case ACTION_PAGE_UP: s->cursor = s->cursor > step ? s->cursor - step : 0; break;
	case ACTION_PAGE_DOWN: s->cursor = s->cursor + step < n ? s->cursor + step : (n ? n - 1 : 0); break;
	case ACTION_TOP: s->cursor = 0; break;
	case ACTION_BOTTOM: s->cursor = n ? n - 1 : 0; break;
	default: return false;
	}
	return true;
}

/* E opens it (and focuses it); Esc closes it; when focused, see top. */
static bool key(struct app *app, struct pane *p, enum action a, bool focused)
{
	struct rosout_pane *s = p->state;
	bool ready = s->open && dupjob_finished(&s->job) && s->job.rc == BAG_OK && s->shown != NULL;

	if ((a == ACTION_ROSOUT && (!s->open || !focused)) || (a == ACTION_CANCEL && s->open && focused)) {
		dupjob_pane_open(&s->job, app, &s->open, a == ACTION_ROSOUT, PANE_ROSOUT, run, s, "log");
		return true;
	}
	if (!focused || !ready)
		return false;
	if (!filter_key(s, a) && !move_key(s, a, p->r.h - 1))
		return false;
	if (s->nshown > 0) {
		s->sought = s->e[s->shown[s->cursor]].time_ns;
		model_seek(&app->m, s->sought);
	}
	return true;
}

/* The list moved: the cursor to the entry at or before the selected time, unless it is there already. */
static void moved(struct app *app, struct pane *p)
{
	struct rosout_pane *s = p->state;

	if (!s->open || s->shown == NULL || s->nshown == 0 || model_time(&app->m) == s->sought)
		return;
	s->cursor = shown_at(s, model_time(&app->m));
}

static int height(const struct app *app, const struct pane *p, int avail)
{
	const struct rosout_pane *s = p->state;

	(void)app;
	return s->open ? avail : 0;
}

static bool busy(const struct app *app, const struct pane *p)
{
	const struct rosout_pane *s = p->state;

	(void)app;
	return s->open && dupjob_running(&s->job);
}

static int init(struct app *app, struct pane *p)
{
	(void)app;
	return (p->state = calloc(1, sizeof(struct rosout_pane))) != NULL ? 0 : -1;
}

static void pane_free(struct app *app, struct pane *p)
{
	struct rosout_pane *s = p->state;

	(void)app;
	if (s == NULL)
		return;
	dupjob_free(&s->job);
	for (size_t i = 0; i < s->n; i++)
		free(s->e[i].text);
	for (size_t i = 0; i < s->nnodes; i++)
		free(s->nodes[i]);
	free(s->e);
	free(s->nodes);
	free(s->hidden);
	free(s->shown);
}

const struct pane_ops pane_rosout = {
	.title = "Rosout",
	.help = "the /rosout log: levels coloured, a minimum level, node toggles, errors and warnings",
	.slot = SLOT_SIDE,
	.init = init,
	.draw = draw,
	.key = key,
	.moved = moved,
	.height = height,
	.busy = busy,
	.free = pane_free,
};
