/*
 * test-large.c - a bag whose chunk lies past 4 GiB: a sparse file with a
 * 5 GiB hole before its only chunk, so every offset needs 64 bits. Also
 * shows that opening reads nothing of the chunk section but the chunk asked
 * for, and that a valid bag followed by a 5 GiB sparse tail opens at once
 * without reading the tail.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <bagscope/bagscope.h>

#define CHUNK_POS ((uint64_t)5 << 30)

struct buf {
	uint8_t data[8192];
	size_t len;
};

static void put(struct buf *b, const void *p, size_t n)
{
	assert_true(b->len + n <= sizeof b->data);
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void put32(struct buf *b, uint32_t v)
{
	uint8_t le[4] = { v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >> 24 };
	put(b, le, 4);
}

static void put64(struct buf *b, uint64_t v)
{
	put32(b, (uint32_t)v);
	put32(b, (uint32_t)(v >> 32));
}

static void field(struct buf *b, const char *name, const void *value, size_t len)
{
	put32(b, (uint32_t)(strlen(name) + 1 + len));
	put(b, name, strlen(name));
	put(b, "=", 1);
	put(b, value, len);
}

static void field32(struct buf *b, const char *name, uint32_t v)
{
	struct buf t = { .len = 0 };
	put32(&t, v);
	field(b, name, t.data, 4);
}

static void field64(struct buf *b, const char *name, uint64_t v)
{
	struct buf t = { .len = 0 };
	put64(&t, v);
	field(b, name, t.data, 8);
}

/* A record from a header buffer and data bytes. */
static void record(struct buf *out, const struct buf *hdr, const void *data, size_t len)
{
	put32(out, (uint32_t)hdr->len);
	put(out, hdr->data, hdr->len);
	put32(out, (uint32_t)len);
	put(out, data, len);
}

static void conn_record(struct buf *out)
{
	struct buf h = { .len = 0 }, d = { .len = 0 };
	uint8_t op = 7;

	field(&h, "op", &op, 1);
	field32(&h, "conn", 0);
	field(&h, "topic", "/far", 4);
	field(&d, "topic", "/far", 4);
	field(&d, "type", "std_msgs/UInt32", 15);
	field(&d, "md5sum", "304a39449588c7f8ce2df6e8001c5fce", 32);
	field(&d, "message_definition", "uint32 data\n", 12);
	record(out, &h, d.data, d.len);
}

static void msg_record(struct buf *out, uint32_t secs, uint32_t value)
{
	struct buf h = { .len = 0 };
	uint8_t op = 2;
	uint8_t v[4] = { value & 0xff, (value >> 8) & 0xff, (value >> 16) & 0xff, value >> 24 };

	field(&h, "op", &op, 1);
	field32(&h, "conn", 0);
	field64(&h, "time", secs);
	record(out, &h, v, 4);
}

static char path[64];

static int make_sparse_bag(void **state)
{
	struct buf head = { .len = 0 }, chunk = { .len = 0 }, body = { .len = 0 }, tail = { .len = 0 };
	struct buf h = { .len = 0 }, idx = { .len = 0 };
	uint8_t op;
	uint32_t off[2];
	int fd;

	snprintf(path, sizeof path, "/tmp/bagscope-large-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	/* the chunk's data: a connection and two messages */
	conn_record(&body);
	off[0] = (uint32_t)body.len;
	msg_record(&body, 10, 7);
	off[1] = (uint32_t)body.len;
	msg_record(&body, 11, 8);
	op = 5;
	field(&h, "op", &op, 1);
	field(&h, "compression", "none", 4);
	field32(&h, "size", (uint32_t)body.len);
	record(&chunk, &h, body.data, body.len);
	/* its index data */
	h.len = 0;
	op = 4;
	field(&h, "op", &op, 1);
	field32(&h, "ver", 1);
	field32(&h, "conn", 0);
	field32(&h, "count", 2);
	for (int i = 0; i < 2; i++) {
		put64(&idx, (uint64_t)(10 + i));
		put32(&idx, off[i]);
	}
	record(&chunk, &h, idx.data, idx.len);
	uint64_t index_pos = CHUNK_POS + chunk.len;
	/* the index section: connection, chunk info */
	conn_record(&tail);
	h.len = 0;
	idx.len = 0;
	op = 6;
	field(&h, "op", &op, 1);
	field32(&h, "ver", 1);
	field64(&h, "chunk_pos", CHUNK_POS);
	field64(&h, "start_time", 10);
	field64(&h, "end_time", 11);
	field32(&h, "count", 1);
	put32(&idx, 0);
	put32(&idx, 2);
	record(&tail, &h, idx.data, idx.len);
	/* version line and bag header */
	put(&head, "#ROSBAG V2.0\n", 13);
	h.len = 0;
	op = 3;
	field(&h, "op", &op, 1);
	field64(&h, "index_pos", index_pos);
	field32(&h, "conn_count", 1);
	field32(&h, "chunk_count", 1);
	uint8_t pad[4096];
	memset(pad, ' ', sizeof pad);
	record(&head, &h, pad, 4096 - 8 - h.len);
	assert_true(pwrite(fd, head.data, head.len, 0) == (ssize_t)head.len);
	assert_true(pwrite(fd, chunk.data, chunk.len, (off_t)CHUNK_POS) == (ssize_t)chunk.len);
	assert_true(pwrite(fd, tail.data, tail.len, (off_t)index_pos) == (ssize_t)tail.len);
	close(fd);
	return 0;
}

static int remove_bag(void **state)
{
	unlink(path);
	return 0;
}

static void test_chunk_past_4gib(void **state)
{
	bag_t *bag;
	bag_timeline_t *tl;
	bag_view_t *view;
	struct bag_message m;
	struct bag_chunk_info ci;

	if (bag_open(&bag, path, NULL) != BAG_OK)
		fail_msg("%s", bag_last_error(bag)->message);
	assert_true(bag_file_size(bag) > CHUNK_POS);
	assert_int_equal(bag_message_count(bag), 2);
	assert_int_equal(bag_chunk_stat(bag, 0, &ci), BAG_OK);
	assert_int_equal(ci.pos, CHUNK_POS);
	assert_int_equal(bag_timeline_open(&tl, &bag, 1), BAG_OK);
	assert_int_equal(bag_view_open(&view, tl, NULL), BAG_OK);
	assert_int_equal(bag_view_count(view), 2);
	for (uint64_t i = 0; i < 2; i++) {
		if (bag_view_read(view, i, &m) != BAG_OK)
			fail_msg("%s", bag_view_error(view)->message);
		assert_int_equal(m.time_ns, (int64_t)(10 + i) * BAG_NSEC_PER_SEC);
		assert_int_equal(m.size, 4);
		assert_int_equal(m.data[0], 7 + i);
		assert_string_equal(m.conn->topic, "/far");
	}
	bag_view_free(view);
	bag_timeline_free(tl);
	bag_close(bag);
}

/* Peak resident memory of this process so far, in MiB. */
static long peak_mib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024;
}

/*
 * A valid bag (a fixture made by rosbag) followed by 5 GiB of sparse zeros:
 * the index section is read record by record up to the counts the bag
 * header gives, so the tail is neither allocated nor read, and the bag
 * opens from its index (no recovery) with a warning naming the tail.
 */
static void test_sparse_tail(void **state)
{
	const uint64_t tail = (uint64_t)5 << 30;
	FILE *in = fopen(TEST_DATA_DIR "/fixtures/bags/nested_bz2.bag", "rb");
	uint8_t buf[65536];
	struct bag_recovery r;
	struct timespec t0, t1;
	long rss0 = peak_mib();
	size_t n, size = 0;
	bag_t *bag;
	char want[128];
	int fd;

	assert_non_null(in);
	snprintf(path, sizeof path, "/tmp/bagscope-tail-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
		assert_true(write(fd, buf, n) == (ssize_t)n);
		size += n;
	}
	fclose(in);
	assert_int_equal(ftruncate(fd, (off_t)(size + tail)), 0);
	close(fd);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (bag_open(&bag, path, NULL) != BAG_OK)
		fail_msg("%s", bag_last_error(bag)->message);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	bag_recovery_report(bag, &r);
	assert_false(r.recovered);
	assert_int_equal(bag_message_count(bag), 15);
	assert_int_equal(bag_file_size(bag), size + tail);
	assert_int_equal(bag_warning_count(bag), 1);
	snprintf(want, sizeof want, "at byte %zu: %llu bytes after the index section's last record left unread",
	         size, (unsigned long long)tail);
	if (strstr(bag_warning(bag, 0), want) == NULL)
		fail_msg("warning '%s' lacks '%s'", bag_warning(bag, 0), want);
	bag_close(bag);
	/* bounds far above what the open needs (a few KiB, a millisecond) */
	if (peak_mib() - rss0 > 256)
		fail_msg("peak memory grew by %ld MiB", peak_mib() - rss0);
	if ((t1.tv_sec - t0.tv_sec) > 10)
		fail_msg("open took %ld s", (long)(t1.tv_sec - t0.tv_sec));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_chunk_past_4gib, make_sparse_bag, remove_bag),
		cmocka_unit_test_teardown(test_sparse_tail, remove_bag),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
