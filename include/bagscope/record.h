/*
 * bagscope/record.h - the bag format's lowest layer: records
 * (<header_len><header><data_len><data>) and header fields
 * (<len><name>=<value>), parsed from memory with every length checked.
 *
 * Nothing here allocates or does I/O; results point into the caller's buffer
 * and live as long as it does.
 */
#ifndef BAGSCOPE_RECORD_H
#define BAGSCOPE_RECORD_H

#include <bagscope/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Record op codes (the header's "op" field). */
enum bag_op {
	BAG_OP_MSG_DEF = 0x01,    /* 1.2 only */
	BAG_OP_MSG_DATA = 0x02,
	BAG_OP_FILE_HEADER = 0x03,
	BAG_OP_INDEX_DATA = 0x04,
	BAG_OP_CHUNK = 0x05,
	BAG_OP_CHUNK_INFO = 0x06,
	BAG_OP_CONNECTION = 0x07,
};

/* One record, pointing into the buffer it was parsed from. */
struct bag_record {
	const uint8_t *header; /* header bytes (fields) */
	uint32_t header_len;   /* their length */
	const uint8_t *data;   /* data bytes */
	uint32_t data_len;     /* their length */
	size_t size;           /* whole record: 8 + header_len + data_len */
};

/* One header field, pointing into the header it was parsed from. */
struct bag_field {
	const char *name;      /* not NUL-terminated */
	size_t name_len;
	const uint8_t *value;  /* any bytes, not NUL-terminated */
	uint32_t value_len;
};

/*
 * Parse the record at buf[0..len).
 * Returns 0 and fills *rec; BAG_ETRUNCATED when buf ends before the record
 * does (rec->size then holds the bytes needed if the lengths were readable,
 * else 0).
 */
BAG_API int bag_record_parse(const uint8_t *buf, size_t len, struct bag_record *rec);

/*
 * Iterate a header's fields: start with *pos = 0. Returns 1 and fills *f
 * with the field at *pos, advancing *pos; 0 at the end; BAG_ECORRUPT when a
 * field's length overruns the header or it lacks '=' (then *pos is the
 * offset of the bad field within the header).
 */
BAG_API int bag_header_next(const uint8_t *hdr, uint32_t len, uint32_t *pos,
                            struct bag_field *f);

/*
 * Find the first field called name. Returns 0 and sets *value and *value_len,
 * BAG_ENOTFOUND if absent, BAG_ECORRUPT if the header is malformed before
 * it is found.
 */
BAG_API int bag_header_find(const uint8_t *hdr, uint32_t len, const char *name,
                            const uint8_t **value, uint32_t *value_len);

/*
 * Typed lookups: the field must exist and be exactly 1, 4 or 8 bytes
 * (little-endian). Return 0, BAG_ENOTFOUND or BAG_ECORRUPT (wrong width).
 */
BAG_API int bag_header_u8(const uint8_t *hdr, uint32_t len, const char *name, uint8_t *out);
BAG_API int bag_header_u32(const uint8_t *hdr, uint32_t len, const char *name, uint32_t *out);
BAG_API int bag_header_u64(const uint8_t *hdr, uint32_t len, const char *name, uint64_t *out);

/* A time field (uint32 secs, uint32 nsecs) as nanoseconds. Same returns. */
BAG_API int bag_header_time(const uint8_t *hdr, uint32_t len, const char *name, int64_t *out);

/* Little-endian loads from unaligned memory. */
static inline uint32_t bag_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t bag_le64(const uint8_t *p)
{
	return (uint64_t)bag_le32(p) | (uint64_t)bag_le32(p + 4) << 32;
}

#ifdef __cplusplus
}
#endif

#endif
