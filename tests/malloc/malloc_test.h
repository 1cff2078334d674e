/* SPDX-License-Identifier: MIT */
/*
 * malloc_test.h - helpers shared by the drop-in malloc's test programs.
 *
 * These programs are linked normally (against the C library only, plus
 * Check) and run by tests/malloc/run.sh with
 * LD_PRELOAD=BUILD/lib/libuslab-malloc-ALLOC.so, so every call below reaches
 * the drop-in exactly as it would in any unmodified program.  Each program
 * first checks that the drop-in really is the malloc in force.
 */
#ifndef USLAB_TESTS_MALLOC_TEST_H
#define USLAB_TESTS_MALLOC_TEST_H

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Path of the object that defines the malloc this program calls, or "?". */
static inline const char *malloc_provider(void)
{
	Dl_info info;
	void *(*volatile fn)(size_t) = malloc;

	if (!dladdr((void *)fn, &info) || !info.dli_fname)
		return "?";
	return info.dli_fname;
}

/* Does "libuslab-malloc-" define malloc here? */
static inline int malloc_is_uslab(void)
{
	return strstr(malloc_provider(), "libuslab-malloc-") != NULL;
}

/* Leave with status 2 and a clear message unless running under the drop-in. */
static inline void require_uslab_malloc(void)
{
	if (malloc_is_uslab())
		return;
	fprintf(stderr, "malloc comes from %s, not libuslab-malloc-*.so: "
		"run this test with LD_PRELOAD (tests/malloc/run.sh does)\n",
		malloc_provider());
	exit(2);
}

/* A byte pattern that depends on the block and the offset in it. */
static inline unsigned char pattern_byte(uintptr_t tag, size_t i)
{
	return (unsigned char)((tag * 131u) ^ (i * 7u) ^ (i >> 8));
}

static inline void pattern_fill(void *p, size_t n, uintptr_t tag)
{
	unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = pattern_byte(tag, i);
}

/* 1 if the block still holds its pattern. */
static inline int pattern_ok(const void *p, size_t n, uintptr_t tag)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != pattern_byte(tag, i))
			return 0;
	return 1;
}

/* Index of the first non-zero byte of p[0..n), or n if all are zero.
 * (One check per block: Check records every assertion it passes.) */
static inline size_t first_nonzero(const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n && !b[i]; i++)
		;
	return i;
}

/* Resident set size in bytes, from /proc/self/statm (0 if unreadable). */
static inline size_t rss_bytes(void)
{
	unsigned long size = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return 0;
	if (fscanf(f, "%lu %lu", &size, &resident) != 2)
		resident = 0;
	fclose(f);
	return resident * (size_t)sysconf(_SC_PAGESIZE);
}

/* A small, fast, deterministic generator (xorshift64*). */
static inline uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

#endif /* USLAB_TESTS_MALLOC_TEST_H */
