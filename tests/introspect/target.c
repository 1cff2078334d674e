// SPDX-License-Identifier: MIT
/*
 * target.c - the process that tests/introspect/run.sh looks at from
 * outside.  Linked with libuslab-ALLOC.a; it does what the driver writes
 * on its stdin, one command per line, and answers each with one line on
 * stdout ("ok ...", or "error ..."), so that the driver knows when the
 * process is idle and its counts are settled:
 *
 *   create NAME SIZE COUNT [ctor]  a cache (a constructor makes it
 *                                  unmergeable), then COUNT objects of it
 *   alloc NAME COUNT               COUNT more objects of cache NAME
 *   free NAME [COUNT]              free COUNT (default all) of its objects
 *   slabinfo PATH                  uslab_show_slabinfo() into PATH
 *   buddyinfo PATH                 uslab_show_buddyinfo() into PATH
 *   fork NAME COUNT                fork a child that creates cache NAME with
 *                                  COUNT objects, prints "child PID" and
 *                                  waits (the driver kills it)
 *   quit                           exit(0) (the destructor removes the area)
 *
 * At start it creates one cache, so that the library (and its statistics
 * service) is up, and prints "ready PID".
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uslab/slab.h>

#define MAX_CACHES	32

struct test_cache {
	char name[64];			/* cache name */
	struct kmem_cache *s;		/* the cache */
	void **objs;			/* its live objects */
	unsigned long nr, cap;		/* live objects, room in objs */
};

static struct test_cache caches[MAX_CACHES];

static void ctor(void *p)
{
	memset(p, 0x5a, 8);
}

static struct test_cache *find(const char *name)
{
	int i;

	for (i = 0; i < MAX_CACHES; i++)
		if (caches[i].s && !strcmp(caches[i].name, name))
			return &caches[i];
	return NULL;
}

static int alloc_objs(struct test_cache *c, unsigned long count)
{
	void *p;

	while (count--) {
		if (c->nr == c->cap) {
			c->cap = c->cap ? 2 * c->cap : 64;
			c->objs = realloc(c->objs, c->cap * sizeof(void *));
			if (!c->objs)
				return -1;
		}
		p = kmem_cache_alloc(c->s, GFP_KERNEL);
		if (!p)
			return -1;
		c->objs[c->nr++] = p;
	}
	return 0;
}

static int create(const char *name, unsigned int size, unsigned long count, const char *opt)
{
	struct test_cache *c;
	int i;

	for (i = 0; i < MAX_CACHES && caches[i].s; i++)
		;
	if (i == MAX_CACHES || strlen(name) >= sizeof(caches[i].name))
		return -1;
	c = &caches[i];
	c->s = kmem_cache_create(name, size, 0, 0, opt && !strcmp(opt, "ctor") ? ctor : NULL);
	if (!c->s)
		return -1;
	strcpy(c->name, name);
	return alloc_objs(c, count);
}

static void free_objs(struct test_cache *c, unsigned long count)
{
	while (count-- && c->nr)
		kmem_cache_free(c->s, c->objs[--c->nr]);
}

static int show(const char *path, void (*fn)(FILE *))
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fn(f);
	return fclose(f);
}

static void child(const char *name, unsigned long count)
{
	if (create(name, 128, count, NULL))
		_exit(1);
	printf("child %d\n", (int)getpid());
	fflush(stdout);
	for (;;)
		pause();
}

static int do_fork(const char *name, unsigned long count)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		child(name, count);
	return 0;
}

/* One command line; 0 on success. */
static int command(char *line)
{
	char cmd[32] = "", name[256] = "", opt[32] = "";
	unsigned long a = 0, b = 0;
	struct test_cache *c;
	int n = sscanf(line, "%31s %255s %lu %lu %31s", cmd, name, &a, &b, opt);

	if (!strcmp(cmd, "create") && n >= 4)
		return create(name, (unsigned int)a, b, n == 5 ? opt : NULL);
	if (!strcmp(cmd, "alloc") && n == 3 && (c = find(name)))
		return alloc_objs(c, a);
	if (!strcmp(cmd, "free") && n >= 2 && (c = find(name))) {
		free_objs(c, n == 3 ? a : c->nr);
		return 0;
	}
	if (!strcmp(cmd, "slabinfo") && n == 2)
		return show(name, uslab_show_slabinfo);
	if (!strcmp(cmd, "buddyinfo") && n == 2)
		return show(name, uslab_show_buddyinfo);
	if (!strcmp(cmd, "fork") && n == 3)
		return do_fork(name, a);
	if (!strcmp(cmd, "quit"))
		exit(0);
	return -1;
}

int main(void)
{
	char line[512];

	if (create("introspect_boot", 64, 1, NULL)) {
		printf("error cannot create the first cache\n");
		return 1;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (command(line))
			printf("error %s\n", line);
		else
			printf("ok %s\n", line);
		fflush(stdout);
	}
	return 0;
}
