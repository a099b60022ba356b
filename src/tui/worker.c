/*
 * worker.c - the chunk-reading thread (see worker.h).
 *
 * One mutex guards every field shared with the main thread: the request
 * slots (rows, pre, detail, search, density), the result queue and the
 * flags. The thread takes one unit of work under the lock, does it without
 * the lock, then posts its result under the lock and writes one byte to the
 * pipe (non-blocking; a full pipe already wakes the main loop). Requests are
 * replaced, not queued: the main thread always says what it wants now.
 *
 * The thread's own state (bags, timeline, definitions, the search view)
 * is touched by the thread alone.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bagscope/bagscope.h>

#include "tui/model.h"
#include "tui/worker.h"

#define SUMMARY_MAX 240
#define SEARCH_STEP_NS 8000000LL

struct worker {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int pipe[2];            /* results signal: [0] main reads, [1] worker writes */
	bool quit;              /* main asks the thread to end */
	bool busy;              /* the thread is doing something */

	/* requests (under lock) */
	struct msg_ref *rows;   /* visible rows wanted */
	size_t nrows, caprows;
	struct msg_ref *pre;    /* prefetch rows */
	size_t npre, cappre;
	bool detail_want;
	struct msg_ref detail;
	bool search_new;        /* a search job was posted */
	bool search_stop;       /* cancel the running search */
	bool *search_mask;
	char *search_needle;
	uint64_t search_from;
	int search_dir;
	uint64_t search_gen;
	bool density_want;
	bool *density_masks;
	size_t density_ntopics;
	int density_cols;
	int64_t density_t0, density_t1;
	uint64_t density_gen;

	/* results (under lock) */
	struct result *res;
	size_t nres, capres, headres;

	/* thread-only state */
	char **paths;
	size_t npaths;
	size_t nconns;
	bag_t **bags;
	bag_timeline_t *tl;
	bag_msgdef_t **defs;
	int *def_rc;
	struct bag_text text;
	/* the running search */
	bool searching;
	bag_view_t *sview;
	char *needle;
	uint64_t srow, sgen, sdone;
	int sdir;
};

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * BAG_NSEC_PER_SEC + ts.tv_nsec;
}

/* Post a result (takes ownership of its pointers). */
static void post(struct worker *w, struct result *r)
{
	char b = 1;

	pthread_mutex_lock(&w->lock);
	if (w->nres == w->capres) {
		size_t cap = w->capres ? w->capres * 2 : 64;
		struct result *p = malloc(cap * sizeof *p);
		if (p == NULL) {
			pthread_mutex_unlock(&w->lock);
			result_free(r);
			return;
		}
		for (size_t i = 0; i < w->nres; i++)
			p[i] = w->res[(w->headres + i) % w->capres];
		free(w->res);
		w->res = p;
		w->capres = cap;
		w->headres = 0;
	}
	w->res[(w->headres + w->nres++) % w->capres] = *r;
	pthread_mutex_unlock(&w->lock);
	if (write(w->pipe[1], &b, 1) < 0 && errno != EAGAIN)
		return;
}

static void post_error(struct worker *w, enum result_kind kind, const char *msg)
{
	struct result r = { .kind = kind, .failed = true, .text = strdup(msg) };
	post(w, &r);
}

/* Connection conn_index's definition, parsed on first use; NULL if bad. */
static bag_msgdef_t *def_of(struct worker *w, uint32_t conn_index)
{
	const struct bag_connection *c;

	if (conn_index >= w->nconns)
		return NULL;
	if (w->defs[conn_index] == NULL && w->def_rc[conn_index] == BAG_OK) {
		c = bag_timeline_conn(w->tl, conn_index, NULL);
		w->def_rc[conn_index] = bag_msgdef_parse(&w->defs[conn_index], c->type, c->definition,
		                                         strlen(c->definition));
	}
	return w->def_rc[conn_index] == BAG_OK ? w->defs[conn_index] : NULL;
}

/* Read one row's bytes and summary. */
static void do_row(struct worker *w, const struct msg_ref *ref)
{
	struct result r = { .kind = RES_ROW, .ref = *ref };
	const uint8_t *data;
	uint32_t size;
	char err[256];
	bag_t *bag = ref->bag_index < w->npaths ? w->bags[ref->bag_index] : NULL;
	int rc;

	if (bag == NULL)
		return;
	rc = bag_message_read(bag, ref->chunk, ref->offset, ref->conn_id, ref->time_ns, &data, &size);
	if (rc != BAG_OK) {
		r.failed = true;
		r.text = strdup(bag_errmsg(bag));
		post(w, &r);
		return;
	}
	r.size = size;
	bag_msgdef_t *def = def_of(w, ref->conn_index);
	w->text.len = 0;
	if (def == NULL) {
		r.failed = true;
		r.text = strdup("bad message definition");
	} else if (bag_print_summary(&w->text, def, data, size, SUMMARY_MAX, err, sizeof err) != BAG_OK) {
		r.failed = true;
		r.text = strdup(err);
	} else {
		r.text = strndup(w->text.p ? w->text.p : "", w->text.len);
	}
	bag_chunk_unpin(bag, ref->chunk);
	post(w, &r);
}

static void do_detail(struct worker *w, const struct msg_ref *ref)
{
	struct result r = { .kind = RES_DETAIL, .ref = *ref };
	const uint8_t *data;
	uint32_t size;
	bag_t *bag = ref->bag_index < w->npaths ? w->bags[ref->bag_index] : NULL;

	if (bag == NULL)
		return;
	if (bag_message_read(bag, ref->chunk, ref->offset, ref->conn_id, ref->time_ns, &data, &size) != BAG_OK) {
		r.failed = true;
		r.text = strdup(bag_errmsg(bag));
	} else {
		r.size = size;
		r.bytes = malloc(size ? size : 1);
		if (r.bytes != NULL)
			memcpy(r.bytes, data, size);
		else
			r.failed = true;
		bag_chunk_unpin(bag, ref->chunk);
	}
	post(w, &r);
}

/* Start the search the main thread posted (called with the job copied out). */
static void search_begin(struct worker *w, bool *mask, char *needle, uint64_t from, int dir, uint64_t gen)
{
	struct bag_query q;

	bag_view_free(w->sview);
	w->sview = NULL;
	free(w->needle);
	w->needle = needle;
	w->searching = false;
	bag_query_init(&q);
	q.conn_mask = mask;
	if (bag_view_open(&w->sview, w->tl, &q) != BAG_OK) {
		struct result r = { .kind = RES_SEARCH_DONE, .gen = gen, .failed = true,
		                    .text = strdup(bag_view_errmsg(w->sview)) };
		post(w, &r);
	} else {
		w->searching = true;
		w->srow = from;
		w->sdir = dir;
		w->sgen = gen;
		w->sdone = 0;
	}
	free(mask);
}

/* Search for a few milliseconds; post progress or the outcome. */
static void search_step(struct worker *w)
{
	uint64_t count = bag_view_count(w->sview);
	int64_t deadline = mono_ns() + SEARCH_STEP_NS;
	struct bag_message m;
	char err[256];
	struct result r = { .gen = w->sgen };

	while (mono_ns() < deadline) {
		for (int k = 0; k < 64; k++) {
			if (w->srow >= count) {   /* ran off either end (backward wraps to UINT64_MAX) */
				r.kind = RES_SEARCH_DONE;
				r.found = false;
				w->searching = false;
				post(w, &r);
				return;
			}
			if (bag_view_read(w->sview, w->srow, &m) == BAG_OK) {
				bag_msgdef_t *def = def_of(w, m.conn_index);
				w->text.len = 0;
				bag_text_append(&w->text, m.conn->topic, strlen(m.conn->topic));
				bag_text_append(&w->text, "\n", 1);
				if (def != NULL)
					bag_print_yaml(&w->text, def, m.data, m.size, err, sizeof err);
				if (w->text.p != NULL && smartcase_find(w->text.p, w->text.len, w->needle) != NULL) {
					r.kind = RES_SEARCH_DONE;
					r.found = true;
					r.row = w->srow;
					w->searching = false;
					post(w, &r);
					return;
				}
			}
			w->sdone++;
			w->srow = w->sdir > 0 ? w->srow + 1 : w->srow - 1;
		}
	}
	r.kind = RES_SEARCH_STEP;
	r.done = w->sdone;
	r.total = w->sdir > 0 ? count - (w->srow - w->sdone) : w->srow + w->sdone + 1;
	r.row = w->srow;
	post(w, &r);
}

static void do_density(struct worker *w, bool *masks, size_t ntopics, int cols, int64_t t0, int64_t t1,
                       uint64_t gen)
{
	struct result r = { .kind = RES_DENSITY, .gen = gen, .ntopics = ntopics, .cols = cols };
	struct bag_query q;

	r.counts = calloc(ntopics * (size_t)cols + 1, sizeof *r.counts);
	if (r.counts == NULL)
		goto done;
	for (size_t k = 0; k < ntopics; k++) {
		bag_view_t *v = NULL;
		uint64_t prev = 0, row;
		bag_query_init(&q);
		q.conn_mask = masks + k * w->nconns;
		if (bag_view_open(&v, w->tl, &q) != BAG_OK) {
			bag_view_free(v);
			continue;
		}
		for (int c = 1; c <= cols; c++) {
			int64_t t = c == cols ? t1 + 1 : t0 + (int64_t)((double)(t1 - t0) * c / cols);
			if (bag_view_seek(v, t, &row) != BAG_OK)
				break;
			r.counts[k * (size_t)cols + (size_t)(c - 1)] = (uint32_t)(row - prev);
			prev = row;
		}
		bag_view_free(v);
	}
done:
	free(masks);
	post(w, &r);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct msg_ref ref;
	int rc;

	w->bags = calloc(w->npaths, sizeof *w->bags);
	if (w->bags == NULL) {
		post_error(w, RES_FAILED, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < w->npaths; i++) {
		if ((rc = bag_open(&w->bags[i], w->paths[i], NULL)) != BAG_OK) {
			post_error(w, RES_FAILED, w->bags[i] ? bag_errmsg(w->bags[i]) : bag_strerror(rc));
			return NULL;
		}
	}
	if (bag_timeline_open(&w->tl, w->bags, w->npaths) != BAG_OK) {
		post_error(w, RES_FAILED, bag_timeline_errmsg(w->tl));
		return NULL;
	}
	w->nconns = bag_timeline_conn_count(w->tl);
	w->defs = calloc(w->nconns + 1, sizeof *w->defs);
	w->def_rc = calloc(w->nconns + 1, sizeof *w->def_rc);
	if (w->defs == NULL || w->def_rc == NULL) {
		post_error(w, RES_FAILED, "out of memory");
		return NULL;
	}
	struct result ready = { .kind = RES_READY };
	post(w, &ready);

	pthread_mutex_lock(&w->lock);
	for (;;) {
		w->busy = false;
		while (!w->quit && !w->detail_want && w->nrows == 0 && w->npre == 0 && !w->search_new &&
		       !w->search_stop && !w->searching && !w->density_want)
			pthread_cond_wait(&w->cond, &w->lock);
		if (w->quit)
			break;
		w->busy = true;
		if (w->detail_want) {
			ref = w->detail;
			w->detail_want = false;
			pthread_mutex_unlock(&w->lock);
			do_detail(w, &ref);
		} else if (w->nrows > 0) {
			ref = w->rows[--w->nrows];
			pthread_mutex_unlock(&w->lock);
			do_row(w, &ref);
		} else if (w->search_stop || w->search_new) {
			bool start = w->search_new;
			bool *mask = w->search_mask;
			char *needle = w->search_needle;
			uint64_t from = w->search_from, gen = w->search_gen;
			int dir = w->search_dir;
			w->search_stop = w->search_new = false;
			w->search_mask = NULL;
			w->search_needle = NULL;
			pthread_mutex_unlock(&w->lock);
			w->searching = false;
			if (start)
				search_begin(w, mask, needle, from, dir, gen);
			else {
				free(mask);
				free(needle);
			}
		} else if (w->npre > 0) {
			ref = w->pre[--w->npre];
			pthread_mutex_unlock(&w->lock);
			do_row(w, &ref);
		} else if (w->density_want) {
			bool *masks = w->density_masks;
			size_t ntopics = w->density_ntopics;
			int cols = w->density_cols;
			int64_t t0 = w->density_t0, t1 = w->density_t1;
			uint64_t gen = w->density_gen;
			w->density_want = false;
			w->density_masks = NULL;
			pthread_mutex_unlock(&w->lock);
			do_density(w, masks, ntopics, cols, t0, t1, gen);
		} else {
			pthread_mutex_unlock(&w->lock);
			search_step(w);
		}
		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int worker_start(struct worker **out, char *const *paths, size_t npaths)
{
	struct worker *w = calloc(1, sizeof *w);

	*out = NULL;
	if (w == NULL)
		return BAG_ENOMEM;
	w->pipe[0] = w->pipe[1] = -1;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	w->paths = calloc(npaths, sizeof *w->paths);
	if (w->paths == NULL)
		goto fail;
	for (size_t i = 0; i < npaths; i++, w->npaths++)
		if ((w->paths[i] = strdup(paths[i])) == NULL)
			goto fail;
	if (pipe2(w->pipe, O_CLOEXEC | O_NONBLOCK) != 0)
		goto fail;
	if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
		goto fail;
	*out = w;
	return BAG_OK;
fail:
	for (size_t i = 0; i < w->npaths; i++)
		free(w->paths[i]);
	free(w->paths);
	if (w->pipe[0] >= 0) {
		close(w->pipe[0]);
		close(w->pipe[1]);
	}
	free(w);
	return BAG_ENOMEM;
}

void worker_stop(struct worker *w)
{
	struct result r;

	if (w == NULL)
		return;
	pthread_mutex_lock(&w->lock);
	w->quit = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	while (w->nres > 0) {
		r = w->res[w->headres];
		w->headres = (w->headres + 1) % w->capres;
		w->nres--;
		result_free(&r);
	}
	free(w->res);
	free(w->rows);
	free(w->pre);
	free(w->search_mask);
	free(w->search_needle);
	free(w->density_masks);
	bag_view_free(w->sview);
	free(w->needle);
	for (size_t i = 0; w->defs != NULL && i < w->nconns; i++)
		bag_msgdef_free(w->defs[i]);
	free(w->defs);
	free(w->def_rc);
	bag_text_free(&w->text);
	bag_timeline_free(w->tl);
	for (size_t i = 0; i < w->npaths; i++) {
		if (w->bags != NULL)
			bag_close(w->bags[i]);
		free(w->paths[i]);
	}
	free(w->bags);
	free(w->paths);
	close(w->pipe[0]);
	close(w->pipe[1]);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->cond);
	free(w);
}

int worker_fd(const struct worker *w)
{
	return w->pipe[0];
}

bool worker_take(struct worker *w, struct result *out)
{
	char buf[256];
	bool got = false;

	pthread_mutex_lock(&w->lock);
	if (w->nres > 0) {
		*out = w->res[w->headres];
		w->headres = (w->headres + 1) % w->capres;
		w->nres--;
		got = true;
	} else {
		while (read(w->pipe[0], buf, sizeof buf) > 0)
			;
	}
	pthread_mutex_unlock(&w->lock);
	return got;
}

void result_free(struct result *r)
{
	free(r->text);
	free(r->bytes);
	free(r->counts);
	r->text = NULL;
	r->bytes = NULL;
	r->counts = NULL;
}

/* Copy n refs into a growable array. */
static void set_refs(struct msg_ref **dst, size_t *ndst, size_t *cap, const struct msg_ref *src, size_t n)
{
	if (n > *cap) {
		struct msg_ref *p = realloc(*dst, n * sizeof *p);
		if (p == NULL) {
			*ndst = 0;
			return;
		}
		*dst = p;
		*cap = n;
	}
	/* reversed: the thread pops from the end, so the first row comes first */
	for (size_t i = 0; i < n; i++)
		(*dst)[i] = src[n - 1 - i];
	*ndst = n;
}

void worker_want_rows(struct worker *w, const struct msg_ref *rows, size_t n,
                      const struct msg_ref *pre, size_t npre)
{
	pthread_mutex_lock(&w->lock);
	set_refs(&w->rows, &w->nrows, &w->caprows, rows, n);
	set_refs(&w->pre, &w->npre, &w->cappre, pre, npre);
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

void worker_want_detail(struct worker *w, const struct msg_ref *ref)
{
	pthread_mutex_lock(&w->lock);
	w->detail = *ref;
	w->detail_want = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

void worker_search(struct worker *w, const bool *mask, size_t nconns, const char *needle,
                   uint64_t from, int dir, uint64_t gen)
{
	bool *m = malloc(nconns ? nconns * sizeof *m : 1);
	char *n = strdup(needle);

	if (m == NULL || n == NULL) {
		free(m);
		free(n);
		return;
	}
	memcpy(m, mask, nconns * sizeof *m);
	pthread_mutex_lock(&w->lock);
	free(w->search_mask);
	free(w->search_needle);
	w->search_mask = m;
	w->search_needle = n;
	w->search_from = from;
	w->search_dir = dir;
	w->search_gen = gen;
	w->search_new = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

void worker_search_cancel(struct worker *w)
{
	pthread_mutex_lock(&w->lock);
	w->search_new = false;
	w->search_stop = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

void worker_density(struct worker *w, const bool *masks, size_t ntopics, size_t nconns,
                    int cols, int64_t t0, int64_t t1, uint64_t gen)
{
	bool *m = malloc(ntopics * nconns * sizeof *m + 1);

	if (m == NULL)
		return;
	memcpy(m, masks, ntopics * nconns * sizeof *m);
	pthread_mutex_lock(&w->lock);
	free(w->density_masks);
	w->density_masks = m;
	w->density_ntopics = ntopics;
	w->density_cols = cols;
	w->density_t0 = t0;
	w->density_t1 = t1;
	w->density_gen = gen;
	w->density_want = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

bool worker_busy(struct worker *w)
{
	bool b;

	pthread_mutex_lock(&w->lock);
	b = w->busy || w->nrows > 0 || w->detail_want;
	pthread_mutex_unlock(&w->lock);
	return b;
}
