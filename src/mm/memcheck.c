// SPDX-License-Identifier: MIT
/*
 * memcheck.c - Valgrind memcheck client requests and AddressSanitizer manual
 * poisoning for the arena; see memcheck.h for the contract.
 *
 * 1. Detection.  Valgrind is seen with RUNNING_ON_VALGRIND (a no-op
 *    instruction sequence outside valgrind), and its memcheck tool by the
 *    preload object it puts in LD_PRELOAD (other tools, callgrind for
 *    instruction counts, must see the ordinary fast paths).  The ASan and LSan runtimes
 *    are seen through weak references: they resolve only when a program
 *    built with -fsanitize=address (or =leak) links uslab.  A uslab built
 *    with ASan itself checks its own accesses, and its allocators read
 *    their metadata inside free objects, so there the mode stays off unless
 *    an option asks for it.
 * 2. Valgrind without its headers: the client requests compile to nothing
 *    (NVALGRIND), and the mode can never become MEMCHECK_VALGRIND.
 * 3. The size of a kmalloc block is kept by the tool, not by uslab: it is
 *    the length of the accessible start of the slot (an object's bytes are
 *    accessible up to its size and not after it), which valgrind's
 *    GET_VBITS (silent on inaccessible bytes) and ASan's
 *    __asan_region_is_poisoned tell without reporting anything.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "memcheck.h"

#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define HAVE_VALGRIND 1
#endif
#endif
#ifndef HAVE_VALGRIND
#define HAVE_VALGRIND 0
#define RUNNING_ON_VALGRIND 0
#define VALGRIND_MALLOCLIKE_BLOCK(a, s, r, z) ((void)(a), (void)(s))
#define VALGRIND_FREELIKE_BLOCK(a, r) ((void)(a))
#define VALGRIND_MAKE_MEM_NOACCESS(a, s) ((void)(a), (void)(s))
#define VALGRIND_MAKE_MEM_UNDEFINED(a, s) ((void)(a), (void)(s))
#define VALGRIND_MAKE_MEM_DEFINED(a, s) ((void)(a), (void)(s))
#define VALGRIND_RESIZEINPLACE_BLOCK(a, o, n, r) ((void)(a), (void)(o), (void)(n))
#define VALGRIND_GET_VBITS(a, v, n) ((void)(a), (void)(v), (void)(n), 0u)
#endif

#if defined(__SANITIZE_ADDRESS__)
#define USLAB_BUILT_WITH_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define USLAB_BUILT_WITH_ASAN 1
#endif
#endif
#ifndef USLAB_BUILT_WITH_ASAN
#define USLAB_BUILT_WITH_ASAN 0
#endif

/* The sanitizer interface (compiler-rt's common_interface_defs.h and
 * lsan_interface.h), weak so that a plain process links without them. */
void __asan_poison_memory_region(const volatile void *addr, size_t size) __attribute__((weak));
void __asan_unpoison_memory_region(const volatile void *addr, size_t size) __attribute__((weak));
void __lsan_register_root_region(const void *p, size_t size) __attribute__((weak));
void *__asan_region_is_poisoned(void *beg, size_t size) __attribute__((weak));

enum memcheck_mode memcheck_mode;

/* The USLAB_OPTIONS choice: -1 = decide by detection. */
static int memcheck_forced = -1;

static int setup_memcheck(const char *val)
{
	if (!strcmp(val, "off"))
		memcheck_forced = MEMCHECK_OFF;
	else if (!strcmp(val, "valgrind") && HAVE_VALGRIND)
		memcheck_forced = MEMCHECK_VALGRIND;
	else if (!strcmp(val, "asan") && __asan_poison_memory_region)
		memcheck_forced = MEMCHECK_ASAN;
	else if (!strcmp(val, "on"))
		memcheck_forced = RUNNING_ON_VALGRIND ? MEMCHECK_VALGRIND :
				  __asan_poison_memory_region ? MEMCHECK_ASAN : MEMCHECK_OFF;
	else
		return -1;
	return 0;
}
__setup("memcheck=", setup_memcheck);

/*
 * Valgrind's memcheck tool (not callgrind, cachegrind, massif...): only it
 * reads the client requests, and the others must measure the real fast
 * paths.  Valgrind preloads its tool's vgpreload_<tool> object into the
 * client through LD_PRELOAD; memcheck's is the one named for it.
 */
static bool running_on_memcheck(void)
{
	const char *preload;

	if (!RUNNING_ON_VALGRIND)
		return false;
	preload = getenv("LD_PRELOAD");
	return preload && strstr(preload, "vgpreload_memcheck");
}

static enum memcheck_mode memcheck_detect(void)
{
	if (running_on_memcheck())
		return MEMCHECK_VALGRIND;
	if (__asan_poison_memory_region && __asan_unpoison_memory_region && !USLAB_BUILT_WITH_ASAN)
		return MEMCHECK_ASAN;
	return MEMCHECK_OFF;
}

void memcheck_init(void *arena_start, size_t arena_bytes)
{
	memcheck_mode = memcheck_forced >= 0 ? (enum memcheck_mode)memcheck_forced :
		memcheck_detect();
	/* why: LSan scans only the readable (online) parts of a root region */
	if (__lsan_register_root_region && arena_bytes)
		__lsan_register_root_region(arena_start, arena_bytes);
}

void memcheck_alloc(const void *obj, size_t size, bool zeroed)
{
	if (memcheck_mode == MEMCHECK_VALGRIND)
		VALGRIND_MALLOCLIKE_BLOCK(obj, size, 0, zeroed);
	else if (memcheck_mode == MEMCHECK_ASAN)
		__asan_unpoison_memory_region(obj, size);
}

void memcheck_free(const void *obj, size_t size)
{
	if (memcheck_mode == MEMCHECK_VALGRIND)
		VALGRIND_FREELIKE_BLOCK(obj, 0);
	else if (memcheck_mode == MEMCHECK_ASAN)
		__asan_poison_memory_region(obj, size);
}

void memcheck_noaccess(const void *p, size_t n)
{
	if (memcheck_mode == MEMCHECK_VALGRIND)
		VALGRIND_MAKE_MEM_NOACCESS(p, n);
	else if (memcheck_mode == MEMCHECK_ASAN)
		__asan_poison_memory_region(p, n);
}

void memcheck_undefined(const void *p, size_t n)
{
	if (memcheck_mode == MEMCHECK_VALGRIND)
		VALGRIND_MAKE_MEM_UNDEFINED(p, n);
	else if (memcheck_mode == MEMCHECK_ASAN)
		__asan_unpoison_memory_region(p, n);
}

void memcheck_defined(const void *p, size_t n)
{
	if (memcheck_mode == MEMCHECK_VALGRIND)
		VALGRIND_MAKE_MEM_DEFINED(p, n);
	else if (memcheck_mode == MEMCHECK_ASAN)
		__asan_unpoison_memory_region(p, n);
}

/* The length of the accessible start of [obj, obj + slot): a binary search
 * with one-byte GET_VBITS probes (1: accessible; 3: not, and no report). */
static size_t valgrind_accessible(const char *obj, size_t slot)
{
	size_t lo = 0, hi = slot;

	while (lo < hi) {	/* [0, lo) accessible, [hi, slot) not */
		size_t mid = lo + (hi - lo) / 2;
		unsigned char vbits;

		if (VALGRIND_GET_VBITS(obj + mid, &vbits, 1) == 1)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t asan_accessible(const char *obj, size_t slot)
{
	const char *bad = __asan_region_is_poisoned ?
		__asan_region_is_poisoned((void *)obj, slot) : NULL;

	return bad ? (size_t)(bad - obj) : slot;
}

size_t memcheck_kmalloc_size(const void *obj, size_t slot)
{
	if (memcheck_mode == MEMCHECK_VALGRIND)
		return valgrind_accessible(obj, slot);
	if (memcheck_mode == MEMCHECK_ASAN)
		return asan_accessible(obj, slot);
	return slot;
}

void memcheck_kmalloc_resize(const void *obj, size_t old_size, size_t new_size)
{
	const char *p = obj;

	if (old_size == new_size)
		return;
	if (memcheck_mode == MEMCHECK_VALGRIND)
		VALGRIND_RESIZEINPLACE_BLOCK(obj, old_size, new_size, 0);
	else if (memcheck_mode == MEMCHECK_ASAN && new_size < old_size)
		__asan_poison_memory_region(p + new_size, old_size - new_size);
	else if (memcheck_mode == MEMCHECK_ASAN)
		__asan_unpoison_memory_region(p + old_size, new_size - old_size);
}

void memcheck_kmalloc_set_size(const void *obj, size_t slot, size_t size)
{
	memcheck_kmalloc_resize(obj, memcheck_kmalloc_size(obj, slot), size);
}
