/* SPDX-License-Identifier: MIT */
/* uslab-test: threaded */
/*
 * slub_sheaf.c - SLUB's per-CPU sheaf (slub.c §10): a free of an object
 * that is not of the cpu slab stays with the freeing CPU (the object stays
 * in use for its slab) and is the next object the slow path hands out; a
 * full sheaf gives its older half back to the slabs; kmem_cache_shrink and
 * a thread's exit give it all back; a double free while the object is in
 * the sheaf is reported; slub_sheaf=0 and big objects size it as said.
 */
#include "common/test.h"

#include <pthread.h>
#include <stdlib.h>
#include "mm/slab.h"

#if CONFIG_SLUB

#define SLABS	3

static struct kmem_cache *test_cache(const char *name, unsigned int size)
{
	struct kmem_cache *s = kmem_cache_create(name, size, 0, SLAB_NOLEAKTRACE, NULL);

	ck_assert_ptr_nonnull(s);
	return s;
}

static unsigned int per_slab(const struct kmem_cache *s)
{
	return s->oo.x & 0xffff;
}

static unsigned long active_objs(struct kmem_cache *s)
{
	struct slabinfo si;

	memset(&si, 0, sizeof(si));
	get_slabinfo(s, &si);
	return si.active_objs;
}

/* Objects in use, as their slabs count them, in the SLABS slabs of objs
 * (one thread filled them slab after slab).  Unlike slabinfo's count it
 * also sees frees into slabs frozen on a CPU's partial chain. */
static unsigned int slabs_inuse(struct kmem_cache *s, void **objs)
{
	unsigned int k, sum = 0;

	for (k = 0; k < SLABS; k++)
		sum += READ_ONCE(virt_to_slab(objs[k * per_slab(s)])->counters) & 0xffff;
	return sum;
}

/* SLABS whole slabs allocated, the cpu freelist left empty: the next
 * allocation takes the slow path. */
static void **fill_slabs(struct kmem_cache *s)
{
	unsigned int i, n = SLABS * per_slab(s);
	void **objs = calloc(n, sizeof(*objs));

	ck_assert_ptr_nonnull(objs);
	for (i = 0; i < n; i++)
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
	ck_assert_uint_eq(active_objs(s), n);
	return objs;
}

START_TEST(test_free_stays_in_sheaf_and_comes_back_first)
{
	struct kmem_cache *s = test_cache("sheaf-lifo", 256);
	void **objs = fill_slabs(s);
	unsigned int n = SLABS * per_slab(s);
	struct slab *slab = virt_to_slab(objs[0]);
	unsigned int inuse = slab->inuse;

	ck_assert_uint_ge(s->sheaf_capacity, 2);
	kmem_cache_free(s, objs[0]);		/* slab 0: not the cpu slab */
	kmem_cache_free(s, objs[1]);
	ck_assert_uint_eq(active_objs(s), n);	/* still in use for their slab */
	ck_assert_uint_eq(slab->inuse, inuse);
	ck_assert(!slab->frozen);		/* not frozen onto a partial chain */
	ck_assert_ptr_eq(kmem_cache_alloc(s, GFP_KERNEL), objs[1]);
	ck_assert_ptr_eq(kmem_cache_alloc(s, GFP_KERNEL), objs[0]);
	for (unsigned int i = 0; i < n; i++)
		kmem_cache_free(s, objs[i]);
	kmem_cache_destroy(s);
	free(objs);
}
END_TEST

START_TEST(test_full_sheaf_gives_back_older_half)
{
	struct kmem_cache *s = test_cache("sheaf-half", 256);
	void **objs = fill_slabs(s);
	unsigned int n = SLABS * per_slab(s), cap = s->sheaf_capacity, i;

	ck_assert_uint_lt(cap, 2 * per_slab(s));	/* all frees below miss the cpu slab */
	for (i = 0; i < cap; i++)
		kmem_cache_free(s, objs[i]);
	ck_assert_uint_eq(slabs_inuse(s, objs), n);
	kmem_cache_free(s, objs[cap]);
	ck_assert_uint_eq(slabs_inuse(s, objs), n - (cap + 1) / 2);
	/* the newest stayed: they come back first, newest first */
	ck_assert_ptr_eq(kmem_cache_alloc(s, GFP_KERNEL), objs[cap]);
	ck_assert_ptr_eq(kmem_cache_alloc(s, GFP_KERNEL), objs[cap - 1]);
	kmem_cache_free(s, objs[cap]);
	kmem_cache_free(s, objs[cap - 1]);
	for (i = cap + 1; i < n; i++)
		kmem_cache_free(s, objs[i]);
	ck_assert_int_eq(kmem_cache_shrink(s), 0);
	ck_assert_uint_eq(active_objs(s), 0);
	kmem_cache_destroy(s);
	free(objs);
}
END_TEST

START_TEST(test_shrink_gives_sheaf_back)
{
	struct kmem_cache *s = test_cache("sheaf-shrink", 256);
	void **objs = fill_slabs(s);
	unsigned int n = SLABS * per_slab(s), i;
	struct slabinfo si;

	for (i = 0; i < per_slab(s); i++)	/* all of slab 0 */
		kmem_cache_free(s, objs[i]);
	ck_assert_int_eq(kmem_cache_shrink(s), 1);	/* slabs 1 and 2 remain */
	ck_assert_uint_eq(active_objs(s), n - per_slab(s));
	memset(&si, 0, sizeof(si));
	get_slabinfo(s, &si);
	ck_assert_uint_eq(si.num_slabs, SLABS - 1);	/* the emptied slab went back */
	for (; i < n; i++)
		kmem_cache_free(s, objs[i]);
	kmem_cache_destroy(s);
	free(objs);
}
END_TEST

struct remote_free {
	struct kmem_cache *s;
	void **objs;
	unsigned int n;
};

static void *free_them(void *arg)
{
	struct remote_free *r = arg;

	for (unsigned int i = 0; i < r->n; i++)
		kmem_cache_free(r->s, r->objs[i]);
	return NULL;
}

START_TEST(test_thread_exit_gives_sheaf_back)
{
	struct kmem_cache *s = test_cache("sheaf-exit", 256);
	void **objs = fill_slabs(s);
	unsigned int n = SLABS * per_slab(s);
	struct remote_free r = { s, objs, 4 };
	pthread_t t;

	ck_assert_uint_le(4, s->sheaf_capacity);
	ck_assert_int_eq(pthread_create(&t, NULL, free_them, &r), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_uint_eq(slabs_inuse(s, objs), n - 4);	/* its sheaf went back at exit */
	r.objs += 4;
	r.n = n - 4;
	free_them(&r);
	kmem_cache_destroy(s);
	free(objs);
}
END_TEST

static void free_twice_on_top(void *arg)
{
	struct kmem_cache *s = test_cache("sheaf-df", 256);
	void **objs = fill_slabs(s);

	(void)arg;
	kmem_cache_free(s, objs[0]);
	kmem_cache_free(s, objs[0]);
}

/* objs[0] twice with another object between: found when given back. */
static void free_twice_deep(void *arg)
{
	struct kmem_cache *s = test_cache("sheaf-df", 256);
	void **objs = fill_slabs(s);

	(void)arg;
	kmem_cache_free(s, objs[0]);
	kmem_cache_free(s, objs[1]);
	kmem_cache_free(s, objs[0]);
	kmem_cache_shrink(s);
}

START_TEST(test_double_free_in_sheaf_reported)
{
	const char *words = "BUG sheaf-df (Not tainted): Object already free";

	ck_assert_aborts_with(free_twice_on_top, NULL, words);
	ck_assert_aborts_with(free_twice_deep, NULL, words);
}
END_TEST

START_TEST(test_capacity)
{
	struct kmem_cache *big = test_cache("sheaf-big", 8192), *s;

	ck_assert_uint_eq(big->sheaf_capacity, 4);	/* SLUB_SHEAF_BYTES / 8 KiB */
	ck_assert_int_eq(parse_option_string("slub_sheaf=0"), 0);
	s = test_cache("sheaf-off", 256);
	ck_assert_uint_eq(s->sheaf_capacity, 0);
	ck_assert_int_eq(parse_option_string("slub_sheaf=40"), 1);	/* above SLUB_SHEAF_MAX */
	kmem_cache_destroy(s);
	kmem_cache_destroy(big);
}
END_TEST

/* Without a sheaf, a free that misses the cpu slab reaches the slab at once. */
START_TEST(test_off_frees_reach_the_slab)
{
	struct kmem_cache *s;
	void **objs;
	unsigned int n;

	ck_assert_int_eq(parse_option_string("slub_sheaf=0"), 0);
	s = test_cache("sheaf-none", 256);
	objs = fill_slabs(s);
	n = SLABS * per_slab(s);
	kmem_cache_free(s, objs[0]);
	ck_assert_uint_eq(slabs_inuse(s, objs), n - 1);
	for (unsigned int i = 1; i < n; i++)
		kmem_cache_free(s, objs[i]);
	kmem_cache_destroy(s);
	free(objs);
}
END_TEST

static Suite *suite(void)
{
	Suite *su = suite_create("slub_sheaf");
	TCase *tc = tcase_create("sheaf");

	tcase_add_test(tc, test_free_stays_in_sheaf_and_comes_back_first);
	tcase_add_test(tc, test_full_sheaf_gives_back_older_half);
	tcase_add_test(tc, test_shrink_gives_sheaf_back);
	tcase_add_test(tc, test_thread_exit_gives_sheaf_back);
	tcase_add_test(tc, test_double_free_in_sheaf_reported);
	tcase_add_test(tc, test_capacity);
	tcase_add_test(tc, test_off_frees_reach_the_slab);
	suite_add_tcase(su, tc);
	return su;
}

USLAB_TEST_MAIN(suite)

#else

int main(void)
{
	uslab_test_skip("SLUB's per-CPU sheaf");
}

#endif
