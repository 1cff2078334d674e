// SPDX-License-Identifier: MIT
/*
 * rcu.c - read-copy update for uslab and its users, over liburcu's
 * "bulletproof" flavour (urcu-bp).
 *
 * 1. Overview.  The slab layer needs RCU twice: a slab of a
 *    SLAB_TYPESAFE_BY_RCU cache goes back to the page allocator only after a
 *    grace period (a reader inside rcu_read_lock() that still holds a
 *    pointer to a freed object finds memory of the same type), and
 *    kfree_rcu()/kvfree_rcu() (kvfree_rcu.c) free after a grace period.
 *    Users get the kernel's API from <uslab/rcupdate.h>.  The grace periods
 *    are liburcu's: this file forwards rcu_read_lock, synchronize_rcu,
 *    call_rcu and rcu_barrier to urcu-bp and adds what uslab needs around
 *    them: fork safety, reports of calls that would deadlock, and
 *    ThreadSanitizer's view of a grace period.
 *
 * 2. Why urcu-bp.  A library cannot make its users register every thread
 *    that reads (urcu-memb, urcu-mb, urcu-signal, which also takes a
 *    signal) or announce quiescent states (urcu-qsbr): threads it never saw
 *    may call rcu_read_lock() at any time.  urcu-bp registers a reader on
 *    its first rcu_read_lock() and forgets it when the thread exits; its
 *    readers cost a little more than urcu-memb's.  It is the flavour liburcu
 *    makes for libraries (LTTng-UST uses it for the same reason).  uslab
 *    calls liburcu's functions, never its LGPL inline versions
 *    (_LGPL_SOURCE), so no LGPL code is compiled into uslab.
 *
 * 3. Data structures.  struct rcu_head (mm_types.h) has the kernel's shape
 *    and liburcu's layout: the queue link, then func (asserted below), so
 *    call_rcu() hands the caller's head to urcu_bp_call_rcu() as it is.
 *    struct slab's rcu_head overlays page->rcu_head (words 1 and 2 of
 *    struct page): liburcu's link is an aligned pointer, so the "tail page"
 *    bit stays clear while a slab waits.  Here: the fork hooks, rcu_ready,
 *    and two addresses ThreadSanitizer synchronises on.
 *
 * 4. Lock order and fork().  liburcu's locks: call_rcu_mutex (creating the
 *    call_rcu thread, rcu_barrier), rcu_gp_lock and rcu_registry_lock
 *    (synchronize_rcu, and a thread's first read lock -- which call_rcu()
 *    takes inside -- even under a uslab lock: SLUB frees the slabs of an
 *    exiting thread with slab_mutex held).  fork() must find liburcu's
 *    call_rcu threads idle and its locks free, so: liburcu's call_rcu
 *    threads are paused first, at FORK_RANK_MALLOC_INIT, before any uslab
 *    lock is taken (a paused thread runs no callback, so it holds no uslab
 *    lock and waits for none); urcu-bp's gp and registry locks are taken
 *    last, at FORK_RANK_LEAF (whoever holds them waits only for readers, or
 *    for nothing).  call_rcu_mutex is never wanted under a uslab lock,
 *    because rcu_prepare() creates the call_rcu thread first (see 5).
 *    Callbacks may take any uslab lock.
 *
 * 5. States and invariants.
 *    - rcu_ready: false until the first RCU use (rcu_prepare, run by every
 *      entry point and by kmem_cache_create of an RCU cache, with no uslab
 *      lock held); then the fork hooks are registered and liburcu's
 *      default call_rcu thread exists for good (liburcu makes a new one in
 *      a fork child).  The hooks are registered lazily so that a second
 *      copy of uslab in the process (the malloc drop-in next to the
 *      library) that never uses RCU registers none: liburcu's fork
 *      functions must run once per fork.
 *    - synchronize_rcu() and rcu_barrier() inside a reader would wait for
 *      themselves, and rcu_barrier() in a callback for its own thread: both
 *      are reported and abort.
 *
 * 6. ThreadSanitizer.  liburcu is not instrumented, so TSan sees neither
 *    the grace period between a reader's accesses and a callback's frees,
 *    nor the queue between call_rcu() and the callback.  In a TSan build
 *    rcu_read_unlock() releases rcu_tsan_gp, call_rcu() releases the head,
 *    each callback of the library acquires both in rcu_callback_enter() and
 *    releases rcu_tsan_cb in rcu_callback_exit(); synchronize_rcu() acquires
 *    rcu_tsan_gp on return and rcu_barrier() rcu_tsan_cb.  Other builds
 *    compile these to nothing.  (A user's own callbacks get no such help.)
 */
#define rcu_head urcu_rcu_head	/* why: liburcu's head has the kernel's name; ours is mm_types.h's */
#include <urcu/urcu-bp.h>	/* the flavour-prefixed API: no kernel names mapped */
#undef rcu_head
#include <stdlib.h>
#include <string.h>
#include "slab.h"

_Static_assert(sizeof(struct rcu_head) == sizeof(struct urcu_rcu_head),
	       "struct rcu_head must have liburcu's size");
_Static_assert(offsetof(struct rcu_head, next) == offsetof(struct urcu_rcu_head, next),
	       "the queue link must be where liburcu puts it");
_Static_assert(offsetof(struct rcu_head, func) == offsetof(struct urcu_rcu_head, func),
	       "func must be where liburcu calls it from");

#if defined(__SANITIZE_THREAD__)
#define RCU_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RCU_TSAN 1
#endif
#endif
#ifndef RCU_TSAN
#define RCU_TSAN 0
#endif

#if RCU_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define tsan_acquire(addr)	__tsan_acquire(addr)
#define tsan_release(addr)	__tsan_release(addr)
#else
#define tsan_acquire(addr)	((void)(addr))
#define tsan_release(addr)	((void)(addr))
#endif

static char rcu_tsan_gp;	/* TSan: readers' unlocks -> callbacks, synchronize_rcu */
static char rcu_tsan_cb;	/* TSan: callbacks' ends -> rcu_barrier */
static bool rcu_ready;		/* rcu_prepare_once() has run (release/acquire) */
static pthread_once_t rcu_ready_once = PTHREAD_ONCE_INIT;

/* ======================= fork ======================= */

static void rcu_fork_child(void)
{
	urcu_bp_call_rcu_after_fork_child();
	kvfree_rcu_fork_child();
}

/* The call_rcu threads: paused before any uslab lock is taken (§4). */
static const struct fork_hooks rcu_call_fork_hooks = {
	.prepare = urcu_bp_call_rcu_before_fork,
	.parent = urcu_bp_call_rcu_after_fork_parent,
	.child = rcu_fork_child,
};

/* urcu-bp's grace-period and registry locks: taken after every uslab lock. */
static const struct fork_hooks rcu_gp_fork_hooks = {
	.prepare = urcu_bp_before_fork,
	.parent = urcu_bp_after_fork_parent,
	.child = urcu_bp_after_fork_child,
};

static void rcu_prepare_once(void)
{
	fork_hooks_register(&rcu_call_fork_hooks, FORK_RANK_MALLOC_INIT);
	fork_hooks_register(&rcu_gp_fork_hooks, FORK_RANK_LEAF);
	/* why now: creating it takes call_rcu_mutex, never wanted under a uslab lock */
	(void)urcu_bp_get_default_call_rcu_data();
	smp_store_release(&rcu_ready, true);
}

void rcu_prepare(void)
{
	if (unlikely(!smp_load_acquire(&rcu_ready)))
		pthread_once(&rcu_ready_once, rcu_prepare_once);
}

/* ======================= reports ======================= */

/* The kernel's lockdep splat for a call that can only deadlock here. */
static __cold __noreturn void rcu_usage_bug(const char *what)
{
	slab_printk("\n=============================\n");
	slab_printk("WARNING: suspicious RCU usage\n");
	slab_printk("-----------------------------\n");
	slab_printk("mm/rcu.c: Illegal %s!\n", what);
	slab_printk("It would wait for itself for ever: aborting.\n");
	abort();
}

/* ======================= readers ======================= */

void rcu_read_lock(void)
{
	rcu_prepare();
	urcu_bp_read_lock();
}
EXPORT_SYMBOL(rcu_read_lock);

void rcu_read_unlock(void)
{
	tsan_release(&rcu_tsan_gp);
	urcu_bp_read_unlock();
}
EXPORT_SYMBOL(rcu_read_unlock);

int rcu_read_lock_held(void)
{
	return urcu_bp_read_ongoing() != 0;
}
EXPORT_SYMBOL(rcu_read_lock_held);

void rcu_register_thread(void)
{
	rcu_prepare();
	urcu_bp_register_thread();
}
EXPORT_SYMBOL(rcu_register_thread);

/* urcu-bp forgets a reader when its thread exits: nothing to do. */
void rcu_unregister_thread(void)
{
}
EXPORT_SYMBOL(rcu_unregister_thread);

/* ======================= grace periods and callbacks ======================= */

void synchronize_rcu(void)
{
	rcu_prepare();
	if (unlikely(urcu_bp_read_ongoing()))
		rcu_usage_bug("synchronize_rcu() in RCU read-side critical section");
	urcu_bp_synchronize_rcu();
	tsan_acquire(&rcu_tsan_gp);
}
EXPORT_SYMBOL(synchronize_rcu);

void call_rcu(struct rcu_head *head, rcu_callback_t func)
{
	rcu_prepare();
	tsan_release(head);
	/* why the casts: one layout (asserted above), and liburcu calls func
	 * with the very pointer passed here; the detour through void (*)(void)
	 * tells the compiler the function type change is meant */
	urcu_bp_call_rcu((struct urcu_rcu_head *)head,
			 (void (*)(struct urcu_rcu_head *))(void (*)(void))func);
}
EXPORT_SYMBOL(call_rcu);

void rcu_barrier(void)
{
	rcu_prepare();
	if (unlikely(urcu_bp_read_ongoing()))
		rcu_usage_bug("rcu_barrier() in RCU read-side critical section");
	/* why: liburcu's call_rcu threads, and only they, have one of their own */
	if (unlikely(urcu_bp_get_thread_call_rcu_data() != NULL))
		rcu_usage_bug("rcu_barrier() from an RCU callback");
	kvfree_rcu_barrier();
	urcu_bp_barrier();
	tsan_acquire(&rcu_tsan_cb);
}
EXPORT_SYMBOL(rcu_barrier);

void rcu_callback_enter(struct rcu_head *head)
{
	tsan_acquire(head);
	tsan_acquire(&rcu_tsan_gp);
}

void rcu_callback_exit(void)
{
	tsan_release(&rcu_tsan_cb);
}

/* ======================= statistics ======================= */

void rcu_stats(struct uslab_rcu_stats *st)
{
	memset(st, 0, sizeof(*st));
	kvfree_rcu_get_stats(st);
}
EXPORT_SYMBOL(rcu_stats);
