// SPDX-License-Identifier: GPL-2.0
/*
 * One step of a user-stack walk (x86-64): the SFrame rule for the IP when
 * there is one, else the frame-pointer chain where it can be trusted.
 * Each way to give up is explicit and counted by the caller.
 */
#include <sframe/walk.h>

#define WORD	8			/* x86-64 stack word */

/*
 * The module's walk is built with SFRAME_WALK_USER_OPS: its callbacks are
 * then called directly when they are the ones in @ops, sparing a retpoline
 * per stack read and per lookup.  Tests pass their own and take the
 * indirect call.
 */
#ifdef SFRAME_WALK_USER_OPS
#include <linux/indirect_call_wrapper.h>
#include <linux/uaccess.h>

/*
 * The module's read callback is defined here, so that the walk's reads
 * inline it: copy_from_user_nofault() never faults pages in, and refuses
 * when the sampled task's mm is not the loaded one (nmi_uaccess_okay()).
 */
int sframe_user_read(void *ctx, u64 addr, u64 *val, unsigned int n)
{
	if (copy_from_user_nofault(val, (const void __user *)addr,
				   n * sizeof(*val)))
		return -EFAULT;
	return 0;
}

#define sframe_read(w, addr, val, n)					\
	INDIRECT_CALL_1((w)->ops->read, sframe_user_read, (w)->ctx,	\
			addr, val, n)
#define sframe_lookup(w, ip, where)					\
	INDIRECT_CALL_1((w)->ops->lookup, sframe_user_lookup, (w)->ctx,	\
			ip, where)
#else
#define sframe_read(w, addr, val, n)	((w)->ops->read((w)->ctx, addr, val, n))
#define sframe_lookup(w, ip, where)	((w)->ops->lookup((w)->ctx, ip, where))
#endif

static const char * const sframe_stop_names[SFRAME_NR_STOPS] = {
	[SFRAME_STOP_NONE] = "none",
	[SFRAME_STOP_OUTERMOST] = "outermost frame",
	[SFRAME_STOP_IP_ZERO] = "return address 0",
	[SFRAME_STOP_NO_RULE] = "no SFrame rule, frame pointers not trusted",
	[SFRAME_STOP_READ] = "stack read failed",
	[SFRAME_STOP_CFA_NOT_ABOVE_SP] = "CFA not above SP",
	[SFRAME_STOP_MISALIGNED] = "misaligned CFA or FP",
	[SFRAME_STOP_REGISTER] = "rule needs an unknown register",
	[SFRAME_STOP_FP_CHAIN] = "frame pointer below SP",
};

const char *sframe_walk_stop_str(enum sframe_walk_stop stop)
{
	if ((unsigned int)stop >= SFRAME_NR_STOPS)
		return "unknown";
	return sframe_stop_names[stop];
}

void sframe_walk_start(struct sframe_walk *w, u64 ip, u64 sp, u64 fp,
		       const struct sframe_walk_ops *ops, void *ctx)
{
	*w = (struct sframe_walk){
		.ip = ip, .sp = sp, .fp = fp, .first = true,
		.stop = SFRAME_STOP_NONE, .ops = ops, .ctx = ctx,
	};
}

static bool sframe_walk_fail(struct sframe_walk *w, enum sframe_walk_stop stop)
{
	w->stop = stop;
	return false;
}

/*
 * SP and FP are known in every frame; other registers only in the first.
 * Every SFrame step asks for the CFA's base: inline, not a call.
 */
static __always_inline bool sframe_reg_value(struct sframe_walk *w,
					     const struct sframe_section *sec,
					     unsigned int reg, u64 *val)
{
	if (reg == sec->sp_reg) {
		*val = w->sp;
		return true;
	}
	if (reg == sec->fp_reg) {
		*val = w->fp;
		return true;
	}
	return w->first && w->ops->reg && w->ops->reg(w->ctx, reg, val);
}

/* Value of @loc given the CFA: SFRAME_STOP_NONE or why it cannot be had. */
static enum sframe_walk_stop sframe_loc_value(struct sframe_walk *w,
					      const struct sframe_section *sec,
					      const struct sframe_loc *loc,
					      u64 cfa, u64 *val)
{
	u64 base;

	switch (loc->kind) {
	case SFRAME_LOC_AT_CFA:
		if (sframe_read(w, cfa + loc->offset, val, 1))
			return SFRAME_STOP_READ;
		return SFRAME_STOP_NONE;
	case SFRAME_LOC_REG:
	case SFRAME_LOC_AT_REG:
		if (!sframe_reg_value(w, sec, loc->reg, &base))
			return SFRAME_STOP_REGISTER;
		*val = base + loc->offset;
		if (loc->kind == SFRAME_LOC_AT_REG &&
		    sframe_read(w, *val, val, 1))
			return SFRAME_STOP_READ;
		return SFRAME_STOP_NONE;
	default:
		/* Left in a register (not x86-64's RA), or undefined. */
		return SFRAME_STOP_REGISTER;
	}
}

/*
 * The caller's RA and FP, given the CFA.  In the common frame the FP is
 * saved just below the RA: one read fetches both.
 */
static enum sframe_walk_stop sframe_saved_regs(struct sframe_walk *w,
					       const struct sframe_section *sec,
					       const struct sframe_rule *rule,
					       u64 cfa, u64 *ra, u64 *fp)
{
	enum sframe_walk_stop stop;
	u64 pair[2];

	if (rule->ra.kind == SFRAME_LOC_AT_CFA &&
	    rule->fp.kind == SFRAME_LOC_AT_CFA &&
	    rule->fp.offset == rule->ra.offset - WORD) {
		if (sframe_read(w, cfa + rule->fp.offset, pair, 2))
			return SFRAME_STOP_READ;
		*fp = pair[0];
		*ra = pair[1];
		return SFRAME_STOP_NONE;
	}
	stop = sframe_loc_value(w, sec, &rule->ra, cfa, ra);
	if (!stop && rule->fp.kind != SFRAME_LOC_SAME)
		stop = sframe_loc_value(w, sec, &rule->fp, cfa, fp);
	return stop;
}

static bool sframe_walk_rule(struct sframe_walk *w,
			     const struct sframe_section *sec,
			     const struct sframe_rule *rule)
{
	enum sframe_walk_stop stop;
	u64 cfa, ra, fp = w->fp;

	if (rule->flags & SFRAME_RULE_OUTERMOST)
		return sframe_walk_fail(w, SFRAME_STOP_OUTERMOST);

	if (!sframe_reg_value(w, sec, rule->cfa.reg, &cfa))
		return sframe_walk_fail(w, SFRAME_STOP_REGISTER);
	cfa += rule->cfa.offset;
	if (rule->cfa.kind == SFRAME_LOC_AT_REG && sframe_read(w, cfa, &cfa, 1))
		return sframe_walk_fail(w, SFRAME_STOP_READ);
	if (cfa <= w->sp)
		return sframe_walk_fail(w, SFRAME_STOP_CFA_NOT_ABOVE_SP);
	if (cfa & (WORD - 1))
		return sframe_walk_fail(w, SFRAME_STOP_MISALIGNED);

	stop = sframe_saved_regs(w, sec, rule, cfa, &ra, &fp);
	if (stop)
		return sframe_walk_fail(w, stop);

	w->ip = ra;
	w->sp = cfa;
	w->fp = fp;
	w->sframe_steps++;
	return true;
}

/* The classic frame: saved FP at *FP, return address just above it. */
static bool sframe_walk_fp(struct sframe_walk *w)
{
	u64 frame[2];			/* saved FP, return address */

	if (w->fp < w->sp)
		return sframe_walk_fail(w, SFRAME_STOP_FP_CHAIN);
	if (w->fp & (WORD - 1))
		return sframe_walk_fail(w, SFRAME_STOP_MISALIGNED);
	if (sframe_read(w, w->fp, frame, 2))
		return sframe_walk_fail(w, SFRAME_STOP_READ);

	w->ip = frame[1];
	w->sp = w->fp + 2 * WORD;
	w->fp = frame[0];
	w->fp_steps++;
	return true;
}

/*
 * x86-64 rt_sigreturn trampolines, where a signal handler returns: glibc's
 * "mov $15, %rax; syscall" and musl's "mov $15, %eax; syscall".  Text
 * is read like the stack, through the read callback, so a page that is
 * not present just means "not a trampoline".
 */
#define SIGRETURN_GLIBC		0x0f0000000fc0c748ULL	/* then 05 */
#define SIGRETURN_MUSL		0x00050f0000000fb8ULL
#define SIGRETURN_MUSL_MASK	0x00ffffffffffffffULL

static bool sframe_at_sigreturn(struct sframe_walk *w)
{
	u64 a, b;

	if (sframe_read(w, w->ip, &a, 1))
		return false;
	if ((a & SIGRETURN_MUSL_MASK) == SIGRETURN_MUSL)
		return true;
	return a == SIGRETURN_GLIBC && !sframe_read(w, w->ip + 8, &b, 1) &&
	       (b & 0xff) == 0x05;
}

/*
 * In the trampoline, SP points at the ucontext of the rt_sigframe the
 * kernel pushed; its uc_mcontext holds the interrupted registers.
 */
#define UC_MCONTEXT		40	/* flags, link, stack_t */
#define SIGCONTEXT_BP		80	/* then bx, dx, ax, cx, sp, ip */
#define SIGCONTEXT_WORDS	7
#define SIGCONTEXT_SP_WORD	5
#define SIGCONTEXT_IP_WORD	6

static bool sframe_walk_sigframe(struct sframe_walk *w)
{
	u64 regs[SIGCONTEXT_WORDS];

	if (sframe_read(w, w->sp + UC_MCONTEXT + SIGCONTEXT_BP, regs,
			SIGCONTEXT_WORDS))
		return sframe_walk_fail(w, SFRAME_STOP_READ);
	if (regs[SIGCONTEXT_SP_WORD] & (WORD - 1))
		return sframe_walk_fail(w, SFRAME_STOP_MISALIGNED);

	w->ip = regs[SIGCONTEXT_IP_WORD];
	w->sp = regs[SIGCONTEXT_SP_WORD];
	w->fp = regs[0];
	w->signal_steps++;
	return true;
}

enum sframe_step {
	SFRAME_STEP_RULE,
	SFRAME_STEP_SIGNAL,
	SFRAME_STEP_FP,
	SFRAME_STEP_NONE,
};

/*
 * A return address just past the end of a function (@at_end) is where a
 * trampoline without an FDE of its own may start.  Only a return address:
 * an interrupted IP (pc == w->ip) is inside its function.
 */
static bool sframe_tramp_after(struct sframe_walk *w, u64 pc, bool at_end)
{
	return pc != w->ip && at_end && sframe_at_sigreturn(w);
}

/*
 * What @sec says of the frame at @pc, by decoding its FDE and FRE into
 * *@rule: SFRAME_STEP_NONE when it has no rule there.
 */
static enum sframe_step sframe_how_decode(struct sframe_walk *w,
					  const struct sframe_section *sec,
					  u64 bias, u64 pc,
					  struct sframe_rule *rule)
{
	struct sframe_fde fde;
	struct sframe_fre fre;

	if (sframe_find_fde(sec, pc - bias, &fde))
		return SFRAME_STEP_NONE;
	if (fde.signal ||
	    sframe_tramp_after(w, pc, w->ip - bias == fde.start + fde.size))
		return SFRAME_STEP_SIGNAL;
	if (sframe_fde_find_fre(sec, &fde, pc - bias, &fre, NULL) ||
	    sframe_fre_rule(sec, &fde, &fre, rule))
		return SFRAME_STEP_NONE;
	return SFRAME_STEP_RULE;
}

/* The same answer from the section's flattened table: one search. */
static enum sframe_step sframe_how_flat(struct sframe_walk *w,
					const struct sframe_section *sec,
					u64 bias, u64 pc,
					const struct sframe_rule **rulep,
					struct sframe_rule *scratch)
{
	const struct sframe_flat *flat = sec->flat;
	s64 rel_pc = (s64)(pc - bias - sec->vaddr), end = 0;
	u16 row = sframe_flat_find(flat, rel_pc, &end);

	switch (SFRAME_FLAT_KIND(row)) {
	case SFRAME_FLAT_SIGNAL:
		return SFRAME_STEP_SIGNAL;
	case SFRAME_FLAT_DECODE:
		return sframe_how_decode(w, sec, bias, pc, scratch);
	}
	/* pc is w->ip - 1 when it matters. */
	if (sframe_tramp_after(w, pc, (row & SFRAME_FLAT_END) &&
				      rel_pc + 1 == end))
		return SFRAME_STEP_SIGNAL;
	if (SFRAME_FLAT_KIND(row) != SFRAME_FLAT_RULE)
		return SFRAME_STEP_NONE;
	*rulep = &flat->rules[row & SFRAME_FLAT_RULE_MASK];
	return SFRAME_STEP_RULE;
}

/*
 * How to step from the frame at @pc; for SFRAME_STEP_RULE, *@rulep is the
 * rule, found in the section's flattened table or decoded into *@scratch.
 * The section is looked up again only when @pc leaves the range of the
 * last answer: most frames are in the same object as the one before.
 */
static enum sframe_step sframe_walk_how(struct sframe_walk *w, u64 pc,
					 const struct sframe_rule **rulep,
					 struct sframe_rule *scratch)
{
	struct sframe_where *where = &w->where;
	enum sframe_step how = SFRAME_STEP_NONE;

	if (pc < where->start || pc >= where->end) {
		*where = (struct sframe_where){ .fp_ok = true };
		sframe_lookup(w, pc, where);
	}
	*rulep = scratch;
	if (where->sec && where->sec->flat)
		how = sframe_how_flat(w, where->sec, where->bias, pc, rulep,
				      scratch);
	else if (where->sec)
		how = sframe_how_decode(w, where->sec, where->bias, pc,
					scratch);
	if (how != SFRAME_STEP_NONE)
		return how;
	if (sframe_at_sigreturn(w))
		return SFRAME_STEP_SIGNAL;
	return where->fp_ok ? SFRAME_STEP_FP : SFRAME_STEP_NONE;
}

/*
 * Step to the caller.  True: w->ip is now the caller's return address, or
 * the interrupted IP when the step went through a signal frame.  False:
 * the walk is over and w->stop says why.  A return address is looked up
 * at IP - 1 (the call instruction), an interrupted IP at itself.
 */
static __always_inline bool sframe_walk_step(struct sframe_walk *w)
{
	struct sframe_rule scratch;	/* a rule decoded for this step */
	const struct sframe_rule *rulep;
	enum sframe_step how;
	bool stepped;
	u64 pc;

	if (w->stop)
		return false;
	pc = w->first || w->exact_ip ? w->ip : w->ip - 1;
	how = sframe_walk_how(w, pc, &rulep, &scratch);
	switch (how) {
	case SFRAME_STEP_RULE:
		stepped = sframe_walk_rule(w, w->where.sec, rulep);
		break;
	case SFRAME_STEP_SIGNAL:
		stepped = sframe_walk_sigframe(w);
		break;
	case SFRAME_STEP_FP:
		stepped = sframe_walk_fp(w);
		break;
	default:
		stepped = sframe_walk_fail(w, SFRAME_STOP_NO_RULE);
		break;
	}
	if (!stepped)
		return false;
	w->first = false;
	w->exact_ip = how == SFRAME_STEP_SIGNAL;
	if (!w->ip)
		return sframe_walk_fail(w, SFRAME_STOP_IP_ZERO);
	return true;
}

/*
 * Step on, storing each caller's IP in @ips, until @max are stored or the
 * walk ends (then w->stop says why): the number stored.  No callback per
 * frame: the caller consumes the batch inline.
 */
unsigned int sframe_walk_fill(struct sframe_walk *w, u64 *ips,
			      unsigned int max)
{
	unsigned int n = 0;

	while (n < max && sframe_walk_step(w))
		ips[n++] = w->ip;
	return n;
}

/* One step: true if it was made. */
bool sframe_walk_next(struct sframe_walk *w)
{
	u64 ip;

	return sframe_walk_fill(w, &ip, 1);
}
