/* SPDX-License-Identifier: MIT */
/*
 * malloc_internal.h - what the files of the malloc drop-in share.
 *
 * Glossary
 *   block      what one malloc returned: a slab object, a large folio, a
 *              huge mapping or a bootstrap chunk (enum malloc_kind).
 *   class      one of malloc's size classes: 16-byte steps to 128, then four
 *              per doubling to 8 KiB, each a kmem_cache (SLUB, SLAB).
 *   large      a compound folio from the page allocator (kmalloc_large),
 *              for sizes above the classes up to the largest buddy block.
 *   huge       a private mapping for anything larger (huge.c).
 *   live map   one byte per 16-byte granule of the arena, non-zero while a
 *              block starts there, naming its class (ptrcheck.c): the
 *              constant-time answer to "is this the start of a live block,
 *              and whose?".
 *
 * Files: malloc.c (the POSIX/glibc entry points, classes, initialisation),
 * ptrcheck.c (live map, pointer validation, reports), huge.c (mappings).
 */
#ifndef USLAB_MALLOC_INTERNAL_H
#define USLAB_MALLOC_INTERNAL_H

#include "mm/slab.h"

#define MALLOC_ALIGN		16UL	/* minimum alignment of every block */
#define NR_MALLOC_CLASSES	33	/* size classes (malloc.c) */
#define MALLOC_ALIGN_SHIFT	4
#define MALLOC_GFP		(GFP_KERNEL | __GFP_NOWARN)	/* failure is ENOMEM, not a warning */

/* Exported libc names: default visibility; the version script keeps only these. */
#define MALLOC_EXPORT		__attribute__((visibility("default")))
/* why copy(): gcc wants an alias to carry its target's attributes (malloc,
 * nothrow, ...); clang has no such attribute and no such warning. */
#ifdef __clang__
#define MALLOC_ALIAS_ATTRS(target)
#else
#define MALLOC_ALIAS_ATTRS(target)	__attribute__((copy(target)))
#endif
#define MALLOC_ALIAS(name, target) \
	extern __typeof__(target) name MALLOC_ALIAS_ATTRS(target) \
	__attribute__((alias(#target), visibility("default")))
#define MALLOC_CALLER()		__builtin_return_address(0)

enum malloc_kind {
	MALLOC_SLAB,	/* object in a slab (a class cache or a kmalloc cache) */
	MALLOC_LARGE,	/* whole large-kmalloc folio */
	MALLOC_HUGE,	/* private mapping registered in huge.c */
	MALLOC_BOOT,	/* bootstrap chunk, handed out while initialising */
};

/* What malloc_lookup() found out about a valid pointer. */
struct malloc_block {
	enum malloc_kind kind;		/* where the block lives */
	size_t usable;			/* bytes the caller may use */
	struct folio *folio;		/* MALLOC_SLAB, MALLOC_LARGE: its folio */
};

/* ---- malloc.c ---- */
extern const char *malloc_name;		/* "malloc-slub" etc., for reports */
bool malloc_boot_owns(const void *p);	/* inside the bootstrap buffer? */
size_t malloc_boot_usable(const void *p);

/* ---- ptrcheck.c: the live map ---- */

/*
 * A granule's byte in the live map: what starts there.  Values 1 ..
 * NR_MALLOC_CLASSES name the class cache whose kmem_cache_alloc returned
 * the block, so that free() needs no memory-map lookup to find its cache.
 */
enum live_tag {
	LIVE_NONE	= 0,	/* no live block starts here */
	LIVE_KMALLOC	= 0xfe,	/* a slab object from __kmalloc (aligned, SLOB) */
};

struct live_map {
	unsigned char *tags;		/* enum live_tag or class + 1, one byte per
					 * granule; NULL if disabled */
	unsigned long base;		/* arena start: granule 0 */
	unsigned long nr_granules;	/* granules covered (0 if disabled) */
	unsigned long tags_by_addr;	/* tags - base / 16, so that p's byte is at
					 * tags_by_addr + p / 16 (base is page aligned);
					 * set after live_map_init (malloc.c) */
};

/* What malloc needs of a request's size class (malloc.c). */
struct size_class {
	struct kmem_cache *cache;	/* the class's cache (NULL on SLOB: kmalloc) */
	unsigned char tag;		/* the live tag of its blocks; 0 until malloc's
					 * fast path may run (release/acquire) */
};

#define MALLOC_SMALL_MAX	8192UL	/* largest class */

/*
 * Everything the fast paths of malloc and free read, in one object, so
 * that one PC-relative address reaches all of it.  Written once, before
 * malloc is ready (malloc_init), read-only afterwards.
 */
struct malloc_hot {
	struct live_map map;			/* the live map (ptrcheck.c) */
	struct kmem_cache *tag_cache[256];	/* class cache by live tag; NULL for
						 * every tag that is not a class */
	unsigned short tag_usable[256];		/* by live tag: a class block's usable
						 * bytes for realloc's fast path; 0 for
						 * every other tag and for a class whose
						 * cache keeps the size asked for (the
						 * kmalloc red zone) */
	struct size_class size_class[MALLOC_SMALL_MAX / 16 + 1];	/* by (size + 15) / 16 */
};
extern struct malloc_hot malloc_hot;

/* Set up the live map over the arena; on failure it stays disabled (said once). */
void live_map_init(void);

/*
 * p's granule, rotated: p - base turned right by 4 bits, so that the
 * offset's low bits land on top when p is not 16-byte aligned.  Below
 * malloc_hot.map.nr_granules iff p is an aligned address in the map: one
 * compare answers both questions.
 */
static __always_inline unsigned long live_map_granule_aligned(const void *p)
{
	unsigned long off = (unsigned long)p - malloc_hot.map.base;

	return (off >> MALLOC_ALIGN_SHIFT) | (off << (8 * sizeof(off) - MALLOC_ALIGN_SHIFT));
}

/* Is p a 16-byte aligned address in the map (false for a misaligned p,
 * one outside the map, or the map disabled)?  Then its granule is *g: the
 * first question of free's and realloc's fast paths, answered by one
 * compare.  why an index, not a pointer to the byte: a pointer would cost
 * those paths a NULL test. */
static __always_inline bool live_map_granule_in(const void *p, unsigned long *g)
{
	*g = live_map_granule_aligned(p);
	return likely(*g < malloc_hot.map.nr_granules);
}

/* p's byte, or NULL if p lies outside the map (or the map is disabled). */
static __always_inline unsigned char *live_map_tag(const void *p)
{
	unsigned long g = ((unsigned long)p - malloc_hot.map.base) >> MALLOC_ALIGN_SHIFT;

	if (unlikely(g >= malloc_hot.map.nr_granules))
		return NULL;
	return &malloc_hot.map.tags[g];
}

/*
 * Mark p live with tag.  False if p lies outside the map (NULL does: the
 * arena does not start at 0) or was live already (the caller then decides,
 * in malloc_mark_slow, whether that is an error).  A plain load and store (relaxed atomics): the allocator hands a
 * block to one thread only, and its hand-over orders the store of the
 * free() that gave the block back before this load (ptrcheck.c §4).
 */
static __always_inline bool live_map_mark(const void *p, unsigned char tag)
{
	unsigned long g = ((unsigned long)p - malloc_hot.map.base) >> MALLOC_ALIGN_SHIFT;

	if (unlikely(g >= malloc_hot.map.nr_granules) ||
	    unlikely(__atomic_load_n(&malloc_hot.map.tags[g], __ATOMIC_RELAXED)))
		return false;
	__atomic_store_n(&malloc_hot.map.tags[g], tag, __ATOMIC_RELAXED);
	return true;
}

/* p's byte of the map, for a p known to lie in it: found without the
 * subtraction of base (tags_by_addr). */
static __always_inline unsigned char *live_map_tag_in(const void *p)
{
	return (unsigned char *)(malloc_hot.map.tags_by_addr +
				 ((unsigned long)p >> MALLOC_ALIGN_SHIFT));
}

/*
 * live_map_mark for a p the caller knows lies in the map (SLUB's inline
 * pop placed it in the cpu slab, and a class tag exists only with the map
 * enabled: malloc.c): no range test.
 */
static __always_inline bool live_map_mark_in(const void *p, unsigned char tag)
{
	unsigned char *t = live_map_tag_in(p);

	if (unlikely(__atomic_load_n(t, __ATOMIC_RELAXED)))
		return false;
	__atomic_store_n(t, tag, __ATOMIC_RELAXED);
	return true;
}

/* Mark p live with tag, for a p known to lie in the map and not to be
 * live: one store. */
static __always_inline void live_map_set_in(const void *p, unsigned char tag)
{
	__atomic_store_n(live_map_tag_in(p), tag, __ATOMIC_RELAXED);
}

/* p's tag now (LIVE_NONE outside the map): a snapshot for realloc and
 * malloc_usable_size. */
static __always_inline unsigned char live_map_get(const void *p)
{
	unsigned char *t = live_map_tag(p);

	return t ? __atomic_load_n(t, __ATOMIC_RELAXED) : LIVE_NONE;
}

/*
 * The slow paths' claim: exchange p's tag for LIVE_NONE and return the old
 * one.  One atomic instruction, so that of two threads freeing a large
 * block at the same moment exactly one gets it (large blocks are rare and
 * expensive enough for it).
 */
static __always_inline unsigned char live_map_claim(const void *p)
{
	unsigned char *t = live_map_tag(p);

	return t ? __atomic_exchange_n(t, LIVE_NONE, __ATOMIC_RELAXED) : LIVE_NONE;
}

/*
 * A large block's liveness is kept in its folio's private word, not in the
 * live map: a tag would cost the map a page for every 64 KiB of arena a
 * large block starts in, written for one byte (git log -p: about 0.9 MiB
 * of peak RSS).  The word is 0 from the page allocator, MALLOC_LARGE_LIVE
 * plus the folio's order while the block is malloc's and live (so that
 * realloc's fast path reads one struct page); free exchanges it back to 0
 * (one atomic instruction, exact for racing frees as the map's claim
 * was) before the folio goes back.
 */
#define MALLOC_LARGE_LIVE	0x6772616c65766900UL	/* "\0ivelarg", the order in the low byte */
#define MALLOC_LARGE_ORDER	0xffUL

static __always_inline bool large_word_live(unsigned long word)
{
	return (word & ~MALLOC_LARGE_ORDER) == MALLOC_LARGE_LIVE;
}

static __always_inline void large_mark(struct folio *folio)
{
	__atomic_store_n(&folio->private, MALLOC_LARGE_LIVE | folio_order(folio), __ATOMIC_RELAXED);
}

static __always_inline bool large_live(const struct folio *folio)
{
	return large_word_live(__atomic_load_n(&folio->private, __ATOMIC_RELAXED));
}

static __always_inline bool large_claim(struct folio *folio)
{
	return large_word_live(__atomic_exchange_n(&folio->private, 0UL, __ATOMIC_RELAXED));
}

/* The allocator handed out p but it could not be marked: p is returned if
 * the map is disabled, else the report says what is wrong and aborts. */
void *malloc_mark_slow(void *p, const char *fn, const void *caller);

/* ---- large_cache.c: each CPU's freed large blocks ---- */
/* Set up the per-CPU caches (malloc_init; not while memcheck is active). */
void large_cache_init(void);
/* A cached block of size's order for this CPU (its live word clear, like
 * any freed one), or NULL: none, not a cached order, or gfp asks zeroes. */
void *large_cache_get(size_t size, gfp_t gfp);
/* Keep folio, a large block whose live word free() just cleared, in this
 * CPU's cache; false if it is not kept (the caller frees it). */
bool large_cache_put(struct folio *folio);

/* ---- ptrcheck.c: validation and reports ---- */

/*
 * Validate p (not NULL) as a block malloc handed out and has not freed;
 * fill *blk.  If p is not one, report it as fn's misuse and abort: nothing
 * p points to is read before the verdict.
 */
void malloc_lookup(void *p, struct malloc_block *blk, const char *fn, const void *caller);

/*
 * Free p (NULL: nothing): validate, clear its live tag, hand it back, errno
 * preserved.  A class object on SLUB is inline in malloc.c; this is
 * everything else.
 */
void malloc_free_slow(void *p, const char *fn, const void *caller);
/*
 * The same for the block realloc moved away from (not NULL): a large one
 * goes back to the page allocator, never into this CPU's cache.  why: it
 * is the smaller size of a buffer that grows, seldom asked for again, and
 * in the page allocator it merges into the blocks the buffer grows into
 * (bench realloc: peak RSS +0.5..2 MiB when cached).
 */
void malloc_free_moved(void *p, const char *fn, const void *caller);

/* Print a kernel-style report about p and abort. */
__noreturn __cold void malloc_report(const char *fn, const void *p, const void *caller,
		const char *title, const char *info);

/* ---- huge.c ---- */
/* Map a zeroed block of at least size bytes aligned to align (a power of
 * two); NULL with errno = ENOMEM if the OS refuses or size overflows. */
void *huge_alloc(size_t size, size_t align);
/* Usable size of the huge block starting at p, or 0 if there is none. */
size_t huge_usable(const void *p);
/* Unmap the huge block starting at p; false if there is none. */
bool huge_free(void *p);
/* Was a huge block starting at p unmapped recently (and not mapped again)? */
bool huge_was_freed(const void *p);
/* Give back the pages of the huge block at p beyond new_size (> 0). */
void huge_shrink(void *p, size_t new_size);
/* Register the table lock with fork.c. */
void huge_init(void);

/* ---- src/mm/slub.c ---- */
/* kmem_cache_free that keeps errno, saving it only on the slow path. */
void kmem_cache_free_keep_errno(struct kmem_cache *s, void *x);

#endif /* USLAB_MALLOC_INTERNAL_H */
