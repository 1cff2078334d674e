/* SPDX-License-Identifier: MIT */
/* uslab-test: threaded */
/*
 * slob_threads.c - SLOB under two threads: kmalloc and kmem_cache objects of
 * every list's sizes, each filled with a pattern naming its owner, freed by
 * the allocating thread or handed to the other one to free.  A pattern that
 * changed means two live objects overlapped.  Afterwards SLOB's counters and
 * page count must be back where they started.  Bounded by count; built for
 * SLUB or SLAB, the binary skips itself.
 */
#include "common/test.h"

#include <pthread.h>
#include <stdint.h>
#include <uslab/slab.h>
#include <uslab/slobinfo.h>

#define ROUNDS		20000
#define KEEP		64	/* objects each thread holds at a time */
#define MAILBOX		32	/* objects in flight to the other thread */

struct obj {
	struct kmem_cache *cache;	/* NULL: a kmalloc object */
	unsigned char *p;
	size_t size;
	unsigned char tag;
};

struct mailbox {
	pthread_mutex_t lock;
	struct obj slot[MAILBOX];
	int n;
};

struct worker {
	unsigned int seed;
	unsigned char id;
	struct mailbox *in, *out;	/* frees from the other thread / to it */
	struct kmem_cache **caches;
	int failures;
};

static struct kmem_cache *caches[3];
static const unsigned int cache_sizes[3] = { 40, 600, 1500 };

static unsigned int next_rand(unsigned int *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static void fill(struct obj *o)
{
	memset(o->p, o->tag, o->size);
}

static int intact(const struct obj *o)
{
	size_t i;

	for (i = 0; i < o->size; i++)
		if (o->p[i] != o->tag)
			return 0;
	return 1;
}

static void release(struct worker *w, struct obj *o)
{
	if (!intact(o))
		w->failures++;
	if (o->cache)
		kmem_cache_free(o->cache, o->p);
	else
		kfree(o->p);
	o->p = NULL;
}

static void make(struct worker *w, struct obj *o, unsigned int round)
{
	unsigned int r = next_rand(&w->seed);

	o->cache = r % 3 ? NULL : w->caches[r % 9 / 3];
	o->size = o->cache ? cache_sizes[r % 9 / 3] : 1 + r % 3000;
	o->p = o->cache ? kmem_cache_alloc(o->cache, GFP_KERNEL) : kmalloc(o->size, GFP_KERNEL);
	o->tag = (unsigned char)(w->id * 64 + round % 64);
	if (!o->p)
		w->failures++;
	else
		fill(o);
}

/* Hand o to the other thread if its mailbox has room, else free it here. */
static void pass_or_free(struct worker *w, struct obj *o)
{
	pthread_mutex_lock(&w->out->lock);
	if (w->out->n < MAILBOX) {
		w->out->slot[w->out->n++] = *o;
		o->p = NULL;
	}
	pthread_mutex_unlock(&w->out->lock);
	if (o->p)
		release(w, o);
}

static void drain(struct worker *w)
{
	struct obj o;

	for (;;) {
		pthread_mutex_lock(&w->in->lock);
		if (!w->in->n) {
			pthread_mutex_unlock(&w->in->lock);
			return;
		}
		o = w->in->slot[--w->in->n];
		pthread_mutex_unlock(&w->in->lock);
		release(w, &o);
	}
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct obj held[KEEP] = { { 0 } };
	unsigned int round, i;

	for (round = 0; round < ROUNDS; round++) {
		i = next_rand(&w->seed) % KEEP;
		if (held[i].p) {
			if (next_rand(&w->seed) % 2)
				pass_or_free(w, &held[i]);
			else
				release(w, &held[i]);
		}
		make(w, &held[i], round);
		if (round % 16 == 0)
			drain(w);
	}
	for (i = 0; i < KEEP; i++)
		if (held[i].p)
			release(w, &held[i]);
	drain(w);
	return NULL;
}

START_TEST(test_two_threads)
{
	struct mailbox box[2] = { { .lock = PTHREAD_MUTEX_INITIALIZER },
				  { .lock = PTHREAD_MUTEX_INITIALIZER } };
	struct worker w[2] = {
		{ .seed = 1, .id = 1, .in = &box[0], .out = &box[1], .caches = caches },
		{ .seed = 2, .id = 2, .in = &box[1], .out = &box[0], .caches = caches },
	};
	struct uslab_slob_info before, after;
	pthread_t t[2];
	int i;

	for (i = 0; i < 3; i++) {
		caches[i] = kmem_cache_create("slob-mt", cache_sizes[i], 0, 0, NULL);
		ck_assert_ptr_nonnull(caches[i]);
	}
	uslab_slob_get_info(&before);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, work, &w[i]), 0);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	drain(&w[0]);	/* what the other thread passed after w[0] finished */
	drain(&w[1]);
	ck_assert_int_eq(w[0].failures + w[1].failures, 0);

	uslab_slob_get_info(&after);
	ck_assert_uint_ge(after.kmalloc_allocs - before.kmalloc_allocs, ROUNDS / 2);
	ck_assert_uint_eq(after.kmalloc_allocs - after.kmalloc_frees,
			  before.kmalloc_allocs - before.kmalloc_frees);
	/* every page that held only this test's objects went back */
	ck_assert_uint_eq(after.pages, before.pages);
	for (i = 0; i < 3; i++)
		kmem_cache_destroy(caches[i]);
}
END_TEST

static Suite *slob_threads_suite(void)
{
	Suite *s = suite_create("slob-threads");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_two_threads);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (!CONFIG_SLOB || !uslab_slob_get_info)
		uslab_test_skip("SLOB under two threads, checked with SLOB's counters");
	return uslab_test_run(slob_threads_suite());
}
