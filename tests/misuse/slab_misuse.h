/* SPDX-License-Identifier: MIT */
/*
 * slab_misuse.h - what SLAB's and SLOB's misuse tests share: each misuse
 * runs in a child process (run_expect_abort) among "neighbours", other
 * objects of the same cache filled with a pattern of their own.  The child
 * records them in a shared page; when the report ends in abort(), a
 * SIGABRT handler looks at the neighbours one last time, so the parent
 * learns that nothing else was written before the report.  Under
 * slab_error=repair the child goes on, checks the neighbours itself and
 * records the error count.
 */
#ifndef USLAB_TESTS_MISUSE_SLAB_MISUSE_H
#define USLAB_TESTS_MISUSE_SLAB_MISUSE_H

#include "common/test.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include "mm/slab.h"

#define MISUSE_NEIGHBOURS	24	/* objects that must come through unharmed */
#define MISUSE_REPORT_LEN	32768	/* stderr kept from the child */

/* Shared between the child and the parent (a MAP_SHARED page). */
struct misuse {
	struct kmem_cache *cache;		/* the cache the child works in */
	int variant;				/* which misuse, for a child that does several */
	void *object;				/* the object misused */
	void *neighbour[MISUSE_NEIGHBOURS];	/* live objects with their pattern */
	unsigned int nr_neighbours;		/* entries of neighbour[] in use */
	size_t size;				/* bytes of each neighbour's pattern */
	int checked;				/* the neighbours were looked at */
	int intact;				/* ... and all held their pattern */
	int finished;				/* the child got past the misuse */
	unsigned long errors;			/* uslab_slab_errors() at the end */
};

static struct misuse *misuse_now;	/* the child's view, for its SIGABRT handler */

static inline unsigned char misuse_pattern(unsigned int i)
{
	return (unsigned char)(0x41 + i);
}

static inline struct misuse *misuse_new(void)
{
	struct misuse *m = mmap(NULL, sizeof(*m), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(m, MAP_FAILED);
	memset(m, 0, sizeof(*m));
	return m;
}

static inline void misuse_free(struct misuse *m)
{
	munmap(m, sizeof(*m));
}

/* Do all the neighbours still hold their pattern? */
static inline int misuse_neighbours_intact(const struct misuse *m)
{
	unsigned int i;
	size_t k;

	for (i = 0; i < m->nr_neighbours; i++)
		for (k = 0; k < m->size; k++)
			if (((const unsigned char *)m->neighbour[i])[k] != misuse_pattern(i))
				return 0;
	return 1;
}

static inline void misuse_on_abort(int sig)
{
	(void)sig;
	/* why only reads: the allocator may hold its locks while it aborts */
	misuse_now->intact = misuse_neighbours_intact(misuse_now);
	misuse_now->checked = 1;
}

/* In the child: nr live objects of m->cache, size bytes of pattern each. */
static inline void misuse_add_neighbours(struct misuse *m, unsigned int nr, size_t size)
{
	unsigned int i;

	m->size = size;
	for (i = 0; i < nr && m->nr_neighbours < MISUSE_NEIGHBOURS; i++) {
		unsigned int n = m->nr_neighbours++;

		m->neighbour[n] = kmem_cache_alloc(m->cache, GFP_KERNEL);
		memset(m->neighbour[n], misuse_pattern(n), size);
	}
	misuse_now = m;
	signal(SIGABRT, misuse_on_abort);
}

/* In the child, after the misuse was reported and repaired. */
static inline void misuse_finish(struct misuse *m)
{
	m->intact = misuse_neighbours_intact(m);
	m->checked = 1;
	m->errors = uslab_slab_errors();
	m->finished = 1;
}

/* "0x..." as the reports print a pointer. */
static inline const char *misuse_ptr(char *buf, size_t len, const void *p)
{
	snprintf(buf, len, "0x%lx", (unsigned long)(uintptr_t)p);
	return buf;
}

/* The report must hold every one of the NULL-terminated words. */
static inline void misuse_expect_words(const char *out, const char *const *words)
{
	for (; *words; words++)
		ck_assert_msg(strstr(out, *words) != NULL, "report lacks \"%s\"; stderr:\n%s",
			      *words, out);
}

/*
 * Run fn(m) in a child that must abort with a report holding words, its
 * neighbours intact at the abort.  out (MISUSE_REPORT_LEN bytes) gets the
 * report.
 */
static inline void misuse_expect_abort(void (*fn)(void *), struct misuse *m, char *out,
				const char *const *words)
{
	char how[32];
	int end = run_expect_abort(fn, m, out, MISUSE_REPORT_LEN);

	ck_assert_msg(end == SIGABRT, "expected SIGABRT, got %s; stderr:\n%s",
		      uslab_test_describe_end(end, how, sizeof(how)), out);
	ck_assert_msg(!m->finished, "the child went on after the report");
	misuse_expect_words(out, words);
	ck_assert_msg(m->checked && m->intact, "a neighbour was harmed before the report");
}

/*
 * Run fn(m) in a child that reports, repairs (slab_error=repair) and goes
 * on: it must exit 0 with errors counted, its neighbours intact.
 */
static inline void misuse_expect_repair(void (*fn)(void *), struct misuse *m, char *out,
				 const char *const *words, unsigned long errors)
{
	char how[32];
	int end = run_expect_abort(fn, m, out, MISUSE_REPORT_LEN);

	ck_assert_msg(end == 0, "expected a clean exit, got %s; stderr:\n%s",
		      uslab_test_describe_end(end, how, sizeof(how)), out);
	ck_assert_msg(m->finished, "the child stopped early; stderr:\n%s", out);
	misuse_expect_words(out, words);
	ck_assert_msg(m->intact, "a neighbour was harmed; stderr:\n%s", out);
	ck_assert_uint_eq(m->errors, errors);
}

#endif /* USLAB_TESTS_MISUSE_SLAB_MISUSE_H */
