# SPDX-License-Identifier: MIT
"""Options, the order of the sections, the machine description, and the
outputs of a run."""
from __future__ import annotations

import argparse
import glob
import json
import os
import platform
import subprocess
import time

from . import debugcost, instructions, memcg, pagealloc, plot, programs, report, workloads
from .core import Context, progress

SECTIONS = [
    ("fastpath", workloads.fastpath),
    ("batch", workloads.batch),
    ("xthread", workloads.xthread),
    ("larson", workloads.larson),
    ("mixed", workloads.mixed),
    ("scaling", workloads.scaling),
    ("fragment", workloads.fragment),
    ("realloc", workloads.realloc),
    ("programs", programs.programs),
    ("instructions", instructions.instructions),
    ("page_alloc", pagealloc.page_alloc),
    ("debug_cost", debugcost.debug_cost),
    ("memcg", memcg.memcg),
]


def _flag(name):
    return os.environ.get(name, "") not in ("", "0")


def _threads(text, ncpu):
    if not text:
        return sorted({1, ncpu})
    try:
        ts = sorted({int(x) for x in text.replace(" ", ",").split(",") if x})
    except ValueError:
        raise SystemExit(f"bench: --threads wants a list of numbers like 1,2,4, not {text!r}")
    if not ts or ts[0] < 1 or ts[-1] > 1024:
        raise SystemExit(f"bench: thread counts must be 1..1024, not {text!r}")
    return ts


def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        prog="bench/run.py",
        description="Run uslab's benchmarks against glibc, jemalloc, tcmalloc and mimalloc "
                    "and write docs/BENCHMARKS.md, its plots and README's summary block.")
    ap.add_argument("--build", default="build", help="build root (default: build)")
    ap.add_argument("--quick", action="store_true", default=_flag("BENCH_QUICK"),
                    help="the short run (also BENCH_QUICK=1): 3 repetitions, shorter runs")
    ap.add_argument("--reps", type=int, help="repetitions (default 5, quick 3)")
    ap.add_argument("--threads", default=os.environ.get("BENCH_THREADS"),
                    help="THREADS list for the threaded workloads, e.g. 1,2,4 "
                         "(also BENCH_THREADS; default: 1 and the number of CPUs)")
    ap.add_argument("--only", nargs="+", choices=[n for n, _ in SECTIONS], metavar="SECTION",
                    help="run only these sections: " + " ".join(n for n, _ in SECTIONS))
    ap.add_argument("--md", default="docs/BENCHMARKS.md", help="the report to write")
    ap.add_argument("--plots", default="docs/bench", help="folder of the SVG plots")
    ap.add_argument("--readme", default="README.md", help="README whose bench block to update")
    ap.add_argument("--no-readme", action="store_true", help="leave README.md alone")
    args = ap.parse_args(argv)
    if args.reps is not None and not 1 <= args.reps <= 100:
        ap.error("--reps must be 1..100")
    return args


def _read(path, key):
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(key):
                    return line.split(":" if ":" in line else "=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return "unknown"


def _cmd(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def machine():
    mem = _read("/proc/meminfo", "MemTotal")
    mem_gib = f"{int(mem.split()[0]) / 1048576:.0f} GiB RAM" if mem[:1].isdigit() else ""
    return (f"{_read('/proc/cpuinfo', 'model name')}, {os.cpu_count()} CPUs, {mem_gib}, "
            f"Linux {platform.release()}, {_read('/etc/os-release', 'PRETTY_NAME')}")


def software():
    pkgs = ["libc6", "libjemalloc2", "libtcmalloc-minimal4", "libmimalloc2.0", "gcc-12", "valgrind"]
    vers = []
    for p in pkgs:
        v = _cmd(["dpkg-query", "-W", "-f=${Version}", p])
        vers.append(f"{p} {v or 'not installed'}")
    return ", ".join(vers)


def source(root):
    head = _cmd(["git", "-C", root, "rev-parse", "--short", "HEAD"]) or "unknown commit"
    dirty = _cmd(["git", "-C", root, "status", "--porcelain", "--untracked-files=no"])
    return f"commit {head}" + (" with uncommitted changes" if dirty else "")


def _raw(sections, path):
    out = {}
    for s in sections:
        for t in s.tables:
            out[t.name] = {"title": t.title, "unit": t.unit, "columns": t.columns,
                           "values": {f"{r}|{c}": v for (r, c), v in t.values.items()},
                           "errors": {f"{r}|{c}": e for (r, c), e in t.errors.items()}}
    with open(path, "w") as f:
        json.dump(out, f, indent=1)


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return f.read().split()[0]
    except OSError:
        return "?"


def main(argv=None):
    args = parse_args(argv)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    build = os.path.abspath(args.build)
    md, plots_dir, readme = (os.path.abspath(p) for p in (args.md, args.plots, args.readme))
    os.chdir(root)
    if not os.path.isdir(build):
        raise SystemExit(f"bench: build folder {args.build} does not exist (run make first)")
    reps = args.reps or (3 if args.quick else 5)
    ctx = Context(build, args.quick, reps, _threads(args.threads, os.cpu_count() or 1), root)
    t0 = time.monotonic()
    load0 = loadavg()
    sections = []
    for name, fn in SECTIONS:
        if args.only and name not in args.only:
            continue
        progress(f"section {name}")
        sections.append(fn(ctx))
    tables = [t for s in sections for t in s.tables]
    for old in glob.glob(os.path.join(plots_dir, "*.svg")):
        os.remove(old)
    svgs = plot.plot_all(tables, plots_dir, os.path.join(ctx.results, "plots"))
    quick = " BENCH_QUICK=1" if args.quick else ""
    meta = {
        "command": f"make bench{quick}" if os.environ.get("MAKELEVEL") else
                   f"bench/run.py --build {os.path.relpath(build, root)}{' --quick' if args.quick else ''}",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": machine(), "software": software(), "source": source(root),
        "mode": "quick" if args.quick else "full", "reps": reps, "threads": ctx.threads,
        "elapsed": time.monotonic() - t0, "load": f"{load0} at the start, {loadavg()} at the end",
    }
    os.makedirs(os.path.dirname(md), exist_ok=True)
    report.benchmarks_md(md, meta, sections, svgs, ctx.failures, os.path.relpath(ctx.results, root))
    _raw(sections, os.path.join(ctx.results, "results.json"))
    status = 0
    if not args.no_readme:
        try:
            report.update_readme(readme, report.readme_block(meta, sections, md, readme))
        except (OSError, RuntimeError) as exc:
            progress(f"README not updated: {exc}")
            status = 1
    progress(f"wrote {os.path.relpath(md, root)} ({len(svgs)} plots) in {meta['elapsed']:.0f} s; "
             f"{len(ctx.failures)} configuration(s) failed"
             + (f", logs in {os.path.relpath(ctx.logs, root)}" if ctx.failures else ""))
    return status
