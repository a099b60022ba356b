/*
 * crc32.c - CRC-32 (ISO-HDLC, as zlib and MCAP compute it): the MCAP reader
 * checks chunks and sections with it, the writers sum what they write.
 *
 * Two ways, the same result: eight bytes a step with tables made once
 * (pthread_once) and only read after; and, on an x86-64 whose CPU has
 * PCLMULQDQ (asked once), carry-less multiplication folding 64 bytes a step
 * into four 128-bit accumulators, whose last one and the tail go through
 * the tables (the state is linear: folding keeps the message's remainder).
 * With VPCLMULQDQ and AVX-512 too, runs of 256 bytes or more fold 256
 * bytes a step into four 512-bit accumulators first, which then fold into
 * one whose four 128-bit lanes are the four accumulators above.
 * tests/unit/test-crc32 compares them all on every length and alignment.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/common/util-int.h"

static uint32_t crc_table[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;
static bool crc_fast;      /* the CPU has PCLMULQDQ */
static bool crc_wide;      /* and VPCLMULQDQ with AVX-512 */

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_table[t][i] = crc_table[t - 1][i] >> 8 ^ crc_table[0][crc_table[t - 1][i] & 0xff];
#if defined(__x86_64__) && defined(__GNUC__)
	__builtin_cpu_init();
	crc_fast = __builtin_cpu_supports("pclmul") && getenv("BAGSCOPE_CRC_TABLE") == NULL;
	crc_wide = crc_fast && __builtin_cpu_supports("vpclmulqdq") && __builtin_cpu_supports("avx512f") &&
	           getenv("BAGSCOPE_CRC_NARROW") == NULL;
#endif
}

/* The raw (not inverted) state c over n bytes at s, by the tables. */
static uint32_t crc_table_run(uint32_t c, const uint8_t *s, size_t n)
{
	for (; n >= 8; n -= 8, s += 8) {
		uint32_t lo = c ^ ((uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 | (uint32_t)s[3] << 24);
		c = crc_table[7][lo & 0xff] ^ crc_table[6][lo >> 8 & 0xff] ^ crc_table[5][lo >> 16 & 0xff] ^
		    crc_table[4][lo >> 24] ^ crc_table[3][s[4]] ^ crc_table[2][s[5]] ^ crc_table[1][s[6]] ^
		    crc_table[0][s[7]];
	}
	while (n-- > 0)
		c = crc_table[0][(c ^ *s++) & 0xff] ^ c >> 8;
	return c;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define CRC_CLMUL 1

/* k(n) = reflect(x^n mod P) << 1: fold 512 bits (k(544), k(480)) and 128 bits (k(160), k(96)) */
#define K544 0x154442bd4ull
#define K480 0x1c6e41596ull
#define K160 0x1751997d0ull
#define K96 0x0ccaa009eull
#define K2080 0x11542778aull   /* fold 2048 bits: four 512-bit accumulators */
#define K2016 0x1322d1430ull

/* One 128-bit fold of x over distance k, onto the block d. */
__attribute__((target("pclmul,sse2"))) static inline __m128i fold(__m128i x, __m128i k, __m128i d)
{
	return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)), d);
}

/* fold() on each of the four 128-bit lanes at once. */
__attribute__((target("vpclmulqdq,avx512f"))) static inline __m512i fold4(__m512i x, __m512i k, __m512i d)
{
	return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00), _mm512_clmulepi64_epi128(x, k, 0x11), d, 0x96);
}

/*
 * crc_clmul()'s four accumulators after n >= 256 bytes at s (c xored into
 * the first), folded 256 bytes a step; *s and *n are moved past the bytes
 * taken, which leave fewer than 64.
 */
__attribute__((target("vpclmulqdq,avx512f"))) static void crc_wide_run(uint32_t c, const uint8_t **s, size_t *n,
                                                                       __m128i x[4])
{
	const __m512i k16 = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)K2016, (long long)K2080));
	const __m512i k4 = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)K480, (long long)K544));
	const uint8_t *p = *s;
	size_t left = *n;
	__m512i y0 = _mm512_xor_si512(_mm512_loadu_si512(p), _mm512_inserti32x4(_mm512_setzero_si512(),
	                                                                         _mm_cvtsi32_si128((int)c), 0));
	__m512i y1 = _mm512_loadu_si512(p + 64), y2 = _mm512_loadu_si512(p + 128), y3 = _mm512_loadu_si512(p + 192);

	for (p += 256, left -= 256; left >= 256; p += 256, left -= 256) {
		y0 = fold4(y0, k16, _mm512_loadu_si512(p));
		y1 = fold4(y1, k16, _mm512_loadu_si512(p + 64));
		y2 = fold4(y2, k16, _mm512_loadu_si512(p + 128));
		y3 = fold4(y3, k16, _mm512_loadu_si512(p + 192));
	}
	y0 = fold4(fold4(fold4(y0, k4, y1), k4, y2), k4, y3);
	for (; left >= 64; p += 64, left -= 64)
		y0 = fold4(y0, k4, _mm512_loadu_si512(p));
	x[0] = _mm512_extracti32x4_epi32(y0, 0);
	x[1] = _mm512_extracti32x4_epi32(y0, 1);
	x[2] = _mm512_extracti32x4_epi32(y0, 2);
	x[3] = _mm512_extracti32x4_epi32(y0, 3);
	*s = p;
	*n = left;
}

/*
 * The raw CRC state c over n >= 64 bytes at s, by folding: c is xored into
 * the first bytes, 64-byte blocks folded into four accumulators, those into
 * one, which (as 16 bytes of message) and the tail go through the table.
 */
__attribute__((target("pclmul,sse2"))) static uint32_t crc_clmul(uint32_t c, const uint8_t *s, size_t n)
{
	const __m128i k4 = _mm_set_epi64x((long long)K480, (long long)K544);
	const __m128i k1 = _mm_set_epi64x((long long)K96, (long long)K160);
	__m128i x[4], x0, x1, x2, x3;
	uint8_t rest[16];

	if (crc_wide && n >= 256) {
		crc_wide_run(c, &s, &n, x);
		x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];
	} else {
		x0 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)s), _mm_cvtsi32_si128((int)c));
		x1 = _mm_loadu_si128((const __m128i *)(s + 16));
		x2 = _mm_loadu_si128((const __m128i *)(s + 32));
		x3 = _mm_loadu_si128((const __m128i *)(s + 48));
		s += 64;
		n -= 64;
	}
	for (; n >= 64; s += 64, n -= 64) {
		x0 = fold(x0, k4, _mm_loadu_si128((const __m128i *)s));
		x1 = fold(x1, k4, _mm_loadu_si128((const __m128i *)(s + 16)));
		x2 = fold(x2, k4, _mm_loadu_si128((const __m128i *)(s + 32)));
		x3 = fold(x3, k4, _mm_loadu_si128((const __m128i *)(s + 48)));
	}
	x0 = fold(fold(fold(x0, k1, x1), k1, x2), k1, x3);
	for (; n >= 16; s += 16, n -= 16)
		x0 = fold(x0, k1, _mm_loadu_si128((const __m128i *)s));
	_mm_storeu_si128((__m128i *)rest, x0);
	return crc_table_run(crc_table_run(0, rest, 16), s, n);
}
#endif

uint32_t bag_crc32(uint32_t crc, const void *p, size_t n)
{
	pthread_once(&crc_once, crc_init);
#ifdef CRC_CLMUL
	if (crc_fast && n >= 64)
		return ~crc_clmul(~crc, p, n);
#endif
	return ~crc_table_run(~crc, p, n);
}
