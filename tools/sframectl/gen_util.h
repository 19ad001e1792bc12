/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sframectl gen's helpers, which every step uses and which use no step:
 * growing an array, recording why gen failed, reading the fields of
 * .eh_frame and its CFI instructions.
 */
#ifndef _SFRAMECTL_GEN_UTIL_H
#define _SFRAMECTL_GEN_UTIL_H

#include <stddef.h>
#include <sframe/sframe.h>

struct gen;

bool gen_grow(void **arr, u32 *cap, u32 need, size_t elem);
__printf(3, 4)
int gen_fail(struct gen *g, int status, const char *fmt, ...);
bool gen_read_uleb(const u8 **p, const u8 *end, u64 *val);
bool gen_read_sleb(const u8 **p, const u8 *end, s64 *val);
bool gen_read_le(const u8 **p, const u8 *end, unsigned int bytes, u64 *val);

#endif /* _SFRAMECTL_GEN_UTIL_H */
