// SPDX-License-Identifier: MIT
/*
 * fork_locked.c - fork() while other threads are inside the allocator,
 * holding its locks (slab lists, the page allocator's zone lock, the huge
 * block table, section onlining).  Every child must be able to allocate and
 * free blocks of every kind, and start a thread that does, then exit 0.
 * run.sh runs it in the allocator's debug mode too.
 */
#include "malloc_test.h"
#include "common/test.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

#define NR_WORKERS	3
#define NR_FORKS	150
#define CHILD_ALARM	60	/* a deadlocked child is killed, not waited for */

static volatile int stop_workers;

/* A size of every kind, in turn: small, class edge, large, huge, aligned. */
static void *alloc_any(uint64_t r)
{
	switch (r % 8) {
	case 0: return malloc(r % 100);
	case 1: return malloc(8192 + r % 30000);
	case 2: return calloc(1, 100000 + r % 900000);
	case 3: return malloc((5 << 20) + r % 4096);
	case 4: return memalign(1 << (4 + r % 16), r % 5000);
	case 5: return realloc(malloc(r % 300), 2000 + r % 70000);
	default: return malloc(r % 2048);
	}
}

static void *worker(void *arg)
{
	uint64_t seed = (uintptr_t)arg * 7919 + 1;
	void *slot[64] = { 0 };
	unsigned int i;

	while (!stop_workers) {
		i = rng_next(&seed) % 64;
		free(slot[i]);
		slot[i] = alloc_any(rng_next(&seed));
	}
	for (i = 0; i < 64; i++)
		free(slot[i]);
	return NULL;
}

static void *child_thread(void *arg)
{
	uint64_t seed = (uintptr_t)arg;
	int i;

	for (i = 0; i < 200; i++)
		free(alloc_any(rng_next(&seed)));
	return NULL;
}

/* In the child: allocate every kind, check contents, use a thread. */
static int child_body(unsigned int n)
{
	uint64_t seed = n + 12345;
	pthread_t t;
	void *p[16];
	int i;

	alarm(CHILD_ALARM);
	for (i = 0; i < 16; i++) {
		size_t len;

		p[i] = alloc_any(rng_next(&seed));
		if (!p[i])
			return 3;
		len = malloc_usable_size(p[i]);
		pattern_fill(p[i], len < 4096 ? len : 4096, (uintptr_t)i);
	}
	for (i = 0; i < 16; i++) {
		size_t len = malloc_usable_size(p[i]);

		if (!pattern_ok(p[i], len < 4096 ? len : 4096, (uintptr_t)i))
			return 4;
		free(p[i]);
	}
	if (pthread_create(&t, NULL, child_thread, (void *)(uintptr_t)n))
		return 5;
	pthread_join(t, NULL);
	return 0;
}

START_TEST(test_fork_while_allocating)
{
	pthread_t workers[NR_WORKERS];
	unsigned int i;
	int status;
	pid_t pid;

	for (i = 0; i < NR_WORKERS; i++)
		ck_assert_int_eq(pthread_create(&workers[i], NULL, worker,
						(void *)(uintptr_t)(i + 1)), 0);
	for (i = 0; i < NR_FORKS; i++) {
		pid = fork();
		ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
		if (pid == 0)
			_exit(child_body(i));
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_msg(!WIFSIGNALED(status) || WTERMSIG(status) != SIGALRM,
			      "child %u deadlocked in the allocator", i);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "child %u ended with status %#x", i, status);
	}
	stop_workers = 1;
	for (i = 0; i < NR_WORKERS; i++)
		pthread_join(workers[i], NULL);
}
END_TEST

static Suite *fork_suite(void)
{
	Suite *s = suite_create("malloc-fork");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_fork_while_allocating);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	require_uslab_malloc();
	return uslab_test_run(fork_suite());
}
