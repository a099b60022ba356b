/*
 * record.c - records and header fields parsed in place.
 *
 * A record is <u32 header_len><header><u32 data_len><data>; a header is a run
 * of <u32 len><name>=<value> fields that exactly fills header_len. Every
 * length is compared with what remains of the buffer before it is used, with
 * 64-bit sums so that lengths near 0xFFFFFFFF cannot wrap.
 *
 * The chunk-data walker (record-int.h) is here too: a chunk's data is a run
 * of records, walked with the same parser, or with its reader's item op for
 * a format whose spans hold its own records (MCAP's, as decompressed).
 */
#include <string.h>

#include <bagscope/record.h>
#include "lib/formats/bag-int.h"
#include "lib/formats/reader-int.h"
#include "lib/formats/record-int.h"

BAG_API int bag_record_parse(const uint8_t *buf, size_t len, struct bag_record *rec)
{
	uint64_t need;

	rec->size = 0;
	if (len < 4)
		return BAG_ETRUNCATED;
	rec->header_len = bag_le32(buf);
	need = 8 + (uint64_t)rec->header_len;
	if (len < need) {
		rec->size = 0;
		return BAG_ETRUNCATED;
	}
	rec->header = buf + 4;
	rec->data_len = bag_le32(buf + 4 + rec->header_len);
	rec->data = buf + 8 + rec->header_len;
	need += rec->data_len;
	if (need > SIZE_MAX)
		return BAG_ETRUNCATED;
	rec->size = (size_t)need;
	if (len < need)
		return BAG_ETRUNCATED;
	return BAG_OK;
}

BAG_API int bag_header_next(const uint8_t *hdr, uint32_t len, uint32_t *pos,
                            struct bag_field *f)
{
	uint32_t at = *pos, flen;
	const uint8_t *eq;

	if (at >= len)
		return 0;
	if (len - at < 4)
		return BAG_ECORRUPT;
	flen = bag_le32(hdr + at);
	if (flen > len - at - 4)
		return BAG_ECORRUPT;
	eq = memchr(hdr + at + 4, '=', flen);
	if (eq == NULL)
		return BAG_ECORRUPT;
	f->name = (const char *)hdr + at + 4;
	f->name_len = (size_t)(eq - (hdr + at + 4));
	f->value = eq + 1;
	f->value_len = flen - (uint32_t)f->name_len - 1;
	*pos = at + 4 + flen;
	return 1;
}

BAG_API int bag_header_find(const uint8_t *hdr, uint32_t len, const char *name,
                            const uint8_t **value, uint32_t *value_len)
{
	size_t name_len = strlen(name);
	struct bag_field f;
	uint32_t pos = 0;
	int rc;

	while ((rc = bag_header_next(hdr, len, &pos, &f)) == 1) {
		if (f.name_len == name_len && memcmp(f.name, name, name_len) == 0) {
			*value = f.value;
			*value_len = f.value_len;
			return BAG_OK;
		}
	}
	return rc == 0 ? BAG_ENOTFOUND : rc;
}

/* Find name and require its value to be exactly width bytes. */
static int find_fixed(const uint8_t *hdr, uint32_t len, const char *name,
                      uint32_t width, const uint8_t **value)
{
	uint32_t value_len;
	int rc = bag_header_find(hdr, len, name, value, &value_len);

	if (rc == BAG_OK && value_len != width)
		rc = BAG_ECORRUPT;
	return rc;
}

BAG_API int bag_header_u8(const uint8_t *hdr, uint32_t len, const char *name, uint8_t *out)
{
	const uint8_t *v;
	int rc = find_fixed(hdr, len, name, 1, &v);

	if (rc == BAG_OK)
		*out = v[0];
	return rc;
}

BAG_API int bag_header_u32(const uint8_t *hdr, uint32_t len, const char *name, uint32_t *out)
{
	const uint8_t *v;
	int rc = find_fixed(hdr, len, name, 4, &v);

	if (rc == BAG_OK)
		*out = bag_le32(v);
	return rc;
}

BAG_API int bag_header_u64(const uint8_t *hdr, uint32_t len, const char *name, uint64_t *out)
{
	const uint8_t *v;
	int rc = find_fixed(hdr, len, name, 8, &v);

	if (rc == BAG_OK)
		*out = bag_le64(v);
	return rc;
}

BAG_API int bag_header_time(const uint8_t *hdr, uint32_t len, const char *name, int64_t *out)
{
	const uint8_t *v;
	int rc = find_fixed(hdr, len, name, 8, &v);

	if (rc == BAG_OK)
		*out = bag_time_from_ros(bag_le32(v), bag_le32(v + 4));
	return rc;
}

/*
 * A message header that starts with op, conn and time (in either order of
 * the first two: translated spans write op first, rosbag writes conn first)
 * has them as its first fields of those names: read in place.
 */
static bool item_fast(const struct bag_record *rec, struct chunk_item *it)
{
	static const uint8_t op[8] = { 4, 0, 0, 0, 'o', 'p', '=', BAG_OP_MSG_DATA };
	static const uint8_t conn[9] = { 9, 0, 0, 0, 'c', 'o', 'n', 'n', '=' };
	static const uint8_t time[9] = { 13, 0, 0, 0, 't', 'i', 'm', 'e', '=' };
	const uint8_t *h = rec->header;
	size_t c;

	if (rec->header_len < 38 || memcmp(h + 21, time, 9) != 0)
		return false;
	if (memcmp(h, op, 8) == 0 && memcmp(h + 8, conn, 9) == 0)
		c = 17;
	else if (memcmp(h, conn, 9) == 0 && memcmp(h + 13, op, 8) == 0)
		c = 9;
	else
		return false;
	it->op = BAG_OP_MSG_DATA;
	it->conn_id = bag_le32(h + c);
	it->time_ns = bag_time_from_ros(bag_le32(h + 30), bag_le32(h + 34));
	it->msg_ok = true;
	return true;
}

void bag_chunk_item(const struct bag_record *rec, struct chunk_item *it)
{
	struct bag_field f;
	uint32_t pos = 0;
	bool seen_op = false, seen_conn = false, seen_time = false, conn_ok = false, time_ok = false;

	it->rec = *rec;
	it->data = rec->data;
	it->data_len = rec->data_len;
	if (item_fast(rec, it))
		return;
	it->op = 0;
	it->conn_id = 0;
	it->time_ns = 0;
	/* one pass over the fields; the first of each name counts, as with bag_header_find() */
	while (bag_header_next(rec->header, rec->header_len, &pos, &f) == 1) {
		if (f.name_len == 2 && memcmp(f.name, "op", 2) == 0 && !seen_op) {
			seen_op = true;
			it->op = f.value_len == 1 ? f.value[0] : 0;
		} else if (f.name_len == 4 && memcmp(f.name, "conn", 4) == 0 && !seen_conn) {
			seen_conn = true;
			if ((conn_ok = f.value_len == 4))
				it->conn_id = bag_le32(f.value);
		} else if (f.name_len == 4 && memcmp(f.name, "time", 4) == 0 && !seen_time) {
			seen_time = true;
			if ((time_ok = f.value_len == 8))
				it->time_ns = bag_time_from_ros(bag_le32(f.value), bag_le32(f.value + 4));
		}
	}
	it->msg_ok = it->op == BAG_OP_MSG_DATA && conn_ok && time_ok;
}

size_t bag_chunk_record(const bag_t *bag, const uint8_t *data, size_t len, size_t at, struct chunk_item *it)
{
	struct bag_record rec;

	it->offset = (uint32_t)at;
	if (at >= len)
		return 0;
	if (bag != NULL && bag->fmt->item != NULL)
		return bag->fmt->item(bag, data + at, len - at, it);
	if (bag_record_parse(data + at, len - at, &rec) != BAG_OK)
		return 0;
	bag_chunk_item(&rec, it);
	return rec.size;
}

int bag_chunk_walk(const bag_t *bag, const uint8_t *data, size_t len, chunk_walk_fn fn, void *arg, size_t *used)
{
	size_t at = 0, n;
	int rc = BAG_OK;

	while (at < len && at <= UINT32_MAX) {
		struct chunk_item it;

		if ((n = bag_chunk_record(bag, data, len, at, &it)) == 0 || (rc = fn(arg, &it)) != BAG_OK)
			break;
		at += n;
	}
	if (used != NULL)
		*used = at;
	return rc;
}
