/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The confinement a generator child enters before it touches its input
 * (sandbox.c): the resources it keeps and the system calls it may make.
 */
#ifndef _SFRAMECTL_SANDBOX_H
#define _SFRAMECTL_SANDBOX_H

#include <linux/filter.h>
#include <sys/resource.h>

struct sandbox_limits {
	rlim_t cpu_seconds;		/* RLIMIT_CPU */
	rlim_t address_space;		/* RLIMIT_AS, bytes */
};

int sandbox_enter(int pipe, const struct sandbox_limits *lim);
void sandbox_program(struct sock_fprog *prog, int pipe);

#endif /* _SFRAMECTL_SANDBOX_H */
