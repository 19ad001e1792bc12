// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the input as a bare section and as an ELF object,
 * through validation, lookups around every function, the flattened table
 * (which must answer like the decoder) and the text dump.
 * Built with ASan and UBSan; any crash, leak or undefined behaviour is a
 * finding.
 */
#include <stdlib.h>
#include <string.h>

#include "../../sframectl/sframectl.h"
#include "probe.h"
#include "../../../kernel/sframe/tests/flat_check.h"

static FILE *devnull;

/* At most this many rows and functions are checked, at their edges. */
#define FLAT_PROBES	512

static void flat_agree(const struct sframe_section *sec,
		       const struct sframe_flat *flat, u64 pc)
{
	const char *why = flat_check_pc(sec, flat, pc);

	if (why) {
		fprintf(stderr, "flat table disagrees at 0x%llx: %s\n",
			(unsigned long long)pc, why);
		abort();
	}
}

static void probe_flat(struct sframe_section *sec)
{
	struct sframe_flat flat;
	struct sframe_fde fde;
	void *mem;
	u64 pc;
	u32 i;
	int err;

	mem = flat_check_build(sec, &flat, &err);
	if (!mem)
		return;
	for (i = 0; i < flat.nr_rows && i < FLAT_PROBES; i++) {
		pc = sec->vaddr + flat.base + sframe_flat_row_start(&flat, i);
		flat_agree(sec, &flat, pc - 1);
		flat_agree(sec, &flat, pc);
	}
	for (i = 0; i < sec->num_fdes && i < FLAT_PROBES; i++) {
		if (sframe_get_fde(sec, i, &fde))
			abort();
		flat_agree(sec, &flat, fde.start + fde.size - 1);
		flat_agree(sec, &flat, fde.start + fde.size);
	}
	free(mem);
}

static void exercise(const void *data, size_t size, u64 vaddr)
{
	struct sframe_section sec;

	if (size > UINT32_MAX)
		return;
	if (!sframe_validate(&sec, data, (u32)size, vaddr,
			     SFRAME_REQUIRE_SORTED, NULL))
		probe_flat(&sec);
	if (sframe_validate(&sec, data, (u32)size, vaddr, 0, NULL))
		return;
	probe_lookups(&sec);
	sframe_dump(devnull, &sec, ".sframe");
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct sframe_input in = { .path = "fuzz" };
	char msg[SFRAME_MSG_MAX];

	if (!devnull)
		devnull = fopen("/dev/null", "w");

	/* An exact-size copy, so that ASan sees a read one byte too far. */
	in.file = malloc(size ? size : 1);
	memcpy(in.file, data, size);
	in.file_size = size;
	exercise(in.file, size, 0x400000);

	if (sframe_elf_extract(&in, msg, sizeof(msg)) == SFRAME_LOAD_OK)
		exercise(in.bytes, in.size, in.vaddr);
	sframe_input_free(&in);
	return 0;
}
