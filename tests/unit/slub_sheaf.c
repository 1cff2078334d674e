/* SPDX-License-Identifier: MIT */
/* uslab-test: threaded */
/*
 * slub_sheaf.c - SLUB's per-CPU sheaf (slub.c §10): a free of an object
 * that is not of the cpu slab stays with the freeing CPU (the object stays
 * in use for its slab) and is the next object the slow path hands out; a
 * full sheaf gives everything back, each slab's objects as one chain,
 * newest first; kmem_cache_shrink and a thread's exit give it all back; a
 * double free while the object is in the sheaf is reported: on top of it
 * at the second free, deeper when the sheaf gives it back, before it is
 * linked twice, whatever the program wrote into it after its frees; data
 * equal to the sheaf's mark are no double free; a bad free next to good
 * ones is still reported; slub_sheaf= and big objects size it as said.
 */
#include "common/test.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "mm/slab.h"

#if CONFIG_SLUB
#include "mm/slub_fastpath.h"	/* the malloc drop-in's sheaf_push_live, sheaf_pop_live */

#define SLABS	3

static struct kmem_cache *test_cache(const char *name, unsigned int size)
{
	struct kmem_cache *s = kmem_cache_create(name, size, 0, SLAB_NOLEAKTRACE, NULL);

	ck_assert_ptr_nonnull(s);
	return s;
}

/* A cache whose sheaf holds cap objects (slub_sheaf=cap at its creation). */
static struct kmem_cache *test_cache_cap(const char *name, unsigned int size, unsigned int cap)
{
	char opt[32];
	struct kmem_cache *s;

	snprintf(opt, sizeof(opt), "slub_sheaf=%u", cap);
	ck_assert_int_eq(parse_option_string(opt), 0);
	s = test_cache(name, size);
	ck_assert_uint_eq(s->sheaf_capacity, cap);
	return s;
}

static unsigned int per_slab(const struct kmem_cache *s)
{
	return s->oo.x & 0xffff;
}

static unsigned long active_objs(struct kmem_cache *s)
{
	struct slabinfo si;

	memset(&si, 0, sizeof(si));
	get_slabinfo(s, &si);
	return si.active_objs;
}

/* Objects in use, as its slab counts them, in the slab of x. */
static unsigned int slab_inuse(const void *x)
{
	return READ_ONCE(virt_to_slab(x)->counters) & 0xffff;
}

/* Objects in use, as their slabs count them, in the SLABS slabs of objs
 * (one thread filled them slab after slab).  Unlike slabinfo's count it
 * also sees frees into slabs frozen on a CPU's partial chain. */
static unsigned int slabs_inuse(struct kmem_cache *s, void **objs)
{
	unsigned int k, sum = 0;

	for (k = 0; k < SLABS; k++)
		sum += slab_inuse(objs[k * per_slab(s)]);
	return sum;
}

/* SLABS whole slabs allocated, the cpu freelist left empty: the next
 * allocation takes the slow path. */
static void **fill_slabs(struct kmem_cache *s)
{
	unsigned int i, n = SLABS * per_slab(s);
	void **objs = calloc(n, sizeof(*objs));

	ck_assert_ptr_nonnull(objs);
	for (i = 0; i < n; i++)
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
	ck_assert_uint_eq(active_objs(s), n);
	for (i = 1; i < n; i++)		/* slab after slab */
		ck_assert_ptr_eq(virt_to_slab(objs[i]), virt_to_slab(objs[i / per_slab(s) *
									 per_slab(s)]));
	return objs;
}

static void free_all(struct kmem_cache *s, void **objs)
{
	for (unsigned int i = 0; i < SLABS * per_slab(s); i++)
		if (objs[i])
			kmem_cache_free(s, objs[i]);
	kmem_cache_destroy(s);
	free(objs);
}

START_TEST(test_free_stays_in_sheaf_and_comes_back_first)
{
	struct kmem_cache *s = test_cache("sheaf-lifo", 256);
	void **objs = fill_slabs(s);
	unsigned int n = SLABS * per_slab(s);
	struct slab *slab = virt_to_slab(objs[0]);
	unsigned int inuse = slab->inuse;

	ck_assert_uint_ge(s->sheaf_capacity, 2);
	kmem_cache_free(s, objs[0]);		/* slab 0: not the cpu slab */
	kmem_cache_free(s, objs[1]);
	ck_assert_uint_eq(active_objs(s), n);	/* still in use for their slab */
	ck_assert_uint_eq(slab->inuse, inuse);
	ck_assert(!slab->frozen);		/* not frozen onto a partial chain */
	ck_assert_ptr_eq(kmem_cache_alloc(s, GFP_KERNEL), objs[1]);
	ck_assert_ptr_eq(kmem_cache_alloc(s, GFP_KERNEL), objs[0]);
	free_all(s, objs);
}
END_TEST

/* A full sheaf gives back everything when one more object comes; each
 * slab's objects go back as one chain, newest first, and come back so. */
START_TEST(test_full_sheaf_gives_back_everything_newest_first)
{
	struct kmem_cache *s = test_cache_cap("sheaf-order", 256, 8);
	void **objs = fill_slabs(s);
	unsigned int n = SLABS * per_slab(s), i;

	ck_assert_uint_gt(per_slab(s), 9);
	for (i = 0; i < 8; i++)			/* slab 0, oldest first */
		kmem_cache_free(s, objs[i]);
	ck_assert_uint_eq(slabs_inuse(s, objs), n);
	kmem_cache_free(s, objs[8]);		/* full: all 8 go back first */
	ck_assert_uint_eq(slabs_inuse(s, objs), n - 8);
	ck_assert_ptr_eq(kmem_cache_alloc(s, GFP_KERNEL), objs[8]);	/* the sheaf's */
	/* the cpu slab is full: the next ones come from slab 0, whose freelist
	 * the flush headed with its newest object */
	for (i = 8; i-- > 0;)
		ck_assert_ptr_eq(kmem_cache_alloc(s, GFP_KERNEL), objs[i]);
	free_all(s, objs);
}
END_TEST

/* Objects of two slabs, interleaved: each slab gets back its own. */
START_TEST(test_flush_sorts_objects_by_slab)
{
	struct kmem_cache *s = test_cache_cap("sheaf-two", 256, 8);
	void **objs = fill_slabs(s);
	unsigned int p = per_slab(s), a = slab_inuse(objs[0]), b = slab_inuse(objs[p]), i;

	for (i = 0; i < 4; i++) {
		kmem_cache_free(s, objs[i]);
		kmem_cache_free(s, objs[p + i]);
	}
	ck_assert_uint_eq(slab_inuse(objs[0]), a);
	kmem_cache_free(s, objs[2 * p]);	/* slab 2 is the cpu slab: not the sheaf */
	ck_assert_uint_eq(slab_inuse(objs[0]), a);
	kmem_cache_shrink(s);
	ck_assert_uint_eq(slab_inuse(objs[0]), a - 4);
	ck_assert_uint_eq(slab_inuse(objs[p]), b - 4);
	for (i = 0; i < 4; i++)
		objs[i] = objs[p + i] = NULL;
	objs[2 * p] = NULL;
	free_all(s, objs);
}
END_TEST

/*
 * The malloc drop-in's push and pop (slub_sheaf.c §8): entries stored with
 * no slab, popped newest first, found their slabs by the flush, beside
 * entries that kmem_cache_free stored with theirs; every slab gets back
 * exactly its own.
 */
START_TEST(test_live_entries_find_their_slabs)
{
	struct kmem_cache *s = test_cache_cap("sheaf-live", 256, 8);
	void **objs = fill_slabs(s);
	unsigned int p = per_slab(s), n = SLABS * p, a = slab_inuse(objs[0]),
		     b = slab_inuse(objs[p]), i;
	struct kmem_cache_cpu *c = this_cpu_ptr_or_null(s->cpu_slab);
	void *x;

	ck_assert_ptr_nonnull(c);
	for (i = 0; i < 3; i++) {		/* slab 0 and 1, interleaved */
		ck_assert(sheaf_push_live(s, c, objs[i]));
		ck_assert(sheaf_push_live(s, c, objs[p + i]));
	}
	ck_assert_uint_eq(slabs_inuse(s, objs), n);	/* still in use for their slabs */
	ck_assert(sheaf_pop_live(c, &x));
	ck_assert_ptr_eq(x, objs[p + 2]);		/* newest first */
	ck_assert(sheaf_push_live(s, c, x));
	kmem_cache_free(s, objs[3]);		/* stored with its slab */
	kmem_cache_free(s, objs[p + 3]);
	ck_assert(!sheaf_push_live(s, c, objs[4]));	/* full */
	ck_assert_uint_eq(slabs_inuse(s, objs), n);
	kmem_cache_free(s, objs[4]);		/* gives all 8 back, then stays */
	ck_assert_uint_eq(slab_inuse(objs[0]), a - 4);
	ck_assert_uint_eq(slab_inuse(objs[p]), b - 4);
	kmem_cache_shrink(s);			/* and the last one */
	ck_assert_uint_eq(slab_inuse(objs[0]), a - 5);
	for (i = 0; i < 4; i++)
		objs[i] = objs[p + i] = NULL;
	objs[4] = NULL;
	free_all(s, objs);
}
END_TEST

/* Big objects: a sheaf holds SLUB_SHEAF_BYTES of them, 16 of 4 KiB. */
START_TEST(test_big_objects_capacity)
{
	struct kmem_cache *s = test_cache("sheaf-4k", 4096);
	void **objs = fill_slabs(s);
	unsigned int n = SLABS * per_slab(s), cap = s->sheaf_capacity, i;

	ck_assert_uint_eq(cap, 16);
	ck_assert_uint_le(cap, 2 * per_slab(s));	/* all frees below miss the cpu slab */
	for (i = 0; i < cap; i++)
		kmem_cache_free(s, objs[i]);
	ck_assert_uint_eq(slabs_inuse(s, objs), n);	/* all kept */
	kmem_cache_free(s, objs[cap]);
	ck_assert_uint_eq(slabs_inuse(s, objs), n - cap);
	for (i = 0; i <= cap; i++)
		objs[i] = NULL;
	free_all(s, objs);
}
END_TEST

START_TEST(test_shrink_gives_sheaf_back)
{
	struct kmem_cache *s = test_cache("sheaf-shrink", 256);
	void **objs = fill_slabs(s);
	unsigned int n = SLABS * per_slab(s), i;
	struct slabinfo si;

	for (i = 0; i < per_slab(s); i++)	/* all of slab 0 */
		kmem_cache_free(s, objs[i]);
	ck_assert_int_eq(kmem_cache_shrink(s), 1);	/* slabs 1 and 2 remain */
	ck_assert_uint_eq(active_objs(s), n - per_slab(s));
	memset(&si, 0, sizeof(si));
	get_slabinfo(s, &si);
	ck_assert_uint_eq(si.num_slabs, SLABS - 1);	/* the emptied slab went back */
	for (; i < n; i++)
		kmem_cache_free(s, objs[i]);
	kmem_cache_destroy(s);
	free(objs);
}
END_TEST

struct remote_free {
	struct kmem_cache *s;
	void **objs;
	unsigned int n;
};

static void *free_them(void *arg)
{
	struct remote_free *r = arg;

	for (unsigned int i = 0; i < r->n; i++)
		kmem_cache_free(r->s, r->objs[i]);
	return NULL;
}

START_TEST(test_thread_exit_gives_sheaf_back)
{
	struct kmem_cache *s = test_cache("sheaf-exit", 256);
	void **objs = fill_slabs(s);
	unsigned int n = SLABS * per_slab(s);
	struct remote_free r = { s, objs, 4 };
	pthread_t t;

	ck_assert_uint_le(4, s->sheaf_capacity);
	ck_assert_int_eq(pthread_create(&t, NULL, free_them, &r), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_uint_eq(slabs_inuse(s, objs), n - 4);	/* its sheaf went back at exit */
	r.objs += 4;
	r.n = n - 4;
	free_them(&r);
	kmem_cache_destroy(s);
	free(objs);
}
END_TEST

/* The word of x that holds its free pointer. */
static unsigned long *fp_word(const struct kmem_cache *s, void *x)
{
	return (unsigned long *)((char *)x + s->offset);
}

/* The mark a flush writes into x's free pointer word first (slub_sheaf.c
 * §6): x + 1 encoded as a free pointer is (slub_internal.h). */
static unsigned long sheaf_mark_of(const struct kmem_cache *s, void *x)
{
	/* the key: s->random, x, and x's byte-swapped region of
	 * 2^(PAGE_SHIFT + MAX_ORDER_LIMIT - 1) bytes */
	unsigned long region = (unsigned long)x >> (PAGE_SHIFT + MAX_ORDER_LIMIT - 1);

	if (!CONFIG_SLAB_FREELIST_HARDENED)
		return (unsigned long)x + 1;
	return ((unsigned long)x + 1) ^ s->random ^ (unsigned long)x ^ __builtin_bswap64(region);
}

static void free_twice_on_top(void *arg)
{
	struct kmem_cache *s = test_cache("sheaf-df", 256);
	void **objs = fill_slabs(s);

	(void)arg;
	kmem_cache_free(s, objs[0]);
	kmem_cache_free(s, objs[0]);
}

/* objs[0] again after 20 other frees: found when the sheaf gives them back. */
static void free_twice_deep(void *arg)
{
	struct kmem_cache *s = test_cache("sheaf-df", 256);
	void **objs = fill_slabs(s);

	(void)arg;
	for (unsigned int i = 0; i <= 20; i++)
		kmem_cache_free(s, objs[i]);
	kmem_cache_free(s, objs[0]);
	fprintf(stderr, "second free passed\n");
	kmem_cache_shrink(s);
	fprintf(stderr, "given back\n");
}

/* ... or when the sheaf fills up. */
static void free_twice_then_fill(void *arg)
{
	struct kmem_cache *s = test_cache_cap("sheaf-df", 256, 8);
	void **objs = fill_slabs(s);

	(void)arg;
	kmem_cache_free(s, objs[0]);
	kmem_cache_free(s, objs[1]);
	kmem_cache_free(s, objs[0]);
	for (unsigned int i = 2; i <= 7; i++)	/* the ninth free finds the sheaf full */
		kmem_cache_free(s, objs[i]);
	fprintf(stderr, "sheaf not given back\n");
}

/* Writes after the frees (into the free pointer word, where the mark goes)
 * hide nothing: the sheaf marks its objects itself, as it gives them back. */
static void free_twice_written(void *arg)
{
	struct kmem_cache *s = test_cache("sheaf-df", 256);
	void **objs = fill_slabs(s);

	(void)arg;
	kmem_cache_free(s, objs[0]);
	*fp_word(s, objs[0]) = 0;		/* write after free */
	kmem_cache_free(s, objs[1]);
	kmem_cache_free(s, objs[0]);
	*fp_word(s, objs[0]) = sheaf_mark_of(s, objs[0]);	/* ... even of the mark */
	kmem_cache_shrink(s);
	fprintf(stderr, "given back\n");
}

START_TEST(test_double_free_in_sheaf_reported)
{
	const char *words = "BUG sheaf-df (Not tainted): Object already free";
	char out[16384];

	ck_assert_aborts_with(free_twice_on_top, NULL, words);
	ck_assert_aborts_with(free_twice_on_top, NULL, "(it is in this CPU's sheaf)");
	ck_assert_int_eq(run_expect_abort(free_twice_deep, NULL, out, sizeof(out)), SIGABRT);
	ck_assert_ptr_nonnull(strstr(out, "second free passed"));
	ck_assert_ptr_nonnull(strstr(out, words));
	ck_assert_ptr_null(strstr(out, "given back"));
	ck_assert_int_eq(run_expect_abort(free_twice_then_fill, NULL, out, sizeof(out)), SIGABRT);
	ck_assert_ptr_nonnull(strstr(out, words));
	ck_assert_ptr_null(strstr(out, "not given back"));
	ck_assert_int_eq(run_expect_abort(free_twice_written, NULL, out, sizeof(out)), SIGABRT);
	ck_assert_ptr_nonnull(strstr(out, words));
	ck_assert_ptr_null(strstr(out, "given back"));
}
END_TEST

/* A program whose data happen to equal the sheaf's mark loses nothing: the
 * flush looks for the object, does not find it twice, and gives it back. */
START_TEST(test_mark_in_program_data_is_no_double_free)
{
	struct kmem_cache *s = test_cache("sheaf-mark", 256);
	void **objs = fill_slabs(s);
	unsigned int inuse = slab_inuse(objs[0]);

	*fp_word(s, objs[0]) = sheaf_mark_of(s, objs[0]);	/* the program's own data */
	kmem_cache_free(s, objs[0]);
	kmem_cache_free(s, objs[1]);
	kmem_cache_shrink(s);
	ck_assert_uint_eq(slab_inuse(objs[0]), inuse - 2);
	objs[0] = objs[1] = NULL;
	free_all(s, objs);
}
END_TEST

/* After a good free of an object of a slab, a pointer into the middle of
 * another object of that slab is still refused. */
static void free_inside_after_good_free(void *arg)
{
	struct kmem_cache *s = test_cache("sheaf-bad", 256);
	void **objs = fill_slabs(s);

	(void)arg;
	kmem_cache_free(s, objs[0]);
	kmem_cache_free(s, (char *)objs[1] + 8);
}

/* ... and an object of another cache. */
static void free_other_cache_after_good_free(void *arg)
{
	struct kmem_cache *s = test_cache("sheaf-bad", 256), *t = test_cache("sheaf-other", 512);
	void **objs = fill_slabs(s), **others = fill_slabs(t);

	(void)arg;
	kmem_cache_free(s, objs[0]);
	kmem_cache_free(s, others[0]);
}

START_TEST(test_bad_free_next_to_good_ones_reported)
{
	ck_assert_aborts_with(free_inside_after_good_free, NULL,
			      "BUG sheaf-bad (Not tainted): Invalid object pointer");
	ck_assert_aborts_with(free_other_cache_after_good_free, NULL,
			      "Wrong slab cache. sheaf-bad but object is from sheaf-other");
}
END_TEST

START_TEST(test_capacity)
{
	struct kmem_cache *big = test_cache("sheaf-big", 8192), *small = test_cache("sheaf-64", 64);
	struct kmem_cache *s;

	ck_assert_uint_eq(big->sheaf_capacity, 8);	/* SLUB_SHEAF_BYTES / 8 KiB */
	ck_assert_uint_eq(small->sheaf_capacity, 64);	/* SLUB_SHEAF_MAX */
	ck_assert_int_eq(parse_option_string("slub_sheaf=0"), 0);
	s = test_cache("sheaf-off", 256);
	ck_assert_uint_eq(s->sheaf_capacity, 0);
	ck_assert_int_eq(parse_option_string("slub_sheaf=65"), 1);	/* above SLUB_SHEAF_MAX */
	kmem_cache_destroy(s);
	kmem_cache_destroy(small);
	kmem_cache_destroy(big);
}
END_TEST

/* Without a sheaf, a free that misses the cpu slab reaches the slab at once. */
START_TEST(test_off_frees_reach_the_slab)
{
	struct kmem_cache *s;
	void **objs;
	unsigned int n;

	ck_assert_int_eq(parse_option_string("slub_sheaf=0"), 0);
	s = test_cache("sheaf-none", 256);
	objs = fill_slabs(s);
	n = SLABS * per_slab(s);
	kmem_cache_free(s, objs[0]);
	ck_assert_uint_eq(slabs_inuse(s, objs), n - 1);
	objs[0] = NULL;
	free_all(s, objs);
}
END_TEST

static Suite *suite(void)
{
	Suite *su = suite_create("slub_sheaf");
	TCase *tc = tcase_create("sheaf");

	tcase_add_test(tc, test_free_stays_in_sheaf_and_comes_back_first);
	tcase_add_test(tc, test_full_sheaf_gives_back_everything_newest_first);
	tcase_add_test(tc, test_flush_sorts_objects_by_slab);
	tcase_add_test(tc, test_live_entries_find_their_slabs);
	tcase_add_test(tc, test_big_objects_capacity);
	tcase_add_test(tc, test_shrink_gives_sheaf_back);
	tcase_add_test(tc, test_thread_exit_gives_sheaf_back);
	tcase_add_test(tc, test_double_free_in_sheaf_reported);
	tcase_add_test(tc, test_mark_in_program_data_is_no_double_free);
	tcase_add_test(tc, test_bad_free_next_to_good_ones_reported);
	tcase_add_test(tc, test_capacity);
	tcase_add_test(tc, test_off_frees_reach_the_slab);
	suite_add_tcase(su, tc);
	return su;
}

USLAB_TEST_MAIN(suite)

#else

int main(void)
{
	uslab_test_skip("SLUB's per-CPU sheaf");
}

#endif
