/*
 * test-rosbag2.c - a lone rosbag2 .db3 (no metadata.yaml; SQLite itself
 * writes it) opens from the messages table's indexes alone: the open reads
 * a sliver of the file (the bytes the process reads, /proc/self/io's
 * rchar), where a pass over the table reads most of it; its counts are
 * estimates until bag_count_messages() makes that pass, which gives the
 * exact ones (rows without data or on an unknown topic left out, one
 * warning each) and bag_counts_set() makes them the bag's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "db3build.h"
#include "scale.h"

#include <bagscope/bagscope.h>

/* a multiple of 4; under valgrind, where the open's test, whose point is the
 * size, is skipped, a hundredth (scale.h): the same code over fewer rows */
#define ROWS ((uint64_t)test_sized(400000))

/* Bytes this process has read through read(2) and pread(2) so far. */
static uint64_t rchar(void)
{
	FILE *f = fopen("/proc/self/io", "r");
	char line[128];
	unsigned long long n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "rchar: %llu", &n) == 1)
			break;
	fclose(f);
	return n;
}

static int setup(void **state)
{
	static char path[] = "/tmp/bagscope-rosbag2-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	close(fd);
	/* three rows on /a for each on /b, then one without data and one on topic id 9, which no topic has */
	db3_write(path, (int)ROWS, 4, "INSERT INTO messages (topic_id, timestamp, data) VALUES (1, 1500000000000000000, NULL);"
	          "INSERT INTO messages (topic_id, timestamp, data) VALUES (9, 1500000000000000000, x'00');");
	*state = path;
	return 0;
}

static int teardown(void **state)
{
	unlink(*state);
	return 0;
}

static uint64_t file_size(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return (uint64_t)st.st_size;
}

/* The open reads under 2% of the file and says nothing of the rows it has not read. */
static void test_open_reads_no_table(void **state)
{
	const char *path = *state;
	bag_t *bag = NULL;
	uint64_t before = rchar(), size = file_size(path);

	if (test_scale() > 1)
		skip();   /* a fraction of a big file: of a tenth of it, the index's pages are more */

	assert_int_equal(bag_open(&bag, path, NULL), BAG_OK);
	uint64_t read = rchar() - before;
	assert_true(read < size / 50);
	assert_false(bag_counts_exact(bag));
	assert_int_equal(bag_warning_count(bag), 0);
	assert_int_equal(bag_conn_count(bag), 2);
	/* estimates: every topic counts some */
	assert_true(bag_conn(bag, 0)->message_count > 0 && bag_conn(bag, 1)->message_count > 0);
	/* the pass it left out reads most of the file: the measure sees it */
	uint64_t per[2];
	before = rchar();
	assert_int_equal(bag_count_messages(bag, per), BAG_OK);
	assert_true(rchar() - before > size / 3);
	bag_close(bag);
}

/*
 * The exact counts, once asked: the left-out rows warned about; bag_counts_set() makes them the bag's,
 * as bag_counts_make_exact() does in one call.
 */
static void test_counts_when_asked(void **state)
{
	const char *path = *state;
	bag_t *bag = NULL, *dup = NULL;
	uint64_t per[2], again[2] = { 0, 0 };

	assert_int_equal(bag_open(&bag, path, NULL), BAG_OK);
	assert_int_equal(bag_count_messages(bag, per), BAG_OK);
	assert_int_equal(per[0], ROWS / 4 * 3);
	assert_int_equal(per[1], ROWS / 4);
	assert_int_equal(bag_warning_count(bag), 2);
	assert_non_null(strstr(bag_warning(bag, 0), "1 message with no data"));
	assert_non_null(strstr(bag_warning(bag, 1), "1 message on topic ids"));
	/* a dup counts the same and keeps no warning */
	assert_int_equal(bag_dup(&dup, bag), BAG_OK);
	assert_int_equal(bag_count_messages(dup, again), BAG_OK);
	assert_memory_equal(per, again, sizeof per);
	assert_int_equal(bag_warning_count(bag), 2);
	bag_close(dup);
	assert_false(bag_counts_exact(bag));
	bag_counts_set(bag, per);
	assert_true(bag_counts_exact(bag));
	assert_int_equal(bag_message_count(bag), ROWS);
	assert_int_equal(bag_conn(bag, 0)->message_count, ROWS / 4 * 3);
	assert_int_equal(bag_conn(bag, 1)->message_count, ROWS / 4);
	/* exact now: asking again is a copy */
	memset(again, 0, sizeof again);
	assert_int_equal(bag_count_messages(bag, again), BAG_OK);
	assert_memory_equal(per, again, sizeof per);
	/* the rows the timeline reads agree */
	bag_timeline_t *tl = NULL;
	assert_int_equal(bag_timeline_open(&tl, &bag, 1), BAG_OK);
	assert_int_equal(bag_timeline_load(tl, 0), 1);
	assert_int_equal(bag_timeline_count(tl), ROWS);
	bag_timeline_free(tl);
	bag_close(bag);
	/* bag_counts_make_exact(): the same counts, made the bag's in one call; then nothing to do */
	assert_int_equal(bag_open(&bag, path, NULL), BAG_OK);
	assert_false(bag_counts_exact(bag));
	assert_int_equal(bag_counts_make_exact(bag), BAG_OK);
	assert_true(bag_counts_exact(bag));
	assert_int_equal(bag_conn(bag, 0)->message_count, ROWS / 4 * 3);
	assert_int_equal(bag_conn(bag, 1)->message_count, ROWS / 4);
	assert_int_equal(bag_warning_count(bag), 2);
	assert_int_equal(bag_counts_make_exact(bag), BAG_OK);
	assert_int_equal(bag_warning_count(bag), 2);
	bag_close(bag);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_reads_no_table),
		cmocka_unit_test(test_counts_when_asked),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
