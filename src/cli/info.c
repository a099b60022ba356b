/*
 * info.c - `bagscope info [--json] [--freq] BAG...`: what `rosbag info`
 * prints, from the index section alone (plus each chunk's record header for
 * the compression figures). --freq loads the full timeline for each topic's
 * median rate.
 *
 * The facts of one bag are gathered into struct bag_facts first, then
 * printed either as rosbag's aligned table or as one JSON object.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"

struct topic_facts {
	const char *topic;
	const char *type;          /* its first connection's */
	uint64_t messages;
	size_t connections;
	double freq;               /* median rate, Hz; 0 when unknown */
};

struct type_facts {
	const char *type;
	const char *md5;           /* its first connection's */
};

struct compression_facts {
	enum bag_compression kind;
	size_t chunks;
	uint64_t size;             /* uncompressed */
	uint64_t compressed;
};

struct bag_facts {
	bag_t *bag;
	struct topic_facts *topics;   /* sorted by name */
	size_t ntopics;
	size_t *conn_topic;           /* per connection (bag_conn() order): its topic */
	struct type_facts *types;     /* sorted by name */
	size_t ntypes;
	struct compression_facts comp[3];   /* sorted: most chunks first */
	size_t ncomp;
	size_t nchunks;
	uint64_t size, compressed;
	bool freq_done;
};

/* rosbag's order: more chunks first, then the name in reverse. */
static int cmp_comp(const void *a, const void *b)
{
	const struct compression_facts *x = a, *y = b;
	if (x->chunks != y->chunks)
		return x->chunks > y->chunks ? -1 : 1;
	return -strcmp(bag_compression_name(x->kind), bag_compression_name(y->kind));
}

/* Connections (pointers) by topic, or by type, then by index: qsort comparators. */
static int cmp_index(const struct bag_connection *x, const struct bag_connection *y)
{
	return (x->index > y->index) - (x->index < y->index);
}

static int cmp_conn_topic(const void *a, const void *b)
{
	const struct bag_connection *x = *(const struct bag_connection *const *)a;
	const struct bag_connection *y = *(const struct bag_connection *const *)b;
	int c = strcmp(x->topic, y->topic);
	return c ? c : cmp_index(x, y);
}

static int cmp_conn_type(const void *a, const void *b)
{
	const struct bag_connection *x = *(const struct bag_connection *const *)a;
	const struct bag_connection *y = *(const struct bag_connection *const *)b;
	int c = strcmp(x->type, y->type);
	return c ? c : cmp_index(x, y);
}

static void swap_d(double *a, double *b)
{
	double t = *a;
	*a = *b;
	*b = t;
}

/*
 * The k-th smallest of v[0..n) (k < n); v is reordered so that v[0..k) <=
 * v[k] <= v[k+1..n). Quickselect with a three-way partition (runs of equal
 * values end it at once) and the median of three as pivot.
 */
static double select_kth(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n;          /* k lies in [lo, hi) */

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2, lt = lo, i = lo, gt = hi;
		double a = v[lo], b = v[mid], c = v[hi - 1];
		double pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));

		/* v[lo..lt) < pivot, v[lt..i) == pivot, v[gt..hi) > pivot */
		while (i < gt) {
			if (v[i] < pivot)
				swap_d(&v[lt++], &v[i++]);
			else if (v[i] > pivot)
				swap_d(&v[i], &v[--gt]);
			else
				i++;
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return pivot;
	}
	return v[k];
}

/* rosbag's _median: the middle value, or the mean of the two middle ones. */
static double median(double *v, size_t n)
{
	double upper = select_kth(v, n, n / 2), lower = upper;

	if (n % 2 == 0) {
		lower = v[0];                       /* the largest of v[0..n/2) */
		for (size_t i = 1; i < n / 2; i++)
			if (v[i] > lower)
				lower = v[i];
	}
	return (lower + upper) / 2;
}

/* A receipt time as rosbag's Time.to_sec() gives it. */
static double ros_to_sec(int64_t ns)
{
	return (double)(ns / BAG_NSEC_PER_SEC) + (double)(ns % BAG_NSEC_PER_SEC) / 1e9;
}

/*
 * Each topic's median rate as `rosbag info --freq` gives it: the periods
 * between consecutive stamps (rosbag's float seconds) of the topic's messages
 * in time order, their median, its inverse. The times come from the index
 * alone (bag_timeline_times: 8 bytes a message); each topic's periods are
 * written over its times, in place.
 */
static int gather_freq(struct bag_facts *f)
{
	bag_timeline_t *tl = NULL;
	size_t nt = f->ntopics;
	int64_t **times = calloc(nt ? nt : 1, sizeof *times);
	uint64_t *n = calloc(nt ? nt : 1, sizeof *n);
	int rc = BAG_ENOMEM;

	if (times == NULL || n == NULL) {
		cli_error("out of memory");
		goto fail;
	}
	if ((rc = bag_timeline_open(&tl, &f->bag, 1)) != BAG_OK ||
	    (rc = bag_timeline_times(tl, f->conn_topic, nt, times, n)) != BAG_OK) {
		cli_error("%s", bag_timeline_error(tl)->message);
		goto fail;
	}
	for (size_t t = 0; t < nt; t++) {
		int64_t prev;
		double med;
		if (n[t] < 2)
			continue;
		/* period k - 1 is stored where time k - 1 was, once that is read */
		prev = times[t][0];
		for (uint64_t k = 1; k < n[t]; k++) {
			double p = ros_to_sec(times[t][k]) - ros_to_sec(prev);
			prev = times[t][k];
			memcpy(&times[t][k - 1], &p, sizeof p);
		}
		med = median((double *)times[t], (size_t)(n[t] - 1));
		if (med > 0)
			f->topics[t].freq = 1.0 / med;
	}
	f->freq_done = true;
	rc = BAG_OK;
fail:
	for (size_t t = 0; times != NULL && t < nt; t++)
		free(times[t]);
	free(times);
	free(n);
	bag_timeline_free(tl);
	return rc;
}

static void facts_free(struct bag_facts *f)
{
	free(f->topics);
	free(f->conn_topic);
	free(f->types);
}

/*
 * Group the connections by topic and by type: sort them by name (then index,
 * so a group's first is its lowest-numbered connection, as rosbag takes it).
 */
static int group_conns(struct bag_facts *f)
{
	size_t nconns = bag_conn_count(f->bag);
	const struct bag_connection **by = malloc((nconns ? nconns : 1) * sizeof *by);

	f->topics = calloc(nconns ? nconns : 1, sizeof *f->topics);
	f->types = calloc(nconns ? nconns : 1, sizeof *f->types);
	f->conn_topic = calloc(nconns ? nconns : 1, sizeof *f->conn_topic);
	if (by == NULL || f->topics == NULL || f->types == NULL || f->conn_topic == NULL) {
		free(by);
		cli_error("out of memory");
		return BAG_ENOMEM;
	}
	for (size_t i = 0; i < nconns; i++)
		by[i] = bag_conn(f->bag, i);
	if (nconns > 1)
		qsort(by, nconns, sizeof *by, cmp_conn_topic);
	for (size_t i = 0; i < nconns; i++) {
		const struct bag_connection *c = by[i];
		if (i == 0 || strcmp(c->topic, by[i - 1]->topic) != 0)
			f->topics[f->ntopics++] = (struct topic_facts){ c->topic, c->type, 0, 0, 0 };
		f->topics[f->ntopics - 1].messages += c->message_count;
		f->topics[f->ntopics - 1].connections++;
		f->conn_topic[c->index] = f->ntopics - 1;
	}
	if (nconns > 1)
		qsort(by, nconns, sizeof *by, cmp_conn_type);
	for (size_t i = 0; i < nconns; i++)
		if (i == 0 || strcmp(by[i]->type, by[i - 1]->type) != 0)
			f->types[f->ntypes++] = (struct type_facts){ by[i]->type, by[i]->md5sum };
	free(by);
	return BAG_OK;
}

/* Everything info prints about one open bag. */
static int gather(struct bag_facts *f, bag_t *bag, bool freq)
{
	struct bag_chunk_info ci;
	int rc;

	memset(f, 0, sizeof *f);
	f->bag = bag;
	if ((rc = group_conns(f)) != BAG_OK)
		return rc;
	f->nchunks = bag_chunk_count(bag);
	for (size_t i = 0; i < f->nchunks; i++) {
		size_t k;
		if ((rc = bag_chunk_stat(bag, i, &ci)) == BAG_ENOMEM || rc == BAG_EIO) {
			cli_error("%s", bag_last_error(bag)->message);
			return rc;
		}
		if (rc != BAG_OK) {
			/* the rest comes from the index: say what is wrong with this chunk, go on */
			cli_error("warning: %s", bag_last_error(bag)->message);
			continue;
		}
		for (k = 0; k < f->ncomp && f->comp[k].kind != ci.compression; k++)
			;
		if (k == f->ncomp)
			f->comp[f->ncomp++].kind = ci.compression;
		f->comp[k].chunks++;
		f->comp[k].size += ci.size;
		f->comp[k].compressed += ci.compressed_size;
		f->size += ci.size;
		f->compressed += ci.compressed_size;
	}
	if (f->ncomp > 1)
		qsort(f->comp, f->ncomp, sizeof *f->comp, cmp_comp);
	return freq ? gather_freq(f) : BAG_OK;
}

/* rosbag's sizes: "848.0 KB". */
static void human_size(char *buf, size_t len, double size)
{
	static const char *const suffix[] = { "KB", "MB", "GB", "TB", "PB", "EB" };

	for (size_t i = 0; i < sizeof suffix / sizeof *suffix; i++) {
		size /= 1024.0;
		if (size < 1024.0 || i + 1 == sizeof suffix / sizeof *suffix) {
			snprintf(buf, len, "%.1f %s", size, suffix[i]);
			return;
		}
	}
}

static void human_freq(char *buf, size_t len, double freq)
{
	static const char *const suffix[] = { "Hz", "kHz", "MHz", "GHz" };
	size_t i = 0;

	while (freq >= 1000.0 && i + 1 < sizeof suffix / sizeof *suffix) {
		freq /= 1000.0;
		i++;
	}
	snprintf(buf, len, "%.1f %s", freq, suffix[i]);
}

/* "Mar 31 2014 19:24:47.84 (1396293887.84)" in local time. */
static void human_time(char *buf, size_t len, int64_t ns)
{
	time_t secs = (time_t)(ns / BAG_NSEC_PER_SEC);
	int centi = (int)((ns % BAG_NSEC_PER_SEC + 5000000) / 10000000);
	struct tm tm;
	char date[64];

	if (centi > 99)
		centi = 99;
	localtime_r(&secs, &tm);
	strftime(date, sizeof date, "%b %d %Y %H:%M:%S", &tm);
	snprintf(buf, len, "%s.%02d (%.2f)", date, centi, (double)ns / 1e9);
}

struct row {
	const char *field;
	char *value;
};

static void add_row(struct row *rows, size_t *n, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void add_row(struct row *rows, size_t *n, const char *field, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&rows[*n].value, fmt, ap) < 0)
		rows[*n].value = NULL;
	va_end(ap);
	rows[*n].field = field;
	(*n)++;
}

/* Duration, start and end; returns the duration in seconds. */
static double time_rows(struct row *rows, size_t *nrows, bag_t *bag)
{
	int64_t start = bag_start_time(bag), end = bag_end_time(bag);
	double dur = (double)end / 1e9 - (double)start / 1e9;
	char b[96];
	/* whole seconds in 64 bits: a bag may span 1970 to 2106 (2^32 s, past an int) */
	long long secs = (long long)dur;

	if (dur >= 3600)
		add_row(rows, nrows, "duration", "%lldhr %lld:%02llds (%llds)", secs / 3600, secs / 60 % 60, secs % 60, secs);
	else if (dur >= 60)
		add_row(rows, nrows, "duration", "%lld:%02llds (%llds)", secs / 60, secs % 60, secs);
	else
		add_row(rows, nrows, "duration", "%.1fs", dur);
	if (bag_relative_times(bag)) {
		/* an old recorder's durations since it started, not dates */
		add_row(rows, nrows, "start", "+%.2fs (times are durations since the recording started)",
		        (double)start / 1e9);
		add_row(rows, nrows, "end", "+%.2fs", (double)end / 1e9);
	} else {
		human_time(b, sizeof b, start);
		add_row(rows, nrows, "start", "%s", b);
		human_time(b, sizeof b, end);
		add_row(rows, nrows, "end", "%s", b);
	}
	return dur;
}

/* "lz4 [3/4 chunks; 41.20%], none [1/4 chunks]"; the sizes before and after, and per second. */
static void compression_rows(struct row *rows, size_t *nrows, const struct bag_facts *f, double dur)
{
	char comp[256] = "", a[96], b[96];
	size_t at = 0;

	/* rosbag2 sqlite3: zstd per message (compression_mode MESSAGE) or none; its spans' sizes are estimates */
	if (strncmp(bag_format(f->bag), "rosbag2", 7) == 0) {
		add_row(rows, nrows, "compression", "%s", f->ncomp == 1 ? bag_compression_name(f->comp[0].kind) : "none");
		return;
	}
	/* "[1/1 chunks]": rosbag info's own words, kept for its readers (tests/cli/golden.sh) */
	for (size_t k = 0; k < f->ncomp; k++) {
		const struct compression_facts *c = &f->comp[k];
		if (c->kind == BAG_COMPRESSION_NONE)
			at += (size_t)snprintf(comp + at, sizeof comp - at, "%s%s [%zu/%zu chunks]",
			                       k ? ", " : "", "none", c->chunks, f->nchunks);
		else
			at += (size_t)snprintf(comp + at, sizeof comp - at, "%s%s [%zu/%zu chunks; %.2f%%]",
			                       k ? ", " : "", bag_compression_name(c->kind), c->chunks,
			                       f->nchunks, c->size ? 100.0 * (double)c->compressed / (double)c->size : 0);
	}
	/* a bag older than 2.0 has no chunks: rosbag says "none" */
	add_row(rows, nrows, "compression", "%s",
	        strcmp(bag_format(f->bag), "2.0") && strncmp(bag_format(f->bag), "mcap", 4) ? "none" : comp);
	if (f->ncomp == 1 && f->comp[0].kind == BAG_COMPRESSION_NONE)
		return;
	human_size(a, sizeof a, (double)f->size);
	human_size(b, sizeof b, (double)f->compressed);
	int w = (int)(strlen(a) > strlen(b) ? strlen(a) : strlen(b));
	if (dur > 0) {
		char ra[64], rb[64];
		human_size(ra, sizeof ra, (double)f->size / dur);
		human_size(rb, sizeof rb, (double)f->compressed / dur);
		int rw = (int)(strlen(ra) > strlen(rb) ? strlen(ra) : strlen(rb));
		add_row(rows, nrows, "uncompressed", "%*s @ %*s/s", w, a, rw, ra);
		add_row(rows, nrows, "compressed", "%*s @ %*s/s (%.2f%%)", w, b, rw, rb,
		        100.0 * (double)f->compressed / (double)f->size);
	} else {
		add_row(rows, nrows, "uncompressed", "%*s", w, a);
		add_row(rows, nrows, "compressed", "%*s", w, b);
	}
}

/* The types with their md5, then the topics in aligned columns (escaped text, its width as printed). */
static void type_topic_rows(struct row *rows, size_t *nrows, const struct bag_facts *f, struct term_scratch *sc)
{
	int tw = 0, cw = 0, fw = 0, yw = 0;
	char num[32], fr[32];

	for (size_t i = 0; i < f->ntypes; i++) {
		int n = (int)strlen(term_str(sc, f->types[i].type));
		yw = n > yw ? n : yw;
	}
	for (size_t i = 0; i < f->ntopics; i++) {
		const struct topic_facts *t = &f->topics[i];
		int n = (int)strlen(term_str(sc, t->topic));
		tw = n > tw ? n : tw;
		cw = snprintf(num, sizeof num, "%llu", (unsigned long long)t->messages) > cw ? (int)strlen(num) : cw;
		if (t->freq > 0) {
			human_freq(fr, sizeof fr, t->freq);
			fw = (int)strlen(fr) > fw ? (int)strlen(fr) : fw;
		}
	}
	for (size_t i = 0; i < f->ntypes; i++)
		add_row(rows, nrows, i ? "" : "types", "%-*s [%s]", yw, term_str(sc, f->types[i].type),
		        term_str(sc, f->types[i].md5));
	for (size_t i = 0; i < f->ntopics; i++) {
		const struct topic_facts *t = &f->topics[i];
		char conns[48] = "";
		if (t->freq > 0)
			human_freq(fr, sizeof fr, t->freq);
		if (t->connections > 1)
			snprintf(conns, sizeof conns, " (%zu connection%s)", t->connections, BAG_S(t->connections));
		add_row(rows, nrows, i ? "" : "topics", "%-*s   %*llu %s%s%*s : %-*s%s", tw,
		        term_str(sc, t->topic), cw, (unsigned long long)t->messages,
		        t->messages > 1 ? "msgs" : "msg ", t->freq > 0 ? " @ " : "   ", fw,
		        t->freq > 0 ? fr : "", yw, term_str(sc, t->type), conns);
	}
}

/* "field:   value" lines, the labels padded to one width; frees the values. */
static void print_rows(struct row *rows, size_t nrows)
{
	size_t width = 0;

	for (size_t i = 0; i < nrows; i++)
		if (strlen(rows[i].field) + 1 > width)
			width = strlen(rows[i].field) + 1;
	for (size_t i = 0; i < nrows; i++) {
		char label[32];
		size_t len;
		snprintf(label, sizeof label, "%s%s", rows[i].field, rows[i].field[0] ? ":" : "");
		len = strlen(rows[i].value ? rows[i].value : "");
		while (len > 0 && rows[i].value[len - 1] == ' ' && i + 1 == nrows)
			rows[i].value[--len] = '\0';
		printf("%-*s %s\n", (int)width, label, rows[i].value ? rows[i].value : "");
		free(rows[i].value);
	}
}

/* rosbag info's layout. */
/* An MCAP file's attachments and metadata records, a row each. */
static void print_items(struct row *rows, size_t *nrows, struct term_scratch *sc, const struct bag_file_info *fi)
{
	size_t na = 0, nm = 0;
	char sz[32];

	for (size_t i = 0; i < fi->nitems; i++) {
		const struct bag_file_item *it = &fi->items[i];
		human_size(sz, sizeof sz, (double)it->size);
		if (it->media_type != NULL) {
			char mt[256];
			snprintf(mt, sizeof mt, "%s", term_str(sc, it->media_type));
			add_row(rows, nrows, na++ ? "" : "attachments", "%s (%s, %s)", term_str(sc, it->name), mt, sz);
		}
	}
	for (size_t i = 0; i < fi->nitems; i++)
		if (fi->items[i].media_type == NULL)
			add_row(rows, nrows, nm++ ? "" : "metadata", "%s", term_str(sc, fi->items[i].name));
}

static void print_text(const struct bag_facts *f)
{
	bag_t *bag = f->bag;
	size_t nrows = 0;
	struct bag_file_info fi;
	struct row *rows;
	struct term_scratch sc = { 0 };
	char a[96];

	bag_file_info(bag, &fi);
	if ((rows = calloc(18 + f->ntypes + f->ntopics + fi.nitems, sizeof *rows)) == NULL)
		return;
	add_row(rows, &nrows, "path", "%s", term_str(&sc, bag_path(bag)));
	add_row(rows, &nrows, "version", "%s", bag_format(bag));
	if (strcmp(fi.container, "bag") != 0) {
		add_row(rows, &nrows, "profile", "%s", fi.profile[0] ? term_str(&sc, fi.profile) : "(none)");
		add_row(rows, &nrows, "library", "%s", term_str(&sc, fi.library));
	}
	print_items(rows, &nrows, &sc, &fi);
	human_size(a, sizeof a, (double)bag_file_size(bag));
	if (f->nchunks == 0) {
		add_row(rows, &nrows, "size", "%s", a);
	} else {
		double dur = time_rows(rows, &nrows, bag);
		add_row(rows, &nrows, "size", "%s", a);
		add_row(rows, &nrows, "messages", "%llu", (unsigned long long)bag_message_count(bag));
		compression_rows(rows, &nrows, f, dur);
		type_topic_rows(rows, &nrows, f, &sc);
	}
	print_rows(rows, nrows);
	free(rows);
	term_scratch_free(&sc);
}

/* "attachments" [{name, media_type, size}] and "metadata" [name], when the file has any. */
static void json_items(const struct bag_file_info *fi)
{
	for (int pass = 0; pass < 2; pass++) {
		size_t n = 0;
		for (size_t i = 0; i < fi->nitems; i++) {
			const struct bag_file_item *it = &fi->items[i];
			if ((it->media_type != NULL) != (pass == 0))
				continue;
			fputs(n++ ? "," : pass ? ",\"metadata\":[" : ",\"attachments\":[", stdout);
			if (pass == 1) {
				cli_json_string(stdout, it->name, strlen(it->name));
				continue;
			}
			fputs("{\"name\":", stdout);
			cli_json_string(stdout, it->name, strlen(it->name));
			fputs(",\"media_type\":", stdout);
			cli_json_string(stdout, it->media_type, strlen(it->media_type));
			printf(",\"size\":%llu}", (unsigned long long)it->size);
		}
		if (n > 0)
			fputc(']', stdout);
	}
}

static void print_json(const struct bag_facts *f)
{
	bag_t *bag = f->bag;
	int major, minor;
	int64_t start = bag_start_time(bag), end = bag_end_time(bag);

	struct bag_file_info fi;

	bag_version(bag, &major, &minor);
	bag_file_info(bag, &fi);
	fputs("{\"path\":", stdout);
	cli_json_string(stdout, bag_path(bag), strlen(bag_path(bag)));
	/* format: the container (issue 20); bag_format: what `rosbag info` calls the version ("1.2 (unindexed)") */
	printf(",\"version\":%d.%d,\"format\":\"%s\",\"bag_format\":\"%s\",\"profile\":", major, minor, fi.container,
	       bag_format(bag));
	cli_json_string(stdout, fi.profile, strlen(fi.profile));
	if (fi.library[0]) {
		fputs(",\"library\":", stdout);
		cli_json_string(stdout, fi.library, strlen(fi.library));
	}
	json_items(&fi);
	printf(",\"size\":%llu,\"messages\":%llu,\"indexed\":%s,"
	       "\"relative_times\":%s", (unsigned long long)bag_file_size(bag),
	       (unsigned long long)bag_message_count(bag), strstr(bag_format(bag), "unindexed") ? "false" : "true",
	       bag_relative_times(bag) ? "true" : "false");
	if (bag_message_count(bag) > 0)
		printf(",\"duration\":%.9f,\"start\":%.9f,\"end\":%.9f,\"start_ns\":%lld,\"end_ns\":%lld",
		       (double)(end - start) / 1e9, (double)start / 1e9, (double)end / 1e9,
		       (long long)start, (long long)end);
	if (f->ncomp > 0)
		printf(",\"compression\":\"%s\",\"uncompressed\":%llu,\"compressed\":%llu,\"chunks\":%zu",
		       bag_compression_name(f->comp[0].kind), (unsigned long long)f->size,
		       (unsigned long long)f->compressed, f->nchunks);
	fputs(",\"types\":[", stdout);
	for (size_t i = 0; i < f->ntypes; i++) {
		fputs(i ? ",{\"type\":" : "{\"type\":", stdout);
		cli_json_string(stdout, f->types[i].type, strlen(f->types[i].type));
		fputs(",\"md5\":", stdout);
		cli_json_string(stdout, f->types[i].md5, strlen(f->types[i].md5));
		fputc('}', stdout);
	}
	fputs("],\"topics\":[", stdout);
	for (size_t i = 0; i < f->ntopics; i++) {
		const struct topic_facts *t = &f->topics[i];
		fputs(i ? ",{\"topic\":" : "{\"topic\":", stdout);
		cli_json_string(stdout, t->topic, strlen(t->topic));
		fputs(",\"type\":", stdout);
		cli_json_string(stdout, t->type, strlen(t->type));
		printf(",\"messages\":%llu,\"connections\":%zu", (unsigned long long)t->messages, t->connections);
		if (f->freq_done)
			printf(",\"frequency\":%.6g", t->freq);
		fputc('}', stdout);
	}
	fputs("]}\n", stdout);
}

static void usage(FILE *out)
{
	fputs("usage: bagscope info [--json] [--freq] BAG...\n", out);
}

int cmd_info(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "freq", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false, freq = false;
	int opt, status = EXIT_OK;

	while ((opt = getopt_long(argc, argv, "jfh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j': json = true; break;
		case 'f': freq = true; break;
		case 'h': usage(stdout); return EXIT_OK;
		default: cli_bad_option(argv); usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	for (int i = optind; i < argc; i++) {
		struct bag_facts f;
		bag_t *bag;
		int rc = bagset_open_one(&bag, argv[i]);

		if (rc != BAG_OK) {
			bag_close(bag);
			status = EXIT_BAD_INPUT;
			continue;
		}
		/* rosbag reads an indexed 1.2 bag's whole index, and prints its rates */
		if (gather(&f, bag, freq || strcmp(bag_format(bag), "1.2") == 0) == BAG_OK) {
			if (!json && i > optind)
				puts("---");
			json ? print_json(&f) : print_text(&f);
		} else {
			status = EXIT_BAD_INPUT;
		}
		facts_free(&f);
		bag_close(bag);
	}
	return status;
}
