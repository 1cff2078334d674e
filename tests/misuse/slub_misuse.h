/* SPDX-License-Identifier: MIT */
/*
 * slub_misuse.h - what the tests/misuse/slub_*.c programs share.
 *
 * Each program commits one misuse of a SLUB cache in a child process
 * (run_expect_abort) and checks the child's stderr for the kernel's words.
 * The child first allocates NEIGHBOURS objects from a cache named "victim",
 * each filled with its own byte pattern, and misuses object VICTIM:
 *   - under slab_error=abort (the default) the child must die of SIGABRT;
 *     its SIGABRT handler first checks that no other object was touched
 *     (exit status 3 if one was), so "nothing else harmed" holds at the
 *     moment of the report;
 *   - under slab_error=repair the child must go on: misuse_repaired_end()
 *     checks the error count, the neighbours, that validate finds nothing
 *     left to repair, and that the cache still works, then exits 0 (or
 *     with a status naming the failed check, said on stderr).
 * The options are set with parse_option_string() in the child, before the
 * cache is created, or the debug flags are passed at creation.
 */
#ifndef USLAB_TESTS_MISUSE_SLUB_MISUSE_H
#define USLAB_TESTS_MISUSE_SLUB_MISUSE_H

#include "common/test.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "mm/slab.h"

#define NEIGHBOURS	8	/* objects allocated from the victim cache */
#define VICTIM		3	/* the one misused */
#define OBJ_SIZE	64	/* their size */
#define REPORT_MAX	65536	/* stderr kept from a child */

/* How a child runs: options, creation flags, and the policy expected. */
struct misuse_run {
	const char *options;	/* parse_option_string() before the cache exists */
	slab_flags_t flags;	/* creation flags of the victim cache */
	bool repair;		/* the options ask for slab_error=repair */
};

/* The child's objects, for its SIGABRT handler and its final checks. */
static struct {
	struct kmem_cache *cache;		/* the victim cache */
	unsigned char *obj[NEIGHBOURS];		/* its objects */
} victims;

static inline unsigned char pattern_of(unsigned int i)
{
	return (unsigned char)(0x11 * (i + 1));
}

/* Are the objects other than skip still filled with their patterns? */
static inline bool neighbours_intact(unsigned int skip)
{
	unsigned int i, b;

	for (i = 0; i < NEIGHBOURS; i++)
		for (b = 0; i != skip && b < OBJ_SIZE; b++)
			if (victims.obj[i][b] != pattern_of(i))
				return false;
	return true;
}

static inline void child_fail(int status, const char *why)
{
	fprintf(stderr, "misuse child: %s\n", why);
	fflush(stderr);
	_exit(status);
}

/* In the abort: were the neighbours harmed before it? */
static inline void misuse_on_abort(int sig)
{
	static const char msg[] = "misuse child: a neighbour object was harmed\n";

	(void)sig;
	if (!neighbours_intact(VICTIM)) {
		if (write(2, msg, sizeof(msg) - 1) < 0)
			_exit(3);
		_exit(3);
	}
	signal(SIGABRT, SIG_DFL);	/* abort() raises again: the expected end */
}

/* Options, the victim cache, its objects, the abort check. */
static inline struct kmem_cache *misuse_setup(const struct misuse_run *run)
{
	unsigned int i;

	if (run->options && parse_option_string(run->options) != 0)
		child_fail(2, "options rejected");
	victims.cache = kmem_cache_create("victim", OBJ_SIZE, 0, run->flags, NULL);
	if (!victims.cache)
		child_fail(2, "no victim cache");
	for (i = 0; i < NEIGHBOURS; i++) {
		victims.obj[i] = kmem_cache_alloc(victims.cache, GFP_KERNEL);
		if (!victims.obj[i])
			child_fail(2, "allocation failed");
		memset(victims.obj[i], pattern_of(i), OBJ_SIZE);
	}
	signal(SIGABRT, misuse_on_abort);
	return victims.cache;
}

/*
 * Under slab_error=repair, after the misuse: errors counted, neighbours
 * intact, validate clean, the cache still serving.  victim_live: the
 * victim is still allocated (the misuse was refused), so it can be freed;
 * destroy: every object is back, so the cache must be destroyable.
 */
static inline void misuse_repaired_end(unsigned long errors, bool victim_live, bool destroy)
{
	struct kmem_cache *s = victims.cache;
	unsigned int i;
	void *more[4];

	if (uslab_slab_errors() != errors)
		child_fail(4, "wrong number of errors counted");
	if (!neighbours_intact(VICTIM))
		child_fail(5, "a neighbour object was harmed");
	if (kmem_cache_validate(s) > 0)
		child_fail(6, "validate still finds damage after the repair");
	for (i = 0; i < 4; i++)
		if (!(more[i] = kmem_cache_alloc(s, GFP_KERNEL)))
			child_fail(7, "the cache stopped serving");
	for (i = 0; i < 4; i++)
		kmem_cache_free(s, more[i]);
	for (i = 0; i < NEIGHBOURS; i++)
		if (i != VICTIM || victim_live)
			kmem_cache_free(s, victims.obj[i]);
	if (uslab_slab_errors() != errors || kmem_cache_validate(s) > 0)
		child_fail(8, "new errors after the repair");
	if (destroy && kmem_cache_shrink(s) != 0)
		child_fail(9, "objects left behind");
	if (destroy)
		kmem_cache_destroy(s);
	exit(0);
}

/* fn(run) must end as run->repair says, and stderr must hold every word. */
static inline void expect_report(void (*fn)(void *), const struct misuse_run *run,
			  const char *const *words)
{
	static char out[REPORT_MAX];
	char how[32];
	int end = run_expect_abort(fn, (void *)run, out, sizeof(out));

	if (run->repair)
		ck_assert_msg(end == 0, "expected the repaired child to exit 0, got %s; stderr:\n%s",
			      uslab_test_describe_end(end, how, sizeof(how)), out);
	else
		ck_assert_msg(end == SIGABRT, "expected SIGABRT, got %s; stderr:\n%s",
			      uslab_test_describe_end(end, how, sizeof(how)), out);
	for (; *words; words++)
		ck_assert_msg(strstr(out, *words), "report lacks \"%s\"; stderr:\n%s", *words, out);
}

#endif /* USLAB_TESTS_MISUSE_SLUB_MISUSE_H */
