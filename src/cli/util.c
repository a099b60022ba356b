/* util.c - helpers the subcommands share (see cli.h). */
#include <getopt.h>
#include <stdlib.h>
#include <unistd.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"

void cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	term_verror(fmt, ap);
	va_end(ap);
}

void cli_bad_option(char **argv)
{
	if (optopt != 0)
		cli_error("%s: unknown option or missing argument: -%c", argv[0], optopt);
	else
		cli_error("%s: unknown option or missing argument: %s", argv[0], argv[optind - 1]);
}

void cli_json_string(FILE *out, const char *s, size_t len)
{
	struct bag_text t = { 0 }, safe = { 0 };

	bag_text_json_string(&t, s, len);
	if (term_json_clean(t.p, t.len)) {
		fwrite(t.p, 1, t.len, out);
	} else {
		term_json(&safe, t.p, t.len);
		fwrite(safe.p, 1, safe.len, out);
	}
	bag_text_free(&t);
	bag_text_free(&safe);
}

void cli_timeline_warnings(const bag_timeline_t *tl, size_t *done)
{
	for (; *done < bag_timeline_warning_count(tl); (*done)++)
		if (bag_timeline_warning(tl, *done) != NULL)
			cli_error("warning: %s", bag_timeline_warning(tl, *done));
}

void cli_expr_error(const char *cmd, const char *what, const char *text, size_t len, const bag_expr_t *e)
{
	cli_expr_error_at(cmd, what, text, len, 0, e);
}

void cli_expr_error_at(const char *cmd, const char *what, const char *text, size_t len, size_t skip,
                       const bag_expr_t *e)
{
	struct bag_text before = { 0 }, all = { 0 };
	size_t pos = skip + bag_expr_error(e)->offset;
	int lead = (int)(strlen("bagscope: ") + strlen(cmd) + 2 + strlen(what) + 2);

	if (pos > len)
		pos = len;
	term_escape(&before, text, pos);
	term_escape(&all, text, len);
	cli_error("%s: %s: %.*s: %s", cmd, what, (int)all.len, all.p ? all.p : "", bag_expr_error(e)->message);
	fprintf(stderr, "%*s^\n", lead + (int)before.len, "");
	bag_text_free(&before);
	bag_text_free(&all);
}

int cli_select_filter(struct select *s)
{
	int rc = select_filter(s);

	if (rc == BAG_EEXPR)
		cli_expr_error(s->cmd, "--filter", s->filter, strlen(s->filter), s->expr);
	return rc == BAG_OK ? EXIT_OK : EXIT_USAGE;
}

int cli_select_query(struct select *s, bag_timeline_t *tl, struct bag_query *q)
{
	struct bag_error err;
	int rc = select_query(s, tl, q, &err);

	if (rc != BAG_OK)
		cli_error("%s", rc == BAG_ENOMEM ? "out of memory" : err.message);
	return rc == BAG_OK ? EXIT_OK : rc == BAG_ENOMEM ? EXIT_BAD_INPUT : EXIT_USAGE;
}

int cli_select_view(struct select *s, bag_timeline_t *tl, bag_view_t **view)
{
	struct bag_query q;
	int status = cli_select_query(s, tl, &q);

	if (status != EXIT_OK)
		return status;
	if (bag_view_open(view, tl, &q) != BAG_OK) {
		cli_error("%s", *view ? bag_view_error(*view)->message : "out of memory");
		return EXIT_BAD_INPUT;
	}
	return EXIT_OK;
}

void cli_utc_time(struct bag_text *t, int64_t ns)
{
	int64_t sec = ns / BAG_NSEC_PER_SEC, frac = ns % BAG_NSEC_PER_SEC;
	char when[64];
	struct tm tm;

	if (frac < 0)
		sec--, frac += BAG_NSEC_PER_SEC;
	time_t secs = (time_t)sec;
	if (gmtime_r(&secs, &tm) == NULL || strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		snprintf(when, sizeof when, "%lld", (long long)sec);
	bag_text_printf(t, "%s.%09lldZ", when, (long long)frac);
}

bool cli_colour(void)
{
	const char *nc = getenv("NO_COLOR");
	return isatty(STDOUT_FILENO) && (nc == NULL || nc[0] == '\0');
}

const char *cli_level_name(const char *name, unsigned level, char *buf, size_t cap)
{
	if (name != NULL)
		return name;
	snprintf(buf, cap, "LEVEL%u", level);
	return buf;
}
