/* SPDX-License-Identifier: MIT */
/*
 * slub_order.c - SLUB's slab geometry: calculate_order() with the
 * slub_min_objects / slub_min_order / slub_max_order options, min_partial
 * and the per-CPU partial chain length, checked against the values the
 * 5.17 kernel gives (e.g. the slabinfo of a 4-CPU machine, min_objects 16:
 * kmalloc-96 42 objects/1 page, kmalloc-1k 16/4, kmalloc-4k 8/8, 8k 4/8).
 */
#include "common/test.h"

#include <stdio.h>
#include <unistd.h>
#include "mm/slab.h"

#if CONFIG_SLUB

/* A cache of exactly this object size that merges with nothing. */
static struct kmem_cache *fresh_cache(const char *name, unsigned int size)
{
	struct kmem_cache *s = kmem_cache_create(name, size, 0, SLAB_NOLEAKTRACE, NULL);

	ck_assert_ptr_nonnull(s);
	return s;
}

static void check_geometry(unsigned int size, unsigned int order, unsigned int objects)
{
	struct slabinfo si;
	char name[32];
	struct kmem_cache *s;

	snprintf(name, sizeof(name), "order-test-%u", size);
	s = fresh_cache(name, size);
	memset(&si, 0, sizeof(si));
	get_slabinfo(s, &si);
	ck_assert_msg(si.cache_order == order && si.objects_per_slab == objects,
		      "size %u: order %u objects %u, expected order %u objects %u",
		      size, si.cache_order, si.objects_per_slab, order, objects);
	kmem_cache_destroy(s);
}

static void set_options(const char *opts)
{
	ck_assert_int_eq(parse_option_string(opts), 0);
}

START_TEST(test_min_objects_16_kernel_values)
{
	set_options("slub_min_objects=16 slub_max_order=3");	/* the kernel's */
	check_geometry(8, 0, 512);
	check_geometry(64, 0, 64);
	check_geometry(96, 0, 42);
	check_geometry(192, 0, 21);
	check_geometry(256, 0, 16);
	check_geometry(512, 1, 16);
	check_geometry(700, 2, 23);	/* 704-byte slots: 192 bytes left of 16 KiB */
	check_geometry(1024, 2, 16);
	check_geometry(2048, 3, 16);
	check_geometry(3000, 3, 10);	/* 2768 bytes left: fits only at 1/8 */
	check_geometry(4096, 3, 8);	/* min_objects cut to what order 3 holds */
	check_geometry(8192, 3, 4);
	set_options("slub_min_objects=0 slub_max_order=4");
}
END_TEST

START_TEST(test_min_objects_4)
{
	set_options("slub_min_objects=4");
	check_geometry(1024, 0, 4);
	check_geometry(2048, 1, 4);
	check_geometry(96, 0, 42);
	set_options("slub_min_objects=0");
}
END_TEST

START_TEST(test_max_and_min_order)
{
	set_options("slub_min_objects=16 slub_max_order=1");
	check_geometry(4096, 1, 2);
	check_geometry(1024, 1, 8);
	check_geometry(16384, 2, 1);	/* past max order: the smallest order holding one */
	set_options("slub_max_order=3 slub_min_order=2");
	check_geometry(64, 2, 256);
	check_geometry(4096, 3, 8);
	set_options("slub_min_order=0 slub_min_objects=0 slub_max_order=4");
}
END_TEST

START_TEST(test_bad_option_values_rejected)
{
	ck_assert_int_eq(parse_option_string("slub_max_order=99"), 1);
	ck_assert_int_eq(parse_option_string("slub_min_order=x"), 1);
	ck_assert_int_eq(parse_option_string("slub_min_objects=40000"), 1);
	check_geometry(8192, 6, 32);	/* unchanged defaults still apply */
}
END_TEST

static void count_ctor(void *p)
{
	*(int *)p = 1;
}

/* 4 * (fls(nr_cpus) + 1) objects as 5.17 sizes slabs by default, but at
 * least 64 (uslab's floor, slub_cache.c), within slub_max_order 4, or 6
 * for a cache whose slabs ramp (no constructor, not RCU). */
START_TEST(test_auto_min_objects)
{
	struct kmem_cache *s = kmem_cache_create("order-ctor", 4096, 0, SLAB_NOLEAKTRACE,
						 count_ctor);
	struct slabinfo si;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int min_objects = 4 * ((unsigned int)fls((unsigned int)(cpus > 1 ? cpus : 1)) + 1);
	unsigned int order;

	min_objects = max(min_objects, 64U);
	order = min(get_order(min_objects * 256UL), 4U);
	check_geometry(256, order, (unsigned int)((PAGE_SIZE << order) / 256));
	check_geometry(64, 0, (unsigned int)(PAGE_SIZE / 64));
	check_geometry(1024, 4, 64);
	check_geometry(4096, 6, 64);	/* ramps: order 6 for 64 */
	check_geometry(8192, 6, 32);	/* order 6 holds 32 */
	/* whole slabs: 64 would need order 6, cut to 4; 4104-byte slots (a
	 * constructor's object keeps its contents: the free pointer after it) */
	ck_assert_ptr_nonnull(s);
	memset(&si, 0, sizeof(si));
	get_slabinfo(s, &si);
	ck_assert_uint_eq(si.cache_order, 4);
	ck_assert_uint_eq(si.objects_per_slab, 15);
	kmem_cache_destroy(s);
}
END_TEST

START_TEST(test_min_partial_and_cpu_partial)
{
	static const struct { unsigned int size; unsigned long min_partial; unsigned int cpu_partial; } t[] = {
		{ 16, 5, 120 },	/* ilog2(16)/2 = 2, clamped up to 5 */
		{ 256, 5, 52 },
		{ 1024, 5, 24 },
		{ 4096, 6, 6 },
		{ 1U << 20, 10, 6 },	/* ilog2 = 20: 10 */
		{ 1U << 22, 10, 6 },	/* 11, clamped down to 10 */
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct kmem_cache *s = fresh_cache("partial-test", t[i].size);
		unsigned int per_slab = s->oo.x & 0xffff;

		ck_assert_uint_eq(s->min_partial, t[i].min_partial);
		ck_assert_uint_eq(s->cpu_partial, t[i].cpu_partial);
		ck_assert_uint_eq(s->cpu_partial_slabs, DIV_ROUND_UP(2 * t[i].cpu_partial, per_slab));
		kmem_cache_destroy(s);
	}
}
END_TEST

static Suite *slub_order_suite(void)
{
	Suite *s = suite_create("slub_order");
	TCase *tc = tcase_create("geometry");

	tcase_add_test(tc, test_min_objects_16_kernel_values);
	tcase_add_test(tc, test_min_objects_4);
	tcase_add_test(tc, test_max_and_min_order);
	tcase_add_test(tc, test_bad_option_values_rejected);
	tcase_add_test(tc, test_auto_min_objects);
	tcase_add_test(tc, test_min_partial_and_cpu_partial);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(slub_order_suite)

#else

int main(void)
{
	uslab_test_skip("SLUB's slab order calculation");
}

#endif
