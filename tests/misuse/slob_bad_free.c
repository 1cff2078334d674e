/* SPDX-License-Identifier: MIT */
/*
 * slob_bad_free.c - SLOB refuses a free of anything that is not a live
 * object's start, before it writes anything: an interior pointer (of a
 * kmalloc object, or of a cache object with live objects after it, which
 * a SLOB without object maps would have freed together with them), a
 * misaligned pointer, a kmem_cache object given to kfree, a kmalloc object
 * given to kmem_cache_free, and a pointer outside the heap.  Each is
 * reported as "slob: invalid free of object 0x... (size N) in CACHE:
 * <why>" (or "slob: kfree of 0x...: not an address of this heap") and
 * aborts with the neighbours intact.  Built for SLUB or SLAB, the binary
 * skips itself.
 */
#include "slab_misuse.h"

#define OBJ_SIZE	72
#define NR_AROUND	10

enum bad { KMALLOC_INTERIOR, CACHE_INTERIOR, MISALIGNED, KFREE_OF_CACHE_OBJECT,
	   CACHE_FREE_OF_KMALLOC_OBJECT, OUTSIDE_THE_HEAP };

static void free_bad(void *arg)
{
	struct misuse *m = arg;
	static char outside[64];
	char *x;

	m->cache = kmem_cache_create("h2-slob-bad", OBJ_SIZE, 0, 0, NULL);
	misuse_add_neighbours(m, NR_AROUND, OBJ_SIZE);
	x = m->variant == KMALLOC_INTERIOR || m->variant == CACHE_FREE_OF_KMALLOC_OBJECT ?
		__kmalloc(OBJ_SIZE, GFP_KERNEL) : kmem_cache_alloc(m->cache, GFP_KERNEL);
	misuse_add_neighbours(m, NR_AROUND, OBJ_SIZE);
	switch (m->variant) {
	case KMALLOC_INTERIOR:
		m->object = x + 16;
		kfree(m->object);
		break;
	case CACHE_INTERIOR:
		m->object = x + 16;
		kmem_cache_free(m->cache, m->object);
		break;
	case MISALIGNED:
		m->object = x + 4;
		kmem_cache_free(m->cache, m->object);
		break;
	case KFREE_OF_CACHE_OBJECT:
		m->object = x;
		kfree(x);
		break;
	case CACHE_FREE_OF_KMALLOC_OBJECT:
		m->object = x;
		kmem_cache_free(m->cache, x);
		break;
	default:
		m->object = outside;
		kfree(outside);
	}
	misuse_finish(m);
}

/* The report names the object: "<prefix>0x<object><rest>"; and says why. */
static void check(enum bad which, const char *prefix, const char *rest, const char *why)
{
	struct misuse *m = misuse_new();
	char out[MISUSE_REPORT_LEN], want[200], ptr[32];
	const char *words[] = { why, NULL, NULL };

	m->variant = which;
	misuse_expect_abort(free_bad, m, out, words);
	snprintf(want, sizeof(want), "%s%s%s", prefix, misuse_ptr(ptr, sizeof(ptr), m->object),
		 rest);
	words[0] = want;
	misuse_expect_words(out, words);
	misuse_free(m);
}

#define INVALID	"slob: invalid free of object "
#define NOT_LIVE "no live object starts there (an interior pointer, or freed already)"

START_TEST(interior_pointer_of_a_kmalloc_object)
{
	check(KMALLOC_INTERIOR, INVALID, " (size 0) in kmalloc", NOT_LIVE);
}
END_TEST

START_TEST(interior_pointer_of_a_cache_object)
{
	check(CACHE_INTERIOR, INVALID, " (size 72) in h2-slob-bad", NOT_LIVE);
}
END_TEST

START_TEST(misaligned_pointer)
{
	check(MISALIGNED, INVALID, " (size 72) in h2-slob-bad", "not aligned as the cache's");
}
END_TEST

START_TEST(kfree_of_a_cache_object)
{
	check(KFREE_OF_CACHE_OBJECT, INVALID, " (size 0) in kmalloc",
	      "not a kmalloc object (free it with kmem_cache_free)");
}
END_TEST

START_TEST(kmem_cache_free_of_a_kmalloc_object)
{
	check(CACHE_FREE_OF_KMALLOC_OBJECT, INVALID, " (size 72) in h2-slob-bad",
	      "it is a kmalloc object (free it with kfree)");
}
END_TEST

START_TEST(pointer_outside_the_heap)
{
	check(OUTSIDE_THE_HEAP, "slob: kfree of ", ": not an address of this heap", "slob: kfree");
}
END_TEST

static Suite *slob_bad_free_suite(void)
{
	Suite *s = suite_create("slob-bad-free");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, interior_pointer_of_a_kmalloc_object);
	tcase_add_test(tc, interior_pointer_of_a_cache_object);
	tcase_add_test(tc, misaligned_pointer);
	tcase_add_test(tc, kfree_of_a_cache_object);
	tcase_add_test(tc, kmem_cache_free_of_a_kmalloc_object);
	tcase_add_test(tc, pointer_outside_the_heap);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (!CONFIG_SLOB)
		uslab_test_skip("SLOB's checks of the pointers it frees");
	return uslab_test_run(slob_bad_free_suite());
}
