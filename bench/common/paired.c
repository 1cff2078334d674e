/* SPDX-License-Identifier: MIT */
/*
 * paired.c - pairs of timed chunks, ABBA, with the stack walked through a
 * page: the method is in paired.h.  Uses nothing of uslab (it is linked
 * into the malloc-only builds and into debug_cost/paired, which loads its
 * libraries with dlopen).
 */
#include <stdio.h>
#include <stdlib.h>
#include "bench.h"
#include "paired.h"

#define STACK_STEP 64		/* bytes: a cache line */
#define STACK_STEPS 64		/* offsets walked: 64 lines, a 4 KiB page */

/* One chunk of side with the stack pad bytes deeper (paired.h, 3.).
 * why noinline: the chunk's frame must sit below this one's alloca */
static __attribute__((noinline)) void chunk_at(const struct bench_paired *run, int side,
					       size_t pad)
{
	char *room = __builtin_alloca(pad + 16);

	bench_escape(room);	/* why: an unused alloca may be dropped */
	run->chunk(side, run->arg);
}

/* One chunk of side, timed: its ns per unit go to chunk_ns[side][n]. */
static void time_chunk(struct bench_paired *run, int side, size_t n, size_t pad)
{
	uint64_t t0 = bench_now_ns();

	chunk_at(run, side, pad);
	run->chunk_ns[side][n] = (double)(bench_now_ns() - t0) / run->per_chunk;
}

void bench_paired_run(struct bench_paired *run)
{
	uint64_t end = bench_now_ns() + run->run_ns;
	size_t n = 0;

	do {
		int first = (int)(n & 1);	/* why alternate: being first must not favour a side */
		/* both chunks of a pair at one stack offset; pairs walk a page's lines */
		size_t pad = (n / 2 % STACK_STEPS) * STACK_STEP;

		time_chunk(run, first, n, pad);
		time_chunk(run, !first, n, pad);
		run->ratio[n] = run->chunk_ns[1][n] / run->chunk_ns[0][n];
		n++;
	} while (n < BENCH_PAIRED_MAX && bench_now_ns() < end);
	run->pairs = n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bench_quantile(double *v, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t lo = (size_t)pos;

	qsort(v, n, sizeof(*v), cmp_double);
	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + (v[lo + 1] - v[lo]) * (pos - (double)lo);
}

void bench_paired_print(struct bench_paired *run, const char *const names[2])
{
	size_t n = run->pairs;
	char name[64];

	for (int side = 0; side < 2; side++) {
		snprintf(name, sizeof(name), "%s_ns_per_pair", names[side]);
		bench_result(name, bench_quantile(run->chunk_ns[side], n, 0.5), "ns");
	}
	bench_result("ratio", bench_quantile(run->ratio, n, 0.5), "x");
	bench_result("ratio_p25", bench_quantile(run->ratio, n, 0.25), "x");
	bench_result("ratio_p75", bench_quantile(run->ratio, n, 0.75), "x");
	bench_result("pairs", (double)n, "pairs");
}
