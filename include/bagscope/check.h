/*
 * bagscope/check.h - an integrity check of an open bag: every record in the
 * file parses, every chunk decompresses to its stated size, every index
 * entry points at the message it names, chunk infos agree with the index
 * and with the chunks' data, every definition's md5 matches the one
 * recomputed from its text, and every message decodes against it.
 *
 * Problems are reported one by one through a callback; the check itself
 * only fails for out-of-memory or I/O trouble.
 */
#ifndef BAGSCOPE_CHECK_H
#define BAGSCOPE_CHECK_H

#include <bagscope/bag.h>

#ifdef __cplusplus
extern "C" {
#endif

enum bag_check_flags {
	BAG_CHECK_QUICK = 1,      /* index structure only: no chunk data read */
};

/* One problem found. */
struct bag_finding {
	uint64_t offset;          /* file byte offset, UINT64_MAX if none applies */
	int code;                 /* the BAG_E* code it amounts to */
	const char *text;         /* one line, without path or offset; borrowed */
};

/* Called per finding; return non-zero to stop the check (BAG_ECANCELED). */
typedef int (*bag_finding_fn)(void *arg, const struct bag_finding *f);

/* What was looked at. */
struct bag_check_stats {
	uint64_t records;         /* top-level records walked */
	uint64_t chunks;          /* chunks decompressed and walked */
	uint64_t messages;        /* index entries read (and decoded) */
	uint64_t findings;
};

/*
 * Check bag (flags: enum bag_check_flags), calling fn for each finding.
 * A recovered bag's recovery reason, losses and the open's warnings count
 * as findings too. stats may be NULL. Returns 0 (whatever was found),
 * BAG_ENOMEM, or BAG_ECANCELED.
 */
BAG_API int bag_check(bag_t *bag, unsigned flags, bag_finding_fn fn, void *arg,
                      struct bag_check_stats *stats);

#ifdef __cplusplus
}
#endif

#endif
