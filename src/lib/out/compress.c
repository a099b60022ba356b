/*
 * compress.c - chunk compression, CRC-32 and the ordered compression pool
 * (see compress-int.h).
 *
 * The pool keeps two lists under one lock: the work queue (qhead..qtail,
 * jobs no one has taken yet) and the submission order (ohead..otail, every
 * job submitted and not yet taken back). Workers take from the queue,
 * compress without the lock and mark the job done; the writer takes jobs
 * back only from the head of the submission order, so chunks reach the file
 * in the order they were cut whatever order the workers finish in. Taken-back
 * jobs wait on the spare list (through onext) with their buffers, so a long
 * export allocates max_jobs chunks' worth once.
 *
 * A pool of n threads starts n - 1 workers: the writer's thread is the n-th.
 * When it would wait for the oldest job, it compresses a queued one itself,
 * so no more threads compete for the cores than the pool was given (bz2's
 * large tables make a core shared by two compressing threads lose more than
 * half its speed to cache refills).
 *
 * CRC-32 is computed eight bytes at a time with tables built once
 * (pthread_once): the reflected polynomial 0xedb88320, as zlib and MCAP.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bzlib.h>
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifdef HAVE_LZ4
#include <lz4frame.h>
#endif
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

#include "lib/out/compress-int.h"
#include "lib/common/util-int.h"

#define MAX_THREADS 64

int cbuf_reserve(struct cbuf *b, size_t more)
{
	if (more > SIZE_MAX - b->len)
		return BAG_ENOMEM;
	return bag_grow((void **)&b->p, &b->cap, b->len + more, 1);
}

/* bz2 as rosbag writes it: block size 9, work factor 30. */
static int compress_bz2(const uint8_t *in, size_t len, struct cbuf *out, struct bag_error *err)
{
	size_t bound = len + len / 100 + 600;
	unsigned int n = bound > UINT32_MAX ? UINT32_MAX : (unsigned int)bound;
	int bz;

	if (len > UINT32_MAX)
		return bag_error_say(err, BAG_EINVAL, "a %zu-byte chunk is too large for bz2", len);
	if (cbuf_reserve(out, n) != 0)
		return bag_error_say(err, BAG_ENOMEM, "out of memory for a %zu-byte chunk", len);
	bz = BZ2_bzBuffToBuffCompress((char *)out->p, &n, (char *)in, (unsigned int)len, 9, 0, 30);
	if (bz != BZ_OK)
		return bag_error_say(err, bz == BZ_MEM_ERROR ? BAG_ENOMEM : BAG_ECOMPRESS, "bz2 compression failed (%d)", bz);
	out->len = n;
	return BAG_OK;
}

/* The lz4 frame as roslz4 writes it: independent 1 MB blocks, a content checksum. */
static int compress_lz4(const uint8_t *in, size_t len, struct cbuf *out, struct bag_error *err)
{
#ifdef HAVE_LZ4
	LZ4F_preferences_t prefs;
	size_t bound, n;

	memset(&prefs, 0, sizeof prefs);
	prefs.frameInfo.blockSizeID = LZ4F_max1MB;
	prefs.frameInfo.blockMode = LZ4F_blockIndependent;
	prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
	bound = LZ4F_compressFrameBound(len, &prefs);
	if (cbuf_reserve(out, bound) != 0)
		return bag_error_say(err, BAG_ENOMEM, "out of memory for a %zu-byte chunk", len);
	n = LZ4F_compressFrame(out->p, bound, in, len, &prefs);
	if (LZ4F_isError(n))
		return bag_error_say(err, BAG_ECOMPRESS, "lz4 compression failed: %s", LZ4F_getErrorName(n));
	out->len = n;
	return BAG_OK;
#else
	(void)in;
	(void)out;
	(void)len;
	return bag_error_say(err, BAG_EUNSUPP, "lz4 is not supported by this build");
#endif
}

/* zstd at level 3, zstd's default and what the mcap CLI writes. */
static int compress_zstd(const uint8_t *in, size_t len, struct cbuf *out, struct bag_error *err)
{
#ifdef HAVE_ZSTD
	size_t bound = ZSTD_compressBound(len), n;

	if (cbuf_reserve(out, bound) != 0)
		return bag_error_say(err, BAG_ENOMEM, "out of memory for a %zu-byte chunk", len);
	n = ZSTD_compress(out->p, bound, in, len, 3);
	if (ZSTD_isError(n))
		return bag_error_say(err, BAG_ECOMPRESS, "zstd compression failed: %s", ZSTD_getErrorName(n));
	out->len = n;
	return BAG_OK;
#else
	(void)in;
	(void)out;
	(void)len;
	return bag_error_say(err, BAG_EUNSUPP, "zstd is not supported by this build");
#endif
}

int bag_compress(enum bag_compression c, const uint8_t *in, size_t len, struct cbuf *out,
                 struct bag_error *err)
{
	int rc = BAG_OK;

	out->len = 0;
	if (c == BAG_COMPRESSION_BZ2) {
		rc = compress_bz2(in, len, out, err);
	} else if (c == BAG_COMPRESSION_LZ4) {
		rc = compress_lz4(in, len, out, err);
	} else if (c == BAG_COMPRESSION_ZSTD) {
		rc = compress_zstd(in, len, out, err);
	} else if (cbuf_reserve(out, len) == 0) {
		memcpy(out->p, in, len);
		out->len = len;
	} else {
		rc = bag_error_say(err, BAG_ENOMEM, "out of memory for a %zu-byte chunk", len);
	}
	if (rc == BAG_OK && out->len > UINT32_MAX)
		rc = bag_error_say(err, BAG_EINVAL, "a chunk compresses to more than 4 GiB");
	return rc;
}

struct cpool {
	pthread_mutex_t lock;
	pthread_cond_t work_cv;     /* the queue got a job, or stop */
	pthread_cond_t done_cv;     /* a job is done */
	struct cjob *qhead, *qtail; /* to compress */
	struct cjob *ohead, *otail; /* submitted, in order, not taken back */
	struct cjob *spare;         /* taken back and recycled */
	unsigned inflight;          /* jobs between ohead and otail */
	unsigned max_jobs;
	pthread_t *threads;
	unsigned nthreads;          /* started */
	bool stop;
};

/* Compress j's input (and its CRC): the work of one job. */
static void run_job(struct cjob *j)
{
	j->rc = BAG_OK;
	bag_error_clear(&j->err);
	if (j->want_crc)
		j->crc = bag_crc32(0, j->in.p, j->in.len);
	if (j->compression == BAG_COMPRESSION_NONE) {
		j->data = j->in.p;
		j->data_len = j->in.len;
		return;
	}
	j->rc = bag_compress(j->compression, j->in.p, j->in.len, &j->out, &j->err);
	j->data = j->out.p;
	j->data_len = j->out.len;
}

static void *worker_main(void *arg)
{
	struct cpool *p = arg;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct cjob *j;
		while (p->qhead == NULL && !p->stop)
			pthread_cond_wait(&p->work_cv, &p->lock);
		if (p->qhead == NULL)
			break;
		j = p->qhead;
		p->qhead = j->qnext;
		if (p->qhead == NULL)
			p->qtail = NULL;
		pthread_mutex_unlock(&p->lock);
		run_job(j);
		pthread_mutex_lock(&p->lock);
		j->done = true;
		pthread_cond_broadcast(&p->done_cv);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int cpool_new(struct cpool **out, unsigned threads, unsigned max_jobs)
{
	struct cpool *p = calloc(1, sizeof *p);
	int rc = BAG_ENOMEM;

	*out = NULL;
	if (p == NULL)
		goto fail;
	if (threads == 0) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		threads = cores < 1 ? 1 : (unsigned)cores;
	}
	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	p->max_jobs = max_jobs ? max_jobs : 2 * threads + 1;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work_cv, NULL);
	pthread_cond_init(&p->done_cv, NULL);
	if (threads > 1) {
		p->threads = calloc(threads - 1, sizeof *p->threads);
		if (p->threads == NULL)
			goto fail;
		for (unsigned i = 0; i + 1 < threads; i++) {
			if (pthread_create(&p->threads[i], NULL, worker_main, p) != 0)
				goto fail;
			p->nthreads++;
		}
	}
	*out = p;
	p = NULL;
	rc = BAG_OK;
fail:
	cpool_free(p);
	return rc;
}

static void job_free(struct cjob *j)
{
	free(j->in.p);
	free(j->out.p);
	free(j->index.p);
	free(j->conns);
	free(j);
}

void cpool_free(struct cpool *p)
{
	if (p == NULL)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	p->qhead = p->qtail = NULL;   /* queued jobs are dropped; running ones finish */
	pthread_cond_broadcast(&p->work_cv);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	free(p->threads);
	while (p->ohead != NULL) {
		struct cjob *j = p->ohead;
		p->ohead = j->onext;
		job_free(j);
	}
	while (p->spare != NULL) {
		struct cjob *j = p->spare;
		p->spare = j->onext;
		job_free(j);
	}
	pthread_cond_destroy(&p->done_cv);
	pthread_cond_destroy(&p->work_cv);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

struct cjob *cpool_job(struct cpool *p)
{
	struct cjob *j = p->spare;

	if (j != NULL) {
		p->spare = j->onext;
		j->in.len = j->out.len = j->index.len = 0;
		j->nconns = 0;
	} else {
		j = calloc(1, sizeof *j);
	}
	if (j != NULL) {
		j->done = false;
		j->want_crc = false;
		j->qnext = j->onext = NULL;
	}
	return j;
}

void cpool_submit(struct cpool *p, struct cjob *j)
{
	if (p->nthreads == 0)
		run_job(j);
	pthread_mutex_lock(&p->lock);
	if (p->nthreads == 0) {
		j->done = true;
	} else {
		if (p->qtail != NULL)
			p->qtail->qnext = j;
		else
			p->qhead = j;
		p->qtail = j;
		pthread_cond_signal(&p->work_cv);
	}
	if (p->otail != NULL)
		p->otail->onext = j;
	else
		p->ohead = j;
	p->otail = j;
	p->inflight++;
	pthread_mutex_unlock(&p->lock);
}

struct cjob *cpool_next(struct cpool *p, bool wait)
{
	struct cjob *j = NULL;

	pthread_mutex_lock(&p->lock);
	if (p->ohead == NULL)
		goto out;
	if (wait || p->inflight >= p->max_jobs)
		while (!p->ohead->done) {
			struct cjob *q = p->qhead;
			if (q == NULL) {
				pthread_cond_wait(&p->done_cv, &p->lock);
				continue;
			}
			p->qhead = q->qnext;
			if (p->qhead == NULL)
				p->qtail = NULL;
			pthread_mutex_unlock(&p->lock);
			run_job(q);
			pthread_mutex_lock(&p->lock);
			q->done = true;
		}
	if (!p->ohead->done)
		goto out;
	j = p->ohead;
	p->ohead = j->onext;
	if (p->ohead == NULL)
		p->otail = NULL;
	j->onext = NULL;
	p->inflight--;
out:
	pthread_mutex_unlock(&p->lock);
	return j;
}

void cpool_recycle(struct cpool *p, struct cjob *j)
{
	j->onext = p->spare;
	p->spare = j;
}

unsigned cpool_inflight(const struct cpool *p)
{
	return p->inflight;
}
