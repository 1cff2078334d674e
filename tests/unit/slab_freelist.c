/* SPDX-License-Identifier: MIT */
/*
 * slab_freelist.c - where SLAB keeps a slab's index freelist, chosen by the
 * kernel's rules: inside a free object (OBJFREELIST) when the cache has no
 * constructor and is not SLAB_TYPESAFE_BY_RCU and the array fits in one
 * object; off the slab in a small kmalloc object when the leftover could
 * not hold it (never for SLAB_NOLEAKTRACE); else at the end of the slab.
 * Whatever the placement, every object of a slab is handed out exactly
 * once, the constructor runs on every object of a new slab, objects in use
 * are never written by the allocator, and new slabs hand objects out in a
 * shuffled order (CONFIG_SLAB_FREELIST_RANDOM).
 */
#include "common/test.h"

#include <stdint.h>
#include <stdlib.h>
#include "mm/slab.h"
#include "mm/memcheck.h"

#if CONFIG_SLAB

#define NR_SLABS	5
#define PATTERN		0x5a

static unsigned long ctor_calls;	/* only the test's thread allocates */

static void count_ctor(void *p)
{
	(void)p;
	ctor_calls++;
}

enum placement { ON_SLAB, OFF_SLAB_IN_KMALLOC, IN_OBJECT };

static enum placement placement_of(const struct kmem_cache *s)
{
	if (s->flags & CFLGS_OBJFREELIST_SLAB)
		return IN_OBJECT;
	if (s->flags & CFLGS_OFF_SLAB)
		return OFF_SLAB_IN_KMALLOC;
	return ON_SLAB;
}

static struct kmem_cache *make(const char *name, unsigned int size, slab_flags_t flags,
			       bool ctor)
{
	struct kmem_cache *s;

	/* a cache with neither a ctor nor RCU could be merged: NOLEAKTRACE
	 * prevents that, and changes no placement of these caches */
	if (!ctor && !(flags & SLAB_TYPESAFE_BY_RCU))
		flags |= SLAB_NOLEAKTRACE;
	s = kmem_cache_create(name, size, 0, flags, ctor ? count_ctor : NULL);

	ck_assert_ptr_nonnull(s);
	return s;
}

START_TEST(placement_follows_the_kernel_rules)
{
	static const struct {
		const char *name;
		unsigned int size;
		slab_flags_t flags;
		bool ctor;
		enum placement where;
		unsigned int num;
	} t[] = {
		{ "fl-64", 64, 0, false, IN_OBJECT, 64 },
		{ "fl-1024", 1024, 0, false, IN_OBJECT, 4 },
		/* a constructed object may not be scribbled on: 64 B of indexes
		 * would need kmalloc-64, not worth it for 64 B objects */
		{ "fl-ctor-64", 64, 0, true, ON_SLAB, 63 },
		/* 4 objects fill the page: 4 index bytes go to kmalloc-32 */
		{ "fl-ctor-1024", 1024, 0, true, OFF_SLAB_IN_KMALLOC, 4 },
		{ "fl-rcu-1024", 1024, SLAB_TYPESAFE_BY_RCU, false, OFF_SLAB_IN_KMALLOC, 4 },
		/* 16-byte objects: 256 per page is one too many for byte indexes */
		{ "fl-16", 16, 0, false, ON_SLAB, 240 },
		/* SLAB_NOLEAKTRACE keeps the freelist on the slab; order 1 wastes less */
		{ "fl-noleak-1024", 1024, SLAB_NOLEAKTRACE, true, ON_SLAB, 7 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct kmem_cache *s = make(t[i].name, t[i].size, t[i].flags, t[i].ctor);

		/* why: under memcheck no free object may hold metadata (memcheck.h) */
		if (memcheck_active() && t[i].where == IN_OBJECT) {
			ck_assert_msg(placement_of(s) != IN_OBJECT, "%s: freelist in an object",
				      t[i].name);
			kmem_cache_destroy(s);
			continue;
		}
		ck_assert_msg(placement_of(s) == t[i].where, "%s: placement %d, expected %d",
			      t[i].name, (int)placement_of(s), (int)t[i].where);
		ck_assert_msg(s->num == t[i].num, "%s: %u objects per slab, expected %u",
			      t[i].name, s->num, t[i].num);
		if (t[i].where == OFF_SLAB_IN_KMALLOC)
			ck_assert_ptr_eq(s->freelist_cache, kmalloc_caches[KMALLOC_NORMAL][5]);
		kmem_cache_destroy(s);
	}
}
END_TEST

/* Where the freelist of a slab with objects in use sits. */
static void assert_freelist_home(struct kmem_cache *s, struct slab *slab)
{
	char *base = slab_address(slab), *fl = slab->freelist;
	unsigned long off;

	switch (placement_of(s)) {
	case ON_SLAB:
		ck_assert_ptr_eq(fl, base + slab_size(slab) - s->freelist_size);
		break;
	case OFF_SLAB_IN_KMALLOC:
		ck_assert_ptr_nonnull(virt_to_slab(fl));
		ck_assert_ptr_eq(virt_to_slab(fl)->slab_cache, s->freelist_cache);
		break;
	case IN_OBJECT:
		if (slab->active == s->num) {
			ck_assert_ptr_null(fl);		/* full: the holder was handed out */
			break;
		}
		off = (unsigned long)(fl - (char *)slab->s_mem);
		ck_assert_uint_eq(off % s->size, 0);
		ck_assert_uint_lt(off / s->size, s->num);
		break;
	}
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void *const *)a, y = (uintptr_t)*(void *const *)b;

	return x < y ? -1 : x > y;
}

/* n objects: distinct, each an object start of a slab of s, and every
 * slab that gave objects gave each of its indexes at most once. */
static void assert_handed_out_once(struct kmem_cache *s, void **p, unsigned int n)
{
	void **sorted = malloc(n * sizeof(void *));
	unsigned int i;

	ck_assert_ptr_nonnull(sorted);
	memcpy(sorted, p, n * sizeof(void *));
	qsort(sorted, n, sizeof(void *), cmp_ptr);
	for (i = 0; i < n; i++) {
		struct slab *slab = virt_to_slab(sorted[i]);
		unsigned long off;

		ck_assert_ptr_nonnull(slab);
		ck_assert_ptr_eq(slab->slab_cache, s);
		off = (unsigned long)((char *)sorted[i] - (char *)slab->s_mem);
		ck_assert_uint_eq(off % s->size, 0);
		ck_assert_uint_lt(off / s->size, s->num);
		if (i)	/* distinct and not overlapping */
			ck_assert_uint_ge((uintptr_t)sorted[i] - (uintptr_t)sorted[i - 1], s->size);
		assert_freelist_home(s, slab);
	}
	free(sorted);
}

static void assert_pattern(void *const *p, unsigned int n, unsigned int size, unsigned int step)
{
	unsigned int i, j;

	for (i = 0; i < n; i += step)
		for (j = 0; j < size; j++)
			ck_assert_msg(((unsigned char *)p[i])[j] == PATTERN,
				      "object %u byte %u changed while in use", i, j);
}

/*
 * Fill NR_SLABS slabs, free every other object, allocate as many again:
 * all handed out once, objects in use untouched.  limit 1, no shared
 * array: nearly every free goes back into its slab's freelist.
 */
static void exercise(struct kmem_cache *s, const char *name, unsigned int size, bool ctor)
{
	unsigned int n = NR_SLABS * s->num, i;
	void **p = calloc(n, sizeof(void *));
	char line[96];

	ck_assert_ptr_nonnull(p);
	snprintf(line, sizeof(line), "%s 1 1 0", name);
	ck_assert_int_eq(slabinfo_write_line(line), 0);
	ctor_calls = 0;
	p[0] = kmem_cache_alloc(s, GFP_KERNEL);
	if (ctor)	/* the constructor ran on every object of the new slab */
		ck_assert_uint_eq(ctor_calls, s->num);
	for (i = 1; i < n; i++)
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
	for (i = 0; i < n; i++)
		memset(p[i], PATTERN, size);
	assert_handed_out_once(s, p, n);
	if (ctor)
		ck_assert_uint_eq(ctor_calls, n);
	for (i = 0; i < n; i += 2)
		kmem_cache_free(s, p[i]);
	assert_pattern(p + 1, n - 1, size, 2);
	for (i = 0; i < n; i += 2)
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
	assert_handed_out_once(s, p, n);
	assert_pattern(p + 1, n - 1, size, 2);
	for (i = 0; i < n; i++)
		kmem_cache_free(s, p[i]);
	free(p);
	ck_assert_int_eq(kmem_cache_shrink(s), 0);
}

START_TEST(every_placement_hands_each_object_out_once)
{
	static const struct {
		const char *name;
		unsigned int size;
		slab_flags_t flags;
		bool ctor;
	} t[] = {
		{ "once-64", 64, 0, false },
		{ "once-1024", 1024, 0, false },
		{ "once-ctor-64", 64, 0, true },
		{ "once-ctor-1024", 1024, 0, true },
		{ "once-16", 16, 0, false },
		{ "once-noleak-1024", 1024, SLAB_NOLEAKTRACE, true },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct kmem_cache *s = make(t[i].name, t[i].size, t[i].flags, t[i].ctor);

		exercise(s, t[i].name, t[i].size, t[i].ctor);
		kmem_cache_destroy(s);
	}
}
END_TEST

START_TEST(new_slabs_hand_out_objects_in_shuffled_order)
{
	struct kmem_cache *s = make("shuffle-64", 64, 0, false);
	unsigned int i, n, ascending = 0, descending = 0, idx, prev = 0;
	void **p;

	ck_assert_ptr_nonnull(s->random_seq);
	n = s->num;
	p = calloc(n, sizeof(void *));
	ck_assert_ptr_nonnull(p);
	for (i = 0; i < n; i++) {
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		idx = (unsigned int)(((char *)p[i] - (char *)virt_to_slab(p[i])->s_mem) / s->size);
		if (i) {
			ascending += idx > prev;
			descending += idx < prev;
		}
		prev = idx;
	}
	/* linear order would give n-1 steps one way; a shuffle mixes them */
	ck_assert_msg(ascending > 4 && descending > 4, "%u steps up, %u down in %u objects",
		      ascending, descending, n);
	for (i = 0; i < n; i++)
		kmem_cache_free(s, p[i]);
	free(p);
	kmem_cache_destroy(s);
}
END_TEST

static Suite *slab_freelist_suite(void)
{
	Suite *s = suite_create("slab_freelist");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, placement_follows_the_kernel_rules);
	tcase_add_test(tc, every_placement_hands_each_object_out_once);
	tcase_add_test(tc, new_slabs_hand_out_objects_in_shuffled_order);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(slab_freelist_suite)

#else

int main(void)
{
	uslab_test_skip("SLAB's freelist placement (on-slab, off-slab, in-object)");
}

#endif
