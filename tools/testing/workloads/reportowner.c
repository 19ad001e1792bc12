// SPDX-License-Identifier: GPL-2.0
/*
 * reportowner UID FILE MAPPER [ARGS...]: whom the module charges a report
 * to when UID maps FILE, which the module read before and which needs a
 * sidecar.  As root, watch /dev/sframe_unwind (SFRAME_IOC_WATCH); then a
 * child becomes UID and runs MAPPER, which must map FILE executable and
 * keep it (execmap hold FILE), until the report is read.  MAPPER "-": the
 * child maps FILE itself, without exec, in the mm it was forked with from
 * root (a daemon that gives up root).  The module reports the file from
 * its rescan of the mappings, in its own worker.  MAPPER "sweep": no
 * child; a process of UID's maps FILE already, and the report comes from
 * the watcher's sweep of what is mapped (SFRAME_IOC_REPORT_MAPPED).
 * Prints "owner N" and
 * exits 0 when N is UID, 1 when it is another; 2 on any other failure (no
 * report for FILE within 10 s).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sframe/ioctl.h>

#define REPORT_WAIT_MS	10000

/* As @uid, map @file executable and keep it, in this process. */
static int map_and_hold(const char *file)
{
	int fd = open(file, O_RDONLY);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) ||
	    mmap(NULL, st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd,
		 0) == MAP_FAILED) {
		perror(file);
		return 2;
	}
	for (;;)
		pause();
}

/* As @uid, run @argv (or map @file, for "-"), charged as @uid's. */
static int run_as(uid_t uid, const char *file, char **argv)
{
	int null = open("/dev/null", O_WRONLY);

	if (null < 0 || dup2(null, 1) < 0 || setgroups(0, NULL) ||
	    setgid(uid) || setuid(uid)) {
		perror("reportowner: setuid");
		return 2;
	}
	if (!strcmp(argv[0], "-"))
		return map_and_hold(file);
	execv(argv[0], argv);
	perror(argv[0]);
	return 2;
}

/* The owner of the first report for the file @want; -1 if none came. */
static long long report_owner(int watch, const struct stat *want)
{
	struct pollfd p = { .fd = watch, .events = POLLIN };
	struct sframe_event ev;
	struct timespec t0, t;
	struct stat st;
	long ms;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		ms = (t.tv_sec - t0.tv_sec) * 1000 +
		     (t.tv_nsec - t0.tv_nsec) / 1000000;
		if (ms >= REPORT_WAIT_MS || poll(&p, 1, REPORT_WAIT_MS - ms) <= 0)
			return -1;
		if (read(watch, &ev, sizeof(ev)) != sizeof(ev) ||
		    ev.type != SFRAME_EVENT_NEED_SIDECAR || ev.fd < 0)
			continue;
		if (!fstat(ev.fd, &st) && st.st_dev == want->st_dev &&
		    st.st_ino == want->st_ino)
			return ev.owner;
		close(ev.fd);
	}
}

int main(int argc, char **argv)
{
	long long owner;
	struct stat st;
	int dev, watch;
	uid_t uid;
	pid_t pid;

	if (argc < 4) {
		fprintf(stderr, "usage: reportowner UID FILE MAPPER [ARGS...]\n");
		return 2;
	}
	uid = strtoul(argv[1], NULL, 10);
	dev = open("/dev/sframe_unwind", O_RDWR | O_CLOEXEC);
	watch = dev < 0 ? -1 : ioctl(dev, SFRAME_IOC_WATCH);
	if (watch < 0 || stat(argv[2], &st)) {
		perror("reportowner");
		return 2;
	}
	if (!strcmp(argv[3], "sweep")) {
		if (ioctl(watch, SFRAME_IOC_REPORT_MAPPED, 0) < 0) {
			perror("reportowner: SFRAME_IOC_REPORT_MAPPED");
			return 2;
		}
		owner = report_owner(watch, &st);
	} else {
		pid = fork();
		if (pid < 0)
			return 2;
		if (!pid)
			return run_as(uid, argv[2], argv + 3);
		owner = report_owner(watch, &st);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	if (owner < 0) {
		fprintf(stderr, "reportowner: no report for %s\n", argv[2]);
		return 2;
	}
	printf("owner %lld\n", owner);
	return owner == uid ? 0 : 1;
}
