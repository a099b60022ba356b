/*
 * view-detail.c - the detail pane: the selected message decoded as a tree
 * (or hex, or its connection), a picture or point cloud for those types
 * (view-media.c), or a topic's connections after Enter on a topic. Its
 * lines are rebuilt when the selection, its bytes (app->sel, from the
 * worker) or the mode change; the field under the cursor and the folded
 * fields follow from message to message.
 *
 * built says what the lines show: a message key, or one of the BUILT_*
 * values below (none, a topic's connections, an unreadable index row).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/draw.h"
#include "tui/media.h"
#include "tui/textview.h"
#include "tui/view-detail.h"

#define BUILT_NONE UINT64_MAX
#define BUILT_CONNS (UINT64_MAX - 2)
#define BUILT_ROW(row) (UINT64_MAX - 3 - (row))   /* an index row that cannot be read */

struct detail_pane {
	struct detail d;
	uint64_t built;               /* what d shows */
	int mode;                     /* the mode it was built for (-1: rebuild) */
	bool wrap;                    /* long lines wrap */
	uint64_t error_for;           /* d says why this (a built value) cannot be read, or BUILT_NONE */
	char error[800];              /* that sentence, as d holds it cut at spaces into error_w columns */
	int error_w;
	int conns_topic;              /* the topic whose connections d shows, or -1 */
	char follow_path[256];        /* the cursor's field path, kept across messages */
	char **folds;                 /* folded field paths, kept across messages */
	size_t nfolds;
	struct media *media;
};

static struct detail_pane *state(struct app *app)
{
	return app->panes[PANE_DETAIL].state;
}

static bool folded(const struct detail_pane *s, const char *path)
{
	for (size_t i = 0; i < s->nfolds; i++)
		if (strcmp(s->folds[i], path) == 0)
			return true;
	return false;
}

static void folds_clear(struct detail_pane *s)
{
	for (size_t i = 0; i < s->nfolds; i++)
		free(s->folds[i]);
	free(s->folds);
	s->folds = NULL;
	s->nfolds = 0;
}

/* The folded nodes, by path, to fold them again in the next message. */
static void folds_save(struct detail_pane *s)
{
	struct detail *d = &s->d;
	size_t n = 0;

	folds_clear(s);
	for (size_t i = 0; i < d->n; i++)
		n += d->lines[i].collapsed && d->lines[i].path != NULL;
	if (n == 0 || (s->folds = calloc(n, sizeof *s->folds)) == NULL)
		return;
	for (size_t i = 0; i < d->n; i++)
		if (d->lines[i].collapsed && d->lines[i].path != NULL && (s->folds[s->nfolds] = strdup(d->lines[i].path)) != NULL)
			s->nfolds++;
}

/* Visible line v whose path is path (or whose text holds the search), or -1. */
static int64_t find_line(struct app *app, const struct detail *d, const char *path)
{
	size_t *idx = malloc((d->n + 1) * sizeof *idx), a, b;
	int64_t at = -1;

	if (idx == NULL)
		return -1;
	size_t n = detail_visible(d, idx, d->n);
	for (size_t v = 0; v < n && at < 0; v++) {
		const struct dline *l = &d->lines[idx[v]];
		if (path != NULL ? l->path != NULL && strcmp(l->path, path) == 0
		                 : match_find(&app->find.hl, l->text, strlen(l->text), &a, &b))
			at = (int64_t)v;
	}
	free(idx);
	return at;
}

/* Fold what was folded before, put the cursor on the field it was on, or on the search's match. */
static void follow(struct app *app, struct detail_pane *s)
{
	struct detail *d = &s->d;
	int64_t v;

	for (size_t i = 0; i < d->n; i++)
		if (d->lines[i].path != NULL && d->lines[i].node && folded(s, d->lines[i].path))
			d->lines[i].collapsed = true;
	if (s->follow_path[0] != '\0' && (v = find_line(app, d, s->follow_path)) >= 0)
		d->cursor = (uint64_t)v;
	if (app->find.to_match) {
		app->find.to_match = false;
		if (app->find.hl_on && (v = find_line(app, d, NULL)) >= 0) {
			d->cursor = (uint64_t)v;
			d->top = v > 2 ? (uint64_t)v - 2 : 0;
		}
	}
}

/* d: s->error in lines of w columns at most, cut at spaces (a word longer than that where it must). */
static void error_lines(struct detail_pane *s, int w)
{
	char line[800];

	detail_clear(&s->d);
	s->error_w = w;
	for (const char *t = s->error; *t != '\0';) {
		size_t n = strlen(t), cut = n;
		if (w > 0 && n > (size_t)w) {
			for (cut = (size_t)w; cut > 0 && t[cut] != ' '; cut--)
				;
			for (cut = cut ? cut : (size_t)w; cut > 1 && (t[cut] & 0xC0) == 0x80; cut--)
				;
		}
		snprintf(line, sizeof line, "%.*s", (int)cut, t);
		detail_add(&s->d, 0, line);
		for (t += cut; *t == ' '; t++)
			;
	}
}

/* The detail for message key that cannot be read: the error once, problem first, cut at spaces as drawn. */
static void detail_error(struct detail_pane *s, const char *msg, uint64_t key)
{
	char first[600];

	detail_problem_first(msg, first, sizeof first);
	snprintf(s->error, sizeof s->error, "cannot read this message: %s. L shows the log; bagscope check names "
	         "every damaged chunk.", first);
	error_lines(s, 0);
	s->error_for = key;
}

/* Every connection of topic t, shown or not. */
static void topic_conns(struct app *app, struct detail *d, size_t t)
{
	const struct topic_row *r = &app->m.topics[t];
	char line[512];

	detail_clear(d);
	char count[32] = "? (being counted)";

	if (!r->count_pending)
		snprintf(count, sizeof count, "%llu", (unsigned long long)r->count);
	snprintf(line, sizeof line, "topic %s: %zu connection%s, %s messages%s", r->topic, r->nconns,
	         r->nconns == 1 ? "" : "s", count, r->shown ? "" : " (hidden)");
	detail_add(d, 0, line);
	for (size_t k = 0; k < r->nconns; k++) {
		size_t bi;
		const struct bag_connection *c = bag_timeline_conn(app->cb.tl, r->conns[k], &bi);
		const char *cid = "";
		for (size_t f = 0; f < c->nfields; f++)
			if (strcmp(c->fields[f].name, "callerid") == 0)
				cid = c->fields[f].value;
		bag_t *bag = bag_timeline_bag(app->cb.tl, bi);
		if (bag_counts_exact(bag))
			snprintf(count, sizeof count, "%llu message%s", (unsigned long long)c->message_count,
			         BAG_S(c->message_count));
		else
			snprintf(count, sizeof count, "? messages");
		snprintf(line, sizeof line, "connection %u: %s%s%s, %s (%s)", c->id, c->type, cid[0] ? " from " : "", cid,
		         count, app_base_name(bag_path(bag)));
		detail_node(d, 0, line);
		for (size_t f = 0; f < c->nfields; f++)
			if (strcmp(c->fields[f].name, "message_definition") != 0) {
				snprintf(line, sizeof line, "%s: %s", c->fields[f].name, c->fields[f].value);
				detail_add(d, 1, line);
			}
	}
}

/* Hex bytes per line that fit the pane (16, 8 or 4): offset, bytes, ASCII and an indent of 3. */
static int hex_width(const struct app *app)
{
	int w = app->panes[PANE_DETAIL].r.w;
	return w >= 81 ? 16 : w >= 48 ? 8 : 4;
}

/* The lines of a readable message from its bytes, in the mode asked. */
static void build_message(struct app *app, struct detail_pane *s, const struct bag_message *msg)
{
	struct detail *d = &s->d;

	if (app->m.detail == DETAIL_HEX || !bag_conn_has_definition(msg->conn)) {
		/* no definition (a bag older than 1.2 without its .msg file): the bytes */
		detail_hex_width(d, app->sel.bytes, app->sel.size, hex_width(app));
		return;
	}
	bag_msgdef_t *def = app_def(app, msg->conn_index);
	if (bag_msgdef_root(def) == NULL)
		detail_note(d, bag_msgdef_error(def)->message);
	else
		detail_decoded(d, def, app->sel.bytes, app->sel.size);
	follow(app, s);
}

/* No message to show: none selected, or the index row cannot be read. */
static void build_empty(struct app *app, struct detail_pane *s)
{
	struct model *m = &app->m;
	uint64_t shown = model_count(m) > 0 ? BUILT_ROW(m->row) : BUILT_ROW(0) + 1;

	if (model_count(m) > 0)
		app_note_bad_index(app, bag_view_error(m->view)->message);
	if (s->built != shown) {
		if (model_count(m) > 0)
			detail_error(s, bag_view_error(m->view)->message, shown);
		else
			detail_note(&s->d, "no message selected");
	}
	s->built = shown;
}

/* Rebuild the lines for the selection when what they show is out of date. */
static void update(struct app *app, struct detail_pane *s)
{
	struct model *m = &app->m;
	struct bag_message msg;

	if (app->sel.fresh) {
		/* fresh bytes for the selection: rebuild from them */
		app->sel.fresh = false;
		detail_clear(&s->d);
		s->built = app->sel.key;
		s->mode = -1;
	}
	if (s->conns_topic >= 0) {
		if (s->built != BUILT_CONNS)
			topic_conns(app, &s->d, (size_t)s->conns_topic);
		s->built = BUILT_CONNS;
		return;
	}
	if (model_count(m) == 0 || model_entry(m, m->row, &msg) != BAG_OK) {
		build_empty(app, s);
		return;
	}
	uint64_t key = work_key(msg.bag_index, msg.chunk, msg.offset);
	if (key == s->built && (int)m->detail == s->mode && s->d.n > 0)
		return;
	if (m->detail == DETAIL_CONN) {
		detail_connection(&s->d, msg.conn, app_def(app, msg.conn_index));
	} else if (key != app->sel.key || app->sel.bytes == NULL) {
		const struct summary *sum = app_summary(app, key);
		if (sum && sum->rc != BAG_OK && sum->rc != BAG_EDECODE && sum->rc != BAG_EDEFINITION) {
			detail_error(s, sum->text, key);
			s->built = key;
			s->mode = (int)m->detail;
			return;
		}
		detail_note(&s->d, sum && sum->rc != BAG_OK ? sum->text : "loading\xE2\x80\xA6");
		return;
	} else {
		build_message(app, s, &msg);
	}
	s->built = key;
	s->mode = (int)m->detail;
}

/* With several bags, " in FILE" of the selected message; else "". */
static const char *file_of(struct app *app, char *buf, size_t cap)
{
	struct bag_message msg;
	struct term_scratch sc = { 0 };
	char label[300];

	buf[0] = '\0';
	if (app->cb.nbags > 1 && model_count(&app->m) > 0 && model_entry(&app->m, app->m.row, &msg) == BAG_OK)
		snprintf(buf, cap, " in %s", term_str(&sc, app_bag_label(app, msg.bag_index, label, sizeof label)));
	term_scratch_free(&sc);
	return buf;
}

/* The reason a picture cannot be drawn, under the title, wrapped at spaces (at most 3 rows): the rows used. */
static int problem_rows(struct app *app, const char *s, struct rect r)
{
	int y = r.y + 1;

	draw_colour_on(app, C_ERROR, 0);
	for (; *s && y < r.y + 4 && r.w > 2; y++) {
		char line[256];
		size_t n = strlen(s), max = (size_t)r.w - 2 < sizeof line - 1 ? (size_t)r.w - 2 : sizeof line - 1;
		if (n > max) {
			n = max;
			while (n > max / 2 && s[n] != ' ')
				n--;
		}
		snprintf(line, sizeof line, " %.*s", (int)n, s);
		draw_put(y, r.x, r.w, line);
		for (s += n; *s == ' '; s++)
			;
	}
	draw_colour_off(app, C_ERROR, 0);
	return y - r.y - 1;
}

static void draw(struct app *app, struct pane *p)
{
	static const char *const modes[] = { "decoded", "hex", "connection" };
	struct detail_pane *s = p->state;
	char rest[512], file[300];

	update(app, s);
	if (s->conns_topic < 0 && media_draw(app, &s->media, p->r))
		return;
	if (s->conns_topic >= 0)
		snprintf(rest, sizeof rest, ": the topic's connections   [Esc] back");
	else
		snprintf(rest, sizeof rest, ": %s%s   [v] mode [H] hex [z] zoom [w] wrap%s", modes[app->m.detail],
		         file_of(app, file, sizeof file), s->wrap ? " (on)" : "");
	/* the text area: the pane's width less the line's lead (textview.c: a space, the fold mark) */
	if (s->error_for == s->built && s->built != BUILT_NONE && s->error_w != p->r.w - 3)
		error_lines(s, p->r.w - 3);
	const char *why = media_problem(app, s->media);
	if (why == NULL || p->r.h < 6) {
		textview_draw(app, p, &s->d, rest, s->wrap);
		return;
	}
	/* a picture that cannot be drawn: the tree, under the reason (wrapped to at most 3 rows) */
	struct rect r = p->r;
	int k = problem_rows(app, why, r);
	p->r.y += k;
	p->r.h -= k;
	textview_draw(app, p, &s->d, rest, s->wrap);   /* its title row is the reason's last: drawn again below */
	p->r = r;
	problem_rows(app, why, r);
	draw_pane_title(app, p, rest);
}

/* Remember the cursor's field and the folded fields, to follow them to the next message. */
static void remember_field(struct app *app, struct detail_pane *s)
{
	struct detail *d = &s->d;
	size_t *idx;

	if (app->m.detail != DETAIL_DECODED || d->n == 0 || d->lines[0].path == NULL ||
	    (idx = malloc((d->n + 1) * sizeof *idx)) == NULL)
		return;
	size_t n = detail_visible(d, idx, d->n);
	if (d->cursor < n && d->lines[idx[d->cursor]].path != NULL)
		snprintf(s->follow_path, sizeof s->follow_path, "%s", d->lines[idx[d->cursor]].path);
	folds_save(s);
	free(idx);
}

/* The selection is another message: follow the field, drop the topic's connections. */
static void moved(struct app *app, struct pane *p)
{
	struct detail_pane *s = p->state;

	remember_field(app, s);
	s->d.cursor = s->d.top = 0;
	s->d.hscroll = 0;
	if (s->conns_topic >= 0) {
		s->conns_topic = -1;
		s->built = s->error_for = BUILT_NONE;
	}
}

static bool key(struct app *app, struct pane *p, enum action a, bool focused)
{
	struct detail_pane *s = p->state;

	if (a == ACTION_WRAP) {
		s->wrap = !s->wrap;
		return true;
	}
	if (a == ACTION_CANCEL && s->conns_topic >= 0) {
		s->conns_topic = -1;
		s->built = s->error_for = BUILT_NONE;
		return true;
	}
	return focused && textview_key(&s->d, a, p->r.h);
}

void detail_pane_show_topic(struct app *app, size_t topic)
{
	struct detail_pane *s = state(app);

	s->conns_topic = (int)topic;
	s->built = s->error_for = BUILT_NONE;
	s->d.cursor = s->d.top = 0;
}

const struct dline *detail_pane_cursor_line(struct app *app)
{
	struct detail *d = &state(app)->d;
	size_t *idx = malloc((d->n + 1) * sizeof *idx), n = idx ? detail_visible(d, idx, d->n) : 0;
	const struct dline *l = idx && d->cursor < n ? &d->lines[idx[d->cursor]] : NULL;

	free(idx);
	return l;
}

static void click(struct app *app, struct pane *p, int row, int col)
{
	struct detail_pane *s = p->state;

	(void)app;
	(void)col;
	textview_click(&s->d, row);
}

static int init(struct app *app, struct pane *p)
{
	struct detail_pane *s = calloc(1, sizeof *s);

	(void)app;
	if ((p->state = s) == NULL)
		return -1;
	s->built = s->error_for = BUILT_NONE;
	s->conns_topic = -1;
	return 0;
}

static void flush(struct app *app, struct pane *p)
{
	struct detail_pane *s = p->state;

	if (s->media != NULL)
		media_flush(app, s->media, p->r.h == 0);
}

static void pane_free(struct app *app, struct pane *p)
{
	struct detail_pane *s = p->state;

	(void)app;
	if (s == NULL)
		return;
	detail_clear(&s->d);
	folds_clear(s);
	media_free(s->media);
}

const struct pane_ops pane_detail = {
	.title = "Detail",
	.help = "the selected message: decoded, hex or its connection; pictures and point clouds drawn",
	.slot = SLOT_SIDE,
	.init = init,
	.draw = draw,
	.key = key,
	.click = click,
	.moved = moved,
	.flush = flush,
	.free = pane_free,
};
