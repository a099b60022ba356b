/*
 * app.c - the browser's loop: poll the keyboard and the background jobs'
 * pipes, turn keys into actions and hand them to the panes (pane.h), take
 * the worker's results into the summary cache and the selection's bytes,
 * and redraw.
 *
 * The main thread never decompresses a chunk for drawing: rows come from the
 * index, and sizes, summaries and the selected message's bytes come from the
 * worker. Searches, filters, plots and writes run on threads of their own.
 */
#define _XOPEN_SOURCE_EXTENDED
#define _GNU_SOURCE
#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/draw.h"
#include "tui/keys.h"

#define COUNT_MAX 100000000ULL

/* Ask the worker for what is in sight: the selection's bytes, the visible rows, then neighbours. */
static void request_visible(struct app *app)
{
	struct model *m = &app->m;
	uint64_t count = model_count(m), h = (uint64_t)(m->list_height > 0 ? m->list_height : 1);
	struct work_item items[1024];
	size_t n = 0;
	struct bag_message msg;

	if (count == 0 || app->fetch_stopped)
		return;
	if (model_entry(m, m->row, &msg) == BAG_OK) {
		uint64_t key = work_key(msg.bag_index, msg.chunk, msg.offset);
		if (key != app->sel.key || app->sel.bytes == NULL)
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

/* The worker's results: summaries into the cache, the selection's bytes kept. */
static void take_results(struct app *app)
{
	struct work_result res[256];
	size_t n;
	uint64_t sel = app_selected_key(app);

	while ((n = worker_take(app->worker, res, 256)) > 0)
		for (size_t i = 0; i < n; i++) {
			if (res[i].rc == BAG_ECANCELED) {
				free(res[i].bytes);   /* Esc stopped its read: asked again, never damage */
				continue;
			}
			if (res[i].rc != BAG_OK)
				app_note_bad_chunk(app, res[i].key, res[i].rc);
			app_cache_put(app, &res[i]);
			if (res[i].bytes != NULL && res[i].key == sel) {
				free(app->sel.bytes);
				app->sel = (struct selection){ sel, res[i].bytes, res[i].size, true };
			} else {
				free(res[i].bytes);
			}
		}
}

/* The selection moved to another message (it was before): its old bytes no longer apply. */
static void selection_changed(struct app *app, uint64_t before)
{
	if (app_selected_key(app) == before)
		return;
	app->find.follow = false;
	free(app->sel.bytes);
	app->sel = (struct selection){ UINT64_MAX, NULL, 0, false };
	panes_moved(app);
}

/* q: with a write running, ask first (a second q quits, cancelling it). */
static void quit(struct app *app)
{
	if (app_export_running(app) && !app->quit_asked) {
		app->quit_asked = true;   /* the status line asks while the write runs */
		return;
	}
	app->quit = true;
}

/*
 * Esc while the worker fetches for a URL bag: what is queued is dropped and
 * the reads in flight stop (nothing of them kept); nothing more is asked
 * until the next key.
 */
static void stop_fetching(struct app *app)
{
	bool index = worker_warming(app->worker) > 0;

	worker_warm_cancel(app->worker);
	worker_request(app->worker, NULL, 0);
	bagset_stop_reads();
	app->fetch_stopped = true;
	snprintf(app->m.note, sizeof app->m.note, "stopped fetching %s (a key fetches again)",
	         index ? "the index" : "the rows");
}

/* The actions that are the app's own, whatever the focus; false for the others. */
static bool app_act(struct app *app, enum action a)
{
	switch (a) {
	case ACTION_QUIT: quit(app); return true;
	case ACTION_NEXT_PANE: panes_focus_next(app, 1); return true;
	case ACTION_PREV_PANE: panes_focus_next(app, -1); return true;
	case ACTION_SEARCH_NEXT: find_again(app, 1); return true;
	case ACTION_SEARCH_PREV: find_again(app, -1); return true;
	case ACTION_MARK: case ACTION_MARK_NEXT: case ACTION_MARK_PREV: app_mark_act(app, a); return true;
	case ACTION_COPY: case ACTION_COPY_PATH: case ACTION_COPY_JSON: app_copy(app, a); return true;
	case ACTION_ZONE: app->m.local = !app->m.local; return true;
	case ACTION_ZOOM:
		app->zoom = !app->zoom;
		/* the zoomed pane takes the keys */
		if (app->zoom && app->m.focus != PANE_LOG)
			app->m.focus = PANE_DETAIL;
		return true;
	case ACTION_CANCEL:
		if (app_any_url(app) && worker_busy(app->worker))
			stop_fetching(app);
		else if (app_export_cancel(app))
			snprintf(app->m.note, sizeof app->m.note, "cancelling the write");
		else if (app->find.js.running) {
			job_cancel(app->find.job);
			bagset_stop_reads();   /* its remote reads in flight stop too */
		}
		else if (app->zoom)
			app->zoom = false;
		else
			return false;
		return true;
	default:
		return prompt_for_action(app, a);
	}
}

/* One action, from a key or the mouse: the app's, the panes', then the model's; repeated by a count. */
static void act(struct app *app, enum action a)
{
	uint64_t before = app_selected_key(app);

	if (a != ACTION_QUIT)
		app->quit_asked = false;
	if (panes_modal(app) != NULL) {
		panes_key(app, a);
		app->count = 0;
		return;
	}
	if (a == ACTION_NONE)
		return;
	if (a != ACTION_CANCEL)
		app->fetch_stopped = false;
	model_seek_drop(&app->m);   /* the key decides where the cursor goes now */
	if (app->m.note[0])
		memcpy(app->last_note, app->m.note, sizeof app->last_note);
	app->m.note[0] = '\0';
	if (!app_act(app, a))
		for (int i = 0; i < 1000; i++) {
			if (!panes_key(app, a))
				model_act(&app->m, a);
			if (app->count <= 1)
				break;
			app->count--;
		}
	app->count = 0;
	find_rerun_stale(app);
	selection_changed(app, before);
}

/* The mouse: one getmouse() per event. The wheel scrolls the pane under it, a click goes to its click op. */
static void mouse(struct app *app)
{
	MEVENT ev;
	int p;
	uint64_t before = app_selected_key(app);

	if (getmouse(&ev) != OK || (p = layout_pane_at(app, ev.y, ev.x)) == PANE_COUNT)
		return;
	model_seek_drop(&app->m);
	struct pane *pane = &app->panes[p];
	if (pane->ops->key != NULL)
		app->m.focus = (enum pane_id)p;
	if ((ev.bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED)) && pane->ops->key != NULL)
		for (int i = 0; i < 3; i++)
			act(app, ev.bstate & BUTTON4_PRESSED ? ACTION_UP : ACTION_DOWN);
	else if ((ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED)) && pane->ops->click != NULL)
		pane->ops->click(app, pane, ev.y - pane->r.y, ev.x - pane->r.x);
	find_rerun_stale(app);
	selection_changed(app, before);
}

/* The files that did not open, named first (the status line may cut the rest), then the first one's problem. */
static void skipped_note(struct app *app)
{
	char names[300] = "", first[600], why[700];
	size_t nskip = 0, len = 0;

	for (size_t i = 0; i < app->npaths; i++) {
		const char *p = app->paths[i], *s = app->bad.skipped.p;
		bool listed = false;
		for (const char *line = s; line != NULL && *line && !listed; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
			listed = strncmp(line, p, strlen(p)) == 0 && line[strlen(p)] == ':';
		if (!listed)
			continue;
		nskip++;
		if (len < sizeof names)
			len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "", app_base_name(p));
	}
	snprintf(first, sizeof first, "%.*s", (int)strcspn(app->bad.skipped.p, "\n"), app->bad.skipped.p);
	detail_problem_first(first, why, sizeof why);
	snprintf(app->m.note, sizeof app->m.note, "skipped %s (L: the log): %s", nskip ? names : "a file", why);
}

/* What the status line says first: a recovered bag, a file skipped. */
static void first_note(struct app *app)
{
	for (size_t i = 0; i < app->cb.nbags; i++) {
		struct bag_recovery rec;
		bag_recovery_report(app->cb.bags[i], &rec);
		if (rec.recovered)
			snprintf(app->m.note, sizeof app->m.note, "no usable index: %llu message%s recovered by a scan, "
			         "%zu stretch%s lost (L: the log)", (unsigned long long)rec.messages, BAG_S(rec.messages),
			         rec.nlosses, rec.nlosses == 1 ? "" : "es");
	}
	if (app->bad.skipped.len > 0)
		skipped_note(app);
}

/* model.ready for URL bags: the worker fetches the group's index (it wakes the loop when in). */
static bool index_ready(void *arg, size_t group)
{
	struct app *app = arg;

	return !app->fetch_stopped ? worker_warm(app->worker, app->cb.tl, group)
	                           : worker_warm_done(app->worker, group);
}

/* Open the bags; with several, one that does not open is skipped and said so. */
static int open_all(struct app *app)
{
	app->sel.key = UINT64_MAX;
	app->find.stopped = -1;
	pthread_mutex_init(&app->cols.lock, NULL);
	bagset_lazy_counts();   /* a lone .db3's counts come with the rates (job_rates) */
	if (bagset_open_skip(&app->cb, app->paths, app->npaths, &app->bad.skipped) != BAG_OK)
		return -1;
	if (model_init(&app->m, app->cb.tl) != BAG_OK) {
		term_error("%s", app->m.note[0] ? app->m.note : "out of memory");
		return -1;
	}
	app->defs = calloc(bag_timeline_conn_count(app->cb.tl) + 1, sizeof *app->defs);
	app->cache = calloc(CACHE_SLOTS, sizeof *app->cache);
	app->bad.chunks = calloc(app->cb.nbags + 1, sizeof *app->bad.chunks);
	if (app->defs == NULL || app->cache == NULL || app->bad.chunks == NULL || panes_init(app) != 0)
		return -1;
	for (size_t i = 0; i < app->cb.nbags; i++)
		if ((app->bad.chunks[i] = calloc(bag_chunk_count(app->cb.bags[i]) / 8 + 1, 1)) == NULL)
			return -1;
	if (worker_start(&app->worker, app->cb.bags, app->cb.nbags) != BAG_OK ||
	    job_open(&app->find.job, app->cb.bags, app->cb.nbags) != BAG_OK) {
		term_error("cannot start the decoding threads");
		return -1;
	}
	if (app_any_url(app)) {   /* the index of a URL's bag is fetched by the worker, keys never wait */
		app->m.ready = index_ready;
		app->m.ready_arg = app;
	}
	app_marks_load(app);
	if (!app_any_url(app))
		job_rates(app->find.job, app->m.topic_of, app->m.ntopics);
	app_check_start(app);
	first_note(app);
	return 0;
}

static void close_all(struct app *app)
{
	bagset_quit_reads();   /* no thread joined below waits on the network */
	app_export_stop(app);
	app_check_stop(app);
	panes_free(app);
	find_free(app);
	worker_stop(app->worker);
	app->worker = NULL;
	app_columns_free(app);
	model_free(&app->m);
	for (size_t i = 0; app->defs != NULL && i < bag_timeline_conn_count(app->cb.tl); i++)
		bag_msgdef_free(app->defs[i]);
	free(app->defs);
	for (size_t i = 0; app->bad.chunks != NULL && i < app->cb.nbags; i++)
		free(app->bad.chunks[i]);
	free(app->bad.chunks);
	bag_text_free(&app->bad.skipped);
	bagset_close(&app->cb);
	free(app->cache);
	free(app->sel.bytes);
	prompt_free(&app->prompt);
	free(app->marks.v);
}

static void screen_start(struct app *app)
{
	app->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
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
	draw_init_colours(app);
	layout_compute(app, status_rows(app, COLS));
	model_goto(&app->m, 0);
}

/* One key: a resize, the prompt's, the mouse, a count digit, or an action. */
static void on_key(struct app *app, int key)
{
	uint64_t before = app_selected_key(app);

	if (key == KEY_RESIZE) {
		layout_compute(app, status_rows(app, COLS));
		model_move(&app->m, 0);
	} else if (app->prompt.kind) {
		prompt_key(app, key);
		find_rerun_stale(app);
		selection_changed(app, before);
	} else if (key == KEY_MOUSE) {
		mouse(app);
	} else if (key >= '0' && key <= '9' && (app->count > 0 || key != '0') && panes_modal(app) == NULL) {
		app->count = app->count * 10 + (uint64_t)(key - '0');
		if (app->count > COUNT_MAX)
			app->count = COUNT_MAX;
	} else {
		act(app, key == '\r' ? ACTION_ENTER : keys_action(key));
	}
}

/* One turn: news from the jobs and the worker, a redraw, a wait, then the keys waiting. */
static void turn(struct app *app, int64_t *first_full)
{
	struct pollfd fds[4] = { { 0, POLLIN, 0 }, { worker_fd(app->worker), POLLIN, 0 },
	                         { job_fd(app->find.job), POLLIN, 0 }, { app_export_fd(app), POLLIN, 0 } };
	uint64_t before = app_selected_key(app);
	int key;

	find_take(app);
	model_settle(&app->m);   /* a jump whose index has come in: on its exact row */
	selection_changed(app, before);
	take_results(app);
	__atomic_store_n(&app->user_busy, app->find.js.running || app_export_running(app), __ATOMIC_RELAXED);
	app_check_take(app);
	request_visible(app);
	draw_all(app);
	if (app->first_due && app->pending_rows == 0) {
		app->first_due = false;
		fprintf(app->timing, "first-screen %.3f\n", (double)(app_now_ns() - app->t0) / 1e6);
		fflush(app->timing);
	}
	if (app->timing != NULL && *first_full == 0 && app->sel.bytes != NULL) {
		*first_full = app_now_ns();
		fprintf(app->timing, "first-decoded %.3f\n", (double)(*first_full - app->t0) / 1e6);
		fflush(app->timing);
	}
	poll(fds, 4, panes_busy(app) ? 100 : 500);
	app_export_poll(app);
	while (!app->quit && (key = getch()) != ERR) {
		int64_t k0 = app_now_ns();
		on_key(app, key);
		if (app->timing != NULL && !app->quit) {
			request_visible(app);
			draw_all(app);
			fprintf(app->timing, "key %s %.3f\n", keyname(key), (double)(app_now_ns() - k0) / 1e6);
			fflush(app->timing);
		}
	}
}

/*
 * BAGSCOPE_TIMING=FILE: the benchmark's probe. Writes the time from start to
 * the first full screen, and for each key the time to handle it and draw.
 */
int tui_run(char *const *paths, size_t n)
{
	struct app app = { .paths = paths, .npaths = n };
	const char *tpath = getenv("BAGSCOPE_TIMING");
	int64_t first_full = 0;

	app.t0 = app_now_ns();
	setlocale(LC_CTYPE, "");   /* the character set only; numbers stay "C" (see main.c) */
	if (open_all(&app) != 0) {
		close_all(&app);
		return 1;
	}
	screen_start(&app);
	if (tpath != NULL && (app.timing = fopen(tpath, "w")) != NULL) {
		draw_all(&app);
		app.first_due = true;   /* written at the first screen with every row in (turn) */
	}
	if (app_any_url(&app)) {
		draw_all(&app);
		job_rates(app.find.job, app.m.topic_of, app.m.ntopics);
	}
	while (!app.quit)
		turn(&app, &first_full);
	job_wait(app.find.job);
	endwin();
	close_all(&app);
	if (app.timing != NULL)
		fclose(app.timing);
	return 0;
}
