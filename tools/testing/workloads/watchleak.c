// SPDX-License-Identifier: GPL-2.0
/*
 * watchleak UID FILE: leak the sidecar service's report descriptor to
 * another user.  As root, watch /dev/sframe_unwind (SFRAME_IOC_WATCH) and
 * hand the descriptor to a child that becomes UID; map FILE (executable,
 * no SFrame: the module reports it) and let the child read.  Prints what
 * the child got: "refused: <error>" or "got a descriptor for <path>".
 * Exits 0 when the read was refused, 1 when the descriptor leaked, 2 on
 * any other failure.
 */
#define _GNU_SOURCE
#include <errno.h>
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
#include <unistd.h>

#include <sframe/ioctl.h>

static int leaked_read(int watch, uid_t uid)
{
	struct sframe_event ev;
	struct pollfd p = { .fd = watch, .events = POLLIN };
	char link[64], path[256];
	ssize_t n;

	if (setgroups(0, NULL) || setgid(uid) || setuid(uid)) {
		perror("watchleak: setuid");
		return 2;
	}
	if (poll(&p, 1, 10000) <= 0) {
		fprintf(stderr, "watchleak: no report within 10 s\n");
		return 2;
	}
	n = read(watch, &ev, sizeof(ev));
	if (n < 0) {
		printf("refused: %s\n", strerror(errno));
		return 0;
	}
	if (n != sizeof(ev) || ev.fd < 0) {
		fprintf(stderr, "watchleak: read %zd bytes, no descriptor\n", n);
		return 2;
	}
	snprintf(link, sizeof(link), "/proc/self/fd/%d", ev.fd);
	n = readlink(link, path, sizeof(path) - 1);
	path[n > 0 ? n : 0] = '\0';
	printf("got a descriptor for %s\n", path);
	return 1;
}

int main(int argc, char **argv)
{
	int dev, watch, fd, status;
	struct stat st;
	pid_t pid;

	if (argc != 3) {
		fprintf(stderr, "usage: watchleak UID FILE\n");
		return 2;
	}
	dev = open("/dev/sframe_unwind", O_RDWR | O_CLOEXEC);
	watch = dev < 0 ? -1 : ioctl(dev, SFRAME_IOC_WATCH);
	if (watch < 0) {
		perror("watchleak: /dev/sframe_unwind");
		return 2;
	}
	pid = fork();
	if (pid < 0)
		return 2;
	if (!pid)
		return leaked_read(watch, strtoul(argv[1], NULL, 10));
	fd = open(argv[2], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) ||
	    mmap(NULL, st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) ==
	    MAP_FAILED) {
		perror(argv[2]);
		kill(pid, SIGKILL);
		return 2;
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return 2;
	return WEXITSTATUS(status);
}
