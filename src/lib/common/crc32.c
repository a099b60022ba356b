/*
 * crc32.c - CRC-32 (ISO-HDLC, as zlib and MCAP compute it), eight bytes a
 * step with tables made once (pthread_once) and only read after: the MCAP
 * reader checks chunks and sections with it, the writers sum what they write.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/common/util-int.h"

static uint32_t crc_table[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

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
}

uint32_t bag_crc32(uint32_t crc, const void *p, size_t n)
{
	const uint8_t *s = p;
	uint32_t c = ~crc;

	pthread_once(&crc_once, crc_init);
	for (; n >= 8; n -= 8, s += 8) {
		uint32_t lo = c ^ ((uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 | (uint32_t)s[3] << 24);
		c = crc_table[7][lo & 0xff] ^ crc_table[6][lo >> 8 & 0xff] ^ crc_table[5][lo >> 16 & 0xff] ^
		    crc_table[4][lo >> 24] ^ crc_table[3][s[4]] ^ crc_table[2][s[5]] ^ crc_table[1][s[6]] ^
		    crc_table[0][s[7]];
	}
	while (n-- > 0)
		c = crc_table[0][(c ^ *s++) & 0xff] ^ c >> 8;
	return ~c;
}

