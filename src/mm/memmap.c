// SPDX-License-Identifier: MIT
/*
 * memmap.c - the arena of "physical memory", its sections, and the
 * vmemmap array of struct page that describes it.
 *
 * 1. Overview
 *    uslab's physical memory is one range of address space (the arena),
 *    reserved once with os_reserve() and never moved, so that an address
 *    converts to its page frame number by a subtraction and a shift.  The
 *    struct pages live in a second reserved range, vmemmap, indexed by pfn
 *    (the kernel's SPARSEMEM_VMEMMAP): pfn_to_page, page_to_pfn,
 *    virt_to_page, page_address and virt_to_folio are pure arithmetic
 *    (mm.h).  Neither range costs memory until it is committed.
 *
 *    The arena is brought into use one section at a time (a power-of-two
 *    run of pages, 16 MiB by default): memmap_online_section() commits the
 *    section's arena range and the slice of vmemmap that describes it,
 *    initialises those struct pages, and returns the pfn range so that the
 *    page allocator can put it on its free lists.  The page allocator calls
 *    it whenever its free lists cannot satisfy a request.
 *
 * 2. Data structures
 *    memmap (struct memmap_layout, mm.h)   the geometry, written once by
 *        memmap_init() before any other thread can see the library.
 *    memmap.section_flags[]                one word per section, mapped with
 *        os_map (never malloc: this file sits below malloc).
 *    nr_sections_online                    sections 0 .. n-1 are online;
 *        sections come online in address order.
 *
 * 3. States of a section (bits of memmap_section_flags(nr); the table
 *    stores PRESENT only with the others, when the section comes online)
 *      state        PRESENT  HAS_MEM_MAP  IS_ONLINE   arena range   vmemmap slice
 *      reserved        1          0           0       PROT_NONE     PROT_NONE
 *      online          1          1           1       committed     committed, initialised
 *    A section goes from reserved to online in one step and never back: its
 *    free memory is returned to the OS by the page allocator (os_discard of
 *    free blocks), which keeps the range committed.  HAS_MEM_MAP is set last,
 *    with a release store, so that pfn_valid() never sees a section whose
 *    struct pages are not initialised yet.
 *
 *    A struct page of a newly online section reads as zeros until the page
 *    allocator first needs it (memmap_prepare_pages(): a free block head
 *    or a block handed out); then, a chunk of MEMMAP_CHUNK_PAGES at a time
 *    (one OS page of vmemmap), it becomes: flags = node 0 and no PG_* bits,
 *    _mapcount/page_type = -1, _refcount = 0, every other word 0.  why
 *    lazily: writing a section's struct pages when it comes online made
 *    all 256 KiB of the first section's vmemmap resident in every program,
 *    where a small one uses a few chunks.  memmap_chunk_ready has one bit
 *    per chunk, written under the page allocator's zone.lock.
 *
 * 4. Geometry and options (USLAB_OPTIONS, parsed before the first use)
 *      arena_size=    address space reserved for the arena (default 64G)
 *      section_size=  power of two (default 16M)
 *      max_order=     buddy orders 0 .. max_order-1 (default 11, range
 *                     1 .. MAX_ORDER_LIMIT)
 *    The largest buddy block is PAGE_SIZE << (max_order - 1).  A section is
 *    raised to at least the largest block (sections hold whole blocks, so a
 *    buddy never lies in another section) and to at least 256 KiB (so that
 *    each section's struct pages fill whole OS pages).  The arena is
 *    rounded up to whole sections and its base is aligned to the largest
 *    block, so that block alignment in pfns is alignment in addresses.
 *
 *    Under an address-space limit (ulimit -v) the reservation falls back:
 *    the size is halved (shrinking the section to the largest power of two
 *    not above the arena, when the arena becomes smaller than a section)
 *    until both the arena and its vmemmap fit.  Having found the largest
 *    size that fits, memmap_init() then takes half of it, so that the
 *    program keeps address space for its own mappings and thread stacks.
 *
 * 5. Lock order
 *    memmap_lock serialises memmap_online_section().  The page allocator
 *    calls it under its zone lock, so memmap_lock nests inside zone->lock
 *    and this file never calls back into the page allocator while holding it.
 *
 * 6. Invariants
 *    - arena_start is aligned to the largest block; arena_end - arena_start
 *      = max_pfn * PAGE_SIZE = nr_sections * section size.
 *    - vmemmap[pfn] is committed and initialised iff pfn's section has
 *      HAS_MEM_MAP; sections 0 .. nr_sections_online-1 are exactly those,
 *      and memmap.valid_pfn_end is their end (pfn_valid's one compare).
 *    - memmap_bytes_committed = nr_sections_online * PAGES_PER_SECTION *
 *      sizeof(struct page): 64 bytes per 4 KiB page, plus the section table.
 */
#include <errno.h>
#include <string.h>
#include "internal.h"
#include "os/os.h"

struct memmap_layout memmap;

/* Option values; read by memmap_init() only. */
unsigned long memmap_arena_size = 64UL << 30;
/* why 16M and not the kernel's 128M: a section's struct pages (1/64 of it)
 * are all written when it comes online, so the first section costs 2 MiB
 * of resident memory at 128M and 256 KiB at 16M (peak RSS of git under the
 * drop-in 8.3 -> 6.6 MiB, python3 30.0 -> 28.5 MiB). */
unsigned long memmap_section_size = 16UL << 20;
unsigned int memmap_max_order = DEFAULT_MAX_ORDER;

/* A section's struct pages must fill whole OS pages (PAGE_SIZE / 64 pages). */
#define MIN_SECTION_SIZE	(PAGE_SIZE * (PAGE_SIZE / sizeof(struct page)))

static DEFINE_MUTEX(memmap_lock);	/* serialises onlining */
static unsigned long nr_sections;	/* sections in the arena (set at init) */
static unsigned long nr_sections_online;	/* memmap_lock; read with READ_ONCE */
static size_t section_table_bytes;	/* bytes mapped for memmap.section_flags */
static size_t vmemmap_bytes;		/* bytes reserved for vmemmap */

/* Struct pages in one OS page of vmemmap: the unit of lazy initialisation. */
#define MEMMAP_CHUNK_PAGES	(PAGE_SIZE / sizeof(struct page))
#define CHUNK_BITS		(8 * sizeof(unsigned long))
/* One bit per chunk of the arena, set once its struct pages are initialised
 * (§3); zone.lock. */
static unsigned long *memmap_chunk_ready;
static size_t chunk_map_bytes;		/* bytes mapped for memmap_chunk_ready */

/* ---- options ---- */

/* An option given after the memory map exists cannot take effect. */
static bool memmap_option_too_late(const char *name)
{
	if (!READ_ONCE(memmap.max_pfn))
		return false;
	fprintf(stderr, "uslab: %s ignored: the memory map is already set up\n", name);
	return true;
}

static int setup_arena_size(const char *val)
{
	unsigned long v;

	if (kstrtoul_opt(val, &v) || v < PAGE_SIZE)
		return -1;
	if (!memmap_option_too_late("arena_size="))
		memmap_arena_size = v;
	return 0;
}
__setup("arena_size=", setup_arena_size);

static int setup_section_size(const char *val)
{
	unsigned long v;

	if (kstrtoul_opt(val, &v) || !is_power_of_2(v) || v < PAGE_SIZE)
		return -1;
	if (!memmap_option_too_late("section_size="))
		memmap_section_size = v;
	return 0;
}
__setup("section_size=", setup_section_size);

static int setup_max_order(const char *val)
{
	unsigned long v;

	if (kstrtoul_opt(val, &v) || v < 1 || v > MAX_ORDER_LIMIT)
		return -1;
	if (!memmap_option_too_late("max_order="))
		memmap_max_order = (unsigned int)v;
	return 0;
}
__setup("max_order=", setup_max_order);

/* ---- reservation ---- */

static unsigned long largest_block_bytes(void)
{
	return PAGE_SIZE << (memmap_max_order - 1);
}

static unsigned long min_section_bytes(void)
{
	return max(largest_block_bytes(), MIN_SECTION_SIZE);
}

static size_t vmemmap_size_for(unsigned long arena_bytes)
{
	return arena_bytes / PAGE_SIZE * sizeof(struct page);
}

/* Reserve arena + vmemmap of exactly *size bytes of arena; both or neither. */
static bool memmap_try_reserve(unsigned long size, void **arena, void **vmem)
{
	*arena = os_reserve(size, largest_block_bytes());
	if (!*arena)
		return false;
	*vmem = os_reserve(vmemmap_size_for(size), PAGE_SIZE);
	if (*vmem)
		return true;
	os_release(*arena, size);
	return false;
}

/* Halve *size, keeping it a multiple of *section (shrunk if need be). */
static bool memmap_shrink(unsigned long *size, unsigned long *section)
{
	unsigned long half = *size / 2;

	if (half < min_section_bytes())
		return false;
	if (half < *section)
		*section = max(1UL << ilog2(half), min_section_bytes());
	*size = ALIGN_DOWN(half, *section);
	return true;
}

/* After a fallback, give the upper half back: the program needs room too. */
static void memmap_leave_headroom(unsigned long *size, unsigned long *section,
				  char *arena, char *vmem)
{
	unsigned long s = *size, sec = *section;

	if (!memmap_shrink(&s, &sec))
		return;
	os_release(arena + s, *size - s);
	os_release(vmem + vmemmap_size_for(s), vmemmap_size_for(*size) - vmemmap_size_for(s));
	*size = s;
	*section = sec;
}

/*
 * Reserve the largest arena, from the requested size down by halves, that
 * the OS grants; if the request had to shrink, keep half of that.
 */
static bool memmap_reserve(unsigned long *size, unsigned long *section,
			   void **arena, void **vmem)
{
	bool fell_back = false;

	while (!memmap_try_reserve(*size, arena, vmem)) {
		fell_back = true;
		if (!memmap_shrink(size, section))
			return false;
	}
	if (fell_back)
		memmap_leave_headroom(size, section, *arena, *vmem);
	return true;
}

/* Requested geometry, made consistent: whole blocks per section, whole sections. */
static void memmap_fix_geometry(unsigned long *size, unsigned long *section)
{
	*size = max(PAGE_ALIGN(memmap_arena_size), min_section_bytes());
	*section = max(memmap_section_size, min_section_bytes());
	if (*size < *section)
		*section = max(1UL << ilog2(*size), min_section_bytes());
	*size = ALIGN(*size, *section);
}

static bool memmap_map_section_table(unsigned long sections, unsigned long arena_bytes)
{
	section_table_bytes = PAGE_ALIGN(sections * sizeof(unsigned long));
	memmap.section_flags = os_map(section_table_bytes);
	if (!memmap.section_flags)
		return false;
	/* why mapped, not static: 32 KiB for a 64G arena, of which only the
	 * words of online sections are ever touched (a reserved section's word
	 * stays 0: memmap_section_flags() adds SECTION_MARKED_PRESENT) */
	chunk_map_bytes = PAGE_ALIGN(DIV_ROUND_UP(arena_bytes / PAGE_SIZE / MEMMAP_CHUNK_PAGES, CHUNK_BITS) * sizeof(unsigned long));
	memmap_chunk_ready = os_map(chunk_map_bytes);
	if (!memmap_chunk_ready) {
		os_unmap(memmap.section_flags, section_table_bytes);
		return false;
	}
	return true;
}

/* Section @nr's SECTION_* bits: PRESENT for every section of the arena,
 * stored only once it is online. */
unsigned long memmap_section_flags(unsigned long nr)
{
	if (nr >= nr_sections)
		return 0;
	return SECTION_MARKED_PRESENT | smp_load_acquire(&memmap.section_flags[nr]);
}

static void memmap_publish(char *arena, unsigned long size, void *vmem,
			   unsigned long section)
{
	nr_sections = size / section;
	vmemmap_bytes = vmemmap_size_for(size);
	memmap.arena_start = (unsigned long)arena;
	memmap.arena_end = (unsigned long)arena + size;
	memmap.vmemmap = vmem;
	memmap.section_shift = ilog2(section);
	memmap.max_order = memmap_max_order;
	/* why: max_pfn != 0 is what memmap_option_too_late() tests */
	WRITE_ONCE(memmap.max_pfn, size >> PAGE_SHIFT);
}

/**
 * memmap_init - reserve the arena and vmemmap per the options.
 *
 * Called once, single-threaded, by mm_init_slow() before the page allocator
 * is set up.  Returns false (with a message on stderr) if not even the
 * smallest arena can be reserved; the memory map is then empty, every pfn
 * is invalid and memmap_online_section() fails.
 */
bool memmap_init(void)
{
	unsigned long size, section;
	void *arena, *vmem;

	if (memmap.max_pfn)
		return true;
	memmap_fix_geometry(&size, &section);
	if (!memmap_reserve(&size, &section, &arena, &vmem)) {
		fprintf(stderr, "uslab: cannot reserve address space for the arena: %s\n",
			strerror(errno));
		return false;
	}
	if (!memmap_map_section_table(size / section, size)) {
		fprintf(stderr, "uslab: cannot map the section table: %s\n", strerror(errno));
		os_release(arena, size);
		os_release(vmem, vmemmap_size_for(size));
		return false;
	}
	memmap_publish(arena, size, vmem, section);
	fork_lock_register(&memmap_lock.m, FORK_RANK_MEMMAP);
	return true;
}

/* ---- sections ---- */

/* Fresh committed memory reads as zeros; only the -1 fields need writing. */
static void memmap_init_chunk(unsigned long chunk)
{
	struct page *page = pfn_to_page(chunk * MEMMAP_CHUNK_PAGES);
	unsigned long i;

	for (i = 0; i < MEMMAP_CHUNK_PAGES; i++) {
		set_page_node(&page[i], 0);
		page[i].page_type = ~0u;	/* _mapcount = -1 */
	}
}

/**
 * memmap_prepare_pages - initialise the struct pages of [pfn, pfn + nr).
 *
 * The page allocator calls it, under zone.lock, before a struct page of an
 * online section becomes a free block's head or is handed out (§3).  A
 * chunk already initialised is left alone: its pages may be in use.
 */
void memmap_prepare_pages(unsigned long pfn, unsigned long nr)
{
	unsigned long c = pfn / MEMMAP_CHUNK_PAGES;
	unsigned long last = (pfn + nr - 1) / MEMMAP_CHUNK_PAGES;
	unsigned long *word, bit;

	for (; c <= last; c++) {
		word = &memmap_chunk_ready[c / CHUNK_BITS];
		bit = 1UL << (c % CHUNK_BITS);
		if (likely(*word & bit))
			continue;
		memmap_init_chunk(c);
		*word |= bit;
	}
}

static bool memmap_commit_section(unsigned long start_pfn)
{
	if (!os_commit(pfn_to_virt(start_pfn), PAGES_PER_SECTION << PAGE_SHIFT))
		return false;
	/* A failure here leaves the arena range committed but untouched: harmless,
	 * and committing it again on the next attempt is allowed. */
	return os_commit(pfn_to_page(start_pfn), PAGES_PER_SECTION * sizeof(struct page));
}

static bool memmap_online_next_locked(unsigned long *start_pfn, unsigned long *nr_pages)
{
	unsigned long nr = nr_sections_online;
	unsigned long pfn;

	if (nr >= nr_sections) {
		errno = ENOMEM;
		return false;
	}
	pfn = nr << PFN_SECTION_SHIFT;
	if (!memmap_commit_section(pfn))
		return false;
	/* why release: pfn_valid() readers must see initialised struct pages */
	smp_store_release(&memmap.section_flags[nr], SECTION_MARKED_PRESENT |
			  SECTION_HAS_MEM_MAP | SECTION_IS_ONLINE);
	WRITE_ONCE(nr_sections_online, nr + 1);
	smp_store_release(&memmap.valid_pfn_end, pfn + PAGES_PER_SECTION);
	*start_pfn = pfn;
	*nr_pages = PAGES_PER_SECTION;
	return true;
}

/**
 * memmap_online_section - bring the next section of the arena into use.
 * @start_pfn: set to the first pfn of the section
 * @nr_pages: set to the number of pages in it (a multiple of the largest block)
 *
 * Commits the section's arena range and its slice of vmemmap and initialises
 * its struct pages.  Returns false, with errno set, when every section is
 * already online (ENOMEM) or the OS refuses to commit memory; nothing
 * changes then, and a later call may succeed if the OS relents.
 */
bool memmap_online_section(unsigned long *start_pfn, unsigned long *nr_pages)
{
	bool ok;

	mutex_lock(&memmap_lock);
	ok = memmap_online_next_locked(start_pfn, nr_pages);
	mutex_unlock(&memmap_lock);
	return ok;
}

/* ---- statistics ---- */

/**
 * uslab_memmap_stats - sizes and costs of the memory map.
 * @st: filled in; pages_free and pages_reported are read from the page
 *      allocator under its locks (a snapshot).
 */
USLAB_API void uslab_memmap_stats(struct uslab_memmap_stats *st)
{
	unsigned long online;

	if (!st)
		return;
	mm_ensure_init();
	memset(st, 0, sizeof(*st));
	if (!memmap.max_pfn)
		return;
	online = READ_ONCE(nr_sections_online);
	st->arena_bytes = memmap.arena_end - memmap.arena_start;
	st->vmemmap_bytes = vmemmap_bytes;
	st->section_bytes = 1UL << memmap.section_shift;
	st->sections_online = online;
	st->pages_online = online * PAGES_PER_SECTION;
	st->pages_free = nr_free_pages();
	st->pages_reported = nr_reported_pages();
	st->memmap_bytes_committed = st->pages_online * sizeof(struct page);
	st->bookkeeping_bytes = section_table_bytes + chunk_map_bytes + sizeof(memmap);
	st->max_order = memmap.max_order;
}

/* ---- exported forms of the inline conversions of mm.h ---- */

USLAB_API void *uslab_page_address(const struct page *page)
{
	return page_address(page);
}

USLAB_API struct page *uslab_virt_to_page(const void *addr)
{
	return virt_to_page(addr);
}

USLAB_API struct folio *uslab_virt_to_folio(const void *addr)
{
	return virt_to_folio(addr);
}

USLAB_API void *uslab_folio_address(const struct folio *folio)
{
	return folio_address(folio);
}

USLAB_API unsigned int uslab_folio_order(const struct folio *folio)
{
	return folio_order(folio);
}

USLAB_API unsigned long uslab_page_to_pfn(const struct page *page)
{
	return page_to_pfn(page);
}

USLAB_API struct page *uslab_pfn_to_page(unsigned long pfn)
{
	return pfn_to_page(pfn);
}

USLAB_API int uslab_pfn_valid(unsigned long pfn)
{
	return pfn_valid(pfn);
}

USLAB_API int uslab_virt_addr_valid(const void *addr)
{
	return virt_addr_valid(addr);
}
