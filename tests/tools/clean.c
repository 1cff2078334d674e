/* SPDX-License-Identifier: MIT */
/*
 * clean.c - a correct program that uses the object caches and kmalloc
 * heavily, for tests/tools/run.sh: under valgrind's memcheck, and built with
 * -fsanitize=address, it must run without a single report (no false error,
 * no false leak).
 *
 * What it does, with small counts (valgrind runs it ~50x slower):
 *   - caches of several sizes, one with a constructor and one hardware-cache
 *     aligned: objects allocated, every byte written and read back, freed
 *     in a shuffled order, enough of them to fill and empty several slabs;
 *   - bulk allocation and freeing;
 *   - kmalloc of every size class, kzalloc (read back as zero), kmalloc_large
 *     sizes, kstrdup/kmemdup, krealloc growing and shrinking,
 *     kfree_sensitive;
 *   - a second thread that frees objects the main thread allocated;
 *   - kmem_cache_destroy of every cache; everything freed before exit.
 * Prints "clean: ok" and exits 0; a wrong value read back exits 1.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uslab/slab.h>

#define NR_OBJS		300	/* per cache: several slabs of every size */
#define NR_REMOTE	200	/* objects freed by the second thread */

static unsigned int rng = 12345;

static unsigned int next_rand(void)
{
	rng = rng * 1103515245u + 12345u;
	return rng >> 8;
}

static void die(const char *what)
{
	fprintf(stderr, "clean: %s\n", what);
	exit(1);
}

static void shuffle(void **p, unsigned int n)
{
	for (unsigned int i = n - 1; i > 0; i--) {
		unsigned int j = next_rand() % (i + 1);
		void *t = p[i];

		p[i] = p[j];
		p[j] = t;
	}
}

/* Write a pattern over all of [p, p + size), then check it. */
static void fill_check(void *p, size_t size, unsigned char seed)
{
	unsigned char *b = p;

	for (size_t i = 0; i < size; i++)
		b[i] = (unsigned char)(seed + i);
	for (size_t i = 0; i < size; i++)
		if (b[i] != (unsigned char)(seed + i))
			die("an object did not keep what was written");
}

static void ctor_stamp(void *obj)
{
	memset(obj, 0x5c, 48);
}

/* A constructed object is handed out as the constructor left it. */
static void check_ctor(const unsigned char *obj)
{
	for (int i = 0; i < 48; i++)
		if (obj[i] != 0x5c)
			die("a constructed object lost its constructor's pattern");
}

static void use_cache(const char *name, unsigned int size, slab_flags_t flags, void (*ctor)(void *))
{
	static void *objs[NR_OBJS];
	struct kmem_cache *s = kmem_cache_create(name, size, 0, flags, ctor);

	if (!s)
		die("kmem_cache_create failed");
	for (int round = 0; round < 2; round++) {
		for (unsigned int i = 0; i < NR_OBJS; i++) {
			objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
			if (!objs[i])
				die("kmem_cache_alloc failed");
			if (ctor)
				check_ctor(objs[i]);
			fill_check(objs[i], size, (unsigned char)i);
			if (ctor)
				memset(objs[i], 0x5c, 48);	/* a ctor's state is restored before free */
		}
		shuffle(objs, NR_OBJS);
		for (unsigned int i = 0; i < NR_OBJS; i++)
			kmem_cache_free(s, objs[i]);
	}
	kmem_cache_destroy(s);
}

static void use_bulk(void)
{
	static void *objs[64];
	struct kmem_cache *s = kmem_cache_create("tools_bulk", 96, 0, 0, NULL);

	if (!s)
		die("kmem_cache_create failed");
	for (int round = 0; round < 4; round++) {
		if (kmem_cache_alloc_bulk(s, GFP_KERNEL, 64, objs) != 64)
			die("kmem_cache_alloc_bulk failed");
		for (int i = 0; i < 64; i++)
			fill_check(objs[i], 96, (unsigned char)(i + round));
		kmem_cache_free_bulk(s, 64, objs);
	}
	kmem_cache_destroy(s);
}

static void use_kmalloc_sizes(void)
{
	static void *objs[NR_OBJS];

	for (unsigned int i = 0; i < NR_OBJS; i++) {
		size_t size = 1 + next_rand() % (i % 10 == 0 ? 9000 : 600);

		objs[i] = kmalloc(size, GFP_KERNEL);
		if (!objs[i])
			die("kmalloc failed");
		fill_check(objs[i], size, (unsigned char)i);
	}
	shuffle(objs, NR_OBJS);
	for (unsigned int i = 0; i < NR_OBJS; i++)
		kfree(objs[i]);
}

static void use_kzalloc(void)
{
	for (size_t size = 8; size <= 3 * 4096 * 4; size *= 3) {
		unsigned char *p = kzalloc(size, GFP_KERNEL);

		if (!p)
			die("kzalloc failed");
		for (size_t i = 0; i < size; i++)
			if (p[i])
				die("kzalloc memory is not zero");
		fill_check(p, size, 7);
		kfree(p);
	}
}

static void use_helpers(void)
{
	char *s = kstrdup("a string for kstrdup", GFP_KERNEL);
	char *m = kmemdup("0123456789abcdef", 16, GFP_KERNEL);
	char *r = kmalloc(20, GFP_KERNEL);

	if (!s || !m || !r || strcmp(s, "a string for kstrdup") || memcmp(m, "0123456789abcdef", 16))
		die("kstrdup/kmemdup/kmalloc failed");
	memcpy(r, "twenty bytes of text", 20);
	for (size_t n = 24; n <= 20000; n = n * 5 / 2) {
		r = krealloc(r, n, GFP_KERNEL);
		if (!r || memcmp(r, "twenty bytes of text", 20))
			die("krealloc lost the contents");
		memset(r + 20, 'x', n - 20);
	}
	r = krealloc(r, 20, GFP_KERNEL);
	if (!r || memcmp(r, "twenty bytes of text", 20))
		die("krealloc (shrinking) lost the contents");
	kfree(s);
	kfree(m);
	kfree_sensitive(r);
}

static void *remote_free(void *arg)
{
	void **objs = arg;

	for (int i = 0; i < NR_REMOTE; i++)
		kfree(objs[i]);
	return NULL;
}

/* Objects allocated here, freed by another thread. */
static void use_threads(void)
{
	static void *objs[NR_REMOTE];
	pthread_t t;

	for (int i = 0; i < NR_REMOTE; i++) {
		objs[i] = kmalloc(64 + (i % 3) * 64, GFP_KERNEL);
		if (!objs[i])
			die("kmalloc failed");
		fill_check(objs[i], 64, (unsigned char)i);
	}
	if (pthread_create(&t, NULL, remote_free, objs) || pthread_join(t, NULL))
		die("pthread_create/join failed");
}

int main(void)
{
	use_cache("tools_small", 24, 0, NULL);
	use_cache("tools_ctor", 200, 0, ctor_stamp);
	use_cache("tools_aligned", 72, SLAB_HWCACHE_ALIGN, NULL);
	use_cache("tools_big", 1500, 0, NULL);
	use_bulk();
	use_kmalloc_sizes();
	use_kzalloc();
	use_helpers();
	use_threads();
	printf("clean: ok\n");
	return 0;
}
