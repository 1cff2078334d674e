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
 *    struct kmem_cache_cpu   (slab_internal.h) the per-CPU slot: a
 *                            pointer to this CPU's array_cache (NULL until
 *                            its first slow path) and the cpustat counters.
 *    struct array_cache      avail, limit, batchcount, touched, bottom (a
 *                            NULL word below entry[0]), entry[].  A CPU's
 *                            array is a kmalloc object, sized by the
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
 *    double free) is reported (CONFIG_SLAB_FREELIST_HARDENED: the fast
 *    path's one test compares the top too, and cache_free_slow reports
 *    before anything can move the top; an array's word below entry[0] is
 *    NULL, so an empty one needs no test of its own), and so is an
 *    object freed back into a slab that already holds it free (free_block
 *    looks for its index among the slab's free ones before it writes);
 *    under slab_error=repair either second free is dropped.  An index read
 *    from a freelist must name an object of the slab, or the freelist was
 *    overwritten (report and abort).  New slabs get their freelist in a
 *    per-cache random order from a random start
 *    (CONFIG_SLAB_FREELIST_RANDOM); OBJFREELIST slabs also keep the array in
 *    a random object.  Reports and their words live in slab_debug.c.
 *
 * 9. Files.  slab.c is the allocator: slab pages, their freelists and
 *    random order, growing, objects in and out of slabs, the array caches,
 *    the node lists used directly, reaping, and the alloc and free paths.
 *    slab_cache.c handles caches as wholes: the options, geometry (slot
 *    size, freelist placement, order, colours), node structures and
 *    tunables, the random sequence, shrink, shutdown and thread exit,
 *    slabinfo and its tuning writes, creation and merging, fork and the
 *    bring-up.  slab_debug.c is debugging, the misuse reports and the
 *    memcheck hooks.  slab_internal.h holds what slab.c and slab_cache.c
 *    share; slab_def.h the types.
 */
#include <string.h>
#include "slab_internal.h"
#include "memcheck.h"
#include "memcontrol.h"
#include "os/os.h"
#include "slab_debug.h"
#include "track.h"

const char *const allocator_name = "slab";

/* Byte indexes (slab_def.h) need 16-byte objects in 4 KiB pages. */
BUILD_BUG_ON((PAGE_SIZE >> 8) > SLAB_OBJ_MIN_SIZE);

#define BATCHREFILL_LIMIT	16	/* refill of an untouched array */

/* gfp bits that reach the page allocator for a new slab. */
#define GFP_RECLAIM_MASK	(__GFP_RECLAIM | __GFP_HIGH | __GFP_IO | __GFP_FS | \
				 __GFP_NOWARN | __GFP_RETRY_MAYFAIL | __GFP_NOFAIL | \
				 __GFP_NORETRY | __GFP_MEMALLOC | __GFP_NOMEMALLOC)
#define GFP_CONSTRAINT_MASK	(__GFP_HARDWALL | __GFP_THISNODE)

/* Per CPU, for all caches: when this CPU reaps next (slab_internal.h). */
struct slab_reap_cpu __percpu *slab_reap_cpu;

/*
 * Set while this thread sets up or drops an array, or tears its CPU down:
 * its slow paths then take the node lists directly and set up no array,
 * which ends the recursion "an array is a kmalloc object, kmalloc needs an
 * array".
 */
__thread unsigned int slab_no_array __attribute__((tls_model("initial-exec")));

/* ======================= small helpers ======================= */

static inline bool time_after(unsigned long a, unsigned long b)
{
	return (long)(b - a) < 0;
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

/* The generator's state (slab_random, slab_internal.h). */
static __thread unsigned long slab_rand_state __attribute__((tls_model("initial-exec")));

unsigned int slab_random(void)
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

/* ======================= freelist randomisation ======================= */

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
void slabs_destroy(struct kmem_cache *s, struct list_head *list)
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

/*
 * Move up to batchcount objects of slab into ac (a CPU array); returns
 * what is left to take.  With slot words, each gets its object's slot
 * while the slab is at hand (slab_def.h's invariant).
 */
static unsigned int alloc_block(struct kmem_cache *s, struct array_cache *ac,
				struct slab *slab, unsigned int batchcount)
{
	struct slab_objcgs *v = ac_slots(ac) ? slab_objcgs(slab) : NULL;
	void *objp;

	while (slab->active < s->num && batchcount) {
		objp = slab_get_obj(s, slab);
		if (ac_slots(ac))
			ac_slots(ac)[ac->avail] = v ? &v->objcgs[slab_objcgs_index(v, objp)] : NULL;
		ac->entry[ac->avail++] = objp;
		batchcount--;
	}
	return batchcount;
}

/*
 * Give nr objects back to their slabs (list_lock held).  Slabs that become
 * free beyond the node's free_limit are moved to @list, for the caller to
 * destroy after dropping the lock.
 */
void free_block(struct kmem_cache *s, void **objpp, unsigned int nr, int node,
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
 * Does s's CPU array carry slot words (slab_def.h)?  A SLAB_ACCOUNT cache
 * without debug hooks: the caches whose accounted fast paths read them.
 * Constant for a cache (both flags are set at creation).
 */
static inline bool ac_wants_slots(const struct kmem_cache *s)
{
	return (s->flags & (SLAB_ACCOUNT | CFLGS_DEBUG_HOOKS)) == SLAB_ACCOUNT;
}

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

/* The oldest n entries of ac left it: move the rest down, with their
 * slot words (slab_def.h). */
static void ac_drop_oldest(struct array_cache *ac, unsigned int n)
{
	ac->avail -= n;
	memmove(ac->entry, &ac->entry[n], sizeof(void *) * ac->avail);
	if (ac_slots(ac))
		memmove(ac_slots(ac), &ac_slots(ac)[n], sizeof(void *) * ac->avail);
	ac_erase_vacated(ac, ac->avail + n);
}

/* Move up to max of from's newest entries onto to; returns how many. */
static unsigned int transfer_objects(struct array_cache *to, struct array_cache *from,
				     unsigned int max)
{
	unsigned int nr = min(min(from->avail, max), to->limit - to->avail);

	if (!nr)
		return 0;
	memcpy(to->entry + to->avail, from->entry + from->avail - nr, sizeof(void *) * nr);
	if (ac_slots(to))	/* slots not known (slab_def.h) */
		memset(ac_slots(to) + to->avail, 0, sizeof(void *) * nr);
	from->avail -= nr;
	ac_erase_vacated(from, from->avail + nr);
	to->avail += nr;
	return nr;
}

/* Free the oldest entries of ac (all, or a reaper's fifth); list_lock held. */
void drain_array_locked(struct kmem_cache *s, struct array_cache *ac, int node,
			bool free_all, struct list_head *list)
{
	unsigned int tofree;

	if (!ac || !ac->avail)
		return;
	tofree = free_all ? ac->avail : (ac->limit + 4) / 5;
	if (tofree > ac->avail)
		tofree = (ac->avail + 1) / 2;
	free_block(s, ac->entry, tofree, node, list);
	ac_drop_oldest(ac, tofree);
}

/* Give every entry of ac back to its slabs (no lock held). */
void drain_array_all(struct kmem_cache *s, struct array_cache *ac)
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
	ac = alloc_arraycache(t >> 32, (unsigned int)t, ac_wants_slots(s));
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
	ac_drop_oldest(ac, batchcount);
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
unsigned long drain_freelist(struct kmem_cache *s, struct kmem_cache_node *n,
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

/*
 * The top entry of ac, or NULL if it is empty: entry[avail - 1], where
 * entry[-1] is ac->bottom.  why through the allocation's bytes: the index
 * -1 of entry[] would be undefined, the word below it is not; one load,
 * no test of avail (the compiler folds the -1 into the displacement).
 */
static __always_inline void *ac_top(const struct array_cache *ac)
{
	const char *base = (const char *)ac + offsetof(struct array_cache, bottom);

	return *(void *const *)(base + (size_t)ac->avail * sizeof(void *));
}

/*
 * CONFIG_SLAB_FREELIST_HARDENED: is objp the object on top of ac, freed just
 * before (the naive double free)?  objp is never NULL; the empty top is.
 */
static __always_inline bool ac_top_is(const struct array_cache *ac, const void *objp)
{
	return CONFIG_SLAB_FREELIST_HARDENED && ac_top(ac) == objp;
}

/* Push objp; the caller made sure there is room, and wrote its slot word
 * if ac has them (ac_push). */
static __always_inline void __free_one(struct array_cache *ac, void *objp)
{
	ac->entry[ac->avail++] = objp;
}

/* Push objp, whose vector slot is slot (NULL: not known), onto a CPU
 * array with room: __free_one keeping slab_def.h's slots invariant. */
static __always_inline void ac_push(struct array_cache *ac, void *objp, void *slot)
{
	if (ac_slots(ac))
		ac_slots(ac)[ac->avail] = slot;
	__free_one(ac, objp);
}

static noinline void cache_free_slow(struct kmem_cache *s, void *objp)
{
	struct kmem_cache_cpu *c = this_cpu_ptr_or_null(s->cpu_cache);
	struct array_cache *ac;

	/* why before anything else: a flush (all of a one-entry array, the
	 * default above 128 KiB), a reap or a refresh below may take the first
	 * copy off the top, and the second would then get in */
	if (c && c->ac && unlikely(ac_top_is(c->ac, objp))) {
		naive_double_free(s, objp);
		return;		/* slab_error=repair: the second free is dropped */
	}
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
	ac_push(ac, objp, NULL);
}

/*
 * Call tree (the fast paths are inlined into the exported functions):
 *
 *   kmem_cache_alloc / _node / __kmalloc(_node) / kmem_cache_alloc_bulk
 *     slab_alloc             pop this CPU's array                 [fast]
 *       slab_alloc_memcg     __GFP_ACCOUNT or SLAB_ACCOUNT: charge the
 *                            memory cgroup, pop, record (memcontrol.h);
 *                            without a call if the stock pays and the
 *                            array's slot word knows the object's slot
 *         slab_alloc_memcg_page  the same, the slot found from the page
 *         slab_alloc_memcg_slow  charge, allocate, record by calls
 *       cache_alloc_slow     reap_tick; no CPU array yet, stale or empty
 *         cpu_array_refresh  (re)size this CPU's array to the tunables
 *         cache_alloc_refill shared array -> partial -> free slabs -> grow
 *         cache_alloc_node   no CPU id: one object under list_lock
 *     cache_alloc_debugcheck_after  debug and memcheck caches (slab_debug.c)
 *   kmem_cache_free / kfree / kmem_cache_free_bulk
 *     object_cache_checked   the pointer is an object start of a slab
 *       kmem_cache_free_wrong  of another cache: report, never followed
 *     slab_free_checked      a charged object: uncharge into the stock
 *                            (memcontrol.h) by the index the check
 *                            found; push with its slot word      [fast]
 *       slab_free_uncharge_slow  the stock cannot take it: full hook
 *     slab_free              push onto this CPU's array (rare paths)
 *       cache_free_debugcheck  debug and memcheck caches (slab_debug.c)
 *       cache_free_slow      the object on top already: report (naive
 *                            double free); reap_tick; array full:
 *                            cache_flusharray (shared array or
 *                            free_block); no CPU id: cache_free_node
 *
 * Budget.  alloc: one TLS load, the cache's slot offset, the array
 * pointer, avail test, one load and two stores, a test of the gfp flags.
 * free: the same to find the array, the top entry compared in the same
 * test as avail (naive double free), one store and avail.  No lock, no
 * atomic read-modify-write,
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

static noinline void *slab_alloc_memcg_page(struct kmem_cache *s, gfp_t flags,
					    unsigned long caller);

/*
 * The accounted fast path: the thread has a group whose stock on this CPU
 * pays for the object, the array has one, and the object's slot in its
 * slab's vector is known; no debug hooks, no statistics.  Then the object
 * is popped as slab_alloc_fast pops it and recorded in the vector.  No
 * atomic, no call but tail calls, no register to save (caller goes only
 * to the slow forms).  by_slots: the slot comes from the array's slot
 * word (slab_def.h), and where that is not known, the path starts over
 * in slab_alloc_memcg_page; else from the object's page (memcg_obj_slot).
 */
static __always_inline void *slab_alloc_memcg_body(struct kmem_cache *s, gfp_t flags,
						   unsigned long caller, bool by_slots)
{
	struct kmem_cache_cpu *c = this_cpu_ptr_or_null(s->cpu_cache);
	struct obj_stock *stock = this_obj_stock;
	struct obj_cgroup **slot;
	struct array_cache *ac;
	unsigned int avail, top;
	void *objp;

	if (unlikely(!c) || unlikely(!obj_stock_caches(stock, active_objcg)))
		goto slow;
	ac = c->ac;
	if (unlikely(!ac) || unlikely(!ac->avail) || unlikely(s->flags & CFLGS_DEBUG_HOOKS) ||
	    unlikely(slab_stats))
		goto slow;
	top = ac->avail - 1;
	objp = ac->entry[top];
	if (by_slots) {
		/* none: a plain cache charged by __GFP_ACCOUNT; NULL: not known */
		if (unlikely(!ac->has_slots) || unlikely(!(slot = ac_slots(ac)[top])))
			goto page;
	} else {
		slot = memcg_obj_slot(objp);
		if (unlikely(!slot))
			goto slow;	/* the slab has no vector yet */
	}
	avail = stock->nr_bytes;
	if (unlikely(avail < obj_full_size(s)))
		goto slow;
	ac->touched = 1;
	ac->avail = top;
	WRITE_ONCE(stock->nr_bytes, avail - obj_full_size(s));
	/* why the stock's objcg read again, not active_objcg kept: one
	 * register fewer, and the path then saves none on the stack */
	WRITE_ONCE(*slot, READ_ONCE(stock->cached_objcg));
	if (unlikely(flags & __GFP_ZERO))
		return memset(objp, 0, READ_ONCE(s->object_size));	/* a tail call */
	return objp;
slow:
	return slab_alloc_memcg_slow(s, flags, caller);
page:
	return slab_alloc_memcg_page(s, flags, caller);
}

/* The accounted fast path, the slot found from the object's page. */
static noinline void *slab_alloc_memcg_page(struct kmem_cache *s, gfp_t flags,
					    unsigned long caller)
{
	return slab_alloc_memcg_body(s, flags, caller, false);
}

/* The accounted fast path, the slot from the array's slot word. */
static noinline void *slab_alloc_memcg(struct kmem_cache *s, gfp_t flags, unsigned long caller)
{
	return slab_alloc_memcg_body(s, flags, caller, true);
}

static __always_inline void *slab_alloc(struct kmem_cache *s, gfp_t flags, unsigned long caller)
{
	if (memcg_slab_wants_charge(s, flags))	/* __GFP_ACCOUNT or SLAB_ACCOUNT */
		return slab_alloc_memcg(s, flags, slab_caller(caller));
	return slab_alloc_fast(s, flags, caller);
}

/*
 * Push a slot onto this CPU's array.  One test rejects every rare case: no
 * array, a full one, and the slot already on top, which cache_free_slow
 * reports.  why the top in this test and not in a branch of its own with
 * its report: measured against no check (an AMD EPYC guest, same process,
 * interleaved), that form cost up to 20% per alloc+free pair in the
 * machine's fast phases, this one up to 7%, and both 0-5% otherwise.
 */
/*
 * How a push knows whether the array has slot words (slab_def.h): the fast
 * paths know it from the flags they tested (none, or some), the rest look.
 */
enum ac_slots_known { AC_NO_SLOTS, AC_SLOTS, AC_SLOTS_LOOK };

/* slot: objp's vector slot, or NULL (not known, or no vector). */
static __always_inline void cache_free_to_array(struct kmem_cache *s, void *objp, void *slot,
						enum ac_slots_known known)
{
	struct kmem_cache_cpu *c = this_cpu_ptr_or_null(s->cpu_cache);
	struct array_cache *ac;

	if (likely(c) && likely((ac = c->ac) != NULL) && likely(ac->avail < ac->limit) &&
	    likely(!ac_top_is(ac, objp))) {
		if (unlikely(slab_stats))
			stat_add(&c->freehit);
		if (known == AC_SLOTS)	/* ac_wants_slots(s): its CPU array has them */
			ac_slots(ac)[ac->avail] = slot;
		else if (known == AC_SLOTS_LOOK && ac_slots(ac))
			ac_slots(ac)[ac->avail] = slot;
		__free_one(ac, objp);
		return;
	}
	cache_free_slow(s, objp);
}

/* Out of line, so that the fast path keeps nothing live across the hook. */
static noinline void slab_free_debug(struct kmem_cache *s, void *objp, unsigned long caller)
{
	objp = cache_free_debugcheck(s, objp, caller);
	if (objp)	/* NULL: slab_error=repair dropped a double free */
		cache_free_to_array(s, objp, NULL, AC_SLOTS_LOOK);
}

/* The free of an object already uncharged, on the rare paths. */
static __always_inline void slab_free(struct kmem_cache *s, void *objp, unsigned long caller)
{
	if (unlikely(s->flags & CFLGS_DEBUG_HOOKS)) {
		slab_free_debug(s, objp, slab_caller(caller));
		return;
	}
	cache_free_to_array(s, objp, NULL, AC_SLOTS_LOOK);
}

/*
 * x must be an object start of a slab: returns the cache it belongs to,
 * and the object's index in its slab in *idxp.  Not an object: report and
 * abort.
 */
static __always_inline struct kmem_cache *object_cache_checked(struct slab *slab, const void *x,
							       const char *fn, unsigned int *idxp)
{
	struct kmem_cache *t;
	unsigned long off;
	unsigned int idx;

	if (unlikely(!slab))
		free_invalid_pointer(fn, x, "not a slab object");
	t = slab->slab_cache;
	off = (unsigned long)x - (unsigned long)slab->s_mem - t->obj_offset;
	idx = reciprocal_divide((unsigned int)off, t->reciprocal_buffer_size);
	if (unlikely(off >= (unsigned long)t->num * t->size || idx * t->size != off))
		free_bad_object(t, slab, x);
	*idxp = idx;
	return t;
}

/*
 * The vector slot of object idx of slab, NULL if the slab has no vector.
 * why idx from object_cache_checked: it is the vector's own index,
 * (x - s_mem) / size (memcontrol.c), since obj_offset < size; this spares
 * slab_objcgs_index's loads and multiply.
 */
static __always_inline struct obj_cgroup **slab_obj_slot(const struct slab *slab,
							 unsigned int idx)
{
	unsigned long data = smp_load_acquire(&slab->memcg_data);

	return unlikely(data) ? &memcg_data_slots(data)[idx] : NULL;
}

/* A charged object whose bytes this CPU's stock cannot take: the full
 * hook, then the free.  Out of line and reached by a tail call, so that
 * the fast paths keep no frame. */
static noinline void slab_free_uncharge_slow(struct kmem_cache *s, struct slab *slab, void *objp,
					     unsigned long caller)
{
	__memcg_slab_free_hook(s, slab, objp);
	slab_free(s, objp, caller);
}

/*
 * Free object objp, index idx of slab, of s (checked): uncharge it if it
 * was charged (memcontrol.h), then push it.  A SLAB_ACCOUNT cache pushes
 * its slot with it (slab_def.h); others pay one test of slab->memcg_data
 * and the test of s->flags that debug hooks needed anyway.
 */
static __always_inline void slab_free_checked(struct kmem_cache *s, struct slab *slab,
					      void *objp, unsigned int idx, unsigned long caller)
{
	struct obj_cgroup **slot = slab_obj_slot(slab, idx);

	if (unlikely(slot) && unlikely(!memcg_slot_uncharge_fast(s, slot))) {
		slab_free_uncharge_slow(s, slab, objp, slab_caller(caller));
		return;
	}
	if (likely(!(s->flags & (SLAB_ACCOUNT | CFLGS_DEBUG_HOOKS)))) {
		cache_free_to_array(s, objp, NULL, AC_NO_SLOTS);
		return;
	}
	if (unlikely(s->flags & CFLGS_DEBUG_HOOKS)) {
		slab_free_debug(s, objp, slab_caller(caller));
		return;
	}
	cache_free_to_array(s, objp, slot, AC_SLOTS);
}

/* kmem_cache_free(s, x) of object idx of slab, of cache t: reported; under
 * slab_error=repair uncharged to its own cache's group and freed to t,
 * never to s. */
static noinline __cold void kmem_cache_free_wrong(struct kmem_cache *s, struct kmem_cache *t,
						  struct slab *slab, void *x, unsigned int idx,
						  unsigned long caller)
{
	t = free_wrong_cache(s, t, x);
	slab_free_checked(t, slab, x, idx, caller);
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
	unsigned int idx;

	if (unlikely(!objp))
		return;
	slab = virt_to_slab(objp);
	t = object_cache_checked(slab, objp, "kmem_cache_free", &idx);
	if (unlikely(t != s)) {
		kmem_cache_free_wrong(s, t, slab, objp, idx, _RET_IP_);
		return;
	}
	slab_free_checked(s, slab, objp, idx, 0);
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
	unsigned int idx;

	if (unlikely(ZERO_OR_NULL_PTR(objp)))
		return;
	if (unlikely(!virt_addr_valid(objp)))
		free_invalid_pointer("kfree", objp, "not in the arena");
	folio = virt_to_folio(objp);
	if (unlikely(!folio_test_slab(folio))) {
		free_large_kmalloc(folio, (void *)objp);	/* reports a non-kmalloc */
		return;
	}
	s = object_cache_checked(folio_slab(folio), objp, "kfree", &idx);
	slab_free_checked(s, folio_slab(folio), (void *)objp, idx, 0);
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

