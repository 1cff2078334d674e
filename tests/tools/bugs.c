/* SPDX-License-Identifier: MIT */
/*
 * bugs.c - one memory bug per run, for tests/tools/run.sh to check that
 * valgrind's memcheck (and ASan, for the first four) reports it.
 *
 * usage: bugs CASE, CASE one of
 *   cache-read-after-free   read an object of a kmem_cache after freeing it
 *   cache-write-after-free  write to it after freeing it
 *   kmalloc-read-after-free read a kmalloc(48) object after kfree
 *   kmalloc-read-past-end   read byte 13 of a kmalloc(13) object (the slot
 *                           is larger: only a tool that knows the size sees it)
 *   kmalloc-uninit          branch on a byte of a fresh kmalloc(32) object
 *   kmalloc-leak            drop the only pointer to a kmalloc(100) object
 *
 * Each bug sits in a noinline function with a distinctive name, and so do
 * the allocation and the free, so that the driver can check that the tool
 * names them in its stacks.  Without a tool the program runs to the end,
 * prints "bugs: CASE done" and exits 0 (the bugs stay inside uslab's slots,
 * which are still mapped); the driver checks that the tool changed that.
 */
#include <stdio.h>
#include <string.h>
#include <uslab/slab.h>

#define noinline __attribute__((noinline))

struct victim {
	long words[8];		/* 64 bytes the program owns while allocated */
};

static struct kmem_cache *victim_cache;
static volatile long sink;	/* read results go here, so reads are kept */
static void *volatile keep;	/* the pointer a case keeps, or drops */

static noinline struct victim *bugs_alloc_victim(void)
{
	struct victim *v = kmem_cache_alloc(victim_cache, GFP_KERNEL);

	memset(v, 1, sizeof(*v));
	return v;
}

static noinline void bugs_free_victim(struct victim *v)
{
	kmem_cache_free(victim_cache, v);
}

static noinline void bugs_read_freed_victim(struct victim *v)
{
	sink = v->words[3];
}

static noinline void bugs_write_freed_victim(struct victim *v)
{
	v->words[5] = 42;
}

static noinline char *bugs_kmalloc(size_t size)
{
	return kmalloc(size, GFP_KERNEL);
}

static noinline void bugs_kfree(void *p)
{
	kfree(p);
}

static noinline void bugs_read_byte(const char *p, size_t i)
{
	sink = ((const volatile char *)p)[i];
}

static noinline int bugs_branch_on_uninit(const char *p)
{
	if (p[7] == 'x')	/* p[7] was never written */
		return 1;
	return 0;
}

/* The only pointer to a kmalloc object is dropped here. */
static noinline void bugs_leak_kmalloc(void)
{
	keep = bugs_kmalloc(100);
	memset(keep, 3, 100);
	keep = NULL;
}

static void cache_after_free(int write)
{
	struct victim *v;

	victim_cache = KMEM_CACHE(victim, 0);
	v = bugs_alloc_victim();
	bugs_free_victim(v);
	if (write)
		bugs_write_freed_victim(v);
	else
		bugs_read_freed_victim(v);
}

static void kmalloc_after_free(void)
{
	char *p = bugs_kmalloc(48);

	memset(p, 2, 48);
	bugs_kfree(p);
	bugs_read_byte(p, 40);
}

static void kmalloc_past_end(void)
{
	char *p = bugs_kmalloc(13);

	memset(p, 4, 13);
	bugs_read_byte(p, 13);
	bugs_kfree(p);
}

static void kmalloc_uninit(void)
{
	char *p = bugs_kmalloc(32);

	sink = bugs_branch_on_uninit(p);
	bugs_kfree(p);
}

int main(int argc, char **argv)
{
	const char *c = argc == 2 ? argv[1] : "";

	if (!strcmp(c, "cache-read-after-free"))
		cache_after_free(0);
	else if (!strcmp(c, "cache-write-after-free"))
		cache_after_free(1);
	else if (!strcmp(c, "kmalloc-read-after-free"))
		kmalloc_after_free();
	else if (!strcmp(c, "kmalloc-read-past-end"))
		kmalloc_past_end();
	else if (!strcmp(c, "kmalloc-uninit"))
		kmalloc_uninit();
	else if (!strcmp(c, "kmalloc-leak"))
		bugs_leak_kmalloc();
	else {
		fprintf(stderr, "usage: bugs cache-read-after-free|cache-write-after-free|"
			"kmalloc-read-after-free|kmalloc-read-past-end|kmalloc-uninit|kmalloc-leak\n");
		return 2;
	}
	printf("bugs: %s done\n", c);
	return 0;
}
