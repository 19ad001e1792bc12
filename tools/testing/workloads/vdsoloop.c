// SPDX-License-Identifier: GPL-2.0
/*
 * A hot path that ends in the vDSO: main -> vdso_outer -> vdso_middle ->
 * vdso_spin, which calls clock_gettime(CLOCK_MONOTONIC) in a loop for the
 * seconds given (default 2), so that most samples land in the vDSO or in
 * the C library's wrapper around it.  Prints the number of calls.  Built
 * with -fno-inline and -fno-optimize-sibling-calls: one frame per function.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static unsigned long vdso_spin(time_t end_sec, long end_nsec)
{
	unsigned long calls = 0;
	struct timespec ts;

	do {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		calls++;
	} while (ts.tv_sec < end_sec ||
		 (ts.tv_sec == end_sec && ts.tv_nsec < end_nsec));
	asm volatile("" : "+r" (calls));
	return calls;
}

static unsigned long vdso_middle(time_t end_sec, long end_nsec)
{
	unsigned long calls = vdso_spin(end_sec, end_nsec);

	asm volatile("" : "+r" (calls));
	return calls;
}

static unsigned long vdso_outer(time_t end_sec, long end_nsec)
{
	unsigned long calls = vdso_middle(end_sec, end_nsec);

	asm volatile("" : "+r" (calls));
	return calls;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? (long)(atof(argv[1]) * 1000) : 2000;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += ms % 1000 * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	printf("calls: %lu\n", vdso_outer(ts.tv_sec, ts.tv_nsec));
	return 0;
}
