/* SPDX-License-Identifier: MIT */
/*
 * realloc.c - buffers grown by realloc, the way programs build strings and
 * arrays: appended to a few bytes at a time, each growth through realloc.
 *
 * usage: realloc [api=malloc|kmalloc] [policy=exact|grow] [buffers=64]
 *                [work=64m] [max=256k] [seed=1]
 * Fixed work, the same for every allocator: `buffers` buffers are live at
 * once, each with a final size drawn log-uniformly from 16 bytes to `max`.
 * Each step appends 1..64 bytes (a pattern of the buffer's own: byte i is
 * salt + i) to a random buffer; a buffer that reaches its final size is
 * checked (every byte it holds, so a lost or moved-wrong byte fails the
 * run), freed, and replaced by a new empty one.  The run ends when `work` bytes have been appended.
 *   policy=exact  realloc to the new length on every append (naive code:
 *                 the allocator's own rounding decides how often it moves)
 *   policy=grow   realloc only when the length passes the capacity, to 1.5x
 *                 the capacity (git's ALLOC_GROW, most vectors)
 * api=kmalloc grows with krealloc.  Prints (RESULT name value unit):
 *   seconds        wall time of the work
 *   ns_per_append  the same per append
 *   reallocs       calls that grew a buffer; moves: those that moved it
 *   peak_rss_kib   VmHWM less the RSS before the first allocation, and
 *   peak_live_kib  the most bytes the buffers held at once
 *
 * uslab-bench: malloc (also built malloc-only, see bench/bench.mk)
 */
#include <string.h>
#include "../common/api.h"

enum policy { POLICY_EXACT, POLICY_GROW };

struct buffer {
	unsigned char *p;	/* its memory (NULL while empty) */
	size_t len;		/* bytes appended so far */
	size_t cap;		/* bytes the last realloc asked for */
	size_t target;		/* its final length */
	unsigned char salt;	/* byte i holds (salt + i) & 0xff */
};

struct run {
	struct buffer *buf;	/* the live buffers (mmap'd) */
	size_t nr;		/* how many */
	size_t max;		/* largest final length */
	enum policy policy;
	uint64_t rng;
	size_t live;		/* bytes appended to live buffers */
	size_t peak_live;	/* most of them at once */
	unsigned long appends, reallocs, moves;
};

static struct bench_api api;
static struct run run;

/* pattern[i] = i & 0xff, long enough that the bytes from any buffer
 * position, up to 256 of them, are one copy from it. */
static unsigned char pattern[512];

static const unsigned char *pattern_at(const struct buffer *b, size_t i)
{
	return pattern + (unsigned char)(b->salt + i);
}

static BENCH_ALWAYS_INLINE void *bench_realloc(enum bench_api_kind kind, void *p, size_t n)
{
#if BENCH_USLAB
	if (kind == BENCH_KMALLOC)
		return uslab_krealloc(p, n, USLAB_GFP_KERNEL);
#endif
	(void)kind;
	return realloc(p, n);
}

/* A final length, log-uniform over [16, max]. */
static size_t draw_target(void)
{
	unsigned int hi = 63 - (unsigned int)__builtin_clzl(run.max), lo = 4;
	unsigned int shift = lo + (unsigned int)bench_rand_below(&run.rng, hi - lo + 1);
	size_t t = ((size_t)1 << shift) + bench_rand_below(&run.rng, (uint64_t)1 << shift);

	return t > run.max ? run.max : t;
}

static void start(struct buffer *b)
{
	b->p = NULL;
	b->len = b->cap = 0;
	b->target = draw_target();
	b->salt = (unsigned char)bench_rand(&run.rng);
}

/* Every byte of a finished buffer must hold its pattern. */
static void check(const struct buffer *b)
{
	for (size_t i = 0; i < b->len; i += 256) {
		size_t n = b->len - i < 256 ? b->len - i : 256;

		if (memcmp(b->p + i, pattern_at(b, i), n))
			bench_die("realloc: bytes %zu..%zu of a %zu-byte buffer lost their pattern",
				  i, i + n - 1, b->len);
	}
}

static BENCH_ALWAYS_INLINE void grow(enum bench_api_kind kind, struct buffer *b, size_t need)
{
	size_t cap = need;
	void *q;

	if (run.policy == POLICY_GROW) {
		if (need <= b->cap)
			return;
		cap = b->cap + b->cap / 2;
		if (cap < need)
			cap = need;
		if (cap < 16)
			cap = 16;
	}
	q = bench_realloc(kind, b->p, cap);
	if (!q)
		bench_die("realloc: growing a buffer to %zu bytes failed", cap);
	run.reallocs++;
	run.moves += q != b->p && b->p;
	b->p = q;
	b->cap = cap;
}

static BENCH_ALWAYS_INLINE void append(enum bench_api_kind kind, struct buffer *b, size_t n)
{
	if (n > b->target - b->len)
		n = b->target - b->len;
	grow(kind, b, b->len + n);
	memcpy(b->p + b->len, pattern_at(b, b->len), n);
	b->len += n;
	run.live += n;
	if (run.live > run.peak_live)
		run.peak_live = run.live;
	run.appends++;
}

static BENCH_ALWAYS_INLINE void work(enum bench_api_kind kind, size_t total)
{
	size_t done = 0, n;
	struct buffer *b;

	while (done < total) {
		b = &run.buf[bench_rand_below(&run.rng, run.nr)];
		n = 1 + (size_t)bench_rand_below(&run.rng, 64);
		append(kind, b, n);
		done += n;
		if (b->len == b->target) {
			check(b);
			bench_free(&api, kind, b->p);
			run.live -= b->len;
			start(b);
		}
	}
}

static BENCH_ALWAYS_INLINE void free_all(enum bench_api_kind kind, int unused)
{
	(void)unused;
	for (size_t i = 0; i < run.nr; i++) {
		check(&run.buf[i]);
		bench_free(&api, kind, run.buf[i].p);	/* NULL for an empty one */
	}
}

static struct bench_opt opts[] = {
	{ "api", "malloc", "malloc or kmalloc (krealloc)" },
	{ "policy", "exact", "exact (realloc on every append) or grow (1.5x when full)" },
	{ "buffers", "64", "buffers live at once" },
	{ "work", "64m", "bytes appended in all" },
	{ "max", "256k", "largest final length of a buffer (16..64m)" },
	{ "seed", "1", "random seed" },
	{ NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	static const char *const policies[] = { "exact", "grow", NULL };
	size_t total;
	long base;
	uint64_t t0;
	double s;

	bench_parse_opts(argc, argv, opts, "realloc");
	run.policy = (enum policy)bench_opt_choice(opts, "policy", policies);
	run.nr = bench_opt_size(opts, "buffers");
	run.max = bench_opt_size(opts, "max");
	total = bench_opt_size(opts, "work");
	if (!run.nr || run.nr > (1u << 20))
		bench_die("realloc: buffers must be 1..1m");
	if (run.max < 16 || run.max > (64u << 20))
		bench_die("realloc: max must be 16..64m");
	bench_api_init(&api, opts, 0);
	for (size_t i = 0; i < sizeof(pattern); i++)
		pattern[i] = (unsigned char)i;
	run.rng = bench_opt_ul(opts, "seed");
	run.buf = bench_map(run.nr * sizeof(*run.buf));
	for (size_t i = 0; i < run.nr; i++)
		start(&run.buf[i]);
	base = bench_rss_kib();
	t0 = bench_now_ns();
	BENCH_API_DISPATCH(api.kind, work, total);
	s = (double)(bench_now_ns() - t0) / 1e9;
	bench_result("seconds", s, "s");
	bench_result("ns_per_append", s * 1e9 / (double)run.appends, "ns");
	bench_result("reallocs", (double)run.reallocs, "calls");
	bench_result("moves", (double)run.moves, "calls");
	bench_result("peak_rss_kib", (double)(bench_peak_rss_kib() - base), "KiB");
	bench_result("peak_live_kib", (double)run.peak_live / 1024, "KiB");
	BENCH_API_DISPATCH(api.kind, free_all, 0);
	bench_api_exit(&api);
	return 0;
}
