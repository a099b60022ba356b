/*
 * times.c - every message's record time per group of connections, from the
 * index alone (bag_timeline_times, view.h): the figures that need each
 * topic's times in order (info --freq's median rate, stats' periods and
 * gaps) without the timeline's 16-byte merged entries.
 *
 * Each group's array is sized from the chunk infos' counts and filled chunk
 * by chunk (the index module's entries: index data, or a walk of chunks
 * whose index data are unusable, marked on the timeline as its loads mark
 * them). A group's times arrive in order when its connections' chunks do
 * not overlap, which a check finds in one pass; otherwise they are sorted.
 *
 * bag_rate_hz() is the one definition of a topic's rate (n - 1 periods over
 * its span), here beside the times it is computed from.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/view.h>
#include "lib/index/entries-int.h"
#include "lib/index/timeline-int.h"
#include "lib/common/util-int.h"

/* A group's times while they are gathered. */
struct times_out {
	int64_t **t;
	uint64_t *n, *cap;
};

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Room for one more time in group g. */
static int times_room(struct times_out *o, size_t g)
{
	if (o->n[g] < o->cap[g])
		return BAG_OK;
	size_t cap = (size_t)o->cap[g];
	if (bag_grow((void **)&o->t[g], &cap, (size_t)o->n[g] + 1, sizeof **o->t) != BAG_OK)
		return BAG_ENOMEM;
	o->cap[g] = cap;
	return BAG_OK;
}

/* Size each group's array from the chunk infos' counts. */
static int times_alloc(const bag_timeline_t *tl, const size_t *group, size_t ngroups, struct times_out *o)
{
	for (size_t c = 0; c < tl->nconns; c++) {
		const struct bag_connection *conn = bag_timeline_conn(tl, c, NULL);
		if (group[c] < ngroups)
			o->cap[group[c]] += conn->message_count;
	}
	for (size_t g = 0; g < ngroups; g++) {
		if (o->cap[g] == 0)
			continue;
		if (o->cap[g] > SIZE_MAX / sizeof **o->t || (o->t[g] = malloc((size_t)o->cap[g] * sizeof **o->t)) == NULL)
			return BAG_ENOMEM;
	}
	return BAG_OK;
}

/* Chunk tchunk's entries: from its index data, or walked (marked and warned as the timeline does). */
static int chunk_times(bag_timeline_t *tl, uint32_t tchunk, const size_t *group, size_t ngroups,
                       struct times_out *o)
{
	struct tl_chunk *tc = &tl->chunks[tchunk];
	bag_t *bag = tl->bags[tc->bag];
	int rc = BAG_ECORRUPT;

	if (!tc->walk && !bag->chunks[tc->chunk].no_index) {
		rc = chunk_entries_read(bag, tc->chunk, &tl->ents);
		if (rc == BAG_ENOMEM || rc == BAG_EIO)
			return rc;
		if (rc != BAG_OK) {
			tc->walk = true;
			if (tl_warn(tl, "%s; the chunk is indexed from its data", bag->err.message) != BAG_OK)
				return BAG_ENOMEM;
		}
	}
	if (rc != BAG_OK && (rc = chunk_entries_walk(bag, tc->chunk, &tl->ents)) != BAG_OK)
		return rc;
	for (size_t k = 0; k < tl->ents.n; k++) {
		size_t g = group[tl->conn_base[tc->bag] + tl->ents.e[k].conn];
		if (g >= ngroups)
			continue;
		if (times_room(o, g) != BAG_OK)
			return BAG_ENOMEM;
		o->t[g][o->n[g]++] = tl->ents.e[k].time_ns;
	}
	return BAG_OK;
}

/* Put each group's times in order (usually they already are). */
static void times_order(struct times_out *o, size_t ngroups)
{
	for (size_t g = 0; g < ngroups; g++) {
		uint64_t i = 1;
		while (i < o->n[g] && o->t[g][i - 1] <= o->t[g][i])
			i++;
		if (i < o->n[g])
			bag_sort(o->t[g], (size_t)o->n[g], sizeof **o->t, cmp_i64);
	}
}

BAG_API int bag_timeline_times(bag_timeline_t *tl, const size_t *group, size_t ngroups, int64_t **times,
                               uint64_t *n)
{
	struct times_out o = { times, n, calloc(ngroups ? ngroups : 1, sizeof *o.cap) };
	int rc = BAG_ENOMEM;

	memset(times, 0, ngroups * sizeof *times);
	memset(n, 0, ngroups * sizeof *n);
	if (o.cap == NULL || times_alloc(tl, group, ngroups, &o) != BAG_OK)
		goto fail;
	for (uint32_t i = 0; i < tl->nchunks; i++) {
		if ((rc = chunk_times(tl, i, group, ngroups, &o)) != BAG_OK) {
			if (rc != BAG_ENOMEM)
				bag_error_copy(&tl->err, &tl->bags[tl->chunks[i].bag]->err);
			goto fail;
		}
	}
	times_order(&o, ngroups);
	rc = BAG_OK;
fail:
	if (rc == BAG_ENOMEM)
		bag_error_say(&tl->err, BAG_ENOMEM, "out of memory for the message times");
	if (rc != BAG_OK) {
		for (size_t g = 0; g < ngroups; g++) {
			free(times[g]);
			times[g] = NULL;
			n[g] = 0;
		}
	}
	free(o.cap);
	return rc;
}

double bag_rate_hz(uint64_t n, int64_t first_ns, int64_t last_ns)
{
	if (n < 2 || last_ns <= first_ns)
		return 0.0;
	/* the span in 64 bits first: times near 2^60 ns have no nanoseconds as doubles */
	return (double)(n - 1) * 1e9 / (double)((uint64_t)last_ns - (uint64_t)first_ns);
}
