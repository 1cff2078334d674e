/* SPDX-License-Identifier: MIT */
/*
 * mm.h - the memory map's arithmetic: pfn <-> struct page <-> address.
 *
 * The arena (our "physical memory") starts at arena_start (the kernel's
 * PAGE_OFFSET) and the struct page array at vmemmap (VMEMMAP_START), both
 * reserved once by memmap.c.  pfn = (addr - arena_start) >> PAGE_SHIFT, so
 * every conversion below is pure arithmetic (SPARSEMEM_VMEMMAP).
 *
 * Conversions assume a valid argument; pfn_valid()/virt_addr_valid() are the
 * checks for addresses that may lie outside the arena or in a section that
 * is not online.
 */
#ifndef USLAB_MM_MM_H
#define USLAB_MM_MM_H

#include "mm_types.h"
#include "page-flags.h"

/* Set once by memmap_init() and never changed afterwards. */
struct memmap_layout {
	unsigned long arena_start;	/* first byte of the arena (PAGE_OFFSET) */
	unsigned long arena_end;	/* one past the last reserved byte */
	struct page *vmemmap;		/* struct page of pfn 0 */
	unsigned long max_pfn;		/* pfns 0 .. max_pfn-1 are reserved */
	unsigned int section_shift;	/* log2 of the section size in bytes */
	unsigned int max_order;		/* buddy orders 0 .. max_order-1 */
	unsigned long *section_flags;	/* per section: SECTION_* bits */
	unsigned long valid_pfn_end;	/* pfns below have initialised struct pages
					 * (release store, memmap_lock; sections
					 * come online in address order) */
};
extern struct memmap_layout memmap;

#define SECTION_MARKED_PRESENT	0x1UL	/* address space reserved for it */
#define SECTION_HAS_MEM_MAP	0x2UL	/* its struct pages are committed */
#define SECTION_IS_ONLINE	0x4UL	/* its pages were handed to the buddy allocator */

#define PFN_SECTION_SHIFT	(memmap.section_shift - PAGE_SHIFT)
#define PAGES_PER_SECTION	(1UL << PFN_SECTION_SHIFT)
#define MAX_ORDER		(memmap.max_order)
#define MAX_ORDER_NR_PAGES	(1UL << (MAX_ORDER - 1))

static inline unsigned long pfn_to_section_nr(unsigned long pfn)
{
	return pfn >> PFN_SECTION_SHIFT;
}

static inline struct page *pfn_to_page(unsigned long pfn)
{
	return memmap.vmemmap + pfn;
}

static inline unsigned long page_to_pfn(const struct page *page)
{
	return (unsigned long)(page - memmap.vmemmap);
}

static inline unsigned long virt_to_pfn(const void *addr)
{
	return ((unsigned long)addr - memmap.arena_start) >> PAGE_SHIFT;
}

static inline struct page *virt_to_page(const void *addr)
{
	return pfn_to_page(virt_to_pfn(addr));
}

static inline void *pfn_to_virt(unsigned long pfn)
{
	return (void *)(memmap.arena_start + (pfn << PAGE_SHIFT));
}

static inline void *page_address(const struct page *page)
{
	return pfn_to_virt(page_to_pfn(page));
}

/* Is pfn inside the arena and in a section whose struct pages exist?  One
 * compare: the sections with HAS_MEM_MAP are exactly those below
 * valid_pfn_end (memmap.c §6). */
static inline bool pfn_valid(unsigned long pfn)
{
	return pfn < smp_load_acquire(&memmap.valid_pfn_end);
}

/* Constant time: is addr an arena address whose struct page may be read? */
static inline bool virt_addr_valid(const void *addr)
{
	unsigned long a = (unsigned long)addr;

	return a >= memmap.arena_start && a < memmap.arena_end &&
	       pfn_valid(virt_to_pfn(addr));
}

/* ---- folios ---- */
static inline struct folio *page_folio(const struct page *page)
{
	return (struct folio *)compound_head(page);
}

static inline struct page *folio_page(const struct folio *folio, unsigned long n)
{
	return (struct page *)&folio->page + n;
}

static inline struct folio *virt_to_folio(const void *addr)
{
	return page_folio(virt_to_page(addr));
}

static inline void *folio_address(const struct folio *folio)
{
	return page_address(&folio->page);
}

static inline unsigned long folio_pfn(const struct folio *folio)
{
	return page_to_pfn(&folio->page);
}

static inline unsigned int folio_order(const struct folio *folio)
{
	if (!folio_test_large(folio))
		return 0;
	return folio_page(folio, 1)->compound_order;
}

static inline unsigned long folio_nr_pages(const struct folio *folio)
{
	return 1UL << folio_order(folio);
}

static inline size_t folio_size(const struct folio *folio)
{
	return PAGE_SIZE << folio_order(folio);
}

static inline int folio_nid(const struct folio *folio)
{
	return page_to_nid(&folio->page);
}

static inline unsigned int compound_order(const struct page *page)
{
	if (!PageHead(page))
		return 0;
	return page[1].compound_order;
}

static inline int page_count(const struct page *page)
{
	return atomic_read(&compound_head(page)->_refcount);
}

static inline int folio_ref_count(const struct folio *folio)
{
	return atomic_read(&folio->_refcount);
}

/* get_order(size): smallest order whose block holds size bytes (size > 0). */
static inline unsigned int get_order(unsigned long size)
{
	if (size <= PAGE_SIZE)
		return 0;
	return (unsigned int)fls64((size - 1) >> PAGE_SHIFT);
}

#endif /* USLAB_MM_MM_H */
