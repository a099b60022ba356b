/*
 * rosbag2.c - a rosbag2 directory as the storage files it names: DIR or
 * DIR/metadata.yaml. metadata.yaml's relative_file_paths list (the split
 * files, in order) is read with a line scanner, not a YAML parser: rosbag2
 * writes it as a block sequence of plain or quoted scalars under that key.
 * Without metadata.yaml, the directory's .mcap and .db3 files (and their
 * .zstd forms) sorted by name are taken. The files are then opened as any
 * other (a timeline over them is one recording).
 *
 * r2_meta_read (rosbag2-int.h) reads the rest of metadata.yaml that a
 * storage file's reader uses, with the same kind of line scanner: each line
 * is an indent, an optional "- " (a list item), and "key: value" or a bare
 * scalar. A top-level key (indent 2 at most) opens a section; inside
 * topics_with_message_count each item is a topic (its name, then its
 * message_count), inside files each item is a file (path, starting_time,
 * duration, message_count). Anything else is skipped.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <bagscope/bag.h>
#include "lib/formats/bag-int.h"
#include "lib/formats/reader-int.h"
#include "lib/formats/rosbag2-int.h"
#include "lib/common/util-int.h"

#define META "metadata.yaml"
#define META_MAX ((size_t)1 << 20)

struct names {
	char **v;
	size_t n, cap;
};

static int names_add(struct names *s, const char *dir, const char *name, size_t len)
{
	char *p;

	if (bag_grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v) != BAG_OK ||
	    asprintf(&p, "%s/%.*s", dir, (int)len, name) < 0)
		return BAG_ENOMEM;
	s->v[s->n++] = p;
	return BAG_OK;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The relative_file_paths entries of metadata.yaml's text. */
static int from_metadata(const char *dir, char *text, struct names *s)
{
	bool in = false;
	int rc = BAG_OK;

	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line && rc == BAG_OK; line = strtok_r(NULL, "\n", &save)) {
		char *p = line + strspn(line, " ");
		size_t len;
		if (strncmp(p, "relative_file_paths:", 20) == 0) {
			in = true;
			continue;
		}
		if (!in)
			continue;
		if (p[0] != '-' || p[1] != ' ')
			break;
		p += 2 + strspn(p + 2, " ");
		len = strcspn(p, "\r");
		while (len > 0 && p[len - 1] == ' ')
			len--;
		if (len >= 2 && (p[0] == '"' || p[0] == '\'') && p[len - 1] == p[0])
			p++, len -= 2;
		if (len > 0 && memchr(p, '/', len) == NULL)
			rc = names_add(s, dir, p, len);
	}
	return rc;
}

/* The directory's .mcap and .db3 files (.zstd or not), by name. */
static int from_listing(const char *dir, struct names *s)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = BAG_OK;

	if (d == NULL)
		return BAG_EIO;
	while (rc == BAG_OK && (e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name), n = len > 5 && strcmp(e->d_name + len - 5, ".zstd") == 0 ? len - 5 : len;
		if ((n > 5 && strncmp(e->d_name + n - 5, ".mcap", 5) == 0) || (n > 4 && strncmp(e->d_name + n - 4, ".db3", 4) == 0))
			rc = names_add(s, dir, e->d_name, len);
	}
	closedir(d);
	bag_sort(s->v, s->n, sizeof *s->v, cmp_str);
	return rc;
}

/* ---- metadata.yaml for a storage file's reader ---------------------------- */

/* One line of metadata.yaml, split. */
struct yline {
	size_t indent;            /* spaces before the key (or before "- ") */
	bool item;                /* it starts a list item */
	char *key;                /* "" for a bare scalar */
	char *value;              /* unquoted, "" when the key opens a mapping */
};

/* Trim trailing blanks and one pair of quotes, in place. */
static char *unquote(char *v)
{
	size_t n = strlen(v);

	while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\r'))
		v[--n] = '\0';
	if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
		v[n - 1] = '\0';
		v++;
	}
	return v;
}

static void yline_split(char *line, struct yline *y)
{
	char *p = line + strspn(line, " "), *colon;

	y->indent = (size_t)(p - line);
	y->item = p[0] == '-' && (p[1] == ' ' || p[1] == '\0');
	if (y->item)
		p += 1 + strspn(p + 1, " ");
	colon = strstr(p, ": ");
	if (colon == NULL && p[0] != '\0' && p[strlen(p) - 1] == ':')
		colon = p + strlen(p) - 1;
	if (colon == NULL || p[0] == '"' || p[0] == '\'') {
		y->key = "";
		y->value = unquote(p);
		return;
	}
	*colon = '\0';
	y->key = p;
	y->value = unquote(colon[1] ? colon + 1 + strspn(colon + 1, " ") : colon + 1);
}

/* The scanner's place in metadata.yaml. */
struct yscan {
	struct r2_meta *m;
	const char *base;         /* the storage file's name */
	char sect[32];            /* the top-level key being read */
	bool in_file;             /* the files: item being read is ours */
	size_t item_indent;       /* the indent of the section's list items (0: none yet) */
	size_t cap;               /* allocated m->topics */
	size_t nrel;              /* relative_file_paths entries */
	struct r2_meta whole;     /* the recording's count, start, duration */
};

static int64_t num(const char *v)
{
	return strtoll(v, NULL, 10);
}

/* One line inside topics_with_message_count. */
static int scan_topic(struct yscan *s, const struct yline *y, bool item)
{
	struct r2_meta *m = s->m;

	if (item) {
		if (bag_grow((void **)&m->topics, &s->cap, m->ntopics + 1, sizeof *m->topics) != BAG_OK)
			return BAG_ENOMEM;
		m->topics[m->ntopics++] = (struct r2_topic){ NULL, 0 };
	}
	if (m->ntopics == 0)
		return BAG_OK;
	struct r2_topic *t = &m->topics[m->ntopics - 1];
	if (strcmp(y->key, "name") == 0 && t->name == NULL && (t->name = strdup(y->value)) == NULL)
		return BAG_ENOMEM;
	if (strcmp(y->key, "message_count") == 0)
		t->count = (uint64_t)num(y->value);
	return BAG_OK;
}

/* Whether y starts an item of the section's own list (not of a list nested in one). */
static bool own_item(struct yscan *s, const struct yline *y)
{
	if (!y->item)
		return false;
	if (s->item_indent == 0)
		s->item_indent = y->indent;
	return y->indent == s->item_indent;
}

/* One line of a section: the recording's or our file's facts. */
static int scan_line(struct yscan *s, const struct yline *y)
{
	struct r2_meta *m = s->m, *to;

	if (strcmp(s->sect, "topics_with_message_count") == 0)
		return scan_topic(s, y, own_item(s, y));
	if (strcmp(s->sect, "relative_file_paths") == 0 && own_item(s, y)) {
		s->nrel++;
		m->found |= y->key[0] == '\0' && strcmp(y->value, s->base) == 0;
		return BAG_OK;
	}
	if (strcmp(s->sect, "files") == 0) {
		if (own_item(s, y))
			s->in_file = strcmp(y->key, "path") == 0 && strcmp(y->value, s->base) == 0;
		if (!s->in_file)
			return BAG_OK;
		m->found = m->has_count = true;
	}
	to = s->in_file ? m : &s->whole;
	if (strcmp(y->key, "nanoseconds_since_epoch") == 0)
		to->start_ns = num(y->value);
	else if (strcmp(y->key, "nanoseconds") == 0)
		to->duration_ns = num(y->value);
	else if (strcmp(y->key, "message_count") == 0)
		to->count = (uint64_t)num(y->value);
	return BAG_OK;
}

/* metadata.yaml's text scanned for the storage file named base. */
static int scan_meta(char *text, const char *base, struct r2_meta *m)
{
	struct yscan s = { .m = m, .base = base };
	int rc = BAG_OK;

	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line && rc == BAG_OK; line = strtok_r(NULL, "\n", &save)) {
		struct yline y;
		yline_split(line, &y);
		if (y.indent <= 2 && !y.item && y.key[0] != '\0') {
			snprintf(s.sect, sizeof s.sect, "%s", y.key);
			s.in_file = false;
			s.item_indent = 0;
			if (strcmp(y.key, "compression_mode") == 0)
				snprintf(m->mode, sizeof m->mode, "%s", y.value);
			else if (strcmp(y.key, "compression_format") == 0)
				snprintf(m->format, sizeof m->format, "%s", y.value);
			else if (strcmp(y.key, "message_count") == 0)
				s.whole.count = (uint64_t)num(y.value);
			continue;
		}
		rc = scan_line(&s, &y);
	}
	m->whole = m->found && s.nrel == 1;
	if (m->whole && !m->has_count) {
		m->has_count = true;
		m->count = s.whole.count;
		m->start_ns = s.whole.start_ns;
		m->duration_ns = s.whole.duration_ns;
	}
	return rc;
}

int r2_meta_read(const char *path, struct r2_meta *m)
{
	const char *slash = strrchr(path, '/');
	char *meta = NULL, *text = NULL;
	FILE *f;
	int rc = BAG_OK;

	memset(m, 0, sizeof *m);
	if (asprintf(&meta, "%.*s%s", slash ? (int)(slash - path + 1) : 0, path, META) < 0)
		return BAG_ENOMEM;
	if ((f = fopen(meta, "rb")) != NULL) {
		if ((text = malloc(META_MAX + 1)) == NULL) {
			rc = BAG_ENOMEM;
		} else {
			text[fread(text, 1, META_MAX, f)] = '\0';
			rc = scan_meta(text, slash ? slash + 1 : path, m);
		}
		fclose(f);
	}
	free(meta);
	free(text);
	return rc;
}

void r2_meta_free(struct r2_meta *m)
{
	for (size_t i = 0; i < m->ntopics; i++)
		free(m->topics[i].name);
	free(m->topics);
	m->topics = NULL;
	m->ntopics = 0;
}

BAG_API int bag_rosbag2_files(const char *path, char ***files, size_t *nfiles, struct bag_error *err)
{
	struct names s = { 0 };
	struct stat st;
	char *dir = NULL, *meta = NULL, *text = NULL;
	size_t plen = strlen(path);
	FILE *f;
	int rc = BAG_OK;

	*files = NULL;
	*nfiles = 0;
	if (plen >= sizeof META - 1 && strcmp(path + plen - (sizeof META - 1), META) == 0 &&
	    (plen == sizeof META - 1 || path[plen - sizeof META] == '/'))
		dir = plen == sizeof META - 1 ? strdup(".") : strndup(path, plen - sizeof META);
	else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		dir = strdup(path);
	else
		return BAG_OK;
	if (dir == NULL || asprintf(&meta, "%s/%s", dir, META) < 0) {
		rc = BAG_ENOMEM;
		goto done;
	}
	if ((f = fopen(meta, "rb")) != NULL) {
		size_t n;
		if ((text = malloc(META_MAX + 1)) == NULL) {
			fclose(f);
			rc = BAG_ENOMEM;
			goto done;
		}
		n = fread(text, 1, META_MAX, f);
		text[n] = '\0';
		fclose(f);
		rc = from_metadata(dir, text, &s);
	}
	if (rc == BAG_OK && s.n == 0)
		rc = from_listing(dir, &s);
	if (rc == BAG_OK && s.n == 0) {
		rc = bag_error_say(err, BAG_ENOTFOUND, "%s: a directory without metadata.yaml naming its files, "
		                   "or any .mcap or .db3 file", path);
	}
done:
	if (rc != BAG_OK) {
		for (size_t i = 0; i < s.n; i++)
			free(s.v[i]);
		free(s.v);
		if (rc == BAG_ENOMEM)
			bag_error_say(err, rc, "out of memory");
		else if (rc == BAG_EIO)
			bag_error_say(err, rc, "%s: cannot list the directory", path);
	} else {
		*files = s.v;
		*nfiles = s.n;
	}
	free(dir);
	free(meta);
	free(text);
	return rc;
}
