/*
 * actions.h - every action of the browser, in one X-macro list that binds
 * its keys and gives the help screen its text: X(name, key1, key2, help).
 * A key of 0 means none. Views receive actions, never raw keys.
 */
#ifndef BAGSCOPE_TUI_ACTIONS_H
#define BAGSCOPE_TUI_ACTIONS_H

#define TUI_ACTIONS(X) \
	X(UP,           KEY_UP,    'k',  "move up (a count first: 5k)") \
	X(DOWN,         KEY_DOWN,  'j',  "move down (a count first: 5j)") \
	X(PAGE_UP,      KEY_PPAGE, 'b',  "page up (also Ctrl-B)") \
	X(PAGE_DOWN,    KEY_NPAGE, ' ',  "page down (also Ctrl-F)") \
	X(HALF_UP,      21,        0,    "half a page up") \
	X(HALF_DOWN,    4,         0,    "half a page down") \
	X(TOP,          KEY_HOME,  'g',  "first row") \
	X(BOTTOM,       KEY_END,   'G',  "last row (a count first: that row)") \
	X(LEFT,         KEY_LEFT,  'h',  "collapse / scroll left") \
	X(RIGHT,        KEY_RIGHT, 'l',  "expand / scroll right") \
	X(NEXT_PANE,    '\t',      0,    "next pane") \
	X(PREV_PANE,    KEY_BTAB,  0,    "previous pane") \
	X(ENTER,        '\n',      KEY_ENTER, "open: a topic's connections / expand a field") \
	X(TOGGLE_TOPIC, 'x',       0,    "show or hide the selected message's (or topic's) topic") \
	X(SOLO_TOPIC,   'o',       0,    "show only that topic") \
	X(ALL_TOPICS,   'a',       0,    "show all topics") \
	X(SORT,         's',       0,    "sort connections by name, count or rate") \
	X(TIME_MODE,    'r',       0,    "times: epoch, relative, time of day") \
	X(ZONE,         'Z',       0,    "dates in UTC or local time") \
	X(DETAIL_MODE,  'v',       0,    "detail: decoded, hex, connection") \
	X(HEX,          'H',       0,    "detail: hex dump") \
	X(ZOOM,         'z',       0,    "zoom the detail to the full screen") \
	X(WRAP,         'w',       0,    "wrap long lines in the detail") \
	X(LOG,          'L',       0,    "the log: recovery report, warnings, errors") \
	X(JUMP,         't',       ':',  "jump: +10s from the start, -30s from the end, >5s/<5s from here, date, 50%, #row") \
	X(NEXT_SAME,    ']',       0,    "next message on the same topic") \
	X(PREV_SAME,    '[',       0,    "previous message on the same topic") \
	X(FWD_1S,       '.',       0,    "forward 1 s") \
	X(BACK_1S,      ',',       0,    "back 1 s") \
	X(FWD_10S,      '>',       0,    "forward 10 s") \
	X(BACK_10S,     '<',       0,    "back 10 s") \
	X(SEARCH,       '/',       0,    "search the text shown (smart case; a regex if it has . * [ ... but is no number like 3.14; PATH=~TEXT: one field)") \
	X(SEARCH_NEXT,  'n',       0,    "next match") \
	X(SEARCH_PREV,  'N',       0,    "previous match") \
	X(FILTER,       '&',       'f',  "filter: show only messages for which an expression holds (empty: off)") \
	X(COLUMN,       'C',       0,    "add a column: /topic.path, a field of the selected topic, or tf(A,B).translation.x; -N removes column N, - all") \
	X(MARK,         'm',       0,    "mark or unmark the selected message") \
	X(MARK_NEXT,    'u',       '\'', "next mark") \
	X(MARK_PREV,    'U',       0,    "previous mark") \
	X(COPY,         'y',       0,    "copy the value under the cursor (a message or array: its YAML; list: the message)") \
	X(COPY_PATH,    'Y',       0,    "copy the field path under the cursor") \
	X(COPY_JSON,    'c',       0,    "copy the message as JSON") \
	X(WRITE,        'W',       0,    "write the marked range (first to last mark) of the shown topics and the filter to a bag") \
	X(CANCEL,       27,        0,    "cancel a search, a filter, a write, a prompt, or a URL's reads in flight") \
	X(PLOT,         'p',       0,    "plot message paths over time (Tab completes)") \
	X(PLOT_ZOOM_IN, '+',       '=',  "plot: zoom in around the cursor") \
	X(PLOT_ZOOM_OUT, '-',      0,    "plot: zoom out") \
	X(PLOT_PAN_LEFT, '{',      0,    "plot: pan back (the selection moves along)") \
	X(PLOT_PAN_RIGHT, '}',     0,    "plot: pan forward") \
	X(PLOT_CLOSE,   'P',       0,    "close the plot") \
	X(TF,           'T',       0,    "the TF pane: frame tree, ages and lookups at the selected time") \
	X(DIAG,         'D',       0,    "the diagnostics pane: each status's level at the selected time, its changes") \
	X(ROSOUT,       'E',       0,    "the rosout pane (focused: previous error; +/- level, x/a nodes, w/W warnings)") \
	X(ERR_NEXT,     'e',       0,    "rosout pane: next error") \
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
