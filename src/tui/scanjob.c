/*
 * scanjob.c - searches and filters on the scan engine (see scanjob.h).
 *
 * The job thread sleeps on a condition variable until job_start() hands it
 * a request. It then opens views over its own timeline and runs bag_scan()
 * on them; the scan's workers do the per-message work (search_work: the
 * displayed text, matched line by line), its emit keeps what the job needs
 * in order. Shared state (the request, the job_state, the rows found and
 * not yet taken) sits behind one mutex; a byte on a pipe wakes the main
 * loop, at most every NOTIFY_NS unless the job has finished.
 *
 * Rows: a view over the same bags selecting the same connections numbers
 * its messages as the browser's view does, so a row found here is a row
 * there. A view with a start time numbers from the first message at or
 * after it: its row r is the full view's row base + r.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tui/detail.h"
#include "tui/match.h"
#include "tui/bgjob.h"
#include "common/bagset.h"
#include "tui/scanjob.h"
#include "tui/worker.h"

#define NOTIFY_NS 30000000LL
#define FLUSH_ROWS 4096

struct scanjob {
	bag_t **bags;
	size_t nbags;
	bag_timeline_t *tl;          /* the job thread's own */
	size_t nconns;
	bag_msgdef_t **defs;         /* per timeline connection, parsed on first use */
	struct bgjob job;            /* the job thread and the pipe that wakes the loop */
	pthread_mutex_t lock;
	pthread_cond_t wake, idle;
	bool quit;
	bool pending;                /* req holds a job to start */
	bool cancel;                 /* the running job should stop */
	struct job_req req;          /* the next job (conn_mask and pattern copied below) */
	bool *mask;                  /* req's connections */
	char pattern[256];
	char scope[256];             /* req's field path, "" for the whole text */
	struct job_state st;         /* shared; the main thread copies it */
	uint64_t *rows;              /* filter rows found, not yet taken */
	size_t nrows, caprows;
	bool changed;
	int64_t notified;            /* when the pipe was last written */
	/* the topics' median rates, on a thread of their own */
	struct bgjob rates_job;      /* its thread (no pipe) */
	size_t *rates_topic_of;      /* per timeline connection: its topic */
	size_t ntopics;
	double *rates;               /* per topic, Hz (0: fewer than two messages) */
	uint64_t *conn_counts;       /* per timeline connection, the messages the rates' pass met */
	bool rates_done;             /* rates holds them (under lock) */
	bool rates_taken;
};

/* One search or filter pass: what the callbacks need. */
struct pass {
	struct scanjob *j;
	struct matcher mt;
	struct matcher lit;          /* a regex's required literal, as a plain pattern */
	const struct matcher *pre;   /* what the message bytes must hold unless needs_text: mt or lit */
	bool *needs_text;            /* per connection: no byte prefilter (match_needs_text, match_string_only) */
	bool *name_match;            /* per connection: its topic or type matches */
	bool *never;                 /* per connection: no message can show the pattern */
	bag_finder_t **finders;      /* per connection: the pattern's (a regex's required) literal, or NULL */
	uint64_t base;               /* full-view row of this view's row 0 */
	uint64_t lo, hi;             /* accept full-view rows in [lo, hi) */
	bool last;                   /* keep the last match, not the first */
	bool found;
	bool stopped;                /* emit stopped the scan: nothing more to accept */
	uint64_t row;
	uint64_t *buf;               /* filter rows not yet flushed */
	size_t nbuf;
	uint64_t done_before;
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Wake the main loop (lock held); finished: whatever the last wake-up was. */
static void notify(struct scanjob *j, bool now)
{
	int64_t t = now_ns();

	j->changed = true;
	if (!now && t - j->notified < NOTIFY_NS)
		return;
	j->notified = t;
	bgjob_wake(&j->job);
}

static bag_msgdef_t *job_def(struct scanjob *j, size_t i)
{
	if (j->defs[i] == NULL) {
		const struct bag_connection *c = bag_timeline_conn(j->tl, i, NULL);
		bag_conn_msgdef_parse(&j->defs[i], c);
	}
	return j->defs[i];
}

/* A detail line to match: stop looking once one did. */
struct line_match {
	const struct matcher *mt;
	const char *scope;           /* a field path, or "" */
	bool hit;
};

static void match_line(void *arg, int depth, bool node, const char *text, size_t len, const char *path)
{
	struct line_match *lm = arg;
	size_t a, b;

	(void)depth, (void)node;
	if (!lm->hit && (lm->scope[0] == '\0' || match_in_scope(lm->scope, path)) &&
	    match_find(lm->mt, text, len, &a, &b))
		lm->hit = true;
}

/*
 * On a scan worker: whether the message shows the pattern anywhere: its
 * topic or type, its summary (as the list shows it) or a line of its
 * detail (with a scope, only that field's lines). The byte prefilter and
 * the finder (bagscope/find.h) rule most messages out without writing
 * their text. 0: it does (emit it); 1: it does not.
 */
static int search_work(void *arg, const struct bag_message *m, const bag_msgdef_t *def, struct bag_text *out)
{
	const struct pass *p = arg;
	struct bag_error err;
	size_t a, b;

	if (p->name_match[m->conn_index])
		return 0;
	if (def == NULL || p->never[m->conn_index])
		return 1;
	if (!p->needs_text[m->conn_index] && !match_in_bytes(p->pre, m->data, m->size))
		return 1;
	if (p->finders[m->conn_index] != NULL &&
	    !bag_finder_maybe(p->finders[m->conn_index], def, m->data, m->size, out))
		return 1;
	out->len = 0;
	if (p->j->scope[0] == '\0') {
		bag_print_summary(out, def, m->data, m->size, WORK_SUMMARY_MAX - 1, &err);
		for (size_t i = 0; i < out->len; i++)
			if (out->p[i] == '\n' || out->p[i] == '\t')
				out->p[i] = ' ';
		bool hit = out->len > 0 && match_find(&p->mt, out->p, out->len, &a, &b);
		out->len = 0;
		if (hit)
			return 0;
	}
	struct line_match lm = { &p->mt, p->j->scope, false };
	detail_decode_lines(def, m->data, m->size, match_line, &lm, &err);
	return lm.hit ? 0 : 1;
}

/* In order: the first (or last) match in the accepted rows. */
static int search_emit(void *arg, const struct bag_scan_item *it)
{
	struct pass *p = arg;
	uint64_t row = p->base + it->m->row;

	if (it->rc != BAG_OK || it->m->conn == NULL || row < p->lo || row >= p->hi) {
		p->stopped = row >= p->hi && !p->last;
		return p->stopped;
	}
	p->found = true;
	p->row = row;
	p->stopped = !p->last;
	return p->stopped;
}

static void flush_rows(struct pass *p)
{
	struct scanjob *j = p->j;

	pthread_mutex_lock(&j->lock);
	if (j->nrows + p->nbuf > j->caprows) {
		size_t cap = j->caprows ? j->caprows * 2 : 65536;
		while (cap < j->nrows + p->nbuf)
			cap *= 2;
		uint64_t *r = realloc(j->rows, cap * sizeof *r);
		if (r != NULL) {
			j->rows = r;
			j->caprows = cap;
		}
	}
	if (j->nrows + p->nbuf <= j->caprows) {
		memcpy(j->rows + j->nrows, p->buf, p->nbuf * sizeof *p->buf);
		j->nrows += p->nbuf;
	}
	p->nbuf = 0;
	notify(j, false);
	pthread_mutex_unlock(&j->lock);
}

/* In order: keep the rows that passed the filter. */
static int filter_emit(void *arg, const struct bag_scan_item *it)
{
	struct pass *p = arg;

	if (it->rc != BAG_OK) {
		pthread_mutex_lock(&p->j->lock);
		p->j->st.unreadable++;
		pthread_mutex_unlock(&p->j->lock);
		return 0;
	}
	p->buf[p->nbuf++] = p->base + it->m->row;
	if (p->nbuf == FLUSH_ROWS)
		flush_rows(p);
	return 0;
}

static int progress(void *arg, uint64_t done, uint64_t total)
{
	struct pass *p = arg;
	struct scanjob *j = p->j;
	bool cancel;

	if (p->nbuf > 0)
		flush_rows(p);
	pthread_mutex_lock(&j->lock);
	j->st.done = p->done_before + done;
	j->st.total = p->done_before + total;
	cancel = j->cancel;
	notify(j, false);
	pthread_mutex_unlock(&j->lock);
	return cancel;
}

/* A view of the request's connections over [start, end]; *base its first row in the full view. */
static int open_view(struct scanjob *j, bag_view_t *full, int64_t start, int64_t end, bag_view_t **v,
                     uint64_t *base)
{
	struct bag_query q;
	int rc;

	bag_query_init(&q);
	q.conn_mask = j->mask;
	q.start_ns = start;
	q.end_ns = end;
	*base = 0;
	if (start != BAG_TIME_MIN && (rc = bag_view_seek(full, start, base)) != BAG_OK)
		return rc;
	return bag_view_open(v, j->tl, &q);
}

/* Scan [start, end] for matches among full-view rows [lo, hi). */
static int search_pass(struct pass *p, bag_view_t *full, int64_t start, int64_t end, uint64_t lo, uint64_t hi,
                       bool last)
{
	struct bag_scan_opts o = { .size = sizeof o };
	bag_view_t *v = NULL;
	int rc;

	if ((rc = open_view(p->j, full, start, end, &v, &p->base)) == BAG_OK) {
		p->lo = lo;
		p->hi = hi;
		p->last = last;
		p->found = p->stopped = false;
		o.filter = p->j->req.filter;
		o.decode = true;
		o.work = search_work;
		o.emit = search_emit;
		o.arg = p;
		o.progress = progress;
		o.progress_arg = p;
		rc = bag_scan(v, &o, NULL);
		p->done_before += bag_view_count(v);
		if (rc == BAG_ECANCELED && p->stopped)
			rc = BAG_OK;
	} else {
		snprintf(p->j->st.err, sizeof p->j->st.err, "%s", v ? bag_view_error(v)->message : bag_timeline_error(p->j->tl)->message);
	}
	if (rc != BAG_OK && rc != BAG_ECANCELED && p->j->st.err[0] == '\0')
		snprintf(p->j->st.err, sizeof p->j->st.err, "%s", bag_view_error(v)->message);
	bag_view_free(v);
	return rc;
}

/* What each shown connection's messages need looked at: names, prefilters, finders. */
static void search_conns(struct scanjob *j, struct pass *p)
{
	char lit[256];
	size_t nlit = match_literal(&p->mt, lit, sizeof lit), a, b;

	match_init_literal(&p->lit, lit, nlit, p->mt.icase);
	p->pre = p->mt.regex ? &p->lit : &p->mt;
	for (size_t i = 0; i < j->nconns; i++) {
		const struct bag_connection *c = bag_timeline_conn(j->tl, i, NULL);
		const bag_msgdef_t *def = job_def(j, i);
		if (!j->mask[i])
			continue;
		p->name_match[i] = j->scope[0] == '\0' && (match_find(&p->mt, c->topic, strlen(c->topic), &a, &b) ||
		                                           match_find(&p->mt, c->type, strlen(c->type), &a, &b));
		/* the bytes must hold the pattern (a regex's literal) when nothing but a string can show it */
		p->needs_text[i] = nlit == 0 || (match_needs_text(p->pre, def) && !match_string_only(p->pre, def));
		/* no strings and nothing else that could show the pattern: no message can match */
		p->never[i] = !p->name_match[i] && !p->needs_text[i] && !match_has_strings(def);
		if (nlit > 0 && bag_msgdef_root(def) != NULL &&
		    bag_finder_new(&p->finders[i], def, lit, nlit, p->mt.icase, WORK_SUMMARY_MAX - 1) != BAG_OK) {
			bag_finder_free(p->finders[i]);
			p->finders[i] = NULL;
		}
	}
}

static int run_search(struct scanjob *j, struct pass *p, bag_view_t *full)
{
	const struct job_req *r = &j->req;
	uint64_t count = bag_view_count(full);
	int64_t t = r->time_ns, first = bag_timeline_start(j->tl), lastt = bag_timeline_end(j->tl);
	int rc;

	if (match_init(&p->mt, j->pattern) != 0) {
		snprintf(j->st.err, sizeof j->st.err, "bad regex '%s': %s", j->pattern, p->mt.err);
		return BAG_EINVAL;
	}
	search_conns(j, p);
	if (r->dir > 0) {
		rc = search_pass(p, full, t, BAG_TIME_MAX, r->row + 1, count, false);
		if (rc == BAG_OK && !p->found) {
			j->st.wrapped = true;
			rc = search_pass(p, full, BAG_TIME_MIN, t, 0, r->row + 1, false);
		}
	} else {
		/* backward: windows before t, each four times the last */
		int64_t span = lastt > first ? lastt - first : 1, d = span / 64 > 1000000000 ? span / 64 : 1000000000;
		rc = BAG_OK;
		for (int64_t lo = t; rc == BAG_OK && !p->found && lo > first; d *= 4) {
			lo = t - d < first || t - d > t ? BAG_TIME_MIN : t - d;
			rc = search_pass(p, full, lo, t, 0, r->row, true);
			if (lo == BAG_TIME_MIN)
				break;
		}
		if (rc == BAG_OK && !p->found) {
			j->st.wrapped = true;
			rc = search_pass(p, full, t, BAG_TIME_MAX, r->row, count, true);
		}
	}
	match_free(&p->mt);
	for (size_t i = 0; i < j->nconns; i++)
		bag_finder_free(p->finders[i]);
	j->st.found = p->found;
	j->st.found_row = p->row;
	return rc;
}

static int run_filter(struct scanjob *j, struct pass *p, bag_view_t *full)
{
	struct bag_scan_opts o = { .size = sizeof o };
	int rc;

	if ((p->buf = malloc(FLUSH_ROWS * sizeof *p->buf)) == NULL)
		return BAG_ENOMEM;
	o.filter = j->req.filter;
	o.emit = filter_emit;
	o.arg = p;
	o.progress = progress;
	o.progress_arg = p;
	rc = bag_scan(full, &o, NULL);
	if (rc == BAG_EEXPR)
		snprintf(j->st.err, sizeof j->st.err, "%s", bag_expr_error(j->req.filter)->message);
	else if (rc != BAG_OK && rc != BAG_ECANCELED)
		snprintf(j->st.err, sizeof j->st.err, "%s", bag_view_error(full)->message);
	if (p->nbuf > 0)
		flush_rows(p);
	free(p->buf);
	return rc;
}

static void run_job(struct scanjob *j)
{
	struct pass p = { .j = j };
	struct bag_query q;
	bag_view_t *full = NULL;
	int rc = BAG_ENOMEM;

	p.needs_text = calloc(j->nconns + 1, sizeof *p.needs_text);
	p.name_match = calloc(j->nconns + 1, sizeof *p.name_match);
	p.never = calloc(j->nconns + 1, sizeof *p.never);
	p.finders = calloc(j->nconns + 1, sizeof *p.finders);
	if (p.needs_text == NULL || p.name_match == NULL || p.never == NULL || p.finders == NULL)
		goto done;
	bag_query_init(&q);
	q.conn_mask = j->mask;
	if ((rc = bag_view_open(&full, j->tl, &q)) != BAG_OK) {
		snprintf(j->st.err, sizeof j->st.err, "%s", bag_view_error(full)->message);
		goto done;
	}
	rc = j->req.kind == JOB_SEARCH ? run_search(j, &p, full) : run_filter(j, &p, full);
done:
	bag_view_free(full);
	free(p.needs_text);
	free(p.name_match);
	free(p.never);
	free(p.finders);
	pthread_mutex_lock(&j->lock);
	j->st.rc = rc;
	if (rc != BAG_OK && j->st.err[0] == '\0')
		snprintf(j->st.err, sizeof j->st.err, "%s", bag_strerror(rc));
	j->st.running = false;
	notify(j, true);
	pthread_cond_broadcast(&j->idle);
	pthread_mutex_unlock(&j->lock);
}

static void *job_main(void *arg)
{
	struct scanjob *j = arg;

	pthread_mutex_lock(&j->lock);
	while (!j->quit) {
		if (!j->pending) {
			pthread_cond_wait(&j->wake, &j->lock);
			continue;
		}
		j->pending = false;
		j->cancel = false;
		pthread_mutex_unlock(&j->lock);
		run_job(j);
		pthread_mutex_lock(&j->lock);
	}
	pthread_mutex_unlock(&j->lock);
	return NULL;
}

/*
 * Each topic's rate (bag_rate_hz: its messages over the time from its first
 * to its last), from one pass over a timeline of its own (its own bag
 * handles), freed at the end; stops when the job closes.
 */
static void *rates_main(void *arg)
{
	struct scanjob *j = arg;
	bag_t **bags = calloc(j->nbags + 1, sizeof *bags);
	bag_timeline_t *tl = NULL;
	bag_view_t *v = NULL;
	uint64_t *n = calloc(j->ntopics + 1, sizeof *n);
	int64_t *first = calloc(j->ntopics + 1, sizeof *first), *last = calloc(j->ntopics + 1, sizeof *last);
	double *rates = calloc(j->ntopics + 1, sizeof *rates);
	uint64_t *per = calloc(j->nconns + 1, sizeof *per);
	size_t nb = 0;
	struct bag_message m;
	bool ok = bags != NULL && n != NULL && first != NULL && last != NULL && rates != NULL && per != NULL;

	for (size_t i = 0; ok && i < j->nbags; i++, nb++)
		ok = bag_dup(&bags[i], j->bags[i]) == BAG_OK;
	ok = ok && bag_timeline_open(&tl, bags, nb) == BAG_OK && bag_view_open(&v, tl, NULL) == BAG_OK;
	uint64_t rows = ok ? bag_view_count(v) : 0;
	/* the rows are in time order: a topic's first row has its first time */
	for (uint64_t r = 0; ok && r < rows; r++) {
		if (bag_view_entry(v, r, &m) != BAG_OK)
			continue;
		size_t t = j->rates_topic_of[m.conn_index];
		per[m.conn_index]++;
		if (n[t]++ == 0)
			first[t] = m.time_ns;
		last[t] = m.time_ns;
		if ((r & 0xFFFF) == 0 && __atomic_load_n(&j->quit, __ATOMIC_RELAXED))
			ok = false;
	}
	for (size_t t = 0; ok && t < j->ntopics; t++)
		rates[t] = bag_rate_hz(n[t], first[t], last[t]);
	bag_view_free(v);
	bag_timeline_free(tl);
	for (size_t i = 0; bags != NULL && i < nb; i++)
		bag_close(bags[i]);
	free(bags);
	free(n);
	free(first);
	free(last);
	pthread_mutex_lock(&j->lock);
	if (ok) {
		j->rates = rates;
		j->conn_counts = per;
		rates = NULL;
		per = NULL;
		j->rates_done = true;
		notify(j, true);
	}
	pthread_mutex_unlock(&j->lock);
	free(rates);
	free(per);
	return NULL;
}

int job_rates(struct scanjob *j, const size_t *topic_of, size_t ntopics)
{
	if ((j->rates_topic_of = malloc((j->nconns + 1) * sizeof *topic_of)) == NULL)
		return BAG_ENOMEM;
	memcpy(j->rates_topic_of, topic_of, j->nconns * sizeof *topic_of);
	j->ntopics = ntopics;
	return bgjob_start(&j->rates_job, rates_main, j) == 0 ? BAG_OK : BAG_ENOMEM;
}

bool job_take_rates(struct scanjob *j, double *out, uint64_t *conn_counts)
{
	bool got = false;

	pthread_mutex_lock(&j->lock);
	if (j->rates_done && !j->rates_taken) {
		memcpy(out, j->rates, j->ntopics * sizeof *out);
		memcpy(conn_counts, j->conn_counts, j->nconns * sizeof *conn_counts);
		j->rates_taken = got = true;
	}
	pthread_mutex_unlock(&j->lock);
	return got;
}

int job_open(struct scanjob **out, bag_t *const *bags, size_t n)
{
	struct scanjob *j = calloc(1, sizeof *j);
	int rc = BAG_ENOMEM;

	*out = j;
	if (j == NULL)
		return BAG_ENOMEM;
	j->job.rd = j->job.wr = j->rates_job.rd = j->rates_job.wr = -1;
	pthread_mutex_init(&j->lock, NULL);
	pthread_cond_init(&j->wake, NULL);
	pthread_cond_init(&j->idle, NULL);
	if ((j->bags = calloc(n ? n : 1, sizeof *j->bags)) == NULL)
		return BAG_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		j->nbags++;
		if ((rc = bag_dup(&j->bags[i], bags[i])) != BAG_OK)
			return rc;
	}
	if ((rc = bag_timeline_open(&j->tl, j->bags, j->nbags)) != BAG_OK)
		return rc;
	j->nconns = bag_timeline_conn_count(j->tl);
	j->defs = calloc(j->nconns + 1, sizeof *j->defs);
	j->mask = calloc(j->nconns + 1, sizeof *j->mask);
	if (j->defs == NULL || j->mask == NULL)
		return BAG_ENOMEM;
	if (bgjob_init(&j->job) != 0)
		return BAG_EIO;
	return bgjob_start(&j->job, job_main, j) == 0 ? BAG_OK : BAG_ENOMEM;
}

void job_close(struct scanjob *j)
{
	if (j == NULL)
		return;
	if (j->job.started) {
		pthread_mutex_lock(&j->lock);
		j->quit = j->cancel = true;
		pthread_cond_signal(&j->wake);
		pthread_mutex_unlock(&j->lock);
	}
	bgjob_close(&j->job);
	bgjob_close(&j->rates_job);
	free(j->rates);
	free(j->conn_counts);
	free(j->rates_topic_of);
	for (size_t i = 0; j->defs != NULL && i < j->nconns; i++)
		bag_msgdef_free(j->defs[i]);
	free(j->defs);
	free(j->mask);
	free(j->rows);
	bag_timeline_free(j->tl);
	for (size_t i = 0; i < j->nbags; i++)
		bag_close(j->bags[i]);
	free(j->bags);
	pthread_mutex_destroy(&j->lock);
	pthread_cond_destroy(&j->wake);
	pthread_cond_destroy(&j->idle);
	free(j);
}

/* A job started but not yet taken by the thread ends here, cancelled (lock held). */
static void drop_pending(struct scanjob *j)
{
	if (!j->pending)
		return;
	j->pending = false;
	j->st.running = false;
	j->st.rc = BAG_ECANCELED;
	notify(j, true);
	pthread_cond_broadcast(&j->idle);
}

void job_cancel(struct scanjob *j)
{
	pthread_mutex_lock(&j->lock);
	j->cancel = true;
	drop_pending(j);
	pthread_mutex_unlock(&j->lock);
}

void job_wait(struct scanjob *j)
{
	pthread_mutex_lock(&j->lock);
	j->cancel = true;
	drop_pending(j);
	while (j->st.running)
		pthread_cond_wait(&j->idle, &j->lock);
	pthread_mutex_unlock(&j->lock);
}

int job_start(struct scanjob *j, const struct job_req *req)
{
	job_wait(j);
	pthread_mutex_lock(&j->lock);
	j->req = *req;
	j->req.conn_mask = NULL;
	memcpy(j->mask, req->conn_mask, j->nconns * sizeof *j->mask);
	snprintf(j->pattern, sizeof j->pattern, "%s", req->pattern ? req->pattern : "");
	snprintf(j->scope, sizeof j->scope, "%s", req->scope ? req->scope : "");
	j->req.pattern = j->pattern;
	j->req.scope = j->scope;
	memset(&j->st, 0, sizeof j->st);
	j->st.kind = req->kind;
	j->st.running = true;
	j->nrows = 0;
	j->pending = true;
	j->cancel = false;
	pthread_cond_signal(&j->wake);
	pthread_mutex_unlock(&j->lock);
	return BAG_OK;
}

int job_fd(const struct scanjob *j)
{
	return bgjob_fd(&j->job);
}

bool job_poll(struct scanjob *j, struct job_state *st, uint64_t **rows, size_t *n, size_t *cap)
{
	bool changed;

	bgjob_drain(&j->job);
	pthread_mutex_lock(&j->lock);
	changed = j->changed;
	j->changed = false;
	*st = j->st;
	if (rows != NULL && j->nrows > 0) {
		if (*n + j->nrows > *cap) {
			size_t c = *cap ? *cap : 65536;
			while (c < *n + j->nrows)
				c *= 2;
			uint64_t *r = realloc(*rows, c * sizeof *r);
			if (r != NULL) {
				*rows = r;
				*cap = c;
			}
		}
		if (*n + j->nrows <= *cap) {
			memcpy(*rows + *n, j->rows, j->nrows * sizeof **rows);
			*n += j->nrows;
			j->nrows = 0;
		}
	}
	pthread_mutex_unlock(&j->lock);
	return changed;
}
