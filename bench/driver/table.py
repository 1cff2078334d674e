# SPDX-License-Identifier: MIT
"""A table of medians: one row per configuration, one column per variant of
a workload, lower is better, each value also given as a ratio to the best
peer of its column."""
from __future__ import annotations

import math


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def fmt_num(v):
    if v is None:
        return "-"
    a = abs(v)
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def fmt_ratio(r):
    if r is None:
        return "-"
    return f"{r:.2f}x" if r >= 0.095 else f"{r:.2g}x"


class Table:
    """rows: Configs; columns: labels; values {(row name, column): value};
    errors {(row name, column): reason} for the cells that have none."""

    def __init__(self, name, title, unit, rows, columns, values, errors, note=None):
        self.name = name          # short id: file names of plots
        self.title = title
        self.unit = unit
        self.rows = rows
        self.columns = columns
        self.values = values
        self.errors = errors
        self.note = note

    @classmethod
    def from_cells(cls, name, title, unit, rows, columns, cells, metric, scale=1.0, note=None):
        """cells {(row, column): core.Cell}; metric: which median to show."""
        values, errors = {}, {}
        for r in rows:
            for c in columns:
                cell = cells.get((r.name, c))
                if cell is None:
                    continue
                if cell.error:
                    errors[(r.name, c)] = cell.error
                elif metric in cell.values:
                    values[(r.name, c)] = cell.values[metric] * scale
                else:
                    errors[(r.name, c)] = f"no {metric}"
        return cls(name, title, unit, rows, columns, values, errors, note)

    def value(self, row, col):
        return self.values.get((row.name, col))

    def best_peer(self, col):
        """(name, value) of the peer with the lowest value in col, or None."""
        peers = [(r.name, self.value(r, col)) for r in self.rows if r.is_peer]
        peers = [p for p in peers if p[1] is not None and p[1] > 0]
        return min(peers, key=lambda p: p[1]) if peers else None

    def ratio(self, row, col):
        best, v = self.best_peer(col), self.value(row, col)
        return v / best[1] if best and v is not None else None

    def geomean_ratio(self, row, columns=None):
        return geomean([self.ratio(row, c) for c in columns or self.columns])

    def geomean_text(self, row, columns=None):
        """The geomean ratio, marked "(k of n)" when only k columns have one."""
        cols = columns or self.columns
        have = [c for c in cols if self.ratio(row, c) is not None]
        g = self.geomean_ratio(row, cols)
        if g is None:
            return None
        return fmt_ratio(g) + ("" if len(have) == len(cols) else f" ({len(have)} of {len(cols)})")

    def row(self, name):
        return next((r for r in self.rows if r.name == name), None)

    def cell_text(self, row, col):
        v = self.value(row, col)
        if v is None:
            err = self.errors.get((row.name, col))
            return f"n/a ({err})" if err else "-"
        if row.is_peer:
            best = self.best_peer(col)
            text = fmt_num(v)
            return f"**{text}**" if best and best[0] == row.name else text
        r = self.ratio(row, col)
        return f"{fmt_num(v)} ({fmt_ratio(r)})" if r is not None else fmt_num(v)

    def markdown(self):
        out = [f"**{self.title}** ({self.unit}; lower is better)", ""]
        if self.note:
            out += [self.note, ""]
        out.append("| | " + " | ".join(self.columns) + " | vs best peer |")
        out.append("|---|" + "---:|" * (len(self.columns) + 1))
        peers_done = False
        for r in self.rows:
            if not r.is_peer and not peers_done:
                out.append(self._best_row())
                peers_done = True
            cells = [self.cell_text(r, c) for c in self.columns]
            name = f"*{r.name}*" if r.is_reference else r.name
            out.append(f"| {name} | " + " | ".join(cells) + f" | {self.geomean_text(r) or '-'} |")
        if not peers_done:
            out.append(self._best_row())
        out.append("")
        return out

    def _best_row(self):
        cells = []
        for c in self.columns:
            b = self.best_peer(c)
            cells.append(f"*{b[0]}*" if b else "n/a")
        return "| *best peer* | " + " | ".join(cells) + " | 1.00x |"
