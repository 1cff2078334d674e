// SPDX-License-Identifier: MIT
/*
 * page_alloc.c - the buddy page allocator: split and merge seen through
 * /proc/buddyinfo's format, compound page layout, __GFP_ZERO, refcount
 * semantics of __free_pages/put_page, node arguments, per-CPU lists drained
 * at thread exit and before an allocation fails, out of memory on a small
 * arena, memory given back to the OS (RSS really drops), the invariant
 * checker (which must catch a corrupted map), and misuse reports.
 *
 * Each test runs in its own process (Check forks) and picks a small arena
 * with parse_option_string() before the first allocation: with
 * "arena_size=16M section_size=16M" the zone holds 4096 pages in four
 * order-10 blocks.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/test.h"
#include "mm/internal.h"
#include "os/os.h"

#define MiB (1UL << 20)
#define SMALL_ARENA "arena_size=16M section_size=16M"
#define SMALL_PAGES 4096UL
#define GFP_NW (GFP_KERNEL | __GFP_NOWARN)

static void set_options(const char *opts)
{
	ck_assert_int_eq(parse_option_string(opts), 0);
}

/* show_buddyinfo() into a string (caller frees). */
static char *buddyinfo(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	show_buddyinfo(f);
	fclose(f);
	return buf;
}

/* The buddyinfo line the kernel would print for these counts. */
static char *buddyinfo_line(const unsigned long *counts, unsigned int n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	unsigned int o;

	fprintf(f, "Node 0, zone   Normal ");
	for (o = 0; o < n; o++)
		fprintf(f, "%6lu ", counts[o]);
	fprintf(f, "\n");
	fclose(f);
	return buf;
}

static void assert_buddyinfo(const unsigned long *counts)
{
	char *got = buddyinfo(), *want = buddyinfo_line(counts, 11);

	ck_assert_str_eq(got, want);
	free(got);
	free(want);
}

/* Pages in the buddy lists, from buddyinfo (excludes the CPUs' lists). */
static unsigned long buddy_pages(void)
{
	char *s = buddyinfo(), *p = s + strlen("Node 0, zone   Normal ");
	unsigned long total = 0, n;
	unsigned int o = 0;
	int used;

	while (sscanf(p, "%lu%n", &n, &used) == 1) {
		total += n << o++;
		p += used;
	}
	free(s);
	return total;
}

/* ---- split and merge ---- */

START_TEST(test_buddyinfo_format)
{
	const unsigned long fresh[11] = { [10] = 4 };
	struct page *page;

	set_options(SMALL_ARENA);
	page = alloc_pages(GFP_KERNEL, 10);	/* brings the section online */
	__free_pages(page, 10);
	assert_buddyinfo(fresh);
}
END_TEST

/* Order 4 bypasses the per-CPU lists: the split is seen exactly. */
START_TEST(test_split_and_merge_order4)
{
	const unsigned long split[11] = { [4] = 1, [5] = 1, [6] = 1, [7] = 1, [8] = 1,
					  [9] = 1, [10] = 3 };
	const unsigned long fresh[11] = { [10] = 4 };
	struct page *page;

	set_options(SMALL_ARENA);
	page = alloc_pages(GFP_KERNEL, 4);
	ck_assert_ptr_nonnull(page);
	assert_buddyinfo(split);
	ck_assert_uint_eq(nr_free_pages(), SMALL_PAGES - 16);
	page_alloc_check_invariants();
	__free_pages(page, 4);
	assert_buddyinfo(fresh);
	ck_assert_uint_eq(nr_free_pages(), SMALL_PAGES);
	page_alloc_check_invariants();
}
END_TEST

/* Order 0 from a fresh max block: the CPU's batch returns once drained. */
START_TEST(test_split_and_merge_order0)
{
	const unsigned long split[11] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3 };
	const unsigned long fresh[11] = { [10] = 4 };
	struct page *page;

	set_options(SMALL_ARENA);
	page = alloc_pages(GFP_KERNEL, 0);
	ck_assert_ptr_nonnull(page);
	ck_assert_uint_eq(nr_free_pages(), SMALL_PAGES - 1);
	drain_local_pages();
	assert_buddyinfo(split);
	__free_pages(page, 0);
	ck_assert_uint_eq(buddy_pages(), SMALL_PAGES - 1);	/* on this CPU's list */
	drain_local_pages();
	assert_buddyinfo(fresh);
	page_alloc_check_invariants();
}
END_TEST

/* Two buddies freed in either order merge; a lone one does not. */
START_TEST(test_buddies_merge)
{
	struct page *a, *b, *lo, *hi;
	unsigned long pfn;

	set_options(SMALL_ARENA " page_reporting_threshold=1G");
	a = alloc_pages(GFP_KERNEL, 5);
	b = alloc_pages(GFP_KERNEL, 5);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	/* the second came from the first one's split: they are buddies */
	ck_assert_uint_eq(page_to_pfn(a) ^ page_to_pfn(b), 32);
	lo = page_to_pfn(a) < page_to_pfn(b) ? a : b;
	hi = lo == a ? b : a;
	pfn = page_to_pfn(lo);
	__free_pages(hi, 5);
	ck_assert(PageBuddy(hi) && hi->private == 5);
	page_alloc_check_invariants();
	__free_pages(lo, 5);
	ck_assert(!PageBuddy(hi));
	ck_assert_uint_eq(buddy_pages(), SMALL_PAGES);
	ck_assert(PageBuddy(pfn_to_page(pfn & ~1023UL)));
	ck_assert_uint_eq(pfn_to_page(pfn & ~1023UL)->private, 10);
	page_alloc_check_invariants();
}
END_TEST

/* ---- compound pages ---- */

START_TEST(test_compound_layout)
{
	struct page *page;
	unsigned long i;

	set_options(SMALL_ARENA);
	page = alloc_pages(GFP_KERNEL | __GFP_COMP, 4);
	ck_assert_ptr_nonnull(page);
	ck_assert(PageHead(page));
	ck_assert(!PageTail(page));
	ck_assert_int_eq(page_count(page), 1);
	ck_assert_int_eq(atomic_read(&page->_mapcount), -1);
	ck_assert_uint_eq(page[1].compound_order, 4);
	ck_assert_uint_eq(page[1].compound_nr, 16);
	ck_assert_uint_eq(page[1].compound_dtor, 1);
	ck_assert_int_eq(atomic_read(&page[1].compound_mapcount), -1);
	ck_assert_int_eq(atomic_read(&page[2].hpage_pinned_refcount), 0);
	for (i = 1; i < 16; i++) {
		ck_assert_uint_eq(page[i].compound_head, (unsigned long)page | 1);
		ck_assert_int_eq(atomic_read(&page[i]._refcount), 0);
		ck_assert(!PageHead(page + i));
		if (i >= 2)
			ck_assert_ptr_eq(page[i].mapping, (void *)0x400);
	}
	ck_assert_uint_eq(compound_order(page), 4);
	ck_assert_uint_eq(folio_order(page_folio(page + 9)), 4);
	__free_pages(page, 4);
	for (i = 0; i < 16; i++) {
		ck_assert(!PageTail(page + i));
		ck_assert_ptr_null(page[i].mapping);
	}
	ck_assert(!PageHead(page));
	page_alloc_check_invariants();
}
END_TEST

/* Order 1 has no second tail; order 0 with __GFP_COMP is a plain page. */
START_TEST(test_compound_small_orders)
{
	struct page *p1, *p0;

	set_options(SMALL_ARENA);
	p1 = alloc_pages(GFP_KERNEL | __GFP_COMP, 1);
	p0 = alloc_pages(GFP_KERNEL | __GFP_COMP, 0);
	ck_assert(PageHead(p1) && PageTail(p1 + 1));
	ck_assert_uint_eq(compound_order(p1), 1);
	ck_assert(!PageHead(p0));
	ck_assert_uint_eq(compound_order(p0), 0);
	put_page(p1 + 1);	/* put_page on a tail drops the folio's reference */
	put_page(p0);
	ck_assert_uint_eq(nr_free_pages(), SMALL_PAGES);
	page_alloc_check_invariants();
}
END_TEST

/* ---- __GFP_ZERO ---- */

static bool all_zero(const void *p, size_t len)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (c[i])
			return false;
	return true;
}

START_TEST(test_gfp_zero_after_dirty_free)
{
	unsigned int orders[] = { 0, 2, 3, 5, 9, 10 };
	struct page *page;
	unsigned int i, r;

	set_options(SMALL_ARENA " page_reporting_threshold=1G");
	for (i = 0; i < ARRAY_SIZE(orders); i++)
		for (r = 0; r < 3; r++) {
			page = alloc_pages(GFP_KERNEL, orders[i]);
			ck_assert_ptr_nonnull(page);
			memset(page_address(page), 0xa5, PAGE_SIZE << orders[i]);
			__free_pages(page, orders[i]);
			page = alloc_pages(GFP_KERNEL | __GFP_ZERO, orders[i]);
			ck_assert_ptr_nonnull(page);
			ck_assert(all_zero(page_address(page), PAGE_SIZE << orders[i]));
			memset(page_address(page), 0x5a, PAGE_SIZE << orders[i]);
			__free_pages(page, orders[i]);
		}
	page_alloc_check_invariants();
}
END_TEST

/* Allocate all memory with __GFP_ZERO in blocks of varied orders; all must read zero. */
static void zero_alloc_everything(void)
{
	static struct page *pages[SMALL_PAGES];
	static unsigned int orders[SMALL_PAGES];
	unsigned long n = 0;
	unsigned int order = 7;

	for (;;) {
		struct page *page = alloc_pages(GFP_NW | __GFP_ZERO, order);

		if (page) {
			ck_assert(all_zero(page_address(page), PAGE_SIZE << order));
			pages[n] = page;
			orders[n++] = order;
			order = (order + 5) % 8;
		} else if (order) {
			order = 0;	/* nothing that large is left: single pages */
		} else {
			break;
		}
	}
	ck_assert_uint_eq(nr_free_pages(), 0);
	page_alloc_check_invariants();
	while (n--)
		__free_pages(pages[n], orders[n]);
	drain_all_pages();
	ck_assert_uint_eq(buddy_pages(), SMALL_PAGES);
	page_alloc_check_invariants();
}

/* Fill every page with 0xff and free it all. */
static void dirty_everything(void)
{
	struct page *pages[4];
	int i;

	for (i = 0; i < 4; i++) {
		pages[i] = alloc_pages(GFP_KERNEL, 10);
		memset(page_address(pages[i]), 0xff, 4 * MiB);
	}
	for (i = 0; i < 4; i++)
		__free_pages(pages[i], 10);
}

/* Reported blocks read as zero and are split every which way. */
START_TEST(test_gfp_zero_from_reported_blocks)
{
	set_options(SMALL_ARENA);
	dirty_everything();
	page_reporting_flush();
	ck_assert_uint_eq(nr_reported_pages(), SMALL_PAGES);
	zero_alloc_everything();
}
END_TEST

/* Dirty blocks split every which way: no half may pass for zero. */
START_TEST(test_gfp_zero_from_dirty_blocks)
{
	set_options(SMALL_ARENA " page_reporting_threshold=1G");
	dirty_everything();
	ck_assert_uint_eq(nr_reported_pages(), 0);
	zero_alloc_everything();
}
END_TEST

START_TEST(test_get_zeroed_page)
{
	unsigned long addr;

	set_options(SMALL_ARENA);
	addr = __get_free_pages(GFP_KERNEL, 0);
	ck_assert(addr);
	memset((void *)addr, 0x77, PAGE_SIZE);
	free_pages(addr, 0);
	addr = get_zeroed_page(GFP_KERNEL);
	ck_assert(addr);
	ck_assert(all_zero((void *)addr, PAGE_SIZE));
	ck_assert(virt_addr_valid((void *)addr));
	free_pages(addr, 0);
	free_pages(0, 3);	/* ignored */
}
END_TEST

/* ---- reference counts ---- */

START_TEST(test_refcount_order0)
{
	struct page *page;

	set_options(SMALL_ARENA);
	page = alloc_pages(GFP_KERNEL, 0);
	ck_assert_int_eq(page_count(page), 1);
	get_page(page);
	ck_assert_int_eq(page_count(page), 2);
	put_page(page);
	ck_assert_int_eq(page_count(page), 1);
	ck_assert_uint_eq(nr_free_pages(), SMALL_PAGES - 1);
	put_page(page);
	ck_assert_uint_eq(nr_free_pages(), SMALL_PAGES);
	page_alloc_check_invariants();
}
END_TEST

/* A referenced non-compound block: __free_pages frees all but the first page. */
START_TEST(test_refcount_noncompound)
{
	struct page *page;

	set_options(SMALL_ARENA);
	page = alloc_pages(GFP_KERNEL, 3);
	get_page(page);
	__free_pages(page, 3);
	ck_assert_int_eq(page_count(page), 1);
	ck_assert_uint_eq(nr_free_pages(), SMALL_PAGES - 1);
	page_alloc_check_invariants();
	put_page(page);
	ck_assert_uint_eq(nr_free_pages(), SMALL_PAGES);
	drain_local_pages();
	ck_assert_uint_eq(buddy_pages(), SMALL_PAGES);
	page_alloc_check_invariants();
}
END_TEST

/* A referenced compound block stays whole until its last reference goes. */
START_TEST(test_refcount_compound)
{
	struct folio *folio;

	set_options(SMALL_ARENA);
	folio = folio_alloc(GFP_KERNEL, 6);
	get_page(&folio->page + 17);	/* a tail reference counts on the head */
	ck_assert_int_eq(folio_ref_count(folio), 2);
	__free_pages(&folio->page, 6);
	ck_assert_int_eq(folio_ref_count(folio), 1);
	ck_assert_uint_eq(nr_free_pages(), SMALL_PAGES - 64);
	ck_assert(PageHead(&folio->page));
	folio_put(folio);
	ck_assert_uint_eq(nr_free_pages(), SMALL_PAGES);
	page_alloc_check_invariants();
}
END_TEST

/* ---- arguments ---- */

START_TEST(test_nodes_and_orders)
{
	struct page *page;

	set_options(SMALL_ARENA);
	page = alloc_pages_node(NUMA_NO_NODE, GFP_KERNEL, 1);
	ck_assert_ptr_nonnull(page);
	ck_assert_int_eq(page_to_nid(page), 0);
	__free_pages(page, 1);
	page = __alloc_pages_node(1, GFP_KERNEL, 0);	/* falls back to node 0 */
	ck_assert_ptr_nonnull(page);
	__free_pages(page, 0);
	ck_assert_ptr_null(__alloc_pages_node(1, GFP_NW | __GFP_THISNODE, 0));
	ck_assert_ptr_null(__alloc_pages_node(-5, GFP_NW, 0));
	ck_assert_ptr_null(alloc_pages(GFP_NW, 11));
	ck_assert_ptr_null(alloc_pages(GFP_NW, 40));
	ck_assert_uint_eq(nr_free_pages(), SMALL_PAGES);
}
END_TEST

/* ---- per-CPU lists ---- */

static void *alloc_free_some(void *arg)
{
	struct page *pages[40];
	int i;

	(void)arg;
	for (i = 0; i < 40; i++)
		pages[i] = alloc_pages(GFP_KERNEL, i % 4);
	for (i = 0; i < 40; i++)
		__free_pages(pages[i], i % 4);
	return NULL;
}

START_TEST(test_thread_exit_drains)
{
	pthread_t t;

	set_options(SMALL_ARENA);
	ck_assert_int_eq(pthread_create(&t, NULL, alloc_free_some, NULL), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	/* the thread's lists went back to the buddy lists when it exited */
	ck_assert_uint_eq(buddy_pages(), SMALL_PAGES);
	page_alloc_check_invariants();
}
END_TEST

/* ---- out of memory ---- */

struct holder {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int stage;		/* 1: holder has pages on its lists; 2: may exit */
};

static void holder_wait(struct holder *h, int stage)
{
	pthread_mutex_lock(&h->lock);
	while (h->stage < stage)
		pthread_cond_wait(&h->cond, &h->lock);
	pthread_mutex_unlock(&h->lock);
}

static void holder_set(struct holder *h, int stage)
{
	pthread_mutex_lock(&h->lock);
	h->stage = stage;
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
}

/* Leaves pages on its own per-CPU lists and waits. */
static void *holder_thread(void *arg)
{
	struct holder *h = arg;

	alloc_free_some(NULL);
	holder_set(h, 1);
	holder_wait(h, 2);
	return NULL;
}

/* Run fn with stderr captured into buf. */
static void capture_stderr(void (*fn)(void), char *buf, size_t len)
{
	FILE *tmp = tmpfile();
	int saved = dup(2);
	size_t n;

	ck_assert_ptr_nonnull(tmp);
	fflush(stderr);
	dup2(fileno(tmp), 2);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, len - 1, tmp);
	buf[n] = 0;
	fclose(tmp);
}

static void alloc_one_warned(void)
{
	ck_assert_ptr_null(alloc_pages(GFP_KERNEL, 0));
}

START_TEST(test_oom_returns_null_and_recovers)
{
	static struct page *pages[SMALL_PAGES];
	struct holder h = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
	unsigned long n = 0, i;
	char err[4096];
	pthread_t t;

	set_options(SMALL_ARENA);
	ck_assert_int_eq(pthread_create(&t, NULL, holder_thread, &h), 0);
	holder_wait(&h, 1);
	while (n < SMALL_PAGES && (pages[n] = alloc_pages(GFP_NW, 0)))
		n++;
	/* the other thread's lists were drained: every page came to us */
	ck_assert_uint_eq(n, SMALL_PAGES);
	ck_assert_ptr_null(alloc_pages(GFP_NW, 0));
	ck_assert_ptr_null(alloc_pages(GFP_NW, 10));
	ck_assert_uint_eq(nr_free_pages(), 0);
	capture_stderr(alloc_one_warned, err, sizeof(err));
	ck_assert_msg(strstr(err, "uslab: page allocation failure: order:0, mode:0x"),
		      "no warning: %s", err);
	page_alloc_check_invariants();
	for (i = 0; i < n; i++) {
		/* no page was handed out twice */
		*(unsigned long *)page_address(pages[i]) = i;
	}
	for (i = 0; i < n; i++)
		ck_assert_uint_eq(*(unsigned long *)page_address(pages[i]), i);
	for (i = 0; i < n; i++)
		__free_pages(pages[i], 0);
	/* keeps working: everything merges back into the largest blocks */
	drain_all_pages();
	for (i = 0; i < 4; i++)
		ck_assert_ptr_nonnull(pages[i] = alloc_pages(GFP_KERNEL, 10));
	for (i = 0; i < 4; i++)
		__free_pages(pages[i], 10);
	holder_set(&h, 2);
	pthread_join(t, NULL);
	page_alloc_check_invariants();
	ck_assert_uint_eq(buddy_pages(), SMALL_PAGES);
}
END_TEST

/* ---- giving memory back ---- */

START_TEST(test_rss_drops_after_flush)
{
	struct page *pages[32];
	size_t before, touched, after;
	int i;

	set_options("page_reporting_threshold=1G");	/* only the flush reports */
	before = os_rss_bytes();
	ck_assert(before > 0);
	for (i = 0; i < 32; i++) {
		pages[i] = alloc_pages(GFP_KERNEL, 9);
		ck_assert_ptr_nonnull(pages[i]);
		memset(page_address(pages[i]), 0x3c, 2 * MiB);
	}
	touched = os_rss_bytes();
	ck_assert(touched >= before + 60 * MiB);
	for (i = 0; i < 32; i++)
		__free_pages(pages[i], 9);
	ck_assert(os_rss_bytes() >= touched - 4 * MiB);	/* not yet given back */
	page_reporting_flush();
	after = os_rss_bytes();
	ck_assert_msg(after + 56 * MiB <= touched, "RSS %zu -> %zu -> %zu", before, touched, after);
	page_alloc_check_invariants();
}
END_TEST

/* Above the threshold the free path reports by itself, down to half of it. */
START_TEST(test_reporting_threshold)
{
	struct uslab_memmap_stats st;
	struct page *pages[32];
	size_t touched, after;
	int i;

	set_options("page_reporting_threshold=8M");
	for (i = 0; i < 32; i++) {
		pages[i] = alloc_pages(GFP_KERNEL, 9);
		memset(page_address(pages[i]), 0x3c, 2 * MiB);
	}
	touched = os_rss_bytes();
	for (i = 0; i < 32; i++)
		__free_pages(pages[i], 9);
	after = os_rss_bytes();
	ck_assert_msg(after + 48 * MiB <= touched, "RSS %zu -> %zu", touched, after);
	uslab_memmap_stats(&st);
	/* what is left unreported is at most the threshold */
	ck_assert(st.pages_free - st.pages_reported <= 8 * MiB / PAGE_SIZE);
	page_alloc_check_invariants();
}
END_TEST

/* ---- the checker and misuse reports ---- */

static void corrupt_stray_buddy(void *arg)
{
	struct page *page;

	(void)arg;
	parse_option_string(SMALL_ARENA);
	page = alloc_pages(GFP_KERNEL, 4);
	alloc_pages(GFP_KERNEL, 4);	/* its buddy: nothing will try to merge */
	page->private = 4;
	__SetPageBuddy(page);	/* an allocated block that claims to be free */
	page_alloc_check_invariants();
}

static void corrupt_free_order(void *arg)
{
	struct page *page;

	(void)arg;
	parse_option_string(SMALL_ARENA);
	page = alloc_pages(GFP_KERNEL, 4);
	/* its buddy, free at order 4, now claims order 3 */
	pfn_to_page(page_to_pfn(page) ^ 16)->private = 3;
	page_alloc_check_invariants();
}

START_TEST(test_checker_catches_corruption)
{
	ck_assert_aborts_with(corrupt_stray_buddy, NULL, "PageBuddy but on no free list");
	ck_assert_aborts_with(corrupt_free_order, NULL, "is not PageBuddy of that order");
}
END_TEST

static void double_free(void *arg)
{
	struct page *page;

	(void)arg;
	page = alloc_pages(GFP_KERNEL, 0);
	__free_pages(page, 0);
	__free_pages(page, 0);
}

static void free_tail(void *arg)
{
	struct page *page;

	(void)arg;
	page = alloc_pages(GFP_KERNEL | __GFP_COMP, 2);
	__free_pages(page + 1, 1);
}

static void free_foreign(void *arg)
{
	static char buf[2 * 4096];

	(void)arg;
	alloc_pages(GFP_KERNEL, 0);
	free_pages(((unsigned long)buf + 4095) & ~4095UL, 0);
}

static void free_wrong_order(void *arg)
{
	struct page *page;

	(void)arg;
	page = alloc_pages(GFP_KERNEL | __GFP_COMP, 3);
	__free_pages(page, 2);
}

static void free_dirty_slab_flag(void *arg)
{
	struct page *page;

	(void)arg;
	page = alloc_pages(GFP_KERNEL, 0);
	__SetPageSlab(page);
	__free_pages(page, 0);
}

static void get_free_page(void *arg)
{
	struct page *page;

	(void)arg;
	page = alloc_pages(GFP_KERNEL, 0);
	__free_pages(page, 0);
	get_page(page);
}

START_TEST(test_misuse_reports)
{
	ck_assert_aborts_with(double_free, NULL, "Bad page state");
	ck_assert_aborts_with(double_free, NULL, "already free");
	ck_assert_aborts_with(free_tail, NULL, "tail page");
	ck_assert_aborts_with(free_foreign, NULL, "free_pages");
	ck_assert_aborts_with(free_wrong_order, NULL, "wrong order");
	ck_assert_aborts_with(free_dirty_slab_flag, NULL, "PAGE_FLAGS_CHECK_AT_FREE");
	ck_assert_aborts_with(get_free_page, NULL, "get_page on a free page");
}
END_TEST

static Suite *page_alloc_suite(void)
{
	Suite *s = suite_create("page_alloc");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_buddyinfo_format);
	tcase_add_test(tc, test_split_and_merge_order4);
	tcase_add_test(tc, test_split_and_merge_order0);
	tcase_add_test(tc, test_buddies_merge);
	tcase_add_test(tc, test_compound_layout);
	tcase_add_test(tc, test_compound_small_orders);
	tcase_add_test(tc, test_gfp_zero_after_dirty_free);
	tcase_add_test(tc, test_gfp_zero_from_reported_blocks);
	tcase_add_test(tc, test_gfp_zero_from_dirty_blocks);
	tcase_add_test(tc, test_get_zeroed_page);
	tcase_add_test(tc, test_refcount_order0);
	tcase_add_test(tc, test_refcount_noncompound);
	tcase_add_test(tc, test_refcount_compound);
	tcase_add_test(tc, test_nodes_and_orders);
	tcase_add_test(tc, test_thread_exit_drains);
	tcase_add_test(tc, test_oom_returns_null_and_recovers);
	tcase_add_test(tc, test_rss_drops_after_flush);
	tcase_add_test(tc, test_reporting_threshold);
	tcase_add_test(tc, test_checker_catches_corruption);
	tcase_add_test(tc, test_misuse_reports);
	suite_add_tcase(s, tc);
	return s;
}
USLAB_TEST_MAIN(page_alloc_suite)
