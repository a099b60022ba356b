/*
 * print-csv.c - a message as one line of `rostopic echo -p` (and its header).
 */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/print.h>
#include "lib/out/print-int.h"

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
                          size_t len, bool header, struct bag_error *err)
{
	struct csv_state s = { .t = t, .header = header, .first = true };
	return print_run(t, def, data, len, &csv_visitor, &s, err);
}
