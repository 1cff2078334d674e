/* SPDX-License-Identifier: MIT */
/*
 * api.c - setting up the allocation interface a workload runs on (api.h).
 */
#include "api.h"

static const char *const api_names[] = BENCH_API_NAMES;

static void api_refuse(const char *name, const char *why)
{
	fprintf(stderr, "bench: api=%s %s\n", name, why);
	exit(2);
}

void bench_api_init(struct bench_api *api, const struct bench_opt *opts, size_t size)
{
	int kind = bench_opt_choice(opts, "api", api_names);

	*api = (struct bench_api){ .kind = (enum bench_api_kind)kind, .size = size };
	if (kind == BENCH_MALLOC)
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

void bench_api_exit(struct bench_api *api)
{
#if BENCH_USLAB
	if (api->cache)
		uslab_kmem_cache_destroy(api->cache);
#endif
	api->cache = NULL;
}
