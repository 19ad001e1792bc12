// SPDX-License-Identifier: GPL-2.0
/*
 * subuids OWNER FIRST COUNT PROGRAM [ARGS...]: run COUNT copies of PROGRAM,
 * copy i as uid and gid i of a user namespace that user OWNER created and
 * whose ids 0 to COUNT - 1 are FIRST to FIRST + COUNT - 1 outside: the
 * subordinate ids newuidmap gives a user for his containers.  Run as root,
 * which writes the id maps as newuidmap would; waits for the copies.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(2);
}

/* Write "0 @first @count" to /proc/@pid/@map. */
static void write_map(pid_t pid, const char *map, unsigned long first,
		      unsigned long count)
{
	char path[64], line[64];
	int fd, len;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, map);
	len = snprintf(line, sizeof(line), "0 %lu %lu\n", first, count);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, line, len) != len)
		die(path);
	close(fd);
}

/* In the namespace: one copy of @argv per id, then wait for them. */
static int run_copies(unsigned long count, char **argv)
{
	unsigned long i;
	int status, ret = 0;

	for (i = 0; i < count; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (!pid) {
			if (setgroups(0, NULL) || setresgid(i, i, i) ||
			    setresuid(i, i, i))
				die("setresuid in the namespace");
			execvp(argv[0], argv);
			die(argv[0]);
		}
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			ret = 1;
	return ret;
}

int main(int argc, char **argv)
{
	unsigned long owner, first, count;
	int ready[2], go[2], status;
	char c = 0;
	pid_t pid;

	if (argc < 5) {
		fprintf(stderr, "usage: subuids OWNER FIRST COUNT PROGRAM [ARGS...]\n");
		return 2;
	}
	owner = strtoul(argv[1], NULL, 10);
	first = strtoul(argv[2], NULL, 10);
	count = strtoul(argv[3], NULL, 10);
	if (pipe(ready) || pipe(go))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		if (setgroups(0, NULL) || setgid(owner) || setuid(owner))
			die("setuid");
		if (unshare(CLONE_NEWUSER))
			die("unshare(CLONE_NEWUSER)");
		if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			die("handshake");
		return run_copies(count, argv + 4);
	}
	if (read(ready[0], &c, 1) != 1)
		die("handshake");
	write_map(pid, "uid_map", first, count);
	write_map(pid, "gid_map", first, count);
	if (write(go[1], &c, 1) != 1)
		die("handshake");
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
