/*
 * timeline.c - the timeline: every message of one or more bags in time order.
 *
 * The timeline's chunks (from all bags) are sorted by start time and cut into
 * groups: a group is a maximal run of chunks whose time ranges overlap or
 * touch, so groups are disjoint in time and each group's rows are contiguous.
 * Row counts per group come from the chunk infos; a group's entries are read
 * from its chunks' index-data records only when first needed.
 *
 * A loaded group holds one 16-byte entry per message (time, offset in the
 * chunk, ref) in final order; ref names a (chunk, connection) pair in the
 * group's refs table. Final order is time, then timeline connection index,
 * then file position: the index records ("runs") are laid out in
 * (connection, chunk position) order and merged stably on time alone.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/record.h>
#include <bagscope/view.h>
#include "lib/formats/bag-int.h"
#include "lib/index/entries-int.h"
#include "lib/index/timeline-int.h"
#include "lib/common/util-int.h"

/* One index-data record's entries while a group is merged. */
struct run {
	uint32_t start;
	uint32_t len;
	uint32_t conn;
	uint64_t pos;             /* chunk file position, bag-major */
	uint32_t bag;
};

static int tl_fail(bag_timeline_t *tl, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int tl_fail(bag_timeline_t *tl, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bag_error_vset(&tl->err, code, NULL, BAG_NO_OFFSET, fmt, ap);
	va_end(ap);
	return code;
}

static const struct chunk *tl_chunk_of(const bag_timeline_t *tl, uint32_t tchunk)
{
	const struct tl_chunk *tc = &tl->chunks[tchunk];
	return &tl->bags[tc->bag]->chunks[tc->chunk];
}

/* Chunks ordered by start time, then end, then bag and position. */
static int cmp_tl_chunk(const void *a, const void *b, void *arg)
{
	const bag_timeline_t *tl = arg;
	const struct tl_chunk *x = a, *y = b;
	const struct chunk *cx = &tl->bags[x->bag]->chunks[x->chunk];
	const struct chunk *cy = &tl->bags[y->bag]->chunks[y->chunk];

	if (cx->start_ns != cy->start_ns)
		return cx->start_ns < cy->start_ns ? -1 : 1;
	if (cx->end_ns != cy->end_ns)
		return cx->end_ns < cy->end_ns ? -1 : 1;
	if (x->bag != y->bag)
		return x->bag < y->bag ? -1 : 1;
	return (cx->pos > cy->pos) - (cx->pos < cy->pos);
}

BAG_API int bag_timeline_open(bag_timeline_t **out, bag_t *const *bags, size_t nbags)
{
	bag_timeline_t *tl;
	size_t n = 0;
	int rc = BAG_ENOMEM;

	*out = tl = calloc(1, sizeof *tl);
	if (tl == NULL)
		return BAG_ENOMEM;
	tl->bags = calloc(nbags ? nbags : 1, sizeof *tl->bags);
	tl->conn_base = calloc(nbags ? nbags : 1, sizeof *tl->conn_base);
	if (tl->bags == NULL || tl->conn_base == NULL)
		goto fail;
	tl->nbags = nbags;
	for (size_t b = 0; b < nbags; b++) {
		tl->bags[b] = bags[b];
		tl->conn_base[b] = tl->nconns;
		tl->nconns += bags[b]->nconns;
		for (size_t c = 0; c < bags[b]->nchunks; c++)
			n += bags[b]->chunks[c].count > 0 || bags[b]->chunks[c].estimated;
	}
	tl->chunks = calloc(n ? n : 1, sizeof *tl->chunks);
	tl->groups = calloc(n ? n : 1, sizeof *tl->groups);
	if (tl->chunks == NULL || tl->groups == NULL)
		goto fail;
	for (size_t b = 0; b < nbags; b++)
		for (size_t c = 0; c < bags[b]->nchunks; c++)
			if (bags[b]->chunks[c].count > 0 || bags[b]->chunks[c].estimated)
				tl->chunks[tl->nchunks++] = (struct tl_chunk){ .bag = (uint32_t)b, .chunk = (uint32_t)c };
	qsort_r(tl->chunks, tl->nchunks, sizeof *tl->chunks, cmp_tl_chunk, tl);
	for (size_t i = 0; i < tl->nchunks; i++) {
		const struct chunk *ch = tl_chunk_of(tl, (uint32_t)i);
		struct tl_group *g = tl->ngroups ? &tl->groups[tl->ngroups - 1] : NULL;

		if (g == NULL || ch->start_ns > g->end_ns) {
			g = &tl->groups[tl->ngroups++];
			g->first_row = tl->count;
			g->start_ns = ch->start_ns;
			g->end_ns = ch->end_ns;
			g->tchunk_first = (uint32_t)i;
		}
		g->tchunk_n++;
		g->count += ch->count;
		if (ch->end_ns > g->end_ns)
			g->end_ns = ch->end_ns;
		tl->count += ch->count;
	}
	rc = BAG_OK;
fail:
	return rc;
}

void tl_group_unload(struct tl_group *g)
{
	free(g->entries);
	free(g->refs);
	g->entries = NULL;
	g->refs = NULL;
	g->nrefs = 0;
}

BAG_API void bag_timeline_free(bag_timeline_t *tl)
{
	if (tl == NULL)
		return;
	for (size_t i = 0; i < tl->ngroups; i++)
		tl_group_unload(&tl->groups[i]);
	free(tl->groups);
	free(tl->chunks);
	free(tl->conn_base);
	free(tl->bags);
	chunk_entries_free(&tl->ents);
	for (size_t i = 0; tl->warnings != NULL && i < tl->nwarnings && i < BAG_WARNINGS_MAX; i++)
		free(tl->warnings[i]);
	free(tl->warnings);
	free(tl);
}

BAG_API const struct bag_error *bag_timeline_error(const bag_timeline_t *tl)
{
	return tl != NULL ? &tl->err : &bag_error_nomem;
}


/* Keep a warning line. Returns 0 or BAG_ENOMEM. */
int tl_warn(bag_timeline_t *tl, const char *fmt, ...)
{
	struct bag_error line;
	va_list ap;

	if (tl->nwarnings++ >= BAG_WARNINGS_MAX)
		return BAG_OK;
	if (tl->warnings == NULL && (tl->warnings = calloc(BAG_WARNINGS_MAX, sizeof *tl->warnings)) == NULL)
		goto nomem;
	va_start(ap, fmt);
	bag_error_vset(&line, BAG_OK, NULL, BAG_NO_OFFSET, fmt, ap);
	va_end(ap);
	if ((tl->warnings[tl->nwarnings - 1] = strdup(line.message)) == NULL)
		goto nomem;
	return BAG_OK;
nomem:
	tl->nwarnings--;
	return tl_fail(tl, BAG_ENOMEM, "out of memory");
}

BAG_API size_t bag_timeline_warning_count(const bag_timeline_t *tl)
{
	return tl->nwarnings;
}

BAG_API const char *bag_timeline_warning(const bag_timeline_t *tl, size_t i)
{
	return tl->warnings != NULL && i < tl->nwarnings && i < BAG_WARNINGS_MAX ? tl->warnings[i] : NULL;
}

/* Copy a bag's failure message onto the timeline. */
static int tl_bag_fail(bag_timeline_t *tl, const bag_t *bag, int rc)
{
	bag_error_copy(&tl->err, &bag->err);
	return rc;
}

static int cmp_run(const void *a, const void *b)
{
	const struct run *x = a, *y = b;

	if (x->conn != y->conn)
		return x->conn < y->conn ? -1 : 1;
	if (x->bag != y->bag)
		return x->bag < y->bag ? -1 : 1;
	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

/* Stable merge of src[a..b) and src[b..c) into dst[a..c) by time. */
static void merge2(const struct tl_entry *src, struct tl_entry *dst, uint32_t a, uint32_t b, uint32_t c)
{
	uint32_t i = a, j = b, k = a;

	while (i < b && j < c)
		dst[k++] = src[j].time_ns < src[i].time_ns ? src[j++] : src[i++];
	while (i < b)
		dst[k++] = src[i++];
	while (j < c)
		dst[k++] = src[j++];
}

/*
 * Merge the runs bounds[0..nruns] of *a (using *b as space) until one is
 * left; *a then holds the result.
 */
static void merge_runs(struct tl_entry **a, struct tl_entry **b, uint32_t *bounds, size_t nruns)
{
	while (nruns > 1) {
		size_t out = 0;

		for (size_t r = 0; r < nruns; r += 2) {
			if (r + 1 < nruns)
				merge2(*a, *b, bounds[r], bounds[r + 1], bounds[r + 2]);
			else
				memcpy(*b + bounds[r], *a + bounds[r],
				       (bounds[r + 1] - bounds[r]) * sizeof **a);
			bounds[out++] = bounds[r];
		}
		bounds[out] = bounds[nruns];
		nruns = out;
		struct tl_entry *t = *a;
		*a = *b;
		*b = t;
	}
}

/* A group's entries, refs and runs while it is loaded (arrays grow). */
struct builder {
	struct tl_entry *ents;
	size_t n, ents_cap;
	struct run *runs;
	size_t nruns, runs_cap;
	struct tl_ref *refs;
	size_t nrefs, refs_cap;
};

/* Room for n more entries, one more run and one more ref. */
static int builder_room(bag_timeline_t *tl, struct builder *b, size_t n)
{
	if (bag_grow((void **)&b->ents, &b->ents_cap, b->n + n, sizeof *b->ents) != BAG_OK ||
	    bag_grow((void **)&b->runs, &b->runs_cap, b->nruns + n + 1, sizeof *b->runs) != BAG_OK ||
	    bag_grow((void **)&b->refs, &b->refs_cap, b->nrefs + 1, sizeof *b->refs) != BAG_OK)
		return tl_fail(tl, BAG_ENOMEM, "out of memory loading index entries");
	return BAG_OK;
}

/*
 * Add the entries b->ents[first..b->n) of one (chunk, connection) as runs:
 * maximal stretches in time order.
 */
static void add_runs(struct builder *b, size_t first, uint32_t conn, const struct chunk *ch, uint32_t bag)
{
	b->runs[b->nruns] = (struct run){ (uint32_t)first, 0, conn, ch->pos, bag };
	for (size_t i = first + 1; i < b->n; i++) {
		if (b->ents[i].time_ns < b->ents[i - 1].time_ns) {
			b->runs[b->nruns].len = (uint32_t)i - b->runs[b->nruns].start;
			b->nruns++;
			b->runs[b->nruns] = (struct run){ (uint32_t)i, 0, conn, ch->pos, bag };
		}
	}
	b->runs[b->nruns].len = (uint32_t)b->n - b->runs[b->nruns].start;
	b->nruns++;
}

/*
 * Add chunk tchunk's entries c (grouped by connection, each in file order)
 * to b: a ref per connection, and its entries as runs.
 */
static int add_entries(bag_timeline_t *tl, uint32_t tchunk, const struct chunk_entries *c, struct builder *b)
{
	const struct tl_chunk *tc = &tl->chunks[tchunk];
	const struct chunk *ch = &tl->bags[tc->bag]->chunks[tc->chunk];
	int rc;

	for (size_t i = 0, j; i < c->n; i = j) {
		for (j = i; j < c->n && c->e[j].conn == c->e[i].conn; j++)
			;
		if ((rc = builder_room(tl, b, j - i)) != BAG_OK)
			return rc;
		uint32_t ref = (uint32_t)b->nrefs++;
		size_t first = b->n;
		b->refs[ref] = (struct tl_ref){ tchunk, (uint32_t)(tl->conn_base[tc->bag] + c->e[i].conn) };
		for (size_t k = i; k < j; k++)
			b->ents[b->n++] = (struct tl_entry){ c->e[k].time_ns, c->e[k].offset, ref };
		add_runs(b, first, b->refs[ref].conn, ch, tc->bag);
	}
	return BAG_OK;
}

BAG_API int bag_timeline_warm(const bag_timeline_t *tl, size_t group, bag_t *const *bags)
{
	struct chunk_entries ents = { 0 };
	const struct tl_group *g;
	int rc = BAG_OK;

	if (group >= tl->ngroups)
		return BAG_EINVAL;
	g = &tl->groups[group];
	for (uint32_t i = 0; i < g->tchunk_n && rc != BAG_ECANCELED; i++) {
		const struct tl_chunk *tc = &tl->chunks[g->tchunk_first + i];
		int r = chunk_entries_read(bags[tc->bag], tc->chunk, &ents);
		if (r != BAG_OK && rc == BAG_OK)
			rc = r;   /* the load reports it; the other chunks are still fetched */
	}
	chunk_entries_free(&ents);
	return rc;
}

/*
 * Chunk tchunk's entries into b: from its index data, or walked from its
 * data when it has none or they are unusable (*why then says why).
 */
static int load_chunk(bag_timeline_t *tl, uint32_t tchunk, struct builder *b, char *why, size_t whylen)
{
	struct tl_chunk *tc = &tl->chunks[tchunk];
	bag_t *bag = tl->bags[tc->bag];
	const struct chunk *ch = &bag->chunks[tc->chunk];
	int rc;

	if (!tc->walk && !ch->no_index) {
		rc = chunk_entries_read(bag, tc->chunk, &tl->ents);
		if (rc == BAG_ENOMEM || rc == BAG_EIO || rc == BAG_ECANCELED)
			return tl_bag_fail(tl, bag, rc);   /* not the index data's fault: read again later */
		if (rc == BAG_OK) {
			tc->sum = tl->ents.sum;
			tc->nents = (uint32_t)tl->ents.n;
			return add_entries(tl, tchunk, &tl->ents, b);
		}
		/* warned once the walk works; if it does not, its error is the one */
		snprintf(why, whylen, "%s", bag->err.message);
		tc->walk = true;
	}
	if ((rc = chunk_entries_walk(bag, tc->chunk, &tl->ents)) != BAG_OK)
		return tl_bag_fail(tl, bag, rc);
	return add_entries(tl, tchunk, &tl->ents, b);
}

/*
 * Read and order group gi's entries: each chunk's from its index data, or
 * from its data when it has none or they disagree. The group's row count
 * then becomes what was found (the chunk infos' counts were a promise), and
 * the rows of the groups after it move with it.
 */
int tl_group_load(bag_timeline_t *tl, size_t gi)
{
	struct tl_group *g = &tl->groups[gi];
	struct builder b = { 0 };
	char why[BAG_ERROR_MESSAGE_MAX];
	struct tl_entry *merged = NULL;
	uint32_t *bounds = NULL;
	int rc = BAG_OK;

	if (g->entries != NULL)   /* the common case: asked once a row */
		return BAG_OK;
	why[0] = '\0';
	for (uint32_t i = 0; i < g->tchunk_n; i++) {
		if ((rc = load_chunk(tl, g->tchunk_first + i, &b, why, sizeof why)) != BAG_OK)
			goto fail;
		if (why[0] != '\0' && (rc = tl_warn(tl, "%s; the chunk is indexed from its data", why)) != BAG_OK)
			goto fail;
		why[0] = '\0';
	}
	if (b.n > UINT32_MAX) {
		rc = tl_fail(tl, BAG_EUNSUPP, "a group of overlapping chunks holds %zu message%s, more than 2^32", b.n, BAG_S(b.n));
		goto fail;
	}
	if (b.nruns > 1) {
		bag_sort(b.runs, b.nruns, sizeof *b.runs, cmp_run);
		merged = malloc(b.n * sizeof *merged);
		bounds = malloc((b.nruns + 1) * sizeof *bounds);
		if (merged == NULL || bounds == NULL) {
			rc = tl_fail(tl, BAG_ENOMEM, "out of memory merging %zu index entries", b.n);
			goto fail;
		}
		uint32_t at = 0;
		for (size_t r = 0; r < b.nruns; r++) {
			bounds[r] = at;
			memcpy(merged + at, b.ents + b.runs[r].start, b.runs[r].len * sizeof *merged);
			at += b.runs[r].len;
		}
		bounds[b.nruns] = at;
		merge_runs(&merged, &b.ents, bounds, b.nruns);
	} else {
		merged = b.ents;
		b.ents = NULL;
	}
	if (b.n != g->count) {
		/* the rows found differ from the chunk infos' count: later rows move */
		int64_t delta = (int64_t)b.n - (int64_t)g->count;
		for (size_t j = gi + 1; j < tl->ngroups; j++)
			tl->groups[j].first_row += (uint64_t)delta;
		tl->count += (uint64_t)delta;
		g->count = b.n;
	}
	g->entries = merged;
	merged = NULL;
	g->refs = b.refs;
	g->nrefs = (uint32_t)b.nrefs;
	b.refs = NULL;
	g->gen++;
	tl->loaded_rows += g->count;
	tl->loaded_groups++;
	rc = BAG_OK;
fail:
	free(b.ents);
	free(b.refs);
	free(b.runs);
	free(merged);
	free(bounds);
	return rc;
}

BAG_API int bag_timeline_load(bag_timeline_t *tl, uint64_t max_rows)
{
	uint64_t done = 0;
	int rc;

	while (tl->next_load < tl->ngroups) {
		if (max_rows != 0 && done >= max_rows)
			return 0;
		if ((rc = tl_group_load(tl, tl->next_load)) != BAG_OK)
			return rc;
		done += tl->groups[tl->next_load].count;
		tl->next_load++;
	}
	return 1;
}

BAG_API uint64_t bag_timeline_count(const bag_timeline_t *tl)
{
	return tl->count;
}

BAG_API uint64_t bag_timeline_loaded_rows(const bag_timeline_t *tl)
{
	return tl->loaded_rows;
}

BAG_API size_t bag_timeline_memory(const bag_timeline_t *tl)
{
	size_t bytes = tl->ngroups * sizeof *tl->groups + tl->nchunks * sizeof *tl->chunks;

	for (size_t i = 0; i < tl->ngroups; i++)
		if (tl->groups[i].entries != NULL)
			bytes += tl->groups[i].count * sizeof(struct tl_entry) +
			         tl->groups[i].nrefs * sizeof(struct tl_ref);
	return bytes;
}

BAG_API size_t bag_timeline_bag_count(const bag_timeline_t *tl)
{
	return tl->nbags;
}

BAG_API bag_t *bag_timeline_bag(const bag_timeline_t *tl, size_t i)
{
	return i < tl->nbags ? tl->bags[i] : NULL;
}

BAG_API size_t bag_timeline_conn_count(const bag_timeline_t *tl)
{
	return tl->nconns;
}

/* Which bag timeline connection i belongs to. */
static size_t conn_bag(const bag_timeline_t *tl, size_t i)
{
	size_t b = 0;

	while (b + 1 < tl->nbags && tl->conn_base[b + 1] <= i)
		b++;
	return b;
}

BAG_API const struct bag_connection *bag_timeline_conn(const bag_timeline_t *tl, size_t i,
                                                       size_t *bag_index)
{
	size_t b;

	if (i >= tl->nconns)
		return NULL;
	b = conn_bag(tl, i);
	if (bag_index != NULL)
		*bag_index = b;
	return &tl->bags[b]->conns[i - tl->conn_base[b]];
}

BAG_API int64_t bag_timeline_start(const bag_timeline_t *tl)
{
	return tl->ngroups ? tl->groups[0].start_ns : 0;
}

BAG_API int64_t bag_timeline_end(const bag_timeline_t *tl)
{
	return tl->ngroups ? tl->groups[tl->ngroups - 1].end_ns : 0;
}
