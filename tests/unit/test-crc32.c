/*
 * test-crc32.c - the library's CRC-32 (src/lib/common/crc32.c, compiled in:
 * it is hidden in the library) against zlib's crc32(), which we did not
 * write: every length up to 1100 bytes at every alignment of 16, sums
 * continued across calls cut anywhere, and a 3 MiB buffer. On a CPU with
 * PCLMULQDQ this checks the folding path against zlib (with VPCLMULQDQ and
 * AVX-512, the 512-bit folding; with BAGSCOPE_CRC_NARROW set, the 128-bit
 * one); with BAGSCOPE_CRC_TABLE set, the tables alone (the test runs itself
 * again each way).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <zlib.h>

#include "lib/common/util-int.h"

static uint8_t *noise(size_t n, uint32_t seed)
{
	uint8_t *p = malloc(n);

	assert_non_null(p);
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
	return p;
}

static void test_every_length(void **state)
{
	uint8_t *p = noise(1100 + 16, 7);
	(void)state;

	for (size_t align = 0; align < 16; align++)
		for (size_t n = 0; n <= 1100; n++)
			assert_int_equal(bag_crc32(0, p + align, n), (uint32_t)crc32(0, p + align, (uInt)n));
	free(p);
}

static void test_continued(void **state)
{
	uint8_t *p = noise(4096, 11);
	uint32_t want = (uint32_t)crc32(0, p, 4096);
	(void)state;

	for (size_t cut = 0; cut <= 4096; cut += 37) {
		uint32_t c = bag_crc32(bag_crc32(0, p, cut), p + cut, 4096 - cut);
		assert_int_equal(c, want);
		/* zlib's running sum continues ours and the other way round */
		assert_int_equal((uint32_t)crc32(bag_crc32(0, p, cut), p + cut, (uInt)(4096 - cut)), want);
	}
	free(p);
}

static void test_large(void **state)
{
	size_t n = (size_t)3 << 20;
	uint8_t *p = noise(n + 3, 5);
	(void)state;

	assert_int_equal(bag_crc32(0, p + 3, n), (uint32_t)crc32(0, p + 3, (uInt)n));
	memset(p, 0, n);
	assert_int_equal(bag_crc32(0, p, n), (uint32_t)crc32(0, p, (uInt)n));
	memset(p, 0xff, n);
	assert_int_equal(bag_crc32(0xdeadbeef, p, n), (uint32_t)crc32(0xdeadbeef, p, (uInt)n));
	free(p);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_length),
		cmocka_unit_test(test_continued),
		cmocka_unit_test(test_large),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	(void)argc;

	/* the path is chosen once a process: again with 128-bit folding alone, then by the tables alone */
	if (rc == 0 && getenv("BAGSCOPE_CRC_NARROW") == NULL) {
		setenv("BAGSCOPE_CRC_NARROW", "1", 1);
		execv("/proc/self/exe", argv);
		return 1;
	}
	if (rc == 0 && getenv("BAGSCOPE_CRC_TABLE") == NULL) {
		setenv("BAGSCOPE_CRC_TABLE", "1", 1);
		execv("/proc/self/exe", argv);
		return 1;
	}
	return rc;
}
