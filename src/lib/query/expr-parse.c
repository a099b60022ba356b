/*
 * expr-parse.c - the expression language's lexer and recursive-descent
 * parser, and message-path topics.
 *
 * The lexer reads one token ahead. The parser builds nodes bottom-up in one
 * array (expr-int.h): a node's operands, and with them its whole subtree,
 * are the nodes [first, index) created just before it. Each node has a
 * shape: a test (comparison, logic), a value (number, string, arithmetic)
 * or either (a path, true/false: bools serve as both); a value where a test
 * is needed, or a test in arithmetic, is a syntax error. An `either` in a
 * test position is wrapped in N_TEST. `[*]` paths wait on a pending list
 * until the comparison (or N_TEST) around them claims them; the claimed
 * paths of a comparison are consecutive in e->stars and a path's slot is
 * its place there. Numbers are read in the C locale, and decimals also
 * exactly to the nanosecond for comparisons with times.
 */
#define _GNU_SOURCE
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/query/expr-int.h"
#include "lib/common/util-int.h"

enum tok {
	T_END, T_NUM, T_STR, T_NAME, T_VAR, T_LP, T_RP, T_LB, T_RB, T_DOT,
	T_OR, T_AND, T_NOT, T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE, T_MATCH, T_NOMATCH,
	T_PLUS, T_MINUS, T_MUL, T_DIV, T_COMMA,
};

struct token {
	uint8_t kind;
	uint8_t var;            /* T_VAR: N_TOPIC, N_TYPE or N_TIME */
	bool is_int;            /* T_NUM written as an integer */
	size_t pos, end;        /* its bytes in the text */
	uint32_t off, len;      /* T_STR, T_NAME: bytes in e->strs */
	struct val num;         /* T_NUM */
};

enum shape { SH_TEST, SH_VALUE, SH_EITHER };

struct parser {
	bag_expr_t *e;
	const char *s;
	size_t len, at;
	struct token tok;
	size_t prev_pos, prev_end;  /* the token before tok */
	int depth;
	uint32_t pending[EXPR_MAX_STARS]; /* [*] paths no comparison has claimed yet, oldest first */
	uint32_t npending;
};

static int perr(struct parser *P, size_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int perr(struct parser *P, size_t pos, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bag_error_vset(&P->e->err, BAG_EEXPR, NULL, pos, fmt, ap);
	va_end(ap);
	return BAG_EEXPR;
}

static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_alnum(int c) { return is_alpha(c) || is_digit(c); }

static int hexval(int c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Append n bytes and a NUL to e->strs; *off is where they start. */
static int add_str(bag_expr_t *e, const char *p, size_t n, uint32_t *off)
{
	if (e->nstrs + n + 1 > UINT32_MAX || bag_grow((void **)&e->strs, &e->cap_strs, e->nstrs + n + 1, 1) != BAG_OK)
		return BAG_ENOMEM;
	*off = (uint32_t)e->nstrs;
	if (n > 0)
		memcpy(e->strs + e->nstrs, p, n);
	e->nstrs += n;
	e->strs[e->nstrs++] = '\0';
	return BAG_OK;
}

/*
 * The exact value in nanoseconds of the decimal s[0..n) (digits, maybe a
 * '.', maybe an exponent): *ns and whether a fraction of a nanosecond
 * remains. false if it does not fit int64.
 */
static bool decimal_ns(const char *s, size_t n, int64_t *ns, bool *frac)
{
	size_t mant = 0, nint = 0;
	long exp = 0;
	int64_t acc = 0;
	long idx = 0, wlast = 0;
	bool seen_point = false;

	while (mant < n && s[mant] != 'e' && s[mant] != 'E')
		mant++;
	if (mant < n) {
		size_t i = mant + 1;
		bool neg = false;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			neg = s[i++] == '-';
		for (; i < n; i++)
			if (exp < 100000)
				exp = exp * 10 + (s[i] - '0');
		exp = neg ? -exp : exp;
	}
	for (size_t i = 0; i < mant; i++) {
		if (s[i] == '.')
			seen_point = true;
		else if (!seen_point)
			nint++;
	}
	*frac = false;
	for (size_t i = 0; i < mant; i++) {
		if (s[i] == '.')
			continue;
		int d = s[i] - '0';
		long w = (long)nint - 1 - idx + exp + 9;
		idx++;
		if (w < 0) {
			*frac |= d != 0;
			continue;
		}
		if (__builtin_mul_overflow(acc, (int64_t)10, &acc))
			return false;
		if (__builtin_add_overflow(acc, d, &acc))
			return false;
		wlast = w;
	}
	for (long k = 0; acc != 0 && k < wlast; k++)
		if (__builtin_mul_overflow(acc, (int64_t)10, &acc))
			return false;
	*ns = acc;
	return true;
}

/* The number that starts at b is bad up to i: say so, naming it whole. */
static int bad_number(struct parser *P, size_t b, size_t i)
{
	const char *s = P->s;

	while (i < P->len && (is_alnum(s[i]) || s[i] == '.'))
		i++;
	return perr(P, b, "bad number '%.*s'", (int)(i - b), s + b);
}

/* A hex integer "0x..." at b into P->tok. */
static int lex_hex(struct parser *P, size_t b)
{
	const char *s = P->s;
	struct token *t = &P->tok;
	uint64_t u = 0;
	bool over = false, any = false;
	size_t i;

	for (i = b + 2; i < P->len && hexval(s[i]) >= 0; i++, any = true) {
		over |= u > UINT64_MAX >> 4;
		u = u << 4 | (uint64_t)hexval(s[i]);
	}
	if (!any || (i < P->len && (is_alnum(s[i]) || s[i] == '.')))
		return bad_number(P, b, i);
	if (over)
		return perr(P, b, "number '%.*s' is out of range", (int)(i - b), s + b);
	t->num.kind = u > INT64_MAX ? BAG_EXPR_UINT : BAG_EXPR_INT;
	t->num.v.u = u;
	t->is_int = true;
	P->at = i;
	return BAG_OK;
}

/* s[b..i) as a double (read in the C locale, whatever the program's), into P->tok. */
static int lex_float(struct parser *P, size_t b, size_t i)
{
	const char *s = P->s;
	struct token *t = &P->tok;
	char buf[128];

	if (i - b >= sizeof buf)
		return perr(P, b, "number '%.*s...' is too long", 20, s + b);
	memcpy(buf, s + b, i - b);
	buf[i - b] = '\0';
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (c == (locale_t)0)
		return BAG_ENOMEM;
	locale_t old = uselocale(c);
	double d = strtod(buf, NULL);
	uselocale(old);
	freelocale(c);
	if (d == HUGE_VAL)
		return perr(P, b, "number '%s' is out of range", buf);
	t->num.kind = BAG_EXPR_FLOAT;
	t->num.v.f = d;
	t->num.has_ns = decimal_ns(buf, i - b, &t->num.ns, &t->num.frac);
	return BAG_OK;
}

/* Read a number at P->at into P->tok. */
static int lex_number(struct parser *P)
{
	const char *s = P->s;
	size_t b = P->at, i = b;
	struct token *t = &P->tok;
	bool is_int = true, any = false;

	t->kind = T_NUM;
	memset(&t->num, 0, sizeof t->num);
	if (s[i] == '0' && i + 1 < P->len && (s[i + 1] == 'x' || s[i + 1] == 'X'))
		return lex_hex(P, b);
	for (; i < P->len && is_digit(s[i]); i++)
		any = true;
	if (i < P->len && s[i] == '.') {
		is_int = false;
		for (i++; i < P->len && is_digit(s[i]); i++)
			any = true;
	}
	if (!any)
		return bad_number(P, b, i);
	if (i < P->len && (s[i] == 'e' || s[i] == 'E')) {
		size_t k = i + 1;
		is_int = false;
		if (k < P->len && (s[k] == '+' || s[k] == '-'))
			k++;
		if (k >= P->len || !is_digit(s[k]))
			return bad_number(P, b, k);
		for (i = k; i < P->len && is_digit(s[i]); i++)
			;
	}
	if (i < P->len && (is_alnum(s[i]) || s[i] == '.'))
		return bad_number(P, b, i);
	P->at = i;
	t->is_int = is_int;
	if (is_int) {
		uint64_t u = 0;
		bool over = false;
		for (size_t k = b; k < i; k++) {
			over |= __builtin_mul_overflow(u, 10, &u);
			over |= __builtin_add_overflow(u, (uint64_t)(s[k] - '0'), &u);
		}
		if (over)
			return perr(P, b, "integer '%.*s%s' is out of range (integers have 64 bits)",
			            (int)(i - b > 40 ? 40 : i - b), s + b, i - b > 40 ? "..." : "");
		t->num.kind = u > INT64_MAX ? BAG_EXPR_UINT : BAG_EXPR_INT;
		t->num.v.u = u;
		return BAG_OK;
	}
	return lex_float(P, b, i);
}

/* Read a quoted string at P->at (its quote) into e->strs. */
static int lex_string(struct parser *P)
{
	const char *s = P->s;
	size_t b = P->at, i = b + 1;
	char q = s[b];
	char *buf = malloc(P->len - b);
	size_t n = 0;
	int rc = BAG_OK;

	if (buf == NULL)
		return BAG_ENOMEM;
	for (;; i++) {
		if (i >= P->len) {
			rc = perr(P, b, "unterminated string");
			goto fail;
		}
		if (s[i] == q)
			break;
		if (s[i] != '\\' || i + 1 >= P->len) {
			buf[n++] = s[i];
			continue;
		}
		char c = s[++i];
		switch (c) {
		case 'n': buf[n++] = '\n'; break;
		case 't': buf[n++] = '\t'; break;
		case 'r': buf[n++] = '\r'; break;
		case '0': buf[n++] = '\0'; break;
		case '\\': case '"': case '\'': buf[n++] = c; break;
		case 'x':
			if (i + 2 >= P->len || hexval(s[i + 1]) < 0 || hexval(s[i + 2]) < 0) {
				rc = perr(P, i - 1, "bad escape: \\x needs two hex digits");
				goto fail;
			}
			buf[n++] = (char)(hexval(s[i + 1]) << 4 | hexval(s[i + 2]));
			i += 2;
			break;
		default:
			buf[n++] = '\\';
			buf[n++] = c;
		}
	}
	P->tok.kind = T_STR;
	rc = add_str(P->e, buf, n, &P->tok.off);
	P->tok.len = (uint32_t)n;
	P->at = i + 1;
fail:
	free(buf);
	return rc;
}

/* A word at i: a $variable, a keyword (or, and, not; not after '.') or a name. */
static int lex_word(struct parser *P, size_t i, bool after_dot)
{
	const char *s = P->s;
	struct token *t = &P->tok;
	size_t j = i + 1;

	while (j < P->len && is_alnum(s[j]))
		j++;
	size_t n = j - i;
	t->end = P->at = j;
	if (s[i] == '$') {
		if (n == 6 && memcmp(s + i, "$topic", 6) == 0)
			t->var = N_TOPIC;
		else if (n == 5 && memcmp(s + i, "$type", 5) == 0)
			t->var = N_TYPE;
		else if (n == 5 && memcmp(s + i, "$time", 5) == 0)
			t->var = N_TIME;
		else
			return perr(P, i, "unknown variable '%.*s' (there are $topic, $type and $time)", (int)n, s + i);
		t->kind = T_VAR;
		return BAG_OK;
	}
	t->kind = T_NAME;
	if (!after_dot) {
		if (n == 2 && memcmp(s + i, "or", 2) == 0)
			t->kind = T_OR;
		else if (n == 3 && memcmp(s + i, "and", 3) == 0)
			t->kind = T_AND;
		else if (n == 3 && memcmp(s + i, "not", 3) == 0)
			t->kind = T_NOT;
	}
	t->len = (uint32_t)n;
	return t->kind == T_NAME ? add_str(P->e, s + i, n, &t->off) : BAG_OK;
}

/* Punctuation or an operator at i, c followed by d. */
static int lex_operator(struct parser *P, size_t i, char c, char d)
{
	struct token *t = &P->tok;
	int k = -1, w = 1;

	switch (c) {
	case '(': k = T_LP; break;
	case ')': k = T_RP; break;
	case '[': k = T_LB; break;
	case ']': k = T_RB; break;
	case '.': k = T_DOT; break;
	case ',': k = T_COMMA; break;
	case '+': k = T_PLUS; break;
	case '-': k = T_MINUS; break;
	case '*': k = T_MUL; break;
	case '/': k = T_DIV; break;
	case '|': k = d == '|' ? T_OR : -1; w = 2; break;
	case '&': k = d == '&' ? T_AND : -1; w = 2; break;
	case '!': k = d == '=' ? T_NE : d == '~' ? T_NOMATCH : T_NOT; w = k == T_NOT ? 1 : 2; break;
	case '=': k = d == '=' ? T_EQ : d == '~' ? T_MATCH : -1; w = 2; break;
	case '<': k = d == '=' ? T_LE : T_LT; w = k == T_LE ? 2 : 1; break;
	case '>': k = d == '=' ? T_GE : T_GT; w = k == T_GE ? 2 : 1; break;
	}
	if (k < 0) {
		if (c == '|' || c == '&')
			return perr(P, i, "'%c' alone is not an operator: use '%c%c'", c, c, c);
		if (c == '=')
			return perr(P, i, "'=' alone is not an operator: use '==' to compare");
		if (c > ' ' && c < 127)
			return perr(P, i, "unexpected character '%c'", c);
		return perr(P, i, "unexpected byte 0x%02x", (unsigned char)c);
	}
	t->kind = (uint8_t)k;
	t->end = P->at = i + (size_t)w;
	return BAG_OK;
}

/* The next token into P->tok. */
static int lex(struct parser *P)
{
	const char *s = P->s;
	struct token *t = &P->tok;
	bool after_dot = t->kind == T_DOT;
	size_t i;
	int rc;

	P->prev_pos = t->pos;
	P->prev_end = t->end;
	while (P->at < P->len && (s[P->at] == ' ' || s[P->at] == '\t' || s[P->at] == '\n' || s[P->at] == '\r'))
		P->at++;
	t->pos = i = P->at;
	if (i >= P->len) {
		t->kind = T_END;
		t->end = i;
		return BAG_OK;
	}
	char c = s[i], d = i + 1 < P->len ? s[i + 1] : '\0';
	if (is_digit(c) || (c == '.' && is_digit(d) && !after_dot)) {
		rc = lex_number(P);
		t->end = P->at;
		return rc;
	}
	if (c == '"' || c == '\'') {
		rc = lex_string(P);
		t->end = P->at;
		return rc;
	}
	if (is_alpha(c) || c == '$')
		return lex_word(P, i, after_dot);
	return lex_operator(P, i, c, d);
}

static enum shape shape_of(const bag_expr_t *e, uint32_t i)
{
	const struct node *n = &e->nodes[i];

	if (n->op >= N_EQ)
		return SH_TEST;
	if ((n->op == N_LIT && !n->is_str && n->lit.kind == BAG_EXPR_BOOL) || (n->op == N_PATH && !n->is_len))
		return SH_EITHER;
	return SH_VALUE;
}

/* A new node of op with operands a and b (EXPR_NONE if unused); *out its index. */
static int add_node(struct parser *P, uint8_t op, size_t pos, uint32_t a, uint32_t b, uint32_t *out)
{
	bag_expr_t *e = P->e;
	struct node *n;
	uint32_t depth = 0;

	if (e->nnodes >= UINT32_MAX - 1 || bag_grow((void **)&e->nodes, &e->cap_nodes, e->nnodes + 1, sizeof *n) != BAG_OK)
		return BAG_ENOMEM;
	n = &e->nodes[e->nnodes];
	memset(n, 0, sizeof *n);
	n->op = op;
	n->pos = n->start = (uint32_t)pos;
	n->a = a;
	n->b = b;
	n->first = (uint32_t)e->nnodes;
	n->star = n->comp_first = EXPR_NONE;
	if (a != EXPR_NONE) {
		n->first = e->nodes[a].first;
		n->start = e->nodes[a].start < n->start ? e->nodes[a].start : n->start;
		depth = e->nodes[a].depth;
	}
	if (b != EXPR_NONE && e->nodes[b].depth > depth)
		depth = e->nodes[b].depth;
	if (depth + 1 > EXPR_MAX_DEPTH)
		return perr(P, pos, "expression nested too deeply (more than %d levels)", EXPR_MAX_DEPTH);
	n->depth = (uint16_t)(depth + 1);
	*out = (uint32_t)e->nnodes++;
	return BAG_OK;
}

/* Give comparison c the pending [*] paths of its subtree (nodes [first, c)). */
static void claim_stars(struct parser *P, uint32_t c)
{
	bag_expr_t *e = P->e;
	struct node *n = &e->nodes[c];
	uint32_t k = P->npending;

	n->star_first = e->nstars;
	while (k > 0 && P->pending[k - 1] >= n->first)
		k--;
	for (uint32_t j = k; j < P->npending; j++) {
		e->nodes[P->pending[j]].star = e->nstars;
		e->stars[e->nstars++] = P->pending[j];
		n->nstar++;
	}
	P->npending = k;
}

/* i as a test: itself, or an N_TEST of a bool value. */
static int as_test(struct parser *P, uint32_t i, uint32_t *out)
{
	enum shape sh = shape_of(P->e, i);
	int rc;

	*out = i;
	if (sh == SH_TEST)
		return BAG_OK;
	if (sh == SH_VALUE)
		return perr(P, P->e->nodes[i].start, "expected a test (a comparison or a bool), not a value");
	if ((rc = add_node(P, N_TEST, P->e->nodes[i].start, i, EXPR_NONE, out)) == BAG_OK)
		claim_stars(P, *out);
	return rc;
}

static int as_number(struct parser *P, uint32_t i)
{
	if (shape_of(P->e, i) == SH_TEST)
		return perr(P, P->e->nodes[i].start, "a test cannot be used as a number");
	return BAG_OK;
}

static int expect_value_error(struct parser *P)
{
	const struct token *t = &P->tok;

	if (t->kind == T_END && P->prev_end > P->prev_pos)
		return perr(P, t->pos, "expected a value after '%.*s'", (int)(P->prev_end - P->prev_pos), P->s + P->prev_pos);
	if (t->kind == T_END)
		return perr(P, t->pos, "empty expression");
	return perr(P, t->pos, "expected a value, not '%.*s'", (int)(t->end - t->pos), P->s + t->pos);
}

static int parse_or(struct parser *P, uint32_t *out);

/* NAME { . NAME | [ INT ] | [ * ] }, P->tok on the first NAME. */
static int parse_path(struct parser *P, bool is_len, uint32_t *out)
{
	bag_expr_t *e = P->e;
	size_t first = e->ncomps, pos = P->tok.pos;
	bool star = false;
	int rc;

	for (;;) {
		struct comp c = { .pos = (uint32_t)P->tok.pos };
		if (P->tok.kind == T_NAME) {
			c.kind = C_NAME;
			c.name_off = P->tok.off;
			c.name_len = P->tok.len;
		} else if (P->tok.kind == T_LB) {
			if ((rc = lex(P)) != BAG_OK)
				return rc;
			bool neg = P->tok.kind == T_MINUS;
			if (P->tok.kind == T_MUL) {
				c.kind = C_STAR;
				star = true;
			} else {
				if (neg && (rc = lex(P)) != BAG_OK)
					return rc;
				if (P->tok.kind != T_NUM || !P->tok.is_int)
					return perr(P, P->tok.pos, "expected an integer index or '*' inside '[ ]'");
				if (P->tok.num.kind != BAG_EXPR_INT)
					return perr(P, P->tok.pos, "index out of range");
				c.kind = C_INDEX;
				c.index = neg ? -P->tok.num.v.i : P->tok.num.v.i;
			}
			if ((rc = lex(P)) != BAG_OK)
				return rc;
			if (P->tok.kind != T_RB)
				return perr(P, P->tok.pos, "expected ']'");
		} else {
			return perr(P, P->tok.pos, "expected a field name after '.'");
		}
		if (bag_grow((void **)&e->comps, &e->cap_comps, e->ncomps + 1, sizeof c) != BAG_OK)
			return BAG_ENOMEM;
		e->comps[e->ncomps++] = c;
		if ((rc = lex(P)) != BAG_OK)
			return rc;
		if (P->tok.kind == T_DOT) {
			if ((rc = lex(P)) != BAG_OK)
				return rc;
			if (P->tok.kind != T_NAME)
				return perr(P, P->tok.pos, "expected a field name after '.'");
		} else if (P->tok.kind != T_LB) {
			break;
		}
	}
	if ((rc = add_node(P, N_PATH, pos, EXPR_NONE, EXPR_NONE, out)) != BAG_OK)
		return rc;
	struct node *n = &e->nodes[*out];
	n->comp_first = (uint32_t)first;
	n->ncomp = (uint32_t)(e->ncomps - first);
	n->is_len = is_len;
	if (star) {
		if (e->nstars + P->npending >= EXPR_MAX_STARS)
			return perr(P, pos, "more than %d paths with [*]", EXPR_MAX_STARS);
		P->pending[P->npending++] = *out;
	}
	return BAG_OK;
}


const char *const expr_tf_fields[10] = {
	"translation.x", "translation.y", "translation.z", "rotation.x", "rotation.y", "rotation.z", "rotation.w",
	"roll", "pitch", "yaw",
};

/* The field after tf(...): P at the '.' after ')'. */
static int parse_tf_field(struct parser *P, struct node *n)
{
	struct token *t = &P->tok;
	char name[32] = "";
	int rc;

	for (int part = 0; part < 2; part++) {
		if (t->kind != T_DOT || (rc = lex(P)) != BAG_OK)
			return t->kind == T_DOT ? rc : perr(P, t->pos, "tf(...) needs a field: .translation.x, .rotation.w, .yaw ...");
		if (t->kind != T_NAME || strlen(name) + t->len + 2 > sizeof name)
			return perr(P, t->pos, "tf(...) has the fields translation.x/y/z, rotation.x/y/z/w, roll, pitch, yaw");
		strcat(name, part ? "." : "");
		strncat(name, P->e->strs + t->off, t->len);
		if ((rc = lex(P)) != BAG_OK)
			return rc;
		if (strcmp(name, "translation") != 0 && strcmp(name, "rotation") != 0)
			break;
	}
	for (uint8_t f = 0; f < 10; f++)
		if (strcmp(name, expr_tf_fields[f]) == 0) {
			n->tf_field = f;
			return BAG_OK;
		}
	return perr(P, n->pos, "tf(...) has no field '%s' (translation.x/y/z, rotation.x/y/z/w, roll, pitch, yaw)", name);
}

/* tf(TARGET, SOURCE).FIELD, frames as names or strings: P at the name tf. */
static int parse_tf(struct parser *P, size_t pos, uint32_t *out)
{
	struct token *t = &P->tok;
	uint32_t off[2], len[2];
	int rc;

	if ((rc = lex(P)) != BAG_OK || (rc = lex(P)) != BAG_OK)
		return rc;
	for (int k = 0; k < 2; k++) {
		if (t->kind != T_NAME && t->kind != T_STR)
			return perr(P, t->pos, "tf() takes two frame ids: tf(TARGET, SOURCE)");
		off[k] = t->off, len[k] = t->len;
		if ((rc = lex(P)) != BAG_OK)
			return rc;
		if (t->kind != (k == 0 ? T_COMMA : T_RP))
			return perr(P, t->pos, k == 0 ? "expected ',' between tf's frames" : "expected ')' after tf's frames");
		if ((rc = lex(P)) != BAG_OK)
			return rc;
	}
	if ((rc = add_node(P, N_TF, pos, EXPR_NONE, EXPR_NONE, out)) != BAG_OK)
		return rc;
	struct node *n = &P->e->nodes[*out];
	n->str_off = off[0], n->str_len = len[0];
	n->tf_src_off = off[1], n->tf_src_len = len[1];
	return parse_tf_field(P, n);
}

/* At a name: true | false | len(path) | abs(value) | path. */
static int parse_name(struct parser *P, uint32_t *out)
{
	struct token *t = &P->tok;
	size_t pos = t->pos;
	uint32_t a;
	int rc;
	const char *name = P->e->strs + t->off;

	if (strcmp(name, "true") == 0 || strcmp(name, "false") == 0) {
		if ((rc = add_node(P, N_LIT, pos, EXPR_NONE, EXPR_NONE, out)) != BAG_OK)
			return rc;
		P->e->nodes[*out].lit.kind = BAG_EXPR_BOOL;
		P->e->nodes[*out].lit.v.b = name[0] == 't';
		return lex(P);
	}
	size_t j = t->end;
	while (j < P->len && (P->s[j] == ' ' || P->s[j] == '\t'))
		j++;
	bool call = j < P->len && P->s[j] == '(';
	if (call && strcmp(name, "len") == 0) {
		if ((rc = lex(P)) != BAG_OK || (rc = lex(P)) != BAG_OK)
			return rc;
		if (t->kind != T_NAME)
			return perr(P, t->pos, "len() takes a field path");
		if ((rc = parse_path(P, true, out)) != BAG_OK)
			return rc;
		if (t->kind != T_RP)
			return t->kind == T_END ? perr(P, j, "unclosed '('") : perr(P, t->pos, "expected ')' after len's path");
		P->e->nodes[*out].start = (uint32_t)pos;
		return lex(P);
	}
	if (call && strcmp(name, "tf") == 0)
		return parse_tf(P, pos, out);
	if (call && strcmp(name, "abs") == 0) {
		if (++P->depth > EXPR_MAX_DEPTH)
			return perr(P, pos, "expression nested too deeply (more than %d levels)", EXPR_MAX_DEPTH);
		if ((rc = lex(P)) != BAG_OK || (rc = lex(P)) != BAG_OK || (rc = parse_or(P, &a)) != BAG_OK ||
		    (rc = as_number(P, a)) != BAG_OK)
			return rc;
		P->depth--;
		if (t->kind != T_RP)
			return t->kind == T_END ? perr(P, j, "unclosed '('") : perr(P, t->pos, "expected ')' after abs's value");
		if ((rc = add_node(P, N_ABS, pos, a, EXPR_NONE, out)) != BAG_OK)
			return rc;
		return lex(P);
	}
	return parse_path(P, false, out);
}

/* NUMBER | STRING | true | false | path | $var | len(path) | abs(value) | ( expr ) */
static int parse_primary(struct parser *P, uint32_t *out)
{
	struct token *t = &P->tok;
	size_t pos = t->pos;
	int rc;

	switch (t->kind) {
	case T_NUM:
		if ((rc = add_node(P, N_LIT, pos, EXPR_NONE, EXPR_NONE, out)) != BAG_OK)
			return rc;
		P->e->nodes[*out].lit = t->num;
		return lex(P);
	case T_STR:
		if ((rc = add_node(P, N_LIT, pos, EXPR_NONE, EXPR_NONE, out)) != BAG_OK)
			return rc;
		P->e->nodes[*out].is_str = true;
		P->e->nodes[*out].str_off = t->off;
		P->e->nodes[*out].str_len = t->len;
		return lex(P);
	case T_VAR:
		if ((rc = add_node(P, t->var, pos, EXPR_NONE, EXPR_NONE, out)) != BAG_OK)
			return rc;
		return lex(P);
	case T_LP: {
		if (++P->depth > EXPR_MAX_DEPTH)
			return perr(P, pos, "expression nested too deeply (more than %d levels)", EXPR_MAX_DEPTH);
		if ((rc = lex(P)) != BAG_OK || (rc = parse_or(P, out)) != BAG_OK)
			return rc;
		P->depth--;
		if (t->kind == T_END)
			return perr(P, pos, "unclosed '('");
		if (t->kind != T_RP)
			return perr(P, t->pos, "expected ')' here, not '%.*s'", (int)(t->end - t->pos), P->s + t->pos);
		P->e->nodes[*out].start = (uint32_t)pos;
		return lex(P);
	}
	case T_NAME:
		return parse_name(P, out);
	default:
		return expect_value_error(P);
	}
}

static int parse_unary(struct parser *P, uint32_t *out)
{
	size_t pos = P->tok.pos;
	uint32_t a;
	int rc;

	if (P->tok.kind == T_NOT) {
		/* inside an operand (`a == !b`), ! takes the operand */
		if (++P->depth > EXPR_MAX_DEPTH)
			return perr(P, pos, "expression nested too deeply (more than %d levels)", EXPR_MAX_DEPTH);
		if ((rc = lex(P)) != BAG_OK || (rc = parse_unary(P, &a)) != BAG_OK || (rc = as_test(P, a, &a)) != BAG_OK)
			return rc;
		P->depth--;
		return add_node(P, N_NOT, pos, a, EXPR_NONE, out);
	}
	if (P->tok.kind != T_MINUS)
		return parse_primary(P, out);
	if (++P->depth > EXPR_MAX_DEPTH)
		return perr(P, pos, "expression nested too deeply (more than %d levels)", EXPR_MAX_DEPTH);
	if ((rc = lex(P)) != BAG_OK || (rc = parse_unary(P, &a)) != BAG_OK || (rc = as_number(P, a)) != BAG_OK)
		return rc;
	P->depth--;
	struct node *n = &P->e->nodes[a];
	if (n->op == N_LIT && !n->is_str && n->lit.kind != BAG_EXPR_BOOL) {
		struct val v = n->lit;
		expr_arith(N_NEG, &v, NULL, &n->lit);
		n->start = (uint32_t)pos;
		*out = a;
		return BAG_OK;
	}
	return add_node(P, N_NEG, pos, a, EXPR_NONE, out);
}

static int parse_mul(struct parser *P, uint32_t *out)
{
	uint32_t a, b;
	int rc;

	if ((rc = parse_unary(P, &a)) != BAG_OK)
		return rc;
	while (P->tok.kind == T_MUL || P->tok.kind == T_DIV) {
		uint8_t op = P->tok.kind == T_MUL ? N_MUL : N_DIV;
		size_t pos = P->tok.pos;
		if ((rc = lex(P)) != BAG_OK || (rc = parse_unary(P, &b)) != BAG_OK ||
		    (rc = as_number(P, a)) != BAG_OK || (rc = as_number(P, b)) != BAG_OK ||
		    (rc = add_node(P, op, pos, a, b, &a)) != BAG_OK)
			return rc;
	}
	*out = a;
	return BAG_OK;
}

static int parse_add(struct parser *P, uint32_t *out)
{
	uint32_t a, b;
	int rc;

	if ((rc = parse_mul(P, &a)) != BAG_OK)
		return rc;
	while (P->tok.kind == T_PLUS || P->tok.kind == T_MINUS) {
		uint8_t op = P->tok.kind == T_PLUS ? N_ADD : N_SUB;
		size_t pos = P->tok.pos;
		if ((rc = lex(P)) != BAG_OK || (rc = parse_mul(P, &b)) != BAG_OK ||
		    (rc = as_number(P, a)) != BAG_OK || (rc = as_number(P, b)) != BAG_OK ||
		    (rc = add_node(P, op, pos, a, b, &a)) != BAG_OK)
			return rc;
	}
	*out = a;
	return BAG_OK;
}

static bool is_cmp_tok(int k)
{
	return k >= T_EQ && k <= T_NOMATCH;
}

/*
 * Bounds on a regex before glibc compiles it: glibc's regcomp copies a
 * group once per count of a repetition, so `(.*){1,32000}` or nested
 * counts take memory in the product of the counts. The pattern may be
 * REGEX_MAX_LEN bytes, a count at most REGEX_MAX_COUNT, and the pattern
 * with every repetition written out (a group's size times its largest
 * count; *, + and ? double it) at most REGEX_MAX_EXPANDED atoms. Then
 * compiling and matching stay small: glibc matches without backtracking,
 * in time linear in the text for a compiled pattern.
 */
#define REGEX_MAX_LEN 1000
#define REGEX_MAX_COUNT 255
#define REGEX_MAX_EXPANDED 1000
#define REGEX_MAX_GROUPS 64
#define RE_STR2(x) #x
#define RE_STR(x) RE_STR2(x)

/* The end of the bracket expression that starts at s ('['), or NULL. */
static const char *bracket_end(const char *s)
{
	const char *p = s + 1;

	p += *p == '^';
	p += *p == ']';
	for (; *p && *p != ']'; p++)
		if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			const char *e = strchr(p + 2, p[1]);
			if (e == NULL || e[1] != ']')
				return NULL;
			p = e + 1;
		}
	return *p ? p : NULL;
}

/* A count {m}, {m,} or {m,n} at s: its largest count (m when open), end in *end; -1 if not one. */
static long brace_count(const char *s, const char **end)
{
	long m = 0, n = -1;
	const char *p = s + 1;

	if (!is_digit(*p))
		return -1;
	for (; is_digit(*p); p++)
		m = m > 100000 ? m : m * 10 + (*p - '0');
	if (*p == ',')
		for (n = 0, p++; is_digit(*p); p++)
			n = n > 100000 ? n : n * 10 + (*p - '0');
	if (*p != '}')
		return -1;
	*end = p + 1;
	return n > m ? n : m;
}

/* NULL if pat is within the bounds above, else why not. */
static const char *regex_bounded(const char *pat)
{
	uint64_t sum[REGEX_MAX_GROUPS + 1] = { 0 }, last = 0;
	int depth = 0;

	if (strlen(pat) > REGEX_MAX_LEN)
		return "longer than " RE_STR(REGEX_MAX_LEN) " bytes";
	for (const char *p = pat; *p; ) {
		const char *end = p + 1;
		long count;
		switch (*p) {
		case '(':
			if (depth == REGEX_MAX_GROUPS)
				return "more than " RE_STR(REGEX_MAX_GROUPS) " nested groups";
			sum[++depth] = 0;
			last = 0;
			break;
		case ')':
			last = depth > 0 ? sum[depth--] : 1;
			sum[depth] += last;
			break;
		case '|':
			last = 0;
			break;
		case '*': case '+': case '?':
			sum[depth] += last;
			last *= 2;
			break;
		case '{':
			if ((count = brace_count(p, &end)) < 0) {
				sum[depth] += last = 1;
				end = p + 1;
				break;
			}
			if (count > REGEX_MAX_COUNT)
				return "a repetition count over " RE_STR(REGEX_MAX_COUNT);
			sum[depth] += last * (uint64_t)(count > 1 ? count - 1 : 0);
			last *= (uint64_t)(count > 1 ? count : 1);
			break;
		case '[':
			if ((end = bracket_end(p)) == NULL)
				return NULL;   /* regcomp says what is wrong */
			end++;
			sum[depth] += last = 1;
			break;
		case '\\':
			end = p[1] ? p + 2 : p + 1;
			sum[depth] += last = 1;
			break;
		default:
			sum[depth] += last = 1;
			break;
		}
		if (sum[depth] > REGEX_MAX_EXPANDED || last > REGEX_MAX_EXPANDED)
			return "its repetitions written out exceed " RE_STR(REGEX_MAX_EXPANDED) " atoms";
		p = end;
	}
	return NULL;
}

/* value [CMP value | =~ STRING] */
static int parse_cmp(struct parser *P, uint32_t *out)
{
	static const uint8_t ops[] = { [T_EQ] = N_EQ, [T_NE] = N_NE, [T_LT] = N_LT, [T_LE] = N_LE,
	                               [T_GT] = N_GT, [T_GE] = N_GE, [T_MATCH] = N_MATCH, [T_NOMATCH] = N_NOMATCH };
	bag_expr_t *e = P->e;
	uint32_t a, b = EXPR_NONE;
	int rc;

	if ((rc = parse_add(P, &a)) != BAG_OK)
		return rc;
	if (!is_cmp_tok(P->tok.kind)) {
		*out = a;
		return BAG_OK;
	}
	uint8_t op = ops[P->tok.kind];
	size_t pos = P->tok.pos;
	if ((rc = lex(P)) != BAG_OK)
		return rc;
	if (op == N_MATCH || op == N_NOMATCH) {
		if (P->tok.kind != T_STR)
			return P->tok.kind == T_END ? expect_value_error(P)
			                            : perr(P, P->tok.pos, "a regex must be a string literal");
		const char *pat = e->strs + P->tok.off;
		regex_t re;
		if (strlen(pat) != P->tok.len)
			return perr(P, P->tok.pos, "a regex cannot hold a NUL byte");
		const char *why = regex_bounded(pat);
		if (why != NULL)
			return perr(P, P->tok.pos, "regex refused: %s", why);
		int err = regcomp(&re, pat, REG_EXTENDED | REG_NOSUB);
		if (err != 0) {
			char msg[128];
			regerror(err, &re, msg, sizeof msg);
			return perr(P, P->tok.pos, "bad regex: %s", msg);
		}
		if (bag_grow((void **)&e->regexes, &e->cap_regexes, e->nregexes + 1, sizeof re) != BAG_OK) {
			regfree(&re);
			return BAG_ENOMEM;
		}
		e->regexes[e->nregexes++] = re;
		if ((rc = lex(P)) != BAG_OK)
			return rc;
	} else if ((rc = parse_add(P, &b)) != BAG_OK) {
		return rc;
	}
	if ((rc = add_node(P, op, pos, a, b, out)) != BAG_OK)
		return rc;
	if (op == N_MATCH || op == N_NOMATCH)
		e->nodes[*out].comp_first = (uint32_t)e->nregexes - 1;
	claim_stars(P, *out);
	if (is_cmp_tok(P->tok.kind))
		return perr(P, P->tok.pos, "comparisons do not chain: use && (or parentheses)");
	return BAG_OK;
}

static int parse_not(struct parser *P, uint32_t *out)
{
	size_t pos = P->tok.pos;
	uint32_t a;
	int rc;

	if (P->tok.kind != T_NOT)
		return parse_cmp(P, out);
	if (++P->depth > EXPR_MAX_DEPTH)
		return perr(P, pos, "expression nested too deeply (more than %d levels)", EXPR_MAX_DEPTH);
	if ((rc = lex(P)) != BAG_OK || (rc = parse_not(P, &a)) != BAG_OK || (rc = as_test(P, a, &a)) != BAG_OK)
		return rc;
	P->depth--;
	return add_node(P, N_NOT, pos, a, EXPR_NONE, out);
}

/*
 * A flat chain `t0 OP t1 OP ... tk` (OP && or ||) as the right-leaning tree
 * t0 OP (t1 OP (... tk)): the evaluator runs down its right edge in a loop,
 * so the chain is not nesting and any length of it is allowed (the depth
 * bound counts the terms' own depth, plus one).
 */
static int parse_chain(struct parser *P, int tok, uint8_t op, int (*term)(struct parser *, uint32_t *), uint32_t *out)
{
	struct link { uint32_t node; size_t pos; } *v = NULL;
	size_t n = 0, cap = 0;
	uint32_t a;
	int rc;

	if ((rc = term(P, &a)) != BAG_OK)
		return rc;
	while (P->tok.kind == tok) {
		size_t pos = P->tok.pos;
		if ((rc = as_test(P, a, &a)) != BAG_OK || (rc = bag_grow((void **)&v, &cap, n + 1, sizeof *v)) != BAG_OK)
			goto done;
		v[n++] = (struct link){ a, pos };
		if ((rc = lex(P)) != BAG_OK || (rc = term(P, &a)) != BAG_OK || (rc = as_test(P, a, &a)) != BAG_OK)
			goto done;
	}
	for (size_t k = n; k-- > 0;) {
		uint16_t tail = P->e->nodes[a].depth;
		if ((rc = add_node(P, op, v[k].pos, v[k].node, a, &a)) != BAG_OK)
			goto done;
		if (k + 1 < n)   /* a link of the chain: as deep as its deepest term, plus one */
			P->e->nodes[a].depth = P->e->nodes[v[k].node].depth + 1 > tail ? P->e->nodes[v[k].node].depth + 1 : tail;
	}
	*out = a;
done:
	free(v);
	return rc;
}

static int parse_and(struct parser *P, uint32_t *out)
{
	return parse_chain(P, T_AND, N_AND, parse_not, out);
}

static int parse_or(struct parser *P, uint32_t *out)
{
	return parse_chain(P, T_OR, N_OR, parse_and, out);
}

static int parse(bag_expr_t **out, const char *text, size_t len, bool is_filter)
{
	struct parser P = { .s = text, .len = len };
	bag_expr_t *e;
	uint32_t root;
	int rc;

	*out = e = calloc(1, sizeof *e);
	if (e == NULL)
		return BAG_ENOMEM;
	P.e = e;
	e->is_filter = is_filter;
	e->root = EXPR_NONE;
	if (len > UINT32_MAX / 2) {
		rc = perr(&P, 0, "expression too long");
		goto fail;
	}
	P.tok.kind = T_END;
	if ((rc = lex(&P)) != BAG_OK || (rc = parse_or(&P, &root)) != BAG_OK)
		goto fail;
	if (P.tok.kind == T_RP) {
		rc = perr(&P, P.tok.pos, "unmatched ')'");
		goto fail;
	}
	if (P.tok.kind != T_END) {
		rc = perr(&P, P.tok.pos, "unexpected '%.*s'", (int)(P.tok.end - P.tok.pos), text + P.tok.pos);
		goto fail;
	}
	if (is_filter && (rc = as_test(&P, root, &root)) != BAG_OK)
		goto fail;
	if (P.npending > 0) {
		rc = perr(&P, e->nodes[P.pending[0]].pos, "[*] is only allowed inside a comparison");
		goto fail;
	}
	e->root = root;
	bag_error_clear(&e->err);
fail:
	if (rc == BAG_ENOMEM)
		bag_error_set(&e->err, rc, NULL, BAG_NO_OFFSET, "out of memory");
	return rc;
}

BAG_API int bag_expr_parse(bag_expr_t **out, const char *text, size_t len)
{
	return parse(out, text, len, true);
}

BAG_API int bag_expr_parse_value(bag_expr_t **out, const char *text, size_t len)
{
	return parse(out, text, len, false);
}

BAG_API void bag_expr_free(bag_expr_t *e)
{
	if (e == NULL)
		return;
	for (size_t i = 0; i < e->nregexes; i++)
		regfree(&e->regexes[i]);
	free(e->regexes);
	free(e->nodes);
	free(e->comps);
	free(e->strs);
	free(e);
}

BAG_API const struct bag_error *bag_expr_error(const bag_expr_t *e)
{
	return e != NULL ? &e->err : &bag_error_nomem;
}

BAG_API size_t bag_expr_topic_prefix(const char *mpath, const char *const *topics, size_t n)
{
	size_t best = 0;

	for (size_t i = 0; i < n; i++) {
		size_t k = strlen(topics[i]);
		if (k > best && strncmp(mpath, topics[i], k) == 0 &&
		    (mpath[k] == '\0' || mpath[k] == '.' || mpath[k] == '['))
			best = k;
	}
	return best;
}

BAG_API void bag_expr_set_tf(bag_expr_t *e, bag_expr_tf_fn fn, const void *ctx)
{
	e->tf_fn = fn;
	e->tf_ctx = ctx;
}

BAG_API bool bag_expr_is_tf_path(const char *text)
{
	while (*text == ' ' || *text == '\t')
		text++;
	if (strncmp(text, "tf", 2) != 0)
		return false;
	for (text += 2; *text == ' ' || *text == '\t'; text++)
		;
	return *text == '(';
}
