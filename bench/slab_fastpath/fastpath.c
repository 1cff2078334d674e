/* SPDX-License-Identifier: MIT */
/*
 * fastpath.c - cost of one alloc+free pair on the fast path: the object
 * cache, kmalloc, or whatever malloc the process runs with (glibc, a peer or
 * uslab's drop-in through LD_PRELOAD), in the same batch pattern; api=floor
 * runs the pattern on the reference floor (api.h: a bare thread-local free
 * list behind two noinline calls), what no call-based allocator goes below.
 *
 * usage: fastpath [api=malloc|kmem_cache|kmalloc|floor] [size=64] [batch=64]
 *                 [time=0.25] [pairs=0] [threads=1]
 * Pattern: allocate a batch of objects, write one byte in each, free them in
 * allocation order; repeat.  Every thread runs this on its own objects, so
 * threads=N measures how the fast path scales (no object changes thread).
 * With pairs=N the run does exactly N pairs on one thread after the same
 * warm-up, all inside fastpath_measured(): the driver counts instructions
 * with callgrind --toggle-collect=fastpath_measured, which leaves start-up,
 * warm-up and exit out.
 * Prints "RESULT ns_per_pair <wall ns / pairs of all threads> ns"
 * and "RESULT peak_rss_kib <VmHWM> KiB".
 *
 * uslab-bench: malloc (also built malloc-only, see bench/bench.mk)
 */
#include <pthread.h>
#include <stdatomic.h>
#include "../common/api.h"

#define MAX_BATCH 4096
#define WARMUP_ROUNDS 1000
#define CHECK_EVERY 64		/* rounds between two looks at the clock */

static struct bench_api api;
static size_t obj_size, batch;
static uint64_t run_ns, start_ns, deadline_ns;
static pthread_barrier_t warm;
static atomic_ulong total_pairs;

static BENCH_ALWAYS_INLINE void run_rounds(enum bench_api_kind kind, unsigned long rounds)
{
	void *p[MAX_BATCH];

	for (unsigned long r = 0; r < rounds; r++) {
		for (size_t i = 0; i < batch; i++) {
			p[i] = bench_alloc(&api, kind, obj_size);
			bench_touch(p[i], i);
		}
		for (size_t i = 0; i < batch; i++)
			bench_free(&api, kind, p[i]);
	}
}

/* Whole chunks of CHECK_EVERY rounds until the deadline; returns the pairs. */
static BENCH_ALWAYS_INLINE void run_timed(enum bench_api_kind kind, unsigned long *pairs)
{
	unsigned long chunks = 0;

	do {
		run_rounds(kind, CHECK_EVERY);
		chunks++;
	} while (bench_now_ns() < deadline_ns);
	*pairs = chunks * CHECK_EVERY * batch;
}

/* Warm up (slabs exist, per-thread caches are filled), then time together:
 * thread 0 starts the clock once every thread is warm. */
static void thread_work(unsigned int i, void *arg)
{
	unsigned long pairs;

	(void)arg;
	BENCH_API_DISPATCH(api.kind, run_rounds, WARMUP_ROUNDS);
	pthread_barrier_wait(&warm);
	if (i == 0) {
		start_ns = bench_now_ns();
		deadline_ns = start_ns + run_ns;
	}
	pthread_barrier_wait(&warm);
	BENCH_API_DISPATCH(api.kind, run_timed, &pairs);
	atomic_fetch_add(&total_pairs, pairs);
}

/* The counted part of a pairs= run (external and noinline, so that its
 * name survives for callgrind's --toggle-collect). */
void fastpath_measured(unsigned long rounds);
__attribute__((noinline)) void fastpath_measured(unsigned long rounds)
{
	BENCH_API_DISPATCH(api.kind, run_rounds, rounds);
}

static struct bench_opt opts[] = {
	{ "api", "malloc", "malloc, kmem_cache, kmalloc or floor (bare free list)" },
	{ "size", "64", "object size in bytes" },
	{ "batch", "64", "objects allocated before they are freed (1..4096)" },
	{ "time", "0.25", "seconds to run (after a warm-up)" },
	{ "pairs", "0", "if not 0: exactly this many pairs on one thread, untimed" },
	{ "threads", "1", "threads, each on its own objects" },
	{ NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	unsigned long pairs, threads;

	bench_parse_opts(argc, argv, opts, "fastpath");
	obj_size = bench_opt_size(opts, "size");
	batch = bench_opt_size(opts, "batch");
	pairs = bench_opt_ul(opts, "pairs");
	threads = bench_opt_ul(opts, "threads");
	if (!obj_size || !batch || batch > MAX_BATCH || !threads || threads > 1024)
		bench_die("fastpath: need size > 0, batch in 1..%d, threads in 1..1024", MAX_BATCH);
	bench_api_init_floor(&api, opts, obj_size);
	if (api.kind == BENCH_BULK)
		bench_die("fastpath: api=bulk belongs to the batch benchmark");
	if (pairs) {
		BENCH_API_DISPATCH(api.kind, run_rounds, WARMUP_ROUNDS);
		fastpath_measured(pairs / batch);
		return 0;
	}
	run_ns = (uint64_t)(bench_opt_double(opts, "time") * 1e9);
	pthread_barrier_init(&warm, NULL, (unsigned int)threads);
	bench_run_threads((unsigned int)threads, thread_work, NULL);
	bench_result("ns_per_pair", (double)(bench_now_ns() - start_ns) / (double)total_pairs, "ns");
	bench_result("peak_rss_kib", (double)bench_peak_rss_kib(), "KiB");
	bench_api_exit(&api);
	return 0;
}
