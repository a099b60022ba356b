/*
 * scan.c - whole-view passes on a pool of worker threads (see scan.h).
 *
 * The calling thread is the coordinator. It walks the view's rows through
 * the index (bag_view_entry), settles what the index alone can settle (rows
 * of connections the filter can never accept, rows whose time decides the
 * filter), and cuts the rest into tasks: runs of rows that end where a chunk
 * ends once the task holds MIN_TASK_ROWS, or at MAX_TASK_ROWS. Tasks go on a
 * queue in row order and into a FIFO of tasks in flight (at most
 * 2 x threads + 1). Workers take tasks off the queue and fill in each row's
 * outcome; the coordinator waits for the oldest task in flight, emits its
 * rows in order, and recycles it. A task copies what it needs from the index
 * (time, chunk, offset, connection), so an index group is given back as soon
 * as the coordinator has cut its last task, when the scan was what loaded it.
 *
 * Each worker owns a bag_dup() of every bag of the timeline (its own file
 * descriptor and chunk cache) and remembers the last chunk it failed to read,
 * so a bad chunk costs one attempt per task, not one per message. Definitions
 * and compiled filters are built by the coordinator before the workers start
 * and only read afterwards.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bagscope/scan.h>
#include "lib/formats/bag-int.h"
#include "lib/index/view-int.h"
#include "lib/common/util-int.h"

#define MIN_TASK_ROWS 1024
#define MAX_TASK_ROWS 65536
#define MAX_THREADS 64
#define WORKER_CACHE ((size_t)16 << 20)

enum row_state {
	ROW_READ,     /* to be read by a worker */
	ROW_SKIP,     /* dropped (index-only filter, filter, or work) */
	ROW_EMIT,     /* emit with its text */
	ROW_FAIL,     /* emit as failed; text is the reason */
	ROW_BADCHUNK, /* its chunk could not be read: emitted once per chunk */
	ROW_RECHECK,  /* the chunk reads but the index entry misses its record */
	ROW_DONE,     /* emitted before the scan went back over its group */
	ROW_NOINDEX,  /* the index of its group cannot be read: its rows are lost */
	ROW_UNREAD,   /* its chunk failed earlier in the task: lost */
};

/* One row of a task: the index facts and the outcome. */
struct row {
	int64_t time_ns;
	uint64_t row;
	uint32_t chunk;
	uint32_t offset;
	uint32_t conn;            /* timeline connection index */
	uint16_t bag;
	uint8_t state;            /* enum row_state */
	bool chunk_first;         /* the scan's first row in its chunk: run the chunk hook */
	int rc;
	size_t text_off, text_len;
	size_t chunk_off, chunk_len;  /* the chunk hook's output */
	size_t data_off;
	uint32_t data_len;
};

struct task {
	struct row *rows;
	uint32_t n;
	size_t cap;               /* rows allocated: from MIN_TASK_ROWS, doubled up to MAX_TASK_ROWS */
	struct bag_text text;     /* outputs and failure reasons of all rows */
	uint8_t *data;            /* message copies (keep_data) */
	size_t data_len, data_cap;
	uint64_t chunks_read;
	uint64_t noindex_rows;    /* rows after its last (ROW_NOINDEX) row that its group loses */
	bool done;
	bool failed_alloc;
	struct task *qnext;       /* the work queue */
	struct task *fnext;       /* the coordinator's FIFO of tasks in flight */
};

struct scan;

struct worker {
	struct scan *s;
	bag_t **bags;             /* a dup of each timeline bag */
	pthread_t thread;
	bool started;
};

struct scan {
	const struct bag_scan_opts *o;
	bag_timeline_t *tl;
	bag_view_t *v;                         /* its error message on a fatal read error */
	size_t nbags, nconns;
	const struct bag_connection **conns;   /* per timeline connection */
	bag_msgdef_t **defs;                   /* per timeline connection, or NULL */
	bag_expr_prog_t **progs;               /* per timeline connection, or NULL */
	pthread_mutex_t lock;
	pthread_cond_t work_cv;                /* the queue got a task, or stop */
	pthread_cond_t done_cv;                /* a task is done */
	struct task *qhead, *qtail;
	bool stop;
	bool discard;                          /* skip the rows of queued tasks */
	struct worker *workers;
	unsigned nworkers;
	uint8_t **bad;                         /* per bag, a bit per chunk: failure emitted */
	uint8_t **seen;                        /* per bag, a bit per chunk: first row cut (hooks) */
};

static void row_message(const struct scan *s, const struct row *r, struct bag_message *m)
{
	m->row = r->row;
	m->time_ns = r->time_ns;
	m->bag_index = r->bag;
	m->conn = r->state == ROW_NOINDEX ? NULL : s->conns[r->conn];
	m->conn_index = r->conn;
	m->chunk = r->chunk;
	m->offset = r->offset;
	m->data = NULL;
	m->size = 0;
}

/* Keep len bytes in the task's data buffer; false when out of memory. */
static bool keep_bytes(struct task *t, const uint8_t *p, uint32_t len, size_t *off)
{
	*off = t->data_len;
	if (len == 0)
		return true;
	if (bag_grow((void **)&t->data, &t->data_cap, t->data_len + len, 1) != BAG_OK)
		return false;
	memcpy(t->data + t->data_len, p, len);
	t->data_len += len;
	return true;
}

/* The first row of a chunk: give the whole chunk to opts->chunk, its text kept apart. */
static void run_chunk_hook(const struct bag_scan_opts *o, bag_t *bag, struct task *t, struct row *r)
{
	const uint8_t *cdata;
	size_t clen;

	r->chunk_off = t->text.len;
	if (bag_chunk_get(bag, r->chunk, &cdata, &clen) == BAG_OK) {
		o->chunk(o->arg, bag, r->bag, r->chunk, cdata, clen, &t->text);
		bag_chunk_unpin(bag, r->chunk);
	}
	r->chunk_len = t->text.len - r->chunk_off;
}

/* A row that could not be read: its chunk (BADCHUNK) or its index entry (RECHECK). */
static void row_unreadable(bag_t *bag, struct task *t, struct row *r, int rc)
{
	if (rc == BAG_ECORRUPT && bag_chunk_get(bag, r->chunk, &(const uint8_t *){ NULL }, &(size_t){ 0 }) == BAG_OK) {
		/* the chunk is whole: its index entries are what is wrong */
		bag_chunk_unpin(bag, r->chunk);
		r->state = ROW_RECHECK;
	} else {
		r->state = ROW_BADCHUNK;
	}
	r->rc = rc;
	bag_text_append(&t->text, bag_last_error(bag)->message, strlen(bag_last_error(bag)->message));
}

/* Read, filter and work one row on worker w. */
static void run_row(struct worker *w, struct task *t, struct row *r, uint64_t *fail_key)
{
	const struct scan *s = w->s;
	const struct bag_scan_opts *o = s->o;
	bag_t *bag = w->bags[r->bag];
	uint64_t key = (uint64_t)r->bag << 32 | r->chunk;
	const bag_expr_prog_t *prog = s->progs ? s->progs[r->conn] : NULL;
	struct bag_message m;
	size_t before = t->text.len;
	uint64_t loads = bag->cache_loads;
	int rc;

	if (key == *fail_key) {
		r->state = ROW_UNREAD;
		return;
	}
	row_message(s, r, &m);
	rc = bag_message_read(bag, r->chunk, r->offset, m.conn->id, r->time_ns, &m.data, &m.size);
	t->chunks_read += bag->cache_loads - loads;
	if (rc != BAG_OK) {
		*fail_key = key;
		row_unreadable(bag, t, r, rc);
		goto out;
	}
	if (r->chunk_first && o->chunk != NULL) {
		run_chunk_hook(o, bag, t, r);
		before = t->text.len;
	}
	if (prog != NULL) {
		rc = bag_expr_eval(prog, m.data, m.size, r->time_ns);
		if (rc == 0) {
			r->state = ROW_SKIP;
			goto unpin;
		}
		if (rc < 0) {
			r->state = ROW_FAIL;
			r->rc = rc;
			bag_text_printf(&t->text, "%s: at byte %llu: message at offset %u of the chunk "
			                "does not match its definition (%s), so the filter cannot test it",
			                bag_path(bag), (unsigned long long)bag->chunks[r->chunk].pos, r->offset,
			                m.conn->type);
			goto unpin;
		}
	}
	rc = o->work ? o->work(o->arg, &m, s->defs ? s->defs[r->conn] : NULL, &t->text) : 0;
	if (rc == 1) {
		r->state = ROW_SKIP;
		t->text.len = before;
	} else if (rc < 0) {
		r->state = ROW_FAIL;
		r->rc = rc;
	} else {
		r->state = ROW_EMIT;
		if (o->keep_data && !keep_bytes(t, m.data, m.size, &r->data_off))
			t->failed_alloc = true;
		r->data_len = m.size;
	}
unpin:
	bag_chunk_unpin(bag, r->chunk);
out:
	r->text_off = before;
	r->text_len = t->text.len - before;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct scan *s = w->s;

	for (;;) {
		struct task *t;
		uint64_t fail_key = UINT64_MAX;

		pthread_mutex_lock(&s->lock);
		while (s->qhead == NULL && !s->stop)
			pthread_cond_wait(&s->work_cv, &s->lock);
		if (s->qhead == NULL) {
			pthread_mutex_unlock(&s->lock);
			return NULL;
		}
		t = s->qhead;
		s->qhead = t->qnext;
		if (s->qhead == NULL)
			s->qtail = NULL;
		pthread_mutex_unlock(&s->lock);

		for (uint32_t i = 0; i < t->n; i++)
			if (t->rows[i].state == ROW_READ && !__atomic_load_n(&s->stop, __ATOMIC_RELAXED) &&
			    !__atomic_load_n(&s->discard, __ATOMIC_RELAXED))
				run_row(w, t, &t->rows[i], &fail_key);
		if (t->text.failed)
			t->failed_alloc = true;

		pthread_mutex_lock(&s->lock);
		t->done = true;
		pthread_cond_broadcast(&s->done_cv);
		pthread_mutex_unlock(&s->lock);
	}
}

/* Definitions and compiled filters for the selected connections. */
static int prepare(struct scan *s, bag_view_t *v)
{
	const struct bag_scan_opts *o = s->o;
	bag_expr_prog_t **sel = NULL;
	size_t nsel = 0;
	int rc = BAG_ENOMEM;

	s->conns = calloc(s->nconns ? s->nconns : 1, sizeof *s->conns);
	if (s->conns == NULL)
		goto fail;
	for (size_t i = 0; i < s->nconns; i++)
		s->conns[i] = bag_timeline_conn(s->tl, i, NULL);
	if (!o->decode && o->filter == NULL)
		return BAG_OK;
	s->defs = calloc(s->nconns ? s->nconns : 1, sizeof *s->defs);
	if (s->defs == NULL)
		goto fail;
	for (size_t i = 0; i < s->nconns; i++) {
		const struct bag_connection *c = s->conns[i];
		/* a connection without a definition (bags older than 1.2) gets NULL */
		if (!bag_view_selects(v, i) || !bag_conn_has_definition(c))
			continue;
		rc = bag_conn_msgdef_parse(&s->defs[i], c);
		if (rc == BAG_ENOMEM)
			goto fail;
		if (rc != BAG_OK) {
			bag_msgdef_free(s->defs[i]);
			s->defs[i] = NULL;
		}
	}
	rc = BAG_OK;
	if (o->filter == NULL)
		goto fail;
	rc = BAG_ENOMEM;
	s->progs = calloc(s->nconns ? s->nconns : 1, sizeof *s->progs);
	sel = calloc(s->nconns ? s->nconns : 1, sizeof *sel);
	if (s->progs == NULL || sel == NULL)
		goto fail;
	for (size_t i = 0; i < s->nconns; i++) {
		if (!bag_view_selects(v, i))
			continue;
		rc = bag_expr_compile(&s->progs[i], o->filter, s->conns[i], s->defs[i]);
		if (rc != BAG_OK)
			goto fail;
		sel[nsel++] = s->progs[i];
	}
	rc = bag_expr_check(o->filter, sel, nsel);
fail:
	free(sel);
	return rc;
}

static void task_free(struct task *t)
{
	if (t == NULL)
		return;
	free(t->rows);
	free(t->data);
	bag_text_free(&t->text);
	free(t);
}

/* A task ready to be filled: from the spare list or new. */
static struct task *task_get(struct task **spare)
{
	struct task *t = *spare;

	if (t != NULL) {
		*spare = t->fnext;
		t->n = 0;
		t->text.len = 0;
		t->data_len = 0;
		t->chunks_read = 0;
		t->noindex_rows = 0;
		t->done = t->failed_alloc = false;
		t->qnext = t->fnext = NULL;
		return t;
	}
	t = calloc(1, sizeof *t);
	if (t != NULL && (t->rows = malloc(MIN_TASK_ROWS * sizeof *t->rows)) == NULL) {
		free(t);
		t = NULL;
	}
	if (t != NULL)
		t->cap = MIN_TASK_ROWS;
	return t;
}

/* The coordinator's walk over the view's rows, cutting tasks. */
/* A message's place, to know it again after its group was read anew. */
struct place {
	uint32_t chunk;
	uint32_t offset;
	uint32_t bag;
};

static int cmp_place(const void *a, const void *b)
{
	const struct place *x = a, *y = b;

	if (x->bag != y->bag)
		return x->bag < y->bag ? -1 : 1;
	if (x->chunk != y->chunk)
		return x->chunk < y->chunk ? -1 : 1;
	return (x->offset > y->offset) - (x->offset < y->offset);
}

struct cutter {
	bag_view_t *v;
	uint64_t row, count;
	size_t group;             /* view group of the rows being cut */
	bool group_was_loaded;    /* loaded before the scan reached it */
	bool in_group;
	struct place *done;       /* after a restart: what group done_group had emitted, sorted */
	size_t ndone;
	size_t done_group;
};

/* Give back the group being left if the scan loaded it. */
static void leave_group(struct cutter *c)
{
	if (c->in_group && !c->group_was_loaded)
		view_group_release(c->v, c->group);
	c->in_group = false;
}

/* Fill t with the next rows; rows the index settles are marked ROW_SKIP. */
static int cut_task(struct scan *s, struct cutter *c, struct task *t)
{
	uint32_t last_chunk = UINT32_MAX;
	uint16_t last_bag = 0;
	uint64_t next;
	struct bag_message m;
	int rc;

	/* counts from chunk infos are corrected as index groups load */
	while ((c->count = bag_view_count(c->v)) > c->row && t->n < MAX_TASK_ROWS) {
		size_t k = view_group_of_row(c->v, c->row);

		if ((rc = bag_grow((void **)&t->rows, &t->cap, t->n + 1, sizeof *t->rows)) != BAG_OK)
			return rc;
		if (!c->in_group || k != c->group) {
			leave_group(c);
			c->group = k;
			c->group_was_loaded = view_group_loaded(c->v, k);
			c->in_group = true;
			if (c->done != NULL && k != c->done_group) {
				free(c->done);
				c->done = NULL;
			}
		}
		if ((rc = bag_view_entry(c->v, c->row, &m)) != BAG_OK) {
			const char *msg = bag_view_error(c->v)->message;
			struct row *r;
			if (rc == BAG_ENOMEM || rc == BAG_EINVAL || rc == BAG_EIO)
				return rc;   /* BAG_EIO: the bytes cannot be read at all (view's message) */
			/* one line for the group, and on with the next */
			r = &t->rows[t->n++];
			*r = (struct row){ .row = c->row, .state = ROW_NOINDEX, .rc = rc, .text_off = t->text.len };
			bag_text_append(&t->text, msg, strlen(msg));
			r->text_len = t->text.len - r->text_off;
			next = view_group_first_row(c->v, k + 1);
			t->noindex_rows = next > c->row ? next - c->row - 1 : 0;
			c->row += 1 + t->noindex_rows;
			break;
		}
		if (t->n >= MIN_TASK_ROWS && (m.chunk != last_chunk || m.bag_index != last_bag))
			break;
		struct row *r = &t->rows[t->n++];
		*r = (struct row){ .time_ns = m.time_ns, .row = m.row, .chunk = (uint32_t)m.chunk,
		                   .offset = m.offset, .conn = m.conn_index, .bag = (uint16_t)m.bag_index,
		                   .state = ROW_READ };
		last_chunk = r->chunk;
		last_bag = r->bag;
		c->row++;
		if (c->done != NULL) {
			struct place p = { r->chunk, r->offset, r->bag };
			if (bsearch(&p, c->done, c->ndone, sizeof p, cmp_place) != NULL) {
				r->state = ROW_DONE;
				continue;
			}
		}
		if (s->progs != NULL) {
			const bag_expr_prog_t *p = s->progs[r->conn];
			if (bag_expr_eval_index(p, r->time_ns) == 0)
				r->state = ROW_SKIP;
		}
		if (s->seen != NULL && r->state == ROW_READ &&
		    !(s->seen[r->bag][r->chunk / 8] & (1u << (r->chunk % 8)))) {
			s->seen[r->bag][r->chunk / 8] |= (uint8_t)(1u << (r->chunk % 8));
			r->chunk_first = true;
		}
	}
	if (c->row >= c->count)
		leave_group(c);
	return BAG_OK;
}

#define SCAN_RESTART 1

/*
 * Emit the rows of a finished task in order, from row *from on. Returns 0,
 * what emit said, or SCAN_RESTART with *from at a row whose index entry
 * missed its record (its group must be read anew).
 */
static int emit_task(struct scan *s, struct task *t, struct bag_scan_stats *st, uint32_t *from)
{
	const struct bag_scan_opts *o = s->o;
	int rc = BAG_OK;

	if (t->failed_alloc)
		return BAG_ENOMEM;
	for (; *from < t->n && rc == BAG_OK; (*from)++) {
		struct row *r = &t->rows[*from];
		struct bag_message m;
		struct bag_scan_item it;
		uint8_t *bad = &s->bad[r->bag][r->chunk / 8], bit = (uint8_t)(1u << (r->chunk % 8));

		if (r->state == ROW_RECHECK)
			return SCAN_RESTART;
		if (r->state == ROW_DONE)
			continue;
		st->rows++;
		if (r->chunk_first && r->state != ROW_UNREAD && r->state != ROW_BADCHUNK &&
		    o->chunk_emit != NULL &&
		    (rc = o->chunk_emit(o->arg, r->bag, r->chunk, t->text.p ? t->text.p + r->chunk_off : "",
		                        r->chunk_len)) != BAG_OK) {
			rc = rc > 0 ? BAG_ECANCELED : rc;
			break;
		}
		if (r->state == ROW_SKIP) {
			st->filtered++;
			continue;
		}
		if (r->state == ROW_UNREAD || (r->state == ROW_BADCHUNK && (*bad & bit))) {
			st->lost++;
			continue;
		}
		if (r->state == ROW_BADCHUNK && r->rc == BAG_EIO) {
			/* the bytes cannot be read (a disk error, a remote source failing
			   after its retries, an object changed): no use going on */
			rc = view_fail(s->v, BAG_EIO, t->text.p + r->text_off, r->text_len);
			break;
		}
		if (r->state == ROW_BADCHUNK)
			*bad |= bit;
		if (r->state == ROW_NOINDEX)
			st->lost += t->noindex_rows;
		row_message(s, r, &m);
		st->failed += r->state != ROW_EMIT;
		if (r->state == ROW_EMIT)
			m.size = r->data_len;
		if (o->keep_data && r->state == ROW_EMIT)
			m.data = t->data + r->data_off;
		st->emitted++;
		it = (struct bag_scan_item){ &m, r->state == ROW_EMIT ? 0 : r->rc,
		                             t->text.p ? t->text.p + r->text_off : "", r->text_len };
		if (o->emit != NULL && (rc = o->emit(o->arg, &it)) > 0)
			rc = BAG_ECANCELED;
	}
	if (*from == t->n)
		st->chunks_read += t->chunks_read;
	return rc;
}

/*
 * Row r's index entry missed its record in a chunk that reads: have the
 * view compare the chunk's index with its data. When it reads the chunk's
 * group anew, go back to the group's first row, knowing what of the group
 * was emitted already. Returns 1 (gone back), 0 (nothing to redo) or an
 * error.
 */
static int go_back(struct cutter *c, uint64_t r)
{
	size_t k = view_group_of_row(c->v, r);
	uint64_t first = view_group_first_row(c->v, k);
	struct place *done = malloc((size_t)(r - first + 1) * sizeof *done);
	size_t n = 0;
	int rc = BAG_ENOMEM;

	if (done == NULL)
		return BAG_ENOMEM;
	for (uint64_t row = first; row < r; row++) {
		struct bag_message m;
		if ((rc = bag_view_entry(c->v, row, &m)) != BAG_OK)
			goto fail;
		done[n++] = (struct place){ (uint32_t)m.chunk, m.offset, (uint32_t)m.bag_index };
	}
	if ((rc = view_recheck(c->v, r)) != 1)
		goto fail;
	leave_group(c);
	bag_sort(done, n, sizeof *done, cmp_place);
	free(c->done);
	c->done = done;
	c->ndone = n;
	c->done_group = k;
	c->row = first;
	return 1;
fail:
	free(done);
	return rc;
}

/* Wait for every task in flight, dropping what they did, and recycle them. */
/* The tasks cut and not yet emitted, oldest first, and the spare ones. */
struct flight {
	struct task *head, *tail;
	struct task *spare;
	unsigned inflight;
};

static void drain(struct scan *s, struct flight *f)
{
	__atomic_store_n(&s->discard, true, __ATOMIC_RELAXED);
	pthread_mutex_lock(&s->lock);
	for (struct task *t = f->head; t != NULL; t = t->fnext)
		while (!t->done)
			pthread_cond_wait(&s->done_cv, &s->lock);
	pthread_mutex_unlock(&s->lock);
	__atomic_store_n(&s->discard, false, __ATOMIC_RELAXED);
	while (f->head != NULL) {
		struct task *t = f->head;
		f->head = t->fnext;
		t->fnext = f->spare;
		f->spare = t;
	}
	f->tail = NULL;
	f->inflight = 0;
}

/*
 * Before going back: the chunks whose first row is among the rows not
 * emitted (the oldest task's from row on, every later task's) are unseen
 * again, so their hook runs when the rows are cut anew.
 */
static void unsee(struct scan *s, struct flight *f, uint32_t from)
{
	for (struct task *t = f->head; s->seen != NULL && t != NULL; t = t->fnext, from = 0)
		for (uint32_t i = from; i < t->n; i++)
			if (t->rows[i].chunk_first)
				s->seen[t->rows[i].bag][t->rows[i].chunk / 8] &= (uint8_t)~(1u << (t->rows[i].chunk % 8));
}

/* Queue t for the workers and at the end of f. */
/*
 * The chunks the task's workers will read, hinted in row order to their
 * bags (a remote bag fetches them in the background, exactly): on the
 * coordinator's handles, whose chunk headers the index walk has read.
 */
static void hint_chunks(struct scan *s, const struct task *t)
{
	uint64_t last = UINT64_MAX;

	for (uint32_t i = 0; i < t->n; i++) {
		const struct row *r = &t->rows[i];
		uint64_t key = (uint64_t)r->bag << 32 | r->chunk;
		bag_t *bag;
		if (r->state != ROW_READ || key == last)
			continue;
		last = key;
		bag = bag_timeline_bag(s->tl, r->bag);
		if (r->chunk < bag->nchunks && bag->chunks[r->chunk].stat_loaded)
			bag_read_ahead(bag, bag->chunks[r->chunk].data_pos, bag->chunks[r->chunk].data_len);
	}
}

static void submit(struct scan *s, struct flight *f, struct task *t)
{
	hint_chunks(s, t);
	pthread_mutex_lock(&s->lock);
	if (s->qtail != NULL)
		s->qtail->qnext = t;
	else
		s->qhead = t;
	s->qtail = t;
	pthread_cond_signal(&s->work_cv);
	pthread_mutex_unlock(&s->lock);
	if (f->tail != NULL)
		f->tail->fnext = t;
	else
		f->head = t;
	f->tail = t;
	f->inflight++;
}

/* The oldest task is emitted: onto the spare list. */
static void retire(struct flight *f)
{
	struct task *t = f->head;

	f->inflight--;
	f->head = t->fnext;
	if (f->head == NULL)
		f->tail = NULL;
	t->fnext = f->spare;
	f->spare = t;
}

static void flight_free(struct flight *f)
{
	struct task *lists[2] = { f->head, f->spare };

	for (int k = 0; k < 2; k++)
		while (lists[k] != NULL) {
			struct task *t = lists[k];
			lists[k] = t->fnext;
			task_free(t);
		}
}

static int start_workers(struct scan *s)
{
	const struct bag_scan_opts *o = s->o;
	unsigned n = o->threads;
	int rc;

	if (n == 0) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		n = cores < 1 ? 1 : (unsigned)cores;
	}
	if (n > MAX_THREADS)
		n = MAX_THREADS;
	s->workers = calloc(n, sizeof *s->workers);
	if (s->workers == NULL)
		return BAG_ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		struct worker *w = &s->workers[i];
		w->s = s;
		w->bags = calloc(s->nbags ? s->nbags : 1, sizeof *w->bags);
		if (w->bags == NULL)
			return BAG_ENOMEM;
		s->nworkers = i + 1;
		for (size_t b = 0; b < s->nbags; b++) {
			if ((rc = bag_dup(&w->bags[b], bag_timeline_bag(s->tl, b))) != BAG_OK)
				return rc;
			w->bags[b]->cache_limit = o->cache_bytes ? o->cache_bytes : WORKER_CACHE;
		}
		if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
			return BAG_ENOMEM;
		w->started = true;
	}
	return BAG_OK;
}

static void stop_workers(struct scan *s)
{
	pthread_mutex_lock(&s->lock);
	__atomic_store_n(&s->stop, true, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&s->work_cv);
	pthread_mutex_unlock(&s->lock);
	for (unsigned i = 0; i < s->nworkers; i++) {
		struct worker *w = &s->workers[i];
		if (w->started)
			pthread_join(w->thread, NULL);
		for (size_t b = 0; w->bags != NULL && b < s->nbags; b++)
			bag_close(w->bags[b]);
		free(w->bags);
	}
	free(s->workers);
}

/* Every bag's bitmaps of chunks found bad, and of chunks seen (opts->chunk). */
static int scan_bitmaps(struct scan *s)
{
	if ((s->bad = calloc(s->nbags ? s->nbags : 1, sizeof *s->bad)) == NULL)
		return BAG_ENOMEM;
	if (s->o->chunk != NULL && (s->seen = calloc(s->nbags ? s->nbags : 1, sizeof *s->seen)) == NULL)
		return BAG_ENOMEM;
	for (size_t b = 0; b < s->nbags; b++) {
		size_t n = bag_chunk_count(bag_timeline_bag(s->tl, b));
		if ((s->bad[b] = calloc(n / 8 + 1, 1)) == NULL)
			return BAG_ENOMEM;
		if (s->seen != NULL && (s->seen[b] = calloc(n / 8 + 1, 1)) == NULL)
			return BAG_ENOMEM;
	}
	return BAG_OK;
}

/* Cut tasks until max_inflight are out or the rows end. */
static int fill(struct scan *s, struct cutter *c, struct flight *f, unsigned max_inflight)
{
	int rc;

	while (f->inflight < max_inflight && c->row < (c->count = bag_view_count(c->v))) {
		struct task *t = task_get(&f->spare);
		if (t == NULL)
			return BAG_ENOMEM;
		if ((rc = cut_task(s, c, t)) != BAG_OK) {
			task_free(t);
			return rc;
		}
		submit(s, f, t);
	}
	return BAG_OK;
}

/*
 * The scan proper: keep the workers fed, emit the oldest task when done,
 * go back when a task asks for it (a group's index corrected), report
 * progress. Returns 0 or the first failure, cancel or emit's code.
 */
static int scan_rows(struct scan *s, struct cutter *c, struct flight *f, struct bag_scan_stats *st)
{
	const struct bag_scan_opts *o = s->o;
	unsigned max_inflight = 2 * s->nworkers + 1;
	uint32_t from = 0;
	int rc;

	for (;;) {
		if ((rc = fill(s, c, f, max_inflight)) != BAG_OK)
			return rc;
		if (f->inflight == 0)
			return BAG_OK;
		pthread_mutex_lock(&s->lock);
		while (!f->head->done)
			pthread_cond_wait(&s->done_cv, &s->lock);
		pthread_mutex_unlock(&s->lock);
		rc = emit_task(s, f->head, st, &from);
		if (rc == SCAN_RESTART) {
			rc = go_back(c, f->head->rows[from].row);
			if (rc < 0)
				return rc;
			if (rc == 0)
				f->head->rows[from].state = ROW_BADCHUNK;
			else
				unsee(s, f, from), drain(s, f), from = 0;
			continue;
		}
		if (rc != BAG_OK)
			return rc;
		from = 0;
		if (o->progress != NULL && o->progress(o->progress_arg, st->rows, c->count) != 0)
			return BAG_ECANCELED;
		retire(f);
	}
}

/* Free what the scan set up (the workers are stopped). */
static void scan_free(struct scan *s, struct cutter *c)
{
	leave_group(c);
	free(c->done);
	for (size_t b = 0; s->bad != NULL && b < s->nbags; b++)
		free(s->bad[b]);
	for (size_t b = 0; s->seen != NULL && b < s->nbags; b++)
		free(s->seen[b]);
	free(s->bad);
	free(s->seen);
	for (size_t i = 0; i < s->nconns; i++) {
		if (s->progs != NULL)
			bag_expr_prog_free(s->progs[i]);
		if (s->defs != NULL)
			bag_msgdef_free(s->defs[i]);
	}
	free(s->progs);
	free(s->defs);
	free(s->conns);
	pthread_cond_destroy(&s->done_cv);
	pthread_cond_destroy(&s->work_cv);
	pthread_mutex_destroy(&s->lock);
}

BAG_API int bag_scan(bag_view_t *v, const struct bag_scan_opts *opts, struct bag_scan_stats *stats)
{
	struct bag_scan_stats st = { 0 };
	struct bag_scan_opts o;    /* opts as this library reads it (common.h's growth rule) */
	struct scan s = { .o = &o };
	struct cutter c = { .v = v };
	struct flight f = { 0 };
	int rc;

	if ((rc = bag_opts_read(&o, sizeof o, opts)) != BAG_OK)
		goto done;
	s.tl = view_timeline(v);
	s.v = v;
	s.nbags = bag_timeline_bag_count(s.tl);
	s.nconns = bag_timeline_conn_count(s.tl);
	c.count = bag_view_count(v);
	pthread_mutex_init(&s.lock, NULL);
	pthread_cond_init(&s.work_cv, NULL);
	pthread_cond_init(&s.done_cv, NULL);
	if ((rc = prepare(&s, v)) == BAG_OK && (rc = scan_bitmaps(&s)) == BAG_OK) {
		if ((rc = start_workers(&s)) == BAG_OK)
			rc = scan_rows(&s, &c, &f, &st);
		stop_workers(&s);
		flight_free(&f);
	}
	scan_free(&s, &c);
done:
	if (stats != NULL)
		*stats = st;
	return rc;
}
