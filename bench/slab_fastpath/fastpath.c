/* SPDX-License-Identifier: MIT */
/*
 * fastpath.c - alloc+free pair cost of the object-cache and kmalloc fast
 * paths, and of whatever malloc the process runs with (glibc, or a peer
 * through LD_PRELOAD), in the same batch pattern.
 *
 * usage: fastpath MODE SIZE [PAIRS]
 *   MODE  malloc      malloc/free (the peer under LD_PRELOAD, or glibc)
 *         kmem_cache  uslab_kmem_cache_alloc/free on a cache of SIZE bytes
 *         kmalloc     uslab___kmalloc/uslab_kfree
 *         bulk        uslab_kmem_cache_alloc_bulk/free_bulk of 1000 objects
 *         prodcons    2 threads: one allocates (kmem_cache), the other frees
 *         prodcons_malloc  the same with malloc/free
 * Pattern: allocate a batch of 64 objects, write one byte in each, free
 * them in allocation order; repeat.  Prints "RESULT ns_per_pair <ns> ns".
 * With PAIRS given the run does exactly that many pairs (for callgrind,
 * which the driver runs at two PAIRS values to cancel set-up costs).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <uslab/uslab.h>
#include "../common/bench.h"

#define BATCH 64

static struct kmem_cache *cache;
static size_t obj_size;

static void *do_alloc(int mode)
{
	if (mode == 0)
		return malloc(obj_size);
	if (mode == 1)
		return uslab_kmem_cache_alloc(cache, USLAB_GFP_KERNEL);
	return uslab___kmalloc(obj_size, USLAB_GFP_KERNEL);
}

static void do_free(int mode, void *p)
{
	if (mode == 0)
		free(p);
	else if (mode == 1)
		uslab_kmem_cache_free(cache, p);
	else
		uslab_kfree(p);
}

static void run_batches(int mode, unsigned long rounds)
{
	void *p[BATCH];

	for (unsigned long r = 0; r < rounds; r++) {
		for (int i = 0; i < BATCH; i++) {
			p[i] = do_alloc(mode);
			*(volatile char *)p[i] = (char)i;
		}
		for (int i = 0; i < BATCH; i++)
			do_free(mode, p[i]);
	}
}

static double time_batches(int mode, unsigned long rounds)
{
	uint64_t t0 = bench_now_ns();

	run_batches(mode, rounds);
	return (double)(bench_now_ns() - t0) / (double)(rounds * BATCH);
}

static void run_bulk(unsigned long rounds)
{
	enum { N = 1000 };
	static void *p[N];
	uint64_t t0 = bench_now_ns();

	for (unsigned long r = 0; r < rounds; r++) {
		if (uslab_kmem_cache_alloc_bulk(cache, USLAB_GFP_KERNEL, N, p) != N) {
			fprintf(stderr, "bulk alloc failed\n");
			exit(1);
		}
		bench_escape(p);
		uslab_kmem_cache_free_bulk(cache, N, p);
	}
	bench_result("ns_per_object", (double)(bench_now_ns() - t0) / (double)(rounds * N), "ns");
}

/* ---- producer/consumer through a single-producer single-consumer ring ---- */
#define RING 4096
static void *ring[RING];
static atomic_ulong head, tail;
static int pc_mode;
static unsigned long pc_total;

static void *consumer(void *arg)
{
	(void)arg;
	for (unsigned long n = 0; n < pc_total; n++) {
		unsigned long t = atomic_load_explicit(&tail, memory_order_relaxed);

		while (atomic_load_explicit(&head, memory_order_acquire) == t)
			;
		void *p = ring[t % RING];
		atomic_store_explicit(&tail, t + 1, memory_order_release);
		do_free(pc_mode, p);
	}
	return NULL;
}

static void run_prodcons(int mode, unsigned long total)
{
	pthread_t th;
	uint64_t t0;

	pc_mode = mode;
	pc_total = total;
	t0 = bench_now_ns();
	pthread_create(&th, NULL, consumer, NULL);
	for (unsigned long n = 0; n < total; n++) {
		void *p = do_alloc(mode);
		unsigned long h = atomic_load_explicit(&head, memory_order_relaxed);

		*(volatile char *)p = 1;
		while (h - atomic_load_explicit(&tail, memory_order_acquire) >= RING)
			;
		ring[h % RING] = p;
		atomic_store_explicit(&head, h + 1, memory_order_release);
	}
	pthread_join(th, NULL);
	bench_result("ns_per_object", (double)(bench_now_ns() - t0) / (double)total, "ns");
}

int main(int argc, char **argv)
{
	const char *mode;
	unsigned long pairs = 0, rounds;

	if (argc < 3) {
		fprintf(stderr, "usage: %s MODE SIZE [PAIRS]\n", argv[0]);
		return 2;
	}
	mode = argv[1];
	obj_size = bench_parse_size(argv[2]);
	if (argc > 3)
		pairs = strtoul(argv[3], NULL, 0);
	cache = uslab_kmem_cache_create("bench_obj", (unsigned int)obj_size, 0, 0, NULL);
	if (!cache) {
		fprintf(stderr, "cache creation failed\n");
		return 1;
	}
	if (!strcmp(mode, "bulk")) {
		run_bulk(pairs ? pairs : 2000);
		return 0;
	}
	if (!strncmp(mode, "prodcons", 8)) {
		run_prodcons(strcmp(mode, "prodcons") ? 0 : 1, pairs ? pairs : 2000000);
		return 0;
	}
	int m = !strcmp(mode, "malloc") ? 0 : !strcmp(mode, "kmem_cache") ? 1 :
		!strcmp(mode, "kmalloc") ? 2 : -1;
	if (m < 0) {
		fprintf(stderr, "unknown mode %s\n", mode);
		return 2;
	}
	if (pairs) {	/* fixed work, for instruction counting */
		run_batches(m, pairs / BATCH);
		return 0;
	}
	run_batches(m, 2000);	/* warm up: slabs exist, caches populated */
	rounds = 40000;
	bench_result("ns_per_pair", time_batches(m, rounds), "ns");
	return 0;
}
