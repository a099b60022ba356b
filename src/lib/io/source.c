/*
 * source.c - choosing a byte source for a path: http:// and https:// go to
 * the HTTP source, s3:// to the same source addressed and signed for S3,
 * anything else is a local file (file.c). A URL's user:password@ is for
 * the request only: every name shown (bag_path, messages) is redacted.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <bagscope/bag.h>
#include "lib/common/util-int.h"
#include "lib/io/remote-int.h"

bool bag_source_is_url(const char *path)
{
	return strncasecmp(path, "http://", 7) == 0 || strncasecmp(path, "https://", 8) == 0 ||
	       strncmp(path, "s3://", 5) == 0;
}

BAG_API char *bag_url_redact(const char *path)
{
	const char *auth = bag_source_is_url(path) ? strstr(path, "://") : NULL;
	const char *end, *at = NULL, *colon;
	char *out;

	if (auth == NULL)
		return strdup(path);
	auth += 3;
	end = auth + strcspn(auth, "/?#");
	for (const char *p = auth; p < end; p++)
		if (*p == '@')
			at = p;
	if (at == NULL)
		return strdup(path);
	colon = memchr(auth, ':', (size_t)(at - auth));
	if (colon == NULL)
		colon = auth;   /* a bare token before '@' is a secret too */
	else
		colon++;
	if (asprintf(&out, "%.*s***%s", (int)(colon - path), path, at) < 0)
		return NULL;
	return out;
}

int bag_source_open(struct bag_source **out, const char *path, const struct bag_source_opts *o,
                    struct bag_error *err)
{
	struct remote_target t = { 0 };
	int rc;

	*out = NULL;
	if (!bag_source_is_url(path))
		return bag_file_open(out, path, err);
	if (strncmp(path, "s3://", 5) == 0)
		rc = bag_s3_target(&t, path, o->no_sign_request, err);
	else if ((t.url = strdup(path)) == NULL || (t.name = bag_url_redact(path)) == NULL)
		rc = bag_error_say(err, BAG_ENOMEM, "out of memory");
	else
		rc = BAG_OK;
	if (rc != BAG_OK) {
		remote_target_free(&t);
		return rc;
	}
	return bag_http_open(out, &t, o, err);
}
