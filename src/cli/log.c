/*
 * log.c - `bagscope log`: the bags' rosgraph_msgs/Log messages (log.h),
 * one line each:
 *   2017-07-14T02:40:00.123456789Z WARN [/node] text (file.cpp:12 function)
 * (the stamp in UTC, then the level, node, text and origin: a layout lnav
 * detects as a log), coloured by level on a terminal unless NO_COLOR is set;
 * the further lines of a multi-line text follow indented by four spaces.
 * --format json gives one object per message, --summary a table of counts
 * per node and level with the first and last stamp, from a hash table of
 * (node, level) filled as the scan goes.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

struct log_opts {
	struct bag_log_opts lo;
	bool json, summary, colour;
	char **bags;
	size_t nbags;
};

/* One (node, level) of the summary. */
struct sum_row {
	char *node;
	unsigned level;
	uint64_t count;
	int64_t first_ns, last_ns;
};

struct summary {
	struct sum_row *rows;      /* open addressing; node NULL: empty */
	size_t n, cap;             /* cap a power of two, at most half full */
	bool failed;
};

static void usage(FILE *out)
{
	fputs("usage: bagscope log [--level L] [--node REGEX] [--grep REGEX] [--format text|json] [--summary] BAG...\n"
	      "  every rosgraph_msgs/Log message (/rosout, /rosout_agg: a message on both is shown once)\n"
	      "  --level debug|info|warn|error|fatal: that level and worse\n"
	      "  --node, --grep: POSIX extended regexes on the node name and on the text\n"
	      "  --summary: messages per node and level, with the first and last stamp\n", out);
}

static int parse_level(const char *s, unsigned *level)
{
	static const char *const names[] = { "debug", "info", "warn", "error", "fatal" };
	for (unsigned k = 0; k < 5; k++)
		if (strcasecmp(s, names[k]) == 0 || (k == 2 && strcasecmp(s, "warning") == 0)) {
			*level = 1u << k;
			return 0;
		}
	return -1;
}

static int parse_args(int argc, char **argv, struct log_opts *o)
{
	static const struct option longopts[] = {
		{ "level", required_argument, NULL, 'l' }, { "node", required_argument, NULL, 'n' },
		{ "grep", required_argument, NULL, 'g' }, { "format", required_argument, NULL, 'f' },
		{ "summary", no_argument, NULL, 's' }, { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int opt;

	memset(o, 0, sizeof *o);
	o->lo = (struct bag_log_opts)BAG_LOG_OPTS_INIT;
	while ((opt = getopt_long(argc, argv, "l:n:g:f:sh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'l':
			if (parse_level(optarg, &o->lo.min_level) != 0) {
				cli_error("log: --level: debug, info, warn, error or fatal, not '%s'", optarg);
				return -1;
			}
			break;
		case 'n': o->lo.node_regex = optarg; break;
		case 'g': o->lo.grep_regex = optarg; break;
		case 'f':
			if (strcmp(optarg, "json") != 0 && strcmp(optarg, "text") != 0) {
				cli_error("log: --format: text or json, not '%s'", optarg);
				return -1;
			}
			o->json = strcmp(optarg, "json") == 0;
			break;
		case 's': o->summary = true; break;
		case 'h': usage(stdout); exit(EXIT_OK);
		default: cli_bad_option(argv); usage(stderr); return -1;
		}
	}
	o->bags = argv + optind;
	o->nbags = (size_t)(argc - optind);
	if (o->nbags == 0) {
		cli_error("log: name a bag file");
		usage(stderr);
		return -1;
	}
	o->colour = !o->json && !o->summary && cli_colour();
	return 0;
}

static const char *level_name(unsigned level, char *buf, size_t cap)
{
	return cli_level_name(bag_log_level_name(level), level, buf, cap);
}

/* Append s escaped, its lines after the first indented by four spaces. */
static void put_lines(struct bag_text *t, const char *s)
{
	for (;;) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		if (n > 0 && s[n - 1] == '\r')
			n--;
		term_escape(t, s, n);
		if (nl == NULL || nl[1] == '\0')
			return;
		bag_text_append(t, "\n    ", 5);
		s = nl + 1;
	}
}

static void text_line(const struct log_opts *o, const struct bag_log_entry *e, struct bag_text *t)
{
	static const char *const sgr[] = { "\033[32m", "", "\033[33m", "\033[31m", "\033[1;31m" };
	char buf[24];
	int k = e->level == 1 ? 0 : e->level == 2 ? 1 : e->level == 4 ? 2 : e->level == 8 ? 3 : e->level == 16 ? 4 : 1;

	if (o->colour && sgr[k][0])
		bag_text_append(t, sgr[k], strlen(sgr[k]));
	cli_utc_time(t, e->stamp_ns);
	bag_text_printf(t, " %s [", level_name(e->level, buf, sizeof buf));
	term_escape(t, e->node, strlen(e->node));
	bag_text_append(t, "] ", 2);
	put_lines(t, e->msg);
	bag_text_append(t, " (", 2);
	term_escape(t, e->file, strlen(e->file));
	bag_text_printf(t, ":%u ", e->line);
	term_escape(t, e->function, strlen(e->function));
	bag_text_append(t, ")", 1);
	if (o->colour && sgr[k][0])
		bag_text_append(t, "\033[0m", 4);
	bag_text_append(t, "\n", 1);
}

static void json_field(struct bag_text *t, const char *name, const char *s)
{
	bag_text_printf(t, ", \"%s\": ", name);
	bag_text_json_string(t, s, strlen(s));
}

static void json_line(const struct bag_log_entry *e, struct bag_text *t)
{
	char buf[24];
	const char *tp = e->topics;

	bag_text_printf(t, "{\"time_ns\": %lld, \"stamp_ns\": %lld", (long long)e->time_ns, (long long)e->stamp_ns);
	json_field(t, "level", level_name(e->level, buf, sizeof buf));
	json_field(t, "node", e->node);
	json_field(t, "msg", e->msg);
	json_field(t, "file", e->file);
	json_field(t, "function", e->function);
	bag_text_printf(t, ", \"line\": %u, \"topics\": [", e->line);
	for (size_t k = 0; k < e->ntopics; k++, tp += strlen(tp) + 1) {
		bag_text_append(t, k ? ", " : "", k ? 2 : 0);
		bag_text_json_string(t, tp, strlen(tp));
	}
	bag_text_append(t, "]}\n", 3);
}

/* Where (node, level) starts its probe in a table of cap slots. */
static size_t sum_slot(const char *node, unsigned level, size_t cap)
{
	size_t j = level;
	for (const char *p = node; *p; p++)
		j = j * 131 + (unsigned char)*p;
	return j & (cap - 1);
}

static int sum_grow(struct summary *s)
{
	size_t cap = s->cap ? s->cap * 2 : 64;
	struct sum_row *r = calloc(cap, sizeof *r);
	if (r == NULL)
		return -1;
	for (size_t i = 0; i < s->cap; i++) {
		if (s->rows[i].node == NULL)
			continue;
		size_t j = sum_slot(s->rows[i].node, s->rows[i].level, cap);
		while (r[j].node != NULL)
			j = (j + 1) & (cap - 1);
		r[j] = s->rows[i];
	}
	free(s->rows);
	s->rows = r;
	s->cap = cap;
	return 0;
}

/* Count e in its (node, level) row. */
static int sum_add(struct summary *s, const struct bag_log_entry *e)
{
	if (2 * (s->n + 1) > s->cap && sum_grow(s) != 0)
		return BAG_ENOMEM;
	size_t j = sum_slot(e->node, e->level, s->cap);
	for (; s->rows[j].node != NULL; j = (j + 1) & (s->cap - 1))
		if (s->rows[j].level == e->level && strcmp(s->rows[j].node, e->node) == 0)
			break;
	struct sum_row *r = &s->rows[j];
	if (r->node == NULL) {
		if ((r->node = strdup(e->node)) == NULL)
			return BAG_ENOMEM;
		r->level = e->level;
		r->first_ns = r->last_ns = e->stamp_ns;
		s->n++;
	}
	r->count++;
	r->first_ns = e->stamp_ns < r->first_ns ? e->stamp_ns : r->first_ns;
	r->last_ns = e->stamp_ns > r->last_ns ? e->stamp_ns : r->last_ns;
	return 0;
}

struct log_run {
	const struct log_opts *o;
	struct bag_text line, safe;  /* a line, and its JSON made safe for a terminal */
	struct summary sum;
};

static int on_entry(void *arg, const struct bag_log_entry *e)
{
	struct log_run *r = arg;

	if (r->o->summary)
		return sum_add(&r->sum, e);
	r->line.len = 0;
	if (r->o->json)
		json_line(e, &r->line);
	else
		text_line(r->o, e, &r->line);
	if (r->line.failed)
		return BAG_ENOMEM;
	if (r->o->json && !term_json_clean(r->line.p, r->line.len)) {
		r->safe.len = 0;
		term_json(&r->safe, r->line.p, r->line.len);
		fwrite(r->safe.p, 1, r->safe.len, stdout);
		return r->safe.failed ? BAG_ENOMEM : 0;
	}
	fwrite(r->line.p, 1, r->line.len, stdout);
	return 0;
}

static int cmp_row(const void *a, const void *b)
{
	const struct sum_row *x = a, *y = b;
	int c = strcmp(x->node, y->node);
	return c ? c : (x->level > y->level) - (x->level < y->level);
}

/* The table, rows by node then level. */
static void print_summary(struct summary *s)
{
	struct bag_text t = { 0 };
	size_t n = 0, w = 4;
	char buf[24];

	for (size_t i = 0; i < s->cap; i++)
		if (s->rows[i].node != NULL)
			s->rows[n++] = s->rows[i];
	qsort(s->rows, n, sizeof *s->rows, cmp_row);
	for (size_t i = 0; i < n; i++) {
		t.len = 0;
		term_escape(&t, s->rows[i].node, strlen(s->rows[i].node));
		w = t.len > w ? (t.len < 60 ? t.len : 60) : w;
	}
	printf("%-*s  %-6s  %9s  %-30s  %s\n", (int)w, "NODE", "LEVEL", "COUNT", "FIRST", "LAST");
	for (size_t i = 0; i < n; i++) {
		struct sum_row *r = &s->rows[i];
		t.len = 0;
		term_escape(&t, r->node, strlen(r->node));
		bag_text_printf(&t, "%*s  %-6s  %9llu  ", (int)(w > t.len ? w - t.len : 0), "",
		                level_name(r->level, buf, sizeof buf), (unsigned long long)r->count);
		cli_utc_time(&t, r->first_ns);
		bag_text_append(&t, "  ", 2);
		cli_utc_time(&t, r->last_ns);
		bag_text_append(&t, "\n", 1);
		fwrite(t.p, 1, t.len, stdout);
	}
	s->cap = n;   /* the rows left to free */
	bag_text_free(&t);
}

int cmd_log(int argc, char **argv)
{
	struct log_opts o;
	struct bagset bs = { 0 };
	struct log_run run = { .o = &o };
	struct bag_log_stats st;
	struct bag_error err = BAG_ERROR_INIT;
	size_t wdone = 0;
	int rc, ret = EXIT_BAD_INPUT;

	if (parse_args(argc, argv, &o) != 0)
		return EXIT_USAGE;
	if (bagset_open(&bs, o.bags, o.nbags) != 0)
		goto out;
	rc = bag_log_scan(bs.tl, &o.lo, on_entry, &run, &st, &err);
	fflush(stdout);
	cli_timeline_warnings(bs.tl, &wdone);
	if (rc != 0) {
		cli_error("log: %s", err.message);
		ret = rc == BAG_EINVAL ? EXIT_USAGE : EXIT_BAD_INPUT;
		goto out;
	}
	if (o.summary && run.sum.rows != NULL)
		print_summary(&run.sum);
	if (st.bad > 0)
		cli_error("log: %llu message%s could not be read, the first: %s", (unsigned long long)st.bad,
		          st.bad == 1 ? "" : "s", st.first_bad);
	ret = st.bad > 0 ? EXIT_BAD_INPUT : EXIT_OK;
out:
	for (size_t i = 0; i < run.sum.cap; i++)
		free(run.sum.rows[i].node);
	free(run.sum.rows);
	bag_text_free(&run.line);
	bag_text_free(&run.safe);
	bagset_close(&bs);
	return ret;
}
