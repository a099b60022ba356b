/*
 * dupjob.c - a pane's whole-file job on a thread (see dupjob.h). The bags
 * are bag_dup() handles of the app's, so the thread never shares a handle
 * with the main loop; finished is stored with release once rc is written.
 * A background job yields: its progress callback sleeps while the user's
 * search, filter or write runs (hold: app->user_busy, set by the main loop
 * each turn), and a low one runs at nice 19, on cores left idle.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "tui/app.h"
#include "tui/dupjob.h"

static void *main_fn(void *arg)
{
	struct dupjob *j = arg;

#ifdef __linux__
	if (j->low)   /* Linux gives each thread its own nice value */
		setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
#endif
	j->rc = j->run(j, j->arg);
	__atomic_store_n(&j->finished, true, __ATOMIC_RELEASE);
	return NULL;
}

int dupjob_start(struct dupjob *j, struct app *app, int (*run)(struct dupjob *j, void *arg), void *arg)
{
	j->run = run;
	j->arg = arg;
	if ((j->bags = calloc(app->cb.nbags + 1, sizeof *j->bags)) == NULL)
		return -1;
	for (; j->nbags < app->cb.nbags; j->nbags++)
		if (bag_dup(&j->bags[j->nbags], app->cb.bags[j->nbags]) != BAG_OK) {
			bag_close(j->bags[j->nbags]);
			return -1;
		}
	if (bag_timeline_open(&j->tl, j->bags, j->nbags) != BAG_OK)
		return -1;
	return bgjob_start(&j->job, main_fn, j);
}

int dupjob_progress(void *arg, uint64_t done, uint64_t total)
{
	struct dupjob *j = arg;
	struct timespec nap = { 0, 20000000 };

	while (j->hold != NULL && __atomic_load_n(j->hold, __ATOMIC_RELAXED) &&
	       !__atomic_load_n(&j->cancel, __ATOMIC_RELAXED))
		nanosleep(&nap, NULL);
	__atomic_store_n(&j->done, done, __ATOMIC_RELAXED);
	__atomic_store_n(&j->total, total, __ATOMIC_RELAXED);
	return __atomic_load_n(&j->cancel, __ATOMIC_RELAXED);
}

bool dupjob_finished(const struct dupjob *j)
{
	return __atomic_load_n(&j->finished, __ATOMIC_ACQUIRE);
}

bool dupjob_running(const struct dupjob *j)
{
	return j->job.started && !dupjob_finished(j);
}

unsigned dupjob_percent(const struct dupjob *j)
{
	uint64_t done = __atomic_load_n(&j->done, __ATOMIC_RELAXED), total = __atomic_load_n(&j->total, __ATOMIC_RELAXED);
	return total ? (unsigned)(done * 100 / total) : 0;
}

void dupjob_free(struct dupjob *j)
{
	__atomic_store_n(&j->cancel, true, __ATOMIC_RELAXED);
	bgjob_join(&j->job);
	bag_timeline_free(j->tl);
	j->tl = NULL;
	for (size_t i = 0; i < j->nbags; i++)
		bag_close(j->bags[i]);
	free(j->bags);
	j->bags = NULL;
	j->nbags = 0;
}

void dupjob_pane_open(struct dupjob *j, struct app *app, bool *is_open, bool open, int pane,
                      int (*run)(struct dupjob *j, void *arg), void *arg, const char *what)
{
	*is_open = open;
	if (open && !j->job.started && dupjob_start(j, app, run, arg) != 0)
		snprintf(app->m.note, sizeof app->m.note, "%s: out of memory", what);
	if (open)
		app->m.focus = pane;
	else if ((int)app->m.focus == pane)
		app->m.focus = PANE_LIST;
}

bool dupjob_ready(const struct dupjob *j, const char *what, const struct bag_error *err, struct detail *d)
{
	char line[128];

	if (dupjob_finished(j) && j->rc == BAG_OK)
		return true;
	detail_clear(d);
	if (dupjob_finished(j)) {
		detail_add(d, 0, err->message[0] ? err->message : bag_strerror(j->rc));
		return false;
	}
	snprintf(line, sizeof line, "reading %s ... %u%%", what, dupjob_percent(j));
	detail_add(d, 0, line);
	return false;
}
