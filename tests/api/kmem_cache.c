/* SPDX-License-Identifier: MIT */
/*
 * kmem_cache.c - the object-cache API, as a checklist, through <uslab/slab.h>
 * only, on whichever allocator the binary was built for.  Checks that hold
 * only for some allocators say so and why (SLOB runs constructors on every
 * allocation, never merges caches, and has no debug flags).
 */
#include "api.h"
#include <stdint.h>

#define NOBJ	200

static int is_aligned(const void *p, unsigned long a)
{
	return ((uintptr_t)p & (a - 1)) == 0;
}

/* A cache of exactly the asked size and name: a usercopy window keeps
 * it from being merged into another cache. */
static struct kmem_cache *unmerged_cache(const char *name, unsigned int size,
					 unsigned int align, slab_flags_t flags)
{
	return kmem_cache_create_usercopy(name, size, align, flags, 0, size, NULL);
}

/* ---------------- creation ---------------- */

START_TEST(create_gives_a_cache_of_that_size_and_name)
{
	struct kmem_cache *s = unmerged_cache("api_basic", 44, 0, 0);
	void *p;

	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(kmem_cache_size(s), 44);
	ck_assert_str_eq(uslab_kmem_cache_name(s), "api_basic");
	p = kmem_cache_alloc(s, GFP_KERNEL);
	ck_assert_ptr_nonnull(p);
	memset(p, 0x5a, 44);
	kmem_cache_free(s, p);
	kmem_cache_destroy(s);
}
END_TEST

START_TEST(create_copies_the_name)
{
	char name[32];
	struct kmem_cache *s;

	strcpy(name, "api_named");
	s = unmerged_cache(name, 24, 0, 0);
	ck_assert_ptr_nonnull(s);
	strcpy(name, "overwritten");
	ck_assert_str_eq(uslab_kmem_cache_name(s), "api_named");
	kmem_cache_destroy(s);
}
END_TEST

START_TEST(kmem_cache_macro_uses_the_struct)
{
	struct api_thing { double d; char c[13]; };
	struct kmem_cache *s = KMEM_CACHE(api_thing, 0);
	struct api_thing *t;

	ck_assert_ptr_nonnull(s);
	ck_assert_uint_ge(kmem_cache_size(s), sizeof(struct api_thing));
	t = (struct api_thing *)kmem_cache_alloc(s, GFP_KERNEL);
	ck_assert_ptr_nonnull(t);
	ck_assert(is_aligned(t, __alignof__(struct api_thing)));
	kmem_cache_free(s, t);
	kmem_cache_destroy(s);
}
END_TEST

START_TEST(kmem_cache_usercopy_macro_names_the_struct)
{
	struct api_ucopy { long head; char window[40]; long tail; };
	struct kmem_cache *s = KMEM_CACHE_USERCOPY(api_ucopy, 0, window);

	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(uslab_kmem_cache_name(s), "api_ucopy");
	ck_assert_uint_eq(kmem_cache_size(s), sizeof(struct api_ucopy));
	kmem_cache_destroy(s);
}
END_TEST

static void expect_rejected(const char *name, unsigned int size, slab_flags_t flags,
			    const char *report)
{
	struct stderr_capture cap;
	struct kmem_cache *s;
	char out[4096];

	stderr_capture_begin(&cap);
	s = kmem_cache_create(name, size, 0, flags, NULL);
	stderr_capture_end(&cap, out, sizeof(out));
	ck_assert_msg(s == NULL, "cache %s (size %u, flags %#x) was accepted",
		      name ? name : "(null)", size, flags);
	ck_assert_msg(strstr(out, report) != NULL, "report lacks \"%s\":\n%.3000s", report, out);
	ck_assert_msg(strstr(out, "failed with error -22") != NULL, "no error code:\n%.3000s", out);
}

START_TEST(invalid_arguments_are_rejected_with_a_warning)
{
	expect_rejected(NULL, 32, 0, "kmem_cache_create(");
	expect_rejected("api_size0", 0, 0, "kmem_cache_create(api_size0)");
	expect_rejected("api_huge", 1u << 30, 0, "kmem_cache_create(api_huge)");
}
END_TEST

START_TEST(flags_outside_the_permitted_set_are_rejected)
{
	/* 0x1000 is unused in 5.17; the top bits are allocator-internal */
	expect_rejected("api_badflag", 64, 0x1000, "kmem_cache_create(api_badflag)");
	expect_rejected("api_internal", 64, 0x80000000u, "kmem_cache_create(api_internal)");
	expect_rejected("api_failslab", 64, SLAB_FAILSLAB, "not permitted");
}
END_TEST

START_TEST(permitted_debug_flags_are_accepted_by_every_allocator)
{
	/* SLOB silently drops the debug flags it does not implement */
	struct kmem_cache *s = kmem_cache_create("api_dbg", 72, 0,
			SLAB_RED_ZONE | SLAB_POISON | SLAB_STORE_USER, NULL);
	void *p;

	ck_assert_ptr_nonnull(s);
	p = kmem_cache_alloc(s, GFP_KERNEL);
	ck_assert_ptr_nonnull(p);
	memset(p, 1, 72);
	kmem_cache_free(s, p);
	kmem_cache_destroy(s);
}
END_TEST

static void create_panic_cache(void *arg)
{
	(void)arg;
	kmem_cache_create("api_panic", 32, 0, SLAB_PANIC | 0x1000, NULL);
}

START_TEST(slab_panic_aborts_when_creation_fails)
{
	ck_assert_aborts_with(create_panic_cache, NULL, "Failed to create slab 'api_panic'");
}
END_TEST

START_TEST(bad_usercopy_window_is_dropped_with_a_warning)
{
	struct stderr_capture cap;
	struct kmem_cache *s;
	char out[4096];

	stderr_capture_begin(&cap);
	s = kmem_cache_create_usercopy("api_ucbad", 32, 0, 0, 24, 16, NULL);
	stderr_capture_end(&cap, out, sizeof(out));
	ck_assert_ptr_nonnull(s);
	ck_assert_msg(strstr(out, "api_ucbad") && strstr(out, "usercopy"),
		      "no usercopy warning:\n%.3000s", out);
	kmem_cache_destroy(s);
}
END_TEST

/* ---------------- constructors ---------------- */

#define CTOR_SIZE	96
static unsigned long ctor_calls;

static void pattern_ctor(void *obj)
{
	memset(obj, 0xc7, CTOR_SIZE);
	ctor_calls++;
}

static int is_constructed(const void *obj)
{
	const unsigned char *b = (const unsigned char *)obj;
	int i;

	for (i = 0; i < CTOR_SIZE; i++)
		if (b[i] != 0xc7)
			return 0;
	return 1;
}

START_TEST(constructed_state_survives_free_and_reallocation)
{
	struct kmem_cache *s = kmem_cache_create("api_ctor_state", CTOR_SIZE, 0, 0, pattern_ctor);
	void *p[NOBJ];
	int round, i;

	ck_assert_ptr_nonnull(s);
	for (round = 0; round < 3; round++) {
		for (i = 0; i < NOBJ; i++) {
			p[i] = kmem_cache_alloc(s, GFP_KERNEL);
			ck_assert_ptr_nonnull(p[i]);
			ck_assert_msg(is_constructed(p[i]), "round %d object %d not constructed",
				      round, i);
		}
		for (i = 0; i < NOBJ; i++)
			kmem_cache_free(s, p[i]);
	}
	kmem_cache_destroy(s);
}
END_TEST

START_TEST(ctor_runs_when_a_slab_is_populated_not_per_allocation)
{
	struct kmem_cache *s;
	unsigned long after_first;
	void *p;

	if (allocator_is("slob"))
		return;		/* SLOB constructs on every allocation: next test */
	ctor_calls = 0;
	s = kmem_cache_create("api_ctor_count", CTOR_SIZE, 0, 0, pattern_ctor);
	ck_assert_ptr_nonnull(s);
	p = kmem_cache_alloc(s, GFP_KERNEL);
	ck_assert_ptr_nonnull(p);
	after_first = ctor_calls;
	ck_assert_msg(after_first >= 2, "ctor ran %lu times for a new slab", after_first);
	kmem_cache_free(s, p);
	p = kmem_cache_alloc(s, GFP_KERNEL);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(ctor_calls, after_first);
	kmem_cache_free(s, p);
	kmem_cache_destroy(s);
}
END_TEST

START_TEST(slob_runs_the_ctor_on_every_allocation)
{
	struct kmem_cache *s;
	void *p;

	if (!allocator_is("slob"))
		return;		/* SLUB and SLAB: previous test */
	ctor_calls = 0;
	s = kmem_cache_create("api_ctor_slob", CTOR_SIZE, 0, 0, pattern_ctor);
	ck_assert_ptr_nonnull(s);
	p = kmem_cache_alloc(s, GFP_KERNEL);
	ck_assert_uint_eq(ctor_calls, 1);
	kmem_cache_free(s, p);
	p = kmem_cache_alloc(s, GFP_KERNEL);
	ck_assert_uint_eq(ctor_calls, 2);
	kmem_cache_free(s, p);
	kmem_cache_destroy(s);
}
END_TEST

/* ---------------- alignment ---------------- */

static void check_cache_alignment(const char *name, unsigned int size, unsigned int align,
				  slab_flags_t flags, unsigned long want)
{
	struct kmem_cache *s = kmem_cache_create(name, size, align, flags, NULL);
	void *p[NOBJ];
	int i;

	ck_assert_ptr_nonnull(s);
	for (i = 0; i < NOBJ; i++) {
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		ck_assert_ptr_nonnull(p[i]);
		ck_assert_msg(is_aligned(p[i], want), "%s: object %p not %lu-aligned",
			      name, p[i], want);
		memset(p[i], 0x11, size);
	}
	for (i = 0; i < NOBJ; i++)
		kmem_cache_free(s, p[i]);
	kmem_cache_destroy(s);
}

START_TEST(align_argument_is_honoured)
{
	check_cache_alignment("api_align128", 24, 128, 0, 128);
	check_cache_alignment("api_align64", 100, 64, 0, 64);
	check_cache_alignment("api_align16", 20, 16, 0, 16);
	check_cache_alignment("api_align0", 13, 0, 0, ARCH_SLAB_MINALIGN);
}
END_TEST

START_TEST(hwcache_align_uses_the_line_or_its_fitting_fraction)
{
	check_cache_alignment("api_hw100", 100, 0, SLAB_HWCACHE_ALIGN, 64);
	check_cache_alignment("api_hw40", 40, 0, SLAB_HWCACHE_ALIGN, 64);
	check_cache_alignment("api_hw20", 20, 0, SLAB_HWCACHE_ALIGN, 32);
	check_cache_alignment("api_hw12", 12, 0, SLAB_HWCACHE_ALIGN, 16);
	/* the caller's larger alignment wins over the line */
	check_cache_alignment("api_hw256", 100, 256, SLAB_HWCACHE_ALIGN, 256);
}
END_TEST

/* ---------------- objects ---------------- */

START_TEST(zalloc_and_gfp_zero_give_zeroed_objects)
{
	struct kmem_cache *s = unmerged_cache("api_zero", 200, 0, 0);
	unsigned char *p;
	int i, j;

	ck_assert_ptr_nonnull(s);
	for (i = 0; i < 50; i++) {
		p = (unsigned char *)kmem_cache_alloc(s, GFP_KERNEL);
		memset(p, 0xff, 200);
		kmem_cache_free(s, p);
		p = (unsigned char *)(i & 1 ? kmem_cache_zalloc(s, GFP_KERNEL) :
				      kmem_cache_alloc(s, GFP_KERNEL | __GFP_ZERO));
		ck_assert_ptr_nonnull(p);
		for (j = 0; j < 200 && !p[j]; j++)
			;
		ck_assert_msg(j == 200, "byte %d of a zeroed object is %#x", j, p[j]);
		kmem_cache_free(s, p);
	}
	kmem_cache_destroy(s);
}
END_TEST

START_TEST(alloc_node_accepts_no_node_and_node_0)
{
	struct kmem_cache *s = unmerged_cache("api_node", 64, 0, 0);
	void *a, *b;

	ck_assert_ptr_nonnull(s);
	a = kmem_cache_alloc_node(s, GFP_KERNEL, NUMA_NO_NODE);
	b = kmem_cache_alloc_node(s, GFP_KERNEL, 0);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_ne(a, b);
	kmem_cache_free(s, a);
	kmem_cache_free(s, b);
	kmem_cache_destroy(s);
}
END_TEST

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void *const *)a, y = (uintptr_t)*(void *const *)b;

	return x < y ? -1 : x > y;
}

START_TEST(bulk_alloc_gives_distinct_objects_and_bulk_free_takes_them)
{
	struct kmem_cache *s = unmerged_cache("api_bulk", 48, 0, 0);
	void *p[300], *sorted[300];
	int round, i;

	ck_assert_ptr_nonnull(s);
	for (round = 0; round < 4; round++) {
		ck_assert_int_eq(kmem_cache_alloc_bulk(s, GFP_KERNEL, 300, p), 300);
		memcpy(sorted, p, sizeof(p));
		qsort(sorted, 300, sizeof(void *), cmp_ptr);
		for (i = 0; i < 300; i++) {
			ck_assert_ptr_nonnull(sorted[i]);
			/* distinct and not overlapping */
			if (i)
				ck_assert_uint_ge((uintptr_t)sorted[i] - (uintptr_t)sorted[i - 1], 48);
			memset(p[i], i, 48);
		}
		kmem_cache_free_bulk(s, 300, p);
	}
	kmem_cache_destroy(s);
}
END_TEST

/* Pages in use by the whole library (a section coming online changes
 * pages_free but not this). */
static unsigned long pages_used(void)
{
	struct uslab_memmap_stats st;

	uslab_memmap_stats(&st);
	return st.pages_online - st.pages_free;
}

START_TEST(shrink_gives_empty_slabs_back)
{
	struct kmem_cache *s = unmerged_cache("api_shrink", 512, 0, 0);
	enum { N = 4000 };	/* 2000 KiB of objects: 500 pages */
	unsigned long before, full, freed, shrunk;
	void **p = (void **)calloc(N, sizeof(void *));
	int i;

	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_nonnull(p);
	before = pages_used();
	for (i = 0; i < N; i++) {
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		ck_assert_ptr_nonnull(p[i]);
	}
	full = pages_used();
	ck_assert_uint_ge(full, before + 400);
	for (i = 0; i < N; i++)
		kmem_cache_free(s, p[i]);
	freed = pages_used();
	ck_assert_int_eq(kmem_cache_shrink(s), 0);
	shrunk = pages_used();
	/* every slab of the cache is back: at most a few pages still differ */
	ck_assert_msg(shrunk <= before + 8, "pages used: %lu before, %lu full, %lu freed, %lu shrunk",
		      before, full, freed, shrunk);
	/* SLUB and SLAB keep some empty slabs until asked; SLOB frees pages at once */
	if (!allocator_is("slob"))
		ck_assert_msg(shrunk < freed, "pages used: %lu freed, %lu shrunk", freed, shrunk);
	free(p);
	kmem_cache_destroy(s);
}
END_TEST

/* ---------------- destruction ---------------- */

START_TEST(destroy_null_is_a_no_op)
{
	kmem_cache_destroy(NULL);
}
END_TEST

START_TEST(destroy_with_live_objects_reports_and_keeps_the_cache)
{
	struct kmem_cache *s = unmerged_cache("api_busy", 64, 0, 0);
	struct stderr_capture cap;
	void *p[3], *q;
	char out[8192];
	int i;

	ck_assert_ptr_nonnull(s);
	for (i = 0; i < 3; i++)
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
	stderr_capture_begin(&cap);
	kmem_cache_destroy(s);
	stderr_capture_end(&cap, out, sizeof(out));
	ck_assert_msg(strstr(out, "kmem_cache_destroy api_busy: Slab cache still has objects"),
		      "no report:\n%.3000s", out);
	ck_assert_msg(strstr(out, "(3 in use)"), "report lacks the count:\n%.3000s", out);
	/* still usable */
	q = kmem_cache_alloc(s, GFP_KERNEL);
	ck_assert_ptr_nonnull(q);
	memset(q, 3, 64);
	kmem_cache_free(s, q);
	for (i = 0; i < 3; i++)
		kmem_cache_free(s, p[i]);
	/* and a second destroy, with nothing left, is silent */
	stderr_capture_begin(&cap);
	kmem_cache_destroy(s);
	stderr_capture_end(&cap, out, sizeof(out));
	ck_assert_msg(out[0] == '\0', "unexpected report:\n%.3000s", out);
}
END_TEST

/* ---------------- merging ---------------- */

START_TEST(compatible_caches_are_merged_and_aliases_counted)
{
	struct kmem_cache *a = kmem_cache_create("api_merge_a", 200, 0, 0, NULL);
	struct kmem_cache *b = kmem_cache_create("api_merge_b", 200, 0, 0, NULL);
	void *p;

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	if (allocator_is("slob")) {
		ck_assert_ptr_ne(a, b);		/* SLOB never merges */
	} else {
		ck_assert_ptr_eq(a, b);
		ck_assert_str_eq(uslab_kmem_cache_name(b), uslab_kmem_cache_name(a));
	}
	/* dropping one reference leaves the other usable */
	kmem_cache_destroy(a);
	p = kmem_cache_alloc(b, GFP_KERNEL);
	ck_assert_ptr_nonnull(p);
	memset(p, 0x77, 200);
	kmem_cache_free(b, p);
	kmem_cache_destroy(b);
}
END_TEST

START_TEST(merged_cache_grows_to_the_larger_object_size)
{
	struct kmem_cache *a = kmem_cache_create("api_grow_a", 244, 0, 0, NULL);
	struct kmem_cache *b = kmem_cache_create("api_grow_b", 248, 0, 0, NULL);

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(kmem_cache_size(b), 248);
	if (!allocator_is("slob")) {
		/* 244 rounds up to a 248-byte slot: b fits a's slots exactly */
		ck_assert_ptr_eq(a, b);
		ck_assert_uint_eq(kmem_cache_size(a), 248);
	}
	kmem_cache_destroy(b);
	kmem_cache_destroy(a);
}
END_TEST

START_TEST(caches_with_a_ctor_are_never_merged)
{
	struct kmem_cache *a = kmem_cache_create("api_ctor_a", CTOR_SIZE, 0, 0, pattern_ctor);
	struct kmem_cache *b = kmem_cache_create("api_ctor_b", CTOR_SIZE, 0, 0, pattern_ctor);
	struct kmem_cache *c = kmem_cache_create("api_ctor_c", CTOR_SIZE, 0, 0, NULL);

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_ne(a, b);
	ck_assert_ptr_ne(a, c);
	kmem_cache_destroy(c);
	kmem_cache_destroy(b);
	kmem_cache_destroy(a);
}
END_TEST

START_TEST(debug_and_reclaim_flags_keep_caches_apart)
{
	struct kmem_cache *plain = kmem_cache_create("api_plain", 216, 0, 0, NULL);
	struct kmem_cache *poison = kmem_cache_create("api_poison", 216, 0, SLAB_POISON, NULL);
	struct kmem_cache *rcl = kmem_cache_create("api_rcl", 216, 0, SLAB_RECLAIM_ACCOUNT, NULL);

	ck_assert_ptr_nonnull(plain);
	ck_assert_ptr_nonnull(poison);
	ck_assert_ptr_nonnull(rcl);
	ck_assert_ptr_ne(plain, poison);
	ck_assert_ptr_ne(plain, rcl);
	ck_assert_ptr_ne(poison, rcl);
	kmem_cache_destroy(rcl);
	kmem_cache_destroy(poison);
	kmem_cache_destroy(plain);
}
END_TEST

/* In a fresh process: do two compatible caches come out the same? */
static int merges_in_this_process(void)
{
	struct kmem_cache *a = kmem_cache_create("api_opt_a", 120, 0, 0, NULL);
	struct kmem_cache *b = kmem_cache_create("api_opt_b", 120, 0, 0, NULL);
	int merged = a == b;

	kmem_cache_destroy(b);
	kmem_cache_destroy(a);
	return merged;
}

static int scenario_nomerge(void)
{
	SCENARIO_CHECK(!merges_in_this_process());
	return 0;
}

static int scenario_merge(void)
{
	/* SLOB never merges, whatever the options */
	SCENARIO_CHECK(merges_in_this_process() == !allocator_is("slob"));
	return 0;
}

START_TEST(merge_options_switch_merging)
{
	ck_assert_scenario("merge", NULL);
	ck_assert_scenario("nomerge", "slab_nomerge");
	ck_assert_scenario("nomerge", "slub_nomerge");
	ck_assert_scenario("merge", "slab_nomerge slab_merge");
	ck_assert_scenario("merge", "slub_nomerge slub_merge");
}
END_TEST

static const struct api_scenario scenarios[] = {
	{ "merge", scenario_merge },
	{ "nomerge", scenario_nomerge },
};

static Suite *kmem_cache_suite(void)
{
	Suite *s = suite_create("kmem_cache");
	TCase *create = tcase_create("create");
	TCase *ctor = tcase_create("ctor");
	TCase *align = tcase_create("align");
	TCase *objects = tcase_create("objects");
	TCase *destroy = tcase_create("destroy");
	TCase *merge = tcase_create("merge");

	tcase_add_test(create, create_gives_a_cache_of_that_size_and_name);
	tcase_add_test(create, create_copies_the_name);
	tcase_add_test(create, kmem_cache_macro_uses_the_struct);
	tcase_add_test(create, kmem_cache_usercopy_macro_names_the_struct);
	tcase_add_test(create, invalid_arguments_are_rejected_with_a_warning);
	tcase_add_test(create, flags_outside_the_permitted_set_are_rejected);
	tcase_add_test(create, permitted_debug_flags_are_accepted_by_every_allocator);
	tcase_add_test(create, slab_panic_aborts_when_creation_fails);
	tcase_add_test(create, bad_usercopy_window_is_dropped_with_a_warning);
	tcase_add_test(ctor, constructed_state_survives_free_and_reallocation);
	tcase_add_test(ctor, ctor_runs_when_a_slab_is_populated_not_per_allocation);
	tcase_add_test(ctor, slob_runs_the_ctor_on_every_allocation);
	tcase_add_test(align, align_argument_is_honoured);
	tcase_add_test(align, hwcache_align_uses_the_line_or_its_fitting_fraction);
	tcase_add_test(objects, zalloc_and_gfp_zero_give_zeroed_objects);
	tcase_add_test(objects, alloc_node_accepts_no_node_and_node_0);
	tcase_add_test(objects, bulk_alloc_gives_distinct_objects_and_bulk_free_takes_them);
	tcase_add_test(objects, shrink_gives_empty_slabs_back);
	tcase_add_test(destroy, destroy_null_is_a_no_op);
	tcase_add_test(destroy, destroy_with_live_objects_reports_and_keeps_the_cache);
	tcase_add_test(merge, compatible_caches_are_merged_and_aliases_counted);
	tcase_add_test(merge, merged_cache_grows_to_the_larger_object_size);
	tcase_add_test(merge, caches_with_a_ctor_are_never_merged);
	tcase_add_test(merge, debug_and_reclaim_flags_keep_caches_apart);
	tcase_add_test(merge, merge_options_switch_merging);
	suite_add_tcase(s, create);
	suite_add_tcase(s, ctor);
	suite_add_tcase(s, align);
	suite_add_tcase(s, objects);
	suite_add_tcase(s, destroy);
	suite_add_tcase(s, merge);
	return s;
}

API_TEST_MAIN(kmem_cache_suite, scenarios)
