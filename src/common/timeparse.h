/*
 * timeparse.h - the time language of the browser's jump prompt and of the
 * CLI's --start/--end, curses-free.
 */
#ifndef BAGSCOPE_COMMON_TIMEPARSE_H
#define BAGSCOPE_COMMON_TIMEPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a jump expression asks for. */
struct jump {
	enum { JUMP_TIME, JUMP_ROW } kind;
	/* how it was given: a date (which a bag of relative times has none of), an offset ... */
	enum { JUMP_FROM_EPOCH, JUMP_FROM_DATE, JUMP_FROM_START, JUMP_FROM_END, JUMP_FROM_HERE, JUMP_FROM_SPAN,
	       JUMP_FROM_ROW } from;
	int64_t time_ns;     /* JUMP_TIME: absolute nanoseconds */
	uint64_t row;        /* JUMP_ROW: 0-based */
};

/* current_ns when there is no selected message (the command line): >X and <X are refused. */
#define JUMP_NO_CURSOR INT64_MIN

/*
 * Parse s against a bag spanning [start_ns, end_ns] with the selection at
 * current_ns. One rule for offsets, the same on the command line
 * (--start/--end) and at the browser's jump prompt:
 *   1600000012.5            epoch seconds (a bare number)
 *   2020-09-13 12:26:52.5   date and time, local; with a trailing Z, UTC
 *   19:25:00                that time of day on the bag's first day
 *   +12.5, +5s, 1m30s, 2h   after the bag's start (a '+', or a unit)
 *   -30s, -1.5              before the bag's end
 *   >5s, <200ms             forward / back from the selected message (the browser)
 *   50%                     fraction of the duration
 *   #12345                  a row (1-based, as shown)
 * A time beyond what signed 64-bit nanoseconds hold (before 1677-09-21 or
 * after 2262-04-11 UTC, say 0000-01-01 or 9999-12-31) is clamped to
 * INT64_MIN / INT64_MAX: both lie outside every bag (bag times run from 1970
 * to 2106), so a range bounded by one is empty or takes everything, and a
 * jump goes to the first or last message. Nothing overflows.
 * Returns 0, or -1 with a short reason in *why.
 */
int jump_parse(const char *s, int64_t start_ns, int64_t end_ns, int64_t current_ns,
               struct jump *out, const char **why);

/*
 * The same, with dates that carry no zone read in UTC when utc (else local
 * time), as the browser shows them; a bare time of day (19:25:00, 19:25,
 * 19:25:00.5) is that time on the date of start_ns in that zone.
 */
int jump_parse_zone(const char *s, int64_t start_ns, int64_t end_ns, int64_t current_ns, bool utc,
                    struct jump *out, const char **why);

/*
 * A rate (bag_rate_hz) in a unit that fits, into buf: "2.7 kHz", "62.5 Hz",
 * "420 mHz", and for topics slower than one message in 10 s "every 22 s",
 * "every 3.5 min", "every 2.0 h", "every 3.5 days"; "-" for 0 (fewer than
 * two times).
 */
void rate_text(char *buf, size_t len, double hz);

/* A span of time in a unit that fits: "19.7 s", "66.7 min", "2.8 h", "1200.3 days". */
void span_text(char *buf, size_t len, double secs);

#endif
