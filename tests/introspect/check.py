#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check.py - the checks of tests/introspect/run.sh that read text.

Parsers are written to the kernel's documented formats, not to uslab's code:
  /proc/slabinfo 2.1   slabinfo(5) and Documentation/filesystems/proc.rst: a
                       version line, a "# name ..." line naming the columns,
                       then per cache: name, 5 numbers, ": tunables" and 3
                       numbers, ": slabdata" and 3 numbers, then optional
                       statistics sections (": globalstat" 9 numbers and
                       ": cpustat" 4 with SLAB's statistics; uslab's SLOB
                       adds ": slobstat" 3, see docs/slob-info.md)
  /proc/buddyinfo      "Node N, zone NAME" then one count per order
  /sys/kernel/slab     Documentation/ABI/testing/sysfs-kernel-slab: one file
                       per attribute; counts read "TOTAL [N<node>=<count>...]"
Each subcommand prints nothing and exits 0 when the check holds, or prints
what is wrong and exits 1.
"""
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

VERSION_LINE = "slabinfo - version: 2.1"
HEAD_LINE = ("# name            <active_objs> <num_objs> <objsize> <objperslab> "
             "<pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : "
             "slabdata <active_slabs> <num_slabs> <sharedavail>")
SECTIONS = {"tunables": ["limit", "batchcount", "sharedfactor"],
            "slabdata": ["active_slabs", "num_slabs", "sharedavail"]}
EXTRA_SECTIONS = {"globalstat": 9, "cpustat": 4, "slobstat": 3}
FIRST = ["active_objs", "num_objs", "objsize", "objperslab", "pagesperslab"]


class Bad(Exception):
    pass


def numbers(words, count, where):
    if len(words) != count or not all(w.isdigit() for w in words):
        raise Bad(f"{where}: expected {count} numbers, got {words}")
    return [int(w) for w in words]


def parse_row(line):
    parts = line.split(" : ")
    head = parts[0].split()
    if len(head) != 6:
        raise Bad(f"row does not start with a name and 5 numbers: {line!r}")
    row = {"name": head[0]}
    row.update(zip(FIRST, numbers(head[1:], 5, head[0])))
    for i, (title, names) in enumerate(SECTIONS.items(), start=1):
        words = parts[i].split() if i < len(parts) else []
        if not words or words[0] != title:
            raise Bad(f"{head[0]}: section {i} is not '{title}': {line!r}")
        row.update(zip(names, numbers(words[1:], len(names), head[0])))
    for extra in parts[3:]:
        words = extra.split()
        if not words or words[0] not in EXTRA_SECTIONS:
            raise Bad(f"{head[0]}: unknown section {extra!r}")
        row[words[0]] = numbers(words[1:], EXTRA_SECTIONS[words[0]], head[0])
    return row


def kernel_layout(row):
    """The row as the kernel's cache_show() lays it out (columns only)."""
    return ("%-17s %6d %6d %6d %4d %4d : tunables %4d %4d %4d : slabdata %6d %6d %6d" %
            (row["name"], row["active_objs"], row["num_objs"], row["objsize"],
             row["objperslab"], row["pagesperslab"], row["limit"], row["batchcount"],
             row["sharedfactor"], row["active_slabs"], row["num_slabs"], row["sharedavail"]))


def parse_slabinfo(text):
    lines = text.split("\n")
    if lines[-1] != "":
        raise Bad("the last line has no newline")
    if lines[0] != VERSION_LINE or lines[1] != HEAD_LINE:
        raise Bad(f"header differs from version 2.1's:\n{lines[0]}\n{lines[1]}")
    rows = {}
    for line in lines[2:-1]:
        row = parse_row(line)
        if not line.startswith(kernel_layout(row)):
            raise Bad(f"row not in the kernel's column layout:\n{line}\n{kernel_layout(row)}")
        if row["active_objs"] > row["num_objs"] or row["active_slabs"] > row["num_slabs"]:
            raise Bad(f"{row['name']}: more active than total: {line}")
        rows.setdefault(row["name"], row)
    return rows


def read(path):
    with open(path) as f:
        return f.read()


def cmd_slabinfo(path, *expect):
    """slabinfo FILE [NAME=MIN_ACTIVE...]: parses; NAME has >= MIN_ACTIVE objects."""
    rows = parse_slabinfo(read(path))
    for item in expect:
        name, least = item.split("=")
        if name not in rows:
            raise Bad(f"no row for {name}")
        if rows[name]["active_objs"] < int(least):
            raise Bad(f"{name}: {rows[name]['active_objs']} active objects, expected >= {least}")


def cmd_same(path_a, path_b):
    """same A B: two slabinfo texts list the same caches with the same counts."""
    a, b = parse_slabinfo(read(path_a)), parse_slabinfo(read(path_b))
    if set(a) != set(b):
        raise Bad(f"caches differ: only in {path_a}: {sorted(set(a) - set(b))}, "
                  f"only in {path_b}: {sorted(set(b) - set(a))}")
    for name in a:
        if a[name] != b[name]:
            raise Bad(f"{name} differs:\n{a[name]}\n{b[name]}")


def cmd_absent(path, name):
    """absent FILE NAME: the slabinfo text has no row NAME."""
    if name in parse_slabinfo(read(path)):
        raise Bad(f"{name} is listed")


def cmd_row(path, name, field):
    """row FILE NAME FIELD: print one number of one row."""
    rows = parse_slabinfo(read(path))
    if name not in rows:
        raise Bad(f"no row for {name}")
    print(rows[name][field])


def cmd_buddyinfo(path, max_order):
    """buddyinfo FILE MAX_ORDER: the kernel's layout ("Node %d, zone %8s " then
    "%6lu " per order), one count per order."""
    lines = read(path).split("\n")
    if lines[-1] != "" or len(lines) < 2:
        raise Bad("no lines, or no newline at the end")
    for line in lines[:-1]:
        m = re.match(r"^Node (\d+), zone +(\S+) ", line)
        if not m:
            raise Bad(f"not a buddyinfo line: {line!r}")
        counts = [int(c) for c in line[m.end():].split()]
        if len(counts) != int(max_order):
            raise Bad(f"{len(counts)} orders, expected {max_order}: {line!r}")
        want = "Node %s, zone %8s " % (m.group(1), m.group(2)) + "".join("%6d " % c for c in counts)
        if line != want:
            raise Bad(f"not the kernel's layout:\n{line!r}\n{want!r}")


def sysfs_count(path):
    words = read(path).split()
    total = int(words[0])
    nodes = sum(int(w.split("=")[1]) for w in words[1:])
    if words[1:] and nodes != total:
        raise Bad(f"{path}: node counts do not add up: {words}")
    return total


SYSFS_FILES = ["object_size", "slab_size", "align", "objs_per_slab", "order", "objects",
               "slabs", "total_objects", "partial", "objects_partial", "cpu_slabs", "aliases",
               "hwcache_align", "poison", "red_zone", "store_user", "sanity_checks", "trace",
               "destroy_by_rcu", "reclaim_account", "cache_dma"]


def cmd_sysfs(tree, slabinfo, *aliases):
    """sysfs TREE SLABINFO [ALIAS=CACHE...]: the tree agrees with the slabinfo text."""
    rows = parse_slabinfo(read(slabinfo))
    for name, row in rows.items():
        path = os.path.join(tree, name.replace("/", "!"))
        if not os.path.isdir(path):
            raise Bad(f"{path}: no directory (or link to one) for cache {name}")
        missing = [f for f in SYSFS_FILES if not os.path.isfile(os.path.join(path, f))]
        if missing:
            raise Bad(f"{path}: missing {missing}")
        checks = {"objects": row["active_objs"], "slabs": row["num_slabs"],
                  "objs_per_slab": row["objperslab"], "slab_size": row["objsize"]}
        for attr, want in checks.items():
            got = sysfs_count(os.path.join(path, attr))
            if got != want:
                raise Bad(f"{path}/{attr} = {got}, slabinfo says {want}")
        if (1 << int(read(os.path.join(path, "order")))) != row["pagesperslab"]:
            raise Bad(f"{path}/order disagrees with pagesperslab {row['pagesperslab']}")
    for item in aliases:
        alias, cache = item.split("=")
        link = os.path.join(tree, alias)
        if not os.path.islink(link):
            raise Bad(f"{link} is not a symbolic link")
        if os.path.realpath(link) != os.path.realpath(os.path.join(tree, cache)):
            raise Bad(f"{link} -> {os.readlink(link)}, not {cache}'s directory")
        if int(read(os.path.join(link, "aliases"))) < 1:
            raise Bad(f"{link}/aliases is 0")


def cmd_kernel_tool(listing, slabinfo, *names):
    """kernel-tool OUT SLABINFO NAME...: the kernel's slabinfo tool listed each NAME with
    the objects and object slots of the slabinfo text (its Objects column)."""
    rows = parse_slabinfo(read(slabinfo))
    lines = {l.split()[0]: l.split() for l in read(listing).splitlines()[1:] if l.split()}
    for name in names:
        if name not in lines:
            raise Bad(f"the kernel's slabinfo tool did not list {name}:\n{read(listing)}")
        if int(lines[name][1]) != rows[name]["active_objs"]:
            raise Bad(f"{name}: the tool shows {lines[name][1]} objects, slabinfo "
                      f"{rows[name]['active_objs']}")


def cmd_slabtop(output, slabinfo, *names):
    """slabtop OUT SLABINFO NAME...: slabtop -o showed each NAME with slabinfo's
    OBJS, ACTIVE, SLABS and OBJ/SLAB."""
    rows = parse_slabinfo(read(slabinfo))
    shown = {}
    for line in read(output).splitlines():
        w = line.split()
        if len(w) == 8 and w[0].isdigit():
            shown[w[7]] = w
    for name in names:
        r = rows[name]
        want = [str(r["num_objs"]), str(r["active_objs"]), str(r["num_slabs"]),
                str(r["objperslab"])]
        if name not in shown:
            raise Bad(f"slabtop did not show {name}:\n{read(output)}")
        got = [shown[name][i] for i in (0, 1, 4, 5)]
        if got != want:
            raise Bad(f"{name}: slabtop shows OBJS ACTIVE SLABS OBJ/SLAB {got}, "
                      f"slabinfo {want}")


def cmd_top_sorted(screen, key):
    """top-sorted SCREEN KEY: the rows of a uslabtop screen are in KEY order (n: name)."""
    rows = [l.split() for l in read(screen).splitlines()]
    rows = [r for r in rows if len(r) == 8 and r[0].isdigit()]
    if len(rows) < 3:
        raise Bad(f"fewer than 3 cache rows on the screen:\n{read(screen)}")
    values = [r[7] for r in rows] if key == "n" else [-int(r[0]) for r in rows]
    if values != sorted(values):
        raise Bad(f"rows are not sorted by {key}: {[r[7] for r in rows]}")


def cmd_picture(path, slabinfo, *names):
    """picture FILE SLABINFO NAME...: the picture parses (SVG as XML), its summary
    (JSON in the element with id uslab-summary) gives each NAME num_slabs x
    pagesperslab pages, and its page counts add up."""
    text = read(path)
    if path.endswith(".svg"):
        ET.fromstring(text)
    m = re.search(r'id="uslab-summary"[^>]*>(.*?)</', text, re.S)
    if not m:
        raise Bad(f"{path}: no element with id uslab-summary")
    summary = json.loads(m.group(1))
    rows = parse_slabinfo(read(slabinfo))
    caches = {c["name"]: c for c in summary.get("caches", [])}
    for name in names:
        want = rows[name]["num_slabs"] * rows[name]["pagesperslab"]
        got = caches.get(name, {}).get("pages")
        if got != want:
            raise Bad(f"{name}: the picture counts {got} pages, slabinfo {want}")
    parts = ["pages_free", "pages_slab", "pages_large_kmalloc", "pages_other"]
    if all(p in summary for p in parts) and sum(summary[p] for p in parts) > summary.get(
            "pages_online", 0):
        raise Bad(f"{path}: more pages counted than online: {summary}")


COMMANDS = {"slabinfo": cmd_slabinfo, "same": cmd_same, "absent": cmd_absent,
            "row": cmd_row, "buddyinfo": cmd_buddyinfo, "sysfs": cmd_sysfs,
            "kernel-tool": cmd_kernel_tool, "slabtop": cmd_slabtop,
            "top-sorted": cmd_top_sorted, "picture": cmd_picture}


def main(argv):
    if len(argv) < 2 or argv[1] not in COMMANDS:
        print("usage: check.py " + "|".join(COMMANDS) + " ARGS...")
        return 2
    try:
        COMMANDS[argv[1]](*argv[2:])
    except (Bad, OSError, ValueError, KeyError, ET.ParseError) as e:
        print(f"check.py {argv[1]}: {e}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
