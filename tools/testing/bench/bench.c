// SPDX-License-Identifier: GPL-2.0
/*
 * Lookup and validation benchmark of the format core.  It builds a
 * synthetic v3 section of many functions, then times, in one run and over
 * the same random PCs, a plain binary search over a sorted u32 array of
 * the function starts (the yardstick), sframe_find_fde() and the full
 * sframe_find().  Then the worst case an unprivileged user can hand the
 * kernel: one function of 2 million FREs (huge_sections.h), looked up
 * through its flattened table, against a lookup in the synthetic section's
 * table, and against decoding.  Ratios are what to compare across
 * machines; absolute times drift.
 *
 * usage: bench FIXTURES_DIR [NUM_FUNCTIONS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sframe/flat.h>
#include "../../sframectl/sframectl.h"
#include "../../../kernel/sframe/tests/huge_sections.h"

#define DEFAULT_FUNCS	200000
#define NUM_PCS		(1U << 20)
#define ROUNDS		7
#define TEXT_BASE	0x1000
#define HOSTILE_FRES	2000000
#define DECODE_ROUNDS	20

struct synth {
	unsigned char *buf;
	size_t size;
	u32 *starts;
	u32 *sizes;
	u32 n;
	u64 text_end;
};

static u64 rng_state = 0x9e3779b97f4a7c15ULL;

static u64 rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void put_le(unsigned char *p, u64 v, unsigned int bytes)
{
	unsigned int i;

	for (i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/*
 * A sorted, PC-relative v3 section: functions of 16..1024 bytes, each with
 * 1 to 4 FREs, as gcc's prologues and epilogues produce them.
 */
static void synth_build(struct synth *s, u32 n)
{
	size_t fre_cap = (size_t)n * (SFRAME_V3_ATTR_SIZE + 4 * 5), fre_len = 0;
	size_t fde_bytes = (size_t)n * SFRAME_V3_FDE_SIZE;
	unsigned char *fres = malloc(fre_cap);
	u64 addr = TEXT_BASE, num_fres = 0;
	u32 i;

	s->n = n;
	s->starts = malloc(n * sizeof(u32));
	s->sizes = malloc(n * sizeof(u32));
	s->buf = malloc(SFRAME_HDR_SIZE + fde_bytes + fre_cap);
	for (i = 0; i < n; i++) {
		u32 size = 16 * (1 + rng() % 64), nf = 1 + rng() % 4, k;
		unsigned int ab = size > 255 ? 2 : 1;
		size_t field = SFRAME_HDR_SIZE + (size_t)i * SFRAME_V3_FDE_SIZE;
		unsigned char *attr = fres + fre_len;

		s->starts[i] = (u32)addr;
		s->sizes[i] = size;
		put_le(s->buf + field, addr - field, 8);
		put_le(s->buf + field + SFRAME_V3_FDE_FUNC_SIZE, size, 4);
		put_le(s->buf + field + SFRAME_V3_FDE_FRE_OFF, fre_len, 4);
		put_le(attr, nf, 2);
		attr[SFRAME_V3_ATTR_INFO] = ab == 2 ? SFRAME_FRE_TYPE_ADDR2 :
						      SFRAME_FRE_TYPE_ADDR1;
		attr[SFRAME_V3_ATTR_INFO2] = SFRAME_FDE_TYPE_DEFAULT;
		attr[SFRAME_V3_ATTR_REP_SIZE] = 0;
		fre_len += SFRAME_V3_ATTR_SIZE;
		for (k = 0; k < nf; k++) {
			/* starts 0, 1, 4, size - 1: push, push, body, ret */
			u32 start = k == 0 ? 0 : k == 1 ? 1 : k == 2 ? 4 : size - 1;
			unsigned int words = k == 0 || k == 3 ? 1 : 2;

			put_le(fres + fre_len, start, ab);
			fres[fre_len + ab] = SFRAME_BASE_REG_SP | words << 1;
			fres[fre_len + ab + 1] = 8 + 8 * (k % 3);
			if (words == 2)
				fres[fre_len + ab + 2] = (unsigned char)-16;
			fre_len += ab + 1 + words;
		}
		num_fres += nf;
		addr += size;
	}
	s->text_end = addr;

	memset(s->buf, 0, SFRAME_HDR_SIZE);
	s->buf[0] = SFRAME_MAGIC & 0xff;
	s->buf[1] = SFRAME_MAGIC >> 8;
	s->buf[SFRAME_HDR_VERSION] = SFRAME_VERSION_3;
	s->buf[SFRAME_HDR_FLAGS] = SFRAME_F_FDE_SORTED |
				   SFRAME_F_FDE_FUNC_START_PCREL;
	s->buf[SFRAME_HDR_ABI] = SFRAME_ABI_AMD64_ENDIAN_LITTLE;
	s->buf[SFRAME_HDR_FIXED_RA] = (unsigned char)-8;
	put_le(s->buf + SFRAME_HDR_NUM_FDES, n, 4);
	put_le(s->buf + SFRAME_HDR_NUM_FRES, num_fres, 4);
	put_le(s->buf + SFRAME_HDR_FRE_LEN, fre_len, 4);
	put_le(s->buf + SFRAME_HDR_FDEOFF, 0, 4);
	put_le(s->buf + SFRAME_HDR_FREOFF, fde_bytes, 4);
	memcpy(s->buf + SFRAME_HDR_SIZE + fde_bytes, fres, fre_len);
	s->size = SFRAME_HDR_SIZE + fde_bytes + fre_len;
	free(fres);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The yardstick: last start <= pc in a sorted u32 array, then a size check. */
static int plain_search(const struct synth *s, u32 pc)
{
	u32 lo = sframe_u32_upper(s->starts, 0, s->n, pc);

	return lo && pc - s->starts[lo - 1] < s->sizes[lo - 1] ? (int)lo - 1 : -1;
}

enum method { PLAIN, FIND_FDE, FIND, FIND_FDE_INDEXED, FIND_INDEXED,
	      NR_METHODS };

static const char * const method_names[NR_METHODS] = {
	"plain binary search, sorted u32[]",
	"sframe_find_fde()",
	"sframe_find() (FDE + FRE + rule)",
	"sframe_find_fde(), with index",
	"sframe_find(), with index",
};

static double time_method(enum method m, const struct synth *s,
			  const struct sframe_section *sec, const u64 *pcs,
			  u32 npcs, unsigned long *sink)
{
	double best = 0;
	unsigned int r;

	for (r = 0; r < ROUNDS; r++) {
		struct sframe_rule rule;
		struct sframe_fde fde;
		double t0 = now_ns(), dt;
		unsigned long hits = 0;
		u32 i;

		for (i = 0; i < npcs; i++) {
			if (m == PLAIN)
				hits += plain_search(s, (u32)pcs[i]) >= 0;
			else if (m == FIND_FDE || m == FIND_FDE_INDEXED)
				hits += sframe_find_fde(sec, pcs[i], &fde) == 0;
			else
				hits += sframe_find(sec, pcs[i], &rule) == 0;
		}
		dt = (now_ns() - t0) / npcs;
		if (!r || dt < best)
			best = dt;
		*sink += hits;
	}
	return best;
}

static void bench_synthetic(u32 n)
{
	double t[NR_METHODS], t0, mbs;
	struct sframe_section sec;
	unsigned long sink = 0;
	u32 *index = NULL;
	struct synth s;
	u64 *pcs;
	unsigned int r, m;
	u32 i;

	synth_build(&s, n);
	if (sframe_validate(&sec, s.buf, (u32)s.size, 0, SFRAME_REQUIRE_SORTED,
			    NULL)) {
		fprintf(stderr, "bench: synthetic section does not validate\n");
		exit(1);
	}
	pcs = malloc(NUM_PCS * sizeof(*pcs));
	for (i = 0; i < NUM_PCS; i++)
		pcs[i] = TEXT_BASE + rng() % (s.text_end - TEXT_BASE);

	printf("synthetic v3 section: %u functions, %zu bytes, %u random PCs\n",
	       n, s.size, NUM_PCS);
	for (m = 0; m < NR_METHODS; m++) {
		if (m == FIND_FDE_INDEXED) {
			index = malloc(sframe_index_entries(&sec) * sizeof(u32));
			sframe_index_build(&sec, index);
			printf("  index: %u entries, %zu bytes\n", sec.index_entries,
			       sec.index_entries * sizeof(u32));
		}
		t[m] = time_method(m, &s, &sec, pcs, NUM_PCS, &sink);
		printf("  %-36s %7.1f ns/lookup  %5.2fx plain\n",
		       method_names[m], t[m], t[m] / t[PLAIN]);
	}

	t0 = now_ns();
	for (r = 0; r < ROUNDS; r++)
		sink += sframe_validate(&sec, s.buf, (u32)s.size, 0, 0, NULL);
	mbs = (double)s.size * ROUNDS / ((now_ns() - t0) / 1e9) / 1e6;
	printf("  %-36s %7.1f MB/s\n", "sframe_validate()", mbs);
	printf("  (checksum %lu)\n", sink);
	free(index);
	free(pcs);
	free(s.buf);
	free(s.starts);
	free(s.sizes);
}

/* Flatten @sec into malloc()ed memory and attach the table; exits on failure. */
static void *flatten(struct sframe_section *sec, struct sframe_flat *flat)
{
	struct sframe_flat_builder *b = malloc(sizeof(*b));
	size_t bytes = 0;
	void *mem = NULL;

	if (b && !sframe_flat_size(sec, b, &bytes))
		mem = malloc(bytes);
	if (!mem) {
		fprintf(stderr, "bench: no flattened table: %s\n",
			b ? sframe_reason_str(b->error.reason) : "no memory");
		exit(1);
	}
	sframe_flat_build(sec, b, mem, flat);
	sec->flat = flat;
	free(b);
	return mem;
}

/* Best of ROUNDS: ns per sframe_flat_find() over @pcs. */
static double time_flat(const struct sframe_section *sec, const u64 *pcs,
			u32 npcs, unsigned long *sink)
{
	double best = 0, dt, t0;
	unsigned int r;
	bool at_end;
	u32 i;

	for (r = 0; r < ROUNDS; r++) {
		t0 = now_ns();
		for (i = 0; i < npcs; i++)
			*sink += sframe_flat_find(sec->flat,
						  (s64)(pcs[i] - sec->vaddr),
						  &at_end);
		dt = (now_ns() - t0) / npcs;
		if (!r || dt < best)
			best = dt;
	}
	return best;
}

/*
 * The table's lookup in the hostile section, at random PCs of its one
 * function and at its tail (where decoding reads every FRE), against the
 * table's lookup in the synthetic section of @n functions.
 */
static void bench_hostile(u32 n)
{
	const struct huge_section h = {
		.text = TEXT_BASE, .nr_fdes = 1, .fres = HOSTILE_FRES,
		.fre_step = 1, .nr_rules = 2, .tail = 64,
	};
	struct sframe_section normal, hostile;
	struct sframe_flat nflat, hflat;
	double tn, th, tt, td, t0;
	struct sframe_rule rule;
	unsigned long sink = 0;
	void *nmem, *hmem;
	u32 i, size = huge_section_size(&h);
	struct synth s;
	u64 *pcs, *tail;
	u8 *data;

	synth_build(&s, n);
	data = malloc(size);
	pcs = malloc(NUM_PCS * sizeof(*pcs));
	tail = malloc(NUM_PCS * sizeof(*tail));
	if (!data || !pcs || !tail ||
	    sframe_validate(&normal, s.buf, (u32)s.size, 0,
			    SFRAME_REQUIRE_SORTED, NULL)) {
		fprintf(stderr, "bench: synthetic section does not validate\n");
		exit(1);
	}
	huge_section_fill(&h, data, 0);
	if (sframe_validate(&hostile, data, size, 0, SFRAME_REQUIRE_SORTED,
			    NULL)) {
		fprintf(stderr, "bench: hostile section does not validate\n");
		exit(1);
	}
	nmem = flatten(&normal, &nflat);
	hmem = flatten(&hostile, &hflat);

	printf("hostile section: one function of %u FREs, %u bytes, table %u rows\n",
	       HOSTILE_FRES, size, hflat.nr_rows);
	for (i = 0; i < NUM_PCS; i++)
		pcs[i] = TEXT_BASE + rng() % (s.text_end - TEXT_BASE);
	tn = time_flat(&normal, pcs, NUM_PCS, &sink);
	for (i = 0; i < NUM_PCS; i++) {
		pcs[i] = h.text + rng() % ((u64)h.fres * h.fre_step);
		tail[i] = huge_tail(&h) + rng() % h.tail;
	}
	th = time_flat(&hostile, pcs, NUM_PCS, &sink);
	tt = time_flat(&hostile, tail, NUM_PCS, &sink);
	t0 = now_ns();
	for (i = 0; i < DECODE_ROUNDS; i++)
		sink += sframe_find(&hostile, tail[i], &rule);
	td = (now_ns() - t0) / DECODE_ROUNDS;
	printf("  %-36s %7.1f ns/lookup\n", "table, synthetic section", tn);
	printf("  %-36s %7.1f ns/lookup  %5.2fx synthetic\n",
	       "table, hostile, random PCs", th, th / tn);
	printf("  %-36s %7.1f ns/lookup  %5.2fx synthetic\n",
	       "table, hostile, at the tail", tt, tt / tn);
	printf("  %-36s %7.0f ns/lookup  %5.0fx synthetic\n",
	       "decoding, hostile, at the tail", td, td / tn);
	printf("  (checksum %lu)\n", sink);
	free(nmem);
	free(hmem);
	free(data);
	free(pcs);
	free(tail);
	free(s.buf);
	free(s.starts);
	free(s.sizes);
}

static void bench_fixture(const char *dir, const char *rel)
{
	char path[1024], msg[SFRAME_MSG_MAX];
	struct sframe_section sec;
	struct sframe_fde first, last;
	struct sframe_input in;
	struct sframe_rule rule;
	unsigned long hits = 0;
	double t0, dt;
	u64 span;
	u32 i, n = NUM_PCS / 4;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (sframe_input_load(&in, path, false, msg, sizeof(msg)) ||
	    sframe_validate(&sec, in.bytes, (u32)in.size, in.vaddr, 0, NULL) ||
	    sframe_get_fde(&sec, 0, &first) ||
	    sframe_get_fde(&sec, sec.num_fdes - 1, &last)) {
		fprintf(stderr, "bench: cannot load %s\n", path);
		exit(1);
	}
	span = last.start + last.size - first.start;
	t0 = now_ns();
	for (i = 0; i < n; i++)
		hits += sframe_find(&sec, first.start + rng() % span, &rule) == 0;
	dt = (now_ns() - t0) / n;
	printf("fixture %-32s %3u FDEs: sframe_find() %6.1f ns/lookup (%lu%% hits)\n",
	       rel, sec.num_fdes, dt, hits * 100 / n);
	sframe_input_free(&in);
}

int main(int argc, char **argv)
{
	u32 n = DEFAULT_FUNCS;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s FIXTURES_DIR [NUM_FUNCTIONS]\n", argv[0]);
		return 2;
	}
	if (argc == 3)
		n = (u32)strtoul(argv[2], NULL, 0);
	printf("command: %s %s %u\n", argv[0], argv[1], n);
	bench_synthetic(n);
	bench_hostile(n);
	bench_fixture(argv[1], "sid-2.47.50/prog");
	bench_fixture(argv[1], "trixie-2.44/prog-static");
	bench_fixture(argv[1], "bookworm-2.40/prog");
	return 0;
}
