// SPDX-License-Identifier: MIT
/*
 * slub_cache.c - SLUB's caches as wholes: their geometry, creation,
 * merging, shrinking and destruction, slabinfo, and SLUB's bring-up.
 *
 * 1. Overview.  calculate_sizes() lays an object out (free pointer in the
 *    middle, or after the object when its contents must survive free;
 *    room for debug red zones and owner tracks per the flags) and
 *    calculate_order() picks the slab order as 5.17 does, steered by the
 *    slub_min_order, slub_max_order and slub_min_objects options (caches
 *    whose slabs ramp, cache_ramps, may go higher: SLUB_RAMP_MAX_ORDER,
 *    and once by churn, slub_churn_raise).  kmem_cache_open() then sizes
 *    the partial lists, makes the random freelist order and allocates the
 *    per-node and per-CPU structures.
 *    kmem_cache_init() bootstraps the two caches SLUB itself allocates
 *    from (kmem_cache_node, kmem_cache) from static copies, then the
 *    kmalloc caches.  How slabs and objects move is told in slub.c.
 *    Debugging enters here: kmem_cache_flags() adds what slub_debug=
 *    gives the cache's name (debug_options.c; this also keeps such a
 *    cache from being merged), slub_debug=O drops the metadata flags of a
 *    cache whose smallest order they would raise, and memcheck mode puts
 *    every free pointer outside the object and merges nothing.
 *
 * 2. Data structures: struct kmem_cache and struct kmem_cache_node
 *    (slub_def.h); kmem_cache_node below is the cache of the latter.
 *
 * 3. Lock order as in slub.c: slab_mutex (held by slab_common around
 *    creation and destruction) -> n->list_lock -> c->lock.  Shrink and
 *    slabinfo take only list_lock (and flush_all the CPU locks).
 *
 * 4. Invariants.  A cache is published (slab_caches) only after
 *    kmem_cache_open() succeeded, so every field but object_size/inuse
 *    (raised by a merge under slab_mutex), what churn raises (oo,
 *    cpu_partial_slabs, random_seq: slub_churn_raise, lock-free, once) and
 *    the random sequence made with the first slab (slub_random_seq_first,
 *    lock-free, once) is constant while others use it.
 *
 * This file belongs to the SLUB build only: the build compiles every
 * source file for every allocator, so its body sits in one #if.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "slab.h"

#if CONFIG_SLUB
#include "slub_internal.h"
#include "track.h"
#include "os/os.h"

/* The debug flags that need room in each slot (dropped by slub_debug=O). */
#define DEBUG_METADATA_FLAGS	(SLAB_RED_ZONE | SLAB_POISON | SLAB_STORE_USER)

/* The boot caches' successors and the node-structure cache. */
static struct kmem_cache *kmem_cache_node;

/* ======================= tunables (USLAB_OPTIONS) ======================= */

static unsigned int slub_min_order;				/* slub_min_order= */
/* why one above the kernel's PAGE_ALLOC_COSTLY_ORDER: see auto_min_objects */
#define SLUB_USER_MAX_ORDER	(PAGE_ALLOC_COSTLY_ORDER + 1)

static unsigned int slub_max_order = SLUB_USER_MAX_ORDER;	/* slub_max_order= */
static bool slub_max_order_set;		/* slub_max_order= was given */
static unsigned int slub_min_objects;				/* slub_min_objects=, 0 = auto */
static unsigned int slub_nr_cpus = 1;	/* online CPUs, read once at kmem_cache_init */

static int setup_order_option(const char *val, unsigned int *res)
{
	unsigned long v;

	if (kstrtoul_opt(val, &v) || v >= MAX_ORDER_LIMIT)
		return -1;
	*res = (unsigned int)v;
	return 0;
}

static int setup_slub_min_order(const char *val)
{
	return setup_order_option(val, &slub_min_order);
}
__setup("slub_min_order=", setup_slub_min_order);

static int setup_slub_max_order(const char *val)
{
	if (setup_order_option(val, &slub_max_order))
		return -1;
	slub_max_order_set = true;
	return 0;
}
__setup("slub_max_order=", setup_slub_max_order);

/* A count option in 0..max into *res; -1 (reported by the caller) otherwise. */
static int setup_count_option(const char *val, unsigned long max, unsigned int *res)
{
	unsigned long v;

	if (kstrtoul_opt(val, &v) || v > max)
		return -1;
	*res = (unsigned int)v;
	return 0;
}

static int setup_slub_min_objects(const char *val)
{
	return setup_count_option(val, MAX_OBJS_PER_PAGE, &slub_min_objects);
}
__setup("slub_min_objects=", setup_slub_min_objects);

static unsigned int slub_sheaf = SLUB_SHEAF_MAX;		/* slub_sheaf= */

/* slub_sheaf=N: at most N objects in each CPU's sheaf (slub.c §10); 0: none */
static int setup_slub_sheaf(const char *val)
{
	return setup_count_option(val, SLUB_SHEAF_MAX, &slub_sheaf);
}
__setup("slub_sheaf=", setup_slub_sheaf);

/* ---- exact division by s->size (the kernel's reciprocal_size) ---- */

/* size = odd << shift: keep the odd part's inverse mod 2^64 and the limit. */
static void set_size_divisor(struct kmem_cache *s)
{
	unsigned long odd, inv;
	int i;

	s->size_shift = (unsigned int)__builtin_ctz(s->size);
	odd = s->size >> s->size_shift;
	inv = odd;			/* right to 3 bits: odd * odd == 1 mod 8 */
	for (i = 0; i < 5; i++)		/* Newton: each step doubles the bits */
		inv *= 2 - odd * inv;
	s->size_inv = inv;
	s->size_limit = ~0UL / s->size;
}

/* ======================= geometry ======================= */

/* The first order in [start, max_order] whose leftover is <= slab/fract. */
static unsigned int calc_slab_order(unsigned int size, unsigned int min_objects,
				    unsigned int max_order, unsigned int fract_leftover)
{
	unsigned int min_order = min(slub_min_order, MAX_ORDER - 1);
	unsigned int order;

	if (order_objects(min_order, size) > MAX_OBJS_PER_PAGE)
		return get_order((unsigned long)size * MAX_OBJS_PER_PAGE) - 1;
	for (order = max(min_order, get_order((unsigned long)min_objects * size));
	     order <= max_order; order++) {
		unsigned long slab_size = PAGE_SIZE << order;

		if (slab_size % size <= slab_size / fract_leftover)
			break;
	}
	return order;
}

/*
 * Objects a slab should hold at least.  The kernel's formula, 4 * (fls(cpus)
 * + 1), gives 12 on two CPUs; uslab raises it to SLUB_USER_MIN_OBJECTS,
 * within slub_max_order, whose default is one above the kernel's (64 KiB
 * slabs, mimalloc's page size for small objects).  why: a thread that
 * allocates a batch and then frees it stays on the lock-free fast paths
 * only while the batch fits in its cpu slab; each object of a slab left
 * behind is freed with a cmpxchg_double instead (bench/slab_fastpath,
 * batches of 64 on a 2-CPU machine: 256-byte objects 36 -> 10 ns per pair,
 * 1024-byte 16 -> 9).  Peak RSS of python3, gcc and git under the drop-in
 * grew by 0-2.5%.  Order 6, which 4 KiB objects would need, cost 4-14%.
 */
#define SLUB_USER_MIN_OBJECTS	64U

static unsigned int auto_min_objects(void)
{
	if (slub_min_objects)
		return slub_min_objects;
	return max(4 * ((unsigned int)fls(slub_nr_cpus) + 1), SLUB_USER_MIN_OBJECTS);
}

/*
 * Caches whose slabs ramp (cache_ramps: a new slab writes only its first
 * page's objects and grows in place while it is a cpu slab, slub.c
 * §slab_objects_ramp) may take orders up to
 * SLUB_RAMP_MAX_ORDER (unless slub_max_order= is given) to hold their
 * SLUB_USER_MIN_OBJECTS: 4 KiB objects 64 to a slab instead of 16, 8 KiB
 * ones 32.  why: a slab that is not written costs address space only, and
 * a batch that outgrows the cpu slab leaves the fast paths (the drop-in,
 * batches of 64 4-KiB blocks: 38 -> 16-19 ns a pair, tcmalloc 16-19).
 * Not more objects for the small classes: 64 KiB slabs of 64-byte blocks
 * made batches of 1000 twice as fast but raised peak RSS of git under the
 * drop-in by 8% and of the Larson server by 10% (held in slabs that never
 * empty); see docs/malloc.md.
 */
#define SLUB_RAMP_MAX_ORDER	6U

/*
 * Will slabs of s ramp (slab_ramps, less its object count, which
 * calculate_order sees to)?  Not on the debug path (slab_debug_path:
 * check_counts wants whole slabs, and such slabs are never cpu slabs).
 * Size classes (SLAB_KMALLOC) always; a cache made for one type of object
 * when its objects need nothing done as a slab is made: no
 * constructor (it runs on every object of a new slab, which a user may
 * count) and not SLAB_TYPESAFE_BY_RCU (its slabs keep their objects' type
 * through a grace period; whole ones keep that simple).  why typed caches
 * too: a cache of 4 KiB objects would else hold 16 a slab (slub_max_order),
 * and a batch of 64 leaves the fast paths for four slabs (bench fastpath,
 * kmem_cache 4096 B: 149 -> 63 instructions a pair).
 */
static bool cache_ramps(const struct kmem_cache *s)
{
	if (slab_debug_path(s))
		return false;
	return (s->flags & SLAB_KMALLOC) || (!s->ctor && !(s->flags & SLAB_TYPESAFE_BY_RCU));
}

/* The slab order for objects of size bytes, or -ENOSYS; ramps: the cache's
 * slabs ramp (cache_ramps). */
static int calculate_order(unsigned int size, bool ramps)
{
	unsigned int max_order = max(slub_max_order, slub_min_order);
	unsigned int min_objects, order, fraction;

	if (ramps && !slub_max_order_set)
		max_order = max(max_order, SLUB_RAMP_MAX_ORDER);
	max_order = min(max_order, MAX_ORDER - 1);
	min_objects = min(auto_min_objects(), order_objects(max_order, size));
	/* fewer objects per slab, then more waste, until something fits */
	for (; min_objects > 1; min_objects--) {
		for (fraction = 16; fraction >= 4; fraction /= 2) {
			order = calc_slab_order(size, min_objects, max_order, fraction);
			if (order <= max_order)
				return (int)order;
		}
	}
	order = calc_slab_order(size, 1, max_order, 1);
	if (order <= max_order)
		return (int)order;
	order = calc_slab_order(size, 1, MAX_ORDER - 1, 1);
	if (order < MAX_ORDER)
		return (int)order;
	return -ENOSYS;
}

/*
 * Churn.  A size class whose empty slabs go back to the page allocator past
 * min_partial, again and again, is one that a program fills and empties
 * in waves (a batch allocated, then freed, round after round): it pays for
 * a new slab each time, and its frees of objects of any slab but the cpu
 * slab leave the fast path.  Such slabs are counted as they go
 * (discard_slab_churn, s->churn); at SLUB_CHURN_SLABS the next new slab
 * raises the class's order, once and for good, to slabs of
 * SLUB_CHURN_SLAB_BYTES (churn_order; mimalloc's page for small objects).
 * Other classes keep calculate_order's.  Only ramping caches
 * (cache_ramps): a slab writes and touches its pages as it grows, so a
 * bigger one costs what it holds.  slub_max_order= caps it.  why not every
 * class from the start: see SLUB_RAMP_MAX_ORDER (peak RSS); the drop-in's
 * batches of 1000 64-byte blocks: see docs/malloc.md.  Slabs of every
 * order up to churn_order coexist (each keeps its own, slab_order()); the
 * raise makes a random sequence for the new order first.  why the raise
 * on the allocation side: it allocates that sequence, which a free path
 * (a thread's teardown among them) should not.
 */
#define SLUB_CHURN_SLAB_BYTES	(64U * 1024)

/* The order churn may raise s's from order to (order if none). */
static unsigned int churn_order(const struct kmem_cache *s, unsigned int order)
{
	unsigned int top = (unsigned int)get_order(SLUB_CHURN_SLAB_BYTES);

	if (!s->ramps || order >= top)
		return order;
	if (slub_max_order_set)
		top = max(order, min(top, slub_max_order));
	while (top > order && order_objects(top, s->size) > MAX_OBJS_PER_PAGE)
		top--;
	return top;
}

static struct slub_random_seq *random_seq_make(const struct kmem_cache *s, unsigned int count,
					       gfp_t gfp);

/* s has churned (slub_churn_due): raise its order to churn_order, with a
 * random sequence for it first.  Called where a new slab is made, with no
 * lock held. */
void slub_churn_raise(struct kmem_cache *s)
{
	struct kmem_cache_order_objects up = oo_make(s->churn_order, s->size);
	struct slub_random_seq *rs, *old;

	/* why the flag as a claim: of the CPUs that see the count reached,
	 * one raises the order */
	if (__atomic_exchange_n(&s->churned, true, __ATOMIC_RELAXED))
		return;
	if (CONFIG_SLAB_FREELIST_RANDOM) {
		rs = random_seq_make(s, oo_objects(up), GFP_NOWAIT | __GFP_NOWARN);
		if (!rs) {
			atomic_set(&s->churn, 0);
			WRITE_ONCE(s->churned, false);	/* try again later */
			return;
		}
		/* why keep the old one: a shuffle may be reading it; why the
		 * claim: no first-slab sequence for the old order after this */
		__atomic_store_n(&s->random_seq_claimed, true, __ATOMIC_RELAXED);
		old = __atomic_exchange_n(&s->random_seq, rs, __ATOMIC_ACQ_REL);
		s->random_seq_old = old;
	}
	WRITE_ONCE(s->cpu_partial_slabs, DIV_ROUND_UP(s->cpu_partial * 2, oo_objects(up)));
	__atomic_store_n(&s->oo.x, up.x, __ATOMIC_RELEASE);	/* after its sequence */
}

/* Where the free pointer goes: outside the object when the object must keep
 * its contents while free (ctor, RCU, poison), has no room for it, or
 * memcheck must see no allocator data inside objects (memcheck.h). */
static bool freeptr_outside_object(const struct kmem_cache *s)
{
	return (s->flags & (SLAB_TYPESAFE_BY_RCU | SLAB_POISON)) || s->ctor ||
	       ((s->flags & SLAB_RED_ZONE) && s->object_size < sizeof(void *)) ||
	       memcheck_active();
}

/* Object layout: [red_left_pad][object][red zone][free pointer][tracks]
 * [requested size: SLAB_KMALLOC with red zones][pad] */
static unsigned int layout_object(struct kmem_cache *s)
{
	slab_flags_t flags = s->flags;
	unsigned int size = ALIGN(s->object_size, (unsigned int)sizeof(void *));

	if ((flags & SLAB_POISON) && !(flags & SLAB_TYPESAFE_BY_RCU) && !s->ctor)
		s->flags |= __OBJECT_POISON;
	else
		s->flags &= ~__OBJECT_POISON;
	if ((flags & SLAB_RED_ZONE) && size == s->object_size)
		size += sizeof(void *);		/* room for a right red zone */
	s->inuse = size;
	if (freeptr_outside_object(s)) {
		s->offset = size;
		size += sizeof(void *);
	} else {
		/* why the middle: small overflows from either edge miss it */
		s->offset = ALIGN_DOWN(s->object_size / 2, (unsigned int)sizeof(void *));
	}
	if (flags & SLAB_STORE_USER)
		size += 2 * sizeof(struct track);
	if (slub_debug_orig_size(s))
		size += sizeof(unsigned int);	/* the size asked for (slub_debug.c §8) */
	s->red_left_pad = 0;
	if (flags & SLAB_RED_ZONE) {
		size += sizeof(void *);
		s->red_left_pad = ALIGN((unsigned int)sizeof(void *), s->align);
		size += s->red_left_pad;
	}
	return ALIGN(size, s->align);
}

static bool calculate_sizes(struct kmem_cache *s)
{
	int order;

	s->size = layout_object(s);
	set_size_divisor(s);
	s->ramps = cache_ramps(s);
	order = calculate_order(s->size, s->ramps);
	if (order < 0)
		return false;
	s->churn_order = churn_order(s, (unsigned int)order);
	/* why the churn order: slabs of any order up to it are compound */
	s->allocflags = s->churn_order ? __GFP_COMP : 0;
	if (s->flags & SLAB_CACHE_DMA)
		s->allocflags |= GFP_DMA;
	if (s->flags & SLAB_CACHE_DMA32)
		s->allocflags |= GFP_DMA32;
	if (s->flags & SLAB_RECLAIM_ACCOUNT)
		s->allocflags |= __GFP_RECLAIMABLE;
	s->oo = oo_make((unsigned int)order, s->size);
	s->min = oo_make(get_order(s->size), s->size);
	atomic_set(&s->churn, 0);
	s->churned = false;
	if (order_objects(s->churn_order, s->size) > oo_objects(s->max))
		s->max = oo_make(s->churn_order, s->size);	/* what a slab may hold */
	return oo_objects(s->oo) != 0;
}

static void set_min_partial(struct kmem_cache *s, unsigned long min_partial)
{
	s->min_partial = clamp(min_partial, (unsigned long)MIN_PARTIAL, (unsigned long)MAX_PARTIAL);
}

/* cpu_partial objects, assuming half-full slabs, as a chain length. */
static void set_cpu_partial(struct kmem_cache *s)
{
	unsigned int nr_objects;

	if (!kmem_cache_has_cpu_partial(s))
		nr_objects = 0;
	else if (s->size >= PAGE_SIZE)
		nr_objects = 6;
	else if (s->size >= 1024)
		nr_objects = 24;
	else if (s->size >= 256)
		nr_objects = 52;
	else
		nr_objects = 120;
	s->cpu_partial = nr_objects;
	s->cpu_partial_slabs = DIV_ROUND_UP(nr_objects * 2, oo_objects(cache_oo(s)));
}

/* A CPU's sheaf: slub_sheaf objects, at most SLUB_SHEAF_BYTES of them (at
 * least two); none on the debug path.  kmem_cache_cpu is sized by it. */
static void set_sheaf_capacity(struct kmem_cache *s)
{
	unsigned int n = min(slub_sheaf, max(SLUB_SHEAF_BYTES / s->size, 2U));

	s->sheaf_capacity = kmem_cache_has_cpu_partial(s) ? n : 0;
}

/* ======================= freelist randomisation ======================= */

/* A random sequence for slabs of count objects (gfp: how to allocate it),
 * or NULL. */
static struct slub_random_seq *random_seq_make(const struct kmem_cache *s, unsigned int count,
					       gfp_t gfp)
{
	struct slub_random_seq *rs = __kmalloc(offsetof(struct slub_random_seq, offset) +
						 (size_t)count * sizeof(rs->offset[0]), gfp);
	unsigned int *seq, i, j, t, from, to;

	if (!rs)
		return NULL;
	rs->count = count;
	seq = rs->offset;
	for (i = 0; i < count; i++)
		seq[i] = i;
	/* one permutation per ramp chunk if chunked (shuffle_objects) */
	for (from = 0; from < count; from = to) {
		to = random_seq_chunked(s, count) ? slab_ramp_chunk_end(s, from, count) : count;
		for (i = to - 1; i > from; i--) {	/* Fisher-Yates */
			j = from + (unsigned int)(slub_random() % (i - from + 1));
			t = seq[i];
			seq[i] = seq[j];
			seq[j] = t;
		}
	}
	for (i = 0; i < count; i++)
		seq[i] *= s->size;
	return rs;
}

/*
 * s's random sequence, for slabs of its order, made when s makes a slab
 * (allocate_slab) with none yet, rather than when s is created: most
 * caches (the kmalloc caches of every kind, most malloc classes) never make
 * a slab, and the sequences of all of them were 64 KiB of a small
 * program's resident memory.  The claim keeps other CPUs out, and a nested
 * call too (the sequence is kmalloc'd, maybe from s itself): their slabs
 * are linked in order.  A failure lifts the claim, for the next slab.
 * Before the kmalloc caches exist (slab_state < UP, read once: other threads
 * may allocate from a kmalloc cache published while the init goes on) it waits.
 */
void slub_random_seq_first(struct kmem_cache *s)
{
	unsigned int count = oo_objects(cache_oo(s));
	struct slub_random_seq *rs, *none = NULL;

	if (!slab_is_available() || __atomic_exchange_n(&s->random_seq_claimed, true, __ATOMIC_ACQUIRE))
		return;
	if (count < 2)
		return;		/* nothing to shuffle; churn may make one */
	rs = random_seq_make(s, count, GFP_NOWAIT | __GFP_NOWARN);
	if (!rs) {
		__atomic_store_n(&s->random_seq_claimed, false, __ATOMIC_RELEASE);
		return;
	}
	/* why compare: churn may have published one for its order meanwhile */
	if (!__atomic_compare_exchange_n(&s->random_seq, &none, rs, false, __ATOMIC_RELEASE,
					 __ATOMIC_RELAXED))
		kfree(rs);
}

/* ======================= cache lifecycle ======================= */

static void init_kmem_cache_node(struct kmem_cache_node *n)
{
	spin_lock_init(&n->list_lock);
	n->nr_partial = 0;
	INIT_LIST_HEAD(&n->partial);
	atomic_long_set(&n->nr_slabs, 0);
	atomic_long_set(&n->total_objects, 0);
	INIT_LIST_HEAD(&n->full);
}

/*
 * The node cache's own node structure, before any cache can allocate one:
 * carve it out of the node cache's first slab by hand (slab_state DOWN).
 */
static void early_kmem_cache_node_alloc(int node)
{
	struct kmem_cache_node *n;
	struct slab *slab = new_slab(kmem_cache_node, GFP_NOWAIT, node);

	if (!slab)
		slab_panic("SLUB: Unable to allocate memory from node %d\n", node);
	if (slab_debug_path(kmem_cache_node)) {
		n = alloc_debug_early(kmem_cache_node, slab);
	} else {
		n = slab->freelist;
		slab->freelist = get_freepointer(kmem_cache_node, n);
		slab->inuse = 1;
		slab->frozen = 0;
	}
	kmem_cache_node->node[node] = n;
	init_kmem_cache_node(n);
	inc_slabs_node(kmem_cache_node, node, slab->objects);
	__add_partial(n, slab, DEACTIVATE_TO_HEAD);
}

static void free_kmem_cache_nodes(struct kmem_cache *s)
{
	struct kmem_cache_node *n;
	int node;

	for_each_kmem_cache_node(s, node, n) {
		s->node[node] = NULL;
		kmem_cache_free(kmem_cache_node, n);
	}
}

static bool init_kmem_cache_nodes(struct kmem_cache *s)
{
	struct kmem_cache_node *n;
	int node;

	for (node = 0; node < nr_node_ids; node++) {
		if (slab_state == DOWN) {
			early_kmem_cache_node_alloc(node);
			continue;
		}
		n = kmem_cache_alloc_node(kmem_cache_node, GFP_KERNEL, node);
		if (!n) {
			free_kmem_cache_nodes(s);
			return false;
		}
		init_kmem_cache_node(n);
		s->node[node] = n;
	}
	return true;
}

void __kmem_cache_release(struct kmem_cache *s)
{
	kfree(s->random_seq);
	s->random_seq = NULL;
	kfree(s->random_seq_old);
	s->random_seq_old = NULL;
	free_percpu(s->cpu_slab);
	s->cpu_slab = NULL;
	free_kmem_cache_nodes(s);
}

/* slub_debug=O: metadata must not raise the smallest slab order. */
static bool order_guard_drops_debug(struct kmem_cache *s)
{
	if (!slab_debug_order_guard() || !(s->flags & DEBUG_METADATA_FLAGS) ||
	    get_order(s->size) <= get_order(s->object_size))
		return false;
	s->flags &= ~DEBUG_METADATA_FLAGS;
	return true;
}

static int kmem_cache_open(struct kmem_cache *s, slab_flags_t flags)
{
	s->flags = kmem_cache_flags(s->size, flags, s->name);
	if (CONFIG_SLAB_FREELIST_HARDENED)
		os_random_bytes(&s->random, sizeof(s->random));
	if (!calculate_sizes(s))
		goto error;
	if (order_guard_drops_debug(s) && !calculate_sizes(s))
		goto error;
	/* debug F/U/T need the slab lock's atomicity; only then no cmpxchg */
	if (!(CONFIG_SLUB_DEBUG && (s->flags & SLAB_NO_CMPXCHG)))
		s->flags |= __CMPXCHG_DOUBLE;
	set_min_partial(s, ilog2(s->size) / 2);
	set_cpu_partial(s);
	set_sheaf_capacity(s);
	if (!init_kmem_cache_nodes(s))
		goto error;
	if (alloc_kmem_cache_cpus(s))
		return 0;
error:
	__kmem_cache_release(s);
	return -EINVAL;
}

int __kmem_cache_create(struct kmem_cache *s, slab_flags_t flags)
{
	return kmem_cache_open(s, flags);
}

struct kmem_cache *__kmem_cache_alias(const char *name, unsigned int size, unsigned int align,
				      slab_flags_t flags, void (*ctor)(void *))
{
	struct kmem_cache *s;

	/* why: a merge may grow object_size over a free pointer memcheck
	 * needs outside the object; KASAN builds of the kernel do the same */
	if (memcheck_active())
		return NULL;
	s = find_mergeable(size, align, flags, name, ctor);
	if (s) {
		s->refcount++;
		/* why the free pointer may stay: the merged size fits in s->size */
		WRITE_ONCE(s->object_size, max(s->object_size, size));
		WRITE_ONCE(s->inuse, max(s->inuse, ALIGN(size, (unsigned int)sizeof(void *))));
	}
	return s;
}

/* The creation flags plus what slub_debug= gives a cache of this name. */
slab_flags_t kmem_cache_flags(unsigned int object_size, slab_flags_t flags, const char *name)
{
	(void)object_size;
	if (!CONFIG_SLUB_DEBUG)
		return flags;
	return flags | (slab_debug_flags_for(name, flags) & (SLAB_DEBUG_FLAGS | SLAB_FAILSLAB));
}

/* Free objects of a slab on a node list (list_lock held). */
static unsigned long count_free(const struct slab *slab)
{
	union slab_counters v = slab_counters(slab);

	return v.objects - v.inuse;
}

static unsigned long count_partial(struct kmem_cache_node *n)
{
	struct slab *slab;
	unsigned long x = 0;

	spin_lock(&n->list_lock);
	list_for_each_entry(slab, &n->partial, slab_list)
		x += count_free(slab);
	spin_unlock(&n->list_lock);
	return x;
}

/* Mark in map the free objects of a listed slab (list_lock held, s idle). */
static void get_free_map(const struct kmem_cache *s, const struct slab *slab, unsigned long *map)
{
	char *start = slab_objects_start(s, slab);
	unsigned long idx;
	void *p, *next;

	for (p = READ_ONCE(slab->freelist); p; p = next) {
		idx = obj_offset_index(s, (unsigned long)((char *)p - start));
		if (idx >= MAX_OBJS_PER_PAGE)
			break;		/* corrupt chain: stop listing */
		map[idx / 64] |= 1UL << (idx % 64);
		slot_meta_access(s, p, true);	/* memcheck: the free pointer */
		next = get_freepointer(s, p);
		slot_meta_access(s, p, false);
	}
}

#define SHUTDOWN_REPORT_OBJECTS	32	/* object lines printed per shutdown report */

/* Report the live objects of a partial slab kept by shutdown; returns lines left. */
static unsigned int list_slab_objects(const struct kmem_cache *s, const struct slab *slab,
				      unsigned int budget)
{
	unsigned long map[MAX_OBJS_PER_PAGE / 64 + 1];
	char *start = slab_objects_start(s, slab);
	unsigned int i, objects = slab_counters(slab).objects;

	memset(map, 0, sizeof(map));
	get_free_map(s, slab, map);
	slab_bug(s, "Objects remaining in %s on __kmem_cache_shutdown()", s->name);
	print_slab_info(slab);
	for (i = 0; i < objects && budget; i++) {
		if (map[i / 64] & (1UL << (i % 64)))
			continue;
		print_object_line(s, slab, start + (unsigned long)i * s->size);
		print_tracking(s, start + (unsigned long)i * s->size);
		budget--;
	}
	return budget;
}

/* Free the empty partial slabs of n; report the others (shutdown). */
static void free_partial(struct kmem_cache *s, struct kmem_cache_node *n)
{
	unsigned int budget = SHUTDOWN_REPORT_OBJECTS;
	struct slab *slab, *h;
	LIST_HEAD(discard);

	spin_lock(&n->list_lock);
	list_for_each_entry_safe(slab, h, &n->partial, slab_list) {
		if (!slab_counters(slab).inuse) {
			remove_partial(n, slab);
			list_add(&slab->slab_list, &discard);
		} else {
			budget = list_slab_objects(s, slab, budget);
		}
	}
	spin_unlock(&n->list_lock);
	list_for_each_entry_safe(slab, h, &discard, slab_list)
		discard_slab(s, slab);
}

/* The totals after free_partial() reported the partial slabs' objects. */
static void report_remaining(const struct kmem_cache *s, struct kmem_cache_node *n)
{
	unsigned long slabs = (unsigned long)atomic_long_read(&n->nr_slabs);
	unsigned long partial = READ_ONCE(n->nr_partial);
	unsigned long in_use = (unsigned long)atomic_long_read(&n->total_objects) - count_partial(n);

	if (!partial)
		slab_bug(s, "Objects remaining in %s on __kmem_cache_shutdown()", s->name);
	slab_printk("INFO: %lu objects in %lu slabs remain in use\n", in_use, slabs);
	if (slabs > partial)
		slab_printk("INFO: %lu full slabs are not listed (tracked only with SLAB_STORE_USER)\n",
			    slabs - partial);
}

int __kmem_cache_shutdown(struct kmem_cache *s)
{
	struct kmem_cache_node *n;
	int node;

	flush_all_cpus_locked(s);
	for_each_kmem_cache_node(s, node, n) {
		free_partial(s, n);
		if (READ_ONCE(n->nr_partial) || atomic_long_read(&n->nr_slabs)) {
			report_remaining(s, n);
			return 1;
		}
	}
	return 0;
}

/*
 * Free every empty node partial slab (ignoring min_partial) and sort the
 * rest, fullest first, so allocation fills them and the emptier ones may
 * drain.  Returns 1 if any slab remains.
 */
static int __kmem_cache_do_shrink(struct kmem_cache *s)
{
	struct list_head discard, promote[SHRINK_PROMOTE_MAX];
	struct kmem_cache_node *n;
	struct slab *slab, *t;
	int node, i, ret = 0;

	for_each_kmem_cache_node(s, node, n) {
		INIT_LIST_HEAD(&discard);
		for (i = 0; i < SHRINK_PROMOTE_MAX; i++)
			INIT_LIST_HEAD(promote + i);
		spin_lock(&n->list_lock);
		list_for_each_entry_safe(slab, t, &n->partial, slab_list) {
			/* why one snapshot: concurrent frees only lower inuse */
			union slab_counters v = slab_counters(slab);
			unsigned int free = v.objects - v.inuse;

			if (free == v.objects) {
				list_move(&slab->slab_list, &discard);
				WRITE_ONCE(n->nr_partial, n->nr_partial - 1);
			} else if (free && free <= SHRINK_PROMOTE_MAX) {
				list_move(&slab->slab_list, promote + free - 1);
			}
		}
		for (i = SHRINK_PROMOTE_MAX - 1; i >= 0; i--)
			list_splice_init(promote + i, &n->partial);
		spin_unlock(&n->list_lock);
		list_for_each_entry_safe(slab, t, &discard, slab_list)
			discard_slab(s, slab);
		if (atomic_long_read(&n->nr_slabs))
			ret = 1;
	}
	return ret;
}

/*
 * A cpu slab held by another live thread is not taken here: that thread
 * gives it back at its next allocation slow path, remote free or exit.
 */
int __kmem_cache_shrink(struct kmem_cache *s)
{
	flush_all(s);
	return __kmem_cache_do_shrink(s);
}

/* ======================= slabinfo ======================= */

void get_slabinfo(struct kmem_cache *s, struct slabinfo *sinfo)
{
	unsigned long nr_slabs = 0, nr_objs = 0, nr_free = 0;
	struct kmem_cache_node *n;
	int node;

	for_each_kmem_cache_node(s, node, n) {
		nr_slabs += (unsigned long)atomic_long_read(&n->nr_slabs);
		nr_objs += (unsigned long)atomic_long_read(&n->total_objects);
		nr_free += count_partial(n);
	}
	sinfo->active_objs = nr_objs - nr_free;
	sinfo->num_objs = nr_objs;
	sinfo->active_slabs = nr_slabs;
	sinfo->num_slabs = nr_slabs;
	sinfo->objects_per_slab = oo_objects(cache_oo(s));
	sinfo->cache_order = oo_order(cache_oo(s));
}

void slabinfo_show_stats(FILE *f, struct kmem_cache *s)
{
	(void)f;	/* SLUB adds no columns */
	(void)s;
}

/* ---- get_cache_stats (stats.c: the kernel's /sys/kernel/slab files) ---- */

/* Slabs on n's partial list and the objects allocated in them. */
static void count_partial_inuse(struct kmem_cache_node *n, unsigned long *slabs,
				unsigned long *inuse)
{
	struct slab *slab;

	spin_lock(&n->list_lock);
	list_for_each_entry(slab, &n->partial, slab_list) {
		(*slabs)++;
		*inuse += slab_counters(slab).inuse;
	}
	spin_unlock(&n->list_lock);
}

/*
 * Frozen slabs of s, at most max: the cpu slabs and the slabs on per-CPU
 * partial chains, the kernel's cpu_slabs.  What a CPU holds is private to
 * its thread (slub.c), so they are found in the memory map instead: a walk
 * of the online sections reading each slab's owner and counters racily (as
 * the kernel's sysfs counts are read), which only the head page of a slab
 * answers (tail pages carry no PG_slab).
 */
static unsigned long count_frozen_slabs(const struct kmem_cache *s, unsigned long max)
{
	unsigned long pfn, nr = 0;
	struct folio *folio;
	struct slab *slab;

	/* why break: sections come online in address order */
	for (pfn = 0; nr < max && pfn < memmap.max_pfn && pfn_valid(pfn); pfn++) {
		folio = (struct folio *)pfn_to_page(pfn);
		if (!folio_test_slab(folio))
			continue;
		slab = folio_slab(folio);
		if (READ_ONCE(slab->slab_cache) == s && slab_counters(slab).frozen)
			nr++;
	}
	return nr;
}

/*
 * SLUB's counts.  slabs_cpu_partial (which frozen slabs sit on partial
 * chains rather than being cpu slabs) cannot be told from outside the CPUs
 * and is CACHE_STAT_NONE; cpu_slabs counts both.
 */
void get_cache_stats(struct kmem_cache *s, struct cache_stats *st)
{
	unsigned long slabs = 0, objs = 0, free = 0, partial = 0, partial_inuse = 0;
	struct kmem_cache_node *n;
	int node;

	for_each_kmem_cache_node(s, node, n) {
		slabs += (unsigned long)atomic_long_read(&n->nr_slabs);
		objs += (unsigned long)atomic_long_read(&n->total_objects);
		free += count_partial(n);
		count_partial_inuse(n, &partial, &partial_inuse);
	}
	st->objs_per_slab = oo_objects(cache_oo(s));
	st->order = oo_order(cache_oo(s));
	st->slabs = slabs;
	st->total_objects = objs;
	st->objects = objs - min(free, objs);
	st->partial = partial;
	st->objects_partial = partial_inuse;
	st->cpu_slabs = count_frozen_slabs(s, slabs - min(partial, slabs));
	st->min_partial = s->min_partial;
	st->cpu_partial = s->cpu_partial;
	st->slabs_cpu_partial = CACHE_STAT_NONE;
}

int slabinfo_write_line(const char *line)
{
	(void)line;
	return -EIO;	/* SLUB has no tunables to write */
}

/* ======================= bring-up ======================= */

/*
 * Per-CPU storage starts zeroed and kmem_cache_cpu.lock is never
 * initialised explicitly, so an all-zero mutex must be an unlocked one.
 */
static void check_zeroed_lock(void)
{
	static const spinlock_t unlocked = __SPIN_LOCK_UNLOCKED;
	spinlock_t zero;

	memset(&zero, 0, sizeof(zero));
	if (memcmp(&zero, &unlocked, sizeof(zero)))
		slab_panic("SLUB: a zeroed spinlock_t is not an unlocked one on this libc\n");
}

/* Move a static boot cache into a cache allocated from kmem_cache. */
static struct kmem_cache *bootstrap(struct kmem_cache *static_cache)
{
	struct kmem_cache *s = kmem_cache_alloc(kmem_cache, GFP_NOWAIT | __GFP_ZERO);
	struct kmem_cache_node *n;
	struct slab *slab;
	long listed;
	int node;

	if (!s)
		slab_panic("SLUB: Unable to bootstrap %s\n", static_cache->name);
	memcpy(s, static_cache, kmem_cache->object_size);
	flush_this_cpu(s);	/* the cpu slab points at the static cache */
	for_each_kmem_cache_node(s, node, n) {
		listed = 0;
		list_for_each_entry(slab, &n->partial, slab_list) {
			slab->slab_cache = s;
			listed++;
		}
		if (kmem_cache_tracks_full(s)) {
			list_for_each_entry(slab, &n->full, slab_list) {
				slab->slab_cache = s;
				listed++;
			}
		}
		/* why: a full slab is on no list and would keep the static cache */
		if (listed != atomic_long_read(&n->nr_slabs))
			slab_panic("SLUB: bootstrap of %s found a full slab\n", s->name);
	}
	list_add(&s->list, &slab_caches);
	return s;
}

void kmem_cache_init(void)
{
	static struct kmem_cache boot_kmem_cache, boot_kmem_cache_node;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	check_zeroed_lock();
	slub_nr_cpus = cpus > 1 ? (unsigned int)cpus : 1;
	kmem_cache_node = &boot_kmem_cache_node;
	kmem_cache = &boot_kmem_cache;
	create_boot_cache(kmem_cache_node, "kmem_cache_node", sizeof(struct kmem_cache_node),
			  SLAB_HWCACHE_ALIGN, 0, 0);
	slab_state = PARTIAL;	/* kmem_cache_node objects can be allocated */
	create_boot_cache(kmem_cache, "kmem_cache",
			  offsetof(struct kmem_cache, node) + nr_node_ids * sizeof(struct kmem_cache_node *),
			  SLAB_HWCACHE_ALIGN, 0, 0);
	kmem_cache = bootstrap(&boot_kmem_cache);
	kmem_cache_node = bootstrap(&boot_kmem_cache_node);
	setup_kmalloc_cache_index_table();
	create_kmalloc_caches(0);
	track_init();	/* no SLUB lock is held here: see track.h */
}

#endif /* CONFIG_SLUB */
