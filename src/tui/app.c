/*
 * app.c - the browser's main loop and the glue between panes.
 *
 * The loop polls the terminal and the worker's pipe. Keys become actions
 * (keys.c) that go to the focused pane first, then to the global handler
 * here; mouse events go to the pane under the pointer. Worker results fill
 * the row cache, the detail pane, search progress and the timeline counts.
 * After input or results, one frame is drawn, and the rows the frame lacked
 * are posted to the worker. Nothing on this thread ever decompresses a
 * chunk: the message view only gives index facts here.
 *
 * Terminal state: curses is started after the bags open (errors before that
 * print plainly), and endwin() runs on every way out, including signals
 * (SIGINT/SIGTERM/SIGHUP set a flag the loop sees) and atexit.
 */
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tui/app.h"

static volatile sig_atomic_t got_signal;
static bool curses_on;

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * BAG_NSEC_PER_SEC + ts.tv_nsec;
}

static void on_signal(int sig)
{
	got_signal = sig;
}

static void restore_terminal(void)
{
	if (curses_on) {
		endwin();
		curses_on = false;
	}
}

/* ---- row cache ---------------------------------------------------------- */

static size_t ref_hash(const struct msg_ref *r)
{
	uint64_t h = ((uint64_t)r->bag_index << 48) ^ ((uint64_t)r->chunk << 24) ^ r->offset;
	h *= 0x9e3779b97f4a7c15ULL;
	return (size_t)(h >> 40) & (ROWCACHE_SLOTS - 1);
}

int rowcache_init(struct rowcache *c)
{
	c->slot = calloc(ROWCACHE_SLOTS, sizeof *c->slot);
	c->used = 0;
	return c->slot ? BAG_OK : BAG_ENOMEM;
}

static void rowcache_clear(struct rowcache *c)
{
	for (size_t i = 0; i < ROWCACHE_SLOTS; i++) {
		free(c->slot[i].summary);
		c->slot[i] = (struct row_fact){ 0 };
	}
	c->used = 0;
}

void rowcache_free(struct rowcache *c)
{
	if (c->slot != NULL)
		rowcache_clear(c);
	free(c->slot);
	c->slot = NULL;
}

const struct row_fact *rowcache_get(const struct rowcache *c, const struct msg_ref *ref)
{
	for (size_t i = ref_hash(ref);; i = (i + 1) & (ROWCACHE_SLOTS - 1)) {
		if (!c->slot[i].used)
			return NULL;
		if (msg_ref_eq(&c->slot[i].ref, ref))
			return &c->slot[i];
	}
}

void rowcache_put(struct rowcache *c, const struct msg_ref *ref, uint32_t size, char *summary, bool failed)
{
	size_t i;

	if (c->used >= ROWCACHE_SLOTS * 3 / 4)
		rowcache_clear(c);
	for (i = ref_hash(ref); c->slot[i].used; i = (i + 1) & (ROWCACHE_SLOTS - 1))
		if (msg_ref_eq(&c->slot[i].ref, ref)) {
			free(c->slot[i].summary);
			break;
		}
	if (!c->slot[i].used)
		c->used++;
	c->slot[i] = (struct row_fact){ .ref = *ref, .used = true, .failed = failed, .size = size, .summary = summary };
}

/* ---- small helpers ------------------------------------------------------ */

void app_error(struct app *app, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(app->error, sizeof app->error, fmt, ap);
	va_end(ap);
	app->dirty = true;
}

void app_note(struct app *app, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(app->note, sizeof app->note, fmt, ap);
	va_end(ap);
	app->dirty = true;
}

struct msg_ref app_ref(const struct bag_message *m)
{
	return (struct msg_ref){ .bag_index = (uint32_t)m->bag_index, .chunk = (uint32_t)m->chunk,
	                         .offset = m->offset, .conn_id = m->conn->id,
	                         .conn_index = m->conn_index, .time_ns = m->time_ns };
}

void app_list_want(struct app *app, const struct msg_ref *ref)
{
	if (app->nwant < sizeof app->want / sizeof *app->want)
		app->want[app->nwant++] = *ref;
}

bool app_selected(struct app *app, struct bag_message *m)
{
	struct scroller *sc = &app->pane[PANE_LIST].sc;

	if (app->view == NULL || bag_view_count(app->view) == 0)
		return false;
	if (sc->cursor >= bag_view_count(app->view))
		return false;
	return bag_view_entry(app->view, sc->cursor, m) == BAG_OK;
}

bag_msgdef_t *app_def(struct app *app, size_t i, const char **errmsg)
{
	const struct bag_connection *c;

	*errmsg = NULL;
	if (i >= bag_timeline_conn_count(app->tl))
		return NULL;
	if (app->defs[i] == NULL && app->def_rc[i] == BAG_OK) {
		c = bag_timeline_conn(app->tl, i, NULL);
		app->def_rc[i] = bag_msgdef_parse(&app->defs[i], c->type, c->definition, strlen(c->definition));
	}
	if (app->def_rc[i] != BAG_OK) {
		*errmsg = app->defs[i] ? bag_msgdef_errmsg(app->defs[i]) : bag_strerror(app->def_rc[i]);
		return NULL;
	}
	return app->defs[i];
}

/* ---- selection ---------------------------------------------------------- */

void app_select_row(struct app *app, uint64_t row)
{
	scroller_set_count(&app->pane[PANE_LIST].sc, bag_view_count(app->view));
	scroller_goto(&app->pane[PANE_LIST].sc, row);
	app->dirty = true;
}

void app_select_time(struct app *app, int64_t t)
{
	uint64_t row, count = bag_view_count(app->view);
	int rc = bag_view_seek(app->view, t, &row);

	if (rc != BAG_OK) {
		app_error(app, "%s", bag_view_errmsg(app->view));
		return;
	}
	if (count == 0)
		return;
	if (row >= count) {
		row = count - 1;
		app_note(app, "no shown message at or after that time: at the last one");
	}
	app_select_row(app, row);
}

/* Load the detail for the selection if it changed. */
static void app_sync_detail(struct app *app)
{
	struct bag_message m;
	struct msg_ref ref;

	if (!app_selected(app, &m)) {
		app->detail_valid = app->detail_loaded = false;
		return;
	}
	ref = app_ref(&m);
	if (app->detail_valid && msg_ref_eq(&ref, &app->detail_ref))
		return;
	if (app->detail_mode == DETAIL_CONN && app->detail_valid)
		app->detail_mode = DETAIL_TREE;
	app->detail_ref = ref;
	app->detail_valid = true;
	app->detail_loaded = false;
	free(app->bytes);
	app->bytes = NULL;
	app->nbytes = 0;
	tree_free(&app->tree);
	app->pane[PANE_DETAIL].sc.cursor = app->pane[PANE_DETAIL].sc.top = 0;
	app->pane[PANE_DETAIL].hscroll = 0;
	if (app->worker_ready)
		worker_want_detail(app->worker, &ref);
}

static void app_apply_detail(struct app *app, struct result *r)
{
	const char *errmsg;
	bag_msgdef_t *def;

	if (!app->detail_valid || !msg_ref_eq(&r->ref, &app->detail_ref))
		return;
	if (r->failed) {
		app_error(app, "%s", r->text ? r->text : "read failed");
		return;
	}
	app->bytes = r->bytes;
	app->nbytes = r->size;
	r->bytes = NULL;
	app->detail_loaded = true;
	app->detail_err[0] = '\0';
	def = app_def(app, r->ref.conn_index, &errmsg);
	if (def == NULL)
		snprintf(app->detail_err, sizeof app->detail_err, "definition: %s", errmsg ? errmsg : "?");
	else if (tree_build(&app->tree, def, app->bytes, app->nbytes, app->detail_err,
	                    sizeof app->detail_err) == BAG_OK)
		app->detail_err[0] = '\0';
	else if (app->detail_err[0] == '\0')
		snprintf(app->detail_err, sizeof app->detail_err, "out of memory");
	app->dirty = true;
}

void app_show_conn(struct app *app, size_t k)
{
	struct bag_text t = { 0 };
	struct topic_row *r;

	if (k >= app->topics.n)
		return;
	r = &app->topics.rows[k];
	textlines_free(&app->conninfo);
	for (size_t j = 0; j < r->nconns; j++) {
		size_t bi;
		const struct bag_connection *c = bag_timeline_conn(app->tl, r->conns[j], &bi);
		const char *errmsg;
		bag_msgdef_t *def = app_def(app, r->conns[j], &errmsg);

		bag_text_printf(&t, "Connection %u of %s (%llu messages)\n", c->id, bag_path(app->bags[bi]),
		                (unsigned long long)c->message_count);
		for (size_t f = 0; f < c->nfields; f++) {
			if (strcmp(c->fields[f].name, "message_definition") == 0)
				continue;
			bag_text_printf(&t, "  %-12s ", c->fields[f].name);
			for (size_t b = 0; b < c->fields[f].value_len; b++) {
				char ch = c->fields[f].value[b];
				bag_text_append(&t, ch == '\n' ? " " : &ch, 1);
			}
			bag_text_append(&t, "\n", 1);
		}
		if (def != NULL && strcmp(bag_msgdef_root(def)->md5, c->md5sum) != 0)
			bag_text_printf(&t, "  warning: the definition's md5 is %s\n", bag_msgdef_root(def)->md5);
		bag_text_printf(&t, "\nDefinition tree\n");
		if (def != NULL)
			bag_print_msgdef_tree(&t, def, 2);
		else
			bag_text_printf(&t, "  (does not parse: %s)\n", errmsg ? errmsg : "?");
		bag_text_printf(&t, "\nDefinition text\n");
		for (const char *s = c->definition; *s;) {
			const char *e = strchr(s, '\n');
			size_t n = e ? (size_t)(e - s) : strlen(s);
			bag_text_append(&t, "  ", 2);
			bag_text_append(&t, s, n);
			bag_text_append(&t, "\n", 1);
			s += n + (e != NULL);
		}
		bag_text_append(&t, "\n", 1);
	}
	if (textlines_take(&app->conninfo, &t) != BAG_OK) {
		app_error(app, "out of memory");
		bag_text_free(&t);
		return;
	}
	app->conninfo_valid = true;
	app->conn_topic = k;
	app->detail_mode = DETAIL_CONN;
	scroller_init(&app->pane[PANE_DETAIL].sc, app->conninfo.n, app->pane[PANE_DETAIL].sc.height);
	app->pane[PANE_DETAIL].hscroll = 0;
	app->dirty = true;
}

void app_refilter(struct app *app)
{
	struct bag_message m;
	struct bag_query q;
	bag_view_t *v = NULL;
	struct scroller *sc = &app->pane[PANE_LIST].sc;
	bool had = app_selected(app, &m);
	uint64_t screen_y = sc->cursor - sc->top, row;

	topics_mask(&app->topics, app->mask);
	bag_query_init(&q);
	q.conn_mask = app->mask;
	if (bag_view_open(&v, app->tl, &q) != BAG_OK) {
		app_error(app, "%s", bag_view_errmsg(v));
		bag_view_free(v);
		return;
	}
	bag_view_free(app->view);
	app->view = v;
	scroller_set_count(sc, bag_view_count(v));
	if (had && bag_view_count(v) > 0 && bag_view_seek(v, m.time_ns, &row) == BAG_OK) {
		if (row >= bag_view_count(v))
			row = bag_view_count(v) - 1;
		sc->cursor = row;
		sc->top = row >= screen_y ? row - screen_y : 0;
		scroller_set_count(sc, bag_view_count(v));
	}
	if (app->searching) {
		worker_search_cancel(app->worker);
		app->searching = false;
	}
	app->dirty = true;
}

/* Next or previous message on the selected message's topic. */
static void app_step_topic(struct app *app, int dir)
{
	struct bag_message m, e;
	struct msg_ref cur;
	struct bag_query q;
	bag_view_t *tv = NULL;
	bool *mask = NULL;
	uint64_t row, n;
	size_t k;

	if (!app_selected(app, &m))
		return;
	cur = app_ref(&m);
	k = topics_find_conn(&app->topics, m.conn_index);
	mask = calloc(app->topics.nconns + 1, sizeof *mask);
	if (mask == NULL || k >= app->topics.n)
		goto done;
	for (size_t j = 0; j < app->topics.rows[k].nconns; j++)
		mask[app->topics.rows[k].conns[j]] = true;
	bag_query_init(&q);
	q.conn_mask = mask;
	if (bag_view_open(&tv, app->tl, &q) != BAG_OK || bag_view_seek(tv, m.time_ns, &row) != BAG_OK)
		goto done;
	n = bag_view_count(tv);
	/* find the current message among the ties at its time */
	while (row < n && bag_view_entry(tv, row, &e) == BAG_OK && e.time_ns == m.time_ns) {
		struct msg_ref r = app_ref(&e);
		if (msg_ref_eq(&r, &cur))
			break;
		row++;
	}
	if (dir > 0 ? row + 1 >= n : row == 0) {
		app_note(app, "no %s message on %s", dir > 0 ? "later" : "earlier", m.conn->topic);
		goto done;
	}
	row = dir > 0 ? row + 1 : row - 1;
	if (bag_view_entry(tv, row, &e) != BAG_OK)
		goto done;
	cur = app_ref(&e);
	/* and find that one in the list */
	if (bag_view_seek(app->view, e.time_ns, &row) != BAG_OK)
		goto done;
	for (uint64_t i = 0; i < 100000 && row < bag_view_count(app->view); i++, row++) {
		struct msg_ref r;
		if (bag_view_entry(app->view, row, &m) != BAG_OK)
			break;
		r = app_ref(&m);
		if (msg_ref_eq(&r, &cur)) {
			app_select_row(app, row);
			break;
		}
	}
done:
	bag_view_free(tv);
	free(mask);
}

void app_search(struct app *app, int dir)
{
	struct scroller *sc = &app->pane[PANE_LIST].sc;
	uint64_t from;

	if (app->pattern[0] == '\0') {
		app_note(app, "no search yet: press /");
		return;
	}
	if (!app->worker_ready || bag_view_count(app->view) == 0)
		return;
	if (dir < 0 && sc->cursor == 0) {
		app_note(app, "/%s: no earlier match", app->pattern);
		return;
	}
	from = dir > 0 ? sc->cursor + 1 : sc->cursor - 1;
	app->search_gen++;
	app->search_dir = dir;
	app->searching = true;
	app->search_done = 0;
	app->search_total = dir > 0 ? bag_view_count(app->view) - from : from + 1;
	worker_search(app->worker, app->mask, app->topics.nconns, app->pattern, from, dir, app->search_gen);
	app->dirty = true;
}

/* ---- layout and density ------------------------------------------------- */

static void app_request_density(struct app *app)
{
	int cols = timeline_cols_for(&app->pane[PANE_TIMELINE]);
	size_t nt = app->topics.n, nc = app->topics.nconns;
	bool *masks;

	if (!app->worker_ready || cols <= 0 || nt == 0 || app->pane[PANE_TIMELINE].rect.h == 0)
		return;
	if (app->density != NULL && app->density_cols == cols)
		return;
	if (app->density_pending && app->density_cols == cols)
		return;
	masks = calloc(nt * nc + 1, sizeof *masks);
	if (masks == NULL)
		return;
	for (size_t k = 0; k < nt; k++)
		for (size_t j = 0; j < app->topics.rows[k].nconns; j++)
			masks[app->topics.rows[k].color * nc + app->topics.rows[k].conns[j]] = true;
	app->density_gen++;
	app->density_pending = true;
	app->density_cols = cols;
	free(app->density);
	app->density = NULL;
	worker_density(app->worker, masks, nt, nc, cols, app->start_ns, app->end_ns, app->density_gen);
	free(masks);
}

static void app_relayout(struct app *app)
{
	size_t ntl = topics_shown(&app->topics, NULL);

	getmaxyx(stdscr, app->height, app->width);
	layout_compute(&app->layout, app->width, app->height, app->topics.n, ntl ? ntl : 1);
	for (int i = 0; i < PANE_COUNT; i++) {
		app->pane[i].rect = app->layout.pane[i];
		scroller_set_height(&app->pane[i].sc, app->pane[i].rect.h > 1 ? app->pane[i].rect.h - 1 : 1);
	}
	app_request_density(app);
	app->dirty = true;
}

/* ---- results ------------------------------------------------------------ */

static void app_results(struct app *app)
{
	struct result r;

	while (worker_take(app->worker, &r)) {
		switch (r.kind) {
		case RES_ROW:
			rowcache_put(&app->cache, &r.ref, r.size, r.text, r.failed);
			r.text = NULL;
			break;
		case RES_DETAIL:
			app_apply_detail(app, &r);
			break;
		case RES_SEARCH_STEP:
			if (r.gen == app->search_gen && app->searching) {
				app->search_done = r.done;
				app->search_total = r.total;
			}
			break;
		case RES_SEARCH_DONE:
			if (r.gen != app->search_gen || !app->searching)
				break;
			app->searching = false;
			if (r.failed)
				app_error(app, "search: %s", r.text ? r.text : "failed");
			else if (r.found) {
				app_select_row(app, r.row);
				app_note(app, "/%s: row %llu", app->pattern, (unsigned long long)r.row + 1);
			} else
				app_note(app, "/%s: no %s match", app->pattern, app->search_dir > 0 ? "later" : "earlier");
			break;
		case RES_DENSITY:
			if (r.gen == app->density_gen) {
				free(app->density);
				app->density = r.counts;
				app->density_cols = r.cols;
				app->density_pending = false;
				r.counts = NULL;
			}
			break;
		case RES_READY:
			app->worker_ready = true;
			app->detail_valid = false;   /* re-request */
			app_request_density(app);
			break;
		case RES_FAILED:
			app_error(app, "reader thread: %s", r.text ? r.text : "failed");
			break;
		}
		result_free(&r);
		app->dirty = true;
	}
}

/* ---- input -------------------------------------------------------------- */

static void app_prompt_key(struct app *app, int ch)
{
	struct bag_message m;

	if (ch == 27 || ch == CTRL('g') || ch == CTRL('c')) {
		app->prompt = PROMPT_NONE;
	} else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		enum prompt_kind k = app->prompt;
		app->prompt = PROMPT_NONE;
		if (app->input_len == 0)
			goto done;
		if (k == PROMPT_SEARCH) {
			snprintf(app->pattern, sizeof app->pattern, "%s", app->input);
			app_search(app, 1);
		} else {
			struct jump j;
			struct jump_ctx ctx = { app->start_ns, app->end_ns, app->start_ns };
			if (app_selected(app, &m))
				ctx.current_ns = m.time_ns;
			if (jump_parse(app->input, &ctx, &j) != 0)
				app_error(app, "cannot read '%s' as a time: try 1600000012.5, 2020-09-13 12:26:52, +12.5, 1m30s, -200ms, 50%% or #123",
				          app->input);
			else if (j.kind == JUMP_ROW)
				app_select_row(app, j.row);
			else
				app_select_time(app, j.time_ns);
		}
	} else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		/* drop one UTF-8 character */
		while (app->input_len > 0 && ((unsigned char)app->input[--app->input_len] & 0xc0) == 0x80)
			;
		app->input[app->input_len] = '\0';
	} else if (ch == CTRL('u')) {
		app->input_len = 0;
		app->input[0] = '\0';
	} else if (ch >= 0x20 && ch < 0x100 && ch != 0x7f && app->input_len + 1 < sizeof app->input) {
		app->input[app->input_len++] = (char)ch;
		app->input[app->input_len] = '\0';
	}
done:
	app->dirty = true;
}

static void app_open_prompt(struct app *app, enum prompt_kind k)
{
	app->prompt = k;
	app->input_len = 0;
	app->input[0] = '\0';
	app->dirty = true;
}

/* Actions no pane took. */
static void app_global(struct app *app, enum action a)
{
	struct bag_message m;

	switch (a) {
	case ACT_QUIT: app->quit = true; break;
	case ACT_HELP: app->help = true; app->help_top = 0; break;
	case ACT_NEXT_PANE: app->focus = (app->focus + 1) % PANE_COUNT; break;
	case ACT_PREV_PANE: app->focus = (app->focus + PANE_COUNT - 1) % PANE_COUNT; break;
	case ACT_TIME_MODE: app->time_relative = !app->time_relative; break;
	case ACT_HEX:
		app->detail_mode = app->detail_mode == DETAIL_TREE ? DETAIL_HEX : DETAIL_TREE;
		app->pane[PANE_DETAIL].sc.cursor = app->pane[PANE_DETAIL].sc.top = 0;
		app->pane[PANE_DETAIL].hscroll = 0;
		break;
	case ACT_CONN_INFO:
		if (app->detail_mode == DETAIL_CONN) {
			app->detail_mode = DETAIL_TREE;
			app->pane[PANE_DETAIL].sc.cursor = app->pane[PANE_DETAIL].sc.top = 0;
		} else if (app_selected(app, &m)) {
			app_show_conn(app, topics_find_conn(&app->topics, m.conn_index));
		} else if (app->topics.n > 0) {
			app_show_conn(app, app->pane[PANE_CONNS].sc.cursor);
		}
		break;
	case ACT_EXPAND_ALL: {
		bool any_closed = false;
		for (size_t i = 0; i < app->tree.n; i++)
			if (tree_has_children(&app->tree, i) && !app->tree.nodes[i].expanded)
				any_closed = true;
		tree_set_all(&app->tree, any_closed);
		break;
	}
	case ACT_TOGGLE:
	case ACT_SOLO:
		/* from the list: act on the selected message's topic */
		if (app_selected(app, &m)) {
			size_t k = topics_find_conn(&app->topics, m.conn_index);
			scroller_goto(&app->pane[PANE_CONNS].sc, k);
			app->pane[PANE_CONNS].ops->action(app, &app->pane[PANE_CONNS], a);
		}
		break;
	case ACT_SORT:
		app->pane[PANE_CONNS].ops->action(app, &app->pane[PANE_CONNS], a);
		break;
	case ACT_JUMP: app_open_prompt(app, PROMPT_JUMP); break;
	case ACT_SEARCH: app_open_prompt(app, PROMPT_SEARCH); break;
	case ACT_SEARCH_NEXT: app_search(app, 1); break;
	case ACT_SEARCH_PREV: app_search(app, -1); break;
	case ACT_NEXT_TOPIC: app_step_topic(app, 1); break;
	case ACT_PREV_TOPIC: app_step_topic(app, -1); break;
	case ACT_FWD_1S: case ACT_BACK_1S: case ACT_FWD_10S: case ACT_BACK_10S: {
		int64_t d = (a == ACT_FWD_10S || a == ACT_BACK_10S) ? 10 * BAG_NSEC_PER_SEC : BAG_NSEC_PER_SEC;
		if (app_selected(app, &m))
			app_select_time(app, m.time_ns + (a == ACT_FWD_1S || a == ACT_FWD_10S ? d : -d));
		break;
	}
	case ACT_CANCEL:
		if (app->searching) {
			worker_search_cancel(app->worker);
			app->searching = false;
			app_note(app, "search cancelled");
		}
		break;
	case ACT_REDRAW: clearok(curscr, TRUE); break;
	case ACT_UP: case ACT_DOWN: case ACT_PAGE_UP: case ACT_PAGE_DOWN: case ACT_HOME: case ACT_END:
		/* the timeline pane has no rows: move the list */
		app->pane[PANE_LIST].ops->action(app, &app->pane[PANE_LIST], a);
		break;
	default: break;
	}
}

/* Run one action: focused pane first, then the app. */
void app_action(struct app *app, enum action a)
{
	struct pane *p = &app->pane[app->focus];

	app->error[0] = '\0';
	app->note[0] = a == ACT_CANCEL ? app->note[0] : '\0';
	if (p->ops->action == NULL || !p->ops->action(app, p, a))
		app_global(app, a);
	app->dirty = true;
}

static void app_mouse(struct app *app)
{
	MEVENT ev;

	if (getmouse(&ev) != OK || app->layout.too_small)
		return;
	for (int i = 0; i < PANE_COUNT; i++) {
		struct pane *p = &app->pane[i];
		struct rect r = p->rect;
		if (r.h == 0 || ev.y < r.y || ev.y >= r.y + r.h || ev.x < r.x || ev.x >= r.x + r.w)
			continue;
		if (ev.bstate & BUTTON4_PRESSED) {
			if (p->ops->wheel)
				p->ops->wheel(app, p, -3);
		} else if (ev.bstate & (BUTTON5_PRESSED)) {
			if (p->ops->wheel)
				p->ops->wheel(app, p, 3);
		} else if (ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON1_RELEASED)) {
			app->focus = (enum pane_id)i;
			if (ev.y > r.y && p->ops->click)
				p->ops->click(app, p, ev.y - r.y - 1, ev.x - r.x);
		}
		app->dirty = true;
		return;
	}
}

/* Returns the action name handled (for the trace), or NULL. */
static const char *app_key(struct app *app, int ch)
{
	enum action a;
	size_t n;

	if (ch == KEY_RESIZE) {
		app_relayout(app);
		return "RESIZE";
	}
	if (ch == KEY_MOUSE) {
		app_mouse(app);
		return "MOUSE";
	}
	if (app->prompt != PROMPT_NONE) {
		app_prompt_key(app, ch);
		return "PROMPT";
	}
	a = keys_action(ch);
	if (app->help) {
		if (a == ACT_DOWN || a == ACT_PAGE_DOWN)
			app->help_top += a == ACT_DOWN ? 1 : 10;
		else if (a == ACT_UP || a == ACT_PAGE_UP)
			app->help_top = app->help_top > (a == ACT_UP ? 1 : 10) ? app->help_top - (a == ACT_UP ? 1 : 10) : 0;
		else
			app->help = false;
		app->dirty = true;
		return "HELP";
	}
	if (a == ACT_NONE)
		return NULL;
	app_action(app, a);
	return keys_table(&n)[a - 1].name;
}

/* ---- frames ------------------------------------------------------------- */

/* Post the rows the frame lacked, and the pages around it for prefetch. */
static void app_post_wants(struct app *app)
{
	struct msg_ref pre[256];
	size_t npre = 0;
	struct scroller *sc = &app->pane[PANE_LIST].sc;
	uint64_t h = (uint64_t)sc->height, count = bag_view_count(app->view);
	struct bag_message m;

	if (!app->worker_ready)
		return;
	/* a page below, then a page above */
	for (int pass = 0; pass < 2; pass++) {
		uint64_t from = pass == 0 ? sc->top + h : (sc->top > h ? sc->top - h : 0);
		uint64_t to = pass == 0 ? sc->top + 2 * h : sc->top;
		for (uint64_t row = from; row < to && row < count && npre < sizeof pre / sizeof *pre; row++) {
			struct msg_ref r;
			if (bag_view_entry(app->view, row, &m) != BAG_OK)
				break;
			r = app_ref(&m);
			if (rowcache_get(&app->cache, &r) == NULL)
				pre[npre++] = r;
		}
	}
	worker_want_rows(app->worker, app->want, app->nwant, pre, npre);
}

static void app_render(struct app *app)
{
	app_sync_detail(app);
	app->nwant = 0;
	draw_screen(app);
	refresh();
	app_post_wants(app);
	app->dirty = false;
	if (app->trace != NULL && !app->layout.too_small) {
		if (!app->traced_first) {
			fprintf(app->trace, "first-screen %.3f ms\n", (double)(mono_ns() - app->t_start) / 1e6);
			app->traced_first = true;
		}
		if (!app->traced_full && app->list_missing == 0 && app->detail_loaded &&
		    (app->density != NULL || app->topics.n == 0)) {
			fprintf(app->trace, "full-screen %.3f ms\n", (double)(mono_ns() - app->t_start) / 1e6);
			app->traced_full = true;
		}
	}
}

static void app_loop(struct app *app)
{
	struct pollfd pfd[2];
	const char *name;
	int ch;

	pfd[0] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = worker_fd(app->worker), .events = POLLIN };
	while (!app->quit && !got_signal) {
		int64_t t_key = 0;
		const char *last = NULL;

		if (app->dirty)
			app_render(app);
		int timeout = app->searching || !app->worker_ready || worker_busy(app->worker) ? 100 : -1;
		if (poll(pfd, 2, timeout) < 0 && errno != EINTR)
			break;
		app_results(app);
		while ((ch = getch()) != ERR) {
			if (t_key == 0)
				t_key = mono_ns();
			if ((name = app_key(app, ch)) != NULL)
				last = name;
			if (app->quit)
				break;
		}
		if (timeout > 0)
			app->dirty = true;   /* status line: loading / progress */
		if (last != NULL && app->dirty && !app->quit) {
			app_render(app);
			if (app->trace != NULL)
				fprintf(app->trace, "key %s %.3f ms\n", last, (double)(mono_ns() - t_key) / 1e6);
		}
	}
}

/* ---- start and stop ----------------------------------------------------- */

static int app_open(struct app *app, char **paths, size_t n)
{
	struct bag_query q;
	int rc;

	app->paths = paths;
	app->bags = calloc(n, sizeof *app->bags);
	if (app->bags == NULL)
		return BAG_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		rc = bag_open(&app->bags[i], paths[i], NULL);
		app->nbags++;
		if (rc != BAG_OK) {
			fprintf(stderr, "bagscope: %s\n", app->bags[i] ? bag_errmsg(app->bags[i]) : bag_strerror(rc));
			return rc;
		}
	}
	if ((rc = bag_timeline_open(&app->tl, app->bags, n)) != BAG_OK) {
		fprintf(stderr, "bagscope: %s\n", bag_timeline_errmsg(app->tl));
		return rc;
	}
	app->start_ns = bag_timeline_start(app->tl);
	app->end_ns = bag_timeline_end(app->tl);
	if ((rc = topics_build(&app->topics, app->tl)) != BAG_OK)
		return rc;
	app->mask = calloc(app->topics.nconns + 1, sizeof *app->mask);
	app->defs = calloc(app->topics.nconns + 1, sizeof *app->defs);
	app->def_rc = calloc(app->topics.nconns + 1, sizeof *app->def_rc);
	if (app->mask == NULL || app->defs == NULL || app->def_rc == NULL)
		return BAG_ENOMEM;
	topics_mask(&app->topics, app->mask);
	bag_query_init(&q);
	q.conn_mask = app->mask;
	if ((rc = bag_view_open(&app->view, app->tl, &q)) != BAG_OK) {
		fprintf(stderr, "bagscope: %s\n", bag_view_errmsg(app->view));
		return rc;
	}
	if ((rc = rowcache_init(&app->cache)) != BAG_OK)
		return rc;
	if ((rc = worker_start(&app->worker, paths, n)) != BAG_OK) {
		fprintf(stderr, "bagscope: cannot start the reader thread\n");
		return rc;
	}
	return BAG_OK;
}

static void app_close(struct app *app)
{
	worker_stop(app->worker);
	rowcache_free(&app->cache);
	tree_free(&app->tree);
	textlines_free(&app->conninfo);
	free(app->bytes);
	free(app->density);
	for (size_t i = 0; app->defs != NULL && i < app->topics.nconns; i++)
		bag_msgdef_free(app->defs[i]);
	free(app->defs);
	free(app->def_rc);
	free(app->mask);
	bag_view_free(app->view);
	topics_free(&app->topics);
	bag_timeline_free(app->tl);
	for (size_t i = 0; i < app->nbags; i++)
		bag_close(app->bags[i]);
	free(app->bags);
	if (app->trace != NULL)
		fclose(app->trace);
}

static void app_curses_init(struct app *app)
{
	struct sigaction sa = { 0 };

	if (getenv("ESCDELAY") == NULL)
		set_escdelay(25);
	initscr();
	curses_on = true;
	atexit(restore_terminal);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	mouseinterval(0);
	draw_init_colors(app);
	app->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int tui_main(char **paths, size_t n)
{
	struct app *app = calloc(1, sizeof *app);
	static const struct pane_ops *const ops[PANE_COUNT] = {
		[PANE_CONNS] = &view_conns_ops,
		[PANE_LIST] = &view_list_ops,
		[PANE_DETAIL] = &view_detail_ops,
		[PANE_TIMELINE] = &view_timeline_ops,
	};
	const char *trace = getenv("BAGSCOPE_TRACE");
	int status = 1;

	if (app == NULL)
		return 1;
	app->t_start = mono_ns();
	if (trace != NULL && trace[0] != '\0') {
		app->trace = fopen(trace, "w");
		if (app->trace != NULL)
			setvbuf(app->trace, NULL, _IOLBF, 0);
	}
	for (int i = 0; i < PANE_COUNT; i++) {
		app->pane[i].id = (enum pane_id)i;
		app->pane[i].ops = ops[i];
		scroller_init(&app->pane[i].sc, 0, 1);
	}
	app->focus = PANE_LIST;
	if (app_open(app, paths, n) != BAG_OK)
		goto done;
	app_curses_init(app);
	app_relayout(app);
	app_loop(app);
	restore_terminal();
	status = got_signal ? 128 + got_signal : 0;
done:
	restore_terminal();
	app_close(app);
	free(app);
	return status;
}
