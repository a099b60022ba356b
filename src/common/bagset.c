/* bagset.c - opening bags with progress and notes (see bagset.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bagset.h"
#include "common/termtext.h"

/* A progress line on a terminal's stderr, redrawn in place; arg: the escaped path. */
static int show_progress(void *arg, uint64_t done, uint64_t total)
{
	const char *path = arg;

	fprintf(stderr, "\rbagscope: %s: no usable index, scanning: %3d%%", path,
	        total ? (int)(done * 100 / total) : 100);
	if (done >= total)
		fputs("\r\033[K", stderr);
	fflush(stderr);
	return 0;
}

/* --msg-path directories (the library adds those of the environment after them). */
static const char **msg_dirs;
static size_t msg_ndirs, msg_cap;

int bagset_msg_path_add(const char *dir)
{
	if (msg_ndirs == msg_cap) {
		size_t n = msg_cap ? msg_cap * 2 : 8;
		const char **d = realloc(msg_dirs, n * sizeof *d);
		if (d == NULL)
			return BAG_ENOMEM;
		msg_dirs = d;
		msg_cap = n;
	}
	msg_dirs[msg_ndirs++] = dir;
	return BAG_OK;
}

int bagset_msg_path_args(int *argc, char **argv)
{
	int out = 1;

	for (int i = 1; i < *argc; i++) {
		const char *dir = NULL;
		if (strcmp(argv[i], "--") == 0) {
			while (i < *argc)
				argv[out++] = argv[i++];
			break;
		}
		if (strncmp(argv[i], "--msg-path=", 11) == 0) {
			dir = argv[i] + 11;
		} else if (strcmp(argv[i], "--msg-path") == 0) {
			if (i + 1 >= *argc) {
				term_error("--msg-path needs a directory");
				return -1;
			}
			dir = argv[++i];
		} else {
			argv[out++] = argv[i];
			continue;
		}
		if (bagset_msg_path_add(dir) != BAG_OK) {
			term_error("out of memory");
			return -1;
		}
	}
	argv[out] = NULL;
	*argc = out;
	return 0;
}

int bagset_rosbag2_args(int *argc, char ***argv)
{
	static char **out;
	size_t n = 0, cap = (size_t)*argc + 1;
	bool rest = false;

	if ((out = malloc(cap * sizeof *out)) == NULL) {
		term_error("out of memory");
		return -1;
	}
	for (int i = 0; i < *argc; i++) {
		char **files = NULL;
		struct bag_error err = BAG_ERROR_INIT;
		size_t nf = 0;
		rest |= strcmp((*argv)[i], "--") == 0;
		int rc = i > 0 && !rest && (*argv)[i][0] != '-' ?
		         bag_rosbag2_files((*argv)[i], &files, &nf, &err) : BAG_OK;
		/* a directory that holds no recording is some other argument (frames -o DIR) */
		if (rc != BAG_OK && rc != BAG_ENOTFOUND) {
			term_error("%s", err.message);
			return -1;
		}
		char **grown = nf > 1 ? realloc(out, (cap += nf - 1) * sizeof *out) : out;
		if (grown == NULL) {
			term_error("out of memory");
			return -1;
		}
		out = grown;
		if (nf == 0)
			out[n++] = (*argv)[i];
		for (size_t k = 0; k < nf; k++)
			out[n++] = files[k];
		free(files);
	}
	out[n] = NULL;
	*argc = (int)n;
	*argv = out;
	return 0;
}

/* --cache-size and --no-sign-request, for URL bags */
static size_t remote_cache;
static bool no_sign_request;
static bool lazy_counts;
static volatile int cancel_epoch;   /* bag_open_opts.cancel: changed to stop the reads in flight */
static uint64_t fetched;          /* by every URL bag, added atomically */

/* A URL bag's progress line on a terminal's stderr while it opens slowly. */
struct ticker {
	pthread_t thread;
	const char *name;         /* escaped */
	int stop;                 /* atomic */
	bool started;
};

static void *tick(void *arg)
{
	struct ticker *t = arg;
	bool shown = false;

	for (int ms = 0; !__atomic_load_n(&t->stop, __ATOMIC_RELAXED); ms += 100) {
		nanosleep(&(struct timespec){ 0, 100000000L }, NULL);
		if (ms < 1000)
			continue;   /* only when it takes long */
		fprintf(stderr, "\rbagscope: %s: %.1f MB fetched\033[K", t->name,
		        (double)__atomic_load_n(&fetched, __ATOMIC_RELAXED) / 1e6);
		fflush(stderr);
		shown = true;
	}
	if (shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	return NULL;
}

static void ticker_start(struct ticker *t, const char *path, const char *name)
{
	t->name = name;
	t->stop = 0;
	t->started = bag_is_url(path) && isatty(STDERR_FILENO) && pthread_create(&t->thread, NULL, tick, t) == 0;
}

static void ticker_stop(struct ticker *t)
{
	if (!t->started)
		return;
	__atomic_store_n(&t->stop, 1, __ATOMIC_RELAXED);
	pthread_join(t->thread, NULL);
}

void bagset_stop_reads(void)
{
	int e = __atomic_load_n(&cancel_epoch, __ATOMIC_RELAXED);

	if (e >= 0)
		__atomic_store_n(&cancel_epoch, e == INT_MAX ? 0 : e + 1, __ATOMIC_RELAXED);
}

void bagset_quit_reads(void)
{
	__atomic_store_n(&cancel_epoch, -1, __ATOMIC_RELAXED);
}

void bagset_open_opts(struct bag_open_opts *o)
{
	o->msg_path = msg_dirs;
	o->msg_path_n = msg_ndirs;
	o->remote_cache_bytes = remote_cache;
	o->no_sign_request = no_sign_request;
	o->cancel = &cancel_epoch;
	o->fetched = &fetched;
}

/* A byte count with an optional K, M or G (binary), at least 1 MiB; 0 if bad. */
static size_t parse_cache_size(const char *s)
{
	char *end;
	unsigned long long v;
	int shift = 0;

	if (!isdigit((unsigned char)s[0]))
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end == 'K' || *end == 'k')
		shift = 10, end++;
	else if (*end == 'M' || *end == 'm')
		shift = 20, end++;
	else if (*end == 'G' || *end == 'g')
		shift = 30, end++;
	if (errno == ERANGE || *end != '\0' || v > (SIZE_MAX >> shift) || (v << shift) < ((size_t)1 << 20))
		return 0;
	return (size_t)(v << shift);
}

/* Append path to *out (n, cap), or the URLs an s3:// glob lists; -2 printed on failure. */
static int add_input(char ***out, size_t *n, size_t *cap, char *path)
{
	char **urls = NULL;
	struct bag_error err = BAG_ERROR_INIT;
	size_t nurls = 1;
	bool glob = strncmp(path, "s3://", 5) == 0 && strpbrk(path, "*?[") != NULL;

	if (glob && bag_url_expand(path, no_sign_request, &urls, &nurls, &err) != BAG_OK) {
		term_error("%s", err.message);
		return -2;
	}
	if (*n + nurls + 1 > *cap) {
		size_t c = (*n + nurls + 1) * 2;
		char **a = realloc(*out, c * sizeof *a);
		if (a == NULL) {
			bag_url_list_free(urls, nurls);
			term_error("out of memory");
			return -2;
		}
		*out = a;
		*cap = c;
	}
	for (size_t i = 0; i < nurls; i++)
		(*out)[(*n)++] = glob ? urls[i] : path;
	free(urls);   /* the strings live on in *out, to the end of the program */
	return 0;
}

char **bagset_kept_argv;   /* not static: a store the compiler keeps, so the array stays reachable */

/* The arguments gathered so far (their URLs included) kept as on success, for an error's exit; rc. */
static int keep_on_error(char **out, size_t n, int rc)
{
	if (out != NULL) {   /* add_input always leaves room for the terminator */
		out[n] = NULL;
		bagset_kept_argv = out;
	}
	return rc;
}

int bagset_remote_args(int *argc, char ***argv)
{
	char **in = *argv, **out = NULL;
	size_t n = 0, cap = 0;
	bool rest = false;

	for (int i = 0; i < *argc; i++) {
		if (!rest && strcmp(in[i], "--no-sign-request") == 0) {
			no_sign_request = true;
		} else if (!rest && (strcmp(in[i], "--cache-size") == 0 || strncmp(in[i], "--cache-size=", 13) == 0)) {
			const char *v = in[i][12] == '=' ? in[i] + 13 : i + 1 < *argc ? in[++i] : "";
			if ((remote_cache = parse_cache_size(v)) == 0) {
				term_error("--cache-size needs a size of at least 1M, such as 64M or 1G");
				return keep_on_error(out, n, -1);
			}
		} else {
			rest = rest || strcmp(in[i], "--") == 0;
			if (add_input(&out, &n, &cap, in[i]) != 0)
				return keep_on_error(out, n, -2);
		}
	}
	if (out == NULL && (out = malloc(sizeof *out)) == NULL) {
		term_error("out of memory");
		return -2;
	}
	out[n] = NULL;
	*argc = (int)n;
	*argv = bagset_kept_argv = out;   /* kept: the program's arguments to its end (main may return) */
	return 0;
}

void bagset_lazy_counts(void)
{
	lazy_counts = true;
}

int bagset_exact_counts(bag_t *bag, const char **why)
{
	int rc = bag_counts_make_exact(bag);

	*why = bag_last_error(bag)->message;
	return rc;
}

int bagset_open_one(bag_t **bag, const char *path)
{
	struct bag_open_opts opts = BAG_OPEN_OPTS_INIT;
	struct term_scratch sc = { 0 };
	struct ticker tk;
	struct bag_recovery r;
	char *shown = bag_url_redact(path);   /* never a URL's password */
	const char *escaped = term_str(&sc, shown != NULL ? shown : "(out of memory)");
	int rc;

	bagset_open_opts(&opts);
	if (isatty(STDERR_FILENO)) {
		opts.progress = show_progress;
		opts.progress_arg = (void *)escaped;
	}
	ticker_start(&tk, path, escaped);
	const char *why = NULL;
	rc = bag_open(bag, path, &opts);
	if (rc != BAG_OK)
		why = bag_last_error(*bag)->message;
	else if (!lazy_counts)
		rc = bagset_exact_counts(*bag, &why);
	ticker_stop(&tk);
	if (rc != BAG_OK) {
		term_error("%s", why);
		goto done;
	}
	bag_recovery_report(*bag, &r);
	if (r.recovered) {
		term_error("%s", r.reason);
		term_error("%s: read without its index: %llu message%s recovered from %zu chunk%s by a scan",
		           shown, (unsigned long long)r.messages, BAG_S(r.messages), r.chunks, BAG_S(r.chunks));
		for (size_t i = 0; i < r.nlosses; i++) {
			const struct bag_loss *l = bag_recovery_loss(*bag, i);
			term_error("%s: bytes %llu-%llu lost: %s", shown, (unsigned long long)l->start,
			           (unsigned long long)l->end, l->what);
		}
	}
	for (size_t i = 0; i < bag_warning_count(*bag) && bag_warning(*bag, i) != NULL; i++)
		term_error("warning: %s", bag_warning(*bag, i));
	if (bag_warning_count(*bag) > BAG_WARNINGS_MAX)
		term_error("warning: %s: %zu more warnings", shown, bag_warning_count(*bag) - BAG_WARNINGS_MAX);
done:
	term_scratch_free(&sc);
	free(shown);
	return rc;
}

int bagset_open(struct bagset *bs, char *const *paths, size_t n)
{
	int rc = BAG_ENOMEM;

	memset(bs, 0, sizeof *bs);
	bs->bags = calloc(n ? n : 1, sizeof *bs->bags);
	if (bs->bags == NULL) {
		term_error("out of memory");
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		rc = bagset_open_one(&bs->bags[i], paths[i]);
		bs->nbags++;
		if (rc != BAG_OK)
			goto done;
	}
	rc = bag_timeline_open(&bs->tl, bs->bags, bs->nbags);
	if (rc != BAG_OK)
		term_error("%s", bag_timeline_error(bs->tl)->message);
done:
	return rc;
}

int bagset_open_skip(struct bagset *bs, char *const *paths, size_t n, struct bag_text *skipped)
{
	int rc = BAG_ENOMEM, first = BAG_OK;

	memset(bs, 0, sizeof *bs);
	bs->bags = calloc(n ? n : 1, sizeof *bs->bags);
	if (bs->bags == NULL) {
		term_error("out of memory");
		return rc;
	}
	for (size_t i = 0; i < n; i++) {
		bag_t *bag = NULL;
		rc = bagset_open_one(&bag, paths[i]);
		if (rc == BAG_OK) {
			bs->bags[bs->nbags++] = bag;
			continue;
		}
		if (first == BAG_OK)
			first = rc;
		bag_text_printf(skipped, "%s\n", bag_last_error(bag)->message);
		bag_close(bag);
	}
	if (bs->nbags == 0)
		return first != BAG_OK ? first : BAG_EINVAL;
	rc = bag_timeline_open(&bs->tl, bs->bags, bs->nbags);
	if (rc != BAG_OK)
		term_error("%s", bag_timeline_error(bs->tl)->message);
	return rc;
}

void bagset_close(struct bagset *bs)
{
	bag_timeline_free(bs->tl);
	for (size_t i = 0; i < bs->nbags; i++)
		bag_close(bs->bags[i]);
	free(bs->bags);
	memset(bs, 0, sizeof *bs);
}

int topic_ref_cmp(const void *a, const void *b)
{
	const struct topic_ref *x = a, *y = b;
	int c = strcmp(x->topic, y->topic);

	return c != 0 ? c : (x->i > y->i) - (x->i < y->i);
}
