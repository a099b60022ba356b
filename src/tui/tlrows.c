/*
 * tlrows.c - the timeline's curses-free arithmetic (see tlrows.h). Names
 * are counted in characters (UTF-8 lead bytes); the escaping of control
 * characters is done before (term_str), so every character is printable.
 * Invariant of tl_rows: every index it gives is below nshown, each once.
 */
#include <stdio.h>
#include <string.h>

#include "tui/tlrows.h"

#define ELLIPSIS "\xE2\x80\xA6"

int tl_name_width(const char *name)
{
	int n = 0;

	for (const char *p = name; *p; p++)
		n += ((unsigned char)*p & 0xC0) != 0x80;
	return n;
}

/* The byte offset after the first k characters of s. */
static size_t chars_bytes(const char *s, int k)
{
	size_t i = 0;

	for (; s[i] && k > 0; k--)
		for (i++; s[i] && ((unsigned char)s[i] & 0xC0) == 0x80; i++)
			;
	return i;
}

void tl_cut_name(const char *name, int w, bool utf8, char *out, size_t cap)
{
	int len = tl_name_width(name);
	const char *dots = utf8 ? ELLIPSIS : "~";

	if (cap == 0)
		return;
	if (len <= w || w <= 0) {
		snprintf(out, cap, "%s", w <= 0 ? "" : name);
		return;
	}
	/* a narrow label keeps the tail ("…/imu/data"); a wider one the head too ("/cam…left/image_raw") */
	int head = w > 10 ? (w - 1) / 3 : 0, tail = w - 1 - head;
	size_t hb = chars_bytes(name, head), tb = chars_bytes(name, len - tail);
	snprintf(out, cap, "%.*s%s%s", (int)hb, name, dots, name + tb);
}

int tl_rows(size_t nshown, size_t top, int n, long sel, size_t *rows)
{
	int k = 0;

	if (n <= 0)
		return 0;
	if (top >= nshown)
		top = 0;
	for (size_t i = top; i < nshown && k < n; i++)
		rows[k++] = i;
	if (sel >= 0 && (size_t)sel < nshown && ((size_t)sel < top || (size_t)sel >= top + (size_t)k)) {
		/* pinned: out of the window, it takes the last row (one more when there is room) */
		if (k < n)
			k++;
		rows[k - 1] = (size_t)sel;
	}
	return k;
}

size_t tl_scroll(size_t top, size_t cursor, size_t nshown, int n, long sel)
{
	size_t rows = n > 0 ? (size_t)n : 1;

	if (cursor < top)
		top = cursor;
	if (cursor >= top + rows)
		top = cursor - rows + 1;
	if (nshown <= rows)
		return 0;
	if (top > nshown - rows)
		top = nshown - rows;
	/* the selection out of the window is pinned on the last row: the cursor must not be there */
	if (rows > 1 && sel >= 0 && ((size_t)sel < top || (size_t)sel >= top + rows) && cursor == top + rows - 1)
		top++;
	return top;
}

int tl_col(int64_t t, int64_t start, int64_t end, int w)
{
	double span = (double)(end - start);
	int c = span > 0 ? (int)((double)(t - start) / span * w) : 0;

	return w <= 0 ? 0 : c < 0 ? 0 : c >= w ? w - 1 : c;
}

/* The first of rows[0..n) at or above r. */
static size_t lower(const uint64_t *rows, size_t n, uint64_t r)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (rows[mid] < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void tl_row_bins(const uint64_t *rows, size_t n, const uint64_t *edges, int w, double *bins)
{
	for (int c = 0; c < w; c++)
		bins[c] = (double)(lower(rows, n, edges[c + 1]) - lower(rows, n, edges[c]));
}
