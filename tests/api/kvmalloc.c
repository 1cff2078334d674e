/* SPDX-License-Identifier: MIT */
/*
 * kvmalloc.c - the mm/util.c helpers, as a checklist, through <uslab/slab.h>
 * only: kmemdup and the kstrdup family, and kvmalloc/kvfree with the
 * fallback beyond what kmalloc can serve.  Allocator-neutral.
 */
#include "api.h"
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <sys/mman.h>

#define BIG	(64UL << 20)	/* beyond the largest buddy block (4 MiB by default) */

static size_t runtime(size_t n)
{
	volatile size_t v = n;

	return v;
}

/* Is the page at p mapped in this process? */
static int mapped(const void *p)
{
	unsigned char vec;
	void *page = (void *)((uintptr_t)p & ~(uintptr_t)4095);

	return mincore(page, 4096, &vec) == 0 || errno != ENOMEM;
}

/* Every step-th byte of p[0..n) is zero (Check's asserts are too slow for
 * millions of bytes, so the loop is plain C). */
static int zero_every(const unsigned char *p, size_t n, size_t step)
{
	size_t off;

	for (off = 0; off < n; off += step)
		if (p[off])
			return 0;
	return p[n - 1] == 0;
}

/* ---------------- duplication ---------------- */

START_TEST(kstrdup_copies_strings)
{
	const char *src = "uslab: the kernel's slab in user space";
	char *d = kstrdup(src, GFP_KERNEL);

	ck_assert_ptr_nonnull(d);
	ck_assert_ptr_ne(d, src);
	ck_assert_str_eq(d, src);
	ck_assert_uint_ge(ksize(d), strlen(src) + 1);
	kfree(d);
	d = kstrdup("", GFP_KERNEL);
	ck_assert_ptr_nonnull(d);
	ck_assert_str_eq(d, "");
	kfree(d);
	ck_assert_ptr_null(kstrdup(NULL, GFP_KERNEL));
}
END_TEST

START_TEST(kstrndup_stops_at_max_or_the_end)
{
	char *d = kstrndup("abcdefgh", 3, GFP_KERNEL);

	ck_assert_str_eq(d, "abc");
	kfree(d);
	d = kstrndup("ab", 100, GFP_KERNEL);
	ck_assert_str_eq(d, "ab");
	kfree(d);
	d = kstrndup("abc", 0, GFP_KERNEL);
	ck_assert_str_eq(d, "");
	kfree(d);
	ck_assert_ptr_null(kstrndup(NULL, 5, GFP_KERNEL));
}
END_TEST

START_TEST(kmemdup_and_kmemdup_nul_copy_bytes)
{
	static const char bytes[6] = { 'a', 0, 'b', 0, 'c', 'd' };
	char *d = (char *)kmemdup(bytes, sizeof(bytes), GFP_KERNEL);

	ck_assert_ptr_nonnull(d);
	ck_assert_mem_eq(d, bytes, sizeof(bytes));
	kfree(d);
	d = (char *)kmemdup_nul("hello world", 5, GFP_KERNEL);
	ck_assert_str_eq(d, "hello");
	kfree(d);
	d = (char *)kmemdup(bytes, 0, GFP_KERNEL);
	ck_assert_ptr_eq(d, ZERO_SIZE_PTR);
	ck_assert_ptr_null(kmemdup_nul(NULL, 3, GFP_KERNEL));
}
END_TEST

/* ---------------- kvmalloc ---------------- */

START_TEST(small_kvmalloc_is_kmalloc_memory)
{
	static const size_t sizes[] = { 1, 100, 4096, 5000, 100000, 1 << 20 };
	size_t i;
	void *p;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		p = kvmalloc(runtime(sizes[i]), GFP_KERNEL);
		ck_assert_ptr_nonnull(p);
		/* kmalloc memory has a ksize; a fallback mapping would abort here */
		ck_assert_uint_ge(ksize(p), sizes[i]);
		memset(p, 0x3c, sizes[i]);
		kvfree(p);
	}
}
END_TEST

START_TEST(kvmalloc_beyond_the_page_allocator_works_and_kvfree_unmaps)
{
	unsigned char *p = (unsigned char *)kvmalloc(BIG, GFP_KERNEL);
	size_t off, bad = 0;

	ck_assert_ptr_nonnull(p);
	ck_assert(((uintptr_t)p & 4095) == 0);
	ck_assert(zero_every(p, BIG, 4096));	/* fresh memory reads as zeros */
	for (off = 0; off < BIG; off += 4096)
		p[off] = (unsigned char)(off >> 12);
	p[BIG - 1] = 0xfe;
	for (off = 0; off < BIG; off += 4096)
		bad += p[off] != (unsigned char)(off >> 12);
	ck_assert_uint_eq(bad, 0);
	kvfree(p);
	ck_assert_msg(!mapped(p) && !mapped(p + BIG - 1), "kvfree left %p mapped", (void *)p);
}
END_TEST

START_TEST(kvzalloc_and_kvcalloc_zero)
{
	unsigned char *p = (unsigned char *)kvzalloc(BIG + 123, GFP_KERNEL);
	unsigned char *q = (unsigned char *)kvcalloc(3000, 1000, GFP_KERNEL);
	unsigned char *r = (unsigned char *)kvzalloc_node(70000, GFP_KERNEL, NUMA_NO_NODE);

	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(q);
	ck_assert_ptr_nonnull(r);
	ck_assert(zero_every(p, BIG + 123, 511));
	ck_assert(zero_every(q, 3000000, 1));
	ck_assert(zero_every(r, 70000, 1));
	kvfree(p);
	kvfree(q);
	kvfree(r);
}
END_TEST

START_TEST(kvmalloc_without_gfp_kernel_is_kmalloc_only)
{
	void *p = kvmalloc(BIG, GFP_NOWAIT | __GFP_NOWARN);

	ck_assert_ptr_null(p);
	p = kvmalloc(1000, GFP_ATOMIC);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_ge(ksize(p), 1000);
	kvfree(p);
}
END_TEST

START_TEST(kvmalloc_above_int_max_fails)
{
	struct stderr_capture cap;
	char out[4096];
	void *p;

	stderr_capture_begin(&cap);
	p = kvmalloc(runtime((size_t)INT_MAX + 1), GFP_KERNEL | __GFP_NOWARN);
	stderr_capture_end(&cap, out, sizeof(out));
	ck_assert_ptr_null(p);
	ck_assert_msg(out[0] == '\0', "__GFP_NOWARN failure reported:\n%.3000s", out);
	stderr_capture_begin(&cap);
	p = kvmalloc(runtime((size_t)INT_MAX + 1), GFP_KERNEL);
	stderr_capture_end(&cap, out, sizeof(out));
	ck_assert_ptr_null(p);
	ck_assert_msg(strstr(out, "INT_MAX"), "no report:\n%.3000s", out);
}
END_TEST

START_TEST(kvrealloc_keeps_the_old_bytes)
{
	char *p = (char *)kvmalloc(100, GFP_KERNEL), *q;
	size_t i;

	ck_assert_ptr_nonnull(p);
	for (i = 0; i < 100; i++)
		p[i] = (char)i;
	q = (char *)kvrealloc(p, 100, 50, GFP_KERNEL);
	ck_assert_ptr_eq(q, p);			/* shrinking keeps the allocation */
	q = (char *)kvrealloc(p, 100, BIG, GFP_KERNEL);
	ck_assert_ptr_nonnull(q);
	for (i = 0; i < 100; i++)
		ck_assert_int_eq(q[i], (char)i);
	q[BIG - 1] = 1;
	p = (char *)kvrealloc(q, BIG, BIG + 4096 * 3, GFP_KERNEL);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(p[99], 99);
	ck_assert_int_eq(p[BIG - 1], 1);
	kvfree(p);
}
END_TEST

START_TEST(kvfree_sensitive_frees_both_kinds)
{
	void *p = kvmalloc(300, GFP_KERNEL), *q = kvmalloc(BIG, GFP_KERNEL);

	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(q);
	memset(p, 0x99, 300);
	memset(q, 0x99, 4096);
	kvfree_sensitive(p, 300);
	kvfree_sensitive(q, BIG);
	ck_assert(!mapped(q));
	kvfree_sensitive(NULL, 10);
}
END_TEST

/* ---------------- bad pointers ---------------- */

static void kvfree_stack(void *arg)
{
	char local[64] = "not from kvmalloc";

	(void)arg;
	kvfree(local);
}

static void kvfree_inside_big(void *arg)
{
	char *p = (char *)kvmalloc(BIG, GFP_KERNEL);

	(void)arg;
	kvfree(p + 8192);
}

static void kvfree_big_twice(void *arg)
{
	void *p = kvmalloc(BIG, GFP_KERNEL);

	(void)arg;
	kvfree(p);
	kvfree(p);
}

static void kvfree_big_header_smashed(void *arg)
{
	char *p = (char *)kvmalloc(BIG, GFP_KERNEL);

	(void)arg;
	memset(p - 64, 0, 64);	/* an underflow into the area's header page */
	kvfree(p);
}

START_TEST(kvfree_of_a_bad_pointer_aborts_with_a_report)
{
	ck_assert_aborts_with(kvfree_stack, NULL, "kvfree: invalid pointer");
	ck_assert_aborts_with(kvfree_inside_big, NULL, "kvfree: invalid pointer");
	ck_assert_aborts_with(kvfree_big_twice, NULL, "kvfree: invalid pointer");
	ck_assert_aborts_with(kvfree_big_header_smashed, NULL, "overwritten");
}
END_TEST

static Suite *kvmalloc_suite(void)
{
	Suite *s = suite_create("kvmalloc");
	TCase *dup = tcase_create("dup");
	TCase *kv = tcase_create("kvmalloc");
	TCase *bad = tcase_create("bad");

	tcase_add_test(dup, kstrdup_copies_strings);
	tcase_add_test(dup, kstrndup_stops_at_max_or_the_end);
	tcase_add_test(dup, kmemdup_and_kmemdup_nul_copy_bytes);
	tcase_add_test(kv, small_kvmalloc_is_kmalloc_memory);
	tcase_add_test(kv, kvmalloc_beyond_the_page_allocator_works_and_kvfree_unmaps);
	tcase_add_test(kv, kvzalloc_and_kvcalloc_zero);
	tcase_add_test(kv, kvmalloc_without_gfp_kernel_is_kmalloc_only);
	tcase_add_test(kv, kvmalloc_above_int_max_fails);
	tcase_add_test(kv, kvrealloc_keeps_the_old_bytes);
	tcase_add_test(kv, kvfree_sensitive_frees_both_kinds);
	tcase_add_test(bad, kvfree_of_a_bad_pointer_aborts_with_a_report);
	suite_add_tcase(s, dup);
	suite_add_tcase(s, kv);
	suite_add_tcase(s, bad);
	return s;
}

USLAB_TEST_MAIN(kvmalloc_suite)
