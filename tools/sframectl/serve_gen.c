// SPDX-License-Identifier: GPL-2.0
/*
 * One generator job of sframectl serve: a child forked with the input
 * already in memory, confined (sandbox.c) before it touches it, that
 * writes its result to a pipe (serve_gen_translate(): a sidecar file).  The parent bounds the child's wall-clock
 * time and the bytes it takes back, and reaps it however it ends; what
 * the bytes are worth is for the caller to check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "serve_gen.h"

#define SERVE_GEN_CHUNK	(1 << 16)	/* first buffer; then doubled */

/* Milliseconds on a clock that only goes forward. */
long long serve_gen_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

/*
 * An address space limit for a child forked now: what it inherits from
 * us (RLIMIT_AS counts it all), plus @extra bytes.
 */
rlim_t serve_gen_address_space(unsigned long long extra)
{
	unsigned long long pages = 0;
	FILE *f = fopen("/proc/self/statm", "re");

	if (f) {
		if (fscanf(f, "%llu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	return pages * sysconf(_SC_PAGESIZE) + extra;
}

/*
 * In the child, confined: translate @arg (a struct serve_gen_input) and
 * write the sidecar file gen -o writes, or why there is none.  0 or not.
 */
int serve_gen_translate(void *arg, int out)
{
	const struct serve_gen_input *in = arg;
	char msg[SFRAME_MSG_MAX] = "";
	size_t size, done = 0;
	u8 *data;
	ssize_t n;
	int ret;

	ret = sframe_gen_file(in->name, in->file, in->file_size, in->fill,
			      &data, &size, msg, sizeof(msg));
	if (ret) {
		data = (u8 *)msg;
		size = strlen(msg);
	}
	while (done < size) {
		n = write(out, data + done, size - done);
		if (n <= 0)
			return -1;
		done += n;
	}
	return ret;
}

/* In the child: confine, work, and never return to the caller's code. */
static _Noreturn void serve_gen_child(int out,
				      const struct sandbox_limits *lim,
				      serve_gen_work work, void *arg)
{
	char msg[SFRAME_MSG_MAX];
	int ret, len;

	ret = sandbox_enter(out, lim);
	if (ret) {
		len = snprintf(msg, sizeof(msg), "cannot enter the sandbox: %s",
			       strerror(-ret));
		if (write(out, msg, len) < 0)
			_exit(EXIT_USAGE);
		_exit(EXIT_USAGE);
	}
	/* _exit(): nothing of the parent's (stdio buffers) is flushed. */
	_exit(work(arg, out) ? EXIT_INVALID : 0);
}

/*
 * Run @work(@arg) in a confined child with the limits @lim, for at most
 * @wall_ms milliseconds, taking back at most @max bytes.  The caller
 * polls j->out and calls serve_gen_read() when it is readable, and
 * serve_gen_expire() when j->deadline has passed.
 */
enum serve_gen_end serve_gen_start(struct serve_gen_job *j,
				   const struct sandbox_limits *lim,
				   unsigned int wall_ms, size_t max,
				   serve_gen_work work, void *arg)
{
	int p[2];

	*j = (struct serve_gen_job){ .out = -1, .max = max };
	if (pipe2(p, O_CLOEXEC))
		return SERVE_GEN_NOT_STARTED;
	j->pid = fork();
	if (j->pid == 0)
		serve_gen_child(p[1], lim, work, arg);
	close(p[1]);
	if (j->pid < 0) {
		j->pid = 0;
		close(p[0]);
		return SERVE_GEN_NOT_STARTED;
	}
	j->out = p[0];
	fcntl(j->out, F_SETFL, O_NONBLOCK);
	j->deadline = serve_gen_now() + wall_ms;
	return SERVE_GEN_RUNNING;
}

/* Kill the child if it still runs and reap it; what its status says. */
static enum serve_gen_end serve_gen_reap(struct serve_gen_job *j, bool kill_it)
{
	int status;

	if (kill_it)
		kill(j->pid, SIGKILL);
	while (waitpid(j->pid, &status, 0) < 0 && errno == EINTR)
		;
	j->pid = 0;
	close(j->out);
	j->out = -1;
	if (WIFSIGNALED(status)) {
		j->signal = WTERMSIG(status);
		return SERVE_GEN_KILLED;
	}
	return WIFEXITED(status) && !WEXITSTATUS(status) ? SERVE_GEN_DONE :
							   SERVE_GEN_FAILED;
}

/* Take what the child wrote; how the job ended, once it has. */
enum serve_gen_end serve_gen_read(struct serve_gen_job *j)
{
	unsigned char *grown;
	size_t cap;
	ssize_t n;

	for (;;) {
		if (j->len == j->cap) {
			cap = j->cap ? 2 * j->cap : SERVE_GEN_CHUNK;
			if (cap > j->max + 1)
				cap = j->max + 1;
			grown = realloc(j->buf, cap);
			if (!grown) {
				serve_gen_reap(j, true);
				return SERVE_GEN_NOT_STARTED;
			}
			j->buf = grown;
			j->cap = cap;
		}
		n = read(j->out, j->buf + j->len, j->cap - j->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? SERVE_GEN_RUNNING :
			       serve_gen_reap(j, true);
		if (n == 0)
			return serve_gen_reap(j, false);
		j->len += n;
		if (j->len > j->max) {
			serve_gen_reap(j, true);
			return SERVE_GEN_TOO_LARGE;
		}
	}
}

/* Past its budget at @now: killed and reaped. */
enum serve_gen_end serve_gen_expire(struct serve_gen_job *j, long long now)
{
	if (!j->pid || now < j->deadline)
		return SERVE_GEN_RUNNING;
	serve_gen_reap(j, true);
	return SERVE_GEN_OVER_TIME;
}

/* The service ends: no child outlives it. */
void serve_gen_stop(struct serve_gen_job *j)
{
	if (j->pid)
		serve_gen_reap(j, true);
}

void serve_gen_free(struct serve_gen_job *j)
{
	serve_gen_stop(j);
	free(j->buf);
	j->buf = NULL;
	j->len = j->cap = 0;
}

const char *serve_gen_end_str(enum serve_gen_end end)
{
	switch (end) {
	case SERVE_GEN_RUNNING:
		return "running";
	case SERVE_GEN_DONE:
		return "done";
	case SERVE_GEN_FAILED:
		return "failed";
	case SERVE_GEN_KILLED:
		return "killed";
	case SERVE_GEN_OVER_TIME:
		return "over its time";
	case SERVE_GEN_TOO_LARGE:
		return "wrote too much";
	case SERVE_GEN_NOT_STARTED:
		return "not started";
	}
	return "?";
}
