/* SPDX-License-Identifier: MIT */
/* uslab-test: threaded */
/*
 * slub_debug_threads.c - SLUB debug caches under threads: four threads
 * allocate, fill, check and free objects of one FZPU cache through shared
 * slots, so most frees are cross-thread, while one of them validates the
 * whole cache now and then.  Every change of a debug slab happens under
 * its node's list_lock, so validate never sees a half-made change: it must
 * report nothing, and no object may ever come back with another one's
 * bytes.  Bounded by a count (a few seconds at most, also under TSan).
 */
#include "common/test.h"

#include <pthread.h>
#include <stdatomic.h>
#include "mm/slab.h"

#if CONFIG_SLUB

#define NTHREADS	4
#define NSLOTS		256
#define OPS		4000	/* per thread */
#define VALIDATE_EVERY	500	/* operations of thread 0 between validates */
#define SIZE		72

static struct kmem_cache *cache;
static _Atomic(unsigned char *) slots[NSLOTS];
static atomic_uint bad_objects;
static atomic_int validate_errors;

/* A tiny per-thread generator: which slot next. */
static unsigned int next_slot(unsigned int *state)
{
	*state = *state * 1103515245u + 12345u;
	return (*state >> 8) % NSLOTS;
}

/* Take whatever sits in slot i (checking its bytes), or put a new object there. */
static void one_op(unsigned int i, unsigned char tag)
{
	unsigned char *x = atomic_exchange(&slots[i], NULL);
	unsigned int b;

	if (x) {
		for (b = 1; b < SIZE; b++)
			if (x[b] != x[0])
				atomic_fetch_add(&bad_objects, 1);
		kmem_cache_free(cache, x);
		return;
	}
	x = kmem_cache_alloc(cache, GFP_KERNEL);
	if (!x)
		return;
	memset(x, tag, SIZE);
	x = atomic_exchange(&slots[i], x);
	if (x)
		kmem_cache_free(cache, x);	/* someone filled it meanwhile */
}

static void *worker(void *arg)
{
	unsigned int id = (unsigned int)(uintptr_t)arg, state = id * 7919u + 1, n;

	for (n = 1; n <= OPS; n++) {
		one_op(next_slot(&state), (unsigned char)(id * 16 + n % 16));
		if (id == 0 && n % VALIDATE_EVERY == 0)
			atomic_fetch_add(&validate_errors, kmem_cache_validate(cache));
	}
	return NULL;
}

START_TEST(test_threads_and_validate)
{
	pthread_t t[NTHREADS];
	unsigned int i;

	cache = kmem_cache_create("dbg-threads", SIZE, 0,
				  SLAB_CONSISTENCY_CHECKS | SLAB_RED_ZONE | SLAB_POISON |
				  SLAB_STORE_USER, NULL);
	ck_assert_ptr_nonnull(cache);
	for (i = 0; i < NTHREADS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i), 0);
	for (i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	ck_assert_uint_eq(atomic_load(&bad_objects), 0);
	ck_assert_int_eq(atomic_load(&validate_errors), 0);
	for (i = 0; i < NSLOTS; i++)
		if (slots[i])
			kmem_cache_free(cache, slots[i]);
	ck_assert_int_eq(kmem_cache_validate(cache), 0);
	ck_assert_int_eq(kmem_cache_shrink(cache), 0);
	kmem_cache_destroy(cache);
}
END_TEST

static Suite *slub_debug_threads_suite(void)
{
	Suite *s = suite_create("slub_debug_threads");
	TCase *tc = tcase_create("threads");

	tcase_add_test(tc, test_threads_and_validate);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(slub_debug_threads_suite)

#else

int main(void)
{
	uslab_test_skip("SLUB's debug caches under threads");
}

#endif
