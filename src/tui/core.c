/*
 * core.c - what the panes share of the app: the summary cache (open
 * addressing over CACHE_SLOTS; a key is stored with its top bit set, so 0
 * marks an empty slot; cleared whole when three quarters full), the parsed
 * definitions per timeline connection, the selection's key, and the count
 * of what cannot be read (a bitmap of chunks per bag; each chunk's messages
 * counted once). No curses, no pane: every pane may call it.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui/app.h"

#define KEY_FLAG (1ULL << 63)

int64_t app_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t app_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
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

void app_cache_flush(struct app *app)
{
	memset(app->cache, 0, CACHE_SLOTS * sizeof *app->cache);
	app->cache_used = 0;
}

void app_cache_put(struct app *app, const struct work_result *r)
{
	/*
	 * made for other columns than today's (columns.c): asked again; a read
	 * error (no cells made) is kept
	 */
	bool stale = r->cols[0] != '\0' ? app->cols.n == 0 || r->cols[0] != app->cols.gen
	                                 : app->cols.n > 0 && r->rc == BAG_OK;
	if (stale)
		return;
	if (app->cache_used > CACHE_SLOTS * 3 / 4)
		app_cache_flush(app);
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
		const struct bag_connection *c = bag_timeline_conn(app->cb.tl, i, NULL);
		bag_conn_msgdef_parse(&app->defs[i], c);
	}
	return app->defs[i];
}

uint64_t app_selected_key(struct app *app)
{
	struct bag_message msg;

	if (model_entry(&app->m, app->m.row, &msg) == BAG_OK)
		return work_key(msg.bag_index, msg.chunk, msg.offset);
	return UINT64_MAX;
}

void app_note_bad_chunk(struct app *app, uint64_t key, int rc)
{
	size_t bi = (size_t)(key >> 56), ch = (size_t)(key >> 32 & 0xFFFFFF);
	struct damage *d = &app->bad;

	if (d->chunks == NULL || rc == BAG_EDECODE || rc == BAG_EDEFINITION || bi >= app->cb.nbags ||
	    d->chunks[bi] == NULL || ch >= bag_chunk_count(app->cb.bags[bi]))
		return;
	if (d->chunks[bi][ch / 8] & (1u << (ch % 8)))
		return;
	d->chunks[bi][ch / 8] |= (uint8_t)(1u << (ch % 8));
	d->nchunks++;
	for (size_t k = 0; k < bag_chunk_conn_n(app->cb.bags[bi], ch); k++) {
		size_t ci;
		uint32_t n;
		bag_chunk_conn_at(app->cb.bags[bi], ch, k, &ci, &n);
		d->msgs += n;
	}
}

void app_note_bad_index(struct app *app, const char *msg)
{
	const char *at = strstr(msg, ": at byte ");
	unsigned long long pos;

	if (at == NULL || sscanf(at, ": at byte %llu", &pos) != 1)
		return;
	for (size_t b = 0; b < app->cb.nbags; b++) {
		const char *path = bag_path(app->cb.bags[b]);
		if (strncmp(msg, path, strlen(path)) != 0)
			continue;
		for (size_t ch = 0; ch < bag_chunk_count(app->cb.bags[b]); ch++)
			if (bag_chunk_pos(app->cb.bags[b], ch) == pos)
				app_note_bad_chunk(app, work_key(b, ch, 0), BAG_ECORRUPT);
	}
}

bool *app_shown_mask(struct app *app)
{
	struct model *m = &app->m;
	bool *mask = calloc(bag_timeline_conn_count(app->cb.tl) + 1, sizeof *mask);

	for (size_t i = 0; mask != NULL && i < m->ntopics; i++)
		for (size_t k = 0; k < m->topics[i].nconns; k++)
			mask[m->topics[i].conns[k]] = m->topics[i].shown;
	return mask;
}

const char *app_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

const char *app_bag_label(const struct app *app, size_t b, char *buf, size_t cap)
{
	const char *name = app_base_name(bag_path(app->cb.bags[b]));

	for (size_t i = 0; i < app->cb.nbags; i++)
		if (i != b && strcmp(app_base_name(bag_path(app->cb.bags[i])), name) == 0) {
			snprintf(buf, cap, "%zu:%s", b + 1, name);
			return buf;
		}
	return name;
}

bool app_any_url(const struct app *app)
{
	for (size_t i = 0; i < app->cb.nbags; i++)
		if (bag_is_url(bag_path(app->cb.bags[i])))
			return true;
	return false;
}
