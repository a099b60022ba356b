/*
 * keys.c - the key bindings, generated from TUI_ACTIONS so that what the
 * help screen says is what the keys do.
 */
#include <curses.h>
#include <stdio.h>

#include "tui/keys.h"

struct binding {
	int key1, key2;
	const char *help;
};

static const struct binding bindings[ACTION_COUNT] = {
#define TUI_X_BIND(name, k1, k2, h) [ACTION_##name] = { k1, k2, h },
	TUI_ACTIONS(TUI_X_BIND)
#undef TUI_X_BIND
};

enum action keys_action(int key)
{
	for (int a = 1; a < ACTION_COUNT; a++)
		if (key != 0 && (bindings[a].key1 == key || bindings[a].key2 == key))
			return (enum action)a;
	if (key == '\r')
		return ACTION_ENTER;
	if (key == 6)
		return ACTION_PAGE_DOWN;   /* Ctrl-F, as in less and vim */
	if (key == 2)
		return ACTION_PAGE_UP;     /* Ctrl-B */
	return ACTION_NONE;
}

/* A key's name as a user types it. */
static const char *keyname_of(int key, char *buf, size_t cap)
{
	switch (key) {
	case ' ': return "Space";
	case '\t': return "Tab";
	case '\n': return "Enter";
	case 27: return "Esc";
	case KEY_ENTER: return "Enter";
	case KEY_UP: return "Up";
	case KEY_DOWN: return "Down";
	case KEY_LEFT: return "Left";
	case KEY_RIGHT: return "Right";
	case KEY_PPAGE: return "PgUp";
	case KEY_NPAGE: return "PgDn";
	case KEY_HOME: return "Home";
	case KEY_END: return "End";
	case KEY_BTAB: return "Shift-Tab";
	default:
		if (key > 0 && key < 32)
			snprintf(buf, cap, "Ctrl-%c", key + 64);
		else
			snprintf(buf, cap, "%c", key);
		return buf;
	}
}

const char *keys_describe(enum action a)
{
	static char out[64];
	char b1[16], b2[16];

	if (a <= ACTION_NONE || a >= ACTION_COUNT)
		return "";
	if (bindings[a].key2 && bindings[a].key2 != KEY_ENTER)
		snprintf(out, sizeof out, "%s, %s", keyname_of(bindings[a].key1, b1, sizeof b1),
		         keyname_of(bindings[a].key2, b2, sizeof b2));
	else
		snprintf(out, sizeof out, "%s", keyname_of(bindings[a].key1, b1, sizeof b1));
	return out;
}

const char *keys_help(enum action a)
{
	return a > ACTION_NONE && a < ACTION_COUNT ? bindings[a].help : "";
}
