/*
 * bagscope/common.h - error codes, compression kinds and time helpers shared
 * by every module of libbagscope.
 *
 * Errors, one style across the API:
 *  - Every library function that can fail returns an int: 0 (BAG_OK) or one
 *    of the negative BAG_E* codes below (bag_strerror() names them).
 *  - The details are a struct bag_error (below): the code, a byte offset and
 *    a one-line message naming the file, the offset and the problem. Every
 *    handle embeds one, read with that handle's accessor: bag_last_error(),
 *    bag_view_error(), bag_timeline_error(), bag_writer_error(),
 *    bag_mcap_writer_error(), bag_expr_error(), bag_msgdef_error(),
 *    bag_reduce_error(). It stays valid until the next call on the handle;
 *    a constructor sets *out even on failure so it can be read (a NULL
 *    handle, after BAG_ENOMEM, reads BAG_ENOMEM "out of memory").
 *  - A function that only reads a shared, const object (bag_decode() and the
 *    bag_print_*() printers over a bag_msgdef_t, which threads share; the
 *    image, cloud and export functions) has no handle to write to: it takes
 *    a `struct bag_error *err` out-parameter (may be NULL), filled on
 *    failure.
 * Option structs (bag_open_opts, bag_writer_opts, bag_scan_opts, ...) lead
 * with their size_t size; start them from their BAG_*_INIT macro. One growth
 * rule for all: fields are only ever added at the end; a smaller (older)
 * struct is accepted, its missing fields read as zero (their defaults); a
 * larger (newer) one is accepted only if every byte this library does not
 * know is zero, otherwise BAG_EINVAL.
 */
#ifndef BAGSCOPE_COMMON_H
#define BAGSCOPE_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <bagscope/version.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(BAGSCOPE_BUILDING) && defined(__GNUC__)
#define BAG_API __attribute__((visibility("default")))
#else
#define BAG_API
#endif

/*
 * The one plural rule for counts in messages: "s" unless n is 1, as in
 * printf("%llu message%s", n, BAG_S(n)); n is evaluated twice.
 */
#define BAG_S(n) ((n) == 1 ? "" : "s")

/*
 * X(name, value, text): the one list of error codes; it also gives
 * bag_strerror()'s text.
 */
#define BAG_ERRORS(X) \
	X(BAG_OK,          0, "success") \
	X(BAG_EIO,        -1, "input/output error") \
	X(BAG_ENOMEM,     -2, "out of memory") \
	X(BAG_ENOTBAG,    -3, "not a bag file") \
	X(BAG_EVERSION,   -4, "unsupported bag version") \
	X(BAG_ECORRUPT,   -5, "corrupt bag data") \
	X(BAG_ETRUNCATED, -6, "truncated bag") \
	X(BAG_ECOMPRESS,  -7, "chunk decompression failed") \
	X(BAG_EUNSUPP,    -8, "unsupported feature") \
	X(BAG_EINVAL,     -9, "invalid argument") \
	X(BAG_ENOTFOUND, -10, "not found") \
	X(BAG_EDEFINITION, -11, "bad message definition") \
	X(BAG_EDECODE,   -12, "message does not match its definition") \
	X(BAG_ENOINDEX,  -13, "bag has no usable index") \
	X(BAG_ECANCELED, -14, "cancelled") \
	X(BAG_EEXPR,     -15, "bad expression")

enum bag_errcode {
#define BAG_X_ENUM(name, value, text) name = value,
	BAG_ERRORS(BAG_X_ENUM)
#undef BAG_X_ENUM
};

/*
 * The version of the library linked at run time: "0.1.0" (static storage),
 * and as one number, BAG_VERSION_NUMBER's form (10203 for 1.2.3). Compare
 * with BAG_VERSION_STRING / BAG_VERSION_NUMBER (version.h), the version the
 * caller was compiled against.
 */
BAG_API const char *bag_version_string(void);
BAG_API unsigned bag_lib_version(void);

/* The fixed text for a BAG_E* code; never NULL, static storage. */
BAG_API const char *bag_strerror(int code);

/* The offset of a struct bag_error that has none. */
#define BAG_NO_OFFSET UINT64_MAX
/* The size of struct bag_error's message buffer, NUL included. */
#define BAG_ERROR_MESSAGE_MAX 512

/*
 * One failure: what every handle keeps and every accessor returns.
 *  - code: BAG_OK (0) when nothing failed, else the BAG_E* code returned.
 *  - offset: the byte offset the problem is at, BAG_NO_OFFSET if none. Its
 *    unit is the input the message is about: a file offset for a bag or a
 *    written file, a position in the expression text for bag_expr_error(),
 *    in the message's data for bag_decode() and the printers.
 *  - message: one line, NUL-terminated, "" when code is BAG_OK, e.g.
 *    "x.bag: at byte 4133: chunk of 812 bytes runs past the end of the file".
 *    Truncated to BAG_ERROR_MESSAGE_MAX - 1 bytes. Print this.
 */
struct bag_error {
	int code;
	uint64_t offset;
	char message[BAG_ERROR_MESSAGE_MAX];
};
#define BAG_ERROR_INIT {0, BAG_NO_OFFSET, ""}

/* Chunk compression kinds, as named in a chunk record's compression field. */
enum bag_compression {
	BAG_COMPRESSION_NONE = 0, /* "none" */
	BAG_COMPRESSION_BZ2 = 1,  /* "bz2" */
	BAG_COMPRESSION_LZ4 = 2,  /* "lz4": the LZ4 frame format, as roslz4 writes */
	BAG_COMPRESSION_ZSTD = 3, /* "zstd": MCAP only (no ROS 1 bag holds it) */
};

/* The format's name for a compression kind ("none", "bz2", "lz4", "zstd"). */
BAG_API const char *bag_compression_name(enum bag_compression c);

/*
 * Parse a compression name. Returns 0 and sets *out, or BAG_EUNSUPP for a
 * name this library does not know.
 */
BAG_API int bag_compression_parse(const char *name, size_t len,
                                  enum bag_compression *out);

/*
 * Times. The format stores ROS time as uint32 secs + uint32 nsecs; the
 * library carries it as signed nanoseconds since the epoch (int64 covers
 * every uint32 second count). BAG_TIME_MIN / BAG_TIME_MAX bound queries.
 */
#define BAG_NSEC_PER_SEC 1000000000LL
#define BAG_TIME_MIN INT64_MIN
#define BAG_TIME_MAX INT64_MAX

/* secs/nsecs as stored in a bag -> nanoseconds since the epoch. */
static inline int64_t bag_time_from_ros(uint32_t secs, uint32_t nsecs)
{
	return (int64_t)secs * BAG_NSEC_PER_SEC + (int64_t)nsecs;
}

#ifdef __cplusplus
}
#endif

#endif
