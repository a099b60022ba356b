/*
 * diag.c - diagnostics per status (see diag.h) on the scan engine.
 *
 * A worker parses a DiagnosticArray (or a lone DiagnosticStatus), drops
 * the statuses whose name fails the regex, and hands emit packed records:
 * a struct pack, then name, hardware_id, message and each key and value,
 * all NUL-terminated. Emit, in record-time order, finds the status by
 * (name, hardware_id) in a key index (keyidx-int.h) and, when its
 * level differs from the last one (or it is new), appends a transition: one
 * allocation holding the key/value array and the strings it points to.
 * Transitions of a status are therefore in record-time order and two in a
 * row never have the same level.
 */
#define _GNU_SOURCE
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/diag.h>
#include <bagscope/scan.h>
#include "lib/common/util-int.h"
#include "lib/robot/wire-int.h"
#include "lib/robot/keyidx-int.h"

struct pack {
	uint32_t level;
	uint32_t nvalues;
	uint32_t bytes;            /* of the strings that follow */
};

struct status {
	char *name, *hw, *topic;   /* name and hw: one allocation, "name\0hw" (the key) */
	uint64_t messages;
	unsigned worst;
	int64_t first_ns, last_ns;
	struct bag_diag_transition *tr;  /* each tr[k].values is its own allocation, strings after it */
	size_t ntr, trcap;
};

struct bag_diag {
	struct status *s;
	size_t n, cap;
	struct keyidx idx;         /* statuses by name and hardware id */
	regex_t re;
	bool has_re;
	uint64_t bad;
	char first_bad[200];
	struct bag_error err;
};

BAG_API const char *bag_diag_level_name(unsigned level)
{
	static const char *const names[] = { "OK", "WARN", "ERROR", "STALE" };
	return level < 4 ? names[level] : NULL;
}

static void put_str(struct bag_text *t, const char *s, uint32_t n)
{
	bag_text_append(t, s, n);
	bag_text_append(t, "", 1);
}

/* One DiagnosticStatus into out, unless its name fails the regex; -1: does not parse. */
static int parse_status(const bag_diag_t *d, struct wire *w, struct bag_text *out)
{
	size_t start = out->len;
	struct pack pk = { 0 };
	const char *s;
	uint32_t n;
	uint8_t level;

	if (wire_bytes(w, &level, 1) != 0)
		return -1;
	pk.level = level;
	bag_text_append(out, (const char *)&pk, sizeof pk);
	for (int k = 0; k < 3; k++) {
		if (wire_str(w, &s, &n) != 0)
			return -1;
		put_str(out, s, n);
	}
	if (wire_u32(w, &pk.nvalues) != 0)
		return -1;
	for (uint32_t k = 0; k < 2 * pk.nvalues; k++) {
		if (wire_str(w, &s, &n) != 0)
			return -1;
		put_str(out, s, n);
	}
	if (out->failed)
		return 0;
	pk.bytes = (uint32_t)(out->len - start - sizeof pk);
	memcpy(out->p + start, &pk, sizeof pk);
	if (d->has_re && regexec(&d->re, out->p + start + sizeof pk, 0, NULL, 0) != 0)
		out->len = start;
	return 0;
}

static int work(void *arg, const struct bag_message *m, const bag_msgdef_t *def, struct bag_text *out)
{
	const bag_diag_t *d = arg;
	struct wire w = { m->data, m->size, 0 };
	size_t start = out->len;   /* out holds the task's earlier messages before this */
	bool array = strcmp(m->conn->type, "diagnostic_msgs/DiagnosticArray") == 0;
	uint32_t n = 1, flen;
	const char *frame;
	int64_t stamp;

	(void)def;
	if (array && (wire_header(&w, &stamp, &frame, &flen) != 0 || wire_u32(&w, &n) != 0))
		goto bad;
	for (uint32_t k = 0; k < n; k++)
		if (parse_status(d, &w, out) != 0)
			goto bad;
	if (w.off != w.len)
		goto bad;
	return out->failed ? BAG_ENOMEM : 0;
bad:
	out->len = start;
	bag_text_printf(out, "%s at %lld.%09lld: the message does not parse as a %s (%u byte%s)", m->conn->topic,
	                (long long)(m->time_ns / BAG_NSEC_PER_SEC), (long long)(m->time_ns % BAG_NSEC_PER_SEC),
	                m->conn->type, (unsigned)m->size, BAG_S(m->size));
	return BAG_EDECODE;
}

/* A status's key: its name, a NUL, its hardware id (one allocation, s->name). */
static const char *status_key(const void *ctx, uint32_t i, size_t *len)
{
	const struct status *s = &((const bag_diag_t *)ctx)->s[i];
	*len = strlen(s->name) + 1 + strlen(s->hw);
	return s->name;
}

/* The status (name, hw), added when new; NULL without memory. */
static struct status *find(bag_diag_t *d, const char *name, const char *hw, const char *topic)
{
	size_t nlen = strlen(name), len = nlen + 1 + strlen(hw);
	char small[256], *key = len < sizeof small ? small : malloc(len + 1);
	struct status *s = NULL;

	if (key == NULL || keyidx_reserve(&d->idx, d->n + 1, status_key, d) != 0)
		goto out;
	memcpy(key, name, nlen + 1);
	memcpy(key + nlen + 1, hw, len - nlen);
	size_t i = keyidx_slot(&d->idx, key, len, status_key, d);
	if (d->idx.slot[i] != 0) {
		s = &d->s[d->idx.slot[i] - 1];
		goto out;
	}
	if (bag_grow((void **)&d->s, &d->cap, d->n + 1, sizeof *d->s) != 0)
		goto out;
	s = &d->s[d->n];
	memset(s, 0, sizeof *s);
	if ((s->name = malloc(len + 1)) == NULL || (s->topic = strdup(topic)) == NULL) {
		free(s->name);
		s = NULL;
		goto out;
	}
	memcpy(s->name, key, len + 1);
	s->hw = s->name + nlen + 1;
	d->idx.slot[i] = (uint32_t)++d->n;
out:
	if (key != small)
		free(key);
	return s;
}

/* A transition from a report: one allocation, the kv array, then message and kv strings. */
static int add_transition(struct status *s, const struct pack *pk, const char *msg, const char *kv, int64_t t)
{
	const char *end = kv;
	char *p;

	if (bag_grow((void **)&s->tr, &s->trcap, s->ntr + 1, sizeof *s->tr) != 0)
		return BAG_ENOMEM;
	for (uint32_t k = 0; k < 2 * pk->nvalues; k++)
		end += strlen(end) + 1;
	size_t mlen = strlen(msg) + 1, kvbytes = (size_t)(end - kv);
	struct bag_diag_kv *v = malloc(pk->nvalues * sizeof *v + mlen + kvbytes);
	if (v == NULL)
		return BAG_ENOMEM;
	p = (char *)(v + pk->nvalues);
	memcpy(p, msg, mlen);
	memcpy(p + mlen, kv, kvbytes);
	s->tr[s->ntr++] = (struct bag_diag_transition){ t, pk->level, p, pk->nvalues, v };
	p += mlen;
	for (uint32_t k = 0; k < pk->nvalues; k++) {
		v[k].key = p;
		p += strlen(p) + 1;
		v[k].value = p;
		p += strlen(p) + 1;
	}
	return 0;
}

/* One packed report (strings: name, message, hardware_id, keys and values) at record time t. */
static int report(bag_diag_t *d, const struct pack *pk, const char *name, int64_t t, const char *topic)
{
	const char *msg = name + strlen(name) + 1, *hw = msg + strlen(msg) + 1, *kv = hw + strlen(hw) + 1;
	struct status *s = find(d, name, hw, topic);

	if (s == NULL)
		return BAG_ENOMEM;
	if (s->messages++ == 0)
		s->first_ns = t;
	s->last_ns = t;
	s->worst = pk->level > s->worst ? pk->level : s->worst;
	if (s->ntr > 0 && s->tr[s->ntr - 1].level == pk->level)
		return 0;
	return add_transition(s, pk, msg, kv, t);
}

static int emit(void *arg, const struct bag_scan_item *it)
{
	bag_diag_t *d = arg;
	int rc = 0;

	if (it->rc != BAG_OK) {
		if (it->rc == BAG_ENOMEM)
			return BAG_ENOMEM;
		if (d->bad++ == 0)
			snprintf(d->first_bad, sizeof d->first_bad, "%.*s", (int)it->len, it->text);
		return 0;
	}
	for (size_t off = 0; rc == 0 && it->len - off >= sizeof(struct pack);) {
		struct pack pk;
		memcpy(&pk, it->text + off, sizeof pk);
		rc = report(d, &pk, it->text + off + sizeof pk, it->m->time_ns, it->m->conn->topic);
		off += sizeof pk + pk.bytes;
	}
	return rc;
}

BAG_API int bag_diag_build(bag_diag_t **out, bag_timeline_t *tl, const struct bag_diag_opts *opts)
{
	static const char *const types[] = { "diagnostic_msgs/DiagnosticArray", "diagnostic_msgs/DiagnosticStatus" };
	struct bag_diag_opts o = BAG_DIAG_OPTS_INIT;
	struct bag_scan_opts so = { .size = sizeof so, .work = work, .emit = emit };
	struct bag_query q;
	bag_view_t *v = NULL;
	bag_diag_t *d;
	int rc;

	if ((*out = d = calloc(1, sizeof *d)) == NULL)
		return BAG_ENOMEM;
	bag_error_clear(&d->err);
	if ((rc = bag_opts_read(&o, sizeof o, opts)) != BAG_OK)
		return bag_error_say(&d->err, rc, "bag_diag_build: options of an unknown size");
	if (o.name_regex != NULL && (rc = regcomp(&d->re, o.name_regex, REG_EXTENDED | REG_NOSUB)) != 0) {
		char why[128];
		regerror(rc, &d->re, why, sizeof why);
		return bag_error_say(&d->err, BAG_EINVAL, "name regex: %s", why);
	}
	d->has_re = o.name_regex != NULL;
	bag_query_init(&q);
	q.types = types;
	q.ntypes = 2;
	so.arg = d;
	so.threads = o.threads;
	so.progress = o.progress;
	so.progress_arg = o.progress_arg;
	if ((rc = bag_view_open(&v, tl, &q)) == BAG_OK)
		rc = bag_scan(v, &so, NULL);
	if (rc == BAG_ENOMEM)
		bag_error_say(&d->err, rc, "out of memory");
	else if (rc != BAG_OK && v != NULL && bag_view_error(v)->code != BAG_OK)
		bag_error_copy(&d->err, bag_view_error(v));
	else if (rc != BAG_OK)
		bag_error_say(&d->err, rc, "%s", bag_strerror(rc));
	bag_view_free(v);
	return rc;
}

BAG_API void bag_diag_free(bag_diag_t *d)
{
	if (d == NULL)
		return;
	for (size_t i = 0; i < d->n; i++) {
		for (size_t k = 0; k < d->s[i].ntr; k++)
			free((void *)d->s[i].tr[k].values);
		free(d->s[i].tr);
		free(d->s[i].name);
		free(d->s[i].topic);
	}
	if (d->has_re)
		regfree(&d->re);
	free(d->s);
	free(d->idx.slot);
	free(d);
}

BAG_API const struct bag_error *bag_diag_error(const bag_diag_t *d)
{
	return d != NULL ? &d->err : &bag_error_nomem;
}

BAG_API uint64_t bag_diag_bad(const bag_diag_t *d, const char **first)
{
	if (first != NULL)
		*first = d->first_bad;
	return d->bad;
}

BAG_API size_t bag_diag_count(const bag_diag_t *d)
{
	return d->n;
}

BAG_API void bag_diag_status(const bag_diag_t *d, size_t i, struct bag_diag_status *out)
{
	const struct status *s = &d->s[i];

	memset(out, 0, sizeof *out);
	out->name = s->name;
	out->hardware_id = s->hw;
	out->topic = s->topic;
	out->messages = s->messages;
	out->worst = s->worst;
	out->last = s->ntr ? s->tr[s->ntr - 1].level : 0;
	out->first_ns = s->first_ns;
	out->last_ns = s->last_ns;
	out->ntransitions = s->ntr;
	for (size_t k = 0; k < s->ntr; k++) {
		int64_t until = k + 1 < s->ntr ? s->tr[k + 1].time_ns : s->last_ns;
		if (s->tr[k].level < 4)
			out->time_in_level[s->tr[k].level] += until - s->tr[k].time_ns;
	}
}

BAG_API const struct bag_diag_transition *bag_diag_transition(const bag_diag_t *d, size_t i, size_t k)
{
	return i < d->n && k < d->s[i].ntr ? &d->s[i].tr[k] : NULL;
}
