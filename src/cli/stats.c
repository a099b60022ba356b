/*
 * stats.c - `bagscope stats [--json] [--index] BAG...`: per topic, the
 * figures an engineer checks first: did it run at its rate, did it drop
 * anything.
 *
 * Two passes. The first reads only the index: each topic's record times (all
 * its connections, in time order; one pass over the timeline, 8 bytes a
 * message), whose consecutive differences are the periods: nearest-rank p50
 * and p99, max, rate = 1 / p50, mean rate = (n - 1) / (last - first), and
 * gaps (periods over 5 x p50). The second is a scan over the messages that
 * reads no more of each than its size and, for types whose first field is a
 * std_msgs/Header, its first 12 bytes (seq, stamp): bytes, bandwidth, header
 * latency (record time - stamp), seq drops and stamps going backwards.
 * --index skips the second pass.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

#define NGAPS 3

struct gap {
	int64_t start_ns;
	int64_t length_ns;
};

/* One topic's figures. */
struct topic_stats {
	const char *topic;
	const char *type;            /* of its first connection */
	bool has_header;             /* every connection's type starts with a Header */
	uint64_t messages;
	int64_t first_ns, last_ns;
	int64_t p50, p99, max;       /* periods; 0 with fewer than 2 messages */
	uint64_t ngaps;
	struct gap gaps[NGAPS];      /* largest first */
	uint64_t bytes;
	int64_t *latency;            /* header topics: one per message (pass 2) */
	int64_t lat_p50, lat_p99, lat_max;
	uint64_t nlatency;
	uint64_t seq_drops;
	uint64_t stamps_backwards;
	bool have_prev;              /* pass 2's previous header */
	uint32_t prev_seq;
	int64_t prev_stamp;
};

struct stats {
	struct bagset cb;
	struct topic_stats *topics;  /* sorted by name */
	size_t ntopics;
	size_t *conn_topic;          /* timeline connection -> topic */
	bool scanned;
};

/* Whether a definition's first field is a std_msgs/Header. */
static bool starts_with_header(const struct bag_connection *c)
{
	bag_msgdef_t *def = NULL;
	const struct bag_msgdef_type *root;
	bool yes = false;

	if (bag_conn_msgdef_parse(&def, c) == BAG_OK &&
	    (root = bag_msgdef_root(def)) != NULL && root->nfields > 0)
		yes = root->fields[0].prim == BAG_PRIM_MESSAGE && root->fields[0].array == BAG_ARRAY_NONE &&
		      strcmp(root->fields[0].type_name, "std_msgs/Header") == 0;
	bag_msgdef_free(def);
	return yes;
}

/* The topics of the timeline, and which topic each connection is on: one sort, then a pass over its runs. */
static int list_topics(struct stats *s)
{
	size_t n = bag_timeline_conn_count(s->cb.tl);
	struct topic_ref *refs = malloc((n ? n : 1) * sizeof *refs);

	s->topics = calloc(n ? n : 1, sizeof *s->topics);
	s->conn_topic = calloc(n ? n : 1, sizeof *s->conn_topic);
	if (refs == NULL || s->topics == NULL || s->conn_topic == NULL) {
		free(refs);
		return BAG_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		refs[i] = (struct topic_ref){ bag_timeline_conn(s->cb.tl, i, NULL)->topic, i };
	qsort(refs, n, sizeof *refs, topic_ref_cmp);
	for (size_t k = 0; k < n; k++) {
		const struct bag_connection *c = bag_timeline_conn(s->cb.tl, refs[k].i, NULL);
		if (k == 0 || strcmp(refs[k - 1].topic, refs[k].topic) != 0)
			s->topics[s->ntopics++] = (struct topic_stats){ .topic = c->topic, .type = c->type,
			                                                .has_header = true };
		s->topics[s->ntopics - 1].has_header &= starts_with_header(c);
		s->conn_topic[refs[k].i] = s->ntopics - 1;
	}
	free(refs);
	return BAG_OK;
}

/* Keep the NGAPS largest gaps, largest first (earlier first among equals). */
static void note_gap(struct topic_stats *t, int64_t start, int64_t len)
{
	size_t k = t->ngaps < NGAPS ? (size_t)t->ngaps : NGAPS;

	t->ngaps++;
	if (k == NGAPS && len <= t->gaps[NGAPS - 1].length_ns)
		return;
	if (k == NGAPS)
		k--;
	while (k > 0 && t->gaps[k - 1].length_ns < len) {
		t->gaps[k] = t->gaps[k - 1];
		k--;
	}
	t->gaps[k] = (struct gap){ start, len };
}

/*
 * The k-th smallest (0-based) of v[0..n), reordering v: a quickselect with
 * a three-way partition (periods repeat a lot), linear on average.
 */
static int64_t select_kth(int64_t *v, uint64_t n, uint64_t k)
{
	uint64_t lo = 0, hi = n;

	while (hi - lo > 1) {
		int64_t a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi - 1];
		int64_t pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
		uint64_t lt = lo, i = lo, gt = hi;
		while (i < gt) {
			int64_t x = v[i];
			if (x < pivot) {
				v[i++] = v[lt];
				v[lt++] = x;
			} else if (x > pivot) {
				v[i] = v[--gt];
				v[gt] = x;
			} else {
				i++;
			}
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return pivot;
	}
	return v[lo];
}

/* The nearest-rank p-th percentile (0 < p <= 100) of v[0..n), reordering v. */
static int64_t rank_select(int64_t *v, uint64_t n, unsigned p)
{
	uint64_t rank = (n * p + 99) / 100;
	return select_kth(v, n, rank ? rank - 1 : 0);
}

/* One topic's figures from its record times (time order), n > 0. */
static void topic_figures(struct topic_stats *t, const int64_t *times, uint64_t n, int64_t *periods)
{
	t->messages = n;
	t->first_ns = times[0];
	t->last_ns = times[n - 1];
	if (n < 2)
		return;
	t->max = INT64_MIN;
	for (uint64_t r = 1; r < n; r++) {
		periods[r - 1] = times[r] - times[r - 1];
		if (periods[r - 1] > t->max)
			t->max = periods[r - 1];
	}
	t->p99 = rank_select(periods, n - 1, 99);
	t->p50 = rank_select(periods, n - 1, 50);
	for (uint64_t r = 1; r < n; r++) {
		int64_t d = times[r] - times[r - 1];
		if (d / 5 > t->p50 || (d / 5 == t->p50 && d % 5 != 0))
			note_gap(t, times[r - 1], d);
	}
}

/*
 * Pass 1: every topic's record times from the index (bag_timeline_times:
 * each topic's times kept apart, 8 bytes a message), then each topic's
 * figures.
 */
static int all_times(struct stats *s)
{
	int64_t **times = calloc(s->ntopics ? s->ntopics : 1, sizeof *times);
	uint64_t *n = calloc(s->ntopics ? s->ntopics : 1, sizeof *n);
	int64_t *periods = NULL;
	uint64_t most = 0;
	int rc = BAG_ENOMEM;

	if (times == NULL || n == NULL)
		goto nomem;
	if ((rc = bag_timeline_times(s->cb.tl, s->conn_topic, s->ntopics, times, n)) != BAG_OK) {
		cli_error("%s", bag_timeline_error(s->cb.tl)->message);
		goto fail;
	}
	for (size_t t = 0; t < s->ntopics; t++)
		most = n[t] > most ? n[t] : most;
	if ((periods = malloc((most ? most : 1) * sizeof *periods)) == NULL)
		goto nomem;
	for (size_t t = 0; t < s->ntopics; t++)
		if (n[t] > 0)
			topic_figures(&s->topics[t], times[t], n[t], periods);
	rc = BAG_OK;
	goto fail;
nomem:
	rc = BAG_ENOMEM;
	cli_error("out of memory for the message times");
fail:
	for (size_t t = 0; times != NULL && t < s->ntopics; t++)
		free(times[t]);
	free(times);
	free(n);
	free(periods);
	return rc;
}

/* Pass 2, on the workers: the stamp and seq of a Header message. */
static int header_work(void *arg, const struct bag_message *m, const bag_msgdef_t *def, struct bag_text *out)
{
	const struct stats *s = arg;
	(void)def;

	if (!s->topics[s->conn_topic[m->conn_index]].has_header || m->size < 12)
		return 0;
	bag_text_append(out, (const char *)m->data, 12);
	return 0;
}

/* Pass 2, in order: bytes, latency, seq and stamp order. */
static int header_emit(void *arg, const struct bag_scan_item *it)
{
	struct stats *s = arg;
	struct topic_stats *t;
	uint32_t seq, secs, nsecs;
	int64_t stamp;

	if (it->rc != BAG_OK) {
		cli_error("%.*s", (int)it->len, it->text);
		return 0;
	}
	t = &s->topics[s->conn_topic[it->m->conn_index]];
	t->bytes += it->m->size;
	if (it->len < 12 || t->nlatency == t->messages)
		return 0;
	memcpy(&seq, it->text, 4);
	memcpy(&secs, it->text + 4, 4);
	memcpy(&nsecs, it->text + 8, 4);
	stamp = bag_time_from_ros(secs, nsecs);
	t->latency[t->nlatency++] = it->m->time_ns - stamp;
	if (t->have_prev) {
		if (seq > t->prev_seq + 1ULL)
			t->seq_drops += seq - t->prev_seq - 1ULL;
		t->stamps_backwards += stamp < t->prev_stamp;
	}
	t->have_prev = true;
	t->prev_seq = seq;
	t->prev_stamp = stamp;
	return 0;
}

static int scan_sizes(struct stats *s)
{
	struct bag_scan_opts o = { .size = sizeof o, .work = header_work, .emit = header_emit, .arg = s };
	bag_view_t *v = NULL;
	int rc;

	for (size_t i = 0; i < s->ntopics; i++) {
		struct topic_stats *t = &s->topics[i];
		if (t->has_header && (t->latency = malloc((t->messages ? t->messages : 1) * sizeof *t->latency)) == NULL) {
			cli_error("out of memory");
			return BAG_ENOMEM;
		}
	}
	if ((rc = bag_view_open(&v, s->cb.tl, NULL)) == BAG_OK)
		rc = bag_scan(v, &o, NULL);
	if (rc != BAG_OK)
		cli_error("%s", bag_view_error(v)->message);
	bag_view_free(v);
	for (size_t i = 0; i < s->ntopics; i++) {
		struct topic_stats *t = &s->topics[i];
		if (t->nlatency == 0)
			continue;
		t->lat_max = INT64_MIN;
		for (uint64_t k = 0; k < t->nlatency; k++)
			t->lat_max = t->latency[k] > t->lat_max ? t->latency[k] : t->lat_max;
		t->lat_p99 = rank_select(t->latency, t->nlatency, 99);
		t->lat_p50 = rank_select(t->latency, t->nlatency, 50);
	}
	s->scanned = rc == BAG_OK;
	return rc;
}

static double rate_hz(int64_t period)
{
	return period > 0 ? 1e9 / (double)period : 0.0;
}

static double mean_rate_hz(const struct topic_stats *t)
{
	return t->messages > 1 && t->last_ns > t->first_ns ?
	       (double)(t->messages - 1) * 1e9 / (double)(t->last_ns - t->first_ns) : 0.0;
}

static double bandwidth(const struct topic_stats *t)
{
	return t->last_ns > t->first_ns ? (double)t->bytes * 1e9 / (double)(t->last_ns - t->first_ns) : 0.0;
}

static void print_json(const struct stats *s)
{
	printf("{\"bags\":[");
	for (size_t b = 0; b < s->cb.nbags; b++) {
		const char *p = bag_path(s->cb.bags[b]);
		if (b)
			putchar(',');
		cli_json_string(stdout, p, strlen(p));
	}
	printf("],\"topics\":[");
	for (size_t i = 0; i < s->ntopics; i++) {
		const struct topic_stats *t = &s->topics[i];
		printf("%s{\"topic\":", i ? "," : "");
		cli_json_string(stdout, t->topic, strlen(t->topic));
		printf(",\"type\":");
		cli_json_string(stdout, t->type, strlen(t->type));
		printf(",\"messages\":%llu,\"first_ns\":%lld,\"last_ns\":%lld", (unsigned long long)t->messages,
		       (long long)t->first_ns, (long long)t->last_ns);
		printf(",\"rate_hz\":%.9g", rate_hz(t->p50));
		printf(",\"mean_rate_hz\":%.9g", mean_rate_hz(t));
		printf(",\"period_ns\":{\"p50\":%lld,\"p99\":%lld,\"max\":%lld}", (long long)t->p50,
		       (long long)t->p99, (long long)t->max);
		printf(",\"gaps\":{\"count\":%llu,\"largest\":[", (unsigned long long)t->ngaps);
		for (uint64_t g = 0; g < t->ngaps && g < NGAPS; g++)
			printf("%s{\"start_ns\":%lld,\"length_ns\":%lld}", g ? "," : "",
			       (long long)t->gaps[g].start_ns, (long long)t->gaps[g].length_ns);
		printf("]}");
		if (s->scanned) {
			printf(",\"bytes\":%llu", (unsigned long long)t->bytes);
			printf(",\"bandwidth_bps\":%.9g", bandwidth(t));
		}
		if (s->scanned && t->has_header && t->nlatency > 0)
			printf(",\"latency_ns\":{\"p50\":%lld,\"p99\":%lld,\"max\":%lld},\"seq_drops\":%llu,"
			       "\"stamps_backwards\":%llu", (long long)t->lat_p50,
			       (long long)t->lat_p99, (long long)t->lat_max, (unsigned long long)t->seq_drops,
			       (unsigned long long)t->stamps_backwards);
		putchar('}');
	}
	printf("]}\n");
}

/* A time as exact epoch seconds: "1600000000.027500000". */
static void epoch(char *buf, size_t len, int64_t ns)
{
	snprintf(buf, len, "%s%lld.%09lld", ns < 0 ? "-" : "", (long long)(ns < 0 ? -(ns / BAG_NSEC_PER_SEC) : ns / BAG_NSEC_PER_SEC),
	         (long long)(ns < 0 ? -(ns % BAG_NSEC_PER_SEC) : ns % BAG_NSEC_PER_SEC));
}

/* A duration in the unit that suits it: "2.50 ms", "1.20 s". */
static void human_ns(char *buf, size_t len, int64_t ns)
{
	double a = (double)(ns < 0 ? -ns : ns);

	if (a >= 1e9)
		snprintf(buf, len, "%.2f s", (double)ns / 1e9);
	else if (a >= 1e6)
		snprintf(buf, len, "%.2f ms", (double)ns / 1e6);
	else if (a >= 1e3)
		snprintf(buf, len, "%.2f us", (double)ns / 1e3);
	else
		snprintf(buf, len, "%lld ns", (long long)ns);
}

static void print_text(const struct stats *s)
{
	char a[48], b[48], c[48], d[48];
	struct term_scratch sc = { 0 };

	for (size_t i = 0; i < s->ntopics; i++) {
		const struct topic_stats *t = &s->topics[i];
		printf("%s%s  (%s)\n", i ? "\n" : "", term_str(&sc, t->topic), term_str(&sc, t->type));
		epoch(a, sizeof a, t->first_ns);
		epoch(b, sizeof b, t->last_ns);
		printf("  messages   %llu, %s to %s\n", (unsigned long long)t->messages, a, b);
		if (t->messages < 2)
			continue;
		snprintf(a, sizeof a, "%.2f", rate_hz(t->p50));
		snprintf(b, sizeof b, "%.2f", mean_rate_hz(t));
		printf("  rate       %s Hz (mean %s Hz)\n", a, b);
		human_ns(a, sizeof a, t->p50);
		human_ns(b, sizeof b, t->p99);
		human_ns(c, sizeof c, t->max);
		printf("  period     p50 %s, p99 %s, max %s\n", a, b, c);
		printf("  gaps       %llu over 5 x p50", (unsigned long long)t->ngaps);
		for (uint64_t g = 0; g < t->ngaps && g < NGAPS; g++) {
			human_ns(a, sizeof a, t->gaps[g].length_ns);
			epoch(b, sizeof b, t->gaps[g].start_ns);
			printf("%s %s at %s", g ? "," : ":", a, b);
		}
		putchar('\n');
		if (s->scanned) {
			snprintf(a, sizeof a, "%.1f", bandwidth(t) / 1e3);
			printf("  bytes      %llu (%s kB/s)\n", (unsigned long long)t->bytes, a);
		}
		if (s->scanned && t->has_header && t->nlatency > 0) {
			human_ns(a, sizeof a, t->lat_p50);
			human_ns(b, sizeof b, t->lat_p99);
			human_ns(c, sizeof c, t->lat_max);
			snprintf(d, sizeof d, "%llu", (unsigned long long)t->seq_drops);
			printf("  latency    p50 %s, p99 %s, max %s (record time - header.stamp)\n", a, b, c);
			printf("  header     %s seq numbers missing, %llu stamp%s going backwards\n", d,
			       (unsigned long long)t->stamps_backwards, BAG_S(t->stamps_backwards));
		}
	}
	term_scratch_free(&sc);
}

static void usage(FILE *out)
{
	fputs("usage: bagscope stats [--json] [--index] BAG...\n"
	      "  --index  times only, from the index (no message is read)\n", out);
}

int cmd_stats(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "index", no_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct stats s = { 0 };
	bool json = false, index_only = false;
	int opt, status = EXIT_USAGE;

	while ((opt = getopt_long(argc, argv, "jih", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j': json = true; break;
		case 'i': index_only = true; break;
		case 'h': usage(stdout); return EXIT_OK;
		default: cli_bad_option(argv); usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	status = EXIT_BAD_INPUT;
	if (bagset_open(&s.cb, argv + optind, (size_t)(argc - optind)) != BAG_OK)
		goto done;
	if (list_topics(&s) != BAG_OK) {
		cli_error("out of memory");
		goto done;
	}
	if (all_times(&s) != BAG_OK)
		goto done;
	if (!index_only && scan_sizes(&s) != BAG_OK)
		goto done;
	if (json)
		print_json(&s);
	else
		print_text(&s);
	status = EXIT_OK;
done:
	for (size_t i = 0; i < s.ntopics; i++)
		free(s.topics[i].latency);
	free(s.topics);
	free(s.conn_topic);
	bagset_close(&s.cb);
	return status;
}
