/* SPDX-License-Identifier: MIT */
/*
 * slub_bulk.c - SLUB's bulk API: kmem_cache_alloc_bulk pops the cpu
 * freelist and refills through the slow path, all or nothing;
 * kmem_cache_free_bulk / kfree_bulk build one detached freelist per slab.
 * And kmem_cache_destroy with live objects: the kernel's reports, and the
 * cache is kept, still usable, until a later destroy finds it empty.
 */
#include "common/test.h"

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include "mm/slab.h"

#if CONFIG_SLUB

#define NR	1000

static struct kmem_cache *test_cache(const char *name, unsigned int size)
{
	struct kmem_cache *s = kmem_cache_create(name, size, 0, SLAB_NOLEAKTRACE, NULL);

	ck_assert_ptr_nonnull(s);
	return s;
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

static void shuffle(void **p, size_t n)
{
	size_t i, j;
	void *t;

	for (i = n - 1; i > 0; i--) {
		j = (size_t)rand() % (i + 1);
		t = p[i];
		p[i] = p[j];
		p[j] = t;
	}
}

static unsigned long active_objs(struct kmem_cache *s)
{
	struct slabinfo si;

	memset(&si, 0, sizeof(si));
	get_slabinfo(s, &si);
	return si.active_objs;
}

START_TEST(test_bulk_alloc_free)
{
	struct kmem_cache *s = test_cache("bulk", 200);
	void *p[NR], *sorted[NR], *kept[2];
	size_t i, j;

	ck_assert_int_eq(kmem_cache_alloc_bulk(s, GFP_KERNEL, NR, p), NR);
	memcpy(sorted, p, sizeof(p));
	qsort(sorted, NR, sizeof(void *), cmp_ptr);
	for (i = 0; i < NR; i++) {
		ck_assert_ptr_eq(virt_to_slab(p[i])->slab_cache, s);
		if (i)
			ck_assert_msg(sorted[i] != sorted[i - 1], "object handed out twice");
		memset(p[i], 0x77, 200);
	}
	for (i = 0; i < NR; i++)	/* nothing overlapped */
		for (j = 0; j < 200; j++)
			ck_assert_uint_eq(((unsigned char *)p[i])[j], 0x77);
	shuffle(p, NR);
	kept[0] = p[10];
	kept[1] = p[500];
	p[10] = p[500] = NULL;		/* NULL entries are skipped */
	kmem_cache_free_bulk(s, NR, p);
	for (i = 0; i < NR; i++)
		ck_assert_ptr_null(p[i]);	/* every entry processed */
	/* after a full flush the two left out are the only objects in use */
	ck_assert_int_eq(kmem_cache_shrink(s), 1);
	ck_assert_uint_eq(active_objs(s), 2);
	kmem_cache_free_bulk(s, 2, kept);
	ck_assert_int_eq(kmem_cache_shrink(s), 0);
	kmem_cache_destroy(s);
}
END_TEST

START_TEST(test_bulk_zero)
{
	struct kmem_cache *s = test_cache("bulk-zero", 64);
	void *p[300];
	size_t i, j;

	ck_assert_int_eq(kmem_cache_alloc_bulk(s, GFP_KERNEL, 300, p), 300);
	for (i = 0; i < 300; i++)
		memset(p[i], 0xee, 64);
	kmem_cache_free_bulk(s, 300, p);
	ck_assert_int_eq(kmem_cache_alloc_bulk(s, GFP_KERNEL | __GFP_ZERO, 300, p), 300);
	for (i = 0; i < 300; i++)
		for (j = 0; j < 64; j++)
			ck_assert_uint_eq(((unsigned char *)p[i])[j], 0);
	kmem_cache_free_bulk(s, 300, p);
	ck_assert_int_eq(kmem_cache_alloc_bulk(s, GFP_KERNEL, 0, p), 0);
	ck_assert_int_eq(kmem_cache_shrink(s), 0);
	kmem_cache_destroy(s);
}
END_TEST

START_TEST(test_kfree_bulk_mixed)
{
	static const size_t sizes[] = { 8, 24, 100, 192, 1000, 4096, 8192, 20000, 300000 };
	void *p[3 * ARRAY_SIZE(sizes)];
	size_t i, n = 0;

	for (i = 0; i < 3 * ARRAY_SIZE(sizes); i++) {
		p[n] = __kmalloc(sizes[i % ARRAY_SIZE(sizes)], GFP_KERNEL);
		ck_assert_ptr_nonnull(p[n]);
		memset(p[n], 0x11, sizes[i % ARRAY_SIZE(sizes)]);
		n++;
	}
	shuffle(p, n);
	kfree_bulk(n, p);
	for (i = 0; i < n; i++)
		ck_assert_ptr_null(p[i]);
}
END_TEST

static void bulk_double_free(void *arg)
{
	struct kmem_cache *s = kmem_cache_create("bulk-df", 64, 0, 0, NULL);
	void *p[3];

	(void)arg;
	p[0] = kmem_cache_alloc(s, GFP_KERNEL);
	p[1] = p[0];			/* adjacent: the naive check sees it */
	p[2] = kmem_cache_alloc(s, GFP_KERNEL);
	kmem_cache_free_bulk(s, 3, p);
}

START_TEST(test_bulk_double_free_reported)
{
	ck_assert_aborts_with(bulk_double_free, NULL, "double free");
}
END_TEST

/* Bulk allocation in a tiny arena fails whole: nothing stays allocated. */
START_TEST(test_bulk_all_or_nothing)
{
	struct kmem_cache *s;
	void **p = calloc(4000, sizeof(*p));
	unsigned long free_before;

	if (READ_ONCE(memmap.max_pfn)) {
		puts("SKIP: the memory map exists already (CK_FORK=no): arena_size cannot apply");
		return;
	}
	ck_assert_int_eq(parse_option_string("arena_size=8M"), 0);
	s = test_cache("bulk-oom", 4096);
	free_before = nr_free_pages();
	/* 4000 x 4 KiB is more than the 8 MiB arena holds */
	ck_assert_int_eq(kmem_cache_alloc_bulk(s, GFP_KERNEL | __GFP_NOWARN, 4000, p), 0);
	ck_assert_int_eq(kmem_cache_shrink(s), 0);	/* every slab could go back */
	ck_assert_uint_eq(active_objs(s), 0);
	ck_assert_uint_ge(nr_free_pages(), free_before);
	ck_assert_int_eq(kmem_cache_alloc_bulk(s, GFP_KERNEL, 1000, p), 1000);
	kmem_cache_free_bulk(s, 1000, p);
	free(p);
	kmem_cache_destroy(s);
}
END_TEST

/* Run fn with stderr captured into buf. */
static void capture_stderr(void (*fn)(void *), void *arg, char *buf, size_t len)
{
	int fds[2], saved;
	ssize_t n;

	ck_assert_int_eq(pipe(fds), 0);
	saved = dup(STDERR_FILENO);
	dup2(fds[1], STDERR_FILENO);
	close(fds[1]);
	fn(arg);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = read(fds[0], buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fds[0]);
}

static void destroy(void *arg)
{
	kmem_cache_destroy(arg);
}

START_TEST(test_destroy_with_live_objects)
{
	struct kmem_cache *s = test_cache("busy-cache", 128);
	unsigned int n = s->oo.x & 0xffff, i;
	void **p = calloc(2 * n, sizeof(*p));
	char err[16384];

	for (i = 0; i < 2 * n; i++)	/* one full slab, one cpu slab */
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
	for (i = n + 3; i < 2 * n; i++)
		kmem_cache_free(s, p[i]);
	capture_stderr(destroy, s, err, sizeof(err));
	ck_assert_msg(strstr(err, "Objects remaining in busy-cache on __kmem_cache_shutdown()"),
		      "stderr: %s", err);
	ck_assert_msg(strstr(err, "kmem_cache_destroy busy-cache: Slab cache still has objects"),
		      "stderr: %s", err);
	ck_assert_msg(strstr(err, "1 full slabs are not listed"), "stderr: %s", err);
	/* kept, and still usable */
	ck_assert_uint_eq(active_objs(s), n + 3);
	p[2 * n - 1] = kmem_cache_alloc(s, GFP_KERNEL);
	ck_assert_ptr_eq(virt_to_slab(p[2 * n - 1])->slab_cache, s);
	kmem_cache_free(s, p[2 * n - 1]);
	for (i = 0; i < n + 3; i++)
		kmem_cache_free(s, p[i]);
	capture_stderr(destroy, s, err, sizeof(err));
	ck_assert_msg(err[0] == '\0', "second destroy reported: %s", err);
	free(p);
}
END_TEST

static Suite *slub_bulk_suite(void)
{
	Suite *s = suite_create("slub_bulk");
	TCase *tc = tcase_create("bulk");

	tcase_add_test(tc, test_bulk_alloc_free);
	tcase_add_test(tc, test_bulk_zero);
	tcase_add_test(tc, test_kfree_bulk_mixed);
	tcase_add_test(tc, test_bulk_double_free_reported);
	tcase_add_test(tc, test_bulk_all_or_nothing);
	tcase_add_test(tc, test_destroy_with_live_objects);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(slub_bulk_suite)

#else

int main(void)
{
	uslab_test_skip("SLUB's bulk alloc/free and destroy reports");
}

#endif
