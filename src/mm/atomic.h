/* SPDX-License-Identifier: MIT */
/*
 * atomic.h - atomic_t, atomic_long_t, bit operations and locks with the
 * kernel's names, built on the gcc/clang __atomic builtins and pthreads.
 *
 * spinlock_t is a pthread mutex: user-space threads can be descheduled while
 * holding a lock, so a sleeping lock beats spinning.  Every lock the library
 * owns is registered with the fork handler (fork_lock_register() in fork.c).
 */
#ifndef USLAB_MM_ATOMIC_H
#define USLAB_MM_ATOMIC_H

#include <pthread.h>
#include "compiler.h"

typedef struct { int counter; } atomic_t;
typedef struct { long counter; } atomic_long_t;

#define ATOMIC_INIT(i)	{ (i) }

static inline int atomic_read(const atomic_t *v) { return __atomic_load_n(&v->counter, __ATOMIC_RELAXED); }
static inline void atomic_set(atomic_t *v, int i) { __atomic_store_n(&v->counter, i, __ATOMIC_RELAXED); }
static inline int atomic_add_return(int i, atomic_t *v) { return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST); }
static inline int atomic_sub_return(int i, atomic_t *v) { return __atomic_sub_fetch(&v->counter, i, __ATOMIC_SEQ_CST); }
static inline void atomic_inc(atomic_t *v) { atomic_add_return(1, v); }
static inline void atomic_dec(atomic_t *v) { atomic_sub_return(1, v); }
static inline bool atomic_dec_and_test(atomic_t *v) { return atomic_sub_return(1, v) == 0; }

static inline long atomic_long_read(const atomic_long_t *v) { return __atomic_load_n(&v->counter, __ATOMIC_RELAXED); }
static inline void atomic_long_set(atomic_long_t *v, long i) { __atomic_store_n(&v->counter, i, __ATOMIC_RELAXED); }
static inline long atomic_long_add_return(long i, atomic_long_t *v) { return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST); }
static inline void atomic_long_add(long i, atomic_long_t *v) { __atomic_add_fetch(&v->counter, i, __ATOMIC_RELAXED); }
static inline void atomic_long_sub(long i, atomic_long_t *v) { __atomic_sub_fetch(&v->counter, i, __ATOMIC_RELAXED); }
static inline void atomic_long_inc(atomic_long_t *v) { atomic_long_add(1, v); }
static inline void atomic_long_dec(atomic_long_t *v) { atomic_long_sub(1, v); }

/* Bit operations on an unsigned long word; the __ forms are not atomic. */
static inline void set_bit(int nr, unsigned long *w) { __atomic_fetch_or(w, BIT(nr), __ATOMIC_RELAXED); }
static inline void clear_bit(int nr, unsigned long *w) { __atomic_fetch_and(w, ~BIT(nr), __ATOMIC_RELAXED); }
static inline bool test_bit(int nr, const unsigned long *w) { return (__atomic_load_n(w, __ATOMIC_RELAXED) >> nr) & 1; }
static inline void __set_bit(int nr, unsigned long *w) { WRITE_ONCE(*w, READ_ONCE(*w) | BIT(nr)); }
static inline void __clear_bit(int nr, unsigned long *w) { WRITE_ONCE(*w, READ_ONCE(*w) & ~BIT(nr)); }
static inline bool test_and_set_bit_lock(int nr, unsigned long *w)
{
	return __atomic_fetch_or(w, BIT(nr), __ATOMIC_ACQUIRE) & BIT(nr);
}
static inline void clear_bit_unlock(int nr, unsigned long *w)
{
	__atomic_fetch_and(w, ~BIT(nr), __ATOMIC_RELEASE);
}

/*
 * Double-word compare-and-swap on a 16-byte aligned pair.  The __sync form
 * is inlined as lock cmpxchg16b when built with -mcx16 (the __atomic form
 * would call libatomic).  Returns true if *p held old and now holds new.
 */
typedef unsigned __int128 u128;
static inline bool cmpxchg_double(u128 *p, u128 old, u128 new)
{
	return __sync_bool_compare_and_swap(p, old, new);
}

typedef struct { pthread_mutex_t m; } spinlock_t;
#define __SPIN_LOCK_UNLOCKED	{ PTHREAD_MUTEX_INITIALIZER }
#define DEFINE_SPINLOCK(x)	spinlock_t x = __SPIN_LOCK_UNLOCKED
static inline void spin_lock_init(spinlock_t *l) { pthread_mutex_init(&l->m, NULL); }
static inline void spin_lock(spinlock_t *l) { pthread_mutex_lock(&l->m); }
static inline void spin_unlock(spinlock_t *l) { pthread_mutex_unlock(&l->m); }
static inline bool spin_trylock(spinlock_t *l) { return pthread_mutex_trylock(&l->m) == 0; }

struct mutex { pthread_mutex_t m; };
#define DEFINE_MUTEX(x)		struct mutex x = { PTHREAD_MUTEX_INITIALIZER }
static inline void mutex_init(struct mutex *l) { pthread_mutex_init(&l->m, NULL); }
static inline void mutex_lock(struct mutex *l) { pthread_mutex_lock(&l->m); }
static inline void mutex_unlock(struct mutex *l) { pthread_mutex_unlock(&l->m); }
static inline bool mutex_trylock(struct mutex *l) { return pthread_mutex_trylock(&l->m) == 0; }

#endif /* USLAB_MM_ATOMIC_H */
