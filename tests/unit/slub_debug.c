/* SPDX-License-Identifier: MIT */
/*
 * slub_debug.c - SLUB's debug caches at work (slub_debug.c of the
 * library): the byte patterns of free and allocated objects (red zones
 * 0xbb/0xcc, poison 6b..a5, padding 5a), validate (clean, -EINVAL without
 * debugging, finding damage in a full slab, repairing it), trace lines,
 * failslab, kmalloc caches named by slub_debug=, bulk calls, shutdown
 * reports with owner tracks, and that __GFP_ZERO, ksize and constructors
 * keep their meaning on debug caches.  Reports that end the process run in
 * a child (run_expect_abort).
 */
#include "common/test.h"

#include <errno.h>
#include <stdlib.h>
#include "mm/slab.h"
#include "mm/memcheck.h"

#if CONFIG_SLUB

#define FZPU	(SLAB_CONSISTENCY_CHECKS | SLAB_RED_ZONE | SLAB_POISON | SLAB_STORE_USER)

static struct kmem_cache *debug_cache(const char *name, unsigned int size, slab_flags_t flags)
{
	struct kmem_cache *s = kmem_cache_create(name, size, 0, flags, NULL);

	ck_assert_ptr_nonnull(s);
	return s;
}

static unsigned int objs_per_slab(const struct kmem_cache *s)
{
	return s->oo.x & 0xffff;
}

/* Let the test read the allocator's bytes of x's slot (memcheck mode
 * makes them no-access to the program). */
static void peek(const struct kmem_cache *s, const unsigned char *x)
{
	if (memcheck_active())
		memcheck_defined(x - s->red_left_pad, s->size);
}

/* Are the n bytes at p all c? */
static bool all_bytes(const unsigned char *p, unsigned int n, unsigned char c)
{
	while (n--)
		if (*p++ != c)
			return false;
	return true;
}

/* Body poisoned: 6b ... 6b a5. */
static bool poisoned(const unsigned char *p, unsigned int size)
{
	return all_bytes(p, size - 1, 0x6b) && p[size - 1] == 0xa5;
}

START_TEST(test_object_patterns)
{
	struct kmem_cache *s = debug_cache("dbg-pattern", 60, FZPU);
	unsigned char *x = kmem_cache_alloc(s, GFP_KERNEL);

	ck_assert_ptr_nonnull(x);
	peek(s, x);
	ck_assert_uint_eq(s->object_size, 60);
	ck_assert_uint_ge(s->inuse, 64);
	ck_assert_uint_ge(s->red_left_pad, 8);
	/* allocated: ACTIVE red zones, and the poison until the program writes */
	ck_assert(all_bytes(x - s->red_left_pad, s->red_left_pad, 0xcc));
	ck_assert(all_bytes(x + 60, s->inuse - 60, 0xcc));
	ck_assert(poisoned(x, 60));
	memset(x, 0x11, 60);
	kmem_cache_free(s, x);
	peek(s, x);
	/* free: INACTIVE red zones, poisoned body (the slab stays: min_partial) */
	ck_assert(all_bytes(x - s->red_left_pad, s->red_left_pad, 0xbb));
	ck_assert(all_bytes(x + 60, s->inuse - 60, 0xbb));
	ck_assert(poisoned(x, 60));
	ck_assert_int_eq(kmem_cache_validate(s), 0);
	kmem_cache_destroy(s);
}
END_TEST

START_TEST(test_validate_clean_and_einval)
{
	struct kmem_cache *d = debug_cache("dbg-clean", 96, FZPU);
	struct kmem_cache *p = debug_cache("plain-clean", 96, 0);
	void *objs[100];
	unsigned int i;

	for (i = 0; i < 100; i++)
		objs[i] = kmem_cache_alloc(d, GFP_KERNEL);
	for (i = 0; i < 100; i += 3)
		kmem_cache_free(d, objs[i]);
	ck_assert_int_eq(kmem_cache_validate(d), 0);
	ck_assert_int_eq(kmem_cache_validate(p), -EINVAL);
	ck_assert_int_eq(kmem_cache_validate(NULL), -EINVAL);
	for (i = 1; i < 100; i++)
		if (i % 3)
			kmem_cache_free(d, objs[i]);
	ck_assert_int_eq(kmem_cache_validate(d), 0);
	kmem_cache_destroy(d);
	kmem_cache_destroy(p);
}
END_TEST

/* A full slab of s (U keeps it on n->full), its objects in objs. */
static struct slab *fill_one_slab(struct kmem_cache *s, void **objs)
{
	unsigned int i, n = objs_per_slab(s);
	struct slab *slab;

	for (i = 0; i < n; i++)
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
	slab = virt_to_slab(objs[0]);
	ck_assert_uint_eq(slab->inuse, slab->objects);
	ck_assert_ptr_null(slab->freelist);
	return slab;
}

START_TEST(test_validate_repairs_full_slab)
{
	struct kmem_cache *s = debug_cache("dbg-full", 64, FZPU);
	void **objs = calloc(objs_per_slab(s), sizeof(*objs));
	unsigned long errors = uslab_slab_errors();
	unsigned int i;

	ck_assert_int_eq(parse_option_string("slab_error=repair"), 0);
	fill_one_slab(s, objs);
	((unsigned char *)objs[5])[64] = 0x42;	/* right red zone of a full slab's object */
	ck_assert_int_eq(kmem_cache_validate(s), 1);
	ck_assert_uint_eq(uslab_slab_errors(), errors + 1);
	ck_assert_int_eq(kmem_cache_validate(s), 0);	/* restored */
	for (i = 0; i < objs_per_slab(s); i++)
		kmem_cache_free(s, objs[i]);
	ck_assert_int_eq(kmem_cache_validate(s), 0);
	free(objs);
	kmem_cache_destroy(s);
}
END_TEST

static void validate_full_slab_damage(void *arg)
{
	struct kmem_cache *s = debug_cache("dbg-full", 64, FZPU);
	void **objs = calloc(objs_per_slab(s), sizeof(*objs));

	(void)arg;
	fill_one_slab(s, objs);
	((unsigned char *)objs[7])[-1] = 0;	/* left red zone */
	kmem_cache_validate(s);
}

START_TEST(test_validate_aborts_on_damage)
{
	ck_assert_aborts_with(validate_full_slab_damage, NULL,
			      "BUG dbg-full (Not tainted): Left Redzone overwritten");
}
END_TEST

static void trace_one(void *arg)
{
	struct kmem_cache *s;
	void *x;

	(void)arg;
	ck_assert_int_eq(parse_option_string("slub_debug=T,traced"), 0);
	s = debug_cache("traced", 32, 0);
	x = kmem_cache_alloc(s, GFP_KERNEL);
	kmem_cache_free(s, x);
}

START_TEST(test_trace_lines)
{
	static const char *const words[] = {
		"TRACE traced alloc 0x", "TRACE traced free 0x", " inuse=", " fp=0x",
		"Object   ", "Call Trace:", NULL
	};
	char out[16384];
	const char *const *w;

	ck_assert_int_eq(run_expect_abort(trace_one, NULL, out, sizeof(out)), 0);
	for (w = words; *w; w++)
		ck_assert_msg(strstr(out, *w), "trace lacks \"%s\":\n%s", *w, out);
}
END_TEST

START_TEST(test_failslab)
{
	struct kmem_cache *flaky, *steady;
	unsigned int i, failed = 0;
	void *x;

	ck_assert_int_eq(parse_option_string("slub_debug=A,flaky failslab=2"), 0);
	flaky = debug_cache("flaky", 48, 0);
	steady = debug_cache("steady", 48, 0);
	ck_assert(flaky->flags & SLAB_FAILSLAB);
	for (i = 0; i < 10; i++) {
		x = kmem_cache_alloc(flaky, GFP_KERNEL);
		if (x)
			kmem_cache_free(flaky, x);
		else
			failed++;
		x = kmem_cache_alloc(steady, GFP_KERNEL);
		ck_assert_ptr_nonnull(x);
		kmem_cache_free(steady, x);
	}
	ck_assert_uint_eq(failed, 5);
	for (i = 0; i < 10; i++) {
		x = kmem_cache_alloc(flaky, GFP_KERNEL | __GFP_NOFAIL);
		ck_assert_ptr_nonnull(x);
		kmem_cache_free(flaky, x);
	}
	kmem_cache_destroy(flaky);
	kmem_cache_destroy(steady);
}
END_TEST

/* kmalloc caches get slub_debug= flags when the options come before init. */
static void kmalloc_overflow(void *arg)
{
	unsigned char *p;

	(void)arg;
	if (slab_is_available())
		exit(USLAB_TEST_SKIPPED);	/* the kmalloc caches exist already */
	ck_assert_int_eq(parse_option_string("slub_debug=FZ,kmalloc-64"), 0);
	p = __kmalloc(64, GFP_KERNEL);
	p[64] = 1;
	kfree(p);
}

START_TEST(test_kmalloc_caches_named)
{
	char out[16384];
	int end = run_expect_abort(kmalloc_overflow, NULL, out, sizeof(out));

	if (end == -USLAB_TEST_SKIPPED)
		return;
	ck_assert_msg(end == SIGABRT, "expected SIGABRT, got %d:\n%s", end, out);
	ck_assert_msg(strstr(out, "BUG kmalloc-64 (Not tainted): Right Redzone overwritten"),
		      "no report:\n%s", out);
}
END_TEST

START_TEST(test_bulk_on_debug_cache)
{
	struct kmem_cache *s = debug_cache("dbg-bulk", 128, FZPU);
	void *objs[300];
	unsigned int i;

	ck_assert_int_eq(kmem_cache_alloc_bulk(s, GFP_KERNEL | __GFP_ZERO, 300, objs), 300);
	for (i = 0; i < 300; i++)
		ck_assert(all_bytes(objs[i], 128, 0));
	ck_assert_int_eq(kmem_cache_validate(s), 0);
	kmem_cache_free_bulk(s, 300, objs);
	ck_assert_int_eq(kmem_cache_validate(s), 0);
	ck_assert_int_eq(kmem_cache_shrink(s), 0);
	kmem_cache_destroy(s);
}
END_TEST

static void bulk_double_free(void *arg)
{
	struct kmem_cache *s = debug_cache("dbg-bulk-df", 128, FZPU);
	void *objs[4];

	(void)arg;
	ck_assert_int_eq(kmem_cache_alloc_bulk(s, GFP_KERNEL, 3, objs), 3);
	objs[3] = objs[1];
	kmem_cache_free_bulk(s, 4, objs);
}

START_TEST(test_bulk_double_free_found)
{
	ck_assert_aborts_with(bulk_double_free, NULL,
			      "BUG dbg-bulk-df (Not tainted): Object already free");
}
END_TEST

static unsigned int ctor_calls;

static void ctor_fill(void *p)
{
	memset(p, 0x77, 40);
	ctor_calls++;
}

START_TEST(test_zero_ksize_ctor)
{
	struct kmem_cache *s = debug_cache("dbg-zero", 100, FZPU);
	struct kmem_cache *c = kmem_cache_create("dbg-ctor", 40, 0, FZPU, ctor_fill);
	unsigned char *x = kmem_cache_alloc(s, GFP_KERNEL | __GFP_ZERO), *y;

	ck_assert(all_bytes(x, 100, 0));
	ck_assert_uint_eq(ksize(x), 100);	/* only the object: the rest is debug data */
	kmem_cache_free(s, x);
	ck_assert_ptr_nonnull(c);
	y = kmem_cache_alloc(c, GFP_KERNEL);
	peek(c, y);
	ck_assert_uint_gt(ctor_calls, 0);
	ck_assert(all_bytes(y, 40, 0x77));	/* constructed objects are not poisoned */
	ck_assert(all_bytes(y - c->red_left_pad, c->red_left_pad, 0xcc));
	kmem_cache_free(c, y);
	ck_assert_int_eq(kmem_cache_validate(c), 0);
	kmem_cache_destroy(s);
	kmem_cache_destroy(c);
}
END_TEST

static void destroy_with_live_object(void *arg)
{
	struct kmem_cache *s = debug_cache("dbg-leak", 64, FZPU);

	(void)arg;
	kmem_cache_alloc(s, GFP_KERNEL);
	kmem_cache_destroy(s);
}

START_TEST(test_shutdown_names_owner)
{
	char out[16384];

	ck_assert_int_eq(run_expect_abort(destroy_with_live_object, NULL, out, sizeof(out)), 0);
	ck_assert_msg(strstr(out, "Objects remaining in dbg-leak on __kmem_cache_shutdown()"),
		      "no report:\n%s", out);
	ck_assert_msg(strstr(out, "INFO: Allocated in "), "no owner:\n%s", out);
}
END_TEST

static Suite *slub_debug_suite(void)
{
	Suite *s = suite_create("slub_debug");
	TCase *tc = tcase_create("debug");

	tcase_add_test(tc, test_object_patterns);
	tcase_add_test(tc, test_validate_clean_and_einval);
	tcase_add_test(tc, test_validate_repairs_full_slab);
	tcase_add_test(tc, test_validate_aborts_on_damage);
	tcase_add_test(tc, test_trace_lines);
	tcase_add_test(tc, test_failslab);
	tcase_add_test(tc, test_kmalloc_caches_named);
	tcase_add_test(tc, test_bulk_on_debug_cache);
	tcase_add_test(tc, test_bulk_double_free_found);
	tcase_add_test(tc, test_zero_ksize_ctor);
	tcase_add_test(tc, test_shutdown_names_owner);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(slub_debug_suite)

#else

int main(void)
{
	uslab_test_skip("SLUB's debug caches (red zones, poison, tracks, validate)");
}

#endif
