/*
 * cat.c - `bagscope cat`: stream messages in bag time order, restricted by
 * topic, type and an inclusive time range, in one of several formats.
 *
 * Rows come from one view over the timeline of every bag given; each is
 * read (its chunk fetched through the cache) and handed to the format's
 * printer, which writes to a fully buffered stdout. A message that cannot be
 * read or decoded gets an error line on stderr and the stream goes on; the
 * exit status is then 1. One fault is one line: a read error shared by many
 * messages (a damaged chunk) is printed once, and index damage the library
 * worked around is one warning per chunk.
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
	struct bag_text t = { 0 };

	fprintf(out, "%s %lld.%09lld %s %u bytes\n", m->conn->topic,
	        (long long)(m->time_ns / BAG_NSEC_PER_SEC), (long long)(m->time_ns % BAG_NSEC_PER_SEC),
	        m->conn->type, m->size);
	bag_print_hex(&t, m->data, m->size);
	if (t.len > 0)
		fwrite(t.p, 1, t.len, out);
	fputc('\n', out);
	bag_text_free(&t);
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

/* Append a string literal. */
#define APPEND(t, lit) bag_text_append((t), (lit), sizeof(lit) - 1)

/* Each connection's parsed definition, made when first needed. */
struct defs {
	bag_timeline_t *tl;
	bag_msgdef_t **defs;
	int *rc;
};

static int defs_get(struct defs *d, const struct bag_message *m, bag_msgdef_t **out)
{
	size_t i = m->conn_index;

	if (d->defs[i] == NULL && d->rc[i] == BAG_OK) {
		d->rc[i] = bag_msgdef_parse(&d->defs[i], m->conn->type, m->conn->definition,
		                            strlen(m->conn->definition));
		if (d->rc[i] != BAG_OK) {
			fflush(stdout);
			cli_error("%s: connection %u (%s): bad message definition: %s",
			          bag_path(bag_timeline_bag(d->tl, m->bag_index)), m->conn->id, m->conn->topic,
			          bag_msgdef_errmsg(d->defs[i]));
		}
		if (d->rc[i] == BAG_OK && strcmp(bag_msgdef_root(d->defs[i])->md5, m->conn->md5sum) != 0)
			cli_error("warning: %s: connection %u (%s): the definition's md5 is %s, the bag says %s",
			          bag_path(bag_timeline_bag(d->tl, m->bag_index)), m->conn->id, m->conn->topic,
			          bag_msgdef_root(d->defs[i])->md5, m->conn->md5sum);
	}
	*out = d->defs[i];
	return d->rc[i];
}

/* One message in a decoded format; 0 or a BAG_E code (error printed). */
static int print_decoded(struct defs *d, enum format format, const struct bag_message *m,
                         struct bag_text *t, bool *csv_header_done)
{
	char err[256];
	bag_msgdef_t *def;
	int rc = defs_get(d, m, &def);

	t->len = 0;
	if (rc != BAG_OK)
		return rc;             /* said once, when the definition was parsed */
	switch (format) {
	case FORMAT_JSON:
		APPEND(t, "{\"topic\":");
		bag_text_json_string(t, m->conn->topic, strlen(m->conn->topic));
		APPEND(t, ",\"type\":");
		bag_text_json_string(t, m->conn->type, strlen(m->conn->type));
		bag_text_printf(t, ",\"time_ns\":%lld,\"msg\":", (long long)m->time_ns);
		rc = bag_print_json(t, def, m->data, m->size, err, sizeof err);
		APPEND(t, "}\n");
		break;
	case FORMAT_YAML:
		rc = bag_print_yaml(t, def, m->data, m->size, err, sizeof err);
		APPEND(t, "---\n");
		break;
	case FORMAT_CSV:
		if (!*csv_header_done) {
			APPEND(t, "%time,");
			if ((rc = bag_print_csv(t, def, m->data, m->size, true, err, sizeof err)) != BAG_OK)
				break;
			APPEND(t, "\n");
			*csv_header_done = true;
		}
		bag_text_printf(t, "%lld,", (long long)m->time_ns);
		rc = bag_print_csv(t, def, m->data, m->size, false, err, sizeof err);
		APPEND(t, "\n");
		break;
	default:
		break;
	}
	if (rc != BAG_OK) {
		fflush(stdout);
		cli_error("%s: %s at %lld.%09lld, row %llu: %s",
		          bag_path(bag_timeline_bag(d->tl, m->bag_index)), m->conn->topic,
		          (long long)(m->time_ns / BAG_NSEC_PER_SEC), (long long)(m->time_ns % BAG_NSEC_PER_SEC),
		          (unsigned long long)m->row, err);
		return rc;
	}
	fwrite(t->p, 1, t->len, stdout);
	return BAG_OK;
}

/* csv takes one topic: true if the view's connections share one. */
static bool one_topic(bag_view_t *view, bag_timeline_t *tl)
{
	const char *topic = NULL;

	for (size_t i = 0; i < bag_timeline_conn_count(tl); i++) {
		const struct bag_connection *c = bag_timeline_conn(tl, i, NULL);
		if (!bag_view_selects(view, i) || c->message_count == 0)
			continue;
		if (topic != NULL && strcmp(topic, c->topic) != 0)
			return false;
		topic = c->topic;
	}
	return true;
}

int cmd_cat(int argc, char **argv)
{
	struct cat_opts o;
	struct cli_bags cb = { 0 };
	struct bag_query q;
	bag_view_t *view = NULL;
	struct bag_message m;
	struct defs d = { 0 };
	struct bag_text text = { 0 };
	bool csv_header_done = false;
	struct cli_seen seen = { 0 };
	size_t warned = 0;
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
	int64_t t0 = bag_timeline_start(cb.tl), t1 = bag_timeline_end(cb.tl);
	bool bad_start = o.start && cli_parse_time(o.start, t0, t1, &q.start_ns) != 0;
	if (bad_start || (o.end && cli_parse_time(o.end, t0, t1, &q.end_ns) != 0)) {
		cli_error("cat: a time is epoch seconds (1500000003.25) or an offset (+12.5), not '%s'",
		          bad_start ? o.start : o.end);
		status = EXIT_USAGE;
		goto done;
	}
	if (bag_view_open(&view, cb.tl, &q) != BAG_OK) {
		cli_error("%s", bag_view_errmsg(view));
		goto done;
	}
	if (o.format == FORMAT_CSV && !one_topic(view, cb.tl)) {
		cli_error("cat: --format csv prints one topic: choose it with --topic");
		status = EXIT_USAGE;
		goto done;
	}
	d.tl = cb.tl;
	d.defs = calloc(bag_timeline_conn_count(cb.tl) + 1, sizeof *d.defs);
	d.rc = calloc(bag_timeline_conn_count(cb.tl) + 1, sizeof *d.rc);
	if (d.defs == NULL || d.rc == NULL) {
		cli_error("out of memory");
		goto done;
	}
	setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	status = EXIT_OK;
	/* the count can be corrected as the index loads: ask again per row */
	for (uint64_t row = 0; row < bag_view_count(view) && (o.limit == 0 || row < o.limit); row++) {
		int rrc = bag_view_read(view, row, &m);
		if (warned < bag_timeline_warning_count(cb.tl)) {
			fflush(stdout);
			cli_timeline_warnings(cb.tl, &warned);
		}
		if (rrc != BAG_OK) {
			fflush(stdout);
			cli_error_once(&seen, bag_view_errmsg(view));
			status = EXIT_BAD_INPUT;
			continue;
		}
		if (o.format == FORMAT_HEX)
			print_hex(stdout, &m);
		else if (print_decoded(&d, o.format, &m, &text, &csv_header_done) != BAG_OK)
			status = EXIT_BAD_INPUT;
	}
done:
	fflush(stdout);
	for (size_t i = 0; d.defs != NULL && i < bag_timeline_conn_count(cb.tl); i++)
		bag_msgdef_free(d.defs[i]);
	free(d.defs);
	free(d.rc);
	bag_text_free(&text);
	cli_seen_free(&seen);
	bag_view_free(view);
	cli_close_bags(&cb);
	free(o.topics);
	free(o.types);
	return status;
}
