/*
 * fuzz-gen.c - a generated decoder against the runtime decoder. make builds
 * the C code `bagscope gen` writes for GEN_BAG (nested_bz2.bag: nested and
 * fixed arrays, strings, times, durations, every integer width) into
 * tests/fuzz/gen/ and links it here. Each input is decoded as every type of
 * its table: the generated decoder must accept exactly the inputs
 * bag_print_json() accepts, print the same text, and never read outside
 * the input or leak (the sanitizers of a fuzzing build). Input: message
 * bytes, bare.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/bagscope.h>

#include "table.h"
#include "fuzz.h"

/* The definition of each table type, from the bag the code was made from. */
static bag_msgdef_t **defs;

static void load_defs(void)
{
	bag_t *bag = NULL;

	defs = calloc(bag_gen_ntypes + 1, sizeof *defs);
	if (defs != NULL && bag_open(&bag, GEN_BAG, NULL) == BAG_OK) {
		for (size_t i = 0; i < bag_conn_count(bag); i++) {
			const struct bag_connection *c = bag_conn(bag, i);
			bag_msgdef_t *d = NULL;
			if (bag_msgdef_parse(&d, c->type, c->definition, strlen(c->definition)) == BAG_OK)
				for (size_t k = 0; k < bag_gen_ntypes && d != NULL; k++)
					if (defs[k] == NULL && strcmp(bag_gen_types[k].name, c->type) == 0 &&
					    strcmp(bag_gen_types[k].md5, bag_msgdef_md5(d)) == 0) {
						defs[k] = d;
						d = NULL;
					}
			bag_msgdef_free(d);
		}
	}
	bag_close(bag);
	for (size_t k = 0; k < bag_gen_ntypes; k++)
		if (defs == NULL || defs[k] == NULL) {
			fprintf(stderr, "fuzz-gen: no definition of %s in %s\n", bag_gen_types[k].name, GEN_BAG);
			abort();
		}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (defs == NULL)
		load_defs();
	for (size_t k = 0; k < bag_gen_ntypes; k++) {
		const struct bag_gen_type *type = &bag_gen_types[k];
		struct bag_text want = { 0 }, got = { 0 };
		void *msg = malloc(type->size);
		struct bag_error err;
		int rw = bag_print_json(&want, defs[k], data, size, &err);
		int rg = msg != NULL ? type->decode(msg, data, size) : BAG_ENOMEM;

		if (rg == BAG_OK) {
			type->print_json(&got, msg);
			type->release(msg);
		}
		if (rg != BAG_ENOMEM && !want.failed && !got.failed &&
		    ((rw == BAG_OK) != (rg == BAG_OK) ||
		     (rw == BAG_OK && (want.len != got.len || memcmp(want.p, got.p, got.len) != 0)))) {
			fprintf(stderr, "fuzz-gen: %s: runtime %s, generated %s\n  %.*s\n  %.*s\n", type->name,
			        bag_strerror(rw), bag_strerror(rg), (int)want.len, want.p ? want.p : "",
			        (int)got.len, got.p ? got.p : "");
			abort();
		}
		bag_text_free(&want);
		bag_text_free(&got);
		free(msg);
	}
	return 0;
}
