/* SPDX-License-Identifier: MIT */
/*
 * slub_freepointer.c - a corrupted free pointer (a write after free into
 * the word where SLUB keeps its freelist link, or a forged pointer) is
 * caught before its value is handed out as an object: "Freepointer
 * corrupt".  With debugging the allocation's checks see it (always, even
 * without F); without debugging the hardened fast path checks that the
 * head of the cpu freelist is an object of the cpu slab, and the slow path
 * reports it.  Under slab_error=repair the list is cut there and the
 * cache goes on serving from elsewhere.  See slub_misuse.h.
 */
#include "slub_misuse.h"

#if CONFIG_SLUB

/* Overwrite the free pointer word of the free object x with junk. */
static void forge_free_pointer(struct kmem_cache *s, unsigned char *x)
{
	unsigned long *fp = (unsigned long *)(x + s->offset);

	*fp ^= 0x0000123456789ab0UL;
}

static void corrupt_then_alloc(void *arg)
{
	const struct misuse_run *run = arg;
	struct kmem_cache *s = misuse_setup(run);
	unsigned char *x = victims.obj[VICTIM];
	void *a, *b;

	kmem_cache_free(s, x);
	forge_free_pointer(s, x);
	a = kmem_cache_alloc(s, GFP_KERNEL);	/* x (plain), or the report (debug) */
	b = kmem_cache_alloc(s, GFP_KERNEL);	/* the forged value (plain): the report */
	if (!run->repair)
		return;
	if (!a || !b)
		child_fail(10, "the cache stopped serving");
	/* why not x: without debugging x itself was handed out before the report */
	victims.obj[VICTIM] = a == x ? a : b == x ? b : x;
	if (a != x)
		kmem_cache_free(s, a);
	if (b != x)
		kmem_cache_free(s, b);
	misuse_repaired_end(1, a == x || b == x, false);
}

START_TEST(test_forged_pointer_debug)
{
	static const char *const words[] = {
		"BUG victim (Not tainted): Freepointer corrupt", "Object 0x", NULL
	};
	const struct misuse_run full = { "slub_debug=FZPU,victim", 0, false };
	const struct misuse_run zp = { "slub_debug=ZP,victim", 0, false };

	expect_report(corrupt_then_alloc, &full, words);
	expect_report(corrupt_then_alloc, &zp, words);
}
END_TEST

START_TEST(test_forged_pointer_hardened)
{
	static const char *const words[] = {
		"BUG victim (Not tainted): Freepointer corrupt",
		"is not an object of its slab", NULL
	};
	const struct misuse_run run = { NULL, 0, false };

	if (!CONFIG_SLAB_FREELIST_HARDENED)
		return;
	expect_report(corrupt_then_alloc, &run, words);
}
END_TEST

START_TEST(test_forged_pointer_repaired)
{
	static const char *const words[] = {
		"Freepointer corrupt", "FIX victim: Freelist cut", NULL
	};
	const struct misuse_run plain = { "slab_error=repair", 0, true };
	const struct misuse_run debug = { "slub_debug=FZPU,victim slab_error=repair", 0, true };

	if (CONFIG_SLAB_FREELIST_HARDENED)
		expect_report(corrupt_then_alloc, &plain, words);
	expect_report(corrupt_then_alloc, &debug, words);
}
END_TEST

static Suite *slub_freepointer_suite(void)
{
	Suite *s = suite_create("slub_freepointer");
	TCase *tc = tcase_create("misuse");

	tcase_add_test(tc, test_forged_pointer_debug);
	tcase_add_test(tc, test_forged_pointer_hardened);
	tcase_add_test(tc, test_forged_pointer_repaired);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(slub_freepointer_suite)

#else

int main(void)
{
	uslab_test_skip("SLUB's free pointer checks");
}

#endif
