#!/usr/bin/env python3
"""The tables of papers/baselines/README.md: `hitfam compare --json` on examples/page.dot and
examples/eventloop.dot at d = 2 and 3, and on 100 random labelled programs of the shape of the
POS micro-benchmark (Yuan, Yang, Gu, CAV 2018, Section 6.1): 4 threads of 4 events each, every
event reads or writes one of 4 objects, and a few messages between threads.

usage: papers/baselines/table.py PATH/TO/hitfam [--programs N] [--seeds K] [--jobs J]
                                 [--source-root DIR] [--save DIR] [--load DIR]

Everything is deterministic: the programs come from Python's random with fixed seeds, and
compare's samplers use seeds 0..K-1 (default 11) on every order. The script prints Markdown to
standard output (the tables, then the time each part took); --save DIR also keeps each compare
JSON and each program's DOT there; --load DIR prints the tables from such a directory without
running hitfam (times are then not measured). Exit status 1 if a compare call fails or an order's JSON is
inconsistent (a family that does not reach full coverage, a sampler row without runs).

Programs (numbered 0..N-1, program i from random.Random(1000 + i)):
  - threads T0..T3, events tKeJ (thread K, J-th event), each thread a chain of its 4 events;
  - objects o0..o3 shared out as {4,4,4,4} (even i, the paper's "uniform") or {2,2,6,6} (odd i,
    "skewed") events per object, over the 16 events in random order;
  - each event reads its object with probability 1/2, else writes it (the paper's second set,
    "50% read");
  - 1 to 3 messages: an edge from a random event of one thread to a random event of another,
    kept only if it closes no cycle and is not already implied.
"""
import concurrent.futures
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

THREADS, EVENTS, OBJECTS = 4, 4, 4
FAMILY_ORDER = ["auto", "dfs", "simple", "doubletree", "pattern", "scramble", "chains", "greedy",
                "exact"]
CAP = 20000  # the samplers' until-covered cap (lib/sample.h)
SAMPLERS = ["random", "rw", "pct", "pos", "basicpos"]
ENUMS = ["all", "traces", "preemptions-0", "preemptions-1", "preemptions-2", "delays-0", "delays-1",
         "delays-2"]


def program(i):
    """The i-th random labelled program: (DOT text, number of messages)."""
    rnd = random.Random(1000 + i)
    events = [(t, j) for t in range(THREADS) for j in range(EVENTS)]
    sizes = [4, 4, 4, 4] if i % 2 == 0 else [2, 2, 6, 6]
    objs = [o for o, k in enumerate(sizes) for _ in range(k)]
    rnd.shuffle(objs)
    access = ["r" if rnd.random() < 0.5 else "w" for _ in events]
    # reach[(t, j)] = events (t', j') with (t, j) <= (t', j'); thread order first
    succ = {e: set() for e in events}
    for t in range(THREADS):
        for j in range(EVENTS - 1):
            succ[(t, j)].add((t, j + 1))

    def reaches(a, b):
        stack, seen = [a], {a}
        while stack:
            u = stack.pop()
            if u == b:
                return True
            for v in succ[u]:
                if v not in seen:
                    seen.add(v)
                    stack.append(v)
        return False

    messages = []
    for _ in range(rnd.randint(1, 3)):
        for _attempt in range(20):
            ta, tb = rnd.sample(range(THREADS), 2)
            a, b = (ta, rnd.randrange(EVENTS)), (tb, rnd.randrange(EVENTS))
            if not reaches(b, a) and not reaches(a, b):
                succ[a].add(b)
                messages.append((a, b))
                break
    name = lambda e: "t%de%d" % e
    lines = ["// POS-shaped program %d: %s objects, %d message(s)" %
             (i, "uniform" if i % 2 == 0 else "skewed", len(messages)),
             "digraph pos%d {" % i]
    for k, e in enumerate(events):
        lines.append("  %s [thread=T%d, obj=o%d, access=%s];" % (name(e), e[0], objs[k],
                                                                   access[k]))
    for t in range(THREADS):
        lines.append("  " + " -> ".join(name((t, j)) for j in range(EVENTS)) + ";")
    for a, b in messages:
        lines.append("  %s -> %s; // message" % (name(a), name(b)))
    lines.append("}")
    return "\n".join(lines) + "\n", len(messages)


LOAD = None  # a --save directory to read instead of running hitfam


def compare(hitfam, path, d, seeds):
    if LOAD:
        return None, 0.0
    t0 = time.monotonic()
    r = subprocess.run([hitfam, "compare", "--d", str(d), "--seeds", str(seeds), "--json", path],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s --d %d: exit %d: %s" % (path, d, r.returncode, r.stderr))
    c = json.loads(r.stdout)
    for row in c["approaches"]:
        if row["kind"] == "family" and row["hit_after_all"] != 1:
            raise RuntimeError("%s d=%d: family %s misses tuples" % (path, d, row["name"]))
        if row["kind"] == "sampler" and len(row.get("runs_each", [])) != seeds:
            raise RuntimeError("%s d=%d: sampler %s: no runs (%s)" %
                               (path, d, row["name"], row.get("note")))
    return c, time.monotonic() - t0


def pct(p):
    return "-" if p is None else "%.1f%%" % (100 * p)


def quantile(xs, q):
    """The q-quantile as compare takes it: the ceil(q k)-th smallest (None sorts last)."""
    xs = sorted(xs, key=lambda x: (x is None, x or 0))
    k = max(1, -(-int(q * 1000) * len(xs) // 1000))
    return xs[k - 1]


def fmt_runs(x, cap=False):
    if x is None:
        return "> cap"
    return ("%.0f" % x) if x >= 100 or x == int(x) else "%.1f" % x


def order_table(c):
    """One order: compare's rows as a Markdown table."""
    out = ["| approach | kind | runs | guarantee | min p/run | hit@m | hit@10m | hit@all |",
           "|---|---|---:|---|---:|---:|---:|---:|"]
    for r in c["approaches"]:
        if r["kind"] == "sampler":
            each = r["runs_each"]
            done = [x for x in each if x is not None]
            runs = "%s / %s (mean %s)" % (fmt_runs(r["runs_median"]), fmt_runs(r["runs_p90"]),
                                         fmt_runs(statistics.mean(done)) if done else "-")
        else:
            runs = str(r["runs"]) if r["runs"] is not None else "-"
        p = r.get("min_hit_probability")
        prob = "-" if p is None else ("%.4g" % p) + ("" if r["probability_exact"] else " ~")
        name = r["name"] + (" (%s)" % r["note"] if r["name"] == "auto" and "note" in r else "")
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, r["kind"], runs, r["guarantee"], prob, pct(r["hit_after_m"]),
            pct(r["hit_after_10m"]), pct(r["hit_after_all"])))
    return "\n".join(out)


def program_table(results, d):
    """The 100 programs at one d: runs until full d-coverage per approach."""
    rows = {}
    for c in results:
        for r in c["approaches"]:
            e = rows.setdefault(r["name"], {"kind": r["kind"], "runs": [], "shares": [],
                                            "orders": 0, "auto": []})
            e["orders"] += 1
            e["auto"].append(c["m"])
            if r["kind"] == "sampler":
                e["runs"] += r["runs_each"]
            else:
                e["runs"].append(r["runs"])
                e["shares"].append(r["hit_after_all"])
    names = [n for n in FAMILY_ORDER + SAMPLERS + ENUMS if n in rows]
    out = ["| approach | kind | programs | mean runs | median | p90 | max | full coverage |",
           "|---|---|---:|---:|---:|---:|---:|---|"]
    for n in names:
        e = rows[n]
        auto_mean = statistics.mean(e["auto"])  # auto on the programs this approach applies to
        xs = e["runs"]
        done = [x for x in xs if x is not None]
        capped = len(xs) - len(done)
        # a capped run counts as the cap: the mean is then a lower bound (marked >=)
        mean = statistics.mean([CAP if x is None else x for x in xs]) if xs else None
        if e["kind"] == "family":
            cover = "always (%.2fx auto)" % (mean / auto_mean)
        elif e["kind"] == "sampler":
            cover = "%d of %d runs (%s%.1fx auto)" % (len(done), len(xs), "&ge; " if capped else "",
                                                      mean / auto_mean)
            if capped:
                cover += "; %d reached the cap" % capped
        else:
            shares = [s for s in e["shares"] if s is not None]
            full = sum(1 for s in shares if s == 1)
            cover = "%d of %d programs (mean share %.2f%%)" % (full, e["orders"],
                                                              100 * statistics.mean(shares))
        out.append("| %s | %s | %d | %s | %s | %s | %s | %s |" % (
            n, e["kind"], e["orders"],
            ("&ge; " if capped else "") + fmt_runs(mean) if mean is not None else "-",
            fmt_runs(quantile(xs, 0.5)), fmt_runs(quantile(xs, 0.9)),
            fmt_runs(max(done)) if done else "-", cover))
    return "\n".join(out)


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) >= 2 else 2
    hitfam = os.path.abspath(argv[1])
    opts = {"--programs": "100", "--seeds": "11", "--jobs": "1", "--source-root": None,
            "--save": None, "--load": None}
    i = 2
    while i < len(argv):
        if argv[i] not in opts or i + 1 >= len(argv):
            print("table.py: bad argument %r (see --help)" % argv[i], file=sys.stderr)
            return 2
        opts[argv[i]] = argv[i + 1]
        i += 2
    root = opts["--source-root"] or os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                 "..", "..")
    programs, seeds, jobs = int(opts["--programs"]), int(opts["--seeds"]), int(opts["--jobs"])
    save = opts["--save"]
    global LOAD
    LOAD = opts["--load"]
    if save:
        os.makedirs(save, exist_ok=True)
    t_all = time.monotonic()
    times = []
    with tempfile.TemporaryDirectory(prefix="hitfam-baselines-") as work:
        for ex in ("page", "eventloop"):
            path = os.path.join(root, "examples", ex + ".dot")
            for d in (2, 3):
                c, t = compare(hitfam, path, d, seeds)
                if LOAD:
                    with open(os.path.join(LOAD, "%s_d%d.json" % (ex, d))) as f:
                        c = json.load(f)
                times.append(("examples/%s.dot d=%d" % (ex, d), t))
                if save:
                    with open(os.path.join(save, "%s_d%d.json" % (ex, d)), "w") as f:
                        json.dump(c, f)
                print("## examples/%s.dot, d = %d\n" % (ex, d))
                print("%d events, %d admissible %d-tuples, m = %d (auto's family); samplers: "
                      "median / 90th percentile (mean) over %d seeds of the runs until every "
                      "tuple is hit; ~ an estimated probability.\n" %
                      (c["events"], c["admissible"], d, c["m"], seeds))
                print(order_table(c) + "\n")
        paths, messages = [], []
        for k in range(programs):
            text, msgs = program(k)
            messages.append(msgs)
            path = os.path.join(save or work, "pos%03d.dot" % k)
            with open(path, "w") as f:
                f.write(text)
            paths.append(path)
        for d in (2, 3):
            t0 = time.monotonic()
            with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
                done = list(pool.map(lambda p: compare(hitfam, p, d, seeds), paths))
            results = [c for c, _ in done]
            if LOAD:
                with open(os.path.join(LOAD, "programs_d%d.json" % d)) as f:
                    results = json.load(f)
            times.append(("%d programs d=%d" % (programs, d), time.monotonic() - t0))
            if save:
                with open(os.path.join(save, "programs_d%d.json" % d), "w") as f:
                    json.dump(results, f)
            adm = [c["admissible"] for c in results]
            print("## %d POS-shaped programs, d = %d\n" % (programs, d))
            print("4 threads x 4 events, 4 objects (uniform and skewed alternately), half reads, "
                  "%.1f messages on average; %d to %d admissible %d-tuples (mean %.0f). Runs until "
                  "every admissible %d-tuple is hit: families their size, samplers over %d seeds "
                  "per program (%d runs in all, the samplers' cap is 20000 schedules), "
                  "enumerations their exact number of schedules (full coverage: the programs on "
                  "which the whole enumeration hits every tuple).\n" %
                  (statistics.mean(messages), min(adm), max(adm), d, statistics.mean(adm), d,
                   seeds, seeds * programs))
            print(program_table(results, d) + "\n")
    print("## Time\n")
    print("| part | seconds |\n|---|---:|")
    for what, t in times:
        print("| %s | %.1f |" % (what, t))
    print("| total (%d jobs) | %.1f |" % (jobs, time.monotonic() - t_all))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except RuntimeError as e:
        print("table.py: %s" % e, file=sys.stderr)
        sys.exit(1)
