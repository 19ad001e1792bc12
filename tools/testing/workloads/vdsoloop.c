// SPDX-License-Identifier: GPL-2.0
/*
 * A hot path that ends in the vDSO: main -> vdso_outer -> vdso_middle ->
 * vdso_spin, which calls clock_gettime(CLOCK_MONOTONIC) in a loop for the
 * seconds given (default 2), so that most samples land in the vDSO or in
 * the C library's wrapper around it.  Prints the number of calls.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE	__attribute__((noinline))
/* Keep each call a call: no tail call, no merged frames. */
#define KEEP_FRAME()	__asm__ volatile("" ::: "memory")

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

NOINLINE static unsigned long vdso_spin(long long end)
{
	unsigned long calls = 0;

	while (now_ns() < end)
		calls++;
	KEEP_FRAME();
	return calls;
}

NOINLINE static unsigned long vdso_middle(long long end)
{
	unsigned long calls = vdso_spin(end);

	KEEP_FRAME();
	return calls;
}

NOINLINE static unsigned long vdso_outer(long long end)
{
	unsigned long calls = vdso_middle(end);

	KEEP_FRAME();
	return calls;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2.0;
	unsigned long calls = vdso_outer(now_ns() + (long long)(seconds * 1e9));

	printf("calls: %lu\n", calls);
	return 0;
}
