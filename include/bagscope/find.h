/*
 * bagscope/find.h - a fast test for text in messages as the browser shows
 * them: the one-line summary (bag_print_summary) and the detail's lines
 * ("name: value", "name: pkg/Type", "name: type[n]", "[i]: value",
 * "… N more"; elements past the 64th left out).
 *
 * Rendering every value to text costs most in floats (the shortest repr
 * of a double). A finder renders a float only where the text it searches
 * for could overlap it: otherwise one byte that the text cannot hold
 * stands in for it, which changes no answer. Integers, times, bools and
 * strings are written as shown. The answer is "maybe" (the caller renders
 * the message and looks, which is rare: searches stop at the first match)
 * or "no", which is exact: a message the finder rules out never shows the
 * text. Nothing is allocated per message beyond the caller's buffers.
 */
#ifndef BAGSCOPE_FIND_H
#define BAGSCOPE_FIND_H

#include <bagscope/decode.h>
#include <bagscope/print.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bag_finder bag_finder_t;

/*
 * A finder for the literal needle[0..len) (no regex). icase: ASCII letters
 * compare regardless of case (other bytes as they are). summary_max: the
 * bytes of the summary the caller shows (bag_print_summary's max). Returns
 * 0 or BAG_ENOMEM; free with bag_finder_free().
 */
BAG_API int bag_finder_new(bag_finder_t **out, const char *needle, size_t len, bool icase,
                           size_t summary_max);
/* Free; accepts NULL. */
BAG_API void bag_finder_free(bag_finder_t *f);

/*
 * Whether the message data[0..len) decoded by def may show the needle in
 * its summary or a detail line: false means it does not. A message that
 * does not decode is "maybe" (the caller decides). a and b are the
 * caller's scratch buffers, grown as needed and kept for the next call;
 * several threads may share f, each with buffers of its own.
 */
BAG_API bool bag_finder_maybe(const bag_finder_t *f, const bag_msgdef_t *def, const uint8_t *data,
                              size_t len, struct bag_text *a, struct bag_text *b);

#ifdef __cplusplus
}
#endif

#endif
