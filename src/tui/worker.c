/*
 * worker.c - the decoding thread (see worker.h).
 *
 * Requests and results are two arrays behind one mutex; the thread sleeps on
 * a condition variable while there are no requests. Each request is served
 * from the worker's own bag handles and chunk caches; definitions are parsed
 * once per connection. After each batch of results one byte is written to a
 * pipe, which the main loop polls with the keyboard.
 *
 * Index groups to warm (worker_warm) come first: warm[0..nwarm) is a stack,
 * the newest on top, at most MAX_WARM (the oldest dropped); warm_state[g]
 * is 0 (not asked), 1 (queued or being fetched) or 2 (fetched).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/worker.h"
#include "tui/bgjob.h"
#include "tui/detail.h"

#define MAX_PENDING 4096
#define MAX_RESULTS 4096
#define MAX_WARM 64

struct worker {
	bag_t **bags;
	size_t nbags;
	bag_msgdef_t ***defs;        /* per bag, per connection index */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
	struct work_item pending[MAX_PENDING];
	size_t npending;
	struct work_result results[MAX_RESULTS];
	size_t nresults;
	uint64_t done;
	struct bgjob job;            /* the thread, and the pipe that wakes the loop */
	work_extra_fn extra;
	void *extra_arg;
	const bag_timeline_t *tl;    /* of the groups warmed */
	size_t warm[MAX_WARM];
	size_t nwarm;
	bool warming;                /* one is being fetched */
	bool serving;                /* a request is being read */
	uint8_t *warm_state;
	size_t warm_cap;
};

/* Read and summarise one message into *r. */
static void serve(struct worker *w, const struct work_item *it, struct work_result *r, struct bag_text *t)
{
	bag_t *bag = w->bags[it->bag];
	const uint8_t *data;
	uint32_t size;
	const struct bag_connection *c;
	bag_msgdef_t **def;
	struct bag_error err;

	memset(r, 0, sizeof *r);
	r->key = it->key;
	r->rc = bag_message_read(bag, it->chunk, it->offset, it->conn_id, it->time_ns, &data, &size);
	if (r->rc != BAG_OK) {
		detail_problem_first(bag_last_error(bag)->message, r->summary, sizeof r->summary);
		return;
	}
	r->size = size;
	c = bag_conn_by_id(bag, it->conn_id);
	def = &w->defs[it->bag][c->index];
	if (*def == NULL && bag_conn_has_definition(c))
		bag_conn_msgdef_parse(def, c);
	if (!bag_conn_has_definition(c)) {
		snprintf(r->summary, sizeof r->summary, "(no definition: %s)", c->type);
	} else if (bag_msgdef_root(*def) == NULL) {
		snprintf(r->summary, sizeof r->summary, "bad definition: %.*s", 150, bag_msgdef_error(*def)->message);
		r->rc = BAG_EDEFINITION;
	} else {
		t->len = 0;
		r->rc = bag_print_summary(t, *def, data, size, sizeof r->summary - 1, &err);
		snprintf(r->summary, sizeof r->summary, "%.*s", (int)sizeof r->summary - 1, r->rc == BAG_OK ? (t->len ? t->p : "") : err.message);
	}
	pthread_mutex_lock(&w->lock);
	work_extra_fn extra = w->extra;
	void *extra_arg = w->extra_arg;
	pthread_mutex_unlock(&w->lock);
	if (extra != NULL) {
		t->len = 0;
		extra(extra_arg, it->bag, c->index, data, size, it->time_ns, t);
		snprintf(r->cols, sizeof r->cols, "%s", t->len ? t->p : "");
	}
	if (it->want_bytes) {
		r->bytes = malloc(size ? size : 1);
		if (r->bytes != NULL)
			memcpy(r->bytes, data, size);
	}
	bag_chunk_unpin(bag, it->chunk);
}

static void *run(void *arg)
{
	struct worker *w = arg;
	struct bag_text t = { 0 };
	struct work_item it;
	struct work_result r;

	pthread_mutex_lock(&w->lock);
	while (!w->stop) {
		if (w->nwarm > 0) {
			size_t g = w->warm[--w->nwarm];
			w->warming = true;
			pthread_mutex_unlock(&w->lock);
			/* a failure: the load reports it; a cancel: asked again later */
			int rc = bag_timeline_warm(w->tl, g, w->bags);
			pthread_mutex_lock(&w->lock);
			w->warm_state[g] = rc == BAG_ECANCELED ? 0 : 2;
			w->warming = false;
			bgjob_wake(&w->job);
			continue;
		}
		if (w->npending == 0 || w->nresults == MAX_RESULTS) {
			pthread_cond_wait(&w->wake, &w->lock);
			continue;
		}
		it = w->pending[0];
		memmove(w->pending, w->pending + 1, --w->npending * sizeof *w->pending);
		w->serving = true;
		pthread_mutex_unlock(&w->lock);
		serve(w, &it, &r, &t);
		pthread_mutex_lock(&w->lock);
		w->serving = false;
		w->results[w->nresults++] = r;
		w->done++;
		if (w->npending == 0 || w->nresults % 16 == 1)
			bgjob_wake(&w->job);
	}
	pthread_mutex_unlock(&w->lock);
	bag_text_free(&t);
	return NULL;
}

int worker_start(struct worker **out, bag_t *const *bags, size_t n)
{
	struct worker *w = calloc(1, sizeof *w);
	int rc = BAG_ENOMEM;

	*out = w;
	if (w == NULL)
		return BAG_ENOMEM;
	w->job.rd = w->job.wr = -1;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	w->bags = calloc(n, sizeof *w->bags);
	w->defs = calloc(n, sizeof *w->defs);
	if (w->bags == NULL || w->defs == NULL)
		return BAG_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		w->nbags++;
		if ((rc = bag_dup(&w->bags[i], bags[i])) != BAG_OK)
			return rc;
		w->defs[i] = calloc(bag_conn_count(w->bags[i]) + 1, sizeof **w->defs);
		if (w->defs[i] == NULL)
			return BAG_ENOMEM;
	}
	if (bgjob_init(&w->job) != 0)
		return BAG_EIO;
	if (bgjob_start(&w->job, run, w) != 0)
		return BAG_ENOMEM;
	return BAG_OK;
}

void worker_stop(struct worker *w)
{
	if (w == NULL)
		return;
	if (w->job.started) {
		pthread_mutex_lock(&w->lock);
		w->stop = true;
		pthread_cond_signal(&w->wake);
		pthread_mutex_unlock(&w->lock);
	}
	bgjob_close(&w->job);
	for (size_t i = 0; i < w->nresults; i++)
		free(w->results[i].bytes);
	for (size_t b = 0; b < w->nbags; b++) {
		for (size_t c = 0; w->defs[b] != NULL && c < bag_conn_count(w->bags[b]); c++)
			bag_msgdef_free(w->defs[b][c]);
		free(w->defs[b]);
		bag_close(w->bags[b]);
	}
	free(w->defs);
	free(w->bags);
	free(w->warm_state);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->wake);
	free(w);
}

void worker_request(struct worker *w, const struct work_item *items, size_t n)
{
	pthread_mutex_lock(&w->lock);
	w->npending = n < MAX_PENDING ? n : MAX_PENDING;
	if (w->npending > 0)   /* items may be NULL with n 0: nothing asked */
		memcpy(w->pending, items, w->npending * sizeof *items);
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
}

void worker_set_extra(struct worker *w, work_extra_fn fn, void *arg)
{
	pthread_mutex_lock(&w->lock);
	w->extra = fn;
	w->extra_arg = arg;
	pthread_mutex_unlock(&w->lock);
}

int worker_fd(const struct worker *w)
{
	return bgjob_fd(&w->job);
}

size_t worker_take(struct worker *w, struct work_result *out, size_t max)
{
	size_t n;

	bgjob_drain(&w->job);
	pthread_mutex_lock(&w->lock);
	n = w->nresults < max ? w->nresults : max;
	memcpy(out, w->results, n * sizeof *out);
	memmove(w->results, w->results + n, (w->nresults - n) * sizeof *out);
	w->nresults -= n;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	return n;
}

void worker_stats(struct worker *w, uint64_t *done, size_t *pending)
{
	pthread_mutex_lock(&w->lock);
	*done = w->done;
	*pending = w->npending;
	pthread_mutex_unlock(&w->lock);
}

bool worker_warm(struct worker *w, const bag_timeline_t *tl, size_t group)
{
	bool done;

	pthread_mutex_lock(&w->lock);
	if (group >= w->warm_cap) {
		size_t cap = (group + 1) * 2;
		uint8_t *st = realloc(w->warm_state, cap);
		if (st == NULL) {
			pthread_mutex_unlock(&w->lock);
			return true;   /* no room to track it: load it as before */
		}
		memset(st + w->warm_cap, 0, cap - w->warm_cap);
		w->warm_state = st;
		w->warm_cap = cap;
	}
	w->tl = tl;
	done = w->warm_state[group] == 2;
	if (w->warm_state[group] == 0) {
		if (w->nwarm == MAX_WARM) {
			w->warm_state[w->warm[0]] = 0;
			memmove(w->warm, w->warm + 1, --w->nwarm * sizeof *w->warm);
		}
		w->warm[w->nwarm++] = group;
		w->warm_state[group] = 1;
		pthread_cond_signal(&w->wake);
	}
	pthread_mutex_unlock(&w->lock);
	return done;
}

bool worker_warm_done(struct worker *w, size_t group)
{
	bool done;

	pthread_mutex_lock(&w->lock);
	done = group < w->warm_cap && w->warm_state[group] == 2;
	pthread_mutex_unlock(&w->lock);
	return done;
}

size_t worker_warming(struct worker *w)
{
	size_t n;

	pthread_mutex_lock(&w->lock);
	n = w->nwarm + w->warming;
	pthread_mutex_unlock(&w->lock);
	return n;
}

void worker_warm_cancel(struct worker *w)
{
	pthread_mutex_lock(&w->lock);
	for (size_t i = 0; i < w->nwarm; i++)
		w->warm_state[w->warm[i]] = 0;
	w->nwarm = 0;
	pthread_mutex_unlock(&w->lock);
}

bool worker_busy(struct worker *w)
{
	bool busy;

	pthread_mutex_lock(&w->lock);
	busy = w->nwarm > 0 || w->warming || w->npending > 0 || w->serving;
	pthread_mutex_unlock(&w->lock);
	return busy;
}
