/*
 * compress-int.h - the write side's compression: one chunk compressed (bz2
 * as rosbag writes it, the lz4 frame as roslz4 writes it), CRC-32 for MCAP,
 * and an ordered pool that compresses chunks on worker threads while the
 * writer hands them back in the order they were submitted. The bag writer
 * (write.c) and the MCAP writer (mcap.c) share it. Never installed.
 *
 * A job carries a chunk's uncompressed bytes and what the writer needs to
 * place it (its index records, times, per-connection counts); the writer
 * fills a job from cpool_job(), submits it, and takes finished jobs back
 * with cpool_next(), oldest first, to write them and recycle them. Memory is
 * bounded by the pool's max_jobs, each holding one chunk.
 */
#ifndef BAGSCOPE_COMPRESS_INT_H
#define BAGSCOPE_COMPRESS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <bagscope/common.h>

/* A growable byte buffer (bag_grow underneath). */
struct cbuf {
	uint8_t *p;
	size_t len;                 /* bytes in use */
	size_t cap;                 /* bytes allocated */
};

/* Make room for more bytes after b->len; 0 or BAG_ENOMEM. */
int cbuf_reserve(struct cbuf *b, size_t more);

/*
 * Append to room reserved beforehand (cbuf_reserve), little-endian: the bag
 * writer's and the MCAP writer's one set. n may be 0 with p NULL.
 */
static inline void cbuf_put(struct cbuf *b, const void *p, size_t n)
{
	if (n == 0)
		return;
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static inline void cbuf_put8(struct cbuf *b, uint8_t v)
{
	b->p[b->len++] = v;
}

static inline void cbuf_put16(struct cbuf *b, uint16_t v)
{
	cbuf_put8(b, (uint8_t)v);
	cbuf_put8(b, (uint8_t)(v >> 8));
}

static inline void cbuf_put32(struct cbuf *b, uint32_t v)
{
	cbuf_put16(b, (uint16_t)v);
	cbuf_put16(b, (uint16_t)(v >> 16));
}

static inline void cbuf_put64(struct cbuf *b, uint64_t v)
{
	cbuf_put32(b, (uint32_t)v);
	cbuf_put32(b, (uint32_t)(v >> 32));
}

/* One connection's share of a job: its id, message count, a writer's offset. */
struct cjob_conn {
	uint32_t id;
	uint32_t count;
	uint64_t off;               /* MCAP: its message index record in index */
};

/* One chunk on its way through the pool. */
struct cjob {
	struct cbuf in;             /* the uncompressed chunk (owned, reused) */
	struct cbuf out;            /* compressor output (owned, reused) */
	const uint8_t *data;        /* what to write: out.p, or in.p for none */
	size_t data_len;
	enum bag_compression compression;
	bool want_crc;              /* compute crc of in */
	uint32_t crc;               /* CRC-32 of in (want_crc) */
	int rc;                     /* 0, or why compression failed */
	struct bag_error err;       /* its one line */
	/* filled by the writer and left alone by the pool */
	struct cbuf index;          /* index records to write after the chunk */
	struct cjob_conn *conns;    /* connections in the chunk */
	size_t nconns, conns_cap;
	int64_t start_ns, end_ns;   /* message time range */
	uint64_t seq;               /* the writer's chunk number */
	/* the pool's */
	bool done;
	struct cjob *qnext;         /* work queue */
	struct cjob *onext;         /* submission order, then the spare list */
};

/*
 * Compress in[0..len) by c into out (replaced). Returns 0, BAG_ENOMEM,
 * BAG_ECOMPRESS, BAG_EUNSUPP (lz4 without liblz4) or BAG_EINVAL (more than
 * 4 GiB out), with a line in err.
 */
int bag_compress(enum bag_compression c, const uint8_t *in, size_t len, struct cbuf *out,
                 struct bag_error *err);


struct cpool;

/*
 * A pool of threads compressing threads, the caller's included (0: one per
 * online core; 1: no worker, jobs are compressed as they are submitted),
 * holding at most max_jobs jobs in flight (0: two per thread and one more).
 * The caller compresses queued jobs itself while cpool_next() waits.
 * Returns 0 or BAG_ENOMEM (*out NULL).
 */
int cpool_new(struct cpool **out, unsigned threads, unsigned max_jobs);

/* Stop the workers and free every job; accepts NULL. */
void cpool_free(struct cpool *p);

/* A job to fill: a recycled one (buffers kept, lengths 0) or a new one; NULL: no memory. */
struct cjob *cpool_job(struct cpool *p);

/* Queue j for compression; it comes back from cpool_next() after the jobs before it. */
void cpool_submit(struct cpool *p, struct cjob *j);

/*
 * The oldest submitted job if it is finished (waiting for it when wait is
 * true, or when max_jobs are in flight, meanwhile compressing queued jobs on
 * the calling thread), taken out of the pool: write it and give it back with
 * cpool_recycle(). NULL when nothing is in flight, or the oldest is not
 * finished and wait is false.
 */
struct cjob *cpool_next(struct cpool *p, bool wait);

/* Give a job back for reuse. */
void cpool_recycle(struct cpool *p, struct cjob *j);

/* Jobs submitted and not yet taken back. */
unsigned cpool_inflight(const struct cpool *p);

#endif
