/*
 * log.c - the ROS log (see log.h) on the scan engine.
 *
 * A worker parses each rosgraph_msgs/Log, applies the level and regex
 * filters, and hands emit a packed record: a struct pack, then node, msg,
 * file, function and the topics, each NUL-terminated. Emit, in record-time
 * order, drops a message already given from another connection: a hash
 * set of (64-bit hash of node, stamp and text) -> the connection that gave
 * it first, open addressing, at most half full. A message that repeats on
 * its own connection is given each time.
 */
#define _GNU_SOURCE
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/log.h>
#include <bagscope/scan.h>
#include "lib/common/util-int.h"
#include "lib/robot/wire-int.h"

/* What work hands emit, followed by the strings. */
struct pack {
	int64_t stamp_ns;
	uint64_t hash;
	uint32_t level, line, ntopics;
	uint32_t len[4];            /* node, msg, file, function (without their NULs) */
};

struct seen {
	uint64_t hash;
	uint32_t conn_plus1;        /* 0: empty slot */
};

struct log_scan {
	const struct bag_log_opts *o;
	regex_t node_re, grep_re;
	bool has_node_re, has_grep_re;
	bag_log_fn fn;
	void *arg;
	struct seen *set;
	size_t nset, setcap;        /* setcap a power of two */
	struct bag_log_stats st;
};

BAG_API const char *bag_log_level_name(unsigned level)
{
	switch (level) {
	case BAG_LOG_DEBUG: return "DEBUG";
	case BAG_LOG_INFO: return "INFO";
	case BAG_LOG_WARN: return "WARN";
	case BAG_LOG_ERROR: return "ERROR";
	case BAG_LOG_FATAL: return "FATAL";
	default: return NULL;
	}
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 1099511628211ull;
	return h;
}

/* Append a string and its NUL. */
static void put_str(struct bag_text *t, const char *s, uint32_t n)
{
	bag_text_append(t, s, n);
	bag_text_append(t, "", 1);
}

/* Parse a Log message into out (see top); -1 when it does not parse. */
static int parse(const struct bag_message *m, struct pack *pk, struct bag_text *out)
{
	struct wire w = { m->data, m->size, 0 };
	size_t start = out->len;
	const char *frame, *s[4];
	uint32_t flen;
	uint8_t level;

	if (wire_header(&w, &pk->stamp_ns, &frame, &flen) || wire_bytes(&w, &level, 1))
		return -1;
	for (int k = 0; k < 4; k++)
		if (wire_str(&w, &s[k], &pk->len[k]) != 0 || (k == 3 && wire_u32(&w, &pk->line) != 0))
			return -1;
	if (wire_u32(&w, &pk->ntopics) != 0)
		return -1;
	pk->level = level;
	bag_text_append(out, (const char *)pk, sizeof *pk);
	for (int k = 0; k < 4; k++)
		put_str(out, s[k], pk->len[k]);
	for (uint32_t k = 0; k < pk->ntopics; k++) {
		const char *tp;
		uint32_t tn;
		if (wire_str(&w, &tp, &tn) != 0)
			return -1;
		put_str(out, tp, tn);
	}
	if (out->failed)
		return 0;
	pk->hash = fnv(fnv(fnv(1469598103934665603ull, s[0], pk->len[0]), &pk->stamp_ns, 8), s[1], pk->len[1]);
	memcpy(out->p + start, pk, sizeof *pk);
	return w.off == w.len ? 0 : -1;
}

/* On a worker: parse, then filter. */
static int work(void *arg, const struct bag_message *m, const bag_msgdef_t *def, struct bag_text *out)
{
	struct log_scan *ls = arg;
	size_t start = out->len;   /* out holds the task's earlier messages before this */
	struct pack pk;

	(void)def;
	if (parse(m, &pk, out) != 0) {
		out->len = start;
		bag_text_printf(out, "%s at %lld.%09lld: the message does not parse as a rosgraph_msgs/Log (%u byte%s)",
		                m->conn->topic, (long long)(m->time_ns / BAG_NSEC_PER_SEC),
		                (long long)(m->time_ns % BAG_NSEC_PER_SEC), (unsigned)m->size, BAG_S(m->size));
		return BAG_EDECODE;
	}
	if (out->failed)
		return BAG_ENOMEM;
	const char *node = out->p + start + sizeof pk, *msg = node + pk.len[0] + 1;
	if (pk.level < ls->o->min_level || (ls->has_node_re && regexec(&ls->node_re, node, 0, NULL, 0) != 0) ||
	    (ls->has_grep_re && regexec(&ls->grep_re, msg, 0, NULL, 0) != 0))
		return 1;
	return 0;
}

static int set_grow(struct log_scan *ls)
{
	size_t cap = ls->setcap ? ls->setcap * 2 : 1024;
	struct seen *s = calloc(cap, sizeof *s);
	if (s == NULL)
		return BAG_ENOMEM;
	for (size_t i = 0; i < ls->setcap; i++) {
		if (ls->set[i].conn_plus1 == 0)
			continue;
		size_t j = (size_t)ls->set[i].hash & (cap - 1);
		while (s[j].conn_plus1 != 0)
			j = (j + 1) & (cap - 1);
		s[j] = ls->set[i];
	}
	free(ls->set);
	ls->set = s;
	ls->setcap = cap;
	return 0;
}

/* 1 when hash was first given by another connection; else notes it and returns 0. */
static int duplicate(struct log_scan *ls, uint64_t hash, uint32_t conn)
{
	if (2 * (ls->nset + 1) > ls->setcap && set_grow(ls) != 0)
		return BAG_ENOMEM;
	size_t j = (size_t)hash & (ls->setcap - 1);
	for (; ls->set[j].conn_plus1 != 0; j = (j + 1) & (ls->setcap - 1))
		if (ls->set[j].hash == hash)
			return ls->set[j].conn_plus1 != conn + 1;
	ls->set[j] = (struct seen){ hash, conn + 1 };
	ls->nset++;
	return 0;
}

static int emit(void *arg, const struct bag_scan_item *it)
{
	struct log_scan *ls = arg;
	struct pack pk;
	int dup;

	if (it->rc != BAG_OK) {
		if (it->rc == BAG_ENOMEM)
			return BAG_ENOMEM;
		if (ls->st.bad++ == 0)
			snprintf(ls->st.first_bad, sizeof ls->st.first_bad, "%.*s", (int)it->len, it->text);
		return 0;
	}
	memcpy(&pk, it->text, sizeof pk);
	if ((dup = duplicate(ls, pk.hash, it->m->conn_index)) != 0) {
		ls->st.duplicates += dup > 0;
		return dup < 0 ? dup : 0;
	}
	struct bag_log_entry e = { .time_ns = it->m->time_ns, .stamp_ns = pk.stamp_ns, .level = pk.level,
	                           .node = it->text + sizeof pk };
	e.msg = e.node + pk.len[0] + 1;
	e.file = e.msg + pk.len[1] + 1;
	e.function = e.file + pk.len[2] + 1;
	e.line = pk.line;
	e.topics = e.function + pk.len[3] + 1;
	e.ntopics = pk.ntopics;
	e.conn = it->m->conn;
	ls->st.shown++;
	return ls->fn(ls->arg, &e);
}

/* Compile a filter regex; 0, or BAG_EINVAL with the reason in err. */
static int compile(regex_t *re, bool *has, const char *src, const char *what, struct bag_error *err)
{
	int rc;
	if (src == NULL)
		return 0;
	if ((rc = regcomp(re, src, REG_EXTENDED | REG_NOSUB)) != 0) {
		char why[128];
		regerror(rc, re, why, sizeof why);
		return bag_error_say(err, BAG_EINVAL, "%s regex: %s", what, why);
	}
	*has = true;
	return 0;
}

/* The view of every Log connection in the window. */
static int open_view(bag_timeline_t *tl, const struct bag_log_opts *o, bag_view_t **v, struct bag_error *err)
{
	static const char *const types[] = { "rosgraph_msgs/Log" };
	struct bag_query q;
	int rc;

	bag_query_init(&q);
	q.types = types;
	q.ntypes = 1;
	if (o->start_ns != 0 || o->end_ns != 0) {
		q.start_ns = o->start_ns;
		q.end_ns = o->end_ns;
	}
	if ((rc = bag_view_open(v, tl, &q)) != 0)
		bag_error_copy(err, bag_view_error(*v));
	return rc;
}

BAG_API int bag_log_scan(bag_timeline_t *tl, const struct bag_log_opts *opts, bag_log_fn fn, void *arg,
                         struct bag_log_stats *st, struct bag_error *err)
{
	struct bag_log_opts o = BAG_LOG_OPTS_INIT;
	struct log_scan ls = { .o = &o, .fn = fn, .arg = arg };
	struct bag_scan_opts so = { .size = sizeof so, .work = work, .emit = emit, .arg = &ls };
	struct bag_scan_stats sst = { 0 };
	bag_view_t *v = NULL;
	int rc;

	bag_error_clear(err);
	if ((rc = bag_opts_read(&o, sizeof o, opts)) != BAG_OK)
		return bag_error_say(err, rc, "bag_log_scan: options of an unknown size");
	so.threads = o.threads;
	so.progress = o.progress;
	so.progress_arg = o.progress_arg;
	if ((rc = compile(&ls.node_re, &ls.has_node_re, o.node_regex, "node", err)) != 0 ||
	    (rc = compile(&ls.grep_re, &ls.has_grep_re, o.grep_regex, "grep", err)) != 0 ||
	    (rc = open_view(tl, &o, &v, err)) != 0)
		goto fail;
	rc = bag_scan(v, &so, &sst);
	if (rc == BAG_ENOMEM)
		bag_error_say(err, rc, "out of memory");
	else if (rc != BAG_OK && bag_view_error(v)->code != BAG_OK)
		bag_error_copy(err, bag_view_error(v));
	else if (rc != BAG_OK)
		bag_error_say(err, rc, "%s", bag_strerror(rc));
fail:
	ls.st.messages = sst.rows;
	if (st != NULL)
		*st = ls.st;
	if (ls.has_node_re)
		regfree(&ls.node_re);
	if (ls.has_grep_re)
		regfree(&ls.grep_re);
	free(ls.set);
	bag_view_free(v);
	return rc;
}
