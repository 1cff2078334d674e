/* SPDX-License-Identifier: MIT */
/* uslab-test: threaded */
/*
 * kfree_rcu.c - the RCU API of <uslab/rcupdate.h> as a checklist, through
 * the public headers only: kfree_rcu()/kvfree_rcu() free nothing while a
 * reader that began before them is inside rcu_read_lock(), free everything
 * by the time rcu_barrier() returns (two and one argument, kmalloc and
 * kvmalloc memory, small and beyond the page allocator); call_rcu() and
 * synchronize_rcu() wait for readers; calls that would deadlock are
 * reported; fork() works with RCU in use, and the child can allocate and
 * use RCU.  Allocator-neutral.
 *
 * "Not freed yet" is read from uslab_rcu_stats() (the library's count of
 * objects freed by kvfree_rcu) and from the objects' own bytes, never from
 * time: a reader holds rcu_read_lock() while the test gives liburcu's
 * RCU thread every chance to run.
 */
#include "api.h"
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <uslab/rcupdate.h>

#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif
#ifndef UNDER_TSAN
#define UNDER_TSAN 0
#endif
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

#define PATTERN		0x5a5a5a5a5a5a5a5aULL
#define YIELDS		2000	/* chances for the RCU thread while a reader holds on */

_Static_assert(sizeof(struct rcu_head) == 2 * sizeof(void *),
	       "the public struct rcu_head has the library's layout");

struct obj {
	uint64_t word[15];	/* PATTERN while the object lives */
	struct rcu_head rcu;
};

static struct uslab_rcu_stats stats(void)
{
	struct uslab_rcu_stats st;

	uslab_rcu_stats(&st);
	return st;
}

/* No Check call here: threads and fork children use it (Check's own lock
 * may be held by another thread when the process forks). */
static struct obj *obj_new_or_null(void)
{
	struct obj *o = kmalloc(sizeof(*o), GFP_KERNEL);
	int i;

	for (i = 0; o && i < 15; i++)
		o->word[i] = PATTERN;
	return o;
}

static struct obj *obj_new(void)
{
	struct obj *o = obj_new_or_null();

	ck_assert_ptr_nonnull(o);
	return o;
}

static int obj_intact(const struct obj *o)
{
	int i;

	for (i = 0; i < 15; i++)
		if (o->word[i] != PATTERN)
			return 0;
	return 1;
}

/* ---- a reader thread that holds rcu_read_lock() until told ---- */

struct reader {
	pthread_t tid;
	int inside;	/* atomic: the reader is in its critical section */
	int release;	/* atomic: the reader may leave it */
};

static void *reader_fn(void *arg)
{
	struct reader *r = arg;

	rcu_read_lock();
	__atomic_store_n(&r->inside, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&r->release, __ATOMIC_ACQUIRE))
		sched_yield();
	rcu_read_unlock();
	return NULL;
}

static void reader_start(struct reader *r)
{
	memset(r, 0, sizeof(*r));
	ck_assert_int_eq(pthread_create(&r->tid, NULL, reader_fn, r), 0);
	while (!__atomic_load_n(&r->inside, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void reader_stop(struct reader *r)
{
	__atomic_store_n(&r->release, 1, __ATOMIC_RELEASE);
	ck_assert_int_eq(pthread_join(r->tid, NULL), 0);
}

/* ---------------- grace periods ---------------- */

/*
 * More than two blocks' worth, so that kfree_rcu() itself hands batches to
 * call_rcu() (a block holds about 510 pointers): whatever is in flight must
 * still wait for the reader.
 */
#define MANY	1300

START_TEST(kfree_rcu_waits_for_a_reader)
{
	struct uslab_rcu_stats st0 = stats(), st;
	static struct obj *o[MANY];
	struct reader r;
	int i;

	for (i = 0; i < MANY; i++)
		o[i] = obj_new();
	reader_start(&r);
	for (i = 0; i < MANY; i++)
		kfree_rcu(o[i], rcu);
	st = stats();
	ck_assert_uint_eq(st.kvfree_queued - st0.kvfree_queued, MANY);
	ck_assert_uint_ge(st.kvfree_batches - st0.kvfree_batches, 2);
	for (i = 0; i < YIELDS; i++)
		sched_yield();
	st = stats();
	ck_assert_uint_eq(st.kvfree_freed, st0.kvfree_freed);
	for (i = 0; i < MANY; i++)
		ck_assert_msg(obj_intact(o[i]), "object %d changed before the grace period", i);
	reader_stop(&r);
	rcu_barrier();
	st = stats();
	ck_assert_uint_eq(st.kvfree_freed - st0.kvfree_freed, MANY);
	ck_assert_uint_eq(st.kvfree_queued, st.kvfree_freed);
}
END_TEST

/* rcu_barrier() in another thread sends the (small) pending batch, then
 * waits for the reader like the batch does. */
static void *barrier_fn(void *arg)
{
	(void)arg;
	rcu_barrier();
	return NULL;
}

START_TEST(a_small_batch_sent_by_rcu_barrier_still_waits)
{
	struct uslab_rcu_stats st0 = stats(), st;
	struct obj *o[8];
	struct reader r;
	pthread_t b;
	int i;

	for (i = 0; i < 8; i++)
		o[i] = obj_new();
	reader_start(&r);
	for (i = 0; i < 8; i++)
		kfree_rcu(o[i], rcu);
	ck_assert_int_eq(pthread_create(&b, NULL, barrier_fn, NULL), 0);
	do {
		sched_yield();
		st = stats();
	} while (st.kvfree_batches == st0.kvfree_batches);
	for (i = 0; i < YIELDS; i++)
		sched_yield();
	ck_assert_uint_eq(stats().kvfree_freed, st0.kvfree_freed);
	for (i = 0; i < 8; i++)
		ck_assert(obj_intact(o[i]));
	reader_stop(&r);
	ck_assert_int_eq(pthread_join(b, NULL), 0);
	ck_assert_uint_eq(stats().kvfree_freed - st0.kvfree_freed, 8);
}
END_TEST

static int callback_ran;	/* atomic */

static void count_callback(struct rcu_head *head)
{
	(void)head;
	__atomic_add_fetch(&callback_ran, 1, __ATOMIC_RELEASE);
}

START_TEST(call_rcu_runs_after_the_reader_and_before_rcu_barrier_returns)
{
	static struct rcu_head heads[4];
	struct reader r;
	int i;

	reader_start(&r);
	for (i = 0; i < 4; i++)
		call_rcu(&heads[i], count_callback);
	for (i = 0; i < YIELDS; i++)
		sched_yield();
	ck_assert_int_eq(__atomic_load_n(&callback_ran, __ATOMIC_ACQUIRE), 0);
	reader_stop(&r);
	rcu_barrier();
	ck_assert_int_eq(__atomic_load_n(&callback_ran, __ATOMIC_ACQUIRE), 4);
}
END_TEST

/* synchronize_rcu() cannot return while the reader is inside: it ends
 * after release, and the reader has left by then. */
static void *sync_fn(void *arg)
{
	int *done = arg;

	synchronize_rcu();
	__atomic_store_n(done, 1, __ATOMIC_RELEASE);
	return NULL;
}

START_TEST(synchronize_rcu_waits_for_the_reader)
{
	struct reader r;
	pthread_t s;
	int done = 0, i;

	reader_start(&r);
	ck_assert_int_eq(pthread_create(&s, NULL, sync_fn, &done), 0);
	for (i = 0; i < YIELDS; i++)
		sched_yield();
	ck_assert_int_eq(__atomic_load_n(&done, __ATOMIC_ACQUIRE), 0);
	reader_stop(&r);
	ck_assert_int_eq(pthread_join(s, NULL), 0);
	ck_assert_int_eq(done, 1);
	ck_assert_int_eq(rcu_read_lock_held(), 0);
	rcu_read_lock();
	rcu_read_lock();
	ck_assert_int_ne(rcu_read_lock_held(), 0);
	rcu_read_unlock();
	ck_assert_int_ne(rcu_read_lock_held(), 0);
	rcu_read_unlock();
	ck_assert_int_eq(rcu_read_lock_held(), 0);
}
END_TEST

/* ---------------- what gets freed ---------------- */

static unsigned long pages_in_use(void)
{
	struct uslab_memmap_stats m;

	uslab_memmap_stats(&m);
	return m.pages_online - m.pages_free;
}

START_TEST(rcu_barrier_frees_everything_and_memory_comes_back)
{
	enum { N = 20000 };
	struct uslab_rcu_stats st0 = stats();
	static struct obj *o[N];
	unsigned long before, used, back;
	int i;

	kfree(kmalloc(sizeof(struct obj), GFP_KERNEL));	/* the memory map is up */
	before = pages_in_use();
	for (i = 0; i < N; i++)
		o[i] = obj_new();
	used = pages_in_use() - before;
	ck_assert_uint_ge(used, (unsigned long)N * sizeof(struct obj) / 4096);
	for (i = 0; i < N; i++)
		kfree_rcu(o[i], rcu);
	rcu_barrier();
	ck_assert_uint_eq(stats().kvfree_freed - st0.kvfree_freed, N);
	back = before + used - pages_in_use();
	/* what per-CPU and per-node caches may keep is far below half */
	ck_assert_msg(back >= used / 2, "%lu of %lu pages came back", back, used);
}
END_TEST

START_TEST(headless_and_null_forms)
{
	struct uslab_rcu_stats st0 = stats(), st;
	char *a = kmalloc(100, GFP_KERNEL), *b = kmalloc(3000, GFP_KERNEL);
	const char *c = kstrdup("const", GFP_KERNEL);
	struct obj *none = NULL;

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(c);
	kvfree_rcu(a);
	kfree_rcu(b);
	kfree_rcu(c);
	kfree_rcu(none, rcu);
	kvfree_rcu(none);
	kfree_rcu(ZERO_SIZE_PTR);
	st = stats();
	ck_assert_uint_eq(st.kvfree_queued - st0.kvfree_queued, 3);
	rcu_barrier();
	st = stats();
	ck_assert_uint_eq(st.kvfree_freed - st0.kvfree_freed, 3);
	ck_assert_uint_eq(st.kvfree_synced, st0.kvfree_synced);
}
END_TEST

/* Is the page at p mapped in this process? */
static int mapped(const void *p)
{
	unsigned char vec;
	void *page = (void *)((uintptr_t)p & ~(uintptr_t)4095);

	return mincore(page, 4096, &vec) == 0 || errno != ENOMEM;
}

struct big {
	struct rcu_head rcu;
	unsigned char data[];
};

START_TEST(kvfree_rcu_of_kvmalloc_memory)
{
	const size_t huge = 64UL << 20;	/* beyond any buddy block: a vmalloc area */
	const size_t mid = 5 * 4096;	/* kmalloc can serve it */
	struct uslab_rcu_stats st0 = stats();
	struct big *h = kvmalloc(huge, GFP_KERNEL), *m = kvmalloc(mid, GFP_KERNEL);
	unsigned char *tail;

	ck_assert_ptr_nonnull(h);
	ck_assert_ptr_nonnull(m);
	memset(h->data, 0xa5, huge - sizeof(*h));
	tail = &h->data[huge - sizeof(*h) - 1];
	ck_assert(mapped(tail));
	kvfree_rcu(h, rcu);
	kvfree_rcu(m, rcu);
	ck_assert(mapped(tail));
	ck_assert_uint_eq(*tail, 0xa5);
	rcu_barrier();
	ck_assert_uint_eq(stats().kvfree_freed - st0.kvfree_freed, 2);
	ck_assert_msg(!mapped(tail), "the vmalloc area is still mapped after rcu_barrier");
}
END_TEST

/* A thread that exits with a pending batch hands it over. */
static void *queue_and_exit(void *arg)
{
	struct obj **o = arg;
	int i;

	for (i = 0; i < 5; i++)
		kfree_rcu(o[i], rcu);
	return NULL;
}

START_TEST(a_thread_exit_hands_its_batch_over)
{
	struct uslab_rcu_stats st0 = stats(), st;
	struct obj *o[5];
	pthread_t t;
	int i, round;

	for (round = 0; round < 20; round++) {
		for (i = 0; i < 5; i++)
			o[i] = obj_new();
		ck_assert_int_eq(pthread_create(&t, NULL, queue_and_exit, o), 0);
		ck_assert_int_eq(pthread_join(t, NULL), 0);
	}
	st = stats();
	ck_assert_uint_eq(st.kvfree_queued - st0.kvfree_queued, 100);
	/* every exit sent its batch, or left it to the callbacks when both of
	 * the krc's carriers were in flight: no rcu_barrier() is needed */
	while (stats().kvfree_freed - st0.kvfree_freed < 100)
		synchronize_rcu();
	ck_assert_uint_eq(stats().kvfree_freed - st0.kvfree_freed, 100);
}
END_TEST

/* ---------------- misuse ---------------- */

static void synchronize_inside_reader(void *arg)
{
	(void)arg;
	rcu_read_lock();
	synchronize_rcu();
}

static void barrier_inside_reader(void *arg)
{
	(void)arg;
	rcu_read_lock();
	rcu_barrier();
}

static void barrier_from_a_callback_cb(struct rcu_head *head)
{
	(void)head;
	rcu_barrier();
}

static void barrier_from_a_callback(void *arg)
{
	static struct rcu_head head;

	(void)arg;
	call_rcu(&head, barrier_from_a_callback_cb);
	synchronize_rcu();
	for (;;)
		sched_yield();	/* the callback aborts the process */
}

START_TEST(calls_that_would_deadlock_are_reported)
{
	ck_assert_aborts_with(synchronize_inside_reader, NULL,
			      "Illegal synchronize_rcu() in RCU read-side critical section");
	ck_assert_aborts_with(barrier_inside_reader, NULL,
			      "Illegal rcu_barrier() in RCU read-side critical section");
	ck_assert_aborts_with(barrier_from_a_callback, NULL,
			      "Illegal rcu_barrier() from an RCU callback");
}
END_TEST

/* ---------------- fork ---------------- */

static int stop_busy;	/* atomic */

/* Keeps RCU busy while the main thread forks: readers, kfree_rcu, call_rcu. */
static void *busy_fn(void *arg)
{
	struct rcu_head *heads = arg;	/* 32 of them, each queued once */
	unsigned int n = 0, used = 0;

	while (!__atomic_load_n(&stop_busy, __ATOMIC_ACQUIRE)) {
		rcu_read_lock();
		kfree_rcu(obj_new_or_null(), rcu);
		rcu_read_unlock();
		if ((n++ & 63) == 0 && used < 32)
			call_rcu(&heads[used++], count_callback);
		if ((n & 255) == 0)
			synchronize_rcu();	/* frees keep up: memory stays small */
	}
	return NULL;
}

/* The child: the only thread left must allocate and use RCU normally
 * (no Check call: another thread may have held Check's lock at fork). */
static int fork_child_work(void)
{
	static struct rcu_head head;
	struct uslab_rcu_stats st0 = stats(), st;
	int before = __atomic_load_n(&callback_ran, __ATOMIC_ACQUIRE);
	struct obj *o;
	int i;

	alarm(60);	/* a hang shows as SIGALRM, not as a stuck test */
	for (i = 0; i < 1000; i++) {
		o = obj_new_or_null();
		if (!o)
			return 3;
		rcu_read_lock();
		kfree_rcu(o, rcu);
		rcu_read_unlock();
	}
	call_rcu(&head, count_callback);
	synchronize_rcu();
	rcu_barrier();
	st = stats();
	if (st.kvfree_queued != st.kvfree_freed || st.kvfree_freed - st0.kvfree_freed < 1000)
		return 1;
	if (__atomic_load_n(&callback_ran, __ATOMIC_ACQUIRE) <= before)
		return 2;
	kfree(kmalloc(64, GFP_KERNEL));
	return 0;
}

START_TEST(fork_with_rcu_in_use)
{
	static struct rcu_head heads[64];
	pthread_t busy[2];
	int i, status;
	pid_t pid;

	/* why first: a fork while another thread brings the library up leaves a
	 * child that waits for ever (init.c, a documented limit) */
	kfree(kmalloc(64, GFP_KERNEL));
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&busy[i], NULL, busy_fn, heads + 32 * i), 0);
	for (i = 0; i < 8; i++) {
		fflush(NULL);
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0)
			_exit(fork_child_work());
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "child %d ended with status 0x%x", i, status);
	}
	__atomic_store_n(&stop_busy, 1, __ATOMIC_RELEASE);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_join(busy[i], NULL), 0);
	rcu_barrier();
	ck_assert_uint_eq(stats().kvfree_queued, stats().kvfree_freed);
}
END_TEST

static Suite *kfree_rcu_suite(void)
{
	Suite *s = suite_create("kfree_rcu");
	TCase *gp = tcase_create("grace periods");
	TCase *fr = tcase_create("freeing");
	TCase *mis = tcase_create("misuse and fork");

	tcase_add_test(gp, kfree_rcu_waits_for_a_reader);
	tcase_add_test(gp, a_small_batch_sent_by_rcu_barrier_still_waits);
	tcase_add_test(gp, call_rcu_runs_after_the_reader_and_before_rcu_barrier_returns);
	tcase_add_test(gp, synchronize_rcu_waits_for_the_reader);
	tcase_add_test(fr, rcu_barrier_frees_everything_and_memory_comes_back);
	tcase_add_test(fr, headless_and_null_forms);
	tcase_add_test(fr, kvfree_rcu_of_kvmalloc_memory);
	tcase_add_test(fr, a_thread_exit_hands_its_batch_over);
	tcase_add_test(mis, calls_that_would_deadlock_are_reported);
	/* why not under TSan: fork()'s prepare holds every lock of the library
	 * at once, past the 64 its deadlock detector can track (a CHECK fails),
	 * and TSan stops a multi-threaded fork's child that starts a thread.
	 * Why not under ASan: gcc 12's ASan does not lock its own allocator
	 * around fork(), so a child forked while another thread was inside
	 * the C library's malloc waits for ever on ASan's lock the first time
	 * it mallocs (seen: the child's new threads stuck in
	 * SizeClassAllocator64::GetFromAllocator); LLVM 17 fixed it. */
	if (!UNDER_TSAN && !UNDER_ASAN)
		tcase_add_test(mis, fork_with_rcu_in_use);
	suite_add_tcase(s, gp);
	suite_add_tcase(s, fr);
	suite_add_tcase(s, mis);
	return s;
}

USLAB_TEST_MAIN(kfree_rcu_suite)
