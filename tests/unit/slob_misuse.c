/* SPDX-License-Identifier: MIT */
/*
 * slob_misuse.c - SLOB's checks on free: double frees and invalid frees are
 * reported ("slob: double free of object 0x... (size N) in CACHE") and end
 * in abort(), before anything is corrupted.  Linux's SLOB had no such
 * checks; the reports are uslab's.  Each misuse runs in a child process
 * (run_expect_abort); built for SLUB or SLAB, the binary skips itself.
 */
#include "common/test.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <uslab/slab.h>
#include <uslab/slobinfo.h>

/* Filled in by the child, read by the parent: the object the report must name. */
struct misuse {
	struct kmem_cache *cache;	/* cache the child uses, if any */
	void *object;			/* object freed twice */
};

static struct misuse *shared(struct kmem_cache *cache)
{
	struct misuse *m = mmap(NULL, sizeof(*m), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(m, MAP_FAILED);
	m->cache = cache;
	m->object = NULL;
	return m;
}

/* fn(m) must abort with "slob: WHAT of object 0x<m->object> (size SIZE) in CACHE". */
static void expect_report(void (*fn)(void *), struct misuse *m, const char *what,
			  size_t size, const char *cache)
{
	char out[16384], how[32], want[160];
	int end = run_expect_abort(fn, m, out, sizeof(out));

	ck_assert_msg(end == SIGABRT, "expected SIGABRT, got %s; stderr:\n%s",
		      uslab_test_describe_end(end, how, sizeof(how)), out);
	ck_assert_ptr_nonnull(m->object);
	snprintf(want, sizeof(want), "slob: %s of object %#lx (size %zu) in %s", what,
		 (unsigned long)(uintptr_t)m->object, size, cache);
	ck_assert_msg(strstr(out, want) != NULL, "report lacks \"%s\"; stderr:\n%s", want, out);
	munmap(m, sizeof(*m));
}

static void kfree_twice(void *arg)
{
	struct misuse *m = arg;
	void *keep = kmalloc(100, GFP_KERNEL);	/* the page stays a slob page */

	(void)keep;
	m->object = kmalloc(100, GFP_KERNEL);
	kfree(m->object);
	kfree(m->object);
}

START_TEST(test_kmalloc_double_free)
{
	expect_report(kfree_twice, shared(NULL), "double free", 100, "kmalloc");
}
END_TEST

/* The only object of its page: the first kfree gave the page back. */
static void kfree_twice_page_gone(void *arg)
{
	void *p = kmalloc(100, GFP_KERNEL);

	(void)arg;
	kfree(p);
	kfree(p);
}

START_TEST(test_kmalloc_double_free_page_gone)
{
	ck_assert_aborts_with(kfree_twice_page_gone, NULL, "double free?");
}
END_TEST

/* Free a, then b after it: b's second free lies inside the merged block. */
static void kfree_twice_after_merge(void *arg)
{
	struct misuse *m = arg;
	void *a = kmalloc(40, GFP_KERNEL), *b = kmalloc(40, GFP_KERNEL);
	void *keep = kmalloc(40, GFP_KERNEL);

	(void)keep;
	m->object = b;
	kfree(a);
	kfree(b);	/* merges into a's free block */
	kfree(b);
}

START_TEST(test_kmalloc_double_free_after_merge)
{
	expect_report(kfree_twice_after_merge, shared(NULL), "double free", 40, "kmalloc");
}
END_TEST

static struct kmem_cache *cache40(void)
{
	struct kmem_cache *s = kmem_cache_create("misuse-40", 40, 0, 0, NULL);

	ck_assert_ptr_nonnull(s);
	return s;
}

/*
 * Two objects in a page; freeing one twice would make the page look empty
 * and give it back with the other still allocated.  It must be caught.
 */
static void cache_free_twice(void *arg)
{
	struct misuse *m = arg;
	void *a = kmem_cache_alloc(m->cache, GFP_KERNEL), *b = kmem_cache_alloc(m->cache, GFP_KERNEL);

	(void)b;
	m->object = a;
	kmem_cache_free(m->cache, a);
	kmem_cache_free(m->cache, a);
}

START_TEST(test_cache_double_free)
{
	expect_report(cache_free_twice, shared(cache40()), "double free", 40, "misuse-40");
}
END_TEST

static void kfree_interior(void *arg)
{
	char *p = kmalloc(64, GFP_KERNEL);

	(void)arg;
	memset(p, 0, 64);
	kfree(p + 16);
}

START_TEST(test_kfree_interior_pointer)
{
	ck_assert_aborts_with(kfree_interior, NULL, "no live object starts there");
}
END_TEST

/* SLOB's kfree cannot take a kmem_cache object: it has no header, and the
 * object map knows it for a cache's. */
static void kfree_cache_object(void *arg)
{
	struct kmem_cache *s = arg;
	char *a = kmem_cache_alloc(s, GFP_KERNEL), *b = kmem_cache_alloc(s, GFP_KERNEL);

	memset(a, 0, 40);
	kfree(b);
}

START_TEST(test_kfree_of_cache_object)
{
	ck_assert_aborts_with(kfree_cache_object, cache40(), "invalid free of object");
	ck_assert_aborts_with(kfree_cache_object, cache40(), "not a kmalloc object");
}
END_TEST

static char not_heap[64];

static void kfree_global(void *arg)
{
	(void)arg;
	kfree(not_heap + 8);
}

START_TEST(test_kfree_of_non_heap_pointer)
{
	ck_assert_aborts_with(kfree_global, NULL, "not an address of this heap");
}
END_TEST

static void cache_free_misaligned(void *arg)
{
	struct kmem_cache *s = arg;
	char *a = kmem_cache_alloc(s, GFP_KERNEL);

	kmem_cache_free(s, a + 4);
}

START_TEST(test_cache_free_misaligned)
{
	ck_assert_aborts_with(cache_free_misaligned, cache40(), "not aligned as the cache's");
}
END_TEST

/* An object of a 40-byte cache freed as if it were 400 bytes covers a free block. */
static void cache_free_wrong_cache(void *arg)
{
	struct kmem_cache *small = arg, *big = kmem_cache_create("misuse-400", 400, 0, 0, NULL);
	void *o[20];
	int i;

	(void)kmem_cache_alloc(big, GFP_KERNEL);	/* big has an object: the count agrees */
	for (i = 0; i < 20; i++)
		o[i] = kmem_cache_alloc(small, GFP_KERNEL);
	kmem_cache_free(small, o[1]);
	kmem_cache_free(big, o[0]);
}

/* The same with no object allocated in the wrong cache: its count says so. */
static void cache_free_to_empty_cache(void *arg)
{
	struct kmem_cache *small = arg, *big = kmem_cache_create("misuse-400", 400, 0, 0, NULL);

	kmem_cache_free(big, kmem_cache_alloc(small, GFP_KERNEL));
}

START_TEST(test_cache_free_wrong_cache)
{
	ck_assert_aborts_with(cache_free_wrong_cache, cache40(), "overlaps a free block");
	ck_assert_aborts_with(cache_free_to_empty_cache, cache40(),
			      "its cache has no object allocated (wrong cache?)");
}
END_TEST

static void free_page_object_twice(void *arg)
{
	struct kmem_cache *s = kmem_cache_create("misuse-8k", 8192, 0, 0, NULL);
	void *p = kmem_cache_alloc(s, GFP_KERNEL);

	(void)arg;
	kmem_cache_free(s, p);
	kmem_cache_free(s, p);
}

START_TEST(test_page_object_double_free)
{
	ck_assert_aborts_with(free_page_object_twice, NULL, "double free of object");
}
END_TEST

static void large_kfree_twice(void *arg)
{
	void *p = kmalloc(20000, GFP_KERNEL);

	(void)arg;
	kfree(p);
	kfree(p);
}

START_TEST(test_large_kmalloc_double_free)
{
	ck_assert_aborts_with(large_kfree_twice, NULL, "invalid large kmalloc pointer");
}
END_TEST

static void ksize_after_free(void *arg)
{
	void *keep = kmalloc(24, GFP_KERNEL), *p = kmalloc(24, GFP_KERNEL);

	(void)arg, (void)keep;
	kfree(p);
	(void)ksize(p);
}

START_TEST(test_ksize_of_freed_object)
{
	ck_assert_aborts_with(ksize_after_free, NULL, "not a live kmalloc object");
}
END_TEST

/* After a caught misuse nothing else was touched: the same calls, done right, work. */
START_TEST(test_correct_use_still_works)
{
	struct kmem_cache *s = cache40();
	void *a = kmem_cache_alloc(s, GFP_KERNEL), *k = kmalloc(100, GFP_KERNEL);

	kmem_cache_free(s, a);
	kfree(k);
	kfree(NULL);
	kmem_cache_free(s, NULL);
	kmem_cache_destroy(s);
}
END_TEST

static Suite *slob_misuse_suite(void)
{
	Suite *s = suite_create("slob-misuse");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_kmalloc_double_free);
	tcase_add_test(tc, test_kmalloc_double_free_page_gone);
	tcase_add_test(tc, test_kmalloc_double_free_after_merge);
	tcase_add_test(tc, test_cache_double_free);
	tcase_add_test(tc, test_kfree_interior_pointer);
	tcase_add_test(tc, test_kfree_of_cache_object);
	tcase_add_test(tc, test_kfree_of_non_heap_pointer);
	tcase_add_test(tc, test_cache_free_misaligned);
	tcase_add_test(tc, test_cache_free_wrong_cache);
	tcase_add_test(tc, test_page_object_double_free);
	tcase_add_test(tc, test_large_kmalloc_double_free);
	tcase_add_test(tc, test_ksize_of_freed_object);
	tcase_add_test(tc, test_correct_use_still_works);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (!CONFIG_SLOB)
		uslab_test_skip("SLOB's own free checks and their reports");
	return uslab_test_run(slob_misuse_suite());
}
