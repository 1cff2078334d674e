// SPDX-License-Identifier: MIT
/*
 * cpu_threads.c - many short-lived threads attaching to CPU ids while
 * another thread allocates and frees per-CPU space (src/mm/cpu.c).
 *
 * Checks, under load:
 *   - no two live threads ever hold the same id: each worker stamps its
 *     thread id into its CPU's copy of an "owner" variable, keeps checking
 *     it while it works, and its teardown step finds it still there;
 *   - every attached thread is torn down exactly once, on itself;
 *   - with at most WINDOW workers alive at a time, nr_cpu_ids never
 *     exceeds WINDOW, however many threads came and went;
 *   - per-CPU areas handed out while threads attach are zero in every unit.
 * Bounded by counts (NR_WORKERS threads, NR_CHURN allocations).
 */
#include "common/test.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>

#include "mm/cpu.h"
#include "os/os.h"

enum {
	NR_WORKERS = 1500,	/* threads started in all */
	WINDOW = 6,		/* at most this many alive at once */
	NR_CHURN = 3000,	/* per-CPU allocations by the churn thread */
	WORK_ROUNDS = 50,	/* owner checks per worker */
};

static int __percpu *owner;		/* tid of the thread holding each CPU */
static unsigned long __percpu *uses;	/* threads that held each CPU */
static unsigned int nr_attached;	/* workers that got an id (atomic) */
static unsigned int nr_torn_down;	/* teardowns run (atomic) */
static unsigned int nr_bad;		/* violations seen by workers/teardown (atomic) */
static bool churn_stop;			/* tells the churn thread to end (atomic) */

static void bad(void)
{
	__atomic_add_fetch(&nr_bad, 1, __ATOMIC_RELAXED);
}

/* CPUHP_SLAB_DEAD step: runs on the exiting thread, which must own cpu. */
static void owner_teardown(unsigned int cpu)
{
	int *o = per_cpu_ptr(owner, cpu);

	if (*o != os_gettid() || this_cpu_id != (int)cpu)
		bad();
	*o = 0;		/* leave the id's storage empty for the next owner */
	__atomic_add_fetch(&nr_torn_down, 1, __ATOMIC_RELAXED);
}

static void *worker(void *arg)
{
	int tid = os_gettid(), id = cpu_attach(), i;
	int *o;

	(void)arg;
	if (id < 0) {
		bad();
		return NULL;
	}
	__atomic_add_fetch(&nr_attached, 1, __ATOMIC_RELAXED);
	o = this_cpu_ptr_or_null(owner);
	if (*o != 0)	/* the previous owner's teardown must have emptied it */
		bad();
	*o = tid;
	(*this_cpu_ptr_or_null(uses))++;
	for (i = 0; i < WORK_ROUNDS; i++) {
		if (*o != tid)
			bad();
		sched_yield();
	}
	return NULL;
}

/* Allocate and free per-CPU space while ids come and go. */
static void *churn(void *arg)
{
	unsigned char __percpu *held[8] = { NULL };
	unsigned int i, cpu, nr, slot;
	unsigned char *c;
	size_t size;

	(void)arg;
	for (i = 0; i < NR_CHURN && !__atomic_load_n(&churn_stop, __ATOMIC_RELAXED); i++) {
		slot = i % 8;
		free_percpu(held[slot]);
		size = 16 + (i * 37) % 2000;
		held[slot] = __alloc_percpu(size, 16);
		if (!held[slot]) {
			bad();
			continue;
		}
		nr = smp_load_acquire(&nr_cpu_ids);
		for (cpu = 0; cpu < nr; cpu++) {
			c = per_cpu_ptr(held[slot], cpu);
			if (c[0] || c[size - 1])
				bad();
		}
	}
	for (slot = 0; slot < 8; slot++)
		free_percpu(held[slot]);
	return NULL;
}

START_TEST(test_many_short_lived_threads)
{
	static pthread_t t[NR_WORKERS];
	unsigned long total = 0;
	pthread_t churner;
	unsigned int cpu;
	int i;

	owner = alloc_percpu(int);
	uses = alloc_percpu(unsigned long);
	ck_assert_ptr_nonnull(owner);
	ck_assert_ptr_nonnull(uses);
	/* why: the library may hold the step already (SLUB registers it at
	 * load time); this process has no cache, so its step has nothing to do. */
	cpuhp_remove_state_nocalls(CPUHP_SLAB_DEAD);
	cpuhp_setup_state(CPUHP_SLAB_DEAD, owner_teardown);
	ck_assert_int_eq(pthread_create(&churner, NULL, churn, NULL), 0);
	for (i = 0; i < NR_WORKERS; i++) {
		if (i >= WINDOW)
			ck_assert_int_eq(pthread_join(t[i - WINDOW], NULL), 0);
		ck_assert_int_eq(pthread_create(&t[i], NULL, worker, NULL), 0);
	}
	for (i = NR_WORKERS - WINDOW; i < NR_WORKERS; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	__atomic_store_n(&churn_stop, true, __ATOMIC_RELAXED);
	ck_assert_int_eq(pthread_join(churner, NULL), 0);

	ck_assert_uint_eq(nr_bad, 0);
	ck_assert_uint_eq(nr_attached, NR_WORKERS);
	ck_assert_uint_eq(nr_torn_down, NR_WORKERS);
	ck_assert_uint_le(nr_cpu_ids, WINDOW);
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		ck_assert_int_eq(*per_cpu_ptr(owner, cpu), 0);
		total += *per_cpu_ptr(uses, cpu);
	}
	ck_assert_uint_eq(total, NR_WORKERS);
}
END_TEST

static Suite *cpu_threads_suite(void)
{
	Suite *s = suite_create("cpu_threads");
	TCase *tc = tcase_create("stress");

	tcase_add_test(tc, test_many_short_lived_threads);
	suite_add_tcase(s, tc);
	return s;
}
USLAB_TEST_MAIN(cpu_threads_suite)
