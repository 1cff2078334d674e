/* SPDX-License-Identifier: MIT */
/*
 * rcupdate.h - the kernel's RCU API (include/linux/rcupdate.h and the
 * kfree_rcu() family of include/linux/slab.h, Linux 5.17) under the
 * kernel's names, for programs that use uslab.
 *
 * What it is for: readers walk shared data inside rcu_read_lock() /
 * rcu_read_unlock() without locks; an updater unpublishes an object, then
 * frees it only after a grace period -- once every reader that might still
 * see it has left its read-side critical section: synchronize_rcu() waits
 * for one, call_rcu() runs a callback after one, kfree_rcu() frees after
 * one, rcu_barrier() waits until every callback and kfree_rcu() queued so
 * far has been done.  Objects of a cache made with SLAB_TYPESAFE_BY_RCU may
 * be freed and reused at once, but their memory stays an object of that
 * cache for as long as a reader can hold a pointer to it (docs/rcu.md).
 *
 * The flavour: liburcu's "bulletproof" RCU (urcu-bp).  A library cannot ask
 * its users to register every thread that reads, or to report quiescent
 * states: urcu-bp needs neither (a thread is registered by its first
 * rcu_read_lock() and forgotten when it exits), and reserves no signal.
 * rcu_register_thread() only moves that first-use cost earlier;
 * rcu_unregister_thread() does nothing.  You need no liburcu header: link
 * with uslab (its pkg-config and CMake files add -lurcu-bp when linking
 * statically).  The callbacks of call_rcu() run on uslab's RCU thread,
 * "uslab-rcu", created at the first RCU use.
 *
 * Rules, as in the kernel, and what uslab does when one is broken:
 *   - synchronize_rcu() and rcu_barrier() inside rcu_read_lock() would wait
 *     for themselves: reported ("suspicious RCU usage"), then abort();
 *   - rcu_barrier() from a callback likewise;
 *   - kvfree_rcu(ptr) without an rcu_head may wait in synchronize_rcu()
 *     when memory is short, so not inside rcu_read_lock() (it then warns
 *     and leaks ptr rather than deadlock);
 *   - fork() is safe (the child may allocate and use RCU), but not from
 *     inside rcu_read_lock() while another thread waits for a grace period.
 * This header defines struct rcu_head, as liburcu's <urcu/call-rcu.h>
 * does: include one of them per source file.
 *
 * Compiles as C11 and as C++.
 */
#ifndef USLAB_RCUPDATE_H
#define USLAB_RCUPDATE_H

#include <stddef.h>
#include <uslab/uslab.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * struct rcu_head - a callback waiting for a grace period, embedded in the
 * object it frees.  The kernel's shape (and liburcu's size and layout):
 * next links it into the library's list of queued callbacks.
 */
struct rcu_head {
	struct rcu_head *next;			/* queue link (liburcu's) */
	void (*func)(struct rcu_head *head);	/* called after the grace period */
};

typedef void (*rcu_callback_t)(struct rcu_head *head);

#define __uslab_rcu_inline	static inline __attribute__((always_inline))

/**
 * rcu_read_lock - begin an RCU read-side critical section
 *
 * Pointers read with rcu_dereference() stay valid (and memory of a
 * SLAB_TYPESAFE_BY_RCU cache stays of its type) until rcu_read_unlock().
 * Nests.  Never sleeps; any thread may call it, no registration needed.
 */
__uslab_rcu_inline void rcu_read_lock(void)
{
	uslab_rcu_read_lock();
}

/** rcu_read_unlock - end an RCU read-side critical section */
__uslab_rcu_inline void rcu_read_unlock(void)
{
	uslab_rcu_read_unlock();
}

/** rcu_read_lock_held - nonzero inside rcu_read_lock() on this thread */
__uslab_rcu_inline int rcu_read_lock_held(void)
{
	return uslab_rcu_read_lock_held();
}

/** rcu_register_thread - optional: register this thread as a reader now */
__uslab_rcu_inline void rcu_register_thread(void)
{
	uslab_rcu_register_thread();
}

/** rcu_unregister_thread - nothing to do (a reader is forgotten at its exit) */
__uslab_rcu_inline void rcu_unregister_thread(void)
{
	uslab_rcu_unregister_thread();
}

/**
 * synchronize_rcu - wait for a grace period
 *
 * Returns once every read-side critical section that began before the call
 * has ended.  Not inside rcu_read_lock().
 */
__uslab_rcu_inline void synchronize_rcu(void)
{
	uslab_synchronize_rcu();
}

/**
 * call_rcu - run a function after a grace period
 * @head: an rcu_head, usually inside the object to free
 * @func: called with @head, on uslab's RCU thread, after every
 *        read-side critical section that began before the call has ended
 */
__uslab_rcu_inline void call_rcu(struct rcu_head *head, rcu_callback_t func)
{
	uslab_call_rcu(head, func);
}

/**
 * rcu_barrier - wait for queued callbacks and kfree_rcu()s
 *
 * Returns once every call_rcu() callback queued before the call has run and
 * every object queued by kfree_rcu()/kvfree_rcu() before the call has been
 * freed.  Not inside rcu_read_lock(), not from a callback.
 */
__uslab_rcu_inline void rcu_barrier(void)
{
	uslab_rcu_barrier();
}

/* ---- publishing and reading RCU-protected pointers ---- */

/* Read p inside rcu_read_lock(): what it points to is seen initialised. */
#define rcu_dereference(p)		__atomic_load_n(&(p), __ATOMIC_CONSUME)
#define rcu_dereference_check(p, c)	rcu_dereference(p)
#define rcu_dereference_raw(p)		rcu_dereference(p)
/* Read p where no reader can race with its update (the updater's lock held). */
#define rcu_dereference_protected(p, c)	(p)
/* The value of p, not to be dereferenced (a test against NULL, say). */
#define rcu_access_pointer(p)		__atomic_load_n(&(p), __ATOMIC_RELAXED)
/* Publish v in p: whatever was written to *v before is seen by readers. */
#define rcu_assign_pointer(p, v) \
	__atomic_store_n(&(p), (__typeof__(p))(v), __ATOMIC_RELEASE)
/* Store v in p without ordering (NULL, or before readers can see p). */
#define RCU_INIT_POINTER(p, v) \
	__atomic_store_n(&(p), (__typeof__(p))(v), __ATOMIC_RELAXED)
/* Publish v in p and return the old value (c: the updater's lock is held). */
#define rcu_replace_pointer(p, v, c) \
	__atomic_exchange_n(&(p), (__typeof__(p))(v), __ATOMIC_ACQ_REL)

/* ---- freeing after a grace period ---- */

/**
 * kfree_rcu - kfree() an object after a grace period
 * @ptr: the object (kmalloc memory), or NULL (nothing happens)
 * @rhf: optional: the name of its struct rcu_head member
 *
 * Objects are gathered per thread in page-sized batches, each batch handed
 * to one call_rcu(); rcu_barrier() waits for them.  Without @rhf the object
 * needs no rcu_head, but the call may wait for a grace period when memory
 * is short (so not inside rcu_read_lock()).
 */
#define kfree_rcu(...)		kvfree_rcu(__VA_ARGS__)

/**
 * kvfree_rcu - kvfree() an object after a grace period
 * @ptr: kmalloc or kvmalloc memory, or NULL
 * @rhf: optional: the name of its struct rcu_head member (as kfree_rcu)
 */
#define kvfree_rcu(...) \
	__USLAB_KVFREE_RCU_PICK(__VA_ARGS__, __uslab_kvfree_rcu_2, __uslab_kvfree_rcu_1)(__VA_ARGS__)

#define __USLAB_KVFREE_RCU_PICK(_1, _2, name, ...)	name
/* Checks that the member named is a struct rcu_head; ptr may point to const. */
static inline struct rcu_head *__uslab_rcu_head_of(const struct rcu_head *head)
{
	return (struct rcu_head *)head;
}
#define __uslab_kvfree_rcu_2(ptr, rhf)						\
	do {									\
		__typeof__(ptr) ___p = (ptr);					\
		if (___p)							\
			uslab_kvfree_call_rcu(__uslab_rcu_head_of(&___p->rhf),	\
					      (void *)___p);				\
	} while (0)
#define __uslab_kvfree_rcu_1(ptr)						\
	do {									\
		__typeof__(ptr) ___p = (ptr);					\
		if (___p)							\
			uslab_kvfree_call_rcu(NULL, (void *)___p);		\
	} while (0)

#undef __uslab_rcu_inline

#ifdef __cplusplus
}
#endif

#endif /* USLAB_RCUPDATE_H */
