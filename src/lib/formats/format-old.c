/*
 * format-old.c - what the readers of bags older than 2.0 share (see
 * format-int.h): telling the formats apart by their first bytes, the map
 * from a record's key to its connection, connections built from the
 * strings a record names, spans of records cut into chunks, the scan of
 * record headers, definitions looked up in .msg files, and the translation
 * of a span's records into 2.0 message records when a chunk is read.
 *
 * Invariants after an open: connection i has id i (order of discovery) and
 * is found under its record key in f->conns; chunks are in file order, each
 * covering the bytes [pos, index_end) that hold its messages, no_index and
 * stat_loaded, with per-connection counts sorted by connection; a span's
 * translation holds exactly the messages of its records whose key is in
 * f->conns, in file order.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <bagscope/msgdef.h>
#include "lib/formats/format-int.h"
#include "lib/common/util-int.h"

#define OLD_WINDOW ((size_t)1 << 20)         /* a scan reads this much at once */
#define PROGRESS_STEP ((uint64_t)1 << 20)
#define RELATIVE_MAX ((int64_t)100000000 * BAG_NSEC_PER_SEC)  /* 1973: durations, not dates */

/* ---- the key map ---------------------------------------------------------- */

struct strmap_slot {
	uint64_t hash;            /* 0: empty */
	size_t off;               /* key in the arena */
	size_t len;
	uint32_t val;
};

static uint64_t key_hash(const void *key, size_t len)
{
	const uint8_t *p = key;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h ? h : 1;
}

long strmap_get(const struct strmap *m, const void *key, size_t len)
{
	uint64_t h = key_hash(key, len);

	if (m->cap == 0)
		return -1;
	for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		const struct strmap_slot *s = &m->slots[i];
		if (s->hash == 0)
			return -1;
		if (s->hash == h && s->len == len && memcmp(m->arena + s->off, key, len) == 0)
			return s->val;
	}
}

static void slot_insert(struct strmap_slot *slots, size_t cap, const struct strmap_slot *s)
{
	size_t i = s->hash & (cap - 1);

	while (slots[i].hash != 0)
		i = (i + 1) & (cap - 1);
	slots[i] = *s;
}

int strmap_put(struct strmap *m, const void *key, size_t len, uint32_t val)
{
	struct strmap_slot s = { key_hash(key, len), m->arena_len, len, val };

	if ((m->n + 1) * 2 > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 16;
		struct strmap_slot *ns = calloc(ncap, sizeof *ns);
		if (ns == NULL)
			return BAG_ENOMEM;
		for (size_t i = 0; i < m->cap; i++)
			if (m->slots[i].hash != 0)
				slot_insert(ns, ncap, &m->slots[i]);
		free(m->slots);
		m->slots = ns;
		m->cap = ncap;
	}
	if (bag_grow((void **)&m->arena, &m->arena_cap, m->arena_len + len + 1, 1) != BAG_OK)
		return BAG_ENOMEM;
	memcpy(m->arena + m->arena_len, key, len);
	m->arena_len += len;
	slot_insert(m->slots, m->cap, &s);
	m->n++;
	return BAG_OK;
}

void strmap_free(struct strmap *m)
{
	free(m->slots);
	free(m->arena);
	memset(m, 0, sizeof *m);
}

void old_free(void *state)
{
	struct oldfmt *f = state;

	if (f == NULL)
		return;
	strmap_free(&f->conns);
	free(f);
}

/* ---- connections ---------------------------------------------------------- */

/* Copy len bytes to *at as a NUL-terminated string; advance *at past it. */
static const char *put_str(char **at, const void *p, size_t len)
{
	char *s = *at;

	if (len > 0)
		memcpy(s, p, len);
	s[len] = '\0';
	*at += len + 1;
	return s;
}

/* Build c from d: the fields array, then every name and value (conn.c's layout). */
static int conn_build(struct bag_connection *c, uint32_t id, const struct old_conn_desc *d)
{
	struct { const char *name; const char *v; size_t len; } f[6] = {
		{ "topic", d->topic, d->topic_len }, { "type", d->type, d->type_len },
		{ "md5sum", d->md5, d->md5_len }, { "message_definition", d->def, d->def_len },
		{ "callerid", d->callerid, d->callerid_len }, { "latching", d->latching ? "1" : NULL, 1 },
	};
	size_t n = 0, bytes = d->topic_len + 1;
	struct bag_kv *kv;
	char *at;

	for (size_t i = 0; i < 6; i++)
		if (f[i].v != NULL)
			bytes += strlen(f[i].name) + f[i].len + 2, n++;
	kv = malloc(n * sizeof *kv + bytes);
	if (kv == NULL)
		return BAG_ENOMEM;
	memset(c, 0, sizeof *c);
	at = (char *)(kv + n);
	c->id = c->index = id;
	c->fields = kv;
	c->topic = put_str(&at, d->topic, d->topic_len);
	c->type = c->md5sum = c->definition = c->callerid = "";
	for (size_t i = 0; i < 6; i++) {
		if (f[i].v == NULL)
			continue;
		kv[c->nfields].name = put_str(&at, f[i].name, strlen(f[i].name));
		kv[c->nfields].value = put_str(&at, f[i].v, f[i].len);
		kv[c->nfields].value_len = f[i].len;
		if (i == 1)
			c->type = kv[c->nfields].value;
		else if (i == 2)
			c->md5sum = kv[c->nfields].value;
		else if (i == 3)
			c->definition = kv[c->nfields].value;
		else if (i == 4)
			c->callerid = kv[c->nfields].value;
		c->nfields++;
	}
	c->latching = d->latching;
	return BAG_OK;
}

int old_conn_add(bag_t *bag, size_t *cap, const struct old_conn_desc *d)
{
	if (bag->nconns >= UINT32_MAX - 1 ||
	    bag_grow((void **)&bag->conns, cap, bag->nconns + 1, sizeof *bag->conns) != BAG_OK ||
	    conn_build(&bag->conns[bag->nconns], (uint32_t)bag->nconns, d) != BAG_OK)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	bag->nconns++;
	return BAG_OK;
}

int old_conn_replace(bag_t *bag, size_t i, const struct old_conn_desc *d)
{
	struct bag_connection *c = &bag->conns[i], n;

	if (conn_build(&n, c->id, d) != BAG_OK)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	n.message_count = c->message_count;
	bag_conn_free(c);
	*c = n;
	return BAG_OK;
}

void old_conn_desc_of(const struct bag_connection *c, struct old_conn_desc *d)
{
	*d = (struct old_conn_desc){
		c->topic, strlen(c->topic), c->type, strlen(c->type), c->md5sum, strlen(c->md5sum),
		bag_conn_has_definition(c) ? c->definition : NULL, strlen(c->definition),
		c->callerid[0] ? c->callerid : NULL, strlen(c->callerid),
		c->latching,
	};
}

/* ---- chunks --------------------------------------------------------------- */

int old_chunk_add(bag_t *bag, size_t *chunk_cap, size_t *cc_cap, uint64_t pos, uint64_t end,
                  int64_t t0, int64_t t1, const struct chunk_conn *cc, size_t n)
{
	struct chunk *ch;

	if (bag_grow((void **)&bag->chunks, chunk_cap, bag->nchunks + 1, sizeof *bag->chunks) != BAG_OK ||
	    bag_grow((void **)&bag->chunk_conns, cc_cap, bag->nchunk_conns + n, sizeof *bag->chunk_conns) != BAG_OK)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	ch = &bag->chunks[bag->nchunks++];
	memset(ch, 0, sizeof *ch);
	ch->pos = ch->data_pos = pos;
	ch->index_end = end;
	ch->data_len = end - pos > UINT32_MAX ? UINT32_MAX : (uint32_t)(end - pos);
	ch->start_ns = t0;
	ch->end_ns = t1;
	ch->no_index = true;
	ch->stat_loaded = true;
	ch->compression = BAG_COMPRESSION_NONE;
	ch->lru_prev = ch->lru_next = NO_CHUNK;
	ch->conn_first = (uint32_t)bag->nchunk_conns;
	ch->conn_n = (uint32_t)n;
	for (size_t k = 0; k < n; k++) {
		bag->chunk_conns[bag->nchunk_conns++] = cc[k];
		bag->conns[cc[k].conn].message_count += cc[k].count;
		ch->count += cc[k].count;
	}
	bag_count_chunk(bag, ch);
	return BAG_OK;
}

static int cmp_cc(const void *a, const void *b)
{
	const struct chunk_conn *x = a, *y = b;
	return (x->conn > y->conn) - (x->conn < y->conn);
}

int spans_cut(struct spans *s, uint64_t end)
{
	int rc = BAG_OK;

	if (s->count > 0) {
		bag_sort(s->cur, s->ncur, sizeof *s->cur, cmp_cc);
		rc = old_chunk_add(s->bag, &s->chunk_cap, &s->cc_cap, s->pos, end, s->t0, s->t1, s->cur, s->ncur);
	}
	s->nspan++;
	s->ncur = 0;
	s->count = 0;
	s->raw = s->out = 0;
	s->pos = end;
	return rc;
}

int spans_add(struct spans *s, uint64_t pos, uint64_t size, uint32_t data_len, uint32_t conn, int64_t t)
{
	uint64_t rec_out = OLD_MSG_BYTES + 8 + (uint64_t)data_len;
	int rc;

	/* a span stays under OLD_SPAN_BYTES where it can, and its translation under 4 GiB */
	if (s->count > 0 && (s->raw >= OLD_SPAN_BYTES || s->out + rec_out > UINT32_MAX - 1) &&
	    (rc = spans_cut(s, pos)) != BAG_OK)
		return rc;
	if (s->count == 0)
		s->pos = pos;
	if (conn >= s->slot_cap) {
		size_t old = s->slot_cap, c2 = s->slot_cap;
		if (bag_grow((void **)&s->slot, &c2, (size_t)conn + 1, sizeof *s->slot) != BAG_OK ||
		    bag_grow((void **)&s->slot_span, &old, (size_t)conn + 1, sizeof *s->slot_span) != BAG_OK)
			return bag_fail(s->bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
		memset(s->slot_span + s->slot_cap, 0, (old - s->slot_cap) * sizeof *s->slot_span);
		s->slot_cap = old;
	}
	if (s->slot_span[conn] != s->nspan + 1) {
		if (bag_grow((void **)&s->cur, &s->cur_cap, s->ncur + 1, sizeof *s->cur) != BAG_OK)
			return bag_fail(s->bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
		s->slot_span[conn] = s->nspan + 1;
		s->slot[conn] = (uint32_t)s->ncur;
		s->cur[s->ncur++] = (struct chunk_conn){ conn, 0 };
	}
	s->cur[s->slot[conn]].count++;
	if (s->count == 0 || t < s->t0)
		s->t0 = t;
	if (s->count == 0 || t > s->t1)
		s->t1 = t;
	s->count++;
	s->raw = pos + size - s->pos;
	s->out += rec_out;
	return BAG_OK;
}

void spans_free(struct spans *s)
{
	free(s->cur);
	free(s->slot);
	free(s->slot_span);
}

int old_progress(bag_t *bag, uint64_t done, uint64_t *last)
{
	if (bag->progress == NULL || (done - *last < PROGRESS_STEP && done != bag->file_size && done != 0))
		return BAG_OK;
	*last = done;
	if (bag->progress(bag->progress_arg, done, bag->file_size) != 0)
		return bag_fail(bag, BAG_ECANCELED, done, "scan cancelled");
	return BAG_OK;
}

/* ---- the scan ------------------------------------------------------------- */

/* Parse with the bag's format. */
static int parse_rec(const struct oldfmt *f, const uint8_t *p, size_t avail, struct old_rec *r, char *why,
                     size_t whylen)
{
	return f->parse(f, p, avail, r, why, whylen);
}

/* Note bytes [start, end) as lost, one line. */
int old_add_loss(bag_t *bag, uint64_t start, uint64_t end, const char *what)
{
	struct bag_loss *l = realloc(bag->losses, (bag->nlosses + 1) * sizeof *l);

	if (l == NULL)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	bag->losses = l;
	l += bag->nlosses;
	l->start = start;
	l->end = end;
	l->chunk_pos = UINT64_MAX;
	if ((l->what = strdup(what)) == NULL)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	bag->nlosses++;
	return BAG_OK;
}

int old_scan(bag_t *bag, uint64_t from, old_rec_fn fn, void *arg, uint64_t *end)
{
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, want = OLD_WINDOW;
	uint64_t wpos = from, pos = from, last = 0, nrec = 0;
	char why[256] = "", line[BAG_ERROR_MESSAGE_MAX];
	int rc = BAG_OK;

	if ((rc = old_progress(bag, 0, &last)) != BAG_OK)
		goto fail;
	while (pos < bag->file_size) {
		struct old_rec r;
		bool inside = buf != NULL && pos >= wpos && pos - wpos <= len;
		size_t off = inside ? (size_t)(pos - wpos) : 0, avail = inside ? len - off : 0;

		rc = inside ? parse_rec(old_of(bag), buf + off, avail, &r, why, sizeof why) : BAG_ETRUNCATED;
		if (rc == BAG_ETRUNCATED && !(inside && off == 0 && wpos + len >= bag->file_size)) {
			/* read on from pos: a window, or a longer one if a header needs it */
			if (inside && off == 0 && len > 0)
				want = len * 2;
			uint64_t n = bag->file_size - pos < want ? bag->file_size - pos : want;
			if (bag_grow((void **)&buf, &cap, (size_t)n, 1) != BAG_OK) {
				rc = bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
				goto fail;
			}
			if ((rc = bag_read_at(bag, pos, buf, (size_t)n)) != BAG_OK)
				goto fail;
			wpos = pos;
			len = (size_t)n;
			want = OLD_WINDOW;
			if ((rc = old_progress(bag, pos, &last)) != BAG_OK)
				goto fail;
			continue;
		}
		if (rc == BAG_ETRUNCATED || (rc == BAG_OK && r.size > bag->file_size - pos)) {
			snprintf(line, sizeof line, "the last record runs past the end of the file (cut off): "
			         "%llu record%s before it read, its %llu byte%s ignored", (unsigned long long)nrec, BAG_S(nrec),
			         (unsigned long long)(bag->file_size - pos), BAG_S((bag->file_size - pos)));
			rc = BAG_ETRUNCATED;
		} else if (rc == BAG_ECORRUPT) {
			snprintf(line, sizeof line, "%s; the %llu byte%s from here to the end of the file are not read",
			         why, (unsigned long long)(bag->file_size - pos), BAG_S((bag->file_size - pos)));
		}
		if (rc == BAG_ETRUNCATED || rc == BAG_ECORRUPT) {
			/* a recovery's losses are its report; otherwise a warning says it */
			if ((!bag->recovery.recovered && (rc = bag_warn(bag, pos, "%s", line)) != BAG_OK) ||
			    (rc = old_add_loss(bag, pos, bag->file_size, line)) != BAG_OK)
				goto fail;
			break;
		}
		if ((rc = fn(arg, &r, pos)) != BAG_OK)
			goto fail;
		pos += r.size;
		nrec++;
	}
	rc = old_progress(bag, bag->file_size, &last);
fail:
	*end = pos;
	free(buf);
	return rc;
}

/* ---- definitions from .msg files ------------------------------------------ */

static bool is_md5(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++)
		if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f') || (s[n] >= 'A' && s[n] <= 'F')))
			return false;
	return n == 32;
}

/* What looking a type up gave, kept so that each type is looked up once. */
struct def_result {
	int rc;
	char *text;
	char *file;
	char md5[33];
	struct bag_error err;     /* why there is no usable definition */
	uint64_t conns;           /* connections it was wanted for */
	size_t first;             /* the first of them */
};

/* The directories searched, for a note ("A, B, C"). */
static void dirs_text(char *buf, size_t len, const char *const *dirs, size_t n)
{
	size_t at = 0;

	buf[0] = '\0';
	if (n == 0)
		snprintf(buf, len, "no directory (none given)");
	for (size_t i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "", dirs[i]);
}

/* Look type up for result d (first used by connection i): its text, file and recomputed md5. */
static int def_lookup(bag_t *bag, const char *const *dirs, size_t ndirs, const char *type, struct def_result *d)
{
	if (strcmp(type, "*") == 0 || type[0] == '\0' || strchr(type, '/') == NULL) {
		d->rc = BAG_ENOTFOUND;
		return BAG_OK;
	}
	d->rc = bag_msgfile_text(dirs, ndirs, type, &d->text, &d->file, &d->err);
	if (d->rc == BAG_ENOMEM)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	if (d->rc == BAG_OK) {
		bag_msgdef_t *def = NULL;
		d->rc = bag_msgdef_parse(&def, type, d->text, strlen(d->text));
		if (d->rc == BAG_OK)
			snprintf(d->md5, sizeof d->md5, "%s", bag_msgdef_md5(def));
		else
			bag_error_copy(&d->err, bag_msgdef_error(def));
		bag_msgdef_free(def);
	}
	return BAG_OK;
}

/* Give connection i the definition d found, when its md5 agrees (else one warning). */
static int def_apply(bag_t *bag, size_t i, const struct def_result *d)
{
	const struct bag_connection *c = &bag->conns[i];
	struct old_conn_desc desc;

	if (is_md5(c->md5sum) && strcasecmp(c->md5sum, d->md5) != 0)
		return bag_warn(bag, UINT64_MAX, "connection %u (%s): the definition of %s in %s has md5 %s, "
		                "the bag records %s: not used; its messages are shown as bytes", c->id, c->topic,
		                c->type, d->file, d->md5, c->md5sum);
	old_conn_desc_of(c, &desc);
	desc.def = d->text;
	desc.def_len = strlen(d->text);
	return old_conn_replace(bag, i, &desc);
}

/* The one warning for a type that got no definition (d), naming where bagscope looked. */
static int def_warn(bag_t *bag, const struct def_result *d, const char *where)
{
	const struct bag_connection *c = &bag->conns[d->first];
	char more[48] = "";

	if (d->conns > 1)
		snprintf(more, sizeof more, " and %llu more", (unsigned long long)(d->conns - 1));
	if (strcmp(c->type, "*") == 0 || c->type[0] == '\0')
		return bag_warn(bag, UINT64_MAX, "connection %u (%s)%s: recorded without a type ('%s'), so no "
		                "definition can be found; its messages are shown as bytes", c->id, c->topic,
		                more, c->type);
	if (d->rc == BAG_ENOTFOUND)
		return bag_warn(bag, UINT64_MAX, "connection %u (%s)%s: no definition of %s: %s (looked in %s; "
		                "add --msg-path DIR); its messages are shown as bytes", c->id, c->topic, more,
		                c->type, d->err.message[0] ? d->err.message : "no .msg file", where);
	return bag_warn(bag, UINT64_MAX, "connection %u (%s)%s: the definition of %s from %s is not "
	                "usable: %s; its messages are shown as bytes", c->id, c->topic, more, c->type,
	                d->file ? d->file : "its .msg files", d->err.message);
}

/*
 * Connections without a definition (1.1 and older always, 1.2 when its
 * MSG_DEF was empty) get one from .msg files (those that get none have no
 * message_definition field: bag_conn_has_definition()), when a file of their type is
 * found and its md5 agrees with theirs (a '*' md5 agrees with any); one
 * warning per type that got none, saying where bagscope looked.
 */
static int old_defs(bag_t *bag, const char *const *dirs, size_t ndirs)
{
	struct strmap types = { 0 };
	struct def_result *res = NULL;
	size_t nres = 0, res_cap = 0;
	char where[384];
	int rc = BAG_OK;

	dirs_text(where, sizeof where, dirs, ndirs);
	for (size_t i = 0; i < bag->nconns && rc == BAG_OK; i++) {
		const struct bag_connection *c = &bag->conns[i];
		long k;

		if (bag_conn_has_definition(c))
			continue;
		if ((k = strmap_get(&types, c->type, strlen(c->type))) < 0) {
			if (bag_grow((void **)&res, &res_cap, nres + 1, sizeof *res) != BAG_OK ||
			    strmap_put(&types, c->type, strlen(c->type), (uint32_t)nres) != BAG_OK) {
				rc = bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
				break;
			}
			memset(&res[nres], 0, sizeof *res);
			res[nres].first = i;
			k = (long)nres++;
			if ((rc = def_lookup(bag, dirs, ndirs, c->type, &res[k])) != BAG_OK)
				break;
		}
		res[k].conns++;
		if (res[k].rc == BAG_OK)
			rc = def_apply(bag, i, &res[k]);
	}
	for (size_t k = 0; k < nres && rc == BAG_OK; k++)
		if (res[k].rc != BAG_OK)
			rc = def_warn(bag, &res[k], where);
	for (size_t k = 0; k < nres; k++) {
		free(res[k].text);
		free(res[k].file);
	}
	free(res);
	strmap_free(&types);
	return rc;
}

/* ---- opening ---------------------------------------------------------------- */

int old_begin(bag_t *bag, enum old_kind kind, bool roslog, uint64_t body, old_parse_fn parse)
{
	struct oldfmt *f = calloc(1, sizeof *f);

	if (f == NULL)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	f->kind = kind;
	f->roslog = roslog;
	f->body = body;
	f->parse = parse;
	bag->fmt_state = f;
	bag->body_pos = body;
	return BAG_OK;
}

int old_open(bag_t *bag, const struct bag_open_opts *o, enum old_kind kind, bool roslog, uint64_t body,
             old_parse_fn parse, old_read_fn read)
{
	int rc = old_begin(bag, kind, roslog, body, parse);

	if (rc == BAG_OK)
		rc = read(bag, o);
	if (rc == BAG_OK)
		rc = old_finish(bag, o);
	return rc;
}

int old_finish(bag_t *bag, const struct bag_open_opts *o)
{
	struct oldfmt *f = old_of(bag);
	int rc;

	bag->major = f->kind == OLD_V0 ? 0 : 1;
	bag->minor = f->kind == OLD_V12 ? 2 : f->kind == OLD_V11 ? 1 : 0;
	bag_conns_sort(bag);
	struct bag_msgpath mp;
	if (bag_msgpath_init(&mp, o->msg_path, o->msg_path_n, !o->msg_path_only) != BAG_OK)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	rc = old_defs(bag, mp.dirs, mp.n);
	bag_msgpath_free(&mp);
	if (rc != BAG_OK)
		return rc;
	bag->relative = (f->kind == OLD_V0 || f->roslog) && bag->end_ns < RELATIVE_MAX;
	snprintf(bag->format_name, sizeof bag->format_name, "%s%s", f->kind == OLD_V12 ? "1.2" :
	         f->kind == OLD_V11 ? "1.1" : f->kind == OLD_V10 ? "1.0" : "0",
	         f->kind == OLD_V12 && !f->indexed ? " (unindexed)" : "");
	return BAG_OK;
}

/* ---- reading a span --------------------------------------------------------- */

/* The connection of a message record; -1 when none. */
static long rec_conn(const struct oldfmt *f, const struct old_rec *r)
{
	return f->kind == OLD_V0 ? 0 : strmap_get(&f->conns, r->key, r->key_len);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/*
 * Append a translated message record at *at: header_len 38, the fields
 * op=2, conn and time, then data_len and the data (46 + len bytes).
 */
void old_put_msg(uint8_t **at, uint32_t conn, int64_t t, const uint8_t *data, uint32_t len)
{
	uint8_t *p = *at;

	put32(p, OLD_MSG_BYTES);
	put32(p + 4, 4);
	memcpy(p + 8, "op=\x02", 4);
	put32(p + 12, 9);
	memcpy(p + 16, "conn=", 5);
	put32(p + 21, conn);
	put32(p + 25, 13);
	memcpy(p + 29, "time=", 5);
	put32(p + 34, (uint32_t)(t / BAG_NSEC_PER_SEC));
	put32(p + 38, (uint32_t)(t % BAG_NSEC_PER_SEC));
	put32(p + 42, len);
	if (len > 0)
		memcpy(p + 46, data, len);
	*at = p + 46 + len;
}

int old_span_read(bag_t *bag, size_t i, uint8_t **out)
{
	const struct oldfmt *f = old_of(bag);
	struct chunk *ch = &bag->chunks[i];
	uint64_t raw_len = ch->index_end - ch->pos, size = 0;
	uint8_t *raw = NULL, *buf = NULL, *at = NULL;
	char why[256];
	int rc;

	*out = NULL;
	if (raw_len > SIZE_MAX - 1 || (raw = malloc(raw_len ? (size_t)raw_len : 1)) == NULL)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory for a span of %llu byte%s",
		                (unsigned long long)raw_len, BAG_S(raw_len));
	if ((rc = bag_read_at(bag, ch->pos, raw, (size_t)raw_len)) != BAG_OK)
		goto fail;
	/* twice over the records: the size, then the translation */
	for (int pass = 0; pass < 2; pass++) {
		for (uint64_t off = 0; off < raw_len;) {
			struct old_rec r;
			long conn;
			if (parse_rec(f, raw + off, (size_t)(raw_len - off), &r, why, sizeof why) != BAG_OK ||
			    r.size > raw_len - off)
				break;            /* the open's scan ended the span before damage */
			if (r.what == OLD_REC_MSG && (conn = rec_conn(f, &r)) >= 0) {
				if (pass == 0)
					size += OLD_MSG_BYTES + 8 + (uint64_t)r.data_len;
				else
					old_put_msg(&at, (uint32_t)conn, r.time_ns, raw + off + r.size - r.data_len, r.data_len);
			}
			off += r.size;
		}
		if (pass == 0) {
			if (size >= UINT32_MAX) {
				rc = bag_fail(bag, BAG_ECORRUPT, ch->pos, "the records from here to byte %llu hold more "
				              "than 4 GiB of messages", (unsigned long long)ch->index_end);
				goto fail;
			}
			if ((buf = malloc((size_t)size + 1)) == NULL) {
				rc = bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory for a %llu-byte span",
				              (unsigned long long)size);
				goto fail;
			}
			at = buf;
		}
	}
	ch->size = (uint32_t)size;
	*out = buf;
	buf = NULL;
	rc = BAG_OK;
fail:
	free(raw);
	free(buf);
	return rc;
}
