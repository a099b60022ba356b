/*
 * fuzz-header.c - the record layer: bag_record_parse() over a run of
 * records, every header's fields iterated, and the typed lookups rosbag's
 * records use.
 */
#include <bagscope/record.h>
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t at = 0;

	while (at < size) {
		struct bag_record rec;
		struct bag_field f;
		uint32_t pos = 0;
		uint8_t op;
		uint32_t u32;
		uint64_t u64;
		int64_t t;
		const uint8_t *v;
		uint32_t vlen;

		if (bag_record_parse(data + at, size - at, &rec) != BAG_OK)
			break;
		while (bag_header_next(rec.header, rec.header_len, &pos, &f) == 1)
			;
		pos = 0;
		while (bag_header_next(rec.data, rec.data_len, &pos, &f) == 1)
			;
		(void)bag_header_u8(rec.header, rec.header_len, "op", &op);
		(void)bag_header_u32(rec.header, rec.header_len, "conn", &u32);
		(void)bag_header_u64(rec.header, rec.header_len, "index_pos", &u64);
		(void)bag_header_time(rec.header, rec.header_len, "time", &t);
		(void)bag_header_find(rec.header, rec.header_len, "compression", &v, &vlen);
		at += rec.size;
	}
	return 0;
}
