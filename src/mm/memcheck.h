/* SPDX-License-Identifier: MIT */
/*
 * memcheck.h - telling Valgrind's memcheck and AddressSanitizer which bytes
 * of the arena are live heap objects, so that those tools see uslab's
 * objects as heap blocks (a use-after-free of a cached object, a read past
 * its end, a leaked object are reported by them).
 *
 * 1. Modes.  memcheck_mode is decided once, by memcheck_init() during mm
 *    init, before any slab exists:
 *      MEMCHECK_VALGRIND  the process runs under valgrind (RUNNING_ON_VALGRIND);
 *      MEMCHECK_ASAN      the ASan runtime is in the process (a program built
 *                         with -fsanitize=address links uslab) and uslab
 *                         itself was built without ASan;
 *      MEMCHECK_OFF       otherwise.
 *    USLAB_OPTIONS "memcheck=off|on|valgrind|asan" overrides the choice.
 *
 * 2. What an allocator does when memcheck_active():
 *    - every allocation and free of every cache goes through a path that
 *      calls the hooks below (SLUB treats each cache as a debug cache: no
 *      cpu freelist, no fast path; SLAB and SLOB check memcheck_active() on
 *      their slow or per-object paths).  With MEMCHECK_OFF no hook is ever
 *      reached and the fast paths are unchanged.
 *    - allocator metadata never lies inside the bytes [obj, obj + size) that
 *      the user owns while the object is allocated, or the allocator opens
 *      it with memcheck_defined()/closes it with memcheck_noaccess() around
 *      each access (SLOB's in-block free list does this).
 *    - new slab memory: memcheck_noaccess() over the object area once the
 *      slab is built; slab memory given back to the page allocator:
 *      memcheck_undefined() over all of it first.
 *    - an object handed out: memcheck_alloc(obj, size, zeroed) before any
 *      write of the allocator into it (so __GFP_ZERO's memset comes after);
 *      an object taken back: memcheck_free(obj, size) after the allocator's
 *      last access to the object bytes.
 *    - no stale copy of a pointer to an allocated object stays in memory
 *      the tool scans for leaks (valgrind scans the arena's defined bytes):
 *      a slot of a per-CPU array that handed the object out is cleared, as
 *      the kernel's kmemleak_erase() does, or a leaked object would count as
 *      still reachable.
 *    - objects are kept MEMCHECK_GAP bytes apart where the layout allows
 *      (no-access bytes): valgrind names the block of an address by looking
 *      that far around each block, so an access just past one object is
 *      told of that object, not of its neighbour.  SLUB's debug layout
 *      (free pointer and padding outside the object) and SLOB's headers
 *      keep them apart already; SLAB puts the gap before each object (so
 *      that slab->s_mem is no pointer to an object either).
 *    - kmalloc: the cache hands out a slot (memcheck_alloc of the cache's
 *      object size); the kmalloc path then shrinks the block to the size
 *      asked for with memcheck_kmalloc_resize(obj, slot, size), so that an
 *      access past the requested end, inside the slot, is reported (the
 *      kernel's kasan_kmalloc).  ksize() grows the block to the whole slot
 *      (the caller may use it all, as in the kernel); krealloc() within the
 *      slot resizes the block to the new size, and copies only
 *      memcheck_kmalloc_size() bytes when it moves the object.
 *    - the page allocator: a block handed out becomes memcheck_undefined()
 *      (memcheck_defined() when it is known to be zero), a block freed
 *      memcheck_noaccess() (the kernel's kasan_poison_pages), so that a use
 *      after free is still seen once an empty slab has gone back to it.
 *
 * 3. LeakSanitizer: memcheck_init() registers the arena as a root region
 *    (when the LSan runtime is present), so memory of the C library's
 *    malloc referenced only from uslab objects is not reported as leaked,
 *    and what really leaks still is.
 *
 * Every function here is cheap enough for slow paths only; none allocates
 * or takes a lock.  Defined in memcheck.c.
 */
#ifndef USLAB_MM_MEMCHECK_H
#define USLAB_MM_MEMCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include "compiler.h"

enum memcheck_mode {
	MEMCHECK_OFF = 0,
	MEMCHECK_VALGRIND,
	MEMCHECK_ASAN,
};

/* Bytes kept between objects in memcheck mode: valgrind's heap red zone. */
#define MEMCHECK_GAP	16

extern enum memcheck_mode memcheck_mode;	/* set once by memcheck_init (constant afterwards) */

/* Decide memcheck_mode (options parsed already) and register the arena with
 * LSan; arena = [start, start + bytes).  Called once from mm init. */
void memcheck_init(void *arena_start, size_t arena_bytes);

static __always_inline bool memcheck_active(void)
{
	return unlikely(memcheck_mode != MEMCHECK_OFF);
}

/* Object lifetime (valgrind: MALLOCLIKE/FREELIKE_BLOCK, with the caller's
 * stack recorded; ASan: unpoison/poison). */
void memcheck_alloc(const void *obj, size_t size, bool zeroed);
void memcheck_free(const void *obj, size_t size);

/* A kmalloc object in a slot of slot bytes: the bytes the program may use
 * now (the block's size: slot, or what kmalloc/krealloc asked for), found
 * from the tool's own state; slot when memcheck is off. */
size_t memcheck_kmalloc_size(const void *obj, size_t slot);
/* The block at obj changes from old_size to new_size bytes (both within its
 * slot), in place: shrinking makes the tail inaccessible, growing makes the
 * new bytes accessible (undefined, for valgrind); the rest keeps its state. */
void memcheck_kmalloc_resize(const void *obj, size_t old_size, size_t new_size);
/* The block at obj, in a slot of slot bytes, becomes size bytes (<= slot)
 * whatever its size now (memcheck_kmalloc_size): kmalloc, ksize, krealloc,
 * and a free path that must write the whole slot. */
void memcheck_kmalloc_set_size(const void *obj, size_t slot, size_t size);

/* Raw states of a range (valgrind: MAKE_MEM_*; ASan: poison or unpoison). */
void memcheck_noaccess(const void *p, size_t n);
void memcheck_undefined(const void *p, size_t n);
void memcheck_defined(const void *p, size_t n);

#endif /* USLAB_MM_MEMCHECK_H */
