/*
 * prompt.c - the prompts (prompt.h): one table row per kind (its key, its
 * question, what Enter does, what Tab does), and the editing they share.
 * The text is bytes as the terminal sends them (UTF-8 whole); Backspace
 * removes a whole character. Each kind has its own history.
 */
#define _XOPEN_SOURCE_EXTENDED
#define _GNU_SOURCE
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/app.h"
#include "tui/plot.h"

struct prompt_kind {
	int key;
	enum action action;           /* the action that opens it */
	const char *label;
	bool (*prefill)(struct app *app, char *buf, size_t cap);   /* text to start from; false: do not open */
	void (*submit)(struct app *app, const char *text);
	void (*tab)(struct app *app, struct prompt *p);    /* NULL: Tab is not special */
};

static void jump(struct app *app, const char *text)
{
	model_jump(&app->m, text);
}

/* The filter being edited starts from the active one. */
static bool filter_text(struct app *app, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s", app->find.filter_text);
	return true;
}

static void export_replace(struct app *app, const char *text);
static void write_submit(struct app *app, const char *out);

static const struct prompt_kind kinds[] = {
	{ .key = '/', .action = ACTION_SEARCH, .label = "search:", .submit = find_search },
	{ .key = '&', .action = ACTION_FILTER, .label = "filter (e.g. level >= 4 && $topic == \"/rosout\"; empty: off):",
	  .prefill = filter_text, .submit = find_filter },
	{ .key = 't', .action = ACTION_JUMP, .label = "jump (+10s from start, -30s from end, >5s/<5s from here, date, 50%, #row):",
	  .submit = jump },
	{ .key = 'C', .action = ACTION_COLUMN, .label = "column (/topic.path, a field of this topic, tf(A,B).translation.x; -N removes N, - all):",
	  .submit = app_column_set },
	{ .key = 'W', .action = ACTION_WRITE, .label = "write the marked range of the shown topics to (Esc: no):",
	  .prefill = app_export_prefill, .submit = write_submit },
	/* opened by W's Enter on an existing file, never by a key (W's row comes first) */
	{ .key = 'O', .action = ACTION_WRITE, .label = "replace it? (y: yes; n, Esc: no):", .submit = export_replace },
	{ .key = 'p', .action = ACTION_PLOT, .label = "plot (up to 4 paths, ',' between; Tab completes):",
	  .submit = plot_submit, .tab = plot_tab },
};

_Static_assert(sizeof kinds / sizeof *kinds <= PROMPT_KINDS, "a history per prompt kind");

/* W's Enter: a file that exists is asked about first (the replace prompt's y writes over it). */
static void write_submit(struct app *app, const char *out)
{
	if (out[0] != '\0' && access(out, F_OK) == 0) {
		app->prompt.kind = 'O';
		prompt_set(&app->prompt, "");
		snprintf(app->prompt.hint, sizeof app->prompt.hint, "(%.200s exists)", out);
		return;
	}
	app_export_start(app, out);
}

/* The answer about W's file (its name: W's newest history entry). */
static void export_replace(struct app *app, const char *text)
{
	for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
		const struct history *h = &app->prompt.hist[k];
		if (kinds[k].key == 'W')
			app_export_replace(app, text, h->n > 0 ? h->items[h->n - 1] : NULL);
	}
}

static int kind_index(int key)
{
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
		if (kinds[i].key == key)
			return (int)i;
	return -1;
}

void prompt_set(struct prompt *p, const char *text)
{
	p->len = (size_t)snprintf(p->buf, sizeof p->buf, "%s", text);
	if (p->len >= sizeof p->buf)
		p->len = sizeof p->buf - 1;
}

bool prompt_for_action(struct app *app, enum action a)
{
	struct prompt *p = &app->prompt;
	char text[sizeof p->buf] = "";

	for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
		if (kinds[k].action != a)
			continue;
		if (kinds[k].prefill != NULL && !kinds[k].prefill(app, text, sizeof text))
			return true;
		p->kind = kinds[k].key;
		p->hint[0] = '\0';
		prompt_set(p, text);
		p->hist[k].at = p->hist[k].n;
		return true;
	}
	return false;
}

/* Keep what was typed, newest last, without repeating the last one. */
static void history_add(struct history *h, const char *s)
{
	if (s[0] == '\0' || (h->n > 0 && strcmp(h->items[h->n - 1], s) == 0))
		return;
	if (h->n == HISTORY_MAX) {
		free(h->items[0]);
		memmove(h->items, h->items + 1, (HISTORY_MAX - 1) * sizeof *h->items);
		h->n--;
	}
	if ((h->items[h->n] = strdup(s)) != NULL)
		h->n++;
}

/* Editing keys: true if key was one. */
static bool edit(struct prompt *p, struct history *h, int key)
{
	if (key == KEY_UP || key == KEY_DOWN) {
		int at = h->at + (key == KEY_UP ? -1 : 1);
		if (at >= 0 && at <= h->n) {
			h->at = at;
			prompt_set(p, at < h->n ? h->items[at] : "");
		}
	} else if (key == 21) {                 /* Ctrl-U: all */
		p->len = 0;
	} else if (key == 23) {                 /* Ctrl-W: the last word */
		while (p->len > 0 && p->buf[p->len - 1] == ' ')
			p->len--;
		while (p->len > 0 && p->buf[p->len - 1] != ' ')
			p->len--;
	} else if (key == KEY_BACKSPACE || key == 127 || key == 8) {
		while (p->len > 0 && ((unsigned char)p->buf[--p->len] & 0xC0) == 0x80)
			;
	} else if (key >= 0x20 && key <= 0xff && key != 0x7f) {
		/* printable ASCII and the bytes of UTF-8 characters, as the terminal sends them */
		if (p->len + 1 < sizeof p->buf)
			p->buf[p->len++] = (char)key;
	} else {
		return false;
	}
	p->buf[p->len] = '\0';
	p->hint[0] = '\0';
	return true;
}

void prompt_key(struct app *app, int key)
{
	struct prompt *p = &app->prompt;
	int k = kind_index(p->kind);

	if (k < 0 || key == 27) {
		p->kind = 0;
		return;
	}
	if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		char text[sizeof p->buf];
		snprintf(text, sizeof text, "%s", p->buf);
		p->kind = 0;
		history_add(&p->hist[k], text);
		kinds[k].submit(app, text);
		return;
	}
	if (key == '\t' && kinds[k].tab != NULL) {
		kinds[k].tab(app, p);
		return;
	}
	edit(p, &p->hist[k], key);
}

void prompt_line(const struct app *app, char *out, size_t cap)
{
	const struct prompt *p = &app->prompt;
	int k = kind_index(p->kind);

	snprintf(out, cap, "%s %s%s%s", k >= 0 ? kinds[k].label : "", p->buf, p->hint[0] ? "    " : "", p->hint);
}

void prompt_free(struct prompt *p)
{
	for (size_t k = 0; k < PROMPT_KINDS; k++)
		for (int i = 0; i < p->hist[k].n; i++)
			free(p->hist[k].items[i]);
}
