/*
 * curl-int.h - libcurl, loaded when the first URL is opened.
 *
 * libcurl brings about thirty libraries with it (TLS, Kerberos, LDAP, ...),
 * whose loading and relocation cost each start of a program about 4 ms of
 * CPU: more than bagscope's whole work on a small local bag. So libbagscope
 * does not link it: remote_curl_load() opens it with dlopen the first time a URL is
 * opened, and the names below call through the table it fills. http.c, the
 * only caller, is written against libcurl's own API names. Never installed.
 */
#ifndef BAGSCOPE_CURL_INT_H
#define BAGSCOPE_CURL_INT_H

#include <curl/curl.h>

#include <bagscope/common.h>

struct curl_api {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURL *(*easy_duphandle)(CURL *h);
	CURLcode (*easy_setopt)(CURL *h, CURLoption opt, ...);
	CURLcode (*easy_getinfo)(CURL *h, CURLINFO info, ...);
	CURLcode (*easy_perform)(CURL *h);
	void (*easy_cleanup)(CURL *h);
	const char *(*easy_strerror)(CURLcode rc);
	struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
	void (*slist_free_all)(struct curl_slist *l);
	CURLM *(*multi_init)(void);
	CURLMcode (*multi_add_handle)(CURLM *m, CURL *h);
	CURLMcode (*multi_remove_handle)(CURLM *m, CURL *h);
	CURLMcode (*multi_perform)(CURLM *m, int *running);
	CURLMcode (*multi_poll)(CURLM *m, struct curl_waitfd fds[], unsigned n, int ms, int *numfds);
	CURLMsg *(*multi_info_read)(CURLM *m, int *left);
	CURLMcode (*multi_cleanup)(CURLM *m);
};

/* Filled once by remote_curl_load(), read-only after; process-wide like libcurl itself. */
extern struct curl_api remote_curl;

/* Load libcurl (once, thread-safe): 0, or BAG_EUNSUPPORTED with err saying why. */
int remote_curl_load(struct bag_error *err);

/* libcurl's names, through the table (its type-checking macros go with them) */
#undef curl_easy_setopt
#undef curl_easy_getinfo
#define curl_global_init remote_curl.global_init
#define curl_easy_init remote_curl.easy_init
#define curl_easy_duphandle remote_curl.easy_duphandle
#define curl_easy_setopt remote_curl.easy_setopt
#define curl_easy_getinfo remote_curl.easy_getinfo
#define curl_easy_perform remote_curl.easy_perform
#define curl_easy_cleanup remote_curl.easy_cleanup
#define curl_easy_strerror remote_curl.easy_strerror
#define curl_slist_append remote_curl.slist_append
#define curl_slist_free_all remote_curl.slist_free_all
#define curl_multi_init remote_curl.multi_init
#define curl_multi_add_handle remote_curl.multi_add_handle
#define curl_multi_remove_handle remote_curl.multi_remove_handle
#define curl_multi_perform remote_curl.multi_perform
#define curl_multi_poll remote_curl.multi_poll
#define curl_multi_info_read remote_curl.multi_info_read
#define curl_multi_cleanup remote_curl.multi_cleanup

#endif
