/*
 * detail.c - building the detail pane's lines (see detail.h). Each line owns
 * its text; a node's children are the lines after it that are deeper.
 * Arrays longer than ARRAY_SHOWN show their first elements and a count.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/detail.h"

#define ARRAY_SHOWN 64

void detail_clear(struct detail *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->lines[i].text);
	free(d->lines);
	memset(d, 0, sizeof *d);
}

static void add(struct detail *d, int depth, bool node, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void add(struct detail *d, int depth, bool node, const char *fmt, ...)
{
	va_list ap;
	char *text;

	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 64;
		struct dline *l = realloc(d->lines, cap * sizeof *l);
		if (l == NULL)
			return;
		d->lines = l;
		d->cap = cap;
	}
	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	if (text == NULL)
		return;
	d->lines[d->n++] = (struct dline){ depth, node, false, text };
}

void detail_note(struct detail *d, const char *text)
{
	detail_clear(d);
	add(d, 0, false, "%s", text);
}

/* a message and an array per level of the deepest definition */
#define TREE_DEPTH (2 * BAG_MSGDEF_MAX_DEPTH + 2)

struct tree_state {
	struct detail *d;
	int depth;
	struct bag_text t;
	uint32_t array_len[TREE_DEPTH];
	bool hidden[TREE_DEPTH];   /* inside an elided part of an array */
};

static bool tree_hidden(const struct tree_state *s)
{
	for (int i = 0; i <= s->depth && i < TREE_DEPTH; i++)
		if (s->hidden[i])
			return true;
	return false;
}

/* "name" or "[i]" for an item. */
static void label(char *buf, size_t cap, const struct bag_msgdef_field *f, int64_t index)
{
	if (index >= 0)
		snprintf(buf, cap, "[%lld]", (long long)index);
	else
		snprintf(buf, cap, "%s", f->name);
}

static void tree_begin_message(void *ud, const struct bag_msgdef_field *f, int64_t index,
                               const struct bag_msgdef_type *type)
{
	struct tree_state *s = ud;
	char name[128];

	if (f == NULL)
		return;
	bool hide = index >= ARRAY_SHOWN;
	if (!hide && !tree_hidden(s)) {
		label(name, sizeof name, f, index);
		add(s->d, s->depth, true, "%s: %s", name, type->name);
	}
	s->depth++;
	if (s->depth < TREE_DEPTH)
		s->hidden[s->depth] = hide;
}

static void tree_end_message(void *ud, const struct bag_msgdef_field *f, int64_t index)
{
	struct tree_state *s = ud;

	if (f == NULL)
		return;
	if (s->depth < TREE_DEPTH)
		s->hidden[s->depth] = false;
	s->depth--;
}

static void tree_begin_array(void *ud, const struct bag_msgdef_field *f, uint32_t len)
{
	struct tree_state *s = ud;

	if (!tree_hidden(s))
		add(s->d, s->depth, len > 0, "%s: %s[%u]", f->name, f->type_name, len);
	s->depth++;
	if (s->depth < TREE_DEPTH) {
		s->hidden[s->depth] = false;
		s->array_len[s->depth] = len;
	}
}

static void tree_end_array(void *ud, const struct bag_msgdef_field *f, uint32_t len)
{
	struct tree_state *s = ud;

	if (len > ARRAY_SHOWN && !tree_hidden(s))
		add(s->d, s->depth, false, "\xE2\x80\xA6 %u more", len - ARRAY_SHOWN);
	s->depth--;
}

static void tree_value(void *ud, const struct bag_msgdef_field *f, int64_t index, const struct bag_value *v)
{
	struct tree_state *s = ud;
	char name[128];

	if (index >= ARRAY_SHOWN || tree_hidden(s))
		return;
	label(name, sizeof name, f, index);
	s->t.len = 0;
	switch (v->prim) {
	case BAG_PRIM_BOOL: bag_text_append(&s->t, v->v.b ? "true" : "false", v->v.b ? 4 : 5); break;
	case BAG_PRIM_INT8: case BAG_PRIM_INT16: case BAG_PRIM_INT32: case BAG_PRIM_INT64:
		bag_text_printf(&s->t, "%lld", (long long)v->v.i);
		break;
	case BAG_PRIM_UINT8: case BAG_PRIM_UINT16: case BAG_PRIM_UINT32: case BAG_PRIM_UINT64:
		bag_text_printf(&s->t, "%llu", (unsigned long long)v->v.u);
		break;
	case BAG_PRIM_FLOAT32: case BAG_PRIM_FLOAT64: bag_text_double(&s->t, v->v.f); break;
	case BAG_PRIM_STRING: bag_text_json_string(&s->t, v->v.s.p, v->v.s.len); break;
	default:
		bag_text_printf(&s->t, "%lld.%09u", (long long)v->v.t.secs, v->v.t.nsecs);
		break;
	}
	add(s->d, s->depth, false, "%s: %s", name, s->t.len ? s->t.p : "");
}

int detail_decoded(struct detail *d, const bag_msgdef_t *def, const uint8_t *data, size_t len)
{
	static const struct bag_visitor vis = {
		tree_begin_message, tree_end_message, tree_begin_array, tree_end_array, tree_value,
	};
	struct tree_state s = { .d = d };
	char err[256];
	int rc;

	detail_clear(d);
	rc = bag_decode(def, data, len, &vis, &s, NULL, err, sizeof err);
	if (rc != BAG_OK)
		add(d, 0, false, "decode error: %s", err);
	bag_text_free(&s.t);
	return rc;
}

void detail_hex(struct detail *d, const uint8_t *data, size_t len)
{
	struct bag_text t = { 0 };

	detail_clear(d);
	bag_print_hex(&t, data, len);
	for (char *s = t.p, *nl; s != NULL && (nl = strchr(s, '\n')) != NULL; s = nl + 1)
		add(d, 0, false, "%.*s", (int)(nl - s), s);
	if (len == 0)
		add(d, 0, false, "(empty message)");
	bag_text_free(&t);
}

void detail_connection(struct detail *d, const struct bag_connection *c, const bag_msgdef_t *def)
{
	struct bag_text t = { 0 };

	detail_clear(d);
	add(d, 0, false, "topic: %s  (connection %u)", c->topic, c->id);
	add(d, 0, true, "connection header:");
	for (size_t i = 0; i < c->nfields; i++)
		if (strcmp(c->fields[i].name, "message_definition") != 0)
			add(d, 1, false, "%s: %s", c->fields[i].name, c->fields[i].value);
	if (def != NULL && bag_msgdef_root(def) != NULL) {
		const char *md5 = bag_msgdef_root(def)->md5;
		add(d, 1, false, "md5 of the definition: %s (%s)", md5,
		    strcmp(md5, c->md5sum) == 0 ? "matches" : "MISMATCH");
		add(d, 0, true, "definition tree:");
		bag_print_msgdef_tree(&t, def, 0);
		for (char *s = t.p, *nl; s != NULL && *s; s = nl + 1) {
			nl = strchr(s, '\n');
			if (nl == NULL)
				break;
			int ind = 0;
			while (s[ind] == ' ')
				ind++;
			add(d, 1 + ind / 2, false, "%.*s", (int)(nl - s - ind), s + ind);
		}
	} else if (def != NULL) {
		add(d, 0, false, "definition does not parse: %s", bag_msgdef_errmsg(def));
	}
	add(d, 0, true, "definition text:");
	for (const char *s = c->definition; *s;) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		add(d, 1, false, "%.*s", (int)n, s);
		s += n + (nl != NULL);
	}
	bag_text_free(&t);
}

size_t detail_visible(const struct detail *d, size_t *idx, size_t max)
{
	size_t n = 0;
	int hide_deeper = -1;

	for (size_t i = 0; i < d->n && n < max; i++) {
		const struct dline *l = &d->lines[i];
		if (hide_deeper >= 0 && l->depth > hide_deeper)
			continue;
		hide_deeper = l->node && l->collapsed ? l->depth : -1;
		idx[n++] = i;
	}
	return n;
}

bool detail_fold(struct detail *d, size_t v, int expand)
{
	size_t *idx = malloc((d->n + 1) * sizeof *idx);
	bool changed = false;
	size_t n;

	if (idx == NULL)
		return false;
	n = detail_visible(d, idx, d->n);
	if (v < n && d->lines[idx[v]].node) {
		struct dline *l = &d->lines[idx[v]];
		bool to = expand < 0 ? !l->collapsed : !expand;
		changed = to != l->collapsed;
		l->collapsed = to;
	}
	free(idx);
	return changed;
}
