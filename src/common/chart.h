/*
 * chart.h - a braille chart, curses-free, for `bagscope plot` and the
 * browser's plot pane: each cell is a braille character of 2 x 4 dots, each
 * dot column one reduced column of a series (bag_reduce_col), drawn from its
 * minimum to its maximum so that a one-sample spike shows.
 */
#ifndef BAGSCOPE_COMMON_CHART_H
#define BAGSCOPE_COMMON_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <bagscope/reduce.h>

struct chart {
	int w, h;            /* cells */
	uint8_t *dots;       /* w * h braille dot masks (bit i: dot i + 1 of U+2800) */
	uint8_t *series;     /* w * h: 1 + the series that drew last in the cell, or 0 */
};

/* A canvas of w x h cells (both >= 1). 0, or -1 out of memory. */
int chart_init(struct chart *c, int w, int h);
void chart_free(struct chart *c);

/* Clear every dot. */
void chart_clear(struct chart *c);

/*
 * The extremes of the non-empty columns of cols[0..n) folded into *lo and
 * *hi (start them at +inf / -inf). Then chart_pad() makes [lo, hi] a drawable
 * range: a little margin, a flat series a band around its value, nothing
 * at all [0, 1]. Infinite values are left out.
 */
void chart_extent(const struct bag_reduce_col *cols, size_t n, double *lo, double *hi);
void chart_pad(double *lo, double *hi);

/*
 * Plot series s (0-based, < 255) over the dot columns: cols[i] goes to dot
 * column i (n <= 2 * w), each non-empty column a vertical run from its
 * minimum to its maximum, joined to the previous non-empty column when they
 * do not meet. Values outside [lo, hi] are clipped.
 */
void chart_series(struct chart *c, int s, const struct bag_reduce_col *cols, size_t n, double lo, double hi);

/* A vertical line of dots at dot column x (the browser's cursor). */
void chart_vline(struct chart *c, int x);

/* The dot row (0 = top) of value v. */
int chart_row(const struct chart *c, double v, double lo, double hi);

/* Cell (x, y) as UTF-8 (a braille character, U+2800 for none) in buf[4]. */
void chart_cell_utf8(const struct chart *c, int x, int y, char buf[4]);

/*
 * Without colour, series past the first cannot be told apart by their dots:
 * a cell whose last series is s > 0 is drawn as that series' marker ('+',
 * 'x', 'o') instead (chart_cell_text), and the legend shows the same
 * (chart_marker: the braille block for series 0 and with colour).
 */
/*
 * A label for a time value (seconds since the epoch) on an axis spanning
 * span seconds: the UTC time of day, "19:24:47" when labels are a second or
 * more apart, else "24:47.84" (minutes, seconds and the decimals they need).
 */
void chart_time_label(double secs, double span, char *buf, size_t cap);

const char *chart_marker(int series, bool colour);
void chart_cell_text(const struct chart *c, int x, int y, bool colour, char buf[4]);

/*
 * A label for v on an axis spanning span: fixed-point with enough decimals
 * that labels span / 4 apart differ, scientific for very large or small
 * magnitudes; at most 11 characters.
 */
void chart_label(double v, double span, char *buf, size_t cap);

#endif
