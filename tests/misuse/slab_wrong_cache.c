/* SPDX-License-Identifier: MIT */
/*
 * slab_wrong_cache.c - kmem_cache_free(b, x) where x belongs to cache a is
 * reported in the kernel's words ("kmem_cache_free: Wrong slab cache. b
 * but object is from a") and never followed: x is not freed into b.  By
 * default the report ends in abort; under slab_error=repair x goes back to
 * a, the cache it belongs to (as the kernel's cache_from_obj does), so a
 * hands it out again and b never does.  Built for SLUB or SLOB, the binary
 * skips itself.
 */
#include "slab_misuse.h"

#define OBJ_SIZE	64
#define NR_AROUND	8
#define NR_FROM_B	64

static void free_to_b(void *arg)
{
	struct misuse *m = arg;
	struct kmem_cache *b;
	void *x, *p[NR_FROM_B];
	unsigned int i;

	if (m->variant)
		parse_option_string("slab_error=repair");
	m->cache = kmem_cache_create("h2-wc-a", OBJ_SIZE, 0, SLAB_STORE_USER, NULL);
	b = kmem_cache_create("h2-wc-b", OBJ_SIZE, 0, SLAB_NOLEAKTRACE, NULL);
	misuse_add_neighbours(m, NR_AROUND, OBJ_SIZE);
	x = kmem_cache_alloc(m->cache, GFP_KERNEL);
	m->object = x;
	misuse_add_neighbours(m, NR_AROUND, OBJ_SIZE);
	kmem_cache_free(b, x);
	for (i = 0; i < NR_FROM_B; i++)
		if ((p[i] = kmem_cache_alloc(b, GFP_KERNEL)) == x)
			return;		/* b took x: no finish, the parent fails */
	if (kmem_cache_alloc(m->cache, GFP_KERNEL) != x)
		return;		/* x did not go back to a */
	for (i = 0; i < NR_FROM_B; i++)
		kmem_cache_free(b, p[i]);
	misuse_finish(m);
}

static void check(bool repair)
{
	struct misuse *m = misuse_new();
	char out[MISUSE_REPORT_LEN], how[32], ptr[32], not_freed[100];
	const char *words[] = { "kmem_cache_free: Wrong slab cache. h2-wc-b but object is from h2-wc-a",
				"Last user: (", not_freed, NULL };
	int end;

	m->variant = repair;
	end = run_expect_abort(free_to_b, m, out, sizeof(out));
	ck_assert_msg(end == (repair ? 0 : SIGABRT), "ended with %s; stderr:\n%s",
		      uslab_test_describe_end(end, how, sizeof(how)), out);
	snprintf(not_freed, sizeof(not_freed), "Object %s not freed to h2-wc-b",
		 misuse_ptr(ptr, sizeof(ptr), m->object));
	misuse_expect_words(out, words);
	if (repair)
		ck_assert_msg(m->finished && m->errors == 1 &&
			      strstr(out, "FIX h2-wc-a: Freeing to its own cache"),
			      "errors %lu; stderr:\n%s", m->errors, out);
	ck_assert_msg(m->checked && m->intact, "a neighbour was harmed; stderr:\n%s", out);
	misuse_free(m);
}

START_TEST(wrong_cache_is_reported_and_aborts)
{
	check(false);
}
END_TEST

START_TEST(wrong_cache_frees_to_the_right_one_under_repair)
{
	check(true);
}
END_TEST

static Suite *slab_wrong_cache_suite(void)
{
	Suite *s = suite_create("slab-wrong-cache");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, wrong_cache_is_reported_and_aborts);
	tcase_add_test(tc, wrong_cache_frees_to_the_right_one_under_repair);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (!CONFIG_SLAB)
		uslab_test_skip("SLAB's check of the cache an object is freed to");
	return uslab_test_run(slab_wrong_cache_suite());
}
