/*
 * termtext.h - text from a bag or a path made safe for a terminal, for the
 * CLI and the browser alike. Bag strings (topics, types, caller ids,
 * connection header fields, definitions, string values) and file names can
 * hold bytes a terminal obeys: ESC sequences that retitle the window or clear
 * the screen, C1 controls such as CSI (0x9b), newlines that forge output
 * lines. Every such string passes through term_escape() before it is
 * written to stdout, stderr or the screen; JSON, which escapes its own
 * strings, through term_json().
 *
 * The scheme (bagscope.1, ESCAPED TEXT):
 *   \a \b \t \n \v \f \r \e   those C0 controls
 *   \xNN                      any other C0 control, DEL, and each byte that is
 *                             not part of well-formed UTF-8 (two lower-case
 *                             hex digits)
 *   \u0080 ... \u009f         a C1 control written as UTF-8
 *   \u202e, \u2066, ...       a bidirectional control (U+061C, U+200E,
 *                             U+200F, U+202A..U+202E, U+2066..U+2069)
 * Everything else is kept: printable ASCII (the backslash included), and
 * well-formed UTF-8 from U+00A0 up. The result is printable text only, and
 * escaping it again changes nothing: escaping at the last step is always safe.
 * It is for reading, not a reversible encoding: a literal "\e" in a name looks
 * like an escaped ESC (--format json gives the exact bytes).
 */
#ifndef BAGSCOPE_COMMON_TERMTEXT_H
#define BAGSCOPE_COMMON_TERMTEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <bagscope/print.h>

/* True if s[0..len) needs no escaping (then it is written as it is). */
bool term_clean(const char *s, size_t len);

/* Append s[0..len) to t, escaped. Allocation failure sets t->failed. */
void term_escape(struct bag_text *t, const char *s, size_t len);

/*
 * JSON text s[0..len) as the library's printers write it (control characters
 * below 0x20 escaped, DEL and the C1 controls left raw, as Python's json with
 * ensure_ascii=False does) appended to t with DEL, C1 and the bidirectional
 * controls written as \u007f, \u0080 ... \u009f, \u202e ...: the same JSON
 * value (the text stays exact), nothing a terminal obeys. In JSON
 * text those bytes only occur inside strings. term_json_clean(): nothing to do.
 */
bool term_json_clean(const char *s, size_t len);
void term_json(struct bag_text *t, const char *s, size_t len);

/*
 * Escaped strings for one printf call: term_str() returns s itself when it
 * is clean, else an escaped copy held in one of TERM_SCRATCH slots, reused
 * round-robin: a result lives until TERM_SCRATCH more calls on the same
 * scratch or term_scratch_free(). Zero-initialise; free when done.
 * On allocation failure the result is "(out of memory)".
 */
#define TERM_SCRATCH 8
struct term_scratch {
	struct bag_text slot[TERM_SCRATCH];
	unsigned next;               /* the slot the next escaped copy goes to */
};
const char *term_str(struct term_scratch *sc, const char *s);
void term_scratch_free(struct term_scratch *sc);

/*
 * s (already escaped) in at most w screen columns (a code point = a
 * column) into out: whole when it fits, else cut with "…" (U+2026). A type
 * "pkg/Name" keeps its Name and loses the end of its package first
 * ("diag…/DiagnosticArray", "…/DiagnosticArray", "…DiagnosticArray", then "Diagnost…");
 * anything else keeps its start. Never cut in the middle of a UTF-8 sequence.
 */
void term_cut_type(const char *s, int w, char *out, size_t cap);
/* The same keeping the end ("…toplevel_state"): for topics, whose last names tell them apart. */
void term_cut_tail(const char *s, int w, char *out, size_t cap);
/* The same keeping a third of the start and the rest of the end ("/data/rec…/2020-09-13.bag"): for paths. */
void term_cut_middle(const char *s, int w, char *out, size_t cap);

/*
 * "bagscope: MESSAGE\n" on stderr in one write, the whole formatted message
 * escaped (library messages embed paths and bag strings).
 */
void term_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void term_verror(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif
