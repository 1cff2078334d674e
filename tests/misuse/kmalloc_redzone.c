/* SPDX-License-Identifier: MIT */
/*
 * kmalloc_redzone.c - the kmalloc red zone (Linux 6.2's, docs/debugging.md):
 * with red zones on the kmalloc caches, kmalloc(13) served from a 16-byte
 * (SLAB: 32-byte) slot has its red zone start at byte 13, so a write to
 * byte 13 is reported when the object is freed, in the allocator's words:
 *   SLUB  "BUG kmalloc-16 (Not tainted): kmalloc Redzone overwritten",
 *         "First byte 0x55 instead of 0xcc" (slub_debug=FZ)
 *   SLAB  "slab error in verify_redzone_free(): cache `kmalloc-32': memory
 *         outside object was overwritten", "kmalloc Redzone: 13 of 32 bytes
 *         asked for" (slab_debug=Z)
 * and by default the report ends in abort before any other object is
 * touched.  Also: writes up to the size asked for are never reported;
 * kzalloc zeroes them and keeps the red zone; ksize() hands out the whole
 * slot and all of it may then be written; krealloc() within the slot moves
 * the red zone with the size, shrinking or growing; a SLAB_KMALLOC cache
 * (the malloc drop-in's size classes) gets the same through
 * kmem_cache_alloc_orig().  SLOB has no red zones: the binary skips itself.
 *
 * Each case runs in a child (run_expect_abort), because the options must
 * come before the kmalloc caches exist.  The child's SIGABRT handler checks
 * the neighbours (other objects of the same cache, each filled with its own
 * pattern) before the abort goes on, and exits 3 if one was harmed.
 */
#include "common/test.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "mm/slab.h"

#if CONFIG_SLUB || CONFIG_SLAB

#define ASKED		13	/* kmalloc(13) */
#define NEIGHBOURS	8	/* objects of the same cache around the victim */
#define REPORT_MAX	65536	/* stderr kept from a child */
#define CLASS_NAME	"sizeclass-48"	/* a malloc drop-in style size class */
#define CLASS_SIZE	48
#define CLASS_ASKED	40

/* The child's neighbours, for its SIGABRT handler. */
static struct {
	unsigned char *obj[NEIGHBOURS];	/* live objects of the victim's cache */
	size_t bytes;			/* bytes of each filled with its pattern */
} around;

static unsigned char pattern_of(unsigned int i)
{
	return (unsigned char)(0x21 + i);
}

static bool neighbours_intact(void)
{
	unsigned int i;
	size_t b;

	for (i = 0; i < NEIGHBOURS; i++)
		for (b = 0; b < around.bytes; b++)
			if (around.obj[i][b] != pattern_of(i))
				return false;
	return true;
}

static void child_fail(int status, const char *why)
{
	fprintf(stderr, "kmalloc_redzone child: %s\n", why);
	fflush(stderr);
	_exit(status);
}

static void on_abort(int sig)
{
	static const char msg[] = "kmalloc_redzone child: a neighbour was harmed\n";

	(void)sig;
	if (!neighbours_intact()) {
		if (write(2, msg, sizeof(msg) - 1) < 0)
			_exit(3);
		_exit(3);
	}
	signal(SIGABRT, SIG_DFL);	/* abort() raises again: the expected end */
}

/* The kmalloc cache of size bytes, and its object size. */
static const char *kmalloc_name(size_t size)
{
	return kmalloc_info[kmalloc_index(size)].name[KMALLOC_NORMAL];
}

static unsigned int kmalloc_slot(size_t size)
{
	return kmalloc_info[kmalloc_index(size)].size;
}

/* Red zones on the kmalloc cache of ASKED bytes (and on the size class);
 * all: poison and owner tracks too, so the requested size shares the slot
 * with them. */
static void child_options_debug(bool all, const char *extra)
{
	char opts[256];

	if (slab_is_available())
		exit(USLAB_TEST_SKIPPED);	/* the kmalloc caches exist already */
	snprintf(opts, sizeof(opts), "%s=%s,%s,%s %s", CONFIG_SLUB ? "slub_debug" : "slab_debug",
		 all ? "FZPU" : CONFIG_SLUB ? "FZ" : "Z", kmalloc_name(ASKED), CLASS_NAME, extra);
	if (parse_option_string(opts) != 0)
		child_fail(2, "options rejected");
}

static void child_options(const char *extra)
{
	child_options_debug(false, extra);
}

/* kmalloc(size) the way the public header does it for a constant size. */
static unsigned char *kmalloc_const(size_t size, gfp_t flags)
{
	return kmalloc_index_alloc((unsigned int)kmalloc_index(size), size, flags, NUMA_NO_NODE);
}

/* Neighbours of ASKED bytes each, then the object to misuse, then more. */
static void add_neighbours(unsigned int from, unsigned int to)
{
	unsigned int i;

	for (i = from; i < to; i++) {
		around.obj[i] = kmalloc_const(ASKED, GFP_KERNEL);
		if (!around.obj[i])
			child_fail(2, "allocation failed");
		memset(around.obj[i], pattern_of(i), ASKED);
	}
}

static unsigned char *victim_among_neighbours(unsigned char *(*alloc)(void))
{
	unsigned char *p;

	around.bytes = ASKED;
	add_neighbours(0, NEIGHBOURS / 2);
	p = alloc();
	if (!p)
		child_fail(2, "allocation failed");
	add_neighbours(NEIGHBOURS / 2, NEIGHBOURS);
	signal(SIGABRT, on_abort);
	return p;
}

static void free_neighbours(void)
{
	unsigned int i;

	for (i = 0; i < NEIGHBOURS; i++)
		kfree(around.obj[i]);
}

/* No report so far: nothing counted, and (SLUB) validate finds nothing. */
static void expect_clean(struct kmem_cache *s, int status)
{
	if (uslab_slab_errors() != 0)
		child_fail(status, "an error was counted");
	if (CONFIG_SLUB && kmem_cache_validate(s) != 0)
		child_fail(status + 1, "validate reports damage");
}

/* ---- the children ---- */

static unsigned char *alloc_const(void)
{
	return kmalloc_const(ASKED, GFP_KERNEL);
}

static unsigned char *alloc_runtime(void)
{
	volatile size_t n = ASKED;	/* why: the run-time size path */

	return __kmalloc(n, GFP_KERNEL);
}

static void overflow(unsigned char *(*alloc)(void))
{
	unsigned char *p;

	child_options("");
	p = victim_among_neighbours(alloc);
	memset(p, 0x11, ASKED);
	p[ASKED] = 0x55;	/* the bug: one byte past the size asked for */
	kfree(p);
	child_fail(10, "the overflow was not reported");
}

static void overflow_const(void *arg)
{
	(void)arg;
	overflow(alloc_const);
}

static void overflow_runtime(void *arg)
{
	(void)arg;
	overflow(alloc_runtime);
}

/* slab_error=repair: reported, not freed, counted once, all else intact. */
static void overflow_repaired(void *arg)
{
	unsigned char *p;

	(void)arg;
	child_options_debug(true, "slab_error=repair");
	p = victim_among_neighbours(alloc_const);
	p[ASKED] = 0x55;
	kfree(p);
	if (uslab_slab_errors() != 1)
		child_fail(4, "not counted once");
	if (!neighbours_intact())
		child_fail(5, "a neighbour was harmed");
	free_neighbours();
	if (uslab_slab_errors() != 1)
		child_fail(6, "new errors after the repair");
	exit(0);
}

/* Writes up to the size asked for, kzalloc, a full slot: no report. */
static void in_bounds(void *arg)
{
	unsigned int slot = kmalloc_slot(ASKED);
	unsigned char *p, *z, *full;
	unsigned int i;

	(void)arg;
	child_options_debug(true, "");
	p = kmalloc_const(ASKED, GFP_KERNEL);
	z = __kmalloc(ASKED, GFP_KERNEL | __GFP_ZERO);
	full = __kmalloc(slot, GFP_KERNEL);
	if (!p || !z || !full)
		child_fail(2, "allocation failed");
	for (i = 0; i < ASKED; i++)
		if (z[i] != 0)
			child_fail(3, "kzalloc did not zero the bytes asked for");
	memset(p, 0x55, ASKED);
	memset(z, 0x55, ASKED);
	memset(full, 0x55, slot);
	expect_clean(kmalloc_slab(ASKED, GFP_KERNEL), 4);
	kfree(p);
	kfree(z);
	kfree(full);
	expect_clean(kmalloc_slab(ASKED, GFP_KERNEL), 6);
	exit(0);
}

/* All of ksize() may be written, even past the size asked for. */
static void ksize_whole_slot(void *arg)
{
	unsigned char *p;
	size_t n;

	(void)arg;
	child_options_debug(true, "");
	p = kmalloc_const(ASKED, GFP_KERNEL);
	if (!p)
		child_fail(2, "allocation failed");
	n = ksize(p);
	if (n != kmalloc_slot(ASKED))
		child_fail(3, "ksize is not the slot");
	memset(p, 0x55, n);
	kfree(p);
	expect_clean(kmalloc_slab(ASKED, GFP_KERNEL), 4);
	exit(0);
}

/* krealloc shrinking in place: the red zone starts at the new size. */
static void krealloc_shrink(void *arg)
{
	unsigned int slot = kmalloc_slot(ASKED);
	unsigned char *p, *q;

	(void)arg;
	child_options("");
	p = __kmalloc(slot, GFP_KERNEL);
	if (!p)
		child_fail(2, "allocation failed");
	memset(p, 0x11, slot);
	q = krealloc(p, slot - 6, GFP_KERNEL);
	if (q != p)
		child_fail(3, "krealloc within the slot moved the object");
	memset(q, 0x22, slot - 6);
	expect_clean(kmalloc_slab(ASKED, GFP_KERNEL), 4);
	q[slot - 6] = 0x55;	/* the bug: past the new size, inside the slot */
	kfree(q);
	child_fail(10, "the overflow was not reported");
}

/* krealloc growing in place: the new bytes are the caller's, the next not. */
static void krealloc_grow(void *arg)
{
	unsigned char *p, *q;

	(void)arg;
	child_options("");
	p = kmalloc_const(ASKED - 4, GFP_KERNEL);
	if (!p)
		child_fail(2, "allocation failed");
	q = krealloc(p, ASKED, GFP_KERNEL);
	if (q != p)
		child_fail(3, "krealloc within the slot moved the object");
	memset(q, 0x22, ASKED);
	expect_clean(kmalloc_slab(ASKED, GFP_KERNEL), 4);
	q[ASKED] = 0x55;
	kfree(q);
	child_fail(10, "the overflow was not reported");
}

/* The malloc drop-in's way: a SLAB_KMALLOC size class, kmem_cache_alloc_orig. */
static void size_class_overflow(void *arg)
{
	struct kmem_cache *s;
	unsigned char *whole, *p;

	(void)arg;
	child_options("");
	s = kmem_cache_create_kmalloc(CLASS_NAME, CLASS_SIZE, 16, 0);
	if (!s)
		child_fail(2, "no size class cache");
	whole = kmem_cache_alloc(s, GFP_KERNEL);
	p = kmem_cache_alloc_orig(s, GFP_KERNEL, CLASS_ASKED);
	if (!whole || !p)
		child_fail(2, "allocation failed");
	memset(whole, 0x33, CLASS_SIZE);	/* no size asked for: all of it */
	memset(p, 0x44, CLASS_ASKED);
	kmem_cache_free(s, whole);
	expect_clean(s, 4);
	p[CLASS_ASKED] = 0x55;
	kmem_cache_free(s, p);
	child_fail(10, "the overflow was not reported");
}

/* ---- the parent's checks ---- */

static void expect_end(void (*fn)(void *), int want, const char *const *words)
{
	static char out[REPORT_MAX];
	char how_want[32], how[32];
	int end = run_expect_abort(fn, NULL, out, sizeof(out));

	if (end == -USLAB_TEST_SKIPPED)
		return;		/* CK_FORK=no: the caches existed before the options */
	ck_assert_msg(end == want, "expected %s, got %s; stderr:\n%s",
		      uslab_test_describe_end(want, how_want, sizeof(how_want)),
		      uslab_test_describe_end(end, how, sizeof(how)), out);
	for (; words && *words; words++)
		ck_assert_msg(strstr(out, *words), "report lacks \"%s\"; stderr:\n%s", *words, out);
}

/* The report's first line and its detail, for an overflow of byte at
 * offset asked in cache of object size slot. */
static void report_words(char *banner, char *detail, size_t len, const char *cache,
			 unsigned int asked, unsigned int slot, unsigned char byte)
{
	if (CONFIG_SLUB) {
		snprintf(banner, len, "BUG %s (Not tainted): kmalloc Redzone overwritten", cache);
		snprintf(detail, len, "First byte 0x%x instead of 0xcc", byte);
	} else {
		snprintf(banner, len, "slab error in verify_redzone_free(): cache `%s': "
			 "memory outside object was overwritten", cache);
		snprintf(detail, len, "kmalloc Redzone: %u of %u bytes asked for", asked, slot);
	}
}

static void expect_overflow_report(void (*fn)(void *), const char *cache, unsigned int asked,
				   unsigned int slot)
{
	char banner[200], detail[200];
	const char *words[] = { banner, detail, NULL };

	report_words(banner, detail, sizeof(banner), cache, asked, slot, 0x55);
	expect_end(fn, SIGABRT, words);
}

START_TEST(test_overflow_const_size)
{
	expect_overflow_report(overflow_const, kmalloc_name(ASKED), ASKED, kmalloc_slot(ASKED));
}
END_TEST

START_TEST(test_overflow_runtime_size)
{
	expect_overflow_report(overflow_runtime, kmalloc_name(ASKED), ASKED, kmalloc_slot(ASKED));
}
END_TEST

START_TEST(test_overflow_repaired)
{
	char banner[200], detail[200], fix[200];
	const char *words[] = { banner, detail, fix, NULL };

	report_words(banner, detail, sizeof(banner), kmalloc_name(ASKED), ASKED,
		     kmalloc_slot(ASKED), 0x55);
	snprintf(fix, sizeof(fix), CONFIG_SLUB ? "FIX %s: Restoring kmalloc Redzone" :
		 "FIX %s: Restoring redzones", kmalloc_name(ASKED));
	expect_end(overflow_repaired, 0, words);
}
END_TEST

START_TEST(test_in_bounds_writes_not_reported)
{
	expect_end(in_bounds, 0, NULL);
}
END_TEST

START_TEST(test_ksize_slot_may_be_written)
{
	expect_end(ksize_whole_slot, 0, NULL);
}
END_TEST

START_TEST(test_krealloc_shrink_moves_redzone)
{
	unsigned int slot = kmalloc_slot(ASKED);

	expect_overflow_report(krealloc_shrink, kmalloc_name(ASKED), slot - 6, slot);
}
END_TEST

START_TEST(test_krealloc_grow_moves_redzone)
{
	expect_overflow_report(krealloc_grow, kmalloc_name(ASKED), ASKED, kmalloc_slot(ASKED));
}
END_TEST

START_TEST(test_size_class_alloc_orig)
{
	expect_overflow_report(size_class_overflow, CLASS_NAME, CLASS_ASKED, CLASS_SIZE);
}
END_TEST

static Suite *kmalloc_redzone_suite(void)
{
	Suite *s = suite_create("kmalloc_redzone");
	TCase *tc = tcase_create("misuse");

	tcase_add_test(tc, test_overflow_const_size);
	tcase_add_test(tc, test_overflow_runtime_size);
	tcase_add_test(tc, test_overflow_repaired);
	tcase_add_test(tc, test_in_bounds_writes_not_reported);
	tcase_add_test(tc, test_ksize_slot_may_be_written);
	tcase_add_test(tc, test_krealloc_shrink_moves_redzone);
	tcase_add_test(tc, test_krealloc_grow_moves_redzone);
	tcase_add_test(tc, test_size_class_alloc_orig);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(kmalloc_redzone_suite)

#else

int main(void)
{
	uslab_test_skip("SLOB has no red zones: the kmalloc red zone is SLUB's and SLAB's");
}

#endif
