/* SPDX-License-Identifier: MIT */
/*
 * slab_debug.h - the interface between slab.c and slab_debug.c: SLAB's
 * debugging (the kernel's CONFIG_DEBUG_SLAB object layout and checks), its
 * misuse reports, and its memcheck hooks.  Included by slab.c (and SLAB's
 * tests) only; slab_debug.c tells how it works.
 *
 * Object slot of a debug cache (s->size bytes; "word" = 8 bytes):
 *
 *   | pad | redzone 1 | object (object_size) | redzone 2 | pad | orig | user |
 *   0           obj_offset - 8  obj_offset                         size - 8
 *
 *   redzone 1   SLAB_RED_ZONE: a word right before the object
 *   redzone 2   SLAB_RED_ZONE: a word right after the last byte the user
 *               owns (unaligned when object_size is not a multiple of 8),
 *               so that even a one-byte overflow lands in it; for an
 *               allocated object of a SLAB_KMALLOC cache, right after the
 *               bytes it was asked for (orig), inside the object
 *   orig        SLAB_RED_ZONE with SLAB_KMALLOC: the size asked for (a word)
 *   user        SLAB_STORE_USER: the last caller (allocation or free)
 *   pad         alignment: obj_offset = max(8, align) with red zones
 *
 * Without debug flags obj_offset is 0 and the object is the slot.  Array
 * caches and slab freelists deal in slots; the hooks below turn a slot into
 * the user's object on the way out and back on the way in.
 */
#ifndef USLAB_MM_SLAB_DEBUG_H
#define USLAB_MM_SLAB_DEBUG_H

#include "slab.h"

/* include/linux/poison.h of 5.17 */
#define RED_INACTIVE	0x09F911029D74E35BULL	/* red zone of a free object */
#define RED_ACTIVE	0xD84156C5635688C0ULL	/* red zone of an object in use */
#define POISON_INUSE	0x5a	/* allocated, not yet written by its user */
#define POISON_FREE	0x6b	/* a free object */
#define POISON_END	0xa5	/* the last byte of a free object */

/* ---- cache creation ---- */

/* kmem_cache_flags() for SLAB: flags plus what slub_debug=/slab_debug=
 * give this cache, masked to what SLAB supports (F Z P U). */
slab_flags_t slab_debug_cache_flags(const char *name, slab_flags_t flags);
/*
 * The slot size before alignment; sets s->obj_offset and, in *flags,
 * CFLGS_DEBUG_HOOKS for a cache with debug flags or when memcheck is
 * active.  Drops SLAB_RED_ZONE above cache-line alignment and SLAB_POISON
 * for SLAB_TYPESAFE_BY_RCU caches (see slab_debug.c §2).
 */
unsigned int slab_debug_slot_size(struct kmem_cache *s, slab_flags_t *flags);
/* May a free object of this cache hold its slab's freelist?  Not when
 * free objects are poisoned or watched by memcheck. */
bool slab_debug_objfreelist_ok(slab_flags_t flags);

/* ---- slabs (CFLGS_DEBUG_HOOKS caches only) ---- */

/* A new slab's object slot: red zones, user word, constructor, poison. */
void cache_init_obj_debug(struct kmem_cache *s, void *slot);
/* A new slab is built: hide its objects from memcheck. */
void slab_debug_new_slab(struct kmem_cache *s, struct slab *slab);
/* A slab is about to be freed: check its free objects, show it to memcheck. */
void slab_debug_destroy(struct kmem_cache *s, struct slab *slab);

/* ---- objects (CFLGS_DEBUG_HOOKS caches only) ---- */

/* slot (or NULL) leaves the allocator: checks, marks, returns the object. */
void *cache_alloc_debugcheck_after(struct kmem_cache *s, gfp_t flags, void *slot,
				   unsigned long caller);
/* obj comes back: checks, marks, returns its slot, or NULL if the free must
 * not happen (a double free, under slab_error=repair). */
void *cache_free_debugcheck(struct kmem_cache *s, void *obj, unsigned long caller);

/* ---- the kmalloc red zone (slab_debug.c §8) ---- */

/* obj, just allocated from s by kmalloc or kmem_cache_alloc_orig, was asked
 * for at size bytes: its redzone 2 moves there (a red zone cache only). */
void slab_debug_kmalloc(struct kmem_cache *s, void *obj, size_t size);

/* ---- freelists ---- */

/* SLAB_CONSISTENCY_CHECKS (F): every free index of slab below num and
 * distinct; reports and aborts otherwise. */
void check_slab_freelist(const struct kmem_cache *s, const struct slab *slab,
			 const void *freelist, unsigned int active);
/* A freelist entry names no object of the slab: report and abort. */
__noreturn __cold void slab_bad_freelist_index(const struct kmem_cache *s,
					       const struct slab *slab, unsigned int pos,
					       unsigned int idx);

/* ---- misuse reports (hardening, every cache) ---- */

/* The kernel's slab_error() line, then abort: damage that cannot be repaired. */
__noreturn __cold void slab_error(const struct kmem_cache *s, const char *fn,
				  const char *msg, const void *obj);
/* Not a slab object at all (kfree, kmem_cache_free, ksize): abort. */
__noreturn __cold void free_invalid_pointer(const char *fn, const void *x, const char *why);
/* Inside a slab of s but not an object start: abort. */
__noreturn __cold void free_bad_object(const struct kmem_cache *s, const struct slab *slab,
				       const void *x);
/* kmem_cache_free(s, x) of an object of t: report; under slab_error=repair
 * the object is freed to t, the cache it belongs to (as the kernel does). */
struct kmem_cache *free_wrong_cache(struct kmem_cache *s, struct kmem_cache *t,
				    const void *x);
/* Freeing the object on top of the CPU array; returns under repair (the
 * caller drops the free). */
void naive_double_free(struct kmem_cache *s, const void *slot);
/* Freeing into a slab an object it holds free; returns under repair (the
 * caller drops the free).  list_lock is held. */
void slab_double_free(struct kmem_cache *s, const void *slot);

#endif /* USLAB_MM_SLAB_DEBUG_H */
