/* SPDX-License-Identifier: MIT */
/*
 * prog.c - a user of the installed uslab, built by tests/install/run.sh with
 * pkg-config and with CMake.  usage: prog ALLOCATOR
 * Uses the kernel-name API of <uslab/slab.h>: a cache, objects written and
 * read back, kmalloc; checks that it runs on the allocator it was linked with.
 */
#include <stdio.h>
#include <string.h>
#include <uslab/slab.h>

struct item {
	unsigned long id;	/* which object this is */
	char name[40];		/* text written and read back */
};

#define NR_ITEMS 1000

static int fail(const char *what)
{
	fprintf(stderr, "prog: %s\n", what);
	return 1;
}

static int use_cache(void)
{
	static struct item *items[NR_ITEMS];
	struct kmem_cache *cache = KMEM_CACHE(item, SLAB_HWCACHE_ALIGN);
	unsigned long i;

	if (!cache)
		return fail("kmem_cache_create failed");
	for (i = 0; i < NR_ITEMS; i++) {
		items[i] = kmem_cache_alloc(cache, GFP_KERNEL);
		if (!items[i])
			return fail("kmem_cache_alloc failed");
		items[i]->id = i;
		snprintf(items[i]->name, sizeof(items[i]->name), "item %lu", i);
	}
	for (i = 0; i < NR_ITEMS; i++) {
		char want[40];

		snprintf(want, sizeof(want), "item %lu", i);
		if (items[i]->id != i || strcmp(items[i]->name, want) != 0)
			return fail("an object changed under us");
		kmem_cache_free(cache, items[i]);
	}
	kmem_cache_destroy(cache);
	return 0;
}

static int use_kmalloc(void)
{
	char *s = kmalloc(100, GFP_KERNEL);
	char *d;

	if (!s || ksize(s) < 100)
		return fail("kmalloc(100) failed or is too small");
	strcpy(s, "hello from kmalloc");
	d = kstrdup(s, GFP_KERNEL);
	if (!d || strcmp(d, s) != 0)
		return fail("kstrdup gave something else");
	kfree(d);
	kfree(s);
	return 0;
}

int main(int argc, char **argv)
{
	const char *alloc = uslab_allocator_name();

	if (argc != 2)
		return fail("usage: prog ALLOCATOR");
	if (strcmp(alloc, argv[1]) != 0) {
		fprintf(stderr, "prog: linked with %s, expected %s\n", alloc, argv[1]);
		return 1;
	}
	if (use_cache() || use_kmalloc())
		return 1;
	printf("ok %s\n", alloc);
	return 0;
}
