/*
 * reduce.c - numeric series for plots (see reduce.h).
 *
 * Each series keeps its samples in time order in two arrays, t[] and v[]
 * (the scan emits in view order, which is time order), and a min/max
 * pyramid over them: level 0 holds one entry per BLOCK samples, level k one
 * per BLOCK << k. An entry is written once, when its block is complete (a
 * level-0 entry from the raw samples, a higher one from its two children),
 * so appending costs O(1) amortised. A query takes the samples of a column
 * by two binary searches on t[], then their extremes from the raw samples
 * at the ragged ends and from whole blocks in between, the largest that fit
 * (a segment tree walked bottom up): O(BLOCK + log n) per column, and exact.
 *
 * The scan's workers evaluate the series' compiled paths and hand emit a
 * record (series, value) per sample; emit, on the thread running
 * bag_reduce_run(), stamps them with the record time and appends them to a
 * batch that goes into the series under the lock every BATCH samples, so
 * that another thread can query the samples so far at small cost.
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/reduce.h>
#include <bagscope/scan.h>
#include <bagscope/tf.h>
#include "lib/common/util-int.h"

#define BLOCK_SHIFT 4
#define BLOCK (1u << BLOCK_SHIFT)
#define LEVELS 48
#define BATCH 4096

struct mm {
	double min, max;
};

/* One series: its path, per-connection programs, samples and pyramid. */
struct series {
	char *path;
	size_t topic_len;            /* bytes of path that are the topic */
	bool is_tf;                  /* a tf(...) path: sampled on the TF messages, no topic */
	bool is_time;                /* its values are times since the epoch (atomic: read while it runs) */
	const char *topic;           /* borrowed from the timeline */
	bag_expr_t *expr;
	bag_expr_prog_t **progs;     /* per timeline connection; NULL off its topic */
	int64_t *t;                  /* sample times, ascending */
	double *v;                   /* sample values, never NaN */
	size_t n, cap;
	struct mm *lv[LEVELS];       /* the pyramid (see top) */
	size_t lvn[LEVELS], lvcap[LEVELS];
};

/* A sample waiting in the batch. */
struct pending {
	uint32_t series;
	int64_t t;
	double v;
};

struct bag_reduce {
	bag_timeline_t *tl;
	struct series *s;
	size_t ns;
	size_t nconns;
	bag_msgdef_t **defs;         /* per timeline connection of a series' topic */
	bag_tf_t *tf;                /* built by the first run with a tf(...) series */
	pthread_mutex_t lock;        /* series' samples, failed, done */
	struct pending *batch;
	size_t nbatch;
	uint64_t failed;
	struct bag_error first_failure; /* the first message that could not be read */
	bool cancel;                 /* atomic */
	bool done;
	const struct bag_reduce_opts *run_opts;
	struct bag_error err;      /* the last failure (common.h); offset in the path */
	size_t errpath;
};

static void set_err(bag_reduce_t *r, int code, size_t path, uint64_t pos, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void set_err(bag_reduce_t *r, int code, size_t path, uint64_t pos, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bag_error_vset(&r->err, code, NULL, pos, fmt, ap);
	va_end(ap);
	r->errpath = path;
}

/* Append an entry to level k; false when out of memory. */
static bool level_push(struct series *s, int k, struct mm e)
{
	if (bag_grow((void **)&s->lv[k], &s->lvcap[k], s->lvn[k] + 1, sizeof e) != BAG_OK)
		return false;
	s->lv[k][s->lvn[k]++] = e;
	return true;
}

/* Append one sample (time order) and complete the pyramid's blocks it closes. */
static int series_add(struct series *s, int64_t t, double v)
{
	if (s->n == s->cap) {
		size_t cap = s->cap;
		if (bag_grow((void **)&s->t, &cap, s->n + 1, sizeof *s->t) != BAG_OK)
			return BAG_ENOMEM;
		size_t cap2 = s->cap;
		if (bag_grow((void **)&s->v, &cap2, s->n + 1, sizeof *s->v) != BAG_OK)
			return BAG_ENOMEM;
		s->cap = cap < cap2 ? cap : cap2;
	}
	s->t[s->n] = t;
	s->v[s->n] = v;
	s->n++;
	if (s->n % BLOCK != 0)
		return BAG_OK;
	struct mm e = { s->v[s->n - BLOCK], s->v[s->n - BLOCK] };
	for (size_t i = s->n - BLOCK + 1; i < s->n; i++) {
		if (s->v[i] < e.min)
			e.min = s->v[i];
		if (s->v[i] > e.max)
			e.max = s->v[i];
	}
	for (int k = 0; k < LEVELS; k++) {
		if (!level_push(s, k, e))
			return BAG_ENOMEM;
		/* an odd index completes its pair: the parent is due */
		if (k + 1 == LEVELS || s->lvn[k] % 2 != 0)
			break;
		struct mm a = s->lv[k][s->lvn[k] - 2];
		e.min = a.min < e.min ? a.min : e.min;
		e.max = a.max > e.max ? a.max : e.max;
	}
	return BAG_OK;
}

static void mm_raw(const struct series *s, size_t i, size_t j, struct mm *e)
{
	for (; i < j; i++) {
		if (s->v[i] < e->min)
			e->min = s->v[i];
		if (s->v[i] > e->max)
			e->max = s->v[i];
	}
}

/* Extremes of samples [i, j) (i < j) of s. */
static struct mm range_mm(const struct series *s, size_t i, size_t j)
{
	struct mm e = { INFINITY, -INFINITY };
	size_t bi = (i + BLOCK - 1) / BLOCK, bj = j / BLOCK;

	if (bi >= bj) {
		mm_raw(s, i, j, &e);
		return e;
	}
	mm_raw(s, i, bi * BLOCK, &e);
	mm_raw(s, bj * BLOCK, j, &e);
	for (int k = 0; bi < bj && k < LEVELS; k++, bi >>= 1, bj >>= 1) {
		if (bi & 1) {
			const struct mm *b = &s->lv[k][bi++];
			e.min = b->min < e.min ? b->min : e.min;
			e.max = b->max > e.max ? b->max : e.max;
		}
		if (bj & 1) {
			const struct mm *b = &s->lv[k][--bj];
			e.min = b->min < e.min ? b->min : e.min;
			e.max = b->max > e.max ? b->max : e.max;
		}
	}
	return e;
}

/* The first sample index in [lo, n) whose time is >= t. */
static size_t lower_bound(const struct series *s, size_t lo, int64_t t)
{
	size_t hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->t[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void series_clear(struct series *s)
{
	free(s->t);
	free(s->v);
	s->t = NULL;
	s->v = NULL;
	s->n = s->cap = 0;
	for (int k = 0; k < LEVELS; k++) {
		free(s->lv[k]);
		s->lv[k] = NULL;
		s->lvn[k] = s->lvcap[k] = 0;
	}
}

/* Move the batch into the series (under the lock). */
static int flush_batch(bag_reduce_t *r)
{
	int rc = BAG_OK;

	pthread_mutex_lock(&r->lock);
	for (size_t k = 0; k < r->nbatch && rc == BAG_OK; k++)
		rc = series_add(&r->s[r->batch[k].series], r->batch[k].t, r->batch[k].v);
	pthread_mutex_unlock(&r->lock);
	r->nbatch = 0;
	return rc;
}

static bool is_tf_conn(const struct bag_connection *c)
{
	return strcmp(c->type, "tf2_msgs/TFMessage") == 0 || strcmp(c->type, "tf/tfMessage") == 0;
}

/*
 * The first number field of t, depth first past headers and strings ("x",
 * "transforms[0].transform.translation.x"), appended to out; found?
 */
static bool first_number(const struct bag_msgdef_type *t, char *out, size_t cap, int depth)
{
	size_t n = strlen(out);

	for (size_t i = 0; t != NULL && i < t->nfields && depth < 8; i++) {
		const struct bag_msgdef_field *f = &t->fields[i];
		if (f->prim == BAG_PRIM_STRING)
			continue;
		snprintf(out + n, cap - n, "%s%s%s", n ? "." : "", f->name, f->array != BAG_ARRAY_NONE ? "[0]" : "");
		if (f->prim != BAG_PRIM_MESSAGE ? f->prim <= BAG_PRIM_FLOAT64 :
		    strcmp(f->type_name, "std_msgs/Header") != 0 && first_number(f->msg, out, cap, depth + 1))
			return true;
		out[n] = '\0';
	}
	return false;
}

/* An example path for topic: its first number field ("/turtle1/pose.x"), or TOPIC.FIELD. */
static void example_path(bag_reduce_t *r, const char *topic, char *buf, size_t cap)
{
	char field[256] = "";

	for (size_t i = 0; i < r->nconns; i++) {
		const struct bag_connection *c = bag_timeline_conn(r->tl, i, NULL);
		if (strcmp(c->topic, topic) != 0)
			continue;
		if (r->defs[i] == NULL && bag_conn_msgdef_parse(&r->defs[i], c) == BAG_ENOMEM)
			break;
		if (first_number(bag_msgdef_root(r->defs[i]), field, sizeof field, 0))
			break;
	}
	snprintf(buf, cap, "%s.%s", topic, field[0] ? field : "FIELD");
}

/* Compile series k for every connection of its topic (a tf path: every TF connection); check it. */
static int prepare_series(bag_reduce_t *r, size_t k)
{
	struct series *s = &r->s[k];
	const char *rest = s->path + s->topic_len;
	bag_expr_prog_t **sel = calloc(r->nconns + 1, sizeof *sel);
	size_t nsel = 0, base = s->is_tf ? 0 : s->topic_len + 1;   /* where the expression starts */
	int rc = BAG_ENOMEM;

	s->progs = calloc(r->nconns + 1, sizeof *s->progs);
	if (sel == NULL || s->progs == NULL)
		goto fail;
	if (!s->is_tf && (*rest != '.' || rest[1] == '\0')) {
		char eg[512];
		example_path(r, s->topic, eg, sizeof eg);
		set_err(r, BAG_EEXPR, k, s->topic_len, "'%s': name a field after the topic %s (e.g. %s)", s->path,
		        s->topic, eg);
		rc = BAG_EEXPR;
		goto fail;
	}
	rest += !s->is_tf;
	if ((rc = bag_expr_parse_value(&s->expr, rest, strlen(rest))) != BAG_OK) {
		if (rc == BAG_EEXPR)
			set_err(r, BAG_EEXPR, k, base + bag_expr_error(s->expr)->offset, "'%s': %s", s->path,
			        bag_expr_error(s->expr)->message);
		goto fail;
	}
	for (size_t i = 0; i < r->nconns; i++) {
		const struct bag_connection *c = bag_timeline_conn(r->tl, i, NULL);
		if (s->is_tf ? !is_tf_conn(c) : strcmp(c->topic, s->topic) != 0)
			continue;
		if (r->defs[i] == NULL &&
		    bag_conn_msgdef_parse(&r->defs[i], c) == BAG_ENOMEM)
			goto fail;
		if ((rc = bag_expr_compile(&s->progs[i], s->expr, c,
		                           bag_msgdef_root(r->defs[i]) ? r->defs[i] : NULL)) != BAG_OK)
			goto fail;
		sel[nsel++] = s->progs[i];
	}
	if ((rc = bag_expr_check(s->expr, sel, nsel)) != BAG_OK)
		set_err(r, BAG_EEXPR, k, base + bag_expr_error(s->expr)->offset, "'%s': %s", s->path,
		        bag_expr_error(s->expr)->message);
fail:
	if (rc == BAG_ENOMEM)
		set_err(r, BAG_ENOMEM, k, BAG_NO_OFFSET, "out of memory");
	free(sel);
	return rc;
}

BAG_API int bag_reduce_open(bag_reduce_t **out, bag_timeline_t *tl, const char *const *paths, size_t n)
{
	bag_reduce_t *r = calloc(1, sizeof *r);
	const char **topics = NULL;
	size_t ntopics = 0;
	int rc = BAG_ENOMEM;

	*out = r;
	if (r == NULL)
		return BAG_ENOMEM;
	pthread_mutex_init(&r->lock, NULL);
	r->tl = tl;
	r->nconns = bag_timeline_conn_count(tl);
	r->s = calloc(n ? n : 1, sizeof *r->s);
	r->defs = calloc(r->nconns + 1, sizeof *r->defs);
	topics = calloc(r->nconns + 1, sizeof *topics);
	r->batch = malloc(BATCH * sizeof *r->batch);
	if (r->s == NULL || r->defs == NULL || topics == NULL || r->batch == NULL)
		goto fail;
	if (n == 0) {
		set_err(r, BAG_EINVAL, 0, BAG_NO_OFFSET, "no message path to plot");
		rc = BAG_EINVAL;
		goto fail;
	}
	for (size_t i = 0; i < r->nconns; i++)
		topics[ntopics++] = bag_timeline_conn(tl, i, NULL)->topic;
	for (size_t k = 0; k < n; k++) {
		struct series *s = &r->s[k];
		r->ns = k + 1;
		if ((s->path = strdup(paths[k])) == NULL)
			goto fail;
		s->is_tf = bag_expr_is_tf_path(s->path);
		s->topic_len = s->is_tf ? 0 : bag_expr_topic_prefix(s->path, topics, ntopics);
		if (s->topic_len == 0 && !s->is_tf) {
			set_err(r, BAG_EEXPR, k, 0, "'%s' starts with no topic of the bag", s->path);
			rc = BAG_EEXPR;
			goto fail;
		}
		for (size_t i = 0; i < ntopics; i++)
			if (strlen(topics[i]) == s->topic_len && strncmp(topics[i], s->path, s->topic_len) == 0)
				s->topic = topics[i];
		if ((rc = prepare_series(r, k)) != BAG_OK)
			goto fail;
	}
	rc = BAG_OK;
	bag_error_clear(&r->err);
	r->done = true;
fail:
	if (rc == BAG_ENOMEM)
		set_err(r, BAG_ENOMEM, 0, BAG_NO_OFFSET, "out of memory");
	free(topics);
	return rc;
}

BAG_API void bag_reduce_free(bag_reduce_t *r)
{
	if (r == NULL)
		return;
	for (size_t k = 0; k < r->ns; k++) {
		struct series *s = &r->s[k];
		for (size_t i = 0; s->progs != NULL && i < r->nconns; i++)
			bag_expr_prog_free(s->progs[i]);
		free(s->progs);
		bag_expr_free(s->expr);
		free(s->path);
		series_clear(s);
	}
	for (size_t i = 0; r->defs != NULL && i < r->nconns; i++)
		bag_msgdef_free(r->defs[i]);
	free(r->defs);
	bag_tf_free(r->tf);
	free(r->s);
	free(r->batch);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

BAG_API const struct bag_error *bag_reduce_error(const bag_reduce_t *r)
{
	return r != NULL ? &r->err : &bag_error_nomem;
}

BAG_API size_t bag_reduce_errpath(const bag_reduce_t *r)
{
	return r == NULL ? 0 : r->errpath;
}

BAG_API size_t bag_reduce_series_count(const bag_reduce_t *r)
{
	return r->ns;
}

BAG_API const char *bag_reduce_topic(const bag_reduce_t *r, size_t i)
{
	return i < r->ns ? r->s[i].topic : NULL;
}

/* A sample as work hands it to emit. */
struct rec {
	uint32_t series;
	uint32_t time;                /* the value is a time since the epoch (not a duration) */
	double v;
};

/* On a worker: the value of every series of this message's connection. */
static int work(void *arg, const struct bag_message *m, const bag_msgdef_t *def, struct bag_text *out)
{
	const bag_reduce_t *r = arg;
	size_t start = out->len;      /* out holds the task's earlier messages: keep them */

	(void)def;
	for (size_t k = 0; k < r->ns; k++) {
		const bag_expr_prog_t *p = r->s[k].progs[m->conn_index];
		struct bag_expr_val val;
		if (p == NULL)
			continue;
		if (bag_expr_eval_value(p, m->data, m->size, m->time_ns, &val) != BAG_OK) {
			out->len = start;
			bag_text_printf(out, "%s at %lld.%09lld: the message is too short for '%s'", m->conn->topic,
			                (long long)(m->time_ns / BAG_NSEC_PER_SEC),
			                (long long)(m->time_ns % BAG_NSEC_PER_SEC), r->s[k].path);
			return BAG_EDECODE;
		}
		if (isnan(val.num))
			continue;
		/* a time value past 1973 is a date; smaller ones are durations */
		struct rec rec = { (uint32_t)k, val.kind == BAG_EXPR_TIME && val.num > 1e8, val.num };
		bag_text_append(out, (const char *)&rec, sizeof rec);
	}
	return 0;
}

/* In time order: the samples into the batch, failures counted. */
static int emit(void *arg, const struct bag_scan_item *it)
{
	bag_reduce_t *r = arg;
	int rc;

	if (__atomic_load_n(&r->cancel, __ATOMIC_RELAXED))
		return BAG_ECANCELED;
	if (it->rc != BAG_OK) {
		pthread_mutex_lock(&r->lock);
		if (r->failed++ == 0)
			bag_error_set(&r->first_failure, it->rc, NULL, BAG_NO_OFFSET, "%.*s", (int)it->len, it->text);
		pthread_mutex_unlock(&r->lock);
		return 0;
	}
	for (size_t off = 0; off + sizeof(struct rec) <= it->len; off += sizeof(struct rec)) {
		struct rec rec;
		memcpy(&rec, it->text + off, sizeof rec);
		if (rec.time)
			__atomic_store_n(&r->s[rec.series].is_time, true, __ATOMIC_RELAXED);
		r->batch[r->nbatch++] = (struct pending){ rec.series, it->m->time_ns, rec.v };
		if (r->nbatch == BATCH && (rc = flush_batch(r)) != BAG_OK)
			return rc;
	}
	return 0;
}

/* A first run with a tf(...) series builds the transform buffer its terms look up. */
static int attach_tf(bag_reduce_t *r)
{
	struct bag_tf_opts o = BAG_TF_OPTS_INIT;
	bool want = false;
	int rc;

	for (size_t k = 0; k < r->ns; k++)
		want = want || r->s[k].is_tf;
	if (!want || r->tf != NULL)
		return BAG_OK;
	o.threads = r->run_opts->threads;
	if ((rc = bag_tf_build(&r->tf, r->tl, &o)) != BAG_OK) {
		set_err(r, rc, 0, BAG_NO_OFFSET, "%s", bag_tf_error(r->tf)->message);
		bag_tf_free(r->tf);
		r->tf = NULL;
		return rc;
	}
	for (size_t k = 0; k < r->ns; k++)
		if (r->s[k].is_tf)
			bag_expr_set_tf(r->s[k].expr, bag_tf_expr_lookup, r->tf);
	return BAG_OK;
}

static int progress(void *arg, uint64_t done, uint64_t total)
{
	bag_reduce_t *r = arg;

	if (__atomic_load_n(&r->cancel, __ATOMIC_RELAXED))
		return 1;
	return r->run_opts->progress ? r->run_opts->progress(r->run_opts->progress_arg, done, total) : 0;
}

BAG_API int bag_reduce_run(bag_reduce_t *r, const struct bag_reduce_opts *opts)
{
	struct bag_reduce_opts o = BAG_REDUCE_OPTS_INIT;  /* opts NULL: these */
	struct bag_scan_opts so = { .size = sizeof so, .work = work, .emit = emit, .arg = r,
	                            .progress = progress, .progress_arg = r };
	struct bag_query q;
	bag_view_t *v = NULL;
	bool *mask = NULL;
	int rc;

	if (opts != NULL && (rc = bag_opts_read(&o, sizeof o, opts)) != BAG_OK) {
		set_err(r, rc, 0, BAG_NO_OFFSET, "bag_reduce_run: options of an unknown size");
		return rc;
	}
	r->run_opts = &o;
	pthread_mutex_lock(&r->lock);
	for (size_t k = 0; k < r->ns; k++)
		series_clear(&r->s[k]);
	r->failed = 0;
	bag_error_clear(&r->first_failure);
	r->done = false;
	pthread_mutex_unlock(&r->lock);
	r->nbatch = 0;
	if ((rc = attach_tf(r)) != BAG_OK)
		goto fail;
	rc = BAG_ENOMEM;
	if ((mask = calloc(r->nconns + 1, sizeof *mask)) == NULL)
		goto fail;
	for (size_t i = 0; i < r->nconns; i++)
		for (size_t k = 0; k < r->ns; k++)
			mask[i] = mask[i] || r->s[k].progs[i] != NULL;
	bag_query_init(&q);
	q.conn_mask = mask;
	q.start_ns = o.start_ns;
	q.end_ns = o.end_ns;
	so.threads = o.threads;
	if ((rc = bag_view_open(&v, r->tl, &q)) != BAG_OK) {
		bag_error_copy(&r->err, bag_view_error(v));
		goto fail;
	}
	rc = bag_scan(v, &so, NULL);
	if (rc != BAG_OK && rc != BAG_ECANCELED && rc != BAG_ENOMEM)
		bag_error_copy(&r->err, bag_view_error(v));
	int frc = flush_batch(r);
	if (rc == BAG_OK)
		rc = frc;
fail:
	if (rc == BAG_ENOMEM)
		set_err(r, BAG_ENOMEM, 0, BAG_NO_OFFSET, "out of memory");
	pthread_mutex_lock(&r->lock);
	r->done = true;
	pthread_mutex_unlock(&r->lock);
	__atomic_store_n(&r->cancel, false, __ATOMIC_RELAXED);
	r->run_opts = NULL;
	bag_view_free(v);
	free(mask);
	return rc;
}

BAG_API void bag_reduce_cancel(bag_reduce_t *r)
{
	__atomic_store_n(&r->cancel, true, __ATOMIC_RELAXED);
}

BAG_API bool bag_reduce_done(bag_reduce_t *r)
{
	pthread_mutex_lock(&r->lock);
	bool done = r->done;
	pthread_mutex_unlock(&r->lock);
	return done;
}

BAG_API uint64_t bag_reduce_failed(bag_reduce_t *r, struct bag_error *first)
{
	pthread_mutex_lock(&r->lock);
	uint64_t n = r->failed;
	if (first != NULL)
		bag_error_copy(first, &r->first_failure);
	pthread_mutex_unlock(&r->lock);
	return n;
}

BAG_API uint64_t bag_reduce_count(bag_reduce_t *r, size_t i)
{
	if (i >= r->ns)
		return 0;
	pthread_mutex_lock(&r->lock);
	uint64_t n = r->s[i].n;
	pthread_mutex_unlock(&r->lock);
	return n;
}

/* t0 + ceil(c * N / W), exactly (N up to 2^64). */
static int64_t col_start(int64_t t0, unsigned __int128 N, size_t W, size_t c)
{
	unsigned __int128 x = ((unsigned __int128)c * N + W - 1) / W;
	return (int64_t)((uint64_t)t0 + (uint64_t)x);
}

BAG_API int bag_reduce_columns(bag_reduce_t *r, size_t i, int64_t t0, int64_t t1, size_t ncols,
                               struct bag_reduce_col *cols)
{
	if (i >= r->ns || t0 > t1 || ncols == 0 || cols == NULL)
		return BAG_EINVAL;
	unsigned __int128 N = (unsigned __int128)((uint64_t)t1 - (uint64_t)t0) + 1;
	pthread_mutex_lock(&r->lock);
	const struct series *s = &r->s[i];
	size_t a = lower_bound(s, 0, t0);
	for (size_t c = 0; c < ncols; c++) {
		struct bag_reduce_col *col = &cols[c];
		col->t_start_ns = col_start(t0, N, ncols, c);
		/* the next column's start, less one; the last column ends at t1 */
		col->t_end_ns = c + 1 == ncols ? t1 : col_start(t0, N, ncols, c + 1) - 1;
		size_t b = c + 1 == ncols ? lower_bound(s, a, t1) : lower_bound(s, a, col->t_end_ns + 1);
		if (c + 1 == ncols)
			while (b < s->n && s->t[b] == t1)
				b++;
		col->count = b - a;
		col->min = col->max = NAN;
		if (b > a) {
			struct mm e = range_mm(s, a, b);
			col->min = e.min;
			col->max = e.max;
		}
		a = b;
	}
	pthread_mutex_unlock(&r->lock);
	return BAG_OK;
}

BAG_API int bag_reduce_sample_at(bag_reduce_t *r, size_t i, int64_t t, int64_t *time_ns, double *value)
{
	int rc = BAG_ENOTFOUND;

	if (i >= r->ns)
		return BAG_EINVAL;
	pthread_mutex_lock(&r->lock);
	const struct series *s = &r->s[i];
	size_t k = t == INT64_MAX ? s->n : lower_bound(s, 0, t + 1);
	if (k > 0) {
		*time_ns = s->t[k - 1];
		*value = s->v[k - 1];
		rc = BAG_OK;
	}
	pthread_mutex_unlock(&r->lock);
	return rc;
}

BAG_API bool bag_reduce_is_time(bag_reduce_t *r, size_t i)
{
	return i < r->ns && __atomic_load_n(&r->s[i].is_time, __ATOMIC_RELAXED);
}
