/* SPDX-License-Identifier: MIT */
/*
 * slabinfo.c - uslab_show_slabinfo() prints /proc/slabinfo version 2.1:
 * the kernel's exact header, then one row per cache, newest cache first,
 * each row in the kernel's exact column format.  Also checks the names of
 * the kmalloc caches (kmalloc-<n>, kmalloc-rcl-<n>, kmalloc-cg-<n>;
 * dma-kmalloc-<n> share the plain caches, so they have no rows of their
 * own), which differ by allocator only in the range of sizes.
 */
#include "api.h"

#define HEADER1 "slabinfo - version: 2.1\n"
#define HEADER2 "# name            <active_objs> <num_objs> <objsize> <objperslab> " \
	"<pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata " \
	"<active_slabs> <num_slabs> <sharedavail>\n"

struct row {
	char name[64];
	unsigned long active_objs, num_objs;
	unsigned int objsize, objperslab;
	int pagesperslab;
	unsigned int limit, batchcount, shared;
	unsigned long active_slabs, num_slabs, sharedavail;
};

struct slabinfo_text {
	char *buf;		/* whole output (open_memstream) */
	size_t len;
	struct row rows[512];	/* parsed rows, in output order */
	int nr_rows;
};

/* Parse one row; it must be exactly what the kernel's format makes of it. */
static void parse_row(const char *line, struct row *r)
{
	char again[512];
	int used = 0, n;

	n = sscanf(line, "%63s %lu %lu %u %u %d : tunables %u %u %u : slabdata %lu %lu %lu%n",
		   r->name, &r->active_objs, &r->num_objs, &r->objsize, &r->objperslab,
		   &r->pagesperslab, &r->limit, &r->batchcount, &r->shared,
		   &r->active_slabs, &r->num_slabs, &r->sharedavail, &used);
	ck_assert_msg(n == 12, "row does not parse: %s", line);
	snprintf(again, sizeof(again),
		 "%-17s %6lu %6lu %6u %4u %4d : tunables %4u %4u %4u : slabdata %6lu %6lu %6lu",
		 r->name, r->active_objs, r->num_objs, r->objsize, r->objperslab,
		 r->pagesperslab, r->limit, r->batchcount, r->shared, r->active_slabs,
		 r->num_slabs, r->sharedavail);
	ck_assert_msg(strncmp(line, again, strlen(again)) == 0,
		      "row not in the kernel's layout:\n%s\nexpected:\n%s", line, again);
	ck_assert_msg(line[used] == '\0' || line[used] == ' ',
		      "junk after the slabdata columns: %s", line);
}

static void read_slabinfo(struct slabinfo_text *t)
{
	FILE *f = open_memstream(&t->buf, &t->len);
	char *line, *next;

	ck_assert_ptr_nonnull(f);
	uslab_show_slabinfo(f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_msg(strncmp(t->buf, HEADER1 HEADER2, strlen(HEADER1 HEADER2)) == 0,
		      "header differs:\n%.400s", t->buf);
	t->nr_rows = 0;
	for (line = t->buf + strlen(HEADER1 HEADER2); *line; line = next) {
		next = strchr(line, '\n');
		ck_assert_msg(next != NULL, "last row lacks a newline: %s", line);
		*next++ = '\0';
		ck_assert_int_lt(t->nr_rows, 512);
		parse_row(line, &t->rows[t->nr_rows++]);
	}
}

static const struct row *find_row(const struct slabinfo_text *t, const char *name)
{
	int i;

	for (i = 0; i < t->nr_rows; i++)
		if (strcmp(t->rows[i].name, name) == 0)
			return &t->rows[i];
	return NULL;
}

START_TEST(allocator_name_is_the_one_built)
{
	ck_assert_str_eq(uslab_allocator_name(), uslab_test_allocator());
}
END_TEST

START_TEST(header_is_exact_and_every_row_parses)
{
	struct slabinfo_text t;
	int i;

	read_slabinfo(&t);
	for (i = 0; i < t.nr_rows; i++) {
		const struct row *r = &t.rows[i];

		ck_assert_msg(r->active_objs <= r->num_objs, "%s: active > total", r->name);
		ck_assert_msg(r->active_slabs <= r->num_slabs, "%s: active slabs > total", r->name);
		ck_assert_msg(r->pagesperslab >= 1, "%s: %d pages per slab", r->name,
			      r->pagesperslab);
	}
	free(t.buf);
}
END_TEST

START_TEST(a_new_cache_is_listed_first_with_its_objects)
{
	struct kmem_cache *s = kmem_cache_create_usercopy("api_slabinfo", 100, 0, 0, 0, 100, NULL);
	struct slabinfo_text t;
	void *p[50];
	int i;

	ck_assert_ptr_nonnull(s);
	for (i = 0; i < 50; i++)
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
	read_slabinfo(&t);
	ck_assert_int_ge(t.nr_rows, 1);
	ck_assert_str_eq(t.rows[0].name, "api_slabinfo");
	ck_assert_uint_ge(t.rows[0].objsize, 100);
	ck_assert_uint_ge(t.rows[0].active_objs, 50);
	ck_assert_uint_ge(t.rows[0].num_objs, t.rows[0].active_objs);
	free(t.buf);
	for (i = 0; i < 50; i++)
		kmem_cache_free(s, p[i]);
	kmem_cache_destroy(s);
	read_slabinfo(&t);
	ck_assert_ptr_null(find_row(&t, "api_slabinfo"));
	free(t.buf);
}
END_TEST

/* Sizes of the kmalloc caches the allocator's geometry asks for. */
static const char *const slub_sizes[] = { "8", "16", "32", "64", "96", "128", "192", "256",
	"512", "1k", "2k", "4k", "8k" };
static const char *const slab_sizes[] = { "32", "64", "96", "128", "192", "256", "512",
	"1k", "2k", "4k", "8k", "16k", "32k", "64k", "128k", "256k", "512k", "1M", "2M",
	"4M" };

static void check_kmalloc_rows(const struct slabinfo_text *t, const char *const *sizes,
			       size_t n, const char *absent)
{
	char name[64];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "kmalloc-%s", sizes[i]);
		ck_assert_msg(find_row(t, name), "no row for %s", name);
		snprintf(name, sizeof(name), "kmalloc-rcl-%s", sizes[i]);
		ck_assert_msg(find_row(t, name), "no row for %s", name);
		snprintf(name, sizeof(name), "kmalloc-cg-%s", sizes[i]);	/* memcg charged */
		ck_assert_msg(find_row(t, name), "no row for %s", name);
	}
	ck_assert_msg(!find_row(t, absent), "unexpected row %s", absent);
}

START_TEST(kmalloc_caches_have_the_kernel_names)
{
	struct slabinfo_text t;
	int i;

	read_slabinfo(&t);
	if (allocator_is("slub"))
		check_kmalloc_rows(&t, slub_sizes, sizeof(slub_sizes) / sizeof(slub_sizes[0]),
				   "kmalloc-16k");
	else if (allocator_is("slab"))
		check_kmalloc_rows(&t, slab_sizes, sizeof(slab_sizes) / sizeof(slab_sizes[0]),
				   "kmalloc-16");
	for (i = 0; i < t.nr_rows; i++) {
		const char *name = t.rows[i].name;

		/* no DMA zone: those rows share the plain caches */
		ck_assert_msg(strncmp(name, "dma-kmalloc-", 12),
			      "unexpected row %s", name);
		/* SLOB has no kmalloc caches at all */
		if (allocator_is("slob"))
			ck_assert_msg(strncmp(name, "kmalloc-", 8), "SLOB row %s", name);
	}
	free(t.buf);
}
END_TEST

START_TEST(kmalloc_objects_show_in_their_cache)
{
	struct slabinfo_text t;
	unsigned long before;
	void *p[64];
	int i;

	if (allocator_is("slob"))
		return;		/* no kmalloc caches */
	read_slabinfo(&t);
	ck_assert_ptr_nonnull(find_row(&t, "kmalloc-rcl-512"));
	before = find_row(&t, "kmalloc-rcl-512")->active_objs;
	free(t.buf);
	for (i = 0; i < 64; i++)
		p[i] = kmalloc(500, GFP_KERNEL | __GFP_RECLAIMABLE);
	read_slabinfo(&t);
	ck_assert_uint_ge(find_row(&t, "kmalloc-rcl-512")->active_objs, before + 64);
	free(t.buf);
	for (i = 0; i < 64; i++)
		kfree(p[i]);
}
END_TEST

static Suite *slabinfo_suite(void)
{
	Suite *s = suite_create("slabinfo");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, allocator_name_is_the_one_built);
	tcase_add_test(tc, header_is_exact_and_every_row_parses);
	tcase_add_test(tc, a_new_cache_is_listed_first_with_its_objects);
	tcase_add_test(tc, kmalloc_caches_have_the_kernel_names);
	tcase_add_test(tc, kmalloc_objects_show_in_their_cache);
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(slabinfo_suite)
