/*
 * http.c - the HTTP(S) byte source: Range requests through libcurl.
 *
 * Each handle (and each bag_dup of it) owns one curl easy handle, so one
 * reused connection. What is fetched goes into a block cache shared by the
 * handle and its dups (blockcache.c), which plans each miss's fetch: what
 * it needs (at least MIN_FETCH), or on a sequential pass a window doubling
 * up to MAX_WINDOW: the read-ahead. prefetch() asks for many small spans (chunk headers) in
 * multi-range requests, each Range header kept under RANGE_HDR_MAX; a
 * server that takes one range per request (S3, or one that answers a
 * multi-range request with 200) gets them as PARALLEL concurrent
 * single-range requests on a curl multi handle instead.
 *
 * Invariants: base.size and the validators (ETag, Last-Modified) are those
 * of the first answer; every later answer must carry the same ones, or the
 * read fails as "changed while being read". A 200 to a ranged request is
 * aborted at its first body bytes: never a silent full download. Transient
 * failures (reset, timeout, 429, 5xx) are retried TRIES times with doubling
 * backoff, resuming after the bytes already received.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <pthread.h>
#include <time.h>

#include "lib/io/curl-int.h"

#include <bagscope/common.h>
#include "lib/common/util-int.h"
#include "lib/io/remote-int.h"

#define TRIES 6
#define RANGE_HDR_MAX 60000      /* a first try; halved while the server finds it too long */
#define RANGE_HDR_MIN 3000
#define SPAN_GAP 4096            /* spans closer than this are fetched as one */
#define TAIL ((uint64_t)384 << 10)  /* the end fetched with the first request (a bag's index) */
#define AHEAD_THREADS 3          /* connections of the background fetcher */
#define PARALLEL 16              /* concurrent requests of a one-range-per-request prefetch */
#define CANCEL_POLL_MS 50       /* a cancel stops a transfer within this, even a stalled one */
#define EMPTY_SHA256 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

struct http_source {
	struct bag_source base;
	struct remote_target t;
	CURL *h;
	struct curl_slist *hdrs;
	struct blockcache *cache;
	char etag[128], lastmod[64];  /* validators of the first answer */
	bool no_multi;                /* the server takes one range per request */
	size_t range_max;             /* longest Range header the server took or is tried */
	uint8_t *multi;               /* the last multi-range answer's buffer, reused */
	size_t multi_cap;
	volatile int *cancel;         /* a change of its value stops the reads running (BAG_ECANCELED) */
	int epoch;                    /* *cancel when the running read began */
	CURLM *m;                     /* runs h, so that a cancel is seen within CANCEL_POLL_MS */
	uint64_t *progress;           /* the caller's running total of bytes, or NULL */
	char curlerr[CURL_ERROR_SIZE];
};

/* One request's answer. */
struct xfer {
	CURL *h;
	uint8_t *buf;
	size_t len, cap;
	size_t alloc;                 /* bytes allocated at buf when grow */
	bool grow;                    /* buf may be realloc'd up to cap */
	bool overflow;                /* more than cap bytes came */
	bool full;                    /* a 200 to a ranged request: aborted */
	long status;
	uint64_t cr_lo, cr_hi, cr_total;
	bool has_cr;
	char ctype[256], etag[128], lastmod[64];
	uint64_t *progress;           /* bytes received are added here, or NULL */
};

static struct bag_source_ops http_ops;

void remote_target_free(struct remote_target *t)
{
	if (t->userpwd != NULL)
		memset(t->userpwd, 0, strlen(t->userpwd));
	if (t->token != NULL)
		memset(t->token, 0, strlen(t->token));
	free(t->url);
	free(t->name);
	free(t->sigv4);
	free(t->userpwd);
	free(t->token);
	memset(t, 0, sizeof *t);
}

/* Copy a header's value (after "name:"), trimmed, into dst. */
static void header_value(char *dst, size_t cap, const char *v, size_t n)
{
	while (n > 0 && (*v == ' ' || *v == '\t'))
		v++, n--;
	while (n > 0 && isspace((unsigned char)v[n - 1]))
		n--;
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, v, n);
	dst[n] = '\0';
}

static size_t on_header(char *p, size_t size, size_t nitems, void *arg)
{
	struct xfer *x = arg;
	size_t n = size * nitems;
	char cr[128];

	if (n >= 5 && memcmp(p, "HTTP/", 5) == 0) {
		x->has_cr = false;
		x->ctype[0] = x->etag[0] = x->lastmod[0] = '\0';
	} else if (n > 14 && strncasecmp(p, "content-range:", 14) == 0) {
		unsigned long long lo, hi, total;
		header_value(cr, sizeof cr, p + 14, n - 14);
		if (sscanf(cr, "bytes %llu-%llu/%llu", &lo, &hi, &total) == 3) {
			x->cr_lo = lo, x->cr_hi = hi, x->cr_total = total;
			x->has_cr = true;
		}
	} else if (n > 13 && strncasecmp(p, "content-type:", 13) == 0) {
		header_value(x->ctype, sizeof x->ctype, p + 13, n - 13);
	} else if (n > 5 && strncasecmp(p, "etag:", 5) == 0) {
		header_value(x->etag, sizeof x->etag, p + 5, n - 5);
	} else if (n > 14 && strncasecmp(p, "last-modified:", 14) == 0) {
		header_value(x->lastmod, sizeof x->lastmod, p + 14, n - 14);
	}
	return n;
}

static size_t on_body(char *p, size_t size, size_t nmemb, void *arg)
{
	struct xfer *x = arg;
	size_t n = size * nmemb;

	if (x->status == 0)
		curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &x->status);
	if (x->status == 200) {
		x->full = true;
		return 0;
	}
	if (x->status != 206)
		return n;           /* an error page: not kept */
	if (n > x->cap - x->len) {
		x->overflow = true;
		return 0;
	}
	if (x->grow && x->len + n > x->alloc) {
		size_t want = (x->len + n) * 2 < x->cap ? (x->len + n) * 2 : x->cap;
		uint8_t *b = realloc(x->buf, want);
		if (b == NULL)
			return 0;
		x->buf = b;
		x->alloc = want;
	}
	memcpy(x->buf + x->len, p, n);
	x->len += n;
	if (x->progress != NULL)
		__atomic_add_fetch(x->progress, n, __ATOMIC_RELAXED);
	return n;
}

/* A read begins: a change of *cancel from now on stops it. */
static void begin(struct http_source *s)
{
	if (s->cancel != NULL)
		s->epoch = __atomic_load_n(s->cancel, __ATOMIC_RELAXED);
}

/* Whether the read running was cancelled (*cancel changed since it began, or is negative). */
static bool cancelled(const struct http_source *s)
{
	int now = s->cancel != NULL ? __atomic_load_n(s->cancel, __ATOMIC_RELAXED) : 0;

	return now < 0 || now != s->epoch;
}

static int on_progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	struct http_source *s = arg;

	(void)dt, (void)dn, (void)ut, (void)un;
	return cancelled(s);
}

/*
 * s->h's transfer, on s->m, polled every CANCEL_POLL_MS for a cancel (curl's
 * progress callback can wait a second on a stalled connection).
 */
static CURLcode run(struct http_source *s)
{
	CURLcode rc = CURLE_RECV_ERROR;
	CURLMsg *msg;
	int running = 1, left;

	if (s->m == NULL || curl_multi_add_handle(s->m, s->h) != CURLM_OK)
		return curl_easy_perform(s->h);
	while (running > 0 && !cancelled(s) && curl_multi_perform(s->m, &running) == CURLM_OK)
		if (running > 0)
			curl_multi_poll(s->m, NULL, 0, CANCEL_POLL_MS, NULL);
	if (running > 0 && cancelled(s))
		rc = CURLE_ABORTED_BY_CALLBACK;
	while ((msg = curl_multi_info_read(s->m, &left)) != NULL)
		if (msg->msg == CURLMSG_DONE)
			rc = msg->data.result;
	curl_multi_remove_handle(s->m, s->h);
	return rc;
}

/* One GET with Range: range; the answer in *x (buf/cap/grow set by the caller). */
static CURLcode perform(struct http_source *s, const char *range, struct xfer *x)
{
	CURLcode rc;

	x->h = s->h;
	x->progress = s->progress;
	x->len = 0;
	x->status = 0;
	x->full = x->overflow = x->has_cr = false;
	x->ctype[0] = x->etag[0] = x->lastmod[0] = '\0';
	curl_easy_setopt(s->h, CURLOPT_RANGE, range);
	curl_easy_setopt(s->h, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(s->h, CURLOPT_HEADERDATA, x);
	s->curlerr[0] = '\0';
	rc = run(s);
	curl_easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &x->status);
	blockcache_count(s->cache, x->len, 1);
	return rc;
}

enum verdict { GOOD, RETRY, FAIL };

static bool transient(CURLcode rc)
{
	return rc == CURLE_COULDNT_CONNECT || rc == CURLE_RECV_ERROR || rc == CURLE_SEND_ERROR ||
	       rc == CURLE_PARTIAL_FILE || rc == CURLE_OPERATION_TIMEDOUT || rc == CURLE_GOT_NOTHING ||
	       rc == CURLE_HTTP2 || rc == CURLE_HTTP2_STREAM || rc == CURLE_SSL_CONNECT_ERROR;
}

/* The failure of an answer that is not 206, or of the transfer, in why (its code and cause). */
static enum verdict judge_status(struct http_source *s, CURLcode rc, const struct xfer *x, struct bag_error *why)
{
	if (rc == CURLE_ABORTED_BY_CALLBACK && cancelled(s)) {
		bag_error_say(why, BAG_ECANCELED, "cancelled");
	} else if (x->full) {
		bag_error_say(why, BAG_EUNSUPP, "the server ignores Range requests (it answered 200 with the whole "
		              "object); not downloading it whole");
	} else if (x->status == 401) {
		bag_error_say(why, BAG_EIO, "HTTP 401: not authorised (credentials missing or refused)");
	} else if (x->status == 403) {
		bag_error_say(why, BAG_EIO, "HTTP 403: access denied (check the credentials and the object's permissions)");
	} else if (x->status == 404) {
		bag_error_say(why, BAG_ENOTFOUND, "HTTP 404: no such object");
	} else if (x->status == 429 || x->status >= 500) {
		bag_error_say(why, BAG_EIO, "HTTP %ld", x->status);
		return RETRY;
	} else if (rc != CURLE_OK && rc != CURLE_WRITE_ERROR) {
		bag_error_say(why, BAG_EIO, "%s", s->curlerr[0] ? s->curlerr : curl_easy_strerror(rc));
		return transient(rc) ? RETRY : FAIL;
	} else if (x->status == 416) {
		bag_error_say(why, BAG_EIO, "HTTP 416: range not satisfiable (the object is shorter than when opened)");
	} else if (x->status != 206) {
		bag_error_say(why, BAG_EIO, "unexpected HTTP %ld to a range request", x->status);
	} else {
		return GOOD;
	}
	return FAIL;
}

/* Whether a 206's validators and size match the first answer's; why set if not. */
static bool same_object(struct http_source *s, const struct xfer *x, struct bag_error *why)
{
	if (!x->has_cr)
		bag_error_say(why, BAG_EIO, "a 206 answer without Content-Range");
	else if (s->etag[0] && strcmp(s->etag, x->etag) != 0)
		bag_error_say(why, BAG_EIO, "the object changed while being read (ETag %.60s, now %.60s)", s->etag,
		              x->etag[0] ? x->etag : "none");
	else if (s->lastmod[0] && strcmp(s->lastmod, x->lastmod) != 0)
		bag_error_say(why, BAG_EIO, "the object changed while being read (Last-Modified %.40s, now %.40s)",
		              s->lastmod, x->lastmod[0] ? x->lastmod : "none");
	else if (x->cr_total != s->base.size)
		bag_error_say(why, BAG_EIO, "the object changed while being read (%llu bytes, now %llu)",
		              (unsigned long long)s->base.size, (unsigned long long)x->cr_total);
	else
		return true;
	return false;
}

/* Sleep before retry number `tries` (100 ms doubling, at most 3.2 s); false if cancelled. */
static bool backoff(struct http_source *s, int tries)
{
	long ms = 100L << (tries < 5 ? tries : 5);
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
	return !cancelled(s);
}

/*
 * Fetch bytes [off, off + len) into buf, retrying transient failures and
 * resuming after what came. 0, or BAG_E* with err set (its offset the
 * first byte missing).
 */
static int fetch_range(struct http_source *s, uint64_t off, size_t len, uint8_t *buf, struct bag_error *err)
{
	struct bag_error why = { 0 };
	char range[64];
	size_t got = 0;
	int tries = 0, code;

	while (got < len) {
		struct xfer x = { .buf = buf + got, .cap = len - got };
		CURLcode rc;
		enum verdict v;

		snprintf(range, sizeof range, "%llu-%llu", (unsigned long long)(off + got),
		         (unsigned long long)(off + len - 1));
		rc = perform(s, range, &x);
		v = judge_status(s, rc, &x, &why);
		if (x.status == 206 && !same_object(s, &x, &why)) {
			v = FAIL;
		} else if (x.status == 206 && x.cr_lo != off + got) {
			bag_error_say(&why, BAG_EIO, "the server answered bytes from %llu", (unsigned long long)x.cr_lo);
			v = FAIL;
		} else if (x.status == 206) {
			got += x.len;   /* what came is good, even when the transfer broke */
			if (v == GOOD && got < len) {
				bag_error_say(&why, BAG_EIO, "the answer ended early");
				v = RETRY;
			}
		}
		if (v == GOOD)
			continue;
		if (v == RETRY && ++tries < TRIES && backoff(s, tries))
			continue;
		code = cancelled(s) ? BAG_ECANCELED : why.code != BAG_OK ? why.code : BAG_EIO;
		if (v == RETRY)
			return bag_error_set(err, code, NULL, off + got, "bytes %llu-%llu: %s, after %d tries",
			                     (unsigned long long)(off + got), (unsigned long long)(off + len - 1),
			                     why.message, tries);
		return bag_error_set(err, code, NULL, off + got, "bytes %llu-%llu: %s", (unsigned long long)(off + got),
		                     (unsigned long long)(off + len - 1), why.message);
	}
	return BAG_OK;
}

static void ahead_forget(struct http_source *s, uint64_t off, uint64_t len);

/*
 * A read: from the cache, or fetched. A big miss with none of its bytes
 * cached or in flight (a chunk a scan reads before the background fetcher
 * got to it) is received straight into buf, not cached, and the fetcher
 * forgets it; any other miss fetches its planned range into the cache.
 */
static int http_read_at(struct bag_source *src, uint64_t off, void *buf, size_t len, struct bag_error *err)
{
	struct http_source *s = (struct http_source *)src;
	uint8_t *out = buf;

	begin(s);
	while (len > 0) {
		size_t n = blockcache_get(s->cache, off, out, len);
		uint64_t lo, flen;
		uint8_t *fetched;
		int rc;

		if (n == 0 && len >= DIRECT_MIN && blockcache_claim_direct(s->cache, off, len)) {
			ahead_forget(s, off, len);
			rc = fetch_range(s, off, len, out, err);
			blockcache_landed(s->cache, off);
			if (rc != BAG_OK)
				return rc;
			n = len;
		} else if (n == 0 && blockcache_claim(s->cache, off, len, s->base.size, &lo, &flen)) {
			fetched = malloc(flen ? flen : 1);
			rc = fetched != NULL ? fetch_range(s, lo, (size_t)flen, fetched, err)
			                     : bag_error_set(err, BAG_ENOMEM, NULL, off, "out of memory for %llu bytes",
			                                     (unsigned long long)flen);
			if (rc != BAG_OK) {
				free(fetched);
				blockcache_landed(s->cache, lo);
				return rc;
			}
			n = (size_t)(lo + flen - off) < len ? (size_t)(lo + flen - off) : len;
			memcpy(out, fetched + (off - lo), n);
			blockcache_put(s->cache, lo, fetched, (size_t)flen);
			blockcache_landed(s->cache, lo);
		}
		off += n;
		out += n;
		len -= n;
	}
	return BAG_OK;
}

/* Keep a copy of the n bytes at p as the object's bytes at off. */
static void keep(struct http_source *s, uint64_t off, const uint8_t *p, size_t n)
{
	uint8_t *copy = malloc(n ? n : 1);

	if (copy == NULL)
		return;
	memcpy(copy, p, n);
	blockcache_put(s->cache, off, copy, n);
}

/* Split a multipart/byteranges body into the cache; false if it does not parse. */
static bool keep_parts(struct http_source *s, const struct xfer *x, const char *boundary)
{
	const uint8_t *p = x->buf, *end = x->buf + x->len;
	char delim[128];
	size_t dl = (size_t)snprintf(delim, sizeof delim, "--%s", boundary);

	for (;;) {
		const uint8_t *q = memmem(p, (size_t)(end - p), delim, dl), *hdr_end;
		unsigned long long lo = 0, hi = 0, total = 0;
		bool found = false;

		if (q == NULL || end - q < (ptrdiff_t)dl + 2 || memcmp(q + dl, "--", 2) == 0)
			return q != NULL;
		hdr_end = memmem(q, (size_t)(end - q), "\r\n\r\n", 4);
		if (hdr_end == NULL)
			return false;
		for (const uint8_t *l = q; l < hdr_end; l++)
			if (*l == '\n' && hdr_end - l > 15 && strncasecmp((const char *)l + 1, "content-range:", 14) == 0)
				found = sscanf((const char *)l + 15, " bytes %llu-%llu/%llu", &lo, &hi, &total) == 3;
		p = hdr_end + 4;
		if (!found || hi < lo || total != s->base.size || (uint64_t)(end - p) < hi - lo + 1)
			return false;
		keep(s, lo, p, (size_t)(hi - lo + 1));
		p += hi - lo + 1;
	}
}

enum multi { MULTI_DONE, MULTI_NONE, MULTI_TOO_LONG };

/* One multi-range request: done (kept what came), none (no multi-range), or too long a header. */
static enum multi fetch_multi(struct http_source *s, const char *ranges, size_t nranges, uint64_t bytes)
{
	struct xfer x = { .grow = true, .cap = bytes + nranges * 256 + 4096, .buf = s->multi, .alloc = s->multi_cap };
	const char *b;
	struct bag_error why;   /* a failure here is the reads' to report */
	enum multi m = MULTI_DONE;

	for (int tries = 0; tries < 2; tries++) {
		CURLcode rc = perform(s, ranges, &x);
		enum verdict v = judge_status(s, rc, &x, &why);
		if (v == RETRY)
			continue;
		if (x.full)
			m = MULTI_NONE;
		else if (x.status == 400 || x.status == 413 || x.status == 414 || x.status == 431)
			m = MULTI_TOO_LONG;
		else if (v == GOOD && (s->etag[0] == '\0' || strcmp(s->etag, x.etag) == 0)) {
			b = strstr(x.ctype, "boundary=");
			if (strncasecmp(x.ctype, "multipart/byteranges", 20) == 0 && b != NULL) {
				char bd[100];
				header_value(bd, sizeof bd, b + 9, strcspn(b + 9, ";"));
				if (bd[0] == '"')
					memmove(bd, bd + 1, strlen(bd)), bd[strcspn(bd, "\"")] = '\0';
				keep_parts(s, &x, bd);
			} else if (x.has_cr && x.cr_total == s->base.size && x.len == x.cr_hi - x.cr_lo + 1) {
				keep(s, x.cr_lo, x.buf, x.len);
			}
		}
		break;
	}
	s->multi = x.buf;   /* kept for the next: its pages are not faulted in again */
	s->multi_cap = x.alloc;
	return m;
}

/*
 * The next range to fetch from spans[*i]: spans already cached skipped,
 * neighbours (closer than SPAN_GAP) merged; false when none is left.
 */
static bool next_span(struct http_source *s, const struct bag_span *spans, size_t n, size_t *i,
                      uint64_t *lo, uint64_t *hi)
{
	while (*i < n) {
		*lo = spans[*i].off;
		*hi = *lo + spans[*i].len;
		if (spans[*i].len == 0 || *hi > s->base.size || blockcache_has(s->cache, *lo, spans[*i].len)) {
			(*i)++;
			continue;
		}
		for ((*i)++; *i < n && spans[*i].off >= *lo && spans[*i].off <= *hi + SPAN_GAP; (*i)++)
			if (spans[*i].off + spans[*i].len > *hi && spans[*i].off + spans[*i].len <= s->base.size)
				*hi = spans[*i].off + spans[*i].len;
		return true;
	}
	return false;
}

/*
 * The next Range header from spans[*i]: next_span's ranges, at most
 * s->range_max characters. Its ranges and bytes counted.
 */
static void next_ranges(struct http_source *s, const struct bag_span *spans, size_t n, size_t *i,
                        char *ranges, size_t *nr, uint64_t *bytes)
{
	size_t used = 0;
	uint64_t lo, hi;

	*nr = 0;
	*bytes = 0;
	while (used < s->range_max - 48 && next_span(s, spans, n, i, &lo, &hi)) {
		used += (size_t)snprintf(ranges + used, s->range_max + 64 - used, "%s%llu-%llu", used ? "," : "",
		                         (unsigned long long)lo, (unsigned long long)(hi - 1));
		(*nr)++;
		*bytes += hi - lo;
	}
}

/* One of the concurrent single-range requests of prefetch_parallel. */
struct slot {
	CURL *h;
	struct xfer x;
	uint64_t lo;
	bool busy;
};

/* Start spans' next range on slot k of m; false when none is left. */
static bool slot_start(struct http_source *s, CURLM *m, struct slot *k, const struct bag_span *spans,
                       size_t n, size_t *i)
{
	char range[64];
	uint64_t lo, hi;

	if (!next_span(s, spans, n, i, &lo, &hi))
		return false;
	if (k->h == NULL && (k->h = curl_easy_duphandle(s->h)) == NULL)
		return false;
	k->x = (struct xfer){ .h = k->h, .cap = (size_t)(hi - lo), .progress = s->progress };
	if ((k->x.buf = malloc(k->x.cap)) == NULL)
		return false;
	k->lo = lo;
	snprintf(range, sizeof range, "%llu-%llu", (unsigned long long)lo, (unsigned long long)(hi - 1));
	curl_easy_setopt(k->h, CURLOPT_RANGE, range);
	curl_easy_setopt(k->h, CURLOPT_WRITEDATA, &k->x);
	curl_easy_setopt(k->h, CURLOPT_HEADERDATA, &k->x);
	curl_easy_setopt(k->h, CURLOPT_ERRORBUFFER, NULL);
	curl_multi_add_handle(m, k->h);
	k->busy = true;
	return true;
}

/* Slot k's answer is in: kept when it is the whole range of the same object. */
static void slot_done(struct http_source *s, CURLM *m, struct slot *k, CURLcode rc)
{
	struct bag_error why;

	curl_easy_getinfo(k->h, CURLINFO_RESPONSE_CODE, &k->x.status);
	curl_multi_remove_handle(m, k->h);
	blockcache_count(s->cache, k->x.len, 1);
	if (rc == CURLE_OK && k->x.status == 206 && same_object(s, &k->x, &why) &&
	    k->x.cr_lo == k->lo && k->x.len == k->x.cap)
		blockcache_put(s->cache, k->lo, k->x.buf, k->x.len);
	else
		free(k->x.buf);   /* the read that needs it fetches and reports it */
	k->x.buf = NULL;
	k->busy = false;
}

/*
 * Prefetch for a server that takes one range per request (S3): the spans'
 * ranges as PARALLEL concurrent requests, never one after another.
 */
static void prefetch_parallel(struct http_source *s, const struct bag_span *spans, size_t n)
{
	struct slot k[PARALLEL] = { 0 };
	CURLM *m = curl_multi_init();
	size_t i = 0;
	int running = 0;
	bool more = true;

	while (m != NULL && (more || running > 0) && !cancelled(s)) {
		CURLMsg *msg;
		int left;
		for (int j = 0; j < PARALLEL && more; j++)
			if (!k[j].busy)
				more = slot_start(s, m, &k[j], spans, n, &i);
		curl_multi_perform(m, &running);
		while ((msg = curl_multi_info_read(m, &left)) != NULL)
			for (int j = 0; j < PARALLEL; j++)
				if (msg->msg == CURLMSG_DONE && k[j].busy && k[j].h == msg->easy_handle)
					slot_done(s, m, &k[j], msg->data.result);
		if (more || running > 0)
			curl_multi_poll(m, NULL, 0, 100, NULL);
	}
	for (int j = 0; j < PARALLEL; j++) {
		if (k[j].busy)
			curl_multi_remove_handle(m, k[j].h);
		free(k[j].x.buf);
		if (k[j].h != NULL)
			curl_easy_cleanup(k[j].h);
	}
	curl_multi_cleanup(m);
}

static void http_prefetch(struct bag_source *src, const struct bag_span *spans, size_t n)
{
	struct http_source *s = (struct http_source *)src;
	char *ranges = malloc(s->range_max + 64);
	size_t i = 0, nr, first;
	uint64_t bytes;

	begin(s);
	while (ranges != NULL && i < n && !s->no_multi) {
		first = i;
		next_ranges(s, spans, n, &i, ranges, &nr, &bytes);
		if (nr == 0)
			break;
		switch (fetch_multi(s, ranges, nr, bytes)) {
		case MULTI_NONE:
			s->no_multi = true;
			break;
		case MULTI_TOO_LONG:
			if (s->range_max / 2 < RANGE_HDR_MIN)
				s->no_multi = true;
			s->range_max /= 2;
			i = first;
			break;
		case MULTI_DONE:
			break;
		}
	}
	free(ranges);
	if (s->no_multi)
		prefetch_parallel(s, spans, n);
}

/*
 * The background fetcher of a cache (blockcache_ahead): AHEAD_THREADS
 * threads, each with its own connection, that take the hinted spans in
 * order, neighbours merged up to MAX_WINDOW, and fetch each exactly (what a
 * scan's next tasks read). Their sources do not hold the cache: the cache
 * stops them when it goes.
 */
static void http_close(struct bag_source *src);

struct ahead {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	struct bag_span *q;       /* the spans hinted, q[head..n) still to fetch */
	size_t head, n, cap;
	int epoch;                /* *cancel when the spans queued were hinted: a change drops them */
	bool stop;
	unsigned nthreads;
	pthread_t thread[AHEAD_THREADS];
	struct http_source *s[AHEAD_THREADS];
	unsigned next;            /* the thread that starts next takes s[next] */
};

/* Fetch [off, off + len) into the cache, skipping what is cached or in flight. */
static void ahead_fetch(struct http_source *s, uint64_t off, uint64_t len)
{
	struct bag_error err;
	uint64_t lo, n;

	begin(s);
	while (len > 0 && blockcache_claim_ahead(s->cache, off, len, &lo, &n)) {
		uint8_t *buf = blockcache_buffer(s->cache, n + 1);   /* room for the NUL a taken chunk gets */
		if (buf != NULL && fetch_range(s, lo, (size_t)n, buf, &err) == BAG_OK)
			blockcache_put_once(s->cache, lo, buf, (size_t)n);
		else
			free(buf);   /* the read that needs it fetches and reports it */
		blockcache_landed(s->cache, lo);
		len -= lo + n - off;
		off = lo + n;
	}
}

/* Whether the spans queued were dropped: cancelled since they were hinted (lock held). */
static bool ahead_dropped(struct ahead *a, const struct http_source *s)
{
	int now = s->cancel != NULL ? __atomic_load_n(s->cancel, __ATOMIC_RELAXED) : 0;

	if (now == a->epoch)
		return false;
	a->epoch = now;
	a->head = a->n = 0;
	return true;
}

static void *ahead_main(void *arg)
{
	struct ahead *a = arg;
	struct http_source *s;

	pthread_mutex_lock(&a->lock);
	s = a->s[a->next++];
	for (;;) {
		uint64_t lo, end;
		while (!a->stop && a->head == a->n)
			pthread_cond_wait(&a->cv, &a->lock);
		if (a->stop)
			break;
		if (ahead_dropped(a, s))
			continue;
		lo = a->q[a->head].off;
		end = lo + a->q[a->head++].len;   /* 0 bytes: forgotten (ahead_forget) */
		for (; a->head < a->n && a->q[a->head].off >= lo && a->q[a->head].off <= end + SPAN_GAP &&
		       a->q[a->head].off + a->q[a->head].len - lo <= MAX_WINDOW; a->head++)
			if (a->q[a->head].off + a->q[a->head].len > end)
				end = a->q[a->head].off + a->q[a->head].len;
		if (a->head == a->n)
			a->head = a->n = 0;
		if (end == lo)
			continue;
		pthread_mutex_unlock(&a->lock);
		ahead_fetch(s, lo, end - lo);
		pthread_mutex_lock(&a->lock);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

/* Queued spans within [off, off + len) are not fetched: their reader has them. */
static void ahead_forget(struct http_source *s, uint64_t off, uint64_t len)
{
	struct ahead *a = blockcache_ahead(s->cache, NULL, NULL, NULL);

	if (a == NULL)
		return;
	pthread_mutex_lock(&a->lock);
	for (size_t i = a->head; i < a->n; i++)
		if (a->q[i].off >= off && a->q[i].off + a->q[i].len <= off + len)
			a->q[i].len = 0;
	pthread_mutex_unlock(&a->lock);
}

static void ahead_stop(void *arg)
{
	struct ahead *a = arg;

	pthread_mutex_lock(&a->lock);
	a->stop = true;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->lock);
	for (unsigned i = 0; i < a->nthreads; i++)
		pthread_join(a->thread[i], NULL);
	for (unsigned i = 0; i < AHEAD_THREADS; i++)
		if (a->s[i] != NULL)
			a->s[i]->cache = NULL, http_close(&a->s[i]->base);
	pthread_mutex_destroy(&a->lock);
	pthread_cond_destroy(&a->cv);
	free(a->q);
	free(a);
}

static struct http_source *http_twin(struct http_source *s);

/* A fetcher for s's cache (called under the cache's lock); NULL if it cannot start. */
static void *ahead_make(void *arg)
{
	struct ahead *a = calloc(1, sizeof *a);

	if (a == NULL)
		return NULL;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->cv, NULL);
	for (unsigned i = 0; i < AHEAD_THREADS; i++)
		if ((a->s[i] = http_twin(arg)) == NULL)
			break;
	for (unsigned i = 0; i < AHEAD_THREADS && a->s[i] != NULL; i++, a->nthreads++)
		if (pthread_create(&a->thread[i], NULL, ahead_main, a) != 0)
			break;
	if (a->nthreads > 0)
		return a;
	ahead_stop(a);
	return NULL;
}

static void http_ahead(struct bag_source *src, uint64_t off, uint64_t len)
{
	struct http_source *s = (struct http_source *)src;
	struct ahead *a = blockcache_ahead(s->cache, ahead_make, s, ahead_stop);

	if (a == NULL || blockcache_has(s->cache, off, len))
		return;
	pthread_mutex_lock(&a->lock);
	ahead_dropped(a, s);
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;
		struct bag_span *q = realloc(a->q, cap * sizeof *q);
		if (q != NULL)
			a->q = q, a->cap = cap;
	}
	if (a->n < a->cap) {
		a->q[a->n++] = (struct bag_span){ off, len };
		pthread_cond_signal(&a->cv);
	}
	pthread_mutex_unlock(&a->lock);
}

static uint8_t *http_take(struct bag_source *src, uint64_t off, size_t len)
{
	return blockcache_take(((struct http_source *)src)->cache, off, len);
}

static void http_give(struct bag_source *src, uint8_t *buf, size_t cap)
{
	blockcache_give(((struct http_source *)src)->cache, buf, cap);
}

static uint64_t http_fetched(const struct bag_source *src, uint64_t *requests)
{
	const struct http_source *s = (const struct http_source *)src;
	uint64_t bytes;

	blockcache_totals(s->cache, &bytes, requests);
	return bytes;
}

static void http_close(struct bag_source *src)
{
	struct http_source *s = (struct http_source *)src;

	if (s == NULL)
		return;
	if (s->h != NULL)
		curl_easy_cleanup(s->h);
	if (s->m != NULL)
		curl_multi_cleanup(s->m);
	curl_slist_free_all(s->hdrs);
	free(s->multi);
	blockcache_unref(s->cache);
	remote_target_free(&s->t);
	free(s);
}

/* A curl handle for target t, answers going to the callbacks; NULL on failure. */
static CURL *easy_for(const struct remote_target *t, struct curl_slist **hdrs, char *errbuf)
{
	CURL *h;

	curl_global_init(CURL_GLOBAL_DEFAULT);   /* refcounted; thread-safe in 7.84+ */
	h = curl_easy_init();
	if (h == NULL)
		return NULL;
	curl_easy_setopt(h, CURLOPT_URL, t->url);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 15L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 30L);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(h, CURLOPT_BUFFERSIZE, 256L << 10);
	curl_easy_setopt(h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "bagscope");
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	*hdrs = NULL;
	if (t->sigv4 != NULL) {
		curl_easy_setopt(h, CURLOPT_AWS_SIGV4, t->sigv4);
		curl_easy_setopt(h, CURLOPT_USERPWD, t->userpwd);
		/* curl 7.88 signs the empty payload's hash but does not send it */
		*hdrs = curl_slist_append(*hdrs, "x-amz-content-sha256: " EMPTY_SHA256);
		if (t->token != NULL)
			*hdrs = curl_slist_append(*hdrs, t->token);
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, *hdrs);
	}
	return h;
}

static char *dupstr(const char *s)
{
	return s != NULL ? strdup(s) : NULL;
}

/* A new source on a copy of t sharing cache; validators and size copied by the caller. */
static struct http_source *http_new(const struct remote_target *t, struct blockcache *cache)
{
	struct http_source *s = calloc(1, sizeof *s);

	if (s == NULL)
		return NULL;
	s->base.ops = &http_ops;
	s->t.url = dupstr(t->url);
	s->t.name = dupstr(t->name);
	s->t.sigv4 = dupstr(t->sigv4);
	s->t.userpwd = dupstr(t->userpwd);
	s->t.token = dupstr(t->token);
	s->cache = cache;
	s->range_max = RANGE_HDR_MAX;
	s->h = easy_for(&s->t, &s->hdrs, s->curlerr);
	if (s->h == NULL || s->t.url == NULL) {
		s->cache = NULL;   /* not the caller's reference */
		http_close(&s->base);
		return NULL;
	}
	s->m = curl_multi_init();   /* NULL: curl_easy_perform, cancelled at curl's pace */
	curl_easy_setopt(s->h, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(s->h, CURLOPT_XFERINFODATA, s);
	curl_easy_setopt(s->h, CURLOPT_NOPROGRESS, 0L);
	return s;
}

/* A second source like s on the same cache (not referenced), or NULL. */
static struct http_source *http_twin(struct http_source *s)
{
	struct http_source *d = http_new(&s->t, s->cache);

	if (d == NULL)
		return NULL;
	d->base.size = s->base.size;
	memcpy(d->etag, s->etag, sizeof d->etag);
	memcpy(d->lastmod, s->lastmod, sizeof d->lastmod);
	d->no_multi = s->no_multi;
	d->range_max = s->range_max;
	d->cancel = s->cancel;
	d->progress = s->progress;
	return d;
}

static int http_dup(struct bag_source *src, struct bag_source **out, struct bag_error *err)
{
	struct http_source *s = (struct http_source *)src, *d = http_twin(s);

	if (d == NULL)
		return bag_error_say(err, BAG_ENOMEM, "out of memory");
	blockcache_ref(s->cache);
	*out = &d->base;
	return BAG_OK;
}

static bool http_same(const struct bag_source *s, const struct stat *st)
{
	(void)s, (void)st;
	return false;
}

static struct bag_source_ops http_ops = {
	.read_at = http_read_at,
	.dup = http_dup,
	.same_file = http_same,
	.prefetch = http_prefetch,
	.ahead = http_ahead,
	.take = http_take,
	.give = http_give,
	.fetched = http_fetched,
	.close = http_close,
};

/* The object's last TAIL bytes, asked for on another connection while the first request runs. */
struct tail {
	pthread_t thread;
	CURL *h;
	struct xfer x;
	CURLcode rc;
	bool started;
};

static void *tail_run(void *arg)
{
	struct tail *t = arg;

	t->rc = curl_easy_perform(t->h);
	curl_easy_getinfo(t->h, CURLINFO_RESPONSE_CODE, &t->x.status);
	return NULL;
}

static void tail_start(struct http_source *s, struct tail *t)
{
	char range[32];

	if ((t->h = curl_easy_duphandle(s->h)) == NULL)
		return;
	t->x = (struct xfer){ .h = t->h, .grow = true, .cap = TAIL, .progress = s->progress };
	snprintf(range, sizeof range, "-%llu", (unsigned long long)TAIL);
	curl_easy_setopt(t->h, CURLOPT_RANGE, range);
	curl_easy_setopt(t->h, CURLOPT_WRITEDATA, &t->x);
	curl_easy_setopt(t->h, CURLOPT_HEADERDATA, &t->x);
	curl_easy_setopt(t->h, CURLOPT_ERRORBUFFER, NULL);
	t->started = pthread_create(&t->thread, NULL, tail_run, t) == 0;
}

/* The tail's answer into the cache when it is the end of the object the first answer described. */
static void tail_finish(struct http_source *s, struct tail *t, bool keep)
{
	struct bag_error why;

	if (t->started) {
		pthread_join(t->thread, NULL);
		blockcache_count(s->cache, t->x.len, 1);
		keep = keep && t->rc == CURLE_OK && t->x.status == 206 && same_object(s, &t->x, &why) &&
		       t->x.cr_hi + 1 == s->base.size && t->x.len == t->x.cr_hi - t->x.cr_lo + 1;
		if (keep && t->x.len > 0)
			blockcache_put(s->cache, t->x.cr_lo, t->x.buf, t->x.len);
		else
			free(t->x.buf);
	}
	if (t->h != NULL)
		curl_easy_cleanup(t->h);
}

/*
 * The first request: the object's first MIN_FETCH bytes, which give its
 * size and validators (kept) and go into the cache; its last TAIL bytes
 * (a bag's index, an MCAP summary) are asked for at the same time, on
 * another connection, so that opening takes one round trip less.
 */
static int first_fetch(struct http_source *s, struct bag_error *err)
{
	struct tail tail = { 0 };
	struct bag_error why = { 0 };
	char range[64];
	struct xfer x = { .grow = true, .cap = MIN_FETCH };
	int code;
	enum verdict v = RETRY;

	snprintf(range, sizeof range, "0-%llu", (unsigned long long)(MIN_FETCH - 1));
	tail_start(s, &tail);
	for (int tries = 0; v == RETRY && tries < TRIES; tries++) {
		if (tries > 0 && !backoff(s, tries))
			break;
		v = judge_status(s, perform(s, range, &x), &x, &why);
	}
	if (v == FAIL && (x.status == 416 || (x.status == 200 && !x.full))) {
		v = GOOD;           /* an empty object (a 200 without a body byte) */
	} else if (v == GOOD && (!x.has_cr || x.cr_lo != 0 || x.len != x.cr_hi + 1)) {
		bag_error_say(&why, BAG_EIO, "a 206 answer without a usable Content-Range");
		v = FAIL;
	}
	if (v != GOOD) {
		free(x.buf);
		tail_finish(s, &tail, false);
		code = cancelled(s) ? BAG_ECANCELED : why.code != BAG_OK ? why.code : BAG_EIO;
		return bag_error_say(err, code, "%s%s", why.message, v == RETRY ? ", after retries" : "");
	}
	s->base.size = x.status == 206 ? x.cr_total : 0;
	memcpy(s->etag, x.etag, sizeof s->etag);
	memcpy(s->lastmod, x.lastmod, sizeof s->lastmod);
	if (x.len > 0)
		blockcache_put(s->cache, 0, x.buf, x.len);
	else
		free(x.buf);
	tail_finish(s, &tail, s->base.size > MIN_FETCH);
	return BAG_OK;
}

int bag_http_open(struct bag_source **out, struct remote_target *t, const struct bag_source_opts *o,
                  struct bag_error *err)
{
	struct blockcache *cache;
	struct http_source *s;
	int rc;

	*out = NULL;
	if ((rc = remote_curl_load(err)) != BAG_OK) {
		remote_target_free(t);
		return rc;
	}
	cache = blockcache_new(o->block_cache_bytes ? o->block_cache_bytes : REMOTE_CACHE_DEFAULT);
	s = cache != NULL ? http_new(t, cache) : NULL;
	remote_target_free(t);
	if (s == NULL) {
		blockcache_unref(cache);
		return bag_error_say(err, BAG_ENOMEM, "out of memory");
	}
	s->cancel = o->cancel;
	begin(s);
	s->progress = o->fetched;
	s->no_multi = s->t.sigv4 != NULL || o->no_sign_request;   /* S3 takes one range per request */
	rc = first_fetch(s, err);
	if (rc != BAG_OK) {
		http_close(&s->base);
		return rc;
	}
	*out = &s->base;
	return BAG_OK;
}

int remote_get_small(const struct remote_target *t, char **body, size_t *len, size_t max,
                     struct bag_error *err)
{
	struct curl_slist *hdrs = NULL;
	char errbuf[CURL_ERROR_SIZE] = "";
	struct xfer x = { .grow = true, .cap = max, .status = 206 };
	CURL *h;
	CURLcode rc;
	long status = 0;
	int code = BAG_EIO;

	*body = NULL;
	if ((code = remote_curl_load(err)) != BAG_OK)
		return code;
	code = BAG_EIO;
	if ((h = easy_for(t, &hdrs, errbuf)) == NULL)
		return bag_error_say(err, BAG_ENOMEM, "out of memory");
	x.h = h;
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &x);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, &x);
	for (int tries = 0; tries < TRIES; tries++) {
		x.len = 0;
		rc = curl_easy_perform(h);
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
		if (!(transient(rc) || status == 429 || status >= 500))
			break;
	}
	if (rc != CURLE_OK)
		bag_error_say(err, code, "%s", x.overflow ? "listing too large" : errbuf[0] ? errbuf : curl_easy_strerror(rc));
	else if (status == 403 || status == 401)
		bag_error_say(err, code, "HTTP %ld: access denied (check the credentials)", status);
	else if (status == 404)
		bag_error_say(err, code, "HTTP 404: no such bucket");
	else if (status != 200)
		bag_error_say(err, code, "unexpected HTTP %ld", status);
	else
		code = BAG_OK;
	curl_easy_cleanup(h);
	curl_slist_free_all(hdrs);
	if (code == BAG_OK) {
		*body = (char *)x.buf;
		*len = x.len;
	} else {
		free(x.buf);
	}
	return code;
}
