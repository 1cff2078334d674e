# SPDX-License-Identifier: MIT
"""SVG plots with gnuplot: for each table, every row's ratio to the best peer
per column (log scale, 1 = the best peer); and an overview of uslab's rows,
the geometric mean of each table's ratios."""
from __future__ import annotations

import math
import os
import shutil
import subprocess

from .core import progress

# Peers in greys; each uslab allocator in one hue: dark for the drop-in,
# middle for kmem_cache, light for kmalloc and bulk.
COLORS = {
    "glibc": "#8c8c8c", "jemalloc": "#b0b0b0", "tcmalloc": "#6e6e6e", "mimalloc": "#d6d6d6",
    "mmap": "#8c8c8c", "floor": "#202020",
    "slub": ("#174a85", "#3d85d6", "#9cc5f2"), "slab": ("#1f6b2c", "#3fa552", "#a5dcad"),
    "slob": ("#9a4700", "#e07b1a", "#f6c48e"),
}


def _color(row_name, alloc, is_peer):
    if is_peer or isinstance(COLORS.get(alloc), str):     # a peer, or the floor
        return COLORS.get(alloc, "#999999")
    dark, mid, light = COLORS.get(alloc, ("#333333", "#666666", "#999999"))
    if row_name.endswith(" malloc"):
        return dark
    return mid if row_name.endswith((" cache", " API", " alloc_pages")) else light


def _yrange(lines):
    """Powers of two around every value and 1 (log scale, bars from the bottom)."""
    vals = [v for _, vs in lines for v in vs if v] + [1.0]
    lo, hi = min(vals), max(vals)
    return 2.0 ** math.floor(math.log2(lo) - 0.01), 2.0 ** math.ceil(math.log2(hi) + 0.3)


def _q(s):
    return '"' + str(s).replace('"', "'") + '"'


def _write_dat(path, header, lines):
    with open(path, "w") as f:
        f.write(" ".join(_q(h) for h in header) + "\n")
        for label, vals in lines:
            f.write(_q(label) + " " + " ".join("NaN" if v is None else f"{v:.6g}" for v in vals)
                    + "\n")


def _script(svg, dat, title, ylabel, colors, width, yrange, labels):
    n = len(colors) + 1
    rotate = "rotate by -30" if max(len(x) for x in labels) > 10 else ""
    return f"""set terminal svg size {width},440 dynamic font "sans,11" background "white"
set yrange [{yrange[0]:g}:{yrange[1]:g}]
set output {_q(svg)}
set title {_q(title)}
set style data histograms
set style histogram clustered gap 2
set style fill solid 0.95 border rgb "#404040"
set boxwidth 0.92
set logscale y 2
set ylabel {_q(ylabel)}
set key outside right top vertical noenhanced
set xtics nomirror noenhanced {rotate}
set grid ytics
set datafile missing "NaN"
set arrow from graph 0, first 1 to graph 1, first 1 nohead dashtype 2 lw 1.5 front
colors = {_q(" ".join(colors))}
plot for [i=2:{n}] {_q(dat)} using i:xtic(1) title columnheader(i) lc rgb word(colors, i-1)
"""


def _gnuplot(script, where):
    path = where + ".gp"
    with open(path, "w") as f:
        f.write(script)
    p = subprocess.run(["gnuplot", path], capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        progress(f"gnuplot failed on {path}: {p.stderr.strip()[-300:]}")
        return False
    return True


def table_plot(table, outdir, datdir):
    rows = [r for r in table.rows if any(table.ratio(r, c) for c in table.columns)]
    if not rows:
        return None
    dat = os.path.join(datdir, table.name + ".dat")
    lines = [(c, [table.ratio(r, c) for r in rows]) for c in table.columns]
    _write_dat(dat, ["column"] + [r.name for r in rows], lines)
    svg = os.path.join(outdir, table.name + ".svg")
    colors = [_color(r.name, r.alloc, r.is_peer) for r in rows]
    width = max(700, 110 * len(table.columns) + 16 * len(rows) * len(table.columns) // 2 + 200)
    ok = _gnuplot(_script(svg, dat, table.title, "ratio to the best peer (lower is better)",
                          colors, width, _yrange(lines), table.columns),
                  os.path.join(datdir, table.name))
    return svg if ok else None


def overview_plot(tables, outdir, datdir):
    """Geomean ratio of each allocator's drop-in and first API row per table."""
    series = []
    for a in ("slub", "slab", "slob"):
        series += [(f"{a} malloc", a, True), (f"{a} API", a, False)]
    lines = []
    for t in tables:
        vals = []
        for _, alloc, dropin in series:
            rows = [r for r in t.rows if r.alloc == alloc and not r.is_peer
                    and r.name.endswith(" malloc") == dropin]
            vals.append(t.geomean_ratio(rows[0]) if rows else None)
        if any(vals):
            lines.append((t.name, vals))
    if not lines:
        return None
    dat = os.path.join(datdir, "overview.dat")
    _write_dat(dat, ["table"] + [s[0] for s in series], lines)
    svg = os.path.join(outdir, "overview.svg")
    colors = [_color(s[0], s[1], False) for s in series]
    ok = _gnuplot(_script(svg, dat, "uslab against the best peer, per table (geometric means)",
                          "ratio to the best peer (lower is better)", colors,
                          max(900, 90 * len(lines) + 250), _yrange(lines),
                          [name for name, _ in lines]),
                  os.path.join(datdir, "overview"))
    return svg if ok else None


def plot_all(tables, outdir, datdir):
    """{table name or 'overview': svg path}; {} with a message if no gnuplot."""
    if not shutil.which("gnuplot"):
        progress("gnuplot is not installed: no plots (bench/setup.sh installs gnuplot-nox)")
        return {}
    os.makedirs(outdir, exist_ok=True)
    os.makedirs(datdir, exist_ok=True)
    out = {}
    for t in tables:
        svg = table_plot(t, outdir, datdir)
        if svg:
            out[t.name] = svg
    svg = overview_plot(tables, outdir, datdir)
    if svg:
        out["overview"] = svg
    return out
