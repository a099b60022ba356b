/*
 * diag.c - `bagscope diag`: per diagnostic status (diag.h), its level
 * changes with the message and key/values of each, the time spent in each
 * level, then a summary table (worst level, changes, level at the end);
 * --summary prints the table alone, --json everything as one object.
 * --level L keeps the statuses that reached L or worse.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

struct diag_opts {
	struct bag_diag_opts d;
	unsigned min_level;
	bool json, summary;
	char **bags;
	size_t nbags;
};

static void usage(FILE *out)
{
	fputs("usage: bagscope diag [--name REGEX] [--level ok|warn|error|stale] [--summary | --json] BAG...\n"
	      "  DiagnosticArray (/diagnostics, /diagnostics_agg) and DiagnosticStatus (/diagnostics_toplevel_state)\n"
	      "  per status (name, hardware_id): level changes with message and values, time per level\n", out);
}

static int parse_args(int argc, char **argv, struct diag_opts *o)
{
	static const struct option longopts[] = {
		{ "name", required_argument, NULL, 'n' }, { "level", required_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' }, { "summary", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	static const char *const names[] = { "ok", "warn", "error", "stale" };
	int opt;

	memset(o, 0, sizeof *o);
	o->d = (struct bag_diag_opts)BAG_DIAG_OPTS_INIT;
	while ((opt = getopt_long(argc, argv, "n:l:jsh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n': o->d.name_regex = optarg; break;
		case 'j': o->json = true; break;
		case 's': o->summary = true; break;
		case 'l':
			for (o->min_level = 0; o->min_level < 4 && strcasecmp(optarg, names[o->min_level]) != 0;)
				o->min_level++;
			if (o->min_level == 4) {
				cli_error("diag: --level: ok, warn, error or stale, not '%s'", optarg);
				return -1;
			}
			break;
		case 'h': usage(stdout); exit(EXIT_OK);
		default: cli_bad_option(argv); usage(stderr); return -1;
		}
	}
	o->bags = argv + optind;
	o->nbags = (size_t)(argc - optind);
	if (o->nbags == 0 || (o->json && o->summary)) {
		cli_error("diag: %s", o->nbags == 0 ? "name a bag file" : "--json and --summary do not go together");
		usage(stderr);
		return -1;
	}
	return 0;
}

static const char *level_name(unsigned level, char *buf, size_t cap)
{
	return cli_level_name(bag_diag_level_name(level), level, buf, cap);
}

static void esc(struct bag_text *t, const char *s)
{
	term_escape(t, s, strlen(s));
}

/* A status's history in text. */
static void text_status(const bag_diag_t *d, size_t i, struct bag_text *t)
{
	struct bag_diag_status s;
	char buf[24];

	bag_diag_status(d, i, &s);
	t->len = 0;
	bag_text_append(t, "status ", 7);
	esc(t, s.name);
	bag_text_append(t, "  hardware ", 11);
	esc(t, s.hardware_id[0] ? s.hardware_id : "-");
	bag_text_append(t, "  ", 2);
	esc(t, s.topic);
	bag_text_printf(t, "  %llu report%s\n", (unsigned long long)s.messages, s.messages == 1 ? "" : "s");
	for (size_t k = 0; k < s.ntransitions; k++) {
		const struct bag_diag_transition *x = bag_diag_transition(d, i, k);
		bag_text_append(t, "  ", 2);
		cli_utc_time(t, x->time_ns);
		bag_text_printf(t, "  %-5s  ", level_name(x->level, buf, sizeof buf));
		esc(t, x->message);
		for (size_t v = 0; v < x->nvalues; v++) {
			bag_text_append(t, v ? ", " : "  (", v ? 2 : 3);
			esc(t, x->values[v].key);
			bag_text_append(t, "=", 1);
			esc(t, x->values[v].value);
		}
		bag_text_append(t, x->nvalues ? ")\n" : "\n", x->nvalues ? 2 : 1);
	}
	bag_text_append(t, "  time in level:", 16);
	for (unsigned l = 0; l < 4; l++)
		bag_text_printf(t, " %s %.3f s%s", bag_diag_level_name(l), (double)s.time_in_level[l] / 1e9, l < 3 ? "," : "\n\n");
	fwrite(t->p, 1, t->len, stdout);
}

/* The summary table. */
static void text_summary(const bag_diag_t *d, const bool *keep, struct bag_text *t)
{
	size_t w = 4, hw = 8;
	char b1[24], b2[24];

	for (size_t i = 0; i < bag_diag_count(d); i++) {
		struct bag_diag_status s;
		bag_diag_status(d, i, &s);
		t->len = 0;
		esc(t, s.name);
		w = keep[i] && t->len > w ? (t->len < 50 ? t->len : 50) : w;
		t->len = 0;
		esc(t, s.hardware_id);
		hw = keep[i] && t->len > hw ? (t->len < 30 ? t->len : 30) : hw;
	}
	printf("%-*s  %-*s  %-5s  %11s  %s\n", (int)w, "NAME", (int)hw, "HARDWARE", "WORST", "TRANSITIONS", "LAST");
	for (size_t i = 0; i < bag_diag_count(d); i++) {
		struct bag_diag_status s;
		if (!keep[i])
			continue;
		bag_diag_status(d, i, &s);
		t->len = 0;
		esc(t, s.name);
		bag_text_printf(t, "%*s  ", (int)(w > t->len ? w - t->len : 0), "");
		size_t mark = t->len;
		esc(t, s.hardware_id);
		bag_text_printf(t, "%*s  %-5s  %11zu  %s\n", (int)(hw > t->len - mark ? hw - (t->len - mark) : 0), "",
		                level_name(s.worst, b1, sizeof b1), s.ntransitions, level_name(s.last, b2, sizeof b2));
		fwrite(t->p, 1, t->len, stdout);
	}
}

static void json_str(struct bag_text *t, const char *s)
{
	bag_text_json_string(t, s, strlen(s));
}

static void json_status(const bag_diag_t *d, size_t i, struct bag_text *t)
{
	struct bag_diag_status s;
	char buf[24];

	bag_diag_status(d, i, &s);
	bag_text_append(t, "{\"name\": ", 9);
	json_str(t, s.name);
	bag_text_append(t, ", \"hardware_id\": ", 17);
	json_str(t, s.hardware_id);
	bag_text_append(t, ", \"topic\": ", 11);
	json_str(t, s.topic);
	bag_text_printf(t, ", \"reports\": %llu, \"worst\": \"%s\"", (unsigned long long)s.messages,
	                level_name(s.worst, buf, sizeof buf));
	bag_text_printf(t, ", \"last\": \"%s\", \"first_ns\": %lld, \"last_ns\": %lld, \"time_in_level_ns\": "
	                "{\"OK\": %lld, \"WARN\": %lld, \"ERROR\": %lld, \"STALE\": %lld}, \"transitions\": [",
	                level_name(s.last, buf, sizeof buf), (long long)s.first_ns, (long long)s.last_ns,
	                (long long)s.time_in_level[0], (long long)s.time_in_level[1], (long long)s.time_in_level[2],
	                (long long)s.time_in_level[3]);
	for (size_t k = 0; k < s.ntransitions; k++) {
		const struct bag_diag_transition *x = bag_diag_transition(d, i, k);
		bag_text_printf(t, "%s{\"time_ns\": %lld, \"level\": \"%s\", \"message\": ", k ? ", " : "",
		                (long long)x->time_ns, level_name(x->level, buf, sizeof buf));
		json_str(t, x->message);
		bag_text_append(t, ", \"values\": [", 13);
		for (size_t v = 0; v < x->nvalues; v++) {
			bag_text_append(t, v ? ", [" : "[", v ? 3 : 1);
			json_str(t, x->values[v].key);
			bag_text_append(t, ", ", 2);
			json_str(t, x->values[v].value);
			bag_text_append(t, "]", 1);
		}
		bag_text_append(t, "]}", 2);
	}
	bag_text_append(t, "]}", 2);
}

/* Everything as one JSON object. */
static void print_json(const bag_diag_t *d, const bool *keep)
{
	struct bag_text t = { 0 }, safe = { 0 };
	bool first = true;

	fputs("{\"statuses\": [", stdout);
	for (size_t i = 0; i < bag_diag_count(d); i++) {
		if (!keep[i])
			continue;
		t.len = 0;
		bag_text_append(&t, first ? "" : ", ", first ? 0 : 2);
		first = false;
		json_status(d, i, &t);
		safe.len = 0;
		term_json(&safe, t.p, t.len);
		fwrite(safe.p, 1, safe.len, stdout);
	}
	fputs("]}\n", stdout);
	bag_text_free(&t);
	bag_text_free(&safe);
}

int cmd_diag(int argc, char **argv)
{
	struct diag_opts o;
	struct bagset bs = { 0 };
	struct bag_text t = { 0 };
	bag_diag_t *d = NULL;
	bool *keep = NULL;
	const char *first_bad;
	size_t wdone = 0;
	int rc, ret = EXIT_BAD_INPUT;

	if (parse_args(argc, argv, &o) != 0)
		return EXIT_USAGE;
	if (bagset_open(&bs, o.bags, o.nbags) != 0)
		goto out;
	if ((rc = bag_diag_build(&d, bs.tl, &o.d)) != 0) {
		cli_error("diag: %s", bag_diag_error(d)->message);
		ret = rc == BAG_EINVAL ? EXIT_USAGE : EXIT_BAD_INPUT;
		goto out;
	}
	cli_timeline_warnings(bs.tl, &wdone);
	if ((keep = calloc(bag_diag_count(d) + 1, sizeof *keep)) == NULL)
		goto out;
	for (size_t i = 0; i < bag_diag_count(d); i++) {
		struct bag_diag_status s;
		bag_diag_status(d, i, &s);
		keep[i] = s.worst >= o.min_level;
	}
	if (o.json) {
		print_json(d, keep);
	} else {
		for (size_t i = 0; !o.summary && i < bag_diag_count(d); i++)
			if (keep[i])
				text_status(d, i, &t);
		text_summary(d, keep, &t);
	}
	fflush(stdout);
	if (bag_diag_bad(d, &first_bad) > 0)
		cli_error("diag: %llu message%s could not be read, the first: %s", (unsigned long long)bag_diag_bad(d, NULL),
		          bag_diag_bad(d, NULL) == 1 ? "" : "s", first_bad);
	ret = bag_diag_bad(d, NULL) > 0 ? EXIT_BAD_INPUT : EXIT_OK;
out:
	free(keep);
	bag_text_free(&t);
	bag_diag_free(d);
	bagset_close(&bs);
	return ret;
}
