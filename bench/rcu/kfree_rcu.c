/* SPDX-License-Identifier: MIT */
/*
 * kfree_rcu.c - what freeing after a grace period costs: kfree_rcu()
 * against kfree() of the same kmalloc objects, on one thread.
 *
 * usage: kfree_rcu [api=kmalloc] [free=kfree|kfree_rcu] [size=64]
 *                  [n=20000] [time=0.2]
 * A round allocates n objects of size bytes (an rcu_head first, as a
 * kfree_rcu() user embeds one), then frees them all: with kfree(), or with
 * kfree_rcu() followed by rcu_barrier(), so that the grace period and the
 * batched frees that kfree_rcu() defers are paid inside the round.  Rounds
 * repeat until the time is spent.  Only the freeing part of each round is
 * timed (the allocations are the same work in both modes).
 * Prints "RESULT ns_per_object <freeing ns / objects freed> ns" (wall time:
 * kfree_rcu's frees run on the RCU thread, on another CPU if there is one)
 * and "RESULT cpu_ns_per_object ..." (CPU time of every thread, the RCU
 * thread's included: the whole cost, whatever the parallelism).
 *
 * No malloc-only build: the peers have no RCU.
 */
#include <uslab/rcupdate.h>
#include "../common/api.h"

struct robj {
	struct rcu_head rcu;	/* what kfree_rcu() names */
	unsigned char data[];	/* the rest of size bytes */
};

static struct bench_opt opts[] = {
	{ "api", "kmalloc", "kmalloc (the only interface this workload has)" },
	{ "free", "kfree_rcu", "kfree or kfree_rcu" },
	{ "size", "64", "object size in bytes (at least 16)" },
	{ "n", "20000", "objects per round" },
	{ "time", "0.2", "seconds to run (whole rounds)" },
	{ NULL, NULL, NULL }
};

static const char *const free_names[] = { "kfree", "kfree_rcu", NULL };

static uint64_t cpu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One round; returns the wall nanoseconds its freeing took, adds its CPU
 * nanoseconds to *cpu. */
static uint64_t round_ns(struct robj **p, size_t n, size_t size, int use_rcu, uint64_t *cpu)
{
	uint64_t t0, c0;
	size_t i;

	for (i = 0; i < n; i++) {
		p[i] = uslab___kmalloc(size, USLAB_GFP_KERNEL);
		if (!p[i])
			bench_die("kfree_rcu: kmalloc(%zu) failed", size);
		bench_touch(p[i]->data, i);
	}
	c0 = cpu_now_ns();
	t0 = bench_now_ns();
	if (use_rcu) {
		for (i = 0; i < n; i++)
			kfree_rcu(p[i], rcu);
		rcu_barrier();
	} else {
		for (i = 0; i < n; i++)
			uslab_kfree(p[i]);
	}
	t0 = bench_now_ns() - t0;
	*cpu += cpu_now_ns() - c0;
	return t0;
}

int main(int argc, char **argv)
{
	uint64_t run_ns, start, freeing = 0, cpu = 0, objects = 0;
	struct bench_api api;
	struct robj **p;
	size_t size, n;
	int use_rcu;

	bench_parse_opts(argc, argv, opts, "kfree_rcu");
	size = bench_opt_size(opts, "size");
	n = bench_opt_size(opts, "n");
	use_rcu = bench_opt_choice(opts, "free", free_names);
	if (size < sizeof(struct robj) + 1 || !n || n > (64u << 20))
		bench_die("kfree_rcu: need size >= %zu and n in 1..64m", sizeof(struct robj) + 1);
	bench_api_init(&api, opts, 0);
	if (api.kind != BENCH_KMALLOC)
		bench_die("kfree_rcu: only api=kmalloc (kfree_rcu frees kmalloc memory)");
	p = bench_map(n * sizeof(*p));
	round_ns(p, n, size, use_rcu, &cpu);	/* warm-up: slabs, batch blocks, the RCU thread */
	cpu = 0;
	run_ns = (uint64_t)(bench_opt_double(opts, "time") * 1e9);
	start = bench_now_ns();
	do {
		freeing += round_ns(p, n, size, use_rcu, &cpu);
		objects += n;
	} while (bench_now_ns() - start < run_ns);
	bench_result("ns_per_object", (double)freeing / (double)objects, "ns");
	bench_result("cpu_ns_per_object", (double)cpu / (double)objects, "ns");
	bench_unmap(p, n * sizeof(*p));
	bench_api_exit(&api);
	return 0;
}
