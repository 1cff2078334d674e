/* SPDX-License-Identifier: MIT */
/*
 * memcg.c - what memory cgroup accounting costs on the fast path: the
 * alloc+free pair of slab_fastpath (allocate a batch, write a byte in each,
 * free them in allocation order, repeat) on an unaccounted cache or
 * kmalloc ("plain"), and on its accounted twin, every object charged to a
 * group the thread has active and uncharged at its free ("accounted").
 *
 * usage: memcg [api=kmalloc|kmem_cache] [size=64] [batch=64] [time=0.2]
 *              [mode=both|plain|accounted] [reps=5]
 *   api=kmalloc     kmalloc(size, GFP_KERNEL) against
 *                   kmalloc(size, GFP_KERNEL_ACCOUNT): kmalloc-<n> against
 *                   kmalloc-cg-<n>
 *   api=kmem_cache  a cache created without flags against one created
 *                   with SLAB_ACCOUNT (same size)
 *   mode=plain, mode=accounted: one timed run after a warm-up;
 *                   prints "RESULT ns_per_pair <ns> ns" (what the driver
 *                   runs, interleaving the two)
 *   mode=both       reps timed runs of each, alternating in this process;
 *                   prints the medians (ns_per_pair_plain,
 *                   ns_per_pair_accounted) and their ratio (accounted_ratio)
 *   pairs=N         (mode plain or accounted) exactly N pairs, untimed, inside
 *                   memcg_measured(): for
 *                   valgrind --tool=callgrind --toggle-collect=memcg_measured
 * The accounted runs check first that objects really are charged (not
 * under SLOB, which has no accounting: there both sides are the same path).
 */
#include <uslab/slab.h>
#include <uslab/memcontrol.h>
#include "../common/bench.h"

#define MAX_BATCH	4096
#define WARMUP_ROUNDS	1000
#define CHECK_EVERY	64	/* rounds between two looks at the clock */
#define MAX_REPS	51

enum memcg_api { API_KMALLOC, API_CACHE };

static size_t obj_size, batch;
static struct kmem_cache *caches[2];	/* [0] plain, [1] SLAB_ACCOUNT */
static struct mem_cgroup *group;

static BENCH_ALWAYS_INLINE void *alloc_one(enum memcg_api api, int accounted)
{
	if (api == API_KMALLOC)
		return kmalloc(obj_size, accounted ? GFP_KERNEL_ACCOUNT : GFP_KERNEL);
	return kmem_cache_alloc(caches[accounted], GFP_KERNEL);
}

static BENCH_ALWAYS_INLINE void free_one(enum memcg_api api, int accounted, void *p)
{
	if (api == API_KMALLOC)
		kfree(p);
	else
		kmem_cache_free(caches[accounted], p);
}

static BENCH_ALWAYS_INLINE void run_rounds(enum memcg_api api, int accounted,
					   unsigned long rounds)
{
	void *p[MAX_BATCH];

	for (unsigned long r = 0; r < rounds; r++) {
		for (size_t i = 0; i < batch; i++) {
			p[i] = alloc_one(api, accounted);
			if (!p[i])
				bench_die("memcg: allocation of %zu bytes failed", obj_size);
			bench_touch(p[i], i);
		}
		for (size_t i = 0; i < batch; i++)
			free_one(api, accounted, p[i]);
	}
}

/* Whole chunks of rounds for time_ns; returns ns per pair. */
static BENCH_ALWAYS_INLINE double run_timed(enum memcg_api api, int accounted, uint64_t time_ns)
{
	uint64_t start = bench_now_ns(), end;
	unsigned long chunks = 0;

	do {
		run_rounds(api, accounted, CHECK_EVERY);
		chunks++;
		end = bench_now_ns();
	} while (end - start < time_ns);
	return (double)(end - start) / (double)(chunks * CHECK_EVERY * batch);
}

/* One call per combination, each with constant arguments (one loop each). */
static double measure(enum memcg_api api, int accounted, uint64_t time_ns)
{
	if (api == API_KMALLOC)
		return accounted ? run_timed(API_KMALLOC, 1, time_ns) : run_timed(API_KMALLOC, 0, time_ns);
	return accounted ? run_timed(API_CACHE, 1, time_ns) : run_timed(API_CACHE, 0, time_ns);
}

static void warm_up(enum memcg_api api, int accounted)
{
	if (api == API_KMALLOC)
		accounted ? run_rounds(API_KMALLOC, 1, WARMUP_ROUNDS) :
			    run_rounds(API_KMALLOC, 0, WARMUP_ROUNDS);
	else
		accounted ? run_rounds(API_CACHE, 1, WARMUP_ROUNDS) :
			    run_rounds(API_CACHE, 0, WARMUP_ROUNDS);
}

/* The counted part of a pairs= run (external and noinline, so that its
 * name survives for callgrind's --toggle-collect). */
void memcg_measured(enum memcg_api api, int accounted, unsigned long rounds);
__attribute__((noinline)) void memcg_measured(enum memcg_api api, int accounted,
					      unsigned long rounds)
{
	if (api == API_KMALLOC)
		accounted ? run_rounds(API_KMALLOC, 1, rounds) : run_rounds(API_KMALLOC, 0, rounds);
	else
		accounted ? run_rounds(API_CACHE, 1, rounds) : run_rounds(API_CACHE, 0, rounds);
}

/* The accounted side must charge, or the ratio would mean nothing. */
static void check_charged(enum memcg_api api)
{
	void *p = alloc_one(api, 1);

	if (!p)
		bench_die("memcg: allocation of %zu bytes failed", obj_size);
	if (strcmp(uslab_allocator_name(), "slob") && mem_cgroup_from_obj(p) != group)
		bench_die("memcg: the accounted object is not charged to the group");
	free_one(api, 1, p);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, unsigned long n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void run_both(enum memcg_api api, uint64_t time_ns, unsigned long reps)
{
	double plain[MAX_REPS], acct[MAX_REPS], mp, ma;

	for (unsigned long r = 0; r < reps; r++) {	/* alternate: drift hits both */
		plain[r] = measure(api, 0, time_ns);
		acct[r] = measure(api, 1, time_ns);
	}
	mp = median(plain, reps);
	ma = median(acct, reps);
	bench_result("ns_per_pair_plain", mp, "ns");
	bench_result("ns_per_pair_accounted", ma, "ns");
	bench_result("accounted_ratio", ma / mp, "x");
}

static struct bench_opt opts[] = {
	{ "api", "kmalloc", "kmalloc or kmem_cache (both caches unmergeable: SLAB_NOLEAKTRACE)" },
	{ "size", "64", "object size in bytes" },
	{ "batch", "64", "objects allocated before they are freed (1..4096)" },
	{ "time", "0.2", "seconds of each timed run (after a warm-up)" },
	{ "mode", "both", "both, plain or accounted" },
	{ "reps", "5", "timed runs of each side with mode=both (1..51)" },
	{ "pairs", "0", "if not 0 (mode plain or accounted): exactly this many pairs, untimed" },
	{ NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	static const char *const apis[] = { "kmalloc", "kmem_cache", NULL };
	static const char *const modes[] = { "both", "plain", "accounted", NULL };
	enum memcg_api api;
	uint64_t time_ns;
	unsigned long reps, pairs;
	int mode;

	bench_parse_opts(argc, argv, opts, "memcg");
	api = (enum memcg_api)bench_opt_choice(opts, "api", apis);
	mode = bench_opt_choice(opts, "mode", modes);
	obj_size = bench_opt_size(opts, "size");
	batch = bench_opt_size(opts, "batch");
	reps = bench_opt_ul(opts, "reps");
	pairs = bench_opt_ul(opts, "pairs");
	time_ns = (uint64_t)(bench_opt_double(opts, "time") * 1e9);
	if (!obj_size || obj_size > 4096 || !batch || batch > MAX_BATCH || !reps || reps > MAX_REPS)
		bench_die("memcg: need size in 1..4096, batch in 1..%d, reps in 1..%d", MAX_BATCH,
			  MAX_REPS);
	caches[0] = kmem_cache_create("bench_memcg_plain", (unsigned int)obj_size, 0,
				      SLAB_NOLEAKTRACE, NULL);
	caches[1] = kmem_cache_create("bench_memcg_account", (unsigned int)obj_size, 0,
				      SLAB_ACCOUNT | SLAB_NOLEAKTRACE, NULL);
	group = mem_cgroup_create("bench_memcg", MEM_CGROUP_NO_LIMIT);
	if (!caches[0] || !caches[1] || !group)
		bench_die("memcg: cannot create the caches and the group");
	set_active_memcg(group);
	check_charged(api);
	if (mode != 2)
		warm_up(api, 0);
	if (mode != 1)
		warm_up(api, 1);
	if (pairs && mode)
		memcg_measured(api, mode == 2, pairs / batch);
	else if (mode == 0)
		run_both(api, time_ns, reps);
	else
		bench_result("ns_per_pair", measure(api, mode == 2, time_ns), "ns");
	return 0;
}
