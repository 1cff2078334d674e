/* SPDX-License-Identifier: MIT */
/* uslab-test: threaded */
/*
 * slub_partial.c - SLUB's slab state machine across threads (a thread is a
 * CPU): a remote free into a full slab freezes it onto the freeing CPU's
 * partial chain; a remote free into another CPU's cpu slab lands on the
 * slab's own freelist, which the owner takes back; a chain longer than
 * cpu_partial_slabs drains to the node; a thread's exit gives everything
 * it holds back to the node (cpu slab and chain unfrozen); the node keeps
 * at most min_partial empty slabs, and kmem_cache_shrink gives the rest
 * back to the page allocator.
 */
#include "common/test.h"

#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include "mm/slab.h"

#if CONFIG_SLUB

/* The 5.17 state machine: without the sheaf (slub.c §10, tests/unit/slub_sheaf.c),
 * which would keep the frees these tests follow from reaching their slabs. */
static struct kmem_cache *test_cache(void)
{
	struct kmem_cache *s;

	ck_assert_int_eq(parse_option_string("slub_sheaf=0"), 0);
	s = kmem_cache_create("partial-test", 256, 0, SLAB_NOLEAKTRACE, NULL);

	ck_assert_ptr_nonnull(s);
	return s;
}

static unsigned int per_slab(const struct kmem_cache *s)
{
	return s->oo.x & 0xffff;
}

static unsigned long nr_partial(const struct kmem_cache *s)
{
	return READ_ONCE(s->node[0]->nr_partial);
}

static bool frozen(const void *x)
{
	return virt_to_slab(x)->frozen;
}

static void slabinfo_of(struct kmem_cache *s, struct slabinfo *si)
{
	memset(si, 0, sizeof(*si));
	get_slabinfo(s, si);
}

/* A helper thread that runs a list of steps, one per post of go. */
struct helper {
	pthread_t tid;
	sem_t go, done;
	void (*step[4])(struct helper *h);
	unsigned int nsteps;
	void **objs;		/* shared with the test */
	size_t from, to;	/* a range of objs the steps work on */
	struct kmem_cache *s;
};

static void *helper_main(void *arg)
{
	struct helper *h = arg;
	unsigned int i;

	for (i = 0; i < h->nsteps; i++) {
		sem_wait(&h->go);
		h->step[i](h);
		sem_post(&h->done);
	}
	sem_wait(&h->go);	/* exit when told */
	return NULL;
}

static void helper_start(struct helper *h)
{
	sem_init(&h->go, 0, 0);
	sem_init(&h->done, 0, 0);
	ck_assert_int_eq(pthread_create(&h->tid, NULL, helper_main, h), 0);
}

static void helper_run(struct helper *h)
{
	sem_post(&h->go);
	sem_wait(&h->done);
}

static void helper_exit(struct helper *h)
{
	sem_post(&h->go);
	ck_assert_int_eq(pthread_join(h->tid, NULL), 0);
}

/* Free objs[from], objs[from + per], ... < to: one object per slab. */
static void free_one_per_slab(struct helper *h)
{
	size_t i;

	for (i = h->from; i < h->to; i += per_slab(h->s))
		kmem_cache_free(h->s, h->objs[i]);
}

START_TEST(test_remote_free_transitions)
{
	struct kmem_cache *s = test_cache();
	unsigned int n = per_slab(s), i;
	void **objs = calloc(3 * n, sizeof(*objs));
	struct helper h = { .step = { free_one_per_slab }, .nsteps = 1, .objs = objs, .s = s };

	for (i = 0; i < 3 * n; i++)	/* slabs 1 and 2 fill up; slab 3 is the cpu slab */
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
	ck_assert(!frozen(objs[0]) && !frozen(objs[n]) && frozen(objs[2 * n]));
	ck_assert_uint_eq(nr_partial(s), 0);

	h.from = 0;			/* a full slab, and our cpu slab */
	h.to = 3 * n;
	h.step[0] = free_one_per_slab;
	helper_start(&h);
	helper_run(&h);
	ck_assert_msg(frozen(objs[0]), "a remote free froze the full slab onto B's chain");
	ck_assert_uint_eq(virt_to_slab(objs[0])->inuse, n - 1);
	ck_assert(frozen(objs[2 * n]));
	ck_assert_ptr_nonnull(READ_ONCE(virt_to_slab(objs[2 * n])->freelist));
	ck_assert_uint_eq(nr_partial(s), 0);

	helper_exit(&h);		/* B's chain goes to the node */
	ck_assert(!frozen(objs[0]) && !frozen(objs[n]));
	ck_assert_uint_eq(nr_partial(s), 2);

	/* our cpu slab: the object B freed comes back first */
	ck_assert_ptr_eq(kmem_cache_alloc(s, GFP_KERNEL), objs[2 * n]);
	ck_assert(frozen(objs[2 * n]));
	/* then the cpu slab is full: a node partial slab becomes the cpu slab */
	void *x = kmem_cache_alloc(s, GFP_KERNEL);
	ck_assert(x == objs[0] || x == objs[n]);
	ck_assert(frozen(x));
	ck_assert(!frozen(objs[2 * n]));	/* left as a full slab */
	ck_assert_uint_eq(nr_partial(s), 0);	/* the other went to our chain */
	for (i = 0; i < 3 * n; i++)		/* B freed objs[0] and objs[n] */
		if (i != 0 && i != n)
			kmem_cache_free(s, objs[i]);
	kmem_cache_free(s, x);
	free(objs);
	kmem_cache_destroy(s);
}
END_TEST

START_TEST(test_cpu_partial_chain_drains)
{
	struct kmem_cache *s = test_cache();
	unsigned int n = per_slab(s), p = s->cpu_partial_slabs, nslabs = p + 3, i;
	void **objs = calloc((size_t)nslabs * n, sizeof(*objs));
	struct helper h = { .step = { free_one_per_slab }, .nsteps = 1, .objs = objs, .s = s };

	ck_assert_uint_gt(p, 0);
	for (i = 0; i < nslabs * n; i++)
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
	/* B frees one object of each of the p + 2 full slabs */
	h.from = 0;
	h.to = (size_t)(p + 2) * n;
	helper_start(&h);
	helper_run(&h);
	/* the (p+1)th froze onto a chain of p slabs: those p drained to the node */
	ck_assert_uint_eq(nr_partial(s), p);
	helper_exit(&h);
	ck_assert_uint_eq(nr_partial(s), p + 2);
	for (i = 0; i < nslabs * n; i++)	/* B freed the first of each of p + 2 slabs */
		if (i % n || i >= (p + 2) * n)
			kmem_cache_free(s, objs[i]);
	free(objs);
	kmem_cache_destroy(s);
}
END_TEST

static void alloc_ten_free_five(struct helper *h)
{
	unsigned int i;

	for (i = 0; i < 10; i++)
		h->objs[i] = kmem_cache_alloc(h->s, GFP_KERNEL);
	for (i = 5; i < 10; i++)
		kmem_cache_free(h->s, h->objs[i]);
}

START_TEST(test_thread_exit_flushes)
{
	struct kmem_cache *s = test_cache();
	void *objs[10];
	struct helper h = { .step = { alloc_ten_free_five }, .nsteps = 1, .objs = objs, .s = s };
	struct slabinfo si;
	unsigned int i;

	helper_start(&h);
	helper_run(&h);
	slabinfo_of(s, &si);
	ck_assert_uint_eq(si.num_slabs, 1);
	/* a cpu slab counts as in use: every object it has (a new one
	 * ramps, slub.c §slab_objects_ramp: maybe fewer than its order's) */
	ck_assert_uint_eq(si.active_objs, virt_to_slab(objs[0])->objects);
	ck_assert_uint_le(virt_to_slab(objs[0])->objects, per_slab(s));
	ck_assert(frozen(objs[0]));
	helper_exit(&h);
	slabinfo_of(s, &si);
	ck_assert_uint_eq(si.active_objs, 5);		/* only the live objects */
	ck_assert(!frozen(objs[0]));
	ck_assert_uint_eq(nr_partial(s), 1);
	for (i = 0; i < 5; i++)
		kmem_cache_free(s, objs[i]);		/* no CPU owns it: remote frees */
	slabinfo_of(s, &si);
	ck_assert_uint_eq(si.active_objs, 0);
	ck_assert_uint_eq(si.num_slabs, 1);		/* kept: fewer than min_partial */
	ck_assert_int_eq(kmem_cache_shrink(s), 0);
	slabinfo_of(s, &si);
	ck_assert_uint_eq(si.num_slabs, 0);
	kmem_cache_destroy(s);
}
END_TEST

#define MANY_SLABS	20

static void alloc_and_free_many(struct helper *h)
{
	size_t i, n = (size_t)MANY_SLABS * per_slab(h->s);

	for (i = 0; i < n; i++)
		h->objs[i] = kmem_cache_alloc(h->s, GFP_KERNEL);
	for (i = 0; i < n; i++)
		kmem_cache_free(h->s, h->objs[i]);
}

START_TEST(test_min_partial_then_shrink)
{
	struct kmem_cache *s = test_cache();
	void **objs = calloc((size_t)MANY_SLABS * per_slab(s), sizeof(*objs));
	struct helper h = { .step = { alloc_and_free_many }, .nsteps = 1, .objs = objs, .s = s };
	struct slabinfo si;
	unsigned long before, kept;

	helper_start(&h);
	helper_run(&h);
	helper_exit(&h);
	slabinfo_of(s, &si);
	kept = si.num_slabs;
	ck_assert_uint_eq(si.active_objs, 0);
	ck_assert_msg(kept >= 1 && kept <= s->min_partial,
		      "%lu empty slabs kept, min_partial %lu", kept, s->min_partial);
	ck_assert_uint_eq(nr_partial(s), kept);
	before = nr_free_pages();
	ck_assert_int_eq(kmem_cache_shrink(s), 0);
	slabinfo_of(s, &si);
	ck_assert_uint_eq(si.num_slabs, 0);
	ck_assert_uint_ge(nr_free_pages(), before + (kept << (s->oo.x >> 16)));
	free(objs);
	kmem_cache_destroy(s);
}
END_TEST

static void alloc_one_keep_slab(struct helper *h)
{
	h->objs[0] = kmem_cache_alloc(h->s, GFP_KERNEL);
	kmem_cache_free(h->s, h->objs[0]);
}

START_TEST(test_shrink_leaves_live_threads_cpu_slab)
{
	struct kmem_cache *s = test_cache();
	void *objs[1];
	struct helper h = { .step = { alloc_one_keep_slab }, .nsteps = 1, .objs = objs, .s = s };

	helper_start(&h);
	helper_run(&h);
	/* the helper's cpu slab is its own until it exits or needs a new one */
	ck_assert_int_eq(kmem_cache_shrink(s), 1);
	helper_exit(&h);
	ck_assert_int_eq(kmem_cache_shrink(s), 0);
	kmem_cache_destroy(s);
}
END_TEST

START_TEST(test_alloc_node)
{
	struct kmem_cache *s = test_cache();
	void *a = kmem_cache_alloc_node(s, GFP_KERNEL, 0);
	void *b = kmem_cache_alloc_node(s, GFP_KERNEL, NUMA_NO_NODE);
	void *c = kmem_cache_alloc_node(s, GFP_KERNEL, 2);	/* no memory: any node */

	ck_assert(a && b && c && a != b && b != c && a != c);
	ck_assert_int_eq(slab_nid(virt_to_slab(c)), 0);
	kmem_cache_free(s, a);
	kmem_cache_free(s, b);
	kmem_cache_free(s, c);
	kmem_cache_destroy(s);
}
END_TEST

static Suite *slub_partial_suite(void)
{
	Suite *s = suite_create("slub_partial");
	TCase *tc = tcase_create("states");

	tcase_add_test(tc, test_remote_free_transitions);
	tcase_add_test(tc, test_cpu_partial_chain_drains);
	tcase_add_test(tc, test_thread_exit_flushes);
	tcase_add_test(tc, test_min_partial_then_shrink);
	tcase_add_test(tc, test_shrink_leaves_live_threads_cpu_slab);
	tcase_add_test(tc, test_alloc_node);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(slub_partial_suite)

#else

int main(void)
{
	uslab_test_skip("SLUB's cpu/node partial slab transitions across threads");
}

#endif
