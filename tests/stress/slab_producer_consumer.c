/* SPDX-License-Identifier: MIT */
/* uslab-test: threaded */
/*
 * slab_producer_consumer.c - producers allocate (object caches of several
 * sizes and kmalloc of random sizes, large ones included), stamp each
 * object with a pattern derived from its address, and pass it through a
 * bounded queue to consumers, which check the pattern and free it: every
 * free is a cross-thread free.  Allocator-neutral: only the public API.
 * Any object handed out twice, corrupted or mixed up fails the test.
 */
#include "common/test.h"
#include "stress/slab_stamp.h"

#include <stdlib.h>
#include <uslab/uslab.h>

#define PRODUCERS	3
#define CONSUMERS	3
#define PER_PRODUCER	(STAMP_SANITIZED ? 20000 : 100000)
#define QUEUE_LEN	512
#define HELD		32	/* objects a consumer keeps before freeing the oldest */

static const unsigned int cache_sizes[] = { 8, 24, 64, 192, 512, 2048 };
#define NR_CACHES (sizeof(cache_sizes) / sizeof(cache_sizes[0]))
static struct kmem_cache *caches[NR_CACHES];

struct item {
	void *p;		/* NULL: no more items */
	size_t size;		/* bytes asked for */
	int cache;		/* index into caches, or -1 for kmalloc */
	uint64_t serial;	/* unique per allocation */
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
	struct item ring[QUEUE_LEN];
	unsigned int head, count;
} q = { .lock = PTHREAD_MUTEX_INITIALIZER, .not_empty = PTHREAD_COND_INITIALIZER,
	.not_full = PTHREAD_COND_INITIALIZER };

static uint64_t next_serial;	/* atomic */

static void queue_push(struct item it)
{
	pthread_mutex_lock(&q.lock);
	while (q.count == QUEUE_LEN)
		pthread_cond_wait(&q.not_full, &q.lock);
	q.ring[(q.head + q.count++) % QUEUE_LEN] = it;
	pthread_cond_signal(&q.not_empty);
	pthread_mutex_unlock(&q.lock);
}

static struct item queue_pop(void)
{
	struct item it;

	pthread_mutex_lock(&q.lock);
	while (!q.count)
		pthread_cond_wait(&q.not_empty, &q.lock);
	it = q.ring[q.head];
	q.head = (q.head + 1) % QUEUE_LEN;
	q.count--;
	pthread_cond_signal(&q.not_full);
	pthread_mutex_unlock(&q.lock);
	return it;
}

/* Sizes for kmalloc: mostly small, some up to a few KiB, a few large. */
static size_t kmalloc_size(uint64_t *rnd)
{
	uint64_t r = stamp_rand(rnd);

	if (r % 100 == 0)
		return 9000 + (size_t)(r >> 8) % 60000;
	if (r % 10 == 0)
		return 8 + (size_t)(r >> 8) % 6000;
	return 8 + (size_t)(r >> 8) % 300;
}

static struct item produce_one(uint64_t *rnd)
{
	struct item it;

	it.serial = __atomic_add_fetch(&next_serial, 1, __ATOMIC_RELAXED);
	if (stamp_rand(rnd) % 10 < 7) {
		it.cache = (int)(stamp_rand(rnd) % NR_CACHES);
		it.size = cache_sizes[it.cache];
		it.p = uslab_kmem_cache_alloc(caches[it.cache], USLAB_GFP_KERNEL);
	} else {
		it.cache = -1;
		it.size = kmalloc_size(rnd);
		it.p = uslab___kmalloc(it.size, USLAB_GFP_KERNEL);
	}
	if (!it.p)
		stamp_fail("allocation of %zu bytes failed", it.size);
	else
		stamp_object(it.p, it.size, it.serial);
	return it;
}

static void *producer(void *arg)
{
	uint64_t rnd = 0x9e3779b97f4a7c15ULL * ((uintptr_t)arg + 1);
	struct item it;
	int i;

	for (i = 0; i < PER_PRODUCER; i++) {
		it = produce_one(&rnd);
		if (it.p)
			queue_push(it);
	}
	return NULL;
}

static void consume(struct item it)
{
	if (!check_and_release(it.p, it.size, it.serial))
		return;		/* leave a damaged object alone */
	if (it.cache >= 0)
		uslab_kmem_cache_free(caches[it.cache], it.p);
	else
		uslab_kfree(it.p);
}

static void *consumer(void *arg)
{
	struct item held[HELD], it;
	unsigned int n = 0, oldest = 0;

	(void)arg;
	for (;;) {
		it = queue_pop();
		if (!it.p)
			break;
		if (n < HELD) {
			held[n++] = it;
			continue;
		}
		consume(held[oldest]);
		held[oldest] = it;
		oldest = (oldest + 1) % HELD;
	}
	while (n)
		consume(held[--n]);
	return NULL;
}

START_TEST(test_producer_consumer)
{
	pthread_t prod[PRODUCERS], cons[CONSUMERS];
	struct item stop = { NULL, 0, -1, 0 };
	uintptr_t i;

	for (i = 0; i < NR_CACHES; i++) {
		caches[i] = uslab_kmem_cache_create("stress-pc", cache_sizes[i], 0, 0, NULL);
		ck_assert_ptr_nonnull(caches[i]);
	}
	for (i = 0; i < CONSUMERS; i++)
		ck_assert_int_eq(pthread_create(&cons[i], NULL, consumer, NULL), 0);
	for (i = 0; i < PRODUCERS; i++)
		ck_assert_int_eq(pthread_create(&prod[i], NULL, producer, (void *)i), 0);
	for (i = 0; i < PRODUCERS; i++)
		pthread_join(prod[i], NULL);
	for (i = 0; i < CONSUMERS; i++)
		queue_push(stop);
	for (i = 0; i < CONSUMERS; i++)
		pthread_join(cons[i], NULL);
	ck_assert_msg(stamp_failures == 0, "%lu failures; first: %s", stamp_failures,
		      stamp_first_failure);
	ck_assert_uint_eq(next_serial, (uint64_t)PRODUCERS * PER_PRODUCER);
	for (i = 0; i < NR_CACHES; i++)
		uslab_kmem_cache_destroy(caches[i]);
}
END_TEST

static Suite *producer_consumer_suite(void)
{
	Suite *s = suite_create("slab_producer_consumer");
	TCase *tc = tcase_create("cross-thread frees");

	tcase_add_test(tc, test_producer_consumer);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(producer_consumer_suite)
