/* SPDX-License-Identifier: MIT */
/*
 * compiler.h - the kernel's compiler vocabulary, spelled for gcc and clang.
 *
 * likely/unlikely belong on fast paths and error exits only.  READ_ONCE and
 * WRITE_ONCE are relaxed atomic accesses: they compile to a plain load/store
 * on x86-64 and tell ThreadSanitizer that a racy access is intended.
 */
#ifndef USLAB_MM_COMPILER_H
#define USLAB_MM_COMPILER_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

#undef __always_inline
#define __always_inline	inline __attribute__((always_inline))
#define noinline	__attribute__((noinline))
#define __cold		__attribute__((cold))
#define __maybe_unused	__attribute__((unused))
#define __aligned(x)	__attribute__((aligned(x)))
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#define __noreturn	__attribute__((noreturn))
#define __must_check	__attribute__((warn_unused_result))

/* Functions not exported from the shared library are hidden by the build
 * (-fvisibility=hidden); USLAB_API in include/uslab/uslab.h marks exports. */

#define barrier()	__asm__ __volatile__("" ::: "memory")

#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define smp_mb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define ALIGN(x, a)		(((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a)	((x) & ~((__typeof__(x))(a) - 1))
#define IS_ALIGNED(x, a)	(((x) & ((__typeof__(x))(a) - 1)) == 0)
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))
#define clamp(v, lo, hi)	min(max(v, lo), hi)
#define BIT(n)			(1UL << (n))

#define BUILD_BUG_ON(cond)	_Static_assert(!(cond), #cond)

static inline bool is_power_of_2(unsigned long n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

/* fls(0) == 0, fls(1) == 1, fls(0x80000000) == 32 (kernel semantics). */
static inline int fls(unsigned int x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}

static inline int fls64(unsigned long x)
{
	return x ? 64 - __builtin_clzl(x) : 0;
}

static inline unsigned int ilog2(unsigned long n)
{
	return (unsigned int)(fls64(n) - 1);
}

static inline unsigned long roundup_pow_of_two(unsigned long n)
{
	return n <= 1 ? 1 : 1UL << fls64(n - 1);
}

#endif /* USLAB_MM_COMPILER_H */
