// SPDX-License-Identifier: MIT
/*
 * slab_cache.c - SLAB's caches as wholes: options, geometry, node
 * structures and tunables, shrink and destruction, slabinfo, fork and the
 * bring-up.  How slabs and objects move is told in slab.c.
 *
 * 1. Overview.  __kmem_cache_create() lays a cache out as 5.17 does: the
 *    debug flags slub_debug= / slab_debug= give its name (kmem_cache_flags),
 *    the slot size (slab_slot_size, with slab_debug.c's words), where each
 *    slab keeps its freelist (slab_place_freelist: inside a free object,
 *    else in a kmalloc object, else at the end of the slab), the slab order
 *    (calculate_slab_order, steered by slab_max_order=) and the colours.
 *    setup_cpu_cache() then makes the per-CPU slots and node structures and
 *    sizes the tunables by object size (enable_cpucache), which also makes
 *    the cache's random freelist order.  A slabinfo write retunes a cache
 *    (do_tune_cpucache); shrink, shutdown and thread exit drain arrays and
 *    give free slabs back; kmem_cache_init() bootstraps the kmem_cache cache
 *    and the node-structure cache on static node structures, then the
 *    kmalloc caches.
 *
 * 2. Data structures: struct kmem_cache and struct kmem_cache_node
 *    (slab_def.h), struct kmem_cache_cpu (slab_internal.h), and the boot
 *    node structures init_kmem_cache_node[] below.
 *
 * 3. Lock order as in slab.c §4: slab_mutex (held by slab_common around
 *    creation and destruction, and here around tuning, reaping and thread
 *    exit) -> n->list_lock -> the page allocator's locks.  One list_lock at
 *    a time, and memory is freed only after it is dropped.
 *
 * 4. Invariants.  A cache is published (slab_caches) only after
 *    __kmem_cache_create() succeeded; the fields slab_def.h marks constant
 *    do not change afterwards.  The tunables change under slab_mutex and
 *    reach the CPUs through cpu_tunables: only a CPU's owner touches its
 *    array (shrink drains the caller's own; shutdown and release run when
 *    nobody uses the cache; slab_cpu_dead runs on the exiting thread).
 *
 * This file belongs to the SLAB build only: the build compiles every
 * source file for every allocator, so its body sits in one #if.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
#include "slab.h"

#if CONFIG_SLAB
#include "slab_internal.h"
#include "slab_debug.h"

#define BYTES_PER_WORD		sizeof(void *)
#define ARCH_KMALLOC_FLAGS	SLAB_HWCACHE_ALIGN

#define BOOT_CPUCACHE_ENTRIES	1	/* tunables of caches made while booting */
#define SLAB_MAX_ORDER_HI	1	/* default slab_max_order above 32 MiB of memory */
#define SLAB_MAX_ORDER_LO	0
#define MAX_SLABINFO_WRITE	128	/* longest slabinfo tuning line */
/* Most entries an array cache may have: it is one kmalloc object. */
#define MAX_ARRAY_ENTRIES	\
	((KMALLOC_MAX_CACHE_SIZE - sizeof(struct array_cache)) / sizeof(void *))

/* ======================= options ======================= */

static unsigned int slab_max_order = SLAB_MAX_ORDER_LO;
static bool slab_max_order_set;
unsigned long reaptimeout_ac = 2000;	/* ms: REAPTIMEOUT_AC */
bool slab_stats;			/* globalstat/cpustat counting */
static unsigned int slab_nr_cpus = 1;	/* online CPUs, read once at kmem_cache_init */

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

/* ======================= slab geometry ======================= */

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

/* An empty array cache of @entries pointers (a kmalloc object), with
 * as many slot words after them if @slots (slab_def.h). */
struct array_cache *alloc_arraycache(unsigned long entries, unsigned int batchcount, bool slots)
{
	struct array_cache *ac;

	if (entries > MAX_ARRAY_ENTRIES)
		return NULL;
	ac = __kmalloc(sizeof(*ac) + (slots ? 2 : 1) * entries * sizeof(void *),
		       GFP_KERNEL | __GFP_NOWARN);
	if (ac) {
		ac->avail = 0;
		ac->limit = (unsigned int)entries;
		ac->batchcount = batchcount;
		ac->touched = 0;
		ac->has_slots = slots;
		ac->bottom = NULL;
	}
	return ac;
}

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
		new_shared[node] = alloc_arraycache((unsigned long)shared * batchcount, batchcount,
						    false);
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

#endif /* CONFIG_SLAB */
