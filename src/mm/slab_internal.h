/* SPDX-License-Identifier: MIT */
/*
 * slab_internal.h - what slab.c (the allocator: slab pages, array caches,
 * reaping, the alloc and free paths) and slab_cache.c (caches as wholes:
 * geometry, tunables, creation, shrink and destruction, slabinfo, fork,
 * bring-up) share.  Only these two files include it, and only in a SLAB
 * build; see the top of slab.c for how SLAB works.
 */
#ifndef USLAB_MM_SLAB_INTERNAL_H
#define USLAB_MM_SLAB_INTERNAL_H

#include <time.h>
#include "slab.h"
#include "cpu.h"

#define OFF_SLAB(s)		((s)->flags & CFLGS_OFF_SLAB)
#define OBJFREELIST_SLAB(s)	((s)->flags & CFLGS_OBJFREELIST_SLAB)

static const int nr_node_ids = 1;	/* nodes with memory: node 0 */

#define for_each_kmem_cache_node(s, nid, n)				\
	for ((nid) = 0; (nid) < nr_node_ids; (nid)++)			\
		if (((n) = (s)->node[nid]) != NULL)

/*
 * The per-CPU slot of a cache.  Only the owning thread writes it; the
 * counters are read by slabinfo from any thread (READ_ONCE) and survive the
 * thread, accumulating for its CPU id.
 */
struct kmem_cache_cpu {
	struct array_cache *ac;		/* this CPU's array, or NULL (owner) */
	unsigned long allochit;		/* allocations served by the array (owner) */
	unsigned long allocmiss;	/* allocations that needed a refill (owner) */
	unsigned long freehit;		/* frees that found room in the array (owner) */
	unsigned long freemiss;		/* frees that needed a flush (owner) */
};

/* Per CPU, for all caches: when this CPU reaps next (ms). */
struct slab_reap_cpu {
	unsigned long next_reap;	/* 0: not started (owner) */
};

/* Per CPU reap timers (slab.c; allocated by slab_setup_limits). */
extern struct slab_reap_cpu __percpu *slab_reap_cpu;

/* slab.c: set while this thread sets up or drops an array (see there). */
extern __thread unsigned int slab_no_array __attribute__((tls_model("initial-exec")));

/* Options (slab_cache.c).  why hidden on slab_stats: the fast paths test it,
 * and a declaration without it costs them an address load (-fPIC). */
extern unsigned long reaptimeout_ac;	/* ms: REAPTIMEOUT_AC */
extern bool slab_stats __attribute__((visibility("hidden")));	/* globalstat/cpustat counting */

#define REAPTIMEOUT_AC		(reaptimeout_ac)
#define REAPTIMEOUT_NODE	(2 * reaptimeout_ac)

static inline struct kmem_cache_node *get_node(struct kmem_cache *s, int node)
{
	return s->node[node];
}

static inline int numa_mem_id(void)
{
	return 0;
}

/* Milliseconds of a coarse monotonic clock: the reaper's jiffies. */
static inline unsigned long slab_jiffies(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (unsigned long)ts.tv_sec * 1000UL + (unsigned long)ts.tv_nsec / 1000000UL;
}

/* ---- slab.c ---- */

/* A fast per-thread generator (splitmix64) seeded from the OS. */
unsigned int slab_random(void);
/* Give nr objects back to their slabs (list_lock held); free slabs beyond
 * the node's free_limit go to list, for slabs_destroy. */
void free_block(struct kmem_cache *s, void **objpp, unsigned int nr, int node,
		struct list_head *list);
/* Free the slabs collected on list (no lock held). */
void slabs_destroy(struct kmem_cache *s, struct list_head *list);
/* Free the oldest entries of ac (all, or a reaper's fifth); list_lock held. */
void drain_array_locked(struct kmem_cache *s, struct array_cache *ac, int node,
			bool free_all, struct list_head *list);
/* Give every entry of ac back to its slabs (no lock held). */
void drain_array_all(struct kmem_cache *s, struct array_cache *ac);
/* Free up to tofree free slabs of node n; returns how many. */
unsigned long drain_freelist(struct kmem_cache *s, struct kmem_cache_node *n,
			     unsigned long tofree);

/* ---- slab_cache.c ---- */

/* An empty array cache of entries pointers (a kmalloc object), or NULL;
 * slots: with the slot words of a CPU array (slab_def.h). */
struct array_cache *alloc_arraycache(unsigned long entries, unsigned int batchcount, bool slots);

#endif /* USLAB_MM_SLAB_INTERNAL_H */
