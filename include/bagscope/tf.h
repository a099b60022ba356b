/*
 * bagscope/tf.h - the TF transform buffer of a timeline: the frame tree and
 * lookups that give what tf2's BufferCore::lookupTransform() gives.
 *
 * bag_tf_build() passes once over the messages of every connection of type
 * tf2_msgs/TFMessage or tf/tfMessage (or of the topics named) with
 * bag_scan() and keeps each transform in 64 bytes (stamp, translation,
 * rotation). A transform is static when its connection is latched or its
 * topic ends in "_static". The buffer is then read-only: lookups may run on
 * several threads at once.
 *
 * The buffer behaves as a tf2 BufferCore that was fed every message in
 * record-time order with a cache longer than the bag (tf2's default keeps
 * only the last 10 s): frame ids lose one leading '/', transforms tf2
 * refuses (a frame its own parent, an empty id, NaN, a quaternion whose
 * squared norm is off 1 by 0.01 or more) are left out and counted, a second
 * transform of a frame at a stamp it already has is ignored, a frame's first
 * transform decides whether it is static, and a static frame keeps its last
 * transform for all times.
 */
#ifndef BAGSCOPE_TF_H
#define BAGSCOPE_TF_H

#include <bagscope/view.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bag_tf bag_tf_t;

/* Options for bag_tf_build(); start from BAG_TF_OPTS_INIT (common.h's growth rule). */
struct bag_tf_opts {
	size_t size;                /* sizeof(struct bag_tf_opts) */
	const char *const *topics;  /* only these topics (any type that parses); NULL: by type */
	size_t ntopics;
	unsigned threads;           /* scan workers; 0 = one per core */
	bag_progress_fn progress;   /* rows passed / rows, now and then; non-zero cancels */
	void *progress_arg;
	int64_t far_ns;             /* a stamp this far from its record time is
	                               warned about; 0 = 5 s */
};
#define BAG_TF_OPTS_INIT { sizeof(struct bag_tf_opts), NULL, 0, 0, NULL, NULL, 0 }

/*
 * Build the buffer of tl (borrowed: it must outlive the call only). *out
 * is set in every case (NULL only after BAG_ENOMEM at once): read
 * bag_tf_error(), then bag_tf_free() it. Returns 0, BAG_ENOMEM,
 * BAG_ECANCELED, BAG_EINVAL (options) or a read error of the scan.
 * Messages that do not parse are counted (bag_tf_stats) and the first
 * named in a warning.
 */
BAG_API int bag_tf_build(bag_tf_t **out, bag_timeline_t *tl, const struct bag_tf_opts *opts);

/* Free; accepts NULL. */
BAG_API void bag_tf_free(bag_tf_t *tf);

/* The failure of bag_tf_build() (common.h); BAG_ENOMEM for NULL. */
BAG_API const struct bag_error *bag_tf_error(const bag_tf_t *tf);

/* What the build saw. */
struct bag_tf_stats {
	uint64_t messages;      /* TF messages read */
	uint64_t transforms;    /* transforms in them */
	uint64_t kept;          /* transforms stored (refused and repeated ones not) */
	uint64_t refused;       /* refused as tf2 refuses them (see top) */
	uint64_t repeated;      /* a frame's stamp seen before: ignored */
	uint64_t bad_messages;  /* messages that did not parse */
	size_t memory;          /* bytes the buffer holds */
};
BAG_API void bag_tf_stats(const bag_tf_t *tf, struct bag_tf_stats *st);

/* Frames, child frames and parents alike, in the order first seen (0..n-1). */
BAG_API size_t bag_tf_frame_count(const bag_tf_t *tf);

/* The index of frame name (one leading '/' ignored), or BAG_ENOTFOUND. */
BAG_API long bag_tf_frame_find(const bag_tf_t *tf, const char *name);

/* A frame's facts; strings borrowed until bag_tf_free(). */
struct bag_tf_frame {
	const char *name;
	long parent;            /* the parent of its latest transform; -1: none (a root) */
	bool is_static;
	bool has_parents;       /* false for a frame that is only a parent */
	size_t nparents;        /* distinct parents over time */
	uint64_t count;         /* transforms received (refused ones not) */
	double rate_hz;         /* 1e9 / the median gap between stored stamps; 0 if < 2 */
	int64_t first_stamp_ns, last_stamp_ns;  /* of stored transforms */
	int64_t gap_ns;         /* the largest gap between stored stamps */
	int64_t gap_at_ns;      /* stamp where that gap starts */
	const char *callerid;   /* node of the connection of its first transform ("") */
	const char *topic;      /* that connection's topic ("") */
};

/* Fill *f for frame i < bag_tf_frame_count(). */
BAG_API void bag_tf_frame(const bag_tf_t *tf, size_t i, struct bag_tf_frame *f);

/*
 * Warnings about the tree, one line each, in a fixed order: frames with
 * two parents, cycles, several trees, stamps running backwards on a
 * connection, stamps far from record time, ids with a leading '/', refused
 * transforms, messages that did not parse. Borrowed until bag_tf_free().
 */
BAG_API size_t bag_tf_warning_count(const bag_tf_t *tf);
BAG_API const char *bag_tf_warning(const bag_tf_t *tf, size_t i);

/* A row of the frame tree in reading order: which frame, how deep. */
struct bag_tf_row {
	size_t frame;
	size_t depth;           /* 0 for a root (or a cycle's first frame) */
	bool in_cycle;          /* no root above it: it hangs off a cycle of parents */
};

/*
 * The tree of latest parents, depth first: roots by name, each frame's
 * children by name under it, then the frames no root reaches (cycles).
 * rows must hold bag_tf_frame_count() entries; every frame appears once.
 * Returns 0 or BAG_ENOMEM.
 */
BAG_API int bag_tf_tree(const bag_tf_t *tf, struct bag_tf_row *rows);

/*
 * The stamp of frame i's latest stored transform at or before t, or
 * BAG_TIME_MIN when it has none by then (a static frame: its stamp).
 */
BAG_API int64_t bag_tf_stamp_before(const bag_tf_t *tf, size_t i, int64_t t);

/* Why a lookup failed: tf2's exceptions. */
enum bag_tf_error {
	BAG_TF_OK = 0,
	BAG_TF_LOOKUP,          /* a frame does not exist, or the tree has a loop */
	BAG_TF_CONNECTIVITY,    /* the frames are in different trees */
	BAG_TF_EXTRAPOLATION,   /* the time is outside an edge's data */
	BAG_TF_INVALID,         /* an empty frame id */
};

/* A lookup's result: maps source-frame coordinates into the target frame. */
struct bag_tf_transform {
	int64_t stamp_ns;       /* the time used (the latest common time for 0) */
	double translation[3];  /* x y z */
	double rotation[4];     /* x y z w, as tf2 computes it (not renormalised) */
	enum bag_tf_error error;  /* BAG_TF_OK, or which of tf2's exceptions */
};

/*
 * tf2's BufferCore::lookupTransform(target, source, time_ns): the chain
 * through the common ancestor, each dynamic edge interpolated between the
 * two stored stamps around the time (translation linearly, rotation by
 * tf2's slerp; no interpolation across a change of parent), static edges at
 * all times, time 0 = the latest time common to the chain. Returns 0, or
 * BAG_ENOTFOUND (BAG_EINVAL for an empty id or one with a leading '/') with
 * out->error set and tf2's message in *err (may be NULL). Thread-safe.
 */
BAG_API int bag_tf_lookup(const bag_tf_t *tf, const char *target, const char *source, int64_t time_ns,
                          struct bag_tf_transform *out, struct bag_error *err);

/* Roll, pitch, yaw (radians, tf2's Matrix3x3::getRPY) of a quaternion x y z w. */
BAG_API void bag_tf_rpy(const double q[4], double rpy[3]);

/*
 * bag_tf_lookup() in the form the expression language asks for tf() terms
 * (expr.h's bag_expr_tf_fn; tf is a const bag_tf_t *): 0 with the
 * translation and rotation, or -1 when the lookup fails.
 */
BAG_API int bag_tf_expr_lookup(const void *tf, const char *target, const char *source, int64_t time_ns,
                               double xyz[3], double q[4]);

#ifdef __cplusplus
}
#endif

#endif
