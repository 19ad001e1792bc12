// SPDX-License-Identifier: GPL-2.0
/*
 * forkdeep: processes forked without exec, at depth, with known stacks.
 *
 * usage: forkdeep WORKERS SECONDS [GO_FILE]
 *
 * main descends spawn_a, spawn_b, spawn_c; there (after GO_FILE exists,
 * if given, so that the process can be started before the module loads
 * and fork after) it forks WORKERS workers, none of which execs.  Each
 * worker descends work_a, work_b and spins in leaf_spin for SECONDS; the
 * first worker also forks a grandchild from work_b, which descends
 * grand_a, grand_b and spins in leaf_spin too.  The parent only waits.
 * First it prints, for the stack checker, one line per role:
 *   expect worker: leaf_spin work_b work_a worker_main spawn_c ... main
 *   expect grandchild: leaf_spin grand_b grand_a work_b ... main
 * and every process prints "pid PID ROLE" when it starts.  With
 * FORKDEEP_THREAD set in the environment, the parent starts a second
 * thread, which only sleeps, before it forks: a threaded parent's
 * children (the module rescans them rather than inherit its map).
 *
 * build: -fno-inline -fno-ipa-cp-clone -fno-ipa-sra
 * -fno-optimize-sibling-calls (every function a real frame, under its
 * own name), -fomit-frame-pointer -Wa,--gsframe or -fno-omit-frame-pointer
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "workload.h"

#define GO_POLL_US	10000


static uint64_t sink;
static double deadline;
static double seconds;

static uint64_t leaf_spin(uint64_t x)
{
	while (now() < deadline)
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
	return x;
}

static pid_t start(const char *role)
{
	pid_t pid = fork();

	if (pid < 0) {
		perror("forkdeep: fork");
		exit(2);
	}
	if (pid == 0) {
		say("pid %d %s\n", (int)getpid(), role);
		deadline = now() + seconds;
	}
	return pid;
}

static void wait_all(void)
{
	int status;

	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			exit(2);
}

static uint64_t grand_b(uint64_t x)
{
	char pad[40];

	pad[0] = x;
	keep_on_stack(pad);
	return leaf_spin(x + pad[0]) + 1;
}

static uint64_t grand_a(uint64_t x)
{
	char pad[24];

	pad[0] = x;
	keep_on_stack(pad);
	return grand_b(x ^ pad[0]) + 2;
}

static uint64_t work_b(uint64_t x, int first)
{
	char pad[56];

	pad[0] = x;
	keep_on_stack(pad);
	if (first && start("grandchild") == 0) {
		sink += grand_a(x + pad[0]);
		exit(0);
	}
	x = leaf_spin(x + pad[0]) + 3;
	if (first)
		wait_all();
	return x;
}

static uint64_t work_a(uint64_t x, int first)
{
	char pad[16];

	pad[0] = x;
	keep_on_stack(pad);
	return work_b(x - pad[0], first) * 5;
}

static uint64_t worker_main(uint64_t x, int first)
{
	char pad[88];

	pad[0] = x;
	keep_on_stack(pad);
	return work_a(x | pad[0], first) + 7;
}

/* The parent's second thread, with FORKDEEP_THREAD: it only sleeps. */
static void *sleeper(void *arg)
{
	for (;;)
		pause();
	return arg;
}

static void spawn_c(int workers, const char *go_file)
{
	pthread_t thread;
	char pad[32];
	struct stat st;

	pad[0] = workers;
	keep_on_stack(pad);
	while (go_file && stat(go_file, &st))
		usleep(GO_POLL_US);
	if (getenv("FORKDEEP_THREAD") &&
	    pthread_create(&thread, NULL, sleeper, NULL))
		exit(3);
	for (int i = 0; i < workers; i++)
		if (start("worker") == 0) {
			sink += worker_main(i + pad[0], i == 0);
			exit(0);
		}
	wait_all();
}

static void spawn_b(int workers, const char *go_file)
{
	char pad[48];

	pad[0] = workers;
	keep_on_stack(pad);
	spawn_c(workers, go_file);
}

static void spawn_a(int workers, const char *go_file)
{
	char pad[8];

	pad[0] = workers;
	keep_on_stack(pad);
	spawn_b(workers, go_file);
}

static void print_expected(void)
{
	say("expect worker: leaf_spin work_b work_a worker_main spawn_c spawn_b spawn_a main\n");
	say("expect grandchild: leaf_spin grand_b grand_a work_b work_a worker_main spawn_c spawn_b spawn_a main\n");
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: forkdeep WORKERS SECONDS [GO_FILE]\n");
		return 2;
	}
	seconds = atof(argv[2]);
	say("pid %d parent\n", (int)getpid());
	print_expected();
	spawn_a(atoi(argv[1]), argc == 4 ? argv[3] : NULL);
	say("done\n");
	return 0;
}
