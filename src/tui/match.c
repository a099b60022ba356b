/*
 * match.c - search patterns (see match.h). A plain pattern is kept folded to
 * lower case when the search ignores case; finding it folds the text one
 * byte at a time (ASCII only: bytes >= 0x80 compare as they are).
 */
#include <ctype.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/match.h"

static unsigned char lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

static _Atomic uint64_t matcher_ids;

/* A thread's own compiled copy of one matcher's regex. */
struct re_copy {
	uint64_t id;
	bool ok;
	regex_t re;
};

static pthread_key_t re_key;
static pthread_once_t re_once = PTHREAD_ONCE_INIT;

static void re_copy_free(void *arg)
{
	struct re_copy *c = arg;

	if (c->ok)
		regfree(&c->re);
	free(c);
}

static void re_key_make(void)
{
	pthread_key_create(&re_key, re_copy_free);
}

static int re_flags(const struct matcher *m)
{
	return REG_EXTENDED | (m->icase ? REG_ICASE : 0);
}

/* The regex to run on this thread (NULL: it does not compile here). */
static const regex_t *thread_re(const struct matcher *m)
{
	struct re_copy *c;

	if (pthread_equal(pthread_self(), m->owner))
		return &m->re;
	pthread_once(&re_once, re_key_make);
	if ((c = pthread_getspecific(re_key)) == NULL) {
		if ((c = calloc(1, sizeof *c)) == NULL || pthread_setspecific(re_key, c) != 0) {
			free(c);
			return NULL;
		}
	}
	if (c->id != m->id) {
		if (c->ok)
			regfree(&c->re);
		c->ok = regcomp(&c->re, m->pat, re_flags(m)) == 0;
		c->id = m->id;
	}
	return c->ok ? &c->re : NULL;
}

/* A number as floats show ("3.14", "-0.5", "1.5e-07"): digits, one '.', and only "-+e" besides. */
static bool number_shaped(const char *s)
{
	return strspn(s, "0123456789.-+e") == strlen(s) && strpbrk(s, "0123456789") != NULL &&
	       strchr(s, '.') == strrchr(s, '.');
}

int match_init(struct matcher *m, const char *pattern)
{
	memset(m, 0, sizeof *m);
	m->owner = pthread_self();
	m->id = ++matcher_ids;
	snprintf(m->pat, sizeof m->pat, "%s", pattern);
	m->len = strlen(m->pat);
	m->icase = true;
	for (size_t i = 0; i < m->len; i++) {
		if (isupper((unsigned char)m->pat[i]))
			m->icase = false;
		if (strchr(".*+?[](){}|^$\\", m->pat[i]) != NULL)
			m->regex = true;
	}
	if (m->regex && number_shaped(m->pat))
		m->regex = false;
	for (size_t i = 0; i <= m->len; i++)
		m->fold[i] = m->icase ? (char)lower((unsigned char)m->pat[i]) : m->pat[i];
	if (m->regex) {
		int rc = regcomp(&m->re, m->pat, re_flags(m));
		if (rc != 0) {
			regerror(rc, &m->re, m->errbuf, sizeof m->errbuf);
			m->err = m->errbuf;
			return -1;
		}
		m->compiled = true;
	}
	return 0;
}

void match_free(struct matcher *m)
{
	if (m->compiled)
		regfree(&m->re);
	m->compiled = false;
}

/* Whether the pattern is at q (folding q when icase). */
static bool at_q(const struct matcher *m, const unsigned char *q)
{
	if (!m->icase)
		return memcmp(q, m->fold, m->len) == 0;
	for (size_t i = 0; i < m->len; i++)
		if (lower(q[i]) != (unsigned char)m->fold[i])
			return false;
	return true;
}

/*
 * The first byte in [q, last] that folds to the lower-case letter c, or
 * NULL: eight bytes at a time, a byte ORed with 0x20 equals c only when it
 * is c in either case (the zero-byte test has no false negatives; the
 * bytes of a word that has a hit are then looked at one by one).
 */
static const unsigned char *find_folded(const unsigned char *q, const unsigned char *last, unsigned char c)
{
	const uint64_t ones = 0x0101010101010101ULL, want = ones * c;

	for (; last - q >= 7; q += 8) {
		uint64_t v, t;
		memcpy(&v, q, sizeof v);
		t = (v | ones * 0x20) ^ want;
		if (((t - ones) & ~t & ones * 0x80) != 0)
			break;
	}
	for (; q <= last; q++)
		if ((*q | 0x20) == c)
			return q;
	return NULL;
}

/*
 * The plain pattern in s[0..len), folding s when icase. memchr looks for
 * an anchor: the first byte, or when the case is ignored, the first byte
 * of the pattern that is no letter (it folds to itself); a pattern of
 * letters only is anchored on its rarest letter, in either case.
 */
static const char *find_plain(const struct matcher *m, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *endp = p + len;
	size_t k = 0;

	if (m->len == 0)
		return s;
	if (len < m->len)
		return NULL;
	if (m->icase)   /* folded: the letters are 'a'..'z'; any other byte folds to itself */
		while (k < m->len && m->fold[k] >= 'a' && m->fold[k] <= 'z')
			k++;
	if (k < m->len) {
		unsigned char c = (unsigned char)m->fold[k];
		const unsigned char *last = endp - (m->len - k);   /* the anchor's last place */
		for (const unsigned char *q = p + k; q <= last && (q = memchr(q, c, (size_t)(last - q) + 1)) != NULL; q++)
			if (at_q(m, q - k))
				return (const char *)(q - k);
		return NULL;
	}
	/* letters only: the rarest (in English text) is the anchor, found in either case 8 bytes at a time */
	const char *r = "zqxjkvbpygfwmucldrhsnioate";
	while (r[1] != '\0' && memchr(m->fold, *r, m->len) == NULL)
		r++;
	k = (size_t)((const char *)memchr(m->fold, *r, m->len) - m->fold);
	const unsigned char *last = endp - (m->len - k);
	for (const unsigned char *q = p + k; q <= last && (q = find_folded(q, last, (unsigned char)*r)) != NULL; q++)
		if (at_q(m, q - k))
			return (const char *)(q - k);
	return NULL;
}

bool match_find(const struct matcher *m, const char *s, size_t len, size_t *start, size_t *end)
{
	if (m->regex) {
		regmatch_t rm[1] = { { 0, (regoff_t)len } };
		const regex_t *re = m->compiled ? thread_re(m) : NULL;
		if (re == NULL || regexec(re, s, 1, rm, REG_STARTEND) != 0)
			return false;
		*start = (size_t)rm[0].rm_so;
		*end = (size_t)rm[0].rm_eo;
		return true;
	}
	const char *q = find_plain(m, s, len);
	if (q == NULL)
		return false;
	*start = (size_t)(q - s);
	*end = *start + m->len;
	return true;
}

bool match_has_strings(const bag_msgdef_t *def)
{
	if (def == NULL || bag_msgdef_root(def) == NULL)
		return true;
	for (size_t t = 0; t < bag_msgdef_type_count(def); t++) {
		const struct bag_msgdef_type *ty = bag_msgdef_type_at(def, t);
		for (size_t f = 0; f < ty->nfields; f++)
			if (ty->fields[f].prim == BAG_PRIM_STRING)
				return true;
	}
	return false;
}

bool match_in_bytes(const struct matcher *m, const uint8_t *data, size_t len)
{
	return find_plain(m, (const char *)data, len) != NULL;
}

static void add_chars(bool *set, const char *s, bool icase)
{
	for (; *s; s++)
		set[icase ? lower((unsigned char)*s) : (unsigned char)*s] = true;
}

bool match_needs_text(const struct matcher *m, const bag_msgdef_t *def)
{
	bool set[256] = { false };

	if (m->regex || def == NULL || bag_msgdef_root(def) == NULL)
		return true;
	for (size_t i = 0; i < m->len; i++)
		if (m->pat[i] == '"' || m->pat[i] == '\\' || (unsigned char)m->pat[i] >= 0x80)
			return true;
	/*
	 * What the detail and the summary write outside string values: names,
	 * numbers in every form (ints, reprs, YAML's, times), bools, the
	 * punctuation of both layouts and the elision notes.
	 */
	add_chars(set, "0123456789.-+eE:=,{}[]() \"'TrueFalsetruefalsenaninfNaNInf.nan.infmoresecs: nsecs", m->icase);
	for (size_t t = 0; t < bag_msgdef_type_count(def); t++) {
		const struct bag_msgdef_type *ty = bag_msgdef_type_at(def, t);
		add_chars(set, ty->name, m->icase);
		for (size_t f = 0; f < ty->nfields; f++) {
			const struct bag_msgdef_field *fd = &ty->fields[f];
			add_chars(set, fd->name, m->icase);
			/* type names show on the lines of arrays ("ranges: float32[360]") and messages only */
			if (fd->array != BAG_ARRAY_NONE || fd->prim == BAG_PRIM_MESSAGE)
				add_chars(set, fd->type_name, m->icase);
		}
	}
	for (size_t i = 0; i < m->len; i++)
		if (!set[(unsigned char)m->fold[i]])
			return false;
	return true;
}

/* Whether the folded run r[0..n) is inside s (folded when icase). */
static bool run_in(const char *r, size_t n, const char *s, bool icase)
{
	for (size_t l = strlen(s); l >= n; s++, l--) {
		size_t i = 0;
		while (i < n && (icase ? lower((unsigned char)s[i]) : (unsigned char)s[i]) == (unsigned char)r[i])
			i++;
		if (i == n)
			return true;
	}
	return false;
}

/* Whether a run of letters can come from the text outside string values: a name's, or a word's. */
static bool run_outside_strings(const char *r, size_t n, const bag_msgdef_t *def, bool icase)
{
	static const char *const words[] = { "True", "False", "true", "false", "nan", "inf", "more", "secs", "nsecs" };

	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		if (run_in(r, n, words[i], icase))
			return true;
	for (size_t t = 0; t < bag_msgdef_type_count(def); t++) {
		const struct bag_msgdef_type *ty = bag_msgdef_type_at(def, t);
		if (run_in(r, n, ty->name, icase))
			return true;
		for (size_t f = 0; f < ty->nfields; f++)
			if (run_in(r, n, ty->fields[f].name, icase) || run_in(r, n, ty->fields[f].type_name, icase))
				return true;
		for (size_t k = 0; k < ty->nconsts; k++)   /* in case values show their constants' names */
			if (run_in(r, n, ty->consts[k].name, icase))
				return true;
	}
	return false;
}

bool match_string_only(const struct matcher *m, const bag_msgdef_t *def)
{
	if (m->regex || m->len == 0 || def == NULL || bag_msgdef_root(def) == NULL)
		return false;
	for (size_t i = 0; i < m->len; i++) {
		unsigned char c = (unsigned char)m->fold[i];
		if (c == '"' || c == '\\' || c < 0x20 || c >= 0x7f)
			return false;
	}
	for (size_t i = 0; i < m->len;) {
		size_t n = 0;
		while (i + n < m->len && isalpha((unsigned char)m->fold[i + n]))
			n++;
		if (n > 0 && !run_outside_strings(m->fold + i, n, def, m->icase))
			return true;
		i += n > 0 ? n : 1;
	}
	return false;
}

void match_init_literal(struct matcher *m, const char *lit, size_t n, bool icase)
{
	memset(m, 0, sizeof *m);
	n = n < sizeof m->pat - 1 ? n : sizeof m->pat - 1;
	memcpy(m->pat, lit, n);
	memcpy(m->fold, lit, n);
	m->len = n;
	m->icase = icase;
	m->owner = pthread_self();
}

/* Past the bracket expression that starts at p ('['). */
static const char *skip_bracket(const char *p)
{
	p++;
	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	for (; *p && *p != ']'; p++)
		if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			const char *e = strchr(p + 2, ']');
			p = e ? e : p + strlen(p) - 1;
		}
	return *p ? p + 1 : p;
}

/* The current run ends: keep it when it is the longest so far. */
static void run_end(char *run, size_t *n, char *best, size_t *nbest)
{
	if (*n > *nbest) {
		memcpy(best, run, *n);
		*nbest = *n;
	}
	*n = 0;
}

size_t match_literal(const struct matcher *m, char *out, size_t cap)
{
	char run[256];
	size_t n = 0, nbest = 0;
	int depth = 0;

	if (!m->regex) {
		size_t k = m->len < cap ? m->len : cap;
		memcpy(out, m->fold, k);
		return k;
	}
	for (const char *p = m->pat; *p;) {
		unsigned char c = (unsigned char)*p;
		if (c == '|' && depth == 0)
			return 0;
		if (c == '[' && depth == 0 && p[1] != '\0' && !strchr("^[]", p[1]) && (unsigned char)p[1] < 0x80 &&
		    p[2] == ']') {
			if (n < sizeof run && n < cap)   /* "[.]": one byte, as itself */
				run[n++] = m->icase ? (char)lower((unsigned char)p[1]) : p[1];
			p += 3;
			continue;
		}
		if (c == '(' || c == ')' || depth > 0 || c == '[' || c == '.' || c == '^' || c == '$' ||
		    (c == '\\' && (p[1] == '\0' || isalnum((unsigned char)p[1]) || strchr("<>`'", p[1]))) ||
		    (m->icase && c >= 0x80)) {
			depth += c == '(' ? 1 : c == ')' && depth > 0 ? -1 : 0;
			run_end(run, &n, out, &nbest);
			p = c == '[' ? skip_bracket(p) : p + 1 + (c == '\\' && p[1] != '\0');
			continue;
		}
		if (c == '*' || c == '?' || c == '{' || c == '+') {
			if (c != '+' && n > 0)
				n--;   /* the atom before may be absent */
			run_end(run, &n, out, &nbest);
			p = c == '{' && strchr(p, '}') ? strchr(p, '}') + 1 : p + 1;
			continue;
		}
		if (c == '\\')
			c = (unsigned char)*++p;
		if (n < sizeof run && n < cap)
			run[n++] = m->icase ? (char)lower(c) : (char)c;
		p++;
	}
	run_end(run, &n, out, &nbest);
	return nbest;
}

const char *match_scope(const char *text, char *path, size_t cap)
{
	const char *op = strstr(text, "=~");
	size_t n = op ? (size_t)(op - text) : 0;

	path[0] = '\0';
	if (op == NULL || n == 0 || n >= cap || !(isalpha((unsigned char)text[0]) || text[0] == '_'))
		return text;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)text[i]) && strchr("_.[]", text[i]) == NULL)
			return text;
	memcpy(path, text, n);
	path[n] = '\0';
	return op + 2;
}

bool match_in_scope(const char *scope, const char *path)
{
	size_t n = strlen(scope);

	return strncmp(path, scope, n) == 0 && (path[n] == '\0' || path[n] == '.' || path[n] == '[');
}
