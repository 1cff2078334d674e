/* SPDX-License-Identifier: MIT */
/*
 * slab_def.h - SLAB's own types: struct slab as SLAB sees a slab page,
 * struct kmem_cache, struct kmem_cache_node and struct array_cache.
 * Included only by src/mm/slab.h when the library is built with
 * CONFIG_SLAB=1; how the pieces move is told at the top of slab.c.
 * struct kmem_cache_cpu (the per-CPU slot) is private to slab.c and
 * slab_cache.c (slab_internal.h).
 *
 * Glossary
 *   object        one allocation unit of a cache; s->size bytes apart,
 *                 the first at slab->s_mem.
 *   index         an object's number in its slab (0 .. num-1): one byte,
 *                 since 4 KiB pages and 16-byte minimum objects keep a slab
 *                 under 256 objects.
 *   freelist      per slab, an array of num indexes; entries [active, num)
 *                 are the free objects, the next one to hand out first.  It
 *                 sits at the end of the slab (on-slab), in a kmalloc object
 *                 (OFF_SLAB) or inside one of the slab's own free objects
 *                 (OBJFREELIST).
 *   array cache   a LIFO stack of object pointers: per CPU (no lock), and
 *                 one shared per node (list_lock).
 *   colour        the offset of a slab's first object, cycling in steps of
 *                 colour_off so that slabs do not all start on the same
 *                 cache lines.
 *   reap          periodic return of unused array entries and free slabs.
 *   slot          an object with its debug words (red zones, last user;
 *                 slab_debug.h); the object starts obj_offset bytes in.
 */
#ifndef USLAB_MM_SLAB_DEF_H
#define USLAB_MM_SLAB_DEF_H

#include "cpu.h"	/* __percpu */

/* Build switches (always defined; override with -DCONFIG_...=0/1). */
#ifndef CONFIG_SLAB_FREELIST_RANDOM
#define CONFIG_SLAB_FREELIST_RANDOM	1	/* shuffled freelists of new slabs */
#endif
#ifndef CONFIG_SLAB_FREELIST_HARDENED
#define CONFIG_SLAB_FREELIST_HARDENED	1	/* refuse the naive double free */
#endif

/*
 * kmalloc geometry of SLAB (include/linux/slab.h of 5.17): caches from 32
 * bytes up to the largest buddy block, MAX_ORDER + PAGE_SHIFT - 1 = 22
 * (4 MiB) with the default max_order, capped at 25 (32 MiB).  SLAB has no
 * "large kmalloc": __kmalloc above KMALLOC_MAX_CACHE_SIZE returns NULL.
 */
#define SLAB_KMALLOC_SHIFT_TOP	(DEFAULT_MAX_ORDER + PAGE_SHIFT - 1)
#define KMALLOC_SHIFT_LOW	5
#define KMALLOC_SHIFT_HIGH	(SLAB_KMALLOC_SHIFT_TOP <= 25 ? SLAB_KMALLOC_SHIFT_TOP : 25)
#define KMALLOC_SHIFT_MAX	KMALLOC_SHIFT_HIGH
#define KMALLOC_MAX_ORDER	(KMALLOC_SHIFT_MAX - PAGE_SHIFT)

/* Internal cache flags (5.17 values): where a cache keeps its freelists. */
#define CFLGS_OFF_SLAB		0x80000000U	/* in a kmalloc object (freelist_cache) */
#define CFLGS_OBJFREELIST_SLAB	0x40000000U	/* inside a free object of the slab */
/* uslab: objects leaving and entering the allocator go through slab_debug.c
 * (debug flags, or memcheck active when the cache was made). */
#define CFLGS_DEBUG_HOOKS	0x20000000U

/* Debug flags SLAB implements (CONFIG_DEBUG_SLAB, plus F: freelist checks). */
#define SLAB_DEBUG_FLAGS	(SLAB_RED_ZONE | SLAB_POISON | SLAB_STORE_USER | \
				 SLAB_CONSISTENCY_CHECKS)

/* One byte per index: 4 KiB pages and 16-byte objects keep num <= 255. */
typedef unsigned char freelist_idx_t;
#define SLAB_OBJ_MAX_NUM	((1U << (8 * sizeof(freelist_idx_t))) - 1)

/*
 * A SLAB slab.  Overlays struct page (the SLAB_MATCH lines below and in
 * slab.h pin the shared fields); offsets as in the kernel's SLAB view of
 * 5.17.  Every field but the page-owned ones is protected by the list_lock
 * of the slab's node once the slab is on a node list; before that
 * (cache_grow_begin) only the growing thread sees it.
 */
struct slab {
	unsigned long __page_flags;	/* PG_slab, PG_head (atomic bits) */
	union {
		struct list_head slab_list;	/* on slabs_full/partial/free (list_lock) */
		struct rcu_head rcu_head;	/* SLAB_TYPESAFE_BY_RCU: pages freed after a grace period (rcu.c) */
	};
	struct kmem_cache *slab_cache;	/* the owning cache (constant while a slab) */
	void *freelist;			/* array of free object indexes; NULL when an
					 * OBJFREELIST slab is full (list_lock) */
	void *s_mem;			/* first object: slab address + colour (constant) */
	unsigned int active;		/* objects handed out of this slab (list_lock) */
	atomic_t __page_refcount;	/* the page allocator's refcount */
	unsigned long memcg_data;	/* objcg vector | MEMCG_DATA_OBJCGS, or 0 (memcontrol.h) */
};

#define SLAB_SLAB_MATCH(pg, sl)						\
	_Static_assert(offsetof(struct page, pg) == offsetof(struct slab, sl), \
		       "struct slab." #sl " must overlay struct page." #pg)
SLAB_SLAB_MATCH(rcu_head, rcu_head);
SLAB_SLAB_MATCH(mapping, slab_cache);	/* so freeing a slab resets it to NULL */
SLAB_SLAB_MATCH(_mapcount, active);	/* so freeing a slab resets it to -1 */
#undef SLAB_SLAB_MATCH

/*
 * A LIFO stack of object pointers.  Per CPU: only the owning thread reads
 * or writes it (see slab.c §5 for the exceptions).  Shared: n->list_lock.
 * The word just below entry[0] is always NULL, so that the top of the
 * stack can be read without testing avail first (ac_top in slab.c).
 *
 * slots: the CPU array of a SLAB_ACCOUNT cache without CFLGS_DEBUG_HOOKS
 * (ac_wants_slots in slab.c) has limit more words after entry[], one per
 * entry (ac_slots).  why a flag, not a pointer: the header keeps its 24
 * bytes, so the arrays made at boot and freed at the first refresh stay in
 * the kmalloc caches they were in (in one shared with the program's small
 * kmallocs, Valgrind describes a later use after free of those by the
 * array freed at the same address before).  Invariant: for i < avail, slots[i] is NULL ("not known") or the
 * objcg vector slot of entry[i] (memcontrol.h), which stays valid while
 * the object is in the array (its slab holds it active, so neither slab
 * nor vector goes away).  Every push writes its word; moves move them.
 * why: the accounted alloc fast path then finds the slot with one load
 * from a line it reads anyway, instead of object -> struct page ->
 * memcg_data -> vector -> multiply; the free path knows the slot already.
 */
struct array_cache {
	unsigned int avail;		/* entries in use: entry[0 .. avail-1] */
	unsigned int limit;		/* capacity of entry[] */
	unsigned int batchcount;	/* entries moved at once on refill/flush */
	unsigned short touched;		/* used since the last reap: reap skips it once */
	unsigned short has_slots;	/* slot words follow entry[limit] (constant; see
					 * above and ac_slots) */
	void *bottom;			/* NULL, never written again: the top of an empty stack (constant) */
	void *entry[];			/* the stack; entry[avail-1] is the hottest */
};

/* The slot words of ac, or NULL if it has none (see above). */
static inline void **ac_slots(const struct array_cache *ac)
{
	return ac->has_slots ? (void **)&ac->entry[ac->limit] : NULL;
}
_Static_assert(offsetof(struct array_cache, entry) ==
	       offsetof(struct array_cache, bottom) + sizeof(void *),
	       "array_cache.bottom must sit just below entry[0]");

/* b = a / d without a division, exact for every 32-bit a (Granlund-Montgomery). */
struct reciprocal_value {
	unsigned int m;			/* magic multiplier */
	unsigned char sh1, sh2;		/* shifts */
};

/*
 * Event counters shown as slabinfo's globalstat columns when the
 * slab_stats option is on.  Updated under node 0's list_lock (the only
 * node), read racily by slabinfo.
 */
struct slab_global_stats {
	unsigned long num_active;	/* objects handed out of slabs now */
	unsigned long num_allocations;	/* objects ever handed out of slabs */
	unsigned long high_mark;	/* highest num_active seen */
	unsigned long grown;		/* slabs ever added */
	unsigned long reaped;		/* free slabs freed by the reaper */
	unsigned long errors;		/* slab errors detected (reports) */
	unsigned long max_freeable;	/* most free slabs seen at a flush */
	unsigned long node_allocs;	/* objects taken from a node directly (no CPU array) */
	unsigned long node_frees;	/* objects freed to a node directly (no CPU array) */
	unsigned long node_overflow;	/* alien-cache overflows (always 0: one node) */
};

struct kmem_cache_cpu;	/* slab.c: per-CPU slot (array_cache pointer + cpustat) */
struct kmem_cache_node;

/*
 * A SLAB cache.  Fields marked (constant) are set by __kmem_cache_create
 * before the cache is published and not changed afterwards, except that a
 * merge (__kmem_cache_alias, under slab_mutex) raises object_size.  The
 * fast paths read cpu_cache only.
 */
struct kmem_cache {
	struct kmem_cache_cpu __percpu *cpu_cache;	/* per-CPU slots (owner thread) */
	/* tunables: written under slab_mutex, shown by slabinfo */
	unsigned int batchcount;	/* objects moved per refill/flush (slab_mutex) */
	unsigned int limit;		/* capacity of each CPU array (slab_mutex) */
	unsigned int shared;		/* shared array holds shared x batchcount (slab_mutex) */
	unsigned long cpu_tunables;	/* limit << 32 | batchcount, published for the
					 * owners of CPU arrays (WRITE_ONCE/READ_ONCE) */

	unsigned int size;		/* object slot (constant) */
	unsigned int obj_offset;	/* object in its slot: after redzone 1, else 0 (constant) */
	struct reciprocal_value reciprocal_buffer_size;	/* 1 / size (constant) */
	slab_flags_t flags;		/* SLAB_* flags + CFLGS_* placement (constant) */
	unsigned int num;		/* objects per slab (constant) */
	unsigned int gfporder;		/* slab = 2^gfporder pages (constant) */
	gfp_t allocflags;		/* gfp bits added to every slab allocation (constant) */
	unsigned int colour;		/* number of colours: leftover / colour_off (constant) */
	unsigned int colour_off;	/* colour step: cache line, >= align (constant) */
	struct kmem_cache *freelist_cache;	/* kmalloc cache of OFF_SLAB freelists (constant) */
	unsigned int freelist_size;	/* num index bytes (constant) */
	void (*ctor)(void *);		/* run on every object of a new slab (constant) */
	const char *name;		/* cache name (constant) */
	struct list_head list;		/* on slab_caches (slab_mutex) */
	int refcount;			/* creators sharing s; -1 boot cache (slab_mutex) */
	unsigned int object_size;	/* size asked for; raised by merges (slab_mutex, READ_ONCE) */
	unsigned int align;		/* alignment of objects (constant) */
	struct slab_global_stats stats;	/* globalstat counters (node 0's list_lock) */
	unsigned int *random_seq;	/* shuffled indexes for new slabs, or NULL (slab_mutex) */
	unsigned int useroffset;	/* usercopy window start (constant) */
	unsigned int usersize;		/* usercopy window size (constant) */
	struct kmem_cache_node *node[MAX_NUMNODES];	/* per node; only node[0] exists */
};

/* One per cache and node: the slabs of that node and its shared array. */
struct kmem_cache_node {
	spinlock_t list_lock;		/* protects every field below */
	struct list_head slabs_partial;	/* slabs with free and used objects (list_lock) */
	struct list_head slabs_full;	/* slabs with no free object (list_lock) */
	struct list_head slabs_free;	/* slabs with no used object (list_lock) */
	unsigned long total_slabs;	/* slabs on the three lists (list_lock) */
	unsigned long free_slabs;	/* slabs on slabs_free (list_lock) */
	unsigned long free_objects;	/* free objects in this node's slabs (list_lock) */
	unsigned long free_limit;	/* free objects kept before free slabs are freed (list_lock) */
	unsigned int colour_next;	/* colour of the next new slab (list_lock) */
	struct array_cache *shared;	/* objects passed between CPUs, or NULL (list_lock) */
	unsigned long next_reap;	/* when the reaper next drains this node, ms (list_lock) */
	int free_touched;		/* a free slab was used since the last reap (list_lock) */
};

#endif /* USLAB_MM_SLAB_DEF_H */
