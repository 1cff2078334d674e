/* SPDX-License-Identifier: MIT */
/*
 * slobinfo.h - SLOB's equivalent of /proc/slabinfo, and a look inside its
 * pages (docs/slob-info.md).
 *
 * Linux prints no /proc/slabinfo under SLOB: its pages are shared by every
 * cache and by kmalloc, so there is no per-cache slab to count.  uslab's SLOB
 * reports what it does have: its three lists of partially free pages, the
 * pages it holds, and per cache (and for kmalloc) the objects allocated,
 * freed and live.
 *
 * Only libuslab-slob defines these functions.  They are declared weak, so a
 * program linked with another variant links too and sees them as NULL:
 *
 *	if (uslab_slob_show_info)
 *		uslab_slob_show_info(stdout);
 */
#ifndef USLAB_SLOBINFO_H
#define USLAB_SLOBINFO_H

#include <uslab/uslab.h>

#ifdef __cplusplus
extern "C" {
#endif

#define USLAB_SLOB_UNIT		2	/* bytes in one SLOB unit */

/* SLOB's lists of partially free pages, chosen by the size of a request. */
enum uslab_slob_list {
	USLAB_SLOB_UNLISTED = -1,	/* a full page: on no list */
	USLAB_SLOB_SMALL = 0,		/* requests below 256 bytes */
	USLAB_SLOB_MEDIUM = 1,		/* requests below 1024 bytes */
	USLAB_SLOB_LARGE = 2,		/* requests below a page */
	USLAB_SLOB_NR_LISTS = 3
};

struct uslab_slob_list_info {
	unsigned long pages;		/* pages on the list */
	unsigned long free_units;	/* free units in those pages */
	unsigned long free_blocks;	/* free blocks in those pages */
	unsigned long largest_block;	/* units in the largest free block */
};

struct uslab_slob_info {
	struct uslab_slob_list_info list[USLAB_SLOB_NR_LISTS];
	unsigned long pages;		/* slob pages held (listed or full) */
	unsigned long full_pages;	/* pages with no free unit */
	unsigned long kmalloc_allocs;	/* kmalloc objects below a page handed out */
	unsigned long kmalloc_frees;	/* ... and given back */
	unsigned long kmalloc_high;	/* most of them live at once */
};

/* One free block of a slob page.  Offsets and sizes are in units. */
struct uslab_slob_block {
	unsigned int offset;		/* from the start of the page */
	unsigned int units;		/* size of the block */
	unsigned int next;		/* offset of the next free block; the page's
					 * unit count (2048) after the last one */
};

struct uslab_slob_page_info {
	void *page;			/* first byte of the slob page */
	int list;			/* enum uslab_slob_list */
	unsigned int position;		/* 0 = searched first on its list */
	unsigned long free_units;	/* free units in the page */
	unsigned int free_blocks;	/* free blocks (may exceed the array given) */
};

/* Print the SLOB report (format: docs/slob-info.md) to f. */
USLAB_API void uslab_slob_show_info(FILE *f) __attribute__((weak));

/* Fill *info with a consistent snapshot of the lists and counters. */
USLAB_API void uslab_slob_get_info(struct uslab_slob_info *info) __attribute__((weak));

/*
 * Describe the slob page holding addr: *pi, and its free blocks in address
 * order in blocks[0 .. max_blocks-1].  Returns 0, or -EINVAL (nothing
 * written) if addr is not in a slob page.  pi may be NULL to ask only
 * whether addr is in one.
 */
USLAB_API int uslab_slob_page_info(const void *addr, struct uslab_slob_page_info *pi,
		struct uslab_slob_block *blocks, unsigned int max_blocks) __attribute__((weak));

/*
 * Store the pages of one list, in the order the next search visits them,
 * in pages[0 .. max-1].  Returns how many pages the list holds (which may
 * exceed max), or -EINVAL for a bad list.
 */
USLAB_API int uslab_slob_list_pages(int list, void **pages, unsigned int max)
		__attribute__((weak));

#ifdef __cplusplus
}
#endif

#endif /* USLAB_SLOBINFO_H */
