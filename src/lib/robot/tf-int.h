/* tf-int.h - the transform buffer's structures, shared by tf.c, tf-tree.c and tf-lookup.c. */
#ifndef BAGSCOPE_TF_INT_H
#define BAGSCOPE_TF_INT_H

#include <stdint.h>
#include <stdbool.h>

#include <bagscope/tf.h>
#include <bagscope/print.h>
#include "lib/robot/keyidx-int.h"

/* One stored transform of a frame to its parent: exactly 64 bytes. */
struct tf_sample {
	int64_t stamp_ns;
	double t[3];          /* translation x y z */
	double q[4];          /* rotation x y z w, as received */
};

/* The parent of samples [first, next run's first). */
struct tf_run {
	uint32_t first;
	uint32_t parent;
};

/* A frame: a name, and when it has received transforms, its cache. */
struct tf_frame {
	char *name;
	bool has_cache;       /* it received a transform (tf2's frame has a cache) */
	bool is_static;       /* decided by its first transform */
	bool sorted;          /* samples are in stamp order (build) */
	struct tf_sample *s;  /* samples, ascending stamps, no stamp twice (after the build) */
	size_t n, cap;
	struct tf_run *runs;  /* parents by sample index; nruns >= 1 when has_cache */
	size_t nruns, runcap;
	uint32_t parents[4];  /* distinct parents seen, the first four */
	size_t nparents;      /* all distinct parents seen */
	uint64_t count;       /* transforms accepted */
	uint32_t conn;        /* timeline connection of the first transform */
	char *topic;          /* its topic and callerid (set when the build ends) */
	char *callerid;
	uint32_t last_conn;   /* connection and stamp of the last one received (backwards check) */
	int64_t last_stamp;
};

/* Counted problems with their first example, for the warnings. */
struct tf_issue {
	uint64_t count;
	char first[200];
};

enum tf_issue_kind {
	TF_ISSUE_BACKWARDS, TF_ISSUE_FAR, TF_ISSUE_SLASH, TF_ISSUE_REFUSED, TF_ISSUE_BAD, TF_ISSUE_N
};

struct bag_tf {
	bag_timeline_t *tl;               /* during the build only */
	struct tf_frame *f;
	size_t nf, fcap;
	struct keyidx idx;                /* frames by name */
	bool *conn_static;                /* per timeline connection (build) */
	int64_t far_ns;
	struct bag_tf_stats st;
	struct tf_issue issue[TF_ISSUE_N];
	char **warn;                      /* the warnings (tf-tree.c) */
	size_t nwarn;
	struct bag_error err;
};

/* tf-tree.c: the warnings of the finished buffer and the frames' facts. */
int tf_tree_warnings(bag_tf_t *tf);

/* tf.c: the parent of frame f's sample i. */
uint32_t tf_parent_at(const struct tf_frame *f, size_t i);

#endif
