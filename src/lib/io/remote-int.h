/*
 * remote-int.h - what the remote byte sources share: the block cache
 * (blockcache.c), the HTTP source (http.c) and the S3 addressing and
 * signing (s3.c). Never installed.
 */
#ifndef BAGSCOPE_REMOTE_INT_H
#define BAGSCOPE_REMOTE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/io/source-int.h"

#define MIN_FETCH ((uint64_t)16 << 10)               /* a random miss's fetch, at least */
#define SEQ_GAP ((uint64_t)64 << 10)                 /* a miss this close after the last fetch is sequential */
#define MAX_WINDOW ((uint64_t)16 << 20)              /* a sequential pass's fetch */
#define DIRECT_MIN ((uint64_t)128 << 10)             /* a miss this big goes straight to the reader */
#define REMOTE_CACHE_DEFAULT ((size_t)256 << 20)     /* --cache-size default */

/* ---- blockcache.c: byte ranges fetched, LRU, shared by a handle and its dups ---- */
struct blockcache;

struct blockcache *blockcache_new(size_t limit);
/* One more handle uses it. */
void blockcache_ref(struct blockcache *c);
/* Drop a reference; the last one frees. */
void blockcache_unref(struct blockcache *c);
/*
 * Copy what the cache holds at off, at most len bytes, into buf; returns
 * the bytes copied (0: off is not cached).
 */
size_t blockcache_get(struct blockcache *c, uint64_t off, void *buf, size_t len);
/* Whether [off, off + len) is wholly cached. */
bool blockcache_has(struct blockcache *c, uint64_t off, uint64_t len);
/* Keep data (taken over, malloc'd) as the bytes at off; evicts LRU beyond the limit. */
void blockcache_put(struct blockcache *c, uint64_t off, uint8_t *data, size_t len);
/*
 * The same for bytes to be read once (data has room for len + 1 bytes):
 * evicted first when read to their end, or taken whole.
 */
void blockcache_put_once(struct blockcache *c, uint64_t off, uint8_t *data, size_t len);
/* The data of a put_once entry of exactly [off, off + len), out of the cache; NULL if none. */
uint8_t *blockcache_take(struct blockcache *c, uint64_t off, size_t len);
/*
 * A miss at off (len bytes wanted, the object size bytes): 1 with the range
 * [*lo, *lo + *n) to fetch now (registered in flight: call
 * blockcache_landed(lo) after putting it), or 0 when off is cached or has
 * just landed from another handle's fetch (look again).
 */
int blockcache_claim(struct blockcache *c, uint64_t off, size_t len, uint64_t size, uint64_t *lo, uint64_t *n);
void blockcache_landed(struct blockcache *c, uint64_t lo);
/*
 * For a big read of [off, off + len) received straight into the reader's
 * buffer, never cached: 1 with the range registered in flight (call
 * blockcache_landed(off) after it), or 0 when any of its bytes are cached
 * or in flight (read it through the cache then).
 */
int blockcache_claim_direct(struct blockcache *c, uint64_t off, uint64_t len);
/*
 * Buffers for fetches: a malloc'd one of at least need bytes (and at most
 * twice that) from those given back, or a new one; NULL without memory.
 * blockcache_give keeps buf (cap bytes) for it, or frees it: at most
 * POOL buffers and an eighth of the limit are kept.
 */
uint8_t *blockcache_buffer(struct blockcache *c, size_t need);
void blockcache_give(struct blockcache *c, uint8_t *buf, size_t cap);
/* Running totals of the transfer, kept with the cache (all dups add up). */
void blockcache_count(struct blockcache *c, uint64_t bytes, uint64_t requests);
void blockcache_totals(struct blockcache *c, uint64_t *bytes, uint64_t *requests);
size_t blockcache_limit(const struct blockcache *c);
/*
 * The background fetcher attached to the cache: made by make(arg) at the
 * first call (under the cache's lock; NULL if it failed; make NULL: the
 * fetcher if one is attached, none made), stopped by
 * stop() when the last handle lets the cache go. While one is attached,
 * sequential misses no longer grow the read-ahead window.
 */
void *blockcache_ahead(struct blockcache *c, void *(*make)(void *), void *arg, void (*stop)(void *));
/*
 * For a background fetch of [off, off + len): 1 with [*lo, *lo + *n), its
 * first stretch not in flight, registered in flight (call
 * blockcache_landed(*lo) after putting it); 0 when it is all cached or in
 * flight. Bytes cached in part are fetched again: the fetch is exactly
 * the span, so that its reader can take it whole (blockcache_take).
 */
int blockcache_claim_ahead(struct blockcache *c, uint64_t off, uint64_t len, uint64_t *lo, uint64_t *n);

/* ---- http.c ---- */

/* How to reach one object: its URL and how to sign the requests. */
struct remote_target {
	char *url;                /* http(s)://... */
	char *name;               /* for messages (no secrets) */
	char *sigv4;              /* CURLOPT_AWS_SIGV4 provider string, or NULL */
	char *userpwd;            /* key id:secret for sigv4, or NULL (secret!) */
	char *token;              /* "x-amz-security-token: ..." header, or NULL (secret!) */
};

void remote_target_free(struct remote_target *t);

/* Open an HTTP(S) source on t (taken over). */
int bag_http_open(struct bag_source **out, struct remote_target *t, const struct bag_source_opts *o,
                  struct bag_error *err);

/*
 * GET t's URL whole into *body (a small listing, at most max bytes), with
 * t's signing; 0 or BAG_E* with err set.
 */
int remote_get_small(const struct remote_target *t, char **body, size_t *len, size_t max,
                     struct bag_error *err);

/* ---- s3.c ---- */

/* Build the target of s3://bucket/key from the standard AWS configuration. */
int bag_s3_target(struct remote_target *t, const char *s3url, bool no_sign, struct bag_error *err);

#endif
