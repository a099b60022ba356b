/*
 * check.c - `bagscope check [--quick] BAG...`: bag_check() on each bag, one
 * line per finding ("PATH: at byte N: problem"), then a summary line per
 * bag. Exit 0 when every bag is clean, 1 when anything was found or a bag
 * could not be opened, 2 for a bad command line.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/check.h>
#include "cli/cli.h"

static void usage(FILE *out)
{
	fputs("usage: bagscope check [--quick] BAG...\n"
	      "  every record parses, every chunk decompresses to its stated size, every index\n"
	      "  entry points at its message, chunk infos agree with the index and the data,\n"
	      "  every definition's md5 matches, every message decodes.\n"
	      "  --quick  the index structure only (no chunk data is read)\n", out);
}

/* One finding; arg: the bag's path, escaped. */
static int print_finding(void *arg, const struct bag_finding *f)
{
	struct term_scratch sc = { 0 };
	const char *path = arg;

	if (f->offset == UINT64_MAX)
		printf("%s: %s\n", path, term_str(&sc, f->text));
	else
		printf("%s: at byte %llu: %s\n", path, (unsigned long long)f->offset, term_str(&sc, f->text));
	term_scratch_free(&sc);
	return 0;
}

/*
 * The summary line, each count labelled with what it counted. A full check
 * walks the records after the bag header (an older format's reader walked
 * them at open), decompresses every chunk and reads and decodes every
 * message; --quick reads the chunk headers and the index entries only, so
 * its chunk and entry counts equal the full check's chunks and messages on
 * a sound bag, and damage inside chunk data goes unseen.
 */
static void print_counts(bag_t *bag, const char *path, unsigned flags, const struct bag_check_stats *st)
{
	unsigned long long n = st->findings;

	if (flags & BAG_CHECK_QUICK) {
		size_t chunks = bag_chunk_count(bag);
		printf("%s: quick check (no chunk data read): %zu chunk header%s, %llu index entr%s: %llu problem%s\n",
		       path, chunks, BAG_S(chunks), (unsigned long long)st->messages, st->messages == 1 ? "y" : "ies",
		       n, BAG_S(n));
		return;
	}
	printf("%s: ", path);
	if (st->records > 0 || strcmp(bag_format(bag), "2.0") == 0)
		printf("%llu record%s walked, ", (unsigned long long)st->records, BAG_S(st->records));
	else
		printf("records walked at open (a bag of version %s), ", bag_format(bag));
	printf("%llu chunk%s decompressed, %llu message%s read and decoded: %llu problem%s\n",
	       (unsigned long long)st->chunks, BAG_S(st->chunks), (unsigned long long)st->messages,
	       BAG_S(st->messages), n, BAG_S(n));
}

int cmd_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned flags = 0;
	int status = EXIT_OK, ch;

	while ((ch = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'q': flags |= BAG_CHECK_QUICK; break;
		case 'h': usage(stdout); return EXIT_OK;
		default: cli_bad_option(argv); usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	for (int i = optind; i < argc; i++) {
		struct bag_open_opts opts = BAG_OPEN_OPTS_INIT;
		struct bag_check_stats st;
		struct term_scratch sc = { 0 };
		char *shown = bag_url_redact(argv[i]);
		const char *path = term_str(&sc, shown != NULL ? shown : "(out of memory)");
		bag_t *bag;
		int rc;

		const char *why = NULL;
		bagset_open_opts(&opts);
		rc = bag_open(&bag, argv[i], &opts);
		if (rc != BAG_OK)
			why = bag_last_error(bag)->message;
		else   /* its counts' pass also warns of the rows reading leaves out (pass 1) */
			rc = bagset_exact_counts(bag, &why);
		if (rc != BAG_OK) {
			printf("%s\n", term_str(&sc, why));
			printf("%s: cannot be checked: %s\n", path, bag_strerror(rc));
			term_scratch_free(&sc);
			free(shown);
			status = EXIT_BAD_INPUT;
			bag_close(bag);
			continue;
		}
		rc = bag_check(bag, flags, print_finding, (void *)path, &st);
		if (rc != BAG_OK) {
			cli_error("%s", bag_last_error(bag)->message);
			status = EXIT_BAD_INPUT;
		}
		print_counts(bag, path, flags, &st);
		if (st.findings > 0)
			status = EXIT_BAD_INPUT;
		bag_close(bag);
		term_scratch_free(&sc);
		free(shown);
	}
	fflush(stdout);
	return status;
}
