/*
 * fuzz-expr.c - the expression parser, compiler and evaluator. Input: a
 * 2-byte little-endian length n, n bytes of definition text, a 2-byte
 * little-endian length m (its top bit set: parse a value expression, not a
 * filter), m & 0x7fff bytes of expression, then the message bytes. The
 * expression is parsed; if it parses it is compiled against the definition
 * (and against none, as a connection whose definition does not parse),
 * checked, and evaluated on the message, copied to a buffer of its exact
 * size so that any read past it is caught.
 */
#include <stdlib.h>
#include <string.h>

#include <bagscope/bagscope.h>
#include "fuzz.h"

static void run(bag_expr_t *e, const bag_msgdef_t *def, const uint8_t *msg, size_t len)
{
	const struct bag_connection conn = { .topic = "/fuzz", .type = "fuzz_pkg/Msg" };
	bag_expr_prog_t *p;
	struct bag_expr_val v;

	if (bag_expr_compile(&p, e, &conn, def) != BAG_OK)
		return;
	(void)bag_expr_check(e, &p, 1);
	(void)bag_expr_prog_constant(p);
	if (bag_expr_prog_needs_data(p)) {
		(void)bag_expr_eval_value(p, msg, len, 1500000000000000000, &v);
	} else {
		(void)bag_expr_eval_value(p, NULL, 0, -1, &v);
		(void)bag_expr_eval_value(p, msg, len, 1500000000000000000, &v);
	}
	bag_expr_prog_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bag_msgdef_t *def = NULL;
	bag_expr_t *e = NULL;
	size_t n, m;
	bool value;
	int rc;

	if (size < 4)
		return 0;
	n = (size_t)data[0] | (size_t)data[1] << 8;
	if (n > size - 4)
		return 0;
	m = (size_t)data[2 + n] | (size_t)data[3 + n] << 8;
	value = (m & 0x8000) != 0;
	m &= 0x7fff;
	if (m > size - 4 - n)
		return 0;
	const char *text = (const char *)data + 4 + n;
	rc = value ? bag_expr_parse_value(&e, text, m) : bag_expr_parse(&e, text, m);
	if (rc == BAG_OK) {
		size_t len = size - 4 - n - m;
		uint8_t *msg = malloc(len ? len : 1);
		if (msg != NULL) {
			memcpy(msg, data + 4 + n + m, len);
			if (bag_msgdef_parse(&def, "fuzz_pkg/Msg", (const char *)data + 2, n) == BAG_OK)
				run(e, def, msg, len);
			run(e, NULL, msg, len);
			free(msg);
		}
	} else {
		(void)bag_expr_error(e)->message;
		(void)bag_expr_error(e)->offset;
	}
	bag_msgdef_free(def);
	bag_expr_free(e);
	return 0;
}
