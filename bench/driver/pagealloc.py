# SPDX-License-Identifier: MIT
"""The buddy page allocator against mmap/munmap and glibc's aligned_alloc:
drives bench/page_alloc/page_alloc_bench (see its README), which interleaves
and repeats its three methods itself and prints medians as
"RESULT page_alloc_o<order>_t<threads>_<bare|touch>_<method> <ns> ns"."""
from __future__ import annotations

import os
import re

from .core import ALLOCATORS, Config, Job, interleave, run
from .table import Table, fmt_num
from .workloads import Section

REL = "page_alloc/page_alloc_bench"
METHODS = [("mmap", "peer", "mmap"), ("aligned_alloc", "peer", "glibc"),
           ("uslab", "uslab", "slub")]
PATTERN = re.compile(r"page_alloc_o(\d+)_t(\d+)_(bare|touch)_(\w+)$")


def _binary(ctx):
    """The page allocator is the same in every build: take the first."""
    for a in ALLOCATORS:
        path = os.path.join(ctx.build, "bench", a, REL)
        if os.access(path, os.X_OK):
            return a, path
    return None, None


def _size(order):
    kib = 4 << order
    return f"{kib // 1024} MiB" if kib >= 1024 else f"{kib} KiB"


def page_alloc(ctx):
    alloc, exe = _binary(ctx)
    rows = [Config("uslab alloc_pages" if fam == "uslab" else name, fam,
                   (alloc or "slub") if fam == "uslab" else a, name, None, "",
                   None if exe else f"{REL} not built")
            for name, fam, a in METHODS]
    args = ["reps=3", "ms=15"] if ctx.quick else [f"reps={ctx.reps}", "ms=40"]
    cmd = [exe or REL] + args
    job = Job(rows[-1], "all", lambda t: run(cmd, timeout=t), ("memmap_bytes_per_page",),
              600.0, " ".join(cmd))
    cell = interleave(ctx, "page allocator", [job], reps=1)[(rows[-1].name, "all")]
    found = {}
    for name, v in cell.values.items():
        m = PATTERN.match(name)
        if m:
            order, threads, variant, method = m.groups()
            found[(variant, f"{_size(int(order))} {threads}T", method)] = v
    tables = []
    for variant, what in (("bare", "the block untouched"),
                          ("touch", "one byte written in every page")):
        cols = sorted({c for v, c, _ in found if v == variant},
                      key=lambda c: (int(c.split()[0]) * (1024 if "MiB" in c else 1), c))
        values = {}
        errors = {}
        for r, (name, _, _) in zip(rows, METHODS):
            for c in cols or ["-"]:
                v = found.get((variant, c, name))
                if v is not None:
                    values[(r.name, c)] = v
                elif cell.error:
                    errors[(r.name, c)] = cell.error
        tables.append(Table(f"page_alloc_{variant}",
                            f"Page allocator: alloc+free of one block, {what}",
                            "wall ns per pair per thread", rows, cols or ["-"], values, errors))
    intro = ["`uslab_alloc_pages` + `__free_pages` against `mmap` + `munmap` and glibc's "
             "`aligned_alloc` + `free` of the same block, batches of 8 blocks, on 1 and 2 "
             "threads; columns give the block size and threads. The program repeats and "
             "interleaves its three methods itself; medians. Here the best peer is the "
             f"better of mmap and aligned_alloc. Run from the {alloc or 'slub'} build (the page "
             "allocator is the same in all three).", ""]
    notes = []
    if "memmap_bytes_per_page" in cell.values:
        notes = [f"Memory map: {fmt_num(cell.values['memmap_bytes_per_page'])} bytes of "
                 "`struct page` and bookkeeping per 4 KiB page online.", ""]
    return Section("page_alloc", "Page allocator against mmap/munmap", intro, tables, notes)
