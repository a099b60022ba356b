/*
 * print-json.c - a message as one JSON object (the bagscope contract: fields
 * in definition order, 64-bit integers exact, NaN/Inf as strings).
 *
 * The printer keeps a small stack, one level per open message or array:
 * whether anything was written in it yet (for separators) and whether it is
 * an array (no keys). Nesting is bounded by the decoder's depth limit.
 */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/print.h>
#include "lib/out/print-int.h"

/* A scalar as JSON. */
void print_json_value(struct bag_text *t, const struct bag_value *v)
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
		text_i64(t, v->v.t.nsecs);
		text_char(t, '}');
		break;
	default: break;
	}
}


/* ---- JSON ------------------------------------------------------------- */

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
	print_json_value(s->t, v);
}

static const struct bag_visitor json_visitor = {
	json_begin_message, json_end, json_begin_array, json_end_array, json_scalar,
};


BAG_API int bag_print_json(struct bag_text *t, const bag_msgdef_t *def, const uint8_t *data,
                           size_t len, struct bag_error *err)
{
	struct json_state s = { .t = t };
	return print_run(t, def, data, len, &json_visitor, &s, err);
}
