/* SPDX-License-Identifier: MIT */
/*
 * slub_kmalloc_ramp.c - SLUB's small first slabs of a size class (slub.c,
 * slab_objects_ramp): a SLAB_KMALLOC cache that holds few objects gets
 * slabs of its usual order with only their first pages cut into objects,
 * enough for twice what the cache has, until a slab would be half full or
 * more: then whole slabs.  The pages past the last object are never
 * written (so never resident), and no pointer into them is an object.  A
 * cache made for one type of object, a debug cache and a class of 16
 * objects a slab or fewer get whole slabs from the first.
 */
#include "common/test.h"

#include <stdlib.h>
#include <sys/mman.h>
#include "mm/internal.h"
#include "mm/slab.h"

#if CONFIG_SLUB

#define SIZE	1040	/* a class that merges with no kmalloc cache */
#define MAX_OBJS 4096

static unsigned int per_slab(const struct kmem_cache *s)
{
	return s->oo.x & 0xffff;
}

static unsigned int slab_order_of(const struct kmem_cache *s)
{
	return s->oo.x >> 16;
}

/* A size class of its own (SLAB_NOLEAKTRACE keeps it from merging). */
static struct kmem_cache *class_cache(const char *name, unsigned int size)
{
	struct kmem_cache *s = kmem_cache_create_kmalloc(name, size, 16, SLAB_NOLEAKTRACE);

	ck_assert_ptr_nonnull(s);
	return s;
}

static struct slab *slab_of(const void *p)
{
	struct slab *slab = virt_to_slab(p);

	ck_assert_ptr_nonnull(slab);
	return slab;
}

/* Objects are taken one by one; each new slab holds twice what the cache
 * had, in whole pages, until that would be half a slab or more. */
START_TEST(test_first_slabs_grow_to_whole)
{
	struct kmem_cache *s = class_cache("ramp-class", SIZE);
	static void *objs[MAX_OBJS];
	struct slab *last = NULL, *slab;
	unsigned long have = 0, want, pages;
	unsigned int i, whole = per_slab(s), slabs = 0, expect;

	ck_assert_uint_ge(whole, 17);
	for (i = 0; i < MAX_OBJS && (!last || last->objects < whole); i++) {
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
		ck_assert_ptr_nonnull(objs[i]);
		slab = slab_of(objs[i]);
		if (slab == last)
			continue;
		want = have ? 2 * have : 1;
		pages = DIV_ROUND_UP(want * s->size, PAGE_SIZE);
		expect = 2 * want >= whole ? whole : (unsigned int)(pages * PAGE_SIZE / s->size);
		ck_assert_msg(slab->objects == expect, "slab %u: %u objects, expected %u (had %lu)",
			      slabs, slab->objects, expect, have);
		ck_assert_uint_eq(folio_order(slab_folio(slab)), slab_order_of(s));
		have += slab->objects;
		last = slab;
		slabs++;
	}
	ck_assert_uint_ge(slabs, 3);	/* 3 objects, then 6, then 18, ...: a ramp */
	while (i--)
		kmem_cache_free(s, objs[i]);
	kmem_cache_destroy(s);
}
END_TEST

/* Past the last object nothing is written: those pages stay out of memory. */
START_TEST(test_tail_pages_never_touched)
{
	struct kmem_cache *s;
	unsigned char vec[64];
	struct slab *slab;
	char *start, *tail;
	size_t len;
	void *p;
	unsigned int i;

	/* why the flush: every free block then reads as zeros and is out of
	 * memory, so the new slab's pages are resident only if written */
	page_reporting_flush();
	s = class_cache("ramp-tail", SIZE);
	p = kmem_cache_alloc(s, GFP_KERNEL);
	ck_assert_ptr_nonnull(p);
	slab = slab_of(p);
	ck_assert_uint_lt(slab->objects, per_slab(s));
	start = slab_address(slab);
	tail = (char *)PAGE_ALIGN((unsigned long)start + slab->objects * s->size);
	len = (size_t)(start + slab_size(slab) - tail);
	ck_assert_uint_gt(len, 0);
	ck_assert_uint_le(len / PAGE_SIZE, sizeof(vec));
	ck_assert_int_eq(mincore(tail, len, vec), 0);
	for (i = 0; i < len / PAGE_SIZE; i++)
		ck_assert_msg(!(vec[i] & 1), "page %u past the last object is resident", i);
	kmem_cache_free(s, p);
	kmem_cache_destroy(s);
}
END_TEST

static void free_past_last_object(void *arg)
{
	struct kmem_cache *s = class_cache("ramp-bad", SIZE);
	void *p = kmem_cache_alloc(s, GFP_KERNEL);
	struct slab *slab = slab_of(p);

	(void)arg;
	kmem_cache_free(s, (char *)slab_address(slab) + slab->objects * s->size);
}

START_TEST(test_slot_past_last_object_is_no_object)
{
	ck_assert_aborts_with(free_past_last_object, NULL, "Invalid object pointer");
}
END_TEST

/* A cache for one type of object: whole slabs from the first. */
START_TEST(test_type_cache_whole)
{
	struct kmem_cache *s = kmem_cache_create("ramp-type", SIZE, 0, SLAB_NOLEAKTRACE, NULL);
	void *p;

	ck_assert_ptr_nonnull(s);
	p = kmem_cache_alloc(s, GFP_KERNEL);
	ck_assert_uint_eq(slab_of(p)->objects, per_slab(s));
	kmem_cache_free(s, p);
	kmem_cache_destroy(s);
}
END_TEST

/* 16 objects a slab or fewer (4 KiB): whole slabs, and so for a debug
 * cache, whose checks count whole slabs. */
START_TEST(test_big_class_and_debug_cache_whole)
{
	struct kmem_cache *big = class_cache("ramp-big", 4096);
	struct kmem_cache *dbg = kmem_cache_create_kmalloc("ramp-debug", SIZE, 16,
					SLAB_NOLEAKTRACE | SLAB_CONSISTENCY_CHECKS);
	void *p = kmem_cache_alloc(big, GFP_KERNEL), *q;

	ck_assert_uint_le(per_slab(big), 16);
	ck_assert_uint_eq(slab_of(p)->objects, per_slab(big));
	ck_assert_ptr_nonnull(dbg);
	q = kmem_cache_alloc(dbg, GFP_KERNEL);
	ck_assert_uint_eq(slab_of(q)->objects, per_slab(dbg));
	ck_assert_int_eq(kmem_cache_validate(dbg), 0);
	kmem_cache_free(big, p);
	kmem_cache_free(dbg, q);
	kmem_cache_destroy(big);
	kmem_cache_destroy(dbg);
}
END_TEST

/* slabinfo counts the objects the slabs have, and the pages they take. */
START_TEST(test_slabinfo_counts_small_slabs)
{
	struct kmem_cache *s = class_cache("ramp-info", SIZE);
	void *p = kmem_cache_alloc(s, GFP_KERNEL);
	struct slabinfo si;

	memset(&si, 0, sizeof(si));
	get_slabinfo(s, &si);
	ck_assert_uint_eq(si.num_slabs, 1);
	ck_assert_uint_eq(si.num_objs, slab_of(p)->objects);
	ck_assert_uint_lt(si.num_objs, per_slab(s));
	kmem_cache_free(s, p);
	kmem_cache_destroy(s);
}
END_TEST

static Suite *slub_kmalloc_ramp_suite(void)
{
	Suite *s = suite_create("slub_kmalloc_ramp");
	TCase *tc = tcase_create("ramp");

	tcase_add_test(tc, test_first_slabs_grow_to_whole);
	tcase_add_test(tc, test_tail_pages_never_touched);
	tcase_add_test(tc, test_slot_past_last_object_is_no_object);
	tcase_add_test(tc, test_type_cache_whole);
	tcase_add_test(tc, test_big_class_and_debug_cache_whole);
	tcase_add_test(tc, test_slabinfo_counts_small_slabs);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(slub_kmalloc_ramp_suite)

#else

int main(void)
{
	uslab_test_skip("SLUB's small first slabs of a size class");
}

#endif
