/* SPDX-License-Identifier: MIT */
/*
 * api.h - the allocation interfaces a workload can run on, behind one switch.
 *
 *   api=malloc      malloc/free: glibc's, a peer's under LD_PRELOAD, or
 *                   uslab's drop-in under LD_PRELOAD
 *   api=kmem_cache  uslab_kmem_cache_alloc/free on one cache of the
 *                   workload's object size (fixed-size workloads only)
 *   api=kmalloc     uslab___kmalloc/uslab_kfree
 *   api=bulk        uslab_kmem_cache_alloc_bulk/free_bulk where the workload
 *                   handles objects in batches, else as kmem_cache
 *   api=floor       the reference floor: bench_floor_alloc/free, a bare
 *                   thread-local free list behind two real calls (no size
 *                   lookup, no checks, no slabs), in both builds; only
 *                   programs that set up with bench_api_init_floor take it
 *
 * A workload's hot loop is an always-inline function of the api kind, called
 * through a switch with a constant kind (BENCH_API_DISPATCH), so that each
 * interface gets a loop of its own with no per-object test of the kind.
 * In the malloc-only build (BENCH_USLAB=0) only api=malloc and api=floor
 * exist.
 */
#ifndef USLAB_BENCH_API_H
#define USLAB_BENCH_API_H

#include <stdlib.h>
#include "bench.h"
#if BENCH_USLAB
#include <uslab/uslab.h>
#endif

enum bench_api_kind { BENCH_MALLOC, BENCH_KMEM_CACHE, BENCH_KMALLOC, BENCH_BULK, BENCH_FLOOR };

struct bench_api {
	enum bench_api_kind kind;	/* which interface */
	struct kmem_cache *cache;	/* kmem_cache and bulk: the cache; else NULL */
	size_t size;			/* the cache's object size */
};

#define BENCH_API_NAMES { "malloc", "kmem_cache", "kmalloc", "bulk", "floor", NULL }

/*
 * Set api up for the interface named by option "api" of opts and objects of
 * size bytes (0: the workload has mixed sizes, where kmem_cache and bulk are
 * refused).  Exits 2 with a message for an interface this build lacks.
 */
void bench_api_init(struct bench_api *api, const struct bench_opt *opts, size_t size);
/* As bench_api_init, and api=floor is taken too (fixed-size workloads only:
 * the floor's list keeps no sizes). */
void bench_api_init_floor(struct bench_api *api, const struct bench_opt *opts, size_t size);
void bench_api_exit(struct bench_api *api);

/*
 * api=floor: pop from / push onto the calling thread's free list, the next
 * pointer in the object's first word; an empty list carves a new object of
 * size rounded up to 16 from the thread's region (64 MiB, mapped at the
 * first carve, never unmapped; past it the program dies).  Precondition:
 * the process asks one size throughout (the list keeps no sizes).
 * why noinline and out of line (api.c): the floor is what a call-based
 * allocator cannot go below, so each pair must pay two real calls, as
 * malloc/free and kmem_cache_alloc/free do.
 */
__attribute__((noinline)) void *bench_floor_alloc(size_t size);
__attribute__((noinline)) void bench_floor_free(void *p);

static BENCH_ALWAYS_INLINE void *bench_alloc(const struct bench_api *api,
					     enum bench_api_kind kind, size_t size)
{
	if (kind == BENCH_FLOOR)
		return bench_floor_alloc(size);
#if BENCH_USLAB
	if (kind == BENCH_KMEM_CACHE || kind == BENCH_BULK)
		return uslab_kmem_cache_alloc(api->cache, USLAB_GFP_KERNEL);
	if (kind == BENCH_KMALLOC)
		return uslab___kmalloc(size, USLAB_GFP_KERNEL);
#endif
	(void)api;
	(void)kind;
	return malloc(size);
}

static BENCH_ALWAYS_INLINE void bench_free(const struct bench_api *api,
					   enum bench_api_kind kind, void *p)
{
	if (kind == BENCH_FLOOR) {
		bench_floor_free(p);
		return;
	}
#if BENCH_USLAB
	if (kind == BENCH_KMEM_CACHE || kind == BENCH_BULK) {
		uslab_kmem_cache_free(api->cache, p);
		return;
	}
	if (kind == BENCH_KMALLOC) {
		uslab_kfree(p);
		return;
	}
#endif
	(void)api;
	(void)kind;
	free(p);
}

/* size bytes (size > 0) from the interface, their first and last byte
 * written, as a program touches what it asks for; exits naming who when
 * the allocator fails. */
static BENCH_ALWAYS_INLINE void *bench_alloc_touched(const struct bench_api *api,
						     enum bench_api_kind kind, size_t size,
						     const char *who)
{
	char *p = bench_alloc(api, kind, size);

	if (!p)
		bench_die("%s: allocation of %zu bytes failed", who, size);
	p[0] = 1;
	p[size - 1] = 2;
	return p;
}

/* Allocate n objects into p: one bulk call for api=bulk, else a loop.
 * Returns 0, or exits when the allocator fails. */
static BENCH_ALWAYS_INLINE void bench_alloc_many(const struct bench_api *api,
						 enum bench_api_kind kind, size_t size,
						 void **p, size_t n)
{
#if BENCH_USLAB
	if (kind == BENCH_BULK) {
		if (uslab_kmem_cache_alloc_bulk(api->cache, USLAB_GFP_KERNEL, n, p) != (int)n)
			bench_die("bench: kmem_cache_alloc_bulk of %zu objects failed", n);
		return;
	}
#endif
	for (size_t i = 0; i < n; i++) {
		p[i] = bench_alloc(api, kind, size);
		if (!p[i])
			bench_die("bench: allocation of %zu bytes failed", size);
	}
}

static BENCH_ALWAYS_INLINE void bench_free_many(const struct bench_api *api,
						enum bench_api_kind kind, void **p, size_t n)
{
#if BENCH_USLAB
	if (kind == BENCH_BULK) {
		uslab_kmem_cache_free_bulk(api->cache, n, p);
		return;
	}
#endif
	for (size_t i = 0; i < n; i++)
		bench_free(api, kind, p[i]);
}

/*
 * BENCH_API_DISPATCH(kind, fn, args...) calls fn(KIND, args...) with the kind
 * as a constant, so that an always-inline fn is compiled once per interface.
 */
#if BENCH_USLAB
#define BENCH_API_DISPATCH(kind, fn, ...)				\
	do {								\
		switch (kind) {						\
		case BENCH_MALLOC:	fn(BENCH_MALLOC, __VA_ARGS__); break;	\
		case BENCH_KMEM_CACHE:	fn(BENCH_KMEM_CACHE, __VA_ARGS__); break; \
		case BENCH_KMALLOC:	fn(BENCH_KMALLOC, __VA_ARGS__); break;	\
		case BENCH_BULK:	fn(BENCH_BULK, __VA_ARGS__); break;	\
		case BENCH_FLOOR:	fn(BENCH_FLOOR, __VA_ARGS__); break;	\
		}							\
	} while (0)
#else
#define BENCH_API_DISPATCH(kind, fn, ...)				\
	do {								\
		if ((kind) == BENCH_FLOOR)				\
			fn(BENCH_FLOOR, __VA_ARGS__);			\
		else							\
			fn(BENCH_MALLOC, __VA_ARGS__);			\
	} while (0)
#endif

#endif /* USLAB_BENCH_API_H */
