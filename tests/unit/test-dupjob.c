/*
 * test-dupjob.c - a background job yields (dupjob.h's hold): its progress
 * callback waits while the user's search, filter or write runs, goes on
 * when it ends, and returns at once when the job is cancelled.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <cmocka.h>

#include "tui/dupjob.h"

static void *report(void *arg)
{
	struct dupjob *j = arg;

	dupjob_progress(j, 5, 10);
	return NULL;
}

static void nap_ms(long ms)
{
	struct timespec t = { 0, ms * 1000000 };
	nanosleep(&t, NULL);
}

static void test_hold(void **state)
{
	struct dupjob j = { 0 };
	bool busy = true;
	pthread_t th;
	(void)state;
	j.hold = &busy;
	assert_int_equal(pthread_create(&th, NULL, report, &j), 0);
	/* held: after a while (well past its 20 ms naps) it has still not recorded its progress */
	nap_ms(300);
	assert_int_equal(__atomic_load_n(&j.done, __ATOMIC_RELAXED), 0);
	__atomic_store_n(&busy, false, __ATOMIC_RELAXED);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(j.done, 5);
	assert_int_equal(j.total, 10);
	/* cancelled while held: it returns at once, saying stop */
	busy = true;
	j.cancel = true;
	assert_int_not_equal(dupjob_progress(&j, 6, 10), 0);
	/* no hold: never waits */
	j.hold = NULL;
	j.cancel = false;
	assert_int_equal(dupjob_progress(&j, 7, 10), 0);
	assert_int_equal(j.done, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_hold) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
