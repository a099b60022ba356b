/*
 * select.c - the selection options of the subcommands (select.h): one
 * parser for --topic/--type/--start/--end/--filter and one way to make the
 * bag_query. The struct only borrows argv; it owns the topic and type
 * arrays (argc entries each, so every option fits), the parsed filter and,
 * for any_name, the connection mask the query points at.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/select.h"
#include "common/timeparse.h"

int select_init(struct select *s, const char *cmd, int argc)
{
	memset(s, 0, sizeof *s);
	s->cmd = cmd;
	s->topics = calloc((size_t)argc + 1, sizeof *s->topics);
	s->types = calloc((size_t)argc + 1, sizeof *s->types);
	return s->topics != NULL && s->types != NULL ? BAG_OK : BAG_ENOMEM;
}

bool select_option(struct select *s, int opt, const char *arg)
{
	switch (opt) {
	case 't': s->topics[s->ntopics++] = arg; return true;
	case 'y': s->types[s->ntypes++] = arg; return true;
	case 's': s->start = arg; return true;
	case 'e': s->end = arg; return true;
	case 'F': s->filter = arg; return true;
	}
	return false;
}

int select_filter(struct select *s)
{
	if (s->filter == NULL)
		return BAG_OK;
	return bag_expr_parse(&s->expr, s->filter, strlen(s->filter));
}

/* A time argument: 0 with *ns and how it was given (*from), or -1. */
static int parse_bound(const char *arg, int64_t t0, int64_t t1, int64_t *ns, int *from)
{
	struct jump j;
	const char *why;

	if (jump_parse(arg, t0, t1, JUMP_NO_CURSOR, &j, &why) != 0 || j.kind != JUMP_TIME)
		return -1;
	*ns = j.time_ns;
	*from = j.from;
	return 0;
}

int select_parse_time(const char *arg, int64_t t0, int64_t t1, int64_t *ns)
{
	int from;

	return parse_bound(arg, t0, t1, ns, &from);
}

static bool named(const char *name, const char *const *list, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (strcmp(name, list[k]) == 0)
			return true;
	return false;
}

/* The connections whose topic or type is named (all when none is). */
static int any_name_mask(struct select *s, const bag_timeline_t *tl)
{
	size_t n = bag_timeline_conn_count(tl);
	bool all = s->ntopics == 0 && s->ntypes == 0;

	if ((s->mask = calloc(n + 1, sizeof *s->mask)) == NULL)
		return BAG_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct bag_connection *c = bag_timeline_conn(tl, i, NULL);
		s->mask[i] = all || named(c->topic, s->topics, s->ntopics) || named(c->type, s->types, s->ntypes);
	}
	return BAG_OK;
}

int select_query(struct select *s, bag_timeline_t *tl, struct bag_query *q, struct bag_error *err)
{
	int64_t t0 = bag_timeline_start(tl), t1 = bag_timeline_end(tl);
	const char *bad = NULL;

	bag_query_init(q);
	int from[2] = { JUMP_FROM_START, JUMP_FROM_START };
	if (s->start != NULL && parse_bound(s->start, t0, t1, &q->start_ns, &from[0]) != 0)
		bad = s->start;
	else if (s->end != NULL && parse_bound(s->end, t0, t1, &q->end_ns, &from[1]) != 0)
		bad = s->end;
	if (bad == NULL && (from[0] == JUMP_FROM_DATE || from[1] == JUMP_FROM_DATE) &&
	    bag_timeline_bag_count(tl) > 0 && bag_relative_times(bag_timeline_bag(tl, 0))) {
		err->code = BAG_EINVAL;
		err->offset = BAG_NO_OFFSET;
		snprintf(err->message, sizeof err->message, "%s: '%s': this bag has no dates (an old recorder's times "
		         "since it started): give +offset, as +12.5 or +1m30s", s->cmd,
		         from[0] == JUMP_FROM_DATE ? s->start : s->end);
		return BAG_EINVAL;
	}
	if (bad != NULL) {
		err->code = BAG_EINVAL;
		err->offset = BAG_NO_OFFSET;
		snprintf(err->message, sizeof err->message,
		         "%s: '%s' is not a time%s: give epoch seconds (1500000003.25), a date (2020-09-13 12:26:52.5, "
		         "local; a trailing Z for UTC), an offset after the bag's start (+12.5, +5s, 1m30s), before its "
		         "end (-30s) or a fraction of its span (50%%)", s->cmd, bad,
		         strchr("<>", bad[0]) != NULL && bad[0] ? " here (>X and <X move from the browser's selected message)" : "");
		return BAG_EINVAL;
	}
	if (s->start != NULL && s->end != NULL && q->start_ns > q->end_ns) {
		err->code = BAG_EINVAL;
		err->offset = BAG_NO_OFFSET;
		snprintf(err->message, sizeof err->message, "%s: --start %s is after --end %s: nothing lies between",
		         s->cmd, s->start, s->end);
		return BAG_EINVAL;
	}
	if (s->any_name) {
		if (any_name_mask(s, tl) != BAG_OK)
			return BAG_ENOMEM;
		q->conn_mask = s->mask;
		return BAG_OK;
	}
	q->topics = s->topics;
	q->ntopics = s->ntopics;
	q->types = s->types;
	q->ntypes = s->ntypes;
	return BAG_OK;
}

void select_unmatched(const struct select *s, const bag_timeline_t *tl,
                      void (*fn)(void *arg, const char *what, const char *name), void *arg)
{
	size_t n = bag_timeline_conn_count(tl);

	for (int pass = 0; pass < 2; pass++)
		for (size_t k = 0; k < (pass ? s->ntypes : s->ntopics); k++) {
			const char *name = pass ? s->types[k] : s->topics[k];
			bool found = false;
			for (size_t i = 0; i < n && !found; i++) {
				const struct bag_connection *c = bag_timeline_conn(tl, i, NULL);
				found = strcmp(pass ? c->type : c->topic, name) == 0;
			}
			if (!found)
				fn(arg, pass ? "type" : "topic", name);
		}
}

void select_free(struct select *s)
{
	bag_expr_free(s->expr);
	free(s->topics);
	free(s->types);
	free(s->mask);
	memset(s, 0, sizeof *s);
}
