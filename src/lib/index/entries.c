/*
 * entries.c - the index module (entries-int.h): a chunk's index entries
 * and the read of one message at (chunk, offset).
 *
 * From the index: the index-data records between a chunk and the next one
 * (bag 2.0: one per connection with messages in the chunk, 12-byte entries
 * of time and offset) are read in one piece and checked against the chunk
 * info - each record's connection is defined, its count is the chunk
 * info's for that connection, the counts sum to the chunk's, every offset
 * lies inside the chunk's data. Anything else is BAG_ECORRUPT and the
 * caller walks the chunk's data instead (bag_chunk_walk, record.c: the one
 * walker recover.c uses too, so both count alike).
 *
 * A format with its own index (struct bag_reader's read_index: MCAP's
 * Message Index records) gives the entries itself, checked the same way.
 *
 * Each entry also goes into an order-free fingerprint (entry_mix) so that a
 * view can compare, at a chunk's first read, what its index said with what
 * its data hold (chunk_entries_sum), and walk it when they differ.
 */
#include <stdlib.h>
#include <string.h>

#include <bagscope/record.h>
#include <bagscope/view.h>
#include "lib/index/entries-int.h"
#include "lib/formats/reader-int.h"
#include "lib/common/util-int.h"

#define REGION_AHEAD 1024         /* index regions prefetched at once (remote), at most */
#define REGION_FIRST 8            /* ... at a walk's start, doubling as it goes on */

/* An order-free fingerprint term for one message: where, which, when. */
static uint64_t entry_mix(uint32_t offset, uint32_t conn_id, int64_t time_ns)
{
	uint64_t x = ((uint64_t)conn_id << 32 | offset) ^ (uint64_t)time_ns * 0x9E3779B97F4A7C15ull;

	x ^= x >> 30;
	x *= 0xBF58476D1CE4E5B9ull;
	x ^= x >> 27;
	x *= 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

/* Room for n more entries. */
static int entries_room(bag_t *bag, struct chunk_entries *c, size_t n)
{
	if (bag_grow((void **)&c->e, &c->cap, c->n + n, sizeof *c->e) != BAG_OK)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory loading index entries");
	return BAG_OK;
}

/*
 * A walk over the chunks in order (a timeline, a scan) reads each index
 * region after the last: a remote source then fetches the next regions in
 * multi-range requests, REGION_FIRST at first and twice as many each time
 * the walk goes on, up to REGION_AHEAD (a walk over a time window, or the
 * browser's first screen, does not fetch the regions of the whole bag). A
 * local file has no prefetch; a read out of order prefetches nothing.
 */
static void region_ahead(bag_t *bag, size_t i)
{
	bool walking = i == bag->region_next;
	size_t batch, end, n = 0;
	struct bag_span *spans;

	bag->region_next = i + 1;
	if (bag->src->ops->prefetch == NULL || !walking || i + 1 < bag->region_ahead)
		return;
	batch = bag->region_batch = bag->region_batch == 0 || i + 1 > bag->region_ahead ? REGION_FIRST
	                            : bag->region_batch * 2 < REGION_AHEAD ? bag->region_batch * 2 : REGION_AHEAD;
	end = i + 1 + batch < bag->nchunks ? i + 1 + batch : bag->nchunks;
	if (i + 1 >= end)
		return;
	bag->region_ahead = end;
	if ((spans = malloc((end - i + 1) * sizeof *spans)) == NULL)
		return;
	for (size_t k = i; k < end; k++) {   /* i's own region too: one request, not two */
		const struct chunk *ch = &bag->chunks[k];
		uint64_t pos;
		if (chunk_load_stat(bag, k) != BAG_OK)
			continue;
		pos = ch->data_pos + ch->data_len;
		if (pos < ch->index_end)
			spans[n++] = (struct bag_span){ pos, ch->index_end - pos };
	}
	bag_prefetch(bag, spans, n);
	free(spans);
}

/* The index region after chunk i, read into c->scratch: *pos and *len. */
static int read_region(bag_t *bag, size_t i, struct chunk_entries *c, uint64_t *pos, size_t *len)
{
	const struct chunk *ch = &bag->chunks[i];
	uint64_t region;
	int rc;

	if ((rc = chunk_load_stat(bag, i)) != BAG_OK)
		return rc;
	region_ahead(bag, i);
	*pos = ch->data_pos + ch->data_len;
	/* index_end can have moved since the stat (a chunk position repaired by recovery) */
	if (*pos > ch->index_end)
		return bag_fail(bag, BAG_ECORRUPT, ch->pos, "chunk data (%u byte%s) overlaps the next chunk",
		                ch->data_len, BAG_S(ch->data_len));
	region = ch->index_end - *pos;
	if (ch->count > region / INDEX_ENTRY_BYTES)
		return bag_fail(bag, BAG_ECORRUPT, ch->pos, "chunk info counts %llu message%s, more than its "
		                "index region can hold", (unsigned long long)ch->count, BAG_S(ch->count));
	if (region > c->scratch_cap) {
		uint8_t *n = region <= SIZE_MAX ? realloc(c->scratch, (size_t)region) : NULL;
		if (n == NULL)
			return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory reading an index region of %llu "
			                "bytes", (unsigned long long)region);
		c->scratch = n;
		c->scratch_cap = (size_t)region;
	}
	*len = (size_t)region;
	return bag_read_at(bag, *pos, c->scratch, *len);
}

/* Append one index-data record's count entries at p (connection conn). */
static int add_record(bag_t *bag, size_t i, struct chunk_entries *c, const uint8_t *p, uint32_t count,
                      uint32_t conn, uint32_t conn_id, uint64_t off)
{
	const struct chunk *ch = &bag->chunks[i];
	int rc;

	if ((rc = entries_room(bag, c, count)) != BAG_OK)
		return rc;
	for (uint32_t k = 0; k < count; k++, p += INDEX_ENTRY_BYTES) {
		struct chunk_entry *e = &c->e[c->n++];
		e->time_ns = bag_time_from_ros(bag_le32(p), bag_le32(p + 4));
		e->offset = bag_le32(p + 8);
		e->conn = conn;
		if (e->offset >= ch->size)
			return bag_fail(bag, BAG_ECORRUPT, off, "index entry %u points past the end of its chunk", k);
		c->sum += entry_mix(e->offset, conn_id, e->time_ns);
	}
	return BAG_OK;
}

/* A format's own index (struct bag_reader's read_index) gives chunk i's entries to c. */
struct reader_add {
	bag_t *bag;
	size_t chunk;
	struct chunk_entries *c;
};

static int reader_entry(void *ctx, uint32_t conn, int64_t time_ns, uint32_t offset)
{
	struct reader_add *r = ctx;
	int rc;

	if (conn >= r->bag->nconns)
		return bag_fail(r->bag, BAG_ECORRUPT, r->bag->chunks[r->chunk].pos, "index names connection %u, which is "
		                "not defined", conn);
	if ((rc = entries_room(r->bag, r->c, 1)) != BAG_OK)
		return rc;
	r->c->e[r->c->n++] = (struct chunk_entry){ time_ns, offset, conn };
	r->c->sum += entry_mix(offset, r->bag->conns[conn].id, time_ns);
	return BAG_OK;
}

static int reader_entries(bag_t *bag, size_t i, struct chunk_entries *c)
{
	struct reader_add r = { bag, i, c };
	int rc = bag->fmt->read_index(bag, i, reader_entry, &r);

	if (rc == BAG_OK && c->n != bag->chunks[i].count)
		return bag_fail(bag, BAG_ECORRUPT, bag->chunks[i].pos, "chunk counts %llu message%s, its index %zu",
		                (unsigned long long)bag->chunks[i].count, BAG_S(bag->chunks[i].count), c->n);
	return rc;
}

int chunk_entries_read(bag_t *bag, size_t i, struct chunk_entries *c)
{
	const struct chunk *ch = &bag->chunks[i];
	uint64_t region_pos = 0, got = 0;
	size_t region = 0, at = 0;
	struct bag_record rec;
	int rc;

	c->n = 0;
	c->sum = 0;
	if (bag->fmt->read_index != NULL)
		return reader_entries(bag, i, c);
	if ((rc = read_region(bag, i, c, &region_pos, &region)) != BAG_OK)
		return rc;
	while (at < region) {
		uint64_t off = region_pos + at;
		uint32_t ver, conn_id, count;
		uint8_t op;
		long conn, want;

		if (bag_record_parse(c->scratch + at, region - at, &rec) != BAG_OK ||
		    bag_header_u8(rec.header, rec.header_len, "op", &op) != BAG_OK || op != BAG_OP_INDEX_DATA ||
		    bag_header_u32(rec.header, rec.header_len, "ver", &ver) != BAG_OK || ver != 1 ||
		    bag_header_u32(rec.header, rec.header_len, "conn", &conn_id) != BAG_OK ||
		    bag_header_u32(rec.header, rec.header_len, "count", &count) != BAG_OK)
			return bag_fail(bag, BAG_ECORRUPT, off, "unreadable index data record after the chunk at "
			                "byte %llu", (unsigned long long)ch->pos);
		conn = bag_conn_lookup(bag, conn_id);
		want = conn < 0 ? -1 : (long)bag_chunk_conn_messages(bag, i, (size_t)conn);
		if (want != (long)count || (uint64_t)count * INDEX_ENTRY_BYTES != rec.data_len ||
		    got + count > ch->count)
			return bag_fail(bag, BAG_ECORRUPT, off, "index data for connection %u holds %u %s in %u "
			                "bytes; the chunk info says %ld", conn_id, count,
			                count == 1 ? "entry" : "entries", rec.data_len, want);
		if ((rc = add_record(bag, i, c, rec.data, count, (uint32_t)conn, conn_id, off)) != BAG_OK)
			return rc;
		got += count;
		at += rec.size;
	}
	if (got != ch->count)
		return bag_fail(bag, BAG_ECORRUPT, ch->pos, "chunk info counts %llu message%s, its index data %llu",
		                (unsigned long long)ch->count, BAG_S(ch->count), (unsigned long long)got);
	return BAG_OK;
}

/* What a walk of a chunk's data collects. */
struct walk {
	bag_t *bag;
	struct chunk_entries *c;  /* NULL: only count and fingerprint */
	uint64_t n, sum;
};

static int walk_item(void *arg, const struct chunk_item *it)
{
	struct walk *w = arg;
	long conn;

	if (!it->msg_ok || (conn = bag_conn_lookup(w->bag, it->conn_id)) < 0)
		return BAG_OK;
	if (w->c != NULL) {
		if (bag_grow((void **)&w->c->e, &w->c->cap, w->c->n + 1, sizeof *w->c->e) != BAG_OK)
			return BAG_ENOMEM;
		w->c->e[w->c->n++] = (struct chunk_entry){ it->time_ns, it->offset, (uint32_t)conn };
	}
	w->n++;
	w->sum += entry_mix(it->offset, it->conn_id, it->time_ns);
	return BAG_OK;
}

/* Walk chunk i's data with w. */
static int walk_chunk(bag_t *bag, size_t i, struct walk *w)
{
	const uint8_t *data;
	size_t len;
	int rc;

	if ((rc = bag_chunk_get(bag, i, &data, &len)) != BAG_OK)
		return rc;
	rc = bag_chunk_walk(bag, data, len, walk_item, w, NULL);
	bag_chunk_unpin(bag, i);
	if (rc != BAG_OK)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory walking a chunk");
	return BAG_OK;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct chunk_entry *x = a, *y = b;

	if (x->conn != y->conn)
		return x->conn < y->conn ? -1 : 1;
	return (x->offset > y->offset) - (x->offset < y->offset);
}

int chunk_entries_walk(bag_t *bag, size_t i, struct chunk_entries *c)
{
	struct walk w = { bag, c, 0, 0 };
	int rc;

	c->n = 0;
	if ((rc = walk_chunk(bag, i, &w)) != BAG_OK)
		return rc;
	c->sum = w.sum;
	/* per connection in file order, as index records would give them */
	if (c->n > 1)
		bag_sort(c->e, c->n, sizeof *c->e, cmp_entry);
	return BAG_OK;
}

int chunk_entries_sum(bag_t *bag, size_t i, uint64_t *n, uint64_t *sum)
{
	struct walk w = { bag, NULL, 0, 0 };
	int rc = walk_chunk(bag, i, &w);

	*n = w.n;
	*sum = w.sum;
	return rc;
}

void chunk_entries_free(struct chunk_entries *c)
{
	free(c->e);
	free(c->scratch);
	memset(c, 0, sizeof *c);
}

BAG_API int bag_message_read(bag_t *bag, size_t chunk, uint32_t offset, uint32_t conn_id,
                             int64_t time_ns, const uint8_t **data, uint32_t *size)
{
	const uint8_t *buf;
	size_t len;
	struct chunk_item it;
	uint32_t got_conn;
	int64_t got_time;
	int rc;

	if ((rc = bag_chunk_get(bag, chunk, &buf, &len)) != BAG_OK)
		return rc;
	uint64_t where = bag->chunks[chunk].pos;
	if (bag_chunk_record(bag, buf, len, offset, &it) == 0) {
		rc = bag_fail(bag, BAG_ECORRUPT, where, "index entry points at offset %u of the chunk, "
		              "where no whole record lies", offset);
		goto fail;
	}
	if (!it.msg_ok) {
		rc = bag_fail(bag, BAG_ECORRUPT, where, "index entry points at offset %u of the chunk, "
		              "which is not a message data record", offset);
		goto fail;
	}
	got_conn = it.conn_id;
	got_time = it.time_ns;
	if (got_conn != conn_id || got_time != time_ns) {
		rc = bag_fail(bag, BAG_ECORRUPT, where, "message at offset %u of the chunk is connection %u "
		              "at %lld ns, the index says connection %u at %lld ns", offset, got_conn,
		              (long long)got_time, conn_id, (long long)time_ns);
		goto fail;
	}
	*data = it.data;
	*size = it.data_len;
	return BAG_OK;
fail:
	bag_chunk_unpin(bag, chunk);
	return rc;
}
