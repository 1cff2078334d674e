/* SPDX-License-Identifier: MIT */
/*
 * xthread.c - objects freed by a thread other than the one that allocated
 * them (the remote free path).
 *
 * usage: xthread [mode=prodcons|ring] [api=malloc|kmem_cache|kmalloc]
 *                [size=64] [batch=32] [threads=2] [time=0.25]
 *   prodcons  threads/2 pairs: one thread allocates, its partner frees
 *   ring      every thread allocates batches, hands them to the next thread
 *             (i + 1) mod threads, and frees what the previous one sent it:
 *             all threads free each other's objects
 * Objects travel through single-producer single-consumer queues that the
 * benchmark keeps in mmap'd memory, a batch at a time.
 * Prints "RESULT ns_per_object <wall ns / objects freed> ns"
 * and "RESULT peak_rss_kib <VmHWM> KiB".
 *
 * uslab-bench: malloc (also built malloc-only, see bench/bench.mk)
 */
#include <stdatomic.h>
#include "../common/api.h"

#define QCAP 4096		/* entries per queue, a power of two */
#define MAX_BATCH 256
#define CHECK_EVERY 16		/* batches between two looks at the clock */

struct queue {
	_Alignas(64) atomic_ulong head;	/* next entry to fill: written by the producer */
	atomic_int closed;		/* the producer has sent its last batch */
	_Alignas(64) atomic_ulong tail;	/* next entry to take: written by the consumer */
	_Alignas(64) void *slot[QCAP];	/* entries head-QCAP .. head-1 */
};

enum mode { PRODCONS, RING };

static struct bench_api api;
static enum mode mode;
static size_t obj_size, batch;
static unsigned int nthreads;
static uint64_t deadline_ns;
static struct queue *queues;	/* queue i carries objects into thread i */
static atomic_ulong total_freed;

static int try_push(struct queue *q, void **objs, size_t n)
{
	unsigned long h = atomic_load_explicit(&q->head, memory_order_relaxed);

	if (QCAP - (h - atomic_load_explicit(&q->tail, memory_order_acquire)) < n)
		return 0;
	for (size_t i = 0; i < n; i++)
		q->slot[(h + i) & (QCAP - 1)] = objs[i];
	/* why release: the consumer must see the entries before the new head */
	atomic_store_explicit(&q->head, h + n, memory_order_release);
	return 1;
}

/* Free whatever q holds; returns the number freed. */
static BENCH_ALWAYS_INLINE size_t drain(enum bench_api_kind kind, struct queue *q)
{
	unsigned long t = atomic_load_explicit(&q->tail, memory_order_relaxed);
	unsigned long h = atomic_load_explicit(&q->head, memory_order_acquire);

	for (unsigned long i = t; i != h; i++)
		bench_free(&api, kind, q->slot[i & (QCAP - 1)]);
	atomic_store_explicit(&q->tail, h, memory_order_release);
	return h - t;
}

/* Send one batch to q, freeing our own inbox (if any) while q is full:
 * in a ring every thread may be waiting for the next one at once. */
static BENCH_ALWAYS_INLINE size_t send(enum bench_api_kind kind, struct queue *q,
				       struct queue *inbox, void **objs)
{
	unsigned int spins = 0;
	size_t freed = 0;

	while (!try_push(q, objs, batch)) {
		if (inbox)
			freed += drain(kind, inbox);
		bench_spin(&spins);
	}
	return freed;
}

static BENCH_ALWAYS_INLINE void produce(enum bench_api_kind kind, struct queue *out,
					struct queue *inbox, size_t *freed)
{
	void *objs[MAX_BATCH];
	unsigned long n = 0;

	do {
		bench_alloc_many(&api, kind, obj_size, objs, batch);
		for (size_t i = 0; i < batch; i++)
			bench_touch(objs[i], i);
		*freed += send(kind, out, inbox, objs);
		if (inbox)
			*freed += drain(kind, inbox);
	} while (++n % CHECK_EVERY || bench_now_ns() < deadline_ns);
	atomic_store_explicit(&out->closed, 1, memory_order_release);
}

/* Free until the producer of q has closed it and q is empty. */
static BENCH_ALWAYS_INLINE void consume(enum bench_api_kind kind, struct queue *q, size_t *freed)
{
	unsigned int spins = 0;

	for (;;) {
		int closed = atomic_load_explicit(&q->closed, memory_order_acquire);
		size_t n = drain(kind, q);

		*freed += n;
		if (closed && !n)
			return;
		if (!n)
			bench_spin(&spins);
	}
}

static BENCH_ALWAYS_INLINE void run_thread(enum bench_api_kind kind, unsigned int i, size_t *freed)
{
	if (mode == RING) {
		produce(kind, &queues[(i + 1) % nthreads], &queues[i], freed);
		consume(kind, &queues[i], freed);
	} else if (i % 2 == 0) {
		produce(kind, &queues[i + 1], NULL, freed);
	} else {
		consume(kind, &queues[i], freed);
	}
}

static void thread_work(unsigned int i, void *arg)
{
	size_t freed = 0;

	(void)arg;
	BENCH_API_DISPATCH(api.kind, run_thread, i, &freed);
	atomic_fetch_add(&total_freed, freed);
}

static struct bench_opt opts[] = {
	{ "mode", "prodcons", "prodcons or ring" },
	{ "api", "malloc", "malloc, kmem_cache or kmalloc" },
	{ "size", "64", "object size in bytes" },
	{ "batch", "32", "objects sent at a time (1..256)" },
	{ "threads", "2", "threads (prodcons: even)" },
	{ "time", "0.25", "seconds of allocating" },
	{ NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	static const char *const modes[] = { "prodcons", "ring", NULL };
	unsigned long threads;
	uint64_t t0;

	bench_parse_opts(argc, argv, opts, "xthread");
	mode = (enum mode)bench_opt_choice(opts, "mode", modes);
	obj_size = bench_opt_size(opts, "size");
	batch = bench_opt_size(opts, "batch");
	threads = bench_opt_ul(opts, "threads");
	if (!obj_size || !batch || batch > MAX_BATCH)
		bench_die("xthread: need size > 0 and batch in 1..%d", MAX_BATCH);
	if (threads < 2 || threads > 1024 || (mode == PRODCONS && threads % 2))
		bench_die("xthread: threads must be 2..1024 (and even for prodcons)");
	nthreads = (unsigned int)threads;
	bench_api_init(&api, opts, obj_size);
	if (api.kind == BENCH_BULK)
		bench_die("xthread: api=bulk is not offered here");
	queues = bench_map(nthreads * sizeof(*queues));
	t0 = bench_now_ns();
	deadline_ns = t0 + (uint64_t)(bench_opt_double(opts, "time") * 1e9);
	bench_run_threads(nthreads, thread_work, NULL);
	bench_result("ns_per_object", (double)(bench_now_ns() - t0) / (double)total_freed, "ns");
	bench_result("peak_rss_kib", (double)bench_peak_rss_kib(), "KiB");
	bench_api_exit(&api);
	return 0;
}
