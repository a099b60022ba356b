/*
 * export.c - `bagscope export`: write the selected messages of one or more
 * bags to a new bag (or MCAP file): a subset by topic or type (their union,
 * as rosbag's TopicQuery and TypeQuery), an inclusive time range and a
 * filter; bags merged in time order; a damaged bag repaired without touching
 * it; a bag recompressed or converted. One library call (bag_export) does
 * the work; this file reads the command line, builds the view, shows
 * progress on a terminal, turns Ctrl-C into a cancel, and says what was
 * lost.
 *
 * Exit status: 0 written; 1 an input could not be read, the output could not
 * be written (a full disk, an interrupt: then nothing is left at OUT), or it
 * was written but data of the input was lost; 2 a bad command line
 * (including an existing OUT without --force, OUT naming an input).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

struct export_args {
	struct select sel;        /* --topic, --type (their union), --start, --end, --filter */
	const char *compression;  /* NULL: as the inputs */
	uint32_t chunk_size;      /* 0: default */
	enum bag_export_format format;
	bool keep_latched;
	bool force;
	const char *out;
};

/* Set by SIGINT / SIGTERM; the progress callback turns it into a cancel. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void usage(FILE *out)
{
	fputs("usage: bagscope export [--topic T]... [--type TYPE]... [--start S] [--end E]\n"
	      "                       [--filter EXPR] [--compression none|bz2|lz4|zstd] [--chunk-size BYTES]\n"
	      "                       [--format bag|mcap] [--keep-latched] [--force] -o OUT BAG...\n"
	      "  S, E: epoch seconds (1500000003.25) or offsets from the bag start (+12.5), inclusive\n"
	      "  BYTES: uncompressed bytes per chunk (default 768K; K and M suffixes)\n", out);
}

/* A byte count: digits and an optional K or M (KiB, MiB), 1 .. 4 GiB - 1. */
static int parse_size(const char *s, uint32_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (!isdigit((unsigned char)s[0]))
		return -1;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -1;
	if ((*end == 'K' || *end == 'k') && end[1] == '\0')
		v = v > UINT32_MAX / 1024 ? (unsigned long long)UINT32_MAX + 1 : v * 1024;
	else if (*end == 'M' && end[1] == '\0')
		v = v > UINT32_MAX / (1024 * 1024) ? (unsigned long long)UINT32_MAX + 1 : v * 1024 * 1024;
	else if (*end != '\0')
		return -1;
	if (v == 0 || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int parse_args(int argc, char **argv, struct export_args *a)
{
	static const struct option longopts[] = {
		SELECT_OPT_TOPIC, SELECT_OPT_TYPE, SELECT_OPT_START, SELECT_OPT_END, SELECT_OPT_FILTER,
		{ "compression", required_argument, NULL, 'c' },
		{ "chunk-size", required_argument, NULL, 'z' },
		{ "format", required_argument, NULL, 'f' },
		{ "keep-latched", no_argument, NULL, 'l' },
		{ "force", no_argument, NULL, 'x' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	memset(a, 0, sizeof *a);
	if (select_init(&a->sel, "export", argc) != BAG_OK)
		return -1;
	a->sel.any_name = true;
	while ((opt = getopt_long(argc, argv, "t:y:s:e:o:h", longopts, NULL)) != -1) {
		if (select_option(&a->sel, opt, optarg))
			continue;
		switch (opt) {
		case 'l': a->keep_latched = true; break;
		case 'x': a->force = true; break;
		case 'o': a->out = optarg; break;
		case 'c':
			if (strcmp(optarg, "none") != 0 && strcmp(optarg, "bz2") != 0 && strcmp(optarg, "lz4") != 0 &&
			    strcmp(optarg, "zstd") != 0) {
				cli_error("export: unknown compression '%s' (none, bz2, lz4 or zstd)", optarg);
				return -1;
			}
			a->compression = optarg;
			break;
		case 'z':
			if (parse_size(optarg, &a->chunk_size) != 0) {
				cli_error("export: --chunk-size takes a byte count from 1 to 4G-1 (K, M), not '%s'", optarg);
				return -1;
			}
			break;
		case 'f':
			if (strcmp(optarg, "bag") == 0) {
				a->format = BAG_EXPORT_BAG;
			} else if (strcmp(optarg, "mcap") == 0) {
				a->format = BAG_EXPORT_MCAP;
			} else {
				cli_error("export: unknown format '%s' (bag or mcap)", optarg);
				return -1;
			}
			break;
		case 'h': usage(stdout); exit(EXIT_OK);
		default: cli_bad_option(argv); usage(stderr); return -1;
		}
	}
	if (a->out == NULL || optind >= argc) {
		if (a->out == NULL && optind < argc)
			cli_error("export: name the output with -o OUT");
		usage(stderr);
		return -1;
	}
	if (a->format == BAG_EXPORT_MCAP && a->compression != NULL && strcmp(a->compression, "bz2") == 0) {
		cli_error("export: MCAP chunks are zstd, lz4 or none: bz2 is not an MCAP compression");
		return -1;
	}
	if (a->format != BAG_EXPORT_MCAP && a->compression != NULL && strcmp(a->compression, "zstd") == 0) {
		cli_error("export: bag chunks are bz2, lz4 or none: zstd is only for --format mcap");
		return -1;
	}
	return 0;
}

/* Progress on a terminal: a percentage redrawn at most five times a second. */
struct progress {
	const char *out;          /* escaped */
	bool shown;
	struct timespec last;
};

static int on_progress(void *arg, uint64_t done, uint64_t total)
{
	struct progress *p = arg;
	struct timespec now;

	if (interrupted)
		return 1;
	if (p == NULL)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (p->shown && (now.tv_sec - p->last.tv_sec) * 1000000000L + (now.tv_nsec - p->last.tv_nsec) < 200000000L)
		return 0;
	p->last = now;
	p->shown = true;
	fprintf(stderr, "\rbagscope: export: %s: %3d%%", p->out, total ? (int)(done * 100 / total) : 100);
	fflush(stderr);
	return 0;
}

/* One line for each thing lost while reading. */
static void on_lost(void *arg, const char *line)
{
	struct progress *p = arg;

	if (p != NULL && p->shown) {
		fputs("\r\033[K", stderr);
		p->shown = false;
	}
	cli_error("export: lost: %s", line);
}

/* A --topic or --type that selects nothing: a mistake, not an empty bag (counted in *arg). */
static void refuse_unmatched(void *arg, const char *what, const char *name)
{
	(*(size_t *)arg)++;
	cli_error("export: no connection has %s %s: nothing written", what, name);
}

/* bag_export() with progress on a terminal and Ctrl-C as a cancel. */
static int run_export(const struct export_args *a, bag_view_t *view, struct bag_export_result *r,
                      struct bag_error *err)
{
	struct bag_export_opts eo = BAG_EXPORT_OPTS_INIT;
	struct term_scratch sc = { 0 };
	struct progress prog = { 0 };
	struct sigaction sa, old_int, old_term;
	int rc;

	eo.format = a->format;
	eo.compression = a->compression;
	eo.chunk_size = a->chunk_size;
	eo.filter = a->sel.expr;
	eo.keep_latched = a->keep_latched;
	eo.force = a->force;
	eo.progress = on_progress;
	eo.lost = on_lost;
	if (isatty(STDERR_FILENO)) {
		prog.out = term_str(&sc, a->out);
		eo.progress_arg = eo.lost_arg = &prog;
	}
	/* Ctrl-C cancels (nothing is left at OUT); a full disk under ulimit -f is an error, not a signal */
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	signal(SIGXFSZ, SIG_IGN);
	rc = bag_export(view, a->out, &eo, r, err);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (prog.shown)
		fputs("\r\033[K", stderr);
	term_scratch_free(&sc);
	return rc;
}

/* Say how the export went; the exit status. */
static int report(const struct export_args *a, int rc, const struct bag_export_result *r,
                  const struct bag_error *err)
{
	if (rc == BAG_EEXPR) {
		cli_expr_error("export", "--filter", a->sel.filter, strlen(a->sel.filter), a->sel.expr);
		return EXIT_USAGE;
	}
	if (rc == BAG_ECANCELED) {
		cli_error("export: interrupted: %s not written", a->out);
		return EXIT_BAD_INPUT;
	}
	if (rc != BAG_OK) {
		cli_error("export: %s", err->message);
		return rc == BAG_EINVAL ? EXIT_USAGE : EXIT_BAD_INPUT;
	}
	if (r->lost > 0 || r->input_losses > 0) {
		cli_error("export: %s written with %llu message%s; data of the input was lost (%llu unreadable "
		          "messages, %llu stretche%s the recovery skipped)", a->out, (unsigned long long)r->messages,
		          BAG_S(r->messages),
		          (unsigned long long)r->lost, (unsigned long long)r->input_losses, BAG_S(r->input_losses));
		return EXIT_BAD_INPUT;
	}
	if (isatty(STDERR_FILENO))
		cli_error("export: %s: %llu message%s (%llu latched) on %zu connection%s, %zu %s chunk%s, %llu byte%s",
		          a->out, (unsigned long long)r->messages, BAG_S(r->messages), (unsigned long long)r->latched,
		          r->connections, BAG_S(r->connections),
		          r->chunks, bag_compression_name(r->compression), BAG_S(r->chunks),
		          (unsigned long long)r->bytes, BAG_S(r->bytes));
	return EXIT_OK;
}

int cmd_export(int argc, char **argv)
{
	struct export_args a;
	struct bagset bs = { 0 };
	struct bag_query q;
	struct bag_export_result r;
	struct stat st;
	bag_view_t *view = NULL;
	size_t warnings = 0;
	struct bag_error err;
	int status = EXIT_USAGE, rc;

	if (parse_args(argc, argv, &a) != 0)
		goto done;
	if (cli_select_filter(&a.sel) != EXIT_OK)
		goto done;
	if (!a.force && stat(a.out, &st) == 0) {
		cli_error("export: %s exists: --force replaces it", a.out);
		goto done;
	}
	status = EXIT_BAD_INPUT;
	if (bagset_open(&bs, argv + optind, (size_t)(argc - optind)) != BAG_OK)
		goto done;
	if ((status = cli_select_query(&a.sel, bs.tl, &q)) != EXIT_OK)
		goto done;
	status = EXIT_BAD_INPUT;
	size_t unmatched = 0;
	select_unmatched(&a.sel, bs.tl, refuse_unmatched, &unmatched);
	if (unmatched > 0)
		goto done;
	if (bag_view_open(&view, bs.tl, &q) != BAG_OK) {
		cli_error("%s", bag_view_error(view)->message);
		goto done;
	}
	rc = run_export(&a, view, &r, &err);
	cli_timeline_warnings(bs.tl, &warnings);
	status = report(&a, rc, &r, &err);
done:
	bag_view_free(view);
	bagset_close(&bs);
	select_free(&a.sel);
	return status;
}
