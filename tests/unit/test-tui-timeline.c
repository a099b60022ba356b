/*
 * test-tui-timeline.c - the timeline's curses-free arithmetic (tlrows.h):
 * names cut to a label (whole when they fit, the middle or the start cut
 * with an ellipsis, never inside a UTF-8 character), the rows of a
 * scrolled window with the selected topic pinned, the scroll that keeps
 * the cursor in sight, a time's column, and a row set's density per column
 * against counting row by row.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tui/tlrows.h"

#define ELLIPSIS "\xE2\x80\xA6"

static void cut(const char *name, int w, bool utf8, char *out)
{
	tl_cut_name(name, w, utf8, out, 256);
	assert_true(tl_name_width(out) <= w);
}

static void test_names_whole_when_they_fit(void **state)
{
	char out[256];

	(void)state;
	cut("/camera/left/image_raw", 22, true, out);
	assert_string_equal(out, "/camera/left/image_raw");
	cut("/imu", 40, true, out);
	assert_string_equal(out, "/imu");
	cut("/imu", 0, true, out);
	assert_string_equal(out, "");
}

static void test_names_cut_in_the_middle(void **state)
{
	const char *name = "/camera/left/image_raw/compressed";
	char out[256];

	(void)state;
	cut(name, 20, true, out);
	/* 20 columns: the head (a third), the ellipsis, the longer tail */
	assert_int_equal(tl_name_width(out), 20);
	assert_string_equal(out, "/camer" ELLIPSIS "aw/compressed");
	cut(name, 17, false, out);
	assert_string_equal(out, "/came~/compressed");
}

static void test_narrow_names_keep_the_tail(void **state)
{
	char out[256];

	(void)state;
	cut("/robot/imu/data_raw", 10, true, out);
	assert_string_equal(out, ELLIPSIS "/data_raw");
	cut("/robot/imu/data_raw", 10, false, out);
	assert_string_equal(out, "~/data_raw");
}

/* Every character whole: the cut never splits a multi-byte UTF-8 sequence. */
static void test_names_never_split_a_character(void **state)
{
	const char *name = "/k\xC3\xA4mera/\xC3\xBC\xC3\xB1\xC3\xAF\xC3\xA7\xC3\xB6\xC3\xB0\xC3\xA9/t\xC3\xB6pic";
	char out[256];

	(void)state;
	for (int w = 1; w < tl_name_width(name) + 2; w++) {
		cut(name, w, true, out);
		for (const unsigned char *p = (const unsigned char *)out; *p; p++) {
			int follow = *p >= 0xF0 ? 3 : *p >= 0xE0 ? 2 : *p >= 0xC0 ? 1 : 0;
			assert_true(*p < 0x80 || *p >= 0xC0);
			for (int k = 1; k <= follow; k++)
				assert_true((p[k] & 0xC0) == 0x80);
			p += follow;
		}
		if (w >= tl_name_width(name))
			assert_string_equal(out, name);
		else
			assert_int_equal(tl_name_width(out), w);
	}
}

static void test_rows_pin_the_selected_topic(void **state)
{
	size_t rows[8];

	(void)state;
	/* in the window: rows as they are */
	assert_int_equal(tl_rows(10, 0, 3, 1, rows), 3);
	assert_int_equal(rows[0], 0);
	assert_int_equal(rows[1], 1);
	assert_int_equal(rows[2], 2);
	/* below it: the last row shows it */
	assert_int_equal(tl_rows(10, 0, 3, 7, rows), 3);
	assert_int_equal(rows[2], 7);
	/* above it, too */
	assert_int_equal(tl_rows(10, 5, 3, 1, rows), 3);
	assert_int_equal(rows[0], 5);
	assert_int_equal(rows[2], 1);
	/* at the end with a row to spare: the pinned one after the window */
	assert_int_equal(tl_rows(10, 8, 3, 0, rows), 3);
	assert_int_equal(rows[0], 8);
	assert_int_equal(rows[1], 9);
	assert_int_equal(rows[2], 0);
	/* fewer topics than rows; no selection; a scroll past the end starts again */
	assert_int_equal(tl_rows(2, 0, 5, -1, rows), 2);
	assert_int_equal(tl_rows(4, 9, 3, -1, rows), 3);
	assert_int_equal(rows[0], 0);
	assert_int_equal(tl_rows(4, 0, 0, 2, rows), 0);
}

static void test_scroll_keeps_the_cursor(void **state)
{
	(void)state;
	assert_int_equal(tl_scroll(0, 2, 10, 3, -1), 0);
	assert_int_equal(tl_scroll(0, 3, 10, 3, -1), 1);
	assert_int_equal(tl_scroll(5, 2, 10, 3, -1), 2);
	assert_int_equal(tl_scroll(0, 9, 10, 3, -1), 7);
	/* never past the last full window, and none when all fit */
	assert_int_equal(tl_scroll(9, 9, 10, 3, -1), 7);
	assert_int_equal(tl_scroll(4, 1, 3, 5, -1), 0);
	/* the selection in the window changes nothing */
	assert_int_equal(tl_scroll(0, 2, 10, 3, 1), 0);
	/* out of it, it will be pinned on the last row: the cursor goes one row up */
	assert_int_equal(tl_scroll(0, 2, 10, 3, 8), 1);
	assert_int_equal(tl_scroll(0, 9, 10, 3, 0), 8);
	assert_int_equal(tl_scroll(0, 1, 10, 3, 8), 0);
}

static void test_columns(void **state)
{
	(void)state;
	assert_int_equal(tl_col(100, 100, 200, 10), 0);
	assert_int_equal(tl_col(149, 100, 200, 10), 4);
	assert_int_equal(tl_col(150, 100, 200, 10), 5);
	assert_int_equal(tl_col(200, 100, 200, 10), 9);
	assert_int_equal(tl_col(50, 100, 200, 10), 0);
	assert_int_equal(tl_col(500, 100, 200, 10), 9);
	assert_int_equal(tl_col(150, 100, 100, 10), 0);
}

/* The bins of a sorted row set, against a count row by row, over random sets and edges. */
static void test_row_bins_count_every_row(void **state)
{
	uint64_t rows[500], edges[17];
	double bins[16];
	unsigned seed = 7;

	(void)state;
	for (int round = 0; round < 50; round++) {
		size_t n = 0;
		for (uint64_t r = 0; r < 1000 && n < 500; r++)
			if ((seed = seed * 1103515245u + 12345u) >> 16 & 1)
				rows[n++] = r;
		edges[0] = 0;
		for (int c = 1; c < 16; c++)
			edges[c] = edges[c - 1] + ((seed = seed * 1103515245u + 12345u) >> 16) % 80;
		edges[16] = UINT64_MAX;
		tl_row_bins(rows, n, edges, 16, bins);
		double sum = 0;
		for (int c = 0; c < 16; c++) {
			size_t want = 0;
			for (size_t i = 0; i < n; i++)
				want += rows[i] >= edges[c] && rows[i] < edges[c + 1];
			assert_int_equal((size_t)bins[c], want);
			sum += bins[c];
		}
		assert_int_equal((size_t)sum, n);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_whole_when_they_fit),
		cmocka_unit_test(test_names_cut_in_the_middle),
		cmocka_unit_test(test_narrow_names_keep_the_tail),
		cmocka_unit_test(test_names_never_split_a_character),
		cmocka_unit_test(test_rows_pin_the_selected_topic),
		cmocka_unit_test(test_scroll_keeps_the_cursor),
		cmocka_unit_test(test_columns),
		cmocka_unit_test(test_row_bins_count_every_row),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
