/*
 * msgdef-int.h - the compiled form of a definition, shared by msgdef.c
 * (which builds it) and decode.c (which runs it). Never installed.
 *
 * Each type's fields are a contiguous run of ops; an op for a nested message
 * names the run of its type (sub, nsub). The top type's run starts at 0.
 */
#ifndef BAGSCOPE_MSGDEF_INT_H
#define BAGSCOPE_MSGDEF_INT_H

#include <bagscope/msgdef.h>

struct dec_op {
	uint8_t prim;                          /* enum bag_prim */
	uint8_t array;                         /* enum bag_array */
	uint32_t fixed_len;
	uint32_t sub;                          /* nested type's first op */
	uint32_t nsub;                         /* and its field count */
	uint32_t elem_min;                     /* fewest bytes one element takes */
	bool fixed;                            /* every element takes exactly elem_min bytes */
	bool wide;                             /* a CDR wstring (prim is BAG_PRIM_STRING) */
	uint64_t nodes;                        /* fixed: values and messages in one element
	                                          (saturating); decode.c charges them to the budget */
	uint32_t run;                          /* ROS 1: this field and the run - 1 after it in its
	                                          message are fixed and not variable arrays (0: not so) */
	uint64_t run_bytes, run_nodes;         /* what those take in all (saturating): a check skips
	                                          them at once */
	bool cdr_ok;                           /* CDR: cdr_run holds what the run takes */
	uint64_t cdr_run[8];                   /* CDR: its bytes from (at - origin) % 8 == r, padding
	                                          included (saturating) */
	const struct bag_msgdef_field *field;  /* names, for printers and errors */
};

/* The compiled ops of def and the top type's field count. */
const struct dec_op *msgdef_ops(const bag_msgdef_t *def, uint32_t *nroot);

#endif
