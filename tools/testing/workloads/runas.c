// SPDX-License-Identifier: GPL-2.0
/*
 * runas UID[:GROUP] PROGRAM [ARGS...]: run PROGRAM as user and group UID,
 * with no supplementary group but GROUP and so no capabilities: the
 * guest's busybox has no tool that does this.
 */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	gid_t group;
	char *end;
	uid_t id;

	if (argc < 3) {
		fprintf(stderr, "usage: runas UID[:GROUP] PROGRAM [ARGS...]\n");
		return 2;
	}
	id = (uid_t)strtoul(argv[1], &end, 10);
	group = *end == ':' ? (gid_t)strtoul(end + 1, NULL, 10) : 0;
	if (setgroups(*end == ':', &group) || setgid(id) || setuid(id)) {
		perror("runas");
		return 2;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
