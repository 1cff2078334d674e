// SPDX-License-Identifier: MIT
/*
 * large_cache.c - each CPU keeps a few freed large blocks (kmalloc_large
 * folios of 16..64 KiB) for its next malloc of the same order, the way
 * tcmalloc's thread cache keeps blocks up to 256 KiB.
 *
 * 1. Overview.  A large block goes to the page allocator and back on every
 *    free and malloc: __GFP_COMP set-up and teardown of each of its struct
 *    pages, the buddy lists under the zone lock above order 3, the memcg
 *    and reporting hooks: 60 ns for a 12 KB block, 110 for 48 KB, where
 *    tcmalloc takes 10 (bench mixed sizes).  Instead free() puts a block of
 *    a cached order, its live word already cleared (large_claim), into this
 *    CPU's cache if there is room, and malloc() of that order takes the
 *    newest one back: the folio stays a large kmalloc folio all along.
 *
 * 2. Data structures.  struct large_cache, one per CPU (alloc_percpu):
 *    blocks[order][0..nr[order]) the cached folios, oldest first; their
 *    total size follows from the counts (large_cache_bytes).  Bounds:
 *    LARGE_CACHE_DEPTH blocks per order and LARGE_CACHE_BYTES in all per
 *    CPU, so the memory it holds follows the number of live threads that
 *    allocate.  No link is stored in a cached block (its contents are
 *    the program's, a use after free could forge one): the array is the
 *    only record.
 *
 * 3. States of a block of a cached order after free(): live word 0 (a
 *    second free, realloc or malloc_usable_size is reported as with any
 *    freed large block), then either in this CPU's cache or back in the
 *    page allocator.  A cached block leaves by a malloc of its order on
 *    this CPU (live word set again, folio->index the new size), or by the
 *    CPU's teardown (thread exit, cpu_detach_self), which frees every
 *    cached block (CPUHP_MALLOC_DEAD, before the page allocator drains the
 *    CPU's lists that these blocks land on).
 *
 * 4. Lock order: none.  Only the CPU's own thread touches its cache, and
 *    its teardown runs on that thread.  fork(): the child's copy of the
 *    forking thread's cache is consistent (that thread was not inside it);
 *    the caches of threads the child lacks stay with their CPU ids, which
 *    the child never reuses (cpu.c §6).
 *
 * 5. Not cached: calloc's blocks (a block from the page allocator may be
 *    known zero, PG_zeroed, a cached one never is), threads without a CPU
 *    id, and everything while memcheck is active (valgrind or ASan must see
 *    a freed block become no-access).
 */
#include "malloc_internal.h"
#include "mm/cpu.h"
#include "mm/memcheck.h"

/* Orders cached: blocks of 16 KiB (the first order above the size
 * classes) to 64 KiB.  why not 128 KiB and up: the page allocator gives
 * such blocks back to the OS when freed (its at-once rule), so a buffer
 * grown by realloc leaves no resident copies; a cache would keep them. */
#define LARGE_CACHE_MIN_ORDER	2
#define LARGE_CACHE_MAX_ORDER	4
#define LARGE_CACHE_ORDERS	(LARGE_CACHE_MAX_ORDER - LARGE_CACHE_MIN_ORDER + 1)
#define LARGE_CACHE_DEPTH	8
#define LARGE_CACHE_BYTES	(256UL << 10)

struct large_cache {
	struct folio *blocks[LARGE_CACHE_ORDERS][LARGE_CACHE_DEPTH];
	unsigned int nr[LARGE_CACHE_ORDERS];	/* blocks cached per order */
};

static struct large_cache __percpu *large_caches;	/* set once by large_cache_init */

static __always_inline struct large_cache *this_large_cache(void)
{
	struct large_cache __percpu *lc = READ_ONCE(large_caches);

	return lc ? this_cpu_ptr_or_null(lc) : NULL;
}

/* Bytes cached in lc: a count per order, each block of that order. */
static unsigned long large_cache_bytes(const struct large_cache *lc)
{
	unsigned long bytes = 0;
	unsigned int i;

	for (i = 0; i < LARGE_CACHE_ORDERS; i++)
		bytes += (unsigned long)lc->nr[i] << (PAGE_SHIFT + LARGE_CACHE_MIN_ORDER + i);
	return bytes;
}

void *large_cache_get(size_t size, gfp_t gfp)
{
	unsigned int order = get_order(size), i;
	struct large_cache *lc;
	struct folio *folio;

	if (order < LARGE_CACHE_MIN_ORDER || order > LARGE_CACHE_MAX_ORDER || (gfp & __GFP_ZERO))
		return NULL;
	lc = this_large_cache();
	i = order - LARGE_CACHE_MIN_ORDER;
	if (!lc || !lc->nr[i])
		return NULL;
	folio = lc->blocks[i][--lc->nr[i]];
	folio->index = size;		/* what was asked for, as kmalloc_large keeps it */
	return folio_address(folio);
}

bool large_cache_put(struct folio *folio)
{
	unsigned int order = folio_order(folio), i;
	struct large_cache *lc;

	if (order < LARGE_CACHE_MIN_ORDER || order > LARGE_CACHE_MAX_ORDER)
		return false;
	lc = this_large_cache();
	i = order - LARGE_CACHE_MIN_ORDER;
	if (!lc || lc->nr[i] == LARGE_CACHE_DEPTH ||
	    large_cache_bytes(lc) + folio_size(folio) > LARGE_CACHE_BYTES)
		return false;
	lc->blocks[i][lc->nr[i]++] = folio;
	return true;
}

/* Give every block cached by cpu back to the page allocator (teardown,
 * on the CPU's own thread). */
static void large_cache_drain(unsigned int cpu)
{
	struct large_cache __percpu *caches = READ_ONCE(large_caches);
	struct large_cache *lc;
	struct folio *folio;
	unsigned int i;

	if (!caches)
		return;		/* registered, not published yet: nothing cached */
	lc = per_cpu_ptr(caches, cpu);
	for (i = 0; i < LARGE_CACHE_ORDERS; i++) {
		while (lc->nr[i]) {
			folio = lc->blocks[i][--lc->nr[i]];
			free_large_kmalloc(folio, folio_address(folio));
		}
	}
}

void large_cache_init(void)
{
	struct large_cache __percpu *lc;

	if (memcheck_active())
		return;
	lc = alloc_percpu(struct large_cache);
	if (!lc)
		return;		/* every large block goes to the page allocator */
	/* why the teardown first: no block may be cached before a thread's
	 * exit gives it back */
	cpuhp_setup_state(CPUHP_MALLOC_DEAD, large_cache_drain);
	smp_store_release(&large_caches, lc);
}
