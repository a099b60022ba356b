/*
 * copy.c - copying to the clipboard with OSC 52 (ESC ] 52 ; c ; BASE64 BEL),
 * which xterm, kitty, iTerm2, WezTerm, foot and tmux (set-clipboard on)
 * understand, over ssh too. What is copied: the value or the field path
 * under the detail's cursor (a nested message or array: its subtree as
 * YAML), or the selected message as YAML or JSON.
 *
 * A subtree's YAML is cut from the whole message's (bag_print_yaml, what
 * cat --format yaml prints), so the two are the same text: genpy's layout
 * puts a field's block on the lines after "name:" indented deeper, and an
 * array's element k after its k-th "-" line; the block is de-indented.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/draw.h"
#include "tui/view-detail.h"

/* Base64 of s[0..n) appended to t. */
static void base64(struct bag_text *t, const uint8_t *s, size_t n)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)s[i] << 16 | (i + 1 < n ? (uint32_t)s[i + 1] << 8 : 0) | (i + 2 < n ? s[i + 2] : 0);
		char q[4] = { b64[v >> 18 & 63], b64[v >> 12 & 63], i + 1 < n ? b64[v >> 6 & 63] : '=',
		              i + 2 < n ? b64[v & 63] : '=' };
		bag_text_append(t, q, 4);
	}
}

/* Whether tmux, if we run inside it, passes OSC 52 on ("on"; "external" does not take ours). */
static bool tmux_passes(void)
{
	char buf[32] = "";
	FILE *p;

	if (getenv("TMUX") == NULL)
		return true;
	if ((p = popen("tmux show-options -gv set-clipboard 2>/dev/null", "r")) == NULL)
		return true;
	if (fgets(buf, sizeof buf, p) == NULL)
		buf[0] = '\0';
	pclose(p);
	return strncmp(buf, "on", 2) == 0;
}

/* Send text to the clipboard; say what happened in the note. */
static void osc52(struct app *app, const char *what, const char *s, size_t n)
{
	struct bag_text t = { 0 };

	bag_text_append(&t, "\033]52;c;", 7);
	base64(&t, (const uint8_t *)s, n);
	bag_text_append(&t, "\a", 1);
	if (!t.failed) {
		fwrite(t.p, 1, t.len, stdout);
		fflush(stdout);
	}
	bag_text_free(&t);
	if (!tmux_passes())
		snprintf(app->m.note, sizeof app->m.note, "copied %s (%zu bytes) with OSC 52, but tmux drops it: "
		         "tmux set -g set-clipboard on", what, n);
	else
		snprintf(app->m.note, sizeof app->m.note, "copied %s (%zu bytes) to the clipboard (OSC 52)", what, n);
}

/* The end of the line at p (its '\n' or the end of the text). */
static const char *line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	return nl ? nl : end;
}

static int indent_of(const char *p, const char *end)
{
	int n = 0;
	while (p + n < end && p[n] == ' ')
		n++;
	return n;
}

/*
 * In [*p, end), a block whose lines are indented more than `outer`: the line
 * of field `name` (len n) at indent `in`, or with k >= 0 that field's k-th
 * "-" item. *p moves to the block's first line; *in to its indent.
 */
static bool yaml_find(const char **p, const char *end, int *in, const char *name, size_t n, long k,
                      const char **field)
{
	int outer = *in;
	for (const char *q = *p; q < end; q = line_end(q, end) + 1) {
		int i = indent_of(q, end);
		if (i <= outer - 1 && q != *p)
			return false;
		if (i != outer || (size_t)(end - q) < (size_t)i + n + 1 || memcmp(q + i, name, n) != 0 || q[i + n] != ':')
			continue;
		*field = q;
		q = line_end(q, end) + 1;                    /* the field's block */
		for (; k >= 0 && q < end; q = line_end(q, end) + 1) {
			i = indent_of(q, end);
			if (i <= outer)
				return false;
			if (q[i] == '-' && k-- == 0) {
				q = line_end(q, end) + 1;
				break;
			}
		}
		*p = q;
		*in = q < end ? indent_of(q, end) : outer + 2;
		return *in > outer;
	}
	return false;
}

/* The YAML of the subtree at path ("transforms[0].transform") cut from a whole message's yaml. */
static bool yaml_subtree(struct bag_text *out, const char *yaml, size_t len, const char *path)
{
	const char *p = yaml, *end = yaml + len, *field = NULL;
	int in = 0;

	while (*path) {
		size_t n = strcspn(path, ".[");
		long k = -1;
		const char *next = path + n;
		if (*next == '[') {
			k = strtol(next + 1, (char **)&next, 10);
			next += *next == ']';
		}
		field = NULL;
		if (!yaml_find(&p, end, &in, path, n, k, &field)) {
			/* an array of numbers is written inline: "data: [1, 2, 3]" */
			if (field == NULL || k >= 0 || *next != '\0')
				return false;
			const char *v = field + indent_of(field, end) + n + 1, *e = line_end(field, end);
			v += v < e && *v == ' ';
			bag_text_append(out, v, (size_t)(e - v));
			bag_text_append(out, "\n", 1);
			return e > v;
		}
		path = *next == '.' ? next + 1 : next;
	}
	for (const char *q = p; q < end && indent_of(q, end) >= in; q = line_end(q, end) + 1) {
		const char *e = line_end(q, end);
		bag_text_append(out, q + in, (size_t)(e - q - in));
		bag_text_append(out, "\n", 1);
	}
	return out->len > 0;
}

/* y on a nested message or array: its subtree as cat --format yaml writes it. */
static void copy_subtree(struct app *app, const bag_msgdef_t *def, const char *path)
{
	struct bag_text whole = { 0 }, sub = { 0 };
	struct bag_error err = BAG_ERROR_INIT;

	if (bag_print_yaml(&whole, def, app->sel.bytes, app->sel.size, &err) != BAG_OK)
		snprintf(app->m.note, sizeof app->m.note, "cannot copy: %s", err.message);
	else if (whole.failed || !yaml_subtree(&sub, whole.p, whole.len, path) || sub.failed)
		snprintf(app->m.note, sizeof app->m.note, "cannot copy %s: not found in the message's YAML", path);
	else
		osc52(app, "the subtree as YAML", sub.p, sub.len);
	bag_text_free(&whole);
	bag_text_free(&sub);
}

void app_copy(struct app *app, enum action a)
{
	struct model *m = &app->m;
	struct bag_message msg;
	struct bag_text t = { 0 };
	struct bag_error err = BAG_ERROR_INIT;

	if (model_entry(m, m->row, &msg) != BAG_OK || app->sel.bytes == NULL) {
		snprintf(m->note, sizeof m->note, "nothing to copy yet");
		return;
	}
	bag_msgdef_t *def = app_def(app, msg.conn_index);
	const struct dline *l = m->focus == PANE_DETAIL ? detail_pane_cursor_line(app) : NULL;

	if (a == ACTION_COPY && l != NULL && l->path != NULL && l->node && bag_msgdef_root(def) != NULL) {
		copy_subtree(app, def, l->path);
	} else if (a == ACTION_COPY && l != NULL && l->path != NULL) {
		const char *v = strstr(l->text, ": ");
		v = v ? v + 2 : l->text;
		osc52(app, "the value", v, strlen(v));
	} else if (a == ACTION_COPY_PATH) {
		if (l == NULL || l->path == NULL)
			snprintf(m->note, sizeof m->note, "Y copies the field path under the detail's cursor");
		else {
			bag_text_printf(&t, "%s.%s", msg.conn->topic, l->path);
			osc52(app, "the field path", t.p, t.len);
		}
	} else if (bag_msgdef_root(def) != NULL) {
		int rc = a == ACTION_COPY_JSON ? bag_print_json(&t, def, app->sel.bytes, app->sel.size, &err)
		                               : bag_print_yaml(&t, def, app->sel.bytes, app->sel.size, &err);
		if (rc == BAG_OK && !t.failed)
			osc52(app, a == ACTION_COPY_JSON ? "the message as JSON" : "the message as YAML", t.p, t.len);
		else
			snprintf(m->note, sizeof m->note, "cannot copy: %s", rc == BAG_OK ? "out of memory" : err.message);
	}
	bag_text_free(&t);
}
