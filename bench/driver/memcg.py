# SPDX-License-Identifier: MIT
"""What memory cgroup accounting costs on the fast path: bench/memcg/memcg,
the alloc+free pair of the fast-path section, unaccounted (*plain*) against
charged to an active group (*accounted*): kmalloc with GFP_KERNEL against
GFP_KERNEL_ACCOUNT (kmalloc-cg-<n>), and a plain cache against a
SLAB_ACCOUNT one.  SLUB and SLAB only: SLOB has no accounting, as in Linux.

No peer runs here.  Both sides are measured in one process (mode=paired:
short chunks alternating ABBA, bench/common/paired.h), as the hardening
cost is: the ratio is the median of many such runs' median paired ratios,
never the accounted column over the plain one (aim: under MEMCG_AIM)."""
from __future__ import annotations

import os

from .core import Config, interleave, program_job
from .table import Table, fmt_num, fmt_ratio, geomean
from .workloads import Section

REL = "memcg/memcg"
ALLOCS = ["slub", "slab"]
# (row label, api=, size=)
OBJECTS = [("kmalloc-64", "kmalloc", 64), ("kmalloc-256", "kmalloc", 256),
           ("cache 64 B", "kmem_cache", 64)]
COLUMNS = ["plain", "accounted"]
PAIRED = "paired"           # the jobs' column: one paired run gives both
RATIO = "accounted / plain"  # a value outside the columns: the median paired ratio
# why more runs: each paired run is steady within itself, but its layout
# (stack, heap, physical pages) is drawn anew per process and moves its
# ratio by several percent: the median of many short processes evens that out
PAIRED_REPS_FACTOR = 3
MEMCG_AIM = 1.5


class AccountingTable(Table):
    """Cells read "value"; the last column is the median paired ratio with
    the lowest and highest run (ratios: {row name: [each run's ratio]})."""

    def __init__(self, *args, ratios=None, **kw):
        super().__init__(*args, **kw)
        self.ratios = ratios or {}

    def ratio_text(self, row):
        r, rs = self.value(row, RATIO), self.ratios.get(row.name, [])
        if r is None:
            return "-"
        text = fmt_ratio(r)
        if len(rs) > 1:
            text += f" ({min(rs):.2f}-{max(rs):.2f})"
        return text + ("" if r < MEMCG_AIM else " (over the aim)")

    def cell_text(self, row, col):
        v = self.value(row, col)
        if v is None:
            err = self.errors.get((row.name, col))
            return f"n/a ({err})" if err else "-"
        return fmt_num(v)

    def markdown(self):
        out = [f"**{self.title}** ({self.unit}; lower is better)", ""]
        out.append("| | " + " | ".join(self.columns) + f" | {RATIO} |")
        out.append("|---|" + "---:|" * (len(self.columns) + 1))
        for r in self.rows:
            cells = [self.cell_text(r, c) for c in self.columns]
            out.append(f"| {r.name} | " + " | ".join(cells) + f" | {self.ratio_text(r)} |")
        return out + [""]


def _rows(ctx):
    out = []
    for a in ALLOCS:
        d = os.path.join(ctx.build, "bench", a)
        missing = None if os.path.isdir(d) else f"{a} not built"
        out += [Config(f"{a} {label}", "uslab", a, api, None, d, missing)
                for label, api, _ in OBJECTS]
    return out


def _job(ctx, row, size, ratios):
    """row's paired run; ratios[row name] collects every run's median ratio."""
    job = program_job(ctx, row, PAIRED, REL, {"size": size, "mode": "paired",
                                              "time": ctx.run_time},
                      ["plain_ns_per_pair", "accounted_ns_per_pair", "ratio"])
    inner = job.fn

    def fn(timeout):
        o = inner(timeout)
        if not o.error and "ratio" in o.values:
            ratios.setdefault(row.name, []).append(o.values["ratio"])
        return o
    job.fn = fn
    return job


def _table(rows, cells, ratios):
    """The plain and accounted columns (medians of the paired runs' sides)
    and the median paired ratio (outside the columns)."""
    t = AccountingTable("memcg", "Memory cgroup accounting: alloc+free pair, batches of 64 "
                        "objects, one thread", "ns per pair", rows, COLUMNS, {}, {},
                        ratios=ratios)
    for r in rows:
        cell = cells.get((r.name, PAIRED))
        if cell is None:
            continue
        if cell.error:
            t.errors.update({(r.name, c): cell.error for c in COLUMNS})
            continue
        for c in COLUMNS:
            t.values[(r.name, c)] = cell.values[f"{c}_ns_per_pair"]
        t.values[(r.name, RATIO)] = cell.values["ratio"]
    return t


def memcg(ctx):
    rows = _rows(ctx)
    sizes = {f"{a} {label}": size for a in ALLOCS for label, _, size in OBJECTS}
    ratios = {}
    jobs = [_job(ctx, r, sizes[r.name], ratios) for r in rows]
    cells = interleave(ctx, "memcg (paired)", jobs, reps=ctx.reps * PAIRED_REPS_FACTOR)
    t = _table(rows, cells, ratios)
    return Section("memcg", "Cost of memory cgroup accounting", _intro(ctx), [t],
                   _notes(t, rows))


def _intro(ctx):
    return ["`bench/memcg/memcg`: the fast-path pattern (allocate 64 objects, write a byte in "
            "each, free them in order, repeat). *plain*: `kmalloc(size, GFP_KERNEL)`, or a "
            "cache created without flags; *accounted*: `kmalloc(size, GFP_KERNEL_ACCOUNT)` "
            "(the kmalloc-cg-<n> caches), or the same cache created with `SLAB_ACCOUNT`, "
            "every object charged to a group the thread has active "
            "(`set_active_memcg`) and uncharged when freed. The program checks that the "
            "accounted objects are charged before it measures. SLOB has no accounting (as "
            f"in Linux), so it has no row. Aim: accounted / plain under {MEMCG_AIM:.1f}x.", "",
            "Both sides run in one process (`mode=paired`), because on a shared machine two "
            "processes run one after the other land in different fast and slow phases of "
            "the CPU, and their ratio swings by tens of percent: short timed chunks of "
            "1024 pairs alternate between the sides (plain, accounted, then the reverse), "
            "the stack is moved through the 64 cache lines of a page pair by pair, so that "
            "no stack placement favours one side, and the run's ratio is the median of the "
            "per-pair ratios (`bench/common/paired.c`, as for the hardening cost). "
            "*plain* and *accounted* are the medians of the runs' median chunks; "
            f"*accounted / plain* is the median over {ctx.reps * PAIRED_REPS_FACTOR} such "
            "runs, with the lowest and highest run in brackets (each process draws its own "
            "layout, which moves its ratio by several percent). It is not the accounted "
            "column over the plain one.", ""]


def _notes(t, rows):
    parts = []
    for a in ALLOCS:
        rs = [t.value(r, RATIO) for r in rows if r.alloc == a and t.value(r, RATIO)]
        if rs:
            parts.append(f"{a} {fmt_ratio(geomean(rs))}")
    if not parts:
        return []
    return ["Cost of accounting, geometric mean over each allocator's rows of the median "
            "paired ratio (accounted / plain): " + ", ".join(parts) + ".", ""]
