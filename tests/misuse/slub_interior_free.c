/* SPDX-License-Identifier: MIT */
/*
 * slub_interior_free.c - freeing a pointer into the middle of an object:
 * SLUB reports "Invalid object pointer" (always checked, debug or not)
 * and frees nothing; under slab_error=repair the object stays allocated
 * and intact, and can still be freed properly.  See slub_misuse.h.
 */
#include "slub_misuse.h"

#if CONFIG_SLUB

static void free_interior(void *arg)
{
	const struct misuse_run *run = arg;
	struct kmem_cache *s = misuse_setup(run);

	kmem_cache_free(s, victims.obj[VICTIM] + 8);
	if (!run->repair)
		return;
	if (victims.obj[VICTIM][0] != pattern_of(VICTIM))
		child_fail(10, "the object was touched");
	misuse_repaired_end(1, true, true);
}

static const char *const words[] = {
	"BUG victim (Not tainted): Invalid object pointer 0x",
	"is not the start of an object", NULL
};

START_TEST(test_interior_pointer)
{
	const struct misuse_run plain = { NULL, 0, false };
	const struct misuse_run debug = { "slub_debug=FZPU,victim", 0, false };

	expect_report(free_interior, &plain, words);
	expect_report(free_interior, &debug, words);
}
END_TEST

START_TEST(test_interior_pointer_repaired)
{
	static const char *const fixed[] = {
		"Invalid object pointer 0x", "FIX victim: Object at 0x", NULL
	};
	const struct misuse_run plain = { "slab_error=repair", 0, true };
	const struct misuse_run debug = { "slub_debug=FZPU,victim slab_error=repair", 0, true };

	expect_report(free_interior, &plain, fixed);
	expect_report(free_interior, &debug, fixed);
}
END_TEST

static Suite *slub_interior_free_suite(void)
{
	Suite *s = suite_create("slub_interior_free");
	TCase *tc = tcase_create("misuse");

	tcase_add_test(tc, test_interior_pointer);
	tcase_add_test(tc, test_interior_pointer_repaired);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(slub_interior_free_suite)

#else

int main(void)
{
	uslab_test_skip("SLUB's invalid object pointer report");
}

#endif
