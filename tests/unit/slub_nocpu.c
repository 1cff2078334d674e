/* SPDX-License-Identifier: MIT */
/* uslab-test: threaded */
/*
 * slub_nocpu.c - SLUB for threads that cannot get a CPU id (all NR_CPUS
 * ids held by live threads): they allocate one object at a time from node
 * partial slabs under list_lock and free through __slab_free, never
 * freezing a slab, while threads with CPUs keep using their cpu slabs.
 */
#include "common/test.h"
#include "common/cpu_hold.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include "mm/slab.h"

#if CONFIG_SLUB

#define LOOPS		2000

static struct kmem_cache *cache;

static unsigned int per_slab(void)
{
	return cache->oo.x & 0xffff;
}

static unsigned long nr_partial(void)
{
	return READ_ONCE(cache->node[0]->nr_partial);
}

/* Deterministic: what the no-CPU path does to the node's lists. */
static void *nocpu_states(void *arg)
{
	unsigned int n = 3 * per_slab(), i;
	void **p = calloc(n, sizeof(*p));
	bool *ok = arg;

	*ok = false;
	if (raw_smp_processor_id() >= 0)
		return NULL;
	for (i = 0; i < n; i++) {
		p[i] = kmem_cache_alloc(cache, GFP_KERNEL);
		if (!p[i] || virt_to_slab(p[i])->frozen)
			return NULL;	/* no CPU: nothing is ever frozen */
		memset(p[i], (int)i, 256);
	}
	if (nr_partial() != 0)		/* three full slabs, on no list */
		return NULL;
	for (i = 0; i < n; i += 2)
		kmem_cache_free(cache, p[i]);
	if (nr_partial() != 3)		/* each full slab went back to the list */
		return NULL;
	for (i = 0; i < n; i += 2)
		p[i] = kmem_cache_alloc(cache, GFP_KERNEL);
	if (nr_partial() != 0)
		return NULL;
	for (i = 1; i < n; i += 2)	/* the odd ones kept their bytes */
		if (((unsigned char *)p[i])[255] != (unsigned char)i)
			return NULL;
	for (i = 0; i < n; i++)
		kmem_cache_free(cache, p[i]);
	free(p);
	*ok = true;
	return NULL;
}

/* Concurrent: allocate, stamp, swap halves with the main thread, free. */
static void **shared[2];
static pthread_barrier_t swap_point;

static void churn(void **mine, unsigned int who)
{
	unsigned int i, k;

	for (k = 0; k < LOOPS / 20; k++) {
		for (i = 0; i < 20; i++) {
			mine[i] = kmem_cache_alloc(cache, GFP_KERNEL);
			*(uintptr_t *)mine[i] = (uintptr_t)mine[i] ^ who;
		}
		for (i = 0; i < 20; i++) {
			ck_assert_uint_eq(*(uintptr_t *)mine[i], (uintptr_t)mine[i] ^ who);
			kmem_cache_free(cache, mine[i]);
		}
	}
}

static void *nocpu_churn(void *arg)
{
	void *mine[20];

	(void)arg;
	churn(mine, 1);
	pthread_barrier_wait(&swap_point);
	for (unsigned int i = 0; i < 100; i++)	/* free what the CPU thread allocated */
		kmem_cache_free(cache, shared[0][i]);
	return NULL;
}

START_TEST(test_threads_without_cpu)
{
	pthread_t *t = calloc(NR_CPUS + 2, sizeof(*t)), worker;
	unsigned int n, i;
	struct slabinfo si;
	void *mine[20];
	bool ok;

	cache = kmem_cache_create("nocpu", 256, 0, SLAB_NOLEAKTRACE, NULL);
	ck_assert_ptr_nonnull(cache);
	n = cpu_hold_all(t, NR_CPUS + 2);

	ck_assert_int_eq(pthread_create(&worker, NULL, nocpu_states, &ok), 0);
	pthread_join(worker, NULL);
	ck_assert_msg(ok, "the no-CPU thread saw the wrong slab states");

	shared[0] = calloc(100, sizeof(void *));
	pthread_barrier_init(&swap_point, NULL, 2);
	ck_assert_int_eq(pthread_create(&worker, NULL, nocpu_churn, NULL), 0);
	churn(mine, 0);		/* this thread has a CPU */
	for (i = 0; i < 100; i++)
		shared[0][i] = kmem_cache_alloc(cache, GFP_KERNEL);
	pthread_barrier_wait(&swap_point);
	pthread_join(worker, NULL);
	cpu_release_all(t, n);

	ck_assert_int_eq(kmem_cache_shrink(cache), 0);
	memset(&si, 0, sizeof(si));
	get_slabinfo(cache, &si);
	ck_assert_uint_eq(si.num_slabs, 0);
	kmem_cache_destroy(cache);
	free(shared[0]);
	free(t);
}
END_TEST

static Suite *slub_nocpu_suite(void)
{
	Suite *s = suite_create("slub_nocpu");
	TCase *tc = tcase_create("no cpu id");

	tcase_add_test(tc, test_threads_without_cpu);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(slub_nocpu_suite)

#else

int main(void)
{
	uslab_test_skip("SLUB's path for threads without a CPU id");
}

#endif
