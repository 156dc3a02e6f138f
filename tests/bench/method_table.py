#!/usr/bin/env python3
"""Time and peak memory of `hitfam gen` per method, as the README's table shows them.

Usage: method_table.py HITFAM [WORKDIR] [--quick]

Writes each order as a DOT file into WORKDIR (a temporary directory by default), runs
`hitfam gen --d D --method M ORDER.dot` for every row of the plan below, reads the family from
the pipe (counting its schedules and bytes) and prints one Markdown row per run: the processor
time of the hitfam process (user + system, from wait4, so the reader's own time is not counted)
and its peak resident memory (from GNU time, /usr/bin/time), also per event. Processor time rather than wall time: the
machines these run on are shared, and a loaded machine stretches wall time, not processor time.
--quick runs the plan on orders ten times smaller (a smoke test of the script).
"""
import os
import random
import subprocess
import sys
import tempfile


def random_recursive_tree(n, seed):
    rng = random.Random(seed)
    return n, [(rng.randrange(v), v) for v in range(1, n)]


def complete_binary_tree(h):
    n = (1 << h) - 1
    return n, [((v - 1) // 2, v) for v in range(1, n)]


def antichain(n):
    return n, []


def random_dag(n, k, seed):
    """Each event after the first has up to k distinct earlier events as direct predecessors."""
    rng = random.Random(seed)
    edges = []
    for v in range(1, n):
        for u in sorted(set(rng.randrange(v) for _ in range(k))):
            edges.append((u, v))
    return n, edges


def write_dot(path, order):
    n, edges = order
    with open(path, "w") as f:
        f.write("digraph order {\n")
        for v in range(n):
            f.write(f"  e{v};\n")
        for u, v in edges:
            f.write(f"  e{u} -> e{v};\n")
        f.write("}\n")


def run(hitfam, args, workdir):
    """Run hitfam with args under GNU time; return (status, cpu seconds, peak RSS bytes,
    schedules). GNU time (a small process) starts hitfam, so the peak is hitfam's own: a child
    forked from this script would inherit the script's peak (Linux keeps the larger of the
    peaks before and after exec)."""
    stats = os.path.join(workdir, "time.txt")
    proc = subprocess.Popen(["/usr/bin/time", "-o", stats, "-f", "%U %S %M", hitfam] + args,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines = 0
    while True:
        chunk = proc.stdout.read(1 << 20)
        if not chunk:
            break
        lines += chunk.count(b"\n")
    err = proc.stderr.read()
    proc.wait()
    if proc.returncode != 0:
        sys.stderr.write(f"hitfam {' '.join(args)}: exit {proc.returncode}: {err.decode()}\n")
        return proc.returncode, 0.0, 0, 0
    with open(stats) as f:
        user, system, rss_kb = f.read().split()[-3:]
    # the text format: a header line, then one line per schedule
    return 0, float(user) + float(system), int(rss_kb) * 1024, max(lines - 1, 0)


def main():
    argv = [a for a in sys.argv[1:] if a != "--quick"]
    quick = "--quick" in sys.argv[1:]
    if not argv:
        sys.exit(__doc__)
    hitfam = argv[0]
    workdir = argv[1] if len(argv) > 1 else tempfile.mkdtemp(prefix="hitfam-methods-")
    os.makedirs(workdir, exist_ok=True)
    s = 10 if quick else 1
    orders = {
        "random recursive tree": random_recursive_tree(1_000_000 // s, 1),
        "random recursive tree (small)": random_recursive_tree(4_000 // s, 2),
        "complete binary tree T_9": complete_binary_tree(9 if not quick else 6),
        "random recursive tree (54)": random_recursive_tree(54, 54),
        "random recursive tree (20)": random_recursive_tree(20, 20),
        "antichain": antichain(1_000 // s),
        "random DAG": random_dag(1_000 // s, 2, 3),
        "random DAG (small)": random_dag(60, 2, 4),
        "page.dot": None,
    }
    # (method, d, order): each method on an order of the size it is meant for
    plan = [
        ("dfs", 2, "random recursive tree"),
        ("doubletree", 3, "random recursive tree"),
        ("simple", 3, "random recursive tree (small)"),
        ("pattern", 4, "complete binary tree T_9"),
        ("scramble", 3, "antichain"),
        ("chains", 3, "random DAG"),
        ("greedy", 3, "random recursive tree (54)"),
        ("greedy", 3, "random DAG (small)"),
        ("random", 3, "random recursive tree (20)"),
        ("exact", 3, "page.dot"),
        ("auto", 3, "page.dot"),
        ("auto", 3, "random recursive tree"),
    ]
    here = os.path.dirname(os.path.abspath(__file__))
    page = os.path.normpath(os.path.join(here, "..", "..", "examples", "page.dot"))
    paths = {}
    # the process alone: a one-event order
    one = os.path.join(workdir, "one.dot")
    write_dot(one, (1, []))
    _, _, base, _ = run(hitfam, ["gen", "--d", "1", one], workdir)
    print(f"Peak memory of hitfam on a one-event order: {base / 2**20:.1f} MB; bytes per event"
          " count the peak beyond it.\n")
    print("| method | d | order | events | schedules | processor s | peak RSS MB | bytes per event |")
    print("|---|---|---|---|---|---|---|---|")
    for method, d, name in plan:
        if name not in paths:
            if orders[name] is None:
                paths[name] = (page, 12)
            else:
                path = os.path.join(workdir, name.replace(" ", "_").replace("(", "").replace(")", "") + ".dot")
                write_dot(path, orders[name])
                paths[name] = (path, orders[name][0])
        path, n = paths[name]
        rc, cpu, rss, m = run(hitfam, ["gen", "--d", str(d), "--method", method, path], workdir)
        if rc != 0:
            print(f"| `{method}` | {d} | {name} | {n:,} | failed (exit {rc}) | | | |")
            continue
        print(f"| `{method}` | {d} | {name} | {n:,} | {m:,} | {cpu:.2f} | {rss / 2**20:.1f} | {max(rss - base, 0) / n:,.0f} |",
              flush=True)


if __name__ == "__main__":
    main()
