/*
 * codec-int.h - chunk data decompression (none, bz2, lz4 frame): the one
 * decompressor behind whole chunks (chunk.c), cut-off or damaged chunks read
 * as far as they go (chunk.c, recover.c), and the one bound on how far a
 * chunk may inflate; and whole zstd-compressed files (rosbag2's compression
 * mode FILE). Never installed.
 */
#ifndef BAGSCOPE_CODEC_INT_H
#define BAGSCOPE_CODEC_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <bagscope/common.h>

#define CODEC_MIN_CAP ((uint64_t)16 << 20)  /* a chunk may always inflate to this */

/* What bag_codec_inflate() produced. */
struct bag_inflated {
	uint8_t *buf;             /* the output: the caller's buffer, or malloc'd (grow) */
	size_t len;               /* bytes out */
	size_t used;              /* input bytes consumed; when ended, the stream's length */
	bool ended;               /* the stream ended properly */
	bool full;                /* stopped because the output reached its limit */
	struct bag_error err;     /* why it stopped before the end; code 0 when ended */
	bool own_sum;             /* set by the caller: it checks a sum of its own over the
	                             output (MCAP's CRC), so a frame's own checksums (lz4's
	                             xxHash) are not computed, and a whole lz4 frame into
	                             the caller's buffer is decoded block by block in place */
};

/*
 * Decompression contexts kept between calls by one handle (one thread at a
 * time): a zstd context keeps its window and tables, an lz4 frame context
 * its block buffer, so a chunk costs no allocation. Zeroed: none yet.
 */
struct bag_codec_ctx {
	void *zstd;   /* ZSTD_DCtx */
	void *lz4;    /* LZ4F_dctx */
};

/* Free what ctx keeps (and zero it); NULL or a zeroed one is fine. */
void bag_codec_ctx_free(struct bag_codec_ctx *ctx);

/*
 * The largest uncompressed size believed for data_len bytes of comp data:
 * what the format's ratios allow (lz4 256, bz2 2048), at least
 * CODEC_MIN_CAP, at most 4 GiB - 1.
 */
uint64_t bag_codec_size_cap(enum bag_compression comp, uint64_t data_len);

/*
 * Decompress src[0..src_len) as far as it goes, with the contexts of ctx
 * (NULL: made and freed here): to the end of the stream,
 * corrupt data, the end of the input (a cut-off stream) or the output limit.
 * With grow false, out->buf is the caller's buffer of cap bytes; with grow
 * true, out->buf is malloc'd here (the caller frees it, also on failure)
 * starting at cap bytes and doubling up to max_cap. A cut-off or damaged lz4
 * block yields the sequences before the damage, a bz2 stream its whole
 * blocks before it. Returns 0 (out says how far it went), BAG_ENOMEM, or
 * BAG_EUNSUPP (a compression this build cannot read).
 */
int bag_codec_inflate(struct bag_codec_ctx *ctx, enum bag_compression comp, const uint8_t *src, size_t src_len,
                      size_t cap, size_t max_cap, bool grow, struct bag_inflated *out);

/*
 * A whole zstd stream (one or more frames) read from fd in to its end and
 * its decompressed bytes written to fd out, at most max of them; *written
 * says how many. Returns 0, or BAG_ECOMPRESS (corrupt or cut off), BAG_EIO
 * (a read or write failed, or more than max), BAG_ENOMEM or BAG_EUNSUPP
 * (no zstd in this build) with *err set to one line.
 */
int bag_codec_unzstd_fd(int in, int out, uint64_t max, uint64_t *written, struct bag_error *err);

#endif
