/* SPDX-License-Identifier: MIT */
/*
 * slab_tunables.c - SLAB's per-cache tunables: the defaults the kernel's
 * enable_cpucache picks by object size (limit 1/8/24/54/120, batchcount
 * (limit+1)/2, shared 8 for objects up to a page when there are several
 * CPUs), retuning with a /proc/slabinfo-style line (slabinfo_write_line and
 * the exported uslab_slabinfo_write), the kernel's rules for bad lines, and
 * that the new values show in slabinfo and size the arrays.
 */
#include "common/test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "mm/slab.h"

#if CONFIG_SLAB

static unsigned int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 1 ? (unsigned int)n : 1;
}

/* A cache nobody else shares (SLAB_NOLEAKTRACE is never merged). */
static struct kmem_cache *own_cache(const char *name, unsigned int size)
{
	struct kmem_cache *s = kmem_cache_create(name, size, 0, SLAB_NOLEAKTRACE, NULL);

	ck_assert_ptr_nonnull(s);
	return s;
}

struct row {
	unsigned long active_objs, num_objs;
	unsigned int limit, batchcount, shared;
	unsigned long active_slabs, num_slabs, sharedavail;
};

/* The cache's row of the slabinfo text, parsed. */
static struct row slabinfo_row(const char *name)
{
	char *buf = NULL, *line, *save = NULL, rname[64];
	unsigned int objsize, perslab, pages;
	size_t len = 0;
	struct row r;
	FILE *f = open_memstream(&buf, &len);
	int found = 0;

	ck_assert_ptr_nonnull(f);
	uslab_show_slabinfo(f);
	fclose(f);
	memset(&r, 0, sizeof(r));
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%63s %lu %lu %u %u %u : tunables %u %u %u : slabdata %lu %lu %lu",
			   rname, &r.active_objs, &r.num_objs, &objsize, &perslab, &pages,
			   &r.limit, &r.batchcount, &r.shared, &r.active_slabs, &r.num_slabs,
			   &r.sharedavail) == 12 && !strcmp(rname, name)) {
			found = 1;
			break;
		}
	}
	free(buf);
	ck_assert_msg(found, "no slabinfo row for %s", name);
	return r;
}

static void assert_tunables(const char *name, unsigned int limit, unsigned int batchcount,
			    unsigned int shared)
{
	struct row r = slabinfo_row(name);

	ck_assert_msg(r.limit == limit && r.batchcount == batchcount && r.shared == shared,
		      "%s: tunables %u %u %u, expected %u %u %u", name, r.limit, r.batchcount,
		      r.shared, limit, batchcount, shared);
}

START_TEST(defaults_follow_object_size)
{
	static const struct { unsigned int size, limit; } t[] = {
		{ 16, 120 }, { 64, 120 }, { 256, 120 }, { 257, 54 }, { 1024, 54 },
		{ 1025, 24 }, { 4096, 24 }, { 4097, 8 }, { 131072, 8 }, { 131073, 1 },
		{ 300000, 1 },
	};
	unsigned int i, shared;
	char name[32];

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct kmem_cache *s;

		snprintf(name, sizeof(name), "tune-%u", t[i].size);
		s = own_cache(name, t[i].size);
		/* the kernel decides on the slot size, which rounds up to a word */
		shared = s->size <= PAGE_SIZE && online_cpus() > 1 ? 8 : 0;
		assert_tunables(name, t[i].limit, (t[i].limit + 1) / 2, shared);
		ck_assert_uint_eq(s->limit, t[i].limit);
		kmem_cache_destroy(s);
	}
}
END_TEST

START_TEST(kmalloc_caches_have_tunables_too)
{
	unsigned int shared = online_cpus() > 1 ? 8 : 0;

	assert_tunables("kmalloc-32", 120, 60, shared);
	assert_tunables("kmalloc-512", 54, 27, shared);
	assert_tunables("kmalloc-2k", 24, 12, shared);
	assert_tunables("kmalloc-8k", 8, 4, 0);
	assert_tunables("kmalloc-4M", 1, 1, 0);
}
END_TEST

START_TEST(a_write_retunes_and_shows_in_slabinfo)
{
	struct kmem_cache *s = own_cache("tune-write", 100);

	ck_assert_int_eq(slabinfo_write_line("tune-write 64 32 4"), 0);
	assert_tunables("tune-write", 64, 32, 4);
	/* the exported spelling, with the trailing newline a shell would send */
	ck_assert_int_eq(uslab_slabinfo_write("tune-write 10 3 0\n"), 0);
	assert_tunables("tune-write", 10, 3, 0);
	ck_assert_uint_eq(s->batchcount, 3);
	kmem_cache_destroy(s);
}
END_TEST

START_TEST(out_of_range_values_are_silently_ignored)
{
	static const char *const lines[] = {
		"tune-bad 0 1 1",	/* limit < 1 */
		"tune-bad 10 0 1",	/* batchcount < 1 */
		"tune-bad 10 11 1",	/* batchcount > limit */
		"tune-bad 10 5 -1",	/* shared < 0 */
		"tune-bad -5 -9 0",
	};
	struct kmem_cache *s = own_cache("tune-bad", 100);
	unsigned int i;

	ck_assert_int_eq(slabinfo_write_line("tune-bad 40 20 2"), 0);
	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		/* the kernel's write "succeeds" and changes nothing */
		ck_assert_int_eq(slabinfo_write_line(lines[i]), 0);
		assert_tunables("tune-bad", 40, 20, 2);
	}
	kmem_cache_destroy(s);
}
END_TEST

START_TEST(malformed_lines_and_unknown_caches_are_rejected)
{
	struct kmem_cache *s = own_cache("tune-rej", 100);
	char longline[200];

	memset(longline, 'x', sizeof(longline));
	memcpy(longline + 150, " 1 1 1", 7);
	ck_assert_int_eq(slabinfo_write_line("tune-rej"), -EINVAL);		/* no values */
	ck_assert_int_eq(slabinfo_write_line("tune-rej 10 5"), -EINVAL);	/* two values */
	ck_assert_int_eq(slabinfo_write_line("tune-rej a b c"), -EINVAL);
	ck_assert_int_eq(slabinfo_write_line("no-such-cache 10 5 1"), -EINVAL);
	ck_assert_int_eq(slabinfo_write_line(longline), -EINVAL);		/* > 128 bytes */
	ck_assert_int_eq(uslab_slabinfo_write(NULL), -EINVAL);
	/* too big to allocate: refused with -ENOMEM, nothing changed */
	ck_assert_int_eq(slabinfo_write_line("tune-rej 100000000 1 0"), -ENOMEM);
	ck_assert_int_eq(slabinfo_write_line("tune-rej 100 100 100000000"), -ENOMEM);
	assert_tunables("tune-rej", 120, 60, online_cpus() > 1 ? 8 : 0);
	kmem_cache_destroy(s);
}
END_TEST

/* Free n objects of s after allocating them: what stays in the arrays. */
static unsigned long cached_after_churn(struct kmem_cache *s, const char *name, int n)
{
	void **p = calloc((size_t)n, sizeof(void *));
	int i;

	ck_assert_ptr_nonnull(p);
	for (i = 0; i < n; i++) {
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		ck_assert_ptr_nonnull(p[i]);
	}
	for (i = 0; i < n; i++)
		kmem_cache_free(s, p[i]);
	free(p);
	/* with no shared array, objects in use are those in this CPU's array */
	return slabinfo_row(name).active_objs;
}

START_TEST(new_limits_size_this_cpus_array)
{
	struct kmem_cache *s = own_cache("tune-size", 64);
	unsigned long held;

	ck_assert_int_eq(slabinfo_write_line("tune-size 10 5 0"), 0);
	held = cached_after_churn(s, "tune-size", 300);
	/* a full array flushes batchcount: it holds limit-batchcount+1 .. limit */
	ck_assert_msg(held >= 6 && held <= 10, "array holds %lu with limit 10", held);
	ck_assert_int_eq(slabinfo_write_line("tune-size 60 30 0"), 0);
	held = cached_after_churn(s, "tune-size", 300);
	ck_assert_msg(held >= 31 && held <= 60, "array holds %lu with limit 60", held);
	ck_assert_int_eq(kmem_cache_shrink(s), 0);
	ck_assert_uint_eq(slabinfo_row("tune-size").num_slabs, 0);
	kmem_cache_destroy(s);
}
END_TEST

START_TEST(shared_array_capacity_is_shared_times_batchcount)
{
	struct kmem_cache *s = own_cache("tune-shared", 64);
	struct row r;

	/* limit 8, batch 4, shared array of 3 x 4 = 12 entries */
	ck_assert_int_eq(slabinfo_write_line("tune-shared 8 4 3"), 0);
	cached_after_churn(s, "tune-shared", 200);
	r = slabinfo_row("tune-shared");
	ck_assert_uint_eq(r.sharedavail, 12);
	ck_assert_uint_le(r.active_objs, 12 + 8);
	ck_assert_int_eq(kmem_cache_shrink(s), 0);
	r = slabinfo_row("tune-shared");
	ck_assert_uint_eq(r.sharedavail, 0);
	ck_assert_uint_eq(r.active_objs, 0);
	kmem_cache_destroy(s);
}
END_TEST

/* The cache's slabinfo line, as printed. */
static char *slabinfo_line(const char *name)
{
	char *buf = NULL, *line, *save = NULL, *copy = NULL;
	size_t len = 0, n = strlen(name);
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	uslab_show_slabinfo(f);
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, name, n) && line[n] == ' ')
			copy = strdup(line);
	free(buf);
	ck_assert_msg(copy, "no slabinfo row for %s", name);
	return copy;
}

START_TEST(stats_columns_count_hits_and_misses)
{
	struct kmem_cache *s = own_cache("tune-stats", 64);
	unsigned long allocs, high, grown, reaped, errors, freeable, nallocs, nfrees, over;
	unsigned long ahit, amiss, fhit, fmiss;
	char *line, *g, *c;

	ck_assert_int_eq(slabinfo_write_line("tune-stats 16 8 0"), 0);
	cached_after_churn(s, "tune-stats", 100);
	line = slabinfo_line("tune-stats");
	g = strstr(line, " : globalstat ");
	c = strstr(line, " : cpustat ");
	ck_assert_msg(g && c, "no statistics in: %s", line);
	ck_assert_int_eq(sscanf(g, " : globalstat %lu %lu %lu %lu %lu %lu %lu %lu %lu", &allocs,
				&high, &grown, &reaped, &errors, &freeable, &nallocs, &nfrees, &over), 9);
	ck_assert_int_eq(sscanf(c, " : cpustat %lu %lu %lu %lu", &ahit, &amiss, &fhit, &fmiss), 4);
	/* this thread did 100 allocations and 100 frees, each a hit or a miss */
	ck_assert_uint_eq(ahit + amiss, 100);
	ck_assert_uint_eq(fhit + fmiss, 100);
	ck_assert_uint_ge(amiss, 100 / 8);	/* a refill brings at most batchcount */
	ck_assert_uint_ge(fmiss, 1);		/* 100 frees overflow 16 entries */
	ck_assert_uint_ge(allocs, 100);
	ck_assert_uint_ge(high, 100);
	ck_assert_uint_ge(grown, 100 / s->num);
	ck_assert_uint_eq(errors, 0);
	ck_assert_uint_eq(over, 0);		/* one node: no alien caches */
	free(line);
	kmem_cache_destroy(s);
}
END_TEST

static void enable_stats(void)
{
	/* runs in the forked test process (a checked fixture) */
	ck_assert_int_eq(parse_option_string("slab_stats"), 0);
}

static Suite *slab_tunables_suite(void)
{
	Suite *s = suite_create("slab_tunables");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, defaults_follow_object_size);
	tcase_add_test(tc, kmalloc_caches_have_tunables_too);
	tcase_add_test(tc, a_write_retunes_and_shows_in_slabinfo);
	tcase_add_test(tc, out_of_range_values_are_silently_ignored);
	tcase_add_test(tc, malformed_lines_and_unknown_caches_are_rejected);
	tcase_add_test(tc, new_limits_size_this_cpus_array);
	tcase_add_test(tc, shared_array_capacity_is_shared_times_batchcount);
	suite_add_tcase(s, tc);
	tc = tcase_create("stats");
	tcase_add_checked_fixture(tc, enable_stats, NULL);
	tcase_add_test(tc, stats_columns_count_hits_and_misses);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	/* no reap in the middle of a test: these count objects in arrays */
	if (parse_option_string("slab_reap_ms=3600000")) {
		fprintf(stderr, "option rejected\n");
		return 1;
	}
	return uslab_test_run(slab_tunables_suite());
}

#else

int main(void)
{
	uslab_test_skip("SLAB's tunables (limit, batchcount, shared) and slabinfo writes");
}

#endif
