#!/usr/bin/env python3
"""Family sizes of hitfam's methods for orders that are not trees (and minimised tree
families), measured in one run with the CLI: the tables of papers/any-order/README.md.

usage: papers/any-order/table.py PATH/TO/hitfam [--quick] [--no-verify] [--only SECTIONS]
                                 [--random-sizes N,...] [--timeout SECONDS]

SECTIONS: a comma-separated subset of antichain3, antichain4, random, trees (default: all);
--random-sizes N,N,...: the sizes of the random orders (default 50,200,1000). A family whose
verification does not finish within the command time limit (--timeout, default 900 s, 120 s
with --quick) is listed at the end.

Every family is checked with `hitfam verify` (unless --no-verify) and the script exits 1 if one
is not d-hitting. --quick skips the sizes that take minutes (n = 1,000 and the largest
antichains) and stops each command after 120 s (900 s otherwise). Orders are generated here, deterministically (Python's random with fixed seeds):
  antichain n          n events, no edges
  dag n k              n events in a random order, each pair i < j (in that order) an edge with
                       probability k / n (so about k * (n - 1) / 2 edges before reduction)
  T_h                  the complete binary tree of height h (2^(h+1) - 1 events)
"""
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time


def antichain(n):
    return "digraph A {\n" + "".join(f"  e{i};\n" for i in range(n)) + "}\n"


def dag(n, k, seed):
    rnd = random.Random(seed)
    perm = list(range(n))
    rnd.shuffle(perm)
    lines = [f"  e{i};" for i in range(n)]
    p = k / n
    for i in range(n):
        for j in range(i + 1, n):
            if rnd.random() < p:
                lines.append(f"  e{perm[i]} -> e{perm[j]};")
    return "digraph D {\n" + "\n".join(lines) + "\n}\n"


def tree(h):
    lines = []
    for v in range(1, 2 ** h):
        lines.append(f"  t{v} -> t{2 * v}; t{v} -> t{2 * v + 1};")
    if h == 0:
        lines.append("  t1;")
    return "digraph T {\n" + "\n".join(lines) + "\n}\n"


class Runner:
    def __init__(self, hitfam, tmp, verify, timeout):
        self.timeout = timeout
        self.hitfam = hitfam
        self.tmp = tmp
        self.verify = verify
        self.failed = []
        self.unverified = []  # verify did not finish within the timeout
        self.count = 0

    def write(self, text):
        self.count += 1
        path = os.path.join(self.tmp, f"p{self.count}.dot")
        with open(path, "w") as f:
            f.write(text)
        return path

    def gen(self, dot, d, *args, timeout=None):
        """Schedules of `hitfam gen`, seconds taken; None if it failed (reason printed)."""
        out = os.path.join(self.tmp, "family.txt")
        limit = min(timeout, self.timeout) if timeout else self.timeout
        t = time.monotonic()
        try:
            r = subprocess.run([self.hitfam, "gen", "--d", str(d), *args, "-o", out, dot],
                               capture_output=True, text=True, timeout=limit)
        except subprocess.TimeoutExpired:
            return None, time.monotonic() - t, f"> {limit} s"
        dt = time.monotonic() - t
        if r.returncode != 0:
            why = r.stderr.strip().splitlines()[-1] if r.stderr else "failed"
            m = re.search(r"(\d+) admissible \d-tuples are still not hit after (\d+)", why)
            return None, dt, f"not hitting after {m.group(2)} ({m.group(1)} left)" if m else why
        with open(out) as f:
            m = sum(1 for line in f if line.strip() and not line.startswith("#"))
        if self.verify:
            try:
                v = subprocess.run([self.hitfam, "verify", "--d", str(d), "--quiet", dot, out],
                                   capture_output=True, text=True, timeout=self.timeout)
                if v.returncode != 0:
                    self.failed.append(f"gen --d {d} {' '.join(args)} {dot}: {v.stderr.strip()}")
            except subprocess.TimeoutExpired:
                self.unverified.append(f"gen --d {d} {' '.join(args)} {dot}: {m} schedules")
        return m, dt, None

    def stats(self, dot, d):
        r = subprocess.run([self.hitfam, "stats", "--d", str(d), "--json", dot],
                           capture_output=True, text=True, check=True)
        return json.loads(r.stdout)


def cell(m, why=None):
    return str(m) if m is not None else why or "-"


def antichain_d3(run, ns):
    print("\n### Antichains, d = 3\n")
    best = {4: 6, 5: 7, 6: 8, 7: 8, 8: 8, 9: "<= 9", 10: "<= 9", 12: "<= 10", 13: "<= 10",
            14: "<= 10", 16: "<= 11"}
    print("| n | best known | auto | scramble | greedy | greedy + minimize | doubletree | chains | "
          "random until covered | lower bound | greedy time (s) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for n in ns:
        dot = run.write(antichain(n))
        a, _, awhy = run.gen(dot, 3)
        sc, _, _ = run.gen(dot, 3, "--method", "scramble")
        g, gt, gwhy = run.gen(dot, 3, "--method", "greedy")
        gm, _, _ = run.gen(dot, 3, "--method", "greedy", "--minimize") if n <= 200 \
            else (None, 0, None)
        dt, _, _ = run.gen(dot, 3, "--method", "doubletree")
        ch, _, _ = run.gen(dot, 3, "--method", "chains") if n <= 200 else (None, 0, None)
        rnd, _, rwhy = run.gen(dot, 3, "--method", "random")
        lb = run.stats(dot, 3)["d"][0]["lower_bound"]
        print(f"| {n} | {best.get(n, '')} | {cell(a, awhy)} | {cell(sc)} | {cell(g, gwhy)} | "
              f"{cell(gm)} | {cell(dt)} | {cell(ch)} | {cell(rnd, rwhy)} | {lb} | {gt:.2f} |",
              flush=True)


def antichain_d4(run, ns):
    print("\n### Antichains, d = 4\n")
    print("| n | optimum | greedy | greedy + minimize | random until covered | lower bound |")
    print("|---|---|---|---|---|---|")
    for n in ns:
        dot = run.write(antichain(n))
        g, _, _ = run.gen(dot, 4, "--method", "greedy")
        gm, _, _ = run.gen(dot, 4, "--method", "greedy", "--minimize")
        rnd, _, rwhy = run.gen(dot, 4, "--method", "random")
        lb = run.stats(dot, 4)["d"][0]["lower_bound"]
        print(f"| {n} | {24 if n == 6 else ''} | {cell(g)} | {cell(gm)} | {cell(rnd, rwhy)} | {lb} |",
              flush=True)


def random_orders(run, ns, ks):
    print("\n### Random orders, d = 3\n")
    print("| n | k | Hasse edges | height | chains | greedy | greedy + minimize | "
          "random until covered | greedy / random | lower bound | greedy time (s) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for n in ns:
        for k in ks:
            dot = run.write(dag(n, k, seed=1000 * n + k))
            st = run.stats(dot, 3)
            ch, _, _ = run.gen(dot, 3, "--method", "chains")
            g, gt, why = run.gen(dot, 3, "--method", "greedy")
            gm, _, _ = run.gen(dot, 3, "--method", "greedy", "--minimize") if n <= 200 \
                else (None, 0, None)
            # until covered tracks n^3 bits and updates them per sample: at n = 1,000 it
            # cannot reach its 20,000 samples in any reasonable time, so it gets 300 s there
            rnd, _, rwhy = run.gen(dot, 3, "--method", "random", timeout=300 if n >= 1000
                                   else None)
            ratio = f"{g / rnd:.2f}" if g and rnd else "-"
            print(f"| {n} | {k} | {st['hasse_edges']} | {st['height']} | {cell(ch)} | "
                  f"{cell(g, why)} | {cell(gm)} | {cell(rnd, rwhy)} | {ratio} | "
                  f"{st['d'][0]['lower_bound']} | {gt:.2f} |", flush=True)


def trees(run, hs):
    print("\n### Complete binary trees, d = 3: doubletree minimised\n")
    print("| h | events | doubletree (4h) | doubletree + minimize | auto | lower bound |")
    print("|---|---|---|---|---|---|")
    for h in hs:
        dot = run.write(tree(h))
        dt, _, _ = run.gen(dot, 3, "--method", "doubletree")
        dm, _, _ = run.gen(dot, 3, "--method", "doubletree", "--minimize")
        a, _, _ = run.gen(dot, 3)
        lb = run.stats(dot, 3)["d"][0]["lower_bound"]
        print(f"| {h} | {2 ** (h + 1) - 1} | {cell(dt)} | {cell(dm)} | {cell(a)} | {lb} |",
              flush=True)


def main():
    args = [a for i, a in enumerate(sys.argv[1:], 1)
            if not a.startswith("--") and sys.argv[i - 1] not in ("--only", "--random-sizes", "--timeout")]
    if len(args) != 1 or not os.access(args[0], os.X_OK):
        print(__doc__, file=sys.stderr)
        return 2
    quick = "--quick" in sys.argv
    with tempfile.TemporaryDirectory(prefix="hitfam-table-") as tmp:
        timeout = 120 if quick else 900
        for i, a in enumerate(sys.argv):
            if a == "--timeout" and i + 1 < len(sys.argv):
                timeout = int(sys.argv[i + 1])
        run = Runner(os.path.abspath(args[0]), tmp, "--no-verify" not in sys.argv, timeout)
        only = "antichain3,antichain4,random,trees"
        for i, a in enumerate(sys.argv):
            if a == "--only" and i + 1 < len(sys.argv):
                only = sys.argv[i + 1]
        only = only.split(",")
        if "antichain3" in only:
            antichain_d3(run, list(range(4, 17)) + ([100] if quick else [100, 200, 1000]))
        if "antichain4" in only:
            antichain_d4(run, [6, 10] + ([] if quick else [20]))
        if "random" in only:
            sizes = [50, 200] + ([] if quick else [1000])
            for i, a in enumerate(sys.argv):
                if a == "--random-sizes" and i + 1 < len(sys.argv):
                    sizes = [int(x) for x in sys.argv[i + 1].split(",")]
            random_orders(run, sizes, [2, 8])
        if "trees" in only:
            trees(run, range(2, 7 if quick else 9))
        if run.unverified:
            print("\nNot verified within the time limit:\n" + "\n".join(run.unverified))
        if run.failed:
            print("\nNOT HITTING:\n" + "\n".join(run.failed), file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
