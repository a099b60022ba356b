/* keys.h - keys to actions, both from the one list in actions.h. */
#ifndef BAGSCOPE_TUI_KEYS_H
#define BAGSCOPE_TUI_KEYS_H

#include "tui/actions.h"

/* The action bound to a curses key code, or ACTION_NONE. */
enum action keys_action(int key);

/* "k, Up" for an action; its help text. Static strings. */
const char *keys_describe(enum action a);
const char *keys_help(enum action a);

#endif
