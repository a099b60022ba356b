/*
 * print-yaml.c - a message as `rostopic echo` prints it (genpy's
 * strify_message, strings through PyYAML), byte for byte.
 */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/print.h>
#include "lib/out/print-int.h"

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

void yaml_scalar_text(struct bag_text *t, const struct bag_value *v)
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
		bag_text_printf(t, "{secs: %lld, nsecs: %lld}", (long long)v->v.t.secs, (long long)v->v.t.nsecs);
		break;
	default: print_json_value(t, v); break;
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
		bag_text_printf(s->t, "nsecs: %9lld\n", (long long)v->v.t.nsecs);
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
                           size_t len, struct bag_error *err)
{
	struct yaml_state s = { .t = t };
	return print_run(t, def, data, len, &yaml_visitor, &s, err);
}
