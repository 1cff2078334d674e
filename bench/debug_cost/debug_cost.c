/* SPDX-License-Identifier: MIT */
/*
 * debug_cost.c - what the debug flags cost: one alloc+free pair on a cache
 * created with SLAB_CONSISTENCY_CHECKS (F), SLAB_RED_ZONE (Z), SLAB_POISON
 * (P), SLAB_STORE_USER (U), any mix of them, or none, and on kmalloc with
 * the same flags given to the kmalloc caches through USLAB_OPTIONS.
 *
 * usage: debug_cost [api=kmem_cache|kmalloc] [size=64] [flags=none|FZPU...]
 *                   [batch=64] [time=0.25]
 * Pattern (the fast-path benchmark's): allocate a batch of objects, write
 * one byte in each, free them in allocation order; repeat for the time
 * given, after a warm-up.
 *
 * Options set here, before uslab's first use, on top of the USLAB_OPTIONS
 * the program was started with:
 *   slab_nomerge                    every row measures its own cache, and
 *                                   slabinfo finds it under its own name;
 *   slub_debug=FLAGS,kmalloc-SIZE   api=kmalloc with flags (the kernel's
 *                                   per-cache form, read by SLUB and SLAB;
 *                                   SIZE must be a kmalloc cache's size).
 * The cost of the default hardening is measured by paired.c, which loads
 * the default and the unhardened library into one process, not here.
 *
 * The run is timed in chunks of 16 rounds (1024 pairs with batch=64).
 * Prints "RESULT ns_per_pair <median over the chunks of ns per pair> ns",
 * "RESULT wall_ns_per_pair <the whole run's wall ns per pair> ns" and
 * "RESULT obj_size <the cache's object stride, slabinfo's objsize> B".
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common/bench.h"
#include <uslab/uslab.h>

#define MAX_BATCH 4096
#define WARMUP_ROUNDS 200
#define CHECK_EVERY 16		/* rounds in one timed chunk */
#define MAX_CHUNKS 65536

/* ns per pair of each chunk.  why per chunk: on a busy machine the time this
 * process spends descheduled lands in a few chunks, not in their median. */
static double chunk_ns[MAX_CHUNKS];

static struct kmem_cache *cache;	/* api=kmem_cache: the cache measured */
static size_t obj_size, batch;

static const struct {
	char letter;		/* slub_debug's letter */
	unsigned int flag;	/* the kmem_cache_create flag */
} debug_letters[] = {
	{ 'F', USLAB_SLAB_CONSISTENCY_CHECKS },
	{ 'Z', USLAB_SLAB_RED_ZONE },
	{ 'P', USLAB_SLAB_POISON },
	{ 'U', USLAB_SLAB_STORE_USER },
};

/* The cache flags of "none" or a string of FZPU letters; exits 2 on others. */
static unsigned int parse_flags(const char *s)
{
	unsigned int flags = 0;

	if (!strcmp(s, "none"))
		return 0;
	for (; *s; s++) {
		size_t i = 0;

		while (i < sizeof(debug_letters) / sizeof(debug_letters[0]) &&
		       debug_letters[i].letter != *s)
			i++;
		if (i == sizeof(debug_letters) / sizeof(debug_letters[0])) {
			fprintf(stderr, "debug_cost: flags= takes 'none' or letters of FZPU, not '%c'\n", *s);
			exit(2);
		}
		flags |= debug_letters[i].flag;
	}
	return flags;
}

/* Add our options to USLAB_OPTIONS before uslab reads it (its first use). */
static void set_options(int kmalloc_api, const char *letters, const char *kmalloc_name)
{
	const char *old = getenv("USLAB_OPTIONS");
	char *opts;
	int n;

	if (kmalloc_api && strcmp(letters, "none"))
		n = asprintf(&opts, "%s slab_nomerge slub_debug=%s,%s", old ? old : "", letters,
			     kmalloc_name);
	else
		n = asprintf(&opts, "%s slab_nomerge", old ? old : "");
	if (n < 0 || setenv("USLAB_OPTIONS", opts, 1))
		bench_die("debug_cost: cannot set USLAB_OPTIONS");
	free(opts);
}

static BENCH_ALWAYS_INLINE void *one_alloc(int kmalloc_api)
{
	if (kmalloc_api)
		return uslab___kmalloc(obj_size, USLAB_GFP_KERNEL);
	return uslab_kmem_cache_alloc(cache, USLAB_GFP_KERNEL);
}

static BENCH_ALWAYS_INLINE void one_free(int kmalloc_api, void *p)
{
	if (kmalloc_api)
		uslab_kfree(p);
	else
		uslab_kmem_cache_free(cache, p);
}

static BENCH_ALWAYS_INLINE void run_rounds(int kmalloc_api, unsigned long rounds)
{
	void *p[MAX_BATCH];

	for (unsigned long r = 0; r < rounds; r++) {
		for (size_t i = 0; i < batch; i++) {
			p[i] = one_alloc(kmalloc_api);
			if (!p[i])
				bench_die("debug_cost: allocation failed");
			bench_touch(p[i], i);
		}
		for (size_t i = 0; i < batch; i++)
			one_free(kmalloc_api, p[i]);
	}
}

/* Chunks of CHECK_EVERY rounds, each timed alone, until run_ns is spent
 * (or MAX_CHUNKS are done); chunk_ns[] gets each chunk's ns per pair. */
static size_t run_chunks(int kmalloc_api, uint64_t run_ns, uint64_t *wall_ns)
{
	uint64_t start = bench_now_ns(), t0 = start, t1;
	size_t n = 0;

	do {
		if (kmalloc_api)
			run_rounds(1, CHECK_EVERY);
		else
			run_rounds(0, CHECK_EVERY);
		t1 = bench_now_ns();
		chunk_ns[n++] = (double)(t1 - t0) / ((double)CHECK_EVERY * (double)batch);
		t0 = t1;
	} while (t1 < start + run_ns && n < MAX_CHUNKS);
	*wall_ns = t1 - start;
	return n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* objsize of line if it is the slabinfo line of cache name, else 0. */
static unsigned long line_objsize(const char *line, const char *name)
{
	size_t nlen = strlen(name);
	unsigned long active, num, objsize;

	if (strncmp(line, name, nlen) || line[nlen] != ' ')
		return 0;
	if (sscanf(line + nlen, "%lu %lu %lu", &active, &num, &objsize) != 3)
		return 0;
	return objsize;
}

/* slabinfo's objsize of the cache called name, or 0 if it has no line. */
static unsigned long slabinfo_objsize(const char *name)
{
	char *text = NULL, *line, *save = NULL;
	size_t len = 0;
	unsigned long objsize = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return 0;
	uslab_show_slabinfo(f);
	fclose(f);
	for (line = strtok_r(text, "\n", &save); line && !objsize; line = strtok_r(NULL, "\n", &save))
		objsize = line_objsize(line, name);
	free(text);
	return objsize;
}

static struct bench_opt opts[] = {
	{ "api", "kmem_cache", "kmem_cache or kmalloc" },
	{ "size", "64", "object size in bytes" },
	{ "flags", "none", "none, or debug flags: letters of F Z P U" },
	{ "batch", "64", "objects allocated before they are freed (1..4096)" },
	{ "time", "0.25", "seconds to run (after a warm-up)" },
	{ NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	static const char *const apis[] = { "kmem_cache", "kmalloc", NULL };
	char kmalloc_name[32];
	unsigned int flags;
	int kmalloc_api;
	uint64_t wall;
	size_t chunks;

	bench_parse_opts(argc, argv, opts, "debug_cost");
	kmalloc_api = bench_opt_choice(opts, "api", apis);
	obj_size = bench_opt_size(opts, "size");
	batch = bench_opt_size(opts, "batch");
	flags = parse_flags(bench_opt_str(opts, "flags"));
	if (!obj_size || obj_size > 8192 || !batch || batch > MAX_BATCH)
		bench_die("debug_cost: need size in 1..8192, batch in 1..%d", MAX_BATCH);
	snprintf(kmalloc_name, sizeof(kmalloc_name), "kmalloc-%zu", obj_size);
	set_options(kmalloc_api, bench_opt_str(opts, "flags"), kmalloc_name);
	if (!kmalloc_api) {
		cache = uslab_kmem_cache_create("debug_cost", (unsigned int)obj_size, 0, flags, NULL);
		if (!cache)
			bench_die("debug_cost: kmem_cache_create(%zu, flags 0x%x) failed", obj_size, flags);
	}
	run_rounds(kmalloc_api, WARMUP_ROUNDS);
	chunks = run_chunks(kmalloc_api, (uint64_t)(bench_opt_double(opts, "time") * 1e9), &wall);
	bench_result("wall_ns_per_pair", (double)wall / ((double)chunks * CHECK_EVERY * (double)batch),
		     "ns");
	bench_result("ns_per_pair", median(chunk_ns, chunks), "ns");
	bench_result("obj_size", (double)slabinfo_objsize(kmalloc_api ? kmalloc_name : "debug_cost"), "B");
	if (cache)
		uslab_kmem_cache_destroy(cache);
	return 0;
}
