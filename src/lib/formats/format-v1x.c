/*
 * format-v1x.c - the line-based formats of 2008-2009:
 *
 *   1.1  "#ROSRECORD V1.1" or "#ROSLOG V1.1", then records of three lines
 *        (topic, md5sum, datatype), u32 sec, u32 nsec, u32 len, len bytes;
 *   1.0  "#ROSLOG V1.0" (or "##MULTILOG##"), a topic count line, count
 *        times three lines (topic and two of datatype / md5sum), then
 *        records of a topic line, sec, nsec, len and the bytes;
 *   0    no version line: three lines for the one topic, then records of
 *        sec, nsec, len and the bytes.
 *
 * Writers disagree on the order of the datatype and md5sum lines, and the
 * md5sum is often "*" (recorded as any type): a line of 32 hex digits is the
 * md5sum, a line with a '/' the datatype, else the writer's order. Each
 * distinct topic / type / md5 is a connection (for 1.1 the key is the
 * record's three lines; for 1.0 its topic line). Times are kept as stored:
 * the #ROSLOG and version-0 writers stored durations since the recording
 * started. No message definitions: format-old.c looks them up in .msg files.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/record.h>
#include "lib/formats/format-int.h"
#include "lib/common/util-int.h"

#define TOPICS_MAX 100000           /* a 1.0 topic table's count */

/*
 * The line at p (avail bytes): its length without '\n'. Returns 0,
 * BAG_ETRUNCATED (no '\n' in avail, which is short of a line's limit) or
 * BAG_ECORRUPT.
 */
static int line(const uint8_t *p, size_t avail, size_t *len, char *why, size_t whylen)
{
	const uint8_t *nl = memchr(p, '\n', avail < OLD_LINE_MAX + 1 ? avail : OLD_LINE_MAX + 1);

	if (nl == NULL && avail <= OLD_LINE_MAX)
		return BAG_ETRUNCATED;
	if (nl == NULL) {
		snprintf(why, whylen, "text line longer than %d bytes", OLD_LINE_MAX);
		return BAG_ECORRUPT;
	}
	*len = (size_t)(nl - p);
	return BAG_OK;
}

/* Parse a record of 1.1, 1.0 or 0 at p; as the 1.2 reader's parser. */
static int v1x_parse(const struct oldfmt *f, const uint8_t *p, size_t avail, struct old_rec *r, char *why,
                     size_t whylen)
{
	size_t at = 0, len;
	int nlines = f->kind == OLD_V11 ? 3 : f->kind == OLD_V10 ? 1 : 0, rc;

	memset(r, 0, sizeof *r);
	r->what = OLD_REC_MSG;
	r->key = p;
	for (int i = 0; i < nlines; i++) {
		if ((rc = line(p + at, avail - at, &len, why, whylen)) != BAG_OK)
			return rc;
		if (i == 0 && len == 0) {
			snprintf(why, whylen, "record with an empty topic line");
			return BAG_ECORRUPT;
		}
		at += len + 1;
	}
	r->key_len = at ? at - 1 : 0;
	if (f->kind == OLD_V10 && strmap_get(&f->conns, r->key, r->key_len) < 0) {
		snprintf(why, whylen, "record on topic '%.*s', which the topic table does not list",
		         (int)(r->key_len > 64 ? 64 : r->key_len), (const char *)r->key);
		return BAG_ECORRUPT;
	}
	if (avail - at < 12)
		return BAG_ETRUNCATED;
	r->time_ns = bag_time_from_ros(bag_le32(p + at), bag_le32(p + at + 4));
	r->data_len = bag_le32(p + at + 8);
	r->size = at + 12 + (uint64_t)r->data_len;
	return BAG_OK;
}

/* A 32-hex-digit md5sum. */
static bool md5_like(const uint8_t *s, size_t n)
{
	if (n != 32)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') || (s[i] >= 'A' && s[i] <= 'F')))
			return false;
	return true;
}

/*
 * Which of two lines a and b is the datatype and which the md5sum, by
 * content; md5_first gives the writer's order when content cannot tell.
 */
static void classify(const uint8_t *a, size_t na, const uint8_t *b, size_t nb, bool md5_first,
                     struct old_conn_desc *d)
{
	bool a_md5 = md5_like(a, na), b_md5 = md5_like(b, nb);
	bool a_type = memchr(a, '/', na) != NULL, b_type = memchr(b, '/', nb) != NULL;
	bool md5_is_a = a_md5 && !b_md5 ? true : b_md5 && !a_md5 ? false :
	                a_type && !b_type ? false : b_type && !a_type ? true : md5_first;

	d->md5 = (const char *)(md5_is_a ? a : b);
	d->md5_len = md5_is_a ? na : nb;
	d->type = (const char *)(md5_is_a ? b : a);
	d->type_len = md5_is_a ? nb : na;
	d->def = NULL;            /* none: format-old.c looks for a .msg file */
	d->def_len = 0;
}

/* Split the three lines at p (key_len bytes) and classify them. */
static void three_lines(const uint8_t *p, size_t n, bool md5_first, struct old_conn_desc *d)
{
	const uint8_t *l2 = memchr(p, '\n', n), *l3;

	memset(d, 0, sizeof *d);
	d->topic = (const char *)p;
	d->topic_len = (size_t)(l2 - p);
	l2++;
	l3 = memchr(l2, '\n', n - (size_t)(l2 - p));
	l3++;
	classify(l2, (size_t)(l3 - 1 - l2), l3, n - (size_t)(l3 - p), md5_first, d);
}

/* Whether buf (len bytes, the file's first) starts a version-0 bag. */
static bool v0_detect(const uint8_t *buf, size_t len, uint64_t file_size)
{
	size_t at = 0, n[3];
	const uint8_t *l[3];
	char why[64];

	if (len == 0 || buf[0] == '#')
		return false;
	for (int i = 0; i < 3; i++) {
		if (line(buf + at, len - at, &n[i], why, sizeof why) != BAG_OK || n[i] == 0)
			return false;
		l[i] = buf + at;
		for (size_t k = 0; k < n[i]; k++)
			if (l[i][k] < 0x20 || l[i][k] > 0x7e)
				return false;
		at += n[i] + 1;
	}
	bool md5ish2 = md5_like(l[1], n[1]) || (n[1] == 1 && l[1][0] == '*');
	bool md5ish3 = md5_like(l[2], n[2]) || (n[2] == 1 && l[2][0] == '*');
	bool type2 = memchr(l[1], '/', n[1]) != NULL || (n[1] == 1 && l[1][0] == '*');
	bool type3 = memchr(l[2], '/', n[2]) != NULL || (n[2] == 1 && l[2][0] == '*');
	if (!((md5ish2 && type3) || (md5ish3 && type2)))
		return false;
	if (at == file_size)
		return true;                      /* the lines and no message yet */
	/* the first record's length fits in the file (when it is in buf) */
	return len - at < 12 || bag_le32(buf + at + 8) <= file_size - at - 12;
}

/* ---- the header of 1.0 and 0: lines read from the file ---- */

struct lines {
	bag_t *bag;
	uint64_t pos;             /* next line */
	uint8_t buf[OLD_LINE_MAX + 1];
};

/* The next line of the file (NUL-terminated in l->buf). */
static int next_line(struct lines *l, size_t *len)
{
	bag_t *bag = l->bag;
	uint64_t left = bag->file_size - l->pos;
	size_t n = left < sizeof l->buf ? (size_t)left : sizeof l->buf;
	char why[128];
	int rc;

	if (n == 0 || (rc = bag_read_at(bag, l->pos, l->buf, n)) != BAG_OK)
		return bag_fail(bag, BAG_ETRUNCATED, l->pos, "the file ends inside its header lines");
	rc = line(l->buf, n, len, why, sizeof why);
	if (rc == BAG_ETRUNCATED)
		return bag_fail(bag, BAG_ETRUNCATED, l->pos, "the file ends inside its header lines");
	if (rc != BAG_OK)
		return bag_fail(bag, BAG_ECORRUPT, l->pos, "%s", why);
	l->buf[*len] = '\0';
	l->pos += *len + 1;
	return BAG_OK;
}

/* Read a topic's three header lines into a new connection, keyed by its topic. */
static int header_topic(struct lines *l, size_t *conn_cap, bool md5_first)
{
	bag_t *bag = l->bag;
	uint8_t *text = malloc(3 * (OLD_LINE_MAX + 1));
	size_t at = 0, n;
	struct old_conn_desc d;
	int rc = BAG_OK;

	if (text == NULL)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	for (int i = 0; i < 3; i++) {
		uint64_t where = l->pos;
		if ((rc = next_line(l, &n)) != BAG_OK)
			goto fail;
		if (i == 0 && n == 0) {
			rc = bag_fail(bag, BAG_ECORRUPT, where, "empty topic name in the header");
			goto fail;
		}
		memcpy(text + at, l->buf, n);
		text[at + n] = '\n';
		at += n + 1;
	}
	three_lines(text, at - 1, md5_first, &d);
	/* a topic listed twice keeps its first entry */
	if (strmap_get(&old_of(bag)->conns, d.topic, d.topic_len) >= 0)
		goto fail;
	if ((rc = strmap_put(&old_of(bag)->conns, d.topic, d.topic_len, (uint32_t)bag->nconns)) != BAG_OK) {
		rc = bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
		goto fail;
	}
	rc = old_conn_add(bag, conn_cap, &d);
fail:
	free(text);
	return rc;
}

/* ---- the scan ---- */

struct v1x_scan {
	bag_t *bag;
	struct spans sp;
	size_t conn_cap;
};

static int scan_rec(void *arg, const struct old_rec *r, uint64_t pos)
{
	struct v1x_scan *s = arg;
	bag_t *bag = s->bag;
	long conn = old_of(bag)->kind == OLD_V0 ? 0 : strmap_get(&old_of(bag)->conns, r->key, r->key_len);
	int rc;

	if (conn < 0) {
		/* 1.1: a new topic / md5sum / type */
		struct old_conn_desc d;
		three_lines(r->key, r->key_len, true, &d);
		conn = (long)bag->nconns;
		if ((rc = old_conn_add(bag, &s->conn_cap, &d)) != BAG_OK)
			return rc;
		if (strmap_put(&old_of(bag)->conns, r->key, r->key_len, (uint32_t)conn) != BAG_OK)
			return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	}
	return spans_add(&s->sp, pos, r->size, r->data_len, (uint32_t)conn, r->time_ns);
}

/* Read a 1.1, 1.0 or version-0 bag's connections and spans (f->body after the version line). */
static int v1x_read(bag_t *bag, const struct bag_open_opts *o)
{
	struct oldfmt *f = old_of(bag);
	struct v1x_scan s = { .bag = bag, .sp = { .bag = bag } };
	struct lines *l = NULL;
	uint64_t end;
	size_t n;
	int rc = BAG_OK;

	(void)o;
	if (f->kind != OLD_V11) {
		if ((l = malloc(sizeof *l)) == NULL)
			return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
		l->bag = bag;
		l->pos = f->body;
	}
	if (f->kind == OLD_V10) {
		char *e;
		long count;
		uint64_t where = l->pos;
		if ((rc = next_line(l, &n)) != BAG_OK)
			goto fail;
		count = strtol((const char *)l->buf, &e, 10);
		if (n == 0 || *e != '\0' || count < 0 || count > TOPICS_MAX) {
			rc = bag_fail(bag, BAG_ECORRUPT, where, "topic count line '%.16s' is not a number up to %d",
			              (const char *)l->buf, TOPICS_MAX);
			goto fail;
		}
		for (long i = 0; i < count; i++)
			if ((rc = header_topic(l, &s.conn_cap, false)) != BAG_OK)
				goto fail;
	} else if (f->kind == OLD_V0) {
		if ((rc = header_topic(l, &s.conn_cap, false)) != BAG_OK)
			goto fail;
	}
	if (l != NULL)
		f->body = bag->body_pos = l->pos;
	if ((rc = old_scan(bag, f->body, scan_rec, &s, &end)) == BAG_OK)
		rc = spans_cut(&s.sp, end);
fail:
	free(l);
	spans_free(&s.sp);
	return rc;
}

/* Whether buf starts with the line s (s includes its '\n'). */
static bool starts(const uint8_t *buf, size_t len, const char *s)
{
	size_t n = strlen(s);
	return len >= n && memcmp(buf, s, n) == 0;
}

/* Which line-based format the file's first bytes are; false when none. */
static bool v1x_kind(const uint8_t *h, size_t len, uint64_t size, enum old_kind *kind, bool *roslog,
                     uint64_t *body)
{
	*roslog = !starts(h, len, "#ROSRECORD V1.1\n");
	*body = *roslog ? 13 : 16;
	if (!*roslog || starts(h, len, "#ROSLOG V1.1\n"))
		*kind = OLD_V11;
	else if (starts(h, len, "#ROSLOG V1.0\n") || starts(h, len, "##MULTILOG##\n"))
		*kind = OLD_V10;
	else if (v0_detect(h, len, size)) {
		*kind = OLD_V0;
		*roslog = false;
		*body = 0;
	} else
		return false;
	return true;
}

static bool v1x_detect(const uint8_t *head, size_t len, uint64_t size)
{
	enum old_kind kind;
	bool roslog;
	uint64_t body;

	return v1x_kind(head, len, size, &kind, &roslog, &body);
}

static int v1x_open(bag_t *bag, const struct bag_open_opts *o)
{
	uint8_t head[READER_HEAD_BYTES];
	size_t got = bag->file_size < sizeof head ? (size_t)bag->file_size : sizeof head;
	enum old_kind kind;
	bool roslog;
	uint64_t body;
	int rc;

	if ((rc = bag_read_at(bag, 0, head, got)) != BAG_OK)
		return rc;
	if (!v1x_kind(head, got, bag->file_size, &kind, &roslog, &body))
		return bag_fail(bag, BAG_ENOTBAG, 0, "not a bag of version 1.1, 1.0 or 0");
	return old_open(bag, o, kind, roslog, body, v1x_parse, v1x_read);
}

const struct bag_reader bag_reader_v1x = {
	.name = "1.1",
	.detect = v1x_detect,
	.open = v1x_open,
	.read_span = old_span_read,
	.free = old_free,
};
