/* SPDX-License-Identifier: MIT */
/* uslab-test: threaded */
/*
 * memcg.c - memory cgroup accounting of slab objects, through
 * <uslab/memcontrol.h> and <uslab/slab.h> only, as a checklist: creating
 * and destroying groups (and refusing bad input), the active group of a
 * thread, charges of GFP_KERNEL_ACCOUNT kmalloc, SLAB_ACCOUNT caches,
 * __GFP_ACCOUNT on plain caches, bulk and large kmalloc, exact usage and
 * its return to zero, one thread alternating groups object by object, a
 * vector attached to a thread's slab by another thread, uncharging by
 * another thread, reparenting on destroy, stock draining, the
 * kmalloc-cg-<n> caches in slabinfo, the slabinfo-like report, and
 * cgroup.memory=nokmem.
 *
 * The group API works on every allocator; SLOB charges nothing (as in
 * Linux), so the tests of charging check that usage stays 0 there.
 */
#include "api.h"
#include <errno.h>
#include <pthread.h>
#include <uslab/memcontrol.h>

#define PTR_SIZE	sizeof(void *)
#define PAGE		4096UL

/* Does this build charge objects at all?  SLOB: no, as in Linux. */
static int charges(void)
{
	return !allocator_is("slob");
}

static struct mem_cgroup *create_or_fail(const char *name, unsigned long limit)
{
	struct mem_cgroup *g = mem_cgroup_create(name, limit);

	ck_assert_msg(g != NULL, "mem_cgroup_create(%s) failed: errno %d", name, errno);
	return g;
}

static struct uslab_mem_cgroup_stats stats_of(struct mem_cgroup *g)
{
	struct uslab_mem_cgroup_stats st;

	ck_assert_int_eq(mem_cgroup_stats(g, &st), 0);
	return st;
}

/*
 * What one kmalloc(size, GFP_KERNEL_ACCOUNT) costs its group, measured in a
 * group of its own: its cache's slot size plus its entry in the slab's
 * vector (0 under SLOB).  The slot may be larger than ksize() (SLAB pads
 * kmalloc-96 to a cache line, for one).
 */
static unsigned long charge_of(size_t size)
{
	struct mem_cgroup *probe, *old;
	unsigned long charge;
	char name[32];
	void *p;

	snprintf(name, sizeof(name), "memcg_probe_%zu", size);
	probe = mem_cgroup_create(name, MEM_CGROUP_NO_LIMIT);
	ck_assert_ptr_nonnull(probe);
	old = set_active_memcg(probe);
	p = kmalloc(size, GFP_KERNEL_ACCOUNT);
	ck_assert_ptr_nonnull(p);
	charge = mem_cgroup_usage(probe);
	if (charges())
		ck_assert_uint_ge(charge, ksize(p) + PTR_SIZE);
	kfree(p);
	set_active_memcg(old);
	ck_assert_int_eq(mem_cgroup_destroy(probe), 0);
	return charge;
}

/* ---------------- groups ---------------- */

START_TEST(create_and_destroy)
{
	struct mem_cgroup *g = create_or_fail("memcg_basic", 1UL << 20);
	struct uslab_mem_cgroup_stats st = stats_of(g);

	ck_assert_str_eq(mem_cgroup_name(g), "memcg_basic");
	ck_assert_str_eq(mem_cgroup_name(root_mem_cgroup), "root");
	ck_assert_uint_eq(st.limit, 1UL << 20);
	ck_assert_uint_eq(st.usage, 0);
	ck_assert_uint_eq(st.charged, 0);
	ck_assert_uint_eq(st.failcnt, 0);
	ck_assert_uint_eq(mem_cgroup_usage(g), 0);
	ck_assert_int_eq(mem_cgroup_destroy(g), 0);
}
END_TEST

START_TEST(limits_round_down_to_pages_and_no_limit_is_max)
{
	struct mem_cgroup *a = create_or_fail("memcg_round", 3 * PAGE + 100);
	struct mem_cgroup *b = create_or_fail("memcg_nolimit", MEM_CGROUP_NO_LIMIT);

	ck_assert_uint_eq(stats_of(a).limit, 3 * PAGE);
	ck_assert_uint_eq(stats_of(b).limit, MEM_CGROUP_NO_LIMIT);
	ck_assert_uint_eq(stats_of(root_mem_cgroup).limit, MEM_CGROUP_NO_LIMIT);
	ck_assert_int_eq(mem_cgroup_set_limit(a, 5 * PAGE), 0);
	ck_assert_uint_eq(stats_of(a).limit, 5 * PAGE);
	ck_assert_int_eq(mem_cgroup_set_limit(root_mem_cgroup, PAGE), -EINVAL);
	ck_assert_int_eq(mem_cgroup_destroy(b), 0);
	ck_assert_int_eq(mem_cgroup_destroy(a), 0);
}
END_TEST

static void expect_bad_name(const char *name, const char *why)
{
	struct stderr_capture cap;
	struct mem_cgroup *g;
	char out[4096];

	stderr_capture_begin(&cap);
	errno = 0;
	g = mem_cgroup_create(name, 0);
	stderr_capture_end(&cap, out, sizeof(out));
	ck_assert_msg(g == NULL, "%s: a group was created", why);
	ck_assert_msg(errno == EINVAL, "%s: errno %d", why, errno);
	ck_assert_msg(strstr(out, "invalid group name"), "%s: no report:\n%s", why, out);
}

START_TEST(bad_names_are_refused_with_a_report)
{
	char longname[80];

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	expect_bad_name(NULL, "NULL");
	expect_bad_name("", "empty");
	expect_bad_name("two words", "blank");
	expect_bad_name("tab\tname", "tab");
	expect_bad_name(longname, "79 characters");
}
END_TEST

START_TEST(duplicate_names_are_refused)
{
	struct mem_cgroup *g = create_or_fail("memcg_dup", 0);
	struct stderr_capture cap;
	char out[4096];

	stderr_capture_begin(&cap);
	errno = 0;
	ck_assert_ptr_null(mem_cgroup_create("memcg_dup", 0));
	ck_assert_int_eq(errno, EEXIST);
	errno = 0;
	ck_assert_ptr_null(mem_cgroup_create("root", 0));
	ck_assert_int_eq(errno, EEXIST);
	stderr_capture_end(&cap, out, sizeof(out));
	ck_assert_msg(strstr(out, "memcg_dup exists"), "no report:\n%s", out);
	ck_assert_int_eq(mem_cgroup_destroy(g), 0);
	/* the name is free again */
	g = create_or_fail("memcg_dup", 0);
	ck_assert_int_eq(mem_cgroup_destroy(g), 0);
}
END_TEST

START_TEST(destroy_refuses_root_twice_and_garbage)
{
	struct mem_cgroup *g = create_or_fail("memcg_twice", 0);
	struct stderr_capture cap;
	char out[4096];
	int junk[16];

	ck_assert_int_eq(mem_cgroup_destroy(g), 0);
	stderr_capture_begin(&cap);
	ck_assert_int_eq(mem_cgroup_destroy(g), -EINVAL);
	ck_assert_int_eq(mem_cgroup_destroy(root_mem_cgroup), -EINVAL);
	ck_assert_int_eq(mem_cgroup_destroy((struct mem_cgroup *)junk), -EINVAL);
	ck_assert_int_eq(mem_cgroup_destroy(NULL), -EINVAL);
	ck_assert_uint_eq(mem_cgroup_usage((struct mem_cgroup *)junk), 0);
	stderr_capture_end(&cap, out, sizeof(out));
	ck_assert_msg(strstr(out, "mem_cgroup_destroy"), "no report:\n%s", out);
	ck_assert_msg(strstr(out, "mem_cgroup_usage"), "no report:\n%s", out);
}
END_TEST

START_TEST(active_group_is_per_thread_and_blocks_destroy)
{
	struct mem_cgroup *a = create_or_fail("memcg_act_a", 0);
	struct mem_cgroup *b = create_or_fail("memcg_act_b", 0);

	ck_assert_ptr_null(get_active_memcg());
	ck_assert_ptr_null(set_active_memcg(a));
	ck_assert_ptr_eq(get_active_memcg(), a);
	ck_assert_ptr_eq(set_active_memcg(b), a);
	ck_assert_int_eq(mem_cgroup_destroy(b), -EBUSY);
	ck_assert_int_eq(mem_cgroup_destroy(a), 0);	/* no longer active */
	ck_assert_ptr_eq(set_active_memcg(NULL), b);
	ck_assert_int_eq(mem_cgroup_destroy(b), 0);
	ck_assert_ptr_null(get_active_memcg());
}
END_TEST

START_TEST(activating_a_dead_group_is_reported_and_ignored)
{
	struct mem_cgroup *a = create_or_fail("memcg_dead_a", 0);
	struct mem_cgroup *b = create_or_fail("memcg_dead_b", 0);
	struct stderr_capture cap;
	char out[4096];

	ck_assert_int_eq(mem_cgroup_destroy(b), 0);
	set_active_memcg(a);
	stderr_capture_begin(&cap);
	ck_assert_ptr_eq(set_active_memcg(b), a);
	stderr_capture_end(&cap, out, sizeof(out));
	ck_assert_msg(strstr(out, "not a live memory cgroup"), "no report:\n%s", out);
	ck_assert_ptr_eq(get_active_memcg(), a);
	set_active_memcg(NULL);
	ck_assert_int_eq(mem_cgroup_destroy(a), 0);
}
END_TEST

static void *activate_and_exit(void *arg)
{
	set_active_memcg((struct mem_cgroup *)arg);
	return NULL;
}

START_TEST(a_thread_that_exits_drops_its_active_group)
{
	struct mem_cgroup *g = create_or_fail("memcg_exit", 0);
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, activate_and_exit, g), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(mem_cgroup_destroy(g), 0);
}
END_TEST

/* ---------------- charging ---------------- */

START_TEST(kmalloc_account_charges_each_object_exactly)
{
	struct mem_cgroup *g = create_or_fail("memcg_kmalloc", MEM_CGROUP_NO_LIMIT);
	unsigned long each, plain_usage;
	void *p[200], *plain;
	int i;

	set_active_memcg(g);
	for (i = 0; i < 200; i++) {
		p[i] = kmalloc(64, GFP_KERNEL_ACCOUNT);
		ck_assert_ptr_nonnull(p[i]);
		memset(p[i], 0x5a, 64);
	}
	plain = kmalloc(64, GFP_KERNEL);	/* not accounted */
	ck_assert_ptr_nonnull(plain);
	if (!charges()) {
		ck_assert_uint_eq(mem_cgroup_usage(g), 0);
		ck_assert_ptr_null(mem_cgroup_from_obj(p[0]));
	} else {
		each = ksize(p[0]) + PTR_SIZE;	/* 64 + 8 on SLUB and SLAB */
		ck_assert_uint_eq(each, charge_of(64));
		ck_assert_uint_eq(mem_cgroup_usage(g), 200 * each);
		ck_assert_uint_eq(stats_of(g).objects, 200);
		ck_assert_ptr_eq(mem_cgroup_from_obj(p[0]), g);
		ck_assert_ptr_eq(mem_cgroup_from_obj(p[199]), g);
		ck_assert_ptr_null(mem_cgroup_from_obj(plain));
		/* the root's counter holds every group's charges */
		ck_assert_uint_ge(mem_cgroup_usage(root_mem_cgroup), 200 * each);
	}
	plain_usage = mem_cgroup_usage(g);
	kfree(plain);
	ck_assert_uint_eq(mem_cgroup_usage(g), plain_usage);
	for (i = 0; i < 200; i++)
		kfree(p[i]);
	ck_assert_uint_eq(mem_cgroup_usage(g), 0);
	ck_assert_uint_eq(stats_of(g).objects, 0);
	set_active_memcg(NULL);
	ck_assert_int_eq(mem_cgroup_destroy(g), 0);
}
END_TEST

START_TEST(no_active_group_charges_nothing)
{
	struct mem_cgroup *g = create_or_fail("memcg_inactive", MEM_CGROUP_NO_LIMIT);
	unsigned long root_before = mem_cgroup_usage(root_mem_cgroup);
	void *p = kmalloc(128, GFP_KERNEL_ACCOUNT);

	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(mem_cgroup_usage(g), 0);
	ck_assert_uint_eq(mem_cgroup_usage(root_mem_cgroup), root_before);
	ck_assert_ptr_null(mem_cgroup_from_obj(p));
	set_active_memcg(root_mem_cgroup);	/* the root charges nothing either */
	kfree(p);
	p = kmalloc(128, GFP_KERNEL_ACCOUNT);
	ck_assert_ptr_null(mem_cgroup_from_obj(p));
	kfree(p);
	set_active_memcg(NULL);
	ck_assert_int_eq(mem_cgroup_destroy(g), 0);
}
END_TEST

START_TEST(slab_account_cache_charges_without_the_gfp_flag)
{
	struct mem_cgroup *g = create_or_fail("memcg_cache", MEM_CGROUP_NO_LIMIT);
	struct kmem_cache *s = kmem_cache_create("memcg_acct_cache", 200, 0, SLAB_ACCOUNT, NULL);
	unsigned long each;
	void *p[300];
	int i;

	ck_assert_ptr_nonnull(s);
	set_active_memcg(g);
	p[0] = kmem_cache_alloc(s, GFP_KERNEL);
	ck_assert_ptr_nonnull(p[0]);
	each = mem_cgroup_usage(g);
	if (charges())
		ck_assert_uint_ge(each, 200 + PTR_SIZE);
	else
		ck_assert_uint_eq(each, 0);
	for (i = 1; i < 300; i++) {
		p[i] = kmem_cache_alloc(s, GFP_KERNEL | __GFP_ZERO);
		ck_assert_ptr_nonnull(p[i]);
		ck_assert_int_eq(((unsigned char *)p[i])[199], 0);
	}
	ck_assert_uint_eq(mem_cgroup_usage(g), 300 * each);
	for (i = 0; i < 300; i += 2)
		kmem_cache_free(s, p[i]);
	ck_assert_uint_eq(mem_cgroup_usage(g), 150 * each);
	for (i = 1; i < 300; i += 2)
		kmem_cache_free(s, p[i]);
	ck_assert_uint_eq(mem_cgroup_usage(g), 0);
	set_active_memcg(NULL);
	kmem_cache_destroy(s);
	ck_assert_int_eq(mem_cgroup_destroy(g), 0);
}
END_TEST

START_TEST(gfp_account_on_a_plain_cache_charges_those_objects_only)
{
	struct mem_cgroup *g = create_or_fail("memcg_plain", MEM_CGROUP_NO_LIMIT);
	struct kmem_cache *s = kmem_cache_create_usercopy("memcg_plain_cache", 48, 0, 0, 0, 48,
							  NULL);
	void *acct[100], *plain[100];
	unsigned long each;
	int i;

	ck_assert_ptr_nonnull(s);
	set_active_memcg(g);
	for (i = 0; i < 100; i++) {	/* interleaved: they share slabs */
		acct[i] = kmem_cache_alloc(s, GFP_KERNEL_ACCOUNT);
		plain[i] = kmem_cache_alloc(s, GFP_KERNEL);
		ck_assert_ptr_nonnull(acct[i]);
		ck_assert_ptr_nonnull(plain[i]);
	}
	each = mem_cgroup_usage(g) / 100;
	ck_assert_uint_eq(mem_cgroup_usage(g), 100 * each);
	if (charges()) {
		ck_assert_uint_ge(each, 48 + PTR_SIZE);
		ck_assert_ptr_eq(mem_cgroup_from_obj(acct[7]), g);
		ck_assert_ptr_null(mem_cgroup_from_obj(plain[7]));
	}
	for (i = 0; i < 100; i++)	/* plain frees uncharge nothing */
		kmem_cache_free(s, plain[i]);
	ck_assert_uint_eq(mem_cgroup_usage(g), 100 * each);
	for (i = 99; i >= 0; i--)
		kmem_cache_free(s, acct[i]);
	ck_assert_uint_eq(mem_cgroup_usage(g), 0);
	set_active_memcg(NULL);
	kmem_cache_destroy(s);
	ck_assert_int_eq(mem_cgroup_destroy(g), 0);
}
END_TEST

/* The group objects i of alternates_on_one_cache are charged to. */
static struct mem_cgroup *alternate_group(int i, struct mem_cgroup *g1, struct mem_cgroup *g2)
{
	return i % 3 == 0 ? g1 : i % 3 == 1 ? g2 : NULL;
}

/*
 * One thread alternates between two groups and none on one SLAB_ACCOUNT
 * cache, object by object, so that its CPU's stock switches group on
 * nearly every charge and uncharge and charged and uncharged objects
 * share slabs (the accounted fast path's stock and vector tests, both
 * ways); every third allocation is zeroed.  Frees run with yet another
 * group active.  Usage stays exact for each group throughout.
 */
START_TEST(two_groups_and_none_alternate_on_one_cache)
{
	struct mem_cgroup *g1 = create_or_fail("memcg_alt1", MEM_CGROUP_NO_LIMIT);
	struct mem_cgroup *g2 = create_or_fail("memcg_alt2", MEM_CGROUP_NO_LIMIT);
	struct kmem_cache *s = kmem_cache_create("memcg_alt_cache", 64, 0, SLAB_ACCOUNT, NULL);
	unsigned long each = 0;
	void *p[600];
	int i;

	ck_assert_ptr_nonnull(s);
	for (i = 0; i < 600; i++) {
		set_active_memcg(alternate_group(i, g1, g2));
		if (i % 3 == 2 && i % 5 == 0)
			mem_cgroup_drain_stocks();	/* a stock that caches nothing */
		p[i] = kmem_cache_alloc(s, i % 4 ? GFP_KERNEL : GFP_KERNEL | __GFP_ZERO);
		ck_assert_ptr_nonnull(p[i]);
		if (i % 4 == 0)
			ck_assert_int_eq(((unsigned char *)p[i])[63], 0);
		memset(p[i], 0xa5, 64);		/* dirty it for the next zeroed reuse */
		if (!each)
			each = mem_cgroup_usage(g1);
		if (charges())
			ck_assert_ptr_eq(mem_cgroup_from_obj(p[i]), alternate_group(i, g1, g2));
	}
	if (charges())
		ck_assert_uint_ge(each, 64 + PTR_SIZE);
	ck_assert_uint_eq(mem_cgroup_usage(g1), 200 * each);
	ck_assert_uint_eq(mem_cgroup_usage(g2), 200 * each);
	set_active_memcg(g2);
	for (i = 0; i < 600; i += 2)	/* half of each group's, the other group active */
		kmem_cache_free(s, p[i]);
	ck_assert_uint_eq(mem_cgroup_usage(g1), 100 * each);
	ck_assert_uint_eq(mem_cgroup_usage(g2), 100 * each);
	set_active_memcg(g1);
	for (i = 599; i >= 1; i -= 2)
		kmem_cache_free(s, p[i]);
	ck_assert_uint_eq(mem_cgroup_usage(g1), 0);
	ck_assert_uint_eq(mem_cgroup_usage(g2), 0);
	set_active_memcg(NULL);
	mem_cgroup_drain_stocks();
	ck_assert_uint_eq(stats_of(g1).charged, 0);
	ck_assert_uint_eq(stats_of(g2).charged, 0);
	kmem_cache_destroy(s);
	ck_assert_int_eq(mem_cgroup_destroy(g1), 0);
	ck_assert_int_eq(mem_cgroup_destroy(g2), 0);
}
END_TEST

START_TEST(bulk_alloc_and_free_balance)
{
	struct mem_cgroup *g = create_or_fail("memcg_bulk", MEM_CGROUP_NO_LIMIT);
	struct kmem_cache *s = kmem_cache_create("memcg_bulk_cache", 96, 0, SLAB_ACCOUNT, NULL);
	void *p[500], *k[64];
	unsigned long each;
	int i;

	ck_assert_ptr_nonnull(s);
	set_active_memcg(g);
	ck_assert_int_eq(kmem_cache_alloc_bulk(s, GFP_KERNEL, 500, p), 500);
	each = mem_cgroup_usage(g) / 500;
	ck_assert_uint_eq(mem_cgroup_usage(g), 500 * each);
	if (charges()) {
		ck_assert_uint_ge(each, 96 + PTR_SIZE);
		ck_assert_uint_eq(stats_of(g).objects, 500);
	}
	kmem_cache_free_bulk(s, 250, p);
	ck_assert_uint_eq(mem_cgroup_usage(g), 250 * each);
	kmem_cache_free_bulk(s, 250, p + 250);
	ck_assert_uint_eq(mem_cgroup_usage(g), 0);
	for (i = 0; i < 64; i++)
		k[i] = kmalloc(16 + 24 * (size_t)i, GFP_KERNEL_ACCOUNT);
	kfree_bulk(64, k);
	ck_assert_uint_eq(mem_cgroup_usage(g), 0);
	set_active_memcg(NULL);
	kmem_cache_destroy(s);
	ck_assert_int_eq(mem_cgroup_destroy(g), 0);
}
END_TEST

START_TEST(large_kmalloc_and_krealloc_are_charged)
{
	struct mem_cgroup *g = create_or_fail("memcg_large", MEM_CGROUP_NO_LIMIT);
	struct uslab_mem_cgroup_stats st;
	unsigned long expect;
	void *p, *q;

	set_active_memcg(g);
	p = kmalloc(40000, GFP_KERNEL_ACCOUNT);
	ck_assert_ptr_nonnull(p);
	st = stats_of(g);
	/* SLUB: a large kmalloc, charged by pages; SLAB: a kmalloc-cg cache */
	expect = st.kmem_folios ? ksize(p) : charge_of(40000);
	ck_assert_uint_eq(st.usage, expect);
	if (allocator_is("slub")) {
		ck_assert_uint_eq(st.kmem_folios, 1);
		ck_assert_uint_eq(st.kmem_bytes, ksize(p));
	}
	if (charges())
		ck_assert_ptr_eq(mem_cgroup_from_obj(p), g);
	/* krealloc moves the charge with the object */
	q = kmalloc(100, GFP_KERNEL_ACCOUNT);
	ck_assert_ptr_nonnull(q);
	q = krealloc(q, 3000, GFP_KERNEL_ACCOUNT);
	ck_assert_ptr_nonnull(q);
	ck_assert_uint_eq(mem_cgroup_usage(g), expect + charge_of(3000));
	kfree(p);
	kfree(q);
	ck_assert_uint_eq(mem_cgroup_usage(g), 0);
	ck_assert_uint_eq(stats_of(g).kmem_folios, 0);
	set_active_memcg(NULL);
	ck_assert_int_eq(mem_cgroup_destroy(g), 0);
}
END_TEST

struct free_job {
	void **p;
	int n;
	struct mem_cgroup *active;	/* what the freeing thread has active */
};

static void *free_elsewhere(void *arg)
{
	struct free_job *job = (struct free_job *)arg;
	int i;

	set_active_memcg(job->active);
	for (i = 0; i < job->n; i++)
		kfree(job->p[i]);
	set_active_memcg(NULL);
	return NULL;
}

START_TEST(a_free_by_another_thread_uncharges_the_group_charged)
{
	struct mem_cgroup *a = create_or_fail("memcg_xa", MEM_CGROUP_NO_LIMIT);
	struct mem_cgroup *b = create_or_fail("memcg_xb", MEM_CGROUP_NO_LIMIT);
	struct free_job job;
	void *p[300], *other;
	pthread_t t;
	int i;

	set_active_memcg(a);
	for (i = 0; i < 300; i++)
		p[i] = kmalloc(200, GFP_KERNEL_ACCOUNT);
	set_active_memcg(b);
	other = kmalloc(8, GFP_KERNEL_ACCOUNT);
	ck_assert_uint_eq(mem_cgroup_usage(a), 300 * charge_of(200));
	job = (struct free_job){ p, 300, b };
	ck_assert_int_eq(pthread_create(&t, NULL, free_elsewhere, &job), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_uint_eq(mem_cgroup_usage(a), 0);
	ck_assert_uint_eq(mem_cgroup_usage(b), charge_of(8));
	kfree(other);
	ck_assert_uint_eq(mem_cgroup_usage(b), 0);
	set_active_memcg(NULL);
	ck_assert_int_eq(mem_cgroup_destroy(b), 0);
	ck_assert_int_eq(mem_cgroup_destroy(a), 0);
}
END_TEST

struct recharge_job {
	struct kmem_cache *s;		/* a plain cache */
	void *give;			/* an object of the main thread's slab, freed here */
	struct mem_cgroup *g;		/* the group the new object is charged to */
	void *got;			/* out: that object */
};

/* Free an object of another thread's slab (SLUB: into this thread's sheaf),
 * then allocate one charged (SLUB: from that sheaf, which attaches a vector
 * to the other thread's cpu slab behind its back). */
static void *recharge_elsewhere(void *arg)
{
	struct recharge_job *job = arg;

	kmem_cache_free(job->s, job->give);
	set_active_memcg(job->g);
	job->got = kmem_cache_alloc(job->s, GFP_KERNEL_ACCOUNT);
	set_active_memcg(NULL);
	return NULL;
}

/*
 * A thread's slab, which had no vector when it began to allocate from it,
 * gets one from another thread's charged allocation; the first thread's
 * frees and accounted allocations there must still find it (SLUB caches
 * the cpu slab's vector per CPU, and may not trust an empty cache).
 */
START_TEST(a_vector_attached_by_another_thread_is_found)
{
	struct mem_cgroup *g = create_or_fail("memcg_attach", MEM_CGROUP_NO_LIMIT);
	struct kmem_cache *s = kmem_cache_create("memcg_attach_cache", 96, 0, 0, NULL);
	struct recharge_job job;
	void *o[8], *mine;
	unsigned long each;
	pthread_t t;
	int i;

	ck_assert_ptr_nonnull(s);
	for (i = 0; i < 8; i++) {	/* uncharged: the slab gets no vector */
		o[i] = kmem_cache_alloc(s, GFP_KERNEL);
		ck_assert_ptr_nonnull(o[i]);
	}
	job = (struct recharge_job){ s, o[3], g, NULL };
	ck_assert_int_eq(pthread_create(&t, NULL, recharge_elsewhere, &job), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_ptr_nonnull(job.got);
	each = mem_cgroup_usage(g);
	if (charges()) {
		ck_assert_uint_ge(each, 96 + PTR_SIZE);
		ck_assert_ptr_eq(mem_cgroup_from_obj(job.got), g);
	}
	kmem_cache_free(s, job.got);	/* freed by this thread, uncharged all the same */
	ck_assert_uint_eq(mem_cgroup_usage(g), 0);
	set_active_memcg(g);
	mine = kmem_cache_alloc(s, GFP_KERNEL_ACCOUNT);	/* this thread charges there too */
	ck_assert_ptr_nonnull(mine);
	ck_assert_uint_eq(mem_cgroup_usage(g), each);
	set_active_memcg(NULL);
	kmem_cache_free(s, mine);
	ck_assert_uint_eq(mem_cgroup_usage(g), 0);
	for (i = 0; i < 8; i++)
		if (i != 3)
			kmem_cache_free(s, o[i]);
	ck_assert_uint_eq(mem_cgroup_usage(g), 0);
	mem_cgroup_drain_stocks();
	ck_assert_uint_eq(stats_of(g).charged, 0);
	kmem_cache_destroy(s);
	ck_assert_int_eq(mem_cgroup_destroy(g), 0);
}
END_TEST

START_TEST(destroy_reparents_live_objects_to_the_root)
{
	struct mem_cgroup *g = create_or_fail("memcg_reparent", MEM_CGROUP_NO_LIMIT);
	unsigned long root_before = mem_cgroup_usage(root_mem_cgroup), charged;
	void *p[50];
	int i;

	set_active_memcg(g);
	for (i = 0; i < 50; i++)
		p[i] = kmalloc(512, GFP_KERNEL_ACCOUNT);
	set_active_memcg(NULL);
	charged = mem_cgroup_usage(g);
	ck_assert_uint_eq(charged, 50 * charge_of(512));
	ck_assert_int_eq(mem_cgroup_destroy(g), 0);
	/* the objects are intact and now belong to the root */
	for (i = 0; i < 50; i++)
		memset(p[i], i, 512);
	ck_assert_uint_eq(mem_cgroup_usage(root_mem_cgroup), root_before + charged);
	if (charges())
		ck_assert_ptr_eq(mem_cgroup_from_obj(p[3]), root_mem_cgroup);
	for (i = 0; i < 50; i++)
		kfree(p[i]);
	ck_assert_uint_eq(mem_cgroup_usage(root_mem_cgroup), root_before);
}
END_TEST

START_TEST(draining_the_stock_brings_the_counter_down_to_usage)
{
	struct mem_cgroup *g = create_or_fail("memcg_drain", MEM_CGROUP_NO_LIMIT);
	struct uslab_mem_cgroup_stats st;
	void *p[37];
	int i;

	set_active_memcg(g);
	for (i = 0; i < 37; i++)
		p[i] = kmalloc(96, GFP_KERNEL_ACCOUNT);
	for (i = 0; i < 30; i++)
		kfree(p[i]);
	st = stats_of(g);
	ck_assert_uint_ge(st.charged, st.usage);
	mem_cgroup_drain_stocks();
	st = stats_of(g);
	/* every page charged is used, but for the last one */
	ck_assert_uint_eq(st.charged, (st.usage + PAGE - 1) / PAGE * PAGE);
	ck_assert_uint_eq(st.usage, 7 * charge_of(96));
	for (i = 30; i < 37; i++)
		kfree(p[i]);
	mem_cgroup_drain_stocks();
	st = stats_of(g);
	ck_assert_uint_eq(st.usage, 0);
	ck_assert_uint_eq(st.charged, 0);
	ck_assert_uint_ge(st.max_usage, (charges() ? PAGE : 0));
	set_active_memcg(NULL);
	ck_assert_int_eq(mem_cgroup_destroy(g), 0);
}
END_TEST

/* ---------------- reports ---------------- */

struct report {
	char *buf;
	size_t len;
};

static void read_report(struct report *r, void (*show)(FILE *))
{
	FILE *f = open_memstream(&r->buf, &r->len);

	ck_assert_ptr_nonnull(f);
	show(f);
	ck_assert_int_eq(fclose(f), 0);
}

/* The row of group name, parsed: usage and objects. */
static int group_row(const char *text, const char *name, unsigned long *usage,
		     unsigned long *objs)
{
	char want[80], limit[32], line[512];
	unsigned long charged, max_usage, failcnt, bytes;
	const char *p;

	snprintf(want, sizeof(want), "\n%s ", name);
	p = strstr(text, want);
	if (!p)
		return 0;
	sscanf(p + 1, "%511[^\n]", line);
	return sscanf(line, "%*s %lu %lu %31s %lu %lu : objects %lu %lu", usage, &charged, limit,
		      &max_usage, &failcnt, objs, &bytes) == 7;
}

START_TEST(groups_show_in_a_slabinfo_like_report)
{
	struct mem_cgroup *g = create_or_fail("memcg_report", 1UL << 20);
	unsigned long usage = 0, objs = 0, n, size, bytes;
	struct report r;
	char row[128];
	void *p[40];
	const char *c;
	int i;

	set_active_memcg(g);
	for (i = 0; i < 40; i++)
		p[i] = kmalloc(64, GFP_KERNEL_ACCOUNT);
	read_report(&r, mem_cgroup_print_stats);
	ck_assert_msg(!strncmp(r.buf, "memcg slabinfo - version: 1.0\n# group", 37),
		      "header:\n%.300s", r.buf);
	ck_assert_msg(group_row(r.buf, "root", &usage, &objs), "no root row:\n%s", r.buf);
	ck_assert_msg(group_row(r.buf, "memcg_report", &usage, &objs), "no row:\n%s", r.buf);
	ck_assert_uint_eq(usage, mem_cgroup_usage(g));
	ck_assert_uint_eq(objs, (charges() ? 40 : 0));
	c = strstr(r.buf, "\nmemcg_report ");
	if (charges()) {
		c = strstr(c, "\n  kmalloc-cg-64 ");
		ck_assert_msg(c != NULL, "no cache row:\n%s", r.buf);
		ck_assert_int_eq(sscanf(c, " %127s %lu %lu %lu", row, &n, &size, &bytes), 4);
		ck_assert_uint_eq(n, 40);
		ck_assert_uint_eq(size, charge_of(64));
		ck_assert_uint_eq(bytes, 40 * size);
	}
	free(r.buf);
	for (i = 0; i < 40; i++)
		kfree(p[i]);
	set_active_memcg(NULL);
	ck_assert_int_eq(mem_cgroup_destroy(g), 0);
	read_report(&r, mem_cgroup_print_stats);
	ck_assert_msg(!group_row(r.buf, "memcg_report", &usage, &objs), "destroyed group shown");
	free(r.buf);
}
END_TEST

START_TEST(kmalloc_cg_caches_show_in_slabinfo)
{
	struct report r;
	void *p;

	p = kmalloc(100, GFP_KERNEL_ACCOUNT);
	read_report(&r, uslab_show_slabinfo);
	if (charges()) {
		ck_assert_msg(strstr(r.buf, "\nkmalloc-cg-128 "), "no kmalloc-cg-128:\n%s", r.buf);
		ck_assert_msg(strstr(r.buf, "\nkmalloc-cg-1k "), "no kmalloc-cg-1k:\n%s", r.buf);
		ck_assert_msg(strstr(r.buf, "\nkmalloc-128 "), "no kmalloc-128:\n%s", r.buf);
	} else {
		ck_assert_msg(!strstr(r.buf, "kmalloc-cg-"), "SLOB row:\n%s", r.buf);
	}
	free(r.buf);
	kfree(p);
}
END_TEST

/* ---- cgroup.memory=nokmem: no kmalloc-cg caches, nothing charged ---- */

static int scenario_nokmem(void)
{
	struct mem_cgroup *g = mem_cgroup_create("memcg_nokmem", MEM_CGROUP_NO_LIMIT);
	struct kmem_cache *s = kmem_cache_create("memcg_nokmem_cache", 64, 0, SLAB_ACCOUNT, NULL);
	struct report r = { NULL, 0 };
	FILE *f;
	void *p, *q;

	SCENARIO_CHECK(g && s);
	set_active_memcg(g);
	p = kmalloc(64, GFP_KERNEL_ACCOUNT);
	q = kmem_cache_alloc(s, GFP_KERNEL);
	SCENARIO_CHECK(p && q);
	SCENARIO_CHECK(mem_cgroup_usage(g) == 0);
	SCENARIO_CHECK(mem_cgroup_from_obj(p) == NULL);
	f = open_memstream(&r.buf, &r.len);	/* no ck_assert outside a test */
	SCENARIO_CHECK(f != NULL);
	uslab_show_slabinfo(f);
	SCENARIO_CHECK(fclose(f) == 0);
	SCENARIO_CHECK(strstr(r.buf, "kmalloc-cg-") == NULL);
	free(r.buf);
	kfree(p);
	kmem_cache_free(s, q);
	set_active_memcg(NULL);
	kmem_cache_destroy(s);
	SCENARIO_CHECK(mem_cgroup_destroy(g) == 0);
	return 0;
}

START_TEST(nokmem_option_turns_accounting_off)
{
	ck_assert_scenario("nokmem", "cgroup.memory=nokmem");
}
END_TEST

static const struct api_scenario scenarios[] = {
	{ "nokmem", scenario_nokmem },
};

static Suite *memcg_suite(void)
{
	Suite *s = suite_create("memcg");
	TCase *groups = tcase_create("groups");
	TCase *charging = tcase_create("charging");
	TCase *reports = tcase_create("reports");

	tcase_add_test(groups, create_and_destroy);
	tcase_add_test(groups, limits_round_down_to_pages_and_no_limit_is_max);
	tcase_add_test(groups, bad_names_are_refused_with_a_report);
	tcase_add_test(groups, duplicate_names_are_refused);
	tcase_add_test(groups, destroy_refuses_root_twice_and_garbage);
	tcase_add_test(groups, active_group_is_per_thread_and_blocks_destroy);
	tcase_add_test(groups, activating_a_dead_group_is_reported_and_ignored);
	tcase_add_test(groups, a_thread_that_exits_drops_its_active_group);
	tcase_add_test(charging, kmalloc_account_charges_each_object_exactly);
	tcase_add_test(charging, no_active_group_charges_nothing);
	tcase_add_test(charging, slab_account_cache_charges_without_the_gfp_flag);
	tcase_add_test(charging, gfp_account_on_a_plain_cache_charges_those_objects_only);
	tcase_add_test(charging, two_groups_and_none_alternate_on_one_cache);
	tcase_add_test(charging, bulk_alloc_and_free_balance);
	tcase_add_test(charging, large_kmalloc_and_krealloc_are_charged);
	tcase_add_test(charging, a_free_by_another_thread_uncharges_the_group_charged);
	tcase_add_test(charging, a_vector_attached_by_another_thread_is_found);
	tcase_add_test(charging, destroy_reparents_live_objects_to_the_root);
	tcase_add_test(charging, draining_the_stock_brings_the_counter_down_to_usage);
	tcase_add_test(reports, groups_show_in_a_slabinfo_like_report);
	tcase_add_test(reports, kmalloc_cg_caches_show_in_slabinfo);
	tcase_add_test(reports, nokmem_option_turns_accounting_off);
	suite_add_tcase(s, groups);
	suite_add_tcase(s, charging);
	suite_add_tcase(s, reports);
	return s;
}

API_TEST_MAIN(memcg_suite, scenarios)
