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

/* Raw states of a range (valgrind: MAKE_MEM_*; ASan: poison or unpoison). */
void memcheck_noaccess(const void *p, size_t n);
void memcheck_undefined(const void *p, size_t n);
void memcheck_defined(const void *p, size_t n);

#endif /* USLAB_MM_MEMCHECK_H */
