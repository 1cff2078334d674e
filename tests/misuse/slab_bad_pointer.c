/* SPDX-License-Identifier: MIT */
/*
 * slab_bad_pointer.c - SLAB refuses to free what is not an object: a
 * pointer into the middle of an object, a misaligned one, the start of a
 * debug object's slot (its red zone, not the object), and a pointer
 * outside the heap.  Each is reported ("SLAB: Invalid object pointer
 * 0x...", "... is not the start of an object", "kfree: invalid pointer")
 * and aborts even under slab_error=repair, as the kernel's BUG_ON does:
 * nothing was freed and no other object written.  Built for SLUB or SLOB,
 * the binary skips itself.
 */
#include "slab_misuse.h"

#define OBJ_SIZE	64
#define NR_AROUND	8

enum bad { INTERIOR, MISALIGNED, SLOT_START, ON_THE_STACK };

static void free_bad(void *arg)
{
	struct misuse *m = arg;
	slab_flags_t flags = m->variant == SLOT_START ? SLAB_RED_ZONE | SLAB_STORE_USER : 0;
	char *x, on_stack[16];

	parse_option_string("slab_error=repair");	/* not repairable: aborts anyway */
	m->cache = kmem_cache_create("h2-bad", OBJ_SIZE, 0, flags | SLAB_NOLEAKTRACE, NULL);
	misuse_add_neighbours(m, NR_AROUND, OBJ_SIZE);
	x = kmem_cache_alloc(m->cache, GFP_KERNEL);
	misuse_add_neighbours(m, NR_AROUND, OBJ_SIZE);
	switch (m->variant) {
	case INTERIOR:
		m->object = x + 16;
		break;
	case MISALIGNED:
		m->object = x + 1;
		break;
	case SLOT_START:
		m->object = x - 8;	/* redzone 1 */
		break;
	default:
		m->object = on_stack;
		kfree(on_stack);
		return;
	}
	kmem_cache_free(m->cache, m->object);
	misuse_finish(m);
}

static void check(enum bad which, const char *words0, const char *words1)
{
	struct misuse *m = misuse_new();
	char out[MISUSE_REPORT_LEN], want[200], ptr[32];
	const char *words[] = { words1, NULL, NULL };

	m->variant = which;
	misuse_expect_abort(free_bad, m, out, words);
	snprintf(want, sizeof(want), "%s%s", words0, misuse_ptr(ptr, sizeof(ptr), m->object));
	words[0] = want;
	misuse_expect_words(out, words);
	ck_assert_uint_eq(m->errors, 0);
	misuse_free(m);
}

START_TEST(interior_pointer)
{
	check(INTERIOR, "SLAB: Invalid object pointer ", "is not the start of an object");
}
END_TEST

START_TEST(misaligned_pointer)
{
	check(MISALIGNED, "SLAB: Invalid object pointer ", "is not the start of an object");
}
END_TEST

START_TEST(slot_start_of_a_debug_object)
{
	check(SLOT_START, "SLAB: Invalid object pointer ", "nothing was freed");
}
END_TEST

START_TEST(pointer_outside_the_heap)
{
	check(ON_THE_STACK, "kfree: invalid pointer ", "(not in the arena)");
}
END_TEST

static Suite *slab_bad_pointer_suite(void)
{
	Suite *s = suite_create("slab-bad-pointer");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, interior_pointer);
	tcase_add_test(tc, misaligned_pointer);
	tcase_add_test(tc, slot_start_of_a_debug_object);
	tcase_add_test(tc, pointer_outside_the_heap);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (!CONFIG_SLAB)
		uslab_test_skip("SLAB's checks of the pointers it frees");
	return uslab_test_run(slab_bad_pointer_suite());
}
