# SPDX-License-Identifier: MIT
"""The benchmark driver behind `make bench` (entry point: bench/run.py).

1. Overview.  Every workload is run once per configuration: the peers'
   malloc (glibc, and jemalloc, tcmalloc, mimalloc through LD_PRELOAD), uslab's
   drop-in malloc of each allocator (LD_PRELOAD of libuslab-malloc-ALLOC.so),
   and uslab's own API (kmem_cache_*, kmalloc) linked from libuslab-ALLOC.a.
   Runs are interleaved (A B C D A B C D ...) so that drift of the machine
   hits every configuration alike, repeated, and reduced to medians; ratios
   are to the best peer.  Nothing is timed inside the driver except whole
   programs (wall time and peak RSS of the process tree, from wait4).
2. Modules, in the order a run uses them:
     core.py          configurations, running one program, interleaving, medians
     table.py         a table of medians with ratios to the best peer
     workloads.py     the C benchmark programs under bench/*/ (micro workloads)
     programs.py      whole programs (python3, perl, sqlite3, gcc, git, redis) under LD_PRELOAD
     instructions.py  instructions per alloc+free pair from valgrind's callgrind
     pagealloc.py     the page allocator against mmap/munmap (bench/page_alloc)
     debugcost.py     debug flags and hardening against the default (bench/debug_cost)
     plot.py          SVG plots with gnuplot
     report.py        docs/BENCHMARKS.md and the README block
     main.py          options, the order of the sections, machine description
3. Failure is data: a configuration that is not built, not installed, crashes,
   exits non-zero or times out is shown as "n/a (reason)" in its cells, its
   output is kept under BUILD/bench/results/logs/, and it is not run again in
   later repetitions of that section; the rest of the run goes on.
4. Invariants: the same work for every configuration of a column (time-bound
   workloads report a rate, fixed-work ones a total); lower is better in
   every table, so that every ratio reads the same way.
"""
