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


struct tl_chunk {
	uint32_t bag;     /* index into tl->bags */
	uint32_t chunk;   /* index into that bag's chunks */
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
	uint64_t count;           /* rows, from the chunk infos */
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
				tl->chunks[tl->nchunks++] = (struct tl_chunk){ (uint32_t)b, (uint32_t)c };
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
	free(tl);
}

BAG_API const char *bag_timeline_errmsg(const bag_timeline_t *tl)
{
	return tl ? tl->errmsg : "out of memory";
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

/* Entries of a chunk without index records, while its data is walked. */
struct walk_fill {
	const bag_t *bag;
	const struct chunk *ch;
	struct tl_entry *ents;
	uint32_t *fill;           /* next slot per chunk_conn */
	uint32_t *end;            /* end of its slots */
	uint32_t ref0;            /* ref of the chunk's first chunk_conn */
};

static int walk_fill_item(void *arg, const struct chunk_item *it)
{
	struct walk_fill *w = arg;
	long conn;
	uint32_t lo = 0, hi;

	if (!it->msg_ok || (conn = bag_conn_lookup(w->bag, it->conn_id)) < 0)
		return BAG_OK;
	hi = w->ch->conn_n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (w->bag->chunk_conns[w->ch->conn_first + mid].conn < (uint32_t)conn)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == w->ch->conn_n || w->bag->chunk_conns[w->ch->conn_first + lo].conn != (uint32_t)conn)
		return BAG_OK;
	if (w->fill[lo] == w->end[lo])
		return BAG_ECORRUPT;
	w->ents[w->fill[lo]++] = (struct tl_entry){ it->time_ns, it->offset, w->ref0 + lo };
	return BAG_OK;
}

/*
 * A chunk recovered without index records (recover.c): walk its data for
 * the entries, laid out per connection in file order as index records
 * would give them, then cut into time-ordered runs.
 */
static int walk_chunk_index(bag_timeline_t *tl, uint32_t tchunk, struct tl_group *g,
                            struct tl_entry *ents, uint32_t *nents, struct run *runs, size_t *nruns)
{
	const struct tl_chunk *tc = &tl->chunks[tchunk];
	bag_t *bag = tl->bags[tc->bag];
	const struct chunk *ch = &bag->chunks[tc->chunk];
	struct walk_fill w = { bag, ch, ents, NULL, NULL, g->nrefs };
	const uint8_t *data;
	size_t len;
	uint32_t at = *nents;
	int rc;

	w.fill = malloc((ch->conn_n + 1) * sizeof *w.fill);
	w.end = malloc((ch->conn_n + 1) * sizeof *w.end);
	if (w.fill == NULL || w.end == NULL) {
		rc = tl_fail(tl, BAG_ENOMEM, "out of memory");
		goto fail;
	}
	for (uint32_t k = 0; k < ch->conn_n; k++) {
		const struct chunk_conn *cc = &bag->chunk_conns[ch->conn_first + k];
		g->refs[g->nrefs++] = (struct tl_ref){ tchunk, (uint32_t)(tl->conn_base[tc->bag] + cc->conn) };
		w.fill[k] = at;
		at += cc->count;
		w.end[k] = at;
	}
	if ((rc = bag_chunk_get(bag, tc->chunk, &data, &len)) != BAG_OK) {
		rc = tl_bag_fail(tl, bag, rc);
		goto fail;
	}
	rc = chunk_walk(data, len, walk_fill_item, &w, NULL);
	bag_chunk_unpin(bag, tc->chunk);
	for (uint32_t k = 0; rc == BAG_OK && k < ch->conn_n; k++)
		if (w.fill[k] != w.end[k])
			rc = BAG_ECORRUPT;
	if (rc != BAG_OK) {
		rc = tl_fail(tl, BAG_ECORRUPT, "%s: at byte %llu: the chunk's data no longer holds the %llu "
		             "messages counted when it was recovered", bag->path, (unsigned long long)ch->pos,
		             (unsigned long long)ch->count);
		goto fail;
	}
	for (uint32_t k = 0; k < ch->conn_n; k++) {
		uint32_t ref = w.ref0 + k;
		runs[*nruns] = (struct run){ *nents, 0, g->refs[ref].conn, ch->pos, tc->bag };
		for (uint32_t i = *nents; i < w.end[k]; i++) {
			if (i > runs[*nruns].start && ents[i].time_ns < ents[i - 1].time_ns) {
				runs[*nruns].len = i - runs[*nruns].start;
				(*nruns)++;
				runs[*nruns] = (struct run){ i, 0, g->refs[ref].conn, ch->pos, tc->bag };
			}
		}
		runs[*nruns].len = w.end[k] - runs[*nruns].start;
		(*nruns)++;
		*nents = w.end[k];
	}
fail:
	free(w.fill);
	free(w.end);
	return rc;
}

/*
 * Read the index-data records after chunk tchunk into ents (room for the
 * chunk's count), adding refs and runs.
 */
static int read_chunk_index(bag_timeline_t *tl, uint32_t tchunk, struct tl_group *g,
                            struct tl_entry *ents, uint32_t *nents, struct run *runs, size_t *nruns)
{
	const struct tl_chunk *tc = &tl->chunks[tchunk];
	bag_t *bag = tl->bags[tc->bag];
	struct chunk *ch = &bag->chunks[tc->chunk];
	uint64_t region, at = 0, got = 0;
	struct bag_record rec;
	int rc;

	if (ch->no_index)
		return walk_chunk_index(tl, tchunk, g, ents, nents, runs, nruns);
	if ((rc = chunk_load_stat(bag, tc->chunk)) != BAG_OK)
		return tl_bag_fail(tl, bag, rc);
	uint64_t region_pos = ch->data_pos + ch->data_len;
	region = ch->index_end - region_pos;
	if ((rc = scratch_reserve(tl, (size_t)region)) != BAG_OK)
		return rc;
	if ((rc = bag_read_at(bag, region_pos, tl->scratch, (size_t)region)) != BAG_OK)
		return tl_bag_fail(tl, bag, rc);
	while (at < region) {
		uint64_t off = region_pos + at;
		uint32_t ver, conn_id, count;
		uint8_t op;
		long conn, want;

		if (bag_record_parse(tl->scratch + at, (size_t)(region - at), &rec) != BAG_OK)
			return tl_fail(tl, BAG_ECORRUPT, "%s: at byte %llu: index record runs into the next chunk",
			               bag->path, (unsigned long long)off);
		if (bag_header_u8(rec.header, rec.header_len, "op", &op) != BAG_OK || op != BAG_OP_INDEX_DATA)
			return tl_fail(tl, BAG_ECORRUPT, "%s: at byte %llu: expected an index data record (op 4) after the chunk at byte %llu",
			               bag->path, (unsigned long long)off, (unsigned long long)ch->pos);
		if (bag_header_u32(rec.header, rec.header_len, "ver", &ver) != BAG_OK ||
		    bag_header_u32(rec.header, rec.header_len, "conn", &conn_id) != BAG_OK ||
		    bag_header_u32(rec.header, rec.header_len, "count", &count) != BAG_OK)
			return tl_fail(tl, BAG_ECORRUPT, "%s: at byte %llu: index data record lacks ver, conn or count",
			               bag->path, (unsigned long long)off);
		if (ver != 1)
			return tl_fail(tl, BAG_EUNSUPP, "%s: at byte %llu: index data version %u is not supported",
			               bag->path, (unsigned long long)off, ver);
		conn = bag_conn_lookup(bag, conn_id);
		want = conn < 0 ? -1 : (long)bag_chunk_conn_messages(bag, tc->chunk, (size_t)conn);
		if (want != (long)count || (uint64_t)count * INDEX_ENTRY_BYTES != rec.data_len ||
		    got + count > ch->count)
			return tl_fail(tl, BAG_ECORRUPT, "%s: at byte %llu: index data for connection %u holds %u entries "
			               "in %u bytes; the chunk info says %ld", bag->path, (unsigned long long)off,
			               conn_id, count, rec.data_len, want);
		const uint8_t *p = rec.data;
		uint32_t ref = g->nrefs++;
		g->refs[ref] = (struct tl_ref){ tchunk, (uint32_t)(tl->conn_base[tc->bag] + (size_t)conn) };
		runs[*nruns] = (struct run){ *nents, 0, g->refs[ref].conn, ch->pos, tc->bag };
		for (uint32_t k = 0; k < count; k++, p += INDEX_ENTRY_BYTES) {
			struct tl_entry *e = &ents[*nents];
			e->time_ns = bag_time_from_ros(bag_le32(p), bag_le32(p + 4));
			e->offset = bag_le32(p + 8);
			e->ref = ref;
			if (e->offset >= ch->size)
				return tl_fail(tl, BAG_ECORRUPT, "%s: at byte %llu: index entry %u points past the end of its chunk",
				               bag->path, (unsigned long long)off, k);
			if (k > 0 && e->time_ns < e[-1].time_ns) {
				runs[*nruns].len = *nents - runs[*nruns].start;
				(*nruns)++;
				runs[*nruns] = (struct run){ *nents, 0, g->refs[ref].conn, ch->pos, tc->bag };
			}
			(*nents)++;
		}
		runs[*nruns].len = *nents - runs[*nruns].start;
		(*nruns)++;
		got += count;
		at += rec.size;
	}
	if (got != ch->count)
		return tl_fail(tl, BAG_ECORRUPT, "%s: at byte %llu: chunk info counts %llu messages, its index data %llu",
		               bag->path, (unsigned long long)ch->pos, (unsigned long long)ch->count,
		               (unsigned long long)got);
	return BAG_OK;
}

/* Read and order group gi's entries. */
static int group_load(bag_timeline_t *tl, size_t gi)
{
	struct tl_group *g = &tl->groups[gi];
	struct tl_entry *a = NULL, *b = NULL;
	struct run *runs = NULL;
	uint32_t *bounds = NULL, nents = 0, nref_cap = 0;
	size_t nruns = 0;
	int rc = BAG_ENOMEM;

	if (g->entries != NULL)
		return BAG_OK;
	if (g->count > UINT32_MAX)
		return tl_fail(tl, BAG_EUNSUPP, "a group of overlapping chunks holds %llu messages, more than 2^32",
		               (unsigned long long)g->count);
	for (uint32_t i = 0; i < g->tchunk_n; i++) {
		const struct tl_chunk *tc = &tl->chunks[g->tchunk_first + i];
		nref_cap += tl->bags[tc->bag]->chunks[tc->chunk].conn_n;
	}
	/* checked against each chunk's index region before any entry is stored */
	for (uint32_t i = 0; i < g->tchunk_n; i++) {
		const struct tl_chunk *tc = &tl->chunks[g->tchunk_first + i];
		bag_t *bag = tl->bags[tc->bag];
		const struct chunk *ch = &bag->chunks[tc->chunk];
		if ((rc = chunk_load_stat(bag, tc->chunk)) != BAG_OK)
			return tl_bag_fail(tl, bag, rc);
		if (!ch->no_index && ch->count > (ch->index_end - ch->data_pos - ch->data_len) / INDEX_ENTRY_BYTES)
			return tl_fail(tl, BAG_ECORRUPT, "%s: at byte %llu: chunk info counts %llu messages, "
			               "more than its index region can hold", bag->path,
			               (unsigned long long)ch->pos, (unsigned long long)ch->count);
	}
	rc = BAG_ENOMEM;
	a = malloc((g->count ? g->count : 1) * sizeof *a);
	runs = malloc((g->count + nref_cap + 1) * sizeof *runs);
	g->refs = malloc((nref_cap ? nref_cap : 1) * sizeof *g->refs);
	g->nrefs = 0;
	if (a == NULL || runs == NULL || g->refs == NULL) {
		rc = tl_fail(tl, BAG_ENOMEM, "out of memory loading %llu index entries", (unsigned long long)g->count);
		goto fail;
	}
	for (uint32_t i = 0; i < g->tchunk_n; i++) {
		rc = read_chunk_index(tl, g->tchunk_first + i, g, a, &nents, runs, &nruns);
		if (rc != BAG_OK)
			goto fail;
	}
	if (nruns > 1) {
		qsort(runs, nruns, sizeof *runs, cmp_run);
		b = malloc(g->count * sizeof *b);
		bounds = malloc((nruns + 1) * sizeof *bounds);
		if (b == NULL || bounds == NULL) {
			rc = tl_fail(tl, BAG_ENOMEM, "out of memory merging %llu index entries",
			             (unsigned long long)g->count);
			goto fail;
		}
		uint32_t at = 0;
		for (size_t r = 0; r < nruns; r++) {
			bounds[r] = at;
			memcpy(b + at, a + runs[r].start, runs[r].len * sizeof *a);
			at += runs[r].len;
		}
		bounds[nruns] = at;
		merge_runs(&b, &a, bounds, nruns);
	} else {
		b = a;
		a = NULL;
	}
	g->entries = b;
	b = NULL;
	tl->loaded_rows += g->count;
	tl->loaded_groups++;
	rc = BAG_OK;
fail:
	if (rc != BAG_OK) {
		free(g->refs);
		g->refs = NULL;
		g->nrefs = 0;
	}
	free(a);
	free(b);
	free(runs);
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

/* Selected rows of group gi counted from its chunk infos. */
static uint64_t group_selected(const bag_view_t *v, size_t gi)
{
	const bag_timeline_t *tl = v->tl;
	const struct tl_group *g = &tl->groups[gi];
	uint64_t n = 0;

	if (v->all_conns)
		return g->count;
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
	if (v->base == NULL || v->direct == NULL || v->sel == NULL)
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

/* Make group k usable: loaded, and its selection built unless direct. */
static int view_ready(bag_view_t *v, size_t k)
{
	uint64_t n;
	int rc;

	if (v->direct[k]) {
		if ((rc = group_load(v->tl, v->g0 + k)) != BAG_OK)
			return view_fail_tl(v, rc);
		return BAG_OK;
	}
	if (v->sel[k] != NULL)
		return BAG_OK;
	if ((rc = view_build_sel(v, k, &n)) != BAG_OK)
		return rc;
	if (n != v->base[k + 1] - v->base[k])
		return BAG_ECORRUPT;
	return BAG_OK;
}

BAG_API int bag_view_entry(bag_view_t *v, uint64_t row, struct bag_message *m)
{
	const bag_timeline_t *tl = v->tl;
	const struct tl_group *g;
	const struct tl_entry *e;
	const struct tl_ref *ref;
	const struct tl_chunk *tc;
	size_t k;
	int rc;

	if (row >= v->count) {
		snprintf(v->errmsg, sizeof v->errmsg, "row %llu is past the last row (%llu)",
		         (unsigned long long)row, (unsigned long long)v->count);
		return BAG_EINVAL;
	}
	k = view_group_of(v, row);
	if ((rc = view_ready(v, k)) != BAG_OK)
		return rc;
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
	return BAG_OK;
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

	if ((rc = bag_view_entry(v, row, m)) != BAG_OK)
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
