/*
 * chunker-int.h - the part the bag writer (write.c) and the MCAP writer
 * (mcap.c) share: the open chunk built in memory, each stream's index
 * entries in it, the cut that hands the chunk and its index records to
 * compress.c's pool, and writing the jobs back in order. What a chunk's
 * records and index look like is the writer's, through chunker_ops.
 * Never installed.
 */
#ifndef BAGSCOPE_CHUNKER_INT_H
#define BAGSCOPE_CHUNKER_INT_H

#include "lib/out/compress-int.h"
#include "lib/out/outfile-int.h"

/* Where one message of the open chunk is. */
struct chunk_entry {
	int64_t time_ns;
	uint64_t offset;            /* of its record in the uncompressed chunk */
};

/*
 * One stream's (a connection's, a channel's) messages in the open chunk:
 * like rosbag's multiset they end up in time order, equal times in write
 * order (sorted at the cut only when an entry came earlier than the one
 * before it).
 */
struct chunk_stream {
	struct chunk_entry *entries;
	size_t n, cap;
	bool unsorted;
};

/* What the writer does for its chunker; w is the writer. */
struct chunker_ops {
	/* Stream k (the number given to chunker_note()). */
	struct chunk_stream *(*stream)(void *w, uint32_t k);
	/*
	 * Append stream k's index record for the open chunk to j->index and
	 * its share to j->conns (entries sorted). 0 or a failure (said).
	 */
	int (*index)(void *w, struct cjob *j, uint32_t k, const struct chunk_stream *s);
	/*
	 * Write a job back from the pool, in cut order, once it compressed
	 * well and while the writer has not failed. 0 or a failure (said).
	 */
	int (*write)(void *w, struct cjob *j);
};

struct chunker {
	struct cbuf buf;            /* the open chunk, uncompressed */
	int64_t start_ns, end_ns;   /* the time range of its messages */
	bool has_msgs;
	uint32_t *touched;          /* streams with entries in it */
	size_t ntouched, touched_cap;
	uint32_t threshold;         /* cut once buf is longer than this */
	enum bag_compression compression;
	bool want_crc;              /* the pool computes the chunk's CRC */
	struct cpool *pool;
	uint64_t cut;               /* chunks handed to the pool */
	const struct chunker_ops *ops;
	void *w;
	struct bag_error *err;      /* the writer's */
	int *failed;                /* the writer's sticky failure: 0 or its code */
	const char *path;           /* the writer's, for its messages */
};

/*
 * Set c up with a pool of threads (cpool_new()). Returns 0 or BAG_ENOMEM
 * (said in *err).
 */
int chunker_init(struct chunker *c, const struct chunker_ops *ops, void *w, struct bag_error *err,
                 int *failed, const char *path, unsigned threads);

/* Free the pool, the open chunk and the touched list; the streams are the writer's. */
void chunker_free(struct chunker *c);

/* Room for one more entry on s and need more bytes in the open chunk; 0 or BAG_ENOMEM (not said). */
int chunker_reserve(struct chunker *c, struct chunk_stream *s, size_t need);

/*
 * A message of stream k (s) at time_ns, whose record starts now, at
 * c->buf.len (room reserved): its index entry and the chunk's time range.
 */
void chunker_note(struct chunker *c, uint32_t k, struct chunk_stream *s, int64_t time_ns);

/* Cut the open chunk (if it has messages) into a job for the pool; write what is done. */
int chunker_cut(struct chunker *c);

/*
 * Write what the pool has finished, in order (wait for all of it if all);
 * the first failure, a job's or a write's, is kept in *failed and stops the
 * writes after it.
 */
int chunker_drain(struct chunker *c, bool all);

/*
 * What a writer over the chunker keeps besides its format's state: its
 * target, the file being written, the chunker, a record being built, and
 * its error (a sticky failure stops every call after it). Both writers embed
 * one as their first member, c.
 */
struct wcore {
	char *path;                 /* the target name */
	struct outfile out;         /* the file being written */
	bool no_replace;            /* refuse an existing path at the end */
	struct chunker ck;          /* the open chunk, its jobs */
	struct cbuf rec;            /* a record being assembled, reused */
	int failed;                 /* 0, or the code of a sticky failure */
	bool closed;                /* the close succeeded */
	struct bag_error err;       /* the last failure (common.h) */
};

/* Record "PATH: message" as c's last error; returns code. */
int wcore_error(struct wcore *c, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * The start every writer's open shares: path taken (a copy), opts read into
 * o (osize bytes; oname names the struct in the message). 0 or a failure (said).
 */
int wcore_open(struct wcore *c, const char *path, void *o, size_t osize, const void *opts, const char *oname);

/*
 * The chunker for compression, cutting past threshold bytes, on threads:
 * refuses lz4 in a build without it. 0 or a failure (said).
 */
int wcore_chunker(struct wcore *c, const struct chunker_ops *ops, void *w, enum bag_compression compression,
                  uint32_t threshold, unsigned threads);

/*
 * Close: refused once failed or closed; cut and write the open chunk, then
 * finish(w) (the format's end, and the file put in place); a failure is
 * kept as sticky. Returns 0 or the failure.
 */
int wcore_close(struct wcore *c, int (*finish)(void *w), void *w);

/* Free what c holds (the chunker, the file left unplaced, the record, the path). */
void wcore_free(struct wcore *c);

#endif
