/*
 * test-float.c - bag_text_double (shortest.c's digits) against Python's
 * repr() byte for byte, and against strtod: every text reads back to its
 * double, and no text one digit shorter does (those two checks, by glibc's
 * printf and strtod, as built and under ASan only: under valgrind, scale.h,
 * the point is the formatter's memory). The doubles: edge cases (zeros, the
 * 3000 smallest subnormals, 5e-324, powers of two and ten near the layout's
 * switches, float32's extremes promoted as the decoder does, inf, nan),
 * then FLOAT_RANDOM (default 300,000, a tenth under valgrind; set it higher
 * for a deeper run) from a seeded generator: raw bit patterns, floats
 * promoted from random float32 bits, numbers near the magnitudes sensors
 * write, and short decimals (k / 10^n). Python reads the doubles' bytes
 * from a file and writes one repr a line.
 *
 * The printf/strtod formatter bag_text_double used before is kept here as
 * a second reference: the count of values where it differs from Python is
 * printed (it tried only the correctly rounded 15, 16 and 17 digits).
 */
#include <float.h>
#include <math.h>
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

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double from_bits(uint64_t b)
{
	double d;
	memcpy(&d, &b, sizeof d);
	return d;
}

static uint64_t to_bits(double d)
{
	uint64_t b;
	memcpy(&b, &d, sizeof b);
	return b;
}

/* The edge cases, then n random doubles of four kinds. */
static double *make_cases(size_t n, size_t *count)
{
	static const double edges[] = {
		0.0, -0.0, 5e-324, -5e-324, 1e-323, 2.2250738585072014e-308, 2.225073858507201e-308,
		DBL_MAX, -DBL_MAX, 1e16, 9999999999999998.0, 1e22, 1e23, 1e-4, 9.999999999999999e-05,
		1e-5, 0.5, 0.1, 0.3, 1.0 / 3, 3.14159, 1e-05, 123456789012345678.0, 4.35e-321,
		FLT_MAX, FLT_MIN, FLT_TRUE_MIN, -FLT_MAX, (double)0.1f, (double)3.14159f,
		INFINITY, -INFINITY, NAN, 9007199254740993.0, 2.0e-7, 1.7976931348623157e308 / 2,
	};
	size_t ne = sizeof edges / sizeof edges[0], k = 0;
	double *v = malloc((ne + 2 * 2100 + 3000 + n) * sizeof *v);

	assert_non_null(v);
	for (size_t i = 0; i < ne; i++)
		v[k++] = edges[i];
	for (int e = -1074; e <= 1023; e++) {       /* every power of two and its lower neighbour */
		v[k++] = ldexp(1.0, e);
		v[k++] = nextafter(ldexp(1.0, e), 0);
	}
	for (uint64_t c = 1; c <= 3000; c++)        /* the smallest subnormals: one to four digits */
		v[k++] = from_bits(c);
	for (size_t i = 0; i < n; i++) {
		uint64_t r = next();
		float f;
		uint32_t fb = (uint32_t)r;
		switch (r >> 62) {
		case 0: v[k++] = from_bits(next()); break;
		case 1: memcpy(&f, &fb, sizeof f); v[k++] = (double)f; break;
		case 2: v[k++] = ldexp((double)(next() >> 11), (int)(r % 80) - 93); break;
		default: v[k++] = (double)(int64_t)(next() % 2000000001 - 1000000000) / pow(10, (double)(r % 12)); break;
		}
	}
	*count = k;
	return v;
}

/* The formatter bag_text_double used to be. */
static void old_repr(double d, char *out, size_t cap)
{
	struct bag_text t = { 0 };
	char buf[40];

	if (isnan(d) || isinf(d) || (fabs(d) < 1e16 && d == (double)(int64_t)d)) {
		bag_text_double(&t, d);
		snprintf(out, cap, "%s", t.p);
		bag_text_free(&t);
		return;
	}
	for (int prec = fabs(d) < DBL_MIN ? 1 : 15; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*e", prec - 1, d);
		if (prec == 17 || strtod(buf, NULL) == d)
			break;
	}
	/* the same layout: let the new code lay out the digits of buf's value */
	bag_text_double(&t, strtod(buf, NULL));
	snprintf(out, cap, "%s", t.p);
	bag_text_free(&t);
}

/* d's text s has ndig significant digits: no decimal of ndig - 1 digits reads back to d. */
static void check_shortest(double d, const char *s)
{
	char buf[40], other[48];
	int ndig = 0, e;
	unsigned long long m = 0;
	const char *p = s;

	if (strlen(s) >= 2 && strcmp(s + strlen(s) - 2, ".0") == 0)
		return;   /* integral: written in full */
	for (p = s; *p == '-' || *p == '0' || *p == '.'; p++)
		;
	for (; *p && *p != 'e'; p++)
		ndig += *p >= '0' && *p <= '9';
	if (ndig <= 1)
		return;
	/* the correctly rounded (ndig - 1)-digit decimal and its two neighbours */
	snprintf(buf, sizeof buf, "%.*e", ndig - 2, fabs(d));
	for (p = buf; *p != 'e'; p++)
		if (*p >= '0' && *p <= '9')
			m = m * 10 + (unsigned long long)(*p - '0');
	e = atoi(p + 1) - (ndig - 2);
	for (int delta = -1; delta <= 1; delta++) {
		snprintf(other, sizeof other, "%llue%d", m + (unsigned long long)delta, e);
		if (strtod(other, NULL) == fabs(d))
			fail_msg("%.17g: %s is not the shortest (%s reads back)", d, s, other);
	}
}

static void test_against_python(void **state)
{
	const char *env = getenv("FLOAT_RANDOM");
	size_t n = env ? strtoul(env, NULL, 10) : test_scaled(300000), count, olddiff = 0;
	double *v = make_cases(n, &count);
	char in[] = "/tmp/bagscope-float-XXXXXX", cmd[512], line[64], old[64];
	int fd = mkstemp(in);
	FILE *f = fdopen(fd, "w"), *py;
	struct bag_text t = { 0 };
	bool oracles = test_scale() == 1;   /* glibc's printf and strtod (above) */

	(void)state;
	assert_non_null(f);
	assert_int_equal(fwrite(v, sizeof *v, count, f), count);   /* host order: Python's "=d" */
	fclose(f);
	snprintf(cmd, sizeof cmd,
	         "python3 -c 'import sys,struct\n"
	         "d = sys.stdin.buffer.read()\n"
	         "sys.stdout.write(\"\\n\".join(repr(x) for (x,) in struct.iter_unpack(\"=d\", d)) + \"\\n\")' < %s",
	         in);
	py = popen(cmd, "r");
	assert_non_null(py);
	for (size_t i = 0; i < count; i++) {
		if (fgets(line, sizeof line, py) == NULL)
			fail_msg("python3 gave %zu lines of %zu", i, count);
		line[strcspn(line, "\n")] = '\0';
		t.len = 0;
		bag_text_double(&t, v[i]);
		if (strcmp(t.p, line) != 0)
			fail_msg("%016llx: bagscope %s, python %s", (unsigned long long)to_bits(v[i]), t.p, line);
		if (!oracles)
			continue;
		if (isfinite(v[i])) {
			assert_true(strtod(t.p, NULL) == v[i] && signbit(strtod(t.p, NULL)) == signbit(v[i]));
			check_shortest(v[i], t.p);
		}
		old_repr(v[i], old, sizeof old);
		olddiff += strcmp(old, line) != 0;
	}
	assert_int_equal(pclose(py), 0);
	unlink(in);
	printf("# %zu doubles equal Python's repr", count);
	if (oracles)
		printf("; the old printf formatter differed on %zu", olddiff);
	printf("\n");
	bag_text_free(&t);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_python),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
