// SPDX-License-Identifier: MIT
/*
 * slab.c - SLAB, Bonwick's slab allocator as Linux 5.17 kept it, for user
 * space.
 *
 * 1. Overview
 *    A cache hands out objects of one size from slabs: blocks of
 *    2^gfporder pages cut into num slots of s->size bytes.  The first object
 *    sits at slab->s_mem, shifted by the slab's colour so that the slabs of
 *    a cache do not all start their objects on the same cache lines.  Each
 *    slab keeps the indexes of its free objects in a byte array, the
 *    freelist: entries [active, num) are free, slab_get_obj takes
 *    freelist[active++], slab_put_obj stores at freelist[--active].  The
 *    array lives at the end of the slab (on-slab), in a kmalloc object
 *    (OFF_SLAB) or inside one of the slab's own free objects (OBJFREELIST),
 *    chosen per cache as the kernel does (set_objfreelist_slab_cache, then
 *    set_off_slab_cache, then set_on_slab_cache).
 *
 *    Above the slabs sit the array caches, LIFO stacks of object pointers.
 *    Each CPU -- here each thread, see cpu.h -- has one per cache:
 *    kmem_cache_alloc pops it and kmem_cache_free pushes it, without a lock
 *    or an atomic read-modify-write, because only the owning thread touches
 *    it.  An empty array is refilled with batchcount objects
 *    (cache_alloc_refill): from the node's shared array first, then from
 *    partial slabs, then free slabs, then a new slab (cache_grow_begin/end).
 *    A full array gives its oldest batchcount entries to the shared array,
 *    or back to their slabs (cache_flusharray -> free_block), where free
 *    slabs beyond the node's free_limit go back to the page allocator.
 *
 *    A thread that cannot get a CPU id (cpu_attach() == -1), and a thread
 *    whose array is being set up or torn down, works through the node lists
 *    under list_lock, one object at a time (cache_alloc_node,
 *    cache_free_node).
 *
 * 2. Data structures (slab_def.h unless said otherwise)
 *    struct kmem_cache       geometry (size, num, gfporder, colour, freelist
 *                            placement flags), tunables (limit, batchcount,
 *                            shared), cpu_cache, node[0].
 *    struct kmem_cache_cpu   (below) the per-CPU slot: a pointer to this
 *                            CPU's array_cache (NULL until its first slow
 *                            path) and the cpustat counters.
 *    struct array_cache      avail, limit, batchcount, touched, entry[].  A
 *                            CPU's array is a kmalloc object, sized by the
 *                            tunables when its owner set it up.
 *    struct kmem_cache_node  slabs_partial/full/free with counts,
 *                            free_objects, free_limit, colour_next, the
 *                            shared array, reap timer and free_touched.
 *    struct slab             s_mem, active, freelist, slab_list.
 *
 * 3. States
 *    A slab:
 *      state     list           active         freelist
 *      growing   none (private) 0 (or taken)   array
 *      free      slabs_free     0              array
 *      partial   slabs_partial  0 < a < num    array
 *      full      slabs_full     num            array; NULL if OBJFREELIST
 *    (An OBJFREELIST slab's array lives in the free object that will be
 *    handed out last; when it goes the slab is full and freelist = NULL; the
 *    first object freed back becomes the new holder.)
 *    A CPU's slot: no array (ac == NULL: first use, or after thread exit);
 *    current (ac->limit/batchcount equal the published cpu_tunables); stale
 *    (tunables changed: the owner drains and replaces its array at its next
 *    slow path).
 *
 * 4. Lock order
 *      slab_mutex -> n->list_lock -> the page allocator's locks
 *    Nothing allocates or frees memory while holding a list_lock: new slabs
 *    are made before it is taken, and slabs to destroy are collected on a
 *    private list and freed after it is dropped (slabs_destroy).  Per-CPU
 *    arrays have no lock.  Only one list_lock is ever held at a time.
 *
 * 5. Invariants
 *    - Only the owning thread reads or writes its CPU's slot and array.
 *      The exceptions hold no race: __kmem_cache_shutdown/release, whose
 *      caller guarantees nobody uses the cache any more, and the thread-exit
 *      teardown (CPUHP_SLAB_DEAD), which runs on the exiting thread itself.
 *    - n->free_objects = free objects in the node's slabs (objects in array
 *      caches count as allocated); n->total_slabs = slabs on the three
 *      lists; n->free_slabs = slabs on slabs_free.
 *    - A slab is on slabs_full iff active == num, on slabs_free iff
 *      active == 0, else on slabs_partial.
 *    - Every index in freelist[active, num) is distinct, and names a free
 *      object that is in no array cache.
 *    - Memory cached per CPU is bounded by limit objects per cache and is
 *      given back when the thread exits.
 *
 * 6. Differences from the kernel
 *    There are no interrupts or IPIs: a CPU is a thread.  Retuning
 *    (slabinfo_write_line) publishes the new limit/batchcount in
 *    cpu_tunables; each CPU swaps its array at its next slow path instead of
 *    being interrupted.  One node, so no alien caches.  RCU is liburcu's
 *    (rcu.c): slab_destroy() of a SLAB_TYPESAFE_BY_RCU cache hands the slab
 *    to call_rcu() through slab->rcu_head and kmem_rcu_free() gives its
 *    pages back after the grace period, so lockless readers only ever find
 *    objects of the cache there (such caches keep their freelist off the
 *    objects).  No pfmemalloc reserves.
 *    CONFIG_DEBUG_SLAB is per cache, not per build: SLAB_RED_ZONE,
 *    SLAB_POISON and SLAB_STORE_USER (creation flags, or the option
 *    slub_debug= / slab_debug=, letters Z P U; F adds freelist checks) give
 *    a cache the kernel's debug layout, checks and reports, in slab_debug.c
 *    (its §1 tells how; docs/debugging.md).  Such a cache, and every cache
 *    while memcheck is active (valgrind or ASan, memcheck.h), carries
 *    CFLGS_DEBUG_HOOKS: slab_alloc and slab_free test that one bit and call
 *    slab_debug.c where objects leave and enter the user; arrays and
 *    freelists hold slots (object - obj_offset).  A cache without it pays
 *    that test and nothing else.  "CPUs" in
 *    the kernel's sizing rules (free_limit, the default shared array) are
 *    the machine's online CPUs, read once: threads may outnumber them, but
 *    no more than that many run at once.  Of CONFIG_DEBUG_SLAB's STATS, the
 *    globalstat counters (slow paths, under list_lock) are kept always, the
 *    per-CPU cpustat hit/miss counters only with the option slab_stats,
 *    which also adds both to slabinfo.
 *
 * 7. Reaping.  The kernel's cache_reap is per-CPU delayed work.  Here it
 *    runs on the owning thread's own slow path: every refill, flush and
 *    node-list operation checks this CPU's timer (a coarse clock read), and
 *    once REAPTIMEOUT_AC (2 s, option slab_reap_ms=) has passed, runs
 *    cache_reap for this CPU: for every cache (if slab_mutex is free) drain
 *    this CPU's array (clear touched if set, else free (limit+4)/5 entries),
 *    and every REAPTIMEOUT_NODE (2 x REAPTIMEOUT_AC) per node drain the
 *    shared array the same way and free about a fifth of free_limit's worth
 *    of free slabs unless free_touched.  Why not a reaper thread: it could
 *    not touch another thread's array without a lock on the fast path,
 *    would show up in programs that must not grow threads (and across
 *    fork), and cannot run inside the malloc drop-in's bring-up.  The cost
 *    of this choice: a CPU that stops allocating keeps what its own arrays
 *    hold (at most limit objects per cache) until it allocates again, its
 *    thread exits, or the cache is shrunk or destroyed; node-level reaping
 *    happens as long as any thread allocates.
 *
 * 8. Hardening, in every build and cache.  Every free checks that the
 *    pointer is an object start of a slab ("SLAB: Invalid object pointer",
 *    abort: not repairable); kmem_cache_free to another cache than the
 *    object's is reported in cache_from_obj's words and never followed
 *    (abort, or under slab_error=repair the object goes to its own cache);
 *    pushing the object that is already on top of the array (the naive
 *    double free) is reported (CONFIG_SLAB_FREELIST_HARDENED), and so is an
 *    object freed back into a slab that already holds it free (free_block
 *    looks for its index among the slab's free ones before it writes);
 *    under slab_error=repair either second free is dropped.  An index read
 *    from a freelist must name an object of the slab, or the freelist was
 *    overwritten (report and abort).  New slabs get their freelist in a
 *    per-cache random order from a random start
 *    (CONFIG_SLAB_FREELIST_RANDOM); OBJFREELIST slabs also keep the array in
 *    a random object.  Reports and their words live in slab_debug.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "slab.h"
#include "cpu.h"
#include "memcheck.h"
#include "memcontrol.h"
#include "os/os.h"
#include "slab_debug.h"
#include "track.h"

const char *const allocator_name = "slab";

#define BYTES_PER_WORD		sizeof(void *)
#define ARCH_KMALLOC_FLAGS	SLAB_HWCACHE_ALIGN

/* Byte indexes (slab_def.h) need 16-byte objects in 4 KiB pages. */
BUILD_BUG_ON((PAGE_SIZE >> 8) > SLAB_OBJ_MIN_SIZE);

#define OFF_SLAB(s)		((s)->flags & CFLGS_OFF_SLAB)
#define OBJFREELIST_SLAB(s)	((s)->flags & CFLGS_OBJFREELIST_SLAB)

#define BATCHREFILL_LIMIT	16	/* refill of an untouched array */
#define BOOT_CPUCACHE_ENTRIES	1	/* tunables of caches made while booting */
#define SLAB_MAX_ORDER_HI	1	/* default slab_max_order above 32 MiB of memory */
#define SLAB_MAX_ORDER_LO	0
#define MAX_SLABINFO_WRITE	128	/* longest slabinfo tuning line */
/* Most entries an array cache may have: it is one kmalloc object. */
#define MAX_ARRAY_ENTRIES	\
	((KMALLOC_MAX_CACHE_SIZE - sizeof(struct array_cache)) / sizeof(void *))

/* gfp bits that reach the page allocator for a new slab. */
#define GFP_RECLAIM_MASK	(__GFP_RECLAIM | __GFP_HIGH | __GFP_IO | __GFP_FS | \
				 __GFP_NOWARN | __GFP_RETRY_MAYFAIL | __GFP_NOFAIL | \
				 __GFP_NORETRY | __GFP_MEMALLOC | __GFP_NOMEMALLOC)
#define GFP_CONSTRAINT_MASK	(__GFP_HARDWALL | __GFP_THISNODE)

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
static struct slab_reap_cpu __percpu *slab_reap_cpu;

/*
 * Set while this thread sets up or drops an array, or tears its CPU down:
 * its slow paths then take the node lists directly and set up no array,
 * which ends the recursion "an array is a kmalloc object, kmalloc needs an
 * array".
 */
static __thread unsigned int slab_no_array __attribute__((tls_model("initial-exec")));

/* ======================= options ======================= */

static unsigned int slab_max_order = SLAB_MAX_ORDER_LO;
static bool slab_max_order_set;
static unsigned long reaptimeout_ac = 2000;	/* ms: REAPTIMEOUT_AC */
static bool slab_stats;			/* globalstat/cpustat counting */
static unsigned int slab_nr_cpus = 1;	/* online CPUs, read once at kmem_cache_init */

#define REAPTIMEOUT_AC		(reaptimeout_ac)
#define REAPTIMEOUT_NODE	(2 * reaptimeout_ac)

static int setup_slab_max_order(const char *val)
{
	unsigned long v;

	if (kstrtoul_opt(val, &v) || v >= MAX_ORDER_LIMIT)
		return -1;
	slab_max_order = (unsigned int)v;
	slab_max_order_set = true;
	return 0;
}
__setup("slab_max_order=", setup_slab_max_order);

/* uslab: the reap period in milliseconds (the kernel's REAPTIMEOUT_AC, 2 s). */
static int setup_slab_reap_ms(const char *val)
{
	unsigned long v;

	if (kstrtoul_opt(val, &v) || v < 1 || v > 3600UL * 1000)
		return -1;
	reaptimeout_ac = v;
	return 0;
}
__setup("slab_reap_ms=", setup_slab_reap_ms);

/* uslab: count the kernel's STATS (slabinfo globalstat and cpustat columns). */
static int setup_slab_stats(const char *val)
{
	if (*val)
		return -1;
	slab_stats = true;
	return 0;
}
__setup("slab_stats", setup_slab_stats);

/* ======================= small helpers ======================= */

static inline struct kmem_cache_node *get_node(struct kmem_cache *s, int node)
{
	return s->node[node];
}

static inline int numa_mem_id(void)
{
	return 0;
}

/* Milliseconds of a coarse monotonic clock: the reaper's jiffies. */
static unsigned long slab_jiffies(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (unsigned long)ts.tv_sec * 1000UL + (unsigned long)ts.tv_nsec / 1000000UL;
}

static inline bool time_after(unsigned long a, unsigned long b)
{
	return (long)(b - a) < 0;
}

static struct reciprocal_value reciprocal_value(unsigned int d)
{
	struct reciprocal_value r;
	int l = fls(d - 1);
	unsigned long m = ((1UL << 32) * ((1UL << l) - d)) / d + 1;

	r.m = (unsigned int)m;
	r.sh1 = (unsigned char)min(l, 1);
	r.sh2 = (unsigned char)max(l - 1, 0);
	return r;
}

static inline unsigned int reciprocal_divide(unsigned int a, struct reciprocal_value r)
{
	unsigned int t = (unsigned int)(((unsigned long)a * r.m) >> 32);

	return (t + ((a - t) >> r.sh1)) >> r.sh2;
}

static inline void *index_to_obj(const struct kmem_cache *s, const struct slab *slab,
				 unsigned int idx)
{
	return (char *)slab->s_mem + (unsigned long)s->size * idx;
}

static inline unsigned int obj_to_index(const struct kmem_cache *s, const struct slab *slab,
					const void *obj)
{
	unsigned int offset = (unsigned int)((const char *)obj - (const char *)slab->s_mem);

	return reciprocal_divide(offset, s->reciprocal_buffer_size);
}

static inline freelist_idx_t get_free_obj(const struct slab *slab, unsigned int idx)
{
	return ((freelist_idx_t *)slab->freelist)[idx];
}

static inline void set_free_obj(struct slab *slab, unsigned int idx, freelist_idx_t val)
{
	((freelist_idx_t *)slab->freelist)[idx] = val;
}

/* A fast per-thread generator (splitmix64) seeded from the OS. */
static __thread unsigned long slab_rand_state __attribute__((tls_model("initial-exec")));

static unsigned int slab_random(void)
{
	unsigned long z;

	if (unlikely(!slab_rand_state))
		os_random_bytes(&slab_rand_state, sizeof(slab_rand_state));
	z = (slab_rand_state += 0x9e3779b97f4a7c15UL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9UL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebUL;
	return (unsigned int)((z ^ (z >> 31)) >> 32);
}

static inline void stat_add(unsigned long *counter)
{
	WRITE_ONCE(*counter, *counter + 1);
}

/* ======================= slab geometry ======================= */

/*
 * Objects of buffer_size bytes that fit a slab of 2^gfporder pages, with
 * the freelist on the slab unless flags place it elsewhere; *left_over
 * gets the bytes that remain (the room for colouring).
 */
static unsigned int cache_estimate(unsigned int gfporder, size_t buffer_size,
				   slab_flags_t flags, size_t *left_over)
{
	size_t slab_size = PAGE_SIZE << gfporder;

	if (flags & (CFLGS_OBJFREELIST_SLAB | CFLGS_OFF_SLAB)) {
		*left_over = slab_size % buffer_size;
		return (unsigned int)(slab_size / buffer_size);
	}
	/* each object also needs its index byte at the end of the slab */
	*left_over = slab_size % (buffer_size + sizeof(freelist_idx_t));
	return (unsigned int)(slab_size / (buffer_size + sizeof(freelist_idx_t)));
}

/* Can num indexes live in a kmalloc object worth taking off the slab? */
static bool off_slab_freelist_fits(const struct kmem_cache *s, unsigned int num)
{
	struct kmem_cache *freelist_cache = kmalloc_slab(num * sizeof(freelist_idx_t), 0);

	if (ZERO_OR_NULL_PTR(freelist_cache))
		return false;	/* booting: that kmalloc cache does not exist yet */
	/* why: an off-slab freelist cache would recurse in cache_grow_begin */
	if (OFF_SLAB(freelist_cache))
		return false;
	/* only worth it if the freelist is much smaller than an object */
	return freelist_cache->size <= s->size / 2;
}

/*
 * Pick the slab order: the first order holding at least one object, then
 * larger ones while slab_max_order allows and more than 1/8 of the slab
 * would be wasted.  Sets s->num and s->gfporder; returns the leftover.
 */
static size_t calculate_slab_order(struct kmem_cache *s, size_t size, slab_flags_t flags)
{
	size_t left_over = 0, remainder;
	unsigned int gfporder, num;

	for (gfporder = 0; gfporder <= KMALLOC_MAX_ORDER; gfporder++) {
		num = cache_estimate(gfporder, size, flags, &remainder);
		if (!num)
			continue;
		if (num > SLAB_OBJ_MAX_NUM)
			break;		/* byte indexes cannot name more objects */
		if ((flags & CFLGS_OFF_SLAB) && !off_slab_freelist_fits(s, num))
			continue;
		s->num = num;
		s->gfporder = gfporder;
		left_over = remainder;
		/* reclaimable caches keep order 0: easier to give back */
		if (flags & SLAB_RECLAIM_ACCOUNT)
			break;
		if (gfporder >= slab_max_order)
			break;
		if (left_over * 8 <= (PAGE_SIZE << gfporder))
			break;		/* acceptable internal fragmentation */
	}
	return left_over;
}

/* The freelist inside a free object: no ctor or RCU (the object must be
 * free to scribble on), and the array must fit in one object. */
static bool set_objfreelist_slab_cache(struct kmem_cache *s, size_t size, slab_flags_t flags)
{
	size_t left;

	s->num = 0;
	if (s->ctor || (flags & SLAB_TYPESAFE_BY_RCU) || !slab_debug_objfreelist_ok(flags))
		return false;
	left = calculate_slab_order(s, size, flags | CFLGS_OBJFREELIST_SLAB);
	if (!s->num || s->num * sizeof(freelist_idx_t) > s->object_size)
		return false;
	s->colour = (unsigned int)(left / s->colour_off);
	return true;
}

/* The freelist in a kmalloc object, when the leftover could not hold it. */
static bool set_off_slab_cache(struct kmem_cache *s, size_t size, slab_flags_t flags)
{
	size_t left;

	s->num = 0;
	if (flags & SLAB_NOLEAKTRACE)
		return false;
	left = calculate_slab_order(s, size, flags | CFLGS_OFF_SLAB);
	if (!s->num || left >= s->num * sizeof(freelist_idx_t))
		return false;	/* it fits on the slab at no cost */
	s->colour = (unsigned int)(left / s->colour_off);
	return true;
}

static bool set_on_slab_cache(struct kmem_cache *s, size_t size, slab_flags_t flags)
{
	size_t left;

	s->num = 0;
	left = calculate_slab_order(s, size, flags);
	if (!s->num)
		return false;
	s->colour = (unsigned int)(left / s->colour_off);
	return true;
}

/* Object slot size and alignment, from the creator's size and align and
 * the debug words *flags ask for (slab_debug.c, which may drop some). */
static unsigned int slab_slot_size(struct kmem_cache *s, slab_flags_t *flags)
{
	unsigned int size;

	s->align = max(s->align, (unsigned int)BYTES_PER_WORD);
	s->colour_off = max((unsigned int)cache_line_size(), s->align);
	size = slab_debug_slot_size(s, flags);
	size = ALIGN(size, s->align);
	/* byte indexes: at most 255 objects, so no object below 16 bytes */
	if (size < SLAB_OBJ_MIN_SIZE)
		size = ALIGN((unsigned int)SLAB_OBJ_MIN_SIZE, s->align);
	return size;
}

/* Choose where the freelist lives; the flag to add, or -E2BIG. */
static long slab_place_freelist(struct kmem_cache *s, size_t size, slab_flags_t flags)
{
	if (set_objfreelist_slab_cache(s, size, flags))
		return CFLGS_OBJFREELIST_SLAB;
	if (set_off_slab_cache(s, size, flags))
		return CFLGS_OFF_SLAB;
	if (set_on_slab_cache(s, size, flags))
		return 0;
	return -E2BIG;
}

static gfp_t slab_allocflags(slab_flags_t flags)
{
	gfp_t gfp = __GFP_COMP;

	if (flags & SLAB_CACHE_DMA)
		gfp |= GFP_DMA;
	if (flags & SLAB_CACHE_DMA32)
		gfp |= GFP_DMA32;
	if (flags & SLAB_RECLAIM_ACCOUNT)
		gfp |= __GFP_RECLAIMABLE;
	return gfp;
}

/* ======================= node structures and tunables ======================= */

/*
 * Bootstrap node structures: the kmem_cache cache (made while slab_state
 * is DOWN) and the kmalloc cache that node structures come from (made while
 * PARTIAL) cannot kmalloc theirs; they use these until kmem_cache_init
 * moves them into kmalloc memory (init_list).
 */
#define NUM_INIT_LISTS	(2 * MAX_NUMNODES)
#define CACHE_CACHE	0
#define SIZE_NODE	MAX_NUMNODES
static struct kmem_cache_node init_kmem_cache_node[NUM_INIT_LISTS];

static void kmem_cache_node_init(struct kmem_cache_node *n)
{
	INIT_LIST_HEAD(&n->slabs_full);
	INIT_LIST_HEAD(&n->slabs_partial);
	INIT_LIST_HEAD(&n->slabs_free);
	n->total_slabs = n->free_slabs = n->free_objects = 0;
	n->free_limit = 0;
	n->shared = NULL;
	n->colour_next = 0;
	n->free_touched = 0;
	spin_lock_init(&n->list_lock);
}

static struct kmem_cache_node *alloc_kmem_cache_node(int node)
{
	struct kmem_cache_node *n;

	if (slab_state == DOWN)
		return &init_kmem_cache_node[CACHE_CACHE + node];
	if (slab_state == PARTIAL)
		return &init_kmem_cache_node[SIZE_NODE + node];
	n = __kmalloc_node(sizeof(*n), GFP_KERNEL, node);
	if (n)
		kmem_cache_node_init(n);
	return n;
}

static bool is_boot_node(const struct kmem_cache_node *n)
{
	return n >= init_kmem_cache_node && n < init_kmem_cache_node + NUM_INIT_LISTS;
}

static int setup_kmem_cache_nodes(struct kmem_cache *s)
{
	struct kmem_cache_node *n;
	int node;

	for (node = 0; node < nr_node_ids; node++) {
		n = alloc_kmem_cache_node(node);
		if (!n)
			return -ENOMEM;
		if (slab_state < PARTIAL_NODE)
			kmem_cache_node_init(n);
		/* spread the caches' node reaps over one period */
		n->next_reap = slab_jiffies() + REAPTIMEOUT_NODE +
			       ((unsigned long)s / 64) % REAPTIMEOUT_NODE;
		s->node[node] = n;
	}
	return 0;
}

/* Free objects a node keeps before it gives free slabs back. */
static unsigned long node_free_limit(const struct kmem_cache *s)
{
	return (1UL + slab_nr_cpus) * s->batchcount + s->num;
}

/* An empty array cache of @entries pointers (a kmalloc object). */
static struct array_cache *alloc_arraycache(unsigned long entries, unsigned int batchcount)
{
	struct array_cache *ac;

	if (entries > MAX_ARRAY_ENTRIES)
		return NULL;
	ac = __kmalloc(sizeof(*ac) + entries * sizeof(void *), GFP_KERNEL | __GFP_NOWARN);
	if (ac) {
		ac->avail = 0;
		ac->limit = (unsigned int)entries;
		ac->batchcount = batchcount;
		ac->touched = 0;
	}
	return ac;
}

static void free_block(struct kmem_cache *s, void **objpp, unsigned int nr, int node,
		       struct list_head *list);
static void slabs_destroy(struct kmem_cache *s, struct list_head *list);

/*
 * Install a new shared array (or none) on node @node, with the free_limit
 * of the current tunables.  The old shared array's objects go back to
 * their slabs.
 */
static void install_shared_array(struct kmem_cache *s, int node, struct array_cache *new_shared)
{
	struct kmem_cache_node *n = get_node(s, node);
	struct array_cache *old;
	LIST_HEAD(list);

	spin_lock(&n->list_lock);
	old = n->shared;
	if (old)
		free_block(s, old->entry, old->avail, node, &list);
	n->shared = new_shared;
	n->free_limit = node_free_limit(s);
	spin_unlock(&n->list_lock);
	slabs_destroy(s, &list);
	kfree(old);
}

/* Publish tunables; each CPU's array follows at its owner's next slow path. */
static void set_tunables(struct kmem_cache *s, unsigned int limit, unsigned int batchcount,
			 unsigned int shared)
{
	s->limit = limit;
	s->batchcount = batchcount;
	s->shared = shared;
	WRITE_ONCE(s->cpu_tunables, (unsigned long)limit << 32 | batchcount);
}

/*
 * The kernel's do_tune_cpucache, without the IPI (see §6): the new shared
 * arrays are allocated first, so that -ENOMEM leaves everything as it was.
 */
static int do_tune_cpucache(struct kmem_cache *s, unsigned int limit, unsigned int batchcount,
			    unsigned int shared)
{
	struct array_cache *new_shared[MAX_NUMNODES] = { NULL };
	struct kmem_cache_node *n;
	int node;

	if (limit > MAX_ARRAY_ENTRIES || (unsigned long)shared * batchcount > MAX_ARRAY_ENTRIES)
		return -ENOMEM;
	for_each_kmem_cache_node(s, node, n) {
		if (!shared)
			continue;
		new_shared[node] = alloc_arraycache((unsigned long)shared * batchcount, batchcount);
		if (!new_shared[node]) {
			while (node-- > 0)
				kfree(new_shared[node]);
			return -ENOMEM;
		}
	}
	set_tunables(s, limit, batchcount, shared);
	for_each_kmem_cache_node(s, node, n)
		install_shared_array(s, node, new_shared[node]);
	return 0;
}

static int cache_random_seq_create(struct kmem_cache *s);

/* Tunables by object size, as the kernel sizes them (enable_cpucache). */
static int enable_cpucache(struct kmem_cache *s)
{
	unsigned int limit, shared = 0;
	int err;

	err = cache_random_seq_create(s);
	if (!err) {
		if (s->size > 131072)
			limit = 1;
		else if (s->size > PAGE_SIZE)
			limit = 8;
		else if (s->size > 1024)
			limit = 24;
		else if (s->size > 256)
			limit = 54;
		else
			limit = 120;
		/* objects passed between CPUs: only where there are several */
		if (s->size <= PAGE_SIZE && slab_nr_cpus > 1)
			shared = 8;
		err = do_tune_cpucache(s, limit, (limit + 1) / 2, shared);
	}
	if (err)
		slab_printk("enable_cpucache failed for %s, error %d.\n", s->name, -err);
	return err;
}

static int setup_cpu_cache(struct kmem_cache *s)
{
	struct kmem_cache_node *n;
	int node;

	s->cpu_cache = alloc_percpu(struct kmem_cache_cpu);
	if (!s->cpu_cache || setup_kmem_cache_nodes(s))
		return -ENOMEM;
	if (slab_state >= FULL)
		return enable_cpucache(s);
	/* booting: one-entry arrays until kmem_cache_init_late */
	set_tunables(s, BOOT_CPUCACHE_ENTRIES, 1, 0);
	for_each_kmem_cache_node(s, node, n)
		n->free_limit = node_free_limit(s);
	return 0;
}

/* ======================= freelist randomisation ======================= */

/* A random permutation of 0..num-1 for the cache's new slabs. */
static int cache_random_seq_create(struct kmem_cache *s)
{
	unsigned int i, j, tmp, *seq;

	if (!CONFIG_SLAB_FREELIST_RANDOM || s->num < 2 || s->random_seq)
		return 0;
	seq = __kmalloc(s->num * sizeof(*seq), GFP_KERNEL);
	if (!seq)
		return -ENOMEM;
	for (i = 0; i < s->num; i++)
		seq[i] = i;
	for (i = s->num - 1; i > 0; i--) {	/* Fisher-Yates */
		j = slab_random() % (i + 1);
		tmp = seq[i];
		seq[i] = seq[j];
		seq[j] = tmp;
	}
	s->random_seq = seq;
	return 0;
}

/* Walks the permutation from a random start, wrapping around. */
struct freelist_init_state {
	const unsigned int *list;	/* the cache's permutation */
	unsigned int pos;		/* next entry */
	unsigned int count;		/* entries */
};

static unsigned int next_random_slot(struct freelist_init_state *state)
{
	if (state->pos >= state->count)
		state->pos = 0;
	return state->list[state->pos++];
}

static void swap_free_obj(struct slab *slab, unsigned int a, unsigned int b)
{
	freelist_idx_t tmp = get_free_obj(slab, a);

	set_free_obj(slab, a, get_free_obj(slab, b));
	set_free_obj(slab, b, tmp);
}

/* No permutation yet (boot caches until kmem_cache_init_late): shuffle here. */
static void shuffle_freelist_dynamic(struct slab *slab, unsigned int count)
{
	unsigned int i;

	for (i = 0; i < count; i++)
		set_free_obj(slab, i, (freelist_idx_t)i);
	for (i = count - 1; i > 0; i--)
		swap_free_obj(slab, i, slab_random() % (i + 1));
}

/*
 * Fill a new slab's freelist in random order; false if randomisation is
 * off.  An OBJFREELIST slab first picks the object that holds the array,
 * which goes last (it is handed out when the slab fills up).
 */
static bool shuffle_freelist(struct kmem_cache *s, struct slab *slab)
{
	struct freelist_init_state state = { s->random_seq, 0, s->num };
	unsigned int objfreelist = 0, count = s->num, i;

	if (!CONFIG_SLAB_FREELIST_RANDOM || count < 2)
		return false;
	if (state.list)
		state.pos = slab_random() % count;
	if (OBJFREELIST_SLAB(s)) {
		objfreelist = state.list ? next_random_slot(&state) : count - 1;
		slab->freelist = (char *)index_to_obj(s, slab, objfreelist) + s->obj_offset;
		count--;
	}
	if (state.list)
		for (i = 0; i < count; i++)
			set_free_obj(slab, i, (freelist_idx_t)next_random_slot(&state));
	else
		shuffle_freelist_dynamic(slab, count);
	if (OBJFREELIST_SLAB(s))
		set_free_obj(slab, s->num - 1, (freelist_idx_t)objfreelist);
	return true;
}

/* ======================= slab pages ======================= */

static noinline __cold void slab_out_of_memory(struct kmem_cache *s, gfp_t gfp, int nodeid)
{
	struct kmem_cache_node *n;
	char flags[256];
	int node;

	if (gfp & __GFP_NOWARN)
		return;
	slab_printk("SLAB: Unable to allocate memory on node %d, gfp=%#x(%s)\n", nodeid, gfp,
		    gfp_flags_string(flags, sizeof(flags), gfp));
	slab_printk("  cache: %s, object size: %u, order: %u\n", s->name, s->size, s->gfporder);
	for_each_kmem_cache_node(s, node, n) {
		unsigned long total, free_slabs, free_objs;

		spin_lock(&n->list_lock);
		total = n->total_slabs;
		free_slabs = n->free_slabs;
		free_objs = n->free_objects;
		spin_unlock(&n->list_lock);
		slab_printk("  node %d: slabs: %lu/%lu, objs: %lu/%lu\n", node, total - free_slabs,
			    total, total * s->num - free_objs, total * s->num);
	}
}

/* A new slab's pages: the start of the call chain that sees struct page. */
static struct slab *kmem_getpages(struct kmem_cache *s, gfp_t flags, int nodeid)
{
	struct folio *folio;
	struct page *page;

	flags |= s->allocflags;
	page = __alloc_pages_node(nodeid, flags, s->gfporder);
	if (unlikely(!page)) {
		slab_out_of_memory(s, flags, nodeid);
		return NULL;
	}
	folio = page_folio(page);
	__folio_set_slab(folio);
	return folio_slab(folio);
}

/* Give a slab's pages back, resetting the page fields the slab overlaid. */
static void kmem_freepages(struct kmem_cache *s, struct slab *slab)
{
	struct folio *folio = slab_folio(slab);

	if (unlikely(!folio_test_slab(folio)))
		slab_error(s, "kmem_freepages", "freeing a page that is not a slab:", slab);
	memcg_free_slab_cgroups(slab);
	atomic_set(&folio->_mapcount, -1);	/* slab->active overlaid it */
	folio->mapping = NULL;			/* slab->slab_cache overlaid it */
	__folio_clear_slab(folio);
	__free_pages(folio_page(folio, 0), s->gfporder);
}

/* SLAB_TYPESAFE_BY_RCU: the grace period after slab_destroy() is over. */
static void kmem_rcu_free(struct rcu_head *head)
{
	struct slab *slab = container_of(head, struct slab, rcu_head);

	kmem_freepages(slab->slab_cache, slab);
}

static void slab_destroy(struct kmem_cache *s, struct slab *slab)
{
	void *freelist = slab->freelist;

	if (unlikely(s->flags & CFLGS_DEBUG_HOOKS))
		slab_debug_destroy(s, slab);
	if (unlikely(s->flags & SLAB_TYPESAFE_BY_RCU))
		call_rcu(&slab->rcu_head, kmem_rcu_free);	/* pages back after readers (§6) */
	else
		kmem_freepages(s, slab);
	/* why now even for RCU caches: readers never look at the index array */
	if (OFF_SLAB(s))
		kmem_cache_free(s->freelist_cache, freelist);
}

/* Free the slabs collected on @list (no lock held). */
static void slabs_destroy(struct kmem_cache *s, struct list_head *list)
{
	struct slab *slab, *next;

	list_for_each_entry_safe(slab, next, list, slab_list) {
		list_del(&slab->slab_list);
		slab_destroy(s, slab);
	}
}

/* ======================= growing a cache ======================= */

/* Place the first object after the colour; returns the freelist storage. */
static void *alloc_slabmgmt(struct kmem_cache *s, struct slab *slab, size_t colour_off,
			    gfp_t local_flags, int nodeid)
{
	char *addr = slab_address(slab);

	slab->s_mem = addr + colour_off;
	slab->active = 0;
	if (OBJFREELIST_SLAB(s))
		return NULL;	/* set by cache_init_objs: inside an object */
	if (OFF_SLAB(s))
		return kmem_cache_alloc_node(s->freelist_cache, local_flags, nodeid);
	/* on-slab: the last bytes of the slab */
	return addr + (PAGE_SIZE << s->gfporder) - s->freelist_size;
}

/* Fill the freelist and run the constructor (or the debug set-up) on
 * every object. */
static void cache_init_objs(struct kmem_cache *s, struct slab *slab)
{
	bool shuffled = shuffle_freelist(s, slab);
	unsigned int i;

	if (!shuffled && OBJFREELIST_SLAB(s))
		slab->freelist = (char *)index_to_obj(s, slab, s->num - 1) + s->obj_offset;
	for (i = 0; i < s->num; i++) {
		if (unlikely(s->flags & CFLGS_DEBUG_HOOKS))
			cache_init_obj_debug(s, index_to_obj(s, slab, i));
		else if (s->ctor)
			s->ctor(index_to_obj(s, slab, i));
		if (!shuffled)
			set_free_obj(slab, i, (freelist_idx_t)i);
	}
	if (unlikely(s->flags & CFLGS_DEBUG_HOOKS))
		slab_debug_new_slab(s, slab);
}

/* The colour offset of the next slab of node n. */
static size_t next_colour(struct kmem_cache *s, struct kmem_cache_node *n)
{
	unsigned int colour;

	spin_lock(&n->list_lock);
	if (++n->colour_next >= s->colour)
		n->colour_next = 0;
	colour = n->colour_next;
	spin_unlock(&n->list_lock);
	return (size_t)colour * s->colour_off;
}

static noinline __cold void warn_ctor_zero(struct kmem_cache *s)
{
	static bool warned;

	if (__atomic_exchange_n(&warned, true, __ATOMIC_RELAXED))
		return;
	slab_warn("mm/slab.c:cache_grow_begin",
		  "cache %s has a constructor: __GFP_ZERO would undo it\n", s->name);
}

/*
 * A new slab, built without any lock and not yet on a node list; the
 * caller takes objects from it, then publishes it with cache_grow_end.
 */
static struct slab *cache_grow_begin(struct kmem_cache *s, gfp_t flags, int nodeid)
{
	gfp_t local_flags;
	struct slab *slab;
	size_t offset;
	void *freelist;

	if (unlikely(flags & GFP_SLAB_BUG_MASK))
		flags = kmalloc_fix_flags(flags);
	if (unlikely(s->ctor && (flags & __GFP_ZERO)))
		warn_ctor_zero(s);
	local_flags = flags & (GFP_CONSTRAINT_MASK | GFP_RECLAIM_MASK);
	slab = kmem_getpages(s, local_flags, nodeid);
	if (!slab)
		return NULL;
	offset = next_colour(s, get_node(s, slab_nid(slab)));
	freelist = alloc_slabmgmt(s, slab, offset, local_flags & ~GFP_CONSTRAINT_MASK,
				  slab_nid(slab));
	if (OFF_SLAB(s) && !freelist) {
		kmem_freepages(s, slab);
		return NULL;
	}
	slab->slab_cache = s;
	slab->freelist = freelist;
	cache_init_objs(s, slab);
	return slab;
}

static void fixup_slab_list(struct kmem_cache *s, struct kmem_cache_node *n,
			    struct slab *slab);

/* globalstat: nr objects left their slabs (list_lock held). */
static void stats_alloced(struct kmem_cache *s, unsigned int nr)
{
	s->stats.num_allocations += nr;
	s->stats.num_active += nr;
	if (s->stats.num_active > s->stats.high_mark)
		s->stats.high_mark = s->stats.num_active;
}

/* Publish a slab made by cache_grow_begin (NULL: nothing to do). */
static void cache_grow_end(struct kmem_cache *s, struct slab *slab)
{
	struct kmem_cache_node *n;

	if (!slab)
		return;
	INIT_LIST_HEAD(&slab->slab_list);
	n = get_node(s, slab_nid(slab));
	spin_lock(&n->list_lock);
	n->total_slabs++;
	if (!slab->active) {
		list_add_tail(&slab->slab_list, &n->slabs_free);
		n->free_slabs++;
	} else {
		fixup_slab_list(s, n, slab);
	}
	s->stats.grown++;
	stats_alloced(s, slab->active);	/* taken while it was private */
	n->free_objects += s->num - slab->active;
	spin_unlock(&n->list_lock);
}

/* ======================= objects in slabs ======================= */

static void *slab_get_obj(struct kmem_cache *s, struct slab *slab)
{
	unsigned int idx = get_free_obj(slab, slab->active);

	/* why: an overrun of the slab's last object can reach its freelist */
	if (unlikely(idx >= s->num))
		slab_bad_freelist_index(s, slab, slab->active, idx);
	if (unlikely(s->flags & SLAB_CONSISTENCY_CHECKS))
		check_slab_freelist(s, slab, slab->freelist, slab->active);
	slab->active++;
	return index_to_obj(s, slab, idx);
}

/* Is objp, coming back to its slab, free there already (a double free)? */
static bool slab_obj_is_free(const struct kmem_cache *s, const struct slab *slab,
			     const void *objp)
{
	unsigned int objnr = obj_to_index(s, slab, objp);

	if (!slab->active)
		return true;
	if (slab->active >= s->num)
		return false;
	return memchr((freelist_idx_t *)slab->freelist + slab->active, (int)objnr,
		      s->num - slab->active) != NULL;
}

static void slab_put_obj(struct kmem_cache *s, struct slab *slab, void *objp)
{
	unsigned int objnr = obj_to_index(s, slab, objp);

	slab->active--;
	/* a full OBJFREELIST slab: this object now holds the array */
	if (!slab->freelist)
		slab->freelist = (char *)objp + s->obj_offset;
	set_free_obj(slab, slab->active, (freelist_idx_t)objnr);
	if (unlikely(s->flags & SLAB_CONSISTENCY_CHECKS))
		check_slab_freelist(s, slab, slab->freelist, slab->active);
}

/* Move a slab we took objects from to the list its fill level says. */
static void fixup_slab_list(struct kmem_cache *s, struct kmem_cache_node *n,
			    struct slab *slab)
{
	list_del(&slab->slab_list);
	if (slab->active == s->num) {
		list_add(&slab->slab_list, &n->slabs_full);
		/* why: the last object handed out held the array; it is the user's now */
		if (OBJFREELIST_SLAB(s))
			slab->freelist = NULL;
	} else {
		list_add(&slab->slab_list, &n->slabs_partial);
	}
}

/* First slab to allocate from: partial ones, then free ones. */
static struct slab *get_first_slab(struct kmem_cache_node *n)
{
	struct slab *slab;

	slab = list_first_entry_or_null(&n->slabs_partial, struct slab, slab_list);
	if (!slab) {
		n->free_touched = 1;
		slab = list_first_entry_or_null(&n->slabs_free, struct slab, slab_list);
		if (slab)
			n->free_slabs--;
	}
	return slab;
}

/* Move up to batchcount objects of slab into ac; returns what is left to take. */
static unsigned int alloc_block(struct kmem_cache *s, struct array_cache *ac,
				struct slab *slab, unsigned int batchcount)
{
	while (slab->active < s->num && batchcount) {
		ac->entry[ac->avail++] = slab_get_obj(s, slab);
		batchcount--;
	}
	return batchcount;
}

/*
 * Give nr objects back to their slabs (list_lock held).  Slabs that become
 * free beyond the node's free_limit are moved to @list, for the caller to
 * destroy after dropping the lock.
 */
static void free_block(struct kmem_cache *s, void **objpp, unsigned int nr, int node,
		       struct list_head *list)
{
	struct kmem_cache_node *n = get_node(s, node);
	unsigned int i, freed = 0;
	struct slab *slab;

	for (i = 0; i < nr; i++) {
		slab = virt_to_slab(objpp[i]);
		/* why here: a second copy of an object must not reach its freelist */
		if (unlikely(slab_obj_is_free(s, slab, objpp[i]))) {
			slab_double_free(s, objpp[i]);
			continue;	/* slab_error=repair: the second free is dropped */
		}
		freed++;
		list_del(&slab->slab_list);
		slab_put_obj(s, slab, objpp[i]);
		if (slab->active == 0) {
			list_add(&slab->slab_list, &n->slabs_free);
			n->free_slabs++;
		} else {
			/* at the tail: the longest time for its other objects to come back */
			list_add_tail(&slab->slab_list, &n->slabs_partial);
		}
	}
	n->free_objects += freed;
	s->stats.num_active -= freed;
	while (n->free_objects > n->free_limit && !list_empty(&n->slabs_free)) {
		n->free_objects -= s->num;
		slab = list_last_entry(&n->slabs_free, struct slab, slab_list);
		list_move(&slab->slab_list, list);
		n->free_slabs--;
		n->total_slabs--;
	}
}

/* ======================= array caches ======================= */

/*
 * memcheck (memcheck.h §2): entries [ac->avail, old) were just vacated.
 * Clear them, so that no stale copy of a pointer keeps an object that the
 * program leaks reachable for valgrind (the kernel's kmemleak_erase()).
 */
static void ac_erase_vacated(struct array_cache *ac, unsigned int old)
{
	if (unlikely(memcheck_active()))
		memset(&ac->entry[ac->avail], 0, sizeof(void *) * (old - ac->avail));
}

/* Move up to max of from's newest entries onto to; returns how many. */
static unsigned int transfer_objects(struct array_cache *to, struct array_cache *from,
				     unsigned int max)
{
	unsigned int nr = min(min(from->avail, max), to->limit - to->avail);

	if (!nr)
		return 0;
	memcpy(to->entry + to->avail, from->entry + from->avail - nr, sizeof(void *) * nr);
	from->avail -= nr;
	ac_erase_vacated(from, from->avail + nr);
	to->avail += nr;
	return nr;
}

/* Free the oldest entries of ac (all, or a reaper's fifth); list_lock held. */
static void drain_array_locked(struct kmem_cache *s, struct array_cache *ac, int node,
			       bool free_all, struct list_head *list)
{
	unsigned int tofree;

	if (!ac || !ac->avail)
		return;
	tofree = free_all ? ac->avail : (ac->limit + 4) / 5;
	if (tofree > ac->avail)
		tofree = (ac->avail + 1) / 2;
	free_block(s, ac->entry, tofree, node, list);
	ac->avail -= tofree;
	memmove(ac->entry, &ac->entry[tofree], sizeof(void *) * ac->avail);
	ac_erase_vacated(ac, ac->avail + tofree);
}

/* Give every entry of ac back to its slabs (no lock held). */
static void drain_array_all(struct kmem_cache *s, struct array_cache *ac)
{
	int node = numa_mem_id();
	struct kmem_cache_node *n = get_node(s, node);
	LIST_HEAD(list);

	if (!ac || !ac->avail)
		return;
	spin_lock(&n->list_lock);
	drain_array_locked(s, ac, node, true, &list);
	spin_unlock(&n->list_lock);
	slabs_destroy(s, &list);
}

static bool ac_is_current(const struct kmem_cache *s, const struct array_cache *ac)
{
	unsigned long t = READ_ONCE(s->cpu_tunables);

	return ac && ac->limit == (unsigned int)(t >> 32) && ac->batchcount == (unsigned int)t;
}

/*
 * Give this CPU an array sized by the published tunables (owner only);
 * the old array's objects go back to their slabs.  Keeps the old array (or
 * none) if there is no memory, or while slab_no_array is set.
 */
static noinline struct array_cache *cpu_array_refresh(struct kmem_cache *s,
						      struct kmem_cache_cpu *c)
{
	unsigned long t = READ_ONCE(s->cpu_tunables);
	struct array_cache *old = c->ac, *ac;

	if (old && old->limit == (unsigned int)(t >> 32)) {
		old->batchcount = (unsigned int)t;
		return old;
	}
	if (slab_no_array)
		return old;
	slab_no_array++;
	ac = alloc_arraycache(t >> 32, (unsigned int)t);
	if (ac) {
		drain_array_all(s, old);
		c->ac = ac;
		kfree(old);
	}
	slab_no_array--;
	return c->ac;
}

/* This CPU's array for s, set up or refreshed; NULL: use the node lists. */
static struct array_cache *cpu_array_slow(struct kmem_cache *s)
{
	struct kmem_cache_cpu *c;

	if (unlikely(smp_processor_id() < 0))
		return NULL;		/* no CPU id to be had */
	c = this_cpu_ptr_or_null(s->cpu_cache);
	if (unlikely(!ac_is_current(s, c->ac)))
		return cpu_array_refresh(s, c);
	return c->ac;
}

/*
 * Refill an empty CPU array with up to batchcount objects: from the shared
 * array, else from partial then free slabs, else from a new slab.  Returns
 * one object, or NULL if no slab could be made.
 */
static void *cache_alloc_refill(struct kmem_cache *s, struct array_cache *ac, gfp_t flags)
{
	int node = numa_mem_id();
	struct kmem_cache_node *n = get_node(s, node);
	unsigned int batchcount = ac->batchcount;
	struct slab *slab;

	/* little recent use: a partial refill, so arrays do not bounce objects */
	if (!ac->touched && batchcount > BATCHREFILL_LIMIT)
		batchcount = BATCHREFILL_LIMIT;
	spin_lock(&n->list_lock);
	if (n->shared && transfer_objects(ac, n->shared, batchcount)) {
		n->shared->touched = 1;
	} else {
		while (batchcount && (slab = get_first_slab(n)) != NULL) {
			batchcount = alloc_block(s, ac, slab, batchcount);
			fixup_slab_list(s, n, slab);
		}
		n->free_objects -= ac->avail;
		stats_alloced(s, ac->avail);
	}
	spin_unlock(&n->list_lock);
	if (unlikely(!ac->avail)) {
		slab = cache_grow_begin(s, flags, node);
		if (slab)
			alloc_block(s, ac, slab, batchcount);
		cache_grow_end(s, slab);
		if (!ac->avail)
			return NULL;
	}
	ac->touched = 1;
	return ac->entry[--ac->avail];
}

/* A full CPU array: its oldest batchcount entries go to the shared array
 * if it has room, else back to their slabs. */
static void cache_flusharray(struct kmem_cache *s, struct array_cache *ac)
{
	int node = numa_mem_id();
	struct kmem_cache_node *n = get_node(s, node);
	unsigned int batchcount = min(ac->batchcount, ac->avail);
	struct array_cache *shared;
	LIST_HEAD(list);

	spin_lock(&n->list_lock);
	shared = n->shared;
	if (shared && shared->avail < shared->limit) {
		batchcount = min(batchcount, shared->limit - shared->avail);
		memcpy(&shared->entry[shared->avail], ac->entry, sizeof(void *) * batchcount);
		shared->avail += batchcount;
	} else {
		free_block(s, ac->entry, batchcount, node, &list);
	}
	if (n->free_slabs > s->stats.max_freeable)
		s->stats.max_freeable = n->free_slabs;
	spin_unlock(&n->list_lock);
	ac->avail -= batchcount;
	memmove(ac->entry, &ac->entry[batchcount], sizeof(void *) * ac->avail);
	ac_erase_vacated(ac, ac->avail + batchcount);
	slabs_destroy(s, &list);
}

/* ======================= node lists directly (no CPU array) ======================= */

/* One object straight from node nodeid's slabs, growing if need be. */
static void *cache_alloc_node(struct kmem_cache *s, gfp_t flags, int nodeid)
{
	struct kmem_cache_node *n = get_node(s, nodeid);
	struct slab *slab;
	void *obj = NULL;

	spin_lock(&n->list_lock);
	slab = get_first_slab(n);
	if (slab) {
		obj = slab_get_obj(s, slab);
		n->free_objects--;
		stats_alloced(s, 1);
		s->stats.node_allocs++;
		fixup_slab_list(s, n, slab);
	}
	spin_unlock(&n->list_lock);
	if (obj)
		return obj;
	slab = cache_grow_begin(s, flags, nodeid);
	if (slab)
		obj = slab_get_obj(s, slab);	/* counted by cache_grow_end */
	cache_grow_end(s, slab);
	return obj;
}

static void cache_free_node(struct kmem_cache *s, void *objp)
{
	int node = numa_mem_id();
	struct kmem_cache_node *n = get_node(s, node);
	LIST_HEAD(list);

	spin_lock(&n->list_lock);
	free_block(s, &objp, 1, node, &list);
	s->stats.node_frees++;
	spin_unlock(&n->list_lock);
	slabs_destroy(s, &list);
}

/* ======================= reaping (see §7) ======================= */

/* Free up to tofree free slabs of node n; returns how many. */
static unsigned long drain_freelist(struct kmem_cache *s, struct kmem_cache_node *n,
				    unsigned long tofree)
{
	unsigned long nr_freed = 0;
	struct slab *slab;

	while (nr_freed < tofree) {
		spin_lock(&n->list_lock);
		if (list_empty(&n->slabs_free)) {
			spin_unlock(&n->list_lock);
			break;
		}
		slab = list_last_entry(&n->slabs_free, struct slab, slab_list);
		list_del(&slab->slab_list);
		n->free_slabs--;
		n->total_slabs--;
		n->free_objects -= s->num;
		spin_unlock(&n->list_lock);
		slab_destroy(s, slab);
		nr_freed++;
	}
	return nr_freed;
}

/* This CPU's array: untouched since the last reap loses a fifth of limit. */
static void drain_array(struct kmem_cache *s, struct kmem_cache_node *n,
			struct array_cache *ac, int node)
{
	LIST_HEAD(list);

	if (!ac || !ac->avail)
		return;
	if (ac->touched) {
		ac->touched = 0;
		return;
	}
	spin_lock(&n->list_lock);
	drain_array_locked(s, ac, node, false, &list);
	spin_unlock(&n->list_lock);
	slabs_destroy(s, &list);
}

/* Every REAPTIMEOUT_NODE: the shared array and some free slabs of a node. */
static void reap_node(struct kmem_cache *s, struct kmem_cache_node *n, int node,
		      unsigned long now)
{
	unsigned long tofree = 0, freed;
	LIST_HEAD(list);

	spin_lock(&n->list_lock);
	if (time_after(n->next_reap, now)) {
		spin_unlock(&n->list_lock);
		return;
	}
	n->next_reap = now + REAPTIMEOUT_NODE;
	if (n->shared && n->shared->touched)
		n->shared->touched = 0;
	else
		drain_array_locked(s, n->shared, node, false, &list);
	if (n->free_touched)
		n->free_touched = 0;
	else
		tofree = DIV_ROUND_UP(n->free_limit, 5UL * s->num);
	spin_unlock(&n->list_lock);
	slabs_destroy(s, &list);
	freed = drain_freelist(s, n, tofree);
	spin_lock(&n->list_lock);
	s->stats.reaped += freed;
	spin_unlock(&n->list_lock);
}

/* The kernel's cache_reap, for the calling CPU (slab_no_array set). */
static void cache_reap(unsigned long now)
{
	int node = numa_mem_id();
	struct kmem_cache_cpu *c;
	struct kmem_cache *s;

	/* give up if busy: cache creation and destruction come first */
	if (!mutex_trylock(&slab_mutex))
		return;
	list_for_each_entry(s, &slab_caches, list) {
		c = this_cpu_ptr_or_null(s->cpu_cache);
		if (c)
			drain_array(s, get_node(s, node), c->ac, node);
		reap_node(s, get_node(s, node), node, now);
	}
	mutex_unlock(&slab_mutex);
}

/*
 * Run cache_reap if this CPU's period is over: called at the start of
 * every slow path, where no lock is held (a caller holding slab_mutex makes
 * the trylock fail).  Not while an array is set up or torn down.
 */
static void reap_tick(void)
{
	struct slab_reap_cpu *r;
	unsigned long now;

	if (unlikely(!slab_reap_cpu) || slab_no_array)
		return;
	r = this_cpu_ptr_or_null(slab_reap_cpu);
	if (!r)
		return;
	now = slab_jiffies();
	if (unlikely(!r->next_reap)) {
		/* first slow path of this CPU: start its period, spread over CPUs */
		r->next_reap = now + REAPTIMEOUT_AC +
			       (unsigned long)this_cpu_id * 37 % REAPTIMEOUT_AC;
		return;
	}
	if (!time_after(now, r->next_reap))
		return;
	r->next_reap = now + REAPTIMEOUT_AC;
	slab_no_array++;
	cache_reap(now);
	slab_no_array--;
}

/* ======================= allocation and free ======================= */

static noinline void *cache_alloc_slow(struct kmem_cache *s, gfp_t flags)
{
	struct kmem_cache_cpu *c;
	struct array_cache *ac;

	reap_tick();
	ac = cpu_array_slow(s);
	if (!ac)
		return cache_alloc_node(s, flags, numa_mem_id());
	c = this_cpu_ptr_or_null(s->cpu_cache);
	if (ac->avail) {	/* the reaper or a refresh left some after all */
		if (unlikely(slab_stats))
			stat_add(&c->allochit);
		ac->touched = 1;
		return ac->entry[--ac->avail];
	}
	if (unlikely(slab_stats))
		stat_add(&c->allocmiss);
	return cache_alloc_refill(s, ac, flags);
}

static __always_inline void __free_one(struct kmem_cache *s, struct array_cache *ac, void *objp)
{
	/* why: freeing the object freed just before is the trivial double free;
	 * why likely(avail) apart: the array is seldom empty, and the test
	 * marked unlikely as a whole put the usual path out of line */
	if (CONFIG_SLAB_FREELIST_HARDENED && likely(ac->avail) &&
	    unlikely(ac->entry[ac->avail - 1] == objp)) {
		naive_double_free(s, objp);
		return;		/* slab_error=repair: the second free is dropped */
	}
	ac->entry[ac->avail++] = objp;
}

static noinline void cache_free_slow(struct kmem_cache *s, void *objp)
{
	struct kmem_cache_cpu *c;
	struct array_cache *ac;

	reap_tick();
	ac = cpu_array_slow(s);
	if (!ac) {
		cache_free_node(s, objp);
		return;
	}
	c = this_cpu_ptr_or_null(s->cpu_cache);
	if (ac->avail >= ac->limit) {
		if (unlikely(slab_stats))
			stat_add(&c->freemiss);
		cache_flusharray(s, ac);
	} else if (unlikely(slab_stats)) {
		stat_add(&c->freehit);
	}
	__free_one(s, ac, objp);
}

/*
 * Call tree (the fast paths are inlined into the exported functions):
 *
 *   kmem_cache_alloc / _node / __kmalloc(_node) / kmem_cache_alloc_bulk
 *     slab_alloc             pop this CPU's array                 [fast]
 *       slab_alloc_memcg     __GFP_ACCOUNT or SLAB_ACCOUNT: charge the
 *                            memory cgroup, pop, record (memcontrol.h);
 *                            without a call if the stock pays and the
 *                            object's slab has its vector, else
 *         slab_alloc_memcg_slow  charge, allocate, record by calls
 *       cache_alloc_slow     reap_tick; no CPU array yet, stale or empty
 *         cpu_array_refresh  (re)size this CPU's array to the tunables
 *         cache_alloc_refill shared array -> partial -> free slabs -> grow
 *         cache_alloc_node   no CPU id: one object under list_lock
 *     cache_alloc_debugcheck_after  debug and memcheck caches (slab_debug.c)
 *   kmem_cache_free / kfree / kmem_cache_free_bulk
 *     object_cache_checked   the pointer is an object start of a slab
 *       kmem_cache_free_wrong  of another cache: report, never followed
 *     memcg_slab_free_hook   a charged object: uncharge (memcontrol.h)
 *     slab_free              push onto this CPU's array            [fast]
 *       cache_free_debugcheck  debug and memcheck caches (slab_debug.c)
 *       cache_free_slow      reap_tick; array full: cache_flusharray
 *                            (shared array or free_block); no CPU id:
 *                            cache_free_node
 *
 * Budget.  alloc: one TLS load, the cache's slot offset, the array
 * pointer, avail test, one load and two stores, a test of the gfp flags.
 * free: the same to find the array, a compare with the top entry (naive
 * double free), one store and avail.  No lock, no atomic read-modify-write,
 * no call.  The object check before a free reads the struct page (flags,
 * compound head, cache, s_mem) and does one multiply.  Debugging costs each
 * path one test of s->flags (CFLGS_DEBUG_HOOKS) when it is off; memory
 * cgroups cost the alloc one test (gfp and s->flags) and the free one test
 * of slab->memcg_data, in the struct page line already read.
 */
/*
 * The API caller for the debug hooks: caller, or for 0 the return address
 * of the exported function the fast path is inlined into.  Read on the
 * debug branch only, so the fast path keeps no register for it.
 */
#define slab_caller(caller)	((caller) ? (caller) : _RET_IP_)

/* memcheck: the entry of this CPU's array that handed slot out is cleared
 * (ac_erase_vacated); the compare: slot may have come from the node lists. */
static void ac_erase_popped(struct kmem_cache *s, const void *slot)
{
	struct kmem_cache_cpu *c = this_cpu_ptr_or_null(s->cpu_cache);
	struct array_cache *ac = c ? c->ac : NULL;

	if (ac && ac->avail < ac->limit && ac->entry[ac->avail] == slot)
		ac->entry[ac->avail] = NULL;
}

/* Out of line, so that the fast path keeps nothing live across the hook. */
static noinline void *slab_alloc_debug(struct kmem_cache *s, gfp_t flags, void *slot,
				       unsigned long caller)
{
	if (memcheck_active() && slot)
		ac_erase_popped(s, slot);
	return cache_alloc_debugcheck_after(s, flags, slot, caller);
}

static __always_inline void *slab_alloc_fast(struct kmem_cache *s, gfp_t flags,
					     unsigned long caller)
{
	struct kmem_cache_cpu *c = this_cpu_ptr_or_null(s->cpu_cache);
	struct array_cache *ac;
	void *objp;

	if (likely(c) && likely((ac = c->ac) != NULL) && likely(ac->avail)) {
		ac->touched = 1;
		objp = ac->entry[--ac->avail];
		if (unlikely(slab_stats))
			stat_add(&c->allochit);
	} else {
		objp = cache_alloc_slow(s, flags);
	}
	if (unlikely(s->flags & CFLGS_DEBUG_HOOKS))
		objp = slab_alloc_debug(s, flags, objp, slab_caller(caller));
	if (unlikely(flags & __GFP_ZERO) && likely(objp))
		memset(objp, 0, READ_ONCE(s->object_size));
	return objp;
}

/* An allocation charged to the thread's memory cgroup (memcontrol.h), in
 * its general form: whatever slab_alloc_memcg cannot do without a call. */
static noinline void *slab_alloc_memcg_slow(struct kmem_cache *s, gfp_t flags,
					    unsigned long caller)
{
	struct obj_cgroup *objcg;
	void *objp;

	if (!memcg_slab_pre_alloc_hook(s, &objcg, 1, flags))
		return NULL;
	objp = slab_alloc_fast(s, flags, caller);
	memcg_slab_post_alloc_one(s, objcg, flags, objp);
	return objp;
}

/*
 * The accounted fast path: the thread has a group whose stock on this CPU
 * pays for the object, the array has one, and the object's slab has its
 * vector; no debug hooks, no statistics.  Then the object is popped as
 * slab_alloc_fast pops it and recorded in the vector.  No atomic, no call,
 * and no register to save (caller goes only to the slow form).
 */
static noinline void *slab_alloc_memcg(struct kmem_cache *s, gfp_t flags, unsigned long caller)
{
	struct kmem_cache_cpu *c = this_cpu_ptr_or_null(s->cpu_cache);
	struct obj_stock *stock = this_obj_stock;
	struct obj_cgroup **slot;
	struct array_cache *ac;
	unsigned int avail;
	void *objp;

	if (unlikely(!c) || unlikely(!obj_stock_caches(stock, active_objcg)))
		goto slow;
	ac = c->ac;
	if (unlikely(!ac) || unlikely(!ac->avail) || unlikely(s->flags & CFLGS_DEBUG_HOOKS) ||
	    unlikely(slab_stats))
		goto slow;
	objp = ac->entry[ac->avail - 1];
	slot = memcg_obj_slot(objp);
	avail = stock->nr_bytes;
	if (unlikely(!slot) || unlikely(avail < obj_full_size(s)))
		goto slow;
	ac->touched = 1;
	ac->avail--;
	WRITE_ONCE(stock->nr_bytes, avail - obj_full_size(s));
	WRITE_ONCE(*slot, READ_ONCE(stock->cached_objcg));
	if (unlikely(flags & __GFP_ZERO))
		memset(objp, 0, READ_ONCE(s->object_size));
	return objp;
slow:
	return slab_alloc_memcg_slow(s, flags, caller);
}

static __always_inline void *slab_alloc(struct kmem_cache *s, gfp_t flags, unsigned long caller)
{
	if (memcg_slab_wants_charge(s, flags))	/* __GFP_ACCOUNT or SLAB_ACCOUNT */
		return slab_alloc_memcg(s, flags, slab_caller(caller));
	return slab_alloc_fast(s, flags, caller);
}

/* Push a slot onto this CPU's array. */
static __always_inline void cache_free_to_array(struct kmem_cache *s, void *objp)
{
	struct kmem_cache_cpu *c = this_cpu_ptr_or_null(s->cpu_cache);
	struct array_cache *ac;

	if (likely(c) && likely((ac = c->ac) != NULL) && likely(ac->avail < ac->limit)) {
		/* why first: nothing stays live across __free_one's report call */
		if (unlikely(slab_stats))
			stat_add(&c->freehit);
		__free_one(s, ac, objp);
		return;
	}
	cache_free_slow(s, objp);
}

/* Out of line, so that the fast path keeps nothing live across the hook. */
static noinline void slab_free_debug(struct kmem_cache *s, void *objp, unsigned long caller)
{
	objp = cache_free_debugcheck(s, objp, caller);
	if (objp)	/* NULL: slab_error=repair dropped a double free */
		cache_free_to_array(s, objp);
}

static __always_inline void slab_free(struct kmem_cache *s, void *objp, unsigned long caller)
{
	if (unlikely(s->flags & CFLGS_DEBUG_HOOKS)) {
		slab_free_debug(s, objp, slab_caller(caller));
		return;
	}
	cache_free_to_array(s, objp);
}

/*
 * x must be an object start of a slab: returns the cache it belongs to.
 * Not an object: report and abort.
 */
static __always_inline struct kmem_cache *object_cache_checked(struct slab *slab, const void *x,
							       const char *fn)
{
	struct kmem_cache *t;
	unsigned long off;

	if (unlikely(!slab))
		free_invalid_pointer(fn, x, "not a slab object");
	t = slab->slab_cache;
	off = (unsigned long)x - (unsigned long)slab->s_mem - t->obj_offset;
	if (unlikely(off >= (unsigned long)t->num * t->size ||
		     reciprocal_divide((unsigned int)off, t->reciprocal_buffer_size) * t->size != off))
		free_bad_object(t, slab, x);
	return t;
}

/* kmem_cache_free(s, x) of an object of t: reported; under slab_error=repair
 * freed to t, the cache it belongs to, never to s. */
static noinline __cold void kmem_cache_free_wrong(struct kmem_cache *s, struct kmem_cache *t,
						  void *x, unsigned long caller)
{
	slab_free(free_wrong_cache(s, t, x), x, caller);
}

void *kmem_cache_alloc(struct kmem_cache *s, gfp_t flags)
{
	return slab_alloc(s, flags, 0);
}
EXPORT_SYMBOL(kmem_cache_alloc);

/* Nodes other than 0 have no memory: the kernel's fallback_alloc. */
static noinline void *slab_alloc_other_node(struct kmem_cache *s, gfp_t flags, int nodeid,
					    unsigned long caller)
{
	if (nodeid < 0 || nodeid >= MAX_NUMNODES) {
		slab_warn("mm/slab.c:kmem_cache_alloc_node",
			  "kmem_cache_alloc_node(%s): invalid node %d\n", s->name, nodeid);
		return NULL;
	}
	if (flags & __GFP_THISNODE) {
		slab_out_of_memory(s, flags, nodeid);
		return NULL;
	}
	return slab_alloc(s, flags, caller);
}

static __always_inline void *slab_alloc_node(struct kmem_cache *s, gfp_t flags, int nodeid,
					     unsigned long caller)
{
	if (likely(nodeid == NUMA_NO_NODE || nodeid == numa_mem_id()))
		return slab_alloc(s, flags, caller);
	return slab_alloc_other_node(s, flags, nodeid, slab_caller(caller));
}

void *kmem_cache_alloc_node(struct kmem_cache *s, gfp_t flags, int nodeid)
{
	return slab_alloc_node(s, flags, nodeid, 0);
}
EXPORT_SYMBOL(kmem_cache_alloc_node);

/* A red zone cache's object asked for at size bytes: after __GFP_ZERO's
 * memset, its redzone 2 moves to size (slab_debug.c §8). */
static noinline void *slab_alloc_orig_slow(struct kmem_cache *s, gfp_t flags, int nodeid,
					   unsigned long caller, size_t size)
{
	void *objp = slab_alloc_node(s, flags, nodeid, caller);

	if (objp && (s->flags & SLAB_RED_ZONE))
		slab_debug_kmalloc(s, objp, size);
	return objp;
}

/*
 * slab_alloc_node() of an object asked for at size bytes (kmalloc, the
 * malloc drop-in).  why one mask: SLAB_RED_ZONE joins the SLAB_ACCOUNT test
 * of memcg_slab_wants_charge() in one test of the flags word, so debug off
 * costs these paths nothing.
 */
static __always_inline void *slab_alloc_node_orig(struct kmem_cache *s, gfp_t flags, int nodeid,
						  unsigned long caller, size_t size)
{
	if (likely(nodeid == NUMA_NO_NODE || nodeid == numa_mem_id()) &&
	    likely(!(s->flags & (SLAB_ACCOUNT | SLAB_RED_ZONE))) && likely(!(flags & __GFP_ACCOUNT)))
		return slab_alloc_fast(s, flags, caller);
	/* why: an accounted kmalloc goes straight to the accounted fast path,
	 * without a frame of slab_alloc_orig_slow's */
	if (likely(!(s->flags & SLAB_RED_ZONE)))
		return slab_alloc_node(s, flags, nodeid, caller);
	return slab_alloc_orig_slow(s, flags, nodeid, slab_caller(caller), size);
}

void *kmem_cache_alloc_orig(struct kmem_cache *s, gfp_t flags, size_t size)
{
	return slab_alloc_node_orig(s, flags, NUMA_NO_NODE, 0, size);
}

void *kmem_cache_alloc_node_orig(struct kmem_cache *s, gfp_t flags, int node, size_t size)
{
	return slab_alloc_node_orig(s, flags, node, 0, size);
}

void kmem_cache_free(struct kmem_cache *s, void *objp)
{
	struct kmem_cache *t;
	struct slab *slab;

	if (unlikely(!objp))
		return;
	slab = virt_to_slab(objp);
	t = object_cache_checked(slab, objp, "kmem_cache_free");
	memcg_slab_free_hook(t, slab, objp);	/* to its own cache's group even if t != s */
	if (unlikely(t != s)) {
		kmem_cache_free_wrong(s, t, objp, _RET_IP_);
		return;
	}
	slab_free(s, objp, 0);
}
EXPORT_SYMBOL(kmem_cache_free);

/* All or nothing: n objects, or 0 with none allocated. */
int kmem_cache_alloc_bulk(struct kmem_cache *s, gfp_t flags, size_t nr, void **p)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		p[i] = slab_alloc(s, flags & ~__GFP_ZERO, 0);
		if (unlikely(!p[i])) {
			kmem_cache_free_bulk(s, i, p);
			return 0;
		}
	}
	if (unlikely(flags & __GFP_ZERO))
		for (i = 0; i < nr; i++)
			memset(p[i], 0, READ_ONCE(s->object_size));
	return (int)nr;
}
EXPORT_SYMBOL(kmem_cache_alloc_bulk);

void kmem_cache_free_bulk(struct kmem_cache *s, size_t nr, void **p)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (s)
			kmem_cache_free(s, p[i]);
		else
			kfree(p[i]);
	}
}
EXPORT_SYMBOL(kmem_cache_free_bulk);

/*
 * kmalloc's rare cases: no cache for the size (s is NULL or ZERO_SIZE_PTR),
 * or memcheck mode, where the slot handed out becomes a block of the size
 * asked for (memcheck.h §2), after __GFP_ZERO's memset of the whole slot.
 */
static noinline void *kmalloc_slow(struct kmem_cache *s, size_t size, gfp_t flags, int node,
				   unsigned long caller)
{
	void *objp;

	if (ZERO_OR_NULL_PTR(s))
		return s;
	objp = slab_alloc_node(s, flags, node, caller);
	if (objp)
		memcheck_kmalloc_resize(objp, READ_ONCE(s->object_size), size);
	return objp;
}

/* SLAB keeps kmalloc caches up to KMALLOC_MAX_CACHE_SIZE; larger fails. */
static __always_inline void *do_kmalloc_node(size_t size, gfp_t flags, int node,
					     unsigned long caller)
{
	struct kmem_cache *s;

	if (unlikely(size > KMALLOC_MAX_CACHE_SIZE))
		return NULL;
	slab_ensure_init();
	s = kmalloc_slab(size, flags);
	/* why memcheck here: it joins the one rare-case branch */
	if (unlikely(ZERO_OR_NULL_PTR(s) || memcheck_active()))
		return kmalloc_slow(s, size, flags, node, slab_caller(caller));
	return slab_alloc_node_orig(s, flags, node, caller, size);
}

void *__kmalloc(size_t size, gfp_t flags)
{
	return do_kmalloc_node(size, flags, NUMA_NO_NODE, 0);
}
EXPORT_SYMBOL(__kmalloc);

void *__kmalloc_node(size_t size, gfp_t flags, int node)
{
	return do_kmalloc_node(size, flags, node, 0);
}
EXPORT_SYMBOL(__kmalloc_node);

void kfree(const void *objp)
{
	struct folio *folio;
	struct kmem_cache *s;

	if (unlikely(ZERO_OR_NULL_PTR(objp)))
		return;
	if (unlikely(!virt_addr_valid(objp)))
		free_invalid_pointer("kfree", objp, "not in the arena");
	folio = virt_to_folio(objp);
	if (unlikely(!folio_test_slab(folio))) {
		free_large_kmalloc(folio, (void *)objp);	/* reports a non-kmalloc */
		return;
	}
	s = object_cache_checked(folio_slab(folio), objp, "kfree");
	memcg_slab_free_hook(s, folio_slab(folio), (void *)objp);
	slab_free(s, (void *)objp, 0);
}
EXPORT_SYMBOL(kfree);

size_t __ksize(const void *objp)
{
	struct slab *slab;

	if (unlikely(ZERO_OR_NULL_PTR(objp)))
		return 0;
	slab = virt_to_slab(objp);
	if (unlikely(!slab))
		free_invalid_pointer("ksize", objp, "not a slab object or large kmalloc");
	/* why: all of ksize may be used from now on (slab_debug.c §8) */
	if (unlikely(slab->slab_cache->flags & SLAB_RED_ZONE))
		kmalloc_set_orig_size(objp, READ_ONCE(slab->slab_cache->object_size));
	return READ_ONCE(slab->slab_cache->object_size);
}

/* ======================= shrink, shutdown, thread exit ======================= */

static void drain_shared_arrays(struct kmem_cache *s)
{
	struct kmem_cache_node *n;
	int node;
	LIST_HEAD(list);

	for_each_kmem_cache_node(s, node, n) {
		spin_lock(&n->list_lock);
		drain_array_locked(s, n->shared, node, true, &list);
		spin_unlock(&n->list_lock);
		slabs_destroy(s, &list);
	}
}

/* Free every free slab; 1 if slabs with objects in use remain. */
static int shrink_nodes(struct kmem_cache *s)
{
	struct kmem_cache_node *n;
	int node, ret = 0;

	for_each_kmem_cache_node(s, node, n) {
		drain_freelist(s, n, ULONG_MAX);
		spin_lock(&n->list_lock);
		ret += !list_empty(&n->slabs_full) || !list_empty(&n->slabs_partial);
		spin_unlock(&n->list_lock);
	}
	return ret ? 1 : 0;
}

/*
 * What shrink can release: the calling CPU's array, the shared arrays and
 * every free slab.  What it cannot: the arrays of other live threads (only
 * their owners may touch them; they give them back at their next reap, at
 * exit, or at kmem_cache_destroy).  The pages of a SLAB_TYPESAFE_BY_RCU
 * cache's slabs come back after a grace period (§6).
 */
int __kmem_cache_shrink(struct kmem_cache *s)
{
	struct kmem_cache_cpu *c = this_cpu_ptr_or_null(s->cpu_cache);

	if (c)
		drain_array_all(s, c->ac);
	drain_shared_arrays(s);
	return shrink_nodes(s);
}

/* The caller guarantees nobody uses s any more: every CPU's array drains. */
int __kmem_cache_shutdown(struct kmem_cache *s)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		drain_array_all(s, per_cpu_ptr(s->cpu_cache, cpu)->ac);
	drain_shared_arrays(s);
	return shrink_nodes(s);
}

void __kmem_cache_release(struct kmem_cache *s)
{
	struct kmem_cache_node *n;
	unsigned int cpu;
	int node;

	kfree(s->random_seq);
	s->random_seq = NULL;
	if (s->cpu_cache) {
		for_each_possible_cpu(cpu) {
			kfree(per_cpu_ptr(s->cpu_cache, cpu)->ac);
			per_cpu_ptr(s->cpu_cache, cpu)->ac = NULL;
		}
		free_percpu(s->cpu_cache);
		s->cpu_cache = NULL;
	}
	for_each_kmem_cache_node(s, node, n) {
		kfree(n->shared);
		if (!is_boot_node(n))
			kfree(n);
		s->node[node] = NULL;
	}
}

/*
 * CPUHP_SLAB_DEAD: the thread of CPU @cpu exits (this runs on it).  Its
 * arrays go back to the slabs and are freed, so the next thread to get the
 * id starts with none.  With slab_no_array set, what this frees (the
 * arrays themselves, off-slab freelists) goes to the node lists directly
 * once a cache's array is gone.
 */
static void slab_cpu_dead(unsigned int cpu)
{
	struct kmem_cache_cpu *c;
	struct array_cache *ac;
	struct kmem_cache *s;

	slab_no_array++;
	mutex_lock(&slab_mutex);
	list_for_each_entry(s, &slab_caches, list) {
		c = per_cpu_ptr(s->cpu_cache, cpu);
		ac = c->ac;
		if (!ac)
			continue;
		c->ac = NULL;
		drain_array_all(s, ac);
		kfree(ac);
	}
	mutex_unlock(&slab_mutex);
	slab_no_array--;
}

/* ======================= tuning and slabinfo ======================= */

static struct kmem_cache *find_cache_locked(const char *name)
{
	struct kmem_cache *s;

	list_for_each_entry(s, &slab_caches, list)
		if (!strcmp(s->name, name))
			return s;
	return NULL;
}

/*
 * "name limit batchcount shared" (the /proc/slabinfo write).  Returns 0
 * when the line was applied or, as the kernel does, silently ignored for
 * values out of range (limit < 1, batchcount < 1 or > limit, shared < 0);
 * -EINVAL for a malformed line or an unknown cache; -ENOMEM if the arrays
 * cannot be had.  The kernel's write returns the byte count instead of 0.
 */
int slabinfo_write_line(const char *line)
{
	char kbuf[MAX_SLABINFO_WRITE + 1], *tmp;
	int limit, batchcount, shared, res = -EINVAL;
	struct kmem_cache *s;

	if (!line || strlen(line) > MAX_SLABINFO_WRITE)
		return -EINVAL;
	strcpy(kbuf, line);
	tmp = strchr(kbuf, ' ');
	if (!tmp)
		return -EINVAL;
	*tmp++ = '\0';
	if (sscanf(tmp, " %d %d %d", &limit, &batchcount, &shared) != 3)
		return -EINVAL;
	slab_ensure_init();
	mutex_lock(&slab_mutex);
	s = find_cache_locked(kbuf);
	if (s) {
		if (limit < 1 || batchcount < 1 || batchcount > limit || shared < 0)
			res = 0;
		else
			res = do_tune_cpucache(s, (unsigned int)limit, (unsigned int)batchcount,
					       (unsigned int)shared);
	}
	mutex_unlock(&slab_mutex);
	return res;
}

void get_slabinfo(struct kmem_cache *s, struct slabinfo *sinfo)
{
	unsigned long total_slabs = 0, free_slabs = 0, free_objs = 0, shared_avail = 0;
	struct kmem_cache_node *n;
	int node;

	for_each_kmem_cache_node(s, node, n) {
		spin_lock(&n->list_lock);
		total_slabs += n->total_slabs;
		free_slabs += n->free_slabs;
		free_objs += n->free_objects;
		if (n->shared)
			shared_avail += n->shared->avail;
		spin_unlock(&n->list_lock);
	}
	sinfo->num_objs = total_slabs * s->num;
	sinfo->active_slabs = total_slabs - free_slabs;
	sinfo->num_slabs = total_slabs;
	/* objects in CPU and shared arrays count as active, as in the kernel */
	sinfo->active_objs = sinfo->num_objs - free_objs;
	sinfo->shared_avail = shared_avail;
	sinfo->limit = s->limit;
	sinfo->batchcount = s->batchcount;
	sinfo->shared = s->shared;
	sinfo->objects_per_slab = s->num;
	sinfo->cache_order = s->gfporder;
}

/*
 * Counts for stats.c (the kernel's /sys/kernel/slab files, which SLAB never
 * had).  A CPU holds objects in its array, never a slab, so cpu_slabs is 0;
 * SLUB's partial-list tunables have no SLAB counterpart (CACHE_STAT_NONE).
 */
void get_cache_stats(struct kmem_cache *s, struct cache_stats *st)
{
	unsigned long slabs = 0, free_objs = 0, partial = 0, partial_inuse = 0;
	struct kmem_cache_node *n;
	struct slab *slab;
	int node;

	for_each_kmem_cache_node(s, node, n) {
		spin_lock(&n->list_lock);
		slabs += n->total_slabs;
		free_objs += n->free_objects;
		list_for_each_entry(slab, &n->slabs_partial, slab_list) {
			partial++;
			partial_inuse += slab->active;
		}
		spin_unlock(&n->list_lock);
	}
	st->objs_per_slab = s->num;
	st->order = s->gfporder;
	st->slabs = slabs;
	st->total_objects = slabs * s->num;
	st->objects = st->total_objects - free_objs;
	st->partial = partial;
	st->objects_partial = partial_inuse;
	st->cpu_slabs = 0;
	st->min_partial = st->cpu_partial = st->slabs_cpu_partial = CACHE_STAT_NONE;
}

/* globalstat and cpustat columns, with the slab_stats option. */
void slabinfo_show_stats(FILE *f, struct kmem_cache *s)
{
	struct kmem_cache_node *n = get_node(s, 0);
	unsigned long hit = 0, miss = 0, fhit = 0, fmiss = 0;
	struct slab_global_stats st;
	struct kmem_cache_cpu *c;
	unsigned int cpu;

	if (!slab_stats)
		return;
	spin_lock(&n->list_lock);
	st = s->stats;
	spin_unlock(&n->list_lock);
	fprintf(f, " : globalstat %7lu %6lu %5lu %4lu %4lu %4lu %4lu %4lu %4lu",
		st.num_allocations, st.high_mark, st.grown, st.reaped, st.errors,
		st.max_freeable, st.node_allocs, st.node_frees, st.node_overflow);
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(s->cpu_cache, cpu);
		hit += READ_ONCE(c->allochit);
		miss += READ_ONCE(c->allocmiss);
		fhit += READ_ONCE(c->freehit);
		fmiss += READ_ONCE(c->freemiss);
	}
	fprintf(f, " : cpustat %6lu %6lu %6lu %6lu", hit, miss, fhit, fmiss);
}

/* ======================= cache creation and merging ======================= */

/* Creation flags plus what slub_debug= / slab_debug= give this cache. */
slab_flags_t kmem_cache_flags(unsigned int object_size, slab_flags_t flags, const char *name)
{
	(void)object_size;
	return slab_debug_cache_flags(name, flags);
}

struct kmem_cache *__kmem_cache_alias(const char *name, unsigned int size, unsigned int align,
				      slab_flags_t flags, void (*ctor)(void *))
{
	struct kmem_cache *s = find_mergeable(size, align, flags, name, ctor);

	if (s) {
		s->refcount++;
		/* kzalloc of the new user must clear the whole object */
		WRITE_ONCE(s->object_size, max(s->object_size, size));
	}
	return s;
}

/*
 * Lay out a cache created by slab_common (name, size = object_size,
 * align, ctor set): debug flags, slot size, freelist placement and slab
 * order, colours, then the per-CPU slots, node structures and tunables.
 */
int __kmem_cache_create(struct kmem_cache *s, slab_flags_t flags)
{
	unsigned int size;
	long placement;
	int err;

	flags = kmem_cache_flags(s->object_size, flags, s->name);
	size = slab_slot_size(s, &flags);
	placement = slab_place_freelist(s, size, flags);
	if (placement < 0)
		return (int)placement;
	flags |= (slab_flags_t)placement;
	s->freelist_size = s->num * (unsigned int)sizeof(freelist_idx_t);
	s->flags = flags;
	s->allocflags = slab_allocflags(flags);
	s->size = size;
	s->reciprocal_buffer_size = reciprocal_value(size);
	if (OFF_SLAB(s))
		s->freelist_cache = kmalloc_slab(s->freelist_size, 0);
	err = setup_cpu_cache(s);
	if (err) {
		__kmem_cache_release(s);
		return err;
	}
	return 0;
}

/* ======================= fork ======================= */

/* Every cache's list_locks (slab_mutex is held: the cache list is stable). */
static void slab_fork_each(void (*fn)(spinlock_t *))
{
	struct kmem_cache_node *n;
	struct kmem_cache *s;
	int node;

	list_for_each_entry(s, &slab_caches, list)
		for_each_kmem_cache_node(s, node, n)
			fn(&n->list_lock);
}

static void slab_fork_prepare(void)
{
	slab_fork_each(spin_lock);
}

/* Parent and child alike: the forking thread took every lock in prepare
 * (and is the child's only thread), so it releases them. */
static void slab_fork_release(void)
{
	slab_fork_each(spin_unlock);
}

static const struct fork_hooks slab_fork_hooks = {
	.prepare = slab_fork_prepare,
	.parent = slab_fork_release,
	.child = slab_fork_release,
};

/*
 * Registered at load time, not in kmem_cache_init: that runs under
 * slab_init_mutex, which fork's prepare takes after fork_registry_lock, so
 * registering from there could deadlock with a concurrent fork.  Before
 * the bring-up slab_caches is empty and the hooks do nothing.
 */
static void __attribute__((constructor)) slab_fork_constructor(void)
{
	fork_hooks_register(&slab_fork_hooks, FORK_RANK_CACHE);
}

/* ======================= bring-up ======================= */

/* Move a boot cache's node structure into kmalloc memory. */
static void init_list(struct kmem_cache *s, struct kmem_cache_node *list, int nodeid)
{
	struct kmem_cache_node *n = __kmalloc_node(sizeof(*n), GFP_NOWAIT, nodeid);

	if (!n)
		slab_panic("SLAB: no memory for the node structure of %s\n", s->name);
	spin_lock(&list->list_lock);
	kmem_cache_node_init(n);
	list_splice_init(&list->slabs_full, &n->slabs_full);
	list_splice_init(&list->slabs_partial, &n->slabs_partial);
	list_splice_init(&list->slabs_free, &n->slabs_free);
	n->total_slabs = list->total_slabs;
	n->free_slabs = list->free_slabs;
	n->free_objects = list->free_objects;
	n->free_limit = list->free_limit;
	n->colour_next = list->colour_next;
	n->shared = list->shared;
	n->next_reap = list->next_reap;
	n->free_touched = list->free_touched;
	s->node[nodeid] = n;
	spin_unlock(&list->list_lock);
}

/* The kernel's kmem_cache_init_late: real tunables, shared arrays and
 * freelist permutations for every cache made while booting. */
static void kmem_cache_init_late(void)
{
	struct kmem_cache *s;

	mutex_lock(&slab_mutex);
	list_for_each_entry(s, &slab_caches, list)
		if (enable_cpucache(s))
			slab_panic("SLAB: cannot enable the CPU caches of %s\n", s->name);
	WRITE_ONCE(slab_state, FULL);
	mutex_unlock(&slab_mutex);
}

/* Option defaults that depend on the machine and the memory map. */
static void slab_setup_limits(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long memory = memmap.arena_end - memmap.arena_start;

	slab_nr_cpus = cpus > 1 ? (unsigned int)cpus : 1;
	if (!slab_max_order_set && memory > (32UL << 20))
		slab_max_order = SLAB_MAX_ORDER_HI;
	slab_max_order = min(slab_max_order, MAX_ORDER - 1);
	slab_reap_cpu = alloc_percpu(struct slab_reap_cpu);
	if (!slab_reap_cpu)
		slab_panic("SLAB: no per-CPU memory for the reaper\n");
}

/*
 * Bootstrap, as 5.17: the kmem_cache cache on a static node structure
 * (DOWN), the kmalloc cache of node structures on a second one (PARTIAL),
 * then every other node structure is kmalloc'd (PARTIAL_NODE) and the two
 * static ones are moved into kmalloc memory; then the kmalloc caches (UP)
 * and the late step that sizes the CPU caches (FULL).
 */
void kmem_cache_init(void)
{
	static struct kmem_cache kmem_cache_boot;
	struct kmem_cache *node_cache;
	int i, index_node = kmalloc_index(sizeof(struct kmem_cache_node));

	slab_setup_limits();
	for (i = 0; i < NUM_INIT_LISTS; i++)
		kmem_cache_node_init(&init_kmem_cache_node[i]);
	kmem_cache = &kmem_cache_boot;
	create_boot_cache(kmem_cache, "kmem_cache",
			  offsetof(struct kmem_cache, node) + nr_node_ids * sizeof(struct kmem_cache_node *),
			  SLAB_HWCACHE_ALIGN, 0, 0);
	list_add(&kmem_cache->list, &slab_caches);
	WRITE_ONCE(slab_state, PARTIAL);
	node_cache = create_kmalloc_cache(kmalloc_info[index_node].name[KMALLOC_NORMAL],
					  kmalloc_info[index_node].size, ARCH_KMALLOC_FLAGS, 0,
					  kmalloc_info[index_node].size);
	kmalloc_caches[KMALLOC_NORMAL][index_node] = node_cache;
	WRITE_ONCE(slab_state, PARTIAL_NODE);
	setup_kmalloc_cache_index_table();
	for (i = 0; i < nr_node_ids; i++) {
		init_list(kmem_cache, &init_kmem_cache_node[CACHE_CACHE + i], i);
		init_list(node_cache, &init_kmem_cache_node[SIZE_NODE + i], i);
	}
	create_kmalloc_caches(ARCH_KMALLOC_FLAGS);
	kmem_cache_init_late();
	cpuhp_setup_state(CPUHP_SLAB_DEAD, slab_cpu_dead);
}
