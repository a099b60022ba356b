/*
 * crc32.c - CRC-32 (ISO-HDLC, as zlib and MCAP compute it): the MCAP reader
 * checks chunks and sections with it, the writers sum what they write.
 *
 * Two ways, the same result: eight bytes a step with tables made once
 * (pthread_once) and only read after; and, on an x86-64 whose CPU has
 * PCLMULQDQ (asked once), carry-less multiplication folding 64 bytes a step
 * into four 128-bit accumulators, whose last one and the tail go through
 * the tables (the state is linear: folding keeps the message's remainder).
 * tests/unit/test-crc32 compares the two on every length and alignment.
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

/* One 128-bit fold of x over distance k, onto the block d. */
__attribute__((target("pclmul,sse2"))) static inline __m128i fold(__m128i x, __m128i k, __m128i d)
{
	return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)), d);
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
	__m128i x0 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)s), _mm_cvtsi32_si128((int)c));
	__m128i x1 = _mm_loadu_si128((const __m128i *)(s + 16));
	__m128i x2 = _mm_loadu_si128((const __m128i *)(s + 32));
	__m128i x3 = _mm_loadu_si128((const __m128i *)(s + 48));
	uint8_t rest[16];

	for (s += 64, n -= 64; n >= 64; s += 64, n -= 64) {
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
