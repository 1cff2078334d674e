/* SPDX-License-Identifier: MIT */
/*
 * slub_use_after_free.c - a write into an object after it was freed
 * changes SLUB's poison (P): the next allocation that would hand the
 * object out reports "Poison overwritten" (F), and validate finds it too.
 * Under slab_error=repair the poison is restored and the slab abandoned
 * ("Marking all objects used"): the allocation is served from another
 * slab and no live object is touched.  See slub_misuse.h.
 */
#include "slub_misuse.h"

#if CONFIG_SLUB

static void write_after_free(void *arg)
{
	const struct misuse_run *run = arg;
	struct kmem_cache *s = misuse_setup(run);
	unsigned char *x = victims.obj[VICTIM];
	void *again;

	kmem_cache_free(s, x);
	x[8] = 0x42;		/* the write after free */
	again = kmem_cache_alloc(s, GFP_KERNEL);	/* the freed object heads its slab's list */
	if (!run->repair)
		return;
	if (!again || again == x)
		child_fail(10, "the damaged object was handed out");
	kmem_cache_free(s, again);
	misuse_repaired_end(1, false, false);
}

static void write_after_free_validate(void *arg)
{
	const struct misuse_run *run = arg;
	struct kmem_cache *s = misuse_setup(run);

	kmem_cache_free(s, victims.obj[VICTIM]);
	victims.obj[VICTIM][OBJ_SIZE - 1] = 0;		/* the last byte: POISON_END */
	kmem_cache_validate(s);
}

START_TEST(test_write_after_free)
{
	static const char *const words[] = {
		"BUG victim (Not tainted): Poison overwritten",
		"First byte 0x42 instead of 0x6b", "Object   ", NULL
	};
	const struct misuse_run run = { "slub_debug=FP,victim", 0, false };

	expect_report(write_after_free, &run, words);
}
END_TEST

START_TEST(test_write_after_free_found_by_validate)
{
	static const char *const words[] = {
		"BUG victim (Not tainted): End Poison overwritten",
		"First byte 0x0 instead of 0xa5", NULL
	};
	const struct misuse_run run = { NULL, SLAB_POISON | SLAB_CONSISTENCY_CHECKS, false };

	expect_report(write_after_free_validate, &run, words);
}
END_TEST

START_TEST(test_write_after_free_repaired)
{
	static const char *const words[] = {
		"Poison overwritten", "FIX victim: Restoring Poison 0x",
		"FIX victim: Marking all objects used", NULL
	};
	const struct misuse_run run = { "slub_debug=FZPU,victim slab_error=repair", 0, true };

	expect_report(write_after_free, &run, words);
}
END_TEST

static Suite *slub_use_after_free_suite(void)
{
	Suite *s = suite_create("slub_use_after_free");
	TCase *tc = tcase_create("misuse");

	tcase_add_test(tc, test_write_after_free);
	tcase_add_test(tc, test_write_after_free_found_by_validate);
	tcase_add_test(tc, test_write_after_free_repaired);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(slub_use_after_free_suite)

#else

int main(void)
{
	uslab_test_skip("SLUB's poisoning report");
}

#endif
