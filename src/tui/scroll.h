/*
 * scroll.h - the one scroller: a cursor over n rows and the first row in
 * sight of a window of rows lines. Every list of the browser (topics,
 * messages, the detail, the log, the help) keeps its cursor and scroll here.
 */
#ifndef BAGSCOPE_TUI_SCROLL_H
#define BAGSCOPE_TUI_SCROLL_H

#include <stddef.h>
#include <stdint.h>

/*
 * Clamp *cursor to [0, n) (0 when n is 0) and move *top so the cursor is in
 * sight and no window row is left empty past the end. cursor may be NULL
 * (a view that only scrolls: *top alone is clamped). rows < 1 counts as 1.
 */
static inline void scroll_keep(uint64_t *cursor, uint64_t *top, uint64_t n, int64_t rows)
{
	uint64_t h = rows > 0 ? (uint64_t)rows : 1;

	if (cursor != NULL) {
		*cursor = n == 0 ? 0 : *cursor >= n ? n - 1 : *cursor;
		if (*cursor < *top)
			*top = *cursor;
		if (*cursor >= *top + h)
			*top = *cursor - h + 1;
	}
	if (*top + h > n)
		*top = n > h ? n - h : 0;
}

/* The cursor moved by delta (clamped at 0), then kept as above. */
static inline void scroll_by(uint64_t *cursor, uint64_t *top, uint64_t n, int64_t rows, int64_t delta)
{
	if (delta < 0 && (uint64_t)-delta > *cursor)
		*cursor = 0;
	else
		*cursor += (uint64_t)delta;
	scroll_keep(cursor, top, n, rows);
}

#endif
