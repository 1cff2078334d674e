// SPDX-License-Identifier: MIT
/*
 * page_alloc_bench.c - the buddy page allocator against the OS and glibc.
 *
 * Measures one alloc+free pair of a block of 2^order pages (orders 0, 3, 9
 * by default) three ways, in one run:
 *   uslab          uslab_alloc_pages(GFP_KERNEL, order) + uslab___free_pages
 *   mmap           mmap + munmap of PAGE_SIZE << order bytes
 *   aligned_alloc  glibc's aligned_alloc(4096, size) + free
 * each with 1 and 2 threads, and each in two variants: "bare" (the block is
 * not touched) and "touch" (one byte written in every page of the block
 * after each allocation, so that mmap's page faults are paid where a real
 * user would pay them).  The pattern is a batch: BATCH blocks allocated,
 * then freed in allocation order.  With 2 threads each thread runs the same
 * loop at once, and the figure is wall time / pairs per thread.
 *
 * Every configuration runs `reps` times, the three methods interleaved
 * within a repetition so that machine drift hits all alike; the table shows
 * medians and the ratios mmap/uslab and aligned_alloc/uslab.  Then the
 * memory map's cost per page is printed from uslab_memmap_stats().
 * Lines "RESULT <name> <value> <unit>" are for bench/run.py.
 *
 * usage: page_alloc_bench [reps=7] [ms=40] [orders=0,3,9]
 */
#include <pthread.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <uslab/uslab.h>

#include "../common/bench.h"

#define PAGE_SZ		4096UL
#define BATCH		8
#define MAX_REPS	64
#define MAX_ORDERS	8

enum method { M_USLAB, M_MMAP, M_ALIGNED, NR_METHODS };
static const char *const method_name[NR_METHODS] = { "uslab", "mmap", "aligned_alloc" };

struct config {
	enum method method;
	unsigned int order;
	bool touch;
	unsigned long rounds;	/* batches per thread */
};

static void touch_pages(char *p, unsigned int order)
{
	unsigned long i;

	for (i = 0; i < (1UL << order); i++)
		bench_touch(p + i * PAGE_SZ, i);
}

static void *alloc_block(const struct config *c, void **handle)
{
	size_t size = PAGE_SZ << c->order;
	struct page *page;
	void *p;

	switch (c->method) {
	case M_USLAB:
		page = uslab_alloc_pages(USLAB_GFP_KERNEL, c->order);
		if (!page)
			bench_die("uslab_alloc_pages(order %u) failed", c->order);
		*handle = page;
		return uslab_page_address(page);
	case M_MMAP:
		p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			bench_die("mmap failed");
		return *handle = p;
	default:
		p = aligned_alloc(PAGE_SZ, size);
		if (!p)
			bench_die("aligned_alloc failed");
		return *handle = p;
	}
}

static void free_block(const struct config *c, void *handle)
{
	if (c->method == M_USLAB)
		uslab___free_pages(handle, c->order);
	else if (c->method == M_MMAP)
		munmap(handle, PAGE_SZ << c->order);
	else
		free(handle);
}

static void run_rounds(const struct config *c)
{
	void *handle[BATCH], *p;
	unsigned long r;
	int i;

	for (r = 0; r < c->rounds; r++) {
		for (i = 0; i < BATCH; i++) {
			p = alloc_block(c, &handle[i]);
			if (c->touch)
				touch_pages(p, c->order);
			bench_escape(p);
		}
		for (i = 0; i < BATCH; i++)
			free_block(c, handle[i]);
	}
}

static void thread_fn(unsigned int i, void *arg)
{
	(void)i;
	run_rounds(arg);
}

/* ns per alloc+free pair (per thread: wall time / pairs each thread did). */
static double measure(const struct config *c, unsigned int threads)
{
	uint64_t t0 = bench_now_ns();

	if (threads == 1)
		run_rounds(c);
	else
		bench_run_threads(threads, thread_fn, (void *)c);
	return (double)(bench_now_ns() - t0) / (double)(c->rounds * BATCH);
}

/* Rounds that make one single-thread measurement last at least ms (also a warm-up). */
static unsigned long calibrate(struct config c, unsigned long ms)
{
	uint64_t t0;

	for (c.rounds = 4;; c.rounds *= 2) {
		t0 = bench_now_ns();
		run_rounds(&c);
		if (bench_now_ns() - t0 >= ms * 1000000UL || c.rounds >= (1UL << 24))
			return c.rounds;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void report_row(unsigned int order, unsigned int threads, bool touch,
		       const double *med)
{
	char name[96];
	int m;

	printf("%5u  %7u  %-5s  %10.1f  %10.1f  %13.1f  %10.1fx  %13.1fx\n",
	       order, threads, touch ? "touch" : "bare", med[M_USLAB], med[M_MMAP],
	       med[M_ALIGNED], med[M_MMAP] / med[M_USLAB], med[M_ALIGNED] / med[M_USLAB]);
	for (m = 0; m < NR_METHODS; m++) {
		snprintf(name, sizeof(name), "page_alloc_o%u_t%u_%s_%s", order, threads,
			 touch ? "touch" : "bare", method_name[m]);
		bench_result(name, med[m], "ns");
	}
}

/* One row of the table: every method, interleaved, reps times. */
static void run_row(unsigned int order, unsigned int threads, bool touch,
		    unsigned int reps, unsigned long ms)
{
	struct config c[NR_METHODS];
	double v[NR_METHODS][MAX_REPS], med[NR_METHODS];
	unsigned int r;
	int m;

	for (m = 0; m < NR_METHODS; m++) {
		c[m] = (struct config){ .method = m, .order = order, .touch = touch };
		c[m].rounds = calibrate(c[m], ms);
	}
	for (r = 0; r < reps; r++)
		for (m = 0; m < NR_METHODS; m++)
			v[m][r] = measure(&c[m], threads);
	for (m = 0; m < NR_METHODS; m++)
		med[m] = median(v[m], reps);
	report_row(order, threads, touch, med);
}

static void report_memmap_cost(void)
{
	struct uslab_memmap_stats st;
	double per_page, book;

	uslab_memmap_stats(&st);
	if (!st.pages_online)
		bench_die("no section online after the run");
	per_page = (double)st.memmap_bytes_committed / (double)st.pages_online;
	book = (double)st.bookkeeping_bytes / (double)st.pages_online;
	printf("\nmemory map: %.2f B of struct page per 4 KiB page + %.3f B/page bookkeeping "
	       "(%lu B section table) = %.3f B/page\n", per_page, book, st.bookkeeping_bytes,
	       per_page + book);
	printf("            arena %lu MiB reserved, %lu of %lu sections of %lu MiB online, "
	       "vmemmap %lu MiB reserved, max_order %u\n",
	       st.arena_bytes >> 20, st.sections_online, st.arena_bytes / st.section_bytes,
	       st.section_bytes >> 20, st.vmemmap_bytes >> 20, st.max_order);
	bench_result("memmap_bytes_per_page", per_page + book, "B");
}

static unsigned int parse_orders(const char *s, unsigned int *orders)
{
	unsigned int n = 0;
	char *end;

	while (*s && n < MAX_ORDERS) {
		unsigned long o = strtoul(s, &end, 10);

		if (end == s || o > 10)
			bench_die("orders: a comma-separated list of orders 0..10, not '%s'", s);
		orders[n++] = (unsigned int)o;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			bench_die("orders: unexpected '%s'", end);
	}
	return n;
}

int main(int argc, char **argv)
{
	struct bench_opt opts[] = {
		{ "reps", "7", "repetitions per configuration (median taken)" },
		{ "ms", "40", "least milliseconds per single-thread measurement" },
		{ "orders", "0,3,9", "orders to measure, comma-separated" },
		{ NULL, NULL, NULL },
	};
	unsigned int orders[MAX_ORDERS], nr_orders, reps, i, t;
	unsigned long ms;
	int touch;

	bench_parse_opts(argc, argv, opts, "page allocator vs mmap and aligned_alloc");
	reps = (unsigned int)bench_opt_ul(opts, "reps");
	ms = bench_opt_ul(opts, "ms");
	nr_orders = parse_orders(bench_opt_str(opts, "orders"), orders);
	if (!reps || reps > MAX_REPS || !nr_orders)
		bench_die("reps must be 1..%d and orders non-empty", MAX_REPS);
	printf("ns per alloc+free pair (median of %u), batches of %d blocks\n\n", reps, BATCH);
	printf("order  threads  touch  %10s  %10s  %13s  %11s  %14s\n",
	       "uslab", "mmap", "aligned_alloc", "mmap/uslab", "aligned/uslab");
	for (touch = 0; touch <= 1; touch++)
		for (i = 0; i < nr_orders; i++)
			for (t = 1; t <= 2; t++)
				run_row(orders[i], t, touch, reps, ms);
	report_memmap_cost();
	return 0;
}
