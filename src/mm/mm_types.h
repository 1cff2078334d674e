/* SPDX-License-Identifier: MIT */
/*
 * mm_types.h - struct page and struct folio, the memory map's entries.
 *
 * Glossary
 *   page     one 4 KiB page of the arena ("physical memory"); pfn = its index.
 *   struct page  the 64-byte descriptor of a page, in the vmemmap array.
 *   block    a naturally aligned run of 2^order pages managed as one unit.
 *   head/tail  the first page of a compound block, and the others.
 *   folio    the head page of a block seen as a whole (never a tail page).
 *   section  2^SECTION_SHIFT bytes of arena brought into use at once.
 *
 * The overlay contract.  struct page is a union of identities.  Each
 * identity names the fields it uses; words not named by the identity in
 * force hold whatever the previous identity left.  Rules every identity
 * (including struct slab in src/mm/slab.h) must keep:
 *   - offset 0 is flags, always; atomically updated bits live there.
 *   - bit 0 of the word at offset 8 set means "tail page": every identity
 *     that overlays that word stores an aligned pointer there (bit 0 clear).
 *   - offset 48 is _mapcount / page_type (-1 when unused; PageBuddy etc.).
 *   - offset 52 is _refcount; offset 56 is memcg_data.
 * The _Static_asserts at the end of this file pin these offsets; struct
 * slab's SLAB_MATCH asserts pin its fields to them.
 */
#ifndef USLAB_MM_MM_TYPES_H
#define USLAB_MM_MM_TYPES_H

#include "compiler.h"
#include "list.h"
#include "atomic.h"

#define PAGE_SHIFT	12
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#define PAGE_MASK	(~(PAGE_SIZE - 1))
#define PAGE_ALIGN(x)	ALIGN((unsigned long)(x), PAGE_SIZE)

/* Largest MAX_ORDER the arrays are sized for; the run-time max_order option
 * (default DEFAULT_MAX_ORDER: orders 0..10, 4 MiB blocks) may not exceed it. */
#define MAX_ORDER_LIMIT		16
#define DEFAULT_MAX_ORDER	11
#define PAGE_ALLOC_COSTLY_ORDER	3

/* An RCU callback (rcu.c); the layout of <uslab/rcupdate.h>'s and liburcu's. */
struct rcu_head {
	struct rcu_head *next;			/* RCU callback chain (aligned: bit 0 clear) */
	void (*func)(struct rcu_head *head);	/* called after a grace period */
};

struct page {
	unsigned long flags;			/* PG_* bits (page-flags.h) and node id */
	union {
		struct {	/* free buddy block, large kmalloc folio, generic */
			struct list_head lru;	/* buddy: free_area / pcp list link (zone lock or owning cpu) */
			void *mapping;		/* unused by uslab; slab_cache overlays it */
			unsigned long index;	/* large kmalloc: requested size; free buddy
						 * block head: coarse ms it was freed (zone lock) */
			unsigned long private;	/* buddy: order of the free block */
		};
		struct {	/* compound tail page */
			unsigned long compound_head;	/* head page address | 1 */
			unsigned char compound_dtor;	/* first tail: destructor id */
			unsigned char compound_order;	/* first tail: order of the block */
			atomic_t compound_mapcount;	/* first tail: -1 */
			unsigned int compound_nr;	/* first tail: 1 << order */
		};
		struct {	/* second tail page of a compound block */
			unsigned long _compound_pad_1;	/* compound_head */
			atomic_t hpage_pinned_refcount;
			struct list_head deferred_list;
		};
		struct rcu_head rcu_head;	/* deferred free after a grace period */
	};
	union {
		atomic_t _mapcount;		/* -1 when unmapped (always, in uslab) */
		unsigned int page_type;		/* PageBuddy etc., see page-flags.h */
	};
	atomic_t _refcount;			/* 0 when free, 1+ when allocated (head only) */
	unsigned long memcg_data;		/* obj_cgroup vector (slab) or memcg (kmem) */
} __aligned(2 * sizeof(unsigned long));

/*
 * struct folio: the head page of a block, viewed as a whole.  Same size and
 * the same field offsets as struct page; a folio is never a tail page.
 */
struct folio {
	union {
		struct {
			unsigned long flags;
			struct list_head lru;
			void *mapping;
			unsigned long index;
			unsigned long private;
			atomic_t _mapcount;
			atomic_t _refcount;
			unsigned long memcg_data;
		};
		struct page page;
	};
};

#define PAGE_OFFSETOF(f)	offsetof(struct page, f)
_Static_assert(sizeof(struct page) == 64, "struct page must be 64 bytes");
_Static_assert(PAGE_OFFSETOF(flags) == 0, "flags at 0");
_Static_assert(PAGE_OFFSETOF(lru) == 8, "lru at 8");
_Static_assert(PAGE_OFFSETOF(compound_head) == 8, "compound_head overlays lru.next");
_Static_assert(PAGE_OFFSETOF(rcu_head) == 8, "rcu_head at 8");
_Static_assert(PAGE_OFFSETOF(mapping) == 24, "mapping at 24");
_Static_assert(PAGE_OFFSETOF(private) == 40, "private at 40");
_Static_assert(PAGE_OFFSETOF(_mapcount) == 48, "_mapcount at 48");
_Static_assert(PAGE_OFFSETOF(page_type) == 48, "page_type at 48");
_Static_assert(PAGE_OFFSETOF(_refcount) == 52, "_refcount at 52");
_Static_assert(PAGE_OFFSETOF(memcg_data) == 56, "memcg_data at 56");

#define FOLIO_MATCH(pg, fl) \
	_Static_assert(offsetof(struct page, pg) == offsetof(struct folio, fl), \
		       "folio." #fl " must overlay page." #pg)
FOLIO_MATCH(flags, flags);
FOLIO_MATCH(lru, lru);
FOLIO_MATCH(compound_head, lru);
FOLIO_MATCH(mapping, mapping);
FOLIO_MATCH(index, index);
FOLIO_MATCH(private, private);
FOLIO_MATCH(_mapcount, _mapcount);
FOLIO_MATCH(_refcount, _refcount);
FOLIO_MATCH(memcg_data, memcg_data);
#undef FOLIO_MATCH
_Static_assert(sizeof(struct folio) == sizeof(struct page), "folio is a page");

#endif /* USLAB_MM_MM_TYPES_H */
