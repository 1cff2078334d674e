/* SPDX-License-Identifier: MIT */
/* uslab-test: threaded */
/*
 * slab_cross_free.c - threads allocate objects (one at a time and in
 * bulk, from object caches and kmalloc), stamp each with a pattern derived
 * from its address, and mail them to random threads, which check and free
 * them (one at a time and in bulk).  Threads come and go in rounds, so CPU
 * ids are reused and what an exiting thread holds must be given back.
 * Allocator-neutral: only the public API.  At the end, with every object
 * freed and every worker gone, each cache can give all its slabs back.
 */
#include "common/test.h"
#include "stress/slab_stamp.h"

#include <stdlib.h>
#include <uslab/uslab.h>

#define THREADS		4
#define ROUNDS		3
#define ITERATIONS	(STAMP_SANITIZED ? 600 : 3000)
#define BATCH		24
#define MAILBOX_LEN	(THREADS * BATCH * 4)

static const unsigned int cache_sizes[] = { 16, 40, 128, 320, 1024, 4096 };
#define NR_CACHES (sizeof(cache_sizes) / sizeof(cache_sizes[0]))
static struct kmem_cache *caches[NR_CACHES];

struct item {
	void *p;		/* the object */
	size_t size;		/* bytes asked for */
	int cache;		/* index into caches, or -1 for kmalloc */
	uint64_t serial;	/* unique per allocation */
};

struct mailbox {
	pthread_mutex_t lock;
	struct item items[MAILBOX_LEN];	/* lock */
	unsigned int count;		/* lock */
};

static struct mailbox mailboxes[THREADS];
static pthread_barrier_t round_done;
static uint64_t next_serial;	/* atomic */
static uint64_t freed;		/* atomic */

/* Post an item; false if the mailbox is full (never wait: the owner may be
 * waiting for the sender at the end of the round). */
static bool mail(unsigned int to, struct item it)
{
	struct mailbox *m = &mailboxes[to];
	bool posted;

	pthread_mutex_lock(&m->lock);
	posted = m->count < MAILBOX_LEN;
	if (posted)
		m->items[m->count++] = it;
	pthread_mutex_unlock(&m->lock);
	return posted;
}

/* Take up to max items out of a mailbox. */
static unsigned int collect(unsigned int self, struct item *out, unsigned int max)
{
	struct mailbox *m = &mailboxes[self];
	unsigned int n;

	pthread_mutex_lock(&m->lock);
	n = m->count < max ? m->count : max;
	m->count -= n;
	memcpy(out, m->items + m->count, n * sizeof(*out));
	pthread_mutex_unlock(&m->lock);
	return n;
}

/* Fill it[0..n) with fresh objects: a bulk allocation or single ones. */
static void allocate_batch(struct item *it, unsigned int n, uint64_t *rnd)
{
	void *p[BATCH];
	unsigned int i, c = (unsigned int)(stamp_rand(rnd) % NR_CACHES);
	bool bulk = stamp_rand(rnd) % 4 == 0, kmalloc = stamp_rand(rnd) % 3 == 0;

	if (bulk && !kmalloc &&
	    uslab_kmem_cache_alloc_bulk(caches[c], USLAB_GFP_KERNEL, n, p) != (int)n)
		stamp_fail("bulk allocation of %u x %u bytes failed", n, cache_sizes[c]);
	for (i = 0; i < n; i++) {
		it[i].serial = __atomic_add_fetch(&next_serial, 1, __ATOMIC_RELAXED);
		it[i].cache = kmalloc ? -1 : (int)c;
		it[i].size = kmalloc ? 8 + (size_t)(stamp_rand(rnd) % 3000) : cache_sizes[c];
		if (kmalloc)
			it[i].p = uslab___kmalloc(it[i].size, USLAB_GFP_KERNEL);
		else
			it[i].p = bulk ? p[i] : uslab_kmem_cache_alloc(caches[c], USLAB_GFP_KERNEL);
		if (!it[i].p)
			stamp_fail("allocation of %zu bytes failed", it[i].size);
		else
			stamp_object(it[i].p, it[i].size, it[i].serial);
	}
}

/* Check and free n received objects: one by one, or one bulk free per cache
 * (kfree_bulk for the kmalloc objects). */
static void free_received(struct item *it, unsigned int n, uint64_t *rnd)
{
	void *p[NR_CACHES + 1][BATCH * 4];
	unsigned int i, c, np[NR_CACHES + 1] = { 0 };
	bool bulk = stamp_rand(rnd) % 2;

	for (i = 0; i < n; i++) {
		if (!check_and_release(it[i].p, it[i].size, it[i].serial))
			continue;	/* leave a damaged object alone */
		__atomic_add_fetch(&freed, 1, __ATOMIC_RELAXED);
		c = it[i].cache < 0 ? NR_CACHES : (unsigned int)it[i].cache;
		if (bulk)
			p[c][np[c]++] = it[i].p;
		else if (c == NR_CACHES)
			uslab_kfree(it[i].p);
		else
			uslab_kmem_cache_free(caches[c], it[i].p);
	}
	for (c = 0; c < NR_CACHES; c++)
		if (np[c])
			uslab_kmem_cache_free_bulk(caches[c], np[c], p[c]);
	if (np[NR_CACHES])
		uslab_kfree_bulk(np[NR_CACHES], p[NR_CACHES]);
}

static void *worker(void *arg)
{
	unsigned int self = (unsigned int)(uintptr_t)arg, i, j, n;
	uint64_t rnd = 0x2545f4914f6cdd1dULL * (self + 1) + (uint64_t)(uintptr_t)&rnd;
	struct item out[BATCH], in[BATCH * 4];

	for (i = 0; i < ITERATIONS; i++) {
		n = 1 + (unsigned int)(stamp_rand(&rnd) % BATCH);
		allocate_batch(out, n, &rnd);
		for (j = 0; j < n; j++)
			if (!mail((unsigned int)(stamp_rand(&rnd) % THREADS), out[j]))
				free_received(&out[j], 1, &rnd);
		n = collect(self, in, BATCH * 4);
		free_received(in, n, &rnd);
	}
	pthread_barrier_wait(&round_done);	/* nobody mails any more */
	while ((n = collect(self, in, BATCH * 4)))
		free_received(in, n, &rnd);
	return NULL;
}

START_TEST(test_cross_free_rounds)
{
	pthread_t t[THREADS];
	uintptr_t i, r;

	for (i = 0; i < NR_CACHES; i++) {
		/* SLAB_NOLEAKTRACE: never merged, so the cache holds only our objects */
		caches[i] = uslab_kmem_cache_create("stress-xfree", cache_sizes[i], 0,
						    USLAB_SLAB_NOLEAKTRACE, NULL);
		ck_assert_ptr_nonnull(caches[i]);
	}
	for (i = 0; i < THREADS; i++)
		pthread_mutex_init(&mailboxes[i].lock, NULL);
	for (r = 0; r < ROUNDS; r++) {
		pthread_barrier_init(&round_done, NULL, THREADS);
		for (i = 0; i < THREADS; i++)
			ck_assert_int_eq(pthread_create(&t[i], NULL, worker, (void *)i), 0);
		for (i = 0; i < THREADS; i++)
			pthread_join(t[i], NULL);
		pthread_barrier_destroy(&round_done);
	}
	ck_assert_msg(stamp_failures == 0, "%lu failures; first: %s", stamp_failures,
		      stamp_first_failure);
	ck_assert_uint_eq(freed, next_serial);
	/* every worker exited: whatever they cached per CPU went back */
	for (i = 0; i < NR_CACHES; i++) {
		ck_assert_msg(uslab_kmem_cache_shrink(caches[i]) == 0,
			      "cache of %u bytes still holds slabs", cache_sizes[i]);
		uslab_kmem_cache_destroy(caches[i]);
	}
}
END_TEST

static Suite *cross_free_suite(void)
{
	Suite *s = suite_create("slab_cross_free");
	TCase *tc = tcase_create("mailboxes");

	tcase_add_test(tc, test_cross_free_rounds);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(cross_free_suite)
