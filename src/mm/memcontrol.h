/* SPDX-License-Identifier: MIT */
/*
 * memcontrol.h - memory cgroup accounting of slab objects: the hooks SLUB
 * and SLAB call on their allocation and free paths (mm/slab.h's memcg hooks
 * of Linux 5.17), as inline fast parts over the out-of-line rest in
 * memcontrol.c, whose top tells how accounting works.
 *
 * Glossary
 *   memcg        a group (struct mem_cgroup): name, limit, page counter,
 *                shrink callbacks.  Private to memcontrol.c.
 *   objcg        struct obj_cgroup: the handle a charged object records.
 *                It points at its group, and at the root group once the
 *                group is destroyed (reparenting).  Private to memcontrol.c.
 *   stock        per CPU, bytes already charged to one objcg that no object
 *                holds yet: charges and uncharges of single objects move
 *                bytes in and out of it without an atomic instruction.
 *   vector       struct slab_objcgs, hung from slab->memcg_data: one objcg
 *                pointer per object of the slab.
 *   full size    what one object costs its group: s->size plus its slot
 *                in the vector (the kernel's obj_full_size()).
 *
 * The allocators' use of the hooks (SLOB never calls them: it has no
 * accounting, as in Linux):
 *   alloc   if memcg_slab_wants_charge(s, gfp) (__GFP_ACCOUNT or
 *           SLAB_ACCOUNT), the allocation goes through a path that calls
 *           memcg_slab_pre_alloc_hook (charge first; false = return NULL),
 *           allocates, then memcg_slab_post_alloc_one/_idx (record the
 *           objcg in the vector, or uncharge what was not allocated);
 *           bulk: memcg_slab_post_alloc_hook, or memcg_slab_cancel_charge.
 *           The accounted fast paths (SLUB's cpu_freelist_pop_memcg,
 *           SLAB's slab_alloc_memcg) do the same without a call: the
 *           stock must cache the active objcg (obj_stock_caches) and hold
 *           the full size (obj_stock_take), the object's slab must have
 *           its vector; else their slow form.  SLUB finds the slot from
 *           the cpu slab's vector (slab_objcgs_slots) and the pop's
 *           index; SLAB from the slot word its CPU array keeps beside
 *           each entry (slab_def.h), else from the object's page
 *           (memcg_obj_slot).
 *   free    after the pointer was validated: memcg_slab_free_hook, which
 *           does nothing unless slab->memcg_data is set, and calls out
 *           only when the stock cannot take the bytes.  SLUB's free fast
 *           path never calls out: memcg_slot_uncharge_fast on the slot of
 *           memcg_data_slots() at the index its own test computed; SLAB's
 *           does the same with the index its pointer check computed.
 *   slab    memcg_free_slab_cgroups when a slab goes back to the pages.
 *
 * Cost (docs/memcg.md has the numbers): an unaccounted allocation pays a
 * test of the gfp flags and one of s->flags; an unaccounted free, a test
 * of slab->memcg_data.  An accounted pair adds two TLS loads and a compare
 * (stock and active objcg), the full size taken from and given back to
 * the stock (a plain load and store each), and the slot's store and clear.
 */
#ifndef USLAB_MM_MEMCONTROL_H
#define USLAB_MM_MEMCONTROL_H

#include "slab.h"
#include "cpu.h"

/* Bit 0 of slab->memcg_data: the rest points at a struct slab_objcgs. */
#define MEMCG_DATA_OBJCGS	1UL
/* Bit 1 of folio->memcg_data of a large kmalloc: the rest is its objcg. */
#define MEMCG_DATA_KMEM		2UL
#define MEMCG_DATA_FLAGS_MASK	3UL

struct obj_cgroup;

/*
 * Most bytes a stock keeps when objects are uncharged into it: a stock
 * that would pass MEMCG_STOCK_MAX gives whole pages back, down to
 * MEMCG_STOCK_KEEP and less than a page more.  why more than a page: a
 * thread that allocates and frees up to MEMCG_STOCK_KEEP bytes of objects
 * in turns then charges and uncharges no page at all (the kernel keeps a
 * batch of 64 pages per CPU for the same reason, memcg_stock_pcp); why
 * 16 pages: a batch of 64 objects of 256 bytes charges 17 KB, and each
 * page the stock lacks or gives back costs a trip to the counter's atomics
 * (about 1.5x the plain pair at 4 pages, about 1.2x at 16).  Charges stay
 * exact: they charge the pages missing, and no more; a refused large
 * kmalloc first takes back the pages of its thread's stock.
 */
#define MEMCG_STOCK_MAX		(16 * PAGE_SIZE)
#define MEMCG_STOCK_KEEP	(8 * PAGE_SIZE)

/* Per CPU: bytes charged to cached_objcg that no object holds (obj_stock). */
struct obj_stock {
	struct obj_cgroup *cached_objcg;	/* holds a reference, or NULL (owner; others READ_ONCE) */
	unsigned int nr_bytes;			/* pre-charged bytes of cached_objcg, at most
						 * MEMCG_STOCK_MAX (owner; WRITE_ONCE) */
};

/*
 * The vector hung from slab->memcg_data | MEMCG_DATA_OBJCGS, allocated on
 * the first charged object of a slab and freed with the slab.
 */
struct slab_objcgs {
	struct list_head list;		/* on memcg_vectors (memcg_vectors_lock) */
	struct kmem_cache *cache;	/* the slab's cache (constant) */
	unsigned long base;		/* address of the slab's first object (constant) */
	unsigned long mult;		/* ceil(2^64 / s->size): index by multiply (constant) */
	unsigned int objects;		/* slots: objects per slab (constant) */
	struct obj_cgroup *objcgs[];	/* objcg charged for each object, NULL if none
					 * (the object's owner; READ_ONCE by reports) */
};

extern struct obj_stock __percpu *memcg_stock;	/* set before the first group exists */
/* The stock of a thread that has none (no CPU id yet, or its CPU torn
 * down): caches no objcg, so that the fast paths' compare with a real
 * objcg fails and sends them to the slow path, with no NULL test.  Never
 * written. */
extern struct obj_stock memcg_no_stock;
/* This thread's CPU's stock (per_cpu_ptr(memcg_stock, cpu)), cached by the
 * slow path and reset to &memcg_no_stock by the CPU teardown; starts as
 * &memcg_no_stock.  The slow path attaches the thread to a CPU if need be. */
extern __thread struct obj_stock *this_obj_stock __attribute__((tls_model("initial-exec")));
/* The objcg this thread charges (its active group's), NULL = charge nothing. */
extern __thread struct obj_cgroup *active_objcg __attribute__((tls_model("initial-exec")));

/* Out of line (memcontrol.c). */
int obj_cgroup_charge_slow(struct obj_cgroup *objcg, gfp_t gfp, size_t size);
void obj_cgroup_uncharge_slow(struct obj_cgroup *objcg, unsigned long size);
void __memcg_slab_post_alloc_hook(struct kmem_cache *s, struct obj_cgroup *objcg,
				  gfp_t flags, size_t size, void **p);
void __memcg_slab_post_alloc_one(struct kmem_cache *s, struct obj_cgroup *objcg,
				 gfp_t flags, void *object);
void __memcg_free_slab_cgroups(struct slab *slab);
/* cgroup.memory=nokmem: no kmalloc-cg caches, nothing is ever charged. */
extern bool cgroup_memory_nokmem;

static inline unsigned int obj_full_size(const struct kmem_cache *s)
{
	/* the slot in the vector is charged too, as the kernel does */
	return s->size + (unsigned int)sizeof(struct obj_cgroup *);
}

static __always_inline struct slab_objcgs *slab_objcgs(const struct slab *slab)
{
	/* why acquire: pairs with the cmpxchg that published the vector */
	unsigned long data = smp_load_acquire(&slab->memcg_data);

	return (struct slab_objcgs *)(data & ~MEMCG_DATA_FLAGS_MASK);
}

/* The slots of slab's vector, NULL if it has none. */
static __always_inline struct obj_cgroup **slab_objcgs_slots(const struct slab *slab)
{
	struct slab_objcgs *v = slab_objcgs(slab);

	return v ? v->objcgs : NULL;
}

/*
 * Index of the object holding address x of its slab: (x - base) / size by
 * one multiply, the high half of (x - base) * ceil(2^64 / size).  Exact:
 * rounding mult up adds less than 1/size to the quotient (x - base) / size,
 * whose fraction is at most (size - 1) / size, so the floor never moves.
 */
static __always_inline unsigned int slab_objcgs_index(const struct slab_objcgs *v, const void *x)
{
	return (unsigned int)(((u128)((unsigned long)x - v->base) * v->mult) >> 64);
}

/* Must this allocation be charged?  On the unaccounted fast path: a test
 * of the gfp flags and one of s->flags (in the cache line the fast path
 * reads), each a test with a jump. */
static __always_inline bool memcg_slab_wants_charge(const struct kmem_cache *s, gfp_t flags)
{
	return !CONFIG_SLOB && (unlikely(flags & __GFP_ACCOUNT) || unlikely(s->flags & SLAB_ACCOUNT));
}

/* Take nr_bytes from this CPU's stock if it holds enough for objcg (not
 * NULL: memcg_no_stock caches NULL). */
static __always_inline bool consume_obj_stock(struct obj_cgroup *objcg, unsigned int nr_bytes)
{
	struct obj_stock *stock = this_obj_stock;

	if (likely(stock->cached_objcg == objcg) && likely(stock->nr_bytes >= nr_bytes)) {
		WRITE_ONCE(stock->nr_bytes, stock->nr_bytes - nr_bytes);
		return true;
	}
	return false;
}

/*
 * obj_stock_caches - does stock cache objcg?  For a fast path that then
 * takes the bytes itself: objcg may be NULL (no active group), which
 * matches a stock that caches nothing; such a stock holds 0 bytes
 * (drain_obj_stock, memcg_no_stock), so the check that the stock pays for
 * the object turns it away without a test of its own.
 */
static __always_inline bool obj_stock_caches(const struct obj_stock *stock,
					     const struct obj_cgroup *objcg)
{
	return likely(READ_ONCE(stock->cached_objcg) == objcg);
}

/* Take nr_bytes from stock, which caches the objcg charged (the caller
 * checked), if it holds that many: one subtraction, its borrow the test. */
static __always_inline bool obj_stock_take(struct obj_stock *stock, unsigned int nr_bytes)
{
	unsigned int left;

	if (unlikely(__builtin_sub_overflow(stock->nr_bytes, nr_bytes, &left)))
		return false;
	WRITE_ONCE(stock->nr_bytes, left);
	return true;
}

/* Give nr_bytes of objcg (not NULL) back to this CPU's stock (a page's
 * worth at most). */
static __always_inline void obj_cgroup_uncharge(struct obj_cgroup *objcg, unsigned int nr_bytes)
{
	struct obj_stock *stock = this_obj_stock;

	if (likely(stock->cached_objcg == objcg) &&
	    likely(stock->nr_bytes + nr_bytes <= MEMCG_STOCK_MAX)) {
		WRITE_ONCE(stock->nr_bytes, stock->nr_bytes + nr_bytes);
		return;
	}
	obj_cgroup_uncharge_slow(objcg, nr_bytes);
}

/*
 * memcg_slab_pre_alloc_hook - charge the calling thread's group for
 * objects objects of s before they are allocated.
 * @objcgp: receives the objcg charged, or NULL when the thread charges
 *          nothing (no active group): pass it to the post hook.
 *
 * Return: false if the group's limit refuses the charge (after its shrink
 * callbacks could not free enough): the allocation must fail.
 */
static __always_inline bool memcg_slab_pre_alloc_hook(struct kmem_cache *s,
						      struct obj_cgroup **objcgp,
						      size_t objects, gfp_t flags)
{
	struct obj_cgroup *objcg = active_objcg;

	*objcgp = objcg;
	if (!objcg)
		return true;
	if (likely(objects == 1) && likely(consume_obj_stock(objcg, obj_full_size(s))))
		return true;
	return obj_cgroup_charge_slow(objcg, flags, objects * obj_full_size(s)) == 0;
}

/*
 * memcg_slab_post_alloc_hook - record objcg for each object of p[0..size)
 * that was allocated, and uncharge the ones that were not (NULL).
 */
static inline void memcg_slab_post_alloc_hook(struct kmem_cache *s, struct obj_cgroup *objcg,
					      gfp_t flags, size_t size, void **p)
{
	if (objcg)
		__memcg_slab_post_alloc_hook(s, objcg, flags, size, p);
}

/* The same for one object, passed by value: the fast path's form. */
static __always_inline void memcg_slab_post_alloc_one(struct kmem_cache *s,
						      struct obj_cgroup *objcg,
						      gfp_t flags, void *object)
{
	struct slab_objcgs *v;
	struct slab *slab;

	if (!objcg)
		return;
	if (likely(object)) {
		slab = folio_slab(virt_to_folio(object));
		v = slab_objcgs(slab);
		if (likely(v)) {
			WRITE_ONCE(v->objcgs[slab_objcgs_index(v, object)], objcg);
			return;
		}
	}
	__memcg_slab_post_alloc_one(s, objcg, flags, object);	/* by value: object stays in a register */
}

/*
 * memcg_slab_post_alloc_idx - memcg_slab_post_alloc_one for an allocator
 * that knows the object's slab and index already (SLUB's fast path: its
 * cpu slab and the exact-division index it just checked), which spares the
 * dependent loads and multiply of finding them again.
 */
static __always_inline void memcg_slab_post_alloc_idx(struct kmem_cache *s,
						      struct obj_cgroup *objcg, gfp_t flags,
						      struct slab *slab, unsigned int idx,
						      void *object)
{
	struct slab_objcgs *v = slab_objcgs(slab);

	if (likely(v))
		WRITE_ONCE(v->objcgs[idx], objcg);
	else
		__memcg_slab_post_alloc_one(s, objcg, flags, object);
}

/* Undo a pre-alloc charge of objects objects that were never handed out. */
static inline void memcg_slab_cancel_charge(struct kmem_cache *s, struct obj_cgroup *objcg,
					    size_t objects)
{
	if (objcg)
		obj_cgroup_uncharge_slow(objcg, objects * obj_full_size(s));
}

/* The slot of object x in its slab's vector; NULL if the slab has none.
 * For a fast path that has no slab at hand (SLAB's array pop). */
static __always_inline struct obj_cgroup **memcg_obj_slot(const void *x)
{
	struct slab_objcgs *v = slab_objcgs(folio_slab(virt_to_folio(x)));

	return likely(v) ? &v->objcgs[slab_objcgs_index(v, x)] : NULL;
}

/*
 * memcg_slot_uncharge_fast - uncharge the object whose slot is slot into
 * this CPU's stock, if it was charged: true when done (or nothing to do);
 * false, with nothing done, when the stock cannot take the bytes.
 */
static __always_inline bool memcg_slot_uncharge_fast(const struct kmem_cache *s,
						     struct obj_cgroup **slot)
{
	struct obj_cgroup *objcg = READ_ONCE(*slot);
	struct obj_stock *stock;
	unsigned int nr_bytes;

	if (!objcg)
		return true;	/* allocated without a charge */
	stock = this_obj_stock;
	/* why a plain read: the stock's owner is the caller */
	if (unlikely(stock->cached_objcg != objcg))
		return false;
	nr_bytes = stock->nr_bytes + obj_full_size(s);
	if (unlikely(nr_bytes > MEMCG_STOCK_MAX))
		return false;
	WRITE_ONCE(*slot, NULL);
	WRITE_ONCE(stock->nr_bytes, nr_bytes);
	return true;
}

/*
 * The slots of the vector of a slab whose memcg_data (read with acquire)
 * is memcg_data, not 0.  why a subtraction, not a mask: a slab's only flag
 * is MEMCG_DATA_OBJCGS, so it folds into the slot's address.
 */
static __always_inline struct obj_cgroup **memcg_data_slots(unsigned long memcg_data)
{
	return ((struct slab_objcgs *)(memcg_data - MEMCG_DATA_OBJCGS))->objcgs;
}

/* Has slab a vector?  The one test of an unaccounted free fast path. */
static __always_inline bool slab_has_objcgs(const struct slab *slab)
{
	return unlikely(READ_ONCE(slab->memcg_data) != 0);
}

/*
 * memcg_slab_free_fast - the uncharge of a free fast path, which must not
 * call out (the caller holds per-CPU state it read before): true when
 * object x of slab needed no uncharge or was uncharged into this CPU's
 * stock; false, with nothing done, sends the free to the slow path and its
 * full hook.  By the vector's own index (memcg_slab_free_hook's first
 * step); SLUB's fast path has the index already (memcg_data_slots).
 */
static __always_inline bool memcg_slab_free_fast(const struct kmem_cache *s,
						 const struct slab *slab, const void *x)
{
	struct slab_objcgs *v = slab_objcgs(slab);

	if (likely(!v))
		return true;
	return memcg_slot_uncharge_fast(s, &v->objcgs[slab_objcgs_index(v, x)]);
}

/*
 * memcg_slab_free_hook - uncharge object x (an object start of slab, already
 * validated) to the objcg it was charged to, whichever thread frees it.
 * Costs one test of slab->memcg_data when the slab has no vector, and no
 * call when this CPU's stock takes the bytes.
 */
void __memcg_slab_free_hook(const struct kmem_cache *s, const struct slab *slab, const void *x);
static __always_inline void memcg_slab_free_hook(struct kmem_cache *s, struct slab *slab, void *x)
{
	if (unlikely(!memcg_slab_free_fast(s, slab, x)))
		__memcg_slab_free_hook(s, slab, x);
}

/* A slab goes back to the pages: free its vector (every slot is NULL). */
static __always_inline void memcg_free_slab_cgroups(struct slab *slab)
{
	if (unlikely(READ_ONCE(slab->memcg_data)))
		__memcg_free_slab_cgroups(slab);
}

/*
 * Large kmalloc (a folio straight from the page allocator): charged by
 * whole pages to the active group when the caller asked for __GFP_ACCOUNT,
 * as the kernel's __GFP_ACCOUNT page allocations are.  Charge returns false
 * when the limit refuses; uncharge undoes it on free.
 */
bool __memcg_kmem_charge_folio(struct folio *folio, gfp_t gfp, unsigned int order);
void __memcg_kmem_uncharge_folio(struct folio *folio);
static __always_inline bool memcg_kmem_charge_folio(struct folio *folio, gfp_t gfp,
						    unsigned int order)
{
	if (likely(!(gfp & __GFP_ACCOUNT)))
		return true;
	return __memcg_kmem_charge_folio(folio, gfp, order);
}
static __always_inline void memcg_kmem_uncharge_folio(struct folio *folio)
{
	if (unlikely(READ_ONCE(folio->memcg_data)))
		__memcg_kmem_uncharge_folio(folio);
}

/* ---- the public API (exported as uslab_<name>; see <uslab/memcontrol.h>) ---- */
struct mem_cgroup *mem_cgroup_create(const char *name, unsigned long limit_bytes);
int mem_cgroup_destroy(struct mem_cgroup *memcg);
struct mem_cgroup *set_active_memcg(struct mem_cgroup *memcg);
struct mem_cgroup *get_active_memcg(void);
struct mem_cgroup *root_mem_cgroup(void);
int mem_cgroup_set_limit(struct mem_cgroup *memcg, unsigned long limit_bytes);
const char *mem_cgroup_name(struct mem_cgroup *memcg);
unsigned long mem_cgroup_usage(struct mem_cgroup *memcg);
int mem_cgroup_stats(struct mem_cgroup *memcg, struct uslab_mem_cgroup_stats *st);
void mem_cgroup_drain_stocks(void);
int mem_cgroup_register_shrinker(struct mem_cgroup *memcg, uslab_memcg_shrink_fn shrink, void *arg);
int mem_cgroup_unregister_shrinker(struct mem_cgroup *memcg, uslab_memcg_shrink_fn shrink,
				   void *arg);
struct mem_cgroup *mem_cgroup_from_obj(const void *p);
void mem_cgroup_print_stats(FILE *f);

#endif /* USLAB_MM_MEMCONTROL_H */
