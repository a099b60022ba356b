/*
 * gen.c - how fast code from `bagscope gen` decodes against the runtime
 * decoder, one thread. bench/gen.sh builds it with the generated code (C or
 * C++, through table.h):
 *   bench-gen BAG N
 * reads the first N messages of each generated topic into memory, then per
 * topic times, in ns per message (best of 5 passes):
 *   runtime decode   bag_decode() with no visitor (walks every field)
 *   gen decode       the generated decode + release (structs, strings copied)
 *   runtime json     bag_print_json()
 *   gen json         the generated decode + print_json + release
 * and checks that the two JSON texts agree.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bagscope/bagscope.h>

#include "table.h"

struct topic {
	const char *name;
	const struct bag_gen_type *type;
	bag_msgdef_t *def;
	uint8_t **data;
	uint32_t *size;
	size_t n;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

enum { RT_DECODE, GEN_DECODE, RT_JSON, GEN_JSON };

/* One pass of kind over topic tp's messages; returns seconds. */
static double pass(struct topic *tp, int kind, void *msg, struct bag_text *t)
{
	double t0 = now();
	struct bag_error err;

	for (size_t i = 0; i < tp->n; i++) {
		t->len = 0;
		switch (kind) {
		case RT_DECODE:
			bag_decode(tp->def, tp->data[i], tp->size[i], NULL, NULL, NULL, &err);
			break;
		case RT_JSON:
			bag_print_json(t, tp->def, tp->data[i], tp->size[i], &err);
			break;
		default:
			if (tp->type->decode(msg, tp->data[i], tp->size[i]) == BAG_OK) {
				if (kind == GEN_JSON)
					tp->type->print_json(t, msg);
				tp->type->release(msg);
			}
			break;
		}
	}
	return now() - t0;
}

int main(int argc, char **argv)
{
	bag_t *bag = NULL;
	bag_timeline_t *tl = NULL;
	bag_view_t *view = NULL;
	struct bag_query q;
	struct topic *topics;
	size_t per = argc > 2 ? strtoul(argv[2], NULL, 10) : 100000, size = 1;
	void *msg;
	struct bag_text t = { 0 }, u = { 0 };
	static const char *const names[] = { "runtime decode", "gen decode", "runtime json", "gen json" };

	if (argc < 2 || bag_open(&bag, argv[1], NULL) != BAG_OK || bag_timeline_open(&tl, &bag, 1) != BAG_OK) {
		fprintf(stderr, "usage: bench-gen BAG [N]\n");
		return 2;
	}
	topics = calloc(bag_gen_ntopics + 1, sizeof *topics);
	for (size_t i = 0; i < bag_gen_ntypes; i++)
		size = bag_gen_types[i].size > size ? bag_gen_types[i].size : size;
	msg = malloc(size);
	for (size_t k = 0; k < bag_gen_ntopics; k++) {
		struct topic *tp = &topics[k];
		tp->name = bag_gen_topics[k];
		tp->data = calloc(per + 1, sizeof *tp->data);
		tp->size = calloc(per + 1, sizeof *tp->size);
		bag_query_init(&q);
		q.topics = &bag_gen_topics[k];
		q.ntopics = 1;
		bag_view_free(view);
		view = NULL;
		if (bag_view_open(&view, tl, &q) != BAG_OK)
			return 1;
		for (uint64_t row = 0; row < bag_view_count(view) && tp->n < per; row++) {
			struct bag_message m;
			if (bag_view_read(view, row, &m) != BAG_OK)
				continue;
			if (tp->def == NULL) {
				bag_msgdef_parse(&tp->def, m.conn->type, m.conn->definition, strlen(m.conn->definition));
				for (size_t i = 0; i < bag_gen_ntypes; i++)
					if (strcmp(bag_gen_types[i].name, m.conn->type) == 0 &&
					    strcmp(bag_gen_types[i].md5, bag_msgdef_md5(tp->def)) == 0)
						tp->type = &bag_gen_types[i];
			}
			tp->data[tp->n] = malloc(m.size ? m.size : 1);
			memcpy(tp->data[tp->n], m.data, m.size);
			tp->size[tp->n++] = m.size;
		}
		if (tp->type == NULL || tp->n == 0) {
			fprintf(stderr, "bench-gen: %s: no messages or no generated type\n", tp->name);
			return 1;
		}
		/* the two printers agree */
		for (size_t i = 0; i < tp->n; i++) {
			struct bag_error err;
			t.len = u.len = 0;
			bag_print_json(&t, tp->def, tp->data[i], tp->size[i], &err);
			if (tp->type->decode(msg, tp->data[i], tp->size[i]) == BAG_OK) {
				tp->type->print_json(&u, msg);
				tp->type->release(msg);
			}
			if (t.len != u.len || memcmp(t.p, u.p, t.len) != 0) {
				fprintf(stderr, "bench-gen: %s: message %zu prints differently\n", tp->name, i);
				return 1;
			}
		}
		size_t bytes = 0;
		for (size_t i = 0; i < tp->n; i++)
			bytes += tp->size[i];
		printf("%s (%s, %zu messages of %zu bytes on average)\n", tp->name, tp->type->name, tp->n,
		       bytes / tp->n);
		double best[4];
		for (int kind = 0; kind < 4; kind++) {
			best[kind] = 1e9;
			for (int r = 0; r < 5; r++) {
				double s = pass(tp, kind, msg, &t);
				best[kind] = s < best[kind] ? s : best[kind];
			}
		}
		for (int kind = 0; kind < 4; kind++)
			printf("  %-15s %7.1f ns/msg\n", names[kind], best[kind] * 1e9 / (double)tp->n);
		printf("  generated / runtime: decode %.2fx faster, json %.2fx faster\n",
		       best[RT_DECODE] / best[GEN_DECODE], best[RT_JSON] / best[GEN_JSON]);
	}
	bag_text_free(&t);
	bag_text_free(&u);
	return 0;
}
