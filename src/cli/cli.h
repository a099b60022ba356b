/*
 * cli.h - what the subcommands share: exit statuses, error lines, time
 * arguments and small output helpers. Opening bags (common/bagset.h) and
 * escaping text for the terminal (common/termtext.h) are shared with the
 * browser. Every bag string or path written in a text form goes through
 * term_str()/term_escape(); JSON through term_json().
 */
#ifndef BAGSCOPE_CLI_H
#define BAGSCOPE_CLI_H

#include <stdio.h>

#include <bagscope/bagscope.h>

#include "common/bagset.h"
#include "common/select.h"
#include "common/termtext.h"

/* Documented exit statuses (bagscope.1). */
enum {
	EXIT_OK = 0,
	EXIT_BAD_INPUT = 1,   /* a bag could not be read, or a message failed */
	EXIT_USAGE = 2,       /* bad command line */
};

/* Print "bagscope: MESSAGE" on stderr as one line, escaped (term_error()). */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * getopt returned '?': say which option, escaped (main.c turns getopt's own
 * message off: it would echo the argument raw). argv starts at the subcommand.
 */
void cli_bad_option(char **argv);

/* Write s as a JSON string (quotes included), safe for a terminal (term_json()). */
void cli_json_string(FILE *out, const char *s, size_t len);

/*
 * Print the timeline's warnings from *done on ("bagscope: warning: ...",
 * escaped): chunks whose index was worked around as they were loaded.
 */
void cli_timeline_warnings(const bag_timeline_t *tl, size_t *done);

/*
 * An expression that was refused: one line "CMD: WHAT: EXPR: problem" and a
 * caret under the place in a second (both escaped). what names the option.
 */
void cli_expr_error(const char *cmd, const char *what, const char *text, size_t len, const bag_expr_t *e);
/* The same for an expression that starts skip bytes into text (after "/topic." say). */
void cli_expr_error_at(const char *cmd, const char *what, const char *text, size_t len, size_t skip,
                       const bag_expr_t *e);

/* A time argument (common/select.h's select_parse_time()): 0 and *ns, or -1. */
#define cli_parse_time select_parse_time

/*
 * The selection options (common/select.h) of a command: parse the filter
 * (saying where a bad one is wrong), then the query over tl, then the view.
 * Each prints its error and returns EXIT_OK, EXIT_USAGE or EXIT_BAD_INPUT.
 */
int cli_select_filter(struct select *s);
int cli_select_query(struct select *s, bag_timeline_t *tl, struct bag_query *q);
int cli_select_view(struct select *s, bag_timeline_t *tl, bag_view_t **view);

/* Append ns as a UTC date and time with nanoseconds: 2017-07-14T02:40:00.000000000Z. */
void cli_utc_time(struct bag_text *t, int64_t ns);

/* A level's name: name, or "LEVEL<n>" in buf for a value without one (name NULL). */
const char *cli_level_name(const char *name, unsigned level, char *buf, size_t cap);

/* Whether to colour stdout: a terminal, and NO_COLOR unset or empty (no-color.org). */
bool cli_colour(void);

/* Subcommands: argc/argv start at the subcommand's name. */
int cmd_info(int argc, char **argv);
int cmd_cat(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_defs(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_frames(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_tf(int argc, char **argv);
int cmd_log(int argc, char **argv);
int cmd_diag(int argc, char **argv);

#endif
