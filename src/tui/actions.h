/*
 * actions.h - every action of the browser, in one X-macro list that binds
 * its keys and gives the help screen its text: X(name, key1, key2, help).
 * A key of 0 means none. Views receive actions, never raw keys.
 */
#ifndef BAGSCOPE_TUI_ACTIONS_H
#define BAGSCOPE_TUI_ACTIONS_H

#define TUI_ACTIONS(X) \
	X(UP,           KEY_UP,    'k',  "move up") \
	X(DOWN,         KEY_DOWN,  'j',  "move down") \
	X(PAGE_UP,      KEY_PPAGE, 'b',  "page up") \
	X(PAGE_DOWN,    KEY_NPAGE, ' ',  "page down") \
	X(TOP,          KEY_HOME,  'g',  "first row") \
	X(BOTTOM,       KEY_END,   'G',  "last row") \
	X(LEFT,         KEY_LEFT,  'h',  "collapse / scroll left") \
	X(RIGHT,        KEY_RIGHT, 'l',  "expand / scroll right") \
	X(NEXT_PANE,    '\t',      0,    "next pane") \
	X(PREV_PANE,    KEY_BTAB,  0,    "previous pane") \
	X(ENTER,        '\n',      KEY_ENTER, "open: connection details / expand a field") \
	X(TOGGLE_TOPIC, 'x',       0,    "show or hide the selected topic") \
	X(SOLO_TOPIC,   'o',       0,    "show only the selected topic") \
	X(ALL_TOPICS,   'a',       0,    "show all topics") \
	X(SORT,         's',       0,    "sort connections by name, count or rate") \
	X(TIME_MODE,    'r',       0,    "absolute or relative times") \
	X(DETAIL_MODE,  'v',       0,    "detail: decoded, hex, connection") \
	X(HEX,          'H',       0,    "detail: hex dump") \
	X(JUMP,         't',       ':',  "jump to a time (epoch, date, +offset, 50%, #row)") \
	X(NEXT_SAME,    ']',       0,    "next message on the same topic") \
	X(PREV_SAME,    '[',       0,    "previous message on the same topic") \
	X(FWD_1S,       '.',       0,    "forward 1 s") \
	X(BACK_1S,      ',',       0,    "back 1 s") \
	X(FWD_10S,      '>',       0,    "forward 10 s") \
	X(BACK_10S,     '<',       0,    "back 10 s") \
	X(SEARCH,       '/',       0,    "search decoded content") \
	X(SEARCH_NEXT,  'n',       0,    "next match") \
	X(SEARCH_PREV,  'N',       0,    "previous match") \
	X(CANCEL,       27,        0,    "cancel a search or prompt") \
	X(PLOT,         'p',       0,    "plot message paths over time (Tab completes)") \
	X(PLOT_ZOOM_IN, '+',       '=',  "plot: zoom in around the cursor") \
	X(PLOT_ZOOM_OUT, '-',      0,    "plot: zoom out") \
	X(PLOT_PAN_LEFT, '{',      0,    "plot: pan back (the selection moves along)") \
	X(PLOT_PAN_RIGHT, '}',     0,    "plot: pan forward") \
	X(PLOT_CLOSE,   'P',       0,    "close the plot") \
	X(HELP,         '?',       0,    "this help") \
	X(QUIT,         'q',       0,    "quit")

enum action {
	ACTION_NONE,
#define TUI_X_ENUM(name, k1, k2, help) ACTION_##name,
	TUI_ACTIONS(TUI_X_ENUM)
#undef TUI_X_ENUM
	ACTION_COUNT
};

#endif
