# SPDX-License-Identifier: MIT
"""What debugging and hardening cost: bench/debug_cost/debug_cost on caches
created with each debug flag (F, Z, P, U) alone and all four, and on kmalloc
with the same flags given through USLAB_OPTIONS; and bench/debug_cost/paired,
which loads the default build's libuslab-ALLOC.so and the one built without
the default freelist hardening and randomisation (BUILD/unhardened, built by
`make bench` through bench/bench.mk's bench-unhardened) into one process and
alternates short timed chunks between them.

No peer runs here: every flag column's ratio is to the same row's default
column (a cache created with no flag, from the default, hardened build).  The
unhardened column and the hardening ratio come from the paired runs alone:
the ratio is the median of the runs' median paired ratios, never the default
column over the unhardened one (those are different programs and processes).
SLOB has no hardening: both of its libraries hold the same code, so its
ratio is the noise of the paired method."""
from __future__ import annotations

import os

from .core import ALLOCATORS, Config, Job, Outcome, interleave, run
from .table import Table, fmt_num, fmt_ratio, geomean
from .workloads import Section

REL = "debug_cost/debug_cost"
PAIRED_REL = "debug_cost/paired"
# why more runs: each paired run is steady within itself, but its layout
# (stack, arenas, physical pages) is drawn anew per process and moves its
# ratio by several percent: the median of many short processes evens that out
PAIRED_REPS_FACTOR = 3
NO_HARDENING = {"slob"}     # allocators whose paired ratio is the noise check
# (row label, api=, size=)
OBJECTS = [("cache 64 B", "kmem_cache", 64), ("cache 256 B", "kmem_cache", 256),
           ("kmalloc-64", "kmalloc", 64)]
# (column, flags=); the default column is the base of every ratio
FLAG_COLUMNS = [("default", "none"), ("F", "F"), ("Z", "Z"), ("P", "P"), ("U", "U"),
                ("FZPU", "FZPU")]
UNHARDENED = "unhardened"
PAIRED_RATIO = "hardened / unhardened"
PAIRED_HARDENED = "hardened (paired)"
HARDENING_AIM = 1.10


class RatioTable(Table):
    """A table whose ratios are to the row's own base column (no peers):
    cells read "value (ratio)"; extra columns are (label, fn(row) -> text)."""

    def __init__(self, *args, base="default", extra=(), **kw):
        super().__init__(*args, **kw)
        self.base = base
        self.extra = list(extra)
        self.no_ratio = {base}     # columns shown without a ratio

    def base_ratio(self, row, col):
        v, b = self.value(row, col), self.value(row, self.base)
        return v / b if v is not None and b else None

    def cell_text(self, row, col):
        v = self.value(row, col)
        if v is None:
            err = self.errors.get((row.name, col))
            return f"n/a ({err})" if err else "-"
        r = self.base_ratio(row, col)
        return fmt_num(v) if col in self.no_ratio or r is None else f"{fmt_num(v)} ({fmt_ratio(r)})"

    def markdown(self):
        out = [f"**{self.title}** ({self.unit}; lower is better)", ""]
        if self.note:
            out += [self.note, ""]
        heads = self.columns + [label for label, _ in self.extra]
        out.append("| | " + " | ".join(heads) + " |")
        out.append("|---|" + "---:|" * len(heads))
        for r in self.rows:
            cells = [self.cell_text(r, c) for c in self.columns]
            cells += [fn(r) for _, fn in self.extra]
            out.append(f"| {r.name} | " + " | ".join(cells) + " |")
        return out + [""]


def _rows(build):
    """One row per allocator and object kind, run from build's binaries."""
    return [Config(f"{a} {label}", "uslab", a, api, None, os.path.join(build, "bench", a))
            for a in ALLOCATORS for label, api, _ in OBJECTS]


def _job(ctx, config, column, size, flags, how):
    """Run config's debug_cost; how: what builds it, for the reason of a
    missing one (checked per cell, so that the log names the column)."""
    exe = os.path.join(config.bindir, REL)
    cmd = [exe, f"api={config.api}", f"size={size}", f"flags={flags}", f"time={ctx.run_time}"]

    def fn(timeout):
        if not os.access(exe, os.X_OK):
            return Outcome(error=f"not built: {how}")
        o = run(cmd, timeout=timeout)
        if not o.error and "unknown option" in o.output:
            o.error = "no slub_debug= option"
        return o
    return Job(config, column, fn, ("ns_per_pair", "obj_size"), ctx.run_time * 3 + 20,
               " ".join(cmd))


def _paired_libs(ctx, alloc):
    """(hardened, unhardened) libuslab-ALLOC.so of the two builds."""
    name = f"libuslab-{alloc}.so"
    return (os.path.join(ctx.build, "lib", name),
            os.path.join(ctx.build, "unhardened", "lib", name))


def _paired_missing(ctx, config):
    """Why config's paired run cannot start, or None."""
    hard, plain = _paired_libs(ctx, config.alloc)
    if not os.access(os.path.join(config.bindir, PAIRED_REL), os.X_OK):
        return "not built: make benches"
    if not os.path.exists(hard):
        return "not built: make libs"
    if not os.path.exists(plain):
        return "not built: make bench-unhardened"
    return None


def _paired_job(ctx, config, size, ratios):
    """config's paired run (hardened vs unhardened library, one process);
    ratios[row name] collects every run's median paired ratio."""
    hard, plain = _paired_libs(ctx, config.alloc)
    cmd = [os.path.join(config.bindir, PAIRED_REL), f"hardened={hard}", f"unhardened={plain}",
           f"api={config.api}", f"size={size}", f"time={ctx.run_time}"]

    def fn(timeout):
        why = _paired_missing(ctx, config)
        if why:
            return Outcome(error=why)
        o = run(cmd, timeout=timeout)
        if not o.error and "ratio" in o.values:
            ratios.setdefault(config.name, []).append(o.values["ratio"])
        return o
    return Job(config, UNHARDENED, fn, ("unhardened_ns_per_pair", "ratio"),
               ctx.run_time * 3 + 20, " ".join(cmd))


def _paired_cells(ctx, rows, sizes):
    """{(row, UNHARDENED): Cell} of the paired runs, and {row: [ratio]}."""
    ratios = {}
    jobs = [_paired_job(ctx, r, sizes[r.name], ratios) for r in rows]
    cells = interleave(ctx, "debug cost (paired)", jobs, reps=ctx.reps * PAIRED_REPS_FACTOR)
    return cells, ratios


def _fill_paired(t, rows, cells):
    """The unhardened column (the paired runs' unhardened ns per pair), and
    two values outside the columns, which only results.json shows: the
    median paired ratio and the paired runs' hardened ns per pair."""
    for r in rows:
        cell = cells.get((r.name, UNHARDENED))
        if cell is None:
            continue
        if cell.error:
            t.errors[(r.name, UNHARDENED)] = cell.error
            continue
        t.values[(r.name, UNHARDENED)] = cell.values["unhardened_ns_per_pair"]
        t.values[(r.name, PAIRED_RATIO)] = cell.values["ratio"]
        if "hardened_ns_per_pair" in cell.values:
            t.values[(r.name, PAIRED_HARDENED)] = cell.values["hardened_ns_per_pair"]


def _hardening_text(t, ratios, row):
    """The median paired ratio, the range of the runs, and how to read it."""
    r, rs = t.value(row, PAIRED_RATIO), ratios.get(row.name, [])
    if r is None:
        return "-"
    text = fmt_ratio(r)
    if len(rs) > 1:
        text += f" ({min(rs):.2f}-{max(rs):.2f})"
    if row.alloc in NO_HARDENING:
        return text + " (noise check)"
    return text + ("" if r <= HARDENING_AIM else " (over the aim)")


def debug_cost(ctx):
    rows = _rows(ctx.build)
    sizes = {f"{a} {label}": size for a in ALLOCATORS for label, _, size in OBJECTS}
    jobs = []
    for col, flags in FLAG_COLUMNS:
        jobs += [_job(ctx, r, col, sizes[r.name], flags, "make benches") for r in rows]
    cells = interleave(ctx, "debug cost", jobs)
    paired, ratios = _paired_cells(ctx, rows, sizes)
    cols = [c for c, _ in FLAG_COLUMNS]
    t = RatioTable.from_cells("debug_cost", "Debug flags and hardening: alloc+free pair, "
                              "batches of 64 objects, one thread", "ns per pair", rows,
                              cols + [UNHARDENED], cells, "ns_per_pair")
    _fill_paired(t, rows, paired)
    t.extra = [(PAIRED_RATIO, lambda r: _hardening_text(t, ratios, r))]
    t.no_ratio.add(UNHARDENED)
    sz = RatioTable.from_cells("debug_size", "Debug flags: the object's stride in its slab "
                               "(slabinfo objsize)", "bytes per object", rows, cols, cells,
                               "obj_size")
    sz.values = {k: v for k, v in sz.values.items() if v > 0}
    return Section("debug_cost", "Debug and hardening cost", _intro(ctx), [t, sz],
                   _notes(t, rows))


def _intro(ctx):
    return ["`bench/debug_cost/debug_cost`: the fast-path pattern (allocate 64 objects, write "
            "a byte in each, free them in order, repeat) on a cache of the row's size created "
            "with no flag (*default*) or with `SLAB_CONSISTENCY_CHECKS` (F), `SLAB_RED_ZONE` "
            "(Z), `SLAB_POISON` (P), `SLAB_STORE_USER` (U) or all four; the *kmalloc-64* rows "
            "give the flags to the kmalloc-64 cache with `USLAB_OPTIONS=slub_debug=FLAGS,kmalloc-64`"
            ". Caches are not merged (`slab_nomerge`). Each run is timed in chunks of 1024 "
            "pairs and reports the median chunk, so that time the process spends "
            "descheduled on a busy machine stays out of it; cells are the median of the "
            "runs. Ratios are to the row's default column.", "",
            "The cost of the default hardening (aim: at most "
            f"{HARDENING_AIM:.2f}x) is measured differently, because on a shared machine "
            "two processes run one after the other land in different fast and slow phases "
            "of the CPU, and their ratio swings by 10% and more. "
            "`bench/debug_cost/paired` loads the default build's `libuslab-ALLOC.so` and "
            "the one built with `-DCONFIG_SLAB_FREELIST_HARDENED=0 "
            "-DCONFIG_SLAB_FREELIST_RANDOM=0` (`BUILD/unhardened`, made by `make bench`) "
            "into one process, runs the same default pattern on each in alternating chunks "
            "of 1024 pairs (order hardened, unhardened, then the reverse), and takes the "
            "median of the per-pair ratios; the stack is moved through the 64 cache lines "
            "of a page pair by pair, so that no stack placement favours one side. "
            "*unhardened* is that run's median chunk of the unhardened library (both "
            "libraries are called through dlopen, so it can differ a little from a static "
            "program's), and *hardened / unhardened* is the median over "
            f"{ctx.reps * PAIRED_REPS_FACTOR} such runs, with the lowest and highest run in "
            "brackets: the paired ratio is steady within a run, but each process draws its "
            "own layout (arenas, physical pages, the random freelist order), which moves it "
            "by several percent. It is not the default column over the unhardened one.", "",
            "A flag that an allocator does not implement is dropped when the cache is "
            "created (SLOB has no debug flags, as in Linux; hardening is SLUB's and SLAB's), "
            "so such a column repeats the default run: how far it strays from 1.00x is the "
            "noise of this run. SLOB's two libraries hold the same code, so its *hardened / "
            "unhardened* is the noise of the paired method (marked *noise check*).", ""]


def _notes(t, rows):
    """The paired hardening ratio of each allocator, geometric mean over its rows."""
    parts = []
    for a in ALLOCATORS:
        rs = [t.value(r, PAIRED_RATIO) for r in rows
              if r.alloc == a and t.value(r, PAIRED_RATIO)]
        if rs:
            noise = " (no hardening: the noise check)" if a in NO_HARDENING else ""
            parts.append(f"{a} {fmt_ratio(geomean(rs))}{noise}")
    if not parts:
        return []
    return ["Cost of the default hardening, paired in one process, geometric mean over each "
            "allocator's rows (hardened / unhardened): " + ", ".join(parts) + ".", ""]
