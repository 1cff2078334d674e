// SPDX-License-Identifier: MIT
/*
 * contract.c - the malloc contract of the drop-in, function by function:
 * POSIX and glibc semantics, errno rules, alignment, zeroing, usable sizes,
 * and the glibc alias names.  Run with LD_PRELOAD of libuslab-malloc-ALLOC.so.
 */
#include "malloc_test.h"
#include "common/test.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>

#define MiB (1UL << 20)

/* Sizes that cross every kind of block: classes, large folios, mappings. */
static const size_t sizes[] = {
	0, 1, 8, 15, 16, 17, 24, 31, 32, 33, 48, 63, 64, 65, 96, 100, 127, 128, 129,
	160, 192, 200, 255, 256, 257, 500, 512, 1000, 1024, 1025, 2000, 3000, 4095,
	4096, 4097, 5000, 7000, 8191, 8192, 8193, 10000, 12345, 16384, 65536, 100000,
	262144, 1000000, 2 * MiB, 4 * MiB - 1, 4 * MiB, 4 * MiB + 1, 5 * MiB, 9 * MiB + 3,
};

/* The call goes through a volatile pointer so the compiler cannot fold it. */
static void *(*volatile malloc_p)(size_t) = malloc;
static void *(*volatile calloc_p)(size_t, size_t) = calloc;
static void *(*volatile realloc_p)(void *, size_t) = realloc;
static void *(*volatile reallocarray_p)(void *, size_t, size_t) = reallocarray;
static void *(*volatile aligned_alloc_p)(size_t, size_t) = aligned_alloc;
static void *(*volatile memalign_p)(size_t, size_t) = memalign;
static void *(*volatile pvalloc_p)(size_t) = pvalloc;
static int (*volatile posix_memalign_p)(void **, size_t, size_t) = posix_memalign;

START_TEST(test_drop_in_in_force)
{
	ck_assert_msg(malloc_is_uslab(), "malloc comes from %s", malloc_provider());
}
END_TEST

START_TEST(test_malloc_sizes_aligned_usable)
{
	size_t i, n;
	void *p;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		n = sizes[i];
		p = malloc_p(n);
		ck_assert_msg(p != NULL, "malloc(%zu) failed", n);
		ck_assert_msg(((uintptr_t)p & 15) == 0, "malloc(%zu) = %p not 16-aligned", n, p);
		ck_assert_msg(malloc_usable_size(p) >= n, "usable %zu < %zu",
			      malloc_usable_size(p), n);
		pattern_fill(p, malloc_usable_size(p), i);
		ck_assert(pattern_ok(p, malloc_usable_size(p), i));
		free(p);
	}
}
END_TEST

START_TEST(test_malloc_zero_unique)
{
	void *a = malloc_p(0), *b = malloc_p(0);

	ck_assert(a && b && a != b);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_malloc_enomem)
{
	errno = 0;
	ck_assert(malloc_p(SIZE_MAX) == NULL);
	ck_assert_int_eq(errno, ENOMEM);
	errno = 0;
	ck_assert(malloc_p((size_t)PTRDIFF_MAX + 1) == NULL);
	ck_assert_int_eq(errno, ENOMEM);
	errno = 0;
	ck_assert(malloc_p(SIZE_MAX - 4096) == NULL);
	ck_assert_int_eq(errno, ENOMEM);
}
END_TEST

START_TEST(test_success_keeps_errno)
{
	void *p;
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		errno = 4321;
		p = malloc_p(sizes[i]);
		ck_assert(p != NULL);
		ck_assert_int_eq(errno, 4321);
		free(p);
		ck_assert_int_eq(errno, 4321);
	}
}
END_TEST

/* Many live blocks of mixed sizes never overlap. */
START_TEST(test_no_overlap)
{
	enum { N = 4000 };
	static void *blk[N];
	static size_t len[N];
	uint64_t seed = 88172645463325252ULL;
	int i;

	for (i = 0; i < N; i++) {
		uint64_t r = rng_next(&seed);

		len[i] = (r % 16 == 0) ? r % 300000 : r % 2000;
		blk[i] = malloc_p(len[i]);
		ck_assert(blk[i] != NULL);
		pattern_fill(blk[i], len[i], (uintptr_t)i);
	}
	for (i = 0; i < N; i += 2) {
		ck_assert_msg(pattern_ok(blk[i], len[i], (uintptr_t)i), "block %d overwritten", i);
		free(blk[i]);
	}
	for (i = 1; i < N; i += 2) {
		ck_assert_msg(pattern_ok(blk[i], len[i], (uintptr_t)i), "block %d overwritten", i);
		free(blk[i]);
	}
}
END_TEST

START_TEST(test_free_null_and_keeps_errno)
{
	size_t i;
	void *p;

	errno = 77;
	free(NULL);
	ck_assert_int_eq(errno, 77);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		p = malloc_p(sizes[i]);
		errno = 1234;
		free(p);
		ck_assert_msg(errno == 1234, "free of a %zu-byte block changed errno", sizes[i]);
	}
}
END_TEST

START_TEST(test_calloc_zeroes)
{
	size_t i, n, k;
	unsigned char *p;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		n = sizes[i];
		/* dirty a block of this size first, so reuse would show */
		p = malloc_p(n);
		memset(p, 0xa5, malloc_usable_size(p));
		free(p);
		p = calloc(1, n);
		ck_assert_msg(p != NULL, "calloc(1, %zu)", n);
		k = first_nonzero(p, n);
		ck_assert_msg(k == n, "calloc(1, %zu): byte %zu is %#x", n, k, p[k]);
		free(p);
	}
	p = calloc(1000, 1000);
	ck_assert(first_nonzero(p, 1000000) == 1000000);
	free(p);
}
END_TEST

START_TEST(test_calloc_overflow)
{
	errno = 0;
	ck_assert(calloc_p(SIZE_MAX / 2, 3) == NULL);
	ck_assert_int_eq(errno, ENOMEM);
	errno = 0;
	ck_assert(calloc_p((size_t)1 << 33, (size_t)1 << 33) == NULL);
	ck_assert_int_eq(errno, ENOMEM);
	ck_assert(calloc(0, 5) != NULL);	/* zero elements is a valid request */
}
END_TEST

START_TEST(test_realloc_null_is_malloc)
{
	void *p = realloc(NULL, 100);

	ck_assert(p != NULL && malloc_usable_size(p) >= 100);
	free(p);
	p = realloc(NULL, 0);
	ck_assert(p != NULL);
	free(p);
}
END_TEST

START_TEST(test_realloc_zero_frees)
{
	void *p = malloc_p(100);

	errno = 55;
	ck_assert(realloc(p, 0) == NULL);
	ck_assert_int_eq(errno, 55);
	/* tests/malloc/misuse.c shows a later free(p) is then a double free */
}
END_TEST

/* Grow and shrink through every kind of block; contents survive. */
START_TEST(test_realloc_keeps_contents)
{
	size_t i, keep, prev = 0;
	unsigned char *p = NULL;

	for (i = 1; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		p = realloc(p, sizes[i]);
		ck_assert_msg(p != NULL, "realloc to %zu", sizes[i]);
		ck_assert(((uintptr_t)p & 15) == 0);
		keep = prev < sizes[i] ? prev : sizes[i];
		ck_assert_msg(pattern_ok(p, keep, 9), "realloc to %zu lost data", sizes[i]);
		pattern_fill(p, sizes[i], 9);
		prev = sizes[i];
	}
	for (i = sizeof(sizes) / sizeof(sizes[0]); i-- > 1;) {
		p = realloc(p, sizes[i]);
		ck_assert(p != NULL);
		ck_assert_msg(pattern_ok(p, sizes[i], 9), "shrink to %zu lost data", sizes[i]);
	}
	free(p);
}
END_TEST

/* A block keeps its place while the new size fits its usable bytes and
 * wastes at most half of them; below half it moves to a smaller block.  The
 * same from small classes to large blocks. */
START_TEST(test_realloc_in_place_within_block)
{
	static const size_t asks[] = { 100, 700, 3000, 5000, 8000, 20000, 100000 };
	unsigned char *p, *q;
	size_t i, u;

	for (i = 0; i < sizeof(asks) / sizeof(asks[0]); i++) {
		p = malloc_p(asks[i]);
		ck_assert(p != NULL);
		u = malloc_usable_size(p);
		ck_assert_uint_ge(u, asks[i]);
		pattern_fill(p, u, 6);
		ck_assert_msg(realloc_p(p, u) == p, "%zu: grown to its usable %zu, moved", asks[i], u);
		ck_assert_msg(realloc_p(p, u / 2 + 1) == p, "%zu: shrunk to %zu, moved", asks[i],
			      u / 2 + 1);
		ck_assert_uint_ge(malloc_usable_size(p), u / 2 + 1);
		ck_assert(pattern_ok(p, u / 2 + 1, 6));
		q = realloc_p(p, u / 4);
		ck_assert(q != NULL && q != p);
		ck_assert_msg(pattern_ok(q, u / 4, 6), "%zu: shrink to %zu lost data", asks[i], u / 4);
		ck_assert_uint_lt(malloc_usable_size(q), u);
		free(q);
	}
}
END_TEST

START_TEST(test_realloc_failure_keeps_block)
{
	unsigned char *p = malloc_p(1000);

	pattern_fill(p, 1000, 3);
	errno = 0;
	ck_assert(realloc_p(p, SIZE_MAX - 100) == NULL);
	ck_assert_int_eq(errno, ENOMEM);
	ck_assert(pattern_ok(p, 1000, 3));
	free(p);
}
END_TEST

START_TEST(test_reallocarray)
{
	unsigned char *p = reallocarray(NULL, 10, 10), *q;

	ck_assert(p != NULL && malloc_usable_size(p) >= 100);
	pattern_fill(p, 100, 4);
	errno = 0;
	ck_assert(reallocarray_p(p, SIZE_MAX / 2, 3) == NULL);
	ck_assert_int_eq(errno, ENOMEM);
	ck_assert(pattern_ok(p, 100, 4));
	q = reallocarray(p, 1000, 10);
	ck_assert(q != NULL && pattern_ok(q, 100, 4));
	free(q);
}
END_TEST

START_TEST(test_posix_memalign_einval)
{
	static const size_t bad[] = { 0, 1, 2, 3, 4, 6, 12, 24, 48, 100, 4097, SIZE_MAX };
	void *p = (void *)0x1234;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 99;
		ck_assert_msg(posix_memalign_p(&p, bad[i], 16) == EINVAL,
			      "alignment %zu accepted", bad[i]);
		ck_assert(p == (void *)0x1234);		/* untouched on failure */
		ck_assert_int_eq(errno, 99);
	}
	ck_assert_int_eq(posix_memalign_p(&p, 64, SIZE_MAX - 64), ENOMEM);
	ck_assert(p == (void *)0x1234);
}
END_TEST

START_TEST(test_posix_memalign_all_alignments)
{
	size_t align, n;
	void *p;

	for (align = sizeof(void *); align <= 16 * MiB; align *= 2) {
		for (n = 1; n <= 3 * align && n <= 20 * MiB; n = n * 3 + 5) {
			errno = 7;
			ck_assert_int_eq(posix_memalign_p(&p, align, n), 0);
			ck_assert_int_eq(errno, 7);
			ck_assert_msg(((uintptr_t)p & (align - 1)) == 0,
				      "posix_memalign_p(%zu, %zu) = %p", align, n, p);
			ck_assert(malloc_usable_size(p) >= n);
			memset(p, 0x5a, n);
			free(p);
		}
	}
}
END_TEST

START_TEST(test_aligned_alloc)
{
	size_t align;
	void *p;

	errno = 0;
	ck_assert(aligned_alloc_p(0, 16) == NULL);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert(aligned_alloc_p(24, 48) == NULL);
	ck_assert_int_eq(errno, EINVAL);
	for (align = 1; align <= 2 * MiB; align *= 2) {
		p = aligned_alloc_p(align, 3 * align);
		ck_assert(p != NULL && ((uintptr_t)p & (align - 1)) == 0);
		memset(p, 1, 3 * align);
		free(p);
	}
}
END_TEST

START_TEST(test_memalign_up_to_1mib_and_beyond)
{
	size_t align, n;
	void *p;

	for (align = 1; align <= 8 * MiB; align *= 2)
		for (n = 0; n < 2 * align + 100; n += align / 2 + 1) {
			p = memalign_p(align, n);
			ck_assert_msg(p && ((uintptr_t)p & (align - 1)) == 0,
				      "memalign_p(%zu, %zu) = %p", align, n, p);
			ck_assert(malloc_usable_size(p) >= n);
			memset(p, 0x33, n);
			free(p);
		}
	/* glibc rounds an alignment that is not a power of two up to one */
	p = memalign_p(48, 100);
	ck_assert(p && ((uintptr_t)p & 63) == 0);
	free(p);
	errno = 0;
	ck_assert(memalign_p(SIZE_MAX / 2 + 2, 1) == NULL);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(test_valloc_pvalloc)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t n;
	void *p;

	for (n = 0; n < 5 * (size_t)page; n += 1000) {
		p = valloc(n);
		ck_assert(p && ((uintptr_t)p % page) == 0 && malloc_usable_size(p) >= n);
		free(p);
		p = pvalloc_p(n);
		ck_assert(p && ((uintptr_t)p % page) == 0);
		/* pvalloc rounds the size up to whole pages */
		ck_assert(malloc_usable_size(p) >= (n + page - 1) / page * page);
		memset(p, 0x77, (n + page - 1) / page * page);
		free(p);
	}
	errno = 0;
	ck_assert(pvalloc_p(SIZE_MAX - 10) == NULL);
	ck_assert_int_eq(errno, ENOMEM);
}
END_TEST

START_TEST(test_usable_size_null)
{
	ck_assert_uint_eq(malloc_usable_size(NULL), 0);
}
END_TEST

/* The extra names resolve to the drop-in and behave as their targets. */
START_TEST(test_glibc_aliases)
{
	static const char *const names[] = {
		"__libc_malloc", "__libc_free", "__libc_calloc", "__libc_realloc",
		"__libc_memalign", "__libc_valloc", "__libc_pvalloc", "cfree",
		"__posix_memalign", "reallocarray", "aligned_alloc",
	};
	void *(*lmalloc)(size_t), *(*lcalloc)(size_t, size_t), *(*lrealloc)(void *, size_t);
	void *(*lmemalign)(size_t, size_t), *(*lvalloc)(size_t), *(*lpvalloc)(size_t);
	int (*lposix)(void **, size_t, size_t);
	void (*lfree)(void *), (*lcfree)(void *);
	unsigned char *p;
	Dl_info info;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		void *sym = dlsym(RTLD_DEFAULT, names[i]);

		ck_assert_msg(sym != NULL, "%s not found", names[i]);
		ck_assert_msg(dladdr(sym, &info) && strstr(info.dli_fname, "libuslab-malloc-"),
			      "%s comes from %s", names[i], info.dli_fname);
	}
	*(void **)&lmalloc = dlsym(RTLD_DEFAULT, "__libc_malloc");
	*(void **)&lfree = dlsym(RTLD_DEFAULT, "__libc_free");
	*(void **)&lcalloc = dlsym(RTLD_DEFAULT, "__libc_calloc");
	*(void **)&lrealloc = dlsym(RTLD_DEFAULT, "__libc_realloc");
	*(void **)&lmemalign = dlsym(RTLD_DEFAULT, "__libc_memalign");
	*(void **)&lvalloc = dlsym(RTLD_DEFAULT, "__libc_valloc");
	*(void **)&lpvalloc = dlsym(RTLD_DEFAULT, "__libc_pvalloc");
	*(void **)&lposix = dlsym(RTLD_DEFAULT, "__posix_memalign");
	*(void **)&lcfree = dlsym(RTLD_DEFAULT, "cfree");

	p = lmalloc(50);
	pattern_fill(p, 50, 1);
	p = lrealloc(p, 5000);
	ck_assert(pattern_ok(p, 50, 1));
	lfree(p);
	p = lcalloc(10, 10);
	ck_assert(p[0] == 0 && p[99] == 0);
	lcfree(p);
	p = lmemalign(4096, 10);
	ck_assert(((uintptr_t)p & 4095) == 0);
	free(p);
	p = lvalloc(10);
	ck_assert(((uintptr_t)p & 4095) == 0);
	free(p);
	p = lpvalloc(10);
	ck_assert(((uintptr_t)p & 4095) == 0 && malloc_usable_size(p) >= 4096);
	free(p);
	ck_assert_int_eq(lposix((void **)&p, 256, 10), 0);
	ck_assert(((uintptr_t)p & 255) == 0);
	free(p);
	ck_assert_int_eq(lposix((void **)&p, 3, 10), EINVAL);
}
END_TEST

/* Blocks allocated by one thread can be freed and reallocated by another. */
static void *thread_free(void *arg)
{
	void **blocks = arg;
	int i;

	for (i = 0; i < 256; i++) {
		if (!pattern_ok(blocks[i], (size_t)i * 37, (uintptr_t)i))
			return (void *)1;
		blocks[i] = realloc(blocks[i], (size_t)i * 37 + 100);
		free(blocks[i]);
	}
	return NULL;
}

START_TEST(test_cross_thread_free)
{
	void *blocks[256], *ret;
	pthread_t t;
	int i;

	for (i = 0; i < 256; i++) {
		blocks[i] = malloc_p((size_t)i * 37);
		pattern_fill(blocks[i], (size_t)i * 37, (uintptr_t)i);
	}
	ck_assert_int_eq(pthread_create(&t, NULL, thread_free, blocks), 0);
	ck_assert_int_eq(pthread_join(t, &ret), 0);
	ck_assert(ret == NULL);
}
END_TEST

static Suite *contract_suite(void)
{
	Suite *s = suite_create("malloc-contract");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_drop_in_in_force);
	tcase_add_test(tc, test_malloc_sizes_aligned_usable);
	tcase_add_test(tc, test_malloc_zero_unique);
	tcase_add_test(tc, test_malloc_enomem);
	tcase_add_test(tc, test_success_keeps_errno);
	tcase_add_test(tc, test_no_overlap);
	tcase_add_test(tc, test_free_null_and_keeps_errno);
	tcase_add_test(tc, test_calloc_zeroes);
	tcase_add_test(tc, test_calloc_overflow);
	tcase_add_test(tc, test_realloc_null_is_malloc);
	tcase_add_test(tc, test_realloc_zero_frees);
	tcase_add_test(tc, test_realloc_keeps_contents);
	tcase_add_test(tc, test_realloc_in_place_within_block);
	tcase_add_test(tc, test_realloc_failure_keeps_block);
	tcase_add_test(tc, test_reallocarray);
	tcase_add_test(tc, test_posix_memalign_einval);
	tcase_add_test(tc, test_posix_memalign_all_alignments);
	tcase_add_test(tc, test_aligned_alloc);
	tcase_add_test(tc, test_memalign_up_to_1mib_and_beyond);
	tcase_add_test(tc, test_valloc_pvalloc);
	tcase_add_test(tc, test_usable_size_null);
	tcase_add_test(tc, test_glibc_aliases);
	tcase_add_test(tc, test_cross_thread_free);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(contract_suite)
