// SPDX-License-Identifier: GPL-2.0
/*
 * runas UID PROGRAM [ARGS...]: run PROGRAM as user and group UID, with no
 * supplementary groups and so no capabilities: the guest's busybox has no
 * tool that does this.
 */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t id;

	if (argc < 3) {
		fprintf(stderr, "usage: runas UID PROGRAM [ARGS...]\n");
		return 2;
	}
	id = (uid_t)strtoul(argv[1], NULL, 10);
	if (setgroups(0, NULL) || setgid(id) || setuid(id)) {
		perror("runas");
		return 2;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
