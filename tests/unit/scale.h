/*
 * scale.h - the sample counts of unit tests whose cost is their count.
 *
 * The valgrind pass (tests/tools/run-valgrind.sh) sets TEST_SCALE=10, since
 * memcheck makes each check some 50 times dearer. There a test whose cost is
 * its count takes a tenth of its samples (the same code over fewer inputs),
 * a test whose point is the size itself (a big file opened from its index
 * alone) is skipped, and an input whose size only shows a slow path (the
 * .db3 of test-rosbag2, the connections of test-bag) is a hundredth. As
 * built and under ASan, every sample is taken.
 */
#ifndef BAGSCOPE_TEST_SCALE_H
#define BAGSCOPE_TEST_SCALE_H

#include <stddef.h>
#include <stdlib.h>

/* The divisor: TEST_SCALE, or 1. */
static inline size_t test_scale(void)
{
	const char *env = getenv("TEST_SCALE");
	size_t d = env != NULL ? strtoul(env, NULL, 10) : 1;

	return d > 1 ? d : 1;
}

/* n samples, or a TEST_SCALE-th of them (at least 1). */
static inline size_t test_scaled(size_t n)
{
	return n / test_scale() > 0 ? n / test_scale() : 1;
}

/* An input of size n whose size only shows a slow path, which the as-built
 * and ASan runs look for: n, or a hundredth of it when scaled (at least 1). */
static inline size_t test_sized(size_t n)
{
	return test_scale() > 1 ? (n / 100 > 0 ? n / 100 : 1) : n;
}

#endif
