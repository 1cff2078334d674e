/* SPDX-License-Identifier: MIT */
/* uslab-test: threaded */
/*
 * rcu_typesafe.c - SLAB_TYPESAFE_BY_RCU, the kernel's promise: inside
 * rcu_read_lock(), memory that held an object of such a cache still holds
 * an object of that cache, even after the object was freed (it may have
 * been reused by the same cache, never by anything else).
 *
 *  - stress: readers under rcu_read_lock() walk a table of objects that
 *    writers keep replacing (free, then allocate), while rivals churn a cache
 *    and kmalloc of the same size (which would take the pages of any slab
 *    given back too early) and a shrinker pushes empty slabs out.  Every
 *    object carries a type tag set by the cache's constructor and never
 *    written again: a reader must always read that tag.
 *  - one reader, no races: an object freed inside rcu_read_lock() keeps its
 *    tag while the page allocator and kmalloc are asked for lots of memory.
 *  - empty slabs go back to the page allocator after rcu_barrier() (they are
 *    no longer kept for the cache's whole life).
 *  - freeing an object twice is still reported.
 * Allocator-neutral: only the public API.  Bounded by counts.
 */
#include "common/test.h"

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <uslab/gfp.h>
#include <uslab/rcupdate.h>
#include <uslab/slab.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

#define TAG_RCU		0x7479706573616665ULL	/* "typesafe" */
#define TAG_RIVAL	0x726976616c726976ULL	/* "rivalriv" */
#define OBJ_WORDS	32			/* 256-byte objects */
#define SLOTS		512
#define WRITERS		2
#define READERS		2
#define REPLACEMENTS	(SANITIZED ? 100000 : 1000000)	/* per writer, at most */
#define READ_SECTIONS	(SANITIZED ? 2000 : 20000)	/* per reader */
#define READ_BATCH	64	/* pointers a reader holds in one critical section */
#define READ_PASSES	8	/* times it reads the tags behind them */
#define RIVAL_BURST	128	/* objects of another type allocated at once */
#define RIVAL_PAGES	16	/* and blocks of pages */

struct tobj {
	uint64_t tag;			/* TAG_RCU, written by the constructor only */
	uint64_t gen;			/* the writer's serial (atomic) */
	uint64_t body[OBJ_WORDS - 2];	/* rivals write TAG_RIVAL all over theirs */
};

static struct kmem_cache *rcu_cache, *rival_cache;
static struct tobj *slots[SLOTS];	/* atomic pointers, read under rcu_read_lock() */
static int readers_left;		/* atomic: the others stop when no reader is left */
static unsigned long wrong_tags;	/* atomic: reads that found another type */
static uint64_t first_wrong;		/* atomic: the first wrong tag seen */
static unsigned long reads;		/* atomic */
static unsigned long failures;		/* atomic: a writer's allocation went wrong */
static char first_failure[160];		/* written by the first failure only */

static void writer_fail(const char *what, const void *o)
{
	if (__atomic_fetch_add(&failures, 1, __ATOMIC_ACQ_REL) == 0)
		snprintf(first_failure, sizeof(first_failure), "%s (%p)", what, o);
}

static void rcu_ctor(void *p)
{
	__atomic_store_n(&((struct tobj *)p)->tag, TAG_RCU, __ATOMIC_RELAXED);
}

static void rival_ctor(void *p)
{
	__atomic_store_n(&((struct tobj *)p)->tag, TAG_RIVAL, __ATOMIC_RELAXED);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* ---------------- the stress ---------------- */

/*
 * Takes whatever pages have come free, and writes another type all over
 * them: same-size objects of another cache and of kmalloc, and blocks of
 * orders 0..3 straight from the page allocator.  Run by the threads that
 * free slabs (pages a thread frees go to its own per-CPU list first, where
 * its next allocation finds them), and by a thread of its own.
 */
static void rival_fill(void *p, size_t bytes)
{
	uint64_t *w = p;
	size_t i;

	for (i = 0; i < bytes / sizeof(*w); i++)
		w[i] = TAG_RIVAL;
}

static void rival_burst(void)
{
	struct tobj *p[RIVAL_BURST];
	struct page *pg[RIVAL_PAGES];
	unsigned int i;

	for (i = 0; i < RIVAL_BURST; i++) {
		p[i] = (i & 1) ? kmem_cache_alloc(rival_cache, GFP_KERNEL)
			       : kmalloc(sizeof(struct tobj), GFP_KERNEL);
		if (p[i])
			rival_fill(p[i], sizeof(struct tobj));
	}
	for (i = 0; i < RIVAL_PAGES; i++) {
		pg[i] = alloc_pages(GFP_KERNEL, i % 4);
		if (pg[i])
			rival_fill(page_address(pg[i]), 4096UL << (i % 4));
	}
	for (i = 0; i < RIVAL_PAGES; i++)
		if (pg[i])
			__free_pages(pg[i], i % 4);
	for (i = 0; i < RIVAL_BURST; i++) {
		if (i & 1)
			kmem_cache_free(rival_cache, p[i]);
		else
			kfree(p[i]);
	}
}

/*
 * Rounds: allocate a new object for each of this writer's slots first, then
 * swap them in and free the old ones, so that slabs holding only old
 * objects empty out while readers may still hold pointers into them.
 */
static void *writer(void *arg)
{
	unsigned int w = (unsigned int)(uintptr_t)arg, k;
	struct tobj *fresh[SLOTS / WRITERS], *old;
	unsigned long round, n = 0;

	for (round = 0; round < REPLACEMENTS / (SLOTS / WRITERS) &&
	     __atomic_load_n(&readers_left, __ATOMIC_ACQUIRE); round++) {
		for (k = 0; k < SLOTS / WRITERS; k++) {
			fresh[k] = kmem_cache_alloc(rcu_cache, GFP_KERNEL);
			if (!fresh[k]) {
				writer_fail("kmem_cache_alloc failed", NULL);
				goto out;
			}
			if (__atomic_load_n(&fresh[k]->tag, __ATOMIC_RELAXED) != TAG_RCU)
				writer_fail("a new object lacks the constructor's tag", fresh[k]);
			__atomic_store_n(&fresh[k]->gen, n++, __ATOMIC_RELAXED);
		}
		for (k = 0; k < SLOTS / WRITERS; k++) {
			old = __atomic_exchange_n(&slots[k * WRITERS + w], fresh[k], __ATOMIC_ACQ_REL);
			if (old)
				kmem_cache_free(rcu_cache, old);
		}
		rival_burst();
	}
out:
	return NULL;
}

static void reader_check(struct tobj *o)
{
	uint64_t tag = __atomic_load_n(&o->tag, __ATOMIC_RELAXED);

	(void)__atomic_load_n(&o->gen, __ATOMIC_RELAXED);
	if (tag != TAG_RCU) {
		uint64_t none = 0;

		__atomic_compare_exchange_n(&first_wrong, &none, tag | 1, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
		__atomic_add_fetch(&wrong_tags, 1, __ATOMIC_RELAXED);
	}
}

/*
 * Each critical section takes pointers, reads the tags behind them over and
 * over (objects get freed, slabs emptied and shrunk meanwhile), and once in
 * a while gives the CPU away with the pointers held.
 */
static void *reader(void *arg)
{
	uint64_t seed = 0x2545f4914f6cdd1dULL * ((uintptr_t)arg + 7);
	struct tobj *held[READ_BATCH];
	unsigned long n = 0, cs;
	int k, pass;

	for (cs = 0; cs < READ_SECTIONS; cs++) {
		rcu_read_lock();
		for (k = 0; k < READ_BATCH; k++)
			held[k] = __atomic_load_n(&slots[rnd(&seed) % SLOTS], __ATOMIC_ACQUIRE);
		for (pass = 0; pass < READ_PASSES; pass++) {
			if ((cs & 15) == 0 && pass == READ_PASSES / 2)
				sched_yield();
			for (k = 0; k < READ_BATCH; k++)
				if (held[k])
					reader_check(held[k]);
			n += READ_BATCH;
		}
		rcu_read_unlock();
	}
	__atomic_sub_fetch(&readers_left, 1, __ATOMIC_RELEASE);
	__atomic_add_fetch(&reads, n, __ATOMIC_RELAXED);
	return NULL;
}

static void *rival(void *arg)
{
	(void)arg;
	while (__atomic_load_n(&readers_left, __ATOMIC_ACQUIRE))
		rival_burst();
	return NULL;
}

/* Empty slabs of the RCU cache go out now and then (through call_rcu). */
static void *shrinker(void *arg)
{
	(void)arg;
	while (__atomic_load_n(&readers_left, __ATOMIC_ACQUIRE)) {
		kmem_cache_shrink(rcu_cache);
		rival_burst();
		sched_yield();
	}
	return NULL;
}

START_TEST(readers_only_ever_see_their_type)
{
	pthread_t w[WRITERS], r[READERS], rv, sh;
	uintptr_t i;

	rcu_cache = kmem_cache_create("rcu-typesafe", sizeof(struct tobj), 0,
				      SLAB_TYPESAFE_BY_RCU, rcu_ctor);
	rival_cache = kmem_cache_create("rcu-rival", sizeof(struct tobj), 0, 0, rival_ctor);
	ck_assert_ptr_nonnull(rcu_cache);
	ck_assert_ptr_nonnull(rival_cache);
	readers_left = READERS;
	for (i = 0; i < READERS; i++)
		ck_assert_int_eq(pthread_create(&r[i], NULL, reader, (void *)i), 0);
	ck_assert_int_eq(pthread_create(&rv, NULL, rival, NULL), 0);
	ck_assert_int_eq(pthread_create(&sh, NULL, shrinker, NULL), 0);
	for (i = 0; i < WRITERS; i++)
		ck_assert_int_eq(pthread_create(&w[i], NULL, writer, (void *)i), 0);
	for (i = 0; i < WRITERS; i++)
		pthread_join(w[i], NULL);
	for (i = 0; i < READERS; i++)
		pthread_join(r[i], NULL);
	pthread_join(rv, NULL);
	pthread_join(sh, NULL);
	ck_assert_msg(!failures, "%lu failures, first: %s", failures, first_failure);
	ck_assert_msg(!wrong_tags, "%lu of %lu reads inside rcu_read_lock() found a tag "
		      "other than the cache's, first %#llx", wrong_tags, reads,
		      (unsigned long long)(first_wrong & ~1ULL));
	ck_assert_uint_gt(reads, 0);
	for (i = 0; i < SLOTS; i++)
		if (slots[i])
			kmem_cache_free(rcu_cache, slots[i]);
	kmem_cache_destroy(rcu_cache);
	kmem_cache_destroy(rival_cache);
}
END_TEST

/* ---------------- one reader, no races ---------------- */

START_TEST(a_freed_object_keeps_its_type_inside_the_reader)
{
	enum { RIVALS = 4096, BIG = 64 };
	struct kmem_cache *s = kmem_cache_create("rcu-keep", sizeof(struct tobj), 0,
						 SLAB_TYPESAFE_BY_RCU, rcu_ctor);
	static struct tobj *rivals[RIVALS];
	static void *big[BIG];
	struct tobj *o;
	int i, w;

	ck_assert_ptr_nonnull(s);
	rcu_read_lock();
	o = kmem_cache_alloc(s, GFP_KERNEL);
	ck_assert_ptr_nonnull(o);
	kmem_cache_free(s, o);
	kmem_cache_shrink(s);	/* its slab, empty now, is given back (after readers) */
	for (i = 0; i < RIVALS; i++) {
		rivals[i] = kmalloc(sizeof(struct tobj), GFP_KERNEL);
		ck_assert_ptr_nonnull(rivals[i]);
		for (w = 0; w < OBJ_WORDS; w++)
			((uint64_t *)rivals[i])[w] = TAG_RIVAL;
	}
	for (i = 0; i < BIG; i++) {
		big[i] = kmalloc(16384, GFP_KERNEL);
		ck_assert_ptr_nonnull(big[i]);
		memset(big[i], 0x72, 16384);
	}
	ck_assert_msg(o->tag == TAG_RCU, "freed object %p reads %#llx inside rcu_read_lock()",
		      (void *)o, (unsigned long long)o->tag);
	rcu_read_unlock();
	for (i = 0; i < RIVALS; i++)
		kfree(rivals[i]);
	for (i = 0; i < BIG; i++)
		kfree(big[i]);
	kmem_cache_destroy(s);
}
END_TEST

/* ---------------- memory comes back ---------------- */

static unsigned long pages_in_use(void)
{
	struct uslab_memmap_stats m;

	uslab_memmap_stats(&m);
	return m.pages_online - m.pages_free;
}

START_TEST(empty_slabs_go_back_after_rcu_barrier)
{
	enum { N = 16384 };	/* 4 MiB of 256-byte objects */
	struct kmem_cache *s = kmem_cache_create("rcu-return", sizeof(struct tobj), 0,
						 SLAB_TYPESAFE_BY_RCU, rcu_ctor);
	static struct tobj *o[N];
	unsigned long before, used, back;
	int i;

	ck_assert_ptr_nonnull(s);
	kmem_cache_free(s, kmem_cache_alloc(s, GFP_KERNEL));
	rcu_barrier();
	before = pages_in_use();
	for (i = 0; i < N; i++) {
		o[i] = kmem_cache_alloc(s, GFP_KERNEL);
		ck_assert_ptr_nonnull(o[i]);
	}
	used = pages_in_use() - before;
	ck_assert_uint_ge(used, (unsigned long)N * sizeof(struct tobj) / 4096);
	for (i = 0; i < N; i++)
		kmem_cache_free(s, o[i]);
	kmem_cache_shrink(s);
	rcu_barrier();
	back = before + used - pages_in_use();
	ck_assert_msg(back >= used * 9 / 10, "only %lu of the %lu pages of the emptied cache "
		      "came back after rcu_barrier()", back, used);
	kmem_cache_destroy(s);
}
END_TEST

/* ---------------- misuse ---------------- */

static void double_free(void *arg)
{
	struct kmem_cache *s = kmem_cache_create("rcu-double", sizeof(struct tobj), 0,
						 SLAB_TYPESAFE_BY_RCU, rcu_ctor);
	struct tobj *o = kmem_cache_alloc(s, GFP_KERNEL);

	(void)arg;
	rcu_read_lock();	/* SLOB: the first free is still waiting at the second */
	kmem_cache_free(s, o);
	kmem_cache_free(s, o);
}

START_TEST(a_double_free_is_reported)
{
	ck_assert_aborts_with(double_free, NULL, "double free");
}
END_TEST

static Suite *rcu_typesafe_suite(void)
{
	Suite *s = suite_create("rcu_typesafe");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, readers_only_ever_see_their_type);
	tcase_add_test(tc, a_freed_object_keeps_its_type_inside_the_reader);
	tcase_add_test(tc, empty_slabs_go_back_after_rcu_barrier);
	tcase_add_test(tc, a_double_free_is_reported);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(rcu_typesafe_suite)
