/* SPDX-License-Identifier: MIT */
/* uslab-test: threaded */
/*
 * slab_nocpu.c - SLAB for threads that cannot get a CPU id (all NR_CPUS
 * ids held by live threads): with no array cache of their own they take
 * and return one object at a time through the node lists under list_lock
 * (the globalstat node_allocs/node_frees counters), while threads with CPUs
 * keep their arrays, and objects pass freely between the two kinds.
 */
#include "common/test.h"
#include "common/cpu_hold.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include "mm/slab.h"

#if CONFIG_SLAB

static struct kmem_cache *cache;

static void node_counts(unsigned long *allocs, unsigned long *frees, unsigned long *grown)
{
	struct kmem_cache_node *n = cache->node[0];

	spin_lock(&n->list_lock);
	*allocs = cache->stats.node_allocs;
	*frees = cache->stats.node_frees;
	*grown = cache->stats.grown;
	spin_unlock(&n->list_lock);
}

static unsigned long active_objs(void)
{
	struct slabinfo si;

	memset(&si, 0, sizeof(si));
	get_slabinfo(cache, &si);
	return si.active_objs;
}

struct nocpu_work {
	void **objs;		/* allocated by the no-CPU thread, freed by main */
	unsigned int n;
	bool ok;
};

/* Without a CPU: every object through the node lists, nothing cached. */
static void *nocpu_thread(void *arg)
{
	struct nocpu_work *w = arg;
	unsigned long a0, f0, g0, a1, f1, g1, before = active_objs();
	unsigned int i;
	void *k;

	w->ok = false;
	if (raw_smp_processor_id() >= 0)
		return NULL;
	node_counts(&a0, &f0, &g0);
	for (i = 0; i < w->n; i++) {
		w->objs[i] = kmem_cache_alloc(cache, GFP_KERNEL);
		if (!w->objs[i])
			return NULL;
		memset(w->objs[i], 0x6e, 64);
	}
	/* exactly what was handed out is in use: no array took a batch */
	if (active_objs() != before + w->n)
		return NULL;
	for (i = 0; i < w->n / 2; i++)
		kmem_cache_free(cache, w->objs[i]);
	node_counts(&a1, &f1, &g1);
	/* the first object of each new slab is counted as grown, as in 5.17 */
	if (a1 - a0 + g1 - g0 != w->n || f1 - f0 != w->n / 2 ||
	    active_objs() != before + w->n - w->n / 2)
		return NULL;
	k = __kmalloc(300, GFP_KERNEL);		/* kmalloc works too */
	kfree(k);
	w->ok = k != NULL;
	return NULL;
}

START_TEST(a_thread_without_a_cpu_uses_the_node_lists)
{
	static pthread_t holders[NR_CPUS + 1];
	struct nocpu_work w;
	unsigned int nr, i;
	pthread_t t;
	void *mine;

	cache = kmem_cache_create("nocpu-64", 64, 0, SLAB_NOLEAKTRACE, NULL);
	ck_assert_ptr_nonnull(cache);
	mine = kmem_cache_alloc(cache, GFP_KERNEL);	/* this thread has a CPU */
	ck_assert_int_ge(raw_smp_processor_id(), 0);
	w.n = 3 * cache->num;
	w.objs = calloc(w.n, sizeof(void *));
	ck_assert_ptr_nonnull(w.objs);
	nr = cpu_hold_all(holders, NR_CPUS + 1);
	ck_assert_int_eq(pthread_create(&t, NULL, nocpu_thread, &w), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	cpu_release_all(holders, nr);
	ck_assert_msg(w.ok, "the thread without a CPU saw the wrong counts");
	/* a thread with a CPU frees the rest: into its array, as usual */
	for (i = w.n / 2; i < w.n; i++)
		kmem_cache_free(cache, w.objs[i]);
	kmem_cache_free(cache, mine);
	free(w.objs);
	ck_assert_int_eq(kmem_cache_shrink(cache), 0);
	ck_assert_uint_eq(active_objs(), 0);
	kmem_cache_destroy(cache);
}
END_TEST

static Suite *slab_nocpu_suite(void)
{
	Suite *s = suite_create("slab_nocpu");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, a_thread_without_a_cpu_uses_the_node_lists);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	/* no reap in the middle of the test: it counts objects exactly */
	if (parse_option_string("slab_reap_ms=3600000")) {
		fprintf(stderr, "option rejected\n");
		return 1;
	}
	return uslab_test_run(slab_nocpu_suite());
}

#else

int main(void)
{
	uslab_test_skip("SLAB's path for threads without a CPU id");
}

#endif
