/*
 * columns.c - message paths as list columns (C): "/odom.pose.pose.position.x"
 * is the topic /odom (the longest topic that prefixes it, expr.h's
 * bag_expr_topic_prefix) and the value path after it
 * (bag_expr_parse_value), compiled for each connection of that topic. The
 * decoding worker evaluates them after each summary (worker_set_extra);
 * app->cols is guarded by its lock, as the worker reads it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/app.h"

/* A value as a column shows it. */
static void value_text(struct bag_text *t, const struct bag_expr_val *v)
{
	switch (v->kind) {
	case BAG_EXPR_MISSING: bag_text_append(t, "-", 1); break;
	case BAG_EXPR_BOOL: bag_text_printf(t, "%s", v->v.b ? "true" : "false"); break;
	case BAG_EXPR_INT: bag_text_printf(t, "%lld", (long long)v->v.i); break;
	case BAG_EXPR_UINT: bag_text_printf(t, "%llu", (unsigned long long)v->v.u); break;
	case BAG_EXPR_FLOAT: bag_text_printf(t, "%.6g", v->v.f); break;
	case BAG_EXPR_TIME:
		bag_text_printf(t, "%s%lld.%09lld", v->v.ns < 0 ? "-" : "", (long long)llabs(v->v.ns / 1000000000),
		                (long long)llabs(v->v.ns % 1000000000));
		break;
	case BAG_EXPR_STRING: bag_text_json_string(t, v->v.s.p, v->v.s.len > 40 ? 40 : v->v.s.len); break;
	}
}

/* On the worker: "name=value  " for each column of this message's topic. */
static void columns_extra(void *arg, size_t bag, size_t conn_index, const uint8_t *data, uint32_t size,
                          int64_t time_ns, struct bag_text *out)
{
	struct app *app = arg;
	size_t ti = conn_index;

	for (size_t b = 0; b < bag && b < app->cb.nbags; b++)
		ti += bag_conn_count(app->cb.bags[b]);
	pthread_mutex_lock(&app->cols.lock);
	for (int k = 0; k < app->cols.n; k++) {
		struct column *c = &app->cols.c[k];
		struct bag_expr_val v;
		if (c->progs == NULL || c->progs[ti] == NULL)
			continue;
		const char *name = strrchr(c->path, '.');
		bag_text_printf(out, "%s=", name ? name + 1 : c->path);
		if (bag_expr_eval_value(c->progs[ti], data, size, time_ns, &v) == BAG_OK)
			value_text(out, &v);
		else
			bag_text_append(out, "?", 1);
		bag_text_append(out, "  ", 2);
	}
	pthread_mutex_unlock(&app->cols.lock);
}

static void column_free(struct app *app, struct column *c)
{
	for (size_t i = 0; c->progs != NULL && i < bag_timeline_conn_count(app->cb.tl); i++)
		bag_expr_prog_free(c->progs[i]);
	free(c->progs);
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

void app_column_set(struct app *app, const char *text)
{
	struct model *m = &app->m;
	struct column c = { 0 };
	size_t n = bag_timeline_conn_count(app->cb.tl), nsel = 0;
	const char **topics = calloc(m->ntopics + 1, sizeof *topics);
	bag_expr_prog_t **sel = calloc(n + 1, sizeof *sel);

	if (topics == NULL || sel == NULL)
		goto done;
	if (text[strspn(text, " ")] == '\0') {
		pthread_mutex_lock(&app->cols.lock);
		app_columns_free(app);
		pthread_mutex_unlock(&app->cols.lock);
		app_cache_flush(app);
		snprintf(m->note, sizeof m->note, "columns removed");
		goto done;
	}
	if (app->cols.n == MAX_COLUMNS) {
		snprintf(m->note, sizeof m->note, "%d columns at most (C with nothing removes them)", MAX_COLUMNS);
		goto done;
	}
	for (size_t t = 0; t < m->ntopics; t++)
		topics[t] = m->topics[t].topic;
	snprintf(c.text, sizeof c.text, "%s", text);
	size_t pre = bag_expr_topic_prefix(c.text, topics, m->ntopics);
	if (pre == 0 || c.text[pre] == '\0') {
		snprintf(m->note, sizeof m->note, "a column is a topic and a field: /odom.pose.pose.position.x");
		goto done;
	}
	snprintf(c.topic, sizeof c.topic, "%.*s", (int)pre, c.text);
	c.path = c.text + pre + (c.text[pre] == '.');
	if (bag_expr_parse_value(&c.expr, c.path, strlen(c.path)) != BAG_OK) {
		snprintf(m->note, sizeof m->note, "column: %s at column %zu", c.expr ? bag_expr_error(c.expr)->message : "out of memory",
		         c.expr ? (size_t)(c.path - c.text) + bag_expr_error(c.expr)->offset + 1 : 0);
		goto done;
	}
	if ((c.progs = calloc(n + 1, sizeof *c.progs)) == NULL)
		goto done;
	for (size_t i = 0; i < n; i++) {
		const struct bag_connection *conn = bag_timeline_conn(app->cb.tl, i, NULL);
		if (strcmp(conn->topic, c.topic) != 0)
			continue;
		if (bag_expr_compile(&c.progs[i], c.expr, conn, app_def(app, i)) != BAG_OK)
			goto done;
		sel[nsel++] = c.progs[i];
	}
	if (bag_expr_check(c.expr, sel, nsel) != BAG_OK) {
		snprintf(m->note, sizeof m->note, "column: %s", bag_expr_error(c.expr)->message);
		goto done;
	}
	pthread_mutex_lock(&app->cols.lock);
	app->cols.c[app->cols.n] = c;
	app->cols.c[app->cols.n].path = app->cols.c[app->cols.n].text + (c.path - c.text);
	app->cols.n++;
	pthread_mutex_unlock(&app->cols.lock);
	memset(&c, 0, sizeof c);
	worker_set_extra(app->worker, columns_extra, app);
	app_cache_flush(app);
	snprintf(m->note, sizeof m->note, "column %s added on %s (C with nothing removes the columns)",
	         app->cols.c[app->cols.n - 1].path, app->cols.c[app->cols.n - 1].topic);
done:
	column_free(app, &c);
	free(topics);
	free(sel);
}
