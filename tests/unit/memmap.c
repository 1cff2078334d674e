// SPDX-License-Identifier: MIT
/*
 * memmap.c - the memory map: arena and section geometry, options, section
 * onlining, struct page initialisation, every pfn/page/virt/folio
 * conversion (internal and exported), validity checks outside the arena and
 * in offline sections, statistics, and the reservation falling back under a
 * lowered RLIMIT_AS.
 *
 * Each test runs in its own process (Check forks), so each sets its options
 * with parse_option_string() before the library's first use.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/test.h"
#include "mm/internal.h"
#include "os/os.h"

#define MiB (1UL << 20)
#define GFP_KERNEL_NOWARN (GFP_KERNEL | __GFP_NOWARN)

static void set_options(const char *opts)
{
	ck_assert_int_eq(parse_option_string(opts), 0);
}

static struct uslab_memmap_stats stats(void)
{
	struct uslab_memmap_stats st;

	uslab_memmap_stats(&st);
	return st;
}

START_TEST(test_defaults)
{
	struct uslab_memmap_stats st = stats();

	/* under no address-space limit the requested 64G is granted */
	ck_assert_uint_eq(st.arena_bytes, 64UL << 30);
	ck_assert_uint_eq(st.section_bytes, 16 * MiB);
	ck_assert_uint_eq(st.max_order, 11);
	ck_assert_uint_eq(st.vmemmap_bytes, (64UL << 30) / PAGE_SIZE * 64);
	ck_assert_uint_eq(st.sections_online, 0);
	ck_assert_uint_eq(memmap.arena_start % (PAGE_SIZE << 10), 0);
	ck_assert_uint_eq(memmap.max_pfn, (64UL << 30) / PAGE_SIZE);
	ck_assert_uint_eq(memmap.section_shift, 24);
	ck_assert_uint_eq(MAX_ORDER, 11);
	ck_assert(st.bookkeeping_bytes >= 512 * sizeof(unsigned long));
}
END_TEST

START_TEST(test_geometry_options)
{
	struct uslab_memmap_stats st;

	set_options("arena_size=96M section_size=32M max_order=6");
	st = stats();
	ck_assert_uint_eq(st.section_bytes, 32 * MiB);
	ck_assert_uint_eq(st.arena_bytes, 96 * MiB);
	ck_assert_uint_eq(st.max_order, 6);
	ck_assert_uint_eq(memmap.arena_start % (PAGE_SIZE << 5), 0);
	ck_assert_uint_eq(PAGES_PER_SECTION, 32 * MiB / PAGE_SIZE);
	ck_assert_uint_eq(MAX_ORDER_NR_PAGES, 32);
}
END_TEST

/* A section smaller than the largest block is raised to it. */
START_TEST(test_section_raised_to_block)
{
	struct uslab_memmap_stats st;

	set_options("arena_size=512M section_size=16M max_order=16");
	st = stats();
	ck_assert_uint_eq(st.section_bytes, PAGE_SIZE << 15);	/* 128M */
	ck_assert_uint_eq(st.arena_bytes, 512 * MiB);
	ck_assert_uint_eq(memmap.arena_start % (PAGE_SIZE << 15), 0);
}
END_TEST

/* An arena smaller than a section shrinks the section. */
START_TEST(test_section_shrunk_to_arena)
{
	struct uslab_memmap_stats st;

	set_options("arena_size=48M section_size=128M");
	st = stats();
	ck_assert_uint_eq(st.section_bytes, 32 * MiB);
	ck_assert_uint_eq(st.arena_bytes, 64 * MiB);	/* rounded up to whole sections */
}
END_TEST

START_TEST(test_bad_options_rejected)
{
	ck_assert_int_eq(parse_option_string("section_size=3M"), 1);
	ck_assert_int_eq(parse_option_string("max_order=0"), 1);
	ck_assert_int_eq(parse_option_string("max_order=17"), 1);
	ck_assert_int_eq(parse_option_string("arena_size=banana"), 1);
	/* nothing changed */
	ck_assert_uint_eq(stats().section_bytes, 16 * MiB);
	ck_assert_uint_eq(stats().max_order, 11);
}
END_TEST

START_TEST(test_sections_come_online)
{
	struct page *blocks[5];
	struct uslab_memmap_stats st;
	unsigned long nr;
	int i;

	set_options("arena_size=64M section_size=16M");
	ck_assert_uint_eq(stats().sections_online, 0);
	ck_assert(!(memmap_section_flags(0) & SECTION_HAS_MEM_MAP));
	ck_assert(memmap_section_flags(0) & SECTION_MARKED_PRESENT);
	/* 16M sections of four 4M blocks: a fifth block needs a second section */
	for (i = 0; i < 5; i++) {
		blocks[i] = alloc_pages(GFP_KERNEL, 10);
		ck_assert_ptr_nonnull(blocks[i]);
	}
	st = stats();
	ck_assert_uint_eq(st.sections_online, 2);
	ck_assert_uint_eq(st.pages_online, 2 * 16 * MiB / PAGE_SIZE);
	ck_assert_uint_eq(st.memmap_bytes_committed, st.pages_online * 64);
	for (nr = 0; nr < 4; nr++) {
		unsigned long want = nr < 2 ? SECTION_MARKED_PRESENT | SECTION_HAS_MEM_MAP |
			SECTION_IS_ONLINE : SECTION_MARKED_PRESENT;

		ck_assert_uint_eq(memmap_section_flags(nr), want);
	}
	for (i = 0; i < 5; i++)
		__free_pages(blocks[i], 10);
	page_alloc_check_invariants();
}
END_TEST

/* Struct pages of a new section: node 0, no flags, mapcount -1, refcount 0,
 * or, in a chunk the page allocator has not needed yet, all zeros (memmap.c
 * §3: initialised lazily); the page handed out is initialised. */
START_TEST(test_fresh_struct_pages)
{
	struct page *page, *p;
	unsigned long pfn;

	set_options("arena_size=32M section_size=16M");
	page = alloc_pages(GFP_KERNEL, 0);
	ck_assert_ptr_nonnull(page);
	for (pfn = 0; pfn < PAGES_PER_SECTION; pfn++) {
		p = pfn_to_page(pfn);
		ck_assert_int_eq(page_to_nid(p), 0);
		ck_assert_int_eq(atomic_read(&p->_refcount), p == page ? 1 : 0);
		if (!PageBuddy(p))
			ck_assert(atomic_read(&p->_mapcount) == -1 ||
				  (p != page && atomic_read(&p->_mapcount) == 0 && !p->flags));
		ck_assert_uint_eq(p->memcg_data, 0);
		ck_assert(!PageHead(p) && !PageTail(p) && !PageSlab(p));
	}
	__free_pages(page, 0);
}
END_TEST

START_TEST(test_conversions)
{
	struct page *page, *sub;
	unsigned long pfn, i;
	char *addr;

	set_options("arena_size=64M section_size=16M");
	page = alloc_pages(GFP_KERNEL, 2);	/* not compound */
	ck_assert_ptr_nonnull(page);
	pfn = page_to_pfn(page);
	addr = page_address(page);
	ck_assert_ptr_eq(pfn_to_page(pfn), page);
	ck_assert_ptr_eq(addr, (char *)memmap.arena_start + pfn * PAGE_SIZE);
	ck_assert_ptr_eq(pfn_to_virt(pfn), addr);
	ck_assert_uint_eq(virt_to_pfn(addr), pfn);
	for (i = 0; i < 4; i++) {
		sub = virt_to_page(addr + i * PAGE_SIZE + 123);
		ck_assert_ptr_eq(sub, page + i);
		ck_assert_uint_eq(page_to_pfn(sub), pfn + i);
		ck_assert_ptr_eq(page_address(sub), addr + i * PAGE_SIZE);
		/* not compound: each page is its own folio */
		ck_assert_ptr_eq(compound_head(sub), sub);
		ck_assert_ptr_eq(virt_to_folio(addr + i * PAGE_SIZE), (struct folio *)sub);
		ck_assert_uint_eq(folio_order(page_folio(sub)), 0);
	}
	ck_assert_ptr_eq(folio_page(page_folio(page), 3), page + 3);
	ck_assert_ptr_eq(folio_address(page_folio(page)), addr);
	ck_assert_uint_eq(folio_pfn(page_folio(page)), pfn);
	ck_assert_int_eq(folio_nid(page_folio(page)), 0);
	__free_pages(page, 2);
}
END_TEST

START_TEST(test_folio_conversions)
{
	struct folio *folio;
	struct page *head;
	unsigned long i;
	char *addr;

	set_options("arena_size=64M section_size=16M");
	folio = folio_alloc(GFP_KERNEL, 5);
	ck_assert_ptr_nonnull(folio);
	head = &folio->page;
	addr = folio_address(folio);
	ck_assert(folio_test_large(folio));
	ck_assert_uint_eq(folio_order(folio), 5);
	ck_assert_uint_eq(folio_nr_pages(folio), 32);
	ck_assert_uint_eq(folio_size(folio), 32 * PAGE_SIZE);
	ck_assert_uint_eq(compound_order(head), 5);
	for (i = 1; i < 32; i++) {
		ck_assert(PageTail(head + i));
		ck_assert_ptr_eq(compound_head(head + i), head);
		ck_assert_ptr_eq(page_folio(head + i), folio);
		ck_assert_ptr_eq(virt_to_folio(addr + i * PAGE_SIZE + 7), folio);
		ck_assert_int_eq(page_count(head + i), 1);	/* the head's count */
	}
	ck_assert(!PageTail(head));
	folio_put(folio);
	/* after the free no page claims to be a tail any more */
	for (i = 1; i < 32; i++)
		ck_assert(!PageTail(head + i));
}
END_TEST

/* The exported uslab_ wrappers agree with the inline arithmetic. */
START_TEST(test_exported_wrappers)
{
	struct folio *folio;
	struct page *head;
	char *addr;

	set_options("arena_size=64M section_size=16M");
	folio = uslab_folio_alloc(USLAB_GFP_KERNEL, 3);
	ck_assert_ptr_nonnull(folio);
	head = &folio->page;
	addr = uslab_folio_address(folio);
	ck_assert_ptr_eq(addr, folio_address(folio));
	ck_assert_ptr_eq(uslab_page_address(head + 2), page_address(head + 2));
	ck_assert_ptr_eq(uslab_virt_to_page(addr + 3 * PAGE_SIZE), head + 3);
	ck_assert_ptr_eq(uslab_virt_to_folio(addr + 3 * PAGE_SIZE), folio);
	ck_assert_uint_eq(uslab_folio_order(folio), 3);
	ck_assert_uint_eq(uslab_page_to_pfn(head), page_to_pfn(head));
	ck_assert_ptr_eq(uslab_pfn_to_page(page_to_pfn(head) + 1), head + 1);
	ck_assert_int_eq(uslab_pfn_valid(page_to_pfn(head)), 1);
	ck_assert_int_eq(uslab_virt_addr_valid(addr), 1);
	ck_assert_int_eq(uslab_virt_addr_valid(&folio), 0);
	uslab_folio_put(folio);
}
END_TEST

START_TEST(test_validity)
{
	unsigned long section = 16 * MiB;
	int on_stack;
	char *heap = malloc(64);
	struct page *page;

	set_options("arena_size=64M section_size=16M");
	page = alloc_pages(GFP_KERNEL, 0);	/* brings section 0 online */
	ck_assert_ptr_nonnull(page);
	ck_assert(virt_addr_valid(page_address(page)));
	ck_assert(virt_addr_valid((void *)memmap.arena_start));
	ck_assert(virt_addr_valid((void *)(memmap.arena_start + section - 1)));
	/* reserved but offline sections */
	ck_assert(!virt_addr_valid((void *)(memmap.arena_start + section)));
	ck_assert(!virt_addr_valid((void *)(memmap.arena_end - 1)));
	ck_assert(!pfn_valid(section / PAGE_SIZE));
	ck_assert(pfn_valid(section / PAGE_SIZE - 1));
	/* outside the arena */
	ck_assert(!virt_addr_valid((void *)memmap.arena_end));
	ck_assert(!virt_addr_valid((void *)(memmap.arena_start - 1)));
	ck_assert(!virt_addr_valid(NULL));
	ck_assert(!virt_addr_valid(&on_stack));
	ck_assert(!virt_addr_valid(heap));
	ck_assert(!virt_addr_valid(memmap.vmemmap));
	ck_assert(!pfn_valid(memmap.max_pfn));
	ck_assert(!pfn_valid(~0UL));
	free(heap);
	__free_pages(page, 0);
}
END_TEST

START_TEST(test_stats_cost_per_page)
{
	struct uslab_memmap_stats st;
	struct page *page;

	page = alloc_pages(GFP_KERNEL, 0);
	ck_assert_ptr_nonnull(page);
	st = stats();
	ck_assert_uint_eq(st.sections_online, 1);
	ck_assert_uint_eq(st.pages_online, 16 * MiB / PAGE_SIZE);
	/* exactly one struct page (64 B) per 4 KiB page is committed */
	ck_assert_uint_eq(st.memmap_bytes_committed / st.pages_online, 64);
	ck_assert_uint_eq(st.pages_free, st.pages_online - 1);
	/* the rest of a never-touched section is memory the OS still has */
	ck_assert(st.pages_reported >= st.pages_online / 2);
	__free_pages(page, 0);
}
END_TEST

/* ---- reservation under an address-space limit ---- */

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif
#ifndef UNDER_SANITIZER
#define UNDER_SANITIZER 0
#endif

static unsigned long vm_size_bytes(void)
{
	unsigned long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%lu", &pages), 1);
	fclose(f);
	return pages * (unsigned long)sysconf(_SC_PAGESIZE);
}

static void limit_address_space(unsigned long extra)
{
	struct rlimit rl;

	ck_assert_int_eq(getrlimit(RLIMIT_AS, &rl), 0);
	rl.rlim_cur = vm_size_bytes() + extra;
	ck_assert_int_eq(setrlimit(RLIMIT_AS, &rl), 0);
}

static void check_fallback_arena(unsigned long extra)
{
	struct uslab_memmap_stats st;
	struct page *page;
	void *p;

	limit_address_space(extra);
	page = alloc_pages(GFP_KERNEL, 10);
	ck_assert_ptr_nonnull(page);
	memset(page_address(page), 1, PAGE_SIZE << 10);
	st = stats();
	ck_assert(st.arena_bytes < extra);
	ck_assert(st.arena_bytes >= st.section_bytes);
	ck_assert_uint_eq(st.arena_bytes % st.section_bytes, 0);
	ck_assert(st.section_bytes >= PAGE_SIZE << 10);
	ck_assert_uint_eq(memmap.arena_start % (PAGE_SIZE << 10), 0);
	__free_pages(page, 10);
	/* the program keeps address space of its own */
	p = mmap(NULL, 16 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert(p != MAP_FAILED);
	munmap(p, 16 * MiB);
	page_alloc_check_invariants();
}

START_TEST(test_rlimit_fallback)
{
	if (UNDER_SANITIZER)
		return;	/* sanitizers reserve terabytes of shadow: no RLIMIT_AS */
	check_fallback_arena(1024 * MiB);
	ck_assert_uint_eq(stats().section_bytes, 16 * MiB);
}
END_TEST

/* So little room that the arena ends up smaller than a section. */
START_TEST(test_rlimit_fallback_small)
{
	if (UNDER_SANITIZER)
		return;
	set_options("section_size=128M");
	check_fallback_arena(160 * MiB);
	ck_assert(stats().section_bytes < 128 * MiB);
}
END_TEST

static Suite *memmap_suite(void)
{
	Suite *s = suite_create("memmap");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_geometry_options);
	tcase_add_test(tc, test_section_raised_to_block);
	tcase_add_test(tc, test_section_shrunk_to_arena);
	tcase_add_test(tc, test_bad_options_rejected);
	tcase_add_test(tc, test_sections_come_online);
	tcase_add_test(tc, test_fresh_struct_pages);
	tcase_add_test(tc, test_conversions);
	tcase_add_test(tc, test_folio_conversions);
	tcase_add_test(tc, test_exported_wrappers);
	tcase_add_test(tc, test_validity);
	tcase_add_test(tc, test_stats_cost_per_page);
	tcase_add_test(tc, test_rlimit_fallback);
	tcase_add_test(tc, test_rlimit_fallback_small);
	suite_add_tcase(s, tc);
	return s;
}
USLAB_TEST_MAIN(memmap_suite)
