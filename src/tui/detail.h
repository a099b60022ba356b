/*
 * detail.h - the lines of the detail pane, curses-free: a decoded message as
 * a tree of collapsible lines, a hex dump, or a connection's header and
 * definition.
 */
#ifndef BAGSCOPE_TUI_DETAIL_H
#define BAGSCOPE_TUI_DETAIL_H

#include <bagscope/bagscope.h>

struct dline {
	int depth;
	bool node;          /* a message or array: can collapse */
	bool collapsed;
	char *text;
	char *path;         /* decoded lines: the field path ("pose.position.x"); else NULL */
};

struct detail {
	struct dline *lines;
	size_t n, cap;
	uint64_t cursor;    /* index into the visible lines */
	uint64_t top;
	int hscroll;
};

void detail_clear(struct detail *d);

/* A library message "PATH: at byte N: PROBLEM" problem first: "PROBLEM (at byte N of NAME)". */
void detail_problem_first(const char *msg, char *out, size_t cap);

/*
 * One line of a decoded message as the detail shows it ("name: value",
 * "name: pkg/Type", "name: type[n]"), its depth, whether it can fold, and
 * its field path. The search runs the same code as the pane through this.
 */
typedef void (*detail_line_fn)(void *arg, int depth, bool node, const char *text, size_t len, const char *path);

/* Every line of data[0..len) decoded by def, to sink. Returns 0 or BAG_EDECODE (err says why). */
int detail_decode_lines(const bag_msgdef_t *def, const uint8_t *data, size_t len, detail_line_fn sink,
                        void *arg, struct bag_error *err);

/* A primitive value as the detail writes it (appended to t). */
void detail_value_text(struct bag_text *t, const struct bag_value *v);
/* " (NAME)" when v equals constants of f's type declared in type (f's message), up to three; else nothing. */
void detail_const_text(struct bag_text *t, const struct bag_msgdef_type *type, const struct bag_msgdef_field *f,
                       const struct bag_value *v);

/* Lines of message bytes decoded by def; on a decode error the lines so far and the error. */
int detail_decoded(struct detail *d, const bag_msgdef_t *def, const uint8_t *data, size_t len);
/* Offset, 16 bytes, ASCII per line. */
void detail_hex(struct detail *d, const uint8_t *data, size_t len);
/* Every connection-header field, then the definition as a tree and as text. */
void detail_connection(struct detail *d, const struct bag_connection *c, const bag_msgdef_t *def);
/* Offset, width bytes (16, 8 or 4), ASCII per line: a hex dump that fits a narrow pane. */
void detail_hex_width(struct detail *d, const uint8_t *data, size_t len, int width);
/* Append one line (a leaf, or a node that can fold). */
void detail_add(struct detail *d, int depth, const char *text);
void detail_node(struct detail *d, int depth, const char *text);
/* A single line of text (loading, errors). */
void detail_note(struct detail *d, const char *text);

/* Visible lines (collapsed nodes hide their children): fills idx, returns count. */
size_t detail_visible(const struct detail *d, size_t *idx, size_t max);

/*
 * Collapse or expand the node at visible line v (expand < 0: toggle).
 * Returns whether anything changed.
 */
bool detail_fold(struct detail *d, size_t v, int expand);

#endif
