/* SPDX-License-Identifier: MIT */
/* uslab-test: threaded */
/*
 * memcg_threads.c - charges and uncharges of memory cgroups balance to
 * zero across threads.  Workers, each with its own active group (one of
 * them limited, so refusals happen under load), allocate accounted
 * objects every way there is (kmalloc with GFP_KERNEL_ACCOUNT, a
 * SLAB_ACCOUNT cache one at a time and in bulk, __GFP_ACCOUNT on a plain
 * cache), stamp them, and mail them to random threads, which check and
 * free them: most frees uncharge a group the freeing thread does not have
 * active.  Threads come and go in rounds (their stocks drain at exit).
 * Meanwhile the main thread destroys a group whose objects the workers
 * still hold, so those are reparented to the root under load.  At the end
 * every group, and the root, is back to exactly zero: usage, live
 * objects and the page counters.
 *
 * Under SLOB nothing is charged (as in Linux): the same run checks that
 * usage stays 0 and the group API is thread safe.
 */
#include "common/test.h"
#include "stress/slab_stamp.h"

#include <stdlib.h>
#include <uslab/slab.h>
#include <uslab/memcontrol.h>

#define THREADS		4
#define ROUNDS		3
#define ITERATIONS	(STAMP_SANITIZED ? 300 : 2000)
#define BATCH		16
#define MAILBOX_LEN	(THREADS * BATCH * 4)
#define DOOMED_OBJS	512	/* objects of the group destroyed under load */
#define LIMIT		(256 * 1024)	/* of group 0 */

enum kind { K_KMALLOC, K_ACCOUNT_CACHE, K_PLAIN_CACHE, NR_KINDS };

struct item {
	void *p;			/* the object */
	size_t size;			/* bytes asked for */
	enum kind kind;			/* how it was allocated */
	struct mem_cgroup *charged;	/* group it must report (NULL: none) */
	uint64_t serial;		/* unique per allocation */
};

struct mailbox {
	pthread_mutex_t lock;
	struct item items[MAILBOX_LEN];	/* lock */
	unsigned int count;		/* lock */
};

static struct mailbox mailboxes[THREADS];
static struct mem_cgroup *groups[THREADS];	/* worker i's active group */
static struct mem_cgroup *doomed;		/* destroyed while its objects live */
static struct kmem_cache *account_cache, *plain_cache;
static pthread_barrier_t round_done;
static uint64_t next_serial;	/* atomic */
static uint64_t freed;		/* atomic */
static uint64_t refused;	/* atomic: allocations group 0's limit refused */
static int charges;		/* this allocator charges (not SLOB) */

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

static void *alloc_one(enum kind kind, size_t size)
{
	switch (kind) {
	case K_KMALLOC:
		return kmalloc(size, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	case K_ACCOUNT_CACHE:
		return kmem_cache_alloc(account_cache, GFP_KERNEL | __GFP_NOWARN);
	default:
		return kmem_cache_alloc(plain_cache, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	}
}

static void free_one(const struct item *it)
{
	if (it->kind == K_KMALLOC)
		kfree(it->p);
	else
		kmem_cache_free(it->kind == K_ACCOUNT_CACHE ? account_cache : plain_cache, it->p);
}

/* A fresh object, stamped; false if the limit refused it (counted). */
static bool allocate_item(struct item *it, struct mem_cgroup *active, uint64_t *rnd, void *bulk)
{
	it->kind = bulk ? K_ACCOUNT_CACHE : (enum kind)(stamp_rand(rnd) % NR_KINDS);
	it->size = it->kind == K_KMALLOC ? 8 + (size_t)(stamp_rand(rnd) % 2000) : 96;
	it->p = bulk ? bulk : alloc_one(it->kind, it->size);
	if (!it->p) {
		if (active != groups[0] || !charges)
			stamp_fail("allocation of %zu bytes refused without a limit", it->size);
		__atomic_add_fetch(&refused, 1, __ATOMIC_RELAXED);
		return false;
	}
	it->charged = charges ? active : NULL;
	it->serial = __atomic_add_fetch(&next_serial, 1, __ATOMIC_RELAXED);
	stamp_object(it->p, it->size, it->serial);
	if (mem_cgroup_from_obj(it->p) != it->charged)
		stamp_fail("object %p: charged to %p, not %p", it->p,
			   (void *)mem_cgroup_from_obj(it->p), (void *)it->charged);
	return true;
}

static void free_item(const struct item *it)
{
	struct mem_cgroup *now = mem_cgroup_from_obj(it->p);

	/* the doomed group's objects belong to the root once it is gone */
	if (now != it->charged && !(it->charged == doomed && now == root_mem_cgroup))
		stamp_fail("object %p: charged to %p at free, not %p", it->p, (void *)now,
			   (void *)it->charged);
	if (!check_and_release(it->p, it->size, it->serial))
		return;		/* leave a damaged object alone */
	__atomic_add_fetch(&freed, 1, __ATOMIC_RELAXED);
	free_one(it);
}

/* n new objects: from one bulk allocation a quarter of the time. */
static unsigned int allocate_batch(struct item *it, unsigned int n, struct mem_cgroup *active,
				   uint64_t *rnd)
{
	void *p[BATCH];
	bool bulk = stamp_rand(rnd) % 4 == 0;
	unsigned int i, got = 0;

	if (bulk && kmem_cache_alloc_bulk(account_cache, GFP_KERNEL | __GFP_NOWARN, n, p) != (int)n) {
		if (active != groups[0] || !charges)
			stamp_fail("bulk allocation of %u refused without a limit", n);
		__atomic_add_fetch(&refused, 1, __ATOMIC_RELAXED);
		return 0;
	}
	for (i = 0; i < n; i++)
		got += allocate_item(&it[got], active, rnd, bulk ? p[i] : NULL);
	return got;
}

static void drain_mailbox(unsigned int self)
{
	struct item in[BATCH * 4];
	unsigned int i, n;

	while ((n = collect(self, in, BATCH * 4)))
		for (i = 0; i < n; i++)
			free_item(&in[i]);
}

static void *worker(void *arg)
{
	unsigned int self = (unsigned int)(uintptr_t)arg, i, j, n;
	uint64_t rnd = 0x9e3779b97f4a7c15ULL * (self + 1) + (uint64_t)(uintptr_t)&rnd;
	struct item out[BATCH], in[BATCH * 4];

	set_active_memcg(groups[self]);
	for (i = 0; i < ITERATIONS; i++) {
		n = allocate_batch(out, 1 + (unsigned int)(stamp_rand(&rnd) % BATCH),
				   groups[self], &rnd);
		for (j = 0; j < n; j++)
			if (!mail((unsigned int)(stamp_rand(&rnd) % THREADS), out[j]))
				free_item(&out[j]);
		n = collect(self, in, BATCH * 4);
		for (j = 0; j < n; j++)
			free_item(&in[j]);
	}
	pthread_barrier_wait(&round_done);	/* nobody mails any more */
	drain_mailbox(self);
	return NULL;	/* exits with its group active: the exit drops it */
}

/* The main thread fills the mailboxes with objects of the doomed group. */
static void seed_doomed_objects(void)
{
	uint64_t rnd = 0x243f6a8885a308d3ULL;
	struct item it;
	unsigned int i;

	set_active_memcg(doomed);
	for (i = 0; i < DOOMED_OBJS; i++) {
		if (!allocate_item(&it, doomed, &rnd, NULL))
			continue;
		if (!mail(i % THREADS, it))
			free_item(&it);
	}
	set_active_memcg(NULL);
}

static void check_zero(struct mem_cgroup *g, const char *name)
{
	struct uslab_mem_cgroup_stats st;

	ck_assert_int_eq(mem_cgroup_stats(g, &st), 0);
	ck_assert_msg(st.usage == 0 && st.objects == 0 && st.charged == 0,
		      "%s: usage %lu, objects %lu, charged %lu after everything was freed",
		      name, st.usage, st.objects, st.charged);
}

static void run_round(unsigned int round)
{
	pthread_t t[THREADS];
	uintptr_t i;

	pthread_barrier_init(&round_done, NULL, THREADS);
	if (round == 1) {
		doomed = mem_cgroup_create("mt_doomed", MEM_CGROUP_NO_LIMIT);
		ck_assert_ptr_nonnull(doomed);
		seed_doomed_objects();
	}
	for (i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, worker, (void *)i), 0);
	if (round == 1)	/* while the workers hold (and free) its objects */
		ck_assert_int_eq(mem_cgroup_destroy(doomed), 0);
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&round_done);
}

START_TEST(test_charges_balance_across_threads)
{
	char name[32];
	unsigned int i, r;

	charges = strcmp(uslab_allocator_name(), "slob") != 0;
	account_cache = kmem_cache_create("mt_account", 96, 0, SLAB_ACCOUNT, NULL);
	plain_cache = kmem_cache_create("mt_plain", 96, 0, SLAB_NOLEAKTRACE, NULL);
	ck_assert_ptr_nonnull(account_cache);
	ck_assert_ptr_nonnull(plain_cache);
	for (i = 0; i < THREADS; i++) {
		snprintf(name, sizeof(name), "mt_group%u", i);
		/* group 0 limited: refusals under load; workers 2 and 3 share group 2 */
		groups[i] = i == 3 ? groups[2] : mem_cgroup_create(name, i ? MEM_CGROUP_NO_LIMIT : LIMIT);
		ck_assert_ptr_nonnull(groups[i]);
		pthread_mutex_init(&mailboxes[i].lock, NULL);
	}
	for (r = 0; r < ROUNDS; r++)
		run_round(r);
	ck_assert_msg(stamp_failures == 0, "%lu failures; first: %s", stamp_failures,
		      stamp_first_failure);
	ck_assert_uint_eq(freed, next_serial);
	mem_cgroup_drain_stocks();	/* the main thread's, from the doomed objects */
	for (i = 0; i < 3; i++)
		check_zero(groups[i], mem_cgroup_name(groups[i]));
	check_zero(root_mem_cgroup, "root");
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(mem_cgroup_destroy(groups[i]), 0);	/* no thread has them */
	ck_assert_msg(kmem_cache_shrink(account_cache) == 0, "account cache holds slabs");
	kmem_cache_destroy(plain_cache);
	kmem_cache_destroy(account_cache);
	printf("%llu objects, %llu refused by the limit\n", (unsigned long long)next_serial,
	       (unsigned long long)refused);
}
END_TEST

static Suite *memcg_threads_suite(void)
{
	Suite *s = suite_create("memcg_threads");
	TCase *tc = tcase_create("mailboxes");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_charges_balance_across_threads);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(memcg_threads_suite)
