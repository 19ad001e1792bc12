/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sframectl internals: how an input file becomes a section to validate,
 * and the commands built on the format core.
 */
#ifndef _SFRAMECTL_H
#define _SFRAMECTL_H

#include <stdio.h>
#include <sframe/sframe.h>

/* An SFrame section taken out of a file, relocated where needed. */
struct sframe_input {
	const char *path;
	unsigned char *file;		/* whole file, owned */
	size_t file_size;
	unsigned char *bytes;		/* the section: in file, or owned copy */
	size_t size;
	unsigned char *copy;		/* owned relocated copy, if any */
	unsigned long long vaddr;	/* address of the section's first byte */
	const char *name;		/* section name for the dump heading */
	unsigned int relocations;	/* relocations applied */
	unsigned int options;		/* for sframe_validate() */
};

/* Outcome of loading: a usage/IO problem or an invalid file. */
enum sframe_load_status {
	SFRAME_LOAD_OK,
	SFRAME_LOAD_IO,			/* exit 2 */
	SFRAME_LOAD_INVALID,		/* exit 1 */
};

#define SFRAME_MSG_MAX	256

enum sframe_load_status sframe_input_load(struct sframe_input *in,
					  const char *path, bool raw,
					  char *msg, size_t msg_size);
void sframe_input_free(struct sframe_input *in);

enum sframe_load_status sframe_elf_extract(struct sframe_input *in,
					   char *msg, size_t msg_size);

void sframe_dump(FILE *out, const struct sframe_section *sec,
		 const char *name);

#endif /* _SFRAMECTL_H */
