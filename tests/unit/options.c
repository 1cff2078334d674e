// SPDX-License-Identifier: MIT
/*
 * options.c - USLAB_OPTIONS parsing (src/mm/options.c): item splitting,
 * the kernel's matching rules, the reports on stderr, kstrtoul_opt, the
 * uslab_verbose option and the once-only parse of the environment.
 *
 * The options test_* below are registered by this file with __setup, in
 * the same "uslab_setup" section as the library's own, which shows that
 * the table is the linker section and not a list inside options.c.
 * Every test runs in its own process (Check forks), so state set by one
 * parse never leaks into another test.
 */
/* uslab-test: threaded */
#include "common/test.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "mm/internal.h"

static unsigned long test_num;		/* last value accepted by test_num= */
static int test_num_calls;		/* times test_num= was handed a value */
static int test_flag_count;		/* times the bare test_flag was seen */
static char test_list[2048];		/* last value of test_list= */

static int setup_test_num(const char *val)
{
	test_num_calls++;
	return kstrtoul_opt(val, &test_num) ? -1 : 0;
}
__setup("test_num=", setup_test_num);

static int setup_test_flag(const char *val)
{
	ck_assert_str_eq(val, "");
	__atomic_add_fetch(&test_flag_count, 1, __ATOMIC_RELAXED);
	return 0;
}
__setup("test_flag", setup_test_flag);

static int setup_test_list(const char *val)
{
	snprintf(test_list, sizeof(test_list), "%s", val);
	return 0;
}
__setup("test_list=", setup_test_list);

/* Parse opts with stderr captured into out; returns the rejected count. */
static int parse_capture(const char *opts, char *out, size_t outlen)
{
	int fds[2], saved, rejected;
	size_t used = 0;
	ssize_t n;

	ck_assert_int_eq(pipe(fds), 0);
	saved = dup(STDERR_FILENO);
	ck_assert_int_ge(saved, 0);
	ck_assert_int_ge(dup2(fds[1], STDERR_FILENO), 0);
	close(fds[1]);
	rejected = parse_option_string(opts);
	dup2(saved, STDERR_FILENO);
	close(saved);
	/* why: every write end is closed now, so read() ends at EOF */
	while (used + 1 < outlen && (n = read(fds[0], out + used, outlen - used - 1)) > 0)
		used += (size_t)n;
	out[used] = '\0';
	close(fds[0]);
	return rejected;
}

/* ---- matching and values ---- */

START_TEST(test_known_options)
{
	char err[4096];

	ck_assert_int_eq(parse_capture("test_flag test_num=42 test_list=abc", err, sizeof(err)), 0);
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(test_flag_count, 1);
	ck_assert_uint_eq(test_num, 42);
	ck_assert_str_eq(test_list, "abc");
}
END_TEST

START_TEST(test_slub_debug_like_value)
{
	char err[4096];

	ck_assert_int_eq(parse_capture("test_list=FZ,kmalloc-64,dentry*;P,other test_flag",
				       err, sizeof(err)), 0);
	ck_assert_str_eq(err, "");
	ck_assert_str_eq(test_list, "FZ,kmalloc-64,dentry*;P,other");
	ck_assert_int_eq(test_flag_count, 1);
	/* '=' inside a value belongs to the value */
	ck_assert_int_eq(parse_capture("test_list=a=b,c=d", err, sizeof(err)), 0);
	ck_assert_str_eq(test_list, "a=b,c=d");
	ck_assert_int_eq(parse_capture("test_list=", err, sizeof(err)), 0);
	ck_assert_str_eq(test_list, "");
}
END_TEST

START_TEST(test_whitespace_splits)
{
	char err[4096];

	ck_assert_int_eq(parse_capture("  \ttest_flag\n\ntest_num=7\r\v\f test_flag  ", err,
				       sizeof(err)), 0);
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(test_flag_count, 2);
	ck_assert_uint_eq(test_num, 7);
	ck_assert_int_eq(parse_capture("", err, sizeof(err)), 0);
	ck_assert_int_eq(parse_capture(" \t\n", err, sizeof(err)), 0);
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(parse_option_string(NULL), 0);
}
END_TEST

START_TEST(test_quotes_protect_whitespace)
{
	char err[4096];

	ck_assert_int_eq(parse_capture("test_list=\"a b\tc\" test_flag", err, sizeof(err)), 0);
	ck_assert_str_eq(err, "");
	ck_assert_str_eq(test_list, "a b\tc");
	ck_assert_int_eq(test_flag_count, 1);
	ck_assert_int_eq(parse_capture("test_list=\"open test_flag", err, sizeof(err)), 1);
	ck_assert_str_eq(err, "uslab: unterminated quote in option 'test_list=open test_flag' ignored\n");
	ck_assert_int_eq(test_flag_count, 1);
	ck_assert_str_eq(test_list, "a b\tc");
}
END_TEST

/* ---- reports ---- */

START_TEST(test_unknown_reported)
{
	char err[4096];

	ck_assert_int_eq(parse_capture("no_such_option test_flag bogus=1,2", err, sizeof(err)), 2);
	ck_assert_str_eq(err, "uslab: unknown option 'no_such_option' ignored\n"
			      "uslab: unknown option 'bogus=1,2' ignored\n");
	ck_assert_int_eq(test_flag_count, 1);
	/* a known name as a prefix of a longer one is not a match */
	ck_assert_int_eq(parse_capture("test_flagx test_num_x=1", err, sizeof(err)), 2);
	ck_assert_str_eq(err, "uslab: unknown option 'test_flagx' ignored\n"
			      "uslab: unknown option 'test_num_x=1' ignored\n");
	ck_assert_int_eq(test_flag_count, 1);
	ck_assert_int_eq(test_num_calls, 0);
}
END_TEST

START_TEST(test_malformed_reported)
{
	char err[4096];

	ck_assert_int_eq(parse_capture("test_num=5", err, sizeof(err)), 0);
	ck_assert_int_eq(parse_capture("test_num=12abc test_num= test_num=0x", err, sizeof(err)), 3);
	ck_assert_str_eq(err, "uslab: bad value for option 'test_num': '12abc'\n"
			      "uslab: bad value for option 'test_num': ''\n"
			      "uslab: bad value for option 'test_num': '0x'\n");
	ck_assert_uint_eq(test_num, 5);	/* a rejected value changes nothing */
	ck_assert_int_eq(parse_capture("test_num=99999999999999999999", err, sizeof(err)), 1);
	ck_assert_str_eq(err, "uslab: bad value for option 'test_num': '99999999999999999999'\n");
	ck_assert_uint_eq(test_num, 5);
}
END_TEST

START_TEST(test_wrong_form_reported)
{
	char err[4096];

	/* a bare flag given a value, and a valued option given none */
	ck_assert_int_eq(parse_capture("test_flag=1 test_num", err, sizeof(err)), 2);
	ck_assert_str_eq(err, "uslab: bad value for option 'test_flag': '1'\n"
			      "uslab: option 'test_num' needs a value (test_num=...)\n");
	ck_assert_int_eq(test_flag_count, 0);
	ck_assert_int_eq(test_num_calls, 0);
}
END_TEST

START_TEST(test_long_item_reported)
{
	static char opts[3000];
	char err[4096];

	memcpy(opts, "test_list=", 10);
	memset(opts + 10, 'x', 1500);
	strcpy(opts + 1510, " test_flag");
	ck_assert_int_eq(parse_capture(opts, err, sizeof(err)), 1);
	ck_assert_msg(strstr(err, "uslab: option 'test_list=xxxx") == err, "report: %s", err);
	ck_assert_msg(strstr(err, "...' longer than 1023 characters ignored\n"), "report: %s", err);
	ck_assert_str_eq(test_list, "");	/* never handed a cut value */
	ck_assert_int_eq(test_flag_count, 1);	/* the next item is still parsed */
	/* 1023 characters still fit */
	memset(opts + 10, 'y', 1013);
	opts[1023] = '\0';
	ck_assert_int_eq(parse_capture(opts, err, sizeof(err)), 0);
	ck_assert_uint_eq(strlen(test_list), 1013);
}
END_TEST

/* ---- kstrtoul_opt ---- */

struct num_case {
	const char *text;	/* input */
	int ret;		/* expected return */
	unsigned long value;	/* expected value when ret == 0 */
};

static const struct num_case num_cases[] = {
	{ "0", 0, 0 }, { "42", 0, 42 }, { "007", 0, 7 },
	{ "0x1f", 0, 31 }, { "0X1F", 0, 31 }, { "0xdeadBEEF", 0, 0xdeadbeefUL },
	{ "4K", 0, 4096 }, { "4k", 0, 4096 }, { "2M", 0, 2UL << 20 }, { "3m", 0, 3UL << 20 },
	{ "1G", 0, 1UL << 30 }, { "5g", 0, 5UL << 30 }, { "0x10K", 0, 16UL << 10 },
	{ "18446744073709551615", 0, ULONG_MAX }, { "0xffffffffffffffff", 0, ULONG_MAX },
	{ "17179869183G", 0, 17179869183UL << 30 },
	{ "18446744073709551616", -ERANGE, 0 }, { "0x10000000000000000", -ERANGE, 0 },
	{ "17179869184G", -ERANGE, 0 }, { "18014398509481984K", -ERANGE, 0 },
	{ "", -EINVAL, 0 }, { "x", -EINVAL, 0 }, { "0x", -EINVAL, 0 }, { "K", -EINVAL, 0 },
	{ "-1", -EINVAL, 0 }, { "+1", -EINVAL, 0 }, { " 1", -EINVAL, 0 }, { "1 ", -EINVAL, 0 },
	{ "12K5", -EINVAL, 0 }, { "1KB", -EINVAL, 0 }, { "1T", -EINVAL, 0 }, { "0x1g2", -EINVAL, 0 },
	{ "12abc", -EINVAL, 0 }, { "0xg", -EINVAL, 0 }, { "1.5M", -EINVAL, 0 },
};

START_TEST(test_kstrtoul_opt)
{
	const struct num_case *c = &num_cases[_i];
	unsigned long v = 12345;
	int ret = kstrtoul_opt(c->text, &v);

	ck_assert_msg(ret == c->ret, "kstrtoul_opt(\"%s\") returned %d, expected %d",
		      c->text, ret, c->ret);
	ck_assert_msg(v == (c->ret ? 12345 : c->value), "kstrtoul_opt(\"%s\") set %lu",
		      c->text, v);
}
END_TEST

START_TEST(test_kstrtoul_opt_null)
{
	unsigned long v = 1;

	ck_assert_int_eq(kstrtoul_opt(NULL, &v), -EINVAL);
	ck_assert_uint_eq(v, 1);
}
END_TEST

/* ---- uslab_verbose ---- */

START_TEST(test_verbose_echoes_accepted)
{
	char err[4096];

	ck_assert_int_eq(parse_capture("test_flag uslab_verbose test_num=3 nope", err, sizeof(err)), 1);
	ck_assert_str_eq(err, "uslab: option 'uslab_verbose' accepted\n"
			      "uslab: option 'test_num=3' accepted\n"
			      "uslab: unknown option 'nope' ignored\n");
	ck_assert_int_eq(parse_capture("uslab_verbose=0 test_flag", err, sizeof(err)), 0);
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(parse_capture("uslab_verbose=1 uslab_verbose=2 uslab_verbose=x", err,
				       sizeof(err)), 2);
	ck_assert_str_eq(err, "uslab: option 'uslab_verbose=1' accepted\n"
			      "uslab: bad value for option 'uslab_verbose': '2'\n"
			      "uslab: bad value for option 'uslab_verbose': 'x'\n");
}
END_TEST

/* ---- USLAB_OPTIONS, once ---- */

static void *parse_early_thread(void *arg)
{
	(void)arg;
	parse_early_options();
	return NULL;
}

START_TEST(test_early_options_once)
{
	pthread_t threads[4];
	int fds[2], saved, i;
	char err[4096];
	ssize_t n;

	ck_assert_int_eq(setenv("USLAB_OPTIONS", "test_flag test_num=0x20 not_an_option", 1), 0);
	ck_assert_int_eq(pipe(fds), 0);
	saved = dup(STDERR_FILENO);
	dup2(fds[1], STDERR_FILENO);
	close(fds[1]);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&threads[i], NULL, parse_early_thread, NULL), 0);
	parse_early_options();
	for (i = 0; i < 4; i++)
		pthread_join(threads[i], NULL);
	parse_early_options();
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = read(fds[0], err, sizeof(err) - 1);
	close(fds[0]);
	err[n > 0 ? n : 0] = '\0';
	ck_assert_int_eq(test_flag_count, 1);
	ck_assert_uint_eq(test_num, 32);
	ck_assert_str_eq(err, "uslab: unknown option 'not_an_option' ignored\n");
}
END_TEST

START_TEST(test_early_options_unset)
{
	char err[16];

	ck_assert_int_eq(unsetenv("USLAB_OPTIONS"), 0);
	parse_early_options();
	ck_assert_int_eq(test_flag_count, 0);
	ck_assert_int_eq(parse_capture("", err, sizeof(err)), 0);
}
END_TEST

static Suite *options_suite(void)
{
	Suite *s = suite_create("options");
	TCase *parse = tcase_create("parse");
	TCase *numbers = tcase_create("kstrtoul_opt");
	TCase *env = tcase_create("environment");

	tcase_add_test(parse, test_known_options);
	tcase_add_test(parse, test_slub_debug_like_value);
	tcase_add_test(parse, test_whitespace_splits);
	tcase_add_test(parse, test_quotes_protect_whitespace);
	tcase_add_test(parse, test_unknown_reported);
	tcase_add_test(parse, test_malformed_reported);
	tcase_add_test(parse, test_wrong_form_reported);
	tcase_add_test(parse, test_long_item_reported);
	tcase_add_test(parse, test_verbose_echoes_accepted);
	tcase_add_loop_test(numbers, test_kstrtoul_opt, 0, (int)ARRAY_SIZE(num_cases));
	tcase_add_test(numbers, test_kstrtoul_opt_null);
	tcase_add_test(env, test_early_options_once);
	tcase_add_test(env, test_early_options_unset);
	suite_add_tcase(s, parse);
	suite_add_tcase(s, numbers);
	suite_add_tcase(s, env);
	return s;
}
USLAB_TEST_MAIN(options_suite)
