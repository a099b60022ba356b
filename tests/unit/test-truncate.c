/*
 * test-truncate.c - every truncation of every generated bag older than 2.0
 * (tests/data/oldbags), in one process.
 *
 * For each sample the file is cut at every record boundary, and 3 bytes
 * into every record; each cut is written to a scratch file and read
 * through the public API as `bagscope cat` reads it (bag_open with
 * /usr/share for .msg files, a timeline, a view, bag_scan decoding each
 * message to JSON). A cut must open, and read exactly the whole messages
 * before it, in order, equal (topic, time, decoded JSON) to the first
 * messages of the whole file, whose JSON tests/cli/oldbags.sh checks
 * against expected/NAME.expect.json. A cut between the index records of an
 * indexed 1.2 file reads the topics whose index records are whole, as
 * rosbag reads them. A cut inside a record gets a warning naming the byte
 * the record starts at. A cut inside the file header (and, for 1.2, the
 * header record) either opens or fails with one error line.
 *
 * The boundaries come from a walk of the file written here (record_ends),
 * independent of the readers under test.
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

#include <bagscope/bagscope.h>

#define OLD TEST_DATA_DIR "/oldbags/"

static const char *const usr_share[] = { "/usr/share" };
static char scratch[] = "/tmp/bagscope-trunc-XXXXXX";
static char cut_path[64];

/* A file's bytes. */
struct file {
	uint8_t *p;
	size_t len;
};

/* One message as cat prints it: "topic time json". */
struct msgs {
	char **line;
	size_t n, cap;
};

/* A record end and the messages whole before it; an index record's topic. */
struct end {
	size_t at;
	size_t n;
	char topic[64];
};

static struct file slurp(const char *path)
{
	struct file f = { NULL, 0 };
	FILE *fp = fopen(path, "rb");

	assert_non_null(fp);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	f.len = (size_t)ftell(fp);
	rewind(fp);
	f.p = malloc(f.len + 1);
	assert_non_null(f.p);
	assert_int_equal(fread(f.p, 1, f.len, fp), f.len);
	fclose(fp);
	return f;
}

static void write_cut(const struct file *f, size_t cut)
{
	FILE *fp = fopen(cut_path, "wb");

	assert_non_null(fp);
	assert_int_equal(fwrite(f->p, 1, cut, fp), cut);
	assert_int_equal(fclose(fp), 0);
}

static uint32_t u32(const struct file *f, size_t at)
{
	uint32_t v = 0;

	if (at + 4 <= f->len)
		memcpy(&v, f->p + at, 4);
	return v;
}

static bool starts(const struct file *f, const char *s)
{
	return f->len >= strlen(s) && memcmp(f->p, s, strlen(s)) == 0;
}

/* The byte after the newline at or after at. */
static size_t next_line(const struct file *f, size_t at)
{
	const uint8_t *nl = memchr(f->p + at, '\n', f->len - at);

	assert_non_null(nl);
	return (size_t)(nl - f->p) + 1;
}

/* Where field name= starts in header bytes [at, at + len), or SIZE_MAX. */
static size_t field(const struct file *f, size_t at, size_t len, const char *name)
{
	size_t k = strlen(name);

	for (size_t i = at; i + k <= at + len; i++)
		if (memcmp(f->p + i, name, k) == 0)
			return i + k;
	return SIZE_MAX;
}

/* 1.2: every record's end; *start where the header record ends (op=3 first). */
static size_t v12_ends(const struct file *f, struct end *e, size_t *start)
{
	size_t at = 16, n = 0, k = 0;

	while (at + 8 <= f->len) {
		uint32_t hl = u32(f, at);
		size_t op = field(f, at + 4, hl, "op=");
		assert_true(op != SIZE_MAX);
		n += f->p[op] == 2;
		at += 8 + hl + u32(f, at + 4 + hl);
		e[k++] = (struct end){ at, n, "" };
	}
	size_t op3 = field(f, 16, f->len - 16 < 67 ? f->len - 16 : 67, "op=\x03");
	*start = op3 != SIZE_MAX ? e[0].at : 16;
	return k;
}

/* 1.1, 1.0 and 0: a message is text lines then time (8 bytes), length and data. */
static size_t old_ends(const struct file *f, struct end *e, size_t *start)
{
	size_t at = 0, lines = 3, k = 0;

	if (starts(f, "#ROS")) {
		at = next_line(f, 0);
		if (starts(f, "#ROSLOG V1.0")) {
			int count = atoi((const char *)f->p + at);
			at = next_line(f, at);
			for (int i = 0; i < 3 * count; i++)
				at = next_line(f, at);
			lines = 1;
		}
	} else {
		for (int i = 0; i < 3; i++)
			at = next_line(f, at);
		lines = 0;
	}
	*start = at;
	while (at < f->len) {
		for (size_t i = 0; i < lines; i++)
			at = next_line(f, at);
		at += 12 + u32(f, at + 8);
		e[k] = (struct end){ at, k + 1, "" };
		k++;
	}
	return k;
}

static size_t record_ends(const struct file *f, struct end *e, size_t *start)
{
	return starts(f, "#ROSRECORD V1.2\n") ? v12_ends(f, e, start) : old_ends(f, e, start);
}

/* An indexed 1.2 file's index records (end, topic); returns their count, *pos where they start. */
static size_t index_records(const struct file *f, struct end *e, size_t *pos)
{
	size_t k = 0, ip;

	*pos = 0;
	if (!starts(f, "#ROSRECORD V1.2\n") || (ip = field(f, 16, 48, "index_pos=")) == SIZE_MAX)
		return 0;
	memcpy(pos, f->p + ip, 8);
	for (size_t at = *pos; at > 0 && at < f->len; k++) {
		uint32_t hl = u32(f, at);
		size_t t = field(f, at + 4, hl, "topic=");
		assert_true(t != SIZE_MAX);
		size_t tl = u32(f, t - 10) - 6;
		assert_true(tl < sizeof e[k].topic);
		at += 8 + hl + u32(f, at + 4 + hl);
		e[k] = (struct end){ at, 0, "" };
		memcpy(e[k].topic, f->p + t, tl);
	}
	return k;
}

static int work(void *arg, const struct bag_message *m, const bag_msgdef_t *def, struct bag_text *t)
{
	(void)arg;
	bag_text_printf(t, "%s %lld ", m->conn->topic, (long long)m->time_ns);
	if (def == NULL || !bag_conn_has_definition(m->conn)) {
		bag_text_printf(t, "null %u", m->size);
		return BAG_OK;
	}
	return bag_print_json(t, def, m->data, m->size, NULL);
}

static int emit(void *arg, const struct bag_scan_item *it)
{
	struct msgs *out = arg;

	if (it->rc != BAG_OK)
		return it->rc;
	if (out->n == out->cap) {
		out->cap = out->cap ? 2 * out->cap : 64;
		out->line = realloc(out->line, out->cap * sizeof *out->line);
		assert_non_null(out->line);
	}
	out->line[out->n] = strndup(it->text, it->len);
	assert_non_null(out->line[out->n]);
	out->n++;
	return 0;
}

static void msgs_free(struct msgs *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->line[i]);
	free(m->line);
	*m = (struct msgs){ 0 };
}

/* An opened cut (or whole file): its messages and its warnings joined by newlines. */
struct reading {
	int rc;              /* BAG_OK, or where it failed */
	char why[BAG_ERROR_MESSAGE_MAX + 16];
	struct msgs m;
	char warnings[4096];
};

static void add_warning(struct reading *r, const char *w)
{
	size_t used = strlen(r->warnings);

	if (w != NULL)
		snprintf(r->warnings + used, sizeof r->warnings - used, "%s\n", w);
}

/* The messages of bag as `cat` reads them; only the timeline (as `info` reads it) unless scan. */
static void scan_all(bag_t *bag, struct reading *r, bool scan)
{
	bag_timeline_t *tl = NULL;
	bag_view_t *v = NULL;
	struct bag_scan_opts so = { .size = sizeof so, .threads = 1, .decode = true, .work = work,
	                            .emit = emit, .arg = &r->m };

	if ((r->rc = bag_timeline_open(&tl, &bag, 1)) != BAG_OK)
		snprintf(r->why, sizeof r->why, "timeline: %s", bag_strerror(r->rc));
	else if (!scan)
		;
	else if ((r->rc = bag_view_open(&v, tl, NULL)) != BAG_OK)
		snprintf(r->why, sizeof r->why, "view: %s", bag_view_error(v)->message);
	else if ((r->rc = bag_scan(v, &so, NULL)) != BAG_OK)
		snprintf(r->why, sizeof r->why, "scan: %s", bag_view_error(v)->message);
	for (size_t i = 0; tl != NULL && i < bag_timeline_warning_count(tl); i++)
		add_warning(r, bag_timeline_warning(tl, i));
	bag_view_free(v);
	bag_timeline_free(tl);
}

/* What bagset_open_one() prints: the recovery report and the bag's warnings. */
static void report(bag_t *bag, struct reading *r)
{
	struct bag_recovery rec;
	char line[512];

	bag_recovery_report(bag, &rec);
	if (rec.recovered) {
		add_warning(r, rec.reason);
		for (size_t i = 0; i < rec.nlosses; i++) {
			const struct bag_loss *l = bag_recovery_loss(bag, i);
			snprintf(line, sizeof line, "bytes %llu-%llu lost: %s", (unsigned long long)l->start,
			         (unsigned long long)l->end, l->what);
			add_warning(r, line);
		}
	}
	for (size_t i = 0; i < bag_warning_count(bag); i++)
		add_warning(r, bag_warning(bag, i));
}

static void read_bag(const char *path, struct reading *r, bool scan)
{
	struct bag_open_opts o = BAG_OPEN_OPTS_INIT;
	bag_t *bag = NULL;

	memset(r, 0, sizeof *r);
	o.msg_path = usr_share;
	o.msg_path_n = 1;
	if ((r->rc = bag_open(&bag, path, &o)) != BAG_OK) {
		snprintf(r->why, sizeof r->why, "%s", bag_last_error(bag)->message);
	} else {
		report(bag, r);
		scan_all(bag, r, scan);
	}
	bag_close(bag);
}

/* Whether the index records whole at cut hold topic. */
static bool topic_indexed(const struct end *idx, size_t nidx, size_t cut, const char *line)
{
	for (size_t i = 0; i < nidx; i++)
		if (idx[i].at <= cut && strncmp(line, idx[i].topic, strlen(idx[i].topic)) == 0 &&
		    line[strlen(idx[i].topic)] == ' ')
			return true;
	return false;
}

/* The lines a cut should read: the first n of the whole file, by topic for a cut index. */
static size_t wanted(const struct msgs *whole, size_t n, const struct end *idx, size_t nidx, size_t cut,
                     const char **want)
{
	size_t k = 0;

	for (size_t i = 0; i < n && i < whole->n; i++)
		if (nidx == 0 || topic_indexed(idx, nidx, cut, whole->line[i]))
			want[k++] = whole->line[i];
	return k;
}

/* The first difference of a cut's reading from what it should read, or NULL. */
static const char *compare(const struct reading *r, const char **want, size_t nwant, char *why, size_t len)
{
	if (r->rc != BAG_OK)
		return r->why;
	if (r->m.n != nwant) {
		snprintf(why, len, "%zu messages, expected %zu", r->m.n, nwant);
		return why;
	}
	for (size_t i = 0; i < nwant; i++)
		if (strcmp(r->m.line[i], want[i]) != 0) {
			snprintf(why, len, "message %zu is %.200s, expected %.200s", i, r->m.line[i], want[i]);
			return why;
		}
	return NULL;
}

/* A warning naming byte at, as "at byte N" or "bytes N-". */
static bool names_byte(const char *warnings, size_t at)
{
	char a[48], b[48];

	snprintf(a, sizeof a, "at byte %zu", at);
	snprintf(b, sizeof b, "bytes %zu-", at);
	return strstr(warnings, a) != NULL || strstr(warnings, b) != NULL;
}

/* Cut at end + extra: the whole messages before it, and for extra a warning naming end. */
static int check_cut(const struct file *f, const struct msgs *whole, const struct end *e, size_t extra,
                     const struct end *idx, size_t nidx, size_t ipos)
{
	size_t cut = e->at + extra, nwant;
	const char **want = calloc(whole->n + 1, sizeof *want);
	struct reading r;
	char why[BAG_ERROR_MESSAGE_MAX + 16];
	const char *bad;

	assert_non_null(want);
	write_cut(f, cut);
	read_bag(cut_path, &r, true);
	/* cut exactly between 1.2 index records: the topics of the whole ones */
	bool by_index = nidx > 0 && ipos < cut && cut < f->len && extra == 0;
	nwant = wanted(whole, e->n, idx, by_index ? nidx : 0, cut, want);
	bad = compare(&r, want, nwant, why, sizeof why);
	if (bad == NULL && extra && !names_byte(r.warnings, e->at))
		bad = "no warning names the byte the record starts at";
	if (bad != NULL)
		print_error("cut at %zu: %s\nwarnings: %s", cut, bad, r.warnings);
	msgs_free(&r.m);
	free(want);
	return bad != NULL;
}

/* A cut inside the header: it opens, or fails with one line. */
static int check_header_cut(const struct file *f, size_t cut)
{
	struct reading r;
	const char *bad = NULL;

	write_cut(f, cut);
	read_bag(cut_path, &r, false);
	if (r.rc != BAG_OK && (r.why[0] == '\0' || strchr(r.why, '\n') != NULL))
		bad = "not one error line";
	if (bad != NULL)
		print_error("cut at %zu inside the header: %s: '%s'\n", cut, bad, r.why);
	msgs_free(&r.m);
	return bad != NULL;
}

static void sweep(void **state)
{
	const char *name = *state;
	char path[512];
	struct file f;
	struct end *e, *idx;
	struct reading whole;
	size_t start, ne, nidx, ipos;
	int failed = 0;

	snprintf(path, sizeof path, OLD "%s.bag", name);
	f = slurp(path);
	e = calloc(f.len + 1, sizeof *e);
	idx = calloc(f.len + 1, sizeof *idx);
	assert_true(e != NULL && idx != NULL);
	ne = record_ends(&f, e + 1, &start);
	e[0] = (struct end){ start, 0, "" };
	nidx = index_records(&f, idx, &ipos);
	read_bag(path, &whole, true);
	assert_int_equal(whole.rc, BAG_OK);
	assert_int_equal(whole.m.n, e[ne].n);
	for (size_t i = 0; i <= ne; i++)
		for (size_t extra = 0; extra <= 3; extra += 3)
			if (e[i].at + extra < f.len || !extra)
				failed += check_cut(&f, &whole.m, &e[i], extra, idx, nidx, ipos);
	for (size_t cut = 1; cut < start; cut++)
		failed += check_header_cut(&f, cut);
	print_message("%s: %zu record boundaries and inside each record, %zu header bytes: %d failed\n", name,
	              ne + 1, start, failed);
	msgs_free(&whole.m);
	free(idx);
	free(e);
	free(f.p);
	assert_int_equal(failed, 0);
}

static int setup(void **state)
{
	(void)state;
	if (mkdtemp(scratch) == NULL)
		return -1;
	snprintf(cut_path, sizeof cut_path, "%s/cut.bag", scratch);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(cut_path);
	return rmdir(scratch);
}

#define SWEEP(name) cmocka_unit_test_prestate(sweep, (void *)name)

int main(void)
{
	const struct CMUnitTest tests[] = {
		SWEEP("gen_v0"),
		SWEEP("gen_v10"),
		SWEEP("gen_v11_roslog"),
		SWEEP("gen_v11_rosrecord"),
		SWEEP("gen_v12_indexed"),
		SWEEP("gen_v12_unindexed"),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
