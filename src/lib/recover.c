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
 * goes and its message records (op 2) are counted; the chunk is marked
 * no_index and index.c walks its data for entries the same way (chunk_walk
 * is the one walker both use, so counts always agree). A cut-off compressed
 * chunk is marked partial: only the prefix that decompressed during the scan
 * (ending at its last complete record) is ever read.
 *
 * Connections come from connection records (op 7) at the top level (the
 * index section, when the file still has it) and inside chunks: a chunk
 * whose index records name a connection not seen yet is decompressed to find
 * its definition. Duplicates keep the first definition. Messages on
 * connections defined nowhere are dropped with a warning.
 *
 * Every length read from the file is checked against the bytes left in it
 * before anything is allocated, and decompressed sizes are bounded by the
 * compression ratios chunk.c accepts.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bzlib.h>
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifdef HAVE_LZ4
#include <lz4frame.h>
#endif

#include "lib/bag-int.h"
#include "lib/util-int.h"

#define PROGRESS_STEP ((uint64_t)1 << 20)

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
	uint64_t last_progress;
};

/* What a chunk walk collects during the scan. */
struct body_walk {
	struct scan *s;
	uint64_t chunk_pos;
	bool harvest_only;        /* only connections, not messages */
	int rc;
};

static int add_loss(struct scan *s, uint64_t start, uint64_t end, uint64_t chunk_pos,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Note a stretch [start, end) whose messages are lost, and why. */
static int add_loss(struct scan *s, uint64_t start, uint64_t end, uint64_t chunk_pos,
                    const char *fmt, ...)
{
	bag_t *bag = s->bag;
	char line[BAG_ERRMSG_MAX];
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

/* ---- walking chunk data ---------------------------------------------------- */

int chunk_walk(const uint8_t *data, size_t len, chunk_walk_fn fn, void *arg, size_t *used)
{
	size_t at = 0;
	int rc = BAG_OK;

	while (at < len && at <= UINT32_MAX) {
		struct bag_record rec;
		struct chunk_item it;

		if (bag_record_parse(data + at, len - at, &rec) != BAG_OK)
			break;
		memset(&it, 0, sizeof it);
		it.offset = (uint32_t)at;
		it.rec = &rec;
		if (bag_header_u8(rec.header, rec.header_len, "op", &it.op) != BAG_OK)
			it.op = 0;
		it.msg_ok = it.op == BAG_OP_MSG_DATA &&
		            bag_header_u32(rec.header, rec.header_len, "conn", &it.conn_id) == BAG_OK &&
		            bag_header_time(rec.header, rec.header_len, "time", &it.time_ns) == BAG_OK;
		if ((rc = fn(arg, &it)) != BAG_OK)
			break;
		at += rec.size;
	}
	if (used != NULL)
		*used = at;
	return rc;
}

/* ---- decompression as far as the data goes ------------------------------- */

/* Result of inflate_stream(). */
struct inflated {
	uint8_t *buf;             /* malloc'd unless given */
	size_t len;               /* bytes out */
	bool ended;               /* the stream ended properly */
	char err[128];            /* why it stopped early, "" if it did not */
};

/*
 * out->buf is full at *cap: double it up to max_cap. Returns 0, BAG_ENOMEM,
 * or 1 (with out->err set) when it may not grow.
 */
static int grow_out(struct inflated *out, size_t *cap, size_t max_cap, bool grow_buf)
{
	size_t ncap = *cap * 2 < max_cap ? *cap * 2 : max_cap;
	uint8_t *n;

	if (!grow_buf || ncap <= *cap) {
		snprintf(out->err, sizeof out->err, "decompresses to more than %zu bytes", *cap);
		return 1;
	}
	if ((n = realloc(out->buf, ncap)) == NULL)
		return BAG_ENOMEM;
	out->buf = n;
	*cap = ncap;
	return BAG_OK;
}

/*
 * Decompress src as far as it goes into out->buf (capacity cap, grown up to
 * max_cap when grow_buf). Stops at the end of the stream, at corrupt data,
 * when input runs out (a cut-off stream) or at max_cap. Returns 0,
 * BAG_ENOMEM or BAG_EUNSUPP (lz4 without liblz4).
 */
static int inflate_stream(enum bag_compression comp, const uint8_t *src, size_t src_len,
                          struct inflated *out, size_t cap, size_t max_cap, bool grow_buf)
{
	int rc = BAG_OK;

	out->len = 0;
	out->ended = false;
	out->err[0] = '\0';
	if (grow_buf && (out->buf = malloc(cap ? cap : 1)) == NULL)
		return BAG_ENOMEM;
	if (comp == BAG_COMPRESSION_BZ2) {
		bz_stream z;

		memset(&z, 0, sizeof z);
		if (BZ2_bzDecompressInit(&z, 0, 0) != BZ_OK)
			return BAG_ENOMEM;
		z.next_in = (char *)src;
		z.avail_in = src_len > UINT32_MAX ? UINT32_MAX : (unsigned)src_len;
		for (;;) {
			if (out->len == cap && (rc = grow_out(out, &cap, max_cap, grow_buf)) != BAG_OK)
				break;
			size_t room = cap - out->len > UINT32_MAX ? UINT32_MAX : cap - out->len;
			unsigned in_before = z.avail_in;
			z.next_out = (char *)out->buf + out->len;
			z.avail_out = (unsigned)room;
			int bz = BZ2_bzDecompress(&z);
			out->len += room - z.avail_out;
			if (bz == BZ_STREAM_END) {
				out->ended = true;
				break;
			}
			if (bz != BZ_OK) {
				snprintf(out->err, sizeof out->err, "bz2 data is corrupt (bzip2 error %d)", bz);
				break;
			}
			if (z.avail_in == 0 && z.avail_out != 0) {
				snprintf(out->err, sizeof out->err, "bz2 stream is cut off");
				break;
			}
			if (z.avail_in == in_before && room == z.avail_out) {
				snprintf(out->err, sizeof out->err, "bz2 stream makes no progress");
				break;
			}
		}
		BZ2_bzDecompressEnd(&z);
		return rc < 0 ? rc : BAG_OK;   /* 1: stopped, out->err says why */
	}
#ifdef HAVE_LZ4
	if (comp == BAG_COMPRESSION_LZ4) {
		LZ4F_dctx *dctx;
		size_t in_at = 0;

		if (LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION)))
			return BAG_ENOMEM;
		for (;;) {
			if (out->len == cap && (rc = grow_out(out, &cap, max_cap, grow_buf)) != BAG_OK)
				break;
			size_t in_n = src_len - in_at, out_n = cap - out->len;
			size_t ret = LZ4F_decompress(dctx, out->buf + out->len, &out_n, src + in_at, &in_n, NULL);
			if (LZ4F_isError(ret)) {
				snprintf(out->err, sizeof out->err, "lz4 data is corrupt (%s)", LZ4F_getErrorName(ret));
				break;
			}
			in_at += in_n;
			out->len += out_n;
			if (ret == 0) {
				out->ended = true;
				break;
			}
			if (in_n == 0 && out_n == 0) {
				snprintf(out->err, sizeof out->err, "lz4 frame is cut off");
				break;
			}
		}
		LZ4F_freeDecompressionContext(dctx);
		return rc < 0 ? rc : BAG_OK;   /* 1: stopped, out->err says why */
	}
#endif
	if (comp == BAG_COMPRESSION_NONE) {
		size_t n = src_len < cap ? src_len : cap;
		memcpy(out->buf, src, n);
		out->len = n;
		out->ended = n == src_len;
		return BAG_OK;
	}
	return BAG_EUNSUPP;
}

int chunk_inflate_prefix(bag_t *bag, const struct chunk *ch, const uint8_t *src, uint8_t *dst)
{
	struct inflated out = { .buf = dst };
	int rc = inflate_stream(ch->compression, src, ch->data_len, &out, ch->size, ch->size, false);

	if (rc == BAG_EUNSUPP)
		return bag_fail(bag, rc, ch->pos, "%s chunks are not supported by this build",
		                bag_compression_name(ch->compression));
	if (rc != BAG_OK)
		return bag_fail(bag, rc, UINT64_MAX, "out of memory");
	if (out.len != ch->size)
		return bag_fail(bag, BAG_ECOMPRESS, ch->pos, "cut-off chunk now decompresses to %zu bytes, "
		                "%u during recovery", out.len, ch->size);
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
		return add_connection(w->s, it->rec, w->chunk_pos);
	if (w->harvest_only)
		return BAG_OK;
	if (it->msg_ok)
		return count_msgs(w->s, it->conn_id, 1, it->time_ns, it->time_ns);
	return bag_warn(w->s->bag, w->chunk_pos, "record at offset %u of the chunk (op %u) is not a "
	                "readable message or connection; skipped", it->offset, it->op);
}

/* Read len bytes at off into a new buffer. */
static int read_new(bag_t *bag, uint64_t off, uint64_t len, uint8_t **out)
{
	int rc;

	*out = malloc(len ? (size_t)len : 1);
	if (*out == NULL)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory for %llu bytes",
		                (unsigned long long)len);
	if ((rc = bag_read_at(bag, off, *out, (size_t)len)) != BAG_OK) {
		free(*out);
		*out = NULL;
	}
	return rc;
}

/*
 * Decompress chunk ch's body (as far as it goes) and walk it: count its
 * messages (unless harvest_only) and collect its connections. For a chunk
 * that is indexed from its data, fix size, data_len and partial to what will
 * be read back, and note what was lost.
 */
static int scan_body(struct scan *s, struct chunk *ch, bool cut, bool harvest_only)
{
	bag_t *bag = s->bag;
	struct inflated inf = { 0 };
	struct body_walk w = { s, ch->pos, harvest_only, BAG_OK };
	uint8_t *raw = NULL;
	size_t used = 0, cap;
	bool whole;
	int rc;

	if ((rc = read_new(bag, ch->data_pos, ch->data_len, &raw)) != BAG_OK)
		goto fail;
	if (ch->compression == BAG_COMPRESSION_NONE) {
		inf.buf = raw;
		inf.len = ch->data_len;
		inf.ended = true;
		raw = NULL;
	} else {
		size_t max = (size_t)chunk_size_cap(ch->compression, ch->data_len);
		if (ch->size != 0 && ch->size < max)
			max = ch->size;
		cap = (size_t)ch->data_len * 4 < max ? (size_t)ch->data_len * 4 : max;
		if (cap < 4096)
			cap = max < 4096 ? max : 4096;
		rc = inflate_stream(ch->compression, raw, ch->data_len, &inf, cap, max, true);
		if (rc == BAG_EUNSUPP) {
			rc = add_loss(s, ch->pos, ch->data_pos + ch->data_len, ch->pos,
			              "%s chunk at byte %llu cannot be read by this build",
			              bag_compression_name(ch->compression), (unsigned long long)ch->pos);
			goto fail;
		}
		if (rc != BAG_OK) {
			rc = bag_fail(bag, rc, UINT64_MAX, "out of memory");
			goto fail;
		}
	}
	rc = chunk_walk(inf.buf, inf.len, body_item, &w, &used);
	if (rc != BAG_OK || harvest_only)
		goto fail;
	if (ch->compression == BAG_COMPRESSION_NONE)
		whole = !cut && used == inf.len; /* a wrong size field is forgiven */
	else
		whole = !cut && inf.ended && inf.len == ch->size && used == inf.len;
	if (whole) {
		ch->size = (uint32_t)inf.len;
		goto fail;
	}
	ch->size = (uint32_t)used;
	if (ch->compression == BAG_COMPRESSION_NONE)
		ch->data_len = (uint32_t)used;
	else
		ch->partial = true;
	if (ch->compression == BAG_COMPRESSION_NONE && used == inf.len)
		rc = BAG_OK; /* an unterminated chunk whose records are all whole */
	else if (ch->compression == BAG_COMPRESSION_NONE)
		rc = add_loss(s, ch->data_pos + used, ch->data_pos + inf.len, ch->pos,
		              "chunk at byte %llu %s: %llu messages in its first %zu bytes recovered, "
		              "the %zu bytes after them lost", (unsigned long long)ch->pos,
		              cut ? "is cut off" : "ends in an incomplete record",
		              (unsigned long long)s->cur_count, used, inf.len - used);
	else
		rc = add_loss(s, ch->pos, ch->data_pos + ch->data_len, ch->pos,
		              "%s chunk at byte %llu %s: %zu bytes decompressed%s%s, %llu messages recovered",
		              bag_compression_name(ch->compression), (unsigned long long)ch->pos,
		              cut ? "is cut off" : "is damaged", inf.len, inf.err[0] ? " before: " : "",
		              inf.err, (unsigned long long)s->cur_count);
fail:
	free(raw);
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
 * scan goes on (the end of the file when the chunk runs to it).
 */
static int scan_chunk(struct scan *s, uint64_t pos, const struct bag_record *head, uint64_t *next)
{
	bag_t *bag = s->bag;
	const uint8_t *comp;
	uint32_t comp_len;
	struct chunk ch;
	bool cut = false, indexed = false, unterminated = false;
	uint64_t avail;
	int rc;

	memset(&ch, 0, sizeof ch);
	ch.lru_prev = ch.lru_next = NO_CHUNK;
	ch.pos = pos;
	ch.data_pos = pos + 8 + head->header_len;
	ch.data_len = head->data_len;
	s->ncur = 0;
	s->cur_count = 0;
	if (bag_header_find(head->header, head->header_len, "compression", &comp, &comp_len) != BAG_OK ||
	    bag_header_u32(head->header, head->header_len, "size", &ch.size) != BAG_OK ||
	    bag_compression_parse((const char *)comp, comp_len, &ch.compression) != BAG_OK) {
		*next = pos + head->size;
		return add_loss(s, pos, *next < bag->file_size ? *next : bag->file_size, pos,
		                "chunk at byte %llu has an unreadable header (compression, size)",
		                (unsigned long long)pos);
	}
	avail = bag->file_size - ch.data_pos;
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
		if (unknown && (rc = scan_body(s, &ch, false, true)) != BAG_OK)
			return rc;
		ch.index_end = *next;
	} else {
		bool had_data = ch.data_len > 0;
		size_t nlosses = bag->nlosses;
		s->ncur = 0;
		s->cur_count = 0;
		if ((rc = scan_body(s, &ch, cut, false)) != BAG_OK)
			return rc;
		ch.no_index = true;
		ch.index_end = ch.data_pos + ch.data_len;
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

static int cmp_conn_id(const void *a, const void *b)
{
	const struct bag_connection *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

/*
 * Sort connections, resolve the chunks' connection ids to indices (dropping
 * counts for connections defined nowhere), and total counts and times.
 */
static int link_scan(struct scan *s)
{
	bag_t *bag = s->bag;
	size_t out = 0;
	int rc;

	if (bag->nconns > 1)
		qsort(bag->conns, bag->nconns, sizeof *bag->conns, cmp_conn_id);
	for (size_t i = 0; i < bag->nconns; i++)
		bag->conns[i].index = (uint32_t)i;
	for (size_t i = 0; i < bag->nchunks; i++) {
		struct chunk *ch = &bag->chunks[i];
		uint32_t first = (uint32_t)out;

		for (uint32_t k = 0; k < ch->conn_n; k++) {
			struct chunk_conn cc = bag->chunk_conns[ch->conn_first + k];
			long idx = bag_conn_lookup(bag, cc.conn);
			if (idx < 0) {
				ch->count -= cc.count;
				ch->no_index = true;
				rc = bag_warn(bag, ch->pos, "%u messages on connection %u, which is defined nowhere, skipped",
				              cc.count, cc.conn);
				if (rc != BAG_OK)
					return rc;
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
	return BAG_OK;
}

int bag_recover(bag_t *bag, uint64_t start, const char *reason)
{
	struct scan s;
	uint64_t pos = start;
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
	if ((rc = progress(&s, 0, true)) != BAG_OK)
		goto fail;
	while (pos < bag->file_size) {
		struct bag_record head;
		uint64_t next;
		uint8_t op;

		if ((rc = progress(&s, pos, false)) != BAG_OK)
			goto fail;
		rc = read_head(&s, pos, &head);
		if (rc == BAG_ETRUNCATED) {
			rc = add_loss(&s, pos, bag->file_size, UINT64_MAX,
			              "the last %llu bytes hold no complete record header",
			              (unsigned long long)(bag->file_size - pos));
			break;
		}
		if (rc != BAG_OK)
			goto fail;
		op = head_op(&head);
		if (op == BAG_OP_CHUNK) {
			if ((rc = scan_chunk(&s, pos, &head, &next)) != BAG_OK)
				goto fail;
			pos = next;
			continue;
		}
		if (op == 0 || head.size > bag->file_size - pos) {
			rc = add_loss(&s, pos, bag->file_size, UINT64_MAX, op == 0 ?
			              "record without an op field: the %llu bytes from here on are not read" :
			              "record cut off: the %llu bytes from here on are not read",
			              (unsigned long long)(bag->file_size - pos));
			break;
		}
		if (op == BAG_OP_CONNECTION) {
			struct bag_record rec = head;
			uint8_t *data = NULL;
			/* s.hbuf may move while the data is read; copy the header */
			uint8_t *hdr = malloc(head.header_len ? head.header_len : 1);
			if (hdr == NULL) {
				rc = bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
				goto fail;
			}
			memcpy(hdr, head.header, head.header_len);
			rec.header = hdr;
			rc = read_new(bag, pos + 8 + head.header_len, head.data_len, &data);
			rec.data = data;
			if (rc == BAG_OK)
				rc = add_connection(&s, &rec, pos);
			free(hdr);
			free(data);
			if (rc != BAG_OK)
				goto fail;
		} else if (op == BAG_OP_INDEX_DATA) {
			rc = bag_warn(bag, pos, "index data record that follows no chunk skipped");
		} else if (op != BAG_OP_CHUNK_INFO) {
			rc = bag_warn(bag, pos, "record with op %u outside any chunk skipped", op);
		}
		if (rc != BAG_OK)
			goto fail;
		pos += head.size;
		bag->recovery.records_end = pos;
	}
	if ((rc = link_scan(&s)) != BAG_OK)
		goto fail;
	bag->recovery.trailing_bytes = bag->file_size - bag->recovery.records_end;
	bag->recovery.messages = bag->message_count;
	rc = progress(&s, bag->file_size, true);
fail:
	free(s.ids);
	free(s.cur);
	free(s.hbuf);
	return rc;
}
