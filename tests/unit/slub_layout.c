/* SPDX-License-Identifier: MIT */
/*
 * slub_layout.c - where SLUB keeps the free pointer, and what that means
 * for users: in the middle of a plain object (only that word changes when
 * the object is freed), outside the object for constructor and
 * SLAB_TYPESAFE_BY_RCU caches (a constructed object keeps its constructed
 * state across free and reallocation); the constructor runs once per
 * object when its slab is made, never per allocation; __GFP_ZERO and ksize.
 */
#include "common/test.h"

#include <stdint.h>
#include "mm/slab.h"

#if CONFIG_SLUB

#define FILL	0xab

static struct kmem_cache *plain_cache(unsigned int size)
{
	struct kmem_cache *s = kmem_cache_create("layout-plain", size, 0, SLAB_NOLEAKTRACE, NULL);

	ck_assert_ptr_nonnull(s);
	return s;
}

/* Free x (filled with FILL) and return the offset of the one word that
 * changed.  why round down: a byte of the encoded free pointer may equal
 * FILL by chance (1 in 256), so the first changed byte is any of the word's. */
static long changed_word_after_free(struct kmem_cache *s, unsigned int size)
{
	unsigned char *x = kmem_cache_alloc(s, GFP_KERNEL);
	long changed = -1;
	unsigned int i;

	ck_assert_ptr_nonnull(x);
	memset(x, FILL, size);
	kmem_cache_free(s, x);
	for (i = 0; i < size; i++) {
		if (x[i] == FILL)
			continue;
		ck_assert_msg(changed < 0 || ((long)i & ~7L) == (changed & ~7L),
			      "bytes %ld and %u changed: more than the free pointer", changed, i);
		if (changed < 0)
			changed = i;
	}
	return changed < 0 ? changed : changed & ~7L;
}

START_TEST(test_free_pointer_in_the_middle)
{
	static const struct { unsigned int size; long offset; } t[] = {
		{ 8, 0 }, { 16, 8 }, { 24, 8 }, { 64, 32 }, { 100, 48 }, { 4096, 2048 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct kmem_cache *s = plain_cache(t[i].size);

		ck_assert_uint_eq(s->offset, (unsigned int)t[i].offset);
		ck_assert_int_eq(changed_word_after_free(s, t[i].size), t[i].offset);
		kmem_cache_destroy(s);
	}
}
END_TEST

static unsigned long ctor_calls;	/* only the test's thread allocates */

static void ctor_fill(void *p)
{
	ctor_calls++;
	memset(p, 0x5c, 40);
}

static void assert_constructed(const unsigned char *x)
{
	unsigned int i;

	for (i = 0; i < 40; i++)
		ck_assert_msg(x[i] == 0x5c, "byte %u is %#x, not constructed", i, x[i]);
}

START_TEST(test_ctor_state_survives_free_and_realloc)
{
	struct kmem_cache *s = kmem_cache_create("layout-ctor", 40, 0, 0, ctor_fill);
	unsigned char *x, *y;
	unsigned int per_slab, i;

	ck_assert_ptr_nonnull(s);
	ck_assert_uint_ge(s->offset, 40);	/* outside the object */
	per_slab = s->oo.x & 0xffff;
	x = kmem_cache_alloc(s, GFP_KERNEL);
	ck_assert_ptr_nonnull(x);
	ck_assert_uint_eq(ctor_calls, per_slab);	/* the whole slab, at once */
	assert_constructed(x);
	kmem_cache_free(s, x);
	assert_constructed(x);			/* free left the object alone */
	for (i = 0; i < 1000; i++) {
		y = kmem_cache_alloc(s, GFP_KERNEL);
		assert_constructed(y);
		kmem_cache_free(s, y);
	}
	ck_assert_uint_eq(ctor_calls, per_slab);	/* never again per allocation */
	ck_assert_uint_eq(ksize(x), s->size);
	kmem_cache_destroy(s);
}
END_TEST

START_TEST(test_rcu_cache_keeps_object_intact)
{
	struct kmem_cache *s = kmem_cache_create("layout-rcu", 64, 0, SLAB_TYPESAFE_BY_RCU, NULL);
	unsigned char *x;
	unsigned int i;

	ck_assert_ptr_nonnull(s);
	ck_assert_uint_ge(s->offset, 64);
	x = kmem_cache_alloc(s, GFP_KERNEL);
	memset(x, FILL, 64);
	kmem_cache_free(s, x);
	for (i = 0; i < 64; i++)
		ck_assert_uint_eq(x[i], FILL);
	ck_assert_uint_eq(s->inuse, 64);
	kmem_cache_destroy(s);
}
END_TEST

START_TEST(test_gfp_zero_and_ksize)
{
	struct kmem_cache *s = plain_cache(60);
	unsigned char *x;
	unsigned int i;

	ck_assert_uint_eq(s->size, 64);		/* word-rounded, 8-aligned */
	x = kmem_cache_alloc(s, GFP_KERNEL);
	memset(x, FILL, 60);
	kmem_cache_free(s, x);
	x = kmem_cache_alloc(s, GFP_KERNEL | __GFP_ZERO);
	for (i = 0; i < 60; i++)
		ck_assert_uint_eq(x[i], 0);
	ck_assert_uint_eq(ksize(x), 64);	/* the whole slot is usable */
	kmem_cache_free(s, x);
	kmem_cache_destroy(s);
}
END_TEST

START_TEST(test_debug_flags_reserve_room)
{
	struct kmem_cache *s = kmem_cache_create("layout-debug", 64, 0,
						 SLAB_RED_ZONE | SLAB_STORE_USER, NULL);
	void *x;

	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->red_left_pad, 8);
	ck_assert_uint_eq(s->inuse, 72);	/* object + right red zone */
	ck_assert_uint_eq(s->offset, 32);	/* 5.17: only poison moves it out */
	/* left pad + 72 + two 152-byte tracks + red zone word */
	ck_assert_uint_eq(s->size, 8 + 72 + 2 * 152 + 8);
	x = kmem_cache_alloc(s, GFP_KERNEL);
	ck_assert_ptr_nonnull(x);
	ck_assert_uint_eq(((uintptr_t)x -
			   (uintptr_t)slab_address(virt_to_slab(x))) % s->size, 8);
	ck_assert_uint_eq(ksize(x), 64);
	kmem_cache_free(s, x);
	kmem_cache_destroy(s);
	s = kmem_cache_create("layout-poison", 64, 0, SLAB_POISON, NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->offset, 64);	/* a poisoned object has no room */
	ck_assert_uint_eq(s->size, 72);
	kmem_cache_destroy(s);
}
END_TEST

static Suite *slub_layout_suite(void)
{
	Suite *s = suite_create("slub_layout");
	TCase *tc = tcase_create("layout");

	tcase_add_test(tc, test_free_pointer_in_the_middle);
	tcase_add_test(tc, test_ctor_state_survives_free_and_realloc);
	tcase_add_test(tc, test_rcu_cache_keeps_object_intact);
	tcase_add_test(tc, test_gfp_zero_and_ksize);
	tcase_add_test(tc, test_debug_flags_reserve_room);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(slub_layout_suite)

#else

int main(void)
{
	uslab_test_skip("SLUB's object layout and free pointer placement");
}

#endif
