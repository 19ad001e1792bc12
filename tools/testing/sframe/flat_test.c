// SPDX-License-Identifier: GPL-2.0
/*
 * The flattened lookup table against the decoder, at every PC of every
 * section named: ELF objects with .sframe, raw sections (--raw), and the
 * sidecars sframectl gen makes.  Sections that cannot have a table
 * (unsorted FDEs) must say so with -EOPNOTSUPP.  The shared checks are
 * those the KUnit suite runs in the kernel (kernel/sframe/flat_check.h).
 *
 * usage: flat_test [--raw] FILE...
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../../sframectl/sframectl.h"
#include "../../../kernel/sframe/flat_check.h"
#include "tap.h"

/* The check is worth something only if a wrong table fails it. */
static void check_catches(const char *path, const struct sframe_section *sec,
			  struct sframe_flat *flat)
{
	u16 *rows = (u16 *)flat->rows, saved;
	const char *why = NULL;
	u64 bad = 0;
	u32 i;

	for (i = 0; i < flat->nr_rows; i++) {
		if (SFRAME_FLAT_KIND(rows[i]) == SFRAME_FLAT_RULE &&
		    flat->nr_rules > 1)
			break;
	}
	if (i == flat->nr_rows)
		return;
	saved = rows[i];
	rows[i] = (saved & ~SFRAME_FLAT_RULE_MASK) |
		  ((saved + 1) % flat->nr_rules);
	/* Rows before it are right: the first PC that differs is its start. */
	tap_ok(!flat_check_all(sec, flat, &bad, &why) &&
	       bad == sec->vaddr + flat->base + flat->starts[i],
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
		tap_ok(ret == -EOPNOTSUPP, "%s: unsorted, no table (%d)", path,
		       ret);
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
	tap_diag("rows: %u none, %u rule, %u signal, %u decode; %u ends",
		 kinds[SFRAME_FLAT_NONE], kinds[SFRAME_FLAT_RULE],
		 kinds[SFRAME_FLAT_SIGNAL], kinds[SFRAME_FLAT_DECODE], ends);

	n = flat_check_all(&sec, &flat, &bad, &why);
	if (!tap_ok(n > 0, "%s: table and decoder agree at all %" PRIu64 " PCs",
		    path, n))
		tap_diag("first disagreement at 0x%" PRIx64 ": %s", bad, why);
	check_catches(path, &sec, &flat);

	free(mem);
	sframe_input_free(&in);
}

int main(int argc, char **argv)
{
	bool raw = false;
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s [--raw] FILE...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--raw")) {
			raw = true;
			continue;
		}
		check_file(argv[i], raw);
	}
	return tap_done();
}
