/*
 * test-errors.c - the two rules every part of the public API follows
 * (bagscope/common.h):
 *  - one error object: each handle's accessor gives a struct bag_error whose
 *    code is what the call returned, whose offset is the byte the message
 *    names ("at byte N"), and whose message is one line naming the file;
 *    functions over shared objects fill a caller's struct bag_error; a NULL
 *    handle reads BAG_ENOMEM;
 *  - one growth rule for option structs: a smaller (older) struct is read
 *    with its missing fields zero, a larger (newer) one only if its unknown
 *    tail is zero, and anything below the size field is refused; checked for
 *    bag_open, bag_writer_open, bag_mcap_writer_open, bag_view_open,
 *    bag_scan, bag_reduce_run and bag_export.
 * Real fixtures and files this test writes; messages compared with what the
 * CLI prints for the same fixtures (tests/golden.sh).
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <bagscope/bagscope.h>

#define FIX TEST_DATA_DIR "/fixtures/"

/* The fields agree: code as returned, message names path, "at byte OFF" iff an offset. */
static void assert_error(const struct bag_error *e, int rc, const char *path)
{
	char at[64];

	assert_int_equal(e->code, rc);
	assert_true(strlen(e->message) < BAG_ERROR_MESSAGE_MAX);
	assert_null(strchr(e->message, '\n'));
	if (path != NULL) {
		assert_memory_equal(e->message, path, strlen(path));
		assert_memory_equal(e->message + strlen(path), ": ", 2);
	}
	snprintf(at, sizeof at, "at byte %" PRIu64 ": ", e->offset);
	if (e->offset != BAG_NO_OFFSET && path != NULL)
		assert_non_null(strstr(e->message, at));
	else if (path != NULL)
		assert_null(strstr(e->message, "at byte "));
}

static void test_bag_open_errors(void **state)
{
	struct bag_open_opts o = BAG_OPEN_OPTS_INIT;
	bag_t *bag = NULL;
	(void)state;

	o.no_recover = true;
	int rc = bag_open(&bag, FIX "broken/truncated_bz2.bag", &o);
	assert_int_equal(rc, BAG_ENOINDEX);
	assert_error(bag_last_error(bag), rc, FIX "broken/truncated_bz2.bag");
	assert_int_equal(bag_last_error(bag)->offset, 13);
	assert_non_null(strstr(bag_last_error(bag)->message, "index_pos 8982 lies outside the file (size 8334)"));
	bag_close(bag);

	rc = bag_open(&bag, FIX "broken/not_a_bag.bag", NULL);
	assert_int_equal(rc, BAG_ENOTBAG);
	assert_error(bag_last_error(bag), rc, FIX "broken/not_a_bag.bag");
	assert_int_equal(bag_last_error(bag)->offset, 0);
	bag_close(bag);

	rc = bag_open(&bag, FIX "broken/no-such-file.bag", NULL);
	assert_int_equal(rc, BAG_EIO);
	assert_error(bag_last_error(bag), rc, FIX "broken/no-such-file.bag");
	bag_close(bag);

	/* a good open leaves no error */
	assert_int_equal(bag_open(&bag, FIX "bags/basic_none.bag", NULL), BAG_OK);
	assert_int_equal(bag_last_error(bag)->code, BAG_OK);
	assert_string_equal(bag_last_error(bag)->message, "");
	bag_close(bag);
}

/* Every accessor on NULL (a constructor out of memory) reads BAG_ENOMEM. */
static void test_null_handles(void **state)
{
	const struct bag_error *e[] = {
		bag_last_error(NULL), bag_timeline_error(NULL), bag_view_error(NULL), bag_writer_error(NULL),
		bag_mcap_writer_error(NULL), bag_expr_error(NULL), bag_msgdef_error(NULL), bag_reduce_error(NULL),
	};
	(void)state;

	for (size_t i = 0; i < sizeof e / sizeof *e; i++) {
		assert_int_equal(e[i]->code, BAG_ENOMEM);
		assert_string_equal(e[i]->message, "out of memory");
		assert_true(e[i]->offset == BAG_NO_OFFSET);
	}
}

/* The offset of an expression error is its position in the text. */
static void test_expr_and_msgdef(void **state)
{
	const char *text = "$topic == '/a' && && x";
	bag_expr_t *e = NULL;
	bag_msgdef_t *def = NULL;
	(void)state;

	assert_int_equal(bag_expr_parse(&e, text, strlen(text)), BAG_EEXPR);
	assert_error(bag_expr_error(e), BAG_EEXPR, NULL);
	assert_int_equal(bag_expr_error(e)->offset, strstr(text, "&& x") - text);
	assert_true(strlen(bag_expr_error(e)->message) > 0);
	bag_expr_free(e);
	assert_int_equal(bag_expr_parse(&e, "$topic == '/a'", 14), BAG_OK);
	assert_int_equal(bag_expr_error(e)->code, BAG_OK);
	assert_string_equal(bag_expr_error(e)->message, "");
	bag_expr_free(e);

	assert_int_equal(bag_msgdef_parse(&def, "pkg/T", "uint32 a\nNoSuch b\n", 18), BAG_EDEFINITION);
	assert_error(bag_msgdef_error(def), BAG_EDEFINITION, NULL);
	assert_non_null(strstr(bag_msgdef_error(def)->message, "NoSuch"));
	bag_msgdef_free(def);
}

/* A function over a shared definition fills the caller's object: offset is the byte in the data. */
static void test_decode_out_param(void **state)
{
	bag_msgdef_t *def = NULL;
	uint8_t data[6] = { 1, 0, 0, 0, 2, 0 };
	struct bag_error err = BAG_ERROR_INIT;
	struct bag_text t = { 0 };
	(void)state;

	assert_int_equal(bag_msgdef_parse(&def, "pkg/T", "uint32 a\nfloat64 b\n", 19), BAG_OK);
	assert_int_equal(bag_decode(def, data, sizeof data, NULL, NULL, NULL, &err), BAG_EDECODE);
	assert_error(&err, BAG_EDECODE, NULL);
	assert_int_equal(err.offset, 4);
	assert_string_equal(err.message, "b at byte 4: needs 8 bytes for a float64, 2 remain");
	/* the printers say the same */
	struct bag_error err2;
	assert_int_equal(bag_print_json(&t, def, data, sizeof data, &err2), BAG_EDECODE);
	assert_int_equal(err2.code, err.code);
	assert_int_equal(err2.offset, err.offset);
	assert_string_equal(err2.message, err.message);
	/* success clears it; NULL is allowed */
	uint8_t ok[12] = { 0 };
	assert_int_equal(bag_decode(def, ok, sizeof ok, NULL, NULL, NULL, &err), BAG_OK);
	assert_int_equal(err.code, BAG_OK);
	assert_string_equal(err.message, "");
	assert_int_equal(bag_decode(def, data, sizeof data, NULL, NULL, NULL, NULL), BAG_EDECODE);
	bag_text_free(&t);
	bag_msgdef_free(def);
}

/* A writer into a directory that does not exist: the message names the file. */
static void test_writer_errors(void **state)
{
	const char *path = "/nonexistent-dir-of-bagscope/x.bag";
	bag_writer_t *w = NULL;
	bag_mcap_writer_t *m = NULL;
	(void)state;

	int rc = bag_writer_open(&w, path, NULL);
	assert_int_equal(rc, BAG_EIO);
	assert_error(bag_writer_error(w), rc, path);
	bag_writer_free(w);
	rc = bag_mcap_writer_open(&m, path, NULL);
	assert_int_equal(rc, BAG_EIO);
	assert_error(bag_mcap_writer_error(m), rc, path);
	bag_mcap_writer_free(m);
}

/*
 * An option struct as an older caller (size cut to just after the field at
 * keep, the rest garbage that must not be read), a newer one (zero tail:
 * accepted; non-zero tail: refused), or no size at all.
 */
enum shape { OLDER, NEWER_ZERO, NEWER_SET, NO_SIZE };

static void *shaped(const void *init, size_t size, size_t keep, enum shape s, unsigned char *buf)
{
	size_t n;

	memset(buf, 0xA5, 4096);
	memcpy(buf, init, size);
	switch (s) {
	case OLDER:
		n = keep;
		memset(buf + keep, 0xA5, size - keep);
		break;
	case NEWER_ZERO:
	case NEWER_SET:
		n = size + 64;
		memset(buf + size, 0, 64);
		if (s == NEWER_SET)
			buf[size + 63] = 1;
		break;
	default:
		n = sizeof(size_t) - 1;
		break;
	}
	memcpy(buf, &n, sizeof n);
	return buf;
}

static const int want_rc[] = { [OLDER] = BAG_OK, [NEWER_ZERO] = BAG_OK, [NEWER_SET] = BAG_EINVAL,
                               [NO_SIZE] = BAG_EINVAL };

static void test_open_opts_growth(void **state)
{
	static unsigned char buf[4096] __attribute__((aligned(16)));
	struct bag_open_opts init = BAG_OPEN_OPTS_INIT;
	(void)state;

	/* older: without msg_path/msg_path_n (garbage there must not be read) */
	for (enum shape s = OLDER; s <= NO_SIZE; s++) {
		bag_t *bag = NULL;
		const void *o = shaped(&init, sizeof init, offsetof(struct bag_open_opts, msg_path), s, buf);
		int rc = bag_open(&bag, FIX "bags/basic_none.bag", o);
		assert_int_equal(rc, want_rc[s]);
		if (rc != BAG_OK)
			assert_error(bag_last_error(bag), rc, FIX "bags/basic_none.bag");
		bag_close(bag);
	}
}

static void test_writer_opts_growth(void **state)
{
	static unsigned char buf[4096] __attribute__((aligned(16)));
	struct bag_writer_opts wi = BAG_WRITER_OPTS_INIT;
	struct bag_mcap_opts mi = BAG_MCAP_OPTS_INIT;
	char path[64];
	(void)state;

	snprintf(path, sizeof path, "/tmp/test-errors-%d.bag", (int)getpid());
	for (enum shape s = OLDER; s <= NO_SIZE; s++) {
		bag_writer_t *w = NULL;
		bag_mcap_writer_t *m = NULL;
		int rc = bag_writer_open(&w, path, shaped(&wi, sizeof wi, offsetof(struct bag_writer_opts, no_replace),
		                                          s, buf));
		assert_int_equal(rc, want_rc[s]);
		if (rc == BAG_OK)
			assert_int_equal(bag_writer_close(w), BAG_OK);
		else
			assert_error(bag_writer_error(w), rc, path);
		bag_writer_free(w);
		rc = bag_mcap_writer_open(&m, path, shaped(&mi, sizeof mi, offsetof(struct bag_mcap_opts, threads), s, buf));
		assert_int_equal(rc, want_rc[s]);
		if (rc == BAG_OK)
			assert_int_equal(bag_mcap_writer_close(m), BAG_OK);
		else
			assert_error(bag_mcap_writer_error(m), rc, path);
		bag_mcap_writer_free(m);
	}
	unlink(path);
}

static int count_emit(void *arg, const struct bag_scan_item *it)
{
	(void)it;
	++*(uint64_t *)arg;
	return 0;
}

/* Query, scan, reduce and export options over one real bag. */
static void test_view_scan_opts_growth(void **state)
{
	static unsigned char buf[4096] __attribute__((aligned(16)));
	struct bag_query qi = BAG_QUERY_INIT;
	struct bag_scan_opts si = BAG_SCAN_OPTS_INIT;
	struct bag_reduce_opts ri = BAG_REDUCE_OPTS_INIT;
	struct bag_export_opts ei = BAG_EXPORT_OPTS_INIT;
	bag_timeline_t *tl = NULL;
	bag_view_t *all = NULL;
	bag_t *bag = NULL;
	uint64_t rows;
	char out[64];
	(void)state;

	assert_int_equal(bag_open(&bag, FIX "bags/basic_none.bag", NULL), BAG_OK);
	assert_int_equal(bag_timeline_open(&tl, &bag, 1), BAG_OK);
	assert_int_equal(bag_view_open(&all, tl, NULL), BAG_OK);
	rows = bag_view_count(all);
	assert_true(rows > 0);
	snprintf(out, sizeof out, "/tmp/test-errors-%d-out.bag", (int)getpid());
	for (enum shape s = OLDER; s <= NO_SIZE; s++) {
		bag_view_t *v = NULL;
		/* older: without conn_pred/conn_arg */
		int rc = bag_view_open(&v, tl, shaped(&qi, sizeof qi, offsetof(struct bag_query, conn_pred), s, buf));
		assert_int_equal(rc, want_rc[s]);
		if (rc == BAG_OK)
			assert_int_equal(bag_view_count(v), rows);
		else
			assert_int_equal(bag_view_error(v)->code, rc);
		bag_view_free(v);

		/* older: without cache_bytes; emit set in the part it has */
		uint64_t n = 0;
		si.emit = count_emit;
		si.arg = &n;
		rc = bag_scan(all, shaped(&si, sizeof si, offsetof(struct bag_scan_opts, cache_bytes), s, buf), NULL);
		assert_int_equal(rc, want_rc[s]);
		assert_int_equal(n, rc == BAG_OK ? rows : 0);

		/* older: without progress_arg (progress NULL, so it is not needed) */
		struct bag_error err;
		rc = bag_export(all, out, shaped(&ei, sizeof ei, offsetof(struct bag_export_opts, progress_arg), s, buf),
		                NULL, &err);
		assert_int_equal(rc, want_rc[s]);
		assert_int_equal(err.code, rc);
		unlink(out);
	}
	bag_reduce_t *r = NULL;
	const char *path = "/counter.data";
	assert_int_equal(bag_reduce_open(&r, tl, &path, 1), BAG_OK);
	for (enum shape s = OLDER; s <= NO_SIZE; s++) {
		/* older: without progress/progress_arg */
		int rc = bag_reduce_run(r, shaped(&ri, sizeof ri, offsetof(struct bag_reduce_opts, progress), s, buf));
		assert_int_equal(rc, want_rc[s]);
		if (rc == BAG_OK)
			assert_int_equal(bag_reduce_count(r, 0), 7);
		else
			assert_int_equal(bag_reduce_error(r)->code, rc);
	}
	bag_reduce_free(r);
	bag_view_free(all);
	bag_timeline_free(tl);
	bag_close(bag);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bag_open_errors),
		cmocka_unit_test(test_null_handles),
		cmocka_unit_test(test_expr_and_msgdef),
		cmocka_unit_test(test_decode_out_param),
		cmocka_unit_test(test_writer_errors),
		cmocka_unit_test(test_open_opts_growth),
		cmocka_unit_test(test_writer_opts_growth),
		cmocka_unit_test(test_view_scan_opts_growth),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
