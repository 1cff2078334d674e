// SPDX-License-Identifier: MIT
/*
 * init.c - first-use initialisation (src/mm/init.c): exactly once under
 * concurrent first calls, options parsed once before the memory map, no
 * deadlock when the initialising thread comes back, and a library that
 * answers NULL (instead of crashing or retrying) when the OS grants no
 * address space for the arena.
 *
 * Each test runs in its own process (Check forks): each starts before
 * initialisation.
 */
/* uslab-test: threaded */
#include "common/test.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "mm/internal.h"

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

static int probe_calls;			/* times init_probe was parsed (atomic) */
static bool probe_saw_memmap;		/* the memory map existed when it was parsed */
static bool reenter_returned;		/* mm_ensure_init() came back inside init */
static bool reenter_saw_initialized;	/* ... and claimed to be initialised */

static int setup_init_probe(const char *val)
{
	(void)val;
	__atomic_add_fetch(&probe_calls, 1, __ATOMIC_RELAXED);
	probe_saw_memmap = memmap.max_pfn != 0;
	return 0;
}
__setup("init_probe", setup_init_probe);

/* Runs inside mm_init_slow(), on the initialising thread, under its lock. */
static int setup_init_reenter(const char *val)
{
	(void)val;
	mm_ensure_init();
	reenter_returned = true;
	reenter_saw_initialized = smp_load_acquire(&mm_initialized);
	return 0;
}
__setup("init_reenter", setup_init_reenter);

static pthread_barrier_t start_line;

static void *first_use(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start_line);
	mm_ensure_init();
	return smp_load_acquire(&mm_initialized) && memmap.max_pfn ? (void *)1 : NULL;
}

START_TEST(test_concurrent_first_use_once)
{
	enum { NR = 6 };
	pthread_t t[NR];
	struct page *page;
	void *ok;
	int i;

	ck_assert_int_eq(setenv("USLAB_OPTIONS", "init_probe", 1), 0);
	ck_assert(!mm_initialized);
	pthread_barrier_init(&start_line, NULL, NR);
	for (i = 0; i < NR; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, first_use, NULL), 0);
	for (i = 0; i < NR; i++) {
		ck_assert_int_eq(pthread_join(t[i], &ok), 0);
		ck_assert_msg(ok, "thread %d returned before initialisation was complete", i);
	}
	pthread_barrier_destroy(&start_line);
	ck_assert_int_eq(probe_calls, 1);
	ck_assert(!probe_saw_memmap);	/* options come before the memory map */
	mm_ensure_init();
	ck_assert_int_eq(probe_calls, 1);
	page = alloc_pages(GFP_KERNEL, 0);
	ck_assert_ptr_nonnull(page);
	__free_pages(page, 0);
}
END_TEST

START_TEST(test_reentry_does_not_deadlock)
{
	ck_assert_int_eq(setenv("USLAB_OPTIONS", "init_reenter", 1), 0);
	mm_ensure_init();
	ck_assert(reenter_returned);
	ck_assert(!reenter_saw_initialized);	/* came back early, did not fake it */
	ck_assert(mm_initialized);
	ck_assert_uint_gt(memmap.max_pfn, 0);
}
END_TEST

/* Pages of address space this process uses now (first field of statm). */
static unsigned long vm_pages(void)
{
	unsigned long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%lu", &pages), 1);
	fclose(f);
	return pages;
}

START_TEST(test_no_address_space)
{
	struct rlimit lim;
	int fds[2], saved;
	char err[1024];
	ssize_t n;

	if (SANITIZED) {
		puts("SKIP: sanitizer runtimes need more address space than this test leaves");
		return;
	}
	ck_assert_int_eq(unsetenv("USLAB_OPTIONS"), 0);
	ck_assert_int_eq(pipe(fds), 0);
	saved = dup(STDERR_FILENO);
	/* why 3 MiB: less than the smallest arena (one 4 MiB max-order block) */
	lim.rlim_cur = lim.rlim_max = vm_pages() * (unsigned long)getpagesize() + (3UL << 20);
	ck_assert_int_eq(setrlimit(RLIMIT_AS, &lim), 0);
	dup2(fds[1], STDERR_FILENO);
	close(fds[1]);
	mm_ensure_init();
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = read(fds[0], err, sizeof(err) - 1);
	err[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	ck_assert(mm_initialized);		/* set anyway: no retry on every call */
	ck_assert_uint_eq(memmap.max_pfn, 0);
	ck_assert_msg(strstr(err, "uslab: no memory map: every allocation will return NULL\n"),
		      "stderr: %s", err);
	ck_assert_ptr_null(alloc_pages(GFP_KERNEL, 0));
	ck_assert_ptr_null(alloc_pages(GFP_KERNEL, 3));
	ck_assert_uint_eq(nr_free_pages(), 0);
}
END_TEST

static Suite *init_suite(void)
{
	Suite *s = suite_create("init");
	TCase *tc = tcase_create("first use");

	tcase_add_test(tc, test_concurrent_first_use_once);
	tcase_add_test(tc, test_reentry_does_not_deadlock);
	tcase_add_test(tc, test_no_address_space);
	suite_add_tcase(s, tc);
	return s;
}
USLAB_TEST_MAIN(init_suite)
