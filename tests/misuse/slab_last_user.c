/* SPDX-License-Identifier: MIT */
/*
 * slab_last_user.c - SLAB_STORE_USER (slab_debug=U) keeps the last caller
 * of each object, as the kernel's SLAB did: the allocator while it is
 * allocated, the freer once it is free.  A report about the object names
 * it as "Last user: (function+0xoff/0xsize)".  The functions below have
 * distinctive names (the tests link with -rdynamic, so dladdr() finds
 * them).  Built for SLUB or SLOB, the binary skips itself.
 */
#include "slab_misuse.h"

#define OBJ_SIZE	40

/* Exported (tests build with hidden visibility) and never inlined: their
 * names must be in the report. */
#define LAST_USER_FN	__attribute__((visibility("default"))) noinline
void *h2_last_user_allocator_fn(struct kmem_cache *s);
void h2_last_user_freer_fn(struct kmem_cache *s, void *x);

LAST_USER_FN void *h2_last_user_allocator_fn(struct kmem_cache *s)
{
	void *x = kmem_cache_alloc(s, GFP_KERNEL);

	/* why: no tail call, so the return address lies in this function */
	__asm__ __volatile__("" : : "r"(x) : "memory");
	return x;
}

LAST_USER_FN void h2_last_user_freer_fn(struct kmem_cache *s, void *x)
{
	kmem_cache_free(s, x);
	__asm__ __volatile__("" : : : "memory");
}

static struct kmem_cache *debug_cache(struct misuse *m)
{
	m->cache = kmem_cache_create("h2-user", OBJ_SIZE, 0,
				     SLAB_RED_ZONE | SLAB_POISON | SLAB_STORE_USER, NULL);
	misuse_add_neighbours(m, 8, OBJ_SIZE);
	return m->cache;
}

/* Overrun at free: the last user is the allocator. */
static void overrun(void *arg)
{
	struct misuse *m = arg;
	char *x = h2_last_user_allocator_fn(debug_cache(m));

	m->object = x;
	x[OBJ_SIZE] = 1;
	kmem_cache_free(m->cache, x);
}

/* Write after free, found at the next alloc: the last user is the freer. */
static void use_after_free(void *arg)
{
	struct misuse *m = arg;
	char *x = kmem_cache_alloc(debug_cache(m), GFP_KERNEL);

	m->object = x;
	h2_last_user_freer_fn(m->cache, x);
	x[3] = 0;
	kmem_cache_alloc(m->cache, GFP_KERNEL);
}

START_TEST(the_allocator_is_the_last_user_of_an_object_in_use)
{
	struct misuse *m = misuse_new();
	char out[MISUSE_REPORT_LEN];
	const char *words[] = { "memory outside object was overwritten",
				"Last user: (h2_last_user_allocator_fn+0x", NULL };

	misuse_expect_abort(overrun, m, out, words);
	misuse_free(m);
}
END_TEST

START_TEST(the_freer_is_the_last_user_of_a_free_object)
{
	struct misuse *m = misuse_new();
	char out[MISUSE_REPORT_LEN];
	const char *words[] = { "Slab corruption (Not tainted): h2-user",
				"Last user: (h2_last_user_freer_fn+0x", NULL };

	misuse_expect_abort(use_after_free, m, out, words);
	misuse_free(m);
}
END_TEST

static Suite *slab_last_user_suite(void)
{
	Suite *s = suite_create("slab-last-user");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, the_allocator_is_the_last_user_of_an_object_in_use);
	tcase_add_test(tc, the_freer_is_the_last_user_of_a_free_object);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (!CONFIG_SLAB)
		uslab_test_skip("SLAB's last-user words in its reports");
	return uslab_test_run(slab_last_user_suite());
}
