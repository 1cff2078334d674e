/* SPDX-License-Identifier: MIT */
/*
 * slub_kmalloc_ramp.c - SLUB's ramped slabs of a size class (slub.c,
 * slab_objects_ramp, cpu_slab_grow_locked): a new slab of a SLAB_KMALLOC
 * cache has its usual order with only its first page cut into objects,
 * and grows in place, doubling in whole pages, when its CPU has taken
 * them all (remote frees first), up to the whole order.  The pages past
 * the last object are never written (so never resident), and no pointer
 * into them is an object.  Each chunk is handed out in its own random
 * order, and a cpu slab that runs out takes a partial slab's free objects
 * (and, for a while, its sheaf's) before it grows.  Ramping caches may
 * take orders up to 6 to hold 64.  A cache made for one type of object
 * ramps too unless it has a constructor or is SLAB_TYPESAFE_BY_RCU; those,
 * a debug cache and a class of 16 objects a slab or fewer get whole slabs.
 */
#include "common/test.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "mm/internal.h"
#include "mm/slab.h"

#if CONFIG_SLUB

#define SIZE	1040	/* a class that merges with no kmalloc cache */
#define MAX_OBJS 4096

static unsigned int per_slab(const struct kmem_cache *s)
{
	return s->oo.x & 0xffff;
}

static unsigned int slab_order_of(const struct kmem_cache *s)
{
	return s->oo.x >> 16;
}

/* A size class of its own (SLAB_NOLEAKTRACE keeps it from merging). */
static struct kmem_cache *class_cache(const char *name, unsigned int size)
{
	struct kmem_cache *s = kmem_cache_create_kmalloc(name, size, 16, SLAB_NOLEAKTRACE);

	ck_assert_ptr_nonnull(s);
	return s;
}

static struct slab *slab_of(const void *p)
{
	struct slab *slab = virt_to_slab(p);

	ck_assert_ptr_nonnull(slab);
	return slab;
}

/* The objects of the first pages of a slab that hold want, at most whole. */
static unsigned int pages_objects(const struct kmem_cache *s, unsigned long want,
				  unsigned int whole)
{
	unsigned long objects = DIV_ROUND_UP(want * s->size, PAGE_SIZE) * PAGE_SIZE / s->size;

	return objects >= whole ? whole : (unsigned int)objects;
}

/* Objects are taken one by one: the first slab starts with its first
 * page's objects and grows in place, doubling in whole pages, to the
 * whole order; the next new slab starts small again. */
START_TEST(test_slab_grows_in_place_to_whole)
{
	struct kmem_cache *s = class_cache("ramp-class", SIZE);
	static void *objs[MAX_OBJS];
	static unsigned char seen[MAX_OBJS];
	struct slab *first = NULL, *slab;
	unsigned int i, whole = per_slab(s), grows = 0, expect, chunk = 0, idx, prev = 0;
	unsigned int descents = 0;

	ck_assert_uint_ge(whole, 17);
	for (i = 0; i < MAX_OBJS; i++) {
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
		ck_assert_ptr_nonnull(objs[i]);
		slab = slab_of(objs[i]);
		if (!first) {
			first = slab;
			expect = pages_objects(s, 1, whole);
			ck_assert_uint_lt(expect, whole);
		}
		if (slab != first)
			break;
		if (slab->objects != expect) {
			chunk = expect;
			expect = pages_objects(s, 2 * (unsigned long)expect, whole);
			grows++;
		}
		ck_assert_msg(slab->objects == expect, "object %u: %u objects, expected %u", i,
			      slab->objects, expect);
		/* from the newest chunk, once each, in a shuffled order */
		idx = (unsigned int)(((char *)objs[i] - (char *)slab_address(slab)) / s->size);
		ck_assert_msg(idx >= chunk && idx < expect, "object %u is slot %u, not of [%u, %u)",
			      i, idx, chunk, expect);
		ck_assert_uint_eq(seen[idx]++, 0);
		if (i && idx < prev)
			descents++;
		prev = idx;
		ck_assert_uint_eq(folio_order(slab_folio(slab)), slab_order_of(s));
		ck_assert_uint_eq(slab->inuse, slab->objects);
	}
	ck_assert_uint_eq(i, whole);	/* every object of the first slab, then a new one */
	ck_assert_uint_ge(grows, 3);	/* 3 objects, then 7, then 15, ...: a ramp */
	ck_assert_uint_eq(first->objects, whole);
	/* in address order a chunk would only ascend: at most one descent
	 * at each chunk's start */
	if (CONFIG_SLAB_FREELIST_RANDOM)
		ck_assert_uint_gt(descents, grows + 1);
	ck_assert_uint_eq(slab_of(objs[i])->objects, pages_objects(s, 1, whole));
	for (i++; i--;)
		kmem_cache_free(s, objs[i]);
	kmem_cache_destroy(s);
}
END_TEST

/* Objects freed by another thread while the cpu slab is exhausted come
 * back before the slab grows. */
static struct kmem_cache *remote_cache;

/* why a thread: its free goes to its sheaf, which its exit gives back onto
 * the slab's own freelist (slub_cpu_dead), before the join returns */
static void *free_one(void *p)
{
	kmem_cache_free(remote_cache, p);
	return NULL;
}

START_TEST(test_remote_frees_before_growth)
{
	struct kmem_cache *s = class_cache("ramp-remote", SIZE);
	void *objs[64], *p;
	struct slab *slab;
	pthread_t t;
	unsigned int n, i;

	objs[0] = kmem_cache_alloc(s, GFP_KERNEL);
	ck_assert_ptr_nonnull(objs[0]);
	slab = slab_of(objs[0]);
	n = slab->objects;
	for (i = 1; i < n; i++) {
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
		ck_assert_ptr_eq(slab_of(objs[i]), slab);
	}
	remote_cache = s;
	ck_assert_int_eq(pthread_create(&t, NULL, free_one, objs[1]), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	p = kmem_cache_alloc(s, GFP_KERNEL);
	ck_assert_ptr_eq(p, objs[1]);		/* the remote free, not a grown object */
	ck_assert_uint_eq(slab->objects, n);
	objs[1] = p;
	p = kmem_cache_alloc(s, GFP_KERNEL);	/* now it grows */
	ck_assert_ptr_eq(slab_of(p), slab);
	ck_assert_uint_gt(slab->objects, n);
	kmem_cache_free(s, p);
	for (i = 0; i < n; i++)
		kmem_cache_free(s, objs[i]);
	kmem_cache_destroy(s);
}
END_TEST

/* Past the last object nothing is written: those pages stay out of memory. */
START_TEST(test_tail_pages_never_touched)
{
	struct kmem_cache *s;
	unsigned char vec[64];
	struct slab *slab;
	char *start, *tail;
	size_t len;
	void *p;
	unsigned int i;

	/* why the flush: every free block then reads as zeros and is out of
	 * memory, so the new slab's pages are resident only if written */
	page_reporting_flush();
	s = class_cache("ramp-tail", SIZE);
	p = kmem_cache_alloc(s, GFP_KERNEL);
	ck_assert_ptr_nonnull(p);
	slab = slab_of(p);
	ck_assert_uint_lt(slab->objects, per_slab(s));
	start = slab_address(slab);
	tail = (char *)PAGE_ALIGN((unsigned long)start + slab->objects * s->size);
	len = (size_t)(start + slab_size(slab) - tail);
	ck_assert_uint_gt(len, 0);
	ck_assert_uint_le(len / PAGE_SIZE, sizeof(vec));
	ck_assert_int_eq(mincore(tail, len, vec), 0);
	for (i = 0; i < len / PAGE_SIZE; i++)
		ck_assert_msg(!(vec[i] & 1), "page %u past the last object is resident", i);
	kmem_cache_free(s, p);
	kmem_cache_destroy(s);
}
END_TEST

static void free_past_last_object(void *arg)
{
	struct kmem_cache *s = class_cache("ramp-bad", SIZE);
	void *p = kmem_cache_alloc(s, GFP_KERNEL);
	struct slab *slab = slab_of(p);

	(void)arg;
	kmem_cache_free(s, (char *)slab_address(slab) + slab->objects * s->size);
}

START_TEST(test_slot_past_last_object_is_no_object)
{
	ck_assert_aborts_with(free_past_last_object, NULL, "Invalid object pointer");
}
END_TEST

static void ramp_ctor(void *p)
{
	memset(p, 0x5a, SIZE);
}

/* A cache for one type of object ramps like a size class unless its
 * objects need something done as a slab is made: a constructor (run on
 * every object of a slab when it is made) or SLAB_TYPESAFE_BY_RCU. */
START_TEST(test_type_cache_ramps_unless_ctor_or_rcu)
{
	struct kmem_cache *plain = kmem_cache_create("ramp-type", SIZE, 0, SLAB_NOLEAKTRACE, NULL);
	struct kmem_cache *ctor = kmem_cache_create("ramp-ctor", SIZE, 0, SLAB_NOLEAKTRACE,
						    ramp_ctor);
	struct kmem_cache *rcu = kmem_cache_create("ramp-rcu", SIZE, 0,
						   SLAB_NOLEAKTRACE | SLAB_TYPESAFE_BY_RCU, NULL);
	void *p, *q, *r;

	ck_assert_ptr_nonnull(plain);
	ck_assert_ptr_nonnull(ctor);
	ck_assert_ptr_nonnull(rcu);
	p = kmem_cache_alloc(plain, GFP_KERNEL);
	q = kmem_cache_alloc(ctor, GFP_KERNEL);
	r = kmem_cache_alloc(rcu, GFP_KERNEL);
	ck_assert_uint_eq(slab_of(p)->objects, pages_objects(plain, 1, per_slab(plain)));
	ck_assert_uint_lt(slab_of(p)->objects, per_slab(plain));
	ck_assert_uint_eq(slab_of(q)->objects, per_slab(ctor));
	ck_assert_uint_eq(slab_of(r)->objects, per_slab(rcu));
	ck_assert_uint_eq(((unsigned char *)q)[SIZE - 1], 0x5a);
	kmem_cache_free(plain, p);
	kmem_cache_free(ctor, q);
	kmem_cache_free(rcu, r);
	kmem_cache_destroy(plain);
	kmem_cache_destroy(ctor);
	kmem_cache_destroy(rcu);
}
END_TEST

/* Ramping caches may take higher orders to hold 64 objects a slab
 * (slub_cache.c, calculate_order): 4 KiB blocks 64 a slab, ramping, where
 * a cache with a constructor gets 16; 16 objects a slab or fewer (16 KiB)
 * are whole slabs, and so for a debug cache, whose checks count whole
 * slabs. */
START_TEST(test_big_class_and_debug_cache_whole)
{
	struct kmem_cache *typed = kmem_cache_create("ramp-4k-type", 4096, 0, SLAB_NOLEAKTRACE,
						     ramp_ctor);
	struct kmem_cache *mid = class_cache("ramp-4k", 4096);
	struct kmem_cache *big = class_cache("ramp-big", 16384);
	struct kmem_cache *dbg = kmem_cache_create_kmalloc("ramp-debug", SIZE, 16,
					SLAB_NOLEAKTRACE | SLAB_CONSISTENCY_CHECKS);
	void *p = kmem_cache_alloc(big, GFP_KERNEL), *q, *r;

	ck_assert_ptr_nonnull(typed);
	ck_assert_uint_eq(per_slab(typed), 15);	/* 4104-byte slots: the free pointer after */
	ck_assert_uint_eq(per_slab(mid), 64);
	r = kmem_cache_alloc(mid, GFP_KERNEL);
	ck_assert_uint_eq(slab_of(r)->objects, 1);	/* its first page */
	kmem_cache_free(mid, r);
	ck_assert_uint_le(per_slab(big), 16);
	ck_assert_uint_eq(slab_of(p)->objects, per_slab(big));
	ck_assert_ptr_nonnull(dbg);
	q = kmem_cache_alloc(dbg, GFP_KERNEL);
	ck_assert_uint_eq(slab_of(q)->objects, per_slab(dbg));
	ck_assert_int_eq(kmem_cache_validate(dbg), 0);
	kmem_cache_free(big, p);
	kmem_cache_free(dbg, q);
	kmem_cache_destroy(typed);
	kmem_cache_destroy(mid);
	kmem_cache_destroy(big);
	kmem_cache_destroy(dbg);
}
END_TEST

/* A cpu slab that runs out while a partial slab waits on its CPU's chain
 * takes that slab's free object rather than grow (resident memory first). */
START_TEST(test_partial_before_growth)
{
	struct kmem_cache *s = class_cache("ramp-partial", SIZE);
	static void *objs[MAX_OBJS];
	struct slab *first, *second;
	unsigned int i, n, m;
	void *p;

	objs[0] = kmem_cache_alloc(s, GFP_KERNEL);
	ck_assert_ptr_nonnull(objs[0]);
	first = slab_of(objs[0]);
	for (i = 1; i < MAX_OBJS; i++) {	/* the first slab, whole, then one more */
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
		ck_assert_ptr_nonnull(objs[i]);
		if (slab_of(objs[i]) != first)
			break;
	}
	ck_assert_uint_lt(i, MAX_OBJS);
	n = i + 1;
	second = slab_of(objs[i]);
	m = second->objects;
	ck_assert_uint_lt(m, per_slab(s));
	kmem_cache_free(s, objs[5]);		/* the full first slab: partial now */
	for (i = 1; i < m; i++) {		/* the rest of the second's first chunk */
		objs[n] = kmem_cache_alloc(s, GFP_KERNEL);
		ck_assert_ptr_eq(slab_of(objs[n]), second);
		n++;
	}
	p = kmem_cache_alloc(s, GFP_KERNEL);
	ck_assert_ptr_eq(p, objs[5]);		/* the partial slab's object, */
	ck_assert_uint_eq(second->objects, m);	/* not a grown one */
	for (i = 0; i < n; i++)
		kmem_cache_free(s, objs[i]);
	kmem_cache_destroy(s);
}
END_TEST

/* A loop that takes and frees a whole slab's worth of objects, when one
 * object of the first slab stays taken: the round spans that slab and a
 * second one, and the first's objects go round through the sheaf while the
 * second is the cpu slab.  It ends up on the second, grown whole: the
 * sheaf holds a grow back for a bounded number of pops only. */
START_TEST(test_sheaf_holds_growth_back_a_while)
{
	/* why 1024: a whole slab's worth then fits in the sheaf */
	struct kmem_cache *s = class_cache("ramp-loop", 1024);
	static void *objs[MAX_OBJS];
	unsigned int whole = per_slab(s), i, r;
	void *pinned = kmem_cache_alloc(s, GFP_KERNEL);
	struct slab *slab;

	ck_assert_ptr_nonnull(pinned);
	ck_assert_uint_le(whole, s->sheaf_capacity);
	for (r = 0; r < 200; r++) {
		for (i = 0; i < whole; i++) {
			objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
			ck_assert_ptr_nonnull(objs[i]);
		}
		for (i = 0; i < whole; i++)
			kmem_cache_free(s, objs[i]);
	}
	for (i = 0; i < whole; i++)
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
	slab = slab_of(objs[0]);
	ck_assert_uint_eq(slab->objects, whole);
	for (i = 1; i < whole; i++)
		ck_assert_ptr_eq(slab_of(objs[i]), slab);
	for (i = 0; i < whole; i++)
		kmem_cache_free(s, objs[i]);
	kmem_cache_free(s, pinned);
	kmem_cache_destroy(s);
}
END_TEST

/* slabinfo counts the objects the slabs have, and the pages they take. */
START_TEST(test_slabinfo_counts_small_slabs)
{
	struct kmem_cache *s = class_cache("ramp-info", SIZE);
	void *p = kmem_cache_alloc(s, GFP_KERNEL);
	struct slabinfo si;

	memset(&si, 0, sizeof(si));
	get_slabinfo(s, &si);
	ck_assert_uint_eq(si.num_slabs, 1);
	ck_assert_uint_eq(si.num_objs, slab_of(p)->objects);
	ck_assert_uint_lt(si.num_objs, per_slab(s));
	/* a grown slab: counted with its new objects */
	{
		void *q[4];
		unsigned int i, n = slab_of(p)->objects;

		for (i = 0; i < n && i < 4; i++)
			q[i] = kmem_cache_alloc(s, GFP_KERNEL);
		ck_assert_uint_gt(slab_of(p)->objects, n);
		memset(&si, 0, sizeof(si));
		get_slabinfo(s, &si);
		ck_assert_uint_eq(si.num_slabs, 1);
		ck_assert_uint_eq(si.num_objs, slab_of(p)->objects);
		while (i--)
			kmem_cache_free(s, q[i]);
	}
	kmem_cache_free(s, p);
	kmem_cache_destroy(s);
}
END_TEST

static Suite *slub_kmalloc_ramp_suite(void)
{
	Suite *s = suite_create("slub_kmalloc_ramp");
	TCase *tc = tcase_create("ramp");

	tcase_add_test(tc, test_slab_grows_in_place_to_whole);
	tcase_add_test(tc, test_remote_frees_before_growth);
	tcase_add_test(tc, test_tail_pages_never_touched);
	tcase_add_test(tc, test_slot_past_last_object_is_no_object);
	tcase_add_test(tc, test_type_cache_ramps_unless_ctor_or_rcu);
	tcase_add_test(tc, test_big_class_and_debug_cache_whole);
	tcase_add_test(tc, test_partial_before_growth);
	tcase_add_test(tc, test_sheaf_holds_growth_back_a_while);
	tcase_add_test(tc, test_slabinfo_counts_small_slabs);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(slub_kmalloc_ramp_suite)

#else

int main(void)
{
	uslab_test_skip("SLUB's small first slabs of a size class");
}

#endif
