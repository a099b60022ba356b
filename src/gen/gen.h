/*
 * gen.h - `bagscope gen`: typed C or C++ code from the message definitions a
 * bag carries. The CLI selects connections and parses their definitions;
 * gen_run() turns them into the text of every file of the generated tree
 * (nothing is written here), the same bytes for the same input.
 */
#ifndef BAGSCOPE_GEN_H
#define BAGSCOPE_GEN_H

#include <bagscope/bagscope.h>

enum gen_lang { GEN_C, GEN_CPP };

/* One selected connection: its facts and its parsed definition (borrowed). */
struct gen_conn {
	const char *topic;
	const char *type;
	const char *md5sum;          /* as the bag states it */
	const bag_msgdef_t *def;     /* parsed without error */
};

/* A generated file: a plain name (no directory) and its text. */
struct gen_file {
	char *name;
	struct bag_text text;
};

/*
 * Generate the tree for conns[0..n) (in the bag's connection order) in lang.
 * source names the bag in the files' headings. Sets *files (name order) and
 * *nfiles; appends one line per warning ("pkg/Type: constant X ...") to
 * warnings. Returns 0 or BAG_ENOMEM (then *files is NULL).
 */
int gen_run(const struct gen_conn *conns, size_t n, enum gen_lang lang, const char *source,
            struct gen_file **files, size_t *nfiles, struct bag_text *warnings);

/*
 * Fixed arrays too large to embed: a message type whose struct would take
 * more than GEN_MAX_MESSAGE_BYTES in memory (fixed arrays are members, so
 * `uint8[4294967295]` would make every message 4 GiB, past what a C object
 * may be) is refused: the CLI leaves its connections out, saying so, as it
 * does a definition that does not parse. gen_message_bytes() is that size
 * (strings and vectors counted as std::string and std::vector), saturating.
 */
#define GEN_MAX_MESSAGE_BYTES (UINT64_C(1) << 28)
uint64_t gen_message_bytes(const bag_msgdef_t *def);

/* Free what gen_run() returned; accepts NULL. */
void gen_files_free(struct gen_file *files, size_t nfiles);

#endif
