/*
 * print-int.h - what the printers (print-json.c, print-yaml.c, print-csv.c,
 * print-summary.c) share from text.c and from each other. Never installed.
 */
#ifndef BAGSCOPE_PRINT_INT_H
#define BAGSCOPE_PRINT_INT_H

#include <bagscope/print.h>

/* A printer's stack: a message and an array per nesting level. */
#define DEPTH (2 * BAG_MSGDEF_MAX_DEPTH + 2)

/* Room for more bytes; false (and t->failed) when out of memory. */
bool text_reserve(struct bag_text *t, size_t more);
void text_char(struct bag_text *t, char c);
void text_str(struct bag_text *t, const char *s);
void text_i64(struct bag_text *t, int64_t v);
void text_u64(struct bag_text *t, uint64_t u);

/*
 * The shortest digits that read back to d (finite, not 0; its sign
 * ignored), closest to d among those: digits[0..n) (no trailing zeros) with
 * the first at 10^*exp10. Returns n (1..17). shortest.c.
 */
int shortest_digits(double d, char digits[20], int *exp10);

/* d as bag_text_double writes it (Python's repr), in out; its length (<= 24). */
size_t text_repr(char out[32], double d);

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if none. */
int utf8_seq(const uint8_t *s, size_t n);

/* Run the decoder with a printer's visitor; a failed buffer is BAG_ENOMEM. */
int print_run(struct bag_text *t, const bag_msgdef_t *def, const uint8_t *data, size_t len,
              const struct bag_visitor *vis, void *ud, struct bag_error *err);

/* The JSON printer's stack (the summary nests the same way). */
struct json_state {
	struct bag_text *t;
	int depth;
	bool first[DEPTH];          /* nothing written yet at this level */
	bool array[DEPTH];          /* an array: items have no keys */
};

/* A scalar as JSON (print-json.c). */
void print_json_value(struct bag_text *t, const struct bag_value *v);

/* A scalar as rostopic prints it (print-yaml.c; also CSV's and the summary's). */
void yaml_scalar_text(struct bag_text *t, const struct bag_value *v);

#endif
