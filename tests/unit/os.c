// SPDX-License-Identifier: MIT
/*
 * os.c - the OS contract (src/os/os.h, src/os/os_linux.c): aligned
 * reservations that leave nothing behind, commit/discard semantics, plain
 * mappings, RSS, random bytes, gettid and os_write_all.
 */
#include "common/test.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "os/os.h"

/* Pages of address space mapped by this process (first field of statm). */
static unsigned long vm_pages(void)
{
	char buf[128];
	unsigned long pages = 0;
	ssize_t n;
	int fd = open("/proc/self/statm", O_RDONLY);

	ck_assert_int_ge(fd, 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	ck_assert_int_eq(sscanf(buf, "%lu", &pages), 1);
	return pages;
}

START_TEST(test_page_size)
{
	ck_assert_uint_eq(os_page_size(), (size_t)sysconf(_SC_PAGESIZE));
}
END_TEST

START_TEST(test_reserve_aligned_and_trimmed)
{
	enum { NR = 8 };
	const size_t size = 4UL << 20, align = 64UL << 20;
	void *p[NR];
	unsigned long before, after;
	int i;

	before = vm_pages();
	for (i = 0; i < NR; i++) {
		p[i] = os_reserve(size, align);
		ck_assert_ptr_nonnull(p[i]);
		ck_assert_uint_eq((uintptr_t)p[i] % align, 0);
	}
	after = vm_pages();
	/* exactly size each: the over-reserved head and tail were given back */
	ck_assert_uint_eq((after - before) * os_page_size(), NR * size);
	for (i = 0; i < NR; i++)
		os_release(p[i], size);
	ck_assert_uint_eq(vm_pages(), before);
}
END_TEST

START_TEST(test_reserve_page_aligned)
{
	size_t page = os_page_size();
	void *p = os_reserve(3 * page, page);

	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq((uintptr_t)p % page, 0);
	os_release(p, 3 * page);
}
END_TEST

START_TEST(test_reserve_bad_arguments)
{
	size_t page = os_page_size();

	errno = 0;
	ck_assert_ptr_null(os_reserve(0, page));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(os_reserve(page + 1, page));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(os_reserve(page, 3 * page));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(os_reserve(page, page / 2));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(os_reserve(SIZE_MAX & ~(page - 1), 1UL << 30));
	ck_assert_int_eq(errno, ENOMEM);
}
END_TEST

static void touch_reserved(void *arg)
{
	*(volatile char *)arg = 1;
}

START_TEST(test_reserved_is_inaccessible)
{
	size_t page = os_page_size();
	char *p = os_reserve(2 * page, page);
	char out[4096], how[32];
	int end;

	ck_assert_ptr_nonnull(p);
	end = run_expect_abort(touch_reserved, p, out, sizeof(out));
	/* under AddressSanitizer its handler reports the SEGV and exits */
	ck_assert_msg(end == SIGSEGV || (end < 0 && strstr(out, "SEGV on unknown address")),
		      "touching a reservation ended with %s; stderr:\n%s",
		      uslab_test_describe_end(end, how, sizeof(how)), out);
	os_release(p, 2 * page);
}
END_TEST

START_TEST(test_commit_and_discard)
{
	size_t page = os_page_size();
	char *p = os_reserve(16 * page, 16 * page);
	size_t i;

	ck_assert_ptr_nonnull(p);
	ck_assert(os_commit(p + 4 * page, 8 * page));
	for (i = 4 * page; i < 12 * page; i++)
		ck_assert_int_eq(p[i], 0);
	memset(p + 4 * page, 0x77, 8 * page);
	ck_assert(os_discard(p + 6 * page, 2 * page));
	ck_assert_int_eq(p[6 * page], 0);			/* discarded: zero again */
	ck_assert_int_eq(p[8 * page - 1], 0);
	ck_assert_int_eq(p[5 * page], 0x77);			/* neighbours kept */
	ck_assert_int_eq(p[8 * page], 0x77);
	p[6 * page] = 1;					/* still committed */
	errno = 0;
	ck_assert(!os_commit(p + 1, page));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert(!os_discard(p, page + 1));
	os_release(p, 16 * page);
}
END_TEST

START_TEST(test_map_and_rss)
{
	const size_t size = 16UL << 20;
	size_t before, after;
	char *p;

	before = os_rss_bytes();
	ck_assert_uint_gt(before, 0);
	p = os_map(size);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq((uintptr_t)p % os_page_size(), 0);
	memset(p, 1, size);
	after = os_rss_bytes();
	ck_assert_msg(after >= before + size / 2, "rss %zu -> %zu after touching %zu bytes",
		      before, after, size);
	os_unmap(p, size);
	ck_assert_msg(os_rss_bytes() < after, "rss did not fall after os_unmap");
	errno = 0;
	ck_assert_ptr_null(os_map(0));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(test_random_bytes)
{
	unsigned char a[64], b[64], zero[64] = { 0 };
	unsigned char odd[7];

	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	os_random_bytes(a, sizeof(a));
	os_random_bytes(b, sizeof(b));
	ck_assert(memcmp(a, zero, sizeof(a)) != 0);
	ck_assert(memcmp(a, b, sizeof(a)) != 0);
	os_random_bytes(odd, sizeof(odd));
	os_random_bytes(odd, 0);
}
END_TEST

static void *report_tid(void *arg)
{
	int *out = arg;

	out[0] = os_gettid();
	out[1] = (int)syscall(SYS_gettid);
	return NULL;
}

START_TEST(test_gettid)
{
	int t[2];
	pthread_t th;

	ck_assert_int_eq(os_gettid(), getpid());	/* the main thread */
	ck_assert_int_eq(pthread_create(&th, NULL, report_tid, t), 0);
	pthread_join(th, NULL);
	ck_assert_int_eq(t[0], t[1]);
	ck_assert_int_ne(t[0], getpid());
}
END_TEST

struct drain {
	int fd;			/* read end */
	size_t got;		/* bytes read */
	unsigned long sum;	/* their sum */
};

static void *drain_pipe_thread(void *arg)
{
	struct drain *d = arg;
	unsigned char buf[4096];
	ssize_t n, i;

	while ((n = read(d->fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++)
			d->sum += buf[i];
		d->got += (size_t)n;
	}
	return NULL;
}

START_TEST(test_write_all)
{
	const size_t size = 1UL << 20;	/* far more than a pipe holds */
	unsigned char *buf = malloc(size);
	unsigned long sum = 0;
	struct drain d = { 0, 0, 0 };
	pthread_t th;
	int fds[2];
	size_t i;

	ck_assert_ptr_nonnull(buf);
	for (i = 0; i < size; i++) {
		buf[i] = (unsigned char)(i * 7);
		sum += buf[i];
	}
	ck_assert_int_eq(pipe(fds), 0);
	d.fd = fds[0];
	ck_assert_int_eq(pthread_create(&th, NULL, drain_pipe_thread, &d), 0);
	os_write_all(fds[1], buf, size);
	close(fds[1]);
	pthread_join(th, NULL);
	close(fds[0]);
	ck_assert_uint_eq(d.got, size);
	ck_assert_uint_eq(d.sum, sum);
	os_write_all(-1, buf, 10);	/* a bad fd: returns, does not spin */
	free(buf);
}
END_TEST

static Suite *os_suite(void)
{
	Suite *s = suite_create("os");
	TCase *tc = tcase_create("linux");

	tcase_add_test(tc, test_page_size);
	tcase_add_test(tc, test_reserve_aligned_and_trimmed);
	tcase_add_test(tc, test_reserve_page_aligned);
	tcase_add_test(tc, test_reserve_bad_arguments);
	tcase_add_test(tc, test_reserved_is_inaccessible);
	tcase_add_test(tc, test_commit_and_discard);
	tcase_add_test(tc, test_map_and_rss);
	tcase_add_test(tc, test_random_bytes);
	tcase_add_test(tc, test_gettid);
	tcase_add_test(tc, test_write_all);
	suite_add_tcase(s, tc);
	return s;
}
USLAB_TEST_MAIN(os_suite)
