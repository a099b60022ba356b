/*
 * tf-tree.c - what the finished buffer says about the frame tree: each
 * frame's facts (computed when asked, from its samples) and the warnings
 * (computed once when the build ends, kept as lines in tf->warn). The tree
 * is the graph of each frame's latest parent (tf2's
 * getLatestTimeAndParent); a frame without transforms is a root.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/common/util-int.h"
#include "lib/robot/tf-int.h"

#define LIST_MAX 8   /* names listed in one warning line */

/* A frame on the walk of bag_tf_tree(). */
struct walk {
	size_t frame, depth;
};

/* The latest parent of frame i, or -1. */
static long latest_parent(const bag_tf_t *tf, size_t i)
{
	const struct tf_frame *f = &tf->f[i];
	return f->has_cache ? (long)f->runs[f->nruns - 1].parent : -1;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The median gap between consecutive samples (n >= 2), or 0 without memory. */
static int64_t median_gap(const struct tf_frame *f)
{
	int64_t *g = malloc((f->n - 1) * sizeof *g), m;
	if (g == NULL)
		return 0;
	for (size_t i = 1; i < f->n; i++)
		g[i - 1] = f->s[i].stamp_ns - f->s[i - 1].stamp_ns;
	bag_sort(g, f->n - 1, sizeof *g, cmp_i64);
	m = (f->n - 1) % 2 ? g[(f->n - 1) / 2] : (g[(f->n - 1) / 2 - 1] + g[(f->n - 1) / 2]) / 2;
	free(g);
	return m;
}

BAG_API void bag_tf_frame(const bag_tf_t *tf, size_t i, struct bag_tf_frame *out)
{
	const struct tf_frame *f = &tf->f[i];

	memset(out, 0, sizeof *out);
	out->name = f->name;
	out->parent = latest_parent(tf, i);
	out->is_static = f->is_static;
	out->has_parents = f->has_cache;
	out->nparents = f->nparents;
	out->count = f->count;
	out->callerid = f->callerid ? f->callerid : "";
	out->topic = f->topic ? f->topic : "";
	if (f->n == 0)
		return;
	out->first_stamp_ns = f->s[0].stamp_ns;
	out->last_stamp_ns = f->s[f->n - 1].stamp_ns;
	for (size_t k = 1; k < f->n; k++) {
		int64_t g = f->s[k].stamp_ns - f->s[k - 1].stamp_ns;
		if (g > out->gap_ns) {
			out->gap_ns = g;
			out->gap_at_ns = f->s[k - 1].stamp_ns;
		}
	}
	if (f->n >= 2) {
		int64_t m = median_gap(f);
		out->rate_hz = m > 0 ? 1e9 / (double)m : 0;
	}
}

static int add_warning(bag_tf_t *tf, const struct bag_text *t)
{
	char **w;
	if (t->failed || (w = realloc(tf->warn, (tf->nwarn + 1) * sizeof *w)) == NULL)
		return BAG_ENOMEM;
	tf->warn = w;
	if ((w[tf->nwarn] = strdup(t->len ? t->p : "")) == NULL)
		return BAG_ENOMEM;
	tf->nwarn++;
	return 0;
}

/* Frames with more than one parent over time. */
static int warn_parents(bag_tf_t *tf, struct bag_text *t)
{
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < tf->nf; i++) {
		const struct tf_frame *f = &tf->f[i];
		if (f->nparents < 2)
			continue;
		t->len = 0;
		bag_text_printf(t, "frame %s has %zu parent%s over time:", f->name, f->nparents, BAG_S(f->nparents));
		for (size_t k = 0; k < f->nparents && k < 4; k++)
			bag_text_printf(t, "%s %s", k ? "," : "", tf->f[f->parents[k]].name);
		bag_text_printf(t, "%s (tf2 uses the parent of the stamps around a lookup)", f->nparents > 4 ? ", ..." : "");
		rc = add_warning(tf, t);
	}
	return rc;
}

/* Cycles among latest parents: colour 1 = on the current walk, 2 = done. */
static int warn_cycles(bag_tf_t *tf, struct bag_text *t, unsigned char *colour)
{
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < tf->nf; i++) {
		long j = (long)i;
		while (j >= 0 && colour[j] == 0) {
			colour[j] = 1;
			j = latest_parent(tf, (size_t)j);
		}
		if (j >= 0 && colour[j] == 1) {
			long k = j;
			t->len = 0;
			bag_text_printf(t, "cycle of parents: %s", tf->f[j].name);
			do {
				k = latest_parent(tf, (size_t)k);
				bag_text_printf(t, " -> %s", tf->f[k].name);
			} while (k != j);
			rc = add_warning(tf, t);
		}
		for (j = (long)i; j >= 0 && colour[j] == 1; j = latest_parent(tf, (size_t)j))
			colour[j] = 2;
	}
	return rc;
}

/* More than one root. */
static int warn_trees(bag_tf_t *tf, struct bag_text *t)
{
	size_t roots = 0;
	t->len = 0;
	for (size_t i = 0; i < tf->nf; i++) {
		if (tf->f[i].has_cache)
			continue;
		if (roots < LIST_MAX)
			bag_text_printf(t, "%s%s", roots ? ", " : "", tf->f[i].name);
		roots++;
	}
	if (roots < 2)
		return 0;
	char *list = strndup(t->p, t->len);
	if (list == NULL)
		return BAG_ENOMEM;
	t->len = 0;
	bag_text_printf(t, "%zu disconnected trees, rooted at %s%s", roots, list, roots > LIST_MAX ? ", ..." : "");
	free(list);
	return add_warning(tf, t);
}

/* The counted issues of the build, with their first example. */
static int warn_issues(bag_tf_t *tf, struct bag_text *t)
{
	static const char *const what[TF_ISSUE_N] = {
		"stamps running backwards on a connection", "stamps far from their record time",
		"frame ids with a leading '/'", "transforms refused", "messages that do not parse",
	};
	int rc = 0;
	for (int k = 0; rc == 0 && k < TF_ISSUE_N; k++) {
		if (tf->issue[k].count == 0)
			continue;
		t->len = 0;
		bag_text_printf(t, "%llu %s, first: %s", (unsigned long long)tf->issue[k].count, what[k], tf->issue[k].first);
		rc = add_warning(tf, t);
	}
	return rc;
}

int tf_tree_warnings(bag_tf_t *tf)
{
	struct bag_text t = { 0 };
	unsigned char *colour = calloc(tf->nf + 1, 1);
	int rc = BAG_ENOMEM;

	if (colour == NULL)
		goto fail;
	if ((rc = warn_parents(tf, &t)) == 0 && (rc = warn_cycles(tf, &t, colour)) == 0 &&
	    (rc = warn_trees(tf, &t)) == 0)
		rc = warn_issues(tf, &t);
fail:
	free(colour);
	bag_text_free(&t);
	return rc;
}

BAG_API size_t bag_tf_warning_count(const bag_tf_t *tf)
{
	return tf->nwarn;
}

BAG_API const char *bag_tf_warning(const bag_tf_t *tf, size_t i)
{
	return i < tf->nwarn ? tf->warn[i] : NULL;
}

static int cmp_name(const void *a, const void *b, void *tf)
{
	const struct tf_frame *f = ((const bag_tf_t *)tf)->f;
	return strcmp(f[*(const size_t *)a].name, f[*(const size_t *)b].name);
}

/* From each unseen start in ord (roots first pass, the rest second), depth first. */
static void tree_walk(const bag_tf_t *tf, const size_t *ord, const long *first, const long *next, bool *seen,
                      struct walk *stack, struct bag_tf_row *rows)
{
	size_t n = tf->nf, out = 0;

	for (int pass = 0; pass < 2; pass++)
		for (size_t k = 0; k < n; k++) {
			size_t sp = 0, r = ord[k];
			if (seen[r] || (pass == 0 && latest_parent(tf, r) >= 0))
				continue;
			stack[sp++] = (struct walk){ r, 0 };
			seen[r] = true;
			while (sp > 0) {
				struct walk w = stack[--sp];
				rows[out++] = (struct bag_tf_row){ w.frame, w.depth, pass == 1 };
				for (long c = first[w.frame]; c >= 0; c = next[c])
					if (!seen[c]) {
						stack[sp++] = (struct walk){ (size_t)c, w.depth + 1 };
						seen[c] = true;
					}
			}
		}
}

BAG_API int bag_tf_tree(const bag_tf_t *tf, struct bag_tf_row *rows)
{
	size_t n = tf->nf, *ord = malloc((n + 1) * sizeof *ord);
	long *first = malloc((n + 1) * sizeof *first), *next = malloc((n + 1) * sizeof *next);
	struct walk *stack = malloc((n + 1) * sizeof *stack);
	bool *seen = calloc(n + 1, 1);
	int rc = BAG_ENOMEM;

	if (ord == NULL || first == NULL || next == NULL || stack == NULL || seen == NULL)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		ord[i] = i;
		first[i] = next[i] = -1;
	}
	qsort_r(ord, n, sizeof *ord, cmp_name, (void *)tf);
	for (size_t k = 0; k < n; k++) {    /* lists in descending order: the stack pops them ascending */
		long p = latest_parent(tf, ord[k]);
		if (p >= 0) {
			next[ord[k]] = first[p];
			first[p] = (long)ord[k];
		}
	}
	tree_walk(tf, ord, first, next, seen, stack, rows);
	rc = 0;
fail:
	free(ord), free(first), free(next), free(stack), free(seen);
	return rc;
}

BAG_API int64_t bag_tf_stamp_before(const bag_tf_t *tf, size_t i, int64_t t)
{
	const struct tf_frame *f = &tf->f[i];
	size_t lo = 0, hi = f->n;

	if (f->n == 0)
		return BAG_TIME_MIN;
	if (f->is_static)
		return f->s[0].stamp_ns;
	while (lo < hi) {   /* the first sample after t */
		size_t mid = (lo + hi) / 2;
		if (f->s[mid].stamp_ns <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? BAG_TIME_MIN : f->s[lo - 1].stamp_ns;
}
