// SPDX-License-Identifier: GPL-2.0
/*
 * A static program whose time goes to the C library's IFUNC'd strlen()
 * and memcpy() on short strings, reached through the IPLT stubs at the
 * end of a recursive chain: main -> ifunc_outer -> ifunc_rec x
 * IFUNC_DEPTH -> ifunc_leaf, for the seconds of CPU time given (default
 * 2).  Prints the bytes it counted.  Built static, with its own .sframe
 * and no frame pointers (sframe-plt).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define IFUNC_DEPTH	8
/* Rounds of calls between two looks at the clock. */
#define IFUNC_BATCH	4096

static const char * const words[] = {
	"plt", "iplt", "stub", "memcpy", "strlen", "ifunc", "sframe", "unwind",
};

static unsigned long ifunc_leaf(clock_t end)
{
	unsigned long bytes = 0, i;
	char buf[16];
	size_t len;

	do {
		for (i = 0; i < IFUNC_BATCH; i++) {
			len = strlen(words[i % 8]);
			memcpy(buf, words[(i + 3) % 8], len);
			buf[len] = '\0';
			bytes += strlen(buf);
		}
	} while (clock() < end);
	return bytes;
}

static unsigned long ifunc_rec(int depth, clock_t end)
{
	unsigned long bytes;

	bytes = depth > 1 ? ifunc_rec(depth - 1, end) : ifunc_leaf(end);
	asm volatile("" : "+r" (bytes));
	return bytes;
}

static unsigned long ifunc_outer(clock_t end)
{
	unsigned long bytes = ifunc_rec(IFUNC_DEPTH, end);

	asm volatile("" : "+r" (bytes));
	return bytes;
}

/* The seconds are of the process's CPU time: a loaded guest runs longer. */
int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2;

	printf("bytes: %lu\n",
	       ifunc_outer(clock() + (clock_t)(seconds * CLOCKS_PER_SEC)));
	return 0;
}
