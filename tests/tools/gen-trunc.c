/*
 * gen-trunc.c - generated decoders against the runtime decoder on a bag's
 * messages, for tests/cli/gen.sh, which builds it with the code `bagscope gen`
 * wrote (C or C++, through table.h) under AddressSanitizer and UBSan:
 *   gen-trunc BAG
 * For the first messages of each connection on the generated topics, the
 * generated decoder must accept the message and print what bag_print_json()
 * prints, and must refuse every truncation shorter than the bytes the
 * runtime decoder uses (each in a buffer of exactly its length, so that a
 * read past the end is caught); the shortest complete one must pass.
 * Messages longer than 4 KiB are cut at their first and last 2 KiB and at
 * 1024 places between. Prints "N messages, M truncations"; exit 1 on a failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/bagscope.h>

#include "table.h"

#define PER_CONN 20

/* The generated type and the parsed definition of conn, or NULL. */
static const struct bag_gen_type *lookup(const struct bag_connection *conn, bag_msgdef_t **def)
{
	const struct bag_gen_type *found = NULL;

	if (bag_msgdef_parse(def, conn->type, conn->definition, strlen(conn->definition)) == BAG_OK)
		for (size_t i = 0; i < bag_gen_ntypes; i++)
			if (strcmp(bag_gen_types[i].name, conn->type) == 0 &&
			    strcmp(bag_gen_types[i].md5, bag_msgdef_md5(*def)) == 0)
				found = &bag_gen_types[i];
	return found;
}

/* Decode data[0..len) from a copy of exactly len bytes; print it when asked. */
static int decode_copy(const struct bag_gen_type *type, const uint8_t *data, size_t len, void *msg,
                       struct bag_text *t)
{
	uint8_t *copy = malloc(len ? len : 1);
	int rc;

	if (copy == NULL)
		return BAG_ENOMEM;
	memcpy(copy, data, len);
	rc = type->decode(msg, copy, len);
	if (rc == BAG_OK) {
		if (t != NULL)
			type->print_json(t, msg);
		type->release(msg);
	}
	free(copy);
	return rc;
}

int main(int argc, char **argv)
{
	bag_t *bag = NULL;
	bag_timeline_t *tl = NULL;
	bag_view_t *view = NULL;
	struct bag_query q;
	bag_msgdef_t **defs = NULL;
	const struct bag_gen_type **types = NULL;
	unsigned *seen = NULL;
	void *msg = NULL;
	size_t size = 1, nmsgs = 0, ncuts = 0;
	int failed = 0;

	if (argc != 2 || bag_open(&bag, argv[1], NULL) != BAG_OK || bag_timeline_open(&tl, &bag, 1) != BAG_OK) {
		fprintf(stderr, "gen-trunc: cannot open %s\n", argc > 1 ? argv[1] : "(no bag)");
		return 1;
	}
	bag_query_init(&q);
	q.topics = bag_gen_topics;
	q.ntopics = bag_gen_ntopics;
	for (size_t i = 0; i < bag_gen_ntypes; i++)
		size = bag_gen_types[i].size > size ? bag_gen_types[i].size : size;
	defs = calloc(bag_timeline_conn_count(tl) + 1, sizeof *defs);
	types = calloc(bag_timeline_conn_count(tl) + 1, sizeof *types);
	seen = calloc(bag_timeline_conn_count(tl) + 1, sizeof *seen);
	msg = malloc(size);
	if (defs == NULL || types == NULL || seen == NULL || msg == NULL || bag_view_open(&view, tl, &q) != BAG_OK) {
		fprintf(stderr, "gen-trunc: out of memory\n");
		return 1;
	}
	for (uint64_t row = 0; bag_gen_ntopics > 0 && row < bag_view_count(view); row++) {
		struct bag_message m;
		struct bag_text want = { 0 }, got = { 0 };
		struct bag_error err;
		size_t used;

		if (bag_view_read(view, row, &m) != BAG_OK || seen[m.conn_index]++ >= PER_CONN)
			continue;
		if (seen[m.conn_index] == 1)
			types[m.conn_index] = lookup(m.conn, &defs[m.conn_index]);
		const struct bag_gen_type *type = types[m.conn_index];
		bag_msgdef_t *def = defs[m.conn_index];
		if (type == NULL || bag_decode(def, m.data, m.size, NULL, NULL, &used, &err) != BAG_OK) {
			fprintf(stderr, "gen-trunc: %s: row %llu: no generated type, or the runtime refuses it\n",
			        m.conn->topic, (unsigned long long)row);
			failed = 1;
			continue;
		}
		nmsgs++;
		bag_print_json(&want, def, m.data, m.size, &err);
		if (decode_copy(type, m.data, m.size, msg, &got) != BAG_OK || got.len != want.len ||
		    memcmp(got.p, want.p, got.len) != 0) {
			fprintf(stderr, "gen-trunc: %s: row %llu: the generated decoder does not print what cat does\n",
			        m.conn->topic, (unsigned long long)row);
			failed = 1;
		}
		bag_text_free(&want);
		bag_text_free(&got);
		size_t step = used > 4096 ? used / 1024 : 1;
		for (size_t len = 0; len < used; len += len < 2048 || len + 2048 >= used ? 1 : step) {
			ncuts++;
			if (decode_copy(type, m.data, len, msg, NULL) == BAG_OK) {
				fprintf(stderr, "gen-trunc: %s: row %llu: %zu of %zu bytes decode\n", m.conn->topic,
				        (unsigned long long)row, len, used);
				failed = 1;
				break;
			}
		}
		if (decode_copy(type, m.data, used, msg, NULL) != BAG_OK) {
			fprintf(stderr, "gen-trunc: %s: row %llu: the %zu bytes the message takes do not decode\n",
			        m.conn->topic, (unsigned long long)row, used);
			failed = 1;
		}
	}
	printf("%zu messages, %zu truncations\n", nmsgs, ncuts);
	for (size_t i = 0; i < bag_timeline_conn_count(tl); i++)
		bag_msgdef_free(defs[i]);
	free(defs);
	free(types);
	free(seen);
	free(msg);
	bag_view_free(view);
	bag_timeline_free(tl);
	bag_close(bag);
	return failed;
}
