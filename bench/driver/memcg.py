# SPDX-License-Identifier: MIT
"""What memory cgroup accounting costs on the fast path: bench/memcg/memcg,
the alloc+free pair of the fast-path section, unaccounted (*plain*) against
charged to an active group (*accounted*): kmalloc with GFP_KERNEL against
GFP_KERNEL_ACCOUNT (kmalloc-cg-<n>), and a plain cache against a
SLAB_ACCOUNT one.  SLUB and SLAB only: SLOB has no accounting, as in Linux.

No peer runs here: the ratio is each row's accounted column over its plain
column (aim: under MEMCG_AIM)."""
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
MEMCG_AIM = 1.5


class AccountingTable(Table):
    """Cells read "value"; the last column is accounted / plain."""

    def ratio_text(self, row):
        p, a = self.value(row, "plain"), self.value(row, "accounted")
        if not p or a is None:
            return "-"
        r = a / p
        return fmt_ratio(r) + ("" if r < MEMCG_AIM else " (over the aim)")

    def cell_text(self, row, col):
        v = self.value(row, col)
        if v is None:
            err = self.errors.get((row.name, col))
            return f"n/a ({err})" if err else "-"
        return fmt_num(v)

    def markdown(self):
        out = [f"**{self.title}** ({self.unit}; lower is better)", ""]
        out.append("| | " + " | ".join(self.columns) + " | accounted / plain |")
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


def memcg(ctx):
    rows = _rows(ctx)
    sizes = {f"{a} {label}": size for a in ALLOCS for label, _, size in OBJECTS}
    jobs = [program_job(ctx, r, col, REL, {"size": sizes[r.name], "mode": col,
                                           "time": ctx.run_time}, ["ns_per_pair"])
            for col in COLUMNS for r in rows]
    cells = interleave(ctx, "memcg", jobs)
    t = AccountingTable.from_cells("memcg", "Memory cgroup accounting: alloc+free pair, "
                                   "batches of 64 objects, one thread", "ns per pair", rows,
                                   COLUMNS, cells, "ns_per_pair")
    return Section("memcg", "Cost of memory cgroup accounting", _intro(), [t], _notes(t, rows))


def _intro():
    return ["`bench/memcg/memcg`: the fast-path pattern (allocate 64 objects, write a byte in "
            "each, free them in order, repeat). *plain*: `kmalloc(size, GFP_KERNEL)`, or a "
            "cache created without flags; *accounted*: `kmalloc(size, GFP_KERNEL_ACCOUNT)` "
            "(the kmalloc-cg-<n> caches), or the same cache created with `SLAB_ACCOUNT`, "
            "every object charged to a group the thread has active "
            "(`set_active_memcg`) and uncharged when freed. The program checks that the "
            "accounted objects are charged before it measures. SLOB has no accounting (as "
            f"in Linux), so it has no row. Aim: accounted / plain under {MEMCG_AIM:.1f}x.", ""]


def _notes(t, rows):
    parts = []
    for a in ALLOCS:
        rs = [t.value(r, "accounted") / t.value(r, "plain") for r in rows
              if r.alloc == a and t.value(r, "plain") and t.value(r, "accounted")]
        if rs:
            parts.append(f"{a} {fmt_ratio(geomean(rs))}")
    if not parts:
        return []
    return ["Cost of accounting, geometric mean over each allocator's rows (accounted / "
            "plain): " + ", ".join(parts) + ".", ""]
