/* SPDX-License-Identifier: MIT */
/*
 * slub_def.h - SLUB's own types: struct slab as SLUB sees a slab page,
 * struct kmem_cache and struct kmem_cache_node.  Included only by
 * src/mm/slab.h when the library is built with CONFIG_SLUB=1; how the
 * pieces move is told at the top of slub.c.  struct kmem_cache_cpu is
 * private to SLUB's files (slub_fastpath.h).
 *
 * Glossary
 *   object       one allocation unit of a cache; s->size bytes apart.
 *   free pointer the word at object + s->offset of a free object: the next
 *                free object, encoded when CONFIG_SLAB_FREELIST_HARDENED.
 *   cpu slab     the slab a CPU (thread) allocates from without any lock.
 *   frozen       a slab owned by one CPU (its cpu slab or on its per-CPU
 *                partial chain): on no node list; other CPUs may only push
 *                objects onto its freelist.
 *   partial      a slab with both free and allocated objects (or an empty
 *                one kept for reuse) on a node's partial list.
 *   oo / min     (order << 16 | objects per slab) preferred / fallback.
 */
#ifndef USLAB_MM_SLUB_DEF_H
#define USLAB_MM_SLUB_DEF_H

#include "cpu.h"	/* __percpu */

/* Build switches (always defined; override with -DCONFIG_...=0/1). */
#ifndef CONFIG_SLUB_CPU_PARTIAL
#define CONFIG_SLUB_CPU_PARTIAL		1	/* per-CPU partial slab chains */
#endif
#ifndef CONFIG_SLAB_FREELIST_HARDENED
#define CONFIG_SLAB_FREELIST_HARDENED	1	/* encoded free pointers, double-free check */
#endif
#ifndef CONFIG_SLAB_FREELIST_RANDOM
#define CONFIG_SLAB_FREELIST_RANDOM	1	/* shuffled freelists of new slabs */
#endif
#ifndef CONFIG_SLUB_STATS
#define CONFIG_SLUB_STATS		0	/* per-CPU event counters */
#endif
/*
 * The debug processing of slub_debug and the creation-time debug flags
 * (checks, poisoning, red zones, owner tracks, trace, failslab, validate):
 * slub_debug.c.  It costs the fast paths nothing (slub.c §9); with 0 the
 * debug flags still shape the layout but nothing checks them.
 */
#ifndef CONFIG_SLUB_DEBUG
#define CONFIG_SLUB_DEBUG		1
#endif

/* kmalloc geometry of SLUB (include/linux/slab.h of 5.17). */
#define KMALLOC_SHIFT_LOW	3				/* 8 bytes */
#define KMALLOC_SHIFT_HIGH	(PAGE_SHIFT + 1)		/* 8 KiB: larger goes to pages */
#define KMALLOC_SHIFT_MAX	(DEFAULT_MAX_ORDER + PAGE_SHIFT - 1)	/* 4 MiB */

/*
 * A SLUB slab.  Overlays struct page (the SLAB_MATCH lines below and in
 * slab.h pin the shared fields); offsets as in the kernel's SLUB view of
 * 5.17.  freelist and counters form one 16-byte aligned pair, updated
 * together by cmpxchg_double (or under slab_lock for caches without
 * __CMPXCHG_DOUBLE).
 */
struct slab {
	unsigned long __page_flags;	/* PG_slab, PG_head; PG_locked = slab_lock (atomic bits) */
	union {
		struct list_head slab_list;	/* on n->partial or n->full (n->list_lock) */
		struct rcu_head rcu_head;	/* SLAB_TYPESAFE_BY_RCU: pages freed after a grace period (rcu.c) */
		struct {			/* frozen on a per-CPU partial chain (c->lock) */
			struct slab *next;	/* next slab of the chain */
			int slabs;		/* length of the chain from here */
		};
	};
	struct kmem_cache *slab_cache;	/* the owning cache (constant while a slab) */
	/* double-word boundary: freelist + counters change together */
	void *freelist;			/* first free object not on a cpu freelist (cmpxchg) */
	union {
		unsigned long counters;	/* the three below as one word (cmpxchg) */
		struct {
			unsigned inuse:16;	/* objects allocated or on a cpu freelist */
			unsigned objects:15;	/* objects in this slab (constant) */
			unsigned frozen:1;	/* owned by one CPU, on no node list */
		};
	};
	unsigned int __unused;		/* overlays _mapcount: left at -1 */
	atomic_t __page_refcount;	/* the page allocator's refcount */
	unsigned long memcg_data;	/* objcg vector | MEMCG_DATA_OBJCGS, or 0 (memcontrol.h) */
};	/* 16-byte aligned because struct page is; no attribute here, since list
	 * walks form (never dereferenced) slab pointers from list heads */

#define SLUB_SLAB_MATCH(pg, sl)						\
	_Static_assert(offsetof(struct page, pg) == offsetof(struct slab, sl), \
		       "struct slab." #sl " must overlay struct page." #pg)
SLUB_SLAB_MATCH(rcu_head, rcu_head);
SLUB_SLAB_MATCH(mapping, slab_cache);	/* so freeing a slab resets it to NULL */
SLUB_SLAB_MATCH(_mapcount, __unused);
#undef SLUB_SLAB_MATCH
_Static_assert(offsetof(struct slab, freelist) % (2 * sizeof(void *)) == 0,
	       "freelist+counters must be a 16-byte aligned pair for cmpxchg_double");
_Static_assert(offsetof(struct slab, counters) == offsetof(struct slab, freelist) + sizeof(void *),
	       "counters must follow freelist");
_Static_assert(sizeof(unsigned long) == 8, "SLUB's double word is 2 x 64 bits");

/* order << OO_SHIFT | objects per slab of that order */
struct kmem_cache_order_objects {
	unsigned int x;
};

struct kmem_cache_cpu;	/* slub_fastpath.h */
struct kmem_cache_node;

/*
 * A SLUB cache.  Fields marked (constant) are set by __kmem_cache_create
 * before the cache is published and not changed afterwards, except that
 * a merge (__kmem_cache_alias, under slab_mutex) raises object_size/inuse.
 * The fast paths read the first cache line only.
 */
/* Shuffled object offsets (freelist randomisation) for slabs of up to count
 * objects: one permutation per ramp chunk, or of the whole (slub.c
 * shuffle_objects, slub_cache.c random_seq_make). */
struct slub_random_seq {
	unsigned int count;
	unsigned int offset[];
};

struct kmem_cache {
	struct kmem_cache_cpu __percpu *cpu_slab;	/* per-CPU state (owner thread; c->lock) */
	unsigned int offset;		/* free pointer offset in an object (constant) */
	unsigned int size_shift;	/* trailing zero bits of size (constant) */
	unsigned long random;		/* free pointer XOR key, hardening (constant) */
	unsigned long size_inv;		/* inverse of size's odd part mod 2^64 (constant) */
	unsigned long size_limit;	/* ULONG_MAX / size: exact-division test (constant) */
	slab_flags_t flags;		/* SLAB_* flags plus __OBJECT_POISON/__CMPXCHG_DOUBLE (constant) */
	unsigned int size;		/* object slot with metadata (constant) */
	unsigned int object_size;	/* size the creator asked for (slab_mutex) */
	unsigned int inuse;		/* offset of the metadata after the object (slab_mutex) */
	unsigned long min_partial;	/* empty slabs a node keeps before freeing (constant) */
	unsigned int cpu_partial;	/* free objects a CPU keeps on partial slabs (constant) */
	unsigned int cpu_partial_slabs;	/* length of a per-CPU partial chain before draining (READ_ONCE) */
	unsigned int sheaf_capacity;	/* objects a CPU's sheaf holds; 0: no sheaf (constant) */
	struct kmem_cache_order_objects oo;	/* preferred slab order and objects (READ_ONCE:
						 * churn raises it, slub_cache.c) */
	struct kmem_cache_order_objects min;	/* smallest order that holds one object (constant) */
	struct kmem_cache_order_objects max;	/* most objects any slab of s holds (constant) */
	unsigned int churn_order;	/* the order churn may raise oo to, or oo's (constant) */
	atomic_t churn;			/* slabs given back past min_partial since oo rose */
	bool churned;			/* churn raised oo, or is raising it (READ_ONCE) */
	bool ramps;			/* its slabs may start small and grow (constant:
					 * slub_cache.c, cache_ramps) */
	gfp_t allocflags;		/* gfp bits added to every slab allocation (constant) */
	int refcount;			/* creators sharing s; -1 boot cache (slab_mutex) */
	void (*ctor)(void *);		/* run on each object when its slab is made (constant) */
	unsigned int align;		/* alignment of objects (constant) */
	unsigned int red_left_pad;	/* bytes in front of each object (debug red zone) (constant) */
	const char *name;		/* cache name (constant) */
	struct list_head list;		/* on slab_caches (slab_mutex) */
	struct slub_random_seq *random_seq;	/* for new slabs, or NULL (set with release:
						 * with the first slab, and once more by churn) */
	bool random_seq_claimed;		/* a first-slab sequence is made or being made */
	struct slub_random_seq *random_seq_old;	/* the one churn replaced (freed with s) */
	unsigned int useroffset;	/* usercopy window start (constant) */
	unsigned int usersize;		/* usercopy window size (constant) */
	struct kmem_cache_node *node[MAX_NUMNODES];	/* per node; only node[0] exists (constant) */
};

/* One per cache and node: the slabs no CPU owns. */
struct kmem_cache_node {
	spinlock_t list_lock;		/* protects the lists and nr_partial */
	unsigned long nr_partial;	/* slabs on partial (list_lock; read racily) */
	struct list_head partial;	/* unfrozen slabs with free objects (list_lock) */
	atomic_long_t nr_slabs;		/* slabs of this node, any state (atomic) */
	atomic_long_t total_objects;	/* objects in those slabs (atomic) */
	struct list_head full;		/* full slabs, tracked only with SLAB_STORE_USER (list_lock) */
};

#endif /* USLAB_MM_SLUB_DEF_H */
