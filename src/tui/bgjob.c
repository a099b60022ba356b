/*
 * bgjob.c - a thread and a non-blocking pipe (see bgjob.h). Invariant:
 * rd and wr are both open or both -1; started is true from a successful
 * pthread_create until the join.
 */
#include <fcntl.h>
#include <unistd.h>

#include "tui/bgjob.h"

int bgjob_init(struct bgjob *j)
{
	int fds[2];

	j->started = false;
	j->rd = j->wr = -1;
	if (pipe(fds) != 0)
		return -1;
	j->rd = fds[0];
	j->wr = fds[1];
	fcntl(j->rd, F_SETFL, O_NONBLOCK);
	fcntl(j->wr, F_SETFL, O_NONBLOCK);
	return 0;
}

int bgjob_start(struct bgjob *j, void *(*fn)(void *), void *arg)
{
	if (pthread_create(&j->thread, NULL, fn, arg) != 0)
		return -1;
	j->started = true;
	return 0;
}

void bgjob_wake(const struct bgjob *j)
{
	char b = 1;

	if (j->wr >= 0 && write(j->wr, &b, 1) < 0) {
		/* the pipe is full: the main loop has wakeups waiting already */
	}
}

void bgjob_drain(const struct bgjob *j)
{
	char drain[64];

	while (j->rd >= 0 && read(j->rd, drain, sizeof drain) > 0)
		;
}

void bgjob_join(struct bgjob *j)
{
	if (j->started)
		pthread_join(j->thread, NULL);
	j->started = false;
}

void bgjob_close(struct bgjob *j)
{
	bgjob_join(j);
	if (j->rd >= 0)
		close(j->rd);
	if (j->wr >= 0)
		close(j->wr);
	j->rd = j->wr = -1;
}
