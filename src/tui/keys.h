/*
 * keys.h - every action the browser knows, in one X-macro list that gives
 * the enum, the key bindings and the help screen's text (tig's request.h).
 *
 * X(ID, KEYS, HELP, key...) where KEYS is what the help screen shows and the
 * trailing keys are the curses key codes bound to the action. Panes receive
 * an enum action, never a raw key, so tests and the bench can inject them.
 * Key codes from curses are spelled through KEYC_* below so that this header
 * stays usable without <curses.h>.
 */
#ifndef BAGSCOPE_TUI_KEYS_H
#define BAGSCOPE_TUI_KEYS_H

#include <stddef.h>

/* curses key codes (values fixed by X/Open curses; checked in keys.c) */
#define KEYC_DOWN 0402
#define KEYC_UP 0403
#define KEYC_LEFT 0404
#define KEYC_RIGHT 0405
#define KEYC_HOME 0406
#define KEYC_BACKSPACE 0407
#define KEYC_NPAGE 0522
#define KEYC_PPAGE 0523
#define KEYC_ENTER 0527
#define KEYC_BTAB 0541
#define KEYC_END 0550
#define CTRL(c) ((c) & 0x1f)

#define ACTIONS(X) \
	X(UP,         "k ↑",          "move up one row",                          'k', KEYC_UP) \
	X(DOWN,       "j ↓",          "move down one row",                        'j', KEYC_DOWN) \
	X(LEFT,       "h ←",          "collapse / scroll left / previous column", 'h', KEYC_LEFT) \
	X(RIGHT,      "l →",          "expand / scroll right / next column",      'l', KEYC_RIGHT) \
	X(PAGE_UP,    "PgUp b",       "page up",                                  'b', KEYC_PPAGE, CTRL('b')) \
	X(PAGE_DOWN,  "PgDn Space",   "page down",                                ' ', KEYC_NPAGE, CTRL('f')) \
	X(HOME,       "Home g",       "first row",                                'g', KEYC_HOME) \
	X(END,        "End G",        "last row",                                 'G', KEYC_END) \
	X(NEXT_PANE,  "Tab",          "next pane",                                '\t') \
	X(PREV_PANE,  "S-Tab",        "previous pane",                            KEYC_BTAB) \
	X(ENTER,      "Enter",        "open: connection info / focus detail / expand", '\n', '\r', KEYC_ENTER) \
	X(TOGGLE,     "f",            "show or hide the topic under the cursor",  'f') \
	X(SOLO,       "F",            "show only this topic / show all again",    'F') \
	X(SORT,       "s",            "sort topics by name, count or rate",       's') \
	X(TIME_MODE,  "r",            "absolute or relative times",               'r') \
	X(HEX,        "x",            "detail: decoded tree or hex dump",         'x') \
	X(CONN_INFO,  "c",            "detail: connection header and definition", 'c') \
	X(EXPAND_ALL, "e E",          "expand all / collapse all in the tree",    'e', 'E') \
	X(JUMP,       "t :",          "jump to a time, offset, 50% or #row",      't', ':') \
	X(NEXT_TOPIC, "]",            "next message on the same topic",           ']') \
	X(PREV_TOPIC, "[",            "previous message on the same topic",       '[') \
	X(FWD_1S,     ".",            "forward 1 s",                              '.') \
	X(BACK_1S,    ",",            "back 1 s",                                 ',') \
	X(FWD_10S,    ">",            "forward 10 s",                             '>') \
	X(BACK_10S,   "<",            "back 10 s",                                '<') \
	X(SEARCH,     "/",            "search decoded messages of shown topics",  '/') \
	X(SEARCH_NEXT, "n",           "next match",                               'n') \
	X(SEARCH_PREV, "N",           "previous match",                           'N') \
	X(CANCEL,     "Esc",          "cancel a search or a prompt",              27) \
	X(REDRAW,     "^L",           "redraw the screen",                        CTRL('l')) \
	X(HELP,       "?",            "this help",                                '?', KEYC_F1) \
	X(QUIT,       "q",            "quit",                                     'q', 'Q')

#define KEYC_F1 0411

enum action {
	ACT_NONE = 0,
#define ACTION_ENUM(id, keys, help, ...) ACT_##id,
	ACTIONS(ACTION_ENUM)
#undef ACTION_ENUM
	ACT_COUNT
};

/* One row of the table: what the help screen shows. */
struct action_info {
	enum action action;
	const char *name;   /* "DOWN" */
	const char *keys;   /* "j ↓" */
	const char *help;
};

/* The action bound to key, or ACT_NONE. */
enum action keys_action(int key);
/* The table, ACT_COUNT - 1 rows in help order. */
const struct action_info *keys_table(size_t *n);
/* The action called name ("DOWN"), for scripted input; ACT_NONE if none. */
enum action keys_by_name(const char *name);

#endif
