/*
 * format-v12.c - bags of format 1.2 (#ROSRECORD V1.2), 2009-2010: records
 * framed as in 2.0 with the ops MSG_DEF (1), MSG_DATA (2), FILE_HEADER (3)
 * and INDEX_DATA version 0 (4); no chunks, no connection records.
 *
 * Indexed (a FILE_HEADER whose index_pos names the index): the index is one
 * INDEX_DATA record per topic from index_pos to the end of the file, each
 * entry {u32 sec, u32 nsec, u64 file offset}; a topic's first entry points
 * at its MSG_DEF, which precedes its first MSG_DATA. The open reads only the
 * index and, per topic, the MSG_DEF and the MSG_DATA after it (definition,
 * latching, callerid). Entries are counted into buckets of OLD_SPAN_BYTES
 * of file offsets; each bucket that holds entries becomes a chunk running
 * from its first entry to the next bucket's, so every record an entry names
 * lies inside the entry's chunk.
 *
 * Unindexed (no FILE_HEADER: older recorders and rosrecord.py's rewriting
 * tools; or index_pos 0 or an unusable index after a crash, which is a
 * recovery): a scan of record headers from the first record, bodies skipped
 * by length. A MSG_DEF is kept by topic and by type; a topic's connection
 * takes the MSG_DEF of its own topic, else one of its type (rosrecord.py
 * wrote one per type).
 *
 * Every connection is one topic (as rosbag reads 1.2); its type and md5
 * come from its MSG_DEF, else from its first MSG_DATA.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/record.h>
#include "lib/formats/format-int.h"
#include "lib/common/util-int.h"

#define INDEX_BLOCK 4096            /* index entries read at once */
#define INDEX_HEADER_MAX 65536

/*
 * Parse the 1.2 record at p (avail bytes; its data need not be there).
 * Returns 0, BAG_ETRUNCATED (its header runs past avail) or BAG_ECORRUPT
 * (why[] says what is wrong). f is not needed: 1.2 records say what they are.
 */
static int v12_parse(const struct oldfmt *fmt, const uint8_t *p, size_t avail, struct old_rec *r, char *why,
                     size_t whylen)
{
	struct bag_field f;
	uint32_t pos = 0;
	bool seen_op = false, seen_topic = false, seen_sec = false, seen_nsec = false;
	uint32_t sec = 0, nsec = 0;

	(void)fmt;
	bool sec_ok = false, nsec_ok = false;
	int rc;

	memset(r, 0, sizeof *r);
	if (avail < 4)
		return BAG_ETRUNCATED;
	r->hdr_len = bag_le32(p);
	if (r->hdr_len > OLD_HEADER_MAX) {
		snprintf(why, whylen, "record header of %u byte%s is implausibly long", r->hdr_len, BAG_S(r->hdr_len));
		return BAG_ECORRUPT;
	}
	if (avail - 4 < (uint64_t)r->hdr_len + 4)
		return BAG_ETRUNCATED;
	r->hdr = p + 4;
	r->data_len = bag_le32(p + 4 + r->hdr_len);
	r->size = 8 + (uint64_t)r->hdr_len + r->data_len;
	while ((rc = bag_header_next(r->hdr, r->hdr_len, &pos, &f)) == 1) {
		/* the first field of each name counts, as with bag_header_find() */
		if (f.name_len == 2 && memcmp(f.name, "op", 2) == 0 && !seen_op) {
			seen_op = true;
			r->op = f.value_len == 1 ? f.value[0] : 0;
		} else if (f.name_len == 5 && memcmp(f.name, "topic", 5) == 0 && !seen_topic) {
			seen_topic = true;
			r->key = f.value;
			r->key_len = f.value_len;
		} else if (f.name_len == 3 && memcmp(f.name, "sec", 3) == 0 && !seen_sec) {
			seen_sec = true;
			if ((sec_ok = f.value_len == 4))
				sec = bag_le32(f.value);
		} else if (f.name_len == 4 && memcmp(f.name, "nsec", 4) == 0 && !seen_nsec) {
			seen_nsec = true;
			if ((nsec_ok = f.value_len == 4))
				nsec = bag_le32(f.value);
		}
	}
	if (rc < 0) {
		snprintf(why, whylen, "record header's field at offset %u overruns it", pos);
		return BAG_ECORRUPT;
	}
	if (r->op == 0) {
		snprintf(why, whylen, "record without an op field");
		return BAG_ECORRUPT;
	}
	r->what = OLD_REC_SKIP;
	if (r->op == BAG_OP_MSG_DEF && seen_topic)
		r->what = OLD_REC_DEF;
	if (r->op == BAG_OP_MSG_DATA && seen_topic && sec_ok && nsec_ok) {
		r->what = OLD_REC_MSG;
		r->time_ns = bag_time_from_ros(sec, nsec);
	}
	return BAG_OK;
}

/* A header field's value (NULL and 0 when absent). */
static const char *field(const struct old_rec *r, const char *name, size_t *len)
{
	const uint8_t *v;
	uint32_t n;

	if (bag_header_find(r->hdr, r->hdr_len, name, &v, &n) != BAG_OK) {
		*len = 0;
		return NULL;
	}
	*len = n;
	return (const char *)v;
}

/* Whether a MSG_DATA header says latching=1. */
static bool latched(const struct old_rec *r)
{
	size_t n;
	const char *v = field(r, "latching", &n);
	return v != NULL && n == 1 && v[0] == '1';
}

/* A copy of a header field's value (its bytes, NULs included, and a NUL). */
static char *dup_field(const struct old_rec *r, const char *name, size_t *len)
{
	const char *v = field(r, name, len);
	char *s = malloc(*len + 1);

	if (s != NULL) {
		if (*len)
			memcpy(s, v, *len);
		s[*len] = '\0';
	}
	return s;
}

/* ---- indexed ---------------------------------------------------------------- */

/* Read the header of the record at pos into *buf and parse it. */
static int read_rec(bag_t *bag, uint64_t pos, uint8_t **buf, size_t *cap, struct old_rec *r, char *why,
                    size_t whylen)
{
	uint8_t b4[4];
	uint32_t hl;
	int rc;

	if (pos > bag->file_size || bag->file_size - pos < 8 || bag_read_at(bag, pos, b4, 4) != BAG_OK) {
		snprintf(why, whylen, "no whole record there");
		return BAG_ECORRUPT;
	}
	hl = bag_le32(b4);
	if (hl > OLD_HEADER_MAX || (uint64_t)hl + 8 > bag->file_size - pos) {
		snprintf(why, whylen, "its header (%u byte%s) runs past the end of the file", hl, BAG_S(hl));
		return BAG_ECORRUPT;
	}
	if (bag_grow((void **)buf, cap, (size_t)hl + 8, 1) != BAG_OK)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	if ((rc = bag_read_at(bag, pos, *buf, (size_t)hl + 8)) != BAG_OK)
		return rc;
	rc = v12_parse(NULL, *buf, (size_t)hl + 8, r, why, whylen);
	if (rc == BAG_OK && r->size > bag->file_size - pos) {
		snprintf(why, whylen, "its data (%u byte%s) runs past the end of the file", r->data_len, BAG_S(r->data_len));
		rc = BAG_ECORRUPT;
	}
	return rc;
}

/* A bucket of index entries: file offsets [body + k * OLD_SPAN_BYTES, ...). */
struct bucket {
	uint64_t first;           /* lowest entry offset */
	uint64_t count;
	int64_t t0, t1;
};

/* One connection's count in one bucket. */
struct triple {
	uint32_t bucket;
	uint32_t conn;
	uint32_t count;
};

static int cmp_triple(const void *a, const void *b)
{
	const struct triple *x = a, *y = b;

	if (x->bucket != y->bucket)
		return x->bucket < y->bucket ? -1 : 1;
	return (x->conn > y->conn) - (x->conn < y->conn);
}

/* The index's state while it is read. */
struct index_read {
	bag_t *bag;
	uint64_t index_pos;
	size_t nb;                /* buckets */
	struct bucket *b;
	uint32_t *cur;            /* this topic's count per bucket */
	uint32_t *touched;        /* the buckets it touched */
	size_t ntouched;
	struct triple *t;
	size_t nt, t_cap;
	uint64_t *first_pos;      /* per connection: its first entry's offset */
	size_t first_cap;
	size_t conn_cap;
};

/* Count one index entry of connection conn (record at epos, time t) in its bucket. */
static void bucket_add(struct index_read *x, uint32_t conn, uint64_t epos, int64_t t)
{
	size_t bi = (size_t)((epos - old_of(x->bag)->body) / OLD_SPAN_BYTES);
	struct bucket *b = &x->b[bi];

	if (x->first_pos[conn] == UINT64_MAX)
		x->first_pos[conn] = epos;
	if (b->count == 0 || epos < b->first)
		b->first = epos;
	if (b->count == 0 || t < b->t0)
		b->t0 = t;
	if (b->count == 0 || t > b->t1)
		b->t1 = t;
	b->count++;
	if (x->cur[bi]++ == 0)
		x->touched[x->ntouched++] = (uint32_t)bi;
}

/* Read one INDEX_DATA record at pos (header in r) into the buckets. */
static int read_topic_index(struct index_read *x, uint64_t pos, const struct old_rec *r, char *why, size_t whylen)
{
	bag_t *bag = x->bag;
	uint32_t ver, count;
	const char *topic, *type;
	size_t topic_len, type_len;
	uint8_t *ents = NULL;
	uint64_t data_pos = pos + 8 + r->hdr_len;
	long conn;
	int rc = BAG_OK;

	topic = field(r, "topic", &topic_len);
	type = field(r, "type", &type_len);
	if (bag_header_u32(r->hdr, r->hdr_len, "ver", &ver) != BAG_OK ||
	    bag_header_u32(r->hdr, r->hdr_len, "count", &count) != BAG_OK || topic == NULL) {
		snprintf(why, whylen, "index record lacks ver, count or topic");
		return BAG_ECORRUPT;
	}
	if (ver != 0 || (uint64_t)count * 16 != r->data_len) {
		snprintf(why, whylen, "index record of version %u lists %u %s in %u byte%s", ver, count,
		         count == 1 ? "entry" : "entries", r->data_len, BAG_S(r->data_len));
		return BAG_ECORRUPT;
	}
	if ((conn = strmap_get(&old_of(bag)->conns, topic, topic_len)) < 0) {
		struct old_conn_desc d = { topic, topic_len, type ? type : "", type_len, "", 0, NULL, 0, NULL, 0, false };
		conn = (long)bag->nconns;
		if ((rc = old_conn_add(bag, &x->conn_cap, &d)) != BAG_OK)
			return rc;
		if (strmap_put(&old_of(bag)->conns, topic, topic_len, (uint32_t)conn) != BAG_OK ||
		    bag_grow((void **)&x->first_pos, &x->first_cap, (size_t)conn + 1, sizeof *x->first_pos) != BAG_OK)
			return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
		x->first_pos[conn] = UINT64_MAX;
	}
	if ((ents = malloc(INDEX_BLOCK * 16)) == NULL)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	x->ntouched = 0;
	for (uint32_t k = 0; k < count; k += INDEX_BLOCK) {
		uint32_t n = count - k < INDEX_BLOCK ? count - k : INDEX_BLOCK;
		if ((rc = bag_read_at(bag, data_pos + (uint64_t)k * 16, ents, (size_t)n * 16)) != BAG_OK)
			goto fail;
		for (uint32_t j = 0; j < n; j++) {
			const uint8_t *e = ents + (size_t)j * 16;
			int64_t t = bag_time_from_ros(bag_le32(e), bag_le32(e + 4));
			uint64_t epos = bag_le64(e + 8);

			if (epos < old_of(bag)->body || epos >= x->index_pos) {
				snprintf(why, whylen, "index entry %u of topic '%.*s' points at byte %llu, outside the "
				         "message section", k + j, (int)(topic_len > 64 ? 64 : topic_len), topic,
				         (unsigned long long)epos);
				rc = BAG_ECORRUPT;
				goto fail;
			}
			bucket_add(x, (uint32_t)conn, epos, t);
		}
	}
	for (size_t i = 0; i < x->ntouched; i++) {
		uint32_t bi = x->touched[i];
		if (bag_grow((void **)&x->t, &x->t_cap, x->nt + 1, sizeof *x->t) != BAG_OK) {
			rc = bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
			goto fail;
		}
		x->t[x->nt++] = (struct triple){ bi, (uint32_t)conn, x->cur[bi] };
		x->cur[bi] = 0;
	}
fail:
	free(ents);
	return rc;
}

/*
 * Connection i's definition from the record its first index entry names (a
 * MSG_DEF, then its MSG_DATA; or the MSG_DATA itself), and latching and
 * callerid from that MSG_DATA.
 */
static int topic_def(bag_t *bag, size_t i, uint64_t pos, uint8_t **buf, size_t *cap, char *why, size_t whylen)
{
	struct bag_connection *c = &bag->conns[i];
	struct old_conn_desc d;
	struct old_rec r;
	char *def = NULL, *type = NULL, *md5 = NULL;
	size_t n;
	const char *v;
	int rc;

	old_conn_desc_of(c, &d);
	if ((rc = read_rec(bag, pos, buf, cap, &r, why, whylen)) != BAG_OK)
		goto fail;
	if (r.op == BAG_OP_MSG_DEF) {
		/* copies: the buffer is read again for the message after it */
		/* an empty def (re-recorded from a bag older than 1.2) is none */
		if (field(&r, "def", &n) != NULL && n > 0 && (d.def = def = dup_field(&r, "def", &n)) != NULL)
			d.def_len = n;
		if (field(&r, "type", &n) != NULL && (d.type = type = dup_field(&r, "type", &n)) != NULL)
			d.type_len = n;
		if (field(&r, "md5", &n) != NULL && (d.md5 = md5 = dup_field(&r, "md5", &n)) != NULL)
			d.md5_len = n;
		pos += r.size;
		if ((rc = read_rec(bag, pos, buf, cap, &r, why, whylen)) != BAG_OK)
			goto fail;
	}
	if (r.what != OLD_REC_MSG) {
		snprintf(why, whylen, "the index's first entry for topic '%s' leads to a record with op %u, not a "
		         "message", c->topic, r.op);
		rc = BAG_ECORRUPT;
		goto fail;
	}
	if (d.type_len == 0 && (v = field(&r, "type", &n)) != NULL)
		d.type = v, d.type_len = n;
	if (d.md5_len == 0 && (v = field(&r, "md5", &n)) != NULL)
		d.md5 = v, d.md5_len = n;
	d.latching = latched(&r);
	d.callerid = field(&r, "callerid", &d.callerid_len);
	rc = old_conn_replace(bag, i, &d);
fail:
	free(def);
	free(type);
	free(md5);
	return rc;
}

/* Connections without a definition of their own borrow one of another topic of their type. */
static int borrow_defs(bag_t *bag)
{
	struct strmap by_type = { 0 };
	int rc = BAG_OK;

	for (size_t i = 0; i < bag->nconns; i++) {
		const struct bag_connection *c = &bag->conns[i];
		if (bag_conn_has_definition(c) && strmap_get(&by_type, c->type, strlen(c->type)) < 0 &&
		    strmap_put(&by_type, c->type, strlen(c->type), (uint32_t)i) != BAG_OK) {
			rc = bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
			goto fail;
		}
	}
	for (size_t i = 0; i < bag->nconns; i++) {
		const struct bag_connection *c = &bag->conns[i];
		long j = strmap_get(&by_type, c->type, strlen(c->type));
		struct old_conn_desc d;

		if (bag_conn_has_definition(c) || j < 0 || (strcmp(bag->conns[j].md5sum, c->md5sum) != 0 && c->md5sum[0]))
			continue;
		old_conn_desc_of(c, &d);
		d.def = bag->conns[j].definition;
		d.def_len = strlen(d.def);
		if (d.md5_len == 0)
			d.md5 = bag->conns[j].md5sum, d.md5_len = strlen(d.md5);
		if ((rc = old_conn_replace(bag, i, &d)) != BAG_OK)
			goto fail;
	}
fail:
	strmap_free(&by_type);
	return rc;
}

/* The buckets that hold entries become the chunks, each running to the next one's first record. */
static int buckets_to_chunks(struct index_read *x)
{
	bag_t *bag = x->bag;
	size_t chunk_cap = 0, cc_cap = 0;
	int rc = BAG_OK;

	if (x->nt > 1)
		bag_sort(x->t, x->nt, sizeof *x->t, cmp_triple);
	struct chunk_conn *cc = malloc((x->nt ? x->nt : 1) * sizeof *cc);
	if (cc == NULL)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	for (size_t i = 0, j; i < x->nt && rc == BAG_OK; i = j) {
		uint32_t bi = x->t[i].bucket;
		size_t n = 0, next;
		uint64_t end;

		for (j = i; j < x->nt && x->t[j].bucket == bi; j++) {
			if (n > 0 && cc[n - 1].conn == x->t[j].conn)
				cc[n - 1].count += x->t[j].count;   /* a topic indexed twice */
			else
				cc[n++] = (struct chunk_conn){ x->t[j].conn, x->t[j].count };
		}
		next = j;
		end = next < x->nt ? x->b[x->t[next].bucket].first : x->index_pos;
		rc = old_chunk_add(bag, &chunk_cap, &cc_cap, x->b[bi].first, end, x->b[bi].t0, x->b[bi].t1, cc, n);
	}
	free(cc);
	return rc;
}

/*
 * Read the index from index_pos: BAG_ECORRUPT (why says what is wrong) when
 * it cannot be used and the file is to be scanned instead.
 */
static int read_index(bag_t *bag, uint64_t index_pos, char *why, size_t whylen)
{
	struct index_read x = { .bag = bag, .index_pos = index_pos };
	size_t cap = 0;
	uint8_t *buf = NULL;
	uint64_t pos = index_pos, last = 0;
	int rc = BAG_OK;

	x.nb = (size_t)((index_pos - old_of(bag)->body) / OLD_SPAN_BYTES) + 1;
	x.b = calloc(x.nb, sizeof *x.b);
	x.cur = calloc(x.nb, sizeof *x.cur);
	x.touched = calloc(x.nb, sizeof *x.touched);
	if (x.b == NULL || x.cur == NULL || x.touched == NULL) {
		rc = bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
		goto fail;
	}
	while (pos < bag->file_size) {
		struct old_rec r;
		uint8_t b4[4];

		if ((rc = old_progress(bag, pos, &last)) != BAG_OK)
			goto fail;
		/* an index record's header is small: read it whole, its entries in blocks */
		if (bag->file_size - pos < 8 || bag_read_at(bag, pos, b4, 4) != BAG_OK ||
		    bag_le32(b4) > INDEX_HEADER_MAX) {
			snprintf(why, whylen, "at byte %llu: unreadable index record", (unsigned long long)pos);
			rc = BAG_ECORRUPT;
			goto fail;
		}
		if ((rc = read_rec(bag, pos, &buf, &cap, &r, why, whylen)) != BAG_OK || r.op != BAG_OP_INDEX_DATA) {
			if (rc == BAG_OK || rc == BAG_ECORRUPT) {
				char w[200];
				snprintf(w, sizeof w, "%.199s", rc == BAG_OK ? "not an index record" : why);
				snprintf(why, whylen, "at byte %llu: %s", (unsigned long long)pos, w);
				rc = BAG_ECORRUPT;
			}
			goto fail;
		}
		if ((rc = read_topic_index(&x, pos, &r, why, whylen)) != BAG_OK)
			goto fail;
		pos += r.size;
	}
	for (size_t i = 0; i < bag->nconns; i++) {
		if (x.first_pos[i] == UINT64_MAX)
			continue;
		if ((rc = topic_def(bag, i, x.first_pos[i], &buf, &cap, why, whylen)) != BAG_OK)
			goto fail;
	}
	if ((rc = borrow_defs(bag)) != BAG_OK)
		goto fail;
	if ((rc = buckets_to_chunks(&x)) == BAG_OK)
		rc = old_progress(bag, bag->file_size, &last);
fail:
	free(buf);
	free(x.b);
	free(x.cur);
	free(x.touched);
	free(x.t);
	free(x.first_pos);
	return rc;
}

/* ---- unindexed: the scan ------------------------------------------------------ */

/* A MSG_DEF's strings, kept by topic and by type while a scan runs. */
struct msg_def {
	char *type, *md5, *def;
	size_t type_len, md5_len, def_len;
};

struct v12_scan {
	bag_t *bag;
	struct spans sp;
	size_t conn_cap;
	struct msg_def *defs;
	size_t ndefs, defs_cap;
	struct strmap by_topic;   /* topic -> defs index (its first MSG_DEF) */
	struct strmap by_type;    /* type -> defs index (its first MSG_DEF) */
	uint64_t skipped;         /* records of other ops */
	uint64_t first_skipped;
	uint8_t skipped_op;
	uint64_t bad_msgs;        /* MSG_DATA without topic, sec or nsec */
	uint64_t first_bad;
};

static int scan_def(struct v12_scan *s, const struct old_rec *r)
{
	struct msg_def d;
	size_t tl;
	const char *type = field(r, "type", &tl);
	bool by_topic = strmap_get(&s->by_topic, r->key, r->key_len) < 0;
	bool by_type = type != NULL && strmap_get(&s->by_type, type, tl) < 0;

	if (!by_topic && !by_type)
		return BAG_OK;
	d.type = dup_field(r, "type", &d.type_len);
	d.md5 = dup_field(r, "md5", &d.md5_len);
	d.def = dup_field(r, "def", &d.def_len);
	if (d.type == NULL || d.md5 == NULL || d.def == NULL ||
	    bag_grow((void **)&s->defs, &s->defs_cap, s->ndefs + 1, sizeof *s->defs) != BAG_OK ||
	    (by_topic && strmap_put(&s->by_topic, r->key, r->key_len, (uint32_t)s->ndefs) != BAG_OK) ||
	    (by_type && strmap_put(&s->by_type, d.type, d.type_len, (uint32_t)s->ndefs) != BAG_OK)) {
		free(d.type);
		free(d.md5);
		free(d.def);
		return bag_fail(s->bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	}
	s->defs[s->ndefs++] = d;
	return BAG_OK;
}

static int scan_rec(void *arg, const struct old_rec *r, uint64_t pos)
{
	struct v12_scan *s = arg;
	bag_t *bag = s->bag;
	long conn;
	int rc;

	if (r->what == OLD_REC_DEF)
		return scan_def(s, r);
	if (r->what == OLD_REC_SKIP) {
		if (r->op == BAG_OP_MSG_DATA) {
			if (s->bad_msgs++ == 0)
				s->first_bad = pos;
		} else if (r->op != BAG_OP_FILE_HEADER && r->op != BAG_OP_INDEX_DATA && s->skipped++ == 0) {
			s->first_skipped = pos;
			s->skipped_op = r->op;
		}
		return BAG_OK;
	}
	if ((conn = strmap_get(&old_of(bag)->conns, r->key, r->key_len)) < 0) {
		struct old_conn_desc d = { (const char *)r->key, r->key_len, "", 0, "", 0, NULL, 0, NULL, 0, latched(r) };
		const char *v;
		size_t n;
		if ((v = field(r, "type", &n)) != NULL)
			d.type = v, d.type_len = n;
		if ((v = field(r, "md5", &n)) != NULL)
			d.md5 = v, d.md5_len = n;
		d.callerid = field(r, "callerid", &d.callerid_len);
		conn = (long)bag->nconns;
		if ((rc = old_conn_add(bag, &s->conn_cap, &d)) != BAG_OK)
			return rc;
		if (strmap_put(&old_of(bag)->conns, r->key, r->key_len, (uint32_t)conn) != BAG_OK)
			return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	}
	return spans_add(&s->sp, pos, r->size, r->data_len, (uint32_t)conn, r->time_ns);
}

/* After a scan: each connection takes its topic's MSG_DEF, else its type's. */
static int scan_defs(struct v12_scan *s)
{
	bag_t *bag = s->bag;
	int rc = BAG_OK;

	for (size_t i = 0; i < bag->nconns && rc == BAG_OK; i++) {
		const struct bag_connection *c = &bag->conns[i];
		long k = strmap_get(&s->by_topic, c->topic, strlen(c->topic));
		struct old_conn_desc d;

		if (k < 0)
			k = strmap_get(&s->by_type, c->type, strlen(c->type));
		if (k < 0)
			continue;
		if (s->defs[k].def_len == 0)
			continue;             /* an empty def is none */
		old_conn_desc_of(c, &d);
		d.def = s->defs[k].def;
		d.def_len = s->defs[k].def_len;
		if (s->defs[k].type_len > 0)
			d.type = s->defs[k].type, d.type_len = s->defs[k].type_len;
		if (s->defs[k].md5_len > 0)
			d.md5 = s->defs[k].md5, d.md5_len = s->defs[k].md5_len;
		rc = old_conn_replace(bag, i, &d);
	}
	return rc;
}

static int scan(bag_t *bag, uint64_t from)
{
	struct v12_scan s = { .bag = bag, .sp = { .bag = bag } };
	uint64_t end;
	int rc;

	if ((rc = old_scan(bag, from, scan_rec, &s, &end)) != BAG_OK ||
	    (rc = spans_cut(&s.sp, end)) != BAG_OK ||
	    (rc = scan_defs(&s)) != BAG_OK)
		goto fail;
	if (s.skipped > 0 && (rc = bag_warn(bag, s.first_skipped, "%llu record%s with ops other than 1-4 (the "
	                                   "first with op %u) skipped", (unsigned long long)s.skipped, BAG_S(s.skipped),
	                                   s.skipped_op)) != BAG_OK)
		goto fail;
	if (s.bad_msgs > 0)
		rc = bag_warn(bag, s.first_bad, "%llu message records without topic, sec or nsec skipped",
		              (unsigned long long)s.bad_msgs);
	if (bag->recovery.recovered) {
		bag->recovery.records_end = end;
		bag->recovery.trailing_bytes = bag->file_size - end;
		bag->recovery.chunks = bag->nchunks;
		bag->recovery.messages = bag->message_count;
		bag->recovery.nlosses = bag->nlosses;
	}
fail:
	for (size_t i = 0; i < s.ndefs; i++) {
		free(s.defs[i].type);
		free(s.defs[i].md5);
		free(s.defs[i].def);
	}
	free(s.defs);
	strmap_free(&s.by_topic);
	strmap_free(&s.by_type);
	spans_free(&s.sp);
	return rc;
}

/* Set the open up as a recovery (index_pos unusable): reason is the one line. */
static int as_recovery(bag_t *bag, bool no_recover, uint64_t at, const char *reason)
{
	char line[BAG_ERROR_MESSAGE_MAX];

	if (no_recover)
		return bag_fail(bag, BAG_ENOINDEX, at, "%s", reason);
	bag_fail(bag, BAG_ENOINDEX, at, "%s", reason);
	snprintf(line, sizeof line, "%s", bag->err.message);
	bag->recovery.recovered = true;
	free(bag->recovery_reason);
	if ((bag->recovery_reason = strdup(line)) == NULL)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	return BAG_OK;
}

/* Read a 1.2 bag's connections and spans (o->no_recover: a crashed one fails with BAG_ENOINDEX). */
static int v12_read(bag_t *bag, const struct bag_open_opts *o)
{
	bool no_recover = o->no_recover;

	struct oldfmt *f = old_of(bag);
	struct old_rec r;
	uint8_t *buf = NULL;
	size_t cap = 0;
	uint64_t index_pos = 0;
	char why[256];
	int rc;

	/* a FILE_HEADER first: indexed (or crashed); anything else: unindexed by design */
	rc = read_rec(bag, f->body, &buf, &cap, &r, why, sizeof why);
	if (rc == BAG_ENOMEM || rc == BAG_EIO)
		goto fail;
	if (rc != BAG_OK || r.op != BAG_OP_FILE_HEADER) {
		rc = scan(bag, f->body);
		goto fail;
	}
	bag_header_u64(r.hdr, r.hdr_len, "index_pos", &index_pos);
	f->body += r.size;
	bag->body_pos = f->body;
	if (index_pos == 0) {
		rc = as_recovery(bag, no_recover, 16, "index_pos is 0: the recording was never closed (unindexed bag)");
	} else if (index_pos < f->body || index_pos > bag->file_size ||
	           (index_pos == bag->file_size && index_pos > f->body)) {
		/* (an index at the end of the file with messages before it: cut off) */
		snprintf(why, sizeof why, "index_pos %llu lies outside the file (size %llu): truncated bag",
		         (unsigned long long)index_pos, (unsigned long long)bag->file_size);
		rc = as_recovery(bag, no_recover, 16, why);
	} else {
		rc = read_index(bag, index_pos, why, sizeof why);
		if (rc == BAG_OK) {
			f->indexed = true;
			goto fail;
		}
		if (rc != BAG_ECORRUPT)
			goto fail;
		/* drop what the index gave; the scan finds it all again */
		bag_reset_index(bag);
		strmap_free(&f->conns);
		char reason[320];
		snprintf(reason, sizeof reason, "the 1.2 index is unusable: %s", why);
		rc = as_recovery(bag, no_recover, index_pos, reason);
	}
	if (rc == BAG_OK)
		rc = scan(bag, f->body);
fail:
	free(buf);
	return rc;
}

#define V12_LINE "#ROSRECORD V1.2\n"

static bool v12_detect(const uint8_t *head, size_t len, uint64_t size)
{
	(void)size;
	return len >= sizeof V12_LINE - 1 && memcmp(head, V12_LINE, sizeof V12_LINE - 1) == 0;
}

static int v12_open(bag_t *bag, const struct bag_open_opts *o)
{
	return old_open(bag, o, OLD_V12, false, sizeof V12_LINE - 1, v12_parse, v12_read);
}

const struct bag_reader bag_reader_v12 = {
	.name = "1.2",
	.detect = v12_detect,
	.open = v12_open,
	.read_span = old_span_read,
	.free = old_free,
};
