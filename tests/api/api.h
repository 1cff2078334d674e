/* SPDX-License-Identifier: MIT */
/*
 * api.h - helpers shared by the tests of tests/api/ (the public kernel-name
 * API, through <uslab/slab.h> only).
 *
 *  - allocator_is(name): the allocator this binary runs on, asked of the
 *    library (uslab_allocator_name), so a test checks what it really runs.
 *  - stderr capture: the library's reports go to file descriptor 2; a test
 *    redirects it to a temporary file around the call and reads it back.
 *  - scenarios: a piece of a test that must run in a fresh process, with
 *    its own USLAB_OPTIONS (options are read once, at the library's first
 *    use).  The test binary re-executes itself with USLAB_API_SCENARIO set;
 *    API_TEST_MAIN runs the named scenario instead of the suite, and its
 *    return value is the exit status (0 = passed; a failing check prints
 *    why on stderr first).
 */
#ifndef USLAB_TESTS_API_API_H
#define USLAB_TESTS_API_API_H

#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uslab/slab.h>
#include "common/test.h"

static inline int allocator_is(const char *name)
{
	return strcmp(uslab_allocator_name(), name) == 0;
}

/* ---- stderr capture ---- */

struct stderr_capture {
	FILE *file;		/* where fd 2 points meanwhile */
	int saved_fd;		/* the real stderr */
};

static inline void stderr_capture_begin(struct stderr_capture *c)
{
	fflush(stderr);
	c->file = tmpfile();
	ck_assert_ptr_nonnull(c->file);
	c->saved_fd = dup(STDERR_FILENO);
	ck_assert_int_ge(c->saved_fd, 0);
	ck_assert_int_ge(dup2(fileno(c->file), STDERR_FILENO), 0);
}

/* Restore stderr; out gets what was written (NUL-terminated, cut to len - 1). */
static inline char *stderr_capture_end(struct stderr_capture *c, char *out, size_t len)
{
	size_t n;

	fflush(stderr);
	dup2(c->saved_fd, STDERR_FILENO);
	close(c->saved_fd);
	rewind(c->file);
	n = fread(out, 1, len - 1, c->file);
	out[n] = '\0';
	fclose(c->file);
	return out;
}

/* ---- scenarios in a fresh process ---- */

struct api_scenario {
	const char *name;	/* value of USLAB_API_SCENARIO */
	int (*fn)(void);	/* exit status: 0 = passed */
};

struct scenario_exec {
	const char *name;
	const char *options;	/* USLAB_OPTIONS of the child; NULL = unset */
};

static inline void scenario_exec_child(void *arg)
{
	const struct scenario_exec *e = (const struct scenario_exec *)arg;

	setenv("USLAB_API_SCENARIO", e->name, 1);
	if (e->options)
		setenv("USLAB_OPTIONS", e->options, 1);
	else
		unsetenv("USLAB_OPTIONS");
	execl("/proc/self/exe", "api-scenario", (char *)NULL);
	perror("execl /proc/self/exe");
	_exit(127);
}

/*
 * Run scenario name in a new process of this binary with USLAB_OPTIONS set
 * to options.  Returns as run_expect_abort(): the signal that ended it, or
 * minus its exit status; out receives its stderr.
 */
static inline int run_scenario(const char *name, const char *options, char *out, size_t len)
{
	struct scenario_exec e = { name, options };

	return run_expect_abort(scenario_exec_child, &e, out, len);
}

/* Inside a scenario: fail with a message (the parent shows the child's stderr). */
#define SCENARIO_CHECK(cond)							\
	do {									\
		if (!(cond)) {							\
			fprintf(stderr, "scenario check failed: %s (%s:%d)\n",	\
				#cond, __FILE__, __LINE__);			\
			return 1;						\
		}								\
	} while (0)

/* ck_assert that scenario name passed (exit 0), showing its stderr if not. */
#define ck_assert_scenario(name, options)					\
	do {									\
		char _out[16384], _how[32];					\
		int _end = run_scenario((name), (options), _out, sizeof(_out));	\
										\
		ck_assert_msg(_end == 0, "scenario %s (USLAB_OPTIONS=%s) ended with %s; stderr:\n%.3000s", \
			      (name), (options) ? (options) : "", 		\
			      uslab_test_describe_end(_end, _how, sizeof(_how)), _out); \
	} while (0)

static inline int api_run_named_scenario(const char *name, const struct api_scenario *sc,
					 size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(sc[i].name, name) == 0)
			return sc[i].fn();
	fprintf(stderr, "no scenario named %s\n", name);
	return 126;
}

/* main(): the suite, or one scenario when re-executed by run_scenario(). */
#define API_TEST_MAIN(suite_fn, scenarios)					\
	int main(void)								\
	{									\
		const char *_sc = getenv("USLAB_API_SCENARIO");			\
										\
		if (_sc)							\
			return api_run_named_scenario(_sc, (scenarios),		\
				sizeof(scenarios) / sizeof((scenarios)[0]));	\
		return uslab_test_run(suite_fn());				\
	}

#endif /* USLAB_TESTS_API_API_H */
