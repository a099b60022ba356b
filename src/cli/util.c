/* util.c - helpers the subcommands share (see cli.h). */
#include <getopt.h>
#include <stdlib.h>
#include <unistd.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "common/timeparse.h"

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

int cli_parse_time(const char *s, int64_t start_ns, int64_t end_ns, int64_t *ns)
{
	struct jump j;
	const char *why;

	if (jump_parse(s, start_ns, end_ns, start_ns, &j, &why) != 0 || j.kind != JUMP_TIME)
		return -1;
	*ns = j.time_ns;
	return 0;
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
	struct bag_text before = { 0 }, all = { 0 };
	size_t pos = bag_expr_error(e)->offset;
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
