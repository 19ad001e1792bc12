/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mixwalk: one call chain through code the walk steps in different ways.
 * Each function of the chain is a hop that calls the next one, so that a
 * pattern is a list of hops: SFrame code, code without CFI in the same
 * SFrame object, JIT code in anonymous memory and a library with frame
 * pointers and no unwind tables, mixed as a runtime mixes them.  Every
 * hop is called through a pointer, so none is inlined into its caller.
 */
#ifndef MIXWALK_H
#define MIXWALK_H

struct hop;
typedef unsigned long (*hop_fn)(const struct hop *h);

/* The JIT stub reads fn at offset 0 and next at offset 8: keep them so. */
struct hop {
	hop_fn fn;
	const struct hop *next;
	const char *name;		/* as perf names the frame */
};

/* A local array the compiler must keep: each hop has a frame of its own. */
static inline void keep_frame(char *pad)
{
	asm volatile("" : : "r" (pad) : "memory");
}

/* Call the next hop; the addition keeps the call from being a tail call. */
#define HOP_ON(h, pad)	((h)->next->fn((h)->next) + (pad))

/*
 * A leaf's loop until @deadline by the clock @now, in the leaf's own code
 * (a macro: each leaf is built with its own file's unwind flags).
 */
#define SPIN_UNTIL(now, deadline, x)					\
	do {								\
		while ((now)() < (deadline))				\
			for (int i_ = 0; i_ < 100000; i_++)		\
				(x) = (x) * 6364136223846793005ULL +	\
				      1442695040888963407ULL;		\
	} while (0)

/* Frame pointers, no CFI, in the SFrame executable (mixnocfi.c). */
unsigned long nocfi_a(const struct hop *h);
unsigned long nocfi_b(const struct hop *h);
unsigned long nocfi_spin(const struct hop *h);

/* Frame pointers, no unwind tables at all (libmixfp.so, by dlsym()). */
unsigned long fplib_a(const struct hop *h);
unsigned long fplib_b(const struct hop *h);
unsigned long fplib_spin(const struct hop *h);
void fplib_set_deadline(double deadline);

/* mixwalk.c's clock, deadline and result, for the spins in mixnocfi.c */
double mixwalk_now(void);
extern double mixwalk_deadline;
extern unsigned long sink;

#endif
