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

/*
 * A library message "PATH: at byte N: PROBLEM" as people read it: the
 * problem first, then where ("at byte N of NAME"), the directory left out.
 */
void detail_problem_first(const char *msg, char *out, size_t cap)
{
	const char *at = strstr(msg, ": at byte "), *slash;

	if (at == NULL) {
		snprintf(out, cap, "%s", msg);
		return;
	}
	const char *num = at + strlen(": at byte "), *rest = strstr(num, ": ");
	if (rest == NULL) {
		snprintf(out, cap, "%s", msg);
		return;
	}
	slash = memrchr(msg, '/', (size_t)(at - msg));
	const char *name = slash ? slash + 1 : msg;
	snprintf(out, cap, "%s (at byte %.*s of %.*s)", rest + 2, (int)(rest - num), num, (int)(at - name), name);
}

void detail_clear(struct detail *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->lines[i].text);
		free(d->lines[i].path);
	}
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
	d->lines[d->n++] = (struct dline){ depth, node, false, text, NULL };
}

void detail_add(struct detail *d, int depth, const char *text)
{
	add(d, depth, false, "%s", text);
}

void detail_node(struct detail *d, int depth, const char *text)
{
	add(d, depth, true, "%s", text);
}

void detail_note(struct detail *d, const char *text)
{
	detail_clear(d);
	add(d, 0, false, "%s", text);
}

/* a message and an array per level of the deepest definition */
#define TREE_DEPTH (2 * BAG_MSGDEF_MAX_DEPTH + 2)

struct tree_state {
	detail_line_fn sink;
	void *arg;
	int depth;
	struct bag_text t;          /* the line being made */
	struct bag_text path;       /* the field path of the current level */
	size_t path_len[TREE_DEPTH];/* path length before each level's name */
	bool hidden[TREE_DEPTH];    /* inside an elided part of an array */
	const struct bag_msgdef_type *owner[TREE_DEPTH];   /* the message whose fields each level holds */
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

/* Extend the path by an item's name (".name" or "[i]"); the old length is returned. */
static size_t path_push(struct tree_state *s, const struct bag_msgdef_field *f, int64_t index)
{
	size_t at = s->path.len;

	if (index >= 0)
		bag_text_printf(&s->path, "[%lld]", (long long)index);
	else
		bag_text_printf(&s->path, "%s%s", at > 0 ? "." : "", f->name);
	return at;
}

static void path_pop(struct tree_state *s, size_t at)
{
	s->path.len = at;
	if (s->path.p != NULL)
		s->path.p[at] = '\0';
}

/* Hand s->t to the sink as one line at depth. */
static void emit_line(struct tree_state *s, int depth, bool node)
{
	s->sink(s->arg, depth, node, s->t.len ? s->t.p : "", s->t.len, s->path.len ? s->path.p : "");
}

static void tree_begin_message(void *ud, const struct bag_msgdef_field *f, int64_t index,
                               const struct bag_msgdef_type *type)
{
	struct tree_state *s = ud;
	char name[128];
	size_t at = s->path.len;

	if (f == NULL) {
		s->owner[0] = type;
		return;
	}
	bool hide = index >= ARRAY_SHOWN;
	path_push(s, f, index);
	if (!hide && !tree_hidden(s)) {
		label(name, sizeof name, f, index);
		s->t.len = 0;
		bag_text_printf(&s->t, "%s: %s", name, type->name);
		emit_line(s, s->depth, true);
	}
	s->depth++;
	if (s->depth < TREE_DEPTH) {
		s->hidden[s->depth] = hide;
		s->path_len[s->depth] = at;
		s->owner[s->depth] = type;
	}
}

static void tree_end_message(void *ud, const struct bag_msgdef_field *f, int64_t index)
{
	struct tree_state *s = ud;

	if (f == NULL)
		return;
	if (s->depth < TREE_DEPTH) {
		s->hidden[s->depth] = false;
		path_pop(s, s->path_len[s->depth]);
	}
	s->depth--;
}

static void tree_begin_array(void *ud, const struct bag_msgdef_field *f, uint32_t len)
{
	struct tree_state *s = ud;
	size_t at = path_push(s, f, -1);

	if (!tree_hidden(s)) {
		s->t.len = 0;
		bag_text_printf(&s->t, "%s: %s[%u]", f->name, f->type_name, len);
		emit_line(s, s->depth, len > 0);
	}
	s->depth++;
	if (s->depth < TREE_DEPTH) {
		s->hidden[s->depth] = false;
		s->path_len[s->depth] = at;
		s->owner[s->depth] = s->owner[s->depth - 1];
	}
}

static void tree_end_array(void *ud, const struct bag_msgdef_field *f, uint32_t len)
{
	struct tree_state *s = ud;

	if (len > ARRAY_SHOWN && !tree_hidden(s)) {
		s->t.len = 0;
		bag_text_printf(&s->t, "\xE2\x80\xA6 %u more", len - ARRAY_SHOWN);
		emit_line(s, s->depth, false);
	}
	if (s->depth < TREE_DEPTH)
		path_pop(s, s->path_len[s->depth]);
	s->depth--;
}

/* A value as the detail writes it. */
void detail_value_text(struct bag_text *t, const struct bag_value *v)
{
	switch (v->prim) {
	case BAG_PRIM_BOOL: bag_text_append(t, v->v.b ? "true" : "false", v->v.b ? 4 : 5); break;
	case BAG_PRIM_INT8: case BAG_PRIM_INT16: case BAG_PRIM_INT32: case BAG_PRIM_INT64:
		bag_text_printf(t, "%lld", (long long)v->v.i);
		break;
	case BAG_PRIM_UINT8: case BAG_PRIM_UINT16: case BAG_PRIM_UINT32: case BAG_PRIM_UINT64:
		bag_text_printf(t, "%llu", (unsigned long long)v->v.u);
		break;
	case BAG_PRIM_FLOAT32: case BAG_PRIM_FLOAT64: bag_text_double(t, v->v.f); break;
	case BAG_PRIM_STRING: bag_text_json_string(t, v->v.s.p, v->v.s.len); break;
	default:
		bag_text_seconds(t, v->v.t.secs, v->v.t.nsecs);
		break;
	}
}

void detail_const_text(struct bag_text *t, const struct bag_msgdef_type *type, const struct bag_msgdef_field *f,
                       const struct bag_value *v)
{
	const struct bag_msgdef_const *c[3];
	size_t n = bag_msgdef_const_match(type, f, v, c, 3);

	for (size_t i = 0; i < n && i < 3; i++)
		bag_text_printf(t, "%s%s", i ? ", " : " (", c[i]->name);
	if (n > 3)
		bag_text_printf(t, ", \xE2\x80\xA6");
	if (n > 0)
		bag_text_append(t, ")", 1);
}

static void tree_value(void *ud, const struct bag_msgdef_field *f, int64_t index, const struct bag_value *v)
{
	struct tree_state *s = ud;
	char name[128];

	if (index >= ARRAY_SHOWN || tree_hidden(s))
		return;
	size_t at = path_push(s, f, index);
	label(name, sizeof name, f, index);
	s->t.len = 0;
	bag_text_printf(&s->t, "%s: ", name);
	detail_value_text(&s->t, v);
	detail_const_text(&s->t, s->owner[s->depth < TREE_DEPTH ? s->depth : TREE_DEPTH - 1], f, v);
	emit_line(s, s->depth, false);
	path_pop(s, at);
}

int detail_decode_lines(const bag_msgdef_t *def, const uint8_t *data, size_t len, detail_line_fn sink,
                        void *arg, struct bag_error *err)
{
	static const struct bag_visitor vis = {
		tree_begin_message, tree_end_message, tree_begin_array, tree_end_array, tree_value,
	};
	struct tree_state s = { .sink = sink, .arg = arg };
	int rc = bag_decode(def, data, len, &vis, &s, NULL, err);

	bag_text_free(&s.t);
	bag_text_free(&s.path);
	return rc;
}

/* The detail pane's sink: keep the line and its path. */
static void keep_line(void *arg, int depth, bool node, const char *text, size_t len, const char *path)
{
	struct detail *d = arg;

	add(d, depth, node, "%.*s", (int)len, text);
	if (d->n > 0 && d->lines[d->n - 1].path == NULL)
		d->lines[d->n - 1].path = strdup(path);
}

int detail_decoded(struct detail *d, const bag_msgdef_t *def, const uint8_t *data, size_t len)
{
	struct bag_error err;
	int rc;

	detail_clear(d);
	rc = detail_decode_lines(def, data, len, keep_line, d, &err);
	if (rc != BAG_OK)
		add(d, 0, false, "decode error: %s", err.message);
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

void detail_hex_width(struct detail *d, const uint8_t *data, size_t len, int width)
{
	static const char hex[] = "0123456789abcdef";

	if (width >= 16) {
		detail_hex(d, data, len);
		return;
	}
	detail_clear(d);
	for (size_t at = 0; at < len; at += (size_t)width) {
		char line[80], *p = line;
		size_t n = len - at < (size_t)width ? len - at : (size_t)width;
		p += snprintf(p, 10, "%08zx ", at);
		for (size_t i = 0; i < (size_t)width; i++) {
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
		*p = '\0';
		add(d, 0, false, "%s", line);
	}
	if (len == 0)
		add(d, 0, false, "(empty message)");
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
	if (!bag_conn_has_definition(c)) {
		/* a bag older than 1.2 stores none: it comes from the type's .msg file, not found */
		add(d, 0, true, "no definition:");
		add(d, 1, false, "this bag does not hold %s's definition and its .msg file was not found,", c->type);
		add(d, 1, false, "so its messages are shown as bytes. Give the folder holding PKG/msg/TYPE.msg:");
		add(d, 1, false, "bagscope --msg-path DIR ... (or BAGSCOPE_MSG_PATH, ROS_PACKAGE_PATH)");
		return;
	}
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
		add(d, 0, false, "definition does not parse: %s", bag_msgdef_error(def)->message);
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
