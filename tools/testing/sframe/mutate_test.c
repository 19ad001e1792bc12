// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile input: valid fixture sections damaged field by field, each of
 * which must be rejected with the expected reason; then sweeps over every
 * truncation and every single-byte corruption, which must never crash
 * (this program is also built with ASan and UBSan) and whose survivors
 * must answer lookups in bounds.
 *
 * usage: mutate_test FIXTURES_DIR
 */
#include <stdlib.h>
#include <string.h>

#include "../../sframectl/sframectl.h"
#include "probe.h"
#include "tap.h"

#define MAX_SECTION	4096

enum base_id { V3, V2, V1, V2_O, BE_V2, BE_V3, DATA1, NR_BASES };

static const char * const base_paths[NR_BASES] = {
	[V3] = "sid-2.47.50/prog.sframe.bin",
	[V2] = "trixie-2.44/prog.sframe.bin",
	[V1] = "bookworm-2.40/prog.sframe.bin",
	[V2_O] = "trixie-2.44/prog.o.sframe.bin",
	[BE_V2] = "binutils-testsuite/DATA-BE",
	[BE_V3] = "binutils-testsuite/DATA-BE-V3",
	[DATA1] = "binutils-testsuite/DATA1",
};

struct buf {
	unsigned char d[MAX_SECTION + 64];
	size_t len;
	bool be;
};

static struct buf bases[NR_BASES];

static u64 get(const struct buf *b, size_t off, unsigned int bytes)
{
	u64 v = 0;
	unsigned int i;

	for (i = 0; i < bytes; i++)
		v |= (u64)b->d[off + i] << (b->be ? 8 * (bytes - 1 - i) : 8 * i);
	return v;
}

static void put(struct buf *b, size_t off, u64 v, unsigned int bytes)
{
	unsigned int i;

	for (i = 0; i < bytes; i++)
		b->d[off + (b->be ? bytes - 1 - i : i)] = (unsigned char)(v >> (8 * i));
}

/* Where things are, computed from the header with the format constants. */
static unsigned int version(const struct buf *b)
{
	return b->d[SFRAME_HDR_VERSION];
}

static size_t fde_size(const struct buf *b)
{
	return version(b) == 3 ? SFRAME_V3_FDE_SIZE :
	       version(b) == 2 ? SFRAME_V2_FDE_SIZE : SFRAME_V1_FDE_SIZE;
}

static size_t fde_at(const struct buf *b, unsigned int i)
{
	return SFRAME_HDR_SIZE + b->d[SFRAME_HDR_AUXHDR_LEN] +
	       get(b, SFRAME_HDR_FDEOFF, 4) + i * fde_size(b);
}

static size_t fre_section(const struct buf *b)
{
	return SFRAME_HDR_SIZE + b->d[SFRAME_HDR_AUXHDR_LEN] +
	       get(b, SFRAME_HDR_FREOFF, 4);
}

/* v3: the attribute block; v1/v2: the FDE's info byte. */
static size_t fde_info_at(const struct buf *b, unsigned int i)
{
	if (version(b) == 3)
		return fre_section(b) + get(b, fde_at(b, i) + SFRAME_V3_FDE_FRE_OFF, 4) +
		       SFRAME_V3_ATTR_INFO;
	return fde_at(b, i) + SFRAME_V12_FDE_INFO;
}

static size_t first_fre(const struct buf *b, unsigned int i)
{
	if (version(b) == 3)
		return fde_info_at(b, i) - SFRAME_V3_ATTR_INFO + SFRAME_V3_ATTR_SIZE;
	return fre_section(b) + get(b, fde_at(b, i) + SFRAME_V12_FDE_FRE_OFF, 4);
}

static size_t fre_addr_bytes(const struct buf *b, unsigned int i)
{
	return 1U << SFRAME_FDE_INFO_FRE_TYPE(b->d[fde_info_at(b, i)]);
}

/* Offset of the info byte of FRE @n of FDE @i. */
static size_t fre_info_at(const struct buf *b, unsigned int i, unsigned int n)
{
	size_t off = first_fre(b, i), ab = fre_addr_bytes(b, i);

	while (n--) {
		unsigned char info = b->d[off + ab];
		unsigned int ws = 1U << SFRAME_FRE_INFO_WORD_SIZE(info);

		off += ab + 1 + SFRAME_FRE_INFO_WORDS(info) * ws;
	}
	return off + ab;
}

static s64 rel_start(const struct buf *b, unsigned int i)
{
	size_t f = fde_at(b, i);
	s64 v = version(b) == 3 ? (s64)get(b, f, 8) : (s32)get(b, f, 4);

	return (b->d[SFRAME_HDR_FLAGS] & SFRAME_F_FDE_FUNC_START_PCREL) ? v + (s64)f : v;
}

static void set_rel_start(struct buf *b, unsigned int i, s64 rel)
{
	size_t f = fde_at(b, i);

	if (b->d[SFRAME_HDR_FLAGS] & SFRAME_F_FDE_FUNC_START_PCREL)
		rel -= (s64)f;
	put(b, f, (u64)rel, version(b) == 3 ? 8 : 4);
}

static u32 num_fdes(const struct buf *b)
{
	return (u32)get(b, SFRAME_HDR_NUM_FDES, 4);
}

/* The mutations: each names what it breaks and the reason it must give. */
#define MUT(fn) static void fn(struct buf *b)

MUT(trunc_27) { b->len = 27; }
MUT(trunc_0) { b->len = 0; }
MUT(bad_magic) { put(b, 0, 0x1234, 2); }
MUT(version_4) { b->d[SFRAME_HDR_VERSION] = 4; }
MUT(version_0) { b->d[SFRAME_HDR_VERSION] = 0; }
MUT(flag_8) { b->d[SFRAME_HDR_FLAGS] |= 0x8; }
MUT(v3_frame_pointer_flag) { b->d[SFRAME_HDR_FLAGS] |= SFRAME_F_FRAME_POINTER; }
MUT(v1_pcrel_flag) { b->d[SFRAME_HDR_FLAGS] |= SFRAME_F_FDE_FUNC_START_PCREL; }
MUT(abi_0) { b->d[SFRAME_HDR_ABI] = 0; }
MUT(abi_5) { b->d[SFRAME_HDR_ABI] = 5; }
MUT(abi_amd64) { b->d[SFRAME_HDR_ABI] = SFRAME_ABI_AMD64_ENDIAN_LITTLE; }
MUT(no_fixed_ra) { b->d[SFRAME_HDR_FIXED_RA] = 0; }
MUT(auxhdr_255) { b->d[SFRAME_HDR_AUXHDR_LEN] = 255; }
MUT(fdes_huge) { put(b, SFRAME_HDR_NUM_FDES, 0xffffffff, 4); }
MUT(fdes_plus_one) { put(b, SFRAME_HDR_NUM_FDES, num_fdes(b) + 1, 4); }
MUT(fre_len_huge) { put(b, SFRAME_HDR_FRE_LEN, 0xffffffff, 4); }
MUT(freoff_far) { put(b, SFRAME_HDR_FREOFF, 0x10000, 4); }
MUT(fdeoff_after_freoff)
{
	put(b, SFRAME_HDR_FDEOFF, get(b, SFRAME_HDR_FREOFF, 4) + 1, 4);
	put(b, SFRAME_HDR_NUM_FDES, 0, 4);
}
MUT(trailing_byte) { b->d[b->len++] = 0; }
MUT(trunc_1) { b->len--; }
MUT(fres_huge) { put(b, SFRAME_HDR_NUM_FRES, 0xffffffff, 4); }
MUT(fres_minus_one) { put(b, SFRAME_HDR_NUM_FRES, get(b, SFRAME_HDR_NUM_FRES, 4) - 1, 4); }
MUT(fde_unsorted) { set_rel_start(b, 5, rel_start(b, 4) - 1); }
MUT(fde_overlap)
{
	size_t f = fde_at(b, 3) + (version(b) == 3 ? SFRAME_V3_FDE_FUNC_SIZE :
				   SFRAME_V12_FDE_FUNC_SIZE);

	put(b, f, get(b, f, 4) + 0x1000, 4);
}
MUT(func_range_overflow) { set_rel_start(b, num_fdes(b) - 1, INT64_MAX - 2); }
MUT(fre_type_3) { b->d[fde_info_at(b, 0)] = (b->d[fde_info_at(b, 0)] & ~0xf) | 3; }
MUT(fde_info_bit6) { b->d[fde_info_at(b, 0)] |= 0x40; }
MUT(fde_info_bit7) { b->d[fde_info_at(b, 0)] |= 0x80; }
MUT(pauth_on_amd64) { b->d[fde_info_at(b, 0)] |= 0x20; }
MUT(fde_type_2) { b->d[fde_info_at(b, 0) + 1] = 2; }
MUT(info2_reserved) { b->d[fde_info_at(b, 0) + 1] |= 0x20; }
MUT(rep_size_0) { b->d[fde_info_at(b, 1) + 2] = 0; }
MUT(v2_rep_size_0) { b->d[fde_at(b, 1) + SFRAME_V2_FDE_REP_SIZE] = 0; }
MUT(fre_off_at_end) { put(b, fde_at(b, 0) + SFRAME_V3_FDE_FRE_OFF, get(b, SFRAME_HDR_FRE_LEN, 4), 4); }
MUT(v2_fre_off_past_end)
{
	put(b, fde_at(b, 0) + SFRAME_V12_FDE_FRE_OFF, get(b, SFRAME_HDR_FRE_LEN, 4) + 1, 4);
}
MUT(fre_start_past_size) { b->d[fre_info_at(b, 4, 0) - 1] = 0xff; }
MUT(fre_word_size_3) { b->d[fre_info_at(b, 3, 1)] |= 0x60; }
MUT(fre_words_7) { b->d[fre_info_at(b, 3, 1)] = (b->d[fre_info_at(b, 3, 1)] & ~0x1e) | (7 << 1); }
MUT(fre_words_3_amd64) { b->d[fre_info_at(b, 3, 6)] = (b->d[fre_info_at(b, 3, 6)] & ~0x1e) | (3 << 1); }
MUT(fre_order) { b->d[fre_info_at(b, 3, 1) - 1] = b->d[fre_info_at(b, 3, 0) - 1]; }
MUT(ra_mangled_amd64) { b->d[fre_info_at(b, 3, 2)] |= 0x80; }
MUT(flex_cfa_not_reg) { b->d[fre_info_at(b, 9, 1) + 1] &= ~1; }
MUT(flex_reserved_bit) { b->d[fre_info_at(b, 9, 1) + 1] |= 4; }
MUT(flex_one_word) { b->d[fre_info_at(b, 0, 1)] = (b->d[fre_info_at(b, 0, 1)] & ~0x1e) | (1 << 1); }
MUT(last_fde_extra_fre)
{
	size_t attr = fde_info_at(b, num_fdes(b) - 1) - SFRAME_V3_ATTR_INFO;

	put(b, attr, get(b, attr, 2) + 1, 2);
	put(b, SFRAME_HDR_NUM_FRES, get(b, SFRAME_HDR_NUM_FRES, 4) + 1, 4);
}
MUT(last_fre_cut_short)
{
	b->len--;
	put(b, SFRAME_HDR_FRE_LEN, get(b, SFRAME_HDR_FRE_LEN, 4) - 1, 4);
}
MUT(v1_fre_type_3) { b->d[fde_info_at(b, 2)] |= 3; }
MUT(nothing) { (void)b; }
MUT(zero_padding) { memset(b->d + b->len, 0, 8); b->len += 8; }
MUT(nonzero_padding) { memset(b->d + b->len, 0, 8); b->d[b->len + 7] = 1; b->len += 8; }

static const struct mutation {
	const char *name;
	enum base_id base;
	void (*apply)(struct buf *b);
	unsigned int options;
	enum sframe_reason want;
} mutations[] = {
	{ "truncated inside the header", V3, trunc_27, 0, SFRAME_ERR_HEADER_TRUNCATED },
	{ "empty section", V3, trunc_0, 0, SFRAME_ERR_HEADER_TRUNCATED },
	{ "bad magic", V3, bad_magic, 0, SFRAME_ERR_MAGIC },
	{ "version 4", V3, version_4, 0, SFRAME_ERR_VERSION },
	{ "version 0", V2, version_0, 0, SFRAME_ERR_VERSION },
	{ "undefined flag 0x8", V3, flag_8, 0, SFRAME_ERR_FLAGS },
	{ "v3 with SFRAME_F_FRAME_POINTER", V3, v3_frame_pointer_flag, 0, SFRAME_ERR_FLAGS },
	{ "v1 with the PCREL flag", V1, v1_pcrel_flag, 0, SFRAME_ERR_FLAGS },
	{ "ABI 0", V3, abi_0, 0, SFRAME_ERR_ABI },
	{ "ABI 5", V2, abi_5, 0, SFRAME_ERR_ABI },
	{ "AMD64 ABI in a big-endian section", BE_V2, abi_amd64, 0, SFRAME_ERR_ABI_BYTE_ORDER },
	{ "AMD64 without the fixed RA offset", V3, no_fixed_ra, 0, SFRAME_ERR_FIXED_OFFSET },
	{ "auxiliary header past the end", DATA1, auxhdr_255, 0, SFRAME_ERR_AUXHDR },
	{ "FDE count 0xffffffff", V3, fdes_huge, 0, SFRAME_ERR_FDE_TABLE },
	{ "FDE count one too many", V3, fdes_plus_one, 0, SFRAME_ERR_SUBSECTION_OVERLAP },
	{ "FRE length 0xffffffff", V2, fre_len_huge, 0, SFRAME_ERR_FRE_SECTION },
	{ "FRE offset past the end", V3, freoff_far, 0, SFRAME_ERR_FRE_SECTION },
	{ "FDE offset after the FRE offset", V3, fdeoff_after_freoff, 0, SFRAME_ERR_SUBSECTION_OVERLAP },
	{ "one trailing byte", V3, trailing_byte, 0, SFRAME_ERR_TRAILING_BYTES },
	{ "last byte cut off", V2, trunc_1, 0, SFRAME_ERR_FRE_SECTION },
	{ "FRE count 0xffffffff", V3, fres_huge, 0, SFRAME_ERR_FRE_COUNT },
	{ "FRE count one short", V2, fres_minus_one, 0, SFRAME_ERR_FRE_COUNT },
	{ "FDEs out of order", V3, fde_unsorted, 0, SFRAME_ERR_FDE_ORDER },
	{ "overlapping functions", V2, fde_overlap, 0, SFRAME_ERR_FDE_ORDER },
	{ "function start + size overflows", V3, func_range_overflow, 0, SFRAME_ERR_FUNC_RANGE },
	{ "FRE type 3", V3, fre_type_3, 0, SFRAME_ERR_FRE_TYPE },
	{ "reserved v3 FDE info bit", V3, fde_info_bit6, 0, SFRAME_ERR_FDE_INFO },
	{ "v2 FDE info bit 7", V2, fde_info_bit7, 0, SFRAME_ERR_FDE_INFO },
	{ "pauth key on AMD64", V2, pauth_on_amd64, 0, SFRAME_ERR_FDE_INFO },
	{ "FDE type 2", V3, fde_type_2, 0, SFRAME_ERR_FDE_TYPE },
	{ "reserved info2 bits", V3, info2_reserved, 0, SFRAME_ERR_FDE_INFO },
	{ "PC-mask FDE with block size 0 (v3)", V3, rep_size_0, 0, SFRAME_ERR_REP_SIZE },
	{ "PC-mask FDE with block size 0 (v2)", V2, v2_rep_size_0, 0, SFRAME_ERR_REP_SIZE },
	{ "FDE attributes at the end of the FREs", V3, fre_off_at_end, 0, SFRAME_ERR_FDE_FRE_OFF },
	{ "FDE FRE offset past the FREs", V2, v2_fre_off_past_end, 0, SFRAME_ERR_FDE_FRE_OFF },
	{ "FRE start beyond the function size", V3, fre_start_past_size, 0, SFRAME_ERR_FRE_START },
	{ "FRE data word size code 3", V3, fre_word_size_3, 0, SFRAME_ERR_FRE_WORD_SIZE },
	{ "FRE with 7 data words", V2, fre_words_7, 0, SFRAME_ERR_FRE_WORD_COUNT },
	{ "AMD64 FRE with 3 data words", V3, fre_words_3_amd64, 0, SFRAME_ERR_FRE_WORD_COUNT },
	{ "FRE starts not increasing", V3, fre_order, 0, SFRAME_ERR_FRE_ORDER },
	{ "RA mangled bit on AMD64", V2, ra_mangled_amd64, 0, SFRAME_ERR_FRE_INFO },
	{ "flex CFA rule not register based", V3, flex_cfa_not_reg, 0, SFRAME_ERR_FLEX_CONTROL },
	{ "flex control word reserved bit", V3, flex_reserved_bit, 0, SFRAME_ERR_FLEX_CONTROL },
	{ "flex FRE with one data word (s390x)", BE_V3, flex_one_word, 0, SFRAME_ERR_FRE_WORD_COUNT },
	{ "one FRE more than the FRE bytes hold", V3, last_fde_extra_fre, 0, SFRAME_ERR_FRE_LEN },
	{ "last FRE cut short", V3, last_fre_cut_short, 0, SFRAME_ERR_FRE_TRUNCATED },
	{ "last FRE cut short (v1)", V1, last_fre_cut_short, 0, SFRAME_ERR_FRE_TRUNCATED },
	{ "v1 FRE type 3", V1, v1_fre_type_3, 0, SFRAME_ERR_FRE_TYPE },
	{ "unsorted section where sorting is required", V2_O, nothing, SFRAME_REQUIRE_SORTED,
	  SFRAME_ERR_NOT_SORTED },
	{ "zero padding in a section", V3, zero_padding, 0, SFRAME_ERR_TRAILING_BYTES },
	{ "zero padding in a segment", V3, zero_padding, SFRAME_SEGMENT_PADDING, SFRAME_VALID },
	{ "non-zero segment padding", V3, nonzero_padding, SFRAME_SEGMENT_PADDING,
	  SFRAME_ERR_TRAILING_BYTES },
};

static bool load_base(const char *dir, enum base_id id)
{
	char path[1024];
	struct buf *b = &bases[id];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, base_paths[id]);
	f = fopen(path, "rb");
	if (!f)
		return false;
	b->len = fread(b->d, 1, MAX_SECTION, f);
	fclose(f);
	b->be = b->d[0] == (SFRAME_MAGIC >> 8);
	return b->len > 0 && b->len < MAX_SECTION;
}

static void run_mutations(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(mutations); i++) {
		const struct mutation *m = &mutations[i];
		struct sframe_section sec;
		struct sframe_error err;
		static struct buf b;
		unsigned char *copy;
		int ret;

		b = bases[m->base];
		m->apply(&b);
		/* An exact-size heap copy, so ASan sees any read past the end. */
		copy = malloc(b.len ? b.len : 1);
		memcpy(copy, b.d, b.len);
		ret = sframe_validate(&sec, copy, (u32)b.len, 0, m->options, &err);
		if (!tap_ok(ret == sframe_reason_errno(m->want) &&
			    err.reason == m->want, "%s: %s", m->name,
			    sframe_reason_str(m->want)))
			tap_diag("got %d, %s at offset 0x%x", ret,
				 sframe_reason_str(err.reason), err.offset);
		free(copy);
	}
}

static void sweep(enum base_id id)
{
	const struct buf *base = &bases[id];
	unsigned int rejected = 0, trunc_ok = 0, flips = 0, survivors = 0;
	struct sframe_section sec;
	size_t len, off;

	/* Every proper prefix of a valid section is invalid. */
	for (len = 0; len < base->len; len++) {
		unsigned char *copy = malloc(len ? len : 1);

		memcpy(copy, base->d, len);
		if (sframe_validate(&sec, copy, (u32)len, 0, 0, NULL) < 0)
			rejected++;
		else
			trunc_ok++;
		free(copy);
	}
	tap_ok(rejected == base->len && !trunc_ok,
	       "%s: all %zu truncations rejected", base_paths[id], base->len);

	/* Every byte, with every bit pattern flipped in, never crashes. */
	for (off = 0; off < base->len; off++) {
		unsigned int x;

		for (x = 1; x < 256; x <<= 1) {
			unsigned char *copy = malloc(base->len);

			memcpy(copy, base->d, base->len);
			copy[off] ^= (unsigned char)x;
			if (sframe_validate(&sec, copy, (u32)base->len, 0x400000,
					    0, NULL) == 0) {
				probe_lookups(&sec);
				survivors++;
			}
			flips++;
			free(copy);
		}
	}
	tap_ok(flips == base->len * 8, "%s: %u bit flips, %u still valid, lookups in bounds",
	       base_paths[id], flips, survivors);
}

static void check_loader_rejects(const char *dir, const char *file,
				 const char *want)
{
	char path[1024], msg[SFRAME_MSG_MAX] = "";
	struct sframe_input in;
	enum sframe_load_status st;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	st = sframe_input_load(&in, path, false, msg, sizeof(msg));
	if (!tap_ok(st == SFRAME_LOAD_INVALID && strstr(msg, want),
		    "%s rejected: %s", file, want))
		tap_diag("status %d: %s", st, msg);
	sframe_input_free(&in);
}

int main(int argc, char **argv)
{
	unsigned int id;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
		return 2;
	}
	for (id = 0; id < NR_BASES; id++) {
		struct sframe_section sec;

		if (!tap_ok(load_base(argv[1], id), "load %s", base_paths[id]))
			return tap_done();
		tap_ok(sframe_validate(&sec, bases[id].d, (u32)bases[id].len, 0,
				       0, NULL) == 0, "%s is valid unmutated",
		       base_paths[id]);
	}
	run_mutations();
	for (id = 0; id < NR_BASES; id++)
		sweep(id);
	/* ld -r of binutils 2.40 and 2.44 relocates FDEs into the FREs. */
	check_loader_rejects(argv[1], "trixie-2.44/prog-r.o",
			     "does not target an FDE start address");
	check_loader_rejects(argv[1], "bookworm-2.40/prog-r.o",
			     "does not target an FDE start address");
	return tap_done();
}
