// SPDX-License-Identifier: GPL-2.0
/*
 * Lookups against the toolchains' own word: for every fixture section, the
 * FDEs match the reference objdump dump, and sframe_find() returns the
 * dump's rule at every FRE start address and at the last address before
 * the next one.  The reference text is parsed here, independently of
 * sframectl's dump code.
 *
 * usage: fixtures_test FIXTURES_DIR
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../../sframectl/sframectl.h"
#include "tap.h"

#define MAX_ROWS	256
#define MAX_FUNCS	64
#define COL		64

struct ref_row {
	u64 pc;
	bool outermost;
	char cfa[COL], fp[COL], ra[COL];
};

struct ref_func {
	u64 pc;
	u32 size;
	bool mask;
	unsigned int nrows;
	struct ref_row rows[MAX_ROWS];
};

struct ref_dump {
	unsigned int nfuncs;
	struct ref_func funcs[MAX_FUNCS];
};

/* Reference dumps this test reads, and how to load their section. */
static const struct {
	const char *input;
	bool raw;
	const char *reference;
} cases[] = {
	{ "sid-2.47.50/prog", false, "sid-2.47.50/prog.objdump-sframe.by-2.47.50.txt" },
	{ "sid-2.47.50/prog-static", false, "sid-2.47.50/prog-static.objdump-sframe.by-2.47.50.txt" },
	{ "sid-2.47.50/prog.o", false, "sid-2.47.50/prog.o.objdump-sframe.by-2.47.50.txt" },
	{ "sid-2.47.50/prog-r.o", false, "sid-2.47.50/prog-r.o.objdump-sframe.by-2.47.50.txt" },
	{ "sid-2.47.50/hand.o", false, "sid-2.47.50/hand.o.objdump-sframe.by-2.47.50.txt" },
	{ "trixie-2.44/prog", false, "trixie-2.44/prog.objdump-sframe.by-2.47.50.txt" },
	{ "trixie-2.44/prog-static", false, "trixie-2.44/prog-static.objdump-sframe.by-2.47.50.txt" },
	{ "trixie-2.44/prog.o", false, "trixie-2.44/prog.o.objdump-sframe.by-2.47.50.txt" },
	{ "trixie-2.44/hand.o", false, "trixie-2.44/hand.o.objdump-sframe.by-2.47.50.txt" },
	/* v1: binutils 2.40's own dumps; its objdump left .o sections unrelocated. */
	{ "bookworm-2.40/prog", false, "bookworm-2.40/prog.objdump-sframe.txt" },
	{ "bookworm-2.40/prog-static", false, "bookworm-2.40/prog-static.objdump-sframe.txt" },
	{ "bookworm-2.40/prog.o.sframe.bin", true, "bookworm-2.40/prog.o.objdump-sframe.txt" },
	{ "bookworm-2.40/hand.o.sframe.bin", true, "bookworm-2.40/hand.o.objdump-sframe.txt" },
};

static bool parse_reference(const char *path, struct ref_dump *ref)
{
	struct ref_func *fn = NULL;
	char line[512];
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	memset(ref, 0, sizeof(*ref));
	while (fgets(line, sizeof(line), f)) {
		unsigned long long pc;
		unsigned int idx, size;
		struct ref_row *row;
		char a[COL], b[COL], c[COL];
		int n;

		if (sscanf(line, "    func idx [%u]: pc = 0x%llx, size = %u bytes",
			   &idx, &pc, &size) == 3) {
			if (ref->nfuncs == MAX_FUNCS)
				break;
			fn = &ref->funcs[ref->nfuncs++];
			fn->pc = pc;
			fn->size = size;
			continue;
		}
		if (fn && !strncmp(line, "    STARTPC", 11)) {
			fn->mask = !strncmp(line + 11, "[m]", 3);
			continue;
		}
		if (!fn || sscanf(line, " %llx %63s %63s %63s%n", &pc, a, b, c, &n) < 3)
			continue;
		if (fn->nrows == MAX_ROWS)
			break;
		row = &fn->rows[fn->nrows++];
		row->pc = pc;
		row->outermost = !strcmp(a, "RA") && !strcmp(b, "undefined");
		snprintf(row->cfa, COL, "%s", a);
		snprintf(row->fp, COL, "%s", b);
		snprintf(row->ra, COL, "%s", c);
	}
	fclose(f);
	return ref->nfuncs > 0;
}

/* Our rule in a canonical notation. */
static void fmt_loc(char *buf, size_t size, const struct sframe_loc *loc)
{
	switch (loc->kind) {
	case SFRAME_LOC_SAME:
		snprintf(buf, size, "same");
		break;
	case SFRAME_LOC_AT_CFA:
		snprintf(buf, size, "*(cfa%+d)", loc->offset);
		break;
	case SFRAME_LOC_REG:
		snprintf(buf, size, "r%u%+d", loc->reg, loc->offset);
		break;
	case SFRAME_LOC_AT_REG:
		snprintf(buf, size, "*(r%u%+d)", loc->reg, loc->offset);
		break;
	default:
		snprintf(buf, size, "undefined");
		break;
	}
}

static void fmt_rule(char *buf, size_t size, const struct sframe_rule *rule)
{
	char cfa[COL], ra[COL], fp[COL];

	if (rule->flags & SFRAME_RULE_OUTERMOST) {
		snprintf(buf, size, "outermost");
		return;
	}
	/* The CFA is a value, not a slot: show REG as is, AT_REG deref'd. */
	fmt_loc(cfa, sizeof(cfa), &rule->cfa);
	fmt_loc(ra, sizeof(ra), &rule->ra);
	fmt_loc(fp, sizeof(fp), &rule->fp);
	snprintf(buf, size, "cfa=%s ra=%s fp=%s", cfa, ra, fp);
}

/*
 * A reference column in the same notation.  objdump writes "sp+16"
 * (default CFA, "sp+-8" when negative), "r10+0" / "(fp-8)" (flex),
 * "c-16" (a CFA slot), "rN" (s390x v2 register), "u"/"U"/"f".
 */
static bool parse_col(const struct sframe_section *sec, const char *col,
		      bool is_cfa, struct sframe_loc *loc)
{
	char name[COL];
	const char *p = col;
	bool deref = false;
	size_t len = 0;
	char *end;
	long off;

	if (*p == '(') {
		deref = true;
		p++;
	}
	while (p[len] && p[len] != '+' && p[len] != '-' && p[len] != ')')
		len++;
	if (!len || len >= sizeof(name))
		return false;
	memcpy(name, p, len);
	name[len] = 0;
	p += len;
	if (p[0] == '+' && p[1] == '-')
		p++;
	off = *p && *p != ')' ? strtol(p, &end, 10) : 0;

	loc->offset = (s32)off;
	if (!strcmp(name, "c")) {
		loc->kind = SFRAME_LOC_AT_CFA;
		return !is_cfa && !deref;
	}
	if (!strcmp(name, "sp"))
		loc->reg = sec->sp_reg;
	else if (!strcmp(name, "fp"))
		loc->reg = sec->fp_reg;
	else if (name[0] == 'r')
		loc->reg = (u8)atoi(name + 1);
	else
		return false;
	loc->kind = deref ? SFRAME_LOC_AT_REG : SFRAME_LOC_REG;
	return true;
}

static bool reference_rule(const struct sframe_section *sec,
			   const struct ref_row *row, struct sframe_rule *rule)
{
	char ra[COL];
	char *mangled;

	memset(rule, 0, sizeof(*rule));
	if (row->outermost) {
		rule->flags = SFRAME_RULE_OUTERMOST;
		return true;
	}
	if (!parse_col(sec, row->cfa, true, &rule->cfa))
		return false;
	snprintf(ra, sizeof(ra), "%s", row->ra);
	mangled = strstr(ra, "[s]");
	if (mangled)
		*mangled = 0;
	/* "f": the header's fixed slot; "U"/"u": not tracked in the FRE. */
	if (!strcmp(ra, "f") || !strcmp(ra, "U") || !strcmp(ra, "u")) {
		rule->ra.kind = sec->fixed_ra ? SFRAME_LOC_AT_CFA : SFRAME_LOC_SAME;
		rule->ra.offset = sec->fixed_ra;
	} else if (!parse_col(sec, ra, false, &rule->ra)) {
		return false;
	}
	if (!strcmp(row->fp, "u"))
		rule->fp.kind = SFRAME_LOC_SAME;
	else if (!parse_col(sec, row->fp, false, &rule->fp))
		return false;
	return true;
}

/* Rule at @pc, through the global lookup for sorted sections. */
static int rule_at(const struct sframe_section *sec,
		   const struct sframe_fde *fde, u64 pc,
		   struct sframe_rule *rule)
{
	struct sframe_fre fre;
	int ret;

	if (sec->flags & SFRAME_F_FDE_SORTED)
		return sframe_find(sec, pc, rule);
	ret = sframe_fde_find_fre(sec, fde, pc, &fre, NULL);
	return ret ? ret : sframe_fre_rule(sec, fde, &fre, rule);
}

static void check_pc(const struct sframe_section *sec,
		     const struct sframe_fde *fde, u64 pc,
		     const char *want, const char *what)
{
	struct sframe_rule rule;
	char got[3 * COL + 16];
	int ret;

	ret = rule_at(sec, fde, pc, &rule);
	if (ret)
		snprintf(got, sizeof(got), "error %d", ret);
	else
		fmt_rule(got, sizeof(got), &rule);
	if (!tap_ok(!strcmp(got, want), "%s: pc 0x%" PRIx64 " -> %s", what,
		    pc, want))
		tap_diag("got %s", got);
}

static void check_function(const struct sframe_section *sec,
			   const struct ref_func *fn, u32 index,
			   const char *name)
{
	struct sframe_fde fde;
	unsigned int r;
	char what[512];

	snprintf(what, sizeof(what), "%s FDE %u", name, index);
	if (!tap_ok(sframe_get_fde(sec, index, &fde) == 0 &&
		    fde.start == fn->pc && fde.size == fn->size &&
		    (fde.pc_type == SFRAME_PC_TYPE_MASK) == fn->mask &&
		    fde.num_fres == fn->nrows,
		    "%s: start 0x%" PRIx64 ", size %u, %u FREs as dumped",
		    what, fn->pc, fn->size, fn->nrows))
		return;

	for (r = 0; r < fn->nrows; r++) {
		const struct ref_row *row = &fn->rows[r];
		u64 base = fn->mask ? fde.start : 0, first, last, blocks;
		struct sframe_rule want_rule;
		char want[3 * COL + 16];

		if (!tap_ok(reference_rule(sec, row, &want_rule),
			    "%s: reference row %u parses", what, r))
			continue;
		fmt_rule(want, sizeof(want), &want_rule);
		first = base + row->pc;
		if (r + 1 < fn->nrows)
			last = base + fn->rows[r + 1].pc - 1;
		else
			last = fn->mask ? base + fde.rep_size - 1 :
					  fde.start + fde.size - 1;
		check_pc(sec, &fde, first, want, what);
		check_pc(sec, &fde, last, want, what);
		/* PC-mask rows repeat in every block of the function. */
		blocks = fn->mask ? fde.size / fde.rep_size : 0;
		if (blocks > 1)
			check_pc(sec, &fde, first + (blocks - 1) * fde.rep_size,
				 want, what);
	}
}

static void check_case(const char *dir, unsigned int c)
{
	char input[1024], reference[1024], msg[SFRAME_MSG_MAX];
	static struct ref_dump ref;
	struct sframe_section sec;
	struct sframe_input in;
	struct sframe_error err;
	unsigned int i;

	snprintf(input, sizeof(input), "%s/%s", dir, cases[c].input);
	snprintf(reference, sizeof(reference), "%s/%s", dir, cases[c].reference);
	if (!tap_ok(parse_reference(reference, &ref), "%s: reference parses",
		    cases[c].reference))
		return;
	if (!tap_ok(sframe_input_load(&in, input, cases[c].raw, msg,
				      sizeof(msg)) == SFRAME_LOAD_OK,
		    "%s: loads", cases[c].input)) {
		tap_diag("%s", msg);
		return;
	}
	if (tap_ok(sframe_validate(&sec, in.bytes, (u32)in.size, in.vaddr, 0,
				   &err) == 0, "%s: validates", cases[c].input) &&
	    tap_ok(sec.num_fdes == ref.nfuncs, "%s: %u FDEs", cases[c].input,
		   ref.nfuncs)) {
		for (i = 0; i < ref.nfuncs; i++)
			check_function(&sec, &ref.funcs[i], i, cases[c].input);
	}
	sframe_input_free(&in);
}

/* Outside every function, and before the first FRE: no rule. */
/* sframe_fdes_within() on spans around the functions of @sec. */
static void check_within(const struct sframe_section *sec,
			 const struct sframe_fde *first,
			 const struct sframe_fde *last)
{
	u64 end = last->start + last->size;
	struct sframe_span all = { first->start, end - first->start };
	struct sframe_span two[2] = {
		{ first->start, first->size },
		{ first->start + first->size, end - first->start - first->size },
	};
	struct sframe_span short_end = { first->start, all.size - 1 };
	struct sframe_span late = { first->start + 1, all.size - 1 };
	struct sframe_span wrap = { ~0ULL - 4, 16 };
	u32 bad = ~0U;

	tap_ok(!sframe_fdes_within(sec, &all, 1, &bad),
	       "within: one span over all functions");
	tap_ok(!sframe_fdes_within(sec, two, 2, &bad),
	       "within: the same split in two spans");
	tap_ok(sframe_fdes_within(sec, &short_end, 1, &bad) == -ERANGE &&
	       bad == sec->num_fdes - 1,
	       "within: a span one byte short names the last FDE (%u)", bad);
	tap_ok(sframe_fdes_within(sec, &late, 1, &bad) == -ERANGE && bad == 0,
	       "within: a span one byte late names FDE 0 (%u)", bad);
	tap_ok(sframe_fdes_within(sec, &wrap, 1, &bad) == -ERANGE && bad == 0,
	       "within: a span that wraps holds nothing");
	tap_ok(sframe_fdes_within(sec, NULL, 0, &bad) == -ERANGE,
	       "within: no spans hold nothing");
}

static void check_misses(const char *dir)
{
	char input[1024], msg[SFRAME_MSG_MAX];
	struct sframe_section sec;
	struct sframe_input in;
	struct sframe_rule rule;
	struct sframe_fde first, last;

	snprintf(input, sizeof(input), "%s/sid-2.47.50/prog", dir);
	if (sframe_input_load(&in, input, false, msg, sizeof(msg)) ||
	    sframe_validate(&sec, in.bytes, (u32)in.size, in.vaddr,
			    SFRAME_REQUIRE_SORTED, NULL) ||
	    sframe_get_fde(&sec, 0, &first) ||
	    sframe_get_fde(&sec, sec.num_fdes - 1, &last)) {
		tap_ok(false, "sid prog loads for miss checks");
		sframe_input_free(&in);
		return;
	}
	tap_ok(sframe_find(&sec, first.start - 1, &rule) == -ENOENT,
	       "pc below the first function: -ENOENT");
	tap_ok(sframe_find(&sec, last.start + last.size, &rule) == -ENOENT,
	       "pc past the last function: -ENOENT");
	tap_ok(sframe_find(&sec, 0, &rule) == -ENOENT, "pc 0: -ENOENT");
	tap_ok(sframe_find(&sec, ~0ULL, &rule) == -ENOENT, "pc ~0: -ENOENT");
	check_within(&sec, &first, &last);
	sframe_input_free(&in);
}

int main(int argc, char **argv)
{
	unsigned int c;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
		return 2;
	}
	for (c = 0; c < ARRAY_SIZE(cases); c++)
		check_case(argv[1], c);
	check_misses(argv[1]);
	return tap_done();
}
