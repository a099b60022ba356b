/*
 * model.c - from parsed definitions to the generator's model (gen-int.h):
 * collecting each (type name, md5) once in dependency order, sizing types as
 * the runtime decoder does, and naming everything.
 *
 * Names are made in one deterministic pass over the types, then the topics.
 * Sets of names taken (a small open-addressing hash set) keep them unique:
 * the C file scope (struct tags, functions, macros), the C++ global
 * namespace and each package namespace, each struct's members, and the
 * topics' file names (compared without case, for case-insensitive file
 * systems). A clash gets "_2", "_3", ... appended.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bagset.h"
#include "gen/gen-int.h"

/* ---- strings the model owns ------------------------------------------------ */

static char *keep(struct gen_model *m, char *s)
{
	if (s == NULL) {
		m->failed = true;
		return NULL;
	}
	if (m->nstrs == m->capstrs) {
		size_t cap = m->capstrs ? 2 * m->capstrs : 64;
		char **p = realloc(m->strs, cap * sizeof *p);
		if (p == NULL) {
			free(s);
			m->failed = true;
			return NULL;
		}
		m->strs = p;
		m->capstrs = cap;
	}
	return m->strs[m->nstrs++] = s;
}

static char *mprintf(struct gen_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static char *mprintf(struct gen_model *m, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *s;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	s = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (s != NULL) {
		va_start(ap, fmt);
		vsnprintf(s, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	return keep(m, s);
}

/* ---- sets of names ------------------------------------------------------------ */

struct nameset {
	const char **keys;        /* borrowed (model strings or literals) */
	size_t cap, n;
	bool nocase;
};

static uint64_t hash(const char *s, bool nocase)
{
	uint64_t h = 1469598103934665603u;

	for (; *s; s++)
		h = (h ^ (uint8_t)(nocase ? tolower((unsigned char)*s) : *s)) * 1099511628211u;
	return h;
}

static bool same(const char *a, const char *b, bool nocase)
{
	if (!nocase)
		return strcmp(a, b) == 0;
	for (; *a && tolower((unsigned char)*a) == tolower((unsigned char)*b); a++, b++)
		;
	return *a == '\0' && *b == '\0';
}

static bool set_has(const struct nameset *s, const char *key)
{
	if (s->cap == 0)
		return false;
	for (size_t i = hash(key, s->nocase) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
		if (s->keys[i] == NULL)
			return false;
		if (same(s->keys[i], key, s->nocase))
			return true;
	}
}

static bool set_add(struct nameset *s, const char *key)
{
	if (2 * (s->n + 1) > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		const char **keys = calloc(cap, sizeof *keys);
		if (keys == NULL)
			return false;
		for (size_t k = 0; k < s->cap; k++) {
			if (s->keys[k] == NULL)
				continue;
			size_t i = hash(s->keys[k], s->nocase) & (cap - 1);
			while (keys[i] != NULL)
				i = (i + 1) & (cap - 1);
			keys[i] = s->keys[k];
		}
		free(s->keys);
		s->keys = keys;
		s->cap = cap;
	}
	size_t i = hash(key, s->nocase) & (s->cap - 1);
	while (s->keys[i] != NULL)
		i = (i + 1) & (s->cap - 1);
	s->keys[i] = key;
	s->n++;
	return true;
}

static void set_free(struct nameset *s)
{
	free(s->keys);
	memset(s, 0, sizeof *s);
}

/* ---- identifiers ------------------------------------------------------------- */

/*
 * C11 and C++20 keywords, lower-case names the headers the code includes
 * take (macros, functions a member or namespace would hide), and the names
 * the generated code declares itself in a package's namespace (C++).
 */
static const char *const reserved_words[] = {
	"_Alignas", "_Alignof", "_Atomic", "_Bool", "_Complex", "_Generic", "_Imaginary", "_Noreturn",
	"_Static_assert", "_Thread_local", "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand",
	"bitor", "bool", "break", "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class",
	"compl", "concept", "const", "const_cast", "consteval", "constexpr", "constinit", "continue",
	"co_await", "co_return", "co_yield", "decltype", "default", "delete", "do", "double",
	"dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend",
	"goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
	"nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
	"reinterpret_cast", "requires", "restrict", "return", "short", "signed", "sizeof", "static",
	"static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local", "throw",
	"true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void",
	"volatile", "wchar_t", "while", "xor", "xor_eq",
	"errno", "stdin", "stdout", "stderr", "linux", "unix", "i386", "assert", "offsetof", "alloca",
	"setjmp", "va_arg", "va_start", "va_end", "va_copy", "std", "main", "decode", "print_json",
};

static bool is_reserved(const char *s)
{
	for (size_t i = 0; i < sizeof reserved_words / sizeof *reserved_words; i++)
		if (strcmp(s, reserved_words[i]) == 0)
			return true;
	return false;
}

/* Whether a name of n bytes could be a macro's: two or more bytes, no lower-case letter, or X_... */
static bool macro_like(const char *s, size_t n)
{
	if (n < 2)
		return false;
	if (s[0] >= 'A' && s[0] <= 'Z' && s[1] == '_')
		return true;
	for (; *s; s++)
		if (*s >= 'a' && *s <= 'z')
			return false;
	return true;
}

/*
 * An identifier from name[0..len) (the rule is in bagscope(1), gen, NAMES):
 *  1. a byte other than an ASCII letter, digit or '_' becomes '_', and a run
 *     of '_' one '_' (only the code's own pkg__Name holds "__", which C++
 *     reserves);
 *  2. 'x' goes before a name that starts with a digit or '_' (C reserves
 *     _X and __x), or with "bag" then '_' or its end, or with "BAG" (the
 *     prefixes of libbagscope and of the generated support);
 *  3. '_' goes after a name that could be a macro (two or more bytes, no
 *     lower-case letter: SEEK_SET, EINVAL, FILE, INT8_WIDTH; or an upper-case
 *     letter then '_': L_tmpnam, P_tmpdir), a typedef's
 *     (ending in "_t": uint8_t, size_t), a keyword, or a reserved word above;
 *  4. of the name, at most GEN_IDENT_MAX bytes are used.
 * A name so changed gets a warning where it is named (note_rename()). A
 * part (alone false: a C constant's name after its type's pkg__Name_) takes
 * rules 1 and 4 only: with that prefix it can meet no other name.
 */
static char *ident_as(struct gen_model *m, const char *name, size_t len, bool alone)
{
	char *s, *p;

	len = len > GEN_IDENT_MAX ? GEN_IDENT_MAX : len;
	s = p = malloc(len + 4);

	if (s == NULL)
		return keep(m, NULL);
	if (!alone) {
		/* rule 1 only */
	} else if (len == 0 || isdigit((unsigned char)name[0]) || !isalnum((unsigned char)name[0]) ||
	    (len >= 4 && strncmp(name, "bag_", 4) == 0) || (len == 3 && strncmp(name, "bag", 3) == 0) ||
	    (len >= 3 && strncmp(name, "BAG", 3) == 0))
		*p++ = 'x';
	for (size_t i = 0; i < len; i++) {
		char c = name[i];
		c = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ? c : '_';
		if (c != '_' || p == s || p[-1] != '_')
			*p++ = c;
	}
	*p = '\0';
	if (alone && (is_reserved(s) || macro_like(s, (size_t)(p - s)) || (p - s >= 2 && p[-2] == '_' && p[-1] == 't')))
		strcpy(p, "_");
	return keep(m, s);
}

static char *ident(struct gen_model *m, const char *name, size_t len)
{
	return ident_as(m, name, len, true);
}

/* A warning when the code names a bag's name otherwise (what: "field", "type", ...). */
static void note_rename(struct gen_model *m, const char *type, const char *what, const char *name, size_t len,
                        const char *id)
{
	if (id != NULL && (strlen(id) != len || memcmp(id, name, len) != 0))
		bag_text_printf(m->warnings, "%s: %s %.*s is %s in the code (gen's naming rule)\n", type, what,
		                (int)len, name, id);
}

/* base, or base_2, base_3, ... : the first not in set; added to it. */
static char *unique(struct gen_model *m, struct nameset *set, char *base)
{
	char *s = base;

	for (unsigned k = 2; s != NULL && set_has(set, s); k++)
		s = mprintf(m, "%s_%u", base, k);
	if (s != NULL && !set_add(set, s)) {
		m->failed = true;
		return NULL;
	}
	return s;
}

/* ---- collecting types -------------------------------------------------------- */

unsigned gen_prim_size(enum bag_prim p)
{
	static const uint8_t sizes[] = {
		[BAG_PRIM_BOOL] = 1, [BAG_PRIM_INT8] = 1, [BAG_PRIM_UINT8] = 1, [BAG_PRIM_INT16] = 2,
		[BAG_PRIM_UINT16] = 2, [BAG_PRIM_INT32] = 4, [BAG_PRIM_UINT32] = 4, [BAG_PRIM_INT64] = 8,
		[BAG_PRIM_UINT64] = 8, [BAG_PRIM_FLOAT32] = 4, [BAG_PRIM_FLOAT64] = 8, [BAG_PRIM_STRING] = 4,
		[BAG_PRIM_TIME] = 8, [BAG_PRIM_DURATION] = 8,
	};
	return (unsigned)p < sizeof sizes / sizeof *sizes ? sizes[p] : 0;
}

static uint64_t type_hash(const struct bag_msgdef_type *t)
{
	return hash(t->name, false) ^ (hash(t->md5, false) * 31);
}

static bool same_type(const struct bag_msgdef_type *a, const struct bag_msgdef_type *b)
{
	return strcmp(a->md5, b->md5) == 0 && strcmp(a->name, b->name) == 0;
}

/* The slot of the type with t's name and md5 in the index (or the empty one where it goes). */
static size_t *type_slot(const struct gen_model *m, const struct bag_msgdef_type *t)
{
	size_t mask = m->type_cap - 1;

	for (size_t i = type_hash(t) & mask;; i = (i + 1) & mask)
		if (m->type_slots[i] == 0 || same_type(m->types[m->type_slots[i] - 1].t, t))
			return &m->type_slots[i];
}

/* Make room in the index for one more type. */
static int index_grow(struct gen_model *m)
{
	size_t cap = m->type_cap ? m->type_cap : 64, *old = m->type_slots, oldcap = m->type_cap;

	while (2 * (m->ntypes + 1) > cap)
		cap *= 2;
	if (cap == m->type_cap)
		return BAG_OK;
	if ((m->type_slots = calloc(cap, sizeof *m->type_slots)) == NULL) {
		m->type_slots = old;
		return BAG_ENOMEM;
	}
	m->type_cap = cap;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i] != 0)
			*type_slot(m, m->types[old[i] - 1].t) = old[i];
	free(old);
	return BAG_OK;
}

/* The type with t's name and md5, or m->ntypes. */
static size_t find_type(const struct gen_model *m, const struct bag_msgdef_type *t)
{
	size_t at = m->type_cap ? *type_slot(m, t) : 0;

	return at ? at - 1 : m->ntypes;
}

static uint64_t sat_mul_add(uint64_t acc, uint64_t a, uint64_t b)
{
	uint64_t p = b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;

	return acc > UINT64_MAX - p ? UINT64_MAX : acc + p;
}

/*
 * The element budget (decode.h) as the generated code spends it: a read
 * charges the type's own message, its values, and the nodes of the messages
 * it loads whole (fixed ones); messages read one by one charge themselves;
 * a variable array charges its elements when its length is known. So every
 * element is charged once, as decode.c charges it.
 */
static void charge_type(struct gen_model *m, struct gen_type *g)
{
	g->same = true;
	g->nodes = g->charge = 1;
	for (size_t k = 0; k < g->t->nfields; k++) {
		const struct bag_msgdef_field *f = g->fields[k].f;
		const struct gen_type *sub = f->prim == BAG_PRIM_MESSAGE ? &m->types[g->fields[k].type] : NULL;
		uint64_t n = f->array == BAG_ARRAY_FIXED ? f->fixed_len : 1, each = sub ? sub->nodes : 1;
		bool same = (sub ? sub->same : f->prim != BAG_PRIM_STRING) || (f->array == BAG_ARRAY_FIXED && n == 0);

		g->same &= same && f->array != BAG_ARRAY_VARIABLE;
		g->nodes = sat_mul_add(g->nodes, n, each);
		if (f->array != BAG_ARRAY_VARIABLE && (sub == NULL || sub->fixed))
			g->charge = sat_mul_add(g->charge, n, each);
	}
}

/* Sizes as decode.c and msgdef.c count them (min saturates at UINT32_MAX). */
static void size_type(struct gen_model *m, struct gen_type *g)
{
	uint64_t min = 0;

	g->fixed = true;
	g->wire = 0;
	g->heap = false;
	charge_type(m, g);
	for (size_t k = 0; k < g->t->nfields; k++) {
		const struct bag_msgdef_field *f = g->fields[k].f;
		const struct gen_type *sub = f->prim == BAG_PRIM_MESSAGE ? &m->types[g->fields[k].type] : NULL;
		uint64_t elem = sub ? sub->min : gen_prim_size(f->prim);
		uint64_t wire = sub ? sub->wire : gen_prim_size(f->prim);
		bool fixed = sub ? sub->fixed : f->prim != BAG_PRIM_STRING;

		g->heap |= sub ? sub->heap : f->prim == BAG_PRIM_STRING;
		if (f->array == BAG_ARRAY_VARIABLE) {
			min += 4;
			g->fixed = false;
			g->heap = true;
		} else if (f->array == BAG_ARRAY_FIXED) {
			min += elem * f->fixed_len;
			/* past 2^30 bytes a fixed type is read as a variable one */
			if (!fixed || (f->fixed_len && wire > (UINT64_C(1) << 30) / f->fixed_len))
				g->fixed = false;
			else
				g->wire += wire * f->fixed_len;
		} else {
			min += elem;
			g->fixed &= fixed;
			g->wire += g->fixed ? wire : 0;
		}
		if (min > UINT32_MAX)
			min = UINT32_MAX;
		if (g->wire > (UINT64_C(1) << 30))
			g->fixed = false;
	}
	g->min = (uint32_t)min;
	if (!g->fixed)
		g->wire = 0;
}

/* Add t (after the types it holds, each once); *at is its index. */
static int add_type(struct gen_model *m, const struct bag_msgdef_type *t, size_t *at)
{
	struct gen_field *fields;
	size_t i = find_type(m, t);

	if (i < m->ntypes) {
		*at = i;
		return BAG_OK;
	}
	fields = calloc(t->nfields + 1, sizeof *fields);
	if (fields == NULL)
		return BAG_ENOMEM;
	for (size_t k = 0; k < t->nfields; k++) {
		fields[k].f = &t->fields[k];
		if (t->fields[k].prim == BAG_PRIM_MESSAGE && add_type(m, t->fields[k].msg, &fields[k].type) != BAG_OK) {
			free(fields);
			return BAG_ENOMEM;
		}
	}
	size_t cap = m->ntypes < 16 ? 16 : m->ntypes & (m->ntypes - 1) ? 0 : 2 * m->ntypes;
	struct gen_type *types = index_grow(m) != BAG_OK ? NULL : cap ? realloc(m->types, cap * sizeof *types) : m->types;
	if (types == NULL) {
		free(fields);
		return BAG_ENOMEM;
	}
	m->types = types;
	*at = m->ntypes++;
	types[*at].t = t;
	*type_slot(m, t) = m->ntypes;
	memset(&types[*at], 0, sizeof *types);
	types[*at].t = t;
	types[*at].fields = fields;
	size_type(m, &types[*at]);
	return BAG_OK;
}

/* ---- memory of a message --------------------------------------------------------- */

/* Bytes of one t in memory; memo[i] (index of the type in def, plus one) caches them. */
static uint64_t type_bytes(const bag_msgdef_t *def, const struct bag_msgdef_type *t, uint64_t *memo)
{
	static const uint8_t prim_bytes[] = {
		[BAG_PRIM_BOOL] = 1, [BAG_PRIM_INT8] = 1, [BAG_PRIM_UINT8] = 1, [BAG_PRIM_INT16] = 2,
		[BAG_PRIM_UINT16] = 2, [BAG_PRIM_INT32] = 4, [BAG_PRIM_UINT32] = 4, [BAG_PRIM_INT64] = 8,
		[BAG_PRIM_UINT64] = 8, [BAG_PRIM_FLOAT32] = 4, [BAG_PRIM_FLOAT64] = 8, [BAG_PRIM_STRING] = 32,
		[BAG_PRIM_TIME] = 8, [BAG_PRIM_DURATION] = 8,
	};
	size_t i = (size_t)(t - bag_msgdef_type_at(def, 0));
	uint64_t sum = 1;

	if (memo[i] != 0)
		return memo[i] - 1;
	for (size_t k = 0; k < t->nfields; k++) {
		const struct bag_msgdef_field *f = &t->fields[k];
		uint64_t each = f->msg ? type_bytes(def, f->msg, memo) : prim_bytes[f->prim];
		if (f->array == BAG_ARRAY_VARIABLE)
			each = 24;
		sum = sat_mul_add(sum, each, f->array == BAG_ARRAY_FIXED ? f->fixed_len : 1);
	}
	memo[i] = sum == UINT64_MAX ? sum : sum + 1;
	return sum;
}

uint64_t gen_message_bytes(const bag_msgdef_t *def)
{
	uint64_t *memo = calloc(bag_msgdef_type_count(def) + 1, sizeof *memo), n;

	if (memo == NULL || bag_msgdef_root(def) == NULL) {
		free(memo);
		return UINT64_MAX;
	}
	n = type_bytes(def, bag_msgdef_root(def), memo);
	free(memo);
	return n;
}

/* ---- constants ------------------------------------------------------------- */

static const char *const c_types[] = {
	[BAG_PRIM_BOOL] = "uint8_t", [BAG_PRIM_INT8] = "int8_t", [BAG_PRIM_UINT8] = "uint8_t",
	[BAG_PRIM_INT16] = "int16_t", [BAG_PRIM_UINT16] = "uint16_t", [BAG_PRIM_INT32] = "int32_t",
	[BAG_PRIM_UINT32] = "uint32_t", [BAG_PRIM_INT64] = "int64_t", [BAG_PRIM_UINT64] = "uint64_t",
	[BAG_PRIM_FLOAT32] = "float", [BAG_PRIM_FLOAT64] = "double",
};

/* An integer constant's value in [lo, hi] as genmsg's int() reads it. */
static bool parse_int(const char *s, bool *neg, uint64_t *mag, int64_t lo, uint64_t hi)
{
	uint64_t v = 0;

	*neg = *s == '-';
	s += *s == '-' || *s == '+';
	if (!isdigit((unsigned char)*s))
		return false;
	for (; isdigit((unsigned char)*s); s++) {
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*mag = v;
	if (*s != '\0')
		return false;
	return *neg ? v <= (uint64_t)0 - (uint64_t)lo || v == 0 : v <= hi;
}

/* The literal of constant c in the target language, or NULL (with a warning). */
static char *const_value(struct gen_model *m, const struct gen_type *g, const struct bag_msgdef_const *c)
{
	static const int64_t lo[] = { [BAG_PRIM_INT8] = INT8_MIN, [BAG_PRIM_INT16] = INT16_MIN,
	                              [BAG_PRIM_INT32] = INT32_MIN, [BAG_PRIM_UINT32] = 0 };
	static const uint64_t hi[] = { [BAG_PRIM_INT8] = INT8_MAX, [BAG_PRIM_UINT8] = UINT8_MAX,
	                               [BAG_PRIM_INT16] = INT16_MAX, [BAG_PRIM_UINT16] = UINT16_MAX,
	                               [BAG_PRIM_INT32] = INT32_MAX, [BAG_PRIM_UINT32] = UINT32_MAX,
	                               [BAG_PRIM_INT64] = INT64_MAX, [BAG_PRIM_UINT64] = UINT64_MAX };
	const char *v = c->value;
	bool cpp = m->lang == GEN_CPP, neg;
	uint64_t mag;
	struct bag_text t = { 0 };
	char *out = NULL;

	switch (c->prim) {
	case BAG_PRIM_STRING:
		gen_string(&t, v, strlen(v), cpp);
		break;
	case BAG_PRIM_BOOL:
		if (strcmp(v, "True") == 0 || strcmp(v, "true") == 0 || strcmp(v, "1") == 0)
			bag_text_printf(&t, cpp ? "1" : "((uint8_t)1)");
		else if (strcmp(v, "False") == 0 || strcmp(v, "false") == 0 || strcmp(v, "0") == 0)
			bag_text_printf(&t, cpp ? "0" : "((uint8_t)0)");
		break;
	case BAG_PRIM_FLOAT32:
	case BAG_PRIM_FLOAT64: {
		char *end = NULL;
		double d;
		if (*v == '\0' || strspn(v, "0123456789+-.eE") != strlen(v))
			break;
		d = strtod(v, &end);
		if (*end != '\0' || d != d || d - d != 0)
			break;
		if (c->prim == BAG_PRIM_FLOAT32)
			bag_text_printf(&t, "%s", cpp ? "static_cast<float>(" : "((float)");
		else if (!cpp)
			GEN_APPEND(&t, "(");
		bag_text_double(&t, d);
		if (c->prim == BAG_PRIM_FLOAT32 || !cpp)
			GEN_APPEND(&t, ")");
		break;
	}
	case BAG_PRIM_INT64:
	case BAG_PRIM_UINT64:
		if (!parse_int(v, &neg, &mag, c->prim == BAG_PRIM_INT64 ? INT64_MIN : 0, hi[c->prim]))
			break;
		if (neg && mag == (uint64_t)INT64_MAX + 1)
			bag_text_printf(&t, "(-INT64_C(9223372036854775807) - 1)");
		else
			bag_text_printf(&t, "%s%sINT64_C(%llu)", neg && mag ? "-" : "",
			                c->prim == BAG_PRIM_UINT64 ? "U" : "", (unsigned long long)mag);
		break;
	default:
		if (!parse_int(v, &neg, &mag, lo[c->prim], hi[c->prim]))
			break;
		if (cpp)
			bag_text_printf(&t, "%s%llu", neg && mag ? "-" : "", (unsigned long long)mag);
		else
			bag_text_printf(&t, "((%s)%s%llu)", c_types[c->prim], neg && mag ? "-" : "",
			                (unsigned long long)mag);
		break;
	}
	if (t.failed)
		m->failed = true;
	else if (t.len > 0)
		out = mprintf(m, "%s", t.p);
	else
		bag_text_printf(m->warnings, "%s: constant %s: '%s' is not a %s; left out\n", g->t->name, c->name, v,
		                c->type_name);
	bag_text_free(&t);
	return out;
}

/* ---- naming ------------------------------------------------------------------ */

/* Name every type, its members and constants. */
static int by_name_md5(const void *a, const void *b)
{
	const struct bag_msgdef_type *x = *(const struct bag_msgdef_type *const *)a;
	const struct bag_msgdef_type *y = *(const struct bag_msgdef_type *const *)b;
	int c = strcmp(x->name, y->name);

	return c != 0 ? c : strcmp(x->md5, y->md5);
}

/*
 * Which types share their name with another (versioned), and how many md5
 * digits tell them apart (8, or 32 when another shares the first 8): by one
 * sort on (name, md5), where such neighbours are adjacent.
 */
static void mark_versions(struct gen_model *m)
{
	const struct bag_msgdef_type **v = malloc((m->ntypes + 1) * sizeof *v);

	if (v == NULL) {
		m->failed = true;
		return;
	}
	for (size_t i = 0; i < m->ntypes; i++)
		v[i] = m->types[i].t;
	qsort(v, m->ntypes, sizeof *v, by_name_md5);
	for (size_t i = 0; i < m->ntypes; i++) {
		bool prev = i > 0 && strcmp(v[i - 1]->name, v[i]->name) == 0;
		bool next = i + 1 < m->ntypes && strcmp(v[i + 1]->name, v[i]->name) == 0;
		struct gen_type *g = &m->types[find_type(m, v[i])];
		g->versioned = prev || next;
		g->digits = (prev && strncmp(v[i - 1]->md5, v[i]->md5, 8) == 0) ||
		            (next && strncmp(v[i + 1]->md5, v[i]->md5, 8) == 0) ? 32 : 8;
	}
	free(v);
}

/*
 * C: each constant is a macro pkg__Name_NAME, named after every type's
 * members are, so that no macro takes a member's name (which it would
 * expand wherever the member is named).
 */
static void name_c_consts(struct gen_model *m, struct nameset *cscope, const struct nameset *fields)
{
	for (size_t i = 0; i < m->ntypes && !m->failed; i++) {
		struct gen_type *g = &m->types[i];
		for (size_t k = 0; k < g->t->nconsts; k++) {
			const struct bag_msgdef_const *c = &g->t->consts[k];
			char *base = mprintf(m, "%s_%s", g->cid, ident_as(m, c->name, strlen(c->name), false));
			char *id = base;
			for (unsigned n = 2; id != NULL && set_has(fields, id); n++)
				id = mprintf(m, "%s_%u", base, n);
			g->consts[k].c = c;
			g->consts[k].value = const_value(m, g, c);
			g->consts[k].id = id ? unique(m, cscope, id) : NULL;
		}
	}
}

static void name_types(struct gen_model *m, struct nameset *cscope, struct nameset *cxxglobal)
{
	bool cpp = m->lang == GEN_CPP;
	struct nameset cxxtypes = { 0 }, fieldset = { 0 }, *fields = &fieldset;

	mark_versions(m);
	/* package namespaces first: a type without a package may not take their names */
	for (size_t i = 0; i < m->ntypes && !m->failed; i++) {
		const char *slash = strchr(m->types[i].t->name, '/');
		char *pkg = slash ? ident(m, m->types[i].t->name, (size_t)(slash - m->types[i].t->name)) : NULL;
		if (pkg != NULL && !set_has(cxxglobal, pkg) && !set_add(cxxglobal, pkg))
			m->failed = true;
	}

	for (size_t i = 0; i < m->ntypes && !m->failed; i++) {
		struct gen_type *g = &m->types[i];
		const char *full = g->t->name, *slash = strchr(full, '/');
		const char *base = slash ? slash + 1 : full;
		int digits = g->versioned ? g->digits : 0;
		struct nameset members = { 0 };

		char *pkg = slash ? ident(m, full, (size_t)(slash - full)) : NULL;
		char *name = mprintf(m, "%s%s%.*s", base, digits ? "_" : "", digits, g->t->md5);
		if (name == NULL || (slash && pkg == NULL))
			break;
		name = ident(m, name, strlen(name));
		if (name == NULL)
			break;
		if (slash)
			note_rename(m, full, "package", full, (size_t)(slash - full), pkg);
		if (!digits)
			note_rename(m, full, "type", base, strlen(base), name);
		/* C: pkg__Name and the functions named after it */
		g->cid = unique(m, cscope, slash ? mprintf(m, "%s__%s", pkg, name) : name);
		if (g->cid == NULL)
			break;
		static const char *const fns[] = { "decode", "free", "print_json", "read", "load", "clear", "json",
		                                   "any_decode", "any_free", "any_print_json" };
		for (size_t k = 0; k < sizeof fns / sizeof *fns; k++)
			if (unique(m, cscope, mprintf(m, "%s_%s", g->cid, fns[k])) == NULL)
				break;
		/* C++: pkg::Name, a struct in its package's namespace */
		g->ns = pkg ? pkg : "";
		g->name = unique(m, pkg ? &cxxtypes : cxxglobal,
		                 pkg ? mprintf(m, "%s::%s", pkg, name) : name);
		if (g->name == NULL)
			break;
		if (pkg)
			g->name += strlen(pkg) + 2;
		/* members: fields, then (C++) constants; a member may not be named as its struct */
		g->consts = calloc(g->t->nconsts + 1, sizeof *g->consts);
		if (g->consts == NULL || (cpp && !set_add(&members, g->name))) {
			m->failed = true;
			set_free(&members);
			break;
		}
		for (size_t k = 0; k < g->t->nfields; k++) {
			const char *fn = g->fields[k].f->name;
			g->fields[k].id = unique(m, &members, ident(m, fn, strlen(fn)));
			note_rename(m, full, "field", fn, strlen(fn), g->fields[k].id);
			if (!cpp && g->fields[k].id != NULL && !set_has(fields, g->fields[k].id) && !set_add(fields, g->fields[k].id))
				m->failed = true;
		}
		for (size_t k = 0; k < g->t->nconsts && cpp; k++) {
			const struct bag_msgdef_const *c = &g->t->consts[k];
			g->consts[k].c = c;
			g->consts[k].value = const_value(m, g, c);
			g->consts[k].id = unique(m, &members, ident(m, c->name, strlen(c->name)));
			note_rename(m, full, "constant", c->name, strlen(c->name), g->consts[k].id);
		}
		set_free(&members);
	}
	if (!cpp)
		name_c_consts(m, cscope, fields);
	set_free(&cxxtypes);
	set_free(&fieldset);
}

/*
 * The C macros of topic tp's header: ID_TOPIC, ID_TYPE, ID_MD5SUM and the
 * typedef ID_msg (with _1, _2, ... per version when it has several). Check
 * whether one is taken already, or (add) take them all.
 */
static bool topic_macros(struct gen_model *m, struct nameset *cscope, const struct gen_topic *tp, bool add)
{
	static const char *const defs[] = { "TOPIC", "TYPE", "MD5SUM", "msg" };

	for (size_t d = 0; d < sizeof defs / sizeof *defs; d++) {
		for (size_t v = 0; v < (d && tp->nversions > 1 ? tp->nversions : 1); v++) {
			char *s = d && tp->nversions > 1 ? mprintf(m, "%s_%s_%zu", tp->id, defs[d], v + 1)
			                                  : mprintf(m, "%s_%s", tp->id, defs[d]);
			if (s == NULL)
				return !add;
			if (!add && set_has(cscope, s))
				return true;
			if (add && !set_add(cscope, s))
				return false;
		}
	}
	return add;
}

/* Topics by name with their versions; roots; topic ids and the C++ topic namespace. */
/*
 * The topics (by name) and their versions: the connections sorted by topic
 * and position, so that each topic is one run; seen[type] is the last topic
 * (plus one) that took the type, and whether a root has one (the bit).
 */
static int group_topics(struct gen_model *m, const struct gen_conn *conns, const size_t *root_of, size_t n)
{
	struct topic_ref *refs = malloc((n + 1) * sizeof *refs);
	size_t *seen = calloc(m->ntypes + 1, sizeof *seen);
	bool *is_root = calloc(m->ntypes + 1, sizeof *is_root);
	int rc = BAG_ENOMEM;

	m->topics = calloc(n + 1, sizeof *m->topics);
	m->roots = calloc(n + 1, sizeof *m->roots);
	if (refs == NULL || seen == NULL || is_root == NULL || m->topics == NULL || m->roots == NULL)
		goto done;
	for (size_t i = 0; i < n; i++) {
		refs[i] = (struct topic_ref){ conns[i].topic, i };
		if (!is_root[root_of[i]])
			m->roots[m->nroots++] = root_of[i];
		is_root[root_of[i]] = true;
	}
	qsort(refs, n, sizeof *refs, topic_ref_cmp);
	for (size_t a = 0, b; a < n; a = b) {
		struct gen_topic *tp = &m->topics[m->ntopics++];
		for (b = a; b < n && strcmp(refs[b].topic, refs[a].topic) == 0; b++)
			;
		tp->name = refs[a].topic;
		tp->types = calloc(b - a, sizeof *tp->types);
		tp->md5sums = calloc(b - a, sizeof *tp->md5sums);
		if (tp->types == NULL || tp->md5sums == NULL)
			goto done;
		for (size_t k = a; k < b; k++) {
			size_t r = root_of[refs[k].i];
			if (seen[r] == m->ntopics)
				continue;
			seen[r] = m->ntopics;
			tp->types[tp->nversions] = r;
			tp->md5sums[tp->nversions++] = conns[refs[k].i].md5sum;
		}
	}
	rc = BAG_OK;
done:
	free(refs);
	free(seen);
	free(is_root);
	return rc;
}

static int add_topics(struct gen_model *m, const struct gen_conn *conns, const size_t *root_of, size_t n,
                      struct nameset *cscope, struct nameset *cxxglobal)
{
	struct nameset files = { .nocase = true };
	static const char *const taken[] = { "msgs", "dump", "table", "Makefile", "CMakeLists" };

	if (group_topics(m, conns, root_of, n) != BAG_OK)
		return BAG_ENOMEM;
	for (size_t k = 0; k < sizeof taken / sizeof *taken; k++)
		if (!set_add(&files, taken[k]))
			m->failed = true;
	m->topics_ns = unique(m, cxxglobal, ident(m, "topics", 6));
	for (size_t k = 0; k < m->ntopics && !m->failed; k++) {
		struct gen_topic *tp = &m->topics[k];
		const char *s = tp->name + (tp->name[0] == '/');
		char *base = ident(m, s, strlen(s));
		/* a file name no other topic has, whose C macros no type took */
		while (base != NULL && (tp->id = unique(m, &files, base)) != NULL && topic_macros(m, cscope, tp, false))
			;
		if (tp->id == NULL || !topic_macros(m, cscope, tp, true))
			m->failed = true;
	}
	set_free(&files);
	return m->failed ? BAG_ENOMEM : BAG_OK;
}

int gen_model_build(struct gen_model *m, const struct gen_conn *conns, size_t n)
{
	struct nameset cscope = { 0 }, cxxglobal = { 0 };
	size_t *root_of = calloc(n + 1, sizeof *root_of);
	int rc = BAG_ENOMEM;

	if (root_of == NULL)
		goto fail;
	for (size_t i = 0; i < n; i++)
		if (add_type(m, bag_msgdef_root(conns[i].def), &root_of[i]) != BAG_OK)
			goto fail;
	name_types(m, &cscope, &cxxglobal);
	if (m->failed || add_topics(m, conns, root_of, n, &cscope, &cxxglobal) != BAG_OK)
		goto fail;
	rc = m->failed ? BAG_ENOMEM : BAG_OK;
fail:
	set_free(&cscope);
	set_free(&cxxglobal);
	free(root_of);
	return rc;
}

void gen_model_free(struct gen_model *m)
{
	for (size_t i = 0; i < m->ntypes; i++) {
		free(m->types[i].fields);
		free(m->types[i].consts);
	}
	for (size_t i = 0; i < m->ntopics; i++) {
		free(m->topics[i].types);
		free(m->topics[i].md5sums);
	}
	for (size_t i = 0; i < m->nstrs; i++)
		free(m->strs[i]);
	free(m->strs);
	free(m->types);
	free(m->type_slots);
	free(m->topics);
	free(m->roots);
}

/* ---- the bag's text in code ---------------------------------------------------- */

/* Length of the well-formed UTF-8 sequence at s (n left) that a comment may keep, or 0. */
static int keepable_utf8(const uint8_t *s, size_t n)
{
	uint32_t cp;
	int len;

	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		len = 2, cp = s[0] & 0x1Fu;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		len = 3, cp = s[0] & 0x0Fu;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		len = 4, cp = s[0] & 0x07u;
	else
		return 0;
	if ((size_t)len > n)
		return 0;
	for (int i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3Fu);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	/* C1 controls; bidirectional controls (compilers warn of them); line separators */
	if (cp < 0xA0 || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) ||
	    cp == 0x200E || cp == 0x200F || cp == 0x061C || cp == 0x2028 || cp == 0x2029)
		return 0;
	return len;
}

/* One line of a comment: printable text only, no comment delimiters, no trigraphs. */
static void comment_line(struct bag_text *t, const char *s, size_t len)
{
	const uint8_t *u = (const uint8_t *)s;

	for (size_t i = 0; i < len;) {
		int n = u[i] >= 0x80 ? keepable_utf8(u + i, len - i) : 0;
		if (n > 0) {
			bag_text_append(t, s + i, (size_t)n);
			i += (size_t)n;
			continue;
		}
		char c = u[i] >= 0x20 && u[i] < 0x7F ? s[i] : '?';
		char last = t->len > 0 ? t->p[t->len - 1] : ' ';
		/* no comment delimiter and no trigraph can form */
		if ((last == '*' && c == '/') || (last == '/' && c == '*') || (last == '?' && c == '?'))
			GEN_APPEND(t, " ");
		bag_text_append(t, &c, 1);
		i++;
	}
	/* a comment line never ends in a backslash or space */
	while (t->len > 0 && (t->p[t->len - 1] == '\\' || t->p[t->len - 1] == ' '))
		t->len--;
}

void gen_comment(struct bag_text *t, const char *indent, const char *s)
{
	size_t len = strlen(s);

	while (len > 0 && s[len - 1] == '\n')
		len--;
	if (len == 0)
		return;
	if (memchr(s, '\n', len) == NULL && len <= 90) {
		bag_text_printf(t, "%s/* ", indent);
		comment_line(t, s, len);
		GEN_APPEND(t, " */\n");
		return;
	}
	bag_text_printf(t, "%s/*\n", indent);
	for (const char *p = s, *end = s + len; p <= end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		nl = nl ? nl : end;
		bag_text_printf(t, "%s *", indent);
		size_t at = t->len;
		GEN_APPEND(t, " ");
		comment_line(t, p, (size_t)(nl - p));
		if (t->len == at + 1)
			t->len = at;
		GEN_APPEND(t, "\n");
		p = nl + 1;
	}
	bag_text_printf(t, "%s */\n", indent);
}

void gen_string(struct bag_text *t, const char *s, size_t len, bool cpp)
{
	if (len <= GEN_MAX_LITERAL) {
		gen_cstring(t, s, len);
		return;
	}
	bag_text_printf(t, "%s", cpp ? "bag_gen_chars<" : "((const char *)(const char[]){ ");
	for (size_t i = 0; i < len; i++)
		bag_text_printf(t, "'\\%03o', ", (uint8_t)s[i]);
	bag_text_printf(t, "%s", cpp ? "'\\0'>::value" : "'\\0' })");
}

void gen_cstring(struct bag_text *t, const char *s, size_t len)
{
	GEN_APPEND(t, "\"");
	for (size_t i = 0; i < len; i++) {
		uint8_t c = (uint8_t)s[i];
		if (c == '"' || c == '\\' || c == '?')
			bag_text_printf(t, "\\%c", c);
		else if (c >= 0x20 && c < 0x7F)
			bag_text_append(t, s + i, 1);
		else
			bag_text_printf(t, "\\%03o", c);
	}
	GEN_APPEND(t, "\"");
}
