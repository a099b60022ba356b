/*
 * expr-eval.c - evaluating a compiled expression on one message.
 *
 * Everything lives on the caller's stack (struct ctx): the program is only
 * read, so threads share it. A test returns 1, 0 or BAG_EDECODE; a value is
 * a struct val (expr-int.h), BAG_EXPR_MISSING when a path runs into an
 * index out of range. A path's steps move a byte cursor; every length and
 * offset is checked against the bytes left before it is used.
 *
 * A comparison with `[*]` paths enumerates them depth-first: the first path's
 * elements each bind its slot in ctx.star and recurse into the next path,
 * the last binding evaluates the comparison; the first true ends the search.
 */
#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/decode.h>
#include "lib/query/expr-int.h"
#include "lib/common/util-int.h"

struct ctx {
	const bag_expr_prog_t *p;
	const uint8_t *data;
	size_t len;
	int64_t time_ns;
	uint64_t budget;                   /* [*] bindings left: the message's element budget (decode.h) */
	struct val star[EXPR_MAX_STARS];   /* the element each [*] path is bound to */
};

enum { W_VALUE = 1, W_MISSING = 2, W_STAR = 3 };

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static int skip_field(const struct ctx *x, uint32_t op, size_t *at);

/* Pass over one element of op at *at. */
static int skip_elem(const struct ctx *x, uint32_t op, size_t *at)
{
	const struct pop *o = &x->p->ops[op];
	size_t left = x->len - *at;
	int rc = BAG_OK;

	if (o->esize != ESIZE_VAR) {
		if (o->esize > left)
			return BAG_EDECODE;
		*at += o->esize;
		return BAG_OK;
	}
	if (o->prim == BAG_PRIM_STRING) {
		if (left < 4 || le32(x->data + *at) > left - 4)
			return BAG_EDECODE;
		*at += 4 + (size_t)le32(x->data + *at);
		return BAG_OK;
	}
	for (uint32_t k = 0; rc == BAG_OK && k < o->nsub; k++)
		rc = skip_field(x, o->sub + k, at);
	return rc;
}

/* The element count of array field op at *at (reads a variable array's length). */
static int array_count(const struct ctx *x, uint32_t op, size_t *at, uint32_t *count)
{
	const struct pop *o = &x->p->ops[op];
	size_t left;

	if (o->array == BAG_ARRAY_FIXED) {
		*count = o->fixed_len;
	} else {
		if (x->len - *at < 4)
			return BAG_EDECODE;
		*count = le32(x->data + *at);
		*at += 4;
	}
	left = x->len - *at;
	if ((o->elem_min > 0 && *count > left / o->elem_min) || (o->elem_min == 0 && *count > 65536 && *count > left))
		return BAG_EDECODE;
	return BAG_OK;
}

/* Pass over the whole field op (every element of an array). */
static int skip_field(const struct ctx *x, uint32_t op, size_t *at)
{
	const struct pop *o = &x->p->ops[op];
	uint32_t count;
	int rc;

	if (o->array == BAG_ARRAY_NONE)
		return skip_elem(x, op, at);
	if ((rc = array_count(x, op, at, &count)) != BAG_OK)
		return rc;
	if (o->esize != ESIZE_VAR) {
		uint64_t bytes = (uint64_t)count * o->esize;
		if (bytes > x->len - *at)
			return BAG_EDECODE;
		*at += (size_t)bytes;
		return BAG_OK;
	}
	for (uint32_t i = 0; i < count; i++)
		if ((rc = skip_elem(x, op, at)) != BAG_OK)
			return rc;
	return BAG_OK;
}

/* Read a prim at *at into *v. */
static int read_prim(const struct ctx *x, uint8_t prim, size_t at, struct val *v)
{
	static const uint8_t sizes[] = {
		[BAG_PRIM_BOOL] = 1, [BAG_PRIM_INT8] = 1, [BAG_PRIM_UINT8] = 1, [BAG_PRIM_INT16] = 2,
		[BAG_PRIM_UINT16] = 2, [BAG_PRIM_INT32] = 4, [BAG_PRIM_UINT32] = 4, [BAG_PRIM_INT64] = 8,
		[BAG_PRIM_UINT64] = 8, [BAG_PRIM_FLOAT32] = 4, [BAG_PRIM_FLOAT64] = 8, [BAG_PRIM_STRING] = 4,
		[BAG_PRIM_TIME] = 8, [BAG_PRIM_DURATION] = 8,
	};
	const uint8_t *d = x->data + at;
	size_t left = x->len - at;

	if (left < sizes[prim])
		return BAG_EDECODE;
	v->kind = BAG_EXPR_INT;
	v->has_ns = false;
	switch (prim) {
	case BAG_PRIM_BOOL: v->kind = BAG_EXPR_BOOL; v->v.b = d[0] != 0; break;
	case BAG_PRIM_INT8: v->v.i = (int8_t)d[0]; break;
	case BAG_PRIM_UINT8: v->v.i = d[0]; break;
	case BAG_PRIM_INT16: v->v.i = (int16_t)(d[0] | d[1] << 8); break;
	case BAG_PRIM_UINT16: v->v.i = (uint16_t)(d[0] | d[1] << 8); break;
	case BAG_PRIM_INT32: v->v.i = (int32_t)le32(d); break;
	case BAG_PRIM_UINT32: v->v.i = le32(d); break;
	case BAG_PRIM_INT64: v->v.i = (int64_t)le64(d); break;
	case BAG_PRIM_UINT64:
		v->v.u = le64(d);
		v->kind = v->v.u > INT64_MAX ? BAG_EXPR_UINT : BAG_EXPR_INT;
		break;
	case BAG_PRIM_FLOAT32: {
		uint32_t u = le32(d);
		float f;
		memcpy(&f, &u, 4);
		v->kind = BAG_EXPR_FLOAT;
		v->v.f = f;
		break;
	}
	case BAG_PRIM_FLOAT64: {
		uint64_t u = le64(d);
		v->kind = BAG_EXPR_FLOAT;
		memcpy(&v->v.f, &u, 8);
		break;
	}
	case BAG_PRIM_STRING:
		if (le32(d) > left - 4)
			return BAG_EDECODE;
		v->kind = BAG_EXPR_STRING;
		v->v.s.p = (const char *)d + 4;
		v->v.s.len = le32(d);
		break;
	case BAG_PRIM_TIME:
		v->kind = BAG_EXPR_TIME;
		v->v.t = (int64_t)le32(d) * BAG_NSEC_PER_SEC + le32(d + 4);
		break;
	case BAG_PRIM_DURATION:
		v->kind = BAG_EXPR_TIME;
		v->v.t = (int64_t)(int32_t)le32(d) * BAG_NSEC_PER_SEC + (int32_t)le32(d + 4);
		break;
	}
	return BAG_OK;
}

/*
 * Run the steps [*s, end) from *at. W_VALUE with *v, W_MISSING (an index
 * out of range), W_STAR with *s on the ST_STAR step and *at at its array,
 * or BAG_EDECODE.
 */
static int walk(const struct ctx *x, const struct step **s, const struct step *end, size_t *at, struct val *v)
{
	uint32_t count;
	int rc;

	for (const struct step *st = *s; st < end; st++) {
		switch (st->kind) {
		case ST_SKIP:
			if ((uint64_t)st->n > x->len - *at)
				return BAG_EDECODE;
			*at += (size_t)st->n;
			break;
		case ST_FIELD:
			if ((rc = skip_field(x, st->op, at)) != BAG_OK)
				return rc;
			break;
		case ST_INDEX: {
			const struct pop *o = &x->p->ops[st->op];
			if ((rc = array_count(x, st->op, at, &count)) != BAG_OK)
				return rc;
			int64_t idx = st->n < 0 ? (int64_t)count + st->n : st->n;
			if (idx < 0 || idx >= (int64_t)count)
				return W_MISSING;
			if (o->esize != ESIZE_VAR) {
				if ((uint64_t)idx * o->esize > x->len - *at)
					return BAG_EDECODE;
				*at += (size_t)idx * o->esize;
			} else {
				for (int64_t k = 0; k < idx; k++)
					if ((rc = skip_elem(x, st->op, at)) != BAG_OK)
						return rc;
			}
			break;
		}
		case ST_STAR:
			*s = st;
			return W_STAR;
		case ST_LEN:
			if (st->op == EXPR_NONE) {
				if (x->len - *at < 4 || le32(x->data + *at) > x->len - *at - 4)
					return BAG_EDECODE;
				count = le32(x->data + *at);
			} else if ((rc = array_count(x, st->op, at, &count)) != BAG_OK) {
				return rc;
			}
			v->kind = BAG_EXPR_INT;
			v->has_ns = false;
			v->v.i = count;
			return W_VALUE;
		case ST_READ:
			if ((rc = read_prim(x, st->prim, *at, v)) != BAG_OK)
				return rc;
			return W_VALUE;
		}
	}
	return BAG_EDECODE;   /* a compiled path always ends in a read */
}

static double to_double(const struct val *v)
{
	switch (v->kind) {
	case BAG_EXPR_BOOL: return v->v.b;
	case BAG_EXPR_INT: return (double)v->v.i;
	case BAG_EXPR_UINT: return (double)v->v.u;
	case BAG_EXPR_FLOAT: return v->v.f;
	case BAG_EXPR_TIME: return (double)v->v.t / 1e9;
	default: return NAN;
	}
}

static int sign3(double a, double b)
{
	if (isnan(a) || isnan(b))
		return 2;
	return (a > b) - (a < b);
}

#define CMP3(a, b) (((a) > (b)) - ((a) < (b)))

/* A time t (ns) against a number b: -1, 0, 1, or 2 when unordered. */
static int time_cmp(int64_t t, const struct val *b)
{
	int64_t ns;

	switch (b->kind) {
	case BAG_EXPR_TIME:
		return CMP3(t, b->v.t);
	case BAG_EXPR_INT:
		if (__builtin_mul_overflow(b->v.i, BAG_NSEC_PER_SEC, &ns))
			return b->v.i > 0 ? -1 : 1;
		return CMP3(t, ns);
	case BAG_EXPR_UINT:
		return -1;
	case BAG_EXPR_FLOAT:
		if (b->has_ns)
			return t != b->ns ? CMP3(t, b->ns) : b->frac ? -1 : 0;
		return sign3((double)t / 1e9, b->v.f);
	default:
		return 2;
	}
}

/*
 * Integer a (INT or UINT) against the double f, exactly (no rounding of a
 * to a double: 2^64 - 1 is less than 2^64): -1, 0, 1, or 2 (NaN).
 */
static int int_float_cmp(const struct val *a, double f)
{
	double fl;

	if (isnan(f))
		return 2;
	if (f >= 18446744073709551616.0)
		return -1;
	if (f < -9223372036854775808.0)
		return 1;
	fl = floor(f);   /* an integer in [-2^63, 2^64) */
	if (a->kind == BAG_EXPR_INT && fl >= 9223372036854775808.0)
		return -1;
	if (a->kind == BAG_EXPR_UINT && fl < 0)
		return 1;
	if (a->kind == BAG_EXPR_INT ? a->v.i != (int64_t)fl : a->v.u != (uint64_t)fl)
		return a->kind == BAG_EXPR_INT ? CMP3(a->v.i, (int64_t)fl) : CMP3(a->v.u, (uint64_t)fl);
	return fl == f ? 0 : -1;   /* a is floor(f) */
}

/* a against b: -1, 0, 1; 2 unordered (NaN); 3 not comparable (missing, kinds). */
static int compare(const struct val *a, const struct val *b)
{
	uint8_t ka = a->kind, kb = b->kind;

	if (ka == BAG_EXPR_MISSING || kb == BAG_EXPR_MISSING)
		return 3;
	if (ka == BAG_EXPR_STRING || kb == BAG_EXPR_STRING) {
		if (ka != kb)
			return 3;
		size_t n = a->v.s.len < b->v.s.len ? a->v.s.len : b->v.s.len;
		int r = n ? memcmp(a->v.s.p, b->v.s.p, n) : 0;
		return r != 0 ? (r > 0) - (r < 0) : CMP3(a->v.s.len, b->v.s.len);
	}
	if (ka == BAG_EXPR_BOOL || kb == BAG_EXPR_BOOL)
		return ka == kb ? CMP3(a->v.b, b->v.b) : 3;
	if ((ka == BAG_EXPR_INT || ka == BAG_EXPR_UINT) && (kb == BAG_EXPR_INT || kb == BAG_EXPR_UINT)) {
		if (ka != kb)
			return ka == BAG_EXPR_UINT ? 1 : -1;
		return ka == BAG_EXPR_INT ? CMP3(a->v.i, b->v.i) : CMP3(a->v.u, b->v.u);
	}
	if (ka == BAG_EXPR_TIME)
		return time_cmp(a->v.t, b);
	if (kb == BAG_EXPR_TIME) {
		int r = time_cmp(b->v.t, a);
		return r == 2 ? 2 : -r;
	}
	if ((ka == BAG_EXPR_INT || ka == BAG_EXPR_UINT) && kb == BAG_EXPR_FLOAT)
		return int_float_cmp(a, b->v.f);
	if ((kb == BAG_EXPR_INT || kb == BAG_EXPR_UINT) && ka == BAG_EXPR_FLOAT) {
		int r = int_float_cmp(b, a->v.f);
		return r == 2 ? 2 : -r;
	}
	return sign3(to_double(a), to_double(b));
}

static int compare_op(uint8_t op, const struct val *a, const struct val *b)
{
	int r = compare(a, b);

	switch (op) {
	case N_EQ: return r == 0;
	case N_NE: return r != 0 && r != 3;
	case N_LT: return r == -1;
	case N_LE: return r == -1 || r == 0;
	case N_GT: return r == 1;
	case N_GE: return r == 1 || r == 0;
	}
	return 0;
}

/* out = x op y on integers: exact while the result fits int64 or uint64, else a double. */
#define INT_OP(fn, xx, yy, dbl) do { \
		int64_t r_; \
		uint64_t u_; \
		if (!fn(xx, yy, &r_)) { out->kind = BAG_EXPR_INT; out->v.i = r_; } \
		else if (!fn(xx, yy, &u_)) { out->kind = BAG_EXPR_UINT; out->v.u = u_; } \
		else { out->kind = BAG_EXPR_FLOAT; out->v.f = (dbl); } \
	} while (0)

#define INT_OPS(fn, dbl) do { \
		if (a->kind == BAG_EXPR_INT && b->kind == BAG_EXPR_INT) INT_OP(fn, a->v.i, b->v.i, dbl); \
		else if (a->kind == BAG_EXPR_INT) INT_OP(fn, a->v.i, b->v.u, dbl); \
		else if (b->kind == BAG_EXPR_INT) INT_OP(fn, a->v.u, b->v.i, dbl); \
		else INT_OP(fn, a->v.u, b->v.u, dbl); \
	} while (0)

static void negate(const struct val *a, struct val *out)
{
	*out = *a;
	switch (a->kind) {
	case BAG_EXPR_INT:
		if (a->v.i == INT64_MIN) {
			out->kind = BAG_EXPR_UINT;
			out->v.u = (uint64_t)INT64_MAX + 1;
		} else {
			out->v.i = -a->v.i;
		}
		break;
	case BAG_EXPR_UINT:
		if (a->v.u == (uint64_t)INT64_MAX + 1) {
			out->kind = BAG_EXPR_INT;
			out->v.i = INT64_MIN;
		} else {
			out->kind = BAG_EXPR_FLOAT;
			out->v.f = -(double)a->v.u;
		}
		break;
	case BAG_EXPR_FLOAT:
		out->v.f = -a->v.f;
		/* -(ns + frac) = (-ns - 1) + (1 - frac) */
		if (a->has_ns && a->ns != INT64_MIN)
			out->ns = a->frac ? -a->ns - 1 : -a->ns;
		else
			out->has_ns = false;
		break;
	case BAG_EXPR_TIME:
		if (a->v.t == INT64_MIN) {
			out->kind = BAG_EXPR_FLOAT;
			out->v.f = -to_double(a);
		} else {
			out->v.t = -a->v.t;
		}
		break;
	}
}

void expr_arith(uint8_t op, const struct val *a, const struct val *b, struct val *out)
{
	memset(out, 0, sizeof *out);
	if (a->kind == BAG_EXPR_MISSING || (b != NULL && b->kind == BAG_EXPR_MISSING))
		return;
	if (op == N_NEG || op == N_ABS) {
		bool neg = (a->kind == BAG_EXPR_INT && a->v.i < 0) || (a->kind == BAG_EXPR_FLOAT && signbit(a->v.f)) ||
		           (a->kind == BAG_EXPR_TIME && a->v.t < 0);
		if (op == N_NEG || neg)
			negate(a, out);
		else
			*out = *a;
		return;
	}
	bool ints = (a->kind == BAG_EXPR_INT || a->kind == BAG_EXPR_UINT) &&
	            (b->kind == BAG_EXPR_INT || b->kind == BAG_EXPR_UINT);
	double da = to_double(a), db = to_double(b);
	switch (op) {
	case N_ADD:
		if (ints)
			INT_OPS(__builtin_add_overflow, da + db);
		else if (a->kind == BAG_EXPR_TIME && b->kind == BAG_EXPR_TIME && !__builtin_add_overflow(a->v.t, b->v.t, &out->v.t))
			out->kind = BAG_EXPR_TIME;
		else
			out->kind = BAG_EXPR_FLOAT, out->v.f = da + db;
		break;
	case N_SUB:
		if (ints)
			INT_OPS(__builtin_sub_overflow, da - db);
		else if (a->kind == BAG_EXPR_TIME && b->kind == BAG_EXPR_TIME && !__builtin_sub_overflow(a->v.t, b->v.t, &out->v.t))
			out->kind = BAG_EXPR_TIME;
		else
			out->kind = BAG_EXPR_FLOAT, out->v.f = da - db;
		break;
	case N_MUL:
		if (ints)
			INT_OPS(__builtin_mul_overflow, da * db);
		else
			out->kind = BAG_EXPR_FLOAT, out->v.f = da * db;
		break;
	case N_DIV:
		out->kind = BAG_EXPR_FLOAT;
		out->v.f = da / db;
		break;
	}
}



/* tf(TARGET, SOURCE).FIELD at time t (tf.h): a float, or missing when the lookup fails. */
static void eval_tf(const bag_expr_t *e, const struct node *n, int64_t t, struct val *out)
{
	double xyz[3], q[4], rpy[3];

	out->kind = BAG_EXPR_MISSING;
	out->has_ns = false;
	if (e->tf_fn == NULL || e->tf_fn(e->tf_ctx, e->strs + n->str_off, e->strs + n->tf_src_off, t, xyz, q) != 0)
		return;
	out->kind = BAG_EXPR_FLOAT;
	if (n->tf_field < 3) {
		out->v.f = xyz[n->tf_field];
	} else if (n->tf_field < 7) {
		out->v.f = q[n->tf_field - 3];
	} else {
		bag_quat_rpy(q, rpy);
		out->v.f = rpy[n->tf_field - 7];
	}
}
static int eval_node(struct ctx *x, uint32_t i, struct val *out);
static int test(struct ctx *x, uint32_t i);

/*
 * AddressSanitizer's regexec interceptor (before LLVM 16) checks strlen(string)
 * bytes even with REG_STARTEND, a false report on message bytes that are not
 * NUL-terminated: under ASan only, match a terminated copy.
 */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define REGEXEC_WANTS_NUL 1
#endif
#endif
#ifdef __SANITIZE_ADDRESS__
#define REGEXEC_WANTS_NUL 1
#endif

/* Whether regex re matches the string v anywhere, NULs included. */
static int regex_match(const struct ctx *x, uint32_t re, const struct val *v)
{
	const char *s = v->v.s.len ? v->v.s.p : "";
	regmatch_t m[1];
	int r;

	if (v->kind != BAG_EXPR_STRING || v->v.s.len > INT_MAX)
		return 0;
	m[0].rm_so = 0;
	m[0].rm_eo = (regoff_t)v->v.s.len;
#ifdef REGEXEC_WANTS_NUL
	char *copy = malloc(v->v.s.len + 1);
	if (copy == NULL)
		return 0;
	memcpy(copy, s, v->v.s.len);
	copy[v->v.s.len] = '\0';
	s = copy;
#endif
	r = regexec(&x->p->e->regexes[re], s, 0, m, REG_STARTEND) == 0;
#ifdef REGEXEC_WANTS_NUL
	free(copy);
#endif
	return r;
}

/* Comparison i with every [*] path bound: 1, 0 or an error. */
static int compare_now(struct ctx *x, uint32_t i)
{
	const struct node *n = &x->p->e->nodes[i];
	struct val a, b;
	int rc;

	if ((rc = eval_node(x, n->a, &a)) < 0)
		return rc;
	switch (n->op) {
	case N_TEST:
		return a.kind == BAG_EXPR_BOOL && a.v.b;
	case N_MATCH:
		return regex_match(x, n->comp_first, &a);
	case N_NOMATCH:
		return a.kind == BAG_EXPR_STRING && !regex_match(x, n->comp_first, &a);
	}
	if ((rc = eval_node(x, n->b, &b)) < 0)
		return rc;
	return compare_op(n->op, &a, &b);
}

static int compare_any(struct ctx *x, uint32_t i, uint32_t k);

/* Bind [*] path number k of comparison i to each value its steps [s, end) reach from at. */
static int bind_path(struct ctx *x, uint32_t i, uint32_t k, const struct step *s, const struct step *end, size_t at)
{
	uint32_t path = x->p->e->stars[x->p->e->nodes[i].star_first + k];
	struct val v;
	uint32_t count;
	int rc = walk(x, &s, end, &at, &v);

	if (rc < 0 || rc == W_MISSING)
		return rc < 0 ? rc : 0;
	if (rc == W_VALUE) {
		x->star[x->p->e->nodes[path].star] = v;
		return compare_any(x, i, k + 1);
	}
	if ((rc = array_count(x, s->op, &at, &count)) != BAG_OK)
		return rc;
	for (uint32_t j = 0; j < count; j++) {
		/* each element bound costs one: nested [*] over empty messages, or a cross
		 * product of two paths, cannot take more than decoding the message would */
		if (x->budget == 0)
			return BAG_EDECODE;
		x->budget--;
		if ((rc = bind_path(x, i, k, s + 1, end, at)) != 0)
			return rc;
		if (j + 1 < count && (rc = skip_elem(x, s->op, &at)) != BAG_OK)
			return rc;
	}
	return 0;
}

/* Comparison i for some binding of its [*] paths k, k+1, ... */
static int compare_any(struct ctx *x, uint32_t i, uint32_t k)
{
	const struct node *n = &x->p->e->nodes[i];

	if (k == n->nstar)
		return compare_now(x, i);
	const struct cnode *c = &x->p->cn[x->p->e->stars[n->star_first + k]];
	const struct step *s = x->p->steps + c->step_first;
	return bind_path(x, i, k, s, s + c->nstep, 0);
}

/* Test i: 1, 0 or an error. A chain of && or || (right-leaning) is a loop. */
static int test(struct ctx *x, uint32_t i)
{
	for (;;) {
		const struct node *n = &x->p->e->nodes[i];
		int rc;

		if (x->p->cn[i].konst >= 0)
			return x->p->cn[i].konst;
		switch (n->op) {
		case N_NOT:
			rc = test(x, n->a);
			return rc < 0 ? rc : !rc;
		case N_AND:
			if ((rc = test(x, n->a)) <= 0)
				return rc;
			i = n->b;
			continue;
		case N_OR:
			if ((rc = test(x, n->a)) != 0)
				return rc;
			i = n->b;
			continue;
		}
		return n->nstar > 0 ? compare_any(x, i, 0) : compare_now(x, i);
	}
}

/* The value of node i. */
static int eval_node(struct ctx *x, uint32_t i, struct val *out)
{
	const bag_expr_prog_t *p = x->p;
	const struct node *n = &p->e->nodes[i];
	struct val a, b;
	int rc;

	out->kind = BAG_EXPR_MISSING;
	out->has_ns = false;
	if (p->cn[i].cls == CL_FAIL)
		return BAG_OK;
	switch (n->op) {
	case N_LIT:
		if (!n->is_str) {
			*out = n->lit;
			return BAG_OK;
		}
		out->kind = BAG_EXPR_STRING;
		out->v.s.p = p->e->strs + n->str_off;
		out->v.s.len = n->str_len;
		return BAG_OK;
	case N_PATH: {
		if (n->star != EXPR_NONE) {
			*out = x->star[n->star];
			return BAG_OK;
		}
		const struct step *s = p->steps + p->cn[i].step_first;
		size_t at = 0;
		rc = walk(x, &s, s + p->cn[i].nstep, &at, out);
		if (rc == W_MISSING)
			out->kind = BAG_EXPR_MISSING;
		return rc < 0 ? rc : BAG_OK;
	}
	case N_TOPIC:
	case N_TYPE:
		out->kind = BAG_EXPR_STRING;
		out->v.s.p = n->op == N_TOPIC ? p->conn->topic : p->conn->type;
		out->v.s.len = n->op == N_TOPIC ? p->topic_len : p->type_len;
		return BAG_OK;
	case N_TIME:
		out->kind = BAG_EXPR_TIME;
		out->v.t = x->time_ns;
		return BAG_OK;
	case N_TF:
		eval_tf(p->e, n, x->time_ns, out);
		return BAG_OK;
	case N_NEG:
	case N_ABS:
		if ((rc = eval_node(x, n->a, &a)) < 0)
			return rc;
		expr_arith(n->op, &a, NULL, out);
		return BAG_OK;
	case N_ADD: case N_SUB: case N_MUL: case N_DIV:
		if ((rc = eval_node(x, n->a, &a)) < 0 || (rc = eval_node(x, n->b, &b)) < 0)
			return rc;
		expr_arith(n->op, &a, &b, out);
		return BAG_OK;
	}
	if ((rc = test(x, i)) < 0)
		return rc;
	out->kind = BAG_EXPR_BOOL;
	out->v.b = rc;
	return BAG_OK;
}

int expr_eval_fixed(const bag_expr_prog_t *p, uint32_t i, struct val *out)
{
	struct ctx x;

	x.p = p;
	x.data = NULL;
	x.len = 0;
	x.budget = BAG_DECODE_BUDGET(0);
	x.time_ns = 0;
	return eval_node(&x, i, out);
}

BAG_API int bag_expr_eval(const bag_expr_prog_t *p, const uint8_t *data, size_t len, int64_t time_ns)
{
	struct ctx x;

	assert(p->e->is_filter);
	assert(data != NULL || !p->needs_data);
	if (p->konst >= 0)
		return p->konst;
	x.p = p;
	x.data = data;
	x.len = data != NULL ? len : 0;
	x.budget = BAG_DECODE_BUDGET(x.len);
	x.time_ns = time_ns;
	return test(&x, p->e->root);
}

/* What the record time alone says of test i: 0 when it is false whatever the message, else 1. */
static int test_index(struct ctx *x, uint32_t i)
{
	for (;;) {
		const struct node *n = &x->p->e->nodes[i];
		int rc;

		if (x->p->cn[i].konst >= 0)
			return x->p->cn[i].konst;
		if (!x->p->cn[i].uses_data)
			return (rc = test(x, i)) < 0 ? 1 : rc;
		if (n->op != N_AND && n->op != N_OR)
			return 1;
		if (test_index(x, n->a) == (n->op == N_OR))
			return n->op == N_OR;
		i = n->b;
	}
}

BAG_API int bag_expr_eval_index(const bag_expr_prog_t *p, int64_t time_ns)
{
	struct ctx x;

	assert(p->e->is_filter);
	if (p->konst >= 0)
		return p->konst;
	x.p = p;
	x.data = NULL;
	x.len = 0;
	x.budget = BAG_DECODE_BUDGET(0);
	x.time_ns = time_ns;
	return test_index(&x, p->e->root);
}

BAG_API int bag_expr_eval_value(const bag_expr_prog_t *p, const uint8_t *data, size_t len,
                                int64_t time_ns, struct bag_expr_val *out)
{
	struct ctx x;
	struct val v;
	int rc;

	assert(data != NULL || !p->needs_data);
	x.p = p;
	x.data = data;
	x.len = data != NULL ? len : 0;
	x.budget = BAG_DECODE_BUDGET(x.len);
	x.time_ns = time_ns;
	memset(out, 0, sizeof *out);
	out->num = NAN;
	if ((rc = eval_node(&x, p->e->root, &v)) < 0)
		return rc;
	out->kind = (enum bag_expr_kind)v.kind;
	switch (v.kind) {
	case BAG_EXPR_BOOL: out->v.b = v.v.b; break;
	case BAG_EXPR_INT: out->v.i = v.v.i; break;
	case BAG_EXPR_UINT: out->v.u = v.v.u; break;
	case BAG_EXPR_FLOAT: out->v.f = v.v.f; break;
	case BAG_EXPR_TIME: out->v.ns = v.v.t; break;
	case BAG_EXPR_STRING: out->v.s.p = v.v.s.p; out->v.s.len = v.v.s.len; return BAG_OK;
	default: return BAG_OK;
	}
	out->num = to_double(&v);
	return BAG_OK;
}
