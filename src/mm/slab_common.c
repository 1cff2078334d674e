// SPDX-License-Identifier: MIT
/*
 * slab_common.c - the slab layer's allocator-neutral half: the cache
 * registry, cache creation and merging, the kmalloc caches, large kmalloc,
 * krealloc/ksize/kfree_sensitive, and /proc/slabinfo.
 *
 * 1. Overview
 *    Exactly one allocator (slub.c, slab.c or slob.c) is linked in.  It
 *    supplies the allocator interface of slab.h (kmem_cache_init,
 *    __kmem_cache_create, __kmem_cache_shutdown, ..., the object API); this
 *    file never asks which one it is.  What differs between allocators
 *    reaches this file only as the constants of its *_def.h
 *    (KMALLOC_SHIFT_LOW/HIGH/MAX) and the answers of its hooks: SLOB, for
 *    instance, never merges because its __kmem_cache_alias() returns NULL,
 *    and has no kmalloc caches because its kmem_cache_init() never calls
 *    create_kmalloc_caches().
 *
 *    Bring-up: the first call that needs the slab layer runs
 *    slab_ensure_init() -> mm_ensure_init() (memory map, page allocator,
 *    options) -> kmem_cache_init(), once.  kmem_cache_init() bootstraps the
 *    allocator's own caches with create_boot_cache(), then (SLUB, SLAB) calls
 *    create_kmalloc_caches(), which moves slab_state to UP.
 *
 * 2. Data structures
 *    slab_caches          every cache, newest first (the order of slabinfo).
 *    kmalloc_caches[t][i] the kmalloc cache of type t (kmalloc_type()) and
 *                         index i (kmalloc_index()); row KMALLOC_DMA points
 *                         at the KMALLOC_NORMAL caches (no DMA zone: see
 *                         slab.h), and so does KMALLOC_CGROUP under
 *                         cgroup.memory=nokmem; else it is kmalloc-cg-<n>.
 *    kmalloc_size_index[] index of the cache for sizes 1..8k in steps of
 *                         8 (constant): kmalloc_index() as a table, one
 *                         load for the kmalloc fast path (kmalloc_cache_index()
 *                         in slab.h).
 *    A large kmalloc (above KMALLOC_MAX_CACHE_SIZE) is a compound folio with
 *    PG_large_kmalloc set and folio->index = the size asked for.
 *
 * 3. States
 *    slab_state: DOWN -> (PARTIAL | PARTIAL_NODE, allocator's bootstrap) ->
 *    UP (kmalloc caches exist) -> FULL (the allocator's late init, if any).
 *    A cache: refcount -1 = boot cache, never merged into and never
 *    destroyed; refcount n >= 1 = n creators share it (1 + aliases);
 *    refcount 0 = a destroy found live objects: the cache stays on
 *    slab_caches and usable (its objects may still be allocated and freed),
 *    is never merged into again, and a later kmem_cache_destroy() tries
 *    the shutdown once more.
 *
 * 4. Lock order
 *    slab_init_mutex -> (everything kmem_cache_init() takes, slab_mutex
 *    included).  mm_ensure_init() finishes before slab_init_mutex is taken.
 *    slab_mutex -> the allocator's locks (its __kmem_cache_* hooks and
 *    kmalloc) -> the page allocator's.  Nothing below this file takes
 *    slab_mutex, so kmalloc may be called with slab_mutex held.
 *
 * 5. Invariants
 *    - Every cache on slab_caches was fully set up by __kmem_cache_create.
 *    - kmalloc_caches[t][i] is NULL or a cache of object size
 *      kmalloc_info[i].size, stored with release once fully set up (kmalloc
 *      paths may read it before slab_ensure_init(), with acquire), and
 *      never destroyed.
 *    - A folio with PG_large_kmalloc is a live large kmalloc whose first
 *      byte is the pointer kmalloc returned.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "slab.h"
#include "memcheck.h"
#include "memcontrol.h"
#include "stats.h"
#include "os/os.h"

enum slab_state slab_state;
DEFINE_MUTEX(slab_mutex);
LIST_HEAD(slab_caches);
struct kmem_cache *kmem_cache;
bool slab_initialized;

static DEFINE_MUTEX(slab_init_mutex);	/* serialises slab_init_slow() */
/* Set on the thread running kmem_cache_init(), whose own allocations must
 * not wait for the initialisation they are part of. */
static __thread bool slab_init_running;

/* Merge control: CONFIG_SLAB_MERGE_DEFAULT=y; options below. */
static bool slab_nomerge;

/*
 * fork(): both mutexes sit in slab_mutex's rank, registered in the order
 * they nest (slab_init_mutex, then slab_mutex, which an allocator's
 * kmem_cache_init() may take), so prepare takes them in that order too.
 */
static void __attribute__((constructor)) slab_common_constructor(void)
{
	fork_lock_register(&slab_init_mutex.m, FORK_RANK_SLAB_MUTEX);
	fork_lock_register(&slab_mutex.m, FORK_RANK_SLAB_MUTEX);
}

/* ======================= reporting ======================= */

/* Reports go to stderr through a stack buffer and one write, so they never
 * allocate: they are safe inside the malloc drop-in and with slab_mutex held. */
static void slab_vprintk(const char *fmt, va_list ap)
{
	char buf[512];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);

	if (n < 0)
		return;
	os_write_all(2, buf, min((size_t)n, sizeof(buf) - 1));
}

__printf(1, 2) void slab_printk(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	slab_vprintk(fmt, ap);
	va_end(ap);
}

/* The kernel's WARN() layout: banner, message, where, end marker. */
__printf(2, 3) void slab_warn(const char *where, const char *fmt, ...)
{
	va_list ap;

	slab_printk("------------[ cut here ]------------\n");
	va_start(ap, fmt);
	slab_vprintk(fmt, ap);
	va_end(ap);
	slab_printk("WARNING: PID: %d at %s\n---[ end trace ]---\n", os_gettid(), where);
}

__printf(1, 2) __noreturn __cold void slab_panic(const char *fmt, ...)
{
	va_list ap;

	slab_printk("Kernel panic - not syncing: ");
	va_start(ap, fmt);
	slab_vprintk(fmt, ap);
	va_end(ap);
	abort();
}

static const struct { gfp_t mask; const char *name; } gfp_names[] = {
	/* composites first, as the kernel's %pGg prints them */
	{ GFP_HIGHUSER, "GFP_HIGHUSER" }, { GFP_USER, "GFP_USER" },
	{ GFP_KERNEL_ACCOUNT, "GFP_KERNEL_ACCOUNT" }, { GFP_KERNEL, "GFP_KERNEL" },
	{ GFP_NOFS, "GFP_NOFS" }, { GFP_ATOMIC, "GFP_ATOMIC" }, { GFP_NOIO, "GFP_NOIO" },
	{ GFP_NOWAIT, "GFP_NOWAIT" },
	{ __GFP_DMA, "GFP_DMA" }, { __GFP_HIGHMEM, "__GFP_HIGHMEM" },
	{ __GFP_DMA32, "GFP_DMA32" }, { __GFP_MOVABLE, "__GFP_MOVABLE" },
	{ __GFP_RECLAIMABLE, "__GFP_RECLAIMABLE" }, { __GFP_HIGH, "__GFP_HIGH" },
	{ __GFP_IO, "__GFP_IO" }, { __GFP_FS, "__GFP_FS" }, { __GFP_ZERO, "__GFP_ZERO" },
	{ __GFP_ATOMIC, "__GFP_ATOMIC" }, { __GFP_DIRECT_RECLAIM, "__GFP_DIRECT_RECLAIM" },
	{ __GFP_KSWAPD_RECLAIM, "__GFP_KSWAPD_RECLAIM" }, { __GFP_WRITE, "__GFP_WRITE" },
	{ __GFP_NOWARN, "__GFP_NOWARN" }, { __GFP_RETRY_MAYFAIL, "__GFP_RETRY_MAYFAIL" },
	{ __GFP_NOFAIL, "__GFP_NOFAIL" }, { __GFP_NORETRY, "__GFP_NORETRY" },
	{ __GFP_MEMALLOC, "__GFP_MEMALLOC" }, { __GFP_COMP, "__GFP_COMP" },
	{ __GFP_NOMEMALLOC, "__GFP_NOMEMALLOC" }, { __GFP_HARDWALL, "__GFP_HARDWALL" },
	{ __GFP_THISNODE, "__GFP_THISNODE" }, { __GFP_ACCOUNT, "__GFP_ACCOUNT" },
	{ __GFP_ZEROTAGS, "__GFP_ZEROTAGS" },
	{ __GFP_SKIP_KASAN_POISON, "__GFP_SKIP_KASAN_POISON" },
};

/* The kernel's %pGg: "GFP_KERNEL|__GFP_ZERO", unknown bits as hex, "none". */
const char *gfp_flags_string(char *buf, size_t len, gfp_t gfp)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(gfp_names) && n < len; i++) {
		if ((gfp & gfp_names[i].mask) != gfp_names[i].mask)
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "|" : "", gfp_names[i].name);
		gfp &= ~gfp_names[i].mask;
	}
	if (gfp && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%s%#x", n ? "|" : "", gfp);
	if (!n)
		snprintf(buf, len, "none");
	return buf;
}

/* The allocation-failure report (the kernel's warn_alloc), unless __GFP_NOWARN. */
__printf(2, 3) void slab_warn_alloc(gfp_t gfp, const char *fmt, ...)
{
	char flags[256];
	va_list ap;

	if (gfp & __GFP_NOWARN)
		return;
	slab_printk("uslab: ");
	va_start(ap, fmt);
	slab_vprintk(fmt, ap);
	va_end(ap);
	slab_printk(", mode:%#x(%s), nodemask=(null)\n", gfp,
		    gfp_flags_string(flags, sizeof(flags), gfp));
}

/* ======================= bring-up and options ======================= */

noinline __cold void slab_init_slow(void)
{
	if (slab_init_running)
		return;		/* kmem_cache_init() allocating for itself */
	mm_ensure_init();
	parse_early_options();
	mutex_lock(&slab_init_mutex);
	if (!slab_initialized) {
		slab_init_running = true;
		kmem_cache_init();
		slab_init_running = false;
		if (slab_state < UP)
			slab_panic("%s: kmem_cache_init() left slab_state at %d\n",
				   allocator_name, (int)slab_state);
		smp_store_release(&slab_initialized, true);
	}
	mutex_unlock(&slab_init_mutex);
	stats_start();	/* the statistics service, once the caches exist (stats.c) */
}

static int setup_slab_nomerge(const char *val)
{
	if (*val)
		return -1;
	slab_nomerge = true;
	return 0;
}
__setup("slab_nomerge", setup_slab_nomerge);

static int setup_slab_merge(const char *val)
{
	if (*val)
		return -1;
	slab_nomerge = false;
	return 0;
}
__setup("slab_merge", setup_slab_merge);

/* The SLUB spellings are accepted whatever the allocator, as in the kernel. */
static int setup_slub_nomerge(const char *val)
{
	return setup_slab_nomerge(val);
}
__setup("slub_nomerge", setup_slub_nomerge);

static int setup_slub_merge(const char *val)
{
	return setup_slab_merge(val);
}
__setup("slub_merge", setup_slub_merge);

/* ======================= alignment and merging ======================= */

#define SLAB_NEVER_MERGE (SLAB_RED_ZONE | SLAB_POISON | SLAB_STORE_USER | SLAB_TRACE | \
			  SLAB_TYPESAFE_BY_RCU | SLAB_NOLEAKTRACE | SLAB_FAILSLAB)
#define SLAB_MERGE_SAME (SLAB_RECLAIM_ACCOUNT | SLAB_CACHE_DMA | SLAB_CACHE_DMA32 | \
			 SLAB_ACCOUNT)

unsigned int calculate_alignment(slab_flags_t flags, unsigned int align, unsigned int size)
{
	if (flags & SLAB_HWCACHE_ALIGN) {
		unsigned int ralign = cache_line_size();

		/* small objects share a line rather than each padding to one */
		while (size <= ralign / 2)
			ralign /= 2;
		align = max(align, ralign);
	}
	align = max(align, (unsigned int)ARCH_SLAB_MINALIGN);
	return ALIGN(align, (unsigned int)sizeof(void *));
}

int slab_unmergeable(struct kmem_cache *s)
{
	if (slab_nomerge || (s->flags & SLAB_NEVER_MERGE))
		return 1;
	if (s->ctor || s->usersize)
		return 1;
	/* boot caches, and caches being (or failed to be) destroyed */
	return s->refcount <= 0;
}

/* Could objects of this size/align live in s's slots wasting under a word? */
static bool cache_fits(struct kmem_cache *s, unsigned int size, unsigned int align,
		       slab_flags_t flags)
{
	if (slab_unmergeable(s) || size > s->size)
		return false;
	if ((flags & SLAB_MERGE_SAME) != (s->flags & SLAB_MERGE_SAME))
		return false;
	if (!IS_ALIGNED(s->size, align))
		return false;
	return s->size - size < sizeof(void *);
}

struct kmem_cache *find_mergeable(unsigned int size, unsigned int align,
		slab_flags_t flags, const char *name, void (*ctor)(void *))
{
	struct kmem_cache *s;

	if (slab_nomerge || ctor)
		return NULL;
	size = ALIGN(size, (unsigned int)sizeof(void *));
	align = calculate_alignment(flags, align, size);
	size = ALIGN(size, align);
	/* debug options given for this name (slub_debug=...,name) forbid merging */
	flags = kmem_cache_flags(size, flags, name);
	if (flags & SLAB_NEVER_MERGE)
		return NULL;
	/* oldest first: long-lived caches absorb the newcomers */
	for (s = list_last_entry(&slab_caches, struct kmem_cache, list);
	     &s->list != &slab_caches;
	     s = list_entry(s->list.prev, struct kmem_cache, list)) {
		if (cache_fits(s, size, align, flags))
			return s;
	}
	return NULL;
}

/* ======================= cache lifecycle ======================= */

void kfree_const(const void *x)
{
	/* literals (boot and kmalloc cache names) are outside the arena */
	if (virt_addr_valid(x))
		kfree(x);
}

static struct kmem_cache *create_cache(const char *name, unsigned int object_size,
		unsigned int align, slab_flags_t flags, unsigned int useroffset,
		unsigned int usersize, void (*ctor)(void *), int *err)
{
	struct kmem_cache *s = kmem_cache_alloc(kmem_cache, GFP_KERNEL | __GFP_ZERO);

	*err = -ENOMEM;
	if (!s)
		return NULL;
	s->name = name;
	s->size = s->object_size = object_size;
	s->align = align;
	s->ctor = ctor;
	s->useroffset = useroffset;
	s->usersize = usersize;
	*err = __kmem_cache_create(s, flags);
	if (*err) {
		kmem_cache_free(kmem_cache, s);
		return NULL;
	}
	s->refcount = 1;
	list_add(&s->list, &slab_caches);
	return s;
}

/* kmem_cache_create()'s argument checks; -EINVAL (with the reason) or 0. */
static int kmem_cache_sanity_check(const char *name, unsigned int size, slab_flags_t flags)
{
	if (!name) {
		slab_printk("kmem_cache_create: a cache needs a name\n");
		return -EINVAL;
	}
	if (!size || size > KMALLOC_MAX_SIZE) {
		slab_printk("kmem_cache_create(%s): object size %u outside 1..%lu\n",
			    name, size, (unsigned long)KMALLOC_MAX_SIZE);
		return -EINVAL;
	}
	if (flags & ~SLAB_FLAGS_PERMITTED) {
		slab_printk("kmem_cache_create(%s): flags %#x not permitted (allowed: %#x)\n",
			    name, flags & ~SLAB_FLAGS_PERMITTED, SLAB_FLAGS_PERMITTED);
		return -EINVAL;
	}
	return 0;
}

/* Fail closed: an impossible usercopy window becomes "no window". */
static void usercopy_sanitize(const char *name, unsigned int size,
			      unsigned int *useroffset, unsigned int *usersize)
{
	if ((!*usersize && *useroffset) ||
	    size < *usersize || size - *usersize < *useroffset) {
		slab_warn("mm/slab_common.c:kmem_cache_create_usercopy",
			  "kmem_cache_create_usercopy(%s): usercopy window %u+%u outside object of %u bytes\n",
			  name, *useroffset, *usersize, size);
		*useroffset = *usersize = 0;
	}
}

/*
 * Alias names (slab.h, struct slab_alias): what uslabinfo and its sysfs
 * tree show as the kernel's alias links.  A name that cannot be copied is
 * not recorded; the merge itself still happens (aliases counts refcount).
 */
LIST_HEAD(slab_aliases);

static void slab_alias_add(struct kmem_cache *s, const char *name)
{
	struct slab_alias *a = __kmalloc(sizeof(*a), GFP_KERNEL);

	if (!a)
		return;
	a->name = kstrdup(name, GFP_KERNEL);
	if (!a->name) {
		kfree(a);
		return;
	}
	a->cache = s;
	list_add(&a->list, &slab_aliases);
}

/* Under slab_mutex: s leaves slab_caches, its alias names go with it. */
static void slab_alias_remove_all(struct kmem_cache *s)
{
	struct slab_alias *a, *t;

	list_for_each_entry_safe(a, t, &slab_aliases, list) {
		if (a->cache != s)
			continue;
		list_del(&a->list);
		kfree(a->name);
		kfree(a);
	}
}

/* Under slab_mutex: an alias of an existing cache, or a new one. */
static struct kmem_cache *kmem_cache_create_locked(const char *name, unsigned int size,
		unsigned int align, slab_flags_t flags, unsigned int useroffset,
		unsigned int usersize, void (*ctor)(void *), int *err)
{
	struct kmem_cache *s = NULL;
	char *cache_name;

	usercopy_sanitize(name, size, &useroffset, &usersize);
	if (!usersize)
		s = __kmem_cache_alias(name, size, align, flags, ctor);
	if (s) {
		slab_alias_add(s, name);
		return s;
	}
	cache_name = kstrdup(name, GFP_KERNEL);
	*err = -ENOMEM;
	if (!cache_name)
		return NULL;
	s = create_cache(cache_name, size, calculate_alignment(flags, align, size),
			 flags, useroffset, usersize, ctor, err);
	if (!s)
		kfree(cache_name);
	return s;
}

/* kmem_cache_create_usercopy() plus internal flags, added after the checks. */
static struct kmem_cache *kmem_cache_create_flags(const char *name, unsigned int size,
		unsigned int align, slab_flags_t flags, slab_flags_t internal,
		unsigned int useroffset, unsigned int usersize, void (*ctor)(void *))
{
	struct kmem_cache *s = NULL;
	int err;

	slab_ensure_init();
	err = kmem_cache_sanity_check(name, size, flags);
	/* why before slab_mutex: the allocator frees its slabs with call_rcu(),
	 * sometimes under slab_mutex, which must then find RCU ready (rcu.c §4) */
	if (!err && (flags & SLAB_TYPESAFE_BY_RCU))
		rcu_prepare();
	if (!err) {
		mutex_lock(&slab_mutex);
		s = kmem_cache_create_locked(name, size, align,
					     (flags & CACHE_CREATE_MASK) | internal,
					     useroffset, usersize, ctor, &err);
		mutex_unlock(&slab_mutex);
	}
	if (s)
		return s;
	if (flags & SLAB_PANIC)
		slab_panic("kmem_cache_create: Failed to create slab '%s'. Error %d\n",
			   name ? name : "(null)", err);
	slab_warn("mm/slab_common.c:kmem_cache_create_usercopy",
		  "kmem_cache_create(%s) failed with error %d\n", name ? name : "(null)", err);
	return NULL;
}

struct kmem_cache *kmem_cache_create_usercopy(const char *name, unsigned int size,
		unsigned int align, slab_flags_t flags, unsigned int useroffset,
		unsigned int usersize, void (*ctor)(void *))
{
	return kmem_cache_create_flags(name, size, align, flags, 0, useroffset, usersize, ctor);
}
EXPORT_SYMBOL(kmem_cache_create_usercopy);

struct kmem_cache *kmem_cache_create_kmalloc(const char *name, unsigned int size,
		unsigned int align, slab_flags_t flags)
{
	return kmem_cache_create_flags(name, size, align, flags, SLAB_KMALLOC, 0, 0, NULL);
}

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size,
		unsigned int align, slab_flags_t flags, void (*ctor)(void *))
{
	return kmem_cache_create_usercopy(name, size, align, flags, 0, 0, ctor);
}
EXPORT_SYMBOL(kmem_cache_create);

static void kmem_cache_release(struct kmem_cache *s)
{
	__kmem_cache_release(s);
	kfree_const(s->name);
	kmem_cache_free(kmem_cache, s);
}

/*
 * Under slab_mutex, refcount just reached 0: take s off slab_caches if the
 * allocator could give every slab back, else leave it listed (and usable).
 * The slabs of a SLAB_TYPESAFE_BY_RCU cache may still wait for their grace
 * period then: kmem_cache_destroy() waits for them (rcu_barrier) before s
 * is released.
 */
static int shutdown_cache(struct kmem_cache *s)
{
	if (__kmem_cache_shutdown(s) != 0)
		return -EBUSY;
	list_del(&s->list);
	slab_alias_remove_all(s);
	return 0;
}

static void report_busy_cache(struct kmem_cache *s)
{
	struct slabinfo sinfo;

	memset(&sinfo, 0, sizeof(sinfo));
	get_slabinfo(s, &sinfo);
	slab_warn("mm/slab_common.c:kmem_cache_destroy",
		  "kmem_cache_destroy %s: Slab cache still has objects (%lu in use)\n",
		  s->name, sinfo.active_objs);
}

/*
 * RCU, as the kernel's kmem_cache_destroy: objects of s freed with kfree_rcu
 * or waiting in SLOB's RCU footers must be freed before the shutdown counts
 * them, and a SLAB_TYPESAFE_BY_RCU cache's slab callbacks must be done
 * before s is released.  Never under slab_mutex: a callback may take it.
 */
static void kmem_cache_destroy_rcu_barrier(struct kmem_cache *s)
{
	if ((s->flags & SLAB_TYPESAFE_BY_RCU) || kvfree_rcu_pending())
		rcu_barrier();
}

void kmem_cache_destroy(struct kmem_cache *s)
{
	int err = -EBUSY;

	if (unlikely(!s))
		return;
	kmem_cache_destroy_rcu_barrier(s);
	mutex_lock(&slab_mutex);
	if (unlikely(s->refcount < 0)) {
		mutex_unlock(&slab_mutex);
		slab_warn("mm/slab_common.c:kmem_cache_destroy",
			  "kmem_cache_destroy %s: a boot cache cannot be destroyed\n", s->name);
		return;
	}
	/* refcount 0 here: an earlier destroy found objects; try again */
	if (s->refcount == 0 || --s->refcount == 0) {
		err = shutdown_cache(s);
		if (err)
			report_busy_cache(s);
	}
	mutex_unlock(&slab_mutex);
	if (!err && (s->flags & SLAB_TYPESAFE_BY_RCU))
		rcu_barrier();
	if (!err)
		kmem_cache_release(s);
}
EXPORT_SYMBOL(kmem_cache_destroy);

int kmem_cache_shrink(struct kmem_cache *s)
{
	return __kmem_cache_shrink(s);
}
EXPORT_SYMBOL(kmem_cache_shrink);

unsigned int kmem_cache_size(struct kmem_cache *s)
{
	return s->object_size;
}
EXPORT_SYMBOL(kmem_cache_size);

const char *kmem_cache_name(struct kmem_cache *s)
{
	return s->name;
}
EXPORT_SYMBOL(kmem_cache_name);

/* ======================= boot and kmalloc caches ======================= */

void create_boot_cache(struct kmem_cache *s, const char *name, unsigned int size,
		slab_flags_t flags, unsigned int useroffset, unsigned int usersize)
{
	unsigned int align = ARCH_KMALLOC_MINALIGN;
	int err;

	s->name = name;
	s->size = s->object_size = size;
	/* kmalloc(2^n) is 2^n-aligned whatever debugging adds around objects */
	if (is_power_of_2(size))
		align = max(align, size);
	s->align = calculate_alignment(flags, align, size);
	s->useroffset = useroffset;
	s->usersize = usersize;
	err = __kmem_cache_create(s, flags);
	if (err)
		slab_panic("Creation of kmalloc slab %s size=%u failed. Reason %d\n",
			   name, size, err);
	s->refcount = -1;	/* not mergeable while booting */
}

struct kmem_cache *create_kmalloc_cache(const char *name, unsigned int size,
		slab_flags_t flags, unsigned int useroffset, unsigned int usersize)
{
	struct kmem_cache *s = kmem_cache_alloc(kmem_cache, GFP_NOWAIT | __GFP_ZERO);

	if (!s)
		slab_panic("Out of memory when creating slab %s\n", name);
	/* why SLAB_KMALLOC: each object records the size asked for, so that a
	 * red zone can start there (docs/debugging.md, kmalloc red zone) */
	create_boot_cache(s, name, size, flags | SLAB_KMALLOC, useroffset, usersize);
	list_add(&s->list, &slab_caches);
	s->refcount = 1;
	return s;
}

struct kmem_cache *kmalloc_caches[NR_KMALLOC_TYPES][KMALLOC_SHIFT_HIGH + 1];

_Static_assert(KMALLOC_SHIFT_HIGH <= KMALLOC_INDEX_MAX, "kmalloc_info[] ends at 32 MiB");
_Static_assert(KMALLOC_SHIFT_LOW >= 3 && KMALLOC_MIN_SIZE <= 32,
	       "kmalloc_size_index[] assumes the 96 and 192 byte caches exist");

#define KMALLOC_NAMES(short_size) {					\
	[KMALLOC_NORMAL] = "kmalloc-" #short_size,			\
	[KMALLOC_CGROUP] = "kmalloc-cg-" #short_size,			\
	[KMALLOC_RECLAIM] = "kmalloc-rcl-" #short_size,			\
	[KMALLOC_DMA] = "dma-kmalloc-" #short_size }
#define INIT_KMALLOC_INFO(sz, short_size) { KMALLOC_NAMES(short_size), sz }

const struct kmalloc_info_struct kmalloc_info[KMALLOC_INDEX_MAX + 1] = {
	INIT_KMALLOC_INFO(0, 0), INIT_KMALLOC_INFO(96, 96), INIT_KMALLOC_INFO(192, 192),
	INIT_KMALLOC_INFO(8, 8), INIT_KMALLOC_INFO(16, 16), INIT_KMALLOC_INFO(32, 32),
	INIT_KMALLOC_INFO(64, 64), INIT_KMALLOC_INFO(128, 128),
	INIT_KMALLOC_INFO(256, 256), INIT_KMALLOC_INFO(512, 512),
	INIT_KMALLOC_INFO(1024, 1k), INIT_KMALLOC_INFO(2048, 2k),
	INIT_KMALLOC_INFO(4096, 4k), INIT_KMALLOC_INFO(8192, 8k),
	INIT_KMALLOC_INFO(16384, 16k), INIT_KMALLOC_INFO(32768, 32k),
	INIT_KMALLOC_INFO(65536, 64k), INIT_KMALLOC_INFO(131072, 128k),
	INIT_KMALLOC_INFO(262144, 256k), INIT_KMALLOC_INFO(524288, 512k),
	INIT_KMALLOC_INFO(1048576, 1M), INIT_KMALLOC_INFO(2097152, 2M),
	INIT_KMALLOC_INFO(4194304, 4M), INIT_KMALLOC_INFO(8388608, 8M),
	INIT_KMALLOC_INFO(16777216, 16M), INIT_KMALLOC_INFO(33554432, 32M),
};

/* A power-of-two index of the ladder, or the smallest cache's below it. */
#define SIZE_INDEX(i)	((i) < KMALLOC_SHIFT_LOW ? KMALLOC_SHIFT_LOW : (i))

/*
 * kmalloc_index() of sizes 1..KMALLOC_SIZE_INDEX_MAX, by (size - 1) / 8:
 * the kmalloc fast path's one load from size to cache (the kernel's
 * size_index[], which stops at 192 and leaves the rest to fls()).  Entries
 * past KMALLOC_SHIFT_HIGH are never read (the callers test the range).
 */
const unsigned char kmalloc_size_index[KMALLOC_SIZE_INDEX_MAX / 8] = {
	[0] = SIZE_INDEX(3),			/* 8 */
	[1] = SIZE_INDEX(4),			/* 16 */
	[2 ... 3] = SIZE_INDEX(5),		/* 24, 32 */
	[4 ... 7] = SIZE_INDEX(6),		/* 40 .. 64 */
	[8 ... 11] = 1,				/* 72 .. 96 */
	[12 ... 15] = 7,			/* 104 .. 128 */
	[16 ... 23] = 2,			/* 136 .. 192 */
	[24 ... 31] = 8,			/* 200 .. 256 */
	[32 ... 63] = 9,			/* .. 512 */
	[64 ... 127] = 10,			/* .. 1k */
	[128 ... 255] = 11,			/* .. 2k */
	[256 ... 511] = 12,			/* .. 4k */
	[512 ... 1023] = 13,			/* .. 8k */
};
_Static_assert(KMALLOC_SIZE_INDEX_MAX == 8192, "kmalloc_size_index[] is written for 8k");

void setup_kmalloc_cache_index_table(void)
{
	size_t size;

	for (size = 1; size <= KMALLOC_SIZE_INDEX_MAX; size++)
		if (kmalloc_size_index[(size - 1) / 8] != kmalloc_index(size))
			slab_panic("kmalloc_size_index[] gives %u for size %zu, not %d\n",
				   kmalloc_size_index[(size - 1) / 8], size, kmalloc_index(size));
}

struct kmem_cache *kmalloc_slab(size_t size, gfp_t flags)
{
	if (!size)
		return ZERO_SIZE_PTR;
	if (unlikely(size > KMALLOC_MAX_CACHE_SIZE)) {
		slab_printk("kmalloc_slab: size %zu above the largest kmalloc cache\n", size);
		return NULL;
	}
	return kmalloc_slab_inline(size, flags);
}

/*
 * The KMALLOC_CGROUP row is the kmalloc-cg-<n> caches (SLAB_ACCOUNT), for
 * the kmalloc objects charged to memory cgroups (memcontrol.c); with
 * cgroup.memory=nokmem it shares the KMALLOC_NORMAL caches, as the kernel
 * does.  0 in KMALLOC_DMA_CACHES is the kernel without ZONE_DMA: that row
 * shares them too; 1 would create dma-kmalloc-<n> caches.
 */
#define KMALLOC_DMA_CACHES	0

static void new_kmalloc_cache(int idx, enum kmalloc_cache_type type, slab_flags_t flags)
{
	bool shared = (type == KMALLOC_CGROUP && cgroup_memory_nokmem) ||
		      (type == KMALLOC_DMA && !KMALLOC_DMA_CACHES);
	struct kmem_cache *s;

	if (shared) {
		smp_store_release(&kmalloc_caches[type][idx], kmalloc_caches[KMALLOC_NORMAL][idx]);
		return;
	}
	if (type == KMALLOC_RECLAIM)
		flags |= SLAB_RECLAIM_ACCOUNT;
	else if (type == KMALLOC_CGROUP)
		flags |= SLAB_ACCOUNT;
	else if (type == KMALLOC_DMA)
		flags |= SLAB_CACHE_DMA;
	/* the whole object may be copied to and from user memory */
	s = create_kmalloc_cache(kmalloc_info[idx].name[type], kmalloc_info[idx].size,
				 flags, 0, kmalloc_info[idx].size);
	/* why: kmalloc-<n> must hold unaccounted objects only, so no cache
	 * that may be charged (__GFP_ACCOUNT) merges into it (5.14+) */
	if (type == KMALLOC_NORMAL && !cgroup_memory_nokmem)
		s->refcount = -1;
	smp_store_release(&kmalloc_caches[type][idx], s);	/* publish it set up */
}

/* Every cache of one type; 96 and 192 right after 64 and 128, as 5.17. */
static void create_kmalloc_type(enum kmalloc_cache_type type, slab_flags_t flags)
{
	int i;

	for (i = KMALLOC_SHIFT_LOW; i <= KMALLOC_SHIFT_HIGH; i++) {
		if (!kmalloc_caches[type][i])
			new_kmalloc_cache(i, type, flags);
		if (i == 6 && !kmalloc_caches[type][1])
			new_kmalloc_cache(1, type, flags);
		if (i == 7 && !kmalloc_caches[type][2])
			new_kmalloc_cache(2, type, flags);
	}
}

void create_kmalloc_caches(slab_flags_t flags)
{
	setup_kmalloc_cache_index_table();
	create_kmalloc_type(KMALLOC_NORMAL, flags);
	create_kmalloc_type(KMALLOC_CGROUP, flags);
	create_kmalloc_type(KMALLOC_RECLAIM, flags);
	WRITE_ONCE(slab_state, UP);	/* kmalloc works from here on */
	create_kmalloc_type(KMALLOC_DMA, flags);
}

/*
 * Entry point of kmalloc() with a compile-time constant size (the public
 * header computes index = kmalloc_index(size) with the smallest class of any
 * allocator, 8 bytes, and leaves sizes of the 5.17 ladder to this function).
 * No kmalloc cache for the index (SLOB, above KMALLOC_MAX_CACHE_SIZE, or
 * before the caches exist): the allocator's own __kmalloc_node decides.
 */
void *kmalloc_index_alloc(unsigned int index, size_t size, gfp_t flags, int node)
{
	struct kmem_cache *s = NULL;

	/* why: kmalloc_caches[] is written by the initialisation */
	slab_ensure_init();
	if (index >= 3 && index < KMALLOC_SHIFT_LOW)
		index = KMALLOC_SHIFT_LOW;	/* SLAB's smallest class is 32 */
	if (likely(index <= KMALLOC_SHIFT_HIGH))
		s = kmalloc_caches[kmalloc_type(flags)][index];
	/* why memcheck: __kmalloc_node sizes the block to the request (memcheck.h §2) */
	if (unlikely(!s || memcheck_active()))
		return __kmalloc_node(size, flags, node);
	return kmem_cache_alloc_node_orig(s, flags, node, size);
}
EXPORT_SYMBOL(kmalloc_index_alloc);

/* ======================= kmalloc helpers ======================= */

gfp_t kmalloc_fix_flags(gfp_t flags)
{
	gfp_t invalid = flags & GFP_SLAB_BUG_MASK;
	char was[256], now[256];

	flags &= ~GFP_SLAB_BUG_MASK;
	slab_warn("mm/slab_common.c:kmalloc_fix_flags",
		  "Unexpected gfp: %#x (%s). Fixing up to gfp: %#x (%s). Fix your code!\n",
		  invalid, gfp_flags_string(was, sizeof(was), invalid),
		  flags, gfp_flags_string(now, sizeof(now), flags));
	return flags;
}

static void *kmalloc_order_node(size_t size, gfp_t flags, unsigned int order, int node)
{
	struct page *page;
	struct folio *folio;

	if (unlikely(flags & GFP_SLAB_BUG_MASK))
		flags = kmalloc_fix_flags(flags);
	page = alloc_pages_node(node, flags | __GFP_COMP, order);
	if (unlikely(!page))
		return NULL;
	folio = page_folio(page);
	if (unlikely(!memcg_kmem_charge_folio(folio, flags, order))) {
		__free_pages(page, order);	/* the group's limit refused it */
		return NULL;
	}
	folio->index = size;		/* what was asked for, for tools */
	__folio_set_large_kmalloc(folio);
	return folio_address(folio);
}

void *kmalloc_order(size_t size, gfp_t flags, unsigned int order)
{
	return kmalloc_order_node(size, flags, order, NUMA_NO_NODE);
}

void *kmalloc_large_node(size_t size, gfp_t flags, int node)
{
	mm_ensure_init();
	return kmalloc_order_node(size, flags, get_order(size), node);
}

void *kmalloc_large(size_t size, gfp_t flags)
{
	return kmalloc_large_node(size, flags, NUMA_NO_NODE);
}
EXPORT_SYMBOL(kmalloc_large);

static __noreturn __cold void bad_large_kmalloc(const char *what, const void *object)
{
	slab_panic("kfree: invalid large kmalloc pointer %p (%s)\n", object, what);
}

void free_large_kmalloc(struct folio *folio, void *object)
{
	if (unlikely(!folio_test_large_kmalloc(folio)))
		bad_large_kmalloc("not a slab object or large kmalloc: double free?", object);
	if (unlikely(object != folio_address(folio)))
		bad_large_kmalloc("not the start of the allocation", object);
	memcg_kmem_uncharge_folio(folio);
	__folio_clear_large_kmalloc(folio);
	__free_pages(&folio->page, folio_order(folio));
}

/* The slot of the kmalloc object objp (0 for NULL), *large set for a large
 * kmalloc; ksize() without telling memcheck. */
static size_t kmalloc_slot(const void *objp, bool *large)
{
	struct folio *folio;

	*large = false;
	if (unlikely(ZERO_OR_NULL_PTR(objp)))
		return 0;
	if (unlikely(!virt_addr_valid(objp)))
		slab_panic("ksize: %p is not a slab object or large kmalloc\n", objp);
	folio = virt_to_folio(objp);
	if (folio_test_large_kmalloc(folio)) {
		if (unlikely(objp != folio_address(folio)))
			bad_large_kmalloc("not the start of the allocation", objp);
		*large = true;
		return folio_size(folio);
	}
	return __ksize(objp);
}

size_t ksize(const void *objp)
{
	bool large;
	size_t slot = kmalloc_slot(objp, &large);

	/* why: the caller may now use the whole slot (memcheck.h §2); a large
	 * kmalloc is pages, not a block of the tool */
	if (unlikely(memcheck_active()) && slot && !large)
		memcheck_kmalloc_set_size(objp, slot, slot);
	return slot;
}
EXPORT_SYMBOL(ksize);

/*
 * krealloc in memcheck mode (memcheck.h §2): within the slot the block is
 * resized in place; a move copies only the bytes the block has, so that
 * the copy reads nothing the program may not.
 */
static noinline void *krealloc_memcheck(const void *p, size_t new_size, gfp_t flags)
{
	bool large;
	size_t slot = kmalloc_slot(p, &large);
	size_t old = large ? slot : memcheck_kmalloc_size(p, slot);
	void *ret;

	if (slot >= new_size) {
		if (!large)
			memcheck_kmalloc_resize(p, old, new_size);
		return (void *)p;
	}
	ret = __kmalloc(new_size, flags);
	if (ret && slot) {
		memcpy(ret, p, old);
		kfree(p);
	}
	return ret;
}

void *krealloc(const void *p, size_t new_size, gfp_t flags)
{
	size_t ks;
	void *ret;

	if (unlikely(!new_size)) {
		kfree(p);
		return ZERO_SIZE_PTR;
	}
	if (unlikely(memcheck_active()))
		return krealloc_memcheck(p, new_size, flags);
	ks = ksize(p);
	if (ks >= new_size) {
		kmalloc_set_orig_size(p, new_size);	/* the kmalloc red zone moves */
		return (void *)p;	/* still fits: contents untouched */
	}
	ret = __kmalloc(new_size, flags);
	if (ret && ks) {
		memcpy(ret, p, ks);
		kfree(p);
	}
	return ret;
}
EXPORT_SYMBOL(krealloc);

/* SLOB records no requested size; SLUB and SLAB define their own (slab.h). */
__attribute__((weak)) void kmalloc_set_orig_size(const void *object, size_t size)
{
	(void)object;
	(void)size;
}

__attribute__((weak)) void *kmem_cache_alloc_orig(struct kmem_cache *s, gfp_t flags, size_t size)
{
	(void)size;
	return kmem_cache_alloc(s, flags);
}

__attribute__((weak)) void *kmem_cache_alloc_node_orig(struct kmem_cache *s, gfp_t flags,
							int node, size_t size)
{
	(void)size;
	return kmem_cache_alloc_node(s, flags, node);
}

void kfree_sensitive(const void *p)
{
	size_t ks = ksize(p);

	if (ks)
		memzero_explicit((void *)p, ks);
	kfree(p);
}
EXPORT_SYMBOL(kfree_sensitive);

void kfree_bulk(size_t nr, void **p)
{
	kmem_cache_free_bulk(NULL, nr, p);
}
EXPORT_SYMBOL(kfree_bulk);

/* ======================= /proc/slabinfo ======================= */

static void print_slabinfo_header(FILE *f)
{
	fputs("slabinfo - version: 2.1\n", f);
	fputs("# name            <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab>"
	      " : tunables <limit> <batchcount> <sharedfactor>"
	      " : slabdata <active_slabs> <num_slabs> <sharedavail>\n", f);
}

static void cache_show(struct kmem_cache *s, FILE *f)
{
	struct slabinfo sinfo;

	memset(&sinfo, 0, sizeof(sinfo));
	get_slabinfo(s, &sinfo);
	fprintf(f, "%-17s %6lu %6lu %6u %4u %4d", s->name, sinfo.active_objs,
		sinfo.num_objs, s->size, sinfo.objects_per_slab, 1 << sinfo.cache_order);
	fprintf(f, " : tunables %4u %4u %4u", sinfo.limit, sinfo.batchcount, sinfo.shared);
	fprintf(f, " : slabdata %6lu %6lu %6lu", sinfo.active_slabs, sinfo.num_slabs,
		sinfo.shared_avail);
	slabinfo_show_stats(f, s);
	fputc('\n', f);
}

void show_slabinfo(FILE *f)
{
	struct kmem_cache *s;

	slab_ensure_init();
	mutex_lock(&slab_mutex);
	print_slabinfo_header(f);
	list_for_each_entry(s, &slab_caches, list)
		cache_show(s, f);
	mutex_unlock(&slab_mutex);
}
EXPORT_SYMBOL(show_slabinfo);

USLAB_API const char *uslab_allocator_name(void)
{
	return allocator_name;
}

/*
 * slabinfo_write - apply one line written to /proc/slabinfo:
 * "<cache name> <limit> <batchcount> <shared>".  SLAB retunes the cache;
 * SLUB and SLOB refuse as the kernel does (-EIO).  Exported as
 * uslab_slabinfo_write for every build.
 */
int slabinfo_write(const char *line)
{
	slab_ensure_init();
	return slabinfo_write_line(line);
}
EXPORT_SYMBOL(slabinfo_write);
