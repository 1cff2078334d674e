/* SPDX-License-Identifier: MIT */
/*
 * slub_churn.c - SLUB's churn rule (slub_cache.c, slub_churn_raise): a size
 * class (SLAB_KMALLOC) whose empty slabs go back to the page allocator past
 * min_partial, round after round, takes slabs of 64 KiB (its churn order)
 * from then on; its slabs of the old order go back as they empty, and every
 * object stays whole and handed out once.  A cache made for one type of
 * object churns the same way unless it has a constructor.  A class that
 * does not churn, a cache with a constructor and a debug cache keep their
 * order.
 */
#include "common/test.h"

#include <stdint.h>
#include "mm/internal.h"
#include "mm/slab.h"

#if CONFIG_SLUB

#define SIZE		64
#define CHURN_ORDER	4		/* 64 KiB slabs */
#define BATCH		2560		/* 40 slabs of the base order */
#define ROUNDS		40

static void *objs[BATCH];

static unsigned int cache_order(const struct kmem_cache *s)
{
	return READ_ONCE(s->oo.x) >> 16;
}

static unsigned int per_slab(const struct kmem_cache *s)
{
	return READ_ONCE(s->oo.x) & 0xffff;
}

static unsigned long pattern(const void *p)
{
	return (unsigned long)p * 0x9e3779b97f4a7c15UL;
}

/* Allocate n objects of s, each with its pattern (every word), then free
 * them in allocation order after checking it: no object handed out twice
 * (the pattern of the other copy would be overwritten), none corrupted. */
static void round_trip(struct kmem_cache *s, unsigned int n)
{
	unsigned int i, w;

	for (i = 0; i < n; i++) {
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
		ck_assert_ptr_nonnull(objs[i]);
		for (w = 0; w < SIZE / sizeof(long); w++)
			((unsigned long *)objs[i])[w] = pattern(objs[i]) + w;
	}
	for (i = 0; i < n; i++) {
		for (w = 0; w < SIZE / sizeof(long); w++)
			ck_assert_uint_eq(((unsigned long *)objs[i])[w], pattern(objs[i]) + w);
		kmem_cache_free(s, objs[i]);
	}
}

static struct kmem_cache *class_cache(const char *name, slab_flags_t flags)
{
	/* SLAB_NOLEAKTRACE keeps it from merging with a kmalloc cache */
	struct kmem_cache *s = kmem_cache_create_kmalloc(name, SIZE, 16, SLAB_NOLEAKTRACE | flags);

	ck_assert_ptr_nonnull(s);
	return s;
}

/* A class filled and emptied in waves rises to its churn order; then its
 * objects all come from slabs of that order. */
START_TEST(test_churning_class_rises)
{
	struct kmem_cache *s = class_cache("churn-class", 0);
	unsigned int base = cache_order(s), i, r;
	struct slabinfo si;

	ck_assert_uint_lt(base, CHURN_ORDER);
	for (r = 0; r < ROUNDS && cache_order(s) == base; r++)
		round_trip(s, BATCH);
	ck_assert_uint_lt(r, ROUNDS);
	ck_assert_uint_eq(cache_order(s), CHURN_ORDER);
	ck_assert_uint_eq(per_slab(s), (PAGE_SIZE << CHURN_ORDER) / SIZE);
	for (r = 0; r < 4; r++)			/* the old slabs empty and go */
		round_trip(s, BATCH);
	for (i = 0; i < BATCH; i++) {
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
		ck_assert_ptr_nonnull(objs[i]);
		ck_assert_uint_eq(slab_order(virt_to_slab(objs[i])), CHURN_ORDER);
	}
	memset(&si, 0, sizeof(si));
	get_slabinfo(s, &si);
	ck_assert_uint_eq(si.objects_per_slab, per_slab(s));
	ck_assert_uint_eq(si.cache_order, CHURN_ORDER);
	ck_assert_uint_ge(si.active_objs, BATCH);
	for (i = 0; i < BATCH; i++)
		kmem_cache_free(s, objs[i]);
	kmem_cache_shrink(s);
	memset(&si, 0, sizeof(si));
	get_slabinfo(s, &si);
	ck_assert_uint_eq(si.num_slabs, 0);
	kmem_cache_destroy(s);
}
END_TEST

/* A class that grows and stays, or empties once in a small wave, keeps its
 * order. */
START_TEST(test_steady_class_keeps_order)
{
	struct kmem_cache *s = class_cache("churn-steady", 0);
	unsigned int base = cache_order(s), r;

	for (r = 0; r < 3; r++)
		round_trip(s, 8 * per_slab(s));	/* a few slabs past min_partial */
	ck_assert_uint_eq(cache_order(s), base);
	kmem_cache_destroy(s);
}
END_TEST

static void churn_ctor(void *p)
{
	memset(p, 0, SIZE);
}

/* A cache made for one type of object churns as a class does, unless its
 * slabs are whole (a constructor: slub_cache.c, cache_ramps); a debug
 * cache never rises. */
START_TEST(test_type_cache_rises_ctor_and_debug_keep_order)
{
	struct kmem_cache *t = kmem_cache_create("churn-type", SIZE, 16, SLAB_NOLEAKTRACE, NULL);
	struct kmem_cache *c = kmem_cache_create("churn-ctor", SIZE, 16, SLAB_NOLEAKTRACE,
						 churn_ctor);
	struct kmem_cache *d = class_cache("churn-debug", SLAB_RED_ZONE | SLAB_POISON);
	unsigned int tbase, cbase, dbase, r;

	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_nonnull(c);
	tbase = cache_order(t);
	cbase = cache_order(c);
	dbase = cache_order(d);
	ck_assert_uint_lt(tbase, CHURN_ORDER);
	for (r = 0; r < ROUNDS; r++) {
		round_trip(t, BATCH);
		round_trip(c, BATCH);
		round_trip(d, BATCH / 4);
	}
	ck_assert_uint_eq(cache_order(t), CHURN_ORDER);
	ck_assert_uint_eq(cache_order(c), cbase);
	ck_assert_uint_eq(cache_order(d), dbase);
	kmem_cache_destroy(t);
	kmem_cache_destroy(c);
	kmem_cache_destroy(d);
}
END_TEST

static Suite *slub_churn_suite(void)
{
	Suite *s = suite_create("slub_churn");
	TCase *tc = tcase_create("churn");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_churning_class_rises);
	tcase_add_test(tc, test_steady_class_keeps_order);
	tcase_add_test(tc, test_type_cache_rises_ctor_and_debug_keep_order);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(slub_churn_suite)

#else

int main(void)
{
	uslab_test_skip("SLUB's churn rule for size classes");
}

#endif
