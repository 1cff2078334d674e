/* SPDX-License-Identifier: MIT */
/*
 * slob_double_free.c - SLOB (which had no debugging in Linux) catches a
 * second free of a kmalloc object, of a cache object and of a page-backed
 * cache object before it writes anything: "slob: double free of object
 * 0x... (size N) in CACHE: it lies in free block ...", or, for a page
 * object whose pages went back, "... its pages are free" / "... hold no
 * object of any cache".  Each runs in a child among neighbours of the same
 * size that share its pages; the report ends in abort with them intact.
 * Built for SLUB or SLAB, the binary skips itself.
 */
#include "slab_misuse.h"

#define OBJ_SIZE	72
#define PAGE_OBJ_SIZE	8192
#define NR_AROUND	10

/* Neighbours of OBJ_SIZE from a cache of their own, around the misuse. */
static void neighbours(struct misuse *m)
{
	if (!m->cache)
		m->cache = kmem_cache_create("h2-slob-n", OBJ_SIZE, 0, 0, NULL);
	misuse_add_neighbours(m, NR_AROUND, OBJ_SIZE);
}

static void kmalloc_twice(void *arg)
{
	struct misuse *m = arg;
	void *x;

	neighbours(m);
	x = __kmalloc(OBJ_SIZE, GFP_KERNEL);
	m->object = x;
	neighbours(m);
	kfree(x);
	kfree(x);
	misuse_finish(m);
}

static void cache_object_twice(void *arg)
{
	struct misuse *m = arg;
	void *x;

	neighbours(m);
	x = kmem_cache_alloc(m->cache, GFP_KERNEL);
	m->object = x;
	neighbours(m);
	kmem_cache_free(m->cache, x);
	kmem_cache_free(m->cache, x);
	misuse_finish(m);
}

/* A page-backed object: its pages go back at the first free. */
static void page_object_twice(void *arg)
{
	struct misuse *m = arg;
	struct kmem_cache *big = kmem_cache_create("h2-slob-8k", PAGE_OBJ_SIZE, 0, 0, NULL);
	void *x;

	neighbours(m);
	x = kmem_cache_alloc(big, GFP_KERNEL);
	m->object = x;
	kmem_cache_free(big, x);
	kmem_cache_free(big, x);
	misuse_finish(m);
}

/* The same, with the pages handed out again in between (as plain pages). */
static void page_object_twice_pages_reused(void *arg)
{
	struct misuse *m = arg;
	struct kmem_cache *big = kmem_cache_create("h2-slob-8k", PAGE_OBJ_SIZE, 0, 0, NULL);
	struct page *page;
	void *x;

	neighbours(m);
	x = kmem_cache_alloc(big, GFP_KERNEL);
	m->object = x;
	kmem_cache_free(big, x);
	page = alloc_pages(GFP_KERNEL | __GFP_COMP, 1);
	if (page_address(page) != x)
		return;		/* not reused: no report, the parent fails */
	memset(x, 0x5c, PAGE_OBJ_SIZE);
	kmem_cache_free(big, x);
	misuse_finish(m);
}

static void check(void (*fn)(void *), const char *what, size_t size, const char *cache,
		  const char *why)
{
	struct misuse *m = misuse_new();
	char out[MISUSE_REPORT_LEN], want[200], ptr[32];
	const char *words[] = { why, NULL, NULL };

	misuse_expect_abort(fn, m, out, words);
	snprintf(want, sizeof(want), "slob: %s of object %s (size %zu) in %s", what,
		 misuse_ptr(ptr, sizeof(ptr), m->object), size, cache);
	words[0] = want;
	misuse_expect_words(out, words);
	misuse_free(m);
}

START_TEST(kmalloc_object_freed_twice)
{
	check(kmalloc_twice, "double free", OBJ_SIZE, "kmalloc", "it lies in free block");
}
END_TEST

START_TEST(cache_object_freed_twice)
{
	check(cache_object_twice, "double free", OBJ_SIZE, "h2-slob-n", "it lies in free block");
}
END_TEST

START_TEST(page_object_freed_twice)
{
	check(page_object_twice, "double free", PAGE_OBJ_SIZE, "h2-slob-8k", "its pages are free");
}
END_TEST

START_TEST(page_object_freed_twice_after_its_pages_were_reused)
{
	check(page_object_twice_pages_reused, "invalid free", PAGE_OBJ_SIZE, "h2-slob-8k",
	      "its pages hold no object of any cache (freed already?)");
}
END_TEST

static Suite *slob_double_free_suite(void)
{
	Suite *s = suite_create("slob-double-free");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, kmalloc_object_freed_twice);
	tcase_add_test(tc, cache_object_freed_twice);
	tcase_add_test(tc, page_object_freed_twice);
	tcase_add_test(tc, page_object_freed_twice_after_its_pages_were_reused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (!CONFIG_SLOB)
		uslab_test_skip("SLOB's double free checks and their reports");
	return uslab_test_run(slob_double_free_suite());
}
