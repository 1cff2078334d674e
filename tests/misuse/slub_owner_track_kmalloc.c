/* SPDX-License-Identifier: MIT */
/*
 * slub_owner_track_kmalloc.c - owner tracks (U) name the right code on
 * every path of the fast-path functions that leads to a slow path which
 * records the caller: kmalloc, kzalloc (__GFP_ZERO), GFP_KERNEL_ACCOUNT
 * (kmalloc-cg-<n>), kmalloc with the kmalloc red zone (Z), kmalloc_node,
 * kmem_cache_alloc with __GFP_ZERO and of a SLAB_ACCOUNT cache, each freed
 * by kfree or kmem_cache_free in another function, then freed again.  The
 * report's "Allocated in" and "Freed in" lines must name those functions,
 * and the allocation stack their caller (owner_kmalloc_outer): the
 * exported functions read their return address only on the branch that
 * calls the slow path, and keep no frame of their own (slub_fastpath.h, the fast
 * paths), so this is what checks that the slow path still finds it.
 */
#include "slub_misuse.h"
#include "mm/memcontrol.h"

#if CONFIG_SLUB

#define EXPORTED	noinline __attribute__((visibility("default")))

enum owner_path {
	PATH_KMALLOC, PATH_KZALLOC, PATH_ACCOUNT, PATH_KMALLOC_NODE,
	PATH_CACHE_ZERO, PATH_CACHE_ACCOUNT,
};

/* One case: its options, how it allocates, the cache its report names. */
struct owner_case {
	const char *options;		/* USLAB_OPTIONS of the child */
	enum owner_path path;		/* the allocation's path */
	const char *bug;		/* the report's first line */
};

void *owner_kmalloc_alpha(const struct owner_case *oc, struct kmem_cache *s, size_t size);
void owner_kmalloc_beta(const struct owner_case *oc, struct kmem_cache *s, void *x);
void *owner_kmalloc_outer(const struct owner_case *oc, struct kmem_cache *s, size_t size);

static void *volatile sink;	/* keeps the calls from being tail calls */

EXPORTED void *owner_kmalloc_alpha(const struct owner_case *oc, struct kmem_cache *s,
				   size_t size)
{
	void *x = NULL;

	switch (oc->path) {
	case PATH_KMALLOC:
		x = __kmalloc(size, GFP_KERNEL);
		break;
	case PATH_KZALLOC:
		x = __kmalloc(size, GFP_KERNEL | __GFP_ZERO);
		break;
	case PATH_ACCOUNT:
		x = __kmalloc(size, GFP_KERNEL_ACCOUNT);
		break;
	case PATH_KMALLOC_NODE:
		x = __kmalloc_node(size, GFP_KERNEL, 0);
		break;
	case PATH_CACHE_ZERO:
		x = kmem_cache_alloc(s, GFP_KERNEL | __GFP_ZERO);
		break;
	case PATH_CACHE_ACCOUNT:
		x = kmem_cache_alloc(s, GFP_KERNEL);
		break;
	}
	sink = x;
	return x;
}

EXPORTED void owner_kmalloc_beta(const struct owner_case *oc, struct kmem_cache *s, void *x)
{
	if (oc->path == PATH_CACHE_ZERO || oc->path == PATH_CACHE_ACCOUNT)
		kmem_cache_free(s, x);
	else
		kfree(x);
	sink = NULL;
}

/* A caller one frame further out: the track's stack must name it too. */
EXPORTED void *owner_kmalloc_outer(const struct owner_case *oc, struct kmem_cache *s,
				   size_t size)
{
	void *x = owner_kmalloc_alpha(oc, s, size);

	sink = x;
	return x;
}

/* A size the compiler cannot see: the run-time kmalloc path. */
static size_t runtime(size_t n)
{
	volatile size_t v = n;

	return v;
}

static void alloc_free_free(void *arg)
{
	const struct owner_case *oc = arg;
	struct kmem_cache *s = NULL;
	struct mem_cgroup *g;
	void *x;

	if (parse_option_string(oc->options) != 0)
		child_fail(2, "options rejected");
	if (oc->path == PATH_CACHE_ZERO || oc->path == PATH_CACHE_ACCOUNT)
		s = kmem_cache_create("victim", OBJ_SIZE, 0,
				      oc->path == PATH_CACHE_ACCOUNT ? SLAB_ACCOUNT : 0, NULL);
	g = mem_cgroup_create("owner_kmalloc", USLAB_MEM_CGROUP_NO_LIMIT);
	if (!g || (!s && oc->path >= PATH_CACHE_ZERO))
		child_fail(2, "no group or cache");
	set_active_memcg(g);
	x = owner_kmalloc_outer(oc, s, runtime(OBJ_SIZE));
	if (!x)
		child_fail(2, "allocation failed");
	owner_kmalloc_beta(oc, s, x);
	owner_kmalloc_beta(oc, s, x);
}

static const struct owner_case cases[] = {
	{ "slub_debug=FU,kmalloc-64", PATH_KMALLOC, "BUG kmalloc-64 (Not tainted)" },
	{ "slub_debug=FU,kmalloc-64", PATH_KZALLOC, "BUG kmalloc-64 (Not tainted)" },
	{ "slub_debug=FU,kmalloc-cg-64", PATH_ACCOUNT, "BUG kmalloc-cg-64 (Not tainted)" },
	{ "slub_debug=FZU,kmalloc-64", PATH_KMALLOC, "BUG kmalloc-64 (Not tainted)" },
	{ "slub_debug=FZU,kmalloc-64", PATH_KZALLOC, "BUG kmalloc-64 (Not tainted)" },
	{ "slub_debug=FU,kmalloc-64", PATH_KMALLOC_NODE, "BUG kmalloc-64 (Not tainted)" },
	{ "slub_debug=FU,victim", PATH_CACHE_ZERO, "BUG victim (Not tainted)" },
	{ "slub_debug=FU,victim slab_nomerge", PATH_CACHE_ACCOUNT, "BUG victim (Not tainted)" },
};

START_TEST(test_tracks_name_the_owners)
{
	const struct owner_case *oc = &cases[_i];
	const char *const words[] = {
		oc->bug, "Object already free",
		"INFO: Allocated in owner_kmalloc_alpha+0x",
		"INFO: Freed in owner_kmalloc_beta+0x",
		"\towner_kmalloc_alpha+0x", "\towner_kmalloc_outer+0x", NULL
	};
	static char out[REPORT_MAX];
	char how[32];
	int end;
	unsigned int i;

	end = run_expect_abort(alloc_free_free, (void *)oc, out, sizeof(out));
	ck_assert_msg(end == SIGABRT, "case %d (%s): expected SIGABRT, got %s; stderr:\n%s", _i,
		      oc->options, uslab_test_describe_end(end, how, sizeof(how)), out);
	for (i = 0; words[i]; i++)
		ck_assert_msg(strstr(out, words[i]), "case %d (%s): no \"%s\"; stderr:\n%s", _i,
			      oc->options, words[i], out);
}
END_TEST

static Suite *slub_owner_track_kmalloc_suite(void)
{
	Suite *s = suite_create("slub_owner_track_kmalloc");
	TCase *tc = tcase_create("misuse");

	tcase_add_loop_test(tc, test_tracks_name_the_owners, 0, (int)ARRAY_SIZE(cases));
	suite_add_tcase(s, tc);
	return s;
}

USLAB_TEST_MAIN(slub_owner_track_kmalloc_suite)

#else

int main(void)
{
	uslab_test_skip("SLUB's owner tracks");
}

#endif
