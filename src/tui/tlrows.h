/*
 * tlrows.h - the timeline's curses-free arithmetic: a topic name cut to a
 * label's width, which shown topic goes on which row when they do not all
 * fit (the selected one pinned in sight), the column of a time, and the
 * density of a set of rows (the filter's) over the columns.
 */
#ifndef BAGSCOPE_TUI_TLROWS_H
#define BAGSCOPE_TUI_TLROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * name in at most w terminal columns (a UTF-8 character counts one) into
 * out: whole when it fits; else its head and its longer tail around an
 * ellipsis ("…", or "~" when !utf8), or from 10 columns down only its tail
 * after the ellipsis. Never cut inside a character.
 */
void tl_cut_name(const char *name, int w, bool utf8, char *out, size_t cap);

/* Columns name takes (characters). */
int tl_name_width(const char *name);

/*
 * The rows of a window of n rows over nshown topics scrolled to top: the
 * index (0..nshown) each row shows, into rows[0..n); returns how many.
 * When sel (an index, or -1 for none) is out of the window, it takes the
 * last row (after the window when that has room) so the selected topic is
 * always in sight.
 */
int tl_rows(size_t nshown, size_t top, int n, long sel, size_t *rows);

/*
 * The scroll (first index) from top that keeps cursor among n rows within
 * nshown, and off the last row when sel (or -1) will be pinned there.
 */
size_t tl_scroll(size_t top, size_t cursor, size_t nshown, int n, long sel);

/* The column of time t among w columns over [start, end] (clamped; 0 for an empty span). */
int tl_col(int64_t t, int64_t start, int64_t end, int w);

/*
 * How many of rows[0..n) (sorted ascending) fall in each column, where
 * column c holds the rows [edges[c], edges[c + 1]): bins[0..w).
 */
void tl_row_bins(const uint64_t *rows, size_t n, const uint64_t *edges, int w, double *bins);

#endif
