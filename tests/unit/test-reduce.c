/*
 * test-reduce.c - the plot reduction: bags written with the project's writer
 * (std_msgs/Float64 and a two-field type, several chunks, lz4 too), reduced
 * and compared with a brute-force reduction of the samples written: column
 * edges exactly as reduce.h's arithmetic (including spans that do not
 * divide, one nanosecond columns and ranges at the extremes of int64), a
 * one-sample spike kept at every width, counts that add up, zoomed ranges
 * answered from the pyramid agreeing with the brute force, the sample under
 * a cursor, NaN and missing values left out, and refused paths with the
 * place of the problem.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#include <cmocka.h>

#include <bagscope/bagscope.h>

#define F64_MD5 "fdb28210bfa9d7c91146260178d9a584"
#define PAIR_DEF "float64 a\nint32 b\n"
#define PAIR_MD5 "0123456789abcdef0123456789abcdef"

struct sample {
	int64_t t;
	double v;
};

struct fixture {
	char path[64];
	bag_t *bag;
	bag_timeline_t *tl;
	struct sample *s;     /* /value samples as written (NaN ones included) */
	size_t n;
};

static const struct bag_conn_spec value_conn = { "/value", "std_msgs/Float64", F64_MD5, "float64 data\n", NULL, false };
static const struct bag_conn_spec pair_conn = { "/pair", "test_msgs/Pair", PAIR_MD5, PAIR_DEF, NULL, false };

static uint64_t rng = 88172645463325252ULL;
static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* n /value samples at irregular times from t0, a spike at spike_at, some NaNs; /pair beside them. */
static void write_bag(struct fixture *f, size_t n, int64_t t0, size_t spike_at, enum bag_compression comp)
{
	struct bag_writer_opts o = BAG_WRITER_OPTS_INIT;
	bag_writer_t *w;
	int64_t t = t0;

	snprintf(f->path, sizeof f->path, "/tmp/test-reduce-%d.bag", (int)getpid());
	o.compression = comp;
	o.chunk_threshold = 4096;   /* many chunks */
	assert_int_equal(bag_writer_open(&w, f->path, &o), BAG_OK);
	f->s = calloc(n, sizeof *f->s);
	f->n = n;
	for (size_t i = 0; i < n; i++) {
		double v = sin((double)i / 50.0);
		if (i == spike_at)
			v = 1000.0;
		if (i % 97 == 13)
			v = NAN;
		f->s[i] = (struct sample){ t, v };
		assert_int_equal(bag_writer_write(w, &value_conn, t, &v, sizeof v), BAG_OK);
		if (i % 3 == 0) {
			uint8_t pair[12];
			double a = -(double)i;
			int32_t b = (int32_t)i * 2;
			memcpy(pair, &a, 8);
			memcpy(pair + 8, &b, 4);
			assert_int_equal(bag_writer_write(w, &pair_conn, t, pair, sizeof pair), BAG_OK);
		}
		/* gaps of 1 ns to ~1 ms, several samples at the same time now and then */
		if (i % 11 != 5)
			t += 1 + (int64_t)(next_rand() % 1000000);
	}
	assert_int_equal(bag_writer_close(w), BAG_OK);
	bag_writer_free(w);
	assert_int_equal(bag_open(&f->bag, f->path, NULL), BAG_OK);
	assert_int_equal(bag_timeline_open(&f->tl, &f->bag, 1), BAG_OK);
}

static void fixture_free(struct fixture *f)
{
	bag_timeline_free(f->tl);
	bag_close(f->bag);
	unlink(f->path);
	free(f->s);
}

/* The reference: column (t - t0) * W / N of every non-NaN sample in [t0, t1]. */
static void brute(const struct fixture *f, int64_t t0, int64_t t1, size_t W, struct bag_reduce_col *cols)
{
	unsigned __int128 N = (unsigned __int128)((uint64_t)t1 - (uint64_t)t0) + 1;

	for (size_t c = 0; c < W; c++) {
		cols[c].count = 0;
		cols[c].min = INFINITY;
		cols[c].max = -INFINITY;
	}
	for (size_t i = 0; i < f->n; i++) {
		if (f->s[i].t < t0 || f->s[i].t > t1 || isnan(f->s[i].v))
			continue;
		size_t c = (size_t)((unsigned __int128)((uint64_t)f->s[i].t - (uint64_t)t0) * W / N);
		cols[c].count++;
		cols[c].min = fmin(cols[c].min, f->s[i].v);
		cols[c].max = fmax(cols[c].max, f->s[i].v);
	}
}

static void compare(bag_reduce_t *r, const struct fixture *f, int64_t t0, int64_t t1, size_t W)
{
	struct bag_reduce_col *got = calloc(W, sizeof *got), *want = calloc(W, sizeof *want);
	unsigned __int128 N = (unsigned __int128)((uint64_t)t1 - (uint64_t)t0) + 1;

	assert_int_equal(bag_reduce_columns(r, 0, t0, t1, W, got), BAG_OK);
	brute(f, t0, t1, W, want);
	for (size_t c = 0; c < W; c++) {
		/* the edges: t0 + ceil(c N / W) .. t0 + ceil((c + 1) N / W) - 1 */
		int64_t s = (int64_t)((uint64_t)t0 + (uint64_t)(((unsigned __int128)c * N + W - 1) / W));
		int64_t e = (int64_t)((uint64_t)t0 + (uint64_t)(((unsigned __int128)(c + 1) * N + W - 1) / W) - 1);
		assert_int_equal(got[c].t_start_ns, s);
		assert_int_equal(got[c].t_end_ns, e);
		assert_int_equal(got[c].count, want[c].count);
		if (want[c].count == 0) {
			assert_true(isnan(got[c].min) && isnan(got[c].max));
		} else {
			assert_true(got[c].min == want[c].min);
			assert_true(got[c].max == want[c].max);
		}
	}
	free(got);
	free(want);
}

static bag_reduce_t *reduce_all(struct fixture *f, const char *path, unsigned threads)
{
	bag_reduce_t *r;
	struct bag_reduce_opts o = BAG_REDUCE_OPTS_INIT;

	o.threads = threads;
	assert_int_equal(bag_reduce_open(&r, f->tl, &path, 1), BAG_OK);
	assert_int_equal(bag_reduce_run(r, &o), BAG_OK);
	assert_true(bag_reduce_done(r));
	return r;
}

/* Every width from 1 to 300 over the whole bag, and zoomed windows. */
static void test_columns_exact(void **state)
{
	struct fixture f = { 0 };
	size_t nonnan = 0;

	(void)state;
	write_bag(&f, 5000, 1500000000LL * BAG_NSEC_PER_SEC, 2345, BAG_COMPRESSION_NONE);
	bag_reduce_t *r = reduce_all(&f, "/value.data", 2);
	for (size_t i = 0; i < f.n; i++)
		nonnan += !isnan(f.s[i].v);
	assert_int_equal(bag_reduce_count(r, 0), nonnan);
	assert_int_equal(bag_reduce_failed(r, NULL), 0);
	int64_t t0 = f.s[0].t, t1 = f.s[f.n - 1].t;
	for (size_t W = 1; W <= 300; W++)
		compare(r, &f, t0, t1, W);
	/* windows with edges on and between samples, narrower than a column of a ns */
	for (int k = 0; k < 200; k++) {
		size_t a = next_rand() % f.n, b = next_rand() % f.n;
		int64_t lo = f.s[a < b ? a : b].t + (int64_t)(next_rand() % 3) - 1;
		int64_t hi = f.s[a < b ? b : a].t + (int64_t)(next_rand() % 3) - 1;
		if (lo > hi)
			hi = lo;
		compare(r, &f, lo, hi, 1 + next_rand() % 200);
	}
	compare(r, &f, t0, t0 + 9, 10);          /* one nanosecond per column */
	compare(r, &f, t0 - 1000, t0 - 1, 4);     /* before every sample */
	compare(r, &f, INT64_MIN, INT64_MAX, 7);  /* N = 2^64 */
	compare(r, &f, INT64_MIN, t1, 1);
	bag_reduce_free(r);
	fixture_free(&f);
}

/* A one-sample spike shows in whichever column holds it, at every width. */
static void test_spike_kept(void **state)
{
	struct fixture f = { 0 };

	(void)state;
	write_bag(&f, 20000, 1600000000LL * BAG_NSEC_PER_SEC, 12345, BAG_COMPRESSION_LZ4);
	bag_reduce_t *r = reduce_all(&f, "/value.data", 0);
	int64_t t0 = f.s[0].t, t1 = f.s[f.n - 1].t, ts = f.s[12345].t;
	for (size_t W = 1; W <= 2000; W = W * 3 + 1) {
		struct bag_reduce_col *cols = calloc(W, sizeof *cols);
		uint64_t total = 0;
		size_t hit = 0;
		assert_int_equal(bag_reduce_columns(r, 0, t0, t1, W, cols), BAG_OK);
		for (size_t c = 0; c < W; c++) {
			total += cols[c].count;
			if (cols[c].count && cols[c].max == 1000.0) {
				hit++;
				assert_true(ts >= cols[c].t_start_ns && ts <= cols[c].t_end_ns);
			} else if (cols[c].count) {
				assert_true(cols[c].max <= 1.0);
			}
		}
		assert_int_equal(hit, 1);
		assert_int_equal(total, bag_reduce_count(r, 0));
		free(cols);
	}
	/* zoomed onto the spike, one column of one ns holds it alone */
	struct bag_reduce_col one;
	assert_int_equal(bag_reduce_columns(r, 0, ts, ts, 1, &one), BAG_OK);
	assert_true(one.count >= 1 && one.max == 1000.0);
	bag_reduce_free(r);
	fixture_free(&f);
}

/* Two series on one topic and one on another; the value under a cursor; missing and refused paths. */
static void test_series_and_errors(void **state)
{
	struct fixture f = { 0 };
	bag_reduce_t *r;
	const char *paths[] = { "/pair.a", "/pair.b * 2", "/value.data" };
	int64_t t;
	double v;

	(void)state;
	write_bag(&f, 3000, 1500000000LL * BAG_NSEC_PER_SEC, 10, BAG_COMPRESSION_BZ2);
	assert_int_equal(bag_reduce_open(&r, f.tl, paths, 3), BAG_OK);
	assert_int_equal(bag_reduce_series_count(r), 3);
	assert_string_equal(bag_reduce_topic(r, 0), "/pair");
	assert_string_equal(bag_reduce_topic(r, 2), "/value");
	assert_int_equal(bag_reduce_run(r, NULL), BAG_OK);
	assert_int_equal(bag_reduce_count(r, 0), 1000);
	assert_int_equal(bag_reduce_count(r, 1), 1000);
	struct bag_reduce_col c[2];
	assert_int_equal(bag_reduce_columns(r, 1, f.s[0].t, f.s[f.n - 1].t, 1, c), BAG_OK);
	assert_true(c[0].min == 0 && c[0].max == 4 * 2997);
	assert_int_equal(bag_reduce_columns(r, 0, f.s[0].t, f.s[f.n - 1].t, 1, c), BAG_OK);
	assert_true(c[0].min == -2997 && c[0].max == 0);
	/* the cursor: the last sample at or before t */
	assert_int_equal(bag_reduce_sample_at(r, 0, f.s[3].t, &t, &v), BAG_OK);
	assert_int_equal(t, f.s[3].t);
	assert_true(v == -3.0);
	assert_int_equal(bag_reduce_sample_at(r, 0, f.s[5].t - 1 > f.s[3].t ? f.s[5].t - 1 : f.s[3].t, &t, &v), BAG_OK);
	assert_true(v == -3.0);
	assert_int_equal(bag_reduce_sample_at(r, 0, f.s[0].t - 1, &t, &v), BAG_ENOTFOUND);
	assert_int_equal(bag_reduce_columns(r, 5, 0, 1, 1, c), BAG_EINVAL);
	assert_int_equal(bag_reduce_columns(r, 0, 2, 1, 1, c), BAG_EINVAL);
	/* a run over a window keeps only its samples */
	struct bag_reduce_opts o = BAG_REDUCE_OPTS_INIT;
	o.start_ns = f.s[100].t;
	o.end_ns = f.s[199].t;
	assert_int_equal(bag_reduce_run(r, &o), BAG_OK);
	size_t want = 0;
	for (size_t i = 0; i < f.n; i++)
		want += f.s[i].t >= o.start_ns && f.s[i].t <= o.end_ns && !isnan(f.s[i].v);
	assert_int_equal(bag_reduce_count(r, 2), want);
	bag_reduce_free(r);

	/* refused: the problem and where it is */
	const char *bad[][2] = {
		{ "/nope.x", "starts with no topic" },
		{ "/value", "name a field after the topic" },
		{ "/value.dat", "no field 'dat'" },
		{ "/value.data +", "" },
		{ "/pair.a[0]", "" },
	};
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
		const char *p[2] = { "/value.data", bad[k][0] };
		assert_int_equal(bag_reduce_open(&r, f.tl, p, 2), BAG_EEXPR);
		assert_int_equal(bag_reduce_errpath(r), 1);
		assert_non_null(strstr(bag_reduce_error(r)->message, bad[k][1]));
		bag_reduce_free(r);
	}
	const char *dat = "/value.dat";
	assert_int_equal(bag_reduce_open(&r, f.tl, &dat, 1), BAG_EEXPR);
	assert_int_equal(bag_reduce_error(r)->offset, strlen("/value."));
	bag_reduce_free(r);
	assert_int_equal(bag_reduce_open(&r, f.tl, NULL, 0), BAG_EINVAL);
	bag_reduce_free(r);
	fixture_free(&f);
}

/* Cancelled from the progress function: the samples so far stay, in order. */
static int stop_early(void *arg, uint64_t done, uint64_t total)
{
	(void)total;
	*(uint64_t *)arg = done;
	return done > 0;
}

static void test_cancel(void **state)
{
	struct fixture f = { 0 };
	bag_reduce_t *r;
	const char *p = "/value.data";
	struct bag_reduce_opts o = BAG_REDUCE_OPTS_INIT;
	uint64_t seen = 0;

	(void)state;
	write_bag(&f, 30000, 1500000000LL * BAG_NSEC_PER_SEC, 7, BAG_COMPRESSION_NONE);
	assert_int_equal(bag_reduce_open(&r, f.tl, &p, 1), BAG_OK);
	o.progress = stop_early;
	o.progress_arg = &seen;
	assert_int_equal(bag_reduce_run(r, &o), BAG_ECANCELED);
	assert_true(bag_reduce_done(r));
	assert_true(bag_reduce_count(r, 0) > 0 && bag_reduce_count(r, 0) < 30000);
	bag_reduce_free(r);
	fixture_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_columns_exact),
		cmocka_unit_test(test_spike_kept),
		cmocka_unit_test(test_series_and_errors),
		cmocka_unit_test(test_cancel),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
