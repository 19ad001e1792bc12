/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user-stack walk: from one frame's IP, SP and FP to its caller's, by
 * the SFrame rule for the IP when there is one, else a signal frame, and
 * the frame-pointer chain wherever neither steps, as the stock walker
 * would.  What differs between machines comes from the walk's struct
 * sframe_arch.  Each way to give up is explicit and counted by the caller.
 *
 * A template: a file that includes it gets a walk of its own, with
 * sframe_walk_fill() and sframe_walk_next(), over the callbacks it names
 * first, each given the walk and called (or expanded) directly, not
 * through a pointer:
 *
 *   SFRAME_WALK_READ(w, addr, val, n)	read @n words at @addr into @val
 *	without faulting pages in: 0, or -EFAULT if any cannot be read
 *   SFRAME_WALK_LOOKUP(w, ip, where)	fill the struct sframe_where @where
 *	for @ip
 *   SFRAME_WALK_REG(w, reg, val)	DWARF register @reg of the
 *	interrupted frame into @val: false if it is not known
 *   SFRAME_WALK_RA_MASK(w)	the bits of a return address to keep (the
 *	others hold a pointer authentication code): a constant where the
 *	machine signs none, so that the loop spends nothing on it
 *
 * The module includes it once (walk_user.c: the user stack, its own
 * lookup); the format core once (walk_ops.c: through struct
 * sframe_walk_ops, for the tests and user space).  Included once per
 * program.
 */
#if !defined(SFRAME_WALK_READ) || !defined(SFRAME_WALK_RA_MASK)
#error "define SFRAME_WALK_READ, _LOOKUP, _REG and _RA_MASK first"
#endif

#include <sframe/flat.h>
#include <sframe/walk.h>

#define WORD	SFRAME_ARCH_WORD

/*
 * The CFA's checks.  @stays: the frame saved nothing (an AArch64 leaf:
 * CFA = SP, RA in LR), the one frame whose CFA may equal SP; it cannot
 * repeat, for that register is known only in the interrupted frame or
 * right after a signal frame.
 */
static __always_inline enum sframe_walk_stop
sframe_step_check_cfa(u64 cfa, u64 sp, bool stays)
{
	if (cfa < sp || (cfa == sp && !stays))
		return SFRAME_STOP_CFA_NOT_ABOVE_SP;
	if (cfa & (SFRAME_ARCH_WORD - 1))
		return SFRAME_STOP_MISALIGNED;
	return SFRAME_STOP_NONE;
}

/*
 * The common frame's saved registers (a frame record): the caller's FP
 * just below its RA at @cfa + @ra_offset, fetched by one read into
 * @saved[0] and @saved[1].  False if the read failed.
 */
static __always_inline bool sframe_step_read_record(struct sframe_walk *w,
						    u64 cfa, s32 ra_offset,
						    u64 saved[2])
{
	return !SFRAME_WALK_READ(w, cfa + ra_offset - WORD, saved, 2);
}

/*
 * Read the caller's FP and RA saved at @cfa into @saved[0] and @saved[1]:
 * the RA at @ra_offset, the FP as @fp_at says (sframe_rule_saved_at_cfa():
 * at @fp_offset for SFRAME_STEP_FP_APART; the callee's, w->fp, for
 * SFRAME_STEP_FP_SAME).  In the common frame the FP is just below the RA:
 * one read fetches both, on the straight path.  An array, not two
 * pointers, and every value the reads need waits in it or in @w, so that
 * the loops keep their own state in registers.  False if a read failed.
 */
static __always_inline bool sframe_step_read_saved(struct sframe_walk *w,
						   u64 cfa, s32 ra_offset,
						   s32 fp_offset, u8 fp_at,
						   u64 saved[2])
{
	if (likely(fp_at == SFRAME_STEP_FP_BELOW_RA))
		return sframe_step_read_record(w, cfa, ra_offset, saved);
	if (fp_at != SFRAME_STEP_FP_APART) {
		if (SFRAME_WALK_READ(w, cfa + ra_offset, &saved[1], 1))
			return false;
		saved[0] = w->fp;
		return true;
	}
	/* The RA's address waits in its slot across the FP's read. */
	saved[1] = cfa + ra_offset;
	return !SFRAME_WALK_READ(w, cfa + fp_offset, &saved[0], 1) &&
	       !SFRAME_WALK_READ(w, saved[1], &saved[1], 1);
}

static bool sframe_walk_fail(struct sframe_walk *w, enum sframe_walk_stop stop)
{
	w->stop = stop;
	return false;
}

/*
 * SP (when exact) and FP are known in every frame; the return-address
 * register after a signal frame; other registers only in the first frame.
 * Every SFrame step asks for the CFA's base: inline, not a call.
 */
static __always_inline bool sframe_reg_value(struct sframe_walk *w,
					     unsigned int reg, u64 *val)
{
	const struct sframe_arch *arch = w->arch;

	if (reg == arch->sp_reg && w->sp_exact) {
		*val = w->sp;
		return true;
	}
	if (reg == arch->fp_reg) {
		*val = w->fp;
		return true;
	}
	if (reg == arch->ra_reg && w->ra_known) {
		*val = w->ra;
		return true;
	}
	return w->first && SFRAME_WALK_REG(w, reg, val);
}

/* Value of @loc given the CFA: SFRAME_STOP_NONE or why it cannot be had. */
static enum sframe_walk_stop sframe_loc_value(struct sframe_walk *w,
					      const struct sframe_loc *loc,
					      u64 cfa, u64 *val)
{
	u64 base;

	switch (loc->kind) {
	case SFRAME_LOC_AT_CFA:
		if (SFRAME_WALK_READ(w, cfa + loc->offset, val, 1))
			return SFRAME_STOP_READ;
		return SFRAME_STOP_NONE;
	case SFRAME_LOC_REG:
	case SFRAME_LOC_AT_REG:
		if (!sframe_reg_value(w, loc->reg, &base))
			return SFRAME_STOP_REGISTER;
		*val = base + loc->offset;
		if (loc->kind == SFRAME_LOC_AT_REG &&
		    SFRAME_WALK_READ(w, *val, val, 1))
			return SFRAME_STOP_READ;
		return SFRAME_STOP_NONE;
	default:
		/* Undefined: nothing to recover. */
		return SFRAME_STOP_REGISTER;
	}
}

/*
 * The caller's RA and FP, given the CFA: the common forms by the loop's
 * own reads (sframe_step_read_saved()), the others by their kinds.  An RA not saved is
 * still in the register the call left it in (AArch64's LR).
 */
static enum sframe_walk_stop sframe_saved_regs(struct sframe_walk *w,
					       const struct sframe_rule *rule,
					       u64 cfa, u64 *ra, u64 *fp)
{
	enum sframe_walk_stop stop;
	u64 saved[2];
	u8 fp_at;

	if (sframe_rule_saved_at_cfa(rule, &fp_at)) {
		if (!sframe_step_read_saved(w, cfa, rule->ra.offset,
					    rule->fp.offset, fp_at, saved))
			return SFRAME_STOP_READ;
		*fp = saved[0];
		*ra = saved[1];
		return SFRAME_STOP_NONE;
	}
	if (rule->ra.kind == SFRAME_LOC_SAME)
		stop = sframe_reg_value(w, w->arch->ra_reg, ra) ?
		       SFRAME_STOP_NONE : SFRAME_STOP_REGISTER;
	else
		stop = sframe_loc_value(w, &rule->ra, cfa, ra);
	if (!stop && rule->fp.kind != SFRAME_LOC_SAME)
		stop = sframe_loc_value(w, &rule->fp, cfa, fp);
	return stop;
}

/*
 * The CFA of a frame a frame-record step reached, whose SP is only a
 * lower bound (struct sframe_arch: record_sets_sp), for a rule based on
 * SP: where the rule saves the caller's FP and RA as a frame record, FP
 * below RA, the frame keeps its FP pointing at that record, as compiled
 * code that saves FP does (Documentation/design.rst), and the CFA is FP
 * less the record's offset.  Refused where the frame's SP at its call
 * would lie below the bound; the step checks the CFA itself.
 */
static bool sframe_record_cfa(struct sframe_walk *w,
			      const struct sframe_rule *rule, u64 *cfa)
{
	u8 fp_at;

	if (w->sp_exact || rule->cfa.kind != SFRAME_LOC_REG ||
	    rule->cfa.reg != w->arch->sp_reg ||
	    !sframe_rule_saved_at_cfa(rule, &fp_at) ||
	    fp_at != SFRAME_STEP_FP_BELOW_RA)
		return false;
	*cfa = w->fp - rule->fp.offset;
	return *cfa >= w->sp && *cfa - w->sp >= (u64)(s64)rule->cfa.offset;
}

static bool sframe_walk_rule(struct sframe_walk *w,
			     const struct sframe_rule *rule)
{
	enum sframe_walk_stop stop;
	u64 cfa, ra, fp = w->fp;
	bool from_record = false;

	if (rule->flags & SFRAME_RULE_OUTERMOST)
		return sframe_walk_fail(w, SFRAME_STOP_OUTERMOST);

	if (sframe_reg_value(w, rule->cfa.reg, &cfa))
		cfa += rule->cfa.offset;
	else if (sframe_record_cfa(w, rule, &cfa))
		from_record = true;
	else
		return sframe_walk_fail(w, SFRAME_STOP_REGISTER);
	if (rule->cfa.kind == SFRAME_LOC_AT_REG && SFRAME_WALK_READ(w, cfa, &cfa, 1))
		return sframe_walk_fail(w, SFRAME_STOP_READ);
	stop = sframe_step_check_cfa(cfa, w->sp,
				     rule->ra.kind == SFRAME_LOC_SAME);
	if (!stop)
		stop = sframe_saved_regs(w, rule, cfa, &ra, &fp);
	if (stop)
		return sframe_walk_fail(w, stop);

	w->ip = ra & SFRAME_WALK_RA_MASK(w);
	w->sp = cfa;
	w->sp_exact = true;
	w->fp = fp;
	w->ra_known = false;
	w->sframe_steps++;
	w->record_cfa_steps += from_record;
	return true;
}

/*
 * The code around an address, as a struct sframe_code_seq or a struct
 * sframe_ra_form is matched against it: read through the read callback like
 * the stack, so a page that is not present just means "no match", and by
 * aligned words, which never cross a page, so bytes past a sequence
 * cannot make it unreadable (a trampoline at a page's end).  A word is
 * read when a comparison first needs one of its bytes, which it does only
 * while the bytes before matched; each at most once a step, however many
 * sequences are tried, by the sigreturn check and the epilogue step
 * alike.  The words cover SFRAME_CODE_BEFORE bytes before the address
 * (a call ending there) and a sequence, or a form's 8 bytes, after.
 */
#define SFRAME_CODE_BEFORE	8
#define SFRAME_CODE_WORDS	3

struct sframe_code {
	u64 base;			/* the first word's address */
	unsigned int at;		/* the address's byte from @base */
	u8 read;			/* bit i: word i is in @word */
	u8 unreadable;			/* bit i: word i could not be read */
	u64 word[SFRAME_CODE_WORDS];
};

static void sframe_code_at(struct sframe_code *code, u64 addr)
{
	code->at = (addr & (WORD - 1)) + SFRAME_CODE_BEFORE;
	code->base = addr - code->at;
	code->read = 0;
	code->unreadable = 0;
}

/*
 * Keep in @code what @other read of the words @code covers: a frame
 * record's return address is often at the IP's own call site (a
 * recursion), whose words the step read already.
 */
static void sframe_code_take(struct sframe_code *code,
			     const struct sframe_code *other)
{
	unsigned int i, j;

	for (i = 0; i < SFRAME_CODE_WORDS; i++) {
		u64 at = other->base + i * WORD;

		if (at < code->base || at - code->base >= sizeof(code->word))
			continue;
		j = (at - code->base) / WORD;
		code->word[j] = other->word[i];
		code->read |= ((other->read >> i) & 1) << j;
		code->unreadable |= ((other->unreadable >> i) & 1) << j;
	}
}

/* Byte @k of @code (0: the one at the address); false if unreadable. */
static bool sframe_code_byte(struct sframe_walk *w, struct sframe_code *code,
			     int k, u8 *byte)
{
	unsigned int pos = code->at + k, i = pos / WORD;

	if (i >= SFRAME_CODE_WORDS || (code->unreadable & (1U << i)))
		return false;
	if (!(code->read & (1U << i))) {
		if (SFRAME_WALK_READ(w, code->base + i * WORD, &code->word[i], 1)) {
			code->unreadable |= 1U << i;
			return false;
		}
		code->read |= 1U << i;
	}
	*byte = code->word[i] >> (8 * (pos % WORD));
	return true;
}

/* Is the code @seq?  Bytes are taken from the words as little-endian. */
static bool sframe_code_is(struct sframe_walk *w, struct sframe_code *code,
			   const struct sframe_code_seq *seq)
{
	unsigned int k;
	u8 byte;

	for (k = 0; k < seq->len; k++)
		if (!sframe_code_byte(w, code, k, &byte) ||
		    byte != seq->bytes[k])
			return false;
	return true;
}

/* Is the code around @code's address @form? */
static bool sframe_code_around(struct sframe_walk *w, struct sframe_code *code,
			       const struct sframe_ra_form *form)
{
	unsigned int k;
	u8 byte;

	for (k = 0; k < 8; k++) {
		u8 mask = form->mask >> (8 * k);

		if (!mask)
			continue;
		if (!sframe_code_byte(w, code, (int)k - form->before, &byte) ||
		    (byte & mask) != (u8)(form->bits >> (8 * k)))
			return false;
	}
	return true;
}

/* Is the code one of the @n sequences @seqs? */
static bool sframe_code_is_one(struct sframe_walk *w, struct sframe_code *code,
			       const struct sframe_code_seq *seqs,
			       unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (sframe_code_is(w, code, &seqs[i]))
			return true;
	return false;
}

/* Is w->ip (@code) at one of the machine's rt_sigreturn sequences? */
static bool sframe_at_sigreturn(struct sframe_walk *w,
				struct sframe_code *code)
{
	return sframe_code_is_one(w, code, w->arch->sigreturn,
				  w->arch->nr_sigreturn);
}

/*
 * Is @ra a return address a frame record may hold: just after one of the
 * machine's calls, where a runtime plants one, or at an rt_sigreturn
 * trampoline, which a signal handler returns to?  SFRAME_STOP_NONE if so,
 * else why not: the code there is none of them, or could not be read.  A
 * frame pointer that is none leads to data, or to a function's start
 * (whatever its caller jumped to), which no call ends at.  @at_ip: the
 * code at w->ip, whose words serve here and which keeps those read here
 * when the answer is no.
 */
static enum sframe_walk_stop sframe_ra_is_real(struct sframe_walk *w,
					       struct sframe_code *at_ip,
					       u64 ra)
{
	const struct sframe_arch *arch = w->arch;
	struct sframe_code code;
	unsigned int i;

	sframe_code_at(&code, ra);
	sframe_code_take(&code, at_ip);
	for (i = 0; i < arch->nr_ra_forms; i++)
		if (sframe_code_around(w, &code, &arch->ra_forms[i]))
			return SFRAME_STOP_NONE;
	if (sframe_at_sigreturn(w, &code))
		return SFRAME_STOP_NONE;
	sframe_code_take(at_ip, &code);
	return code.unreadable ? SFRAME_STOP_CODE_UNREADABLE :
				 SFRAME_STOP_NOT_CALL;
}

/*
 * Is @code, at w->ip, that after the call in a function whose frame
 * record holds an IP its runtime planted?
 */
static bool sframe_ra_planted(struct sframe_walk *w, struct sframe_code *code)
{
	return sframe_code_is_one(w, code, w->arch->planted,
				  w->arch->nr_planted);
}

/*
 * A frame record: saved FP at *FP, return address just above it.  Where
 * the record ends the frame (x86-64), the caller's SP is just above it;
 * elsewhere that is only a lower bound, which the chain check still uses.
 * With @may_switch (a frame SFrame does not describe), the chain may lead
 * below SP once in a walk: to the stack the code ran on before a switch
 * (Go's cgo calls run C on the thread's system stack, and the frame
 * pointers lead back to the goroutine's stack, below it), which the stock
 * walker follows; twice would let a walk loop.  FP 0 ends the chain.
 * Unlike the stock walker's, the step reports only a return address that
 * follows a call (sframe_ra_is_real()): where the chain reaches a word
 * that is not one, FP was no frame pointer, and the walk ends there;
 * unless the frame is that of a function whose runtime planted it
 * (sframe_ra_planted()), and then the word is an interrupted IP, which
 * the next step takes as exact.  @code: the code at w->ip.
 */
static bool sframe_walk_fp(struct sframe_walk *w, struct sframe_code *code,
			   bool may_switch)
{
	u64 frame[2];			/* saved FP, return address */
	enum sframe_walk_stop stop;
	bool planted;
	u64 ra;

	if (w->fp < w->sp && (!w->fp || !may_switch || w->stack_switched))
		return sframe_walk_fail(w, SFRAME_STOP_FP_CHAIN);
	if (w->fp & (WORD - 1))
		return sframe_walk_fail(w, SFRAME_STOP_MISALIGNED);
	if (SFRAME_WALK_READ(w, w->fp, frame, 2))
		return sframe_walk_fail(w, SFRAME_STOP_READ);
	ra = frame[1] & SFRAME_WALK_RA_MASK(w);
	stop = ra ? sframe_ra_is_real(w, code, ra) : SFRAME_STOP_NONE;
	planted = stop == SFRAME_STOP_NOT_CALL && sframe_ra_planted(w, code);
	if (stop && !planted)
		return sframe_walk_fail(w, stop);

	w->stack_switched |= w->fp < w->sp;
	w->ip = ra;
	w->sp = w->fp + 2 * WORD;
	w->sp_exact = w->arch->record_sets_sp;
	w->fp = frame[0];
	w->ra_known = false;
	w->ip_planted = planted;
	w->fp_steps++;
	w->planted_steps += planted;
	return true;
}

/*
 * In the trampoline, SP points into the signal frame the kernel pushed,
 * which holds the interrupted registers (struct sframe_arch: sigframe).
 */
static bool sframe_walk_sigframe(struct sframe_walk *w)
{
	const struct sframe_arch *arch = w->arch;
	u64 regs[SFRAME_ARCH_MAX_SIGFRAME_WORDS];

	if (SFRAME_WALK_READ(w, w->sp + arch->sigframe.offset, regs,
			arch->sigframe.words))
		return sframe_walk_fail(w, SFRAME_STOP_READ);
	if (regs[arch->sigframe.sp] & (WORD - 1))
		return sframe_walk_fail(w, SFRAME_STOP_MISALIGNED);

	w->ip = regs[arch->sigframe.ip];
	w->sp = regs[arch->sigframe.sp];
	w->sp_exact = true;
	w->fp = regs[arch->sigframe.fp];
	w->ra_known = arch->sigframe.ra != SFRAME_ARCH_NO_REG;
	if (w->ra_known)
		w->ra = regs[arch->sigframe.ra];
	w->signal_steps++;
	return true;
}

enum sframe_step {
	SFRAME_STEP_RULE,
	SFRAME_STEP_SIGNAL,
	SFRAME_STEP_NONE,		/* SFrame has no answer: frame pointers */
};

/*
 * A return address just past the end of a function (@at_end) is where a
 * trampoline without an FDE of its own may start.  Only a return address:
 * an interrupted IP (pc == w->ip) is inside its function.
 */
static bool sframe_tramp_after(struct sframe_walk *w, struct sframe_code *code,
			       u64 pc, bool at_end)
{
	return pc != w->ip && at_end && sframe_at_sigreturn(w, code);
}

/*
 * What @sec says of the frame at @pc, by decoding its FDE and FRE into
 * *@rule: SFRAME_STEP_NONE when it has no rule there.
 */
static noinline enum sframe_step sframe_how_decode(struct sframe_walk *w,
					  struct sframe_code *code,
					  const struct sframe_section *sec,
					  u64 bias, u64 pc,
					  struct sframe_rule *rule)
{
	struct sframe_fde fde;
	struct sframe_fre fre;

	if (sframe_find_fde(sec, pc - bias, &fde))
		return SFRAME_STEP_NONE;
	if (fde.signal ||
	    sframe_tramp_after(w, code, pc,
			       w->ip - bias == fde.start + fde.size))
		return SFRAME_STEP_SIGNAL;
	if (sframe_fde_find_fre(sec, &fde, pc - bias, &fre, NULL) ||
	    sframe_fre_rule(sec, &fde, &fre, rule))
		return SFRAME_STEP_NONE;
	return SFRAME_STEP_RULE;
}

/*
 * The same answer from the section's flattened table: one search.  Inline:
 * it is every frame's lookup, and a call and return cost as much again.
 */
static __always_inline enum sframe_step sframe_how_flat(struct sframe_walk *w,
					struct sframe_code *code,
					const struct sframe_section *sec,
					u64 bias, u64 pc,
					const struct sframe_rule **rulep,
					bool *keep)
{
	const struct sframe_flat *flat = sec->flat;
	s64 rel_pc = (s64)(pc - bias - sec->vaddr);
	bool at_end;
	u16 row = sframe_flat_find(flat, rel_pc, &at_end);

	if (SFRAME_FLAT_KIND(row) == SFRAME_FLAT_SIGNAL)
		return SFRAME_STEP_SIGNAL;
	/* pc is w->ip - 1 when it matters. */
	if (sframe_tramp_after(w, code, pc, at_end))
		return SFRAME_STEP_SIGNAL;
	*rulep = sframe_flat_rule(flat, row, rel_pc);
	*keep = !at_end;
	return *rulep ? SFRAME_STEP_RULE : SFRAME_STEP_NONE;
}

/*
 * What @sec says at @pc: through its table if it has one.  *@keep: the
 * answer is the table's and depends on nothing but @pc (the step cache
 * may keep it).
 */
static __always_inline enum sframe_step sframe_how_sec(struct sframe_walk *w,
				       struct sframe_code *code,
				       const struct sframe_section *sec,
				       u64 bias, u64 pc,
				       const struct sframe_rule **rulep,
				       struct sframe_rule *scratch, bool *keep)
{
	*rulep = scratch;
	*keep = false;
	if (!sec)
		return SFRAME_STEP_NONE;
	if (sec->flat)
		return sframe_how_flat(w, code, sec, bias, pc, rulep, keep);
	return sframe_how_decode(w, code, sec, bias, pc, scratch);
}

/*
 * How SFrame steps from the frame at @pc; for SFRAME_STEP_RULE, *@rulep is
 * the rule, found in a section's flattened table or decoded into *@scratch:
 * the object's section, else the one filling its gaps.  The sections are
 * looked up again only when @pc leaves the range of the last answer: most
 * frames are in the same object as the one before.  *@keep: a rule the
 * step cache may keep, the object's own section's (w->where.sec).
 */
static enum sframe_step sframe_walk_how(struct sframe_walk *w,
					 struct sframe_code *code, u64 pc,
					 const struct sframe_rule **rulep,
					 struct sframe_rule *scratch, bool *keep)
{
	struct sframe_where *where = &w->where;
	enum sframe_step how;

	if (pc < where->start || pc >= where->end) {
		*where = (struct sframe_where){};
		SFRAME_WALK_LOOKUP(w, pc, where);
		/* Another machine's section has no rules for this one. */
		if (where->sec && where->sec->abi != w->arch->abi)
			where->sec = NULL;
		if (where->fill && where->fill->abi != w->arch->abi)
			where->fill = NULL;
	}
	how = sframe_how_sec(w, code, where->sec, where->bias, pc, rulep,
			     scratch, keep);
	if (how == SFRAME_STEP_NONE && where->fill) {
		how = sframe_how_sec(w, code, where->fill, where->bias, pc,
				     rulep, scratch, keep);
		*keep = false;
	}
	if (how == SFRAME_STEP_NONE && sframe_at_sigreturn(w, code))
		return SFRAME_STEP_SIGNAL;
	return how;
}

/*
 * Which of the machine's epilogues (struct sframe_epilogue) the code at
 * w->ip (@code) is, if any.
 */
static const struct sframe_epilogue *
sframe_find_epilogue(struct sframe_walk *w, struct sframe_code *code,
		     bool interrupted)
{
	const struct sframe_arch *arch = w->arch;
	unsigned int i;

	for (i = 0; i < arch->nr_epilogue; i++) {
		const struct sframe_epilogue *e = &arch->epilogue[i];

		if ((!e->interrupted_only || interrupted) &&
		    sframe_code_is(w, code, &e->code))
			return e;
	}
	return NULL;
}

/*
 * A frame no table describes, at a plain epilogue: stepped as that code
 * will step it, which is no guess.  At an interrupted IP it is what runs
 * next; at a return address, what runs once the callee returns, SP then
 * being the callee's CFA: so only where SP is exact.  False, nothing
 * changed, where the bytes differ or cannot be read (the frame-pointer
 * step follows, as before); true where it stepped, or found the return
 * address's slot unreadable, which ends the walk (w->stop).
 */
static bool sframe_walk_epilogue(struct sframe_walk *w,
				 struct sframe_code *code)
{
	const struct sframe_epilogue *e;
	u64 cfa, ra;

	if (!w->sp_exact)
		return false;
	e = sframe_find_epilogue(w, code, w->first || w->exact_ip);
	if (!e)
		return false;
	cfa = w->sp + e->cfa_offset;
	if (SFRAME_WALK_READ(w, cfa - WORD, &ra, 1))
		return !sframe_walk_fail(w, SFRAME_STOP_READ);

	w->ip = ra & SFRAME_WALK_RA_MASK(w);
	w->sp = cfa;
	w->ra_known = false;
	w->epilogue_steps++;
	return true;
}

/*
 * The floor under every step: the frame-pointer step the stock walker
 * takes, wherever SFrame has no answer for the frame (no section, no FDE)
 * or its answer cannot be used there (a register no longer known, a CFA
 * or a saved register that fails the checks).  A stack is then never
 * shorter than the stock walker makes it; SFrame only adds frames.  Only
 * an SFrame answer that there is no caller (the outermost frame) ends the
 * walk without it.  w->stop says why SFrame did not step (SFRAME_STOP_NONE:
 * it had no answer); if the frame pointers fail too, that stays the
 * reason the walk ends, else the frame-pointer step's own is, and always
 * where the step refused a return address that follows no call: that
 * frame is the one the stock walker would have invented.
 */
static bool sframe_walk_fp_floor(struct sframe_walk *w,
				 struct sframe_code *code)
{
	enum sframe_walk_stop stop = w->stop;

	if (stop == SFRAME_STOP_OUTERMOST)
		return false;
	if (!stop && sframe_walk_epilogue(w, code))
		return !w->stop;
	w->stop = SFRAME_STOP_NONE;
	if (!sframe_walk_fp(w, code, !stop)) {
		if (stop && w->stop != SFRAME_STOP_NOT_CALL &&
		    w->stop != SFRAME_STOP_CODE_UNREADABLE)
			w->stop = stop;
		return false;
	}
	if (stop || w->where.sec || w->where.fill)
		w->fp_fallback_steps++;
	return true;
}

/* The step cache's slot for @rel (an address in the object) of section @id. */
static __always_inline struct sframe_step_entry *
sframe_step_slot(struct sframe_step_cache *cache, u64 id, u64 rel)
{
	u64 hash = (rel ^ id) * 0x9e3779b97f4a7c15ULL;

	return &cache->e[hash >> (64 - SFRAME_STEP_CACHE_BITS)];
}

/*
 * Keep @rule, which stepped the frame at return address @pc, in the step
 * cache if it has the loop's form (struct sframe_step_form).
 */
static void sframe_step_keep(struct sframe_walk *w, u64 pc,
			     const struct sframe_rule *rule)
{
	const struct sframe_arch *arch = w->arch;
	struct sframe_step_entry e = {
		.sec_id = w->where.sec->id, .rel = pc - w->where.bias,
	};

	if (!e.sec_id ||
	    !sframe_rule_step(rule, arch->sp_reg, arch->fp_reg, &e.step))
		return;
	*sframe_step_slot(w->cache, e.sec_id, e.rel) = e;
}

/*
 * A miss of the loop at @delta (the call's address less the table's
 * base, flat->base): in *@stepp, the step the flattened table @flat gives,
 * when the loop may take it: a rule of the loop's form, not at a
 * function's last byte (where a trampoline without an FDE may follow,
 * which the full step looks for).  Anything else (no rule, a signal
 * frame, a PLT's) is the full step's: false.  The table's forms were made
 * with its section's SP and FP, the walk's machine's: the walk uses no
 * section of another ABI (walk.c).
 */
static __always_inline bool
sframe_step_miss(const struct sframe_flat *flat, u64 delta,
		 const struct sframe_step_form **stepp)
{
	const struct sframe_step_form *step;
	struct sframe_flat_pos pos;
	u16 row;

	row = sframe_flat_row_at(flat, delta, &pos);
	/* The common row, a rule not ending a function, by one test. */
	if (unlikely((row & SFRAME_FLAT_KIND_END) !=
		     SFRAME_FLAT_RULE << SFRAME_FLAT_KIND_SHIFT) &&
	    (SFRAME_FLAT_KIND(row) != SFRAME_FLAT_RULE ||
	     sframe_flat_ends_at(flat, &pos, delta)))
		return false;
	step = &flat->forms[row & SFRAME_FLAT_INDEX_MASK];
	*stepp = step;
	return step->fp_at != SFRAME_STEP_NO_FORM;
}

/*
 * The loop may take the next frame: w->ip is a return address (not the
 * interrupted IP, not one a signal frame restored), whose answer is the
 * same every time.
 */
static __always_inline bool sframe_walk_at_return(const struct sframe_walk *w)
{
	return !w->first && !w->exact_ip;
}

/* The step cache may keep the answer for the next frame. */
static __always_inline bool sframe_walk_cacheable(const struct sframe_walk *w)
{
	return w->cache && sframe_walk_at_return(w);
}

/*
 * What a return address less 1 is less to be the key in the flattened
 * table of the object's own section (flat.h): the call's offset from the
 * table's base, with the terms that hold for the object (its load bias,
 * the section's address, the table's base) summed once.
 */
static __always_inline u64 sframe_walk_origin(const struct sframe_walk *w)
{
	const struct sframe_section *sec = w->where.sec;

	return w->where.bias + 1 + sec->vaddr + (u64)sec->flat->base;
}

/*
 * A miss of the cached loop at return address @ip: the flattened
 * table's step, when the loop may take it (sframe_step_miss()), kept in
 * the entry @e for @id and @rel, whether or not its step succeeds (the
 * table's answer depends on nothing but @rel).  A call of its own, so
 * that the hits' registers are the loop's.  False if the loop cannot
 * take the frame.
 */
static noinline bool sframe_step_refill(struct sframe_walk *w,
					struct sframe_step_entry *e, u64 ip,
					u64 id, u64 rel)
{
	const struct sframe_step_form *step;

	if (!sframe_step_miss(w->where.sec->flat,
			      ip - sframe_walk_origin(w), &step))
		return false;
	*e = (struct sframe_step_entry){
		.sec_id = id, .rel = rel, .step = *step,
	};
	return true;
}

/*
 * Step from return address to return address, storing each caller's IP
 * in @ips, @max at most, while the frame's rule has the loop's form
 * (struct sframe_step_form): from the step cache when @cached and it
 * holds the return address, else from the flattened table of the
 * object's own section, whose answer the cache then keeps.  Return: the
 * number stored.  The walk's state stays in registers, and a miss's
 * table search is out of the hits' way: a warm walk's frames pay for the
 * probe alone.  Where the loop stops, @w is as its last step left it,
 * for the full step, which says why a step fails.
 */
static __always_inline unsigned int
sframe_walk_loop(struct sframe_walk *w, u64 *ips, unsigned int max,
		 bool cached)
{
	/*
	 * The range, the bias, the cache and FP are read where they are
	 * used, as operands, and FP is kept in @w as each step makes it:
	 * only the walk's own state stays in registers across each read.
	 */
	const struct sframe_where *where = &w->where;
	const struct sframe_section *sec = where->sec;
	const struct sframe_flat *flat = sec ? sec->flat : NULL;
	u64 pc = w->ip - 1, sp = w->sp, fp, cfa, ra, saved[2];
	u64 mask = SFRAME_WALK_RA_MASK(w);
	u64 id, origin;
	const struct sframe_step_form *step;
	struct sframe_step_entry *e = NULL;
	/*
	 * ips[max + i], i counting up to 0: one register for both.
	 * missed_at: the i of the last miss; 1, which i never is, for none.
	 */
	u64 *end = ips + max;
	long i = -(long)max, missed_at = 1;
	unsigned int n, misses = 0;

	/*
	 * SP only bounded (after a frame record, AArch64): the full step
	 * takes the next frame, after which every SP is exact.  Only a
	 * section with an id has entries (walk.h).
	 */
	if (!flat || (cached && !sec->id) || !w->sp_exact || !max)
		return 0;
	id = sec->id;
	if (!cached)
		origin = sframe_walk_origin(w);
	do {
		u64 rel;

		/* The call, at pc (a return address less 1), is in the range. */
		if (pc < where->start || pc >= where->end)
			break;
		/* pc in the object */
		rel = pc - where->bias;
		if (cached)
			e = sframe_step_slot(w->cache, id, rel);
		if (cached && likely(e->rel == rel && e->sec_id == id)) {
			step = &e->step;
		} else {
			/*
			 * With a cache, a miss finds its table again, out of
			 * the hits' way, and the entry keeps its answer.
			 */
			if (cached ? !sframe_step_refill(w, e, pc + 1, id, rel) :
			    !sframe_step_miss(flat, pc + 1 - origin, &step))
				break;
			if (cached)
				step = &e->step;
			misses++;
			missed_at = i;
		}
		fp = w->fp;
		cfa = (step->from_fp ? fp : sp) + step->cfa_offset;
		if (sframe_step_check_cfa(cfa, sp, false))
			break;
		/* The rest of the form is read only where it is needed. */
		if (likely(step->fp_at == SFRAME_STEP_FP_BELOW_RA) ?
		    !sframe_step_read_record(w, cfa, step->ra_offset, saved) :
		    !sframe_step_read_saved(w, cfa, step->ra_offset,
					    step->fp_offset, step->fp_at,
					    saved))
			break;
		ra = saved[1] & mask;
		if (!ra)
			break;
		pc = ra - 1;
		sp = cfa;
		w->fp = saved[0];
		end[i] = ra;
	} while (++i);
	n = max + i;
	/* A miss whose step failed is no step. */
	misses -= missed_at == i;
	if (n) {
		/* The last IP stored: ra is dead once the read is made. */
		w->ip = end[i - 1];
		w->sp = sp;
		w->sp_exact = true;
		w->ra_known = false;
		w->sframe_steps += n;
		if (cached)
			w->cached_steps += n - misses;
	}
	return n;
}

/*
 * A walk without a step cache takes the same loop, a function of its
 * own, with registers of its own; the cache's, every warm frame's cost,
 * is inline in the walk's.
 */
static noinline unsigned int sframe_walk_table(struct sframe_walk *w,
					       u64 *ips, unsigned int max)
{
	return sframe_walk_loop(w, ips, max, false);
}

/*
 * Step to the caller.  True: w->ip is now the caller's return address, or
 * the interrupted IP when the step went through a signal frame or a
 * frame record whose runtime planted it.  False: the walk is over and
 * w->stop says why.  A return address is looked up at IP - 1 (the call
 * instruction), an interrupted IP at itself.
 */
static __always_inline bool sframe_walk_step(struct sframe_walk *w)
{
	struct sframe_rule scratch;	/* a rule decoded for this step */
	struct sframe_code code;	/* the code at w->ip, read once */
	const struct sframe_rule *rulep;
	bool stepped = false, cached, keep;
	enum sframe_step how;
	u64 pc;

	if (w->stop)
		return false;
	cached = sframe_walk_cacheable(w);
	pc = w->first || w->exact_ip ? w->ip : w->ip - 1;
	sframe_code_at(&code, w->ip);
	how = sframe_walk_how(w, &code, pc, &rulep, &scratch, &keep);
	/*
	 * The signal frame is at SP, which a frame record left only bounded
	 * (AArch64).  The record the kernel pushes above it (arm64: the
	 * interrupted x29 and x30, which the handler's record points to)
	 * still leads on, as the stock walker follows it.
	 */
	if (how == SFRAME_STEP_SIGNAL && !w->sp_exact)
		how = SFRAME_STEP_NONE;
	if (how == SFRAME_STEP_RULE) {
		stepped = sframe_walk_rule(w, rulep);
		if (stepped && cached && keep)
			sframe_step_keep(w, pc, rulep);
	} else if (how == SFRAME_STEP_SIGNAL) {
		stepped = sframe_walk_sigframe(w);
	}
	if (!stepped) {
		how = SFRAME_STEP_NONE;
		if (!sframe_walk_fp_floor(w, &code))
			return false;
	}
	w->first = false;
	w->exact_ip = how == SFRAME_STEP_SIGNAL || w->ip_planted;
	w->ip_planted = false;
	if (!w->ip)
		return sframe_walk_fail(w, SFRAME_STOP_IP_ZERO);
	return true;
}

/**
 * sframe_walk_fill() - step on, a batch of frames at a time
 * @w: the walk
 * @ips: where each caller's IP is stored
 * @max: how many at most
 *
 * No callback per frame: the caller consumes the batch inline.
 *
 * Return: how many were stored; fewer than @max when the walk ended, and
 * then w->stop says why.
 */
unsigned int sframe_walk_fill(struct sframe_walk *w, u64 *ips,
			      unsigned int max)
{
	unsigned int n = 0;

	while (n < max) {
		/* The loop's frames, then the full step's. */
		if (sframe_walk_at_return(w) && !w->stop) {
			n += w->cache ? sframe_walk_loop(w, ips + n, max - n, true) :
					sframe_walk_table(w, ips + n, max - n);
			if (n == max)
				break;
		}
		if (!sframe_walk_step(w))
			break;
		ips[n++] = w->ip;
	}
	return n;
}

/**
 * sframe_walk_next() - step to the caller's frame
 * @w: the walk; w->ip is the caller's IP after a step
 *
 * Return: true if the step was made; false when the walk ended, and
 * w->stop says why.
 */
bool sframe_walk_next(struct sframe_walk *w)
{
	u64 ip;

	return sframe_walk_fill(w, &ip, 1);
}
