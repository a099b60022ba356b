/*
 * view-log.c - the log pane (L): for each bag what recovery kept and lost
 * (as bagset says it on stderr), its warnings, the timeline's, files that
 * did not open, and the chunks found unreadable so far. It covers the
 * detail while open and is built anew each time it opens.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/draw.h"
#include "tui/textview.h"

struct log_pane {
	struct detail d;
	bool open;
};

/* Add a line to the log view. */
static void log_line(struct detail *log, int depth, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void log_line(struct detail *log, int depth, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	detail_add(log, depth, line);
}

/* How the bag was read: from its index (2.0, 1.2), or in one pass over its records (older, unindexed). */
static void opened(struct detail *log, bag_t *bag)
{
	const char *f = bag_format(bag);
	unsigned long long n = bag_message_count(bag);
	size_t nc = bag_chunk_count(bag);

	if (!bag_counts_exact(bag))   /* a lone .db3 (bag_counts_exact()) */
		log_line(log, 1, "opened from its table's indexes, no row read: about %llu message%s in %zu span%s "
		         "(counted in the background)", n, n == 1 ? "" : "s", nc, nc == 1 ? "" : "s");
	else if (strcmp(f, "2.0") == 0 || strcmp(f, "1.2") == 0)
		log_line(log, 1, "opened from its index: %llu message%s in %zu chunk%s", n, n == 1 ? "" : "s", nc,
		         nc == 1 ? "" : "s");
	else
		log_line(log, 1, "a %s bag, which has no index: %llu message%s read in one pass over its records", f, n,
		         n == 1 ? "" : "s");
}

/* Connections without a definition (older bags whose .msg file was not found): what to do. */
static void no_definitions(struct detail *log, bag_t *bag)
{
	for (size_t i = 0; i < bag_conn_count(bag); i++) {
		const struct bag_connection *c = bag_conn(bag, i);
		/* ('*': no type at all, which the bag's own warning says) */
		if (!bag_conn_has_definition(c) && strcmp(c->type, "*") != 0)
			log_line(log, 1, "no definition of %s (topic %s): its messages are shown as bytes; "
			         "bagscope --msg-path DIR gives the folder holding PKG/msg/TYPE.msg", c->type, c->topic);
	}
}

/*
 * The log: for each bag what recovery kept and lost (as bagset says it on
 * stderr), its warnings, the timeline's, files that did not open, and the
 * chunks found unreadable so far.
 */
static void build(struct app *app, struct detail *log)
{
	detail_clear(log);
	/* the status line's last note, whole (the status line may have cut it) */
	for (const char *n = app->last_note, *nl; *n; n = nl + 1) {
		nl = strchr(n, '\n');
		log_line(log, n == app->last_note ? 0 : 1, "%s%.*s", n == app->last_note ? "last note: " : "",
		         (int)(nl ? nl - n : (ptrdiff_t)strlen(n)), n);
		if (nl == NULL)
			break;
	}
	for (const char *s = app->bad.skipped.p, *nl; s != NULL && *s; s = nl + 1) {
		nl = strchr(s, '\n');
		log_line(log, 0, "skipped: %.*s", (int)(nl ? nl - s : (ptrdiff_t)strlen(s)), s);
		if (nl == NULL)
			break;
	}
	for (size_t i = 0; i < app->cb.nbags; i++) {
		bag_t *bag = app->cb.bags[i];
		struct bag_recovery r;
		const char *path = bag_path(bag);
		bag_recovery_report(bag, &r);
		log_line(log, 0, "%s", path);
		if (r.recovered) {
			log_line(log, 1, "%s", r.reason);
			log_line(log, 1, "read without its index: %llu message%s recovered from %zu chunk%s by a scan",
			         (unsigned long long)r.messages, BAG_S(r.messages), r.chunks, BAG_S(r.chunks));
			for (size_t k = 0; k < r.nlosses; k++) {
				const struct bag_loss *l = bag_recovery_loss(bag, k);
				log_line(log, 1, "bytes %llu-%llu lost: %s", (unsigned long long)l->start,
				         (unsigned long long)l->end, l->what);
			}
		} else {
			opened(log, bag);
		}
		for (size_t k = 0; k < bag_warning_count(bag) && bag_warning(bag, k) != NULL; k++)
			log_line(log, 1, "warning: %s", bag_warning(bag, k));
		no_definitions(log, bag);
	}
	for (size_t k = 0; k < bag_timeline_warning_count(app->cb.tl) && bag_timeline_warning(app->cb.tl, k); k++)
		log_line(log, 0, "warning: %s", bag_timeline_warning(app->cb.tl, k));
	if (app->bad.nchunks > 0)
		log_line(log, 0, "unreadable so far: %zu chunk%s, %llu message%s (each row of them says why)",
		         app->bad.nchunks, BAG_S(app->bad.nchunks), (unsigned long long)app->bad.msgs,
		         BAG_S(app->bad.msgs));
	if (log->n == 0)
		log_line(log, 0, "nothing to report");
}

static void draw(struct app *app, struct pane *p)
{
	struct log_pane *s = p->state;

	textview_draw(app, p, &s->d, app->zoom ? ": recovery, warnings, errors   [L] close"
	                                       : ": recovery, warnings, errors   [L] close [z] zoom", true);
}

/* L opens and closes it from anywhere, Esc closes it; moves when focused. */
static bool key(struct app *app, struct pane *p, enum action a, bool focused)
{
	struct log_pane *s = p->state;

	if (a == ACTION_LOG || (a == ACTION_CANCEL && s->open)) {
		s->open = a == ACTION_LOG && !s->open;
		if (s->open)
			build(app, &s->d);
		if (s->open && app->m.focus == PANE_DETAIL)
			app->m.focus = PANE_LOG;
		else if (!s->open && app->m.focus == PANE_LOG)
			app->m.focus = PANE_DETAIL;
		return true;
	}
	return focused && s->open && textview_key(&s->d, a, p->r.h);
}

static int height(const struct app *app, const struct pane *p, int avail)
{
	const struct log_pane *s = p->state;

	(void)app;
	return s->open ? avail : 0;
}

static void click(struct app *app, struct pane *p, int row, int col)
{
	struct log_pane *s = p->state;

	(void)app;
	(void)col;
	textview_click(&s->d, row);
}

static int init(struct app *app, struct pane *p)
{
	(void)app;
	return (p->state = calloc(1, sizeof(struct log_pane))) != NULL ? 0 : -1;
}

static void pane_free(struct app *app, struct pane *p)
{
	struct log_pane *s = p->state;

	(void)app;
	if (s != NULL)
		detail_clear(&s->d);
}

const struct pane_ops pane_log = {
	.title = "Log",
	.help = "what recovery kept and lost, warnings, unreadable chunks, skipped files",
	.slot = SLOT_SIDE,
	.init = init,
	.draw = draw,
	.key = key,
	.click = click,
	.height = height,
	.free = pane_free,
};
