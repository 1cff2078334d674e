/* SPDX-License-Identifier: MIT */
/*
 * slab_debug.c - SLAB's debug layout and options (src/mm/slab_debug.c):
 *   - a debug object's slot: redzone 1 right before the object, redzone 2
 *     right after its last byte (object_size, not the slot), the last
 *     user in the slot's last word; objects keep their alignment;
 *   - red zones are dropped above cache-line alignment, poison for
 *     SLAB_TYPESAFE_BY_RCU caches, and every debug word where the slot
 *     would outgrow the largest slab or (option O) need a bigger one;
 *   - poisoned caches never keep a slab's freelist in a free object;
 *   - slab_debug= / slub_debug= give debug flags by cache name (F Z P U,
 *     per-cache blocks), and debug caches are never merged;
 *   - slub_debug=U,kmalloc-* makes every kmalloc size's cache, the
 *     largest without the user word;
 *   - F checks a slab's whole freelist: a corrupted one is reported
 *     before an object is handed out twice;
 *   - a cache without debug flags has no debug hooks (outside memcheck
 *     mode): its fast paths run as before.
 * Built for SLUB or SLOB, the binary skips itself.
 */
#include "common/test.h"

#include <stdint.h>
#include "mm/slab.h"
#include "mm/memcheck.h"

#if CONFIG_SLAB

static unsigned int s_flags_has(slab_flags_t flags, slab_flags_t f)
{
	return (flags & f) != 0;
}

static struct kmem_cache *make(const char *name, unsigned int size, unsigned int align,
			       slab_flags_t flags)
{
	struct kmem_cache *s = kmem_cache_create(name, size, align, flags, NULL);

	ck_assert_ptr_nonnull(s);
	return s;
}

START_TEST(debug_slot_layout)
{
	struct kmem_cache *s = make("dbg-layout", 61, 0,
				    SLAB_RED_ZONE | SLAB_POISON | SLAB_STORE_USER);
	char *x = kmem_cache_alloc(s, GFP_KERNEL);
	unsigned long long rz;

	ck_assert(s->flags & CFLGS_DEBUG_HOOKS);
	ck_assert_uint_eq(s->obj_offset, 8);
	/* 8 (redzone 1) + 61 + 8 (redzone 2) = 77, a word for the user: 88 */
	ck_assert_uint_eq(s->size, 88);
	ck_assert_uint_eq(ksize(x), 61);
	memcpy(&rz, x - 8, sizeof(rz));
	ck_assert_uint_eq(rz, 0xD84156C5635688C0ULL);	/* RED_ACTIVE */
	memcpy(&rz, x + 61, sizeof(rz));
	ck_assert_uint_eq(rz, 0xD84156C5635688C0ULL);
	kmem_cache_free(s, x);
	memcpy(&rz, x + 61, sizeof(rz));
	ck_assert_uint_eq(rz, 0x09F911029D74E35BULL);	/* RED_INACTIVE */
	kmem_cache_destroy(s);
}
END_TEST

START_TEST(red_zones_keep_the_alignment_up_to_a_cache_line)
{
	struct kmem_cache *a64 = make("dbg-a64", 100, 64, SLAB_RED_ZONE);
	struct kmem_cache *a128 = make("dbg-a128", 100, 128, SLAB_RED_ZONE | SLAB_STORE_USER);
	void *x = kmem_cache_alloc(a64, GFP_KERNEL), *y = kmem_cache_alloc(a128, GFP_KERNEL);

	ck_assert_uint_eq(s_flags_has(a64->flags, SLAB_RED_ZONE), 1);
	ck_assert_uint_eq(a64->obj_offset, 64);
	ck_assert_uint_eq((uintptr_t)x % 64, 0);
	/* the kernel's rule above its limit: no red zones, the user word stays */
	ck_assert_uint_eq(s_flags_has(a128->flags, SLAB_RED_ZONE), 0);
	ck_assert_uint_eq(s_flags_has(a128->flags, SLAB_STORE_USER), 1);
	ck_assert_uint_eq(a128->obj_offset, 0);
	ck_assert_uint_eq((uintptr_t)y % 128, 0);
	kmem_cache_free(a64, x);
	kmem_cache_free(a128, y);
	kmem_cache_destroy(a64);
	kmem_cache_destroy(a128);
}
END_TEST

START_TEST(rcu_caches_are_not_poisoned)
{
	struct kmem_cache *s = make("dbg-rcu", 64, 0, SLAB_POISON | SLAB_TYPESAFE_BY_RCU);

	ck_assert_uint_eq(s_flags_has(s->flags, SLAB_POISON), 0);
	kmem_cache_destroy(s);
}
END_TEST

START_TEST(poisoned_caches_keep_no_freelist_in_an_object)
{
	/* without poison this cache keeps its freelist in an object (slab_freelist.c) */
	struct kmem_cache *s = make("dbg-objfl", 64, 0, SLAB_POISON | SLAB_NOLEAKTRACE);

	ck_assert_uint_eq(s_flags_has(s->flags, CFLGS_OBJFREELIST_SLAB), 0);
	kmem_cache_destroy(s);
}
END_TEST

START_TEST(no_debug_no_hooks)
{
	struct kmem_cache *s = make("dbg-none", 64, 0, SLAB_NOLEAKTRACE);

	/* memcheck mode hooks every cache */
	ck_assert_uint_eq(s_flags_has(s->flags, CFLGS_DEBUG_HOOKS), memcheck_active());
	ck_assert_uint_eq(s->obj_offset, 0);
	ck_assert_uint_eq(s->size, 64);
	kmem_cache_destroy(s);
}
END_TEST

START_TEST(options_give_flags_by_name)
{
	struct kmem_cache *a, *b, *c, *k;

	ck_assert_int_eq(parse_option_string("slab_debug=P,dbg-opt-a;ZU,dbg-opt-b*"), 0);
	a = make("dbg-opt-a", 64, 0, 0);
	b = make("dbg-opt-b2", 64, 0, 0);
	c = make("dbg-opt-c", 64, 0, 0);
	ck_assert_uint_eq(a->flags & (SLAB_RED_ZONE | SLAB_POISON | SLAB_STORE_USER), SLAB_POISON);
	ck_assert_uint_eq(b->flags & (SLAB_RED_ZONE | SLAB_POISON | SLAB_STORE_USER),
			  SLAB_RED_ZONE | SLAB_STORE_USER);
	ck_assert_uint_eq(c->flags & (SLAB_RED_ZONE | SLAB_POISON | SLAB_STORE_USER), 0);
	/* debug caches are never merged, even with a twin of the same size */
	k = make("dbg-opt-a", 64, 0, 0);
	ck_assert_ptr_ne(k, a);
	kmem_cache_destroy(k);
	kmem_cache_destroy(a);
	kmem_cache_destroy(b);
	kmem_cache_destroy(c);
}
END_TEST

START_TEST(order_guard_drops_what_needs_a_bigger_slab)
{
	struct kmem_cache *page, *small;

	ck_assert_int_eq(parse_option_string("slub_debug=ZPUO"), 0);
	page = make("dbg-o-4k", 4096, 0, 0);	/* a word more would need order 1 */
	small = make("dbg-o-64", 64, 0, 0);
	ck_assert_uint_eq(page->flags & (SLAB_RED_ZONE | SLAB_POISON | SLAB_STORE_USER), 0);
	ck_assert_uint_eq(small->flags & (SLAB_RED_ZONE | SLAB_POISON | SLAB_STORE_USER),
			  SLAB_RED_ZONE | SLAB_POISON | SLAB_STORE_USER);
	kmem_cache_destroy(page);
	kmem_cache_destroy(small);
}
END_TEST

/*
 * slub_debug=U,kmalloc-* at start-up once stopped SLAB with "Creation of
 * kmalloc slab kmalloc-4M ... failed": every kmalloc size must still make
 * its cache, keeping the user word where the slot still fits the largest
 * slab and dropping it where it would not.
 */
START_TEST(debug_words_on_every_kmalloc_size)
{
	unsigned int i, size;
	struct kmem_cache *s;
	char name[32];
	void *x;

	slab_ensure_init();	/* create_kmalloc_cache is internal: it does not */
	ck_assert_int_eq(parse_option_string("slub_debug=U,kmalloc-*"), 0);
	for (i = KMALLOC_SHIFT_LOW; i <= KMALLOC_SHIFT_HIGH; i++) {
		size = kmalloc_info[i].size;
		snprintf(name, sizeof(name), "kmalloc-dbg-%u", size);
		s = create_kmalloc_cache(name, size, 0, 0, size);	/* panics on failure */
		ck_assert_uint_eq(s->object_size, size);
		ck_assert_uint_le(s->size, PAGE_SIZE << KMALLOC_MAX_ORDER);
		if (size <= PAGE_SIZE)
			ck_assert(s->flags & SLAB_STORE_USER);
		if (i == KMALLOC_SHIFT_HIGH)
			ck_assert(!(s->flags & SLAB_STORE_USER));
		x = kmem_cache_alloc(s, GFP_KERNEL);
		ck_assert_ptr_nonnull(x);
		ck_assert_uint_eq((uintptr_t)x % size, 0);	/* kmalloc(2^n) alignment */
		kmem_cache_free(s, x);
	}
}
END_TEST

/* F: two freelist entries naming one object would hand it out twice. */
static void corrupt_freelist(void *arg)
{
	struct kmem_cache *s = make("dbg-f", 64, 0, SLAB_CONSISTENCY_CHECKS | SLAB_NOLEAKTRACE);
	void *x = kmem_cache_alloc(s, GFP_KERNEL);
	struct slab *slab = virt_to_slab(x);
	unsigned char *idx = slab->freelist;

	(void)arg;
	kmem_cache_shrink(s);	/* the CPU array's objects go back to the slab */
	idx[s->num - 1] = idx[slab->active];	/* one index twice */
	kmem_cache_shrink(s);
	for (;;)
		kmem_cache_alloc(s, GFP_KERNEL);	/* until the check stops it */
}

START_TEST(consistency_checks_find_a_corrupted_freelist)
{
	ck_assert_aborts_with(corrupt_freelist, NULL, "freelist of slab");
	ck_assert_aborts_with(corrupt_freelist, NULL, "is corrupted: entry");
}
END_TEST

/* Without F, an index past the slab's objects is refused all the same. */
static void wild_freelist_index(void *arg)
{
	struct kmem_cache *s = make("dbg-wild", 64, 0, SLAB_NOLEAKTRACE);
	void *x = kmem_cache_alloc(s, GFP_KERNEL);
	struct slab *slab = virt_to_slab(x);

	(void)arg;
	kmem_cache_shrink(s);
	((unsigned char *)slab->freelist)[slab->active] = 0xff;
	for (;;)
		kmem_cache_alloc(s, GFP_KERNEL);
}

START_TEST(a_wild_freelist_index_is_refused)
{
	ck_assert_aborts_with(wild_freelist_index, NULL, "names object 255 of");
}
END_TEST

static Suite *slab_debug_suite(void)
{
	Suite *s = suite_create("slab-debug");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, debug_slot_layout);
	tcase_add_test(tc, red_zones_keep_the_alignment_up_to_a_cache_line);
	tcase_add_test(tc, rcu_caches_are_not_poisoned);
	tcase_add_test(tc, poisoned_caches_keep_no_freelist_in_an_object);
	tcase_add_test(tc, no_debug_no_hooks);
	tcase_add_test(tc, options_give_flags_by_name);
	tcase_add_test(tc, order_guard_drops_what_needs_a_bigger_slab);
	tcase_add_test(tc, debug_words_on_every_kmalloc_size);
	tcase_add_test(tc, consistency_checks_find_a_corrupted_freelist);
	tcase_add_test(tc, a_wild_freelist_index_is_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return uslab_test_run(slab_debug_suite());
}

#else /* !CONFIG_SLAB */

int main(void)
{
	uslab_test_skip("SLAB's debug layout and options");
}

#endif
