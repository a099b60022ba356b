/*
 * emit.c - the message code: msgs.h + msgs.c (C) or msgs.hpp + msgs.cpp
 * (C++), and table.h, which both share.
 *
 * Per type, in dependency order: the struct, its constants, and
 *   read    decode at a cursor, checking every length against what is left
 *   load    (fixed-size types) decode from a pointer known to hold its bytes
 *   clear   (C, types holding memory) free what read allocated
 *   json    append the "msg" object of `bagscope cat --format json`
 * and the public decode / free / print_json over them. A run of fields of
 * fixed size is checked once and loaded at known offsets. C++ overloads
 * read/load/json on the type; C names them after it. Arrays are allocated
 * only after their length is checked against the bytes left (elements
 * times their fewest bytes) and charged to the message's element budget
 * (bagscope/decode.h, spent as decode.c spends it; model.c's charge_type()),
 * so a message never makes the code allocate more than it could hold, nor
 * expand past what bagscope cat would print.
 *
 * The support functions (little-endian loads, counts, JSON numbers) are
 * written only when some type uses them: compilers warn of unused ones.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen-int.h"

/* Support functions, written before the types when used. */
enum {
	NEED_CUR = 1 << 0, NEED_U16 = 1 << 1, NEED_U32 = 1 << 2, NEED_U64 = 1 << 3, NEED_F32 = 1 << 4,
	NEED_F64 = 1 << 5, NEED_COPY16 = 1 << 6, NEED_COPY32 = 1 << 7, NEED_COPY64 = 1 << 8,
	NEED_COUNT = 1 << 9, NEED_STRING = 1 << 10, NEED_JI64 = 1 << 11, NEED_JU64 = 1 << 12,
	NEED_JF64 = 1 << 13, NEED_JTIME = 1 << 14, NEED_JDUR = 1 << 15, NEED_COPY8 = 1 << 16,
};

struct emitter {
	const struct gen_model *m;
	bool cpp;
	struct bag_text *b;       /* the functions, after the support */
	struct bag_text lit;      /* JSON text not yet appended by the code */
	const char *ind;          /* indentation of the statements being written */
	unsigned need;
};

static const char *const c_types[] = {
	[BAG_PRIM_BOOL] = "uint8_t", [BAG_PRIM_INT8] = "int8_t", [BAG_PRIM_UINT8] = "uint8_t",
	[BAG_PRIM_INT16] = "int16_t", [BAG_PRIM_UINT16] = "uint16_t", [BAG_PRIM_INT32] = "int32_t",
	[BAG_PRIM_UINT32] = "uint32_t", [BAG_PRIM_INT64] = "int64_t", [BAG_PRIM_UINT64] = "uint64_t",
	[BAG_PRIM_FLOAT32] = "float", [BAG_PRIM_FLOAT64] = "double",
};

/* ---- names ------------------------------------------------------------------ */

/* A type as the code names it: "struct pkg__Name" or "::pkg::Name". */
static void tref(struct emitter *e, struct bag_text *t, const struct gen_type *g)
{
	if (e->cpp)
		bag_text_printf(t, "::%s%s%s", g->ns, *g->ns ? "::" : "", g->name);
	else
		bag_text_printf(t, "struct %s", g->cid);
}

/* An internal function of g: "pkg__Name_read" (C) or the overload "bag_gen_read" (C++). */
static void fn(struct emitter *e, const struct gen_type *g, const char *what)
{
	if (e->cpp)
		bag_text_printf(e->b, "bag_gen_%s", what);
	else
		bag_text_printf(e->b, "%s_%s", g->cid, what);
}

static const struct gen_type *sub(const struct emitter *e, const struct gen_field *f)
{
	return f->f->prim == BAG_PRIM_MESSAGE ? &e->m->types[f->type] : NULL;
}

/* The element type of field f. */
static void elem_type(struct emitter *e, struct bag_text *t, const struct gen_field *f)
{
	switch (f->f->prim) {
	case BAG_PRIM_STRING: bag_text_printf(t, "%s", e->cpp ? "std::string" : "struct bag_gen_string"); break;
	case BAG_PRIM_TIME: bag_text_printf(t, "%s", e->cpp ? "::bag_gen::Time" : "struct bag_gen_time"); break;
	case BAG_PRIM_DURATION:
		bag_text_printf(t, "%s", e->cpp ? "::bag_gen::Duration" : "struct bag_gen_duration");
		break;
	case BAG_PRIM_MESSAGE: tref(e, t, sub(e, f)); break;
	default: bag_text_printf(t, "%s", c_types[f->f->prim]); break;
	}
}

/* Bytes of one element of f on the wire when they are fixed, else 0 (and *fixed false). */
static uint64_t elem_wire(const struct emitter *e, const struct gen_field *f, bool *fixed)
{
	const struct gen_type *g = sub(e, f);

	*fixed = g ? g->fixed : f->f->prim != BAG_PRIM_STRING;
	return g ? g->wire : gen_prim_size(f->f->prim);
}

/* Whether f has a fixed size on the wire (a run can hold it), and its bytes. */
static bool field_fixed(const struct emitter *e, const struct gen_field *f, uint64_t *bytes)
{
	bool fixed;
	uint64_t w = elem_wire(e, f, &fixed);

	if (f->f->array == BAG_ARRAY_VARIABLE || !fixed)
		return false;
	*bytes = f->f->array == BAG_ARRAY_FIXED ? w * f->f->fixed_len : w;
	return true;
}

/* ---- declarations ------------------------------------------------------------ */

/* "pkg/Name (md5 ...)", what else shares the name, and the type's comment. */
static void heading(struct emitter *e, struct bag_text *t, const struct gen_type *g, const char *indent)
{
	struct bag_text s = { 0 };

	bag_text_printf(&s, "%s (md5 %s)", g->t->name, g->t->md5);
	if (g->versioned)
		bag_text_printf(&s, ": one of several definitions of %s in %s", g->t->name, e->m->source);
	if (*g->t->comment)
		bag_text_printf(&s, "\n\n%s", g->t->comment);
	gen_comment(t, indent, s.p ? s.p : "");
	if (s.failed)
		t->failed = true;
	bag_text_free(&s);
}

static void declare_field(struct emitter *e, struct bag_text *t, const struct gen_field *f)
{
	gen_comment(t, "\t", f->f->comment);
	GEN_APPEND(t, "\t");
	if (f->f->array == BAG_ARRAY_VARIABLE) {
		if (e->cpp) {
			GEN_APPEND(t, "std::vector<");
			elem_type(e, t, f);
			bag_text_printf(t, "> %s;\n", f->id);
		} else {
			GEN_APPEND(t, "struct { uint32_t len; ");
			elem_type(e, t, f);
			bag_text_printf(t, " *data; } %s;\n", f->id);
		}
	} else if (f->f->array == BAG_ARRAY_FIXED) {
		if (e->cpp) {
			GEN_APPEND(t, "std::array<");
			elem_type(e, t, f);
			bag_text_printf(t, ", %u> %s{};\n", f->f->fixed_len, f->id);
		} else if (f->f->fixed_len == 0) {
			bag_text_printf(t, "/* %s: %s[0] holds nothing */\n", f->id, f->f->prim == BAG_PRIM_MESSAGE ?
			                "message" : bag_prim_name(f->f->prim));
		} else {
			elem_type(e, t, f);
			bag_text_printf(t, " %s[%u];\n", f->id, f->f->fixed_len);
		}
	} else {
		elem_type(e, t, f);
		bag_text_printf(t, " %s%s;\n", f->id, e->cpp && f->f->prim != BAG_PRIM_STRING ? "{}" : "");
	}
}

/* Constants: macros after a C struct, static constexpr members of a C++ one. */
static void declare_consts(struct emitter *e, struct bag_text *t, const struct gen_type *g)
{
	for (size_t k = 0; k < g->t->nconsts; k++) {
		const struct gen_const *c = &g->consts[k];
		const char *ind = e->cpp ? "\t" : "";
		gen_comment(t, ind, c->c->comment);
		if (c->value == NULL || c->id == NULL) {
			struct bag_text s = { 0 };
			bag_text_printf(&s, "constant %s %s=%s is left out: not a valid %s", c->c->type_name, c->c->name,
			                c->c->value, c->c->type_name);
			gen_comment(t, ind, s.p ? s.p : "");
			bag_text_free(&s);
		} else if (e->cpp && c->c->prim == BAG_PRIM_STRING) {
			bag_text_printf(t, "\tstatic constexpr const char *%s = %s;\n", c->id, c->value);
		} else if (e->cpp) {
			bag_text_printf(t, "\tstatic constexpr %s %s = %s;\n", c_types[c->c->prim], c->id, c->value);
		} else {
			bag_text_printf(t, "#define %s %s\n", c->id, c->value);
		}
	}
}

static void declare_type(struct emitter *e, struct bag_text *t, const struct gen_type *g)
{
	bool members = false;

	if (e->cpp && *g->ns)
		bag_text_printf(t, "namespace %s {\n\n", g->ns);
	heading(e, t, g, "");
	if (e->cpp)
		bag_text_printf(t, "struct %s {\n", g->name);
	else
		bag_text_printf(t, "struct %s {\n", g->cid);
	if (e->cpp)
		declare_consts(e, t, g);
	for (size_t k = 0; k < g->t->nfields; k++) {
		declare_field(e, t, &g->fields[k]);
		members |= e->cpp || g->fields[k].f->array != BAG_ARRAY_FIXED || g->fields[k].f->fixed_len > 0;
	}
	if (!members && !e->cpp)
		GEN_APPEND(t, "\tchar unused_;             /* C has no empty structs */\n");
	GEN_APPEND(t, "};\n");
	if (!e->cpp)
		declare_consts(e, t, g);
	GEN_APPEND(t, "\n");
	if (e->cpp) {
		bag_text_printf(t, "int decode(%s &out, const uint8_t *data, size_t size);\n", g->name);
		bag_text_printf(t, "int print_json(struct bag_text *t, const %s &msg);\n\n", g->name);
		if (*g->ns)
			bag_text_printf(t, "} // namespace %s\n\n", g->ns);
	} else {
		bag_text_printf(t, "int %s_decode(struct %s *out, const uint8_t *data, size_t size);\n", g->cid, g->cid);
		bag_text_printf(t, "void %s_free(struct %s *msg);\n", g->cid, g->cid);
		bag_text_printf(t, "int %s_print_json(struct bag_text *t, const struct %s *msg);\n\n", g->cid, g->cid);
	}
}

/* ---- decoding ------------------------------------------------------------------ */

/* Assign one element at byte expression "base + off" (fixed size, no check). */
static void load_elem(struct emitter *e, const struct gen_field *f, const char *lhs, const char *base,
                      const char *off)
{
	struct bag_text *b = e->b;
	const char *ind = e->ind;
	const struct gen_type *g = sub(e, f);

	switch (f->f->prim) {
	case BAG_PRIM_BOOL: case BAG_PRIM_UINT8:
		bag_text_printf(b, "%s%s = %s[%s];\n", ind, lhs, base, off);
		break;
	case BAG_PRIM_INT8:
		bag_text_printf(b, "%s%s = (int8_t)%s[%s];\n", ind, lhs, base, off);
		break;
	case BAG_PRIM_INT16: case BAG_PRIM_UINT16:
		e->need |= NEED_U16;
		bag_text_printf(b, "%s%s = (%s)bag_gen_u16(%s + %s);\n", ind, lhs, c_types[f->f->prim], base, off);
		break;
	case BAG_PRIM_INT32: case BAG_PRIM_UINT32:
		e->need |= NEED_U32;
		bag_text_printf(b, "%s%s = (%s)bag_gen_u32(%s + %s);\n", ind, lhs, c_types[f->f->prim], base, off);
		break;
	case BAG_PRIM_INT64: case BAG_PRIM_UINT64:
		e->need |= NEED_U64;
		bag_text_printf(b, "%s%s = (%s)bag_gen_u64(%s + %s);\n", ind, lhs, c_types[f->f->prim], base, off);
		break;
	case BAG_PRIM_FLOAT32:
		e->need |= NEED_F32 | NEED_U32;
		bag_text_printf(b, "%s%s = bag_gen_f32(%s + %s);\n", ind, lhs, base, off);
		break;
	case BAG_PRIM_FLOAT64:
		e->need |= NEED_F64 | NEED_U64;
		bag_text_printf(b, "%s%s = bag_gen_f64(%s + %s);\n", ind, lhs, base, off);
		break;
	case BAG_PRIM_TIME: case BAG_PRIM_DURATION: {
		const char *cast = f->f->prim == BAG_PRIM_TIME ? "" : "(int32_t)";
		e->need |= NEED_U32;
		bag_text_printf(b, "%s%s.secs = %sbag_gen_u32(%s + %s);\n", ind, lhs, cast, base, off);
		bag_text_printf(b, "%s%s.nsecs = %sbag_gen_u32(%s + %s + 4);\n", ind, lhs, cast, base, off);
		break;
	}
	case BAG_PRIM_MESSAGE:
		bag_text_printf(b, "%s", ind);
		fn(e, g, "load");
		bag_text_printf(b, "(&%s, %s + %s);\n", lhs, base, off);
		break;
	default:
		break;
	}
}

/* Copy n elements of a fixed-size primitive f from src to the array dst. */
static bool copy_prims(struct emitter *e, const struct gen_field *f, const char *dst, const char *src,
                       const char *n)
{
	unsigned size = gen_prim_size(f->f->prim);

	if (f->f->prim == BAG_PRIM_TIME || f->f->prim == BAG_PRIM_DURATION || f->f->prim == BAG_PRIM_MESSAGE ||
	    f->f->prim == BAG_PRIM_STRING)
		return false;
	e->need |= size == 1 ? NEED_COPY8 : size == 2 ? NEED_COPY16 : size == 4 ? NEED_COPY32 : NEED_COPY64;
	bag_text_printf(e->b, "%sbag_gen_copy%u(%s, %s, %s);\n", e->ind, size * 8, dst, src, n);
	return true;
}

/* Load fixed-size field f at base + off (no check: the run was checked). */
static void load_field(struct emitter *e, const struct gen_field *f, const char *base, uint64_t off)
{
	char lhs[512], offs[64], dst[600];
	bool fixed;
	uint64_t w = elem_wire(e, f, &fixed);

	snprintf(lhs, sizeof lhs, "out->%s", f->id);
	snprintf(offs, sizeof offs, "%llu", (unsigned long long)off);
	if (f->f->array == BAG_ARRAY_NONE) {
		load_elem(e, f, lhs, base, offs);
		return;
	}
	if (f->f->fixed_len == 0)
		return;
	snprintf(dst, sizeof dst, "%s%s", lhs, e->cpp ? ".data()" : "");
	snprintf(lhs, sizeof lhs, "%s + %llu", base, (unsigned long long)off);
	char n[16];
	snprintf(n, sizeof n, "%u", f->f->fixed_len);
	if (copy_prims(e, f, dst, lhs, n))
		return;
	bag_text_printf(e->b, "%sfor (uint32_t i = 0; i < %u; i++) {\n", e->ind, f->f->fixed_len);
	snprintf(dst, sizeof dst, "out->%s[i]", f->id);
	snprintf(offs, sizeof offs, "%llu + %llu * (size_t)i", (unsigned long long)off, (unsigned long long)w);
	const char *ind = e->ind;
	e->ind = ind[1] ? "\t\t\t" : "\t\t";
	load_elem(e, f, dst, base, offs);
	e->ind = ind;
	bag_text_printf(e->b, "%s}\n", e->ind);
}

/* Read one non-fixed element at the cursor into lhs (a string or a message). */
static void read_elem(struct emitter *e, const struct gen_field *f, const char *lhs)
{
	if (f->f->prim == BAG_PRIM_STRING) {
		e->need |= NEED_STRING | NEED_U32;
		bag_text_printf(e->b, "%sBAG_GEN_TRY(bag_gen_string_read(c, &%s));\n", e->ind, lhs);
		return;
	}
	bag_text_printf(e->b, "%sBAG_GEN_TRY(", e->ind);
	fn(e, sub(e, f), "read");
	bag_text_printf(e->b, "(c, &%s));\n", lhs);
}

/* Read a variable array: count, check, allocate, then the elements. */
static void read_var_array(struct emitter *e, const struct gen_field *f)
{
	const struct gen_type *g = sub(e, f);
	struct bag_text *b = e->b;
	bool fixed;
	uint64_t w = elem_wire(e, f, &fixed);
	uint32_t min = g ? g->min : gen_prim_size(f->f->prim);
	char data[512], elem[600];

	e->need |= NEED_COUNT | NEED_U32;
	bag_text_printf(b, "\tBAG_GEN_TRY(bag_gen_count(c, %u, &n));\n", min);
	if (g == NULL || g->fixed)
		bag_text_printf(b, "\tBAG_GEN_TRY(bag_gen_charge(c, n, UINT64_C(%llu)));\n",
		                (unsigned long long)(g ? g->nodes : 1));
	if (e->cpp) {
		bag_text_printf(b, "\tout->%s.resize(n);\n", f->id);
		snprintf(data, sizeof data, "out->%s.data()", f->id);
		snprintf(elem, sizeof elem, "out->%s[i]", f->id);
	} else {
		bag_text_printf(b, "\tif (n > 0) {\n");
		bag_text_printf(b, "\t\tout->%s.data = %scalloc(n, sizeof *out->%s.data);\n", f->id,
		                "", f->id);
		bag_text_printf(b, "\t\tif (out->%s.data == NULL)\n\t\t\treturn BAG_ENOMEM;\n", f->id);
		bag_text_printf(b, "\t\tout->%s.len = n;\n\t}\n", f->id);
		snprintf(data, sizeof data, "out->%s.data", f->id);
		snprintf(elem, sizeof elem, "out->%s.data[i]", f->id);
	}
	e->ind = "\t";
	if (fixed && copy_prims(e, f, data, "c->p", "n")) {
		bag_text_printf(b, "\tc->p += (size_t)n * %llu;\n", (unsigned long long)w);
		return;
	}
	bag_text_printf(b, "\tfor (uint32_t i = 0; i < n; i++) {\n");
	e->ind = "\t\t";
	if (fixed) {
		char off[64];
		snprintf(off, sizeof off, "%llu * (size_t)i", (unsigned long long)w);
		load_elem(e, f, elem, "c->p", off);
		bag_text_printf(b, "\t}\n");
		if (w > 0)
			bag_text_printf(b, "\tc->p += (size_t)n * %llu;\n", (unsigned long long)w);
	} else {
		read_elem(e, f, elem);
		bag_text_printf(b, "\t}\n");
	}
	e->ind = "\t";
}

/* Read a non-fixed field f at the cursor. */
static void read_field(struct emitter *e, const struct gen_field *f)
{
	char lhs[512];

	e->ind = "\t";
	snprintf(lhs, sizeof lhs, "out->%s", f->id);
	if (f->f->array == BAG_ARRAY_VARIABLE) {
		read_var_array(e, f);
	} else if (f->f->array == BAG_ARRAY_NONE) {
		read_elem(e, f, lhs);
	} else {
		bool fixed;
		uint64_t w = elem_wire(e, f, &fixed);
		bag_text_printf(e->b, "\tfor (uint32_t i = 0; i < %u; i++) {\n", f->f->fixed_len);
		snprintf(lhs, sizeof lhs, "out->%s[i]", f->id);
		e->ind = "\t\t";
		if (fixed) {
			/* elements of fixed size in an array too long for a run */
			bag_text_printf(e->b, "\t\tif (BAG_GEN_LEFT(c) < %llu)\n\t\t\treturn BAG_EDECODE;\n",
			                (unsigned long long)w);
			load_elem(e, f, lhs, "c->p", "0");
			bag_text_printf(e->b, "\t\tc->p += %llu;\n", (unsigned long long)w);
		} else {
			read_elem(e, f, lhs);
		}
		bag_text_printf(e->b, "\t}\n");
		e->ind = "\t";
	}
}

static bool needs_count(const struct emitter *e, const struct gen_type *g)
{
	(void)e;
	for (size_t k = 0; k < g->t->nfields; k++)
		if (g->fields[k].f->array == BAG_ARRAY_VARIABLE)
			return true;
	return false;
}

/* load (fixed types) and read. */
static void emit_read(struct emitter *e, const struct gen_type *g)
{
	struct bag_text *b = e->b;

	e->need |= NEED_CUR;
	if (g->fixed) {
		uint64_t off = 0, w = 0;
		GEN_APPEND(b, "static void ");
		fn(e, g, "load");
		GEN_APPEND(b, "(");
		tref(e, b, g);
		bag_text_printf(b, " *out, const uint8_t *p)\n{\n");
		if (g->wire == 0)
			GEN_APPEND(b, "\t(void)out;\n\t(void)p;\n");
		e->ind = "\t";
		for (size_t k = 0; k < g->t->nfields; k++) {
			field_fixed(e, &g->fields[k], &w);
			load_field(e, &g->fields[k], "p", off);
			off += w;
		}
		GEN_APPEND(b, "}\n\n");
	}
	GEN_APPEND(b, "static int ");
	fn(e, g, "read");
	GEN_APPEND(b, "(struct bag_gen_cur *c, ");
	tref(e, b, g);
	GEN_APPEND(b, " *out)\n{\n");
	bag_text_printf(b, "\tBAG_GEN_TRY(bag_gen_charge(c, 1, UINT64_C(%llu)));\n", (unsigned long long)g->charge);
	if (g->fixed) {
		if (g->wire > 0)
			bag_text_printf(b, "\tif (BAG_GEN_LEFT(c) < %llu)\n\t\treturn BAG_EDECODE;\n", (unsigned long long)g->wire);
		GEN_APPEND(b, "\t");
		fn(e, g, "load");
		GEN_APPEND(b, "(out, c->p);\n");
		if (g->wire > 0)
			bag_text_printf(b, "\tc->p += %llu;\n", (unsigned long long)g->wire);
		GEN_APPEND(b, "\treturn BAG_OK;\n}\n\n");
		return;
	}
	if (needs_count(e, g))
		GEN_APPEND(b, "\tuint32_t n;\n\n");
	for (size_t k = 0; k < g->t->nfields;) {
		uint64_t w = 0, run = 0, off = 0;
		size_t end = k;
		while (end < g->t->nfields && field_fixed(e, &g->fields[end], &w)) {
			run += w;
			end++;
		}
		if (end == k) {
			read_field(e, &g->fields[k++]);
			continue;
		}
		if (run > 0)
			bag_text_printf(b, "\tif (BAG_GEN_LEFT(c) < %llu)\n\t\treturn BAG_EDECODE;\n", (unsigned long long)run);
		e->ind = "\t";
		for (; k < end; k++) {
			field_fixed(e, &g->fields[k], &w);
			load_field(e, &g->fields[k], "c->p", off);
			off += w;
		}
		if (run > 0)
			bag_text_printf(b, "\tc->p += %llu;\n", (unsigned long long)run);
	}
	GEN_APPEND(b, "\treturn BAG_OK;\n}\n\n");
}

/* ---- freeing (C) ------------------------------------------------------------- */

static bool field_heap(const struct emitter *e, const struct gen_field *f)
{
	const struct gen_type *g = sub(e, f);

	return f->f->array == BAG_ARRAY_VARIABLE || f->f->prim == BAG_PRIM_STRING || (g && g->heap);
}

/* Free one element lhs of f (a string or a message holding memory). */
static void clear_elem(struct emitter *e, const struct gen_field *f, const char *lhs, const char *ind)
{
	if (f->f->prim == BAG_PRIM_STRING) {
		bag_text_printf(e->b, "%sif (%s.len > 0)\n%s\tfree(%s.data);\n", ind, lhs, ind, lhs);
	} else {
		bag_text_printf(e->b, "%s", ind);
		fn(e, sub(e, f), "clear");
		bag_text_printf(e->b, "(&%s);\n", lhs);
	}
}

static void emit_clear(struct emitter *e, const struct gen_type *g)
{
	struct bag_text *b = e->b;
	char lhs[512];

	bag_text_printf(b, "static void %s_clear(struct %s *m)\n{\n", g->cid, g->cid);
	for (size_t k = 0; k < g->t->nfields; k++) {
		const struct gen_field *f = &g->fields[k];
		bool elems = f->f->prim == BAG_PRIM_STRING || (sub(e, f) && sub(e, f)->heap);
		if (!field_heap(e, f))
			continue;
		if (f->f->array == BAG_ARRAY_NONE) {
			snprintf(lhs, sizeof lhs, "m->%s", f->id);
			clear_elem(e, f, lhs, "\t");
			continue;
		}
		if (f->f->array == BAG_ARRAY_FIXED && f->f->fixed_len == 0)
			continue;
		snprintf(lhs, sizeof lhs, f->f->array == BAG_ARRAY_VARIABLE ? "m->%s.data[i]" : "m->%s[i]", f->id);
		if (elems) {
			if (f->f->array == BAG_ARRAY_VARIABLE)
				bag_text_printf(b, "\tfor (uint32_t i = 0; i < m->%s.len; i++)\n", f->id);
			else
				bag_text_printf(b, "\tfor (uint32_t i = 0; i < %u; i++)\n", f->f->fixed_len);
			clear_elem(e, f, lhs, "\t\t");
		}
		if (f->f->array == BAG_ARRAY_VARIABLE)
			bag_text_printf(b, "\tfree(m->%s.data);\n", f->id);
	}
	GEN_APPEND(b, "}\n\n");
}

/* ---- JSON ---------------------------------------------------------------------- */

/* Append the pending JSON text: one call per GEN_MAX_LITERAL bytes (a literal ISO C must take). */
static void flush(struct emitter *e)
{
	for (size_t at = 0; at < e->lit.len; at += GEN_MAX_LITERAL) {
		size_t n = e->lit.len - at < GEN_MAX_LITERAL ? e->lit.len - at : GEN_MAX_LITERAL;
		bag_text_printf(e->b, "%sbag_text_append(t, ", e->ind);
		gen_cstring(e->b, e->lit.p + at, n);
		bag_text_printf(e->b, ", %zu);\n", n);
	}
	e->lit.len = 0;
}

/* The code that appends one element lhs of f. */
static void json_elem(struct emitter *e, const struct gen_field *f, const char *lhs)
{
	struct bag_text *b = e->b;
	const char *ind = e->ind;

	flush(e);
	switch (f->f->prim) {
	case BAG_PRIM_BOOL:
		bag_text_printf(b, "%sbag_text_append(t, %s ? \"true\" : \"false\", %s ? 4 : 5);\n", ind, lhs, lhs);
		break;
	case BAG_PRIM_INT8: case BAG_PRIM_INT16: case BAG_PRIM_INT32: case BAG_PRIM_INT64:
		e->need |= NEED_JI64 | NEED_JU64;
		bag_text_printf(b, "%sbag_gen_json_i64(t, %s);\n", ind, lhs);
		break;
	case BAG_PRIM_UINT8: case BAG_PRIM_UINT16: case BAG_PRIM_UINT32: case BAG_PRIM_UINT64:
		e->need |= NEED_JU64;
		bag_text_printf(b, "%sbag_gen_json_u64(t, %s);\n", ind, lhs);
		break;
	case BAG_PRIM_FLOAT32: case BAG_PRIM_FLOAT64:
		e->need |= NEED_JF64;
		bag_text_printf(b, "%sbag_gen_json_f64(t, %s);\n", ind, lhs);
		break;
	case BAG_PRIM_STRING:
		if (e->cpp)
			bag_text_printf(b, "%sbag_text_json_string(t, %s.data(), %s.size());\n", ind, lhs, lhs);
		else
			bag_text_printf(b, "%sbag_text_json_string(t, %s.data, %s.len);\n", ind, lhs, lhs);
		break;
	case BAG_PRIM_TIME:
		e->need |= NEED_JTIME | NEED_JU64;
		bag_text_printf(b, "%sbag_gen_json_time(t, %s.secs, %s.nsecs);\n", ind, lhs, lhs);
		break;
	case BAG_PRIM_DURATION:
		e->need |= NEED_JDUR | NEED_JI64 | NEED_JU64;
		bag_text_printf(b, "%sbag_gen_json_duration(t, %s.secs, %s.nsecs);\n", ind, lhs, lhs);
		break;
	case BAG_PRIM_MESSAGE:
		bag_text_printf(b, "%s", ind);
		fn(e, sub(e, f), "json");
		bag_text_printf(b, "(t, &%s);\n", lhs);
		break;
	default:
		break;
	}
}

static void emit_json(struct emitter *e, const struct gen_type *g)
{
	struct bag_text *b = e->b;
	char lhs[512];

	GEN_APPEND(b, "static void ");
	fn(e, g, "json");
	GEN_APPEND(b, "(struct bag_text *t, const ");
	tref(e, b, g);
	GEN_APPEND(b, " *m)\n{\n");
	if (g->t->nfields == 0)
		GEN_APPEND(b, "\t(void)m;\n");
	e->ind = "\t";
	GEN_APPEND(&e->lit, "{");
	for (size_t k = 0; k < g->t->nfields; k++) {
		const struct gen_field *f = &g->fields[k];
		if (k > 0)
			GEN_APPEND(&e->lit, ",");
		bag_text_json_string(&e->lit, f->f->name, strlen(f->f->name));
		GEN_APPEND(&e->lit, ":");
		if (f->f->array == BAG_ARRAY_NONE) {
			snprintf(lhs, sizeof lhs, "m->%s", f->id);
			json_elem(e, f, lhs);
			continue;
		}
		GEN_APPEND(&e->lit, "[");
		if (f->f->array == BAG_ARRAY_FIXED && f->f->fixed_len == 0) {
			GEN_APPEND(&e->lit, "]");
			continue;
		}
		flush(e);
		if (f->f->array == BAG_ARRAY_FIXED)
			bag_text_printf(b, "\tfor (uint32_t i = 0; i < %u; i++) {\n", f->f->fixed_len);
		else if (e->cpp)
			bag_text_printf(b, "\tfor (size_t i = 0; i < m->%s.size(); i++) {\n", f->id);
		else
			bag_text_printf(b, "\tfor (uint32_t i = 0; i < m->%s.len; i++) {\n", f->id);
		GEN_APPEND(b, "\t\tif (i > 0)\n\t\t\tbag_text_append(t, \",\", 1);\n");
		snprintf(lhs, sizeof lhs, f->f->array == BAG_ARRAY_VARIABLE && !e->cpp ? "m->%s.data[i]" : "m->%s[i]",
		         f->id);
		e->ind = "\t\t";
		json_elem(e, f, lhs);
		e->ind = "\t";
		GEN_APPEND(b, "\t}\n");
		GEN_APPEND(&e->lit, "]");
	}
	GEN_APPEND(&e->lit, "}");
	flush(e);
	GEN_APPEND(b, "}\n\n");
}

/* ---- public functions and the table ------------------------------------------------ */

static void emit_public(struct emitter *e, const struct gen_type *g)
{
	struct bag_text *b = e->b;

	if (e->cpp) {
		if (*g->ns)
			bag_text_printf(b, "namespace %s {\n\n", g->ns);
		bag_text_printf(b,
			"int decode(%s &out, const uint8_t *data, size_t size)\n{\n"
			"\tstruct bag_gen_cur c;\n\tint rc;\n\n"
			"\tc.p = data != NULL ? data : reinterpret_cast<const uint8_t *>(\"\");\n"
			"\tc.end = c.p + size;\n\tc.budget = BAG_DECODE_BUDGET(size);\n"
			"\ttry {\n\t\trc = bag_gen_read(&c, &out);\n\t} catch (const std::bad_alloc &) {\n"
			"\t\trc = BAG_ENOMEM;\n\t}\n"
			"\tif (rc != BAG_OK) {\n\t\t/* in place: no temporary the size of the message on the stack */\n"
			"\t\tout.~%s();\n\t\tnew (&out) %s();\n\t}\n\treturn rc;\n}\n\n", g->name, g->name, g->name);
		bag_text_printf(b,
			"int print_json(struct bag_text *t, const %s &msg)\n{\n"
			"\tbag_gen_json(t, &msg);\n\treturn t->failed ? BAG_ENOMEM : BAG_OK;\n}\n\n", g->name);
		if (*g->ns)
			bag_text_printf(b, "} // namespace %s\n\n", g->ns);
		return;
	}
	bag_text_printf(b,
		"int %s_decode(struct %s *out, const uint8_t *data, size_t size)\n{\n"
		"\tstruct bag_gen_cur c;\n\tint rc;\n\n"
		"\tc.p = data != NULL ? data : (const uint8_t *)\"\";\n"
		"\tc.end = c.p + size;\n\tc.budget = BAG_DECODE_BUDGET(size);\n"
		"\tmemset(out, 0, sizeof *out);\n"
		"\trc = %s_read(&c, out);\n"
		"\tif (rc != BAG_OK)\n\t\t%s_free(out);\n\treturn rc;\n}\n\n", g->cid, g->cid, g->cid, g->cid);
	bag_text_printf(b, "void %s_free(struct %s *msg)\n{\n\tif (msg == NULL)\n\t\treturn;\n", g->cid, g->cid);
	if (g->heap)
		bag_text_printf(b, "\t%s_clear(msg);\n", g->cid);
	GEN_APPEND(b, "\tmemset(msg, 0, sizeof *msg);\n}\n\n");
	bag_text_printf(b,
		"int %s_print_json(struct bag_text *t, const struct %s *msg)\n{\n"
		"\t%s_json(t, msg);\n\treturn t->failed ? BAG_ENOMEM : BAG_OK;\n}\n\n", g->cid, g->cid, g->cid);
}

static void emit_table(struct emitter *e)
{
	const struct gen_model *m = e->m;
	struct bag_text *b = e->b;

	if (e->cpp && m->nroots > 0) {
		GEN_APPEND(b,
			"template <class T> static int bag_gen_any_decode(void *out, const uint8_t *data, size_t size)\n{\n"
			"\tT *msg;\n\n\ttry {\n\t\tmsg = new (out) T();\n\t} catch (const std::bad_alloc &) {\n"
			"\t\treturn BAG_ENOMEM;\n\t}\n\tint rc = decode(*msg, data, size);\n"
			"\tif (rc != BAG_OK)\n\t\tmsg->~T();\n\treturn rc;\n}\n\n"
			"template <class T> static void bag_gen_any_free(void *msg)\n{\n"
			"\tstatic_cast<T *>(msg)->~T();\n}\n\n"
			"template <class T> static int bag_gen_any_print_json(struct bag_text *t, const void *msg)\n{\n"
			"\treturn print_json(t, *static_cast<const T *>(msg));\n}\n\n");
	}
	for (size_t i = 0; i < m->nroots && !e->cpp; i++) {
		const char *id = m->types[m->roots[i]].cid;
		bag_text_printf(b,
			"static int %s_any_decode(void *out, const uint8_t *data, size_t size)\n{\n"
			"\treturn %s_decode((struct %s *)out, data, size);\n}\n\n"
			"static void %s_any_free(void *msg)\n{\n\t%s_free((struct %s *)msg);\n}\n\n"
			"static int %s_any_print_json(struct bag_text *t, const void *msg)\n{\n"
			"\treturn %s_print_json(t, (const struct %s *)msg);\n}\n\n", id, id, id, id, id, id, id, id, id);
	}
	bag_text_printf(b, "const struct bag_gen_type bag_gen_types[%zu] = {\n", m->nroots ? m->nroots : 1);
	for (size_t i = 0; i < m->nroots; i++) {
		const struct gen_type *g = &m->types[m->roots[i]];
		GEN_APPEND(b, "\t{ ");
		gen_string(b, g->t->name, strlen(g->t->name), e->cpp);
		bag_text_printf(b, ", \"%s\", sizeof(", g->t->md5);
		tref(e, b, g);
		if (e->cpp) {
			GEN_APPEND(b, "), bag_gen_any_decode<");
			tref(e, b, g);
			GEN_APPEND(b, ">, bag_gen_any_free<");
			tref(e, b, g);
			GEN_APPEND(b, ">, bag_gen_any_print_json<");
			tref(e, b, g);
			GEN_APPEND(b, "> },\n");
		} else {
			bag_text_printf(b, "), %s_any_decode, %s_any_free, %s_any_print_json },\n", g->cid, g->cid, g->cid);
		}
	}
	if (m->nroots == 0)
		bag_text_printf(b, "\t{ %s, %s, 0, %s, %s, %s },\n", e->cpp ? "nullptr" : "NULL", e->cpp ? "nullptr" : "NULL",
		                e->cpp ? "nullptr" : "NULL", e->cpp ? "nullptr" : "NULL", e->cpp ? "nullptr" : "NULL");
	bag_text_printf(b, "};\nconst size_t bag_gen_ntypes = %zu;\n\n", m->nroots);
	bag_text_printf(b, "const char *const bag_gen_topics[%zu] = {\n", m->ntopics ? m->ntopics : 1);
	for (size_t i = 0; i < m->ntopics; i++) {
		GEN_APPEND(b, "\t");
		gen_string(b, m->topics[i].name, strlen(m->topics[i].name), e->cpp);
		GEN_APPEND(b, ",\n");
	}
	if (m->ntopics == 0)
		bag_text_printf(b, "\t%s,\n", e->cpp ? "nullptr" : "NULL");
	bag_text_printf(b, "};\nconst size_t bag_gen_ntopics = %zu;\n", m->ntopics);
}

/* ---- support ------------------------------------------------------------------ */

#define LE "#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__\n"

/* The JSON printers of the support code: integers, floats as cat prints them, times. */
static void emit_support_json(unsigned need, struct bag_text *t);

/* The support functions the types use, in C that is also C++: reading, then printing JSON. */
static void emit_support(const struct emitter *e, struct bag_text *t)
{
	unsigned need = e->need;

	if (need & NEED_CUR)
		GEN_APPEND(t,
			"/* A cursor over a message: the next byte and the end. */\n"
			"struct bag_gen_cur {\n\tconst uint8_t *p;\n\tconst uint8_t *end;\n"
			"\tuint64_t budget;       /* elements the message may still expand to (bagscope/decode.h) */\n};\n\n"
			"#define BAG_GEN_LEFT(c) ((size_t)((c)->end - (c)->p))\n"
			"#define BAG_GEN_TRY(call) do { int rc_ = (call); if (rc_ != BAG_OK) return rc_; } while (0)\n\n"
			"/* Spend n elements of each nodes: a message over its budget does not decode. */\n"
			"static int bag_gen_charge(struct bag_gen_cur *c, uint64_t n, uint64_t each)\n{\n"
			"\tif (each != 0 && n > c->budget / each)\n\t\treturn BAG_EDECODE;\n"
			"\tc->budget -= n * each;\n\treturn BAG_OK;\n}\n\n");
	if (need & NEED_U16)
		GEN_APPEND(t, "static uint16_t bag_gen_u16(const uint8_t *p)\n{\n"
		              "\treturn (uint16_t)(p[0] | p[1] << 8);\n}\n\n");
	if (need & NEED_U32)
		GEN_APPEND(t, "static uint32_t bag_gen_u32(const uint8_t *p)\n{\n"
		              "\treturn (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;\n}\n\n");
	if (need & NEED_U64)
		GEN_APPEND(t, "static uint64_t bag_gen_u64(const uint8_t *p)\n{\n"
		              "\tuint64_t v = 0;\n\n\tfor (int i = 7; i >= 0; i--)\n\t\tv = v << 8 | p[i];\n\treturn v;\n}\n\n");
	if (need & NEED_F32)
		GEN_APPEND(t, "static float bag_gen_f32(const uint8_t *p)\n{\n"
		              "\tuint32_t u = bag_gen_u32(p);\n\tfloat f;\n\n\tmemcpy(&f, &u, 4);\n\treturn f;\n}\n\n");
	if (need & NEED_F64)
		GEN_APPEND(t, "static double bag_gen_f64(const uint8_t *p)\n{\n"
		              "\tuint64_t u = bag_gen_u64(p);\n\tdouble d;\n\n\tmemcpy(&d, &u, 8);\n\treturn d;\n}\n\n");
	if (need & NEED_COPY8)
		GEN_APPEND(t, "static void bag_gen_copy8(void *dst, const uint8_t *p, size_t n)\n{\n"
		              "\tif (n > 0)\n\t\tmemcpy(dst, p, n);\n}\n\n");
	for (unsigned bits = 16; bits <= 64; bits *= 2) {
		if (!(need & (bits == 16 ? NEED_COPY16 : bits == 32 ? NEED_COPY32 : NEED_COPY64)))
			continue;
		bag_text_printf(t,
			"/* n little-endian %u-bit values at p into dst, any type of that size */\n"
			"static void bag_gen_copy%u(void *dst, const uint8_t *p, size_t n)\n{\n"
			LE "\tif (n > 0)\n\t\tmemcpy(dst, p, n * %u);\n#else\n"
			"\tfor (size_t i = 0; i < n; i++, p += %u) {\n\t\tuint%u_t v = 0;\n"
			"\t\tfor (int k = %u; k >= 0; k--)\n\t\t\tv = (uint%u_t)(v << 8 | p[k]);\n"
			"\t\tmemcpy((char *)dst + i * %u, &v, %u);\n\t}\n#endif\n}\n\n",
			bits, bits, bits / 8, bits / 8, bits, bits / 8 - 1, bits, bits / 8, bits / 8);
	}
	if (need & NEED_COUNT)
		GEN_APPEND(t,
			"/* An array's length, allowed when its elements of min bytes each fit in what is left */\n"
			"static int bag_gen_count(struct bag_gen_cur *c, uint32_t min, uint32_t *n)\n{\n"
			"\tif (BAG_GEN_LEFT(c) < 4)\n\t\treturn BAG_EDECODE;\n"
			"\t*n = bag_gen_u32(c->p);\n\tc->p += 4;\n"
			"\tif (min > 0 && *n > BAG_GEN_LEFT(c) / min)\n"
			"\t\treturn BAG_EDECODE;\n\treturn BAG_OK;\n}\n\n");
	if ((need & NEED_STRING) && e->cpp)
		GEN_APPEND(t,
			"static int bag_gen_string_read(struct bag_gen_cur *c, std::string *s)\n{\n"
			"\tuint32_t n;\n\n\tif (BAG_GEN_LEFT(c) < 4)\n\t\treturn BAG_EDECODE;\n"
			"\tn = bag_gen_u32(c->p);\n\tif (n > BAG_GEN_LEFT(c) - 4)\n\t\treturn BAG_EDECODE;\n"
			"\ts->assign(reinterpret_cast<const char *>(c->p) + 4, n);\n"
			"\tc->p += 4 + (size_t)n;\n\treturn BAG_OK;\n}\n\n");
	else if (need & NEED_STRING)
		GEN_APPEND(t,
			"/* what empty strings point to */\nstatic char bag_gen_empty[1];\n\n"
			"static int bag_gen_string_read(struct bag_gen_cur *c, struct bag_gen_string *s)\n{\n"
			"\tuint32_t n;\n\n\tif (BAG_GEN_LEFT(c) < 4)\n\t\treturn BAG_EDECODE;\n"
			"\tn = bag_gen_u32(c->p);\n\tif (n > BAG_GEN_LEFT(c) - 4)\n\t\treturn BAG_EDECODE;\n"
			"\tif (n == 0) {\n\t\ts->data = bag_gen_empty;\n\t} else {\n"
			"\t\ts->data = (char *)malloc((size_t)n + 1);\n\t\tif (s->data == NULL)\n\t\t\treturn BAG_ENOMEM;\n"
			"\t\tmemcpy(s->data, c->p + 4, n);\n\t\ts->data[n] = '\\0';\n\t\ts->len = n;\n\t}\n"
			"\tc->p += 4 + (size_t)n;\n\treturn BAG_OK;\n}\n\n");
	emit_support_json(need, t);
}

static void emit_support_json(unsigned need, struct bag_text *t)
{
	if (need & NEED_JU64)
		GEN_APPEND(t, "static void bag_gen_json_u64(struct bag_text *t, uint64_t v)\n{\n"
		              "\tchar buf[24], *p = buf + sizeof buf;\n\n"
		              "\tdo\n\t\t*--p = (char)('0' + v % 10);\n\twhile ((v /= 10) != 0);\n"
		              "\tbag_text_append(t, p, (size_t)(buf + sizeof buf - p));\n}\n\n");
	if (need & NEED_JI64)
		GEN_APPEND(t, "static void bag_gen_json_i64(struct bag_text *t, int64_t v)\n{\n"
		              "\tif (v < 0)\n\t\tbag_text_append(t, \"-\", 1);\n"
		              "\tbag_gen_json_u64(t, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);\n}\n\n");
	if (need & NEED_JF64)
		GEN_APPEND(t, "/* Python's repr of the value; NaN and infinities as strings, as in bagscope cat */\n"
		              "static void bag_gen_json_f64(struct bag_text *t, double d)\n{\n"
		              "\tif (d != d || d - d != 0) {\n\t\tbag_text_append(t, \"\\\"\", 1);\n"
		              "\t\tbag_text_double(t, d);\n\t\tbag_text_append(t, \"\\\"\", 1);\n"
		              "\t} else {\n\t\tbag_text_double(t, d);\n\t}\n}\n\n");
	if (need & NEED_JTIME)
		GEN_APPEND(t, "static void bag_gen_json_time(struct bag_text *t, uint32_t secs, uint32_t nsecs)\n{\n"
		              "\tbag_text_append(t, \"{\\\"secs\\\":\", 8);\n\tbag_gen_json_u64(t, secs);\n"
		              "\tbag_text_append(t, \",\\\"nsecs\\\":\", 9);\n\tbag_gen_json_u64(t, nsecs);\n"
		              "\tbag_text_append(t, \"}\", 1);\n}\n\n");
	if (need & NEED_JDUR)
		GEN_APPEND(t, "/* as bagscope cat prints it: both fields signed, as stored */\n"
		              "static void bag_gen_json_duration(struct bag_text *t, int32_t secs, int32_t nsecs)\n{\n"
		              "\tbag_text_append(t, \"{\\\"secs\\\":\", 8);\n\tbag_gen_json_i64(t, secs);\n"
		              "\tbag_text_append(t, \",\\\"nsecs\\\":\", 9);\n\tbag_gen_json_i64(t, nsecs);\n"
		              "\tbag_text_append(t, \"}\", 1);\n}\n\n");
}

/* ---- files ---------------------------------------------------------------------- */

static void file_heading(const struct gen_model *m, struct bag_text *t, const char *name, const char *what)
{
	struct bag_text s = { 0 };

	bag_text_printf(&s, "%s - %s of %s, generated by bagscope gen %s. Do not edit: run\n"
	                "`bagscope gen` again.", name, what, m->source, BAG_VERSION_STRING);
	gen_comment(t, "", s.p ? s.p : "");
	bag_text_free(&s);
}

static const char c_api[] =
	"/*\n"
	" * Each message type pkg/Name is a struct pkg__Name, with\n"
	" *   int pkg__Name_decode(struct pkg__Name *out, const uint8_t *data, size_t size);\n"
	" *       Read a serialized message. Returns BAG_OK, BAG_EDECODE (the bytes do not\n"
	" *       hold such a message: every length is checked against what is left) or\n"
	" *       BAG_ENOMEM. On failure *out holds nothing to free. Bytes after the\n"
	" *       message are not an error.\n"
	" *   void pkg__Name_free(struct pkg__Name *msg);\n"
	" *       Free what decode allocated (NULL is fine); *msg is zeroed.\n"
	" *   int pkg__Name_print_json(struct bag_text *t, const struct pkg__Name *msg);\n"
	" *       Append the message as `bagscope cat --format json` prints its \"msg\";\n"
	" *       BAG_OK or BAG_ENOMEM (t->failed).\n"
	" * A string is (len, data): len bytes, then a NUL (data is never NULL; the\n"
	" * bytes may hold NULs and need not be UTF-8). A variable array is (len,\n"
	" * data); a fixed one a C array. bool is uint8_t, time and duration are\n"
	" * (secs, nsecs). Constants are macros pkg__Name_NAME.\n"
	" */\n";

static const char cpp_api[] =
	"/*\n"
	" * Each message type pkg/Name is a struct pkg::Name, with\n"
	" *   int pkg::decode(Name &out, const uint8_t *data, size_t size);\n"
	" *       Read a serialized message. Returns BAG_OK, BAG_EDECODE (the bytes do not\n"
	" *       hold such a message: every length is checked against what is left) or\n"
	" *       BAG_ENOMEM. On failure out is reset to Name() (in place). Bytes after the message\n"
	" *       are not an error.\n"
	" *   int pkg::print_json(struct bag_text *t, const Name &msg);\n"
	" *       Append the message as `bagscope cat --format json` prints its \"msg\";\n"
	" *       BAG_OK or BAG_ENOMEM (t->failed).\n"
	" * Strings are std::string (bytes as stored), variable arrays std::vector, fixed\n"
	" * ones std::array; bool is uint8_t, time and duration are bag_gen::Time and\n"
	" * bag_gen::Duration (secs, nsecs). Constants are static constexpr members.\n"
	" */\n";

static void emit_table_h(const struct gen_model *m, struct bag_text *t)
{
	file_heading(m, t, "table.h", "the topics' message types as a table for programs like dump");
	GEN_APPEND(t,
		"#ifndef BAG_GEN_TABLE_H\n#define BAG_GEN_TABLE_H\n\n"
		"#include <stddef.h>\n#include <stdint.h>\n\n"
		"#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
		"struct bag_text;\n\n"
		"/*\n"
		" * A message type one of the topics carries, one per (name, md5). decode()\n"
		" * makes a message in out (size bytes from malloc); when it returns BAG_OK\n"
		" * release() must end it, otherwise there is nothing to release.\n"
		" * print_json() appends it as `bagscope cat --format json` prints its \"msg\".\n"
		" */\n"
		"struct bag_gen_type {\n"
		"\tconst char *name;          /* \"pkg/Name\" */\n"
		"\tconst char *md5;           /* of its definition, by the ROS rule */\n"
		"\tsize_t size;\n"
		"\tint (*decode)(void *out, const uint8_t *data, size_t size);\n"
		"\tvoid (*release)(void *msg);\n"
		"\tint (*print_json)(struct bag_text *t, const void *msg);\n"
		"};\n\n"
		"extern const struct bag_gen_type bag_gen_types[];\nextern const size_t bag_gen_ntypes;\n\n"
		"/* The topics the code was generated for, by name. */\n"
		"extern const char *const bag_gen_topics[];\nextern const size_t bag_gen_ntopics;\n\n"
		"#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
}

int gen_emit_code(const struct gen_model *m, struct gen_file *header, struct gen_file *source)
{
	struct emitter e = { .m = m, .cpp = m->lang == GEN_CPP };
	struct bag_text body = { 0 }, *h = &header->text, *c = &source->text;
	const char *hname = e.cpp ? "msgs.hpp" : "msgs.h";

	e.b = &body;
	file_heading(m, h, hname, "the message types");
	GEN_APPEND(h, "\n");
	GEN_APPEND(h, "#ifndef BAG_GEN_MSGS_H\n#define BAG_GEN_MSGS_H\n\n");
	if (e.cpp)
		GEN_APPEND(h, "#include <array>\n#include <cstddef>\n#include <cstdint>\n#include <string>\n#include <vector>\n\n");
	else
		GEN_APPEND(h, "#include <stddef.h>\n#include <stdint.h>\n\n");
	GEN_APPEND(h, "#include <bagscope/common.h>\n\n#include \"table.h\"\n\n");
	bag_text_append(h, e.cpp ? cpp_api : c_api, e.cpp ? sizeof cpp_api - 1 : sizeof c_api - 1);
	if (e.cpp)
		GEN_APPEND(h, "\nstruct bag_text;\n\n#ifndef BAG_GEN_CHARS\n#define BAG_GEN_CHARS\n"
		              "/* A string too long for a literal (ISO C and C++ need only 4095 bytes) as an array */\n"
		              "template <char... C> struct bag_gen_chars {\n"
		              "\tstatic constexpr char value[sizeof...(C)] = { C... };\n};\n#endif\n\n"
		              "#ifndef BAG_GEN_BASE_TYPES\n#define BAG_GEN_BASE_TYPES\n"
		              "namespace bag_gen {\nstruct Time {\n\tuint32_t secs{};\n\tuint32_t nsecs{};\n};\n"
		              "struct Duration {\n\tint32_t secs{};\n\tint32_t nsecs{};\n};\n}\n#endif\n\n");
	else
		GEN_APPEND(h, "\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\nstruct bag_text;\n\n"
		              "#ifndef BAG_GEN_BASE_TYPES\n#define BAG_GEN_BASE_TYPES\n"
		              "struct bag_gen_string {\n\tuint32_t len;\n\tchar *data;\n};\n"
		              "struct bag_gen_time {\n\tuint32_t secs;\n\tuint32_t nsecs;\n};\n"
		              "struct bag_gen_duration {\n\tint32_t secs;\n\tint32_t nsecs;\n};\n#endif\n\n");
	for (size_t i = 0; i < m->ntypes; i++) {
		const struct gen_type *g = &m->types[i];
		declare_type(&e, h, g);
		emit_read(&e, g);
		if (!e.cpp && g->heap)
			emit_clear(&e, g);
		emit_json(&e, g);
	}
	for (size_t i = 0; i < m->ntypes; i++)
		emit_public(&e, &m->types[i]);
	emit_table(&e);
	if (!e.cpp)
		GEN_APPEND(h, "#ifdef __cplusplus\n}\n#endif\n\n");
	GEN_APPEND(h, "#endif\n");

	file_heading(m, c, e.cpp ? "msgs.cpp" : "msgs.c", "decoding, freeing and printing the message types");
	if (e.cpp)
		GEN_APPEND(c, "\n#include <cstdlib>\n#include <cstring>\n#include <new>\n\n");
	else
		GEN_APPEND(c, "\n#include <stdlib.h>\n#include <string.h>\n\n");
	bag_text_printf(c, "#include <bagscope/decode.h>\n#include <bagscope/print.h>\n\n#include \"%s\"\n\n", hname);
	emit_support(&e, c);
	bag_text_append(c, body.p ? body.p : "", body.len);
	if (body.failed || e.lit.failed)
		c->failed = true;
	bag_text_free(&body);
	bag_text_free(&e.lit);
	return h->failed || c->failed ? BAG_ENOMEM : BAG_OK;
}

int gen_emit_table(const struct gen_model *m, struct gen_file *f)
{
	emit_table_h(m, &f->text);
	return f->text.failed ? BAG_ENOMEM : BAG_OK;
}
