// SPDX-License-Identifier: GPL-2.0
/*
 * What a generator child hands back and the service caches: fixed fields
 * (struct sframe_gen_result) and the bare SFrame section after them.  The
 * child writes it, in its sandbox; the parent, which may be root, reads
 * it with a few comparisons and no ELF reader, then checks the section as
 * the module does (sframe_validate()).  ELF is parsed only in the child,
 * so that nothing a user made, nor what a child subverted by one wrote,
 * ever reaches libelf in a process that holds a privilege.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve_gen.h"

_Static_assert(sizeof(struct sframe_gen_result) == 88,
	       "the result header is read and written as it is laid out");

/*
 * The result for the ELF file @file (@file_size bytes; with @fill, only
 * what its own section leaves out) in a malloc()ed buffer, *@out
 * (*@out_size bytes).  0, or an exit status with the reason in @msg.
 */
int sframe_gen_result(const u8 *file, size_t file_size, bool fill, u8 **out,
		      size_t *out_size, char *msg, size_t msg_size)
{
	struct sframe_gen_result h = { .magic = SFRAME_GEN_RESULT_MAGIC };
	struct sframe_code code;
	size_t size;
	u8 *sec;
	int ret;

	*out = NULL;
	ret = sframe_gen_memory("input", file, file_size, fill, &sec, &size,
				&h.vaddr, msg, msg_size);
	if (ret)
		return ret;
	if (size > UINT32_MAX) {	/* GEN_MAX_SFRAME keeps it far below */
		free(sec);
		snprintf(msg, msg_size, "section larger than 4 GiB");
		return EXIT_INVALID;
	}
	h.section_size = size;
	/* The one the module reads, as the parent reads it: elf_code.c. */
	if (!sframe_elf_code(file, file_size, &code, msg, msg_size)) {
		h.build_id_size = code.build_id_size;
		memcpy(h.build_id, code.build_id, code.build_id_size);
	}
	*out = malloc(sizeof(h) + size);
	if (*out) {
		memcpy(*out, &h, sizeof(h));
		memcpy(*out + sizeof(h), sec, size);
		*out_size = sizeof(h) + size;
	} else {
		snprintf(msg, msg_size, "out of memory");
		ret = EXIT_USAGE;
	}
	free(sec);
	return ret;
}

/*
 * Read the result @buf (@len bytes): its fields into @h, its section at
 * *@sec (inside @buf, h->section_size bytes).  SFRAME_LOAD_OK, or
 * SFRAME_LOAD_INVALID with the reason in @msg.  The section itself is
 * not checked here.
 */
enum sframe_load_status sframe_gen_result_read(const u8 *buf, size_t len,
					       struct sframe_gen_result *h,
					       const u8 **sec, char *msg,
					       size_t msg_size)
{
	if (len < sizeof(*h)) {
		snprintf(msg, msg_size, "not a generator result: %zu bytes, shorter than its header",
			 len);
		return SFRAME_LOAD_INVALID;
	}
	memcpy(h, buf, sizeof(*h));
	if (memcmp(h->magic, SFRAME_GEN_RESULT_MAGIC, sizeof(h->magic))) {
		snprintf(msg, msg_size, "not a generator result: bad magic");
		return SFRAME_LOAD_INVALID;
	}
	if (h->build_id_size > SFRAME_BUILD_ID_MAX + 1) {
		snprintf(msg, msg_size, "invalid generator result: a build ID of %u bytes",
			 h->build_id_size);
		return SFRAME_LOAD_INVALID;
	}
	if (h->section_size != len - sizeof(*h)) {
		snprintf(msg, msg_size, "invalid generator result: a section of %u bytes, %zu follow",
			 h->section_size, len - sizeof(*h));
		return SFRAME_LOAD_INVALID;
	}
	*sec = buf + sizeof(*h);
	return SFRAME_LOAD_OK;
}
