/* SPDX-License-Identifier: MIT */
/*
 * slob_blocks.c - SLOB's own behaviour (src/mm/slob.c): the in-page block
 * encoding, coalescing, pages going back to the page allocator, the three
 * lists, next-fit rotation, the kmalloc header and alignment, ksize, large
 * kmalloc, constructors on every allocation, and its slabinfo equivalent.
 *
 * Each test runs in its own forked child (Check's default), so it starts
 * with empty SLOB lists; the tests check that they did (fresh_page()) rather
 * than assume it.  Built for SLUB or SLAB, the binary skips itself.
 */
#include "common/test.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <uslab/slab.h>
#include <uslab/slobinfo.h>
#include "mm/memcheck.h"

#define UNITS_PER_PAGE	2048	/* 4 KiB of 2-byte units */
#define MAX_BLOCKS	64
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct page_view {
	struct uslab_slob_page_info pi;
	struct uslab_slob_block b[MAX_BLOCKS];
};

static void *page_of(const void *p)
{
	return (void *)((uintptr_t)p & ~(uintptr_t)4095);
}

static long unit_of(const void *p)
{
	return (long)(((uintptr_t)p & 4095) / 2);
}

static void view(const void *p, struct page_view *v)
{
	int err = uslab_slob_page_info(p, &v->pi, v->b, MAX_BLOCKS);

	ck_assert_msg(err == 0, "%p is not in a slob page (%d)", p, err);
	ck_assert_uint_le(v->pi.free_blocks, MAX_BLOCKS);
}

/* The free blocks of p's page must be exactly want[0 .. n-1] ({offset, units, next}). */
static void expect_blocks(const void *p, const struct uslab_slob_block *want, unsigned int n)
{
	struct page_view v;
	unsigned long units = 0;
	unsigned int i;

	view(p, &v);
	ck_assert_uint_eq(v.pi.free_blocks, n);
	for (i = 0; i < n; i++) {
		ck_assert_msg(v.b[i].offset == want[i].offset && v.b[i].units == want[i].units &&
			      v.b[i].next == want[i].next,
			      "block %u: got {%u, %u, %u}, want {%u, %u, %u}", i, v.b[i].offset,
			      v.b[i].units, v.b[i].next, want[i].offset, want[i].units, want[i].next);
		units += want[i].units;
	}
	ck_assert_uint_eq(v.pi.free_units, units);
}

/* Read the encoding of the free block at unit off of page straight from
 * memory (opened for memcheck, which keeps free blocks no-access). */
static void expect_raw(const void *page, unsigned int off, int unit0, int unit1)
{
	const int16_t *u = (const int16_t *)page + off;
	int16_t v[2];

	memcheck_defined(u, sizeof(v));
	memcpy(v, u, sizeof(v));
	memcheck_noaccess(u, sizeof(v));
	ck_assert_int_eq(v[0], unit0);
	if (unit0 > 1)
		ck_assert_int_eq(v[1], unit1);
}

/* Word i of the kmalloc header before p (opened for memcheck, like expect_raw). */
static unsigned int header_word(const void *p, int i)
{
	const unsigned int *h = (const unsigned int *)p - 2 + i;
	unsigned int v;

	memcheck_defined(h, sizeof(v));
	v = *h;
	memcheck_noaccess(h, sizeof(v));
	return v;
}

/* p must be the first allocation in a page nobody else uses. */
static void fresh_page(const void *p, unsigned int units)
{
	struct page_view v;

	view(p, &v);
	ck_assert_msg(v.pi.free_units == UNITS_PER_PAGE - units,
		      "page %p was not fresh: %lu units free", v.pi.page, v.pi.free_units);
}

static unsigned long free_pages_now(void)
{
	struct uslab_memmap_stats st;

	uslab_memmap_stats(&st);
	return st.pages_free;
}

static struct kmem_cache *cache(const char *name, unsigned int size)
{
	struct kmem_cache *s = kmem_cache_create(name, size, 0, 0, NULL);

	ck_assert_ptr_nonnull(s);
	return s;
}

/* ---- encoding ---- */

START_TEST(test_encoding_fresh_page)
{
	/* 4000 + 8 header bytes = 2004 units: 44 units stay free at the end */
	char *p = kmalloc(4000, GFP_KERNEL);
	struct uslab_slob_block want[] = { { 2004, 44, 2048 } };

	ck_assert_ptr_nonnull(p);
	fresh_page(p, 2004);
	ck_assert_ptr_eq(p, (char *)page_of(p) + 8);
	expect_blocks(p, want, 1);
	expect_raw(page_of(p), 2004, 44, 2048);
	kfree(p);
}
END_TEST

/*
 * Objects are 8-byte (4-unit) aligned.  1026-byte objects (513 units) leave
 * 3-unit head fragments before the next aligned start; a 1030-byte object
 * (515 units) in a 516-unit hole leaves a 1-unit block.
 */
START_TEST(test_encoding_fragments_and_one_unit_block)
{
	struct kmem_cache *a = cache("slob-1026", 1026), *d = cache("slob-1030", 1030);
	void *a1 = kmem_cache_alloc(a, GFP_KERNEL), *a2, *a3, *d1, *page = page_of(a1);
	unsigned long before;
	struct uslab_slob_block three[] = {
		{ 513, 3, 1029 }, { 1029, 3, 1545 }, { 1545, 503, 2048 } };
	struct uslab_slob_block hole[] = {
		{ 0, 516, 1029 }, { 1029, 3, 1545 }, { 1545, 503, 2048 } };
	struct uslab_slob_block one[] = {
		{ 515, 1, 1029 }, { 1029, 3, 1545 }, { 1545, 503, 2048 } };
	struct uslab_slob_block both[] = { { 0, 1032, 1545 }, { 1545, 503, 2048 } };

	fresh_page(a1, 513);
	a2 = kmem_cache_alloc(a, GFP_KERNEL);
	a3 = kmem_cache_alloc(a, GFP_KERNEL);
	ck_assert_int_eq(unit_of(a1), 0);
	ck_assert_int_eq(unit_of(a2), 516);
	ck_assert_int_eq(unit_of(a3), 1032);
	expect_blocks(page, three, 3);
	expect_raw(page, 513, 3, 1029);
	expect_raw(page, 1029, 3, 1545);
	expect_raw(page, 1545, 503, 2048);

	kmem_cache_free(a, a1);		/* below the first free block: merges with it */
	expect_blocks(page, hole, 3);
	expect_raw(page, 0, 516, 1029);

	d1 = kmem_cache_alloc(d, GFP_KERNEL);	/* first fit: the 516-unit hole */
	ck_assert_ptr_eq(d1, a1);
	expect_blocks(page, one, 3);
	expect_raw(page, 515, -1029, 0);	/* a 1-unit block: negated next offset */

	kmem_cache_free(d, d1);		/* merges with the 1-unit block after it */
	expect_blocks(page, hole, 3);
	kmem_cache_free(a, a2);		/* merges with the blocks on both sides */
	expect_blocks(page, both, 2);
	expect_raw(page, 0, 1032, 1545);

	before = free_pages_now();
	kmem_cache_free(a, a3);		/* nothing left: straight to the page allocator */
	ck_assert_uint_eq(free_pages_now(), before + 1);
	ck_assert_int_eq(uslab_slob_page_info(page, NULL, NULL, 0), -EINVAL);
}
END_TEST

START_TEST(test_encoding_one_unit_last_block)
{
	struct kmem_cache *c = cache("slob-4094", 4094);	/* 2047 units */
	void *p = kmem_cache_alloc(c, GFP_KERNEL);
	struct uslab_slob_block want[] = { { 2047, 1, 2048 } };

	fresh_page(p, 2047);
	expect_blocks(p, want, 1);
	expect_raw(page_of(p), 2047, -2048, 0);	/* next is the page end */
	kmem_cache_free(c, p);
}
END_TEST

/* ---- coalescing and giving pages back ---- */

START_TEST(test_coalesce_both_neighbours)
{
	struct kmem_cache *a = cache("slob-1024", 1024);	/* 512 units: 4 fill a page */
	struct uslab_slob_block first[] = { { 0, 512, 2048 } };
	struct uslab_slob_block two[] = { { 0, 512, 1024 }, { 1024, 512, 2048 } };
	struct uslab_slob_block merged[] = { { 0, 1536, 2048 } };
	unsigned long before;
	void *o[4], *page;
	int i;

	for (i = 0; i < 4; i++)
		o[i] = kmem_cache_alloc(a, GFP_KERNEL);
	page = page_of(o[0]);
	fresh_page(o[0], 2048);
	ck_assert_int_eq(unit_of(o[3]), 1536);
	kmem_cache_free(a, o[0]);	/* the page was full: o[0] is its only block */
	expect_blocks(page, first, 1);
	kmem_cache_free(a, o[2]);
	expect_blocks(page, two, 2);
	kmem_cache_free(a, o[1]);	/* joins the blocks before and after it */
	expect_blocks(page, merged, 1);
	expect_raw(page, 0, 1536, 2048);

	before = free_pages_now();
	kmem_cache_free(a, o[3]);
	ck_assert_uint_eq(free_pages_now(), before + 1);
	ck_assert_int_eq(uslab_slob_page_info(page, NULL, NULL, 0), -EINVAL);
}
END_TEST

START_TEST(test_coalesce_lower_address_first)
{
	struct kmem_cache *a = cache("slob-1024", 1024);
	void *o[4], *page;
	struct uslab_slob_block front[] = { { 0, 1024, 2048 } };
	int i;

	for (i = 0; i < 4; i++)
		o[i] = kmem_cache_alloc(a, GFP_KERNEL);
	page = page_of(o[0]);
	fresh_page(o[0], 2048);
	ck_assert_int_eq(uslab_slob_page_info(page, NULL, NULL, 0), 0);
	kmem_cache_free(a, o[1]);	/* the page was full: o[1] is its only block */
	kmem_cache_free(a, o[0]);	/* before the first free block, merging with it */
	expect_blocks(page, front, 1);
	kmem_cache_free(a, o[3]);
	kmem_cache_free(a, o[2]);
}
END_TEST

/* ---- the three lists ---- */

static int list_of(const void *p)
{
	struct page_view v;

	view(p, &v);
	return v.pi.list;
}

START_TEST(test_lists_by_kmalloc_size)
{
	/* the list is chosen by the block size: request + 8 header bytes */
	static const struct { size_t size; int list; } cases[] = {
		{ 1, USLAB_SLOB_SMALL }, { 247, USLAB_SLOB_SMALL },
		{ 248, USLAB_SLOB_MEDIUM }, { 1015, USLAB_SLOB_MEDIUM },
		{ 1016, USLAB_SLOB_LARGE }, { 3000, USLAB_SLOB_LARGE },
	};
	void *p[ARRAY_SIZE(cases)];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		p[i] = kmalloc(cases[i].size, GFP_KERNEL);
		ck_assert_msg(list_of(p[i]) == cases[i].list, "kmalloc(%zu): list %d, want %d",
			      cases[i].size, list_of(p[i]), cases[i].list);
	}
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		kfree(p[i]);
}
END_TEST

START_TEST(test_lists_by_cache_size)
{
	static const struct { unsigned int size; int list; } cases[] = {
		{ 255, USLAB_SLOB_SMALL }, { 256, USLAB_SLOB_MEDIUM },
		{ 1023, USLAB_SLOB_MEDIUM }, { 1024, USLAB_SLOB_LARGE },
	};
	struct kmem_cache *s;
	size_t i;
	void *p;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		s = cache("slob-list", cases[i].size);
		p = kmem_cache_alloc(s, GFP_KERNEL);
		ck_assert_msg(list_of(p) == cases[i].list, "cache of %u: list %d, want %d",
			      cases[i].size, list_of(p), cases[i].list);
		kmem_cache_free(s, p);
		kmem_cache_destroy(s);
	}
}
END_TEST

START_TEST(test_full_page_leaves_and_rejoins_its_list)
{
	struct kmem_cache *m = cache("slob-512", 512);	/* 256 units: 8 fill a page */
	struct uslab_slob_block only[] = { { 768, 256, 2048 } };
	void *o[8];
	struct page_view v;
	int i;

	for (i = 0; i < 8; i++)
		o[i] = kmem_cache_alloc(m, GFP_KERNEL);
	fresh_page(o[0], 2048);
	ck_assert_ptr_eq(page_of(o[7]), page_of(o[0]));
	view(o[0], &v);
	ck_assert_int_eq(v.pi.list, USLAB_SLOB_UNLISTED);
	ck_assert_uint_eq(v.pi.free_blocks, 0);

	kmem_cache_free(m, o[3]);	/* full -> listed again, at the head of "medium" */
	view(o[0], &v);
	ck_assert_int_eq(v.pi.list, USLAB_SLOB_MEDIUM);
	ck_assert_uint_eq(v.pi.position, 0);
	expect_blocks(o[0], only, 1);
	for (i = 0; i < 8; i++)
		if (i != 3)
			kmem_cache_free(m, o[i]);
}
END_TEST

/* ---- next fit across pages ---- */

static void expect_list(int list, void *first, void *second)
{
	void *pages[4];
	int n = uslab_slob_list_pages(list, pages, 4);

	ck_assert_int_eq(n, 2);
	ck_assert_ptr_eq(pages[0], first);
	ck_assert_ptr_eq(pages[1], second);
}

START_TEST(test_next_fit_rotation)
{
	struct kmem_cache *m = cache("slob-600", 600);	/* 300 units: 6 per page, 248 left */
	void *o[12], *p1, *p2, *x, *y;
	int i;

	for (i = 0; i < 12; i++)
		o[i] = kmem_cache_alloc(m, GFP_KERNEL);
	p1 = page_of(o[0]);
	p2 = page_of(o[6]);
	ck_assert_ptr_eq(page_of(o[5]), p1);
	ck_assert_ptr_ne(p2, p1);
	ck_assert_ptr_eq(page_of(o[11]), p2);
	expect_list(USLAB_SLOB_MEDIUM, p2, p1);		/* new pages go to the head */

	kmem_cache_free(m, o[0]);
	expect_list(USLAB_SLOB_MEDIUM, p2, p1);		/* a free does not reorder */

	/* p2 has 248 units, too few: found in p1, which the next search starts at */
	x = kmem_cache_alloc(m, GFP_KERNEL);
	ck_assert_ptr_eq(x, o[0]);
	expect_list(USLAB_SLOB_MEDIUM, p1, p2);

	/* both pages have room now; the search starts at p1 */
	kmem_cache_free(m, o[7]);
	kmem_cache_free(m, o[1]);
	y = kmem_cache_alloc(m, GFP_KERNEL);
	ck_assert_ptr_eq(y, o[1]);
	expect_list(USLAB_SLOB_MEDIUM, p1, p2);

	for (i = 0; i < 12; i++)
		if (i != 7)
			kmem_cache_free(m, o[i]);
}
END_TEST

/* ---- kmalloc ---- */

START_TEST(test_kmalloc_header_and_ksize)
{
	static const size_t sizes[] = { 1, 7, 8, 100, 101, 1000, 4087 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		unsigned char *p = kmalloc(sizes[i], GFP_KERNEL);

		ck_assert_ptr_nonnull(p);
		ck_assert_uint_eq((uintptr_t)p % 8, 0);
		ck_assert_uint_eq(header_word(p, 0), sizes[i]);	/* the 5.17 size header */
		ck_assert_uint_eq(header_word(p, 1), ~(unsigned int)sizes[i]);
		ck_assert_uint_eq(ksize(p), (sizes[i] + 1) / 2 * 2);	/* whole units */
		memset(p, 0xa5, ksize(p));
		ck_assert_uint_eq(header_word(p, 0), sizes[i]);
		kfree(p);
	}
	ck_assert_ptr_eq(kmalloc(0, GFP_KERNEL), ZERO_SIZE_PTR);
	ck_assert_uint_eq(ksize(ZERO_SIZE_PTR), 0);
	kfree(ZERO_SIZE_PTR);
}
END_TEST

START_TEST(test_kmalloc_power_of_two_alignment)
{
	size_t size;

	for (size = 8; size <= 2048; size *= 2) {
		void *p = kmalloc(size, GFP_KERNEL), *q = kmalloc(size, GFP_KERNEL);

		ck_assert_msg((uintptr_t)p % size == 0, "kmalloc(%zu) = %p", size, p);
		ck_assert_msg((uintptr_t)q % size == 0, "kmalloc(%zu) = %p", size, q);
		kfree(p);
		kfree(q);
	}
}
END_TEST

START_TEST(test_kmalloc_alignment_head_fragment)
{
	/* 1024 + 8 = 516 units whose object must be 1024-aligned: on a fresh
	 * page the block starts at unit 508, leaving a free head of 508 units */
	char *p = kmalloc(1024, GFP_KERNEL);
	struct uslab_slob_block want[] = { { 0, 508, 1024 }, { 1024, 1024, 2048 } };

	fresh_page(p, 516);
	ck_assert_ptr_eq(p, (char *)page_of(p) + 1024);
	expect_blocks(p, want, 2);
	kfree(p);
}
END_TEST

START_TEST(test_kmalloc_zeroed)
{
	unsigned char *p = kmalloc(300, GFP_KERNEL);
	size_t i;

	memset(p, 0xff, 300);
	kfree(p);
	p = kzalloc(300, GFP_KERNEL);
	ck_assert_ptr_nonnull(p);
	for (i = 0; i < 300; i++)
		ck_assert_uint_eq(p[i], 0);
	ck_assert_uint_eq(header_word(p, 0), 300);
	kfree(p);
}
END_TEST

START_TEST(test_large_kmalloc_through_pages)
{
	static const struct { size_t size; unsigned int order; } cases[] = {
		{ 4088, 0 }, { 4096, 0 }, { 5000, 1 }, { 10000, 2 }, { 65536, 4 },
	};
	size_t i;

	free(malloc(1));
	kfree(kmalloc(16, GFP_KERNEL));		/* warm up: a section is online */
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned long before = free_pages_now();
		void *p = kmalloc(cases[i].size, GFP_KERNEL);

		ck_assert_ptr_nonnull(p);
		ck_assert_ptr_eq(p, page_of(p));
		ck_assert_int_eq(uslab_slob_page_info(p, NULL, NULL, 0), -EINVAL);
		ck_assert_uint_eq(uslab_folio_order(uslab_virt_to_folio(p)), cases[i].order);
		ck_assert_uint_eq(ksize(p), 4096UL << cases[i].order);
		ck_assert_uint_eq(free_pages_now(), before - (1UL << cases[i].order));
		memset(p, 1, cases[i].size);
		kfree(p);
		ck_assert_uint_eq(free_pages_now(), before);
	}
}
END_TEST

/* ---- caches ---- */

static int ctor_calls;

static void ctor(void *obj)
{
	ctor_calls++;
	memset(obj, 0x5c, 48);
}

START_TEST(test_ctor_on_every_allocation)
{
	struct kmem_cache *s = kmem_cache_create("slob-ctor", 48, 0, 0, ctor);
	unsigned char *p;
	int i;

	ck_assert_ptr_nonnull(s);
	for (i = 1; i <= 3; i++) {
		p = kmem_cache_alloc(s, GFP_KERNEL);
		ck_assert_int_eq(ctor_calls, i);	/* SLUB/SLAB: once per slot */
		ck_assert_uint_eq(p[0], 0x5c);
		ck_assert_uint_eq(p[47], 0x5c);
		memset(p, 0, 48);
		kmem_cache_free(s, p);
	}
	kmem_cache_destroy(s);
}
END_TEST

START_TEST(test_page_sized_cache_objects)
{
	struct kmem_cache *s = kmem_cache_create("slob-big", 6000, 0, 0, ctor);
	unsigned long before;
	void *p;

	ck_assert_ptr_nonnull(s);
	kfree(kmalloc(5000, GFP_KERNEL));	/* warm up */
	before = free_pages_now();
	p = kmem_cache_alloc(s, GFP_KERNEL);
	ck_assert_ptr_eq(p, page_of(p));
	ck_assert_uint_eq(uslab_folio_order(uslab_virt_to_folio(p)), 1);
	ck_assert_uint_eq(free_pages_now(), before - 2);
	kmem_cache_free(s, p);
	ck_assert_uint_eq(free_pages_now(), before);
	kmem_cache_destroy(s);
}
END_TEST

START_TEST(test_cache_alignment)
{
	struct kmem_cache *s = kmem_cache_create("slob-al", 40, 256, 0, NULL);
	void *p[10];
	int i;

	ck_assert_ptr_nonnull(s);
	for (i = 0; i < 10; i++) {
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		ck_assert_uint_eq((uintptr_t)p[i] % 256, 0);
	}
	for (i = 0; i < 10; i++)
		kmem_cache_free(s, p[i]);
	/* an alignment no order-0 page can give a small object is refused */
	ck_assert_ptr_null(kmem_cache_create("slob-al2", 40, 8192, 0, NULL));
	ck_assert_ptr_null(kmem_cache_create("slob-al3", 40, 24, 0, NULL));
	kmem_cache_destroy(s);
}
END_TEST

/* ---- slabinfo and the SLOB report ---- */

static char *capture(void (*show)(FILE *))
{
	static char buf[1 << 16];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	ck_assert_ptr_nonnull(f);
	show(f);
	fclose(f);
	return buf;
}

static const char *row_of(const char *text, const char *name)
{
	char key[64];
	const char *r;

	snprintf(key, sizeof(key), "\n%s ", name);
	r = strstr(text, key);
	ck_assert_msg(r != NULL, "no row for %s in:\n%s", name, text);
	return r + 1;
}

START_TEST(test_slabinfo_rows)
{
	struct kmem_cache *s = kmem_cache_create("slobinfo-40", 40, 0, 0, NULL);
	struct kmem_cache *r = kmem_cache_create("slobinfo-rcu", 100, 0,
						 SLAB_TYPESAFE_BY_RCU, NULL);
	char name[32];
	unsigned long active, num, allocs, frees, high;
	unsigned int objsize, perslab, pages;
	void *p[3];
	int i;

	for (i = 0; i < 3; i++)
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
	kmem_cache_free(s, p[1]);
	ck_assert_int_eq(sscanf(row_of(capture(uslab_show_slabinfo), "slobinfo-40"),
				"%31s %lu %lu %u %u %u : tunables %*u %*u %*u : slabdata %*u %*u %*u"
				" : slobstat %lu %lu %lu", name, &active, &num, &objsize, &perslab,
				&pages, &allocs, &frees, &high), 9);
	ck_assert_uint_eq(active, 2);
	ck_assert_uint_eq(num, 2);
	ck_assert_uint_eq(objsize, 40);
	ck_assert_uint_eq(perslab, 2048 / 20);
	ck_assert_uint_eq(pages, 1);
	ck_assert_uint_eq(allocs, 3);
	ck_assert_uint_eq(frees, 1);
	ck_assert_uint_eq(high, 3);

	/* the RCU footer (struct slob_rcu, 24 bytes, 8-aligned) is part of the slot */
	ck_assert_int_eq(sscanf(row_of(capture(uslab_show_slabinfo), "slobinfo-rcu"),
				"%31s %lu %lu %u", name, &active, &num, &objsize), 4);
	ck_assert_uint_eq(objsize, 104 + 24);
	ck_assert_uint_eq(kmem_cache_size(r), 100);
	kmem_cache_free(r, kmem_cache_alloc(r, GFP_KERNEL));
	kmem_cache_free(s, p[0]);
	kmem_cache_free(s, p[2]);
	kmem_cache_destroy(s);
	kmem_cache_destroy(r);
}
END_TEST

START_TEST(test_destroy_with_live_objects_is_refused)
{
	struct kmem_cache *s = kmem_cache_create("slob-busy", 64, 0, 0, NULL);
	void *p = kmem_cache_alloc(s, GFP_KERNEL);

	ck_assert_int_eq(kmem_cache_shrink(s), 1);
	kmem_cache_destroy(s);		/* warns: still has objects; s stays usable */
	ck_assert_ptr_nonnull(strstr(capture(uslab_show_slabinfo), "\nslob-busy "));
	kmem_cache_free(s, p);
	ck_assert_int_eq(kmem_cache_shrink(s), 0);
	kmem_cache_destroy(s);
	ck_assert_ptr_null(strstr(capture(uslab_show_slabinfo), "\nslob-busy "));
}
END_TEST

START_TEST(test_slob_info)
{
	struct kmem_cache *s = kmem_cache_create("slobinfo-72", 72, 0, 0, NULL);
	struct uslab_slob_info info;
	unsigned long active, allocs, frees, high, units, listed = 0;
	unsigned int objsize;
	const char *text;
	void *k = kmalloc(700, GFP_KERNEL), *o = kmem_cache_alloc(s, GFP_KERNEL);
	char name[32];
	int i;

	uslab_slob_get_info(&info);
	for (i = 0; i < USLAB_SLOB_NR_LISTS; i++)
		listed += info.list[i].pages;
	ck_assert_uint_eq(info.pages, listed + info.full_pages);
	ck_assert_uint_ge(info.list[USLAB_SLOB_MEDIUM].pages, 1);
	ck_assert_uint_ge(info.list[USLAB_SLOB_SMALL].pages, 1);
	ck_assert_uint_ge(info.kmalloc_allocs - info.kmalloc_frees, 1);	/* k */
	ck_assert_uint_ge(info.kmalloc_high, info.kmalloc_allocs - info.kmalloc_frees);

	text = capture(uslab_slob_show_info);
	ck_assert_msg(strncmp(text, "slobinfo - version: 1.0\n", 24) == 0, "%s", text);
	ck_assert_int_eq(sscanf(row_of(text, "slobinfo-72"), "%31s %lu %u %lu %lu %lu %lu",
				name, &active, &objsize, &units, &allocs, &frees, &high), 7);
	ck_assert_uint_eq(active, 1);
	ck_assert_uint_eq(objsize, 72);
	ck_assert_uint_eq(units, 36);
	ck_assert_int_eq(sscanf(row_of(text, "medium"), "%31s %lu %lu", name, &active, &units), 3);
	ck_assert_uint_eq(active, info.list[USLAB_SLOB_MEDIUM].pages);
	ck_assert_uint_eq(units, info.list[USLAB_SLOB_MEDIUM].free_units);
	ck_assert_ptr_nonnull(strstr(text, "\nkmalloc "));
	kfree(k);
	kmem_cache_free(s, o);
	kmem_cache_destroy(s);
}
END_TEST

static Suite *slob_suite(void)
{
	Suite *s = suite_create("slob");
	TCase *enc = tcase_create("encoding"), *lists = tcase_create("lists");
	TCase *km = tcase_create("kmalloc"), *caches = tcase_create("caches");

	tcase_add_test(enc, test_encoding_fresh_page);
	tcase_add_test(enc, test_encoding_fragments_and_one_unit_block);
	tcase_add_test(enc, test_encoding_one_unit_last_block);
	tcase_add_test(enc, test_coalesce_both_neighbours);
	tcase_add_test(enc, test_coalesce_lower_address_first);
	tcase_add_test(lists, test_lists_by_kmalloc_size);
	tcase_add_test(lists, test_lists_by_cache_size);
	tcase_add_test(lists, test_full_page_leaves_and_rejoins_its_list);
	tcase_add_test(lists, test_next_fit_rotation);
	tcase_add_test(km, test_kmalloc_header_and_ksize);
	tcase_add_test(km, test_kmalloc_power_of_two_alignment);
	tcase_add_test(km, test_kmalloc_alignment_head_fragment);
	tcase_add_test(km, test_kmalloc_zeroed);
	tcase_add_test(km, test_large_kmalloc_through_pages);
	tcase_add_test(caches, test_ctor_on_every_allocation);
	tcase_add_test(caches, test_page_sized_cache_objects);
	tcase_add_test(caches, test_cache_alignment);
	tcase_add_test(caches, test_slabinfo_rows);
	tcase_add_test(caches, test_destroy_with_live_objects_is_refused);
	tcase_add_test(caches, test_slob_info);
	suite_add_tcase(s, enc);
	suite_add_tcase(s, lists);
	suite_add_tcase(s, km);
	suite_add_tcase(s, caches);
	return s;
}

int main(void)
{
	const char *fork_mode = getenv("CK_FORK");

	if (!CONFIG_SLOB || !uslab_slob_page_info)
		uslab_test_skip("SLOB's block encoding, lists and kmalloc header");
	if (fork_mode && strcmp(fork_mode, "no") == 0)
		uslab_test_skip("these tests need a fresh process each (CK_FORK=no given)");
	return uslab_test_run(slob_suite());
}
