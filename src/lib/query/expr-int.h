/*
 * expr-int.h - what the expression parser (expr-parse.c), compiler
 * (expr-compile.c) and evaluator (expr-eval.c) share. Never installed.
 *
 * A parsed expression is a flat array of nodes; operands come before the
 * node that uses them, so the root is the last node and a node's index is
 * larger than its operands'. Path components, string bytes, regexes and the
 * per-comparison lists of `[*]` paths live in arrays of the bag_expr.
 *
 * A program has one cnode per node (what the node is on this connection)
 * and the steps of every path: byte skips over fields whose size is fixed,
 * skips that read lengths, array indexing, `[*]` loops and the final read.
 */
#ifndef BAGSCOPE_EXPR_INT_H
#define BAGSCOPE_EXPR_INT_H

#include <regex.h>

#include <bagscope/expr.h>

#define EXPR_MAX_STARS 16     /* `[*]` paths in one expression */
#define EXPR_MAX_DEPTH 200    /* nesting of the parser (and so of the evaluator) */
#define EXPR_NONE UINT32_MAX

/* A value while evaluating. kind is an enum bag_expr_kind. */
struct val {
	uint8_t kind;
	bool has_ns;      /* FLOAT from a literal: ns (+ frac) is its exact value in nanoseconds */
	bool frac;        /* the literal lies strictly between ns and ns + 1 */
	int64_t ns;
	union {
		bool b;
		int64_t i;
		uint64_t u;
		double f;
		int64_t t;    /* TIME: nanoseconds */
		struct {
			const char *p;
			size_t len;
		} s;
	} v;
};

enum node_op {
	N_LIT,        /* number or bool: lit; string: str_off/str_len */
	N_PATH,       /* comp_first/ncomp; is_len for len(path); star slot */
	N_TOPIC, N_TYPE, N_TIME,
	N_TF,         /* tf(TARGET, SOURCE).FIELD: str_off/len the target, tf_src_* the source */
	N_NEG, N_ABS, /* a */
	N_ADD, N_SUB, N_MUL, N_DIV,           /* a, b */
	N_EQ, N_NE, N_LT, N_LE, N_GT, N_GE,   /* comparisons: a, b, stars */
	N_MATCH, N_NOMATCH,                   /* a, regex; stars */
	N_TEST,       /* a used as a test (must be a bool); stars */
	N_NOT,        /* a */
	N_AND, N_OR,  /* a, b */
};

#define IS_CMP(op) ((op) >= N_EQ && (op) <= N_TEST)
#define IS_LOGIC(op) ((op) >= N_NOT)

struct node {
	uint8_t op;
	bool is_len;           /* N_PATH inside len() */
	bool is_str;           /* N_LIT holding a string */
	uint16_t depth;        /* height of its subtree */
	uint32_t pos;          /* byte offset of the token that names it */
	uint32_t start;        /* byte offset where its text starts */
	uint32_t first;        /* lowest node index of its subtree */
	uint32_t a, b;         /* operands, EXPR_NONE if unused */
	uint32_t comp_first;   /* N_PATH: its components; N_MATCH: regex index */
	uint32_t ncomp;
	uint32_t star;         /* N_PATH with [*]: its slot; else EXPR_NONE */
	uint32_t star_first;   /* comparisons: their [*] paths in e->stars */
	uint32_t nstar;
	uint32_t str_off, str_len; /* N_LIT string bytes in e->strs */
	struct val lit;        /* N_LIT number or bool */
	uint32_t tf_src_off, tf_src_len; /* N_TF: the source frame in e->strs */
	uint8_t tf_field;      /* N_TF: index in expr_tf_fields */
};

/* N_TF's fields, in the order of tf_field: x y z, qx qy qz qw, roll pitch yaw. */
extern const char *const expr_tf_fields[10];

enum comp_kind { C_NAME, C_INDEX, C_STAR };

/* One component of a path. */
struct comp {
	uint8_t kind;
	uint32_t pos;
	uint32_t name_off, name_len;  /* C_NAME, in e->strs */
	int64_t index;                /* C_INDEX */
};

struct bag_expr {
	struct node *nodes;
	size_t nnodes, cap_nodes;
	struct comp *comps;
	size_t ncomps, cap_comps;
	char *strs;                   /* names and string literals */
	size_t nstrs, cap_strs;
	regex_t *regexes;
	size_t nregexes, cap_regexes;
	uint32_t stars[EXPR_MAX_STARS]; /* path nodes, grouped by comparison */
	uint32_t nstars;
	uint32_t root;
	bool is_filter;
	bag_expr_tf_fn tf_fn;      /* for N_TF; NULL: every tf() is missing */
	const void *tf_ctx;        /* its first argument */
	struct bag_error err;      /* the last failure (common.h) */
};

/* Static classes of a node on one connection. */
enum cls { CL_FAIL, CL_BOOL, CL_NUM, CL_STR };

struct cnode {
	uint8_t cls;           /* enum cls; CL_FAIL: missing on this connection */
	int8_t konst;          /* tests: 0/1 when known here, -1 when it depends */
	bool fixed;            /* values: same on every message of the connection */
	bool uses_data;        /* reads the message */
	bool fail_sub;         /* it or an operand failed (within one comparison) */
	uint32_t fail_pos;     /* where (for check), when fail_sub */
	uint32_t fail_rank;    /* how far it got: components of a path resolved; type errors beyond */
	char *why;             /* the failure of this node or the operand that failed, owned if own_why */
	bool own_why;
	uint32_t step_first, nstep; /* N_PATH */
};

/* What a path does to the cursor. */
enum step_kind {
	ST_SKIP,    /* n bytes */
	ST_FIELD,   /* skip the whole field op (its lengths read) */
	ST_INDEX,   /* element n (negative: from the end) of array field op */
	ST_STAR,    /* every element of array field op */
	ST_READ,    /* read a prim */
	ST_LEN,     /* op's element count, or a string's length (op EXPR_NONE) */
};

struct step {
	uint8_t kind;
	uint8_t prim;          /* ST_READ */
	uint32_t op;
	int64_t n;
};

/* A copy of one decoder op (msgdef-int.h), with its element size. */
struct pop {
	uint8_t prim, array;
	uint32_t fixed_len;
	uint32_t sub, nsub;
	uint32_t elem_min;     /* fewest bytes an element takes */
	uint32_t esize;        /* bytes of one element when fixed, else ESIZE_VAR */
};
#define ESIZE_VAR UINT32_MAX

struct bag_expr_prog {
	const bag_expr_t *e;
	const struct bag_connection *conn;
	struct cnode *cn;      /* one per node of e */
	struct step *steps;
	size_t nsteps, cap_steps;
	struct pop *ops;
	uint32_t nops;
	size_t topic_len, type_len;
	int konst;
	bool needs_data;
};

/* expr-eval.c: the value of node i when it depends on nothing but the connection */
int expr_eval_fixed(const bag_expr_prog_t *p, uint32_t i, struct val *out);
/* expr-eval.c: out = op (N_NEG, N_ABS: a only; N_ADD ... N_DIV) on a and b */
void expr_arith(uint8_t op, const struct val *a, const struct val *b, struct val *out);

#endif
