/*
 * bagscope/export.h - writing a view's messages to a new bag or MCAP file:
 * a subset (topics, types, a time range: the view), the messages a filter
 * accepts, several bags merged in time order, a damaged bag repaired (its
 * recovery does the reading), a bag recompressed or converted.
 *
 * One call does the whole job: bag_scan() reads the view (every core
 * decompressing, the filter evaluated on the workers) and the messages go,
 * in the view's order, through the bag writer (write.h) or the MCAP writer
 * (mcap.h), which compress chunks on every core. Message bytes are copied
 * as they are; every connection header is carried over whole, and only
 * connections with a message written appear. The output is a temporary file
 * until the end, so a failure or a cancel leaves nothing at the target.
 * Memory stays bounded by the chunk size and the pools, not by the view.
 */
#ifndef BAGSCOPE_EXPORT_H
#define BAGSCOPE_EXPORT_H

#include <bagscope/scan.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Output formats. */
enum bag_export_format {
	BAG_EXPORT_BAG = 0,       /* ROS bag 2.0 */
	BAG_EXPORT_MCAP = 1,      /* MCAP, ros1 profile */
};

/*
 * Called on the calling thread for each thing lost while reading (a chunk
 * that cannot be read, a stretch of index, a message the filter cannot
 * test): one line naming the file and byte offset.
 */
typedef void (*bag_export_lost_fn)(void *arg, const char *line);

/*
 * Options for bag_export(). Start from BAG_EXPORT_OPTS_INIT (size set, the
 * rest zero = defaults); as for bag_open_opts, bag_export() refuses a size
 * of 0 and non-zero fields it does not know.
 */
struct bag_export_opts {
	size_t size;                     /* sizeof(struct bag_export_opts) */
	enum bag_export_format format;
	const char *compression;         /* "none", "bz2", "lz4"; NULL: the most
	                                    common among the inputs' chunks (for
	                                    MCAP, lz4 where that is bz2) */
	uint32_t chunk_size;             /* uncompressed bytes after which a chunk
	                                    is closed; 0 = 768 KiB (rosbag's) */
	bag_expr_t *filter;              /* keep what it accepts; NULL = all */
	bool keep_latched;               /* also each selected latched
	                                    connection's last message before the
	                                    view's start (at its own time, not
	                                    filtered), so a cut keeps its maps and
	                                    static transforms */
	bool force;                      /* replace a file at the target */
	unsigned threads;                /* readers and compressors each; 0 = one
	                                    per online core */
	bag_progress_fn progress;        /* rows passed of the view's rows, now
	                                    and then; non-zero cancels */
	void *progress_arg;
	bag_export_lost_fn lost;         /* may be NULL */
	void *lost_arg;
};
#define BAG_EXPORT_OPTS_INIT { sizeof(struct bag_export_opts), BAG_EXPORT_BAG, NULL, 0, NULL, false, \
                               false, 0, NULL, NULL, NULL, NULL }

/* What an export did (filled in whatever bag_export() returns). */
struct bag_export_result {
	uint64_t messages;               /* written, latched ones included */
	uint64_t latched;                /* of those, kept by keep_latched */
	uint64_t filtered;               /* rows the filter dropped */
	uint64_t lost;                   /* rows of the view that could not be
	                                    read (each cause also went to lost) */
	uint64_t input_losses;           /* stretches the inputs' recoveries
	                                    could not read (bag_recovery_report) */
	size_t connections;              /* written */
	size_t chunks;                   /* written */
	enum bag_compression compression; /* of the output's chunks */
	int64_t start_ns, end_ns;        /* first and last message written */
	uint64_t bytes;                  /* size of the file written */
};

/*
 * Write the messages of view (and, with keep_latched, its latched
 * connections' last messages before its start) to out, in view order. The
 * view must not be used by another thread meanwhile.
 *
 * out is refused (BAG_EINVAL, with a message) when it names one of the
 * view's bags, also through a link, or when it exists and force is not set.
 * Returns 0 (*res says what was written, and whether rows were lost: the
 * file is written even then), BAG_EINVAL (bad options, out refused, bz2 for
 * MCAP), BAG_EEXPR (a filter that fits none of the selected connections, as
 * bag_scan()), BAG_ECANCELED (progress asked to stop), BAG_EIO (a write
 * failed, e.g. a full disk), BAG_ENOMEM, BAG_EUNSUPP, or an index load
 * error; on any failure nothing is left at out (an existing file there is
 * untouched). *err (may be NULL; common.h) gets the code and one line
 * naming the file and the problem.
 */
BAG_API int bag_export(bag_view_t *view, const char *out, const struct bag_export_opts *opts,
                       struct bag_export_result *res, struct bag_error *err);

#ifdef __cplusplus
}
#endif

#endif
