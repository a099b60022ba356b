/*
 * mcap-read.c - MCAP files (magic "\x89MCAP0\r\n"), ros1 and ros2 profiles,
 * as one more reader of the format table (reader-int.h).
 *
 * An MCAP file is records (opcode u8, length u64, content) between two
 * magics: a Header, the data section (Schema, Channel, Message, Chunk,
 * Message Index, Attachment, Metadata, Data End), then an optional summary
 * section (copies of Schema and Channel, Statistics, Chunk Index, Attachment
 * and Metadata Index records) that the Footer points at.
 *
 * Open from the summary: Footer -> summary section, read in one piece. Each
 * Chunk Index becomes one chunk of the handle; its per-channel counts are
 * the sizes of its Message Index records, which its offsets and
 * message_index_length give without a read (or else the lengths in their
 * headers: 15 bytes read per channel, never the entries). Start, end and totals come from the chunk
 * indexes (and agree with Statistics). No chunk is read at open unless a
 * chunk index names no message indexes, when that chunk is walked.
 *
 * Without a usable summary (a recording cut off, a writer that wrote none):
 * a forward scan of the data section, said once in the warnings. Chunks are
 * decompressed and walked (their Schema, Channel and Message records);
 * Messages outside chunks are cut into spans of about SPAN_BYTES. A record
 * cut off by the end of the file ends the scan with a loss: every complete
 * message before it is kept. A chunk whose CRC fails is warned about once
 * and its messages are counted lost (it yields none).
 *
 * Invariants after an open: connection i is the i-th channel by channel id
 * (so equal times keep channel id order); st->chan_conn maps a channel id to
 * its connection index + 1; st->spans[i] describes bag->chunks[i] (both in
 * file order); every chunk is stat_loaded. read_span hands out a span's
 * records as they are (a chunk's decompressed: no copy, no translation),
 * and the item op reads them for the chunk layer (mcap_item), so an index
 * offset is the Message record's offset in the chunk's records, as Message
 * Index records give it. A chunk whose Message Index records gave its
 * counts at open keeps their region (mi_pos, mi_len) and is not no_index:
 * the timeline gets its rows from those records (read_index, one read, no
 * chunk bytes); any other span is no_index (walked), as is a chunk whose
 * indexes turn out damaged.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/msgdef.h>
#include <bagscope/record.h>
#include "lib/formats/format-int.h"
#include "lib/common/util-int.h"

#define MCAP_MAGIC "\x89MCAP0\r\n"
#define MAGIC_LEN 8
#define FOOTER_LEN (1 + 8 + 20)
#define SPAN_BYTES ((uint64_t)4 << 20)      /* loose messages per span */
#define SUMMARY_MAX ((uint64_t)1 << 30)     /* a summary section read at once */
#define CHUNK_MAX ((uint64_t)UINT32_MAX - 1) /* a chunk's records, compressed or not */
#define NCHAN 65536

enum {
	OP_HEADER = 0x01, OP_FOOTER = 0x02, OP_SCHEMA = 0x03, OP_CHANNEL = 0x04, OP_MESSAGE = 0x05,
	OP_CHUNK = 0x06, OP_MESSAGE_INDEX = 0x07, OP_CHUNK_INDEX = 0x08, OP_ATTACHMENT = 0x09,
	OP_ATTACHMENT_INDEX = 0x0a, OP_STATISTICS = 0x0b, OP_METADATA = 0x0c, OP_METADATA_INDEX = 0x0d,
	OP_SUMMARY_OFFSET = 0x0e, OP_DATA_END = 0x0f,
};

/* A cursor over a record's content; any read past the end sets bad. */
struct cur {
	const uint8_t *p;
	uint64_t len, at;
	bool bad;
};

static bool take(struct cur *c, uint64_t n, const uint8_t **out)
{
	if (c->bad || n > c->len - c->at) {
		c->bad = true;
		*out = NULL;
		return false;
	}
	*out = c->p + c->at;
	c->at += n;
	return true;
}

static uint64_t get_n(struct cur *c, int n)
{
	const uint8_t *p;
	uint64_t v = 0;

	if (!take(c, (uint64_t)n, &p))
		return 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Skip n bytes. */
static void skip(struct cur *c, uint64_t n)
{
	const uint8_t *p;

	take(c, n, &p);
}

#define get8(c) ((uint8_t)get_n(c, 1))
#define get16(c) ((uint16_t)get_n(c, 2))
#define get32(c) ((uint32_t)get_n(c, 4))
#define get64(c) get_n(c, 8)

/* A string (u32 length, bytes) as [*s, *s + *n). */
static void get_str(struct cur *c, const char **s, uint32_t *n)
{
	const uint8_t *p;

	*n = get32(c);
	take(c, *n, &p);
	*s = p ? (const char *)p : "";
	if (p == NULL)
		*n = 0;
}

/* One schema or channel as the file gave it (pointing into a buffer the open keeps). */
struct schema {
	uint16_t id;
	const char *name, *encoding;
	uint32_t name_len, encoding_len;
	const uint8_t *data;
	uint32_t data_len;
};

struct channel {
	uint16_t id, schema_id;
	const char *topic, *encoding;
	uint32_t topic_len, encoding_len;
	const uint8_t *meta;      /* the metadata map's bytes */
	uint32_t meta_len;
};

/* One chunk of the handle: a Chunk record, or a run of loose Message records. */
struct mspan {
	bool chunk;
	enum bag_compression comp;
	uint64_t rec_pos, rec_len;  /* the chunk's (compressed) records, or the run's bytes */
	uint64_t usize;             /* a chunk's uncompressed size */
	uint32_t crc;               /* its uncompressed CRC (0: none) */
	uint64_t mi_pos, mi_len;    /* its Message Index records' bytes (mi_len 0: none usable) */
};


/* The reader's facts (bag->fmt_state). */
struct mcap_state {
	uint32_t *chan_conn;      /* [nchan]: channel id -> connection index + 1, 0 if none (see conn_of) */
	size_t nchan;
	struct mspan *spans;      /* parallel to bag->chunks */
	size_t nspans, spans_cap;
	char *profile, *library;
	bool summary;             /* opened from the summary */
	struct bag_file_item *items; /* attachments, then metadata (strings malloc'd) */
	size_t nitems;
};

/* What an open gathers before the connections are built. */
struct gather {
	bag_t *bag;
	struct mcap_state *st;
	struct schema *schemas;
	size_t nschemas, schemas_cap;
	struct channel *chans;
	size_t nchans, chans_cap;
	uint8_t **keep;           /* copies of the schema and channel records they point into */
	size_t nkeep, keep_cap;
	/* per span being built: counts by channel id, times */
	uint64_t *counts;         /* [ncounts], by channel id, grown as ids come */
	size_t ncounts;
	uint16_t *seen;           /* channel ids with a count, in first-seen order */
	size_t nseen, seen_cap;
	int64_t t0, t1;
	struct span_rec {         /* spans found, counts in cc[] by channel id */
		struct mspan m;
		uint64_t pos, end;
		int64_t t0, t1;
		size_t cc_first, cc_n;
	} *found;
	size_t nfound, found_cap;
	struct { uint16_t chan; uint64_t count; } *cc;
	size_t ncc, cc_cap;
	uint64_t loose_pos, loose_end; /* the run of loose messages being gathered */
	uint64_t loose_bytes;
	size_t chunk_cap, conn_cap, cconn_cap;
	bool failed;              /* the last chunk failed: its message indexes count losses */
	uint64_t lost;            /* messages in chunks that failed */
	size_t recovery_failed;   /* chunks that failed */
};

static struct mcap_state *st_of(const bag_t *bag)
{
	return bag->fmt_state;
}

static void mcap_free(void *state)
{
	struct mcap_state *st = state;

	if (st == NULL)
		return;
	free(st->chan_conn);
	free(st->spans);
	free(st->profile);
	free(st->library);
	for (size_t i = 0; i < st->nitems; i++) {
		free((char *)st->items[i].name);
		free((char *)st->items[i].media_type);
	}
	free(st->items);
	free(st);
}

static bool mcap_detect(const uint8_t *head, size_t len, uint64_t size)
{
	(void)size;
	return len >= MAGIC_LEN && memcmp(head, MCAP_MAGIC, MAGIC_LEN) == 0;
}

/* ---- gathering schemas, channels, counts ---------------------------------- */

static int oom(bag_t *bag)
{
	return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
}

/*
 * Whether the record c (whose content starts with a u16 id) is new among
 * ids[0..n) (strided by size); if so, c now reads a copy the open keeps
 * until the connections are built.
 */
static int keep_new(struct gather *g, struct cur *c, const void *ids, size_t n, size_t size, bool *fresh)
{
	uint16_t id = c->len >= 2 ? (uint16_t)(c->p[0] | c->p[1] << 8) : 0;
	uint8_t *copy;

	*fresh = false;
	for (size_t i = 0; i < n; i++)
		if (*(const uint16_t *)((const char *)ids + i * size) == id)
			return BAG_OK;
	if (bag_grow((void **)&g->keep, &g->keep_cap, g->nkeep + 1, sizeof *g->keep) != BAG_OK ||
	    (copy = malloc(c->len ? c->len : 1)) == NULL)
		return oom(g->bag);
	memcpy(copy, c->p, c->len);
	g->keep[g->nkeep++] = copy;
	c->p = copy;
	*fresh = true;
	return BAG_OK;
}

static int add_schema(struct gather *g, struct cur *c, uint64_t off)
{
	struct schema s;
	bool fresh;
	int rc = keep_new(g, c, g->schemas, g->nschemas, sizeof s, &fresh);

	if (rc != BAG_OK || !fresh)
		return rc;
	s.id = get16(c);
	get_str(c, &s.name, &s.name_len);
	get_str(c, &s.encoding, &s.encoding_len);
	s.data_len = get32(c);
	take(c, s.data_len, &s.data);
	if (c->bad)
		return bag_warn(g->bag, off, "schema record overruns its length; skipped");
	if (bag_grow((void **)&g->schemas, &g->schemas_cap, g->nschemas + 1, sizeof s) != BAG_OK)
		return oom(g->bag);
	g->schemas[g->nschemas++] = s;
	return BAG_OK;
}

static int add_channel(struct gather *g, struct cur *c, uint64_t off)
{
	struct channel ch;
	bool fresh;
	int rc = keep_new(g, c, g->chans, g->nchans, sizeof ch, &fresh);

	if (rc != BAG_OK || !fresh)
		return rc;
	ch.id = get16(c);
	ch.schema_id = get16(c);
	get_str(c, &ch.topic, &ch.topic_len);
	get_str(c, &ch.encoding, &ch.encoding_len);
	ch.meta_len = get32(c);
	take(c, ch.meta_len, &ch.meta);
	if (c->bad)
		return bag_warn(g->bag, off, "channel record overruns its length; skipped");
	if (bag_grow((void **)&g->chans, &g->chans_cap, g->nchans + 1, sizeof ch) != BAG_OK)
		return oom(g->bag);
	g->chans[g->nchans++] = ch;
	return BAG_OK;
}

/*
 * The zeroed table *p of *n elem-byte entries, grown (by bag_grow's
 * doubling, new entries zeroed) to at least need, which is at most NCHAN:
 * channel ids are 16 bits, but a file names only a few, so the tables grow
 * with the ids seen.
 */
static int grow_zeroed(void **p, size_t *n, size_t need, size_t elem)
{
	size_t cap = *n;

	if (need <= *n)
		return BAG_OK;
	if (bag_grow(p, &cap, need, elem) != BAG_OK)
		return BAG_ENOMEM;
	memset((uint8_t *)*p + *n * elem, 0, (cap - *n) * elem);
	*n = cap;
	return BAG_OK;
}

/* The connection index + 1 of channel chan, 0 if it has none. */
static uint32_t conn_of(const struct mcap_state *st, uint32_t chan)
{
	return chan < st->nchan ? st->chan_conn[chan] : 0;
}

/* Count n messages on channel chan between times t0 and t1 into the span being built. */
static int count_msgs(struct gather *g, uint16_t chan, uint64_t n, int64_t t0, int64_t t1)
{
	if (grow_zeroed((void **)&g->counts, &g->ncounts, (size_t)chan + 1, sizeof *g->counts) != BAG_OK ||
	    bag_grow((void **)&g->seen, &g->seen_cap, g->nseen + 1, sizeof *g->seen) != BAG_OK)
		return oom(g->bag);
	if (g->counts[chan] == 0)
		g->seen[g->nseen++] = chan;
	g->counts[chan] += n;
	if (t0 < g->t0)
		g->t0 = t0;
	if (t1 > g->t1)
		g->t1 = t1;
	return BAG_OK;
}

/* End the span being built as m over file bytes [pos, end) (dropped if it holds nothing). */
static int span_done(struct gather *g, const struct mspan *m, uint64_t pos, uint64_t end)
{
	struct span_rec *s;

	if (g->nseen > 0) {
		if (bag_grow((void **)&g->found, &g->found_cap, g->nfound + 1, sizeof *g->found) != BAG_OK ||
		    bag_grow((void **)&g->cc, &g->cc_cap, g->ncc + g->nseen, sizeof *g->cc) != BAG_OK)
			return oom(g->bag);
		s = &g->found[g->nfound++];
		*s = (struct span_rec){ *m, pos, end, g->t0, g->t1, g->ncc, g->nseen };
		for (size_t k = 0; k < g->nseen; k++) {
			g->cc[g->ncc].chan = g->seen[k];
			g->cc[g->ncc++].count = g->counts[g->seen[k]];
			g->counts[g->seen[k]] = 0;
		}
	}
	g->nseen = 0;
	g->t0 = INT64_MAX;
	g->t1 = INT64_MIN;
	return BAG_OK;
}

/* A log_time as the handle's signed nanoseconds. */
static int64_t mtime(uint64_t t)
{
	return t > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)t;
}

/* ---- chunks --------------------------------------------------------------- */

/* The compression named [s, s + n): "" is none. BAG_EUNSUPP for others. */
static int comp_of(const char *s, uint32_t n, enum bag_compression *c)
{
	if (n == 0) {
		*c = BAG_COMPRESSION_NONE;
		return BAG_OK;
	}
	if ((n == 3 && memcmp(s, "lz4", 3) == 0) || (n == 4 && memcmp(s, "zstd", 4) == 0))
		return bag_compression_parse(s, n, c);
	return BAG_EUNSUPP;
}

/*
 * The records of the Chunk record whose content is c (its header fields
 * read into *m), decompressed and CRC-checked into *out (malloc'd, *out_len
 * bytes). A CRC (when crc: the open's scan, and reading a span for
 * bag_check(), whose handles have verify_sums set) or decompression failure is BAG_ECOMPRESS with the
 * handle's message set.
 */
static int chunk_records(bag_t *bag, struct cur *c, uint64_t off, struct mspan *m, uint8_t **out,
                         uint64_t *out_len, bool crc)
{
	const char *cs;
	uint32_t cn;
	const uint8_t *recs;
	struct bag_inflated inf = { 0 };
	int rc;

	*out = NULL;
	skip(c, 8);
	skip(c, 8);
	m->usize = get64(c);
	m->crc = get32(c);
	get_str(c, &cs, &cn);
	m->rec_len = get64(c);
	m->rec_pos = off + 9 + c->at;
	if (!take(c, m->rec_len, &recs))
		return bag_fail(bag, BAG_ECORRUPT, off, "chunk record overruns its length");
	if (comp_of(cs, cn, &m->comp) != BAG_OK)
		return bag_fail(bag, BAG_EUNSUPP, off, "chunk compression '%.*s' is not supported", (int)(cn > 32 ? 32 : cn), cs);
	if (m->usize > CHUNK_MAX || m->usize > bag_codec_size_cap(m->comp, m->rec_len))
		return bag_fail(bag, BAG_ECORRUPT, off, "chunk claims %llu uncompressed bytes from %llu: implausible",
		                (unsigned long long)m->usize, (unsigned long long)m->rec_len);
	if ((inf.buf = malloc(m->usize + 1)) == NULL)
		return oom(bag);
	inf.own_sum = crc && m->crc != 0;
	rc = bag_codec_inflate(&bag->codec, m->comp, recs, m->rec_len, m->usize + 1, 0, false, &inf);
	if (rc == BAG_EUNSUPP)
		rc = bag_fail(bag, rc, off, "%s chunks are not supported by this build", bag_compression_name(m->comp));
	else if (rc != BAG_OK)
		rc = oom(bag);
	else if (!inf.ended || inf.len != m->usize)
		rc = bag_fail(bag, BAG_ECOMPRESS, off, "%s chunk does not decompress to its %llu byte%s%s%s",
		              bag_compression_name(m->comp), (unsigned long long)m->usize, BAG_S(m->usize),
		              inf.err.message[0] ? ": " : "", inf.err.message);
	else if (crc && m->crc != 0 && bag_crc32(0, inf.buf, inf.len) != m->crc)
		rc = bag_fail(bag, BAG_ECOMPRESS, off, "chunk CRC mismatch (its records are damaged)");
	if (rc != BAG_OK) {
		free(inf.buf);
		return rc;
	}
	*out = inf.buf;
	*out_len = inf.len;
	return BAG_OK;
}

/* Walk decompressed chunk records: schemas and channels gathered (g) and messages counted. */
static int walk_records(struct gather *g, uint8_t *recs, uint64_t len, uint64_t off)
{
	uint64_t at = 0;
	int rc;

	while (len - at >= 9) {
		uint8_t op = recs[at];
		uint64_t n = bag_le64(recs + at + 1);
		struct cur c = { recs + at + 9, n, 0, false };
		if (n > len - at - 9)
			return bag_warn(g->bag, off, "a record inside the chunk overruns it; the rest is skipped");
		if (op == OP_SCHEMA)
			rc = add_schema(g, &c, off);
		else if (op == OP_CHANNEL)
			rc = add_channel(g, &c, off);
		else
			rc = BAG_OK;
		if (rc != BAG_OK)
			return rc;
		if (op == OP_MESSAGE && n >= 22) {
			int64_t t = mtime(bag_le64(recs + at + 9 + 6));
			if ((rc = count_msgs(g, (uint16_t)(recs[at + 9] | recs[at + 10] << 8), 1, t, t)) != BAG_OK)
				return rc;
		}
		at += 9 + n;
	}
	return BAG_OK;
}

/*
 * The Chunk record at off (content c) walked: its schemas, channels and
 * message counts become a span. A chunk that fails its CRC or cannot be
 * decompressed is warned about and skipped.
 */
static int walk_chunk(struct gather *g, struct cur *c, uint64_t off, uint64_t end)
{
	struct mspan m = { .chunk = true };
	uint8_t *recs;
	uint64_t len;
	int rc = chunk_records(g->bag, c, off, &m, &recs, &len, true);

	if (rc == BAG_ECOMPRESS || rc == BAG_ECORRUPT || rc == BAG_EUNSUPP) {
		g->failed = true;
		g->recovery_failed++;
		return bag_warn(g->bag, UINT64_MAX, "%s; its messages are lost", g->bag->err.message + strlen(g->bag->path) + 2);
	}
	if (rc == BAG_OK)
		rc = walk_records(g, recs, len, off);
	free(recs);
	return rc == BAG_OK ? span_done(g, &m, off, end) : rc;
}

/* ---- the forward scan ----------------------------------------------------- */

static int add_item(bag_t *bag, const char *name, uint32_t nlen, const char *media, uint32_t mlen, uint64_t size,
                    bool attachment);

/* A window of the file read ahead during a scan. */
struct window {
	uint8_t *buf;
	size_t cap;               /* its size: WINDOW when 0 (set before the first peek) */
	uint64_t pos, len;
};

#define WINDOW ((size_t)1 << 20)
#define CHECK_WINDOW ((size_t)64 << 10)  /* check's walk: a chunk's header, or its message indexes */

/*
 * n bytes at file offset off into *p (borrowed: from the window, or from
 * *big, malloc'd, when n is larger than it). BAG_ETRUNCATED past the end.
 */
static int peek(bag_t *bag, struct window *w, uint64_t off, uint64_t n, const uint8_t **p, uint8_t **big)
{
	uint64_t avail;
	int rc;

	if (n > bag->file_size || off > bag->file_size - n)
		return BAG_ETRUNCATED;
	if (off >= w->pos && off + n <= w->pos + w->len) {
		*p = w->buf + (off - w->pos);
		return BAG_OK;
	}
	if (w->cap == 0)   /* a small file gets a window of its size */
		w->cap = bag->file_size < WINDOW ? (size_t)bag->file_size : WINDOW;
	if (n > w->cap) {
		free(*big);
		if ((*big = malloc((size_t)n)) == NULL)
			return oom(bag);
		if ((rc = bag_read_at(bag, off, *big, (size_t)n)) != BAG_OK)
			return rc;
		*p = *big;
		return BAG_OK;
	}
	if (w->buf == NULL && (w->buf = malloc(w->cap)) == NULL)
		return oom(bag);
	avail = bag->file_size - off;
	w->pos = off;
	w->len = avail < w->cap ? avail : w->cap;
	if ((rc = bag_read_at(bag, off, w->buf, (size_t)w->len)) != BAG_OK) {
		w->len = 0;
		return rc;
	}
	*p = w->buf;
	return BAG_OK;
}

/* End the run of loose messages being gathered (if any). */
static int loose_cut(struct gather *g)
{
	struct mspan m = { .chunk = false };
	int rc = BAG_OK;

	if (g->loose_bytes > 0)
		rc = span_done(g, &m, g->loose_pos, g->loose_end);
	g->loose_bytes = 0;
	return rc;
}

/* One record of the scan (opcode op, content of len bytes at file offset off, c its first bytes). */
static int scan_record(struct gather *g, uint8_t op, struct cur *c, uint64_t len, uint64_t off)
{
	int rc = BAG_OK;

	if (op != OP_MESSAGE_INDEX)
		g->failed = false;
	switch (op) {
	case OP_SCHEMA: return add_schema(g, c, off);
	case OP_CHANNEL: return add_channel(g, c, off);
	case OP_MESSAGE_INDEX: {
		skip(c, 2);
		if (g->failed)
			g->lost += get32(c) / 16;
		return BAG_OK;
	}
	case OP_ATTACHMENT: case OP_METADATA: {
		const char *name, *media = NULL;
		uint32_t nlen, mlen = 0;
		uint64_t size = len;
		if (op == OP_ATTACHMENT)
			skip(c, 16);
		get_str(c, &name, &nlen);
		if (op == OP_ATTACHMENT) {
			get_str(c, &media, &mlen);
			size = get64(c);
		}
		return c->bad ? BAG_OK : add_item(g->bag, name, nlen, media ? media : "", mlen, size, op == OP_ATTACHMENT);
	}
	case OP_CHUNK:
		if ((rc = loose_cut(g)) == BAG_OK)
			rc = walk_chunk(g, c, off, off + 9 + c->len);
		return rc;
	case OP_MESSAGE: {
		uint16_t chan = get16(c);
		skip(c, 4);
		int64_t t = mtime(get64(c));
		if (c->bad)
			return bag_warn(g->bag, off, "message record of %llu byte%s is too short; skipped",
			                (unsigned long long)len, BAG_S(len));
		if (g->loose_bytes >= SPAN_BYTES && (rc = loose_cut(g)) != BAG_OK)
			return rc;
		if (g->loose_bytes == 0)
			g->loose_pos = off;
		g->loose_end = off + 9 + len;
		g->loose_bytes += 9 + len;
		return count_msgs(g, chan, 1, t, t);
	}
	default:
		return BAG_OK;
	}
}

/* The bytes a scan reads of a record's content: all of it for the records it parses. */
static uint64_t scan_need(uint8_t op, uint64_t len)
{
	switch (op) {
	case OP_SCHEMA: case OP_CHANNEL: case OP_CHUNK: return len;
	case OP_MESSAGE: return len < 22 ? len : 22;
	case OP_MESSAGE_INDEX: return len < 6 ? len : 6;
	case OP_ATTACHMENT: case OP_METADATA: return len < 4096 ? len : 4096;
	default: return 0;
	}
}

/*
 * Every record of the data section from byte from, in order, to the Data
 * End or Footer record or the end of the file. A record cut off by the end
 * of the file (or one whose length runs past it) ends the scan with a loss.
 */
static int scan(struct gather *g, uint64_t from, const char *reason)
{
	bag_t *bag = g->bag;
	struct window w = { 0 };
	uint8_t *big = NULL;
	uint64_t off = from, last = 0;
	int rc;

	if ((rc = bag_warn(bag, UINT64_MAX, "%s: read by a forward scan of the data section", reason)) != BAG_OK)
		return rc;
	while (off < bag->file_size) {
		const uint8_t *p;
		if ((rc = peek(bag, &w, off, 9, &p, &big)) != BAG_OK)
			break;
		uint8_t op = p[0];
		uint64_t len = bag_le64(p + 1);
		if (op == OP_DATA_END || op == OP_FOOTER || (op == 0x89 && off + MAGIC_LEN == bag->file_size))
			break;
		if (len > bag->file_size - off - 9) {
			rc = BAG_ETRUNCATED;
			break;
		}
		struct cur c = { NULL, scan_need(op, len), 0, false };
		if (c.len > 0 && (rc = peek(bag, &w, off + 9, c.len, &c.p, &big)) != BAG_OK)
			break;
		if ((rc = scan_record(g, op, &c, len, off)) != BAG_OK)
			break;
		off += 9 + len;
		if ((rc = old_progress(bag, off, &last)) != BAG_OK)
			break;
	}
	if (rc == BAG_ETRUNCATED) {
		char what[160];
		snprintf(what, sizeof what, "the file is cut off at byte %llu inside a record starting at byte %llu",
		         (unsigned long long)bag->file_size, (unsigned long long)off);
		if ((rc = bag_warn(bag, off, "%s", what)) == BAG_OK)
			rc = old_add_loss(bag, off, bag->file_size, what);
	}
	if (rc == BAG_OK)
		rc = loose_cut(g);
	bag->recovery.records_end = off;
	free(w.buf);
	free(big);
	return rc;
}

/* ---- the summary ---------------------------------------------------------- */

/* One Chunk Index record, as much as the open uses. */
struct chunk_index {
	int64_t t0, t1;
	uint64_t pos, len;        /* the Chunk record */
	const uint8_t *mi;        /* its message index offsets: u16 channel, u64 offset each */
	uint32_t mi_len;
	uint64_t mi_total;        /* the bytes of its message index records */
	enum bag_compression comp;
	uint64_t comp_size, usize;  /* the chunk's records, compressed and not */
};

static int cmp_ci(const void *a, const void *b)
{
	const struct chunk_index *x = a, *y = b;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

static bool parse_chunk_index(struct cur *c, struct chunk_index *ci)
{
	const char *cs;
	uint32_t cn;

	ci->t0 = mtime(get64(c));
	ci->t1 = mtime(get64(c));
	ci->pos = get64(c);
	ci->len = get64(c);
	ci->mi_len = get32(c);
	take(c, ci->mi_len, &ci->mi);
	ci->mi_total = get64(c);
	get_str(c, &cs, &cn);
	ci->comp_size = get64(c);
	ci->usize = get64(c);
	return !c->bad && ci->mi_len % 10 == 0 && comp_of(cs, cn, &ci->comp) == BAG_OK;
}

/* Add an attachment (with its media type) or a metadata record to the listed items. */
static int add_item(bag_t *bag, const char *name, uint32_t nlen, const char *media, uint32_t mlen, uint64_t size,
                    bool attachment)
{
	struct mcap_state *st = st_of(bag);
	struct bag_file_item *it = realloc(st->items, (st->nitems + 1) * sizeof *it);

	if (it == NULL)
		return oom(bag);
	st->items = it;
	it += st->nitems;
	it->name = strndup(name, nlen);
	it->media_type = attachment ? strndup(media, mlen) : NULL;
	it->size = size;
	st->nitems++;
	return it->name == NULL || (attachment && it->media_type == NULL) ? oom(bag) : BAG_OK;
}

/* An Attachment Index or Metadata Index record of the summary. */
static int summary_item(bag_t *bag, uint8_t op, struct cur *c)
{
	const char *name, *media = NULL;
	uint32_t nlen, mlen = 0;
	uint64_t size;

	skip(c, 8);
	size = get64(c);
	if (op == OP_ATTACHMENT_INDEX) {
		skip(c, 8);
		skip(c, 8);
		size = get64(c);
	}
	get_str(c, &name, &nlen);
	if (op == OP_ATTACHMENT_INDEX)
		get_str(c, &media, &mlen);
	return c->bad ? BAG_OK : add_item(bag, name, nlen, media ? media : "", mlen, size, op == OP_ATTACHMENT_INDEX);
}

/* A chunk's message index offsets, sorted by offset. */
struct mi_at {
	uint64_t at;
	uint16_t chan;
};

static int cmp_mi_at(const void *a, const void *b)
{
	const struct mi_at *x = a, *y = b;
	return (x->at > y->at) - (x->at < y->at);
}

/*
 * The counts of chunk ci by channel with no read: Message Index records
 * follow their chunk back to back, so each one's size is the distance to
 * the next (the last one's, to the end of the message_index_length bytes),
 * and a record of n entries is 15 + 16 n bytes. *ok false when the offsets
 * do not frame such records.
 */
static int counts_from_offsets(struct gather *g, const struct chunk_index *ci, bool *ok, struct mspan *m)
{
	size_t n = ci->mi_len / 10;
	struct mi_at *v = malloc((n ? n : 1) * sizeof *v);
	uint64_t end;

	*ok = false;
	if (v == NULL)
		return oom(g->bag);
	for (size_t k = 0; k < n; k++)
		v[k] = (struct mi_at){ bag_le64(ci->mi + 10 * k + 2), (uint16_t)(ci->mi[10 * k] | ci->mi[10 * k + 1] << 8) };
	bag_sort(v, n, sizeof *v, cmp_mi_at);
	end = n > 0 ? v[0].at + ci->mi_total : 0;
	*ok = n > 0 && v[0].at >= ci->pos + ci->len && end >= v[0].at && end <= g->bag->file_size;
	for (size_t k = 0; *ok && k < n; k++) {
		uint64_t size = (k + 1 < n ? v[k + 1].at : end) - v[k].at;
		*ok = (k + 1 == n || v[k + 1].at > v[k].at) && size >= 15 && (size - 15) % 16 == 0 && v[k].at < end;
	}
	for (size_t k = 0; *ok && k < n; k++) {
		uint64_t size = (k + 1 < n ? v[k + 1].at : end) - v[k].at;
		if (size > 15 && count_msgs(g, v[k].chan, (size - 15) / 16, ci->t0, ci->t1) != BAG_OK)
			return BAG_ENOMEM;
	}
	if (*ok && ci->mi_total <= SUMMARY_MAX) {
		m->mi_pos = v[0].at;
		m->mi_len = ci->mi_total;
	}
	free(v);
	return BAG_OK;
}

/*
 * The counts of chunk ci by channel from the headers of its Message Index
 * records (15 bytes read each) into the span being built, when the offsets
 * alone do not give them; *ok false when they do not hold up (then the
 * chunk is walked instead).
 */
static int index_counts(struct gather *g, const struct chunk_index *ci, bool *ok, struct mspan *m)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	int rc;

	if ((rc = counts_from_offsets(g, ci, ok, m)) != BAG_OK || *ok)
		return rc;
	*ok = ci->mi_len > 0;
	for (uint32_t k = 0; *ok && k < ci->mi_len; k += 10) {
		uint16_t chan = (uint16_t)(ci->mi[k] | ci->mi[k + 1] << 8);
		uint64_t at = bag_le64(ci->mi + k + 2);
		uint8_t h[15];
		if (at > g->bag->file_size || g->bag->file_size - at < sizeof h) {
			*ok = false;
			break;
		}
		if ((rc = bag_read_at(g->bag, at, h, sizeof h)) != BAG_OK)
			return rc;
		uint64_t n = bag_le64(h + 1);
		uint32_t bytes = bag_le32(h + 11);
		if (h[0] != OP_MESSAGE_INDEX || (h[9] | h[10] << 8) != chan || n < 6 || bytes > n - 6 || bytes % 16) {
			*ok = false;
			break;
		}
		if (bytes > 0 && count_msgs(g, chan, bytes / 16, ci->t0, ci->t1) != BAG_OK)
			return BAG_ENOMEM;
		lo = at < lo ? at : lo;
		hi = n > g->bag->file_size - at - 9 ? UINT64_MAX : at + 9 + n > hi ? at + 9 + n : hi;
	}
	/* the records' region is read in one piece when the chunk's rows are needed */
	if (*ok && hi <= g->bag->file_size && hi - lo <= SUMMARY_MAX) {
		m->mi_pos = lo;
		m->mi_len = hi - lo;
	}
	if (!*ok)
		for (size_t k = 0; k < g->nseen; k++)
			g->counts[g->seen[k]] = 0;
	if (!*ok)
		g->nseen = 0;
	return BAG_OK;
}

/* Chunk ci walked from its data: read, decompressed, its messages counted. */
static int walk_indexed_chunk(struct gather *g, const struct chunk_index *ci)
{
	uint8_t *buf;
	int rc;

	if (ci->len < 9 || ci->len > CHUNK_MAX || ci->pos > g->bag->file_size - ci->len)
		return bag_warn(g->bag, ci->pos, "chunk index points past the end of the file; chunk skipped");
	if ((buf = malloc((size_t)ci->len)) == NULL)
		return oom(g->bag);
	rc = bag_read_at(g->bag, ci->pos, buf, (size_t)ci->len);
	if (rc == BAG_OK && buf[0] != OP_CHUNK)
		rc = bag_warn(g->bag, ci->pos, "chunk index points at a record that is not a chunk; skipped");
	else if (rc == BAG_OK) {
		struct cur c = { buf + 9, ci->len - 9, 0, false };
		rc = walk_chunk(g, &c, ci->pos, ci->pos + ci->len);
	}
	free(buf);
	return rc;
}

/* The chunks of the summary's chunk indexes, in file order. */
static int summary_chunks(struct gather *g, struct chunk_index *cis, size_t n)
{
	int rc = BAG_OK;

	bag_sort(cis, n, sizeof *cis, cmp_ci);
	for (size_t i = 0; i < n && rc == BAG_OK; i++) {
		struct mspan m = { .chunk = true, .comp = cis[i].comp, .rec_len = cis[i].comp_size, .usize = cis[i].usize };
		bool ok = false;
		if (i > 0 && cis[i].pos < cis[i - 1].pos + cis[i - 1].len) {
			rc = bag_warn(g->bag, cis[i].pos, "chunk index overlaps the chunk before it; skipped");
			continue;
		}
		if ((rc = index_counts(g, &cis[i], &ok, &m)) != BAG_OK)
			break;
		rc = ok ? span_done(g, &m, cis[i].pos, cis[i].pos + cis[i].len) : walk_indexed_chunk(g, &cis[i]);
	}
	return rc;
}

/*
 * The summary section's records. *use false when the file has no usable
 * summary (why says why) or holds messages outside chunks (then it is
 * scanned instead).
 */
static int summary_records(struct gather *g, struct cur *c, uint64_t base, bool *use, char *why, size_t whylen)
{
	struct chunk_index *cis = NULL;
	size_t ncis = 0, cap = 0;
	uint64_t stats_count = 0;
	int rc = BAG_OK;

	while (rc == BAG_OK && c->len - c->at >= 9) {
		uint64_t off = base + c->at;
		uint8_t op = get8(c);
		uint64_t n = get64(c);
		const uint8_t *p;
		if (!take(c, n, &p)) {
			snprintf(why, whylen, "summary record at byte %llu overruns the summary", (unsigned long long)off);
			goto fail;
		}
		struct cur r = { p, n, 0, false };
		if (op == OP_SCHEMA)
			rc = add_schema(g, &r, off);
		else if (op == OP_CHANNEL)
			rc = add_channel(g, &r, off);
		else if (op == OP_ATTACHMENT_INDEX || op == OP_METADATA_INDEX)
			rc = summary_item(g->bag, op, &r);
		else if (op == OP_STATISTICS)
			stats_count = get64(&r);
		else if (op == OP_CHUNK_INDEX) {
			if (bag_grow((void **)&cis, &cap, ncis + 1, sizeof *cis) != BAG_OK) {
				rc = oom(g->bag);
				break;
			}
			if (!parse_chunk_index(&r, &cis[ncis])) {
				snprintf(why, whylen, "chunk index at byte %llu is malformed", (unsigned long long)off);
				goto fail;
			}
			ncis++;
		}
	}
	if (rc == BAG_OK && ncis == 0 && stats_count > 0) {
		snprintf(why, whylen, "the summary indexes no chunks but counts messages");
		goto fail;
	}
	if (rc == BAG_OK)
		rc = summary_chunks(g, cis, ncis);
	*use = true;
	free(cis);
	return rc;
fail:
	*use = false;
	free(cis);
	return rc;
}

/* Open from the Footer and the summary section it names; *use false if there is none usable. */
static int open_summary(struct gather *g, bool *use, char *why, size_t whylen)
{
	bag_t *bag = g->bag;
	uint8_t foot[FOOTER_LEN + MAGIC_LEN], *sum = NULL;
	uint64_t fpos, start, len;
	int rc;

	*use = false;
	if (bag->file_size < 2 * MAGIC_LEN + FOOTER_LEN) {
		snprintf(why, whylen, "no footer");
		return BAG_OK;
	}
	fpos = bag->file_size - sizeof foot;
	if ((rc = bag_read_at(bag, fpos, foot, sizeof foot)) != BAG_OK)
		return rc;
	if (foot[0] != OP_FOOTER || bag_le64(foot + 1) != 20 || memcmp(foot + FOOTER_LEN, MCAP_MAGIC, MAGIC_LEN)) {
		snprintf(why, whylen, "no footer (the file does not end with one: cut off?)");
		return BAG_OK;
	}
	start = bag_le64(foot + 9);
	if (start == 0) {
		snprintf(why, whylen, "no summary section");
		return BAG_OK;
	}
	if (start < MAGIC_LEN || start > fpos || fpos - start > SUMMARY_MAX) {
		snprintf(why, whylen, "footer's summary start %llu is out of range", (unsigned long long)start);
		return BAG_OK;
	}
	len = fpos - start;
	if ((sum = malloc(len + FOOTER_LEN)) == NULL)
		return oom(bag);
	if ((rc = bag_read_at(bag, start, sum, (size_t)len)) == BAG_OK) {
		uint32_t crc = bag_le32(foot + 25);
		memcpy(sum + len, foot, 25);
		if (crc != 0 && bag_crc32(0, sum, len + 25) != crc) {
			snprintf(why, whylen, "summary CRC mismatch");
		} else {
			struct cur c = { sum, len, 0, false };
			rc = summary_records(g, &c, start, use, why, whylen);
		}
	}
	free(sum);
	return rc;
}

/* ---- connections and chunks ----------------------------------------------- */

static int cmp_cc(const void *a, const void *b)
{
	const struct chunk_conn *x = a, *y = b;
	return (x->conn > y->conn) - (x->conn < y->conn);
}

static int cmp_chan(const void *a, const void *b)
{
	const struct channel *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

static const struct schema *schema_by_id(const struct gather *g, uint16_t id)
{
	for (size_t i = 0; i < g->nschemas; i++)
		if (g->schemas[i].id == id)
			return &g->schemas[i];
	return NULL;
}

static bool str_is(const char *s, uint32_t n, const char *lit)
{
	return n == strlen(lit) && memcmp(s, lit, n) == 0;
}

/* Header fields being built for a connection: names NUL-terminated in names[]. */
struct fields {
	struct bag_kv kv[64];
	size_t n;
	char names[4096];
	size_t used;
};

static void field_add(struct fields *f, const char *name, size_t nlen, const char *v, size_t vlen)
{
	for (size_t i = 0; i < f->n; i++)
		if (strlen(f->kv[i].name) == nlen && memcmp(f->kv[i].name, name, nlen) == 0)
			return;
	if (f->n == sizeof f->kv / sizeof *f->kv || nlen + 1 > sizeof f->names - f->used)
		return;
	memcpy(f->names + f->used, name, nlen);
	f->names[f->used + nlen] = '\0';
	f->kv[f->n++] = (struct bag_kv){ f->names + f->used, v, vlen };
	f->used += nlen + 1;
}

/* The channel's metadata as fields, in order; latching "true"/"false" as ROS's "1"/"0". */
static void meta_fields(const struct channel *ch, struct fields *f)
{
	struct cur c = { ch->meta, ch->meta_len, 0, false };

	while (!c.bad && c.at < c.len) {
		const char *k, *v;
		uint32_t kn, vn;
		get_str(&c, &k, &kn);
		get_str(&c, &v, &vn);
		if (!c.bad && kn > 0 && str_is(k, kn, "latching") && (str_is(v, vn, "true") || str_is(v, vn, "false")))
			field_add(f, k, kn, v[0] == 't' ? "1" : "0", 1);
		else if (!c.bad && kn > 0)
			field_add(f, k, kn, v, vn);
	}
}

/* The md5 of a ros1msg schema by the ROS rule into md5[33]; false if it does not parse. */
static bool schema_md5(const struct schema *s, char md5[33])
{
	char type[256], *def = strndup((const char *)s->data, s->data_len);
	bag_msgdef_t *md = NULL;
	bool ok;

	snprintf(type, sizeof type, "%.*s", (int)(s->name_len > 200 ? 200 : s->name_len), s->name);
	ok = def != NULL && bag_msgdef_parse(&md, type, def, strlen(def)) == BAG_OK;
	if (ok)
		memcpy(md5, bag_msgdef_md5(md), 33);
	bag_msgdef_free(md);
	free(def);
	return ok;
}

/*
 * The connection of channel ch. Its header fields: topic, type (the schema
 * name), message_definition (a ros1msg schema with ros1 messages, or ros2msg
 * with cdr), the channel's metadata in order (callerid, latching ...), and
 * md5sum unless the metadata has one: recomputed from a ros1msg schema, "*"
 * otherwise. A definition it cannot use is left out (bytes) with a warning.
 */
static int add_conn(struct gather *g, const struct channel *ch)
{
	const struct schema *s = schema_by_id(g, ch->schema_id);
	bool ros1 = str_is(ch->encoding, ch->encoding_len, "ros1"), cdr = str_is(ch->encoding, ch->encoding_len, "cdr");
	bool usable = s != NULL && ((ros1 && str_is(s->encoding, s->encoding_len, "ros1msg")) ||
	                            (cdr && str_is(s->encoding, s->encoding_len, "ros2msg")));
	struct fields *f = calloc(1, sizeof *f);
	char topic[4096], md5[33] = "*";
	int rc;

	if (f == NULL)
		return oom(g->bag);
	snprintf(topic, sizeof topic, "%.*s", (int)(ch->topic_len < sizeof topic ? ch->topic_len : sizeof topic - 1), ch->topic);
	field_add(f, "topic", 5, topic, strlen(topic));
	field_add(f, "type", 4, s ? s->name : "", s ? s->name_len : 0);
	if (usable)
		field_add(f, "message_definition", 18, (const char *)s->data, s->data_len);
	meta_fields(ch, f);
	if (usable && ros1)
		schema_md5(s, md5);
	field_add(f, "md5sum", 6, md5, strlen(md5));
	struct bag_connection *c;
	if (bag_grow((void **)&g->bag->conns, &g->conn_cap, g->bag->nconns + 1, sizeof *g->bag->conns) != BAG_OK ||
	    bag_conn_build(c = &g->bag->conns[g->bag->nconns], (uint32_t)g->bag->nconns, topic, f->kv, f->n) != BAG_OK) {
		free(f);
		return oom(g->bag);
	}
	free(f);
	c->index = c->id;
	c->encoding = cdr ? BAG_ENCODING_CDR : BAG_ENCODING_ROS1;
	g->bag->nconns++;
	if (grow_zeroed((void **)&g->st->chan_conn, &g->st->nchan, (size_t)ch->id + 1, sizeof *g->st->chan_conn) != BAG_OK)
		return oom(g->bag);
	g->st->chan_conn[ch->id] = (uint32_t)g->bag->nconns;
	if (!usable && (rc = bag_warn(g->bag, UINT64_MAX, "topic %s: %s%.*s schema with %.*s messages is not read; "
	                              "they are shown as bytes", topic, s ? "" : "no",
	                              s ? (int)(s->encoding_len > 32 ? 32 : s->encoding_len) : 0, s ? s->encoding : "",
	                              (int)(ch->encoding_len > 32 ? 32 : ch->encoding_len), ch->encoding)) != BAG_OK)
		return rc;
	return BAG_OK;
}

/* The spans found as the handle's chunks, with their counts by connection. */
static int add_chunks(struct gather *g)
{
	bag_t *bag = g->bag;
	struct chunk_conn *cc = NULL;
	size_t cap = 0;
	uint64_t orphans = 0;
	int rc = BAG_OK;

	if (bag_grow((void **)&g->st->spans, &g->st->spans_cap, g->nfound + 1, sizeof *g->st->spans) != BAG_OK)
		return oom(bag);
	for (size_t i = 0; i < g->nfound && rc == BAG_OK; i++) {
		const struct span_rec *s = &g->found[i];
		size_t n = 0;
		if (bag_grow((void **)&cc, &cap, s->cc_n + 1, sizeof *cc) != BAG_OK) {
			rc = oom(bag);
			break;
		}
		for (size_t k = 0; k < s->cc_n; k++) {
			uint32_t conn = conn_of(g->st, g->cc[s->cc_first + k].chan);
			if (conn > 0)
				cc[n++] = (struct chunk_conn){ conn - 1, (uint32_t)g->cc[s->cc_first + k].count };
			else
				orphans += g->cc[s->cc_first + k].count;
		}
		if (n == 0)
			continue;
		bag_sort(cc, n, sizeof *cc, cmp_cc);
		if ((rc = old_chunk_add(bag, &g->chunk_cap, &g->cconn_cap, s->pos, s->end, s->t0, s->t1, cc, n)) != BAG_OK)
			break;
		struct chunk *ch = &bag->chunks[bag->nchunks - 1];
		ch->compression = s->m.comp;
		ch->no_index = s->m.mi_len == 0;
		if (s->m.chunk && s->m.rec_len <= UINT32_MAX && s->m.usize > 0) {
			ch->data_len = (uint32_t)s->m.rec_len;
			ch->span_size = s->m.usize;
		}
		g->st->spans[g->st->nspans++] = s->m;
	}
	free(cc);
	if (rc == BAG_OK && orphans > 0)
		rc = bag_warn(bag, UINT64_MAX, "%llu message%s on channels the file never defines are left out",
		              (unsigned long long)orphans, BAG_S(orphans));
	return rc;
}

/* ---- reading a span ------------------------------------------------------- */

/*
 * A span's records are handed out as they are (a chunk's decompressed, a run
 * of loose ones as in the file): no copy. A record is read by mcap_item(): a
 * Message of a known channel is its connection's message (log_time, data
 * after its 22 bytes of fields); any other whole record is passed over.
 */
static size_t mcap_item(const bag_t *bag, const uint8_t *p, size_t len, struct chunk_item *it)
{
	uint64_t n = len >= 9 ? bag_le64(p + 1) : UINT64_MAX;
	uint32_t conn;

	if (n > len - 9 || n > UINT32_MAX - 9)
		return 0;
	it->rec = (struct bag_record){ 0 };
	it->op = BAG_OP_OTHER;
	it->msg_ok = false;
	it->data = NULL;
	it->data_len = 0;
	if (p[0] == OP_MESSAGE && n >= 22 && (conn = conn_of(st_of(bag), p[9] | p[10] << 8)) > 0) {
		it->op = BAG_OP_MSG_DATA;
		it->msg_ok = true;
		it->conn_id = conn - 1;
		it->time_ns = mtime(bag_le64(p + 9 + 6));
		it->data = p + 9 + 22;
		it->data_len = (uint32_t)(n - 22);
	}
	return (size_t)(9 + n);
}

/* One Message Index of a chunk: its entries (log_time, offset: 16 bytes each) and its connection. */
struct mi_list {
	const uint8_t *p;
	uint32_t n;               /* entries */
	uint32_t conn;
};

#define MI_OFF(l, k) bag_le64((l)->p + 16 * (size_t)(k) + 8)

static int cmp_mi_entry(const void *a, const void *b)
{
	uint64_t x = bag_le64((const uint8_t *)a + 8), y = bag_le64((const uint8_t *)b + 8);
	return (x > y) - (x < y);
}

/* The messages chunk i's chunk info counts on connection conn. */
static uint64_t info_count(const bag_t *bag, size_t i, uint32_t conn)
{
	long k = bag_chunk_conn_slot(bag, i, conn);

	return k >= 0 ? bag->chunk_conns[bag->chunks[i].conn_first + (size_t)k].count : 0;
}

/*
 * The Message Index records of chunk i's region (buf, len) as lists, those
 * of unknown channels left out; a list out of file order (a writer that
 * sorted by time) is sorted in place. *total counts the entries.
 */
static int mi_lists(bag_t *bag, size_t i, uint8_t *buf, uint64_t len, struct mi_list **l, size_t *nl,
                    uint64_t *total)
{
	const struct mcap_state *st = st_of(bag);
	size_t cap = 0;

	for (uint64_t at = 0; at < len;) {
		uint64_t n = len - at >= 15 ? bag_le64(buf + at + 1) : 0;
		uint32_t bytes = len - at >= 15 ? bag_le32(buf + at + 11) : 1;
		uint32_t conn = len - at >= 15 ? conn_of(st, buf[at + 9] | buf[at + 10] << 8) : 0;
		if (len - at < 15 || n > len - at - 9 || buf[at] != OP_MESSAGE_INDEX || n < 6 || bytes > n - 6 || bytes % 16)
			return bag_fail(bag, BAG_ECORRUPT, st->spans[i].mi_pos + at, "unreadable message index after the chunk at "
			                "byte %llu", (unsigned long long)bag->chunks[i].pos);
		if (conn > 0 && bytes / 16 != info_count(bag, i, conn - 1))
			return bag_fail(bag, BAG_ECORRUPT, st->spans[i].mi_pos + at, "message index of channel %u lists %u "
			                "message%s, the chunk index's offsets %llu", buf[at + 9] | buf[at + 10] << 8, bytes / 16,
			                BAG_S(bytes / 16), (unsigned long long)info_count(bag, i, conn - 1));
		if (conn > 0 && bytes > 0) {
			if (bag_grow((void **)l, &cap, *nl + 1, sizeof **l) != BAG_OK)
				return oom(bag);
			(*l)[(*nl)++] = (struct mi_list){ buf + at + 15, bytes / 16, conn - 1 };
			*total += bytes / 16;
		}
		if (*total > st->spans[i].usize / 31)
			return bag_fail(bag, BAG_ECORRUPT, st->spans[i].mi_pos + at, "message indexes list more messages than "
			                "the chunk at byte %llu can hold", (unsigned long long)bag->chunks[i].pos);
		at += 9 + n;
	}
	for (size_t k = 0; k < *nl; k++) {
		struct mi_list *m = &(*l)[k];
		uint32_t j = 1;
		while (j < m->n && MI_OFF(m, j - 1) < MI_OFF(m, j))
			j++;
		if (j >= m->n)
			continue;
		bag_sort(buf + (m->p - buf), m->n, 16, cmp_mi_entry);
	}
	return BAG_OK;
}

/*
 * Chunk i's messages from its Message Index records, read in one piece:
 * their offsets are where the records lie in the span (mcap_item). Offsets
 * past the chunk's records, or repeated or closer than a Message record's
 * 31 bytes within a channel's list, are BAG_ECORRUPT: the timeline then
 * walks the chunk. An offset that names another record is found when that
 * row is read (its channel and time are compared), as for a bag's index.
 */
static int mcap_read_index(bag_t *bag, size_t i, int (*add)(void *ctx, uint32_t conn, int64_t time_ns, uint32_t offset),
                           void *ctx)
{
	const struct mspan *m = &st_of(bag)->spans[i];
	struct mi_list *l = NULL;
	size_t nl = 0;
	uint64_t total = 0;
	uint8_t *buf = m->mi_len > 0 ? malloc((size_t)m->mi_len) : NULL;
	int rc;

	if (buf == NULL)
		return m->mi_len > 0 ? oom(bag) : bag_fail(bag, BAG_ECORRUPT, bag->chunks[i].pos, "chunk has no message indexes");
	if ((rc = bag_read_at(bag, m->mi_pos, buf, (size_t)m->mi_len)) != BAG_OK ||
	    (rc = mi_lists(bag, i, buf, m->mi_len, &l, &nl, &total)) != BAG_OK)
		goto done;
	for (size_t k = 0; k < nl && rc == BAG_OK; k++)
		for (uint32_t j = 0; j < l[k].n && rc == BAG_OK; j++) {
			uint64_t off = MI_OFF(&l[k], j);
			if (m->usize < 31 || off > m->usize - 31 || (j > 0 && off - MI_OFF(&l[k], j - 1) < 31)) {
				rc = bag_fail(bag, BAG_ECORRUPT, m->mi_pos, "message indexes of the chunk at byte %llu repeat "
				              "offsets or name records past its end", (unsigned long long)bag->chunks[i].pos);
				break;
			}
			rc = add(ctx, l[k].conn, mtime(bag_le64(l[k].p + 16 * (size_t)j)), (uint32_t)off);
		}
done:
	free(buf);
	free(l);
	return rc;
}

/* Chunk i's bytes: a Chunk record's records decompressed, or a run of loose records, into *recs. */
static int span_records(bag_t *bag, size_t i, uint8_t **recs, uint64_t *len)
{
	const struct chunk *ch = &bag->chunks[i];
	uint64_t n = ch->index_end - ch->pos;
	struct bag_bytes raw;
	int rc;

	*recs = NULL;
	if (n > CHUNK_MAX + 64)
		return oom(bag);
	if ((rc = bag_bytes_at(bag, ch->pos, (size_t)n, &raw)) != BAG_OK)
		return rc;
	if (!st_of(bag)->spans[i].chunk) {
		if (raw.own == NULL && (raw.own = malloc(n + 1)) != NULL)
			memcpy(raw.own, raw.p, (size_t)n);   /* loose records: kept, so copied out of a mapping */
		*recs = raw.own;
		*len = n;
		raw.own = NULL;
		bag_bytes_free(bag, &raw);
		return *recs != NULL ? BAG_OK : oom(bag);
	}
	struct cur c = { raw.p + 9, n - 9, 0, false };
	struct mspan m = { .chunk = true };
	if (n < 9 || raw.p[0] != OP_CHUNK)
		rc = bag_fail(bag, BAG_ECORRUPT, ch->pos, "not a chunk record (opcode 0x%02x)", n ? raw.p[0] : 0);
	else
		rc = chunk_records(bag, &c, ch->pos, &m, recs, len, bag->verify_sums);
	bag_bytes_free(bag, &raw);
	return rc;
}

/* Span i's records, handed out as they are (mcap_item reads them). */
static int mcap_read_span(bag_t *bag, size_t i, uint8_t **out)
{
	uint64_t len;
	int rc;

	*out = NULL;
	if ((rc = span_records(bag, i, out, &len)) != BAG_OK)
		return rc;
	if (len >= UINT32_MAX) {
		free(*out);
		*out = NULL;
		return bag_fail(bag, BAG_ECORRUPT, bag->chunks[i].pos, "chunk holds more than 4 GiB of records");
	}
	bag->chunks[i].size = (uint32_t)len;
	return BAG_OK;
}

/* ---- open ----------------------------------------------------------------- */

/* The Header record: profile and library. */
static int read_header(bag_t *bag, struct mcap_state *st)
{
	uint8_t h[9 + 4096];
	uint64_t n = bag->file_size - MAGIC_LEN < sizeof h ? bag->file_size - MAGIC_LEN : sizeof h;
	const char *s;
	uint32_t len;
	int rc;

	if (n < 9 || (rc = bag_read_at(bag, MAGIC_LEN, h, (size_t)n)) != BAG_OK)
		return bag_fail(bag, BAG_ETRUNCATED, MAGIC_LEN, "MCAP file ends before its header record");
	if (h[0] != OP_HEADER)
		return bag_fail(bag, BAG_ECORRUPT, MAGIC_LEN, "MCAP file does not start with a header record (opcode 0x%02x)", h[0]);
	struct cur c = { h + 9, n - 9 < bag_le64(h + 1) ? n - 9 : bag_le64(h + 1), 0, false };
	get_str(&c, &s, &len);
	st->profile = strndup(s, len);
	get_str(&c, &s, &len);
	st->library = strndup(s, len);
	return st->profile && st->library ? BAG_OK : oom(bag);
}

static void gather_free(struct gather *g)
{
	for (size_t i = 0; i < g->nkeep; i++)
		free(g->keep[i]);
	free(g->keep);
	free(g->schemas);
	free(g->chans);
	free(g->counts);
	free(g->seen);
	free(g->found);
	free(g->cc);
}

/* Connections by channel id, then the chunks. */
static int build(struct gather *g)
{
	int rc = BAG_OK;

	bag_sort(g->chans, g->nchans, sizeof *g->chans, cmp_chan);
	for (size_t i = 0; i < g->nchans && rc == BAG_OK; i++)
		rc = add_conn(g, &g->chans[i]);
	if (rc == BAG_OK)
		rc = add_chunks(g);
	if (rc == BAG_OK && g->recovery_failed > 0)
		rc = bag_warn(g->bag, UINT64_MAX, "%zu chunk%s could not be read; %llu message%s in them are lost",
		              g->recovery_failed, BAG_S(g->recovery_failed), (unsigned long long)g->lost, BAG_S(g->lost));
	return rc;
}

static int mcap_open(bag_t *bag, const struct bag_open_opts *o)
{
	struct mcap_state *st = calloc(1, sizeof *st);
	struct gather g = { .bag = bag, .st = st, .t0 = INT64_MAX, .t1 = INT64_MIN };
	char why[160] = "";
	bool use = false;
	int rc;

	(void)o;
	if (st == NULL)
		return oom(bag);
	bag->fmt_state = st;
	if ((rc = read_header(bag, st)) != BAG_OK || (rc = open_summary(&g, &use, why, sizeof why)) != BAG_OK)
		goto done;
	st->summary = use;
	if (!use)
		rc = scan(&g, MAGIC_LEN, why);
	if (rc == BAG_OK)
		rc = build(&g);
	snprintf(bag->format_name, sizeof bag->format_name, "mcap%s", use ? "" : " (unindexed)");
done:
	gather_free(&g);
	return rc;
}

/* ---- check ---------------------------------------------------------------- */

/*
 * A check's walk of every record of the file: record headers, the fields of
 * each Chunk record's header and the Message Index records' shape; chunk
 * bodies are skipped. Their CRCs are checked where the scan of bag_check()
 * decompresses them, on its workers (read_span with bag->verify_sums), and
 * the Message Indexes against the chunks there too: the timeline's rows
 * come from them, each read checks its record's channel and time, and the
 * check's chunk pass compares each chunk's counts with them.
 */
struct verify {
	bag_t *bag;
	int (*found)(void *ctx, uint64_t off, int code, const char *text);
	void *ctx;
	uint64_t *off;            /* top-level records: offsets (ascending) and opcodes */
	uint8_t *op;
	size_t n, cap;
	uint64_t chunk_pos;       /* the last Chunk record (UINT64_MAX: none since) */
	bool chunk_indexed;       /* a message index followed it */
	bool index_bad;           /* one of them was malformed */
	uint64_t indexed;         /* the messages they list */
	uint64_t messages;        /* Message records, in chunks (as indexed) or not */
};

static int vfound(struct verify *v, uint64_t off, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int vfound(struct verify *v, uint64_t off, int code, const char *fmt, ...)
{
	char text[BAG_ERROR_MESSAGE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	return v->found(v->ctx, off, code, text);
}

/* The index of the top-level record at off, or -1. */
static long record_at(const struct verify *v, uint64_t off)
{
	size_t lo = 0, hi = v->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v->off[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < v->n && v->off[lo] == off ? (long)lo : -1;
}

/* The end of record i (its next one's offset, or the file's last record's end). */
static uint64_t record_end(const struct verify *v, size_t i, uint64_t walked)
{
	return i + 1 < v->n ? v->off[i + 1] : walked;
}

/* Messages of the chunk at pos as the open counted them (0 if it is not one of the handle's). */
static uint64_t chunk_count_at(const bag_t *bag, uint64_t pos)
{
	long i = bag_chunk_lookup(bag, pos);

	return i >= 0 ? bag->chunks[i].count : 0;
}

/*
 * End of a chunk's run of message indexes: its messages as they list them,
 * or, with none or a malformed one, as the open counted them.
 */
static void chunk_done(struct verify *v)
{
	if (v->chunk_pos != UINT64_MAX)
		v->messages += v->chunk_indexed && !v->index_bad ? v->indexed : chunk_count_at(v->bag, v->chunk_pos);
	v->chunk_pos = UINT64_MAX;
}

/* A Chunk record's header fields (content p, of which n bytes are at hand, len in all). */
static int verify_chunk(struct verify *v, const uint8_t *p, uint64_t n, uint64_t len, uint64_t off)
{
	struct cur c = { p, n, 0, false };
	enum bag_compression comp;
	const char *cs;
	uint32_t cn;
	uint64_t usize, rec_len;

	v->chunk_pos = off;
	v->chunk_indexed = v->index_bad = false;
	v->indexed = 0;
	skip(&c, 16);
	usize = get64(&c);
	skip(&c, 4);
	get_str(&c, &cs, &cn);
	rec_len = get64(&c);
	if (c.bad || rec_len > len - c.at)
		return vfound(v, off, BAG_ECORRUPT, "chunk record overruns its length");
	if (comp_of(cs, cn, &comp) != BAG_OK)
		return vfound(v, off, BAG_EUNSUPP, "chunk compression '%.*s' is not supported", (int)(cn > 32 ? 32 : cn), cs);
	if (usize > CHUNK_MAX || usize > bag_codec_size_cap(comp, rec_len))
		return vfound(v, off, BAG_ECORRUPT, "chunk claims %llu uncompressed bytes from %llu: implausible",
		              (unsigned long long)usize, (unsigned long long)rec_len);
	return BAG_OK;
}

/* A Message Index record after a chunk: its shape, its count. */
static int verify_index(struct verify *v, const uint8_t *content, uint64_t len, uint64_t off)
{
	struct cur c = { content, len, 0, false };
	uint16_t chan = get16(&c);
	uint32_t bytes = get32(&c);

	if (v->chunk_pos == UINT64_MAX)
		return BAG_OK;
	v->chunk_indexed = true;
	if (c.bad || bytes > len - 6 || bytes % 16) {
		v->index_bad = true;
		return vfound(v, off, BAG_ECORRUPT, "message index of channel %u is malformed", chan);
	}
	v->indexed += bytes / 16;
	return BAG_OK;
}

/* Every top-level record from the magic on; *end where the walk stopped, *footer the Footer's offset. */
static int verify_walk(struct verify *v, uint64_t *end, uint64_t *footer, uint64_t *data_end, uint32_t *data_crc)
{
	bag_t *bag = v->bag;
	struct window w = { .cap = CHECK_WINDOW };
	uint8_t *big = NULL;
	uint64_t off = MAGIC_LEN;
	int rc = BAG_OK;

	*footer = *data_end = UINT64_MAX;
	while (rc == BAG_OK && off < bag->file_size) {
		const uint8_t *p;
		if (peek(bag, &w, off, 9, &p, &big) != BAG_OK) {
			rc = vfound(v, off, BAG_ETRUNCATED, "record header cut off by the end of the file");
			break;
		}
		uint8_t op = p[0];
		uint64_t len = bag_le64(p + 1);
		if (len > bag->file_size - off - 9) {
			rc = vfound(v, off, BAG_ETRUNCATED, "record (opcode 0x%02x) of %llu byte%s runs past the end of the file",
			            op, (unsigned long long)len, BAG_S(len));
			break;
		}
		if (bag_grow((void **)&v->off, &v->cap, v->n + 1, sizeof *v->off) != BAG_OK ||
		    (v->op = realloc(v->op, v->cap)) == NULL)
			return oom(bag);
		v->off[v->n] = off;
		v->op[v->n++] = op;
		if (op == 0 || (op > OP_DATA_END && op < 0x80))
			rc = vfound(v, off, BAG_ECORRUPT, "unknown opcode 0x%02x", op);
		if (op != OP_MESSAGE_INDEX)
			chunk_done(v);
		if (op == OP_FOOTER) {
			*footer = off;
			off += 9 + len;
			break;
		}
		if (op == OP_DATA_END && len >= 4 && peek(bag, &w, off + 9, 4, &p, &big) == BAG_OK) {
			*data_end = off;
			*data_crc = bag_le32(p);
		}
		if (op == OP_CHUNK && rc == BAG_OK) {
			/* the header's fields: 40 bytes and the compression's name */
			uint64_t n = len < 40 + 4096 ? len : 40 + 4096;
			if ((rc = peek(bag, &w, off + 9, n, &p, &big)) != BAG_OK)
				break;
			rc = verify_chunk(v, p, n, len, off);
		}
		if (op == OP_MESSAGE_INDEX && rc == BAG_OK) {
			if ((rc = peek(bag, &w, off + 9, len, &p, &big)) != BAG_OK)
				break;
			rc = verify_index(v, p, len, off);
		}
		v->messages += op == OP_MESSAGE;
		off += 9 + len;
	}
	chunk_done(v);
	*end = off;
	free(w.buf);
	free(big);
	return rc;
}

/* The CRC-32 of file bytes [0, n), a window at a time. */
static int file_crc(bag_t *bag, uint64_t n, uint32_t *crc)
{
	int rc = BAG_OK;

	*crc = 0;
	for (uint64_t at = 0; at < n && rc == BAG_OK; at += WINDOW) {
		size_t k = n - at < WINDOW ? (size_t)(n - at) : WINDOW;
		struct bag_bytes b;
		if ((rc = bag_bytes_at(bag, at, k, &b)) == BAG_OK)
			*crc = bag_crc32(*crc, b.p, k);
		bag_bytes_free(bag, &b);
	}
	return rc;
}

/* Whether summary record content c (opcode op) points at the right records. */
static int verify_pointer(struct verify *v, uint8_t op, struct cur *c, uint64_t off, uint64_t walked)
{
	uint64_t to, len;
	long i;

	if (op == OP_CHUNK_INDEX) {
		struct chunk_index ci;
		if (!parse_chunk_index(c, &ci))
			return vfound(v, off, BAG_ECORRUPT, "chunk index is malformed");
		if ((i = record_at(v, ci.pos)) < 0 || v->op[i] != OP_CHUNK || record_end(v, (size_t)i, walked) - ci.pos != ci.len)
			return vfound(v, off, BAG_ECORRUPT, "chunk index points at byte %llu, which is not a chunk record of %llu byte%s",
			              (unsigned long long)ci.pos, (unsigned long long)ci.len, BAG_S(ci.len));
		for (uint32_t k = 0; k < ci.mi_len; k += 10)
			if ((i = record_at(v, bag_le64(ci.mi + k + 2))) < 0 || v->op[i] != OP_MESSAGE_INDEX)
				return vfound(v, off, BAG_ECORRUPT, "chunk index names a message index at byte %llu that is not there",
				              (unsigned long long)bag_le64(ci.mi + k + 2));
		return BAG_OK;
	}
	to = get64(c);
	len = get64(c);
	if (op == OP_SUMMARY_OFFSET) {
		uint8_t group = (uint8_t)to;
		c->at = 0;
		group = get8(c);
		to = get64(c);
		len = get64(c);
		for (i = record_at(v, to); i >= 0 && (size_t)i < v->n && v->off[i] < to + len; i++)
			if (v->op[i] != group)
				break;
		if (c->bad || record_at(v, to) < 0 || (i >= 0 && (size_t)i < v->n ? v->off[i] : walked) != to + len)
			return vfound(v, off, BAG_ECORRUPT, "summary offset for opcode 0x%02x does not frame a group of such records",
			              group);
		return BAG_OK;
	}
	uint8_t want = op == OP_ATTACHMENT_INDEX ? OP_ATTACHMENT : OP_METADATA;
	if (c->bad || (i = record_at(v, to)) < 0 || v->op[i] != want || record_end(v, (size_t)i, walked) - to != len)
		return vfound(v, off, BAG_ECORRUPT, "%s index points at byte %llu, which is not such a record of %llu byte%s",
		              op == OP_ATTACHMENT_INDEX ? "attachment" : "metadata", (unsigned long long)to,
		              (unsigned long long)len, BAG_S(len));
	return BAG_OK;
}

/* The summary section's records (between start and the footer) against the walk. */
static int verify_summary(struct verify *v, uint64_t footer, uint64_t walked)
{
	bag_t *bag = v->bag;
	uint8_t f[FOOTER_LEN];
	uint64_t start, ostart;
	int rc;

	if ((rc = bag_read_at(bag, footer, f, sizeof f)) != BAG_OK)
		return rc;
	start = bag_le64(f + 9);
	ostart = bag_le64(f + 17);
	if (start == 0)
		return BAG_OK;
	if (record_at(v, start) < 0)
		return vfound(v, footer, BAG_ECORRUPT, "footer's summary start %llu is not a record", (unsigned long long)start);
	if (ostart != 0 && (record_at(v, ostart) < 0 || v->op[record_at(v, ostart)] != OP_SUMMARY_OFFSET))
		rc = vfound(v, footer, BAG_ECORRUPT, "footer's summary offset start %llu is not a summary offset record",
		            (unsigned long long)ostart);
	if (rc == BAG_OK && bag_le32(f + 25) != 0) {
		uint8_t *sum = malloc(footer + 25 - start);
		if (sum == NULL)
			return oom(bag);
		if ((rc = bag_read_at(bag, start, sum, footer + 25 - start)) == BAG_OK &&
		    bag_crc32(0, sum, footer + 25 - start) != bag_le32(f + 25))
			rc = vfound(v, footer, BAG_ECORRUPT, "summary CRC mismatch");
		free(sum);
	}
	for (long i = record_at(v, start); rc == BAG_OK && i >= 0 && (size_t)i < v->n && v->off[i] < footer; i++) {
		uint8_t op = v->op[i];
		uint64_t len = record_end(v, (size_t)i, walked) - v->off[i] - 9;
		if (op != OP_CHUNK_INDEX && op != OP_ATTACHMENT_INDEX && op != OP_METADATA_INDEX && op != OP_SUMMARY_OFFSET &&
		    op != OP_STATISTICS)
			continue;
		uint8_t *buf = malloc(len ? len : 1);
		if (buf == NULL)
			return oom(bag);
		if ((rc = bag_read_at(bag, v->off[i] + 9, buf, len)) == BAG_OK) {
			struct cur c = { buf, len, 0, false };
			if (op != OP_STATISTICS)
				rc = verify_pointer(v, op, &c, v->off[i], walked);
			else if (get64(&c) != v->messages)
				rc = vfound(v, v->off[i], BAG_ECORRUPT, "statistics count %llu message%s, the file holds %llu",
				            (unsigned long long)bag_le64(buf), BAG_S(bag_le64(buf)), (unsigned long long)v->messages);
		}
		free(buf);
	}
	return rc;
}

static int mcap_verify(bag_t *bag, int (*found)(void *ctx, uint64_t off, int code, const char *text), void *ctx,
                       uint64_t *records)
{
	struct verify v = { .bag = bag, .found = found, .ctx = ctx, .chunk_pos = UINT64_MAX };
	uint64_t end = MAGIC_LEN, footer = UINT64_MAX, data_end = UINT64_MAX;
	uint32_t data_crc = 0, crc;
	uint8_t tail[MAGIC_LEN];
	int rc;

	rc = verify_walk(&v, &end, &footer, &data_end, &data_crc);
	if (rc == BAG_OK && (end + MAGIC_LEN != bag->file_size || bag_read_at(bag, end, tail, MAGIC_LEN) != BAG_OK ||
	                     memcmp(tail, MCAP_MAGIC, MAGIC_LEN) != 0))
		rc = vfound(&v, end, BAG_ETRUNCATED, "the file does not end with a footer and the magic (cut off?)");
	if (rc == BAG_OK && data_end != UINT64_MAX && data_crc != 0 && (rc = file_crc(bag, data_end, &crc)) == BAG_OK &&
	    crc != data_crc)
		rc = vfound(&v, data_end, BAG_ECORRUPT, "data section CRC mismatch");
	if (rc == BAG_OK && footer != UINT64_MAX)
		rc = verify_summary(&v, footer, end);
	*records = v.n;
	free(v.off);
	free(v.op);
	return rc;
}

static void mcap_describe(const bag_t *bag, struct bag_file_info *out)
{
	const struct mcap_state *st = st_of(bag);

	*out = (struct bag_file_info){ "mcap", st->profile, st->library, st->items, st->nitems };
}

const struct bag_reader bag_reader_mcap = {
	.name = "mcap",
	.detect = mcap_detect,
	.open = mcap_open,
	.read_span = mcap_read_span,
	.read_index = mcap_read_index,
	.item = mcap_item,
	.free = mcap_free,
	.verify = mcap_verify,
	.describe = mcap_describe,
};
