/*
 * test-codec.c - lz4 frames decoded into a fixed buffer whose sum the caller
 * checks (MCAP chunks: own_sum), which codec.c decodes block by block with
 * liblz4's block API instead of its frame API (src/lib/formats/codec.c,
 * compiled in: it is hidden in the library). Frames come from liblz4's own
 * frame writer, which we did not write, with every frame option it has
 * (block sizes, linked and independent blocks, block and content
 * checksums, content size) over data with compressible and incompressible
 * (stored) blocks: the output must be the input. Frames cut at odd sizes and
 * with a byte changed must come out exactly as liblz4's frame API gives them
 * (a growing buffer, which takes that path), whatever happens. The frame
 * API's contexts are counted (this file's LZ4F_createDecompressionContext
 * comes first): a whole frame must be decoded without one. A handle's kept
 * contexts (struct bag_codec_ctx: lz4 and zstd, reused from chunk to chunk)
 * must give what fresh ones give, also after a cut or damaged frame, and
 * lz4's is made once.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "scale.h"
#include <lz4frame.h>
#include <zstd.h>

#include "lib/formats/codec-int.h"

static int frame_api_uses;

/* liblz4's, counted. */
LZ4F_errorCode_t LZ4F_createDecompressionContext(LZ4F_dctx **dctx, unsigned version)
{
	LZ4F_errorCode_t (*real)(LZ4F_dctx **, unsigned) =
		(LZ4F_errorCode_t (*)(LZ4F_dctx **, unsigned))dlsym(RTLD_NEXT, "LZ4F_createDecompressionContext");

	frame_api_uses++;
	return real(dctx, version);
}

/* n bytes: runs of repeated text, runs of noise (stored blocks), and zeros. */
static uint8_t *sample(size_t n, uint32_t seed)
{
	uint8_t *p = malloc(n ? n : 1);

	assert_non_null(p);
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		size_t part = (i / 50000) % 3;
		p[i] = part == 0 ? (uint8_t)"header.stamp frame_id base_link "[i % 32] :
		       part == 1 ? (uint8_t)(seed >> 16) : 0;
	}
	return p;
}

/* src compressed as one frame with prefs; *n its size. */
static uint8_t *frame(const uint8_t *src, size_t len, const LZ4F_preferences_t *prefs, size_t *n)
{
	size_t cap = LZ4F_compressFrameBound(len, prefs);
	uint8_t *out = malloc(cap);

	assert_non_null(out);
	*n = LZ4F_compressFrame(out, cap, src, len, prefs);
	assert_false(LZ4F_isError(*n));
	return out;
}

/* src[0..n) inflated with own_sum into a fixed buffer of cap bytes (fast) or a growing one (frame API). */
static struct bag_inflated inflate(const uint8_t *src, size_t n, size_t cap, bool grow)
{
	struct bag_inflated inf = { .own_sum = true };

	if (!grow) {
		inf.buf = malloc(cap ? cap : 1);
		assert_non_null(inf.buf);
	}
	assert_int_equal(bag_codec_inflate(NULL, BAG_COMPRESSION_LZ4, src, n, grow ? 4096 : cap, cap, grow, &inf), 0);
	return inf;
}

/* The fixed buffer's result is the frame API's, byte for byte. */
static void same_as_frame_api(const uint8_t *src, size_t n, size_t cap)
{
	struct bag_inflated a = inflate(src, n, cap, false), b = inflate(src, n, cap, true);

	assert_int_equal(a.len, b.len);
	assert_int_equal(a.ended, b.ended);
	if (a.ended)   /* input used is the stream's length only once it ended */
		assert_int_equal(a.used, b.used);
	if (a.len > 0)
		assert_memory_equal(a.buf, b.buf, a.len);
	free(a.buf);
	free(b.buf);
}

static void test_every_frame_option(void **state)
{
	static const size_t sizes[] = { 0, 1, 100, 65536, 70001, 786432, 3 << 20 };
	static const LZ4F_blockSizeID_t blocks[] = { LZ4F_max64KB, LZ4F_max256KB, LZ4F_max1MB, LZ4F_max4MB };
	(void)state;

	for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
		if (sizes[si] > test_scaled(4 << 20))
			continue;   /* under valgrind, frames up to 400 KiB (scale.h) */
		uint8_t *src = sample(sizes[si], (uint32_t)si);
		for (int opt = 0; opt < 4 * 2 * 2 * 2 * 2; opt++) {
			LZ4F_preferences_t prefs = { 0 };
			prefs.frameInfo.blockSizeID = blocks[opt % 4];
			prefs.frameInfo.blockMode = opt / 4 % 2 ? LZ4F_blockIndependent : LZ4F_blockLinked;
			prefs.frameInfo.blockChecksumFlag = opt / 8 % 2 ? LZ4F_blockChecksumEnabled : LZ4F_noBlockChecksum;
			prefs.frameInfo.contentChecksumFlag = opt / 16 % 2 ? LZ4F_contentChecksumEnabled : LZ4F_noContentChecksum;
			prefs.frameInfo.contentSize = opt / 32 % 2 ? sizes[si] : 0;
			size_t n;
			uint8_t *f = frame(src, sizes[si], &prefs, &n);
			frame_api_uses = 0;
			struct bag_inflated inf = inflate(f, n, sizes[si] + 1, false);
			assert_int_equal(frame_api_uses, 0);
			assert_true(inf.ended);
			assert_int_equal(inf.len, sizes[si]);
			assert_int_equal(inf.used, n);
			if (sizes[si] > 0)
				assert_memory_equal(inf.buf, src, sizes[si]);
			free(inf.buf);
			/* a buffer one byte short: never written past, not ended */
			if (sizes[si] > 0) {
				inf = inflate(f, n, sizes[si] - 1, false);
				assert_false(inf.ended);
				assert_true(inf.len <= sizes[si] - 1);
				free(inf.buf);
			}
			free(f);
		}
		free(src);
	}
}

static void test_cut_and_changed_frames(void **state)
{
	size_t len = 300000, n;
	uint8_t *src = sample(len, 7);
	(void)state;

	for (int linked = 0; linked < 2; linked++) {
		LZ4F_preferences_t prefs = { 0 };
		prefs.frameInfo.blockSizeID = LZ4F_max64KB;
		prefs.frameInfo.blockMode = linked ? LZ4F_blockLinked : LZ4F_blockIndependent;
		prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
		uint8_t *f = frame(src, len, &prefs, &n);
		/* every cut in the header, then every 997th byte (under valgrind a TEST_SCALE-th: scale.h) */
		for (size_t cut = 0; cut < n; cut += cut < 64 ? 1 : 997 * test_scale())
			same_as_frame_api(f, cut, len + 1);
		/* a byte changed anywhere past the frame header (whose own checksum only the frame API reads) */
		for (size_t at = 7; at < n; at += 613 * test_scale()) {
			uint8_t *g = malloc(n);
			assert_non_null(g);
			memcpy(g, f, n);
			g[at] ^= 0x5a;
			same_as_frame_api(g, n, len + 1);
			free(g);
		}
		free(f);
	}
	free(src);
}

/* src[0..n) of comp into a growing buffer, with ctx (NULL: fresh contexts) */
static struct bag_inflated inflate_with(struct bag_codec_ctx *ctx, enum bag_compression comp, const uint8_t *src,
                                        size_t n, size_t max)
{
	struct bag_inflated inf = { 0 };

	assert_int_equal(bag_codec_inflate(ctx, comp, src, n, 4096, max, true, &inf), 0);
	return inf;
}

/* Frames whole, cut and with a byte changed, in turn through one kept context: as fresh ones give them. */
static void test_kept_contexts(void **state)
{
	struct bag_codec_ctx ctx = { 0 };
	(void)state;

	frame_api_uses = 0;
	for (int i = 0; i < 60; i++) {
		size_t len = 1000 + (size_t)i * 7919, n;
		uint8_t *src = sample(len, (uint32_t)i);
		enum bag_compression comp = i % 2 ? BAG_COMPRESSION_ZSTD : BAG_COMPRESSION_LZ4;
		LZ4F_preferences_t prefs = { 0 };
		uint8_t *f;

		if (comp == BAG_COMPRESSION_LZ4) {
			prefs.frameInfo.blockSizeID = LZ4F_max64KB;
			prefs.frameInfo.blockMode = i % 4 ? LZ4F_blockLinked : LZ4F_blockIndependent;
			f = frame(src, len, &prefs, &n);
		} else {
			f = malloc(ZSTD_compressBound(len));
			assert_non_null(f);
			n = ZSTD_compress(f, ZSTD_compressBound(len), src, len, 1 + i % 5);
			assert_false(ZSTD_isError(n));
		}
		if (i % 3 == 1)
			n = n / 2 + (size_t)i;             /* cut */
		else if (i % 3 == 2)
			f[n / 2] ^= 0x5a;                /* changed */
		struct bag_inflated a = inflate_with(&ctx, comp, f, n, len + 1), b = inflate_with(NULL, comp, f, n, len + 1);
		assert_int_equal(a.len, b.len);
		assert_int_equal(a.ended, b.ended);
		assert_int_equal(a.used, b.used);
		assert_string_equal(a.err.message, b.err.message);
		if (a.len > 0)
			assert_memory_equal(a.buf, b.buf, a.len);
		if (i % 3 == 0) {
			assert_true(a.ended);
			assert_int_equal(a.len, len);
			assert_memory_equal(a.buf, src, len);
		}
		free(a.buf);
		free(b.buf);
		free(f);
		free(src);
	}
	/* one for the kept context; the fresh ones made one each for 30 frames */
	assert_int_equal(frame_api_uses, 1 + 30);
	bag_codec_ctx_free(&ctx);
	bag_codec_ctx_free(&ctx);   /* a freed one is zeroed: freeing it again does nothing */
	assert_null(ctx.zstd);
	assert_null(ctx.lz4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_frame_option),
		cmocka_unit_test(test_cut_and_changed_frames),
		cmocka_unit_test(test_kept_contexts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
