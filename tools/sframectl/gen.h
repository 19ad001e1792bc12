/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sframectl gen internals: the x86-64 facts the generator reads DWARF CFI
 * with; the rules it derives are the format core's (sframe/encode.h).
 */
#ifndef _SFRAMECTL_GEN_H
#define _SFRAMECTL_GEN_H

#include <stddef.h>
#include <sframe/encode.h>
#include <sframe/sframe.h>

/* x86-64 DWARF register numbers and the size of a PLT entry. */
#define GEN_REG_RBP		6
#define GEN_REG_RSP		7
#define GEN_REG_RIP		16
#define GEN_AMD64_PLT_ENTRY	16

#endif /* _SFRAMECTL_GEN_H */
