// SPDX-License-Identifier: MIT
/*
 * fork.c - keep every lock of the library usable across fork().
 *
 * 1. Overview.  fork() copies one thread.  A lock another thread held at
 *    that moment stays held in the child for ever, and the data it guards
 *    may be half updated.  So the pthread_atfork prepare handler takes every
 *    lock the library owns before the fork (waiting for other threads to
 *    leave their critical sections), the parent handler releases them, and
 *    the child handler re-initialises them: in the child the data is
 *    consistent and every lock is free, so the child can allocate.
 *
 *    Code that owns a lock registers it once (fork_lock_register), with its
 *    rank in the library's lock order.  Code that owns a varying set of locks
 *    (one per cache and node, say) registers hooks instead
 *    (fork_hooks_register): its prepare hook takes them all, its parent hook
 *    releases them, its child hook re-initialises them.
 *
 * 2. Data structures.  Two fixed tables (this file sits below malloc, so
 *    it never allocates): fork_locks[] and fork_hooks[], appended to under
 *    fork_registry_lock.  Entries are never moved; an unregistered lock
 *    leaves a hole (lock == NULL) that the next registration may reuse.
 *
 * 3. Order.  prepare walks the ranks upwards; within a rank it runs the
 *    hooks, then takes the locks, each in registration order.  parent walks
 *    everything in exactly the reverse order.  child walks in the prepare
 *    order.  fork_registry_lock is taken first and released last, so the
 *    tables cannot change while a fork is in progress.
 *
 * 4. Lock order (the contract for registrants).  A thread holding a lock of
 *    rank r may only take locks of rank > r.  Locks of one rank are never
 *    held together, so their relative order does not matter.  The ranks are
 *    enum fork_rank in internal.h; a leaf lock (one under which nothing else
 *    is taken) uses FORK_RANK_LEAF.
 *
 * 5. Invariants.  Between prepare and parent/child, the forking thread
 *    holds fork_registry_lock and every registered lock.  Registration
 *    never allocates and never calls back into the library.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "os/os.h"

#define FORK_MAX_LOCKS	64	/* single, long-lived locks (zone, slab_mutex, ...) */
#define FORK_MAX_HOOKS	32	/* owners of varying sets of locks */

struct fork_lock {
	pthread_mutex_t *lock;		/* registered lock; NULL = free slot (fork_registry_lock) */
	enum fork_rank rank;		/* place in the lock order (fork_registry_lock) */
};

struct fork_hook {
	const struct fork_hooks *hooks;	/* owner's callbacks (fork_registry_lock) */
	enum fork_rank rank;		/* place in the lock order (fork_registry_lock) */
};

static pthread_mutex_t fork_registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fork_lock fork_locks[FORK_MAX_LOCKS];	/* fork_registry_lock */
static unsigned int nr_fork_locks;			/* slots used so far */
static struct fork_hook fork_hooks[FORK_MAX_HOOKS];	/* fork_registry_lock */
static unsigned int nr_fork_hooks;			/* entries so far */
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static __noreturn void fork_registry_full(const char *what)
{
	static const char head[] = "uslab: fork registry full: too many ";

	os_write_all(2, head, sizeof(head) - 1);
	os_write_all(2, what, strlen(what));
	os_write_all(2, "\n", 1);
	abort();
}

/* ---- the pthread_atfork handlers ---- */

static void fork_prepare_rank(enum fork_rank rank)
{
	unsigned int i;

	for (i = 0; i < nr_fork_hooks; i++)
		if (fork_hooks[i].rank == rank && fork_hooks[i].hooks->prepare)
			fork_hooks[i].hooks->prepare();
	for (i = 0; i < nr_fork_locks; i++)
		if (fork_locks[i].lock && fork_locks[i].rank == rank)
			pthread_mutex_lock(fork_locks[i].lock);
}

static void fork_parent_rank(enum fork_rank rank)
{
	unsigned int i;

	for (i = nr_fork_locks; i-- > 0;)
		if (fork_locks[i].lock && fork_locks[i].rank == rank)
			pthread_mutex_unlock(fork_locks[i].lock);
	for (i = nr_fork_hooks; i-- > 0;)
		if (fork_hooks[i].rank == rank && fork_hooks[i].hooks->parent)
			fork_hooks[i].hooks->parent();
}

static void fork_child_rank(enum fork_rank rank)
{
	unsigned int i;

	/* why unlock, not re-init: the child's only thread is the one that took
	 * every lock in prepare, so it owns them and may release them; a re-init
	 * of a held mutex is undefined (and ThreadSanitizer reports it). */
	for (i = nr_fork_locks; i-- > 0;)
		if (fork_locks[i].lock && fork_locks[i].rank == rank)
			pthread_mutex_unlock(fork_locks[i].lock);
	for (i = nr_fork_hooks; i-- > 0;)
		if (fork_hooks[i].rank == rank && fork_hooks[i].hooks->child)
			fork_hooks[i].hooks->child();
}

static void fork_prepare(void)
{
	int rank;

	pthread_mutex_lock(&fork_registry_lock);
	for (rank = 0; rank < NR_FORK_RANKS; rank++)
		fork_prepare_rank((enum fork_rank)rank);
}

static void fork_parent(void)
{
	int rank;

	for (rank = NR_FORK_RANKS; rank-- > 0;)
		fork_parent_rank((enum fork_rank)rank);
	pthread_mutex_unlock(&fork_registry_lock);
}

static void fork_child(void)
{
	int rank;

	for (rank = NR_FORK_RANKS; rank-- > 0;)
		fork_child_rank((enum fork_rank)rank);
	pthread_mutex_unlock(&fork_registry_lock);
}

/*
 * Installed on the first registration.  glibc runs prepare handlers newest
 * first, so a program's own handler (registered later, and free to call
 * malloc) runs while our locks are still free; ours runs after it.
 */
static void fork_install(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* ---- registration ---- */

void fork_lock_register(pthread_mutex_t *lock, enum fork_rank rank)
{
	unsigned int i;

	pthread_once(&fork_once, fork_install);
	pthread_mutex_lock(&fork_registry_lock);
	for (i = 0; i < nr_fork_locks && fork_locks[i].lock; i++)
		;
	if (i == FORK_MAX_LOCKS)
		fork_registry_full("locks");
	fork_locks[i].lock = lock;
	fork_locks[i].rank = rank;
	if (i == nr_fork_locks)
		nr_fork_locks++;
	pthread_mutex_unlock(&fork_registry_lock);
}

void fork_lock_unregister(pthread_mutex_t *lock)
{
	unsigned int i;

	pthread_mutex_lock(&fork_registry_lock);
	for (i = 0; i < nr_fork_locks; i++)
		if (fork_locks[i].lock == lock)
			fork_locks[i].lock = NULL;
	pthread_mutex_unlock(&fork_registry_lock);
}

void fork_hooks_register(const struct fork_hooks *hooks, enum fork_rank rank)
{
	pthread_once(&fork_once, fork_install);
	pthread_mutex_lock(&fork_registry_lock);
	if (nr_fork_hooks == FORK_MAX_HOOKS)
		fork_registry_full("hooks");
	fork_hooks[nr_fork_hooks].hooks = hooks;
	fork_hooks[nr_fork_hooks].rank = rank;
	nr_fork_hooks++;
	pthread_mutex_unlock(&fork_registry_lock);
}
