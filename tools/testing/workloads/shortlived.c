// SPDX-License-Identifier: GPL-2.0
/*
 * shortlived: processes that live a few milliseconds and spend them in a
 * library they have just mapped, as a server that forks a process per
 * connection which loads a module.
 *
 * usage: shortlived CHILDREN MS LIB
 *
 * The parent first maps LIB itself, runs it for MS milliseconds and
 * unmaps it, so that the module knows the file; then it runs CHILDREN
 * children one after the other.  Even ones are forked (no exec), odd ones
 * exec this program again; each maps LIB with dlopen() and at once
 * descends lib_a, lib_b and spins in lib_leaf for MS milliseconds, then
 * exits.  First it prints, for the stack checker, one line per role:
 *   expect forked: lib_leaf lib_b lib_a child_main run_children main
 *   expect execed: lib_leaf lib_b lib_a child_main main
 * and every child prints "pid PID ROLE" when it starts.
 *
 * build: as forkdeep (every function a real frame, under its own name),
 * LIB from shortlivedlib.c
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "workload.h"

typedef unsigned long (*lib_fn)(unsigned long ms);

/* Map @lib, run it for @ms, return its handle. */
static void *child_main(const char *lib, unsigned long ms)
{
	void *handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	lib_fn lib_a;

	if (!handle) {
		fprintf(stderr, "shortlived: %s\n", dlerror());
		exit(2);
	}
	lib_a = (lib_fn)dlsym(handle, "lib_a");
	if (!lib_a) {
		fprintf(stderr, "shortlived: %s: no lib_a\n", lib);
		exit(2);
	}
	if (!lib_a(ms))
		exit(4);
	return handle;
}

/* Each odd child execs this program again. */
static const char *self = "/proc/self/exe";

static void run_children(int children, const char *ms, const char *lib)
{
	int status;

	for (int i = 0; i < children; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("shortlived: fork");
			exit(2);
		}
		if (pid == 0 && i % 2) {
			execl(self, self, "exec", ms, lib, (char *)NULL);
			perror("shortlived: exec");
			_exit(2);
		}
		if (pid == 0) {
			say("pid %d forked\n", (int)getpid());
			child_main(lib, strtoul(ms, NULL, 10));
			exit(0);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			exit(2);
	}
}

static void print_expected(void)
{
	say("expect forked: lib_leaf lib_b lib_a child_main run_children main\n");
	say("expect execed: lib_leaf lib_b lib_a child_main main\n");
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "exec")) {
		say("pid %d execed\n", (int)getpid());
		child_main(argv[3], strtoul(argv[2], NULL, 10));
		return 0;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: shortlived CHILDREN MS LIB\n");
		return 2;
	}
	print_expected();
	dlclose(child_main(argv[3], strtoul(argv[2], NULL, 10)));
	run_children(atoi(argv[1]), argv[2], argv[3]);
	say("done\n");
	return 0;
}
