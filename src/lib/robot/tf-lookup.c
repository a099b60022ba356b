/*
 * tf-lookup.c - lookups in the finished buffer, step for step as tf2's
 * BufferCore does them (walkToTopParent with a TransformAccum,
 * getLatestCommonTime, TimeCache::getData and its interpolation), with
 * the same floating-point operations in the same order so that results
 * agree to the last bits, and with times kept in integer nanoseconds.
 *
 * A walk accumulates, from each side up to the common ancestor, the
 * transform of the side's frame into the ancestor (vector v, quaternion
 * q); the result is inverse(target side) * source side. Nothing here
 * writes to the buffer, so lookups may run on several threads.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/common/util-int.h"
#include "lib/robot/tf-int.h"

#define MAX_GRAPH_DEPTH 1000

/* A rigid transform being accumulated: v translation, q rotation x y z w. */
struct acc {
	double v[3];
	double q[4];
};

/* What one edge gives at a time: the sample (perhaps interpolated) and its parent. */
struct edge {
	struct tf_sample s;
	uint32_t parent;
};

/* Hamilton product a * b (tf2's Quaternion operator*). */
static void qmul(const double a[4], const double b[4], double out[4])
{
	double r[4] = {
		a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
		a[3] * b[1] + a[1] * b[3] + a[2] * b[0] - a[0] * b[2],
		a[3] * b[2] + a[2] * b[3] + a[0] * b[1] - a[1] * b[0],
		a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
	};
	memcpy(out, r, sizeof r);
}

/* tf2's quatRotate: (q * v) * conjugate(q), q not assumed unit. */
static void qrot(const double q[4], const double v[3], double out[3])
{
	double p[4] = {
		q[3] * v[0] + q[1] * v[2] - q[2] * v[1],
		q[3] * v[1] + q[2] * v[0] - q[0] * v[2],
		q[3] * v[2] + q[0] * v[1] - q[1] * v[0],
		-q[0] * v[0] - q[1] * v[1] - q[2] * v[2],
	};
	double c[4] = { -q[0], -q[1], -q[2], q[3] }, r[4];
	qmul(p, c, r);
	memcpy(out, r, 3 * sizeof *out);
}

/* tf2's Quaternion::slerp, long-angle case included. */
static void slerp(const double a[4], const double b[4], double t, double out[4])
{
	double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
	double s = sqrt((a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3]) *
	                (b[0] * b[0] + b[1] * b[1] + b[2] * b[2] + b[3] * b[3]));
	double c = (dot < 0 ? -dot : dot) / s;
	double theta = acos(c < -1 ? -1 : c > 1 ? 1 : c) * 2.0 / 2.0;

	if (theta == 0.0) {
		memcpy(out, a, 4 * sizeof *out);
		return;
	}
	double d = 1.0 / sin(theta), s0 = sin((1.0 - t) * theta), s1 = sin(t * theta);
	double sign = dot < 0 ? -1.0 : 1.0;
	for (int k = 0; k < 4; k++)
		out[k] = (a[k] * s0 + sign * b[k] * s1) * d;
}

/* A duration's toSec() as ros::Duration computes it. */
static double to_sec(int64_t ns)
{
	int64_t sec = ns / BAG_NSEC_PER_SEC, nsec = ns % BAG_NSEC_PER_SEC;
	if (nsec < 0)
		sec--, nsec += BAG_NSEC_PER_SEC;
	return (double)sec + 1e-9 * (double)nsec;
}

/* "S.NNNNNNNNN" for an error line. */
static void fmt_time(char *buf, size_t cap, int64_t ns)
{
	snprintf(buf, cap, "%s%lld.%09lld", ns < 0 ? "-" : "", (long long)(ns < 0 ? -(ns / BAG_NSEC_PER_SEC) : ns / BAG_NSEC_PER_SEC),
	         (long long)(ns < 0 ? -(ns % BAG_NSEC_PER_SEC) : ns % BAG_NSEC_PER_SEC));
}

/* TimeCache::getData: 0, or -1 with the extrapolation written into err. */
static int edge_at(const struct tf_frame *f, int64_t t, struct edge *e, char *err, size_t cap)
{
	char a[32], b[32];
	size_t n = f->n, lo = 0, hi;

	if (f->is_static || t == 0 || (n == 1 && f->s[0].stamp_ns == t) || t == f->s[n - 1].stamp_ns) {
		e->s = f->s[n - 1];
		e->parent = tf_parent_at(f, n - 1);
		return 0;
	}
	if (n > 1 && t == f->s[0].stamp_ns) {
		e->s = f->s[0];
		e->parent = tf_parent_at(f, 0);
		return 0;
	}
	fmt_time(a, sizeof a, t);
	if (n == 1 || t > f->s[n - 1].stamp_ns || t < f->s[0].stamp_ns) {
		bool one = n == 1, future = t > f->s[n - 1].stamp_ns;
		fmt_time(b, sizeof b, future ? f->s[n - 1].stamp_ns : f->s[0].stamp_ns);
		snprintf(err, cap, one ? "Lookup would require extrapolation at time %s, but only time %s is in the buffer"
		                       : "Lookup would require extrapolation into the %s.  Requested time %s but the %s data is at time %s",
		         one ? a : future ? "future" : "past", one ? b : a, future ? "latest" : "earliest", b);
		return -1;
	}
	for (hi = n - 1; hi - lo > 1;) {   /* s[lo] <= t < s[hi] */
		size_t mid = (lo + hi) / 2;
		if (f->s[mid].stamp_ns <= t)
			lo = mid;
		else
			hi = mid;
	}
	e->parent = tf_parent_at(f, lo);
	e->s = f->s[lo];
	if (tf_parent_at(f, hi) != e->parent)
		return 0;
	double r = to_sec(t - f->s[lo].stamp_ns) / to_sec(f->s[hi].stamp_ns - f->s[lo].stamp_ns), r0 = 1.0 - r;
	for (int k = 0; k < 3; k++)
		e->s.t[k] = r0 * f->s[lo].t[k] + r * f->s[hi].t[k];
	slerp(f->s[lo].q, f->s[hi].q, r, e->s.q);
	return 0;
}

/* TransformAccum::accum: x := edge * x. */
static void accum(struct acc *x, const struct edge *e)
{
	double v[3];
	qrot(e->s.q, x->v, v);
	for (int k = 0; k < 3; k++)
		x->v[k] = v[k] + e->s.t[k];
	qmul(e->s.q, x->q, x->q);
}

/* The inverse of x as tf2's finalize forms it. */
static void invert(const struct acc *x, struct acc *inv)
{
	double neg[3] = { -x->v[0], -x->v[1], -x->v[2] };
	inv->q[0] = -x->q[0], inv->q[1] = -x->q[1], inv->q[2] = -x->q[2], inv->q[3] = x->q[3];
	qrot(inv->q, neg, inv->v);
}

static int fail(struct bag_tf_transform *out, enum bag_tf_error e)
{
	out->error = e;
	return BAG_ENOTFOUND;
}

/* One side's latest (time, parent) of frame f, tf2's getLatestTimeAndParent. */
static bool latest(const bag_tf_t *tf, uint32_t f, int64_t *t, uint32_t *parent)
{
	const struct tf_frame *fr = &tf->f[f];
	if (!fr->has_cache)
		return false;
	*t = fr->is_static ? 0 : fr->s[fr->n - 1].stamp_ns;
	*parent = fr->runs[fr->nruns - 1].parent;
	return true;
}

static void connectivity(const bag_tf_t *tf, uint32_t target, uint32_t source, struct bag_error *err)
{
	bag_error_say(err, BAG_ENOTFOUND, "Could not find a connection between '%s' and '%s' because they are "
	         "not part of the same tree.Tf has two or more unconnected trees.", tf->f[target].name, tf->f[source].name);
}

static int loop_error(struct bag_tf_transform *out, struct bag_error *err)
{
	bag_error_say(err, BAG_ENOTFOUND, "The tf tree is invalid because it contains a loop.");
	return fail(out, BAG_TF_LOOKUP);
}

/* min over the non-zero times. */
static void common_min(int64_t *c, int64_t t)
{
	if (t != 0 && t < *c)
		*c = t;
}

/* tf2's getLatestCommonTime for target != source: 0 and *time, or an error. */
static int latest_common(const bag_tf_t *tf, uint32_t target, uint32_t source, int64_t *time,
                         struct bag_tf_transform *out, struct bag_error *err)
{
	uint32_t chain[MAX_GRAPH_DEPTH + 2], f = source, p, common = UINT32_MAX;
	int64_t times[MAX_GRAPH_DEPTH + 2], t, c = INT64_MAX;
	size_t n = 0, depth = 0;

	while (latest(tf, f, &t, &p)) {
		common_min(&c, t);
		times[n] = t, chain[n++] = p;
		if ((f = p) == target) {
			*time = c == INT64_MAX ? 0 : c;
			return 0;
		}
		if (++depth > MAX_GRAPH_DEPTH)
			return loop_error(out, err);
	}
	c = INT64_MAX;
	for (f = target, depth = 0; latest(tf, f, &t, &p);) {
		common_min(&c, t);
		for (size_t k = 0; k < n && common == UINT32_MAX; k++)
			if (chain[k] == p)
				common = p;
		if (common != UINT32_MAX)
			break;
		if ((f = p) == source) {
			*time = c == INT64_MAX ? 0 : c;
			return 0;
		}
		if (++depth > MAX_GRAPH_DEPTH)
			return loop_error(out, err);
	}
	if (common == UINT32_MAX) {
		connectivity(tf, target, source, err);
		return fail(out, BAG_TF_CONNECTIVITY);
	}
	for (size_t k = 0; k < n; k++) {
		common_min(&c, times[k]);
		if (chain[k] == common)
			break;
	}
	*time = c == INT64_MAX ? 0 : c;
	return 0;
}

/* The end of a walk: out = inverse(tgt) * src (or the parts tf2 uses). */
static void finalize(const struct acc *src, const struct acc *tgt, int ending, struct bag_tf_transform *out)
{
	struct acc inv;
	if (ending == 0) {               /* target is an ancestor of source */
		memcpy(out->translation, src->v, sizeof src->v);
		memcpy(out->rotation, src->q, sizeof src->q);
		return;
	}
	invert(tgt, &inv);
	if (ending == 1) {               /* source is an ancestor of target */
		memcpy(out->translation, inv.v, sizeof inv.v);
		memcpy(out->rotation, inv.q, sizeof inv.q);
		return;
	}
	qrot(inv.q, src->v, out->translation);
	for (int k = 0; k < 3; k++)
		out->translation[k] += inv.v[k];
	qmul(inv.q, src->q, out->rotation);
}

/* Walk the source side up: 0 with *top, 1 when it reached target, or an error. */
static int walk_source(const bag_tf_t *tf, uint32_t source, uint32_t target, int64_t t, struct acc *src,
                       uint32_t *top, bool *extrap, char *err, size_t cap)
{
	uint32_t f = source;
	struct edge e;

	for (size_t depth = 0;;) {
		*top = f;
		if (!tf->f[f].has_cache)
			return 0;
		if (edge_at(&tf->f[f], t, &e, err, cap) != 0) {
			*extrap = true;
			return 0;
		}
		if (f == target)
			return 1;
		accum(src, &e);
		f = e.parent;
		if (++depth > MAX_GRAPH_DEPTH)
			return -1;
	}
}

/* walkToTopParent; source != target. */
static int walk(const bag_tf_t *tf, uint32_t target, uint32_t source, int64_t t, struct bag_tf_transform *out,
                struct bag_error *err)
{
	struct acc src = { { 0, 0, 0 }, { 0, 0, 0, 1 } }, tgt = src;
	char serr[200] = "", terr[200];
	uint32_t top, f = target;
	bool extrap = false;
	struct edge e;
	int rc = walk_source(tf, source, target, t, &src, &top, &extrap, serr, sizeof serr);

	if (rc != 0)
		return rc < 0 ? loop_error(out, err) : (finalize(&src, &tgt, 0, out), 0);
	for (size_t depth = 0; f != top && tf->f[f].has_cache;) {
		if (edge_at(&tf->f[f], t, &e, terr, sizeof terr) != 0) {
			bag_error_say(err, BAG_ENOTFOUND, "%s, when looking up transform from frame [%s] to frame [%s]",
			              terr, tf->f[source].name, tf->f[target].name);
			return fail(out, BAG_TF_EXTRAPOLATION);
		}
		if (f == source)
			return finalize(&src, &tgt, 1, out), 0;
		accum(&tgt, &e);
		f = e.parent;
		if (++depth > MAX_GRAPH_DEPTH)
			return loop_error(out, err);
	}
	if (f != top) {
		if (extrap) {
			bag_error_say(err, BAG_ENOTFOUND, "%s, when looking up transform from frame [%s] to frame [%s]",
			              serr, tf->f[source].name, tf->f[target].name);
			return fail(out, BAG_TF_EXTRAPOLATION);
		}
		connectivity(tf, target, source, err);
		return fail(out, BAG_TF_CONNECTIVITY);
	}
	finalize(&src, &tgt, 2, out);
	return 0;
}

/* A frame argument as tf2 validates it: its index, or an error. */
static long frame_arg(const bag_tf_t *tf, const char *name, const char *what, struct bag_tf_transform *out,
                      struct bag_error *err)
{
	long i;
	if (name[0] == '\0' || name[0] == '/') {
		bag_error_say(err, BAG_EINVAL, name[0] ? "Invalid argument \"%s\" passed to lookupTransform argument "
		         "%s in tf2 frame_ids cannot start with a '/'" : "Invalid argument%s passed to lookupTransform argument "
		         "%s - in tf2 frame_ids cannot be empty", name, what);
		fail(out, BAG_TF_INVALID);
		return -1;
	}
	if ((i = bag_tf_frame_find(tf, name)) < 0) {
		bag_error_say(err, BAG_ENOTFOUND, "\"%s\" passed to lookupTransform argument %s does not exist. ", name, what);
		fail(out, BAG_TF_LOOKUP);
	}
	return i;
}

BAG_API int bag_tf_lookup(const bag_tf_t *tf, const char *target, const char *source, int64_t time_ns,
                          struct bag_tf_transform *out, struct bag_error *err)
{
	long ti, si;

	memset(out, 0, sizeof *out);
	bag_error_clear(err);
	out->rotation[3] = 1;
	out->stamp_ns = time_ns;
	if (strcmp(target, source) == 0) {  /* tf2 answers this before it checks the frame */
		const struct tf_frame *f = (ti = bag_tf_frame_find(tf, target)) >= 0 ? &tf->f[ti] : NULL;
		if (time_ns == 0 && f != NULL && f->has_cache)
			out->stamp_ns = f->is_static ? 0 : f->s[f->n - 1].stamp_ns;
		return 0;
	}
	if ((ti = frame_arg(tf, target, "target_frame", out, err)) < 0 || (si = frame_arg(tf, source, "source_frame", out, err)) < 0)
		return out->error == BAG_TF_INVALID ? BAG_EINVAL : BAG_ENOTFOUND;
	if (time_ns == 0 && latest_common(tf, (uint32_t)ti, (uint32_t)si, &out->stamp_ns, out, err) != 0)
		return BAG_ENOTFOUND;
	return walk(tf, (uint32_t)ti, (uint32_t)si, out->stamp_ns, out, err);
}

BAG_API void bag_tf_rpy(const double q[4], double rpy[3])
{
	bag_quat_rpy(q, rpy);
}

BAG_API int bag_tf_expr_lookup(const void *tf, const char *target, const char *source, int64_t time_ns,
                               double xyz[3], double q[4])
{
	struct bag_tf_transform x;

	if (bag_tf_lookup(tf, target, source, time_ns, &x, NULL) != 0)
		return -1;
	memcpy(xyz, x.translation, sizeof x.translation);
	memcpy(q, x.rotation, sizeof x.rotation);
	return 0;
}
