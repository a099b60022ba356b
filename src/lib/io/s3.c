/*
 * s3.c - s3://bucket/key: the object's URL and its SigV4 signing from the
 * standard AWS configuration, and ListObjectsV2 for s3://bucket/prefix/ *.bag
 * (a glob in the key).
 *
 * Configuration, first found wins: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY
 * and AWS_SESSION_TOKEN; else the profile AWS_PROFILE (or "default") in
 * ~/.aws/credentials, then ~/.aws/config (AWS_SHARED_CREDENTIALS_FILE and
 * AWS_CONFIG_FILE move them). Region: AWS_REGION, AWS_DEFAULT_REGION, the
 * profile's region, us-east-1. AWS_ENDPOINT_URL (or the profile's
 * endpoint_url) selects a compatible store, addressed path-style. The secret
 * and the token live only in the target's userpwd and token strings, which
 * are wiped when freed; no message carries them.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/bag.h>
#include "lib/common/util-int.h"
#include "lib/io/remote-int.h"

#define LIST_MAX ((size_t)16 << 20)

/* The AWS settings that address and sign a request. */
struct aws_conf {
	char key_id[256], secret[256], token[4096];
	char region[64], endpoint[512];
};

/* Value of key in [section] of an INI file into dst; false if absent. */
static bool ini_get(const char *file, const char *section, const char *key, char *dst, size_t cap)
{
	FILE *f = file != NULL ? fopen(file, "r") : NULL;
	char line[4096], want[300];
	bool in = false, found = false;

	if (f == NULL)
		return false;
	snprintf(want, sizeof want, "[%s]", section);
	while (!found && fgets(line, sizeof line, f) != NULL) {
		char *p = line, *eq, *end;
		while (isspace((unsigned char)*p))
			p++;
		for (end = p + strlen(p); end > p && isspace((unsigned char)end[-1]); end--)
			*(end - 1) = '\0';
		if (*p == '[') {
			in = strcmp(p, want) == 0;
			continue;
		}
		if (!in || (eq = strchr(p, '=')) == NULL)
			continue;
		for (end = eq; end > p && isspace((unsigned char)end[-1]); end--)
			;
		if ((size_t)(end - p) != strlen(key) || strncmp(p, key, strlen(key)) != 0)
			continue;
		for (eq++; isspace((unsigned char)*eq); eq++)
			;
		snprintf(dst, cap, "%s", eq);
		found = true;
	}
	fclose(f);
	return found;
}

/* An AWS file: the variable's value, else ~/.aws/NAME, into buf. */
static const char *aws_file(const char *var, const char *name, char *buf, size_t cap)
{
	const char *v = getenv(var), *home = getenv("HOME");

	if (v != NULL && *v)
		return v;
	if (home == NULL)
		return NULL;
	snprintf(buf, cap, "%s/.aws/%s", home, name);
	return buf;
}

/* A profile setting: credentials file first (for keys), then config. */
static bool profile_get(const char *profile, const char *key, char *dst, size_t cap)
{
	char path[1024], section[300];
	const char *creds = aws_file("AWS_SHARED_CREDENTIALS_FILE", "credentials", path, sizeof path);

	if (ini_get(creds, profile, key, dst, cap))
		return true;
	const char *conf = aws_file("AWS_CONFIG_FILE", "config", path, sizeof path);
	snprintf(section, sizeof section, strcmp(profile, "default") == 0 ? "%s" : "profile %s", profile);
	return ini_get(conf, section, key, dst, cap);
}

static void env_or(const char *var, char *dst, size_t cap)
{
	const char *v = getenv(var);

	if (v != NULL && *v && !dst[0])
		snprintf(dst, cap, "%s", v);
}

static int aws_conf_read(struct aws_conf *c, bool no_sign, struct bag_error *err)
{
	const char *profile = getenv("AWS_PROFILE");

	memset(c, 0, sizeof *c);
	if (profile == NULL || !*profile)
		profile = "default";
	env_or("AWS_REGION", c->region, sizeof c->region);
	env_or("AWS_DEFAULT_REGION", c->region, sizeof c->region);
	if (!c->region[0] && !profile_get(profile, "region", c->region, sizeof c->region))
		snprintf(c->region, sizeof c->region, "us-east-1");
	env_or("AWS_ENDPOINT_URL_S3", c->endpoint, sizeof c->endpoint);
	env_or("AWS_ENDPOINT_URL", c->endpoint, sizeof c->endpoint);
	if (!c->endpoint[0])
		profile_get(profile, "endpoint_url", c->endpoint, sizeof c->endpoint);
	if (no_sign)
		return BAG_OK;
	env_or("AWS_ACCESS_KEY_ID", c->key_id, sizeof c->key_id);
	env_or("AWS_SECRET_ACCESS_KEY", c->secret, sizeof c->secret);
	env_or("AWS_SESSION_TOKEN", c->token, sizeof c->token);
	if (!c->key_id[0] || !c->secret[0]) {
		c->key_id[0] = c->secret[0] = c->token[0] = '\0';
		profile_get(profile, "aws_access_key_id", c->key_id, sizeof c->key_id);
		profile_get(profile, "aws_secret_access_key", c->secret, sizeof c->secret);
		profile_get(profile, "aws_session_token", c->token, sizeof c->token);
	}
	if (c->key_id[0] && c->secret[0])
		return BAG_OK;
	return bag_error_say(err, BAG_EINVAL, "no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
	                     "or AWS_PROFILE with ~/.aws/credentials (profile \"%.100s\" has none), or use "
	                     "--no-sign-request", profile);
}

/* Append s percent-encoded (RFC 3986 unreserved kept, and '/' when keep_slash). */
static void encode(char *dst, size_t cap, const char *s, bool keep_slash)
{
	size_t n = strlen(dst);

	for (; *s && n + 4 < cap; s++) {
		unsigned char ch = (unsigned char)*s;
		if (isalnum(ch) || ch == '-' || ch == '_' || ch == '.' || ch == '~' || (keep_slash && ch == '/'))
			dst[n++] = (char)ch;
		else
			n += (size_t)snprintf(dst + n, cap - n, "%%%02X", ch);
	}
	dst[n] = '\0';
}

/* The URL of bucket's root ("https://host/bucket" path-style or virtual-host), with '/' after it. */
static void bucket_url(const struct aws_conf *c, const char *bucket, char *dst, size_t cap)
{
	size_t n = strlen(c->endpoint);

	if (n > 0)
		snprintf(dst, cap, "%.*s/%s/", (int)(c->endpoint[n - 1] == '/' ? n - 1 : n), c->endpoint, bucket);
	else if (strchr(bucket, '.') != NULL)
		snprintf(dst, cap, "https://s3.%s.amazonaws.com/%s/", c->region, bucket);
	else
		snprintf(dst, cap, "https://%s.s3.%s.amazonaws.com/", bucket, c->region);
}

/* Split s3://bucket/key; false when malformed. */
static bool split_url(const char *url, char *bucket, size_t cap, const char **key)
{
	const char *b = url + 5, *slash = strchr(b, '/');

	if (strncmp(url, "s3://", 5) != 0 || slash == NULL || slash == b || (size_t)(slash - b) >= cap)
		return false;
	memcpy(bucket, b, (size_t)(slash - b));
	bucket[slash - b] = '\0';
	*key = slash + 1;
	return true;
}

/* Fill t's signing from c. */
static int sign_with(struct remote_target *t, const struct aws_conf *c, bool no_sign)
{
	char buf[512];

	if (no_sign)
		return BAG_OK;
	snprintf(buf, sizeof buf, "aws:amz:%s:s3", c->region);
	t->sigv4 = strdup(buf);
	if (asprintf(&t->userpwd, "%s:%s", c->key_id, c->secret) < 0)
		t->userpwd = NULL;
	if (c->token[0] && asprintf(&t->token, "x-amz-security-token: %s", c->token) < 0)
		t->token = NULL;
	return t->sigv4 == NULL || t->userpwd == NULL || (c->token[0] && t->token == NULL) ? BAG_ENOMEM : BAG_OK;
}

int bag_s3_target(struct remote_target *t, const char *s3url, bool no_sign, struct bag_error *err)
{
	struct aws_conf c;
	char bucket[256], url[4096];
	const char *key;
	int rc;

	if (!split_url(s3url, bucket, sizeof bucket, &key) || !*key)
		return bag_error_say(err, BAG_EINVAL, "not an s3://bucket/key URL");
	rc = aws_conf_read(&c, no_sign, err);
	if (rc == BAG_OK) {
		bucket_url(&c, bucket, url, sizeof url);
		encode(url, sizeof url, key, true);
		t->url = strdup(url);
		t->name = strdup(s3url);
		rc = t->url == NULL || t->name == NULL ? BAG_ENOMEM : sign_with(t, &c, no_sign);
		if (rc == BAG_ENOMEM)
			bag_error_say(err, rc, "out of memory");
	}
	explicit_bzero(&c, sizeof c);
	return rc;
}

/* The text of the next <tag>...</tag> at or after *p, XML-unescaped; NULL if none. */
static char *xml_next(const char **p, const char *tag)
{
	char open[64], close[64];
	const char *a, *b;
	char *out, *o;

	snprintf(open, sizeof open, "<%s>", tag);
	snprintf(close, sizeof close, "</%s>", tag);
	if ((a = strstr(*p, open)) == NULL || (b = strstr(a, close)) == NULL)
		return NULL;
	a += strlen(open);
	*p = b + strlen(close);
	if ((out = o = malloc((size_t)(b - a) + 1)) == NULL)
		return NULL;
	while (a < b) {
		static const char *const ent[][2] = { { "&amp;", "&" }, { "&lt;", "<" }, { "&gt;", ">" },
		                                       { "&quot;", "\"" }, { "&apos;", "'" } };
		size_t k;
		for (k = 0; k < 5 && strncmp(a, ent[k][0], strlen(ent[k][0])) != 0; k++)
			;
		if (k < 5) {
			*o++ = ent[k][1][0];
			a += strlen(ent[k][0]);
		} else if (a[0] == '&' && a[1] == '#' && strchr(a, ';') != NULL && strchr(a, ';') < b) {
			unsigned long cp = a[2] == 'x' ? strtoul(a + 3, NULL, 16) : strtoul(a + 2, NULL, 10);
			*o++ = cp < 0x80 ? (char)cp : '?';
			a = strchr(a, ';') + 1;
		} else {
			*o++ = *a++;
		}
	}
	*o = '\0';
	return out;
}

/* Add every key of one ListObjectsV2 page matching glob; the next token (or NULL) in *next. */
static int list_page(const char *xml, const char *bucket, const char *glob, char ***urls, size_t *n,
                     char **next)
{
	const char *p = xml;
	char *key;

	*next = NULL;
	while ((key = xml_next(&p, "Key")) != NULL) {
		char **u = fnmatch(glob, key, FNM_PATHNAME) == 0 ? realloc(*urls, (*n + 1) * sizeof **urls) : NULL;
		if (u != NULL) {
			*urls = u;
			if (asprintf(&u[*n], "s3://%s/%s", bucket, key) < 0) {
				free(key);
				return BAG_ENOMEM;
			}
			(*n)++;
		}
		free(key);
	}
	p = xml;
	key = xml_next(&p, "IsTruncated");
	if (key != NULL && strcmp(key, "true") == 0) {
		p = xml;
		*next = xml_next(&p, "NextContinuationToken");
	}
	free(key);
	return BAG_OK;
}

/* The ListObjectsV2 URL: parameters sorted by name and encoded, as SigV4 needs them. */
static void list_url(const struct aws_conf *c, const char *bucket, const char *prefix, const char *token,
                     char *url, size_t cap)
{
	bucket_url(c, bucket, url, cap);
	if (c->endpoint[0] || strchr(bucket, '.') != NULL)
		url[strlen(url) - 1] = '\0';   /* path-style: /bucket?..., as servers canonicalise it */
	strncat(url, "?", cap - strlen(url) - 1);
	if (token != NULL) {
		strncat(url, "continuation-token=", cap - strlen(url) - 1);
		encode(url, cap, token, false);
		strncat(url, "&", cap - strlen(url) - 1);
	}
	strncat(url, "list-type=2&prefix=", cap - strlen(url) - 1);
	encode(url, cap, prefix, false);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* List the keys under prefix matching glob as s3:// URLs. */
static int list_keys(const struct aws_conf *c, bool no_sign, const char *bucket, const char *glob,
                     char ***urls, size_t *n, struct bag_error *err)
{
	size_t plen = strcspn(glob, "*?[\\");
	char *prefix = strndup(glob, plen), *token = NULL, url[8192];
	struct remote_target t = { .url = url };
	int rc = prefix != NULL ? sign_with(&t, c, no_sign) : BAG_ENOMEM;

	while (rc == BAG_OK) {
		char *body, *next;
		size_t len;
		list_url(c, bucket, prefix, token, url, sizeof url);
		rc = remote_get_small(&t, &body, &len, LIST_MAX, err);
		if (rc != BAG_OK)
			break;
		body[len < LIST_MAX ? len : LIST_MAX - 1] = '\0';
		rc = list_page(body, bucket, glob, urls, n, &next);
		free(body);
		free(token);
		token = next;
		if (token == NULL)
			break;
	}
	free(token);
	free(prefix);
	t.url = NULL;
	remote_target_free(&t);
	return rc;
}

BAG_API int bag_url_expand(const char *pattern, bool no_sign_request, char ***urls, size_t *n,
                           struct bag_error *err)
{
	struct aws_conf c;
	struct bag_error e = BAG_ERROR_INIT;   /* the listing's cause, said after the pattern */
	char bucket[256];
	const char *glob;
	int rc;

	*urls = NULL;
	*n = 0;
	if (!split_url(pattern, bucket, sizeof bucket, &glob))
		return bag_error_say(err, BAG_EINVAL, "%s: not an s3://bucket/key URL", pattern);
	rc = aws_conf_read(&c, no_sign_request, &e);
	if (rc == BAG_OK)
		rc = list_keys(&c, no_sign_request, bucket, glob, urls, n, &e);
	explicit_bzero(&c, sizeof c);
	if (rc == BAG_OK && *n == 0)
		rc = bag_error_say(err, BAG_ENOTFOUND, "%s: no object matches", pattern);
	else if (rc != BAG_OK)
		bag_error_say(err, rc, "%s: listing the bucket: %s", pattern, e.message[0] ? e.message : bag_strerror(rc));
	if (rc == BAG_OK) {
		qsort(*urls, *n, sizeof **urls, cmp_str);
	} else {
		bag_url_list_free(*urls, *n);
		*urls = NULL;
		*n = 0;
	}
	return rc;
}

BAG_API void bag_url_list_free(char **urls, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(urls[i]);
	free(urls);
}
