/*
 * curl.c - libcurl loaded on first use (why: curl-int.h).
 *
 * The soname is libcurl's ABI since 7.16: Debian's libcurl4 (OpenSSL)
 * installs libcurl.so.4, libcurl3-gnutls installs libcurl-gnutls.so.4; both
 * export the same functions.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "lib/common/util-int.h"
#include "lib/io/curl-int.h"

struct curl_api remote_curl;

static const char *const sonames[] = { "libcurl.so.4", "libcurl-gnutls.so.4" };

/* each entry: the symbol's name and where its address goes in remote_curl */
#define SYM(field, name) { name, offsetof(struct curl_api, field) }
static const struct { const char *name; size_t at; } syms[] = {
	SYM(global_init, "curl_global_init"),
	SYM(easy_init, "curl_easy_init"),
	SYM(easy_duphandle, "curl_easy_duphandle"),
	SYM(easy_setopt, "curl_easy_setopt"),
	SYM(easy_getinfo, "curl_easy_getinfo"),
	SYM(easy_perform, "curl_easy_perform"),
	SYM(easy_cleanup, "curl_easy_cleanup"),
	SYM(easy_strerror, "curl_easy_strerror"),
	SYM(slist_append, "curl_slist_append"),
	SYM(slist_free_all, "curl_slist_free_all"),
	SYM(multi_init, "curl_multi_init"),
	SYM(multi_add_handle, "curl_multi_add_handle"),
	SYM(multi_remove_handle, "curl_multi_remove_handle"),
	SYM(multi_perform, "curl_multi_perform"),
	SYM(multi_poll, "curl_multi_poll"),
	SYM(multi_info_read, "curl_multi_info_read"),
	SYM(multi_cleanup, "curl_multi_cleanup"),
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *failure;   /* why loading failed; NULL when loaded */

static void load(void)
{
	void *lib = NULL;
	struct curl_api api;

	for (size_t i = 0; i < sizeof sonames / sizeof *sonames && lib == NULL; i++)
		lib = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) {
		failure = "libcurl.so.4 is not installed (apt-get install libcurl4)";
		return;
	}
	for (size_t i = 0; i < sizeof syms / sizeof *syms; i++) {
		void *f = dlsym(lib, syms[i].name);

		if (f == NULL) {
			failure = "libcurl is older than 7.75";
			return;   /* lib stays open: harmless, and dlclose of libcurl is not */
		}
		memcpy((char *)&api + syms[i].at, &f, sizeof f);
	}
	remote_curl = api;
}

int remote_curl_load(struct bag_error *err)
{
	pthread_once(&once, load);
	if (failure != NULL)
		return bag_error_say(err, BAG_EUNSUPP, "URLs need libcurl: %s", failure);
	return BAG_OK;
}
