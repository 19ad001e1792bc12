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
struct sframe_enc_fde;
struct sframe_enc_rule;

bool gen_grow(void **arr, u32 *cap, u32 need, size_t elem);
/* Append to g's FDEs or FREs: false out of memory. */
bool gen_add_fde(struct gen *g, const struct sframe_enc_fde *fde);
bool gen_add_fre(struct gen *g, u32 start, const struct sframe_enc_rule *rule);
/* Do g's FDEs @first on share addresses with [@lo, @hi)? */
bool gen_fdes_overlap(const struct gen *g, u32 first, u64 lo, u64 hi);
__printf(3, 4)
int gen_fail(struct gen *g, int status, const char *fmt, ...);
bool gen_read_uleb(const u8 **p, const u8 *end, u64 *val);
bool gen_read_sleb(const u8 **p, const u8 *end, s64 *val);
bool gen_read_le(const u8 **p, const u8 *end, unsigned int bytes, u64 *val);

#endif /* _SFRAMECTL_GEN_UTIL_H */
