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

#define SEARCH_SLICE_NS 15000000LL
#define KEY_FLAG (1ULL << 63)

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
}

bag_msgdef_t *app_def(struct app *app, size_t i)
{
	if (app->defs[i] == NULL) {
		const struct bag_connection *c = bag_timeline_conn(app->tl, i, NULL);
		bag_msgdef_parse(&app->defs[i], c->type, c->definition, strlen(c->definition));
	}
	return app->defs[i];
}

/* Ask the worker for what is in sight: the selection's bytes, the visible rows, then neighbours. */
static void request_visible(struct app *app)
{
	struct model *m = &app->m;
	uint64_t count = bag_view_count(m->view), h = (uint64_t)(m->list_height > 0 ? m->list_height : 1);
	struct work_item items[1024];
	size_t n = 0;
	struct bag_message msg;

	if (count == 0)
		return;
	if (bag_view_entry(m->view, m->row, &msg) == BAG_OK) {
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
			if (bag_view_entry(m->view, r, &msg) != BAG_OK)
				break;
			uint64_t key = work_key(msg.bag_index, msg.chunk, msg.offset);
			if (app_summary(app, key) == NULL)
				items[n++] = (struct work_item){ key, msg.bag_index, msg.chunk, msg.offset, msg.conn->id,
				                                 msg.time_ns, false };
		}
	}
	worker_request(app->worker, items, n);
}

/* Rebuild the detail pane for the selection, from the bytes the worker sent. */
static void update_detail(struct app *app)
{
	struct model *m = &app->m;
	struct bag_message msg;

	if (bag_view_count(m->view) == 0 || bag_view_entry(m->view, m->row, &msg) != BAG_OK) {
		if (app->detail_key != UINT64_MAX)
			detail_note(&app->detail, "no message selected");
		app->detail_key = UINT64_MAX;
		return;
	}
	uint64_t key = work_key(msg.bag_index, msg.chunk, msg.offset);
	if (key == app->detail_key && (int)m->detail == app->detail_mode && app->detail.n > 0)
		return;
	if (m->detail == DETAIL_CONN) {
		detail_connection(&app->detail, msg.conn, app_def(app, msg.conn_index));
	} else if (key != app->detail_key || app->detail_bytes == NULL) {
		const struct summary *s = app_summary(app, key);
		detail_note(&app->detail, s && s->rc != BAG_OK ? s->text : "loading\xE2\x80\xA6");
		return;
	} else if (m->detail == DETAIL_HEX || !bag_conn_has_definition(msg.conn)) {
		/* no definition (a bag older than 1.2 without its .msg file): the bytes */
		detail_hex(&app->detail, app->detail_bytes, app->detail_size);
	} else {
		bag_msgdef_t *def = app_def(app, msg.conn_index);
		if (bag_msgdef_root(def) == NULL)
			detail_note(&app->detail, bag_msgdef_errmsg(def));
		else
			detail_decoded(&app->detail, def, app->detail_bytes, app->detail_size);
	}
	app->detail_key = key;
	app->detail_mode = (int)m->detail;
}

static void take_results(struct app *app)
{
	struct work_result res[256];
	size_t n;
	struct bag_message msg;
	uint64_t sel = UINT64_MAX;

	if (bag_view_count(app->m.view) > 0 && bag_view_entry(app->m.view, app->m.row, &msg) == BAG_OK)
		sel = work_key(msg.bag_index, msg.chunk, msg.offset);
	while ((n = worker_take(app->worker, res, 256)) > 0) {
		for (size_t i = 0; i < n; i++) {
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

/* The selection moved to another message: its old bytes no longer apply. */
static void selection_changed(struct app *app, uint64_t before)
{
	struct bag_message msg;
	uint64_t key = UINT64_MAX;

	if (bag_view_count(app->m.view) > 0 && bag_view_entry(app->m.view, app->m.row, &msg) == BAG_OK)
		key = work_key(msg.bag_index, msg.chunk, msg.offset);
	if (key != before) {
		free(app->detail_bytes);
		app->detail_bytes = NULL;
		app->detail.cursor = app->detail.top = 0;
		app->detail.hscroll = 0;
	}
}

static uint64_t selected_key(struct app *app)
{
	struct bag_message msg;

	if (bag_view_count(app->m.view) > 0 && bag_view_entry(app->m.view, app->m.row, &msg) == BAG_OK)
		return work_key(msg.bag_index, msg.chunk, msg.offset);
	return UINT64_MAX;
}

/* Start a search for app->search from the selection in direction dir. */
static void search_start(struct app *app, int dir)
{
	if (app->search[0] == '\0') {
		snprintf(app->m.note, sizeof app->m.note, "no search yet: press /");
		return;
	}
	app->searching = true;
	app->search_dir = dir;
	app->search_row = app->m.row;
	app->search_done = 0;
	app->m.note[0] = '\0';
}

/* Look at rows for at most a slice of time; stop on a match or the end. */
static void search_step(struct app *app)
{
	struct model *m = &app->m;
	int64_t until = now_ns() + SEARCH_SLICE_NS;
	struct bag_message msg;
	uint64_t count = bag_view_count(m->view);
	char err[128];

	while (now_ns() < until) {
		if ((app->search_dir > 0 && app->search_row + 1 >= count) || (app->search_dir < 0 && app->search_row == 0)) {
			app->searching = false;
			snprintf(m->note, sizeof m->note, "'%s' not found %s", app->search,
			         app->search_dir > 0 ? "below" : "above");
			return;
		}
		app->search_row += app->search_dir > 0 ? 1 : (uint64_t)-1;
		app->search_done++;
		if (bag_view_read(m->view, app->search_row, &msg) != BAG_OK)
			continue;
		bag_msgdef_t *def = app_def(app, msg.conn_index);
		app->search_text.len = 0;
		if (bag_msgdef_root(def) == NULL ||
		    bag_print_json(&app->search_text, def, msg.data, msg.size, err, sizeof err) != BAG_OK)
			continue;
		if (strstr(app->search_text.p ? app->search_text.p : "", app->search) != NULL ||
		    strstr(msg.conn->topic, app->search) != NULL) {
			uint64_t before = selected_key(app);
			app->searching = false;
			model_goto(m, app->search_row);
			selection_changed(app, before);
			snprintf(m->note, sizeof m->note, "found '%s' at row %llu", app->search,
			         (unsigned long long)app->search_row + 1);
			return;
		}
	}
	snprintf(m->note, sizeof m->note, "searching '%s': row %llu of %llu", app->search,
	         (unsigned long long)app->search_row + 1, (unsigned long long)count);
}

/* One action, from a key or the mouse. */
static void act(struct app *app, enum action a)
{
	struct model *m = &app->m;
	uint64_t before = selected_key(app);

	if (app->help) {
		app->help = false;
		return;
	}
	if (a == ACTION_NONE)
		return;
	m->note[0] = '\0';
	/* moving on while a search runs drops the search: it would pull the selection away */
	if (app->searching && a != ACTION_SEARCH_NEXT && a != ACTION_SEARCH_PREV && a != ACTION_CANCEL)
		app->searching = false;
	switch (a) {
	case ACTION_QUIT: app->quit = true; return;
	case ACTION_HELP: app->help = true; return;
	case ACTION_JUMP: app->prompt = 't'; app->prompt_len = 0; app->prompt_buf[0] = '\0'; return;
	case ACTION_SEARCH: app->prompt = '/'; app->prompt_len = 0; app->prompt_buf[0] = '\0'; return;
	case ACTION_SEARCH_NEXT: search_start(app, 1); return;
	case ACTION_SEARCH_PREV: search_start(app, -1); return;
	case ACTION_CANCEL:
		if (app->searching)
			snprintf(m->note, sizeof m->note, "search cancelled");
		app->searching = false;
		return;
	case ACTION_ENTER:
		if (m->focus == PANE_CONNS) {
			struct topic_row *t = model_topic(m);
			if (t != NULL && !t->shown)
				break;
			/* show this topic's connection: select its next message, detail on the connection */
			m->detail = DETAIL_CONN;
			m->focus = PANE_DETAIL;
			if (t != NULL) {
				struct bag_message msg;
				if (bag_view_entry(m->view, m->row, &msg) != BAG_OK || strcmp(msg.conn->topic, t->topic) != 0) {
					uint64_t r;
					for (r = m->row; r < bag_view_count(m->view) && r < m->row + 100000; r++)
						if (bag_view_entry(m->view, r, &msg) == BAG_OK && strcmp(msg.conn->topic, t->topic) == 0)
							break;
					if (r < bag_view_count(m->view) && r < m->row + 100000)
						model_goto(m, r);
				}
			}
			break;
		}
		if (m->focus == PANE_LIST) {
			m->focus = PANE_DETAIL;
			break;
		}
		draw_ops(PANE_DETAIL)->act(app, a);
		break;
	default:
		if (draw_ops(m->focus)->act == NULL || !draw_ops(m->focus)->act(app, a))
			model_act(m, a);
		break;
	}
	selection_changed(app, before);
}

/* A key while the prompt is open. */
static void prompt_key(struct app *app, int key)
{
	if (key == 27) {
		app->prompt = 0;
		return;
	}
	if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		int kind = app->prompt;
		app->prompt = 0;
		if (kind == '/') {
			snprintf(app->search, sizeof app->search, "%s", app->prompt_buf);
			search_start(app, 1);
		} else {
			uint64_t before = selected_key(app);
			model_jump(&app->m, app->prompt_buf);
			selection_changed(app, before);
		}
		return;
	}
	if ((key == KEY_BACKSPACE || key == 127 || key == 8) && app->prompt_len > 0) {
		app->prompt_buf[--app->prompt_len] = '\0';
		return;
	}
	if (key >= 0x20 && key < 0x7f && app->prompt_len + 1 < sizeof app->prompt_buf) {
		app->prompt_buf[app->prompt_len++] = (char)key;
		app->prompt_buf[app->prompt_len] = '\0';
	}
}

static void mouse(struct app *app)
{
	MEVENT ev;
	int p;

	if (getmouse(&ev) != OK || (p = layout_pane_at(app, ev.y, ev.x)) == PANE_COUNT) {
		if (getmouse(&ev) == OK && ev.y == app->timeline.y && (ev.bstate & BUTTON1_CLICKED)) {
			int w = app->timeline.w - 10;
			if (w > 0 && ev.x >= 10) {
				uint64_t before = selected_key(app);
				model_seek(&app->m, app->m.start_ns + (int64_t)((double)(ev.x - 10) / w *
				                                                 (double)(app->m.end_ns - app->m.start_ns)));
				selection_changed(app, before);
			}
		}
		return;
	}
	app->m.focus = (enum pane)p;
	if (ev.bstate & BUTTON4_PRESSED) {
		for (int i = 0; i < 3; i++)
			act(app, ACTION_UP);
	} else if (ev.bstate & BUTTON5_PRESSED) {
		for (int i = 0; i < 3; i++)
			act(app, ACTION_DOWN);
	} else if (ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED)) {
		int row = ev.y - app->panes[p].y - (p == PANE_CONNS ? 2 : 1);
		uint64_t before = selected_key(app);
		if (row < 0)
			return;
		if (p == PANE_LIST)
			model_goto(&app->m, app->m.top + (uint64_t)row);
		else if (p == PANE_CONNS && app->m.topic_top + (size_t)row < app->m.ntopics)
			app->m.topic_cursor = app->m.topic_top + (size_t)row;
		else if (p == PANE_DETAIL)
			app->detail.cursor = app->detail.top + (size_t)row;
		selection_changed(app, before);
	}
}

/* Say on the status line what recovering an unindexed bag kept and lost. */
static void note_recovery(struct app *app)
{
	for (size_t i = 0; i < app->npaths; i++) {
		struct bag_recovery rec;
		bag_recovery_report(app->bags[i], &rec);
		if (rec.recovered)
			snprintf(app->m.note, sizeof app->m.note, "%s had no usable index: %llu messages recovered by a scan, "
			         "%llu bytes at the end unusable", app->paths[i], (unsigned long long)rec.messages,
			         (unsigned long long)rec.trailing_bytes);
	}
}

static int open_all(struct app *app)
{
	if (bagset_open(&app->cb, app->paths, app->npaths) != BAG_OK)
		return -1;
	app->bags = app->cb.bags;
	app->tl = app->cb.tl;
	if (model_init(&app->m, app->tl) != BAG_OK) {
		term_error("%s", app->m.note[0] ? app->m.note : "out of memory");
		return -1;
	}
	note_recovery(app);
	app->defs = calloc(bag_timeline_conn_count(app->tl) + 1, sizeof *app->defs);
	app->cache = calloc(CACHE_SLOTS, sizeof *app->cache);
	if (app->defs == NULL || app->cache == NULL)
		return -1;
	if (worker_start(&app->worker, app->bags, app->cb.nbags) != BAG_OK) {
		term_error("cannot start the decoding thread");
		return -1;
	}
	return 0;
}

static void close_all(struct app *app)
{
	worker_stop(app->worker);
	model_free(&app->m);
	for (size_t i = 0; app->defs != NULL && i < bag_timeline_conn_count(app->tl); i++)
		bag_msgdef_free(app->defs[i]);
	free(app->defs);
	bagset_close(&app->cb);
	free(app->density);
	free(app->topic_density);
	free(app->cache);
	free(app->detail_bytes);
	detail_clear(&app->detail);
	bag_text_free(&app->search_text);
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
	while (!app.quit) {
		struct pollfd fds[2] = { { 0, POLLIN, 0 }, { worker_fd(app.worker), POLLIN, 0 } };
		int key;

		take_results(&app);
		update_detail(&app);
		request_visible(&app);
		draw_all(&app);
		if (timing != NULL && first_full == 0 && app.detail_bytes != NULL) {
			first_full = now_ns();
			fprintf(timing, "first-decoded %.3f\n", (double)(first_full - t0) / 1e6);
		}
		poll(fds, 2, app.searching ? 0 : 500);
		while ((key = getch()) != ERR) {
			int64_t k0 = now_ns();
			if (key == KEY_RESIZE) {
				layout_compute(&app);
				model_move(&app.m, 0);
			} else if (app.prompt) {
				prompt_key(&app, key);
			} else if (key == KEY_MOUSE) {
				mouse(&app);
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
		if (app.searching)
			search_step(&app);
	}
	endwin();
	close_all(&app);
	if (timing != NULL)
		fclose(timing);
	return status;
}
