/*
 * columns.c - message paths as list columns (C): "/odom.pose.pose.position.x"
 * is the topic /odom (the longest topic that prefixes it, expr.h's
 * bag_expr_topic_prefix) and the value path after it
 * (bag_expr_parse_value), compiled for each connection of that topic; a
 * bare path is on the selected message's topic; a tf(TARGET,SOURCE).FIELD
 * term is compiled for every connection and looks up the TF pane's buffer
 * (tf_pane_buffer) at each message's time, "…" until it is built.
 *
 * The decoding worker evaluates them after each summary (worker_set_extra):
 * its text is the columns' generation (a letter) then one cell per column,
 * COL_SEP between, empty where the column is not on the message's topic; a
 * result made for other columns is not cached (core.c), so none lingers. app->cols is guarded by its lock,
 * as the worker reads it; width is the main thread's alone.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/app.h"

/* A value as a column shows it; an integer with the constants it stands for. */
static void value_text(struct bag_text *t, const struct bag_expr_val *v, const struct bag_msgdef_type *owner,
                       const struct bag_msgdef_field *f)
{
	switch (v->kind) {
	case BAG_EXPR_MISSING: bag_text_append(t, "-", 1); break;
	case BAG_EXPR_BOOL: bag_text_printf(t, "%s", v->v.b ? "true" : "false"); break;
	case BAG_EXPR_INT: case BAG_EXPR_UINT:
		if (v->kind == BAG_EXPR_INT)
			bag_text_printf(t, "%lld", (long long)v->v.i);
		else
			bag_text_printf(t, "%llu", (unsigned long long)v->v.u);
		if (f != NULL) {
			struct bag_value bv = { .prim = f->prim };
			bv.v.i = v->v.i;   /* the same bits for an unsigned field */
			detail_const_text(t, owner, f, &bv);
		}
		break;
	case BAG_EXPR_FLOAT: bag_text_printf(t, "%.6g", v->v.f); break;
	case BAG_EXPR_TIME:
		bag_text_printf(t, "%s%lld.%09lld", v->v.ns < 0 ? "-" : "", (long long)llabs(v->v.ns / 1000000000),
		                (long long)llabs(v->v.ns % 1000000000));
		break;
	case BAG_EXPR_STRING: bag_text_json_string(t, v->v.s.p, v->v.s.len > 40 ? 40 : v->v.s.len); break;
	}
}

/* The columns changed: a new generation (under the lock, as the worker reads it), no cached cells. */
static void app_columns_changed(struct app *app)
{
	pthread_mutex_lock(&app->cols.lock);
	app->cols.gen = app->cols.gen >= 'a' && app->cols.gen < 'z' ? (char)(app->cols.gen + 1) : 'a';
	pthread_mutex_unlock(&app->cols.lock);
	app_cache_flush(app);
}

/* On the worker: a cell per column for this message, COL_SEP between. */
static void columns_extra(void *arg, size_t bag, size_t conn_index, const uint8_t *data, uint32_t size,
                          int64_t time_ns, struct bag_text *out)
{
	struct app *app = arg;
	size_t ti = conn_index;

	for (size_t b = 0; b < bag && b < app->cb.nbags; b++)
		ti += bag_conn_count(app->cb.bags[b]);
	pthread_mutex_lock(&app->cols.lock);
	if (app->cols.n > 0)
		bag_text_append(out, &app->cols.gen, 1);
	for (int k = 0; k < app->cols.n; k++) {
		struct column *c = &app->cols.c[k];
		struct bag_expr_val v;
		if (k > 0)
			bag_text_append(out, COL_SEP, 1);
		if (c->progs == NULL || c->progs[ti] == NULL)
			continue;
		if (c->tf && !app->cols.tf_bound)
			bag_text_append(out, "\xE2\x80\xA6", 3);
		else if (bag_expr_eval_value(c->progs[ti], data, size, time_ns, &v) == BAG_OK)
			value_text(out, &v, c->owner[ti], c->field[ti]);
		else
			bag_text_append(out, "?", 1);
	}
	pthread_mutex_unlock(&app->cols.lock);
}

static void column_free(struct app *app, struct column *c)
{
	for (size_t i = 0; c->progs != NULL && i < bag_timeline_conn_count(app->cb.tl); i++)
		bag_expr_prog_free(c->progs[i]);
	free(c->progs);
	free(c->owner);
	free(c->field);
	bag_expr_free(c->expr);
	memset(c, 0, sizeof *c);
}

void app_columns_free(struct app *app)
{
	if (app->worker != NULL)
		worker_set_extra(app->worker, NULL, NULL);
	for (int k = 0; k < app->cols.n; k++)
		column_free(app, &app->cols.c[k]);
	app->cols.n = 0;
}

/*
 * The field a plain path (names and [N] indices, '.' between) ends on in
 * def, and the message declaring it: what names its value's constants.
 */
static void path_field(const bag_msgdef_t *def, const char *path, const struct bag_msgdef_type **owner,
                       const struct bag_msgdef_field **field)
{
	const struct bag_msgdef_type *t = bag_msgdef_root(def);

	*owner = NULL;
	*field = NULL;
	while (t != NULL && *path != '\0') {
		size_t n = strcspn(path, ".[");
		const struct bag_msgdef_field *f = NULL;
		for (size_t i = 0; i < t->nfields && f == NULL; i++)
			if (strlen(t->fields[i].name) == n && strncmp(t->fields[i].name, path, n) == 0)
				f = &t->fields[i];
		if (f == NULL)
			return;
		path += n;
		while (*path == '[' && strchr(path, ']') != NULL)
			path = strchr(path, ']') + 1;
		if (*path == '\0') {
			*owner = t;
			*field = f;
			return;
		}
		if (*path++ != '.' || f->prim != BAG_PRIM_MESSAGE)
			return;
		t = f->msg;
	}
}

/* Remove column k (0-based). */
static void column_remove(struct app *app, int k)
{
	pthread_mutex_lock(&app->cols.lock);
	column_free(app, &app->cols.c[k]);
	memmove(&app->cols.c[k], &app->cols.c[k + 1], (size_t)(app->cols.n - k - 1) * sizeof *app->cols.c);
	memset(&app->cols.c[app->cols.n - 1], 0, sizeof *app->cols.c);
	app->cols.n--;
	for (int i = k; i < app->cols.n; i++)   /* path points into text, which moved */
		app->cols.c[i].path = app->cols.c[i].text + strlen(app->cols.c[i].topic) + (app->cols.c[i].topic[0] != '\0');
	pthread_mutex_unlock(&app->cols.lock);
}

/* "-" removes every column, "-N" column N; true when text was such a removal. */
static bool column_removal(struct app *app, const char *text)
{
	struct model *m = &app->m;
	char *end;

	text += strspn(text, " ");
	if (*text != '-' && *text != '\0')
		return false;
	if (*text == '\0' || text[1 + strspn(text + 1, " ")] == '\0') {
		pthread_mutex_lock(&app->cols.lock);
		app_columns_free(app);
		pthread_mutex_unlock(&app->cols.lock);
		snprintf(m->note, sizeof m->note, "columns removed");
	} else {
		long k = strtol(text + 1, &end, 10);
		if (end[strspn(end, " ")] != '\0' || k < 1 || k > app->cols.n) {
			snprintf(m->note, sizeof m->note, "no column %.20s: -1 to -%d remove one, - all", text + 1, app->cols.n);
			return true;
		}
		snprintf(m->note, sizeof m->note, "column %ld (%.100s) removed", k, app->cols.c[k - 1].text);
		column_remove(app, (int)k - 1);
	}
	app_columns_changed(app);
	return true;
}

/* c->text: "/topic.path" as typed, a bare path on the selected message's topic, or a tf() term. */
static bool column_name(struct app *app, struct column *c, const char *text)
{
	struct model *m = &app->m;
	struct bag_message msg;
	const char **topics = calloc(m->ntopics + 1, sizeof *topics);
	size_t pre = 0;

	if (topics == NULL)
		return false;
	for (size_t t = 0; t < m->ntopics; t++)
		topics[t] = m->topics[t].topic;
	if ((c->tf = bag_expr_is_tf_path(text)))
		snprintf(c->text, sizeof c->text, "%s", text);
	else if (text[0] != '/' && model_count(m) > 0 && model_entry(m, m->row, &msg) == BAG_OK)
		snprintf(c->text, sizeof c->text, "%s.%s", msg.conn->topic, text);
	else
		snprintf(c->text, sizeof c->text, "%s", text);
	if (!c->tf)
		pre = bag_expr_topic_prefix(c->text, topics, m->ntopics);
	free(topics);
	if (!c->tf && (pre == 0 || c->text[pre] == '\0')) {
		snprintf(m->note, sizeof m->note,
		         "a column is a topic and a field (/odom.pose.pose.position.x), a field of the selected topic, "
		         "or tf(map,base_link).translation.x");
		return false;
	}
	snprintf(c->topic, sizeof c->topic, "%.*s", (int)pre, c->text);
	c->path = c->text + pre + (c->text[pre] == '.');
	return true;
}

/* Compile c for every connection it shows on; false with a note when it fits none. */
static bool column_compile(struct app *app, struct column *c)
{
	size_t n = bag_timeline_conn_count(app->cb.tl), nsel = 0;
	bag_expr_prog_t **sel = calloc(n + 1, sizeof *sel);
	bool ok = false;

	c->progs = calloc(n + 1, sizeof *c->progs);
	c->owner = calloc(n + 1, sizeof *c->owner);
	c->field = calloc(n + 1, sizeof *c->field);
	if (sel == NULL || c->progs == NULL || c->owner == NULL || c->field == NULL)
		goto done;
	for (size_t i = 0; i < n; i++) {
		const struct bag_connection *conn = bag_timeline_conn(app->cb.tl, i, NULL);
		if (!c->tf && strcmp(conn->topic, c->topic) != 0)
			continue;
		if (bag_expr_compile(&c->progs[i], c->expr, conn, app_def(app, i)) != BAG_OK)
			goto done;
		if (!c->tf)
			path_field(app_def(app, i), c->path, &c->owner[i], &c->field[i]);
		sel[nsel++] = c->progs[i];
	}
	ok = bag_expr_check(c->expr, sel, nsel) == BAG_OK;
	if (!ok)
		snprintf(app->m.note, sizeof app->m.note, "column: %s", bag_expr_error(c->expr)->message);
done:
	free(sel);
	return ok;
}

void app_column_set(struct app *app, const char *text)
{
	struct model *m = &app->m;
	struct column c = { 0 };

	if (column_removal(app, text))
		return;
	if (app->cols.n == MAX_COLUMNS) {
		snprintf(m->note, sizeof m->note, "%d columns at most (C -N removes column N)", MAX_COLUMNS);
		return;
	}
	if (!column_name(app, &c, text + strspn(text, " ")))
		return;
	if (bag_expr_parse_value(&c.expr, c.path, strlen(c.path)) != BAG_OK) {
		snprintf(m->note, sizeof m->note, "column: %s at column %zu", c.expr ? bag_expr_error(c.expr)->message : "out of memory",
		         c.expr ? (size_t)(c.path - c.text) + bag_expr_error(c.expr)->offset + 1 : 0);
		goto done;
	}
	if (!column_compile(app, &c))
		goto done;
	bool failed;
	const bag_tf_t *tf = c.tf && app->cols.tf_bound ? tf_pane_buffer(app, &failed) : NULL;
	if (tf != NULL)   /* built already; a failed build leaves the terms missing */
		bag_expr_set_tf(c.expr, bag_tf_expr_lookup, tf);
	pthread_mutex_lock(&app->cols.lock);
	app->cols.c[app->cols.n] = c;
	app->cols.c[app->cols.n].path = app->cols.c[app->cols.n].text + (c.path - c.text);
	app->cols.n++;
	pthread_mutex_unlock(&app->cols.lock);
	memset(&c, 0, sizeof c);
	worker_set_extra(app->worker, columns_extra, app);
	app_columns_changed(app);
	snprintf(m->note, sizeof m->note, "column %d: %.100s (C -%d removes it)", app->cols.n,
	         app->cols.c[app->cols.n - 1].text, app->cols.n);
done:
	column_free(app, &c);
}

bool app_columns_waiting(struct app *app)
{
	bool any = false, failed = false;
	const bag_tf_t *tf;

	for (int k = 0; k < app->cols.n; k++)
		any |= app->cols.c[k].tf;
	if (!any || app->cols.tf_bound)
		return false;
	if ((tf = tf_pane_buffer(app, &failed)) == NULL && !failed)
		return true;
	if (failed)   /* the terms stay missing ("-") */
		snprintf(app->m.note, sizeof app->m.note, "tf columns: the transforms could not be read (T: why)");
	pthread_mutex_lock(&app->cols.lock);
	for (int k = 0; k < app->cols.n && tf != NULL; k++)
		if (app->cols.c[k].tf)
			bag_expr_set_tf(app->cols.c[k].expr, bag_tf_expr_lookup, tf);
	app->cols.tf_bound = true;
	pthread_mutex_unlock(&app->cols.lock);
	app_columns_changed(app);
	return false;
}
