// SPDX-License-Identifier: MIT
/*
 * early.c - allocation before main: in constructors, through dlopen, dlsym
 * and dlerror (which allocate inside the dynamic linker and libc), from a
 * thread started by a constructor racing the main thread, and through
 * stdio's buffers.  main() then checks that all of it survived and that
 * those blocks can be freed like any other.
 */
#include "malloc_test.h"
#include "common/test.h"

#include <malloc.h>
#include <pthread.h>

#define EARLY_BLOCKS	200

static void *early[EARLY_BLOCKS];	/* allocated by the first constructor */
static size_t early_len[EARLY_BLOCKS];
static void *dl_handle;			/* libm, opened by a constructor */
static double (*dl_cos)(double);
static int dlerror_seen;		/* dlerror() gave a message for a missing symbol */
static pthread_t racer;
static void *racer_blocks[100];

__attribute__((constructor(101))) static void first_constructor(void)
{
	int i;

	for (i = 0; i < EARLY_BLOCKS; i++) {
		early_len[i] = (size_t)i * i * 13 + 1;
		early[i] = malloc(early_len[i]);
		if (early[i])
			pattern_fill(early[i], early_len[i], (uintptr_t)i);
	}
}

static void *race(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 100; i++)
		racer_blocks[i] = calloc(1, (size_t)i * 100 + 1);
	return NULL;
}

__attribute__((constructor(102))) static void dl_constructor(void)
{
	char *buf;

	pthread_create(&racer, NULL, race, NULL);
	dl_handle = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
	if (dl_handle) {
		*(void **)&dl_cos = dlsym(dl_handle, "cos");
		dlerror_seen = dlsym(dl_handle, "no_such_symbol_here") == NULL &&
			       dlerror() != NULL;
	}
	buf = strdup("stdio in a constructor");
	fprintf(stderr, "%s: %zu bytes\n", buf, malloc_usable_size(buf));
	free(buf);
}

START_TEST(test_constructor_blocks_survive)
{
	int i;

	for (i = 0; i < EARLY_BLOCKS; i++) {
		ck_assert_msg(early[i] != NULL, "constructor malloc %d failed", i);
		ck_assert(pattern_ok(early[i], early_len[i], (uintptr_t)i));
		ck_assert(malloc_usable_size(early[i]) >= early_len[i]);
		early[i] = realloc(early[i], early_len[i] * 2 + 10);
		ck_assert(pattern_ok(early[i], early_len[i], (uintptr_t)i));
		free(early[i]);
	}
}
END_TEST

START_TEST(test_dl_paths)
{
	ck_assert_msg(dl_handle != NULL, "dlopen in a constructor failed: %s", dlerror());
	ck_assert(dl_cos != NULL && dl_cos(0.0) == 1.0);
	ck_assert(dlerror_seen);
	ck_assert_int_eq(dlclose(dl_handle), 0);
}
END_TEST

START_TEST(test_racing_thread)
{
	int i;

	for (i = 0; i < 100; i++) {
		unsigned char *p = racer_blocks[i];

		ck_assert(p != NULL);
		ck_assert(first_nonzero(p, (size_t)i * 100 + 1) == (size_t)i * 100 + 1);
		free(p);
	}
}
END_TEST

static Suite *early_suite(void)
{
	Suite *s = suite_create("malloc-early");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_constructor_blocks_survive);
	tcase_add_test(tc, test_dl_paths);
	tcase_add_test(tc, test_racing_thread);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	require_uslab_malloc();
	/* why here: Check runs each test in a child, where the thread is gone */
	if (pthread_join(racer, NULL))
		return 3;
	return uslab_test_run(early_suite());
}
