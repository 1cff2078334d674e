// SPDX-License-Identifier: MIT
/*
 * page_alloc.c - the buddy page allocator: one node, one zone ("Normal").
 *
 * 1. Overview
 *    Memory is handed out in blocks of 2^order pages, order 0 .. MAX_ORDER-1,
 *    each naturally aligned in pfns (and so in addresses: the arena base is
 *    aligned to the largest block).  A free block of order o has one buddy,
 *    the block at pfn ^ (1 << o); when both are free they merge into one
 *    block of order o + 1.  Allocation takes the first free block of the
 *    smallest order >= the request and splits it, returning the upper halves
 *    to the lower orders (expand).
 *
 *    Small orders (0 .. PAGE_ALLOC_COSTLY_ORDER) go through per-CPU page
 *    lists first, so that a thread ("CPU", see cpu.h) allocates and frees
 *    without touching the zone lock; the lists are refilled from and drained
 *    to the buddy lists `batch` pages at a time, and drained whole when the
 *    thread exits (CPUHP_PAGE_ALLOC_DEAD), when drain_all_pages() runs, and
 *    before an allocation is allowed to fail.
 *
 *    Memory comes from the memory map (memmap.c) one section at a time: when
 *    the free lists cannot satisfy a request, the next section is brought
 *    online and its pages join the free lists as largest blocks.
 *
 *    Memory goes back to the OS lazily, like the kernel's free page
 *    reporting: free blocks of order >= page_reporting_order (default 3,
 *    32 KiB) are discarded (os_discard, MADV_DONTNEED) and marked
 *    PG_reported, by three rules.
 *    - The at-once rule (glibc's dynamic mmap threshold, for the pages of
 *      large kmalloc blocks): a block of page_reporting_at_once order or
 *      more (at first 5, 128 KiB), freed whole, goes back before it joins
 *      the lists, and the rule's order rises past it.  So a buffer grown
 *      by realloc leaves no resident copies behind (peak RSS of python3
 *      under the malloc drop-in -1.0 MiB, sqlite3 -0.5), while a program
 *      that frees and takes again blocks of one size pays once.
 *    - The idle rule: a block that has stayed free PAGE_REPORTING_IDLE_MS
 *      goes back once more than PAGE_REPORTING_IDLE_FLOOR sits in
 *      unreported blocks (git -0.2 MiB, bench/fragment -0.2).  A free
 *      block's head keeps the (coarse) time it was freed in page->index,
 *      split halves keep their block's.  A block freed and taken again
 *      within the delay (a program that frees and refills, bench/batch)
 *      costs no system call and no page fault.
 *      Both rules are off once page_reporting_threshold is set.
 *    - The threshold rule: once more than page_reporting_threshold bytes
 *      (default 32 MiB) sit in unreported blocks, the coldest go back at
 *      once; the report then goes on until no more than half the
 *      threshold is left unreported (hysteresis, so that a workload freeing
 *      and reallocating around the threshold does not make a system call
 *      per free).
 *    The pages most recently freed stay, because reported blocks go to the
 *    tail of their list and reporting takes the coldest unreported blocks
 *    first.  The checks are a compare or two, made only where the buddy
 *    lists grew (never on the per-CPU fast path); the report runs in the
 *    freeing thread after it dropped every lock.
 *    page_reporting_flush() reports everything now.  A reported block (and
 *    a never-touched block of a new section) reads as zeros, which the
 *    allocator remembers in PG_zeroed, so __GFP_ZERO does not clear it;
 *    the halves of a split block inherit both bits, and a merged block keeps
 *    a bit only if both halves had it.  A merged block whose halves
 *    differ (one reported, one not) is PG_mixed: it counts as unreported
 *    for the rules, but as neither resident nor zero.
 *
 *    Allocation prefers memory the process holds (where the kernel, with
 *    no RSS to mind, takes the smallest block): __rmqueue_smallest splits
 *    the smallest block that is wholly resident (unreported, not mixed)
 *    before it takes any other, and page_alloc_resident_order() tells a
 *    caller that can use a smaller order (SLUB's slab order fallback) the
 *    order at which resident memory is free.
 *
 * 2. Data structures
 *    struct zone zone            the only zone: free_area[order] (list + count),
 *                                counters, the per-CPU pageset.
 *    struct free_area            free blocks of one order; unreported blocks
 *                                are added at the head, reported and mixed
 *                                ones at the tail, allocation takes from the
 *                                head.
 *    struct per_cpu_pages        per CPU (alloc_percpu): a list per order
 *                                0..3, count/high/batch, and a count of the
 *                                pages it handed out minus those freed to it.
 *    struct page (mm_types.h)    lru links a free block into a list; private
 *                                holds the order; page_type holds PageBuddy.
 *
 * 3. States of a page
 *      state                 page_type  private  _refcount  flags (besides node)      linked by lru into
 *      free block head       Buddy      order    0          PG_reported?, PG_zeroed?  zone.free_area[order]
 *                                                         or PG_mixed?
 *      inside a free block   -1         stale    0          none                      -
 *      pcp block head        -1         order    0          as a free block head      pcp->lists[order]
 *      isolated (reporting)  -1         order    0          PG_mixed?                 reporter's batch
 *      allocated head        -1 (1)     0        >= 1       PG_head if compound (2)   owner's use
 *      compound tail         -1         -        0          none; compound_head = head|1
 *      non-compound tail     -1         stale    0          none                      -
 *    (1) the owner may reuse _mapcount (SLAB's slab->active) but must put
 *        back -1 before freeing.  (2) plus whatever the owner sets; at free
 *        PG_locked, PG_lru, PG_active, PG_slab, PG_private must be clear,
 *        mapping NULL, memcg_data 0, or the page is reported as bad.
 *    The first tail of a compound block holds compound_dtor (1),
 *    compound_order, compound_mapcount (-1) and compound_nr; other tails have
 *    mapping = TAIL_MAPPING.  Allocation from any free state clears PG_zeroed
 *    and PG_reported, so an allocated page never carries them.
 *
 * 4. Lock order
 *    reporting_lock (mutex: one reporter, or the checker) ->
 *    pcp_setup_lock (no pcp becomes ready while the checker runs) ->
 *    pcp->lock (per CPU; taken by its owner and by drain_all_pages, so
 *    uncontended in practice; the checker holds several, in CPU order) ->
 *    zone.lock -> memmap_lock (memmap_online_section).
 *    Nothing here calls malloc, stdio or any other library code that could
 *    allocate while holding a lock (the malloc drop-in sits above us).
 *    For fork(), one hook at FORK_RANK_PAGE_ALLOC takes all of these in
 *    this order; memmap_lock is registered at FORK_RANK_MEMMAP.
 *
 * 5. Invariants (checked by page_alloc_check_invariants())
 *    - every free block is on exactly one list, at its order, its head is
 *      PageBuddy with private == order, and no two free blocks overlap;
 *    - no free block's buddy is free at the same order (they would merge);
 *    - free_area[o].nr_free is the length of its list; pcp->count is the
 *      number of pages on the pcp's lists;
 *    - pages free (buddy + pcp lists) + pages allocated (zone.nr_allocated
 *      + every pcp's nr_allocated) + pages isolated == pages online;
 *    - nr_reported / nr_unreported / nr_resident match the PG_reported and
 *      PG_mixed state of the lists;
 *    - no page outside a free block's head is PageBuddy.
 *
 * 6. Checks that are always on
 *    Freeing a page that is already free, a tail page, a pointer that is not
 *    a struct page of an online section, a compound page with the wrong
 *    order or a damaged tail, or a page whose flags/mapping/memcg_data are
 *    not clean, prints the kernel's "Bad page state" report and aborts.
 *
 * 7. Memcheck (memcheck.h §2)
 *    When memcheck_active(), a block freed becomes no-access and a block
 *    handed out undefined (defined when it is known to be zero, or is
 *    cleared for __GFP_ZERO): the kernel's kasan_poison_pages/unpoison, so
 *    that a use after free is still seen once a slab has gone back here.
 *    Nothing here reads the bytes of a free block (the lists live in struct
 *    page; free page reporting only madvises them).
 */
#define _GNU_SOURCE	/* program_invocation_short_name */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "internal.h"
#include "cpu.h"
#include "memcheck.h"
#include "os/os.h"

#define NR_PCP_LISTS		(PAGE_ALLOC_COSTLY_ORDER + 1)
#define PCP_BATCH		63	/* pages per refill / drain (the kernel's usual value) */
#define PCP_HIGH		(4 * PCP_BATCH)	/* most pages a CPU keeps: about 1 MiB */
#define PAGE_REPORTING_CAPACITY	32	/* blocks isolated per reporting round */
#define PAGE_REPORTING_IDLE_MS	10	/* the idle rule: a block free this long goes back */
/* ... once more than this many pages sit in unreported blocks */
#define PAGE_REPORTING_IDLE_FLOOR	((256UL << 10) >> PAGE_SHIFT)
#define PAGE_REPORTING_AT_ONCE_ORDER	5	/* the at-once rule's first order */
/* page_alloc_resident_order() looks for smaller blocks only past this */
#define RESIDENT_REUSE_FLOOR	((256UL << 10) >> PAGE_SHIFT)
#define COMPOUND_PAGE_DTOR	1
#define TAIL_MAPPING		((void *)0x400)

/* Flags that must be clear when a page is freed (the kernel's check list). */
#define PAGE_FLAGS_CHECK_AT_FREE \
	(BIT(PG_locked) | BIT(PG_lru) | BIT(PG_active) | BIT(PG_slab) | BIT(PG_private))
/* A free block's knowledge about its memory: all of it reported (and
 * zero), or part of it (mixed). */
#define PAGE_FREE_STATE		(BIT(PG_reported) | BIT(PG_zeroed))
#define PAGE_FREE_STATE_ALL	(PAGE_FREE_STATE | BIT(PG_mixed))

/* A benign race, the kernel's data_race(): see page_is_buddy(). */
#define __no_sanitize_thread	__attribute__((no_sanitize("thread")))

struct free_area {
	struct list_head free_list;	/* free blocks of this order (zone.lock) */
	unsigned long nr_free;		/* blocks on free_list (zone.lock) */
};

struct per_cpu_pages {
	spinlock_t lock;		/* owner, drain_all_pages(), checker */
	int count;			/* pages on all lists (lock) */
	int high;			/* drain a batch when count reaches this (lock) */
	int batch;			/* pages per refill or drain (lock) */
	unsigned int drain_next;	/* list the next drain takes from (lock) */
	long nr_allocated;		/* pages handed out here minus pages freed here (lock) */
	bool ready;			/* set (release) by the owner once initialised */
	struct list_head lists[NR_PCP_LISTS];	/* blocks per order, hottest first (lock) */
};

struct zone {
	/* read-mostly, for the fast paths: set once by page_alloc_init() */
	struct per_cpu_pages __percpu *per_cpu_pageset;	/* NULL: none */
	const char *name;		/* "Normal" */
	bool initialised;		/* page_alloc_init() ran */
	/* why aligned: frees and refills on other CPUs must not evict the above */
	spinlock_t lock __aligned(64);	/* the buddy lists and the counters below */
	struct free_area free_area[MAX_ORDER_LIMIT];	/* orders 0 .. MAX_ORDER-1 used */
	unsigned long managed_pages;	/* pages of online sections (lock) */
	long nr_allocated;		/* pages out through the buddy path, net (lock) */
	unsigned long nr_unreported;	/* pages in unreported free blocks of order >=
					 * page_reporting_order (lock; READ_ONCE outside) */
	unsigned long nr_reported;	/* pages in reported free blocks (lock) */
	unsigned long nr_resident;	/* pages in unreported free blocks of any order:
					 * memory the process holds (lock; READ_ONCE outside) */
	unsigned long nr_isolated;	/* pages off the lists being reported (lock) */
	unsigned long now_ms;		/* coarse clock, read when the lists last grew:
					 * the time a block freed now is stamped with (lock) */
	unsigned long idle_next_ms;	/* no idle round before this time (reporting_lock
					 * writes; READ_ONCE outside) */
};

static struct zone zone = {
	.lock = __SPIN_LOCK_UNLOCKED,
	.name = "Normal",
};

static DEFINE_MUTEX(reporting_lock);	/* one reporter at a time; the checker */
static DEFINE_MUTEX(pcp_setup_lock);	/* pcp_setup() vs the checker */

static unsigned int page_reporting_order = PAGE_ALLOC_COSTLY_ORDER;	/* option; clamped at init */
static unsigned long page_reporting_threshold = 32UL << 20;	/* bytes; option */
/* The idle and at-once rules; why off once the threshold is set: the
 * threshold alone then says how much free memory stays (the tests of
 * reporting rely on it). */
static bool page_reporting_auto = true;
/* The at-once rule's order now: only rises (atomic). */
static unsigned int page_reporting_at_once = PAGE_REPORTING_AT_ONCE_ORDER;
static unsigned long reporting_high;	/* report when nr_unreported exceeds this (pages) */
static unsigned long reporting_low;	/* ... down to this (pages) */

static void page_reporting_notify(void);

/* ---- options ---- */

static int setup_page_reporting_order(const char *val)
{
	unsigned long v;

	if (kstrtoul_opt(val, &v) || v >= MAX_ORDER_LIMIT)
		return -1;
	page_reporting_order = (unsigned int)v;
	return 0;
}
__setup("page_reporting_order=", setup_page_reporting_order);

static int setup_page_reporting_threshold(const char *val)
{
	unsigned long v;

	if (kstrtoul_opt(val, &v))
		return -1;
	page_reporting_threshold = v;
	page_reporting_auto = false;
	return 0;
}
__setup("page_reporting_threshold=", setup_page_reporting_threshold);

/* ---- reports of misuse ---- */

static void report(const char *fmt, ...) __printf(1, 2);
static void report(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		os_write_all(2, buf, min((size_t)n, sizeof(buf) - 1));
}

static noinline __cold __noreturn void bad_page(const struct page *page, const char *reason)
{
	report("uslab: BUG: Bad page state in process %s  pfn:%05lx\n"
	       "page:%p refcount:%d mapcount:%d mapping:%p index:%#lx pfn:%#lx\n"
	       "flags: %#lx\npage dumped because: %s\n",
	       program_invocation_short_name, page_to_pfn(page), (void *)page,
	       atomic_read(&page->_refcount), atomic_read(&page->_mapcount),
	       page->mapping, page->index, page_to_pfn(page), READ_ONCE(page->flags), reason);
	abort();
}

static noinline __cold __noreturn void bad_page_ptr(const char *fn, const void *p)
{
	report("uslab: BUG: %s: %p is not a page (or address) of uslab's memory map\n", fn, p);
	abort();
}

/* Is page a struct page of an online section? */
static inline bool page_ptr_valid(const struct page *page)
{
	unsigned long off = (unsigned long)page - (unsigned long)memmap.vmemmap;

	return IS_ALIGNED(off, sizeof(struct page)) && pfn_valid(off / sizeof(struct page));
}

/* ---- free lists ---- */

static inline unsigned long free_state(const struct page *page)
{
	return READ_ONCE(page->flags) & PAGE_FREE_STATE_ALL;
}

static inline void set_free_state(struct page *page, unsigned long state)
{
	WRITE_ONCE(page->flags, (READ_ONCE(page->flags) & ~PAGE_FREE_STATE_ALL) | state);
}

/*
 * Is the block at @page a free block of @order?  page may be an allocated
 * page whose owner rewrites _mapcount (SLAB's slab->active) without our
 * lock; the value is believed only when it says "buddy", which only holders
 * of zone.lock write, so the race is benign.  why no_sanitize and the
 * volatile load: TSan must not report it, and the compiler must load once.
 */
static __no_sanitize_thread bool page_type_is_buddy(const struct page *page)
{
	unsigned int type = *(const volatile unsigned int *)&page->page_type;

	return (type & (PAGE_TYPE_BASE | PG_buddy)) == PAGE_TYPE_BASE;
}

static __no_sanitize_thread bool page_is_buddy(const struct page *page, unsigned int order)
{
	return page_type_is_buddy(page) && page->private == order;
}

static void account_free_block(const struct page *page, unsigned int order, long sign)
{
	unsigned long nr = 1UL << order;

	if (PageReported(page)) {
		zone.nr_reported += sign * nr;
		return;
	}
	if (!PageMixed(page))
		WRITE_ONCE(zone.nr_resident, zone.nr_resident + sign * nr);
	if (order >= page_reporting_order)
		WRITE_ONCE(zone.nr_unreported, zone.nr_unreported + sign * nr);
}

static void add_to_free_list(struct page *page, unsigned int order)
{
	struct free_area *area = &zone.free_area[order];

	page->private = order;
	__SetPageBuddy(page);
	/* why tail: allocations take from the head, so reported (cold, zero)
	 * and mixed blocks are used last and unreported ones stay contiguous
	 * at the head */
	if (PageReported(page) || PageMixed(page))
		list_add_tail(&page->lru, &area->free_list);
	else
		list_add(&page->lru, &area->free_list);
	area->nr_free++;
	account_free_block(page, order, 1);
}

static void del_page_from_free_list(struct page *page, unsigned int order)
{
	account_free_block(page, order, -1);
	list_del(&page->lru);
	__ClearPageBuddy(page);
	page->private = 0;
	zone.free_area[order].nr_free--;
}

/* Milliseconds of the coarse monotonic clock: a tick's resolution is
 * plenty for the idle rule, at a few nanoseconds a read. */
static unsigned long reporting_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (unsigned long)ts.tv_sec * 1000UL + (unsigned long)ts.tv_nsec / 1000000UL;
}

/* Blocks are about to be freed to the lists (zone.lock held): the time they
 * are stamped with, once per batch rather than per block. */
static void zone_clock_update(void)
{
	if (page_reporting_auto)
		zone.now_ms = reporting_clock();
}

/* The free state of two merged halves. */
static unsigned long merge_free_state(unsigned long a, unsigned long b)
{
	unsigned long mixed = BIT(PG_mixed);

	if ((a | b) & mixed || (a ^ b) & BIT(PG_reported))
		return mixed;
	return a & b;
}

/*
 * Put a block on the free lists, merging it with its buddy for as long as
 * the buddy is free at the same order.  Caller holds zone.lock.
 */
static void __free_one_page(struct page *page, unsigned long pfn, unsigned int order)
{
	unsigned long state = free_state(page);
	unsigned long buddy_pfn;
	struct page *buddy;

	set_free_state(page, 0);
	while (order < MAX_ORDER - 1) {
		buddy_pfn = pfn ^ (1UL << order);
		buddy = pfn_to_page(buddy_pfn);
		if (!page_is_buddy(buddy, order))
			break;
		del_page_from_free_list(buddy, order);
		/* a merged block is reported (or zero) only if both halves are,
		 * and mixed if either is or they differ */
		state = merge_free_state(state, free_state(buddy));
		set_free_state(buddy, 0);
		pfn &= buddy_pfn;
		page = pfn_to_page(pfn);
		order++;
	}
	set_free_state(page, state);
	page->index = zone.now_ms;	/* freed now: the idle rule's clock starts */
	add_to_free_list(page, order);
}

/* Give the upper halves of a block of order @high back, down to order @low. */
static void expand(struct page *page, unsigned int low, unsigned int high)
{
	unsigned long state = free_state(page);
	struct page *half;

	while (high > low) {
		high--;
		half = page + (1UL << high);
		memmap_prepare_pages(page_to_pfn(half), 1);	/* a free block's head */
		set_free_state(half, state);	/* halves inherit what the block knew */
		half->index = page->index;	/* ... and how long it was free */
		add_to_free_list(half, high);
	}
}

/* The first block of order @o if it holds memory (unreported), else NULL.
 * Caller holds zone.lock. */
static struct page *resident_head(unsigned int o)
{
	struct page *page = list_first_entry_or_null(&zone.free_area[o].free_list, struct page, lru);

	return page && !PageReported(page) && !PageMixed(page) ? page : NULL;
}

/*
 * The block an allocation of @order splits: the smallest that holds memory
 * already (unreported blocks are at the heads of their lists), else the
 * smallest of any kind.  why resident first, where the kernel takes the
 * smallest: a page the OS has (reported, or never touched) costs RSS when
 * written, one the process holds does not; taking a fresh order-2 block
 * while a freed order-5 one sits resident would grow the process by the
 * order-2 block for nothing.
 */
static struct page *__rmqueue_smallest(unsigned int order)
{
	struct page *page;
	unsigned int o;

	for (o = order; o < MAX_ORDER && zone.nr_resident; o++) {
		page = resident_head(o);
		if (page)
			goto found;
	}
	for (o = order; o < MAX_ORDER; o++) {
		page = list_first_entry_or_null(&zone.free_area[o].free_list, struct page, lru);
		if (page)
			goto found;
	}
	return NULL;
found:
	del_page_from_free_list(page, o);
	expand(page, order, o);
	memmap_prepare_pages(page_to_pfn(page), 1UL << order);	/* handed out */
	return page;
}

/* Bring the next section online and free its pages.  Caller holds zone.lock. */
static bool zone_grow(void)
{
	unsigned long pfn, nr, end;
	struct page *page;

	if (!memmap_online_section(&pfn, &nr))
		return false;
	for (end = pfn + nr; pfn < end; pfn += MAX_ORDER_NR_PAGES) {
		page = pfn_to_page(pfn);
		memmap_prepare_pages(pfn, 1);	/* only the head: memmap.c §3 */
		/* never touched: reads as zeros and holds no memory */
		set_free_state(page, PAGE_FREE_STATE);
		add_to_free_list(page, MAX_ORDER - 1);
	}
	zone.managed_pages += nr;
	return true;
}

static struct page *__rmqueue(unsigned int order)
{
	struct page *page;

	/* why: init.c lets its own thread back in before page_alloc_init() ran */
	if (unlikely(!zone.initialised))
		return NULL;
	page = __rmqueue_smallest(order);

	if (unlikely(!page) && zone_grow())
		page = __rmqueue_smallest(order);
	return page;
}

static struct page *rmqueue_buddy(unsigned int order)
{
	struct page *page;

	spin_lock(&zone.lock);
	page = __rmqueue(order);
	if (page)
		zone.nr_allocated += 1L << order;
	spin_unlock(&zone.lock);
	return page;
}

/* ---- per-CPU page lists ---- */

static noinline struct per_cpu_pages *pcp_setup(struct per_cpu_pages *pcp)
{
	unsigned int i;

	mutex_lock(&pcp_setup_lock);
	spin_lock_init(&pcp->lock);
	for (i = 0; i < NR_PCP_LISTS; i++)
		INIT_LIST_HEAD(&pcp->lists[i]);
	pcp->count = 0;
	pcp->batch = PCP_BATCH;
	pcp->high = PCP_HIGH;
	smp_store_release(&pcp->ready, true);
	mutex_unlock(&pcp_setup_lock);
	return pcp;
}

/* The calling thread's pcp, or NULL if it cannot have a CPU. */
static __always_inline struct per_cpu_pages *this_pcp(void)
{
	struct per_cpu_pages *pcp;

	if (unlikely(!zone.per_cpu_pageset))
		return NULL;
	if (unlikely(!this_cpu_base))
		raw_smp_processor_id();		/* attach to a CPU id on first use */
	pcp = this_cpu_ptr_or_null(zone.per_cpu_pageset);
	if (unlikely(!pcp))
		return NULL;
	if (unlikely(!pcp->ready))		/* only the owner writes it */
		return pcp_setup(pcp);
	return pcp;
}

/* Another CPU's pcp, or NULL if it has none yet. */
static struct per_cpu_pages *pcp_of(unsigned int cpu)
{
	struct per_cpu_pages *pcp;

	if (!zone.per_cpu_pageset || !READ_ONCE(percpu_unit_base[cpu]))
		return NULL;
	pcp = per_cpu_ptr(zone.per_cpu_pageset, cpu);
	return smp_load_acquire(&pcp->ready) ? pcp : NULL;
}

static unsigned int pcp_next_list(struct per_cpu_pages *pcp)
{
	while (list_empty(&pcp->lists[pcp->drain_next]))
		pcp->drain_next = (pcp->drain_next + 1) % NR_PCP_LISTS;
	return pcp->drain_next;
}

/*
 * Move at least @nr pages (or all it has) from the pcp to the buddy lists,
 * coldest first, taking the lists in turn.  Caller holds pcp->lock.
 */
static void free_pcppages_bulk(struct per_cpu_pages *pcp, int nr)
{
	unsigned int order;
	struct page *page;

	spin_lock(&zone.lock);
	zone_clock_update();
	while (nr > 0 && pcp->count > 0) {
		order = pcp_next_list(pcp);
		page = list_last_entry(&pcp->lists[order], struct page, lru);
		list_del(&page->lru);
		pcp->count -= 1 << order;
		nr -= 1 << order;
		pcp->drain_next = (order + 1) % NR_PCP_LISTS;
		__free_one_page(page, page_to_pfn(page), order);
	}
	spin_unlock(&zone.lock);
}

/* Take up to @count blocks of @order from the buddy lists onto @list. */
static int rmqueue_bulk(unsigned int order, int count, struct list_head *list)
{
	struct page *page;
	int i;

	spin_lock(&zone.lock);
	for (i = 0; i < count; i++) {
		page = __rmqueue(order);
		if (!page)
			break;
		page->private = order;
		list_add_tail(&page->lru, list);
	}
	spin_unlock(&zone.lock);
	return i;
}

static noinline bool pcp_refill(struct per_cpu_pages *pcp, unsigned int order)
{
	int batch = order ? max(pcp->batch >> order, 2) : pcp->batch;
	int n = rmqueue_bulk(order, batch, &pcp->lists[order]);

	pcp->count += n << order;
	return n > 0;
}

/* Fast path budget: one uncontended lock pair, one list unlink. */
static __always_inline struct page *rmqueue_pcplist(struct per_cpu_pages *pcp,
						   unsigned int order)
{
	struct list_head *list = &pcp->lists[order];
	struct page *page = NULL;

	spin_lock(&pcp->lock);
	if (likely(!list_empty(list)) || pcp_refill(pcp, order)) {
		page = list_first_entry(list, struct page, lru);
		list_del(&page->lru);
		pcp->count -= 1 << order;
		pcp->nr_allocated += 1L << order;
	}
	spin_unlock(&pcp->lock);
	return page;
}

/* Fast path budget: one uncontended lock pair, one list insert. */
static __always_inline void free_unref_page(struct per_cpu_pages *pcp, struct page *page,
					    unsigned int order)
{
	bool drained = false;

	spin_lock(&pcp->lock);
	page->private = order;
	list_add(&page->lru, &pcp->lists[order]);
	pcp->count += 1 << order;
	pcp->nr_allocated -= 1L << order;
	if (unlikely(pcp->count >= pcp->high)) {
		free_pcppages_bulk(pcp, pcp->batch);
		drained = true;
	}
	spin_unlock(&pcp->lock);
	if (unlikely(drained))
		page_reporting_notify();
}

static void drain_pcp(struct per_cpu_pages *pcp)
{
	spin_lock(&pcp->lock);
	free_pcppages_bulk(pcp, pcp->count);
	spin_unlock(&pcp->lock);
}

/**
 * drain_local_pages - give the calling thread's pcp lists to the buddy lists.
 */
void drain_local_pages(void)
{
	struct per_cpu_pages *pcp;

	mm_ensure_init();
	pcp = this_pcp();
	if (pcp)
		drain_pcp(pcp);
}

/**
 * drain_all_pages - give every CPU's pcp lists to the buddy lists.
 *
 * Takes each pcp's lock in turn; a CPU may refill its lists right after.
 */
void drain_all_pages(void)
{
	unsigned int cpu, nr = smp_load_acquire(&nr_cpu_ids);
	struct per_cpu_pages *pcp;

	for (cpu = 0; cpu < nr; cpu++) {
		pcp = pcp_of(cpu);
		if (pcp)
			drain_pcp(pcp);
	}
}

/* CPUHP_PAGE_ALLOC_DEAD: the thread that owned @cpu is exiting. */
static void page_alloc_cpu_dead(unsigned int cpu)
{
	struct per_cpu_pages *pcp = pcp_of(cpu);

	if (!pcp)
		return;
	drain_pcp(pcp);
	page_reporting_notify();
}

/* ---- allocation ---- */

static void clear_pages(struct page *page, unsigned int order)
{
	memset(page_address(page), 0, PAGE_SIZE << order);
}

static void prep_compound_tail(struct page *head, struct page *tail)
{
	tail->mapping = TAIL_MAPPING;
	WRITE_ONCE(tail->compound_head, (unsigned long)head + 1);
}

static void prep_compound_page(struct page *page, unsigned int order)
{
	unsigned long i, nr = 1UL << order;

	__SetPageHead(page);
	for (i = 1; i < nr; i++)
		prep_compound_tail(page, page + i);
	/* after the tails: compound_nr overlays the first tail's mapping */
	page[1].compound_dtor = COMPOUND_PAGE_DTOR;
	page[1].compound_order = (unsigned char)order;
	atomic_set(&page[1].compound_mapcount, -1);
	page[1].compound_nr = (unsigned int)nr;
	if (order > 1)
		atomic_set(&page[2].hpage_pinned_refcount, 0);
}

/* memcheck (§7): the block handed out is the owner's, zero or undefined. */
static noinline void prep_new_page_memcheck(struct page *page, unsigned int order, gfp_t gfp,
					    bool zeroed)
{
	if (zeroed || (gfp & __GFP_ZERO))	/* why: clear_pages follows */
		memcheck_defined(page_address(page), PAGE_SIZE << order);
	else
		memcheck_undefined(page_address(page), PAGE_SIZE << order);
}

static __always_inline void prep_new_page(struct page *page, unsigned int order, gfp_t gfp)
{
	bool zeroed = PageZeroed(page);

	if (unlikely(memcheck_active()))
		prep_new_page_memcheck(page, order, gfp, zeroed);
	set_free_state(page, 0);
	page->private = 0;
	atomic_set(&page->_refcount, 1);
	if (unlikely(gfp & __GFP_ZERO) && !zeroed)
		clear_pages(page, order);
	if ((gfp & __GFP_COMP) && order)
		prep_compound_page(page, order);
}

static noinline __cold void show_free_areas(void)
{
	unsigned long nr_free[MAX_ORDER_LIMIT], total = 0, online;
	char buf[512];
	unsigned int o, n = 0;

	spin_lock(&zone.lock);
	for (o = 0; o < MAX_ORDER; o++)
		nr_free[o] = zone.free_area[o].nr_free;
	online = zone.managed_pages;
	spin_unlock(&zone.lock);
	n += snprintf(buf + n, sizeof(buf) - n, "Node 0 %s:", zone.name);
	for (o = 0; o < MAX_ORDER && n < sizeof(buf); o++) {
		n += snprintf(buf + n, sizeof(buf) - n, " %lu*%lukB", nr_free[o], (PAGE_SIZE << o) >> 10);
		total += nr_free[o] << o;
	}
	if (n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - n, " = %lukB of %lukB online\n",
			 total * (PAGE_SIZE >> 10), online * (PAGE_SIZE >> 10));
	report("%s", buf);
}

static noinline __cold void warn_alloc(gfp_t gfp, unsigned int order, const char *why)
{
	if (gfp & __GFP_NOWARN)
		return;
	report("uslab: page allocation failure: order:%u, mode:0x%x, nodemask=(null)%s%s\n",
	       order, gfp, why ? ": " : "", why ? why : "");
	show_free_areas();
}

/*
 * The arena is exhausted or the OS refused memory: get back every page the
 * CPUs hold and try once more, straight from the buddy lists.
 */
static noinline __cold struct page *__alloc_pages_slow(gfp_t gfp, unsigned int order)
{
	struct page *page;

	drain_all_pages();
	page = rmqueue_buddy(order);
	if (!page)
		warn_alloc(gfp, order, NULL);
	return page;
}

/*
 * Allocation call tree
 *   alloc_pages, alloc_pages_node, __alloc_pages_node, folio_alloc,
 *   __get_free_pages, get_zeroed_page
 *     __alloc_pages
 *       rmqueue_pcplist     order <= 3 with a CPU (pcp->lock)
 *         pcp_refill        list empty: rmqueue_bulk (zone.lock) -> __rmqueue
 *       rmqueue_buddy       larger orders, or no CPU (zone.lock) -> __rmqueue
 *         __rmqueue         __rmqueue_smallest + expand; zone_grow on a miss
 *       __alloc_pages_slow  drain_all_pages, retry, warn_alloc, NULL
 *       prep_new_page       refcount 1, __GFP_ZERO, __GFP_COMP layout
 */
static __always_inline struct page *__alloc_pages(gfp_t gfp, unsigned int order)
{
	struct per_cpu_pages *pcp;
	struct page *page;

	mm_ensure_init();
	if (unlikely(order >= MAX_ORDER)) {
		warn_alloc(gfp, order, memmap.max_pfn ? "order >= MAX_ORDER" : "no arena");
		return NULL;
	}
	if (likely(order <= PAGE_ALLOC_COSTLY_ORDER) && likely(pcp = this_pcp()))
		page = rmqueue_pcplist(pcp, order);
	else
		page = rmqueue_buddy(order);
	if (unlikely(!page))
		page = __alloc_pages_slow(gfp, order);
	if (likely(page))
		prep_new_page(page, order, gfp);
	return page;
}

/* Bit o set: this CPU's list of order o (lo .. hi, at most the costly
 * order) holds a block. */
static unsigned long pcp_orders_held(unsigned int lo, unsigned int hi)
{
	struct per_cpu_pages *pcp = this_pcp();
	unsigned long held = 0;
	unsigned int o;

	if (!pcp)
		return 0;
	spin_lock(&pcp->lock);
	for (o = lo; o <= min(hi, (unsigned int)PAGE_ALLOC_COSTLY_ORDER); o++)
		if (!list_empty(&pcp->lists[o]))
			held |= BIT(o);
	spin_unlock(&pcp->lock);
	return held;
}

/*
 * page_alloc_resident_order - the order, from @lo up to @hi, of a block a
 * caller that prefers @hi but can use any order down to @lo (SLUB's slab
 * order fallback) should ask for so as not to grow the process: @hi if a
 * block of @hi or more holds memory already (a buddy list's unreported
 * head, or this CPU's list of @hi), else the largest smaller order that
 * has one, else @hi.  Only when at least RESIDENT_REUSE_FLOOR pages sit
 * resident in the buddy lists: fewer are not worth smaller slabs.  A hint:
 * another CPU may take the block before the caller's alloc_pages.
 * why: a class that changed order, or a phase that frees small slabs and
 * then wants big ones, leaves free pages the process holds in blocks too
 * small for the order it asks next; taking fresh ones instead (the kernel
 * does, it has no RSS to mind) grew bench/batch's second round of 100k
 * objects by 5.8 MiB of such pages.
 */
unsigned int page_alloc_resident_order(unsigned int lo, unsigned int hi)
{
	unsigned int o, best = hi;
	unsigned long held;

	if (lo >= hi || hi >= MAX_ORDER || READ_ONCE(zone.nr_resident) < RESIDENT_REUSE_FLOOR)
		return hi;
	held = pcp_orders_held(lo, hi);
	if (held & BIT(hi))
		return hi;
	spin_lock(&zone.lock);
	for (o = hi; o < MAX_ORDER && !resident_head(o); o++)
		;
	if (o == MAX_ORDER) {
		for (o = hi; o-- > lo;) {
			if (resident_head(o) || (held & BIT(o))) {
				best = o;
				break;
			}
		}
	}
	spin_unlock(&zone.lock);
	return best;
}

/**
 * alloc_pages - allocate a block of 2^@order pages.
 * @gfp: GFP flags; __GFP_ZERO clears it, __GFP_COMP makes it a compound page,
 *       __GFP_NOWARN silences the failure warning.  Zone modifiers
 *       (__GFP_DMA, __GFP_DMA32, __GFP_HIGHMEM) are accepted and ignored:
 *       there is one zone.
 * @order: 0 .. MAX_ORDER-1.
 *
 * Returns the head page with refcount 1, or NULL (with a warning on stderr
 * unless __GFP_NOWARN) when no block is free after every CPU's lists were
 * drained and no further section can be brought online.
 */
struct page *alloc_pages(gfp_t gfp, unsigned int order)
{
	return __alloc_pages(gfp, order);
}
EXPORT_SYMBOL(alloc_pages);

/**
 * __alloc_pages_node - allocate from node @nid (0 .. MAX_NUMNODES-1).
 *
 * Only node 0 has memory: other nodes fall back to it, unless
 * __GFP_THISNODE forbids it, in which case the allocation fails.
 */
struct page *__alloc_pages_node(int nid, gfp_t gfp, unsigned int order)
{
	if (unlikely(nid < 0 || nid >= MAX_NUMNODES)) {
		report("uslab: __alloc_pages_node: invalid node %d\n", nid);
		return NULL;
	}
	if (unlikely(nid != 0 && (gfp & __GFP_THISNODE))) {
		warn_alloc(gfp, order, "node has no memory");
		return NULL;
	}
	return __alloc_pages(gfp, order);
}
EXPORT_SYMBOL(__alloc_pages_node);

/**
 * alloc_pages_node - as __alloc_pages_node, NUMA_NO_NODE meaning "this node".
 */
struct page *alloc_pages_node(int nid, gfp_t gfp, unsigned int order)
{
	if (nid == NUMA_NO_NODE)
		nid = 0;
	return __alloc_pages_node(nid, gfp, order);
}
EXPORT_SYMBOL(alloc_pages_node);

/**
 * folio_alloc - allocate a folio (a compound block) of 2^@order pages.
 */
struct folio *folio_alloc(gfp_t gfp, unsigned int order)
{
	return (struct folio *)__alloc_pages(gfp | __GFP_COMP, order);
}
EXPORT_SYMBOL(folio_alloc);

/**
 * __get_free_pages - allocate 2^@order pages and return their address, or 0.
 */
unsigned long __get_free_pages(gfp_t gfp, unsigned int order)
{
	struct page *page = __alloc_pages(gfp & ~__GFP_HIGHMEM, order);

	return page ? (unsigned long)page_address(page) : 0;
}
EXPORT_SYMBOL(__get_free_pages);

/**
 * get_zeroed_page - allocate one zeroed page and return its address, or 0.
 */
unsigned long get_zeroed_page(gfp_t gfp)
{
	return __get_free_pages(gfp | __GFP_ZERO, 0);
}
EXPORT_SYMBOL(get_zeroed_page);

/* ---- freeing ---- */

static void free_tail_prepare(struct page *head, struct page *tail, unsigned long i)
{
	if (unlikely(READ_ONCE(tail->compound_head) != (unsigned long)head + 1))
		bad_page(tail, "corrupted compound_head");
	if (unlikely(i == 1 && atomic_read(&tail->compound_mapcount) != -1))
		bad_page(tail, "nonzero compound_mapcount");
	if (unlikely(i > 1 && tail->mapping != TAIL_MAPPING))
		bad_page(tail, "corrupted mapping in tail page");
	if (unlikely(atomic_read(&tail->_refcount)))
		bad_page(tail, "nonzero _refcount in tail page");
	WRITE_ONCE(tail->compound_head, 0);
	tail->mapping = NULL;
}

static noinline void free_compound_prepare(struct page *head, unsigned int order)
{
	unsigned long i, nr = 1UL << order;

	if (unlikely(!order || head[1].compound_order != order))
		bad_page(head, "compound page freed with the wrong order");
	for (i = 1; i < nr; i++)
		free_tail_prepare(head, head + i, i);
	head[1].compound_dtor = 0;
	head[1].compound_order = 0;
	atomic_set(&head[1].compound_mapcount, 0);
}

static noinline __cold void bad_free(struct page *page, unsigned int order)
{
	if (order >= MAX_ORDER)
		bad_page(page, "freed with an invalid order");
	if (READ_ONCE(page->flags) & PAGE_FLAGS_CHECK_AT_FREE)
		bad_page(page, "PAGE_FLAGS_CHECK_AT_FREE flag(s) set");
	if (page->mapping)
		bad_page(page, "non-NULL mapping");
	if (page->memcg_data)
		bad_page(page, "page still charged to cgroup");
	bad_page(page, "nonzero mapcount");
}

/* Check a block that is about to be freed and reset it to "free". */
static __always_inline void free_pages_prepare(struct page *page, unsigned int order)
{
	if (unlikely(order >= MAX_ORDER ||
		     (READ_ONCE(page->flags) & PAGE_FLAGS_CHECK_AT_FREE) ||
		     page->mapping || page->memcg_data ||
		     atomic_read(&page->_mapcount) != -1))
		bad_free(page, order);
	if (PageHead(page))
		free_compound_prepare(page, order);
	/* keep only the node: PG_head, PG_large_kmalloc, owners' bits go */
	WRITE_ONCE(page->flags, READ_ONCE(page->flags) & (~0UL << NODES_PGSHIFT));
	if (unlikely(memcheck_active()))	/* §7: a use after free is seen */
		memcheck_noaccess(page_address(page), PAGE_SIZE << order);
}

/*
 * The at-once rule: give a large block back before it joins the lists (no
 * lock held), marked so that the lists know it reads as zeros, and raise
 * the rule's order past it.  why raise: a block of that size freed again
 * soon is likely to be taken again soon; a discard each time would cost a
 * system call and its page faults per round (glibc raises its mmap
 * threshold to a freed chunk's size for the same reason).
 */
static void free_block_at_once(struct page *page, unsigned int order)
{
	if (!page_reporting_auto || order < READ_ONCE(page_reporting_at_once))
		return;
	WRITE_ONCE(page_reporting_at_once, order + 1);
	if (os_discard(page_address(page), PAGE_SIZE << order))
		set_free_state(page, PAGE_FREE_STATE);
}

static void free_one_page(struct page *page, unsigned int order)
{
	free_block_at_once(page, order);
	spin_lock(&zone.lock);
	zone_clock_update();
	zone.nr_allocated -= 1L << order;
	__free_one_page(page, page_to_pfn(page), order);
	spin_unlock(&zone.lock);
	page_reporting_notify();
}

static __always_inline void free_the_page(struct page *page, unsigned int order)
{
	struct per_cpu_pages *pcp;

	free_pages_prepare(page, order);
	if (likely(order <= PAGE_ALLOC_COSTLY_ORDER) && likely(pcp = this_pcp()))
		free_unref_page(pcp, page, order);
	else
		free_one_page(page, order);
}

/* Drop a reference; true if it was the last.  A drop below zero is a bug. */
static __always_inline bool put_page_testzero(struct page *page)
{
	int ref = atomic_sub_return(1, &page->_refcount);

	if (unlikely(ref < 0))
		bad_page(page, "freeing a page that is already free (refcount underflow)");
	return ref == 0;
}

static __always_inline void check_page_arg(const char *fn, struct page *page)
{
	if (unlikely(!page_ptr_valid(page)))
		bad_page_ptr(fn, page);
	if (unlikely(PageTail(page)))
		bad_page(page, "a tail page passed where a head page was expected");
}

/**
 * __free_pages - drop a reference to a block of 2^@order pages.
 *
 * At zero the block is freed.  If it is still referenced and is not a
 * compound page, its other sub-blocks are freed now and the first page
 * stays until its last put_page() (the kernel's semantics).
 */
void __free_pages(struct page *page, unsigned int order)
{
	mm_ensure_init();
	check_page_arg("__free_pages", page);
	if (put_page_testzero(page))
		free_the_page(page, order);
	else if (!PageHead(page))
		while (order-- > 0)
			free_the_page(page + (1UL << order), order);
}
EXPORT_SYMBOL(__free_pages);

/**
 * free_pages - __free_pages() by address; 0 is ignored.
 */
void free_pages(unsigned long addr, unsigned int order)
{
	mm_ensure_init();
	if (!addr)
		return;
	if (unlikely(!IS_ALIGNED(addr, PAGE_SIZE) || !virt_addr_valid((void *)addr)))
		bad_page_ptr("free_pages", (void *)addr);
	__free_pages(virt_to_page((void *)addr), order);
}
EXPORT_SYMBOL(free_pages);

/**
 * folio_put - drop a reference to a folio; free it at zero.
 */
void folio_put(struct folio *folio)
{
	mm_ensure_init();
	check_page_arg("folio_put", &folio->page);
	if (put_page_testzero(&folio->page))
		free_the_page(&folio->page, folio_order(folio));
}
EXPORT_SYMBOL(folio_put);

/**
 * put_page - drop a reference to the folio containing @page.
 *
 * A non-compound block of order > 0 is freed as its first page only: free
 * such blocks with __free_pages() and their order.
 */
void put_page(struct page *page)
{
	mm_ensure_init();
	if (unlikely(!page_ptr_valid(page)))
		bad_page_ptr("put_page", page);
	folio_put(page_folio(page));
}
EXPORT_SYMBOL(put_page);

/**
 * get_page - take a reference to the folio containing @page.
 */
void get_page(struct page *page)
{
	struct folio *folio;

	mm_ensure_init();
	if (unlikely(!page_ptr_valid(page)))
		bad_page_ptr("get_page", page);
	folio = page_folio(page);
	if (unlikely(atomic_add_return(1, &folio->_refcount) <= 1))
		bad_page(&folio->page, "get_page on a free page");
}
EXPORT_SYMBOL(get_page);

/* ---- giving memory back to the OS ---- */

/*
 * Take one order's coldest unreported blocks off its list, into @batch:
 * those freed at @freed_by or earlier (ULONG_MAX: any).  why stop at the
 * first younger one: unreported blocks enter at the head, so from the tail
 * they come oldest first (split halves, which keep their block's time,
 * may break the order a little: they wait for the next round).
 */
static unsigned int isolate_order(unsigned int order, struct page **batch, unsigned int n,
				  unsigned long target, unsigned long freed_by)
{
	struct list_head *head = &zone.free_area[order].free_list;
	struct list_head *pos = head->prev;
	struct page *page;

	while (pos != head && n < PAGE_REPORTING_CAPACITY && zone.nr_unreported > target) {
		page = list_entry(pos, struct page, lru);
		pos = pos->prev;
		if (PageReported(page))
			continue;
		if (page->index > freed_by) {
			if (PageMixed(page))	/* tail-side, but as young as any */
				continue;
			break;
		}
		del_page_from_free_list(page, order);
		page->private = order;
		zone.nr_isolated += 1UL << order;
		batch[n++] = page;
	}
	return n;
}

/* Largest orders first: fewest system calls per byte. */
static unsigned int page_reporting_isolate(struct page **batch, unsigned long target,
					   unsigned long freed_by)
{
	unsigned int order, n = 0;

	spin_lock(&zone.lock);
	for (order = MAX_ORDER; order-- > page_reporting_order;)
		n = isolate_order(order, batch, n, target, freed_by);
	spin_unlock(&zone.lock);
	return n;
}

static void page_reporting_putback(struct page **batch, const bool *discarded, unsigned int n)
{
	unsigned int i, order;

	spin_lock(&zone.lock);
	for (i = 0; i < n; i++) {
		order = (unsigned int)batch[i]->private;
		zone.nr_isolated -= 1UL << order;
		if (discarded[i])
			set_free_state(batch[i], PAGE_FREE_STATE);
		__free_one_page(batch[i], page_to_pfn(batch[i]), order);
	}
	spin_unlock(&zone.lock);
}

/* One round: isolate, discard without the lock, put back.  False: stop. */
static bool page_reporting_round(unsigned long target, unsigned long freed_by)
{
	struct page *batch[PAGE_REPORTING_CAPACITY];
	bool discarded[PAGE_REPORTING_CAPACITY], all = true;
	unsigned int i, n = page_reporting_isolate(batch, target, freed_by);

	for (i = 0; i < n; i++) {
		discarded[i] = os_discard(page_address(batch[i]), PAGE_SIZE << batch[i]->private);
		all &= discarded[i];
	}
	page_reporting_putback(batch, discarded, n);
	return n && all;
}

/*
 * Report blocks freed at @freed_by or earlier (ULONG_MAX: any) until no
 * more than @target pages are unreported.  A block put back may merge with
 * a buddy freed meanwhile and count as unreported again, so the rounds are
 * bounded by what there was to do at the start.
 */
static void page_reporting_process(unsigned long target, unsigned long freed_by)
{
	unsigned long rounds = 2 + 2 * (READ_ONCE(zone.nr_unreported) >> page_reporting_order) /
			       PAGE_REPORTING_CAPACITY;

	while (rounds-- && page_reporting_round(target, freed_by))
		;
}

/*
 * The idle rule: report the blocks free for PAGE_REPORTING_IDLE_MS or
 * longer, if enough is unreported; at most one round every half delay, so
 * that a workload above the floor pays one clock read per check.
 */
static void page_reporting_idle_check(void)
{
	unsigned long now;

	if (!page_reporting_auto || READ_ONCE(zone.nr_unreported) <= PAGE_REPORTING_IDLE_FLOOR)
		return;
	now = reporting_clock();
	if (now < PAGE_REPORTING_IDLE_MS || now < READ_ONCE(zone.idle_next_ms) ||
	    !mutex_trylock(&reporting_lock))
		return;
	WRITE_ONCE(zone.idle_next_ms, now + PAGE_REPORTING_IDLE_MS / 2);
	page_reporting_process(PAGE_REPORTING_IDLE_FLOOR / 2, now - PAGE_REPORTING_IDLE_MS);
	mutex_unlock(&reporting_lock);
}

/* Called where the buddy lists may have grown, with no lock held. */
static void page_reporting_notify(void)
{
	page_reporting_idle_check();
	if (likely(READ_ONCE(zone.nr_unreported) <= reporting_high))
		return;
	/* why trylock: a second freer need not wait; the running report sees its block */
	if (!mutex_trylock(&reporting_lock))
		return;
	page_reporting_process(reporting_low, ULONG_MAX);
	mutex_unlock(&reporting_lock);
}

/**
 * page_reporting_flush - give every free block of order >= the reporting
 * order back to the OS now (after draining every CPU's lists).
 */
void page_reporting_flush(void)
{
	mm_ensure_init();
	drain_all_pages();
	mutex_lock(&reporting_lock);
	page_reporting_process(0, ULONG_MAX);
	mutex_unlock(&reporting_lock);
}

/* ---- statistics ---- */

/**
 * nr_free_pages - pages free in the buddy lists and on the CPUs' lists.
 */
unsigned long nr_free_pages(void)
{
	unsigned int o, cpu, nr = smp_load_acquire(&nr_cpu_ids);
	unsigned long free = 0;
	struct per_cpu_pages *pcp;

	mm_ensure_init();
	spin_lock(&zone.lock);
	for (o = 0; o < MAX_ORDER; o++)
		free += zone.free_area[o].nr_free << o;
	spin_unlock(&zone.lock);
	for (cpu = 0; cpu < nr; cpu++) {
		pcp = pcp_of(cpu);
		if (!pcp)
			continue;
		spin_lock(&pcp->lock);
		free += pcp->count;
		spin_unlock(&pcp->lock);
	}
	return free;
}

/**
 * nr_reported_pages - pages of free buddy blocks whose memory the OS has
 * (given back, or never touched: the blocks of a new section).
 */
unsigned long nr_reported_pages(void)
{
	unsigned long nr;

	mm_ensure_init();
	spin_lock(&zone.lock);
	nr = zone.nr_reported;
	spin_unlock(&zone.lock);
	return nr;
}

/**
 * show_buddyinfo - print free blocks per order in /proc/buddyinfo's format.
 */
void show_buddyinfo(FILE *f)
{
	unsigned long nr_free[MAX_ORDER_LIMIT];
	unsigned int o, max_order;

	mm_ensure_init();
	max_order = MAX_ORDER;
	spin_lock(&zone.lock);
	for (o = 0; o < max_order; o++)
		nr_free[o] = zone.free_area[o].nr_free;
	spin_unlock(&zone.lock);
	/* stdio only after the lock is dropped: it may allocate */
	fprintf(f, "Node %d, zone %8s ", 0, zone.name);
	for (o = 0; o < max_order; o++)
		fprintf(f, "%6lu ", nr_free[o]);
	fputc('\n', f);
}
EXPORT_SYMBOL(show_buddyinfo);

/* ---- invariant checking ---- */

struct check_ctx {
	unsigned long *free_map;	/* a bit per online page: in a free block (or NULL) */
	unsigned long *head_map;	/* a bit per online page: heads a free block */
	size_t map_bytes;		/* bytes mapped for each bitmap */
	unsigned long online;		/* pages online */
	unsigned long free;		/* pages seen free */
	unsigned long reported;		/* pages seen in reported buddy blocks */
	unsigned long unreported;	/* pages seen in unreported blocks >= reporting order */
	unsigned long resident;		/* pages seen in unreported buddy blocks */
	unsigned int errors;		/* problems found */
};

static void check_fail(struct check_ctx *c, const char *fmt, ...) __printf(2, 3);
static void check_fail(struct check_ctx *c, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	if (c->errors++ >= 32)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	report("uslab: page allocator invariant broken: %s\n", buf);
}

static bool check_test_and_set(unsigned long *map, unsigned long bit)
{
	unsigned long mask = BIT(bit % 64), *w = &map[bit / 64];
	bool was = *w & mask;

	*w |= mask;
	return was;
}

/* A free block must lie in online memory and overlap no other free block. */
static void check_block(struct check_ctx *c, const struct page *page, unsigned int order,
			const char *where)
{
	unsigned long pfn = page_to_pfn(page), i;

	if (pfn >= c->online || (pfn & ((1UL << order) - 1)) ||
	    pfn + (1UL << order) > c->online) {
		check_fail(c, "%s block pfn %#lx order %u misaligned or outside online memory",
			   where, pfn, order);
		return;
	}
	c->free += 1UL << order;
	if (!c->free_map)
		return;
	check_test_and_set(c->head_map, pfn);
	for (i = 0; i < (1UL << order); i++)
		if (check_test_and_set(c->free_map, pfn + i)) {
			check_fail(c, "%s block pfn %#lx order %u overlaps another free block",
				   where, pfn, order);
			return;
		}
}

static void check_buddy_block(struct check_ctx *c, const struct page *page, unsigned int order)
{
	unsigned long pfn = page_to_pfn(page);

	if (!page_is_buddy(page, order))
		check_fail(c, "free block pfn %#lx on the order-%u list is not PageBuddy of that order",
			   pfn, order);
	if (atomic_read(&page->_refcount))
		check_fail(c, "free block pfn %#lx has refcount %d", pfn, atomic_read(&page->_refcount));
	if (order < MAX_ORDER - 1 && pfn < c->online &&
	    page_is_buddy(pfn_to_page(pfn ^ (1UL << order)), order))
		check_fail(c, "free buddies pfn %#lx and %#lx of order %u did not merge",
			   pfn, pfn ^ (1UL << order), order);
	if (PageReported(page)) {
		c->reported += 1UL << order;
	} else {
		if (!PageMixed(page))
			c->resident += 1UL << order;
		if (order >= page_reporting_order)
			c->unreported += 1UL << order;
	}
	check_block(c, page, order, "buddy");
}

/* Walk a list at most @limit steps; returns its length or -1 if broken. */
static long check_list(struct check_ctx *c, const struct list_head *head, unsigned long limit,
		       const char *what, unsigned int order)
{
	const struct list_head *pos;
	long n = 0;

	for (pos = head->next; pos != head; pos = pos->next, n++)
		if ((unsigned long)n > limit || pos->next->prev != pos) {
			check_fail(c, "%s list of order %u is corrupt", what, order);
			return -1;
		}
	return n;
}

static void check_free_area(struct check_ctx *c, unsigned int order)
{
	struct free_area *area = &zone.free_area[order];
	struct list_head *pos;
	long n = check_list(c, &area->free_list, c->online, "buddy", order);

	if (n < 0)
		return;
	if ((unsigned long)n != area->nr_free)
		check_fail(c, "free_area[%u].nr_free is %lu but its list holds %ld blocks",
			   order, area->nr_free, n);
	/* why not list_for_each_entry: it forms a struct page pointer from the
	 * list head, which UBSan rightly calls misaligned */
	list_for_each(pos, &area->free_list)
		check_buddy_block(c, list_entry(pos, struct page, lru), order);
}

static void check_pcp(struct check_ctx *c, struct per_cpu_pages *pcp, unsigned int cpu)
{
	unsigned long pages = 0;
	struct list_head *pos;
	struct page *page;
	unsigned int o;

	for (o = 0; o < NR_PCP_LISTS; o++) {
		if (check_list(c, &pcp->lists[o], c->online, "pcp", o) < 0)
			continue;
		list_for_each(pos, &pcp->lists[o]) {
			page = list_entry(pos, struct page, lru);
			if (page_type_is_buddy(page) || page->private != o ||
			    atomic_read(&page->_refcount))
				check_fail(c, "cpu %u pcp block pfn %#lx (order %u) is not a clean pcp block",
					   cpu, page_to_pfn(page), o);
			check_block(c, page, o, "pcp");
			pages += 1UL << o;
		}
	}
	if (pages != (unsigned long)pcp->count)
		check_fail(c, "cpu %u pcp count is %d but its lists hold %lu pages",
			   cpu, pcp->count, pages);
}

/* No page but a listed free block's head may be PageBuddy. */
static void check_stray_buddies(struct check_ctx *c)
{
	unsigned long pfn;

	if (!c->head_map)
		return;
	for (pfn = 0; pfn < c->online; pfn++)
		if (page_type_is_buddy(pfn_to_page(pfn)) &&
		    !(c->head_map[pfn / 64] & BIT(pfn % 64)))
			check_fail(c, "pfn %#lx is PageBuddy but on no free list", pfn);
}

static void check_totals(struct check_ctx *c, long allocated)
{
	if (c->free + (unsigned long)allocated + zone.nr_isolated != c->online)
		check_fail(c, "free %lu + allocated %ld + isolated %lu pages != %lu online",
			   c->free, allocated, zone.nr_isolated, c->online);
	if (c->reported != zone.nr_reported)
		check_fail(c, "nr_reported is %lu, the lists hold %lu", zone.nr_reported, c->reported);
	if (c->unreported != zone.nr_unreported)
		check_fail(c, "nr_unreported is %lu, the lists hold %lu",
			   zone.nr_unreported, c->unreported);
	if (c->resident != zone.nr_resident)
		check_fail(c, "nr_resident is %lu, the lists hold %lu", zone.nr_resident, c->resident);
}

static void check_map_bitmaps(struct check_ctx *c)
{
	c->map_bytes = PAGE_ALIGN(DIV_ROUND_UP(c->online, 64) * sizeof(unsigned long));
	if (!c->map_bytes)
		return;
	c->free_map = os_map(2 * c->map_bytes);
	if (!c->free_map) {
		report("uslab: invariant check without overlap detection: cannot map bitmaps\n");
		return;
	}
	c->head_map = (unsigned long *)((char *)c->free_map + c->map_bytes);
}

/* Caller holds every ready pcp's lock (CPUs 0 .. @nr-1) and zone.lock. */
static void check_all(struct check_ctx *c, unsigned int nr)
{
	struct per_cpu_pages *pcp;
	long allocated = zone.nr_allocated;
	unsigned int o, cpu;

	c->online = zone.managed_pages;
	check_map_bitmaps(c);
	for (o = 0; o < MAX_ORDER; o++)
		check_free_area(c, o);
	for (cpu = 0; cpu < nr; cpu++) {
		pcp = pcp_of(cpu);
		if (!pcp)
			continue;
		check_pcp(c, pcp, cpu);
		allocated += pcp->nr_allocated;
	}
	check_stray_buddies(c);
	check_totals(c, allocated);
	if (c->free_map)
		os_unmap(c->free_map, 2 * c->map_bytes);
}

static void pcp_lock_all(unsigned int nr, bool lock)
{
	struct per_cpu_pages *pcp;
	unsigned int cpu;

	for (cpu = 0; cpu < nr; cpu++) {
		pcp = pcp_of(cpu);
		if (pcp && lock)
			spin_lock(&pcp->lock);
		else if (pcp)
			spin_unlock(&pcp->lock);
	}
}

/**
 * page_alloc_check_invariants - check every invariant of section 5 above.
 *
 * Drains every CPU's lists first, then holds reporting_lock, pcp_setup_lock,
 * every pcp lock and zone.lock while it looks, so the picture is exact even
 * with other threads running.  Returns 0; on a failure prints each problem
 * and aborts.
 */
int page_alloc_check_invariants(void)
{
	struct check_ctx c = { 0 };
	unsigned int nr;

	mm_ensure_init();
	drain_all_pages();
	mutex_lock(&reporting_lock);
	mutex_lock(&pcp_setup_lock);
	nr = smp_load_acquire(&nr_cpu_ids);
	pcp_lock_all(nr, true);
	spin_lock(&zone.lock);
	check_all(&c, nr);
	spin_unlock(&zone.lock);
	pcp_lock_all(nr, false);
	mutex_unlock(&pcp_setup_lock);
	mutex_unlock(&reporting_lock);
	if (c.errors) {
		report("uslab: %u page allocator invariant(s) broken\n", c.errors);
		abort();
	}
	return 0;
}

/* ---- a still picture of the free lists (memmap_picture.c) ---- */

static void walk_list(const struct page_walk_ops *ops, void *arg, struct list_head *list,
		      unsigned int order, bool on_pcp)
{
	struct list_head *pos;

	list_for_each(pos, list)
		ops->free_block(arg, list_entry(pos, struct page, lru), order, on_pcp);
}

/* Show every free block; returns the pages free.  Caller holds what
 * page_alloc_walk() takes. */
static unsigned long walk_free_blocks(const struct page_walk_ops *ops, void *arg,
				      unsigned int nr)
{
	struct per_cpu_pages *pcp;
	unsigned long free = 0;
	unsigned int o, cpu;

	for (o = 0; o < MAX_ORDER; o++) {
		walk_list(ops, arg, &zone.free_area[o].free_list, o, false);
		free += zone.free_area[o].nr_free << o;
	}
	for (cpu = 0; cpu < nr; cpu++) {
		pcp = pcp_of(cpu);
		if (!pcp)
			continue;
		for (o = 0; o < NR_PCP_LISTS; o++)
			walk_list(ops, arg, &pcp->lists[o], o, true);
		free += (unsigned long)pcp->count;
	}
	return free;
}

/**
 * page_alloc_walk - show every free block to @ops while no page can move.
 * @ops: free_block() is called once per free block, on the buddy lists
 *       (on_pcp false) and on every CPU's lists (on_pcp true); then
 *       locked(), once, with the pages online and the pages free (what
 *       nr_free_pages() would say at this instant).  Until locked()
 *       returns no page is allocated or freed, so every online page
 *       outside the blocks shown is allocated.
 * @arg: passed to both.
 *
 * Takes the locks page_alloc_check_invariants() takes, in the order of
 * section 4 (reporting_lock too, so no block is off the lists being
 * reported), but drains nothing.  The callbacks run under zone.lock: they
 * must not allocate, take a lock or call into uslab.
 */
void page_alloc_walk(const struct page_walk_ops *ops, void *arg)
{
	unsigned long free;
	unsigned int nr;

	mm_ensure_init();
	mutex_lock(&reporting_lock);
	mutex_lock(&pcp_setup_lock);
	nr = smp_load_acquire(&nr_cpu_ids);
	pcp_lock_all(nr, true);
	spin_lock(&zone.lock);
	free = walk_free_blocks(ops, arg, nr);
	ops->locked(arg, zone.managed_pages, free);
	spin_unlock(&zone.lock);
	pcp_lock_all(nr, false);
	mutex_unlock(&pcp_setup_lock);
	mutex_unlock(&reporting_lock);
}

/* ---- fork ---- */

static unsigned int fork_nr_cpus;	/* CPUs whose pcp locks the prepare hook took */

/* Take every page allocator lock in the lock order (section 4). */
static void page_alloc_fork_prepare(void)
{
	mutex_lock(&reporting_lock);
	mutex_lock(&pcp_setup_lock);
	fork_nr_cpus = smp_load_acquire(&nr_cpu_ids);
	pcp_lock_all(fork_nr_cpus, true);
	spin_lock(&zone.lock);
}

static void page_alloc_fork_parent(void)
{
	spin_unlock(&zone.lock);
	pcp_lock_all(fork_nr_cpus, false);
	mutex_unlock(&pcp_setup_lock);
	mutex_unlock(&reporting_lock);
}

/* The forking thread took every lock in prepare and is the child's only
 * thread: it releases them (a re-init of a held mutex is undefined).  The
 * lists are consistent (all were held).  Other threads' pcp pages stay
 * listed and come back by draining. */
static void page_alloc_fork_child(void)
{
	page_alloc_fork_parent();
}

static const struct fork_hooks page_alloc_fork_hooks = {
	.prepare = page_alloc_fork_prepare,
	.parent = page_alloc_fork_parent,
	.child = page_alloc_fork_child,
};

/* ---- initialisation ---- */

static void page_reporting_init(void)
{
	if (page_reporting_order > MAX_ORDER - 1)
		page_reporting_order = MAX_ORDER - 1;
	reporting_high = page_reporting_threshold >> PAGE_SHIFT;
	reporting_low = reporting_high / 2;
}

/**
 * page_alloc_init - set up the zone after memmap_init().
 *
 * Called once, single-threaded, by mm_init_slow().  Memory is not touched
 * until the first allocation brings a section online.  If per-CPU storage
 * cannot be had, every allocation takes the zone lock (still correct).
 */
void page_alloc_init(void)
{
	unsigned int o;

	if (zone.initialised)
		return;
	for (o = 0; o < MAX_ORDER_LIMIT; o++)
		INIT_LIST_HEAD(&zone.free_area[o].free_list);
	page_reporting_init();
	zone.per_cpu_pageset = alloc_percpu(struct per_cpu_pages);
	cpuhp_setup_state(CPUHP_PAGE_ALLOC_DEAD, page_alloc_cpu_dead);
	fork_hooks_register(&page_alloc_fork_hooks, FORK_RANK_PAGE_ALLOC);
	zone.initialised = true;
}
