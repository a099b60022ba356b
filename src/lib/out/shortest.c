/*
 * shortest.c - the shortest decimal that reads back to a double, closest
 * to it among the shortest (ties to an even last digit): Python's repr
 * digits. The method is Giulietti's Schubfach, written here from the paper:
 *
 * v = c 2^q. Its rounding interval (half-way to the neighbours, the ends
 * included when c is even) is scaled by 10^-k, k = floor(log10 2^q), so
 * it is narrower than 10 and wider than 1 unit: the shortest decimals in
 * it are among s and s + 1 (s = floor(v 10^-k)) or, one digit shorter,
 * among the multiples of 10 just below and above v. The scaling multiplies
 * by g(k), a 126-bit over-approximation of 10^-k 2^-r (r chosen so that
 * 2^125 <= g < 2^126), rounding the product to odd, which keeps every
 * comparison with the interval's ends exact.
 *
 * The table g holds k = K_MIN..K_MAX (617 x 16 bytes); it is computed once,
 * exactly, with a small big-number routine (10^n by repeated products;
 * 2^N / 10^n by repeated division by 10, whose floors compose).
 * Java's version asks for two digits at least; this one does not (5e-324).
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "lib/out/print-int.h"

typedef unsigned __int128 u128;

#define K_MIN (-324)
#define K_MAX 292
#define LIMBS 40            /* 1280 bits: 10^324 (1077) and 2^TOP */
#define TOP 1216            /* 2^TOP / 10^k keeps 126 bits for k <= K_MAX */
#define C_MIN (1ULL << 52)
#define Q_MIN (-1074)

static u128 g_table[K_MAX - K_MIN + 1];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

/* floor(log2(10^e)), floor(log10(2^q)), floor(log10(3/4 2^q)) in their ranges. */
static int flog2pow10(int e)
{
	return (int)(((int64_t)e * 217706) >> 16);
}

static int flog10pow2(int q)
{
	return (int)(((int64_t)q * 661971961083LL) >> 41);
}

static int flog10three_quarters_pow2(int q)
{
	return (int)(((int64_t)q * 661971961083LL - 274743187321LL) >> 41);
}

/* floor(x / 2^r) of a big number (32-bit limbs, least first), r >= 0, when it fits in 128 bits. */
static u128 big_shr(const uint32_t *x, int r)
{
	u128 out = 0;

	for (int i = LIMBS - 1; i >= 0; i--) {
		int at = 32 * i - r;   /* where limb i's lowest bit lands */
		if (at >= 128 || x[i] == 0)
			continue;
		if (at >= 0)
			out |= (u128)x[i] << at;
		else if (at > -32)
			out |= (u128)(x[i] >> -at);
	}
	return out;
}

static void big_mul10(uint32_t *x)
{
	uint64_t carry = 0;

	for (int i = 0; i < LIMBS; i++) {
		uint64_t p = (uint64_t)x[i] * 10 + carry;
		x[i] = (uint32_t)p;
		carry = p >> 32;
	}
}

static void big_div10(uint32_t *x)
{
	uint64_t rem = 0;

	for (int i = LIMBS - 1; i >= 0; i--) {
		uint64_t cur = rem << 32 | x[i];
		x[i] = (uint32_t)(cur / 10);
		rem = cur % 10;
	}
}

/* g(k) = floor(10^-k 2^-r) + 1, r = flog2pow10(-k) - 125. */
static void make_table(void)
{
	uint32_t x[LIMBS] = { 1 };

	for (int k = 0; k >= K_MIN; k--) {          /* x = 10^-k */
		int r = flog2pow10(-k) - 125;
		g_table[k - K_MIN] = (r >= 0 ? big_shr(x, r) : big_shr(x, 0) << -r) + 1;
		big_mul10(x);
	}
	memset(x, 0, sizeof x);
	x[TOP / 32] = 1u << (TOP % 32);
	for (int k = 1; k <= K_MAX; k++) {          /* x = floor(2^TOP / 10^k) */
		big_div10(x);
		g_table[k - K_MIN] = big_shr(x, TOP + flog2pow10(-k) - 125) + 1;
	}
}

/*
 * g cp / 2^127 rounded to odd, as the method computes it: g in two 63-bit
 * halves g1 g0, the low 64 bits of g0 cp dropped (exactness holds for this
 * sum; with every bit kept, g's excess over 10^-k 2^-r would turn an exact
 * tie into "above").
 */
static uint64_t rop(u128 g, uint64_t cp)
{
	const uint64_t m63 = (1ULL << 63) - 1;
	uint64_t g1 = (uint64_t)(g >> 63), g0 = (uint64_t)g & m63;
	uint64_t x1 = (uint64_t)(((u128)g0 * cp) >> 64);
	u128 y = (u128)g1 * cp;
	uint64_t z = ((uint64_t)y >> 1) + x1;
	uint64_t vbp = (uint64_t)(y >> 64) + (z >> 63);

	return vbp | (((z & m63) + m63) >> 63);
}

/* The digits of c 2^q (c > 0) as *f 10^*e. */
static void to_decimal(uint64_t c, int q, uint64_t *f, int *e)
{
	uint64_t out = c & 1, cb = c << 2, cbr = cb + 2, cbl;
	int k;

	if (c != C_MIN || q == Q_MIN) {
		cbl = cb - 2;
		k = flog10pow2(q);
	} else {
		cbl = cb - 1;
		k = flog10three_quarters_pow2(q);
	}
	int h = q + flog2pow10(-k) + 2;
	u128 g = g_table[k - K_MIN];
	uint64_t vb = rop(g, cb << h), vbl = rop(g, cbl << h), vbr = rop(g, cbr << h);
	uint64_t s = vb >> 2, t;
	*e = k;
	if (s >= 10) {
		uint64_t sp10 = s / 10 * 10, tp10 = sp10 + 10;
		bool upin = vbl + out <= sp10 << 2, wpin = (tp10 << 2) + out <= vbr;
		if (upin != wpin) {
			*f = upin ? sp10 : tp10;
			return;
		}
	}
	t = s + 1;
	bool uin = vbl + out <= s << 2, win = (t << 2) + out <= vbr;
	if (uin != win) {
		*f = uin ? s : t;
		return;
	}
	int64_t cmp = (int64_t)(vb - ((s + t) << 1));
	*f = cmp < 0 || (cmp == 0 && (s & 1) == 0) ? s : t;
}

/* f's decimal digits (f > 0) into out, two at a time from the end; their count. */
static int write_digits(uint64_t f, char *out)
{
	static const char pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	                               "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	                               "8081828384858687888990919293949596979899";
	char tmp[20], *p = tmp + sizeof tmp;
	int n;

	while (f >= 100) {
		p -= 2;
		memcpy(p, pairs + 2 * (f % 100), 2);
		f /= 100;
	}
	if (f >= 10) {
		p -= 2;
		memcpy(p, pairs + 2 * f, 2);
	} else {
		*--p = (char)('0' + f);
	}
	n = (int)(tmp + sizeof tmp - p);
	memcpy(out, p, (size_t)n);
	return n;
}

int shortest_digits(double d, char digits[20], int *exp10)
{
	uint64_t bits, c, f;
	int q, e, n;

	pthread_once(&g_once, make_table);
	memcpy(&bits, &d, sizeof bits);
	c = bits & (C_MIN - 1);
	q = (int)(bits >> 52 & 0x7ff);
	if (q != 0) {
		c |= C_MIN;
		q += Q_MIN - 1;
	} else {
		q = Q_MIN;
	}
	to_decimal(c, q, &f, &e);
	while (f % 100 == 0) {
		f /= 100;
		e += 2;
	}
	if (f % 10 == 0) {
		f /= 10;
		e++;
	}
	n = write_digits(f, digits);
	*exp10 = e + n - 1;
	return n;
}
