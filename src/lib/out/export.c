/*
 * export.c - bag_export(): a view's messages through the scan engine into
 * the bag or MCAP writer (see export.h).
 *
 * The order of the job: check the target (not an input, not an existing
 * file unless forced), choose the compression (counting the inputs' chunk
 * records when none is given), open the writer (a temporary file), write
 * the latched messages kept from before the view's start, then scan the
 * view with keep_data and write each message from emit, on the calling
 * thread, in order. A sink hides which writer is behind; ids maps each
 * timeline connection to its writer handle + 1 (0: not added yet), so a
 * connection is added at its first message and connections without one
 * never appear. Anything that goes wrong before the writer's close leaves
 * only its temporary file, which freeing the writer removes.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <bagscope/export.h>
#include <bagscope/mcap.h>
#include <bagscope/write.h>
#include "lib/formats/bag-int.h"
#include "lib/common/util-int.h"
#include "lib/index/view-int.h"

/* The writer behind an export. */
struct sink {
	enum bag_export_format format;
	bag_writer_t *bag;
	bag_mcap_writer_t *mcap;
};

struct export {
	const struct bag_export_opts *o;
	struct bag_export_result *res;
	struct sink sink;
	bag_timeline_t *tl;
	uint32_t *ids;            /* per timeline connection: handle + 1, 0 = none yet */
	enum bag_encoding encoding; /* the connections' (one kind per output) */
};

/* A latched message kept from before the view's start. */
struct latched {
	int64_t time_ns;
	size_t conn;              /* timeline connection index */
	uint8_t *data;
	uint32_t size;
};

static const struct bag_error *sink_error(const struct sink *s)
{
	return s->format == BAG_EXPORT_MCAP ? bag_mcap_writer_error(s->mcap) : bag_writer_error(s->bag);
}

static int sink_write(struct export *e, size_t conn, int64_t time_ns, const void *data, uint32_t size)
{
	struct sink *s = &e->sink;
	const struct bag_connection *c;
	uint32_t id;
	int rc;

	if (e->ids[conn] == 0) {
		c = bag_timeline_conn(e->tl, conn, NULL);
		rc = s->format == BAG_EXPORT_MCAP ? bag_mcap_writer_add_conn(s->mcap, c->topic, c->fields, c->nfields, &id)
		                                  : bag_writer_add_conn(s->bag, c->topic, c->fields, c->nfields, &id);
		if (rc != BAG_OK)
			return rc;
		e->ids[conn] = id + 1;
	}
	id = e->ids[conn] - 1;
	rc = s->format == BAG_EXPORT_MCAP ? bag_mcap_writer_write(s->mcap, id, time_ns, data, size)
	                                  : bag_writer_write_conn(s->bag, id, time_ns, data, size);
	if (rc == BAG_OK) {
		if (e->res->messages++ == 0 || time_ns < e->res->start_ns)
			e->res->start_ns = time_ns;
		if (time_ns > e->res->end_ns)
			e->res->end_ns = time_ns;
	}
	return rc;
}

/* Say what was lost through the caller's callback: len bytes of text. */
static void say_lost(struct export *e, const char *text, size_t len)
{
	char line[1024];

	if (e->o->lost == NULL)
		return;
	if (len >= sizeof line)
		len = sizeof line - 1;
	memcpy(line, text, len);
	line[len] = '\0';
	e->o->lost(e->o->lost_arg, line);
}

/* Scan emit: write the message, or count and tell what was lost. */
static int emit(void *arg, const struct bag_scan_item *it)
{
	struct export *e = arg;

	if (it->rc != BAG_OK) {
		say_lost(e, it->text, it->len);
		return 0;
	}
	return sink_write(e, it->m->conn_index, it->m->time_ns, it->m->data, it->m->size);
}

/* Refuse out when it is one of the inputs, a directory, or exists unforced. */
static int check_target(bag_timeline_t *tl, const char *out, bool force, struct bag_error *err)
{
	struct stat so;

	if (stat(out, &so) != 0)
		return BAG_OK;
	if (S_ISDIR(so.st_mode)) {
		return bag_error_say(err, BAG_EINVAL, "%s: is a directory", out);
	}
	for (size_t b = 0; b < bag_timeline_bag_count(tl); b++) {
		bag_t *bag = bag_timeline_bag(tl, b);
		if (bag_is_file(bag, &so)) {
			return bag_error_say(err, BAG_EINVAL, "%s: is the input %s: an export never writes over its input", out,
			        bag_path(bag));
		}
	}
	if (!force) {
		return bag_error_say(err, BAG_EINVAL, "%s: exists (not replaced unless forced)", out);
	}
	return BAG_OK;
}

/* The compression asked for, or the most common among the inputs' chunks. */
static int choose_compression(bag_timeline_t *tl, const struct bag_export_opts *o, enum bag_compression *c,
                              struct bag_error *err)
{
	uint64_t n[4] = { 0 };

	if (o->compression != NULL) {
		if (bag_compression_parse(o->compression, strlen(o->compression), c) != BAG_OK) {
			return bag_error_say(err, BAG_EINVAL, "unknown compression '%s' (none, bz2, lz4 or zstd)", o->compression);
		}
		if (o->format == BAG_EXPORT_MCAP && *c == BAG_COMPRESSION_BZ2) {
			return bag_error_say(err, BAG_EINVAL, "MCAP chunks are zstd, lz4 or uncompressed: bz2 is not an MCAP compression");
		}
		if (o->format != BAG_EXPORT_MCAP && *c == BAG_COMPRESSION_ZSTD) {
			return bag_error_say(err, BAG_EINVAL, "bag chunks are bz2, lz4 or uncompressed: zstd is not a bag compression");
		}
		return BAG_OK;
	}
	for (size_t b = 0; b < bag_timeline_bag_count(tl); b++) {
		bag_t *bag = bag_timeline_bag(tl, b);
		for (size_t i = 0; i < bag_chunk_count(bag); i++) {
			struct bag_chunk_info ci;
			if (bag_chunk_stat(bag, i, &ci) == BAG_OK && (unsigned)ci.compression < 4)
				n[ci.compression]++;
		}
	}
	*c = BAG_COMPRESSION_NONE;
	for (int k = 1; k < 4; k++)
		if (n[k] > n[*c])
			*c = (enum bag_compression)k;
	if (o->format == BAG_EXPORT_MCAP && *c == BAG_COMPRESSION_BZ2)
		*c = BAG_COMPRESSION_LZ4;
	if (o->format != BAG_EXPORT_MCAP && *c == BAG_COMPRESSION_ZSTD)
		*c = BAG_COMPRESSION_LZ4;
#ifndef HAVE_LZ4
	if (*c == BAG_COMPRESSION_LZ4 && o->format == BAG_EXPORT_MCAP)
		*c = BAG_COMPRESSION_NONE;
#endif
	return BAG_OK;
}

static int cmp_latched(const void *a, const void *b)
{
	const struct latched *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return (x->conn > y->conn) - (x->conn < y->conn);
}

/* The last message of connection i before start, into *l (l->data NULL: none). */
static int last_before(struct export *e, size_t i, int64_t start, struct latched *l)
{
	size_t nconns = bag_timeline_conn_count(e->tl);
	bool *mask = calloc(nconns, sizeof *mask);
	bag_view_t *lv = NULL;
	struct bag_query q;
	struct bag_message m;
	uint64_t n;
	int rc = BAG_ENOMEM;

	if (mask == NULL)
		goto fail;
	mask[i] = true;
	bag_query_init(&q);
	q.end_ns = start - 1;
	q.conn_mask = mask;
	if ((rc = bag_view_open(&lv, e->tl, &q)) != BAG_OK)
		goto lost;
	/* reading the last row's index may correct the count: ask again */
	for (int tries = 0; tries < 4 && (n = bag_view_count(lv)) > 0; tries++)
		if ((rc = bag_view_entry(lv, n - 1, &m)) != BAG_OK || bag_view_count(lv) == n)
			break;
	if (rc != BAG_OK)
		goto lost;
	if ((n = bag_view_count(lv)) == 0)
		goto fail;
	if ((rc = bag_view_read(lv, n - 1, &m)) != BAG_OK)
		goto lost;
	rc = BAG_ENOMEM;
	if ((l->data = malloc(m.size ? m.size : 1)) == NULL)
		goto fail;
	memcpy(l->data, m.data, m.size);
	l->size = m.size;
	l->time_ns = m.time_ns;
	l->conn = i;
	rc = BAG_OK;
	goto fail;
lost:
	if (rc == BAG_ENOMEM)
		goto fail;
	e->res->lost++;
	say_lost(e, bag_view_error(lv)->message, strlen(bag_view_error(lv)->message));
	rc = BAG_OK;
fail:
	bag_view_free(lv);
	free(mask);
	return rc;
}

/* Write each selected latched connection's last message before the view's start. */
static int write_latched(struct export *e, bag_view_t *view)
{
	size_t nconns = bag_timeline_conn_count(e->tl), n = 0;
	struct latched *l = calloc(nconns ? nconns : 1, sizeof *l);
	int64_t start, end;
	int rc = BAG_ENOMEM;

	if (l == NULL)
		goto fail;
	view_mask(view, &start, &end);
	rc = BAG_OK;
	if (start == BAG_TIME_MIN)
		goto fail;
	for (size_t i = 0; i < nconns; i++) {
		if (!bag_view_selects(view, i) || !bag_timeline_conn(e->tl, i, NULL)->latching)
			continue;
		if ((rc = last_before(e, i, start, &l[n])) != BAG_OK)
			goto fail;
		n += l[n].data != NULL;
	}
	bag_sort(l, n, sizeof *l, cmp_latched);
	for (size_t k = 0; k < n && rc == BAG_OK; k++)
		rc = sink_write(e, l[k].conn, l[k].time_ns, l[k].data, l[k].size);
	if (rc == BAG_OK)
		e->res->latched = n;
fail:
	for (size_t k = 0; l != NULL && k < nconns; k++)
		free(l[k].data);
	free(l);
	return rc;
}

/*
 * Readers for the scan: every core when nothing is compressed; otherwise
 * half of them, since the compressors (as many as the cores, the writing
 * thread one of them) do the heavier half of the work, and more busy
 * threads than cores slow bz2 and lz4 down through cache refills.
 */
static unsigned scan_threads(const struct bag_export_opts *o, enum bag_compression c)
{
	unsigned n = o->threads;

	if (n == 0) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		n = cores < 1 ? 1 : (unsigned)cores;
	}
	return c == BAG_COMPRESSION_NONE ? n : (n + 1) / 2;
}

/*
 * The encoding of the timeline's connections: ROS 2 (CDR) ones go only to
 * MCAP's ros2 profile, and one output holds one kind.
 */
static int source_encoding(bag_timeline_t *tl, const struct bag_export_opts *o, enum bag_encoding *enc,
                           struct bag_error *err)
{
	bool ros1 = false, cdr = false;

	for (size_t i = 0; i < bag_timeline_conn_count(tl); i++) {
		const struct bag_connection *c = bag_timeline_conn(tl, i, NULL);
		ros1 |= c->encoding == BAG_ENCODING_ROS1;
		cdr |= c->encoding == BAG_ENCODING_CDR;
	}
	*enc = cdr ? BAG_ENCODING_CDR : BAG_ENCODING_ROS1;
	if (cdr && o->format != BAG_EXPORT_MCAP)
		return bag_error_say(err, BAG_EINVAL, "ROS 2 (CDR) messages cannot go into a ROS 1 bag: the type systems "
		                     "differ (export them with --format mcap)");
	if (cdr && ros1)
		return bag_error_say(err, BAG_EINVAL, "ROS 1 and ROS 2 (CDR) messages cannot share one MCAP file: its "
		                     "profile is one or the other");
	return BAG_OK;
}

static int sink_open(struct export *e, const char *out, enum bag_compression c)
{
	const struct bag_export_opts *o = e->o;

	e->sink.format = o->format;
	if (o->format == BAG_EXPORT_MCAP) {
		struct bag_mcap_opts mo = BAG_MCAP_OPTS_INIT;
		mo.encoding = e->encoding;
		mo.compression = c;
		mo.chunk_size = o->chunk_size;
		mo.threads = o->threads;
		mo.no_replace = !o->force;
		return bag_mcap_writer_open(&e->sink.mcap, out, &mo);
	}
	struct bag_writer_opts wo = BAG_WRITER_OPTS_INIT;
	wo.compression = c;
	wo.chunk_threshold = o->chunk_size;
	wo.threads = o->threads;
	wo.no_replace = !o->force;
	return bag_writer_open(&e->sink.bag, out, &wo);
}

/* Every row of view through the filter into the sink; the counts into e->res. */
static int export_rows(struct export *e, bag_view_t *view)
{
	const struct bag_export_opts *o = e->o;
	struct bag_scan_opts so = { .size = sizeof so };
	struct bag_scan_stats st = { 0 };
	int rc;

	so.threads = scan_threads(o, e->res->compression);
	so.filter = o->filter;
	so.keep_data = true;
	so.emit = emit;
	so.arg = e;
	so.progress = o->progress;
	so.progress_arg = o->progress_arg;
	rc = bag_scan(view, &so, &st);
	e->res->filtered = st.filtered;
	e->res->lost += st.failed + st.lost;
	return rc;
}

/* Close the sink (the file goes in place) and note what it holds. */
static int sink_finish(struct export *e, const char *out)
{
	bool mcap = e->o->format == BAG_EXPORT_MCAP;
	struct stat sb;
	int rc = mcap ? bag_mcap_writer_close(e->sink.mcap) : bag_writer_close(e->sink.bag);

	if (rc != BAG_OK)
		return rc;
	e->res->connections = mcap ? bag_mcap_writer_channel_count(e->sink.mcap) : bag_writer_conn_count(e->sink.bag);
	e->res->chunks = mcap ? bag_mcap_writer_chunk_count(e->sink.mcap) : bag_writer_chunk_count(e->sink.bag);
	if (stat(out, &sb) == 0)
		e->res->bytes = (uint64_t)sb.st_size;
	return BAG_OK;
}

BAG_API int bag_export(bag_view_t *view, const char *out, const struct bag_export_opts *opts,
                       struct bag_export_result *res, struct bag_error *err)
{
	struct bag_export_opts o;
	struct bag_export_result r = { 0 };
	struct export e = { .o = &o, .res = &r };
	int rc;

	bag_error_clear(err);
	if (view == NULL || out == NULL || *out == '\0' || bag_opts_read(&o, sizeof o, opts) != BAG_OK ||
	    (o.format != BAG_EXPORT_BAG && o.format != BAG_EXPORT_MCAP)) {
		rc = bag_error_say(err, BAG_EINVAL, "bag_export: a view, an output path and options from "
		                   "BAG_EXPORT_OPTS_INIT are needed");
		goto done;
	}
	e.tl = view_timeline(view);
	for (size_t b = 0; b < bag_timeline_bag_count(e.tl); b++) {
		struct bag_recovery rep;
		bag_recovery_report(bag_timeline_bag(e.tl, b), &rep);
		r.input_losses += rep.nlosses;
	}
	if ((rc = check_target(e.tl, out, o.force, err)) != BAG_OK ||
	    (rc = choose_compression(e.tl, &o, &r.compression, err)) != BAG_OK ||
	    (rc = source_encoding(e.tl, &o, &e.encoding, err)) != BAG_OK)
		goto done;
	if ((e.ids = calloc(bag_timeline_conn_count(e.tl) + 1, sizeof *e.ids)) == NULL) {
		rc = bag_error_say(err, BAG_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = sink_open(&e, out, r.compression)) != BAG_OK)
		goto sink_failed;
	if (o.keep_latched && (rc = write_latched(&e, view)) != BAG_OK)
		goto sink_failed;
	rc = export_rows(&e, view);
	if (rc == BAG_EEXPR) {
		bag_error_copy(err, bag_expr_error(o.filter));
		goto done;
	}
	if (rc == BAG_ECANCELED) {
		bag_error_say(err, rc, "%s: cancelled: not written", out);
		goto done;
	}
	if (rc != BAG_OK && sink_error(&e.sink)->code != BAG_OK)
		goto sink_failed;
	if (rc != BAG_OK) {
		if (rc == BAG_ENOMEM)
			bag_error_say(err, rc, "out of memory");
		else
			bag_error_copy(err, bag_view_error(view));
		goto done;
	}
	if ((rc = sink_finish(&e, out)) == BAG_OK)
		goto done;
sink_failed:
	bag_error_copy(err, sink_error(&e.sink));
done:
	bag_writer_free(e.sink.bag);
	bag_mcap_writer_free(e.sink.mcap);
	free(e.ids);
	if (res != NULL)
		*res = r;
	return rc;
}
