/* SPDX-License-Identifier: MIT */
/*
 * slab_arrays.c - SLAB's array caches: each CPU (thread) frees onto and
 * allocates from its own LIFO array, so a freed object comes straight back;
 * a node's shared array carries objects from the thread that freed them to
 * another thread; a thread's arrays go back to the slabs when it exits; and
 * the frees that would corrupt an array or a slab's freelist (double free,
 * wrong cache, a pointer into an object or outside the arena) are reported
 * and abort.
 */
/* uslab-test: threaded */
#include "common/test.h"

#include <pthread.h>
#include <stdlib.h>
#include "mm/slab.h"

#if CONFIG_SLAB

static struct kmem_cache *tuned_cache(const char *name, unsigned int size, const char *tunables)
{
	struct kmem_cache *s = kmem_cache_create(name, size, 0, SLAB_NOLEAKTRACE, NULL);
	char line[96];

	ck_assert_ptr_nonnull(s);
	if (tunables) {
		snprintf(line, sizeof(line), "%s %s", name, tunables);
		ck_assert_int_eq(slabinfo_write_line(line), 0);
	}
	return s;
}

static struct slabinfo info(struct kmem_cache *s)
{
	struct slabinfo si;

	memset(&si, 0, sizeof(si));
	get_slabinfo(s, &si);
	return si;
}

START_TEST(a_freed_object_comes_straight_back)
{
	struct kmem_cache *s = tuned_cache("lifo-64", 64, NULL);
	void *a, *b, *c;

	a = kmem_cache_alloc(s, GFP_KERNEL);
	ck_assert_ptr_nonnull(a);
	kmem_cache_free(s, a);
	ck_assert_ptr_eq(kmem_cache_alloc(s, GFP_KERNEL), a);
	b = kmem_cache_alloc(s, GFP_KERNEL);
	c = kmem_cache_alloc(s, GFP_KERNEL);
	kmem_cache_free(s, a);
	kmem_cache_free(s, b);
	kmem_cache_free(s, c);
	/* last in, first out */
	ck_assert_ptr_eq(kmem_cache_alloc(s, GFP_KERNEL), c);
	ck_assert_ptr_eq(kmem_cache_alloc(s, GFP_KERNEL), b);
	ck_assert_ptr_eq(kmem_cache_alloc(s, GFP_KERNEL), a);
	kmem_cache_free(s, a);
	kmem_cache_free(s, b);
	kmem_cache_free(s, c);
	kmem_cache_destroy(s);
}
END_TEST

/* ---- threads ---- */

#define NR_OBJS	300

struct churn {
	struct kmem_cache *s;
	void *objs[NR_OBJS];
	unsigned long active_before_exit;	/* objects out of the slabs, seen by the thread */
};

/* Allocate NR_OBJS, free them all, note what stays cached, exit. */
static void *churn_thread(void *arg)
{
	struct churn *c = arg;
	int i;

	for (i = 0; i < NR_OBJS; i++) {
		c->objs[i] = kmem_cache_alloc(c->s, GFP_KERNEL);
		ck_assert_ptr_nonnull(c->objs[i]);
	}
	for (i = 0; i < NR_OBJS; i++)
		kmem_cache_free(c->s, c->objs[i]);
	c->active_before_exit = info(c->s).active_objs;
	return NULL;
}

static void run_churn_thread(struct churn *c)
{
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, churn_thread, c), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
}

static bool freed_by(const struct churn *c, const void *p)
{
	int i;

	for (i = 0; i < NR_OBJS; i++)
		if (c->objs[i] == p)
			return true;
	return false;
}

START_TEST(the_shared_array_passes_objects_between_threads)
{
	/* limit 120, batchcount 60, shared array of 8 x 60 */
	struct churn c = { .s = tuned_cache("share-64", 64, "120 60 8") };
	unsigned long shared, slabs;
	struct slabinfo si;
	void *p;

	run_churn_thread(&c);
	si = info(c.s);
	shared = si.shared_avail;
	slabs = si.num_slabs;
	/* the thread's full array flushed batches to the shared array; its
	 * own array went back to the slabs when it exited */
	ck_assert_uint_gt(shared, 0);
	ck_assert_uint_eq(si.active_objs, shared);
	p = kmem_cache_alloc(c.s, GFP_KERNEL);
	ck_assert_msg(freed_by(&c, p), "%p was not freed by the other thread", p);
	si = info(c.s);
	/* a first refill of an untouched array takes up to 16 (BATCHREFILL_LIMIT) */
	ck_assert_uint_eq(si.shared_avail, shared - min(shared, 16UL));
	ck_assert_uint_eq(si.num_slabs, slabs);		/* no new slab was needed */
	kmem_cache_free(c.s, p);
	ck_assert_int_eq(kmem_cache_shrink(c.s), 0);
	kmem_cache_destroy(c.s);
}
END_TEST

START_TEST(a_threads_arrays_drain_when_it_exits)
{
	struct churn c = { .s = tuned_cache("exit-64", 64, "120 60 0") };
	struct slabinfo si;

	run_churn_thread(&c);
	/* before exiting, its array held objects (counted as in use) */
	ck_assert_uint_ge(c.active_before_exit, 1);
	ck_assert_uint_le(c.active_before_exit, 120);
	si = info(c.s);
	ck_assert_uint_eq(si.active_objs, 0);
	ck_assert_uint_eq(si.active_slabs, 0);
	kmem_cache_destroy(c.s);
}
END_TEST

/* Several threads at once, each freeing what another allocated. */
#define NR_THREADS	4
#define PER_THREAD	2000

struct ring {
	struct kmem_cache *s;
	void **mine, **theirs;
	pthread_barrier_t *barrier;
};

static void *ring_thread(void *arg)
{
	struct ring *r = arg;
	int i, round;

	for (round = 0; round < 3; round++) {
		for (i = 0; i < PER_THREAD; i++) {
			r->mine[i] = kmem_cache_alloc(r->s, GFP_KERNEL);
			ck_assert_ptr_nonnull(r->mine[i]);
			memset(r->mine[i], round, 64);
		}
		pthread_barrier_wait(r->barrier);
		for (i = 0; i < PER_THREAD; i++)
			kmem_cache_free(r->s, r->theirs[i]);
		pthread_barrier_wait(r->barrier);
	}
	return NULL;
}

START_TEST(cross_thread_frees_balance_out)
{
	static void *objs[NR_THREADS][PER_THREAD];
	struct kmem_cache *s = tuned_cache("ring-64", 64, "32 16 4");
	struct ring r[NR_THREADS];
	pthread_barrier_t barrier;
	pthread_t t[NR_THREADS];
	int i;

	pthread_barrier_init(&barrier, NULL, NR_THREADS);
	for (i = 0; i < NR_THREADS; i++) {
		r[i].s = s;
		r[i].mine = objs[i];
		r[i].theirs = objs[(i + 1) % NR_THREADS];
		r[i].barrier = &barrier;
		ck_assert_int_eq(pthread_create(&t[i], NULL, ring_thread, &r[i]), 0);
	}
	for (i = 0; i < NR_THREADS; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	pthread_barrier_destroy(&barrier);
	/* the threads are gone: only the shared array holds objects */
	ck_assert_uint_eq(info(s).active_objs, info(s).shared_avail);
	ck_assert_int_eq(kmem_cache_shrink(s), 0);
	ck_assert_uint_eq(info(s).num_slabs, 0);
	kmem_cache_destroy(s);
}
END_TEST

/* ---- misuse ---- */

static void free_twice_in_a_row(void *arg)
{
	struct kmem_cache *s = tuned_cache("bad-twice", 64, NULL);
	void *x = kmem_cache_alloc(s, GFP_KERNEL);

	(void)arg;
	kmem_cache_free(s, x);
	kmem_cache_free(s, x);
}

static void free_twice_into_the_slab(void *arg)
{
	struct kmem_cache *s = tuned_cache("bad-slab", 64, NULL);
	void *x = kmem_cache_alloc(s, GFP_KERNEL);
	void *y = kmem_cache_alloc(s, GFP_KERNEL);	/* keeps the slab alive */

	(void)arg;
	(void)y;
	kmem_cache_free(s, x);
	kmem_cache_shrink(s);	/* x back in its slab's freelist */
	kmem_cache_free(s, x);	/* not on top of the (empty) array: accepted there */
	kmem_cache_shrink(s);	/* ... and caught going back into the slab */
}

static void free_to_the_wrong_cache(void *arg)
{
	struct kmem_cache *a = tuned_cache("bad-cache-a", 64, NULL);
	struct kmem_cache *b = tuned_cache("bad-cache-b", 64, NULL);

	(void)arg;
	kmem_cache_free(b, kmem_cache_alloc(a, GFP_KERNEL));
}

static void free_inside_an_object(void *arg)
{
	struct kmem_cache *s = tuned_cache("bad-inside", 64, NULL);
	char *x = kmem_cache_alloc(s, GFP_KERNEL);

	(void)arg;
	kmem_cache_free(s, x + 8);
}

static void kfree_outside_the_arena(void *arg)
{
	int on_stack = 0;

	(void)arg;
	kfree(&on_stack);
}

START_TEST(bad_frees_are_reported_and_abort)
{
	ck_assert_aborts_with(free_twice_in_a_row, NULL, "double free");
	ck_assert_aborts_with(free_twice_into_the_slab, NULL, "already free in its slab");
	ck_assert_aborts_with(free_to_the_wrong_cache, NULL, "Wrong slab cache");
	ck_assert_aborts_with(free_inside_an_object, NULL, "is not the start of an object");
	ck_assert_aborts_with(kfree_outside_the_arena, NULL, "kfree: invalid pointer");
}
END_TEST

static Suite *slab_arrays_suite(void)
{
	Suite *s = suite_create("slab_arrays");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, a_freed_object_comes_straight_back);
	tcase_add_test(tc, the_shared_array_passes_objects_between_threads);
	tcase_add_test(tc, a_threads_arrays_drain_when_it_exits);
	tcase_add_test(tc, cross_thread_frees_balance_out);
	tcase_add_test(tc, bad_frees_are_reported_and_abort);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	/* no reap in the middle of a test: these count objects in arrays */
	if (parse_option_string("slab_reap_ms=3600000")) {
		fprintf(stderr, "option rejected\n");
		return 1;
	}
	return uslab_test_run(slab_arrays_suite());
}

#else

int main(void)
{
	uslab_test_skip("SLAB's per-CPU and shared array caches");
}

#endif
