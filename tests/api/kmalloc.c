/* SPDX-License-Identifier: MIT */
/*
 * kmalloc.c - the kmalloc family, as a checklist, through <uslab/slab.h>
 * only: zero-size and NULL handling, alignment, ksize, krealloc, zeroing,
 * overflow, large allocations, failure reports, and the compile-time
 * cache choice for constant sizes.  Allocator-neutral.
 */
#include "api.h"
#include <stdint.h>

static int is_aligned(const void *p, unsigned long a)
{
	return ((uintptr_t)p & (a - 1)) == 0;
}

/* A size the compiler cannot see, to take kmalloc's run-time path. */
static size_t runtime(size_t n)
{
	volatile size_t v = n;

	return v;
}

static void fill(void *p, size_t n, unsigned char seed)
{
	unsigned char *b = (unsigned char *)p;
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (unsigned char)(seed + i * 7);
}

static int filled(const void *p, size_t n, unsigned char seed)
{
	const unsigned char *b = (const unsigned char *)p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != (unsigned char)(seed + i * 7))
			return 0;
	return 1;
}

static int all_zero(const void *p, size_t n)
{
	const unsigned char *b = (const unsigned char *)p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

/* ---------------- zero size and NULL ---------------- */

START_TEST(kmalloc_0_is_zero_size_ptr)
{
	ck_assert_ptr_eq(kmalloc(0, GFP_KERNEL), ZERO_SIZE_PTR);
	ck_assert_ptr_eq(kmalloc(runtime(0), GFP_KERNEL), ZERO_SIZE_PTR);
	ck_assert_ptr_eq(kzalloc(0, GFP_KERNEL), ZERO_SIZE_PTR);
	ck_assert_ptr_eq(kcalloc(0, 8, GFP_KERNEL), ZERO_SIZE_PTR);
	ck_assert_ptr_eq(kmalloc_node(0, GFP_KERNEL, NUMA_NO_NODE), ZERO_SIZE_PTR);
	ck_assert(ZERO_OR_NULL_PTR(ZERO_SIZE_PTR));
	ck_assert(ZERO_OR_NULL_PTR(NULL));
	ck_assert_uint_eq(ksize(ZERO_SIZE_PTR), 0);
	ck_assert_uint_eq(ksize(NULL), 0);
}
END_TEST

START_TEST(kfree_of_null_and_zero_size_ptr_are_no_ops)
{
	kfree(NULL);
	kfree(ZERO_SIZE_PTR);
	kfree_sensitive(NULL);
	kfree_sensitive(ZERO_SIZE_PTR);
	kvfree(NULL);
	kvfree(ZERO_SIZE_PTR);
}
END_TEST

/* ---------------- alignment ---------------- */

START_TEST(power_of_two_sizes_are_naturally_aligned)
{
	size_t size;
	void *p[8];
	int i;

	for (size = 8; size <= 64 * 1024; size *= 2) {
		for (i = 0; i < 8; i++) {
			p[i] = kmalloc(runtime(size), GFP_KERNEL);
			ck_assert_ptr_nonnull(p[i]);
			ck_assert_msg(is_aligned(p[i], size), "kmalloc(%zu) = %p", size, p[i]);
		}
		for (i = 0; i < 8; i++)
			kfree(p[i]);
	}
}
END_TEST

START_TEST(every_size_is_minalign_aligned)
{
	void *p[600];
	size_t size;

	for (size = 1; size <= 600; size++) {
		p[size - 1] = kmalloc(runtime(size), GFP_KERNEL);
		ck_assert_ptr_nonnull(p[size - 1]);
		ck_assert(is_aligned(p[size - 1], ARCH_KMALLOC_MINALIGN));
	}
	for (size = 1; size <= 600; size++)
		kfree(p[size - 1]);
}
END_TEST

/* ---------------- ksize ---------------- */

START_TEST(ksize_covers_the_request_and_all_of_it_is_writable)
{
	static const size_t sizes[] = { 1, 7, 8, 9, 24, 33, 64, 65, 96, 97, 128, 129, 192,
		193, 256, 300, 700, 1000, 2047, 3000, 4095, 4096, 4097, 6000, 8192, 8193,
		12000, 65536, 100000, 300000 };
	void *p[sizeof(sizes) / sizeof(sizes[0])];
	size_t i, ks;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		p[i] = kmalloc(runtime(sizes[i]), GFP_KERNEL);
		ck_assert_ptr_nonnull(p[i]);
		ks = ksize(p[i]);
		ck_assert_msg(ks >= sizes[i], "ksize(kmalloc(%zu)) = %zu", sizes[i], ks);
		fill(p[i], ks, (unsigned char)i);
	}
	/* writing all of every ksize() touched no neighbour */
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		ck_assert_msg(filled(p[i], ksize(p[i]), (unsigned char)i),
			      "kmalloc(%zu) was overwritten", sizes[i]);
		kfree(p[i]);
	}
}
END_TEST

/* kmalloc(N) with N a compile-time constant must land in the cache the
 * run-time path picks for N (the same ksize). */
#define SAME_CLASS(n)								\
	do {									\
		void *c = kmalloc(n, GFP_KERNEL);				\
		void *r = kmalloc(runtime(n), GFP_KERNEL);			\
										\
		ck_assert_ptr_nonnull(c);					\
		ck_assert_ptr_nonnull(r);					\
		ck_assert_msg(ksize(c) == ksize(r),				\
			      "kmalloc(%d): constant path ksize %zu, run-time %zu", \
			      (int)(n), ksize(c), ksize(r));			\
		memset(c, 0xcc, ksize(c));					\
		kfree(c);							\
		kfree(r);							\
	} while (0)

START_TEST(constant_sizes_pick_the_same_cache_as_runtime_sizes)
{
	SAME_CLASS(1); SAME_CLASS(8); SAME_CLASS(9); SAME_CLASS(16); SAME_CLASS(24);
	SAME_CLASS(33); SAME_CLASS(64); SAME_CLASS(65); SAME_CLASS(96); SAME_CLASS(97);
	SAME_CLASS(128); SAME_CLASS(129); SAME_CLASS(192); SAME_CLASS(193);
	SAME_CLASS(256); SAME_CLASS(1000); SAME_CLASS(2048); SAME_CLASS(4096);
	SAME_CLASS(5000); SAME_CLASS(8192); SAME_CLASS(8193); SAME_CLASS(65536);
	SAME_CLASS(300000);
}
END_TEST

START_TEST(constant_size_kmalloc_node_and_gfp_types_work)
{
	void *p[6];
	int i;

	p[0] = kmalloc_node(100, GFP_KERNEL, NUMA_NO_NODE);
	p[1] = kmalloc_node(100, GFP_KERNEL, 0);
	p[2] = kmalloc(100, GFP_KERNEL | __GFP_RECLAIMABLE);
	p[3] = kmalloc(100, GFP_KERNEL_ACCOUNT);
	p[4] = kmalloc(100, GFP_KERNEL | __GFP_DMA);
	p[5] = kmalloc(runtime(100), GFP_KERNEL | __GFP_RECLAIMABLE);
	for (i = 0; i < 6; i++) {
		ck_assert_ptr_nonnull(p[i]);
		ck_assert_uint_ge(ksize(p[i]), 100);
		memset(p[i], i, 100);
	}
	for (i = 0; i < 6; i++)
		kfree(p[i]);
}
END_TEST

/* ---------------- krealloc ---------------- */

START_TEST(krealloc_keeps_contents_while_growing)
{
	size_t size = 5, next;
	char *p = (char *)kmalloc(size, GFP_KERNEL);

	ck_assert_ptr_nonnull(p);
	fill(p, size, 3);
	for (next = 11; next <= 200000; next = next * 3 + 1) {
		p = (char *)krealloc(p, next, GFP_KERNEL);
		ck_assert_ptr_nonnull(p);
		ck_assert_msg(filled(p, size, 3), "contents lost growing to %zu", next);
		ck_assert_uint_ge(ksize(p), next);
		fill(p, next, 3);
		size = next;
	}
	kfree(p);
}
END_TEST

START_TEST(krealloc_within_ksize_returns_the_same_pointer)
{
	char *p = (char *)kmalloc(100, GFP_KERNEL), *q;

	ck_assert_ptr_nonnull(p);
	fill(p, 100, 9);
	q = (char *)krealloc(p, ksize(p), GFP_KERNEL);
	ck_assert_ptr_eq(q, p);
	q = (char *)krealloc(p, 10, GFP_KERNEL);
	ck_assert_ptr_eq(q, p);
	/* why 10: the object is now 10 bytes (valgrind/ASan see only those) */
	ck_assert(filled(p, 10, 9));
	kfree(p);
}
END_TEST

START_TEST(krealloc_of_null_is_kmalloc)
{
	char *p = (char *)krealloc(NULL, 77, GFP_KERNEL);

	ck_assert_ptr_nonnull(p);
	ck_assert_uint_ge(ksize(p), 77);
	memset(p, 1, 77);
	kfree(p);
	p = (char *)krealloc(ZERO_SIZE_PTR, 33, GFP_KERNEL);
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_ne(p, ZERO_SIZE_PTR);
	kfree(p);
}
END_TEST

START_TEST(krealloc_to_0_frees_and_returns_zero_size_ptr)
{
	void *p = kmalloc(64, GFP_KERNEL);

	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_eq(krealloc(p, 0, GFP_KERNEL), ZERO_SIZE_PTR);
	ck_assert_ptr_eq(krealloc(NULL, 0, GFP_KERNEL), ZERO_SIZE_PTR);
}
END_TEST

START_TEST(krealloc_of_large_allocations)
{
	char *p = (char *)kmalloc(50000, GFP_KERNEL);

	ck_assert_ptr_nonnull(p);
	fill(p, 50000, 5);
	p = (char *)krealloc(p, 500000, GFP_KERNEL);
	ck_assert_ptr_nonnull(p);
	ck_assert(filled(p, 50000, 5));
	p = (char *)krealloc(p, 100, GFP_KERNEL);	/* fits: stays */
	ck_assert(filled(p, 100, 5));
	kfree(p);
}
END_TEST

/* ---------------- zeroing and overflow ---------------- */

START_TEST(gfp_zero_kzalloc_and_kcalloc_zero_the_memory)
{
	static const size_t sizes[] = { 8, 40, 100, 256, 1000, 4000, 10000, 70000 };
	size_t i;
	int round;
	void *p;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (round = 0; round < 4; round++) {
			/* dirty a slot first, so a zero is not just fresh memory */
			p = kmalloc(runtime(sizes[i]), GFP_KERNEL);
			memset(p, 0xee, ksize(p));
			kfree(p);
			if (round == 0)
				p = kmalloc(runtime(sizes[i]), GFP_KERNEL | __GFP_ZERO);
			else if (round == 1)
				p = kzalloc(runtime(sizes[i]), GFP_KERNEL);
			else if (round == 2)
				p = kcalloc(runtime(sizes[i]) / 4, 4, GFP_KERNEL);
			else
				p = kzalloc_node(runtime(sizes[i]), GFP_KERNEL, NUMA_NO_NODE);
			ck_assert_ptr_nonnull(p);
			ck_assert_msg(all_zero(p, sizes[i]), "size %zu round %d not zeroed",
				      sizes[i], round);
			kfree(p);
		}
	}
}
END_TEST

START_TEST(array_size_overflow_gives_null)
{
	void *p = kmalloc(16, GFP_KERNEL);

	ck_assert_ptr_null(kmalloc_array(runtime(SIZE_MAX / 2), 3, GFP_KERNEL));
	ck_assert_ptr_null(kcalloc(runtime(SIZE_MAX / 8), 16, GFP_KERNEL));
	ck_assert_ptr_null(kmalloc_array_node(3, runtime(SIZE_MAX / 2), GFP_KERNEL, 0));
	ck_assert_ptr_null(kcalloc_node(runtime(SIZE_MAX), 2, GFP_KERNEL, NUMA_NO_NODE));
	ck_assert_ptr_null(krealloc_array(p, runtime(SIZE_MAX / 4), 5, GFP_KERNEL));
	ck_assert_ptr_null(kvmalloc_array(runtime(SIZE_MAX / 2), 3, GFP_KERNEL));
	ck_assert_ptr_null(kvcalloc(runtime(SIZE_MAX / 2), 3, GFP_KERNEL));
	/* the failed krealloc_array left p alone */
	ck_assert_uint_ge(ksize(p), 16);
	kfree(p);
	p = kmalloc_array(runtime(10), 12, GFP_KERNEL);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_ge(ksize(p), 120);
	kfree(p);
}
END_TEST

/* ---------------- large allocations ---------------- */

START_TEST(kmalloc_large_is_whole_pages)
{
	char *p = (char *)kmalloc_large(100000, GFP_KERNEL);

	ck_assert_ptr_nonnull(p);
	ck_assert(is_aligned(p, 4096));
	ck_assert_uint_eq(ksize(p), 128 * 1024);	/* the folio: order 5 */
	fill(p, ksize(p), 1);
	ck_assert(filled(p, ksize(p), 1));
	kfree(p);
	p = (char *)kmalloc_large(5000, GFP_KERNEL | __GFP_ZERO);
	ck_assert_ptr_nonnull(p);
	ck_assert(all_zero(p, 8192));
	kfree(p);
}
END_TEST

static void kfree_inside_large(void *arg)
{
	char *p = (char *)kmalloc_large(100000, GFP_KERNEL);

	(void)arg;
	kfree(p + 4096);
}

static void kfree_large_twice(void *arg)
{
	char *p = (char *)kmalloc_large(100000, GFP_KERNEL);

	(void)arg;
	kfree(p);
	kfree(p);
}

START_TEST(bad_kfree_of_a_large_kmalloc_aborts_with_a_report)
{
	ck_assert_aborts_with(kfree_inside_large, NULL, "kfree: invalid large kmalloc pointer");
	/* the allocator may catch a double free before the large-kmalloc check */
	ck_assert_aborts_with(kfree_large_twice, NULL, "kfree: invalid");
}
END_TEST

static void kmalloc_large_bad_gfp(void *arg)
{
	void *p = kmalloc_large(20000, GFP_KERNEL | __GFP_HIGHMEM);

	(void)arg;
	if (!p)
		_exit(3);
	memset(p, 0, 20000);
	kfree(p);
}

START_TEST(bad_gfp_bits_are_fixed_up_with_a_warning)
{
	char out[8192], how[32];
	int end = run_expect_abort(kmalloc_large_bad_gfp, NULL, out, sizeof(out));

	ck_assert_msg(end == 0, "ended with %s:\n%.3000s", uslab_test_describe_end(end, how, 32), out);
	ck_assert_msg(strstr(out, "Unexpected gfp: 0x2 (__GFP_HIGHMEM)") &&
		      strstr(out, "Fix your code!"), "no fix-up warning:\n%.3000s", out);
}
END_TEST

/* ---------------- failure reports ---------------- */

/* In a 16 MiB arena, allocate 256 KiB blocks until kmalloc fails. */
static int exhaust(gfp_t gfp)
{
	void *p[200];
	int i, n;

	for (n = 0; n < 200; n++) {
		p[n] = kmalloc(runtime(256 * 1024), gfp);
		if (!p[n])
			break;
	}
	SCENARIO_CHECK(n > 0 && n < 200);
	for (i = 0; i < n; i++)
		kfree(p[i]);
	return 0;
}

static int scenario_exhaust_warn(void)
{
	return exhaust(GFP_KERNEL);
}

static int scenario_exhaust_nowarn(void)
{
	return exhaust(GFP_KERNEL | __GFP_NOWARN);
}

#define TINY_ARENA	"arena_size=16M section_size=4M"

START_TEST(failing_allocation_warns_unless_nowarn)
{
	char out[16384], how[32];
	int end;

	end = run_scenario("exhaust_warn", TINY_ARENA, out, sizeof(out));
	ck_assert_msg(end == 0, "ended with %s:\n%.3000s", uslab_test_describe_end(end, how, 32), out);
	ck_assert_msg(strstr(out, "mode:0x") || strstr(out, "Unable to allocate"),
		      "no allocation failure report:\n%.3000s", out);
	end = run_scenario("exhaust_nowarn", TINY_ARENA, out, sizeof(out));
	ck_assert_msg(end == 0, "ended with %s:\n%.3000s", uslab_test_describe_end(end, how, 32), out);
	ck_assert_msg(out[0] == '\0', "__GFP_NOWARN allocation reported:\n%.3000s", out);
}
END_TEST

/* ---------------- kfree_sensitive and kfree_bulk ---------------- */

START_TEST(kfree_sensitive_frees_small_and_large)
{
	void *p = kmalloc(100, GFP_KERNEL), *q = kmalloc(100000, GFP_KERNEL);

	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(q);
	memset(p, 0xaa, ksize(p));
	memset(q, 0xaa, ksize(q));
	kfree_sensitive(p);
	kfree_sensitive(q);
}
END_TEST

START_TEST(kfree_bulk_frees_objects_of_any_size)
{
	void *p[64];
	int i;

	for (i = 0; i < 64; i++) {
		p[i] = kmalloc(runtime(8 + (size_t)i * 97), GFP_KERNEL);
		ck_assert_ptr_nonnull(p[i]);
	}
	kfree_bulk(64, p);
	/* the allocator is consistent after the bulk free */
	for (i = 0; i < 64; i++) {
		p[i] = kmalloc(runtime(8 + (size_t)i * 97), GFP_KERNEL);
		ck_assert_ptr_nonnull(p[i]);
	}
	for (i = 0; i < 64; i++)
		kfree(p[i]);
}
END_TEST

static const struct api_scenario scenarios[] = {
	{ "exhaust_warn", scenario_exhaust_warn },
	{ "exhaust_nowarn", scenario_exhaust_nowarn },
};

static Suite *kmalloc_suite(void)
{
	Suite *s = suite_create("kmalloc");
	TCase *zero = tcase_create("zero");
	TCase *align = tcase_create("align");
	TCase *size = tcase_create("ksize");
	TCase *realloc = tcase_create("krealloc");
	TCase *fill_tc = tcase_create("zeroing");
	TCase *large = tcase_create("large");
	TCase *fail = tcase_create("failure");
	TCase *free_tc = tcase_create("free");

	tcase_add_test(zero, kmalloc_0_is_zero_size_ptr);
	tcase_add_test(zero, kfree_of_null_and_zero_size_ptr_are_no_ops);
	tcase_add_test(align, power_of_two_sizes_are_naturally_aligned);
	tcase_add_test(align, every_size_is_minalign_aligned);
	tcase_add_test(size, ksize_covers_the_request_and_all_of_it_is_writable);
	tcase_add_test(size, constant_sizes_pick_the_same_cache_as_runtime_sizes);
	tcase_add_test(size, constant_size_kmalloc_node_and_gfp_types_work);
	tcase_add_test(realloc, krealloc_keeps_contents_while_growing);
	tcase_add_test(realloc, krealloc_within_ksize_returns_the_same_pointer);
	tcase_add_test(realloc, krealloc_of_null_is_kmalloc);
	tcase_add_test(realloc, krealloc_to_0_frees_and_returns_zero_size_ptr);
	tcase_add_test(realloc, krealloc_of_large_allocations);
	tcase_add_test(fill_tc, gfp_zero_kzalloc_and_kcalloc_zero_the_memory);
	tcase_add_test(fill_tc, array_size_overflow_gives_null);
	tcase_add_test(large, kmalloc_large_is_whole_pages);
	tcase_add_test(large, bad_kfree_of_a_large_kmalloc_aborts_with_a_report);
	tcase_add_test(large, bad_gfp_bits_are_fixed_up_with_a_warning);
	tcase_add_test(fail, failing_allocation_warns_unless_nowarn);
	tcase_add_test(free_tc, kfree_sensitive_frees_small_and_large);
	tcase_add_test(free_tc, kfree_bulk_frees_objects_of_any_size);
	suite_add_tcase(s, zero);
	suite_add_tcase(s, align);
	suite_add_tcase(s, size);
	suite_add_tcase(s, realloc);
	suite_add_tcase(s, fill_tc);
	suite_add_tcase(s, large);
	suite_add_tcase(s, fail);
	suite_add_tcase(s, free_tc);
	return s;
}

API_TEST_MAIN(kmalloc_suite, scenarios)
