// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for sframectl gen: the input as an ELF object, through
 * the path the sidecar service takes (sframe_gen_file(), without and with
 * --fill), and what comes back through the format core's validation as
 * the module runs it.  Built with ASan and UBSan; a crash, leak, hang,
 * undefined behaviour or an invalid section accepted is a finding.
 */
#include <stdlib.h>
#include <string.h>

#include "../../sframectl/sframectl.h"

/* The sidecar file @out must hold a section the module accepts. */
static void check_sidecar(u8 *out, size_t out_size)
{
	struct sframe_input in = {
		.path = "sidecar", .file = out, .file_size = out_size,
	};
	struct sframe_section sec;
	struct sframe_error err;
	char msg[SFRAME_MSG_MAX];

	if (sframe_elf_extract(&in, msg, sizeof(msg)) != SFRAME_LOAD_OK ||
	    !in.bytes) {
		fprintf(stderr, "gen wrote an unreadable sidecar: %s\n", msg);
		abort();
	}
	if (sframe_validate(&sec, in.bytes, (u32)in.size, in.vaddr,
			    SFRAME_REQUIRE_SORTED, &err)) {
		fprintf(stderr, "gen wrote an invalid section: %s at 0x%x\n",
			sframe_reason_str(err.reason), err.offset);
		abort();
	}
	in.file = NULL;
	sframe_input_free(&in);
}

static void gen_one(const u8 *file, size_t size, bool fill)
{
	char msg[SFRAME_MSG_MAX] = "";
	size_t out_size;
	u8 *out;

	if (!sframe_gen_file("fuzz", file, size, fill, &out, &out_size, msg,
			     sizeof(msg))) {
		check_sidecar(out, out_size);
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
