/* SPDX-License-Identifier: MIT */
/*
 * memcg_limit.c - a memory cgroup's limit: an accounted allocation beyond
 * it fails with NULL (and counts in failcnt) and works again once enough
 * is freed; shrink callbacks run first and may make room; allocations that
 * may not sleep skip them; __GFP_NOFAIL passes the limit; a lowered limit
 * refuses, a raised one admits; bulk and large allocations are refused
 * whole, leaving no charge behind; unaccounted allocations never notice.
 * Through <uslab/memcontrol.h> and <uslab/slab.h> only.
 *
 * SLOB charges nothing (as in Linux): each test says so and passes there
 * after checking that the limit never refuses.
 */
#include "api.h"
#include <errno.h>
#include <uslab/memcontrol.h>

#define PAGE		4096UL
#define OBJ		1024	/* kmalloc size used against the limits */
#define MAX_OBJS	4096	/* bound on every allocation loop */

static int slob_skip(const char *what)
{
	void *p;

	if (!allocator_is("slob"))
		return 0;
	/* SLOB never charges: even a zero limit refuses nothing */
	p = kmalloc(OBJ, GFP_KERNEL_ACCOUNT);
	ck_assert_ptr_nonnull(p);
	kfree(p);
	printf("SKIP (slob): %s: SLOB has no memcg accounting, as in Linux\n", what);
	return 1;
}

static struct mem_cgroup *limited_group(const char *name, unsigned long limit)
{
	struct mem_cgroup *g = mem_cgroup_create(name, limit);

	ck_assert_msg(g != NULL, "mem_cgroup_create(%s): errno %d", name, errno);
	set_active_memcg(g);
	return g;
}

static void finish_group(struct mem_cgroup *g)
{
	set_active_memcg(NULL);
	ck_assert_int_eq(mem_cgroup_destroy(g), 0);
}

static unsigned long failcnt_of(struct mem_cgroup *g)
{
	struct uslab_mem_cgroup_stats st;

	ck_assert_int_eq(mem_cgroup_stats(g, &st), 0);
	return st.failcnt;
}

/* Allocate OBJ-byte accounted objects into p until one fails; returns how many. */
static int fill_to_limit(void **p, int max)
{
	int n;

	for (n = 0; n < max; n++) {
		p[n] = kmalloc(OBJ, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (!p[n])
			break;
		memset(p[n], 0x33, OBJ);
	}
	return n;
}

static void free_all(void **p, int n)
{
	int i;

	for (i = 0; i < n; i++)
		kfree(p[i]);
}

START_TEST(beyond_the_limit_is_null_and_frees_recover)
{
	static void *p[MAX_OBJS];
	struct mem_cgroup *g;
	unsigned long each;
	int n, i;

	g = limited_group("lim_basic", 64 * 1024);
	if (slob_skip("limit refusal")) {
		n = fill_to_limit(p, 200);	/* nothing refuses */
		ck_assert_int_eq(n, 200);
		free_all(p, n);
		finish_group(g);
		return;
	}
	n = fill_to_limit(p, MAX_OBJS);
	ck_assert_int_gt(n, 0);
	ck_assert_int_lt(n, MAX_OBJS);
	each = mem_cgroup_usage(g) / (unsigned long)n;
	/* one thread, one stock: the limit is used up to the last object */
	ck_assert_uint_eq((unsigned long)n, 64 * 1024 / each);
	ck_assert_uint_le(mem_cgroup_usage(g), 64 * 1024);
	ck_assert_uint_ge(failcnt_of(g), 1);
	/* still refused, and unaccounted allocations do not notice */
	ck_assert_ptr_null(kmalloc(OBJ, GFP_KERNEL_ACCOUNT | __GFP_NOWARN));
	p[n] = kmalloc(OBJ, GFP_KERNEL);
	ck_assert_ptr_nonnull(p[n]);
	kfree(p[n]);
	/* freeing 10 makes room for exactly 10 */
	free_all(p + n - 10, 10);
	for (i = n - 10; i < n; i++) {
		p[i] = kmalloc(OBJ, GFP_KERNEL_ACCOUNT);
		ck_assert_msg(p[i] != NULL, "refused after frees (object %d of %d)", i, n);
	}
	ck_assert_ptr_null(kmalloc(OBJ, GFP_KERNEL_ACCOUNT | __GFP_NOWARN));
	free_all(p, n);
	ck_assert_uint_eq(mem_cgroup_usage(g), 0);
	n = fill_to_limit(p, MAX_OBJS);	/* all of it again */
	ck_assert_uint_eq((unsigned long)n, 64 * 1024 / each);
	free_all(p, n);
	finish_group(g);
}
END_TEST

START_TEST(a_zero_limit_refuses_every_charge)
{
	struct mem_cgroup *g = limited_group("lim_zero", 0);
	struct kmem_cache *s = kmem_cache_create("lim_zero_cache", 32, 0, SLAB_ACCOUNT, NULL);
	void *p;

	ck_assert_ptr_nonnull(s);
	if (slob_skip("zero limit")) {
		kmem_cache_destroy(s);
		finish_group(g);
		return;
	}
	ck_assert_ptr_null(kmalloc(8, GFP_KERNEL_ACCOUNT | __GFP_NOWARN));
	ck_assert_ptr_null(kmem_cache_alloc(s, GFP_KERNEL));
	p = kmalloc(8, GFP_KERNEL);
	ck_assert_ptr_nonnull(p);
	kfree(p);
	ck_assert_uint_eq(mem_cgroup_usage(g), 0);
	kmem_cache_destroy(s);
	finish_group(g);
}
END_TEST

/* ---------------- shrink callbacks ---------------- */

struct cache_of_objs {
	void *objs[MAX_OBJS];	/* the group's reclaimable objects */
	int n;
	unsigned long calls;	/* times the callback ran */
};

static unsigned long shrink_cache(struct mem_cgroup *memcg, unsigned long nr_bytes, void *arg)
{
	struct cache_of_objs *c = (struct cache_of_objs *)arg;
	unsigned long freed = 0;

	ck_assert_str_eq(mem_cgroup_name(memcg), "lim_shrink");
	c->calls++;
	while (c->n > 0 && freed < nr_bytes) {
		kfree(c->objs[--c->n]);
		freed += OBJ;
	}
	return freed;
}

START_TEST(shrink_callbacks_make_room_before_a_refusal)
{
	static struct cache_of_objs c;
	struct mem_cgroup *g = limited_group("lim_shrink", 32 * 1024);
	void *p;
	int i;

	if (slob_skip("shrink callbacks")) {
		finish_group(g);
		return;
	}
	ck_assert_int_eq(mem_cgroup_register_shrinker(g, shrink_cache, &c), 0);
	/* twice the limit goes through: each refusal frees some of them */
	for (i = 0; i < 64; i++) {
		p = kmalloc(OBJ, GFP_KERNEL_ACCOUNT);
		ck_assert_msg(p != NULL, "allocation %d refused despite the callback", i);
		c.objs[c.n++] = p;
		if (c.n == MAX_OBJS)
			break;
	}
	ck_assert_uint_ge(c.calls, 1);
	ck_assert_uint_le(mem_cgroup_usage(g), 32 * 1024);
	/* GFP_NOWAIT may not sleep: no callback, a plain refusal */
	i = (int)c.calls;
	while ((p = kmalloc(OBJ, GFP_NOWAIT | __GFP_ACCOUNT | __GFP_NOWARN)) != NULL)
		c.objs[c.n++] = p;
	ck_assert_uint_eq(c.calls, (unsigned long)i);
	ck_assert_int_eq(mem_cgroup_unregister_shrinker(g, shrink_cache, &c), 0);
	ck_assert_int_eq(mem_cgroup_unregister_shrinker(g, shrink_cache, &c), -ENOENT);
	ck_assert_ptr_null(kmalloc(OBJ, GFP_KERNEL_ACCOUNT | __GFP_NOWARN));
	ck_assert_uint_eq(c.calls, (unsigned long)i);
	free_all(c.objs, c.n);
	c.n = 0;
	finish_group(g);
}
END_TEST

static unsigned long shrink_nothing(struct mem_cgroup *memcg, unsigned long nr_bytes, void *arg)
{
	(void)memcg;
	(void)nr_bytes;
	(*(unsigned long *)arg)++;
	return 0;
}

START_TEST(a_callback_that_frees_nothing_ends_in_a_refusal)
{
	static void *p[MAX_OBJS];
	struct mem_cgroup *g = limited_group("lim_nothing", 16 * 1024);
	struct stderr_capture cap;
	unsigned long calls = 0;
	char out[4096];
	int n;

	if (slob_skip("shrink callback freeing nothing")) {
		finish_group(g);
		return;
	}
	ck_assert_int_eq(mem_cgroup_register_shrinker(g, shrink_nothing, &calls), 0);
	stderr_capture_begin(&cap);
	ck_assert_int_eq(mem_cgroup_register_shrinker(NULL, shrink_nothing, &calls), -EINVAL);
	ck_assert_int_eq(mem_cgroup_register_shrinker(g, NULL, NULL), -EINVAL);
	ck_assert_int_eq(mem_cgroup_register_shrinker(root_mem_cgroup, shrink_nothing, NULL),
			 -EINVAL);
	stderr_capture_end(&cap, out, sizeof(out));
	ck_assert_msg(strstr(out, "not a live memory cgroup"), "no report:\n%s", out);
	n = fill_to_limit(p, MAX_OBJS);
	ck_assert_int_lt(n, MAX_OBJS);
	ck_assert_uint_eq(calls, 1);	/* asked once, freed nothing: no retry */
	free_all(p, n);
	finish_group(g);	/* destroy unregisters it */
}
END_TEST

/* ---------------- limits that move, flags that pass ---------------- */

START_TEST(nofail_passes_the_limit)
{
	struct mem_cgroup *g = limited_group("lim_nofail", 8 * 1024);
	static void *p[MAX_OBJS];
	int n;

	if (slob_skip("__GFP_NOFAIL")) {
		finish_group(g);
		return;
	}
	n = fill_to_limit(p, MAX_OBJS);
	p[n] = kmalloc(OBJ, GFP_KERNEL_ACCOUNT | __GFP_NOFAIL);
	ck_assert_ptr_nonnull(p[n]);
	ck_assert_uint_gt(mem_cgroup_usage(g), (unsigned long)n * OBJ);
	free_all(p, n + 1);
	ck_assert_uint_eq(mem_cgroup_usage(g), 0);
	finish_group(g);
}
END_TEST

START_TEST(lowering_the_limit_refuses_raising_admits)
{
	static void *p[MAX_OBJS];
	struct mem_cgroup *g = limited_group("lim_move", MEM_CGROUP_NO_LIMIT);
	int n, extra;

	if (slob_skip("moving limits")) {
		finish_group(g);
		return;
	}
	n = fill_to_limit(p, 40);
	ck_assert_int_eq(n, 40);
	ck_assert_int_eq(mem_cgroup_set_limit(g, 16 * 1024), 0);	/* below usage */
	/* what this thread charged ahead (under a page) may still be used */
	extra = fill_to_limit(p + n, 10);
	ck_assert_int_lt(extra * OBJ, (int)PAGE);
	n += extra;
	ck_assert_ptr_null(kmalloc(OBJ, GFP_KERNEL_ACCOUNT | __GFP_NOWARN));
	ck_assert_uint_gt(mem_cgroup_usage(g), 16 * 1024);	/* charges stay */
	ck_assert_int_eq(mem_cgroup_set_limit(g, 1UL << 20), 0);
	extra = fill_to_limit(p + n, 100);
	ck_assert_int_eq(extra, 100);
	n += extra;
	free_all(p, n);
	finish_group(g);
}
END_TEST

START_TEST(bulk_and_large_requests_are_refused_whole)
{
	struct mem_cgroup *g = limited_group("lim_bulk", 32 * 1024);
	struct kmem_cache *s = kmem_cache_create("lim_bulk_cache", 256, 0, SLAB_ACCOUNT, NULL);
	void *p[256], *big;
	unsigned long usage;

	ck_assert_ptr_nonnull(s);
	if (slob_skip("bulk and large refusals")) {
		kmem_cache_destroy(s);
		finish_group(g);
		return;
	}
	ck_assert_int_eq(kmem_cache_alloc_bulk(s, GFP_KERNEL, 64, p), 64);
	usage = mem_cgroup_usage(g);
	ck_assert_int_eq(kmem_cache_alloc_bulk(s, GFP_KERNEL | __GFP_NOWARN, 256, p + 64), 0);
	ck_assert_uint_eq(mem_cgroup_usage(g), usage);	/* nothing left charged */
	big = kmalloc(64 * 1024, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	ck_assert_ptr_null(big);
	ck_assert_uint_eq(mem_cgroup_usage(g), usage);
	kmem_cache_free_bulk(s, 64, p);
	ck_assert_uint_eq(mem_cgroup_usage(g), 0);
	big = kmalloc(16 * 1024, GFP_KERNEL_ACCOUNT);	/* fits now */
	ck_assert_ptr_nonnull(big);
	kfree(big);
	ck_assert_uint_eq(mem_cgroup_usage(g), 0);
	kmem_cache_destroy(s);
	finish_group(g);
}
END_TEST

static Suite *memcg_limit_suite(void)
{
	Suite *s = suite_create("memcg_limit");
	TCase *tc = tcase_create("limit");
	TCase *shrink = tcase_create("shrink");

	tcase_add_test(tc, beyond_the_limit_is_null_and_frees_recover);
	tcase_add_test(tc, a_zero_limit_refuses_every_charge);
	tcase_add_test(tc, nofail_passes_the_limit);
	tcase_add_test(tc, lowering_the_limit_refuses_raising_admits);
	tcase_add_test(tc, bulk_and_large_requests_are_refused_whole);
	tcase_add_test(shrink, shrink_callbacks_make_room_before_a_refusal);
	tcase_add_test(shrink, a_callback_that_frees_nothing_ends_in_a_refusal);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, shrink);
	return s;
}

USLAB_TEST_MAIN(memcg_limit_suite)
