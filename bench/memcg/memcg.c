/* SPDX-License-Identifier: MIT */
/*
 * memcg.c - what memory cgroup accounting costs on the fast path: the
 * alloc+free pair of slab_fastpath (allocate a batch, write a byte in each,
 * free them in allocation order, repeat) on an unaccounted cache or
 * kmalloc ("plain"), and on its accounted twin, every object charged to a
 * group the thread has active and uncharged at its free ("accounted").
 *
 * usage: memcg [api=kmalloc|kmem_cache] [size=64] [batch=64] [chunk=16]
 *              [time=0.2] [mode=paired|plain|accounted] [pairs=0]
 *   api=kmalloc     kmalloc(size, GFP_KERNEL) against
 *                   kmalloc(size, GFP_KERNEL_ACCOUNT): kmalloc-<n> against
 *                   kmalloc-cg-<n>
 *   api=kmem_cache  a cache created without flags against one created
 *                   with SLAB_ACCOUNT (same size)
 *   mode=paired     both sides in this process, in short timed chunks of
 *                   `chunk` rounds that alternate ABBA for time= seconds,
 *                   the stack walked through a page pair by pair
 *                   (bench/common/paired.h: what a shared machine's fast
 *                   and slow phases and the stack's placement do to two
 *                   separate runs); prints "RESULT plain_ns_per_pair",
 *                   "RESULT accounted_ns_per_pair" (each side's median
 *                   chunk), "RESULT ratio" (the median of the pairs'
 *                   accounted / plain), "RESULT ratio_p25", "RESULT
 *                   ratio_p75" and "RESULT pairs"; what the driver runs
 *   mode=plain, mode=accounted: one side alone, timed for time= seconds
 *                   after a warm-up; prints "RESULT ns_per_pair <ns> ns"
 *   pairs=N         (mode plain or accounted) exactly N pairs, untimed, inside
 *                   memcg_measured(): for
 *                   valgrind --tool=callgrind --toggle-collect=memcg_measured
 * The program checks first that accounted objects really are charged (not
 * under SLOB, which has no accounting: there both sides are the same path).
 */
#include <uslab/slab.h>
#include <uslab/memcontrol.h>
#include "../common/bench.h"
#include "../common/paired.h"

#define MAX_BATCH	4096
#define MAX_CHUNK	4096	/* rounds in one paired chunk, at most */
#define WARMUP_ROUNDS	1000
#define CHECK_EVERY	64	/* rounds between two looks at the clock */

enum memcg_api { API_KMALLOC, API_CACHE };

static size_t obj_size, batch, chunk_rounds;
static struct kmem_cache *caches[2];	/* [0] plain, [1] SLAB_ACCOUNT */
static struct mem_cgroup *group;
static struct bench_paired paired;	/* mode=paired: the chunks' times and ratios */

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
					   unsigned long rounds, void **p)
{
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

/* rounds of one side, each combination a loop of its own with constant
 * arguments.  why one p[] here: both sides' pointer arrays at one stack
 * address, so that the stack walk of mode=paired moves them alike */
static void rounds_of(enum memcg_api api, int accounted, unsigned long rounds)
{
	void *p[MAX_BATCH];

	if (api == API_KMALLOC)
		accounted ? run_rounds(API_KMALLOC, 1, rounds, p) :
			    run_rounds(API_KMALLOC, 0, rounds, p);
	else
		accounted ? run_rounds(API_CACHE, 1, rounds, p) : run_rounds(API_CACHE, 0, rounds, p);
}

/* mode=plain or accounted: whole chunks of rounds for time_ns; returns ns
 * per pair. */
static double run_timed(enum memcg_api api, int accounted, uint64_t time_ns)
{
	uint64_t start = bench_now_ns(), end;
	unsigned long chunks = 0;

	do {
		rounds_of(api, accounted, CHECK_EVERY);
		chunks++;
		end = bench_now_ns();
	} while (end - start < time_ns);
	return (double)(end - start) / (double)(chunks * CHECK_EVERY * batch);
}

/* The counted part of a pairs= run (external and noinline, so that its
 * name survives for callgrind's --toggle-collect). */
void memcg_measured(enum memcg_api api, int accounted, unsigned long rounds);
__attribute__((noinline)) void memcg_measured(enum memcg_api api, int accounted,
					      unsigned long rounds)
{
	rounds_of(api, accounted, rounds);
}

/* mode=paired: one chunk of side (0 plain, 1 accounted); arg: the api. */
static void paired_chunk(int side, void *arg)
{
	rounds_of(*(const enum memcg_api *)arg, side, chunk_rounds);
}

static void run_paired(enum memcg_api api, uint64_t time_ns)
{
	static const char *const names[2] = { "plain", "accounted" };

	paired.chunk = paired_chunk;
	paired.arg = &api;
	paired.per_chunk = (double)chunk_rounds * (double)batch;
	paired.run_ns = time_ns;
	bench_paired_run(&paired);
	bench_paired_print(&paired, names);
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

static struct bench_opt opts[] = {
	{ "api", "kmalloc", "kmalloc or kmem_cache (both caches unmergeable: SLAB_NOLEAKTRACE)" },
	{ "size", "64", "object size in bytes" },
	{ "batch", "64", "objects allocated before they are freed (1..4096)" },
	{ "chunk", "16", "rounds (batches) in one timed chunk of mode=paired (1..4096)" },
	{ "time", "0.2", "seconds of the timed run (paired: both sides together), after a warm-up" },
	{ "mode", "paired", "paired, plain or accounted" },
	{ "pairs", "0", "if not 0 (mode plain or accounted): exactly this many pairs, untimed" },
	{ NULL, NULL, NULL }
};

enum memcg_mode { MODE_PAIRED, MODE_PLAIN, MODE_ACCOUNTED };

static void parse_args(int argc, char **argv, enum memcg_api *api, enum memcg_mode *mode)
{
	static const char *const apis[] = { "kmalloc", "kmem_cache", NULL };
	static const char *const modes[] = { "paired", "plain", "accounted", NULL };

	bench_parse_opts(argc, argv, opts, "memcg");
	*api = (enum memcg_api)bench_opt_choice(opts, "api", apis);
	*mode = (enum memcg_mode)bench_opt_choice(opts, "mode", modes);
	obj_size = bench_opt_size(opts, "size");
	batch = bench_opt_size(opts, "batch");
	chunk_rounds = bench_opt_size(opts, "chunk");
	if (!obj_size || obj_size > 4096 || !batch || batch > MAX_BATCH || !chunk_rounds ||
	    chunk_rounds > MAX_CHUNK)
		bench_die("memcg: need size in 1..4096, batch in 1..%d, chunk in 1..%d", MAX_BATCH,
			  MAX_CHUNK);
	if (*mode == MODE_PAIRED && bench_opt_ul(opts, "pairs"))
		bench_die("memcg: pairs= needs mode=plain or mode=accounted");
	if (!(bench_opt_double(opts, "time") > 0))
		bench_die("memcg: time= must be more than 0 seconds");
}

/* The two caches and the group, made active for this thread. */
static void setup(enum memcg_api api)
{
	caches[0] = kmem_cache_create("bench_memcg_plain", (unsigned int)obj_size, 0,
				      SLAB_NOLEAKTRACE, NULL);
	caches[1] = kmem_cache_create("bench_memcg_account", (unsigned int)obj_size, 0,
				      SLAB_ACCOUNT | SLAB_NOLEAKTRACE, NULL);
	group = mem_cgroup_create("bench_memcg", MEM_CGROUP_NO_LIMIT);
	if (!caches[0] || !caches[1] || !group)
		bench_die("memcg: cannot create the caches and the group");
	set_active_memcg(group);
	check_charged(api);
}

int main(int argc, char **argv)
{
	enum memcg_api api;
	enum memcg_mode mode;
	uint64_t time_ns;
	unsigned long pairs;

	parse_args(argc, argv, &api, &mode);
	pairs = bench_opt_ul(opts, "pairs");
	time_ns = (uint64_t)(bench_opt_double(opts, "time") * 1e9);
	setup(api);
	if (mode != MODE_ACCOUNTED)
		rounds_of(api, 0, WARMUP_ROUNDS);
	if (mode != MODE_PLAIN)
		rounds_of(api, 1, WARMUP_ROUNDS);
	if (mode == MODE_PAIRED)
		run_paired(api, time_ns);
	else if (pairs)
		memcg_measured(api, mode == MODE_ACCOUNTED, pairs / batch);
	else
		bench_result("ns_per_pair", run_timed(api, mode == MODE_ACCOUNTED, time_ns), "ns");
	return 0;
}
