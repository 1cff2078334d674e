/* SPDX-License-Identifier: MIT */
/*
 * harness.c - the shared test harness (see test.h): running a Check suite,
 * skipping, and running code that is expected to abort in a child process.
 */
#define _GNU_SOURCE /* sigabbrev_np */
#include "test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

const char *uslab_test_allocator(void)
{
	if (CONFIG_SLUB)
		return "slub";
	if (CONFIG_SLAB)
		return "slab";
	return "slob";
}

int uslab_test_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	printf("allocator: %s\n", uslab_test_allocator());
	fflush(stdout);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

void uslab_test_skip(const char *why)
{
	printf("SKIP: %s (built for %s)\n", why, uslab_test_allocator());
	fflush(stdout);
	exit(USLAB_TEST_SKIPPED);
}

/* In the child: stderr into the pipe, no core file, a time limit, then fn. */
static __attribute__((noreturn)) void expect_abort_child(void (*fn)(void *), void *arg,
							 int fds[2])
{
	static const int check_sigs[] = { SIGALRM, SIGHUP, SIGINT, SIGQUIT, SIGTERM };
	const struct rlimit no_core = { 0, 0 };
	size_t i;

	/* why: an expected abort must not spend seconds writing a core file */
	setrlimit(RLIMIT_CORE, &no_core);
	/* why: Check's handlers, inherited from the runner, would kill its group */
	for (i = 0; i < sizeof(check_sigs) / sizeof(check_sigs[0]); i++)
		signal(check_sigs[i], SIG_DFL);
	close(fds[0]);
	if (dup2(fds[1], STDERR_FILENO) < 0)
		_exit(126);
	close(fds[1]);
	alarm(USLAB_EXPECT_ABORT_SECONDS);
	fn(arg);
	fflush(stdout);
	/* why: _exit, so the parent's atexit handlers do not run twice */
	_exit(0);
}

/* Read fd to its end; keep the first outlen - 1 bytes in out. */
static void drain_pipe(int fd, char *out, size_t outlen)
{
	char scratch[4096];
	size_t used = 0;
	ssize_t n;

	for (;;) {
		size_t room = outlen > used + 1 ? outlen - used - 1 : 0;
		char *dst = room ? out + used : scratch;
		size_t want = room ? room : sizeof(scratch);

		n = read(fd, dst, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (room)
			used += (size_t)n;
	}
	if (outlen)
		out[used] = '\0';
}

static int wait_child(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		ck_assert_msg(errno == EINTR, "waitpid: %s", strerror(errno));
	if (WIFSIGNALED(status))
		return WTERMSIG(status);
	return -WEXITSTATUS(status);
}

int run_expect_abort(void (*fn)(void *), void *arg, char *out, size_t outlen)
{
	int fds[2];
	pid_t pid;

	ck_assert_msg(pipe(fds) == 0, "pipe: %s", strerror(errno));
	/* why: buffered output would otherwise be written by both processes */
	fflush(NULL);
	pid = fork();
	ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0)
		expect_abort_child(fn, arg, fds);
	close(fds[1]);
	drain_pipe(fds[0], out, outlen);
	close(fds[0]);
	return wait_child(pid);
}

const char *uslab_test_describe_end(int how, char *buf, size_t len)
{
	if (how > 0)
		snprintf(buf, len, "SIG%s", sigabbrev_np(how) ? sigabbrev_np(how) : "?");
	else
		snprintf(buf, len, "exit %d", -how);
	return buf;
}
