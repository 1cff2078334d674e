/* SPDX-License-Identifier: MIT */
/*
 * kmalloc_caches.c - which cache kmalloc takes, for every size it serves
 * from a cache and every kind of flags: kmalloc_size_index[] agrees with
 * the 5.17 ladder (kmalloc_index()) for each of its sizes; __kmalloc(size,
 * flags) hands out an object of kmalloc_slab(size, flags), the cache of
 * kmalloc_type(flags)'s row (kmalloc-<n>, kmalloc-cg-<n>, kmalloc-rcl-<n>),
 * with plain, __GFP_ZERO, GFP_KERNEL_ACCOUNT and __GFP_RECLAIMABLE flags,
 * through the fast path (a warm cpu slab) and the slow one (a cold one);
 * __GFP_ZERO zeroes what a dirty object held; an accounted object is
 * charged to the active group, exactly, and uncharged by kfree.
 *
 * Allocator-neutral: SLOB has no kmalloc caches (kmalloc_slab() is NULL
 * there, and its kmalloc charges nothing), so there only the sizes,
 * zeroing and the zero usage are checked.
 */
#include "common/test.h"

#include <stdlib.h>
#include "mm/slab.h"
#include "mm/memcontrol.h"

/* Does this build have kmalloc caches (and charge their objects)? */
static bool has_caches(void)
{
	return !CONFIG_SLOB;
}

/* A size the compiler cannot see. */
static size_t runtime(size_t n)
{
	volatile size_t v = n;

	return v;
}

/* The cache the object at p belongs to (NULL under SLOB). */
static struct kmem_cache *cache_of(const void *p)
{
	struct slab *slab = virt_to_slab(p);

	ck_assert_ptr_nonnull(slab);
	return slab_owner_cache(slab);
}

START_TEST(test_size_index_is_the_ladder)
{
	size_t size;

	for (size = 1; size <= KMALLOC_SIZE_INDEX_MAX; size++)
		ck_assert_msg(kmalloc_cache_index(size) == (unsigned int)kmalloc_index(size),
			      "size %zu: table %u, ladder %d", size, kmalloc_cache_index(size),
			      kmalloc_index(size));
	setup_kmalloc_cache_index_table();	/* the init-time check agrees (no panic) */
}
END_TEST

/* The sizes checked: every one of kmalloc_size_index[] (and of the
 * caches: SLAB's go on to 32 MiB), then each power of two past it, +-1. */
static size_t next_size(size_t size)
{
	if (size < KMALLOC_SIZE_INDEX_MAX)
		return size + 1;
	if (is_power_of_2(size))
		return size + 1;
	if (is_power_of_2(size + 1))
		return size + 1;
	return roundup_pow_of_two(size) - 1;
}

/* Every size of the caches, with flags: the object comes from
 * kmalloc_slab(size, flags), holds size bytes, is zeroed if asked. */
static void check_every_size(gfp_t flags)
{
	unsigned char *p, *q;
	size_t size;

	for (size = 1; size <= KMALLOC_MAX_CACHE_SIZE; size = next_size(size)) {
		p = __kmalloc(runtime(size), flags);
		ck_assert_msg(p != NULL && p != ZERO_SIZE_PTR, "kmalloc(%zu) failed", size);
		memset(p, 0xa5, size);
		if (has_caches()) {
			ck_assert_msg(cache_of(p) == kmalloc_slab(size, flags),
				      "kmalloc(%zu, %#x) from %s, not %s", size, flags,
				      cache_of(p)->name, kmalloc_slab(size, flags)->name);
			ck_assert_uint_ge(cache_of(p)->object_size, size);
		}
		kfree(p);
		/* the same slot again, dirty: __GFP_ZERO must clear it */
		q = __kmalloc(runtime(size), flags | __GFP_ZERO);
		ck_assert_ptr_nonnull(q);
		ck_assert_msg(q[0] == 0 && q[size - 1] == 0 && q[size / 2] == 0,
			      "kmalloc(%zu, %#x | __GFP_ZERO) not zeroed", size, flags);
		kfree(q);
	}
}

START_TEST(test_plain_sizes)
{
	check_every_size(GFP_KERNEL);
}
END_TEST

START_TEST(test_reclaimable_sizes)
{
	check_every_size(GFP_KERNEL | __GFP_RECLAIMABLE);
}
END_TEST

START_TEST(test_accounted_sizes)
{
	struct mem_cgroup *g = mem_cgroup_create("kmalloc_caches", USLAB_MEM_CGROUP_NO_LIMIT);

	ck_assert_ptr_nonnull(g);
	set_active_memcg(g);
	check_every_size(GFP_KERNEL_ACCOUNT);
	ck_assert_uint_eq(mem_cgroup_usage(g), 0);
	set_active_memcg(NULL);
	ck_assert_int_eq(mem_cgroup_destroy(g), 0);
}
END_TEST

/*
 * Charges through the fast path: a batch of each size, charged to the
 * group exactly (the slot plus its vector entry each), uncharged by kfree;
 * twice, so the second batch pops from warm cpu slabs whose vectors the
 * first one attached.
 */
START_TEST(test_accounted_charges_exactly)
{
	static const size_t sizes[] = { 8, 16, 64, 96, 100, 192, 256, 1000, 4096, 8192 };
	struct mem_cgroup *g = mem_cgroup_create("kmalloc_charges", USLAB_MEM_CGROUP_NO_LIMIT);
	void *p[32];
	unsigned int i, k, round;
	unsigned long each;

	ck_assert_ptr_nonnull(g);
	set_active_memcg(g);
	for (round = 0; round < 2; round++) {
		for (k = 0; k < ARRAY_SIZE(sizes); k++) {
			for (i = 0; i < ARRAY_SIZE(p); i++)
				ck_assert_ptr_nonnull(p[i] = __kmalloc(runtime(sizes[k]),
								       GFP_KERNEL_ACCOUNT));
			each = has_caches() ? cache_of(p[0])->size + sizeof(void *) : 0;
			ck_assert_uint_eq(mem_cgroup_usage(g), ARRAY_SIZE(p) * each);
			for (i = 0; has_caches() && i < ARRAY_SIZE(p); i++)
				ck_assert_ptr_eq(mem_cgroup_from_obj(p[i]), g);
			for (i = 0; i < ARRAY_SIZE(p); i++)
				kfree(p[i]);
			ck_assert_uint_eq(mem_cgroup_usage(g), 0);
		}
	}
	set_active_memcg(NULL);
	ck_assert_int_eq(mem_cgroup_destroy(g), 0);
}
END_TEST

/* Sizes 0, past the largest cache, and kfree of NULL and ZERO_SIZE_PTR
 * (which kfree sends out by its range test alone). */
START_TEST(test_edges)
{
	void *p;

	ck_assert_ptr_eq(__kmalloc(runtime(0), GFP_KERNEL), ZERO_SIZE_PTR);
	ck_assert_ptr_eq(__kmalloc(runtime(0), GFP_KERNEL_ACCOUNT), ZERO_SIZE_PTR);
	kfree(NULL);
	kfree(ZERO_SIZE_PTR);
	if (CONFIG_SLUB) {	/* SLAB refuses the size; SLOB's limit is elsewhere */
		p = __kmalloc(runtime(KMALLOC_MAX_CACHE_SIZE + 1), GFP_KERNEL | __GFP_ZERO);
		ck_assert_ptr_nonnull(p);
		ck_assert_ptr_null(virt_to_slab(p));	/* a large kmalloc, no slab object */
		ck_assert_uint_eq(((unsigned char *)p)[KMALLOC_MAX_CACHE_SIZE], 0);
		kfree(p);
	}
	p = __kmalloc_node(runtime(100), GFP_KERNEL_ACCOUNT | __GFP_ZERO, 0);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(((unsigned char *)p)[99], 0);
	kfree(p);
}
END_TEST

static Suite *kmalloc_caches_suite(void)
{
	Suite *s = suite_create("kmalloc_caches");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_size_index_is_the_ladder);
	tcase_add_test(tc, test_plain_sizes);
	tcase_add_test(tc, test_reclaimable_sizes);
	tcase_add_test(tc, test_accounted_sizes);
	tcase_add_test(tc, test_accounted_charges_exactly);
	tcase_add_test(tc, test_edges);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(kmalloc_caches_suite)
