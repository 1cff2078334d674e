# SPDX-License-Identifier: MIT
"""An allocation-heavy, deterministic Python workload for the malloc drop-in
(run with PYTHONMALLOC=malloc, so every object goes through malloc).  It
checks its own results, then prints a digest that must be the same under
glibc's malloc and under the drop-in.  With EXPECT_USLAB=1 it also checks
that libuslab-malloc is mapped into this process."""
import collections, gc, hashlib, json, os, random, sys

if os.environ.get("EXPECT_USLAB") == "1":
    with open("/proc/self/maps") as f:
        assert "libuslab-malloc-" in f.read(), "drop-in not mapped"
    assert os.environ.get("PYTHONMALLOC") == "malloc"

# SCALE shrinks the workload (prog_python.sh uses it for SLOB, whose first-fit
# search slows down with the number of partly used pages).
SCALE = float(os.environ.get("SCALE", "1"))
def n(count):
    return max(1, int(count * SCALE))

rng = random.Random(20240517)
digest = hashlib.sha256()

# dicts and strings: many small blocks, resized tables
d = {}
N = n(200_000)
for i in range(N):
    d["key-%d-%s" % (i, "x" * (i % 37))] = (i, str(i * i), [i] * (i % 5))
assert len(d) == N
total = sum(v[0] for v in d.values())
assert total == N * (N - 1) // 2
for k in list(d)[::3]:
    del d[k]
digest.update(str(len(d)).encode())

# lists that grow by realloc, sorting, slicing
xs = [rng.randrange(1 << 30) for _ in range(n(300_000))]
ys = sorted(xs)
assert all(ys[i] <= ys[i + 1] for i in range(len(ys) - 1))
digest.update(str(ys[::1000]).encode())

# bytes and bytearrays of every size, including large and huge ones
buf = bytearray()
for i in range(n(2000)):
    buf += bytes([i % 251]) * (i * 7 % 3000)
big = bytes(buf) * 3
assert len(big) == 3 * len(buf)
digest.update(hashlib.sha256(big).digest())
huge = bytearray(48 << 20)
huge[-1] = 7
assert huge[-1] == 7 and huge[0] == 0
del huge

# json round trips: nested containers
obj = {"items": [{"id": i, "tags": ["t%d" % (i % 17)] * (i % 4), "v": i / 3}
                 for i in range(n(50_000))]}
s = json.dumps(obj, sort_keys=True)
assert json.loads(s) == obj
digest.update(hashlib.sha256(s.encode()).digest())

# sets, counters, reference cycles collected by gc
c = collections.Counter(w for w in s.split('"') if w.startswith("t"))
digest.update(str(sorted(c.items())).encode())
class Node:
    def __init__(self, n):
        self.next = None
        self.payload = [n] * 10
nodes = [Node(i) for i in range(n(100_000))]
for a, b in zip(nodes, nodes[1:] + nodes[:1]):
    a.next = b
del nodes, a, b
assert gc.collect() >= n(100_000)
M = n(1_000_000)
st = set(range(0, M, 3)) & set(range(0, M, 5))
assert len(st) == len(range(0, M, 15))

print("ok", digest.hexdigest())
