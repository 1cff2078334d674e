/* SPDX-License-Identifier: MIT */
/*
 * paired.c - what the default hardening costs, measured in one process: the
 * hardened and the unhardened libuslab-ALLOC.so are both loaded (dlopen),
 * and short timed chunks of the same work alternate between them.
 *
 * usage: paired hardened=LIB unhardened=LIB [api=kmem_cache|kmalloc]
 *               [size=64] [batch=64] [chunk=16] [time=0.25]
 *
 * 1. Overview
 *    The pattern is debug_cost's default run (the fast-path benchmark's):
 *    allocate a batch of objects, write one byte in each, free them in
 *    allocation order.  A chunk is `chunk` such rounds on one library,
 *    timed alone.  bench/common/paired.c runs pairs of chunks, one per
 *    library, in ABBA order until time= is spent; each pair gives a ratio,
 *    hardened ns / unhardened ns (side 1 / side 0), and the result is the
 *    median of those ratios.
 * 2. Why in one process: see bench/common/paired.h, 2. (the CPU's fast and
 *    slow phases on a shared machine; swings of 8% and more between two
 *    processes).
 * 3. Data structures: one struct paired_lib per library (its handle, the
 *    entry points found with dlsym, its cache): libs[0] the unhardened
 *    (side 0, the base of the ratio), libs[1] the hardened; the chunks'
 *    times and ratios are in struct bench_paired.  All of it is static:
 *    nothing the program keeps is allocated by either library.
 * 4. Two copies of uslab in one process
 *    This program links no uslab code (bench/bench.mk links it with
 *    bench/common/bench.c and paired.c only), and each library is opened RTLD_LOCAL, so
 *    each copy has its own globals, arena, memory map, per-thread (TLS)
 *    state, pthread keys and fork handlers, and calls only itself: the
 *    kernel-named internals are hidden, and the copies never see each
 *    other's objects.  Two things would be shared, and are set aside:
 *    - the statistics file /dev/shm/uslab-<pid>, named after the process:
 *      USLAB_OPTIONS gets stats=off, so neither copy makes it;
 *    - dlopen of one file twice returns one copy: the program refuses two
 *      names of the same library (same handle) and two allocators.
 *    Their initial-exec thread-locals (about 130 bytes a copy) come from
 *    glibc's reserve for libraries opened later; were it short, dlopen
 *    would fail and say so.  The libraries are never closed: their threads,
 *    fork handlers and thread-exit destructors point into their code.  At
 *    exit both copies' destructors run, each on its own state.
 *    Both copies are called through pointers from outside, and their
 *    thread-local variables are reached the shared-library way, so the ns
 *    here can differ a little from debug_cost's (a static program): only
 *    the ratio is the figure, and both sides pay the same.
 * 5. Where the stack lies
 *    The pointer array of a round and the libraries' own frames are on the
 *    stack; bench/common/paired.c walks the stack through the 64 cache
 *    lines of a page pair by pair (paired.h, 3.), so that no stack
 *    placement (4 KiB aliasing with a hot word of one library) favours a
 *    side.  What the walk cannot move (where the arenas and their physical
 *    pages fall, the random freelist order) still differs from process to
 *    process and moves a run's ratio by a few percent: the driver takes the
 *    median of many short runs.
 * 6. Results: "RESULT hardened_ns_per_pair", "RESULT unhardened_ns_per_pair"
 *    (each library's median chunk), "RESULT ratio" (the median paired
 *    ratio), "RESULT ratio_p25", "RESULT ratio_p75" (its quartiles: the
 *    spread of the pairs) and "RESULT pairs" (how many pairs ran).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common/bench.h"
#include "../common/paired.h"
#include <uslab/uslab.h>

#define MAX_BATCH 4096
#define MAX_CHUNK 4096		/* rounds in one chunk, at most */
#define WARMUP_ROUNDS 200

/* One library under test; set up once, then read only. */
struct paired_lib {
	const char *role;	/* "hardened" or "unhardened": the option naming it */
	const char *path;	/* the file given */
	void *handle;		/* dlopen's */
	const char *alloc;	/* uslab_allocator_name(): slub, slab or slob */
	typeof(&uslab_kmem_cache_create) cache_create;
	typeof(&uslab_kmem_cache_destroy) cache_destroy;
	typeof(&uslab_kmem_cache_alloc) cache_alloc;
	typeof(&uslab_kmem_cache_free) cache_free;
	typeof(&uslab___kmalloc) kmalloc;
	typeof(&uslab_kfree) kfree;
	struct kmem_cache *cache;	/* api=kmem_cache: the cache measured */
};

/* why this order: the ratio is side 1 / side 0, hardened / unhardened */
static struct paired_lib libs[2] = {
	{ .role = "unhardened" },
	{ .role = "hardened" },
};
static struct bench_paired run;		/* the chunks' times and ratios */

static int kmalloc_api;			/* 1: kmalloc/kfree, 0: the cache */
static size_t obj_size, batch, chunk_rounds;

/* The entry point name of lib, or exit with the reason. */
static void *lib_sym(const struct paired_lib *lib, const char *name)
{
	void *p = dlsym(lib->handle, name);

	if (!p)
		bench_die("paired: %s=%s has no %s: not a libuslab", lib->role, lib->path, name);
	return p;
}

/* Open lib->path as a copy of its own and find its entry points. */
static void lib_open(struct paired_lib *lib)
{
	lib->handle = dlopen(lib->path, RTLD_NOW | RTLD_LOCAL);
	if (!lib->handle)
		bench_die("paired: cannot load %s=%s: %s", lib->role, lib->path, dlerror());
	lib->cache_create = lib_sym(lib, "uslab_kmem_cache_create");
	lib->cache_destroy = lib_sym(lib, "uslab_kmem_cache_destroy");
	lib->cache_alloc = lib_sym(lib, "uslab_kmem_cache_alloc");
	lib->cache_free = lib_sym(lib, "uslab_kmem_cache_free");
	lib->kmalloc = lib_sym(lib, "uslab___kmalloc");
	lib->kfree = lib_sym(lib, "uslab_kfree");
	lib->alloc = ((typeof(&uslab_allocator_name))lib_sym(lib, "uslab_allocator_name"))();
}

/* Both libraries are distinct copies of one allocator, or exit. */
static void libs_check(void)
{
	/* why: dlopen of a file already open (by any name) returns that copy */
	if (libs[0].handle == libs[1].handle)
		bench_die("paired: hardened=%s and unhardened=%s are one library: "
			  "give two files", libs[1].path, libs[0].path);
	if (strcmp(libs[0].alloc, libs[1].alloc))
		bench_die("paired: hardened=%s is %s but unhardened=%s is %s", libs[1].path,
			  libs[1].alloc, libs[0].path, libs[0].alloc);
}

/* Add our options to USLAB_OPTIONS before either copy reads it. */
static void set_options(void)
{
	const char *old = getenv("USLAB_OPTIONS");
	char *opts;

	/* why stats=off: both copies would make the file named after our pid */
	if (asprintf(&opts, "%s slab_nomerge stats=off", old ? old : "") < 0 ||
	    setenv("USLAB_OPTIONS", opts, 1))
		bench_die("paired: cannot set USLAB_OPTIONS");
	free(opts);
}

static BENCH_ALWAYS_INLINE void *one_alloc(const struct paired_lib *lib)
{
	if (kmalloc_api)
		return lib->kmalloc(obj_size, USLAB_GFP_KERNEL);
	return lib->cache_alloc(lib->cache, USLAB_GFP_KERNEL);
}

static BENCH_ALWAYS_INLINE void one_free(const struct paired_lib *lib, void *p)
{
	if (kmalloc_api)
		lib->kfree(p);
	else
		lib->cache_free(lib->cache, p);
}

/* rounds times: allocate a batch, touch each object, free it in order. */
static void run_rounds(const struct paired_lib *lib, size_t rounds)
{
	void *p[MAX_BATCH];

	for (size_t r = 0; r < rounds; r++) {
		for (size_t i = 0; i < batch; i++) {
			p[i] = one_alloc(lib);
			if (!p[i])
				bench_die("paired: allocation failed in %s=%s", lib->role, lib->path);
			bench_touch(p[i], i);
		}
		for (size_t i = 0; i < batch; i++)
			one_free(lib, p[i]);
	}
}

/* Make lib's cache (api=kmem_cache) and warm it up. */
static void lib_prepare(struct paired_lib *lib)
{
	if (!kmalloc_api) {
		lib->cache = lib->cache_create("paired", (unsigned int)obj_size, 0, 0, NULL);
		if (!lib->cache)
			bench_die("paired: kmem_cache_create(%zu) failed in %s=%s", obj_size,
				  lib->role, lib->path);
	}
	run_rounds(lib, WARMUP_ROUNDS);
}

/* One timed chunk of side (0 unhardened, 1 hardened), for bench_paired_run. */
static void lib_chunk(int side, void *arg)
{
	(void)arg;
	run_rounds(&libs[side], chunk_rounds);
}

static struct bench_opt opts[] = {
	{ "hardened", "", "the default build's libuslab-ALLOC.so (path)" },
	{ "unhardened", "", "the same allocator's library built without hardening (path)" },
	{ "api", "kmem_cache", "kmem_cache or kmalloc" },
	{ "size", "64", "object size in bytes" },
	{ "batch", "64", "objects allocated before they are freed (1..4096)" },
	{ "chunk", "16", "rounds (batches) in one timed chunk (1..4096)" },
	{ "time", "0.25", "seconds to run both libraries together (after a warm-up)" },
	{ NULL, NULL, NULL }
};

static void parse_args(int argc, char **argv)
{
	static const char *const apis[] = { "kmem_cache", "kmalloc", NULL };

	bench_parse_opts(argc, argv, opts, "paired");
	libs[0].path = bench_opt_str(opts, "unhardened");
	libs[1].path = bench_opt_str(opts, "hardened");
	kmalloc_api = bench_opt_choice(opts, "api", apis);
	obj_size = bench_opt_size(opts, "size");
	batch = bench_opt_size(opts, "batch");
	chunk_rounds = bench_opt_size(opts, "chunk");
	if (!*libs[0].path || !*libs[1].path)
		bench_die("paired: need hardened=LIB and unhardened=LIB (two libuslab-ALLOC.so files)");
	if (!obj_size || obj_size > 8192 || !batch || batch > MAX_BATCH || !chunk_rounds ||
	    chunk_rounds > MAX_CHUNK)
		bench_die("paired: need size in 1..8192, batch in 1..%d, chunk in 1..%d", MAX_BATCH,
			  MAX_CHUNK);
	if (!(bench_opt_double(opts, "time") > 0))
		bench_die("paired: time= must be more than 0 seconds");
}

int main(int argc, char **argv)
{
	static const char *const names[2] = { "unhardened", "hardened" };

	parse_args(argc, argv);
	set_options();
	lib_open(&libs[1]);	/* the hardened first, as the options come */
	lib_open(&libs[0]);
	libs_check();
	lib_prepare(&libs[1]);
	lib_prepare(&libs[0]);
	run.chunk = lib_chunk;
	run.per_chunk = (double)chunk_rounds * (double)batch;
	run.run_ns = (uint64_t)(bench_opt_double(opts, "time") * 1e9);
	bench_paired_run(&run);
	bench_paired_print(&run, names);
	for (int i = 0; i < 2; i++)
		if (libs[i].cache)
			libs[i].cache_destroy(libs[i].cache);
	return 0;
}
