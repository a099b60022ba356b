/*
 * main.c - bagscope's entry point: `bagscope BAG...` opens the browser, and
 * `bagscope SUBCOMMAND ...` runs one of the script-friendly subcommands.
 */
#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include <unistd.h>

#include "cli/cli.h"
#include "tui/tui.h"

struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct subcommand subcommands[] = {
	{ "info", cmd_info, "summarise bags as `rosbag info` does (--json, --freq)" },
	{ "cat", cmd_cat, "print messages in time order (yaml, json, csv, hex)" },
	{ "check", cmd_check, "verify a bag's integrity: records, chunks, index, definitions (--quick)" },
	{ "defs", cmd_defs, "show connection headers and message definitions (--tree)" },
	{ "stats", cmd_stats, "per-topic rates, periods, gaps, bandwidth, header latency (--json)" },
	{ "gen", cmd_gen, "write typed C or C++ code for a bag's message types (--lang c|cpp)" },
	{ "frames", cmd_frames, "write the images of a camera topic as PNG files" },
	{ "plot", cmd_plot, "plot message paths over time: braille chart, or min/max columns (--csv)" },
	{ "export", cmd_export, "write a subset, merge, repair or recompress to a new bag or MCAP file" },
	{ "tf", cmd_tf, "the TF frame tree, and transform lookups as tf2 gives them (--lookup)" },
	{ "log", cmd_log, "the /rosout log: one line per message, by level, node, text (--summary)" },
	{ "diag", cmd_diag, "diagnostics: each status's level changes and time per level (--json)" },
};

static void usage(FILE *out)
{
	fputs("usage: bagscope BAG...             browse bags in the terminal\n"
	      "       bagscope COMMAND [ARGS]...\n"
	      "       bagscope help [COMMAND]\n"
	      "       bagscope --version\n"
	      "  --msg-path DIR (anywhere, repeatable): .msg files for bags without definitions (1.1 and older)\n"
	      "  BAG may be a URL: http(s)://HOST/PATH, s3://BUCKET/KEY, s3://BUCKET/PREFIX/GLOB\n"
	      "  --cache-size SIZE (anywhere): bytes of a URL bag kept in memory (default 256M)\n"
	      "  --no-sign-request (anywhere): read s3:// anonymously (public buckets)\n"
	      "\ncommands:\n", out);
	for (size_t i = 0; i < sizeof subcommands / sizeof *subcommands; i++)
		fprintf(out, "  %-8s %s\n", subcommands[i].name, subcommands[i].summary);
}

/* bagscope help: this usage; bagscope help COMMAND: that command's --help. */
static int help(int argc, char **argv)
{
	for (size_t i = 0; argc > 2 && i < sizeof subcommands / sizeof *subcommands; i++)
		if (strcmp(argv[2], subcommands[i].name) == 0) {
			char *args[] = { argv[2], (char *)"--help", NULL };
			return subcommands[i].run(2, args);
		}
	if (argc > 2) {
		cli_error("help: no command '%s'", argv[2]);
		usage(stderr);
		return EXIT_USAGE;
	}
	usage(stdout);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	/*
	 * The character set only: the browser needs it for UTF-8. Numbers,
	 * dates and messages stay "C", so that JSON reads back, every output
	 * matches the ROS tools (whose months are English), whatever LANG says.
	 */
	setlocale(LC_CTYPE, "");
	opterr = 0;   /* getopt would echo a bad argument raw: cli_bad_option() escapes it */
	/* --msg-path DIR, anywhere: .msg directories for bags without definitions */
	if (bagset_msg_path_args(&argc, argv) != 0)
		return EXIT_USAGE;
	/* --cache-size, --no-sign-request, anywhere; s3://bucket/prefix/ *.bag expanded */
	switch (bagset_remote_args(&argc, &argv)) {
	case 0:
		break;
	case -1:
		return EXIT_USAGE;
	default:
		return EXIT_BAD_INPUT;
	}
	/* a rosbag2 directory (or its metadata.yaml): its storage files */
	if (bagset_rosbag2_args(&argc, &argv) != 0)
		return EXIT_BAD_INPUT;
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		/* the program's version, and the library's it runs with */
		printf("bagscope %s (libbagscope %s)\n", BAG_VERSION_STRING, bag_version_string());
		return EXIT_OK;
	}
	if (strcmp(argv[1], "help") == 0)
		return help(argc, argv);
	for (size_t i = 0; i < sizeof subcommands / sizeof *subcommands; i++)
		if (strcmp(argv[1], subcommands[i].name) == 0)
			return subcommands[i].run(argc - 1, argv + 1);
	for (int i = 1; i < argc; i++)
		if (argv[i][0] == '-') {
			usage(stderr);
			return EXIT_USAGE;
		}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		cli_error("the browser needs a terminal; for scripts use `bagscope info` or `bagscope cat`");
		return EXIT_USAGE;
	}
	return tui_run(argv + 1, (size_t)(argc - 1));
}
