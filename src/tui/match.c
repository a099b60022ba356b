/*
 * match.c - search patterns (see match.h). A plain pattern is kept folded to
 * lower case when the search ignores case; finding it folds the text one
 * byte at a time (ASCII only: bytes >= 0x80 compare as they are).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "tui/match.h"

static unsigned char lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

int match_init(struct matcher *m, const char *pattern)
{
	memset(m, 0, sizeof *m);
	snprintf(m->pat, sizeof m->pat, "%s", pattern);
	m->len = strlen(m->pat);
	m->icase = true;
	for (size_t i = 0; i < m->len; i++) {
		if (isupper((unsigned char)m->pat[i]))
			m->icase = false;
		if (strchr(".*+?[](){}|^$\\", m->pat[i]) != NULL)
			m->regex = true;
	}
	for (size_t i = 0; i <= m->len; i++)
		m->fold[i] = m->icase ? (char)lower((unsigned char)m->pat[i]) : m->pat[i];
	if (m->regex) {
		int rc = regcomp(&m->re, m->pat, REG_EXTENDED | (m->icase ? REG_ICASE : 0));
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

/* The plain pattern in s[0..len), folding s when icase. */
static const char *find_plain(const struct matcher *m, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *endp = p + len;
	unsigned char c0 = (unsigned char)m->fold[0];

	if (m->len == 0)
		return s;
	if (len < m->len)
		return NULL;
	if (!m->icase || !isalpha(c0))
		for (const unsigned char *q = p; (q = memchr(q, c0, (size_t)(endp - q))) != NULL && (size_t)(endp - q) >= m->len; q++) {
			if (!m->icase && memcmp(q, m->fold, m->len) == 0)
				return (const char *)q;
			if (m->icase) {
				size_t i = 1;
				while (i < m->len && lower(q[i]) == (unsigned char)m->fold[i])
					i++;
				if (i == m->len)
					return (const char *)q;
			}
		}
	else
		for (const unsigned char *q = p; (size_t)(endp - q) >= m->len; q++) {
			if (lower(*q) != c0)
				continue;
			size_t i = 1;
			while (i < m->len && lower(q[i]) == (unsigned char)m->fold[i])
				i++;
			if (i == m->len)
				return (const char *)q;
		}
	return NULL;
}

bool match_find(const struct matcher *m, const char *s, size_t len, size_t *start, size_t *end)
{
	if (m->regex) {
		regmatch_t rm[1] = { { 0, (regoff_t)len } };
		if (!m->compiled || regexec(&m->re, s, 1, rm, REG_STARTEND) != 0)
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
			add_chars(set, ty->fields[f].name, m->icase);
			add_chars(set, ty->fields[f].type_name, m->icase);
			add_chars(set, bag_prim_name(ty->fields[f].prim), m->icase);
		}
	}
	for (size_t i = 0; i < m->len; i++)
		if (!set[(unsigned char)m->fold[i]])
			return false;
	return true;
}
