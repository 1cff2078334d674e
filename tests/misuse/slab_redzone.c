/* SPDX-License-Identifier: MIT */
/*
 * slab_redzone.c - SLAB's red zones (SLAB_RED_ZONE, slab_debug=Z): a write
 * one byte past the end of an object, or one byte before its start, is
 * found when the object is freed and reported in the kernel's words
 * ("slab error in verify_redzone_free(): cache `c': memory outside object
 * was overwritten", "0x...: redzone 1:0x..., redzone 2:0x...", "Redzone:
 * 0x.../0x...").  By default the report ends in abort, before any other
 * object is touched; under slab_error=repair the red zone is restored, the
 * object freed, and the error counted.  Built for SLUB or SLOB, the binary
 * skips itself.
 */
#include "slab_misuse.h"

#define OBJ_SIZE	61	/* not a multiple of 8: redzone 2 starts at byte 61 */
#define NR_AROUND	10	/* neighbours allocated before and after */

/* RED_ACTIVE with its lowest (first in memory) or highest byte replaced. */
#define RED_ACTIVE_TEXT		"0xd84156c5635688c0"
#define RED_ACTIVE_LOW_77	"0xd84156c563568877"
#define RED_ACTIVE_HIGH_77	"0x774156c5635688c0"

/* Allocate the object to misuse among neighbours, fill it. */
static unsigned char *misused_object(struct misuse *m)
{
	unsigned char *x;

	misuse_add_neighbours(m, NR_AROUND, OBJ_SIZE);
	x = kmem_cache_alloc(m->cache, GFP_KERNEL);
	m->object = x;
	misuse_add_neighbours(m, NR_AROUND, OBJ_SIZE);
	memset(x, 0x11, OBJ_SIZE);
	return x;
}

/* After a repaired report: the object and its cache work as before. */
static void use_again(struct misuse *m)
{
	unsigned char *y = kmem_cache_alloc(m->cache, GFP_KERNEL);

	memset(y, 0x22, OBJ_SIZE);
	kmem_cache_free(m->cache, y);
}

static void overflow_by_one(void *arg)
{
	struct misuse *m = arg;
	unsigned char *x;

	m->cache = kmem_cache_create("h2-rz-over", OBJ_SIZE, 0, SLAB_RED_ZONE | SLAB_STORE_USER,
				     NULL);
	x = misused_object(m);
	x[OBJ_SIZE] = 0x77;	/* the bug: one byte past the end */
	kmem_cache_free(m->cache, x);
	use_again(m);
	misuse_finish(m);
}

static void overflow_by_one_repaired(void *arg)
{
	parse_option_string("slab_error=repair");
	overflow_by_one(arg);
}

/* The red zone comes from the option, not from the creation flags. */
static void underflow_by_one(void *arg)
{
	struct misuse *m = arg;
	unsigned char *x;

	parse_option_string("slab_debug=Z,h2-rz-under");
	m->cache = kmem_cache_create("h2-rz-under", OBJ_SIZE, 0, 0, NULL);
	x = misused_object(m);
	x[-1] = 0x77;		/* the bug: one byte before the start */
	kmem_cache_free(m->cache, x);
	use_again(m);
	misuse_finish(m);
}

static void underflow_by_one_repaired(void *arg)
{
	parse_option_string("slab_error=repair");
	underflow_by_one(arg);
}

/* fn must report the red zones rz1/rz2 of its object in the kernel's words. */
static void check_report(void (*fn)(void *), bool repair, const char *cache,
			 const char *rz1, const char *rz2)
{
	struct misuse *m = misuse_new();
	char out[MISUSE_REPORT_LEN], l0[200], l1[200], l2[200], ptr[32], fix[200];
	const char *words[] = { l0, l1, l2, NULL, NULL };
	char how[32];
	int end = run_expect_abort(fn, m, out, sizeof(out));

	ck_assert_msg(end == (repair ? 0 : SIGABRT), "ended with %s; stderr:\n%s",
		      uslab_test_describe_end(end, how, sizeof(how)), out);
	snprintf(l0, sizeof(l0), "slab error in verify_redzone_free(): cache `%s': "
		 "memory outside object was overwritten", cache);
	snprintf(l1, sizeof(l1), "%s: redzone 1:%s, redzone 2:%s",
		 misuse_ptr(ptr, sizeof(ptr), m->object), rz1, rz2);
	snprintf(l2, sizeof(l2), "Redzone: %s/%s", rz1, rz2);
	if (repair) {
		snprintf(fix, sizeof(fix), "FIX %s: Restoring redzones of %s", cache, ptr);
		words[3] = fix;
		ck_assert_msg(m->finished && m->errors == 1, "errors %lu; stderr:\n%s",
			      m->errors, out);
	} else {
		ck_assert_msg(!m->finished, "went on after the report");
	}
	misuse_expect_words(out, words);
	ck_assert_msg(m->checked && m->intact, "a neighbour was harmed; stderr:\n%s", out);
	misuse_free(m);
}

START_TEST(overflow_by_one_byte_is_reported_at_free)
{
	check_report(overflow_by_one, false, "h2-rz-over", RED_ACTIVE_TEXT, RED_ACTIVE_LOW_77);
}
END_TEST

START_TEST(overflow_by_one_byte_is_repaired_under_slab_error_repair)
{
	check_report(overflow_by_one_repaired, true, "h2-rz-over", RED_ACTIVE_TEXT,
		     RED_ACTIVE_LOW_77);
}
END_TEST

START_TEST(underflow_by_one_byte_is_reported_at_free)
{
	check_report(underflow_by_one, false, "h2-rz-under", RED_ACTIVE_HIGH_77, RED_ACTIVE_TEXT);
}
END_TEST

START_TEST(underflow_by_one_byte_is_repaired_under_slab_error_repair)
{
	check_report(underflow_by_one_repaired, true, "h2-rz-under", RED_ACTIVE_HIGH_77,
		     RED_ACTIVE_TEXT);
}
END_TEST

/* A correct program never sees a report, red zones or not. */
START_TEST(correct_use_is_silent)
{
	struct kmem_cache *s = kmem_cache_create("h2-rz-good", OBJ_SIZE, 0, SLAB_RED_ZONE, NULL);
	unsigned char *x[64];
	unsigned int i;

	ck_assert_ptr_nonnull(s);
	for (i = 0; i < 64; i++) {
		x[i] = kmem_cache_alloc(s, GFP_KERNEL);
		memset(x[i], 0xff, OBJ_SIZE);	/* every byte the user owns */
	}
	for (i = 0; i < 64; i++)
		kmem_cache_free(s, x[i]);
	kmem_cache_destroy(s);
	ck_assert_uint_eq(uslab_slab_errors(), 0);
}
END_TEST

static Suite *slab_redzone_suite(void)
{
	Suite *s = suite_create("slab-redzone");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, overflow_by_one_byte_is_reported_at_free);
	tcase_add_test(tc, overflow_by_one_byte_is_repaired_under_slab_error_repair);
	tcase_add_test(tc, underflow_by_one_byte_is_reported_at_free);
	tcase_add_test(tc, underflow_by_one_byte_is_repaired_under_slab_error_repair);
	tcase_add_test(tc, correct_use_is_silent);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (!CONFIG_SLAB)
		uslab_test_skip("SLAB's red zones and their reports");
	return uslab_test_run(slab_redzone_suite());
}
