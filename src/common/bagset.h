/*
 * bagset.h - opening the bags a command line names, for the CLI and the
 * browser alike: a progress line while a recovery scan runs (stderr a
 * terminal), notes on what a recovery kept and lost, the bag's warnings, and
 * one timeline over them all. Everything is said on stderr through
 * term_error(), escaped.
 */
#ifndef BAGSCOPE_COMMON_BAGSET_H
#define BAGSCOPE_COMMON_BAGSET_H

#include <bagscope/bagscope.h>

/* Bags opened together and their timeline; owned, freed by bagset_close(). */
struct bagset {
	bag_t **bags;
	size_t nbags;            /* opened (and to be closed), failed ones included */
	bag_timeline_t *tl;
};

/*
 * Open every path (recovering unindexed bags when the library can) and build
 * one timeline over them. Prints one line on failure and returns a BAG_E
 * code; bagset_close() in every case.
 */
int bagset_open(struct bagset *bs, char *const *paths, size_t n);

/*
 * Open one bag with the progress line and notes above, its counts made
 * exact (bagset_exact_counts()) unless bagset_lazy_counts() was called. On
 * failure prints the one-line error and returns its code; *bag is still to
 * be closed.
 */
int bagset_open_one(bag_t **bag, const char *path);

/*
 * Make bag's message counts exact when the open left them estimates
 * (bag_counts_exact(): a lone rosbag2 .db3), by the pass that counts them.
 * Returns 0 or a BAG_E code, *why then the reason.
 */
int bagset_exact_counts(bag_t *bag, const char **why);

/* The browser's: bagset_open_one() leaves estimated counts as they are (it counts in the background). */
void bagset_lazy_counts(void);

/*
 * The same, but a file that does not open is left out (its one-line error
 * appended to skipped, with a newline) as long as another opens. Fails
 * only when none does.
 */
int bagset_open_skip(struct bagset *bs, char *const *paths, size_t n, struct bag_text *skipped);

/*
 * Add a directory of .msg files (--msg-path DIR), searched first. The bags
 * opened after it look definitions up in these, then in BAGSCOPE_MSG_PATH,
 * ROS_PACKAGE_PATH (both ':'-separated) and Debian's /usr/share. dir is
 * borrowed (argv). Returns 0 or BAG_ENOMEM.
 */
int bagset_msg_path_add(const char *dir);

/*
 * Take every --msg-path DIR / --msg-path=DIR out of argv (up to a "--"),
 * adding each; *argc shrinks. Returns 0, or -1 (printed) for one without DIR.
 */
int bagset_msg_path_args(int *argc, char **argv);

/*
 * Replace each argument (up to a "--") that is a rosbag2 directory or its
 * metadata.yaml by the storage files it names (bag_rosbag2_files()), so that
 * every command reads a recording as its files together. *argv becomes a
 * new array (kept until exit). Returns 0, or -1 (printed).
 */
int bagset_rosbag2_args(int *argc, char ***argv);

/*
 * Take --cache-size SIZE (the block cache of URL bags) and --no-sign-request
 * (anonymous s3://) out of argv (up to a "--"), and expand each
 * s3://bucket/prefix/GLOB into the objects it lists. *argv becomes a new
 * array that lives to the end of the program. Returns 0, -1 for a bad
 * option or -2 for a listing that failed (both printed).
 */
int bagset_remote_args(int *argc, char ***argv);
/* The array bagset_remote_args made, kept reachable to the program's end. */
extern char **bagset_kept_argv;

/* Stop the remote reads in flight of every bag opened here (the browser's Esc); later reads run. */
void bagset_stop_reads(void);
/* Stop them and every later one at once (a program quitting, its threads to be joined). */
void bagset_quit_reads(void);

/* Set o's .msg directories (those above) for a caller that opens bags itself. */
void bagset_open_opts(struct bag_open_opts *o);

/* Close the bags and free the timeline; accepts a zeroed or failed set. */
void bagset_close(struct bagset *bs);

/*
 * A connection (its position i) by topic: sorting them with topic_ref_cmp
 * (topic, then position) makes each topic one run, in connection order,
 * so that connections group by topic in O(n log n).
 */
struct topic_ref {
	const char *topic;
	size_t i;
};
int topic_ref_cmp(const void *a, const void *b);

#endif
