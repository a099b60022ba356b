/*
 * select.h - the selection options the subcommands share: --topic T and
 * --type TYPE (repeatable), --start S, --end E and --filter EXPR. A command
 * puts the SELECT_OPT_* entries it takes into its getopt table, hands every
 * option to select_option() first, parses the filter (select_filter())
 * before it opens the bags, then turns the rest into a bag_query
 * (select_query()) over the timeline. Errors come back as a struct
 * bag_error whose message the caller prints.
 */
#ifndef BAGSCOPE_COMMON_SELECT_H
#define BAGSCOPE_COMMON_SELECT_H

#include <getopt.h>
#include <stdbool.h>

#include <bagscope/bagscope.h>

#define SELECT_OPT_TOPIC { "topic", required_argument, NULL, 't' }
#define SELECT_OPT_TYPE { "type", required_argument, NULL, 'y' }
#define SELECT_OPT_START { "start", required_argument, NULL, 's' }
#define SELECT_OPT_END { "end", required_argument, NULL, 'e' }
#define SELECT_OPT_FILTER { "filter", required_argument, NULL, 'F' }

/* What was given; the lists borrow argv. */
struct select {
	const char *cmd;          /* "cat": the first word of its messages */
	const char **topics;
	size_t ntopics;
	const char **types;
	size_t ntypes;
	const char *start, *end;  /* NULL: not given */
	const char *filter;
	bool any_name;            /* a connection whose topic or type is named is selected
	                             (export); else its topic and its type must be (when given) */
	bag_expr_t *expr;         /* select_filter()'s parse of filter */
	bool *mask;               /* select_query()'s selection when any_name */
};

/*
 * A time argument as the browser's jump reads it: epoch seconds with up to 9
 * decimals ("1500000003.0000003"), an offset from the start t0 ("+12.5",
 * "1m30s"), a date ("2017-07-14 02:40:02Z") or a percentage of [t0, t1]
 * ("50%"); beyond int64 nanoseconds clamped (timeparse.h). 0 and *ns, or -1.
 */
int select_parse_time(const char *arg, int64_t t0, int64_t t1, int64_t *ns);

/* Start s for a command line of argc words. Returns 0 or BAG_ENOMEM. */
int select_init(struct select *s, const char *cmd, int argc);

/* Take opt (getopt's value) if it is a selection option: true when taken. */
bool select_option(struct select *s, int opt, const char *arg);

/*
 * Parse the filter, if any, into s->expr. Returns 0, BAG_ENOMEM or
 * BAG_EEXPR (bag_expr_error(s->expr) says where: cli_expr_error()).
 */
int select_filter(struct select *s);

/*
 * The query s selects over tl: times parsed against the timeline's start
 * and end, topics and types as given. Returns 0, BAG_ENOMEM, or BAG_EINVAL
 * for a time that does not parse (err: "CMD: a time is ...").
 */
int select_query(struct select *s, bag_timeline_t *tl, struct bag_query *q, struct bag_error *err);

/* For each --topic / --type that names no connection of tl: fn(arg, "topic" or "type", name). */
void select_unmatched(const struct select *s, const bag_timeline_t *tl,
                      void (*fn)(void *arg, const char *what, const char *name), void *arg);

/* Free what s holds (the filter included). */
void select_free(struct select *s);

#endif
