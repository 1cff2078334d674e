/* SPDX-License-Identifier: MIT */
/*
 * slab_colouring.c - SLAB's cache colouring: the bytes a slab cannot use
 * (its leftover) become colour / colour_off colours; each new slab of a
 * node starts its first object one colour_off (a cache line, or the
 * alignment if larger) further in, cycling through the colours, so that
 * slabs do not all put their first objects on the same cache lines.
 */
#include "common/test.h"

#include <stdint.h>
#include <stdlib.h>
#include "mm/slab.h"
#include "mm/memcheck.h"

#if CONFIG_SLAB

#define MAX_SLABS	16

/* Slabs in the order their first object was handed out, and the lowest
 * object offset seen in each (= the colour offset). */
struct slab_walk {
	uintptr_t base[MAX_SLABS];
	unsigned long min_off[MAX_SLABS];
	unsigned int count[MAX_SLABS];
	unsigned int nr;
};

static void walk_add(struct slab_walk *w, const void *obj, unsigned long slab_bytes)
{
	uintptr_t base = (uintptr_t)obj & ~(uintptr_t)(slab_bytes - 1);
	unsigned long off = (unsigned long)((uintptr_t)obj - base);
	unsigned int i;

	for (i = 0; i < w->nr && w->base[i] != base; i++)
		;
	if (i == w->nr) {
		ck_assert_uint_lt(w->nr, MAX_SLABS);
		w->base[i] = base;
		w->min_off[i] = off;
		w->nr++;
	}
	if (off < w->min_off[i])
		w->min_off[i] = off;
	w->count[i]++;
}

/* Allocate nr_slabs slabs' worth of objects of a new cache; walk them. */
static void **fill_slabs(struct kmem_cache *s, unsigned int nr_slabs, struct slab_walk *w)
{
	unsigned long slab_bytes = PAGE_SIZE << s->gfporder;
	unsigned int i, n = nr_slabs * s->num;
	void **p = calloc(n, sizeof(void *));

	ck_assert_ptr_nonnull(p);
	memset(w, 0, sizeof(*w));
	for (i = 0; i < n; i++) {
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		ck_assert_ptr_nonnull(p[i]);
		walk_add(w, p[i], slab_bytes);
	}
	return p;
}

static void free_all(struct kmem_cache *s, void **p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		kmem_cache_free(s, p[i]);
	free(p);
}

/* Successive slabs' first objects step by colour_off, wrapping after colour. */
static void assert_colour_cycle(struct kmem_cache *s, const struct slab_walk *w)
{
	unsigned long span = (unsigned long)s->colour * s->colour_off, expect;
	unsigned int i;

	ck_assert_uint_eq(w->nr, 7);
	for (i = 0; i < w->nr; i++) {
		ck_assert_uint_eq(w->count[i], s->num);	/* each slab filled in turn */
		ck_assert_uint_eq(w->min_off[i] % s->colour_off, 0);
		ck_assert_uint_lt(w->min_off[i], span ? span : 1);
		if (i == 0)
			continue;
		expect = span ? (w->min_off[i - 1] + s->colour_off) % span : 0;
		ck_assert_msg(w->min_off[i] == expect, "slab %u starts at %lu, slab %u at %lu",
			      i - 1, w->min_off[i - 1], i, w->min_off[i]);
	}
}

START_TEST(leftover_makes_colours_that_cycle)
{
	/* 296-byte objects: 13 per page, 248 bytes left = 3 colours of 64 */
	struct kmem_cache *s = kmem_cache_create("colour-296", 296, 0, SLAB_NOLEAKTRACE, NULL);
	struct slab_walk w;
	void **p;

	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->gfporder, 0);
	ck_assert_uint_eq(s->num, 13);
	ck_assert_uint_eq(s->colour_off, 64);
	ck_assert_uint_eq(s->colour, 3);
	p = fill_slabs(s, 7, &w);
	assert_colour_cycle(s, &w);
	free_all(s, p, 7 * s->num);
	kmem_cache_destroy(s);
}
END_TEST

START_TEST(colour_step_is_the_alignment_when_larger_than_a_line)
{
	/* 200 bytes aligned to 256: 16 slots of 256, no leftover, no colours */
	struct kmem_cache *s = kmem_cache_create("colour-a256", 200, 256, SLAB_NOLEAKTRACE, NULL);
	struct kmem_cache *t;
	struct slab_walk w;
	void **p;

	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->colour_off, 256);
	ck_assert_uint_eq(s->colour, 0);
	p = fill_slabs(s, 7, &w);
	assert_colour_cycle(s, &w);
	free_all(s, p, 7 * s->num);
	kmem_cache_destroy(s);
	/* 600 bytes aligned to 128: slots of 640, 6 per page, 256 left = 2 colours of 128 */
	t = kmem_cache_create("colour-a128", 600, 128, SLAB_NOLEAKTRACE, NULL);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->size, 640);
	ck_assert_uint_eq(t->colour_off, 128);
	/* under memcheck the index bytes stay on the slab (no freelist in an
	 * object): 250 bytes left, one colour */
	ck_assert_uint_eq(t->colour, memcheck_active() ? 1 : 2);
	p = fill_slabs(t, 7, &w);
	assert_colour_cycle(t, &w);
	free_all(t, p, 7 * t->num);
	kmem_cache_destroy(t);
}
END_TEST

START_TEST(objects_stay_inside_the_slab_whatever_the_colour)
{
	struct kmem_cache *s = kmem_cache_create("colour-inside", 300, 0, SLAB_NOLEAKTRACE, NULL);
	struct slab_walk w;
	unsigned int i, j, n;
	void **p;

	ck_assert_ptr_nonnull(s);
	p = fill_slabs(s, 7, &w);
	n = 7 * s->num;
	for (i = 0; i < n; i++) {
		uintptr_t base = (uintptr_t)p[i] & ~(uintptr_t)(PAGE_SIZE - 1);
		unsigned long off = (unsigned long)((uintptr_t)p[i] - base);

		for (j = 0; j < w.nr && w.base[j] != base; j++)
			;
		ck_assert_uint_lt(j, w.nr);
		/* on the slot grid of its slab, and wholly inside the page */
		ck_assert_uint_eq((off - w.min_off[j]) % s->size, 0);
		ck_assert_uint_le(off + s->size, PAGE_SIZE);
		memset(p[i], 0x3c, 300);
	}
	free_all(s, p, n);
	kmem_cache_destroy(s);
}
END_TEST

static Suite *slab_colouring_suite(void)
{
	Suite *s = suite_create("slab_colouring");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, leftover_makes_colours_that_cycle);
	tcase_add_test(tc, colour_step_is_the_alignment_when_larger_than_a_line);
	tcase_add_test(tc, objects_stay_inside_the_slab_whatever_the_colour);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(slab_colouring_suite)

#else

int main(void)
{
	uslab_test_skip("SLAB's cache colouring");
}

#endif
