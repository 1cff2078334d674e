/* SPDX-License-Identifier: MIT */
/*
 * api.c - setting up the allocation interface a workload runs on (api.h),
 * and api=floor's free list.
 */
#include <stdbool.h>
#include <sys/mman.h>
#include "api.h"

static const char *const api_names[] = BENCH_API_NAMES;

static void api_refuse(const char *name, const char *why)
{
	fprintf(stderr, "bench: api=%s %s\n", name, why);
	exit(2);
}

static void api_init(struct bench_api *api, const struct bench_opt *opts, size_t size,
		     bool floor_ok)
{
	int kind = bench_opt_choice(opts, "api", api_names);

	*api = (struct bench_api){ .kind = (enum bench_api_kind)kind, .size = size };
	if (kind == BENCH_MALLOC)
		return;
	if (kind == BENCH_FLOOR && !floor_ok)
		api_refuse(api_names[kind], "is the fast-path benchmark's reference floor only");
	if (kind == BENCH_FLOOR && !size)
		api_refuse(api_names[kind], "needs objects of one size; this workload mixes sizes");
	if (kind == BENCH_FLOOR)
		return;
	if (!BENCH_USLAB)
		api_refuse(api_names[kind], "needs the uslab build of this program "
			   "(this one is the malloc-only build)");
	if (kind == BENCH_KMALLOC)
		return;
	if (!size)
		api_refuse(api_names[kind], "needs objects of one size; this workload mixes sizes");
#if BENCH_USLAB
	if (size > ~0u)
		api_refuse(api_names[kind], "object size too large for a cache");
	api->cache = uslab_kmem_cache_create("bench_object", (unsigned int)size, 0, 0, NULL);
	if (!api->cache)
		bench_die("bench: kmem_cache_create(%zu) failed", size);
#endif
}

void bench_api_init(struct bench_api *api, const struct bench_opt *opts, size_t size)
{
	api_init(api, opts, size, false);
}

void bench_api_init_floor(struct bench_api *api, const struct bench_opt *opts, size_t size)
{
	api_init(api, opts, size, true);
}

void bench_api_exit(struct bench_api *api)
{
#if BENCH_USLAB
	if (api->cache)
		uslab_kmem_cache_destroy(api->cache);
#endif
	api->cache = NULL;
}

/* ---- api=floor ---- */

#define FLOOR_REGION	(64UL << 20)	/* bytes a thread may ever carve */

/*
 * One thread's floor.  Invariant: freelist is NULL or the newest freed
 * object, whose first word holds the next one; [next, end) is the part of
 * the region never handed out (both NULL before the first carve).
 */
struct floor_cpu {
	void *freelist;
	char *next, *end;
};

/* why initial-exec: this file is built -fPIC, whose default TLS model calls
 * __tls_get_addr (relaxed by the linker, but the call's register saves stay);
 * initial-exec, as the peers' thread caches use, is one %fs-relative load. */
static __thread struct floor_cpu floor_cpu __attribute__((tls_model("initial-exec")));

/* The list is empty: hand out the next size bytes of the region.
 * why out of line: it runs only while the working set grows, and keeps the
 * pop in bench_floor_alloc as short as a pop can be. */
static __attribute__((noinline, cold)) void *floor_carve(size_t size)
{
	struct floor_cpu *c = &floor_cpu;
	size_t sz = (size + 15) & ~(size_t)15;
	void *p;

	if (!c->next) {
		p = mmap(NULL, FLOOR_REGION, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED)
			bench_die("bench: api=floor: mmap of %lu bytes failed", FLOOR_REGION);
		c->next = p;
		c->end = c->next + FLOOR_REGION;
	}
	if (!size || sz > (size_t)(c->end - c->next))
		bench_die("bench: api=floor: %zu bytes do not fit in what is left of "
			  "the thread's %lu-byte region", size, FLOOR_REGION);
	p = c->next;
	c->next += sz;
	return p;
}

__attribute__((noinline)) void *bench_floor_alloc(size_t size)
{
	struct floor_cpu *c = &floor_cpu;
	void *p = c->freelist;

	if (__builtin_expect(!p, 0))
		return floor_carve(size);
	c->freelist = *(void **)p;
	return p;
}

__attribute__((noinline)) void bench_floor_free(void *p)
{
	struct floor_cpu *c = &floor_cpu;

	*(void **)p = c->freelist;
	c->freelist = p;
}
