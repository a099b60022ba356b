/*
 * termtext.c - escaping text for a terminal (the scheme is in termtext.h).
 * Clean runs are copied as they are; the text is walked once, a UTF-8
 * sequence at a time, and only well-formed sequences of U+00A0 and above
 * pass through besides printable ASCII, less the bidirectional controls.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/termtext.h"

/* Length of the well-formed UTF-8 sequence at s (n > 0 bytes left), or 0. */
static size_t utf8_len(const uint8_t *s, size_t n)
{
	uint8_t lo = 0x80, hi = 0xBF;
	size_t need;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] <= 0xDF) {
		need = 1;
	} else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
		need = 2;
		lo = s[0] == 0xE0 ? 0xA0 : 0x80;
		hi = s[0] == 0xED ? 0x9F : 0xBF;
	} else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
		need = 3;
		lo = s[0] == 0xF0 ? 0x90 : 0x80;
		hi = s[0] == 0xF4 ? 0x8F : 0xBF;
	} else {
		return 0;
	}
	for (size_t i = 1; i <= need; i++) {
		if (i >= n || s[i] < lo || s[i] > hi)
			return 0;
		lo = 0x80;
		hi = 0xBF;
	}
	return need + 1;
}

/*
 * The code point of a bidirectional control at s (n bytes left; U+061C,
 * U+200E, U+200F, U+202A..U+202E, U+2066..U+2069), or 0. They reorder
 * what a terminal shows after them, so a name could show as another.
 */
static unsigned bidi_control(const uint8_t *s, size_t n)
{
	if (n >= 2 && s[0] == 0xD8 && s[1] == 0x9C)
		return 0x061C;
	if (n < 3 || s[0] != 0xE2)
		return 0;
	if (s[1] == 0x80 && (s[2] == 0x8E || s[2] == 0x8F || (s[2] >= 0xAA && s[2] <= 0xAE)))
		return 0x2000u + (s[2] - 0x80u);
	if (s[1] == 0x81 && s[2] >= 0xA6 && s[2] <= 0xA9)
		return 0x2040u + (s[2] - 0x80u);
	return 0;
}

/* How many bytes at s pass as they are (0: s[0] starts something to escape). */
static size_t clean_len(const uint8_t *s, size_t n)
{
	size_t k;

	if (s[0] >= 0x20 && s[0] < 0x7F)
		return 1;
	if (s[0] < 0x80)
		return 0;
	k = utf8_len(s, n);
	/* U+0080..U+009F, the C1 controls, are C2 80..C2 9F */
	if (k == 2 && s[0] == 0xC2 && s[1] < 0xA0)
		return 0;
	return bidi_control(s, n) ? 0 : k;
}

bool term_clean(const char *str, size_t len)
{
	const uint8_t *s = (const uint8_t *)str;

	for (size_t i = 0; i < len;) {
		size_t k = clean_len(s + i, len - i);
		if (k == 0)
			return false;
		i += k;
	}
	return true;
}

void term_escape(struct bag_text *t, const char *str, size_t len)
{
	static const char named[0x20] = {
		['\a'] = 'a', ['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n',
		['\v'] = 'v', ['\f'] = 'f', ['\r'] = 'r', [0x1B] = 'e',
	};
	static const char hex[] = "0123456789abcdef";
	const uint8_t *s = (const uint8_t *)str;
	size_t i = 0, run = 0;

	while (i < len) {
		size_t k = clean_len(s + i, len - i);
		char esc[8];
		size_t n;
		if (k > 0) {
			i += k;
			continue;
		}
		bag_text_append(t, str + run, i - run);
		if (s[i] < 0x20 && named[s[i]]) {
			esc[0] = '\\';
			esc[1] = named[s[i]];
			n = 2;
			i++;
		} else if (bidi_control(s + i, len - i)) {
			unsigned cp = bidi_control(s + i, len - i);
			n = (size_t)snprintf(esc, sizeof esc, "\\u%04x", cp);
			i += cp < 0x800 ? 2 : 3;
		} else if (s[i] == 0xC2 && utf8_len(s + i, len - i) == 2) {
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[s[i + 1] >> 4];
			esc[5] = hex[s[i + 1] & 15];
			n = 6;
			i += 2;
		} else {
			esc[0] = '\\';
			esc[1] = 'x';
			esc[2] = hex[s[i] >> 4];
			esc[3] = hex[s[i] & 15];
			n = 4;
			i++;
		}
		bag_text_append(t, esc, n);
		run = i;
	}
	bag_text_append(t, str + run, i - run);
}

/* DEL, or the lead byte of a C1 control (JSON text is well-formed UTF-8). */
static bool json_raw_control(const uint8_t *s, size_t n)
{
	return s[0] == 0x7F || (s[0] == 0xC2 && n > 1 && s[1] >= 0x80 && s[1] < 0xA0);
}

/* What json_raw_control() finds, or a bidirectional control. */
static bool json_escapes(const uint8_t *s, size_t n)
{
	return json_raw_control(s, n) || bidi_control(s, n) != 0;
}

bool term_json_clean(const char *str, size_t len)
{
	static const uint8_t leads[] = { 0xC2, 0xD8, 0xE2 };
	bool clean = memchr(str, 0x7F, len) == NULL;

	/* memchr is fast, and most text has none of these bytes */
	for (size_t k = 0; clean && k < sizeof leads; k++) {
		const char *p = str, *end = str + len;
		while (clean && (p = memchr(p, leads[k], (size_t)(end - p))) != NULL) {
			clean = !json_escapes((const uint8_t *)p, (size_t)(end - p));
			p++;
		}
	}
	return clean;
}

void term_json(struct bag_text *t, const char *str, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const uint8_t *s = (const uint8_t *)str;
	size_t run = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned cp = bidi_control(s + i, len - i);
		if (cp == 0 && !json_raw_control(s + i, len - i))
			continue;
		cp = cp ? cp : s[i] == 0x7F ? 0x7F : s[i + 1];
		char esc[6] = { '\\', 'u', hex[cp >> 12], hex[(cp >> 8) & 15], hex[(cp >> 4) & 15], hex[cp & 15] };
		bag_text_append(t, str + run, i - run);
		bag_text_append(t, esc, sizeof esc);
		i += s[i] == 0x7F ? 0 : cp < 0x800 ? 1 : 2;
		run = i + 1;
	}
	bag_text_append(t, str + run, len - run);
}

/* Code points in s[0..len). */
static int cps(const char *s, size_t len)
{
	int n = 0;

	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xC0) != 0x80;
	return n;
}

/* The bytes of s's first n code points. */
static size_t cp_bytes(const char *s, int n)
{
	size_t i = 0;

	for (; s[i] != '\0'; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80 && n-- == 0)
			break;
	return i;
}

void term_cut_type(const char *s, int w, char *out, size_t cap)
{
	const char *slash = strrchr(s, '/'), *name = slash ? slash + 1 : s;
	int nn = cps(name, strlen(name));

	if (cap == 0)
		return;
	if (cps(s, strlen(s)) <= w || w < 1) {
		snprintf(out, cap, "%s", w < 1 ? "" : s);
		return;
	}
	if (slash != NULL && nn + 2 <= w)
		snprintf(out, cap, "%.*s\xE2\x80\xA6/%s", (int)cp_bytes(s, w - nn - 2), s, name);
	else if (slash != NULL && nn + 1 <= w)
		snprintf(out, cap, "\xE2\x80\xA6%s", name);
	else
		snprintf(out, cap, "%.*s\xE2\x80\xA6", (int)cp_bytes(name, w - 1), name);
}

void term_cut_tail(const char *s, int w, char *out, size_t cap)
{
	int n = cps(s, strlen(s));

	if (n <= w || w < 1) {
		snprintf(out, cap, "%s", w < 1 ? "" : s);
		return;
	}
	snprintf(out, cap, "\xE2\x80\xA6%s", s + cp_bytes(s, n - w + 1));
}

void term_cut_middle(const char *s, int w, char *out, size_t cap)
{
	int n = cps(s, strlen(s)), head = (w - 1) / 3;

	if (n <= w || w < 1) {
		snprintf(out, cap, "%s", w < 1 ? "" : s);
		return;
	}
	snprintf(out, cap, "%.*s\xE2\x80\xA6%s", (int)cp_bytes(s, head), s, s + cp_bytes(s, n - (w - 1 - head)));
}

const char *term_str(struct term_scratch *sc, const char *s)
{
	struct bag_text *t;
	size_t len = strlen(s);

	if (term_clean(s, len))
		return s;
	t = &sc->slot[sc->next];
	sc->next = (sc->next + 1) % TERM_SCRATCH;
	t->len = 0;
	t->failed = false;
	term_escape(t, s, len);
	/* an empty append leaves p unset; t->len > 0 here unless allocation failed */
	return t->failed || t->p == NULL ? "(out of memory)" : t->p;
}

void term_scratch_free(struct term_scratch *sc)
{
	for (unsigned i = 0; i < TERM_SCRATCH; i++)
		bag_text_free(&sc->slot[i]);
	sc->next = 0;
}

void term_verror(const char *fmt, va_list ap)
{
	struct bag_text t = { 0 };
	char *msg = NULL;

	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	bag_text_append(&t, "bagscope: ", 10);
	if (msg != NULL)
		term_escape(&t, msg, strlen(msg));
	bag_text_append(&t, "\n", 1);
	if (msg == NULL || t.failed)
		fputs("bagscope: out of memory\n", stderr);
	else
		fwrite(t.p, 1, t.len, stderr);
	bag_text_free(&t);
	free(msg);
}

void term_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	term_verror(fmt, ap);
	va_end(ap);
}
