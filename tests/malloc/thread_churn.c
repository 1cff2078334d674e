// SPDX-License-Identifier: MIT
/*
 * thread_churn.c - thousands of short-lived threads, each allocating a few
 * hundred blocks, freeing most and handing the rest to a later thread to
 * free (remote frees).  What a thread caches must be given back when it
 * exits: the resident set after all threads must stay near what it was
 * after the first few hundred, instead of growing with the thread count.
 */
#include "malloc_test.h"
#include "common/test.h"

#include <pthread.h>

#define NR_THREADS	4000
#define NR_AT_ONCE	4
#define WARMUP		400
#define PER_THREAD	300
#define HANDOFF		64
#define RSS_GROWTH_MAX	(48UL << 20)	/* growth allowed after warm-up */

static pthread_mutex_t handoff_lock = PTHREAD_MUTEX_INITIALIZER;
static void *handoff[HANDOFF];		/* blocks left for a later thread (handoff_lock) */
static size_t handoff_len[HANDOFF];

static void *churn(void *arg)
{
	uint64_t seed = (uintptr_t)arg * 2654435761u + 1;
	void *mine[PER_THREAD];
	size_t len[PER_THREAD];
	int i, bad = 0;

	for (i = 0; i < PER_THREAD; i++) {
		uint64_t r = rng_next(&seed);

		len[i] = r % 50 == 0 ? 20000 + r % 200000 : r % 1500;
		mine[i] = malloc(len[i]);
		if (!mine[i])
			return (void *)1;
		memset(mine[i], (int)i, len[i] < 64 ? len[i] : 64);
	}
	pthread_mutex_lock(&handoff_lock);
	for (i = 0; i < HANDOFF; i++) {
		void *old = handoff[i];

		if (old && !pattern_ok(old, handoff_len[i] < 256 ? handoff_len[i] : 256, 5))
			bad = 1;
		free(old);
		handoff[i] = mine[i];
		handoff_len[i] = len[i];
		pattern_fill(mine[i], len[i] < 256 ? len[i] : 256, 5);
	}
	pthread_mutex_unlock(&handoff_lock);
	for (i = HANDOFF; i < PER_THREAD; i++)
		free(mine[i]);
	return (void *)(uintptr_t)bad;
}

/* Run threads [from, to) in waves of NR_AT_ONCE; 0 if all went well. */
static int run_threads(int from, int to)
{
	pthread_t t[NR_AT_ONCE];
	void *ret;
	int i, k, n, bad = 0;

	for (i = from; i < to; i += NR_AT_ONCE) {
		n = to - i < NR_AT_ONCE ? to - i : NR_AT_ONCE;
		for (k = 0; k < n; k++)
			if (pthread_create(&t[k], NULL, churn, (void *)(uintptr_t)(i + k)))
				return -1;
		for (k = 0; k < n; k++) {
			pthread_join(t[k], &ret);
			bad |= ret != NULL;
		}
	}
	return bad;
}

START_TEST(test_thread_churn_rss_bounded)
{
	size_t warm, end;
	int i;

	ck_assert_int_eq(run_threads(0, WARMUP), 0);
	warm = rss_bytes();
	ck_assert_int_eq(run_threads(WARMUP, NR_THREADS), 0);
	end = rss_bytes();
	printf("rss after %d threads: %zu KiB, after %d: %zu KiB\n",
	       WARMUP, warm >> 10, NR_THREADS, end >> 10);
	ck_assert_msg(end < warm + RSS_GROWTH_MAX,
		      "RSS grew from %zu KiB to %zu KiB over %d short threads",
		      warm >> 10, end >> 10, NR_THREADS - WARMUP);
	for (i = 0; i < HANDOFF; i++)
		free(handoff[i]);
}
END_TEST

static Suite *churn_suite(void)
{
	Suite *s = suite_create("malloc-thread-churn");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_thread_churn_rss_bounded);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	require_uslab_malloc();
	return uslab_test_run(churn_suite());
}
