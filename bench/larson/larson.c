/* SPDX-License-Identifier: MIT */
/*
 * larson.c - a server simulation after Larson and Krishnan's benchmark:
 * each of T threads owns an array of slots holding objects of random sizes
 * and replaces a random slot's object again and again.  A thread lives for a
 * fixed number of replacements, then ends and a new thread takes over its
 * slots, so objects are freed by threads other than the ones that made them,
 * and per-thread caches of ended threads must be given back.
 *
 * usage: larson [api=malloc|kmalloc] [threads=2] [slots=1000] [min=16]
 *               [max=1024] [life=20000] [time=0.25]
 * The slots are first filled by the main thread.  Each replacement frees a
 * slot's object, allocates min..max bytes and writes its first and last byte.
 * Prints "RESULT ns_per_op <wall ns / replacements of all threads> ns" and
 * "RESULT peak_rss_kib <VmHWM> KiB".
 *
 * uslab-bench: malloc (also built malloc-only, see bench/bench.mk)
 */
#include <pthread.h>
#include "../common/api.h"

struct lineage {
	void **slot;		/* the objects this line of threads owns */
	uint64_t rng;		/* random state, carried from thread to thread */
	unsigned long ops;	/* replacements done by all its threads */
};

static struct bench_api api;
static size_t nslots, min_size, max_size;
static unsigned long life;
static uint64_t deadline_ns;
static struct lineage *lines;

static BENCH_ALWAYS_INLINE size_t random_size(uint64_t *rng)
{
	return min_size + (size_t)bench_rand_below(rng, max_size - min_size + 1);
}

static BENCH_ALWAYS_INLINE void *new_object(enum bench_api_kind kind, uint64_t *rng)
{
	return bench_alloc_touched(&api, kind, random_size(rng), "larson");
}

static BENCH_ALWAYS_INLINE void replace_many(enum bench_api_kind kind, struct lineage *l)
{
	uint64_t rng = l->rng;

	for (unsigned long n = 0; n < life; n++) {
		size_t i = (size_t)bench_rand_below(&rng, nslots);

		bench_free(&api, kind, l->slot[i]);
		l->slot[i] = new_object(kind, &rng);
	}
	l->rng = rng;
	l->ops += life;
}

/* One thread's life: a fixed number of replacements. */
static void *generation(void *arg)
{
	BENCH_API_DISPATCH(api.kind, replace_many, arg);
	return NULL;
}

/* A line of threads: each starts when the previous one has ended. */
static void lineage_work(unsigned int i, void *arg)
{
	pthread_t th;

	(void)arg;
	do {
		if (pthread_create(&th, NULL, generation, &lines[i]))
			bench_die("larson: pthread_create failed");
		pthread_join(th, NULL);
	} while (bench_now_ns() < deadline_ns);
}

static BENCH_ALWAYS_INLINE void fill(enum bench_api_kind kind, struct lineage *l)
{
	for (size_t i = 0; i < nslots; i++)
		l->slot[i] = new_object(kind, &l->rng);
}

static BENCH_ALWAYS_INLINE void empty(enum bench_api_kind kind, struct lineage *l)
{
	for (size_t i = 0; i < nslots; i++)
		bench_free(&api, kind, l->slot[i]);
}

static struct bench_opt opts[] = {
	{ "api", "malloc", "malloc or kmalloc" },
	{ "threads", "2", "threads alive at a time" },
	{ "slots", "1000", "objects owned by each thread" },
	{ "min", "16", "smallest object size" },
	{ "max", "1024", "largest object size" },
	{ "life", "20000", "replacements a thread does before it ends" },
	{ "time", "0.25", "seconds to run" },
	{ NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	unsigned long threads, ops = 0;
	uint64_t t0;

	bench_parse_opts(argc, argv, opts, "larson");
	threads = bench_opt_ul(opts, "threads");
	nslots = bench_opt_size(opts, "slots");
	min_size = bench_opt_size(opts, "min");
	max_size = bench_opt_size(opts, "max");
	life = bench_opt_ul(opts, "life");
	if (!threads || threads > 1024 || !nslots || !min_size || max_size < min_size || !life)
		bench_die("larson: need threads in 1..1024, slots > 0, 0 < min <= max, life > 0");
	bench_api_init(&api, opts, 0);
	lines = bench_map(threads * sizeof(*lines));
	for (unsigned long i = 0; i < threads; i++) {
		lines[i].slot = bench_map(nslots * sizeof(void *));
		lines[i].rng = 1000 + i;
		BENCH_API_DISPATCH(api.kind, fill, &lines[i]);
	}
	t0 = bench_now_ns();
	deadline_ns = t0 + (uint64_t)(bench_opt_double(opts, "time") * 1e9);
	bench_run_threads((unsigned int)threads, lineage_work, NULL);
	for (unsigned long i = 0; i < threads; i++)
		ops += lines[i].ops;
	bench_result("ns_per_op", (double)(bench_now_ns() - t0) / (double)ops, "ns");
	bench_result("peak_rss_kib", (double)bench_peak_rss_kib(), "KiB");
	for (unsigned long i = 0; i < threads; i++)
		BENCH_API_DISPATCH(api.kind, empty, &lines[i]);
	bench_api_exit(&api);
	return 0;
}
