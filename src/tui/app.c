/*
 * app.c - the browser's loop: poll the keyboard and the worker's pipe, turn
 * keys into actions, keep the summary cache and the detail pane up to date,
 * run a search in bounded steps, and redraw.
 *
 * The main thread never decompresses a chunk for drawing: rows come from the
 * index, and sizes, summaries and the selected message's bytes come from the
 * worker. Only an explicit search reads chunks here, a slice per loop turn.
 */
#define _XOPEN_SOURCE_EXTENDED
#define _GNU_SOURCE
#include <curses.h>
#include <stdarg.h>
#include <stddef.h>
#include <locale.h>
#include <langinfo.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tui/app.h"
#include "tui/keys.h"

#define KEY_FLAG (1ULL << 63)
#define COUNT_MAX 100000000ULL

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static struct summary *cache_slot(struct app *app, uint64_t key)
{
	uint64_t k = key | KEY_FLAG;
	size_t i = (size_t)((k * 0x9E3779B97F4A7C15ULL) >> 40) % CACHE_SLOTS;

	while (app->cache[i].key != 0 && app->cache[i].key != k)
		i = (i + 1) % CACHE_SLOTS;
	return &app->cache[i];
}

const struct summary *app_summary(struct app *app, uint64_t key)
{
	struct summary *s = cache_slot(app, key);
	return s->key != 0 ? s : NULL;
}

static void cache_put(struct app *app, const struct work_result *r)
{
	if (app->cache_used > CACHE_SLOTS * 3 / 4) {
		memset(app->cache, 0, CACHE_SLOTS * sizeof *app->cache);
		app->cache_used = 0;
	}
	struct summary *s = cache_slot(app, r->key);
	if (s->key == 0)
		app->cache_used++;
	s->key = r->key | KEY_FLAG;
	s->size = r->size;
	s->rc = r->rc;
	snprintf(s->text, sizeof s->text, "%s", r->summary);
	snprintf(s->cols, sizeof s->cols, "%s", r->cols);
}

bag_msgdef_t *app_def(struct app *app, size_t i)
{
	if (app->defs[i] == NULL) {
		const struct bag_connection *c = bag_timeline_conn(app->tl, i, NULL);
		bag_conn_msgdef_parse(&app->defs[i], c);
	}
	return app->defs[i];
}

static uint64_t selected_key(struct app *app)
{
	struct bag_message msg;

	if (model_entry(&app->m, app->m.row, &msg) == BAG_OK)
		return work_key(msg.bag_index, msg.chunk, msg.offset);
	return UINT64_MAX;
}

static int prompt_slot(int kind);
static void note_bad_index(struct app *app, const char *msg);

/* Ask the worker for what is in sight: the selection's bytes, the visible rows, then neighbours. */
static void request_visible(struct app *app)
{
	struct model *m = &app->m;
	uint64_t count = model_count(m), h = (uint64_t)(m->list_height > 0 ? m->list_height : 1);
	struct work_item items[1024];
	size_t n = 0;
	struct bag_message msg;

	if (count == 0)
		return;
	if (model_entry(m, m->row, &msg) == BAG_OK) {
		uint64_t key = work_key(msg.bag_index, msg.chunk, msg.offset);
		if (key != app->detail_key || app->detail_bytes == NULL)
			items[n++] = (struct work_item){ key, msg.bag_index, msg.chunk, msg.offset, msg.conn->id,
			                                 msg.time_ns, true };
	}
	uint64_t lo = m->top > h ? m->top - h : 0, hi = m->top + 2 * h;
	for (int pass = 0; pass < 2; pass++) {
		uint64_t a = pass == 0 ? m->top : lo, b = pass == 0 ? m->top + h : hi;
		for (uint64_t r = a; r < b && r < count && n < sizeof items / sizeof *items; r++) {
			if (pass == 1 && r >= m->top && r < m->top + h)
				continue;
			if (model_entry(m, r, &msg) != BAG_OK)
				break;
			uint64_t key = work_key(msg.bag_index, msg.chunk, msg.offset);
			if (app_summary(app, key) == NULL)
				items[n++] = (struct work_item){ key, msg.bag_index, msg.chunk, msg.offset, msg.conn->id,
				                                 msg.time_ns, false };
		}
	}
	worker_request(app->worker, items, n);
}

/* The detail for a message that cannot be read: the whole error, problem first. */
static void detail_error(struct detail *d, const char *msg)
{
	char first[600];

	detail_problem_first(msg, first, sizeof first);
	detail_note(d, "cannot read this message:");
	detail_add(d, 1, first);
	detail_add(d, 1, "");
	detail_add(d, 1, "as the library said it:");
	detail_add(d, 1, msg);
	detail_add(d, 1, "(L shows the log; bagscope check names every damaged chunk)");
}

bool app_folded(const struct app *app, const char *path)
{
	for (size_t i = 0; i < app->nfolds; i++)
		if (strcmp(app->folds[i], path) == 0)
			return true;
	return false;
}

void app_folds_clear(struct app *app)
{
	for (size_t i = 0; i < app->nfolds; i++)
		free(app->folds[i]);
	free(app->folds);
	app->folds = NULL;
	app->nfolds = 0;
}

/* The folded nodes of the detail, by path, to fold them again in the next message. */
void app_folds_save(struct app *app)
{
	struct detail *d = &app->detail;
	size_t n = 0;

	app_folds_clear(app);
	for (size_t i = 0; i < d->n; i++)
		n += d->lines[i].collapsed && d->lines[i].path != NULL;
	if (n == 0 || (app->folds = calloc(n, sizeof *app->folds)) == NULL)
		return;
	for (size_t i = 0; i < d->n; i++)
		if (d->lines[i].collapsed && d->lines[i].path != NULL &&
		    (app->folds[app->nfolds] = strdup(d->lines[i].path)) != NULL)
			app->nfolds++;
}

int app_hex_width(const struct app *app)
{
	int w = app->zoom ? COLS : app->panes[PANE_DETAIL].w;

	/* offset, bytes, ASCII and the pane's indent of 3 */
	return w >= 81 ? 16 : w >= 48 ? 8 : 4;
}

/* Fold the nodes folded before and put the cursor on the field it was on. */
static void follow_field(struct app *app)
{
	struct detail *d = &app->detail;
	size_t *idx;

	for (size_t i = 0; i < d->n; i++)
		if (d->lines[i].path != NULL && d->lines[i].node && app_folded(app, d->lines[i].path))
			d->lines[i].collapsed = true;
	if (app->follow_path[0] == '\0' || (idx = malloc((d->n + 1) * sizeof *idx)) == NULL)
		return;
	size_t n = detail_visible(d, idx, d->n);
	for (size_t v = 0; v < n; v++)
		if (d->lines[idx[v]].path != NULL && strcmp(d->lines[idx[v]].path, app->follow_path) == 0) {
			d->cursor = v;
			break;
		}
	free(idx);
}

/* The first detail line showing the search: the cursor goes there. */
static void scroll_to_match(struct app *app)
{
	struct detail *d = &app->detail;
	size_t *idx = malloc((d->n + 1) * sizeof *idx), a, b;

	app->detail_to_match = false;
	if (idx == NULL || !app->hl_on)
		goto done;
	size_t n = detail_visible(d, idx, d->n);
	for (size_t v = 0; v < n; v++)
		if (match_find(&app->hl, d->lines[idx[v]].text, strlen(d->lines[idx[v]].text), &a, &b)) {
			d->cursor = v;
			d->top = v > 2 ? v - 2 : 0;
			break;
		}
done:
	free(idx);
}

/* Every connection of topic t, shown or not: the detail's "connections" view. */
static void detail_topic_conns(struct app *app, size_t t)
{
	const struct topic_row *r = &app->m.topics[t];
	struct detail *d = &app->detail;
	char line[512];

	detail_clear(d);
	snprintf(line, sizeof line, "topic %s: %zu connection%s, %llu messages%s", r->topic, r->nconns,
	         r->nconns == 1 ? "" : "s", (unsigned long long)r->count, r->shown ? "" : " (hidden)");
	detail_add(d, 0, line);
	for (size_t k = 0; k < r->nconns; k++) {
		size_t bi;
		const struct bag_connection *c = bag_timeline_conn(app->tl, r->conns[k], &bi);
		const char *cid = "";
		for (size_t f = 0; f < c->nfields; f++)
			if (strcmp(c->fields[f].name, "callerid") == 0)
				cid = c->fields[f].value;
		const char *path = bag_path(bag_timeline_bag(app->tl, bi)), *slash = strrchr(path, '/');
		snprintf(line, sizeof line, "connection %u: %s%s%s, %llu messages (%s)", c->id, c->type,
		         cid[0] ? " from " : "", cid, (unsigned long long)c->message_count, slash ? slash + 1 : path);
		detail_node(d, 0, line);
		for (size_t f = 0; f < c->nfields; f++)
			if (strcmp(c->fields[f].name, "message_definition") != 0) {
				snprintf(line, sizeof line, "%s: %s", c->fields[f].name, c->fields[f].value);
				detail_add(d, 1, line);
			}
	}
}

/* Rebuild the detail pane for the selection, from the bytes the worker sent. */
static void update_detail(struct app *app)
{
	struct model *m = &app->m;
	struct bag_message msg;

	if (app->conns_topic >= 0) {
		if (app->detail_key != UINT64_MAX - 2)
			detail_topic_conns(app, (size_t)app->conns_topic);
		app->detail_key = UINT64_MAX - 2;
		return;
	}
	if (model_count(m) == 0 || model_entry(m, m->row, &msg) != BAG_OK) {
		uint64_t shown = model_count(m) > 0 ? UINT64_MAX - 3 - m->row : UINT64_MAX - 3 + 1;
		if (model_count(m) > 0)
			note_bad_index(app, bag_view_errmsg(m->view));
		if (app->detail_key != shown) {
			if (model_count(m) > 0)
				detail_error(&app->detail, bag_view_errmsg(m->view));
			else
				detail_note(&app->detail, "no message selected");
		}
		app->detail_key = shown;
		return;
	}
	uint64_t key = work_key(msg.bag_index, msg.chunk, msg.offset);
	if (key == app->detail_key && (int)m->detail == app->detail_mode && app->detail.n > 0)
		return;
	if (m->detail == DETAIL_CONN) {
		detail_connection(&app->detail, msg.conn, app_def(app, msg.conn_index));
	} else if (key != app->detail_key || app->detail_bytes == NULL) {
		const struct summary *s = app_summary(app, key);
		if (s && s->rc != BAG_OK && s->rc != BAG_EDECODE && s->rc != BAG_EDEFINITION) {
			detail_error(&app->detail, s->text);
			app->detail_key = key;
			app->detail_mode = (int)m->detail;
			return;
		}
		detail_note(&app->detail, s && s->rc != BAG_OK ? s->text : "loading\xE2\x80\xA6");
		return;
	} else if (m->detail == DETAIL_HEX || !bag_conn_has_definition(msg.conn)) {
		/* no definition (a bag older than 1.2 without its .msg file): the bytes */
		detail_hex_width(&app->detail, app->detail_bytes, app->detail_size, app_hex_width(app));
	} else {
		bag_msgdef_t *def = app_def(app, msg.conn_index);
		if (bag_msgdef_root(def) == NULL)
			detail_note(&app->detail, bag_msgdef_errmsg(def));
		else
			detail_decoded(&app->detail, def, app->detail_bytes, app->detail_size);
		follow_field(app);
		if (app->detail_to_match)
			scroll_to_match(app);
	}
	app->detail_key = key;
	app->detail_mode = (int)m->detail;
}

/* A read error of a whole chunk: count its messages once. */
static void note_bad_chunk(struct app *app, uint64_t key, int rc)
{
	size_t bi = (size_t)(key >> 56), ch = (size_t)(key >> 32 & 0xFFFFFF);

	if (app->bad_chunks == NULL || rc == BAG_EDECODE || rc == BAG_EDEFINITION || bi >= app->cb.nbags || app->bad_chunks[bi] == NULL ||
	    ch >= bag_chunk_count(app->bags[bi]))
		return;
	if (app->bad_chunks[bi][ch / 8] & (1u << (ch % 8)))
		return;
	app->bad_chunks[bi][ch / 8] |= (uint8_t)(1u << (ch % 8));
	app->bad_nchunks++;
	for (size_t k = 0; k < bag_chunk_conn_n(app->bags[bi], ch); k++) {
		size_t ci;
		uint32_t n;
		bag_chunk_conn_at(app->bags[bi], ch, k, &ci, &n);
		app->bad_msgs += n;
	}
}

/*
 * An index that could not be read ("PATH: at byte N: ..."): the chunk at
 * byte N of that bag is counted as unreadable, from its chunk info.
 */
static void note_bad_index(struct app *app, const char *msg)
{
	const char *at = strstr(msg, ": at byte ");
	unsigned long long pos;

	if (at == NULL || sscanf(at, ": at byte %llu", &pos) != 1)
		return;
	for (size_t b = 0; b < app->cb.nbags; b++) {
		const char *path = bag_path(app->bags[b]);
		if (strncmp(msg, path, strlen(path)) != 0)
			continue;
		for (size_t ch = 0; ch < bag_chunk_count(app->bags[b]); ch++)
			if (bag_chunk_pos(app->bags[b], ch) == pos)
				note_bad_chunk(app, work_key(b, ch, 0), BAG_ECORRUPT);
	}
}

static void take_results(struct app *app)
{
	struct work_result res[256];
	size_t n;
	uint64_t sel = selected_key(app);

	while ((n = worker_take(app->worker, res, 256)) > 0) {
		for (size_t i = 0; i < n; i++) {
			if (res[i].rc != BAG_OK)
				note_bad_chunk(app, res[i].key, res[i].rc);
			cache_put(app, &res[i]);
			if (res[i].bytes != NULL && res[i].key == sel) {
				free(app->detail_bytes);
				app->detail_bytes = res[i].bytes;
				app->detail_size = res[i].size;
				app->detail_key = UINT64_MAX - 1;   /* rebuild */
			} else {
				free(res[i].bytes);
			}
		}
	}
	if (app->detail_key == UINT64_MAX - 1) {
		/* fresh bytes for the selection: rebuild the detail from them */
		detail_clear(&app->detail);
		app->detail_key = sel;
		app->detail_mode = -1;
	}
}

/* Remember the detail cursor's field and the folded fields, to follow them to the next message. */
static void remember_field(struct app *app)
{
	struct detail *d = &app->detail;
	size_t *idx;

	if (app->m.detail != DETAIL_DECODED || d->n == 0 || d->lines[0].path == NULL ||
	    (idx = malloc((d->n + 1) * sizeof *idx)) == NULL)
		return;
	size_t n = detail_visible(d, idx, d->n);
	if (d->cursor < n && d->lines[idx[d->cursor]].path != NULL)
		snprintf(app->follow_path, sizeof app->follow_path, "%s", d->lines[idx[d->cursor]].path);
	app_folds_save(app);
	free(idx);
}

/* The selection moved to another message: its old bytes no longer apply. */
static void selection_changed(struct app *app, uint64_t before)
{
	uint64_t key = selected_key(app);

	if (key != before) {
		remember_field(app);
		free(app->detail_bytes);
		app->detail_bytes = NULL;
		app->detail.cursor = app->detail.top = 0;
		app->detail.hscroll = 0;
		if (app->conns_topic >= 0) {
			app->conns_topic = -1;
			app->detail_key = UINT64_MAX;
		}
	}
}

/* Everything the shown topics select, per timeline connection (the caller frees). */
static bool *shown_mask(struct app *app)
{
	struct model *m = &app->m;
	bool *mask = calloc(bag_timeline_conn_count(app->tl) + 1, sizeof *mask);

	for (size_t i = 0; mask != NULL && i < m->ntopics; i++)
		for (size_t k = 0; k < m->topics[i].nconns; k++)
			mask[m->topics[i].conns[k]] = m->topics[i].shown;
	return mask;
}

/* Start a search for app->search from the selection in direction dir. */
static void search_start(struct app *app, int dir)
{
	struct model *m = &app->m;
	struct job_req r = { .kind = JOB_SEARCH, .pattern = app->search, .dir = dir };
	bool *mask;

	if (app->search[0] == '\0') {
		snprintf(m->note, sizeof m->note, "no search yet: press /");
		return;
	}
	if (app->js.running && app->js.kind == JOB_FILTER) {
		snprintf(m->note, sizeof m->note, "the filter is still running: wait, or Esc to stop it");
		return;
	}
	if (app->hl_on)
		match_free(&app->hl);
	app->hl_on = match_init(&app->hl, app->search) == 0;
	if (!app->hl_on) {
		snprintf(m->note, sizeof m->note, "bad regex '%s': %s", app->search, app->hl.err);
		return;
	}
	if (model_count(m) == 0) {
		snprintf(m->note, sizeof m->note, "no messages to search");
		return;
	}
	if ((mask = shown_mask(app)) == NULL)
		return;
	r.conn_mask = mask;
	r.row = model_view_row(m, m->row);
	r.time_ns = model_time(m);
	app->search_dir = dir;
	r.filter = m->filtered ? app->filter : NULL;
	job_start(app->job, &r);
	app->js.running = true;
	app->js.kind = JOB_SEARCH;
	app->job_t0 = now_ns();
	free(mask);
	m->note[0] = '\0';
}

/* Start (or, with empty text, end) the filter. */
static void filter_start(struct app *app, const char *text)
{
	struct model *m = &app->m;
	struct job_req r = { .kind = JOB_FILTER };
	bag_expr_t *e = NULL;
	bool *mask;
	int rc;

	job_wait(app->job);
	app->js.running = false;
	if (text[strspn(text, " ")] == '\0') {
		model_filter_off(m);
		bag_expr_free(app->filter);
		app->filter = NULL;
		app->filter_text[0] = '\0';
		snprintf(m->note, sizeof m->note, "filter off");
		return;
	}
	rc = bag_expr_parse(&e, text, strlen(text));
	if (rc != BAG_OK) {
		snprintf(m->note, sizeof m->note, "filter: %s at column %zu", e ? bag_expr_errmsg(e) : "out of memory",
		         e ? bag_expr_errpos(e) + 1 : 0);
		bag_expr_free(e);
		return;
	}
	if ((mask = shown_mask(app)) == NULL) {
		bag_expr_free(e);
		return;
	}
	app->filter_anchor = m->filtered ? model_view_row(m, m->row) : m->row;
	if (app->filter_anchor == UINT64_MAX)
		app->filter_anchor = 0;
	app->filter_follow = true;
	bag_expr_free(app->filter);
	app->filter = e;
	snprintf(app->filter_text, sizeof app->filter_text, "%s", text);
	m->filtered = true;
	m->filter_stale = false;
	m->nfrows = 0;
	model_goto(m, 0);
	r.conn_mask = mask;
	r.filter = e;
	job_start(app->job, &r);
	app->js.running = true;
	app->js.kind = JOB_FILTER;
	free(mask);
	m->note[0] = '\0';
}

/* News from the job: progress, a search's match, a filter's rows. */
static void take_job(struct app *app)
{
	struct model *m = &app->m;
	double *rates = calloc(m->ntopics + 1, sizeof *rates);

	if (rates != NULL && job_take_rates(app->job, rates))
		model_set_rates(m, rates);
	free(rates);
	bool was = app->js.running;
	uint64_t before = selected_key(app), before_row = model_view_row(m, m->row);

	if (!job_poll(app->job, &app->js, m->filtered ? &m->frows : NULL, &m->nfrows, &m->capfrows) && !was)
		return;
	if (app->js.kind == JOB_FILTER && m->filtered) {
		if (app->filter_follow)
			model_goto_view_row(m, app->filter_anchor);
		else
			model_move(m, 0);
	}
	if (app->js.running || !was)
		goto done;
	if (app->js.kind == JOB_SEARCH) {
		if (app->js.rc == BAG_ECANCELED)
			snprintf(m->note, sizeof m->note, "search cancelled");
		else if (app->js.rc != BAG_OK)
			snprintf(m->note, sizeof m->note, "search: %s", app->js.err);
		else if (!app->js.found)
			snprintf(m->note, sizeof m->note, "'%s' not found", app->search);
		else {
			model_goto_view_row(m, app->js.found_row);
			app->detail_to_match = true;
			if (app->timing != NULL) {
				fprintf(app->timing, "search-found %.3f\n", (double)(now_ns() - app->job_t0) / 1e6);
				fflush(app->timing);
			}
			snprintf(m->note, sizeof m->note, "found '%s' at row %llu%s", app->search,
			         (unsigned long long)m->row + 1,
			         !app->js.wrapped ? "" : app->js.found_row == before_row ? " (the only match)" :
			         app->search_dir > 0 ? " (past the end, from the start)" : " (past the start, from the end)");
		}
	} else if (app->js.kind == JOB_FILTER) {
		if (app->js.rc == BAG_ECANCELED)
			snprintf(m->note, sizeof m->note, "filter stopped at %d%%: %zu matches so far",
			         app->js.total ? (int)(app->js.done * 100 / app->js.total) : 0, m->nfrows);
		else if (app->js.rc != BAG_OK) {
			snprintf(m->note, sizeof m->note, "filter: %s", app->js.err);
			model_filter_off(m);
		}
	}
done:
	selection_changed(app, before);
}

/* Enter on a topic: its connections in the detail, shown or not. */
static void show_topic_conns(struct app *app)
{
	struct topic_row *t = model_topic(&app->m);

	if (t == NULL)
		return;
	app->conns_topic = (int)(t - app->m.topics);
	app->detail_key = UINT64_MAX;
	app->detail.cursor = app->detail.top = 0;
	app->show_log = false;
}

/* A movement action repeated count times (one step when count is 0). */
static bool counted_move(struct app *app, enum action a, uint64_t count)
{
	struct model *m = &app->m;
	int64_t half = m->list_height > 2 ? m->list_height / 2 : 1;

	if (m->focus != PANE_LIST)
		return false;
	switch (a) {
	case ACTION_UP: model_move(m, -(int64_t)(count ? count : 1)); return true;
	case ACTION_DOWN: model_move(m, (int64_t)(count ? count : 1)); return true;
	case ACTION_HALF_UP: model_move(m, -half * (int64_t)(count ? count : 1)); return true;
	case ACTION_HALF_DOWN: model_move(m, half * (int64_t)(count ? count : 1)); return true;
	case ACTION_BOTTOM:
		if (count == 0)
			return false;
		model_goto(m, count - 1 < model_count(m) ? count - 1 : (model_count(m) ? model_count(m) - 1 : 0));
		return true;
	default: return false;
	}
}

/* One action, from a key or the mouse. */
static void act(struct app *app, enum action a)
{
	struct model *m = &app->m;
	uint64_t before = selected_key(app), count = app->count;

	app->count = 0;
	if (app->help) {
		if (a == ACTION_DOWN || a == ACTION_PAGE_DOWN || a == ACTION_HALF_DOWN)
			app->help_top += a == ACTION_DOWN ? 1 : LINES / 2;
		else if (a == ACTION_UP || a == ACTION_PAGE_UP || a == ACTION_HALF_UP)
			app->help_top -= a == ACTION_UP ? 1 : LINES / 2;
		else if (a == ACTION_TOP)
			app->help_top = 0;
		else if (a == ACTION_BOTTOM)
			app->help_top = ACTION_COUNT;
		else
			app->help = false;
		if (app->help_top < 0)
			app->help_top = 0;
		return;
	}
	if (a == ACTION_NONE)
		return;
	m->note[0] = '\0';
	if (plot_act(app, a)) {
		selection_changed(app, before);
		return;
	}
	switch (a) {
	case ACTION_QUIT: app->quit = true; return;
	case ACTION_HELP: app->help = true; app->help_top = 0; return;
	case ACTION_JUMP: case ACTION_SEARCH: case ACTION_FILTER: case ACTION_COLUMN:
		app->prompt = a == ACTION_JUMP ? 't' : a == ACTION_SEARCH ? '/' : a == ACTION_FILTER ? '&' : 'C';
		app->prompt_len = 0;
		app->prompt_buf[0] = '\0';
		if (a == ACTION_FILTER && app->filter_text[0])
			app->prompt_len = (size_t)snprintf(app->prompt_buf, sizeof app->prompt_buf, "%s", app->filter_text);
		app->hist[prompt_slot(app->prompt)].at = app->hist[prompt_slot(app->prompt)].n;
		return;
	case ACTION_SEARCH_NEXT: search_start(app, 1); return;
	case ACTION_SEARCH_PREV: search_start(app, -1); return;
	case ACTION_WRITE:
		app_export_prompt(app);
		return;
	case ACTION_CANCEL:
		if (app_export_cancel(app))
			snprintf(m->note, sizeof m->note, "cancelling the write");
		else if (app->js.running)
			job_cancel(app->job);
		else if (app->zoom)
			app->zoom = false;
		else if (app->show_log)
			app->show_log = false;
		else if (app->conns_topic >= 0) {
			app->conns_topic = -1;
			app->detail_key = UINT64_MAX;
		}
		return;
	case ACTION_LOG:
		app->show_log = !app->show_log;
		if (app->show_log)
			app_log_build(app);
		return;
	case ACTION_ZOOM: app->zoom = !app->zoom; layout_compute(app); return;
	case ACTION_WRAP: app->wrap = !app->wrap; return;
	case ACTION_ZONE: m->local = !m->local; return;
	case ACTION_MARK: case ACTION_MARK_NEXT: case ACTION_MARK_PREV:
		app_mark_act(app, a);
		break;
	case ACTION_COPY: case ACTION_COPY_PATH: case ACTION_COPY_JSON:
		app_copy(app, a);
		return;
	case ACTION_ENTER:
		if (m->focus == PANE_CONNS) {
			show_topic_conns(app);
			return;
		}
		if (m->focus == PANE_LIST) {
			m->focus = PANE_DETAIL;
			break;
		}
		draw_ops(PANE_DETAIL)->act(app, a);
		break;
	default:
		if (counted_move(app, a, count))
			break;
		if (m->focus == PANE_LIST && (a == ACTION_LEFT || a == ACTION_RIGHT)) {
			app->list_hscroll += a == ACTION_RIGHT ? 8 : -8;
			app->list_hscroll = app->list_hscroll < 0 ? 0 : app->list_hscroll;
			break;
		}
		for (uint64_t i = 0; i < (count ? count : 1) && i < 1000; i++)
			if (draw_ops(m->focus)->act == NULL || !draw_ops(m->focus)->act(app, a))
				model_act(m, a);
		break;
	}
	if (m->filtered && m->filter_stale && app->filter_text[0]) {
		char text[256];
		snprintf(text, sizeof text, "%s", app->filter_text);
		filter_start(app, text);
	}
	if (selected_key(app) != before)
		app->filter_follow = false;
	selection_changed(app, before);
}

/* The history slot of a prompt kind. */
static int prompt_slot(int kind)
{
	return kind == '/' ? 0 : kind == '&' ? 1 : kind == 't' ? 2 : kind == 'W' ? 4 : 3;
}

/* Keep what was typed at a prompt, newest last, without repeating the last one. */
static void history_add(struct history *h, const char *s)
{
	if (s[0] == '\0' || (h->n > 0 && strcmp(h->items[h->n - 1], s) == 0))
		return;
	if (h->n == HISTORY_MAX) {
		free(h->items[0]);
		memmove(h->items, h->items + 1, (HISTORY_MAX - 1) * sizeof *h->items);
		h->n--;
	}
	if ((h->items[h->n] = strdup(s)) != NULL)
		h->n++;
}

/* Drop the last UTF-8 character of the prompt. */
static void prompt_backspace(struct app *app)
{
	while (app->prompt_len > 0 && ((unsigned char)app->prompt_buf[--app->prompt_len] & 0xC0) == 0x80)
		;
	app->prompt_buf[app->prompt_len] = '\0';
}

/* A key while the prompt is open: editing (Ctrl-U, Ctrl-W, Backspace), history (Up, Down), Enter, Esc. */
static void prompt_key(struct app *app, int key)
{
	if (app->prompt == 'p') {
		uint64_t before = selected_key(app);
		plot_prompt_key(app, key);
		selection_changed(app, before);
		return;
	}
	struct history *h = &app->hist[prompt_slot(app->prompt)];

	if (key == 27) {
		app->prompt = 0;
		return;
	}
	if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		int kind = app->prompt;
		uint64_t before = selected_key(app);
		app->prompt = 0;
		history_add(h, app->prompt_buf);
		if (kind == '/') {
			if (app->prompt_buf[0] != '\0')
				snprintf(app->search, sizeof app->search, "%s", app->prompt_buf);
			search_start(app, 1);
		} else if (kind == '&') {
			filter_start(app, app->prompt_buf);
		} else if (kind == 'C') {
			app_column_set(app, app->prompt_buf);
		} else if (kind == 'W') {
			app_export_start(app, app->prompt_buf);
		} else {
			model_jump(&app->m, app->prompt_buf);
		}
		selection_changed(app, before);
		return;
	}
	if (key == KEY_UP || key == KEY_DOWN) {
		int at = h->at + (key == KEY_UP ? -1 : 1);
		if (at < 0 || at > h->n)
			return;
		h->at = at;
		app->prompt_len = (size_t)snprintf(app->prompt_buf, sizeof app->prompt_buf, "%s",
		                                   at < h->n ? h->items[at] : "");
		return;
	}
	if (key == 21) {                 /* Ctrl-U: all */
		app->prompt_len = 0;
		app->prompt_buf[0] = '\0';
		return;
	}
	if (key == 23) {                 /* Ctrl-W: the last word */
		while (app->prompt_len > 0 && app->prompt_buf[app->prompt_len - 1] == ' ')
			app->prompt_len--;
		while (app->prompt_len > 0 && app->prompt_buf[app->prompt_len - 1] != ' ')
			app->prompt_len--;
		app->prompt_buf[app->prompt_len] = '\0';
		return;
	}
	if (key == KEY_BACKSPACE || key == 127 || key == 8) {
		prompt_backspace(app);
		return;
	}
	/* printable ASCII and the bytes of UTF-8 characters, as the terminal sends them */
	if (key >= 0x20 && key <= 0xff && key != 0x7f && app->prompt_len + 1 < sizeof app->prompt_buf) {
		app->prompt_buf[app->prompt_len++] = (char)key;
		app->prompt_buf[app->prompt_len] = '\0';
	}
}

/* The mouse: one getmouse() per event. Wheel scrolls, a click selects, on [x] toggles, on the timeline jumps. */
static void mouse(struct app *app)
{
	MEVENT ev;
	int p;
	uint64_t before = selected_key(app);

	if (getmouse(&ev) != OK)
		return;
	if (ev.y >= app->timeline.y && ev.y < app->timeline.y + app->timeline.h &&
	    (ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED))) {
		int w = app->timeline.w - 10;
		if (w > 0 && ev.x >= 10) {
			model_seek(&app->m, app->m.start_ns + (int64_t)((double)(ev.x - 10) / w *
			                                                 (double)(app->m.end_ns - app->m.start_ns)));
			app->m.focus = PANE_LIST;
			selection_changed(app, before);
		}
		return;
	}
	if ((p = layout_pane_at(app, ev.y, ev.x)) == PANE_COUNT)
		return;
	app->m.focus = (enum pane)p;
	if (ev.bstate & BUTTON4_PRESSED) {
		for (int i = 0; i < 3; i++)
			act(app, ACTION_UP);
	} else if (ev.bstate & BUTTON5_PRESSED) {
		for (int i = 0; i < 3; i++)
			act(app, ACTION_DOWN);
	} else if (ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED)) {
		int row = ev.y - app->panes[p].y - (p == PANE_CONNS ? 2 : 1);
		if (row < 0)
			return;
		if (p == PANE_LIST) {
			model_goto(&app->m, app->m.top + (uint64_t)row);
		} else if (p == PANE_CONNS && app->m.topic_top + (size_t)row < app->m.ntopics) {
			app->m.topic_cursor = app->m.topic_top + (size_t)row;
			/* the [x] box toggles */
			if (ev.x - app->panes[p].x >= 1 && ev.x - app->panes[p].x <= 3)
				act(app, ACTION_TOGGLE_TOPIC);
		} else if (p == PANE_DETAIL) {
			app->detail.cursor = app->detail.top + (size_t)row;
		}
		selection_changed(app, before);
	}
}

/* Add a line to the log view. */
static void log_line(struct app *app, int depth, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void log_line(struct app *app, int depth, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	detail_add(&app->log, depth, line);
}

/*
 * The log: for each bag what recovery kept and lost (as bagset says it on
 * stderr), its warnings, the timeline's, files that did not open, and the
 * chunks found unreadable so far.
 */
void app_log_build(struct app *app)
{
	detail_clear(&app->log);
	for (const char *s = app->skipped.p, *nl; s != NULL && *s; s = nl + 1) {
		nl = strchr(s, '\n');
		log_line(app, 0, "skipped: %.*s", (int)(nl ? nl - s : (ptrdiff_t)strlen(s)), s);
		if (nl == NULL)
			break;
	}
	for (size_t i = 0; i < app->cb.nbags; i++) {
		bag_t *bag = app->bags[i];
		struct bag_recovery r;
		const char *path = bag_path(bag);
		bag_recovery_report(bag, &r);
		log_line(app, 0, "%s", path);
		if (r.recovered) {
			log_line(app, 1, "%s", r.reason);
			log_line(app, 1, "read without its index: %llu messages recovered from %zu chunks by a scan",
			         (unsigned long long)r.messages, r.chunks);
			for (size_t k = 0; k < r.nlosses; k++) {
				const struct bag_loss *l = bag_recovery_loss(bag, k);
				log_line(app, 1, "bytes %llu-%llu lost: %s", (unsigned long long)l->start,
				         (unsigned long long)l->end, l->what);
			}
		} else {
			log_line(app, 1, "opened from its index: %llu messages in %zu chunks",
			         (unsigned long long)bag_message_count(bag), bag_chunk_count(bag));
		}
		for (size_t k = 0; k < bag_warning_count(bag) && bag_warning(bag, k) != NULL; k++)
			log_line(app, 1, "warning: %s", bag_warning(bag, k));
	}
	for (size_t k = 0; k < bag_timeline_warning_count(app->tl) && bag_timeline_warning(app->tl, k); k++)
		log_line(app, 0, "warning: %s", bag_timeline_warning(app->tl, k));
	if (app->bad_nchunks > 0)
		log_line(app, 0, "unreadable so far: %zu chunks, %llu messages (each row of them says why)",
		         app->bad_nchunks, (unsigned long long)app->bad_msgs);
	if (app->log.n == 0)
		log_line(app, 0, "nothing to report");
}

/* Open the bags; with several, one that does not open is skipped and said so. */
static int open_all(struct app *app)
{
	if (bagset_open_skip(&app->cb, app->paths, app->npaths, &app->skipped) != BAG_OK)
		return -1;
	app->bags = app->cb.bags;
	app->tl = app->cb.tl;
	app->conns_topic = -1;
	pthread_mutex_init(&app->cols_lock, NULL);
	if (model_init(&app->m, app->tl) != BAG_OK) {
		term_error("%s", app->m.note[0] ? app->m.note : "out of memory");
		return -1;
	}
	app->defs = calloc(bag_timeline_conn_count(app->tl) + 1, sizeof *app->defs);
	app->cache = calloc(CACHE_SLOTS, sizeof *app->cache);
	app->bad_chunks = calloc(app->cb.nbags + 1, sizeof *app->bad_chunks);
	if (app->defs == NULL || app->cache == NULL || app->bad_chunks == NULL)
		return -1;
	for (size_t i = 0; i < app->cb.nbags; i++)
		if ((app->bad_chunks[i] = calloc(bag_chunk_count(app->bags[i]) / 8 + 1, 1)) == NULL)
			return -1;
	if (worker_start(&app->worker, app->bags, app->cb.nbags) != BAG_OK ||
	    job_open(&app->job, app->bags, app->cb.nbags) != BAG_OK) {
		term_error("cannot start the decoding threads");
		return -1;
	}
	app_marks_load(app);
	job_rates(app->job, app->m.topic_of, app->m.ntopics);
	/* what the status line says first */
	for (size_t i = 0; i < app->cb.nbags; i++) {
		struct bag_recovery rec;
		bag_recovery_report(app->bags[i], &rec);
		if (rec.recovered)
			snprintf(app->m.note, sizeof app->m.note, "no usable index: %llu messages recovered by a scan, "
			         "%zu stretches lost (L: the log)", (unsigned long long)rec.messages, rec.nlosses);
	}
	if (app->skipped.len > 0) {
		char first[600], why[700];
		snprintf(first, sizeof first, "%.*s", (int)strcspn(app->skipped.p, "\n"), app->skipped.p);
		detail_problem_first(first, why, sizeof why);
		snprintf(app->m.note, sizeof app->m.note, "skipped a file: %s (L: the log)", why);
	}
	return 0;
}

static void close_all(struct app *app)
{
	app_export_stop(app);
	plot_free(app);
	media_free(app);
	job_close(app->job);
	worker_stop(app->worker);
	app->worker = NULL;
	app_columns_free(app);
	model_free(&app->m);
	for (size_t i = 0; app->defs != NULL && i < bag_timeline_conn_count(app->tl); i++)
		bag_msgdef_free(app->defs[i]);
	free(app->defs);
	for (size_t i = 0; app->bad_chunks != NULL && i < app->cb.nbags; i++)
		free(app->bad_chunks[i]);
	free(app->bad_chunks);
	bagset_close(&app->cb);
	free(app->density);
	free(app->topic_density);
	free(app->cache);
	free(app->detail_bytes);
	detail_clear(&app->detail);
	detail_clear(&app->log);
	bag_text_free(&app->skipped);
	bag_expr_free(app->filter);
	if (app->hl_on)
		match_free(&app->hl);
	for (size_t k = 0; k < sizeof app->hist / sizeof *app->hist; k++)
		for (int i = 0; i < app->hist[k].n; i++)
			free(app->hist[k].items[i]);
	free(app->marks);
	app_folds_clear(app);
}

/*
 * BAGSCOPE_TIMING=FILE: the benchmark's probe. Writes the time from start to
 * the first full screen, and for each key the time to handle it and draw.
 */
static FILE *timing_open(void)
{
	const char *path = getenv("BAGSCOPE_TIMING");
	return path != NULL ? fopen(path, "w") : NULL;
}

int tui_run(char *const *paths, size_t n)
{
	struct app app = { .paths = paths, .npaths = n, .detail_key = UINT64_MAX };
	int status = 0;
	int64_t t0 = now_ns(), first_full = 0;
	FILE *timing = timing_open();

	setlocale(LC_CTYPE, "");   /* the character set only; numbers stay "C" (see main.c) */
	if (open_all(&app) != 0) {
		close_all(&app);
		return 1;
	}
	app.utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	if (getenv("ESCDELAY") == NULL)
		set_escdelay(25);
	initscr();
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	draw_init_colours(&app);
	layout_compute(&app);
	model_goto(&app.m, 0);
	if (timing != NULL) {
		draw_all(&app);
		fprintf(timing, "first-screen %.3f\n", (double)(now_ns() - t0) / 1e6);
	}
	app.timing = timing;
	app.t0 = t0;
	while (!app.quit) {
		struct pollfd fds[4] = { { 0, POLLIN, 0 }, { worker_fd(app.worker), POLLIN, 0 },
		                         { job_fd(app.job), POLLIN, 0 }, { app_export_fd(&app), POLLIN, 0 } };
		int key;

		take_job(&app);
		take_results(&app);
		update_detail(&app);
		request_visible(&app);
		draw_all(&app);
		if (timing != NULL && first_full == 0 && app.detail_bytes != NULL) {
			first_full = now_ns();
			fprintf(timing, "first-decoded %.3f\n", (double)(first_full - t0) / 1e6);
		}
		poll(fds, 4, plot_busy(&app) ? 100 : 500);
		app_export_poll(&app);
		while ((key = getch()) != ERR) {
			int64_t k0 = now_ns();
			if (key == KEY_RESIZE) {
				layout_compute(&app);
				model_move(&app.m, 0);
			} else if (app.prompt) {
				prompt_key(&app, key);
			} else if (key == KEY_MOUSE) {
				mouse(&app);
			} else if (key >= '0' && key <= '9' && (app.count > 0 || key != '0') && !app.help) {
				app.count = app.count * 10 + (uint64_t)(key - '0');
				if (app.count > COUNT_MAX)
					app.count = COUNT_MAX;
			} else {
				act(&app, key == '\r' ? ACTION_ENTER : keys_action(key));
			}
			if (app.quit)
				break;
			if (timing != NULL) {
				request_visible(&app);
				draw_all(&app);
				fprintf(timing, "key %s %.3f\n", keyname(key), (double)(now_ns() - k0) / 1e6);
				fflush(timing);
			}
		}
	}
	job_wait(app.job);
	endwin();
	close_all(&app);
	if (timing != NULL)
		fclose(timing);
	return status;
}
