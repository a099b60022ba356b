/*
 * marks.c - marks on messages (m, u / ', U), the time since the mark in the
 * status line, and their file: one per bag, named by a fingerprint of the
 * bag's content (its size and an FNV-1a hash of its first and last 64 KiB:
 * the header, and the index and chunk infos at the end), so a copied or
 * renamed bag keeps its marks and another bag at the same path does not
 * get them. In $XDG_STATE_HOME/bagscope (default ~/.local/state/bagscope),
 * one line per mark: "time_ns chunk offset".
 *
 * app->marks.v holds message keys (work_key) sorted by time then key; the
 * times are kept beside them in the high half of a pair array.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tui/app.h"

#define FP_BYTES 65536

/* app->marks.v: pairs (time_ns, key), sorted; nmarks counts pairs. */
static int cmp_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	if (x[0] != y[0])
		return (int64_t)x[0] < (int64_t)y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* FNV-1a over a stretch of the bag's bytes (a local file or a URL's object). */
static uint64_t fnv(bag_t *bag, uint64_t at, size_t n, uint64_t h)
{
	uint8_t *buf = malloc(n ? n : 1);

	if (buf != NULL && bag_read_bytes(bag, at, buf, n) == BAG_OK)
		for (size_t i = 0; i < n; i++)
			h = (h ^ buf[i]) * 0x100000001b3ULL;
	free(buf);
	return h;
}

/* The marks file of bag i, or "" when there is no state directory. */
static void marks_path(const struct app *app, size_t i, char *out, size_t cap)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char dir[400];
	bag_t *bag = app->cb.bags[i];
	uint64_t size = bag_file_size(bag), h;

	out[0] = '\0';
	if (state != NULL && state[0] == '/')
		snprintf(dir, sizeof dir, "%s/bagscope", state);
	else if (home != NULL && home[0] == '/')
		snprintf(dir, sizeof dir, "%s/.local/state/bagscope", home);
	else
		return;
	/* the same bytes as pread gave: the first 64 KiB (or less), then the last 64 KiB */
	h = fnv(bag, 0, size < FP_BYTES ? (size_t)size : FP_BYTES, 0xcbf29ce484222325ULL ^ size);
	if (size > FP_BYTES)
		h = fnv(bag, size > 2 * FP_BYTES ? size - FP_BYTES : FP_BYTES,
		        size > 2 * FP_BYTES ? FP_BYTES : (size_t)(size - FP_BYTES), h);
	snprintf(out, cap, "%s/marks-%016llx", dir, (unsigned long long)h);
}

/* mkdir -p for the state directory. */
static void make_dirs(const char *file)
{
	char p[512];

	snprintf(p, sizeof p, "%s", file);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			if (mkdir(p, 0700) != 0 && errno != EEXIST)
				return;
			*s = '/';
		}
}

static void marks_save(struct app *app)
{
	for (size_t b = 0; b < app->cb.nbags; b++) {
		char path[512], tmp[520];
		marks_path(app, b, path, sizeof path);
		if (path[0] == '\0')
			continue;
		make_dirs(path);
		snprintf(tmp, sizeof tmp, "%s.tmp", path);
		FILE *f = fopen(tmp, "w");
		if (f == NULL)
			continue;
		size_t n = 0;
		for (size_t i = 0; i < app->marks.n; i++) {
			uint64_t t = app->marks.v[2 * i], k = app->marks.v[2 * i + 1];
			if ((k >> 56) != b)
				continue;
			fprintf(f, "%lld %llu %llu\n", (long long)t, (unsigned long long)(k >> 32 & 0xFFFFFF),
			        (unsigned long long)(k & 0xFFFFFFFF));
			n++;
		}
		if (fclose(f) == 0 && n > 0)
			rename(tmp, path);
		else {
			unlink(tmp);
			if (n == 0)
				unlink(path);
		}
	}
}

static bool marks_grow(struct app *app)
{
	if (app->marks.n < app->marks.cap)
		return true;
	size_t cap = app->marks.cap ? app->marks.cap * 2 : 64;
	uint64_t *m = realloc(app->marks.v, cap * 2 * sizeof *m);
	if (m == NULL)
		return false;
	app->marks.v = m;
	app->marks.cap = cap;
	return true;
}

void app_marks_load(struct app *app)
{
	for (size_t b = 0; b < app->cb.nbags && b < 256; b++) {
		char path[512];
		long long t;
		unsigned long long ch, off;
		marks_path(app, b, path, sizeof path);
		FILE *f = path[0] ? fopen(path, "r") : NULL;
		if (f == NULL)
			continue;
		while (fscanf(f, "%lld %llu %llu", &t, &ch, &off) == 3 && marks_grow(app)) {
			app->marks.v[2 * app->marks.n] = (uint64_t)t;
			app->marks.v[2 * app->marks.n + 1] = work_key(b, (size_t)ch, (uint32_t)off);
			app->marks.n++;
		}
		fclose(f);
	}
	if (app->marks.n > 1)
		qsort(app->marks.v, app->marks.n, 2 * sizeof *app->marks.v, cmp_pair);
}

bool app_marked(const struct app *app, uint64_t key)
{
	for (size_t i = 0; i < app->marks.n; i++)
		if (app->marks.v[2 * i + 1] == key)
			return true;
	return false;
}

/* Select the marked message i: its time, then its place among the messages of that time. */
static bool goto_mark(struct app *app, size_t i)
{
	struct model *m = &app->m;
	struct bag_message msg;

	if (model_seek(m, (int64_t)app->marks.v[2 * i]) != BAG_OK)
		return false;
	for (uint64_t r = m->row; r < model_count(m) && model_entry(m, r, &msg) == BAG_OK &&
	                          msg.time_ns == (int64_t)app->marks.v[2 * i]; r++)
		if (work_key(msg.bag_index, msg.chunk, msg.offset) == app->marks.v[2 * i + 1]) {
			model_goto(m, r);
			return true;
		}
	return false;
}

void app_mark_act(struct app *app, enum action a)
{
	struct model *m = &app->m;
	struct bag_message msg;

	if (model_entry(m, m->row, &msg) != BAG_OK)
		return;
	uint64_t key = work_key(msg.bag_index, msg.chunk, msg.offset), t = (uint64_t)msg.time_ns;
	if (a == ACTION_MARK) {
		for (size_t i = 0; i < app->marks.n; i++)
			if (app->marks.v[2 * i + 1] == key) {
				memmove(app->marks.v + 2 * i, app->marks.v + 2 * i + 2, (app->marks.n - i - 1) * 2 * sizeof *app->marks.v);
				app->marks.n--;
				snprintf(m->note, sizeof m->note, "mark removed (%zu left)", app->marks.n);
				marks_save(app);
				return;
			}
		if (!marks_grow(app))
			return;
		app->marks.v[2 * app->marks.n] = t;
		app->marks.v[2 * app->marks.n + 1] = key;
		app->marks.n++;
		if (app->marks.n > 1)
			qsort(app->marks.v, app->marks.n, 2 * sizeof *app->marks.v, cmp_pair);
		snprintf(m->note, sizeof m->note, "marked (%zu mark%s; u and U move between them)", app->marks.n,
		         BAG_S(app->marks.n));
		marks_save(app);
		return;
	}
	if (app->marks.n == 0) {
		snprintf(m->note, sizeof m->note, "no marks: m marks the selected message");
		return;
	}
	uint64_t here[2] = { t, key };
	size_t i;
	if (a == ACTION_MARK_NEXT) {
		for (i = 0; i < app->marks.n && cmp_pair(app->marks.v + 2 * i, here) <= 0; i++)
			;
		if (i == app->marks.n) {
			i = 0;
			snprintf(m->note, sizeof m->note, "no later mark: back to the first");
		}
	} else {
		for (i = app->marks.n; i > 0 && cmp_pair(app->marks.v + 2 * (i - 1), here) >= 0; i--)
			;
		if (i == 0) {
			i = app->marks.n;
			snprintf(m->note, sizeof m->note, "no earlier mark: on to the last");
		}
		i--;
	}
	if (!goto_mark(app, i))
		snprintf(m->note, sizeof m->note, "the mark's message is not shown (a hidden topic or the filter)");
}
