/*
 * db3-read.c - rosbag2's sqlite3 storage (a `.db3` file, "SQLite format 3"),
 * as one more reader of the format table (reader-int.h), read through
 * libsqlite3.
 *
 * The database holds `topics` (id, name, type, serialization_format,
 * offered_qos_profiles), `messages` (id INTEGER PRIMARY KEY, topic_id,
 * timestamp, data BLOB; index timestamp_idx) and, from Iron on,
 * `message_definitions` (topic_type, encoding, encoded_message_definition,
 * type_description_hash). It is opened read-only and immutable
 * (`file:PATH?mode=ro&immutable=1`): SQLite takes no lock and creates no
 * -wal, -shm or journal file beside the input. Local files only: a .db3
 * over http(s)/s3 is refused in one line (SQLite reads through the file
 * system, not through the handle's byte source). The open uses one
 * connection; read_span takes one from a small pool (opening another when
 * all are busy), so that handles sharing the state read spans on several
 * threads at once, each connection used by one thread at a time.
 *
 * Connections: one per topic, in topic id order (st->topics maps a topic id
 * to its connection index, sorted by id for a binary search). A topic's
 * definition is its type's ros2msg text from message_definitions; without
 * one (before Iron), the type's .msg file found in --msg-path directories,
 * PREFIX/share for each AMENT_PREFIX_PATH prefix, then the environment's
 * directories (msgfile.c, which also resolves the nested types). A type with
 * neither, or with only a ros2idl text, is warned about once and its
 * messages are shown as bytes.
 *
 * Spans (the handle's chunks) are time ranges [start, next start) of the
 * messages table, cut from its indexes without reading a row: the first and
 * last ids (rowid seeks), the first and last time a ROS time holds
 * (1970..2106, timestamp_idx seeks), then the times of the rows at k ids
 * evenly spread between them (k from the file's bytes per message: about
 * SPAN_BYTES of the file or SPAN_ROWS rows a span), sorted and made
 * distinct; a span's end is the last time before the next start (a seek).
 * Spans never overlap. A span's pos is its number; read_span reads its
 * range of timestamp_idx (`WHERE timestamp BETWEEN start AND end`, in
 * (time, id) order, the index's own) and translates the rows into 2.0
 * message records (format-old.c's layout), leaving out rows with no data or
 * on unknown topics.
 *
 * Counts: the connections' come from metadata.yaml beside the file
 * (rosbag2-int.h) when it names the file as the recording's only one and
 * its topics' counts sum to the file's message count - taken from the
 * table's ids when metadata.yaml's count equals their range, else from
 * count(*) over timestamp_idx. A metadata.yaml the table contradicts has
 * one pass over the topic_id column count them, which also warns about
 * unusable rows; its count of the file that differs from the table's is
 * one warning; the table wins. Without such a metadata.yaml (a lone .db3,
 * a file of a split recording) the open reads no row: the counts are
 * estimates (bag->counts_estimated, bag_counts_exact()): the file's count
 * from metadata.yaml's files entry or the table's id range, shared evenly
 * among the topics, at least one each; the count op (bag_count_messages())
 * makes that pass when a caller needs them. A span's counts by topic are
 * estimates (chunk.estimated): its share of the file's ids, each topic's
 * count in proportion (so each topic's spans sum to its count); the
 * timeline takes the rows it finds when it loads the span, and check
 * compares metadata.yaml's counts with a pass over the table instead.
 *
 * compression_mode MESSAGE (metadata.yaml, compression_format zstd): each
 * message's data is one zstd frame, decompressed as its span is read
 * (bounded by the size the frame declares and MSG_MAX); without
 * metadata.yaml, data starting with zstd's magic is taken as a frame (CDR
 * starts with a zero byte). A bad frame fails the span naming the message.
 * compression_mode FILE is bag.c's: the handle reads a decompressed copy
 * (bag->temp_path), which SQLite opens by name.
 */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

#include "lib/formats/format-int.h"
#include "lib/formats/rosbag2-int.h"
#include "lib/common/util-int.h"

#define SQLITE_MAGIC "SQLite format 3"
#define SPAN_ROWS 65536
#define SPAN_BYTES ((uint64_t)4 << 20)
#define MSG_MAX ((int64_t)1 << 30)       /* one message's bytes */
#define TOPICS_MAX 16384
#define REC_BYTES (OLD_MSG_BYTES + 8)    /* a translated record's bytes besides the data */
#define POOL_MAX 16
#define ROW_MIN 16                       /* a row's bytes on disk, at least (cell and index entry) */
#define TIME_MAX ((int64_t)UINT32_MAX * BAG_NSEC_PER_SEC + 999999999)  /* the last ROS time */
#define ZSTD_MAGIC "\x28\xb5\x2f\xfd"

/* A topic: its id in the file and its connection index. */
struct topic {
	int64_t id;
	uint32_t conn;
};

/* The reader's facts (bag->fmt_state). */
struct db3_state {
	sqlite3 *db;              /* the open's connection (no SQLite mutexes: one thread) */
	char *uri;                /* how spans' connections open the file */
	pthread_mutex_t lock;     /* guards pool: handles sharing this state read from several threads */
	sqlite3 *pool[POOL_MAX];  /* idle connections for read_span, one per thread at a time */
	size_t npool;
	struct topic *topics;     /* sorted by id */
	size_t ntopics;
	bool zstd;                /* compression_mode MESSAGE: each message's data is a zstd frame */
	bool zstd_magic;          /* no metadata.yaml: data that starts with zstd's magic is one */
	bool meta_counts;         /* the connections' counts are metadata.yaml's */
};

static struct db3_state *st_of(const bag_t *bag)
{
	return bag->fmt_state;
}

static void db3_free(void *state)
{
	struct db3_state *st = state;

	if (st == NULL)
		return;
	sqlite3_close(st->db);
	for (size_t i = 0; i < st->npool; i++)
		sqlite3_close(st->pool[i]);
	free(st->uri);
	pthread_mutex_destroy(&st->lock);
	free(st->topics);
	free(st);
}

static bool db3_detect(const uint8_t *head, size_t len, uint64_t size)
{
	(void)size;
	return len >= sizeof SQLITE_MAGIC && memcmp(head, SQLITE_MAGIC, sizeof SQLITE_MAGIC) == 0;
}

/* A failure of SQLite while doing what: the file damaged or cut, not rosbag2's schema, or the system. */
static int db_fail_on(bag_t *bag, sqlite3 *db, const char *what)
{
	int code = sqlite3_errcode(db);

	if (code == SQLITE_NOMEM)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory %s", what);
	if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
		return bag_fail(bag, BAG_ECORRUPT, UINT64_MAX, "rosbag2 sqlite3 storage damaged or cut off, %s "
		                "(sqlite: %s)", what, sqlite3_errmsg(db));
	if (code == SQLITE_ERROR)
		return bag_fail(bag, BAG_ECORRUPT, UINT64_MAX, "not rosbag2's sqlite3 schema, %s (sqlite: %s)", what,
		                sqlite3_errmsg(db));
	return bag_fail(bag, code == SQLITE_IOERR ? BAG_EIO : BAG_ECORRUPT, UINT64_MAX, "rosbag2 sqlite3 storage: "
	                "%s (sqlite: %s)", what, sqlite3_errmsg(db));
}

static int db_fail(bag_t *bag, const char *what)
{
	return db_fail_on(bag, st_of(bag)->db, what);
}

static int cmp_topic(const void *a, const void *b)
{
	const struct topic *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

/* Connection index + 1 of topic id, 0 when the file defines no such topic. */
static uint32_t topic_conn(const struct db3_state *st, int64_t id)
{
	const struct topic key = { id, 0 }, *t = bsearch(&key, st->topics, st->ntopics, sizeof key, cmp_topic);

	return t ? t->conn + 1 : 0;
}

/* ---- opening the database ------------------------------------------------- */

/* "file:PATH?mode=ro&immutable=1" with PATH's '%', '?' and '#' escaped. */
static char *db_uri(const char *path)
{
	size_t n = strlen(path);
	char *u = malloc(3 * n + 32), *at = u;

	if (u == NULL)
		return NULL;
	at += sprintf(at, "file:");
	for (const char *p = path; *p; p++)
		at += *p == '%' || *p == '?' || *p == '#' ? sprintf(at, "%%%02X", (unsigned char)*p) : (*at = *p, 1);
	strcpy(at, "?mode=ro&immutable=1");
	return u;
}

/* A connection to the file, read-only, immutable, without SQLite's mutexes (NULL: no memory). */
static int db_connect(const char *uri, sqlite3 **db)
{
	int rc = sqlite3_open_v2(uri, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);

	if (*db != NULL)
		sqlite3_limit(*db, SQLITE_LIMIT_LENGTH, (int)MSG_MAX);
	return rc;
}

/* Open the handle's local file read-only; a remote source is refused. */
static int db_open(bag_t *bag, struct db3_state *st)
{
	struct stat sb;

	if (stat(bag->temp_path ? bag->temp_path : bag->path, &sb) != 0 || !bag_is_file(bag, &sb))
		return bag_fail(bag, BAG_EUNSUPP, UINT64_MAX, "rosbag2 sqlite3 storage (.db3) is read from local files "
		                "only; copy it here, or `ros2 bag convert` makes an MCAP of it");
	if ((st->uri = db_uri(bag->temp_path ? bag->temp_path : bag->path)) == NULL)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	if (db_connect(st->uri, &st->db) != SQLITE_OK)
		return st->db ? db_fail(bag, "opening it") :
		       bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory opening the database");
	return BAG_OK;
}

/* Prepare sql on db, or fail naming what it is for. */
static int prepare_on(bag_t *bag, sqlite3 *db, const char *sql, sqlite3_stmt **s, const char *what)
{
	if (sqlite3_prepare_v2(db, sql, -1, s, NULL) != SQLITE_OK) {
		sqlite3_finalize(*s);
		*s = NULL;
		return db_fail_on(bag, db, what);
	}
	return BAG_OK;
}

static int prepare(bag_t *bag, const char *sql, sqlite3_stmt **s, const char *what)
{
	return prepare_on(bag, st_of(bag)->db, sql, s, what);
}

/* Column i as text ("" when NULL). */
static const char *col_text(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);
	return t ? (const char *)t : "";
}

/* ---- definitions ---------------------------------------------------------- */

/* What a type's definition lookup found. */
struct def {
	char *text;               /* ros2msg text, or NULL: bytes */
	char note[256];           /* why not, when text is NULL */
};

/* The type's ros2msg text from message_definitions, if the table has one (*found). */
static int def_from_table(bag_t *bag, const char *type, struct def *d, bool *found)
{
	sqlite3_stmt *s = NULL;
	int rc, step;

	*found = false;
	if ((rc = prepare(bag, "SELECT encoding, encoded_message_definition FROM message_definitions "
	                  "WHERE topic_type = ?1", &s, "reading message_definitions")) != BAG_OK)
		return rc;
	sqlite3_bind_text(s, 1, type, -1, SQLITE_STATIC);
	while (!*found && (step = sqlite3_step(s)) == SQLITE_ROW) {
		const char *enc = col_text(s, 0), *text = col_text(s, 1);
		if (strcmp(enc, "ros2msg") == 0 && text[0] != '\0') {
			*found = true;
			if ((d->text = strdup(text)) == NULL)
				rc = BAG_ENOMEM;
		} else if (text[0] != '\0') {
			snprintf(d->note, sizeof d->note, "its definition is %.32s, which is not read", enc);
			*found = true;
		}
	}
	if (!*found && step != SQLITE_DONE)
		rc = db_fail(bag, "reading message_definitions");
	sqlite3_finalize(s);
	return rc == BAG_ENOMEM ? bag_fail(bag, rc, UINT64_MAX, "out of memory") : rc;
}

/* The type's text built from .msg files in dirs ("pkg/msg/Name" looked up as pkg/Name). */
static int def_from_files(const char *const *dirs, size_t ndirs, const char *type, struct def *d)
{
	struct bag_error err;
	char name[512], *file = NULL;
	const char *m = strstr(type, "/msg/");
	int rc;

	if (m != NULL)
		snprintf(name, sizeof name, "%.*s/%s", (int)(m - type), type, m + 5);
	else
		snprintf(name, sizeof name, "%s", type);
	rc = bag_msgfile_text(dirs, ndirs, name, &d->text, &file, &err);
	free(file);
	if (rc == BAG_ENOMEM)
		return rc;
	if (rc != BAG_OK)
		snprintf(d->note, sizeof d->note, "no definition in the file, and %.100s in --msg-path or "
		         "AMENT_PREFIX_PATH's share/", err.message);
	return BAG_OK;
}

/* The lookup's directories: --msg-path, PREFIX/share of AMENT_PREFIX_PATH, the environment's. */
struct dirs {
	struct bag_msgpath mp;
	const char **v;
	size_t n;
	char *ament;
};

/* Append "DIR/share" (DIR being dir[0..n)) to d's list, its text at *at. */
static void add_share(struct dirs *d, char **at, const char *dir, size_t n)
{
	d->v[d->n++] = *at;
	*at += sprintf(*at, "%.*s/share", (int)n, dir) + 1;
}

/*
 * Each --msg-path DIR as DIR (DIR/PKG/msg) and DIR/share (a prefix), then
 * PREFIX/share of AMENT_PREFIX_PATH, then the environment's directories.
 */
static int dirs_init(struct dirs *d, const struct bag_open_opts *o)
{
	const char *env = o->msg_path_only ? NULL : getenv("AMENT_PREFIX_PATH");
	size_t len = env ? strlen(env) * 8 + 8 : 8;

	memset(d, 0, sizeof *d);
	if (bag_msgpath_init(&d->mp, o->msg_path, o->msg_path_n, !o->msg_path_only) != BAG_OK)
		return BAG_ENOMEM;
	for (size_t i = 0; i < o->msg_path_n; i++)
		len += strlen(o->msg_path[i]) + 7;
	d->v = malloc((d->mp.n + o->msg_path_n + len / 2 + 2) * sizeof *d->v);
	d->ament = malloc(len);
	if (d->v == NULL || d->ament == NULL)
		return BAG_ENOMEM;
	char *at = d->ament;
	for (size_t i = 0; i < o->msg_path_n; i++) {
		d->v[d->n++] = o->msg_path[i];
		add_share(d, &at, o->msg_path[i], strlen(o->msg_path[i]));
	}
	for (const char *p = env; p && *p;) {
		size_t n = strcspn(p, ":");
		if (n > 0)
			add_share(d, &at, p, n);
		p += n + (p[n] == ':');
	}
	for (size_t i = o->msg_path_n; i < d->mp.n; i++)
		d->v[d->n++] = d->mp.dirs[i];
	return BAG_OK;
}

static void dirs_free(struct dirs *d)
{
	bag_msgpath_free(&d->mp);
	free(d->v);
	free(d->ament);
}

/* ---- connections ---------------------------------------------------------- */

/* One topic row while connections are built. */
struct trow {
	int64_t id;
	char *name, *type, *format;
	struct def def;
};

static void trows_free(struct trow *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(t[i].name);
		free(t[i].type);
		free(t[i].format);
		free(t[i].def.text);
	}
	free(t);
}

/* The topics table's rows, by id. */
static int read_topics(bag_t *bag, struct trow **out, size_t *n)
{
	sqlite3_stmt *s = NULL;
	size_t cap = 0;
	int rc, step;

	*out = NULL;
	*n = 0;
	if ((rc = prepare(bag, "SELECT id, name, type, serialization_format FROM topics ORDER BY id", &s,
	                  "reading the topics table")) != BAG_OK)
		return rc;
	while ((step = sqlite3_step(s)) == SQLITE_ROW && rc == BAG_OK) {
		struct trow *t;
		if (*n == TOPICS_MAX) {
			rc = bag_fail(bag, BAG_ECORRUPT, UINT64_MAX, "rosbag2 sqlite3 storage: more than %d topics", TOPICS_MAX);
			break;
		}
		if (bag_grow((void **)out, &cap, *n + 1, sizeof **out) != BAG_OK) {
			rc = bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
			break;
		}
		t = &(*out)[(*n)++];
		memset(t, 0, sizeof *t);
		t->id = sqlite3_column_int64(s, 0);
		t->name = strdup(col_text(s, 1));
		t->type = strdup(col_text(s, 2));
		t->format = strdup(col_text(s, 3));
		if (t->name == NULL || t->type == NULL || t->format == NULL)
			rc = bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	}
	if (rc == BAG_OK && step != SQLITE_DONE)
		rc = db_fail(bag, "reading the topics table");
	sqlite3_finalize(s);
	return rc;
}

static bool has_table(bag_t *bag, const char *name)
{
	sqlite3_stmt *s = NULL;
	bool yes;

	if (prepare(bag, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", &s, "") != BAG_OK)
		return false;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	yes = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return yes;
}

static int cmp_trow_type(const void *a, const void *b)
{
	const struct trow *const *x = a, *const *y = b;
	int c = strcmp((*x)->type, (*y)->type);
	return c ? c : ((*x)->id > (*y)->id) - ((*x)->id < (*y)->id);
}

/* Resolve one type (the first of its topics): from the table, else from .msg files; warn when neither. */
static int resolve_type(bag_t *bag, bool table, const struct dirs *dirs, struct trow *t)
{
	bool found = false;
	int rc = BAG_OK;

	if (table && (rc = def_from_table(bag, t->type, &t->def, &found)) != BAG_OK)
		return rc;
	if (!found && def_from_files(dirs->v, dirs->n, t->type, &t->def) != BAG_OK)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	if (t->def.text == NULL)
		rc = bag_warn(bag, UINT64_MAX, "type %s: %s; its messages are shown as bytes", t->type, t->def.note);
	return rc;
}

/* Each distinct type's definition once, given to all its topics. */
static int resolve_types(bag_t *bag, const struct bag_open_opts *o, struct trow *t, size_t n)
{
	struct trow **by = malloc((n ? n : 1) * sizeof *by);
	bool table = has_table(bag, "message_definitions");
	struct dirs dirs;
	int rc = BAG_OK;

	if (by == NULL || dirs_init(&dirs, o) != BAG_OK) {
		free(by);
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		by[i] = &t[i];
	bag_sort(by, n, sizeof *by, cmp_trow_type);
	for (size_t i = 0; i < n && rc == BAG_OK; i++) {
		if (i == 0 || strcmp(by[i]->type, by[i - 1]->type) != 0) {
			rc = resolve_type(bag, table, &dirs, by[i]);
			continue;
		}
		struct trow *first = by[i - 1];
		by[i]->def.note[0] = '\0';
		if (first->def.text != NULL && (by[i]->def.text = strdup(first->def.text)) == NULL)
			rc = bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	}
	dirs_free(&dirs);
	free(by);
	return rc;
}

/* Topic t as connection index conn: topic, type, message_definition (when known), md5sum "*". */
static int add_conn(bag_t *bag, const struct trow *t, uint32_t conn)
{
	bool cdr = strcmp(t->format, "cdr") == 0;
	struct bag_kv kv[4];
	size_t n = 0;

	kv[n++] = (struct bag_kv){ "topic", t->name, strlen(t->name) };
	kv[n++] = (struct bag_kv){ "type", t->type, strlen(t->type) };
	if (cdr && t->def.text != NULL)
		kv[n++] = (struct bag_kv){ "message_definition", t->def.text, strlen(t->def.text) };
	kv[n++] = (struct bag_kv){ "md5sum", "*", 1 };
	if (bag_conn_build(&bag->conns[conn], conn, t->name, kv, n) != BAG_OK)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	bag->conns[conn].index = conn;
	bag->conns[conn].encoding = BAG_ENCODING_CDR;
	bag->nconns = conn + 1;
	if (!cdr)
		return bag_warn(bag, UINT64_MAX, "topic %s: %.32s serialization is not read; its messages are shown "
		                "as bytes", t->name, t->format);
	return BAG_OK;
}

/* Connections (topic id order) and st->topics. */
static int build_conns(bag_t *bag, const struct bag_open_opts *o)
{
	struct db3_state *st = st_of(bag);
	struct trow *t;
	size_t n;
	int rc;

	if ((rc = read_topics(bag, &t, &n)) != BAG_OK || (rc = resolve_types(bag, o, t, n)) != BAG_OK)
		goto done;
	bag->conns = calloc(n ? n : 1, sizeof *bag->conns);
	st->topics = malloc((n ? n : 1) * sizeof *st->topics);
	if (bag->conns == NULL || st->topics == NULL) {
		rc = bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < n && rc == BAG_OK; i++) {
		st->topics[i] = (struct topic){ t[i].id, (uint32_t)i };
		rc = add_conn(bag, &t[i], (uint32_t)i);
	}
	st->ntopics = n;
	bag_sort(st->topics, n, sizeof *st->topics, cmp_topic);
	for (size_t i = 1; i < n && rc == BAG_OK; i++)
		if (st->topics[i].id == st->topics[i - 1].id)
			rc = bag_fail(bag, BAG_ECORRUPT, UINT64_MAX, "rosbag2 sqlite3 storage: two topics have id %lld",
			              (long long)st->topics[i].id);
done:
	trows_free(t, n);
	return rc;
}

/* Whether a row is one the reader keeps: data, a ROS time. */
static bool row_usable(int data_type, int64_t t)
{
	return data_type != SQLITE_NULL && t >= 0 && t <= TIME_MAX;
}

/* ---- spans ---------------------------------------------------------------- */

/* One row's integer from a statement binding up to two integers (*has: not NULL); false on SQLite's failure. */
static bool query_i64(bag_t *bag, const char *sql, int nargs, int64_t a1, int64_t a2, int64_t *out, bool *has)
{
	sqlite3_stmt *s = NULL;
	int step;

	if (prepare(bag, sql, &s, "reading the messages table") != BAG_OK)
		return false;
	if (nargs > 0)
		sqlite3_bind_int64(s, 1, a1);
	if (nargs > 1)
		sqlite3_bind_int64(s, 2, a2);
	step = sqlite3_step(s);
	*has = step == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL;
	*out = *has ? sqlite3_column_int64(s, 0) : 0;
	sqlite3_finalize(s);
	if (step != SQLITE_ROW && step != SQLITE_DONE) {
		db_fail(bag, "reading the messages table");
		return false;
	}
	return true;
}

/* n * part / whole, rounded down, without overflow (whole > 0). */
static uint64_t share(uint64_t n, uint64_t part, uint64_t whole)
{
	return (uint64_t)((unsigned __int128)n * part / whole);
}

static uint32_t count32(uint64_t n)
{
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* The table's extent: ids (rowid seeks) and times a ROS time holds (timestamp_idx seeks). */
struct extent {
	int64_t first_id, last_id;
	int64_t t_lo, t_hi;
	uint64_t total;           /* rows (metadata.yaml's count, or count(*) over timestamp_idx) */
	uint64_t *per;            /* [nconns] messages by connection */
};

/* first/last id and time, or *empty. */
static int extent_bounds(bag_t *bag, struct extent *e, bool *empty)
{
	bool h1, h2, h3, h4;

	if (!query_i64(bag, "SELECT id FROM messages ORDER BY id LIMIT 1", 0, 0, 0, &e->first_id, &h1) ||
	    !query_i64(bag, "SELECT id FROM messages ORDER BY id DESC LIMIT 1", 0, 0, 0, &e->last_id, &h2) ||
	    !query_i64(bag, "SELECT min(timestamp) FROM messages WHERE timestamp >= 0", 0, 0, 0, &e->t_lo, &h3) ||
	    !query_i64(bag, "SELECT max(timestamp) FROM messages WHERE timestamp <= ?1", 1, TIME_MAX, 0, &e->t_hi, &h4))
		return bag->err.code;
	*empty = !(h1 && h2 && h3 && h4) || e->last_id < e->first_id;
	return BAG_OK;
}

/*
 * Messages by connection from one pass over the table's topic_id column on
 * db: the one full-table read, for counts a caller asks for
 * (bag_count_messages()), a metadata.yaml the table contradicts, and check.
 * Rows without data, a ROS time or a known topic are not counted; when
 * warn, a warning says so; at open (e given) the pass shows progress by ids.
 */
static int count_topics(bag_t *bag, sqlite3 *db, const struct extent *e, bool warn, uint64_t *per)
{
	sqlite3_stmt *s = NULL;
	uint64_t last = 0, n = 0, skipped = 0, orphans = 0;
	int rc, step;

	memset(per, 0, bag->nconns * sizeof *per);
	if ((rc = prepare_on(bag, db, "SELECT topic_id, id, timestamp, data IS NULL FROM messages", &s,
	                     "counting the messages table")) != BAG_OK)
		return rc;
	while (rc == BAG_OK && (step = sqlite3_step(s)) == SQLITE_ROW) {
		uint32_t conn = topic_conn(st_of(bag), sqlite3_column_int64(s, 0));
		int64_t t = sqlite3_column_int64(s, 2);
		if (!row_usable(sqlite3_column_int(s, 3) ? SQLITE_NULL : SQLITE_BLOB, t))
			skipped++;
		else if (conn == 0)
			orphans++;
		else
			per[conn - 1]++;
		if (++n % 65536 == 0 && e != NULL && e->last_id > e->first_id)
			rc = old_progress(bag, share(bag->file_size, (uint64_t)(sqlite3_column_int64(s, 1) - e->first_id),
			                             (uint64_t)(e->last_id - e->first_id)), &last);
	}
	if (rc == BAG_OK && step != SQLITE_DONE)
		rc = db_fail_on(bag, db, "counting the messages table");
	sqlite3_finalize(s);
	if (rc == BAG_OK && warn && skipped > 0)
		rc = bag_warn(bag, UINT64_MAX, "%llu message%s with no data or a time before 1970 or after 2106 left out",
		              (unsigned long long)skipped, BAG_S(skipped));
	if (rc == BAG_OK && warn && orphans > 0)
		rc = bag_warn(bag, UINT64_MAX, "%llu message%s on topic ids the topics table does not define left out",
		              (unsigned long long)orphans, BAG_S(orphans));
	return rc;
}

/* Per-connection counts from metadata.yaml when it counts this file's topics and agrees with its total. */
static bool counts_from_meta(const bag_t *bag, const struct r2_meta *m, uint64_t total, uint64_t *per)
{
	uint64_t sum = 0;

	if (!m->whole)
		return false;
	for (size_t c = 0; c < bag->nconns; c++) {
		per[c] = 0;
		for (size_t k = 0; k < m->ntopics; k++)
			if (m->topics[k].name != NULL && strcmp(m->topics[k].name, bag->conns[c].topic) == 0)
				per[c] = m->topics[k].count;
		sum += per[c];
	}
	return sum == total;
}

/* The warning that metadata.yaml's count of the file is not the database's. */
static int warn_count(bag_t *bag, const struct r2_meta *m, uint64_t total)
{
	if (!m->has_count || m->count == total)
		return BAG_OK;
	return bag_warn(bag, UINT64_MAX, "metadata.yaml counts %llu message%s in this file, its database holds %llu: "
	                "the database is read", (unsigned long long)m->count, BAG_S(m->count), (unsigned long long)total);
}

/*
 * Counts before any row is read: the file's from metadata.yaml's files
 * entry or the table's id range (at most a row each ROW_MIN bytes), shared
 * evenly among the connections, at least one each (a reader that skips a
 * connection of no messages would miss one that has some).
 */
static void estimate_counts(bag_t *bag, const struct r2_meta *m, struct extent *e)
{
	uint64_t ids = (uint64_t)(e->last_id - e->first_id) + 1, most = bag->file_size / ROW_MIN + 1;

	e->total = bag->nconns == 0 ? 0 : m->has_count && m->count > 0 ? m->count : ids < most ? ids : most;
	for (size_t c = 0; c < bag->nconns; c++) {
		e->per[c] = e->total / bag->nconns + (c < e->total % bag->nconns);
		e->per[c] += e->per[c] == 0;
	}
	bag->counts_estimated = bag->nconns > 0;
}

/*
 * The file's message count and counts by connection: metadata.yaml's when
 * it counts this file's topics and its count agrees with the table's ids
 * and the file's size (no read) or with count(*) over timestamp_idx; one
 * pass when it counts them and disagrees (one warning; the database wins);
 * estimates when it does not count them.
 */
static int extent_counts(bag_t *bag, const struct r2_meta *m, struct extent *e)
{
	struct db3_state *st = st_of(bag);
	int64_t n;
	bool has;
	int rc;

	if (!m->whole) {
		estimate_counts(bag, m, e);
		return BAG_OK;
	}
	e->total = m->count;
	if (m->count != (uint64_t)(e->last_id - e->first_id) + 1 || m->count > bag->file_size / ROW_MIN) {
		if (!query_i64(bag, "SELECT count(*) FROM messages", 0, 0, 0, &n, &has))
			return bag->err.code;
		e->total = (uint64_t)n;
	}
	st->meta_counts = counts_from_meta(bag, m, e->total, e->per);
	if (!st->meta_counts) {
		if ((rc = count_topics(bag, st->db, e, true, e->per)) != BAG_OK)
			return rc;
		e->total = 0;
		for (size_t c = 0; c < bag->nconns; c++)
			e->total += e->per[c];
	}
	return warn_count(bag, m, e->total);
}

static int cmp_cut(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/*
 * Span starts: the times of the rows at ids evenly spread over the table
 * (rowid seeks), k spans wanted; cuts[2j] a time, cuts[2j + 1] its id, in
 * time order, times distinct, the first t_lo. *n is how many.
 */
static int span_cuts(bag_t *bag, const struct extent *e, uint64_t k, int64_t *cuts, size_t *n)
{
	uint64_t ids = (uint64_t)(e->last_id - e->first_id) + 1;
	size_t m = 1, out = 1;
	int64_t t;
	bool has;

	cuts[0] = e->t_lo;
	cuts[1] = e->first_id;
	for (uint64_t j = 1; j < k; j++) {
		int64_t id = e->first_id + (int64_t)share(ids, j, k);
		if (!query_i64(bag, "SELECT timestamp FROM messages WHERE id >= ?1 ORDER BY id LIMIT 1", 1, id, 0, &t, &has))
			return bag->err.code;
		if (has && t > e->t_lo && t <= e->t_hi) {
			cuts[2 * m] = t;
			cuts[2 * m++ + 1] = id;
		}
	}
	bag_sort(cuts + 2, m - 1, 2 * sizeof *cuts, cmp_cut);
	for (size_t j = 1; j < m; j++)
		if (cuts[2 * j] != cuts[2 * (out - 1)]) {
			cuts[2 * out] = cuts[2 * j];
			cuts[2 * out++ + 1] = cuts[2 * j + 1];
		}
	*n = out;
	return BAG_OK;
}

/*
 * Span j (times [cuts[2j], next)) as a chunk: its end by a timestamp_idx
 * seek, its counts an estimate: the share of the file its ids span (when
 * ids rise with time), each connection's count in proportion.
 */
static int span_add(bag_t *bag, const struct extent *e, const int64_t *cuts, size_t n, size_t j, bool by_id,
                    struct chunk_conn *cc, size_t *caps)
{
	uint64_t ids = (uint64_t)(e->last_id - e->first_id) + 1, from, to, nc = 0;
	int64_t next = j + 1 < n ? cuts[2 * j + 2] : e->t_hi + 1, end;
	bool has;
	int rc;

	if (!query_i64(bag, "SELECT max(timestamp) FROM messages WHERE timestamp >= ?1 AND timestamp < ?2", 2,
	               cuts[2 * j], next, &end, &has))
		return bag->err.code;
	from = by_id ? share(e->total, (uint64_t)(cuts[2 * j + 1] - e->first_id), ids) : share(e->total, j, n);
	to = j + 1 == n ? e->total : by_id ? share(e->total, (uint64_t)(cuts[2 * j + 3] - e->first_id), ids) :
	     share(e->total, j + 1, n);
	for (size_t c = 0; c < bag->nconns; c++)
		if (e->per[c] > 0)
			cc[nc++] = (struct chunk_conn){ (uint32_t)c, count32(share(e->per[c], to, e->total) -
			                                                     share(e->per[c], from, e->total)) };
	if ((rc = old_chunk_add(bag, &caps[0], &caps[1], j, j + 1, cuts[2 * j], has ? end : cuts[2 * j], cc, nc)) != BAG_OK)
		return rc;
	struct chunk *ch = &bag->chunks[bag->nchunks - 1];
	ch->estimated = true;
	ch->span_size = share(bag->file_size, to - from, e->total);
	ch->data_len = ch->span_size > UINT32_MAX ? UINT32_MAX : (uint32_t)ch->span_size;
	ch->compression = st_of(bag)->zstd ? BAG_COMPRESSION_ZSTD : BAG_COMPRESSION_NONE;
	return BAG_OK;
}

/* Cut the spans: about SPAN_BYTES of the file or SPAN_ROWS rows each. */
static int cut_spans(bag_t *bag, const struct extent *e)
{
	uint64_t per_row = bag->file_size / e->total + 1, rows = SPAN_BYTES / per_row;
	uint64_t k = e->total / (rows < 1 ? 1 : rows > SPAN_ROWS ? SPAN_ROWS : rows) + 1;
	int64_t *cuts = malloc(2 * (size_t)k * sizeof *cuts);
	struct chunk_conn *cc = malloc((bag->nconns + 1) * sizeof *cc);
	size_t n = 0, caps[2] = { 0, 0 };
	bool by_id = true;
	int rc;

	if (cuts == NULL || cc == NULL) {
		rc = bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
		goto done;
	}
	if ((rc = span_cuts(bag, e, k, cuts, &n)) != BAG_OK)
		goto done;
	for (size_t j = 1; j < n; j++)
		by_id &= cuts[2 * j + 1] > cuts[2 * j - 1];
	for (size_t j = 0; j < n && rc == BAG_OK; j++)
		rc = span_add(bag, e, cuts, n, j, by_id, cc, caps);
	bag->start_ns = e->t_lo;
	bag->end_ns = e->t_hi;
done:
	free(cuts);
	free(cc);
	return rc;
}

/* The spans from the table's indexes, the counts from metadata.yaml or one pass. */
static int build_spans(bag_t *bag, const struct r2_meta *m)
{
	struct extent e = { 0 };
	bool empty = true;
	int rc;

	if ((rc = extent_bounds(bag, &e, &empty)) != BAG_OK || empty)
		return rc;
	if ((e.per = calloc(bag->nconns + 1, sizeof *e.per)) == NULL)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	if ((rc = extent_counts(bag, m, &e)) == BAG_OK && e.total > 0)
		rc = cut_spans(bag, &e);
	free(e.per);
	return rc;
}

static int db3_open(bag_t *bag, const struct bag_open_opts *o)
{
	struct db3_state *st = calloc(1, sizeof *st);
	struct r2_meta meta;
	int rc;

	if (st == NULL || pthread_mutex_init(&st->lock, NULL) != 0) {
		free(st);
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	}
	bag->fmt_state = st;
	snprintf(bag->format_name, sizeof bag->format_name, "rosbag2 sqlite3");
	if ((rc = db_open(bag, st)) != BAG_OK || (rc = build_conns(bag, o)) != BAG_OK)
		return rc;
	if (r2_meta_read(bag->path, &meta) != BAG_OK) {
		r2_meta_free(&meta);
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	}
	st->zstd = meta.found && strcmp(meta.mode, "MESSAGE") == 0;
	st->zstd_magic = !meta.found;
	rc = build_spans(bag, &meta);
	r2_meta_free(&meta);
	return rc;
}

/* ---- reading a span ------------------------------------------------------- */

/* A span's translation being written. */
struct span_out {
	uint8_t *buf;
	size_t len, cap;
};

/* Room for n more bytes (a span's translation stays under 4 GiB). */
static int out_room(bag_t *bag, struct span_out *o, uint64_t n, int64_t t)
{
	if (n > UINT32_MAX - 1 - o->len)
		return bag_fail(bag, BAG_EUNSUPP, UINT64_MAX, "rosbag2 sqlite3 storage: the messages from time %lld ns on "
		                "hold more than 4 GiB", (long long)t);
	if (bag_grow((void **)&o->buf, &o->cap, o->len + (size_t)n + 1, 1) != BAG_OK)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	return BAG_OK;
}

/*
 * A message's zstd frame (compression_mode MESSAGE) decompressed into *z:
 * no more than the size its frame header declares, nor than MSG_MAX. A
 * frame that is cut, corrupt or larger fails naming the row.
 */
static int unframe(bag_t *bag, sqlite3_stmt *s, uint32_t conn, int64_t t, const uint8_t *data, size_t len,
                   struct bag_inflated *z)
{
	uint64_t max = MSG_MAX;
	const char *why = NULL;
	int rc;

#ifdef HAVE_ZSTD
	unsigned long long declared = ZSTD_getFrameContentSize(data, len);
	if (declared == ZSTD_CONTENTSIZE_ERROR)
		why = "not a zstd frame";
	else if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared > MSG_MAX)
		why = "its zstd frame declares more than 1 GiB";
	else if (declared != ZSTD_CONTENTSIZE_UNKNOWN)
		max = declared;
#endif
	if (why == NULL) {
		rc = bag_codec_inflate(&bag->codec, BAG_COMPRESSION_ZSTD, data, len, max < 65536 ? (size_t)max + 1 : 65536,
		                       (size_t)max + 1, true, z);
		if (rc == BAG_EUNSUPP)
			return bag_fail(bag, rc, UINT64_MAX, "rosbag2 sqlite3 storage: zstd messages (compression_mode "
			                "MESSAGE) are not supported by this build");
		if (rc != BAG_OK)
			return bag_fail(bag, rc, UINT64_MAX, "out of memory");
		why = z->full || z->len > max ? "its zstd frame inflates past its declared size" : !z->ended ? z->err.message :
		      z->used != len ? "bytes after its zstd frame" : NULL;
	}
	if (why == NULL)
		return BAG_OK;
	free(z->buf);
	z->buf = NULL;
	return bag_fail(bag, BAG_ECOMPRESS, UINT64_MAX, "rosbag2 sqlite3 storage: message id %lld on %s at %lld ns: "
	                "its data (%zu bytes): %s", (long long)sqlite3_column_int64(s, 3), bag->conns[conn].topic,
	                (long long)t, len, why);
}

/* Whether the data is one zstd frame to decompress (MESSAGE mode, or its magic without metadata.yaml). */
static bool is_frame(const struct db3_state *st, const uint8_t *data, int64_t len)
{
	return st->zstd || (st->zstd_magic && len >= 4 && memcmp(data, ZSTD_MAGIC, 4) == 0);
}

/* Row (conn, t) as a 2.0 record at the end of o; its data decompressed when it is a frame. */
static int put_row(bag_t *bag, struct span_out *o, sqlite3_stmt *s, uint32_t conn, int64_t t)
{
	const uint8_t *data = sqlite3_column_blob(s, 2);
	int64_t len = sqlite3_column_bytes(s, 2);
	struct bag_inflated z = { 0 };
	uint8_t *at;
	int rc;

	if (data == NULL && len > 0)
		return db_fail_on(bag, sqlite3_db_handle(s), "reading a message");
	if (is_frame(st_of(bag), data, len)) {
		if ((rc = unframe(bag, s, conn, t, data, (size_t)len, &z)) != BAG_OK)
			return rc;
		data = z.buf;
		len = (int64_t)z.len;
	}
	if ((rc = out_room(bag, o, REC_BYTES + (uint64_t)len, t)) == BAG_OK) {
		at = o->buf + o->len;
		old_put_msg(&at, conn, t, data, (uint32_t)len);
		o->len = (size_t)(at - o->buf);
	}
	free(z.buf);
	return rc;
}

/* Translate the rows of s into o as 2.0 message records, rows the reader cannot use left out. */
static int span_rows(bag_t *bag, sqlite3_stmt *s, struct span_out *o)
{
	int step, rc = BAG_OK;

	while (rc == BAG_OK && (step = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(s, 1);
		uint32_t conn = topic_conn(st_of(bag), sqlite3_column_int64(s, 0));
		if (row_usable(sqlite3_column_type(s, 2), t) && conn > 0)
			rc = put_row(bag, o, s, conn - 1, t);
	}
	if (rc == BAG_OK && step != SQLITE_DONE)
		rc = db_fail_on(bag, sqlite3_db_handle(s), "reading the messages table");
	return rc;
}
/* An idle connection of the pool, or a new one (*db NULL: no memory). */
static int pool_take(bag_t *bag, sqlite3 **db)
{
	struct db3_state *st = st_of(bag);

	pthread_mutex_lock(&st->lock);
	*db = st->npool > 0 ? st->pool[--st->npool] : NULL;
	pthread_mutex_unlock(&st->lock);
	if (*db != NULL)
		return BAG_OK;
	if (db_connect(st->uri, db) == SQLITE_OK)
		return BAG_OK;
	int rc = *db ? db_fail_on(bag, *db, "opening it again") : bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	sqlite3_close(*db);
	*db = NULL;
	return rc;
}

static void pool_give(struct db3_state *st, sqlite3 *db)
{
	pthread_mutex_lock(&st->lock);
	if (st->npool < POOL_MAX)
		st->pool[st->npool++] = db, db = NULL;
	pthread_mutex_unlock(&st->lock);
	sqlite3_close(db);
}

/* Span i's rows, timestamp_idx's range [start, end] in (time, id) order, as 2.0 message records. */
static int db3_read_span(bag_t *bag, size_t i, uint8_t **out)
{
	struct db3_state *st = st_of(bag);
	struct chunk *ch = &bag->chunks[i];
	struct span_out o = { 0 };
	sqlite3_stmt *s = NULL;
	sqlite3 *db;
	int rc;

	*out = NULL;
	if ((rc = pool_take(bag, &db)) != BAG_OK)
		return rc;
	if ((rc = prepare_on(bag, db, "SELECT topic_id, timestamp, data, id FROM messages WHERE timestamp BETWEEN ?1 AND ?2 "
	                     "ORDER BY timestamp, id", &s, "reading the messages table")) == BAG_OK) {
		sqlite3_bind_int64(s, 1, ch->start_ns);
		sqlite3_bind_int64(s, 2, ch->end_ns);
		rc = span_rows(bag, s, &o);
	}
	sqlite3_finalize(s);
	pool_give(st, db);
	if (rc == BAG_OK && o.buf == NULL && (o.buf = malloc(1)) == NULL)
		rc = bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	if (rc != BAG_OK) {
		free(o.buf);
		return rc;
	}
	ch->size = (uint32_t)o.len;
	*out = o.buf;
	return BAG_OK;
}

/* ---- check ---------------------------------------------------------------- */

/* One row of quick_check's result: each of its lines a finding, but "ok" and the database's name. */
static int quick_check_row(const char *row, int (*found)(void *ctx, uint64_t off, int code, const char *text),
                           void *ctx)
{
	char text[512];
	int rc = BAG_OK;

	for (const char *l = row; *l && rc == BAG_OK;) {
		size_t n = strcspn(l, "\n");
		if (!(n == 2 && memcmp(l, "ok", 2) == 0) && strncmp(l, "*** in database", 15) != 0 && n > 0) {
			snprintf(text, sizeof text, "SQLite's quick_check: %.*s", (int)(n < 400 ? n : 400), l);
			rc = found(ctx, UINT64_MAX, BAG_ECORRUPT, text);
		}
		l += n + (l[n] == '\n');
	}
	return rc;
}

/* check: each topic's count as metadata.yaml gives it against the database's (one pass). */
static int verify_counts(bag_t *bag, sqlite3 *db, int (*found)(void *ctx, uint64_t off, int code, const char *text),
                         void *ctx)
{
	uint64_t *per = calloc(bag->nconns + 1, sizeof *per);
	char text[512];
	int rc;

	if (per == NULL)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	rc = count_topics(bag, db, NULL, false, per);
	for (size_t c = 0; c < bag->nconns && rc == BAG_OK; c++)
		if (per[c] != bag->conns[c].message_count) {
			snprintf(text, sizeof text, "metadata.yaml counts %llu message%s on topic %.200s, the database holds %llu",
			         (unsigned long long)bag->conns[c].message_count, BAG_S(bag->conns[c].message_count),
			         bag->conns[c].topic, (unsigned long long)per[c]);
			rc = found(ctx, UINT64_MAX, BAG_ECORRUPT, text);
		}
	free(per);
	return rc;
}

/*
 * check: SQLite's own walk of the file's B-trees (PRAGMA quick_check: pages,
 * cells, free list; at most 100 faults, one line each), metadata.yaml's
 * topic counts against the table's, and the rows of the messages table as
 * the records walked.
 */
static int db3_verify(bag_t *bag, int (*found)(void *ctx, uint64_t off, int code, const char *text), void *ctx,
                      uint64_t *records)
{
	sqlite3_stmt *s = NULL;
	sqlite3 *db;
	char text[512];
	int rc, step;

	if ((rc = pool_take(bag, &db)) != BAG_OK)
		return rc;
	if ((rc = prepare_on(bag, db, "PRAGMA quick_check(100)", &s, "checking the database")) == BAG_OK) {
		while (rc == BAG_OK && (step = sqlite3_step(s)) == SQLITE_ROW)
			rc = quick_check_row(col_text(s, 0), found, ctx);
		if (rc == BAG_OK && step != SQLITE_DONE) {
			snprintf(text, sizeof text, "SQLite's quick_check stopped: %s", sqlite3_errmsg(db));
			rc = found(ctx, UINT64_MAX, BAG_ECORRUPT, text);
		}
	}
	sqlite3_finalize(s);
	s = NULL;
	if (rc == BAG_OK && st_of(bag)->meta_counts)
		rc = verify_counts(bag, db, found, ctx);
	if (rc == BAG_OK && prepare_on(bag, db, "SELECT count(*) FROM messages NOT INDEXED", &s, "") == BAG_OK &&
	    sqlite3_step(s) == SQLITE_ROW)
		*records = (uint64_t)sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	pool_give(st_of(bag), db);
	return rc;
}

/* The count op (bag_count_messages()): one pass on a connection of the pool. */
static int db3_count(bag_t *bag, uint64_t *per, bool warn)
{
	sqlite3 *db;
	int rc;

	if ((rc = pool_take(bag, &db)) != BAG_OK)
		return rc;
	rc = count_topics(bag, db, NULL, warn, per);
	pool_give(st_of(bag), db);
	return rc;
}

static void db3_describe(const bag_t *bag, struct bag_file_info *out)
{
	(void)bag;
	*out = (struct bag_file_info){ "rosbag2", "ros2", "sqlite3", NULL, 0 };
}

const struct bag_reader bag_reader_db3 = {
	.name = "db3",
	.detect = db3_detect,
	.open = db3_open,
	.read_span = db3_read_span,
	.free = db3_free,
	.verify = db3_verify,
	.count = db3_count,
	.describe = db3_describe,
};
