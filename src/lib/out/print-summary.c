/*
 * print-summary.c - the browser's short forms: a message on one line, a hex
 * dump, and a definition as an indented tree.
 */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/print.h>
#include "lib/out/print-int.h"

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
		bag_text_seconds(s->j.t, v->v.t.secs, v->v.t.nsecs);
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
                              size_t len, size_t max, struct bag_error *err)
{
	struct summary_state s = { .j = { .t = t }, .max = t->len + max };
	int rc = print_run(t, def, data, len, &summary_visitor, &s, err);

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

/* Lines after which nested types are no longer expanded (a small definition can nest exponentially). */
#define TREE_MAX_LINES 20000

static void tree_type(struct bag_text *t, const struct bag_msgdef_type *type, int indent, int depth, size_t *lines)
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
		*lines += 1 + type->nconsts;
		if (f->msg != NULL && depth < DEPTH && *lines < TREE_MAX_LINES)
			tree_type(t, f->msg, indent + 2, depth + 1, lines);
	}
}

BAG_API void bag_print_msgdef_tree(struct bag_text *t, const bag_msgdef_t *def, int indent)
{
	const struct bag_msgdef_type *root = bag_msgdef_root(def);
	size_t lines = 0;

	if (root != NULL)
		tree_type(t, root, indent, 0, &lines);
	if (lines >= TREE_MAX_LINES)
		bag_text_printf(t, "%*s# (cut: nested types past %d lines are not expanded)\n", indent, "", TREE_MAX_LINES);
}
