/* bagset.c - opening bags with progress and notes (see bagset.h). */
#include <stdbool.h>
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

/* --msg-path directories, then those of the environment (msg_path_env()). */
static const char **msg_dirs;
static size_t msg_ndirs, msg_cap;
static char *msg_env[2];          /* copies of the variables, cut at ':' */

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
		char **files = NULL, err[512];
		size_t nf = 0;
		rest |= strcmp((*argv)[i], "--") == 0;
		int rc = i > 0 && !rest && (*argv)[i][0] != '-' ?
		         bag_rosbag2_files((*argv)[i], &files, &nf, err, sizeof err) : BAG_OK;
		/* a directory that holds no recording is some other argument (frames -o DIR) */
		if (rc != BAG_OK && rc != BAG_ENOTFOUND) {
			term_error("%s", err);
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

/* The directories of BAGSCOPE_MSG_PATH, ROS_PACKAGE_PATH and /usr/share, once. */
static void msg_path_env(void)
{
	static const char *const vars[] = { "BAGSCOPE_MSG_PATH", "ROS_PACKAGE_PATH" };
	static bool done;

	if (done)
		return;
	done = true;
	for (size_t v = 0; v < 2; v++) {
		const char *e = getenv(vars[v]);
		if (e == NULL || (msg_env[v] = strdup(e)) == NULL)
			continue;
		for (char *save = NULL, *d = strtok_r(msg_env[v], ":", &save); d; d = strtok_r(NULL, ":", &save))
			bagset_msg_path_add(d);
	}
	bagset_msg_path_add("/usr/share");
}

void bagset_open_opts(struct bag_open_opts *o)
{
	msg_path_env();
	o->msg_path = msg_dirs;
	o->msg_path_n = msg_ndirs;
}

int bagset_open_one(bag_t **bag, const char *path)
{
	struct bag_open_opts opts = BAG_OPEN_OPTS_INIT;
	struct term_scratch sc = { 0 };
	struct bag_recovery r;
	int rc;

	bagset_open_opts(&opts);
	if (isatty(STDERR_FILENO)) {
		opts.progress = show_progress;
		opts.progress_arg = (void *)term_str(&sc, path);
	}
	rc = bag_open(bag, path, &opts);
	if (rc != BAG_OK) {
		term_error("%s", bag_errmsg(*bag));
		goto done;
	}
	bag_recovery_report(*bag, &r);
	if (r.recovered) {
		term_error("%s", r.reason);
		term_error("%s: read without its index: %llu messages recovered from %zu chunks by a scan",
		           path, (unsigned long long)r.messages, r.chunks);
		for (size_t i = 0; i < r.nlosses; i++) {
			const struct bag_loss *l = bag_recovery_loss(*bag, i);
			term_error("%s: bytes %llu-%llu lost: %s", path, (unsigned long long)l->start,
			           (unsigned long long)l->end, l->what);
		}
	}
	for (size_t i = 0; i < bag_warning_count(*bag) && bag_warning(*bag, i) != NULL; i++)
		term_error("warning: %s", bag_warning(*bag, i));
	if (bag_warning_count(*bag) > BAG_WARNINGS_MAX)
		term_error("warning: %s: %zu more warnings", path, bag_warning_count(*bag) - BAG_WARNINGS_MAX);
done:
	term_scratch_free(&sc);
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
		term_error("%s", bag_timeline_errmsg(bs->tl));
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
		bag_text_printf(skipped, "%s\n", bag_errmsg(bag));
		bag_close(bag);
	}
	if (bs->nbags == 0)
		return first != BAG_OK ? first : BAG_EINVAL;
	rc = bag_timeline_open(&bs->tl, bs->bags, bs->nbags);
	if (rc != BAG_OK)
		term_error("%s", bag_timeline_errmsg(bs->tl));
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
