/*
 * exportjob.c - W: write the marked range of the shown topics (and the
 * filter) to a new bag, through the library's bag_export() - the call
 * `bagscope export` makes - on a thread of its own, so the screen stays
 * live; Esc cancels.
 *
 * The range runs from the first mark to the last (with one mark: between it
 * and the selection, either way round), inclusive. The thread works on its
 * own bag_dup() handles, timeline and view; the main loop polls a pipe that
 * the thread writes to now and then with progress and once when done.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/app.h"

struct exportjob {
	pthread_t thread;
	bag_t **bags;             /* bag_dup() of each of the browser's */
	size_t nbags;
	bag_timeline_t *tl;
	bag_view_t *view;
	bag_expr_t *filter;
	char out[PATH_MAX];
	int pipe_rd, pipe_wr;
	uint64_t done, total;     /* rows passed (atomic) */
	bool cancel;              /* atomic */
	bool finished;            /* atomic: rc, err and res are set */
	int rc;
	struct bag_error err;
	struct bag_export_result res;
};

static int progress(void *arg, uint64_t done, uint64_t total)
{
	struct exportjob *e = arg;
	char b = 1;

	__atomic_store_n(&e->done, done, __ATOMIC_RELAXED);
	__atomic_store_n(&e->total, total, __ATOMIC_RELAXED);
	if (write(e->pipe_wr, &b, 1) < 0) {
		/* the pipe is full: the main loop has wakeups waiting already */
	}
	return __atomic_load_n(&e->cancel, __ATOMIC_RELAXED);
}

static void *run(void *arg)
{
	struct exportjob *e = arg;
	struct bag_export_opts o = BAG_EXPORT_OPTS_INIT;
	char b = 1;

	o.filter = e->filter;
	o.progress = progress;
	o.progress_arg = e;
	e->rc = bag_export(e->view, e->out, &o, &e->res, &e->err);
	__atomic_store_n(&e->finished, true, __ATOMIC_RELEASE);
	if (write(e->pipe_wr, &b, 1) < 0) {
		/* as above */
	}
	return NULL;
}

static void job_free(struct exportjob *e)
{
	if (e == NULL)
		return;
	bag_view_free(e->view);
	bag_timeline_free(e->tl);
	for (size_t i = 0; e->bags != NULL && i < e->nbags; i++)
		bag_close(e->bags[i]);
	free(e->bags);
	bag_expr_free(e->filter);
	if (e->pipe_rd >= 0)
		close(e->pipe_rd);
	if (e->pipe_wr >= 0)
		close(e->pipe_wr);
	free(e);
}

/* The marked range: [*t0, *t1] from the marks (and the selection when there is one mark). */
static bool marked_range(struct app *app, int64_t *t0, int64_t *t1)
{
	int64_t sel = model_time(&app->m);

	if (app->nmarks == 0)
		return false;
	*t0 = (int64_t)app->marks[0];
	*t1 = (int64_t)app->marks[2 * (app->nmarks - 1)];
	if (app->nmarks == 1) {
		*t0 = sel < *t0 ? sel : *t0;
		*t1 = sel > *t1 ? sel : *t1;
	}
	return true;
}

void app_export_prompt(struct app *app)
{
	int64_t t0, t1;
	const char *base;
	size_t len;

	if (app->export != NULL) {
		snprintf(app->m.note, sizeof app->m.note, "a write is running: Esc cancels it");
		return;
	}
	if (!marked_range(app, &t0, &t1)) {
		snprintf(app->m.note, sizeof app->m.note, "no marks: mark the first and the last message "
		         "with m, then W writes them and what lies between");
		return;
	}
	base = strrchr(bag_path(app->bags[0]), '/');
	base = base ? base + 1 : bag_path(app->bags[0]);
	len = strlen(base);
	if (len > 4 && strcmp(base + len - 4, ".bag") == 0)
		len -= 4;
	app->prompt = 'W';
	app->prompt_len = (size_t)snprintf(app->prompt_buf, sizeof app->prompt_buf, "%.*s-%lld-%lld.bag",
	                                   (int)(len > 120 ? 120 : len), base,
	                                   (long long)(t0 / BAG_NSEC_PER_SEC), (long long)(t1 / BAG_NSEC_PER_SEC));
	if (app->prompt_len >= sizeof app->prompt_buf)
		app->prompt_len = sizeof app->prompt_buf - 1;
}

void app_export_start(struct app *app, const char *out)
{
	struct exportjob *e;
	struct bag_query q;
	int64_t t0, t1;
	int fds[2];
	size_t nconns = bag_timeline_conn_count(app->tl);
	bool *mask = NULL;
	const char *why = "out of memory";

	if (out[0] == '\0' || app->export != NULL || !marked_range(app, &t0, &t1))
		return;
	e = calloc(1, sizeof *e);
	if (e == NULL)
		goto fail;
	e->pipe_rd = e->pipe_wr = -1;
	snprintf(e->out, sizeof e->out, "%s", out);
	e->bags = calloc(app->cb.nbags ? app->cb.nbags : 1, sizeof *e->bags);
	mask = calloc(nconns ? nconns : 1, sizeof *mask);
	if (e->bags == NULL || mask == NULL)
		goto fail;
	for (size_t i = 0; i < app->cb.nbags; i++, e->nbags++)
		if (bag_dup(&e->bags[i], app->bags[i]) != BAG_OK)
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
	if (app->m.filtered && app->filter_text[0] &&
	    bag_expr_parse(&e->filter, app->filter_text, strlen(app->filter_text)) != BAG_OK) {
		why = bag_expr_error(e->filter)->message;
		goto fail;
	}
	if (pipe(fds) != 0) {
		why = "cannot make a pipe";
		goto fail;
	}
	e->pipe_rd = fds[0];
	e->pipe_wr = fds[1];
	fcntl(e->pipe_rd, F_SETFL, O_NONBLOCK);
	fcntl(e->pipe_wr, F_SETFL, O_NONBLOCK);
	if (pthread_create(&e->thread, NULL, run, e) != 0) {
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
	return app->export ? app->export->pipe_rd : -1;
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
	char drain[64];

	if (e == NULL)
		return;
	while (read(e->pipe_rd, drain, sizeof drain) > 0)
		;
	if (!__atomic_load_n(&e->finished, __ATOMIC_ACQUIRE)) {
		uint64_t done = __atomic_load_n(&e->done, __ATOMIC_RELAXED);
		uint64_t total = __atomic_load_n(&e->total, __ATOMIC_RELAXED);
		snprintf(app->m.note, sizeof app->m.note, "writing %.300s: %llu%% (Esc cancels)", e->out,
		         total ? (unsigned long long)(done * 100 / total) : 0ULL);
		return;
	}
	pthread_join(e->thread, NULL);
	if (e->rc == BAG_OK)
		snprintf(app->m.note, sizeof app->m.note, "wrote %.300s: %llu messages on %zu connections, %.1f MB%s",
		         e->out, (unsigned long long)e->res.messages, e->res.connections,
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
	pthread_join(app->export->thread, NULL);
	job_free(app->export);
	app->export = NULL;
}
