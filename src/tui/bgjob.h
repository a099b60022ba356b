/*
 * bgjob.h - one background job: a thread and a pipe that wakes the main
 * loop. The thread calls bgjob_wake() when it has news; the loop polls
 * bgjob_fd() with the keyboard and calls bgjob_drain() before it looks.
 * Both ends of the pipe are non-blocking, so a full pipe (wakeups already
 * waiting) never stalls the thread. Used by the decoding worker, the
 * search/filter job, the rates job, the write (W) and the plot.
 */
#ifndef BAGSCOPE_TUI_BGJOB_H
#define BAGSCOPE_TUI_BGJOB_H

#include <pthread.h>
#include <stdbool.h>

struct bgjob {
	pthread_t thread;
	bool started;                 /* thread runs (or ran) and is to be joined */
	int rd, wr;                   /* the pipe; -1 before bgjob_init */
};

/* The pipe. 0, or -1 (the fds stay -1). */
int bgjob_init(struct bgjob *j);
/* Start fn(arg) on a thread. 0, or -1. */
int bgjob_start(struct bgjob *j, void *(*fn)(void *), void *arg);
/* On the thread: wake the main loop. */
void bgjob_wake(const struct bgjob *j);
/* On the main loop: empty the pipe. */
void bgjob_drain(const struct bgjob *j);
/* Join the thread if started. */
void bgjob_join(struct bgjob *j);
/* Join, then close the pipe. */
void bgjob_close(struct bgjob *j);

static inline int bgjob_fd(const struct bgjob *j)
{
	return j->rd;
}

#endif
