// SPDX-License-Identifier: MIT
/*
 * ptrcheck.c - is this pointer a live block of ours?  The live map, the
 * validation of every pointer given to free/realloc/malloc_usable_size,
 * and the report that ends the process when the answer is no.
 *
 * 1. Overview.  A pointer is judged before anything it points to is read,
 *    using only our own metadata:
 *      misaligned (not a multiple of 16)            -> invalid pointer
 *      inside the bootstrap buffer                  -> bootstrap chunk
 *      outside the arena: in huge.c's table         -> huge block
 *                         freed recently            -> double free
 *                         else                      -> invalid (stack, global,
 *                                                      foreign, wild)
 *      in the arena, section offline                -> invalid
 *      folio is a slab: live tag set                -> slab object
 *                       else                        -> double free or interior
 *      folio is a large kmalloc: not its start      -> interior pointer
 *                                live word set      -> large block
 *                                else               -> double free
 *      any other page (free, page-allocator user)   -> double free or invalid
 *    The live map decides "start of a live block" for every slab object in
 *    constant time (a large block has its folio's live word instead:
 *    large_mark, malloc_internal.h): malloc tags the block's first granule after the allocator hands
 *    the block out, free reads the tag and clears it before handing the
 *    block back (so a later free finds it clear, and the block cannot be
 *    reallocated before the tag is cleared).  free()'s fast path (malloc.c)
 *    asks the map first: a granule tagged with a class is the start of a
 *    live object of that class's cache, so neither the memory map nor the
 *    slab is looked at before the object goes back to its cache.
 *
 * 2. Data structures.  malloc_hot.map.tags: one byte per 16-byte granule of the
 *    arena, in a reservation of arena/16 bytes committed lazily (the OS
 *    supplies a page of tags the first time a block in the 64 KiB of arena
 *    it covers is marked; reading an untouched page costs no memory).
 *
 * 3. States of a granule's tag: LIVE_NONE (0) = no live block starts here;
 *    1 .. NR_MALLOC_CLASSES = a block from that class's cache (tag - 1)
 *    starts here; LIVE_KMALLOC = a slab object from __kmalloc.  Transitions:
 *    NONE -> tag in malloc, after the
 *    allocator returned the block; tag -> NONE in free, before the block
 *    goes back.  Nothing else writes the map.
 *
 * 4. Lock order: none, and why a byte needs no atomic read-modify-write.
 *    The map was one bit per granule, set and test-and-cleared with LOCKed
 *    instructions (neighbours share a word); a byte is written whole, so
 *    plain (relaxed atomic) loads and stores do, at 1/16 of the touched
 *    arena in memory instead of 1/128.  Exactness:
 *    - malloc: the allocator hands a free block to exactly one thread, and
 *      the free() that gave it back stored NONE before handing it over.
 *      The hand-over (the owner's own free list, the slab free list's
 *      cmpxchg, a list lock, the page allocator's lock: whatever the
 *      allocator uses) orders that store before malloc's load, which therefore reads NONE unless the
 *      allocator hands out a block twice (reported: corrupted free list).
 *    - free: a second free of a block that is not concurrent with the
 *      first, i.e. ordered after it by anything at all (the same thread;
 *      any synchronisation through which the second thread learnt that the
 *      block was freed, or got the pointer), reads NONE, as does any free
 *      after the block went back and before malloc handed it out again: it
 *      is reported before anything is touched.  A free racing the first
 *      free of the same block, on another thread, with nothing ordering the
 *      two, may read the tag before the first free cleared it: both then
 *      hand the block back, and it sits on two free lists (SLUB reports it
 *      at once only if the second lands on a list whose head it already
 *      is).  When it is then handed out twice, the second malloc finds the
 *      tag live and reports the corrupted free list, unless the first owner
 *      freed it in between.  Such a race is a data race on the block in the
 *      program itself; no allocator without a lock or an atomic
 *      read-modify-write on every free catches every instance (the
 *      relaxed load and store are exact in the C11 model for every free
 *      that happens after the first, by coherence).
 *    - Slab objects the slow path frees take live_map_claim(), and large
 *      blocks large_claim(), an atomic exchange each: exact even for racing
 *      frees (rare, and far costlier anyway).
 *
 * 5. Invariants.  A tag is set only between the allocator returning a block
 *    and free() giving it back, so it is never set for a free object; the
 *    tag is always cleared before the block goes back to the allocator.
 *    If the map could not be reserved (address space too tight), every
 *    check that needs it passes and the rest still run; this is said once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "malloc_internal.h"
#include "os/os.h"

void live_map_init(void)
{
	static const char msg[] = "uslab malloc: no address space for the live-object map: "
		"double-free and interior-pointer checks of small and large blocks are off\n";
	unsigned long granules, bytes;
	void *bits;

	if (!memmap.max_pfn)
		return;		/* no arena: every block is huge, checked by huge.c */
	granules = (memmap.arena_end - memmap.arena_start) >> MALLOC_ALIGN_SHIFT;
	bytes = PAGE_ALIGN(granules);
	bits = os_reserve(bytes, PAGE_SIZE);
	if (bits && !os_commit(bits, bytes)) {
		os_release(bits, bytes);
		bits = NULL;
	}
	if (!bits) {
		os_write_all(2, msg, sizeof(msg) - 1);
		return;
	}
	malloc_hot.map.tags = bits;
	malloc_hot.map.base = memmap.arena_start;
	malloc_hot.map.nr_granules = granules;
}

/* ---- reports ---- */

struct report_buf {
	char text[1024];	/* the report so far (owned by the reporting thread) */
	size_t len;		/* bytes used */
};

static void report_str(struct report_buf *b, const char *s)
{
	while (*s && b->len < sizeof(b->text))
		b->text[b->len++] = *s++;
}

static void report_hex(struct report_buf *b, unsigned long v)
{
	char digits[19];
	int i;

	digits[0] = '0';
	digits[1] = 'x';
	for (i = 0; i < 16; i++)
		digits[2 + i] = "0123456789abcdef"[(v >> (60 - 4 * i)) & 0xf];
	digits[18] = '\0';
	report_str(b, digits);
}

static void report_dec(struct report_buf *b, unsigned long v)
{
	char digits[21];
	int i = 20;

	digits[i] = '\0';
	do
		digits[--i] = (char)('0' + v % 10);
	while ((v /= 10) && i > 0);
	report_str(b, digits + i);
}

/*
 * The report, in the kernel's layout:
 *	=====...
 *	BUG malloc-slub: free(): double free or invalid pointer 0x...
 *	-----...
 *
 *	INFO: what was found
 *	INFO: called from 0x...
 * then abort().  Built in a stack buffer with no malloc and no stdio, since
 * the heap may be what is broken.
 */
void malloc_report(const char *fn, const void *p, const void *caller,
		   const char *title, const char *info)
{
	static const char rule_eq[] =
		"=============================================================================\n";
	static const char rule_dash[] =
		"-----------------------------------------------------------------------------\n";
	struct report_buf b = { .len = 0 };

	report_str(&b, rule_eq);
	report_str(&b, "BUG ");
	report_str(&b, malloc_name);
	report_str(&b, ": ");
	report_str(&b, fn);
	report_str(&b, "(): ");
	report_str(&b, title);
	report_str(&b, " ");
	report_hex(&b, (unsigned long)p);
	report_str(&b, "\n");
	report_str(&b, rule_dash);
	report_str(&b, "\nINFO: ");
	report_str(&b, info);
	report_str(&b, "\nINFO: called from ");
	report_hex(&b, (unsigned long)caller);
	report_str(&b, "\nAborting: the heap was not changed\n\n");
	os_write_all(2, b.text, b.len);
	abort();
}

/* Report with an INFO line that names a block: "<what> <dec> <mid> 0x<hex>". */
static __noreturn __cold void report_block(const char *fn, const void *p, const void *caller,
		const char *title, const char *what, unsigned long n,
		const char *mid, const void *start)
{
	struct report_buf b = { .len = 0 };

	report_str(&b, what);
	report_dec(&b, n);
	report_str(&b, mid);
	report_hex(&b, (unsigned long)start);
	b.text[min(b.len, sizeof(b.text) - 1)] = '\0';
	malloc_report(fn, p, caller, title, b.text);
}

static __noreturn __cold void report_foreign(const char *fn, const void *p, const void *caller)
{
	if (huge_was_freed(p))
		malloc_report(fn, p, caller, "double free",
			"the huge block that started here was freed already (double free)");
	malloc_report(fn, p, caller, "invalid pointer",
		"it is not in the heap and is no block this malloc mapped: a pointer to "
		"the stack, a global, another mapping or a wild address");
}

static __noreturn __cold void report_misaligned(const char *fn, const void *p, const void *caller)
{
	malloc_report(fn, p, caller, "invalid pointer",
		"misaligned: every block this malloc hands out starts on a 16-byte boundary, "
		"so this points into the middle of one, or was never allocated");
}

static __noreturn __cold void report_slab_not_live(const char *fn, const void *p,
		const void *caller, const struct folio *folio)
{
	report_block(fn, p, caller, "double free or invalid pointer",
		"no live block starts here: it was freed already (double free), or it "
		"points into the middle of an object; the slab is order ",
		folio_order(folio), " at ", folio_address(folio));
}

static __noreturn __cold void report_large_interior(const char *fn, const void *p,
		const void *caller, const struct folio *folio)
{
	report_block(fn, p, caller, "invalid pointer",
		"it points into the middle of a block: ",
		(unsigned long)((const char *)p - (const char *)folio_address(folio)),
		" bytes past the start of the large block at ", folio_address(folio));
}

static __noreturn __cold void report_large_not_live(const char *fn, const void *p,
		const void *caller)
{
	malloc_report(fn, p, caller, "double free or invalid pointer",
		"the large block that started here was freed already (double free)");
}

static __noreturn __cold void report_page_not_block(const char *fn, const void *p,
		const void *caller)
{
	malloc_report(fn, p, caller, "double free or invalid pointer",
		"it lies in heap memory that holds no allocated block: the block was "
		"freed already (double free), or the pointer was never allocated");
}

void *malloc_mark_slow(void *p, const char *fn, const void *caller)
{
	if (!malloc_hot.map.tags)
		return p;	/* map disabled: nothing to check against */
	if ((unsigned long)p - malloc_hot.map.base >= malloc_hot.map.nr_granules << MALLOC_ALIGN_SHIFT)
		malloc_report(fn, p, caller, "allocator returned a bad block",
			"the slab allocator handed out an address outside the heap: "
			"its free list is corrupted");
	malloc_report(fn, p, caller, "allocator returned a live block",
		"the slab allocator handed out a block that is still allocated: "
		"its free list is corrupted (a write after free?)");
}

/* ---- validation ---- */

/* p lies outside the arena, or in a part of it that is not online. */
static void lookup_outside(void *p, struct malloc_block *blk, const char *fn,
			   const void *caller)
{
	if (malloc_boot_owns(p)) {
		blk->kind = MALLOC_BOOT;
		blk->usable = malloc_boot_usable(p);
		return;
	}
	blk->kind = MALLOC_HUGE;
	blk->usable = huge_usable(p);
	if (!blk->usable)
		report_foreign(fn, p, caller);
}

/* Is the tag live?  With the map disabled, everything is. */
static bool live_or_unknown(const void *p)
{
	return !malloc_hot.map.tags || live_map_get(p) != LIVE_NONE;
}

void malloc_lookup(void *p, struct malloc_block *blk, const char *fn, const void *caller)
{
	struct folio *folio;

	if (unlikely(!IS_ALIGNED((unsigned long)p, MALLOC_ALIGN)))
		report_misaligned(fn, p, caller);
	if (!virt_addr_valid(p))
		return lookup_outside(p, blk, fn, caller);
	folio = virt_to_folio(p);
	blk->folio = folio;
	if (folio_test_slab(folio)) {
		if (!live_or_unknown(p))
			report_slab_not_live(fn, p, caller, folio);
		blk->kind = MALLOC_SLAB;
		blk->usable = __ksize(p);
		return;
	}
	if (!folio_test_large_kmalloc(folio))
		report_page_not_block(fn, p, caller);
	if (p != folio_address(folio))
		report_large_interior(fn, p, caller, folio);
	if (!large_live(folio))
		report_large_not_live(fn, p, caller);
	blk->kind = MALLOC_LARGE;
	blk->usable = folio_size(folio);
}

static void free_outside(void *p, const char *fn, const void *caller)
{
	if (malloc_boot_owns(p))
		return;		/* bootstrap chunks are never reused */
	if (!huge_free(p))
		report_foreign(fn, p, caller);
}

/* keep: a large block may stay in this CPU's cache (large_cache.c). */
static void free_checked(void *p, const char *fn, const void *caller, bool keep)
{
	struct folio *folio;

	if (!IS_ALIGNED((unsigned long)p, MALLOC_ALIGN))
		report_misaligned(fn, p, caller);
	if (!virt_addr_valid(p))
		return free_outside(p, fn, caller);
	folio = virt_to_folio(p);
	if (folio_test_slab(folio)) {
		if (unlikely(live_map_claim(p) == LIVE_NONE) && malloc_hot.map.tags)
			report_slab_not_live(fn, p, caller, folio);
		kfree(p);
		return;
	}
	if (!folio_test_large_kmalloc(folio))
		report_page_not_block(fn, p, caller);
	if (p != folio_address(folio))
		report_large_interior(fn, p, caller, folio);
	if (!large_claim(folio))
		report_large_not_live(fn, p, caller);
	if (!keep || !large_cache_put(folio))
		free_large_kmalloc(folio, p);
}

/* free_checked, keeping errno: munmap and the page allocator may set it. */
static void free_checked_keep_errno(void *p, const char *fn, const void *caller, bool keep)
{
	int err = errno;

	free_checked(p, fn, caller, keep);
	errno = err;
}

void malloc_free_slow(void *p, const char *fn, const void *caller)
{
	if (p)		/* free(NULL) lands here: outside the map */
		free_checked_keep_errno(p, fn, caller, true);
}

void malloc_free_moved(void *p, const char *fn, const void *caller)
{
	free_checked_keep_errno(p, fn, caller, false);
}
