/* SPDX-License-Identifier: MIT */
/*
 * slab_double_free.c - SLAB catches a double free before the second copy
 * of the object can be handed out twice or reach its slab's freelist:
 *   - with red zones (SLAB_RED_ZONE): both zones read RED_INACTIVE at the
 *     free: "slab error in verify_redzone_free(): cache `c': double free
 *     detected" (the kernel's words);
 *   - always (CONFIG_SLAB_FREELIST_HARDENED): the object on top of the CPU
 *     array freed again: "double free: object is on top of the CPU array";
 *   - always: an object coming back into a slab that holds it free:
 *     "slab: double free detected in cache 'c', objp 0x...".
 * By default each report ends in abort; under slab_error=repair the second
 * free is dropped, so the object is handed out once, and the error
 * counted.  Built for SLUB or SLOB, the binary skips itself.
 */
#include "slab_misuse.h"

#ifndef CONFIG_SLAB_FREELIST_HARDENED	/* slab_def.h defines it in SLAB builds */
#define CONFIG_SLAB_FREELIST_HARDENED	0
#endif

#define OBJ_SIZE	48
#define NR_AROUND	8
#define NR_AFTER	64	/* allocations after a repaired double free */

/* Allocate x among neighbours; the neighbours keep their pattern. */
static void *misused_object(struct misuse *m, const char *name, slab_flags_t flags)
{
	void *x;

	m->cache = kmem_cache_create(name, OBJ_SIZE, 0, flags | SLAB_NOLEAKTRACE, NULL);
	misuse_add_neighbours(m, NR_AROUND, OBJ_SIZE);
	x = kmem_cache_alloc(m->cache, GFP_KERNEL);
	m->object = x;
	misuse_add_neighbours(m, NR_AROUND, OBJ_SIZE);
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

static void twice_with_redzones(void *arg)
{
	struct misuse *m = arg;
	void *x = misused_object(m, "h2-df-rz", SLAB_RED_ZONE);

	kmem_cache_free(m->cache, x);
	kmem_cache_free(m->cache, x);
	finish_all_distinct(m);
}

static void twice_in_a_row(void *arg)
{
	struct misuse *m = arg;
	void *x = misused_object(m, "h2-df-top", 0);

	kmem_cache_free(m->cache, x);
	kmem_cache_free(m->cache, x);
	finish_all_distinct(m);
}

/* The second free passes the array (x is no longer on top) and is caught
 * when the array gives its objects back to the slabs. */
static void twice_into_the_slab(void *arg)
{
	struct misuse *m = arg;
	void *x = misused_object(m, "h2-df-slab", 0);
	void *y = kmem_cache_alloc(m->cache, GFP_KERNEL);

	kmem_cache_free(m->cache, x);
	kmem_cache_free(m->cache, y);
	kmem_cache_free(m->cache, x);
	kmem_cache_shrink(m->cache);
	finish_all_distinct(m);
}

static void repaired(void *arg)
{
	struct misuse *m = arg;

	parse_option_string("slab_error=repair");
	if (m->variant == 1)
		twice_with_redzones(m);
	else if (m->variant == 2)
		twice_in_a_row(m);
	else
		twice_into_the_slab(m);
}

/* fn must report words[0] (with x's address after it when want_ptr). */
static void check(void (*fn)(void *), int which, const char *words0, bool with_ptr,
		  bool repair)
{
	struct misuse *m = misuse_new();
	char out[MISUSE_REPORT_LEN], want[200], ptr[32], how[32];
	const char *words[] = { want, NULL, NULL };
	int end;

	m->variant = which;	/* tells repaired() which misuse to do */
	end = run_expect_abort(fn, m, out, sizeof(out));
	ck_assert_msg(end == (repair ? 0 : SIGABRT), "ended with %s; stderr:\n%s",
		      uslab_test_describe_end(end, how, sizeof(how)), out);
	snprintf(want, sizeof(want), "%s%s", words0,
		 with_ptr ? misuse_ptr(ptr, sizeof(ptr), m->object) : "");
	if (repair) {
		words[1] = "Dropping the second free";
		ck_assert_msg(m->finished && m->errors == 1, "errors %lu; stderr:\n%s",
			      m->errors, out);
	}
	misuse_expect_words(out, words);
	ck_assert_msg(m->checked && m->intact, "a neighbour was harmed; stderr:\n%s", out);
	misuse_free(m);
}

#define RZ_WORDS	"slab error in verify_redzone_free(): cache `h2-df-rz': double free detected"
#define TOP_WORDS	"slab error in __free_one(): cache `h2-df-top': double free: object is " \
			"on top of the CPU array: "
#define SLAB_WORDS	"slab: double free detected in cache 'h2-df-slab', objp "

START_TEST(double_free_with_red_zones)
{
	check(twice_with_redzones, 1, RZ_WORDS, false, false);
	check(repaired, 1, RZ_WORDS, false, true);
}
END_TEST

START_TEST(double_free_on_top_of_the_cpu_array)
{
	if (!CONFIG_SLAB_FREELIST_HARDENED)
		return;
	check(twice_in_a_row, 2, TOP_WORDS, true, false);
	check(repaired, 2, TOP_WORDS, true, true);
}
END_TEST

START_TEST(double_free_caught_in_the_slab)
{
	check(twice_into_the_slab, 3, SLAB_WORDS, true, false);
	check(repaired, 3, SLAB_WORDS, true, true);
}
END_TEST

/* Red zones show the double free with the kernel's inactive pattern. */
START_TEST(red_zones_read_inactive_after_a_free)
{
	struct misuse *m = misuse_new();
	char out[MISUSE_REPORT_LEN], want[200], ptr[32];
	const char *words[] = { "Redzone: 0x9f911029d74e35b/0x9f911029d74e35b", NULL, NULL };

	misuse_expect_abort(twice_with_redzones, m, out, words);
	words[0] = want;
	snprintf(want, sizeof(want), "%s: redzone 1:0x9f911029d74e35b, redzone 2:0x9f911029d74e35b",
		 misuse_ptr(ptr, sizeof(ptr), m->object));
	misuse_expect_words(out, words);
	misuse_free(m);
}
END_TEST

static Suite *slab_double_free_suite(void)
{
	Suite *s = suite_create("slab-double-free");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, double_free_with_red_zones);
	tcase_add_test(tc, double_free_on_top_of_the_cpu_array);
	tcase_add_test(tc, double_free_caught_in_the_slab);
	tcase_add_test(tc, red_zones_read_inactive_after_a_free);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (!CONFIG_SLAB)
		uslab_test_skip("SLAB's double free checks and their reports");
	return uslab_test_run(slab_double_free_suite());
}
