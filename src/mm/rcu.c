// SPDX-License-Identifier: MIT
/*
 * rcu.c - read-copy update for uslab and its users: liburcu's grace
 * periods (the "bulletproof" flavour, urcu-bp) and a callback thread.
 *
 * 1. Overview.  The slab layer needs RCU twice: a slab of a
 *    SLAB_TYPESAFE_BY_RCU cache goes back to the page allocator only after a
 *    grace period (a reader inside rcu_read_lock() that still holds a
 *    pointer to a freed object finds memory of the same type), and
 *    kfree_rcu()/kvfree_rcu() (kvfree_rcu.c) free after a grace period.
 *    Users get the kernel's API from <uslab/rcupdate.h>.  Readers and grace
 *    periods are liburcu's: rcu_read_lock/unlock and synchronize_rcu call
 *    urcu-bp.  call_rcu() is this file's: a lock-free push onto
 *    rcu_cb_list, and one thread, "uslab-rcu", that takes the whole list,
 *    waits for one grace period with urcu_bp_synchronize_rcu() and runs the
 *    callbacks in the order they were queued.  rcu_barrier() queues a
 *    callback of its own behind everything queued so far and waits for it.
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
 *    Why not liburcu's call_rcu(): it enters a read-side critical section
 *    inside, and a thread's first one registers the thread under liburcu's
 *    registry lock.  The allocators free slabs with call_rcu() while holding
 *    their locks (SLUB, for an exiting thread, under slab_mutex), and
 *    fork() must take liburcu's locks before uslab's (a reader may wait for
 *    a uslab lock while a synchronize_rcu() holding rcu_gp_lock waits for
 *    that reader), so no code may want a liburcu lock under a uslab lock.
 *    Pushing onto a list needs none.
 *
 * 3. Data structures.  struct rcu_head (mm_types.h): next (the list link)
 *    and func, the size and layout of liburcu's and the kernel's; struct
 *    slab's rcu_head overlays page->rcu_head, where the link is an aligned
 *    pointer, so the "tail page" bit stays clear while a slab waits.
 *    rcu_cb_list: callbacks queued and not yet taken, newest first.  The
 *    worker's flags (sleeping, pause, paused) and rcu_wake_seq, the futex
 *    words it sleeps on; rcu_barrier_seq, the one barrier waiters sleep on.
 *
 * 4. States of a callback: queued (on rcu_cb_list) -> taken (in the
 *    worker's batch, whose grace period has not ended) -> run.  Of the
 *    worker: waiting (sleeping = 1, rcu_cb_list was empty), in a grace
 *    period, running a batch, paused (for fork).
 *
 * 5. Lock order and fork().  call_rcu() takes no lock, so it may be called
 *    under any uslab lock.  No liburcu function is called under a uslab
 *    lock.  fork(): at FORK_RANK_MALLOC_INIT, before any uslab lock, the
 *    worker is paused between batches (it then holds nothing and waits for
 *    nothing), then liburcu's rcu_gp_lock and registry lock are taken
 *    (urcu_bp_before_fork); whoever held them waited only for readers,
 *    which need no uslab lock the forking thread holds yet.  The child gets
 *    a new worker; queued callbacks stay queued in both processes.
 *
 * 6. Invariants.
 *    - Once rcu_ready: the fork hooks are registered and the worker exists
 *      (or, for a moment in a fork child, is being made).
 *    - A callback runs after a grace period that began after it was queued
 *      (the batch is taken before synchronize_rcu starts), and after every
 *      callback queued before it (one worker, batches in order, FIFO
 *      within a batch).
 *    - synchronize_rcu() and rcu_barrier() inside a reader would wait for
 *      themselves, and rcu_barrier() in a callback for its own thread: both
 *      are reported and abort.
 *
 * 7. ThreadSanitizer.  liburcu is not instrumented, so TSan cannot see that
 *    a grace period orders a reader's accesses before what follows it.  In
 *    a TSan build rcu_read_unlock() releases rcu_tsan_gp and the end of
 *    every synchronize_rcu() (the worker's included) acquires it; the rest
 *    (queue, barrier) is plain atomics TSan sees.  Other builds compile the
 *    two to nothing.
 */
#define _GNU_SOURCE	/* pthread_setname_np */
#define rcu_head urcu_rcu_head	/* why: liburcu's call_rcu head (unused) has the kernel's name */
#include <urcu/urcu-bp.h>	/* the flavour-prefixed API, no kernel names mapped */
#undef rcu_head
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "slab.h"

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

static struct rcu_head *rcu_cb_list;	/* queued callbacks, newest first (atomic) */
static int rcu_worker_sleeping;		/* the worker may be in futex_wait (seq_cst) */
static int rcu_wake_seq;		/* futex word the worker sleeps on (atomic) */
static int rcu_worker_pause;		/* fork wants the worker still (atomic) */
static int rcu_worker_paused;		/* the worker is still, between batches (atomic) */
static int rcu_barrier_seq;		/* futex word of rcu_barrier() waiters (atomic) */
static bool rcu_ready;			/* rcu_prepare_once() has run (release/acquire) */
static bool rcu_worker_up;		/* a worker thread exists (atomic) */
static pthread_once_t rcu_ready_once = PTHREAD_ONCE_INIT;
static __thread bool in_rcu_worker __attribute__((tls_model("initial-exec")));
static char rcu_tsan_gp;		/* TSan: readers' unlocks -> grace period ends */

static long rcu_futex(int *word, int op, int val)
{
	return syscall(SYS_futex, word, op | FUTEX_PRIVATE_FLAG, val, NULL, NULL, 0);
}

/* Wake every waiter of a sequence word (which moves on, so none misses it). */
static void rcu_futex_wake_all(int *word)
{
	__atomic_add_fetch(word, 1, __ATOMIC_SEQ_CST);
	rcu_futex(word, FUTEX_WAKE, INT_MAX);
}

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

/* ======================= the callback thread ======================= */

/* The whole list, oldest first. */
static struct rcu_head *rcu_cb_take(void)
{
	struct rcu_head *list = __atomic_exchange_n(&rcu_cb_list, NULL, __ATOMIC_ACQUIRE);
	struct rcu_head *fifo = NULL, *next;

	for (; list; list = next) {
		next = list->next;
		list->next = fifo;
		fifo = list;
	}
	return fifo;
}

static void rcu_cb_run(struct rcu_head *list)
{
	struct rcu_head *next;

	for (; list; list = next) {
		next = list->next;	/* why first: func may free or requeue list */
		list->func(list);
	}
}

/* Between batches: stay still while a fork() is being prepared. */
static void rcu_worker_pause_point(void)
{
	if (!__atomic_load_n(&rcu_worker_pause, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&rcu_worker_paused, 1, __ATOMIC_RELEASE);
	rcu_futex(&rcu_worker_paused, FUTEX_WAKE, INT_MAX);
	while (__atomic_load_n(&rcu_worker_pause, __ATOMIC_ACQUIRE))
		rcu_futex(&rcu_worker_pause, FUTEX_WAIT, 1);
	__atomic_store_n(&rcu_worker_paused, 0, __ATOMIC_RELEASE);
}

/* Nothing queued: sleep until call_rcu() or fork wakes us. */
static void rcu_worker_wait(void)
{
	int seq;

	/* why seq_cst: with call_rcu()'s push and load of the flag, one of the
	 * two sees the other (the worker the callback, or call_rcu the sleeper) */
	__atomic_store_n(&rcu_worker_sleeping, 1, __ATOMIC_SEQ_CST);
	seq = __atomic_load_n(&rcu_wake_seq, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&rcu_cb_list, __ATOMIC_SEQ_CST) &&
	    !__atomic_load_n(&rcu_worker_pause, __ATOMIC_SEQ_CST))
		rcu_futex(&rcu_wake_seq, FUTEX_WAIT, seq);
	__atomic_store_n(&rcu_worker_sleeping, 0, __ATOMIC_SEQ_CST);
}

static void rcu_worker_wake(void)
{
	if (__atomic_load_n(&rcu_worker_sleeping, __ATOMIC_SEQ_CST))
		rcu_futex_wake_all(&rcu_wake_seq);
}

static void *rcu_worker(void *arg)
{
	struct rcu_head *batch;

	(void)arg;
	in_rcu_worker = true;
	for (;;) {
		rcu_worker_pause_point();
		batch = rcu_cb_take();
		if (!batch) {
			rcu_worker_wait();
			continue;
		}
		urcu_bp_synchronize_rcu();
		tsan_acquire(&rcu_tsan_gp);
		rcu_cb_run(batch);
	}
	return NULL;
}

/* With no lock held (a new thread allocates); signals stay with the program. */
static void rcu_worker_start(void)
{
	sigset_t all, old;
	pthread_t tid;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&tid, NULL, rcu_worker, NULL))
		slab_panic("uslab: cannot start the RCU callback thread\n");
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	__atomic_store_n(&rcu_worker_up, true, __ATOMIC_RELEASE);
	pthread_setname_np(tid, "uslab-rcu");
	pthread_detach(tid);
}

/* ======================= fork ======================= */

static void rcu_fork_prepare(void)
{
	if (__atomic_load_n(&rcu_worker_up, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&rcu_worker_pause, 1, __ATOMIC_SEQ_CST);
		rcu_futex_wake_all(&rcu_wake_seq);
		while (!__atomic_load_n(&rcu_worker_paused, __ATOMIC_ACQUIRE))
			rcu_futex(&rcu_worker_paused, FUTEX_WAIT, 0);
	}
	urcu_bp_before_fork();
}

static void rcu_fork_parent(void)
{
	urcu_bp_after_fork_parent();
	__atomic_store_n(&rcu_worker_pause, 0, __ATOMIC_SEQ_CST);
	rcu_futex(&rcu_worker_pause, FUTEX_WAKE, INT_MAX);
}

/* The worker did not survive the fork: a new one takes what is queued. */
static void rcu_fork_child(void)
{
	urcu_bp_after_fork_child();
	rcu_worker_pause = 0;
	rcu_worker_paused = 0;
	rcu_worker_sleeping = 0;
	if (__atomic_load_n(&rcu_worker_up, __ATOMIC_ACQUIRE))
		rcu_worker_start();
	kvfree_rcu_fork_child();
}

static const struct fork_hooks rcu_fork_hooks = {
	.prepare = rcu_fork_prepare,
	.parent = rcu_fork_parent,
	.child = rcu_fork_child,
};

/* ======================= first use ======================= */

static void rcu_prepare_once(void)
{
	/* at FORK_RANK_MALLOC_INIT: before every uslab lock (§5) */
	fork_hooks_register(&rcu_fork_hooks, FORK_RANK_MALLOC_INIT);
	rcu_worker_start();
	smp_store_release(&rcu_ready, true);
}

void rcu_prepare(void)
{
	if (unlikely(!smp_load_acquire(&rcu_ready)))
		pthread_once(&rcu_ready_once, rcu_prepare_once);
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

/* Lock-free: callable under any uslab lock once rcu_prepare() has run. */
void call_rcu(struct rcu_head *head, rcu_callback_t func)
{
	struct rcu_head *first = __atomic_load_n(&rcu_cb_list, __ATOMIC_RELAXED);

	rcu_prepare();
	head->func = func;
	do {
		head->next = first;
	} while (!__atomic_compare_exchange_n(&rcu_cb_list, &first, head, true,
					      __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
	rcu_worker_wake();
}
EXPORT_SYMBOL(call_rcu);

struct rcu_barrier_head {
	struct rcu_head head;	/* queued behind everything before it */
	int done;		/* set by the callback (release) */
};

static void rcu_barrier_callback(struct rcu_head *head)
{
	struct rcu_barrier_head *b = container_of(head, struct rcu_barrier_head, head);

	__atomic_store_n(&b->done, 1, __ATOMIC_RELEASE);
	/* why a global word: the waiter's frame may be gone once done is seen */
	rcu_futex_wake_all(&rcu_barrier_seq);
}

void rcu_barrier(void)
{
	struct rcu_barrier_head b = { .done = 0 };
	int seq;

	rcu_prepare();
	if (unlikely(urcu_bp_read_ongoing()))
		rcu_usage_bug("rcu_barrier() in RCU read-side critical section");
	if (unlikely(in_rcu_worker))
		rcu_usage_bug("rcu_barrier() from an RCU callback");
	kvfree_rcu_barrier();
	call_rcu(&b.head, rcu_barrier_callback);
	for (;;) {
		seq = __atomic_load_n(&rcu_barrier_seq, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&b.done, __ATOMIC_ACQUIRE))
			break;
		rcu_futex(&rcu_barrier_seq, FUTEX_WAIT, seq);
	}
}
EXPORT_SYMBOL(rcu_barrier);

/* ======================= statistics ======================= */

void rcu_stats(struct uslab_rcu_stats *st)
{
	memset(st, 0, sizeof(*st));
	kvfree_rcu_get_stats(st);
}
EXPORT_SYMBOL(rcu_stats);
