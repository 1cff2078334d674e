// SPDX-License-Identifier: MIT
/*
 * page_reporting_rules.c - the page allocator's default rules for giving
 * free memory back to the OS (page_alloc.c section 1): the at-once rule (a
 * large block freed whole goes back before it joins the free lists, and
 * the rule's order rises past it) and the idle rule (a block left free for
 * PAGE_REPORTING_IDLE_MS goes back at the next free); both off once
 * page_reporting_threshold is set.  Seen through the process's RSS, or,
 * where a sanitizer's shadow memory would blur it, through mincore() of
 * the blocks themselves.
 *
 * Each test runs in its own process (Check forks) with a small arena,
 * "arena_size=16M section_size=16M": four order-10 blocks.  No time is
 * asserted: the idle rule's test waits, with a generous bound, for the
 * memory to go.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "common/test.h"
#include "common/page_blocks.h"
#include "mm/internal.h"
#include "os/os.h"

#define KiB (1UL << 10)
#define SMALL_ARENA "arena_size=16M section_size=16M"

static void set_options(const char *opts)
{
	ck_assert_int_eq(parse_option_string(opts), 0);
}

/* Pages of the 2^order pages at addr that are in memory. */
static unsigned int resident_pages(void *addr, unsigned int order)
{
	unsigned char vec[1U << 8];
	unsigned int i, n = 0;

	ck_assert_uint_le(1U << order, sizeof(vec));
	ck_assert_int_eq(mincore(addr, PAGE_SIZE << order, vec), 0);
	for (i = 0; i < 1U << order; i++)
		n += vec[i] & 1;
	return n;
}

/* The first free of a 1 MiB block gives its memory back; the second of the
 * same size, once the rule's order rose past it, keeps it. */
START_TEST(test_at_once_rule)
{
	struct page *page;
	size_t touched;

	set_options(SMALL_ARENA);
	page = touched_block(8);
	touched = os_rss_bytes();
	__free_pages(page, 8);
	ck_assert_msg(os_rss_bytes() + 768 * KiB <= touched, "RSS %zu -> %zu", touched,
		      os_rss_bytes());
	page = touched_block(8);
	touched = os_rss_bytes();
	__free_pages(page, 8);
	ck_assert_msg(os_rss_bytes() + 256 * KiB >= touched, "RSS %zu -> %zu", touched,
		      os_rss_bytes());
	page_alloc_check_invariants();
}
END_TEST

/* 512 KiB freed in 64 KiB blocks (below the at-once rule's order) stays
 * until it has been free a while; a later free then gives it back. */
START_TEST(test_idle_rule)
{
	struct page *pages[8], *t;
	unsigned int i, tries, left = 0;
	char *start;

	set_options(SMALL_ARENA);
	for (i = 0; i < 8; i++)
		pages[i] = touched_block(4);
	start = page_address(pages[0]);
	for (i = 0; i < 8; i++)
		ck_assert_ptr_eq(page_address(pages[i]), start + i * (PAGE_SIZE << 4));
	for (i = 0; i < 8; i++)
		__free_pages(pages[i], 4);
	/* why this holds: only a free looks for idle blocks, and the last one
	 * found every block younger than the delay */
	ck_assert_uint_eq(resident_pages(start, 7), 128);
	for (tries = 0; tries < 500; tries++) {
		usleep(10000);
		t = alloc_pages(GFP_KERNEL, 10);	/* another order-10 block: a free */
		ck_assert_ptr_nonnull(t);
		__free_pages(t, 10);
		left = resident_pages(start, 7);
		if (!left)
			break;
	}
	ck_assert_msg(!left, "%u of 128 idle pages kept", left);
	page_alloc_check_invariants();
}
END_TEST

/* A threshold set by hand: only it decides, neither rule gives memory back. */
START_TEST(test_threshold_turns_rules_off)
{
	struct page *pages[8], *big;
	size_t touched;
	unsigned int i;

	set_options(SMALL_ARENA " page_reporting_threshold=1G");
	big = touched_block(8);
	for (i = 0; i < 8; i++)
		pages[i] = touched_block(4);
	touched = os_rss_bytes();
	__free_pages(big, 8);
	for (i = 0; i < 8; i++)
		__free_pages(pages[i], 4);
	usleep(50000);
	__free_pages(touched_block(4), 4);
	ck_assert_msg(os_rss_bytes() + 256 * KiB >= touched, "RSS %zu -> %zu", touched,
		      os_rss_bytes());
	page_alloc_check_invariants();
}
END_TEST

static Suite *page_reporting_rules_suite(void)
{
	Suite *s = suite_create("page_reporting_rules");
	TCase *tc = tcase_create("rules");

	tcase_add_test(tc, test_at_once_rule);
	tcase_add_test(tc, test_idle_rule);
	tcase_add_test(tc, test_threshold_turns_rules_off);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(page_reporting_rules_suite)
