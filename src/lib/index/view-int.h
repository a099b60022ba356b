/*
 * view-int.h - what the scan engine (scan.c) needs from a view beyond the
 * public API: which index group a row is in, and giving a group's memory
 * back once a pass is done with it. Never installed.
 */
#ifndef BAGSCOPE_VIEW_INT_H
#define BAGSCOPE_VIEW_INT_H

#include <bagscope/view.h>

/* The view group (0-based, in row order) that holds row (< count). */
size_t view_group_of_row(bag_view_t *v, uint64_t row);

/* Set the view's error message (one line, len bytes of text); returns rc. */
int view_fail(bag_view_t *v, int rc, const char *text, size_t len);

/* Whether view group k's index entries are in memory. */
bool view_group_loaded(const bag_view_t *v, size_t k);

/*
 * Free view group k's entries and selection; they are read again if a row
 * of it is asked for later. No pin may be held on the view.
 */
void view_group_release(bag_view_t *v, size_t k);

/* The first row of view group k (for k past the last group: the row count). */
uint64_t view_group_first_row(const bag_view_t *v, size_t k);

/*
 * Compare the index entries of row's chunk with the chunk's data, as
 * bag_view_read() does at a chunk's first read: 1 when they disagree and
 * the chunk is now indexed from its data (its group was unloaded, and the
 * rows from that group's first on may have changed), 0 when they agree or
 * were compared already, or an error.
 */
int view_recheck(bag_view_t *v, uint64_t row);

/* The view's connection mask (timeline order) and time range, borrowed. */
const bool *view_mask(const bag_view_t *v, int64_t *start_ns, int64_t *end_ns);

/* The view's timeline. */
bag_timeline_t *view_timeline(const bag_view_t *v);

#endif
