// SPDX-License-Identifier: MIT
/*
 * oom.c - run under an address-space limit (run.sh: ulimit -v 300000):
 * allocate until malloc returns NULL, at several sizes.  The failure must
 * be a NULL with errno ENOMEM, never a crash; it must come only once most
 * of the address space is really in use; and after everything is freed
 * the memory must be usable again.
 */
#include "malloc_test.h"
#include "common/test.h"

#include <errno.h>
#include <sys/resource.h>

#define MAX_BLOCKS	400000
#define MiB		(1UL << 20)

static void *blocks[MAX_BLOCKS];

/* Allocate size-byte blocks from blocks[*n] on until NULL; bytes obtained. */
static size_t fill(size_t size, int *n, int *err)
{
	size_t got = 0;
	void *p;

	while (*n < MAX_BLOCKS) {
		errno = 0;
		p = malloc(size);
		if (!p) {
			*err = errno;
			return got;
		}
		*(volatile char *)p = 1;	/* one page per block: the test is about address space */
		blocks[(*n)++] = p;
		got += size;
	}
	*err = -1;
	return got;
}

static void release(int n)
{
	while (n > 0)
		free(blocks[--n]);
}

START_TEST(test_until_null)
{
	static const size_t sizes[] = { 1 * MiB, 64 << 10, 5000, 100 };
	size_t total = 0, again;
	struct rlimit rl;
	int n = 0, m = 0, err[4], err_again, i;
	void *too_big;

	ck_assert_int_eq(getrlimit(RLIMIT_AS, &rl), 0);
	ck_assert_msg(rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur <= 1024 * MiB,
		      "run me under ulimit -v (run.sh uses 300000)");
	/* why no ck_assert until release(): Check itself allocates to report */
	for (i = 0; i < 4; i++)
		total += fill(sizes[i], &n, &err[i]);
	too_big = calloc(rl.rlim_cur / 2, 4);
	release(n);
	printf("limit %lu MiB: %zu MiB in %d blocks before ENOMEM\n",
	       (unsigned long)(rl.rlim_cur / MiB), total / MiB, n);
	for (i = 0; i < 4; i++)
		ck_assert_msg(err[i] == ENOMEM, "malloc(%zu) failed with errno %d, not ENOMEM",
			      sizes[i], err[i]);
	/* most of the limit was really usable (the rest: code, stacks, metadata) */
	ck_assert_msg(total > rl.rlim_cur / 2, "only %zu MiB of %lu MiB before ENOMEM",
		      total / MiB, (unsigned long)(rl.rlim_cur / MiB));
	ck_assert(too_big == NULL);
	again = fill(1 * MiB, &m, &err_again);
	release(m);
	ck_assert_int_eq(err_again, ENOMEM);
	ck_assert_msg(again > rl.rlim_cur / 2, "after freeing all, only %zu MiB again",
		      again / MiB);
}
END_TEST

static Suite *oom_suite(void)
{
	Suite *s = suite_create("malloc-oom");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_until_null);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	require_uslab_malloc();
	return uslab_test_run(oom_suite());
}
