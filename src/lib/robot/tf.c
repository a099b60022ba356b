/*
 * tf.c - building the transform buffer (see tf.h) on the scan engine.
 *
 * Frames live in one array, found by name through a key index
 * (keyidx-int.h). A frame that receives transforms keeps them as 64-byte
 * samples (tf-int.h) and the parents as runs over the sample indices, so a
 * frame that never changes parent costs one run. The scan's workers cut
 * each TFMessage into packed records (stamp, seven doubles, the two ids);
 * emit, in record-time order, checks them as tf2's setTransform does and
 * appends. Samples arrive mostly in stamp order: a frame that got one out
 * of order is sorted (stable, so the first of equal stamps stays, as tf2
 * keeps the first) when the scan ends, and its runs rebuilt. After the
 * build every dynamic frame's samples are ascending with no stamp twice,
 * a static frame has exactly one sample, and nothing changes any more.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/scan.h>
#include "lib/common/util-int.h"
#include "lib/robot/tf-int.h"
#include "lib/robot/wire-int.h"
#include "lib/robot/keyidx-int.h"

#define DEFAULT_FAR_NS (5 * BAG_NSEC_PER_SEC)

/* What work hands emit for one transform, followed by the two ids' bytes. */
struct packed {
	int64_t stamp_ns;
	double v[7];
	uint32_t plen, clen;
};

/* A transform as emit sees it. */
struct tf_in {
	const char *parent, *child;
	size_t plen, clen;
	int64_t stamp_ns, time_ns;
	const double *v;
	uint32_t conn;
	bool is_static;
};

/* Count an issue; the first one's text is kept. */
static void issue(bag_tf_t *tf, enum tf_issue_kind k, const char *fmt, ...)
{
	if (tf->issue[k].count++ == 0) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(tf->issue[k].first, sizeof tf->issue[k].first, fmt, ap);
		va_end(ap);
	}
}

static const char *frame_key(const void *ctx, uint32_t i, size_t *len)
{
	const char *name = ((const bag_tf_t *)ctx)->f[i].name;
	*len = strlen(name);
	return name;
}

/* The index of frame name[0..len), added when new; -1 when out of memory. */
static long intern(bag_tf_t *tf, const char *name, size_t len)
{
	if (keyidx_reserve(&tf->idx, tf->nf + 1, frame_key, tf) != 0)
		return -1;
	size_t i = keyidx_slot(&tf->idx, name, len, frame_key, tf);
	if (tf->idx.slot[i] != 0)
		return (long)tf->idx.slot[i] - 1;
	if (bag_grow((void **)&tf->f, &tf->fcap, tf->nf + 1, sizeof *tf->f) != 0)
		return -1;
	struct tf_frame *f = &tf->f[tf->nf];
	memset(f, 0, sizeof *f);
	if ((f->name = strndup(name, len)) == NULL)
		return -1;
	f->sorted = true;
	tf->idx.slot[i] = (uint32_t)++tf->nf;
	return (long)tf->nf - 1;
}

/* The parent of frame f's sample i: the run that holds it (binary search). */
uint32_t tf_parent_at(const struct tf_frame *f, size_t i)
{
	size_t lo = 0, hi = f->nruns;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (f->runs[mid].first <= i)
			lo = mid;
		else
			hi = mid;
	}
	return f->runs[lo].parent;
}

BAG_API long bag_tf_frame_find(const bag_tf_t *tf, const char *name)
{
	if (tf->idx.cap == 0)
		return BAG_ENOTFOUND;
	size_t i = keyidx_slot(&tf->idx, name, strlen(name), frame_key, tf);
	return tf->idx.slot[i] ? (long)tf->idx.slot[i] - 1 : BAG_ENOTFOUND;
}

/* The reason tf2's setTransform refuses t, or NULL. */
static const char *refusal(const struct tf_in *t)
{
	const double *v = t->v;
	if (t->clen == 0)
		return "an empty child_frame_id";
	if (t->plen == 0)
		return "an empty frame_id";
	if (t->clen == t->plen && memcmp(t->child, t->parent, t->clen) == 0)
		return "a frame its own parent";
	for (int k = 0; k < 7; k++)
		if (isnan(v[k]))
			return "a NaN value";
	if (fabs(v[6] * v[6] + v[3] * v[3] + v[4] * v[4] + v[5] * v[5] - 1.0) >= 10e-3)
		return "a quaternion that is not normalised";
	return NULL;
}

/* Note the parent of a frame among its distinct parents. */
static void note_parent(struct tf_frame *f, uint32_t p)
{
	size_t known = f->nparents < 4 ? f->nparents : 4;
	for (size_t k = 0; k < known; k++)
		if (f->parents[k] == p)
			return;
	if (f->nparents < 4)
		f->parents[f->nparents] = p;
	f->nparents++;
}

/* Append (or for a static frame replace) a sample with its parent. */
static int store(struct tf_frame *f, const struct tf_sample *s, uint32_t parent)
{
	if (f->is_static) {
		f->n = 0;
		f->nruns = 0;
	}
	if (bag_grow((void **)&f->s, &f->cap, f->n + 1, sizeof *f->s) != 0)
		return BAG_ENOMEM;
	if (f->nruns == 0 || f->runs[f->nruns - 1].parent != parent) {
		if (bag_grow((void **)&f->runs, &f->runcap, f->nruns + 1, sizeof *f->runs) != 0)
			return BAG_ENOMEM;
		f->runs[f->nruns++] = (struct tf_run){ (uint32_t)f->n, parent };
	}
	if (f->n > 0 && s->stamp_ns < f->s[f->n - 1].stamp_ns)
		f->sorted = false;
	f->s[f->n++] = *s;
	return 0;
}

/* Problems tf2 does not refuse but a user should hear of. */
static void check_stamps(bag_tf_t *tf, struct tf_frame *f, const struct tf_in *t)
{
	const struct bag_connection *c = bag_timeline_conn(tf->tl, t->conn, NULL);
	int64_t d = t->stamp_ns - t->time_ns;

	if (f->count > 0 && f->last_conn == t->conn && t->stamp_ns < f->last_stamp)
		issue(tf, TF_ISSUE_BACKWARDS, "%s: frame %s at record time %lld.%09lld: stamp %lld.%09lld before the previous %lld.%09lld",
		      c->topic, f->name, (long long)(t->time_ns / BAG_NSEC_PER_SEC), (long long)(t->time_ns % BAG_NSEC_PER_SEC),
		      (long long)(t->stamp_ns / BAG_NSEC_PER_SEC), (long long)(t->stamp_ns % BAG_NSEC_PER_SEC),
		      (long long)(f->last_stamp / BAG_NSEC_PER_SEC), (long long)(f->last_stamp % BAG_NSEC_PER_SEC));
	if (!t->is_static && (d > tf->far_ns || d < -tf->far_ns))
		issue(tf, TF_ISSUE_FAR, "%s: frame %s at record time %lld.%09lld: stamp %+.3f s away",
		      c->topic, f->name, (long long)(t->time_ns / BAG_NSEC_PER_SEC),
		      (long long)(t->time_ns % BAG_NSEC_PER_SEC), (double)d / 1e9);
	f->last_conn = t->conn;
	f->last_stamp = t->stamp_ns;
}

/* One transform into the buffer, as tf2's setTransform takes it. */
static int insert(bag_tf_t *tf, struct tf_in *t)
{
	const char *why;

	tf->st.transforms++;
	if ((t->plen > 0 && t->parent[0] == '/') || (t->clen > 0 && t->child[0] == '/'))
		issue(tf, TF_ISSUE_SLASH, "%s: frame id '%.*s' has a leading '/', which tf2 strips",
		      bag_timeline_conn(tf->tl, t->conn, NULL)->topic,
		      (int)(t->child[0] == '/' ? t->clen : t->plen), t->child[0] == '/' ? t->child : t->parent);
	if (t->plen > 0 && t->parent[0] == '/')
		t->parent++, t->plen--;
	if (t->clen > 0 && t->child[0] == '/')
		t->child++, t->clen--;
	if ((why = refusal(t)) != NULL) {
		tf->st.refused++;
		issue(tf, TF_ISSUE_REFUSED, "%s: transform %.*s -> %.*s at stamp %lld.%09lld refused as tf2 does: %s",
		      bag_timeline_conn(tf->tl, t->conn, NULL)->topic, (int)t->plen, t->parent, (int)t->clen, t->child,
		      (long long)(t->stamp_ns / BAG_NSEC_PER_SEC), (long long)(t->stamp_ns % BAG_NSEC_PER_SEC), why);
		return 0;
	}
	long c = intern(tf, t->child, t->clen), p = intern(tf, t->parent, t->plen);
	if (c < 0 || p < 0)
		return BAG_ENOMEM;
	struct tf_frame *f = &tf->f[c];
	if (!f->has_cache) {
		f->has_cache = true;
		f->is_static = t->is_static;
		f->conn = t->conn;
	}
	check_stamps(tf, f, t);
	if (!f->is_static && f->sorted && f->n > 0 && f->s[f->n - 1].stamp_ns == t->stamp_ns) {
		tf->st.repeated++;
		return 0;
	}
	struct tf_sample s = { t->stamp_ns, { t->v[0], t->v[1], t->v[2] }, { t->v[3], t->v[4], t->v[5], t->v[6] } };
	note_parent(f, (uint32_t)p);
	f->count++;
	return store(f, &s, (uint32_t)p);
}

/* On a worker: a TFMessage cut into packed records. */
static int work(void *arg, const struct bag_message *m, const bag_msgdef_t *def, struct bag_text *out)
{
	struct wire w = { m->data, m->size, 0 };
	size_t start = out->len;   /* out holds the task's earlier messages before this */
	uint32_t count;

	(void)arg, (void)def;
	if (wire_u32(&w, &count) != 0)
		goto bad;
	for (uint32_t k = 0; k < count; k++) {
		const char *ps, *cs;
		struct packed pk;
		if (wire_header(&w, &pk.stamp_ns, &ps, &pk.plen) || wire_str(&w, &cs, &pk.clen) ||
		    wire_bytes(&w, pk.v, sizeof pk.v))
			goto bad;
		bag_text_append(out, (const char *)&pk, sizeof pk);
		bag_text_append(out, ps, pk.plen);
		bag_text_append(out, cs, pk.clen);
	}
	if (w.off != w.len)
		goto bad;
	return out->failed ? BAG_ENOMEM : 0;
bad:
	out->len = start;
	bag_text_printf(out, "%s at %lld.%09lld: the message does not parse as a TFMessage (%u byte%s)",
	                m->conn->topic, (long long)(m->time_ns / BAG_NSEC_PER_SEC),
	                (long long)(m->time_ns % BAG_NSEC_PER_SEC), (unsigned)m->size, BAG_S(m->size));
	return BAG_EDECODE;
}

/* In record-time order: each packed transform into the buffer. */
static int emit(void *arg, const struct bag_scan_item *it)
{
	bag_tf_t *tf = arg;
	int rc = 0;

	if (it->rc != BAG_OK) {
		if (it->rc == BAG_ENOMEM)
			return BAG_ENOMEM;
		tf->st.bad_messages++;
		issue(tf, TF_ISSUE_BAD, "%.*s", (int)it->len, it->text);
		return 0;
	}
	tf->st.messages++;
	for (size_t off = 0; rc == 0 && it->len - off >= sizeof(struct packed);) {
		struct packed pk;
		memcpy(&pk, it->text + off, sizeof pk);
		off += sizeof pk;
		struct tf_in t = { it->text + off, it->text + off + pk.plen, pk.plen, pk.clen, pk.stamp_ns,
		                   it->m->time_ns, pk.v, it->m->conn_index, tf->conn_static[it->m->conn_index] };
		off += (size_t)pk.plen + pk.clen;
		rc = insert(tf, &t);
	}
	return rc;
}

static int cmp_order(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;  /* stamp, then arrival index */
	return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* Put an out-of-order frame's samples in stamp order, the first of equal stamps kept. */
static int sort_frame(bag_tf_t *tf, struct tf_frame *f)
{
	int64_t (*ord)[2] = malloc(f->n * sizeof *ord);
	struct tf_sample *s = malloc(f->n * sizeof *s);
	uint32_t *par = malloc(f->n * sizeof *par);
	size_t n = 0, r = 0;
	int rc = BAG_ENOMEM;

	if (ord == NULL || s == NULL || par == NULL)
		goto fail;
	for (size_t i = 0; i < f->n; i++) {
		ord[i][0] = f->s[i].stamp_ns;
		ord[i][1] = (int64_t)i;
	}
	bag_sort(ord, f->n, sizeof *ord, cmp_order);
	for (size_t i = 0; i < f->n; i++) {
		size_t from = (size_t)ord[i][1];
		if (n > 0 && s[n - 1].stamp_ns == ord[i][0]) {
			tf->st.repeated++;
			f->count--;
			continue;
		}
		s[n] = f->s[from];
		par[n++] = tf_parent_at(f, from);
	}
	for (size_t i = 0; i < n; i++)
		if (r == 0 || f->runs[r - 1].parent != par[i])
			f->runs[r++] = (struct tf_run){ (uint32_t)i, par[i] };  /* never more runs than before */
	free(f->s);
	f->s = s, s = NULL;
	f->n = f->cap = n;
	f->nruns = r;
	f->sorted = true;
	rc = 0;
fail:
	free(ord);
	free(s);
	free(par);
	return rc;
}

/* The end of the scan: sort, trim, count. */
static int finish(bag_tf_t *tf)
{
	size_t mem = sizeof *tf + tf->fcap * sizeof *tf->f + tf->idx.cap * sizeof *tf->idx.slot;

	for (size_t i = 0; i < tf->nf; i++) {
		struct tf_frame *f = &tf->f[i];
		if (!f->sorted && sort_frame(tf, f) != 0)
			return BAG_ENOMEM;
		if (f->cap > f->n) {
			struct tf_sample *s = realloc(f->s, f->n * sizeof *s);
			if (s != NULL || f->n == 0)
				f->s = s, f->cap = f->n;
		}
		if (f->has_cache) {
			const struct bag_connection *c = bag_timeline_conn(tf->tl, f->conn, NULL);
			if ((f->topic = strdup(c->topic)) == NULL ||
			    (f->callerid = strdup(c->callerid ? c->callerid : "")) == NULL)
				return BAG_ENOMEM;
			mem += strlen(f->topic) + strlen(f->callerid) + 2;
		}
		tf->st.kept += f->n;
		mem += strlen(f->name) + 1 + f->cap * sizeof *f->s + f->runcap * sizeof *f->runs;
	}
	tf->st.memory = mem;
	free(tf->conn_static);
	tf->conn_static = NULL;
	return tf_tree_warnings(tf);
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);
	return n >= m && strcmp(s + n - m, tail) == 0;
}

/* The connections to read: by type, narrowed to the topics given. */
static int select_conns(bag_tf_t *tf, const struct bag_tf_opts *o, bool **mask)
{
	size_t n = bag_timeline_conn_count(tf->tl);

	*mask = calloc(n + 1, sizeof **mask);
	tf->conn_static = calloc(n + 1, sizeof *tf->conn_static);
	if (*mask == NULL || tf->conn_static == NULL)
		return BAG_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct bag_connection *c = bag_timeline_conn(tf->tl, i, NULL);
		bool want = strcmp(c->type, "tf2_msgs/TFMessage") == 0 || strcmp(c->type, "tf/tfMessage") == 0;
		if (want && o->ntopics > 0) {
			want = false;
			for (size_t k = 0; k < o->ntopics; k++)
				want = want || strcmp(o->topics[k], c->topic) == 0;
		}
		(*mask)[i] = want;
		tf->conn_static[i] = c->latching || ends_with(c->topic, "_static");
	}
	return 0;
}

BAG_API int bag_tf_build(bag_tf_t **out, bag_timeline_t *tl, const struct bag_tf_opts *opts)
{
	struct bag_tf_opts o = BAG_TF_OPTS_INIT;
	struct bag_scan_opts so = { .size = sizeof so, .work = work, .emit = emit };
	struct bag_query q;
	bag_view_t *v = NULL;
	bool *mask = NULL;
	bag_tf_t *tf;
	int rc;

	if ((*out = tf = calloc(1, sizeof *tf)) == NULL)
		return BAG_ENOMEM;
	bag_error_clear(&tf->err);
	tf->tl = tl;
	if ((rc = bag_opts_read(&o, sizeof o, opts)) != BAG_OK)
		return bag_error_say(&tf->err, rc, "bag_tf_build: options of an unknown size");
	tf->far_ns = o.far_ns > 0 ? o.far_ns : DEFAULT_FAR_NS;
	if ((rc = select_conns(tf, &o, &mask)) != 0)
		goto fail;
	bag_query_init(&q);
	q.conn_mask = mask;
	so.arg = tf;
	so.threads = o.threads;
	so.progress = o.progress;
	so.progress_arg = o.progress_arg;
	if ((rc = bag_view_open(&v, tl, &q)) != BAG_OK) {
		bag_error_copy(&tf->err, bag_view_error(v));
		goto fail;
	}
	rc = bag_scan(v, &so, NULL);
	if (rc != BAG_OK && rc != BAG_ECANCELED && rc != BAG_ENOMEM)
		bag_error_copy(&tf->err, bag_view_error(v));
	if (rc == BAG_OK)
		rc = finish(tf);
fail:
	if (rc == BAG_ENOMEM)
		bag_error_say(&tf->err, rc, "out of memory");
	else if (rc == BAG_ECANCELED)
		bag_error_say(&tf->err, rc, "cancelled");
	bag_view_free(v);
	free(mask);
	tf->tl = NULL;
	return rc;
}

BAG_API void bag_tf_free(bag_tf_t *tf)
{
	if (tf == NULL)
		return;
	for (size_t i = 0; i < tf->nf; i++) {
		free(tf->f[i].name);
		free(tf->f[i].s);
		free(tf->f[i].runs);
		free(tf->f[i].topic);
		free(tf->f[i].callerid);
	}
	for (size_t i = 0; i < tf->nwarn; i++)
		free(tf->warn[i]);
	free(tf->warn);
	free(tf->f);
	free(tf->idx.slot);
	free(tf->conn_static);
	free(tf);
}

BAG_API const struct bag_error *bag_tf_error(const bag_tf_t *tf)
{
	return tf != NULL ? &tf->err : &bag_error_nomem;
}

BAG_API void bag_tf_stats(const bag_tf_t *tf, struct bag_tf_stats *st)
{
	*st = tf->st;
}

BAG_API size_t bag_tf_frame_count(const bag_tf_t *tf)
{
	return tf->nf;
}
