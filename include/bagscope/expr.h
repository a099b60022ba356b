/*
 * bagscope/expr.h - the filter-expression and message-path language.
 *
 * One small language selects messages (`cat --filter`, the browser's filter)
 * and names values (columns, plots, `--fields`):
 *
 *   linear_acceleration.x > 0.5 && header.frame_id == "imu"
 *   ranges[*] < 0.2            status[-1].level >= 2      len(poses) > 0
 *   $topic =~ "^/cam" || abs(twist.linear.x - 1) < 0.1
 *
 * Grammar, loosest binding first (C's precedence; `or`, `and`, `not` may be
 * written for `||`, `&&`, `!`):
 *
 *   expr   := expr "||" expr | expr "&&" expr | "!" expr
 *           | value CMP value            CMP: == != < <= > >=
 *           | value ("=~" | "!~") STRING POSIX extended regex, matched anywhere
 *           | value                      a bool used as a test
 *   value  := value ("+" | "-") value | value ("*" | "/") value | "-" value
 *           | NUMBER | STRING | true | false | path | $topic | $type | $time
 *           | len(path) | abs(value) | tf(FRAME, FRAME).FIELD | "(" expr ")"
 *   path   := NAME { "." NAME | "[" ["-"] INTEGER "]" | "[*]" }
 *
 * - `!` at the head of a comparison takes the whole comparison: `!a == b`
 *   is `!(a == b)`. For the bools C would apply it to this is the same test
 *   ((!a) == b), and it is what `!data == 42` means to a reader. Inside an
 *   operand it takes that operand (`a == !b`). Comparisons do not chain
 *   (`a < b < c` is refused); parentheses make a comparison a bool value,
 *   and a test is never a number (`(a > 1) + 1` is refused).
 * - Numbers: decimal or 0x integers, or decimals with a fraction or an
 *   exponent. An integer literal beyond uint64 is a float.
 * - Strings: "..." or '...'; \n \t \r \0 \\ \" \' \xHH are escapes, any
 *   other backslash is kept as written (so "\." reaches a regex as \.).
 * - `and or not true false` are words of the language, so a field with one
 *   of those names can only be reached after a dot; `len`/`abs` are
 *   functions only when "(" follows.
 *
 * Meaning:
 * - A path names a field of the message; a negative index counts from the
 *   end. time/duration fields are numbers of seconds, held as exact int64
 *   nanoseconds; their `.secs` and `.nsecs` can be named too.
 * - Integers of every width compare exactly (int64 against uint64 too);
 *   an integer and a float compare as doubles. A time compared with a
 *   number literal is exact to the nanosecond (`$time >= 1500000004.5`); a
 *   time against a computed float compares as doubles.
 * - Arithmetic: integer + - * is exact while the result fits int64 or
 *   uint64 and becomes a double otherwise (never undefined); time +/- time
 *   stays exact nanoseconds; any other mix is done in doubles (times in
 *   seconds); `/` always divides as doubles. `abs` and unary `-` follow
 *   the same rule (abs(-2^63) is the uint64 2^63).
 * - Strings compare bytewise (NULs included; a shorter prefix is less). A
 *   regex is matched anywhere in the string, NULs included (REG_STARTEND).
 *   Bools compare only with == and !=.
 * - NaN compares false, except `!=` which is true.
 * - A comparison involving a missing value is false (and `!` of it true):
 *   a field the message's type lacks, an index out of range, a string
 *   compared with a number on this connection, a definition that does not
 *   parse. `[*]` makes a comparison true when it holds for at least one
 *   element (with several `[*]` in one comparison: for at least one
 *   combination; they multiply). `[*]` is allowed only inside a comparison.
 * - `$time` is the record time (seconds since the epoch, exact ns),
 *   `$topic`/`$type` the connection's topic and datatype.
 *
 * A message path (for columns and plots) is a topic followed by a path:
 * `/imu/data.linear_acceleration.x`; bag_expr_topic_prefix() splits it.
 *
 * Life cycle: parse once (syntax errors, bad regexes and bad numbers are
 * refused here with a byte position), compile once per connection against
 * its definition, bag_expr_check() the set of compiled programs (refuses a
 * part that compiled on none of them), then evaluate per message. A
 * compiled program is immutable and may be evaluated by several threads at
 * once; evaluation allocates nothing of its own (glibc's regexec may, and
 * it serializes concurrent matches of one regex).
 */
#ifndef BAGSCOPE_EXPR_H
#define BAGSCOPE_EXPR_H

#include <bagscope/bag.h>
#include <bagscope/msgdef.h>

typedef struct bag_expr bag_expr_t;            /* parsed, connection-independent */
typedef struct bag_expr_prog bag_expr_prog_t;  /* compiled for one connection */

/* What a value is. */
enum bag_expr_kind {
	BAG_EXPR_MISSING,   /* no value: absent field, index out of range, ... */
	BAG_EXPR_BOOL,
	BAG_EXPR_INT,       /* v.i: any integer that fits int64 */
	BAG_EXPR_UINT,      /* v.u: an integer above INT64_MAX */
	BAG_EXPR_FLOAT,     /* v.f */
	BAG_EXPR_STRING,    /* v.s: bytes, not NUL-terminated, may hold NULs */
	BAG_EXPR_TIME,      /* v.ns: a time or duration in nanoseconds */
};

/* One value, from bag_expr_eval_value(). */
struct bag_expr_val {
	enum bag_expr_kind kind;
	double num;         /* the value as a number (bools 0/1, times in seconds); NaN for missing and strings */
	union {
		bool b;
		int64_t i;
		uint64_t u;
		double f;
		int64_t ns;
		struct {
			const char *p;  /* borrowed: from the message data, the expression or the connection */
			size_t len;
		} s;
	} v;
};

/*
 * Parse text[0..len) as a filter (an expr: a test). *out is set even on
 * failure (unless BAG_ENOMEM) so that bag_expr_error() (message; offset = the
 * position in text)
 * can be read; always bag_expr_free() it. Returns 0, BAG_EEXPR (a syntax
 * error, a bad number, a regex that does not compile, a value where a test
 * is needed ...) or BAG_ENOMEM. text need not be NUL-terminated and is not
 * kept.
 */
BAG_API int bag_expr_parse(bag_expr_t **out, const char *text, size_t len);

/*
 * Parse text[0..len) as a value (a column, a plot's y): any expression,
 * tests included (they give bools). Same contract as bag_expr_parse(); a
 * `[*]` outside a comparison is refused (a value is one value).
 */
BAG_API int bag_expr_parse_value(bag_expr_t **out, const char *text, size_t len);

/* Free; accepts NULL. Its programs must be freed first. */
BAG_API void bag_expr_free(bag_expr_t *e);

/*
 * The last failure of parse or check: a one-line message ("" if none) and
 * the byte offset in the text it concerns (text length for "at the end").
 * Valid until the next call on e.
 */
BAG_API const struct bag_error *bag_expr_error(const bag_expr_t *e);

/*
 * Compile e for connection conn, whose definition def was parsed from
 * conn->definition (NULL if it did not parse: every path is then missing).
 * Parts that do not fit this connection (an unknown field, a string
 * compared with a number) become missing values and are remembered for
 * bag_expr_check(). e must have parsed. Returns 0 or BAG_ENOMEM. The
 * program borrows e and conn (both must outlive it); def may be freed as
 * soon as this returns.
 */
BAG_API int bag_expr_compile(bag_expr_prog_t **out, const bag_expr_t *e,
                             const struct bag_connection *conn, const bag_msgdef_t *def);

/* Free; accepts NULL. */
BAG_API void bag_expr_prog_free(bag_expr_prog_t *p);

/*
 * After compiling e for every selected connection (progs[0..n)): 0, or
 * BAG_EEXPR when some part of e compiled on none of them; e's message then
 * names the problem as the first of those programs saw it, and its offset
 * the position ("no field 'x' in std_msgs/Int64 (nor in any other selected
 * type)"). n == 0 is not an error: nothing would be read.
 */
BAG_API int bag_expr_check(bag_expr_t *e, bag_expr_prog_t *const *progs, size_t n);

/* For a filter: 0 always false on this connection, 1 always true, -1 depends on the message. */
BAG_API int bag_expr_prog_constant(const bag_expr_prog_t *p);

/*
 * false when the result depends only on $time, $topic and $type (or on
 * nothing): the message bytes are not needed and an index entry answers.
 */
BAG_API bool bag_expr_prog_needs_data(const bag_expr_prog_t *p);

/*
 * Evaluate a filter (from bag_expr_parse) on one message of p's connection:
 * its bytes data[0..len) (may be NULL when !bag_expr_prog_needs_data(p))
 * and its record time. Returns 1 (true), 0 (false) or BAG_EDECODE when a
 * length or offset the test needs runs past the message (bytes the test
 * does not need are not checked). Reentrant; allocates nothing.
 */
BAG_API int bag_expr_eval(const bag_expr_prog_t *p, const uint8_t *data, size_t len, int64_t time_ns);

/*
 * What the index alone says of a filter on a message of p's connection at
 * time_ns: 0 when the filter is false whatever the message holds (its terms
 * on $time, $topic and $type rule it out: `$time < 5 && x > 1` at time 6),
 * 1 when the message must be read to know. Reentrant; allocates nothing.
 */
BAG_API int bag_expr_eval_index(const bag_expr_prog_t *p, int64_t time_ns);

/*
 * Evaluate a value expression (or a filter, giving a bool) into *out.
 * Returns 0 or BAG_EDECODE. Strings in *out point into data, e or the
 * connection.
 */
BAG_API int bag_expr_eval_value(const bag_expr_prog_t *p, const uint8_t *data, size_t len,
                                int64_t time_ns, struct bag_expr_val *out);

/*
 * Message paths: the length of the longest of topics[0..n) that prefixes
 * mpath (NUL-terminated) and is followed there by '.', '[' or the end; 0 if
 * none. "/imu/data.linear_acceleration.x" with topics "/imu" and
 * "/imu/data" gives 9; the path proper starts after the '.'.
 */
BAG_API size_t bag_expr_topic_prefix(const char *mpath, const char *const *topics, size_t n);

/*
 * What tf(TARGET, SOURCE).FIELD terms look up at each message's record
 * time: fn(ctx, target, source, time_ns, xyz, q) fills the translation and
 * the rotation (x y z w) of SOURCE in TARGET and returns 0, or non-zero
 * when there is none (tf2's extrapolation, connectivity ...: the term is
 * then missing). It must be safe on several threads at once. The transform
 * buffer of tf.h gives one: bag_expr_set_tf(e, bag_tf_expr_lookup, tf).
 * ctx is borrowed and must outlive e's evaluations. Without one (fn NULL,
 * the default) every tf() term is missing. FIELD is translation.x/y/z,
 * rotation.x/y/z/w, roll, pitch or yaw; frames are names or quoted strings.
 */
typedef int (*bag_expr_tf_fn)(const void *ctx, const char *target, const char *source, int64_t time_ns,
                              double xyz[3], double q[4]);
BAG_API void bag_expr_set_tf(bag_expr_t *e, bag_expr_tf_fn fn, const void *ctx);

/* Whether text (a message path) starts with a tf( term: it then names no topic. */
BAG_API bool bag_expr_is_tf_path(const char *text);

#endif
