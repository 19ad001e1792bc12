/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place where the format core learns whether it is built for the
 * kernel or for user space.  Need:
 *   u8..u64, s8..s64, bool, size_t, S32_MIN/MAX, U32_MAX, ARRAY_SIZE
 *   errno values (negative returns), __always_inline, noinline, __printf,
 *   likely()
 *   check_add_overflow(), check_mul_overflow()
 *   get_unaligned_{le,be}{16,32,64}()
 *   sframe_alloc(), sframe_free(): large buffers (tests' flattened tables)
 *   sframe_yield(i): in validation's and flattening's loops, every
 *	SFRAME_YIELD_EVERY items, let other tasks run (the module loads in
 *	kworkers; nothing in user space)
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
#include <linux/sched.h>
#include <linux/slab.h>

#define sframe_alloc(n)		kvmalloc(n, GFP_KERNEL)
#define sframe_free(p)		kvfree(p)

#define SFRAME_YIELD_EVERY	1024
#define sframe_yield(i)						\
	do {							\
		if ((i) % SFRAME_YIELD_EVERY == SFRAME_YIELD_EVERY - 1) \
			cond_resched();				\
	} while (0)
#else
#include <endian.h>			/* and, through sys/cdefs.h, __always_inline */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

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
#define noinline			__sframe_attr(noinline)
#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)

/* The value of @type at @p, which may be unaligned, in host order. */
#define sframe_load(type, p)						\
	({ type v__; __builtin_memcpy(&v__, (p), sizeof(v__)); v__; })
#define get_unaligned_le16(p)		le16toh(sframe_load(u16, p))
#define get_unaligned_le32(p)		le32toh(sframe_load(u32, p))
#define get_unaligned_le64(p)		le64toh(sframe_load(u64, p))
#define get_unaligned_be16(p)		be16toh(sframe_load(u16, p))
#define get_unaligned_be32(p)		be32toh(sframe_load(u32, p))
#define get_unaligned_be64(p)		be64toh(sframe_load(u64, p))

#define sframe_alloc(n)		malloc(n)
#define sframe_free(p)		free(p)
#define sframe_yield(i)		do { } while (0)

#ifndef likely
#define likely(x)		__builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x)		__builtin_expect(!!(x), 0)
#endif

#ifndef EOPNOTSUPP
#define EOPNOTSUPP	95
#endif
#endif /* __KERNEL__ */

#endif /* _SFRAME_COMPAT_H */
