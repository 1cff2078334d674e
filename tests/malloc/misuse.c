// SPDX-License-Identifier: MIT
/*
 * misuse.c - every bad pointer the drop-in must catch before it reads what
 * the pointer points to: each case runs in a child process, which must die
 * of SIGABRT after printing a report that names the pointer and the kind
 * of mistake.  Run with LD_PRELOAD of libuslab-malloc-ALLOC.so.
 */
#include "malloc_test.h"
#include "common/test.h"

#include <malloc.h>
#include <pthread.h>
#include <sys/mman.h>

/* Calls through volatile pointers: the compiler must not see, warn about
 * or fold the misuse. */
static void (*volatile free_p)(void *) = free;
static void *(*volatile realloc_p)(void *, size_t) = realloc;
static void *(*volatile malloc_p)(size_t) = malloc;
static size_t (*volatile usable_p)(void *) = malloc_usable_size;

static long a_global[64];

/* "0x%016lx" of p: the spelling the report uses for a pointer. */
static const char *ptr_text(const void *p)
{
	static char buf[32];

	snprintf(buf, sizeof(buf), "0x%016lx", (unsigned long)p);
	return buf;
}

/* The child frees or reallocs arg in the way each function says. */
static void do_free(void *arg) { free_p(arg); }
static void do_realloc(void *arg) { realloc_p(arg, 100); }
static void do_usable(void *arg) { usable_p(arg); }
static void do_double_free(void *arg) { free_p(arg); free_p(arg); }
static void do_realloc_after_free(void *arg) { free_p(arg); realloc_p(arg, 10); }
static void do_realloc0_then_free(void *arg) { realloc_p(arg, 0); free_p(arg); }

static void *thread_free(void *arg)
{
	free_p(arg);
	return NULL;
}

/*
 * Free arg, then a block of the same size allocated after it (which goes
 * onto the free list in front of arg), then arg again: a double free that
 * the slab allocator's own check of the free list head does not see.
 */
static void do_double_free_buried(void *arg)
{
	void *q = malloc_p(malloc_usable_size(arg));

	free_p(arg);
	free_p(q);
	free_p(arg);
}

/* Free in one thread, then again in another. */
static void do_double_free_other_thread(void *arg)
{
	pthread_t t;

	free_p(arg);
	pthread_create(&t, NULL, thread_free, arg);
	pthread_join(t, NULL);
}

/* Expect abort with both needles in the report. */
#define EXPECT(fn, arg, what)							\
	do {									\
		void *_a = (arg);						\
		ck_assert_aborts_with(fn, _a, what);				\
		ck_assert_aborts_with(fn, _a, ptr_text(_a));			\
	} while (0)

/*
 * fn(arg) must abort with a report whose "called from" address lies in
 * this program (the call in fn), not in the drop-in: its fast paths leave
 * for the reports by tail calls that keep the caller's return address.
 */
static void expect_caller_in_program(void (*fn)(void *), void *arg)
{
	char out[16384], how[32];
	Dl_info caller, self;
	const char *at;
	void *addr;
	int end = run_expect_abort(fn, arg, out, sizeof(out));

	ck_assert_msg(end == SIGABRT, "expected SIGABRT, got %s; stderr:\n%s",
		      uslab_test_describe_end(end, how, sizeof(how)), out);
	at = strstr(out, "called from 0x");
	ck_assert_msg(at != NULL, "report names no caller:\n%s", out);
	addr = (void *)strtoul(at + strlen("called from "), NULL, 16);
	ck_assert(dladdr((void *)expect_caller_in_program, &self));
	ck_assert_msg(dladdr(addr, &caller) && caller.dli_fbase == self.dli_fbase,
		      "report names %p (in %s), not a place in this program:\n%s", addr,
		      caller.dli_fname ? caller.dli_fname : "nothing mapped", out);
}

START_TEST(test_in_force)
{
	ck_assert_msg(malloc_is_uslab(), "malloc comes from %s", malloc_provider());
}
END_TEST

START_TEST(test_free_stack)
{
	long local[8] __attribute__((aligned(16)));

	EXPECT(do_free, local, "free(): invalid pointer");
	EXPECT(do_free, local, "not in the heap");
}
END_TEST

START_TEST(test_free_global)
{
	EXPECT(do_free, (void *)((uintptr_t)(a_global + 4) & ~15UL), "free(): invalid pointer");
}
END_TEST

START_TEST(test_free_other_mapping)
{
	void *m = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert(m != MAP_FAILED);
	EXPECT(do_free, m, "not in the heap");
	/* the foreign mapping was not touched: still mapped and zero */
	ck_assert(((char *)m)[0] == 0);
	munmap(m, 1 << 16);
}
END_TEST

START_TEST(test_free_wild)
{
	EXPECT(do_free, (void *)0x1000, "invalid pointer");
	EXPECT(do_free, (void *)0x7fffdead0000UL, "invalid pointer");
}
END_TEST

START_TEST(test_free_misaligned)
{
	char *p = malloc_p(64);

	EXPECT(do_free, p + 8, "misaligned");
	EXPECT(do_free, p + 1, "misaligned");
	free_p(p);
}
END_TEST

START_TEST(test_free_interior_small)
{
	char *p = malloc_p(200);

	EXPECT(do_free, p + 16, "free(): double free or invalid pointer");
	EXPECT(do_free, p + 16, "middle of an object");
	free_p(p);
}
END_TEST

START_TEST(test_free_interior_large)
{
	char *p = malloc_p(100000);

	EXPECT(do_free, p + 4096, "free(): invalid pointer");
	EXPECT(do_free, p + 4096, "4096 bytes past the start");
	EXPECT(do_free, p + 64, "middle of a block");
	free_p(p);
}
END_TEST

START_TEST(test_free_interior_huge)
{
	char *p = malloc_p(20 << 20);

	EXPECT(do_free, p + 4096, "free(): invalid pointer");
	free_p(p);
}
END_TEST

START_TEST(test_double_free_every_size)
{
	static const size_t sizes[] = { 1, 16, 100, 1000, 8192, 8193, 70000, 4 << 20, 30 << 20 };
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		void *p = malloc_p(sizes[i]);

		EXPECT(do_double_free, p, "free(): double free");
		free_p(p);
	}
}
END_TEST

START_TEST(test_double_free_other_thread)
{
	static const size_t sizes[] = { 24, 3000, 200000, 10 << 20 };
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		void *p = malloc_p(sizes[i]);

		EXPECT(do_double_free_other_thread, p, "double free");
		free_p(p);
	}
}
END_TEST

/*
 * A block of an older slab than the thread's current one, freed twice: the
 * first free keeps it in the thread's cache of freed blocks (SLUB's sheaf)
 * without touching its slab, and the second must still be caught, with or
 * without other frees in between.
 */
START_TEST(test_double_free_of_cached_block)
{
	enum { N = 2000 };
	static void *p[N];
	size_t size;
	int i;

	for (size = 16; size <= 4096; size *= 4) {
		for (i = 0; i < N; i++)
			p[i] = malloc_p(size);
		EXPECT(do_double_free, p[0], "free(): double free");
		EXPECT(do_double_free_buried, p[1], "free(): double free");
		for (i = 0; i < N; i++)
			free_p(p[i]);
	}
}
END_TEST

static void do_usable_after_free(void *arg) { free_p(arg); usable_p(arg); }

/*
 * Large blocks of the orders a CPU keeps after free (16..64 KiB, the
 * drop-in's large-block cache): freed twice in a row, twice with another
 * block of the order freed in between (which the cache then holds on top),
 * or used by realloc and malloc_usable_size once freed: each is caught
 * while the block sits in the cache.
 */
START_TEST(test_double_free_of_cached_large_block)
{
	static const size_t sizes[] = { 8193, 30000, 65536 };
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		void *p = malloc_p(sizes[i]);

		EXPECT(do_double_free, p, "free(): double free");
		EXPECT(do_double_free_buried, p, "free(): double free");
		EXPECT(do_realloc_after_free, p, "realloc(): double free");
		EXPECT(do_usable_after_free, p, "malloc_usable_size");
		free_p(p);
	}
}
END_TEST

/* Every class (1 .. 8 KiB by 16-byte steps up to 128, then by a quarter of
 * a doubling), freed twice with another free in between. */
START_TEST(test_double_free_buried_every_class)
{
	size_t size;

	for (size = 1; size <= 8192; size += size < 128 ? 16 : size / 4) {
		void *p = malloc_p(size);

		EXPECT(do_double_free_buried, p, "free(): double free");
		free_p(p);
	}
}
END_TEST

START_TEST(test_double_free_aligned)
{
	void *p = memalign(256, 100), *q = memalign(1 << 20, 10);

	EXPECT(do_double_free, p, "double free");
	EXPECT(do_double_free, q, "double free");
	free_p(p);
	free_p(q);
}
END_TEST

START_TEST(test_report_names_caller)
{
	long local[4] __attribute__((aligned(16)));
	char *p = malloc_p(64), *q = malloc_p(100000);

	expect_caller_in_program(do_double_free, p);
	expect_caller_in_program(do_double_free, q);
	expect_caller_in_program(do_free, local);
	expect_caller_in_program(do_free, p + 16);
	expect_caller_in_program(do_realloc_after_free, p);
	expect_caller_in_program(do_usable, local);
	free_p(p);
	free_p(q);
}
END_TEST

START_TEST(test_realloc_bad)
{
	long local[4] __attribute__((aligned(16)));
	char *p = malloc_p(500);

	EXPECT(do_realloc, local, "realloc(): invalid pointer");
	EXPECT(do_realloc, p + 32, "realloc(): double free or invalid pointer");
	EXPECT(do_realloc_after_free, p, "realloc(): double free");
	EXPECT(do_realloc0_then_free, p, "free(): double free");
	free_p(p);
}
END_TEST

START_TEST(test_usable_size_bad)
{
	long local[4] __attribute__((aligned(16)));

	EXPECT(do_usable, local, "malloc_usable_size(): invalid pointer");
}
END_TEST

START_TEST(test_cfree_bad)
{
	void (*cfree_p)(void *) = (void (*)(void *))dlsym(RTLD_DEFAULT, "cfree");
	long local[4] __attribute__((aligned(16)));

	ck_assert(cfree_p != NULL);
	free_p = cfree_p;
	EXPECT(do_free, local, "cfree(): invalid pointer");
}
END_TEST

static Suite *misuse_suite(void)
{
	Suite *s = suite_create("malloc-misuse");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_in_force);
	tcase_add_test(tc, test_free_stack);
	tcase_add_test(tc, test_free_global);
	tcase_add_test(tc, test_free_other_mapping);
	tcase_add_test(tc, test_free_wild);
	tcase_add_test(tc, test_free_misaligned);
	tcase_add_test(tc, test_free_interior_small);
	tcase_add_test(tc, test_free_interior_large);
	tcase_add_test(tc, test_double_free_of_cached_large_block);
	tcase_add_test(tc, test_free_interior_huge);
	tcase_add_test(tc, test_double_free_every_size);
	tcase_add_test(tc, test_double_free_other_thread);
	tcase_add_test(tc, test_double_free_buried_every_class);
	tcase_add_test(tc, test_double_free_of_cached_block);
	tcase_add_test(tc, test_double_free_aligned);
	tcase_add_test(tc, test_report_names_caller);
	tcase_add_test(tc, test_realloc_bad);
	tcase_add_test(tc, test_usable_size_bad);
	tcase_add_test(tc, test_cfree_bad);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(misuse_suite)
