/*
 * expr-compile.c - an expression compiled for one connection, and the check
 * over all selected connections.
 *
 * Each node gets a cnode (expr-int.h): its class on this connection (bool,
 * number, string, or failed = missing), whether it is the same for every
 * message (then a test is folded to a constant here) and whether it reads
 * the message. Nodes are compiled in index order, so operands are ready
 * before the node that uses them.
 *
 * A path becomes steps over a copy of the definition's ops: the fields
 * before the wanted one collapse into byte skips where their size is fixed
 * (a nested message of fixed-size fields is one skip; one holding strings
 * is opened and its fields skipped in turn), and into ST_FIELD steps, which
 * read lengths, where it is not.
 *
 * A failure (unknown field, a string compared with a number) makes the
 * node missing; a value node passes its operand's failure up to the
 * comparison around it (fail_sub), but a comparison's result is a plain
 * false and passes nothing further: `(a > 1) || (b > 1)` over types that
 * each have one of a, b is fine, `no_such_field > 1` is refused.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/query/expr-int.h"
#include "lib/msg/msgdef-int.h"
#include "lib/common/util-int.h"

static const uint8_t prim_sizes[] = {
	[BAG_PRIM_BOOL] = 1, [BAG_PRIM_INT8] = 1, [BAG_PRIM_UINT8] = 1, [BAG_PRIM_INT16] = 2,
	[BAG_PRIM_UINT16] = 2, [BAG_PRIM_INT32] = 4, [BAG_PRIM_UINT32] = 4, [BAG_PRIM_INT64] = 8,
	[BAG_PRIM_UINT64] = 8, [BAG_PRIM_FLOAT32] = 4, [BAG_PRIM_FLOAT64] = 8, [BAG_PRIM_STRING] = 4,
	[BAG_PRIM_TIME] = 8, [BAG_PRIM_DURATION] = 8,
};

#define ESIZE_UNKNOWN (UINT32_MAX - 1)
/* bigger fixed sizes are left to the run-time walk, which checks them (no int64 overflow here) */
#define MAX_SKIP (UINT64_C(1) << 40)

/* how far a node got before failing, for bag_expr_check(): paths by components resolved */
#define RANK_TYPE (1u << 30)

/* Node i fails here: it becomes missing, with a reason at byte pos. */
static int cfail(bag_expr_prog_t *p, uint32_t i, uint32_t pos, uint32_t rank, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int cfail(bag_expr_prog_t *p, uint32_t i, uint32_t pos, uint32_t rank, const char *fmt, ...)
{
	struct cnode *c = &p->cn[i];
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	c->cls = CL_FAIL;
	c->fail_sub = true;
	c->fail_pos = pos;
	c->fail_rank = rank;
	if (c->own_why)
		free(c->why);
	c->why = strdup(buf);
	c->own_why = true;
	return c->why != NULL ? BAG_OK : BAG_ENOMEM;
}

/* Node i takes the failure of its operand a. */
static void inherit(bag_expr_prog_t *p, uint32_t i, uint32_t a)
{
	struct cnode *c = &p->cn[i], *o = &p->cn[a];

	c->fail_sub = true;
	c->fail_pos = o->fail_pos;
	c->fail_rank = o->fail_rank;
	c->why = o->why;
	c->own_why = false;
}

/* Bytes one element of op takes when fixed, else ESIZE_VAR (memoised). */
static uint32_t elem_size(bag_expr_prog_t *p, uint32_t op)
{
	struct pop *o = &p->ops[op];

	if (o->esize != ESIZE_UNKNOWN)
		return o->esize;
	if (o->prim != BAG_PRIM_MESSAGE) {
		o->esize = o->prim == BAG_PRIM_STRING ? ESIZE_VAR : prim_sizes[o->prim];
		return o->esize;
	}
	uint64_t sum = 0;
	for (uint32_t k = 0; k < o->nsub && sum != ESIZE_VAR; k++) {
		const struct pop *f = &p->ops[o->sub + k];
		uint32_t es = elem_size(p, o->sub + k);
		uint64_t bytes = (uint64_t)es * (f->array == BAG_ARRAY_FIXED ? f->fixed_len : 1);
		if (es == ESIZE_VAR || f->array == BAG_ARRAY_VARIABLE || bytes >= ESIZE_UNKNOWN)
			sum = ESIZE_VAR;
		else
			sum += bytes;
		if (sum >= ESIZE_UNKNOWN)
			sum = ESIZE_VAR;
	}
	o->esize = (uint32_t)sum;
	return o->esize;
}

/* Bytes the whole field op takes when fixed, else ESIZE_VAR. */
static uint64_t field_size(bag_expr_prog_t *p, uint32_t op)
{
	const struct pop *o = &p->ops[op];
	uint32_t es = elem_size(p, op);

	uint64_t bytes = (uint64_t)es * (o->array == BAG_ARRAY_FIXED ? o->fixed_len : 1);

	if (es == ESIZE_VAR || o->array == BAG_ARRAY_VARIABLE || bytes > MAX_SKIP)
		return ESIZE_VAR;
	return bytes;
}

/* Copy def's ops, so that the program does not need def once compiled. */
static int copy_ops(bag_expr_prog_t *p, const bag_msgdef_t *def)
{
	uint32_t nroot, total = 0;
	const struct dec_op *ops = msgdef_ops(def, &nroot);

	for (size_t t = 0; t < bag_msgdef_type_count(def); t++)
		total += (uint32_t)bag_msgdef_type_at(def, t)->nfields;
	p->ops = calloc(total + 1, sizeof *p->ops);
	if (p->ops == NULL)
		return BAG_ENOMEM;
	p->nops = total;
	for (uint32_t k = 0; k < total; k++)
		p->ops[k] = (struct pop){ ops[k].prim, ops[k].array, ops[k].fixed_len, ops[k].sub, ops[k].nsub,
		                          ops[k].elem_min, ESIZE_UNKNOWN };
	for (uint32_t k = 0; k < total; k++)
		elem_size(p, k);
	return BAG_OK;
}

/* Append a step to the path that starts at step first, merging skips. */
static int push_step(bag_expr_prog_t *p, size_t first, uint8_t kind, uint8_t prim, uint32_t op, int64_t n)
{
	if (kind == ST_SKIP && n == 0)
		return BAG_OK;
	if (kind == ST_SKIP && p->nsteps > first && p->steps[p->nsteps - 1].kind == ST_SKIP &&
	    p->steps[p->nsteps - 1].n <= (int64_t)MAX_SKIP) {
		p->steps[p->nsteps - 1].n += n;
		return BAG_OK;
	}
	if (bag_grow((void **)&p->steps, &p->cap_steps, p->nsteps + 1, sizeof *p->steps) != BAG_OK)
		return BAG_ENOMEM;
	p->steps[p->nsteps++] = (struct step){ kind, prim, op, n };
	return BAG_OK;
}

/* Steps that pass over fields [first, first + n). */
static int skip_fields(bag_expr_prog_t *p, size_t sfirst, uint32_t first, uint32_t n)
{
	int rc = BAG_OK;

	for (uint32_t k = first; rc == BAG_OK && k < first + n; k++) {
		const struct pop *o = &p->ops[k];
		uint64_t size = field_size(p, k);
		if (size != ESIZE_VAR)
			rc = push_step(p, sfirst, ST_SKIP, 0, 0, (int64_t)size);
		else if (o->prim == BAG_PRIM_MESSAGE && o->array == BAG_ARRAY_NONE)
			rc = skip_fields(p, sfirst, o->sub, o->nsub);
		else
			rc = push_step(p, sfirst, ST_FIELD, 0, k, 0);
	}
	return rc;
}

/* "float64[9]", "geometry_msgs/Vector3[]" */
static const char *type_text(const struct dec_op *o, char *buf, size_t n)
{
	const char *t = o->field->type_name;

	if (o->array == BAG_ARRAY_FIXED)
		snprintf(buf, n, "%s[%u]", t, o->fixed_len);
	else if (o->array == BAG_ARRAY_VARIABLE)
		snprintf(buf, n, "%s[]", t);
	else
		snprintf(buf, n, "%s", t);
	return buf;
}

enum pstate { PS_MSG, PS_ARRAY, PS_TIME, PS_PRIM };

static enum pstate elem_state(const struct dec_op *o)
{
	if (o->prim == BAG_PRIM_MESSAGE)
		return PS_MSG;
	if (o->prim == BAG_PRIM_TIME || o->prim == BAG_PRIM_DURATION)
		return PS_TIME;
	return PS_PRIM;
}

/* Where compiling one path node has got to: the type it is in, the field it reached. */
struct pwalk {
	bag_expr_prog_t *p;
	uint32_t i;                /* the node */
	const struct dec_op *ops;
	const struct dec_op *cur;  /* the field reached; NULL at the start */
	uint32_t run, nrun;        /* the fields of the message type it is in */
	const char *type;          /* that type's name */
	enum pstate st;
	uint8_t prim;              /* with time_part: the part's type */
	bool time_part;            /* .secs or .nsecs read */
	size_t sfirst;             /* the node's first step */
	char tt[160];
};

/* A helper's failure of the node (cfail() said why): the walk stops there. */
#define PATH_STOP 1

static int stop(int rc)
{
	return rc == BAG_OK ? PATH_STOP : rc;
}

/* In a message: cp names one of its fields. */
static int path_field(struct pwalk *w, const struct comp *cp, uint32_t ci, const char *name)
{
	uint32_t k;
	int rc;

	if (cp->kind != C_NAME)
		return stop(cfail(w->p, w->i, cp->pos, ci, "'%s' is a message (%s), not an array",
		             w->cur ? w->cur->field->name : "", w->type));
	for (k = 0; k < w->nrun && strcmp(w->ops[w->run + k].field->name, name) != 0; k++)
		;
	if (k == w->nrun)
		return stop(cfail(w->p, w->i, cp->pos, ci, "no field '%s' in %s", name, w->type));
	rc = skip_fields(w->p, w->sfirst, w->run, k);
	w->cur = &w->ops[w->run + k];
	w->st = w->cur->array != BAG_ARRAY_NONE ? PS_ARRAY : elem_state(w->cur);
	return rc;
}

/* At an array: cp is [i] or [*]. */
static int path_index(struct pwalk *w, const struct comp *cp, uint32_t ci)
{
	const struct dec_op *cur = w->cur;
	uint32_t op = (uint32_t)(cur - w->ops);
	int rc;

	if (cp->kind == C_NAME)
		return stop(cfail(w->p, w->i, cp->pos, ci, "'%s' is an array (%s): index it with [i] or [*]",
		             cur->field->name, type_text(cur, w->tt, sizeof w->tt)));
	if (cp->kind == C_STAR) {
		rc = push_step(w->p, w->sfirst, ST_STAR, 0, op, 0);
	} else if (cur->array == BAG_ARRAY_FIXED) {
		int64_t idx = cp->index < 0 ? (int64_t)cur->fixed_len + cp->index : cp->index;
		if (idx < 0 || idx >= (int64_t)cur->fixed_len)
			return stop(cfail(w->p, w->i, cp->pos, ci, "index %lld is out of range of '%s' (%s)",
			             (long long)cp->index, cur->field->name, type_text(cur, w->tt, sizeof w->tt)));
		uint32_t es = elem_size(w->p, op);
		if (es != ESIZE_VAR && (uint64_t)idx * es <= MAX_SKIP)
			rc = push_step(w->p, w->sfirst, ST_SKIP, 0, 0, idx * (int64_t)es);
		else
			rc = push_step(w->p, w->sfirst, ST_INDEX, 0, op, idx);
	} else {
		rc = push_step(w->p, w->sfirst, ST_INDEX, 0, op, cp->index);
	}
	w->st = elem_state(cur);
	return rc;
}

/* At a time or duration: cp is .secs or .nsecs. */
static int path_time_part(struct pwalk *w, const struct comp *cp, uint32_t ci, const char *name)
{
	int rc = BAG_OK;

	if (cp->kind != C_NAME || (strcmp(name, "secs") != 0 && strcmp(name, "nsecs") != 0))
		return stop(cfail(w->p, w->i, cp->pos, ci, "'%s' is a %s: it has only .secs and .nsecs",
		             w->cur->field->name, bag_prim_name(w->cur->prim)));
	/* a time's parts are unsigned, a duration's signed (nsecs too, as genpy reads it) */
	if (name[0] == 'n')
		rc = push_step(w->p, w->sfirst, ST_SKIP, 0, 0, 4);
	w->prim = w->cur->prim == BAG_PRIM_TIME ? BAG_PRIM_UINT32 : BAG_PRIM_INT32;
	w->time_part = true;
	w->st = PS_PRIM;
	return rc;
}

/* At a value: nothing may follow. */
static int path_past_value(struct pwalk *w, const struct comp *cp, uint32_t ci, const char *name)
{
	const bag_expr_t *e = w->p->e;
	const char *cur_name = w->cur->field->name;

	if (w->time_part)
		return cfail(w->p, w->i, cp->pos, ci, "'%s.%s' has no parts", cur_name,
		             e->strs + e->comps[e->nodes[w->i].comp_first + ci - 1].name_off);
	if (cp->kind == C_NAME)
		return cfail(w->p, w->i, cp->pos, ci, "'%s' is a %s: it has no field '%s'", cur_name,
		             bag_prim_name(w->cur->prim), name);
	return cfail(w->p, w->i, cp->pos, ci, "'%s' is a %s, not an array", cur_name, bag_prim_name(w->cur->prim));
}

/* The path's end: what it reads (its value, or len()), and the node's class. */
static int path_end(struct pwalk *w, const struct node *n, struct cnode *c)
{
	const struct dec_op *cur = w->cur;
	int rc;

	if (!w->time_part)
		w->prim = cur->prim;
	if (n->is_len) {
		if (w->st == PS_ARRAY)
			rc = push_step(w->p, w->sfirst, ST_LEN, 0, (uint32_t)(cur - w->ops), 0);
		else if (w->st == PS_PRIM && w->prim == BAG_PRIM_STRING)
			rc = push_step(w->p, w->sfirst, ST_LEN, 0, EXPR_NONE, 0);
		else
			return cfail(w->p, w->i, n->pos, n->ncomp, "len() needs an array or a string; '%s' is a %s",
			             cur->field->name, w->st == PS_MSG ? w->type : bag_prim_name(w->prim));
		c->cls = CL_NUM;
	} else if (w->st == PS_ARRAY) {
		return cfail(w->p, w->i, n->pos, n->ncomp, "'%s' is an array (%s): use [i], [*] or len()",
		             cur->field->name, type_text(cur, w->tt, sizeof w->tt));
	} else if (w->st == PS_MSG) {
		return cfail(w->p, w->i, n->pos, n->ncomp, "'%s' is a message (%s), not a value", cur->field->name,
		             w->type);
	} else {
		rc = push_step(w->p, w->sfirst, ST_READ, w->prim, 0, 0);
		c->cls = w->prim == BAG_PRIM_BOOL ? CL_BOOL : w->prim == BAG_PRIM_STRING ? CL_STR : CL_NUM;
	}
	c->step_first = (uint32_t)w->sfirst;
	c->nstep = (uint32_t)(w->p->nsteps - w->sfirst);
	c->uses_data = true;
	return rc;
}

/* Path node i into steps; fails the node when it does not fit the type. */
static int compile_path(bag_expr_prog_t *p, uint32_t i, const bag_msgdef_t *def)
{
	const bag_expr_t *e = p->e;
	const struct node *n = &e->nodes[i];
	struct pwalk w = { .p = p, .i = i, .st = PS_MSG, .sfirst = p->nsteps,
	                   .type = p->conn->type[0] ? p->conn->type : "this message type" };
	int rc = BAG_OK;

	if (def == NULL || bag_msgdef_root(def) == NULL)
		return cfail(p, i, n->pos, 0, "the definition of %s does not parse", w.type);
	w.ops = msgdef_ops(def, &w.nrun);
	for (uint32_t ci = 0; rc == BAG_OK && ci < n->ncomp; ci++) {
		const struct comp *cp = &e->comps[n->comp_first + ci];
		const char *name = e->strs + cp->name_off;
		switch (w.st) {
		case PS_MSG: rc = path_field(&w, cp, ci, name); break;
		case PS_ARRAY: rc = path_index(&w, cp, ci); break;
		case PS_TIME: rc = path_time_part(&w, cp, ci, name); break;
		case PS_PRIM: return path_past_value(&w, cp, ci, name);
		}
		if (rc == PATH_STOP)
			return BAG_OK;
		if (w.st == PS_MSG) {
			w.run = w.cur->sub;
			w.nrun = w.cur->nsub;
			w.type = w.cur->field->type_name;
		}
	}
	if (rc != BAG_OK)
		return rc;
	return path_end(&w, n, &p->cn[i]);
}

static const char *cls_name(uint8_t cls)
{
	return cls == CL_BOOL ? "a bool" : cls == CL_STR ? "a string" : "a number";
}

/* Fold a test that depends on nothing but the connection. */
static void fold(bag_expr_prog_t *p, uint32_t i)
{
	struct val v;

	if (p->cn[i].fixed && expr_eval_fixed(p, i, &v) == BAG_OK && v.kind == BAG_EXPR_BOOL)
		p->cn[i].konst = v.v.b;
}

/* -x, abs(x) and the four operations: numbers only. */
static int compile_arith(bag_expr_prog_t *p, uint32_t i, const struct cnode *a, const struct cnode *b)
{
	const struct node *n = &p->e->nodes[i];
	struct cnode *c = &p->cn[i];

	c->fixed = a->fixed && (b == NULL || b->fixed);
	c->uses_data = a->uses_data || (b != NULL && b->uses_data);
	if (a->cls == CL_FAIL || (b != NULL && b->cls == CL_FAIL)) {
		inherit(p, i, a->cls == CL_FAIL ? n->a : n->b);
		return BAG_OK;
	}
	if (b == NULL && a->cls != CL_NUM)
		return cfail(p, i, n->pos, RANK_TYPE, "%s needs a number, not %s", n->op == N_ABS ? "abs()" : "'-'",
		             cls_name(a->cls));
	if (b != NULL && (a->cls != CL_NUM || b->cls != CL_NUM))
		return cfail(p, i, n->pos, RANK_TYPE, "arithmetic needs numbers, not %s and %s", cls_name(a->cls),
		             cls_name(b->cls));
	c->cls = CL_NUM;
	return BAG_OK;
}

/* !, && and ||: known at compile time when an operand decides. */
static void compile_logic(bag_expr_prog_t *p, uint32_t i, const struct cnode *a, const struct cnode *b)
{
	const struct node *n = &p->e->nodes[i];
	struct cnode *c = &p->cn[i];
	int stop = n->op == N_OR;   /* the value that decides alone */

	c->cls = CL_BOOL;
	if (n->op == N_NOT) {
		c->konst = a->konst < 0 ? -1 : !a->konst;
		c->uses_data = a->uses_data;
		return;
	}
	c->uses_data = a->uses_data || b->uses_data;
	if (a->konst == stop || b->konst == stop)
		c->konst = (int8_t)stop;
	else if (a->konst == !stop && b->konst == !stop)
		c->konst = (int8_t)!stop;
}

/* Comparisons, regex matches, tests: a plain false when they fail. */
static int compile_test(bag_expr_prog_t *p, uint32_t i, const struct cnode *a, const struct cnode *b)
{
	const struct node *n = &p->e->nodes[i];
	struct cnode *c = &p->cn[i];
	int rc = BAG_OK;

	c->cls = CL_BOOL;
	c->fixed = a->fixed && (b == NULL || b->fixed);
	c->uses_data = a->uses_data || (b != NULL && b->uses_data);
	if (a->cls == CL_FAIL || (b != NULL && b->cls == CL_FAIL)) {
		inherit(p, i, a->cls == CL_FAIL ? n->a : n->b);
	} else if (n->op == N_TEST) {
		if (a->cls != CL_BOOL)
			rc = cfail(p, i, p->e->nodes[n->a].start, RANK_TYPE, "%s is not a test: compare it with something",
			           cls_name(a->cls));
	} else if (n->op == N_MATCH || n->op == N_NOMATCH) {
		if (a->cls != CL_STR)
			rc = cfail(p, i, n->pos, RANK_TYPE, "a regex matches strings, not %s", cls_name(a->cls));
	} else if (a->cls != b->cls) {
		rc = cfail(p, i, n->pos, RANK_TYPE, "cannot compare %s with %s", cls_name(a->cls), cls_name(b->cls));
	} else if (a->cls == CL_BOOL && n->op != N_EQ && n->op != N_NE) {
		rc = cfail(p, i, n->pos, RANK_TYPE, "bools compare only with == and !=");
	}
	c->cls = CL_BOOL;
	if (c->fail_sub)
		c->konst = 0;
	else
		fold(p, i);
	return rc;
}

/* Node i, its operands being done. */
static int compile_node(bag_expr_prog_t *p, uint32_t i, const bag_msgdef_t *def)
{
	const struct node *n = &p->e->nodes[i];
	struct cnode *c = &p->cn[i];
	const struct cnode *a = n->a != EXPR_NONE ? &p->cn[n->a] : NULL;
	const struct cnode *b = n->b != EXPR_NONE ? &p->cn[n->b] : NULL;

	c->konst = -1;
	switch (n->op) {
	case N_LIT:
		c->cls = n->is_str ? CL_STR : n->lit.kind == BAG_EXPR_BOOL ? CL_BOOL : CL_NUM;
		c->fixed = true;
		return BAG_OK;
	case N_PATH:
		return compile_path(p, i, def);
	case N_TOPIC:
	case N_TYPE:
		c->cls = CL_STR;
		c->fixed = true;
		return BAG_OK;
	case N_TIME:
	case N_TF:
		c->cls = CL_NUM;
		return BAG_OK;
	case N_NEG:
	case N_ABS:
		return compile_arith(p, i, a, NULL);
	case N_ADD: case N_SUB: case N_MUL: case N_DIV:
		return compile_arith(p, i, a, b);
	case N_NOT:
	case N_AND:
	case N_OR:
		compile_logic(p, i, a, b);
		return BAG_OK;
	default:
		return compile_test(p, i, a, b);
	}
}

/* Whether node i's outcome needs the message bytes. */
static bool needs_data(const bag_expr_prog_t *p, uint32_t i)
{
	for (;;) {
		const struct node *n = &p->e->nodes[i];
		const struct cnode *c = &p->cn[i];

		if (c->konst >= 0)
			return false;
		if (n->op == N_NOT)
			return needs_data(p, n->a);
		if (n->op != N_AND && n->op != N_OR)
			return c->uses_data;
		if (needs_data(p, n->a))
			return true;
		i = n->b;   /* a chain is a loop (expr-parse.c) */
	}
}

BAG_API int bag_expr_compile(bag_expr_prog_t **out, const bag_expr_t *e,
                             const struct bag_connection *conn, const bag_msgdef_t *def)
{
	bag_expr_prog_t *p;
	int rc = BAG_ENOMEM;

	assert(e != NULL && conn != NULL && e->root != EXPR_NONE);
	*out = NULL;
	p = calloc(1, sizeof *p);
	if (p == NULL)
		return BAG_ENOMEM;
	p->e = e;
	p->conn = conn;
	p->topic_len = strlen(conn->topic);
	p->type_len = strlen(conn->type);
	p->cn = calloc(e->nnodes, sizeof *p->cn);
	if (p->cn == NULL)
		goto fail;
	if (def != NULL && bag_msgdef_root(def) != NULL && (rc = copy_ops(p, def)) != BAG_OK)
		goto fail;
	for (uint32_t i = 0; i < e->nnodes; i++)
		if ((rc = compile_node(p, i, def)) != BAG_OK)
			goto fail;
	p->konst = p->cn[e->root].cls == CL_BOOL ? p->cn[e->root].konst : -1;
	p->needs_data = needs_data(p, e->root);
	*out = p;
	return BAG_OK;
fail:
	bag_expr_prog_free(p);
	return rc;
}

BAG_API void bag_expr_prog_free(bag_expr_prog_t *p)
{
	if (p == NULL)
		return;
	if (p->cn != NULL)
		for (size_t i = 0; i < p->e->nnodes; i++)
			if (p->cn[i].own_why)
				free(p->cn[i].why);
	free(p->cn);
	free(p->steps);
	free(p->ops);
	free(p);
}

BAG_API int bag_expr_check(bag_expr_t *e, bag_expr_prog_t *const *progs, size_t n)
{
	for (uint32_t i = 0; n > 0 && i < e->nnodes; i++) {
		size_t k = 0;
		while (k < n && progs[k]->cn[i].fail_sub)
			k++;
		if (k < n)
			continue;
		/* the connection where it got furthest: the problem most likely meant */
		const struct cnode *c = &progs[0]->cn[i];
		for (k = 1; k < n; k++) {
			const struct cnode *o = &progs[k]->cn[i];
			if (o->fail_rank > c->fail_rank)
				c = o;
		}
		if (n > 1)
			return bag_error_set(&e->err, BAG_EEXPR, NULL, c->fail_pos,
			                     "%s (and it fits none of the other %zu connection%s)", c->why, n - 1, BAG_S(n - 1));
		return bag_error_set(&e->err, BAG_EEXPR, NULL, c->fail_pos, "%s", c->why);
	}
	return BAG_OK;
}

BAG_API int bag_expr_prog_constant(const bag_expr_prog_t *p)
{
	return p->konst;
}

BAG_API bool bag_expr_prog_needs_data(const bag_expr_prog_t *p)
{
	return p->needs_data;
}
