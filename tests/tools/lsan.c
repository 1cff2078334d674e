/* SPDX-License-Identifier: MIT */
/*
 * lsan.c - LeakSanitizer and uslab's arena, for tests/tools/run.sh (built
 * with -fsanitize=address, linked with a uslab built without it).
 *
 * usage: lsan root|leak
 *   root  the only pointer to a block of the C library's malloc (55 bytes)
 *         is kept inside a uslab object; LSan must not report it, because
 *         uslab registers its arena as a root region.
 *   leak  the same, and also a 77-byte malloc block whose only pointer is
 *         dropped: LSan must report exactly that one leak (77 bytes in 1
 *         allocation), allocated in lsan_lose_block.
 * Every pointer is made and dropped in noinline functions, and the stack
 * they used is overwritten, so that only the arena can still hold one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uslab/slab.h>

#define noinline __attribute__((noinline))

struct holder {
	void *block;		/* the only pointer to a malloc block */
	char tag[24];		/* something else the object holds */
};

static void *volatile dropped;	/* where the leaked pointer briefly lives */

/* The holder object is found through no pointer either: the whole arena is
 * a root, so the block it points to is still reachable. */
static noinline void lsan_hide_block(void)
{
	struct kmem_cache *s = KMEM_CACHE(holder, 0);
	struct holder *h = s ? kmem_cache_alloc(s, GFP_KERNEL) : NULL;

	if (!h) {
		fprintf(stderr, "lsan: kmem_cache_create/alloc failed\n");
		exit(1);
	}
	h->block = malloc(55);
	memset(h->block, 5, 55);
	strcpy(h->tag, "holds a malloc block");
}

static noinline void lsan_lose_block(void)
{
	dropped = malloc(77);
	memset(dropped, 7, 77);
	dropped = NULL;
}

/* Overwrite the stack the functions above used. */
static noinline void lsan_scrub_stack(void)
{
	volatile char junk[4096];

	memset((char *)junk, 0, sizeof(junk));
}

int main(int argc, char **argv)
{
	int leak = argc == 2 && !strcmp(argv[1], "leak");

	if (argc != 2 || (!leak && strcmp(argv[1], "root"))) {
		fprintf(stderr, "usage: lsan root|leak\n");
		return 2;
	}
	lsan_hide_block();
	if (leak)
		lsan_lose_block();
	lsan_scrub_stack();
	printf("lsan: %s done\n", argv[1]);
	return 0;
}
