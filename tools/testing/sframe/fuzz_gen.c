// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for sframectl gen: the input as an ELF object, through
 * the path the sidecar service takes (its own reading of the object,
 * sframe_elf_code(); the child's, sframe_gen_result(), without and with
 * --fill), and what comes back through the format core's validation as
 * the module runs it.  Built with ASan and UBSan; a crash, leak, hang,
 * undefined behaviour or an invalid section accepted is a finding.
 */
#include <stdlib.h>
#include <string.h>

#include "../../sframectl/serve_gen.h"

/* The result @out must read back and hold a section the module accepts. */
static void check_result(u8 *out, size_t out_size)
{
	struct sframe_gen_result h;
	struct sframe_section sec;
	struct sframe_error err;
	char msg[SFRAME_MSG_MAX];
	const u8 *data;

	if (sframe_gen_result_read(out, out_size, &h, &data, msg,
				   sizeof(msg)) != SFRAME_LOAD_OK) {
		fprintf(stderr, "gen wrote an unreadable result: %s\n", msg);
		abort();
	}
	if (sframe_validate(&sec, data, h.section_size, h.vaddr,
			    SFRAME_REQUIRE_SORTED, &err)) {
		fprintf(stderr, "gen wrote an invalid section: %s at 0x%x\n",
			sframe_reason_str(err.reason), err.offset);
		abort();
	}
}

static void gen_one(const u8 *file, size_t size, bool fill)
{
	char msg[SFRAME_MSG_MAX] = "";
	struct sframe_code code;
	size_t out_size;
	u8 *out;

	/* What load and serve read of it themselves, without libelf. */
	sframe_elf_code(file, size, &code, msg, sizeof(msg));
	if (!sframe_gen_result(file, size, fill, &out, &out_size, msg,
			       sizeof(msg))) {
		check_result(out, out_size);
	} else if (!strncmp(msg, "BUG", 3)) {
		fprintf(stderr, "%s\n", msg);
		abort();
	}
	free(out);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	/* An exact-size copy, so that ASan sees a read one byte too far. */
	u8 *file = malloc(size ? size : 1);

	memcpy(file, data, size);
	gen_one(file, size, false);
	gen_one(file, size, true);
	free(file);
	return 0;
}
