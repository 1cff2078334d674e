// SPDX-License-Identifier: MIT
/*
 * memcontrol.c - memory cgroup accounting of slab objects, the per-object
 * ("objcg") scheme of Linux 5.9+ as 5.17 has it, for user space.
 *
 * 1. Overview
 *    A group (struct mem_cgroup) has a name, a limit and a page counter.
 *    A thread picks the group its allocations are charged to with
 *    set_active_memcg().  An allocation with __GFP_ACCOUNT, or from a cache
 *    created with SLAB_ACCOUNT (the kmalloc-cg-<n> caches among them), is
 *    charged before it is made: obj_full_size(s) bytes (the object's slot
 *    plus its slot in the vector) go to the active group.  The slab records
 *    the handle charged, an obj_cgroup, per object, in a vector hung from
 *    slab->memcg_data; a free, by whatever thread, gives the bytes back to
 *    that objcg.  Threads without an active group charge nothing (like the
 *    kernel's root cgroup, which has no objcg).
 *
 *    Bytes, not pages, are charged per object; the page counter counts
 *    pages.  Between them sits a per-CPU stock (struct obj_stock, one per
 *    thread, see cpu.h): bytes already charged to one objcg that no object
 *    holds.  A charge takes bytes from the stock, an uncharge puts them
 *    back, both with a plain load and store.  Only when the stock lacks
 *    bytes are whole pages charged to the counter (atomics, once per page);
 *    a stock that would hold more than MEMCG_STOCK_MAX (16 pages) gives
 *    whole pages back, down to eight (memcontrol.h says why).  When a
 *    stock changes objcg, or its thread exits, its bytes are drained: whole
 *    pages uncharged, the rest parked in objcg->nr_charged_bytes, where the
 *    next stock to cache that objcg picks them up.
 *
 *    A charge the limit refuses runs the group's shrink callbacks (only for
 *    allocations that may block: __GFP_DIRECT_RECLAIM), which free what
 *    they can, and retries, MEMCG_RECLAIM_RETRIES times; then the
 *    allocation fails with NULL.  __GFP_NOFAIL charges past the limit.
 *
 *    Destroying a group reparents its objcgs to the root group, as the
 *    kernel does: objects still charged to it stay valid, and their frees
 *    uncharge the root.  The root's counter holds every charge (it is the
 *    parent of every group) and has no limit.
 *
 *    Large kmalloc (a folio from the page allocator) with __GFP_ACCOUNT is
 *    charged by pages to the objcg stored in folio->memcg_data with
 *    MEMCG_DATA_KMEM, without a stock.  SLOB never charges (neither does
 *    the kernel's: SLAB_ACCOUNT is not in its CACHE_CREATE_MASK); groups
 *    still exist there, with usage 0.
 *
 * 2. Data structures
 *    struct mem_cgroup   (below) name, page counter, its objcg, the
 *                        objcgs pointing at it, shrink callbacks, refcount,
 *                        count of threads that have it active.  Never
 *                        freed: a destroyed group whose last reference
 *                        goes returns to memcg_pool and may be handed out
 *                        again (type-stable memory, so a racing charge may
 *                        always try to take a reference, see
 *                        get_mem_cgroup_from_objcg()).
 *    struct obj_cgroup   (below) refcount, group, parked bytes, large
 *                        kmalloc counts.
 *    struct obj_stock    (memcontrol.h) per CPU: cached objcg + bytes.
 *    struct slab_objcgs  (memcontrol.h) the vector of a slab; every vector
 *                        is on memcg_vectors, for the reports.
 *    memcg_list          online groups in creation order; the root group
 *                        is static and on no list.
 *
 * 3. States
 *    group    ONLINE (on memcg_list, may be made active, objcg set) ->
 *             mem_cgroup_destroy -> OFFLINE (its objcgs now point at the
 *             root; referenced only by charges still in progress) -> last
 *             reference -> FREE (on memcg_pool) -> mem_cgroup_create ->
 *             ONLINE.
 *    objcg    live (its group online) -> reparented (group destroyed) ->
 *             released when its last reference goes (freed).
 *    slot     NULL (object free, or allocated uncharged) <-> objcg.
 *    slab     memcg_data 0 -> vector attached (cmpxchg, on the first
 *             charged object) -> freed with the slab.
 *
 * 4. Lock order
 *      slab_mutex -> memcg_mutex -> memcg_vectors_lock
 *    memcg_mutex guards the group lists, each group's objcg list and
 *    shrinker list, and group creation and destruction.  No shrink
 *    callback runs, and nothing is allocated or freed, while it is held
 *    (objcg release unlinks under it, frees after).  memcg_vectors_lock is
 *    a leaf.  The charge and uncharge paths take no lock: atomics on the
 *    counters and refcounts only.
 *
 * 5. Invariants
 *    - For every objcg: P * PAGE_SIZE = (full sizes of the live objects
 *      whose slot holds it) + (bytes of the stocks caching it) +
 *      nr_charged_bytes + (pages of its large kmallocs) * PAGE_SIZE, where
 *      P is the number of pages charged through it and not uncharged.
 *    - objcg->refcnt = (1 while its group is online) + (stocks caching it)
 *      + P.  So an objcg outlives every object charged to it, without a
 *      reference per object.
 *    - memcg->refcnt = (1 until destroyed) + (objcgs whose memcg it is) +
 *      (charges in progress holding it).
 *    - A slot is non-NULL iff its object is allocated and charged.
 *    - Each group's counter holds the pages charged through its objcgs
 *      while they pointed at it; the root counter holds all pages charged.
 *
 * 6. Exactness.  mem_cgroup_usage() is bytes, exact: the counter's pages
 *    minus the bytes charged ahead and not used (parked in the group's
 *    objcgs and in every CPU's stock caching one of them).  Stocks are
 *    read without stopping their owners, so the value is exact whenever no
 *    charge or uncharge of that group is in progress, and otherwise a
 *    value the usage passed through give or take those in flight.
 *    mem_cgroup_drain_stocks() gives back what this thread's stock holds,
 *    so that the page counter ("charged", the kernel's memory.current)
 *    comes down to usage rounded up to pages once every thread has drained
 *    or exited.
 *
 * 7. Differences from the kernel.  One level of hierarchy (groups under
 *    the root); no cgroup file system: groups are made with
 *    mem_cgroup_create and their numbers read with mem_cgroup_usage,
 *    mem_cgroup_stats and mem_cgroup_print_stats.  A stock charges pages to
 *    the counter directly (no second, page-level stock).  No OOM killer:
 *    a refused charge fails the allocation.  set_active_memcg counts the
 *    threads that have a group active, so that destroying a group in use
 *    fails with -EBUSY instead of leaving a dangling pointer; a thread's
 *    active group is dropped when it exits.  Shrink callbacks are
 *    registered per group (the kernel's memcg-aware shrinkers).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "memcontrol.h"

#define MEMCG_MAGIC		0x6d656d6367726f75UL	/* "memcgrou": a pool struct */
#define MEMCG_NAME_MAX		64	/* bytes of a group name, NUL included */
#define MEMCG_RECLAIM_RETRIES	5	/* rounds of shrink callbacks before a charge fails */
#define MEMCG_DYING		(1L << 40)	/* memcg->active: destroy in progress */
#define PAGE_COUNTER_MAX	(LONG_MAX / (long)PAGE_SIZE)	/* "no limit", in pages */

struct page_counter {
	atomic_long_t usage;		/* pages charged (atomic) */
	unsigned long max;		/* limit in pages (memcg_mutex writes; READ_ONCE) */
	atomic_long_t watermark;	/* highest usage seen (atomic) */
	atomic_long_t failcnt;		/* charges refused at max (atomic) */
	struct page_counter *parent;	/* the root's counter; NULL for the root (constant) */
};

enum memcg_state { MEMCG_FREE, MEMCG_ONLINE, MEMCG_OFFLINE };

struct mem_cgroup {
	unsigned long magic;		/* MEMCG_MAGIC (constant) */
	char name[MEMCG_NAME_MAX];	/* the group's name (memcg_mutex; constant while online) */
	struct page_counter memory;	/* pages charged to the group (atomic) */
	struct obj_cgroup *objcg;	/* what new charges use; NULL for the root and
					 * once offline (memcg_mutex; READ_ONCE) */
	struct list_head objcg_list;	/* objcgs whose memcg this is (memcg_mutex) */
	struct list_head shrinkers;	/* struct memcg_shrinker (memcg_mutex) */
	struct list_head list;		/* on memcg_list, or memcg_pool when FREE (memcg_mutex) */
	atomic_long_t refcnt;		/* references, see §5 (atomic) */
	atomic_long_t active;		/* threads that have it active, | MEMCG_DYING (atomic) */
	int state;			/* enum memcg_state (memcg_mutex; READ_ONCE) */
};

struct obj_cgroup {
	atomic_long_t refcnt;		/* references, see §5 (atomic) */
	struct mem_cgroup *memcg;	/* the group charged; the root once reparented
					 * (memcg_mutex, store-release; load-acquire) */
	atomic_long_t nr_charged_bytes;	/* charged bytes held by no object or stock (atomic) */
	atomic_long_t nr_kmem_folios;	/* large kmallocs charged through it (atomic) */
	atomic_long_t nr_kmem_pages;	/* their pages (atomic) */
	struct list_head list;		/* on memcg->objcg_list (memcg_mutex) */
};

struct memcg_shrinker {
	uslab_memcg_shrink_fn shrink;		/* the callback (constant) */
	void *arg;			/* its argument (constant) */
	unsigned int running;		/* calls in progress (memcg_mutex) */
	bool dead;			/* being unregistered: not called again (memcg_mutex) */
	struct list_head list;		/* on memcg->shrinkers (memcg_mutex) */
};

static DEFINE_MUTEX(memcg_mutex);		/* see §4 */
static DEFINE_SPINLOCK(memcg_vectors_lock);	/* memcg_vectors */
static LIST_HEAD(memcg_list);			/* online groups, oldest first (memcg_mutex) */
static LIST_HEAD(memcg_pool);			/* FREE groups (memcg_mutex) */
static LIST_HEAD(memcg_vectors);		/* every slab_objcgs (memcg_vectors_lock) */
static bool memcg_initialized;			/* stocks, teardown and thread key set up */
static pthread_key_t memcg_thread_key;		/* drops a thread's active group at its exit */

static struct mem_cgroup root_memcg = {
	.magic = MEMCG_MAGIC,
	.name = "root",
	.memory = { .max = PAGE_COUNTER_MAX },
	.objcg_list = LIST_HEAD_INIT(root_memcg.objcg_list),
	.shrinkers = LIST_HEAD_INIT(root_memcg.shrinkers),
	.list = LIST_HEAD_INIT(root_memcg.list),
	.refcnt = ATOMIC_INIT(1),
	.state = MEMCG_ONLINE,
};

struct obj_stock __percpu *memcg_stock;
struct obj_stock memcg_no_stock;
__thread struct obj_stock *this_obj_stock __attribute__((tls_model("initial-exec"))) =
	&memcg_no_stock;
__thread struct obj_cgroup *active_objcg __attribute__((tls_model("initial-exec")));
static __thread struct mem_cgroup *active_memcg __attribute__((tls_model("initial-exec")));
/* Set while this thread runs shrink callbacks: a charge they make does not
 * reclaim again; and the shrinker running, which may not unregister itself. */
static __thread struct memcg_shrinker *current_shrinker __attribute__((tls_model("initial-exec")));
bool cgroup_memory_nokmem;	/* option cgroup.memory=nokmem (set before slab init) */

/* ======================= options ======================= */

/* cgroup.memory=nokmem[,nosocket]: the kernel's switch for kmem accounting. */
static int setup_cgroup_memory(const char *val)
{
	const char *p = val;
	size_t n;

	while (*p) {
		n = strcspn(p, ",");
		if (n == 6 && !strncmp(p, "nokmem", n))
			cgroup_memory_nokmem = true;
		else if (!(n == 8 && !strncmp(p, "nosocket", n)))	/* no sockets: a no-op */
			return -1;
		p += n + (p[n] == ',');
	}
	return 0;
}
__setup("cgroup.memory=", setup_cgroup_memory);

/* ======================= small helpers ======================= */

static bool atomic_long_try_cmpxchg(atomic_long_t *v, long *old, long new)
{
	return __atomic_compare_exchange_n(&v->counter, old, new, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

static long atomic_long_xchg(atomic_long_t *v, long new)
{
	return __atomic_exchange_n(&v->counter, new, __ATOMIC_SEQ_CST);
}

static __printf(1, 2) void memcg_report(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	slab_printk("uslab: %s\n", msg);
}

static unsigned long pages_to_bytes(long pages)
{
	return pages > 0 ? (unsigned long)pages * PAGE_SIZE : 0;
}

/* ======================= page counters ======================= */

static void page_counter_raise_watermark(struct page_counter *c, long usage)
{
	long old = atomic_long_read(&c->watermark);

	while (usage > old && !atomic_long_try_cmpxchg(&c->watermark, &old, usage))
		;
}

static void page_counter_uncharge(struct page_counter *counter, unsigned long nr_pages)
{
	struct page_counter *c;

	for (c = counter; c; c = c->parent)
		if (unlikely(atomic_long_add_return(-(long)nr_pages, &c->usage) < 0))
			memcg_report("page counter underflow (%lu pages): accounting bug", nr_pages);
}

/* Charge c and its parent, ignoring the limits (__GFP_NOFAIL). */
static void page_counter_charge(struct page_counter *counter, unsigned long nr_pages)
{
	struct page_counter *c;

	for (c = counter; c; c = c->parent)
		page_counter_raise_watermark(c, atomic_long_add_return((long)nr_pages, &c->usage));
}

/* Charge c and its parent within their limits; false (nothing charged) if
 * one refuses, counted in its failcnt. */
static bool page_counter_try_charge(struct page_counter *counter, unsigned long nr_pages)
{
	struct page_counter *c, *undo;
	long usage;

	for (c = counter; c; c = c->parent) {
		usage = atomic_long_add_return((long)nr_pages, &c->usage);
		if (unlikely((unsigned long)usage > READ_ONCE(c->max))) {
			atomic_long_sub((long)nr_pages, &c->usage);
			atomic_long_inc(&c->failcnt);
			for (undo = counter; undo != c; undo = undo->parent)
				atomic_long_sub((long)nr_pages, &undo->usage);
			return false;
		}
		page_counter_raise_watermark(c, usage);
	}
	return true;
}

/* ======================= references ======================= */

static void mem_cgroup_release(struct mem_cgroup *memcg)
{
	mutex_lock(&memcg_mutex);
	WRITE_ONCE(memcg->state, MEMCG_FREE);
	list_add(&memcg->list, &memcg_pool);
	mutex_unlock(&memcg_mutex);
}

static void css_put_many(struct mem_cgroup *memcg, long n)
{
	if (atomic_long_add_return(-n, &memcg->refcnt) == 0)
		mem_cgroup_release(memcg);
}

static void css_put(struct mem_cgroup *memcg)
{
	css_put_many(memcg, 1);
}

/* A reference unless the count already reached 0 (a FREE group). */
static bool css_tryget(struct mem_cgroup *memcg)
{
	long old = atomic_long_read(&memcg->refcnt);

	do {
		if (!old)
			return false;
	} while (!atomic_long_try_cmpxchg(&memcg->refcnt, &old, old + 1));
	return true;
}

/*
 * The group objcg charges now, with a reference.  Why the loop: a destroy
 * may reparent objcg and drop the group's last reference between the load
 * and the get; group memory is never freed (memcg_pool), so the get is
 * safe to try, and the second load proves the reference is to the group
 * objcg still points at.
 */
static struct mem_cgroup *get_mem_cgroup_from_objcg(struct obj_cgroup *objcg)
{
	struct mem_cgroup *memcg;

	for (;;) {
		memcg = smp_load_acquire(&objcg->memcg);
		if (css_tryget(memcg)) {
			if (smp_load_acquire(&objcg->memcg) == memcg)
				return memcg;
			css_put(memcg);
		}
		sched_yield();
	}
}

static void obj_cgroup_release(struct obj_cgroup *objcg)
{
	struct mem_cgroup *memcg;

	mutex_lock(&memcg_mutex);
	list_del(&objcg->list);
	memcg = objcg->memcg;
	mutex_unlock(&memcg_mutex);
	if (unlikely(atomic_long_read(&objcg->nr_charged_bytes)))
		memcg_report("obj_cgroup released with %ld bytes charged: accounting bug",
			     atomic_long_read(&objcg->nr_charged_bytes));
	css_put(memcg);
	kfree(objcg);
}

static void obj_cgroup_get_many(struct obj_cgroup *objcg, unsigned long n)
{
	atomic_long_add((long)n, &objcg->refcnt);
}

static void obj_cgroup_put_many(struct obj_cgroup *objcg, unsigned long n)
{
	if (atomic_long_add_return(-(long)n, &objcg->refcnt) == 0)
		obj_cgroup_release(objcg);
}

/* ======================= charging pages ======================= */

static bool obj_cgroup_try_charge_pages(struct obj_cgroup *objcg, gfp_t gfp,
					unsigned long nr_pages)
{
	struct mem_cgroup *memcg = get_mem_cgroup_from_objcg(objcg);
	bool ok = true;

	if (unlikely(gfp & __GFP_NOFAIL))
		page_counter_charge(&memcg->memory, nr_pages);
	else
		ok = page_counter_try_charge(&memcg->memory, nr_pages);
	css_put(memcg);
	if (ok)
		obj_cgroup_get_many(objcg, nr_pages);	/* why: §5, pages hold references */
	return ok;
}

static void obj_cgroup_uncharge_pages(struct obj_cgroup *objcg, unsigned long nr_pages)
{
	struct mem_cgroup *memcg = get_mem_cgroup_from_objcg(objcg);

	page_counter_uncharge(&memcg->memory, nr_pages);
	css_put(memcg);
	obj_cgroup_put_many(objcg, nr_pages);
}

/* Park bytes in objcg; whole pages that gather there go back at once. */
static void objcg_park_bytes(struct obj_cgroup *objcg, unsigned long nr_bytes)
{
	long old = atomic_long_add_return((long)nr_bytes, &objcg->nr_charged_bytes);

	while (old >= (long)PAGE_SIZE) {
		long rest = old & (long)(PAGE_SIZE - 1);

		if (atomic_long_try_cmpxchg(&objcg->nr_charged_bytes, &old, rest)) {
			obj_cgroup_uncharge_pages(objcg, (unsigned long)(old - rest) >> PAGE_SHIFT);
			return;
		}
	}
}

/* Take nr_bytes parked in objcg, if that many are there. */
static bool objcg_take_bytes(struct obj_cgroup *objcg, unsigned long nr_bytes)
{
	long old = atomic_long_read(&objcg->nr_charged_bytes);

	do {
		if (old < (long)nr_bytes)
			return false;
	} while (!atomic_long_try_cmpxchg(&objcg->nr_charged_bytes, &old, old - (long)nr_bytes));
	return true;
}

/* ======================= shrink callbacks ======================= */

/* One callback of memcg, called without memcg_mutex (held on entry and exit). */
static unsigned long memcg_call_shrinker(struct mem_cgroup *memcg, struct memcg_shrinker *sh,
					 unsigned long nr_bytes)
{
	unsigned long freed;

	sh->running++;
	mutex_unlock(&memcg_mutex);
	current_shrinker = sh;
	freed = sh->shrink(memcg, nr_bytes, sh->arg);
	current_shrinker = NULL;
	mutex_lock(&memcg_mutex);
	sh->running--;
	return freed;
}

/* Ask the group objcg charges to free nr_bytes: what the callbacks say they freed. */
static unsigned long memcg_reclaim(struct obj_cgroup *objcg, unsigned long nr_bytes)
{
	struct mem_cgroup *memcg;
	struct memcg_shrinker *sh;
	unsigned long freed = 0;

	if (current_shrinker)
		return 0;	/* a callback's own charge: no recursion */
	memcg = get_mem_cgroup_from_objcg(objcg);
	mutex_lock(&memcg_mutex);
	/* why safe: a shrinker being called is not unlinked (it waits for running == 0) */
	list_for_each_entry(sh, &memcg->shrinkers, list)
		if (!sh->dead)
			freed += memcg_call_shrinker(memcg, sh, nr_bytes);
	mutex_unlock(&memcg_mutex);
	css_put(memcg);
	return freed;
}

/* After a refusal: may the charge retry (callbacks ran and freed something)? */
static bool memcg_may_retry(struct obj_cgroup *objcg, gfp_t gfp, unsigned long nr_bytes,
			    unsigned int *retries)
{
	if (!(gfp & __GFP_DIRECT_RECLAIM) || ++*retries > MEMCG_RECLAIM_RETRIES)
		return false;
	return memcg_reclaim(objcg, nr_bytes) != 0;
}

/* ======================= per-CPU stocks ======================= */

/* This CPU's stock, attaching the thread to a CPU if need be (NULL if it
 * cannot have one); caches it in this_obj_stock for the fast paths. */
static struct obj_stock *this_cpu_stock(void)
{
	struct obj_stock *stock = this_cpu_ptr_or_null(memcg_stock);

	if (!stock && raw_smp_processor_id() >= 0)
		stock = this_cpu_ptr_or_null(memcg_stock);
	this_obj_stock = stock ? stock : &memcg_no_stock;
	return stock;
}

/* Give back everything stock holds; it caches nothing afterwards. */
static void drain_obj_stock(struct obj_stock *stock)
{
	struct obj_cgroup *objcg = stock->cached_objcg;
	unsigned int nr_bytes = stock->nr_bytes;

	if (!objcg)
		return;
	WRITE_ONCE(stock->nr_bytes, 0);
	WRITE_ONCE(stock->cached_objcg, NULL);
	if (nr_bytes >> PAGE_SHIFT)
		obj_cgroup_uncharge_pages(objcg, nr_bytes >> PAGE_SHIFT);
	if (nr_bytes & (PAGE_SIZE - 1))
		objcg_park_bytes(objcg, nr_bytes & (PAGE_SIZE - 1));
	obj_cgroup_put_many(objcg, 1);	/* the stock's reference, last */
}

/* Add bytes of the cached objcg; more than MEMCG_STOCK_MAX: whole pages go
 * back, down to MEMCG_STOCK_KEEP and less than a page more. */
static void obj_stock_add(struct obj_stock *stock, unsigned long nr_bytes)
{
	unsigned long total = stock->nr_bytes + nr_bytes, nr_pages;

	if (total > MEMCG_STOCK_MAX) {
		nr_pages = (total - MEMCG_STOCK_KEEP) >> PAGE_SHIFT;
		obj_cgroup_uncharge_pages(stock->cached_objcg, nr_pages);
		total -= nr_pages << PAGE_SHIFT;
	}
	WRITE_ONCE(stock->nr_bytes, (unsigned int)total);
}

/*
 * A charge of objcg's pages was refused: give back the whole pages this
 * CPU's stock holds of objcg, so that the retry may find them in the
 * counter; true if any went back.  Other threads' stocks keep theirs (at
 * most MEMCG_STOCK_MAX each: only their owners touch them), where the
 * kernel drains every CPU's (drain_all_stock).
 */
static bool obj_stock_give_back(struct obj_cgroup *objcg)
{
	struct obj_stock *stock = this_cpu_ptr_or_null(memcg_stock);
	unsigned long nr_pages;

	if (!stock || stock->cached_objcg != objcg)
		return false;
	nr_pages = stock->nr_bytes >> PAGE_SHIFT;
	if (!nr_pages)
		return false;
	WRITE_ONCE(stock->nr_bytes, stock->nr_bytes - (unsigned int)(nr_pages << PAGE_SHIFT));
	obj_cgroup_uncharge_pages(objcg, nr_pages);
	return true;
}

/* Make stock cache objcg (drain what it cached), with the bytes parked there. */
static void obj_stock_switch(struct obj_stock *stock, struct obj_cgroup *objcg)
{
	if (stock->cached_objcg == objcg)
		return;
	drain_obj_stock(stock);
	obj_cgroup_get_many(objcg, 1);
	WRITE_ONCE(stock->cached_objcg, objcg);
	obj_stock_add(stock, (unsigned long)atomic_long_xchg(&objcg->nr_charged_bytes, 0));
}

/* A thread without a CPU id: straight to objcg's parked bytes and the counter. */
static int obj_cgroup_charge_nostock(struct obj_cgroup *objcg, gfp_t gfp, size_t size)
{
	unsigned long nr_pages = DIV_ROUND_UP(size, PAGE_SIZE);
	unsigned int retries = 0;

	for (;;) {
		if (objcg_take_bytes(objcg, size))
			return 0;
		if (obj_cgroup_try_charge_pages(objcg, gfp, nr_pages)) {
			objcg_park_bytes(objcg, nr_pages * PAGE_SIZE - size);
			return 0;
		}
		if (!memcg_may_retry(objcg, gfp, size, &retries))
			return -ENOMEM;
	}
}

/*
 * obj_cgroup_charge_slow - charge size bytes to objcg when this CPU's stock
 * cannot pay: switch the stock to objcg, charge the whole pages missing and
 * keep the rest of the last page in the stock.  -ENOMEM if the limit
 * refuses after the shrink callbacks.
 */
int obj_cgroup_charge_slow(struct obj_cgroup *objcg, gfp_t gfp, size_t size)
{
	unsigned int retries = 0;
	struct obj_stock *stock;
	unsigned long nr_pages;

	for (;;) {
		stock = this_cpu_stock();
		if (!stock)
			return obj_cgroup_charge_nostock(objcg, gfp, size);
		obj_stock_switch(stock, objcg);
		if (stock->nr_bytes >= size) {
			WRITE_ONCE(stock->nr_bytes, stock->nr_bytes - (unsigned int)size);
			return 0;
		}
		nr_pages = DIV_ROUND_UP(size - stock->nr_bytes, PAGE_SIZE);
		if (obj_cgroup_try_charge_pages(objcg, gfp, nr_pages)) {
			WRITE_ONCE(stock->nr_bytes,
				   (unsigned int)(stock->nr_bytes + nr_pages * PAGE_SIZE - size));
			return 0;
		}
		/* why loop: callbacks' frees land in the stock, pages in the counter */
		if (!memcg_may_retry(objcg, gfp, size, &retries))
			return -ENOMEM;
	}
}

/* Uncharge when the stock caches another objcg or would pass a page. */
void obj_cgroup_uncharge_slow(struct obj_cgroup *objcg, unsigned long size)
{
	struct obj_stock *stock = this_cpu_stock();

	if (!stock) {
		objcg_park_bytes(objcg, size);
		return;
	}
	obj_stock_switch(stock, objcg);
	obj_stock_add(stock, size);
}

/* CPUHP_MEMCG_DEAD: the exiting thread gives its stock back (and forgets
 * it: the CPU id goes to another thread). */
static void memcg_cpu_dead(unsigned int cpu)
{
	drain_obj_stock(per_cpu_ptr(memcg_stock, cpu));
	this_obj_stock = &memcg_no_stock;
}

/**
 * mem_cgroup_drain_stocks - give back the bytes this thread has charged
 * ahead (its stock), so that the page counters hold no more than the
 * objects need, rounded up to pages.  Other threads drain theirs when they
 * call it or exit.
 */
void mem_cgroup_drain_stocks(void)
{
	struct obj_stock *stock;

	if (!smp_load_acquire(&memcg_initialized))
		return;
	stock = this_cpu_ptr_or_null(memcg_stock);
	if (stock)
		drain_obj_stock(stock);
}
EXPORT_SYMBOL(mem_cgroup_drain_stocks);

/* ======================= the vectors ======================= */

/* Where a slab's slots start, and how many: what differs by allocator
 * (#if: the fields exist in only one struct slab / struct kmem_cache). */
static unsigned long slab_objects_base(const struct slab *slab)
{
	/* why no debug offsets: the index divides by size, and whatever
	 * precedes an object inside its slot is smaller than size */
#if CONFIG_SLAB
	return (unsigned long)slab->s_mem;	/* after the colour, which may pass size */
#else
	return (unsigned long)slab_address(slab);
#endif
}

static unsigned int slab_objects_nr(const struct kmem_cache *s, const struct slab *slab)
{
#if CONFIG_SLAB
	(void)slab;
	return s->num;
#else
	return (unsigned int)(slab_size(slab) / s->size);	/* SLUB's order_objects() */
#endif
}

/* The vector of slab, allocated and attached if it has none; NULL if no memory. */
static struct slab_objcgs *memcg_alloc_slab_cgroups(struct kmem_cache *s, struct slab *slab,
						    gfp_t gfp)
{
	unsigned int objects = slab_objects_nr(s, slab);
	struct slab_objcgs *v;
	unsigned long old = 0;

	/* why strip: the vector is never accounted itself, nor DMA/reclaimable */
	gfp &= ~(__GFP_ACCOUNT | __GFP_DMA | __GFP_RECLAIMABLE | __GFP_NOFAIL);
	v = __kmalloc(sizeof(*v) + objects * sizeof(v->objcgs[0]), gfp | __GFP_ZERO | __GFP_NOWARN);
	if (!v)
		return NULL;
	v->cache = s;
	v->base = slab_objects_base(slab);
	v->mult = ~0UL / s->size + 1;	/* ceil(2^64 / size): size is no power of 2, or
					 * exactly 2^64 / size when it is */
	v->objects = objects;
	if (!__atomic_compare_exchange_n(&slab->memcg_data, &old,
					 (unsigned long)v | MEMCG_DATA_OBJCGS, false,
					 __ATOMIC_RELEASE, __ATOMIC_ACQUIRE)) {
		kfree(v);	/* another thread attached one first */
		return (struct slab_objcgs *)(old & ~MEMCG_DATA_FLAGS_MASK);
	}
	/* why listing after the cmpxchg is safe: our object keeps the slab alive */
	spin_lock(&memcg_vectors_lock);
	list_add_tail(&v->list, &memcg_vectors);
	spin_unlock(&memcg_vectors_lock);
	return v;
}

void __memcg_slab_post_alloc_hook(struct kmem_cache *s, struct obj_cgroup *objcg,
				  gfp_t flags, size_t size, void **p)
{
	struct slab_objcgs *v;
	struct slab *slab;
	size_t i;

	for (i = 0; i < size; i++) {
		if (!p[i]) {
			obj_cgroup_uncharge(objcg, obj_full_size(s));
			continue;
		}
		slab = folio_slab(virt_to_folio(p[i]));
		v = slab_objcgs(slab);
		if (!v)
			v = memcg_alloc_slab_cgroups(s, slab, flags);
		if (unlikely(!v)) {	/* no vector: the object stays, unaccounted */
			obj_cgroup_uncharge(objcg, obj_full_size(s));
			continue;
		}
		WRITE_ONCE(v->objcgs[slab_objcgs_index(v, p[i])], objcg);
	}
}

void __memcg_slab_post_alloc_one(struct kmem_cache *s, struct obj_cgroup *objcg,
				 gfp_t flags, void *object)
{
	__memcg_slab_post_alloc_hook(s, objcg, flags, 1, &object);
}

/* memcg_slab_free_hook when the stock cannot take the bytes (or x was
 * not charged after all): clear the slot, then uncharge. */
void __memcg_slab_free_hook(const struct kmem_cache *s, const struct slab *slab, const void *x)
{
	struct slab_objcgs *v = slab_objcgs(slab);
	struct obj_cgroup **slot, *objcg;

	if (!v)
		return;
	slot = &v->objcgs[slab_objcgs_index(v, x)];
	objcg = READ_ONCE(*slot);
	if (!objcg)
		return;		/* allocated without a charge */
	WRITE_ONCE(*slot, NULL);
	obj_cgroup_uncharge(objcg, obj_full_size(s));
}

void __memcg_free_slab_cgroups(struct slab *slab)
{
	struct slab_objcgs *v = slab_objcgs(slab);

	WRITE_ONCE(slab->memcg_data, 0);	/* the page allocator checks it is 0 */
	if (!v)
		return;
	spin_lock(&memcg_vectors_lock);
	list_del(&v->list);
	spin_unlock(&memcg_vectors_lock);
	kfree(v);
}

/* ======================= large kmalloc ======================= */

bool __memcg_kmem_charge_folio(struct folio *folio, gfp_t gfp, unsigned int order)
{
	struct obj_cgroup *objcg = active_objcg;
	unsigned long nr_pages = 1UL << order;
	unsigned int retries = 0;

	if (CONFIG_SLOB || !objcg)
		return true;
	while (!obj_cgroup_try_charge_pages(objcg, gfp, nr_pages))
		if (!obj_stock_give_back(objcg) &&
		    !memcg_may_retry(objcg, gfp, nr_pages * PAGE_SIZE, &retries))
			return false;
	atomic_long_inc(&objcg->nr_kmem_folios);
	atomic_long_add((long)nr_pages, &objcg->nr_kmem_pages);
	WRITE_ONCE(folio->memcg_data, (unsigned long)objcg | MEMCG_DATA_KMEM);
	return true;
}

void __memcg_kmem_uncharge_folio(struct folio *folio)
{
	unsigned long data = READ_ONCE(folio->memcg_data);
	struct obj_cgroup *objcg = (struct obj_cgroup *)(data & ~MEMCG_DATA_FLAGS_MASK);
	unsigned long nr_pages = 1UL << folio_order(folio);

	WRITE_ONCE(folio->memcg_data, 0);
	if (!(data & MEMCG_DATA_KMEM))
		return;
	atomic_long_dec(&objcg->nr_kmem_folios);
	atomic_long_sub((long)nr_pages, &objcg->nr_kmem_pages);
	obj_cgroup_uncharge_pages(objcg, nr_pages);
}

/* ======================= bring-up and thread exit ======================= */

/* A thread that exits with a group active drops it (see §7). */
static void memcg_thread_exit(void *unused)
{
	(void)unused;
	if (active_memcg && active_memcg != &root_memcg)
		atomic_long_dec(&active_memcg->active);
	active_memcg = NULL;
	active_objcg = NULL;
}

static bool memcg_init(void)
{
	if (likely(smp_load_acquire(&memcg_initialized)))
		return true;
	slab_ensure_init();
	mutex_lock(&memcg_mutex);
	if (!memcg_initialized) {
		memcg_stock = alloc_percpu(struct obj_stock);
		if (memcg_stock && !pthread_key_create(&memcg_thread_key, memcg_thread_exit)) {
			cpuhp_setup_state(CPUHP_MEMCG_DEAD, memcg_cpu_dead);
			smp_store_release(&memcg_initialized, true);
		}
	}
	mutex_unlock(&memcg_mutex);
	return memcg_initialized;
}

static void __attribute__((constructor)) memcg_constructor(void)
{
	fork_lock_register(&memcg_mutex.m, FORK_RANK_CACHE_ARRAY);
	fork_lock_register(&memcg_vectors_lock.m, FORK_RANK_LEAF);
}

/* ======================= groups ======================= */

/* Is memcg an online group (or the root)?  memcg_mutex held. */
static bool memcg_is_online_locked(const struct mem_cgroup *memcg)
{
	const struct mem_cgroup *pos;

	if (memcg == &root_memcg)
		return true;
	list_for_each_entry(pos, &memcg_list, list)
		if (pos == memcg)
			return true;
	return false;
}

static struct mem_cgroup *memcg_find_locked(const char *name)
{
	struct mem_cgroup *pos;

	if (!strcmp(name, root_memcg.name))
		return &root_memcg;
	list_for_each_entry(pos, &memcg_list, list)
		if (!strcmp(pos->name, name))
			return pos;
	return NULL;
}

/* Names show in reports as one column: 1..63 printable, non-blank bytes. */
static bool memcg_name_valid(const char *name)
{
	size_t i, n;

	if (!name)
		return false;
	n = strnlen(name, MEMCG_NAME_MAX);
	if (!n || n == MEMCG_NAME_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (name[i] <= ' ' || name[i] > '~')
			return false;
	return true;
}

static unsigned long limit_to_pages(unsigned long limit_bytes)
{
	unsigned long pages = limit_bytes / PAGE_SIZE;

	return pages > (unsigned long)PAGE_COUNTER_MAX ? (unsigned long)PAGE_COUNTER_MAX : pages;
}

/* Set up a pool struct as the new group name (memcg_mutex held). */
static void memcg_online_locked(struct mem_cgroup *memcg, const char *name,
				unsigned long limit_bytes, struct obj_cgroup *objcg)
{
	WRITE_ONCE(memcg->magic, MEMCG_MAGIC);
	strcpy(memcg->name, name);
	atomic_long_set(&memcg->memory.usage, 0);
	atomic_long_set(&memcg->memory.watermark, 0);
	atomic_long_set(&memcg->memory.failcnt, 0);
	WRITE_ONCE(memcg->memory.max, limit_to_pages(limit_bytes));
	memcg->memory.parent = &root_memcg.memory;
	INIT_LIST_HEAD(&memcg->objcg_list);
	INIT_LIST_HEAD(&memcg->shrinkers);
	atomic_long_set(&memcg->active, 0);
	atomic_long_set(&memcg->refcnt, 2);	/* the creator's and objcg's */
	atomic_long_set(&objcg->refcnt, 1);	/* the online group's */
	smp_store_release(&objcg->memcg, memcg);
	list_add_tail(&objcg->list, &memcg->objcg_list);
	smp_store_release(&memcg->objcg, objcg);	/* set_active_memcg() loads it */
	WRITE_ONCE(memcg->state, MEMCG_ONLINE);
	list_add_tail(&memcg->list, &memcg_list);
}

/* A FREE group from the pool, or spare (NULL if the pool is empty and spare
 * is NULL); *spare is cleared when it is used.  memcg_mutex held. */
static struct mem_cgroup *memcg_take_locked(struct mem_cgroup **spare)
{
	struct mem_cgroup *memcg = list_first_entry_or_null(&memcg_pool, struct mem_cgroup, list);

	if (memcg) {
		list_del(&memcg->list);
		return memcg;
	}
	memcg = *spare;
	*spare = NULL;
	return memcg;
}

/**
 * mem_cgroup_create - create an accounting group
 * @name: its name (1..63 printable characters, no blanks), unique
 * @limit_bytes: most bytes its objects may be charged, rounded down to
 *               pages; USLAB_MEM_CGROUP_NO_LIMIT for none
 *
 * Return: the group, or NULL with errno EINVAL (bad name), EEXIST (name in
 * use) or ENOMEM, and a report on stderr for the first two.
 */
struct mem_cgroup *mem_cgroup_create(const char *name, unsigned long limit_bytes)
{
	struct mem_cgroup *memcg, *spare;
	struct obj_cgroup *objcg;

	if (!memcg_name_valid(name)) {
		memcg_report("mem_cgroup_create: invalid group name (1..%d printable characters, no blanks)",
			     MEMCG_NAME_MAX - 1);
		errno = EINVAL;
		return NULL;
	}
	if (!memcg_init())
		goto nomem;
	objcg = __kmalloc(sizeof(*objcg), GFP_KERNEL | __GFP_ZERO);
	spare = __kmalloc(sizeof(*spare), GFP_KERNEL | __GFP_ZERO);
	mutex_lock(&memcg_mutex);
	if (memcg_find_locked(name)) {
		mutex_unlock(&memcg_mutex);
		memcg_report("mem_cgroup_create: a group named %s exists", name);
		kfree(objcg);
		kfree(spare);
		errno = EEXIST;
		return NULL;
	}
	memcg = objcg ? memcg_take_locked(&spare) : NULL;
	if (memcg)
		memcg_online_locked(memcg, name, limit_bytes, objcg);
	mutex_unlock(&memcg_mutex);
	kfree(spare);
	if (memcg)
		return memcg;
	kfree(objcg);
nomem:
	errno = ENOMEM;
	return NULL;
}
EXPORT_SYMBOL(mem_cgroup_create);

/* Take memcg out of service and point its objcgs at the root (memcg_mutex
 * held).  Returns how many objcgs moved (each held a group reference). */
static long memcg_offline_locked(struct mem_cgroup *memcg)
{
	struct obj_cgroup *objcg;
	long n = 0;

	list_del(&memcg->list);
	WRITE_ONCE(memcg->state, MEMCG_OFFLINE);
	WRITE_ONCE(memcg->objcg, NULL);
	list_for_each_entry(objcg, &memcg->objcg_list, list) {
		smp_store_release(&objcg->memcg, &root_memcg);
		n++;
	}
	atomic_long_add(n, &root_memcg.refcnt);
	list_splice_init(&memcg->objcg_list, &root_memcg.objcg_list);
	return n;
}

/* Unlink every shrinker of memcg, waiting for calls in progress (memcg_mutex held). */
static void memcg_drop_shrinkers_locked(struct mem_cgroup *memcg, struct list_head *out)
{
	struct memcg_shrinker *sh;

	list_for_each_entry(sh, &memcg->shrinkers, list)
		sh->dead = true;
	while (!list_empty(&memcg->shrinkers)) {
		sh = list_first_entry(&memcg->shrinkers, struct memcg_shrinker, list);
		while (sh->running) {
			mutex_unlock(&memcg_mutex);
			sched_yield();
			mutex_lock(&memcg_mutex);
		}
		list_move(&sh->list, out);
	}
}

/* Mark memcg dying unless a thread has it active. */
static bool memcg_try_set_dying(struct mem_cgroup *memcg)
{
	long old = 0;

	return atomic_long_try_cmpxchg(&memcg->active, &old, MEMCG_DYING);
}

/**
 * mem_cgroup_destroy - destroy a group created by mem_cgroup_create
 *
 * Objects still charged to it are reparented to the root group (they stay
 * valid; their frees uncharge the root).  Its shrink callbacks are
 * unregistered (calls in progress are waited for).
 *
 * Return: 0; -EBUSY if a thread has it active (set_active_memcg); -EINVAL
 * for the root group or a pointer that is no live group (reported).
 */
int mem_cgroup_destroy(struct mem_cgroup *memcg)
{
	struct memcg_shrinker *sh, *next;
	struct obj_cgroup *objcg;
	LIST_HEAD(shrinkers);
	long moved;

	if (!memcg_init())
		return -ENOMEM;
	mutex_lock(&memcg_mutex);
	if (!memcg_is_online_locked(memcg) || memcg == &root_memcg) {
		mutex_unlock(&memcg_mutex);
		memcg_report("mem_cgroup_destroy: %p is not a group that can be destroyed", memcg);
		return -EINVAL;
	}
	if (!memcg_try_set_dying(memcg)) {
		mutex_unlock(&memcg_mutex);
		return -EBUSY;
	}
	memcg_drop_shrinkers_locked(memcg, &shrinkers);
	objcg = memcg->objcg;
	moved = memcg_offline_locked(memcg);
	mutex_unlock(&memcg_mutex);
	list_for_each_entry_safe(sh, next, &shrinkers, list)
		kfree(sh);
	obj_cgroup_put_many(objcg, 1);		/* the online group's reference */
	css_put_many(memcg, moved + 1);		/* its objcgs' and the creator's */
	return 0;
}
EXPORT_SYMBOL(mem_cgroup_destroy);

/* May memcg be made active?  Counts the thread in (false: reported). */
static bool memcg_activate(struct mem_cgroup *memcg)
{
	long old;

	if (memcg == &root_memcg)
		return true;
	if (virt_addr_valid(memcg) && READ_ONCE(memcg->magic) == MEMCG_MAGIC) {
		old = atomic_long_read(&memcg->active);
		while (!(old & MEMCG_DYING) && READ_ONCE(memcg->state) == MEMCG_ONLINE)
			if (atomic_long_try_cmpxchg(&memcg->active, &old, old + 1))
				return true;
	}
	memcg_report("set_active_memcg: %p is not a live memory cgroup; active group unchanged",
		     memcg);
	return false;
}

/**
 * set_active_memcg - make memcg the group this thread's accounted
 * allocations are charged to (NULL or the root group: none)
 *
 * Return: the group that was active before, to restore it later.
 */
struct mem_cgroup *set_active_memcg(struct mem_cgroup *memcg)
{
	struct mem_cgroup *old = active_memcg;

	if (memcg == old || !memcg_init())
		return old;
	if (memcg && !memcg_activate(memcg))
		return old;
	if (old && old != &root_memcg)
		atomic_long_dec(&old->active);
	active_memcg = memcg;
	active_objcg = memcg && !cgroup_memory_nokmem ? smp_load_acquire(&memcg->objcg) : NULL;
	if (memcg)	/* arm the exit hook (cheap when already set) */
		pthread_setspecific(memcg_thread_key, (void *)1);
	return old;
}
EXPORT_SYMBOL(set_active_memcg);

struct mem_cgroup *get_active_memcg(void)
{
	return active_memcg;
}
EXPORT_SYMBOL(get_active_memcg);

/* The root group: holds every charge, has no limit, charges nothing itself. */
struct mem_cgroup *root_mem_cgroup(void)
{
	return &root_memcg;
}
EXPORT_SYMBOL(root_mem_cgroup);

/* Under memcg_mutex: a live group, or a report naming the caller. */
static bool memcg_check_locked(const struct mem_cgroup *memcg, const char *fn)
{
	if (memcg_is_online_locked(memcg))
		return true;
	memcg_report("%s: %p is not a live memory cgroup", fn, (const void *)memcg);
	return false;
}

/**
 * mem_cgroup_set_limit - change a group's limit (rounded down to pages;
 * USLAB_MEM_CGROUP_NO_LIMIT for none).  Charges above a lowered limit stay;
 * new ones are refused until usage falls below it.
 *
 * Return: 0, or -EINVAL for the root group or no live group.
 */
int mem_cgroup_set_limit(struct mem_cgroup *memcg, unsigned long limit_bytes)
{
	int ret = -EINVAL;

	if (!memcg_init())
		return -ENOMEM;
	mutex_lock(&memcg_mutex);
	if (memcg_check_locked(memcg, "mem_cgroup_set_limit") && memcg != &root_memcg) {
		WRITE_ONCE(memcg->memory.max, limit_to_pages(limit_bytes));
		ret = 0;
	}
	mutex_unlock(&memcg_mutex);
	return ret;
}
EXPORT_SYMBOL(mem_cgroup_set_limit);

const char *mem_cgroup_name(struct mem_cgroup *memcg)
{
	return memcg ? memcg->name : NULL;
}
EXPORT_SYMBOL(mem_cgroup_name);

/* ======================= shrink callback registration ======================= */

/**
 * mem_cgroup_register_shrinker - call shrink(memcg, nr_bytes, arg) when a
 * charge to memcg hits its limit, before the allocation is refused.  The
 * callback should free about nr_bytes of the group's objects and return
 * how many bytes it freed (0: nothing, stop asking).  It runs on the
 * allocating thread, with no uslab lock held; its own allocations are not
 * reclaimed for again.
 *
 * Return: 0, -EINVAL (NULL shrink, no live group, or the root), -ENOMEM.
 */
int mem_cgroup_register_shrinker(struct mem_cgroup *memcg, uslab_memcg_shrink_fn shrink, void *arg)
{
	struct memcg_shrinker *sh;
	int ret = -EINVAL;

	if (!shrink || !memcg_init())
		return shrink ? -ENOMEM : -EINVAL;
	sh = __kmalloc(sizeof(*sh), GFP_KERNEL | __GFP_ZERO);
	if (!sh)
		return -ENOMEM;
	sh->shrink = shrink;
	sh->arg = arg;
	mutex_lock(&memcg_mutex);
	if (memcg_check_locked(memcg, "mem_cgroup_register_shrinker") &&
	    memcg != &root_memcg) {
		list_add_tail(&sh->list, &memcg->shrinkers);
		sh = NULL;
		ret = 0;
	}
	mutex_unlock(&memcg_mutex);
	kfree(sh);
	return ret;
}
EXPORT_SYMBOL(mem_cgroup_register_shrinker);

static struct memcg_shrinker *memcg_find_shrinker_locked(struct mem_cgroup *memcg,
							 uslab_memcg_shrink_fn shrink, void *arg)
{
	struct memcg_shrinker *sh;

	list_for_each_entry(sh, &memcg->shrinkers, list)
		if (sh->shrink == shrink && sh->arg == arg && !sh->dead)
			return sh;
	return NULL;
}

/**
 * mem_cgroup_unregister_shrinker - undo one registration of (shrink, arg);
 * waits until no call of it is in progress.  Not from inside that callback.
 *
 * Return: 0, -ENOENT if not registered, -EBUSY from inside the callback,
 * -EINVAL for no live group.
 */
int mem_cgroup_unregister_shrinker(struct mem_cgroup *memcg, uslab_memcg_shrink_fn shrink, void *arg)
{
	struct memcg_shrinker *sh;
	int ret = -EINVAL;

	if (!memcg_init())
		return -ENOMEM;
	mutex_lock(&memcg_mutex);
	if (!memcg_check_locked(memcg, "mem_cgroup_unregister_shrinker"))
		goto out;
	ret = -ENOENT;
	sh = memcg_find_shrinker_locked(memcg, shrink, arg);
	if (!sh)
		goto out;
	ret = -EBUSY;
	if (sh == current_shrinker)
		goto out;
	sh->dead = true;
	while (sh->running) {
		mutex_unlock(&memcg_mutex);
		sched_yield();
		mutex_lock(&memcg_mutex);
	}
	list_del(&sh->list);
	ret = 0;
out:
	mutex_unlock(&memcg_mutex);
	if (!ret)
		kfree(sh);
	return ret;
}
EXPORT_SYMBOL(mem_cgroup_unregister_shrinker);

/* ======================= usage and statistics ======================= */

/* Does objcg's charge count for memcg (the root counts every charge)?
 * memcg_mutex held, so objcg cannot be released meanwhile. */
static bool objcg_counts_for(const struct obj_cgroup *objcg, const struct mem_cgroup *memcg)
{
	return objcg && (memcg == &root_memcg || READ_ONCE(objcg->memcg) == memcg);
}

static unsigned long memcg_parked_bytes_locked(const struct mem_cgroup *memcg)
{
	const struct mem_cgroup *pos;
	const struct obj_cgroup *objcg;
	unsigned long sum = 0;

	list_for_each_entry(objcg, &memcg->objcg_list, list)
		sum += (unsigned long)atomic_long_read(&objcg->nr_charged_bytes);
	if (memcg == &root_memcg)
		list_for_each_entry(pos, &memcg_list, list)
			list_for_each_entry(objcg, &pos->objcg_list, list)
				sum += (unsigned long)atomic_long_read(&objcg->nr_charged_bytes);
	return sum;
}

/* Bytes in every CPU's stock that are charged to memcg (read racily, §6). */
static unsigned long memcg_stocked_bytes_locked(const struct mem_cgroup *memcg)
{
	unsigned long sum = 0;
	struct obj_stock *stock;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		stock = per_cpu_ptr(memcg_stock, cpu);
		if (objcg_counts_for(READ_ONCE(stock->cached_objcg), memcg))
			sum += READ_ONCE(stock->nr_bytes);
	}
	return sum;
}

/* memcg_mutex held: bytes charged and used by objects (see §6). */
static unsigned long memcg_usage_locked(const struct mem_cgroup *memcg)
{
	unsigned long charged = pages_to_bytes(atomic_long_read(&memcg->memory.usage));
	unsigned long unused = memcg_parked_bytes_locked(memcg) + memcg_stocked_bytes_locked(memcg);

	return charged > unused ? charged - unused : 0;
}

/**
 * mem_cgroup_usage - bytes charged to memcg by the objects that hold them:
 * each accounted slab object's full size, and each accounted large kmalloc's
 * pages.  Exact when no charge of the group is in progress (see §6).
 *
 * Return: the bytes; 0 for no live group (reported).
 */
unsigned long mem_cgroup_usage(struct mem_cgroup *memcg)
{
	unsigned long usage = 0;

	if (!memcg_init())
		return 0;
	mutex_lock(&memcg_mutex);
	if (memcg_check_locked(memcg, "mem_cgroup_usage"))
		usage = memcg_usage_locked(memcg);
	mutex_unlock(&memcg_mutex);
	return usage;
}
EXPORT_SYMBOL(mem_cgroup_usage);

/* Live slab objects charged to memcg, in every vector. */
static unsigned long memcg_count_objects_locked(const struct mem_cgroup *memcg)
{
	const struct slab_objcgs *v;
	unsigned long n = 0;
	unsigned int i;

	spin_lock(&memcg_vectors_lock);
	list_for_each_entry(v, &memcg_vectors, list)
		for (i = 0; i < v->objects; i++)
			n += objcg_counts_for(READ_ONCE(v->objcgs[i]), memcg);
	spin_unlock(&memcg_vectors_lock);
	return n;
}

static void objcg_list_kmem_counts(const struct list_head *objcgs, unsigned long *folios,
				   unsigned long *pages)
{
	const struct obj_cgroup *objcg;

	list_for_each_entry(objcg, objcgs, list) {
		*folios += (unsigned long)atomic_long_read(&objcg->nr_kmem_folios);
		*pages += (unsigned long)atomic_long_read(&objcg->nr_kmem_pages);
	}
}

/* Large kmallocs (folios, pages) charged to memcg (the root: to anyone). */
static void memcg_kmem_counts_locked(const struct mem_cgroup *memcg, unsigned long *folios,
				     unsigned long *pages)
{
	const struct mem_cgroup *pos;

	*folios = *pages = 0;
	objcg_list_kmem_counts(&memcg->objcg_list, folios, pages);
	if (memcg == &root_memcg)
		list_for_each_entry(pos, &memcg_list, list)
			objcg_list_kmem_counts(&pos->objcg_list, folios, pages);
}

static unsigned long limit_bytes_of(const struct mem_cgroup *memcg)
{
	unsigned long max = READ_ONCE(memcg->memory.max);

	return max >= (unsigned long)PAGE_COUNTER_MAX ? USLAB_MEM_CGROUP_NO_LIMIT : max * PAGE_SIZE;
}

static void memcg_fill_stats_locked(const struct mem_cgroup *memcg,
				    struct uslab_mem_cgroup_stats *st)
{
	unsigned long folios, pages;

	memcg_kmem_counts_locked(memcg, &folios, &pages);
	st->usage = memcg_usage_locked(memcg);
	st->charged = pages_to_bytes(atomic_long_read(&memcg->memory.usage));
	st->max_usage = pages_to_bytes(atomic_long_read(&memcg->memory.watermark));
	st->limit = limit_bytes_of(memcg);
	st->failcnt = (unsigned long)atomic_long_read(&memcg->memory.failcnt);
	st->objects = memcg_count_objects_locked(memcg);
	st->kmem_folios = folios;
	st->kmem_bytes = pages * PAGE_SIZE;
}

/**
 * mem_cgroup_stats - a group's numbers (struct uslab_mem_cgroup_stats)
 *
 * Return: 0, or -EINVAL for NULL st or no live group.
 */
int mem_cgroup_stats(struct mem_cgroup *memcg, struct uslab_mem_cgroup_stats *st)
{
	int ret = -EINVAL;

	if (!st)
		return -EINVAL;
	if (!memcg_init())
		return -ENOMEM;
	mutex_lock(&memcg_mutex);
	if (memcg_check_locked(memcg, "mem_cgroup_stats")) {
		memcg_fill_stats_locked(memcg, st);
		ret = 0;
	}
	mutex_unlock(&memcg_mutex);
	return ret;
}
EXPORT_SYMBOL(mem_cgroup_stats);

/**
 * mem_cgroup_from_obj - the group an object is charged to: a slab object's
 * objcg's group (the root once its group was destroyed), or an accounted
 * large kmalloc's.  NULL for an object that is not charged, or not a live
 * object of uslab.
 */
struct mem_cgroup *mem_cgroup_from_obj(const void *p)
{
	struct obj_cgroup *objcg = NULL;
	struct slab_objcgs *v;
	struct folio *folio;
	unsigned long data;

	if (ZERO_OR_NULL_PTR(p) || !virt_addr_valid(p))
		return NULL;
	folio = virt_to_folio(p);
	data = smp_load_acquire(&folio->memcg_data);	/* see slab_objcgs() */
	if (folio_test_slab(folio) && (data & MEMCG_DATA_OBJCGS)) {
		v = (struct slab_objcgs *)(data & ~MEMCG_DATA_FLAGS_MASK);
		if ((unsigned long)p >= v->base && slab_objcgs_index(v, p) < v->objects)
			objcg = READ_ONCE(v->objcgs[slab_objcgs_index(v, p)]);
	} else if (data & MEMCG_DATA_KMEM) {
		objcg = (struct obj_cgroup *)(data & ~MEMCG_DATA_FLAGS_MASK);
	}
	return objcg ? smp_load_acquire(&objcg->memcg) : NULL;
}
EXPORT_SYMBOL(mem_cgroup_from_obj);

/* ---- mem_cgroup_print_stats ---- */

struct memcg_tally {
	struct kmem_cache *cache;	/* a cache with accounted objects */
	unsigned long objs;		/* of the group being printed */
};

/* Count memcg's objects per cache into t[0..n) (caches filled in on first
 * sight); returns the entries used. */
static unsigned int memcg_tally_locked(const struct mem_cgroup *memcg, struct memcg_tally *t,
				       unsigned int n)
{
	const struct slab_objcgs *v;
	unsigned int i, k, used = 0, objs;

	spin_lock(&memcg_vectors_lock);
	list_for_each_entry(v, &memcg_vectors, list) {
		for (objs = 0, i = 0; i < v->objects; i++)
			objs += objcg_counts_for(READ_ONCE(v->objcgs[i]), memcg);
		if (!objs)
			continue;
		for (k = 0; k < used && t[k].cache != v->cache; k++)
			;
		if (k == used && used < n)
			t[used++] = (struct memcg_tally){ v->cache, 0 };
		if (k < used)
			t[k].objs += objs;
	}
	spin_unlock(&memcg_vectors_lock);
	return used;
}

static void memcg_print_group_locked(FILE *f, const struct mem_cgroup *memcg,
				     struct memcg_tally *t, unsigned int n)
{
	struct uslab_mem_cgroup_stats st;
	unsigned int i, used;
	char limit[24];

	memcg_fill_stats_locked(memcg, &st);
	if (st.limit == USLAB_MEM_CGROUP_NO_LIMIT)
		snprintf(limit, sizeof(limit), "max");
	else
		snprintf(limit, sizeof(limit), "%lu", st.limit);
	fprintf(f, "%-17s %10lu %10lu %10s %10lu %8lu : objects %8lu %10lu\n", memcg->name,
		st.usage, st.charged, limit, st.max_usage, st.failcnt, st.objects + st.kmem_folios,
		st.usage);
	used = memcg_tally_locked(memcg, t, n);
	for (i = 0; i < used; i++)
		fprintf(f, "  %-15s %8lu %6u %10lu\n", t[i].cache->name, t[i].objs,
			obj_full_size(t[i].cache), t[i].objs * obj_full_size(t[i].cache));
	if (st.kmem_folios)
		fprintf(f, "  %-15s %8lu %6s %10lu\n", "kmalloc-large", st.kmem_folios, "-",
			st.kmem_bytes);
}

static unsigned int nr_slab_caches_locked(void)
{
	struct kmem_cache *s;
	unsigned int n = 0;

	list_for_each_entry(s, &slab_caches, list)
		n++;
	return n;
}

/**
 * mem_cgroup_print_stats - every group, slabinfo-like: the root first, then
 * the groups in creation order, each with its usage, page counter, limit,
 * high-water mark and refusals, then one row per cache holding its
 * objects (objects, full size each, bytes) and one for large kmallocs.
 */
void mem_cgroup_print_stats(FILE *f)
{
	struct memcg_tally *t;
	struct mem_cgroup *memcg;
	unsigned int n;

	if (!memcg_init())
		return;
	mutex_lock(&slab_mutex);	/* why: no cache goes away while it is named */
	n = nr_slab_caches_locked();
	t = __kmalloc((n + 1) * sizeof(*t), GFP_KERNEL);
	mutex_lock(&memcg_mutex);
	fputs("memcg slabinfo - version: 1.0\n", f);
	fputs("# group            <usage> <charged> <limit> <max_usage> <failcnt>"
	      " : objects <active_objs> <bytes>\n", f);
	fputs("#   cache          <active_objs> <objsize> <bytes>\n", f);
	memcg_print_group_locked(f, &root_memcg, t, t ? n + 1 : 0);
	list_for_each_entry(memcg, &memcg_list, list)
		memcg_print_group_locked(f, memcg, t, t ? n + 1 : 0);
	mutex_unlock(&memcg_mutex);
	mutex_unlock(&slab_mutex);
	kfree(t);
}
EXPORT_SYMBOL(mem_cgroup_print_stats);
