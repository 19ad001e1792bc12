// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl gen's pipeline: read an x86-64 or AArch64 ELF object's .eh_frame,
 * translate its CFI, describe its startup code and PLT stubs, sort them
 * in, encode and validate the SFrame section, in memory, for the gen
 * command, sframectl load and sframectl serve.
 */
#define _GNU_SOURCE		/* qsort_r() */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

/* The whole input file, read as every sframectl input is. */
static int read_whole(struct gen *g)
{
	char msg[SFRAME_MSG_MAX] = "";
	struct sframe_input in;

	if (sframe_input_load(&in, g->path, true, msg, sizeof(msg)) !=
	    SFRAME_LOAD_OK)
		return gen_fail(g, EXIT_USAGE, "%s", msg);
	g->image = in.file;
	g->image_size = in.file_size;
	return 0;
}

/*
 * For --fill: the object's own section, if it has a valid one.  Without
 * one (none, or one the kernel would refuse too) there is nothing to
 * fill: every function is translated, as for an object without SFrame.
 */
static void gen_read_own(struct gen *g)
{
	char msg[SFRAME_MSG_MAX];

	g->own = (struct sframe_input){
		.path = g->path, .file = g->image, .file_size = g->image_size,
	};
	g->has_own = sframe_elf_extract(&g->own, msg, sizeof(msg)) ==
		     SFRAME_LOAD_OK && g->own.bytes &&
		     !sframe_validate(&g->own_sec, g->own.bytes,
				      (u32)g->own.size, g->own.vaddr,
				      SFRAME_REQUIRE_SORTED |
				      SFRAME_SEGMENT_PADDING, NULL);
}

/* Does the object's own section describe any of @f (its ends)? */
static bool gen_own_covers(const struct gen *g, const struct gen_func *f)
{
	struct sframe_fde fde;

	return sframe_find_fde(&g->own_sec, f->lo, &fde) == 0 ||
	       sframe_find_fde(&g->own_sec, f->hi - 1, &fde) == 0;
}

static int fde_order(const void *a, const void *b, void *eh_addr)
{
	const struct sframe_enc_fde *fa = a, *fb = b;
	s64 ra = (s64)(fa->start - *(u64 *)eh_addr);
	s64 rb = (s64)(fb->start - *(u64 *)eh_addr);

	return ra < rb ? -1 : ra > rb;
}

/*
 * Sort the FDEs described from code (@first on) in among the CFI's, once
 * the FREs are known to be within bounds.  0, or an exit status with
 * g->err saying why.
 */
static int gen_sort_fdes(struct gen *g, u32 first)
{
	if (g->nfres > GEN_MAX_FRES)
		return gen_fail(g, EXIT_INVALID,
				"more than the %u FREs allowed", GEN_MAX_FRES);
	if (g->nfdes != first)
		qsort_r(g->fdes, g->nfdes, sizeof(*g->fdes), fde_order,
			&g->eh_addr);
	return 0;
}

/* Read, translate, encode, validate: 0 and the section, or g->err says. */
int gen_build(struct gen *g, u8 **bytes, size_t *size,
	      struct sframe_section *sec)
{
	struct sframe_error err;
	u32 i, first;
	int ret;

	*bytes = NULL;
	ret = g->image ? 0 : read_whole(g);
	if (!ret)
		ret = gen_read_eh_frame(g);
	if (!ret && g->fill)
		gen_read_own(g);
	for (i = 0; !ret && i < g->nfuncs; i++) {
		if (g->has_own && gen_own_covers(g, &g->funcs[i]))
			g->stats.own++;
		else
			ret = gen_translate_func(g, &g->funcs[i]);
	}
	first = g->nfdes;
	if (!ret)
		ret = gen_describe_crt(g);
	if (!ret)
		ret = gen_describe_plt(g, first);
	if (!ret)
		ret = gen_sort_fdes(g, first);
	if (ret)
		return ret;

	*size = sframe_enc_size(g->mach->arch, g->fdes, g->nfdes, g->fres);
	if (*size > GEN_MAX_SFRAME)
		return gen_fail(g, EXIT_INVALID,
				"SFrame section of %zu bytes, more than the %u allowed",
				*size, GEN_MAX_SFRAME);
	*bytes = malloc(*size);
	if (!*bytes)
		return gen_fail(g, EXIT_USAGE, "out of memory");
	sframe_encode(g->mach->arch, g->fdes, g->nfdes, g->fres,
		      g->eh_addr, *bytes, *size);
	if (sframe_validate(sec, *bytes, (u32)*size, g->eh_addr,
			    SFRAME_REQUIRE_SORTED, &err)) {
		ret = gen_fail(g, EXIT_INVALID,
			       "BUG: generated section is invalid: %s at offset 0x%x",
			       sframe_reason_str(err.reason), err.offset);
		free(*bytes);
		*bytes = NULL;
	}
	return ret;
}

void gen_free(struct gen *g)
{
	sframe_elf_close(&g->obj);
	if (!g->borrowed)
		free(g->image);
	free(g->own.copy);
	free(g->funcs);
	free(g->rows);
	free(g->fdes);
	free(g->fres);
}

/*
 * Build the section for @path, whose @file_size bytes the caller has read
 * to @file (not written to, and used only while @g lives), in memory.
 * 0, or an exit status with the reason in @msg; @g is the caller's to
 * gen_free() either way.
 */
static int gen_in_memory(struct gen *g, const char *path, const u8 *file,
			 size_t file_size, bool fill, u8 **data, size_t *size,
			 char *msg, size_t msg_size)
{
	struct sframe_section sec;
	int ret;

	*g = (struct gen){
		.path = path, .image = (unsigned char *)file,
		.image_size = file_size, .borrowed = true, .fill = fill,
	};
	ret = gen_build(g, data, size, &sec);
	if (ret)
		snprintf(msg, msg_size, "%s", g->err);
	return ret;
}

/*
 * The section for @path (gen_in_memory(); with @fill, only what its own
 * section leaves out) and the address it assumes: a generator child's
 * result, and load --vdso's.  0,
 * or an exit status with the reason in @msg.
 */
int sframe_gen_memory(const char *path, const u8 *file, size_t file_size,
		      bool fill, u8 **data, size_t *size, u64 *vaddr, char *msg,
		      size_t msg_size)
{
	struct gen g;
	int ret;

	ret = gen_in_memory(&g, path, file, file_size, fill, data, size, msg,
			    msg_size);
	*vaddr = g.eh_addr;
	gen_free(&g);
	return ret;
}
