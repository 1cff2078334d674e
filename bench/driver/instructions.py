# SPDX-License-Identifier: MIT
"""Instructions per alloc+free pair, counted by valgrind's callgrind: the one
figure that machine noise does not move.  The fast-path program runs a fixed
number of pairs after its warm-up, all inside fastpath_measured(); callgrind
counts only there (--toggle-collect), so start-up, warm-up and exit are left
out, and the count over the pairs is the cost of one pair."""
from __future__ import annotations

import re
import shutil

from .core import Job, Outcome, interleave, run
from .table import Table
from .workloads import FASTPATH_SIZES, Section

PAIRS = 64 * 2000


def _count(cmd, preload, timeout):
    o = run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
             "--toggle-collect=fastpath_measured*"] + cmd, preload=preload, timeout=timeout)
    if o.error:
        return o
    m = re.search(r"Collected : (\d+)", o.output)
    if not m or not int(m.group(1)):
        o.error = "no callgrind count"
        return o
    o.values["ir_per_pair"] = int(m.group(1)) / PAIRS
    return o


def _job(ctx, config, size):
    exe = ctx.bench_bin(config, "slab_fastpath/fastpath")
    base = [exe or "fastpath", f"api={config.api}", f"size={size}"]

    def fn(timeout):
        if exe is None:
            return Outcome(error="fastpath not built")
        return _count(base + [f"pairs={PAIRS}"], config.preload, timeout)
    return Job(config, f"{size} B", fn, ("ir_per_pair",), 300.0, " ".join(base))


def instructions(ctx):
    rows = (ctx.peers() + ctx.dropins() + ctx.api("kmem_cache") + ctx.api("kmalloc")
            + [ctx.floor()])
    sizes = [64] if ctx.quick else FASTPATH_SIZES
    cols = [f"{s} B" for s in sizes]
    if not shutil.which("valgrind"):
        jobs = [Job(r, c, lambda t: Outcome(error="valgrind not installed"))
                for c in cols for r in rows]
    else:
        jobs = [_job(ctx, r, s) for s in sizes for r in rows]
    cells = interleave(ctx, "instructions", jobs, reps=1)
    t = Table.from_cells("instructions", "Instructions per alloc+free pair (callgrind)",
                         "instructions", rows, cols, cells, "ir_per_pair")
    intro = [f"The fast-path program (batches of 64) under `valgrind --tool=callgrind "
             f"--toggle-collect=fastpath_measured`: {PAIRS} pairs after the warm-up, counted "
             "by callgrind and divided by the pairs. Every instruction of malloc+free (or "
             "kmem_cache_alloc+free, kmalloc+kfree) is in, and so is the benchmark's own "
             "loop, the same for every row. Counted once: the count does not vary from run "
             "to run. The *floor* row is the fast-path section's yardstick (a bare "
             "free list behind two noinline calls): no peer, in no mean.", ""]
    return Section("instructions", "Instruction counts", intro, [t])
