// SPDX-License-Identifier: GPL-2.0
/*
 * libmixfp.so: frame pointers and no unwind tables at all (no .eh_frame,
 * no .sframe), as a JIT or an old build leaves code.
 */
#include <time.h>

#include "mixwalk.h"

static double fplib_deadline;
static unsigned long fplib_sink;

void fplib_set_deadline(double deadline)
{
	fplib_deadline = deadline;
}

unsigned long fplib_a(const struct hop *h)
{
	char pad[16];

	pad[1] = 3;
	keep_frame(pad);
	return HOP_ON(h, pad[1]);
}

unsigned long fplib_b(const struct hop *h)
{
	char pad[56];

	pad[2] = 4;
	keep_frame(pad);
	return HOP_ON(h, pad[2]);
}

static double fplib_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A leaf the samples interrupt, with its own loop: no call out of it. */
unsigned long fplib_spin(const struct hop *h)
{
	unsigned long x = (unsigned long)h;

	SPIN_UNTIL(fplib_now, fplib_deadline, x);
	fplib_sink = x;
	return x;
}
