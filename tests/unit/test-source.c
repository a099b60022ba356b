/*
 * test-source.c - the local byte source's mapped reads (src/lib/io/file.c,
 * compiled in: it is hidden in the library). For files cut at odd sizes
 * around page boundaries, a range mapped holds exactly what read_at reads
 * there, for ranges starting anywhere near a page boundary and ending
 * anywhere up to the end of the file. A file cut short after open is never
 * mapped past its new end (touching such a page would be SIGBUS): map
 * declines and read_at says the file ends there.
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

#include "lib/io/source-int.h"

static char path[] = "/tmp/bagscope-test-source-XXXXXX";

/* A file of n pseudo-random bytes at path; its bytes in a buffer. */
static uint8_t *make_file(size_t n)
{
	uint8_t *p = malloc(n ? n : 1);
	uint32_t seed = (uint32_t)n;
	FILE *f;

	assert_non_null(p);
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
	return p;
}

/* [off, off + len) mapped equals the file's bytes there and read_at's. */
static void same_bytes(struct bag_source *s, const uint8_t *want, uint64_t off, size_t len)
{
	const uint8_t *p;
	void *base;
	size_t base_len;
	uint8_t *got = malloc(len);
	struct bag_error err;

	assert_non_null(got);
	assert_int_equal(s->ops->read_at(s, off, got, len, &err), BAG_OK);
	assert_memory_equal(got, want + off, len);
	assert_int_equal(s->ops->map(s, off, len, &p, &base, &base_len), 0);
	assert_memory_equal(p, want + off, len);
	assert_true((const uint8_t *)base <= p && p + len <= (const uint8_t *)base + base_len);
	s->ops->unmap(s, base, base_len);
	free(got);
}

static void test_mapped_equals_read(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	const size_t sizes[] = { 1, 3, (size_t)page - 1, (size_t)page, (size_t)page + 1, 65537, 300001, (1 << 20) + 3 };
	(void)state;

	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		size_t n = sizes[k];
		uint8_t *want = make_file(n);
		struct bag_source *s;
		struct bag_error err;
		assert_int_equal(bag_file_open(&s, path, &err), BAG_OK);
		assert_int_equal(s->size, n);
		const uint64_t starts[] = { 0, 1, (uint64_t)page - 1, (uint64_t)page, (uint64_t)page + 7, n / 3, n - 1 };
		for (size_t i = 0; i < sizeof starts / sizeof *starts; i++) {
			uint64_t off = starts[i];
			if (off >= n)
				continue;
			same_bytes(s, want, off, 1);
			same_bytes(s, want, off, n - off);            /* to the last byte */
			if (n - off > 2)
				same_bytes(s, want, off, (n - off) / 2 + 1);
		}
		s->ops->close(s);
		free(want);
	}
}

static void test_cut_after_open(void **state)
{
	uint8_t *want = make_file(300001);
	struct bag_source *s;
	struct bag_error err;
	const uint8_t *p;
	void *base;
	size_t base_len;
	uint8_t buf[20000];
	(void)state;

	assert_int_equal(bag_file_open(&s, path, &err), BAG_OK);
	assert_int_equal(truncate(path, 100000), 0);
	assert_int_equal(s->ops->map(s, 200000, 50000, &p, &base, &base_len), -1);
	assert_int_equal(s->ops->map(s, 90000, 20000, &p, &base, &base_len), -1);   /* across the new end */
	assert_int_equal(s->ops->read_at(s, 90000, buf, sizeof buf, &err), BAG_ETRUNCATED);
	assert_int_equal(err.offset, 100000);
	same_bytes(s, want, 0, 100000);                                             /* what is left still maps */
	s->ops->close(s);
	free(want);
}

static int setup(void **state)
{
	int fd = mkstemp(path);
	(void)state;

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mapped_equals_read),
		cmocka_unit_test(test_cut_after_open),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
