# SPDX-License-Identifier: MIT
"""The "kfree_rcu vs kfree" section: what freeing after a grace period costs
(bench/rcu/kfree_rcu.c), per allocator, registered by bench/run.py.

Rows are uslab's kmalloc of each allocator only: the peers have no RCU, so
the table's "vs best peer" column stays empty and the comparison is the
ratio kfree_rcu / kfree of each row, given below the table.
"""
from __future__ import annotations

from driver.core import interleave, program_job
from driver.table import Table, fmt_ratio
from driver.workloads import Section

SIZES = [64, 512]
FREES = ["kfree", "kfree_rcu"]


def _columns(ctx):
    n = 5000 if ctx.quick else 20000
    return [(f"{free} {size} B", {"free": free, "size": size, "n": n, "time": ctx.run_time})
            for size in SIZES for free in FREES]


def _ratios(t, rows):
    """kfree_rcu / kfree, per row and size, as one line of text."""
    parts = []
    for r in rows:
        for size in SIZES:
            a, b = t.value(r, f"kfree_rcu {size} B"), t.value(r, f"kfree {size} B")
            if a and b:
                parts.append(f"{r.name} {size} B {fmt_ratio(a / b)}")
    return ["kfree_rcu / kfree: " + ", ".join(parts) + "." if parts else
            "kfree_rcu / kfree: no complete pair of cells.", ""]


def kfree_rcu_section(ctx):
    rows = ctx.api("kmalloc")
    cols = _columns(ctx)
    jobs = [program_job(ctx, r, label, "rcu/kfree_rcu", args,
                        ["ns_per_object", "cpu_ns_per_object"])
            for label, args in cols for r in rows]
    cells = interleave(ctx, "kfree_rcu", jobs)
    names = [c for c, _ in cols]
    t = Table.from_cells("kfree_rcu", "kfree_rcu vs kfree: freeing kmalloc objects, wall time",
                         "wall ns per object freed", rows, names, cells, "ns_per_object")
    t_cpu = Table.from_cells("kfree_rcu_cpu", "kfree_rcu vs kfree: CPU time of all threads",
                             "CPU ns per object freed", rows, names, cells,
                             "cpu_ns_per_object")
    intro = ["Each round allocates 20000 objects (5000 in the quick run) with an "
             "`rcu_head` first, then frees them all with `kfree()`, or with `kfree_rcu()` "
             "followed by `rcu_barrier()`: the kfree_rcu columns include the per-thread "
             "batching, the grace period (liburcu's urcu-bp) and the batched frees on the "
             "RCU thread, amortised over the round. Only the freeing is timed: as wall "
             "time (the RCU thread may free on another CPU meanwhile) and as the CPU time "
             "of every thread (the whole cost).", ""]
    notes = ["Wall time, " + _ratios(t, rows)[0], "CPU time, " + _ratios(t_cpu, rows)[0], ""]
    return Section("kfree_rcu", "kfree_rcu vs kfree", intro, [t, t_cpu], notes)
