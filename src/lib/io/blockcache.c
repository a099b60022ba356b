/*
 * blockcache.c - the bytes a remote source has fetched: a bounded LRU of
 * ranges, shared (under a mutex) by a handle and every bag_dup of it.
 *
 * Entries are ranges [off, off + len) kept in an array sorted by off: the
 * fetches of misses (MIN_FETCH up to MAX_WINDOW bytes) and small spans
 * (chunk headers fetched by a multi-range request). No entry lies within
 * another (a put drops those inside it, and is dropped when inside one),
 * so ends are sorted too and the entry holding off, if any, is the last
 * one starting at or before it.
 * bytes <= limit after every put: the least recently used entries go,
 * and before them those fetched in the background (once) and read to
 * their end: a scan reads a chunk once, while chunk headers and index
 * regions fetched early are read again later.
 *
 * Fetches are planned here, under the same lock, so that the handles of a
 * scan's workers act as one reader: a range being fetched is registered
 * (flight[]), a handle that needs bytes in it waits for it rather than
 * fetching them again, and read-ahead follows the misses of all handles
 * together: a miss within SEQ_GAP after the last fetch's end doubles the
 * window (up to MAX_WINDOW, and a quarter of the limit); any other miss
 * fetches what it needs, at least MIN_FETCH. Once a reader has said which
 * bytes it will read (the background fetcher, `ahead`, attached here), the
 * window no longer grows: those hints, not guesses, run ahead.
 * A big read received straight into its reader's buffer (claim_direct) is
 * a flight too, and the last DIRECTS of them are remembered (direct[]), so
 * that the background fetcher never fetches those bytes again. Buffers the
 * readers are done with wait in pool[] (at most POOL, an eighth of the
 * limit) for the next fetches, whose pages are then not faulted in anew.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/io/remote-int.h"

struct entry {
	uint64_t off;
	size_t len;
	uint8_t *data;
	uint64_t used;            /* clock value of the last use; 0 once read through */
	bool once;                /* read once (a background fetch): goes first when read through */
};

#define FLIGHTS 64
#define DIRECTS 16
#define POOL 8
#define POOL_ROUND ((size_t)64 << 10)   /* new buffers rounded up to this: a bag's chunks fit each other's */

struct blockcache {
	pthread_mutex_t lock;
	pthread_cond_t landed;    /* a fetch in flight ended */
	struct { uint64_t lo, end; } flight[FLIGHTS];
	size_t nflight;
	struct { uint64_t lo, end; } direct[DIRECTS];  /* the last direct reads, a ring */
	unsigned ndirect;         /* direct reads so far; the next goes to direct[ndirect % DIRECTS] */
	uint64_t seq_end;         /* end of the last fetch planned */
	uint64_t window;          /* bytes of the next sequential fetch */
	int refs;
	struct entry *e;          /* sorted by off */
	size_t n, cap;
	size_t bytes, limit;
	uint64_t clock;
	uint64_t fetched, requests;
	struct { uint8_t *buf; size_t cap; } pool[POOL];  /* buffers given back, pool[0..npool) */
	size_t npool, pool_bytes;
	void *ahead;              /* the background fetcher, or NULL */
	void (*ahead_stop)(void *);
};

struct blockcache *blockcache_new(size_t limit)
{
	struct blockcache *c = calloc(1, sizeof *c);

	if (c == NULL)
		return NULL;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->landed, NULL);
	c->refs = 1;
	c->window = MIN_FETCH;
	c->limit = limit;
	return c;
}

void blockcache_ref(struct blockcache *c)
{
	pthread_mutex_lock(&c->lock);
	c->refs++;
	pthread_mutex_unlock(&c->lock);
}

void blockcache_unref(struct blockcache *c)
{
	int left;

	if (c == NULL)
		return;
	pthread_mutex_lock(&c->lock);
	left = --c->refs;
	pthread_mutex_unlock(&c->lock);
	if (left > 0)
		return;
	if (c->ahead != NULL)
		c->ahead_stop(c->ahead);
	for (size_t i = 0; i < c->n; i++)
		free(c->e[i].data);
	for (size_t i = 0; i < c->npool; i++)
		free(c->pool[i].buf);
	free(c->e);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->landed);
	free(c);
}

/* Index of the first entry starting after off. */
static size_t upper(const struct blockcache *c, uint64_t off)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->e[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The entry holding off, or NULL; lock held. */
static struct entry *find(struct blockcache *c, uint64_t off)
{
	size_t i = upper(c, off);

	return i > 0 && off < c->e[i - 1].off + c->e[i - 1].len ? &c->e[i - 1] : NULL;
}

/* Drop entry i; lock held. */
static void drop(struct blockcache *c, size_t i)
{
	c->bytes -= c->e[i].len;
	free(c->e[i].data);
	memmove(&c->e[i], &c->e[i + 1], (c->n - i - 1) * sizeof *c->e);
	c->n--;
}

size_t blockcache_get(struct blockcache *c, uint64_t off, void *buf, size_t len)
{
	struct entry *e;
	size_t n = 0;

	pthread_mutex_lock(&c->lock);
	e = find(c, off);
	if (e != NULL) {
		n = (size_t)(e->off + e->len - off);
		if (n > len)
			n = len;
		memcpy(buf, e->data + (off - e->off), n);
		e->used = e->once && off + n == e->off + e->len ? 0 : ++c->clock;
	}
	pthread_mutex_unlock(&c->lock);
	return n;
}

static bool has_locked(struct blockcache *c, uint64_t off, uint64_t len);

bool blockcache_has(struct blockcache *c, uint64_t off, uint64_t len)
{
	bool has;

	pthread_mutex_lock(&c->lock);
	has = has_locked(c, off, len);
	pthread_mutex_unlock(&c->lock);
	return has;
}

/* Drop the least recently used entry; lock held. */
static void evict_one(struct blockcache *c)
{
	size_t lru = 0;

	for (size_t i = 1; i < c->n; i++)
		if (c->e[i].used < c->e[lru].used)
			lru = i;
	drop(c, lru);
}

static void put(struct blockcache *c, uint64_t off, uint8_t *data, size_t len, bool once);

void blockcache_put(struct blockcache *c, uint64_t off, uint8_t *data, size_t len)
{
	put(c, off, data, len, false);
}

void blockcache_put_once(struct blockcache *c, uint64_t off, uint8_t *data, size_t len)
{
	put(c, off, data, len, true);
}

static void put(struct blockcache *c, uint64_t off, uint8_t *data, size_t len, bool once)
{
	size_t i;

	pthread_mutex_lock(&c->lock);
	if (len > c->limit || len == 0 || has_locked(c, off, len)) {
		free(data);
		goto done;
	}
	for (i = upper(c, off); i > 0 && c->e[i - 1].off >= off; i--)
		;
	while (i < c->n && c->e[i].off + c->e[i].len <= off + len)
		drop(c, i);   /* inside the new range */
	while (c->n > 0 && c->bytes + len > c->limit)
		evict_one(c);
	if (len > c->limit) {
		free(data);
		goto done;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		struct entry *e = realloc(c->e, cap * sizeof *e);
		if (e == NULL) {
			free(data);
			goto done;
		}
		c->e = e;
		c->cap = cap;
	}
	i = upper(c, off);
	memmove(&c->e[i + 1], &c->e[i], (c->n - i) * sizeof *c->e);
	c->e[i] = (struct entry){ off, len, data, ++c->clock, once };
	c->n++;
	c->bytes += len;
done:
	pthread_mutex_unlock(&c->lock);
}

uint8_t *blockcache_buffer(struct blockcache *c, size_t need)
{
	uint8_t *buf = NULL;

	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < c->npool && buf == NULL; i++)
		if (c->pool[i].cap >= need && c->pool[i].cap / 2 <= need) {
			buf = c->pool[i].buf;
			c->pool_bytes -= c->pool[i].cap;
			c->pool[i] = c->pool[--c->npool];
		}
	pthread_mutex_unlock(&c->lock);
	return buf != NULL ? buf : malloc((need + POOL_ROUND - 1) / POOL_ROUND * POOL_ROUND);
}

void blockcache_give(struct blockcache *c, uint8_t *buf, size_t cap)
{
	if (malloc_usable_size(buf) > cap)
		cap = malloc_usable_size(buf);
	pthread_mutex_lock(&c->lock);
	if (c->npool == POOL) {
		c->pool_bytes -= c->pool[0].cap;
		free(c->pool[0].buf);   /* the oldest goes */
		c->pool[0] = c->pool[--c->npool];
	}
	if (c->pool_bytes + cap <= c->limit / 8) {
		c->pool[c->npool].buf = buf;
		c->pool[c->npool++].cap = cap;
		c->pool_bytes += cap;
		buf = NULL;
	}
	pthread_mutex_unlock(&c->lock);
	free(buf);
}

void blockcache_count(struct blockcache *c, uint64_t bytes, uint64_t requests)
{
	pthread_mutex_lock(&c->lock);
	c->fetched += bytes;
	c->requests += requests;
	pthread_mutex_unlock(&c->lock);
}

void blockcache_totals(struct blockcache *c, uint64_t *bytes, uint64_t *requests)
{
	pthread_mutex_lock(&c->lock);
	*bytes = c->fetched;
	*requests = c->requests;
	pthread_mutex_unlock(&c->lock);
}

size_t blockcache_limit(const struct blockcache *c)
{
	return c->limit;
}

/* Whether [off, off + len) is wholly cached; lock held. */
static bool has_locked(struct blockcache *c, uint64_t off, uint64_t len)
{
	while (len > 0) {
		struct entry *e = find(c, off);
		uint64_t n;
		if (e == NULL)
			return false;
		n = e->off + e->len - off;
		if (n >= len)
			return true;
		off += n;
		len -= n;
	}
	return true;
}

/* The flight holding off, or -1; lock held. */
static long in_flight(const struct blockcache *c, uint64_t off)
{
	for (size_t i = 0; i < c->nflight; i++)
		if (off >= c->flight[i].lo && off < c->flight[i].end)
			return (long)i;
	return -1;
}

/* The fetch for a miss at off: rounded, grown when sequential, clipped; lock held. */
static void plan(struct blockcache *c, uint64_t off, size_t len, uint64_t size, uint64_t *lo, uint64_t *end)
{
	uint64_t cap = c->limit / 4 > MIN_FETCH ? c->limit / 4 : MIN_FETCH;

	*lo = off;
	*end = off + (len > MIN_FETCH ? len : MIN_FETCH);
	if (c->ahead == NULL && c->seq_end > 0 && off >= c->seq_end && off <= c->seq_end + SEQ_GAP) {
		c->window = c->window * 2 < MAX_WINDOW ? c->window * 2 : MAX_WINDOW;
		c->window = c->window < cap ? c->window : cap;
		if (*lo + c->window > *end)
			*end = *lo + c->window;
	} else {
		c->window = MIN_FETCH;
	}
	if (*end > size)
		*end = size;
	for (size_t i = 0; i < c->nflight; i++)
		if (c->flight[i].lo > off && c->flight[i].lo < *end)
			*end = c->flight[i].lo;
	for (uint64_t p = off + len; p < *end; p += MIN_FETCH / 4)
		if (has_locked(c, p, *end - p < MIN_FETCH ? *end - p : MIN_FETCH)) {
			*end = p;
			break;
		}
	if (*end < off + len)
		*end = off + len;   /* a flight or cached range inside the read: fetch through */
	c->seq_end = *end;
}

int blockcache_claim(struct blockcache *c, uint64_t off, size_t len, uint64_t size, uint64_t *lo, uint64_t *n)
{
	int rc = 0;
	uint64_t end;

	pthread_mutex_lock(&c->lock);
	if (find(c, off) != NULL) {
		rc = 0;
	} else if (in_flight(c, off) >= 0) {
		while (in_flight(c, off) >= 0)
			pthread_cond_wait(&c->landed, &c->lock);
		rc = 0;
	} else {
		plan(c, off, len, size, lo, &end);
		*n = end - *lo;
		if (c->nflight < FLIGHTS) {
			c->flight[c->nflight].lo = *lo;
			c->flight[c->nflight].end = end;
			c->nflight++;
		}
		rc = 1;
	}
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int blockcache_claim_direct(struct blockcache *c, uint64_t off, uint64_t len)
{
	size_t i;
	int rc = 1;

	pthread_mutex_lock(&c->lock);
	i = upper(c, off);
	if ((i > 0 && off < c->e[i - 1].off + c->e[i - 1].len) || (i < c->n && c->e[i].off < off + len) ||
	    c->nflight == FLIGHTS)
		rc = 0;
	for (size_t k = 0; rc && k < c->nflight; k++)
		if (c->flight[k].lo < off + len && c->flight[k].end > off)
			rc = 0;
	if (rc) {
		c->flight[c->nflight].lo = off;
		c->flight[c->nflight].end = off + len;
		c->nflight++;
		c->direct[c->ndirect % DIRECTS].lo = off;
		c->direct[c->ndirect++ % DIRECTS].end = off + len;
	}
	pthread_mutex_unlock(&c->lock);
	return rc;
}

void blockcache_landed(struct blockcache *c, uint64_t lo)
{
	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < c->nflight; i++)
		if (c->flight[i].lo == lo) {
			c->flight[i] = c->flight[--c->nflight];
			break;
		}
	pthread_cond_broadcast(&c->landed);
	pthread_mutex_unlock(&c->lock);
}

void *blockcache_ahead(struct blockcache *c, void *(*make)(void *), void *arg, void (*stop)(void *))
{
	void *a;

	pthread_mutex_lock(&c->lock);
	if (c->ahead == NULL && make != NULL && (c->ahead = make(arg)) != NULL)
		c->ahead_stop = stop;
	a = c->ahead;
	pthread_mutex_unlock(&c->lock);
	return a;
}

/*
 * The end of the fetch in flight or of the recent direct read holding off,
 * or off if none: bytes a background fetch must not fetch again; lock held.
 */
static uint64_t taken_end(const struct blockcache *c, uint64_t off)
{
	long f = in_flight(c, off);

	if (f >= 0)
		return c->flight[f].end;
	for (size_t k = 0; k < DIRECTS && k < c->ndirect; k++)
		if (off >= c->direct[k].lo && off < c->direct[k].end)
			return c->direct[k].end;
	return off;
}

int blockcache_claim_ahead(struct blockcache *c, uint64_t off, uint64_t len, uint64_t *lo, uint64_t *n)
{
	uint64_t end = off + len, stop, next;

	pthread_mutex_lock(&c->lock);
	if (has_locked(c, off, len))
		off = end;
	while (off < end && (next = taken_end(c, off)) > off)
		off = next;
	stop = end;
	for (size_t k = 0; k < c->nflight; k++)
		if (c->flight[k].lo > off && c->flight[k].lo < stop)
			stop = c->flight[k].lo;
	for (size_t k = 0; k < DIRECTS; k++)
		if (c->direct[k].lo > off && c->direct[k].lo < stop)
			stop = c->direct[k].lo;
	if (off < end && c->nflight < FLIGHTS) {
		c->flight[c->nflight].lo = off;
		c->flight[c->nflight].end = stop;
		c->nflight++;
	}
	pthread_mutex_unlock(&c->lock);
	*lo = off;
	*n = off < end ? stop - off : 0;
	return off < end;
}

static long in_flight(const struct blockcache *c, uint64_t off);

uint8_t *blockcache_take(struct blockcache *c, uint64_t off, size_t len)
{
	uint8_t *data = NULL;
	size_t i;

	pthread_mutex_lock(&c->lock);
	while (in_flight(c, off) >= 0)
		pthread_cond_wait(&c->landed, &c->lock);
	i = upper(c, off);
	if (i > 0 && c->e[i - 1].off == off && c->e[i - 1].len == len && c->e[i - 1].once) {
		data = c->e[i - 1].data;
		c->e[i - 1].data = NULL;
		drop(c, i - 1);
	}
	pthread_mutex_unlock(&c->lock);
	return data;
}
