/* SPDX-License-Identifier: MIT */
/*
 * harness.c - tests of the test harness itself (tests/common/) and of the
 * build's per-allocator configuration, so that the build and test pipeline
 * is exercised before, and independently of, the library's own tests.
 */
#include "common/test.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void say_and_abort(void *arg)
{
	fprintf(stderr, "BUG %s: double free detected\n", (const char *)arg);
	abort();
}

static void exit_three(void *arg)
{
	(void)arg;
	fputs("leaving with 3\n", stderr);
	exit(3);
}

static void just_return(void *arg)
{
	*(int *)arg = 1;	/* the child's copy: the parent's must stay 0 */
}

static void print_a_lot_then_abort(void *arg)
{
	size_t i, n = *(size_t *)arg;

	for (i = 0; i < n; i++)
		fputc('a' + (int)(i % 26), stderr);
	abort();
}

static void terminate_self(void *arg)
{
	(void)arg;
	raise(SIGTERM);
}

static void stdout_only(void *arg)
{
	(void)arg;
	printf("harness: this line goes to stdout, not to the capture\n");
}

START_TEST(test_abort_is_reported_with_its_stderr)
{
	char out[256];
	int end = run_expect_abort(say_and_abort, "kmalloc-64", out, sizeof(out));

	ck_assert_int_eq(end, SIGABRT);
	ck_assert_str_eq(out, "BUG kmalloc-64: double free detected\n");
}
END_TEST

START_TEST(test_exit_status_is_negated)
{
	char out[64];

	ck_assert_int_eq(run_expect_abort(exit_three, NULL, out, sizeof(out)), -3);
	ck_assert_str_eq(out, "leaving with 3\n");
}
END_TEST

START_TEST(test_return_is_zero_and_runs_in_a_child)
{
	int touched = 0;
	char out[16] = "not cleared";

	ck_assert_int_eq(run_expect_abort(just_return, &touched, out, sizeof(out)), 0);
	ck_assert_int_eq(touched, 0);
	ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(test_long_report_is_cut_and_drained)
{
	size_t n = 256 * 1024;	/* far more than a pipe holds */
	char out[100];
	int end = run_expect_abort(print_a_lot_then_abort, &n, out, sizeof(out));

	ck_assert_int_eq(end, SIGABRT);
	ck_assert_uint_eq(strlen(out), sizeof(out) - 1);
	ck_assert_int_eq(out[0], 'a');
	ck_assert_int_eq(out[26], 'a');
}
END_TEST

START_TEST(test_other_signal_is_returned)
{
	char how[32];

	ck_assert_int_eq(run_expect_abort(terminate_self, NULL, NULL, 0), SIGTERM);
	ck_assert_str_eq(uslab_test_describe_end(SIGTERM, how, sizeof(how)), "SIGTERM");
	ck_assert_str_eq(uslab_test_describe_end(-2, how, sizeof(how)), "exit 2");
}
END_TEST

START_TEST(test_only_stderr_is_captured)
{
	char out[128];

	ck_assert_int_eq(run_expect_abort(stdout_only, NULL, out, sizeof(out)), 0);
	ck_assert_ptr_null(strstr(out, "harness:"));
}
END_TEST

START_TEST(test_assert_macro_accepts_a_matching_report)
{
	ck_assert_aborts_with(say_and_abort, "dentry", "BUG dentry: double free");
}
END_TEST

START_TEST(test_exactly_one_allocator_is_configured)
{
	const char *name = uslab_test_allocator();

	ck_assert_int_eq(CONFIG_SLUB + CONFIG_SLAB + CONFIG_SLOB, 1);
	ck_assert(strcmp(name, "slub") == 0 || strcmp(name, "slab") == 0 ||
		  strcmp(name, "slob") == 0);
	ck_assert_int_eq(strcmp(name, "slub") == 0, CONFIG_SLUB);
	ck_assert_int_eq(strcmp(name, "slab") == 0, CONFIG_SLAB);
}
END_TEST

static Suite *harness_suite(void)
{
	Suite *s = suite_create("harness");
	TCase *tc = tcase_create("run_expect_abort");

	tcase_add_test(tc, test_abort_is_reported_with_its_stderr);
	tcase_add_test(tc, test_exit_status_is_negated);
	tcase_add_test(tc, test_return_is_zero_and_runs_in_a_child);
	tcase_add_test(tc, test_long_report_is_cut_and_drained);
	tcase_add_test(tc, test_other_signal_is_returned);
	tcase_add_test(tc, test_only_stderr_is_captured);
	tcase_add_test(tc, test_assert_macro_accepts_a_matching_report);
	suite_add_tcase(s, tc);

	tc = tcase_create("build");
	tcase_add_test(tc, test_exactly_one_allocator_is_configured);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(harness_suite)
