# SPDX-License-Identifier: MIT
"""Configurations, running one program, interleaving repetitions, medians."""
from __future__ import annotations

import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field

LIBDIR = "/usr/lib/x86_64-linux-gnu"
PEERS = [
    ("glibc", None),
    ("jemalloc", f"{LIBDIR}/libjemalloc.so.2"),
    ("tcmalloc", f"{LIBDIR}/libtcmalloc_minimal.so.4"),
    ("mimalloc", f"{LIBDIR}/libmimalloc.so.2"),
]
ALLOCATORS = ["slub", "slab", "slob"]

# Row labels of uslab's API configurations, by api= value.
API_LABEL = {"kmem_cache": "cache", "kmalloc": "kmalloc", "bulk": "bulk"}


@dataclass(frozen=True)
class Config:
    """One way of allocating: a row of the tables."""
    name: str                 # row label: "glibc", "slub malloc", "slub cache"
    family: str               # "peer", "uslab", or "reference" (a yardstick:
                              # no peer, in no overview or summary)
    alloc: str                # the peer's name, or slub/slab/slob
    api: str                  # api= of the benchmark programs
    preload: str | None       # LD_PRELOAD, or None
    bindir: str               # where its benchmark binaries are
    missing: str | None = None  # why it cannot run at all, or None

    @property
    def is_peer(self):
        return self.family == "peer"

    @property
    def is_reference(self):
        return self.family == "reference"


class Context:
    """What every section needs: paths, mode, repetitions, configurations."""

    def __init__(self, build, quick, reps, threads, root):
        self.build = build
        self.quick = quick
        self.reps = reps
        self.threads = threads
        self.root = root
        self.results = os.path.join(build, "bench", "results")
        self.logs = os.path.join(self.results, "logs")
        self.work = os.path.join(build, "bench", "work")
        self.run_time = 0.05 if quick else 0.2
        self.ncpu = os.cpu_count() or 1
        self.failures = []        # (section, config, column, reason, log)
        for d in (self.logs, self.work):
            os.makedirs(d, exist_ok=True)
        for old in os.listdir(self.logs):    # logs of an earlier run would mislead
            if old.endswith(".log"):
                os.remove(os.path.join(self.logs, old))

    def peers(self):
        out = []
        for name, lib in PEERS:
            missing = None if lib is None or os.path.exists(lib) else "not installed"
            out.append(Config(name, "peer", name, "malloc", lib,
                              os.path.join(self.build, "bench", "malloc"), missing))
        return out

    def dropins(self):
        out = []
        for a in ALLOCATORS:
            lib = os.path.abspath(os.path.join(self.build, "lib", f"libuslab-malloc-{a}.so"))
            missing = None if os.path.exists(lib) else "drop-in not built"
            out.append(Config(f"{a} malloc", "uslab", a, "malloc", lib,
                              os.path.join(self.build, "bench", "malloc"), missing))
        return out

    def api(self, api):
        out = []
        for a in ALLOCATORS:
            d = os.path.join(self.build, "bench", a)
            missing = None if os.path.isdir(d) else f"{a} not built"
            out.append(Config(f"{a} {API_LABEL[api]}", "uslab", a, api, None, d, missing))
        return out

    def floor(self):
        """The reference floor (fastpath api=floor): the malloc-only program,
        which links no allocator, run with no preload.  alloc "floor" is none
        of ALLOCATORS, so no overview, summary or SLAB/SLOB table takes it."""
        return Config("floor: bare list, noinline", "reference", "floor", "floor", None,
                      os.path.join(self.build, "bench", "malloc"))

    def bench_bin(self, config, rel):
        """The binary bench/REL.c of config's build, or None."""
        path = os.path.join(config.bindir, rel)
        return path if os.access(path, os.X_OK) else None


@dataclass
class Outcome:
    """One run of one program."""
    values: dict = field(default_factory=dict)  # RESULT name -> value
    wall: float = 0.0                          # seconds
    maxrss_kib: int = 0                        # largest process of the tree
    error: str | None = None                   # why it failed, or None
    output: str = ""                           # stdout + stderr, for the log


def _describe_failure(status, timed_out, timeout, stderr):
    if timed_out:
        return f"timeout {timeout:.0f}s"
    if "cannot be preloaded" in stderr:
        return "preload failed"
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            return f"crashed: {signal.Signals(sig).name}"
        except ValueError:
            return f"crashed: signal {sig}"
    code = os.WEXITSTATUS(status)
    if code > 128:
        # a shell reports its child's signal as 128 + n
        try:
            return f"crashed: {signal.Signals(code - 128).name}"
        except ValueError:
            pass
    last = [ln for ln in stderr.strip().splitlines() if ln.strip()]
    why = re.sub(r"\s+", " ", last[-1])[:60] if last else ""
    return f"exit {code}" + (f": {why}" if why else "")


def run(cmd, preload=None, env=None, timeout=60.0, cwd=None, stdin=None):
    """Run cmd (a list) to the end or to the timeout; never raises for the
    program's own failure.  stdin: a path or None."""
    e = dict(os.environ)
    e.pop("LD_PRELOAD", None)
    e.update(env or {})
    if preload:
        e["LD_PRELOAD"] = preload
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            open(stdin or os.devnull, "rb") as inp:
        t0 = time.monotonic()
        try:
            p = subprocess.Popen(cmd, env=e, stdout=out, stderr=err, stdin=inp,
                                 cwd=cwd, start_new_session=True)
        except OSError as exc:
            return Outcome(error=f"cannot start: {exc.strerror}")
        timed_out = threading.Event()

        def kill():
            timed_out.set()
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _, status, ru = os.wait4(p.pid, 0)
        finally:
            timer.cancel()
        p.returncode = -1   # reaped above: keep Popen from waiting again
        wall = time.monotonic() - t0
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode(errors="replace")
        stderr = err.read().decode(errors="replace")
    o = Outcome(wall=wall, maxrss_kib=ru.ru_maxrss, output=stdout + stderr)
    for m in re.finditer(r"^RESULT (\S+) ([-0-9.eE+]+)", stdout, re.M):
        o.values[m.group(1)] = float(m.group(2))
    failed = timed_out.is_set() or status != 0 or "cannot be preloaded" in stderr
    if failed:
        o.error = _describe_failure(status, timed_out.is_set(), timeout, stderr)
    return o


@dataclass
class Job:
    """One cell's runs: config in column, fn(timeout) -> Outcome."""
    config: Config
    column: str
    fn: object
    metrics: tuple = ()        # RESULT names that must be present
    timeout: float = 60.0      # seconds, at most (see _timeout)
    cmd: str = ""              # for the log
    floor: float | None = None  # least timeout once peers have run (None: the default)


@dataclass
class Cell:
    """Medians of a cell's repetitions, or why there are none."""
    values: dict = field(default_factory=dict)  # metric -> median
    error: str | None = None
    runs: int = 0


def _slug(text):
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()


def _log_failure(ctx, section, job, o):
    path = os.path.join(ctx.logs, f"{_slug(section)}--{_slug(job.column)}--{_slug(job.config.name)}.log")
    with open(path, "w") as f:
        f.write(f"section: {section}\ncolumn: {job.column}\nconfig: {job.config.name}\n")
        f.write(f"preload: {job.config.preload}\ncommand: {job.cmd}\nerror: {o.error}\n\n")
        f.write(o.output[-20000:])
    ctx.failures.append((section, job.config.name, job.column, o.error,
                         os.path.relpath(path, ctx.root)))


def _timeout(job, peer_walls, quick):
    """Once a peer has run in the job's column, a configuration may take some
    multiple of the fastest peer's time, with a floor: an allocator that is
    orders of magnitude slower is reported as a timeout, not waited for."""
    if not peer_walls.get(job.column):
        return job.timeout
    factor, floor = (15, 4.0) if quick else (25, 6.0)
    floor = job.floor or floor
    return min(job.timeout, max(floor, factor * min(peer_walls[job.column])))


def interleave(ctx, section, jobs, reps=None):
    """Run every job once per repetition, in order (A B C D A B C D ...),
    and return {(config name, column): Cell}."""
    reps = reps or ctx.reps
    runs = {(j.config.name, j.column): [] for j in jobs}
    errors = {(j.config.name, j.column): j.config.missing for j in jobs if j.config.missing}
    for name, why in sorted({(j.config.name, j.config.missing) for j in jobs if j.config.missing}):
        ctx.failures.append((section, name, "all", f"not run: {why}", "-"))
    peer_walls = {}
    t0 = time.monotonic()
    for r in range(reps):
        for j in jobs:
            key = (j.config.name, j.column)
            if errors.get(key):
                continue
            o = j.fn(_timeout(j, peer_walls, ctx.quick))
            if not o.error:
                absent = [m for m in j.metrics if m not in o.values]
                if absent:
                    o.error = f"no result {absent[0]}"
            if o.error:
                errors[key] = o.error
                _log_failure(ctx, section, j, o)
                continue
            runs[key].append(o)
            if j.config.is_peer:
                peer_walls.setdefault(j.column, []).append(o.wall)
        progress(f"{section}: repetition {r + 1}/{reps} done ({time.monotonic() - t0:.0f} s)")
    return {key: _cell(rs, errors.get(key)) for key, rs in runs.items()}


def _cell(outcomes, error):
    if error or not outcomes:
        return Cell(error=error or "no run", runs=len(outcomes))
    names = set().union(*(o.values for o in outcomes)) | {"wall", "maxrss_kib"}
    med = {}
    for n in names:
        xs = [o.values[n] if n in o.values else getattr(o, n) for o in outcomes
              if n in o.values or n in ("wall", "maxrss_kib")]
        med[n] = statistics.median(xs)
    return Cell(values=med, runs=len(outcomes))


def progress(msg):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


def program_job(ctx, config, column, rel, args, metrics, timeout=None, floor=None):
    """A job running the benchmark program bench/REL.c of config's build with
    key=value args (api= added from the config)."""
    exe = ctx.bench_bin(config, rel)
    cmd = [exe or rel] + [f"{k}={v}" for k, v in args.items()] + [f"api={config.api}"]
    if exe is None and not config.missing:
        config = Config(**{**config.__dict__, "missing": f"{rel} not built"})
    tmo = timeout or (ctx.run_time * 3 + 20)

    def fn(t):
        return run(cmd, preload=config.preload, timeout=t)
    return Job(config, column, fn, tuple(metrics), tmo, " ".join(cmd), floor)
