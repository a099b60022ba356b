/*
 * msgfile.c - message definitions from .msg files, for bags that carry none
 * (1.1 and older) or an empty one: the full text a bag 2.0 would store for
 * a type, built as genmsg builds message_definition - the type's own file,
 * then every type it uses (depth first, each once) after a line of 80 '='
 * and "MSG: pkg/Name".
 *
 * A field's type is resolved as genmsg does: a builtin, "Header" (which is
 * std_msgs/Header), "pkg/Name", or a bare "Name" of the same package. Files
 * are read whole up to MSGFILE_MAX bytes, types up to TYPES_MAX per
 * definition.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/formats/format-int.h"
#include "lib/common/util-int.h"

#define MSGFILE_MAX ((size_t)1 << 20)
#define TYPES_MAX 256

static const char *const builtins[] = {
	"bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
	"float32", "float64", "string", "time", "duration", "byte", "char", "wstring",
};

static bool builtin(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof builtins / sizeof *builtins; i++)
		if (strlen(builtins[i]) == n && memcmp(builtins[i], s, n) == 0)
			return true;
	return false;
}

/* Read the regular file path whole (at most MSGFILE_MAX bytes) into *out. */
static int read_file(const char *path, char **out, size_t *len)
{
	struct stat st;
	FILE *fp;
	char *buf;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return BAG_ENOTFOUND;
	if ((size_t)st.st_size > MSGFILE_MAX)
		return BAG_EDEFINITION;
	if ((fp = fopen(path, "rb")) == NULL)
		return BAG_ENOTFOUND;
	buf = malloc((size_t)st.st_size + 1);
	if (buf == NULL) {
		fclose(fp);
		return BAG_ENOMEM;
	}
	*len = fread(buf, 1, (size_t)st.st_size, fp);
	buf[*len] = '\0';
	fclose(fp);
	*out = buf;
	return BAG_OK;
}

/* Find pkg/Name's .msg file in dirs; *path is malloc'd. */
static int find_file(const char *const *dirs, size_t ndirs, const char *type, char **path, char **text,
                     size_t *len)
{
	const char *slash = strchr(type, '/');
	int pl = (int)(slash - type);

	for (size_t i = 0; i < ndirs; i++) {
		const char *d = dirs[i], *base = strrchr(d, '/');
		size_t dl = strlen(d);
		int rc;

		while (dl > 1 && d[dl - 1] == '/')
			dl--;
		base = base && base[1] ? base + 1 : d;
		for (int form = 0; form < 2; form++) {
			/* dir/pkg/msg/Name.msg, or dir/msg/Name.msg when dir is the package */
			if (form == 1 && !(strncmp(base, type, (size_t)pl) == 0 && (base[pl] == '\0' || base[pl] == '/')))
				continue;
			if (form == 0 && asprintf(path, "%.*s/%.*s/msg/%s.msg", (int)dl, d, pl, type, slash + 1) < 0)
				return BAG_ENOMEM;
			if (form == 1 && asprintf(path, "%.*s/msg/%s.msg", (int)dl, d, slash + 1) < 0)
				return BAG_ENOMEM;
			rc = read_file(*path, text, len);
			if (rc != BAG_ENOTFOUND)
				return rc;
			free(*path);
			*path = NULL;
		}
	}
	return BAG_ENOTFOUND;
}

/*
 * Append to *deps the message types the text of pkg's type uses (those not
 * in seen[0..*nseen) yet), resolved as genmsg does.
 */
static int uses(const char *text, const char *pkg, size_t pkg_len, char ***seen, size_t *nseen, size_t *cap)
{
	for (const char *l = text; *l;) {
		const char *end = strchr(l, '\n'), *p = l, *t;
		size_t n;
		char *name;

		if (end == NULL)
			end = l + strlen(l);
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		t = p;
		while (p < end && *p != ' ' && *p != '\t' && *p != '#' && *p != '[' && *p != '=' && *p != '<')
			p++;
		n = (size_t)(p - t);
		l = *end ? end + 1 : end;
		if (n == 0 || *t == '#' || builtin(t, n))
			continue;
		if (n == 6 && memcmp(t, "Header", 6) == 0)
			name = strdup("std_msgs/Header");
		else if (memchr(t, '/', n) != NULL)
			name = strndup(t, n);
		else if (asprintf(&name, "%.*s/%.*s", (int)pkg_len, pkg, (int)n, t) < 0)
			name = NULL;
		if (name == NULL)
			return BAG_ENOMEM;
		bool known = false;
		for (size_t i = 0; i < *nseen && !known; i++)
			known = strcmp((*seen)[i], name) == 0;
		if (known) {
			free(name);
			continue;
		}
		if (*nseen >= TYPES_MAX || bag_grow((void **)seen, cap, *nseen + 1, sizeof **seen) != BAG_OK) {
			free(name);
			return *nseen >= TYPES_MAX ? BAG_EDEFINITION : BAG_ENOMEM;
		}
		(*seen)[(*nseen)++] = name;
	}
	return BAG_OK;
}

int bag_msgfile_text(const char *const *dirs, size_t ndirs, const char *type, char **text, char **file,
                     struct bag_error *err)
{
	char **seen = NULL, *out = NULL;
	size_t nseen = 0, cap = 0, out_len = 0, out_cap = 0;
	int rc = BAG_OK;

	*text = NULL;
	*file = NULL;
	bag_error_clear(err);
	if (bag_grow((void **)&seen, &cap, 1, sizeof *seen) != BAG_OK || (seen[0] = strdup(type)) == NULL) {
		rc = BAG_ENOMEM;
		goto fail;
	}
	nseen = 1;
	/* seen grows while it is walked: each type once, in the order met */
	for (size_t i = 0; i < nseen; i++) {
		const char *slash = strchr(seen[i], '/');
		char *path = NULL, *body = NULL;
		size_t len = 0;

		if (slash == NULL || slash == seen[i] || slash[1] == '\0') {
			rc = bag_error_say(err, BAG_EDEFINITION, "'%s' is not a package/Type name", seen[i]);
			goto fail;
		}
		rc = find_file(dirs, ndirs, seen[i], &path, &body, &len);
		if (rc != BAG_OK) {
			if (rc == BAG_ENOTFOUND)
				bag_error_say(err, rc, i ? "no .msg file for %s, which %s uses" : "no .msg file for %s",
				              seen[i], type);
			else if (rc == BAG_EDEFINITION)
				bag_error_say(err, rc, "%s is larger than %zu bytes", path, MSGFILE_MAX);
			free(path);
			goto fail;
		}
		if (i == 0)
			*file = path;
		else
			free(path);
		size_t head = i ? 80 + 6 + strlen(seen[i]) + 2 : 0;
		if (bag_grow((void **)&out, &out_cap, out_len + head + len + 2, 1) != BAG_OK) {
			free(body);
			rc = BAG_ENOMEM;
			goto fail;
		}
		if (i) {
			if (out_len > 0 && out[out_len - 1] != '\n')
				out[out_len++] = '\n';
			memset(out + out_len, '=', 80);
			out_len += 80;
			out_len += (size_t)sprintf(out + out_len, "\nMSG: %s\n", seen[i]);
		}
		memcpy(out + out_len, body, len);
		out_len += len;
		out[out_len] = '\0';
		rc = uses(body, seen[i], (size_t)(slash - seen[i]), &seen, &nseen, &cap);
		free(body);
		if (rc == BAG_EDEFINITION)
			bag_error_say(err, rc, "%s uses more than %d types", type, TYPES_MAX);
		if (rc != BAG_OK)
			goto fail;
	}
	*text = out;
	out = NULL;
fail:
	if (rc != BAG_OK) {
		free(*file);
		*file = NULL;
	}
	for (size_t i = 0; i < nseen; i++)
		free(seen[i]);
	free(seen);
	free(out);
	return rc;
}

int bag_msgpath_init(struct bag_msgpath *p, const char *const *dirs, size_t n, bool env)
{
	static const char *const vars[] = { "BAGSCOPE_MSG_PATH", "ROS_PACKAGE_PATH" };
	size_t len = 0, cap = n + 1, nvars = env ? 2 : 0;

	memset(p, 0, sizeof *p);
	for (size_t v = 0; v < nvars; v++) {
		const char *e = getenv(vars[v]);
		if (e == NULL)
			continue;
		len += strlen(e) + 1;
		for (const char *c = e; *c; c++)
			cap += *c == ':';
		cap++;
	}
	p->dirs = malloc(cap * sizeof *p->dirs);
	p->store = malloc(len ? len : 1);
	if (p->dirs == NULL || p->store == NULL) {
		bag_msgpath_free(p);
		return BAG_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		p->dirs[p->n++] = dirs[i];
	char *at = p->store;
	for (size_t v = 0; v < nvars; v++) {
		const char *e = getenv(vars[v]);
		if (e == NULL)
			continue;
		strcpy(at, e);
		for (char *save = NULL, *d = strtok_r(at, ":", &save); d; d = strtok_r(NULL, ":", &save))
			p->dirs[p->n++] = d;
		at += strlen(e) + 1;
	}
	if (env)
		p->dirs[p->n++] = "/usr/share";
	return BAG_OK;
}

void bag_msgpath_free(struct bag_msgpath *p)
{
	free(p->dirs);
	free(p->store);
	memset(p, 0, sizeof *p);
}
