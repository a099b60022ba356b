/*
 * cat.c - `bagscope cat`: stream messages in bag time order, restricted by
 * topic, type and an inclusive time range, in one of several formats.
 *
 * Rows come from one view over the timeline of every bag given; each is
 * read (its chunk fetched through the cache) and handed to the format's
 * printer, which writes to a fully buffered stdout. A message that cannot be
 * read or decoded gets an error line on stderr and the stream goes on; the
 * exit status is then 1.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

enum format { FORMAT_YAML, FORMAT_JSON, FORMAT_CSV, FORMAT_HEX };

static const char *const format_names[] = {
	[FORMAT_YAML] = "yaml",
	[FORMAT_JSON] = "json",
	[FORMAT_CSV] = "csv",
	[FORMAT_HEX] = "hex",
};

struct cat_opts {
	enum format format;
	const char **topics;
	size_t ntopics;
	const char **types;
	size_t ntypes;
	const char *start;
	const char *end;
	uint64_t limit;           /* 0: all */
};

/* Offsets, 16 hex bytes and their ASCII, after a one-line heading. */
static void print_hex(FILE *out, const struct bag_message *m)
{
	fprintf(out, "%s %lld.%09lld %s %u bytes\n", m->conn->topic,
	        (long long)(m->time_ns / BAG_NSEC_PER_SEC), (long long)(m->time_ns % BAG_NSEC_PER_SEC),
	        m->conn->type, m->size);
	for (uint32_t at = 0; at < m->size; at += 16) {
		uint32_t n = m->size - at < 16 ? m->size - at : 16;
		fprintf(out, "%08x ", at);
		for (uint32_t i = 0; i < 16; i++) {
			if (i == 8)
				fputc(' ', out);
			if (i < n)
				fprintf(out, " %02x", m->data[at + i]);
			else
				fputs("   ", out);
		}
		fputs("  |", out);
		for (uint32_t i = 0; i < n; i++) {
			uint8_t c = m->data[at + i];
			fputc(c >= 0x20 && c < 0x7f ? c : '.', out);
		}
		fputs("|\n", out);
	}
	fputc('\n', out);
}

static void usage(FILE *out)
{
	fputs("usage: bagscope cat [--topic T]... [--type TYPE]... [--start S] [--end E]\n"
	      "                    [--format yaml|json|csv|hex] [-n N] BAG...\n"
	      "  S, E: epoch seconds (1500000003.25) or offsets from the bag start (+12.5)\n", out);
}

static int parse_args(int argc, char **argv, struct cat_opts *o)
{
	static const struct option longopts[] = {
		{ "topic", required_argument, NULL, 't' },
		{ "type", required_argument, NULL, 'y' },
		{ "start", required_argument, NULL, 's' },
		{ "end", required_argument, NULL, 'e' },
		{ "format", required_argument, NULL, 'f' },
		{ "count", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;
	size_t k;
	char *endp;

	memset(o, 0, sizeof *o);
	o->topics = calloc((size_t)argc, sizeof *o->topics);
	o->types = calloc((size_t)argc, sizeof *o->types);
	if (o->topics == NULL || o->types == NULL)
		return -1;
	while ((opt = getopt_long(argc, argv, "t:y:s:e:f:n:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 't': o->topics[o->ntopics++] = optarg; break;
		case 'y': o->types[o->ntypes++] = optarg; break;
		case 's': o->start = optarg; break;
		case 'e': o->end = optarg; break;
		case 'f':
			for (k = 0; k < sizeof format_names / sizeof *format_names; k++)
				if (strcmp(optarg, format_names[k]) == 0)
					break;
			if (k == sizeof format_names / sizeof *format_names) {
				cli_error("cat: unknown format '%s' (yaml, json, csv or hex)", optarg);
				return -1;
			}
			o->format = (enum format)k;
			break;
		case 'n':
			o->limit = strtoull(optarg, &endp, 10);
			if (*endp != '\0' || o->limit == 0) {
				cli_error("cat: -n needs a positive count, not '%s'", optarg);
				return -1;
			}
			break;
		case 'h': usage(stdout); exit(EXIT_OK);
		default: usage(stderr); return -1;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return -1;
	}
	return 0;
}

int cmd_cat(int argc, char **argv)
{
	struct cat_opts o;
	struct cli_bags cb = { 0 };
	struct bag_query q;
	bag_view_t *view = NULL;
	struct bag_message m;
	int status = EXIT_USAGE;

	if (parse_args(argc, argv, &o) != 0)
		goto done;
	status = EXIT_BAD_INPUT;
	if (cli_open_bags(&cb, argv + optind, (size_t)(argc - optind)) != BAG_OK)
		goto done;
	bag_query_init(&q);
	q.topics = o.topics;
	q.ntopics = o.ntopics;
	q.types = o.types;
	q.ntypes = o.ntypes;
	if ((o.start && cli_parse_time(o.start, bag_timeline_start(cb.tl), &q.start_ns) != 0) ||
	    (o.end && cli_parse_time(o.end, bag_timeline_start(cb.tl), &q.end_ns) != 0)) {
		cli_error("cat: a time is epoch seconds (1500000003.25) or an offset (+12.5), not '%s'",
		          o.start && cli_parse_time(o.start, 0, &q.start_ns) != 0 ? o.start : o.end);
		status = EXIT_USAGE;
		goto done;
	}
	if (bag_view_open(&view, cb.tl, &q) != BAG_OK) {
		cli_error("%s", bag_view_errmsg(view));
		goto done;
	}
	setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	status = EXIT_OK;
	uint64_t n = bag_view_count(view);
	if (o.limit && o.limit < n)
		n = o.limit;
	for (uint64_t row = 0; row < n; row++) {
		if (bag_view_read(view, row, &m) != BAG_OK) {
			fflush(stdout);
			cli_error("%s", bag_view_errmsg(view));
			status = EXIT_BAD_INPUT;
			continue;
		}
		switch (o.format) {
		case FORMAT_HEX:
			print_hex(stdout, &m);
			break;
		default:
			cli_error("cat: format %s needs the decoder", format_names[o.format]);
			status = EXIT_USAGE;
			goto done;
		}
	}
done:
	fflush(stdout);
	bag_view_free(view);
	cli_close_bags(&cb);
	free(o.topics);
	free(o.types);
	return status;
}
