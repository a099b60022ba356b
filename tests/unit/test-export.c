/*
 * test-export.c - the write side added for export: the writer's compression
 * pool (its output byte for byte the same as one thread's), connections
 * added with their whole header, copies from a reader, append mode (its
 * refusals, what an abandoned append leaves), no_replace; the MCAP writer's
 * refusals; and bag_export()'s contract: its result summary, a cancel and a
 * refused target leaving nothing, losses told through the callback.
 * Round trips against the ROS tools are in export.sh and export-mcap.sh.
 */
#define _GNU_SOURCE
#include "config.h"

#include <dirent.h>
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
#include "scale.h"

#include <bagscope/bagscope.h>

static char dir[256];

static int make_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "%s/test-export-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[512];

	(void)state;
	while (d && (e = readdir(d)) != NULL)
		if (e->d_name[0] != '.') {
			snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
			unlink(p);
		}
	if (d)
		closedir(d);
	return rmdir(dir);
}

static char *path_in(const char *name)
{
	static char p[4][512];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
	return p[k];
}

/* Files in dir whose name starts with prefix (temporary files included). */
static int count_files(const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)) != NULL)
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	if (d)
		closedir(d);
	return n;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	p = malloc((size_t)n + 1);
	assert_non_null(p);
	assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return p;
}

static void copy_file(const char *from, const char *to)
{
	size_t n;
	uint8_t *p = slurp(from, &n);
	FILE *f = fopen(to, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	fclose(f);
	free(p);
}

static const struct bag_conn_spec str_conn = {
	"/chatter", "std_msgs/String", "992ce8a1687cec8c8bd883ec73ca41d1", "string data\n", "/talker", false,
};

/* n messages of varied content through a writer with the given threads. */
static void write_many(const char *path, enum bag_compression c, unsigned threads, int n)
{
	struct bag_writer_opts o = BAG_WRITER_OPTS_INIT;
	bag_writer_t *w;
	uint8_t buf[600];
	uint64_t x = 12345;

	o.compression = c;
	o.threads = threads;
	o.chunk_threshold = 16 * 1024;
	assert_int_equal(bag_writer_open(&w, path, &o), BAG_OK);
	for (int i = 0; i < n; i++) {
		size_t len = 4 + (size_t)(i % 500);
		for (size_t k = 4; k < len; k++) {
			x = x * 6364136223846793005ULL + 1;
			buf[k] = (uint8_t)('a' + (x >> 60));
		}
		buf[0] = (uint8_t)(len - 4);
		buf[1] = (uint8_t)((len - 4) >> 8);
		buf[2] = buf[3] = 0;
		assert_int_equal(bag_writer_write(w, &str_conn, 1500000000LL * BAG_NSEC_PER_SEC + (int64_t)(i % 97) * 1000 + i,
		                                  buf, len), BAG_OK);
	}
	assert_int_equal(bag_writer_close(w), BAG_OK);
	bag_writer_free(w);
}

/* Chunks compressed on four threads make the same file as on one. */
static void test_pool_same_bytes(void **state)
{
	(void)state;
	for (int c = 0; c < 3; c++) {
		size_t n1, n4;
		uint8_t *a, *b;
#ifndef HAVE_LZ4
		if (c == BAG_COMPRESSION_LZ4)
			continue;
#endif
		write_many(path_in("one.bag"), (enum bag_compression)c, 1, (int)test_scaled(20000));
		write_many(path_in("four.bag"), (enum bag_compression)c, 4, (int)test_scaled(20000));
		a = slurp(path_in("one.bag"), &n1);
		b = slurp(path_in("four.bag"), &n4);
		assert_true(n1 > 100000 || c != BAG_COMPRESSION_NONE);
		assert_int_equal(n1, n4);
		assert_memory_equal(a, b, n1);
		free(a);
		free(b);
	}
}

/* A connection added with its whole header keeps every field, in order. */
static void test_full_header(void **state)
{
	static const char nul_value[] = "a\0b";
	struct bag_kv fields[] = {
		{ "type", "std_msgs/String", 15 },
		{ "topic", "/other_name", 11 },
		{ "md5sum", "992ce8a1687cec8c8bd883ec73ca41d1", 32 },
		{ "tcp_nodelay", "1", 1 },
		{ "message_definition", "string data\n", 12 },
		{ "blob", nul_value, 3 },
	};
	struct bag_kv bad = { "a=b", "x", 1 };
	bag_writer_t *w;
	bag_t *bag;
	uint32_t k1, k2, k3;
	const struct bag_connection *c;

	(void)state;
	assert_int_equal(bag_writer_open(&w, path_in("hdr.bag"), NULL), BAG_OK);
	assert_int_equal(bag_writer_add_conn(w, "/chatter", fields, 6, &k1), BAG_OK);
	assert_int_equal(bag_writer_add_conn(w, "/chatter", fields, 6, &k2), BAG_OK);
	assert_int_equal(bag_writer_add_conn(w, "/elsewhere", fields, 6, &k3), BAG_OK);
	assert_int_equal(k1, k2);
	assert_int_not_equal(k1, k3);
	assert_int_equal(bag_writer_add_conn(w, "/x", &bad, 1, &k2), BAG_EINVAL);
	assert_int_equal(bag_writer_write_conn(w, 99, 1, "", 0), BAG_EINVAL);
	assert_int_equal(bag_writer_write_conn(w, k1, BAG_NSEC_PER_SEC, "\x01\0\0\0x", 5), BAG_OK);
	assert_int_equal(bag_writer_close(w), BAG_OK);
	bag_writer_free(w);

	assert_int_equal(bag_open(&bag, path_in("hdr.bag"), NULL), BAG_OK);
	/* /elsewhere was added but has no message: it is still a connection */
	assert_int_equal(bag_conn_count(bag), 2);
	c = bag_conn(bag, 0);
	assert_string_equal(c->topic, "/chatter");
	assert_int_equal(c->nfields, 6);
	for (size_t i = 0; i < 6; i++) {
		assert_string_equal(c->fields[i].name, fields[i].name);
		assert_int_equal(c->fields[i].value_len, fields[i].value_len);
		assert_memory_equal(c->fields[i].value, fields[i].value, fields[i].value_len);
	}
	assert_int_equal(bag_message_count(bag), 1);
	bag_close(bag);
}

/* Copies from a reader carry the bytes, times and headers of the input. */
static void test_copy(void **state)
{
	bag_t *in, *out;
	bag_timeline_t *tl, *tl2;
	bag_view_t *v, *v2;
	bag_writer_t *w;
	struct bag_message m, m2;

	(void)state;
	assert_int_equal(bag_open(&in, TEST_DATA_DIR "/fixtures/bags/tf_lz4.bag", NULL), BAG_OK);
	assert_int_equal(bag_timeline_open(&tl, &in, 1), BAG_OK);
	assert_int_equal(bag_view_open(&v, tl, NULL), BAG_OK);
	assert_int_equal(bag_writer_open(&w, path_in("copy.bag"), NULL), BAG_OK);
	for (uint64_t r = 0; r < bag_view_count(v); r++) {
		assert_int_equal(bag_view_read(v, r, &m), BAG_OK);
		assert_int_equal(bag_writer_copy(w, &m), BAG_OK);
	}
	m.conn = NULL;
	assert_int_equal(bag_writer_copy(w, &m), BAG_EINVAL);
	assert_int_equal(bag_writer_close(w), BAG_OK);
	bag_writer_free(w);

	assert_int_equal(bag_open(&out, path_in("copy.bag"), NULL), BAG_OK);
	assert_int_equal(bag_timeline_open(&tl2, &out, 1), BAG_OK);
	assert_int_equal(bag_view_open(&v2, tl2, NULL), BAG_OK);
	assert_int_equal(bag_view_count(v2), bag_view_count(v));
	assert_int_equal(bag_conn_count(out), bag_conn_count(in));
	for (uint64_t r = 0; r < bag_view_count(v); r++) {
		assert_int_equal(bag_view_read(v, r, &m), BAG_OK);
		assert_int_equal(bag_view_read(v2, r, &m2), BAG_OK);
		assert_int_equal(m.time_ns, m2.time_ns);
		assert_int_equal(m.size, m2.size);
		assert_memory_equal(m.data, m2.data, m.size);
		assert_string_equal(m.conn->topic, m2.conn->topic);
		assert_int_equal(m.conn->nfields, m2.conn->nfields);
		for (size_t i = 0; i < m.conn->nfields; i++) {
			assert_string_equal(m.conn->fields[i].name, m2.conn->fields[i].name);
			assert_memory_equal(m.conn->fields[i].value, m2.conn->fields[i].value, m.conn->fields[i].value_len + 1);
		}
	}
	bag_view_free(v2);
	bag_timeline_free(tl2);
	bag_close(out);
	bag_view_free(v);
	bag_timeline_free(tl);
	bag_close(in);
}

/* Append refuses what it cannot append to, and leaves it alone. */
static void test_append_refusals(void **state)
{
	struct bag_writer_opts o = BAG_WRITER_OPTS_INIT;
	bag_writer_t *w;
	size_t n1, n2;
	uint8_t *before, *after;

	(void)state;
	o.append = true;
	copy_file(TEST_DATA_DIR "/fixtures/broken/crashed_none.bag", path_in("crashed.bag"));
	before = slurp(path_in("crashed.bag"), &n1);
	assert_int_equal(bag_writer_open(&w, path_in("crashed.bag"), &o), BAG_ENOINDEX);
	assert_non_null(strstr(bag_writer_error(w)->message, "no usable index"));
	assert_int_equal(bag_writer_write(w, &str_conn, 1, "", 0), BAG_ENOINDEX);
	bag_writer_free(w);
	after = slurp(path_in("crashed.bag"), &n2);
	assert_int_equal(n1, n2);
	assert_memory_equal(before, after, n1);
	free(before);
	free(after);
	assert_int_equal(bag_writer_open(&w, path_in("missing.bag"), &o), BAG_EIO);
	bag_writer_free(w);
	assert_int_equal(count_files("missing"), 0);
}

/* An abandoned append leaves a bag without index that recovery reads whole. */
static void test_append_abandoned(void **state)
{
	struct bag_writer_opts o = BAG_WRITER_OPTS_INIT;
	struct bag_recovery rep;
	bag_writer_t *w;
	bag_t *bag;

	(void)state;
	write_many(path_in("grow.bag"), BAG_COMPRESSION_BZ2, 2, 3000);
	o.append = true;
	o.compression = BAG_COMPRESSION_BZ2;
	o.chunk_threshold = 4096;
	assert_int_equal(bag_writer_open(&w, path_in("grow.bag"), &o), BAG_OK);
	for (int i = 0; i < 200; i++)
		assert_int_equal(bag_writer_write(w, &str_conn, 1600000000LL * BAG_NSEC_PER_SEC + i,
		                                  "\x04\0\0\0more", 8), BAG_OK);
	/* written chunks are in the file; the open one and the pool's are lost */
	bag_writer_free(w);
	assert_int_equal(bag_open(&bag, path_in("grow.bag"), NULL), BAG_OK);
	bag_recovery_report(bag, &rep);
	assert_true(rep.recovered);
	assert_true(bag_message_count(bag) >= 3000);
	assert_true(bag_message_count(bag) < 3200);
	assert_int_equal(bag_conn_count(bag), 1);
	bag_close(bag);

	/* a closed append: everything, on the same connection, indexed */
	write_many(path_in("grow.bag"), BAG_COMPRESSION_NONE, 1, 3000);
	assert_int_equal(bag_writer_open(&w, path_in("grow.bag"), &o), BAG_OK);
	for (int i = 0; i < 200; i++)
		assert_int_equal(bag_writer_write(w, &str_conn, 1600000000LL * BAG_NSEC_PER_SEC + i,
		                                  "\x04\0\0\0more", 8), BAG_OK);
	assert_int_equal(bag_writer_close(w), BAG_OK);
	bag_writer_free(w);
	assert_int_equal(bag_open(&bag, path_in("grow.bag"), NULL), BAG_OK);
	bag_recovery_report(bag, &rep);
	assert_false(rep.recovered);
	assert_int_equal(bag_message_count(bag), 3200);
	assert_int_equal(bag_conn_count(bag), 1);
	assert_int_equal(bag_end_time(bag), 1600000000LL * BAG_NSEC_PER_SEC + 199);
	bag_close(bag);
}

/* no_replace: an existing file stays, the temporary one goes. */
static void test_no_replace(void **state)
{
	struct bag_writer_opts o = BAG_WRITER_OPTS_INIT;
	bag_writer_t *w;
	FILE *f;
	char buf[8] = { 0 };

	(void)state;
	f = fopen(path_in("taken.bag"), "w");
	fputs("mine", f);
	fclose(f);
	o.no_replace = true;
	assert_int_equal(bag_writer_open(&w, path_in("taken.bag"), &o), BAG_OK);
	assert_int_equal(bag_writer_write(w, &str_conn, 1, "\0\0\0\0", 4), BAG_OK);
	assert_int_equal(bag_writer_close(w), BAG_EIO);
	assert_non_null(strstr(bag_writer_error(w)->message, "exists"));
	bag_writer_free(w);
	f = fopen(path_in("taken.bag"), "r");
	assert_non_null(fgets(buf, sizeof buf, f));
	fclose(f);
	assert_string_equal(buf, "mine");
	assert_int_equal(count_files("taken"), 1);
}

static void test_mcap_refusals(void **state)
{
	struct bag_mcap_opts o = BAG_MCAP_OPTS_INIT;
	struct bag_kv f[] = { { "type", "std_msgs/String", 15 }, { "message_definition", "string data\n", 12 } };
	bag_mcap_writer_t *w;
	uint32_t a, b;

	(void)state;
	o.compression = BAG_COMPRESSION_BZ2;
	assert_int_equal(bag_mcap_writer_open(&w, path_in("x.mcap"), &o), BAG_EINVAL);
	assert_non_null(strstr(bag_mcap_writer_error(w)->message, "bz2"));
	bag_mcap_writer_free(w);
	assert_int_equal(count_files("x.mcap"), 0);
	o.compression = BAG_COMPRESSION_NONE;
	assert_int_equal(bag_mcap_writer_open(&w, path_in("y.mcap"), &o), BAG_OK);
	assert_int_equal(bag_mcap_writer_add_conn(w, "/a", f, 2, &a), BAG_OK);
	assert_int_equal(bag_mcap_writer_add_conn(w, "/a", f, 2, &b), BAG_OK);
	assert_int_equal(a, b);
	assert_int_equal(bag_mcap_writer_write(w, a, -1, "", 0), BAG_EINVAL);
	assert_int_equal(bag_mcap_writer_write(w, 7, 1, "", 0), BAG_EINVAL);
	assert_int_equal(bag_mcap_writer_write(w, a, 5, "\0\0\0\0", 4), BAG_OK);
	/* abandoned: nothing at the target, no temporary file */
	bag_mcap_writer_free(w);
	assert_int_equal(count_files("y.mcap"), 0);
}

/* An export: bags and view over paths. */
struct ex {
	bag_t *bags[3];
	size_t n;
	bag_timeline_t *tl;
	bag_view_t *v;
};

static void ex_open(struct ex *e, const char *const *paths, size_t n)
{
	memset(e, 0, sizeof *e);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(bag_open(&e->bags[e->n++], paths[i], NULL), BAG_OK);
	assert_int_equal(bag_timeline_open(&e->tl, e->bags, e->n), BAG_OK);
	assert_int_equal(bag_view_open(&e->v, e->tl, NULL), BAG_OK);
}

static void ex_close(struct ex *e)
{
	bag_view_free(e->v);
	bag_timeline_free(e->tl);
	for (size_t i = 0; i < e->n; i++)
		bag_close(e->bags[i]);
}

static void test_export_result(void **state)
{
	const char *in[] = { TEST_DATA_DIR "/fixtures/bags/basic_none.bag", TEST_DATA_DIR "/fixtures/bags/nested_bz2.bag" };
	struct bag_export_opts o = BAG_EXPORT_OPTS_INIT;
	struct bag_export_result r;
	struct ex e;
	struct stat st;
	struct bag_error err;
	bag_t *out;

	(void)state;
	ex_open(&e, in, 2);
	assert_int_equal(bag_export(e.v, path_in("res.bag"), &o, &r, &err), BAG_OK);
	assert_int_equal(r.messages, 23 + 15);
	assert_int_equal(r.lost, 0);
	assert_int_equal(r.input_losses, 0);
	assert_int_equal(r.compression, BAG_COMPRESSION_BZ2);   /* 4 bz2 chunks to 1 none */
	assert_int_equal(r.connections, 6 + 3);
	assert_int_equal(r.start_ns, 1500000000LL * BAG_NSEC_PER_SEC);
	assert_int_equal(r.end_ns, bag_timeline_end(e.tl));
	assert_int_equal(stat(path_in("res.bag"), &st), 0);
	assert_int_equal(r.bytes, (uint64_t)st.st_size);
	assert_int_equal(bag_open(&out, path_in("res.bag"), NULL), BAG_OK);
	assert_int_equal(bag_message_count(out), 38);
	assert_int_equal(bag_chunk_count(out), r.chunks);
	bag_close(out);
	/* the target: existing (not forced), an input */
	assert_int_equal(bag_export(e.v, path_in("res.bag"), &o, &r, &err), BAG_EINVAL);
	assert_non_null(strstr(err.message, "exists"));
	o.force = true;
	assert_int_equal(bag_export(e.v, in[1], &o, &r, &err), BAG_EINVAL);
	assert_non_null(strstr(err.message, "input"));
	assert_int_equal(bag_export(e.v, dir, &o, &r, &err), BAG_EINVAL);
	o.compression = "zstd";
	assert_int_equal(bag_export(e.v, path_in("res.bag"), &o, &r, &err), BAG_EINVAL);
	o.compression = "bz2";
	o.format = BAG_EXPORT_MCAP;
	assert_int_equal(bag_export(e.v, path_in("res.mcap"), &o, &r, &err), BAG_EINVAL);
	assert_int_equal(count_files("res.mcap"), 0);
	o.size = 0;
	assert_int_equal(bag_export(e.v, path_in("res.bag"), &o, &r, &err), BAG_EINVAL);
	ex_close(&e);
}

static int stop_at_once(void *arg, uint64_t done, uint64_t total)
{
	(void)done;
	(void)total;
	++*(int *)arg;
	return 1;
}

static void test_export_cancel(void **state)
{
	const char *in[] = { TEST_DATA_DIR "/fixtures/bags/nested_bz2.bag" };
	struct bag_export_opts o = BAG_EXPORT_OPTS_INIT;
	struct bag_export_result r;
	struct ex e;
	struct bag_error err;
	int calls = 0;

	(void)state;
	ex_open(&e, in, 1);
	o.progress = stop_at_once;
	o.progress_arg = &calls;
	assert_int_equal(bag_export(e.v, path_in("cancel.bag"), &o, &r, &err), BAG_ECANCELED);
	assert_true(calls >= 1);
	assert_non_null(strstr(err.message, "cancel"));
	assert_int_equal(count_files("cancel"), 0);
	ex_close(&e);
}

struct lost_lines {
	int n;
	char first[1024];
};

static void on_lost(void *arg, const char *line)
{
	struct lost_lines *l = arg;

	if (l->n++ == 0)
		snprintf(l->first, sizeof l->first, "%s", line);
}

/* A chunk that cannot be read: told once, counted, the rest written. */
static void test_export_lost(void **state)
{
	struct bag_export_opts o = BAG_EXPORT_OPTS_INIT;
	struct bag_export_result r;
	struct lost_lines l = { 0 };
	const char *in[2];
	struct ex e;
	struct bag_error err;
	size_t n;
	uint8_t *p = slurp(TEST_DATA_DIR "/fixtures/bags/basic_none.bag", &n);
	uint8_t *hit = memmem(p, n, "compression=none", 16);
	FILE *f;

	(void)state;
	assert_non_null(hit);
	memcpy(hit, "compression=zstd", 16);
	f = fopen(path_in("zstd.bag"), "wb");
	assert_int_equal(fwrite(p, 1, n, f), n);
	fclose(f);
	free(p);
	in[0] = path_in("zstd.bag");
	in[1] = TEST_DATA_DIR "/fixtures/bags/tf_lz4.bag";
	ex_open(&e, in, 2);
	o.lost = on_lost;
	o.lost_arg = &l;
	assert_int_equal(bag_export(e.v, path_in("lost.bag"), &o, &r, &err), BAG_OK);
	assert_int_equal(l.n, 1);
	assert_non_null(strstr(l.first, "zstd"));
	assert_int_equal(r.lost, 23);
	assert_int_equal(r.messages, 11);
	ex_close(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pool_same_bytes),
		cmocka_unit_test(test_full_header),
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_append_refusals),
		cmocka_unit_test(test_append_abandoned),
		cmocka_unit_test(test_no_replace),
		cmocka_unit_test(test_mcap_refusals),
		cmocka_unit_test(test_export_result),
		cmocka_unit_test(test_export_cancel),
		cmocka_unit_test(test_export_lost),
	};
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
