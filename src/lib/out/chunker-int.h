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

#endif
