// SPDX-License-Identifier: GPL-2.0
/*
 * mremaptext: run an SFrame library's code after mremap() moved its text.
 *
 * usage: mremaptext SECONDS LIBRARY
 *
 * dlopens LIBRARY (libmremaptext.so: position-independent code with
 * .sframe and no frame pointers), waits for the unwinder to have seen it,
 * then moves its executable mapping with mremap(MREMAP_MAYMOVE |
 * MREMAP_FIXED) into a range reserved with mmap(PROT_NONE).  The file
 * mapping keeps its file and offset: only a walker that learnt of the move
 * finds the library's SFrame rules at the new address.  After a second
 * wait, for that walker to rescan the new range, run_moved calls mt_enter
 * at the new address for SECONDS: mt_enter, MOVED_DEPTH frames of
 * mt_recurse, then the spin loop mt_spin.  perf knows nothing of the new
 * mapping (mremap reports no mmap event), so the program prints where each
 * function now lies, with the old and new text and the chain a walker
 * must find from the leaf:
 *   old START END
 *   new START END
 *   fn NAME START END          (mt_spin, mt_recurse, mt_enter)
 *   expect: mt_spin mt_recurse*MOVED_DEPTH mt_enter run_moved main
 * It leaves by _exit(): the library's destructors were in the old text.
 *
 * build: -fno-omit-frame-pointer -Wa,--gsframe (its own frames have
 * both), -fno-inline -fno-ipa-cp-clone -fno-ipa-sra
 * -fno-optimize-sibling-calls
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include "textmap.h"
#include "workload.h"

/* mt_recurse frames between mt_enter and mt_spin */
#define MOVED_DEPTH	8
/* generator steps of one mt_spin call: about a millisecond natively */
#define SPIN_LOOPS	1000000
/* long enough for the module's worker to read the library's .sframe */
#define SEEN_US		1000000

typedef unsigned long (*mt_enter_fn)(unsigned int depth, unsigned long loops);

/* The library's functions the chain goes through, leaf first. */
enum { MOVED_SPIN, MOVED_RECURSE, MOVED_ENTER, NR_MOVED };

struct moved_fn {
	const char *name;
	uintptr_t start;		/* where dlopen put it */
	size_t size;
};

static double deadline;
static uint64_t calls;
static unsigned long sink;

static void run_moved(mt_enter_fn enter)
{
	while (now() < deadline) {
		sink += enter(MOVED_DEPTH, SPIN_LOOPS);
		calls++;
	}
}

static void die(const char *what)
{
	perror(what);
	_exit(2);
}

/* fn's address and size in lib (its dynamic symbol); 0 if it has none. */
static int find_moved(void *lib, struct moved_fn *fn)
{
	const Elf64_Sym *sym;
	Dl_info info;
	void *addr = dlsym(lib, fn->name);

	if (!addr || !dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym)
		return 0;
	fn->start = (uintptr_t)addr;
	fn->size = sym->st_size;
	return 1;
}

/* Where fn lies once the text at old has moved to moved. */
static uintptr_t moved_to(const struct moved_fn *fn, uintptr_t old, uintptr_t moved)
{
	return moved + (fn->start - old);
}

/* What the host check needs: both texts, the moved functions, the chain. */
static void print_layout(uintptr_t old, uintptr_t moved, size_t len,
			 const struct moved_fn *fns)
{
	uintptr_t at;
	int i;

	printf("old %#" PRIxPTR " %#" PRIxPTR "\n", old, old + len);
	printf("new %#" PRIxPTR " %#" PRIxPTR "\n", moved, moved + len);
	for (i = 0; i < NR_MOVED; i++) {
		at = moved_to(&fns[i], old, moved);
		printf("fn %s %#" PRIxPTR " %#" PRIxPTR "\n", fns[i].name, at,
		       at + fns[i].size);
	}
	printf("expect: %s %s*%d %s run_moved main\n", fns[MOVED_SPIN].name,
	       fns[MOVED_RECURSE].name, MOVED_DEPTH, fns[MOVED_ENTER].name);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct moved_fn fns[NR_MOVED] = {
		[MOVED_SPIN] = { .name = "mt_spin" },
		[MOVED_RECURSE] = { .name = "mt_recurse" },
		[MOVED_ENTER] = { .name = "mt_enter" },
	};
	uintptr_t start, end;
	void *lib, *moved;
	size_t len;
	int i;

	if (argc != 3) {
		fprintf(stderr, "usage: mremaptext SECONDS LIBRARY\n");
		return 2;
	}
	lib = dlopen(argv[2], RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "mremaptext: %s\n", dlerror());
		return 2;
	}
	for (i = 0; i < NR_MOVED; i++) {
		if (!find_moved(lib, &fns[i])) {
			fprintf(stderr, "mremaptext: no %s in %s\n", fns[i].name, argv[2]);
			return 2;
		}
	}
	if (!text_of(fns[MOVED_SPIN].start, &start, &end)) {
		fprintf(stderr, "mremaptext: %s's text is not mapped executable\n", argv[2]);
		return 2;
	}
	for (i = 0; i < NR_MOVED; i++) {
		if (fns[i].start < start || fns[i].start + fns[i].size > end) {
			fprintf(stderr, "mremaptext: %s is not in the text at %#" PRIxPTR "\n",
				fns[i].name, start);
			return 2;
		}
	}
	len = end - start;
	usleep(SEEN_US);

	moved = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (moved == MAP_FAILED)
		die("mmap");
	if (mremap((void *)start, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, moved) != moved)
		die("mremap");
	print_layout(start, (uintptr_t)moved, len, fns);
	usleep(SEEN_US);

	deadline = now() + atof(argv[1]);
	run_moved((mt_enter_fn)moved_to(&fns[MOVED_ENTER], start, (uintptr_t)moved));
	printf("done %" PRIu64 " calls\n", calls);
	fflush(stdout);
	_exit(0);
}
