/*
 * check.c - bag_check(): an integrity check in four passes over an open bag.
 *
 *   1. what the open already knew: a recovery (reason, losses) and warnings;
 *   2. the file, record by record from the end of the bag header: every
 *      record fits and has an op, every chunk record is one the index knows,
 *      index-data records follow chunks (full check only; a bag older than
 *      2.0 has had its records walked by its reader, whose warnings pass 1
 *      reports);
 *   3. each chunk: its header (quick), then decompressed to its stated size
 *      and walked: every record whole, only ops 2 and 7, per-connection
 *      message counts equal to the chunk info's (full only);
 *   4. the index: each bag's timeline loaded (index records agree with
 *      chunk infos), then every entry read - the record there must be an op
 *      2 of its connection and time - and decoded against its connection's
 *      definition, whose md5 is recomputed first (full only). Index damage
 *      the timeline worked around (a chunk indexed from its data) is a
 *      finding too, one per chunk. The scan's handles (dups of the bag)
 *      have verify_sums set: a format whose chunks carry sums (MCAP's
 *      CRCs) checks them as its workers read each chunk, once.
 *
 * The same error text repeating for consecutive rows (a whole group failing
 * to load) is reported once, with the count of rows it hit.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/check.h>
#include <bagscope/decode.h>
#include <bagscope/msgdef.h>
#include <bagscope/scan.h>
#include <bagscope/view.h>
#include "lib/formats/bag-int.h"
#include "lib/formats/reader-int.h"
#include "lib/common/util-int.h"

struct checker {
	bag_t *bag;
	bag_finding_fn fn;
	void *arg;
	struct bag_check_stats st;
	bool stop;
	uint64_t *said;           /* hashes of findings made (open addressing, 0 empty) */
	size_t nsaid, said_cap;
	bool dup;                 /* the last finding() repeated an earlier one: dropped */
};

/* FNV-1a over a finding's offset and text, never 0. */
static uint64_t finding_hash(uint64_t off, const char *text)
{
	uint64_t h = 0xcbf29ce484222325ull ^ off;

	for (; *text; text++)
		h = (h ^ (uint8_t)*text) * 0x100000001b3ull;
	return h ? h : 1;
}

/* Whether h was said before; remembers it. */
static bool said_before(struct checker *c, uint64_t h)
{
	if (c->nsaid * 2 >= c->said_cap) {
		size_t ncap = c->said_cap ? c->said_cap * 2 : 64;
		uint64_t *n = calloc(ncap, sizeof *n);
		if (n == NULL)
			return false;
		for (size_t i = 0; i < c->said_cap; i++) {
			size_t j = c->said[i] & (ncap - 1);
			while (c->said[i] != 0 && n[j] != 0)
				j = (j + 1) & (ncap - 1);
			n[j] = c->said[i];
		}
		free(c->said);
		c->said = n;
		c->said_cap = ncap;
	}
	size_t j = h & (c->said_cap - 1);
	while (c->said[j] != 0 && c->said[j] != h)
		j = (j + 1) & (c->said_cap - 1);
	if (c->said[j] == h)
		return true;
	c->said[j] = h;
	c->nsaid++;
	return false;
}

static int finding(struct checker *c, uint64_t off, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Report one finding. */
static int finding(struct checker *c, uint64_t off, int code, const char *fmt, ...)
{
	char text[BAG_ERROR_MESSAGE_MAX];
	struct bag_finding f = { off, code, text };
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	/* one fault, one line: a pass that meets what an earlier one said stays quiet */
	if ((c->dup = said_before(c, finding_hash(off, text))))
		return BAG_OK;
	c->st.findings++;
	if (c->fn != NULL && c->fn(c->arg, &f) != 0) {
		c->stop = true;
		return BAG_ECANCELED;
	}
	return BAG_OK;
}

/* A bag error message without its "PATH: " prefix. */
static const char *strip_path(const bag_t *bag, const char *msg)
{
	size_t n = strlen(bag->path);

	if (strncmp(msg, bag->path, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ')
		return msg + n + 2;
	return msg;
}

/* ... and without "at byte OFF: " when the finding names that offset already. */
static const char *strip_at(const bag_t *bag, const char *msg, uint64_t off)
{
	char at[48];
	size_t n;

	msg = strip_path(bag, msg);
	n = (size_t)snprintf(at, sizeof at, "at byte %llu: ", (unsigned long long)off);
	return strncmp(msg, at, n) == 0 ? msg + n : msg;
}

/* Pass 1: what bag_open() had to do. */
/* A finding of a format reader's own checks (struct bag_reader's verify). */
static int reader_finding(void *ctx, uint64_t off, int code, const char *text)
{
	return finding(ctx, off, code, "%s", text);
}

static int check_open(struct checker *c)
{
	bag_t *bag = c->bag;
	int rc = BAG_OK;

	if (bag->recovery.recovered)
		rc = finding(c, UINT64_MAX, BAG_ENOINDEX, "index unusable, bag read by a scan: %s",
		             strip_path(bag, bag->recovery_reason));
	for (size_t i = 0; rc == BAG_OK && i < bag->nlosses; i++)
		rc = finding(c, bag->losses[i].start, BAG_ETRUNCATED, "lost up to byte %llu: %s",
		             (unsigned long long)bag->losses[i].end, bag->losses[i].what);
	for (size_t i = 0; rc == BAG_OK && i < bag->nwarnings && i < BAG_WARNINGS_MAX; i++)
		rc = finding(c, UINT64_MAX, BAG_ECORRUPT, "%s", strip_path(bag, bag->warnings[i]));
	return rc;
}

/* Whether a chunk record at pos is in the bag's chunk list. */
static bool chunk_known(const bag_t *bag, uint64_t pos)
{
	return bag_chunk_lookup(bag, pos) >= 0;
}

/*
 * What is wrong with the record at pos (its header hdr[0..hlen), after a
 * record of op prev), in why ("" when it belongs), and at which byte. Sets
 * *op; returns bag_header_next()'s last result (< 0: the header overruns).
 */
static int record_fault(bag_t *bag, const uint8_t *hdr, uint32_t hlen, uint64_t pos, uint8_t prev, uint8_t *op,
                        char *why, size_t len, uint64_t *why_at)
{
	uint32_t fpos = 0;
	struct bag_field f;
	int frc;

	why[0] = '\0';
	*why_at = pos;
	while ((frc = bag_header_next(hdr, hlen, &fpos, &f)) == 1)
		;
	if (frc < 0) {
		snprintf(why, len, "header field overruns its record header");
		*why_at = pos + 4 + fpos;
	} else if (bag_header_u8(hdr, hlen, "op", op) != BAG_OK) {
		snprintf(why, len, "record has no op field");
	} else if (*op == BAG_OP_CHUNK && !chunk_known(bag, pos)) {
		snprintf(why, len, "chunk record that the index does not list");
	} else if (*op == BAG_OP_INDEX_DATA && prev != BAG_OP_CHUNK && prev != BAG_OP_INDEX_DATA) {
		snprintf(why, len, "index data record that follows no chunk");
	} else if (*op < BAG_OP_MSG_DATA || *op > BAG_OP_CONNECTION || *op == BAG_OP_FILE_HEADER) {
		snprintf(why, len, "record with op %u does not belong in a bag 2.0 file", *op);
	} else if (*op == BAG_OP_MSG_DATA) {
		snprintf(why, len, "message record outside any chunk");
	}
	return frc;
}

/* Pass 2: walk the file's top-level records. */
static int check_records(struct checker *c)
{
	bag_t *bag = c->bag;
	uint64_t pos = bag->body_pos;
	uint8_t *hdr = NULL;
	uint8_t prev = 0;
	uint64_t bad = 0, bad_end = pos;  /* a run of records that do not belong */
	int rc = BAG_OK;

	while (pos < bag->file_size && rc == BAG_OK) {
		uint8_t b4[4], op;
		uint32_t hlen, dlen;
		uint64_t left = bag->file_size - pos;

		if (left < 8 || bag_read_at(bag, pos, b4, 4) != BAG_OK) {
			rc = finding(c, pos, BAG_ETRUNCATED, "%llu bytes at the end hold no whole record",
			             (unsigned long long)left);
			break;
		}
		hlen = bag_le32(b4);
		if ((uint64_t)hlen + 8 > left) {
			rc = finding(c, pos, BAG_ETRUNCATED, "record header of %u bytes runs past the end of the file", hlen);
			break;
		}
		free(hdr);
		hdr = malloc((size_t)hlen + 4);
		if (hdr == NULL) {
			rc = bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
			break;
		}
		if ((rc = bag_read_at(bag, pos + 4, hdr, (size_t)hlen + 4)) != BAG_OK)
			break;
		dlen = bag_le32(hdr + hlen);
		c->st.records++;
		if ((uint64_t)hlen + 8 + dlen > left) {
			rc = finding(c, pos, BAG_ETRUNCATED, "record data of %u bytes runs past the end of the file", dlen);
			break;
		}
		char why[128];
		uint64_t why_at;
		int frc = record_fault(bag, hdr, hlen, pos, prev, &op, why, sizeof why, &why_at);
		/* one fault, one line: the records after a bad one are usually more of it */
		if (why[0] != '\0' && bad++ == 0)
			rc = finding(c, why_at, BAG_ECORRUPT, "%s", why);
		if (why[0] == '\0' && bad > 1)
			rc = finding(c, bad_end, BAG_ECORRUPT, "(and %llu more records up to here that do not belong)",
			             (unsigned long long)(bad - 1));
		if (why[0] == '\0')
			bad = 0;
		prev = frc < 0 ? 0 : op;
		pos += 8 + (uint64_t)hlen + dlen;
		bad_end = pos;
		if (frc >= 0 && op == BAG_OP_CHUNK && chunk_known(bag, pos - 8 - hlen - dlen)) {
			/* a recovered chunk ends where its data really does */
			const struct chunk *ch = bag->chunks;
			while (ch->pos != pos - 8 - hlen - dlen)
				ch++;
			if (ch->stat_loaded && ch->data_pos + ch->data_len <= bag->file_size)
				pos = ch->data_pos + ch->data_len;
		}
	}
	if (rc == BAG_OK && bad > 1)
		rc = finding(c, bad_end, BAG_ECORRUPT, "(and %llu more records up to here that do not belong)",
		             (unsigned long long)(bad - 1));
	free(hdr);
	return rc;
}

/* Append one finding line "OFFSET\tCODE\tTEXT\n" for chunk_emit_findings(). */
static void put_finding(struct bag_text *out, uint64_t off, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void put_finding(struct bag_text *out, uint64_t off, int code, const char *fmt, ...)
{
	char text[BAG_ERROR_MESSAGE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	bag_text_printf(out, "%llu\t%d\t%s\n", (unsigned long long)off, code, text);
}

/*
 * One chunk's records while it is walked: messages counted per connection of
 * its chunk info (held[k] for chunk_conns[conn_first + k], found by binary
 * searches remembered in memo by connection id), and the connection indices
 * of messages on connections it does not count (extra: none in a sound
 * chunk).
 */
#define TALLY_MEMO 64

/* What the searches found for a connection id. */
struct tally_memo {
	uint32_t id;              /* a connection id */
	long conn;                /* its connection index, or -1: defined nowhere */
	uint32_t slot;            /* its held[] slot, or ch->conn_n: not counted by the chunk info */
	bool set;
};

struct chunk_tally {
	const bag_t *bag;
	const struct chunk *ch;
	uint64_t *held;           /* [ch->conn_n] */
	struct tally_memo memo[TALLY_MEMO];  /* by id % TALLY_MEMO */
	uint32_t *extra;
	size_t n, cap;
	uint64_t undefined;       /* messages on connections defined nowhere */
	uint64_t bad;             /* records neither messages nor connections */
	struct bag_text *out;
	bool nomem;
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static int tally_item(void *arg, const struct chunk_item *it)
{
	struct chunk_tally *t = arg;
	struct tally_memo *m = &t->memo[it->conn_id % TALLY_MEMO];

	if (it->op == BAG_OP_CONNECTION || it->op == BAG_OP_OTHER)
		return BAG_OK;
	if (!it->msg_ok) {
		if (t->bad++ == 0)
			put_finding(t->out, t->ch->pos, BAG_ECORRUPT, "record at offset %u of the chunk is %s", it->offset,
			            it->op == BAG_OP_MSG_DATA ? "a message without conn or time" :
			            it->op == 0 ? "without op" : "neither a message nor a connection");
		return BAG_OK;
	}
	if (!m->set || m->id != it->conn_id) {
		long k = -1;
		m->set = true;
		m->id = it->conn_id;
		m->conn = bag_conn_lookup(t->bag, it->conn_id);
		if (m->conn >= 0)
			k = bag_chunk_conn_slot(t->bag, (size_t)(t->ch - t->bag->chunks), (uint32_t)m->conn);
		m->slot = k >= 0 ? (uint32_t)k : t->ch->conn_n;
	}
	if (m->conn < 0) {
		if (t->undefined++ == 0)
			put_finding(t->out, t->ch->pos, BAG_ECORRUPT, "message at offset %u of the chunk names "
			            "connection %u, which is not defined", it->offset, it->conn_id);
		return BAG_OK;
	}
	if (m->slot < t->ch->conn_n) {
		t->held[m->slot]++;
		return BAG_OK;
	}
	if (bag_grow((void **)&t->extra, &t->cap, t->n + 1, sizeof *t->extra) != BAG_OK) {
		t->nomem = true;
		return BAG_ENOMEM;
	}
	t->extra[t->n++] = (uint32_t)m->conn;
	return BAG_OK;
}

/* The counts against the chunk info, in connection order. */
static void tally_findings(const struct chunk_tally *t, struct bag_text *out)
{
	const bag_t *bag = t->bag;
	const struct chunk *ch = t->ch;
	size_t k = 0;

	for (uint32_t c = 0; c < ch->conn_n || k < t->n;) {
		const struct chunk_conn *cc = c < ch->conn_n ? &bag->chunk_conns[ch->conn_first + c] : NULL;
		if (cc != NULL && (k == t->n || cc->conn < t->extra[k])) {
			if (t->held[c] != cc->count)
				put_finding(out, ch->pos, BAG_ECORRUPT, "chunk info counts %u messages on connection %u, "
				            "the chunk holds %llu", cc->count, bag->conns[cc->conn].id,
				            (unsigned long long)t->held[c]);
			c++;
			continue;
		}
		uint32_t conn = t->extra[k];
		uint64_t held = 0;
		while (k < t->n && t->extra[k] == conn)
			k++, held++;
		put_finding(out, ch->pos, BAG_ECORRUPT, "the chunk holds %llu messages on connection %u "
		            "that its chunk info does not count", (unsigned long long)held, bag->conns[conn].id);
	}
}

/*
 * A chunk's data against its chunk info: every record whole, only messages
 * and connections, per-connection counts equal (unless the reader only
 * estimated them). Findings go to out as lines
 * for chunk_emit_findings(). Costs the chunk's records (a binary search
 * among its chunk info's connections each), never a pass over every
 * connection of the bag. Safe on a scan worker: it reads bag and the
 * chunk's data only.
 */
static void chunk_findings(void *arg, const bag_t *bag, size_t bag_index, size_t i, const uint8_t *data,
                           size_t len, struct bag_text *out)
{
	const struct chunk *ch = &bag->chunks[i];
	struct chunk_tally t = { .bag = bag, .ch = ch, .out = out };
	size_t used = 0;
	(void)arg;
	(void)bag_index;

	if ((t.held = calloc(ch->conn_n + 1, sizeof *t.held)) == NULL)
		t.nomem = true;
	else
		bag_chunk_walk(bag, data, len, tally_item, &t, &used);
	if (t.nomem) {
		put_finding(out, ch->pos, BAG_ENOMEM, "out of memory counting the chunk's messages");
		goto done;
	}
	if (t.bad + t.undefined > 1)
		put_finding(out, ch->pos, BAG_ECORRUPT, "(%llu records of the chunk like that)",
		            (unsigned long long)(t.bad + t.undefined));
	if (used != len)
		put_finding(out, ch->pos, BAG_ECORRUPT, "the chunk's last %zu bytes (from offset %zu) are "
		            "not a whole record", len - used, used);
	if (t.n > 1)
		bag_sort(t.extra, t.n, sizeof *t.extra, cmp_u32);
	if (!ch->estimated)
		tally_findings(&t, out);
done:
	free(t.held);
	free(t.extra);
}

/* The findings chunk_findings() wrote, reported in order. */
static int chunk_emit_findings(struct checker *c, const char *text, size_t len)
{
	const char *end = text + len;
	int rc = BAG_OK;

	c->st.chunks++;
	while (text < end && rc == BAG_OK) {
		const char *nl = memchr(text, '\n', (size_t)(end - text));
		unsigned long long off;
		int code, n = 0;
		if (nl == NULL || sscanf(text, "%llu\t%d\t%n", &off, &code, &n) != 2 || n == 0)
			break;
		rc = finding(c, (uint64_t)off, code, "%.*s", (int)(nl - text - n), text + n);
		text = nl + 1;
	}
	return rc;
}

/*
 * Pass 3: each chunk's header. A full check walks the chunks that hold
 * messages in the scan of pass 4 (chunk_findings() on its workers); chunks
 * the index gives no message are walked here.
 */
static int check_chunks(struct checker *c, bool quick)
{
	bag_t *bag = c->bag;
	struct bag_text out = { 0 };
	int rc = BAG_OK;

	for (size_t i = 0; i < bag->nchunks && rc == BAG_OK; i++) {
		const struct chunk *ch = &bag->chunks[i];
		const uint8_t *data;
		size_t len;
		int grc;

		if ((grc = chunk_load_stat(bag, i)) != BAG_OK) {
			rc = finding(c, ch->pos, grc, "%s", strip_at(bag, bag->err.message, ch->pos));
			continue;
		}
		if (quick || ch->count > 0 || ch->estimated)
			continue;
		if ((grc = bag_chunk_get(bag, i, &data, &len)) != BAG_OK) {
			rc = finding(c, ch->pos, grc, "%s", strip_at(bag, bag->err.message, ch->pos));
			continue;
		}
		out.len = 0;
		chunk_findings(c, bag, 0, i, data, len, &out);
		bag_chunk_unpin(bag, i);
		rc = chunk_emit_findings(c, out.p ? out.p : "", out.len);
	}
	bag_text_free(&out);
	return rc;
}

/* Connection indices ordered by type, then definition (qsort_r over bag). */
static int cmp_conn_def(const void *a, const void *b, void *arg)
{
	const bag_t *bag = arg;
	const struct bag_connection *x = &bag->conns[*(const size_t *)a], *y = &bag->conns[*(const size_t *)b];
	int c = strcmp(x->type, y->type);

	return c ? c : strcmp(x->definition, y->definition);
}

/*
 * Pass 4a: definitions, parsed and their md5 recomputed. Connections with the
 * same type and definition share one parse, so a million connections of a few
 * types cost a few parses: parsed[i] is connection i's (possibly failed)
 * parse, own[i] marks the one that frees it, and defs[i] is parsed[i] when it
 * parsed, else NULL. Findings come in connection order.
 */
static int check_defs(struct checker *c, bag_msgdef_t **defs, bag_msgdef_t **parsed, bool *own)
{
	bag_t *bag = c->bag;
	size_t *order = malloc((bag->nconns ? bag->nconns : 1) * sizeof *order);
	int *prc = malloc((bag->nconns ? bag->nconns : 1) * sizeof *prc);
	int rc = BAG_OK;

	if (order == NULL || prc == NULL) {
		rc = bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < bag->nconns; i++)
		order[i] = i;
	qsort_r(order, bag->nconns, sizeof *order, cmp_conn_def, bag);
	for (size_t k = 0; k < bag->nconns; k++) {
		size_t i = order[k];
		const struct bag_connection *conn = &bag->conns[i];

		if (k > 0 && cmp_conn_def(&order[k - 1], &order[k], bag) == 0) {
			parsed[i] = parsed[order[k - 1]];
			defs[i] = defs[order[k - 1]];
			prc[i] = prc[order[k - 1]];
			continue;
		}
		own[i] = true;
		/* no definition at all (a bag older than 1.2 without its .msg file): not decoded */
		if (!bag_conn_has_definition(conn)) {
			prc[i] = BAG_EDEFINITION;
			continue;
		}
		prc[i] = bag_conn_msgdef_parse(&parsed[i], conn);
		if (prc[i] == BAG_ENOMEM) {
			rc = bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
			goto fail;
		}
		defs[i] = prc[i] == BAG_OK ? parsed[i] : NULL;
	}
	for (size_t i = 0; i < bag->nconns && rc == BAG_OK; i++) {
		const struct bag_connection *conn = &bag->conns[i];
		if (defs[i] == NULL && parsed[i] == NULL) {
			rc = finding(c, UINT64_MAX, prc[i], "connection %u (%s, %s): no message definition; its "
			             "messages are not decoded", conn->id, conn->topic, conn->type);
			continue;
		}
		if (defs[i] == NULL) {
			rc = finding(c, UINT64_MAX, prc[i], "connection %u (%s, %s): definition does not parse: %s",
			             conn->id, conn->topic, conn->type, bag_msgdef_error(parsed[i])->message);
			continue;
		}
		const char *md5 = bag_msgdef_root(defs[i])->md5;
		if (strcmp(conn->md5sum, "*") != 0 && strcmp(md5, conn->md5sum) != 0)
			rc = finding(c, UINT64_MAX, BAG_EDEFINITION, "connection %u (%s, %s): md5sum %s, "
			             "the definition's is %s", conn->id, conn->topic, conn->type, conn->md5sum, md5);
	}
fail:
	free(order);
	free(prc);
	return rc;
}

/* Pass 4 as it goes: repeated texts collapsed, timeline warnings reported. */
struct entries {
	struct checker *c;
	bag_timeline_t *tl;
	size_t warned;
	char last[BAG_ERROR_MESSAGE_MAX];
	uint64_t repeats;
	bool last_dup;
};

/* Say how often the last problem repeated, if it did. */
static int entry_repeats(struct entries *e)
{
	uint64_t n = e->repeats;

	e->repeats = 0;
	if (n == 0 || e->last_dup)
		return BAG_OK;
	return finding(e->c, UINT64_MAX, BAG_ECORRUPT, "(the same for %llu more messages)", (unsigned long long)n);
}

/* One entry's problem (text "" for none) at off; repeats of the last one counted. */
static int entry_problem(struct entries *e, uint64_t off, int code, const char *err)
{
	struct checker *c = e->c;
	int rc;

	for (; e->warned < bag_timeline_warning_count(e->tl) && bag_timeline_warning(e->tl, e->warned) != NULL;
	     e->warned++)
		if ((rc = finding(c, UINT64_MAX, BAG_ECORRUPT, "%s",
		                  strip_path(c->bag, bag_timeline_warning(e->tl, e->warned)))) != BAG_OK)
			return rc;
	if (err[0] == '\0' || strcmp(err, e->last) == 0) {
		e->repeats += err[0] != '\0';
		return BAG_OK;
	}
	if ((rc = entry_repeats(e)) != BAG_OK)
		return rc;
	snprintf(e->last, sizeof e->last, "%s", err);
	rc = finding(c, off, code, "%s", err);
	e->last_dup = c->dup;
	return rc;
}

/* A failure message: its "PATH: at byte N: " prefix becomes the offset. */
static const char *split_at(const bag_t *bag, const char *msg, uint64_t *off)
{
	unsigned long long at;
	int n = 0;

	msg = strip_path(bag, msg);
	if (sscanf(msg, "at byte %llu: %n", &at, &n) == 1 && n > 0) {
		*off = at;
		msg += n;
	}
	return msg;
}

/* On a worker: decode the message against its definition. */
static int decode_work(void *arg, const struct bag_message *m, const bag_msgdef_t *def, struct bag_text *out)
{
	static const struct bag_visitor none = { 0 };
	struct bag_error derr;
	size_t used = 0;
	(void)arg;

	if (def == NULL)          /* pass 4a said why */
		return 0;
	if (bag_decode(def, m->data, m->size, &none, NULL, &used, &derr) != BAG_OK) {
		bag_text_printf(out, "message at offset %u of the chunk (%s) does not decode as %s: %s",
		                m->offset, m->conn->topic, m->conn->type, derr.message);
		return BAG_EDECODE;
	}
	if (used != m->size) {
		bag_text_printf(out, "message at offset %u of the chunk (%s) has %zu byte%s left over after its %s",
		                m->offset, m->conn->topic, m->size - used, BAG_S(m->size - used), m->conn->type);
		return BAG_EDECODE;
	}
	return 0;
}

static int entry_emit(void *arg, const struct bag_scan_item *it)
{
	struct entries *e = arg;
	struct checker *c = e->c;
	char err[BAG_ERROR_MESSAGE_MAX];   /* not zeroed: 512 bytes a message */
	uint64_t off = UINT64_MAX;

	c->st.messages++;
	/* the common case: a sound message, no timeline warning new since the last */
	if (it->rc == BAG_OK && e->warned == bag_timeline_warning_count(e->tl))
		return c->stop;
	err[0] = '\0';
	if (it->rc == BAG_EDECODE) {
		off = it->m->conn ? bag_chunk_pos(c->bag, it->m->chunk) : UINT64_MAX;
		snprintf(err, sizeof err, "%.*s", (int)it->len, it->text);
	} else if (it->rc != BAG_OK) {
		char full[BAG_ERROR_MESSAGE_MAX];
		snprintf(full, sizeof full, "%.*s", (int)it->len, it->text);
		snprintf(err, sizeof err, "%s", split_at(c->bag, full, &off));
	}
	return entry_problem(e, off, it->rc, err) != BAG_OK || c->stop;
}

/* A chunk's findings from the scan's workers, in order. */
static int entry_chunk_emit(void *arg, size_t bag_index, size_t chunk, const char *text, size_t len)
{
	struct entries *e = arg;
	(void)bag_index;
	(void)chunk;

	return chunk_emit_findings(e->c, text, len) != BAG_OK || e->c->stop;
}

/*
 * Pass 4: the index. Quick: every entry of the loaded timeline (no chunk
 * read). Full: a scan of every message (bag_scan, on every core): each read
 * through its index entry and decoded against its definition, each chunk
 * walked by chunk_findings() on the way.
 */
static int check_entries(struct checker *c, bool quick)
{
	bag_t *bag = c->bag;
	struct entries e = { .c = c };
	bag_view_t *v = NULL;
	struct bag_scan_stats st;
	struct bag_scan_opts so = { .size = sizeof so, .decode = true, .work = decode_work, .emit = entry_emit,
	                            .chunk = chunk_findings, .chunk_emit = entry_chunk_emit, .arg = &e };
	int rc;

	if ((rc = bag_timeline_open(&e.tl, &bag, 1)) != BAG_OK)
		goto fail;
	if ((rc = bag_view_open(&v, e.tl, NULL)) != BAG_OK) {
		rc = finding(c, UINT64_MAX, rc, "%s", strip_path(bag, bag_view_error(v)->message));
		goto fail;
	}
	if (!quick) {
		rc = bag_scan(v, &so, &st);
		c->st.messages += st.lost;
		if (rc == BAG_ECANCELED && c->stop)
			goto fail;
		if (rc != BAG_OK)
			rc = finding(c, UINT64_MAX, rc, "%s", strip_path(bag, bag_view_error(v)->message));
	}
	for (uint64_t row = 0; quick && rc == BAG_OK && row < bag_view_count(v) && !c->stop; row++) {
		struct bag_message m;
		uint64_t off = UINT64_MAX;
		int rrc = bag_view_entry(v, row, &m);

		c->st.messages++;
		rc = entry_problem(&e, off, rrc, rrc == BAG_OK ? "" : split_at(bag, bag_view_error(v)->message, &off));
	}
	if (rc == BAG_OK)
		rc = entry_problem(&e, UINT64_MAX, BAG_OK, "");
	if (rc == BAG_OK)
		rc = entry_repeats(&e);
fail:
	bag_view_free(v);
	bag_timeline_free(e.tl);
	return rc;
}

BAG_API int bag_check(bag_t *bag, unsigned flags, bag_finding_fn fn, void *arg,
                      struct bag_check_stats *stats)
{
	struct checker c = { .bag = bag, .fn = fn, .arg = arg };
	bool quick = (flags & BAG_CHECK_QUICK) != 0;
	bag_msgdef_t **defs = calloc(bag->nconns ? bag->nconns : 1, sizeof *defs);
	bag_msgdef_t **parsed = calloc(bag->nconns ? bag->nconns : 1, sizeof *parsed);
	bool *own = calloc(bag->nconns ? bag->nconns : 1, sizeof *own);
	int rc;

	if (defs == NULL || parsed == NULL || own == NULL) {
		rc = bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
		goto fail;
	}
	if ((rc = check_open(&c)) != BAG_OK)
		goto fail;
	/* pass 2 is of 2.0's record layout; an older bag's reader walked its records at open */
	if (!quick && bag->fmt->read_span == NULL && (rc = check_records(&c)) != BAG_OK)
		goto fail;
	if (!quick && bag->fmt->verify != NULL &&
	    (rc = bag->fmt->verify(bag, reader_finding, &c, &c.st.records)) != BAG_OK)
		goto fail;
	if ((rc = check_chunks(&c, quick)) != BAG_OK)
		goto fail;
	if (!quick && (rc = check_defs(&c, defs, parsed, own)) != BAG_OK)
		goto fail;
	/* the scan's handles are dups of bag: they check what sums a format's chunks carry (MCAP's CRCs) */
	bag->verify_sums = !quick;
	rc = check_entries(&c, quick);
	bag->verify_sums = false;
fail:
	for (size_t i = 0; parsed != NULL && own != NULL && i < bag->nconns; i++)
		if (own[i])
			bag_msgdef_free(parsed[i]);
	free(defs);
	free(c.said);
	free(parsed);
	free(own);
	if (stats != NULL)
		*stats = c.st;
	return rc;
}
