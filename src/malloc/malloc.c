// SPDX-License-Identifier: MIT
/*
 * malloc.c - the C library's allocator (malloc, free, calloc, realloc and
 * the rest of the POSIX and glibc family) over uslab's kmem_cache, kmalloc
 * and page allocator, for any dynamically linked program:
 *
 *	LD_PRELOAD=libuslab-malloc-slub.so program
 *
 * 1. Overview.  A request is served by size:
 *      <= 8 KiB     a size class: a kmem_cache of its own (SLUB, SLAB), or
 *                   kmalloc (SLOB, whose first fit needs no classes)
 *      <= 4 MiB     a large folio from the page allocator (kmalloc_large);
 *                   the limit is the largest buddy block, PAGE_SIZE <<
 *                   (max_order - 1)
 *      larger       a private mapping of its own (huge.c)
 *    and, if the arena cannot serve a request, by a private mapping too, so
 *    that malloc fails with ENOMEM only when the OS has no memory left.
 *    No block carries a header: free() asks the memory map what the
 *    pointer is (ptrcheck.c) and the slab knows its cache.
 *
 *    Size classes.  kmalloc's classes are powers of two (plus 96 and 192):
 *    a program's sizes waste 25% on average and up to 50% of each block.
 *    malloc uses finer ones: every multiple of 16 up to 128 bytes, then four
 *    classes per doubling (160, 192, 224, 256, 320, ... 7168, 8192), so no
 *    block above 128 bytes wastes more than 20% and the average is near 10%.
 *    4608 is a fifth between 4096 and 5120: a page and a header is a common
 *    request (sqlite's page cache asks 4368 bytes for each 4 KiB page),
 *    which 5120 would round up by 17% (peak RSS of sqlite3 -0.2 MiB).
 *    Every class is a multiple of 16, which gives every block the 16-byte
 *    alignment malloc promises (kmalloc-8 would give 8).  Classes that
 *    coincide with a kmalloc cache merge with it as any cache does.
 *
 * 2. Fast paths (the call tree):
 *	malloc(n)  -> malloc_fast: class cache and tag by table, one entry
 *	              (tag 0: not ready yet), the cache's allocation (SLUB:
 *	              in line, the pop of the cpu slab's freelist, else the
 *	              newest block of the CPU's sheaf), store the tag in the
 *	              live map (whose range test also rejects NULL)
 *	                  -> malloc_missed_at (SLUB's pop missed: the cache's
 *	                     kmem_cache_alloc_orig by a call)
 *	                  -> malloc_slow (anything else)
 *	free(p)    -> malloc_free: in the arena and aligned? its live tag names
 *	              a class: clear the tag, give p to that class's cache
 *	              (SLUB, in line: pushed onto the cpu freelist if p lies
 *	              in the cpu slab, slab_free_fast_live, else into the
 *	              CPU's sheaf, sheaf_push_live, with no look-up of its
 *	              slab; a full sheaf: kmem_cache_free_keep_errno, a tail
 *	              call)
 *	                                              -> malloc_free_slow (the rest)
 *    No lock and no atomic read-modify-write is taken on either: the
 *    allocator's per-CPU fast path does the work; the live tag is a plain
 *    byte load and store (ptrcheck.c §4 says why that is exact).  free()
 *    neither reads the memory map nor the slab on its fast path, and
 *    touches errno only on the paths that can change it.  On SLUB neither
 *    makes a call: why in line, the tag already proved what SLUB's own
 *    free fast path tests (an object start of the cache, live, uncharged),
 *    and a call costs malloc a stack frame.
 *
 * 3. States.  Before the first call nothing exists.  malloc_init() runs
 *    once, under malloc_init_lock: it brings up the slab layer, the live
 *    map and the class caches, then, if the arena exists, publishes the
 *    class tags (malloc's fast path allowed) and sets malloc_ready (the
 *    arena serves blocks), then malloc_init_done.  While it runs, the same
 *    thread may come back (libc or pthread_atfork allocating on our behalf):
 *    it is served from a static bootstrap buffer, whose chunks free()
 *    recognises and never reuses.  Other threads wait for the lock.
 *
 * 4. Lock order.  malloc_init_lock is taken before every lock of the
 *    library (it is held across slab initialisation); huge.c's lock is a
 *    leaf.  Both are registered with fork.c, as is every lock below, so a
 *    fork while another thread allocates leaves the child a usable heap.
 *
 * 5. Invariants.  Every block handed out starts on a 16-byte boundary and
 *    has its live tag set until free() clears it, before the block goes
 *    back to the allocator; a class tag is only ever set on a block of that
 *    class's cache, so free() may trust it to name the cache.  errno is
 *    preserved by free() and by every successful call; failures set ENOMEM
 *    (or EINVAL for a bad alignment).
 *
 * 6. Debug mode (USLAB_OPTIONS=slub_debug etc.) changes nothing here: the
 *    class caches are ordinary caches, so the allocator's red zones,
 *    poisoning and owner tracking apply to them.
 */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include "malloc_internal.h"
#if CONFIG_SLUB
#include "mm/slub_fastpath.h"	/* why: the class caches' pop and push, in line */
#endif

/* ---- size classes ---- */

static const unsigned int malloc_class_size[NR_MALLOC_CLASSES] = {
	16, 32, 48, 64, 80, 96, 112, 128,
	160, 192, 224, 256, 320, 384, 448, 512,
	640, 768, 896, 1024, 1280, 1536, 1792, 2048,
	2560, 3072, 3584, 4096, 4608, 5120, 6144, 7168, 8192,
};

/*
 * The fast paths' tables, next to the live map (malloc_internal.h):
 * size_class, a size's class cache and live tag by 16-byte steps, one
 * entry of one cache line, no branch (a class tag is class + 1,
 * ptrcheck.c); tag_cache, the class caches by live tag, NULL for every tag
 * that is not a class, so that free() finds a block's cache, or that it
 * has none, with one load.
 */
struct malloc_hot malloc_hot;
static char malloc_cache_names[NR_MALLOC_CLASSES][16];	/* "malloc-160", ... */

static unsigned long large_max;	/* largest buddy block in bytes (set at init) */
static bool malloc_ready;	/* the arena may serve blocks (release/acquire) */
static bool malloc_init_done;	/* malloc_init() finished (release/acquire) */
static pthread_mutex_t malloc_init_lock = PTHREAD_MUTEX_INITIALIZER;
/* why initial-exec: no __tls_get_addr (which may allocate) on any path */
static __thread bool malloc_in_init __attribute__((tls_model("initial-exec")));

const char *malloc_name = CONFIG_SLUB ? "malloc-slub" : CONFIG_SLAB ? "malloc-slab" : "malloc-slob";

/* size's class (size <= MALLOC_SMALL_MAX); its tag is 0 until the fast
 * path may run (malloc_classes_publish). */
static __always_inline const struct size_class *size_to_class(size_t size)
{
	BUILD_BUG_ON(sizeof(struct size_class) != MALLOC_ALIGN);
	/* why the byte offset: one entry per granule, so the rounded size is
	 * the entry's offset (no shift there and back) */
	return (const struct size_class *)((const char *)malloc_hot.size_class +
					   ALIGN(size, MALLOC_ALIGN));
}

/* The live tag of sc's blocks, 0 before malloc is ready; then sc->cache
 * may be read. */
static __always_inline unsigned int class_tag(const struct size_class *sc)
{
	return smp_load_acquire(&sc->tag);
}

/*
 * SLOB's kmalloc puts a size header in front of the block and aligns the
 * block to ARCH_KMALLOC_MINALIGN, or to its size for a power of two; if that
 * minimum is below 16, only power-of-two requests are 16-byte aligned.
 */
static __always_inline size_t slob_request(size_t size)
{
	if (ARCH_KMALLOC_MINALIGN >= MALLOC_ALIGN)
		return ALIGN(max(size, 1UL), MALLOC_ALIGN);
	return roundup_pow_of_two(max(size, MALLOC_ALIGN));
}

/* A block of a small size (<= MALLOC_SMALL_MAX, class sc, tag read) from
 * the slab layer. */
static __always_inline void *malloc_small(size_t size, const struct size_class *sc, gfp_t gfp)
{
	if (CONFIG_SLOB)
		return __kmalloc(slob_request(size), gfp);
	/* why _orig: with slub_debug=Z the red zone starts at size (kmalloc's) */
	return kmem_cache_alloc_orig(sc->cache, gfp, size);
}

/*
 * SLUB: pop, in line, the head of s's cpu freelist, else the newest block
 * of this CPU's sheaf of s, into *p, zeroed if gfp asks for it, and mark
 * it live with tag.  False with *p NULL if neither pop can be made (no CPU
 * yet, the sheaf empty and the freelist empty or its head corrupt, or a
 * debug-path cache, which has neither): malloc_missed_at then
 * calls kmem_cache_alloc_orig.  False with *p set if it cannot be marked.
 * Not for __GFP_ACCOUNT (malloc never asks for it) nor a SLAB_ACCOUNT
 * cache (no class cache is one: malloc_classes_init).
 */
static __always_inline bool malloc_pop_mark(struct kmem_cache *s, gfp_t gfp, unsigned char tag,
					    void **p)
{
#if CONFIG_SLUB
	struct kmem_cache_cpu *c = this_cpu_ptr_or_null(s->cpu_slab);
	void *object;

	if (unlikely(!c))
		return false;
	if (unlikely(!cpu_freelist_pop(s, c, &object))) {
		if (unlikely(!sheaf_pop_live(c, &object)))
			return false;
		/* why no test of its tag: a block in a sheaf was freed (its
		 * tag cleared) and is on no freelist, so nothing handed it
		 * out since, and the sheaf, in the allocator's memory, holds
		 * no link a write after free could forge */
		*p = slab_popped(s, gfp, object);
		live_map_set_in(*p, tag);
		return true;
	}
	*p = slab_popped(s, gfp, object);
	/* why no range test: the hardened pop placed the object in the cpu
	 * slab, inside the arena, and a class tag exists only with the map
	 * (malloc_classes_publish) */
	if (CONFIG_SLAB_FREELIST_HARDENED)
		return live_map_mark_in(*p, tag);
	return live_map_mark(*p, tag);
#else
	(void)s, (void)gfp, (void)tag, (void)p;
	return false;
#endif
}

/* Mark p, a block from __kmalloc or kmalloc_large, live: a slab object in
 * the live map, a large block in its folio (large_mark).  False as
 * live_map_mark is. */
static bool kmalloc_mark(void *p)
{
	struct folio *folio = virt_to_folio(p);

	if (folio_test_slab(folio))
		return live_map_mark(p, LIVE_KMALLOC);
	if (large_live(folio))
		return false;
	large_mark(folio);
	return true;
}

/* Mark p, a block of a class with tag, live; false as live_map_mark.  On
 * SLOB a class is kmalloc, whose blocks past a page are large folios:
 * those take their folio's word, as every large block does. */
static __always_inline bool class_mark(void *p, unsigned char tag)
{
	if (CONFIG_SLOB)
		return p && kmalloc_mark(p);
	return live_map_mark(p, tag);
}

/* ---- the bootstrap buffer ---- */

#define BOOT_SIZE	(64UL << 10)	/* enough for what libc allocates while we start */
#define BOOT_HEADER	16UL		/* chunk header: its usable size */

static char boot_buf[BOOT_SIZE] __aligned(PAGE_SIZE);
static unsigned long boot_used;	/* bytes handed out (atomic) */

bool malloc_boot_owns(const void *p)
{
	return (const char *)p >= boot_buf && (const char *)p < boot_buf + BOOT_SIZE;
}

size_t malloc_boot_usable(const void *p)
{
	return *(const size_t *)((const char *)p - BOOT_HEADER);
}

/* Bump allocation, zeroed (the buffer is never reused); NULL when full. */
static void *boot_alloc(size_t size, size_t align)
{
	unsigned long old = __atomic_load_n(&boot_used, __ATOMIC_RELAXED), start, end;

	do {
		if (size > BOOT_SIZE)
			return NULL;
		start = ALIGN(old + BOOT_HEADER, max(align, MALLOC_ALIGN));
		end = start + ALIGN(max(size, 1UL), MALLOC_ALIGN);
		if (end > BOOT_SIZE)
			return NULL;
	} while (!__atomic_compare_exchange_n(&boot_used, &old, end, false,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	*(size_t *)(boot_buf + start - BOOT_HEADER) = end - start;
	return boot_buf + start;
}

static void *malloc_boot_slow(size_t size, size_t align)
{
	void *p = boot_alloc(size, align);

	if (!p)
		errno = ENOMEM;
	return p;
}

/* ---- initialisation ---- */

/* "malloc-" + decimal size, without stdio (it may allocate). */
static void class_cache_name(char *buf, unsigned int size)
{
	char digits[12];
	int n = 0;

	memcpy(buf, "malloc-", 7);
	do
		digits[n++] = (char)('0' + size % 10);
	while ((size /= 10));
	buf += 7;
	while (n)
		*buf++ = digits[--n];
	*buf = '\0';
}

static unsigned char smallest_class(size_t size)
{
	unsigned char c = 0;

	while (malloc_class_size[c] < size)
		c++;
	return c;
}

/* Create the class caches; false if one could not be had at all. */
static bool malloc_classes_init(void)
{
	struct kmem_cache *s;
	unsigned int c;

	if (CONFIG_SLOB)
		return true;
	for (c = 0; c < NR_MALLOC_CLASSES; c++) {
		class_cache_name(malloc_cache_names[c], malloc_class_size[c]);
		s = kmem_cache_create_kmalloc(malloc_cache_names[c], malloc_class_size[c],
					      MALLOC_ALIGN, 0);
#if CONFIG_SLUB
		/* why: the inline pop and push neither charge nor uncharge
		 * (created without SLAB_ACCOUNT, a cache merges only with
		 * caches of the same accounting: never expected) */
		if (s && (s->flags & SLAB_ACCOUNT))
			s = NULL;
#endif
		/* why: a kmalloc cache is as good, only coarser */
		if (!s)
			s = kmalloc_slab(malloc_class_size[c], MALLOC_GFP);
		if (!s)
			return false;
		malloc_hot.tag_cache[c + 1] = s;
		/* why not with red zones: a block kept in place must move the
		 * red zone to its new size (kmalloc_set_orig_size) */
		if (!(s->flags & SLAB_RED_ZONE))
			malloc_hot.tag_usable[c + 1] = (unsigned short)malloc_class_size[c];
	}
	return true;
}

/*
 * Open the fast path: a non-zero class tag tells malloc_fast that
 * everything it uses is set up (the class's cache, tag_cache, the live
 * map), so each is published with release order (malloc_fast reads it
 * with acquire: a plain load on x86).  On SLOB the tag is LIVE_KMALLOC's
 * (kmalloc serves every size) and there is no cache.  Without the map
 * (live_map_init could not reserve it) the tags stay 0: every size takes
 * the slow path, which marks nothing.
 */
static void malloc_classes_publish(void)
{
	struct size_class *sc;
	unsigned int i, c;

	BUILD_BUG_ON(NR_MALLOC_CLASSES >= LIVE_KMALLOC);
	for (i = 0; i < ARRAY_SIZE(malloc_hot.size_class); i++) {
		sc = &malloc_hot.size_class[i];
		c = smallest_class(i * 16UL);
		sc->cache = malloc_hot.tag_cache[c + 1];
		/* why 0 without the map: SLUB's fast path marks without a
		 * range test; the slow path serves every size then */
		if (malloc_hot.map.tags)
			smp_store_release(&sc->tag, CONFIG_SLOB ? LIVE_KMALLOC : c + 1);
	}
}

/*
 * The steps, under malloc_init_lock.  Returns false if the layers below are
 * still coming up on this very thread (we were called from inside them):
 * the caller is then served from the bootstrap buffer and we try again later.
 */
static bool malloc_init_steps(void)
{
	static bool registered;	/* malloc_init_lock */

	if (!registered) {
		fork_lock_register(&malloc_init_lock, FORK_RANK_MALLOC_INIT);
		huge_init();
		registered = true;
	}
	slab_ensure_init();
	if (!smp_load_acquire(&mm_initialized))
		return false;
	if (!memmap.max_pfn)
		return true;	/* no arena at all: every block is a mapping */
	if (!smp_load_acquire(&slab_initialized))
		return false;
	live_map_init();
	malloc_hot.map.tags_by_addr = (unsigned long)malloc_hot.map.tags -
				      (malloc_hot.map.base >> MALLOC_ALIGN_SHIFT);
	large_max = PAGE_SIZE << (MAX_ORDER - 1);
	large_cache_init();
	if (malloc_classes_init()) {
		malloc_classes_publish();
		smp_store_release(&malloc_ready, true);
	}
	return true;
}

static noinline __cold void malloc_init(void)
{
	pthread_mutex_lock(&malloc_init_lock);
	if (!malloc_init_done) {
		malloc_in_init = true;
		if (malloc_init_steps())
			smp_store_release(&malloc_init_done, true);
		malloc_in_init = false;
	}
	pthread_mutex_unlock(&malloc_init_lock);
}

/* ---- allocation ---- */

/* align > 16: a power-of-two kmalloc cache is naturally aligned; pages are
 * aligned to their block size.  Checked, in case an allocator's debug
 * layout breaks natural alignment: then the next way is tried. */
static void *arena_alloc_aligned(size_t size, size_t align, gfp_t gfp)
{
	size_t need = max(size, align);
	void *p;

	if (align <= PAGE_SIZE && need <= MALLOC_SMALL_MAX) {
		p = __kmalloc(roundup_pow_of_two(need), gfp);
		if (!p || IS_ALIGNED((unsigned long)p, align))
			return p;
		kfree(p);
	}
	if (need > large_max)
		return NULL;
	p = kmalloc_large(need, gfp);
	if (!p || IS_ALIGNED((unsigned long)p, align))
		return p;
	kfree(p);
	return NULL;
}

/* A block from the arena, live tag set; NULL if the arena cannot serve it. */
static void *arena_alloc(size_t size, size_t align, gfp_t gfp, const char *fn,
			 const void *caller)
{
	const struct size_class *sc;
	unsigned int tag;
	void *p;

	if (!smp_load_acquire(&malloc_ready))
		return NULL;
	if (align > MALLOC_ALIGN) {
		p = arena_alloc_aligned(size, align, gfp);
	} else if (size <= MALLOC_SMALL_MAX) {
		sc = size_to_class(size);
		tag = class_tag(sc);
		p = malloc_small(size, sc, gfp);
		if (likely(class_mark(p, (unsigned char)tag)))
			return p;
	} else if (size <= large_max) {
		p = large_cache_get(size, gfp);
		if (!p)
			p = kmalloc_large(size, gfp);
	} else {
		return NULL;
	}
	if (p && unlikely(!kmalloc_mark(p)))
		p = malloc_mark_slow(p, fn, caller);
	return p;
}

/*
 * Everything but a small class hit: initialisation, alignment, large and
 * huge blocks, and the fallback to a mapping when the arena is exhausted.
 */
static noinline void *malloc_slow(size_t size, size_t align, gfp_t gfp, const char *fn,
				  const void *caller)
{
	int err = errno;
	void *p;

	if (unlikely(!smp_load_acquire(&malloc_init_done))) {
		if (!malloc_in_init)
			malloc_init();
		if (!smp_load_acquire(&malloc_init_done))
			return malloc_boot_slow(size, align);
	}
	if (size > (size_t)PTRDIFF_MAX) {
		errno = ENOMEM;
		return NULL;
	}
	p = arena_alloc(size, align, gfp, fn, caller);
	if (!p)
		p = huge_alloc(size, align);	/* sets ENOMEM on failure */
	if (p)
		errno = err;
	return p;
}

/*
 * malloc_fast missed: p could not be marked, or is NULL.  SLUB: NULL is
 * mostly the inline pop's miss (the cpu freelist is empty, or the cache
 * takes the debug path): the class cache is then asked by a call, which
 * refills the cpu slab or puts the kmalloc red zone at size; the slow way
 * is what that cannot serve (not ready yet, other sizes, no memory).
 */
static noinline void *malloc_missed_at(void *p, size_t size, gfp_t gfp, const char *fn,
				       const void *caller)
{
	const struct size_class *sc;
	unsigned int tag;

	if (p)
		return malloc_mark_slow(p, fn, caller);
	if (CONFIG_SLUB && size <= MALLOC_SMALL_MAX) {
		sc = size_to_class(size);
		tag = class_tag(sc);
		if (tag) {
			p = malloc_small(size, sc, gfp);
			if (likely(live_map_mark(p, (unsigned char)tag)))
				return p;
			if (p)
				return malloc_mark_slow(p, fn, caller);
		}
	}
	return malloc_slow(size, MALLOC_ALIGN, gfp, fn, caller);
}

/*
 * The same, for malloc_fast in the exported functions, which reach it by a
 * tail call: its return address is then their caller's (misuse.c checks
 * that reports name the program's code).  Why not pass MALLOC_CALLER():
 * the compiler reads it on entry and keeps it in a saved register across
 * the allocator's call, which costs malloc a stack frame's worth of
 * instructions, and free() a frame of its own.
 */
static noinline void *malloc_missed(size_t size, void *p, gfp_t gfp, const char *fn)
{
	return malloc_missed_at(p, size, gfp, fn, MALLOC_CALLER());
}

/*
 * The fast path proper: true with *p a small block marked live; false with
 * *p the block that could not be marked (NULL if there was none) and *size
 * set for the slow way.  Budget: a compare, the class entry's two loads and
 * a test, the allocator's fast path (SLUB: its pop, in line, whose miss
 * leaves *p NULL and *size the size asked for; else a call), then the live
 * map's range test, load, test and store.  No test of the allocator's
 * NULL (but SLUB's miss): the map's range test rejects it.
 */
static __always_inline bool malloc_try(size_t *size, gfp_t gfp, void **p)
{
	const struct size_class *sc;
	unsigned int tag;

	*p = NULL;
	if (unlikely(*size > MALLOC_SMALL_MAX))
		return false;
	sc = size_to_class(*size);
	tag = class_tag(sc);
	if (unlikely(!tag))
		return false;
	if (CONFIG_SLUB) {
		if (likely(malloc_pop_mark(sc->cache, gfp, (unsigned char)tag, p)))
			return true;
		if (!*p)
			return false;	/* malloc_missed_at calls the cache */
	} else {
		*p = malloc_small(*size, sc, gfp);
		if (likely(class_mark(*p, (unsigned char)tag)))
			return true;
	}
	/* why the class size: then size need not live across the call */
	if (!CONFIG_SLOB)
		*size = malloc_class_size[tag - 1];
	return false;
}

/* malloc for the exported functions, in tail position only. */
static __always_inline void *malloc_fast(size_t size, gfp_t gfp, const char *fn)
{
	void *p;

	if (likely(malloc_try(&size, gfp, &p)))
		return p;
	return malloc_missed(size, p, gfp, fn);
}

/* malloc anywhere else: the caller is given. */
static __always_inline void *malloc_fast_at(size_t size, gfp_t gfp, const char *fn,
					    const void *caller)
{
	void *p;

	if (likely(malloc_try(&size, gfp, &p)))
		return p;
	return malloc_missed_at(p, size, gfp, fn, caller);
}

/* ---- freeing ---- */

/* p (live tag cleared) to kfree, keeping the caller's errno: it may reach
 * the OS. */
static noinline void malloc_kfree(void *p)
{
	int err = errno;

	kfree(p);
	errno = err;
}

/*
 * p (live tag cleared) to its class cache s, keeping errno.  SLUB, in line
 * (the live tag proved what the cache's own free would test): pushed onto
 * the cpu freelist if it lies in the cpu slab (slab_free_fast_live), else
 * into the CPU's sheaf (sheaf_push_live); only a full sheaf, or a flush
 * asked for, takes kmem_cache_free_keep_errno, a tail call, which saves
 * errno only for its slow path.
 */
static __always_inline void malloc_cache_free(struct kmem_cache *s, void *p)
{
#if CONFIG_SLUB
	struct kmem_cache_cpu *c = this_cpu_ptr_or_null(s->cpu_slab);

	if (likely(c) && (likely(slab_free_fast_live(s, c, p)) || likely(sheaf_push_live(s, c, p))))
		return;
	kmem_cache_free_keep_errno(s, p);
#else
	int err = errno;

	kmem_cache_free(s, p);
	errno = err;
#endif
}

/*
 * The live tag says what p is (ptrcheck.c): a class tag is the start of a
 * live object of that class's cache, so the memory map is not consulted.
 * False, with nothing done, for NULL, an unaligned p, one outside the
 * arena, a large block or a pointer that is no live block's start: those
 * are malloc_free_slow's.
 */
static __always_inline bool malloc_free_fast(void *p)
{
	unsigned char *t, tag;
	struct kmem_cache *s;
	unsigned long g;

	if (unlikely(!live_map_granule_in(p, &g)))
		return false;
	t = &malloc_hot.map.tags[g];
	tag = __atomic_load_n(t, __ATOMIC_RELAXED);
	s = malloc_hot.tag_cache[tag];
	/* why clear before freeing: once freed, another thread may get it */
	if (likely(s)) {
		__atomic_store_n(t, LIVE_NONE, __ATOMIC_RELAXED);
		malloc_cache_free(s, p);
		return true;
	}
	if (tag != LIVE_KMALLOC)
		return false;
	__atomic_store_n(t, LIVE_NONE, __ATOMIC_RELAXED);
	malloc_kfree(p);
	return true;
}

/* malloc_free_slow, reached by a tail call from free() and cfree(): its
 * return address is their caller's (see malloc_missed). */
static noinline void malloc_free_missed(void *p, const char *fn)
{
	malloc_free_slow(p, fn, MALLOC_CALLER());
}

/* free for the exported functions, in tail position only. */
static __always_inline void malloc_free(void *p, const char *fn)
{
	if (unlikely(!malloc_free_fast(p)))
		malloc_free_missed(p, fn);
}

/* free anywhere else: the caller is given. */
static __always_inline void malloc_free_at(void *p, const char *fn, const void *caller)
{
	if (unlikely(!malloc_free_fast(p)))
		malloc_free_slow(p, fn, caller);
}

/* ---- realloc ---- */

/* Does a block of usable bytes keep size in place: it fits, and wastes at
 * most half of a block of more than 64 bytes? */
static __always_inline bool realloc_keeps(size_t usable, size_t size)
{
	return size <= usable && (usable <= 64 || size > usable / 2);
}

/* Keep the block if realloc_keeps it (a huge one shrinks in place). */
static bool realloc_in_place(void *p, const struct malloc_block *blk, size_t size)
{
	switch (blk->kind) {
	case MALLOC_HUGE:
		if (size > blk->usable)
			return false;
		huge_shrink(p, size);
		return true;
	case MALLOC_BOOT:
		return size <= blk->usable;
	default:
		return realloc_keeps(blk->usable, size);
	}
}

/*
 * Is p a live block of a size class, or a large block, that keeps size in
 * place?  Its live tag answers what it is, as it does for free
 * (malloc_free_fast): a class tag proves p the start of a live block of
 * that class, whose usable bytes are the class's size (tag_usable, 0 for
 * any other tag); no tag, but the head of a large folio whose live word
 * is set (large_mark): the folio's size.  False for
 * anything else, NULL included: malloc_realloc then looks
 * p up in full, and reports a bad pointer.  why: a program growing a
 * buffer a few bytes at a time calls realloc far more often than the block
 * moves (bench realloc, policy=exact: 2.1M calls, 30k moves), most of them
 * on its largest buffers.
 */
static __always_inline bool realloc_in_place_fast(const void *p, size_t size)
{
	const struct page *page;
	unsigned long g, word;
	unsigned char tag;

	if (unlikely(!live_map_granule_in(p, &g)))
		return false;
	tag = __atomic_load_n(&malloc_hot.map.tags[g], __ATOMIC_RELAXED);
	if (tag != LIVE_NONE)
		return realloc_keeps(malloc_hot.tag_usable[tag], size);
	/* a large block starts a page: its head's flags and live word, one
	 * line of the memory map */
	if (((unsigned long)p & ~PAGE_MASK) || unlikely(!virt_addr_valid(p)))
		return false;
	page = virt_to_page(p);
	word = __atomic_load_n(&page->private, __ATOMIC_RELAXED);
	return PageLargeKmalloc(page) && large_word_live(word) &&
	       realloc_keeps(PAGE_SIZE << (word & MALLOC_LARGE_ORDER), size);
}

static void *malloc_realloc(void *p, size_t size, const char *fn, const void *caller)
{
	struct malloc_block blk;
	void *q;

	if (likely(realloc_in_place_fast(p, size)))
		return p;
	malloc_lookup(p, &blk, fn, caller);
	if (realloc_in_place(p, &blk, size)) {
		kmalloc_set_orig_size(p, size);	/* the kmalloc red zone moves */
		return p;
	}
	q = malloc_fast_at(size, MALLOC_GFP, fn, caller);
	if (!q)
		return NULL;
	memcpy(q, p, min(blk.usable, size));
	if (!malloc_free_fast(p))
		malloc_free_moved(p, fn, caller);
	return q;
}

/* ---- aligned allocation ---- */

static void *malloc_aligned(size_t align, size_t size, const char *fn, const void *caller)
{
	if (align <= MALLOC_ALIGN)
		return malloc_fast_at(size, MALLOC_GFP, fn, caller);
	return malloc_slow(size, align, MALLOC_GFP, fn, caller);
}

/* ---- the exported API ---- */

MALLOC_EXPORT void *malloc(size_t size)
{
	return malloc_fast(size, MALLOC_GFP, "malloc");
}

/* errno: malloc_free's paths that may change it keep it themselves; NULL
 * fails its range check and is ignored by malloc_free_slow. */
MALLOC_EXPORT void free(void *p)
{
	malloc_free(p, "free");
}

MALLOC_EXPORT void cfree(void *p)
{
	malloc_free(p, "cfree");
}

MALLOC_EXPORT void *calloc(size_t nmemb, size_t size)
{
	size_t bytes;

	if (unlikely(__builtin_mul_overflow(nmemb, size, &bytes))) {
		errno = ENOMEM;
		return NULL;
	}
	return malloc_fast(bytes, MALLOC_GFP | __GFP_ZERO, "calloc");
}

/* glibc: realloc(NULL, n) is malloc(n); realloc(p, 0) frees p and returns NULL. */
MALLOC_EXPORT void *realloc(void *p, size_t size)
{
	if (!p)
		return malloc_fast(size, MALLOC_GFP, "realloc");
	if (!size) {
		malloc_free_at(p, "realloc", MALLOC_CALLER());
		return NULL;
	}
	return malloc_realloc(p, size, "realloc", MALLOC_CALLER());
}

MALLOC_EXPORT void *reallocarray(void *p, size_t nmemb, size_t size)
{
	size_t bytes;

	if (unlikely(__builtin_mul_overflow(nmemb, size, &bytes))) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, bytes);
}

MALLOC_EXPORT int posix_memalign(void **memptr, size_t align, size_t size)
{
	int err = errno;
	void *p;

	if (!is_power_of_2(align) || align < sizeof(void *))
		return EINVAL;
	p = malloc_aligned(align, size, "posix_memalign", MALLOC_CALLER());
	errno = err;	/* why: posix_memalign reports through its result only */
	if (!p)
		return ENOMEM;
	*memptr = p;
	return 0;
}

/* C11/glibc 2.38: the alignment must be a power of two (0 is not). */
MALLOC_EXPORT void *aligned_alloc(size_t align, size_t size)
{
	if (!is_power_of_2(align)) {
		errno = EINVAL;
		return NULL;
	}
	return malloc_aligned(align, size, "aligned_alloc", MALLOC_CALLER());
}

/* glibc: an alignment that is not a power of two is rounded up to one. */
MALLOC_EXPORT void *memalign(size_t align, size_t size)
{
	if (align > SIZE_MAX / 2 + 1) {
		errno = EINVAL;
		return NULL;
	}
	return malloc_aligned(roundup_pow_of_two(align), size, "memalign", MALLOC_CALLER());
}

MALLOC_EXPORT void *valloc(size_t size)
{
	return malloc_aligned(PAGE_SIZE, size, "valloc", MALLOC_CALLER());
}

/* Whole pages: the size is rounded up to a multiple of the page size. */
MALLOC_EXPORT void *pvalloc(size_t size)
{
	size_t bytes = ALIGN(size, PAGE_SIZE);

	if (unlikely(bytes < size)) {
		errno = ENOMEM;
		return NULL;
	}
	return malloc_aligned(PAGE_SIZE, bytes, "pvalloc", MALLOC_CALLER());
}

MALLOC_EXPORT size_t malloc_usable_size(void *p)
{
	struct malloc_block blk;

	if (!p)
		return 0;
	malloc_lookup(p, &blk, "malloc_usable_size", MALLOC_CALLER());
	return blk.usable;
}

MALLOC_ALIAS(__libc_malloc, malloc);
MALLOC_ALIAS(__libc_free, free);
MALLOC_ALIAS(__libc_calloc, calloc);
MALLOC_ALIAS(__libc_realloc, realloc);
MALLOC_ALIAS(__libc_memalign, memalign);
MALLOC_ALIAS(__libc_valloc, valloc);
MALLOC_ALIAS(__libc_pvalloc, pvalloc);
MALLOC_ALIAS(__posix_memalign, posix_memalign);
