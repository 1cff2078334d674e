/* SPDX-License-Identifier: MIT */
/*
 * slub_double_free.c - freeing an object twice.  With consistency checks
 * (F) SLUB finds the object on its slab's freelist and reports "Object
 * already free" with its owner tracks; under slab_error=repair the second
 * free is ignored.  Without debugging, the hardened free path's naive
 * check still catches the object that heads the freelist ("Object already
 * free: double free of ..."), and that one always aborts: it fires inside
 * a freelist update, where going on would corrupt the list.  See
 * slub_misuse.h.
 */
#include "slub_misuse.h"

#if CONFIG_SLUB

static void free_twice(void *arg)
{
	const struct misuse_run *run = arg;
	struct kmem_cache *s = misuse_setup(run);

	kmem_cache_free(s, victims.obj[VICTIM]);
	kmem_cache_free(s, victims.obj[VICTIM]);
	if (run->repair)
		misuse_repaired_end(1, false, true);
}

START_TEST(test_double_free_debug)
{
	static const char *const words[] = {
		"BUG victim (Not tainted): Object already free",
		"INFO: Allocated in ", "INFO: Freed in ", "Object   ", NULL
	};
	const struct misuse_run run = { "slub_debug=FZPU,victim", 0, false };

	expect_report(free_twice, &run, words);
}
END_TEST

START_TEST(test_double_free_creation_flags)
{
	static const char *const words[] = {
		"BUG victim (Not tainted): Object already free", NULL
	};
	const struct misuse_run run = { NULL, SLAB_CONSISTENCY_CHECKS, false };

	expect_report(free_twice, &run, words);
}
END_TEST

START_TEST(test_double_free_repaired)
{
	static const char *const words[] = {
		"Object already free", "FIX victim: Object at 0x", NULL
	};
	const struct misuse_run run = { "slub_debug=FZPU,victim slab_error=repair", 0, true };

	expect_report(free_twice, &run, words);
}
END_TEST

START_TEST(test_double_free_naive_check)
{
	static const char *const words[] = {
		"BUG victim (Not tainted): Object already free: double free of 0x",
		"kernel BUG at mm/slub.c:set_freepointer!", NULL
	};
	const struct misuse_run run = { NULL, 0, false };
	/* always fatal: the same end under slab_error=repair */
	const struct misuse_run repair = { "slab_error=repair", 0, false };

	if (!CONFIG_SLAB_FREELIST_HARDENED)
		return;
	expect_report(free_twice, &run, words);
	expect_report(free_twice, &repair, words);
}
END_TEST

static Suite *slub_double_free_suite(void)
{
	Suite *s = suite_create("slub_double_free");
	TCase *tc = tcase_create("misuse");

	tcase_add_test(tc, test_double_free_debug);
	tcase_add_test(tc, test_double_free_creation_flags);
	tcase_add_test(tc, test_double_free_repaired);
	tcase_add_test(tc, test_double_free_naive_check);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(slub_double_free_suite)

#else

int main(void)
{
	uslab_test_skip("SLUB's double free reports");
}

#endif
