// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl gen --compare: the generated section against the object's own
 * .sframe, rule by rule, at every byte or at listed addresses.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

/* Rules compare equal when they recover the same values the same way. */
static void normalize_loc(struct sframe_loc *loc, const struct sframe_loc *cfa)
{
	if ((loc->kind == SFRAME_LOC_AT_REG) && cfa->kind == SFRAME_LOC_REG &&
	    loc->reg == cfa->reg) {
		loc->kind = SFRAME_LOC_AT_CFA;
		loc->offset -= cfa->offset;
	}
	if (loc->kind == SFRAME_LOC_AT_CFA)
		loc->reg = 0;
	if (loc->kind == SFRAME_LOC_SAME || loc->kind == SFRAME_LOC_UNDEFINED) {
		loc->reg = 0;
		loc->offset = 0;
	}
}

/* A signed RA (AArch64's PAC) is part of what a rule recovers. */
static void normalize_rule(struct sframe_rule *r)
{
	r->flags &= SFRAME_RULE_OUTERMOST | SFRAME_RULE_RA_MANGLED;
	if (r->flags & SFRAME_RULE_OUTERMOST) {
		r->flags = SFRAME_RULE_OUTERMOST;
		memset(&r->cfa, 0, sizeof(r->cfa));
		memset(&r->fp, 0, sizeof(r->fp));
		return;
	}
	normalize_loc(&r->ra, &r->cfa);
	normalize_loc(&r->fp, &r->cfa);
}

static const char *fmt_loc(char *buf, size_t size, const struct sframe_loc *l)
{
	/* x86-64's and AArch64's frame and stack pointers */
	static const char * const names[] = {
		[6] = "fp", [7] = "sp", [29] = "fp", [31] = "sp",
	};
	const char *reg = l->reg < ARRAY_SIZE(names) && names[l->reg] ?
			  names[l->reg] : NULL;
	char r[8];

	if (!reg) {
		snprintf(r, sizeof(r), "r%u", l->reg);
		reg = r;
	}
	switch (l->kind) {
	case SFRAME_LOC_AT_CFA:
		snprintf(buf, size, "c%+d", l->offset);
		break;
	case SFRAME_LOC_REG:
		snprintf(buf, size, "%s%+d", reg, l->offset);
		break;
	case SFRAME_LOC_AT_REG:
		snprintf(buf, size, "(%s%+d)", reg, l->offset);
		break;
	default:
		snprintf(buf, size, "u");
	}
	return buf;
}

static void fmt_rule(char *buf, size_t size, const struct sframe_rule *r)
{
	char a[32], b[32], c[32];

	if (r->flags & SFRAME_RULE_OUTERMOST) {
		snprintf(buf, size, "RA undefined");
		return;
	}
	snprintf(buf, size, "CFA %s RA %s%s FP %s",
		 fmt_loc(a, sizeof(a), &r->cfa), fmt_loc(b, sizeof(b), &r->ra),
		 r->flags & SFRAME_RULE_RA_MANGLED ? "[s]" : "",
		 fmt_loc(c, sizeof(c), &r->fp));
}

struct gen_compare {
	const struct sframe_section *ref;
	const struct sframe_section *mine;
	u64 both;
	u64 agree;
	u64 ref_only;
	bool in_diff;			/* the last address compared differed */
	u64 start;			/* the current run of differences */
	u64 end;
	struct sframe_rule ref_rule;
	struct sframe_rule gen_rule;
};

static void flush_diff(struct gen_compare *c)
{
	char a[96], b[96];

	if (c->end == c->start)
		return;
	fmt_rule(a, sizeof(a), &c->ref_rule);
	fmt_rule(b, sizeof(b), &c->gen_rule);
	printf("  differ 0x%llx-0x%llx: .sframe %s | gen %s\n",
	       (unsigned long long)c->start, (unsigned long long)c->end, a, b);
	c->start = c->end;
}

static void compare_at(struct gen_compare *c, u64 pc)
{
	struct sframe_rule a, b;
	bool same;

	if (sframe_find(c->ref, pc, &a))
		return;
	if (sframe_find(c->mine, pc, &b)) {
		c->ref_only++;
		return;
	}
	c->both++;
	normalize_rule(&a);
	normalize_rule(&b);
	if (!memcmp(&a, &b, sizeof(a))) {
		c->agree++;
		c->in_diff = false;
		return;
	}
	same = !memcmp(&a, &c->ref_rule, sizeof(a)) &&
	       !memcmp(&b, &c->gen_rule, sizeof(b));
	if (!c->in_diff || !same) {
		flush_diff(c);
		c->start = pc;
		c->ref_rule = a;
		c->gen_rule = b;
	}
	c->end = pc + 1;
	c->in_diff = true;
}

/*
 * Compare the file's own .sframe with the generated section: at every
 * byte its FDEs cover, or only at the addresses listed in @at_path (one
 * hexadecimal address per line, e.g. instruction addresses from objdump).
 * Prints the agreement and the differing address ranges with both rules.
 */
int gen_compare(const char *path, const struct sframe_section *mine,
		const char *at_path)
{
	char msg[SFRAME_MSG_MAX] = "", line[64];
	struct gen_compare c = { .mine = mine };
	struct sframe_section ref;
	struct sframe_error err;
	struct sframe_input in;
	FILE *at = NULL;
	u32 i;

	if (at_path)
		at = fopen(at_path, "r");
	if (at_path && !at) {
		fprintf(stderr, "sframectl: %s: %s\n", at_path, strerror(errno));
		return EXIT_USAGE;
	}
	if (sframe_input_load(&in, path, false, msg, sizeof(msg))) {
		fprintf(stderr, "sframectl: %s: %s\n", path, msg);
		sframe_input_free(&in);
		if (at)
			fclose(at);
		return EXIT_INVALID;
	}
	if (in.size > U32_MAX ||
	    sframe_validate(&ref, in.bytes, (u32)in.size, in.vaddr,
			    in.options, &err)) {
		fprintf(stderr, "sframectl: %s: its .sframe is invalid\n",
			path);
		sframe_input_free(&in);
		if (at)
			fclose(at);
		return EXIT_INVALID;
	}
	c.ref = &ref;
	while (at && fgets(line, sizeof(line), at))
		compare_at(&c, strtoull(line, NULL, 16));
	for (i = 0; !at && i < ref.num_fdes; i++) {
		struct sframe_fde fde;
		u64 pc;

		if (sframe_get_fde(&ref, i, &fde))
			continue;
		for (pc = fde.start; pc < fde.start + fde.size; pc++)
			compare_at(&c, pc);
	}
	flush_diff(&c);
	printf("%s: agreement %.2f%% (%llu of %llu %s both cover agree; %llu only in .sframe)\n",
	       path, c.both ? 100.0 * (double)c.agree / (double)c.both : 0.0,
	       (unsigned long long)c.agree, (unsigned long long)c.both,
	       at ? "listed addresses" : "bytes",
	       (unsigned long long)c.ref_only);
	if (at)
		fclose(at);
	sframe_input_free(&in);
	return 0;
}

