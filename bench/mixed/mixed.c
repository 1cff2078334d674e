/* SPDX-License-Identifier: MIT */
/*
 * mixed.c - one thread, objects of mixed sizes with random lifetimes: a set
 * of slots, each holding an object whose size is drawn log-uniformly from
 * min..max (each power-of-two range as likely as any other, so small
 * objects are the most common and the large ones hold most of the memory,
 * as in most programs), and a random slot's object replaced again and
 * again.  Wider ranges than the Larson section's reach kmalloc's large
 * blocks (the page allocator) and their reuse.
 *
 * usage: mixed [api=malloc|kmalloc] [slots=10000] [min=16] [max=1024]
 *              [time=0.25]
 * The slots are filled first, then one pass of replacements warms up, then
 * the timed replacements run.  Each new object has its first and last byte
 * written.  Prints "RESULT ns_per_op <ns per free+alloc> ns" and
 * "RESULT peak_rss_kib <VmHWM> KiB".
 *
 * uslab-bench: malloc (also built malloc-only, see bench/bench.mk)
 */
#include "../common/api.h"

static struct bench_api api;
static size_t nslots, min_size, max_size;
static void **slot;
static unsigned int lo_bit, nr_bits;	/* power-of-two ranges of sizes */

/* A size in min..max: a random power-of-two range [2^b, 2^(b+1)) of those
 * that hold a size in min..max - 1, then a size in it, raised to min or
 * cut to max where the range passes them. */
static BENCH_ALWAYS_INLINE size_t random_size(uint64_t *rng)
{
	unsigned int b = lo_bit + (unsigned int)bench_rand_below(rng, nr_bits);
	size_t from = (size_t)1 << b, size;

	size = from + (size_t)bench_rand_below(rng, from);
	if (size < min_size)
		size = min_size;
	return size > max_size ? max_size : size;
}

static BENCH_ALWAYS_INLINE void *new_object(enum bench_api_kind kind, uint64_t *rng)
{
	return bench_alloc_touched(&api, kind, random_size(rng), "mixed");
}

/* Replace random slots' objects, n of them (n == 0: until the deadline, in
 * steps of 256); *donep gets how many. */
static BENCH_ALWAYS_INLINE void replace(enum bench_api_kind kind, uint64_t *rng,
					unsigned long n, uint64_t deadline, unsigned long *donep)
{
	unsigned long done = 0;

	do {
		for (unsigned int k = 0; k < 256; k++) {
			size_t i = (size_t)bench_rand_below(rng, nslots);

			bench_free(&api, kind, slot[i]);
			slot[i] = new_object(kind, rng);
		}
		done += 256;
	} while (n ? done < n : bench_now_ns() < deadline);
	*donep = done;
}

static BENCH_ALWAYS_INLINE void fill(enum bench_api_kind kind, uint64_t *rng)
{
	for (size_t i = 0; i < nslots; i++)
		slot[i] = new_object(kind, rng);
}

static BENCH_ALWAYS_INLINE void empty(enum bench_api_kind kind, size_t n)
{
	for (size_t i = 0; i < n; i++)
		bench_free(&api, kind, slot[i]);
}

static struct bench_opt opts[] = {
	{ "api", "malloc", "malloc or kmalloc" },
	{ "slots", "10000", "objects alive at once" },
	{ "min", "16", "smallest object size" },
	{ "max", "1024", "largest object size" },
	{ "time", "0.25", "seconds to run (after one warm-up pass)" },
	{ NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	uint64_t rng = 42, t0;
	unsigned long ops = 0;

	bench_parse_opts(argc, argv, opts, "mixed");
	nslots = bench_opt_size(opts, "slots");
	min_size = bench_opt_size(opts, "min");
	max_size = bench_opt_size(opts, "max");
	if (!nslots || !min_size || max_size < min_size || max_size > (1UL << 40))
		bench_die("mixed: need slots > 0 and 0 < min <= max <= 2^40");
	lo_bit = 63 - (unsigned int)__builtin_clzl(min_size);
	/* why max - 1: a max that is a power of two would else start a range
	 * of its own, every size of which is cut to max */
	nr_bits = max_size > min_size ? 64 - (unsigned int)__builtin_clzl(max_size - 1) - lo_bit : 1;
	bench_api_init(&api, opts, 0);
	slot = bench_map(nslots * sizeof(void *));
	BENCH_API_DISPATCH(api.kind, fill, &rng);
	BENCH_API_DISPATCH(api.kind, replace, &rng, nslots, 0, &ops);	/* warm up */
	t0 = bench_now_ns();
	BENCH_API_DISPATCH(api.kind, replace, &rng, 0,
			   t0 + (uint64_t)(bench_opt_double(opts, "time") * 1e9), &ops);
	bench_result("ns_per_op", (double)(bench_now_ns() - t0) / (double)ops, "ns");
	bench_result("peak_rss_kib", (double)bench_peak_rss_kib(), "KiB");
	BENCH_API_DISPATCH(api.kind, empty, nslots);
	bench_api_exit(&api);
	return 0;
}
