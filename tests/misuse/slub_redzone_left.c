/* SPDX-License-Identifier: MIT */
/*
 * slub_redzone_left.c - a write one byte before an object (an underflow)
 * lands in SLUB's left red zone: with F and Z the free reports "Left
 * Redzone overwritten"; under slab_error=repair the red zone is restored,
 * the object kept, and nothing else harmed.  See slub_misuse.h.
 */
#include "slub_misuse.h"

#if CONFIG_SLUB

static void underflow_by_one(void *arg)
{
	const struct misuse_run *run = arg;
	struct kmem_cache *s = misuse_setup(run);

	victims.obj[VICTIM][-1] = 0x42;		/* one byte before the object */
	kmem_cache_free(s, victims.obj[VICTIM]);
	if (run->repair)
		misuse_repaired_end(1, true, true);
}

START_TEST(test_underflow_option)
{
	static const char *const words[] = {
		"BUG victim (Not tainted): Left Redzone overwritten",
		"First byte 0x42 instead of 0xcc", "Redzone  ", NULL
	};
	const struct misuse_run run = { "slub_debug=FZ,vic*", 0, false };

	expect_report(underflow_by_one, &run, words);
}
END_TEST

START_TEST(test_underflow_creation_flags)
{
	static const char *const words[] = {
		"BUG victim (Not tainted): Left Redzone overwritten", NULL
	};
	const struct misuse_run run = { NULL, SLAB_RED_ZONE | SLAB_CONSISTENCY_CHECKS |
					SLAB_POISON, false };

	expect_report(underflow_by_one, &run, words);
}
END_TEST

START_TEST(test_underflow_repaired)
{
	static const char *const words[] = {
		"Left Redzone overwritten", "FIX victim: Restoring Left Redzone 0x", NULL
	};
	const struct misuse_run run = { "slub_debug=FZPU,victim slab_error=repair", 0, true };

	expect_report(underflow_by_one, &run, words);
}
END_TEST

static Suite *slub_redzone_left_suite(void)
{
	Suite *s = suite_create("slub_redzone_left");
	TCase *tc = tcase_create("misuse");

	tcase_add_test(tc, test_underflow_option);
	tcase_add_test(tc, test_underflow_creation_flags);
	tcase_add_test(tc, test_underflow_repaired);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(slub_redzone_left_suite)

#else

int main(void)
{
	uslab_test_skip("SLUB's left red zone report");
}

#endif
