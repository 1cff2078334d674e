/* SPDX-License-Identifier: MIT */
/*
 * slab_double_free_slow.c - SLAB reports the naive double free (the object
 * on top of the CPU array freed again) at the second free also when that
 * free takes the slow path, before the slow path can move the first copy
 * off the top:
 *   - a full array: a cache of objects over 128 KiB has one-entry arrays
 *     (limit 1, batchcount 1), so the first free fills the array and the
 *     second would flush the first copy to its slab, then push the second;
 *   - tunables changed between the two frees: the slow path gives the CPU
 *     a new array and sends the old one's objects, the first copy among
 *     them, back to their slabs.
 * Either way a missed report leaves the object both in the array and free
 * in its slab, to be handed out twice.  The words are those of
 * slab_double_free.c; under slab_error=repair the second free is dropped
 * and no object is handed out twice.  Built for SLUB or SLOB, or without
 * CONFIG_SLAB_FREELIST_HARDENED, the binary skips itself.
 */
#include "slab_misuse.h"

#ifndef CONFIG_SLAB_FREELIST_HARDENED	/* slab_def.h defines it in SLAB builds */
#define CONFIG_SLAB_FREELIST_HARDENED	0
#endif

#define BIG_SIZE	(200 * 1024)	/* over 128 KiB: SLAB's default limit is 1 */
#define SMALL_SIZE	48
#define PATTERN_LEN	256U		/* most bytes of a neighbour that hold its pattern */
#define NR_AROUND	3
#define NR_AFTER	8		/* allocations after a repaired double free */

static void *misused_object(struct misuse *m, const char *name, unsigned int size)
{
	void *x;

	m->cache = kmem_cache_create(name, size, 0, SLAB_NOLEAKTRACE, NULL);
	misuse_add_neighbours(m, NR_AROUND, min(size, PATTERN_LEN));
	x = kmem_cache_alloc(m->cache, GFP_KERNEL);
	m->object = x;
	misuse_add_neighbours(m, NR_AROUND, min(size, PATTERN_LEN));
	return x;
}

/* After a dropped second free, no object may be handed out twice. */
static void finish_all_distinct(struct misuse *m)
{
	void *p[NR_AFTER];
	unsigned int i, j;

	for (i = 0; i < NR_AFTER; i++)
		p[i] = kmem_cache_alloc(m->cache, GFP_KERNEL);
	for (i = 0; i < NR_AFTER; i++)
		for (j = 0; j < i; j++)
			if (p[i] == p[j])
				return;		/* handed out twice: no finish, the parent fails */
	for (i = 0; i < NR_AFTER; i++)
		kmem_cache_free(m->cache, p[i]);
	misuse_finish(m);
}

static void twice_into_a_full_array(void *arg)
{
	struct misuse *m = arg;
	void *x = misused_object(m, "h2-dfs-full", BIG_SIZE);

	kmem_cache_free(m->cache, x);	/* the one-entry array is full now */
	kmem_cache_free(m->cache, x);
	finish_all_distinct(m);
}

static void twice_around_a_retune(void *arg)
{
	struct misuse *m = arg;
	void *x = misused_object(m, "h2-dfs-tune", SMALL_SIZE);

	kmem_cache_free(m->cache, x);
	/* a new limit: the next slow path replaces this CPU's array */
	if (slabinfo_write_line("h2-dfs-tune 30 15 0"))
		return;		/* no finish, no report: the parent fails */
	kmem_cache_free(m->cache, x);
	finish_all_distinct(m);
}

static void repaired(void *arg)
{
	struct misuse *m = arg;

	parse_option_string("slab_error=repair");
	if (m->variant == 1)
		twice_into_a_full_array(m);
	else
		twice_around_a_retune(m);
}

/* fn must report the naive double free of m->object in cache name. */
static void check(void (*fn)(void *), int which, const char *name, bool repair)
{
	struct misuse *m = misuse_new();
	char out[MISUSE_REPORT_LEN], want[200], ptr[32], how[32];
	const char *words[] = { want, repair ? "Dropping the second free" : NULL, NULL };
	int end;

	m->variant = which;	/* tells repaired() which misuse to do */
	end = run_expect_abort(fn, m, out, sizeof(out));
	ck_assert_msg(end == (repair ? 0 : SIGABRT), "ended with %s; stderr:\n%s",
		      uslab_test_describe_end(end, how, sizeof(how)), out);
	ck_assert_msg(repair ? m->finished && m->errors == 1 : !m->finished,
		      "finished %d, errors %lu; stderr:\n%s", m->finished, m->errors, out);
	snprintf(want, sizeof(want),
		 "slab error in __free_one(): cache `%s': double free: object is on top of the "
		 "CPU array: %s", name, misuse_ptr(ptr, sizeof(ptr), m->object));
	misuse_expect_words(out, words);
	ck_assert_msg(m->checked && m->intact, "a neighbour was harmed; stderr:\n%s", out);
	misuse_free(m);
}

START_TEST(double_free_into_a_full_array)
{
	check(twice_into_a_full_array, 1, "h2-dfs-full", false);
	check(repaired, 1, "h2-dfs-full", true);
}
END_TEST

START_TEST(double_free_around_a_retune)
{
	check(twice_around_a_retune, 2, "h2-dfs-tune", false);
	check(repaired, 2, "h2-dfs-tune", true);
}
END_TEST

static Suite *slab_double_free_slow_suite(void)
{
	Suite *s = suite_create("slab-double-free-slow");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, double_free_into_a_full_array);
	tcase_add_test(tc, double_free_around_a_retune);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (!CONFIG_SLAB || !CONFIG_SLAB_FREELIST_HARDENED)
		uslab_test_skip("SLAB with CONFIG_SLAB_FREELIST_HARDENED: the naive double free on the slow path");
	return uslab_test_run(slab_double_free_slow_suite());
}
