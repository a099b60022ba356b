/*
 * recover.c - opening a bag whose index cannot be used, without rewriting
 * it: a scan of the chunk section, record by record, from the end of the
 * bag header to the end of the file.
 *
 * Each chunk record (op 5) found is followed by its index-data records
 * (op 4); when they are there and well formed the chunk's per-connection
 * counts and time range come from them (no decompression, as bag.c gets
 * them from chunk infos). When they are missing - the last chunk of a
 * recording that was killed (its header still says data_len 0 and its body
 * runs to the end of the file), a chunk cut off by truncation, or index
 * records that do not parse - the chunk's data is decompressed as far as it
 * goes (codec.c) and its message records (op 2) are counted; the chunk is
 * marked no_index and index.c walks its data for entries the same way
 * (bag_chunk_walk in record.c is the one walker both use, so counts always
 * agree). A cut-off or damaged compressed chunk is marked partial: only the
 * prefix that decompressed during the scan (ending at its last complete
 * record) is ever read.
 *
 * A chunk's data_len is checked against what its data holds: a compressed
 * stream that ends early, or uncompressed records that give way to a
 * top-level record (ops 3-6), end the chunk there; a stream that runs past
 * data_len is read on (within a bound) to its end.
 *
 * Where no record can be read (a header running past the end of the file, a
 * record without op or with an op that has no place at the top level), the
 * scan searches forward for the next record that parses as a chunk or
 * connection record - the bytes "\x04\0\0\0op=" then 5 or 7, with a record
 * start before it whose fields lead exactly to it - and goes on from there;
 * the skipped range is one loss. The search reads the file once in blocks
 * and checks each hit with a bounded number of cheap tests, so it is linear
 * in the bytes skipped.
 *
 * One fault, one line: a chunk's unreadable records give one warning, a
 * run of stray index records one, a connection defined nowhere one (however
 * many chunks use it), a skipped range one loss.
 *
 * Connections come from connection records (op 7) at the top level (the
 * index section, when the file still has it) and inside chunks: a chunk
 * whose index records name a connection not seen yet is decompressed to find
 * its definition. Duplicates keep the first definition. Messages on
 * connections defined nowhere are dropped with a warning.
 *
 * Every length read from the file is checked against the bytes left in it
 * before anything is allocated, and decompressed sizes are bounded by
 * bag_codec_size_cap().
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/formats/bag-int.h"
#include "lib/common/util-int.h"

#define PROGRESS_STEP ((uint64_t)1 << 20)
#define RESYNC_BLOCK ((size_t)1 << 20)  /* bytes searched per read */
#define RESYNC_BACK 4096                /* how far before its op field a header may start */
#define WALK_STOP 1                     /* a top-level record met inside chunk data */

/* A connection id and a message count, while a chunk is scanned. */
struct idcount {
	uint32_t id;
	uint32_t count;
};

/* The scan's state; the bag's arrays grow as chunks are found. */
struct scan {
	bag_t *bag;
	size_t chunk_cap;         /* allocated bag->chunks */
	size_t cc_cap;            /* allocated bag->chunk_conns */
	size_t conn_cap;          /* allocated bag->conns */
	size_t loss_cap;
	uint32_t *ids;            /* connection ids seen so far, sorted */
	size_t nids, ids_cap;
	struct idcount *cur;      /* the current chunk's counts (unsorted) */
	size_t ncur, cur_cap;
	int64_t cur_start, cur_end;
	uint64_t cur_count;
	uint8_t *hbuf;            /* record header buffer */
	size_t hbuf_cap;
	uint8_t *block;           /* resync search buffer, RESYNC_BACK + RESYNC_BLOCK + 8 */
	uint8_t prev_op;          /* op of the last top-level record read */
	bool quiet;               /* no progress calls (a search outside a scan) */
	uint64_t last_progress;
};

/* What a chunk walk collects during the scan. */
struct body_walk {
	struct scan *s;
	uint64_t chunk_pos;
	bool harvest_only;        /* only connections, not messages */
	uint32_t bad;             /* records neither messages nor connections */
	uint32_t first_bad;       /* offset of the first of them */
};

static int add_loss(struct scan *s, uint64_t start, uint64_t end, uint64_t chunk_pos,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Note a stretch [start, end) whose messages are lost, and why. */
static int add_loss(struct scan *s, uint64_t start, uint64_t end, uint64_t chunk_pos,
                    const char *fmt, ...)
{
	bag_t *bag = s->bag;
	char line[BAG_ERROR_MESSAGE_MAX];
	struct bag_loss *l;
	va_list ap;

	if (bag_grow((void **)&bag->losses, &s->loss_cap, bag->nlosses + 1, sizeof *bag->losses) != BAG_OK)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	l = &bag->losses[bag->nlosses];
	l->start = start;
	l->end = end;
	l->chunk_pos = chunk_pos;
	l->what = strdup(line);
	if (l->what == NULL)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	bag->nlosses++;
	return BAG_OK;
}

static int progress(struct scan *s, uint64_t done, bool force)
{
	bag_t *bag = s->bag;

	if (bag->progress == NULL || (!force && done - s->last_progress < PROGRESS_STEP))
		return BAG_OK;
	s->last_progress = done;
	if (bag->progress(bag->progress_arg, done, bag->file_size) != 0)
		return bag_fail(bag, BAG_ECANCELED, done, "recovery scan cancelled");
	return BAG_OK;
}

/* ---- connections ----------------------------------------------------------- */

static bool id_known(const struct scan *s, uint32_t id)
{
	size_t lo = 0, hi = s->nids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nids && s->ids[lo] == id;
}

/* Add the connection record rec (found at off) unless its id is known. */
static int add_connection(struct scan *s, const struct bag_record *rec, uint64_t off)
{
	bag_t *bag = s->bag;
	struct bag_connection c;
	size_t lo = 0, hi = s->nids;
	int rc;

	if ((rc = bag_parse_connection(bag, rec, off, &c)) != BAG_OK) {
		bag_conn_free(&c);
		if (rc == BAG_ENOMEM)
			return rc;
		return bag_warn(bag, off, "unreadable connection record skipped");
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->ids[mid] < c.id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->nids && s->ids[lo] == c.id) {
		bag_conn_free(&c);
		return BAG_OK;
	}
	if (bag_grow((void **)&s->ids, &s->ids_cap, s->nids + 1, sizeof *s->ids) != BAG_OK ||
	    bag_grow((void **)&bag->conns, &s->conn_cap, bag->nconns + 1, sizeof *bag->conns) != BAG_OK) {
		bag_conn_free(&c);
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	}
	memmove(s->ids + lo + 1, s->ids + lo, (s->nids - lo) * sizeof *s->ids);
	s->ids[lo] = c.id;
	s->nids++;
	bag->conns[bag->nconns++] = c;
	return BAG_OK;
}

/* ---- one chunk ------------------------------------------------------------- */

static int find_record(struct scan *s, uint64_t from, uint64_t *found);

/* Count one message (or count messages) on connection id at time t. */
static int count_msgs(struct scan *s, uint32_t id, uint32_t count, int64_t t0, int64_t t1)
{
	if (s->ncur > 0 && s->cur[s->ncur - 1].id == id && s->cur[s->ncur - 1].count <= UINT32_MAX - count) {
		s->cur[s->ncur - 1].count += count;
	} else {
		if (bag_grow((void **)&s->cur, &s->cur_cap, s->ncur + 1, sizeof *s->cur) != BAG_OK)
			return bag_fail(s->bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
		s->cur[s->ncur++] = (struct idcount){ id, count };
	}
	if (count == 0)
		return BAG_OK;
	if (s->cur_count == 0 || t0 < s->cur_start)
		s->cur_start = t0;
	if (s->cur_count == 0 || t1 > s->cur_end)
		s->cur_end = t1;
	s->cur_count += count;
	return BAG_OK;
}

static int body_item(void *arg, const struct chunk_item *it)
{
	struct body_walk *w = arg;

	if (it->op == BAG_OP_CONNECTION)
		return add_connection(w->s, &it->rec, w->chunk_pos);
	if (it->op >= BAG_OP_FILE_HEADER && it->op <= BAG_OP_CHUNK_INFO)
		return WALK_STOP;
	if (it->msg_ok)
		return w->harvest_only ? BAG_OK : count_msgs(w->s, it->conn_id, 1, it->time_ns, it->time_ns);
	if (w->bad++ == 0)
		w->first_bad = it->offset;
	return BAG_OK;
}

/* Read len bytes at off into a new buffer. */
static int read_new(bag_t *bag, uint64_t off, uint64_t len, uint8_t **out)
{
	int rc;

	*out = malloc(len ? (size_t)len : 1);
	if (*out == NULL)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory for %llu byte%s",
		                (unsigned long long)len, BAG_S(len));
	if ((rc = bag_read_at(bag, off, *out, (size_t)len)) != BAG_OK) {
		free(*out);
		*out = NULL;
	}
	return rc;
}

/*
 * Decompress chunk ch's data as far as it goes into inf (inf->buf is the
 * caller's to free). A stream still wanting input where data_len ends is
 * read on, up to what its stated size could plausibly take, in case data_len
 * is what is wrong; ch->data_len then becomes the input that was read.
 */
static int inflate_body(struct scan *s, struct chunk *ch, bool cut, struct bag_inflated *inf)
{
	bag_t *bag = s->bag;
	uint64_t avail = bag->file_size - ch->data_pos;
	size_t max = (size_t)bag_codec_size_cap(ch->compression, ch->data_len);
	size_t cap = ch->size != 0 && ch->size <= max ? ch->size : (size_t)ch->data_len * 4;
	uint32_t len = ch->data_len;
	uint8_t *raw = NULL;
	int rc;

	for (;;) {
		if ((rc = read_new(bag, ch->data_pos, len, &raw)) != BAG_OK)
			return rc;
		rc = bag_codec_inflate(&bag->codec, ch->compression, raw, len, cap < 4096 ? 4096 : cap, max, true, inf);
		free(raw);
		bool starved = rc == BAG_OK && !inf->ended && !inf->full && inf->used == len;
		if (!starved || cut || len != ch->data_len || len >= avail)
			break;
		uint64_t more = (uint64_t)ch->size + ch->size / 8 + 65536;
		if (more < (uint64_t)len * 2)
			more = (uint64_t)len * 2;
		if (more > avail)
			more = avail;
		len = more > UINT32_MAX ? UINT32_MAX : (uint32_t)more;
		max = (size_t)bag_codec_size_cap(ch->compression, len);
		free(inf->buf);
		inf->buf = NULL;
	}
	ch->data_len = len;
	if (rc == BAG_ENOMEM)
		return bag_fail(bag, rc, UINT64_MAX, "out of memory");
	return rc;
}

/* An uncompressed chunk's records walked (used of len bytes): where it ends, what was lost after them. */
static int end_plain(struct scan *s, struct chunk *ch, bool cut, bool stopped, size_t used, size_t len,
                     uint32_t stated, uint64_t *end)
{
	bag_t *bag = s->bag;
	int rc;

	/* records give way to a top-level record: the chunk ends there */
	if (stopped || (cut && used < len))
		*end = ch->data_pos + used;
	if (stopped && !cut && (rc = bag_warn(bag, ch->pos, "chunk data_len says %u byte%s but its records "
	                                      "end after %zu; read to there", stated, BAG_S(stated), used)) != BAG_OK)
		return rc;
	ch->size = ch->data_len = (uint32_t)used;
	if (stopped || used == len)
		return BAG_OK;
	/* a record that does not fit: the end of the file, or damage with more after it */
	uint64_t lost_end = ch->data_pos + len;
	if (cut && (rc = find_record(s, ch->data_pos + used, &lost_end)) != BAG_OK)
		return rc;
	if (cut)
		*end = lost_end;
	return add_loss(s, ch->data_pos + used, lost_end, ch->pos,
	                "chunk at byte %llu %s: %llu messages in its first %zu bytes recovered, "
	                "the %llu bytes after them lost", (unsigned long long)ch->pos,
	                !cut ? "ends in an incomplete record" : lost_end == bag->file_size ? "is cut off" :
	                "runs into unreadable bytes", (unsigned long long)s->cur_count, used,
	                (unsigned long long)(lost_end - ch->data_pos - used));
}

/* A compressed chunk's stream (inf) walked to used bytes: where it ends, whether it is whole. */
static int end_compressed(struct scan *s, struct chunk *ch, bool cut, const struct bag_inflated *inf, size_t used,
                          uint32_t stated, uint64_t *end)
{
	const char *name = bag_compression_name(ch->compression);
	int rc;

	if (inf->ended) {
		/* the stream's own end is where the chunk's data ends */
		*end = ch->data_pos + inf->used;
		if (!cut && inf->used != stated &&
		    (rc = bag_warn(s->bag, ch->pos, "chunk data_len says %u byte%s but its %s stream is %zu byte%s; "
		                   "read to its end", stated, BAG_S(stated), name, inf->used, BAG_S(inf->used))) != BAG_OK)
			return rc;
		ch->data_len = (uint32_t)inf->used;
	}
	if (inf->ended && used == inf->len) {
		ch->size = (uint32_t)inf->len;
		return BAG_OK;
	}
	ch->size = (uint32_t)used;
	ch->partial = true;
	return add_loss(s, ch->pos, ch->data_pos + ch->data_len, ch->pos,
	                "%s chunk at byte %llu %s: %zu bytes decompressed%s%s, %llu messages recovered",
	                name, (unsigned long long)ch->pos, cut ? "is cut off" : "is damaged", inf->len,
	                inf->err.message[0] ? " before: " : "", inf->err.message, (unsigned long long)s->cur_count);
}

/*
 * Decompress chunk ch's body (as far as it goes) and walk it: count its
 * messages (unless harvest_only) and collect its connections. For a chunk
 * that is indexed from its data, fix size, data_len and partial to what will
 * be read back, set *end to where its data really ends, and note what was
 * lost.
 */
static int scan_body(struct scan *s, struct chunk *ch, bool cut, bool harvest_only, uint64_t *end)
{
	bag_t *bag = s->bag;
	struct bag_inflated inf = { 0 };
	struct body_walk w = { s, ch->pos, harvest_only, 0, 0 };
	const char *name = bag_compression_name(ch->compression);
	uint32_t stated = ch->data_len;
	size_t used = 0;
	bool none = ch->compression == BAG_COMPRESSION_NONE, stopped;
	int rc;

	*end = ch->data_pos + ch->data_len;
	if (none) {
		rc = read_new(bag, ch->data_pos, ch->data_len, &inf.buf);
		inf.len = inf.used = ch->data_len;
		inf.ended = true;
	} else {
		rc = inflate_body(s, ch, cut, &inf);
	}
	if (rc == BAG_EUNSUPP) {
		rc = add_loss(s, ch->pos, ch->data_pos + ch->data_len, ch->pos,
		              "%s chunk at byte %llu cannot be read by this build", name, (unsigned long long)ch->pos);
		goto fail;
	}
	if (rc != BAG_OK)
		goto fail;
	rc = bag_chunk_walk(NULL, inf.buf, inf.len, body_item, &w, &used);
	stopped = rc == WALK_STOP;
	if (rc != BAG_OK && !stopped)
		goto fail;
	rc = BAG_OK;
	if (w.bad > 0 && !harvest_only &&
	    (rc = bag_warn(bag, ch->pos, "%u record%s in the chunk's data (the first at offset %u) are not "
	                   "readable messages or connections; skipped", w.bad, BAG_S(w.bad), w.first_bad)) != BAG_OK)
		goto fail;
	if (harvest_only)
		goto fail;
	rc = none ? end_plain(s, ch, cut, stopped, used, inf.len, stated, end)
	          : end_compressed(s, ch, cut, &inf, used, stated, end);
fail:
	free(inf.buf);
	return rc;
}

/* Read the record header at pos into s->hbuf. Returns 0 or BAG_ETRUNCATED. */
static int read_head(struct scan *s, uint64_t pos, struct bag_record *rec)
{
	bag_t *bag = s->bag;
	uint64_t left = bag->file_size - pos;
	uint8_t b4[4];

	memset(rec, 0, sizeof *rec);
	if (left < 8 || bag_read_at(bag, pos, b4, 4) != BAG_OK)
		return BAG_ETRUNCATED;
	rec->header_len = bag_le32(b4);
	if ((uint64_t)rec->header_len + 8 > left)
		return BAG_ETRUNCATED;
	if (bag_grow((void **)&s->hbuf, &s->hbuf_cap, (size_t)rec->header_len + 4, 1) != BAG_OK)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	if (bag_read_at(bag, pos + 4, s->hbuf, (size_t)rec->header_len + 4) != BAG_OK)
		return BAG_ETRUNCATED;
	rec->header = s->hbuf;
	rec->data_len = bag_le32(s->hbuf + rec->header_len);
	rec->size = 8 + (size_t)rec->header_len + rec->data_len;
	return BAG_OK;
}

/* The op of a record header; 0 when it has none. */
static uint8_t head_op(const struct bag_record *rec)
{
	uint8_t op;

	return bag_header_u8(rec->header, rec->header_len, "op", &op) == BAG_OK ? op : 0;
}

/* ---- searching for the next readable record ----------------------------- */

/*
 * Whether a chunk or connection record starts at p, given that the bytes at
 * h look like its op field: the header's fields lead from p + 4 exactly to
 * h (checked in buf, which holds the file from buf_pos), then the whole
 * header parses and has the fields its op needs.
 */
static bool record_starts_at(struct scan *s, uint64_t p, uint64_t h, const uint8_t *buf, uint64_t buf_pos)
{
	uint64_t at = p + 4;
	uint32_t hlen = bag_le32(buf + (p - buf_pos)), pos = 0;
	struct bag_record rec;
	struct bag_field f;
	const uint8_t *v;
	uint32_t vlen, u;
	uint8_t op;
	int rc;

	if (hlen > RESYNC_BACK * 4 || at + hlen < h + 8)
		return false;
	while (at < h)
		at += 4 + (uint64_t)bag_le32(buf + (at - buf_pos));
	if (at != h || read_head(s, p, &rec) != BAG_OK)
		return false;
	while ((rc = bag_header_next(rec.header, rec.header_len, &pos, &f)) == 1)
		;
	if (rc != 0 || (op = head_op(&rec)) == 0)
		return false;
	if (op == BAG_OP_CHUNK)
		return bag_header_find(rec.header, rec.header_len, "compression", &v, &vlen) == BAG_OK &&
		       bag_header_u32(rec.header, rec.header_len, "size", &u) == BAG_OK;
	return op == BAG_OP_CONNECTION && rec.size <= s->bag->file_size - p &&
	       bag_header_u32(rec.header, rec.header_len, "conn", &u) == BAG_OK &&
	       bag_header_find(rec.header, rec.header_len, "topic", &v, &vlen) == BAG_OK;
}

/*
 * The first chunk (or, unless chunk_only, connection) record that starts in
 * (from, to): *found is its offset, or to if there is none.
 */
static int search(struct scan *s, uint64_t from, uint64_t to, bool chunk_only, uint64_t *found)
{
	static const uint8_t pat[7] = { 4, 0, 0, 0, 'o', 'p', '=' };
	bag_t *bag = s->bag;
	int rc;

	*found = to;
	if (s->block == NULL && (s->block = malloc(RESYNC_BACK + RESYNC_BLOCK + 8)) == NULL)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	for (uint64_t blk = from + 1; blk < to; blk += RESYNC_BLOCK) {
		uint64_t lo = blk - from - 1 > RESYNC_BACK ? blk - RESYNC_BACK : from + 1;
		uint64_t hi = bag->file_size - blk > RESYNC_BLOCK + 8 ? blk + RESYNC_BLOCK + 8 : bag->file_size;
		size_t len = (size_t)(hi - lo), at = (size_t)(blk - lo);

		if (!s->quiet && (rc = progress(s, blk, false)) != BAG_OK)
			return rc;
		if ((rc = bag_read_at(bag, lo, s->block, len)) != BAG_OK)
			return rc;
		while (at + 8 <= len) {
			const uint8_t *hit = memmem(s->block + at, len - at, pat, sizeof pat);
			if (hit == NULL)
				break;
			size_t h = (size_t)(hit - s->block);
			if (lo + h >= blk + RESYNC_BLOCK || h + 8 > len)
				break;
			at = h + 1;
			if (hit[7] != BAG_OP_CHUNK && (chunk_only || hit[7] != BAG_OP_CONNECTION))
				continue;
			for (size_t p = h >= 4 ? h - 4 : 0; p + RESYNC_BACK >= h && h >= 4; p--) {
				if (lo + p < to && record_starts_at(s, lo + p, lo + h, s->block, lo)) {
					*found = lo + p;
					return BAG_OK;
				}
				if (p == 0)
					break;
			}
		}
	}
	return BAG_OK;
}

/* The first chunk or connection record after byte from (or the file size). */
static int find_record(struct scan *s, uint64_t from, uint64_t *found)
{
	return search(s, from, s->bag->file_size, false, found);
}

int bag_find_chunk(bag_t *bag, uint64_t from, uint64_t to, uint64_t *found)
{
	struct scan s;
	int rc;

	memset(&s, 0, sizeof s);
	s.bag = bag;
	s.quiet = true;
	rc = search(&s, from, to < bag->file_size ? to : bag->file_size, true, found);
	free(s.hbuf);
	free(s.block);
	return rc;
}

/*
 * No record can be read at pos (why says what is wrong there): note the
 * loss up to the next readable record and set *pos to it.
 */
static int resync(struct scan *s, uint64_t *pos, uint64_t chunk_pos, const char *why)
{
	bag_t *bag = s->bag;
	uint64_t from = *pos, next;
	int rc;

	if ((rc = find_record(s, from, &next)) != BAG_OK)
		return rc;
	*pos = next;
	if (next == bag->file_size)
		return add_loss(s, from, next, chunk_pos, "%s; no chunk or connection record after it "
		                "(%llu bytes not read)", why, (unsigned long long)(next - from));
	return add_loss(s, from, next, chunk_pos, "%s; the %llu bytes up to the next chunk or connection "
	                "record skipped", why, (unsigned long long)(next - from));
}

/* ---- chunks ---------------------------------------------------------------- */

/*
 * Whether a chunk whose header says data_len 0 is the unterminated last
 * chunk of a killed recording: its records (uncompressed) or its compressed
 * stream follow the header directly instead of an index-data, chunk,
 * chunk-info or connection record.
 */
static int is_unterminated(struct scan *s, const struct chunk *ch, bool *yes)
{
	uint64_t at = ch->data_pos;
	struct bag_record rec;
	int rc;

	*yes = false;
	while (at < s->bag->file_size) {
		uint8_t op;

		rc = read_head(s, at, &rec);
		if (rc == BAG_ETRUNCATED) {
			*yes = ch->compression != BAG_COMPRESSION_NONE;
			return BAG_OK;
		}
		if (rc != BAG_OK)
			return rc;
		op = head_op(&rec);
		if (op == BAG_OP_MSG_DATA) {
			*yes = true;
			return BAG_OK;
		}
		if (ch->compression != BAG_COMPRESSION_NONE) {
			*yes = op != BAG_OP_CONNECTION && op != BAG_OP_INDEX_DATA &&
			       op != BAG_OP_CHUNK && op != BAG_OP_CHUNK_INFO;
			return BAG_OK;
		}
		if (op != BAG_OP_CONNECTION)
			return BAG_OK;
		at += rec.size;
	}
	return BAG_OK;
}

/*
 * Read the index-data records after a chunk, from *at, into the current
 * counts. *indexed is set when there was at least one and all were well
 * formed; *at ends after the last one read.
 */
static int read_index_records(struct scan *s, const struct chunk *ch, uint64_t *at, bool *indexed)
{
	bag_t *bag = s->bag;
	struct bag_record rec;
	uint8_t *data = NULL;
	bool ok = true;
	size_t n = 0;
	int rc = BAG_OK;

	*indexed = false;
	while (*at < bag->file_size) {
		uint32_t ver, conn, count;
		int64_t t0 = 0, t1 = 0;

		if (read_head(s, *at, &rec) != BAG_OK || head_op(&rec) != BAG_OP_INDEX_DATA)
			break;
		if (rec.size > bag->file_size - *at) {
			ok = false;
			break;
		}
		if (bag_header_u32(rec.header, rec.header_len, "ver", &ver) != BAG_OK || ver != 1 ||
		    bag_header_u32(rec.header, rec.header_len, "conn", &conn) != BAG_OK ||
		    bag_header_u32(rec.header, rec.header_len, "count", &count) != BAG_OK ||
		    (uint64_t)count * INDEX_ENTRY_BYTES != rec.data_len) {
			if (ok)
				rc = bag_warn(bag, *at, "unreadable index data record after the chunk at byte %llu; "
				              "its messages are found from its data", (unsigned long long)ch->pos);
			ok = false;
			*at += rec.size;
			if (rc != BAG_OK)
				goto fail;
			continue;
		}
		free(data);
		if ((rc = read_new(bag, *at + 8 + rec.header_len, rec.data_len, &data)) != BAG_OK)
			goto fail;
		for (uint32_t k = 0; k < count; k++) {
			const uint8_t *p = data + (size_t)k * INDEX_ENTRY_BYTES;
			int64_t t = bag_time_from_ros(bag_le32(p), bag_le32(p + 4));
			if (k == 0 || t < t0)
				t0 = t;
			if (k == 0 || t > t1)
				t1 = t;
		}
		for (size_t i = 0; i < s->ncur; i++)
			if (s->cur[i].id == conn)
				ok = false; /* two records for one connection: read the data */
		if ((rc = count_msgs(s, conn, count, t0, t1)) != BAG_OK)
			goto fail;
		n++;
		*at += rec.size;
	}
	*indexed = ok && n > 0;
fail:
	free(data);
	return rc;
}

/* Move *at past the index-data records there. */
static void skip_index_records(struct scan *s, uint64_t *at)
{
	struct bag_record rec;

	while (*at < s->bag->file_size && read_head(s, *at, &rec) == BAG_OK &&
	       head_op(&rec) == BAG_OP_INDEX_DATA && rec.size <= s->bag->file_size - *at)
		*at += rec.size;
}

/* Append the current chunk and its counts (sorted by id, merged). */
static int append_chunk(struct scan *s, struct chunk *ch)
{
	bag_t *bag = s->bag;
	size_t n = 0;

	if (s->cur_count == 0)
		return BAG_OK;
	for (size_t i = 1; i < s->ncur; i++) {
		struct idcount x = s->cur[i];
		size_t j = i;
		while (j > 0 && s->cur[j - 1].id > x.id) {
			s->cur[j] = s->cur[j - 1];
			j--;
		}
		s->cur[j] = x;
	}
	for (size_t i = 0; i < s->ncur; i++) {
		if (n > 0 && s->cur[n - 1].id == s->cur[i].id)
			s->cur[n - 1].count += s->cur[i].count;
		else if (s->cur[i].count > 0)
			s->cur[n++] = s->cur[i];
	}
	if (bag_grow((void **)&bag->chunks, &s->chunk_cap, bag->nchunks + 1, sizeof *bag->chunks) != BAG_OK ||
	    bag_grow((void **)&bag->chunk_conns, &s->cc_cap, bag->nchunk_conns + n, sizeof *bag->chunk_conns) != BAG_OK)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	ch->conn_first = (uint32_t)bag->nchunk_conns;
	ch->conn_n = (uint32_t)n;
	ch->count = s->cur_count;
	ch->start_ns = s->cur_start;
	ch->end_ns = s->cur_end;
	for (size_t i = 0; i < n; i++)
		bag->chunk_conns[bag->nchunk_conns++] = (struct chunk_conn){ s->cur[i].id, s->cur[i].count };
	bag->chunks[bag->nchunks++] = *ch;
	return BAG_OK;
}

/*
 * The chunk record whose header is head, at pos. Sets *next to where the
 * scan goes on (the end of the file when the chunk runs to it); *lost is set
 * when the chunk's header cannot be read and the scan must search on from
 * *next.
 */
static int scan_chunk(struct scan *s, uint64_t pos, const struct bag_record *head, uint64_t *next, bool *lost)
{
	bag_t *bag = s->bag;
	const uint8_t *comp;
	uint32_t comp_len;
	struct chunk ch;
	bool cut = false, indexed = false, unterminated = false;
	uint64_t avail, end;
	int rc;

	memset(&ch, 0, sizeof ch);
	ch.lru_prev = ch.lru_next = NO_CHUNK;
	ch.pos = pos;
	ch.data_pos = pos + 8 + head->header_len;
	ch.data_len = head->data_len;
	s->ncur = 0;
	s->cur_count = 0;
	*lost = false;
	if (bag_header_find(head->header, head->header_len, "compression", &comp, &comp_len) != BAG_OK ||
	    bag_header_u32(head->header, head->header_len, "size", &ch.size) != BAG_OK) {
		*next = pos;
		*lost = true;
		return BAG_OK;
	}
	avail = bag->file_size - ch.data_pos;
	if (bag_compression_parse((const char *)comp, comp_len, &ch.compression) != BAG_OK ||
	    ch.compression == BAG_COMPRESSION_ZSTD) {   /* MCAP's, never a bag's */
		*next = ch.data_len <= avail ? ch.data_pos + ch.data_len : bag->file_size;
		return add_loss(s, pos, *next, pos, "chunk at byte %llu has unknown compression '%.*s'",
		                (unsigned long long)pos, (int)(comp_len > 32 ? 32 : comp_len), (const char *)comp);
	}
	if (ch.data_len > avail) {
		cut = true;
	} else if (ch.data_len == 0 && avail > 0) {
		if ((rc = is_unterminated(s, &ch, &unterminated)) != BAG_OK)
			return rc;
		cut = unterminated;
	}
	if (cut) {
		ch.data_len = avail > UINT32_MAX ? UINT32_MAX : (uint32_t)avail;
		*next = ch.data_pos + ch.data_len;
	} else {
		*next = ch.data_pos + ch.data_len;
		if ((rc = read_index_records(s, &ch, next, &indexed)) != BAG_OK)
			return rc;
	}
	if (indexed) {
		bool unknown = false;
		for (size_t i = 0; i < s->ncur; i++)
			unknown |= !id_known(s, s->cur[i].id);
		if (unknown && (rc = scan_body(s, &ch, false, true, &end)) != BAG_OK)
			return rc;
		ch.index_end = *next;
	} else {
		bool had_data = ch.data_len > 0;
		size_t nlosses = bag->nlosses;
		s->ncur = 0;
		s->cur_count = 0;
		if ((rc = scan_body(s, &ch, cut, false, &end)) != BAG_OK)
			return rc;
		ch.no_index = true;
		ch.index_end = ch.data_pos + ch.data_len;
		if (end != *next) {
			/* the data ended elsewhere than data_len said: its index records follow it */
			*next = end;
			skip_index_records(s, next);
		}
		if (s->cur_count > 0)
			bag->recovery.chunks_scanned++;
		if (s->cur_count > 0 && bag->nlosses > nlosses)
			bag->recovery.chunks_partial++;
		if (s->cur_count == 0 && had_data)
			bag->recovery.chunks_failed++;
	}
	ch.stat_loaded = true;
	if (!cut || ch.compression == BAG_COMPRESSION_NONE)
		bag->recovery.records_end = cut ? ch.data_pos + ch.size : *next;
	return append_chunk(s, &ch);
}

/* ---- the scan -------------------------------------------------------------- */

static int cmp_undefined(const void *a, const void *b)
{
	const struct chunk_conn *x = a, *y = b;
	return (x->conn > y->conn) - (x->conn < y->conn);
}

/*
 * Sort connections, resolve the chunks' connection ids to indices (dropping
 * counts for connections defined nowhere, one warning per connection), and
 * total counts and times.
 */
static int link_scan(struct scan *s)
{
	bag_t *bag = s->bag;
	struct chunk_conn *undef = NULL;   /* (conn id, messages) per chunk dropped */
	size_t out = 0, nundef = 0, undef_cap = 0;
	int rc = BAG_OK;

	bag_conns_sort(bag);
	for (size_t i = 0; i < bag->nchunks; i++) {
		struct chunk *ch = &bag->chunks[i];
		uint32_t first = (uint32_t)out;

		for (uint32_t k = 0; k < ch->conn_n; k++) {
			struct chunk_conn cc = bag->chunk_conns[ch->conn_first + k];
			long idx = bag_conn_lookup(bag, cc.conn);
			if (idx < 0) {
				ch->count -= cc.count;
				ch->no_index = true;
				if (bag_grow((void **)&undef, &undef_cap, nundef + 1, sizeof *undef) != BAG_OK) {
					rc = bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
					goto fail;
				}
				undef[nundef++] = cc;
				continue;
			}
			cc.conn = (uint32_t)idx;
			bag->chunk_conns[out++] = cc;
			bag->conns[idx].message_count += cc.count;
		}
		ch->conn_first = first;
		ch->conn_n = (uint32_t)out - first;
		if (ch->count == 0)
			continue;
		bag_count_chunk(bag, ch);
		bag->recovery.chunks++;
	}
	bag->nchunk_conns = out;
	if (nundef > 1)
		bag_sort(undef, nundef, sizeof *undef, cmp_undefined);
	for (size_t i = 0, j; i < nundef; i = j) {
		uint64_t n = 0;
		for (j = i; j < nundef && undef[j].conn == undef[i].conn; j++)
			n += undef[j].count;
		rc = bag_warn(bag, UINT64_MAX, "%llu message%s on connection %u, which is defined nowhere, "
		              "skipped (in %zu chunk%s)", (unsigned long long)n, BAG_S(n), undef[i].conn, j - i, BAG_S(j - i));
		if (rc != BAG_OK)
			goto fail;
	}
fail:
	free(undef);
	return rc;
}

/* Why the record header at pos (rc, op, head as read) cannot be taken in place; "" when it can. */
static void unusable(const bag_t *bag, uint64_t pos, int rc, uint8_t op, const struct bag_record *head, char *why,
                     size_t len)
{
	if (rc == BAG_ETRUNCATED)
		snprintf(why, len, "record header runs past the end of the file");
	else if (op == 0)
		snprintf(why, len, "record without an op field");
	else if (op == BAG_OP_MSG_DATA || op > BAG_OP_CONNECTION)
		snprintf(why, len, "record with op %u where a chunk or connection should be", op);
	else if (op != BAG_OP_CHUNK && head->size > bag->file_size - pos)
		snprintf(why, len, "record cut off by the end of the file");
	else
		why[0] = '\0';
}

/* The chunk record at *pos: its messages taken, *pos after it (or past the damage). */
static int take_chunk(struct scan *s, uint64_t *pos, const struct bag_record *head)
{
	uint64_t next;
	bool lost;
	char why[160];
	int rc;

	if ((rc = scan_chunk(s, *pos, head, &next, &lost)) != BAG_OK)
		return rc;
	if (lost) {
		snprintf(why, sizeof why, "chunk at byte %llu has an unreadable header (compression, size)",
		         (unsigned long long)*pos);
		if ((rc = resync(s, &next, *pos, why)) != BAG_OK)
			return rc;
	}
	*pos = next;
	s->prev_op = lost ? 0 : BAG_OP_INDEX_DATA;
	return BAG_OK;
}

/* The connection record at pos (head read): its data read and the connection added. */
static int take_connection(struct scan *s, uint64_t pos, const struct bag_record *head)
{
	struct bag_record rec = *head;
	uint8_t *data = NULL;
	/* s->hbuf may move while the data is read; copy the header */
	uint8_t *hdr = malloc(head->header_len ? head->header_len : 1);
	int rc;

	if (hdr == NULL)
		return bag_fail(s->bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	memcpy(hdr, head->header, head->header_len);
	rec.header = hdr;
	rc = read_new(s->bag, pos + 8 + head->header_len, head->data_len, &data);
	rec.data = data;
	if (rc == BAG_OK)
		rc = add_connection(s, &rec, pos);
	free(hdr);
	free(data);
	return rc;
}

/* A record outside any chunk: a connection is taken; index data and others are said once and skipped. */
static int take_other(struct scan *s, uint64_t pos, uint8_t op, const struct bag_record *head)
{
	if (op == BAG_OP_CONNECTION)
		return take_connection(s, pos, head);
	if (op == BAG_OP_INDEX_DATA)
		/* a run of them follows a chunk that was lost: one line */
		return s->prev_op != BAG_OP_INDEX_DATA ?
		       bag_warn(s->bag, pos, "index data records that follow no chunk skipped") : BAG_OK;
	if (op != BAG_OP_CHUNK_INFO)
		return bag_warn(s->bag, pos, "record with op %u outside any chunk skipped", op);
	return BAG_OK;
}

/* Walk the file's records from pos, taking chunks and connections, searching past damage. */
static int walk_records(struct scan *s, uint64_t pos)
{
	bag_t *bag = s->bag;
	int rc;

	while (pos < bag->file_size) {
		struct bag_record head;
		char why[160];
		uint8_t op = 0;

		if ((rc = progress(s, pos, false)) != BAG_OK)
			return rc;
		rc = read_head(s, pos, &head);
		if (rc != BAG_OK && rc != BAG_ETRUNCATED)
			return rc;
		if (rc == BAG_OK)
			op = head_op(&head);
		unusable(bag, pos, rc, op, &head, why, sizeof why);
		if (why[0] != '\0') {
			if ((rc = resync(s, &pos, UINT64_MAX, why)) != BAG_OK)
				return rc;
			s->prev_op = 0;
			continue;
		}
		if (op == BAG_OP_CHUNK) {
			if ((rc = take_chunk(s, &pos, &head)) != BAG_OK)
				return rc;
			continue;
		}
		if ((rc = take_other(s, pos, op, &head)) != BAG_OK)
			return rc;
		s->prev_op = op;
		pos += head.size;
		bag->recovery.records_end = pos;
	}
	return BAG_OK;
}

int bag_recover(bag_t *bag, uint64_t start, const char *reason)
{
	struct scan s;
	int rc = BAG_OK;

	memset(&s, 0, sizeof s);
	s.bag = bag;
	memset(&bag->recovery, 0, sizeof bag->recovery);
	bag->recovery.recovered = true;
	bag->recovery.records_end = start;
	free(bag->recovery_reason);
	bag->recovery_reason = strdup(reason);
	if (bag->recovery_reason == NULL) {
		rc = bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
		goto fail;
	}
	if ((rc = progress(&s, 0, true)) != BAG_OK || (rc = walk_records(&s, start)) != BAG_OK)
		goto fail;
	if ((rc = link_scan(&s)) != BAG_OK)
		goto fail;
	bag->recovery.trailing_bytes = bag->file_size - bag->recovery.records_end;
	bag->recovery.messages = bag->message_count;
	rc = progress(&s, bag->file_size, true);
fail:
	free(s.ids);
	free(s.cur);
	free(s.hbuf);
	free(s.block);
	return rc;
}
