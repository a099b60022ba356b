/*
 * gen-int.h - the code generator's model, shared by model.c (which builds it
 * and names everything) and emit.c / files.c (which write it out).
 *
 * A type is one (name, md5) pair: a type met on several connections is
 * emitted once; two definitions of one name (a type that changed between
 * recordings) are two types with the md5's first digits in their names.
 * Every name the code declares is an identifier made from the bag's names
 * (any other byte becomes '_'), never a C or C++ keyword, and unique where
 * it must be; the bag's own text reaches the code only through gen_comment()
 * and gen_cstring(), so nothing in a bag can change what the code means.
 */
#ifndef BAGSCOPE_GEN_INT_H
#define BAGSCOPE_GEN_INT_H

#include "gen/gen.h"

/* The longest identifier made from one name of the bag (unique() may add "_N"). */
#define GEN_IDENT_MAX 200

struct gen_field {
	const struct bag_msgdef_field *f;
	char *id;                 /* member name */
	size_t type;              /* the gen_type of a nested message */
};

struct gen_const {
	const struct bag_msgdef_const *c;
	char *id;                 /* C: macro name; C++: member name */
	char *value;              /* literal in the target language; NULL: left out */
};

struct gen_type {
	const struct bag_msgdef_type *t;
	char *cid;                /* C: struct tag and function prefix, "pkg__Name" */
	char *ns, *name;          /* C++: namespace ("" for none) and struct name */
	bool versioned;           /* another definition shares its name */
	int digits;               /* versioned: md5 digits in its name (8, or 32 if 8 do not tell) */
	struct gen_field *fields;
	struct gen_const *consts;
	uint32_t min;             /* fewest bytes a message takes, as the runtime decoder counts */
	bool fixed;               /* every message takes exactly wire bytes */
	uint64_t wire;
	bool heap;                /* holds strings or variable arrays, at any depth */
	bool same;                /* every message takes the same bytes (msgdef.c's "fixed") */
	uint64_t nodes;           /* same: its values and messages, itself included (saturating) */
	uint64_t charge;          /* what its read charges to decode.h's element budget */
};

/* A topic and the types its connections carry, in connection order. */
struct gen_topic {
	const char *name;
	char *id;                 /* file name and identifier: "turtle1_pose" */
	size_t nversions;
	size_t *types;            /* gen_type per version */
	const char **md5sums;     /* the bag's md5sum of each version's first connection */
};

struct gen_model {
	enum gen_lang lang;
	const char *source;       /* the bag's file name */
	struct gen_type *types;   /* dependency order: a type after the types it holds */
	size_t ntypes;
	size_t *type_slots;       /* hash index of types by (name, md5): index + 1, 0 empty */
	size_t type_cap;          /* its size, a power of two over twice ntypes */
	struct gen_topic *topics; /* by name */
	size_t ntopics;
	size_t *roots;            /* the topics' types, each once, in connection order */
	size_t nroots;
	const char *topics_ns;    /* C++: the namespace of the topic constants */
	char **strs;              /* every string the model allocated */
	size_t nstrs, capstrs;
	struct bag_text *warnings;
	bool failed;              /* an allocation failed */
};

/* Build the model of conns; gen_model_free() it in every case. */
int gen_model_build(struct gen_model *m, const struct gen_conn *conns, size_t n);
void gen_model_free(struct gen_model *m);

/*
 * Text of the bag in generated code. gen_comment: s as the lines of a block
 * comment, each starting with indent and " * " (or as one line "indent/ * s * /"
 * when it is one short line), ending with a newline; "*" "/", controls,
 * invalid UTF-8, C1 and bidirectional controls and "??" cannot survive.
 * gen_cstring: s[0..len) as a C/C++ string literal with its quotes.
 * gen_string: s[0..len) as an expression of type const char * for the
 * language (cpp): a literal up to GEN_MAX_LITERAL bytes (what ISO C
 * compilers must support: -pedantic warns past it), else an array of its
 * bytes (C: a compound literal; C++: bag_gen_chars<...>::value, msgs.hpp).
 */
#define GEN_MAX_LITERAL 4095
void gen_comment(struct bag_text *t, const char *indent, const char *s);
void gen_cstring(struct bag_text *t, const char *s, size_t len);
void gen_string(struct bag_text *t, const char *s, size_t len, bool cpp);

/* The ROS size of a primitive on the wire (string: its length field). */
unsigned gen_prim_size(enum bag_prim p);

/* Emitters (emit.c): msgs.h/.c or msgs.hpp/.cpp, and table.h. */
int gen_emit_code(const struct gen_model *m, struct gen_file *header, struct gen_file *source);
int gen_emit_table(const struct gen_model *m, struct gen_file *f);

/* Append a string literal (only a literal compiles). */
#define GEN_APPEND(t, lit) bag_text_append((t), "" lit, sizeof(lit) - 1)

#endif
