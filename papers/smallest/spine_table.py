#!/usr/bin/env python3
"""Family sizes at d = 3 on spine forests (stars, brooms, caterpillars): doubletree, scramble,
auto and the certified lower bound, from `hitfam stats --d 3 --json`.

Usage: spine_table.py HITFAM [HITFAM_BEFORE]

With a second binary, the scramble and auto columns show before -> after. The orders: leaves
spread evenly over a spine (caterpillar), on its last event (broom) or on one event (star); the
test suite's caterpillar (parent(v) = v - 1 when 3 divides v, else 3 floor(v / 3)); one leaf
on each spine event; then 100 random spine trees (spine 1..11, 10..299 leaves, each leaf under a
random spine event, seed 13), summarised.
"""
import json
import os
import random
import subprocess
import sys
import tempfile


def write_dot(path, n, parent):
    with open(path, "w") as f:
        f.write("digraph {\n")
        for v in range(n):
            f.write(f"e{v};\n" if parent[v] is None else f"e{parent[v]} -> e{v};\n")
        f.write("}\n")


def stats(hitfam, path):
    out = subprocess.run([hitfam, "stats", "--d", "3", "--json", path], capture_output=True,
                         text=True, check=True).stdout
    d = json.loads(out)["d"][0]
    m = d["methods"]
    return m["doubletree"], m["scramble"], d["auto_schedules"], d["certified_lower_bound"]["value"]


def caterpillar(spine, leaves):
    """leaves spread evenly: leaf i under spine event i mod spine"""
    parent = [None] + list(range(spine - 1))
    parent += [i % spine for i in range(leaves)]
    return parent


def broom(handle, leaves):
    return [None] + list(range(handle - 1)) + [handle - 1] * leaves


def tests_caterpillar(n):
    return [None] + [v - 1 if v % 3 == 0 else 3 * (v // 3) for v in range(1, n)]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    new = sys.argv[1]
    old = sys.argv[2] if len(sys.argv) > 2 else None
    orders = [("star, 100 leaves", caterpillar(1, 100)),
              ("caterpillar, spine 3, 100 leaves (even)", caterpillar(3, 100)),
              ("caterpillar, spine 10, 100 leaves (even)", caterpillar(10, 100)),
              ("caterpillar, spine 30, 100 leaves (even)", caterpillar(30, 100)),
              ("broom, handle 10, 100 leaves", broom(10, 100)),
              ("caterpillar, spine 3k (tests), 101 events", tests_caterpillar(101)),
              ("caterpillar, one leaf on each of 50 spine events", caterpillar(50, 50)),
              ("caterpillar, one leaf on each of 150 spine events", caterpillar(150, 150)),
              ("star, 1000 leaves", caterpillar(1, 1000)),
              ("caterpillar, spine 3, 1000 leaves (even)", caterpillar(3, 1000)),
              ("caterpillar, spine 10, 1000 leaves (even)", caterpillar(10, 1000)),
              ("caterpillar, spine 30, 1000 leaves (even)", caterpillar(30, 1000)),
              ("broom, handle 10, 1000 leaves", broom(10, 1000)),
              ("caterpillar, spine 3k (tests), 1001 events", tests_caterpillar(1001))]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "o.dot")
        print("| order | doubletree | scramble | auto | certified lower bound |")
        print("|---|---:|---:|---:|---:|")
        for name, parent in orders:
            write_dot(path, len(parent), parent)
            dt, sc, au, lb = stats(new, path)
            if old:
                _, sc0, au0, _ = stats(old, path)
                sc, au = f"{sc0} -> {sc}", f"{au0} -> {au}"
            print(f"| {name} | {dt} | {sc} | {au} | {lb} |")
        rng = random.Random(13)
        sums = {"dt": 0, "sc": 0, "sc0": 0}
        smaller = larger = 0
        for _ in range(100):
            spine, leaves = rng.randint(1, 11), rng.randint(10, 299)
            parent = [None] + list(range(spine - 1)) + [rng.randrange(spine) for _ in range(leaves)]
            write_dot(path, len(parent), parent)
            dt, sc, _, _ = stats(new, path)
            sums["dt"] += dt
            sums["sc"] += sc
            smaller += sc < dt
            larger += sc > dt
            if old:
                sums["sc0"] += stats(old, path)[1]
        before = f"{sums['sc0'] / 100:.1f} -> " if old else ""
        print(f"\nrandom spine trees (spine 1..11, 10..299 leaves, random parents, seed 13): mean "
              f"doubletree {sums['dt'] / 100:.1f}, scramble {before}{sums['sc'] / 100:.1f}; "
              f"scramble smaller in {smaller} of 100, larger in {larger}")


if __name__ == "__main__":
    main()
