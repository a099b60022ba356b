/*
 * exportjob.c - W: write the marked range of the shown topics (and the
 * filter) to a new bag, through the library's bag_export() - the call
 * `bagscope export` makes - on a thread of its own, so the screen stays
 * live; Esc cancels.
 *
 * The name offered is one no file has yet (-2, -3 ... before .bag); a name
 * typed over an existing file asks first (a second prompt: y replaces).
 *
 * The range runs from the first mark to the last (with one mark: between it
 * and the selection, either way round), inclusive. The thread works on its
 * own bag_dup() handles, timeline and view; the main loop polls a pipe that
 * the thread writes to now and then with progress and once when done.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/app.h"
#include "tui/bgjob.h"

struct exportjob {
	struct bgjob job;
	bag_t **bags;             /* bag_dup() of each of the browser's */
	size_t nbags;
	bag_timeline_t *tl;
	bag_view_t *view;
	bag_expr_t *filter;
	char out[PATH_MAX];
	uint64_t done, total;     /* rows passed (atomic) */
	bool force;               /* replace a file there (asked first) */
	bool cancel;              /* atomic */
	bool finished;            /* atomic: rc, err and res are set */
	int rc;
	struct bag_error err;
	struct bag_export_result res;
};

static int progress(void *arg, uint64_t done, uint64_t total)
{
	struct exportjob *e = arg;

	__atomic_store_n(&e->done, done, __ATOMIC_RELAXED);
	__atomic_store_n(&e->total, total, __ATOMIC_RELAXED);
	bgjob_wake(&e->job);
	return __atomic_load_n(&e->cancel, __ATOMIC_RELAXED);
}

static void *run(void *arg)
{
	struct exportjob *e = arg;
	struct bag_export_opts o = BAG_EXPORT_OPTS_INIT;

	o.filter = e->filter;
	o.force = e->force;
	o.progress = progress;
	o.progress_arg = e;
	e->rc = bag_export(e->view, e->out, &o, &e->res, &e->err);
	__atomic_store_n(&e->finished, true, __ATOMIC_RELEASE);
	bgjob_wake(&e->job);
	return NULL;
}

static void job_free(struct exportjob *e)
{
	if (e == NULL)
		return;
	bgjob_close(&e->job);   /* the thread first: it uses all that follows */
	bag_view_free(e->view);
	bag_timeline_free(e->tl);
	for (size_t i = 0; e->bags != NULL && i < e->nbags; i++)
		bag_close(e->bags[i]);
	free(e->bags);
	bag_expr_free(e->filter);
	free(e);
}

/* The marked range: [*t0, *t1] from the marks (and the selection when there is one mark). */
static bool marked_range(struct app *app, int64_t *t0, int64_t *t1)
{
	int64_t sel = model_time(&app->m);

	if (app->marks.n == 0)
		return false;
	*t0 = (int64_t)app->marks.v[0];
	*t1 = (int64_t)app->marks.v[2 * (app->marks.n - 1)];
	if (app->marks.n == 1) {
		*t0 = sel < *t0 ? sel : *t0;
		*t1 = sel > *t1 ? sel : *t1;
	}
	return true;
}

bool app_export_prefill(struct app *app, char *buf, size_t cap)
{
	int64_t t0, t1;
	const char *base = app_base_name(bag_path(app->cb.bags[0]));
	size_t len = strlen(base);

	if (app->export != NULL) {
		snprintf(app->m.note, sizeof app->m.note, "a write is running: Esc cancels it");
		return false;
	}
	if (!marked_range(app, &t0, &t1)) {
		snprintf(app->m.note, sizeof app->m.note, "no marks: mark the first and the last message "
		         "with m, then W writes them and what lies between");
		return false;
	}
	if (len > 4 && strcmp(base + len - 4, ".bag") == 0)
		len -= 4;
	/* a name no file has yet: base-T0-T1.bag, then base-T0-T1-2.bag ... */
	for (int k = 1; k < 1000; k++) {
		char n[16] = "";
		if (k > 1)
			snprintf(n, sizeof n, "-%d", k);
		snprintf(buf, cap, "%.*s-%lld-%lld%s.bag", (int)(len > 120 ? 120 : len), base,
		         (long long)(t0 / BAG_NSEC_PER_SEC), (long long)(t1 / BAG_NSEC_PER_SEC), n);
		if (access(buf, F_OK) != 0)
			break;
	}
	return true;
}

static void export_start(struct app *app, const char *out, bool force);

void app_export_start(struct app *app, const char *out)
{
	export_start(app, out, false);
}

void app_export_replace(struct app *app, const char *answer, const char *out)
{
	if (out != NULL && (strcmp(answer, "y") == 0 || strcmp(answer, "yes") == 0))
		export_start(app, out, true);
	else
		snprintf(app->m.note, sizeof app->m.note, "not written: %.300s kept", out ? out : "the file");
}

static void export_start(struct app *app, const char *out, bool force)
{
	struct exportjob *e;
	struct bag_query q;
	int64_t t0, t1;
	size_t nconns = bag_timeline_conn_count(app->cb.tl);
	bool *mask = NULL;
	const char *why = "out of memory";

	if (out[0] == '\0' || app->export != NULL || !marked_range(app, &t0, &t1))
		return;
	e = calloc(1, sizeof *e);
	if (e == NULL)
		goto fail;
	e->job.rd = e->job.wr = -1;
	snprintf(e->out, sizeof e->out, "%s", out);
	e->force = force;
	e->bags = calloc(app->cb.nbags ? app->cb.nbags : 1, sizeof *e->bags);
	mask = calloc(nconns ? nconns : 1, sizeof *mask);
	if (e->bags == NULL || mask == NULL)
		goto fail;
	for (size_t i = 0; i < app->cb.nbags; i++, e->nbags++)
		if (bag_dup(&e->bags[i], app->cb.bags[i]) != BAG_OK)
			goto fail;
	if (bag_timeline_open(&e->tl, e->bags, e->nbags) != BAG_OK)
		goto fail;
	for (size_t i = 0; i < nconns; i++)
		mask[i] = bag_view_selects(app->m.view, i);
	bag_query_init(&q);
	q.start_ns = t0;
	q.end_ns = t1;
	q.conn_mask = mask;
	if (bag_view_open(&e->view, e->tl, &q) != BAG_OK) {
		why = bag_view_error(e->view)->message;
		goto fail;
	}
	if (app->m.filtered && app->find.filter_text[0] &&
	    bag_expr_parse(&e->filter, app->find.filter_text, strlen(app->find.filter_text)) != BAG_OK) {
		why = bag_expr_error(e->filter)->message;
		goto fail;
	}
	if (bgjob_init(&e->job) != 0) {
		why = "cannot make a pipe";
		goto fail;
	}
	if (bgjob_start(&e->job, run, e) != 0) {
		why = "cannot start a thread";
		goto fail;
	}
	free(mask);
	app->export = e;
	snprintf(app->m.note, sizeof app->m.note, "writing %s: starting (Esc cancels)", out);
	return;
fail:
	snprintf(app->m.note, sizeof app->m.note, "cannot write %s: %s", out, why);
	free(mask);
	job_free(e);
}

int app_export_fd(const struct app *app)
{
	return app->export ? bgjob_fd(&app->export->job) : -1;
}

bool app_export_running(const struct app *app)
{
	return app->export != NULL;
}

bool app_export_cancel(struct app *app)
{
	if (app->export == NULL)
		return false;
	__atomic_store_n(&app->export->cancel, true, __ATOMIC_RELAXED);
	return true;
}

void app_export_poll(struct app *app)
{
	struct exportjob *e = app->export;

	if (e == NULL)
		return;
	bgjob_drain(&e->job);
	if (!__atomic_load_n(&e->finished, __ATOMIC_ACQUIRE)) {
		uint64_t done = __atomic_load_n(&e->done, __ATOMIC_RELAXED);
		uint64_t total = __atomic_load_n(&e->total, __ATOMIC_RELAXED);
		/* the figure first: a long name wraps after it */
		snprintf(app->m.note, sizeof app->m.note, "writing: %llu%% (Esc cancels) to %.300s",
		         total ? (unsigned long long)(done * 100 / total) : 0ULL, e->out);
		return;
	}
	bgjob_join(&e->job);
	if (e->rc == BAG_OK)
		snprintf(app->m.note, sizeof app->m.note, "wrote %.300s: %llu message%s on %zu connection%s, %.1f MB%s",
		         e->out, (unsigned long long)e->res.messages, BAG_S(e->res.messages), e->res.connections,
		         BAG_S(e->res.connections),
		         (double)e->res.bytes / 1e6, e->res.lost ? " (some could not be read: see L)" : "");
	else if (e->rc == BAG_ECANCELED)
		snprintf(app->m.note, sizeof app->m.note, "writing %.300s cancelled: nothing written", e->out);
	else
		snprintf(app->m.note, sizeof app->m.note, "cannot write %.300s: %s", e->out, e->err.message);
	job_free(e);
	app->export = NULL;
}

void app_export_stop(struct app *app)
{
	if (app->export == NULL)
		return;
	app_export_cancel(app);
	job_free(app->export);
	app->export = NULL;
}
