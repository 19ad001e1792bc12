// SPDX-License-Identifier: GPL-2.0
/*
 * The flattened lookup table against the decoder, at every PC of every
 * section named: ELF objects with .sframe, raw sections (--raw), and the
 * sidecars sframectl gen makes.  Sections that cannot have a table
 * (unsorted FDEs) must say so with -EOPNOTSUPP.  The shared checks are
 * those the KUnit suite runs in the kernel (kernel/sframe/tests/flat_check.h).
 * Sections made here with sframectl's encoder cover the edges real ones
 * rarely have: empty and adjacent functions, functions whose first row
 * starts late, too many distinct rules, functions 4 GiB apart.  And the
 * pathological sections of huge_sections.h: each is either flattened,
 * with a bounded search, or refused with its reason.
 *
 * usage: flat_test [--raw] FILE...
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <sframe/encode.h>
#include "../../sframectl/sframectl.h"
#include "../../../kernel/sframe/tests/flat_check.h"
#include "../../../kernel/sframe/tests/huge_sections.h"
#include "tap.h"

/* The check is worth something only if a wrong table fails it. */
static void check_catches(const char *path, const struct sframe_section *sec,
			  struct sframe_flat *flat)
{
	u16 *rows = (u16 *)flat->rows, saved;
	const char *why = NULL;
	u64 bad = 0;
	u32 i;

	/* From the middle: a compact row's start there needs its block. */
	for (i = flat->nr_rows / 2; i < flat->nr_rows; i++) {
		if (SFRAME_FLAT_KIND(rows[i]) == SFRAME_FLAT_RULE &&
		    flat->nr_rules > 1)
			break;
	}
	if (i == flat->nr_rows)
		return;
	saved = rows[i];
	rows[i] = (saved & ~SFRAME_FLAT_INDEX_MASK) |
		  ((saved + 1) % flat->nr_rules);
	/* Rows before it are right: the first PC that differs is its start. */
	tap_ok(!flat_check_all(sec, flat, &bad, &why) &&
	       bad == sec->vaddr + flat->base +
		      sframe_flat_row_start(flat, i),
	       "%s: a wrong rule in row %u is caught (%s)", path, i, why);
	rows[i] = saved;
}

static void check_file(const char *path, bool raw)
{
	static struct sframe_flat_builder b;
	char msg[SFRAME_MSG_MAX];
	struct sframe_section sec;
	struct sframe_flat flat;
	struct sframe_input in;
	unsigned int kinds[4] = { 0 }, ends = 0;
	const char *why = NULL;
	size_t bytes = 0;
	u64 bad = 0, n;
	u32 i;
	void *mem;
	int ret;

	if (!tap_ok(sframe_input_load(&in, path, raw, msg, sizeof(msg)) == 0 &&
		    sframe_validate(&sec, in.bytes, (u32)in.size, in.vaddr,
				    SFRAME_SEGMENT_PADDING, NULL) == 0,
		    "%s: loads and validates", path))
		return;

	ret = sframe_flat_size(&sec, &b, &bytes);
	if (!(sec.flags & SFRAME_F_FDE_SORTED)) {
		tap_ok(ret == -EINVAL && b.error.reason == SFRAME_ERR_NOT_SORTED,
		       "%s: unsorted, no table (%d)", path, ret);
		sframe_input_free(&in);
		return;
	}
	if (!tap_ok(ret == 0, "%s: %u rows, %u rules, %zu bytes for %zu of .sframe",
		    path, b.nr_rows, b.nr_rules, bytes, in.size)) {
		sframe_input_free(&in);
		return;
	}
	mem = malloc(bytes);
	if (!mem) {
		perror("malloc");
		exit(2);
	}
	sframe_flat_build(&sec, &b, mem, &flat);
	tap_ok(flat.nr_rows == b.nr_rows && flat.nr_rules == b.nr_rules,
	       "%s: built as sized", path);
	for (i = 0; i < flat.nr_rows; i++) {
		kinds[SFRAME_FLAT_KIND(flat.rows[i])]++;
		ends += !!(flat.rows[i] & SFRAME_FLAT_END);
	}
	tap_diag("rows: %u none, %u rule, %u signal, %u mask; %u ends; %u blocks of %u bytes",
		 kinds[SFRAME_FLAT_NONE], kinds[SFRAME_FLAT_RULE],
		 kinds[SFRAME_FLAT_SIGNAL], kinds[SFRAME_FLAT_MASK], ends,
		 flat.nr_blocks, 1U << flat.block_shift);
	tap_ok(flat.nr_blocks <= flat.nr_rows, "%s: no more blocks than rows",
	       path);
	tap_ok(flat_check_max_steps(&flat) <= SFRAME_MAX_SEARCH_STEPS,
	       "%s: a lookup takes at most %u search steps", path,
	       flat_check_max_steps(&flat));

	n = flat_check_all(&sec, &flat, &bad, &why);
	if (!tap_ok(n > 0, "%s: table and decoder agree at all %" PRIu64 " PCs",
		    path, n))
		tap_diag("first disagreement at 0x%" PRIx64 ": %s", bad, why);
	check_catches(path, &sec, &flat);

	free(mem);
	sframe_input_free(&in);
}

#define SP	7
#define FP	6

static struct sframe_enc_rule sp_rule(s64 cfa_off)
{
	return (struct sframe_enc_rule){
		.cfa = { .kind = SFRAME_ENC_REG, .reg = SP, .off = cfa_off },
		.ra = { .kind = SFRAME_ENC_AT_CFA, .off = -8 },
	};
}

static struct sframe_flat_builder made_builder;

/*
 * Encode, validate and flatten; sframe_flat_size()'s result, and in
 * made_builder.error why it failed.  With @check, also compare the table
 * with the decoder at every PC and say whether its starts are compact.
 */
static int made(const char *name, const struct sframe_enc_fde *fdes, u32 nfdes,
		const struct sframe_enc_fre *fres, bool check, bool *compact)
{
	struct sframe_flat_builder *b = &made_builder;
	struct sframe_section sec;
	struct sframe_flat flat;
	const char *why = NULL;
	size_t size, bytes = 0;
	u8 *data, *mem;
	u64 bad = 0;
	int ret;

	size = sframe_enc_size(&sframe_arch_x86_64, fdes, nfdes, fres);
	data = malloc(size);
	if (data)
		sframe_encode(&sframe_arch_x86_64, fdes, nfdes, fres, 0x10000,
			      data, size);
	if (!data || sframe_validate(&sec, data, (u32)size, 0x10000,
				     SFRAME_REQUIRE_SORTED, NULL)) {
		tap_ok(false, "%s: encodes and validates", name);
		free(data);
		return -EINVAL;
	}
	ret = sframe_flat_size(&sec, b, &bytes);
	if (!ret && check) {
		mem = malloc(bytes);
		if (!mem) {
			perror("malloc");
			exit(2);
		}
		sframe_flat_build(&sec, b, mem, &flat);
		if (compact)
			*compact = !flat.starts;
		if (!tap_ok(flat_check_all(&sec, &flat, &bad, &why) > 0,
			    "%s: table and decoder agree at every PC", name))
			tap_diag("first disagreement at 0x%" PRIx64 ": %s",
				 bad, why);
		free(mem);
	}
	free(data);
	return ret;
}

static void check_made(void)
{
	/* 0x20000 + n: empty, then one at the same start, adjacent, gap. */
	static const struct sframe_enc_fde edges[] = {
		{ .start = 0x20000, .size = 0, .first = 0, .num = 0 },
		{ .start = 0x20000, .size = 0x10, .first = 0, .num = 2 },
		{ .start = 0x20010, .size = 0x10, .first = 2, .num = 1 },
		{ .start = 0x20020, .size = 0x8, .first = 3, .num = 0 },
		{ .start = 0x20040, .size = 0x20, .first = 3, .num = 2 },
		{ .start = 0x20060, .size = 0x4, .first = 5, .num = 1,
		  .signal = true },
		{ .start = 0x20070, .size = 0x30, .first = 6, .num = 1,
		  .pc_type = SFRAME_PC_TYPE_MASK, .rep_size = 0x10 },
		{ .start = 0x200a0, .size = 0x10, .first = 7, .num = 2 },
		/* A PLT of three rows whose first starts late. */
		{ .start = 0x200b0, .size = 0x40, .first = 9, .num = 3,
		  .pc_type = SFRAME_PC_TYPE_MASK, .rep_size = 0x10 },
		{ .start = 0x200f0, .size = 0x10, .first = 12, .num = 1 },
	};
	/* Rows 64 KiB and more apart: starts stay 32-bit. */
	static const struct sframe_enc_fde sparse[] = {
		{ .start = 0x20000, .size = 0x30000, .first = 0, .num = 2 },
		{ .start = 0x50000, .size = 0x50000, .first = 2, .num = 1 },
	};
	static struct sframe_enc_fre efres[13];
	static struct sframe_enc_fde many[SFRAME_FLAT_MAX_RULES + 1];
	static struct sframe_enc_fre mfres[SFRAME_FLAT_MAX_RULES + 1];
	struct sframe_enc_fde far[2];
	bool compact = false;
	u32 i;

	efres[0] = (struct sframe_enc_fre){ 0, sp_rule(8) };
	efres[1] = (struct sframe_enc_fre){ 1, sp_rule(16) };
	/* as the row before */
	efres[2] = (struct sframe_enc_fre){ 0, sp_rule(16) };
	/* starts late */
	efres[3] = (struct sframe_enc_fre){ 4, sp_rule(8) };
	efres[4] = (struct sframe_enc_fre){ 0x10, sp_rule(24) };
	efres[5] = (struct sframe_enc_fre){ 0, sp_rule(8) };
	efres[6] = (struct sframe_enc_fre){ 0, sp_rule(8) };
	efres[7] = (struct sframe_enc_fre){ 0, sp_rule(8) };
	efres[8] = (struct sframe_enc_fre){ 0xf, sp_rule(16) };
	efres[9] = (struct sframe_enc_fre){ 2, sp_rule(8) };
	efres[10] = (struct sframe_enc_fre){ 6, sp_rule(16) };
	efres[11] = (struct sframe_enc_fre){ 0xc, sp_rule(24) };
	efres[12] = (struct sframe_enc_fre){ 0, sp_rule(8) };
	tap_ok(made("edges", edges, ARRAY_SIZE(edges), efres, true,
		    &compact) == 0 && compact,
	       "edges: flattened, 16-bit starts");
	tap_ok(made("sparse", sparse, ARRAY_SIZE(sparse), efres, true,
		    &compact) == 0 && !compact,
	       "rows 64 KiB apart: flattened, 32-bit starts");

	/* One distinct rule per function: the last one is one too many. */
	for (i = 0; i <= SFRAME_FLAT_MAX_RULES; i++) {
		many[i] = (struct sframe_enc_fde){ .start = 0x20000 + 16 * i,
					    .size = 16, .first = i, .num = 1 };
		mfres[i] = (struct sframe_enc_fre){ 0, sp_rule(8 * (i + 1)) };
	}
	tap_ok(made("4096 rules", many, SFRAME_FLAT_MAX_RULES, mfres,
		    true, NULL) == 0, "4096 distinct rules: flattened");
	tap_ok(made("4097 rules", many, SFRAME_FLAT_MAX_RULES + 1, mfres,
		    false, NULL) == -E2BIG &&
	       made_builder.error.reason == SFRAME_ERR_FLAT_RULES,
	       "4097 distinct rules: -E2BIG, too many rules");
	tap_ok(made("no functions", many, 0, mfres, false, NULL) == 0,
	       "no functions: an empty table");

	/* PLTs with one rule each: the table names at most 4096. */
	for (i = 0; i <= SFRAME_FLAT_MAX_MASKS; i++) {
		many[i].pc_type = SFRAME_PC_TYPE_MASK;
		many[i].rep_size = 16;
		mfres[i] = (struct sframe_enc_fre){ 0, sp_rule(8) };
	}
	tap_ok(made("4096 masks", many, SFRAME_FLAT_MAX_MASKS, mfres,
		    true, NULL) == 0, "4096 PC-mask functions: flattened");
	tap_ok(made("4097 masks", many, SFRAME_FLAT_MAX_MASKS + 1, mfres,
		    false, NULL) == -E2BIG &&
	       made_builder.error.reason == SFRAME_ERR_FLAT_MASKS &&
	       made_builder.error.fde == SFRAME_FLAT_MAX_MASKS,
	       "4097 PC-mask functions: -E2BIG, too many, at the last");

	/* Functions 4 GiB apart: row starts are 32-bit. */
	far[0] = many[0];
	far[1] = many[1];
	far[0].pc_type = far[1].pc_type = SFRAME_PC_TYPE_INC;
	far[0].rep_size = far[1].rep_size = 0;
	far[1].start = far[0].start + 0x100000000ULL;
	tap_ok(made("4 GiB apart", far, 2, mfres, false, NULL) == -ERANGE,
	       "functions 4 GiB apart: -ERANGE");
}

#define HUGE_VADDR	0x10000
#define HUGE_TEXT	0x400000

/* @h, validated as the kernel does; NULL (reported) if out of memory. */
static u8 *huge_make(const struct huge_section *h, struct sframe_section *sec,
		     struct sframe_error *err, int *ret)
{
	u32 size = huge_section_size(h);
	u8 *data = size ? malloc(size) : NULL;

	if (!data) {
		perror("malloc");
		exit(2);
	}
	huge_section_fill(h, data, HUGE_VADDR);
	*ret = sframe_validate(sec, data, size, HUGE_VADDR,
			       SFRAME_REQUIRE_SORTED, err);
	return data;
}

/*
 * Flatten @h; the table's search steps are bounded by the rows' bit count,
 * and at sample PCs (every @stride-th, and the tail) the table agrees with
 * the decoder, which at the tail has to read every FRE of the function.
 */
static void huge_flattens(const char *name, const struct huge_section *h,
			  u32 stride)
{
	static struct sframe_flat_builder b;
	struct sframe_section sec;
	struct sframe_flat flat;
	struct sframe_error err;
	struct sframe_fde fde;
	struct sframe_fre fre;
	unsigned int steps, bits = 0;
	u32 n, fre_index = 0;
	const char *why = NULL;
	size_t bytes = 0;
	u8 *data, *mem;
	u64 pc, tail = huge_tail(h);
	int ret;

	data = huge_make(h, &sec, &err, &ret);
	if (!tap_ok(ret == 0, "%s: validates (%s)", name,
		    sframe_reason_str(err.reason)))
		goto out;
	ret = sframe_flat_size(&sec, &b, &bytes);
	if (!tap_ok(ret == 0 && b.nr_rules == h->nr_rules,
		    "%s: flattened, %u rows, %u rules, %zu bytes for %u", name,
		    b.nr_rows, b.nr_rules, bytes, sec.size))
		goto out;
	mem = malloc(bytes);
	if (!mem) {
		perror("malloc");
		exit(2);
	}
	sframe_flat_build(&sec, &b, mem, &flat);
	for (n = flat.nr_rows; n; n >>= 1)
		bits++;
	steps = flat_check_max_steps(&flat);
	tap_ok(steps <= bits && steps <= SFRAME_MAX_SEARCH_STEPS,
	       "%s: a lookup takes at most %u search steps (%u rows, %u blocks)",
	       name, steps, flat.nr_rows, flat.nr_blocks);
	for (pc = h->text - 2; pc < tail + h->tail + 3; pc += stride) {
		why = flat_check_pc(&sec, &flat, pc);
		if (why)
			break;
		if (pc < tail && pc + stride >= tail)
			pc = tail - stride;
	}
	if (!tap_ok(!why, "%s: table and decoder agree at sample PCs", name))
		tap_diag("first disagreement at 0x%" PRIx64 ": %s", pc, why);
	if (!sframe_find_fde(&sec, tail, &fde) &&
	    !sframe_fde_find_fre(&sec, &fde, tail, &fre, &fre_index))
		tap_diag("%s: at the tail the decoder reads %u FREs, the table takes %u search steps",
			 name, fre_index + 1, steps);
	free(mem);
out:
	free(data);
}

static void check_huge(void)
{
	static struct sframe_flat_builder b;
	struct huge_section h = {
		.text = HUGE_TEXT, .nr_fdes = 1, .fres = 2000000,
		.fre_step = 1, .nr_rules = 2, .tail = 64,
	};
	struct sframe_section sec;
	struct sframe_error err;
	struct sframe_fde fde;
	struct sframe_fre fre;
	size_t bytes = 0;
	u32 fre_index, most = 0;
	u64 pc;
	u8 *data;
	int ret;

	huge_flattens("one function of 2 million FREs", &h, 65537);
	h = (struct huge_section){ .text = HUGE_TEXT, .nr_fdes = 500000,
				   .fres = 1, .fre_step = 16, .nr_rules = 1 };
	huge_flattens("half a million functions", &h, 4099);

	/* All distinct: sizing stops at the first rule over the limit. */
	h = (struct huge_section){ .text = HUGE_TEXT, .nr_fdes = 1,
				   .fres = 2000000, .fre_step = 1,
				   .nr_rules = 2000000, .tail = 64 };
	data = huge_make(&h, &sec, &err, &ret);
	tap_ok(ret == 0, "2 million distinct rules: validates");
	ret = sframe_flat_size(&sec, &b, &bytes);
	tap_ok(ret == -E2BIG && b.error.reason == SFRAME_ERR_FLAT_RULES &&
	       b.error.fde == 0 &&
	       ret == sframe_reason_errno(b.error.reason),
	       "2 million distinct rules: refused, %s (%d)",
	       sframe_reason_str(b.error.reason), ret);
	free(data);

	/* PC-mask FDEs: SFRAME_MAX_MASK_FRES FREs at most, all decoded. */
	h = (struct huge_section){ .text = HUGE_TEXT, .nr_fdes = 1,
				   .fres = SFRAME_MAX_MASK_FRES, .fre_step = 1,
				   .nr_rules = SFRAME_MAX_MASK_FRES,
				   .tail = 4096, .rep_size = 255 };
	data = huge_make(&h, &sec, &err, &ret);
	tap_ok(ret == 0 && sframe_flat_size(&sec, &b, &bytes) == 0,
	       "PC-mask FDE of %u FREs: validates and flattens",
	       SFRAME_MAX_MASK_FRES);
	for (pc = h.text; ret == 0 && pc < h.text + h.fres + h.tail; pc++) {
		if (sframe_find_fde(&sec, pc, &fde) ||
		    sframe_fde_find_fre(&sec, &fde, pc, &fre, &fre_index))
			break;
		if (fre_index + 1 > most)
			most = fre_index + 1;
	}
	tap_ok(pc == h.text + h.fres + h.tail && most == SFRAME_MAX_MASK_FRES,
	       "PC-mask FDE: a lookup decodes at most %u FREs", most);
	free(data);
	h.fres = SFRAME_MAX_MASK_FRES + 1;
	data = huge_make(&h, &sec, &err, &ret);
	tap_ok(ret == -E2BIG && err.reason == SFRAME_ERR_MASK_FRES &&
	       err.fde == 0,
	       "PC-mask FDE of %u FREs: refused, %s", h.fres,
	       sframe_reason_str(err.reason));
	free(data);
}

int main(int argc, char **argv)
{
	bool raw = false;
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s [--raw] FILE...\n", argv[0]);
		return 2;
	}
	check_made();
	check_huge();
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--raw")) {
			raw = true;
			continue;
		}
		check_file(argv[i], raw);
	}
	return tap_done();
}
