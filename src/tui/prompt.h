/*
 * prompt.h - the one-line prompts (/ & t C W p), all edited alike: typing,
 * Backspace, Ctrl-U (all), Ctrl-W (the last word), Up and Down (history),
 * Tab (completion, where the kind has it), Enter and Esc. What each kind
 * asks and does is one row of the table in prompt.c.
 */
#ifndef BAGSCOPE_TUI_PROMPT_H
#define BAGSCOPE_TUI_PROMPT_H

#include <stdbool.h>
#include <stddef.h>

#include "tui/actions.h"

#define HISTORY_MAX 50
#define PROMPT_KINDS 8

struct app;

/* A prompt's earlier entries, oldest first. */
struct history {
	char *items[HISTORY_MAX];
	int n;
	int at;                       /* while browsing: the entry shown (n: the new one) */
};

struct prompt {
	int kind;                     /* 0 (closed), or the key of its table row: '/', '&', 't', 'C', 'W', 'p' */
	char buf[256];
	size_t len;
	char hint[256];               /* shown after the text (completions), or "" */
	struct history hist[PROMPT_KINDS];
};

/* If a opens a prompt, open it (or say why not) and return true. */
bool prompt_for_action(struct app *app, enum action a);
/* A key while open: edits, or Enter runs the kind's action, Esc closes. */
void prompt_key(struct app *app, int key);
/* The status line's text while open ("search: text    hint"). */
void prompt_line(const struct app *app, char *out, size_t cap);
/* Replace the text (completion). */
void prompt_set(struct prompt *p, const char *text);
void prompt_free(struct prompt *p);

#endif
