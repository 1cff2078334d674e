/* SPDX-License-Identifier: MIT */
/*
 * slob_wrong_cache.c - kmem_cache_free(c, x) gives SLOB the cache, and
 * SLOB checks it as far as it can without a header on cache objects:
 *   - a page-backed object names its cache in its folio: another cache's
 *     is "it belongs to cache A (wrong cache)";
 *   - a cache with no object allocated cannot own x: "its cache has no
 *     object allocated (wrong cache?)";
 *   - freeing x with a larger cache's size would take the live objects
 *     after it: "it would free the live object at 0x... too (wrong cache
 *     or size?)";
 *   - a small object given to a page-backed cache is "not the start of a
 *     block of this cache's size".
 * Each aborts with the neighbours intact.  (A cache object of the same
 * size freed to another cache that has objects is what SLOB cannot see:
 * its caches share their pages and objects carry nothing.)  Built for
 * SLUB or SLAB, the binary skips itself.
 */
#include "slab_misuse.h"

#define OBJ_SIZE	72
#define BIG_SIZE	400
#define PAGE_OBJ_SIZE	8192
#define NR_AROUND	10

enum wrong { PAGE_OBJECT_OF_ANOTHER_CACHE, EMPTY_CACHE, LARGER_CACHE, SMALL_TO_PAGE_CACHE };

static void free_to_wrong_cache(void *arg)
{
	struct misuse *m = arg;
	struct kmem_cache *a, *b;
	void *x;

	m->cache = kmem_cache_create("h2-slob-wa", OBJ_SIZE, 0, 0, NULL);
	misuse_add_neighbours(m, NR_AROUND, OBJ_SIZE);
	switch (m->variant) {
	case PAGE_OBJECT_OF_ANOTHER_CACHE:
		a = kmem_cache_create("h2-slob-pa", PAGE_OBJ_SIZE, 0, 0, NULL);
		b = kmem_cache_create("h2-slob-pb", PAGE_OBJ_SIZE, 0, 0, NULL);
		(void)kmem_cache_alloc(b, GFP_KERNEL);
		x = kmem_cache_alloc(a, GFP_KERNEL);
		break;
	case LARGER_CACHE:
		b = kmem_cache_create("h2-slob-wb", BIG_SIZE, 0, 0, NULL);
		(void)kmem_cache_alloc(b, GFP_KERNEL);	/* b has objects: its count agrees */
		x = kmem_cache_alloc(m->cache, GFP_KERNEL);
		break;
	case EMPTY_CACHE:
		b = kmem_cache_create("h2-slob-wb", OBJ_SIZE, 0, 0, NULL);
		x = kmem_cache_alloc(m->cache, GFP_KERNEL);
		break;
	default:
		b = kmem_cache_create("h2-slob-pb", PAGE_OBJ_SIZE, 0, 0, NULL);
		x = kmem_cache_alloc(m->cache, GFP_KERNEL);
	}
	m->object = x;
	misuse_add_neighbours(m, NR_AROUND, OBJ_SIZE);	/* live objects after x */
	kmem_cache_free(b, x);
	misuse_finish(m);
}

static void check(enum wrong which, const char *rest, const char *why)
{
	struct misuse *m = misuse_new();
	char out[MISUSE_REPORT_LEN], want[200], ptr[32];
	const char *words[] = { why, NULL, NULL };

	m->variant = which;
	misuse_expect_abort(free_to_wrong_cache, m, out, words);
	snprintf(want, sizeof(want), "slob: invalid free of object %s%s",
		 misuse_ptr(ptr, sizeof(ptr), m->object), rest);
	words[0] = want;
	misuse_expect_words(out, words);
	misuse_free(m);
}

START_TEST(page_object_of_another_cache)
{
	check(PAGE_OBJECT_OF_ANOTHER_CACHE, " (size 8192) in h2-slob-pb",
	      "it belongs to cache h2-slob-pa (wrong cache)");
}
END_TEST

START_TEST(cache_without_objects)
{
	check(EMPTY_CACHE, " (size 72) in h2-slob-wb",
	      "its cache has no object allocated (wrong cache?)");
}
END_TEST

START_TEST(larger_cache_would_free_live_neighbours)
{
	check(LARGER_CACHE, " (size 400) in h2-slob-wb", "too (wrong cache or size?)");
}
END_TEST

START_TEST(small_object_to_a_page_backed_cache)
{
	check(SMALL_TO_PAGE_CACHE, " (size 8192) in h2-slob-pb",
	      "not the start of a block of this cache's size");
}
END_TEST

static Suite *slob_wrong_cache_suite(void)
{
	Suite *s = suite_create("slob-wrong-cache");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, page_object_of_another_cache);
	tcase_add_test(tc, cache_without_objects);
	tcase_add_test(tc, larger_cache_would_free_live_neighbours);
	tcase_add_test(tc, small_object_to_a_page_backed_cache);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (!CONFIG_SLOB)
		uslab_test_skip("SLOB's checks of the cache an object is freed to");
	return uslab_test_run(slob_wrong_cache_suite());
}
