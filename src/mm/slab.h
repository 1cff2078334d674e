/* SPDX-License-Identifier: MIT */
/*
 * slab.h - the slab layer's private view of a slab page, and the interface
 * between allocator-neutral code (slab_common.c) and the one allocator this
 * library is built with (slub.c, slab.c or slob.c).
 *
 * struct slab overlays struct page.  Each allocator defines its own complete
 * struct slab and struct kmem_cache in its *_def.h; this header includes
 * exactly one of them, then pins the fields every allocator shares to their
 * struct page counterparts.  The helpers below (folio_slab, virt_to_slab,
 * slab_address, ...) are the only bridges between struct page and struct
 * slab; they are used at the top of each call chain, and nothing below them
 * touches struct page, so that struct slab could one day be allocated on its
 * own (the kernel's memdesc plan) by changing only these helpers.
 *
 * Nothing outside src/mm includes this header.
 */
#ifndef USLAB_MM_SLAB_H
#define USLAB_MM_SLAB_H

#include "internal.h"

/* Every struct kmem_cache (whatever the allocator) has these fields, used
 * by slab_common.c:
 *	const char *name;		cache name (kstrdup'd, or a literal for boot caches)
 *	unsigned int object_size;	size the creator asked for
 *	unsigned int size;		size of one object slot with metadata
 *	unsigned int align;		alignment of objects
 *	slab_flags_t flags;		SLAB_* flags in force
 *	unsigned int useroffset, usersize;	usercopy window
 *	void (*ctor)(void *);		constructor or NULL
 *	int refcount;			aliases + 1; -1 = never merge (boot caches)
 *	struct list_head list;		on slab_caches (slab_mutex)
 */

#if CONFIG_SLUB
#include "slub_def.h"
#elif CONFIG_SLAB
#include "slab_def.h"
#elif CONFIG_SLOB
#include "slob_def.h"
#else
#error "build with exactly one of CONFIG_SLUB, CONFIG_SLAB, CONFIG_SLOB set to 1"
#endif

/*
 * kmalloc geometry.  Each *_def.h defines KMALLOC_SHIFT_LOW (smallest kmalloc
 * cache, log2), KMALLOC_SHIFT_HIGH (largest kmalloc cache) and
 * KMALLOC_SHIFT_MAX (largest kmalloc at all) as compile-time constants; the
 * derived limits below are common unless the allocator defines them itself.
 */
#ifndef KMALLOC_MIN_SIZE
#define KMALLOC_MIN_SIZE	(1U << KMALLOC_SHIFT_LOW)
#endif
#ifndef KMALLOC_MAX_CACHE_SIZE
#define KMALLOC_MAX_CACHE_SIZE	(1UL << KMALLOC_SHIFT_HIGH)	/* largest kmalloc cache */
#endif
#ifndef KMALLOC_MAX_SIZE
#define KMALLOC_MAX_SIZE	(1UL << KMALLOC_SHIFT_MAX)	/* largest kmalloc */
#endif
#ifndef ARCH_KMALLOC_MINALIGN
#define ARCH_KMALLOC_MINALIGN	__alignof__(unsigned long long)
#endif
#ifndef ARCH_SLAB_MINALIGN
#define ARCH_SLAB_MINALIGN	__alignof__(unsigned long long)
#endif
#ifndef L1_CACHE_BYTES
#define L1_CACHE_BYTES		64
#endif
#define cache_line_size()	L1_CACHE_BYTES
/* Objects are at least this big: room for a free pointer and more. */
#define SLAB_OBJ_MIN_SIZE	(KMALLOC_MIN_SIZE < 16 ? KMALLOC_MIN_SIZE : 16)

/*
 * Cache flag masks (mm/slab.h of 5.17).  SLAB_FLAGS_PERMITTED is the same for
 * every allocator: kmem_cache_create() rejects anything outside it.  Within
 * it, CACHE_CREATE_MASK keeps what the allocator being built implements and
 * silently drops the rest (SLOB has no debug flags, for instance).
 */
#define SLAB_CORE_FLAGS	(SLAB_HWCACHE_ALIGN | SLAB_CACHE_DMA | SLAB_CACHE_DMA32 | \
			 SLAB_PANIC | SLAB_TYPESAFE_BY_RCU | SLAB_DEBUG_OBJECTS)
/*
 * SLAB_KMALLOC (Linux 6.2's flag): the kmalloc caches, and the caches of
 * kmem_cache_create_kmalloc() (the malloc drop-in's size classes).  Their
 * objects are asked for at any size up to object_size; with red zones the
 * bytes past the size asked for are red zone too (the kmalloc red zone,
 * docs/debugging.md).  Internal: kmem_cache_create() refuses it, as 5.17
 * refuses the unused bit 0x1000.
 */
#define SLAB_KMALLOC	0x00001000U
#ifndef SLAB_DEBUG_FLAGS
#define SLAB_DEBUG_FLAGS						\
	((CONFIG_SLAB || CONFIG_SLUB ? (SLAB_RED_ZONE | SLAB_POISON | SLAB_STORE_USER) : 0) | \
	 (CONFIG_SLUB ? (SLAB_TRACE | SLAB_CONSISTENCY_CHECKS) : 0))
#endif
#ifndef SLAB_CACHE_FLAGS
#define SLAB_CACHE_FLAGS						\
	(SLAB_NOLEAKTRACE | (CONFIG_SLAB ? SLAB_MEM_SPREAD : 0) |	\
	 (CONFIG_SLAB || CONFIG_SLUB ?					\
	  (SLAB_RECLAIM_ACCOUNT | SLAB_TEMPORARY | SLAB_ACCOUNT) : 0))
#endif
#define CACHE_CREATE_MASK	(SLAB_CORE_FLAGS | SLAB_DEBUG_FLAGS | SLAB_CACHE_FLAGS)
#define SLAB_FLAGS_PERMITTED	(SLAB_CORE_FLAGS | SLAB_RED_ZONE | SLAB_POISON | \
				 SLAB_STORE_USER | SLAB_TRACE | SLAB_CONSISTENCY_CHECKS | \
				 SLAB_MEM_SPREAD | SLAB_NOLEAKTRACE | SLAB_RECLAIM_ACCOUNT | \
				 SLAB_TEMPORARY | SLAB_ACCOUNT)

/* gfp bits a slab allocation must not carry: kmalloc_fix_flags() strips them. */
#define GFP_SLAB_BUG_MASK	(__GFP_DMA32 | __GFP_HIGHMEM | ~__GFP_BITS_MASK)

/* Shared fields of struct slab sit where struct page has them. */
#define SLAB_MATCH(pg, sl)						\
	_Static_assert(offsetof(struct page, pg) == offsetof(struct slab, sl), \
		       "struct slab." #sl " must overlay struct page." #pg)
SLAB_MATCH(flags, __page_flags);
SLAB_MATCH(compound_head, slab_list);	/* list pointers keep bit 0 clear */
SLAB_MATCH(_refcount, __page_refcount);
SLAB_MATCH(memcg_data, memcg_data);
_Static_assert(sizeof(struct slab) <= sizeof(struct page), "struct slab must fit in struct page");

/* ---- the only bridges between struct page / folio and struct slab ---- */
static inline struct slab *folio_slab(const struct folio *folio)
{
	return (struct slab *)folio;
}

/*
 * The cache that owns a slab, for code built for every allocator (the
 * drop-in malloc): SLUB and SLAB record it; SLOB's slabs are shared by all
 * sizes and have no such field, so NULL there.  #if, not if (CONFIG_SLOB):
 * the field does not exist in SLOB's struct slab.
 */
static inline struct kmem_cache *slab_owner_cache(const struct slab *slab)
{
#if CONFIG_SLOB
	(void)slab;
	return NULL;
#else
	return slab->slab_cache;
#endif
}

static inline struct folio *slab_folio(const struct slab *slab)
{
	return (struct folio *)slab;
}

/* Only legal on a head (or order-0) page. */
static inline struct slab *page_slab(const struct page *page)
{
	return (struct slab *)page;
}

static inline struct page *slab_page(const struct slab *slab)
{
	return folio_page(slab_folio(slab), 0);
}

static inline bool slab_test_pfmemalloc(const struct slab *slab)
{
	return folio_test_active(slab_folio(slab));
}

static inline void slab_set_pfmemalloc(struct slab *slab)
{
	folio_set_active(slab_folio(slab));
}

static inline void slab_clear_pfmemalloc(struct slab *slab)
{
	folio_clear_active(slab_folio(slab));
}

static inline void *slab_address(const struct slab *slab)
{
	return folio_address(slab_folio(slab));
}

static inline int slab_nid(const struct slab *slab)
{
	return folio_nid(slab_folio(slab));
}

static inline unsigned int slab_order(const struct slab *slab)
{
	return folio_order(slab_folio(slab));
}

static inline size_t slab_size(const struct slab *slab)
{
	return PAGE_SIZE << slab_order(slab);
}

/* NULL unless addr is in an online section and its folio is a slab. */
static inline struct slab *virt_to_slab(const void *addr)
{
	unsigned long pfn = virt_to_pfn(addr);
	struct folio *folio;

	/* why pfn_valid alone: below the arena the unsigned subtraction wraps
	 * to a pfn >= max_pfn, so it is virt_addr_valid in one compare */
	if (unlikely(!pfn_valid(pfn)))
		return NULL;
	folio = page_folio(pfn_to_page(pfn));
	if (!folio_test_slab(folio))
		return NULL;
	return folio_slab(folio);
}

/* ---- slab_common.c ---- */
enum slab_state {
	DOWN,		/* no slab functionality yet */
	PARTIAL,	/* SLUB: kmem_cache_node available */
	PARTIAL_NODE,	/* SLAB: kmalloc size for node struct available */
	UP,		/* slab caches usable, kmalloc caches exist */
	FULL		/* everything is working */
};
extern enum slab_state slab_state;
extern struct mutex slab_mutex;		/* protects slab_caches and cache lifecycle */
extern struct list_head slab_caches;	/* every cache, newest first */
extern struct kmem_cache *kmem_cache;	/* the cache struct kmem_cache comes from */

/* Bring the slab layer up on first use (idempotent, thread safe):
 * mm_ensure_init(), then the allocator's kmem_cache_init(), exactly once.
 * Calls made by kmem_cache_init() itself return at once. */
extern bool slab_initialized;
void slab_init_slow(void);
static __always_inline void slab_ensure_init(void)
{
	if (unlikely(!smp_load_acquire(&slab_initialized)))
		slab_init_slow();
}

static inline bool slab_is_available(void)
{
	return READ_ONCE(slab_state) >= UP;
}

unsigned int calculate_alignment(slab_flags_t flags, unsigned int align, unsigned int size);
int slab_unmergeable(struct kmem_cache *s);
struct kmem_cache *find_mergeable(unsigned int size, unsigned int align,
		slab_flags_t flags, const char *name, void (*ctor)(void *));
void create_boot_cache(struct kmem_cache *s, const char *name, unsigned int size,
		slab_flags_t flags, unsigned int useroffset, unsigned int usersize);
/* Boot-time kmalloc cache (SLAB's early kmalloc-node cache, for instance):
 * never fails (panics), listed on slab_caches, refcount 1. */
struct kmem_cache *create_kmalloc_cache(const char *name, unsigned int size,
		slab_flags_t flags, unsigned int useroffset, unsigned int usersize);
/* Create every kmalloc cache not created yet, then slab_state = UP.
 * SLOB has no kmalloc caches and never calls it. */
void create_kmalloc_caches(slab_flags_t flags);
/* Check that kmalloc_size_index[] gives kmalloc_index() for every size it
 * covers, the smallest cache for sizes below KMALLOC_MIN_SIZE (panics if
 * not; idempotent; create_kmalloc_caches() calls it too). */
void setup_kmalloc_cache_index_table(void);

/*
 * kmalloc cache types (5.17).  KMALLOC_CGROUP is the kmalloc-cg-<n> caches,
 * SLAB_ACCOUNT, for objects charged to memory cgroups (memcontrol.c); with
 * cgroup.memory=nokmem (and under SLOB, which has no kmalloc caches) the
 * row points at the KMALLOC_NORMAL caches, as the kernel does then.  Without
 * a separate DMA zone the KMALLOC_DMA row does the same; it exists so that
 * the day it is real, only slab_common.c changes.
 */
enum kmalloc_cache_type {
	KMALLOC_NORMAL = 0,
	KMALLOC_CGROUP,		/* __GFP_ACCOUNT: kmalloc-cg-<n> */
	KMALLOC_RECLAIM,	/* __GFP_RECLAIMABLE: kmalloc-rcl-<n> */
	KMALLOC_DMA,		/* __GFP_DMA: dma-kmalloc-<n> */
	NR_KMALLOC_TYPES
};
#define KMALLOC_NOT_NORMAL_BITS	(__GFP_RECLAIMABLE | __GFP_DMA | __GFP_ACCOUNT)

static __always_inline enum kmalloc_cache_type kmalloc_type(gfp_t flags)
{
	if (likely((flags & KMALLOC_NOT_NORMAL_BITS) == 0))
		return KMALLOC_NORMAL;
	if (flags & __GFP_DMA)
		return KMALLOC_DMA;
	if (flags & __GFP_RECLAIMABLE)	/* wins over __GFP_ACCOUNT, as in 5.17 */
		return KMALLOC_RECLAIM;
	return KMALLOC_CGROUP;
}

/* kmalloc_caches[type][index]: index 1 = 96 bytes, 2 = 192, n >= 3 = 2^n. */
extern struct kmem_cache *kmalloc_caches[NR_KMALLOC_TYPES][KMALLOC_SHIFT_HIGH + 1];
#define KMALLOC_INDEX_MAX	25	/* 32 MiB: the end of the 5.17 ladder */
struct kmalloc_info_struct {
	const char *name[NR_KMALLOC_TYPES];	/* "kmalloc-1k", "kmalloc-rcl-1k", ... */
	unsigned int size;			/* object size of the caches */
};
extern const struct kmalloc_info_struct kmalloc_info[KMALLOC_INDEX_MAX + 1];

/* The 5.17 index ladder: 0 for size 0, KMALLOC_SHIFT_LOW up to
 * KMALLOC_MIN_SIZE, 1 for (64,96], 2 for (128,192], else ceil(log2(size));
 * -1 past 32 MiB. */
static __always_inline int kmalloc_index(size_t size)
{
	if (!size)
		return 0;
	if (size <= KMALLOC_MIN_SIZE)
		return KMALLOC_SHIFT_LOW;
	if (KMALLOC_MIN_SIZE <= 32 && size > 64 && size <= 96)
		return 1;
	if (KMALLOC_MIN_SIZE <= 64 && size > 128 && size <= 192)
		return 2;
	if (size > (1UL << KMALLOC_INDEX_MAX))
		return -1;
	return fls64(size - 1);
}

/* Sizes up to this take their cache index from kmalloc_size_index[]. */
#define KMALLOC_SIZE_INDEX_MAX	8192U
/* kmalloc_index() of sizes 1..KMALLOC_SIZE_INDEX_MAX, by (size - 1) / 8
 * (slab_common.c; constant, so the fast path reads it with no ordering). */
extern const unsigned char kmalloc_size_index[KMALLOC_SIZE_INDEX_MAX / 8];

/* The kmalloc_caches[] index of size, 1 <= size <= KMALLOC_MAX_CACHE_SIZE:
 * one load from the table below KMALLOC_SIZE_INDEX_MAX (SLUB's largest
 * cache: the caller's range test removes the other branch). */
static __always_inline unsigned int kmalloc_cache_index(size_t size)
{
	if (size <= KMALLOC_SIZE_INDEX_MAX)
		return kmalloc_size_index[(size - 1) / 8];
	return (unsigned int)fls64(size - 1);
}

/*
 * The cache kmalloc(size, flags) uses, for 1 <= size <= KMALLOC_MAX_CACHE_SIZE
 * (the caller tests the range): inline so the kmalloc fast path makes no
 * call.  NULL before the caches exist.
 */
static __always_inline struct kmem_cache *kmalloc_slab_inline(size_t size, gfp_t flags)
{
	/* why acquire: callers may look before slab_ensure_init() (a NULL
	 * sends them to it); a cache they do see is fully set up */
	return smp_load_acquire(&kmalloc_caches[kmalloc_type(flags)][kmalloc_cache_index(size)]);
}

/* The cache kmalloc(size, flags) uses; ZERO_SIZE_PTR for 0, NULL (with a
 * one-time warning) above KMALLOC_MAX_CACHE_SIZE or before the caches exist. */
struct kmem_cache *kmalloc_slab(size_t size, gfp_t flags);
/* Strip GFP_SLAB_BUG_MASK bits, with the kernel's "Fix your code!" warning. */
gfp_t kmalloc_fix_flags(gfp_t flags);

/*
 * Large kmalloc: a compound folio straight from the page allocator, marked
 * PG_large_kmalloc, folio->index = the requested size.  kfree() of a pointer
 * whose folio is not a slab hands it to free_large_kmalloc(), which checks
 * the mark and that the pointer is the folio's start (else it reports and
 * aborts), clears the mark and frees the pages.
 */
void *kmalloc_order(size_t size, gfp_t flags, unsigned int order);
void *kmalloc_large(size_t size, gfp_t flags);
void *kmalloc_large_node(size_t size, gfp_t flags, int node);
void free_large_kmalloc(struct folio *folio, void *object);

/* Free a string that may be a literal (not in the arena): kernel kfree_const. */
void kfree_const(const void *x);

/* Exported cache and kmalloc API (uslab_<name>), kernel semantics. */
struct kmem_cache *kmem_cache_create(const char *name, unsigned int size,
		unsigned int align, slab_flags_t flags, void (*ctor)(void *));
struct kmem_cache *kmem_cache_create_usercopy(const char *name, unsigned int size,
		unsigned int align, slab_flags_t flags, unsigned int useroffset,
		unsigned int usersize, void (*ctor)(void *));
void kmem_cache_destroy(struct kmem_cache *s);
int kmem_cache_shrink(struct kmem_cache *s);
unsigned int kmem_cache_size(struct kmem_cache *s);
const char *kmem_cache_name(struct kmem_cache *s);
/* kmalloc() of a compile-time constant size: index = the public header's
 * kmalloc_index(size) (5.17 ladder with an 8-byte smallest class). */
void *kmalloc_index_alloc(unsigned int index, size_t size, gfp_t flags, int node);
void *krealloc(const void *p, size_t new_size, gfp_t flags);
/* The object of a SLAB_KMALLOC cache is now used for size bytes (krealloc in
 * place, the malloc drop-in's realloc): with the kmalloc red zone, its red
 * zone starts there.  SLUB and SLAB define it; elsewhere a weak no-op. */
void kmalloc_set_orig_size(const void *object, size_t size);
/* kmem_cache_alloc() of an object of a SLAB_KMALLOC cache asked for at size
 * bytes (<= its object size; the malloc drop-in's size classes): the same
 * fast path, and with the kmalloc red zone the red zone starts at size.
 * SLUB and SLAB define it; elsewhere a weak kmem_cache_alloc(). */
void *kmem_cache_alloc_orig(struct kmem_cache *s, gfp_t flags, size_t size);
/* The same on a node (kmalloc_index_alloc: kmalloc of a constant size). */
void *kmem_cache_alloc_node_orig(struct kmem_cache *s, gfp_t flags, int node, size_t size);
/* kmem_cache_create() of a SLAB_KMALLOC cache, for kmem_cache_alloc_orig(). */
struct kmem_cache *kmem_cache_create_kmalloc(const char *name, unsigned int size,
		unsigned int align, slab_flags_t flags);
void kfree_sensitive(const void *p);
void kfree_bulk(size_t nr, void **p);
size_t ksize(const void *p);
void show_slabinfo(FILE *f);

/*
 * Reports on stderr, written through a stack buffer (never allocate, safe
 * with any lock held).  slab_warn is the kernel's WARN() layout ("cut here"
 * banner, message, "WARNING: ... at <where>"); slab_panic prints "Kernel
 * panic - not syncing: ..." and aborts; slab_warn_alloc is the kernel's
 * warn_alloc ("<what>, mode:0x...(GFP_...)"), silent under __GFP_NOWARN.
 */
__printf(1, 2) void slab_printk(const char *fmt, ...);
__printf(2, 3) void slab_warn(const char *where, const char *fmt, ...);
__printf(1, 2) __noreturn __cold void slab_panic(const char *fmt, ...);
__printf(2, 3) void slab_warn_alloc(gfp_t gfp, const char *fmt, ...);
/* The kernel's %pGg: "GFP_KERNEL|__GFP_ZERO" into buf; returns buf. */
const char *gfp_flags_string(char *buf, size_t len, gfp_t gfp);

/* Zero memory in a way the compiler may not drop as a dead store. */
static inline void memzero_explicit(void *s, size_t n)
{
	__builtin_memset(s, 0, n);
	__asm__ __volatile__("" : : "r"(s) : "memory");
}

/* ---- util.c (exported as uslab_<name>) ---- */
void *kmemdup(const void *src, size_t len, gfp_t gfp);
char *kstrdup(const char *s, gfp_t gfp);
char *kstrndup(const char *s, size_t max, gfp_t gfp);
void *kmemdup_nul(const char *s, size_t len, gfp_t gfp);
void *kvmalloc_node(size_t size, gfp_t flags, int node);
void *kvrealloc(const void *p, size_t oldsize, size_t newsize, gfp_t flags);
void kvfree(const void *addr);
void kvfree_sensitive(const void *addr, size_t len);

/* ---- debug_options.c (allocator-neutral; docs/debugging.md) ----
 * The slub_debug= / slab_debug= option, parsed as Linux parses it:
 *   slub_debug[=FLAGS][,CACHE[,CACHE...]][;FLAGS,CACHE...]...
 * FLAGS letters: F (SLAB_CONSISTENCY_CHECKS), Z (SLAB_RED_ZONE), P
 * (SLAB_POISON), U (SLAB_STORE_USER), T (SLAB_TRACE), A (SLAB_FAILSLAB), O
 * (order guard, see below), '-' (none); no letters = FZPU.  A block without
 * cache names sets the global flags; CACHE matches a name exactly, or as a
 * prefix when it ends in '*'.
 */
/* The debug flags the options add to a cache named name created with
 * flags: the first block naming it, else the global flags (without U for
 * SLAB_NOLEAKTRACE caches); 0 when debugging is off.  The caller ORs them
 * into the creation flags and masks to what it supports. */
slab_flags_t slab_debug_flags_for(const char *name, slab_flags_t flags);
/* True when 'O' was given: drop the metadata flags (Z, P, U) of a cache
 * whose smallest slab order they would raise. */
bool slab_debug_order_guard(void);
/* failslab (A): true if this allocation of a SLAB_FAILSLAB cache must fail
 * (the failslab=N option: every Nth one, default every one; never for
 * __GFP_NOFAIL). */
bool slab_should_failslab(gfp_t gfp);
/* Damage reports found and repaired under slab_error=repair (atomic). */
extern unsigned int slab_errors;
/* Call after every report of damage or misuse: slab_error=abort (the
 * default) flushes stderr and aborts; slab_error=repair counts the error in
 * slab_errors and returns, and the caller repairs and goes on. */
void slab_error_done(void);
/* True under slab_error=repair (callers print their "FIX" lines then). */
bool slab_error_repair(void);
/* Exported as uslab_kmem_cache_validate: errors found in a debug cache,
 * -EINVAL for a cache without debugging (the allocator's; a weak -EINVAL
 * fallback in debug_options.c serves allocators without one). */
int kmem_cache_validate(struct kmem_cache *s);

/*
 * slabinfo 2.1 rows: the allocator fills one struct slabinfo per cache;
 * slab_common prints the header and rows in the kernel's exact format.
 */
struct slabinfo {
	unsigned long active_objs;
	unsigned long num_objs;
	unsigned long active_slabs;
	unsigned long num_slabs;
	unsigned long shared_avail;
	unsigned int limit;
	unsigned int batchcount;
	unsigned int shared;
	unsigned int objects_per_slab;
	unsigned int cache_order;
};

/*
 * Per-cache statistics beyond a slabinfo row: what the kernel shows in
 * /sys/kernel/slab/<cache>/ (read by uslabinfo through stats.c).  The
 * allocator's get_cache_stats() fills every field, with slab_mutex held;
 * CACHE_STAT_NONE marks a field the allocator has no such thing for (SLAB
 * has no min_partial, for instance).  Counts are read as the kernel's
 * sysfs reads them: each under its own lock, so not one atomic picture.
 */
#define CACHE_STAT_NONE		(~0UL)
struct cache_stats {
	unsigned long objs_per_slab;	/* objects in a slab of the preferred order */
	unsigned long order;		/* the preferred slab order */
	unsigned long objects;		/* objects allocated (held by CPUs included) */
	unsigned long objects_partial;	/* allocated objects in node partial slabs */
	unsigned long partial;		/* slabs on the node partial lists */
	unsigned long cpu_slabs;	/* slabs owned by CPUs (cpu slabs and their partial chains) */
	unsigned long slabs;		/* slabs of the cache, any state */
	unsigned long total_objects;	/* object slots in those slabs */
	unsigned long min_partial;	/* empty slabs a node keeps */
	unsigned long cpu_partial;	/* free objects a CPU keeps on partial slabs */
	unsigned long slabs_cpu_partial;	/* slabs on the CPUs' partial chains */
};

/*
 * A name merged into an existing cache by kmem_cache_create (the kernel's
 * sysfs alias link).  Recorded by slab_common.c, listed by uslabinfo; as
 * with the kernel's links, a name stays listed until its cache is
 * destroyed, even if its own creator destroyed it before.
 */
struct slab_alias {
	struct list_head list;		/* on slab_aliases (slab_mutex) */
	struct kmem_cache *cache;	/* the cache it was merged into (constant) */
	const char *name;		/* the name given, kstrdup'd (constant) */
};
extern struct list_head slab_aliases;	/* every alias, newest first (slab_mutex) */

/* ---- the allocator interface: each of slub.c, slab.c, slob.c supplies all ----
 * (an allocator with nothing to do supplies an empty function) */
void kmem_cache_init(void);		/* bootstrap kmem_cache(_node) and kmalloc caches */
int __kmem_cache_create(struct kmem_cache *s, slab_flags_t flags);
int __kmem_cache_shutdown(struct kmem_cache *s);	/* 0 if no objects remain */
void __kmem_cache_release(struct kmem_cache *s);
int __kmem_cache_shrink(struct kmem_cache *s);	/* 0 if every slab could be freed */
struct kmem_cache *__kmem_cache_alias(const char *name, unsigned int size,
		unsigned int align, slab_flags_t flags, void (*ctor)(void *));
slab_flags_t kmem_cache_flags(unsigned int object_size, slab_flags_t flags, const char *name);
size_t __ksize(const void *object);
void get_slabinfo(struct kmem_cache *s, struct slabinfo *sinfo);
void get_cache_stats(struct kmem_cache *s, struct cache_stats *st);	/* slab_mutex held */
void slabinfo_show_stats(FILE *f, struct kmem_cache *s);	/* extra columns, may print nothing */
/* Apply a slabinfo write "name limit batchcount shared"; -EINVAL/-EIO as the kernel. */
int slabinfo_write_line(const char *line);
int slabinfo_write(const char *line);	/* exported: uslab_slabinfo_write */
extern const char *const allocator_name;	/* "slub", "slab" or "slob" */

/* Exported object API, defined by the allocator. */
void *kmem_cache_alloc(struct kmem_cache *s, gfp_t flags);
void *kmem_cache_alloc_node(struct kmem_cache *s, gfp_t flags, int node);
void kmem_cache_free(struct kmem_cache *s, void *obj);
int kmem_cache_alloc_bulk(struct kmem_cache *s, gfp_t flags, size_t nr, void **p);
/* s == NULL: each object may be a kmalloc object of any cache (kfree_bulk). */
void kmem_cache_free_bulk(struct kmem_cache *s, size_t nr, void **p);
void *__kmalloc(size_t size, gfp_t flags);
void *__kmalloc_node(size_t size, gfp_t flags, int node);
void kfree(const void *object);

/* ---- rcu.c (liburcu's bulletproof flavour and a callback thread; see the
 * top of rcu.c) ----  Exported as uslab_<name>.  Only call_rcu() may be
 * called with a uslab lock held (after rcu_prepare()): the others may wait
 * for readers or take liburcu's locks, which fork() takes before uslab's.
 */
typedef void (*rcu_callback_t)(struct rcu_head *head);
void rcu_read_lock(void);
void rcu_read_unlock(void);
int rcu_read_lock_held(void);		/* inside rcu_read_lock() on this thread? */
/* Make call_rcu() usable under uslab locks: fork hooks registered, the
 * callback thread started.  Call it with no lock held (every entry point
 * does; kmem_cache_create of a SLAB_TYPESAFE_BY_RCU cache does). */
void rcu_prepare(void);
void rcu_register_thread(void);		/* optional with urcu-bp: registers now, not lazily */
void rcu_unregister_thread(void);	/* nothing to do with urcu-bp */
void synchronize_rcu(void);
/* func(head) runs after a grace period on the callback thread (lock-free). */
void call_rcu(struct rcu_head *head, rcu_callback_t func);
/* Waits for every callback queued before it and every kvfree_rcu() object
 * queued before it to be freed.  Not inside rcu_read_lock(), not from a callback. */
void rcu_barrier(void);
/* Exported as uslab_rcu_stats: the kvfree_rcu counters. */
void rcu_stats(struct uslab_rcu_stats *st);

/* ---- kvfree_rcu.c ---- */
/* Free ptr after a grace period, batched per thread.  head: ptr's rcu_head,
 * or NULL (headless: may wait in synchronize_rcu() when memory is short). */
void kvfree_call_rcu(struct rcu_head *head, void *ptr);
/* rcu_barrier()'s part: every object queued so far is freed on return. */
void kvfree_rcu_barrier(void);
/* Objects queued and not yet freed (a snapshot; takes each batch lock). */
unsigned long kvfree_rcu_pending(void);
/* Fill the kvfree_rcu counters of *st (exported through rcu.c). */
void kvfree_rcu_get_stats(struct uslab_rcu_stats *st);
/* In the child of fork(), once RCU works again: batches of threads that
 * do not exist there go out now. */
void kvfree_rcu_fork_child(void);

#endif /* USLAB_MM_SLAB_H */
