/*
 * cli.h - what the subcommands share: exit statuses, opening bags with a
 * one-line error, and small output helpers.
 */
#ifndef BAGSCOPE_CLI_H
#define BAGSCOPE_CLI_H

#include <stdio.h>

#include <bagscope/bagscope.h>

/* Documented exit statuses (bagscope.1). */
enum {
	EXIT_OK = 0,
	EXIT_BAD_INPUT = 1,   /* a bag could not be read, or a message failed */
	EXIT_USAGE = 2,       /* bad command line */
};

/* Print "bagscope: MESSAGE" on stderr as one line. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * One fault, one line: an error that hits many messages (a damaged chunk)
 * is printed the first time only. cli_error_once() prints "bagscope: LINE"
 * unless seen already held it; cli_seen_free() frees the set.
 */
struct cli_seen {
	uint64_t *hashes;         /* open addressing, 0 = empty */
	size_t n, cap;
};
void cli_error_once(struct cli_seen *seen, const char *line);
void cli_seen_free(struct cli_seen *seen);

/* Print the timeline's warnings from *done on ("bagscope: warning: ..."). */
void cli_timeline_warnings(const bag_timeline_t *tl, size_t *done);

/*
 * Open every path (recovering unindexed bags when the library can) and build
 * one timeline over them. Prints one line on failure and returns non-zero.
 */
struct cli_bags {
	bag_t **bags;
	size_t nbags;
	bag_timeline_t *tl;
};
int cli_open_bags(struct cli_bags *cb, char *const *paths, size_t n);

/*
 * Open one bag: a progress line while a recovery scan runs (stderr a
 * terminal), then notes on stderr on what was recovered, lost or skipped.
 * On failure prints the one-line error; *bag is still to be closed.
 */
int cli_open_one(bag_t **bag, const char *path);
void cli_close_bags(struct cli_bags *cb);

/*
 * Parse a time argument: epoch seconds with up to 9 decimals
 * ("1500000003.0000003"), an offset from the bag start ("+12.5", "1m30s"),
 * a date ("2017-07-14 02:40:02Z") or a percentage ("50%"), as the browser's
 * jump does. Returns 0 and sets *ns, or -1.
 */
int cli_parse_time(const char *s, int64_t start_ns, int64_t end_ns, int64_t *ns);

/* Write s as a JSON string (quotes included). */
void cli_json_string(FILE *out, const char *s, size_t len);

/* Subcommands: argc/argv start at the subcommand's name. */
int cmd_info(int argc, char **argv);
int cmd_cat(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_defs(int argc, char **argv);

#endif
