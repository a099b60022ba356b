/*
 * text.c - the growable text buffer every printer appends to, and the
 * formatting it shares: integers, doubles as Python's repr (never the
 * locale's decimal point), JSON strings with invalid UTF-8 replaced; and
 * print_run(), which drives the decoder with a printer's visitor.
 */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/print.h>
#include "lib/common/util-int.h"
#include "lib/out/print-int.h"

BAG_API void bag_text_free(struct bag_text *t)
{
	free(t->p);
	memset(t, 0, sizeof *t);
}

bool text_reserve(struct bag_text *t, size_t more)
{
	size_t cap = t->cap ? t->cap : 256;
	char *p;

	if (t->failed)
		return false;
	if (t->len + more + 1 <= t->cap)
		return true;
	while (cap < t->len + more + 1)
		cap *= 2;
	p = realloc(t->p, cap);
	if (p == NULL) {
		t->failed = true;
		return false;
	}
	t->p = p;
	t->cap = cap;
	return true;
}

BAG_API void bag_text_append(struct bag_text *t, const char *s, size_t len)
{
	if (!text_reserve(t, len))
		return;
	memcpy(t->p + t->len, s, len);
	t->len += len;
	t->p[t->len] = '\0';
}

void text_char(struct bag_text *t, char c)
{
	if (t->len + 2 <= t->cap) {
		t->p[t->len++] = c;
		t->p[t->len] = '\0';
		return;
	}
	bag_text_append(t, &c, 1);
}

void text_str(struct bag_text *t, const char *s)
{
	bag_text_append(t, s, strlen(s));
}

BAG_API void bag_text_printf(struct bag_text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !text_reserve(t, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(t->p + t->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

void text_i64(struct bag_text *t, int64_t v)
{
	char buf[24], *p = buf + sizeof buf;
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	do
		*--p = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		*--p = '-';
	bag_text_append(t, p, (size_t)(buf + sizeof buf - p));
}

void text_u64(struct bag_text *t, uint64_t u)
{
	char buf[24], *p = buf + sizeof buf;

	do
		*--p = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	bag_text_append(t, p, (size_t)(buf + sizeof buf - p));
}

BAG_API void bag_text_seconds(struct bag_text *t, int64_t secs, int64_t nsecs)
{
	/* |secs| < 2^32 and |nsecs| < 2^32 as stored, so the sum fits in 63 bits */
	int64_t ns = secs * 1000000000 + nsecs;
	uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

	bag_text_printf(t, "%s%llu.%09llu", ns < 0 ? "-" : "", (unsigned long long)(mag / 1000000000u),
	                (unsigned long long)(mag % 1000000000u));
}

/* "D[.DDD]e-XX" (the exponent in two digits at least); its length. */
static size_t sci_layout(char *out, const char *digits, int ndig, int exp10)
{
	size_t n = 0;
	int x = abs(exp10);

	out[n++] = digits[0];
	if (ndig > 1) {
		out[n++] = '.';
		memcpy(out + n, digits + 1, (size_t)ndig - 1);
		n += (size_t)ndig - 1;
	}
	out[n++] = 'e';
	out[n++] = exp10 < 0 ? '-' : '+';
	if (x >= 100)
		out[n++] = (char)('0' + x / 100);
	out[n++] = (char)('0' + x / 10 % 10);
	out[n++] = (char)('0' + x % 10);
	return n;
}

/*
 * Python's float repr: the shortest digits that read back, closest to d
 * among those (shortest.c), laid out fixed when the decimal exponent is in
 * [-4, 16) ("0.0001", "1000000000000000.0") and as "1e+16", "1.5e-05"
 * otherwise; never the locale's decimal point.
 */
size_t text_repr(char out[32], double d)
{
	char digits[20];
	int exp10, ndig;
	size_t n = 0;

	if (isnan(d))
		return (size_t)snprintf(out, 32, "nan");
	if (isinf(d))
		return (size_t)snprintf(out, 32, d < 0 ? "-inf" : "inf");
	if (signbit(d))
		out[n++] = '-';
	if (fabs(d) < 1e16 && d == (double)(int64_t)d) {
		char buf[24], *p = buf + sizeof buf;
		uint64_t u = (uint64_t)fabs(d);
		do
			*--p = (char)('0' + u % 10);
		while ((u /= 10) != 0);
		memcpy(out + n, p, (size_t)(buf + sizeof buf - p));
		n += (size_t)(buf + sizeof buf - p);
		memcpy(out + n, ".0", 2);
		return n + 2;
	}
	ndig = shortest_digits(d, digits, &exp10);
	if (exp10 < -4 || exp10 >= 16)
		return n + sci_layout(out + n, digits, ndig, exp10);
	if (exp10 < 0) {
		out[n++] = '0';
		out[n++] = '.';
		for (int i = -1; i > exp10; i--)
			out[n++] = '0';
		memcpy(out + n, digits, (size_t)ndig);
		return n + (size_t)ndig;
	}
	for (int i = 0; i <= exp10 || i < ndig; i++) {
		if (i == exp10 + 1)
			out[n++] = '.';
		out[n++] = i < ndig ? digits[i] : '0';
	}
	if (ndig <= exp10 + 1) {
		out[n++] = '.';
		out[n++] = '0';
	}
	return n;
}

BAG_API void bag_text_double(struct bag_text *t, double d)
{
	char out[32];

	bag_text_append(t, out, text_repr(out, d));
}

/* Length of the well-formed UTF-8 sequence at s (n bytes left), or of its
 * maximal invalid prefix negated (at least 1). */
int utf8_seq(const uint8_t *s, size_t n)
{
	uint8_t c = s[0];
	int need;
	uint8_t lo = 0x80, hi = 0xBF;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		need = 1;
	else if (c >= 0xE0 && c <= 0xEF) {
		need = 2;
		if (c == 0xE0)
			lo = 0xA0;
		if (c == 0xED)
			hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		need = 3;
		if (c == 0xF0)
			lo = 0x90;
		if (c == 0xF4)
			hi = 0x8F;
	} else
		return -1;
	for (int i = 1; i <= need; i++) {
		if ((size_t)i >= n || s[i] < lo || s[i] > hi)
			return -i;
		lo = 0x80;
		hi = 0xBF;
	}
	return need + 1;
}

BAG_API void bag_text_json_string(struct bag_text *t, const char *str, size_t len)
{
	const uint8_t *s = (const uint8_t *)str;
	size_t i = 0, run = 0;

	text_char(t, '"');
	while (i < len) {
		uint8_t c = s[i];
		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			i++;
			continue;
		}
		bag_text_append(t, str + run, i - run);
		if (c == '"' || c == '\\') {
			char esc[2] = { '\\', (char)c };
			bag_text_append(t, esc, 2);
			i++;
		} else if (c < 0x20) {
			static const char *const short_esc[32] = {
				['\b'] = "\\b", ['\f'] = "\\f", ['\n'] = "\\n", ['\r'] = "\\r", ['\t'] = "\\t",
			};
			if (short_esc[c])
				text_str(t, short_esc[c]);
			else
				bag_text_printf(t, "\\u%04x", c);
			i++;
		} else {
			int n = utf8_seq(s + i, len - i);
			if (n > 0) {
				bag_text_append(t, str + i, (size_t)n);
				i += (size_t)n;
			} else {
				text_str(t, "\xEF\xBF\xBD");
				i += (size_t)-n;
			}
		}
		run = i;
	}
	bag_text_append(t, str + run, i - run);
	text_char(t, '"');
}


/* Run the decoder with a visitor; map a failed buffer to BAG_ENOMEM. */
int print_run(struct bag_text *t, const bag_msgdef_t *def, const uint8_t *data, size_t len,
               const struct bag_visitor *vis, void *ud, struct bag_error *err)
{
	int rc = bag_decode(def, data, len, vis, ud, NULL, err);

	if (rc == BAG_OK && t->failed) {
		rc = bag_error_say(err, BAG_ENOMEM, "out of memory");
	}
	return rc;
}
