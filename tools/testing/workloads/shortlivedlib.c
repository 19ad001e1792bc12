// SPDX-License-Identifier: GPL-2.0
/*
 * The library shortlived's children map and run at once: lib_a -> lib_b
 * -> lib_leaf, which spins for the milliseconds asked.  SFrame only, no
 * frame pointers: a frame of it is unwound by its rules or not at all.
 */
#include <time.h>

#include "workload.h"

static unsigned long lib_leaf(unsigned long ms)
{
	double deadline = now() + ms / 1e3;
	unsigned long x = ms;

	while (now() < deadline)
		for (int i = 0; i < 10000; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x | 1;
}

static unsigned long lib_b(unsigned long ms)
{
	char pad[40];

	pad[0] = ms;
	keep_on_stack(pad);
	return lib_leaf(ms + pad[0] - pad[0]) + 1;
}

unsigned long lib_a(unsigned long ms)
{
	char pad[24];

	pad[0] = ms;
	keep_on_stack(pad);
	return lib_b(ms ^ pad[0] ^ pad[0]) + 2;
}
