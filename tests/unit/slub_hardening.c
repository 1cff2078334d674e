/* SPDX-License-Identifier: MIT */
/*
 * slub_hardening.c - SLUB's freelist hardening and randomisation, and its
 * reports of bad frees: new slabs hand their objects out in a shuffled
 * order from a random start (each exactly once); a free object's free
 * pointer is stored encoded, so no plain heap address shows in it; a
 * naive double free, a pointer into the middle of an object, a pointer
 * that is no slab object, and a free to the wrong cache are each reported
 * in the kernel's words and abort before anything is corrupted; a free
 * pointer forged to a non-object is caught before it is handed out.
 */
#include "common/test.h"

#include <stdint.h>
#include <stdlib.h>
#include "mm/slab.h"

#if CONFIG_SLUB

#define NSLABS	4

static struct kmem_cache *test_cache(const char *name, unsigned int size)
{
	struct kmem_cache *s = kmem_cache_create(name, size, 0, SLAB_NOLEAKTRACE, NULL);

	ck_assert_ptr_nonnull(s);
	return s;
}

static unsigned int objs_per_slab(const struct kmem_cache *s)
{
	return s->oo.x & 0xffff;
}

START_TEST(test_new_slabs_are_shuffled)
{
	struct kmem_cache *s = test_cache("shuffle", 64);
	unsigned int n = objs_per_slab(s), i, k, identity = 0, same_as_first = 0;
	unsigned int *order = calloc((size_t)NSLABS * n, sizeof(*order));
	char **objs = calloc((size_t)NSLABS * n, sizeof(*objs));
	unsigned char *seen = calloc(n, 1);

	if (!CONFIG_SLAB_FREELIST_RANDOM)
		return;
	ck_assert_uint_ge(n, 32);
	/* one thread, no frees: the objects come slab after slab */
	for (i = 0; i < NSLABS * n; i++)
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
	for (k = 0; k < NSLABS; k++) {
		char *base = slab_address(virt_to_slab(objs[k * n]));
		unsigned int in_order = 0;

		memset(seen, 0, n);
		for (i = 0; i < n; i++) {
			char *x = objs[k * n + i];

			ck_assert_ptr_eq(virt_to_slab(x), virt_to_slab(base));
			order[k * n + i] = (unsigned int)((x - base) / s->size);
			ck_assert_uint_eq((x - base) % s->size, 0);
			ck_assert_msg(!seen[order[k * n + i]], "object handed out twice");
			seen[order[k * n + i]] = 1;
			in_order += order[k * n + i] == i;
		}
		identity += in_order == n;
		if (k && !memcmp(order, order + k * n, n * sizeof(*order)))
			same_as_first++;
	}
	ck_assert_msg(identity < NSLABS, "every slab was in address order");
	ck_assert_msg(same_as_first < NSLABS - 1, "every slab had the same order");
	for (i = 0; i < NSLABS * n; i++)
		kmem_cache_free(s, objs[i]);
	free(order);
	free(objs);
	free(seen);
	kmem_cache_destroy(s);
}
END_TEST

/* The random sequence is made with a cache's first slab, not before (a
 * cache that never makes a slab costs none), and that slab is shuffled. */
START_TEST(test_first_slab_makes_the_sequence)
{
	struct kmem_cache *s = test_cache("shuffle-first", 64);
	unsigned int n = objs_per_slab(s), i, in_order = 0;
	char **objs = calloc(n, sizeof(*objs));
	char *base;

	if (!CONFIG_SLAB_FREELIST_RANDOM)
		return;
	ck_assert_ptr_null(s->random_seq);
	for (i = 0; i < n; i++)
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
	ck_assert_ptr_nonnull(s->random_seq);
	ck_assert_uint_eq(s->random_seq->count, n);
	base = slab_address(virt_to_slab(objs[0]));
	for (i = 0; i < n; i++) {
		ck_assert_ptr_eq(slab_address(virt_to_slab(objs[i])), base);
		in_order += objs[i] == base + (size_t)i * s->size;
	}
	ck_assert_msg(in_order < n, "the first slab was in address order");
	for (i = 0; i < n; i++)
		kmem_cache_free(s, objs[i]);
	free(objs);
	kmem_cache_destroy(s);
}
END_TEST

START_TEST(test_free_pointers_are_encoded)
{
	struct kmem_cache *s = test_cache("encoded", 64);
	unsigned int n = objs_per_slab(s), i, w, plain = 0;
	void **objs = calloc(n, sizeof(*objs));
	uintptr_t lo, hi;

	if (!CONFIG_SLAB_FREELIST_HARDENED)
		return;
	/* a whole slab of our own: drain the cpu slab, then take one full slab */
	for (i = 0; i < n; i++)
		objs[i] = kmem_cache_alloc_node(s, GFP_KERNEL | __GFP_ZERO, 0);
	lo = (uintptr_t)slab_address(virt_to_slab(objs[n - 1]));
	hi = lo + slab_size(virt_to_slab(objs[n - 1]));
	for (i = 0; i < n; i++)
		kmem_cache_free(s, objs[i]);
	/* every word of every free object: none may look like a slab address */
	for (i = 0; i < n; i++) {
		uintptr_t *word = objs[i];

		for (w = 0; w < 64 / sizeof(*word); w++)
			plain += word[w] >= lo && word[w] < hi;
	}
	ck_assert_msg(plain == 0, "%u free-object words hold plain slab addresses", plain);
	free(objs);
	kmem_cache_destroy(s);
}
END_TEST

static void double_free(void *arg)
{
	struct kmem_cache *s = kmem_cache_create((const char *)arg, 96, 0, 0, NULL);
	void *x = kmem_cache_alloc(s, GFP_KERNEL);

	kmem_cache_free(s, x);
	kmem_cache_free(s, x);
}

START_TEST(test_naive_double_free_reported)
{
	ck_assert_aborts_with(double_free, "df-cache", "double free");
	ck_assert_aborts_with(double_free, "df-cache", "BUG df-cache");
}
END_TEST

static void double_kfree_remote_slab(void *arg)
{
	void *x = kmalloc_index_alloc(7, 128, GFP_KERNEL, NUMA_NO_NODE), *fill[256];
	unsigned int i;

	(void)arg;
	/* move the cpu slab on, so x's slab is not the cpu slab any more */
	for (i = 0; i < 256; i++)
		fill[i] = kmalloc_index_alloc(7, 128, GFP_KERNEL, NUMA_NO_NODE);
	kfree(x);
	kfree(x);
	(void)fill;
}

START_TEST(test_double_free_on_slab_freelist_reported)
{
	ck_assert_aborts_with(double_kfree_remote_slab, NULL, "BUG kmalloc-128");
	ck_assert_aborts_with(double_kfree_remote_slab, NULL, "double free");
}
END_TEST

static void free_interior(void *arg)
{
	char *x = __kmalloc(64, GFP_KERNEL);

	(void)arg;
	kfree(x + 8);
}

START_TEST(test_interior_pointer_reported)
{
	ck_assert_aborts_with(free_interior, NULL, "Invalid object pointer");
}
END_TEST

static void free_stack_pointer(void *arg)
{
	int local = 0;

	(void)arg;
	kfree(&local);
}

static void free_libc_pointer(void *arg)
{
	struct kmem_cache *s = kmem_cache_create("libc-victim", 32, 0, 0, NULL);

	(void)arg;
	kmem_cache_free(s, malloc(32));
}

START_TEST(test_foreign_pointers_reported)
{
	ck_assert_aborts_with(free_stack_pointer, NULL, "kfree: invalid pointer 0x");
	ck_assert_aborts_with(free_libc_pointer, NULL, "kmem_cache_free: invalid pointer 0x");
}
END_TEST

static void free_to_wrong_cache(void *arg)
{
	struct kmem_cache *a = kmem_cache_create("cache-a", 48, 0, SLAB_NOLEAKTRACE, NULL);
	struct kmem_cache *b = kmem_cache_create("cache-b", 48, 0, SLAB_NOLEAKTRACE, NULL);
	void *x = kmem_cache_alloc(b, GFP_KERNEL);

	(void)arg;
	kmem_cache_free(a, x);
}

START_TEST(test_wrong_cache_reported)
{
	ck_assert_aborts_with(free_to_wrong_cache, NULL,
			      "cache_from_obj: Wrong slab cache. cache-a but object is from cache-b");
}
END_TEST

/*
 * A free pointer forged with the right encoding (as an attacker who knows
 * the key would) to an address outside the cpu slab's objects: an object of
 * another cache's slab (arg 0), the word before the slab's first object
 * (arg 1), the first address past its last object (arg 2).  The fast path
 * must not hand it out.  (A link aimed inside the slab, at an object start
 * or not, passes the alloc fast path's range test by design: see
 * cpu_freelist_object_ok in slub_fastpath.h; the free of such a pointer is still
 * checked exactly.)
 */
/* Write target into free object x's free pointer word, encoded as
 * slub_internal.h does: XOR with s->random, x's own address and the
 * byte-swapped region of 2^(PAGE_SHIFT + MAX_ORDER_LIMIT - 1) bytes x
 * lies in. */
static void forge_free_pointer(const struct kmem_cache *s, void *x, const void *target)
{
	unsigned long region = (unsigned long)x >> (PAGE_SHIFT + MAX_ORDER_LIMIT - 1);

	*(unsigned long *)((char *)x + s->offset) =
		(unsigned long)target ^ s->random ^ (unsigned long)x ^ __builtin_bswap64(region);
}

static void forged_free_pointer(void *arg)
{
	struct kmem_cache *s = test_cache("forge", 64), *t = test_cache("forge-other", 64);
	char *x = kmem_cache_alloc(s, GFP_KERNEL);
	char *first = slab_address(virt_to_slab(x));
	char *target;

	if (arg == NULL)
		target = kmem_cache_alloc(t, GFP_KERNEL);
	else if (arg == (void *)1)
		target = first - sizeof(void *);
	else
		target = first + (size_t)objs_per_slab(s) * s->size;
	kmem_cache_free(s, x);		/* x heads the cpu freelist */
	forge_free_pointer(s, x, target);
	ck_assert_ptr_eq(kmem_cache_alloc(s, GFP_KERNEL), x);
	kmem_cache_alloc(s, GFP_KERNEL);	/* would be target */
}

/* The control for the test below: the same forgery aimed at an object
 * start of the cpu slab is followed, so the encoding above is the
 * allocator's, and what the test below sees caught is its range test. */
START_TEST(test_forged_link_inside_slab_followed)
{
	struct kmem_cache *s = test_cache("forge-in", 64);
	char *x, *y;

	if (!CONFIG_SLAB_FREELIST_HARDENED)
		return;
	x = kmem_cache_alloc(s, GFP_KERNEL);
	y = kmem_cache_alloc(s, GFP_KERNEL);	/* live: only the forged link leads here */
	ck_assert_ptr_eq(virt_to_slab(x), virt_to_slab(y));
	kmem_cache_free(s, x);
	forge_free_pointer(s, x, y);
	ck_assert_ptr_eq(kmem_cache_alloc(s, GFP_KERNEL), x);
	ck_assert_ptr_eq(kmem_cache_alloc(s, GFP_KERNEL), y);
}
END_TEST

START_TEST(test_forged_free_pointer_caught)
{
	if (!CONFIG_SLAB_FREELIST_HARDENED)
		return;
	for (long i = 0; i < 3; i++)
		ck_assert_aborts_with(forged_free_pointer, (void *)i,
				      "BUG forge (Not tainted): Freepointer corrupt");
}
END_TEST

START_TEST(test_null_frees_are_no_ops)
{
	struct kmem_cache *s = test_cache("nulls", 32);

	kfree(NULL);
	kfree(ZERO_SIZE_PTR);
	kmem_cache_free(s, NULL);
	kmem_cache_destroy(s);
}
END_TEST

static Suite *slub_hardening_suite(void)
{
	Suite *s = suite_create("slub_hardening");
	TCase *tc = tcase_create("hardening");

	tcase_add_test(tc, test_new_slabs_are_shuffled);
	tcase_add_test(tc, test_first_slab_makes_the_sequence);
	tcase_add_test(tc, test_free_pointers_are_encoded);
	tcase_add_test(tc, test_naive_double_free_reported);
	tcase_add_test(tc, test_double_free_on_slab_freelist_reported);
	tcase_add_test(tc, test_interior_pointer_reported);
	tcase_add_test(tc, test_foreign_pointers_reported);
	tcase_add_test(tc, test_wrong_cache_reported);
	tcase_add_test(tc, test_forged_link_inside_slab_followed);
	tcase_add_test(tc, test_forged_free_pointer_caught);
	tcase_add_test(tc, test_null_frees_are_no_ops);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(slub_hardening_suite)

#else

int main(void)
{
	uslab_test_skip("SLUB's freelist hardening, randomisation and free checks");
}

#endif
