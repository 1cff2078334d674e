/* SPDX-License-Identifier: MIT */
/*
 * bench.c - the out-of-line half of bench.h: arguments, results, /proc
 * readers, mmap'd bookkeeping and thread start-up.  Linked into every
 * benchmark program, uslab or malloc-only, so it never calls uslab.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "bench.h"

void bench_result(const char *name, double value, const char *unit)
{
	printf("RESULT %s %.4f %s\n", name, value, unit);
	fflush(stdout);
}

void bench_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* ---- arguments ---- */

static BENCH_NORETURN void usage(const struct bench_opt *opts, const char *what,
				 const char *why, const char *arg)
{
	fprintf(stderr, "%s: %s '%s'\nusage: %s [key=value ...]\n", what, why, arg, what);
	for (; opts->name; opts++)
		fprintf(stderr, "  %-10s %s (default %s)\n", opts->name, opts->help, opts->value);
	exit(2);
}

static struct bench_opt *find_opt(struct bench_opt *opts, const char *key, size_t len)
{
	for (; opts->name; opts++)
		if (strlen(opts->name) == len && !strncmp(opts->name, key, len))
			return opts;
	return NULL;
}

void bench_parse_opts(int argc, char **argv, struct bench_opt *opts, const char *what)
{
	for (int i = 1; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		struct bench_opt *o = eq ? find_opt(opts, argv[i], (size_t)(eq - argv[i])) : NULL;

		if (!eq)
			usage(opts, what, "expected key=value, got", argv[i]);
		if (!o)
			usage(opts, what, "unknown option", argv[i]);
		o->value = eq + 1;
	}
}

static const struct bench_opt *get_opt(const struct bench_opt *opts, const char *name)
{
	for (; opts->name; opts++)
		if (!strcmp(opts->name, name))
			return opts;
	bench_die("bench: option %s is not declared", name);
}

const char *bench_opt_str(const struct bench_opt *opts, const char *name)
{
	return get_opt(opts, name)->value;
}

static BENCH_NORETURN void bad_number(const char *name, const char *value)
{
	fprintf(stderr, "bench: %s=%s is not a valid number\n", name, value);
	exit(2);
}

unsigned long bench_opt_ul(const struct bench_opt *opts, const char *name)
{
	const char *s = bench_opt_str(opts, name);
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || *s == '-')
		bad_number(name, s);
	return v;
}

double bench_opt_double(const struct bench_opt *opts, const char *name)
{
	const char *s = bench_opt_str(opts, name);
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0)
		bad_number(name, s);
	return v;
}

size_t bench_opt_size(const struct bench_opt *opts, const char *name)
{
	const char *s = bench_opt_str(opts, name);
	const char *suffixes = "kmg";
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		bad_number(name, s);
	if (*end && end[1] == '\0' && strchr(suffixes, *end | 0x20)) {
		unsigned int shift = 10 * (unsigned int)(strchr(suffixes, *end | 0x20) - suffixes + 1);

		if (v > (~0ull >> shift))
			bad_number(name, s);
		v <<= shift;
		end++;
	}
	if (*end)
		bad_number(name, s);
	return (size_t)v;
}

int bench_opt_choice(const struct bench_opt *opts, const char *name, const char *const *choices)
{
	const char *s = bench_opt_str(opts, name);

	for (int i = 0; choices[i]; i++)
		if (!strcmp(choices[i], s))
			return i;
	fprintf(stderr, "bench: %s=%s is not one of:", name, s);
	for (int i = 0; choices[i]; i++)
		fprintf(stderr, " %s", choices[i]);
	fputc('\n', stderr);
	exit(2);
}

/* ---- randomness ---- */

void bench_shuffle(uint32_t *perm, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++)
		perm[i] = (uint32_t)i;
	for (size_t i = n; i > 1; i--) {	/* Fisher-Yates */
		size_t j = (size_t)bench_rand_below(&seed, i);
		uint32_t t = perm[i - 1];

		perm[i - 1] = perm[j];
		perm[j] = t;
	}
}

/* ---- memory ---- */

static long status_kib(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	size_t len = strlen(key);
	long kib = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':') {
			kib = strtol(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return kib;
}

long bench_rss_kib(void)
{
	return status_kib("VmRSS");
}

long bench_peak_rss_kib(void)
{
	return status_kib("VmHWM");
}

void *bench_map(size_t bytes)
{
	void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		bench_die("bench: mmap of %zu bytes failed: %s", bytes, strerror(errno));
	return p;
}

void bench_unmap(void *p, size_t bytes)
{
	munmap(p, bytes ? bytes : 1);
}

/* ---- threads ---- */

struct thread_start {
	void (*fn)(unsigned int i, void *arg);	/* the work of one thread */
	void *arg;				/* shared argument */
	pthread_barrier_t *go;			/* releases all threads together */
	unsigned int i;				/* this thread's index */
};

static void *thread_main(void *p)
{
	struct thread_start *ts = p;

	pthread_barrier_wait(ts->go);
	ts->fn(ts->i, ts->arg);
	return NULL;
}

void bench_run_threads(unsigned int n, void (*fn)(unsigned int i, void *arg), void *arg)
{
	struct thread_start *ts = bench_map(n * sizeof(*ts));
	pthread_t *th = bench_map(n * sizeof(*th));
	pthread_barrier_t go;
	int err;

	pthread_barrier_init(&go, NULL, n);
	for (unsigned int i = 0; i < n; i++) {
		ts[i] = (struct thread_start){ .fn = fn, .arg = arg, .go = &go, .i = i };
		err = pthread_create(&th[i], NULL, thread_main, &ts[i]);
		if (err)
			bench_die("bench: pthread_create: %s", strerror(err));
	}
	for (unsigned int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&go);
	bench_unmap(th, n * sizeof(*th));
	bench_unmap(ts, n * sizeof(*ts));
}
