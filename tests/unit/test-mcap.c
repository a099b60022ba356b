/*
 * test-mcap.c - the MCAP reader on files npm's @mcap/core wrote
 * (tests/data/mcap, made by tests/tools/mcap-write.cjs): cut at every
 * byte, a file must open and hold exactly the messages of the records that
 * end before the cut, counted here from the file's own records (a loose
 * Message is one; a Chunk holds what the Message Index records after it
 * count); every span reads back as that many 2.0 message records. A chunk
 * whose bytes are damaged is warned about and its messages are left out.
 * The timeline's rows come from the Message Index records alone: with
 * every chunk's bytes overwritten, the rows are still right and the
 * handle's read counter (bag_read_totals) grew by no more than those
 * records' bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "scale.h"

#include <bagscope/bagscope.h>

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint8_t *slurp(const char *name, size_t *len)
{
	char path[512];
	FILE *f;
	uint8_t *buf = malloc(1 << 20);

	snprintf(path, sizeof path, "%s/mcap/%s", TEST_DATA_DIR, name);
	assert_non_null(f = fopen(path, "rb"));
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

/* Messages in the records of buf that end at or before cut. */
static uint64_t whole_before(const uint8_t *buf, size_t len, size_t cut)
{
	uint64_t n = 0;

	for (size_t off = 8; off + 9 <= len;) {
		uint8_t op = buf[off];
		size_t end = off + 9 + (size_t)le64(buf + off + 1);
		if (op == 0x0f || op == 0x02 || end > cut)
			break;
		if (op == 0x05)
			n++;
		if (op == 0x06) {
			/* the Message Index records that follow count the chunk's messages */
			for (size_t mi = end; mi + 15 <= len && buf[mi] == 0x07; mi += 9 + (size_t)le64(buf + mi + 1))
				n += (buf[mi + 11] | buf[mi + 12] << 8 | (uint32_t)buf[mi + 13] << 16 | (uint32_t)buf[mi + 14] << 24) / 16;
		}
		off = end;
	}
	return n;
}

/* Messages in every span of bag, read back as MCAP records (a chunk's records as they are). */
static uint64_t read_all(bag_t *bag)
{
	uint64_t n = 0;

	for (size_t i = 0; i < bag_chunk_count(bag); i++) {
		const uint8_t *d;
		size_t len;
		assert_int_equal(bag_chunk_get(bag, i, &d, &len), BAG_OK);
		for (size_t at = 0; at + 9 <= len;) {
			uint8_t op = d[at];
			at += 9 + (size_t)le64(d + at + 1);
			assert_true(at <= len);
			n += op == 0x05;
		}
		bag_chunk_unpin(bag, i);
	}
	return n;
}

static void cut_everywhere(const char *name)
{
	size_t len;
	uint8_t *buf = slurp(name, &len);
	char tmp[] = "/tmp/test-mcap-XXXXXX";
	int fd = mkstemp(tmp);
	uint64_t full = whole_before(buf, len, len);

	assert_true(fd >= 0);
	assert_true(full > 0);
	/* every length, or every TEST_SCALE-th under valgrind (scale.h) */
	size_t step = test_scale();

	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	for (size_t cut = len;; cut = cut > step ? cut - step : 0) {
		bag_t *bag = NULL;
		assert_int_equal(ftruncate(fd, (off_t)cut), 0);
		int rc = bag_open(&bag, tmp, NULL);
		if (cut < 8 + 9 + 8) {
			/* the magic or the header record cut: a clean failure (or not MCAP at all) */
			if (rc != BAG_OK)
				assert_true(rc < 0);
		} else {
			if (rc != BAG_OK)
				fail_msg("%s cut at %zu: %s", name, cut, bag_last_error(bag)->message);
			uint64_t want = whole_before(buf, len, cut);
			if (bag_message_count(bag) != want)
				fail_msg("%s cut at %zu: %llu messages, want %llu", name, cut,
				         (unsigned long long)bag_message_count(bag), (unsigned long long)want);
			assert_int_equal(read_all(bag), want);
			if (cut < len)
				assert_true(bag_warning_count(bag) > 0);
		}
		bag_close(bag);
		if (cut == 0)
			break;
	}
	close(fd);
	unlink(tmp);
	free(buf);
}

static void test_cut_chunked_zstd(void **state)
{
	(void)state;
	cut_everywhere("ros2-zstd-nosummary.mcap");
}

static void test_cut_loose(void **state)
{
	(void)state;
	cut_everywhere("ros2-loose-nosummary.mcap");
}

static void test_cut_with_summary(void **state)
{
	(void)state;
	cut_everywhere("ros1-lz4.mcap");
}

/* Whole, the summary file opens from its summary with every message and the md5s of its definitions. */
static void test_summary(void **state)
{
	char path[512];
	bag_t *bag;
	struct bag_chunk_info ci;
	struct bag_cache_stats cs;

	(void)state;
	snprintf(path, sizeof path, "%s/mcap/ros1-lz4.mcap", TEST_DATA_DIR);
	assert_int_equal(bag_open(&bag, path, NULL), BAG_OK);
	assert_string_equal(bag_format(bag), "mcap");
	assert_int_equal(bag_warning_count(bag), 0);
	bag_cache_stats(bag, &cs);
	assert_int_equal(cs.loads, 0);          /* no chunk read at open */
	assert_int_equal(bag_message_count(bag), 40);
	assert_int_equal(bag_conn_count(bag), 2);
	assert_string_equal(bag_conn(bag, 0)->topic, "/sample");
	assert_string_equal(bag_conn(bag, 1)->md5sum, "da5909fbe378aeaf85e547e830cc1bb7");   /* std_msgs/Int32 */
	assert_string_equal(bag_conn(bag, 0)->callerid, "/writer");
	assert_int_equal(bag_chunk_stat(bag, 0, &ci), BAG_OK);
	assert_int_equal(ci.compression, BAG_COMPRESSION_LZ4);
	bag_close(bag);
}

/*
 * A chunk whose compressed bytes are damaged: warned once, its messages
 * lost, the rest read. The second chunk: the first holds the Schema and
 * Channel records, without which no message can be placed.
 */
static void test_damaged_chunk(void **state)
{
	size_t len, first = 0, first_end = 0;
	uint8_t *buf = slurp("ros2-zstd-nosummary.mcap", &len);
	char tmp[] = "/tmp/test-mcap-XXXXXX";
	int fd = mkstemp(tmp);
	bag_t *bag;

	(void)state;
	int seen = 0;
	for (size_t off = 8; off < len; off += 9 + (size_t)le64(buf + off + 1))
		if (buf[off] == 0x06 && ++seen == 2) {
			first = off;
			first_end = off + 9 + (size_t)le64(buf + off + 1);
			break;
		}
	assert_true(first > 0);
	uint64_t lost = whole_before(buf, len, first_end) - whole_before(buf, len, first);
	buf[first_end - 20] ^= 0x55;
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	assert_int_equal(bag_open(&bag, tmp, NULL), BAG_OK);
	assert_int_equal(bag_message_count(bag), whole_before(buf, len, len) - lost);
	assert_int_equal(read_all(bag), whole_before(buf, len, len) - lost);
	bool said = false;
	for (size_t i = 0; i < bag_warning_count(bag); i++)
		said |= strstr(bag_warning(bag, i), "its messages are lost") != NULL;
	assert_true(said);
	bag_close(bag);
	close(fd);
	unlink(tmp);
	free(buf);
}

static int collect(void *arg, const struct bag_finding *f)
{
	char *all = arg;

	strncat(all, f->text, 4095 - strlen(all));
	strncat(all, "\n", 4095 - strlen(all));
	return 0;
}

/* check's findings on buf as one string, with record r (of opcode op) mutated at byte at of its content. */
static void check_mutated(const char *name, uint8_t op, int nth, size_t at, uint8_t delta, char *all)
{
	size_t len;
	uint8_t *buf = slurp(name, &len);
	char tmp[] = "/tmp/test-mcap-XXXXXX";
	int fd = mkstemp(tmp), seen = 0;
	bag_t *bag;

	all[0] = '\0';
	for (size_t off = 8; delta && off + 9 <= len; off += 9 + (size_t)le64(buf + off + 1))
		if (buf[off] == op && seen++ == nth) {
			buf[off + 9 + at] += delta;
			break;
		}
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	assert_int_equal(bag_open(&bag, tmp, NULL), BAG_OK);
	assert_int_equal(bag_check(bag, 0, collect, all, NULL), BAG_OK);
	bag_close(bag);
	close(fd);
	unlink(tmp);
	free(buf);
}

/* check: a clean file has no findings; each kind of damage is one line naming it. */
static void test_check(void **state)
{
	char all[4096];

	(void)state;
	check_mutated("ros1-lz4.mcap", 0, 0, 0, 0, all);
	assert_string_equal(all, "");
	check_mutated("ros1-lz4.mcap", 0x07, 0, 14, 1, all);     /* a message index entry's offset */
	assert_non_null(strstr(all, "at byte 56: the chunk's index data do not match its 3 messages"));
	check_mutated("ros1-lz4.mcap", 0x0b, 0, 0, 1, all);      /* the statistics' message count */
	assert_non_null(strstr(all, "statistics count 41 messages, the file holds 40"));
	assert_non_null(strstr(all, "summary CRC mismatch"));
	check_mutated("ros1-lz4.mcap", 0x08, 1, 16, 1, all);     /* a chunk index's chunk offset */
	assert_non_null(strstr(all, "which is not a chunk record"));
	check_mutated("ros1-lz4.mcap", 0x06, 0, 200, 1, all);    /* a chunk's compressed bytes */
	assert_non_null(strstr(all, "chunk CRC mismatch"));
	assert_non_null(strstr(all, "data section CRC mismatch"));
}

/* The index region bytes of every Message Index record of buf, and each chunk record's [start, end) in chunks. */
static uint64_t index_bytes(const uint8_t *buf, size_t len, size_t (*chunks)[2], size_t *nchunks)
{
	uint64_t n = 0;

	*nchunks = 0;
	for (size_t off = 8; off + 9 <= len && buf[off] != 0x0f; off += 9 + (size_t)le64(buf + off + 1)) {
		if (buf[off] == 0x07)
			n += 9 + le64(buf + off + 1);
		if (buf[off] == 0x06 && *nchunks < 64) {
			chunks[*nchunks][0] = off;
			chunks[(*nchunks)++][1] = off + 9 + (size_t)le64(buf + off + 1);
		}
	}
	return n;
}

/*
 * Opening and the first screen (the timeline, a view, its first rows) read
 * no chunk: every Chunk record's content is overwritten, yet the file opens
 * without a warning and its rows (time, topic) are those of the intact
 * file, from its Message Index records; the handle's read counter grows by
 * no more than those records' bytes. Reading a message then fails (the
 * chunk bytes are garbage indeed), and is reported.
 */
static void test_first_screen_reads_no_chunk(void **state)
{
	size_t len, chunks[64][2], nchunks;
	uint8_t *buf = slurp("ros1-lz4.mcap", &len);
	uint64_t mi = index_bytes(buf, len, chunks, &nchunks), b0, r0, b1, r1;
	char path[512], tmp[] = "/tmp/test-mcap-XXXXXX";
	int fd = mkstemp(tmp);
	bag_t *good, *bag;
	bag_timeline_t *tl_good, *tl;
	bag_view_t *v_good, *v;
	struct bag_message m, w;
	(void)state;

	assert_true(nchunks > 1 && mi > 0);
	for (size_t k = 0; k < nchunks; k++)
		memset(buf + chunks[k][0] + 9, 0xa5, chunks[k][1] - chunks[k][0] - 9);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	snprintf(path, sizeof path, "%s/mcap/ros1-lz4.mcap", TEST_DATA_DIR);
	assert_int_equal(bag_open(&good, path, NULL), BAG_OK);
	assert_int_equal(bag_open(&bag, tmp, NULL), BAG_OK);
	assert_int_equal(bag_warning_count(bag), 0);
	assert_int_equal(bag_message_count(bag), bag_message_count(good));
	bag_read_totals(bag, &b0, &r0);
	assert_int_equal(bag_timeline_open(&tl, &bag, 1), BAG_OK);
	assert_int_equal(bag_view_open(&v, tl, NULL), BAG_OK);
	assert_int_equal(bag_timeline_open(&tl_good, &good, 1), BAG_OK);
	assert_int_equal(bag_view_open(&v_good, tl_good, NULL), BAG_OK);
	assert_int_equal(bag_view_count(v), bag_view_count(v_good));
	for (uint64_t row = 0; row < bag_view_count(v); row++) {
		assert_int_equal(bag_view_entry(v, row, &m), BAG_OK);
		assert_int_equal(bag_view_entry(v_good, row, &w), BAG_OK);
		assert_int_equal(m.time_ns, w.time_ns);
		assert_string_equal(m.conn->topic, w.conn->topic);
	}
	bag_read_totals(bag, &b1, &r1);
	assert_int_equal(bag_timeline_warning_count(tl), 0);
	assert_true(b1 > b0 && b1 - b0 <= mi);
	assert_int_not_equal(bag_view_read(v, 0, &m), BAG_OK);
	assert_int_equal(bag_view_read(v_good, 0, &w), BAG_OK);
	bag_view_free(v);
	bag_view_free(v_good);
	bag_timeline_free(tl);
	bag_timeline_free(tl_good);
	bag_close(bag);
	bag_close(good);
	close(fd);
	unlink(tmp);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_cut_chunked_zstd),
		cmocka_unit_test(test_cut_loose),
		cmocka_unit_test(test_cut_with_summary),
		cmocka_unit_test(test_damaged_chunk),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_first_screen_reads_no_chunk),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
