/* SPDX-License-Identifier: MIT */
/*
 * bench.h - helpers shared by the benchmark programs.
 *
 * 1. Overview.  Every benchmark program measures one configuration per run
 *    and prints machine-readable lines "RESULT <name> <value> <unit>"; the
 *    driver (bench/run.py, bench/driver/) runs the configurations interleaved,
 *    repeats them, and reports medians and ratios.  Nothing here asserts a
 *    time.
 * 2. Two builds of one source.  The Makefile builds bench/DIR/NAME.c once per
 *    allocator against libuslab-ALLOC.a (BENCH_USLAB=1, the default below);
 *    bench/bench.mk builds it once more with -DBENCH_USLAB=0 into
 *    BUILD/bench/malloc/DIR/NAME, a program that knows only malloc/free and
 *    links no uslab code at all, so that a peer under LD_PRELOAD runs with
 *    nothing of uslab in the process.  Code that calls uslab_* sits inside
 *    `#if BENCH_USLAB`.
 * 3. Arguments are key=value pairs declared in a table (struct bench_opt);
 *    an unknown key or a malformed number is an error with a usage message.
 * 4. Work is either fixed (a count: what callgrind and the memory workloads
 *    need) or bounded by time (time=SECONDS: the loop runs whole rounds until
 *    the time is spent, so a slow allocator costs the run no more time than a
 *    fast one).
 */
#ifndef USLAB_BENCH_H
#define USLAB_BENCH_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef BENCH_USLAB
#define BENCH_USLAB 1
#endif

#define BENCH_ALWAYS_INLINE inline __attribute__((always_inline))
#define BENCH_NORETURN __attribute__((noreturn))

/* ---- time and results ---- */

static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Keep the compiler from eliding work on p. */
static inline void bench_escape(void *p)
{
	__asm__ __volatile__("" : : "g"(p) : "memory");
}

/* Touch one byte of a fresh object, as a real user would. */
static inline void bench_touch(void *p, size_t i)
{
	*(volatile char *)p = (char)i;
}

/* A spinning thread's pause: the CPU hint first, then give the core away
 * (the machine may have fewer free cores than the benchmark has threads). */
static inline void bench_spin(unsigned int *spins)
{
	if (++*spins < 128) {
		__builtin_ia32_pause();
		return;
	}
	*spins = 0;
	sched_yield();
}

void bench_result(const char *name, double value, const char *unit);
BENCH_NORETURN void bench_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- arguments: key=value ---- */

struct bench_opt {
	const char *name;	/* the key */
	const char *value;	/* the default; the command line replaces it */
	const char *help;	/* one line of the usage message */
};

/* Fill opts (terminated by a NULL name) from argv[1..]; exits 2 on error. */
void bench_parse_opts(int argc, char **argv, struct bench_opt *opts, const char *what);
const char *bench_opt_str(const struct bench_opt *opts, const char *name);
unsigned long bench_opt_ul(const struct bench_opt *opts, const char *name);
double bench_opt_double(const struct bench_opt *opts, const char *name);
/* A count or size with an optional k/m/g suffix (powers of 1024). */
size_t bench_opt_size(const struct bench_opt *opts, const char *name);
/* Index of the option's value in choices (NULL-terminated); exits 2 if absent. */
int bench_opt_choice(const struct bench_opt *opts, const char *name, const char *const *choices);

/* A size with an optional k/m suffix, for programs that take positional
 * arguments (no error checking: prefer bench_opt_size). */
static inline size_t bench_parse_size(const char *s)
{
	char *end;
	size_t v = strtoull(s, &end, 0);

	if (*end == 'k' || *end == 'K')
		v <<= 10;
	else if (*end == 'm' || *end == 'M')
		v <<= 20;
	return v;
}

/* ---- deterministic randomness (splitmix64) ---- */

static inline uint64_t bench_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0. */
static inline uint64_t bench_rand_below(uint64_t *state, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)bench_rand(state) * n) >> 64);
}

/* A random permutation of 0..n-1 into perm. */
void bench_shuffle(uint32_t *perm, size_t n, uint64_t seed);

/* ---- memory ---- */

/* Resident set size of this process now (VmRSS) and at its peak (VmHWM),
 * in KiB; 0 if /proc cannot be read. */
long bench_rss_kib(void);
long bench_peak_rss_kib(void);

/* Zeroed memory straight from mmap, for a benchmark's own bookkeeping (so
 * that it never goes through the allocator being measured); exits on failure. */
void *bench_map(size_t bytes);
void bench_unmap(void *p, size_t bytes);

/* ---- threads ---- */

/* Run fn(i) on n threads (i = 0..n-1) released together; returns after all
 * have ended.  Thread 0 is a new thread too, so every thread is alike. */
void bench_run_threads(unsigned int n, void (*fn)(unsigned int i, void *arg), void *arg);

#endif /* USLAB_BENCH_H */
