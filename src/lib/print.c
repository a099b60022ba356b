/*
 * print.c - printers over the decoder's visitor: JSON, YAML, CSV and a
 * one-line summary, all appending to a struct bag_text.
 *
 * Each printer keeps a small stack, one level per open message or array:
 * whether anything was written in it yet (for separators), whether it is an
 * array (no keys), and for YAML its indentation. Nesting is bounded by the
 * decoder's depth limit.
 */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/print.h>

#define DEPTH (2 * BAG_MSGDEF_MAX_DEPTH + 2)   /* a message and an array per level */

BAG_API void bag_text_free(struct bag_text *t)
{
	free(t->p);
	memset(t, 0, sizeof *t);
}

static bool text_reserve(struct bag_text *t, size_t more)
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

static void text_char(struct bag_text *t, char c)
{
	if (t->len + 2 <= t->cap) {
		t->p[t->len++] = c;
		t->p[t->len] = '\0';
		return;
	}
	bag_text_append(t, &c, 1);
}

static void text_str(struct bag_text *t, const char *s)
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

static void text_i64(struct bag_text *t, int64_t v)
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

static void text_u64(struct bag_text *t, uint64_t u)
{
	char buf[24], *p = buf + sizeof buf;

	do
		*--p = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	bag_text_append(t, p, (size_t)(buf + sizeof buf - p));
}

/*
 * Python's float repr: the shortest digits that read back (the first of
 * %.15e, %.16e, %.17e that does; from %.0e for subnormals, whose shorter
 * precision 15 digits can exceed), laid out fixed when the decimal exponent
 * is in [-4, 16) ("0.0001", "1000000000000000.0") and as "1e+16", "1.5e-05"
 * otherwise. Only the digits and the exponent of %e's text are taken, so the
 * locale's decimal point (printf and strtod agree on it) never shows.
 */
BAG_API void bag_text_double(struct bag_text *t, double d)
{
	char buf[40], digits[20], out[48];
	int exp10, ndig = 0, n = 0;
	const char *p;

	if (isnan(d)) {
		text_str(t, "nan");
		return;
	}
	if (isinf(d)) {
		text_str(t, d < 0 ? "-inf" : "inf");
		return;
	}
	if (fabs(d) < 1e16 && d == (double)(int64_t)d) {
		if (d == 0 && signbit(d))
			text_char(t, '-');
		text_i64(t, (int64_t)d);
		text_str(t, ".0");
		return;
	}
	for (int prec = fabs(d) < DBL_MIN ? 1 : 15; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*e", prec - 1, d);
		if (prec == 17 || strtod(buf, NULL) == d)
			break;
	}
	p = buf;
	if (*p == '-')
		out[n++] = *p++;
	for (; *p != 'e'; p++)
		if (*p >= '0' && *p <= '9')
			digits[ndig++] = *p;
	exp10 = atoi(p + 1);
	while (ndig > 1 && digits[ndig - 1] == '0')
		ndig--;
	if (exp10 >= -4 && exp10 < 16) {
		if (exp10 < 0) {
			out[n++] = '0';
			out[n++] = '.';
			for (int i = -1; i > exp10; i--)
				out[n++] = '0';
			memcpy(out + n, digits, (size_t)ndig);
			n += ndig;
		} else {
			for (int i = 0; i <= exp10 || i < ndig; i++) {
				if (i == exp10 + 1)
					out[n++] = '.';
				out[n++] = i < ndig ? digits[i] : '0';
			}
			if (ndig <= exp10 + 1) {
				out[n++] = '.';
				out[n++] = '0';
			}
		}
	} else {
		out[n++] = digits[0];
		if (ndig > 1) {
			out[n++] = '.';
			memcpy(out + n, digits + 1, (size_t)ndig - 1);
			n += ndig - 1;
		}
		n += snprintf(out + n, sizeof out - (size_t)n, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
	}
	bag_text_append(t, out, (size_t)n);
}

/* Length of the well-formed UTF-8 sequence at s (n bytes left), or of its
 * maximal invalid prefix negated (at least 1). */
static int utf8_seq(const uint8_t *s, size_t n)
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

/* A scalar as JSON. */
static void json_value(struct bag_text *t, const struct bag_value *v)
{
	switch (v->prim) {
	case BAG_PRIM_BOOL: text_str(t, v->v.b ? "true" : "false"); break;
	case BAG_PRIM_INT8: case BAG_PRIM_INT16: case BAG_PRIM_INT32: case BAG_PRIM_INT64:
		text_i64(t, v->v.i);
		break;
	case BAG_PRIM_UINT8: case BAG_PRIM_UINT16: case BAG_PRIM_UINT32: case BAG_PRIM_UINT64:
		text_u64(t, v->v.u);
		break;
	case BAG_PRIM_FLOAT32: case BAG_PRIM_FLOAT64:
		if (isnan(v->v.f) || isinf(v->v.f)) {
			text_char(t, '"');
			bag_text_double(t, v->v.f);
			text_char(t, '"');
		} else {
			bag_text_double(t, v->v.f);
		}
		break;
	case BAG_PRIM_STRING: bag_text_json_string(t, v->v.s.p, v->v.s.len); break;
	case BAG_PRIM_TIME: case BAG_PRIM_DURATION:
		text_str(t, "{\"secs\":");
		text_i64(t, v->v.t.secs);
		text_str(t, ",\"nsecs\":");
		text_u64(t, v->v.t.nsecs);
		text_char(t, '}');
		break;
	default: break;
	}
}

/* ---- JSON ------------------------------------------------------------- */

struct json_state {
	struct bag_text *t;
	int depth;
	bool first[DEPTH];
	bool array[DEPTH];
};

/* Separator and key before an item in the current container. */
static void json_item(struct json_state *s, const struct bag_msgdef_field *f)
{
	if (s->depth == 0)
		return;
	if (!s->first[s->depth])
		text_char(s->t, ',');
	s->first[s->depth] = false;
	if (!s->array[s->depth]) {
		bag_text_json_string(s->t, f->name, strlen(f->name));
		text_char(s->t, ':');
	}
}

static void json_push(struct json_state *s, bool array, char open)
{
	text_char(s->t, open);
	if (s->depth + 1 < DEPTH)
		s->depth++;
	s->first[s->depth] = true;
	s->array[s->depth] = array;
}

static void json_begin_message(void *ud, const struct bag_msgdef_field *f, int64_t index,
                               const struct bag_msgdef_type *type)
{
	struct json_state *s = ud;
	json_item(s, f);
	json_push(s, false, '{');
}

static void json_end(void *ud, const struct bag_msgdef_field *f, int64_t index)
{
	struct json_state *s = ud;
	text_char(s->t, s->array[s->depth] ? ']' : '}');
	s->depth--;
}

static void json_begin_array(void *ud, const struct bag_msgdef_field *f, uint32_t len)
{
	struct json_state *s = ud;
	json_item(s, f);
	json_push(s, true, '[');
}

static void json_end_array(void *ud, const struct bag_msgdef_field *f, uint32_t len)
{
	json_end(ud, f, -1);
}

static void json_scalar(void *ud, const struct bag_msgdef_field *f, int64_t index,
                        const struct bag_value *v)
{
	struct json_state *s = ud;
	json_item(s, f);
	json_value(s->t, v);
}

static const struct bag_visitor json_visitor = {
	json_begin_message, json_end, json_begin_array, json_end_array, json_scalar,
};

/* Run the decoder with a visitor; map a failed buffer to BAG_ENOMEM. */
static int run(struct bag_text *t, const bag_msgdef_t *def, const uint8_t *data, size_t len,
               const struct bag_visitor *vis, void *ud, char *err, size_t errlen)
{
	int rc = bag_decode(def, data, len, vis, ud, NULL, err, errlen);

	if (rc == BAG_OK && t->failed) {
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "out of memory");
		rc = BAG_ENOMEM;
	}
	return rc;
}

BAG_API int bag_print_json(struct bag_text *t, const bag_msgdef_t *def, const uint8_t *data,
                           size_t len, char *err, size_t errlen)
{
	struct json_state s = { .t = t };
	return run(t, def, data, len, &json_visitor, &s, err, errlen);
}

/* ---- YAML (rostopic echo) ------------------------------------------------ */

/*
 * rostopic echo is genpy's strify_message(): fields as "name: value", nested
 * messages and arrays of messages, times and durations indented two more
 * spaces below their name, arrays of numbers and bools inline as Python
 * prints a list, uint8 arrays as lists of integers, char arrays as a Python
 * bytes literal, a message without fields as an empty line. Strings go
 * through PyYAML (6.0, allow_unicode off): a string field is dumped double
 * quoted, an array of strings as a block sequence in the style PyYAML picks.
 * The scalar writers below follow PyYAML's emitter step by step, folding
 * lines past 80 columns as it does; its column and indent do not know about
 * the text genpy puts before them, and neither do ours.
 */

#define YAML_WIDTH 80

/* PyYAML's emitter state while one scalar (or a sequence of them) is written. */
struct yemit {
	struct bag_text *t;
	int column;              /* PyYAML's idea of the column */
	int indent;              /* PyYAML's indent for the scalar */
	int prefix;              /* spaces genpy puts before every following line */
	bool whitespace;         /* the last thing written was white space */
	bool indention;          /* only indentation written on this line so far */
};

static void yaml_pad(struct bag_text *t, int n)
{
	static const char spaces[] = "                                                                ";
	while (n > 0) {
		int k = n < 64 ? n : 64;
		bag_text_append(t, spaces, (size_t)k);
		n -= k;
	}
}

static void ye_write(struct yemit *e, const char *s, size_t n, int columns)
{
	bag_text_append(e->t, s, n);
	e->column += columns;
}

static void ye_line_break(struct yemit *e)
{
	text_char(e->t, '\n');
	yaml_pad(e->t, e->prefix);
	e->column = 0;
	e->whitespace = true;
	e->indention = true;
}

static void ye_indent(struct yemit *e)
{
	if (!e->indention || e->column > e->indent || (e->column == e->indent && !e->whitespace))
		ye_line_break(e);
	if (e->column < e->indent) {
		e->whitespace = true;
		yaml_pad(e->t, e->indent - e->column);
		e->column = e->indent;
	}
}

static void ye_indicator(struct yemit *e, char c, bool need_ws, bool whitespace, bool indention)
{
	if (!e->whitespace && need_ws)
		ye_write(e, " ", 1, 1);
	ye_write(e, &c, 1, 1);
	e->whitespace = whitespace;
	e->indention = e->indention && indention;
}

/* The code point at s (n > 0 bytes left) and its length; U+FFFD for a
 * maximal invalid sequence, as Python's 'replace' decoding gives. */
static int utf8_next(const uint8_t *s, size_t n, uint32_t *cp)
{
	int k = utf8_seq(s, n);

	if (k < 0) {
		*cp = 0xFFFD;
		return -k;
	}
	switch (k) {
	case 1: *cp = s[0]; break;
	case 2: *cp = (uint32_t)(s[0] & 0x1F) << 6 | (s[1] & 0x3F); break;
	case 3: *cp = (uint32_t)(s[0] & 0x0F) << 12 | (uint32_t)(s[1] & 0x3F) << 6 | (s[2] & 0x3F); break;
	default:
		*cp = (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3F) << 12 |
		      (uint32_t)(s[2] & 0x3F) << 6 | (s[3] & 0x3F);
		break;
	}
	return k;
}

static size_t utf8_count(const uint8_t *s, size_t len)
{
	size_t n = 0;
	uint32_t cp;

	for (size_t at = 0; at < len; n++)
		at += (size_t)utf8_next(s + at, len - at, &cp);
	return n;
}

/* PyYAML's escape for a code point in a double-quoted scalar. */
static void ye_escape(struct yemit *e, uint32_t ch)
{
	static const char short_esc[] = { [0] = '0', [7] = 'a', [8] = 'b', [9] = 't', [10] = 'n',
	                                  [11] = 'v', [12] = 'f', [13] = 'r', [27] = 'e' };
	char buf[12];
	int n;

	if ((ch < sizeof short_esc && short_esc[ch]) || ch == '"' || ch == '\\')
		n = snprintf(buf, sizeof buf, "\\%c", ch == '"' || ch == '\\' ? (char)ch : short_esc[ch]);
	else if (ch == 0x85 || ch == 0xA0 || ch == 0x2028 || ch == 0x2029)
		n = snprintf(buf, sizeof buf, "\\%c", ch == 0x85 ? 'N' : ch == 0xA0 ? '_' : ch == 0x2028 ? 'L' : 'P');
	else if (ch <= 0xFF)
		n = snprintf(buf, sizeof buf, "\\x%02X", ch);
	else if (ch <= 0xFFFF)
		n = snprintf(buf, sizeof buf, "\\u%04X", ch);
	else
		n = snprintf(buf, sizeof buf, "\\U%08X", ch);
	ye_write(e, buf, (size_t)n, n);
}

/* PyYAML's write_double_quoted over UTF-8 bytes; start/end count code points. */
static void ye_double(struct yemit *e, const uint8_t *s, size_t len)
{
	size_t n = utf8_count(s, len), start = 0, end = 0, sb = 0, eb = 0;

	ye_indicator(e, '"', true, false, false);
	for (; end <= n; end++) {
		uint32_t ch = 0;
		int clen = 0;
		if (end < n)
			clen = utf8_next(s + eb, len - eb, &ch);
		if (end == n || ch == '"' || ch == '\\' || ch == 0x85 || ch == 0x2028 || ch == 0x2029 ||
		    ch == 0xFEFF || ch < 0x20 || ch > 0x7E) {
			if (start < end) {
				ye_write(e, (const char *)s + sb, eb - sb, (int)(end - start));
				start = end;
				sb = eb;
			}
			if (end < n) {
				ye_escape(e, ch);
				start = end + 1;
				sb = eb + (size_t)clen;
			}
		}
		if (end > 0 && end + 1 < n && (ch == ' ' || start >= end) &&
		    e->column + (int)(end - start) > YAML_WIDTH) {
			if (start < end) {
				ye_write(e, (const char *)s + sb, eb - sb, (int)(end - start));
				start = end;
				sb = eb;
			}
			ye_write(e, "\\", 1, 1);
			ye_indent(e);
			e->whitespace = false;
			e->indention = false;
			if (s[sb] == ' ')
				ye_write(e, "\\", 1, 1);
		}
		eb += (size_t)clen;
	}
	ye_indicator(e, '"', false, false, false);
}

/* PyYAML's write_single_quoted; s is printable ASCII and '\n' only. */
static void ye_single(struct yemit *e, const char *s, size_t n)
{
	bool spaces = false, breaks = false;
	size_t start = 0;

	ye_indicator(e, '\'', true, false, false);
	for (size_t end = 0; end <= n; end++) {
		int ch = end < n ? (unsigned char)s[end] : -1;
		if (spaces) {
			if (ch != ' ') {
				if (start + 1 == end && e->column > YAML_WIDTH && start != 0 && end != n)
					ye_indent(e);
				else
					ye_write(e, s + start, end - start, (int)(end - start));
				start = end;
			}
		} else if (breaks) {
			if (ch != '\n') {
				if (s[start] == '\n')
					ye_line_break(e);
				for (size_t i = start; i < end; i++)
					ye_line_break(e);
				ye_indent(e);
				start = end;
			}
		} else if (ch == -1 || ch == ' ' || ch == '\n' || ch == '\'') {
			if (start < end) {
				ye_write(e, s + start, end - start, (int)(end - start));
				start = end;
			}
		}
		if (ch == '\'') {
			ye_write(e, "''", 2, 2);
			start = end + 1;
		}
		if (ch != -1) {
			spaces = ch == ' ';
			breaks = ch == '\n';
		}
	}
	ye_indicator(e, '\'', false, false, false);
}

/* PyYAML's write_plain; s is printable ASCII without line breaks. */
static void ye_plain(struct yemit *e, const char *s, size_t n)
{
	bool spaces = false;
	size_t start = 0;

	if (!e->whitespace)
		ye_write(e, " ", 1, 1);
	e->whitespace = false;
	e->indention = false;
	for (size_t end = 0; end <= n; end++) {
		int ch = end < n ? (unsigned char)s[end] : -1;
		if (spaces) {
			if (ch != ' ') {
				if (start + 1 == end && e->column > YAML_WIDTH) {
					ye_indent(e);
					e->whitespace = false;
					e->indention = false;
				} else {
					ye_write(e, s + start, end - start, (int)(end - start));
				}
				start = end;
			}
		} else if (ch == -1 || ch == ' ') {
			ye_write(e, s + start, end - start, (int)(end - start));
			start = end;
		}
		if (ch != -1)
			spaces = ch == ' ';
	}
}

/* A cursor for the resolver's patterns below. */
struct scan {
	const char *p, *e;
};

static bool scan_ch(struct scan *c, const char *set)
{
	if (c->p < c->e && strchr(set, *c->p) != NULL && *c->p != '\0') {
		c->p++;
		return true;
	}
	return false;
}

static size_t scan_many(struct scan *c, const char *set)
{
	size_t n = 0;

	while (scan_ch(c, set))
		n++;
	return n;
}

static bool scan_lit(struct scan *c, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(c->e - c->p) < n || memcmp(c->p, lit, n) != 0)
		return false;
	c->p += n;
	return true;
}

#define DIG "0123456789"

/* (?::[0-5]?[0-9])+ */
static bool scan_sexagesimal(struct scan *c)
{
	size_t groups = 0;

	while (c->p < c->e && *c->p == ':') {
		struct scan d = { c->p + 1, c->e };
		size_t k = scan_many(&d, DIG);
		if (k == 0 || k > 2 || (k == 2 && c->p[1] > '5'))
			return false;
		c->p = d.p;
		groups++;
	}
	return groups > 0;
}

/* (?:[eE][-+][0-9]+)? then the end */
static bool scan_exp_end(struct scan c)
{
	if (scan_ch(&c, "eE") && (!scan_ch(&c, "-+") || scan_many(&c, DIG) == 0))
		return false;
	return c.p == c.e;
}

static bool looks_int(const char *s, size_t n)
{
	struct scan c = { s, s + n }, d;

	scan_ch(&c, "-+");
	d = c;
	if (scan_lit(&d, "0b") && scan_many(&d, "01_") > 0 && d.p == d.e)
		return true;
	d = c;
	if (scan_lit(&d, "0x") && scan_many(&d, DIG "abcdefABCDEF_") > 0 && d.p == d.e)
		return true;
	d = c;
	if (scan_lit(&d, "0") && (d.p == d.e || (scan_many(&d, "01234567_") > 0 && d.p == d.e)))
		return true;
	d = c;
	if (!scan_ch(&d, "123456789"))
		return false;
	scan_many(&d, DIG "_");
	return d.p == d.e || (scan_sexagesimal(&d) && d.p == d.e);
}

static bool looks_float(const char *s, size_t n)
{
	struct scan c = { s, s + n }, d;

	d = c;
	if (scan_lit(&d, ".") && (scan_lit(&d, "nan") || scan_lit(&d, "NaN") || scan_lit(&d, "NAN")) && d.p == d.e)
		return true;
	d = c;
	if (scan_ch(&d, ".") && scan_ch(&d, DIG) && (scan_many(&d, DIG "_"), scan_exp_end(d)))
		return true;
	scan_ch(&c, "-+");
	d = c;
	if (scan_lit(&d, ".") && (scan_lit(&d, "inf") || scan_lit(&d, "Inf") || scan_lit(&d, "INF")) && d.p == d.e)
		return true;
	if (!scan_ch(&c, DIG))
		return false;
	scan_many(&c, DIG "_");
	d = c;
	if (scan_ch(&d, ".")) {
		scan_many(&d, DIG "_");
		return scan_exp_end(d);
	}
	d = c;
	if (!scan_sexagesimal(&d) || !scan_ch(&d, "."))
		return false;
	scan_many(&d, DIG "_");
	return d.p == d.e;
}

static bool looks_timestamp(const char *s, size_t n)
{
	struct scan c = { s, s + n };
	size_t k;

	if (scan_many(&c, DIG) != 4 || !scan_ch(&c, "-") || (k = scan_many(&c, DIG)) < 1 || k > 2 ||
	    !scan_ch(&c, "-") || (k = scan_many(&c, DIG)) < 1 || k > 2)
		return false;
	if (c.p == c.e)
		return c.p - s == 10;
	if (!scan_ch(&c, "Tt") && scan_many(&c, " \t") == 0)
		return false;
	if ((k = scan_many(&c, DIG)) < 1 || k > 2 || !scan_ch(&c, ":") || scan_many(&c, DIG) != 2 ||
	    !scan_ch(&c, ":") || scan_many(&c, DIG) != 2)
		return false;
	if (scan_ch(&c, "."))
		scan_many(&c, DIG);
	scan_many(&c, " \t");
	if (c.p == c.e)
		return true;
	if (scan_ch(&c, "Z"))
		return c.p == c.e;
	if (!scan_ch(&c, "-+") || (k = scan_many(&c, DIG)) < 1 || k > 2)
		return false;
	if (scan_ch(&c, ":") && scan_many(&c, DIG) != 2)
		return false;
	return c.p == c.e;
}

/* Whether PyYAML's resolver reads plain s as something other than a string. */
static bool yaml_implicit_other(const char *s, size_t n)
{
	static const char *const words[] = {
		"yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE",
		"on", "On", "ON", "off", "Off", "OFF", "~", "null", "Null", "NULL", "<<", "=",
	};

	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		if (strlen(words[i]) == n && memcmp(words[i], s, n) == 0)
			return true;
	return looks_int(s, n) || looks_float(s, n) || looks_timestamp(s, n);
}

enum ystyle { YSTYLE_PLAIN, YSTYLE_SINGLE, YSTYLE_DOUBLE };

/* PyYAML's analyze_scalar + choose_scalar_style for a block sequence item. */
static enum ystyle yaml_choose_style(const uint8_t *s, size_t len)
{
	bool block_ind = false, line_breaks = false, special = false;
	bool leading = false, trailing = false, break_space = false, space_break = false;
	bool prev_space = false, prev_break = false, preceded_ws = true;

	if (len == 0)
		return YSTYLE_SINGLE;
	if (len >= 3 && (memcmp(s, "---", 3) == 0 || memcmp(s, "...", 3) == 0))
		block_ind = true;
	for (size_t i = 0; i < len; i++) {
		uint8_t ch = s[i];
		bool followed_ws = i + 1 >= len || strchr(" \t\r\n", s[i + 1]) != NULL || s[i + 1] == '\0';
		if (i == 0) {
			if (strchr("#,[]{}&*!|>'\"%@`", ch) != NULL && ch != '\0')
				block_ind = true;
			if ((ch == '?' || ch == ':' || ch == '-') && followed_ws)
				block_ind = true;
		} else if ((ch == ':' && followed_ws) || (ch == '#' && preceded_ws)) {
			block_ind = true;
		}
		if (ch == '\n')
			line_breaks = true;
		if (!(ch == '\n' || (ch >= 0x20 && ch <= 0x7E)))
			special = true;
		if (ch == ' ') {
			leading |= i == 0;
			trailing |= i == len - 1;
			break_space |= prev_break;
			prev_space = true;
			prev_break = false;
		} else if (ch == '\n') {
			leading |= i == 0;
			trailing |= i == len - 1;
			space_break |= prev_space;
			prev_space = false;
			prev_break = true;
		} else {
			prev_space = prev_break = false;
		}
		preceded_ws = ch == '\0' || strchr(" \t\r\n", ch) != NULL;
	}
	if (special || space_break)
		return YSTYLE_DOUBLE;
	if (!leading && !trailing && !line_breaks && !block_ind &&
	    !yaml_implicit_other((const char *)s, len))
		return YSTYLE_PLAIN;
	return break_space ? YSTYLE_DOUBLE : YSTYLE_SINGLE;
}

static void yaml_scalar_text(struct bag_text *t, const struct bag_value *v)
{
	switch (v->prim) {
	case BAG_PRIM_BOOL: text_str(t, v->v.b ? "True" : "False"); break;
	case BAG_PRIM_FLOAT32: case BAG_PRIM_FLOAT64: bag_text_double(t, v->v.f); break;
	case BAG_PRIM_STRING:
		if (v->v.s.len == 0)
			text_str(t, "''");
		else
			bag_text_json_string(t, v->v.s.p, v->v.s.len);
		break;
	case BAG_PRIM_TIME: case BAG_PRIM_DURATION:
		bag_text_printf(t, "{secs: %lld, nsecs: %u}", (long long)v->v.t.secs, v->v.t.nsecs);
		break;
	default: json_value(t, v); break;
	}
}

struct yaml_state {
	struct bag_text *t;
	int depth;
	int indent[DEPTH];       /* indentation of the fields at each level */
	enum { YA_NONE, YA_INLINE, YA_STRINGS, YA_BYTES } array; /* the open array of primitives */
	bool first;              /* no element written yet in that array */
	size_t bytes_at;         /* YA_BYTES: where the literal's opening quote is */
	bool has_sq, has_dq;     /* YA_BYTES: the bytes hold ' / " */
	struct yemit e;          /* YA_STRINGS: the sequence's emitter */
};

static void yaml_begin_message(void *ud, const struct bag_msgdef_field *f, int64_t index,
                               const struct bag_msgdef_type *type)
{
	struct yaml_state *s = ud;
	int ind = s->indent[s->depth];

	if (f == NULL) {
		s->indent[0] = 0;
		if (type != NULL && type->nfields == 0)
			text_char(s->t, '\n');
		return;
	}
	if (index >= 0) {
		yaml_pad(s->t, ind + 2);
		text_str(s->t, "- \n");
		ind += 4;
	} else {
		yaml_pad(s->t, ind);
		text_str(s->t, f->name);
		text_str(s->t, ": \n");
		ind += 2;
	}
	if (type->nfields == 0)
		text_char(s->t, '\n');
	if (s->depth + 1 < DEPTH)
		s->depth++;
	s->indent[s->depth] = ind;
}

static void yaml_end_message(void *ud, const struct bag_msgdef_field *f, int64_t index)
{
	struct yaml_state *s = ud;
	if (f != NULL)
		s->depth--;
}

static bool is_char_array(const struct bag_msgdef_field *f)
{
	return f->prim == BAG_PRIM_UINT8 && strcmp(f->type_name, "char") == 0;
}

static void yaml_begin_array(void *ud, const struct bag_msgdef_field *f, uint32_t len)
{
	struct yaml_state *s = ud;
	int ind = s->indent[s->depth];

	yaml_pad(s->t, ind);
	text_str(s->t, f->name);
	s->array = YA_NONE;
	s->first = true;
	if (is_char_array(f)) {
		text_str(s->t, ": b");
		s->array = YA_BYTES;
		s->bytes_at = s->t->len;
		s->has_sq = s->has_dq = false;
		text_char(s->t, '\'');
	} else if (len == 0) {
		text_str(s->t, ": []\n");
	} else if (f->prim == BAG_PRIM_STRING) {
		text_str(s->t, ": \n");
		yaml_pad(s->t, ind + 2);
		s->array = YA_STRINGS;
		s->e = (struct yemit){ .t = s->t, .prefix = ind + 2, .whitespace = true, .indention = true };
	} else if (f->prim != BAG_PRIM_MESSAGE && f->prim != BAG_PRIM_TIME && f->prim != BAG_PRIM_DURATION) {
		text_str(s->t, ": [");
		s->array = YA_INLINE;
	} else {
		text_str(s->t, ": \n");
	}
}

/* Close a Python bytes literal: repr() quotes with " when the bytes hold '
 * and no ", else with ' and escapes each '. */
static void yaml_end_bytes(struct yaml_state *s)
{
	struct bag_text *t = s->t;

	if (s->has_sq && !s->has_dq) {
		t->p[s->bytes_at] = '"';
		text_str(t, "\"\n");
		return;
	}
	if (s->has_sq) {
		size_t extra = 0, at = s->bytes_at + 1;
		for (size_t i = at; i < t->len; i++)
			extra += t->p[i] == '\'';
		if (!text_reserve(t, extra))
			return;
		for (size_t i = t->len, j = t->len + extra; i > at; ) {
			t->p[--j] = t->p[--i];
			if (t->p[i] == '\'')
				t->p[--j] = '\\';
		}
		t->len += extra;
	}
	text_str(t, "'\n");
}

static void yaml_end_array(void *ud, const struct bag_msgdef_field *f, uint32_t len)
{
	struct yaml_state *s = ud;

	if (s->array == YA_INLINE)
		text_str(s->t, "]\n");
	else if (s->array == YA_STRINGS)
		text_char(s->t, '\n');
	else if (s->array == YA_BYTES)
		yaml_end_bytes(s);
	s->array = YA_NONE;
}

/* One byte of a Python bytes literal, ' left bare (see yaml_end_bytes). */
static void yaml_byte(struct yaml_state *s, uint8_t c)
{
	static const char hex[] = "0123456789abcdef";
	char buf[4] = { '\\', 'x', hex[c >> 4], hex[c & 15] };

	s->has_sq |= c == '\'';
	s->has_dq |= c == '"';
	if (c == '\\' || c == '\t' || c == '\n' || c == '\r') {
		buf[1] = c == '\\' ? '\\' : c == '\t' ? 't' : c == '\n' ? 'n' : 'r';
		bag_text_append(s->t, buf, 2);
	} else if (c < 0x20 || c >= 0x7F) {
		bag_text_append(s->t, buf, 4);
	} else {
		text_char(s->t, (char)c);
	}
}

/* A string list item: "- " and the scalar in the style PyYAML picks. */
static void yaml_string_item(struct yaml_state *s, const struct bag_value *v)
{
	struct yemit *e = &s->e;
	const uint8_t *p = (const uint8_t *)v->v.s.p;

	e->indent = 0;
	ye_indent(e);
	ye_indicator(e, '-', true, false, true);
	e->indent = 2;
	switch (yaml_choose_style(p, v->v.s.len)) {
	case YSTYLE_PLAIN: ye_plain(e, v->v.s.p, v->v.s.len); break;
	case YSTYLE_SINGLE: ye_single(e, v->v.s.p, v->v.s.len); break;
	default: ye_double(e, p, v->v.s.len); break;
	}
}

static void yaml_value(void *ud, const struct bag_msgdef_field *f, int64_t index,
                       const struct bag_value *v)
{
	struct yaml_state *s = ud;
	int ind = s->indent[s->depth];

	if (s->array == YA_BYTES) {
		yaml_byte(s, (uint8_t)v->v.u);
		return;
	}
	if (s->array == YA_STRINGS) {
		yaml_string_item(s, v);
		return;
	}
	if (s->array == YA_INLINE) {
		if (!s->first)
			text_str(s->t, ", ");
		s->first = false;
		yaml_scalar_text(s->t, v);
		return;
	}
	if (index >= 0) {
		yaml_pad(s->t, ind + 2);
		text_str(s->t, "- ");
		ind += 4;
	} else {
		yaml_pad(s->t, ind);
		text_str(s->t, f->name);
		text_str(s->t, ": ");
		ind += 2;
	}
	if (v->prim == BAG_PRIM_TIME || v->prim == BAG_PRIM_DURATION) {
		text_char(s->t, '\n');
		yaml_pad(s->t, ind);
		bag_text_printf(s->t, "secs: %lld\n", (long long)v->v.t.secs);
		yaml_pad(s->t, ind);
		bag_text_printf(s->t, "nsecs: %9u\n", v->v.t.nsecs);
		return;
	}
	if (v->prim == BAG_PRIM_STRING && v->v.s.len > 0) {
		struct yemit e = { .t = s->t, .indent = 2, .whitespace = true, .indention = true };
		ye_double(&e, (const uint8_t *)v->v.s.p, v->v.s.len);
	} else {
		yaml_scalar_text(s->t, v);
	}
	text_char(s->t, '\n');
}

static const struct bag_visitor yaml_visitor = {
	yaml_begin_message, yaml_end_message, yaml_begin_array, yaml_end_array, yaml_value,
};

BAG_API int bag_print_yaml(struct bag_text *t, const bag_msgdef_t *def, const uint8_t *data,
                           size_t len, char *err, size_t errlen)
{
	struct yaml_state s = { .t = t };
	return run(t, def, data, len, &yaml_visitor, &s, err, errlen);
}

/* ---- CSV (rostopic echo -p) ---------------------------------------------- */

struct csv_state {
	struct bag_text *t;
	bool header;
	bool first;
	char path[1024];          /* "field.a.b3." prefix of the current message */
	size_t plen[DEPTH];
	int depth;
};

/* Append f's column name (index >= 0: an array element) to the path. */
static void csv_push_name(struct csv_state *s, const struct bag_msgdef_field *f, int64_t index)
{
	size_t n = strlen(s->path);

	n += (size_t)snprintf(s->path + n, sizeof s->path - n, "%s", f->name);
	if (index >= 0 && n < sizeof s->path)
		snprintf(s->path + n, sizeof s->path - n, "%lld", (long long)index);
}

static void csv_begin_message(void *ud, const struct bag_msgdef_field *f, int64_t index,
                              const struct bag_msgdef_type *type)
{
	struct csv_state *s = ud;
	size_t n;

	if (f == NULL) {
		strcpy(s->path, "field.");
		s->plen[0] = strlen(s->path);
		return;
	}
	csv_push_name(s, f, index);
	n = strlen(s->path);
	if (n + 1 < sizeof s->path)
		strcpy(s->path + n, ".");
	if (s->depth + 1 < DEPTH)
		s->depth++;
	s->plen[s->depth] = strlen(s->path);
}

static void csv_end_message(void *ud, const struct bag_msgdef_field *f, int64_t index)
{
	struct csv_state *s = ud;

	if (f == NULL)
		return;
	s->depth--;
	s->path[s->plen[s->depth]] = '\0';
}

static void csv_cell(struct csv_state *s)
{
	if (!s->first)
		text_char(s->t, ',');
	s->first = false;
}

static void csv_value(void *ud, const struct bag_msgdef_field *f, int64_t index,
                      const struct bag_value *v)
{
	struct csv_state *s = ud;

	/* byte arrays are left out, as rostopic echo -p leaves them */
	if (f->array != BAG_ARRAY_NONE && f->prim == BAG_PRIM_UINT8)
		return;
	csv_cell(s);
	if (s->header) {
		csv_push_name(s, f, index);
		text_str(s->t, s->path);
		s->path[s->plen[s->depth]] = '\0';
		return;
	}
	switch (v->prim) {
	case BAG_PRIM_BOOL: text_char(s->t, v->v.b ? '1' : '0'); break;
	case BAG_PRIM_TIME: case BAG_PRIM_DURATION:
		text_i64(s->t, v->v.t.secs * 1000000000LL + (int64_t)v->v.t.nsecs);
		break;
	case BAG_PRIM_STRING:
		if (memchr(v->v.s.p, ',', v->v.s.len) || memchr(v->v.s.p, '"', v->v.s.len) ||
		    memchr(v->v.s.p, '\n', v->v.s.len)) {
			text_char(s->t, '"');
			for (uint32_t i = 0; i < v->v.s.len; i++) {
				if (v->v.s.p[i] == '"')
					text_char(s->t, '"');
				text_char(s->t, v->v.s.p[i]);
			}
			text_char(s->t, '"');
		} else {
			bag_text_append(s->t, v->v.s.p, v->v.s.len);
		}
		break;
	default: yaml_scalar_text(s->t, v); break;
	}
}

static const struct bag_visitor csv_visitor = {
	csv_begin_message, csv_end_message, NULL, NULL, csv_value,
};

BAG_API int bag_print_csv(struct bag_text *t, const bag_msgdef_t *def, const uint8_t *data,
                          size_t len, bool header, char *err, size_t errlen)
{
	struct csv_state s = { .t = t, .header = header, .first = true };
	return run(t, def, data, len, &csv_visitor, &s, err, errlen);
}

/* ---- one-line summary ----------------------------------------------------- */

#define SUMMARY_ARRAY_SHOWN 4

struct summary_state {
	struct json_state j;      /* separators and nesting as JSON, keys bare */
	size_t max;
	uint32_t array_len[DEPTH];
};

static bool summary_full(struct summary_state *s)
{
	return s->j.t->len >= s->max;
}

/* Elements past the first few of an array are left out. */
static bool summary_skip(struct summary_state *s, int64_t index)
{
	return index >= SUMMARY_ARRAY_SHOWN || summary_full(s);
}

static void summary_item(struct summary_state *s, const struct bag_msgdef_field *f)
{
	struct json_state *j = &s->j;

	if (j->depth == 0)
		return;
	if (!j->first[j->depth])
		text_str(j->t, j->array[j->depth] ? ", " : "  ");
	j->first[j->depth] = false;
	if (!j->array[j->depth]) {
		text_str(j->t, f->name);
		text_char(j->t, '=');
	}
}

static bool summary_muted(const struct summary_state *s)
{
	for (int d = 1; d <= s->j.depth; d++)
		if (s->array_len[d] == UINT32_MAX)
			return true;
	return false;
}

static void summary_begin_message(void *ud, const struct bag_msgdef_field *f, int64_t index,
                                  const struct bag_msgdef_type *type)
{
	struct summary_state *s = ud;
	/* the top-level std_msgs/Header says little in one line: leave it out */
	bool header = f != NULL && s->j.depth == 1 && index < 0 && strcmp(type->name, "std_msgs/Header") == 0;
	bool mute = f != NULL && (summary_skip(s, index) || header);

	if (f != NULL && !mute && !summary_muted(s)) {
		summary_item(s, f);
		text_char(s->j.t, '{');
	}
	if (s->j.depth + 1 < DEPTH)
		s->j.depth++;
	s->j.first[s->j.depth] = true;
	s->j.array[s->j.depth] = false;
	/* a message inside an elided array element writes nothing */
	s->array_len[s->j.depth] = mute ? UINT32_MAX : 0;
}

static void summary_end_message(void *ud, const struct bag_msgdef_field *f, int64_t index)
{
	struct summary_state *s = ud;
	bool muted = s->array_len[s->j.depth] == UINT32_MAX;

	s->j.depth--;
	if (f != NULL && !muted && !summary_muted(s) && !summary_full(s))
		text_char(s->j.t, '}');
}

static void summary_begin_array(void *ud, const struct bag_msgdef_field *f, uint32_t len)
{
	struct summary_state *s = ud;
	bool muted = summary_muted(s);

	if (!muted && !summary_full(s)) {
		summary_item(s, f);
		text_char(s->j.t, '[');
	}
	if (s->j.depth + 1 < DEPTH)
		s->j.depth++;
	s->j.first[s->j.depth] = true;
	s->j.array[s->j.depth] = true;
	s->array_len[s->j.depth] = muted ? UINT32_MAX : len;
}

static void summary_end_array(void *ud, const struct bag_msgdef_field *f, uint32_t len)
{
	struct summary_state *s = ud;
	bool muted = s->array_len[s->j.depth] == UINT32_MAX;

	s->j.depth--;
	if (muted || summary_full(s))
		return;
	if (len > SUMMARY_ARRAY_SHOWN)
		bag_text_printf(s->j.t, ", \xE2\x80\xA6 (%u)", len);
	text_char(s->j.t, ']');
}

static void summary_value(void *ud, const struct bag_msgdef_field *f, int64_t index,
                          const struct bag_value *v)
{
	struct summary_state *s = ud;

	if (summary_skip(s, index) || summary_muted(s))
		return;
	summary_item(s, f);
	if (v->prim == BAG_PRIM_TIME || v->prim == BAG_PRIM_DURATION)
		bag_text_printf(s->j.t, "%lld.%09u", (long long)v->v.t.secs, v->v.t.nsecs);
	else if (v->prim == BAG_PRIM_STRING)
		bag_text_json_string(s->j.t, v->v.s.p, v->v.s.len > 64 ? 64 : v->v.s.len);
	else
		yaml_scalar_text(s->j.t, v);
}

static const struct bag_visitor summary_visitor = {
	summary_begin_message, summary_end_message, summary_begin_array, summary_end_array,
	summary_value,
};

BAG_API int bag_print_summary(struct bag_text *t, const bag_msgdef_t *def, const uint8_t *data,
                              size_t len, size_t max, char *err, size_t errlen)
{
	struct summary_state s = { .j = { .t = t }, .max = t->len + max };
	int rc = run(t, def, data, len, &summary_visitor, &s, err, errlen);

	if (t->len > s.max) {
		t->len = s.max;
		while (t->len > 0 && ((unsigned char)t->p[t->len] & 0xC0) == 0x80)
			t->len--;    /* never cut a UTF-8 sequence */
		t->p[t->len] = '\0';
	}
	for (size_t i = 0; i < t->len; i++)
		if (t->p[i] == '\n' || t->p[i] == '\t')
			t->p[i] = ' ';
	return rc;
}

/* ---- hex dump ------------------------------------------------------------- */

BAG_API void bag_print_hex(struct bag_text *t, const uint8_t *data, size_t len)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t at = 0; at < len; at += 16) {
		size_t n = len - at < 16 ? len - at : 16;
		char line[80], *p = line;
		for (int sh = 28; sh >= 0; sh -= 4)
			*p++ = hex[(at >> sh) & 15];
		*p++ = ' ';
		for (size_t i = 0; i < 16; i++) {
			if (i == 8)
				*p++ = ' ';
			*p++ = ' ';
			*p++ = i < n ? hex[data[at + i] >> 4] : ' ';
			*p++ = i < n ? hex[data[at + i] & 15] : ' ';
		}
		*p++ = ' ';
		*p++ = ' ';
		*p++ = '|';
		for (size_t i = 0; i < n; i++)
			*p++ = data[at + i] >= 0x20 && data[at + i] < 0x7f ? (char)data[at + i] : '.';
		*p++ = '|';
		*p++ = '\n';
		bag_text_append(t, line, (size_t)(p - line));
	}
}

/* ---- definition tree ------------------------------------------------------ */

static void tree_type(struct bag_text *t, const struct bag_msgdef_type *type, int indent, int depth)
{
	for (size_t i = 0; i < type->nconsts; i++)
		bag_text_printf(t, "%*s%s %s=%s\n", indent, "", type->consts[i].type_name,
		                type->consts[i].name, type->consts[i].value);
	for (size_t i = 0; i < type->nfields; i++) {
		const struct bag_msgdef_field *f = &type->fields[i];
		bag_text_printf(t, "%*s%s", indent, "", f->type_name);
		if (f->array == BAG_ARRAY_FIXED)
			bag_text_printf(t, "[%u]", f->fixed_len);
		else if (f->array == BAG_ARRAY_VARIABLE)
			text_str(t, "[]");
		bag_text_printf(t, " %s\n", f->name);
		if (f->msg != NULL && depth < DEPTH)
			tree_type(t, f->msg, indent + 2, depth + 1);
	}
}

BAG_API void bag_print_msgdef_tree(struct bag_text *t, const bag_msgdef_t *def, int indent)
{
	const struct bag_msgdef_type *root = bag_msgdef_root(def);

	if (root != NULL)
		tree_type(t, root, indent, 0);
}
