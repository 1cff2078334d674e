/* SPDX-License-Identifier: MIT */
/*
 * slab_poison.c - SLAB's poisoning (SLAB_POISON, slab_debug=P): a free
 * object is filled with POISON_FREE (0x6b, the last byte 0xa5), and a write
 * into it after the free is found when the object is handed out again, or
 * when its slab is given back.  The report is the kernel's: "Slab
 * corruption (Not tainted): <cache> start=0x..., len=N", the red zones and
 * last user, a hex line of each damaged row ("020: 6b 6b ... 00 6b ...")
 * and the objects around it ("Prev obj:" / "Next obj:").  By default it
 * ends in abort; under slab_error=repair the object is handed out anyway
 * (re-poisoned 0x5a, as the kernel goes on) and the error counted.  Built
 * for SLUB or SLOB, the binary skips itself.
 */
#include "slab_misuse.h"

#define OBJ_SIZE	100
#define NR_AROUND	12
#define BAD_OFFSET	37	/* row 0x20, sixth byte */

/* The row the report must show: 6b everywhere but 00 at BAD_OFFSET. */
#define BAD_ROW "020: 6b 6b 6b 6b 6b 00 6b 6b 6b 6b 6b 6b 6b 6b 6b 6b  kkkkk.kkkkkkkkkk"

static void write_after_free(struct misuse *m, bool shrink)
{
	unsigned char *x, *y;

	m->cache = kmem_cache_create("h2-poison", OBJ_SIZE, 0,
				     SLAB_POISON | SLAB_RED_ZONE | SLAB_STORE_USER, NULL);
	misuse_add_neighbours(m, NR_AROUND, OBJ_SIZE);
	x = kmem_cache_alloc(m->cache, GFP_KERNEL);
	m->object = x;
	misuse_add_neighbours(m, NR_AROUND, OBJ_SIZE);
	kmem_cache_free(m->cache, x);
	x[BAD_OFFSET] = 0;	/* the bug: a write after free */
	if (shrink) {
		kmem_cache_shrink(m->cache);	/* x back in its slab; the slab stays */
		return;
	}
	y = kmem_cache_alloc(m->cache, GFP_KERNEL);	/* x again (LIFO): checked here */
	if (y != x)
		return;		/* the parent sees no report and fails */
	/* repaired: handed out with POISON_INUSE, then used as usual */
	if (y[0] == 0x5a && y[OBJ_SIZE - 1] == 0xa5) {
		memset(y, 0x33, OBJ_SIZE);
		kmem_cache_free(m->cache, y);
		misuse_finish(m);
	}
}

static void alloc_finds_it(void *arg)
{
	write_after_free(arg, false);
}

static void alloc_finds_it_repaired(void *arg)
{
	parse_option_string("slab_error=repair");
	write_after_free(arg, false);
}

/* Freeing the slab checks every object: free all, then shrink. */
static void slab_free_finds_it(void *arg)
{
	struct misuse *m = arg;
	unsigned int i;

	write_after_free(m, true);
	for (i = 0; i < m->nr_neighbours; i++)
		kmem_cache_free(m->cache, m->neighbour[i]);
	m->nr_neighbours = 0;	/* gone now: nothing left to check */
	kmem_cache_shrink(m->cache);
}

static void check_report(void (*fn)(void *), bool repair)
{
	struct misuse *m = misuse_new();
	char out[MISUSE_REPORT_LEN], head[200], ptr[32], how[32];
	const char *words[] = { head, BAD_ROW, "Last user: (", "Redzone: ", " obj: start=",
				NULL, NULL };
	int end = run_expect_abort(fn, m, out, sizeof(out));

	ck_assert_msg(end == (repair ? 0 : SIGABRT), "ended with %s; stderr:\n%s",
		      uslab_test_describe_end(end, how, sizeof(how)), out);
	snprintf(head, sizeof(head), "Slab corruption (Not tainted): h2-poison start=%s, len=%d",
		 misuse_ptr(ptr, sizeof(ptr), m->object), OBJ_SIZE);
	if (repair) {
		words[5] = "FIX h2-poison: Restoring poison";
		ck_assert_msg(m->finished && m->errors == 1, "errors %lu; stderr:\n%s",
			      m->errors, out);
	}
	misuse_expect_words(out, words);
	ck_assert_msg(m->checked && m->intact, "a neighbour was harmed; stderr:\n%s", out);
	misuse_free(m);
}

START_TEST(write_after_free_is_found_at_the_next_alloc)
{
	check_report(alloc_finds_it, false);
}
END_TEST

START_TEST(write_after_free_is_repaired_under_slab_error_repair)
{
	check_report(alloc_finds_it_repaired, true);
}
END_TEST

START_TEST(write_after_free_is_found_when_the_slab_is_freed)
{
	check_report(slab_free_finds_it, false);
}
END_TEST

/* Poison is what a fresh or freed object holds; the user sees 0x5a at alloc. */
START_TEST(objects_carry_the_kernels_poison)
{
	struct kmem_cache *s = kmem_cache_create("h2-poison-ok", OBJ_SIZE, 0, SLAB_POISON, NULL);
	unsigned char *x;
	unsigned int i;

	ck_assert_ptr_nonnull(s);
	x = kmem_cache_alloc(s, GFP_KERNEL);
	for (i = 0; i < OBJ_SIZE - 1; i++)
		ck_assert_uint_eq(x[i], 0x5a);
	ck_assert_uint_eq(x[OBJ_SIZE - 1], 0xa5);	/* POISON_END survives at alloc */
	kmem_cache_free(s, x);
	for (i = 0; i < OBJ_SIZE - 1; i++)	/* white box: the slot after a free */
		ck_assert_uint_eq(x[i], 0x6b);
	ck_assert_uint_eq(x[OBJ_SIZE - 1], 0xa5);
	x = kmem_cache_alloc(s, GFP_KERNEL | __GFP_ZERO);
	for (i = 0; i < OBJ_SIZE; i++)
		ck_assert_uint_eq(x[i], 0);
	kmem_cache_free(s, x);
	kmem_cache_destroy(s);
	ck_assert_uint_eq(uslab_slab_errors(), 0);
}
END_TEST

static Suite *slab_poison_suite(void)
{
	Suite *s = suite_create("slab-poison");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, write_after_free_is_found_at_the_next_alloc);
	tcase_add_test(tc, write_after_free_is_repaired_under_slab_error_repair);
	tcase_add_test(tc, write_after_free_is_found_when_the_slab_is_freed);
	tcase_add_test(tc, objects_carry_the_kernels_poison);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (!CONFIG_SLAB)
		uslab_test_skip("SLAB's poisoning and its reports");
	return uslab_test_run(slab_poison_suite());
}
