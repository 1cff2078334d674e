/* SPDX-License-Identifier: MIT */
/*
 * init_race.c - the library initialises itself exactly once even when its
 * first users are several threads at the same moment: every cache exists
 * once (one "kmem_cache" row, one row per kmalloc cache), and every thread
 * gets working memory and caches.  Runs in a fresh process each time (a
 * scenario), since only a library nobody has touched yet can race.
 */
/* uslab-test: threaded */
#include "api.h"
#include <pthread.h>

#define NTHREADS	8
#define ROUNDS		5

static pthread_barrier_t start;

/* Each thread's first call differs, so every entry point races the init. */
static void *first_use(void *arg)
{
	long id = (long)arg;
	struct kmem_cache *s;
	char name[32];
	void *p[4];
	int i;

	pthread_barrier_wait(&start);
	switch (id % 4) {
	case 0: p[0] = kmalloc(64, GFP_KERNEL); break;
	case 1: p[0] = kmalloc(id * 100 + 1, GFP_KERNEL); break;
	case 2: p[0] = kvmalloc(5000, GFP_KERNEL); break;
	default: p[0] = kstrdup("first", GFP_KERNEL); break;
	}
	snprintf(name, sizeof(name), "race_%ld", id);
	s = kmem_cache_create(name, 40 + (unsigned int)id * 8, 0, 0, NULL);
	if (!p[0] || !s)
		return (void *)1;
	for (i = 1; i < 4; i++)
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
	for (i = 1; i < 4; i++)
		if (!p[i])
			return (void *)1;
	for (i = 1; i < 4; i++)
		kmem_cache_free(s, p[i]);
	kvfree(p[0]);
	kmem_cache_destroy(s);
	return NULL;
}

/* Occurrences of a row named name in the slabinfo text. */
static int rows_named(const char *text, const char *name)
{
	const char *line;
	size_t n = strlen(name);
	int count = 0;

	for (line = text; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (strncmp(line, name, n) == 0 && line[n] == ' ')
			count++;
	return count;
}

static int scenario_race(void)
{
	pthread_t t[NTHREADS];
	char *text = NULL;
	size_t len = 0;
	void *ret;
	FILE *f;
	long i;

	SCENARIO_CHECK(pthread_barrier_init(&start, NULL, NTHREADS) == 0);
	for (i = 0; i < NTHREADS; i++)
		SCENARIO_CHECK(pthread_create(&t[i], NULL, first_use, (void *)i) == 0);
	for (i = 0; i < NTHREADS; i++) {
		SCENARIO_CHECK(pthread_join(t[i], &ret) == 0);
		SCENARIO_CHECK(ret == NULL);
	}
	f = open_memstream(&text, &len);
	SCENARIO_CHECK(f != NULL);
	uslab_show_slabinfo(f);
	fclose(f);
	SCENARIO_CHECK(rows_named(text, "kmem_cache") == 1);
	if (!allocator_is("slob")) {
		SCENARIO_CHECK(rows_named(text, "kmalloc-64") == 1);
		SCENARIO_CHECK(rows_named(text, "kmalloc-rcl-1k") == 1);
	}
	free(text);
	return 0;
}

START_TEST(concurrent_first_use_initialises_once)
{
	int round;

	for (round = 0; round < ROUNDS; round++)
		ck_assert_scenario("race", NULL);
}
END_TEST

static const struct api_scenario scenarios[] = {
	{ "race", scenario_race },
};

static Suite *init_race_suite(void)
{
	Suite *s = suite_create("init_race");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, concurrent_first_use_initialises_once);
	suite_add_tcase(s, tc);
	return s;
}

API_TEST_MAIN(init_race_suite, scenarios)
