/* SPDX-License-Identifier: MIT */
/*
 * slob_def.h - SLOB's own types: struct slab narrowed to the fields SLOB
 * uses, and the minimal struct kmem_cache.  Included only by src/mm/slab.h
 * when the library is built with CONFIG_SLOB=1; see the top of slob.c for
 * how SLOB works.
 *
 * Glossary
 *   unit        2 bytes (one slob_t); every SLOB size and offset is in units.
 *   block       a run of units inside one page, free or allocated.
 *   slob page   an order-0 page with PG_slab set, carved into blocks.
 *   object map  per slob page, one bit per 8 bytes: set where a live
 *               object (the pointer its user holds) starts.
 */
#ifndef USLAB_MM_SLOB_DEF_H
#define USLAB_MM_SLOB_DEF_H

/* kmalloc geometry of SLOB (include/linux/slab.h of 5.17): there are no
 * kmalloc caches; requests below a page come from the slob pages. */
#define KMALLOC_SHIFT_LOW	3				/* 8 bytes */
#define KMALLOC_SHIFT_HIGH	PAGE_SHIFT			/* 4 KiB */
#define KMALLOC_SHIFT_MAX	(DEFAULT_MAX_ORDER + PAGE_SHIFT - 1)	/* 4 MiB */

/*
 * A slob page.  Overlays struct page (the SLAB_MATCH lines in slab.h pin the
 * shared fields); offsets as in the kernel's SLOB view of 5.17.
 */
struct slab {
	unsigned long __page_flags;	/* PG_slab (set once), PG_slob_free (slob_lock) */
	struct list_head slab_list;	/* on a free_slob_* list while PG_slob_free (slob_lock) */
	unsigned long *objmap;		/* live object starts, a bit per 8 bytes; NULL once
					 * the page leaves SLOB (overlays page->mapping; slob_lock) */
	void *freelist;			/* first free block, NULL when units == 0 (slob_lock) */
	long units;			/* free units in the page (slob_lock) */
	unsigned int __unused_2;	/* overlays _mapcount: left at -1 */
	atomic_t __page_refcount;	/* the page allocator's refcount (1 while a slob page) */
	unsigned long memcg_data;	/* always 0: SLOB accounts nothing (as Linux) */
};

/* Allocation and free counts of one cache, for SLOB's slabinfo (slob_lock). */
struct slob_stat {
	unsigned long allocs;		/* objects handed out since creation */
	unsigned long frees;		/* objects given back since creation */
	unsigned long high;		/* most objects live at once */
};

/*
 * SLOB's cache: only what the common code needs plus the counters behind
 * SLOB's slabinfo.  Objects carry no header; kmem_cache_free() frees `size`
 * bytes at the object.
 */
struct kmem_cache {
	unsigned int object_size;	/* size the creator asked for (constant) */
	unsigned int size;		/* bytes taken per object, with the RCU footer (constant) */
	unsigned int align;		/* alignment of objects (constant) */
	slab_flags_t flags;		/* SLAB_* flags in force (constant) */
	unsigned int useroffset;	/* usercopy window start (constant) */
	unsigned int usersize;		/* usercopy window size (constant) */
	const char *name;		/* cache name (constant) */
	int refcount;			/* 1; -1 for the boot cache (slab_mutex) */
	void (*ctor)(void *);		/* run on every allocation, or NULL (constant) */
	struct list_head list;		/* on slab_caches (slab_mutex) */
	struct slob_stat stat;		/* allocation counts (slob_lock) */
};

#endif /* USLAB_MM_SLOB_DEF_H */
