/*
 * model.h - the browser's view model: everything the panes know that does
 * not need a terminal. Cursor and scrolling over a list of any length, the
 * topic table and its filter mask, the jump-to-time language, the decoded
 * message tree with expand/collapse, text split into lines, and the
 * formatters for times, sizes, rates and hex lines.
 *
 * Nothing here calls curses, so tests drive it directly (tests/unit/
 * test-tui-model.c). Drawing code reads these structures and never changes
 * them except through the functions below.
 */
#ifndef BAGSCOPE_TUI_MODEL_H
#define BAGSCOPE_TUI_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <bagscope/bagscope.h>

/* ---- scroller: a cursor over count rows, height of them visible ---------- */

/*
 * Invariants after every call: cursor < count (0 when count is 0);
 * top <= cursor < top + height; top + height <= count when count >= height,
 * else top == 0.
 */
struct scroller {
	uint64_t count;   /* rows in the list */
	uint64_t cursor;  /* the selected row */
	uint64_t top;     /* first row shown */
	int height;       /* rows shown at once (>= 1) */
};

void scroller_init(struct scroller *s, uint64_t count, int height);
void scroller_set_count(struct scroller *s, uint64_t count);
void scroller_set_height(struct scroller *s, int height);
/* Move the cursor by delta rows, clamped; scrolls the least needed. */
void scroller_move(struct scroller *s, int64_t delta);
/* Page down (dir > 0) or up: cursor and top move by a page together. */
void scroller_page(struct scroller *s, int dir);
/* Select row: unchanged top if row is visible, else row a third down. */
void scroller_goto(struct scroller *s, uint64_t row);
/* Mouse wheel: move top by delta, dragging the cursor along if needed. */
void scroller_scroll(struct scroller *s, int64_t delta);
/* The row at screen line y of the pane (may be >= count). */
static inline uint64_t scroller_row_at(const struct scroller *s, int y)
{
	return s->top + (uint64_t)y;
}

/* ---- jump language ------------------------------------------------------ */

enum jump_kind { JUMP_TIME, JUMP_ROW };

/* Where a jump lands: a time (first shown message at or after) or a row. */
struct jump {
	enum jump_kind kind;
	int64_t time_ns;  /* JUMP_TIME */
	uint64_t row;     /* JUMP_ROW: 0-based */
};

/* What a jump is relative to. */
struct jump_ctx {
	int64_t start_ns;   /* bag start */
	int64_t end_ns;     /* bag end */
	int64_t current_ns; /* the selected message's time */
};

/*
 * Parse what the user typed after `t`:
 *   1600000012.5            epoch seconds (a plain number below 1e8 is an
 *                           offset from the start when the bag is later)
 *   2020-09-13 12:26:52.5   date and time, local; a trailing Z means UTC;
 *                           'T' may separate; 12:26:52 alone: that time on
 *                           the selected message's day
 *   +12.5  1m30s  90s       offset from the bag start
 *   +5s  -200ms  -3         relative to the selection (a sign and a unit,
 *                           or a minus sign)
 *   50%                     share of the bag's duration
 *   #12345                  row 12345 as shown (1-based)
 * Returns 0 and fills *out, or -1 for text it does not understand.
 */
int jump_parse(const char *s, const struct jump_ctx *ctx, struct jump *out);

/*
 * Parse a duration: "1.5", "200ms", "1m30s", "2h", "10us", "5ns"; a bare
 * number is seconds. Returns 0 and sets *ns (>= 0), or -1.
 */
int duration_parse(const char *s, int64_t *ns);

/* ---- formatters --------------------------------------------------------- */

/* "1500000000.123456789" (buf >= 24). */
void fmt_time_abs(char *buf, size_t len, int64_t ns);
/* Seconds since start with 9 decimals: "7.000000000", "-0.5..." */
void fmt_time_rel(char *buf, size_t len, int64_t ns, int64_t start_ns);
/* "2017-07-14 02:40:03.250 UTC" in local time (TZ). */
void fmt_date(char *buf, size_t len, int64_t ns);
/* Short clock for axes: "02:40:03". */
void fmt_clock(char *buf, size_t len, int64_t ns);
/* 999, 1.2K, 34.5M, 1.2G */
void fmt_size(char *buf, size_t len, uint64_t bytes);
/* Short count: 999, 12.3k, 4.0M */
void fmt_count(char *buf, size_t len, uint64_t n);
/* Rate in Hz, or "-" when unknown */
void fmt_rate(char *buf, size_t len, double hz);
/*
 * Hex dump line `line` of data[0..size): "00000010  6c 69 ... 00  |li...|"
 * (offset, 16 bytes in two groups of 8, ASCII). Returns false past the end.
 */
bool fmt_hex_line(char *buf, size_t len, const uint8_t *data, size_t size, uint64_t line);
/* Lines the hex dump has. */
static inline uint64_t hex_line_count(size_t size)
{
	return size == 0 ? 1 : (size + 15) / 16;
}

/* ---- topics: the connections pane's table ------------------------------- */

enum topic_sort { SORT_NAME, SORT_COUNT, SORT_RATE, SORT_N };

/* One topic: every connection that publishes on it, folded together. */
struct topic_row {
	const char *topic;     /* borrowed from the timeline's first connection */
	const char *type;      /* its type; the first one if connections differ */
	bool mixed_types;      /* connections disagree on the type */
	uint64_t count;        /* messages over all its connections */
	double rate;           /* count / bag duration, Hz (0 if unknown) */
	size_t nconns;         /* connections folded in */
	size_t *conns;         /* their timeline connection indices (owned) */
	bool shown;            /* selected for the message list */
	size_t color;          /* stable colour slot: order of first appearance */
};

struct topics {
	struct topic_row *rows; /* sorted by sort (owned) */
	size_t n;
	size_t nconns;          /* timeline connections */
	enum topic_sort sort;
};

/* Build from the timeline's connections, all shown, by name. 0 or BAG_ENOMEM. */
int topics_build(struct topics *t, const bag_timeline_t *tl);
void topics_free(struct topics *t);
void topics_sort(struct topics *t, enum topic_sort sort);
/* Fill mask[0..nconns) from the shown topics. */
void topics_mask(const struct topics *t, bool *mask);
/* Topics shown, and messages they hold. */
size_t topics_shown(const struct topics *t, uint64_t *messages);
/* The row of timeline connection conn_index (n if none). */
size_t topics_find_conn(const struct topics *t, size_t conn_index);
/* The name of a sort key ("name", "count", "rate"). */
const char *topic_sort_name(enum topic_sort s);

/* ---- text split into lines ---------------------------------------------- */

/* A text and where each of its lines starts; lines hold no '\n'. */
struct textlines {
	char *text;     /* owned, NUL-terminated; '\n' replaced by NUL */
	size_t *start;  /* offset of each line in text */
	size_t n;
};

/* Take over t->p (t is reset) and index its lines. 0 or BAG_ENOMEM. */
int textlines_take(struct textlines *tl, struct bag_text *t);
void textlines_free(struct textlines *tl);
static inline const char *textlines_line(const struct textlines *tl, size_t i)
{
	return tl->text + tl->start[i];
}

/* ---- decoded message tree ----------------------------------------------- */

/* A node: a message, an array or a value. Pre-order in tree.nodes. */
struct tree_node {
	uint32_t end;        /* index one past this node's subtree */
	uint16_t depth;      /* nesting level, the root's fields at 0 */
	bool expanded;       /* children shown (for nodes with children) */
	uint32_t label;      /* offset in tree.text: field name or [i] */
	uint32_t value;      /* offset in tree.text: value, type, or "" */
};

/* Arrays longer than this keep only their first elements, then a "…" line. */
#define TREE_ARRAY_SHOWN 256
/* Bound on nodes for one message. */
#define TREE_MAX_NODES 200000

struct tree {
	struct tree_node *nodes;
	size_t n, cap;
	struct bag_text text;  /* labels and values, NUL-separated */
	uint32_t *vis;         /* the visible lines: node indices */
	size_t nvis;
	bool truncated;        /* TREE_MAX_NODES reached */
};

/*
 * Decode data with def into t (emptied first). Arrays of more than 16
 * elements start collapsed, everything else expanded. Returns 0, BAG_ENOMEM
 * or BAG_EDECODE with err filled; on BAG_EDECODE the nodes decoded so far
 * remain.
 */
int tree_build(struct tree *t, const bag_msgdef_t *def, const uint8_t *data, size_t len,
               char *err, size_t errlen);
void tree_free(struct tree *t);
static inline bool tree_has_children(const struct tree *t, size_t node)
{
	return t->nodes[node].end > node + 1;
}
/* Expand (1), collapse (0) or flip (-1) node; recomputes the visible lines. */
void tree_set_expanded(struct tree *t, size_t node, int how);
/* Expand or collapse every node. */
void tree_set_all(struct tree *t, bool expanded);
/* The visible line of node's parent, or line itself at the top level. */
size_t tree_parent_line(const struct tree *t, size_t line);
static inline const char *tree_label(const struct tree *t, size_t node)
{
	return t->text.p + t->nodes[node].label;
}
static inline const char *tree_value(const struct tree *t, size_t node)
{
	return t->text.p + t->nodes[node].value;
}

/* Case-insensitive search unless the needle has a capital (smartcase). */
const char *smartcase_find(const char *hay, size_t len, const char *needle);

#endif
