/*
 * index.c - the timeline (every message of one or more bags in time order)
 * and views over it.
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
 *
 * A view maps its rows onto the groups that meet its time range: base[k] is
 * the first view row of group g0 + k. A group is "direct" when the view takes
 * all of its entries (row - base = entry); otherwise sel[k] lists the entries
 * it takes, built when the group is first used.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/record.h>
#include <bagscope/view.h>
#include "lib/bag-int.h"
#include "lib/view-int.h"
#include "lib/util-int.h"


struct tl_chunk {
	uint32_t bag;     /* index into tl->bags */
	uint32_t chunk;   /* index into that bag's chunks */
	bool walk;        /* entries come from its data: its index data disagreed */
	bool checked;     /* its index entries were compared with its data */
	uint32_t nents;   /* entries its index data gave, and */
	uint64_t sum;     /* their entry_mix() sum, for that comparison */
};

struct tl_ref {
	uint32_t tchunk;  /* index into tl->chunks */
	uint32_t conn;    /* timeline connection index */
};

struct tl_entry {
	int64_t time_ns;
	uint32_t offset;  /* record offset in the decompressed chunk */
	uint32_t ref;     /* index into the group's refs */
};

struct tl_group {
	uint64_t first_row;       /* first timeline row */
	uint64_t count;           /* rows: the chunk infos' count, then what was loaded */
	uint32_t gen;             /* bumped at each load: views' selections are of one */
	int64_t start_ns;         /* min start over its chunks */
	int64_t end_ns;           /* max end over its chunks */
	uint32_t tchunk_first;    /* its chunks in tl->chunks */
	uint32_t tchunk_n;
	struct tl_entry *entries; /* NULL until loaded */
	struct tl_ref *refs;
	uint32_t nrefs;
};

struct bag_timeline {
	bag_t **bags;
	size_t nbags;
	size_t *conn_base;        /* first timeline connection of each bag */
	size_t nconns;
	struct tl_chunk *chunks;  /* sorted by start time */
	size_t nchunks;
	struct tl_group *groups;
	size_t ngroups;
	uint64_t count;
	uint64_t loaded_rows;
	size_t loaded_groups;
	size_t next_load;         /* bag_timeline_load() resumes here */
	uint8_t *scratch;         /* index-region read buffer */
	size_t scratch_cap;
	char **warnings;          /* index damage worked around, at most BAG_WARNINGS_MAX */
	size_t nwarnings;         /* all of them, kept or not */
	char errmsg[BAG_ERRMSG_MAX];
};

/* One index-data record's entries while a group is merged. */
struct run {
	uint32_t start;
	uint32_t len;
	uint32_t conn;
	uint64_t pos;             /* chunk file position, bag-major */
	uint32_t bag;
};

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
	char errmsg[BAG_ERRMSG_MAX];
};

static int tl_fail(bag_timeline_t *tl, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int tl_fail(bag_timeline_t *tl, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tl->errmsg, sizeof tl->errmsg, fmt, ap);
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
			n += bags[b]->chunks[c].count > 0;
	}
	tl->chunks = calloc(n ? n : 1, sizeof *tl->chunks);
	tl->groups = calloc(n ? n : 1, sizeof *tl->groups);
	if (tl->chunks == NULL || tl->groups == NULL)
		goto fail;
	for (size_t b = 0; b < nbags; b++)
		for (size_t c = 0; c < bags[b]->nchunks; c++)
			if (bags[b]->chunks[c].count > 0)
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

static void group_unload(struct tl_group *g)
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
		group_unload(&tl->groups[i]);
	free(tl->groups);
	free(tl->chunks);
	free(tl->conn_base);
	free(tl->bags);
	free(tl->scratch);
	for (size_t i = 0; tl->warnings != NULL && i < tl->nwarnings && i < BAG_WARNINGS_MAX; i++)
		free(tl->warnings[i]);
	free(tl->warnings);
	free(tl);
}

BAG_API const char *bag_timeline_errmsg(const bag_timeline_t *tl)
{
	return tl ? tl->errmsg : "out of memory";
}

static int tl_warn(bag_timeline_t *tl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Keep a warning line. Returns 0 or BAG_ENOMEM. */
static int tl_warn(bag_timeline_t *tl, const char *fmt, ...)
{
	char line[BAG_ERRMSG_MAX];
	va_list ap;

	if (tl->nwarnings++ >= BAG_WARNINGS_MAX)
		return BAG_OK;
	if (tl->warnings == NULL && (tl->warnings = calloc(BAG_WARNINGS_MAX, sizeof *tl->warnings)) == NULL)
		goto nomem;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if ((tl->warnings[tl->nwarnings - 1] = strdup(line)) == NULL)
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
	return tl_fail(tl, rc, "%s", bag->errmsg);
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

/* Make sure the scratch buffer holds len bytes. */
static int scratch_reserve(bag_timeline_t *tl, size_t len)
{
	if (len <= tl->scratch_cap)
		return BAG_OK;
	uint8_t *n = realloc(tl->scratch, len);
	if (n == NULL)
		return tl_fail(tl, BAG_ENOMEM, "out of memory reading an index region of %zu bytes", len);
	tl->scratch = n;
	tl->scratch_cap = len;
	return BAG_OK;
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

/* An order-free fingerprint term for one message: where, which, when. */
static uint64_t entry_mix(uint32_t offset, uint32_t conn_id, int64_t time_ns)
{
	uint64_t x = ((uint64_t)conn_id << 32 | offset) ^ (uint64_t)time_ns * 0x9E3779B97F4A7C15ull;

	x ^= x >> 30;
	x *= 0xBF58476D1CE4E5B9ull;
	x ^= x >> 27;
	x *= 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

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

/* One message found while a chunk's data is walked. */
struct walked {
	uint32_t conn;            /* bag connection index */
	uint32_t offset;
	int64_t time_ns;
};

/* What a walk of a chunk's data collects. */
struct walk_collect {
	const bag_t *bag;
	struct walked *w;
	size_t n, cap;
	uint64_t sum;             /* entry_mix() over them */
};

static int walk_collect_item(void *arg, const struct chunk_item *it)
{
	struct walk_collect *c = arg;
	long conn;

	if (!it->msg_ok || (conn = bag_conn_lookup(c->bag, it->conn_id)) < 0)
		return BAG_OK;
	if (bag_grow((void **)&c->w, &c->cap, c->n + 1, sizeof *c->w) != BAG_OK)
		return BAG_ENOMEM;
	c->w[c->n++] = (struct walked){ (uint32_t)conn, it->offset, it->time_ns };
	c->sum += entry_mix(it->offset, it->conn_id, it->time_ns);
	return BAG_OK;
}

/* Walk chunk i of bag for its messages on defined connections. */
static int walk_chunk(bag_timeline_t *tl, bag_t *bag, size_t i, struct walk_collect *c)
{
	const uint8_t *data;
	size_t len;
	int rc;

	memset(c, 0, sizeof *c);
	c->bag = bag;
	if ((rc = bag_chunk_get(bag, i, &data, &len)) != BAG_OK)
		return tl_bag_fail(tl, bag, rc);
	rc = bag_chunk_walk(data, len, walk_collect_item, c, NULL);
	bag_chunk_unpin(bag, i);
	if (rc != BAG_OK)
		return tl_fail(tl, BAG_ENOMEM, "out of memory walking a chunk");
	return BAG_OK;
}

static int walk_sum_item(void *arg, const struct chunk_item *it)
{
	struct walk_collect *c = arg;

	if (it->msg_ok && bag_conn_lookup(c->bag, it->conn_id) >= 0) {
		c->n++;
		c->sum += entry_mix(it->offset, it->conn_id, it->time_ns);
	}
	return BAG_OK;
}

/* Count and fingerprint chunk i's messages on defined connections (no list). */
static int walk_sum(bag_t *bag, size_t i, struct walk_collect *c)
{
	const uint8_t *data;
	size_t len;
	int rc;

	memset(c, 0, sizeof *c);
	c->bag = bag;
	if ((rc = bag_chunk_get(bag, i, &data, &len)) != BAG_OK)
		return rc;
	rc = bag_chunk_walk(data, len, walk_sum_item, c, NULL);
	bag_chunk_unpin(bag, i);
	return rc;
}

static int cmp_walked(const void *a, const void *b)
{
	const struct walked *x = a, *y = b;

	if (x->conn != y->conn)
		return x->conn < y->conn ? -1 : 1;
	return (x->offset > y->offset) - (x->offset < y->offset);
}

/*
 * Entries of chunk tchunk from its data: a chunk recovered without index
 * records (recover.c), or one whose index data disagreed with its chunk info
 * or its data. Laid out per connection in file order, as index records
 * would give them.
 */
static int walk_chunk_index(bag_timeline_t *tl, uint32_t tchunk, struct builder *b)
{
	const struct tl_chunk *tc = &tl->chunks[tchunk];
	bag_t *bag = tl->bags[tc->bag];
	const struct chunk *ch = &bag->chunks[tc->chunk];
	struct walk_collect c;
	int rc;

	if ((rc = walk_chunk(tl, bag, tc->chunk, &c)) != BAG_OK)
		goto fail;
	if (c.n > 1)
		qsort(c.w, c.n, sizeof *c.w, cmp_walked);
	for (size_t i = 0, j; i < c.n; i = j) {
		for (j = i; j < c.n && c.w[j].conn == c.w[i].conn; j++)
			;
		if ((rc = builder_room(tl, b, j - i)) != BAG_OK)
			goto fail;
		uint32_t ref = (uint32_t)b->nrefs++;
		size_t first = b->n;
		b->refs[ref] = (struct tl_ref){ tchunk, (uint32_t)(tl->conn_base[tc->bag] + c.w[i].conn) };
		for (size_t k = i; k < j; k++)
			b->ents[b->n++] = (struct tl_entry){ c.w[k].time_ns, c.w[k].offset, ref };
		add_runs(b, first, b->refs[ref].conn, ch, tc->bag);
	}
fail:
	free(c.w);
	return rc;
}

/*
 * Read the index-data records after chunk tchunk, adding entries, refs and
 * runs, and the chunk's fingerprint. Any disagreement - with the chunk
 * info's counts, a connection, the chunk's size - is BAG_ECORRUPT (the
 * caller then walks the chunk's data instead).
 */
static int read_chunk_index(bag_timeline_t *tl, uint32_t tchunk, struct builder *b)
{
	struct tl_chunk *tc = &tl->chunks[tchunk];
	bag_t *bag = tl->bags[tc->bag];
	struct chunk *ch = &bag->chunks[tc->chunk];
	uint64_t region, at = 0, got = 0, region_pos;
	struct bag_record rec;
	int rc;

	if ((rc = chunk_load_stat(bag, tc->chunk)) != BAG_OK)
		return tl_bag_fail(tl, bag, rc);
	region_pos = ch->data_pos + ch->data_len;
	region = ch->index_end - region_pos;
	if (ch->count > region / INDEX_ENTRY_BYTES)
		return tl_fail(tl, BAG_ECORRUPT, "%s: at byte %llu: chunk info counts %llu messages, more than its "
		               "index region can hold", bag->path, (unsigned long long)ch->pos,
		               (unsigned long long)ch->count);
	if ((rc = scratch_reserve(tl, (size_t)region)) != BAG_OK)
		return rc;
	if ((rc = bag_read_at(bag, region_pos, tl->scratch, (size_t)region)) != BAG_OK)
		return tl_bag_fail(tl, bag, rc);
	tc->sum = 0;
	while (at < region) {
		uint64_t off = region_pos + at;
		uint32_t ver, conn_id, count;
		uint8_t op;
		long conn, want;

		if (bag_record_parse(tl->scratch + at, (size_t)(region - at), &rec) != BAG_OK ||
		    bag_header_u8(rec.header, rec.header_len, "op", &op) != BAG_OK || op != BAG_OP_INDEX_DATA ||
		    bag_header_u32(rec.header, rec.header_len, "ver", &ver) != BAG_OK || ver != 1 ||
		    bag_header_u32(rec.header, rec.header_len, "conn", &conn_id) != BAG_OK ||
		    bag_header_u32(rec.header, rec.header_len, "count", &count) != BAG_OK)
			return tl_fail(tl, BAG_ECORRUPT, "%s: at byte %llu: unreadable index data record after the "
			               "chunk at byte %llu", bag->path, (unsigned long long)off,
			               (unsigned long long)ch->pos);
		conn = bag_conn_lookup(bag, conn_id);
		want = conn < 0 ? -1 : (long)bag_chunk_conn_messages(bag, tc->chunk, (size_t)conn);
		if (want != (long)count || (uint64_t)count * INDEX_ENTRY_BYTES != rec.data_len ||
		    got + count > ch->count)
			return tl_fail(tl, BAG_ECORRUPT, "%s: at byte %llu: index data for connection %u holds %u entries "
			               "in %u bytes; the chunk info says %ld", bag->path, (unsigned long long)off,
			               conn_id, count, rec.data_len, want);
		if ((rc = builder_room(tl, b, count)) != BAG_OK)
			return rc;
		const uint8_t *p = rec.data;
		uint32_t ref = (uint32_t)b->nrefs++;
		size_t first = b->n;
		b->refs[ref] = (struct tl_ref){ tchunk, (uint32_t)(tl->conn_base[tc->bag] + (size_t)conn) };
		for (uint32_t k = 0; k < count; k++, p += INDEX_ENTRY_BYTES) {
			struct tl_entry *e = &b->ents[b->n++];
			e->time_ns = bag_time_from_ros(bag_le32(p), bag_le32(p + 4));
			e->offset = bag_le32(p + 8);
			e->ref = ref;
			if (e->offset >= ch->size)
				return tl_fail(tl, BAG_ECORRUPT, "%s: at byte %llu: index entry %u points past the end of its chunk",
				               bag->path, (unsigned long long)off, k);
			tc->sum += entry_mix(e->offset, conn_id, e->time_ns);
		}
		add_runs(b, first, b->refs[ref].conn, ch, tc->bag);
		got += count;
		at += rec.size;
	}
	if (got != ch->count)
		return tl_fail(tl, BAG_ECORRUPT, "%s: at byte %llu: chunk info counts %llu messages, its index data %llu",
		               bag->path, (unsigned long long)ch->pos, (unsigned long long)ch->count,
		               (unsigned long long)got);
	tc->nents = (uint32_t)got;
	return BAG_OK;
}

/*
 * Read and order group gi's entries: each chunk's from its index data, or
 * from its data when it has none or they disagree. The group's row count
 * then becomes what was found (the chunk infos' counts were a promise), and
 * the rows of the groups after it move with it.
 */
static int group_load(bag_timeline_t *tl, size_t gi)
{
	struct tl_group *g = &tl->groups[gi];
	struct builder b = { 0 };
	char why[BAG_ERRMSG_MAX] = "";
	struct tl_entry *merged = NULL;
	uint32_t *bounds = NULL;
	int rc = BAG_OK;

	if (g->entries != NULL)
		return BAG_OK;
	for (uint32_t i = 0; i < g->tchunk_n; i++) {
		uint32_t t = g->tchunk_first + i;
		struct tl_chunk *tc = &tl->chunks[t];
		const struct chunk *ch = &tl->bags[tc->bag]->chunks[tc->chunk];
		size_t n0 = b.n, r0 = b.nruns, f0 = b.nrefs;

		if (!tc->walk && !ch->no_index) {
			rc = read_chunk_index(tl, t, &b);
			if (rc == BAG_ENOMEM || rc == BAG_EIO)
				goto fail;
			if (rc != BAG_OK) {
				/* warned once the walk works; if it does not, its error is the one */
				snprintf(why, sizeof why, "%s", tl->errmsg);
				tc->walk = true;
				b.n = n0;
				b.nruns = r0;
				b.nrefs = f0;
			}
		}
		if ((tc->walk || ch->no_index) && (rc = walk_chunk_index(tl, t, &b)) != BAG_OK)
			goto fail;
		if (why[0] != '\0' && (rc = tl_warn(tl, "%s; the chunk is indexed from its data", why)) != BAG_OK)
			goto fail;
		why[0] = '\0';
	}
	if (b.n > UINT32_MAX) {
		rc = tl_fail(tl, BAG_EUNSUPP, "a group of overlapping chunks holds %zu messages, more than 2^32", b.n);
		goto fail;
	}
	if (b.nruns > 1) {
		qsort(b.runs, b.nruns, sizeof *b.runs, cmp_run);
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
		if ((rc = group_load(tl, tl->next_load)) != BAG_OK)
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

/* ---- views ---------------------------------------------------------------- */

BAG_API void bag_query_init(struct bag_query *q)
{
	memset(q, 0, sizeof *q);
	q->start_ns = BAG_TIME_MIN;
	q->end_ns = BAG_TIME_MAX;
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
	snprintf(v->errmsg, sizeof v->errmsg, "%s", v->tl->errmsg);
	return rc;
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

	if ((rc = group_load(tl, gi)) != BAG_OK)
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
	struct bag_query all;
	bag_view_t *v;
	int rc = BAG_ENOMEM;

	if (q == NULL) {
		bag_query_init(&all);
		q = &all;
	}
	*out = v = calloc(1, sizeof *v);
	if (v == NULL)
		return BAG_ENOMEM;
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
	if (rc == BAG_ENOMEM && v->errmsg[0] == '\0')
		snprintf(v->errmsg, sizeof v->errmsg, "out of memory");
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

BAG_API const char *bag_view_errmsg(const bag_view_t *v)
{
	return v ? v->errmsg : "out of memory";
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

	if (v->direct[k]) {
		if ((rc = group_load(v->tl, v->g0 + k)) != BAG_OK)
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
			snprintf(v->errmsg, sizeof v->errmsg, "row %llu is past the last row (%llu)",
			         (unsigned long long)row, (unsigned long long)v->count);
			return BAG_EINVAL;
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
	struct walk_collect c;

	if (tc->checked || tc->walk || bag->chunks[tc->chunk].no_index)
		return 0;
	tc->checked = true;
	if (walk_sum(bag, tc->chunk, &c) != BAG_OK)
		return 0;                 /* the read itself reports what is wrong */
	if (c.n == tc->nents && c.sum == tc->sum)
		return 0;
	if (tl_warn(tl, "%s: at byte %llu: the chunk's index data do not match its %zu messages; the chunk "
	            "is indexed from its data", bag->path, (unsigned long long)bag->chunks[tc->chunk].pos,
	            c.n) != BAG_OK)
		return 0;
	tc->walk = true;
	tl->loaded_rows -= g->count;
	tl->loaded_groups--;
	group_unload(g);
	return 1;
}

BAG_API int bag_message_read(bag_t *bag, size_t chunk, uint32_t offset, uint32_t conn_id,
                             int64_t time_ns, const uint8_t **data, uint32_t *size)
{
	const uint8_t *buf;
	size_t len;
	struct bag_record rec;
	uint32_t got_conn;
	int64_t got_time;
	uint8_t op;
	int rc;

	if ((rc = bag_chunk_get(bag, chunk, &buf, &len)) != BAG_OK)
		return rc;
	uint64_t where = bag->chunks[chunk].pos;
	if (offset >= len || bag_record_parse(buf + offset, len - offset, &rec) != BAG_OK) {
		rc = bag_fail(bag, BAG_ECORRUPT, where, "index entry points at offset %u of the chunk, "
		              "where no whole record lies", offset);
		goto fail;
	}
	if (bag_header_u8(rec.header, rec.header_len, "op", &op) != BAG_OK || op != BAG_OP_MSG_DATA ||
	    bag_header_u32(rec.header, rec.header_len, "conn", &got_conn) != BAG_OK ||
	    bag_header_time(rec.header, rec.header_len, "time", &got_time) != BAG_OK) {
		rc = bag_fail(bag, BAG_ECORRUPT, where, "index entry points at offset %u of the chunk, "
		              "which is not a message data record", offset);
		goto fail;
	}
	if (got_conn != conn_id || got_time != time_ns) {
		rc = bag_fail(bag, BAG_ECORRUPT, where, "message at offset %u of the chunk is connection %u "
		              "at %lld ns, the index says connection %u at %lld ns", offset, got_conn,
		              (long long)got_time, conn_id, (long long)time_ns);
		goto fail;
	}
	*data = rec.data;
	*size = rec.data_len;
	return BAG_OK;
fail:
	bag_chunk_unpin(bag, chunk);
	return rc;
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
		snprintf(v->errmsg, sizeof v->errmsg, "%s", bag->errmsg);
		return rc;
	}
	view_unpin(v);
	v->pinned = true;
	v->pin_bag = m->bag_index;
	v->pin_chunk = m->chunk;
	return BAG_OK;
}

BAG_API int bag_view_seek(bag_view_t *v, int64_t t, uint64_t *row)
{
	const struct tl_group *g;
	size_t lo = 0, hi = v->ng, k;
	uint32_t a, b;
	int rc;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v->tl->groups[v->g0 + mid].end_ns < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	k = lo;
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
	group_unload(g);
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
