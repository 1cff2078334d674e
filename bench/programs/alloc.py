# SPDX-License-Identifier: MIT
"""An allocation-heavy Python workload for `make bench` (run with
PYTHONMALLOC=malloc, so that every object goes through the malloc being
measured).  Deterministic; SCALE (environment) multiplies the work.  Prints
one checksum line, so that the driver can see the run did its work."""
import json
import os
import random
import zlib

SCALE = float(os.environ.get("SCALE", "1"))
rng = random.Random(8)


def n(count):
    return max(1, int(count * SCALE))


class Node:
    __slots__ = ("key", "val", "kids")

    def __init__(self, key, val):
        self.key, self.val, self.kids = key, val, []


def trees():
    """Many small objects with mixed lifetimes."""
    total = 0
    for r in range(n(8)):
        root = Node(r, str(r))
        level = [root]
        for _ in range(n(4000)):
            parent = level[rng.randrange(len(level))]
            kid = Node(rng.random(), "v%d" % len(level))
            parent.kids.append(kid)
            level.append(kid)
        total += sum(len(x.kids) for x in level)
    return total


def dicts():
    """Dictionaries that grow and shrink; strings of many sizes."""
    d = {}
    for i in range(n(60000)):
        d["k%d:%s" % (i, "x" * (i % 50))] = [i] * (i % 7)
        if i % 3 == 0:
            d.pop("k%d:%s" % (i // 2, "x" * ((i // 2) % 50)), None)
    return len(d)


def documents():
    """Parse and print JSON: short-lived containers and strings."""
    doc = [{"id": i, "tags": ["t%d" % (i % 13)] * (i % 5), "w": i / 7} for i in range(n(4000))]
    crc = 0
    for _ in range(n(6)):
        s = json.dumps(doc)
        doc = json.loads(s)
        crc = zlib.crc32(s.encode(), crc)
    return crc


print(trees(), dicts(), documents())
