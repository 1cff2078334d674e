// SPDX-License-Identifier: MIT
/*
 * memmap_picture.c - the memory map as a picture: one cell per page of every
 * online section, coloured by what the page is, as SVG, HTML or PNG.
 *
 * 1. Overview
 *    memmap_picture_write(path) takes a snapshot of the memory map, then
 *    draws it with no lock held (stdio may allocate, and the malloc drop-in
 *    sits above us).  The snapshot is made in three steps, each under the
 *    locks of the layer it reads and never two layers at once:
 *      a. the caches: under slab_mutex, every cache on slab_caches is copied
 *         into a table (its address as an identity only, its name, its
 *         slabinfo), sorted by address;
 *      b. SLOB only: the pages of its three free lists (slob_list_pages(),
 *         under slob_lock);
 *      c. the pages: page_alloc_walk() holds every page allocator lock, shows
 *         us every free block (buddy lists and every CPU's lists), and then,
 *         still locked, lets us classify every other online page, which is
 *         therefore allocated: by the flags of its head page.
 *    Every scratch buffer comes from os_map(), never from uslab itself, so
 *    drawing the map does not change it.
 *
 * 2. Data structures
 *    struct picture    the snapshot: cells[pfn] for pfns 0 .. online-1 (the
 *                      sections come online in address order), the cache
 *                      table, counts per category, the legend.
 *    struct pic_cell   one page: category, order of its block, head bit.
 *    struct pic_cache  one cache: identity, name, slabinfo, pages and slabs
 *                      counted on the map, its legend entry.
 *    struct pic_slot   one legend entry: a colour, a label, pages, blocks.
 *
 * 3. Categories (what a cell's colour says)
 *      category        recognised by                          colour
 *      free, order o   block on zone.free_area[o]             blue, darker for larger o
 *      pcp             block on a CPU's per-CPU page list     yellow
 *      slab of cache   head PG_slab, slab_owner_cache()       by cache: the 12 biggest
 *                      (SLUB, SLAB)                           caches their own, the rest grey
 *      SLOB list       head PG_slab, page on free_slob_small/ one per list; "full" = on no
 *                      medium/large (SLOB's pages are shared  list
 *                      by every cache and kmalloc)
 *      object of cache SLOB: an object of a page or more,     by cache, as slabs above
 *                      whose folio->mapping names its cache
 *      large kmalloc   head PG_large_kmalloc                  magenta
 *      pages           any other allocated page (alloc_pages  dark grey
 *                      users; SLOB's pages of object maps)
 *    A slab whose cache is not in the table (made after step a) is drawn
 *    black.  Pages outside online sections are not drawn.
 *
 * 4. Lock order
 *    slab_mutex -> the allocator's list locks (get_slabinfo), released; then
 *    slob_lock alone, released; then page_alloc_walk()'s locks (page_alloc.c
 *    section 4).  Nothing is held while the file is written.
 *
 * 5. Invariants
 *    - Every online page is in exactly one category; their pages add up to
 *      pages_online.
 *    - pages_free (buddy + pcp, counted cell by cell) == the allocator's
 *      nr_free_pages() read under the same locks, always.
 *    - Per cache: slabs counted == slabinfo num_slabs and pages ==
 *      num_slabs << order (SLOB: its caches of objects of a page or more
 *      count one slab per object, and the others none), whenever no slab of
 *      it was made or freed between steps a and c (always in a quiet
 *      process); SLOB: the pages of each list equal uslab_slob_get_info()'s.
 *    Reads of struct page other than the free lists race with their owners
 *    (a slab being set up): a page may be drawn in the state it is leaving.
 *
 * 6. Output
 *    One row per PIC_PAGES_PER_ROW pages, each section under a label; runs
 *    of cells of one category and order within a row are one <rect> with a
 *    <title> (pfn range, category, cache, order) that viewers show on hover.
 *    The counts are in the element with id "uslab-summary" as JSON (SVG:
 *    <metadata>, HTML: <script type="application/json">); the HTML page
 *    adds the legend and a table comparing the counts with the
 *    allocator's own statistics.  A PNG is the map alone, PNG_CELL pixels
 *    per page, with the same JSON in an iTXt chunk "uslab-summary"; its
 *    image data is stored, not compressed (no zlib in the library).
 *    The JSON: format, allocator, pid, page_size, pages_per_row,
 *    png_cell_px, png_section_gap_px, max_order, sections [{nr, start_pfn,
 *    pages}], pages_online, pages_free (= pages_buddy + pages_pcp),
 *    nr_free_pages (the allocator's), free_pages_by_order and
 *    free_blocks_by_order [per order], pages_slab, pages_slab_unlisted,
 *    pages_large_kmalloc, large_kmalloc_folios, pages_other, slob {small,
 *    medium, large, full} (SLOB only), caches [{name, pages, slabs (counted),
 *    num_slabs, order, objects_per_slab, active_objs, num_objs (slabinfo),
 *    colour}], legend [{label, colour, pages, blocks}].
 *    Files are written to PATH.tmp.PID and renamed, so a reader never sees
 *    half a picture.
 *    USLAB_OPTIONS map_at_exit=PATH writes one from a destructor when the
 *    process exits (%p in PATH is the pid, %% a '%').
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <uslab/slobinfo.h>
#include "slab.h"
#include "os/os.h"

/* slob.c's, exported as uslab_slob_list_pages (slobinfo.h); only the SLOB
 * build defines it.  why weak and hidden: elsewhere it is NULL at link time,
 * and it never binds to a program's own function of that name. */
int slob_list_pages(int list, void **pages, unsigned int max)
	__attribute__((weak, visibility("hidden")));

#define PIC_PAGES_PER_ROW	256
#define PIC_CELL		4	/* pixels per page, both ways */
#define PIC_MARGIN		10
#define PIC_SECTION_GAP		22	/* pixels above a section: its label */
#define PIC_HEADER_H		46	/* pixels of title lines (standalone SVG) */
#define PIC_LEGEND_ROW		16
#define PIC_LEGEND_COLS		3
#define PIC_NAME_MAX		96	/* bytes of a cache name kept (longer: cut) */
#define PIC_LABEL_MAX		(PIC_NAME_MAX + 48)
#define PIC_CACHE_COLOURS	12	/* biggest caches with a colour of their own */
#define PNG_CELL		2	/* PNG: pixels per page, both ways */
#define PNG_GAP			4	/* PNG: background rows above each section */
#define PNG_BLOCK_MAX		65535	/* bytes in one stored deflate block */

/* A benign race (a page's owner may be changing it): see pic_classify(). */
#define __no_sanitize_thread	__attribute__((no_sanitize("thread")))

enum pic_format { PIC_NONE, PIC_SVG, PIC_HTML, PIC_PNG };

enum pic_cat {
	CAT_NONE,				/* not classified (never drawn) */
	CAT_FREE,				/* + order: free buddy block */
	CAT_PCP = CAT_FREE + MAX_ORDER_LIMIT,	/* free, on a CPU's list */
	CAT_SLOB_SMALL,				/* SLOB page on free_slob_small */
	CAT_SLOB_MEDIUM,
	CAT_SLOB_LARGE,
	CAT_SLOB_FULL,				/* SLOB page on no list */
	CAT_SLAB_UNLISTED,			/* slab of a cache not in the table */
	CAT_LARGE_KMALLOC,
	CAT_PAGES,				/* other allocated pages */
	CAT_CACHE,				/* + index in the cache table */
	CAT_MAX = UINT16_MAX
};

#define CELL_HEAD	0x1	/* first page of its block */
#define CELL_FREE	0x2	/* set from a free list (the walk's first pass) */

struct pic_cell {
	uint16_t cat;		/* enum pic_cat, or CAT_CACHE + cache index */
	uint8_t order;		/* order of the block the page is in */
	uint8_t flags;		/* CELL_* */
};

struct pic_count {
	unsigned long pages;	/* pages of the category */
	unsigned long blocks;	/* blocks (head pages) of the category */
};

struct pic_cache {
	const struct kmem_cache *key;	/* identity only: never dereferenced after step a */
	char name[PIC_NAME_MAX];	/* copied under slab_mutex */
	struct slabinfo info;		/* get_slabinfo() in step a */
	struct pic_count count;		/* pages and slabs counted on the map */
	unsigned int slot;		/* legend entry */
};

struct pic_slot {
	char label[PIC_LABEL_MAX];	/* what the colour means */
	uint32_t rgb;			/* the colour, 0xRRGGBB */
	struct pic_count count;		/* pages and blocks drawn in it */
};

/* Legend entries: free orders, pcp, SLOB's 4 lists, the caches with a
 * colour, "another cache", "unlisted", large kmalloc, pages. */
#define PIC_MAX_SLOTS	(MAX_ORDER_LIMIT + 1 + 4 + PIC_CACHE_COLOURS + 4)
#define PIC_NO_SLOT	UINT_MAX	/* a cache without pages has no legend entry */

/* One call's snapshot, on its stack: no lock guards it. */
struct picture {
	struct pic_cell *cells;		/* cells[pfn], capacity entries mapped */
	unsigned long capacity;		/* memmap.max_pfn */
	unsigned long online;		/* pages online at the walk */
	unsigned long nr_free;		/* the allocator's free pages at the walk */
	struct pic_cache *caches;	/* the cache table, sorted by key */
	unsigned int *rank;		/* cache indices, most pages first */
	unsigned int nr_caches;		/* entries of caches and rank */
	size_t caches_bytes;		/* mapped for caches + rank */
	struct pic_count fixed[CAT_CACHE];	/* counts of the categories below CAT_CACHE */
	unsigned int fixed_slot[CAT_CACHE];	/* their legend entries */
	struct pic_slot slots[PIC_MAX_SLOTS];	/* the legend */
	unsigned int nr_slots;		/* entries of slots used */
	int pid;			/* getpid() */
};

/* Colours of the biggest caches (and of SLOB's lists): none is blue,
 * yellow, magenta or grey, the colours of the other categories. */
static const uint32_t pic_palette[] = {
	0xe6194b, 0x3cb44b, 0xf58231, 0x911eb4, 0xbfef45, 0x469990,
	0x9a6324, 0x800000, 0x808000, 0xfabed4, 0xffd8b1, 0xaaffc3,
	0xdcbeff,
};
#define PIC_FREE_LIGHT		0xdeebf7	/* order 0 */
#define PIC_FREE_DARK		0x08306b	/* the largest order */
#define PIC_PCP_COLOUR		0xffe119
#define PIC_LARGE_COLOUR	0xf032e6
#define PIC_PAGES_COLOUR	0x505050
#define PIC_OTHER_COLOUR	0xb8b8b8
#define PIC_UNLISTED_COLOUR	0x000000
#define PIC_BACKGROUND		0xffffff

/* ======================= the snapshot ======================= */

static void *pic_map(size_t bytes)
{
	return bytes ? os_map(PAGE_ALIGN(bytes)) : NULL;
}

static void pic_unmap(void *p, size_t bytes)
{
	if (p)
		os_unmap(p, PAGE_ALIGN(bytes));
}

static int pic_cmp_key(const void *a, const void *b)
{
	const struct pic_cache *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

static unsigned int pic_count_caches_locked(void)
{
	struct kmem_cache *s;
	unsigned int n = 0;

	list_for_each_entry(s, &slab_caches, list)
		n++;
	return min(n, (unsigned int)(CAT_MAX - CAT_CACHE));
}

static void pic_copy_caches_locked(struct picture *pic)
{
	struct kmem_cache *s;
	unsigned int i = 0;

	list_for_each_entry(s, &slab_caches, list) {
		if (i == pic->nr_caches)
			break;
		pic->caches[i].key = s;
		snprintf(pic->caches[i].name, PIC_NAME_MAX, "%s", s->name);
		get_slabinfo(s, &pic->caches[i].info);
		i++;
	}
}

/* Step a: the cache table, under slab_mutex. */
static int pic_gather_caches(struct picture *pic)
{
	int err = 0;

	mutex_lock(&slab_mutex);
	pic->nr_caches = pic_count_caches_locked();
	pic->caches_bytes = pic->nr_caches * (sizeof(*pic->caches) + sizeof(*pic->rank));
	pic->caches = pic_map(pic->caches_bytes);
	if (pic->caches) {
		pic->rank = (unsigned int *)(pic->caches + pic->nr_caches);
		pic_copy_caches_locked(pic);
	} else if (pic->nr_caches) {
		err = -ENOMEM;
	}
	mutex_unlock(&slab_mutex);
	if (pic->caches)
		qsort(pic->caches, pic->nr_caches, sizeof(*pic->caches), pic_cmp_key);
	return err;
}

static void pic_mark_slob_page(struct picture *pic, const void *addr, unsigned int cat)
{
	unsigned long pfn = virt_to_pfn(addr);

	if (pfn < pic->capacity)
		pic->cells[pfn].cat = (uint16_t)cat;
}

/* Step b (SLOB): which list each listed page is on, as its provisional category. */
static int pic_mark_slob_lists(struct picture *pic)
{
	void **pages;
	int list, n, i;
	size_t bytes;

	if (!slob_list_pages || !pic->capacity)
		return 0;
	for (list = 0; list < USLAB_SLOB_NR_LISTS; list++) {
		n = slob_list_pages(list, NULL, 0);
		bytes = (size_t)(n + 64) * sizeof(void *);	/* room for a few more */
		pages = pic_map(bytes);
		if (!pages)
			return -ENOMEM;
		n = min(slob_list_pages(list, pages, (unsigned int)(n + 64)), n + 64);
		for (i = 0; i < n; i++)
			pic_mark_slob_page(pic, pages[i], CAT_SLOB_SMALL + (unsigned int)list);
		pic_unmap(pages, bytes);
	}
	return 0;
}

static void pic_free_block(void *arg, struct page *page, unsigned int order, bool on_pcp)
{
	struct picture *pic = arg;
	unsigned long pfn = page_to_pfn(page), i, nr = 1UL << order;
	struct pic_cell cell = { on_pcp ? CAT_PCP : CAT_FREE + order, (uint8_t)order,
				 CELL_FREE | CELL_HEAD };

	if (pfn >= pic->capacity || nr > pic->capacity - pfn)
		return;
	for (i = 0; i < nr; i++, cell.flags = CELL_FREE)
		pic->cells[pfn + i] = cell;
}

/* slab_owner_cache() as a volatile load in a function TSan leaves alone
 * (see pic_classify()): a call to the inline itself may be instrumented. */
static __no_sanitize_thread const void *pic_slab_owner(const struct page *page)
{
#if CONFIG_SLOB
	(void)page;
	return NULL;	/* SLOB's struct slab has no slab_cache */
#else
	return *(const void *const volatile *)&page_slab(page)->slab_cache;
#endif
}

/* The category of cache s's pages, or otherwise if s is not in the table. */
static unsigned int pic_cache_cat(const struct picture *pic, const void *s, unsigned int otherwise)
{
	struct pic_cache key, *c;

	if (!pic->caches || !s)
		return otherwise;
	key.key = s;
	c = bsearch(&key, pic->caches, pic->nr_caches, sizeof(key), pic_cmp_key);
	return c ? CAT_CACHE + (unsigned int)(c - pic->caches) : otherwise;
}

/* Which cell category a slab head page gets. */
static __no_sanitize_thread unsigned int pic_slab_cat(const struct picture *pic,
						      const struct page *page, unsigned long pfn)
{
	unsigned int cat = pic->cells[pfn].cat;

	if (CONFIG_SLOB)	/* step b left the page's list here, if it was on one */
		return cat >= CAT_SLOB_SMALL && cat <= CAT_SLOB_LARGE ? cat : CAT_SLOB_FULL;
	return pic_cache_cat(pic, pic_slab_owner(page), CAT_SLAB_UNLISTED);
}

/* Any other allocated head page: under SLOB, an object of a page or more
 * names its cache in folio->mapping (slob.c); others are just pages. */
static __no_sanitize_thread unsigned int pic_pages_cat(const struct picture *pic,
						       const struct page *page)
{
	if (!CONFIG_SLOB)
		return CAT_PAGES;
	return pic_cache_cat(pic, *(void *const volatile *)&page->mapping, CAT_PAGES);
}

/* An allocated page that is its own head: what its flags say it is. */
static __no_sanitize_thread void pic_classify_head(struct picture *pic, unsigned long pfn)
{
	const struct page *page = pfn_to_page(pfn);
	unsigned long flags = *(const volatile unsigned long *)&page->flags;
	struct pic_cell cell = { CAT_PAGES, 0, CELL_HEAD };

	if ((flags & BIT(PG_head)) && pfn + 1 < pic->online)
		cell.order = *(const volatile unsigned char *)&page[1].compound_order;
	if (cell.order >= MAX_ORDER)	/* a block still being made */
		cell.order = 0;
	if (flags & BIT(PG_slab))
		cell.cat = (uint16_t)pic_slab_cat(pic, page, pfn);
	else if (flags & BIT(PG_large_kmalloc))
		cell.cat = CAT_LARGE_KMALLOC;
	else
		cell.cat = (uint16_t)pic_pages_cat(pic, page);
	pic->cells[pfn] = cell;
}

/*
 * Classify allocated page pfn; under page_alloc_walk()'s locks, so it stays
 * allocated, but its owner may be setting it up or tearing it down.  why
 * no_sanitize and volatile loads: those writes are not ordered with our
 * reads (TSan would call it a race); a value read is only ever compared,
 * and a tail's head is believed only if it lies below pfn, in an allocated
 * cell, so a stale word cannot send us outside the memory map.
 */
static __no_sanitize_thread void pic_classify(struct picture *pic, unsigned long pfn)
{
	const struct page *page = pfn_to_page(pfn);
	unsigned long head = *(const volatile unsigned long *)&page->compound_head;
	unsigned long hpfn;

	if (head & 1) {
		hpfn = page_to_pfn((const struct page *)(head - 1));
		if (hpfn < pfn && !(pic->cells[hpfn].flags & CELL_FREE)) {
			pic->cells[pfn] = pic->cells[hpfn];
			pic->cells[pfn].flags &= (uint8_t)~CELL_HEAD;
			return;
		}
	}
	pic_classify_head(pic, pfn);
}

static void pic_locked(void *arg, unsigned long pages_online, unsigned long pages_free)
{
	struct picture *pic = arg;
	unsigned long pfn;

	pic->online = min(pages_online, pic->capacity);
	pic->nr_free = pages_free;
	for (pfn = 0; pfn < pic->online; pfn++)
		if (!(pic->cells[pfn].flags & CELL_FREE))
			pic_classify(pic, pfn);
}

static const struct page_walk_ops pic_walk_ops = {
	.free_block = pic_free_block,
	.locked = pic_locked,
};

static int pic_snapshot(struct picture *pic)
{
	int err;

	pic->pid = getpid();
	pic->capacity = memmap.max_pfn;
	pic->cells = pic_map(pic->capacity * sizeof(*pic->cells));
	if (!pic->cells && pic->capacity)
		return -ENOMEM;
	err = pic_gather_caches(pic);
	if (!err && CONFIG_SLOB)
		err = pic_mark_slob_lists(pic);
	if (!err)
		page_alloc_walk(&pic_walk_ops, pic);
	return err;
}

static void pic_release(struct picture *pic)
{
	pic_unmap(pic->cells, pic->capacity * sizeof(*pic->cells));
	pic_unmap(pic->caches, pic->caches_bytes);
}

/* ======================= counting and the legend ======================= */

static struct pic_count *pic_count_of(struct picture *pic, unsigned int cat)
{
	return cat >= CAT_CACHE ? &pic->caches[cat - CAT_CACHE].count : &pic->fixed[cat];
}

static void pic_count(struct picture *pic)
{
	struct pic_count *c;
	unsigned long pfn;

	for (pfn = 0; pfn < pic->online; pfn++) {
		c = pic_count_of(pic, pic->cells[pfn].cat);
		c->pages++;
		c->blocks += pic->cells[pfn].flags & CELL_HEAD;
	}
}

static unsigned long pic_fixed_pages(const struct picture *pic, unsigned int first,
				     unsigned int last)
{
	unsigned long n = 0;

	for (; first <= last; first++)
		n += pic->fixed[first].pages;
	return n;
}

static unsigned long pic_free_pages(const struct picture *pic)
{
	return pic_fixed_pages(pic, CAT_FREE, CAT_PCP);
}

static unsigned long pic_cache_pages(const struct picture *pic)
{
	unsigned long n = 0;
	unsigned int i;

	for (i = 0; i < pic->nr_caches; i++)
		n += pic->caches[i].count.pages;
	return n;
}

static unsigned long pic_slab_pages(const struct picture *pic)
{
	return pic_cache_pages(pic) + pic_fixed_pages(pic, CAT_SLOB_SMALL, CAT_SLAB_UNLISTED);
}

static int pic_cmp_rank(const void *a, const void *b, void *arg)
{
	const struct pic_cache *c = arg;
	const struct pic_cache *x = &c[*(const unsigned int *)a], *y = &c[*(const unsigned int *)b];

	if (x->count.pages != y->count.pages)
		return x->count.pages > y->count.pages ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void pic_rank_caches(struct picture *pic)
{
	unsigned int i;

	if (!pic->caches)
		return;
	for (i = 0; i < pic->nr_caches; i++)
		pic->rank[i] = i;
	qsort_r(pic->rank, pic->nr_caches, sizeof(*pic->rank), pic_cmp_rank, pic->caches);
}

static unsigned int pic_add_slot(struct picture *pic, uint32_t rgb, const char *fmt, ...)
	__printf(3, 4);
static unsigned int pic_add_slot(struct picture *pic, uint32_t rgb, const char *fmt, ...)
{
	struct pic_slot *s = &pic->slots[pic->nr_slots];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->label, sizeof(s->label), fmt, ap);
	va_end(ap);
	s->rgb = rgb;
	return pic->nr_slots++;
}

/* Give fixed category cat its own legend entry. */
static void pic_fixed_slot(struct picture *pic, unsigned int cat, uint32_t rgb,
			   const char *label)
{
	pic->fixed_slot[cat] = pic_add_slot(pic, rgb, "%s", label);
	pic->slots[pic->fixed_slot[cat]].count = pic->fixed[cat];
}

/* The colour t/n of the way from a to b. */
static uint32_t rgb_mix(uint32_t a, uint32_t b, unsigned int t, unsigned int n)
{
	uint32_t rgb = 0;
	int shift, ca, cb;

	for (shift = 16; shift >= 0; shift -= 8) {
		ca = (int)(a >> shift & 0xff);
		cb = (int)(b >> shift & 0xff);
		rgb |= (uint32_t)(ca + (cb - ca) * (int)t / (int)n) << shift;
	}
	return rgb;
}

static void pic_free_slots(struct picture *pic)
{
	unsigned int o, last = max(MAX_ORDER - 1, 1u);

	for (o = 0; o < MAX_ORDER; o++) {
		/* why a ramp: larger free blocks (less fragmentation) look darker */
		pic->fixed_slot[CAT_FREE + o] = pic_add_slot(pic,
			rgb_mix(PIC_FREE_LIGHT, PIC_FREE_DARK, o, last),
			"free, order %u (%lu KiB blocks)", o, (PAGE_SIZE << o) >> 10);
		pic->slots[pic->nr_slots - 1].count = pic->fixed[CAT_FREE + o];
	}
	pic_fixed_slot(pic, CAT_PCP, PIC_PCP_COLOUR, "free, on a CPU's page list (pcp)");
}

/* SLOB's lists take the first four colours of the palette. */
static void pic_slob_slots(struct picture *pic, bool *used)
{
	pic_fixed_slot(pic, CAT_SLOB_SMALL, pic_palette[0], "SLOB page on the small list (< 256 B)");
	pic_fixed_slot(pic, CAT_SLOB_MEDIUM, pic_palette[2], "SLOB page on the medium list (< 1 KiB)");
	pic_fixed_slot(pic, CAT_SLOB_LARGE, pic_palette[1], "SLOB page on the large list (< 4 KiB)");
	pic_fixed_slot(pic, CAT_SLOB_FULL, pic_palette[3], "SLOB page, full (on no list)");
	used[0] = used[1] = used[2] = used[3] = true;
}

/* The same cache gets the same colour in every picture unless a bigger
 * cache took it first: the colour is picked by a hash of the name. */
static unsigned int pic_name_colour(const char *name, const bool *used)
{
	unsigned int h = 2166136261u, n = ARRAY_SIZE(pic_palette);

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	for (h %= n; used[h]; h = (h + 1) % n)
		;
	return h;
}

/* What a cache's pages hold: SLOB's caches own only objects of a page or more. */
static const char *pic_cache_what(void)
{
	return CONFIG_SLOB ? "object of" : "slab of";
}

/* Legend entries of the caches that have pages: the biggest their own
 * colour, the rest one grey; a cache without pages gets none. */
static void pic_cache_slots(struct picture *pic, bool *used)
{
	unsigned int i, colour, own = 0, other = PIC_NO_SLOT;
	struct pic_cache *c;

	for (i = 0; i < pic->nr_caches; i++) {
		c = &pic->caches[pic->rank[i]];
		c->slot = PIC_NO_SLOT;
		if (!c->count.pages)
			continue;
		if (own++ < PIC_CACHE_COLOURS) {
			colour = pic_name_colour(c->name, used);
			used[colour] = true;
			c->slot = pic_add_slot(pic, pic_palette[colour], "%s %s", pic_cache_what(),
					       c->name);
		} else {
			if (other == PIC_NO_SLOT)
				other = pic_add_slot(pic, PIC_OTHER_COLOUR, "%s another cache",
						     pic_cache_what());
			c->slot = other;
		}
		pic->slots[c->slot].count.pages += c->count.pages;
		pic->slots[c->slot].count.blocks += c->count.blocks;
	}
	if (pic->fixed[CAT_SLAB_UNLISTED].pages)
		pic_fixed_slot(pic, CAT_SLAB_UNLISTED, PIC_UNLISTED_COLOUR,
			       "slab of a cache made while drawing");
}

static void pic_legend(struct picture *pic)
{
	bool used[ARRAY_SIZE(pic_palette)] = { false };

	pic_rank_caches(pic);
	pic_free_slots(pic);
	if (CONFIG_SLOB)
		pic_slob_slots(pic, used);
	pic_cache_slots(pic, used);
	pic_fixed_slot(pic, CAT_LARGE_KMALLOC, PIC_LARGE_COLOUR, "large kmalloc");
	pic_fixed_slot(pic, CAT_PAGES, PIC_PAGES_COLOUR, "other allocated pages (alloc_pages)");
}

static unsigned int pic_slot_of(const struct picture *pic, unsigned int cat)
{
	return cat >= CAT_CACHE ? pic->caches[cat - CAT_CACHE].slot : pic->fixed_slot[cat];
}

/* ======================= text escaping ======================= */

/* Bytes in the valid UTF-8 sequence at s (1 for ASCII), 0 if invalid. */
static unsigned int utf8_len(const unsigned char *s)
{
	unsigned int n, i;

	if (*s < 0x80)
		return 1;
	n = *s >= 0xf0 && *s < 0xf5 ? 4 : *s >= 0xe0 ? 3 : *s >= 0xc2 ? 2 : 0;
	if (*s >= 0xf5)
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* Text as XML character data: markup escaped, bad bytes as U+FFFD. */
static void put_xml(FILE *f, const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
	unsigned int n;

	for (; *s; s += n ? n : 1) {
		n = utf8_len(s);
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else if (!n || *s < 0x20)
			fputs("\xef\xbf\xbd", f);
		else
			fwrite(s, 1, n, f);
	}
}

/* A JSON string literal.  why \u003c etc.: the JSON sits inside an XML or
 * HTML element, where '<' and '&' must not appear. */
static void put_json_str(FILE *f, const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
	unsigned int n;

	fputc('"', f);
	for (; *s; s += n ? n : 1) {
		n = utf8_len(s);
		if (!n)
			fputs("\\ufffd", f);
		else if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if (*s < 0x20 || *s == '<' || *s == '>' || *s == '&')
			fprintf(f, "\\u%04x", *s);
		else
			fwrite(s, 1, n, f);
	}
	fputc('"', f);
}

/* ======================= the machine-readable summary ======================= */

static void put_json_orders(FILE *f, const struct picture *pic, const char *key, bool blocks)
{
	unsigned int o;

	fprintf(f, "  \"%s\": [", key);
	for (o = 0; o < MAX_ORDER; o++)
		fprintf(f, "%s%lu", o ? ", " : "",
			blocks ? pic->fixed[CAT_FREE + o].blocks : pic->fixed[CAT_FREE + o].pages);
	fputs("],\n", f);
}

static void put_json_cache(FILE *f, const struct picture *pic, const struct pic_cache *c)
{
	fputs("    {\"name\": ", f);
	put_json_str(f, c->name);
	fprintf(f, ", \"pages\": %lu, \"slabs\": %lu, \"num_slabs\": %lu, \"order\": %u, "
		"\"objects_per_slab\": %u, \"active_objs\": %lu, \"num_objs\": %lu, \"colour\": ",
		c->count.pages, c->count.blocks, c->info.num_slabs, c->info.cache_order,
		c->info.objects_per_slab, c->info.active_objs, c->info.num_objs);
	if (c->slot == PIC_NO_SLOT)
		fputs("null", f);
	else
		fprintf(f, "\"#%06x\"", pic->slots[c->slot].rgb);
	fputc('}', f);
}

static void put_json_caches(FILE *f, const struct picture *pic)
{
	unsigned int i;

	fputs("  \"caches\": [\n", f);
	for (i = 0; i < pic->nr_caches; i++) {
		put_json_cache(f, pic, &pic->caches[pic->rank[i]]);
		fputs(i + 1 < pic->nr_caches ? ",\n" : "\n", f);
	}
	fputs("  ],\n", f);
}

static void put_json_slob(FILE *f, const struct picture *pic)
{
	fprintf(f, "  \"slob\": {\"small\": %lu, \"medium\": %lu, \"large\": %lu, \"full\": %lu},\n",
		pic->fixed[CAT_SLOB_SMALL].pages, pic->fixed[CAT_SLOB_MEDIUM].pages,
		pic->fixed[CAT_SLOB_LARGE].pages, pic->fixed[CAT_SLOB_FULL].pages);
}

static void put_json_legend(FILE *f, const struct picture *pic)
{
	unsigned int i;

	fputs("  \"legend\": [\n", f);
	for (i = 0; i < pic->nr_slots; i++) {
		fputs("    {\"label\": ", f);
		put_json_str(f, pic->slots[i].label);
		fprintf(f, ", \"colour\": \"#%06x\", \"pages\": %lu, \"blocks\": %lu}%s\n",
			pic->slots[i].rgb, pic->slots[i].count.pages, pic->slots[i].count.blocks,
			i + 1 < pic->nr_slots ? "," : "");
	}
	fputs("  ]\n", f);
}

static void put_json_sections(FILE *f, const struct picture *pic)
{
	unsigned long nr, n = DIV_ROUND_UP(pic->online, PAGES_PER_SECTION);

	fputs("  \"sections\": [", f);
	for (nr = 0; nr < n; nr++)
		fprintf(f, "%s{\"nr\": %lu, \"start_pfn\": %lu, \"pages\": %lu}", nr ? ", " : "",
			nr, nr * PAGES_PER_SECTION,
			min(PAGES_PER_SECTION, pic->online - nr * PAGES_PER_SECTION));
	fputs("],\n", f);
}

static void put_json_totals(FILE *f, const struct picture *pic)
{
	fprintf(f, "  \"pages_online\": %lu,\n  \"pages_free\": %lu,\n  \"nr_free_pages\": %lu,\n"
		"  \"pages_buddy\": %lu,\n  \"pages_pcp\": %lu,\n",
		pic->online, pic_free_pages(pic), pic->nr_free,
		pic_fixed_pages(pic, CAT_FREE, CAT_PCP - 1), pic->fixed[CAT_PCP].pages);
	put_json_orders(f, pic, "free_pages_by_order", false);
	put_json_orders(f, pic, "free_blocks_by_order", true);
	fprintf(f, "  \"pages_slab\": %lu,\n  \"pages_slab_unlisted\": %lu,\n"
		"  \"pages_large_kmalloc\": %lu,\n  \"large_kmalloc_folios\": %lu,\n"
		"  \"pages_other\": %lu,\n",
		pic_slab_pages(pic), pic->fixed[CAT_SLAB_UNLISTED].pages,
		pic->fixed[CAT_LARGE_KMALLOC].pages, pic->fixed[CAT_LARGE_KMALLOC].blocks,
		pic->fixed[CAT_PAGES].pages);
}

static void put_json(FILE *f, const struct picture *pic)
{
	fprintf(f, "{\n  \"format\": \"uslab-memmap-picture 1\",\n  \"allocator\": \"%s\",\n"
		"  \"pid\": %d,\n  \"page_size\": %lu,\n  \"pages_per_row\": %d,\n"
		"  \"png_cell_px\": %d,\n  \"png_section_gap_px\": %d,\n  \"max_order\": %u,\n",
		allocator_name, pic->pid, PAGE_SIZE, PIC_PAGES_PER_ROW, PNG_CELL, PNG_GAP,
		(unsigned int)MAX_ORDER);
	put_json_sections(f, pic);
	put_json_totals(f, pic);
	if (CONFIG_SLOB)
		put_json_slob(f, pic);
	put_json_caches(f, pic);
	put_json_legend(f, pic);
	fputs("}", f);
}

/* ======================= the map (SVG) ======================= */

static unsigned long pic_rows(unsigned long pages)
{
	return DIV_ROUND_UP(pages, PIC_PAGES_PER_ROW);
}

static unsigned long pic_map_height(const struct picture *pic)
{
	unsigned long nr, h = 0, n = DIV_ROUND_UP(pic->online, PAGES_PER_SECTION);

	for (nr = 0; nr < n; nr++)
		h += PIC_SECTION_GAP +
		     PIC_CELL * pic_rows(min(PAGES_PER_SECTION, pic->online - nr * PAGES_PER_SECTION));
	return h;
}

static unsigned long pic_legend_height(const struct picture *pic)
{
	return PIC_LEGEND_ROW * DIV_ROUND_UP(pic->nr_slots, PIC_LEGEND_COLS) + 8;
}

/* What a run of cells of category cat and order is, for its title. */
static void put_cat_text(FILE *f, const struct picture *pic, unsigned int cat, unsigned int order)
{
	if (cat >= CAT_CACHE) {
		fprintf(f, "%s ", pic_cache_what());
		put_xml(f, pic->caches[cat - CAT_CACHE].name);
		fprintf(f, ", order %u", order);
	} else if (cat < CAT_PCP) {
		fprintf(f, "free, order %u", order);
	} else {
		put_xml(f, pic->slots[pic->fixed_slot[cat]].label);
		if (cat == CAT_PCP || cat == CAT_LARGE_KMALLOC || cat == CAT_PAGES)
			fprintf(f, ", order %u", order);
	}
}

static void put_run(FILE *f, const struct picture *pic, unsigned long pfn, unsigned long n,
		    unsigned long y)
{
	const struct pic_cell *c = &pic->cells[pfn];

	fprintf(f, "<rect class=\"k%u\" x=\"%lu\" y=\"%lu\" width=\"%lu\" height=\"%d\"><title>",
		pic_slot_of(pic, c->cat), PIC_MARGIN + (pfn % PIC_PAGES_PER_ROW) * PIC_CELL, y,
		n * PIC_CELL, PIC_CELL);
	if (n == 1)
		fprintf(f, "pfn %#lx: ", pfn);
	else
		fprintf(f, "pfn %#lx-%#lx (%lu pages): ", pfn, pfn + n - 1, n);
	put_cat_text(f, pic, c->cat, c->order);
	fputs("</title></rect>\n", f);
}

static bool pic_same_run(const struct pic_cell *a, const struct pic_cell *b)
{
	return a->cat == b->cat && a->order == b->order;
}

/* One row: pages [pfn, end), at height y; runs of like cells are one rect. */
static void put_row(FILE *f, const struct picture *pic, unsigned long pfn, unsigned long end,
		    unsigned long y)
{
	unsigned long start;

	while (pfn < end) {
		start = pfn;
		while (++pfn < end && pic_same_run(&pic->cells[start], &pic->cells[pfn]))
			;
		put_run(f, pic, start, pfn - start, y);
	}
}

static unsigned long put_section(FILE *f, const struct picture *pic, unsigned long nr,
				 unsigned long y)
{
	unsigned long pfn = nr * PAGES_PER_SECTION;
	unsigned long end = min(pfn + PAGES_PER_SECTION, pic->online);

	fprintf(f, "<text x=\"%d\" y=\"%lu\">section %lu: pfn %#lx-%#lx, %lu MiB</text>\n",
		PIC_MARGIN, y + PIC_SECTION_GAP - 6, nr, pfn, end - 1,
		((end - pfn) * PAGE_SIZE) >> 20);
	y += PIC_SECTION_GAP;
	for (; pfn < end; pfn += PIC_PAGES_PER_ROW, y += PIC_CELL)
		put_row(f, pic, pfn, min(pfn + PIC_PAGES_PER_ROW, end), y);
	return y;
}

static void put_map(FILE *f, const struct picture *pic, unsigned long y)
{
	unsigned long nr, n = DIV_ROUND_UP(pic->online, PAGES_PER_SECTION);

	fputs("<g shape-rendering=\"crispEdges\">\n", f);
	for (nr = 0; nr < n; nr++)
		y = put_section(f, pic, nr, y);
	fputs("</g>\n", f);
}

static void put_style(FILE *f, const struct picture *pic)
{
	unsigned int i;

	fputs("<style>", f);
	for (i = 0; i < pic->nr_slots; i++)
		fprintf(f, ".k%u{fill:#%06x}", i, pic->slots[i].rgb);
	fputs("</style>\n", f);
}

static void put_svg_legend(FILE *f, const struct picture *pic, unsigned long y)
{
	unsigned int i, col_w = PIC_PAGES_PER_ROW * PIC_CELL / PIC_LEGEND_COLS;
	unsigned long x, ry;

	for (i = 0; i < pic->nr_slots; i++) {
		x = PIC_MARGIN + (i % PIC_LEGEND_COLS) * col_w;
		ry = y + (i / PIC_LEGEND_COLS) * PIC_LEGEND_ROW;
		fprintf(f, "<rect class=\"k%u\" x=\"%lu\" y=\"%lu\" width=\"10\" height=\"10\" "
			"stroke=\"#888\"/><text x=\"%lu\" y=\"%lu\" font-size=\"11\">", i, x, ry,
			x + 14, ry + 9);
		put_xml(f, pic->slots[i].label);
		fprintf(f, ": %lu</text>\n", pic->slots[i].count.pages);
	}
}

static void put_svg_header(FILE *f, const struct picture *pic)
{
	unsigned long used = pic->online - pic_free_pages(pic);

	fprintf(f, "<text x=\"%d\" y=\"20\" font-size=\"16\" font-weight=\"bold\">uslab memory map: "
		"%s, pid %d</text>\n", PIC_MARGIN, allocator_name, pic->pid);
	fprintf(f, "<text x=\"%d\" y=\"38\">%lu pages online (%lu MiB), %lu in use, %lu free; "
		"one cell per %lu KiB page, %d pages per row</text>\n", PIC_MARGIN, pic->online,
		(pic->online * PAGE_SIZE) >> 20, used, pic_free_pages(pic), PAGE_SIZE >> 10,
		PIC_PAGES_PER_ROW);
}

static void put_svg_open(FILE *f, unsigned long h)
{
	unsigned long w = 2 * PIC_MARGIN + PIC_PAGES_PER_ROW * PIC_CELL;

	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%lu\" height=\"%lu\" "
		"viewBox=\"0 0 %lu %lu\" font-family=\"sans-serif\" font-size=\"12\">\n", w, h, w, h);
}

/* A self-contained SVG file: title, summary, legend, map. */
static void put_svg_file(FILE *f, const struct picture *pic)
{
	unsigned long legend_y = PIC_HEADER_H + 4;
	unsigned long map_y = legend_y + pic_legend_height(pic);

	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	put_svg_open(f, map_y + pic_map_height(pic) + PIC_MARGIN);
	fprintf(f, "<title>uslab memory map: %s, pid %d</title>\n", allocator_name, pic->pid);
	fputs("<metadata id=\"uslab-summary\">", f);
	put_json(f, pic);
	fputs("</metadata>\n", f);
	put_style(f, pic);
	put_svg_header(f, pic);
	put_svg_legend(f, pic, legend_y);
	put_map(f, pic, map_y);
	fputs("</svg>\n", f);
}

/* ======================= the HTML page ======================= */

static const char pic_html_style[] =
	"body{font-family:sans-serif;margin:1em 2em}"
	"table{border-collapse:collapse;margin:.5em 0 1.5em}"
	"th,td{border:1px solid #ccc;padding:2px 8px;text-align:right}"
	"th:first-child,td:first-child{text-align:left}"
	".sw{display:inline-block;width:12px;height:12px;border:1px solid #888;"
	"vertical-align:middle;margin-right:6px}"
	".bad{color:#c00;font-weight:bold}";

static void put_html_head(FILE *f, const struct picture *pic)
{
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
		"<title>uslab memory map: %s, pid %d</title>\n<style>%s</style>\n</head>\n<body>\n",
		allocator_name, pic->pid, pic_html_style);
	fprintf(f, "<h1>uslab memory map: %s, pid %d</h1>\n<p>%lu pages online (%lu MiB) in "
		"%lu section(s); one cell per %lu KiB page, %d pages per row.  Hover over a cell "
		"for its pfn, what it is and the order of its block.</p>\n", allocator_name,
		pic->pid, pic->online, (pic->online * PAGE_SIZE) >> 20,
		DIV_ROUND_UP(pic->online, PAGES_PER_SECTION), PAGE_SIZE >> 10, PIC_PAGES_PER_ROW);
}

static void put_html_legend(FILE *f, const struct picture *pic)
{
	unsigned int i;

	fputs("<h2>Legend</h2>\n<table>\n<tr><th>what</th><th>pages</th><th>blocks</th>"
	      "<th>MiB</th><th>share</th></tr>\n", f);
	for (i = 0; i < pic->nr_slots; i++) {
		fprintf(f, "<tr><td><span class=\"sw\" style=\"background:#%06x\"></span>",
			pic->slots[i].rgb);
		put_xml(f, pic->slots[i].label);
		fprintf(f, "</td><td>%lu</td><td>%lu</td><td>%.1f</td><td>%.1f%%</td></tr>\n",
			pic->slots[i].count.pages, pic->slots[i].count.blocks,
			(double)(pic->slots[i].count.pages * PAGE_SIZE) / (1 << 20),
			pic->online ? 100.0 * (double)pic->slots[i].count.pages / (double)pic->online : 0);
	}
	fprintf(f, "<tr><th>total</th><th>%lu</th><th></th><th>%.1f</th><th>100%%</th></tr>\n"
		"</table>\n", pic->online, (double)(pic->online * PAGE_SIZE) / (1 << 20));
}

static const char *pic_agree(bool same)
{
	return same ? "<td>yes</td>" : "<td class=\"bad\">no (changed while drawn?)</td>";
}

static void put_html_checks(FILE *f, const struct picture *pic)
{
	fputs("<h2>Counts against the allocator's statistics</h2>\n<table>\n<tr><th>figure</th>"
	      "<th>on the map</th><th>allocator</th><th>agree</th></tr>\n", f);
	fprintf(f, "<tr><td>free pages (buddy + pcp) vs nr_free_pages()</td><td>%lu</td>"
		"<td>%lu</td>%s</tr>\n", pic_free_pages(pic), pic->nr_free,
		pic_agree(pic_free_pages(pic) == pic->nr_free));
	fputs("</table>\n", f);
}

static void put_html_cache_row(FILE *f, const struct picture *pic, const struct pic_cache *c)
{
	unsigned long want = c->info.num_slabs << c->info.cache_order;
	bool same = c->count.blocks == c->info.num_slabs && c->count.pages == want;

	fprintf(f, "<tr><td><span class=\"sw\" style=\"background:#%06x\"></span>",
		c->slot == PIC_NO_SLOT ? PIC_BACKGROUND : pic->slots[c->slot].rgb);
	put_xml(f, c->name);
	fprintf(f, "</td><td>%lu</td><td>%lu</td><td>%lu</td><td>%u</td><td>%lu</td>%s</tr>\n",
		c->count.blocks, c->count.pages, c->info.num_slabs, c->info.cache_order, want,
		pic_agree(same));
}

static void put_html_caches(FILE *f, const struct picture *pic)
{
	unsigned int i;

	fputs("<h2>Slab caches (slabinfo)</h2>\n", f);
	if (CONFIG_SLOB)
		fputs("<p>SLOB shares its pages between every cache and kmalloc, so they are "
		      "coloured by the list they are on; only a cache of objects of a page or "
		      "more has pages of its own (one object each), which its slabinfo counts "
		      "as slabs.</p>\n", f);
	fputs("<table>\n<tr><th>cache</th><th>slabs on the map"
	      "</th><th>pages on the map</th><th>num_slabs</th><th>order</th>"
	      "<th>num_slabs &lt;&lt; order</th><th>agree</th></tr>\n", f);
	for (i = 0; i < pic->nr_caches; i++)
		if (pic->caches[pic->rank[i]].count.pages || pic->caches[pic->rank[i]].info.num_slabs)
			put_html_cache_row(f, pic, &pic->caches[pic->rank[i]]);
	fputs("</table>\n", f);
}

/* A page embedding the map, with the legend and the summary as tables. */
static void put_html_file(FILE *f, const struct picture *pic)
{
	put_html_head(f, pic);
	put_html_legend(f, pic);
	put_html_checks(f, pic);
	put_html_caches(f, pic);
	fputs("<h2>The map</h2>\n", f);
	put_svg_open(f, pic_map_height(pic) + PIC_MARGIN);
	put_style(f, pic);
	put_map(f, pic, 0);
	fputs("</svg>\n<script type=\"application/json\" id=\"uslab-summary\">", f);
	put_json(f, pic);
	fputs("</script>\n</body>\n</html>\n", f);
}

/* ======================= the map (PNG) ======================= */

/*
 * A PNG of the map alone, PNG_CELL pixels per page, with the summary in an
 * iTXt chunk "uslab-summary".  No zlib: the image data is one zlib stream
 * of stored (uncompressed) deflate blocks, so the file is about 3 bytes
 * per pixel -- 400 KiB per 128 MiB of arena.
 */
struct png_out {
	FILE *f;			/* the file */
	uint32_t crc;			/* CRC-32 of the current chunk so far */
	uint32_t adler_a, adler_b;	/* Adler-32 of the image bytes so far */
	size_t left;			/* image bytes still to come */
	size_t block_left;		/* of those, in the current stored block */
	uint32_t crc_table[256];	/* CRC-32 of each byte value */
};

static void png_crc_init(struct png_out *p)
{
	uint32_t c;
	unsigned int n, k;

	for (n = 0; n < 256; n++) {
		for (c = n, k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		p->crc_table[n] = c;
	}
}

/* Bytes of the current chunk: written and added to its CRC. */
static void png_bytes(struct png_out *p, const void *buf, size_t n)
{
	const uint8_t *b = buf;
	size_t i;

	for (i = 0; i < n; i++)
		p->crc = p->crc_table[(p->crc ^ b[i]) & 0xff] ^ (p->crc >> 8);
	fwrite(buf, 1, n, p->f);
}

static void png_be32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

static void png_chunk_begin(struct png_out *p, const char *type, size_t len)
{
	uint8_t b[4];

	png_be32(b, (uint32_t)len);
	fwrite(b, 1, 4, p->f);	/* the length is not in the CRC */
	p->crc = 0xffffffffu;
	png_bytes(p, type, 4);
}

static void png_chunk_end(struct png_out *p)
{
	uint8_t b[4];

	png_be32(b, ~p->crc);
	fwrite(b, 1, 4, p->f);
}

static void png_adler(struct png_out *p, const uint8_t *b, size_t n)
{
	for (; n; n--, b++) {
		p->adler_a = (p->adler_a + *b) % 65521;
		p->adler_b = (p->adler_b + p->adler_a) % 65521;
	}
}

/* Image bytes, cut into stored deflate blocks (header: BFINAL, LEN, ~LEN). */
static void png_image(struct png_out *p, const uint8_t *buf, size_t n)
{
	uint8_t hdr[5];
	size_t k;

	while (n) {
		if (!p->block_left) {
			p->block_left = min(p->left, (size_t)PNG_BLOCK_MAX);
			hdr[0] = p->block_left == p->left;
			hdr[1] = (uint8_t)p->block_left;
			hdr[2] = (uint8_t)(p->block_left >> 8);
			hdr[3] = (uint8_t)~hdr[1];
			hdr[4] = (uint8_t)~hdr[2];
			png_bytes(p, hdr, 5);
		}
		k = min(n, p->block_left);
		png_adler(p, buf, k);
		png_bytes(p, buf, k);
		buf += k;
		n -= k;
		p->block_left -= k;
		p->left -= k;
	}
}

static unsigned long png_width(void)
{
	return PIC_PAGES_PER_ROW * PNG_CELL;
}

static unsigned long png_height(const struct picture *pic)
{
	unsigned long nr, h = 0, n = DIV_ROUND_UP(pic->online, PAGES_PER_SECTION);

	for (nr = 0; nr < n; nr++)
		h += PNG_GAP +
		     PNG_CELL * pic_rows(min(PAGES_PER_SECTION, pic->online - nr * PAGES_PER_SECTION));
	return max(h, 1UL);	/* a PNG has at least one row */
}

/* One image row (filter byte 0, then RGB) of pages [pfn, end), or blank. */
static void png_fill_row(const struct picture *pic, uint8_t *row, unsigned long pfn,
			 unsigned long end)
{
	unsigned long x, page;
	uint32_t rgb;

	row[0] = 0;
	for (x = 0; x < png_width(); x++) {
		page = pfn + x / PNG_CELL;
		rgb = page < end ? pic->slots[pic_slot_of(pic, pic->cells[page].cat)].rgb :
				   PIC_BACKGROUND;
		row[1 + 3 * x] = (uint8_t)(rgb >> 16);
		row[2 + 3 * x] = (uint8_t)(rgb >> 8);
		row[3 + 3 * x] = (uint8_t)rgb;
	}
}

static void png_section(struct png_out *p, const struct picture *pic, unsigned long nr)
{
	uint8_t row[1 + PIC_PAGES_PER_ROW * PNG_CELL * 3];
	unsigned long pfn = nr * PAGES_PER_SECTION, end = min(pfn + PAGES_PER_SECTION, pic->online);
	unsigned int i;

	png_fill_row(pic, row, 0, 0);
	for (i = 0; i < PNG_GAP; i++)
		png_image(p, row, sizeof(row));
	for (; pfn < end; pfn += PIC_PAGES_PER_ROW) {
		png_fill_row(pic, row, pfn, min(pfn + PIC_PAGES_PER_ROW, end));
		for (i = 0; i < PNG_CELL; i++)
			png_image(p, row, sizeof(row));
	}
}

static void png_idat(struct png_out *p, const struct picture *pic)
{
	size_t row = 1 + png_width() * 3, raw = png_height(pic) * row;
	unsigned long nr, n = DIV_ROUND_UP(pic->online, PAGES_PER_SECTION);
	uint8_t zhdr[2] = { 0x78, 0x01 }, blank[1 + PIC_PAGES_PER_ROW * PNG_CELL * 3], tail[4];

	p->left = raw;
	p->adler_a = 1;
	png_chunk_begin(p, "IDAT", 2 + raw + 5 * DIV_ROUND_UP(raw, PNG_BLOCK_MAX) + 4);
	png_bytes(p, zhdr, 2);	/* deflate, 32 KiB window, no dictionary */
	for (nr = 0; nr < n; nr++)
		png_section(p, pic, nr);
	if (!n) {
		png_fill_row(pic, blank, 0, 0);
		png_image(p, blank, sizeof(blank));
	}
	png_be32(tail, p->adler_b << 16 | p->adler_a);
	png_bytes(p, tail, 4);
	png_chunk_end(p);
}

static void png_ihdr(struct png_out *p, const struct picture *pic)
{
	uint8_t b[13] = { 0 };

	png_be32(b, (uint32_t)png_width());
	png_be32(b + 4, (uint32_t)png_height(pic));
	b[8] = 8;	/* bits per sample */
	b[9] = 2;	/* truecolour RGB; compression, filter, interlace 0 */
	png_chunk_begin(p, "IHDR", sizeof(b));
	png_bytes(p, b, sizeof(b));
	png_chunk_end(p);
}

/* The summary as UTF-8 text: keyword, not compressed, no language tag,
 * no translated keyword. */
static int png_summary(struct png_out *p, const struct picture *pic)
{
	static const char head[] = "uslab-summary\0\0\0\0\0";
	char *json = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&json, &len);

	if (!m)
		return -ENOMEM;
	put_json(m, pic);
	if (fclose(m)) {
		free(json);
		return -ENOMEM;
	}
	png_chunk_begin(p, "iTXt", sizeof(head) - 1 + len);
	png_bytes(p, head, sizeof(head) - 1);
	png_bytes(p, json, len);
	png_chunk_end(p);
	free(json);
	return 0;
}

static int put_png_file(FILE *f, const struct picture *pic)
{
	static const uint8_t signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	struct png_out p = { .f = f };
	int err;

	png_crc_init(&p);
	fwrite(signature, 1, sizeof(signature), f);
	png_ihdr(&p, pic);
	err = png_summary(&p, pic);
	if (err)
		return err;
	png_idat(&p, pic);
	png_chunk_begin(&p, "IEND", 0);
	png_chunk_end(&p);
	return 0;
}

/* ======================= files ======================= */

static enum pic_format pic_format_of(const char *path)
{
	const char *dot = path ? strrchr(path, '.') : NULL;

	if (!dot || strchr(dot, '/'))
		return PIC_NONE;
	if (!strcasecmp(dot, ".svg"))
		return PIC_SVG;
	if (!strcasecmp(dot, ".html") || !strcasecmp(dot, ".htm"))
		return PIC_HTML;
	if (!strcasecmp(dot, ".png"))
		return PIC_PNG;
	return PIC_NONE;
}

/* Close f; 0, or -errno of the first failed write. */
static int pic_close(FILE *f)
{
	int err = ferror(f) ? -(errno ? errno : EIO) : 0;

	if (fclose(f) && !err)
		err = -(errno ? errno : EIO);
	return err;
}

static int pic_write_file(const struct picture *pic, const char *path, enum pic_format fmt)
{
	char tmp[PATH_MAX];
	int err;
	FILE *f;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, pic->pid) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	errno = 0;
	err = 0;
	if (fmt == PIC_SVG)
		put_svg_file(f, pic);
	else if (fmt == PIC_HTML)
		put_html_file(f, pic);
	else
		err = put_png_file(f, pic);
	if (err)
		fclose(f);
	else
		err = pic_close(f);
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/**
 * memmap_picture_write - draw the memory map into @path.
 * @path: a file name ending in .svg, .html or .htm (any case), which
 *        chooses the format; the file is replaced as a whole.
 *
 * Return: 0; -EINVAL for a NULL path or another extension (nothing is
 * written); -ENOMEM if the scratch buffers cannot be mapped; the negated
 * errno of a failed open, write or rename (any earlier file at @path is
 * left as it was).
 */
int memmap_picture_write(const char *path)
{
	enum pic_format fmt = pic_format_of(path);
	struct picture pic;
	int err;

	if (fmt == PIC_NONE)
		return -EINVAL;
	memset(&pic, 0, sizeof(pic));
	slab_ensure_init();
	err = pic_snapshot(&pic);
	if (!err) {
		pic_count(&pic);
		pic_legend(&pic);
		err = pic_write_file(&pic, path, fmt);
	}
	pic_release(&pic);
	return err;
}
EXPORT_SYMBOL(memmap_picture_write);

/* ======================= map_at_exit= ======================= */

static char map_at_exit_path[PATH_MAX];	/* the option's value (set while parsing) */
static bool map_at_exit_set;		/* release-stored after the path */

/* Expand %p (pid) and %% in pattern into out; false if it does not fit. */
static bool map_path_expand(const char *pattern, char *out, size_t len, int pid)
{
	size_t n = 0;

	for (; *pattern && n < len; pattern++) {
		if (pattern[0] != '%') {
			out[n++] = *pattern;
			continue;
		}
		pattern++;	/* map_path_valid(): %p or %% */
		if (*pattern == '%')
			out[n++] = '%';
		else
			n += (size_t)snprintf(out + n, len - n, "%d", pid);
	}
	if (n >= len)
		return false;
	out[n] = '\0';
	return true;
}

/* A '%' is allowed only as %p or %%. */
static bool map_path_valid(const char *val)
{
	for (; *val; val++)
		if (val[0] == '%' && val[1] != 'p' && val[1] != '%')
			return false;
		else if (val[0] == '%')
			val++;
	return true;
}

static int setup_map_at_exit(const char *val)
{
	if (!*val || strlen(val) >= sizeof(map_at_exit_path) || !map_path_valid(val) ||
	    pic_format_of(val) == PIC_NONE)
		return -1;
	memcpy(map_at_exit_path, val, strlen(val) + 1);
	smp_store_release(&map_at_exit_set, true);
	return 0;
}
__setup("map_at_exit=", setup_map_at_exit);

/* Runs when the process exits (not on _exit or a crash). */
static void __attribute__((destructor)) memmap_picture_at_exit(void)
{
	char path[PATH_MAX];
	int err;

	if (!smp_load_acquire(&map_at_exit_set))
		return;
	if (!map_path_expand(map_at_exit_path, path, sizeof(path), getpid())) {
		fprintf(stderr, "uslab: map_at_exit: %s: %s\n", map_at_exit_path, strerror(ENAMETOOLONG));
		return;
	}
	err = memmap_picture_write(path);
	if (err)
		fprintf(stderr, "uslab: map_at_exit: cannot write %s: %s\n", path, strerror(-err));
}
