/* SPDX-License-Identifier: MIT */
/*
 * spawn.c - run a whole program under a given malloc and report its wall
 * time and the peak RSS of its largest process.
 *
 * usage: BENCH_PRELOAD=LIB spawn PROGRAM [ARG...]
 * The program runs with LD_PRELOAD=LIB (none when BENCH_PRELOAD is empty or
 * unset); spawn itself runs without it.  When the program has ended, spawn
 * prints "RESULT wall_s <s> s" and "RESULT maxrss_kib <KiB> KiB" on stdout
 * and exits with the program's status (128 + n when signal n ended it).
 *
 * Why a program of its own: the kernel carries a process's peak RSS across
 * fork and exec into ru_maxrss, so a program started straight from the
 * driver (a Python process of some 17 MiB) would report at least the
 * driver's size.  Started from this small process, it reports its own.
 *
 * uslab-bench: malloc (also built malloc-only, see bench/bench.mk)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../common/bench.h"

static void child(char **argv, const char *preload)
{
	if (preload && *preload && setenv("LD_PRELOAD", preload, 1)) {
		perror("spawn: setenv");
		_exit(127);
	}
	execvp(argv[0], argv);
	fprintf(stderr, "spawn: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

int main(int argc, char **argv)
{
	const char *preload = getenv("BENCH_PRELOAD");
	struct rusage ru;
	uint64_t t0;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: BENCH_PRELOAD=LIB %s PROGRAM [ARG...]\n", argv[0]);
		return 2;
	}
	unsetenv("LD_PRELOAD");	/* spawn itself runs on glibc's malloc */
	t0 = bench_now_ns();
	pid = fork();
	if (pid < 0)
		bench_die("spawn: fork: %s", strerror(errno));
	if (pid == 0)
		child(argv + 1, preload);
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			bench_die("spawn: wait4: %s", strerror(errno));
	bench_result("wall_s", (double)(bench_now_ns() - t0) / 1e9, "s");
	bench_result("maxrss_kib", (double)ru.ru_maxrss, "KiB");
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "spawn: %s ended by signal %d (%s)\n", argv[1], WTERMSIG(status),
			strsignal(WTERMSIG(status)));
		return 128 + WTERMSIG(status);
	}
	return WEXITSTATUS(status);
}
