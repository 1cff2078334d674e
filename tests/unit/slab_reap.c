/* SPDX-License-Identifier: MIT */
/*
 * slab_reap.c - SLAB's periodic reaping, without anyone calling shrink:
 * every REAPTIMEOUT_AC a CPU gives back a fifth of each array it did not
 * touch since the last reap, and every REAPTIMEOUT_NODE a node drains its
 * shared array the same way and frees some free slabs.  Here the reaper
 * runs on the slow paths of the allocating thread (see slab.c §7), so the
 * test keeps allocating from another cache while it waits; the period is
 * shortened with the option slab_reap_ms=20 (REAPTIMEOUT_AC = 20 ms,
 * REAPTIMEOUT_NODE = 40 ms).  Waits are bounded by a count of rounds, and
 * nothing here asserts a time.
 */
#include "common/test.h"

#include <stdlib.h>
#include <unistd.h>
#include "mm/slab.h"

#if CONFIG_SLAB

#define REAP_MS		20
#define __stringify_1(x)	#x
#define __stringify(x)		__stringify_1(x)
#define MAX_ROUNDS	1000	/* 1000 x 25 ms: far beyond what reaping needs */

static struct kmem_cache *tuned_cache(const char *name, unsigned int size, const char *tunables)
{
	struct kmem_cache *s = kmem_cache_create(name, size, 0, SLAB_NOLEAKTRACE, NULL);
	char line[96];

	ck_assert_ptr_nonnull(s);
	snprintf(line, sizeof(line), "%s %s", name, tunables);
	ck_assert_int_eq(slabinfo_write_line(line), 0);
	return s;
}

static struct slabinfo info(struct kmem_cache *s)
{
	struct slabinfo si;

	memset(&si, 0, sizeof(si));
	get_slabinfo(s, &si);
	return si;
}

/* Ordinary work on another cache: its slow paths give the reaper a turn. */
static void other_work(struct kmem_cache *other)
{
	void *p[4];
	int i;

	for (i = 0; i < 4; i++)
		p[i] = kmem_cache_alloc(other, GFP_KERNEL);
	for (i = 0; i < 4; i++)
		kmem_cache_free(other, p[i]);
}

static void churn(struct kmem_cache *s, int n)
{
	void **p = calloc((size_t)n, sizeof(void *));
	int i;

	ck_assert_ptr_nonnull(p);
	for (i = 0; i < n; i++) {
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		ck_assert_ptr_nonnull(p[i]);
	}
	for (i = 0; i < n; i++)
		kmem_cache_free(s, p[i]);
	free(p);
}

START_TEST(idle_arrays_and_free_slabs_are_reaped)
{
	struct kmem_cache *s = tuned_cache("reap-256", 256, "120 60 8");
	struct kmem_cache *other = tuned_cache("reap-other", 64, "2 1 0");
	struct slabinfo si;
	int round;

	churn(s, 2000);
	si = info(s);
	/* every object is free, yet the arrays and some free slabs hold on */
	ck_assert_uint_gt(si.active_objs, 0);
	ck_assert_uint_gt(si.shared_avail, 0);
	ck_assert_uint_gt(si.num_slabs, si.active_slabs);
	for (round = 0; round < MAX_ROUNDS && info(s).num_slabs; round++) {
		usleep((REAP_MS + 5) * 1000);
		other_work(other);
	}
	si = info(s);
	ck_assert_msg(si.num_slabs == 0 && si.active_objs == 0 && si.shared_avail == 0,
		      "after %d rounds: %lu slabs, %lu objects in use, %lu shared",
		      round, si.num_slabs, si.active_objs, si.shared_avail);
	kmem_cache_destroy(other);
	kmem_cache_destroy(s);
}
END_TEST

START_TEST(an_array_in_use_is_left_alone)
{
	struct kmem_cache *s = tuned_cache("reap-busy", 64, "120 60 0");
	struct kmem_cache *other = tuned_cache("reap-poke", 64, "2 1 0");
	unsigned long held;
	int round;
	void *p;

	churn(s, 100);
	held = info(s).active_objs;	/* what this thread's array holds */
	ck_assert_uint_gt(held, 24);
	for (round = 0; round < 30; round++) {
		usleep((REAP_MS + 5) * 1000);
		p = kmem_cache_alloc(s, GFP_KERNEL);	/* touches the array */
		kmem_cache_free(s, p);
		other_work(other);
	}
	/* a touched array only loses its mark; an untouched one a fifth of
	 * its limit (24) per reap: 30 rounds would have emptied it.  Allow one
	 * reap that a stalled machine might squeeze in between two touches. */
	ck_assert_uint_ge(info(s).active_objs, held - 24);
	for (round = 0; round < MAX_ROUNDS && info(s).active_objs; round++) {
		usleep((REAP_MS + 5) * 1000);
		other_work(other);
	}
	ck_assert_uint_eq(info(s).active_objs, 0);
	kmem_cache_destroy(other);
	kmem_cache_destroy(s);
}
END_TEST

static Suite *slab_reap_suite(void)
{
	Suite *s = suite_create("slab_reap");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, idle_arrays_and_free_slabs_are_reaped);
	tcase_add_test(tc, an_array_in_use_is_left_alone);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	/* the option parser of USLAB_OPTIONS, before the suite forks its tests */
	if (parse_option_string("slab_reap_ms=" __stringify(REAP_MS))) {
		fprintf(stderr, "option rejected\n");
		return 1;
	}
	return uslab_test_run(slab_reap_suite());
}

#else

int main(void)
{
	uslab_test_skip("SLAB's periodic reaping of arrays and free slabs");
}

#endif
