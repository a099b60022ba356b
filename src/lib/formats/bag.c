/*
 * bag.c - the handle: open (the file, then the first format reader whose
 * detect() takes its first bytes: reader-int.h), dup, close, and the
 * accessors of what the reader found.
 *
 * Invariants after a successful open, whatever the format: conns is sorted
 * by id and each conn.index is its position; chunks is sorted by pos, each
 * chunk's chunk_conns name valid connection indices, each once and in
 * ascending order, and sum to its count; fmt is the reader and fmt_state
 * its facts (shared with dups, freed by the last close).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <bagscope/record.h>
#include "lib/formats/bag-int.h"
#include "lib/formats/reader-int.h"
#include "lib/common/util-int.h"


/*
 * The reader for the file's first bytes: *out, or BAG_ENOTBAG / BAG_EVERSION
 * with the handle's message set when no reader takes them.
 */
static int pick_reader(bag_t *bag, const struct bag_reader **out)
{
	uint8_t head[READER_HEAD_BYTES];
	size_t got = bag->file_size < sizeof head ? (size_t)bag->file_size : sizeof head;
	int rc;

	if (bag->file_size == 0)
		return bag_fail(bag, BAG_ENOTBAG, UINT64_MAX, "empty file, not a bag");
	if ((rc = bag_read_at(bag, 0, head, got)) != BAG_OK)
		return rc;
	for (size_t i = 0; bag_readers[i] != NULL; i++) {
		if (bag_readers[i]->detect(head, got, bag->file_size)) {
			*out = bag_readers[i];
			return BAG_OK;
		}
	}
	if (got > 4 && memcmp(head, "#ROS", 4) == 0) {
		const uint8_t *nl = memchr(head, '\n', got < 64 ? got : 64);
		int n = nl ? (int)(nl - head) : (got < 40 ? (int)got : 40);
		return bag_fail(bag, BAG_EVERSION, 0, "version line '%.*s' names a bag format bagscope cannot read "
		                "(it reads " READER_FORMATS ")", n, (const char *)head);
	}
	return bag_fail(bag, BAG_ENOTBAG, 0, "no '#ROSBAG V' version line (nor an older bag's, nor MCAP's magic): not a "
	                "file bagscope reads (it reads " READER_FORMATS ")");
}

/*
 * A local file that is one zstd stream (rosbag2's compression_mode FILE:
 * NAME.db3.zstd, NAME.mcap.zstd): decompressed into a file under $TMPDIR
 * (at most the space free there, less a twentieth), which the handle then
 * reads, and which its last close removes; one warning says so. The input
 * is never written.
 */
static int open_unzstd(bag_t *bag, const char *path, const struct bag_source_opts *so)
{
	const char *dir = getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp";
	struct bag_error cause = { 0 };
	struct statvfs fs;
	uint64_t written = 0, room;
	int in = -1, tmp = -1, rc;

	if (asprintf(&bag->temp_path, "%s/bagscope-XXXXXX", dir) < 0) {
		bag->temp_path = NULL;
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	}
	room = statvfs(dir, &fs) == 0 ? (uint64_t)fs.f_bavail * fs.f_frsize / 20 * 19 : UINT64_MAX;
	if ((in = open(path, O_RDONLY | O_CLOEXEC)) < 0 || (tmp = mkostemp(bag->temp_path, O_CLOEXEC)) < 0) {
		rc = bag_fail(bag, BAG_EIO, UINT64_MAX, "a zstd-compressed file: cannot %s: %s", in < 0 ? "read it" :
		              "make a file in $TMPDIR to decompress it into", strerror(errno));
		free(bag->temp_path);
		bag->temp_path = NULL;
		goto done;
	}
	if ((rc = bag_codec_unzstd_fd(in, tmp, room, &written, &cause)) != BAG_OK) {
		rc = bag_fail(bag, rc, UINT64_MAX, "a zstd-compressed file: %s", cause.message);
		goto done;
	}
	bag->src->ops->close(bag->src);
	bag->src = NULL;
	if ((rc = bag_source_open(&bag->src, bag->temp_path, so, &cause)) != BAG_OK) {
		rc = bag_fail(bag, rc, UINT64_MAX, "%s", cause.message);
		goto done;
	}
	bag->file_size = bag->src->size;
	rc = bag_warn(bag, UINT64_MAX, "zstd-compressed file decompressed to %s (%llu bytes), removed at close",
	              bag->temp_path, (unsigned long long)written);
done:
	if (in >= 0)
		close(in);
	if (tmp >= 0)
		close(tmp);
	return rc;
}

/* Whether the handle's file starts with zstd's frame magic (and is local). */
static bool is_zstd_file(bag_t *bag, const char *path)
{
	uint8_t head[4];

	return !bag_is_url(path) && bag->file_size >= 4 && bag_read_at(bag, 0, head, 4) == BAG_OK &&
	       memcmp(head, "\x28\xb5\x2f\xfd", 4) == 0;
}

BAG_API int bag_open(bag_t **out, const char *path, const struct bag_open_opts *opts)
{
	struct bag_open_opts o;
	struct bag_source_opts so = { 0 };
	struct bag_error cause = { 0 };
	const struct bag_reader *reader;
	bag_t *bag;
	int rc;

	*out = NULL;
	bag = calloc(1, sizeof *bag);
	if (bag == NULL)
		return BAG_ENOMEM;
	*out = bag;
	bag_error_clear(&bag->err);
	bag->lru_head = bag->lru_tail = NO_CHUNK;
	bag->path = bag_url_redact(path);
	if (bag->path == NULL) {
		rc = BAG_ENOMEM;
		goto fail;
	}
	if (bag_opts_read(&o, sizeof o, opts) != BAG_OK) {
		rc = bag_fail(bag, BAG_EINVAL, UINT64_MAX, "bag_open_opts.size is %zu: set it to "
		              "sizeof(struct bag_open_opts) (%zu), and leave unknown fields zero",
		              opts->size, sizeof o);
		goto fail;
	}
	bag->cache_limit = o.cache_bytes ? o.cache_bytes : (size_t)64 << 20;
	bag->progress = o.progress;
	bag->progress_arg = o.progress_arg;
	so.block_cache_bytes = o.remote_cache_bytes;
	so.no_sign_request = o.no_sign_request;
	so.cancel = o.cancel;
	so.fetched = o.fetched;
	rc = bag_source_open(&bag->src, path, &so, &cause);
	if (rc != BAG_OK) {
		rc = bag_fail(bag, rc, UINT64_MAX, "%s", cause.message);
		goto fail;
	}
	bag->file_size = bag->src->size;
	if (is_zstd_file(bag, path) && (rc = open_unzstd(bag, path, &so)) != BAG_OK)
		goto fail;
	if ((rc = pick_reader(bag, &reader)) != BAG_OK)
		goto fail;
	bag->fmt = reader;
	rc = reader->open(bag, &o);
fail:
	return rc;
}

BAG_API int bag_dup(bag_t **out, bag_t *bag)
{
	struct bag_error cause = { 0 };
	bag_t *d;
	int rc = BAG_ENOMEM;

	*out = NULL;
	if (bag->shared == NULL) {
		bag->shared = malloc(sizeof *bag->shared);
		if (bag->shared == NULL)
			return BAG_ENOMEM;
		*bag->shared = 1;
	}
	*out = d = malloc(sizeof *d);
	if (d == NULL)
		return BAG_ENOMEM;
	*d = *bag;
	d->src = NULL;
	d->codec = (struct bag_codec_ctx){ 0 };
	d->chunks = NULL;
	d->cache_bytes = 0;
	d->spare = d->raw = NULL;
	d->spare_cap = d->raw_cap = 0;
	d->cache_loads = d->cache_hits = 0;
	d->read_bytes = d->reads = 0;
	d->lru_head = d->lru_tail = NO_CHUNK;
	bag_error_clear(&d->err);
	__atomic_add_fetch(d->shared, 1, __ATOMIC_SEQ_CST);
	d->chunks = malloc((bag->nchunks ? bag->nchunks : 1) * sizeof *d->chunks);
	if (d->chunks == NULL)
		goto fail;
	for (size_t i = 0; i < bag->nchunks; i++) {
		d->chunks[i] = bag->chunks[i];
		d->chunks[i].buf = NULL;
		d->chunks[i].buf_cap = 0;
		d->chunks[i].pins = 0;
		d->chunks[i].lru_prev = d->chunks[i].lru_next = NO_CHUNK;
	}
	rc = bag->src->ops->dup(bag->src, &d->src, &cause);
	if (rc != BAG_OK) {
		rc = bag_fail(d, rc, UINT64_MAX, "%s", cause.message);
		goto fail;
	}
	rc = BAG_OK;
fail:
	return rc;
}

BAG_API void bag_close(bag_t *bag)
{
	if (bag == NULL)
		return;
	if (bag->shared != NULL && __atomic_sub_fetch(bag->shared, 1, __ATOMIC_SEQ_CST) > 0) {
		if (bag->chunks != NULL)
			chunk_cache_clear(bag);
		free(bag->chunks);
		bag_codec_ctx_free(&bag->codec);
		if (bag->src != NULL)
			bag->src->ops->close(bag->src);
		free(bag);
		return;
	}
	free(bag->shared);
	chunk_cache_clear(bag);
	bag_reset_index(bag);
	for (size_t i = 0; i < bag->nlosses; i++)
		free((char *)bag->losses[i].what);
	free(bag->losses);
	for (size_t i = 0; bag->warnings != NULL && i < BAG_WARNINGS_MAX && i < bag->nwarnings; i++)
		free(bag->warnings[i]);
	free(bag->warnings);
	free(bag->recovery_reason);
	bag_codec_ctx_free(&bag->codec);
	if (bag->fmt != NULL && bag->fmt->free != NULL)
		bag->fmt->free(bag->fmt_state);
	if (bag->src != NULL)
		bag->src->ops->close(bag->src);
	if (bag->temp_path != NULL)
		unlink(bag->temp_path);
	free(bag->temp_path);
	free(bag->path);
	free(bag);
}

BAG_API const struct bag_error *bag_last_error(const bag_t *bag)
{
	return bag ? &bag->err : &bag_error_nomem;
}

BAG_API const char *bag_path(const bag_t *bag)
{
	return bag->path;
}

BAG_API uint64_t bag_file_size(const bag_t *bag)
{
	return bag->file_size;
}

BAG_API void bag_version(const bag_t *bag, int *major, int *minor)
{
	*major = bag->major;
	*minor = bag->minor;
}

BAG_API const char *bag_format(const bag_t *bag)
{
	return bag->format_name;
}

BAG_API void bag_file_info(const bag_t *bag, struct bag_file_info *out)
{
	*out = (struct bag_file_info){ "bag", "", "", NULL, 0 };
	if (bag->fmt != NULL && bag->fmt->describe != NULL)
		bag->fmt->describe(bag, out);
}

BAG_API bool bag_relative_times(const bag_t *bag)
{
	return bag->relative;
}

BAG_API size_t bag_conn_count(const bag_t *bag)
{
	return bag->nconns;
}

BAG_API const struct bag_connection *bag_conn(const bag_t *bag, size_t i)
{
	return i < bag->nconns ? &bag->conns[i] : NULL;
}

BAG_API const struct bag_connection *bag_conn_by_id(const bag_t *bag, uint32_t conn_id)
{
	long i = bag_conn_lookup(bag, conn_id);
	return i < 0 ? NULL : &bag->conns[i];
}

BAG_API uint64_t bag_message_count(const bag_t *bag)
{
	return bag->message_count;
}

BAG_API bool bag_counts_exact(const bag_t *bag)
{
	return !bag->counts_estimated;
}

BAG_API int bag_count_messages(bag_t *bag, uint64_t *per)
{
	if (bag->counts_estimated && bag->fmt->count != NULL)
		return bag->fmt->count(bag, per, bag->shared == NULL || __atomic_load_n(bag->shared, __ATOMIC_SEQ_CST) == 1);
	for (size_t c = 0; c < bag->nconns; c++)
		per[c] = bag->conns[c].message_count;
	return BAG_OK;
}

BAG_API void bag_counts_set(bag_t *bag, const uint64_t *per)
{
	bag->message_count = 0;
	for (size_t c = 0; c < bag->nconns; c++) {
		bag->conns[c].message_count = per[c];
		bag->message_count += per[c];
	}
	bag->counts_estimated = false;
}

BAG_API int bag_counts_make_exact(bag_t *bag)
{
	uint64_t *per;
	int rc;

	if (!bag->counts_estimated)
		return BAG_OK;
	if ((per = calloc(bag->nconns + 1, sizeof *per)) == NULL)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	if ((rc = bag_count_messages(bag, per)) == BAG_OK)
		bag_counts_set(bag, per);
	free(per);
	return rc;
}

BAG_API int64_t bag_start_time(const bag_t *bag)
{
	return bag->start_ns;
}

BAG_API int64_t bag_end_time(const bag_t *bag)
{
	return bag->end_ns;
}

BAG_API size_t bag_chunk_count(const bag_t *bag)
{
	return bag->nchunks;
}

BAG_API uint64_t bag_chunk_pos(const bag_t *bag, size_t i)
{
	return i < bag->nchunks ? bag->chunks[i].pos : UINT64_MAX;
}

BAG_API void bag_recovery_report(const bag_t *bag, struct bag_recovery *out)
{
	*out = bag->recovery;
	out->reason = bag->recovery_reason ? bag->recovery_reason : "";
	out->nlosses = bag->nlosses;
}

BAG_API const struct bag_loss *bag_recovery_loss(const bag_t *bag, size_t i)
{
	return i < bag->nlosses ? &bag->losses[i] : NULL;
}

BAG_API size_t bag_warning_count(const bag_t *bag)
{
	return bag->nwarnings;
}

BAG_API const char *bag_warning(const bag_t *bag, size_t i)
{
	if (bag->warnings == NULL || i >= bag->nwarnings || i >= BAG_WARNINGS_MAX)
		return NULL;
	return bag->warnings[i];
}
