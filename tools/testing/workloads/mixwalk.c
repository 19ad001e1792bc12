// SPDX-License-Identifier: GPL-2.0
/*
 * mixwalk: a CPU-bound workload whose stacks mix SFrame code with code
 * that only frame pointers describe, for comparing the module's walk with
 * the stock frame-pointer walker (sframe-mixed).  Usage:
 *	mixwalk PATTERN SECONDS
 * Each pattern spins in a leaf below a fixed chain and first prints it,
 * innermost first, as "expect: leaf ... main" ("[unknown]": the JIT
 * frame, which perf cannot name).  Patterns:
 *	sframe	SFrame code only (the control)
 *	nocfi	through two functions without CFI in this SFrame object
 *	jit	through a frame-pointer stub in anonymous executable memory
 *	fplib	through libmixfp.so (opened from the executable's folder):
 *		frame pointers, no unwind tables
 *	mixed	all of them on one stack
 *	nocfileaf, fpleaf  the leaf itself without CFI / in libmixfp.so
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "mixwalk.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

double mixwalk_deadline;
unsigned long sink;

double mixwalk_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The SFrame leaf the samples interrupt, with its own loop. */
static unsigned long mw_spin(const struct hop *h)
{
	unsigned long x = (unsigned long)h;

	SPIN_UNTIL(mixwalk_now, mixwalk_deadline, x);
	sink = x;
	return x;
}

/* SFrame functions, each with a frame of its own size. */
static unsigned long sf_a(const struct hop *h)
{
	char pad[32];

	pad[0] = 5;
	keep_frame(pad);
	return HOP_ON(h, pad[0]);
}

static unsigned long sf_b(const struct hop *h)
{
	char pad[72];

	pad[9] = 6;
	keep_frame(pad);
	return HOP_ON(h, pad[9]);
}

static unsigned long sf_c(const struct hop *h)
{
	char pad[8];

	pad[2] = 7;
	keep_frame(pad);
	return HOP_ON(h, pad[2]);
}

/*
 * The JIT stub: a frame-pointer prologue, then a call of the next hop
 * (h->next->fn(h->next)), as JIT code calls back into its runtime.
 */
#if defined(__x86_64__)
static const unsigned char jit_code[] = {
	0x55,				/* push %rbp */
	0x48, 0x89, 0xe5,		/* mov %rsp,%rbp */
	0x48, 0x8b, 0x7f, 0x08,		/* mov 8(%rdi),%rdi */
	0xff, 0x17,			/* call *(%rdi) */
	0x5d,				/* pop %rbp */
	0xc3,				/* ret */
};
#elif defined(__aarch64__)
static const uint32_t jit_code[] = {
	0xa9bf7bfd,			/* stp x29, x30, [sp, #-16]! */
	0x910003fd,			/* mov x29, sp */
	0xf9400400,			/* ldr x0, [x0, #8] */
	0xf9400001,			/* ldr x1, [x0] */
	0xd63f0020,			/* blr x1 */
	0xa8c17bfd,			/* ldp x29, x30, [sp], #16 */
	0xd65f03c0,			/* ret */
};
#else
#error "mixwalk: no JIT stub for this machine"
#endif

static hop_fn jit_stub(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mixwalk: mmap");
		exit(1);
	}
	memcpy(p, jit_code, sizeof(jit_code));
	__builtin___clear_cache((char *)p, (char *)p + sizeof(jit_code));
	if (mprotect(p, 4096, PROT_READ | PROT_EXEC)) {
		perror("mixwalk: mprotect");
		exit(1);
	}
	return (hop_fn)p;
}

struct pattern {
	const char *name;
	const char *hops[10];		/* outermost first, the leaf last */
};

static const struct pattern patterns[] = {
	{ "sframe", { "sf_a", "sf_b", "sf_c", "mw_spin" } },
	{ "nocfi", { "sf_a", "nocfi_a", "nocfi_b", "sf_c", "mw_spin" } },
	{ "jit", { "sf_a", "[unknown]", "sf_c", "mw_spin" } },
	{ "fplib", { "sf_a", "fplib_a", "fplib_b", "sf_c", "mw_spin" } },
	{ "mixed", { "sf_a", "sf_b", "nocfi_a", "nocfi_b", "[unknown]",
		     "fplib_a", "fplib_b", "sf_c", "mw_spin" } },
	{ "nocfileaf", { "sf_a", "sf_b", "nocfi_a", "nocfi_spin" } },
	{ "fpleaf", { "sf_a", "fplib_a", "fplib_b", "fplib_spin" } },
};

/* libmixfp.so, beside the executable: no DT_NEEDED for a guest to resolve. */
static void *fplib_open(void)
{
	static void *lib;
	char path[PATH_MAX];
	ssize_t n;
	char *slash;

	if (lib)
		return lib;
	n = readlink("/proc/self/exe", path, sizeof(path) - sizeof("libmixfp.so"));
	slash = n > 0 ? memrchr(path, '/', n) : NULL;
	if (!slash) {
		fprintf(stderr, "mixwalk: cannot find its own folder\n");
		exit(1);
	}
	strcpy(slash + 1, "libmixfp.so");
	lib = dlopen(path, RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "mixwalk: %s\n", dlerror());
		exit(1);
	}
	return lib;
}

static void *fplib_sym(const char *name)
{
	void *sym = dlsym(fplib_open(), name);

	if (!sym) {
		fprintf(stderr, "mixwalk: %s\n", dlerror());
		exit(1);
	}
	return sym;
}

static hop_fn hop_by_name(const char *name)
{
	static const struct {
		const char *name;
		hop_fn fn;
	} fns[] = {
		{ "sf_a", sf_a }, { "sf_b", sf_b }, { "sf_c", sf_c },
		{ "mw_spin", mw_spin },
		{ "nocfi_a", nocfi_a }, { "nocfi_b", nocfi_b },
		{ "nocfi_spin", nocfi_spin },
	};
	unsigned int i;

	if (!strcmp(name, "[unknown]"))
		return jit_stub();
	if (!strncmp(name, "fplib_", 6))
		return (hop_fn)fplib_sym(name);
	for (i = 0; i < ARRAY_SIZE(fns); i++)
		if (!strcmp(fns[i].name, name))
			return fns[i].fn;
	return NULL;
}

/* The chain, innermost first, down to the outermost frame, main. */
static void print_expect(const struct hop *hops, unsigned int n)
{
	printf("expect:");
	while (n-- > 0)
		printf(" %s", hops[n].name);
	printf(" main\n");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static struct hop hops[10];
	const struct pattern *p = NULL;
	unsigned int i, n = 0;

	for (i = 0; argc == 3 && i < ARRAY_SIZE(patterns); i++)
		if (!strcmp(argv[1], patterns[i].name))
			p = &patterns[i];
	if (!p) {
		fprintf(stderr, "usage: mixwalk sframe|nocfi|jit|fplib|mixed|nocfileaf|fpleaf SECONDS\n");
		return 2;
	}
	while (n < 10 && p->hops[n]) {
		hops[n].fn = hop_by_name(p->hops[n]);
		hops[n].name = p->hops[n];
		if (n)
			hops[n - 1].next = &hops[n];
		n++;
	}
	print_expect(hops, n);
	mixwalk_deadline = mixwalk_now() + atof(argv[2]);
	((void (*)(double))fplib_sym("fplib_set_deadline"))(mixwalk_deadline);
	sink = hops[0].fn(&hops[0]);
	return 0;
}
