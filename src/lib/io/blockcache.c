/*
 * blockcache.c - the bytes a remote source has fetched: a bounded LRU of
 * ranges, shared (under a mutex) by a handle and every bag_dup of it.
 *
 * Entries are ranges [off, off + len) kept in an array sorted by off; most
 * are aligned blocks of REMOTE_BLOCK bytes, some are small spans (chunk
 * headers fetched by a multi-range request). Ranges may overlap; a lookup
 * finds the entry that starts last at or before off and looks back a few.
 * bytes <= limit after every put: the least recently used entries go.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/io/remote-int.h"

struct entry {
	uint64_t off;
	size_t len;
	uint8_t *data;
	uint64_t used;            /* clock value of the last use */
};

struct blockcache {
	pthread_mutex_t lock;
	int refs;
	struct entry *e;          /* sorted by off */
	size_t n, cap;
	size_t bytes, limit;
	uint64_t clock;
	uint64_t fetched, requests;
};

struct blockcache *blockcache_new(size_t limit)
{
	struct blockcache *c = calloc(1, sizeof *c);

	if (c == NULL)
		return NULL;
	pthread_mutex_init(&c->lock, NULL);
	c->refs = 1;
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
	for (size_t i = 0; i < c->n; i++)
		free(c->e[i].data);
	free(c->e);
	pthread_mutex_destroy(&c->lock);
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

/* The entry holding off (the one reaching furthest), or NULL; lock held. */
static struct entry *find(struct blockcache *c, uint64_t off)
{
	struct entry *best = NULL;
	size_t i = upper(c, off);

	for (size_t k = 0; k < 4 && i > 0; k++, i--) {
		struct entry *e = &c->e[i - 1];
		if (off < e->off + e->len && (best == NULL || e->off + e->len > best->off + best->len))
			best = e;
	}
	return best;
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
		e->used = ++c->clock;
	}
	pthread_mutex_unlock(&c->lock);
	return n;
}

bool blockcache_has(struct blockcache *c, uint64_t off, uint64_t len)
{
	bool has = true;

	pthread_mutex_lock(&c->lock);
	while (len > 0 && has) {
		struct entry *e = find(c, off);
		uint64_t n;
		if (e == NULL) {
			has = false;
			break;
		}
		n = e->off + e->len - off;
		if (n >= len)
			break;
		off += n;
		len -= n;
	}
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
	c->bytes -= c->e[lru].len;
	free(c->e[lru].data);
	memmove(&c->e[lru], &c->e[lru + 1], (c->n - lru - 1) * sizeof *c->e);
	c->n--;
}

void blockcache_put(struct blockcache *c, uint64_t off, uint8_t *data, size_t len)
{
	size_t i;

	pthread_mutex_lock(&c->lock);
	while (c->n > 0 && c->bytes + len > c->limit)
		evict_one(c);
	if (len > c->limit || (c->n == c->cap && c->cap > 0 && 0)) {
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
	c->e[i] = (struct entry){ off, len, data, ++c->clock };
	c->n++;
	c->bytes += len;
done:
	pthread_mutex_unlock(&c->lock);
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
