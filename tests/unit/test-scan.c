/*
 * test-scan.c - the scan engine: the same messages in the same order as a
 * plain walk of the view (bag_view_read), with 1 and several threads, over
 * fixture bags of every compression and over two bags merged; work output
 * reaching emit in order; stopping from emit and from progress; a bag_dup
 * handle; index groups given back; a chunk that cannot be read reported
 * once; a filter settled from the index without reading a chunk.
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

#define FIX TEST_DATA_DIR "/fixtures/"

struct seen {
	uint64_t n, cap;
	struct bag_message *msgs;
	uint8_t **data;
	char **text;
	int stop_after;           /* emit returns 1 after this many (0: never) */
	uint64_t errors;
	char first_error[512];
};

static void seen_free(struct seen *s)
{
	for (uint64_t i = 0; i < s->n; i++) {
		free(s->data[i]);
		free(s->text[i]);
	}
	free(s->msgs);
	free(s->data);
	free(s->text);
	memset(s, 0, sizeof *s);
}

static int work_row(void *arg, const struct bag_message *m, const bag_msgdef_t *def, struct bag_text *out)
{
	(void)arg;
	(void)def;
	bag_text_printf(out, "row %llu size %u", (unsigned long long)m->row, m->size);
	return 0;
}

static int emit_keep(void *arg, const struct bag_scan_item *it)
{
	struct seen *s = arg;

	if (it->rc != BAG_OK) {
		if (s->errors++ == 0)
			snprintf(s->first_error, sizeof s->first_error, "%.*s", (int)it->len, it->text);
		return 0;
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->msgs = realloc(s->msgs, s->cap * sizeof *s->msgs);
		s->data = realloc(s->data, s->cap * sizeof *s->data);
		s->text = realloc(s->text, s->cap * sizeof *s->text);
		assert_non_null(s->msgs);
	}
	s->msgs[s->n] = *it->m;
	s->data[s->n] = NULL;
	if (it->m->data != NULL) {
		s->data[s->n] = malloc(it->m->size + 1);
		memcpy(s->data[s->n], it->m->data, it->m->size);
	}
	s->text[s->n] = strndup(it->text, it->len);
	s->n++;
	return s->stop_after && s->n >= (uint64_t)s->stop_after;
}

/* Scan the whole of tl with threads workers and compare with a plain walk. */
static void check_same_as_walk(bag_timeline_t *tl, unsigned threads)
{
	bag_view_t *v, *w;
	struct seen s = { 0 };
	struct bag_scan_stats st;
	struct bag_scan_opts o = { .size = sizeof o, .threads = threads, .keep_data = true, .work = work_row,
	                           .emit = emit_keep, .arg = &s };
	struct bag_message m;
	char want[64];

	assert_int_equal(bag_view_open(&v, tl, NULL), BAG_OK);
	assert_int_equal(bag_view_open(&w, tl, NULL), BAG_OK);
	assert_int_equal(bag_scan(v, &o, &st), BAG_OK);
	assert_int_equal(s.n, bag_view_count(w));
	assert_int_equal(st.rows, bag_view_count(w));
	assert_int_equal(st.emitted, s.n);
	assert_int_equal(st.failed + st.lost + st.filtered, 0);
	for (uint64_t i = 0; i < s.n; i++) {
		assert_int_equal(bag_view_read(w, i, &m), BAG_OK);
		assert_int_equal(s.msgs[i].row, i);
		assert_int_equal(s.msgs[i].time_ns, m.time_ns);
		assert_int_equal(s.msgs[i].bag_index, m.bag_index);
		assert_int_equal(s.msgs[i].chunk, m.chunk);
		assert_int_equal(s.msgs[i].offset, m.offset);
		assert_ptr_equal(s.msgs[i].conn, m.conn);
		assert_int_equal(s.msgs[i].size, m.size);
		assert_memory_equal(s.data[i], m.data, m.size);
		snprintf(want, sizeof want, "row %llu size %u", (unsigned long long)i, m.size);
		assert_string_equal(s.text[i], want);
	}
	seen_free(&s);
	bag_view_free(w);
	bag_view_free(v);
}

static void open_tl(const char *const *paths, size_t n, bag_t **bags, bag_timeline_t **tl)
{
	for (size_t i = 0; i < n; i++)
		assert_int_equal(bag_open(&bags[i], paths[i], NULL), BAG_OK);
	assert_int_equal(bag_timeline_open(tl, bags, n), BAG_OK);
}

/*
 * A bag of n std_msgs/Int64 messages on three topics in chunks of about
 * 8 KiB (so hundreds of chunks and many tasks), written by the writer.
 */
static void close_tl(bag_t **bags, size_t n, bag_timeline_t *tl);

static const char *write_many(enum bag_compression comp, uint64_t n, char *out, size_t outlen)
{
	struct bag_writer_opts wo = BAG_WRITER_OPTS_INIT;

	wo.compression = comp;
	wo.chunk_threshold = 8192;
	static const char *const topics[] = { "/a", "/b", "/c" };
	bag_writer_t *w;

	snprintf(out, outlen, "/tmp/test-scan-many-%d-%d.bag", (int)getpid(), (int)comp);
	assert_int_equal(bag_writer_open(&w, out, &wo), BAG_OK);
	for (uint64_t i = 0; i < n; i++) {
		struct bag_conn_spec c = { topics[i % 3], "std_msgs/Int64", "34add168574510e6e17f5d23ecc077ef",
		                           "int64 data\n", "/t", false };
		int64_t v = (int64_t)i;
		/* a few messages go back in time, so chunks overlap and groups merge */
		int64_t t = 1000 * BAG_NSEC_PER_SEC + (int64_t)i * 1000000 - (i % 997 == 0 ? 50000000 : 0);
		assert_int_equal(bag_writer_write(w, &c, t, &v, sizeof v), BAG_OK);
	}
	assert_int_equal(bag_writer_close(w), BAG_OK);
	bag_writer_free(w);
	return out;
}

static void test_order_many_chunks(void **state)
{
	static const enum bag_compression comps[] = { BAG_COMPRESSION_NONE, BAG_COMPRESSION_BZ2, BAG_COMPRESSION_LZ4 };
	(void)state;
	for (size_t i = 0; i < 3; i++) {
		char tmp[128];
		const char *path = write_many(comps[i], test_scaled(60000), tmp, sizeof tmp);
		bag_t *bag;
		bag_timeline_t *tl;
		open_tl(&path, 1, &bag, &tl);
		assert_true(bag_chunk_count(bag) > test_scaled(100));
		check_same_as_walk(tl, 1);
		check_same_as_walk(tl, 2);
		check_same_as_walk(tl, 5);
		close_tl(&bag, 1, tl);
		unlink(path);
	}
}

static void close_tl(bag_t **bags, size_t n, bag_timeline_t *tl)
{
	bag_timeline_free(tl);
	for (size_t i = 0; i < n; i++)
		bag_close(bags[i]);
}

static void test_order_fixtures(void **state)
{
	static const char *const paths[] = {
		FIX "foreign/rosbag.js/example.bag", FIX "foreign/rosbag.js/example-bz2.bag",
		FIX "foreign/rosbag.js/example-lz4.bag", FIX "bags/nested_bz2.bag", FIX "bags/tf_lz4.bag",
		FIX "bags/basic_none.bag", FIX "bags/empty_none.bag", FIX "foreign/rosbag.js/example-unsorted-chunks.bag",
	};
	(void)state;
	for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
		bag_t *bag;
		bag_timeline_t *tl;
		open_tl(&paths[i], 1, &bag, &tl);
		check_same_as_walk(tl, 1);
		check_same_as_walk(tl, 3);
		close_tl(&bag, 1, tl);
	}
}

static void test_two_bags_merged(void **state)
{
	static const char *const paths[] = { FIX "foreign/rosbag.js/example-lz4.bag", FIX "foreign/rosbag.js/example.bag" };
	bag_t *bags[2];
	bag_timeline_t *tl;
	(void)state;
	open_tl(paths, 2, bags, &tl);
	check_same_as_walk(tl, 2);
	close_tl(bags, 2, tl);
}

struct chunk_log {
	uint64_t messages;         /* emitted so far */
	uint64_t nchunks;
	size_t last_chunk;
	bool *seen;
};

static void chunk_hook(void *arg, const bag_t *bag, size_t bag_index, size_t chunk, const uint8_t *data,
                       size_t len, struct bag_text *out)
{
	(void)arg;
	(void)bag;
	(void)data;
	bag_text_printf(out, "%zu:%zu:%zu", bag_index, chunk, len);
}

static int chunk_emit(void *arg, size_t bag_index, size_t chunk, const char *text, size_t len)
{
	struct chunk_log *l = arg;
	char want[64];

	snprintf(want, sizeof want, "%zu:%zu:", bag_index, chunk);
	assert_true(len > strlen(want));
	assert_memory_equal(text, want, strlen(want));
	assert_false(l->seen[chunk]);
	l->seen[chunk] = true;
	l->nchunks++;
	l->last_chunk = chunk;
	return 0;
}

static int emit_after_chunk(void *arg, const struct bag_scan_item *it)
{
	struct chunk_log *l = arg;

	assert_true(l->seen[it->m->chunk]);
	l->messages++;
	return 0;
}

/* The chunk hook runs once per chunk, its output reaching chunk_emit before the chunk's messages. */
static void test_chunk_hook(void **state)
{
	char tmp[128];
	const char *path = write_many(BAG_COMPRESSION_LZ4, test_scaled(30000), tmp, sizeof tmp);
	bag_t *bag;
	bag_timeline_t *tl;
	bag_view_t *v;
	struct chunk_log l = { 0 };
	struct bag_scan_opts o = { .size = sizeof o, .threads = 2, .emit = emit_after_chunk, .chunk = chunk_hook,
	                           .chunk_emit = chunk_emit, .arg = &l };
	(void)state;

	open_tl(&path, 1, &bag, &tl);
	l.seen = calloc(bag_chunk_count(bag), sizeof *l.seen);
	assert_int_equal(bag_view_open(&v, tl, NULL), BAG_OK);
	assert_int_equal(bag_scan(v, &o, NULL), BAG_OK);
	assert_int_equal(l.nchunks, bag_chunk_count(bag));
	assert_int_equal(l.messages, test_scaled(30000));
	free(l.seen);
	bag_view_free(v);
	close_tl(&bag, 1, tl);
	unlink(path);
}

/* A caller's test of a connection: latched ones from a given publisher. */
static bool latched_from(void *arg, const struct bag_connection *c)
{
	return c->latching && strcmp(c->callerid, arg) == 0;
}

static void test_query_predicate(void **state)
{
	const char *path = FIX "bags/tf_lz4.bag";
	bag_t *bag;
	bag_timeline_t *tl;
	bag_view_t *v;
	struct bag_query q;
	struct bag_message m;
	size_t latched = 0;
	uint64_t want = 0;
	(void)state;

	open_tl(&path, 1, &bag, &tl);
	for (size_t i = 0; i < bag_conn_count(bag); i++)
		if (bag_conn(bag, i)->latching) {
			latched++;
			want += bag_conn(bag, i)->message_count;
		}
	assert_int_equal(latched, 1);   /* the fixture's latched sensor_msgs/Image */
	bag_query_init(&q);
	q.conn_pred = latched_from;
	q.conn_arg = (void *)bag_conn(bag, 0)->callerid;
	for (size_t i = 0; i < bag_conn_count(bag); i++)
		if (bag_conn(bag, i)->latching)
			q.conn_arg = (void *)bag_conn(bag, i)->callerid;
	assert_int_equal(bag_view_open(&v, tl, &q), BAG_OK);
	assert_int_equal(bag_view_count(v), want);
	for (uint64_t r = 0; r < bag_view_count(v); r++) {
		assert_int_equal(bag_view_entry(v, r, &m), BAG_OK);
		assert_true(m.conn->latching);
	}
	bag_view_free(v);
	q.conn_arg = "/nobody";
	assert_int_equal(bag_view_open(&v, tl, &q), BAG_OK);
	assert_int_equal(bag_view_count(v), 0);
	bag_view_free(v);
	close_tl(&bag, 1, tl);
}

static int cancel_at_half(void *arg, uint64_t done, uint64_t total)
{
	(void)arg;
	return done * 2 >= total;
}

static void test_stop_and_release(void **state)
{
	char tmp[128];
	const char *path = write_many(BAG_COMPRESSION_BZ2, test_scaled(20000), tmp, sizeof tmp);
	bag_t *bag;
	bag_timeline_t *tl;
	bag_view_t *v;
	struct seen s = { .stop_after = 100 };
	struct bag_scan_opts o = { .size = sizeof o, .threads = 2, .emit = emit_keep, .arg = &s };
	struct bag_scan_stats st;
	(void)state;

	open_tl(&path, 1, &bag, &tl);
	assert_int_equal(bag_view_open(&v, tl, NULL), BAG_OK);
	assert_int_equal(bag_scan(v, &o, &st), BAG_ECANCELED);
	assert_int_equal(s.n, 100);
	assert_int_equal(st.emitted, 100);
	seen_free(&s);
	/* a scan gives back the index groups it loaded */
	assert_int_equal(bag_timeline_loaded_rows(tl), 0);
	o.progress = cancel_at_half;
	assert_int_equal(bag_scan(v, &o, &st), BAG_ECANCELED);
	assert_true(st.rows >= bag_view_count(v) / 2 && st.rows < bag_view_count(v));
	seen_free(&s);
	/* groups loaded before the scan stay loaded */
	assert_int_equal(bag_timeline_load(tl, 0), 1);
	uint64_t loaded = bag_timeline_loaded_rows(tl);
	o.progress = NULL;
	s.stop_after = 0;
	assert_int_equal(bag_scan(v, &o, &st), BAG_OK);
	assert_int_equal(bag_timeline_loaded_rows(tl), loaded);
	seen_free(&s);
	o.size = 0;
	assert_int_equal(bag_scan(v, &o, NULL), BAG_EINVAL);
	bag_view_free(v);
	close_tl(&bag, 1, tl);
	unlink(path);
}

/* A chunk larger than a worker's cache is read once, not once per message. */
static void test_cache_smaller_than_chunk(void **state)
{
	char tmp[128];
	const char *path = write_many(BAG_COMPRESSION_LZ4, test_scaled(20000), tmp, sizeof tmp);
	bag_t *bag;
	bag_timeline_t *tl;
	bag_view_t *v;
	struct bag_scan_opts o = { .size = sizeof o, .threads = 1, .cache_bytes = 1024 };
	struct bag_scan_stats st;
	(void)state;

	open_tl(&path, 1, &bag, &tl);
	assert_int_equal(bag_view_open(&v, tl, NULL), BAG_OK);
	assert_int_equal(bag_scan(v, &o, &st), BAG_OK);
	assert_int_equal(st.rows, test_scaled(20000));
	assert_true(st.chunks_read <= bag_chunk_count(bag) + 16);   /* overlapping chunks alternate a little */
	bag_view_free(v);
	close_tl(&bag, 1, tl);
	unlink(path);
}

static void test_dup(void **state)
{
	bag_t *bag, *d1, *d2;
	const uint8_t *a, *b;
	size_t alen, blen;
	struct bag_cache_stats cs;
	(void)state;

	assert_int_equal(bag_open(&bag, FIX "bags/nested_bz2.bag", NULL), BAG_OK);
	assert_int_equal(bag_dup(&d1, bag), BAG_OK);
	assert_int_equal(bag_dup(&d2, d1), BAG_OK);
	assert_int_equal(bag_conn_count(d1), bag_conn_count(bag));
	assert_ptr_equal(bag_conn(d2, 0), bag_conn(bag, 0));
	assert_int_equal(bag_chunk_get(bag, 1, &a, &alen), BAG_OK);
	assert_int_equal(bag_chunk_get(d1, 1, &b, &blen), BAG_OK);
	assert_true(a != b);
	assert_int_equal(alen, blen);
	assert_memory_equal(a, b, alen);
	bag_cache_stats(d2, &cs);
	assert_int_equal(cs.loads, 0);
	bag_chunk_unpin(bag, 1);
	bag_chunk_unpin(d1, 1);
	/* the original may go first: the index lives on with the others */
	const struct bag_connection *c = bag_conn(bag, 0);
	bag_close(bag);
	assert_ptr_equal(bag_conn(d1, 0), c);
	assert_string_equal(bag_conn(d2, 0)->topic, c->topic);
	bag_close(d1);
	bag_close(d2);
}

/* A copy of path with the compressed data of chunk ci overwritten. */
static const char *corrupt_copy(const char *path, size_t ci, char *out, size_t outlen)
{
	bag_t *bag;
	struct bag_chunk_info info;
	FILE *in, *o;
	char buf[65536];
	size_t n;

	assert_int_equal(bag_open(&bag, path, NULL), BAG_OK);
	assert_int_equal(bag_chunk_stat(bag, ci, &info), BAG_OK);
	uint64_t at = info.pos + info.compressed_size / 2 + 64;
	bag_close(bag);
	snprintf(out, outlen, "/tmp/test-scan-%d.bag", (int)getpid());
	in = fopen(path, "rb");
	o = fopen(out, "wb");
	assert_non_null(in);
	assert_non_null(o);
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		fwrite(buf, 1, n, o);
	fseek(o, (long)at, SEEK_SET);
	memset(buf, 0x5a, 64);
	fwrite(buf, 1, 64, o);
	fclose(in);
	fclose(o);
	return out;
}

static void test_bad_chunk_once(void **state)
{
	char tmp[128], many[128];
	const char *path = corrupt_copy(write_many(BAG_COMPRESSION_BZ2, test_scaled(20000), many, sizeof many), 5, tmp, sizeof tmp);
	bag_t *bag;
	bag_timeline_t *tl;
	bag_view_t *v;
	struct seen s = { 0 };
	struct bag_scan_opts o = { .size = sizeof o, .threads = 2, .emit = emit_keep, .arg = &s };
	struct bag_scan_stats st;
	(void)state;

	open_tl(&path, 1, &bag, &tl);
	assert_int_equal(bag_view_open(&v, tl, NULL), BAG_OK);
	assert_int_equal(bag_scan(v, &o, &st), BAG_OK);
	assert_int_equal(s.errors, 1);
	assert_non_null(strstr(s.first_error, "bz2"));
	assert_int_equal(st.failed, 1);
	assert_true(st.lost > 0);
	assert_int_equal(s.n + st.failed + st.lost, bag_view_count(v));
	seen_free(&s);
	bag_view_free(v);
	close_tl(&bag, 1, tl);
	unlink(path);
	unlink(many);
}

static void test_filter_from_index(void **state)
{
	const char *path = FIX "foreign/rosbag.js/example-bz2.bag";
	static const char text[] = "$topic == \"/rosout\" && $time < 0";
	bag_t *bag;
	bag_timeline_t *tl;
	bag_view_t *v;
	bag_expr_t *e;
	struct seen s = { 0 };
	struct bag_scan_opts o = { .size = sizeof o, .emit = emit_keep, .arg = &s };
	struct bag_scan_stats st;
	(void)state;

	open_tl(&path, 1, &bag, &tl);
	assert_int_equal(bag_view_open(&v, tl, NULL), BAG_OK);
	assert_int_equal(bag_expr_parse(&e, text, sizeof text - 1), BAG_OK);
	o.filter = e;
	assert_int_equal(bag_scan(v, &o, &st), BAG_OK);
	assert_int_equal(s.n, 0);
	assert_int_equal(st.filtered, bag_view_count(v));
	assert_int_equal(st.chunks_read, 0);
	bag_expr_free(e);
	/* a time term rules rows out from the index even beside a field's test */
	static const char mixed[] = "$time < 0 && msg =~ \"x\"";
	assert_int_equal(bag_expr_parse(&e, mixed, sizeof mixed - 1), BAG_OK);
	o.filter = e;
	assert_int_equal(bag_scan(v, &o, &st), BAG_OK);
	assert_int_equal(s.n, 0);
	assert_int_equal(st.chunks_read, 0);
	bag_expr_free(e);
	/* a field no selected type has is refused before anything is read */
	static const char bad[] = "no_such_field > 1";
	assert_int_equal(bag_expr_parse(&e, bad, sizeof bad - 1), BAG_OK);
	o.filter = e;
	assert_int_equal(bag_scan(v, &o, &st), BAG_EEXPR);
	assert_int_equal(bag_expr_error(e)->offset, 0);
	assert_int_equal(st.chunks_read, 0);
	bag_expr_free(e);
	seen_free(&s);
	bag_view_free(v);
	close_tl(&bag, 1, tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_fixtures),
		cmocka_unit_test(test_order_many_chunks),
		cmocka_unit_test(test_two_bags_merged),
		cmocka_unit_test(test_stop_and_release),
		cmocka_unit_test(test_dup),
		cmocka_unit_test(test_cache_smaller_than_chunk),
		cmocka_unit_test(test_chunk_hook),
		cmocka_unit_test(test_query_predicate),
		cmocka_unit_test(test_bad_chunk_once),
		cmocka_unit_test(test_filter_from_index),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
