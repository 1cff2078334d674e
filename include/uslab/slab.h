/* SPDX-License-Identifier: MIT */
/*
 * slab.h - the kernel's slab and kmalloc API under the kernel's names
 * (include/linux/slab.h and the mm/util.c helpers of Linux 5.17).
 *
 * Every function here is a static inline forwarder to a uslab_ function of
 * <uslab/uslab.h>: callable, its address can be taken, and its arguments are
 * type-checked.  The flags (GFP_*, __GFP_*, SLAB_*), gfp_t, slab_flags_t,
 * ZERO_SIZE_PTR and ZERO_OR_NULL_PTR come from <uslab/flags.h>.  Nothing
 * needs initialising: the library sets itself up on first use.
 *
 * One header serves every build of the library (SLUB, SLAB or SLOB), so it
 * defines only the limits that hold for all three:
 *   ARCH_KMALLOC_MINALIGN  every kmalloc object is aligned to it (8);
 *                          kmalloc(2^n) is aligned to 2^n.
 *   ARCH_SLAB_MINALIGN     every cache object is aligned to it (8).
 *   SLAB_OBJ_MIN_SIZE      no object is smaller (8; SLAB's own is 16).
 * KMALLOC_MAX_SIZE, KMALLOC_MAX_CACHE_SIZE and KMALLOC_MIN_SIZE differ per
 * allocator and with the max_order option, so they are not defined here:
 * kmalloc() above the limit returns NULL with a warning (none with
 * __GFP_NOWARN), and kvmalloc() has no such limit.
 *
 * kmalloc(size) with a size known at compile time picks its cache at compile
 * time, as the kernel does: size 0 is ZERO_SIZE_PTR without a call, and any
 * other size becomes a cache index (kmalloc_index(), the 5.17 ladder) passed
 * to uslab_kmalloc_index_alloc(), which goes straight to that kmalloc cache
 * (or, past the largest cache, or under SLOB, to the allocator's own large
 * path).  Sizes known only at run time call uslab___kmalloc().
 *
 * Compiles as C11 and as C++.
 */
#ifndef USLAB_SLAB_H
#define USLAB_SLAB_H

#include <stddef.h>
#include <uslab/flags.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ARCH_KMALLOC_MINALIGN	8
#define ARCH_SLAB_MINALIGN	8
#define SLAB_OBJ_MIN_SIZE	8

/* Last index of the 5.17 kmalloc ladder: 2^25 = 32 MiB. */
#define USLAB_KMALLOC_INDEX_MAX	25

#define __uslab_inline	static inline __attribute__((always_inline))

/* ======================= caches ======================= */

/**
 * kmem_cache_create_usercopy - create a cache with a region suitable for
 * copying to user space
 * @name: name of the cache, shown in slabinfo and in reports (copied)
 * @size: size of the objects
 * @align: alignment of the objects (0: the allocator's minimum)
 * @flags: SLAB_* flags
 * @useroffset: start of the usercopy region in an object
 * @usersize: size of the usercopy region (0: none)
 * @ctor: constructor, or NULL.  It runs when a slab is populated (SLUB,
 *        SLAB) or on every allocation (SLOB); objects must be given back
 *        in their constructed state.
 *
 * A cache without ctor, usercopy region or debug flags may be merged with an
 * existing compatible cache (unless the option slab_nomerge is set): the
 * result is then that cache, shared until every creator destroyed it.
 *
 * Return: the cache, or NULL with a warning naming it (invalid name, size or
 * flags, or no memory).  With %SLAB_PANIC a failure aborts instead.
 */
__uslab_inline struct kmem_cache *kmem_cache_create_usercopy(const char *name,
		unsigned int size, unsigned int align, slab_flags_t flags,
		unsigned int useroffset, unsigned int usersize, void (*ctor)(void *))
{
	return uslab_kmem_cache_create_usercopy(name, size, align, flags,
						useroffset, usersize, ctor);
}

/**
 * kmem_cache_create - create a cache
 * @name: name of the cache (copied)
 * @size: size of the objects
 * @align: alignment of the objects (0: the allocator's minimum)
 * @flags: SLAB_* flags; %SLAB_HWCACHE_ALIGN aligns objects to the cache line
 *         (halved while the object fits in half of it)
 * @ctor: constructor, or NULL
 *
 * Return: the cache, or NULL with a warning (abort with %SLAB_PANIC).
 */
__uslab_inline struct kmem_cache *kmem_cache_create(const char *name, unsigned int size,
		unsigned int align, slab_flags_t flags, void (*ctor)(void *))
{
	return uslab_kmem_cache_create(name, size, align, flags, ctor);
}

/* A cache for struct __struct, named after it, with its size and alignment. */
#define KMEM_CACHE(__struct, __flags)					\
	kmem_cache_create(#__struct, sizeof(struct __struct),		\
			  __alignof__(struct __struct), (__flags), NULL)

/* Likewise, with field __field of the struct as the usercopy region. */
#define KMEM_CACHE_USERCOPY(__struct, __flags, __field)			\
	kmem_cache_create_usercopy(#__struct, sizeof(struct __struct),	\
			__alignof__(struct __struct), (__flags),	\
			offsetof(struct __struct, __field),		\
			sizeof(((struct __struct *)0)->__field), NULL)

/**
 * kmem_cache_destroy - destroy a cache
 * @s: the cache; NULL is a no-op
 *
 * Drops one reference of a merged cache; the last one releases it.  If
 * objects are still allocated, a warning names the cache and the number of
 * objects in use, and the cache is kept (still usable); destroying it again
 * after freeing them releases it.
 */
__uslab_inline void kmem_cache_destroy(struct kmem_cache *s)
{
	uslab_kmem_cache_destroy(s);
}

/**
 * kmem_cache_shrink - give the cache's empty slabs back to the page allocator
 * @s: the cache
 *
 * Return: 0 if every slab could be released, non-zero otherwise.
 */
__uslab_inline int kmem_cache_shrink(struct kmem_cache *s)
{
	return uslab_kmem_cache_shrink(s);
}

/**
 * kmem_cache_size - the object size of a cache
 * @s: the cache
 *
 * Return: the size the cache was created with (the largest of the sizes
 * asked for, for a merged cache).
 */
__uslab_inline unsigned int kmem_cache_size(struct kmem_cache *s)
{
	return uslab_kmem_cache_size(s);
}

/**
 * kmem_cache_validate - check every slab and object of a debug cache
 * @s: the cache (created with debug flags, or named by slub_debug=)
 *
 * What writing 1 to /sys/kernel/slab/<cache>/validate does in the kernel:
 * red zones, poison, padding, free lists and counters are checked and
 * each problem reported (docs/debugging.md).
 *
 * Return: the number of errors found, -EINVAL for a cache without
 * debugging, -ENOMEM.
 */
__uslab_inline int kmem_cache_validate(struct kmem_cache *s)
{
	return uslab_kmem_cache_validate(s);
}

/* ======================= objects ======================= */

/**
 * kmem_cache_alloc - allocate an object
 * @s: the cache
 * @flags: GFP_* flags; __GFP_ZERO zeroes the object
 *
 * Return: the object, or NULL.
 */
__uslab_inline void *kmem_cache_alloc(struct kmem_cache *s, gfp_t flags)
{
	return uslab_kmem_cache_alloc(s, flags);
}

/* kmem_cache_zalloc - allocate a zeroed object (kmem_cache_alloc + __GFP_ZERO) */
__uslab_inline void *kmem_cache_zalloc(struct kmem_cache *s, gfp_t flags)
{
	return uslab_kmem_cache_alloc(s, flags | __GFP_ZERO);
}

/* kmem_cache_alloc_node - allocate an object on a node (NUMA_NO_NODE: any) */
__uslab_inline void *kmem_cache_alloc_node(struct kmem_cache *s, gfp_t flags, int node)
{
	return uslab_kmem_cache_alloc_node(s, flags, node);
}

/**
 * kmem_cache_free - free an object back to its cache
 * @s: the cache the object came from
 * @obj: the object
 */
__uslab_inline void kmem_cache_free(struct kmem_cache *s, void *obj)
{
	uslab_kmem_cache_free(s, obj);
}

/**
 * kmem_cache_alloc_bulk - allocate several objects at once
 * @s: the cache
 * @flags: GFP_* flags
 * @size: number of objects
 * @p: receives the objects
 *
 * Return: @size, or 0 if not all could be allocated (then none are).
 */
__uslab_inline int kmem_cache_alloc_bulk(struct kmem_cache *s, gfp_t flags,
					 size_t size, void **p)
{
	return uslab_kmem_cache_alloc_bulk(s, flags, size, p);
}

/* kmem_cache_free_bulk - free @size objects of cache @s at once */
__uslab_inline void kmem_cache_free_bulk(struct kmem_cache *s, size_t size, void **p)
{
	uslab_kmem_cache_free_bulk(s, size, p);
}

/* kfree_bulk - kfree() @size kmalloc objects at once */
__uslab_inline void kfree_bulk(size_t size, void **p)
{
	uslab_kfree_bulk(size, p);
}

/* ======================= kmalloc ======================= */

/*
 * kmalloc_index - cache index of a kmalloc size (the 5.17 ladder, with the
 * smallest class of any allocator, 8 bytes): 0 for 0, 1 for 65..96, 2 for
 * 129..192, else n with 2^(n-1) < size <= 2^n; -1 past 32 MiB.  Folds to a
 * constant for a constant size.
 */
__uslab_inline int kmalloc_index(size_t size)
{
	if (!size)
		return 0;
	if (size <= 8)
		return 3;
	if (size > 64 && size <= 96)
		return 1;
	if (size > 128 && size <= 192)
		return 2;
	if (size > ((size_t)1 << USLAB_KMALLOC_INDEX_MAX))
		return -1;
	return (int)(sizeof(long) * 8) - __builtin_clzl((unsigned long)(size - 1));
}

/* kmalloc_large - allocate whole pages for a large kmalloc (kfree() frees it) */
__uslab_inline void *kmalloc_large(size_t size, gfp_t flags)
{
	return uslab_kmalloc_large(size, flags);
}

/* __kmalloc - kmalloc of a run-time size */
__uslab_inline void *__kmalloc(size_t size, gfp_t flags)
{
	return uslab___kmalloc(size, flags);
}

/* __kmalloc_node - kmalloc_node of a run-time size */
__uslab_inline void *__kmalloc_node(size_t size, gfp_t flags, int node)
{
	return uslab___kmalloc_node(size, flags, node);
}

/**
 * kmalloc_node - allocate memory on a node
 * @size: bytes wanted
 * @flags: GFP_* flags (__GFP_ZERO zeroes, __GFP_NOWARN silences failures,
 *         __GFP_RECLAIMABLE uses the kmalloc-rcl-* caches)
 * @node: node, or NUMA_NO_NODE
 *
 * Return: at least @size bytes aligned to ARCH_KMALLOC_MINALIGN (to @size if
 * it is a power of two), ZERO_SIZE_PTR for size 0, or NULL.
 */
__uslab_inline void *kmalloc_node(size_t size, gfp_t flags, int node)
{
	if (__builtin_constant_p(size)) {
		int index = kmalloc_index(size);

		if (!index)
			return ZERO_SIZE_PTR;
		if (index > 0)
			return uslab_kmalloc_index_alloc((unsigned int)index, size, flags, node);
	}
	return uslab___kmalloc_node(size, flags, node);
}

/**
 * kmalloc - allocate memory
 * @size: bytes wanted
 * @flags: GFP_* flags (GFP_KERNEL for ordinary use; __GFP_ZERO zeroes,
 *         __GFP_NOWARN silences the report when memory runs out)
 *
 * Return: at least @size bytes (ksize() says how many may be used) aligned
 * to ARCH_KMALLOC_MINALIGN, and to @size if @size is a power of two;
 * ZERO_SIZE_PTR for size 0 (kfree() accepts it); NULL on failure.
 */
__uslab_inline void *kmalloc(size_t size, gfp_t flags)
{
	if (__builtin_constant_p(size)) {
		int index = kmalloc_index(size);

		if (!index)
			return ZERO_SIZE_PTR;
		if (index > 0)
			return uslab_kmalloc_index_alloc((unsigned int)index, size, flags,
							 NUMA_NO_NODE);
	}
	return uslab___kmalloc(size, flags);
}

/* kzalloc - kmalloc() of zeroed memory */
__uslab_inline void *kzalloc(size_t size, gfp_t flags)
{
	return kmalloc(size, flags | __GFP_ZERO);
}

/* kzalloc_node - kmalloc_node() of zeroed memory */
__uslab_inline void *kzalloc_node(size_t size, gfp_t flags, int node)
{
	return kmalloc_node(size, flags | __GFP_ZERO, node);
}

/* kmalloc_track_caller - kmalloc() for helpers (the kernel records the caller) */
__uslab_inline void *kmalloc_track_caller(size_t size, gfp_t flags)
{
	return uslab___kmalloc(size, flags);
}

/* kmalloc_node_track_caller - kmalloc_node() for helpers */
__uslab_inline void *kmalloc_node_track_caller(size_t size, gfp_t flags, int node)
{
	return uslab___kmalloc_node(size, flags, node);
}

/**
 * kmalloc_array - allocate memory for an array
 * @n: number of elements
 * @size: size of one element
 * @flags: GFP_* flags
 *
 * Return: as kmalloc(n * size), or NULL if n * size overflows.
 */
__uslab_inline void *kmalloc_array(size_t n, size_t size, gfp_t flags)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes))
		return NULL;
	if (__builtin_constant_p(n) && __builtin_constant_p(size))
		return kmalloc(bytes, flags);
	return uslab___kmalloc(bytes, flags);
}

/* kmalloc_array_node - kmalloc_array() on a node */
__uslab_inline void *kmalloc_array_node(size_t n, size_t size, gfp_t flags, int node)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes))
		return NULL;
	if (__builtin_constant_p(n) && __builtin_constant_p(size))
		return kmalloc_node(bytes, flags, node);
	return uslab___kmalloc_node(bytes, flags, node);
}

/* kcalloc - allocate a zeroed array; NULL if n * size overflows */
__uslab_inline void *kcalloc(size_t n, size_t size, gfp_t flags)
{
	return kmalloc_array(n, size, flags | __GFP_ZERO);
}

/* kcalloc_node - kcalloc() on a node */
__uslab_inline void *kcalloc_node(size_t n, size_t size, gfp_t flags, int node)
{
	return kmalloc_array_node(n, size, flags | __GFP_ZERO, node);
}

/**
 * krealloc - resize a kmalloc allocation
 * @p: the allocation, or NULL (then krealloc is kmalloc)
 * @new_size: bytes wanted; 0 frees @p and returns ZERO_SIZE_PTR
 * @flags: GFP_* flags for a new allocation
 *
 * If @p already has room for @new_size (ksize()) it is returned unchanged;
 * otherwise the contents move to a new allocation and @p is freed.  On
 * failure NULL is returned and @p is left as it was.
 */
__uslab_inline void *krealloc(const void *p, size_t new_size, gfp_t flags)
{
	return uslab_krealloc(p, new_size, flags);
}

/* krealloc_array - krealloc() to new_n * new_size bytes; NULL on overflow */
__uslab_inline void *krealloc_array(void *p, size_t new_n, size_t new_size, gfp_t flags)
{
	size_t bytes;

	if (__builtin_mul_overflow(new_n, new_size, &bytes))
		return NULL;
	return uslab_krealloc(p, bytes, flags);
}

/**
 * kfree - free memory from kmalloc and friends
 * @objp: the memory; NULL and ZERO_SIZE_PTR are no-ops
 *
 * A pointer that is not the start of a live kmalloc allocation is reported
 * (naming the cache) and the program aborts.
 */
__uslab_inline void kfree(const void *objp)
{
	uslab_kfree(objp);
}

/* kfree_sensitive - zero all ksize(@objp) bytes, then kfree() */
__uslab_inline void kfree_sensitive(const void *objp)
{
	uslab_kfree_sensitive(objp);
}

/**
 * ksize - how many bytes of a kmalloc allocation may be used
 * @objp: the allocation
 *
 * Return: at least the size asked for (all of it may be written); 0 for
 * NULL and ZERO_SIZE_PTR.
 */
__uslab_inline size_t ksize(const void *objp)
{
	return uslab_ksize(objp);
}

/* ======================= mm/util.c helpers ======================= */

/* kmemdup - kmalloc a copy of @len bytes at @src */
__uslab_inline void *kmemdup(const void *src, size_t len, gfp_t gfp)
{
	return uslab_kmemdup(src, len, gfp);
}

/* kstrdup - kmalloc a copy of string @s (NULL gives NULL) */
__uslab_inline char *kstrdup(const char *s, gfp_t gfp)
{
	return uslab_kstrdup(s, gfp);
}

/* kstrndup - kmalloc a copy of at most @max characters of @s, NUL-terminated */
__uslab_inline char *kstrndup(const char *s, size_t max, gfp_t gfp)
{
	return uslab_kstrndup(s, max, gfp);
}

/* kmemdup_nul - kmalloc a copy of @len bytes at @s plus a terminating NUL */
__uslab_inline void *kmemdup_nul(const char *s, size_t len, gfp_t gfp)
{
	return uslab_kmemdup_nul(s, len, gfp);
}

/**
 * kvmalloc_node - allocate memory, falling back to a separate mapping
 * @size: bytes wanted
 * @flags: GFP_* flags; unless they include all of GFP_KERNEL this is just
 *         kmalloc_node()
 * @node: node, or NUMA_NO_NODE
 *
 * Tries kmalloc first (without a failure report for sizes above a page),
 * then maps memory of its own (the kernel's vmalloc), so sizes beyond what
 * kmalloc can serve work too, up to INT_MAX.  Free with kvfree().
 */
__uslab_inline void *kvmalloc_node(size_t size, gfp_t flags, int node)
{
	return uslab_kvmalloc_node(size, flags, node);
}

/* kvmalloc - kvmalloc_node() on any node */
__uslab_inline void *kvmalloc(size_t size, gfp_t flags)
{
	return uslab_kvmalloc_node(size, flags, NUMA_NO_NODE);
}

/* kvzalloc - kvmalloc() of zeroed memory */
__uslab_inline void *kvzalloc(size_t size, gfp_t flags)
{
	return uslab_kvmalloc_node(size, flags | __GFP_ZERO, NUMA_NO_NODE);
}

/* kvzalloc_node - kvmalloc_node() of zeroed memory */
__uslab_inline void *kvzalloc_node(size_t size, gfp_t flags, int node)
{
	return uslab_kvmalloc_node(size, flags | __GFP_ZERO, node);
}

/* kvmalloc_array - kvmalloc() of n * size bytes; NULL on overflow */
__uslab_inline void *kvmalloc_array(size_t n, size_t size, gfp_t flags)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes))
		return NULL;
	return uslab_kvmalloc_node(bytes, flags, NUMA_NO_NODE);
}

/* kvcalloc - kvmalloc_array() of zeroed memory */
__uslab_inline void *kvcalloc(size_t n, size_t size, gfp_t flags)
{
	return kvmalloc_array(n, size, flags | __GFP_ZERO);
}

/**
 * kvrealloc - resize a kvmalloc allocation
 * @p: the allocation
 * @oldsize: its size (bytes kept)
 * @newsize: bytes wanted
 * @flags: GFP_* flags
 *
 * Return: @p if @newsize <= @oldsize; else a new allocation holding the
 * first @oldsize bytes (and @p freed), or NULL with @p untouched.
 */
__uslab_inline void *kvrealloc(const void *p, size_t oldsize, size_t newsize, gfp_t flags)
{
	return uslab_kvrealloc(p, oldsize, newsize, flags);
}

/* kvfree - free memory from kvmalloc (or kmalloc); NULL is a no-op */
__uslab_inline void kvfree(const void *addr)
{
	uslab_kvfree(addr);
}

/* kvfree_sensitive - zero @len bytes at @addr, then kvfree() */
__uslab_inline void kvfree_sensitive(const void *addr, size_t len)
{
	uslab_kvfree_sensitive(addr, len);
}

#undef __uslab_inline

#ifdef __cplusplus
}
#endif

#endif /* USLAB_SLAB_H */
