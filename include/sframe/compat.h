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
 *   sframe_walk_call(f, direct, args...): call @f, directly when it is
 *	@direct (the module's own walk callbacks, SFRAME_WALK_USER_OPS);
 *   sframe_walk_read(f, ctx, addr, val, n): call the read callback @f,
 *	inline when it is the module's
 *   sframe_walk_native_read: the module's read callback (NULL elsewhere),
 *	which a loop may compare @f with once and then read inline
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
#include <linux/uaccess.h>

#define sframe_alloc(n)		kvmalloc(n, GFP_KERNEL)
#define sframe_free(p)		kvfree(p)

#define SFRAME_YIELD_EVERY	1024
#define sframe_yield(i)						\
	do {							\
		if ((i) % SFRAME_YIELD_EVERY == SFRAME_YIELD_EVERY - 1) \
			cond_resched();				\
	} while (0)

/* The module's walk callbacks (walk_user.c, walk_lookup.c). */
struct sframe_where;
int sframe_user_read(void *ctx, u64 addr, u64 *val, unsigned int n);
void sframe_user_lookup(void *ctx, u64 ip, struct sframe_where *where);

/*
 * sframe_user_read()'s work, inline where the walk reads (a stack read
 * per frame is its main cost).  copy_from_user_nofault() never faults
 * pages in, and refuses when the sampled task's mm is not the loaded one
 * (nmi_uaccess_okay()).
 */
static __always_inline int sframe_user_read_inline(u64 addr, u64 *val,
						   unsigned int n)
{
	if (copy_from_user_nofault(val, (const void __user *)addr,
				   n * sizeof(*val)))
		return -EFAULT;
	return 0;
}

#ifdef SFRAME_WALK_USER_OPS	/* set by Kbuild for the module's walk */
#include <linux/indirect_call_wrapper.h>

#define sframe_walk_call(f, direct, ...) INDIRECT_CALL_1(f, direct, __VA_ARGS__)
#define sframe_walk_read(f, ctx, addr, val, n)				\
	(likely((f) == sframe_user_read) ?				\
	 sframe_user_read_inline(addr, val, n) : (f)(ctx, addr, val, n))
#define sframe_walk_native_read	sframe_user_read
#endif
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

#ifndef sframe_walk_call
#define sframe_walk_call(f, direct, ...)	f(__VA_ARGS__)
#define sframe_walk_read(f, ctx, addr, val, n)	f(ctx, addr, val, n)
#define sframe_walk_native_read	NULL
#endif

#endif /* _SFRAME_COMPAT_H */
