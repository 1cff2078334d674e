// SPDX-License-Identifier: MIT
/*
 * reuse.c - how the drop-in hands freed blocks out again on one thread.
 *
 * The block a thread freed last is the next one malloc of its size class
 * gives that thread, whichever slab it lies in (SLUB: the sheaf is popped
 * before the cpu slab's freelist, docs/malloc.md; SLAB: the array cache is
 * LIFO).  SLOB has no per-thread cache: there only the blocks' integrity is
 * checked.  Then a random-order churn over many slabs, with half the blocks
 * live throughout, checks that every block keeps its contents and none is
 * handed out twice, through many sheaf flushes.  Bounded by count.
 */
#include "malloc_test.h"
#include "common/test.h"

#define NR_BLOCKS	3000
#define ROUNDS		600
#define CHURN_BLOCKS	20000
#define CHURN_ROUNDS	8

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static const size_t sizes[] = { 16, 48, 64, 200, 1000, 4000 };

START_TEST(test_last_freed_comes_back)
{
	size_t size = sizes[_i];
	static unsigned char *p[NR_BLOCKS];
	unsigned char *q;
	size_t i, k;

	require_uslab_malloc();
	for (i = 0; i < NR_BLOCKS; i++) {
		p[i] = malloc(size);
		ck_assert_ptr_nonnull(p[i]);
		pattern_fill(p[i], size, (uintptr_t)i);
	}
	for (k = 0; k < ROUNDS; k++) {
		i = next_random() % NR_BLOCKS;
		ck_assert_msg(pattern_ok(p[i], size, (uintptr_t)i), "block %zu of %zu B changed", i, size);
		free(p[i]);
		q = malloc(size);
		ck_assert_ptr_nonnull(q);
		if (!CONFIG_SLOB)
			ck_assert_msg(q == p[i], "%zu B: freed %p, got %p back", size, (void *)p[i],
				      (void *)q);
		p[i] = q;
		pattern_fill(p[i], size, (uintptr_t)i);
	}
	for (i = 0; i < NR_BLOCKS; i++) {
		ck_assert_msg(pattern_ok(p[i], size, (uintptr_t)i), "block %zu of %zu B changed", i, size);
		free(p[i]);
	}
}
END_TEST

struct churn_block {
	unsigned char *p;
	size_t size;
};

static int by_address(const void *a, const void *b)
{
	const struct churn_block *x = a, *y = b;

	return (x->p > y->p) - (x->p < y->p);
}

/* No two live blocks of b[0..n) overlap (b is sorted by the call). */
static void assert_no_overlap(struct churn_block *b, size_t n)
{
	size_t i;

	qsort(b, n, sizeof(b[0]), by_address);
	for (i = 1; i < n; i++)
		ck_assert_msg(b[i - 1].p + b[i - 1].size <= b[i].p, "%p (%zu B) overlaps %p",
			      (void *)b[i - 1].p, b[i - 1].size, (void *)b[i].p);
}

START_TEST(test_random_churn_keeps_blocks_whole)
{
	static struct churn_block b[CHURN_BLOCKS];
	static size_t order[CHURN_BLOCKS];
	size_t i, j, k, r, t;

	for (i = 0; i < CHURN_BLOCKS; i++) {
		b[i].size = 16 + next_random() % 1024;
		b[i].p = malloc(b[i].size);
		ck_assert_ptr_nonnull(b[i].p);
		pattern_fill(b[i].p, b[i].size, (uintptr_t)b[i].p);
		order[i] = i;
	}
	for (r = 0; r < CHURN_ROUNDS; r++) {
		for (i = CHURN_BLOCKS - 1; i > 0; i--) {	/* a random half goes */
			j = next_random() % (i + 1);
			t = order[i], order[i] = order[j], order[j] = t;
		}
		for (k = 0; k < CHURN_BLOCKS / 2; k++) {
			i = order[k];
			ck_assert_msg(pattern_ok(b[i].p, b[i].size, (uintptr_t)b[i].p),
				      "block %p changed", (void *)b[i].p);
			free(b[i].p);
		}
		for (k = 0; k < CHURN_BLOCKS / 2; k++) {
			i = order[k];
			b[i].size = 16 + next_random() % 1024;
			b[i].p = malloc(b[i].size);
			ck_assert_ptr_nonnull(b[i].p);
			pattern_fill(b[i].p, b[i].size, (uintptr_t)b[i].p);
		}
	}
	for (i = 0; i < CHURN_BLOCKS; i++)
		ck_assert_msg(pattern_ok(b[i].p, b[i].size, (uintptr_t)b[i].p), "block %p changed",
			      (void *)b[i].p);
	assert_no_overlap(b, CHURN_BLOCKS);
	for (i = 0; i < CHURN_BLOCKS; i++)
		free(b[i].p);
}
END_TEST

static Suite *reuse_suite(void)
{
	Suite *s = suite_create("malloc-reuse");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_last_freed_comes_back, 0, (int)(sizeof(sizes) / sizeof(sizes[0])));
	tcase_add_test(tc, test_random_churn_keeps_blocks_whole);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(reuse_suite)
