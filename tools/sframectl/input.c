// SPDX-License-Identifier: GPL-2.0
/*
 * Reading an input file whole and taking its SFrame section out of it:
 * a bare section with --raw, otherwise an ELF object.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sframectl.h"

/* Largest input read whole; bigger files are refused, not truncated. */
#define SFRAMECTL_MAX_FILE	(1ULL << 32)

static enum sframe_load_status read_file(struct sframe_input *in, char *msg,
					 size_t msg_size)
{
	FILE *f = fopen(in->path, "rb");
	size_t cap = 1 << 16, len = 0, n;
	unsigned char *buf = NULL, *grown;

	if (!f) {
		snprintf(msg, msg_size, "%s", strerror(errno));
		return SFRAME_LOAD_IO;
	}
	do {
		if (len == cap || !buf) {
			if (buf)
				cap *= 2;
			grown = cap <= SFRAMECTL_MAX_FILE ? realloc(buf, cap) :
							    NULL;
			if (!grown) {
				free(buf);
				fclose(f);
				snprintf(msg, msg_size, "file too large");
				return SFRAME_LOAD_IO;
			}
			buf = grown;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n);
	if (ferror(f)) {
		free(buf);
		fclose(f);
		snprintf(msg, msg_size, "read error");
		return SFRAME_LOAD_IO;
	}
	fclose(f);
	in->file = buf;
	in->file_size = len;
	return SFRAME_LOAD_OK;
}

enum sframe_load_status sframe_input_load(struct sframe_input *in,
					  const char *path, bool raw,
					  char *msg, size_t msg_size)
{
	enum sframe_load_status st;

	memset(in, 0, sizeof(*in));
	in->path = path;
	st = read_file(in, msg, msg_size);
	if (st != SFRAME_LOAD_OK || !raw)
		return st == SFRAME_LOAD_OK ? sframe_elf_extract(in, msg, msg_size)
					    : st;
	in->bytes = in->file;
	in->size = in->file_size;
	in->name = ".sframe";
	return SFRAME_LOAD_OK;
}

void sframe_input_free(struct sframe_input *in)
{
	free(in->copy);
	free(in->file);
	memset(in, 0, sizeof(*in));
}

