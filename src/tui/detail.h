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
};

struct detail {
	struct dline *lines;
	size_t n, cap;
	size_t cursor;      /* index into the visible lines */
	size_t top;
	int hscroll;
};

void detail_clear(struct detail *d);

/* Lines of message bytes decoded by def; on a decode error the lines so far and the error. */
int detail_decoded(struct detail *d, const bag_msgdef_t *def, const uint8_t *data, size_t len);
/* Offset, 16 bytes, ASCII per line. */
void detail_hex(struct detail *d, const uint8_t *data, size_t len);
/* Every connection-header field, then the definition as a tree and as text. */
void detail_connection(struct detail *d, const struct bag_connection *c, const bag_msgdef_t *def);
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
