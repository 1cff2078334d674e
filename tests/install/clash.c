/* SPDX-License-Identifier: MIT */
/*
 * clash.c - a program with its own functions and variables named like the
 * kernel's (and so like uslab's internals), linked with libuslab-slub.a.
 * The static library made its kernel-named symbols local, so this links and
 * each call reaches the right function.  Prints "ok" and the option report
 * the library wrote (tests/install/run.sh checks it).
 */
#include <stdio.h>
#include <string.h>
#include <uslab/uslab.h>

static int own_calls;

/* The program's own, unrelated, definitions of kernel names. */
int memmap = 42;
int slab_caches = 7;
int mm_initialized = 3;

struct page *alloc_pages(unsigned int gfp, unsigned int order)
{
	own_calls += 1 + (int)(gfp + order);
	return NULL;
}

void kfree(const void *p)
{
	own_calls += p ? 10 : 100;
}

void *__kmalloc(size_t size, unsigned int gfp)
{
	own_calls += 1000 + (int)(size + gfp);
	return NULL;
}

void *kmem_cache_alloc(void *cache, unsigned int gfp)
{
	own_calls += 10000 + (cache ? 1 : 0) + (int)gfp;
	return NULL;
}

int main(void)
{
	char *p = uslab___kmalloc(64, USLAB_GFP_KERNEL);

	if (!p) {
		fprintf(stderr, "clash: uslab___kmalloc failed\n");
		return 1;
	}
	strcpy(p, "uslab");
	alloc_pages(0, 0);
	kfree(p);
	__kmalloc(0, 0);
	kmem_cache_alloc(NULL, 0);
	if (own_calls != 11011 || memmap != 42 || slab_caches != 7 || mm_initialized != 3 ||
	    strcmp(p, "uslab") != 0) {
		fprintf(stderr, "clash: own_calls=%d memmap=%d: a call reached the wrong function\n",
			own_calls, memmap);
		return 1;
	}
	uslab_kfree(p);
	printf("ok %s\n", uslab_allocator_name());
	return 0;
}
