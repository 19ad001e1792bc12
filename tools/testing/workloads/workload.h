/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the workloads with known stacks share: a clock to spin against, a
 * local array kept on the stack (so that each function has a frame size
 * of its own) and one unbuffered line of output.  Built with -fno-inline
 * (FRAME_CFLAGS), each stays a call of its own.
 */
#ifndef WORKLOAD_H
#define WORKLOAD_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline void keep_on_stack(char *pad)
{
	asm volatile("" : : "r" (pad) : "memory");
}

/* One unbuffered line: a stdio buffer would be copied into every child. */
static inline void say(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0 && write(STDOUT_FILENO, line, n) != n)
		exit(3);
}

#endif /* WORKLOAD_H */
