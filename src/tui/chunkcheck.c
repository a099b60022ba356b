/*
 * chunkcheck.c - damage found early: once the bags are open, a thread
 * (dupjob.h: its own handles and timeline) first reads every chunk record's
 * header (a few bytes each: a chunk cut short, of an unknown compression,
 * is said at once), then runs the scan engine over every
 * row with a work function that drops each message, so that every chunk is
 * read and decompressed once, on one core, and nothing is decoded; what the
 * scan emits is then only the failures: a chunk that cannot be read (on its
 * first message) or a stretch of index that cannot be loaded (m->conn NULL,
 * its message naming the byte). The thread appends those to a list under a
 * lock; the main loop takes the list each turn into app->bad through
 * app_note_bad_chunk / app_note_bad_index, the same count the worker's
 * failures go to, so each chunk is counted once whoever finds it. The
 * check is a background dupjob (dupjob.h's hold): at the lowest CPU
 * priority, it takes only a core nothing else wants (on a bz2 bag, minutes
 * of one), and it waits while a search, a filter or a write runs, so it
 * never slows what the user asked for. Bags at a URL are not checked (it
 * would fetch the whole recording).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tui/app.h"
#include "tui/dupjob.h"

struct found {
	size_t bag, chunk;
	int rc;
};

struct chunkcheck {
	struct dupjob job;
	pthread_mutex_t lock;         /* what follows */
	struct found *v;              /* chunks found unreadable, not taken yet */
	size_t n, cap;
	struct bag_text index;        /* index failures' messages, one a line, not taken yet */
};

static int drop(void *arg, const struct bag_message *m, const bag_msgdef_t *def, struct bag_text *out)
{
	(void)arg;
	(void)m;
	(void)def;
	(void)out;
	return 1;
}

/* On the job's thread: chunk ch of bag b cannot be read (rc): it goes on the list. 0 or BAG_ENOMEM. */
static int note(struct chunkcheck *c, size_t b, size_t ch, int rc)
{
	int ret = 0;

	pthread_mutex_lock(&c->lock);
	if (c->n == c->cap) {
		struct found *nv = realloc(c->v, (c->cap * 2 + 16) * sizeof *nv);
		if (nv != NULL) {
			c->v = nv;
			c->cap = c->cap * 2 + 16;
		}
	}
	if (c->n < c->cap)
		c->v[c->n++] = (struct found){ b, ch, rc };
	else
		ret = BAG_ENOMEM;
	pthread_mutex_unlock(&c->lock);
	return ret;
}

/* On the job's thread, in order: a failure goes on the list. */
static int emit(void *arg, const struct bag_scan_item *it)
{
	struct chunkcheck *c = arg;

	if (it->rc == BAG_OK || it->rc == BAG_EDECODE || it->rc == BAG_EDEFINITION)
		return 0;
	if (it->m->conn != NULL)
		return note(c, it->m->bag_index, it->m->chunk, it->rc);
	pthread_mutex_lock(&c->lock);
	bag_text_append(&c->index, it->text, it->len);
	bag_text_append(&c->index, "\n", 1);
	pthread_mutex_unlock(&c->lock);
	return 0;
}

/* First every chunk record's header (a few bytes each): a chunk cut short or of an unknown compression, at once. */
static void headers(struct dupjob *j, struct chunkcheck *c)
{
	for (size_t b = 0; b < j->nbags; b++)
		for (size_t ch = 0; ch < bag_chunk_count(j->bags[b]) && !__atomic_load_n(&j->cancel, __ATOMIC_RELAXED); ch++) {
			struct bag_chunk_info info;
			int rc = bag_chunk_stat(j->bags[b], ch, &info);
			if (rc < 0 && note(c, b, ch, rc) != 0)
				return;
		}
}

static int run(struct dupjob *j, void *arg)
{
	struct bag_scan_opts o = BAG_SCAN_OPTS_INIT;
	bag_view_t *v = NULL;
	int rc;

	o.threads = 1;                /* a background check: the other core stays the user's */
	o.work = drop;
	o.emit = emit;
	o.arg = arg;
	o.progress = dupjob_progress;
	o.progress_arg = j;
	headers(j, arg);
	if ((rc = bag_view_open(&v, j->tl, NULL)) == BAG_OK)
		rc = bag_scan(v, &o, NULL);
	bag_view_free(v);
	return rc;
}

void app_check_start(struct app *app)
{
	struct chunkcheck *c;

	if (app_any_url(app) || (c = calloc(1, sizeof *c)) == NULL)
		return;
	pthread_mutex_init(&c->lock, NULL);
	c->job.hold = &app->user_busy;
	c->job.low = true;
	app->bad.check = c;
	if (dupjob_start(&c->job, app, run, c) != 0)
		dupjob_free(&c->job);    /* no early check: damage is found as the rows are read */
}

void app_check_take(struct app *app)
{
	struct chunkcheck *c = app->bad.check;

	if (c == NULL)
		return;
	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < c->n; i++)
		app_note_bad_chunk(app, work_key(c->v[i].bag, c->v[i].chunk, 0), c->v[i].rc);
	c->n = 0;
	for (char *s = c->index.p, *nl; s != NULL && c->index.len > 0 && (nl = strchr(s, '\n')) != NULL; s = nl + 1) {
		*nl = '\0';
		app_note_bad_index(app, s);
	}
	c->index.len = 0;
	pthread_mutex_unlock(&c->lock);
}

int app_check_percent(const struct app *app)
{
	const struct chunkcheck *c = app->bad.check;

	return c == NULL || !dupjob_running(&c->job) ? -1 : (int)dupjob_percent(&c->job);
}

void app_check_stop(struct app *app)
{
	struct chunkcheck *c = app->bad.check;

	if (c == NULL)
		return;
	dupjob_free(&c->job);
	pthread_mutex_destroy(&c->lock);
	free(c->v);
	bag_text_free(&c->index);
	free(c);
	app->bad.check = NULL;
}
