// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the input as a bare section and as an ELF object,
 * through validation, lookups around every function and the text dump.
 * Built with ASan and UBSan; any crash, leak or undefined behaviour is a
 * finding.
 */
#include <stdlib.h>
#include <string.h>

#include "../../sframectl/sframectl.h"
#include "probe.h"

static FILE *devnull;

static void exercise(const void *data, size_t size, u64 vaddr)
{
	struct sframe_section sec;

	if (size > UINT32_MAX)
		return;
	sframe_validate(&sec, data, (u32)size, vaddr, SFRAME_REQUIRE_SORTED,
			NULL);
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
