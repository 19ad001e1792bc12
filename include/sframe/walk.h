/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user-stack walker's step logic: from one frame's IP, SP and FP to
 * its caller's, by the SFrame rule for the IP or a signal frame, with the
 * frame-pointer chain under both, and every way to give up named.  It reads memory and finds
 * sections only through callbacks, so the same code runs on a user stack
 * in a perf sample and on a synthetic stack in a test.
 */
#ifndef _SFRAME_WALK_H
#define _SFRAME_WALK_H

#include "arch.h"
#include "sframe.h"

/* Why a walk ended (SFRAME_STOP_NONE while it goes on). */
enum sframe_walk_stop {
	SFRAME_STOP_NONE,
	SFRAME_STOP_OUTERMOST,		/* RA undefined: the outermost frame */
	SFRAME_STOP_IP_ZERO,		/* the caller's IP is 0 */
	SFRAME_STOP_READ,		/* a stack read failed */
	SFRAME_STOP_CFA_NOT_ABOVE_SP,	/* the stack would not grow up */
	SFRAME_STOP_MISALIGNED,		/* CFA or FP not word aligned */
	SFRAME_STOP_REGISTER,		/* a rule needs a register no longer known */
	SFRAME_STOP_FP_CHAIN,		/* frame pointer below SP */
	SFRAME_STOP_NOT_CALL,		/* a frame record's RA follows no call */
	SFRAME_STOP_CODE_UNREADABLE,	/* ...or its code could not be read */
	SFRAME_NR_STOPS
};

/*
 * What the lookup callback says of an IP: the validated section describing
 * it and its load bias, or no section; a second section of the same object
 * that fills the gaps of the first (an object whose own section covers
 * only part of its code: a static binary's libc), consulted where the
 * first has no rule; and the addresses [start, end) for which the answer
 * is the same, so that the walk asks again only outside them (an empty
 * range: ask every time).  Where neither section has a usable rule, the
 * walk follows the frame-pointer chain, whatever the object's flags say.
 */
struct sframe_where {
	const struct sframe_section *sec;
	const struct sframe_section *fill;
	u64 bias;
	u64 start;
	u64 end;
};

struct sframe_walk_ops {
	/*
	 * Read @n consecutive words from @addr without faulting pages in:
	 * 0, or -EFAULT if any of them cannot be read.
	 */
	int (*read)(void *ctx, u64 addr, u64 *val, unsigned int n);
	/* Fill @where for @ip. */
	void (*lookup)(void *ctx, u64 ip, struct sframe_where *where);
	/* DWARF register @reg of the first frame; false if not available. */
	bool (*reg)(void *ctx, unsigned int reg, u64 *val);
};

/*
 * The step cache: from a return address to how to step over its frame,
 * for the common rule, whose CFA is SP or FP plus an offset and which
 * saved the return address at the CFA (and the FP, or not at all).  An
 * entry holds the section's id (never reused) and the PC relative to the
 * object as key (a file's section serves every process that maps it, at
 * any address), and a copy of the rule as value: it points to nothing,
 * and once its section is gone it can no longer match.  Only answers of
 * a section's own flattened table are kept, and only those that depend
 * on nothing else: no signal frame, no end of a function.  The walk does
 * not lock it: its owner gives each walk a table no other walk uses
 * meanwhile (the kernel: one per CPU and interrupt level).
 */
#define SFRAME_STEP_CACHE_BITS	7
#define SFRAME_STEP_CACHE_SIZE	(1U << SFRAME_STEP_CACHE_BITS)

struct sframe_step_entry {
	u64 sec_id;
	u64 rel;			/* the PC minus the object's load bias */
	struct sframe_step_form step;
};

struct sframe_step_cache {
	struct sframe_step_entry e[SFRAME_STEP_CACHE_SIZE];
};

struct sframe_walk {
	const struct sframe_arch *arch;
	u64 ip;
	u64 sp;
	u64 fp;
	u64 ra;				/* the RA register, when ra_known */
	u64 ra_mask;			/* bits of a return address to keep */
	bool first;			/* still in the interrupted frame */
	bool exact_ip;			/* ip was interrupted, not a return address */
	bool ip_planted;		/* the last FP step's RA was planted */
	bool sp_exact;			/* sp is the frame's, not a lower bound */
	bool ra_known;			/* after a signal frame */
	bool stack_switched;		/* the FP chain went below SP once */
	enum sframe_walk_stop stop;
	unsigned int sframe_steps;
	unsigned int fp_steps;
	unsigned int fp_fallback_steps;	/* of fp_steps, where SFrame had none */
	unsigned int signal_steps;	/* through rt_sigframes */
	unsigned int epilogue_steps;	/* by the code at a frame without a table */
	unsigned int planted_steps;	/* of fp_steps, to an IP a runtime planted */
	unsigned int cached_steps;	/* of sframe_steps, by the step cache */
	unsigned int record_cfa_steps;	/* of sframe_steps, CFA from a record */
	struct sframe_step_cache *cache;	/* optional: sframe_walk_cache() */
	struct sframe_where where;	/* the last lookup's answer */
	const struct sframe_walk_ops *ops;
	void *ctx;
};

void sframe_walk_start(struct sframe_walk *w, const struct sframe_arch *arch,
		       u64 ip, u64 sp, u64 fp,
		       const struct sframe_walk_ops *ops, void *ctx);
bool sframe_walk_next(struct sframe_walk *w);
unsigned int sframe_walk_fill(struct sframe_walk *w, u64 *ips,
			      unsigned int max);
const char *sframe_walk_stop_str(enum sframe_walk_stop stop);

/**
 * sframe_walk_cache() - let a walk step through a step cache
 * @w: the walk, just started
 * @cache: the cache, which the walk has to itself (see above)
 */
static inline void sframe_walk_cache(struct sframe_walk *w,
				     struct sframe_step_cache *cache)
{
	w->cache = cache;
}

/**
 * sframe_walk_strip_ra() - clear a code signed into return addresses
 * @w: the walk, just started
 * @pac_bits: the bits of a return address that hold a pointer
 *	authentication code, cleared before it is used or reported
 *
 * For the walk built through struct sframe_walk_ops; the module's walk
 * takes its machine's bits as a constant (walk_user.c).
 */
static inline void sframe_walk_strip_ra(struct sframe_walk *w, u64 pac_bits)
{
	w->ra_mask = ~pac_bits;
}

#endif /* _SFRAME_WALK_H */
