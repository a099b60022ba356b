/*
 * msgdef.c - parsing message definitions, the ROS md5 rule, and compiling
 * a definition into the flat ops the decoder runs.
 *
 * Parsing follows genmsg: the text splits into sections (the top type, then
 * `MSG: pkg/Type` after each line of '='); in a section each non-blank line
 * with its comment removed is a constant (it holds '=') or a field
 * `TYPE NAME`. A string constant's value is the rest of the original line.
 * Nested type names resolve as genmsg does (Header -> std_msgs/Header, a
 * bare name -> the section's package), falling back to a section named
 * exactly so, then to any section with that short name. Recursive types are refused.
 *
 * A ROS 2 definition (BAG_ENCODING_CDR) reads the same way with rosidl's
 * differences: byte and char are uint8, time and duration are messages,
 * `string<=N` and `T[<=N]` carry bounds, a field line may end in a default
 * value, and `pkg/msg/Name` names the same type as `pkg/Name` (names are
 * compared with their "/msg/" middle dropped).
 *
 * All strings and arrays of one definition come from its arena and are
 * freed with it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <bagscope/decode.h>

#include "lib/common/util-int.h"
#include "lib/msg/md5-int.h"
#include "lib/msg/msgdef-int.h"

struct arena_block {
	struct arena_block *next;
	size_t used, cap;
	max_align_t data[];
};

struct type_state {
	uint32_t base;        /* first op */
	uint8_t mark;         /* 0 new, 1 visiting, 2 done (cycle check, md5) */
	uint32_t levels;      /* message levels from it down, itself included */
	uint32_t min_size;
	bool fixed;           /* every message of it takes exactly min_size bytes */
	uint64_t nodes;       /* fixed: values and messages in one, itself included (saturating) */
	uint8_t cdr;          /* cdr_skip: 0 not made yet, 1 made, 2 not to be made */
	uint64_t cdr_skip[8]; /* CDR, fixed: one message's bytes from (at - origin) % 8 == r */
};

struct bag_msgdef {
	struct arena_block *arena;
	struct bag_msgdef_type *types;
	size_t ntypes;
	struct type_state *state;
	struct dec_op *ops;
	uint32_t nops;
	enum bag_encoding enc;/* BAG_ENCODING_CDR: the text is ros2msg */
	char *scratch;        /* comment lines being gathered while parsing */
	size_t scratch_len, scratch_cap;
	struct bag_error err;      /* the last failure (common.h) */
};

static const char *const prim_names[] = {
	[BAG_PRIM_BOOL] = "bool", [BAG_PRIM_INT8] = "int8", [BAG_PRIM_UINT8] = "uint8",
	[BAG_PRIM_INT16] = "int16", [BAG_PRIM_UINT16] = "uint16", [BAG_PRIM_INT32] = "int32",
	[BAG_PRIM_UINT32] = "uint32", [BAG_PRIM_INT64] = "int64", [BAG_PRIM_UINT64] = "uint64",
	[BAG_PRIM_FLOAT32] = "float32", [BAG_PRIM_FLOAT64] = "float64", [BAG_PRIM_STRING] = "string",
	[BAG_PRIM_TIME] = "time", [BAG_PRIM_DURATION] = "duration",
};

static const uint8_t prim_sizes[] = {
	[BAG_PRIM_BOOL] = 1, [BAG_PRIM_INT8] = 1, [BAG_PRIM_UINT8] = 1, [BAG_PRIM_INT16] = 2,
	[BAG_PRIM_UINT16] = 2, [BAG_PRIM_INT32] = 4, [BAG_PRIM_UINT32] = 4, [BAG_PRIM_INT64] = 8,
	[BAG_PRIM_UINT64] = 8, [BAG_PRIM_FLOAT32] = 4, [BAG_PRIM_FLOAT64] = 8, [BAG_PRIM_STRING] = 4,
	[BAG_PRIM_TIME] = 8, [BAG_PRIM_DURATION] = 8,
};

BAG_API const char *bag_prim_name(enum bag_prim prim)
{
	return (unsigned)prim < sizeof prim_names / sizeof *prim_names ? prim_names[prim] : "message";
}

/* A primitive named name[0..len) in def's dialect, with the byte/char aliases; -1 if none. */
static int prim_lookup(const bag_msgdef_t *def, const char *name, size_t len)
{
	bool ros2 = def->enc == BAG_ENCODING_CDR;

	if (len == 4 && memcmp(name, "byte", 4) == 0)
		return ros2 ? BAG_PRIM_UINT8 : BAG_PRIM_INT8;
	if (len == 4 && memcmp(name, "char", 4) == 0)
		return BAG_PRIM_UINT8;
	if (ros2 && len == 7 && memcmp(name, "wstring", 7) == 0)
		return BAG_PRIM_STRING;  /* read as UTF-8 (decode.c) */
	for (size_t i = 0; i < sizeof prim_names / sizeof *prim_names; i++)
		if (strlen(prim_names[i]) == len && memcmp(prim_names[i], name, len) == 0)
			return ros2 && (i == BAG_PRIM_TIME || i == BAG_PRIM_DURATION) ? -1 : (int)i;
	return -1;
}

static void *arena_alloc(bag_msgdef_t *def, size_t n)
{
	struct arena_block *b = def->arena;

	n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (b == NULL || b->cap - b->used < n) {
		/* blocks from 512 bytes, doubling to 64 KiB: a small definition takes
		 * little (a bag of 100k connections holds 100k definitions) */
		size_t cap = b == NULL ? 512 : b->cap < 65536 ? 2 * b->cap : 65536;
		cap = n > cap ? n : cap;
		b = malloc(sizeof *b + cap);
		if (b == NULL)
			return NULL;
		b->next = def->arena;
		b->used = 0;
		b->cap = cap;
		def->arena = b;
	}
	void *p = (char *)b->data + b->used;
	b->used += n;
	memset(p, 0, n);
	return p;
}

static char *arena_strndup(bag_msgdef_t *def, const char *s, size_t n)
{
	char *p = arena_alloc(def, n + 1);

	if (p != NULL && n > 0)
		memcpy(p, s, n);
	return p;
}

static int def_fail(bag_msgdef_t *def, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int def_fail(bag_msgdef_t *def, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bag_error_vset(&def->err, BAG_EDEFINITION, NULL, BAG_NO_OFFSET, fmt, ap);
	va_end(ap);
	return BAG_EDEFINITION;
}

/* The failure for nesting past BAG_MSGDEF_MAX_DEPTH, met at type t. */
static int too_deep(bag_msgdef_t *def, const struct bag_msgdef_type *t)
{
	return def_fail(def, "type %s: messages nested too deep (more than %d levels)",
	                t->name, BAG_MSGDEF_MAX_DEPTH);
}

/* A line without its comment and surrounding white space: [*b, *e). */
static void clean_line(const char *s, const char *end, const char **b, const char **e)
{
	const char *hash = memchr(s, '#', (size_t)(end - s));

	if (hash != NULL)
		end = hash;
	while (s < end && isspace((unsigned char)*s))
		s++;
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	*b = s;
	*e = end;
}

static bool is_separator(const char *s, const char *e)
{
	while (s < e && isspace((unsigned char)e[-1]))
		e--;
	if (e - s < 3)
		return false;
	for (; s < e; s++)
		if (*s != '=')
			return false;
	return true;
}

/* Split off the next white-space-delimited token of [*s, e). */
static bool next_token(const char **s, const char *e, const char **tb, const char **te)
{
	const char *p = *s;

	while (p < e && isspace((unsigned char)*p))
		p++;
	if (p == e)
		return false;
	*tb = p;
	while (p < e && !isspace((unsigned char)*p))
		p++;
	*te = p;
	*s = p;
	return true;
}

/*
 * genmsg's names (names.py): a field name is a letter, then letters, digits
 * or '_' (is_legal_resource_base_name; genmsg's \w also takes non-ASCII
 * letters, which we refuse); a type name may also hold '/', but not "//"
 * (is_legal_resource_name). So no name can carry a control character.
 */
static bool legal_name(const char *s, const char *e, bool slash)
{
	for (const char *p = s; p < e; p++) {
		bool letter = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z');
		bool more = (*p >= '0' && *p <= '9') || *p == '_' || (slash && *p == '/' && p > s && p[-1] != '/');
		if (!letter && (p == s || !more))
			return false;
	}
	return s < e;
}

/* The '=' that makes the cleaned line [b, e) a constant (past its TYPE, which may hold "<="), or NULL. */
static const char *constant_eq(const char *b, const char *e)
{
	const char *p = b, *tb, *te;

	if (!next_token(&p, e, &tb, &te))
		return NULL;
	return memchr(te, '=', (size_t)(e - te));
}

/* Scratch lists while a section is parsed. */
struct section {
	const char *name;
	size_t name_len;
	const char *text, *end;
	unsigned line0;           /* line number of the section's first line */
};

/* The decimal [b, e) as a uint32 in *n; false if it is not one. */
static bool parse_count(const char *b, const char *e, uint32_t *n)
{
	uint64_t v = 0;

	for (const char *p = b; p < e; p++) {
		if (!isdigit((unsigned char)*p) || v > UINT32_MAX / 10)
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*n = (uint32_t)v;
	return b < e && v <= UINT32_MAX;
}

/* A parsed TYPE token. */
struct type_token {
	enum bag_array array;
	uint32_t fixed;       /* N of T[N] */
	uint32_t bound;       /* N of T[<=N] (ROS 2) */
	uint32_t str_bound;   /* N of string<=N (ROS 2) */
	const char *eb, *ee;  /* the element's name, unresolved */
};

/* Parse a TYPE token: element name, bounds (ROS 2 only) and array shape. */
static int parse_type_token(bag_msgdef_t *def, unsigned line, const char *tb, const char *te,
                            struct type_token *tt)
{
	const char *br = memchr(tb, '[', (size_t)(te - tb)), *lt;
	bool ros2 = def->enc == BAG_ENCODING_CDR;

	*tt = (struct type_token){ BAG_ARRAY_NONE, 0, 0, 0, tb, br ? br : te };
	lt = memchr(tb, '<', (size_t)(tt->ee - tb));
	if (lt != NULL) {
		if (!ros2 || tt->ee - lt < 3 || lt[1] != '=' || !parse_count(lt + 2, tt->ee, &tt->str_bound))
			return def_fail(def, "line %u: bad type '%.*s'", line, (int)(te - tb), tb);
		tt->ee = lt;
	}
	if (br == NULL)
		return BAG_OK;
	if (te[-1] != ']')
		return def_fail(def, "line %u: malformed array type '%.*s'", line, (int)(te - tb), tb);
	if (te - br == 2) {
		tt->array = BAG_ARRAY_VARIABLE;
		return BAG_OK;
	}
	if (ros2 && te - br > 3 && br[1] == '<' && br[2] == '=') {
		tt->array = BAG_ARRAY_VARIABLE;
		if (!parse_count(br + 3, te - 1, &tt->bound))
			return def_fail(def, "line %u: bad sequence bound in '%.*s'", line, (int)(te - tb), tb);
		return BAG_OK;
	}
	if (!parse_count(br + 1, te - 1, &tt->fixed))
		return def_fail(def, "line %u: bad array size in '%.*s'", line, (int)(te - tb), tb);
	tt->array = BAG_ARRAY_FIXED;
	return BAG_OK;
}

/*
 * Append the comment that starts at hash (its '#' and one space dropped,
 * trailing space trimmed; line end nl) to the scratch text as one more line.
 */
static bool scratch_comment(bag_msgdef_t *def, const char *hash, const char *nl)
{
	const char *b = hash + 1, *e = nl;
	size_t need;

	b += b < e && *b == ' ';
	while (e > b && isspace((unsigned char)e[-1]))
		e--;
	need = def->scratch_len + (size_t)(e - b) + 2;
	if (need > def->scratch_cap) {
		size_t cap = need > 2 * def->scratch_cap ? need : 2 * def->scratch_cap;
		char *p = realloc(def->scratch, cap);
		if (p == NULL)
			return false;
		def->scratch = p;
		def->scratch_cap = cap;
	}
	if (def->scratch_len > 0)
		def->scratch[def->scratch_len++] = '\n';
	memcpy(def->scratch + def->scratch_len, b, (size_t)(e - b));
	def->scratch_len += (size_t)(e - b);
	return true;
}

/* The scratch lines from byte from on as an arena string (NULL: no memory); cut there. */
static const char *scratch_take(bag_msgdef_t *def, size_t from)
{
	size_t at = from + (from > 0 && from < def->scratch_len);   /* the '\n' before them */
	const char *s = arena_strndup(def, def->scratch ? def->scratch + at : "", def->scratch ? def->scratch_len - at : 0);

	def->scratch_len = from;
	return s;
}

/* One member line of a section, split: its type token and the element type in it. */
struct mline {
	unsigned line;
	const char *b, *e;         /* the line without its comment and blanks */
	const char *nl;            /* its end */
	const char *hash;          /* its '#', or NULL */
	const char *p;             /* where the next token starts */
	const char *tb, *te;       /* the type token ("float64[3]") */
	const char *eb, *ee;       /* its element type ("float64") */
	enum bag_array array;
	uint32_t fixed;
	uint32_t bound, str_bound;  /* ROS 2: T[<=N], string<=N */
};

/* "TYPE NAME=VALUE" into c; a string's value is the rest of the line, '#' and all. */
static int parse_const(bag_msgdef_t *def, const struct mline *m, const char *eq, size_t head,
                       struct bag_msgdef_const *c)
{
	int prim = prim_lookup(def, m->eb, (size_t)(m->ee - m->eb));
	const char *nb = m->te, *ne = eq, *vb, *ve;

	if (prim < 0 || prim == BAG_PRIM_TIME || prim == BAG_PRIM_DURATION || m->array != BAG_ARRAY_NONE)
		return def_fail(def, "line %u: '%.*s' is not a constant type", m->line, (int)(m->te - m->tb), m->tb);
	while (nb < eq && isspace((unsigned char)*nb))
		nb++;
	while (ne > nb && isspace((unsigned char)ne[-1]))
		ne--;
	if (prim == BAG_PRIM_STRING) {
		vb = (const char *)memchr(m->te, '=', (size_t)(m->nl - m->te)) + 1;
		ve = m->nl;
	} else {
		vb = eq + 1;
		ve = m->e;
	}
	while (vb < ve && isspace((unsigned char)*vb))
		vb++;
	while (ve > vb && isspace((unsigned char)ve[-1]))
		ve--;
	if (nb == ne)
		return def_fail(def, "line %u: constant without a name", m->line);
	c->name = arena_strndup(def, nb, (size_t)(ne - nb));
	c->type_name = arena_strndup(def, m->eb, (size_t)(m->ee - m->eb));
	c->prim = (enum bag_prim)prim;
	c->value = arena_strndup(def, vb, (size_t)(ve - vb));
	if (prim != BAG_PRIM_STRING && m->hash != NULL && !scratch_comment(def, m->hash, m->nl))
		return BAG_ENOMEM;
	c->comment = scratch_take(def, head);
	if (c->name == NULL || c->value == NULL || c->type_name == NULL || c->comment == NULL)
		return BAG_ENOMEM;
	return BAG_OK;
}

/* "TYPE NAME" into f. */
static int parse_field(bag_msgdef_t *def, struct mline *m, size_t head, struct bag_msgdef_field *f)
{
	const char *nb, *ne, *db = NULL, *de = NULL;

	/* ROS 2 allows a default value after the name */
	if (!next_token(&m->p, m->e, &nb, &ne) || (next_token(&m->p, m->e, &db, &de) && def->enc != BAG_ENCODING_CDR))
		return def_fail(def, "line %u: expected 'TYPE NAME'", m->line);
	if (!legal_name(nb, ne, false))
		return def_fail(def, "line %u: '%.*s' is not a legal field name (a letter, then letters, digits, '_')",
		                m->line, (int)(ne - nb), nb);
	if (!legal_name(m->eb, m->ee, true))
		return def_fail(def, "line %u: '%.*s' is not a legal field type", m->line, (int)(m->ee - m->eb), m->eb);
	f->name = arena_strndup(def, nb, (size_t)(ne - nb));
	f->type_name = arena_strndup(def, m->eb, (size_t)(m->ee - m->eb));
	f->array = m->array;
	f->fixed_len = m->fixed;
	f->bound = m->bound;
	f->string_bound = m->str_bound;
	f->default_value = db ? arena_strndup(def, db, (size_t)(m->e - db)) : "";
	if (m->hash != NULL && !scratch_comment(def, m->hash, m->nl))
		return BAG_ENOMEM;
	f->comment = scratch_take(def, head);
	if (f->name == NULL || f->type_name == NULL || f->comment == NULL || f->default_value == NULL)
		return BAG_ENOMEM;
	return BAG_OK;
}

/* Room for sec's fields and constants (counted first, so the arrays are allocated once), and t's name. */
static int alloc_members(bag_msgdef_t *def, const struct section *sec, struct bag_msgdef_type *t)
{
	size_t nfields = 0, nconsts = 0;

	for (const char *s = sec->text; s < sec->end;) {
		const char *nl = memchr(s, '\n', (size_t)(sec->end - s)), *b, *e;
		nl = nl ? nl : sec->end;
		clean_line(s, nl, &b, &e);
		if (b < e)
			constant_eq(b, e) ? nconsts++ : nfields++;
		s = nl + 1;
	}
	t->fields = arena_alloc(def, (nfields + 1) * sizeof *t->fields);
	t->consts = arena_alloc(def, (nconsts + 1) * sizeof *t->consts);
	t->name = arena_strndup(def, sec->name, sec->name_len);
	return t->fields == NULL || t->consts == NULL || t->name == NULL ? BAG_ENOMEM : BAG_OK;
}

/*
 * Parse one section into type t (names stay unresolved in type_name). The
 * comment lines gathered since the last member go to the next member with
 * its own line's comment; those a blank line separates from the first
 * member, and those after the last, to the type.
 */
static int parse_section(bag_msgdef_t *def, const struct section *sec, struct bag_msgdef_type *t)
{
	size_t head = 0;
	unsigned line = sec->line0;
	int rc;

	if ((rc = alloc_members(def, sec, t)) != BAG_OK)
		return rc;
	def->scratch_len = 0;
	for (const char *s = sec->text; s < sec->end; line++) {
		struct mline m = { .line = line };
		const char *nl = memchr(s, '\n', (size_t)(sec->end - s)), *eq;

		m.nl = nl = nl ? nl : sec->end;
		clean_line(s, nl, &m.b, &m.e);
		m.hash = memchr(s, '#', (size_t)(nl - s));
		s = nl + 1;
		if (m.b == m.e) {
			if (m.hash != NULL && !scratch_comment(def, m.hash, nl))
				return BAG_ENOMEM;
			if (m.hash == NULL && t->nfields + t->nconsts == 0)
				head = def->scratch_len;
			continue;
		}
		m.p = m.b;
		next_token(&m.p, m.e, &m.tb, &m.te);
		struct type_token tt;
		if ((rc = parse_type_token(def, line, m.tb, m.te, &tt)) != BAG_OK)
			return rc;
		m.array = tt.array;
		m.fixed = tt.fixed;
		m.bound = tt.bound;
		m.str_bound = tt.str_bound;
		m.eb = tt.eb;
		m.ee = tt.ee;
		if ((eq = constant_eq(m.b, m.e)) != NULL)
			rc = parse_const(def, &m, eq, head, (struct bag_msgdef_const *)&t->consts[t->nconsts++]);
		else
			rc = parse_field(def, &m, head, (struct bag_msgdef_field *)&t->fields[t->nfields++]);
		if (rc != BAG_OK)
			return rc;
	}
	t->comment = scratch_take(def, 0);
	return t->comment != NULL ? BAG_OK : BAG_ENOMEM;
}

/* name[0..len) as "pkg/" [0, *head) and "Name" [*tail, len), skipping the "msg/" of "pkg/msg/Name". */
static void drop_msg(const char *name, size_t len, size_t *head, size_t *tail)
{
	const char *slash = memchr(name, '/', len);

	*head = *tail = slash ? (size_t)(slash - name) + 1 : 0;
	if (slash != NULL && len - *head > 4 && memcmp(slash, "/msg/", 5) == 0)
		*tail += 4;
}

/* Whether a and b name one type, "pkg/msg/Name" being "pkg/Name". */
static bool same_type(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t ah, at, bh, bt;

	drop_msg(a, alen, &ah, &at);
	drop_msg(b, blen, &bh, &bt);
	return ah == bh && memcmp(a, b, ah) == 0 && alen - at == blen - bt &&
	       memcmp(a + at, b + bt, alen - at) == 0;
}

/*
 * Two hash indexes of the types, built once for resolve(): by full name,
 * and by short name (after the last '/'; the first type of each). Open
 * addressing; a slot holds a type's index plus one, 0 when empty.
 */
struct type_index {
	uint32_t *full, *base;
	size_t mask;
};

/* A hash of name[0..len) as same_type() compares it ("pkg/msg/Name" as "pkg/Name"). */
static uint64_t name_hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603u;
	size_t head, tail;

	drop_msg(s, len, &head, &tail);
	for (size_t i = 0; i < len; i++)
		if (i < head || i >= tail)
			h = (h ^ (uint8_t)s[i]) * 1099511628211u;
	return h;
}

static const char *short_name(const char *name)
{
	const char *s = strrchr(name, '/');

	return s != NULL ? s + 1 : NULL;
}

static bool name_is(const char *s, const char *name, size_t len)
{
	return same_type(s, strlen(s), name, len);
}

/* The slot of name[0..len) in table (by full or short name), or the empty one where it would go. */
static uint32_t *index_slot(const bag_msgdef_t *def, const struct type_index *ix, uint32_t *table, bool base,
                            const char *name, size_t len)
{
	for (size_t i = name_hash(name, len) & ix->mask;; i = (i + 1) & ix->mask) {
		const char *key = table[i] ? def->types[table[i] - 1].name : NULL;
		if (key == NULL || name_is(base ? short_name(key) : key, name, len))
			return &table[i];
	}
}

static int index_types(const bag_msgdef_t *def, struct type_index *ix)
{
	size_t cap = 16;

	while (cap < 2 * def->ntypes)
		cap *= 2;
	ix->mask = cap - 1;
	ix->full = calloc(cap, sizeof *ix->full);
	ix->base = calloc(cap, sizeof *ix->base);
	if (ix->full == NULL || ix->base == NULL)
		return BAG_ENOMEM;
	for (size_t i = 0; i < def->ntypes; i++) {
		const char *name = def->types[i].name, *s = short_name(name);
		uint32_t *slot = index_slot(def, ix, ix->full, false, name, strlen(name));
		if (*slot == 0)
			*slot = (uint32_t)i + 1;
		if (s != NULL && *(slot = index_slot(def, ix, ix->base, true, s, strlen(s))) == 0)
			*slot = (uint32_t)i + 1;
	}
	return BAG_OK;
}

/* The type called name[0..len) (by its short name: base), or NULL. */
static struct bag_msgdef_type *find_type(bag_msgdef_t *def, const struct type_index *ix, bool base,
                                         const char *name, size_t len)
{
	uint32_t at = *index_slot(def, ix, base ? ix->base : ix->full, base, name, len);

	return at ? &def->types[at - 1] : NULL;
}

/* Resolve field f of type t (whose package is pkg_len bytes): a type of the definition, or NULL. */
static struct bag_msgdef_type *resolve_field(bag_msgdef_t *def, const struct type_index *ix,
                                             const struct bag_msgdef_type *t, size_t pkg_len,
                                             const struct bag_msgdef_field *f)
{
	char full[512];
	struct bag_msgdef_type *m = NULL;
	bool bare = strchr(f->type_name, '/') == NULL;

	if (strcmp(f->type_name, "Header") == 0)
		m = find_type(def, ix, false, "std_msgs/Header", 15);
	else if (!bare)
		m = find_type(def, ix, false, f->type_name, strlen(f->type_name));
	else if (snprintf(full, sizeof full, "%.*s/%s", (int)pkg_len, t->name, f->type_name) < (int)sizeof full)
		m = find_type(def, ix, false, full, strlen(full));
	if (m == NULL)
		m = find_type(def, ix, false, f->type_name, strlen(f->type_name));
	if (m == NULL && bare)
		m = find_type(def, ix, true, f->type_name, strlen(f->type_name));
	return m;
}

/* Resolve every field's type: a primitive, or a type of this definition. */
static int resolve(bag_msgdef_t *def)
{
	struct type_index ix = { 0 };
	int rc = index_types(def, &ix);

	for (size_t i = 0; i < def->ntypes && rc == BAG_OK; i++) {
		struct bag_msgdef_type *t = &def->types[i];
		const char *slash = strchr(t->name, '/');
		size_t pkg_len = slash ? (size_t)(slash - t->name) : 0;

		for (size_t k = 0; k < t->nfields; k++) {
			struct bag_msgdef_field *f = (struct bag_msgdef_field *)&t->fields[k];
			int prim = prim_lookup(def, f->type_name, strlen(f->type_name));
			struct bag_msgdef_type *m;

			if (prim >= 0) {
				f->prim = (enum bag_prim)prim;
				continue;
			}
			f->prim = BAG_PRIM_MESSAGE;
			if ((m = resolve_field(def, &ix, t, pkg_len, f)) == NULL) {
				rc = def_fail(def, "type %s: field '%s' has type '%s', which the definition does not define",
				              t->name, f->name, f->type_name);
				break;
			}
			f->msg = m;
			f->type_name = m->name;
		}
	}
	free(ix.full);
	free(ix.base);
	return rc;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/*
 * Depth-first: refuse cycles and nesting deeper than BAG_MSGDEF_MAX_DEPTH
 * (depth is ti's level below the root, 0 for the root; the walk never goes
 * deeper than the limit), compute levels, min sizes and md5s bottom-up.
 */
static int finish_type(bag_msgdef_t *def, size_t ti, int depth)
{
	struct bag_msgdef_type *t = &def->types[ti];
	struct type_state *st = &def->state[ti];
	char *text, *p;
	size_t cap = 64, len = 0;
	int rc = BAG_OK;

	if (st->mark == 2)
		return (uint64_t)depth + st->levels <= BAG_MSGDEF_MAX_DEPTH ? BAG_OK : too_deep(def, t);
	if (st->mark == 1)
		return def_fail(def, "type %s contains itself", t->name);
	if (depth >= BAG_MSGDEF_MAX_DEPTH)
		return too_deep(def, t);
	st->mark = 1;
	st->levels = 1;
	for (size_t k = 0; k < t->nconsts; k++)
		cap += strlen(t->consts[k].type_name) + strlen(t->consts[k].name) + strlen(t->consts[k].value) + 4;
	for (size_t k = 0; k < t->nfields; k++)
		cap += strlen(t->fields[k].type_name) + strlen(t->fields[k].name) + 48;
	text = p = malloc(cap);
	if (text == NULL)
		return BAG_ENOMEM;
	for (size_t k = 0; k < t->nconsts; k++)
		len += (size_t)sprintf(text + len, "%s %s=%s\n", t->consts[k].type_name, t->consts[k].name,
		                       t->consts[k].value);
	uint64_t min = 0, nodes = 1;
	bool fixed = true;
	for (size_t k = 0; k < t->nfields; k++) {
		const struct bag_msgdef_field *f = &t->fields[k];
		uint64_t elem, elem_nodes = 1;
		bool elem_fixed;
		if (f->prim == BAG_PRIM_MESSAGE) {
			size_t sub = (size_t)(f->msg - def->types);
			if ((rc = finish_type(def, sub, depth + 1)) != BAG_OK)
				goto fail;
			len += (size_t)sprintf(text + len, "%s %s\n", f->msg->md5, f->name);
			elem = def->state[sub].min_size;
			elem_fixed = def->state[sub].fixed;
			elem_nodes = def->state[sub].nodes;
			if (def->state[sub].levels + 1 > st->levels)
				st->levels = def->state[sub].levels + 1;
		} else {
			/* the type as written in ROS terms: aliases keep their names */
			const char *tn = f->type_name;
			if (f->array == BAG_ARRAY_FIXED)
				len += (size_t)sprintf(text + len, "%s[%u] %s\n", tn, f->fixed_len, f->name);
			else if (f->array == BAG_ARRAY_VARIABLE)
				len += (size_t)sprintf(text + len, "%s[] %s\n", tn, f->name);
			else
				len += (size_t)sprintf(text + len, "%s %s\n", tn, f->name);
			elem = prim_sizes[f->prim];
			elem_fixed = f->prim != BAG_PRIM_STRING;
		}
		/* no elements are all the same size: so every type of min size 0 is fixed */
		if (f->array == BAG_ARRAY_FIXED && f->fixed_len == 0)
			elem_fixed = true, elem_nodes = 0;
		fixed &= elem_fixed && f->array != BAG_ARRAY_VARIABLE;
		nodes = sat_add(nodes, sat_mul(elem_nodes, f->array == BAG_ARRAY_FIXED ? f->fixed_len : 1));
		min += f->array == BAG_ARRAY_VARIABLE ? 4 : f->array == BAG_ARRAY_FIXED ? elem * f->fixed_len : elem;
		if (min > UINT32_MAX)
			min = UINT32_MAX;
	}
	while (len > 0 && text[len - 1] == '\n')
		len--;
	md5_hex(text, len, t->md5);
	st->min_size = (uint32_t)min;
	st->fixed = fixed && min < UINT32_MAX;
	st->nodes = nodes;
	st->mark = 2;
fail:
	free(p);
	return rc;
}

#define CDR_SIM_MAX 4096   /* elements of a fixed array of messages a CDR table is made over */

static bool cdr_type_skip(bag_msgdef_t *def, size_t type, const uint64_t **skip);

/*
 * CDR, checking: the bytes op's elements (op fixed, not a variable array)
 * take from (at - origin) % 8 == r into skip[r], as decode.c's walk takes
 * them: primitives aligned to their size, messages field by field, an empty
 * message one byte. false when not tabled (a fixed time, or too many
 * messages to go through).
 */
static bool cdr_op_skip(bag_msgdef_t *def, const struct dec_op *op, uint64_t skip[8])
{
	uint64_t count = op->array == BAG_ARRAY_FIXED ? op->fixed_len : 1;
	const uint64_t *sub;

	for (uint64_t r = 0; r < 8; r++) {
		skip[r] = 0;
		if (count > 0 && op->prim < BAG_PRIM_STRING)
			skip[r] = ((0 - r) & (op->elem_min - 1)) + sat_mul(count, op->elem_min);
	}
	if (count == 0 || op->prim < BAG_PRIM_STRING)
		return true;
	if (op->prim != BAG_PRIM_MESSAGE || count > CDR_SIM_MAX ||
	    !cdr_type_skip(def, (size_t)(op->field->msg - def->types), &sub))
		return false;
	for (uint64_t r = 0; r < 8; r++) {
		uint64_t pos = r;
		for (uint64_t e = 0; e < count; e++)
			pos = sat_add(pos, sub[pos % 8]);
		skip[r] = pos - r;
	}
	return true;
}

/* cdr_op_skip() for one message of a fixed type, made once (*skip then points at it). */
static bool cdr_type_skip(bag_msgdef_t *def, size_t type, const uint64_t **skip)
{
	struct type_state *st = &def->state[type];
	const struct bag_msgdef_type *t = &def->types[type];
	uint64_t pos[8] = { 0, 1, 2, 3, 4, 5, 6, 7 }, s[8];
	bool ok = st->fixed;

	*skip = st->cdr_skip;
	if (st->cdr != 0)
		return st->cdr == 1;
	st->cdr = 2;
	for (size_t k = 0; k < t->nfields && ok; k++)
		if ((ok = cdr_op_skip(def, &def->ops[st->base + k], s)))
			for (int r = 0; r < 8; r++)
				pos[r] = sat_add(pos[r], s[pos[r] % 8]);
	for (uint64_t r = 0; r < 8; r++)
		st->cdr_skip[r] = t->nfields == 0 ? 1 : pos[r] - r;   /* CDR's empty message is one byte */
	st->cdr = ok ? 1 : 2;
	return ok;
}

/*
 * Type i's runs of fixed fields that are not variable arrays (dec_op.run):
 * each field's run and what it takes, ROS 1 (bytes) and CDR (by alignment).
 */
static void compile_runs(bag_msgdef_t *def, size_t i)
{
	const struct bag_msgdef_type *t = &def->types[i];

	for (size_t k = t->nfields; k-- > 0;) {
		struct dec_op *op = &def->ops[def->state[i].base + k];
		const struct dec_op *next = k + 1 < t->nfields && op[1].run > 0 ? op + 1 : NULL;
		uint64_t count = op->array == BAG_ARRAY_FIXED ? op->fixed_len : 1, s[8];
		if (!op->fixed || op->array == BAG_ARRAY_VARIABLE)
			continue;
		op->run = 1 + (next ? next->run : 0);
		op->run_bytes = sat_add(sat_mul(op->elem_min, count), next ? next->run_bytes : 0);
		op->run_nodes = sat_add(sat_mul(op->nodes, count), next ? next->run_nodes : 0);
		op->cdr_ok = cdr_op_skip(def, op, s) && (next == NULL || next->cdr_ok);
		for (uint64_t r = 0; r < 8 && op->cdr_ok; r++)
			op->cdr_run[r] = sat_add(s[r], next ? next->cdr_run[(r + s[r]) % 8] : 0);
	}
}

/* Lay every type's fields out as ops. */
static int compile(bag_msgdef_t *def)
{
	uint32_t n = 0;

	for (size_t i = 0; i < def->ntypes; i++) {
		def->state[i].base = n;
		n += (uint32_t)def->types[i].nfields;
	}
	def->ops = arena_alloc(def, (n + 1) * sizeof *def->ops);
	if (def->ops == NULL)
		return BAG_ENOMEM;
	def->nops = n;
	for (size_t i = 0; i < def->ntypes; i++) {
		const struct bag_msgdef_type *t = &def->types[i];
		for (size_t k = 0; k < t->nfields; k++) {
			const struct bag_msgdef_field *f = &t->fields[k];
			struct dec_op *op = &def->ops[def->state[i].base + k];
			op->prim = (uint8_t)f->prim;
			op->array = (uint8_t)f->array;
			op->fixed_len = f->fixed_len;
			op->field = f;
			if (f->prim == BAG_PRIM_MESSAGE) {
				size_t sub = (size_t)(f->msg - def->types);
				op->sub = def->state[sub].base;
				op->nsub = (uint32_t)f->msg->nfields;
				op->elem_min = def->state[sub].min_size;
				op->fixed = def->state[sub].fixed;
				op->nodes = def->state[sub].nodes;
			} else {
				op->elem_min = prim_sizes[f->prim];
				op->fixed = f->prim != BAG_PRIM_STRING;
				op->wide = f->prim == BAG_PRIM_STRING && strcmp(f->type_name, "wstring") == 0;
				op->nodes = 1;
			}
			/* no elements: nothing to read or charge */
			if (f->array == BAG_ARRAY_FIXED && f->fixed_len == 0)
				op->fixed = true;
		}
	}
	for (size_t i = 0; i < def->ntypes; i++)
		compile_runs(def, i);
	return BAG_OK;
}

BAG_API int bag_msgdef_parse(bag_msgdef_t **out, const char *type, const char *text, size_t len)
{
	return bag_msgdef_parse_as(out, type, text, len, BAG_ENCODING_ROS1);
}

BAG_API int bag_msgdef_parse_as(bag_msgdef_t **out, const char *type, const char *text, size_t len,
                                enum bag_encoding enc)
{
	bag_msgdef_t *def;
	struct section *secs = NULL;
	size_t nsecs = 0, cap = 8;
	unsigned line = 1;
	const char *end = text + len, *s = text;
	int rc = BAG_ENOMEM;

	*out = def = calloc(1, sizeof *def);
	if (def == NULL)
		return BAG_ENOMEM;
	def->enc = enc;
	secs = malloc(cap * sizeof *secs);
	if (secs == NULL)
		goto fail;
	secs[nsecs++] = (struct section){ type, strlen(type), text, end, 1 };
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		nl = nl ? nl : end;
		if (is_separator(s, nl)) {
			const char *b = NULL, *e = NULL, *next = nl < end ? nl + 1 : end;
			secs[nsecs - 1].end = s;
			line++;
			/* the type's name on the next non-blank line: "MSG: pkg/Type" */
			while (next < end) {
				const char *nl2 = memchr(next, '\n', (size_t)(end - next));
				nl2 = nl2 ? nl2 : end;
				clean_line(next, nl2, &b, &e);
				next = nl2 < end ? nl2 + 1 : end;
				if (b < e)
					break;
				line++;
			}
			if (b >= e || e - b < 5 || memcmp(b, "MSG:", 4) != 0) {
				rc = def_fail(def, "line %u: expected 'MSG: pkg/Type' after a line of '='", line);
				goto fail;
			}
			b += 4;
			while (b < e && isspace((unsigned char)*b))
				b++;
			if (nsecs == cap) {
				void *n2 = realloc(secs, (cap *= 2) * sizeof *secs);
				if (n2 == NULL)
					goto fail;
				secs = n2;
			}
			secs[nsecs++] = (struct section){ b, (size_t)(e - b), next, end, line + 1 };
			s = next;
			line++;
			continue;
		}
		s = nl + 1;
		line++;
	}
	def->types = arena_alloc(def, nsecs * sizeof *def->types);
	def->state = calloc(nsecs, sizeof *def->state);
	if (def->types == NULL || def->state == NULL)
		goto fail;
	def->ntypes = nsecs;
	for (size_t i = 0; i < nsecs; i++)
		if ((rc = parse_section(def, &secs[i], &def->types[i])) != BAG_OK)
			goto fail;
	if ((rc = resolve(def)) != BAG_OK)
		goto fail;
	for (size_t i = 0; i < nsecs; i++)
		if ((rc = finish_type(def, i, 0)) != BAG_OK)
			goto fail;
	rc = compile(def);
fail:
	if (rc == BAG_ENOMEM)
		bag_error_say(&def->err, rc, "out of memory");
	if (rc != BAG_OK)
		def->ntypes = 0;
	free(secs);
	return rc;
}

BAG_API void bag_msgdef_free(bag_msgdef_t *def)
{
	if (def == NULL)
		return;
	while (def->arena != NULL) {
		struct arena_block *next = def->arena->next;
		free(def->arena);
		def->arena = next;
	}
	free(def->state);
	free(def->scratch);
	free(def);
}

BAG_API const struct bag_error *bag_msgdef_error(const bag_msgdef_t *def)
{
	return def != NULL ? &def->err : &bag_error_nomem;
}

BAG_API const struct bag_msgdef_type *bag_msgdef_root(const bag_msgdef_t *def)
{
	return def != NULL && def->ntypes ? &def->types[0] : NULL;
}

BAG_API const char *bag_msgdef_md5(const bag_msgdef_t *def)
{
	const struct bag_msgdef_type *root = bag_msgdef_root(def);

	return root != NULL ? root->md5 : NULL;
}

BAG_API size_t bag_msgdef_type_count(const bag_msgdef_t *def)
{
	return def != NULL ? def->ntypes : 0;
}

BAG_API const struct bag_msgdef_type *bag_msgdef_type_at(const bag_msgdef_t *def, size_t i)
{
	return def != NULL && i < def->ntypes ? &def->types[i] : NULL;
}

BAG_API enum bag_encoding bag_msgdef_encoding(const bag_msgdef_t *def)
{
	return def != NULL ? def->enc : BAG_ENCODING_ROS1;
}

const struct dec_op *msgdef_ops(const bag_msgdef_t *def, uint32_t *nroot)
{
	*nroot = def->ntypes ? (uint32_t)def->types[0].nfields : 0;
	return def->ops;
}

/* Whether constant c's text is integer v (of c's signedness). */
static bool const_equals(const struct bag_msgdef_const *c, const struct bag_value *v, bool is_signed)
{
	char *end;

	errno = 0;
	if (is_signed) {
		long long x = strtoll(c->value, &end, 10);
		return errno == 0 && end != c->value && *end == '\0' && x == v->v.i;
	}
	if (c->value[strspn(c->value, " ")] == '-')
		return false;
	unsigned long long x = strtoull(c->value, &end, 10);
	return errno == 0 && end != c->value && *end == '\0' && x == v->v.u;
}

/* Whether c's name is field's name then '_', case aside. */
static bool const_prefixed(const struct bag_msgdef_const *c, const struct bag_msgdef_field *f)
{
	size_t n = strlen(f->name);
	return strncasecmp(c->name, f->name, n) == 0 && c->name[n] == '_';
}

BAG_API size_t bag_msgdef_const_match(const struct bag_msgdef_type *type, const struct bag_msgdef_field *field,
                                      const struct bag_value *v, const struct bag_msgdef_const **out, size_t max)
{
	bool is_signed = v->prim == BAG_PRIM_INT8 || v->prim == BAG_PRIM_INT16 || v->prim == BAG_PRIM_INT32 ||
	                 v->prim == BAG_PRIM_INT64;
	bool is_unsigned = v->prim == BAG_PRIM_UINT8 || v->prim == BAG_PRIM_UINT16 || v->prim == BAG_PRIM_UINT32 ||
	                   v->prim == BAG_PRIM_UINT64;
	size_t n = 0, prefixed = 0;

	if (type == NULL || field == NULL || (!is_signed && !is_unsigned))
		return 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < type->nconsts; i++) {
			const struct bag_msgdef_const *c = &type->consts[i];
			if (c->prim != field->prim || !const_equals(c, v, is_signed))
				continue;
			if (pass == 0) {
				prefixed += const_prefixed(c, field);
				continue;
			}
			if (prefixed > 0 && !const_prefixed(c, field))
				continue;
			if (n < max)
				out[n] = c;
			n++;
		}
	return n;
}
