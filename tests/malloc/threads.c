// SPDX-License-Identifier: MIT
/*
 * threads.c - a program with tens of threads: each allocates, reallocates
 * and frees blocks of every kind, and passes some to other threads through
 * a shared exchange, so that blocks are freed by threads that did not
 * allocate them.  Every block's contents are checked before it is freed.
 * Bounded by count.
 */
#include "malloc_test.h"
#include "common/test.h"

#include <malloc.h>
#include <pthread.h>

#define NR_THREADS	32
#define OPS		6000
#define SLOTS		128
#define EXCHANGE	256

struct block {
	unsigned char *p;	/* the block, or NULL */
	size_t len;		/* bytes holding the pattern */
	uintptr_t tag;		/* pattern seed */
};

static pthread_mutex_t exchange_lock = PTHREAD_MUTEX_INITIALIZER;
static struct block exchange[EXCHANGE];	/* blocks in transit (exchange_lock) */

static size_t pick_size(uint64_t r)
{
	if (r % 1000 == 0)
		return (5 << 20) + r % 100000;	/* huge */
	if (r % 50 == 0)
		return 9000 + r % 500000;	/* large */
	return r % 3000;
}

/* 0 if the block held its pattern; frees it either way. */
static int check_free(struct block *b)
{
	int ok = 1;

	if (b->p) {
		ok = pattern_ok(b->p, b->len, b->tag);
		free(b->p);
	}
	b->p = NULL;
	return !ok;
}

static int new_block(struct block *b, uint64_t r, uintptr_t tag)
{
	b->len = pick_size(r);
	b->tag = tag;
	b->p = (r & 1) ? malloc(b->len) : calloc(1, b->len);
	if (!b->p)
		return 1;
	if (!(r & 1) && b->len && (b->p[0] || b->p[b->len - 1]))
		return 1;	/* calloc must zero */
	pattern_fill(b->p, b->len, tag);
	return 0;
}

/* Grow or shrink in place or by moving; the common prefix must survive. */
static int resize(struct block *b, uint64_t r)
{
	size_t len = pick_size(r), keep = len < b->len ? len : b->len;
	unsigned char *q = realloc(b->p, len ? len : 1);

	if (!q || !pattern_ok(q, keep, b->tag))
		return 1;
	b->p = q;
	b->len = len;
	pattern_fill(q, len, b->tag);
	return 0;
}

/* Swap one of ours with a random block in the exchange. */
static int trade(struct block *b, uint64_t r)
{
	struct block tmp;

	pthread_mutex_lock(&exchange_lock);
	tmp = exchange[r % EXCHANGE];
	exchange[r % EXCHANGE] = *b;
	pthread_mutex_unlock(&exchange_lock);
	*b = tmp;
	return b->p && !pattern_ok(b->p, b->len, b->tag);
}

static void *worker(void *arg)
{
	uint64_t seed = (uintptr_t)arg * 0x9E3779B97F4A7C15ULL + 1;
	struct block slot[SLOTS] = { { 0 } };
	int i, bad = 0;

	for (i = 0; i < OPS && !bad; i++) {
		uint64_t r = rng_next(&seed);
		struct block *b = &slot[r % SLOTS];

		r >>= 8;
		if (!b->p)
			bad |= new_block(b, r, (uintptr_t)arg * OPS + i);
		else if (r % 4 == 0)
			bad |= resize(b, r >> 2);
		else if (r % 4 == 1)
			bad |= trade(b, r >> 2);
		else
			bad |= check_free(b);
	}
	for (i = 0; i < SLOTS; i++)
		bad |= check_free(&slot[i]);
	return (void *)(uintptr_t)bad;
}

START_TEST(test_tens_of_threads)
{
	pthread_t t[NR_THREADS];
	void *ret;
	int i, bad = 0;

	for (i = 0; i < NR_THREADS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1)), 0);
	for (i = 0; i < NR_THREADS; i++) {
		pthread_join(t[i], &ret);
		bad |= ret != NULL;
	}
	for (i = 0; i < EXCHANGE; i++)
		bad |= check_free(&exchange[i]);
	ck_assert_msg(!bad, "a block lost its contents or an allocation failed");
}
END_TEST

static Suite *threads_suite(void)
{
	Suite *s = suite_create("malloc-threads");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_tens_of_threads);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	require_uslab_malloc();
	return uslab_test_run(threads_suite());
}
