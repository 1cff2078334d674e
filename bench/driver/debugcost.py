# SPDX-License-Identifier: MIT
"""What debugging and hardening cost: bench/debug_cost/debug_cost on caches
created with each debug flag (F, Z, P, U) alone and all four, on kmalloc with
the same flags given through USLAB_OPTIONS, and from a build without the
default freelist hardening and randomisation (BUILD/unhardened, built by
`make bench` through bench/bench.mk's bench-unhardened).

No peer runs here: every ratio is to the same row's default column (a cache
created with no flag, from the default, hardened build), and the hardening
column is the default build over the unhardened one."""
from __future__ import annotations

import os

from .core import ALLOCATORS, Config, Job, Outcome, interleave, run
from .table import Table, fmt_num, fmt_ratio, geomean
from .workloads import Section

REL = "debug_cost/debug_cost"
# (row label, api=, size=)
OBJECTS = [("cache 64 B", "kmem_cache", 64), ("cache 256 B", "kmem_cache", 256),
           ("kmalloc-64", "kmalloc", 64)]
# (column, flags=); the default column is the base of every ratio
FLAG_COLUMNS = [("default", "none"), ("F", "F"), ("Z", "Z"), ("P", "P"), ("U", "U"),
                ("FZPU", "FZPU")]
UNHARDENED = "unhardened"
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


def _hardening_text(t, row):
    v, u = t.value(row, "default"), t.value(row, UNHARDENED)
    if v is None or not u:
        return "-"
    r = v / u
    return fmt_ratio(r) + ("" if r <= HARDENING_AIM else " (over the aim)")


def debug_cost(ctx):
    rows = _rows(ctx.build)
    plain = _rows(os.path.join(ctx.build, "unhardened"))
    sizes = {f"{a} {label}": size for a in ALLOCATORS for label, _, size in OBJECTS}
    jobs = []
    for col, flags in FLAG_COLUMNS:
        jobs += [_job(ctx, r, col, sizes[r.name], flags, "make benches") for r in rows]
    # why: the same row names, so that both builds' runs land in one row
    jobs += [_job(ctx, p, UNHARDENED, sizes[p.name], "none", "make bench-unhardened")
             for p in plain]
    cells = interleave(ctx, "debug cost", jobs)
    cols = [c for c, _ in FLAG_COLUMNS]
    t = RatioTable.from_cells("debug_cost", "Debug flags and hardening: alloc+free pair, "
                              "batches of 64 objects, one thread", "ns per pair", rows,
                              cols + [UNHARDENED], cells, "ns_per_pair")
    t.extra = [("hardened / unhardened", lambda r: _hardening_text(t, r))]
    t.no_ratio.add(UNHARDENED)
    sz = RatioTable.from_cells("debug_size", "Debug flags: the object's stride in its slab "
                               "(slabinfo objsize)", "bytes per object", rows, cols, cells,
                               "obj_size")
    sz.values = {k: v for k, v in sz.values.items() if v > 0}
    return Section("debug_cost", "Debug and hardening cost", _intro(), [t, sz], _notes(t, rows))


def _intro():
    return ["`bench/debug_cost/debug_cost`: the fast-path pattern (allocate 64 objects, write "
            "a byte in each, free them in order, repeat) on a cache of the row's size created "
            "with no flag (*default*) or with `SLAB_CONSISTENCY_CHECKS` (F), `SLAB_RED_ZONE` "
            "(Z), `SLAB_POISON` (P), `SLAB_STORE_USER` (U) or all four; the *kmalloc-64* rows "
            "give the flags to the kmalloc-64 cache with `USLAB_OPTIONS=slub_debug=FLAGS,kmalloc-64`"
            ". Caches are not merged (`slab_nomerge`). Each run is timed in chunks of 1024 "
            "pairs and reports the median chunk, so that time the process spends "
            "descheduled on a busy machine stays out of it; cells are the median of the "
            "runs. Ratios are to the row's default column. "
            "*unhardened* is the same default run from a build with "
            "`-DCONFIG_SLAB_FREELIST_HARDENED=0 -DCONFIG_SLAB_FREELIST_RANDOM=0` "
            "(`BUILD/unhardened`, made by `make bench`), and *hardened / unhardened* is what "
            f"the default hardening costs (aim: at most {HARDENING_AIM:.2f}x).", "",
            "A flag that an allocator does not implement is dropped when the cache is "
            "created (SLOB has no debug flags, as in Linux; hardening is SLUB's and SLAB's), "
            "so such a column repeats the default run: how far it strays from 1.00x is the "
            "noise of this run.", ""]


def _notes(t, rows):
    """The hardening ratio of each allocator, geometric mean over its rows."""
    parts = []
    for a in ALLOCATORS:
        rs = [t.value(r, "default") / t.value(r, UNHARDENED) for r in rows
              if r.alloc == a and t.value(r, "default") and t.value(r, UNHARDENED)]
        if rs:
            parts.append(f"{a} {fmt_ratio(geomean(rs))}")
    if not parts:
        return []
    return ["Cost of the default hardening, geometric mean over each allocator's rows "
            "(hardened / unhardened): " + ", ".join(parts) + ".", ""]
