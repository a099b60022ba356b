/*
 * rosbag2.c - a rosbag2 directory as the storage files it names: DIR or
 * DIR/metadata.yaml. metadata.yaml's relative_file_paths list (the split
 * files, in order) is read with a line scanner, not a YAML parser: rosbag2
 * writes it as a block sequence of plain or quoted scalars under that key.
 * Without metadata.yaml, the directory's .mcap and .db3 files sorted by name
 * are taken. The files are then opened as any other (a timeline over them
 * is one recording).
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

/* The directory's .mcap and .db3 files, by name. */
static int from_listing(const char *dir, struct names *s)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = BAG_OK;

	if (d == NULL)
		return BAG_EIO;
	while (rc == BAG_OK && (e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		if ((len > 5 && strcmp(e->d_name + len - 5, ".mcap") == 0) || (len > 4 && strcmp(e->d_name + len - 4, ".db3") == 0))
			rc = names_add(s, dir, e->d_name, len);
	}
	closedir(d);
	bag_sort(s->v, s->n, sizeof *s->v, cmp_str);
	return rc;
}

BAG_API int bag_rosbag2_files(const char *path, char ***files, size_t *nfiles, char *err, size_t errlen)
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
		snprintf(err, errlen, "%s: a directory without metadata.yaml naming its files, or any .mcap or .db3 file", path);
		rc = BAG_ENOTFOUND;
	}
done:
	if (rc != BAG_OK) {
		for (size_t i = 0; i < s.n; i++)
			free(s.v[i]);
		free(s.v);
		if (rc == BAG_ENOMEM)
			snprintf(err, errlen, "out of memory");
		else if (rc == BAG_EIO)
			snprintf(err, errlen, "%s: cannot list the directory", path);
	} else {
		*files = s.v;
		*nfiles = s.n;
	}
	free(dir);
	free(meta);
	free(text);
	return rc;
}
