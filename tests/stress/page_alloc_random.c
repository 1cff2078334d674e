// SPDX-License-Identifier: MIT
/*
 * page_alloc_random.c - two threads allocate and free blocks of random
 * orders (OPS_PER_THREAD operations each, 10^6 in all), some of them freed
 * by the other thread, while the invariants are checked every
 * CHECK_EVERY operations and at the end.
 *
 * Every page of a block carries a tag in its first word: the owner's id
 * and the page's pfn, written on allocation and checked on free, so a block
 * handed out twice (or overlapping another) is caught by the owner whose
 * tag was overwritten.  At the end every page must be free again.
 *
 * uslab-test: threaded
 */
#include <pthread.h>
#include <stdint.h>

#include "common/test.h"
#include "mm/internal.h"

#define NR_THREADS	2
#define OPS_PER_THREAD	500000UL
#define SLOTS		256	/* blocks a thread holds at most */
#define CHECK_EVERY	50000UL
#define HANDOFF		64	/* blocks in flight to the other thread */
#define ARENA_OPTIONS	"arena_size=256M section_size=32M page_reporting_threshold=16M"

struct block {
	struct page *page;	/* NULL: slot empty */
	unsigned int order;
	uint64_t owner;		/* tag owner id */
};

/* Blocks one thread passes to the other to free. */
struct handoff {
	pthread_mutex_t lock;
	struct block q[HANDOFF];
	unsigned int n;		/* entries in q */
};

struct worker {
	unsigned int id;
	uint64_t rng;
	struct block slot[SLOTS];
	struct handoff *to_other;	/* we put blocks here */
	struct handoff *from_other;	/* we free blocks from here */
	unsigned long allocs, frees, failures, handoffs, remote_frees;	/* operation counts */
};

static struct handoff handoffs[NR_THREADS] = {
	{ .lock = PTHREAD_MUTEX_INITIALIZER }, { .lock = PTHREAD_MUTEX_INITIALIZER },
};

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Mostly the per-CPU orders, sometimes a large block. */
static unsigned int random_order(uint64_t *rng)
{
	uint64_t r = next_rand(rng) % 100;

	if (r < 85)
		return (unsigned int)(r % 4);
	if (r < 98)
		return 4 + (unsigned int)(r % 4);
	return 8 + (unsigned int)(r % 3);
}

static uint64_t tag_of(uint64_t owner, unsigned long pfn)
{
	return owner << 48 | pfn;
}

static void tag_block(struct block *b)
{
	unsigned long pfn = page_to_pfn(b->page), i;

	for (i = 0; i < (1UL << b->order); i++)
		*(volatile uint64_t *)page_address(b->page + i) = tag_of(b->owner, pfn + i);
}

static void check_and_free(struct block *b)
{
	unsigned long pfn = page_to_pfn(b->page), i;

	for (i = 0; i < (1UL << b->order); i++) {
		uint64_t got = *(volatile uint64_t *)page_address(b->page + i);

		/* why not ck_assert: Check writes a message per passing assert */
		if (got != tag_of(b->owner, pfn + i))
			ck_abort_msg("pfn %#lx: tag %#llx, expected %#llx (block handed out twice?)",
				     pfn + i, (unsigned long long)got,
				     (unsigned long long)tag_of(b->owner, pfn + i));
	}
	__free_pages(b->page, b->order);
	b->page = NULL;
}

static void drain_handoff(struct worker *w)
{
	struct handoff *h = w->from_other;

	pthread_mutex_lock(&h->lock);
	while (h->n) {
		check_and_free(&h->q[--h->n]);
		w->remote_frees++;
	}
	pthread_mutex_unlock(&h->lock);
}

/* Give a block to the other thread if there is room; true if given. */
static bool hand_off(struct worker *w, struct block *b)
{
	struct handoff *h = w->to_other;
	bool given = false;

	pthread_mutex_lock(&h->lock);
	if (h->n < HANDOFF) {
		h->q[h->n++] = *b;
		b->page = NULL;
		given = true;
	}
	pthread_mutex_unlock(&h->lock);
	return given;
}

static void one_op(struct worker *w)
{
	struct block *b = &w->slot[next_rand(&w->rng) % SLOTS];

	if (b->page) {
		if (next_rand(&w->rng) % 8 == 0 && hand_off(w, b)) {
			w->handoffs++;
			return;
		}
		check_and_free(b);
		w->frees++;
		return;
	}
	b->order = random_order(&w->rng);
	b->owner = w->id + 1;
	b->page = alloc_pages(GFP_KERNEL | __GFP_NOWARN, b->order);
	if (!b->page) {
		w->failures++;
		return;
	}
	if (page_count(b->page) != 1)
		ck_abort_msg("new block pfn %#lx has refcount %d", page_to_pfn(b->page),
			     page_count(b->page));
	tag_block(b);
	w->allocs++;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	unsigned long op;
	unsigned int i;

	for (op = 1; op <= OPS_PER_THREAD; op++) {
		one_op(w);
		if (op % 64 == 0)
			drain_handoff(w);
		if (w->id == 0 && op % CHECK_EVERY == 0)
			page_alloc_check_invariants();
	}
	for (i = 0; i < SLOTS; i++)
		if (w->slot[i].page)
			check_and_free(&w->slot[i]);
	return NULL;
}

START_TEST(test_random_alloc_free)
{
	static struct worker workers[NR_THREADS];
	struct uslab_memmap_stats st;
	pthread_t t[NR_THREADS];
	unsigned long total = 0;
	unsigned int i;

	ck_assert_int_eq(parse_option_string(ARENA_OPTIONS), 0);
	for (i = 0; i < NR_THREADS; i++) {
		workers[i].id = i;
		workers[i].rng = 0x9e3779b97f4a7c15ull * (i + 1);
		workers[i].to_other = &handoffs[(i + 1) % NR_THREADS];
		workers[i].from_other = &handoffs[i];
	}
	for (i = 0; i < NR_THREADS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, worker_main, &workers[i]), 0);
	for (i = 0; i < NR_THREADS; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	/* blocks still in flight between the threads */
	for (i = 0; i < NR_THREADS; i++)
		while (handoffs[i].n)
			check_and_free(&handoffs[i].q[--handoffs[i].n]);
	for (i = 0; i < NR_THREADS; i++) {
		total += workers[i].allocs + workers[i].frees + workers[i].handoffs +
			 workers[i].failures;
		ck_assert_uint_gt(workers[i].allocs, OPS_PER_THREAD / 3);
	}
	ck_assert_uint_eq(total, NR_THREADS * OPS_PER_THREAD);
	ck_assert_uint_gt(workers[0].remote_frees + workers[1].remote_frees, 0);
	page_alloc_check_invariants();
	drain_all_pages();
	uslab_memmap_stats(&st);
	/* every page is free again */
	ck_assert_uint_eq(st.pages_free, st.pages_online);
	ck_assert_uint_eq(nr_free_pages(), st.pages_online);
	page_alloc_check_invariants();
}
END_TEST

static Suite *page_alloc_random_suite(void)
{
	Suite *s = suite_create("page_alloc_random");
	TCase *tc = tcase_create("stress");

	tcase_set_timeout(tc, 300);	/* a safety net for slow sanitizer runs, not a test */
	tcase_add_test(tc, test_random_alloc_free);
	suite_add_tcase(s, tc);
	return s;
}
USLAB_TEST_MAIN(page_alloc_random_suite)
