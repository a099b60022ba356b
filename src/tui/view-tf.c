/*
 * view-tf.c - the TF pane (T): the frame tree at the selected message's
 * time, each frame with its age there (the time since its last transform;
 * stale ones marked), then the selected frame's edge (its transform into
 * its parent) and its lookup from its tree's root, both as tf2 gives them.
 *
 * State: a transform buffer (tf.h) built once, on the first T or tf()
 * column of the list (tf_pane_buffer), by a
 * dupjob (a thread over bag_dup() handles only it uses); the buffer is read-only
 * once built, so drawing looks it up directly. Until then the pane says it
 * is reading. The lines (a struct detail shown by textview) are rebuilt at
 * each draw, so they follow the selection's time; the cursor picks the
 * frame whose edge and lookup take the pane's last two rows.
 */
#define _GNU_SOURCE
#include "tui/draw.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/dupjob.h"
#include "tui/textview.h"

#define STALE_NS (1 * BAG_NSEC_PER_SEC)   /* older than this (and 3 periods) at the time: stale */

struct tf_pane {
	bool open;
	bool tried;                   /* the job was started (by T or by a tf() column) */
	struct dupjob job;            /* builds tf */
	bag_tf_t *tf;
	struct bag_tf_row *rows;      /* the tree, once built */
	size_t nrows;
	struct bag_text sel[2];       /* the selected frame's edge and lookup from its root */
	struct detail d;
};

/* On the job's thread: the buffer and its tree. */
static int run(struct dupjob *j, void *arg)
{
	struct tf_pane *s = arg;
	struct bag_tf_opts o = BAG_TF_OPTS_INIT;
	int rc;

	o.progress = dupjob_progress;
	o.progress_arg = j;
	if ((rc = bag_tf_build(&s->tf, j->tl, &o)) == BAG_OK &&
	    (s->rows = malloc((bag_tf_frame_count(s->tf) + 1) * sizeof *s->rows)) != NULL &&
	    bag_tf_tree(s->tf, s->rows) == BAG_OK)
		s->nrows = bag_tf_frame_count(s->tf);
	return rc;
}

/* "name  age 0.123 s" (or static, no data yet, stale) for row k at time t. */
static void frame_line(const struct tf_pane *s, size_t k, int64_t t, struct bag_text *line)
{
	struct bag_tf_frame f;
	int64_t at;

	bag_tf_frame(s->tf, s->rows[k].frame, &f);
	line->len = 0;
	term_escape(line, f.name, strlen(f.name));
	if (!f.has_parents)
		bag_text_append(line, s->rows[k].depth == 0 ? "  (root)" : "", s->rows[k].depth == 0 ? 8 : 0);
	else if (f.is_static)
		bag_text_append(line, "  static", 8);
	else if ((at = bag_tf_stamp_before(s->tf, s->rows[k].frame, t)) == BAG_TIME_MIN)
		bag_text_append(line, "  no transform yet", 18);
	else {
		int64_t age = t - at, period = f.rate_hz > 0 ? (int64_t)(1e9 / f.rate_hz) : 0;
		bag_text_printf(line, "  age %.3f s%s", (double)age / 1e9, age > STALE_NS && age > 3 * period ? "  STALE" : "");
	}
	if (s->rows[k].in_cycle)
		bag_text_append(line, "  (in a cycle)", 14);
}

/* One lookup as a line: "label: x y z  rpy r p y  q x y z w", or tf2's reason. */
static void lookup_line(struct bag_text *line, const bag_tf_t *tf, const char *label, const char *target,
                        const char *source, int64_t t)
{
	struct bag_tf_transform x;
	struct bag_error err;
	double rpy[3];

	line->len = 0;
	term_escape(line, label, strlen(label));
	if (bag_tf_lookup(tf, target, source, t, &x, &err) != 0) {
		bag_text_append(line, ": ", 2);
		term_escape(line, err.message, strlen(err.message));
		return;
	}
	bag_tf_rpy(x.rotation, rpy);
	bag_text_printf(line, ": xyz %.4f %.4f %.4f  rpy %.4f %.4f %.4f  q %.4f %.4f %.4f %.4f", x.translation[0],
	                x.translation[1], x.translation[2], rpy[0], rpy[1], rpy[2], x.rotation[0], x.rotation[1],
	                x.rotation[2], x.rotation[3]);
}

/* The selected frame's edge and its lookup from its tree's root, at t, into s->sel. */
static void selection_lines(struct tf_pane *s, size_t k, int64_t t)
{
	struct bag_tf_frame f, p, r;
	size_t root = k;
	char label[256];

	s->sel[0].len = s->sel[1].len = 0;
	bag_tf_frame(s->tf, s->rows[k].frame, &f);
	while (root > 0 && s->rows[root].depth > 0)
		root--;
	if (f.parent < 0) {
		bag_text_append(&s->sel[0], "(a root: no parent)", 19);
		return;
	}
	bag_tf_frame(s->tf, (size_t)f.parent, &p);
	snprintf(label, sizeof label, "edge %s -> %s", f.name, p.name);
	lookup_line(&s->sel[0], s->tf, label, p.name, f.name, t);
	bag_tf_frame(s->tf, s->rows[root].frame, &r);
	if (r.parent < 0 && s->rows[root].frame != (size_t)f.parent) {
		snprintf(label, sizeof label, "from root %s", r.name);
		lookup_line(&s->sel[1], s->tf, label, r.name, f.name, t);
	}
}

/* The tree's lines at time t (the cursor kept) and the selection's. */
static void build(struct tf_pane *s, int64_t t)
{
	uint64_t cursor = s->d.cursor, top = s->d.top;
	struct bag_text line = { 0 };

	detail_clear(&s->d);
	s->sel[0].len = s->sel[1].len = 0;
	if (s->nrows == 0) {
		detail_add(&s->d, 0, "no tf2_msgs/TFMessage or tf/tfMessage messages");
		return;
	}
	for (size_t k = 0; k < s->nrows; k++) {
		frame_line(s, k, t, &line);
		detail_add(&s->d, (int)(s->rows[k].depth < 30 ? s->rows[k].depth : 30), line.p ? line.p : "");
	}
	s->d.cursor = cursor < s->nrows ? cursor : 0;
	s->d.top = top <= s->d.cursor ? top : s->d.cursor;
	selection_lines(s, (size_t)s->d.cursor, t);
	bag_text_free(&line);
}

/* The buffer for the list's tf() columns: the pane's own, built once whoever asks first. */
const bag_tf_t *tf_pane_buffer(struct app *app, bool *failed)
{
	struct tf_pane *s = app->panes[PANE_TF].state;

	*failed = false;
	if (!s->job.job.started && !s->tried) {
		s->tried = true;
		if (dupjob_start(&s->job, app, run, s) != 0) {
			*failed = true;
			return NULL;
		}
	}
	if (!dupjob_finished(&s->job)) {
		*failed = !s->job.job.started;
		return NULL;
	}
	*failed = s->job.rc != BAG_OK;
	return *failed ? NULL : s->tf;
}

static void draw(struct app *app, struct pane *p)
{
	struct tf_pane *s = p->state;

	if (dupjob_ready(&s->job, "the transforms", bag_tf_error(s->tf), &s->d))
		build(s, model_time(&app->m));
	int nsel = (s->sel[0].len > 0) + (s->sel[1].len > 0);
	if (p->r.h < nsel + 3)
		nsel = 0;
	p->r.h -= nsel;
	textview_draw(app, p, &s->d, ": frames at the selected time   [T] close", false);
	p->r.h += nsel;
	for (int k = 0; k < nsel; k++)
		draw_put(p->r.y + p->r.h - nsel + k, p->r.x + 1, p->r.w - 1, s->sel[k].p);
}

/* T opens and closes it from anywhere, Esc closes it; moves when focused. */
static bool key(struct app *app, struct pane *p, enum action a, bool focused)
{
	struct tf_pane *s = p->state;

	if (a == ACTION_TF || (a == ACTION_CANCEL && s->open && focused)) {
		dupjob_pane_open(&s->job, app, &s->open, a == ACTION_TF && !s->open, PANE_TF, run, s, "tf");
		return true;
	}
	return focused && s->open && textview_key(&s->d, a, p->r.h);
}

static int height(const struct app *app, const struct pane *p, int avail)
{
	const struct tf_pane *s = p->state;

	(void)app;
	return s->open ? avail : 0;
}

static bool busy(const struct app *app, const struct pane *p)
{
	const struct tf_pane *s = p->state;

	(void)app;
	return s->open && dupjob_running(&s->job);
}

static void click(struct app *app, struct pane *p, int row, int col)
{
	struct tf_pane *s = p->state;

	(void)app, (void)col;
	textview_click(&s->d, row);
}

static int init(struct app *app, struct pane *p)
{
	(void)app;
	return (p->state = calloc(1, sizeof(struct tf_pane))) != NULL ? 0 : -1;
}

static void pane_free(struct app *app, struct pane *p)
{
	struct tf_pane *s = p->state;

	(void)app;
	if (s == NULL)
		return;
	dupjob_free(&s->job);
	bag_tf_free(s->tf);
	free(s->rows);
	bag_text_free(&s->sel[0]);
	bag_text_free(&s->sel[1]);
	detail_clear(&s->d);
}

const struct pane_ops pane_tf = {
	.title = "TF",
	.help = "the frame tree at the selected time: ages, the selected edge, its lookup from the root",
	.slot = SLOT_SIDE,
	.init = init,
	.draw = draw,
	.key = key,
	.height = height,
	.busy = busy,
	.click = click,
	.free = pane_free,
};
