/* SPDX-License-Identifier: MIT */
/*
 * slub_wrong_cache.c - kmem_cache_free() of an object to a cache it does
 * not come from: SLUB reports the kernel's "cache_from_obj: Wrong slab
 * cache. A but object is from B" (with the object's tracks when its cache
 * keeps them) and frees nothing; under slab_error=repair the object stays
 * allocated in its own cache.  See slub_misuse.h.
 */
#include "slub_misuse.h"

#if CONFIG_SLUB

static void free_to_other_cache(void *arg)
{
	const struct misuse_run *run = arg;
	struct kmem_cache *other;

	misuse_setup(run);
	other = kmem_cache_create("other", OBJ_SIZE, 0, SLAB_RED_ZONE, NULL);
	if (!other)
		child_fail(2, "no other cache");
	kmem_cache_free(other, victims.obj[VICTIM]);
	if (run->repair)
		misuse_repaired_end(1, true, true);
}

START_TEST(test_wrong_cache)
{
	static const char *const words[] = {
		"cache_from_obj: Wrong slab cache. other but object is from victim",
		"not freed", NULL
	};
	static const char *const tracked[] = {
		"cache_from_obj: Wrong slab cache. other but object is from victim",
		"INFO: Allocated in ", NULL
	};
	const struct misuse_run plain = { NULL, 0, false };
	const struct misuse_run debug = { "slub_debug=U,victim", 0, false };

	expect_report(free_to_other_cache, &plain, words);
	expect_report(free_to_other_cache, &debug, tracked);
}
END_TEST

START_TEST(test_wrong_cache_repaired)
{
	static const char *const words[] = {
		"Wrong slab cache. other but object is from victim",
		"FIX other: Object at 0x", NULL
	};
	const struct misuse_run run = { "slub_debug=FZPU,victim slab_error=repair", 0, true };

	expect_report(free_to_other_cache, &run, words);
}
END_TEST

static Suite *slub_wrong_cache_suite(void)
{
	Suite *s = suite_create("slub_wrong_cache");
	TCase *tc = tcase_create("misuse");

	tcase_add_test(tc, test_wrong_cache);
	tcase_add_test(tc, test_wrong_cache_repaired);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(slub_wrong_cache_suite)

#else

int main(void)
{
	uslab_test_skip("SLUB's wrong cache report");
}

#endif
