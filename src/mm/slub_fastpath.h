/* SPDX-License-Identifier: MIT */
/*
 * slub_fastpath.h - SLUB's fast paths, inline: struct kmem_cache_cpu, the
 * pops of c->freelist (plain and accounted) and the free fast path's push,
 * for the exported functions of slub.c (kmem_cache_alloc, kmem_cache_free)
 * and slub_kmalloc.c (__kmalloc, kfree, the malloc drop-in's entries).
 * Only SLUB's .c files include it, and the malloc drop-in's malloc.c
 * (built for SLUB), which pops and pushes its class caches in line (§2
 * there); the out-of-line ends the fast paths reach (__slab_alloc,
 * slab_free_slow, ...) are declared in slub_internal.h.
 * why a header: each exported function must have its fast path inlined
 * (no call, no stack frame; the budget below), in whichever file it lives.
 *
 * Call tree (fast paths are inlined into the exported functions):
 *
 *   kmem_cache_alloc / _node / kmem_cache_alloc_orig (malloc's)
 *     slab_alloc_node        pop c->freelist                     [fast]
 *       slab_alloc_node_memcg  SLAB_ACCOUNT: charge the memory cgroup,
 *                            pop, record (memcontrol.h); without a call
 *                            if the stock pays and the cpu slab's vector
 *                            is at hand (c->objcgs), else
 *         slab_alloc_node_memcg_slow  charge, allocate, record by calls
 *       slab_alloc_node_slow __GFP_ACCOUNT or __GFP_ZERO: the same pops
 *                            out of line, so that the fast path tests
 *                            both flags at once
 *       __slab_alloc         the sheaf's newest object (§10): a pop; else
 *         __slab_alloc_slow  no CPU yet, the cpu freelist empty (or its
 *         slab_alloc_one     head corrupt), or a debug-path cache:
 *           slab_alloc_debug debug, failslab, memcheck (slub_debug.c)
 *           ___slab_alloc    remote frees (get_freelist) -> partial chain
 *                            -> get_partial_node -> new_slab
 *           slab_alloc_nocpu thread without a CPU id: under list_lock
 *   __kmalloc / _node        the cache by one table load, then the pop
 *                            (kmalloc-cg-<n>: the accounted pop)     [fast]
 *     kmalloc_refill         the pop failed: memcheck, the kmalloc red
 *                            zone, the accounted slow path, __slab_alloc
 *     kmalloc_slow           size 0, large, before the kmalloc caches
 *   kmem_cache_free / kfree / kmem_cache_free_keep_errno (malloc's free)
 *     slab_free_fast         push onto c->freelist if x is in the cpu slab [fast]
 *                            (a charged x: uncharged into the CPU's stock)
 *       slab_free_slow       a valid, uncharged x of another slab into the
 *                            sheaf (§10), with no call; anything else:
 *         slab_free_general  validate x (object_slab_checked), then
 *           slab_free_debug  a debug-path cache (slub_debug.c), or
 *           sheaf_push       the sheaf (a full one gives all back first), or
 *           do_slab_free     the cpu slab after all, or
 *             __slab_free    cmpxchg_double onto slab->freelist; freeze a
 *                            full slab onto this CPU's chain; free empties
 *   malloc.c's malloc: the pop of c->freelist, else sheaf_pop_live
 *   malloc.c's free: slab_free_fast_live, the push alone (its live map
 *                            proved the rest), else sheaf_push_live (no
 *                            look-up of the slab), else
 *                            kmem_cache_free_keep_errno
 *   kmem_cache_free_bulk -> build_detached_freelist -> slab_free_chain
 *
 * Budget.  alloc: one TLS load, two loads to find c, load the freelist
 * head and check it lies in the cpu slab (hardened: subtract, one compare
 * with the slab's span; else a NULL test), decode its free pointer (load,
 * an XOR with the key c->freelist_key ^ object), a prefetch of the next
 * object's free pointer, one store, one test of the gfp flags
 * (__GFP_ACCOUNT and __GFP_ZERO) and one of s->flags (SLAB_ACCOUNT).  kmalloc: a range
 * test, the table load of the cache's index, one test of the gfp flags
 * (those that pick another row, and __GFP_ZERO), the cache's load and NULL
 * test (before the caches exist), then the pop; no test of s->flags (a
 * kmalloc-<n> cache is never SLAB_ACCOUNT).  free: find c, check x is an
 * object start of the cpu slab (subtract, the exact-division multiply,
 * rotate, one compare with the slab's object count), a compare with the
 * freelist head (naive double free), a test of the slab's memcg_data,
 * encode (two XORs: c->freelist_key, x), two stores.  kfree first finds the slab: the arena range test
 * (which also sends NULL and ZERO_SIZE_PTR out), the head page, its
 * PG_slab test, the cache.  No lock, no atomic read-modify-write, no
 * call, and no stack frame: the return address slow paths record is read
 * on their branches only (slab_ret_ip).  Debug-path caches never have a
 * cpu slab (nor any cache in memcheck mode), so they fail the pop's and
 * the free's tests; kmalloc_refill and slab_free_slow take them from there.
 * Memory cgroups: the accounted pop tests that the stock caches the
 * thread's objcg and pays for the object, and one compare (with
 * c->objcgs_objects) checks the head and that the cpu slab's vector is at
 * hand; the free of an object of a slab with a vector finds its slot from
 * memcg_data and the index its test computed, and gives the bytes back to
 * the stock.
 */
#ifndef USLAB_MM_SLUB_FASTPATH_H
#define USLAB_MM_SLUB_FASTPATH_H

#include "slub_internal.h"
#include "memcontrol.h"
#include "track.h"

/*
 * Per cache and CPU.  The first seven words are all the fast paths touch.
 * A CPU id's storage passes to the next thread that gets the id in the
 * state the exiting thread left it: empty (see slub_cpu_dead).
 */
struct kmem_cache_cpu {
	void *freelist;			/* free objects of the cpu slab (owner only, no lock) */
	unsigned long freelist_key;	/* the cpu slab's free pointer key (freepointer_slab_key;
					 * hardened; owner) */
	unsigned long slab_start;	/* first object of the cpu slab; 0 if none (owner) */
	unsigned long slab_objects;	/* objects in the cpu slab; 0 if none (owner) */
	unsigned long slab_span;	/* bytes from slab_start past the last object; 0 if none (owner) */
	struct slab *slab;		/* the cpu slab (frozen) or NULL (owner; changed under lock) */
	struct obj_cgroup **objcgs;	/* the cpu slab's vector slots (memcontrol.h) for the
					 * accounted alloc fast path, or NULL: none when
					 * installed or when the accounted alloc slow path
					 * last looked.  Never another slab's.  NULL may be
					 * stale (another thread may attach a vector to an
					 * object it took before): the alloc then takes the
					 * slow path, which looks again (owner) */
	unsigned long objcgs_objects;	/* slab_objects if objcgs is set, else 0: the one
					 * test of the accounted alloc fast path (owner) */
	struct slab *partial;		/* chain of frozen partial slabs (lock; owner peeks racily) */
	bool flush_request;		/* kmem_cache_shrink wants the cpu slab back (atomic) */
	spinlock_t lock;		/* the slow path's lock: partial, changes of slab */
	unsigned int stat[NR_SLUB_STAT_ITEMS];	/* CONFIG_SLUB_STATS counts (owner) */
	struct slub_sheaf sheaf;	/* objects this CPU freed, not of its cpu slab, with
					 * room for s->sheaf_capacity (owner; §10) */
};

/*
 * The return address a slow path records (owner tracks, reports): addr,
 * or for 0 -- what the exported functions pass, a constant once inlined --
 * the exported function's own.  why not _RET_IP_ at the top of each
 * exported function: read there, it costs every call a stack frame; read
 * on the slow branches only, the fast path needs none, and the slow
 * path's own frame record names the program's frame, which track.c's
 * walk looks for.
 */
#define slab_ret_ip(addr)	((addr) ? (addr) : _RET_IP_)

/* Index of x in the cpu slab: below c->slab_objects iff x is an object
 * start of it (obj_offset_index()'s exact division; without a cpu slab the
 * count is 0 and nothing passes).  Plain reads: only c's owner, the
 * caller, changes c's cpu slab fields. */
static __always_inline unsigned long cpu_slab_index(const struct kmem_cache *s,
						    const struct kmem_cache_cpu *c, const void *x)
{
	return obj_offset_index(s, (unsigned long)x - c->slab_start);
}

/*
 * May the fast path hand out object, the head of c->freelist?  Hardened
 * (§7): only an address inside the cpu slab's objects, so that a corrupted
 * free pointer is caught before its value is handed out; that one test
 * also rejects NULL and "no cpu slab" (span 0).  why a range and not the
 * free path's exact test: every link was an object start when it was
 * stored (frees are checked exactly, new slabs are built so), so only a
 * write after free changes one, and without the cache's key such a write
 * decodes to a random address, outside the slab but for a chance of about
 * span / 2^64.  A writer who knows the key can aim at a live object's
 * start, which no test of the link can tell from a free one: an exact
 * test would buy nothing against it, for four more instructions.
 */
static __always_inline bool cpu_freelist_object_ok(const struct kmem_cache_cpu *c,
						   const void *object)
{
	if (!CONFIG_SLAB_FREELIST_HARDENED)
		return object != NULL;
	return (unsigned long)object - c->slab_start < c->slab_span;
}

/*
 * Start loading the free pointer of the next object to be handed out, so the
 * next pop finds it in the cache: a pop's load of its object's link is the
 * one step of the fast path a cache miss lengthens (objects spaced by a
 * power of two share few cache sets).  A prefetch of a bad address (NULL,
 * a corrupt link) does not fault.
 */
static __always_inline void prefetch_freepointer(const struct kmem_cache *s, const void *next)
{
	__builtin_prefetch((const char *)next + s->offset, 1, 3);
}

/* Pop the head of c->freelist into *objectp; false, with nothing done, if
 * it may not be handed out (empty, or corrupt: the slow path reports it). */
static __always_inline bool cpu_freelist_pop(const struct kmem_cache *s, struct kmem_cache_cpu *c,
					     void **objectp)
{
	void *object = c->freelist, *next;

	if (unlikely(!cpu_freelist_object_ok(c, object)))
		return false;
	next = get_freepointer_keyed(s, object, c->freelist_key);
	prefetch_freepointer(s, next);	/* why before the store: s->offset is at hand */
	WRITE_ONCE(c->freelist, next);
	*objectp = object;
	return true;
}

/*
 * The accounted pop: if this CPU's stock caches the thread's objcg and
 * pays for the object, and the cpu slab's vector is at hand, pop the head
 * of c->freelist into *objectp and record the objcg in its slot; else
 * false, with nothing done.  One compare checks the head (hardened or not: only an object
 * start of the cpu slab has an index below the count) and that the
 * vector is known (c->objcgs_objects is 0 until then).  An objcg of NULL
 * (no active group) matches only a stock that caches nothing and holds no
 * bytes (memcontrol.h), so the payment turns it away.
 */
static __always_inline bool cpu_freelist_pop_memcg(const struct kmem_cache *s,
						   struct kmem_cache_cpu *c, void **objectp)
{
	struct obj_stock *stock = this_obj_stock;
	void *object = c->freelist;
	unsigned long idx;
	unsigned int left;

	if (unlikely(!obj_stock_caches(stock, active_objcg)))
		return false;
	if (unlikely(__builtin_sub_overflow(stock->nr_bytes, obj_full_size(s), &left)))
		return false;
	idx = cpu_slab_index(s, c, object);
	if (unlikely(idx >= c->objcgs_objects))
		return false;
	WRITE_ONCE(stock->nr_bytes, left);
	WRITE_ONCE(c->freelist, get_freepointer_keyed(s, object, c->freelist_key));
	/* why read again: one register less held across the tests */
	WRITE_ONCE(c->objcgs[idx], READ_ONCE(stock->cached_objcg));
	*objectp = object;
	return true;
}

/* This thread's pop from s into *objectp, accounted or not; false
 * (nothing done) when it has no CPU yet or the pop cannot be made. */
static __always_inline bool slab_pop(struct kmem_cache *s, bool accounted, void **objectp)
{
	struct kmem_cache_cpu *c = this_cpu_ptr_or_null(s->cpu_slab);

	if (unlikely(!c))
		return false;
	if (accounted)
		return cpu_freelist_pop_memcg(s, c, objectp);
	return cpu_freelist_pop(s, c, objectp);
}

/* A popped object, zeroed if gfpflags ask for it. */
static __always_inline void *slab_popped(const struct kmem_cache *s, gfp_t gfpflags, void *object)
{
	if (unlikely(gfpflags & __GFP_ZERO))
		return slab_zero_object(s, object);
	return object;
}

static __always_inline void *slab_alloc_node_fast(struct kmem_cache *s, gfp_t gfpflags,
						  int node, unsigned long addr)
{
	void *object;

	if (unlikely(!slab_pop(s, false, &object)))	/* no CPU yet, empty, debug path */
		return __slab_alloc(s, gfpflags, node, slab_ret_ip(addr));
	return slab_popped(s, gfpflags, object);
}

/* The accounted allocation: the accounted pop, else its general form. */
static __always_inline void *slab_alloc_node_memcg(struct kmem_cache *s, gfp_t gfpflags,
						   int node, unsigned long addr)
{
	void *object;

	if (unlikely(!slab_pop(s, true, &object)))
		return slab_alloc_node_memcg_slow(s, gfpflags, node, slab_ret_ip(addr));
	return slab_popped(s, gfpflags, object);
}

/* Budget: two tests, then the pop (see above). */
static __always_inline void *slab_alloc_node(struct kmem_cache *s, gfp_t gfpflags, int node,
					     unsigned long addr)
{
	if (unlikely(gfpflags & (__GFP_ACCOUNT | __GFP_ZERO)))
		return slab_alloc_node_slow(s, gfpflags, node, slab_ret_ip(addr));
	if (gfpflags & __GFP_ZERO)
		__builtin_unreachable();	/* why: tells the pop's zeroing, at no cost */
	if (unlikely(s->flags & SLAB_ACCOUNT))
		return slab_alloc_node_memcg(s, gfpflags, node, addr);
	return slab_alloc_node_fast(s, gfpflags, node, addr);
}

/*
 * The free fast path: push x onto c->freelist; false, with nothing done,
 * if x needs slab_free_slow.  slab: x's slab if the caller has it (kfree),
 * else NULL: once x passed the test, its slab is the cpu slab.  A charged
 * x (its slab has a vector) is uncharged into this CPU's stock, by the
 * slot at the index the test computed.
 */
static __always_inline bool slab_free_fast(struct kmem_cache *s, const struct slab *slab,
					   void *x)
{
	struct kmem_cache_cpu *c = this_cpu_ptr_or_null(s->cpu_slab);
	unsigned long idx, memcg_data;
	void *head;

	if (unlikely(!c))
		return false;
	idx = cpu_slab_index(s, c, x);
	if (unlikely(idx >= c->slab_objects))
		return false;		/* no object start of the cpu slab */
	head = c->freelist;
	if (unlikely(x == head))
		return false;		/* reported there: naive double free */
	/* why acquire: pairs with the cmpxchg that published the vector */
	memcg_data = smp_load_acquire(&(slab ? slab : c->slab)->memcg_data);
	if (unlikely(memcg_data) &&
	    unlikely(!memcg_slot_uncharge_fast(s, memcg_data_slots(memcg_data) + idx)))
		return false;		/* an uncharge the stock cannot take */
	set_freepointer_keyed(s, x, head, c->freelist_key);
	WRITE_ONCE(c->freelist, x);
	return true;
}

/*
 * slab_free_fast for a caller that has proved x is a live, uncharged
 * object of s (the malloc drop-in: its live map, ptrcheck.c §4, and a
 * cache that is not SLAB_ACCOUNT, allocated without __GFP_ACCOUNT).  What
 * that proof makes redundant is left out: x is an object start, so a range
 * test places it in the cpu slab (objects of another slab lie outside that
 * range); it is live, so it is not the freelist's head (no naive double
 * free); it was never charged, so its slot (if its slab has a vector) is
 * NULL and nothing is uncharged.  False, with nothing done, if x is not in
 * the cpu slab (none, or a debug-path cache): the caller then frees it the
 * general way.
 */
static __always_inline bool slab_free_fast_live(struct kmem_cache *s, struct kmem_cache_cpu *c,
						void *x)
{
	void *head;

	if (unlikely((unsigned long)x - c->slab_start >= c->slab_span))
		return false;
	head = c->freelist;
	*(void **)((char *)x + s->offset) = freelist_ptr(head, x, c->freelist_key);
	WRITE_ONCE(c->freelist, x);
	return true;
}

/* ---- the sheaf (slub.c §10, slub_sheaf.c): the owner's pop and store ---- */

/* The newest object of c's sheaf (not empty; owner). */
static __always_inline void *sheaf_pop(struct kmem_cache_cpu *c)
{
	unsigned int nr = c->sheaf.nr - 1;

	WRITE_ONCE(c->sheaf.nr, nr);
	c->sheaf.slab_objects = 0;	/* why: it may have kept that slab a slab of s */
	return c->sheaf.entries[nr].object;
}

/* Keep x of slab (NULL: the flush finds it) in c's sheaf (room checked,
 * x checked; owner). */
static __always_inline void sheaf_store(struct kmem_cache_cpu *c, struct slab *slab, void *x)
{
	unsigned int nr = c->sheaf.nr;

	c->sheaf.entries[nr] = (struct sheaf_entry){ x, slab };
	WRITE_ONCE(c->sheaf.nr, nr + 1);
}

/*
 * The drop-in's pop and push on the sheaf (slub_sheaf.c §8).  Only for
 * objects the drop-in's live map vouches for: live objects of s that
 * malloc took uncharged, so neither a look-up nor a test of the slab, nor
 * an uncharge, is needed here.
 *
 * Pop the newest object of c's sheaf into *objectp; false if it is empty.
 */
static __always_inline bool sheaf_pop_live(struct kmem_cache_cpu *c, void **objectp)
{
	if (!c->sheaf.nr)
		return false;
	*objectp = sheaf_pop(c);
	return true;
}

/* Keep x, an object the live map vouches for, in c's sheaf, its slab left
 * for the flush to find; false, nothing done, if the sheaf is full or a
 * flush is asked for. */
static __always_inline bool sheaf_push_live(const struct kmem_cache *s, struct kmem_cache_cpu *c,
					    void *x)
{
	if (unlikely(c->sheaf.nr >= s->sheaf_capacity) || unlikely(READ_ONCE(c->flush_request)))
		return false;
	sheaf_store(c, NULL, x);
	return true;
}

#endif /* USLAB_MM_SLUB_FASTPATH_H */
