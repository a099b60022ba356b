/*
 * print.c - printers over the decoder's visitor: JSON, YAML, CSV and a
 * one-line summary, all appending to a struct bag_text.
 *
 * Each printer keeps a small stack, one level per open message or array:
 * whether anything was written in it yet (for separators), whether it is an
 * array (no keys), and for YAML its indentation. Nesting is bounded by the
 * decoder's depth limit.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/print.h>

#define DEPTH 72

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

BAG_API void bag_text_double(struct bag_text *t, double d)
{
	char buf[40];

	if (isnan(d)) {
		text_str(t, "nan");
		return;
	}
	if (isinf(d)) {
		text_str(t, d < 0 ? "-inf" : "inf");
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, d);
		if (prec == 17 || strtod(buf, NULL) == d)
			break;
	}
	text_str(t, buf);
	if (strpbrk(buf, ".en") == NULL)
		text_str(t, ".0");
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

struct yaml_state {
	struct bag_text *t;
	int depth;
	int indent[DEPTH];       /* indentation of the fields at each level */
	bool inline_array;       /* inside an array of primitives: [a, b] */
	bool first;              /* no element written yet in the inline array */
};

static void yaml_pad(struct yaml_state *s, int n)
{
	static const char spaces[] = "                                                                ";
	while (n > 0) {
		int k = n < 64 ? n : 64;
		bag_text_append(s->t, spaces, (size_t)k);
		n -= k;
	}
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

static void yaml_begin_message(void *ud, const struct bag_msgdef_field *f, int64_t index,
                               const struct bag_msgdef_type *type)
{
	struct yaml_state *s = ud;
	int ind = s->indent[s->depth];

	if (f == NULL) {
		s->indent[0] = 0;
		return;
	}
	if (index >= 0) {
		yaml_pad(s, ind + 2);
		text_str(s->t, "- \n");
		ind += 4;
	} else {
		yaml_pad(s, ind);
		text_str(s->t, f->name);
		text_str(s->t, ": \n");
		ind += 2;
	}
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

static void yaml_begin_array(void *ud, const struct bag_msgdef_field *f, uint32_t len)
{
	struct yaml_state *s = ud;

	yaml_pad(s, s->indent[s->depth]);
	text_str(s->t, f->name);
	if (len == 0) {
		text_str(s->t, ": []\n");
	} else if (f->prim != BAG_PRIM_MESSAGE) {
		text_str(s->t, ": [");
		s->inline_array = true;
		s->first = true;
	} else {
		text_str(s->t, ": \n");
	}
}

static void yaml_end_array(void *ud, const struct bag_msgdef_field *f, uint32_t len)
{
	struct yaml_state *s = ud;

	if (s->inline_array)
		text_str(s->t, "]\n");
	s->inline_array = false;
}

static void yaml_value(void *ud, const struct bag_msgdef_field *f, int64_t index,
                       const struct bag_value *v)
{
	struct yaml_state *s = ud;
	int ind = s->indent[s->depth];

	if (s->inline_array) {
		if (!s->first)
			text_str(s->t, ", ");
		s->first = false;
		yaml_scalar_text(s->t, v);
		return;
	}
	yaml_pad(s, ind);
	text_str(s->t, f->name);
	if (v->prim == BAG_PRIM_TIME || v->prim == BAG_PRIM_DURATION) {
		text_str(s->t, ": \n");
		yaml_pad(s, ind + 2);
		bag_text_printf(s->t, "secs: %lld\n", (long long)v->v.t.secs);
		yaml_pad(s, ind + 2);
		bag_text_printf(s->t, "nsecs: %9u\n", v->v.t.nsecs);
		return;
	}
	text_str(s->t, ": ");
	yaml_scalar_text(s->t, v);
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
