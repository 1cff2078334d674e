/* SPDX-License-Identifier: MIT */
/*
 * slob.c - SLOB, the simple list-of-blocks allocator of Linux 5.17, in user
 * space: the least memory, one lock, no per-CPU state.
 *
 * How SLOB works
 *
 * 1. Overview.  SLOB carves order-0 pages of the page allocator into blocks
 *    measured in 2-byte units.  Every request below a page -- kmalloc and
 *    every kmem_cache alike -- is served first fit from a page that has
 *    room; the pages themselves are shared by all caches.  Requests of a
 *    page or more go straight to the page allocator.  A kmalloc object
 *    carries a small header with its size (kfree must know it); a cache
 *    object carries nothing, the cache supplies the size on free.
 *
 * 2. Data structures.
 *    - slob_t: one unit (a signed 16-bit slobidx_t).  A free block of two
 *      units or more holds its size in unit 0 and, in unit 1, the offset in
 *      units from the page start of the next free block; a 1-unit free
 *      block holds the negated offset of the next one.  The last free block
 *      of a page points at the page end (offset 2048, i.e. 0 mod page).
 *      Free blocks of a page form a singly linked list in address order.
 *    - struct slab (slob_def.h), overlaying the page's struct page:
 *      freelist = first free block, units = free units in the page,
 *      slab_list = link on one of the three lists below.
 *    - free_slob_small / free_slob_medium / free_slob_large: pages with free
 *      units, searched for requests below 256 B / below 1 KiB / below a
 *      page.  A page on a list carries PG_slob_free.
 *    - kmalloc header: a kmalloc object sits SLOB_KMALLOC_MINALIGN (8)
 *      bytes after the start of its block; the first 4 bytes of the block
 *      hold the requested size (the 5.17 layout) and the next 4 its
 *      complement (a uslab check word, in what was padding).
 *    - object maps (uslab): per slob page, a bit per 8 bytes twice over --
 *      where a live object starts, and which of those are kmalloc objects
 *      -- in a range reserved outside the arena with a map per pfn (the
 *      kernel's page_ext idea), committed a section's worth at a time.
 *      slab->objmap points at the page's map while it is a slob page.
 *
 * 3. States of a slob page.
 *
 *      state      PG_slab PG_slob_free  slab_list   units       freelist
 *      listed        1         1        on a list   1..2047     first free block
 *      full          1         0        unlinked    0           NULL
 *      freeing       1         0        unlinked    2048        NULL
 *      (freed)       0         0        page allocator's again
 *
 *    A new page enters "listed" with one free block of 2048 units and is
 *    allocated from at once.  An allocation that takes the last free unit
 *    makes it "full"; a free into a full page makes it "listed" again, on
 *    the list chosen by the size of that block.  A free that leaves no unit
 *    allocated takes it off its list ("freeing") and gives it straight back
 *    to the page allocator once the lock is dropped.
 *
 * 4. Lock order.  slab_mutex (slab_common.c) -> slob_lock -> the page
 *    allocator's locks.  slob_lock guards the three lists, every field of
 *    every slob page, the free blocks inside them, and the allocation
 *    counters; pages are obtained and freed outside it.  For fork(),
 *    slob_lock is registered at FORK_RANK_SLOB (between slab_mutex and the
 *    page allocator's locks, as above).
 *
 * 5. Invariants (under slob_lock).
 *    - PG_slob_free <=> the page is on exactly one list <=> 0 < units < 2048.
 *    - units == the sum of the sizes of the page's free blocks.
 *    - free blocks lie inside their page, in strictly increasing address
 *      order, and never touch: two adjacent free blocks are always merged.
 *    - a map bit is set exactly where a live object's pointer starts (its
 *      kmalloc bit only with it); a page's map is empty when it leaves.
 *    - after an allocation succeeds on a listed page, that page is searched
 *      first next time (next fit across pages: the list is rotated).
 *    - a kmalloc object's header holds size, ~size while it is allocated.
 *
 * 6. Checks.  Linux's SLOB had no debugging; uslab's checks every free,
 *    cheaply, under slob_lock, before it writes anything: the pointer must
 *    lie in the arena and in a slob page (or be a page-backed object or
 *    large kmalloc), be aligned as its allocation was, and start a live
 *    object of the right kind by the page's object map (else: inside a
 *    free block it is a double free, anywhere else an interior or stale
 *    pointer); what it frees must overlap no free block and no other live
 *    object (a wrong cache or size), nor more units than the page has
 *    allocated; kfree needs a consistent header; kmem_cache_free needs a
 *    cache that has objects allocated.  A page-backed cache object names
 *    its cache in folio->mapping (NULL once freed), so a free to another
 *    cache, or of pages that are no longer the object's, is caught too.
 *    What SLOB cannot see: an object of one cache freed to another cache
 *    of the same size that has objects (nothing in the object says whose
 *    it is).  A failed check prints "slob: <what> of object 0x... (size N)
 *    in CACHE: <why>" and aborts (SLOB repairs nothing: slab_error=repair
 *    does not apply).  The walk of the page's free list that does this
 *    also checks the list itself.
 *
 * 7. Differences from Linux 5.17.  kfree/kmem_cache_free check as above;
 *    the kmalloc header has a check word; caches count their objects, so
 *    destroying a cache with live objects is refused and SLOB has a
 *    slabinfo equivalent (uslab_slob_show_info, docs/slob-info.md).
 *    SLAB_TYPESAFE_BY_RCU works as in the kernel: kmem_cache_free() writes
 *    the struct slob_rcu footer at the end of the object's block and
 *    queues it with call_rcu() (rcu.c); the block is freed, with every
 *    check of a free, after the grace period.  The footer holds the cache
 *    instead of the kernel's size (the cache knows its size, its counts
 *    and its name for reports), is 8-byte aligned (the kernel's may not
 *    be), and is cleared at allocation, so a second free while the first
 *    waits is reported as a double free.  Page-backed cache objects are
 *    compound blocks (so their folio knows its order).  A node asked for
 *    is a preference, as in SLUB: when no listed page of that node has
 *    room, any listed page may serve the request before a new page is
 *    taken (unless __GFP_THISNODE), so that asking for a node without
 *    memory does not cost a page per request.
 *
 * 8. Memcheck (memcheck.h).  When memcheck_active(), valgrind or ASan see
 *    every object as a heap block (memcheck_alloc when it is handed out,
 *    before __GFP_ZERO's memset; memcheck_free when it comes back, after
 *    the checks), and every byte of a slob page that is not a live object
 *    -- free blocks and kmalloc headers -- as no-access.  SLOB's own reads
 *    and writes of that metadata (slob_get/slob_put for the block
 *    encoding, slob_header_get/set for the kmalloc header) open exactly
 *    the bytes they touch and close them again.  New slob pages start
 *    no-access; pages going back to the page allocator become undefined.
 *    With memcheck off each of those is one predictable test.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <uslab/slobinfo.h>
#include "slab.h"
#include "memcheck.h"
#include "os/os.h"

/* ---- units and the in-page block encoding ---- */

typedef int16_t slobidx_t;	/* a size or an offset in units (PAGE_SIZE <= 64 KiB) */

typedef struct slob_block {
	slobidx_t units;	/* see section 2 above */
} slob_t;

#define SLOB_UNIT		((long)sizeof(slob_t))
#define SLOB_UNITS(size)	((long)DIV_ROUND_UP((size_t)(size), (size_t)SLOB_UNIT))
#define SLOB_PAGE_UNITS		((long)(PAGE_SIZE / SLOB_UNIT))
_Static_assert(PAGE_SIZE / sizeof(slob_t) <= INT16_MAX, "page offsets must fit a slobidx_t");
_Static_assert(SLOB_UNIT == USLAB_SLOB_UNIT, "slobinfo.h must agree on the unit");

#define SLOB_BREAK1		256	/* below: free_slob_small */
#define SLOB_BREAK2		1024	/* below: free_slob_medium, else free_slob_large */

/* kmalloc: max(ARCH_KMALLOC_MINALIGN, ARCH_SLAB_MINALIGN) header bytes. */
#define SLOB_KMALLOC_MINALIGN						\
	(ARCH_KMALLOC_MINALIGN > ARCH_SLAB_MINALIGN ? ARCH_KMALLOC_MINALIGN : ARCH_SLAB_MINALIGN)
#define SLOB_MINALIGN		((unsigned long)SLOB_KMALLOC_MINALIGN)
_Static_assert(SLOB_KMALLOC_MINALIGN >= 2 * sizeof(unsigned int), "header holds two words");

/*
 * The kernel's RCU footer, in the last bytes of a SLAB_TYPESAFE_BY_RCU
 * object's block (see section 7 above): written by kmem_cache_free(), read
 * by the callback after the grace period.
 */
struct slob_rcu {
	struct rcu_head head;		/* call_rcu() link */
	struct kmem_cache *cache;	/* the object's cache while it waits; NULL while allocated */
};

static struct slob_rcu *slob_rcu_footer(const struct kmem_cache *c, void *b)
{
	return (struct slob_rcu *)((char *)b + c->size) - 1;
}

static LIST_HEAD(free_slob_small);	/* pages for requests < SLOB_BREAK1 (slob_lock) */
static LIST_HEAD(free_slob_medium);	/* pages for requests < SLOB_BREAK2 (slob_lock) */
static LIST_HEAD(free_slob_large);	/* pages for larger requests (slob_lock) */
static DEFINE_SPINLOCK(slob_lock);	/* everything in section 4 above */

static struct slob_stat kmalloc_stat;	/* kmalloc objects below a page (slob_lock) */
static unsigned long nr_slob_pages;	/* pages with PG_slab held by SLOB (slob_lock) */

const char *const allocator_name = "slob";

static slob_t *slob_page_base(const slob_t *s)
{
	return (slob_t *)((unsigned long)s & PAGE_MASK);
}

/*
 * One unit of a free block's encoding.  Under memcheck (section 8 above)
 * free blocks are no-access: each access opens exactly the unit it
 * touches and closes it again.
 */
static slobidx_t slob_get(const slob_t *s)
{
	slobidx_t v;

	if (likely(!memcheck_active()))
		return s->units;
	memcheck_defined(s, SLOB_UNIT);
	v = s->units;
	memcheck_noaccess(s, SLOB_UNIT);
	return v;
}

static void slob_put(slob_t *s, long v)
{
	if (likely(!memcheck_active())) {
		s->units = (slobidx_t)v;
		return;
	}
	memcheck_undefined(s, SLOB_UNIT);
	s->units = (slobidx_t)v;
	memcheck_noaccess(s, SLOB_UNIT);
}

/* Encode the free block s: size units, followed (in the list) by next. */
static void set_slob(slob_t *s, long size, slob_t *next)
{
	long offset = next - slob_page_base(s);

	if (size > 1) {
		slob_put(&s[0], size);
		slob_put(&s[1], offset);
	} else {
		slob_put(&s[0], -offset);
	}
}

static long slob_units(const slob_t *s)
{
	slobidx_t units = slob_get(s);

	return units > 0 ? units : 1;
}

static slob_t *slob_next(const slob_t *s)
{
	slobidx_t units = slob_get(&s[0]);
	long next = units < 0 ? -units : slob_get(&s[1]);

	return slob_page_base(s) + next;
}

/* Is s the last free block of its page (its next is the page end)? */
static bool slob_last(const slob_t *s)
{
	return ((unsigned long)slob_next(s) & ~PAGE_MASK) == 0;
}

static long slob_offset(const void *p)
{
	return (long)(((unsigned long)p & ~PAGE_MASK) / SLOB_UNIT);
}

/* ---- the three lists ---- */

static struct list_head *slob_list_for(size_t size)
{
	if (size < SLOB_BREAK1)
		return &free_slob_small;
	if (size < SLOB_BREAK2)
		return &free_slob_medium;
	return &free_slob_large;
}

/*
 * A page's slab_list.next overlays page->compound_head, which kfree() reads
 * without slob_lock; list.h stores next pointers with WRITE_ONCE for that.
 */

/* Make the list head point at e first: the next search starts there. */
static void slob_list_rotate_to_front(struct list_head *e, struct list_head *head)
{
	list_move_tail(head, e);
}

static bool slob_page_free(const struct slab *sp)
{
	return PageSlobFree(slab_page(sp));
}

static void set_slob_page_free(struct slab *sp, struct list_head *list)
{
	list_add(&sp->slab_list, list);
	__SetPageSlobFree(slab_page(sp));
}

static void clear_slob_page_free(struct slab *sp)
{
	list_del(&sp->slab_list);
	__ClearPageSlobFree(slab_page(sp));
}

/* ---- object maps (section 6 above) ---- */

#ifndef BITS_PER_LONG
#define BITS_PER_LONG		(8 * sizeof(unsigned long))
#endif
#define SLOB_OBJMAP_GRAIN	8UL	/* every object pointer is 8-aligned */
#define SLOB_OBJMAP_BITS	(PAGE_SIZE / SLOB_OBJMAP_GRAIN)
/* Two bitmaps per page: live object starts, then which of them are kmalloc's. */
#define SLOB_OBJMAP_LONGS	(2 * SLOB_OBJMAP_BITS / BITS_PER_LONG)
#define SLOB_OBJMAP_BYTES	(SLOB_OBJMAP_LONGS * sizeof(unsigned long))
_Static_assert(ARCH_SLAB_MINALIGN % SLOB_OBJMAP_GRAIN == 0 &&
	       SLOB_KMALLOC_MINALIGN % SLOB_OBJMAP_GRAIN == 0,
	       "every object pointer must start a grain of the object map");

/*
 * The maps sit outside the arena, like the kernel's page_ext: one reserved
 * range with SLOB_OBJMAP_BYTES per pfn, committed a section's worth at a
 * time (so that it costs no VMA per page) the first time one of the
 * section's pages becomes a slob page.
 */
static unsigned long *slob_objmaps;		/* map of pfn p at p * LONGS (constant) */
static unsigned char *slob_objmap_committed;	/* per section: its maps are usable (slob_lock) */

static unsigned long slob_objmap_bit(const void *p)
{
	return ((unsigned long)p & ~PAGE_MASK) / SLOB_OBJMAP_GRAIN;
}

static bool slob_objmap_test(const struct slab *sp, unsigned long bit)
{
	return sp->objmap && (sp->objmap[bit / BITS_PER_LONG] & BIT(bit % BITS_PER_LONG));
}

/* Does a live object start at p, in sp (slob_lock held)? */
static bool slob_objmap_live(const struct slab *sp, const void *p)
{
	return slob_objmap_test(sp, slob_objmap_bit(p));
}

/* Is the live object at p a kmalloc object (slob_lock held)? */
static bool slob_objmap_kmalloc(const struct slab *sp, const void *p)
{
	return slob_objmap_test(sp, SLOB_OBJMAP_BITS + slob_objmap_bit(p));
}

static void slob_objmap_set(struct slab *sp, const void *p, bool kmalloc)
{
	unsigned long bit = slob_objmap_bit(p);

	sp->objmap[bit / BITS_PER_LONG] |= BIT(bit % BITS_PER_LONG);
	bit += SLOB_OBJMAP_BITS;
	if (kmalloc)
		sp->objmap[bit / BITS_PER_LONG] |= BIT(bit % BITS_PER_LONG);
}

static void slob_objmap_clear(struct slab *sp, const void *p)
{
	unsigned long bit = slob_objmap_bit(p);

	sp->objmap[bit / BITS_PER_LONG] &= ~BIT(bit % BITS_PER_LONG);
	bit += SLOB_OBJMAP_BITS;
	sp->objmap[bit / BITS_PER_LONG] &= ~BIT(bit % BITS_PER_LONG);
}

/* The first live object that starts after p and before end, or NULL. */
static const void *slob_objmap_next(const struct slab *sp, const void *p, const void *end)
{
	const char *q = (const char *)ALIGN_DOWN((unsigned long)p, SLOB_OBJMAP_GRAIN);

	for (q += SLOB_OBJMAP_GRAIN; q < (const char *)end; q += SLOB_OBJMAP_GRAIN)
		if (slob_objmap_live(sp, q))
			return q;
	return NULL;
}

/* Reserve the maps of every pfn of the arena (address space only). */
static void slob_objmap_init(void)
{
	size_t bytes = PAGE_ALIGN(memmap.max_pfn * SLOB_OBJMAP_BYTES);
	size_t sections = (memmap.max_pfn >> PFN_SECTION_SHIFT) + 1;

	slob_objmaps = os_reserve(bytes, PAGE_SIZE);
	slob_objmap_committed = os_map(PAGE_ALIGN(sections));
	if (!slob_objmaps || !slob_objmap_committed)
		slab_panic("SLOB: cannot reserve %zu bytes for object maps\n", bytes);
}

/* Make sure the maps of pfn's section are committed (slob_lock held). */
static bool slob_objmap_commit(unsigned long pfn)
{
	unsigned long section = pfn_to_section_nr(pfn);
	size_t bytes = PAGES_PER_SECTION * SLOB_OBJMAP_BYTES;
	char *start = (char *)(slob_objmaps + (section << PFN_SECTION_SHIFT) * SLOB_OBJMAP_LONGS);

	if (slob_objmap_committed[section])
		return true;
	/* why whole pages: a section of 2^n pages has 2^n * 64 bytes of maps */
	if (!os_commit((void *)ALIGN_DOWN((unsigned long)start, PAGE_SIZE), PAGE_ALIGN(bytes)))
		return false;
	slob_objmap_committed[section] = 1;
	return true;
}

/* Give page sp (a new slob page) its empty map; false without memory. */
static bool slob_objmap_attach(struct slab *sp)
{
	unsigned long pfn = page_to_pfn(slab_page(sp));

	if (!slob_objmap_commit(pfn))
		return false;
	sp->objmap = slob_objmaps + pfn * SLOB_OBJMAP_LONGS;
	memset(sp->objmap, 0, SLOB_OBJMAP_BYTES);
	return true;
}

/* ---- reports ---- */

/* A misuse was detected: "slob: <message>" on stderr, then abort.  The report
 * never allocates, so it is safe with slob_lock held. */
#define slob_bug(fmt, ...)						\
	do {								\
		slab_printk("slob: " fmt "\n", __VA_ARGS__);		\
		abort();						\
	} while (0)

/* What a free is about, for the reports. */
struct slob_free_ctx {
	const void *object;	/* the pointer the caller passed */
	size_t size;		/* bytes it claims, 0 if unknown */
	const char *cache;	/* cache name, or "kmalloc" */
};

static __cold __noreturn void slob_double_free(const struct slob_free_ctx *x,
		const slob_t *f)
{
	slob_bug("double free of object 0x%lx (size %zu) in %s: it lies in free block 0x%lx "
		 "(%ld bytes) of slob page 0x%lx", (unsigned long)x->object, x->size, x->cache,
		 (unsigned long)f, slob_units(f) * SLOB_UNIT, (unsigned long)slob_page_base(f));
}

static __cold __noreturn void slob_bad_free(const struct slob_free_ctx *x, const char *why)
{
	slob_bug("invalid free of object 0x%lx (size %zu) in %s: %s",
		 (unsigned long)x->object, x->size, x->cache, why);
}

/* kmem_cache_free of a page-backed object whose pages name owner, not its cache. */
static __cold __noreturn void slob_page_owner_bad(const struct kmem_cache *owner,
		const struct slob_free_ctx *x)
{
	if (!owner)
		slob_bad_free(x, "its pages hold no object of any cache (freed already?)");
	slob_bug("invalid free of object 0x%lx (size %zu) in %s: it belongs to cache %s "
		 "(wrong cache)", (unsigned long)x->object, x->size, x->cache, owner->name);
}

static __cold __noreturn void slob_corrupt_list(const slob_t *f)
{
	slob_bug("free list of slob page 0x%lx is corrupted at block 0x%lx (unit %d)",
		 (unsigned long)slob_page_base(f), (unsigned long)f, slob_get(f));
}

/* ---- checks on free (slob_lock held) ---- */

/* Next free block after f, aborting if the list leaves the page or goes back. */
static slob_t *slob_next_checked(const slob_t *f)
{
	slob_t *next = slob_next(f);

	if (next < f + slob_units(f) || next > slob_page_base(f) + SLOB_PAGE_UNITS)
		slob_corrupt_list(f);
	return next;
}

/* The free block of sp containing b, or NULL. */
static slob_t *slob_find_free(const struct slab *sp, const slob_t *b)
{
	slob_t *f;

	if (!sp->units || !sp->freelist)	/* full, or being freed */
		return NULL;
	for (f = sp->freelist; f <= b; f = slob_next_checked(f)) {
		if (b < f + slob_units(f))
			return f;
		if (slob_last(f))
			break;
	}
	return NULL;
}

/* Abort unless [b, b + units) can be freed: inside sp, allocated, no free block in it. */
static void slob_check_free(const struct slab *sp, slob_t *b, long units,
		const struct slob_free_ctx *x)
{
	slob_t *f;

	if (((unsigned long)b & (SLOB_UNIT - 1)) || slob_offset(b) + units > SLOB_PAGE_UNITS)
		slob_bad_free(x, "it does not fit in its slob page");
	if (sp->units + units > SLOB_PAGE_UNITS)
		slob_bad_free(x, "its slob page has fewer units allocated");
	if (!sp->units)
		return;
	for (f = sp->freelist; f < b + units; f = slob_next_checked(f)) {
		if (f <= b && b < f + slob_units(f))
			slob_double_free(x, f);
		if (b < f)
			slob_bad_free(x, "it overlaps a free block (wrong size or cache?)");
		if (slob_last(f))
			return;
	}
}

/* A free where no live object starts (slob_lock held): in a free block it
 * is a double free, anywhere else an interior or stale pointer. */
static __cold __noreturn void slob_free_not_live(const struct slab *sp, const slob_t *b,
		const struct slob_free_ctx *x)
{
	slob_t *f = sp->objmap ? slob_find_free(sp, b) : NULL;

	if (f)
		slob_double_free(x, f);
	slob_bad_free(x, "no live object starts there (an interior pointer, or freed already)");
}

/* Abort if another live object starts in (obj, end): freeing would take it too. */
static void slob_check_extent(const struct slab *sp, const void *obj, const void *end,
		const struct slob_free_ctx *x)
{
	const void *other = slob_objmap_next(sp, obj, end);

	if (unlikely(other))
		slob_bug("invalid free of object 0x%lx (size %zu) in %s: it would free the live "
			 "object at 0x%lx too (wrong cache or size?)", (unsigned long)x->object,
			 x->size, x->cache, (unsigned long)other);
}

/* b must start a live object of a cache in sp (slob_lock held). */
static void slob_check_cache_obj(const struct slab *sp, const slob_t *b,
		const struct slob_free_ctx *x)
{
	if (unlikely(!slob_objmap_live(sp, b)))
		slob_free_not_live(sp, b, x);
	if (unlikely(slob_objmap_kmalloc(sp, b)))
		slob_bad_free(x, "it is a kmalloc object (free it with kfree)");
}

/* ---- allocation inside one page (slob_lock held) ---- */

/* Units to skip at cur so that cur + skip + align_offset is align-aligned. */
static long slob_align_delta(const slob_t *cur, unsigned long align, unsigned long align_offset)
{
	unsigned long aligned;

	if (!align)
		return 0;
	aligned = ALIGN((unsigned long)cur + align_offset, align) - align_offset;
	return (long)((aligned - (unsigned long)cur) / SLOB_UNIT);
}

/* Split free block cur into a free head of delta units and the rest; return the rest. */
static slob_t *slob_split_head(slob_t *cur, long delta)
{
	slob_t *rest = cur + delta;

	set_slob(rest, slob_units(cur) - delta, slob_next(cur));
	set_slob(cur, delta, rest);
	return rest;
}

/* Take units from the start of free block cur; prev is the free block before it. */
static void slob_take(struct slab *sp, slob_t *prev, slob_t *cur, long units)
{
	slob_t *next = slob_next(cur);
	long avail = slob_units(cur);

	if (avail > units) {	/* the tail stays free */
		set_slob(cur + units, avail - units, next);
		next = cur + units;
	}
	if (prev)
		set_slob(prev, slob_units(prev), next);
	else
		sp->freelist = next;
	sp->units -= units;
}

/*
 * First fit of size bytes in sp, aligned as asked.  Returns the block or
 * NULL; *removed tells whether the page became full and left its list.
 */
static slob_t *slob_page_alloc(struct slab *sp, size_t size, unsigned long align,
		unsigned long align_offset, bool *removed)
{
	long units = SLOB_UNITS(size);
	slob_t *prev = NULL, *cur;

	*removed = false;
	for (cur = sp->freelist; ; prev = cur, cur = slob_next(cur)) {
		long delta = slob_align_delta(cur, align, align_offset);

		if (slob_units(cur) >= units + delta) {
			if (delta) {	/* the head fragment stays a free block */
				prev = cur;
				cur = slob_split_head(cur, delta);
			}
			slob_take(sp, prev, cur, units);
			/* why align_offset: only kmalloc places its object after a header */
			slob_objmap_set(sp, (char *)cur + align_offset, align_offset != 0);
			if (!sp->units) {
				sp->freelist = NULL;
				clear_slob_page_free(sp);
				*removed = true;
			}
			return cur;
		}
		if (slob_last(cur))
			return NULL;
	}
}

/* ---- allocation across pages ---- */

static void slob_stat_alloc(struct slob_stat *st)
{
	st->allocs++;
	st->high = max(st->high, st->allocs - st->frees);
}

static void slob_stat_free(struct slob_stat *st)
{
	st->frees++;
}

/* Search one list for room (slob_lock held); next fit: rotate to the page used. */
static slob_t *slob_alloc_listed(struct list_head *slob_list, size_t size,
		unsigned long align, int node, unsigned long align_offset)
{
	struct slab *sp;
	bool removed;
	slob_t *b;

	list_for_each_entry(sp, slob_list, slab_list) {
		if (node != NUMA_NO_NODE && slab_nid(sp) != node)
			continue;
		if (sp->units < SLOB_UNITS(size))	/* not enough room in total */
			continue;
		b = slob_page_alloc(sp, size, align, align_offset, &removed);
		if (!b)
			continue;
		/* Start the next search here (Knuth vol. 1, 2.5): less fragmentation. */
		if (!removed && sp->slab_list.prev != slob_list)
			slob_list_rotate_to_front(&sp->slab_list, slob_list);
		return b;
	}
	return NULL;
}

static struct page *slob_new_pages(gfp_t gfp, unsigned int order, int node)
{
	return alloc_pages_node(node, gfp, order);
}

static void slob_free_slab(struct slab *sp);

/* A fresh page becomes a listed slob page; size bytes are allocated from it. */
static noinline slob_t *slob_alloc_new_page(struct list_head *slob_list, size_t size,
		gfp_t gfp, unsigned long align, int node, unsigned long align_offset,
		struct slob_stat *st)
{
	struct page *page = slob_new_pages(gfp & ~__GFP_ZERO, 0, node);
	struct folio *folio;
	struct slab *sp;
	bool removed;
	slob_t *b;

	if (!page)
		return NULL;
	folio = page_folio(page);
	__folio_set_slab(folio);
	sp = folio_slab(folio);
	b = slab_address(sp);
	if (memcheck_active())	/* free memory: only the block headers are touched */
		memcheck_noaccess(b, PAGE_SIZE);

	spin_lock(&slob_lock);
	if (unlikely(!slob_objmap_attach(sp))) {
		spin_unlock(&slob_lock);
		slob_free_slab(sp);
		return NULL;
	}
	sp->units = SLOB_PAGE_UNITS;
	sp->freelist = b;
	set_slob(b, SLOB_PAGE_UNITS, b + SLOB_PAGE_UNITS);
	set_slob_page_free(sp, slob_list);
	nr_slob_pages++;
	b = slob_page_alloc(sp, size, align, align_offset, &removed);
	if (!b)		/* callers never ask for more than a fresh page holds */
		slob_bug("internal error: %zu bytes (align %lu) do not fit a fresh page",
			 size, align);
	slob_stat_alloc(st);
	spin_unlock(&slob_lock);
	return b;
}

/*
 * Allocate size (< PAGE_SIZE) bytes so that block + align_offset is aligned
 * to align (a power of two, or 0 for none); count it in st.
 */
static void *slob_alloc(size_t size, gfp_t gfp, unsigned long align, int node,
		unsigned long align_offset, struct slob_stat *st)
{
	struct list_head *slob_list = slob_list_for(size);
	slob_t *b;

	spin_lock(&slob_lock);
	b = slob_alloc_listed(slob_list, size, align, node, align_offset);
	/* A node is a preference: a node without memory has no pages to match. */
	if (!b && node != NUMA_NO_NODE && !(gfp & __GFP_THISNODE))
		b = slob_alloc_listed(slob_list, size, align, NUMA_NO_NODE, align_offset);
	if (b)
		slob_stat_alloc(st);
	spin_unlock(&slob_lock);
	if (!b)
		b = slob_alloc_new_page(slob_list, size, gfp, align, node, align_offset, st);
	return b;
}

/* The object at obj (size bytes) now belongs to its user: tell memcheck,
 * then zero it if asked (after, as memcheck.h wants). */
static void slob_hand_out(void *obj, size_t size, gfp_t gfp)
{
	if (memcheck_active())
		memcheck_alloc(obj, size, gfp & __GFP_ZERO);
	if (gfp & __GFP_ZERO)
		memset(obj, 0, size);
}

/* ---- free (slob_lock held) ---- */

/* Free units at b into sp, which has free blocks: address order, merge both sides. */
static void slob_insert(struct slab *sp, slob_t *b, long units)
{
	slob_t *prev = sp->freelist, *next;

	if (b < prev) {
		if (b + units == prev) {
			units += slob_units(prev);
			prev = slob_next(prev);
		}
		set_slob(b, units, prev);
		sp->freelist = b;
		return;
	}
	for (next = slob_next(prev); b > next; next = slob_next(prev))
		prev = next;
	if (!slob_last(prev) && b + units == next) {
		units += slob_units(next);
		next = slob_next(next);
	}
	set_slob(b, units, next);
	if (prev + slob_units(prev) == b)
		set_slob(prev, slob_units(prev) + units, next);
	else
		set_slob(prev, slob_units(prev), b);
}

/*
 * Give size bytes at b back to sp.  Returns true if the page has nothing
 * allocated any more: it is then off its list, and the caller frees it
 * after dropping slob_lock.
 */
static bool slob_free_locked(struct slab *sp, slob_t *b, size_t size)
{
	long units = SLOB_UNITS(size);

	if (sp->units + units == SLOB_PAGE_UNITS) {
		if (slob_page_free(sp))
			clear_slob_page_free(sp);
		sp->units = SLOB_PAGE_UNITS;	/* "freeing": a racing bad free is refused */
		sp->freelist = NULL;
		sp->objmap = NULL;		/* page->mapping must be NULL when freed */
		nr_slob_pages--;
		return true;
	}
	if (!slob_page_free(sp)) {	/* was full: b is its only free block */
		sp->units = units;
		sp->freelist = b;
		set_slob(b, units, slob_page_base(b) + SLOB_PAGE_UNITS);
		set_slob_page_free(sp, slob_list_for(size));
		return false;
	}
	sp->units += units;
	slob_insert(sp, b, units);
	return false;
}

/* The page left SLOB under slob_lock; hand it back to the page allocator. */
static void slob_free_slab(struct slab *sp)
{
	struct folio *folio = slab_folio(sp);

	if (memcheck_active())
		memcheck_undefined(slab_address(sp), PAGE_SIZE);
	__folio_clear_slab(folio);
	__free_pages(folio_page(folio, 0), 0);
}

/* The user is done with obj (size bytes): its map bit goes, memcheck hears of it. */
static void slob_take_back(struct slab *sp, const void *obj, size_t size)
{
	slob_objmap_clear(sp, obj);
	if (memcheck_active())
		memcheck_free(obj, size);
}

/* Free the object b of cache c in slob page sp, after the checks. */
static void slob_free(struct kmem_cache *c, struct slab *sp, slob_t *b,
		const struct slob_free_ctx *x)
{
	long units = SLOB_UNITS(c->size);
	bool empty;

	spin_lock(&slob_lock);
	slob_check_cache_obj(sp, b, x);
	if (unlikely(c->stat.allocs == c->stat.frees))
		slob_bad_free(x, "its cache has no object allocated (wrong cache?)");
	slob_check_free(sp, b, units, x);
	slob_check_extent(sp, b, b + units, x);
	slob_take_back(sp, b, c->size);
	empty = slob_free_locked(sp, b, c->size);
	slob_stat_free(&c->stat);
	spin_unlock(&slob_lock);
	if (empty)
		slob_free_slab(sp);
}

/* ---- kmalloc ---- */

/* The kmalloc header at m: opened for memcheck around the access (§8). */
static void slob_header_get(const unsigned int *m, unsigned int h[2])
{
	if (memcheck_active())
		memcheck_defined(m, 2 * sizeof(*m));
	h[0] = m[0];
	h[1] = m[1];
	if (memcheck_active())
		memcheck_noaccess(m, 2 * sizeof(*m));
}

static void slob_header_set(unsigned int *m, size_t size)
{
	if (memcheck_active())
		memcheck_undefined(m, 2 * sizeof(*m));
	m[0] = (unsigned int)size;
	m[1] = ~(unsigned int)size;
	if (memcheck_active())
		memcheck_noaccess(m, 2 * sizeof(*m));
}

static void *slob_kmalloc(size_t size, gfp_t gfp, int node)
{
	unsigned long align = SLOB_MINALIGN;
	unsigned int *m;

	if (unlikely(!size))
		return ZERO_SIZE_PTR;
	if (is_power_of_2(size))	/* power-of-two sizes are aligned to their size */
		align = max(align, (unsigned long)size);
	m = slob_alloc(size + SLOB_MINALIGN, gfp, align, node, SLOB_MINALIGN, &kmalloc_stat);
	if (!m)
		return NULL;
	slob_header_set(m, size);
	slob_hand_out((char *)m + SLOB_MINALIGN, size, gfp);
	return (char *)m + SLOB_MINALIGN;
}

void *__kmalloc_node(size_t size, gfp_t gfp, int node)
{
	slab_ensure_init();
	if (unlikely(gfp & GFP_SLAB_BUG_MASK))
		gfp = kmalloc_fix_flags(gfp);
	if (size < PAGE_SIZE - SLOB_MINALIGN)
		return slob_kmalloc(size, gfp, node);
	return kmalloc_large_node(size, gfp, node);
}
EXPORT_SYMBOL(__kmalloc_node);

void *__kmalloc(size_t size, gfp_t gfp)
{
	return __kmalloc_node(size, gfp, NUMA_NO_NODE);
}
EXPORT_SYMBOL(__kmalloc);

/* The size in the kmalloc header h, or 0 if the header is not consistent. */
static size_t slob_kmalloc_size(const unsigned int h[2])
{
	if (h[0] != ~h[1] || !h[0] || h[0] >= PAGE_SIZE - SLOB_MINALIGN)
		return 0;
	return h[0];
}

/* Size of the kmalloc object at obj, live in sp (slob_lock held); aborts
 * if its header does not hold one. */
static size_t slob_kmalloc_size_checked(const void *obj)
{
	unsigned int h[2];
	size_t size;

	slob_header_get((const unsigned int *)((const char *)obj - SLOB_MINALIGN), h);
	size = slob_kmalloc_size(h);
	if (likely(size))
		return size;
	slob_bug("invalid free of object 0x%lx in kmalloc: its size header is corrupted "
		 "(0x%08x 0x%08x): not a kmalloc pointer, or the bytes before it were overwritten",
		 (unsigned long)obj, h[0], h[1]);
}

/* kfree of obj, where no live object starts (slob_lock held). */
static __cold __noreturn void slob_kfree_not_live(const struct slab *sp, const void *obj)
{
	const unsigned int *m = (const unsigned int *)((const char *)obj - SLOB_MINALIGN);
	struct slob_free_ctx x = { obj, 0, "kmalloc" };
	unsigned int h[2];

	if (sp->objmap && slob_find_free(sp, (const slob_t *)m)) {
		/* freeing wrote the encoding over m[0]; m[1] survives */
		slob_header_get(m, h);
		x.size = ~h[1] < PAGE_SIZE ? ~h[1] : 0;
	}
	slob_free_not_live(sp, (const slob_t *)m, &x);
}

static void slob_check_kmalloc_pointer(const void *obj)
{
	struct slob_free_ctx x = { obj, 0, "kmalloc" };

	if (!IS_ALIGNED((unsigned long)obj, SLOB_MINALIGN) ||
	    ((unsigned long)obj & ~PAGE_MASK) < SLOB_MINALIGN)
		slob_bad_free(&x, "not where a kmalloc object can start");
}

static void slob_kfree(struct slab *sp, const void *obj)
{
	slob_t *m = (slob_t *)((char *)obj - SLOB_MINALIGN);
	struct slob_free_ctx x = { obj, 0, "kmalloc" };
	bool empty;

	slob_check_kmalloc_pointer(obj);
	spin_lock(&slob_lock);
	if (unlikely(!slob_objmap_live(sp, obj)))
		slob_kfree_not_live(sp, obj);
	if (unlikely(!slob_objmap_kmalloc(sp, obj)))
		slob_bad_free(&x, "not a kmalloc object (free it with kmem_cache_free)");
	x.size = slob_kmalloc_size_checked(obj);
	slob_check_free(sp, m, SLOB_UNITS(x.size + SLOB_MINALIGN), &x);
	slob_check_extent(sp, obj, (char *)obj + x.size, &x);
	slob_take_back(sp, obj, x.size);
	empty = slob_free_locked(sp, m, x.size + SLOB_MINALIGN);
	slob_stat_free(&kmalloc_stat);
	spin_unlock(&slob_lock);
	if (empty)
		slob_free_slab(sp);
}

static __cold __noreturn void slob_wild_pointer(const char *fn, const void *obj)
{
	slob_bug("%s of 0x%lx: not an address of this heap", fn, (unsigned long)obj);
}

void kfree(const void *object)
{
	struct folio *folio;

	if (unlikely(ZERO_OR_NULL_PTR(object)))
		return;
	if (unlikely(!virt_addr_valid(object)))
		slob_wild_pointer("kfree", object);
	folio = virt_to_folio(object);
	if (likely(folio_test_slab(folio)))
		slob_kfree(folio_slab(folio), object);
	else
		free_large_kmalloc(folio, (void *)object);
}
EXPORT_SYMBOL(kfree);

size_t __ksize(const void *object)
{
	struct folio *folio;
	unsigned int h[2];
	size_t size;

	if (unlikely(ZERO_OR_NULL_PTR(object)))
		return 0;
	if (unlikely(!virt_addr_valid(object)))
		slob_wild_pointer("ksize", object);
	folio = virt_to_folio(object);
	if (unlikely(!folio_test_slab(folio)))
		return folio_size(folio);
	slob_check_kmalloc_pointer(object);
	slob_header_get((const unsigned int *)((const char *)object - SLOB_MINALIGN), h);
	size = slob_kmalloc_size(h);
	if (!size)
		slob_bug("ksize of 0x%lx: not a live kmalloc object (size header 0x%08x 0x%08x)",
			 (unsigned long)object, h[0], h[1]);
	/* why no memcheck here: ksize() grows the block, krealloc() must not */
	return (size_t)SLOB_UNITS(size) * SLOB_UNIT;
}

/* ---- kmem_cache ---- */

/* The cache struct kmem_cache comes from; SLOB has no other boot cache. */
static struct kmem_cache kmem_cache_boot;

static void __attribute__((constructor)) slob_constructor(void)
{
	fork_lock_register(&slob_lock.m, FORK_RANK_SLOB);
}

/* Called once by slab_init_slow(); no kmalloc caches under SLOB. */
void kmem_cache_init(void)
{
	slob_objmap_init();
	create_boot_cache(&kmem_cache_boot, "kmem_cache", sizeof(struct kmem_cache),
			  SLAB_PANIC, 0, 0);
	kmem_cache = &kmem_cache_boot;
	mutex_lock(&slab_mutex);
	list_add(&kmem_cache_boot.list, &slab_caches);
	mutex_unlock(&slab_mutex);
	WRITE_ONCE(slab_state, UP);
}

static unsigned long slob_cache_align(const struct kmem_cache *c)
{
	return max((unsigned long)c->align, (unsigned long)ARCH_SLAB_MINALIGN);
}

/* Largest alignment objects of this size can be given (order-0 pages, or blocks). */
static unsigned long slob_max_align(unsigned int size)
{
	return size < PAGE_SIZE ? PAGE_SIZE : PAGE_SIZE << get_order(size);
}

int __kmem_cache_create(struct kmem_cache *c, slab_flags_t flags)
{
	if (!c->size || !is_power_of_2(slob_cache_align(c)))
		return -EINVAL;
	if (flags & SLAB_TYPESAFE_BY_RCU) {	/* room for the aligned RCU footer */
		if (c->size > UINT_MAX - 2 * sizeof(struct slob_rcu))
			return -EINVAL;
		c->size = ALIGN(c->size, (unsigned int)__alignof__(struct slob_rcu)) +
			  sizeof(struct slob_rcu);
	}
	if (c->size >= PAGE_SIZE && get_order(c->size) >= MAX_ORDER)
		return -E2BIG;
	if (slob_cache_align(c) > slob_max_align(c->size))
		return -EINVAL;
	c->flags = flags;
	memset(&c->stat, 0, sizeof(c->stat));
	return 0;
}

static unsigned long slob_cache_active(struct kmem_cache *c)
{
	unsigned long active;

	spin_lock(&slob_lock);
	active = c->stat.allocs - c->stat.frees;
	spin_unlock(&slob_lock);
	return active;
}

/* SLOB keeps no per-cache memory: the cache can go once its objects have. */
int __kmem_cache_shutdown(struct kmem_cache *c)
{
	return slob_cache_active(c) ? -EBUSY : 0;
}

void __kmem_cache_release(struct kmem_cache *c)
{
	(void)c;	/* nothing held per cache */
}

/* Empty pages are freed at once, so only live objects keep pages. */
int __kmem_cache_shrink(struct kmem_cache *c)
{
	return slob_cache_active(c) ? 1 : 0;
}

struct kmem_cache *__kmem_cache_alias(const char *name, unsigned int size,
		unsigned int align, slab_flags_t flags, void (*ctor)(void *))
{
	(void)name, (void)size, (void)align, (void)flags, (void)ctor;
	return NULL;	/* SLOB never merges caches */
}

slab_flags_t kmem_cache_flags(unsigned int object_size, slab_flags_t flags, const char *name)
{
	(void)object_size, (void)name;
	return flags;	/* no debug options under SLOB */
}

static void slob_count_locked(struct slob_stat *st, bool alloc)
{
	spin_lock(&slob_lock);
	if (alloc)
		slob_stat_alloc(st);
	else
		slob_stat_free(st);
	spin_unlock(&slob_lock);
}

/* Objects of a page or more: a block of their own, which names its cache. */
static void *slob_cache_alloc_pages(struct kmem_cache *c, gfp_t flags, int node)
{
	unsigned int order = get_order(c->size);
	struct page *page = slob_new_pages(flags | (order ? __GFP_COMP : 0), order, node);
	struct folio *folio;

	if (!page)
		return NULL;
	folio = page_folio(page);
	/* why: kmem_cache_free checks the owner; NULL again before the pages go */
	folio->mapping = c;
	slob_count_locked(&c->stat, true);
	if (memcheck_active())
		memcheck_alloc(folio_address(folio), c->size, flags & __GFP_ZERO);
	return folio_address(folio);
}

static void *slob_alloc_node(struct kmem_cache *c, gfp_t flags, int node)
{
	void *b;

	if (unlikely(flags & GFP_SLAB_BUG_MASK))
		flags = kmalloc_fix_flags(flags);
	if (c->size < PAGE_SIZE) {
		b = slob_alloc(c->size, flags, slob_cache_align(c), node, 0, &c->stat);
		if (b)
			slob_hand_out(b, c->size, flags);
	} else {
		b = slob_cache_alloc_pages(c, flags, node);
	}
	if (b && (c->flags & SLAB_TYPESAFE_BY_RCU))
		WRITE_ONCE(slob_rcu_footer(c, b)->cache, NULL);	/* allocated: not waiting */
	if (b && c->ctor) {	/* SLOB runs the constructor on every allocation */
		if (unlikely(flags & __GFP_ZERO))
			slab_warn("mm/slob.c:slob_alloc_node",
				  "%s: __GFP_ZERO on a cache with a constructor\n", c->name);
		c->ctor(b);
	}
	return b;
}

void *kmem_cache_alloc_node(struct kmem_cache *c, gfp_t flags, int node)
{
	if (unlikely(!c)) {
		slab_warn("mm/slob.c:kmem_cache_alloc_node", "kmem_cache_alloc on a NULL cache\n");
		return NULL;
	}
	return slob_alloc_node(c, flags, node);
}
EXPORT_SYMBOL(kmem_cache_alloc_node);

void *kmem_cache_alloc(struct kmem_cache *c, gfp_t flags)
{
	return kmem_cache_alloc_node(c, flags, NUMA_NO_NODE);
}
EXPORT_SYMBOL(kmem_cache_alloc);

static void slob_cache_free_pages(struct kmem_cache *c, void *b, const struct slob_free_ctx *x)
{
	unsigned int order = get_order(c->size);
	struct folio *folio = virt_to_folio(b);

	if (folio_ref_count(folio) == 0)
		slob_bug("double free of object 0x%lx (size %zu) in %s: its pages are free",
			 (unsigned long)b, x->size, x->cache);
	if (folio_test_slab(folio) || folio_test_large_kmalloc(folio) ||
	    b != folio_address(folio) || folio_order(folio) != order)
		slob_bad_free(x, "not the start of a block of this cache's size");
	if (unlikely(folio->mapping != c))
		slob_page_owner_bad(folio->mapping, x);
	folio->mapping = NULL;
	slob_count_locked(&c->stat, false);
	if (memcheck_active()) {
		memcheck_free(b, c->size);
		memcheck_undefined(b, PAGE_SIZE << order);
	}
	__free_pages(folio_page(folio, 0), order);
}

static void slob_cache_free(struct kmem_cache *c, void *b, const struct slob_free_ctx *x)
{
	struct slab *sp = virt_to_slab(b);

	if (!sp)
		slob_bad_free(x, "not in a slob page");
	if (!IS_ALIGNED((unsigned long)b, slob_cache_align(c)))
		slob_bad_free(x, "not aligned as the cache's objects are");
	slob_free(c, sp, b, x);
}

/* ---- SLAB_TYPESAFE_BY_RCU: the block is freed after a grace period (§7) ---- */

/* Abort unless b is a live object of c: a free's checks, nothing freed. */
static void slob_check_live(struct kmem_cache *c, void *b, const struct slob_free_ctx *x)
{
	struct folio *folio = virt_to_folio(b);
	struct slab *sp;

	if (c->size >= PAGE_SIZE) {
		if (!folio_ref_count(folio) || folio->mapping != c || b != folio_address(folio))
			slob_bad_free(x, "not a live object of this cache");
		return;
	}
	sp = virt_to_slab(b);
	if (!sp || !IS_ALIGNED((unsigned long)b, slob_cache_align(c)))
		slob_bad_free(x, "not an object of a slob page aligned as the cache's");
	spin_lock(&slob_lock);
	slob_check_cache_obj(sp, b, x);
	slob_check_extent(sp, b, (char *)b + c->size, x);
	spin_unlock(&slob_lock);
}

/* The grace period is over: free the block as kmem_cache_free() would. */
static void slob_rcu_free(struct rcu_head *head)
{
	struct slob_rcu *r = container_of(head, struct slob_rcu, head);
	struct kmem_cache *c = READ_ONCE(r->cache);
	void *b = (char *)(r + 1) - c->size;
	struct slob_free_ctx x = { b, c->size, c->name };

	if (c->size < PAGE_SIZE)
		slob_cache_free(c, b, &x);
	else
		slob_cache_free_pages(c, b, &x);
}

/* Checked now, so a bad free is reported by its caller; freed after readers. */
static void slob_free_rcu(struct kmem_cache *c, void *b, const struct slob_free_ctx *x)
{
	struct slob_rcu *r = slob_rcu_footer(c, b);

	slob_check_live(c, b, x);
	/* why an exchange: of two racing frees of one object, one is the double */
	if (__atomic_exchange_n(&r->cache, c, __ATOMIC_RELAXED) != NULL)
		slob_bug("double free of object 0x%lx (size %zu) in %s: it already waits for an "
			 "RCU grace period", (unsigned long)b, x->size, x->cache);
	call_rcu(&r->head, slob_rcu_free);
}

void kmem_cache_free(struct kmem_cache *c, void *b)
{
	struct slob_free_ctx x = { b, c ? c->size : 0, c ? c->name : "(null)" };

	if (unlikely(!c))
		slob_bug("kmem_cache_free of 0x%lx with a NULL cache", (unsigned long)b);
	if (unlikely(ZERO_OR_NULL_PTR(b)))
		return;
	if (unlikely(!virt_addr_valid(b)))
		slob_wild_pointer("kmem_cache_free", b);
	if (unlikely(c->flags & SLAB_TYPESAFE_BY_RCU))
		slob_free_rcu(c, b, &x);
	else if (c->size < PAGE_SIZE)
		slob_cache_free(c, b, &x);
	else
		slob_cache_free_pages(c, b, &x);
}
EXPORT_SYMBOL(kmem_cache_free);

void kmem_cache_free_bulk(struct kmem_cache *c, size_t nr, void **p)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (c)
			kmem_cache_free(c, p[i]);
		else
			kfree(p[i]);
	}
}
EXPORT_SYMBOL(kmem_cache_free_bulk);

/* All or nothing: returns nr, or 0 with nothing allocated. */
int kmem_cache_alloc_bulk(struct kmem_cache *c, gfp_t flags, size_t nr, void **p)
{
	size_t i;

	if (unlikely(nr > INT_MAX))
		return 0;
	for (i = 0; i < nr; i++) {
		p[i] = kmem_cache_alloc(c, flags);
		if (unlikely(!p[i])) {
			kmem_cache_free_bulk(c, i, p);
			return 0;
		}
	}
	return (int)nr;
}
EXPORT_SYMBOL(kmem_cache_alloc_bulk);

/* ---- slabinfo and SLOB's own report ---- */

/* Units one object of c takes in a slob page (alignment padding not counted). */
static unsigned int slob_object_units(const struct kmem_cache *c)
{
	return (unsigned int)SLOB_UNITS(c->size);
}

/*
 * SLOB's pages are shared by every cache, so a row counts objects only:
 * num_objs = active_objs, and slabs only for page-backed caches (one block
 * per object).  See docs/slob-info.md.
 */
void get_slabinfo(struct kmem_cache *c, struct slabinfo *sinfo)
{
	unsigned long active = slob_cache_active(c);
	bool paged = c->size >= PAGE_SIZE;

	memset(sinfo, 0, sizeof(*sinfo));
	sinfo->active_objs = active;
	sinfo->num_objs = active;
	sinfo->active_slabs = paged ? active : 0;
	sinfo->num_slabs = sinfo->active_slabs;
	sinfo->objects_per_slab = paged ? 1 : (unsigned int)SLOB_PAGE_UNITS / slob_object_units(c);
	sinfo->cache_order = paged ? get_order(c->size) : 0;
}

/*
 * Counts for stats.c (the kernel's /sys/kernel/slab files).  A SLOB cache
 * has no slabs of its own: its objects share the slob pages with every
 * other cache, so partial and cpu slabs are 0 and the slab counts are
 * those of get_slabinfo (pages of page-backed caches); SLUB's tunables
 * have no SLOB counterpart (CACHE_STAT_NONE).
 */
void get_cache_stats(struct kmem_cache *c, struct cache_stats *st)
{
	struct slabinfo si;

	get_slabinfo(c, &si);
	st->objs_per_slab = si.objects_per_slab;
	st->order = si.cache_order;
	st->objects = si.active_objs;
	st->total_objects = si.num_objs;
	st->slabs = si.num_slabs;
	st->partial = st->objects_partial = st->cpu_slabs = 0;
	st->min_partial = st->cpu_partial = st->slabs_cpu_partial = CACHE_STAT_NONE;
}

void slabinfo_show_stats(FILE *f, struct kmem_cache *c)
{
	struct slob_stat st;

	spin_lock(&slob_lock);
	st = c->stat;
	spin_unlock(&slob_lock);
	fprintf(f, " : slobstat %8lu %8lu %6lu", st.allocs, st.frees, st.high);
}

int slabinfo_write_line(const char *line)
{
	(void)line;
	return -EIO;	/* SLOB has no tunables */
}

/* Sum up one list (slob_lock held). */
static void slob_list_info(struct list_head *list, struct uslab_slob_list_info *li)
{
	struct slab *sp;
	slob_t *f;

	memset(li, 0, sizeof(*li));
	list_for_each_entry(sp, list, slab_list) {
		li->pages++;
		li->free_units += (unsigned long)sp->units;
		for (f = sp->freelist; ; f = slob_next_checked(f)) {
			li->free_blocks++;
			li->largest_block = max(li->largest_block, (unsigned long)slob_units(f));
			if (slob_last(f))
				break;
		}
	}
}

static struct list_head *const slob_lists[USLAB_SLOB_NR_LISTS] = {
	[USLAB_SLOB_SMALL] = &free_slob_small,
	[USLAB_SLOB_MEDIUM] = &free_slob_medium,
	[USLAB_SLOB_LARGE] = &free_slob_large,
};

void slob_get_info(struct uslab_slob_info *info)
{
	unsigned long listed = 0;
	int i;

	memset(info, 0, sizeof(*info));
	spin_lock(&slob_lock);
	for (i = 0; i < USLAB_SLOB_NR_LISTS; i++) {
		slob_list_info(slob_lists[i], &info->list[i]);
		listed += info->list[i].pages;
	}
	info->pages = nr_slob_pages;
	info->full_pages = nr_slob_pages - listed;
	info->kmalloc_allocs = kmalloc_stat.allocs;
	info->kmalloc_frees = kmalloc_stat.frees;
	info->kmalloc_high = kmalloc_stat.high;
	spin_unlock(&slob_lock);
}
EXPORT_SYMBOL(slob_get_info);

static void slob_show_lists(FILE *f, const struct uslab_slob_info *info)
{
	static const char *const names[USLAB_SLOB_NR_LISTS] = { "small", "medium", "large" };
	int i;

	fprintf(f, "# list     <pages> <free_units> <free_blocks> <largest_block>\n");
	for (i = 0; i < USLAB_SLOB_NR_LISTS; i++)
		fprintf(f, "%-8s %9lu %12lu %13lu %15lu\n", names[i], info->list[i].pages,
			info->list[i].free_units, info->list[i].free_blocks,
			info->list[i].largest_block);
	fprintf(f, "# pages    <held> <full>\n");
	fprintf(f, "pages    %8lu %6lu\n", info->pages, info->full_pages);
}

static void slob_show_cache(FILE *f, const char *name, unsigned int size, const struct slob_stat *st)
{
	fprintf(f, "%-17s %6lu %7u %7lu %8lu %8lu %6lu\n", name, st->allocs - st->frees, size,
		(unsigned long)SLOB_UNITS(size), st->allocs, st->frees, st->high);
}

void slob_show_info(FILE *f)
{
	struct uslab_slob_info info;
	struct slob_stat st;
	struct kmem_cache *c;

	slab_ensure_init();
	slob_get_info(&info);
	fprintf(f, "slobinfo - version: 1.0\n");
	slob_show_lists(f, &info);
	fprintf(f, "# name            <active_objs> <objsize> <units> <allocs> <frees> <high>\n");
	st = (struct slob_stat){ info.kmalloc_allocs, info.kmalloc_frees, info.kmalloc_high };
	slob_show_cache(f, "kmalloc", 0, &st);
	mutex_lock(&slab_mutex);
	list_for_each_entry(c, &slab_caches, list) {
		spin_lock(&slob_lock);
		st = c->stat;
		spin_unlock(&slob_lock);
		slob_show_cache(f, c->name, c->size, &st);
	}
	mutex_unlock(&slab_mutex);
}
EXPORT_SYMBOL(slob_show_info);

/* Which list sp is on and where (slob_lock held). */
static void slob_page_position(const struct slab *sp, struct uslab_slob_page_info *pi)
{
	const struct slab *p;
	int i;

	pi->list = USLAB_SLOB_UNLISTED;
	pi->position = 0;
	for (i = 0; slob_page_free(sp) && i < USLAB_SLOB_NR_LISTS; i++) {
		pi->position = 0;
		list_for_each_entry(p, slob_lists[i], slab_list) {
			if (p == sp) {
				pi->list = i;
				return;
			}
			pi->position++;
		}
	}
}

static unsigned int slob_page_blocks(const struct slab *sp, struct uslab_slob_block *blocks,
		unsigned int max_blocks)
{
	unsigned int n = 0;
	slob_t *f;

	for (f = sp->units ? sp->freelist : NULL; f; f = slob_last(f) ? NULL : slob_next_checked(f)) {
		if (n < max_blocks)
			blocks[n] = (struct uslab_slob_block){ (unsigned int)slob_offset(f),
				(unsigned int)slob_units(f),
				(unsigned int)(slob_next(f) - slob_page_base(f)) };
		n++;
	}
	return n;
}

int slob_page_info(const void *addr, struct uslab_slob_page_info *pi,
		struct uslab_slob_block *blocks, unsigned int max_blocks)
{
	struct slab *sp;

	if (!virt_addr_valid(addr))
		return -EINVAL;
	spin_lock(&slob_lock);
	sp = virt_to_slab(addr);
	if (!sp || sp->units == SLOB_PAGE_UNITS) {	/* not slob, or being freed */
		spin_unlock(&slob_lock);
		return -EINVAL;
	}
	if (pi) {
		pi->page = slab_address(sp);
		pi->free_units = (unsigned long)sp->units;
		slob_page_position(sp, pi);
		pi->free_blocks = slob_page_blocks(sp, blocks, max_blocks);
	}
	spin_unlock(&slob_lock);
	return 0;
}
EXPORT_SYMBOL(slob_page_info);

int slob_list_pages(int list, void **pages, unsigned int max)
{
	struct slab *sp;
	int n = 0;

	if (list < 0 || list >= USLAB_SLOB_NR_LISTS)
		return -EINVAL;
	spin_lock(&slob_lock);
	list_for_each_entry(sp, slob_lists[list], slab_list) {
		if ((unsigned int)n < max)
			pages[n] = slab_address(sp);
		n++;
	}
	spin_unlock(&slob_lock);
	return n;
}
EXPORT_SYMBOL(slob_list_pages);
