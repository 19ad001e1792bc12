/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place where the format core learns whether it is built for the
 * kernel or for user space: fixed-width types, errno values and overflow
 * helpers, under the kernel's names.
 */
#ifndef _SFRAME_COMPAT_H
#define _SFRAME_COMPAT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/overflow.h>
#include <linux/stddef.h>
#ifdef SFRAME_HAVE_LINUX_UNALIGNED_H	/* set by Kbuild: 6.12 and later */
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif
#else
#include <endian.h>			/* and, through sys/cdefs.h, __always_inline */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

#define S32_MIN		INT32_MIN
#define S32_MAX		INT32_MAX
#define U32_MAX		UINT32_MAX

#define ARRAY_SIZE(a)			(sizeof(a) / sizeof((a)[0]))
#define __sframe_attr(x)		__attribute__((x))
#define __printf(a, b)			__sframe_attr(format(printf, a, b))
#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)

static inline u16 get_unaligned_le16(const void *p)
{
	u16 v;

	__builtin_memcpy(&v, p, sizeof(v));
	return le16toh(v);
}

static inline u32 get_unaligned_le32(const void *p)
{
	u32 v;

	__builtin_memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static inline u64 get_unaligned_le64(const void *p)
{
	u64 v;

	__builtin_memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static inline u16 get_unaligned_be16(const void *p)
{
	u16 v;

	__builtin_memcpy(&v, p, sizeof(v));
	return be16toh(v);
}

static inline u32 get_unaligned_be32(const void *p)
{
	u32 v;

	__builtin_memcpy(&v, p, sizeof(v));
	return be32toh(v);
}

static inline u64 get_unaligned_be64(const void *p)
{
	u64 v;

	__builtin_memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

#ifndef EOPNOTSUPP
#define EOPNOTSUPP	95
#endif
#endif /* __KERNEL__ */

#endif /* _SFRAME_COMPAT_H */
