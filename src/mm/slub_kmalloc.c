// SPDX-License-Identifier: MIT
/*
 * slub_kmalloc.c - SLUB's kmalloc family: __kmalloc and __kmalloc_node,
 * kfree, __ksize, and the malloc drop-in's kmem_cache_alloc_orig (an
 * object asked for at a size of its own, for the kmalloc red zone).
 * Their fast paths are slub_fastpath.h's pops and push, inlined here; a
 * miss goes to slub.c's slow paths (__slab_alloc, the accounted
 * slab_alloc_node_memcg_slow, slab_free_slow).  The call tree and the
 * instruction budget are told in slub_fastpath.h.
 *
 * This file belongs to the SLUB build only: the build compiles every
 * source file for every allocator, so its body sits in one #if.
 */
#include <string.h>
#include "slab.h"

#if CONFIG_SLUB
#include "slub_fastpath.h"


/*
 * The kmalloc red zone (slub_debug.c §8).  Such a cache takes the debug
 * path, which hands the object out with orig_size = object_size; the size
 * asked for then moves the red zone's start, before the caller sees the
 * object.  __GFP_ZERO zeroes only the bytes asked for: the rest is red zone.
 * Also reached for SLAB_ACCOUNT or __GFP_ACCOUNT (slab_alloc_orig).
 */
static noinline void *slab_alloc_orig_slow(struct kmem_cache *s, gfp_t flags, int node,
					   unsigned long addr, size_t orig_size)
{
	void *object;

	if (!slub_debug_orig_size(s))
		return slab_alloc_node(s, flags, node, addr);
	object = slab_alloc_node(s, flags & ~__GFP_ZERO, node, addr);
	if (unlikely(!object))
		return NULL;
	slab_set_orig_size(s, object, (unsigned int)orig_size);
	if (flags & __GFP_ZERO)
		memset(object, 0, orig_size);
	return object;
}

/*
 * slab_alloc_node() of an object asked for at orig_size bytes (the malloc
 * drop-in's classes).  Budget: that of slab_alloc_node, __GFP_ZERO tested
 * after the pop; why one mask: SLAB_RED_ZONE joins the SLAB_ACCOUNT test
 * of s->flags, so debug off costs nothing.
 */
static __always_inline void *slab_alloc_orig(struct kmem_cache *s, gfp_t flags, int node,
					     unsigned long addr, size_t orig_size)
{
	if (unlikely(s->flags & (SLAB_ACCOUNT | SLAB_RED_ZONE)) ||
	    unlikely(flags & __GFP_ACCOUNT)) {
		/* why: an accounted allocation goes straight to the accounted
		 * pop, without a frame of slab_alloc_orig_slow's */
		if (likely(!slub_debug_orig_size(s)))
			return slab_alloc_node(s, flags, node, addr);
		return slab_alloc_orig_slow(s, flags, node, slab_ret_ip(addr), orig_size);
	}
	return slab_alloc_node_fast(s, flags, node, addr);
}

void *kmem_cache_alloc_orig(struct kmem_cache *s, gfp_t flags, size_t size)
{
	return slab_alloc_orig(s, flags, NUMA_NO_NODE, 0, size);
}

void *kmem_cache_alloc_node_orig(struct kmem_cache *s, gfp_t flags, int node, size_t size)
{
	return slab_alloc_orig(s, flags, node, 0, size);
}

/*
 * memcheck (memcheck.h §2): the slot handed out becomes a block of the size
 * asked for, so that the tools see an access past it.  Not in a poisoning
 * cache: its debug free path writes the whole object before memcheck_free.
 */
static noinline void *kmalloc_memcheck(struct kmem_cache *s, size_t size, gfp_t flags,
				       int node, unsigned long addr)
{
	void *object = slab_alloc_node(s, flags, node, addr);

	if (object && !(s->flags & __OBJECT_POISON))
		memcheck_kmalloc_resize(object, s->object_size, size);
	return object;
}

/* kmalloc of size 0, above the largest cache, or before the caches exist. */
static noinline void *kmalloc_slow(size_t size, gfp_t flags, int node, unsigned long addr)
{
	struct kmem_cache *s;

	if (size > KMALLOC_MAX_CACHE_SIZE)
		return kmalloc_large_node(size, flags, node);
	slab_ensure_init();
	s = kmalloc_slab(size, flags);
	if (unlikely(ZERO_OR_NULL_PTR(s)))
		return s;
	if (unlikely(memcheck_active()))
		return kmalloc_memcheck(s, size, flags, node, addr);
	return slab_alloc_orig(s, flags, node, addr, size);
}

/*
 * A kmalloc from s whose pop failed.  Besides an empty cpu freelist (or no
 * CPU yet, or a corrupt head): memcheck and the kmalloc red zone, whose
 * caches have no cpu slab (so their pop always fails, and the fast path
 * need not test for them), and the accounted pop's other conditions.
 */
static noinline void *kmalloc_refill(struct kmem_cache *s, size_t size, gfp_t flags, int node,
				     unsigned long addr)
{
	if (unlikely(memcheck_active()))
		return kmalloc_memcheck(s, size, flags, node, addr);
	if (unlikely(slub_debug_orig_size(s)))
		return slab_alloc_orig_slow(s, flags, node, addr, size);
	if (memcg_slab_wants_charge(s, flags))
		return slab_alloc_node_memcg_slow(s, flags, node, addr);
	return __slab_alloc(s, flags, node, addr);
}

/* kmalloc's pop from s (accounted: kmalloc-cg-<n>, or __GFP_ACCOUNT). */
static __always_inline void *kmalloc_pop(struct kmem_cache *s, size_t size, gfp_t flags,
					 int node, unsigned long addr, bool accounted)
{
	void *object;

	if (unlikely(!slab_pop(s, accounted, &object)))
		return kmalloc_refill(s, size, flags, node, slab_ret_ip(addr));
	return slab_popped(s, flags, object);
}

/* kmalloc with __GFP_ZERO, or the flags of another row than kmalloc-<n>
 * (kmalloc_type(): __GFP_RECLAIMABLE, __GFP_DMA, __GFP_ACCOUNT with one of
 * them). */
static noinline void *kmalloc_typed(unsigned int index, size_t size, gfp_t flags, int node,
				    unsigned long addr)
{
	struct kmem_cache *s = smp_load_acquire(&kmalloc_caches[kmalloc_type(flags)][index]);

	if (unlikely(!s))
		return kmalloc_slow(size, flags, node, addr);
	if (memcg_slab_wants_charge(s, flags))
		return kmalloc_pop(s, size, flags, node, addr, true);
	return kmalloc_pop(s, size, flags, node, addr, false);
}

/* kmalloc with flags the plain pop does not take: __GFP_ACCOUNT alone is
 * the accounted pop of kmalloc-cg-<n>, the rest kmalloc_typed. */
static __always_inline void *kmalloc_flags(unsigned int index, size_t size, gfp_t flags,
					   int node, unsigned long addr)
{
	struct kmem_cache *s;

	/* why two tests: __kmalloc then tests the flags without keeping them */
	if (likely(flags & __GFP_ACCOUNT) &&
	    likely(!(flags & (__GFP_DMA | __GFP_RECLAIMABLE | __GFP_ZERO)))) {
		s = smp_load_acquire(&kmalloc_caches[KMALLOC_CGROUP][index]);
		/* why the mask: the pop then has no __GFP_ZERO test */
		if (likely(s))
			return kmalloc_pop(s, size, flags & ~__GFP_ZERO, node, addr, true);
	}
	return kmalloc_typed(index, size, flags, node, slab_ret_ip(addr));
}

static __always_inline void *kmalloc_node_inline(size_t size, gfp_t flags, int node,
						  unsigned long addr)
{
	struct kmem_cache *s;
	unsigned int index;

	/* why size - 1: one compare sends both 0 and too big to kmalloc_slow */
	if (unlikely(size - 1 >= KMALLOC_MAX_CACHE_SIZE))
		return kmalloc_slow(size, flags, node, slab_ret_ip(addr));
	index = kmalloc_cache_index(size);
	if (unlikely(flags & (KMALLOC_NOT_NORMAL_BITS | __GFP_ZERO)))
		return kmalloc_flags(index, size, flags, node, addr);
	if (flags & __GFP_ZERO)
		__builtin_unreachable();	/* why: tells the pop's zeroing, at no cost */
	/* why acquire: a cache seen is set up; NULL before the caches exist */
	s = smp_load_acquire(&kmalloc_caches[KMALLOC_NORMAL][index]);
	if (unlikely(!s))
		return kmalloc_slow(size, flags, node, slab_ret_ip(addr));
	return kmalloc_pop(s, size, flags, node, addr, false);
}

void *__kmalloc(size_t size, gfp_t flags)
{
	return kmalloc_node_inline(size, flags, NUMA_NO_NODE, 0);
}
EXPORT_SYMBOL(__kmalloc);

void *__kmalloc_node(size_t size, gfp_t flags, int node)
{
	return kmalloc_node_inline(size, flags, node, 0);
}
EXPORT_SYMBOL(__kmalloc_node);

noinline void kfree_large(struct folio *folio, const void *x)
{
	if (unlikely(!folio_test_large_kmalloc(folio))) {
		free_invalid_pointer("kfree", x, "not a slab object or large kmalloc: double free?");
		return;
	}
	free_large_kmalloc(folio, (void *)x);
}

/* kfree of an address outside the arena's online sections: NULL and
 * ZERO_SIZE_PTR do nothing, anything else is reported. */
static noinline void kfree_outside(const void *x)
{
	if (!ZERO_OR_NULL_PTR(x))
		free_invalid_pointer("kfree", x, "not in the arena");
}

void kfree(const void *x)
{
	/* why no ZERO_OR_NULL_PTR test first: x - arena_start wraps for them
	 * to a pfn past max_pfn, as for any address outside the arena (whose
	 * max_pfn pages end exactly at arena_end), so pfn_valid's one compare
	 * sends them out too */
	unsigned long pfn = virt_to_pfn(x);
	struct folio *folio;
	struct slab *slab;

	if (unlikely(!pfn_valid(pfn))) {
		kfree_outside(x);
		return;
	}
	folio = page_folio(pfn_to_page(pfn));
	if (unlikely(!folio_test_slab(folio))) {
		kfree_large(folio, x);
		return;
	}
	slab = folio_slab(folio);
	if (unlikely(!slab_free_fast(slab->slab_cache, slab, (void *)x)))
		slab_free_slow(slab->slab_cache, (void *)x, "kfree", _RET_IP_);
}
EXPORT_SYMBOL(kfree);

static inline unsigned int slab_ksize(const struct kmem_cache *s)
{
	/* debug metadata lives in the padding: only the object is usable;
	 * memcheck sees only the object as the program's */
	if ((s->flags & (SLAB_RED_ZONE | SLAB_POISON)) || memcheck_active())
		return s->object_size;
	/* the free pointer or tracks follow the object */
	if (s->flags & (SLAB_TYPESAFE_BY_RCU | SLAB_STORE_USER))
		return s->inuse;
	return s->size;
}

size_t __ksize(const void *object)
{
	struct kmem_cache *s;
	struct folio *folio;

	if (unlikely(ZERO_OR_NULL_PTR(object)))
		return 0;
	if (unlikely(!virt_addr_valid(object))) {
		free_invalid_pointer("ksize", object, "not in the arena");
		return 0;
	}
	folio = virt_to_folio(object);
	if (unlikely(!folio_test_slab(folio))) {
		if (!folio_test_large_kmalloc(folio)) {
			free_invalid_pointer("ksize", object, "not a slab object or large kmalloc");
			return 0;
		}
		return folio_size(folio);
	}
	s = folio_slab(folio)->slab_cache;
	/* why: all of ksize may be used from now on, so the kmalloc red zone
	 * ends with the object (Linux 6.2's skip_orig_size_check) */
	if (unlikely(slub_debug_orig_size(s)))
		kmalloc_set_orig_size(object, s->object_size);
	return slab_ksize(s);
}

#endif /* CONFIG_SLUB */
