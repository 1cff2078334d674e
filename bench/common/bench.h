/* SPDX-License-Identifier: MIT */
/*
 * bench.h - timing helpers shared by the benchmarks.
 *
 * Every benchmark program measures one configuration per run and prints
 * machine-readable lines "RESULT <name> <value> <unit>"; the driver
 * (bench/run.py) runs the configurations interleaved, repeats them, and
 * reports medians and ratios.  Nothing here asserts a time.
 */
#ifndef USLAB_BENCH_H
#define USLAB_BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

static inline void bench_result(const char *name, double value, const char *unit)
{
	printf("RESULT %s %.4f %s\n", name, value, unit);
	fflush(stdout);
}

/* Parse a size argument with optional k/m suffix. */
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

/* Peak resident set size of this process in KiB (VmHWM), 0 if unknown. */
static inline long bench_peak_rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

#endif /* USLAB_BENCH_H */
