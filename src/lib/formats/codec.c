/*
 * codec.c - chunk data decompression: none, bz2 (bzlib's stream API) and the
 * lz4 frame format (liblz4's frame API), whole or as far as the data goes.
 *
 * Output goes to a sink: the caller's fixed buffer, or a buffer grown by
 * doubling up to a limit. Every decoder stops at the end of its stream, at
 * corrupt data, when the input runs out or when the sink is full, and says
 * which; nothing is read or written out of bounds whatever the input.
 *
 * liblz4 only hands out a block once all of it is there, and rosbag writes a
 * chunk as one block (up to 1 MiB), so a cut-off or damaged lz4 frame is
 * decoded again by the small frame walker and block decoder below, which
 * stop at the first sequence that is not all there: whole sequences before
 * the damage come out. bzip2 cannot do this (a block is one Burrows-Wheeler
 * transform): a damaged bz2 stream yields its whole blocks before the damage.
 *
 * An lz4 frame whose output the caller checks itself (MCAP's CRC) and whose
 * size it knows is first decoded block by block in place (lz4_direct); the
 * frame API takes over at anything unexpected.
 */
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bzlib.h>
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif
#ifdef HAVE_LZ4
#include <lz4.h>
#include <lz4frame.h>
#endif

#include <bagscope/record.h>
#include "lib/common/util-int.h"
#include "lib/formats/codec-int.h"

#define LZ4_MAGIC 0x184D2204u

/* Where output goes. */
struct sink {
	struct bag_inflated *out;
	size_t cap;               /* bytes allocated at out->buf */
	size_t max;               /* the most it may hold */
	bool grow;                /* out->buf is ours to realloc */
	int rc;                   /* BAG_ENOMEM once growing failed */
	struct bag_codec_ctx *ctx;   /* contexts kept between calls */
};

uint64_t bag_codec_size_cap(enum bag_compression comp, uint64_t data_len)
{
	uint64_t ratio = comp == BAG_COMPRESSION_LZ4 ? 256 : comp == BAG_COMPRESSION_BZ2 ? 2048 :
	                 comp == BAG_COMPRESSION_ZSTD ? 4096 : 1;
	uint64_t cap = data_len > UINT32_MAX ? UINT32_MAX : data_len * ratio;

	if (cap < CODEC_MIN_CAP)
		cap = CODEC_MIN_CAP;
	return cap > UINT32_MAX ? UINT32_MAX : cap;
}

/*
 * Room for want more bytes if the limit allows (growing by doubling); returns
 * the room there is. When that is less than want, out->full is set.
 */
static size_t sink_room(struct sink *s, size_t want)
{
	struct bag_inflated *out = s->out;

	if (s->cap - out->len < want && s->grow && s->cap < s->max && s->rc == BAG_OK) {
		size_t ncap = s->cap ? s->cap : 4096;
		while (ncap - out->len < want && ncap < s->max)
			ncap = ncap > s->max / 2 ? s->max : ncap * 2;
		if (ncap > s->max)
			ncap = s->max;
		uint8_t *n = realloc(out->buf, ncap ? ncap : 1);
		if (n == NULL) {
			s->rc = BAG_ENOMEM;
		} else {
			out->buf = n;
			s->cap = ncap;
		}
	}
	if (s->cap - out->len < want && s->rc == BAG_OK) {
		out->full = true;
		if (out->err.code == BAG_OK)
			bag_error_say(&out->err, BAG_ECOMPRESS, "decompresses to more than %zu byte%s", s->max, BAG_S(s->max));
	}
	return s->cap - out->len;
}

static void inflate_bz2(const uint8_t *src, size_t src_len, struct sink *s)
{
	struct bag_inflated *out = s->out;
	unsigned total_in = src_len > UINT32_MAX ? UINT32_MAX : (unsigned)src_len;
	bz_stream z;

	memset(&z, 0, sizeof z);
	if (BZ2_bzDecompressInit(&z, 0, 0) != BZ_OK) {
		s->rc = BAG_ENOMEM;
		return;
	}
	z.next_in = (char *)src;
	z.avail_in = total_in;
	for (;;) {
		size_t room = sink_room(s, 1);
		if (room == 0)
			break;
		room = room > UINT32_MAX ? UINT32_MAX : room;
		unsigned in_before = z.avail_in;
		z.next_out = (char *)out->buf + out->len;
		z.avail_out = (unsigned)room;
		int bz = BZ2_bzDecompress(&z);
		out->len += room - z.avail_out;
		if (bz == BZ_STREAM_END) {
			out->ended = true;
			break;
		}
		if (bz != BZ_OK) {
			bag_error_say(&out->err, BAG_ECOMPRESS, "bz2 data is corrupt (bzip2 error %d)", bz);
			break;
		}
		if (z.avail_in == 0 && z.avail_out != 0) {
			bag_error_say(&out->err, BAG_ECOMPRESS, "bz2 stream is cut off");
			break;
		}
		if (z.avail_in == in_before && room == z.avail_out) {
			bag_error_say(&out->err, BAG_ECOMPRESS, "bz2 stream makes no progress");
			break;
		}
	}
	out->used = total_in - z.avail_in;
	BZ2_bzDecompressEnd(&z);
}

#ifdef HAVE_LZ4
/* An lz4 length continued in 255-valued bytes; false if the input ends. */
static bool lz4_more_len(const uint8_t *src, size_t n, size_t *i, size_t *len)
{
	uint8_t b;

	do {
		if (*i >= n || *len > SIZE_MAX / 2)
			return false;
		b = src[(*i)++];
		*len += b;
	} while (b == 255);
	return true;
}

/*
 * Decode one lz4 block (n bytes, maybe cut off) onto the output, whose bytes
 * so far are the history matches may reach into. Stops at the first sequence
 * that is not all there or that is corrupt; returns true if the block
 * decoded to its end.
 */
static bool lz4_block(struct sink *s, const uint8_t *src, size_t n)
{
	struct bag_inflated *out = s->out;
	size_t i = 0;

	while (i < n) {
		uint8_t token = src[i++];
		size_t lit = token >> 4, mlen = token & 15, off, room;

		if (lit == 15 && !lz4_more_len(src, n, &i, &lit))
			return false;
		if (lit > n - i)
			return false;
		if ((room = sink_room(s, lit)) < lit)
			return false;
		if (lit > 0)
			memcpy(out->buf + out->len, src + i, lit);
		out->len += lit;
		i += lit;
		if (i == n)
			return true;              /* the last sequence is literals only */
		if (n - i < 2)
			return false;
		off = (size_t)src[i] | (size_t)src[i + 1] << 8;
		i += 2;
		if (mlen == 15 && !lz4_more_len(src, n, &i, &mlen))
			return false;
		mlen += 4;
		if (off == 0 || off > out->len || (room = sink_room(s, mlen)) < mlen)
			return false;
		for (size_t k = 0; k < mlen; k++, out->len++)
			out->buf[out->len] = out->buf[out->len - off];
	}
	return true;
}

/*
 * Walk an lz4 frame block by block with lz4_block(), from scratch: for a
 * frame liblz4 stopped in. Checksums are not verified; the records found in
 * what comes out are checked by their readers.
 */
static void lz4_salvage(const uint8_t *src, size_t n, struct sink *s)
{
	struct bag_inflated *out = s->out;
	size_t i = 7;
	uint8_t flg;

	out->len = 0;
	out->full = false;
	if (n < 7 || bag_le32(src) != LZ4_MAGIC)
		return;
	flg = src[4];
	i += (flg & 0x08 ? 8 : 0) + (flg & 0x01 ? 4 : 0);
	while (i <= n && n - i >= 4) {
		uint32_t word = bag_le32(src + i), size = word & 0x7fffffffu;
		size_t avail;

		i += 4;
		if (word == 0)
			return;
		avail = size < n - i ? size : n - i;
		if (word & 0x80000000u) {
			size_t room = sink_room(s, avail);
			size_t take = room < avail ? room : avail;
			if (take > 0)
				memcpy(out->buf + out->len, src + i, take);
			out->len += take;
			if (take < size)
				return;
		} else if (!lz4_block(s, src + i, avail) || avail < size) {
			return;
		}
		i += size + (flg & 0x10 ? 4 : 0);
	}
}

/*
 * A whole lz4 frame straight into a fixed buffer, when the caller checks a sum
 * of its own (own_sum) or the frame carries none (@mcap/core's lz4js writes
 * none): each block decoded in place by liblz4's block API, checksums
 * skipped. liblz4's frame API decodes a block into a buffer of its own and
 * copies it out whenever the room left is less than the frame's block size
 * (1 MiB for a 768 KiB MCAP chunk: always), and allocates that buffer anew
 * with each context. False, with nothing kept, at anything but a clean frame
 * without a dictionary: inflate_lz4() then says what is wrong.
 */
static bool lz4_direct(const uint8_t *src, size_t n, struct sink *s)
{
	struct bag_inflated *out = s->out;
	size_t i = 7;
	uint8_t flg = n >= 7 ? src[4] : 0, bd = n >= 7 ? src[5] : 0;
	uint32_t block_max = (uint32_t)1 << (8 + 2 * (bd >> 4 & 7));   /* 4: 64 KiB ... 7: 4 MiB */

	/* version 01, no dictionary, reserved bits clear, a block size liblz4 knows */
	if (n < 7 || bag_le32(src) != LZ4_MAGIC || (flg & 0xc3) != 0x40 || (bd & 0x8f) != 0 || (bd >> 4) < 4)
		return false;
	if (!out->own_sum && (flg & 0x14) != 0)   /* block or content checksums: liblz4 checks them */
		return false;
	i += flg & 0x08 ? 8 : 0;
	while (i <= n && n - i >= 4) {
		uint32_t word = bag_le32(src + i), size = word & 0x7fffffffu;
		size_t room = s->cap - out->len, dict = out->len < 65536 ? out->len : 65536;
		int got;

		i += 4;
		if (word == 0) {
			i += flg & 0x04 ? 4 : 0;
			if (i > n)
				break;
			out->used = i;
			out->ended = true;
			return true;
		}
		if (size > n - i || size > block_max)
			break;
		if (word & 0x80000000u) {
			if (size > room)
				break;
			memcpy(out->buf + out->len, src + i, size);
			got = (int)size;
		} else {
			room = room > INT32_MAX ? INT32_MAX : room;
			got = flg & 0x20 || dict == 0 ?
			      LZ4_decompress_safe((const char *)src + i, (char *)out->buf + out->len, (int)size, (int)room) :
			      LZ4_decompress_safe_usingDict((const char *)src + i, (char *)out->buf + out->len, (int)size,
			                                    (int)room, (const char *)out->buf + out->len - dict, (int)dict);
			if (got < 0)
				break;
		}
		out->len += (size_t)got;
		i += size + (flg & 0x10 ? 4 : 0);
	}
	out->len = 0;
	return false;
}

static void inflate_lz4(const uint8_t *src, size_t src_len, struct sink *s)
{
	struct bag_inflated *out = s->out;
	LZ4F_dctx *dctx;
	size_t in_at = 0, ret = 1;
	/* a buffer that never moves needs no copies kept; a sum of the caller's own makes lz4's redundant */
	LZ4F_decompressOptions_t opts = { .stableDst = !s->grow, .skipChecksums = out->own_sum };

	if (!s->grow && lz4_direct(src, src_len, s))
		return;
	dctx = s->ctx->lz4;
	if (dctx != NULL)
		LZ4F_resetDecompressionContext(dctx);
	else if (LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION))) {
		s->rc = BAG_ENOMEM;
		return;
	}
	s->ctx->lz4 = dctx;
	for (;;) {
		size_t room = sink_room(s, 1);
		if (room == 0)
			break;
		size_t in_n = src_len - in_at, out_n = room;
		ret = LZ4F_decompress(dctx, out->buf + out->len, &out_n, src + in_at, &in_n, &opts);
		if (LZ4F_isError(ret)) {
			bag_error_say(&out->err, BAG_ECOMPRESS, "lz4 data is corrupt (%s)", LZ4F_getErrorName(ret));
			break;
		}
		in_at += in_n;
		out->len += out_n;
		if (ret == 0) {
			out->ended = true;
			break;
		}
		if (in_n == 0 && out_n == 0) {
			bag_error_say(&out->err, BAG_ECOMPRESS, "lz4 frame is cut off");
			break;
		}
	}
	out->used = in_at;
	if (!out->ended && !out->full && s->rc == BAG_OK) {
		size_t whole = out->len;
		lz4_salvage(src, src_len, s);
		if (out->len < whole)     /* cannot happen for a frame liblz4 read this far */
			out->len = whole;
	}
}
#endif

#ifdef HAVE_ZSTD
/*
 * A whole zstd frame, in one call straight into out when its size is known
 * (stated in the frame, or out's fixed room): no window buffers (2.4 MB a
 * context) and no copy out of them. False (out as it was) for any other
 * frame, or a damaged one, which the streaming loop then takes.
 */
static bool inflate_zstd_whole(ZSTD_DCtx *dctx, const uint8_t *src, size_t src_len, struct sink *s)
{
	struct bag_inflated *out = s->out;
	size_t whole = ZSTD_findFrameCompressedSize(src, src_len), room, got;
	unsigned long long size = ZSTD_getFrameContentSize(src, src_len);

	if (ZSTD_isError(whole) || size == ZSTD_CONTENTSIZE_ERROR)
		return false;
	if (size != ZSTD_CONTENTSIZE_UNKNOWN)
		room = size <= s->max - out->len && sink_room(s, (size_t)size) >= size ? (size_t)size : 0;
	else
		room = s->grow ? 0 : s->cap - out->len;
	if (room == 0)
		return false;
	got = ZSTD_decompressDCtx(dctx, out->buf + out->len, room, src, whole);
	if (ZSTD_isError(got) || (size != ZSTD_CONTENTSIZE_UNKNOWN && got != size)) {
		ZSTD_DCtx_reset(dctx, ZSTD_reset_session_only);
		return false;
	}
	out->len += got;
	out->used = whole;
	out->ended = true;
	return true;
}

/* A zstd frame as far as it goes (a cut-off frame yields what was decoded). */
static void inflate_zstd(const uint8_t *src, size_t src_len, struct sink *s)
{
	struct bag_inflated *out = s->out;
	ZSTD_DCtx *dctx = s->ctx->zstd != NULL ? s->ctx->zstd : ZSTD_createDCtx();
	ZSTD_inBuffer in = { src, src_len, 0 };
	size_t ret = 1;

	if (dctx == NULL) {
		s->rc = BAG_ENOMEM;
		return;
	}
	ZSTD_DCtx_reset(dctx, ZSTD_reset_session_only);
	s->ctx->zstd = dctx;
	if (inflate_zstd_whole(dctx, src, src_len, s))
		return;
	for (;;) {
		size_t room = sink_room(s, 1);
		if (room == 0)
			break;
		ZSTD_outBuffer o = { out->buf + out->len, room, 0 };
		ret = ZSTD_decompressStream(dctx, &o, &in);
		out->len += o.pos;
		if (ZSTD_isError(ret)) {
			bag_error_say(&out->err, BAG_ECOMPRESS, "zstd data is corrupt (%s)", ZSTD_getErrorName(ret));
			break;
		}
		if (ret == 0) {
			out->ended = true;
			break;
		}
		if (in.pos == in.size && o.pos < room) {
			bag_error_say(&out->err, BAG_ECOMPRESS, "zstd frame is cut off");
			break;
		}
	}
	out->used = in.pos;
}
#endif

int bag_codec_unzstd_fd(int in, int out, uint64_t max, uint64_t *written, struct bag_error *err)
{
#ifdef HAVE_ZSTD
	enum { IN = 1 << 17, OUT = 1 << 17 };
	ZSTD_DCtx *dctx = ZSTD_createDCtx();
	uint8_t *ibuf = malloc(IN), *obuf = malloc(OUT);
	size_t ret = 1;
	ssize_t got = 1;
	int rc = BAG_OK;

	*written = 0;
	if (dctx == NULL || ibuf == NULL || obuf == NULL)
		rc = bag_error_say(err, BAG_ENOMEM, "out of memory");
	while (rc == BAG_OK && (got = read(in, ibuf, IN)) > 0) {
		ZSTD_inBuffer i = { ibuf, (size_t)got, 0 };
		while (rc == BAG_OK && i.pos < i.size) {
			ZSTD_outBuffer o = { obuf, OUT, 0 };
			if (ZSTD_isError(ret = ZSTD_decompressStream(dctx, &o, &i)))
				rc = bag_error_say(err, BAG_ECOMPRESS, "zstd data is corrupt at compressed byte %llu (%s)",
				                   (unsigned long long)(lseek(in, 0, SEEK_CUR) - got + (off_t)i.pos),
				                   ZSTD_getErrorName(ret));
			else if (o.pos > max - *written)
				rc = bag_error_say(err, BAG_EIO, "it decompresses to more than the %llu bytes free for it",
				                   (unsigned long long)max);
			else if (o.pos > 0 && write(out, obuf, o.pos) != (ssize_t)o.pos)
				rc = bag_error_say(err, BAG_EIO, "cannot write its decompressed copy: %s", strerror(errno));
			*written += o.pos;
		}
	}
	if (rc == BAG_OK && got < 0)
		rc = bag_error_say(err, BAG_EIO, "cannot read it: %s", strerror(errno));
	if (rc == BAG_OK && ret != 0)
		rc = bag_error_say(err, BAG_ECOMPRESS, "its zstd stream is cut off after %llu decompressed bytes",
		                   (unsigned long long)*written);
	ZSTD_freeDCtx(dctx);
	free(ibuf);
	free(obuf);
	return rc;
#else
	(void)in, (void)out, (void)max, (void)written;
	return bag_error_say(err, BAG_EUNSUPP, "zstd-compressed files are not supported by this build");
#endif
}

void bag_codec_ctx_free(struct bag_codec_ctx *ctx)
{
	if (ctx == NULL)
		return;
#ifdef HAVE_ZSTD
	ZSTD_freeDCtx(ctx->zstd);
#endif
#ifdef HAVE_LZ4
	if (ctx->lz4 != NULL)
		LZ4F_freeDecompressionContext(ctx->lz4);
#endif
	*ctx = (struct bag_codec_ctx){ 0 };
}

int bag_codec_inflate(struct bag_codec_ctx *ctx, enum bag_compression comp, const uint8_t *src, size_t src_len,
                      size_t cap, size_t max_cap, bool grow, struct bag_inflated *out)
{
	struct bag_codec_ctx own = { 0 };
	struct sink s = { out, cap, grow ? max_cap : cap, grow, BAG_OK, ctx != NULL ? ctx : &own };
	int rc;

	if (grow)
		out->buf = NULL;
	out->len = out->used = 0;
	out->ended = out->full = false;
	bag_error_clear(&out->err);
	if (grow && s.cap > 0) {
		s.cap = cap < max_cap ? cap : max_cap;
		if ((out->buf = malloc(s.cap)) == NULL)
			return BAG_ENOMEM;
	}
	switch (comp) {
	case BAG_COMPRESSION_NONE: {
		size_t room = sink_room(&s, src_len);
		size_t n = room < src_len ? room : src_len;
		if (n > 0)
			memcpy(out->buf + out->len, src, n);
		out->len = out->used = n;
		out->ended = n == src_len;
		break;
	}
	case BAG_COMPRESSION_BZ2:
		inflate_bz2(src, src_len, &s);
		break;
#ifdef HAVE_LZ4
	case BAG_COMPRESSION_LZ4:
		inflate_lz4(src, src_len, &s);
		break;
#endif
#ifdef HAVE_ZSTD
	case BAG_COMPRESSION_ZSTD:
		inflate_zstd(src, src_len, &s);
		break;
#endif
	default:
		return BAG_EUNSUPP;
	}
	rc = s.rc;
	bag_codec_ctx_free(&own);
	return rc;
}
