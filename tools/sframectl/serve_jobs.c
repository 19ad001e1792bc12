// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl serve's workers: a file not in the cache is translated by a
 * confined child (serve_gen.c, sandbox.c), up to --jobs at once.  A
 * worker holds the report's descriptor and what the service needs to
 * load the result; the service polls the children's pipes among its own
 * descriptors, and each child that wrote all, failed or ran out of time
 * comes back to it as an ended job, to be loaded and then released.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "serve_jobs.h"

/* A worker free for a child, or NULL. */
struct serve_job *serve_jobs_free(struct serve_jobs *js)
{
	unsigned int i;

	for (i = 0; i < js->nr; i++)
		if (!js->job[i].held)
			return &js->job[i];
	return NULL;
}

/*
 * Start @j's child on the @size bytes sealed in the memory file @input:
 * the child gets them and nothing else.  @j holds a descriptor of its own
 * of the report's @fd until it is released.  A child that could not start
 * has ended already (j->end).
 */
void serve_jobs_start(struct serve_job *j, int fd, int input, size_t size)
{
	j->held = true;
	j->gen = (struct serve_gen_job){ .out = -1 };
	j->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (j->fd < 0)
		j->end = serve_gen_not_started(&j->gen, "dup", errno);
	else
		j->end = serve_gen_start_translate(&j->gen, input, size,
						   j->fill);
}

/* Is a worker holding the file of record @seen? */
bool serve_jobs_busy(const struct serve_jobs *js, size_t seen)
{
	unsigned int i;

	for (i = 0; i < js->nr; i++)
		if (js->job[i].held && js->job[i].seen == seen)
			return true;
	return false;
}

/*
 * The running children's pipes into @pfd (room for SERVE_JOBS_MAX), in
 * the order serve_jobs_reap() expects, and *@wait (ms, -1: no limit)
 * shortened to the first child's deadline.  How many.
 */
unsigned int serve_jobs_poll(const struct serve_jobs *js, struct pollfd *pfd,
			     int *wait)
{
	long long now = serve_gen_now(), left;
	unsigned int i, k = 0;

	for (i = 0; i < js->nr; i++) {
		if (!js->job[i].gen.pid)
			continue;
		pfd[k++] = (struct pollfd){
			.fd = js->job[i].gen.out, .events = POLLIN,
		};
		left = js->job[i].gen.deadline - now;
		left = left < 0 ? 0 : left;
		if (*wait < 0 || left < *wait)
			*wait = left;
	}
	return k;
}

/*
 * Read what the children polled in @pfd wrote (@polled: poll() said
 * something is ready), and end those that finished or ran out of time:
 * into @ended (room for SERVE_JOBS_MAX), with how they ended in ->end.
 * How many ended.
 */
unsigned int serve_jobs_reap(struct serve_jobs *js, const struct pollfd *pfd,
			     bool polled, struct serve_job **ended)
{
	unsigned int i, k = 0, n = 0;
	struct serve_job *j;

	for (i = 0; i < js->nr; i++) {
		j = &js->job[i];
		if (!j->gen.pid)
			continue;
		j->end = SERVE_GEN_RUNNING;
		if (polled && pfd[k].revents)
			j->end = serve_gen_read(&j->gen);
		if (j->end == SERVE_GEN_RUNNING)
			j->end = serve_gen_expire(&j->gen, serve_gen_now());
		if (j->end != SERVE_GEN_RUNNING)
			ended[n++] = j;
		k++;
	}
	return n;
}

/* @j's end was handled: the worker is free again. */
void serve_jobs_release(struct serve_job *j)
{
	serve_gen_free(&j->gen);
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
	j->held = false;
}

/* Where the running files' record indices are, for renumbering them. */
unsigned int serve_jobs_seen(struct serve_jobs *js, size_t **in_use)
{
	unsigned int i, n = 0;

	for (i = 0; i < js->nr; i++)
		if (js->job[i].held)
			in_use[n++] = &js->job[i].seen;
	return n;
}

/* The service ends: its children with it. */
void serve_jobs_stop(struct serve_jobs *js)
{
	unsigned int i;

	for (i = 0; i < js->nr; i++)
		if (js->job[i].held)
			serve_jobs_release(&js->job[i]);
}
