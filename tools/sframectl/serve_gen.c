// SPDX-License-Identifier: GPL-2.0
/*
 * One generator job of sframectl serve: a child that executes the program
 * afresh (so it inherits no byte of the parent's memory), receives its
 * input as a descriptor, is confined (sandbox.c) before it touches it,
 * and writes its result to a pipe (serve_gen_translate(): a sidecar
 * file).  The parent bounds the child's wall-clock time and the bytes it
 * takes back, and reaps it however it ends; what the bytes are worth is
 * for the caller to check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
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
 * A job that has no child: why (@what, and @err's string unless 0), kept
 * as a child's words would be, for serve_gen_why().  SERVE_GEN_NOT_STARTED.
 */
enum serve_gen_end serve_gen_not_started(struct serve_gen_job *j,
					 const char *what, int err)
{
	char why[SFRAME_MSG_MAX];
	int len;

	len = snprintf(why, sizeof(why), "%s%s%s", what, err ? ": " : "",
		       err ? strerror(err) : "");
	free(j->buf);
	j->buf = len > 0 ? (unsigned char *)strdup(why) : NULL;
	j->len = j->cap = j->buf ? (size_t)len : 0;
	return SERVE_GEN_NOT_STARTED;
}

/*
 * In the forked child, before anything else: input on descriptor 0, the
 * result pipe @out on 1, stderr kept, every other descriptor closed, no
 * signal blocked; then this program again, as a generator child.
 */
static _Noreturn void serve_gen_exec(int input, int out, char *argv[])
{
	int in = -1;
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* Both above 2 first: neither may be where the other goes. */
	out = fcntl(out, F_DUPFD, 3);
	if (input >= 0)
		in = fcntl(input, F_DUPFD, 3);
	if (out < 0 || dup2(out, 1) < 0)
		_exit(EXIT_USAGE);
	if (input >= 0 && (in < 0 || dup2(in, 0) < 0))
		serve_gen_refuse(1, "cannot pass the input", errno);
	if (input < 0)
		close(0);
	if (syscall(__NR_close_range, 3, ~0U, 0)) {
		long fd, max = sysconf(_SC_OPEN_MAX);

		/* Before Linux 5.9: one by one. */
		for (fd = 3; fd < (max > 0 ? max : 1024); fd++)
			close(fd);
	}
	execv("/proc/self/exe", argv);
	serve_gen_refuse(1, "cannot execute /proc/self/exe", errno);
}

/*
 * Run this program again as a generator child in its sandbox, in mode
 * @args[0] with the words after it, reading @input (a descriptor, or -1),
 * for at most @wall_ms milliseconds, taking back at most @max bytes.
 * @lim bounds its CPU time and the address space it may add to what it
 * holds when it enters the sandbox (its program and its input).  The
 * caller may close @input once this returns, polls j->out and calls
 * serve_gen_read() when it is readable, and serve_gen_expire() when
 * j->deadline has passed.
 */
enum serve_gen_end serve_gen_start(struct serve_gen_job *j,
				   const struct sandbox_limits *lim,
				   unsigned int wall_ms, size_t max, int input,
				   const char *const args[])
{
	char cpu[24], space[24], *argv[SERVE_GEN_ARGS_MAX + 5];
	unsigned int i;
	int p[2];

	*j = (struct serve_gen_job){ .out = -1, .max = max };
	snprintf(cpu, sizeof(cpu), "%llu", (unsigned long long)lim->cpu_seconds);
	snprintf(space, sizeof(space), "%llu",
		 (unsigned long long)lim->address_space);
	argv[0] = "sframectl";
	argv[1] = SERVE_GEN_CHILD_ARG;
	argv[2] = cpu;
	argv[3] = space;
	for (i = 0; args[i]; i++) {
		if (i == SERVE_GEN_ARGS_MAX)
			return serve_gen_not_started(j, "too many words", 0);
		argv[4 + i] = (char *)args[i];
	}
	argv[4 + i] = NULL;
	/* An ignored SIGCHLD (inherited) would have the kernel reap it. */
	if (signal(SIGCHLD, SIG_DFL) == SIG_ERR || pipe2(p, O_CLOEXEC))
		return serve_gen_not_started(j, "pipe", errno);
	j->pid = fork();
	if (j->pid == 0)
		serve_gen_exec(input, p[1], argv);
	close(p[1]);
	if (j->pid < 0) {
		j->pid = 0;
		close(p[0]);
		return serve_gen_not_started(j, "fork", errno);
	}
	j->out = p[0];
	fcntl(j->out, F_SETFL, O_NONBLOCK);
	j->start = serve_gen_now();
	j->wall_ms = wall_ms;
	j->cpu_ms_max = lim->cpu_seconds * 1000LL;
	j->deadline = j->start + wall_ms;
	return SERVE_GEN_RUNNING;
}

/*
 * Start translating @input (a descriptor of @input_size bytes; @fill:
 * gen --fill) in a child with a translation's budgets; its result is the
 * sidecar file gen -o writes, or why there is none.
 */
enum serve_gen_end serve_gen_start_translate(struct serve_gen_job *j,
					     int input, size_t input_size,
					     bool fill)
{
	struct sandbox_limits lim = {
		.cpu_seconds = SERVE_GEN_CPU_SECONDS,
		.address_space = SERVE_GEN_MEMORY + SERVE_GEN_MEMORY_PER_BYTE *
				 (unsigned long long)input_size,
	};
	const char *args[3];

	args[0] = "translate";
	args[1] = fill ? "fill" : "whole";
	args[2] = NULL;
	return serve_gen_start(j, &lim, SERVE_GEN_WALL_MS, SERVE_GEN_OUT_MAX,
			       input, args);
}

/*
 * Kill the child if it still runs and reap it; what its status says.  A
 * kill that RLIMIT_CPU made (SIGKILL at its hard limit, SIGXCPU at the
 * soft one), with the CPU time to show for it, is its running out of
 * time, not a kill from outside (the OOM killer's).
 */
static enum serve_gen_end serve_gen_reap(struct serve_gen_job *j, bool kill_it)
{
	struct rusage ru;
	long long cpu_ms;
	pid_t got;
	int status;

	if (kill_it)
		kill(j->pid, SIGKILL);
	do
		got = wait4(j->pid, &status, 0, &ru);
	while (got < 0 && errno == EINTR);
	j->pid = 0;
	close(j->out);
	j->out = -1;
	if (got < 0)
		return SERVE_GEN_NOT_STARTED;	/* reaped by someone else */
	if (WIFSIGNALED(status)) {
		j->signal = WTERMSIG(status);
		cpu_ms = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000LL +
			 (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
		if ((j->signal == SIGKILL || j->signal == SIGXCPU) &&
		    cpu_ms * 10 >= j->cpu_ms_max * 9)
			return SERVE_GEN_OVER_TIME;
		return SERVE_GEN_KILLED;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_USAGE)
		return SERVE_GEN_NOT_STARTED;
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

/* Wait for the job @j, started as @end, to end; how it did. */
enum serve_gen_end serve_gen_wait(struct serve_gen_job *j,
				  enum serve_gen_end end)
{
	struct pollfd p;
	long long left;

	while (end == SERVE_GEN_RUNNING) {
		left = j->deadline - serve_gen_now();
		p = (struct pollfd){ .fd = j->out, .events = POLLIN };
		if (poll(&p, 1, left > 0 ? (int)left : 0) > 0)
			end = serve_gen_read(j);
		if (end == SERVE_GEN_RUNNING)
			end = serve_gen_expire(j, serve_gen_now());
	}
	return end;
}

/*
 * The CPU time, in milliseconds, the child @pid has had (utime and stime,
 * fields 14 and 15 of /proc/PID/stat); -1 if unknown.
 */
static long long serve_gen_cpu_ms(pid_t pid)
{
	unsigned long long utime, stime;
	char path[64], line[1024], *p;
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	p = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
	fclose(f);
	for (i = 2; p && i < 14; i++)	/* past its name, to field 14 */
		p = strchr(p + 1, ' ');
	if (!p || hz <= 0 || sscanf(p, "%llu %llu", &utime, &stime) != 2)
		return -1;
	return (long long)((utime + stime) * 1000 / hz);
}

/*
 * Past its budget at @now: killed and reaped.  What spends the budget is
 * the CPU time the child gets, not the time it waits for a CPU on a
 * loaded machine: at its deadline, a child that had less is given until
 * it could have had it all, up to SERVE_GEN_WALL_STARVED times its budget
 * in all.  One still short of its budget then was starved, which says
 * nothing of its input: SERVE_GEN_STARVED, not SERVE_GEN_OVER_TIME.
 */
enum serve_gen_end serve_gen_expire(struct serve_gen_job *j, long long now)
{
	long long last = j->start + SERVE_GEN_WALL_STARVED * (long long)j->wall_ms;
	long long cpu;

	if (!j->pid || now < j->deadline)
		return SERVE_GEN_RUNNING;
	cpu = serve_gen_cpu_ms(j->pid);
	if (cpu >= 0 && cpu < j->wall_ms && now < last) {
		j->deadline = now + (j->wall_ms - cpu);
		if (j->deadline > last)
			j->deadline = last;
		return SERVE_GEN_RUNNING;
	}
	serve_gen_reap(j, true);
	return cpu >= 0 && cpu < j->wall_ms ? SERVE_GEN_STARVED :
					      SERVE_GEN_OVER_TIME;
}

/*
 * Why a child failed, as it wrote it, made fit for one log line (no
 * control character, no newline, at most SFRAME_MSG_MAX bytes): in @why,
 * which has @size bytes.
 */
const char *serve_gen_why(struct serve_gen_job *j, char *why, size_t size)
{
	size_t i, n = j->len < size - 1 ? j->len : size - 1;

	for (i = 0; i < n; i++)
		why[i] = j->buf[i] < 0x20 || j->buf[i] >= 0x7f ? '?' :
							     j->buf[i];
	why[i] = '\0';
	return n ? why : "it gave no reason";
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
	case SERVE_GEN_STARVED:
		return "starved of CPU time";
	case SERVE_GEN_TOO_LARGE:
		return "wrote too much";
	case SERVE_GEN_NOT_STARTED:
		return "not started";
	}
	return "?";
}
