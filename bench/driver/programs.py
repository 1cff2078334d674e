# SPDX-License-Identifier: MIT
"""Whole programs under LD_PRELOAD: Debian's python3, perl, sqlite3, gcc, git
and redis-server on inputs generated here, timed (wall seconds) and measured
(peak RSS of the largest process, from wait4) under each peer and each uslab
drop-in.  They are started through bench/spawn (see spawn.c for why).
redis is a server: bench/programs/redis.sh reports its own figures (the
benchmark's time, the server's peak RSS), which replace spawn's."""
from __future__ import annotations

import os
import shutil
import subprocess

from .core import Job, Outcome, interleave, progress, run
from .table import Table
from .workloads import Section

GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_AUTHOR_DATE": "2022-03-20T12:00:00Z", "GIT_COMMITTER_DATE": "2022-03-20T12:00:00Z",
}


class Program:
    """A whole program: its column label, what it needs, how to set it up
    (once, untimed, under glibc) and the command to time."""

    def __init__(self, label, need, setup, cmd, env=None, stdin=None, results=None):
        self.label, self.need, self.setup = label, need, setup
        self.cmd, self.env, self.stdin = cmd, env or {}, stdin
        # {RESULT the program prints: spawn's RESULT it replaces}
        self.results = results or {}


def _python(ctx, d):
    script = os.path.join(ctx.root, "bench", "programs", "alloc.py")
    env = {"PYTHONMALLOC": "malloc", "SCALE": "0.5" if ctx.quick else "1"}
    return Program("python3", "/usr/bin/python3", lambda: None,
                   ["/usr/bin/python3", script], env)


def _perl(ctx, d):
    script = os.path.join(ctx.root, "bench", "programs", "alloc.pl")
    env = {"SCALE": "0.5" if ctx.quick else "1"}
    return Program("perl", "perl", lambda: None, ["perl", script], env)


def _sqlite(ctx, d):
    n = 15000 if ctx.quick else 30000
    sql = os.path.join(d, "insert.sql")

    def setup():
        with open(sql, "w") as f:
            f.write("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, v INTEGER, note TEXT);\n"
                    "BEGIN;\n")
            for i in range(n):
                f.write(f"INSERT INTO t(name, v, note) VALUES ('row-{i:06d}', {i * 7 % 1000}, "
                        f"'{'x' * (i % 97)}');\n")
            f.write("COMMIT;\nCREATE INDEX t_v ON t(v);\n"
                    "SELECT count(*), sum(v), max(length(note)) FROM t;\n"
                    "SELECT v, count(*) FROM t GROUP BY v ORDER BY 2 DESC, 1 LIMIT 3;\n")
    return Program("sqlite3", "sqlite3", setup, ["sqlite3", ":memory:"], stdin=sql)


def _gcc(ctx, d):
    nf = 50 if ctx.quick else 100
    src = os.path.join(d, "big.c")

    def setup():
        with open(src, "w") as f:
            for i in range(nf):
                f.write(f"static const int tab{i}[] = {{"
                        + ",".join(str((i * 31 + k * 17) % 1000) for k in range(16)) + "};\n")
                f.write(f"long f{i}(long x) {{\n  long s = 0;\n  for (int k = 0; k < 16; k++) {{\n"
                        f"    switch ((x + k) % 4) {{\n    case 0: s += tab{i}[k] * x; break;\n"
                        f"    case 1: s -= tab{i}[k]; break;\n    case 2: s ^= tab{i}[k] << 3; break;\n"
                        f"    default: s += k * {i}; }}\n  }}\n  return s;\n}}\n")
            f.write("long all(long x) {\n  long t = 0;\n")
            for i in range(nf):
                f.write(f"  t += f{i}(x + {i});\n")
            f.write("  return t;\n}\n")
    return Program("gcc", "gcc", setup, ["gcc", "-O2", "-c", src, "-o", os.path.join(d, "big.o")])


def _git(ctx, d):
    files = 80 if ctx.quick else 160
    src = os.path.join(d, "src")
    env = dict(GIT_ENV, HOME=d)
    script = ("rm -rf clone && git clone -q --no-local src clone && "
              "git -C clone log -p >/dev/null && git -C clone repack -adfq && "
              "git -C clone fsck --no-progress")

    def setup():
        shutil.rmtree(src, ignore_errors=True)
        os.makedirs(src)
        genv = dict(os.environ, **env)
        genv.pop("LD_PRELOAD", None)
        subprocess.run(["git", "init", "-q", "-b", "main"], cwd=src, env=genv, check=True)
        for c in range(1, 4):
            for i in range(1, files + 1):
                with open(os.path.join(src, f"f{i}.txt"), "w") as f:
                    f.write("\n".join(str(x) for x in range(i, i * 20, c)) + "\n")
            subprocess.run(["git", "add", "."], cwd=src, env=genv, check=True)
            subprocess.run(["git", "commit", "-qm", f"commit {c}"], cwd=src, env=genv, check=True)
    return Program("git", "git", setup, ["sh", "-c", script], env)


def _redis(ctx, d):
    script = os.path.join(ctx.root, "bench", "programs", "redis.sh")
    requests = "5000" if ctx.quick else "20000"
    return Program("redis", "redis-server", lambda: None, [script, requests],
                   results={"bench_wall_s": "wall_s", "server_rss_kib": "maxrss_kib"})


PROGRAMS = [_python, _perl, _sqlite, _gcc, _git, _redis]


def _job(config, prog, cwd, spawn):
    env = dict(prog.env, BENCH_PRELOAD=config.preload or "")

    def fn(timeout):
        o = run([spawn] + prog.cmd, env=env, timeout=timeout, cwd=cwd, stdin=prog.stdin)
        for own, replaced in prog.results.items():
            if own in o.values:
                o.values[replaced] = o.values.pop(own)
            elif not o.error:
                o.error = f"no {own}"
        return o
    return Job(config, prog.label, fn, ("wall_s", "maxrss_kib"), 120.0, " ".join(prog.cmd))


def _missing_job(config, label, why):
    return Job(config, label, lambda t: Outcome(error=why), (), 1.0, "")


def programs(ctx):
    rows = ctx.peers() + ctx.dropins()
    jobs, labels, notes = [], [], []
    spawn = os.path.join(ctx.build, "bench", "malloc", "spawn", "spawn")
    for make in PROGRAMS:
        d = os.path.join(ctx.work, make.__name__.strip("_"))
        os.makedirs(d, exist_ok=True)
        prog = make(ctx, d)
        labels.append(prog.label)
        why = (f"{prog.need} not installed" if not shutil.which(prog.need) else
               None if os.access(spawn, os.X_OK) else "bench/spawn not built")
        if why:
            jobs += [_missing_job(r, prog.label, why) for r in rows]
            continue
        try:
            prog.setup()
        except (OSError, subprocess.CalledProcessError) as exc:
            jobs += [_missing_job(r, prog.label, f"setup failed: {exc}") for r in rows]
            continue
        jobs += [_job(r, prog, d, spawn) for r in rows]
    progress("whole programs: inputs generated")
    cells = interleave(ctx, "whole programs", jobs)
    t1 = Table.from_cells("programs_time", "Whole programs: wall time", "seconds",
                          rows, labels, cells, "wall_s")
    t2 = Table.from_cells("programs_rss", "Whole programs: peak RSS of the largest process",
                          "MiB", rows, labels, cells, "maxrss_kib", scale=1 / 1024)
    intro = ["Debian's programs with the malloc of each row preloaded (every process they "
             "start inherits it): *python3* (`PYTHONMALLOC=malloc`) runs bench/programs/alloc.py "
             "(trees of small objects, dicts, JSON); *perl* runs bench/programs/alloc.pl "
             "(hashes of arrays, sorting, regular expressions, strings); *sqlite3* inserts rows "
             "one statement at a time into an in-memory database, indexes and queries them; "
             "*gcc* compiles a generated C file at -O2; *git* clones a generated three-commit "
             "repository, runs `log -p`, `repack -adf` and `fsck`; *redis* is redis-server "
             "under the row's malloc, driven on 127.0.0.1 by redis-benchmark (on glibc's "
             "malloc, as are all the helpers) with random keys: its time is the benchmark's, "
             "its RSS the server's peak. Debian links redis-server with jemalloc, so in that "
             "column the *glibc* row (nothing preloaded) is jemalloc's. Set-up runs once, "
             "untimed.", ""]
    return Section("programs", "Whole programs under LD_PRELOAD", intro, [t1, t2], notes)
