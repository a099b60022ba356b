/*
 * match.h - what a search pattern matches, curses-free and shared by the
 * search workers and the drawing of highlights.
 *
 * Smart case: a pattern with no upper-case letter matches regardless of
 * case. A pattern holding a regex character (. * + ? [ ] ( ) { } | ^ $ \)
 * is a POSIX extended regex; any other is a plain string, and so is a
 * number ("3.14", "-1.5e-07": digits, one '.', "-+e"), whose '.' is meant
 * as itself.
 *
 * For speed the search first asks whether a message can match at all
 * (match_needs_text): a plain pattern with no '"', '\' or byte >= 0x80
 * that holds a character the connection's display cannot produce outside
 * string values (field and type names, numbers, punctuation) can only
 * match inside a string value, and then the message's bytes hold it too.
 */
#ifndef BAGSCOPE_TUI_MATCH_H
#define BAGSCOPE_TUI_MATCH_H

#include <pthread.h>
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <bagscope/msgdef.h>

struct matcher {
	char pat[256];       /* the pattern as typed */
	size_t len;
	bool icase;          /* smart case: no upper-case letter in it */
	bool regex;          /* a regex character in it */
	bool compiled;       /* re holds it (regex only) */
	regex_t re;          /* for the thread that made the matcher; others compile their own */
	pthread_t owner;
	uint64_t id;         /* which matcher a thread's own copy of re is of */
	char fold[256];      /* plain: the pattern, lower-cased when icase */
	const char *err;     /* why the regex does not compile, or NULL */
	char errbuf[128];
};

/* Set m up for pattern (truncated to 255 bytes). Returns 0, or -1 with m->err set. */
int match_init(struct matcher *m, const char *pattern);
void match_free(struct matcher *m);

/*
 * The first match in s[0..len): true with [*start, *end) set. Safe on
 * several threads: glibc's regexec locks its regex_t, so each thread but
 * the matcher's own runs a copy compiled on its first use (kept per thread
 * until the thread ends or meets another matcher).
 */
bool match_find(const struct matcher *m, const char *s, size_t len, size_t *start, size_t *end);

/*
 * A search's scope: "PATH=~PATTERN", PATH a field path (letters, digits,
 * '_', '.', "[i]"), looks for PATTERN in that field's detail lines only (the
 * field's own line and those under it). Returns PATTERN and copies PATH to
 * path[0..cap); any other text is all pattern (path "").
 */
const char *match_scope(const char *text, char *path, size_t cap);

/* Whether a detail line's field path is scope or under it. */
bool match_in_scope(const char *scope, const char *path);

/*
 * The longest literal every match of the regex holds (outside groups,
 * bracket expressions but those of one byte ("[.]"), and optional parts), in out[0..cap) folded when the
 * case is ignored; its length, 0 when there is none (an alternation at the
 * top, say). A plain pattern is its own literal.
 */
size_t match_literal(const struct matcher *m, char *out, size_t cap);

/*
 * Whether a message of a connection whose definition is def (NULL: did not
 * parse) can match only where its bytes contain the pattern: false means
 * "skip the message when match_in_bytes() says no".
 */
bool match_needs_text(const struct matcher *m, const bag_msgdef_t *def);

/*
 * Whether def has a string field anywhere (or does not parse). A message
 * without strings can match only where match_needs_text() says so.
 */
bool match_has_strings(const bag_msgdef_t *def);

/*
 * Whether a plain pattern (no '"', '\\', control or non-ASCII byte: a
 * string's text shows such bytes as they are) can show only inside a
 * string value's text: a run of its letters is in no name of def (types,
 * fields, field types) and no word of the layout ("True", "nan", "more",
 * ...), and the letters of the text outside strings come in runs from
 * those alone. Then a message shows it only where its bytes hold it.
 */
bool match_string_only(const struct matcher *m, const bag_msgdef_t *def);

/* A plain matcher for lit[0..n), already folded when icase (a regex's match_literal()). */
void match_init_literal(struct matcher *m, const char *lit, size_t n, bool icase);

/* Whether data[0..len) holds the plain pattern (case folded when icase). */
bool match_in_bytes(const struct matcher *m, const uint8_t *data, size_t len);

#endif
