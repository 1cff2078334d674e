/* SPDX-License-Identifier: MIT */
/*
 * slub_debug_options.c - the slub_debug= option (alias slab_debug=) as
 * the kernel parses it: global flags, the per-cache form with ';'-separated
 * blocks and trailing-'*' globs, F Z P U T A O and '-', the bare form
 * (FZPU), malformed values reported on stderr and rejected whole; and
 * failslab= and slab_error=.  The parser (debug_options.c) serves every
 * allocator, so those checks run on all three; the last group checks what
 * SLUB makes of the flags (named caches get them, are not merged, O drops
 * metadata that would raise the slab order) and runs on SLUB only.
 */
#include "common/test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "mm/slab.h"
#include "mm/memcheck.h"

#define FZPU	(SLAB_CONSISTENCY_CHECKS | SLAB_RED_ZONE | SLAB_POISON | SLAB_STORE_USER)

/* Parse one option item, which must be accepted. */
static void opt(const char *item)
{
	ck_assert_msg(parse_option_string(item) == 0, "'%s' was rejected", item);
}

static slab_flags_t flags_for(const char *name)
{
	return slab_debug_flags_for(name, 0);
}

/* Every test starts from the defaults, even with CK_FORK=no. */
static void reset_options(void)
{
	ck_assert_int_eq(parse_option_string("slub_debug=- failslab=1 slab_error=abort"), 0);
}

START_TEST(test_off_by_default)
{
	ck_assert_uint_eq(flags_for("kmalloc-64"), 0);
	ck_assert(!slab_debug_order_guard());
	ck_assert(!slab_should_failslab(GFP_KERNEL | __GFP_NOFAIL));
}
END_TEST

START_TEST(test_bare_option_is_fzpu)
{
	opt("slub_debug");
	ck_assert_uint_eq(flags_for("anything"), FZPU);
	opt("slub_debug=-");
	ck_assert_uint_eq(flags_for("anything"), 0);
	opt("slub_debug=");
	ck_assert_uint_eq(flags_for("anything"), FZPU);
}
END_TEST

START_TEST(test_global_letters)
{
	opt("slub_debug=FZPUTA");
	ck_assert_uint_eq(flags_for("x"), FZPU | SLAB_TRACE | SLAB_FAILSLAB);
	opt("slub_debug=zp");		/* either case */
	ck_assert_uint_eq(flags_for("x"), SLAB_RED_ZONE | SLAB_POISON);
	opt("slub_debug=FZ-P");		/* '-' clears what came before */
	ck_assert_uint_eq(flags_for("x"), SLAB_POISON);
}
END_TEST

START_TEST(test_per_cache_blocks)
{
	opt("slub_debug=FZ,kmalloc-64,dentry*;P,other");
	ck_assert_uint_eq(flags_for("kmalloc-64"), SLAB_CONSISTENCY_CHECKS | SLAB_RED_ZONE);
	ck_assert_uint_eq(flags_for("dentry"), SLAB_CONSISTENCY_CHECKS | SLAB_RED_ZONE);
	ck_assert_uint_eq(flags_for("dentry_cache"), SLAB_CONSISTENCY_CHECKS | SLAB_RED_ZONE);
	ck_assert_uint_eq(flags_for("other"), SLAB_POISON);
	/* names match exactly unless they end in '*' */
	ck_assert_uint_eq(flags_for("kmalloc-640"), 0);
	ck_assert_uint_eq(flags_for("kmalloc-6"), 0);
	ck_assert_uint_eq(flags_for("others"), 0);
	ck_assert_uint_eq(flags_for("dentr"), 0);
}
END_TEST

START_TEST(test_global_and_per_cache)
{
	opt("slub_debug=U;FZ,foo;-,quiet");
	ck_assert_uint_eq(flags_for("foo"), SLAB_CONSISTENCY_CHECKS | SLAB_RED_ZONE);
	ck_assert_uint_eq(flags_for("quiet"), 0);	/* a block naming it wins */
	ck_assert_uint_eq(flags_for("bar"), SLAB_STORE_USER);
	/* the first block that names a cache applies */
	opt("slub_debug=P,a*;Z,abc");
	ck_assert_uint_eq(flags_for("abc"), SLAB_POISON);
}
END_TEST

START_TEST(test_names_without_letters_are_fzpu)
{
	opt("slub_debug=,foo,bar");
	ck_assert_uint_eq(flags_for("foo"), FZPU);
	ck_assert_uint_eq(flags_for("bar"), FZPU);
	ck_assert_uint_eq(flags_for("baz"), 0);
	opt("slub_debug=;;FZ;;");	/* empty blocks are skipped */
	ck_assert_uint_eq(flags_for("baz"), SLAB_CONSISTENCY_CHECKS | SLAB_RED_ZONE);
	opt("slub_debug=T,*");		/* a lone '*' names every cache */
	ck_assert_uint_eq(flags_for("whatever"), SLAB_TRACE);
}
END_TEST

START_TEST(test_noleaktrace_caches_not_tracked_by_default)
{
	opt("slub_debug=FZPU");
	ck_assert_uint_eq(slab_debug_flags_for("kmemleak", SLAB_NOLEAKTRACE), FZPU & ~SLAB_STORE_USER);
	opt("slub_debug=U,kmemleak");
	ck_assert_uint_eq(slab_debug_flags_for("kmemleak", SLAB_NOLEAKTRACE), SLAB_STORE_USER);
}
END_TEST

START_TEST(test_order_guard)
{
	opt("slub_debug=FZPUO");
	ck_assert(slab_debug_order_guard());
	ck_assert_uint_eq(flags_for("x"), FZPU);
	opt("slub_debug=FZ");
	ck_assert(!slab_debug_order_guard());
	opt("slub_debug=O,big*");
	ck_assert(slab_debug_order_guard());
}
END_TEST

START_TEST(test_slab_debug_alias)
{
	opt("slab_debug=P,x");
	ck_assert_uint_eq(flags_for("x"), SLAB_POISON);
	opt("slab_debug");
	ck_assert_uint_eq(flags_for("y"), FZPU);
}
END_TEST

/* In a child: parse the item (the setting before it: FZ), exit with
 * 10 * rejected + (1 if the setting changed). */
static void parse_in_child(void *arg)
{
	int rejected;

	parse_option_string("slub_debug=FZ");
	rejected = parse_option_string((const char *)arg);
	exit(10 * rejected + (flags_for("x") != (SLAB_CONSISTENCY_CHECKS | SLAB_RED_ZONE)));
}

/* item must be rejected, the old setting kept, and stderr must say why. */
static void expect_rejected(const char *item, const char *why)
{
	char out[4096];
	int end = run_expect_abort(parse_in_child, (void *)item, out, sizeof(out));

	ck_assert_msg(end == -10, "'%s': expected one rejection and no change, got %d; stderr:\n%s",
		      item, end, out);
	ck_assert_msg(strstr(out, why), "'%s': stderr lacks \"%s\":\n%s", item, why, out);
	ck_assert_msg(strstr(out, "uslab: bad value for option"), "'%s': no option report:\n%s",
		      item, out);
}

START_TEST(test_malformed_values_rejected)
{
	expect_rejected("slub_debug=FQ", "slub_debug option 'Q' unknown");
	expect_rejected("slub_debug=P;X,foo", "slub_debug option 'X' unknown");
	expect_rejected("slub_debug=FZ,,foo", "slub_debug: empty cache name");
	expect_rejected("slub_debug=FZ,", "slub_debug: empty cache name");
	expect_rejected("slub_debug=FZ,foo,;P", "slub_debug: empty cache name");
	expect_rejected("slub_debug=FZ,de*ntry", "'*' must end a cache name: 'de*ntry'");
	expect_rejected("slab_debug=7", "slab_debug option '7' unknown");
	expect_rejected("failslab=0", "failslab");
	expect_rejected("failslab=x", "failslab");
	expect_rejected("slab_error=maybe", "slab_error");
}
END_TEST

START_TEST(test_failslab_interval)
{
	unsigned int i, failed = 0, first = 0;

	opt("failslab=3");
	for (i = 1; i <= 9; i++) {
		if (slab_should_failslab(GFP_KERNEL)) {
			if (!first)
				first = i;
			failed++;
			ck_assert_uint_eq((i - first) % 3, 0);
		}
	}
	ck_assert_uint_eq(failed, 3);
	for (i = 0; i < 10; i++)
		ck_assert(!slab_should_failslab(GFP_KERNEL | __GFP_NOFAIL));
	opt("failslab=1");
	for (i = 0; i < 10; i++)
		ck_assert(slab_should_failslab(GFP_KERNEL));
}
END_TEST

START_TEST(test_slab_error_policy)
{
	unsigned long before = uslab_slab_errors();

	ck_assert(!slab_error_repair());
	opt("slab_error=repair");
	ck_assert(slab_error_repair());
	slab_error_done();		/* counts, returns */
	ck_assert_uint_eq(uslab_slab_errors(), before + 1);
	opt("slab_error=abort");
	ck_assert(!slab_error_repair());
}
END_TEST

#if CONFIG_SLUB

/* ---- what SLUB makes of the flags ---- */

START_TEST(test_named_caches_get_the_flags)
{
	struct kmem_cache *a, *b;

	opt("slub_debug=FZ,optdbg-*;U,optdbg-u");
	a = kmem_cache_create("optdbg-a", 40, 0, 0, NULL);
	b = kmem_cache_create("optplain-b", 40, 0, 0, NULL);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(a->flags & FZPU, SLAB_CONSISTENCY_CHECKS | SLAB_RED_ZONE);
	ck_assert_uint_eq(b->flags & FZPU, 0);
	ck_assert_int_eq(kmem_cache_validate(a), 0);
	ck_assert_int_eq(kmem_cache_validate(b), -EINVAL);
	kmem_cache_destroy(a);
	kmem_cache_destroy(b);
}
END_TEST

START_TEST(test_debug_caches_not_merged)
{
	struct kmem_cache *p1, *p2, *d;

	opt("slub_debug=Z,optdbg-merge");
	p1 = kmem_cache_create("optplain-1", 104, 0, 0, NULL);
	p2 = kmem_cache_create("optplain-2", 104, 0, 0, NULL);
	d = kmem_cache_create("optdbg-merge", 104, 0, 0, NULL);
	if (!memcheck_active())		/* memcheck mode merges nothing */
		ck_assert_ptr_eq(p1, p2);	/* plain caches of one size merge ... */
	ck_assert_ptr_ne(d, p1);	/* ... a debug cache does not */
	ck_assert(d->flags & SLAB_RED_ZONE);
	kmem_cache_destroy(d);
	kmem_cache_destroy(p2);
	kmem_cache_destroy(p1);
}
END_TEST

START_TEST(test_order_guard_drops_growing_metadata)
{
	struct kmem_cache *big, *small;

	opt("slub_debug=FZPUO");
	big = kmem_cache_create("optdbg-big", 4096, 0, 0, NULL);
	small = kmem_cache_create("optdbg-small", 64, 0, 0, NULL);
	ck_assert_uint_eq(big->flags & (SLAB_RED_ZONE | SLAB_POISON | SLAB_STORE_USER), 0);
	ck_assert(big->flags & SLAB_CONSISTENCY_CHECKS);	/* needs no room: kept */
	if (!memcheck_active())		/* whose free pointer would follow */
		ck_assert_uint_eq(big->size, 4096);
	ck_assert_uint_eq(small->flags & FZPU, FZPU);
	kmem_cache_destroy(big);
	kmem_cache_destroy(small);
}
END_TEST

#endif

static Suite *slub_debug_options_suite(void)
{
	Suite *s = suite_create("slub_debug_options");
	TCase *tc = tcase_create("parser");

	tcase_add_checked_fixture(tc, reset_options, NULL);
	tcase_add_test(tc, test_off_by_default);
	tcase_add_test(tc, test_bare_option_is_fzpu);
	tcase_add_test(tc, test_global_letters);
	tcase_add_test(tc, test_per_cache_blocks);
	tcase_add_test(tc, test_global_and_per_cache);
	tcase_add_test(tc, test_names_without_letters_are_fzpu);
	tcase_add_test(tc, test_noleaktrace_caches_not_tracked_by_default);
	tcase_add_test(tc, test_order_guard);
	tcase_add_test(tc, test_slab_debug_alias);
	tcase_add_test(tc, test_malformed_values_rejected);
	tcase_add_test(tc, test_failslab_interval);
	tcase_add_test(tc, test_slab_error_policy);
	suite_add_tcase(s, tc);
#if CONFIG_SLUB
	tc = tcase_create("slub");
	tcase_add_checked_fixture(tc, reset_options, NULL);
	tcase_add_test(tc, test_named_caches_get_the_flags);
	tcase_add_test(tc, test_debug_caches_not_merged);
	tcase_add_test(tc, test_order_guard_drops_growing_metadata);
	suite_add_tcase(s, tc);
#endif
	return s;
}

USLAB_TEST_MAIN(slub_debug_options_suite)
