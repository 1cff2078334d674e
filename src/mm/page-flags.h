/* SPDX-License-Identifier: MIT */
/*
 * page-flags.h - PG_* bits in page->flags and page types in page->page_type.
 *
 * Bit numbers follow the kernel's 5.17 enum pageflags where the meaning is
 * the same.  uslab adds PG_large_kmalloc so that tools can tell a large
 * kmalloc folio from other page-allocator users without guessing.
 *
 * Which bits are set, per identity of a head page:
 *   free buddy block head  page_type has PG_buddy cleared; private = order;
 *                          PG_reported if its memory was given back to the OS,
 *                          PG_mixed if only some of it was (or never touched)
 *   slab                   PG_slab (+ PG_head if order > 0); PG_active = pfmemalloc;
 *                          PG_locked = SLUB's slab bit lock; PG_slob_free (SLOB)
 *   large kmalloc          PG_large_kmalloc (+ PG_head if order > 0)
 *   compound tail          compound_head = head | 1; no flags of its own
 */
#ifndef USLAB_MM_PAGE_FLAGS_H
#define USLAB_MM_PAGE_FLAGS_H

#include "mm_types.h"
#include <uslab/flags.h>	/* NUMA_NO_NODE */

enum pageflags {
	PG_locked = 0,		/* SLUB slab_lock (bit spinlock) */
	PG_referenced = 1,
	PG_uptodate = 2,
	PG_dirty = 3,
	PG_lru = 4,
	PG_active = 5,		/* slab: allocated from pfmemalloc reserves */
	PG_slab = 9,		/* head page of a slab */
	PG_private = 13,
	PG_head = 16,		/* head page of a compound block (order > 0) */
	PG_large_kmalloc = 20,	/* uslab: head of a large kmalloc folio */
	PG_zeroed = 21,		/* uslab: free block known to read as zeros */
	PG_mixed = 22,		/* uslab: free block, part reported, part not */
	NR_PAGEFLAGS = 23,

	PG_reported = PG_uptodate,	/* free block given back to the OS (madvise) */
	PG_slob_free = PG_private,	/* SLOB page is on a free list */
};

/* Node id in the high bits of flags (one node today, but kept like the kernel). */
#define NODES_SHIFT		2
#define MAX_NUMNODES		(1 << NODES_SHIFT)
#define NODES_PGSHIFT		(64 - NODES_SHIFT)

static inline int page_to_nid(const struct page *page)
{
	return (int)(READ_ONCE(page->flags) >> NODES_PGSHIFT);
}

static inline void set_page_node(struct page *page, int nid)
{
	page->flags = (page->flags & ~(~0UL << NODES_PGSHIFT)) |
		      ((unsigned long)nid << NODES_PGSHIFT);
}

/* Tail pages: bit 0 of compound_head. */
static inline bool PageTail(const struct page *page)
{
	return READ_ONCE(page->compound_head) & 1;
}

static inline struct page *compound_head(const struct page *page)
{
	unsigned long head = READ_ONCE(page->compound_head);

	if (unlikely(head & 1))
		return (struct page *)(head - 1);
	return (struct page *)page;
}

#define PAGEFLAG(Name, bit)						\
static inline bool Page##Name(const struct page *p)			\
	{ return test_bit(bit, &p->flags); }				\
static inline void SetPage##Name(struct page *p) { set_bit(bit, &p->flags); }	\
static inline void ClearPage##Name(struct page *p) { clear_bit(bit, &p->flags); } \
static inline void __SetPage##Name(struct page *p) { __set_bit(bit, &p->flags); } \
static inline void __ClearPage##Name(struct page *p) { __clear_bit(bit, &p->flags); }

PAGEFLAG(Locked, PG_locked)
PAGEFLAG(Active, PG_active)
PAGEFLAG(Slab, PG_slab)
PAGEFLAG(Head, PG_head)
PAGEFLAG(LargeKmalloc, PG_large_kmalloc)
PAGEFLAG(Reported, PG_reported)
PAGEFLAG(Zeroed, PG_zeroed)
PAGEFLAG(Mixed, PG_mixed)
PAGEFLAG(SlobFree, PG_slob_free)
#undef PAGEFLAG

/*
 * Page types live in page_type, which overlays _mapcount (-1 when unused).
 * A type is set by clearing its bit; the base bits stay set so that a real
 * mapcount can never look like a type.
 */
#define PAGE_TYPE_BASE	0xf0000000u
#define PG_buddy	0x00000080u

static inline bool PageBuddy(const struct page *page)
{
	return (READ_ONCE(page->page_type) & (PAGE_TYPE_BASE | PG_buddy)) == PAGE_TYPE_BASE;
}
static inline void __SetPageBuddy(struct page *page) { page->page_type &= ~PG_buddy; }
static inline void __ClearPageBuddy(struct page *page) { page->page_type |= PG_buddy; }

/* Folio wrappers: a folio is always a head (or order-0) page. */
#define FOLIO_FLAG(name, Name)						\
static inline bool folio_test_##name(const struct folio *f) { return Page##Name(&f->page); } \
static inline void __folio_set_##name(struct folio *f) { __SetPage##Name(&f->page); } \
static inline void __folio_clear_##name(struct folio *f) { __ClearPage##Name(&f->page); } \
static inline void folio_set_##name(struct folio *f) { SetPage##Name(&f->page); } \
static inline void folio_clear_##name(struct folio *f) { ClearPage##Name(&f->page); }

FOLIO_FLAG(locked, Locked)
FOLIO_FLAG(active, Active)
FOLIO_FLAG(slab, Slab)
FOLIO_FLAG(head, Head)
FOLIO_FLAG(large_kmalloc, LargeKmalloc)
#undef FOLIO_FLAG

static inline bool folio_test_large(const struct folio *f) { return folio_test_head(f); }

#endif /* USLAB_MM_PAGE_FLAGS_H */
