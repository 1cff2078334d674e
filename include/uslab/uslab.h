/* SPDX-License-Identifier: MIT */
/*
 * uslab.h - the prefixed public API of uslab.
 *
 * Every symbol the library exports is uslab_ + the kernel's name for it
 * (uslab_kmalloc, uslab_kmem_cache_create, uslab_alloc_pages, ...), so it
 * never collides with a program's own names.  For the kernel's own names,
 * include <uslab/slab.h> (slab and kmalloc API) or <uslab/gfp.h> (pages).
 *
 * The library initialises itself on first use.  Options are read once from
 * the environment variable USLAB_OPTIONS (see uslab-options(7)).
 */
#ifndef USLAB_USLAB_H
#define USLAB_USLAB_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define USLAB_API __attribute__((visibility("default")))

#define USLAB_VERSION_MAJOR 0
#define USLAB_VERSION_MINOR 1
#define USLAB_VERSION_PATCH 0

typedef unsigned int uslab_gfp_t;
typedef unsigned int uslab_slab_flags_t;

struct kmem_cache;	/* opaque: defined by the allocator the library was built with */
struct page;		/* opaque: one entry of the memory map */
struct folio;		/* opaque: the head page of a block */

/* GFP bits (values of Linux 5.17). */
#define USLAB___GFP_DMA			0x01u
#define USLAB___GFP_HIGHMEM		0x02u
#define USLAB___GFP_DMA32		0x04u
#define USLAB___GFP_MOVABLE		0x08u
#define USLAB___GFP_RECLAIMABLE		0x10u
#define USLAB___GFP_HIGH		0x20u
#define USLAB___GFP_IO			0x40u
#define USLAB___GFP_FS			0x80u
#define USLAB___GFP_ZERO		0x100u
#define USLAB___GFP_ATOMIC		0x200u
#define USLAB___GFP_DIRECT_RECLAIM	0x400u
#define USLAB___GFP_KSWAPD_RECLAIM	0x800u
#define USLAB___GFP_WRITE		0x1000u
#define USLAB___GFP_NOWARN		0x2000u
#define USLAB___GFP_RETRY_MAYFAIL	0x4000u
#define USLAB___GFP_NOFAIL		0x8000u
#define USLAB___GFP_NORETRY		0x10000u
#define USLAB___GFP_MEMALLOC		0x20000u
#define USLAB___GFP_COMP		0x40000u
#define USLAB___GFP_NOMEMALLOC		0x80000u
#define USLAB___GFP_HARDWALL		0x100000u
#define USLAB___GFP_THISNODE		0x200000u
#define USLAB___GFP_ACCOUNT		0x400000u
#define USLAB___GFP_ZEROTAGS		0x800000u
#define USLAB___GFP_SKIP_KASAN_POISON	0x1000000u
#define USLAB___GFP_BITS_SHIFT		25
#define USLAB___GFP_BITS_MASK		((1u << USLAB___GFP_BITS_SHIFT) - 1)

#define USLAB___GFP_RECLAIM	(USLAB___GFP_DIRECT_RECLAIM | USLAB___GFP_KSWAPD_RECLAIM)
#define USLAB_GFP_ATOMIC	(USLAB___GFP_HIGH | USLAB___GFP_ATOMIC | USLAB___GFP_KSWAPD_RECLAIM)
#define USLAB_GFP_KERNEL	(USLAB___GFP_RECLAIM | USLAB___GFP_IO | USLAB___GFP_FS)
#define USLAB_GFP_KERNEL_ACCOUNT (USLAB_GFP_KERNEL | USLAB___GFP_ACCOUNT)
#define USLAB_GFP_NOWAIT	(USLAB___GFP_KSWAPD_RECLAIM)
#define USLAB_GFP_NOIO		(USLAB___GFP_RECLAIM)
#define USLAB_GFP_NOFS		(USLAB___GFP_RECLAIM | USLAB___GFP_IO)
#define USLAB_GFP_USER		(USLAB_GFP_KERNEL | USLAB___GFP_HARDWALL)
#define USLAB_GFP_DMA		(USLAB___GFP_DMA)
#define USLAB_GFP_DMA32		(USLAB___GFP_DMA32)
#define USLAB_GFP_HIGHUSER	(USLAB_GFP_USER | USLAB___GFP_HIGHMEM)

/* Cache flags (values of Linux 5.17). */
#define USLAB_SLAB_CONSISTENCY_CHECKS	0x00000100u
#define USLAB_SLAB_RED_ZONE		0x00000400u
#define USLAB_SLAB_POISON		0x00000800u
#define USLAB_SLAB_HWCACHE_ALIGN	0x00002000u
#define USLAB_SLAB_CACHE_DMA		0x00004000u
#define USLAB_SLAB_CACHE_DMA32		0x00008000u
#define USLAB_SLAB_STORE_USER		0x00010000u
#define USLAB_SLAB_RECLAIM_ACCOUNT	0x00020000u
#define USLAB_SLAB_TEMPORARY		USLAB_SLAB_RECLAIM_ACCOUNT
#define USLAB_SLAB_PANIC		0x00040000u
#define USLAB_SLAB_TYPESAFE_BY_RCU	0x00080000u
#define USLAB_SLAB_MEM_SPREAD		0x00100000u
#define USLAB_SLAB_TRACE		0x00200000u
#define USLAB_SLAB_DEBUG_OBJECTS	0x00400000u
#define USLAB_SLAB_NOLEAKTRACE		0x00800000u
#define USLAB_SLAB_FAILSLAB		0x02000000u
#define USLAB_SLAB_ACCOUNT		0x04000000u

#define USLAB_ZERO_SIZE_PTR		((void *)16)
#define USLAB_ZERO_OR_NULL_PTR(x)	((unsigned long)(x) <= (unsigned long)USLAB_ZERO_SIZE_PTR)
#define USLAB_NUMA_NO_NODE		(-1)

/* ---- Page allocator (src/mm/page_alloc.c) ---- */
USLAB_API struct page *uslab_alloc_pages(uslab_gfp_t gfp, unsigned int order);
USLAB_API struct page *uslab_alloc_pages_node(int nid, uslab_gfp_t gfp, unsigned int order);
USLAB_API void uslab___free_pages(struct page *page, unsigned int order);
USLAB_API unsigned long uslab___get_free_pages(uslab_gfp_t gfp, unsigned int order);
USLAB_API unsigned long uslab_get_zeroed_page(uslab_gfp_t gfp);
USLAB_API void uslab_free_pages(unsigned long addr, unsigned int order);
USLAB_API struct folio *uslab_folio_alloc(uslab_gfp_t gfp, unsigned int order);
USLAB_API void uslab_folio_put(struct folio *folio);
USLAB_API void uslab_get_page(struct page *page);
USLAB_API void uslab_put_page(struct page *page);
USLAB_API void *uslab_page_address(const struct page *page);
USLAB_API struct page *uslab_virt_to_page(const void *addr);
USLAB_API struct folio *uslab_virt_to_folio(const void *addr);
USLAB_API void *uslab_folio_address(const struct folio *folio);
USLAB_API unsigned int uslab_folio_order(const struct folio *folio);
USLAB_API unsigned long uslab_page_to_pfn(const struct page *page);
USLAB_API struct page *uslab_pfn_to_page(unsigned long pfn);
USLAB_API int uslab_pfn_valid(unsigned long pfn);
USLAB_API int uslab_virt_addr_valid(const void *addr);
/* Write /proc/buddyinfo-format lines to f. */
USLAB_API void uslab_show_buddyinfo(FILE *f);

/* Memory-map statistics (see docs/ and uslabinfo(1)). */
struct uslab_memmap_stats {
	unsigned long arena_bytes;		/* address space reserved for the arena */
	unsigned long vmemmap_bytes;		/* address space reserved for struct pages */
	unsigned long section_bytes;		/* size of one section */
	unsigned long sections_online;		/* sections brought into use */
	unsigned long pages_online;		/* pages in online sections */
	unsigned long pages_free;		/* pages free in the buddy allocator and pcp lists */
	unsigned long pages_reported;		/* free pages given back to the OS */
	unsigned long memmap_bytes_committed;	/* struct page memory of online sections */
	unsigned long bookkeeping_bytes;	/* section table and other fixed costs */
	unsigned int max_order;			/* orders 0 .. max_order-1 */
};
USLAB_API void uslab_memmap_stats(struct uslab_memmap_stats *st);
/*
 * Draw this process's memory map into path: one cell per page of every
 * online section, coloured by what the page is (free, by order; on a CPU's
 * list; slab, by cache; large kmalloc; other), with a legend and counts.
 * The format follows the extension: ".svg" (a self-contained SVG),
 * ".html" / ".htm" (a page embedding the SVG, with a summary table and a
 * title per run of cells) or ".png" (the map alone, 2 pixels per page).
 * Each carries the counts as JSON: in the element with id "uslab-summary",
 * or the PNG's iTXt chunk of that name.  Returns 0, or -EINVAL (NULL path,
 * other extension), -ENOMEM, or the negated errno of a failed write (the
 * file is then left as it was).  See uslab(3); USLAB_OPTIONS
 * map_at_exit=PATH writes one when the process exits.
 */
USLAB_API int uslab_memmap_picture_write(const char *path);

/* ---- Slab caches (src/mm/slab_common.c and the allocator) ---- */
USLAB_API struct kmem_cache *uslab_kmem_cache_create(const char *name, unsigned int size,
		unsigned int align, uslab_slab_flags_t flags, void (*ctor)(void *));
USLAB_API struct kmem_cache *uslab_kmem_cache_create_usercopy(const char *name,
		unsigned int size, unsigned int align, uslab_slab_flags_t flags,
		unsigned int useroffset, unsigned int usersize, void (*ctor)(void *));
USLAB_API void uslab_kmem_cache_destroy(struct kmem_cache *s);
USLAB_API int uslab_kmem_cache_shrink(struct kmem_cache *s);
USLAB_API unsigned int uslab_kmem_cache_size(struct kmem_cache *s);
USLAB_API const char *uslab_kmem_cache_name(struct kmem_cache *s);
USLAB_API void *uslab_kmem_cache_alloc(struct kmem_cache *s, uslab_gfp_t flags);
USLAB_API void *uslab_kmem_cache_alloc_node(struct kmem_cache *s, uslab_gfp_t flags, int node);
USLAB_API void uslab_kmem_cache_free(struct kmem_cache *s, void *obj);
USLAB_API int uslab_kmem_cache_alloc_bulk(struct kmem_cache *s, uslab_gfp_t flags,
		size_t nr, void **p);
USLAB_API void uslab_kmem_cache_free_bulk(struct kmem_cache *s, size_t nr, void **p);

/* ---- kmalloc family ---- */
USLAB_API void *uslab___kmalloc(size_t size, uslab_gfp_t flags);
USLAB_API void *uslab___kmalloc_node(size_t size, uslab_gfp_t flags, int node);
USLAB_API void *uslab_kmalloc_large(size_t size, uslab_gfp_t flags);
/* kmalloc of a compile-time constant size, used by <uslab/slab.h>'s kmalloc():
 * index is the cache index of the size (1 = 96 B, 2 = 192 B, n >= 3 = 2^n B). */
USLAB_API void *uslab_kmalloc_index_alloc(unsigned int index, size_t size,
		uslab_gfp_t flags, int node);
USLAB_API void *uslab_krealloc(const void *p, size_t new_size, uslab_gfp_t flags);
USLAB_API void uslab_kfree(const void *p);
USLAB_API void uslab_kfree_sensitive(const void *p);
USLAB_API void uslab_kfree_bulk(size_t nr, void **p);
USLAB_API size_t uslab_ksize(const void *p);
USLAB_API void *uslab_kmemdup(const void *src, size_t len, uslab_gfp_t gfp);
USLAB_API char *uslab_kstrdup(const char *s, uslab_gfp_t gfp);
USLAB_API char *uslab_kstrndup(const char *s, size_t max, uslab_gfp_t gfp);
USLAB_API void *uslab_kmemdup_nul(const char *s, size_t len, uslab_gfp_t gfp);
USLAB_API void *uslab_kvmalloc_node(size_t size, uslab_gfp_t flags, int node);
USLAB_API void *uslab_kvrealloc(const void *p, size_t oldsize, size_t newsize, uslab_gfp_t flags);
USLAB_API void uslab_kvfree(const void *addr);
USLAB_API void uslab_kvfree_sensitive(const void *addr, size_t len);

/* /proc/slabinfo version 2.1 of this process (SLOB: its documented equivalent). */
USLAB_API void uslab_show_slabinfo(FILE *f);
/*
 * Retune a cache as a write of "name limit batchcount shared" to
 * /proc/slabinfo does (SLAB only; other allocators return -EIO).  Returns 0
 * when applied or ignored for out-of-range values (as the kernel does),
 * -EINVAL for a malformed line or an unknown cache, -ENOMEM.
 */
USLAB_API int uslab_slabinfo_write(const char *line);

/* ---- Debugging (docs/debugging.md; USLAB_OPTIONS slub_debug=, slab_error=) ---- */
/*
 * Check every slab and object of a debug cache (slub_debug or SLAB_RED_ZONE,
 * SLAB_POISON, SLAB_STORE_USER, SLAB_CONSISTENCY_CHECKS, SLAB_TRACE at
 * creation), reporting what is damaged.  Returns the number of errors
 * found (each reported; under slab_error=abort the first one ends the
 * process), -EINVAL for a cache without debugging (as the kernel's
 * validate), -ENOMEM.  Full slabs are seen only with SLAB_STORE_USER.
 */
USLAB_API int uslab_kmem_cache_validate(struct kmem_cache *s);
/* Damage reports repaired so far under USLAB_OPTIONS slab_error=repair. */
USLAB_API unsigned long uslab_slab_errors(void);

/* Name of the allocator this library was built with: "slub", "slab" or "slob". */
USLAB_API const char *uslab_allocator_name(void);

/* ---- RCU (src/mm/rcu.c, src/mm/kvfree_rcu.c; kernel names: <uslab/rcupdate.h>) ----
 * Over liburcu's bulletproof flavour (urcu-bp): readers need no registration.
 * struct rcu_head is defined in <uslab/rcupdate.h>.  docs/rcu.md tells the rules.
 */
struct rcu_head;
USLAB_API void uslab_rcu_read_lock(void);
USLAB_API void uslab_rcu_read_unlock(void);
/* Nonzero inside uslab_rcu_read_lock() on the calling thread. */
USLAB_API int uslab_rcu_read_lock_held(void);
/* Optional (urcu-bp registers a reader lazily): pay the registration now. */
USLAB_API void uslab_rcu_register_thread(void);
USLAB_API void uslab_rcu_unregister_thread(void);
/* Wait for every reader that began before the call (never inside a reader). */
USLAB_API void uslab_synchronize_rcu(void);
/* Run func(head) after a grace period, on uslab's RCU thread ("uslab-rcu"). */
USLAB_API void uslab_call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head));
/* Wait until every callback and every kvfree_rcu object queued before the
 * call has run or been freed (never inside a reader, never from a callback). */
USLAB_API void uslab_rcu_barrier(void);
/*
 * Free ptr (kmalloc or kvmalloc memory) after a grace period, in per-thread
 * batches: what kfree_rcu()/kvfree_rcu() expand to.  head is ptr's rcu_head,
 * or NULL for a headless free (which may wait in synchronize_rcu() when no
 * memory is left for the batch, so never inside a reader).
 */
USLAB_API void uslab_kvfree_call_rcu(struct rcu_head *head, void *ptr);

/* Counters of kvfree_rcu() since the process started (monotonic). */
struct uslab_rcu_stats {
	unsigned long kvfree_queued;	/* objects handed to kvfree_call_rcu */
	unsigned long kvfree_freed;	/* of those, freed after their grace period */
	unsigned long kvfree_batches;	/* batches handed to call_rcu */
	unsigned long kvfree_synced;	/* headless objects freed after synchronize_rcu (no memory) */
};
USLAB_API void uslab_rcu_stats(struct uslab_rcu_stats *st);

/* ---- Memory cgroups: accounting of slab objects (src/mm/memcontrol.c) ----
 * Kernel names and the full story: <uslab/memcontrol.h>, docs/memcg.md. */
struct mem_cgroup;	/* opaque: an accounting group */
#define USLAB_MEM_CGROUP_NO_LIMIT	(~0UL)	/* limit_bytes of a group without limit */
/* Called when a charge to memcg hits its limit: free about nr_bytes of the
 * group's objects, return the bytes freed (0: nothing). */
typedef unsigned long (*uslab_memcg_shrink_fn)(struct mem_cgroup *memcg, unsigned long nr_bytes,
					       void *arg);
struct uslab_mem_cgroup_stats {
	unsigned long usage;		/* bytes charged by live objects (mem_cgroup_usage) */
	unsigned long charged;		/* bytes in the page counter: usage + charged ahead */
	unsigned long max_usage;	/* highest charged seen */
	unsigned long limit;		/* in bytes, USLAB_MEM_CGROUP_NO_LIMIT for none */
	unsigned long failcnt;		/* page charges the limit refused */
	unsigned long objects;		/* live charged slab objects */
	unsigned long kmem_folios;	/* live charged large kmallocs */
	unsigned long kmem_bytes;	/* their bytes */
};
USLAB_API struct mem_cgroup *uslab_mem_cgroup_create(const char *name, unsigned long limit_bytes);
USLAB_API int uslab_mem_cgroup_destroy(struct mem_cgroup *memcg);
USLAB_API struct mem_cgroup *uslab_set_active_memcg(struct mem_cgroup *memcg);
USLAB_API struct mem_cgroup *uslab_get_active_memcg(void);
USLAB_API struct mem_cgroup *uslab_root_mem_cgroup(void);
USLAB_API int uslab_mem_cgroup_set_limit(struct mem_cgroup *memcg, unsigned long limit_bytes);
USLAB_API const char *uslab_mem_cgroup_name(struct mem_cgroup *memcg);
USLAB_API unsigned long uslab_mem_cgroup_usage(struct mem_cgroup *memcg);
USLAB_API int uslab_mem_cgroup_stats(struct mem_cgroup *memcg, struct uslab_mem_cgroup_stats *st);
USLAB_API void uslab_mem_cgroup_drain_stocks(void);
USLAB_API int uslab_mem_cgroup_register_shrinker(struct mem_cgroup *memcg,
		uslab_memcg_shrink_fn shrink, void *arg);
USLAB_API int uslab_mem_cgroup_unregister_shrinker(struct mem_cgroup *memcg,
		uslab_memcg_shrink_fn shrink, void *arg);
USLAB_API struct mem_cgroup *uslab_mem_cgroup_from_obj(const void *p);
/* Every group, slabinfo-like: usage, limit, failcnt, objects per cache. */
USLAB_API void uslab_mem_cgroup_print_stats(FILE *f);

#ifdef __cplusplus
}
#endif

#endif /* USLAB_USLAB_H */
