/*
 * source-int.h - where a bag's bytes come from, behind one small table.
 *
 * A bag_t reads through a struct bag_source: a positional read, the size
 * fixed at open, a name for messages, dup (one per bag_dup, each with its own
 * descriptor or connection) and close. file.c is the local implementation
 * (pread, or mmap for a large range); remote sources (HTTP, S3) add a
 * table here and nothing above io/ knows the difference. handle.c's
 * bag_read_at() and bag_bytes_at() are the calls the rest of the library
 * reads through. Never installed.
 */
#ifndef BAGSCOPE_SOURCE_INT_H
#define BAGSCOPE_SOURCE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <bagscope/common.h>

struct bag_source;

/* One byte range, for prefetch hints. */
struct bag_span {
	uint64_t off;
	uint64_t len;
};

struct bag_source_ops {
	/*
	 * Read exactly len bytes at off (off + len <= size, checked by the
	 * caller). 0, or a negative BAG_E* code with err set (common.h): the
	 * code, the failing offset and the cause ("read failed: ...", no name
	 * and no offset in the message).
	 */
	int (*read_at)(struct bag_source *s, uint64_t off, void *buf, size_t len, struct bag_error *err);
	/* A second, independent handle on the same bytes (bag_dup); err set on failure. */
	int (*dup)(struct bag_source *s, struct bag_source **out, struct bag_error *err);
	/* Whether the bytes are the local file st describes (export's guard). */
	bool (*same_file)(const struct bag_source *s, const struct stat *st);
	/*
	 * Optional (NULL: nothing to do): these spans are about to be read,
	 * in this order; a remote source fetches them in as few requests as it
	 * can. A failure here is not reported: the reads that follow report it.
	 */
	void (*prefetch)(struct bag_source *s, const struct bag_span *spans, size_t n);
	/*
	 * Optional: these bytes will be read soon, after those hinted before; a
	 * remote source fetches them in the background, in order, exactly (no
	 * read-ahead beyond them). Returns at once.
	 */
	void (*ahead)(struct bag_source *s, uint64_t off, uint64_t len);
	/*
	 * Optional: the bytes [off, off + len) in a malloc'd buffer of len + 1
	 * bytes handed over without a copy (a background fetch of exactly
	 * them), or NULL: read them.
	 */
	uint8_t *(*take)(struct bag_source *s, uint64_t off, size_t len);
	/*
	 * Optional (NULL: the caller frees it): a malloc'd buffer of cap bytes
	 * its reader is done with (a taken one, or any other), kept for the
	 * source's next fetches so that they fault in no new pages.
	 */
	void (*give)(struct bag_source *s, uint8_t *buf, size_t cap);
	/*
	 * Optional (NULL: read_at only): the bytes [off, off + len) (len > 0,
	 * off + len <= size, checked by the caller) mapped read-only, without
	 * a copy: *p points at them; *base and *base_len are what unmap
	 * takes. 0, or -1 (nothing to undo): read them with read_at, which
	 * says what is wrong if anything is.
	 */
	int (*map)(struct bag_source *s, uint64_t off, size_t len, const uint8_t **p, void **base, size_t *base_len);
	void (*unmap)(struct bag_source *s, void *base, size_t base_len);
	/* Bytes fetched so far, requests in *requests (a remote source's totals); optional. */
	uint64_t (*fetched)(const struct bag_source *s, uint64_t *requests);
	void (*close)(struct bag_source *s);
};

struct bag_source {
	const struct bag_source_ops *ops;
	uint64_t size;            /* bytes, fixed at open */
};

/* Options for opening a source; zero means the default. */
struct bag_source_opts {
	size_t block_cache_bytes; /* a remote source's block cache bound */
	bool no_sign_request;     /* s3://: anonymous */
	volatile int *cancel;     /* a change stops the remote reads running, a negative value all (BAG_ECANCELED) */
	uint64_t *fetched;        /* bytes fetched are added here (atomically), or NULL */
};

/*
 * Open the bytes named by path: a local file, or a URL for which a remote
 * source is built in. 0, or a BAG_E* code with err set (the cause, no name).
 */
int bag_source_open(struct bag_source **out, const char *path, const struct bag_source_opts *o,
                    struct bag_error *err);

/* Whether path is a URL some remote source reads (http, https, s3). */
bool bag_source_is_url(const char *path);

/* ---- file.c: a local regular file, read with pread or mapped ---- */
int bag_file_open(struct bag_source **out, const char *path, struct bag_error *err);

#endif
