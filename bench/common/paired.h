/* SPDX-License-Identifier: MIT */
/*
 * paired.h - a ratio of two sides of the same work measured in one process,
 * robust to a shared machine's fast and slow phases (debug_cost/paired:
 * hardened vs unhardened library; memcg mode=paired: plain vs accounted).
 *
 * 1. The method.  A chunk is a short piece of one side's work, timed alone
 *    (a few microseconds).  bench_paired_run runs pairs of chunks, one per
 *    side, side 0 first on even pairs and side 1 first on odd ones (ABBA:
 *    a steady drift within a pair, or the cost of being second, falls on
 *    each side equally), until its time is spent.  Each pair gives a ratio,
 *    side 1 ns / side 0 ns; the figure is the median of those ratios.
 * 2. Why in one process.  On a shared machine the CPU runs in fast and slow
 *    phases lasting tens of milliseconds.  Two programs run one after the
 *    other land in different phases, and their ratio measures the phases as
 *    much as the code (swings of 10% and more).  The two chunks of a pair
 *    are microseconds apart, so they nearly always share a phase, and the
 *    median of the pairs leaves out the few that straddle a change.
 * 3. Where the stack lies.  A chunk's arrays and the allocator's frames are
 *    on the stack, whose offset within a page is random per process.  When
 *    it lands on the page offset of a hot word of one side (4 KiB
 *    aliasing), that side slows by a quarter or more, and one process's
 *    ratio says more about its stack than its code.  So both chunks of a
 *    pair run padded deeper by the same amount, the pairs walking the 64
 *    cache lines of a page (ABBA holds within every offset), and the median
 *    is taken over all offsets alike.  What the walk cannot move (where the
 *    heap and its physical pages fall) still differs between processes:
 *    drivers take the median of many short runs.
 * 4. Results (bench_paired_print): "RESULT <side>_ns_per_pair" for each side
 *    (its median chunk), "RESULT ratio" (the median paired ratio, side 1 /
 *    side 0), "RESULT ratio_p25", "RESULT ratio_p75" (its quartiles: the
 *    spread of the pairs) and "RESULT pairs" (how many pairs ran).
 */
#ifndef USLAB_BENCH_PAIRED_H
#define USLAB_BENCH_PAIRED_H

#include <stddef.h>
#include <stdint.h>

#define BENCH_PAIRED_MAX 65536	/* pairs of chunks in one run, at most */

/* Run one chunk of side 0 or 1; called with the stack already padded, so
 * its frame and what it calls lie below the pad (3. above). */
typedef void bench_paired_chunk_fn(int side, void *arg);

/* One paired run.  The caller fills the first block; bench_paired_run
 * fills the rest.  Large (1.5 MiB): declare it static. */
struct bench_paired {
	bench_paired_chunk_fn *chunk;	/* the work of one chunk */
	void *arg;			/* chunk's second argument */
	double per_chunk;		/* units (alloc+free pairs) in one chunk */
	uint64_t run_ns;		/* run pairs of chunks until this is spent */

	size_t pairs;				/* pairs of chunks run */
	double chunk_ns[2][BENCH_PAIRED_MAX];	/* ns per unit of each chunk, by side */
	double ratio[BENCH_PAIRED_MAX];		/* per pair: side 1 / side 0 */
};

/* Run pairs of chunks, ABBA, with the stack walk, until run->run_ns is
 * spent (at least one pair, at most BENCH_PAIRED_MAX). */
void bench_paired_run(struct bench_paired *run);

/* The q-quantile (0..1) of v[0..n-1], n > 0, which it sorts; linear
 * between ranks. */
double bench_quantile(double *v, size_t n, double q);

/* Print the RESULT lines of 4. above; names[side] names each side's
 * ns_per_pair.  Sorts run's arrays (the pairing is lost). */
void bench_paired_print(struct bench_paired *run, const char *const names[2]);

#endif /* USLAB_BENCH_PAIRED_H */
