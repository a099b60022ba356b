/*
 * keys.c - key codes to actions, from the one table in keys.h. The table is
 * small, so lookup is a linear scan over each action's keys.
 */
#include <curses.h>
#include <string.h>

#include "tui/keys.h"

_Static_assert(KEYC_DOWN == KEY_DOWN && KEYC_UP == KEY_UP && KEYC_LEFT == KEY_LEFT &&
               KEYC_RIGHT == KEY_RIGHT && KEYC_HOME == KEY_HOME && KEYC_END == KEY_END &&
               KEYC_NPAGE == KEY_NPAGE && KEYC_PPAGE == KEY_PPAGE && KEYC_ENTER == KEY_ENTER &&
               KEYC_BTAB == KEY_BTAB && KEYC_BACKSPACE == KEY_BACKSPACE && KEYC_F1 == KEY_F(1),
               "curses key codes differ from keys.h");

/* Keys bound to each action, 0-terminated. */
struct binding {
	enum action action;
	const int *keys;
};

static const struct binding bindings[] = {
#define ACTION_BIND(id, k, h, ...) { ACT_##id, (const int[]){ __VA_ARGS__, 0 } },
	ACTIONS(ACTION_BIND)
#undef ACTION_BIND
};

static const struct action_info infos[] = {
#define ACTION_INFO(id, k, h, ...) { ACT_##id, #id, k, h },
	ACTIONS(ACTION_INFO)
#undef ACTION_INFO
};

enum action keys_action(int key)
{
	for (size_t i = 0; i < sizeof bindings / sizeof *bindings; i++)
		for (const int *k = bindings[i].keys; *k != 0; k++)
			if (*k == key)
				return bindings[i].action;
	return ACT_NONE;
}

const struct action_info *keys_table(size_t *n)
{
	*n = sizeof infos / sizeof *infos;
	return infos;
}

enum action keys_by_name(const char *name)
{
	for (size_t i = 0; i < sizeof infos / sizeof *infos; i++)
		if (strcmp(infos[i].name, name) == 0)
			return infos[i].action;
	return ACT_NONE;
}
