/* SPDX-License-Identifier: MIT */
/*
 * slub_internal.h - what SLUB's files share: slub.c (the allocator: slabs,
 * the per-CPU and node state machine, the alloc and free slow paths),
 * slub_kmalloc.c (kmalloc, kfree, ksize), slub_cache.c (cache geometry,
 * creation and destruction, shrink, slabinfo, bring-up), slub_sheaf.c and
 * slub_debug.c.  Only they include it (slub_fastpath.h adds the fast
 * paths for slub.c and slub_kmalloc.c); see the top of slub.c for how
 * SLUB works.
 */
#ifndef USLAB_MM_SLUB_INTERNAL_H
#define USLAB_MM_SLUB_INTERNAL_H

#include "slab.h"
#include "cpu.h"
#include "memcheck.h"

#define MIN_PARTIAL		5	/* empty slabs a node keeps at least ... */
#define MAX_PARTIAL		10	/* ... and at most (min_partial clamp) */
#define OO_SHIFT		16
#define OO_MASK			((1U << OO_SHIFT) - 1)
#define MAX_OBJS_PER_PAGE	32767	/* slab->objects is 15 bits */
#define SHRINK_PROMOTE_MAX	32	/* shrink sorts slabs with up to this many free */

/* Internal cache flags (5.17 values). */
#define __OBJECT_POISON		0x80000000U	/* poison the object itself when free */
#define __CMPXCHG_DOUBLE	0x40000000U	/* slab freelist+counters by cmpxchg_double */
#define SLAB_NO_CMPXCHG		(SLAB_CONSISTENCY_CHECKS | SLAB_STORE_USER | SLAB_TRACE)

#define nr_node_ids		1	/* nodes with memory: node 0 */

/* Most objects a CPU's sheaf holds (slub.c §10; s->sheaf_capacity).  Each
 * takes 16 bytes of the CPU's struct kmem_cache_cpu, sized per cache. */
#define SLUB_SHEAF_MAX		64U
/* Bytes a sheaf may hold in objects: big objects get fewer slots (4 KiB
 * ones 16, a slab's worth). */
#define SLUB_SHEAF_BYTES	(64U * 1024)

/* SLUB_STATS event counters (the kernel's names); DEACTIVATE_TO_HEAD/
 * TO_TAIL double as add_partial()'s "where" argument, as in the kernel. */
enum stat_item {
	ALLOC_FASTPATH, ALLOC_SLOWPATH, FREE_FASTPATH, FREE_SLOWPATH, FREE_FROZEN,
	FREE_ADD_PARTIAL, FREE_REMOVE_PARTIAL, ALLOC_FROM_PARTIAL, ALLOC_SLAB,
	ALLOC_REFILL, ALLOC_NODE_MISMATCH, FREE_SLAB, CPUSLAB_FLUSH, DEACTIVATE_FULL,
	DEACTIVATE_EMPTY, DEACTIVATE_TO_HEAD, DEACTIVATE_TO_TAIL,
	DEACTIVATE_REMOTE_FREES, DEACTIVATE_BYPASS, ORDER_FALLBACK,
	CMPXCHG_DOUBLE_CPU_FAIL, CMPXCHG_DOUBLE_FAIL, CPU_PARTIAL_ALLOC,
	CPU_PARTIAL_FREE, CPU_PARTIAL_NODE, CPU_PARTIAL_DRAIN, NR_SLUB_STAT_ITEMS
};

static inline struct kmem_cache_node *get_node(const struct kmem_cache *s, int node)
{
	return s->node[node];
}

#define for_each_kmem_cache_node(s, __node, __n)			\
	for ((__node) = 0; (__node) < nr_node_ids; (__node)++)		\
		if (((__n) = get_node((s), (__node))) != NULL)

static inline bool kmem_cache_debug(const struct kmem_cache *s)
{
	return CONFIG_SLUB_DEBUG && unlikely(s->flags & SLAB_DEBUG_FLAGS);
}

/*
 * Does s take the debug path (slub_debug.c) for every allocation and free?
 * Debug caches, failslab caches, and every cache in memcheck mode.  Their
 * slabs never become cpu slabs, so the fast paths see an empty c->freelist
 * and a zero c->slab_objects and never need to ask.
 */
static inline bool slab_debug_path(const struct kmem_cache *s)
{
	return (CONFIG_SLUB_DEBUG && unlikely(s->flags & (SLAB_DEBUG_FLAGS | SLAB_FAILSLAB))) ||
	       memcheck_active();
}

/*
 * Does s keep each object's requested size after its tracks, and red-zone
 * the bytes past it (the kmalloc red zone, slub_debug.c §8)?  SLAB_KMALLOC
 * caches with red zones; such a cache takes the debug path.
 */
static inline bool slub_debug_orig_size(const struct kmem_cache *s)
{
	return CONFIG_SLUB_DEBUG &&
	       (s->flags & (SLAB_RED_ZONE | SLAB_KMALLOC)) == (SLAB_RED_ZONE | SLAB_KMALLOC);
}

static inline bool kmem_cache_has_cpu_partial(const struct kmem_cache *s)
{
	return CONFIG_SLUB_CPU_PARTIAL && !slab_debug_path(s);
}

/* Full slabs are listed only when their objects must be walkable (U). */
static inline bool kmem_cache_tracks_full(const struct kmem_cache *s)
{
	return CONFIG_SLUB_DEBUG && (s->flags & SLAB_STORE_USER);
}

static inline unsigned int order_objects(unsigned int order, unsigned int size)
{
	return (unsigned int)((PAGE_SIZE << order) / size);
}

static inline struct kmem_cache_order_objects oo_make(unsigned int order, unsigned int size)
{
	struct kmem_cache_order_objects x = { (order << OO_SHIFT) + order_objects(order, size) };

	return x;
}

static inline unsigned int oo_order(struct kmem_cache_order_objects x)
{
	return x.x >> OO_SHIFT;
}

static inline unsigned int oo_objects(struct kmem_cache_order_objects x)
{
	return x.x & OO_MASK;
}

/*
 * The counters word of a slab as a value.  The same bit fields as in struct
 * slab, in a union small enough to live in a register: editing them in a
 * 64-byte struct slab on the stack and reloading the word made every
 * cmpxchg wait for a failed store-to-load forwarding.
 */
union slab_counters {
	unsigned long counters;		/* the word cmpxchg_double compares */
	struct {
		unsigned inuse:16;	/* as struct slab */
		unsigned objects:15;
		unsigned frozen:1;
	};
};
_Static_assert(sizeof(union slab_counters) == sizeof(unsigned long), "one word");

/* A snapshot of a published slab's counters (they change under cmpxchg). */
static inline union slab_counters slab_counters(const struct slab *slab)
{
	union slab_counters v = { .counters = READ_ONCE(slab->counters) };

	return v;
}

/*
 * off / size if size divides off, else a value above s->size_limit: the
 * product by the odd part's inverse maps multiples of it onto small
 * numbers and everything else above the limit; the rotation moves any
 * low bits that spoil the power-of-two part to the top.
 */
static __always_inline unsigned long obj_offset_index(const struct kmem_cache *s,
						       unsigned long off)
{
	unsigned long r = off * s->size_inv;

	return (r >> s->size_shift) | (r << (-s->size_shift & 63));
}

static inline void *slab_objects_start(const struct kmem_cache *s, const struct slab *slab)
{
	return (char *)slab_address(slab) + s->red_left_pad;
}

/* s's preferred slab order and objects now (churn may raise them:
 * slub_cache.c, slub_churn_raise). */
static inline struct kmem_cache_order_objects cache_oo(const struct kmem_cache *s)
{
	/* why acquire: a slab of a raised order finds the sequence that
	 * covers it published (slub_churn_raise) */
	struct kmem_cache_order_objects oo = { __atomic_load_n(&s->oo.x, __ATOMIC_ACQUIRE) };

	return oo;
}

/* Churn (slub_cache.c): empty slabs of s given back past min_partial that
 * raise its order, once, at the next new slab. */
#define SLUB_CHURN_SLABS	32

/* Has s churned enough for its order to rise (slub_churn_raise)? */
static inline bool slub_churn_due(const struct kmem_cache *s)
{
	return unlikely(atomic_read(&s->churn) >= SLUB_CHURN_SLABS) && !READ_ONCE(s->churned);
}

/* Ramped slabs (slub.c, slab_objects_ramp) */
#define SLAB_RAMP_MIN_OBJECTS	17	/* classes with fewer a slab: no ramp */

/* May slabs of s (of whole objects when whole) start small and grow? */
static inline bool slab_ramps(const struct kmem_cache *s, unsigned int whole)
{
	return s->ramps && whole >= SLAB_RAMP_MIN_OBJECTS && likely(!slab_debug_path(s));
}

/* The objects of the first pages of a slab that hold want objects, at
 * most whole. */
static inline unsigned int slab_objects_pages(const struct kmem_cache *s, unsigned long want,
				       unsigned int whole)
{
	unsigned long pages = DIV_ROUND_UP(want * s->size, PAGE_SIZE);
	unsigned long objects = pages * PAGE_SIZE / s->size;

	return objects >= whole ? whole : (unsigned int)objects;
}

/* The end of a ramped slab's chunk that starts at object from (< whole):
 * the first page's objects, then twice as many pages as before. */
static inline unsigned int slab_ramp_chunk_end(const struct kmem_cache *s, unsigned int from,
					       unsigned int whole)
{
	return slab_objects_pages(s, from ? 2 * (unsigned long)from : 1, whole);
}

/* Is s's random sequence (of count objects) made of one permutation per
 * ramp chunk (slub_cache.c, random_seq_make), so that a chunk can be
 * shuffled from its own window?  (True of every cache whose slabs may
 * ramp; the debug path's, which may not, shuffle whole slabs.) */
static inline bool random_seq_chunked(const struct kmem_cache *s, unsigned int count)
{
	return s->ramps && count >= SLAB_RAMP_MIN_OBJECTS;
}

/* ======================= free pointers ======================= */

/*
 * Free pointers (slub.c §7) are stored XORed with s->random, their own
 * object's address, and the byte-swapped address of the aligned region of
 * 2^FREEPOINTER_REGION_SHIFT bytes the object lies in.  Every slab lies
 * whole in one such region (a slab is a buddy block, aligned to its size
 * in addresses: memmap.c, and no block is larger), so the random word and
 * the region make one key per slab, which the fast paths keep with the cpu
 * slab: decoding is then two XORs, one of them before the load.
 */
#define FREEPOINTER_REGION_SHIFT	(PAGE_SHIFT + MAX_ORDER_LIMIT - 1)

/* The key of the slab that holds object (hardened; else 0). */
static __always_inline unsigned long freepointer_slab_key(const struct kmem_cache *s,
							  const void *object)
{
	if (!CONFIG_SLAB_FREELIST_HARDENED)
		return 0;
	return s->random ^ __builtin_bswap64((unsigned long)object >> FREEPOINTER_REGION_SHIFT);
}

/* ptr encoded or decoded (the same XOR) as the free pointer of object,
 * whose slab's key is slab_key. */
static __always_inline void *freelist_ptr(void *ptr, const void *object, unsigned long slab_key)
{
	unsigned long key = slab_key ^ (unsigned long)object;

	if (!CONFIG_SLAB_FREELIST_HARDENED)
		return ptr;
	/* why the empty asm: it keeps the compiler from reassociating the
	 * XORs, so decoding is one XOR after the load of the free pointer,
	 * the load each allocation of the fast path waits for */
	__asm__("" : "+r"(key));
	return (void *)((unsigned long)ptr ^ key);
}

/* object's successor, its free pointer decoded (slab_key: its slab's). */
static __always_inline void *get_freepointer_keyed(const struct kmem_cache *s, void *object,
						   unsigned long slab_key)
{
	return freelist_ptr(*(void **)((char *)object + s->offset), object, slab_key);
}

static __always_inline void *get_freepointer(const struct kmem_cache *s, void *object)
{
	return get_freepointer_keyed(s, object, freepointer_slab_key(s, object));
}

/* Report "Object already free" for object == fp and abort (slub.c). */
__noreturn __cold void naive_double_free(const struct kmem_cache *s, void *object);

/* Store fp as object's successor, encoded (slab_key: object's slab's). */
static __always_inline void set_freepointer_keyed(const struct kmem_cache *s, void *object,
						  void *fp, unsigned long slab_key)
{
	/* why: an object pointing at itself is the naive double free */
	if (CONFIG_SLAB_FREELIST_HARDENED && unlikely(object == fp))
		naive_double_free(s, object);
	*(void **)((char *)object + s->offset) = freelist_ptr(fp, object, slab_key);
}

static __always_inline void set_freepointer(const struct kmem_cache *s, void *object, void *fp)
{
	set_freepointer_keyed(s, object, fp, freepointer_slab_key(s, object));
}

/* ======================= the cpu sheaf (slub_sheaf.c) ======================= */

/* One object of a sheaf, with the slab its free found, so that giving it
 * back need not look the slab up again. */
struct sheaf_entry {
	void *object;			/* the freed object (owner) */
	struct slab *slab;		/* its slab, which counts it in use (owner) */
};

/* A CPU's sheaf (slub_sheaf.c §2): the last member of its kmem_cache_cpu,
 * which is sized for s->sheaf_capacity entries. */
struct slub_sheaf {
	unsigned int nr;		/* objects in it (owner; others READ_ONCE) */
	struct slab *slab;		/* if slab_objects: the slab of an object in it,
					 * which keeps it a slab of s (owner) */
	unsigned long slab_start;	/* its first object, if slab_objects (owner) */
	unsigned long slab_objects;	/* its objects; 0: none remembered (owner) */
	unsigned int pops_held;		/* pops that held the cpu slab back from a
					 * grow since it last grew or came (owner) */
	struct sheaf_entry entries[];	/* objects the owner freed, not of its cpu slab,
					 * still in use for their slabs, oldest first (owner) */
};

/* slub_sheaf.c.  Give back everything in sh, c's sheaf, after its check
 * for an object in it twice, by sheaf_chain_give_back (slub.c §10); by
 * the owner, or by anyone when the owner is gone or s unused. */
void sheaf_flush(struct kmem_cache *s, struct kmem_cache_cpu *c, struct slub_sheaf *sh);
/* slub.c.  x was freed while it was in its CPU's sheaf: report and abort. */
__noreturn __cold void sheaf_double_free(const struct kmem_cache *s, void *x);
/* Give head..tail (cnt objects of slab, linked) back from c's sheaf: onto
 * c->freelist if it is the cpu slab, else onto the slab. */
void sheaf_chain_give_back(struct kmem_cache *s, struct kmem_cache_cpu *c, struct slab *slab,
			   void *head, void *tail, unsigned int cnt);

/* ======================= slab_lock ======================= */

/* The PG_locked bit spinlock of a slab: guards freelist+counters of caches
 * without __CMPXCHG_DOUBLE (innermost lock). */
static inline void slab_lock(struct slab *slab)
{
	while (test_and_set_bit_lock(PG_locked, &slab->__page_flags))
		while (test_bit(PG_locked, &slab->__page_flags))
			__builtin_ia32_pause();
}

static inline void slab_unlock(struct slab *slab)
{
	clear_bit_unlock(PG_locked, &slab->__page_flags);
}
/* ======================= node lists (list_lock held) ======================= */

/*
 * Node lists.  slab->slab_list.next (like slab->next) overlays
 * page->compound_head, which virt_to_slab() reads with no lock of ours
 * (kfree of an object of the slab, by any thread); list.h stores every
 * next pointer with WRITE_ONCE, so that read is an intended race, and the
 * value keeps bit 0 clear (aligned pointers): the page still reads as a
 * head page.
 */
static inline void __add_partial(struct kmem_cache_node *n, struct slab *slab, int tail)
{
	WRITE_ONCE(n->nr_partial, n->nr_partial + 1);
	if (tail == DEACTIVATE_TO_TAIL)
		list_add_tail(&slab->slab_list, &n->partial);
	else
		list_add(&slab->slab_list, &n->partial);
}

static inline void add_partial(struct kmem_cache_node *n, struct slab *slab, int tail)
{
	__add_partial(n, slab, tail);
}

static inline void remove_partial(struct kmem_cache_node *n, struct slab *slab)
{
	list_del(&slab->slab_list);
	WRITE_ONCE(n->nr_partial, n->nr_partial - 1);
}

static inline void add_full(const struct kmem_cache *s, struct kmem_cache_node *n, struct slab *slab)
{
	if (kmem_cache_tracks_full(s))
		list_add(&slab->slab_list, &n->full);
}

static inline void remove_full(const struct kmem_cache *s, struct slab *slab)
{
	if (kmem_cache_tracks_full(s))
		list_del(&slab->slab_list);
}

static inline void inc_slabs_node(struct kmem_cache *s, int node, unsigned int objects)
{
	struct kmem_cache_node *n = get_node(s, node);

	/* why: the node cache's first slab exists before its node does */
	if (likely(n)) {
		atomic_long_inc(&n->nr_slabs);
		atomic_long_add(objects, &n->total_objects);
	}
}

static inline void dec_slabs_node(struct kmem_cache *s, int node, unsigned int objects)
{
	struct kmem_cache_node *n = get_node(s, node);

	atomic_long_dec(&n->nr_slabs);
	atomic_long_sub(objects, &n->total_objects);
}

/* ---- slub.c, for slub_cache.c and slub_debug.c ---- */
unsigned long slub_random(void);
/* A frozen slab with every object on slab->freelist and inuse = objects;
 * counted in its node's nr_slabs unless s takes the debug path (the debug
 * path counts it under list_lock when it lists it). */
struct slab *new_slab(struct kmem_cache *s, gfp_t flags, int node);
/* Give an empty slab that is on no list and no CPU's back to the pages. */
void discard_slab(struct kmem_cache *s, struct slab *slab);
/* discard_slab() of a slab already taken out of its node's counts. */
void free_slab(struct kmem_cache *s, struct slab *slab);
/* May an empty slab of n go back to the page allocator now? (list_lock) */
bool slab_discard_ok(const struct kmem_cache *s, const struct kmem_cache_node *n,
		     const struct slab *slab);
void slub_churn_raise(struct kmem_cache *s);
void slub_random_seq_first(struct kmem_cache *s);
/* The allocation-failure report (unless __GFP_NOWARN). */
void slab_out_of_memory(struct kmem_cache *s, gfp_t gfpflags, int nid);
/* s->cpu_slab: per-CPU state, zeroed (= empty) for every CPU; false if none. */
bool alloc_kmem_cache_cpus(struct kmem_cache *s);
/* This CPU gives back all it holds of s (bootstrap). */
void flush_this_cpu(struct kmem_cache *s);
/* kmem_cache_shrink's flush: this CPU all, other CPUs their partial chains. */
void flush_all(struct kmem_cache *s);
/* __kmem_cache_shutdown's flush: every CPU, everything (s is idle). */
void flush_all_cpus_locked(struct kmem_cache *s);

/* ---- slub.c, for slub_kmalloc.c: the out-of-line ends of the fast paths
 * (slub_fastpath.h).  why noinline: the fast paths then make tail calls
 * only, and need no stack frame. ---- */
/* The alloc fast path's miss: the newest object of this CPU's sheaf, else
 * the slow path (no CPU yet, cpu freelist empty, debug path). */
noinline void *__slab_alloc(struct kmem_cache *s, gfp_t gfpflags, int node, unsigned long addr);
/* An allocation charged to the thread's memory cgroup, in its general form:
 * whatever the accounted pop cannot do. */
noinline void *slab_alloc_node_memcg_slow(struct kmem_cache *s, gfp_t gfpflags, int node,
					  unsigned long addr);
/* slab_alloc_node() with __GFP_ACCOUNT or __GFP_ZERO. */
noinline void *slab_alloc_node_slow(struct kmem_cache *s, gfp_t gfpflags, int node,
				    unsigned long addr);
/* A popped object of s zeroed (__GFP_ZERO); returns object. */
noinline void *slab_zero_object(const struct kmem_cache *s, void *object);
/* The free fast path's miss: x (of s, else reported as fn's bad free) into
 * this CPU's sheaf, or freed the general way. */
noinline void slab_free_slow(struct kmem_cache *s, void *x, const char *fn, unsigned long addr);
/* Report x, given to fn, as no object (why): abort, or go on under
 * slab_error=repair. */
noinline __cold void free_invalid_pointer(const char *fn, const void *x, const char *why);

/* ---- slub_kmalloc.c, for slub.c (kfree_bulk) ---- */
/* kfree of x, whose folio is no slab: a large kmalloc's pages go back,
 * anything else is reported. */
noinline void kfree_large(struct folio *folio, const void *x);

/* ---- slub_debug.c ---- */
/* Reports: the kernel's banner "BUG <cache> (Not tainted): ...", its
 * "FIX <cache>: ..." lines, the slab line, the object line. */
__printf(2, 3) void slab_bug(const struct kmem_cache *s, const char *fmt, ...);
__printf(2, 3) void slab_fix(const struct kmem_cache *s, const char *fmt, ...);
void print_slab_info(const struct slab *slab);
void print_object_line(const struct kmem_cache *s, const struct slab *slab, const void *object);
/* The alloc and free owner tracks of object (U), if any. */
void print_tracking(const struct kmem_cache *s, void *object);
/* The debug path (slab_debug_path(s)): one object from a node partial or
 * new slab, all checks done; NULL when out of memory or failslab says so. */
void *slab_alloc_debug(struct kmem_cache *s, gfp_t gfpflags, int node, unsigned long addr);
/* Free object of slab (a checked object start of s) on the debug path. */
void slab_free_debug(struct kmem_cache *s, struct slab *slab, void *object, unsigned long addr);
/* New slab of a debug cache: poison it all (P) before objects are set up. */
void setup_slab_debug(const struct kmem_cache *s, struct slab *slab);
/* Each object of a new slab of a debug cache: INACTIVE, tracks cleared. */
void setup_object_debug(const struct kmem_cache *s, void *object);
/* memcheck: a new slab's objects become no-access once its freelist is built. */
void new_slab_memcheck(const struct kmem_cache *s, struct slab *slab);
/* Bootstrap's hand-taken kmem_cache_node object, on the debug path: the
 * first object of a new slab, which it leaves unfrozen with inuse 1. */
void *alloc_debug_early(struct kmem_cache *s, struct slab *slab);
/* memcheck: open (or close) a slot's bytes around object (red zones, free
 * pointer, tracks, padding) for the allocator; nothing outside memcheck. */
void slot_meta_access(const struct kmem_cache *s, void *object, bool open);
/* A slab of the debug path goes back: check it (F), memcheck it undefined. */
void free_slab_debug(const struct kmem_cache *s, struct slab *slab);
/* object, just allocated from s (slub_debug_orig_size(s)), was asked for at
 * orig_size bytes: its kmalloc red zone starts there (nothing in memcheck
 * mode, where the tool sees the bytes past the request). */
void slab_set_orig_size(struct kmem_cache *s, void *object, unsigned int orig_size);

#endif /* USLAB_MM_SLUB_INTERNAL_H */
