/*
 * chart.c - the braille chart (see chart.h). A cell's eight dots are bits of
 * a mask in the order of the Unicode braille block: dots 1-3 down the left
 * column, 4-6 down the right, then 7 and 8 at the bottom left and right.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/chart.h"

static const uint8_t dot_bit[2][4] = { { 0x01, 0x02, 0x04, 0x40 }, { 0x08, 0x10, 0x20, 0x80 } };

int chart_init(struct chart *c, int w, int h)
{
	c->w = w < 1 ? 1 : w;
	c->h = h < 1 ? 1 : h;
	c->dots = calloc((size_t)c->w * (size_t)c->h, 1);
	c->series = calloc((size_t)c->w * (size_t)c->h, 1);
	if (c->dots == NULL || c->series == NULL) {
		chart_free(c);
		return -1;
	}
	return 0;
}

void chart_free(struct chart *c)
{
	free(c->dots);
	free(c->series);
	c->dots = c->series = NULL;
}

void chart_clear(struct chart *c)
{
	memset(c->dots, 0, (size_t)c->w * (size_t)c->h);
	memset(c->series, 0, (size_t)c->w * (size_t)c->h);
}

void chart_extent(const struct bag_reduce_col *cols, size_t n, double *lo, double *hi)
{
	for (size_t i = 0; i < n; i++) {
		if (cols[i].count == 0)
			continue;
		if (isfinite(cols[i].min) && cols[i].min < *lo)
			*lo = cols[i].min;
		if (isfinite(cols[i].max) && cols[i].max > *hi)
			*hi = cols[i].max;
		/* a column whose extremes are both infinite still has finite neighbours */
	}
}

void chart_pad(double *lo, double *hi)
{
	if (!(*lo <= *hi)) {
		*lo = 0;
		*hi = 1;
	} else if (*lo == *hi) {
		double d = fabs(*lo) > 0 ? fabs(*lo) * 0.1 : 1;
		*lo -= d;
		*hi += d;
	}
}

int chart_row(const struct chart *c, double v, double lo, double hi)
{
	int rows = c->h * 4;

	if (!(v < hi))
		return 0;
	if (!(v > lo))
		return rows - 1;
	long r = lround((hi - v) / (hi - lo) * (rows - 1));
	return r < 0 ? 0 : r >= rows ? rows - 1 : (int)r;
}

static void set_dot(struct chart *c, int x, int y, int s)
{
	int cx = x / 2, cy = y / 4;

	if (cx < 0 || cx >= c->w || cy < 0 || cy >= c->h)
		return;
	c->dots[cy * c->w + cx] |= dot_bit[x % 2][y % 4];
	c->series[cy * c->w + cx] = (uint8_t)(s + 1);
}

void chart_series(struct chart *c, int s, const struct bag_reduce_col *cols, size_t n, double lo, double hi)
{
	int prev_top = -1, prev_bot = -1;
	size_t prev_i = 0;

	for (size_t i = 0; i < n && i < (size_t)c->w * 2; i++) {
		if (cols[i].count == 0)
			continue;
		int top = chart_row(c, cols[i].max, lo, hi), bot = chart_row(c, cols[i].min, lo, hi);
		int own_top = top, own_bot = bot;
		/* join the column before when it has samples: the connecting dots go in this one */
		bool join = prev_top >= 0 && prev_i + 1 == i;
		if (join && prev_bot + 1 < top)
			top = prev_bot + 1;
		if (join && prev_top - 1 > bot)
			bot = prev_top - 1;
		for (int y = top; y <= bot; y++)
			set_dot(c, (int)i, y, s);
		prev_i = i;
		prev_top = own_top;
		prev_bot = own_bot;
	}
}

void chart_vline(struct chart *c, int x)
{
	for (int y = 0; y < c->h * 4; y++) {
		int cx = x / 2, cy = y / 4;
		if (cx < 0 || cx >= c->w)
			return;
		c->dots[cy * c->w + cx] |= dot_bit[x % 2][y % 4];
	}
}

void chart_cell_utf8(const struct chart *c, int x, int y, char buf[4])
{
	unsigned cp = 0x2800u + c->dots[y * c->w + x];

	buf[0] = (char)(0xE0 | (cp >> 12));
	buf[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
	buf[2] = (char)(0x80 | (cp & 0x3F));
	buf[3] = '\0';
}

void chart_time_label(double secs, double span, char *buf, size_t cap)
{
	double step = span / 4, whole = floor(secs);
	time_t t = (time_t)whole;
	struct tm tm;
	int dec = step > 0 && step < 1 ? (int)ceil(-log10(step)) : 0;

	if (!isfinite(secs) || gmtime_r(&t, &tm) == NULL) {
		chart_label(secs, span, buf, cap);
		return;
	}
	dec = dec > 3 ? 3 : dec;
	if (dec == 0) {
		snprintf(buf, cap, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
		return;
	}
	int scale = dec == 1 ? 10 : dec == 2 ? 100 : 1000, frac = (int)((secs - whole) * scale);
	snprintf(buf, cap, "%02d:%02d.%0*d", tm.tm_min, tm.tm_sec, dec, frac >= scale ? scale - 1 : frac);
}

const char *chart_marker(int series, bool colour)
{
	static const char *const marks[] = { "\xE2\xA3\xBF", "+", "x", "o" };

	return colour || series <= 0 ? marks[0] : marks[1 + (series - 1) % 3];
}

void chart_cell_text(const struct chart *c, int x, int y, bool colour, char buf[4])
{
	int s = c->series[y * c->w + x];

	if (!colour && s > 1) {
		snprintf(buf, 4, "%s", chart_marker(s - 1, false));
		return;
	}
	chart_cell_utf8(c, x, y, buf);
}

void chart_label(double v, double span, char *buf, size_t cap)
{
	double step = span / 4;
	int dec = step > 0 && isfinite(step) ? (int)ceil(-log10(step)) + 1 : 2;

	if (dec < 0)
		dec = 0;
	if (fabs(v) >= 1e9 || dec > 8) {
		snprintf(buf, cap, "%.3e", v);
		return;
	}
	snprintf(buf, cap, "%.*f", dec, v);
	if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1))
		memmove(buf, buf + 1, strlen(buf));
}
