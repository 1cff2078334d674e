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
 *   live map   one bit per 16-byte granule of the arena, set while a block
 *              starts there (ptrcheck.c): the constant-time answer to "is
 *              this the start of a live block?".
 *
 * Files: malloc.c (the POSIX/glibc entry points, classes, initialisation),
 * ptrcheck.c (live map, pointer validation, reports), huge.c (mappings).
 */
#ifndef USLAB_MALLOC_INTERNAL_H
#define USLAB_MALLOC_INTERNAL_H

#include "mm/slab.h"

#define MALLOC_ALIGN		16UL	/* minimum alignment of every block */
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
struct live_map {
	unsigned long *bits;		/* one bit per granule; NULL if disabled */
	unsigned long base;		/* arena start: granule 0 */
	unsigned long nr_granules;	/* granules covered (0 if disabled) */
};
extern struct live_map live_map;	/* written once before malloc is ready */

/* Set up the live map over the arena; on failure it stays disabled (said once). */
void live_map_init(void);

static __always_inline unsigned long *live_map_word(unsigned long g)
{
	return &live_map.bits[g / (8 * sizeof(unsigned long))];
}

static __always_inline unsigned long live_map_bit(unsigned long g)
{
	return 1UL << (g % (8 * sizeof(unsigned long)));
}

/*
 * Mark p live.  False if p lies outside the map or was live already (the
 * caller then decides, in malloc_mark_slow, whether that is an error).
 * One compare and one atomic OR: another thread may flip a neighbour's bit
 * in the same word at the same moment.
 */
static __always_inline bool live_map_mark(const void *p)
{
	unsigned long g = ((unsigned long)p - live_map.base) >> MALLOC_ALIGN_SHIFT;
	unsigned long bit = live_map_bit(g);

	if (unlikely(g >= live_map.nr_granules))
		return false;
	return !(__atomic_fetch_or(live_map_word(g), bit, __ATOMIC_RELAXED) & bit);
}

/*
 * Clear p's bit.  True if p was live.  Atomic test-and-clear: of two threads
 * freeing the same block at once, exactly one sees the bit set.
 */
static __always_inline bool live_map_clear(const void *p)
{
	unsigned long g = ((unsigned long)p - live_map.base) >> MALLOC_ALIGN_SHIFT;
	unsigned long bit = live_map_bit(g);

	if (unlikely(g >= live_map.nr_granules))
		return false;
	return __atomic_fetch_and(live_map_word(g), ~bit, __ATOMIC_RELAXED) & bit;
}

/* Is p live?  (A snapshot: for realloc and malloc_usable_size.) */
static __always_inline bool live_map_test(const void *p)
{
	unsigned long g = ((unsigned long)p - live_map.base) >> MALLOC_ALIGN_SHIFT;

	if (unlikely(g >= live_map.nr_granules))
		return false;
	return __atomic_load_n(live_map_word(g), __ATOMIC_RELAXED) & live_map_bit(g);
}

/* The allocator handed out p but its bit could not be set: p is returned if
 * the map is disabled, else the report says what is wrong and aborts. */
void *malloc_mark_slow(void *p, const char *fn, const void *caller);

/* ---- ptrcheck.c: validation and reports ---- */

/*
 * Validate p (not NULL) as a block malloc handed out and has not freed;
 * fill *blk.  If p is not one, report it as fn's misuse and abort: nothing
 * p points to is read before the verdict.
 */
void malloc_lookup(void *p, struct malloc_block *blk, const char *fn, const void *caller);

/*
 * Free p (not NULL): validate, clear its live bit, hand it back.  The slab
 * case is inline in malloc.c; this is everything else.
 */
void malloc_free_slow(void *p, const char *fn, const void *caller);

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

#endif /* USLAB_MALLOC_INTERNAL_H */
