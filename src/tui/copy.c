/*
 * copy.c - copying to the clipboard with OSC 52 (ESC ] 52 ; c ; BASE64 BEL),
 * which xterm, kitty, iTerm2, WezTerm, foot and tmux (set-clipboard on)
 * understand, over ssh too. What is copied: the value or the field path
 * under the detail's cursor, or the selected message as YAML or JSON.
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

	if (a == ACTION_COPY && l != NULL && l->path != NULL) {
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
