/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The running kernel's BTF, read once while the module hooks its
 * observers, and the check of an observed function's prototype in it.
 */
#ifndef _SFRAME_HOOK_BTF_H
#define _SFRAME_HOOK_BTF_H

#include <linux/types.h>

#include "btf_check.h"

/* Zero-initialised; read at the first check, freed by the put. */
struct sframe_kernel_btf {
	void *data;
	struct sframe_btf btf;
	int read_err;			/* why there is nothing to parse */
	enum sframe_btf_reason parsed;	/* the parse's verdict */
	bool tried;
};

int sframe_kernel_btf_check(struct sframe_kernel_btf *kb, const char *name,
			    const struct sframe_btf_proto *want,
			    char *why, size_t len);
void sframe_kernel_btf_put(struct sframe_kernel_btf *kb);

#endif /* _SFRAME_HOOK_BTF_H */
