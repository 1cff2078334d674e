/* SPDX-License-Identifier: MIT */
/*
 * test.h - the small harness every uslab test binary shares.
 *
 * A test is tests/KIND/NAME.c, built once per allocator (CONFIG_SLUB,
 * CONFIG_SLAB, CONFIG_SLOB are defined to 0 or 1 as for the library) and
 * linked with the files of tests/common/, the allocator's internal archive
 * and Check:
 *
 *	#include "common/test.h"
 *
 *	START_TEST(test_something) { ... ck_assert(...); } END_TEST
 *
 *	static Suite *something_suite(void)
 *	{
 *		Suite *s = suite_create("something");
 *		TCase *tc = tcase_create("core");
 *
 *		tcase_add_test(tc, test_something);
 *		suite_add_tcase(s, tc);
 *		return s;
 *	}
 *	USLAB_TEST_MAIN(something_suite)
 *
 * (tests/malloc/ has its own driver, tests/malloc/run.sh: its programs link
 * only this harness, the C library and Check, and run with the drop-in
 * preloaded.)
 *
 * Tests run under tools/run-tests.sh, which reads Check's summary line.  A
 * file holding the marker comment  uslab-test: threaded  (between C comment
 * delimiters) also runs in the ThreadSanitizer build, as tests/stress/ does.
 */
#ifndef USLAB_TESTS_COMMON_TEST_H
#define USLAB_TESTS_COMMON_TEST_H

#include <check.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>

/* Exit status of a test binary that does not apply to this build. */
#define USLAB_TEST_SKIPPED	77

/* The allocator this binary was built for: "slub", "slab" or "slob". */
const char *uslab_test_allocator(void);

/*
 * Run suite s with Check (forking per test unless CK_FORK=no), print Check's
 * summary and return the exit status for main: 0 iff every check passed.
 */
int uslab_test_run(Suite *s);

#define USLAB_TEST_MAIN(suite_fn)		\
	int main(void)				\
	{					\
		return uslab_test_run(suite_fn());	\
	}

/*
 * Leave at once with USLAB_TEST_SKIPPED after printing "SKIP: why", for a
 * binary that tests one allocator's own behaviour and was built for another.
 * Call it from main before any suite runs.
 */
__attribute__((noreturn)) void uslab_test_skip(const char *why);

/*
 * run_expect_abort - run fn(arg) in a child process and report how it ended.
 * @fn:     the code that is expected to die (e.g. a double free)
 * @arg:    passed to fn
 * @out:    receives the child's stderr, NUL-terminated, cut to outlen - 1
 *          bytes (may be NULL when outlen is 0)
 * @outlen: size of out
 *
 * The child's stderr goes into a pipe that the parent drains to the end, so
 * a long report never blocks the child.  The child writes no core file and
 * is killed by SIGALRM if it runs longer than USLAB_EXPECT_ABORT_SECONDS.
 *
 * Return: the signal that ended the child (SIGABRT for a uslab misuse
 * report), or minus its exit status (0 if fn returned).
 */
int run_expect_abort(void (*fn)(void *), void *arg, char *out, size_t outlen);

#define USLAB_EXPECT_ABORT_SECONDS	120

/* Readable name of a run_expect_abort() result, e.g. "SIGABRT", "exit 1". */
const char *uslab_test_describe_end(int how, char *buf, size_t len);

/*
 * ck_assert_aborts_with(fn, arg, needle): fn(arg) must end in SIGABRT and its
 * stderr must contain needle.  On failure, the message shows what the child
 * printed.
 */
#define ck_assert_aborts_with(fn, arg, needle)					\
	do {									\
		char _out[16384], _how[32];					\
		int _end = run_expect_abort((fn), (arg), _out, sizeof(_out));	\
										\
		ck_assert_msg(_end == SIGABRT,					\
			"%s: expected SIGABRT, got %s; stderr:\n%s", #fn,	\
			uslab_test_describe_end(_end, _how, sizeof(_how)), _out); \
		ck_assert_msg(strstr(_out, (needle)) != NULL,			\
			"%s: report lacks \"%s\"; stderr:\n%s", #fn,		\
			(needle), _out);					\
	} while (0)

#endif /* USLAB_TESTS_COMMON_TEST_H */
