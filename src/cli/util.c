/* util.c - helpers the subcommands share (see cli.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "tui/timeparse.h"

void cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("bagscope: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* A progress line on a terminal's stderr, redrawn in place. */
static int show_progress(void *arg, uint64_t done, uint64_t total)
{
	const char *path = arg;

	fprintf(stderr, "\rbagscope: %s: no usable index, scanning: %3d%%", path,
	        total ? (int)(done * 100 / total) : 100);
	if (done >= total)
		fputs("\r\033[K", stderr);
	fflush(stderr);
	return 0;
}

int cli_open_one(bag_t **bag, const char *path)
{
	struct bag_open_opts opts = BAG_OPEN_OPTS_INIT;
	struct bag_recovery r;
	int rc;

	if (isatty(STDERR_FILENO)) {
		opts.progress = show_progress;
		opts.progress_arg = (void *)path;
	}
	rc = bag_open(bag, path, &opts);
	if (rc != BAG_OK) {
		cli_error("%s", bag_errmsg(*bag));
		return rc;
	}
	bag_recovery_report(*bag, &r);
	if (r.recovered) {
		cli_error("%s", r.reason);
		cli_error("%s: read without its index: %llu messages recovered from %zu chunks by a scan",
		          path, (unsigned long long)r.messages, r.chunks);
		for (size_t i = 0; i < r.nlosses; i++) {
			const struct bag_loss *l = bag_recovery_loss(*bag, i);
			cli_error("%s: bytes %llu-%llu lost: %s", path, (unsigned long long)l->start,
			          (unsigned long long)l->end, l->what);
		}
	}
	for (size_t i = 0; i < bag_warning_count(*bag) && bag_warning(*bag, i) != NULL; i++)
		cli_error("warning: %s", bag_warning(*bag, i));
	if (bag_warning_count(*bag) > BAG_WARNINGS_MAX)
		cli_error("warning: %s: %zu more warnings", path, bag_warning_count(*bag) - BAG_WARNINGS_MAX);
	return BAG_OK;
}

int cli_open_bags(struct cli_bags *cb, char *const *paths, size_t n)
{
	int rc = BAG_OK;

	memset(cb, 0, sizeof *cb);
	cb->bags = calloc(n ? n : 1, sizeof *cb->bags);
	if (cb->bags == NULL) {
		cli_error("out of memory");
		return BAG_ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		rc = cli_open_one(&cb->bags[i], paths[i]);
		cb->nbags++;
		if (rc != BAG_OK)
			return rc;
	}
	rc = bag_timeline_open(&cb->tl, cb->bags, cb->nbags);
	if (rc != BAG_OK)
		cli_error("%s", bag_timeline_errmsg(cb->tl));
	return rc;
}

void cli_close_bags(struct cli_bags *cb)
{
	bag_timeline_free(cb->tl);
	for (size_t i = 0; i < cb->nbags; i++)
		bag_close(cb->bags[i]);
	free(cb->bags);
	memset(cb, 0, sizeof *cb);
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
	struct bag_text t = { 0 };

	bag_text_json_string(&t, s, len);
	fwrite(t.p, 1, t.len, out);
	bag_text_free(&t);
}
