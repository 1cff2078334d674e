/* SPDX-License-Identifier: MIT */
/*
 * fragment.c - memory held against memory used: a mixed-size working set
 * that shifts from small to larger objects, then shrinks to a long-lived
 * tenth scattered over everything the allocator has touched.
 *
 * usage: fragment [api=malloc|kmalloc] [live=32m] [churn=2] [seed=1]
 * Phases (fixed work, the same for every allocator):
 *   1. fill    small objects (16..1024 B, mostly under 256) up to `live` bytes
 *   2. churn   churn x count replacements of a random object by a small one
 *   3. shift   churn x count frees of a random object, each followed by new
 *              larger objects (256 B..16 KiB) until `live` bytes are in use
 *   4. drain   free random objects until a tenth of `live` is left
 * Live bytes are the bytes asked for.  The benchmark's own arrays are mmap'd
 * and touched before the start, so that they sit in the base.  Prints
 * (RESULT name value unit):
 *   base_rss_kib   VmRSS before the first allocation
 *   peak_rss_kib   VmHWM - base, and peak_live_kib, the most bytes live at once
 *   end_rss_kib    VmRSS after the drain - base, and end_live_kib, the bytes
 *                  still live
 *   peak_ratio     peak_rss / peak_live
 *   end_ratio      end_rss / end_live: memory held per byte used
 *   seconds        the wall time of the four phases
 *
 * uslab-bench: malloc (also built malloc-only, see bench/bench.mk)
 */
#include "../common/api.h"

struct working_set {
	void **obj;		/* the live objects, dense */
	size_t *size;		/* their sizes */
	size_t count;		/* entries in use */
	size_t cap;		/* entries allocated (mmap'd) */
	size_t live;		/* bytes live now */
	size_t peak_live;	/* most bytes live at once */
	uint64_t rng;		/* random state */
};

static struct bench_api api;
static struct working_set ws;

/* 60% 16..64, 30% 65..256, 10% 257..1024 bytes. */
static size_t small_size(uint64_t *rng)
{
	uint64_t r = bench_rand_below(rng, 10);

	if (r < 6)
		return 16 + (size_t)bench_rand_below(rng, 49);
	if (r < 9)
		return 65 + (size_t)bench_rand_below(rng, 192);
	return 257 + (size_t)bench_rand_below(rng, 768);
}

/* 50% 257..1024, 40% 1025..4096, 10% 4097..16384 bytes. */
static size_t large_size(uint64_t *rng)
{
	uint64_t r = bench_rand_below(rng, 10);

	if (r < 5)
		return 257 + (size_t)bench_rand_below(rng, 768);
	if (r < 9)
		return 1025 + (size_t)bench_rand_below(rng, 3072);
	return 4097 + (size_t)bench_rand_below(rng, 12288);
}

static BENCH_ALWAYS_INLINE void add(enum bench_api_kind kind, size_t size)
{
	char *p;

	if (ws.count == ws.cap)
		bench_die("fragment: working set overflow");
	p = bench_alloc(&api, kind, size);
	if (!p)
		bench_die("fragment: allocation of %zu bytes failed", size);
	p[0] = 1;
	p[size - 1] = 2;
	ws.obj[ws.count] = p;
	ws.size[ws.count++] = size;
	ws.live += size;
	if (ws.live > ws.peak_live)
		ws.peak_live = ws.live;
}

/* Free a random live object (swap-remove keeps the array dense). */
static BENCH_ALWAYS_INLINE void remove_random(enum bench_api_kind kind)
{
	size_t i = (size_t)bench_rand_below(&ws.rng, ws.count);

	bench_free(&api, kind, ws.obj[i]);
	ws.live -= ws.size[i];
	ws.count--;
	ws.obj[i] = ws.obj[ws.count];
	ws.size[i] = ws.size[ws.count];
}

static BENCH_ALWAYS_INLINE void run_phases(enum bench_api_kind kind, size_t target,
					   unsigned long churn)
{
	unsigned long n;

	while (ws.live < target)
		add(kind, small_size(&ws.rng));
	n = churn * ws.count;
	for (unsigned long k = 0; k < n; k++) {
		remove_random(kind);
		add(kind, small_size(&ws.rng));
	}
	for (unsigned long k = 0; k < n && ws.count; k++) {
		remove_random(kind);
		while (ws.live < target)
			add(kind, large_size(&ws.rng));
	}
	while (ws.live > target / 10 && ws.count)
		remove_random(kind);
}

static BENCH_ALWAYS_INLINE void free_all(enum bench_api_kind kind, int unused)
{
	(void)unused;
	while (ws.count)
		remove_random(kind);
}

static struct bench_opt opts[] = {
	{ "api", "malloc", "malloc or kmalloc" },
	{ "live", "32m", "bytes in the working set" },
	{ "churn", "2", "replacements per object in phases 2 and 3" },
	{ "seed", "1", "random seed" },
	{ NULL, NULL, NULL }
};

static void report(long base, uint64_t t0)
{
	long peak = bench_peak_rss_kib() - base, end = bench_rss_kib() - base;
	double peak_live = (double)ws.peak_live / 1024, end_live = (double)ws.live / 1024;

	bench_result("base_rss_kib", (double)base, "KiB");
	bench_result("peak_rss_kib", (double)peak, "KiB");
	bench_result("peak_live_kib", peak_live, "KiB");
	bench_result("end_rss_kib", (double)end, "KiB");
	bench_result("end_live_kib", end_live, "KiB");
	bench_result("peak_ratio", (double)peak / peak_live, "x");
	bench_result("end_ratio", (double)end / end_live, "x");
	bench_result("seconds", (double)(bench_now_ns() - t0) / 1e9, "s");
}

int main(int argc, char **argv)
{
	size_t target;
	long base;
	uint64_t t0;

	bench_parse_opts(argc, argv, opts, "fragment");
	target = bench_opt_size(opts, "live");
	if (target < (64u << 10))
		bench_die("fragment: live must be at least 64k");
	bench_api_init(&api, opts, 0);
	ws.cap = target / 16 + 16;
	ws.obj = bench_map(ws.cap * sizeof(*ws.obj));
	ws.size = bench_map(ws.cap * sizeof(*ws.size));
	memset(ws.obj, 1, ws.cap * sizeof(*ws.obj));	/* resident before the base */
	memset(ws.size, 1, ws.cap * sizeof(*ws.size));
	ws.rng = bench_opt_ul(opts, "seed");
	base = bench_rss_kib();
	t0 = bench_now_ns();
	BENCH_API_DISPATCH(api.kind, run_phases, target, bench_opt_ul(opts, "churn"));
	report(base, t0);
	BENCH_API_DISPATCH(api.kind, free_all, 0);
	bench_api_exit(&api);
	return 0;
}
