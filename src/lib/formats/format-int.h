/*
 * format-int.h - the readers of bag formats older than 2.0, beside bag.c and
 * recover.c: 1.2 (indexed, unindexed, crashed: format-v12.c) and the
 * line-based 1.1, 1.0 and headerless version 0 (format-v1x.c), with what
 * they share in format-old.c and the .msg lookup in msgfile.c.
 *
 * A reader fills the SAME structures a 2.0 open fills: connections (one per
 * 1.2 topic, one per distinct topic / type / md5 otherwise; ids in order of
 * discovery), chunks with per-connection counts and time ranges, and totals.
 * An older file has no chunks: its message section is cut into spans of
 * about OLD_SPAN_BYTES at record boundaries, and each span is a chunk
 * (no_index, uncompressed) whose pos and index_end are the span's bytes.
 * When a span is read (bag_chunk_get), its records are translated into the
 * 2.0 message records a chunk holds - op 2, conn, time, and the message's
 * bytes - so the chunk walker, the timeline, views, the scan engine and
 * check read it as they read any chunk. Counts come from the 1.2 index or
 * from a scan of record headers at open; message bodies are skipped by
 * length, never read at open. Never installed.
 */
#ifndef BAGSCOPE_FORMAT_INT_H
#define BAGSCOPE_FORMAT_INT_H

#include "lib/formats/bag-int.h"
#include "lib/formats/reader-int.h"

#define OLD_SPAN_BYTES ((uint64_t)4 << 20)  /* raw bytes per span (chunk) */
#define OLD_LINE_MAX 4096                   /* a topic / type / md5 line of 1.1 and older */
#define OLD_HEADER_MAX ((uint32_t)16 << 20) /* a 1.2 record header (MSG_DEF holds a definition) */
#define OLD_MSG_BYTES 38                    /* header of a translated record: op, conn, time */

enum old_kind {
	OLD_V12,      /* #ROSRECORD V1.2 */
	OLD_V11,      /* #ROSRECORD V1.1, #ROSLOG V1.1 */
	OLD_V10,      /* #ROSLOG V1.0 (and ##MULTILOG##) */
	OLD_V0,       /* no version line */
};

/* What a record is, as far as the readers care. */
enum old_what {
	OLD_REC_MSG,  /* a message */
	OLD_REC_DEF,  /* a 1.2 MSG_DEF */
	OLD_REC_SKIP, /* anything else of 1.2 (FILE_HEADER, INDEX_DATA, unknown ops) */
};

/* One record of an older format, parsed in place from memory. */
struct old_rec {
	enum old_what what;
	uint8_t op;               /* 1.2: its op */
	uint64_t size;            /* the whole record */
	uint32_t data_len;        /* the message's bytes, which end the record */
	const uint8_t *key;       /* its connection's key (1.2, 1.0: the topic; 1.1: */
	size_t key_len;           /* the three lines; version 0: none) */
	int64_t time_ns;          /* a message's time */
	const uint8_t *hdr;       /* 1.2: the header's fields */
	uint32_t hdr_len;
};

/* A map from byte strings to connection indices (open addressing). */
struct strmap {
	struct strmap_slot *slots;
	size_t cap, n;            /* cap a power of two, at most half full */
	char *arena;              /* the keys, back to back */
	size_t arena_len, arena_cap;
};

struct oldfmt;

/* A format's record parser: as v12_parse below. */
typedef int (*old_parse_fn)(const struct oldfmt *f, const uint8_t *p, size_t avail, struct old_rec *r,
                            char *why, size_t whylen);

/* An older bag's facts (bag->fmt_state); shared read-only by bag_dup() handles. */
struct oldfmt {
	enum old_kind kind;
	bool roslog;              /* #ROSLOG magic (1.1) */
	bool indexed;             /* 1.2 read from its index */
	bool relative;            /* times are durations since the recording started */
	uint64_t body;            /* the first record */
	struct strmap conns;      /* record key -> connection index */
	old_parse_fn parse;       /* its format's record parser */
};

/* The older bag's facts on a handle its reader opened. */
static inline struct oldfmt *old_of(const bag_t *bag)
{
	return bag->fmt_state;
}

/* ---- format-old.c: what the readers share ---- */

/*
 * Start an older bag's open: its facts (kind, first record at body, the
 * record parser) put on the handle as fmt_state. Returns 0 or BAG_ENOMEM.
 */
int old_begin(bag_t *bag, enum old_kind kind, bool roslog, uint64_t body, old_parse_fn parse);

/* A reader's pass over its records: the connections and spans (between old_begin and old_finish). */
typedef int (*old_read_fn)(bag_t *bag, const struct bag_open_opts *o);

/* An older bag's whole open: old_begin(), the reader's read, old_finish(). */
int old_open(bag_t *bag, const struct bag_open_opts *o, enum old_kind kind, bool roslog, uint64_t body,
             old_parse_fn parse, old_read_fn read);

/*
 * End an older bag's open once its reader has found the connections and
 * spans: version, sorted connections, definitions from o->msg_path's .msg
 * files, relative times, the format's name. Returns 0 or an error.
 */
int old_finish(bag_t *bag, const struct bag_open_opts *o);

/*
 * Chunk i of an older bag: its span read and translated into 2.0 message
 * records in *out (malloc'd); sets the chunk's size. Returns 0 or an error.
 * The read_span of the older formats' readers.
 */
int old_span_read(bag_t *bag, size_t i, uint8_t **out);

/*
 * Write a 2.0 message record (op 2, conn, time; then len bytes of data:
 * OLD_MSG_BYTES + 8 + len bytes in all) at *at and advance it.
 */
void old_put_msg(uint8_t **at, uint32_t conn, int64_t t, const uint8_t *data, uint32_t len);
/*
 * The same with pad bytes (0, or at least 6) more in its header: a field
 * "_=" that no reader asks for, so a record can be made to end where the
 * next one must start (mcap-read.c).
 */
void old_put_msg_pad(uint8_t **at, uint32_t conn, int64_t t, const uint8_t *data, uint32_t len, uint32_t pad);

/* Record the loss of file bytes [start, end) with the one-line what. Returns 0 or BAG_ENOMEM. */
int old_add_loss(bag_t *bag, uint64_t start, uint64_t end, const char *what);

/* Free an older bag's facts (a struct oldfmt); accepts NULL. */
void old_free(void *state);

/* Key -> value; -1 when absent. */
long strmap_get(const struct strmap *m, const void *key, size_t len);

/* Add key -> val (the key absent). Returns 0 or BAG_ENOMEM. */
int strmap_put(struct strmap *m, const void *key, size_t len, uint32_t val);

void strmap_free(struct strmap *m);

/* Connection strings; a NULL value leaves the field out. */
struct old_conn_desc {
	const char *topic;
	size_t topic_len;
	const char *type;
	size_t type_len;
	const char *md5;
	size_t md5_len;
	const char *def;
	size_t def_len;
	const char *callerid;     /* NULL: none */
	size_t callerid_len;
	bool latching;
};

/*
 * Append connection (id = its index) built from d, in the one-allocation
 * layout conn.c uses, so bag_conn_free() frees it. Returns 0 or BAG_ENOMEM.
 */
int old_conn_add(bag_t *bag, size_t *cap, const struct old_conn_desc *d);

/* Rebuild connection i from d (its count kept). Returns 0 or BAG_ENOMEM. */
int old_conn_replace(bag_t *bag, size_t i, const struct old_conn_desc *d);

/* d describes c (pointing into c's strings). */
void old_conn_desc_of(const struct bag_connection *c, struct old_conn_desc *d);

/* Spans of records being cut into chunks while a file is read in order. */
struct spans {
	bag_t *bag;
	size_t chunk_cap, cc_cap;
	uint64_t pos;             /* the current span's first byte */
	uint64_t raw;             /* its bytes so far */
	uint64_t out;             /* its translated bytes so far */
	uint64_t count;
	int64_t t0, t1;
	struct chunk_conn *cur;   /* its counts, one per connection, unsorted */
	size_t ncur, cur_cap;
	uint32_t *slot;           /* per connection: its place in cur, when */
	uint64_t *slot_span;      /* its span number is this one + 1 */
	size_t slot_cap;
	uint64_t nspan;
};

/* Count one message of data_len bytes on connection conn at time t, in the record at pos of size bytes. */
int spans_add(struct spans *s, uint64_t pos, uint64_t size, uint32_t data_len, uint32_t conn, int64_t t);

/* End the current span at byte end (its chunk is added if it holds messages). */
int spans_cut(struct spans *s, uint64_t end);

void spans_free(struct spans *s);

/*
 * Add a chunk over file bytes [pos, end) with the counts cc[0..n) (sorted
 * by connection index) and time range [t0, t1]. Returns 0 or BAG_ENOMEM.
 */
int old_chunk_add(bag_t *bag, size_t *chunk_cap, size_t *cc_cap, uint64_t pos, uint64_t end,
                  int64_t t0, int64_t t1, const struct chunk_conn *cc, size_t n);

/* Progress of an open's scan: done of the file's bytes; BAG_ECANCELED when stopped. */
int old_progress(bag_t *bag, uint64_t done, uint64_t *last);

/* ---- the scan shared by the unindexed readers (format-old.c) ---- */

/* Called for each whole record of a scan. */
typedef int (*old_rec_fn)(void *arg, const struct old_rec *r, uint64_t pos);

/*
 * Read records from byte from to the end of the file with the format's
 * parser (headers only: bodies are skipped by length), calling fn on each.
 * A record cut off by the end of the file, or one that does not parse, ends
 * the scan with a warning and a loss; *end is where the last whole record
 * ended. Returns 0, BAG_ENOMEM, BAG_EIO, BAG_ECANCELED or fn's error.
 */
int old_scan(bag_t *bag, uint64_t from, old_rec_fn fn, void *arg, uint64_t *end);

/* ---- msgfile.c: definitions from .msg files ---- */

/*
 * The directories .msg files are looked up in, as every front end finds
 * them: the caller's (bag_open_opts.msg_path) first, then those of
 * BAGSCOPE_MSG_PATH and ROS_PACKAGE_PATH (':'-separated, in that order),
 * then /usr/share (Debian's ros-*-msgs packages). Free with
 * bag_msgpath_free().
 */
struct bag_msgpath {
	const char **dirs;
	size_t n;
	char *store;              /* the variables' copies the dirs point into */
};

/* Build p from dirs[0..n) and (env) the environment's. Returns 0 or BAG_ENOMEM. */
int bag_msgpath_init(struct bag_msgpath *p, const char *const *dirs, size_t n, bool env);

void bag_msgpath_free(struct bag_msgpath *p);

/*
 * The full definition text of type ("pkg/Name") built from .msg files in
 * dirs (each dir/pkg/msg/Name.msg, or dir/msg/Name.msg when dir is the
 * package's own directory): the type's file, then each type it uses after a
 * line of '=' and "MSG: pkg/Name", as a bag 2.0 stores it. *text is
 * malloc'd; *file names the type's own file (malloc'd). Returns 0,
 * BAG_ENOTFOUND (err says which type is missing), BAG_EDEFINITION or
 * BAG_ENOMEM.
 */
int bag_msgfile_text(const char *const *dirs, size_t ndirs, const char *type, char **text, char **file,
                     struct bag_error *err);

#endif
