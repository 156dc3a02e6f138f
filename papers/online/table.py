#!/usr/bin/env python3
"""Runs needed online (each strategy of `hitfam online`) against the offline family (`hitfam gen`,
method auto), the lower bound of `hitfam stats`, and the runs PCTCP's probabilistic bound asks
for, on trees: the table of papers/online/README.md.

usage: papers/online/table.py PATH/TO/hitfam [--quick] [--source-root DIR] [--doubletree]

With --doubletree, only d = 3: the runs of strategy doubletree against the offline doubletree
family (`hitfam gen --method doubletree`) and method auto's, on the same orders and on rrt 3000,
deep 300 and deep 3000 and the other forests of tests/data/posets (a few minutes).

Every family played or generated is checked with `hitfam verify`; the script exits 1 if one is
not d-hitting. Orders are generated here, deterministically (Python's random with fixed seeds):
  rrt n       random recursive tree: event i > 0 picks its parent uniformly among 0..i-1
  T_h         complete binary tree of height h (2^(h+1) - 1 events)
  spine L     a chain of L events, each with one extra leaf child (2L events)
  wide k      a root with k children, each with two leaf children (1 + 3k events)
  deep n      a chain with side branches: event i > 0 hangs below i - 1 with probability 1/2,
              else below one of the 64 events before it (the deep-spine forest of bench_online)
plus the forests of tests/data/posets and examples/ (forest.dot, wide_tree.dot, eventloop.dot,
page.dot). PCTCP (Ozkan et al., OOPSLA 2018) hits a given depth-d bug with probability at least
p = 1 / (w^2 n^(d-1)) per run, w the width (for a forest: its number of leaves), n the events;
the columns give ceil(ln(1/eps) / p) runs for eps = 0.01 (99% for one given bug) and
ceil(ln(T/eps) / p) (99% for all T admissible tuples at once, by the union bound).
"""
import math
import os
import random
import re
import subprocess
import sys
import tempfile


def dot(name, parent):
    lines = [f"  e{v};" for v in range(len(parent))]
    lines += [f"  e{p} -> e{v};" for v, p in enumerate(parent) if p is not None]
    return "digraph " + name + " {\n" + "\n".join(lines) + "\n}\n"


def rrt(n, seed):
    rnd = random.Random(seed)
    return [None] + [rnd.randrange(v) for v in range(1, n)]


def deep(n, seed):
    rnd = random.Random(seed)
    return [None] + [v - 1 if rnd.random() < 0.5 else v - 1 - rnd.randrange(min(v, 64))
                     for v in range(1, n)]


def complete(h):
    return [None] + [(v - 1) // 2 for v in range(1, 2 ** (h + 1) - 1)]


def spine(length):
    # spine event i is 2i, its leaf 2i + 1
    par = []
    for i in range(length):
        par.append(None if i == 0 else 2 * (i - 1))
        par.append(2 * i)
    return par


def wide(k):
    par = [None]
    for i in range(k):
        par.append(0)
    for i in range(k):
        par += [1 + i, 1 + i]
    return par


class Runner:
    def __init__(self, hitfam, tmp):
        self.hitfam, self.tmp, self.failed = hitfam, tmp, []

    def run(self, args):
        r = subprocess.run([self.hitfam] + args, capture_output=True, text=True, timeout=1800)
        return r.returncode, r.stdout, r.stderr

    def family(self, kind, d, path, extra):
        """Play or generate a family; verify it; its number of schedules (None: refused)."""
        out = os.path.join(self.tmp, "family.txt")
        rc, _, err = self.run([kind, "--d", str(d)] + extra + ["-o", out, path])
        if rc != 0:
            return None
        with open(out) as f:
            m = re.search(r"schedules=(\d+)", f.readline())
        rc, vout, verr = self.run(["verify", "--d", str(d), path, out])
        if rc != 0:
            self.failed.append(f"{kind} {' '.join(extra)} d={d} {path}: {vout}{verr}")
        return int(m.group(1))

    def stats(self, d, path):
        rc, out, _ = self.run(["stats", "--d", str(d), "--json", path])
        import json
        s = json.loads(out)
        return s, s["d"][0]


def leaves(path_text):
    path_text = re.sub(r"//[^\n]*|/\*.*?\*/", "", path_text, flags=re.S)
    path_text = re.sub(r"\[[^\]]*\]", "", path_text)
    heads = set(re.findall(r"(\S+) ->", path_text))
    nodes = set(re.findall(r"^\s*([A-Za-z_0-9]+)\s*;", path_text, re.M))
    nodes |= set(re.findall(r"-> ([A-Za-z_0-9]+)", path_text))
    nodes |= heads
    return len(nodes - heads)


def doubletree_table(hitfam, orders):
    """d = 3 only: online doubletree, offline doubletree, offline auto, the lower bound."""
    print("| order | n | h | online doubletree | offline doubletree | offline auto | lower bound |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        r = Runner(hitfam, tmp)
        for name, text in orders:
            path = os.path.join(tmp, "order.dot")
            with open(path, "w") as f:
                f.write(text)
            s, sd = r.stats(3, path)
            on = r.family("online", 3, path, ["--strategy", "doubletree"])
            if on is None:  # not a forest
                continue
            off = r.family("gen", 3, path, ["--method", "doubletree"])
            auto = r.family("gen", 3, path, [])
            print(f"| {name} | {s['events']} | {s['height']} | {on} | {off} | {auto} "
                  f"| {sd['lower_bound']} |", flush=True)
        if r.failed:
            print("\nNOT d-hitting:\n" + "\n".join(r.failed))
            sys.exit(1)
    print("\nEvery family above was checked 3-hitting by `hitfam verify`.")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    hitfam = sys.argv[1]
    quick = "--quick" in sys.argv
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if "--source-root" in sys.argv:
        root = sys.argv[sys.argv.index("--source-root") + 1]
    orders = []
    for n, seed in ([(30, 1), (100, 2)] if quick else [(30, 1), (100, 2), (300, 3)]):
        orders.append((f"rrt {n}", dot("R", rrt(n, seed))))
    for h in ([3, 5] if quick else [3, 5, 7]):
        orders.append((f"T_{h}", dot("T", complete(h))))
    for length in ([15, 50] if quick else [15, 50, 150]):
        orders.append((f"spine {length}", dot("S", spine(length))))
    for k in ([10, 30] if quick else [10, 30, 100]):
        orders.append((f"wide {k}", dot("W", wide(k))))
    for rel in ["tests/data/posets/forest.dot", "tests/data/posets/wide_tree.dot",
                "examples/eventloop.dot", "examples/page.dot"]:
        with open(os.path.join(root, rel)) as f:
            orders.append((os.path.basename(rel), f.read()))

    if "--doubletree" in sys.argv:
        orders.insert(3, ("rrt 3000", dot("R", rrt(3000, 4))))
        orders += [(f"deep {n}", dot("D", deep(n, 5 + n))) for n in (300, 3000)]
        posets = os.path.join(root, "tests/data/posets")
        for name in sorted(os.listdir(posets)):
            if name.endswith(".dot") and name not in ("forest.dot", "wide_tree.dot"):
                with open(os.path.join(posets, name)) as f:
                    orders.append((name, f.read()))
        doubletree_table(hitfam, orders)
        return
    print("| order | n | h | w | d | dfs | doubletree | learn | offline auto | lower bound "
          "| PCTCP 99% one bug | PCTCP 99% all tuples |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        r = Runner(hitfam, tmp)
        for name, text in orders:
            path = os.path.join(tmp, "order.dot")
            with open(path, "w") as f:
                f.write(text)
            w = leaves(text)
            for d in (2, 3, 4):
                s, sd = r.stats(d, path)
                n, h = s["events"], s["height"]
                cells = []
                for strategy, maxd in (("dfs", 2), ("doubletree", 3), ("learn", 4)):
                    ok = d <= maxd
                    if strategy == "learn":  # the coverage bookkeeping and replay cost
                        ok = ok and n <= (300 if d == 2 else 130 if d == 3 else 35)
                    m = r.family("online", d, path, ["--strategy", strategy]) if ok else None
                    cells.append("-" if m is None else str(m))
                off = r.family("gen", d, path, []) if (d < 4 or n <= 130) else None
                p = 1.0 / (w * w * n ** (d - 1))
                one = math.ceil(math.log(100) / p)
                tuples = sd["admissible_tuples"]
                all_ = math.ceil(math.log(100 * tuples) / p) if tuples else 0
                print(f"| {name} | {n} | {h} | {w} | {d} | " + " | ".join(cells) +
                      f" | {'-' if off is None else off} | {sd['lower_bound']} | {one} | {all_} |",
                      flush=True)
        if r.failed:
            print("\nNOT d-hitting:\n" + "\n".join(r.failed))
            sys.exit(1)
    print("\nEvery family above was checked d-hitting by `hitfam verify`.")


if __name__ == "__main__":
    main()
