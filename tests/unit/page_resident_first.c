// SPDX-License-Identifier: MIT
/*
 * page_resident_first.c - the page allocator prefers memory the process
 * holds already (page_alloc.c: __rmqueue_smallest, page_alloc_resident_order):
 * an allocation splits a free block that was written and freed before it
 * takes a smaller one the OS still has; a block merged from a freed half and
 * a never-touched half (mixed) counts as neither; and SLUB makes a slab of a
 * smaller order from such free pages rather than one of its preferred order
 * from fresh ones.
 *
 * Each test runs in its own process (Check forks) with a small arena of four
 * order-10 blocks and the reporting rules off (a hand-set threshold), so
 * that nothing is given back to the OS behind the test's back.  Orders above
 * PAGE_ALLOC_COSTLY_ORDER skip the per-CPU lists; frees of smaller blocks are
 * pushed to the buddy lists with drain_local_pages().
 */
#include "common/test.h"
#include "common/page_blocks.h"
#include "mm/internal.h"
#include "mm/page-flags.h"
#include "mm/slab.h"

#define SMALL_ARENA_NO_RULES "arena_size=16M section_size=16M page_reporting_threshold=1G"

static void set_options(const char *opts)
{
	ck_assert_int_eq(parse_option_string(opts), 0);
}

static bool page_within(const struct page *page, const struct page *block, unsigned int order)
{
	return page >= block && page < block + (1UL << order);
}

/* Every free block of order >= 3 given back: from here on, only what the
 * test frees holds memory (besides a few blocks below order 3). */
static void start_clean(void)
{
	page_reporting_flush();
}

/* The order-@order buddy of @page, if it is a free block of that order. */
static struct page *free_buddy(struct page *page, unsigned int order)
{
	struct page *buddy = pfn_to_page(page_to_pfn(page) ^ (1UL << order));

	return PageBuddy(buddy) && buddy->private == order ? buddy : NULL;
}

/* A written block of @order whose buddy is held (freeing it merges with
 * nothing): the first of two taken one after the other from a split. */
static struct page *lone_block(unsigned int order, struct page **held)
{
	unsigned int tries;
	struct page *a, *b;

	for (tries = 0; tries < 16; tries++) {
		a = touched_block(order);
		b = alloc_pages(GFP_KERNEL, order);
		ck_assert_ptr_nonnull(b);
		if (page_to_pfn(b) == (page_to_pfn(a) ^ (1UL << order))) {
			*held = b;
			return a;
		}
		__free_pages(b, order);	/* both stay out of the way, a held */
	}
	ck_abort_msg("no two buddies of order %u in a row", order);
	return NULL;
}

/* A held order-4 block beside a free buddy the OS has: a fresh order-4
 * block is then surely on the lists.  Blocks tried before are kept in
 * @held (*n of them). */
static struct page *beside_fresh_buddy(struct page **held, unsigned int *n)
{
	struct page *f, *buddy;

	while (*n < 16) {
		f = touched_block(4);
		buddy = free_buddy(f, 4);
		if (buddy && PageReported(buddy))
			return f;
		held[(*n)++] = f;
	}
	ck_abort_msg("no order-4 block beside a reported buddy");
	return NULL;
}

static void free_held(struct page **held, unsigned int n)
{
	while (n--)
		__free_pages(held[n], 4);
}

/* The free block that holds @page, and its order. */
static struct page *free_block_of(struct page *page, unsigned int *order)
{
	unsigned long pfn = page_to_pfn(page);
	struct page *head;
	unsigned int o;

	for (o = 0; o < MAX_ORDER; o++) {
		head = pfn_to_page(pfn & ~((1UL << o) - 1));
		if (PageBuddy(head) && head->private == o) {
			*order = o;
			return head;
		}
	}
	ck_abort_msg("pfn %#lx is in no free block", pfn);
	return NULL;
}

/*
 * A written order-10 block freed (the largest order: it merges with
 * nothing) is the only resident free block of order 4 or more, and a fresh
 * order-4 block is on the lists too.  An order-4 request must split the
 * resident one, where the kernel's smallest-first takes the fresh one.
 */
START_TEST(test_resident_block_before_smaller_fresh_one)
{
	struct page *a, *b, *p, *held[16];
	unsigned int n = 0;

	set_options(SMALL_ARENA_NO_RULES);
	start_clean();
	a = touched_block(10);
	b = beside_fresh_buddy(held, &n);
	__free_pages(a, 10);
	p = alloc_pages(GFP_KERNEL, 4);
	ck_assert_ptr_nonnull(p);
	ck_assert_msg(page_within(p, a, 10), "order-4 block at pfn %#lx, not from the freed block at %#lx",
		      page_to_pfn(p), page_to_pfn(a));
	__free_pages(p, 4);
	__free_pages(b, 4);
	free_held(held, n);
	page_alloc_check_invariants();
}
END_TEST

/*
 * f (order 4, written) freed beside a free buddy the OS has merges into a
 * block that is mixed: neither reported nor counted as resident.  a (order
 * 10, written and freed) is wholly resident.  An order-4 request must split
 * a: the mixed block would be new memory for the process in part.
 */
START_TEST(test_mixed_block_after_resident_one)
{
	struct page *a, *f, *m, *p, *held[16];
	unsigned int n = 0, order;

	set_options(SMALL_ARENA_NO_RULES);
	start_clean();
	a = touched_block(10);
	f = beside_fresh_buddy(held, &n);
	__free_pages(a, 10);
	__free_pages(f, 4);
	m = free_block_of(f, &order);
	ck_assert_uint_gt(order, 4);
	ck_assert_msg(PageMixed(m) && !PageReported(m) && !PageZeroed(m),
		      "merged order-%u block: mixed %d reported %d zeroed %d", order,
		      PageMixed(m), PageReported(m), PageZeroed(m));
	p = alloc_pages(GFP_KERNEL, 4);
	ck_assert_ptr_nonnull(p);
	ck_assert_msg(page_within(p, a, 10), "order-4 block at pfn %#lx, not from the resident block at %#lx",
		      page_to_pfn(p), page_to_pfn(a));
	__free_pages(p, 4);
	free_held(held, n);
	page_alloc_check_invariants();
}
END_TEST

/*
 * page_alloc_resident_order: with 512 KiB resident in an order-7 block and
 * nothing resident above it, a caller wanting order 8 is told 7; one wanting
 * order 7 or less keeps its order; one that cannot go below 8 keeps 9.
 * Before the block is freed, too little is resident to look lower.
 */
START_TEST(test_resident_order_hint)
{
	struct page *r, *held;

	set_options(SMALL_ARENA_NO_RULES);
	start_clean();
	r = lone_block(7, &held);
	ck_assert_uint_eq(page_alloc_resident_order(0, 8), 8);
	__free_pages(r, 7);
	ck_assert_uint_eq(page_alloc_resident_order(0, 8), 7);
	ck_assert_uint_eq(page_alloc_resident_order(4, 9), 7);
	ck_assert_uint_eq(page_alloc_resident_order(2, 7), 7);
	ck_assert_uint_eq(page_alloc_resident_order(8, 9), 9);
	ck_assert_uint_eq(page_alloc_resident_order(3, 3), 3);
	__free_pages(held, 7);
	page_alloc_check_invariants();
}
END_TEST

#if CONFIG_SLUB
/*
 * A cache whose slabs are of order 3 or more, when 512 KiB of freed order-2
 * blocks sit in the buddy lists and no resident block of its order: its new
 * slab is an order-2 block, one of those.
 */
START_TEST(test_slub_slab_from_resident_fragments)
{
	struct page *frag[32], *held[32];
	struct kmem_cache *s;
	struct slabinfo si;
	unsigned int i, order;
	void *obj;

	set_options(SMALL_ARENA_NO_RULES);
	s = kmem_cache_create("resident-frag", 2048, 0, SLAB_NOLEAKTRACE, NULL);
	ck_assert_ptr_nonnull(s);
	memset(&si, 0, sizeof(si));
	get_slabinfo(s, &si);
	ck_assert_uint_ge(si.cache_order, 3);
	start_clean();
	for (i = 0; i < 32; i++)
		frag[i] = lone_block(2, &held[i]);
	for (i = 0; i < 32; i++)
		__free_pages(frag[i], 2);
	drain_local_pages();
	obj = kmem_cache_alloc(s, GFP_KERNEL);
	ck_assert_ptr_nonnull(obj);
	order = slab_order(virt_to_slab(obj));
	ck_assert_msg(order == 2, "new slab of order %u (the cache's %u), expected 2", order,
		      si.cache_order);
	for (i = 0; i < 32; i++)
		if (page_within(virt_to_page(obj), frag[i], 2))
			break;
	ck_assert_msg(i < 32, "the slab is none of the freed blocks");
	kmem_cache_free(s, obj);
	kmem_cache_destroy(s);
	for (i = 0; i < 32; i++)
		__free_pages(held[i], 2);
	page_alloc_check_invariants();
}
END_TEST
#endif

static Suite *page_resident_first_suite(void)
{
	Suite *s = suite_create("page_resident_first");
	TCase *tc = tcase_create("resident_first");

	tcase_add_test(tc, test_resident_block_before_smaller_fresh_one);
	tcase_add_test(tc, test_mixed_block_after_resident_one);
	tcase_add_test(tc, test_resident_order_hint);
#if CONFIG_SLUB
	tcase_add_test(tc, test_slub_slab_from_resident_fragments);
#endif
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(page_resident_first_suite)
