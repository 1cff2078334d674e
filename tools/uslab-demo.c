/* SPDX-License-Identifier: MIT */
/*
 * uslab-demo - the page allocator at work, then a look at the memory map.
 *
 * usage: uslab-demo [THREADS [ROUNDS]]      (defaults: 4 threads, 20000 rounds)
 *
 * Each thread keeps a small working set of blocks of random order (0 to
 * DEMO_MAX_ORDER).  Every round it frees one slot's block, if any, and
 * allocates a new one there, stamping the block's first and last word with
 * the thread and slot; the stamp is checked before every free, so a block
 * handed out twice, or overlapping another, is caught.  At the end the
 * threads free everything and the program prints /proc/buddyinfo-style free
 * lists and the memory map's statistics, including what the memory map costs
 * per page.  Exit status 0 iff every allocation succeeded and every stamp
 * was intact.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <uslab/gfp.h>

#define DEMO_MAX_ORDER	5	/* blocks of 1 .. 32 pages */
#define DEMO_SLOTS	64	/* blocks a thread holds at most */
#define DEMO_MAX_THREADS 64

struct demo_block {
	struct page *page;	/* the block, or NULL for an empty slot */
	unsigned int order;	/* its order */
};

struct demo_thread {
	pthread_t tid;				/* the thread */
	unsigned int id;			/* 0 .. threads-1 */
	unsigned long rounds;			/* rounds to run */
	uint64_t rng;				/* xorshift state */
	unsigned long allocs[DEMO_MAX_ORDER + 1];	/* successful allocations per order */
	unsigned long failures;			/* alloc_pages returned NULL */
	unsigned long bad_stamps;		/* blocks found overwritten */
	struct demo_block slot[DEMO_SLOTS];	/* the working set */
};

static uint64_t next_random(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static uint64_t stamp_of(const struct demo_thread *t, unsigned int slot)
{
	return ((uint64_t)t->id << 32) | slot;
}

/* Stamp the first and last word of a block with its owner. */
static void stamp(struct demo_thread *t, unsigned int slot)
{
	struct demo_block *b = &t->slot[slot];
	uint64_t *first = page_address(b->page);
	uint64_t *last = (uint64_t *)((char *)first + (PAGE_SIZE << b->order)) - 1;

	*first = *last = stamp_of(t, slot);
}

static void check_and_free(struct demo_thread *t, unsigned int slot)
{
	struct demo_block *b = &t->slot[slot];
	uint64_t *first = page_address(b->page);
	uint64_t *last = (uint64_t *)((char *)first + (PAGE_SIZE << b->order)) - 1;

	if (*first != stamp_of(t, slot) || *last != stamp_of(t, slot))
		t->bad_stamps++;
	__free_pages(b->page, b->order);
	b->page = NULL;
}

static void one_round(struct demo_thread *t)
{
	uint64_t r = next_random(&t->rng);
	unsigned int slot = r % DEMO_SLOTS;
	unsigned int order = (r >> 16) % (DEMO_MAX_ORDER + 1);
	struct demo_block *b = &t->slot[slot];

	if (b->page)
		check_and_free(t, slot);
	b->page = alloc_pages(GFP_KERNEL, order);
	if (!b->page) {
		t->failures++;
		return;
	}
	b->order = order;
	t->allocs[order]++;
	stamp(t, slot);
}

static void *demo_thread_fn(void *arg)
{
	struct demo_thread *t = arg;
	unsigned long i;

	for (i = 0; i < t->rounds; i++)
		one_round(t);
	for (i = 0; i < DEMO_SLOTS; i++)
		if (t->slot[i].page)
			check_and_free(t, (unsigned int)i);
	return NULL;
}

static double mib(unsigned long bytes)
{
	return bytes / (1024.0 * 1024.0);
}

static void print_memmap_stats(void)
{
	struct uslab_memmap_stats st;
	double per_page;

	uslab_memmap_stats(&st);
	per_page = st.pages_online ? (double)st.memmap_bytes_committed / st.pages_online : 0;
	printf("memory map:\n");
	printf("  arena reserved          %10.1f MiB\n", mib(st.arena_bytes));
	printf("  vmemmap reserved        %10.1f MiB\n", mib(st.vmemmap_bytes));
	printf("  section size            %10.1f MiB\n", mib(st.section_bytes));
	printf("  sections online         %10lu\n", st.sections_online);
	printf("  pages online            %10lu  (%.1f MiB)\n", st.pages_online,
	       mib(st.pages_online * PAGE_SIZE));
	printf("  pages free              %10lu\n", st.pages_free);
	printf("  pages given back to OS  %10lu\n", st.pages_reported);
	printf("  struct page memory      %10.1f MiB committed\n", mib(st.memmap_bytes_committed));
	printf("  memory map per page     %10.1f bytes  (%.2f%% of a %lu-byte page)\n",
	       per_page, 100.0 * per_page / PAGE_SIZE, PAGE_SIZE);
	printf("  other bookkeeping       %10lu bytes\n", st.bookkeeping_bytes);
	printf("  orders                  0 .. %u\n", st.max_order ? st.max_order - 1 : 0);
}

/* Sum the threads' counts, print them; return the number of problems. */
static unsigned long report(struct demo_thread *t, unsigned int nr)
{
	unsigned long allocs[DEMO_MAX_ORDER + 1] = { 0 }, failures = 0, bad = 0;
	unsigned int i, o;

	for (i = 0; i < nr; i++) {
		for (o = 0; o <= DEMO_MAX_ORDER; o++)
			allocs[o] += t[i].allocs[o];
		failures += t[i].failures;
		bad += t[i].bad_stamps;
	}
	printf("allocations by order:");
	for (o = 0; o <= DEMO_MAX_ORDER; o++)
		printf(" %u:%lu", o, allocs[o]);
	printf("\nfailed allocations: %lu, overwritten blocks: %lu\n\n", failures, bad);
	return failures + bad;
}

static unsigned long parse_arg(const char *s, unsigned long lo, unsigned long hi, const char *what)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "uslab-demo: %s must be a number from %lu to %lu, not '%s'\n",
			what, lo, hi, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static struct demo_thread threads[DEMO_MAX_THREADS];
	unsigned int nr = argc > 1 ? parse_arg(argv[1], 1, DEMO_MAX_THREADS, "THREADS") : 4;
	unsigned long rounds = argc > 2 ? parse_arg(argv[2], 1, 100000000, "ROUNDS") : 20000;
	unsigned int i;

	printf("uslab-demo: %s allocator, %u threads x %lu rounds of alloc_pages/__free_pages,"
	       " orders 0..%d\n\n", uslab_allocator_name(), nr, rounds, DEMO_MAX_ORDER);
	for (i = 0; i < nr; i++) {
		threads[i].id = i;
		threads[i].rounds = rounds;
		threads[i].rng = 0x9e3779b97f4a7c15ull * (i + 1);
		if (pthread_create(&threads[i].tid, NULL, demo_thread_fn, &threads[i])) {
			fprintf(stderr, "uslab-demo: cannot start thread %u\n", i);
			return 1;
		}
	}
	for (i = 0; i < nr; i++)
		pthread_join(threads[i].tid, NULL);
	if (report(threads, nr))
		return 1;
	printf("buddyinfo (free blocks per order, all memory freed):\n");
	fflush(stdout);
	uslab_show_buddyinfo(stdout);
	printf("\n");
	print_memmap_stats();
	return 0;
}
