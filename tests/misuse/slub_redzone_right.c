/* SPDX-License-Identifier: MIT */
/*
 * slub_redzone_right.c - a write one byte past the end of an object (an
 * overflow) lands in SLUB's right red zone; with consistency checks (F)
 * and red zones (Z), from slub_debug= or from the creation flags, the
 * free reports "Right Redzone overwritten" with the offending byte, the
 * object's bytes and tracks.  Under slab_error=repair the red zone is
 * restored, the object is not freed, and the program goes on with every
 * other object intact.  See slub_misuse.h for how a child runs.
 */
#include "slub_misuse.h"

#if CONFIG_SLUB

static void overflow_by_one(void *arg)
{
	const struct misuse_run *run = arg;
	struct kmem_cache *s = misuse_setup(run);

	victims.obj[VICTIM][OBJ_SIZE] = 0x42;	/* one byte past object_size */
	kmem_cache_free(s, victims.obj[VICTIM]);
	if (run->repair)
		misuse_repaired_end(1, true, true);
}

static const char *const words[] = {
	"BUG victim (Not tainted): Right Redzone overwritten",
	"@offset=", "First byte 0x42 instead of 0xcc",
	"Redzone  ", "Object   ", NULL
};

START_TEST(test_overflow_option)
{
	const struct misuse_run run = { "slub_debug=FZ,victim", 0, false };

	expect_report(overflow_by_one, &run, words);
}
END_TEST

START_TEST(test_overflow_creation_flags)
{
	const struct misuse_run run = { NULL, SLAB_RED_ZONE | SLAB_CONSISTENCY_CHECKS, false };

	expect_report(overflow_by_one, &run, words);
}
END_TEST

START_TEST(test_overflow_repaired)
{
	static const char *const fixed[] = {
		"BUG victim (Not tainted): Right Redzone overwritten",
		"INFO: Allocated in ", "FIX victim: Restoring Right Redzone 0x",
		"FIX victim: Object at 0x", NULL
	};
	const struct misuse_run run = { "slub_debug=FZPU,victim slab_error=repair", 0, true };

	expect_report(overflow_by_one, &run, fixed);
}
END_TEST

static Suite *slub_redzone_right_suite(void)
{
	Suite *s = suite_create("slub_redzone_right");
	TCase *tc = tcase_create("misuse");

	tcase_add_test(tc, test_overflow_option);
	tcase_add_test(tc, test_overflow_creation_flags);
	tcase_add_test(tc, test_overflow_repaired);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(slub_redzone_right_suite)

#else

int main(void)
{
	uslab_test_skip("SLUB's right red zone report");
}

#endif
