/*
 * view-list.c - the message list: virtual over every row of the view (or
 * the filter's rows), only the rows in sight are looked at. Columns: row,
 * mark, time (fixed width), topic (its distinguishing tail when long),
 * size, then the message paths added as columns and the summary, which
 * scroll sideways (h, l). Navigation is the model's (model_act); a count
 * typed before a move (5j, 100G) is taken here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/draw.h"

struct list_pane {
	int hscroll;                  /* sideways scroll of the summaries, in columns */
};

/* The title: rows shown, or the filter's matches (so far, or partial when it was stopped). */
static void title(struct app *app, struct pane *p, uint64_t count)
{
	const struct model *m = &app->m;
	char partial[64] = "", line[512];

	if (app->find.js.running && app->find.js.kind == JOB_FILTER)
		snprintf(partial, sizeof partial, " so far");
	else if (app->find.stopped >= 0)
		snprintf(partial, sizeof partial, " (partial: stopped at %d%%)", app->find.stopped);
	if (m->filtered)
		snprintf(line, sizeof line, "  %llu of %llu match the filter%s: %s", (unsigned long long)count,
		         (unsigned long long)bag_view_count(m->view), partial, app->find.filter_text);
	else
		snprintf(line, sizeof line, "  %llu shown%s", (unsigned long long)count,
		         m->relative ? "  (times relative to the start)"
		         : m->clock ? (m->local ? "  (times of day, local)" : "  (times of day, UTC)") : "");
	draw_pane_title(app, p, line);
}

/* The widths of the fixed columns, the same for every row of a draw. */
struct list_widths {
	int num, time, file, topic;
	bool header;                  /* a title row: columns, or several bags */
};

#define CELL_MAX 24               /* a column's cells at most, cut with … beyond */
#define FILE_MAX 14

static struct list_widths list_widths(struct app *app, const struct rect *r, uint64_t count, struct term_scratch *sc)
{
	const struct model *m = &app->m;
	struct list_widths lw = { .topic = 8, .header = app->cols.n > 0 || app->cb.nbags > 1 };
	char t[48];

	for (size_t i = 0; i < m->ntopics; i++)
		if (m->topics[i].shown && draw_width(term_str(sc, m->topics[i].topic)) > lw.topic)
			lw.topic = draw_width(term_str(sc, m->topics[i].topic));
	int cap_w = r->w / 4 < 12 ? 12 : r->w / 4;
	lw.topic = lw.topic > cap_w ? cap_w : lw.topic;
	lw.num = snprintf(NULL, 0, "%llu", (unsigned long long)count);
	lw.num = lw.num < 3 ? 3 : lw.num;
	draw_fmt_time(app, m->start_ns, t, sizeof t);
	lw.time = (int)strlen(t);
	for (size_t b = 0; app->cb.nbags > 1 && b < app->cb.nbags; b++) {
		char buf[300];
		int w = draw_width(term_str(sc, app_bag_label(app, b, buf, sizeof buf)));
		lw.file = w > lw.file ? w : lw.file;
	}
	lw.file = lw.file > FILE_MAX ? FILE_MAX : lw.file;
	return lw;
}

/* s cut to w columns (by its end when tail, else its start) and padded to w, right-aligned when right; into t. */
static void put_cell(struct bag_text *t, const char *s, size_t len, int w, bool right, bool tail)
{
	char in[512], cut[520];

	snprintf(in, sizeof in, "%.*s", (int)len, s);
	if (tail) {
		term_cut_tail(in, w, cut, sizeof cut);
	} else if (draw_width(in) > w && w > 0) {
		size_t at = 0;
		for (int n = 0; in[at] != '\0'; at++)   /* the first w - 1 code points */
			if (((unsigned char)in[at] & 0xC0) != 0x80 && n++ == w - 1)
				break;
		snprintf(cut, sizeof cut, "%.*s\xE2\x80\xA6", (int)at, in);
	} else {
		snprintf(cut, sizeof cut, "%s", w > 0 ? in : "");
	}
	int pad = w - draw_width(cut);
	pad = pad > 0 ? pad : 0;
	if (right)
		bag_text_printf(t, "%*s%s ", pad, "", cut);
	else
		bag_text_printf(t, "%s%*s ", cut, pad, "");
}

/* Whether a cell reads as a number (right-aligned): "-1.5", "2 (ERROR)", "-". */
static bool numeric(const char *s, size_t len)
{
	size_t i = len > 0 && (s[0] == '-' || s[0] == '+');
	return len > 0 && (i == len || (s[i] >= '0' && s[i] <= '9'));
}

/* A column's title: "N:name", name the path's last part; "N:tf SOURCE.x" for tf(TARGET,SOURCE).translation.x. */
static void column_title(const struct column *c, int k, char *buf, size_t cap)
{
	const char *dot = strrchr(c->path, '.'), *comma = strchr(c->path, ','), *paren = strchr(c->path, ')');

	if (c->tf && comma != NULL && paren != NULL && paren > comma && dot != NULL && dot > paren)
		snprintf(buf, cap, "%d:tf %.*s.%s", k + 1, (int)(paren - comma - 1 - (int)strspn(comma + 1, " ")),
		         comma + 1 + strspn(comma + 1, " "), dot + 1);
	else
		snprintf(buf, cap, "%d:%s", k + 1, dot ? dot + 1 : c->path);
}

/* A column's width: the widest value seen (cols of the rows drawn), at least its title's (up to 16). */
static int column_width(struct column *c, int k)
{
	char title[160];

	column_title(c, k, title, sizeof title);
	int tw = draw_width(title) < 16 ? draw_width(title) : 16;
	int w = c->width > tw ? c->width : tw;
	return w > CELL_MAX ? CELL_MAX : w;
}

/* The cells of a summary's cols, each cut and padded to its column. */
static void row_cells(struct app *app, const char *cols, struct bag_text *t)
{
	const char *p = cols && cols[0] ? cols + 1 : NULL;   /* after the generation */

	for (int k = 0; k < app->cols.n; k++) {
		size_t len = p ? strcspn(p, COL_SEP) : 0;
		int w = column_width(&app->cols.c[k], k);
		put_cell(t, p ? p : "", len, w, p && numeric(p, len), false);
		p = p && p[len] != '\0' ? p + len + 1 : NULL;
	}
}

/* Widen the columns to the values of the rows in sight. */
static void widen(struct app *app, uint64_t top, int rows, uint64_t count)
{
	struct bag_message msg;

	for (int row = 0; row < rows && top + (uint64_t)row < count; row++) {
		if (model_entry(&app->m, top + (uint64_t)row, &msg) != BAG_OK)
			continue;
		const struct summary *s = app_summary(app, work_key(msg.bag_index, msg.chunk, msg.offset));
		const char *p = s && s->cols[0] ? s->cols + 1 : NULL;   /* after the generation */
		for (int k = 0; k < app->cols.n && p != NULL; k++) {
			size_t len = strcspn(p, COL_SEP);
			char cell[WORK_COLS_MAX];
			snprintf(cell, sizeof cell, "%.*s", (int)len, p);
			int w = draw_width(cell);
			app->cols.c[k].width = w > app->cols.c[k].width ? w : app->cols.c[k].width;
			p = p[len] != '\0' ? p + len + 1 : NULL;
		}
	}
}

/* The title row: the fixed columns' names, each column's title, then "summary". */
static void header_row(struct app *app, const struct list_widths *lw, int y, int x, int w)
{
	struct bag_text t = { 0 };
	char title[160];

	bag_text_printf(&t, "%*s %-*s ", lw->num, "#", lw->time, "time");
	if (lw->file > 0)
		put_cell(&t, "file", 4, lw->file, false, true);
	put_cell(&t, "topic", 5, lw->topic, false, true);
	bag_text_printf(&t, "%6s ", "size");
	for (int k = 0; k < app->cols.n; k++) {
		column_title(&app->cols.c[k], k, title, sizeof title);
		put_cell(&t, title, strlen(title), column_width(&app->cols.c[k], k), false, true);
	}
	bag_text_printf(&t, "summary");
	draw_colour_on(app, C_DIM, A_UNDERLINE);
	draw_put(y, x, w, t.failed ? "" : t.p);
	draw_colour_off(app, C_DIM, A_UNDERLINE);
	bag_text_free(&t);
}

/* A row's fixed part and its columns' cells into t. */
static void row_prefix(struct app *app, const struct list_widths *lw, uint64_t i, const struct bag_message *msg,
                       const struct summary *s, struct term_scratch *sc, struct bag_text *t)
{
	char tm[48], size[16], topic[256];
	bool bad = s != NULL && s->rc != BAG_OK;
	uint64_t key = work_key(msg->bag_index, msg->chunk, msg->offset);

	draw_fmt_time(app, msg->time_ns, tm, sizeof tm);
	if (s != NULL)
		snprintf(size, sizeof size, bad ? "-" : "%u", s->size);
	else
		snprintf(size, sizeof size, "...");
	bag_text_printf(t, "%*llu%s%s ", lw->num, (unsigned long long)i + 1, app_marked(app, key) ? "*" : " ", tm);
	if (lw->file > 0) {
		char buf[300];
		const char *f = term_str(sc, app_bag_label(app, msg->bag_index, buf, sizeof buf));
		put_cell(t, f, strlen(f), lw->file, false, true);
	}
	term_cut_tail(term_str(sc, msg->conn->topic), lw->topic, topic, sizeof topic);
	if (!app->utf8 && strncmp(topic, "\xE2\x80\xA6", 3) == 0)
		memmove(topic, "~", 1), memmove(topic + 1, topic + 3, strlen(topic + 3) + 1);
	put_cell(t, topic, strlen(topic), lw->topic, false, true);
	bag_text_printf(t, "%6s ", size);
	if (app->cols.n > 0)
		row_cells(app, s ? s->cols : NULL, t);
}

/* A row that cannot be read from the index. */
static void index_error_row(struct app *app, int num_w, uint64_t i, int y, const struct rect *r)
{
	char why[600], line[1024];

	detail_problem_first(bag_view_error(app->m.view)->message, why, sizeof why);
	snprintf(line, sizeof line, "%*llu cannot read the index here: %s", num_w, (unsigned long long)i + 1, why);
	draw_colour_on(app, C_ERROR, 0);
	draw_put(y, r->x, r->w, line);
	draw_colour_off(app, C_ERROR, 0);
}

/* Rows [top, top + height) from the index; size, columns and summary once the worker sent them. */
static void draw(struct app *app, struct pane *p)
{
	struct model *m = &app->m;
	struct rect r = p->r;
	const struct list_pane *st = p->state;
	struct term_scratch sc = { 0 };
	uint64_t count = model_count(m);
	struct bag_message msg;
	struct bag_text line = { 0 };

	title(app, p, count);
	app_columns_waiting(app);
	struct list_widths lw = list_widths(app, &r, count, &sc);
	int first = r.y + 1 + lw.header;
	widen(app, m->top, r.y + r.h - first, count);
	if (lw.header)
		header_row(app, &lw, r.y + 1, r.x, r.w);
	for (int y = first; y < r.y + r.h; y++) {
		uint64_t i = m->top + (uint64_t)(y - first);
		if (i >= count) {
			draw_put(y, r.x, r.w, i == 0 ? (m->filtered ? (app->find.js.running ? " (filtering\xE2\x80\xA6)" :
			                                                " (no message matches the filter)")
			                                         : " (no messages shown)") : "");
			continue;
		}
		int erc = model_entry(m, i, &msg);
		if (erc == MODEL_PENDING) {
			char wait[64];
			snprintf(wait, sizeof wait, "%*llu \xE2\x80\xA6 %s", lw.num, (unsigned long long)i + 1,
			         app->fetch_stopped ? "not fetched (Esc stopped it)" : "fetching the index");
			draw_put(y, r.x, r.w, wait);
			app->pending_rows++;
			continue;
		}
		if (erc != BAG_OK) {
			index_error_row(app, lw.num, i, y, &r);
			continue;
		}
		const struct summary *s = app_summary(app, work_key(msg.bag_index, msg.chunk, msg.offset));
		bool bad = s != NULL && s->rc != BAG_OK, sel = i == m->row;
		line.len = 0;
		row_prefix(app, &lw, i, &msg, s, &sc, &line);
		if (sel)
			attron(m->focus == PANE_LIST ? A_REVERSE : A_BOLD);
		if (bad)
			draw_colour_on(app, C_ERROR, 0);
		int fixed = line.failed ? 0 : draw_width(line.p);
		draw_put(y, r.x, fixed < r.w ? fixed : r.w, line.failed ? "" : line.p);
		if (fixed < r.w) {
			char rest[800];
			snprintf(rest, sizeof rest, "%s%s", bad ? "cannot read: " : "", s ? s->text : "");
			draw_put_match(sel ? NULL : app, y, r.x + fixed, r.w - fixed, rest, st->hscroll);
		}
		if (bad)
			draw_colour_off(app, C_ERROR, 0);
		if (sel)
			attroff(m->focus == PANE_LIST ? A_REVERSE : A_BOLD);
	}
	bag_text_free(&line);
	term_scratch_free(&sc);
}

/* A move repeated count times (app->count, taken; 0: once). */
static bool counted_move(struct app *app, enum action a)
{
	struct model *m = &app->m;
	int64_t half = m->list_height > 2 ? m->list_height / 2 : 1;
	uint64_t count = app->count, n = model_count(m);
	int64_t times = count ? (int64_t)count : 1;

	switch (a) {
	case ACTION_UP: model_move(m, -times); break;
	case ACTION_DOWN: model_move(m, times); break;
	case ACTION_HALF_UP: model_move(m, -half * times); break;
	case ACTION_HALF_DOWN: model_move(m, half * times); break;
	case ACTION_BOTTOM:
		if (count == 0)
			return false;
		model_goto(m, count - 1 < n ? count - 1 : (n ? n - 1 : 0));
		break;
	default: return false;
	}
	app->count = 0;
	return true;
}

static bool key(struct app *app, struct pane *p, enum action a, bool focused)
{
	struct list_pane *st = p->state;

	if (!focused)
		return false;
	if (counted_move(app, a))
		return true;
	switch (a) {
	case ACTION_LEFT: case ACTION_RIGHT:
		st->hscroll += a == ACTION_RIGHT ? 8 : -8;
		st->hscroll = st->hscroll < 0 ? 0 : st->hscroll;
		return true;
	case ACTION_ENTER:
		app->m.focus = PANE_DETAIL;
		return true;
	case ACTION_PAGE_UP: case ACTION_PAGE_DOWN: case ACTION_TOP: case ACTION_BOTTOM:
		return model_act(&app->m, a);
	default:
		return false;
	}
}

/* A click selects the row. */
static void click(struct app *app, struct pane *p, int row, int col)
{
	(void)p;
	(void)col;
	int first = 1 + (app->cols.n > 0 || app->cb.nbags > 1);
	if (row >= first)
		model_goto(&app->m, app->m.top + (uint64_t)(row - first));
}

/* A tf() column waits for the transform buffer: redraw often until it binds it. */
static bool busy(const struct app *app, const struct pane *p)
{
	(void)p;
	for (int k = 0; k < app->cols.n; k++)
		if (app->cols.c[k].tf && !app->cols.tf_bound)
			return true;
	return false;
}

static int init(struct app *app, struct pane *p)
{
	(void)app;
	return (p->state = calloc(1, sizeof(struct list_pane))) != NULL ? 0 : -1;
}

const struct pane_ops pane_list = {
	.title = "Messages",
	.help = "every message of the shown topics (or the filter's) in time order",
	.slot = SLOT_MAIN,
	.init = init,
	.draw = draw,
	.key = key,
	.click = click,
	.busy = busy,
};
