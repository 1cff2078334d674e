// SPDX-License-Identifier: MIT
/*
 * reuse.c - blocks freed and handed out again through the per-thread
 * caches (SLUB: the sheaf, which the drop-in fills with no look-up of a
 * block's slab and empties when full or when its thread exits; SLAB: the
 * array cache).  Blocks of many slabs freed by a thread that exits, then
 * taken again; and a random-order churn over many slabs, with half the
 * blocks live throughout: every block keeps its contents, none is handed
 * out twice.  Large blocks of the orders each CPU keeps after free (16..64
 * KiB): the next malloc of the order takes the newest back, calloc never
 * gets one with old contents, and a thread's cached blocks serve others
 * once it exits.  Bounded by count.
 */
#include "malloc_test.h"
#include "common/test.h"

#include <pthread.h>

#define NR_BLOCKS	3000
#define HANDOFF_ROUNDS	6
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

/* Blocks of many slabs, freed by a thread that did not allocate them: it
 * keeps some (SLUB: in its sheaf, without a look-up of their slabs) and
 * gives everything back when it exits; then they serve this thread. */
struct handoff {
	unsigned char **p;
	size_t n, size;
	int bad;		/* blocks found changed by the freeing thread */
};

static void *free_all_then_exit(void *arg)
{
	struct handoff *h = arg;
	size_t i;

	for (i = 0; i < h->n; i++) {
		if (!pattern_ok(h->p[i], h->size, (uintptr_t)h->p[i]))
			h->bad++;
		free(h->p[i]);
	}
	return NULL;
}

static const size_t sizes[] = { 16, 48, 64, 200, 1000, 4000, 20000, 50000 };

/* Blocks of a round: NR_BLOCKS, or fewer of the large ones (16 MiB). */
static size_t handoff_blocks(size_t size)
{
	size_t n = (16UL << 20) / size;

	return n < NR_BLOCKS ? n : NR_BLOCKS;
}

START_TEST(test_blocks_freed_by_an_exiting_thread_serve_again)
{
	size_t size = sizes[_i], i, k, n = handoff_blocks(size);
	static unsigned char *p[NR_BLOCKS];
	struct handoff h = { p, n, size, 0 };
	pthread_t t;

	require_uslab_malloc();
	for (k = 0; k < HANDOFF_ROUNDS; k++) {
		for (i = 0; i < n; i++) {
			p[i] = malloc(size);
			ck_assert_ptr_nonnull(p[i]);
			pattern_fill(p[i], size, (uintptr_t)p[i]);
		}
		for (i = n - 1; i > 0; i--) {	/* freed in random order */
			size_t j = next_random() % (i + 1);
			unsigned char *x = p[i];

			p[i] = p[j];
			p[j] = x;
		}
		ck_assert_int_eq(pthread_create(&t, NULL, free_all_then_exit, &h), 0);
		ck_assert_int_eq(pthread_join(t, NULL), 0);
		ck_assert_msg(h.bad == 0, "%d blocks of %zu B changed before their free", h.bad, size);
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

/*
 * A large block of a cached order, freed: the next malloc of its order on
 * this thread gets it back (newest first); calloc of the order never does,
 * and reads zeros.  Each size takes its blocks back out of the cache before
 * the next size, so that the cache's bound in bytes (256 KiB) is not what
 * decides.
 */
START_TEST(test_large_block_serves_the_next_malloc_of_its_order)
{
	/* pairs of sizes of one order: 16, 32, 64, 64 KiB blocks */
	static const size_t sizes[] = { 8193, 20000, 40000, 65536 };
	static const size_t same_order[] = { 16000, 32768, 33000, 60000 };
	unsigned char *p, *q, *z;
	void *held[3 * 4];
	size_t i, k, nr_held = 0;

	require_uslab_malloc();
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		p = malloc(sizes[i]);
		q = malloc(sizes[i]);
		ck_assert_ptr_nonnull(p);
		ck_assert_ptr_nonnull(q);
		memset(p, 0xa5, sizes[i]);
		memset(q, 0x5a, sizes[i]);
		free(p);
		free(q);
		/* newest first: q, then p (a size of the same order) */
		ck_assert_ptr_eq(malloc(sizes[i]), q);
		ck_assert_ptr_eq(malloc(same_order[i]), p);
		free(p);
		z = calloc(1, sizes[i]);
		ck_assert_ptr_nonnull(z);
		ck_assert_ptr_ne(z, p);
		for (k = 0; k < sizes[i]; k++)
			ck_assert_msg(z[k] == 0, "calloc(%zu) byte %zu is %#x", sizes[i], k, z[k]);
		free(z);
		free(q);
		for (k = 0; k < 3; k++)
			held[nr_held++] = malloc(sizes[i]);
	}
	for (k = 0; k < nr_held; k++)
		free(held[k]);
}
END_TEST

static Suite *reuse_suite(void)
{
	Suite *s = suite_create("malloc-reuse");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_blocks_freed_by_an_exiting_thread_serve_again, 0,
			    (int)(sizeof(sizes) / sizeof(sizes[0])));
	tcase_add_test(tc, test_random_churn_keeps_blocks_whole);
	tcase_add_test(tc, test_large_block_serves_the_next_malloc_of_its_order);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(reuse_suite)
