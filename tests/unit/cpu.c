// SPDX-License-Identifier: MIT
/*
 * cpu.c - threads as CPUs (src/mm/cpu.c): CPU id allocation and reuse,
 * teardown steps on thread exit and on cpu_detach_self(), re-attachment
 * from a later TSD destructor, running out of ids, and the per-CPU offset
 * allocator (zeroing in every unit, alignment, reuse, exhaustion, misuse).
 *
 * Each test runs in its own process (Check forks), so it starts with no
 * CPU id attached and an empty per-CPU area; tests that rely on that say so.
 */
/* uslab-test: threaded */
#include "common/test.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "mm/cpu.h"
#include "mm/internal.h"
#include "os/os.h"

#define HOLDER_STACK	(128UL << 10)	/* holders only wait: small stacks */

/* ---- holders: threads that attach and stay until released ---- */

struct holder {
	pthread_t thread;	/* the holding thread */
	int id;			/* the CPU id it got (-1: none) */
	char *base;		/* its this_cpu_base after attaching */
	bool release;		/* set to let it exit (hold_lock) */
	sem_t attached;		/* posted once id is known */
};

static pthread_mutex_t hold_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hold_cond = PTHREAD_COND_INITIALIZER;

static void *holder_main(void *arg)
{
	struct holder *h = arg;

	h->id = cpu_attach();
	h->base = this_cpu_base;
	sem_post(&h->attached);
	pthread_mutex_lock(&hold_lock);
	while (!h->release)
		pthread_cond_wait(&hold_cond, &hold_lock);
	pthread_mutex_unlock(&hold_lock);
	return NULL;
}

static void holder_start(struct holder *h)
{
	pthread_attr_t attr;
	int err;

	h->release = false;
	ck_assert_int_eq(sem_init(&h->attached, 0, 0), 0);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, HOLDER_STACK);
	err = pthread_create(&h->thread, &attr, holder_main, h);
	pthread_attr_destroy(&attr);
	ck_assert_msg(err == 0, "pthread_create: %s", strerror(err));
	while (sem_wait(&h->attached) != 0)
		ck_assert_int_eq(errno, EINTR);
}

/* Let holders [0, n) exit and join them. */
static void holders_release(struct holder *h, int n)
{
	int i;

	pthread_mutex_lock(&hold_lock);
	for (i = 0; i < n; i++)
		h[i].release = true;
	pthread_cond_broadcast(&hold_cond);
	pthread_mutex_unlock(&hold_lock);
	for (i = 0; i < n; i++) {
		pthread_join(h[i].thread, NULL);
		sem_destroy(&h[i].attached);
	}
}

/* Run fn(arg) on a new thread and wait for it to finish (exit included). */
static void run_on_thread(void *(*fn)(void *), void *arg)
{
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, fn, arg), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
}

/* ---- a log of teardown calls ---- */

struct td_record {
	int state;		/* which step ran */
	unsigned int cpu;	/* the id it was given */
	int tid;		/* the thread it ran on */
	int attached;		/* this_cpu_id while it ran */
};

static struct td_record td_log[64];
static unsigned int td_count;	/* entries in td_log (atomic) */

static void td_add(int state, unsigned int cpu)
{
	unsigned int i = __atomic_fetch_add(&td_count, 1, __ATOMIC_RELAXED);

	ck_assert_uint_lt(i, ARRAY_SIZE(td_log));
	td_log[i] = (struct td_record){ state, cpu, os_gettid(), this_cpu_id };
}

static void td_malloc(unsigned int cpu) { td_add(CPUHP_MALLOC_DEAD, cpu); }
static void td_slab(unsigned int cpu) { td_add(CPUHP_SLAB_DEAD, cpu); }
static void td_memcg(unsigned int cpu) { td_add(CPUHP_MEMCG_DEAD, cpu); }
static void td_page_alloc(unsigned int cpu) { td_add(CPUHP_PAGE_ALLOC_DEAD, cpu); }

/*
 * Empty every step first: the library may have registered its own at load
 * time (SLUB's CPUHP_SLAB_DEAD is), and a step takes one callback.  This
 * process creates no cache and allocates no page, so the library's steps
 * would have nothing to do.
 */
static void td_take_over(void)
{
	int state;

	for (state = 0; state < CPUHP_NR_STATES; state++)
		cpuhp_remove_state_nocalls((enum cpuhp_state)state);
}

/* Registered in an order other than the enum's: the enum order must win. */
static void td_register(void)
{
	td_take_over();
	cpuhp_setup_state(CPUHP_PAGE_ALLOC_DEAD, td_page_alloc);
	cpuhp_setup_state(CPUHP_SLAB_DEAD, td_slab);
	cpuhp_setup_state(CPUHP_MEMCG_DEAD, td_memcg);
	cpuhp_setup_state(CPUHP_MALLOC_DEAD, td_malloc);
}

static unsigned int td_read_count(void)
{
	return __atomic_load_n(&td_count, __ATOMIC_RELAXED);
}

/* Entries [first, first + CPUHP_NR_STATES) are one full teardown of cpu on thread tid. */
static void td_assert_round(unsigned int first, unsigned int cpu, int tid)
{
	int state;

	for (state = 0; state < CPUHP_NR_STATES; state++) {
		const struct td_record *r = &td_log[first + (unsigned int)state];

		ck_assert_int_eq(r->state, state);
		ck_assert_uint_eq(r->cpu, cpu);
		ck_assert_int_eq(r->tid, tid);
		ck_assert_int_eq(r->attached, (int)cpu);	/* still attached while it runs */
	}
}

/* ---- CPU ids ---- */

START_TEST(test_attach_first_id)
{
	/* a fresh process: nothing attached yet */
	ck_assert_int_eq(this_cpu_id, -1);
	ck_assert_ptr_null(this_cpu_base);
	ck_assert_int_eq(cpu_attach(), 0);
	ck_assert_int_eq(this_cpu_id, 0);
	ck_assert_ptr_nonnull(this_cpu_base);
	ck_assert_ptr_eq(this_cpu_base, percpu_unit_base[0]);
	ck_assert_uint_eq(nr_cpu_ids, 1);
	ck_assert_int_eq(cpu_attach(), 0);
	ck_assert_int_eq(raw_smp_processor_id(), 0);
	ck_assert_uint_eq(nr_cpu_ids, 1);
}
END_TEST

START_TEST(test_lowest_free_id_reused)
{
	struct holder h[4];

	ck_assert_int_eq(cpu_attach(), 0);
	holder_start(&h[0]);
	holder_start(&h[1]);
	holder_start(&h[2]);
	ck_assert_int_eq(h[0].id, 1);
	ck_assert_int_eq(h[1].id, 2);
	ck_assert_int_eq(h[2].id, 3);
	holders_release(&h[1], 1);	/* id 2 is free again */
	holder_start(&h[3]);
	ck_assert_int_eq(h[3].id, 2);
	ck_assert_ptr_eq(h[3].base, h[1].base);	/* the unit is kept for the id */
	ck_assert_uint_eq(nr_cpu_ids, 4);	/* high-water mark, not grown */
	holders_release(&h[0], 1);
	holders_release(&h[2], 2);
	ck_assert_uint_eq(nr_cpu_ids, 4);
}
END_TEST

static void *attach_and_exit(void *arg)
{
	int *out = arg;

	out[0] = cpu_attach();
	out[1] = os_gettid();
	return NULL;
}

static void *exit_unattached(void *arg)
{
	(void)arg;
	return NULL;
}

START_TEST(test_teardown_on_thread_exit)
{
	int got[2];

	td_register();
	run_on_thread(exit_unattached, NULL);
	ck_assert_uint_eq(td_read_count(), 0);	/* never attached: nothing to tear down */
	run_on_thread(attach_and_exit, got);
	ck_assert_int_eq(got[0], 0);
	ck_assert_uint_eq(td_read_count(), CPUHP_NR_STATES);
	td_assert_round(0, 0, got[1]);
	/* the id was released: the next thread gets it back */
	run_on_thread(attach_and_exit, got);
	ck_assert_int_eq(got[0], 0);
	ck_assert_uint_eq(nr_cpu_ids, 1);
	ck_assert_uint_eq(td_read_count(), 2 * CPUHP_NR_STATES);
	td_assert_round(CPUHP_NR_STATES, 0, got[1]);
}
END_TEST

static void *detach_then_reattach(void *arg)
{
	int *out = arg;

	out[0] = cpu_attach();
	out[1] = os_gettid();
	cpu_detach_self();
	out[2] = (int)td_read_count();		/* teardown ran now, not at exit */
	out[3] = this_cpu_id;
	out[4] = this_cpu_base == NULL;
	cpu_detach_self();			/* detached: nothing more happens */
	out[5] = (int)td_read_count();
	out[6] = cpu_attach();			/* its own id is free again */
	return NULL;
}

START_TEST(test_detach_self)
{
	int got[7];

	td_register();
	cpu_detach_self();			/* not attached: no-op */
	ck_assert_uint_eq(td_read_count(), 0);
	run_on_thread(detach_then_reattach, got);
	ck_assert_int_eq(got[0], 0);
	ck_assert_int_eq(got[2], CPUHP_NR_STATES);
	ck_assert_int_eq(got[3], -1);
	ck_assert_int_eq(got[4], 1);
	ck_assert_int_eq(got[5], CPUHP_NR_STATES);
	ck_assert_int_eq(got[6], 0);
	/* the second attachment was torn down at exit */
	ck_assert_uint_eq(td_read_count(), 2 * CPUHP_NR_STATES);
	td_assert_round(0, 0, got[1]);
	td_assert_round(CPUHP_NR_STATES, 0, got[1]);
}
END_TEST

/*
 * A TSD destructor of a key created after the library's allocates (here:
 * attaches) once the library's destructor has torn the thread down.  The
 * re-attachment must arm the library's key again, so a second teardown runs.
 */
static pthread_key_t late_key;
static __thread int late_state;		/* 0: not yet, 1: re-armed, 2: re-attached */
static int late_reattach_id = -2;	/* id the destructor got (written on the exiting thread) */

static void late_destructor(void *value)
{
	(void)value;
	if (this_cpu_id < 0) {
		late_reattach_id = cpu_attach();
		late_state = 2;
	} else if (late_state == 0) {
		/* ran before the library's destructor: try again next round */
		late_state = 1;
		pthread_setspecific(late_key, (void *)1);
	}
}

static void *attach_with_late_key(void *arg)
{
	int *out = arg;

	out[0] = cpu_attach();
	out[1] = os_gettid();
	pthread_setspecific(late_key, (void *)1);
	return NULL;
}

START_TEST(test_reattach_from_later_destructor)
{
	int got[2], again[2];

	td_register();
	ck_assert_int_eq(pthread_key_create(&late_key, late_destructor), 0);
	run_on_thread(attach_with_late_key, got);
	ck_assert_int_eq(got[0], 0);
	ck_assert_int_eq(late_reattach_id, 0);
	ck_assert_uint_eq(td_read_count(), 2 * CPUHP_NR_STATES);
	td_assert_round(0, 0, got[1]);
	td_assert_round(CPUHP_NR_STATES, 0, got[1]);
	run_on_thread(attach_and_exit, again);	/* and the id was released again */
	ck_assert_int_eq(again[0], 0);
	ck_assert_uint_eq(nr_cpu_ids, 1);
}
END_TEST

START_TEST(test_no_id_left)
{
	static struct holder h[NR_CPUS];
	int i;

	for (i = 0; i < NR_CPUS; i++) {
		holder_start(&h[i]);
		ck_assert_int_eq(h[i].id, i);
	}
	ck_assert_uint_eq(nr_cpu_ids, NR_CPUS);
	ck_assert_int_eq(cpu_attach(), -1);
	ck_assert_int_eq(this_cpu_id, -1);
	ck_assert_ptr_null(this_cpu_base);
	ck_assert_int_eq(raw_smp_processor_id(), -1);
	ck_assert_ptr_null(this_cpu_ptr_or_null((int __percpu *)16));
	/* once an id is released, the failed thread gets it on its next try */
	holders_release(&h[700], 1);
	ck_assert_int_eq(cpu_attach(), 700);
	ck_assert_ptr_eq(this_cpu_base, percpu_unit_base[700]);
	holders_release(h, 700);
	holders_release(&h[701], NR_CPUS - 701);
	ck_assert_uint_eq(nr_cpu_ids, NR_CPUS);
}
END_TEST

/* Threads that live a moment, at most `window` of them at once. */
START_TEST(test_short_lived_threads_bounded)
{
	enum { NR_THREADS = 96, WINDOW = 3 };
	pthread_t t[NR_THREADS];
	int got[NR_THREADS][2];
	int i;

	for (i = 0; i < NR_THREADS; i++) {
		if (i >= WINDOW)
			pthread_join(t[i - WINDOW], NULL);
		ck_assert_int_eq(pthread_create(&t[i], NULL, attach_and_exit, got[i]), 0);
	}
	for (i = NR_THREADS - WINDOW; i < NR_THREADS; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < NR_THREADS; i++)
		ck_assert_int_lt(got[i][0], WINDOW);
	ck_assert_uint_le(nr_cpu_ids, WINDOW);
}
END_TEST

/* ---- teardown registration ---- */

START_TEST(test_cpuhp_same_callback_twice)
{
	int got[2];

	td_take_over();
	cpuhp_setup_state(CPUHP_SLAB_DEAD, td_slab);
	cpuhp_setup_state(CPUHP_SLAB_DEAD, td_slab);	/* idempotent */
	run_on_thread(attach_and_exit, got);
	ck_assert_uint_eq(td_read_count(), 1);		/* registered once, runs once */
	ck_assert_int_eq(td_log[0].state, CPUHP_SLAB_DEAD);
}
END_TEST

START_TEST(test_cpuhp_remove_state)
{
	int got[2];

	td_register();
	cpuhp_remove_state_nocalls(CPUHP_MEMCG_DEAD);
	run_on_thread(attach_and_exit, got);	/* the emptied step is skipped */
	ck_assert_uint_eq(td_read_count(), 3);
	ck_assert_int_eq(td_log[0].state, CPUHP_MALLOC_DEAD);
	ck_assert_int_eq(td_log[1].state, CPUHP_SLAB_DEAD);
	ck_assert_int_eq(td_log[2].state, CPUHP_PAGE_ALLOC_DEAD);
	cpuhp_remove_state_nocalls(CPUHP_SLAB_DEAD);
	cpuhp_setup_state(CPUHP_SLAB_DEAD, td_memcg);	/* free again: another callback fits */
	run_on_thread(attach_and_exit, got);
	ck_assert_uint_eq(td_read_count(), 6);
	ck_assert_int_eq(td_log[3].state, CPUHP_MALLOC_DEAD);
	ck_assert_int_eq(td_log[4].state, CPUHP_MEMCG_DEAD);	/* what td_memcg logs */
	ck_assert_int_eq(td_log[5].state, CPUHP_PAGE_ALLOC_DEAD);
	ck_assert_int_eq(td_log[5].tid, got[1]);
}
END_TEST

static void register_two_callbacks(void *arg)
{
	(void)arg;
	cpuhp_setup_state(CPUHP_MEMCG_DEAD, td_memcg);
	cpuhp_setup_state(CPUHP_MEMCG_DEAD, td_slab);
}

static void register_bad_state(void *arg)
{
	(void)arg;
	cpuhp_setup_state(CPUHP_NR_STATES, td_slab);
}

static void remove_bad_state(void *arg)
{
	(void)arg;
	cpuhp_remove_state_nocalls(CPUHP_NR_STATES);
}

START_TEST(test_cpuhp_misuse_aborts)
{
	char twice[96], bad_setup[64], bad_remove[64];

	snprintf(twice, sizeof(twice), "uslab: cpuhp_setup_state: state %d already has a teardown",
		 (int)CPUHP_MEMCG_DEAD);
	snprintf(bad_setup, sizeof(bad_setup), "uslab: cpuhp_setup_state: invalid state %d",
		 (int)CPUHP_NR_STATES);
	snprintf(bad_remove, sizeof(bad_remove),
		 "uslab: cpuhp_remove_state_nocalls: invalid state %d", (int)CPUHP_NR_STATES);
	ck_assert_aborts_with(register_two_callbacks, NULL, twice);
	ck_assert_aborts_with(register_bad_state, NULL, bad_setup);
	ck_assert_aborts_with(remove_bad_state, NULL, bad_remove);
}
END_TEST

/* ---- per-CPU offsets ---- */

struct copy_arg {
	unsigned long __percpu *var;	/* the variable */
	unsigned long seen;		/* this thread's copy when it looked */
};

/* Attach, remember what the own copy holds, then store 1000 + id in it. */
static void *write_own_copy(void *arg)
{
	struct copy_arg *a = arg;
	int id = cpu_attach();
	unsigned long *mine = this_cpu_ptr_or_null(a->var);

	ck_assert_ptr_nonnull(mine);
	ck_assert_ptr_eq(mine, per_cpu_ptr(a->var, id));
	a->seen = *mine;
	*mine = 1000UL + (unsigned long)id;
	return NULL;
}

START_TEST(test_percpu_distinct_per_cpu)
{
	struct copy_arg a = { alloc_percpu(unsigned long), 1 };
	unsigned int cpu, other;

	ck_assert_ptr_nonnull(a.var);
	ck_assert_uint_ge((unsigned long)a.var, 16);
	ck_assert_uint_eq((unsigned long)a.var % 16, 0);
	ck_assert_int_eq(cpu_attach(), 0);
	write_own_copy(&a);
	ck_assert_uint_eq(a.seen, 0);		/* zeroed at allocation */
	run_on_thread(write_own_copy, &a);	/* gets id 1, maps its unit */
	ck_assert_uint_eq(a.seen, 0);		/* a new unit is zero too */
	run_on_thread(write_own_copy, &a);	/* id 1 again */
	ck_assert_uint_eq(a.seen, 1001);	/* the id's storage is kept as it was */
	ck_assert_uint_eq(nr_cpu_ids, 2);
	ck_assert_uint_eq(*per_cpu_ptr(a.var, 0), 1000);
	ck_assert_uint_eq(*per_cpu_ptr(a.var, 1), 1001);
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		for (other = cpu + 1; other < nr_cpu_ids; other++)
			ck_assert_ptr_ne(per_cpu_ptr(a.var, cpu), per_cpu_ptr(a.var, other));
	free_percpu(a.var);
}
END_TEST

/* Index of the first non-zero byte of buf[0..size), or size. */
static size_t first_nonzero(const unsigned char *buf, size_t size)
{
	size_t i = 0;

	while (i < size && buf[i] == 0)
		i++;
	return i;
}

/* Every byte of [p, p + size) is zero in every unit. */
static void assert_zero_everywhere(void __percpu *p, size_t size)
{
	unsigned int cpu;
	size_t i;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		i = first_nonzero(per_cpu_ptr((unsigned char __percpu *)p, cpu), size);
		ck_assert_msg(i == size, "cpu %u: byte %zu of %p is not zero", cpu, i, p);
	}
}

START_TEST(test_percpu_zeroed_in_every_unit)
{
	struct holder h[3];
	unsigned int cpu;
	void __percpu *p, *q;

	ck_assert_int_eq(cpu_attach(), 0);
	holder_start(&h[0]);
	holder_start(&h[1]);
	p = __alloc_percpu(256, 16);
	ck_assert_ptr_nonnull(p);
	assert_zero_everywhere(p, 256);
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		memset(per_cpu_ptr((char __percpu *)p, cpu), 0xa5, 256);
	free_percpu(p);
	q = __alloc_percpu(200, 16);		/* first fit: the same place */
	ck_assert_ptr_eq(q, p);
	assert_zero_everywhere(q, 200);
	holder_start(&h[2]);			/* a new unit, mapped now */
	ck_assert_int_eq(h[2].id, 3);
	assert_zero_everywhere(q, 200);
	holders_release(h, 3);
	free_percpu(q);
}
END_TEST

START_TEST(test_percpu_alignment)
{
	void __percpu *a = __alloc_percpu(1, 1);
	void __percpu *b = __alloc_percpu(8, 64);
	void __percpu *c = __alloc_percpu(24, 4096);
	void __percpu *d = __alloc_percpu(17, 8);

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq((unsigned long)a % 16, 0);
	ck_assert_uint_eq((unsigned long)b % 64, 0);
	ck_assert_uint_eq((unsigned long)c % 4096, 0);
	ck_assert_uint_eq((unsigned long)d % 16, 0);
	/* a fresh process: first fit packs them in address order */
	ck_assert_uint_eq((unsigned long)a, 16);
	ck_assert_uint_eq((unsigned long)b, 64);
	ck_assert_uint_eq((unsigned long)c, 4096);
	ck_assert_uint_eq((unsigned long)d, 32);	/* fills the gap before b */
	free_percpu(a);
	free_percpu(b);
	free_percpu(c);
	free_percpu(d);
	free_percpu(NULL);
}
END_TEST

/* Call __alloc_percpu with stderr captured into out. */
static void __percpu *alloc_capture(size_t size, size_t align, char *out, size_t outlen)
{
	int fds[2], saved;
	void __percpu *p;
	ssize_t n;

	ck_assert_int_eq(pipe(fds), 0);
	saved = dup(STDERR_FILENO);
	dup2(fds[1], STDERR_FILENO);
	close(fds[1]);
	p = __alloc_percpu(size, align);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = read(fds[0], out, outlen - 1);
	out[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	return p;
}

START_TEST(test_percpu_bad_arguments)
{
	char err[256];

	ck_assert_ptr_null(alloc_capture(0, 8, err, sizeof(err)));
	ck_assert_str_eq(err, "uslab: __alloc_percpu: bad size 0 or align 8\n");
	ck_assert_ptr_null(alloc_capture(8, 3, err, sizeof(err)));
	ck_assert_str_eq(err, "uslab: __alloc_percpu: bad size 8 or align 3\n");
	ck_assert_ptr_null(alloc_capture(8, 0, err, sizeof(err)));
	ck_assert_ptr_null(alloc_capture(8, 8192, err, sizeof(err)));
	ck_assert_ptr_null(alloc_capture(PERCPU_UNIT_SIZE, 8, err, sizeof(err)));
	ck_assert_ptr_nonnull(alloc_capture(PERCPU_UNIT_SIZE - 16, 16, err, sizeof(err)));
	ck_assert_str_eq(err, "");
}
END_TEST

START_TEST(test_percpu_exhaustion)
{
	enum { BIG = 64 << 10, MAX_BIG = PERCPU_UNIT_SIZE / BIG };
	void __percpu *big[MAX_BIG + 1];
	static void __percpu *small[PERCPU_UNIT_SIZE / 16];
	unsigned long nr_big = 0, nr_small = 0, again = 0, i;
	void __percpu *hole;

	while (nr_big <= MAX_BIG && (big[nr_big] = __alloc_percpu(BIG, 16)))
		nr_big++;
	/* offset 0 is reserved, so one 64 KiB area fewer than fit in a unit */
	ck_assert_uint_eq(nr_big, MAX_BIG - 1);
	for (i = 0; i < nr_big; i++)
		ck_assert_uint_eq((unsigned long)big[i], 16 + i * BIG);
	hole = big[2];
	free_percpu(hole);
	ck_assert_ptr_eq(__alloc_percpu(BIG, 16), hole);
	ck_assert_ptr_null(__alloc_percpu(BIG, 16));
	for (i = 0; i < nr_big; i++)
		free_percpu(big[i]);

	while ((small[nr_small] = __alloc_percpu(16, 16)))
		nr_small++;
	ck_assert_uint_eq(nr_small, PERCPU_UNIT_SIZE / 16 - 1);
	for (i = 0; i < nr_small; i++)
		free_percpu(small[i]);
	while ((small[again] = __alloc_percpu(16, 16)))
		again++;
	ck_assert_uint_eq(again, nr_small);	/* everything freed is reusable */
	for (i = 0; i < again; i++)
		free_percpu(small[i]);
	/* and it coalesced: the largest aligned area fits again */
	hole = __alloc_percpu(PERCPU_UNIT_SIZE - 4096, 4096);
	ck_assert_uint_eq((unsigned long)hole, 4096);
	free_percpu(hole);
}
END_TEST

/* Random allocations and frees checked against a model of the offset space. */
START_TEST(test_percpu_random_model)
{
	enum { SLOTS = 256, ROUNDS = 4000 };
	static unsigned short owner[PERCPU_UNIT_SIZE / 16];	/* slot + 1 per 16 bytes */
	struct { unsigned long off, size; } slot[SLOTS] = { { 0, 0 } };
	unsigned long seed = 88172645463325252UL, r, chunk, size, align;
	unsigned char *unit;
	int round, s;

	ck_assert_int_eq(cpu_attach(), 0);
	unit = (unsigned char *)this_cpu_base;
	for (round = 0; round < ROUNDS; round++) {
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		r = seed;
		s = (int)(r % SLOTS);
		if (slot[s].off) {
			for (chunk = slot[s].off / 16; chunk < (slot[s].off + slot[s].size + 15) / 16; chunk++)
				owner[chunk] = 0;
			free_percpu((void __percpu *)slot[s].off);
			slot[s].off = 0;
			continue;
		}
		size = 1 + (r >> 8) % ((r >> 40) % 8 ? 256 : 8192);
		align = 1UL << ((r >> 20) % 13);
		slot[s].off = (unsigned long)__alloc_percpu(size, align);
		slot[s].size = size;
		if (!slot[s].off)
			continue;	/* full for now: fine, frees will follow */
		ck_assert_uint_eq(slot[s].off % max(align, 16UL), 0);
		ck_assert_uint_le(slot[s].off + size, PERCPU_UNIT_SIZE);
		for (chunk = slot[s].off / 16; chunk < (slot[s].off + size + 15) / 16; chunk++) {
			if (owner[chunk])
				ck_abort_msg("round %d: offset %lu given out twice", round, chunk * 16);
			owner[chunk] = (unsigned short)(s + 1);
		}
		ck_assert_msg(first_nonzero(unit + slot[s].off, size) == size,
			      "round %d: area at %lu not zeroed", round, slot[s].off);
		memset(unit + slot[s].off, 0x5a, size);	/* dirty it for the next owner */
	}
}
END_TEST

static void free_twice(void *arg)
{
	void __percpu *p = __alloc_percpu(32, 16);

	(void)arg;
	free_percpu(p);
	free_percpu(p);
}

static void free_inside(void *arg)
{
	char __percpu *p = __alloc_percpu(64, 16);

	(void)arg;
	free_percpu(p + 16);
}

static void free_misaligned(void *arg)
{
	char __percpu *p = __alloc_percpu(64, 16);

	(void)arg;
	free_percpu(p + 3);
}

static void free_out_of_range(void *arg)
{
	(void)arg;
	free_percpu((void __percpu *)(PERCPU_UNIT_SIZE + 64));
}

START_TEST(test_percpu_bad_free_aborts)
{
	ck_assert_aborts_with(free_twice, NULL, "is not an allocated per-CPU area");
	ck_assert_aborts_with(free_inside, NULL, "is not an allocated per-CPU area");
	ck_assert_aborts_with(free_misaligned, NULL, "is not an allocated per-CPU area");
	ck_assert_aborts_with(free_out_of_range, NULL, "is not an allocated per-CPU area");
}
END_TEST

static Suite *cpu_suite(void)
{
	Suite *s = suite_create("cpu");
	TCase *ids = tcase_create("ids");
	TCase *teardown = tcase_create("teardown");
	TCase *percpu = tcase_create("percpu");

	tcase_add_test(ids, test_attach_first_id);
	tcase_add_test(ids, test_lowest_free_id_reused);
	tcase_add_test(ids, test_no_id_left);
	tcase_add_test(ids, test_short_lived_threads_bounded);
	tcase_add_test(teardown, test_teardown_on_thread_exit);
	tcase_add_test(teardown, test_detach_self);
	tcase_add_test(teardown, test_reattach_from_later_destructor);
	tcase_add_test(teardown, test_cpuhp_same_callback_twice);
	tcase_add_test(teardown, test_cpuhp_remove_state);
	tcase_add_test(teardown, test_cpuhp_misuse_aborts);
	tcase_add_test(percpu, test_percpu_distinct_per_cpu);
	tcase_add_test(percpu, test_percpu_zeroed_in_every_unit);
	tcase_add_test(percpu, test_percpu_alignment);
	tcase_add_test(percpu, test_percpu_bad_arguments);
	tcase_add_test(percpu, test_percpu_exhaustion);
	tcase_add_test(percpu, test_percpu_random_model);
	tcase_add_test(percpu, test_percpu_bad_free_aborts);
	suite_add_tcase(s, ids);
	suite_add_tcase(s, teardown);
	suite_add_tcase(s, percpu);
	return s;
}
USLAB_TEST_MAIN(cpu_suite)
