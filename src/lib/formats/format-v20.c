/*
 * format-v20.c - the bag 2.0 reader: the version line, the bag header record
 * and the index section (connection and chunk-info records from index_pos
 * to the end of the file). Nothing in the chunk section is read here.
 *
 * Invariants after a successful open: conns is sorted by id and each
 * conn.index is its position; chunks is sorted by pos, each chunk's
 * chunk_conns name valid connection indices, each once and in ascending
 * order (recover.c keeps the same order), and sum to its count, and
 * index_end is the next chunk's pos (or index_pos for the last one).
 *
 * When the header's index_pos is unusable or the index section does not
 * parse or link up, everything read from it is dropped and recover.c
 * rebuilds the same structures by scanning (unless opts->no_recover).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/record.h>
#include "lib/formats/bag-int.h"
#include "lib/formats/reader-int.h"
#include "lib/common/util-int.h"

#define VERSION_LINE "#ROSBAG V"
#define HEADER_READ 16384
#define INDEX_READ ((size_t)1 << 20)         /* index section read-ahead */
#define INDEX_HEADER_MAX 65536               /* an index record's header fields */
#define CONN_DATA_MAX ((uint32_t)64 << 20)   /* a connection header, definition included */

/* Parse a chunk info record (op 6) at off into ch, appending its counts. */
static int parse_chunk_info(bag_t *bag, const struct bag_record *rec, uint64_t off,
                            struct chunk *ch, struct chunk_conn **cc, size_t *ncc, size_t *cap)
{
	uint32_t ver, count;
	const uint8_t *p = rec->data;

	memset(ch, 0, sizeof *ch);
	ch->lru_prev = ch->lru_next = NO_CHUNK;
	if (bag_header_u32(rec->header, rec->header_len, "ver", &ver) != BAG_OK ||
	    bag_header_u64(rec->header, rec->header_len, "chunk_pos", &ch->pos) != BAG_OK ||
	    bag_header_time(rec->header, rec->header_len, "start_time", &ch->start_ns) != BAG_OK ||
	    bag_header_time(rec->header, rec->header_len, "end_time", &ch->end_ns) != BAG_OK ||
	    bag_header_u32(rec->header, rec->header_len, "count", &count) != BAG_OK)
		return bag_fail(bag, BAG_ECORRUPT, off, "chunk info record lacks a required field");
	if (ver != 1)
		return bag_fail(bag, BAG_EUNSUPP, off, "chunk info version %u", ver);
	if ((uint64_t)count * 8 != rec->data_len)
		return bag_fail(bag, BAG_ECORRUPT, off,
		                "chunk info lists %u connection%s but holds %u byte%s", count, BAG_S(count),
		                rec->data_len, BAG_S(rec->data_len));
	if (ch->pos >= bag->index_pos)
		return bag_fail(bag, BAG_ECORRUPT, off, "chunk info points at byte %llu, past the chunk section",
		                (unsigned long long)ch->pos);
	if (bag_grow((void **)cc, cap, *ncc + count, sizeof **cc) != BAG_OK)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	ch->conn_first = (uint32_t)*ncc;
	ch->conn_n = count;
	for (uint32_t i = 0; i < count; i++, p += 8) {
		/* conn ids are resolved to indices once all connections are read */
		(*cc)[*ncc].conn = bag_le32(p);
		(*cc)[*ncc].count = bag_le32(p + 4);
		ch->count += bag_le32(p + 4);
		(*ncc)++;
	}
	return BAG_OK;
}

static int cmp_chunk_conn(const void *a, const void *b)
{
	const struct chunk_conn *x = a, *y = b;
	return (x->conn > y->conn) - (x->conn < y->conn);
}

static int cmp_chunk_pos(const void *a, const void *b)
{
	const struct chunk *x = a, *y = b;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

/* File bytes [pos, pos + len) held while the index section is read. */
struct window {
	uint8_t *buf;
	size_t cap;
	uint64_t pos;
	size_t len;
};

/*
 * Point *p at file bytes [off, off + need), reading them (and up to
 * INDEX_READ bytes after, never past the end of the file) if the window does
 * not hold them yet.
 */
static int window_get(bag_t *bag, struct window *w, uint64_t off, size_t need, const uint8_t **p)
{
	size_t want = need > INDEX_READ ? need : INDEX_READ;
	int rc;

	if (off >= w->pos && off - w->pos <= w->len && need <= w->len - (off - w->pos)) {
		*p = w->buf + (off - w->pos);
		return BAG_OK;
	}
	if (off > bag->file_size || need > bag->file_size - off)
		return bag_fail(bag, BAG_ETRUNCATED, off, "record runs past the end of the file");
	if (want > bag->file_size - off)
		want = (size_t)(bag->file_size - off);
	if (want > w->cap) {
		uint8_t *n = realloc(w->buf, want);
		if (n == NULL)
			return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory for a record of %zu byte%s", need, BAG_S(need));
		w->buf = n;
		w->cap = want;
	}
	w->len = 0;
	if ((rc = bag_read_at(bag, off, w->buf, want)) != BAG_OK)
		return rc;
	w->pos = off;
	w->len = want;
	*p = w->buf;
	return BAG_OK;
}

/* Room allocated in the handle's arrays while the index section is read. */
struct index_caps {
	size_t conns, chunks, chunk_conns;
};

/* A connection or chunk-info record of the index section (rec, at off) added to the handle. */
static int take_index_record(bag_t *bag, uint8_t op, const struct bag_record *rec, uint64_t off,
                             struct index_caps *caps)
{
	int rc;

	if (op == BAG_OP_CONNECTION) {
		if (bag_grow((void **)&bag->conns, &caps->conns, bag->nconns + 1, sizeof *bag->conns) != BAG_OK)
			return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
		rc = bag_parse_connection(bag, rec, off, &bag->conns[bag->nconns]);
		bag->nconns++;
		return rc;
	}
	if (bag_grow((void **)&bag->chunks, &caps->chunks, bag->nchunks + 1, sizeof *bag->chunks) != BAG_OK)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	rc = parse_chunk_info(bag, rec, off, &bag->chunks[bag->nchunks], &bag->chunk_conns, &bag->nchunk_conns,
	                      &caps->chunk_conns);
	if (rc == BAG_OK)
		bag->nchunks++;
	return rc;
}

/*
 * Read the index section from index_pos record by record, as rosbag does,
 * until the connection and chunk-info records the bag header counts are all
 * read (whatever follows is left unread: a bag with a huge tail costs
 * nothing). A record is read only after its header says what it is, and
 * only up to what that kind of record can need: a chunk info lists at most
 * conn_count connections, a connection header at most CONN_DATA_MAX bytes;
 * other records are skipped unread.
 */
static int read_index_section(bag_t *bag)
{
	uint64_t off = bag->index_pos;
	struct index_caps caps = { 0, 0, 0 };
	struct window w = { NULL, 0, 0, 0 };
	struct bag_record rec;
	const uint8_t *p;
	int rc = BAG_OK;

	while (off < bag->file_size &&
	       (bag->nconns < bag->hdr_conn_count || bag->nchunks < bag->hdr_chunk_count)) {
		uint32_t header_len, data_len, count = 0;
		uint64_t data_max;
		uint8_t op;

		if ((rc = window_get(bag, &w, off, 4, &p)) != BAG_OK)
			goto fail;
		header_len = bag_le32(p);
		if (header_len > INDEX_HEADER_MAX) {
			rc = bag_fail(bag, BAG_ECORRUPT, off, "record header of %u byte%s in the index section "
			              "is implausibly long", header_len, BAG_S(header_len));
			goto fail;
		}
		if ((rc = window_get(bag, &w, off, 8 + (size_t)header_len, &p)) != BAG_OK)
			goto fail;
		data_len = bag_le32(p + 4 + header_len);
		if (bag_header_u8(p + 4, header_len, "op", &op) != BAG_OK) {
			rc = bag_fail(bag, BAG_ECORRUPT, off, "record header has no op field");
			goto fail;
		}
		if (op == BAG_OP_CHUNK_INFO)
			bag_header_u32(p + 4, header_len, "count", &count);
		data_max = op == BAG_OP_CONNECTION ? CONN_DATA_MAX :
		           op == BAG_OP_CHUNK_INFO ? (uint64_t)8 * bag->hdr_conn_count : UINT32_MAX;
		if (data_len > data_max || (op == BAG_OP_CHUNK_INFO && count > bag->hdr_conn_count)) {
			rc = bag_fail(bag, BAG_ECORRUPT, off, "%s record of %u data bytes is longer than the "
			              "bag header's %u connection%s allow", op == BAG_OP_CONNECTION ? "connection" :
			              "chunk info", data_len, bag->hdr_conn_count, BAG_S(bag->hdr_conn_count));
			goto fail;
		}
		if (op != BAG_OP_CONNECTION && op != BAG_OP_CHUNK_INFO) {
			if ((rc = bag_warn(bag, off, "record with op %u in the index section skipped", op)) != BAG_OK)
				goto fail;
			off += 8 + (uint64_t)header_len + data_len;
			continue;
		}
		if ((rc = window_get(bag, &w, off, 8 + (size_t)header_len + data_len, &p)) != BAG_OK ||
		    (rc = bag_record_parse(p, 8 + (size_t)header_len + data_len, &rec)) != BAG_OK) {
			if (rc == BAG_ETRUNCATED)
				rc = bag_fail(bag, BAG_ETRUNCATED, off, "record runs past the end of the file");
			goto fail;
		}
		if ((rc = take_index_record(bag, op, &rec, off, &caps)) != BAG_OK)
			goto fail;
		off += rec.size;
	}
	if (off < bag->file_size && bag->nconns == bag->hdr_conn_count && bag->nchunks == bag->hdr_chunk_count)
		rc = bag_warn(bag, off, "%llu byte%s after the index section's last record left unread",
		              (unsigned long long)(bag->file_size - off), BAG_S((bag->file_size - off)));
fail:
	free(w.buf);
	return rc;
}

/* Sort, resolve conn ids, sum counts and times; check what links up. */
static int link_index(bag_t *bag)
{
	bag_conns_sort(bag);
	for (size_t i = 1; i < bag->nconns; i++) {
		if (bag->conns[i].id == bag->conns[i - 1].id)
			return bag_fail(bag, BAG_ECORRUPT, bag->index_pos,
			                "connection %u is defined twice in the index section", bag->conns[i].id);
	}
	if (bag->nchunks > 1)
		bag_sort(bag->chunks, bag->nchunks, sizeof *bag->chunks, cmp_chunk_pos);
	for (size_t i = 0; i < bag->nchunks; i++) {
		struct chunk *ch = &bag->chunks[i];

		ch->index_end = i + 1 < bag->nchunks ? bag->chunks[i + 1].pos : bag->index_pos;
		if (i > 0 && ch->pos == bag->chunks[i - 1].pos)
			return bag_fail(bag, BAG_ECORRUPT, bag->index_pos,
			                "two chunk infos point at byte %llu", (unsigned long long)ch->pos);
		if (ch->index_end < ch->pos)
			return bag_fail(bag, BAG_ECORRUPT, bag->index_pos, "a chunk info points at byte %llu, "
			                "past the index section", (unsigned long long)ch->pos);
		/* each message needs a 12-byte index entry between this chunk and the next */
		if (ch->count > (ch->index_end - ch->pos) / 12)
			return bag_fail(bag, BAG_ECORRUPT, bag->index_pos,
			                "chunk info for the chunk at byte %llu counts %llu message%s, more than "
			                "the %llu byte%s up to the next chunk can index", (unsigned long long)ch->pos,
			                (unsigned long long)ch->count, BAG_S(ch->count),
			                (unsigned long long)(ch->index_end - ch->pos),
			                BAG_S((ch->index_end - ch->pos)));
		struct chunk_conn *ccs = &bag->chunk_conns[ch->conn_first];
		for (uint32_t k = 0; k < ch->conn_n; k++) {
			long idx = bag_conn_lookup(bag, ccs[k].conn);
			if (idx < 0)
				return bag_fail(bag, BAG_ECORRUPT, bag->index_pos,
				                "chunk info for the chunk at byte %llu names connection %u, which is not defined",
				                (unsigned long long)ch->pos, ccs[k].conn);
			ccs[k].conn = (uint32_t)idx;
			bag->conns[idx].message_count += ccs[k].count;
		}
		/* in connection order, so that a lookup in a chunk's counts is a binary search */
		if (ch->conn_n > 1)
			bag_sort(ccs, ch->conn_n, sizeof *ccs, cmp_chunk_conn);
		for (uint32_t k = 1; k < ch->conn_n; k++)
			if (ccs[k].conn == ccs[k - 1].conn)
				return bag_fail(bag, BAG_ECORRUPT, bag->index_pos,
				                "chunk info for the chunk at byte %llu names connection %u twice",
				                (unsigned long long)ch->pos, bag->conns[ccs[k].conn].id);
		bag_count_chunk(bag, ch);
	}
	return BAG_OK;
}

/*
 * Check the version line and read the bag header record after it; *body is
 * set to the offset after the header record as soon as that is known.
 */
static int read_bag_header(bag_t *bag, uint64_t *body)
{
	uint8_t buf[HEADER_READ];
	size_t got = bag->file_size < sizeof buf ? (size_t)bag->file_size : sizeof buf;
	size_t vlen = sizeof VERSION_LINE - 1;
	struct bag_record rec;
	uint32_t conn_count, chunk_count;
	uint8_t op;
	const uint8_t *nl;
	int rc;

	if (bag->file_size == 0)
		return bag_fail(bag, BAG_ENOTBAG, UINT64_MAX, "empty file, not a bag");
	if ((rc = bag_read_at(bag, 0, buf, got)) != BAG_OK)
		return rc;
	nl = memchr(buf, '\n', got < 32 ? got : 32);
	if (got < vlen || memcmp(buf, VERSION_LINE, vlen) != 0 || nl == NULL)
		return bag_fail(bag, BAG_ENOTBAG, 0, "no '#ROSBAG V' version line (nor an older bag's): not a bag file");
	/* the version line alone, NUL-terminated: sscanf reads to a NUL */
	char line[32];
	memcpy(line, buf + vlen, (size_t)(nl - buf) - vlen);
	line[(size_t)(nl - buf) - vlen] = '\0';
	if (sscanf(line, "%d.%d", &bag->major, &bag->minor) != 2)
		return bag_fail(bag, BAG_ENOTBAG, 0, "unreadable version line");
	if (bag->major != 2 || bag->minor != 0)
		return bag_fail(bag, BAG_EVERSION, 0, "version line '#ROSBAG V%d.%d' names no format bagscope reads (it "
		                "reads " READER_FORMATS "; older bags start '#ROSRECORD' or '#ROSLOG')",
		                bag->major, bag->minor);
	size_t at = (size_t)(nl - buf) + 1;
	/* the fields must be in buf; the padding after them need not */
	rc = bag_record_parse(buf + at, got - at, &rec);
	if (rc != BAG_OK && (got - at < 8 || bag_le32(buf + at) > got - at - 8))
		return bag_fail(bag, BAG_ETRUNCATED, at, "bag header record runs past the end of the file");
	if (bag_header_u8(rec.header, rec.header_len, "op", &op) != BAG_OK || op != BAG_OP_FILE_HEADER)
		return bag_fail(bag, BAG_ECORRUPT, at, "first record is not a bag header (op 3)");
	*body = at + 8 + (uint64_t)rec.header_len + rec.data_len;
	if (*body > bag->file_size) {
		/* a recovery scan searches from the fields' end for the first chunk */
		*body = at + 8 + (uint64_t)rec.header_len;
		if ((rc = bag_warn(bag, at, "bag header's padding length (%u byte%s) runs past the end of the "
		                   "file; ignored", rec.data_len, BAG_S(rec.data_len))) != BAG_OK)
			return rc;
	}
	if (bag_header_u64(rec.header, rec.header_len, "index_pos", &bag->index_pos) != BAG_OK ||
	    bag_header_u32(rec.header, rec.header_len, "conn_count", &conn_count) != BAG_OK ||
	    bag_header_u32(rec.header, rec.header_len, "chunk_count", &chunk_count) != BAG_OK)
		return bag_fail(bag, BAG_ECORRUPT, at, "bag header lacks index_pos, conn_count or chunk_count");
	bag->hdr_conn_count = conn_count;
	bag->hdr_chunk_count = chunk_count;
	if (bag->index_pos == 0)
		return bag_fail(bag, BAG_ENOINDEX, at, "index_pos is 0: the recording was never closed (unindexed bag)");
	if (bag->index_pos < *body || bag->index_pos > bag->file_size)
		return bag_fail(bag, BAG_ENOINDEX, at, "index_pos %llu lies outside the file (size %llu): truncated bag",
		                (unsigned long long)bag->index_pos, (unsigned long long)bag->file_size);
	return BAG_OK;
}

/* A 2.0 bag, or any version line rosbag writes ("#ROSBAG V"; others are refused below). */
static bool v20_detect(const uint8_t *head, size_t len, uint64_t size)
{
	(void)size;
	return len >= sizeof VERSION_LINE - 1 && memcmp(head, VERSION_LINE, sizeof VERSION_LINE - 1) == 0;
}

/* Open from the index section, or by a recovery scan when it is unusable. */
static int v20_open(bag_t *bag, const struct bag_open_opts *o)
{
	uint64_t body = 0;
	int rc;

	snprintf(bag->format_name, sizeof bag->format_name, "2.0");
	rc = read_bag_header(bag, &body);
	if (rc == BAG_OK) {
		rc = read_index_section(bag);
		if (rc == BAG_OK)
			rc = link_index(bag);
		if (rc == BAG_OK && (bag->nchunks < bag->hdr_chunk_count || bag->nconns < bag->hdr_conn_count))
			rc = bag_fail(bag, BAG_ENOINDEX, bag->index_pos, "the index section lists %zu of the %u chunk%s "
			              "and %zu of the %u connection%s the bag header promises", bag->nchunks,
			              bag->hdr_chunk_count, BAG_S(bag->hdr_chunk_count), bag->nconns,
			              bag->hdr_conn_count, BAG_S(bag->hdr_conn_count));
		if (rc == BAG_ECORRUPT || rc == BAG_ETRUNCATED || rc == BAG_EUNSUPP)
			rc = BAG_ENOINDEX;
	}
	bag->body_pos = body;
	if (rc != BAG_ENOINDEX || o->no_recover)
		goto fail;
	bag_reset_index(bag);
	rc = bag_recover(bag, body, bag->err.message);
fail:
	return rc;
}


const struct bag_reader bag_reader_v20 = {
	.name = "2.0",
	.detect = v20_detect,
	.open = v20_open,
};
