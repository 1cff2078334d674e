// SPDX-License-Identifier: MIT
/*
 * debug_redzone.c - with the allocator's debug options (tests/malloc/run.sh
 * runs this with USLAB_OPTIONS=slub_debug=FZPU on SLUB, slab_debug on
 * SLAB), a one-byte overflow past the size malloc was asked for is caught
 * when the block is freed, though the block's size class has room after
 * it (the kmalloc red zone starts at the requested size), also after an
 * in-place realloc; writes up to the last requested byte are not reported.
 * A write into a freed block is caught by the poison the debug options
 * fill it with, when the allocator hands the block out again.
 * SLOB has no red zones and no poisoning: the program says so and skips.
 */
#include "malloc_test.h"
#include "common/test.h"

#include <malloc.h>

static void (*volatile free_p)(void *) = free;
static void *(*volatile malloc_p)(size_t) = malloc;
static void *(*volatile realloc_p)(void *, size_t) = realloc;

/* Sizes that leave room in their class: 13 in 16, 100 in 112, 1000 in 1024. */
static const size_t sizes[] = { 13, 100, 1000 };

/* The words of the report: SLUB's banner, or SLAB's red zone line. */
static const char *report_words(void)
{
	return CONFIG_SLUB ? "kmalloc Redzone overwritten" : "kmalloc Redzone: ";
}

static void overflow_by_one(void *arg)
{
	size_t n = (size_t)arg;
	unsigned char *p = malloc_p(n);

	p[n] = 0x55;
	free_p(p);
}

/* Grown in place from 10 bytes to n: the red zone moved to n. */
static void overflow_after_realloc(void *arg)
{
	size_t n = (size_t)arg;
	unsigned char *p = malloc_p(10), *q = realloc_p(p, n);

	if (q != p)
		exit(3);	/* not in place: nothing to test */
	q[n] = 0x55;
	free_p(q);
}

/* The words of a poison report: SLUB's banner, or SLAB's. */
static const char *poison_words(void)
{
	return CONFIG_SLUB ? "Poison overwritten" : "Slab corruption";
}

/* A byte written into a freed block, then blocks of its class taken until
 * the allocator hands that one out again and checks its poison. */
static void write_after_free(void *arg)
{
	size_t n = (size_t)arg;
	unsigned char *p = malloc_p(n);
	int i;

	free_p(p);
	p[n / 2] = 0x42;
	for (i = 0; i < 4096; i++)
		malloc_p(n);
	exit(3);	/* never handed out again, or not checked */
}

START_TEST(test_overflow_by_one_caught)
{
	require_uslab_malloc();
	for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		ck_assert_aborts_with(overflow_by_one, (void *)sizes[i], report_words());
}
END_TEST

START_TEST(test_overflow_after_in_place_realloc_caught)
{
	require_uslab_malloc();
	ck_assert_aborts_with(overflow_after_realloc, (void *)13, report_words());
}
END_TEST

START_TEST(test_write_after_free_caught)
{
	require_uslab_malloc();
	for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		ck_assert_aborts_with(write_after_free, (void *)sizes[i], poison_words());
}
END_TEST

START_TEST(test_in_bounds_writes_not_reported)
{
	require_uslab_malloc();
	for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		unsigned char *p = malloc_p(sizes[i]);

		memset(p, 0x55, sizes[i]);
		free_p(p);
	}
}
END_TEST

static Suite *debug_redzone_suite(void)
{
	Suite *s = suite_create("malloc_debug_redzone");
	TCase *tc = tcase_create("redzone");

	tcase_add_test(tc, test_overflow_by_one_caught);
	tcase_add_test(tc, test_overflow_after_in_place_realloc_caught);
	tcase_add_test(tc, test_write_after_free_caught);
	tcase_add_test(tc, test_in_bounds_writes_not_reported);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (CONFIG_SLOB)
		uslab_test_skip("SLOB has no red zones");
	if (!getenv("USLAB_OPTIONS"))
		uslab_test_skip("needs the debug options (tests/malloc/run.sh gives them)");
	return uslab_test_run(debug_redzone_suite());
}
