/* SPDX-License-Identifier: MIT */
/*
 * batch.c - allocate N objects, then free them all, in a given order.
 *
 * usage: batch [api=malloc|kmem_cache|kmalloc|bulk] [size=64] [n=1000]
 *              [order=fifo|lifo|random] [time=0.25] [rounds=0]
 *   fifo    free in allocation order
 *   lifo    free the newest first
 *   random  free in a random order (one permutation, drawn before timing)
 *   api=bulk allocates with one kmem_cache_alloc_bulk call and frees with one
 *   kmem_cache_free_bulk (in the order given); the other interfaces loop.
 * Large N runs past every per-CPU cache: slabs are made and emptied.
 * Prints "RESULT ns_per_object <ns per alloc+free> ns"
 * and "RESULT peak_rss_kib <VmHWM> KiB".
 *
 * uslab-bench: malloc (also built malloc-only, see bench/bench.mk)
 */
#include "../common/api.h"

enum order { FIFO, LIFO, RANDOM };

static struct bench_api api;
static size_t obj_size, nr;
static void **objs, **order_buf;
static uint32_t *perm;

/* The objects in the order they are to be freed, built in order_buf. */
static BENCH_ALWAYS_INLINE void **arrange(enum order order)
{
	if (order == FIFO)
		return objs;
	for (size_t i = 0; i < nr; i++)
		order_buf[i] = objs[order == LIFO ? nr - 1 - i : perm[i]];
	return order_buf;
}

static BENCH_ALWAYS_INLINE void run_round(enum bench_api_kind kind, enum order order)
{
	void **p;

	bench_alloc_many(&api, kind, obj_size, objs, nr);
	for (size_t i = 0; i < nr; i++)
		bench_touch(objs[i], i);
	p = arrange(order);
	bench_free_many(&api, kind, p, nr);
}

/* rounds rounds, or (rounds == 0) whole rounds until the deadline; *done
 * gets the number run. */
static BENCH_ALWAYS_INLINE void run_rounds(enum bench_api_kind kind, enum order order,
					   unsigned long rounds, uint64_t deadline,
					   unsigned long *done)
{
	unsigned long r = 0;

	while (rounds ? r < rounds : bench_now_ns() < deadline) {
		run_round(kind, order);
		r++;
	}
	*done = r;
}

static struct bench_opt opts[] = {
	{ "api", "malloc", "malloc, kmem_cache, kmalloc or bulk" },
	{ "size", "64", "object size in bytes" },
	{ "n", "1000", "objects per batch" },
	{ "order", "fifo", "fifo, lifo or random: the order of the frees" },
	{ "time", "0.25", "seconds to run (after one warm-up round)" },
	{ "rounds", "0", "if not 0: exactly this many rounds, untimed" },
	{ NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	static const char *const orders[] = { "fifo", "lifo", "random", NULL };
	enum order order;
	unsigned long rounds, done;
	uint64_t t0;

	bench_parse_opts(argc, argv, opts, "batch");
	obj_size = bench_opt_size(opts, "size");
	nr = bench_opt_size(opts, "n");
	order = (enum order)bench_opt_choice(opts, "order", orders);
	rounds = bench_opt_ul(opts, "rounds");
	if (!obj_size || !nr || nr > (1u << 30))
		bench_die("batch: need size > 0 and n in 1..2^30");
	bench_api_init(&api, opts, obj_size);
	objs = bench_map(nr * sizeof(*objs));
	order_buf = bench_map(nr * sizeof(*order_buf));
	perm = bench_map(nr * sizeof(*perm));
	bench_shuffle(perm, nr, 42);
	BENCH_API_DISPATCH(api.kind, run_rounds, order, 1, 0, &done);	/* warm up */
	t0 = bench_now_ns();
	BENCH_API_DISPATCH(api.kind, run_rounds, order, rounds,
			   t0 + (uint64_t)(bench_opt_double(opts, "time") * 1e9), &done);
	bench_result("ns_per_object", (double)(bench_now_ns() - t0) / (double)(done * nr), "ns");
	bench_result("peak_rss_kib", (double)bench_peak_rss_kib(), "KiB");
	bench_api_exit(&api);
	return 0;
}
