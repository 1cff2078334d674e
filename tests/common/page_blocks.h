/* SPDX-License-Identifier: MIT */
/*
 * page_blocks.h - blocks of the page allocator for the tests that watch
 * what it does with memory (page_reporting_rules, page_resident_first).
 */
#ifndef USLAB_TESTS_PAGE_BLOCKS_H
#define USLAB_TESTS_PAGE_BLOCKS_H

#include <string.h>
#include "common/test.h"
#include "mm/internal.h"

/* A block of order, every page written (so resident). */
static inline struct page *touched_block(unsigned int order)
{
	struct page *page = alloc_pages(GFP_KERNEL, order);

	ck_assert_ptr_nonnull(page);
	memset(page_address(page), 0x5a, PAGE_SIZE << order);
	return page;
}

#endif /* USLAB_TESTS_PAGE_BLOCKS_H */
