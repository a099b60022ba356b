/*
 * test-record.c - record and header-field parsing, with adversarial lengths:
 * every length must be checked against what remains before it is used.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <bagscope/record.h>

/* Append a field <len><name>=<value> to buf at *at. */
static void put_field(uint8_t *buf, size_t *at, const char *name, const void *value, uint32_t vlen)
{
	uint32_t len = (uint32_t)strlen(name) + 1 + vlen;

	memcpy(buf + *at, &len, 4);
	memcpy(buf + *at + 4, name, strlen(name));
	buf[*at + 4 + strlen(name)] = '=';
	memcpy(buf + *at + 5 + strlen(name), value, vlen);
	*at += 4 + len;
}

static void test_fields_roundtrip(void **state)
{
	uint8_t hdr[128];
	size_t n = 0;
	uint8_t op = 2;
	uint32_t conn = 7;
	uint8_t time[8] = { 1, 0, 0, 0, 2, 0, 0, 0 };
	const uint8_t *v;
	uint32_t vlen, u32;
	int64_t t;
	uint8_t u8;

	put_field(hdr, &n, "op", &op, 1);
	put_field(hdr, &n, "conn", &conn, 4);
	put_field(hdr, &n, "time", time, 8);
	put_field(hdr, &n, "topic", "/a=b", 4);
	assert_int_equal(bag_header_u8(hdr, (uint32_t)n, "op", &u8), BAG_OK);
	assert_int_equal(u8, 2);
	assert_int_equal(bag_header_u32(hdr, (uint32_t)n, "conn", &u32), BAG_OK);
	assert_int_equal(u32, 7);
	assert_int_equal(bag_header_time(hdr, (uint32_t)n, "time", &t), BAG_OK);
	assert_int_equal(t, 1000000002LL);
	/* the name ends at the first '=', the value may hold more */
	assert_int_equal(bag_header_find(hdr, (uint32_t)n, "topic", &v, &vlen), BAG_OK);
	assert_int_equal(vlen, 4);
	assert_memory_equal(v, "/a=b", 4);
	assert_int_equal(bag_header_find(hdr, (uint32_t)n, "missing", &v, &vlen), BAG_ENOTFOUND);
	/* a field of the wrong width is corrupt, not silently truncated */
	assert_int_equal(bag_header_u32(hdr, (uint32_t)n, "op", &u32), BAG_ECORRUPT);
	assert_int_equal(bag_header_u8(hdr, (uint32_t)n, "conn", &u8), BAG_ECORRUPT);
}

static void test_field_overruns_header(void **state)
{
	uint8_t hdr[32];
	size_t n = 0;
	uint8_t op = 2;
	uint32_t pos = 0, huge = 0xFFFFFFFFu;
	struct bag_field f;

	put_field(hdr, &n, "op", &op, 1);
	memcpy(hdr + n, &huge, 4);           /* a field claiming 4 GiB */
	memcpy(hdr + n + 4, "x=1", 3);
	n += 7;
	assert_int_equal(bag_header_next(hdr, (uint32_t)n, &pos, &f), 1);
	assert_int_equal(bag_header_next(hdr, (uint32_t)n, &pos, &f), BAG_ECORRUPT);
	assert_int_equal(pos, 8);             /* names the bad field's offset */
	/* lookups past the bad field fail cleanly too */
	const uint8_t *v;
	uint32_t vlen;
	assert_int_equal(bag_header_find(hdr, (uint32_t)n, "x", &v, &vlen), BAG_ECORRUPT);
}

static void test_field_without_equals(void **state)
{
	uint8_t hdr[16] = { 3, 0, 0, 0, 'a', 'b', 'c' };
	uint32_t pos = 0;
	struct bag_field f;

	assert_int_equal(bag_header_next(hdr, 7, &pos, &f), BAG_ECORRUPT);
}

static void test_field_length_short(void **state)
{
	uint8_t hdr[3] = { 1, 0, 0 };
	uint32_t pos = 0;
	struct bag_field f;

	assert_int_equal(bag_header_next(hdr, 3, &pos, &f), BAG_ECORRUPT);
	pos = 0;
	assert_int_equal(bag_header_next(hdr, 0, &pos, &f), 0);
}

static void test_record_lengths(void **state)
{
	uint8_t buf[64] = { 0 };
	struct bag_record rec;
	uint32_t hl = 4, dl = 3, huge = 0xFFFFFFFFu;

	memcpy(buf, &hl, 4);
	memcpy(buf + 8, &dl, 4);
	assert_int_equal(bag_record_parse(buf, 15, &rec), BAG_OK);
	assert_int_equal(rec.size, 15);
	assert_int_equal(rec.header_len, 4);
	assert_int_equal(rec.data_len, 3);
	assert_ptr_equal(rec.data, buf + 12);
	assert_int_equal(bag_record_parse(buf, 14, &rec), BAG_ETRUNCATED);
	assert_int_equal(rec.size, 15);       /* tells how much is needed */
	assert_int_equal(bag_record_parse(buf, 3, &rec), BAG_ETRUNCATED);
	/* 0xFFFFFFFF lengths: no wrap-around, no over-read */
	memcpy(buf, &huge, 4);
	assert_int_equal(bag_record_parse(buf, sizeof buf, &rec), BAG_ETRUNCATED);
	memcpy(buf, &hl, 4);
	memcpy(buf + 8, &huge, 4);
	assert_int_equal(bag_record_parse(buf, sizeof buf, &rec), BAG_ETRUNCATED);
	assert_true(rec.size > sizeof buf);
}

static void test_strerror(void **state)
{
	assert_string_equal(bag_strerror(BAG_OK), "success");
	assert_string_equal(bag_strerror(BAG_ETRUNCATED), "truncated bag");
	assert_string_equal(bag_strerror(12345), "unknown error");
	enum bag_compression c;
	assert_int_equal(bag_compression_parse("lz4", 3, &c), BAG_OK);
	assert_int_equal(c, BAG_COMPRESSION_LZ4);
	assert_int_equal(bag_compression_parse("lz", 2, &c), BAG_EUNSUPP);
	assert_string_equal(bag_compression_name(BAG_COMPRESSION_BZ2), "bz2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields_roundtrip),
		cmocka_unit_test(test_field_overruns_header),
		cmocka_unit_test(test_field_without_equals),
		cmocka_unit_test(test_field_length_short),
		cmocka_unit_test(test_record_lengths),
		cmocka_unit_test(test_strerror),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
