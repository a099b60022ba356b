/*
 * view.c - views over a timeline (the rosbag API's View and Query):
 * connections selected by topic, type, mask and a caller's predicate, an
 * inclusive time range, rows numbered 0..count-1, seek in O(log n), and
 * messages read through their index entries.
 *
 * A view maps its rows onto the groups that meet its time range: base[k] is
 * the first view row of group g0 + k. A group is "direct" when the view takes
 * all of its entries (row - base = entry); otherwise sel[k] lists the entries
 * it takes, built when the group is first used. Loading a group can correct
 * its row count (damaged chunk infos): the rows after it move, and base
 * follows.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/record.h>
#include <bagscope/view.h>
#include "lib/formats/bag-int.h"
#include "lib/index/timeline-int.h"
#include "lib/index/view-int.h"
#include "lib/common/util-int.h"

struct bag_view {
	bag_timeline_t *tl;
	bool *mask;               /* per timeline connection */
	bool all_conns;
	int64_t start_ns;
	int64_t end_ns;
	size_t g0;                /* groups [g0, g0 + ng) meet the range */
	size_t ng;
	uint64_t *base;           /* ng + 1 */
	bool *direct;             /* ng */
	uint32_t **sel;           /* ng; NULL until built */
	uint32_t *sel_gen;        /* ng; the group load (gen) each sel[k] was built from */
	uint64_t count;
	bool pinned;              /* a chunk is pinned for the last read */
	size_t pin_bag;
	size_t pin_chunk;
	size_t last_group;        /* the group of the last row asked for: rows come in order */
	struct bag_error err;      /* the last failure (common.h) */
};

/* ---- views ---------------------------------------------------------------- */

BAG_API void bag_query_init(struct bag_query *q)
{
	static const struct bag_query all = BAG_QUERY_INIT;

	*q = all;
}

static bool name_in(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(name, list[i]) == 0)
			return true;
	return false;
}

static int view_fail_tl(bag_view_t *v, int rc)
{
	bag_error_copy(&v->err, &v->tl->err);
	return rc;
}

int view_fail(bag_view_t *v, int rc, const char *text, size_t len)
{
	return bag_error_say(&v->err, rc, "%.*s", (int)len, text);
}

/* Selected rows of group gi: from its entries once loaded, else its chunk infos. */
static uint64_t group_selected(const bag_view_t *v, size_t gi)
{
	const bag_timeline_t *tl = v->tl;
	const struct tl_group *g = &tl->groups[gi];
	uint64_t n = 0;

	if (v->all_conns)
		return g->count;
	if (g->entries != NULL) {
		for (uint64_t i = 0; i < g->count; i++)
			n += v->mask[g->refs[g->entries[i].ref].conn];
		return n;
	}
	for (uint32_t i = 0; i < g->tchunk_n; i++) {
		const struct tl_chunk *tc = &tl->chunks[g->tchunk_first + i];
		const bag_t *bag = tl->bags[tc->bag];
		const struct chunk *ch = &bag->chunks[tc->chunk];
		for (uint32_t k = 0; k < ch->conn_n; k++) {
			const struct chunk_conn *cc = &bag->chunk_conns[ch->conn_first + k];
			if (v->mask[tl->conn_base[tc->bag] + cc->conn])
				n += cc->count;
		}
	}
	return n;
}

/* Build the selection list of the view's k-th group; returns its length. */
static int view_build_sel(bag_view_t *v, size_t k, uint64_t *n_out)
{
	bag_timeline_t *tl = v->tl;
	size_t gi = v->g0 + k;
	struct tl_group *g = &tl->groups[gi];
	uint32_t *sel, n = 0;
	int rc;

	if ((rc = tl_group_load(tl, gi)) != BAG_OK)
		return view_fail_tl(v, rc);
	sel = malloc((g->count ? g->count : 1) * sizeof *sel);
	if (sel == NULL)
		return BAG_ENOMEM;
	for (uint32_t i = 0; i < g->count; i++) {
		const struct tl_entry *e = &g->entries[i];
		if (e->time_ns >= v->start_ns && e->time_ns <= v->end_ns && v->mask[g->refs[e->ref].conn])
			sel[n++] = i;
	}
	free(v->sel[k]);
	v->sel[k] = sel;
	v->sel_gen[k] = g->gen;
	*n_out = n;
	return BAG_OK;
}

BAG_API int bag_view_open(bag_view_t **out, bag_timeline_t *tl, const struct bag_query *q)
{
	struct bag_query all = BAG_QUERY_INIT;
	bag_view_t *v;
	int rc = BAG_ENOMEM;

	*out = v = calloc(1, sizeof *v);
	if (v == NULL)
		return BAG_ENOMEM;
	bag_error_clear(&v->err);
	if (q != NULL && bag_opts_read(&all, sizeof all, q) != BAG_OK)
		return bag_error_say(&v->err, BAG_EINVAL, "bag_view_open: a query of an unknown size (%zu, "
		                     "this library's is %zu) or with unknown fields set", q->size, sizeof all);
	q = &all;
	v->tl = tl;
	v->start_ns = q->start_ns;
	v->end_ns = q->end_ns;
	v->mask = calloc(tl->nconns ? tl->nconns : 1, sizeof *v->mask);
	if (v->mask == NULL)
		goto fail;
	v->all_conns = true;
	for (size_t i = 0; i < tl->nconns; i++) {
		const struct bag_connection *c = bag_timeline_conn(tl, i, NULL);
		if (q->conn_mask != NULL)
			v->mask[i] = q->conn_mask[i];
		else
			v->mask[i] = (q->ntopics == 0 || name_in(c->topic, q->topics, q->ntopics)) &&
			             (q->ntypes == 0 || name_in(c->type, q->types, q->ntypes));
		if (v->mask[i] && q->conn_pred != NULL)
			v->mask[i] = q->conn_pred(q->conn_arg, c);
		v->all_conns &= v->mask[i];
	}
	size_t lo = 0, hi = tl->ngroups;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (tl->groups[mid].end_ns < v->start_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	v->g0 = lo;
	while (lo < tl->ngroups && tl->groups[lo].start_ns <= v->end_ns)
		lo++;
	v->ng = lo - v->g0;
	v->base = calloc(v->ng + 1, sizeof *v->base);
	v->direct = calloc(v->ng ? v->ng : 1, sizeof *v->direct);
	v->sel = calloc(v->ng ? v->ng : 1, sizeof *v->sel);
	v->sel_gen = calloc(v->ng ? v->ng : 1, sizeof *v->sel_gen);
	if (v->base == NULL || v->direct == NULL || v->sel == NULL || v->sel_gen == NULL)
		goto fail;
	for (size_t k = 0; k < v->ng; k++) {
		const struct tl_group *g = &tl->groups[v->g0 + k];
		bool inside = g->start_ns >= v->start_ns && g->end_ns <= v->end_ns;
		uint64_t n;

		v->direct[k] = inside && v->all_conns;
		if (inside) {
			n = group_selected(v, v->g0 + k);
		} else if ((rc = view_build_sel(v, k, &n)) != BAG_OK) {
			goto fail;
		}
		v->base[k + 1] = v->base[k] + n;
	}
	v->count = v->base[v->ng];
	rc = BAG_OK;
fail:
	if (rc == BAG_ENOMEM && v->err.message[0] == '\0')
		bag_error_say(&v->err, rc, "out of memory");
	return rc;
}

static void view_unpin(bag_view_t *v)
{
	if (v->pinned)
		bag_chunk_unpin(v->tl->bags[v->pin_bag], v->pin_chunk);
	v->pinned = false;
}

BAG_API void bag_view_free(bag_view_t *v)
{
	if (v == NULL)
		return;
	view_unpin(v);
	for (size_t k = 0; v->sel != NULL && k < v->ng; k++)
		free(v->sel[k]);
	free(v->sel);
	free(v->sel_gen);
	free(v->direct);
	free(v->base);
	free(v->mask);
	free(v);
}

BAG_API const struct bag_error *bag_view_error(const bag_view_t *v)
{
	return v != NULL ? &v->err : &bag_error_nomem;
}

BAG_API uint64_t bag_view_count(const bag_view_t *v)
{
	return v->count;
}

BAG_API bool bag_view_selects(const bag_view_t *v, size_t conn_index)
{
	return conn_index < v->tl->nconns && v->mask[conn_index];
}

/* The view group k that holds row (row < count). */
static size_t view_group_of(bag_view_t *v, uint64_t row)
{
	size_t lo = 0, hi = v->ng;

	if (v->last_group < v->ng && row >= v->base[v->last_group] && row < v->base[v->last_group + 1])
		return v->last_group;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (v->base[mid] <= row)
			lo = mid;
		else
			hi = mid;
	}
	v->last_group = lo;
	return lo;
}

/*
 * Make group k usable: loaded, and its selection built (again, if the group
 * was reloaded) unless direct. When its rows turn out other than counted
 * (a chunk info promised a wrong count), the rows after it move.
 */
static int view_ready(bag_view_t *v, size_t k)
{
	const struct tl_group *g = &v->tl->groups[v->g0 + k];
	uint64_t n;
	int rc;

	if (v->direct[k] && g->entries != NULL && g->count == v->base[k + 1] - v->base[k])
		return BAG_OK;   /* the common case: asked once a row */
	if (v->direct[k]) {
		if ((rc = tl_group_load(v->tl, v->g0 + k)) != BAG_OK)
			return view_fail_tl(v, rc);
		n = g->count;
	} else if (v->sel[k] != NULL && g->entries != NULL && v->sel_gen[k] == g->gen) {
		return BAG_OK;
	} else if ((rc = view_build_sel(v, k, &n)) != BAG_OK) {
		return rc;
	}
	if (n != v->base[k + 1] - v->base[k]) {
		int64_t delta = (int64_t)n - (int64_t)(v->base[k + 1] - v->base[k]);
		for (size_t j = k + 1; j <= v->ng; j++)
			v->base[j] += (uint64_t)delta;
		v->count = v->base[v->ng];
	}
	return BAG_OK;
}

/* bag_view_entry(), also giving the timeline chunk and the view group. */
static int view_entry(bag_view_t *v, uint64_t row, struct bag_message *m, uint32_t *tchunk, size_t *gk)
{
	const bag_timeline_t *tl = v->tl;
	const struct tl_group *g;
	const struct tl_entry *e;
	const struct tl_ref *ref;
	const struct tl_chunk *tc;
	size_t k;
	int rc;

	/* loading a group can correct its row count and move the rows after it */
	for (;;) {
		if (row >= v->count) {
			return bag_error_say(&v->err, BAG_EINVAL, "row %llu is past the last row (%llu)",
			                     (unsigned long long)row, (unsigned long long)v->count);
		}
		k = view_group_of(v, row);
		if ((rc = view_ready(v, k)) != BAG_OK)
			return rc;
		if (row >= v->base[k] && row < v->base[k + 1])
			break;
	}
	g = &tl->groups[v->g0 + k];
	e = &g->entries[v->direct[k] ? row - v->base[k] : v->sel[k][row - v->base[k]]];
	ref = &g->refs[e->ref];
	tc = &tl->chunks[ref->tchunk];
	m->row = row;
	m->time_ns = e->time_ns;
	m->bag_index = tc->bag;
	m->conn_index = ref->conn;
	m->conn = &tl->bags[tc->bag]->conns[ref->conn - tl->conn_base[tc->bag]];
	m->chunk = tc->chunk;
	m->offset = e->offset;
	m->data = NULL;
	m->size = 0;
	*tchunk = ref->tchunk;
	*gk = k;
	return BAG_OK;
}

BAG_API bool bag_view_row_loaded(bag_view_t *v, uint64_t row, size_t *group)
{
	size_t k;

	*group = 0;
	if (row >= v->count)
		return true;
	k = view_group_of(v, row);
	*group = v->g0 + k;
	return v->tl->groups[v->g0 + k].entries != NULL;
}

BAG_API int bag_view_entry(bag_view_t *v, uint64_t row, struct bag_message *m)
{
	uint32_t tchunk;
	size_t k;

	return view_entry(v, row, m, &tchunk, &k);
}

/*
 * At the first read of a chunk whose entries came from its index data,
 * compare them with its data: the same messages (offset, connection, time)
 * or the chunk is walked instead - its index data was damaged (entries
 * pointing at the wrong record, a wrong time, records swapped). Returns 1
 * when its group was unloaded for that, else 0.
 */
static int check_chunk(bag_view_t *v, uint32_t tchunk, size_t k)
{
	bag_timeline_t *tl = v->tl;
	struct tl_chunk *tc = &tl->chunks[tchunk];
	bag_t *bag = tl->bags[tc->bag];
	struct tl_group *g = &tl->groups[v->g0 + k];
	uint64_t n, sum;

	if (tc->checked || tc->walk || bag->chunks[tc->chunk].no_index)
		return 0;
	tc->checked = true;
	if (chunk_entries_sum(bag, tc->chunk, &n, &sum) != BAG_OK) {
		tc->checked = bag->err.code != BAG_ECANCELED;   /* cancelled: checked at the next read */
		return 0;                 /* the read itself reports what is wrong */
	}
	if (n == tc->nents && sum == tc->sum)
		return 0;
	if (tl_warn(tl, "%s: at byte %llu: the chunk's index data do not match its %zu message%s; the chunk "
	            "is indexed from its data", bag->path, (unsigned long long)bag->chunks[tc->chunk].pos,
	            (size_t)n, BAG_S(n)) != BAG_OK)
		return 0;
	tc->walk = true;
	tl->loaded_rows -= g->count;
	tl->loaded_groups--;
	tl_group_unload(g);
	return 1;
}

BAG_API int bag_view_read(bag_view_t *v, uint64_t row, struct bag_message *m)
{
	bag_t *bag;
	int rc;

	uint32_t tchunk;
	size_t k;

	if ((rc = view_entry(v, row, m, &tchunk, &k)) != BAG_OK)
		return rc;
	if (check_chunk(v, tchunk, k) && (rc = view_entry(v, row, m, &tchunk, &k)) != BAG_OK)
		return rc;
	bag = v->tl->bags[m->bag_index];
	rc = bag_message_read(bag, m->chunk, m->offset, m->conn->id, m->time_ns, &m->data, &m->size);
	if (rc != BAG_OK) {
		bag_error_copy(&v->err, &bag->err);
		return rc;
	}
	view_unpin(v);
	v->pinned = true;
	v->pin_bag = m->bag_index;
	v->pin_chunk = m->chunk;
	return BAG_OK;
}

/* The view's first group ending at or after t (v->ng if none). */
static size_t group_at_time(const bag_view_t *v, int64_t t)
{
	size_t lo = 0, hi = v->ng;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v->tl->groups[v->g0 + mid].end_ns < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

BAG_API int bag_view_seek_loaded(bag_view_t *v, int64_t t, uint64_t *row, size_t *group)
{
	size_t k = group_at_time(v, t);

	*group = v->g0 + k;
	if (k == v->ng || v->tl->groups[v->g0 + k].entries != NULL)
		return bag_view_seek(v, t, row);
	*row = v->base[k];
	return 1;
}

BAG_API int bag_view_seek(bag_view_t *v, int64_t t, uint64_t *row)
{
	const struct tl_group *g;
	size_t k = group_at_time(v, t);
	uint32_t a, b;
	int rc;

	if (k == v->ng) {
		*row = v->count;
		return BAG_OK;
	}
	if ((rc = view_ready(v, k)) != BAG_OK)
		return rc;
	g = &v->tl->groups[v->g0 + k];
	a = 0;
	b = (uint32_t)(v->base[k + 1] - v->base[k]);
	while (a < b) {
		uint32_t mid = a + (b - a) / 2;
		uint32_t e = v->direct[k] ? mid : v->sel[k][mid];
		if (g->entries[e].time_ns < t)
			a = mid + 1;
		else
			b = mid;
	}
	*row = v->base[k] + a;
	return BAG_OK;
}

/* ---- for the scan engine (view-int.h) -------------------------------------- */

size_t view_group_of_row(bag_view_t *v, uint64_t row)
{
	return view_group_of(v, row);
}

bool view_group_loaded(const bag_view_t *v, size_t k)
{
	return v->tl->groups[v->g0 + k].entries != NULL;
}

void view_group_release(bag_view_t *v, size_t k)
{
	struct tl_group *g = &v->tl->groups[v->g0 + k];

	free(v->sel[k]);
	v->sel[k] = NULL;
	if (g->entries == NULL)
		return;
	v->tl->loaded_rows -= g->count;
	v->tl->loaded_groups--;
	tl_group_unload(g);
}

const bool *view_mask(const bag_view_t *v, int64_t *start_ns, int64_t *end_ns)
{
	*start_ns = v->start_ns;
	*end_ns = v->end_ns;
	return v->mask;
}

bag_timeline_t *view_timeline(const bag_view_t *v)
{
	return v->tl;
}

uint64_t view_group_first_row(const bag_view_t *v, size_t k)
{
	return v->base[k < v->ng ? k : v->ng];
}

int view_recheck(bag_view_t *v, uint64_t row)
{
	struct bag_message m;
	uint32_t tchunk;
	size_t k;
	int rc;

	if ((rc = view_entry(v, row, &m, &tchunk, &k)) != BAG_OK)
		return rc;
	return check_chunk(v, tchunk, k);
}
