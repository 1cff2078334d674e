/* SPDX-License-Identifier: MIT */
/*
 * slub_owner_track.c - owner tracks (U) name the right code: an object
 * allocated in one function and freed in another, then freed again, gives
 * a report whose "INFO: Allocated in" line names the first function and
 * "INFO: Freed in" the second, each followed by its stack, which goes on
 * to the callers (owner_track_outer).  The functions are exported
 * (-rdynamic) so that dladdr() can name them.
 */
#include "slub_misuse.h"

#if CONFIG_SLUB

#define EXPORTED	noinline __attribute__((visibility("default")))

void *owner_track_alloc_alpha(struct kmem_cache *s);
void owner_track_free_beta(struct kmem_cache *s, void *x);
void *owner_track_outer(struct kmem_cache *s);

static void *volatile sink;	/* keeps the calls from being tail calls */

EXPORTED void *owner_track_alloc_alpha(struct kmem_cache *s)
{
	void *x = kmem_cache_alloc(s, GFP_KERNEL);

	sink = x;
	return x;
}

EXPORTED void owner_track_free_beta(struct kmem_cache *s, void *x)
{
	kmem_cache_free(s, x);
	sink = NULL;
}

/* A caller one frame further out: the track's stack must name it too. */
EXPORTED void *owner_track_outer(struct kmem_cache *s)
{
	void *x = owner_track_alloc_alpha(s);

	sink = x;
	return x;
}

static void alloc_free_free(void *arg)
{
	const struct misuse_run *run = arg;
	struct kmem_cache *s = misuse_setup(run);
	void *x = owner_track_outer(s);

	owner_track_free_beta(s, x);
	kmem_cache_free(s, x);
}

START_TEST(test_tracks_name_the_owners)
{
	static const char *const words[] = {
		"BUG victim (Not tainted): Object already free",
		"INFO: Allocated in owner_track_alloc_alpha+0x",
		"INFO: Freed in owner_track_free_beta+0x",
		" age=", " cpu=", " pid=", "\towner_track_alloc_alpha+0x",
		"\towner_track_outer+0x", NULL
	};
	const struct misuse_run run = { "slub_debug=FU,victim", 0, false };

	expect_report(alloc_free_free, &run, words);
}
END_TEST

/* The order of the report: the allocation track comes before the free one. */
static void order_child(void *arg)
{
	alloc_free_free(arg);
}

START_TEST(test_alloc_track_before_free_track)
{
	static char out[REPORT_MAX];
	const struct misuse_run run = { NULL, SLAB_STORE_USER | SLAB_CONSISTENCY_CHECKS, false };
	const char *a, *f;

	ck_assert_int_eq(run_expect_abort(order_child, (void *)&run, out, sizeof(out)), SIGABRT);
	a = strstr(out, "INFO: Allocated in owner_track_alloc_alpha");
	f = strstr(out, "INFO: Freed in owner_track_free_beta");
	ck_assert_msg(a && f && a < f, "tracks missing or out of order:\n%s", out);
	/* the allocation stack goes on past its first frame to the caller */
	ck_assert_msg(strstr(a, "\towner_track_outer+0x") && strstr(a, "\towner_track_outer+0x") < f,
		      "the allocation stack stops short of owner_track_outer:\n%s", out);
}
END_TEST

static Suite *slub_owner_track_suite(void)
{
	Suite *s = suite_create("slub_owner_track");
	TCase *tc = tcase_create("misuse");

	tcase_add_test(tc, test_tracks_name_the_owners);
	tcase_add_test(tc, test_alloc_track_before_free_track);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(slub_owner_track_suite)

#else

int main(void)
{
	uslab_test_skip("SLUB's owner tracks");
}

#endif
