/*
 * chunk.c - chunk records fetched on demand: the record header (compression,
 * sizes) read once per chunk, the data read and decompressed (codec.c) into
 * a cache bounded in bytes.
 *
 * The cache is an LRU list threaded through the chunks array (lru_prev /
 * lru_next, head = most recent). A chunk with buf != NULL is on the list and
 * counted in cache_bytes; pinned chunks are never evicted, and neither is the
 * most recent one for want of room alone, so the bound can be exceeded while
 * more than the bound is pinned at once, or by one chunk larger than it.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/record.h>
#include "lib/formats/bag-int.h"
#include "lib/formats/reader-int.h"
#include "lib/common/util-int.h"

#define STAT_READ 512
#define STAT_AHEAD 4096             /* chunk headers prefetched at once (remote) */

static int load_stat(bag_t *bag, size_t i);

/*
 * Read chunk i's record header. When the chunk info's chunk_pos does not
 * point at a chunk record, the one chunk record between the chunks before
 * and after it is taken instead (a damaged chunk_pos; rosbag reindex reads
 * the chunk too), and the chunk before it then ends there.
 */
/*
 * A remote source fetches chunk headers ahead, STAT_AHEAD at a time, in as
 * few requests as it can (multi-range); a local file has no prefetch.
 */
static void stat_ahead(bag_t *bag, size_t i)
{
	struct bag_span *spans;
	size_t n = 0, end = i + STAT_AHEAD < bag->nchunks ? i + STAT_AHEAD : bag->nchunks;

	if (bag->src->ops->prefetch == NULL || (i >= bag->stat_ahead_lo && i < bag->stat_ahead))
		return;
	bag->stat_ahead_lo = i;
	bag->stat_ahead = end;
	spans = malloc((end - i) * sizeof *spans);
	if (spans == NULL)
		return;
	for (; i < end; i++)
		if (!bag->chunks[i].stat_loaded && bag->chunks[i].pos < bag->file_size) {
			uint64_t left = bag->file_size - bag->chunks[i].pos;
			spans[n++] = (struct bag_span){ bag->chunks[i].pos, left < STAT_READ ? left : STAT_READ };
		}
	bag_prefetch(bag, spans, n);
	free(spans);
}

int chunk_load_stat(bag_t *bag, size_t i)
{
	struct chunk *ch = &bag->chunks[i];
	uint64_t lo = i > 0 ? bag->chunks[i - 1].pos : bag->body_pos - 1, found, old = ch->pos;
	char err[BAG_ERROR_MESSAGE_MAX];
	int rc;

	if (!ch->stat_loaded)
		stat_ahead(bag, i);
	rc = load_stat(bag, i);

	if ((rc != BAG_ECORRUPT && rc != BAG_ETRUNCATED) || ch->no_index)
		return rc;
	snprintf(err, sizeof err, "%s", bag->err.message);
	if (bag_find_chunk(bag, lo, ch->index_end, &found) != BAG_OK || found == ch->index_end || found == old)
		return bag_fail(bag, rc, UINT64_MAX, "%s", err + strlen(bag->path) + 2);
	ch->pos = found;
	if ((rc = load_stat(bag, i)) != BAG_OK) {
		ch->pos = old;
		return rc;
	}
	if (i > 0)
		bag->chunks[i - 1].index_end = found;
	return bag_warn(bag, old, "chunk info points at a record that is not a chunk; the chunk record at "
	                "byte %llu is read instead", (unsigned long long)found);
}

static int load_stat(bag_t *bag, size_t i)
{
	struct chunk *ch = &bag->chunks[i];
	uint8_t small[STAT_READ], *buf = small;
	uint64_t avail = bag->file_size - ch->pos;
	size_t got = avail < sizeof small ? (size_t)avail : sizeof small;
	const uint8_t *comp;
	uint32_t comp_len;
	struct bag_record rec;
	uint8_t op;
	int rc;

	if (ch->stat_loaded)
		return BAG_OK;
	if ((rc = bag_read_at(bag, ch->pos, small, got)) != BAG_OK)
		return rc;
	if (got >= 4 && bag_le32(small) + (uint64_t)8 > got) {
		uint64_t need = bag_le32(small) + (uint64_t)8;
		if (need > avail)
			return bag_fail(bag, BAG_ETRUNCATED, ch->pos, "chunk header runs past the end of the file");
		buf = malloc((size_t)need);
		if (buf == NULL)
			return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
		got = (size_t)need;
		if ((rc = bag_read_at(bag, ch->pos, buf, got)) != BAG_OK)
			goto fail;
	}
	rc = bag_record_parse(buf, got, &rec);
	if (rc != BAG_OK && rec.size == 0) {
		rc = bag_fail(bag, BAG_ETRUNCATED, ch->pos, "chunk header runs past the end of the file");
		goto fail;
	}
	if (bag_header_u8(rec.header, rec.header_len, "op", &op) != BAG_OK || op != BAG_OP_CHUNK) {
		rc = bag_fail(bag, BAG_ECORRUPT, ch->pos, "chunk info points at a record that is not a chunk (op 5)");
		goto fail;
	}
	if (bag_header_find(rec.header, rec.header_len, "compression", &comp, &comp_len) != BAG_OK ||
	    bag_header_u32(rec.header, rec.header_len, "size", &ch->size) != BAG_OK) {
		rc = bag_fail(bag, BAG_ECORRUPT, ch->pos, "chunk header lacks compression or size");
		goto fail;
	}
	if (bag_compression_parse((const char *)comp, comp_len, &ch->compression) != BAG_OK ||
	    ch->compression == BAG_COMPRESSION_ZSTD) {   /* MCAP's, never a bag's */
		rc = bag_fail(bag, BAG_EUNSUPP, ch->pos, "unknown chunk compression '%.*s'",
		              (int)(comp_len > 32 ? 32 : comp_len), (const char *)comp);
		goto fail;
	}
	ch->data_len = rec.data_len;
	ch->data_pos = ch->pos + 8 + rec.header_len;
	if (ch->data_pos + ch->data_len > bag->file_size) {
		rc = bag_fail(bag, BAG_ETRUNCATED, ch->pos, "chunk data (%u byte%s) runs past the end of the file",
		              ch->data_len, BAG_S(ch->data_len));
		goto fail;
	}
	if (ch->data_pos + ch->data_len > ch->index_end) {
		rc = bag_fail(bag, BAG_ECORRUPT, ch->pos, "chunk data (%u byte%s) overlaps the next chunk",
		              ch->data_len, BAG_S(ch->data_len));
		goto fail;
	}
	ch->stat_loaded = true;
	rc = BAG_OK;
fail:
	if (buf != small)
		free(buf);
	return rc;
}

BAG_API void bag_chunk_span(const bag_t *bag, size_t i, int64_t *start_ns, int64_t *end_ns)
{
	*start_ns = bag->chunks[i].start_ns;
	*end_ns = bag->chunks[i].end_ns;
}

BAG_API uint32_t bag_chunk_conn_messages(const bag_t *bag, size_t i, size_t conn_index)
{
	const struct chunk *ch = &bag->chunks[i];
	const struct chunk_conn *cc = &bag->chunk_conns[ch->conn_first];
	uint32_t lo = 0, hi = ch->conn_n;

	while (lo < hi) {           /* a chunk's counts are in connection order (bag.c) */
		uint32_t mid = lo + (hi - lo) / 2;
		if (cc[mid].conn < conn_index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ch->conn_n && cc[lo].conn == conn_index ? cc[lo].count : 0;
}

BAG_API size_t bag_chunk_conn_n(const bag_t *bag, size_t i)
{
	return bag->chunks[i].conn_n;
}

BAG_API void bag_chunk_conn_at(const bag_t *bag, size_t i, size_t k, size_t *conn_index, uint32_t *count)
{
	const struct chunk_conn *cc = &bag->chunk_conns[bag->chunks[i].conn_first + k];

	*conn_index = cc->conn;
	*count = cc->count;
}

BAG_API int bag_chunk_stat(bag_t *bag, size_t i, struct bag_chunk_info *info)
{
	struct chunk *ch;
	int rc;

	if (i >= bag->nchunks)
		return bag_fail(bag, BAG_EINVAL, UINT64_MAX, "no chunk %zu", i);
	ch = &bag->chunks[i];
	info->pos = ch->pos;
	info->start_ns = ch->start_ns;
	info->end_ns = ch->end_ns;
	info->message_count = ch->count;
	if ((rc = chunk_load_stat(bag, i)) != BAG_OK)
		return rc;
	info->compression = ch->compression;
	/* an older bag's span: its bytes in the file, whatever its translation holds */
	info->size = bag->fmt->read_span == NULL ? ch->size :
	             ch->span_size > 0 && ch->span_size <= UINT32_MAX ? (uint32_t)ch->span_size : ch->data_len;
	info->compressed_size = ch->data_len;
	return BAG_OK;
}

/*
 * Decompress chunk ch's data src into dst (room for ch->size + 1 bytes): it
 * must come out exactly ch->size bytes, or for a partial chunk (recovered
 * from a cut-off stream) at least that many.
 */
static int decompress(bag_t *bag, const struct chunk *ch, const uint8_t *src, uint8_t *dst)
{
	struct bag_inflated out = { .buf = dst };
	const char *name = bag_compression_name(ch->compression);
	int rc = bag_codec_inflate(&bag->codec, ch->compression, src, ch->data_len, (size_t)ch->size + 1, 0, false, &out);

	if (rc == BAG_EUNSUPP)
		return bag_fail(bag, rc, ch->pos, "%s chunks are not supported by this build", name);
	if (rc != BAG_OK)
		return bag_fail(bag, rc, UINT64_MAX, "out of memory");
	if (ch->partial)
		return out.len >= ch->size ? BAG_OK :
		       bag_fail(bag, BAG_ECOMPRESS, ch->pos, "cut-off %s chunk now decompresses to %zu byte%s, "
		                "%u during recovery", name, out.len, BAG_S(out.len), ch->size);
	if (out.len > ch->size)
		return bag_fail(bag, BAG_ECOMPRESS, ch->pos, "%s chunk decompresses to more than its stated %u byte%s",
		                name, ch->size, BAG_S(ch->size));
	if (!out.ended)
		return bag_fail(bag, BAG_ECOMPRESS, ch->pos, "%s chunk cannot be decompressed: %s", name, out.err.message);
	if (out.len != ch->size)
		return bag_fail(bag, BAG_ECOMPRESS, ch->pos, "%s chunk decompresses to %zu byte%s, header says %u",
		                name, out.len, BAG_S(out.len), ch->size);
	return BAG_OK;
}

static void lru_unlink(bag_t *bag, uint32_t i)
{
	struct chunk *ch = &bag->chunks[i];

	if (ch->lru_prev != NO_CHUNK)
		bag->chunks[ch->lru_prev].lru_next = ch->lru_next;
	else
		bag->lru_head = ch->lru_next;
	if (ch->lru_next != NO_CHUNK)
		bag->chunks[ch->lru_next].lru_prev = ch->lru_prev;
	else
		bag->lru_tail = ch->lru_prev;
	ch->lru_prev = ch->lru_next = NO_CHUNK;
}

static void lru_push_head(bag_t *bag, uint32_t i)
{
	struct chunk *ch = &bag->chunks[i];

	ch->lru_prev = NO_CHUNK;
	ch->lru_next = bag->lru_head;
	if (bag->lru_head != NO_CHUNK)
		bag->chunks[bag->lru_head].lru_prev = i;
	bag->lru_head = i;
	if (bag->lru_tail == NO_CHUNK)
		bag->lru_tail = i;
}

/* Chunk i to the head of the LRU list (a scan asks for the head many times in a row). */
static void lru_touch(bag_t *bag, uint32_t i)
{
	if (bag->lru_head == i)
		return;
	lru_unlink(bag, i);
	lru_push_head(bag, i);
}

static void cache_drop(bag_t *bag, uint32_t i)
{
	struct chunk *ch = &bag->chunks[i];

	lru_unlink(bag, i);
	/* keep the larger of it and the spare for the next load: no page faults anew */
	if (ch->buf_cap > bag->spare_cap) {
		bag_give_back(bag, bag->spare, bag->spare_cap);
		bag->spare = ch->buf;
		bag->spare_cap = ch->buf_cap;
	} else {
		bag_give_back(bag, ch->buf, ch->buf_cap);
	}
	ch->buf = NULL;
	ch->buf_cap = 0;
	bag->cache_bytes -= ch->size;
}

/* Evict unpinned chunks, oldest first, until need more bytes fit. */
static void cache_make_room(bag_t *bag, size_t need)
{
	uint32_t i = bag->lru_tail;

	while (i != NO_CHUNK && bag->cache_bytes + need > bag->cache_limit) {
		uint32_t prev = bag->chunks[i].lru_prev;
		/*
		 * The most recent chunk stays when only its own size is over the
		 * bound (need 0): a chunk larger than the cache is read message by
		 * message, and must not be read again for each of them.
		 */
		if (bag->chunks[i].pins == 0 && (need > 0 || i != bag->lru_head))
			cache_drop(bag, i);
		i = prev;
	}
}

void chunk_cache_clear(bag_t *bag)
{
	/* every pin has been given back by now (views are freed before their bags) */
	for (size_t i = 0; i < bag->nchunks; i++)
		assert(bag->chunks[i].pins == 0);
	while (bag->lru_head != NO_CHUNK)
		cache_drop(bag, bag->lru_head);
	free(bag->spare);
	free(bag->raw);
	bag->spare = bag->raw = NULL;
	bag->spare_cap = bag->raw_cap = 0;
}

BAG_API int bag_chunk_get(bag_t *bag, size_t i, const uint8_t **data, size_t *len)
{
	struct chunk *ch;
	uint8_t *raw = NULL, *out = NULL, *taken;
	size_t cap = 0;               /* stays 0 for an old span: its buffer is never reused */
	int rc;

	if (i >= bag->nchunks)
		return bag_fail(bag, BAG_EINVAL, UINT64_MAX, "no chunk %zu", i);
	ch = &bag->chunks[i];
	if (ch->buf != NULL) {
		bag->cache_hits++;
		lru_touch(bag, (uint32_t)i);
		goto done;
	}
	if (bag->fmt->read_span != NULL) {
		/* a span of another format's records, translated to 2.0 ones by its reader */
		if ((rc = bag->fmt->read_span(bag, i, &out)) != BAG_OK)
			goto fail;
		cache_make_room(bag, ch->size);
		goto cache;
	}
	if ((rc = chunk_load_stat(bag, i)) != BAG_OK)
		return rc;
	if (ch->compression == BAG_COMPRESSION_NONE && ch->size != ch->data_len)
		return bag_fail(bag, BAG_ECORRUPT, ch->pos,
		                "uncompressed chunk holds %u byte%s but its header says %u", ch->data_len,
		                BAG_S(ch->data_len), ch->size);
	if (ch->size > bag_codec_size_cap(ch->compression, ch->data_len))
		return bag_fail(bag, BAG_ECORRUPT, ch->pos,
		                "chunk claims %u uncompressed bytes from %u compressed: implausible",
		                ch->size, ch->data_len);
	taken = bag_take_at(bag, ch->data_pos, ch->data_len);   /* fetched ahead: no copy */
	cache_make_room(bag, ch->size);
	cap = (size_t)ch->size + 1;
	if (taken != NULL && ch->compression == BAG_COMPRESSION_NONE) {
		out = taken;
	} else if (bag->spare != NULL && bag->spare_cap >= cap && bag->spare_cap <= 2 * cap) {
		out = bag->spare;
		cap = bag->spare_cap;
		bag->spare = NULL;
		bag->spare_cap = 0;
	} else if ((out = malloc(cap)) == NULL) {
		rc = bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory for a %u-byte chunk", ch->size);
		goto fail;
	}
	if (taken != NULL) {
		rc = ch->compression == BAG_COMPRESSION_NONE ? BAG_OK : decompress(bag, ch, taken, out);
		if (out != taken)
			bag_give_back(bag, taken, (size_t)ch->data_len + 1);
	} else if (ch->compression == BAG_COMPRESSION_NONE) {
		rc = bag_read_at(bag, ch->data_pos, out, ch->data_len);
	} else {
		if (bag_grow((void **)&bag->raw, &bag->raw_cap, (size_t)ch->data_len + 1, 1) != BAG_OK) {
			rc = bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
			goto fail;
		}
		raw = bag->raw;
		rc = bag_read_at(bag, ch->data_pos, raw, ch->data_len);
		if (rc == BAG_OK)
			rc = decompress(bag, ch, raw, out);
	}
	if (rc != BAG_OK)
		goto fail;
cache:
	ch->buf = out;
	ch->buf_cap = cap;
	bag->cache_bytes += ch->size;
	bag->cache_loads++;
	lru_push_head(bag, (uint32_t)i);
done:
	ch->pins++;
	*data = ch->buf;
	*len = ch->size;
	return BAG_OK;
fail:
	free(out);
	return rc;
}

BAG_API void bag_chunk_unpin(bag_t *bag, size_t i)
{
	struct chunk *ch = &bag->chunks[i];

	assert(ch->pins > 0 && ch->buf != NULL);
	if (ch->pins == 0)
		return;
	ch->pins--;
	if (ch->pins == 0 && bag->cache_bytes > bag->cache_limit)
		cache_make_room(bag, 0);
}

BAG_API void bag_cache_stats(const bag_t *bag, struct bag_cache_stats *out)
{
	out->bytes = bag->cache_bytes;
	out->limit = bag->cache_limit;
	out->loads = bag->cache_loads;
	out->hits = bag->cache_hits;
}
