#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Benchmark driver: runs every configuration interleaved (A B C D A B C D ...)
so that machine drift hits all alike, repeats, and reports medians and ratios.

usage: bench/run.py --build BUILD [--quick] [--md FILE] [--only GROUP ...]

Peers are the malloc of glibc and, through LD_PRELOAD, Debian's jemalloc,
tcmalloc and mimalloc.  uslab is measured through its own API (no preload):
kmem_cache_* and kmalloc on each of its three allocators.
"""
import argparse, math, os, platform, re, statistics, subprocess, sys, time

LIBDIR = "/usr/lib/x86_64-linux-gnu"
PEERS = {
    "glibc": None,
    "jemalloc": f"{LIBDIR}/libjemalloc.so.2",
    "tcmalloc": f"{LIBDIR}/libtcmalloc_minimal.so.4",
    "mimalloc": f"{LIBDIR}/libmimalloc.so.2",
}
ALLOCATORS = ["slub", "slab", "slob"]


def available_peers():
    return {k: v for k, v in PEERS.items() if v is None or os.path.exists(v)}


def run(cmd, preload=None, timeout=300):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if preload:
        env["LD_PRELOAD"] = preload
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr[-500:]}")
    return p


def result(p, name):
    m = re.search(rf"^RESULT {name} ([0-9.]+)", p.stdout, re.M)
    if not m:
        raise RuntimeError(f"no RESULT {name} in output: {p.stdout[-300:]}")
    return float(m.group(1))


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def interleave(jobs, reps):
    """jobs: list of (key, fn) where fn() -> float.  Returns {key: [values]}."""
    out = {k: [] for k, _ in jobs}
    for _ in range(reps):
        for k, fn in jobs:
            out[k].append(fn())
    return {k: statistics.median(v) for k, v in out.items()}


def fastpath(build, sizes, reps, md):
    peers = available_peers()
    fp = {a: f"{build}/bench/{a}/slab_fastpath/fastpath" for a in ALLOCATORS}
    jobs = []
    for size in sizes:
        for peer, lib in peers.items():
            jobs.append(((size, peer), lambda s=size, l=lib:
                         result(run([fp["slub"], "malloc", str(s)], l), "ns_per_pair")))
        for a in ALLOCATORS:
            for mode in ("kmem_cache", "kmalloc"):
                jobs.append(((size, f"{a}:{mode}"), lambda s=size, a=a, m=mode:
                             result(run([fp[a], m, str(s)]), "ns_per_pair")))
    med = interleave(jobs, reps)
    md.append("## Fast path: alloc+free pairs, batches of 64, one thread (ns per pair, median of %d)\n" % reps)
    cols = list(peers) + [f"{a}:{m}" for a in ALLOCATORS for m in ("kmem_cache", "kmalloc")]
    md.append("| size | " + " | ".join(cols) + " | best peer | slub kmem_cache / best | slub kmalloc / best |")
    md.append("|" + "---|" * (len(cols) + 4))
    kratios = []
    cratios = []
    for size in sizes:
        best = min(med[(size, p)] for p in peers)
        bestname = min(peers, key=lambda p: med[(size, p)])
        rc = med[(size, "slub:kmem_cache")] / best
        rk = med[(size, "slub:kmalloc")] / best
        cratios.append(rc)
        kratios.append(rk)
        md.append(f"| {size} | " + " | ".join(f"{med[(size, c)]:.2f}" for c in cols)
                  + f" | {bestname} | {rc:.2f}x | {rk:.2f}x |")
    md.append("")
    md.append(f"- kmem_cache alloc+free vs best peer malloc+free: worst {max(cratios):.2f}x, "
              f"geometric mean {geomean(cratios):.2f}x (aim: at most 0.75x at every size)")
    md.append(f"- kmalloc/kfree vs best peer: geometric mean {geomean(kratios):.2f}x (aim: at most 1.1x)")
    for a in ("slab", "slob"):
        r = geomean([med[(s, f"{a}:kmem_cache")] / med[(s, "slub:kmem_cache")] for s in sizes])
        md.append(f"- {a.upper()} kmem_cache fast path vs SLUB: geometric mean {r:.2f}x")
    md.append("")
    return med


def prodcons(build, reps, md, total):
    peers = available_peers()
    fp = f"{build}/bench/slub/slab_fastpath/fastpath"
    jobs = [((p,), lambda l=lib: result(run([fp, "prodcons_malloc", "64", str(total)], l),
                                         "ns_per_object")) for p, lib in peers.items()]
    for a in ALLOCATORS:
        f = f"{build}/bench/{a}/slab_fastpath/fastpath"
        jobs.append(((f"{a}:kmem_cache",), lambda f=f: result(run([f, "prodcons", "64", str(total)]),
                                                              "ns_per_object")))
    med = interleave(jobs, reps)
    md.append("## Producer/consumer, 2 threads, 64-byte objects freed by the other thread (ns per object)\n")
    md.append("| " + " | ".join(k[0] for k in med) + " |")
    md.append("|" + "---|" * len(med))
    md.append("| " + " | ".join(f"{v:.2f}" for v in med.values()) + " |")
    if ("mimalloc",) in med:
        md.append(f"\n- SLUB kmem_cache vs mimalloc: {med[('slub:kmem_cache',)] / med[('mimalloc',)]:.2f}x (aim: at most 1.25x)")
    md.append("")


def callgrind_ir(cmd, preload, pairs):
    env_cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + cmd + [str(pairs)]
    p = run(env_cmd, preload, timeout=600)
    m = re.search(r"Collected : (\d+)", p.stderr)
    if not m:
        raise RuntimeError("no callgrind total: " + p.stderr[-300:])
    return int(m.group(1))


def instructions(build, md, size=64):
    """Instructions per alloc+free pair: difference of two runs cancels set-up."""
    peers = available_peers()
    fp = {a: f"{build}/bench/{a}/slab_fastpath/fastpath" for a in ALLOCATORS}
    n1, n2 = 64 * 2000, 64 * 6000
    rows = []
    for peer, lib in peers.items():
        c = [fp["slub"], "malloc", str(size)]
        rows.append((f"{peer} malloc+free", (callgrind_ir(c, lib, n2) - callgrind_ir(c, lib, n1)) / (n2 - n1)))
    for a in ALLOCATORS:
        for mode in ("kmem_cache", "kmalloc"):
            c = [fp[a], mode, str(size)]
            rows.append((f"uslab {a} {mode}", (callgrind_ir(c, None, n2) - callgrind_ir(c, None, n1)) / (n2 - n1)))
    md.append(f"## Instructions per alloc+free pair ({size} bytes, valgrind callgrind)\n")
    md.append("| allocator | instructions per pair |")
    md.append("|---|---|")
    for name, ir in rows:
        md.append(f"| {name} | {ir:.1f} |")
    md.append("")


def machine():
    cpu = "unknown"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.node()}: {cpu}, {os.cpu_count()} CPUs, Linux {platform.release()}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--md")
    ap.add_argument("--only", nargs="*", default=["fastpath", "prodcons", "instructions"])
    args = ap.parse_args()
    reps = 3 if args.quick else 7
    sizes = [16, 64, 256, 1024, 4096] if not args.quick else [16, 256, 4096]
    md = [f"# uslab benchmarks\n", f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {machine()}.",
          "Medians of interleaved repetitions; ratios are uslab / best peer (lower is better).\n"]
    if "fastpath" in args.only:
        fastpath(args.build, sizes, reps, md)
    if "prodcons" in args.only:
        prodcons(args.build, reps, md, 500000 if args.quick else 2000000)
    if "instructions" in args.only:
        instructions(args.build, md)
    text = "\n".join(md) + "\n"
    print(text)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text)


if __name__ == "__main__":
    sys.exit(main())
