// SPDX-License-Identifier: GPL-2.0
/*
 * jitreuse: run JIT code where an SFrame library's text was.
 *
 * usage: jitreuse munmap|mprotect SECONDS LIBRARY
 *
 * dlopens LIBRARY (an SFrame build of libdeepso.so), waits for the
 * unwinder to have seen it, then takes its text away: munmap, or
 * mprotect(PROT_NONE) with no munmap.  Over the same addresses it maps
 * anonymous memory PROT_READ|PROT_WRITE|PROT_EXEC with MAP_FIXED and
 * writes a function there, at the address so_entry had: a frame-pointer
 * prologue and a counting loop.  jit_caller_a, _b, _c call it for
 * SECONDS.  It prints the old text's range, the JIT function's range and
 * the chain a walker must find from it:
 *   old START END
 *   jit START END
 *   expect: <jit> jit_caller_c jit_caller_b jit_caller_a main
 * It leaves by _exit(): the library's destructors are gone with its text.
 *
 * build: -fno-omit-frame-pointer (the JIT code's callers are walked by
 * frame pointers from its frame) -Wa,--gsframe, -fno-inline
 * -fno-ipa-cp-clone -fno-ipa-sra -fno-optimize-sibling-calls
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include "textmap.h"
#include "workload.h"

#define JIT_LOOPS	1000000
/* long enough for the module's worker to read the library's .sframe */
#define SEEN_US		1000000


/*
 * push %rbp; mov %rsp,%rbp; 1: dec %rdi; jnz 1b; pop %rbp; ret
 * Nearly every sample lands in the loop, where %rbp is this frame's.
 */
static const unsigned char jit_code[] = {
	0x55, 0x48, 0x89, 0xe5, 0x48, 0xff, 0xcf, 0x75, 0xfb, 0x5d, 0xc3,
};

typedef void (*jit_fn)(uint64_t loops);

static double deadline;
static uint64_t calls;

static void jit_caller_c(jit_fn fn)
{
	while (now() < deadline) {
		fn(JIT_LOOPS);
		calls++;
	}
}

static void jit_caller_b(jit_fn fn)
{
	char pad[40];

	keep_on_stack(pad);
	jit_caller_c(fn);
	keep_on_stack(pad);
}

static void jit_caller_a(jit_fn fn)
{
	char pad[24];

	keep_on_stack(pad);
	jit_caller_b(fn);
	keep_on_stack(pad);
}

/* What the host check needs: the old text, the JIT code, the chain. */
static void print_layout(uintptr_t start, uintptr_t end, uintptr_t entry)
{
	printf("old %#" PRIxPTR " %#" PRIxPTR "\n", start, end);
	printf("jit %#" PRIxPTR " %#" PRIxPTR "\n", entry, entry + sizeof(jit_code));
	printf("expect: <jit> jit_caller_c jit_caller_b jit_caller_a main\n");
	fflush(stdout);
}

static void die(const char *what)
{
	perror(what);
	_exit(2);
}

int main(int argc, char **argv)
{
	uintptr_t start, end, entry;
	void *lib, *mem;

	if (argc != 4 || (strcmp(argv[1], "munmap") && strcmp(argv[1], "mprotect"))) {
		fprintf(stderr, "usage: jitreuse munmap|mprotect SECONDS LIBRARY\n");
		return 2;
	}
	lib = dlopen(argv[3], RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "jitreuse: %s\n", dlerror());
		return 2;
	}
	entry = (uintptr_t)dlsym(lib, "so_entry");
	if (!entry || !text_of(entry, &start, &end)) {
		fprintf(stderr, "jitreuse: no executable so_entry in %s\n", argv[3]);
		return 2;
	}
	usleep(SEEN_US);

	if (!strcmp(argv[1], "munmap") ? munmap((void *)start, end - start) :
	    mprotect((void *)start, end - start, PROT_NONE))
		die(argv[1]);
	mem = mmap((void *)start, end - start, PROT_READ | PROT_WRITE | PROT_EXEC,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (mem != (void *)start)
		die("mmap");
	memcpy((void *)entry, jit_code, sizeof(jit_code));
	print_layout(start, end, entry);
	deadline = now() + atof(argv[2]);
	jit_caller_a((jit_fn)entry);
	printf("done %" PRIu64 " calls\n", calls);
	fflush(stdout);
	_exit(0);
}
