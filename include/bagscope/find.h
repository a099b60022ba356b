/*
 * bagscope/find.h - a fast test for text in messages as the browser shows
 * them: the one-line summary (bag_print_summary) and the detail's lines
 * ("name: value", "name: pkg/Type", "name: type[n]", "[i]: value",
 * "… N more"; elements past the 64th left out).
 *
 * No text is written: the decoder's values run through a matching
 * automaton, names are settled once per definition, and a float (whose
 * shortest repr costs most) is formatted only where the needle could
 * overlap its text. The answer is "maybe" (the caller renders the message
 * and looks, which is rare: searches stop at the first match) or "no",
 * which is exact: a message the finder rules out never shows the text.
 * Nothing is allocated per message.
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
 * A finder for the literal needle[0..len) (no regex) in messages decoded by
 * def (or by any definition parsed from the same text). icase: ASCII
 * letters compare regardless of case (other bytes as they are).
 * summary_max: the bytes of the summary the caller shows (bag_print_summary's
 * max). Returns 0 or BAG_ENOMEM; free with bag_finder_free(). The finder
 * keeps nothing of def.
 */
BAG_API int bag_finder_new(bag_finder_t **out, const bag_msgdef_t *def, const char *needle, size_t len,
                           bool icase, size_t summary_max);
/* Free; accepts NULL. */
BAG_API void bag_finder_free(bag_finder_t *f);

/*
 * Whether the message data[0..len) decoded by def may show the needle in
 * its summary or a detail line: false means it does not. A message that
 * does not decode is "maybe" (the caller decides). scratch is the caller's
 * buffer, grown as needed and kept for the next call; several threads may
 * share f, each with a buffer of its own.
 */
BAG_API bool bag_finder_maybe(const bag_finder_t *f, const bag_msgdef_t *def, const uint8_t *data,
                              size_t len, struct bag_text *scratch);

#ifdef __cplusplus
}
#endif

#endif
