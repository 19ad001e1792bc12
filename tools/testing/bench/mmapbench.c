// SPDX-License-Identifier: GPL-2.0
/*
 * mmapbench: the time it takes to map an object, in a loop.
 *
 *   mmapbench exec N PROGRAM     fork and exec PROGRAM N times, one at a time
 *   mmapbench dlopen N LIBRARY   dlopen(RTLD_NOW) and dlclose LIBRARY N times
 *   mmapbench forkdl N LIBRARY   fork N children one at a time, each of
 *                                which dlopens LIBRARY and exits (a server
 *                                that forks a process per connection)
 *
 * Prints "MODE_us: MEAN" (microseconds per operation, CLOCK_MONOTONIC).
 * One untimed operation comes first, so that whatever is done once per
 * file (page cache, a cached SFrame section) is not in the mean.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/*
 * Fork a child that runs @child on @target, which exits the child, and
 * wait for it: 0 if it exited with 0.
 */
static int in_child(void (*child)(const char *target), const char *target)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0) {
		perror("fork");
		return -1;
	}
	if (!pid)
		child(target);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "mmapbench: %s failed\n", target);
		return -1;
	}
	return 0;
}

static void exec_child(const char *program)
{
	execl(program, program, (char *)NULL);
	perror(program);
	_exit(127);
}

static void forkdl_child(const char *library)
{
	if (!dlopen(library, RTLD_NOW | RTLD_LOCAL)) {
		fprintf(stderr, "mmapbench: %s\n", dlerror());
		_exit(127);
	}
	_exit(0);
}

static int exec_once(const char *program)
{
	return in_child(exec_child, program);
}

static int forkdl_once(const char *library)
{
	return in_child(forkdl_child, library);
}

static int dlopen_once(const char *library)
{
	void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);

	if (!handle) {
		fprintf(stderr, "mmapbench: %s\n", dlerror());
		return -1;
	}
	if (dlclose(handle)) {
		fprintf(stderr, "mmapbench: %s\n", dlerror());
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int (*once)(const char *target);
	double start;
	long n, i;

	if (argc != 4)
		goto usage;
	if (!strcmp(argv[1], "exec"))
		once = exec_once;
	else if (!strcmp(argv[1], "dlopen"))
		once = dlopen_once;
	else if (!strcmp(argv[1], "forkdl"))
		once = forkdl_once;
	else
		goto usage;
	n = atol(argv[2]);
	if (n <= 0)
		goto usage;

	if (once(argv[3]))
		return 1;
	start = now_us();
	for (i = 0; i < n; i++)
		if (once(argv[3]))
			return 1;
	printf("%s_us: %.1f\n", argv[1], (now_us() - start) / n);
	return 0;

usage:
	fprintf(stderr, "usage: mmapbench exec|dlopen|forkdl N PROGRAM|LIBRARY\n");
	return 2;
}
