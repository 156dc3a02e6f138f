#!/usr/bin/env python3
"""The performance targets of issue 16 in one run, each as a ratio to its limit.

Usage: targets.py HITFAM BENCH_VERIFY BENCH_GREEDY [WORKDIR] [--quick] [--skip SECTION]...

Sections (each can be skipped with --skip NAME):
  gen      `hitfam gen --d 3 ORDER.dot -o F` against `cat F > G` (wall time, least of 3), on a
           complete binary tree of 2^20 - 1 events and a random recursive tree of 10^6 events;
           target: within 2x. F and G are removed before each run, outside the timing: each
           run creates its file (replacing one would add the freeing of its pages, which gen
           pays in its final rename and cat in its truncation)
  read     the one-row job `hitfam gen --d 2 --format ids --rows 1:1` from the DOT file against
           the same from the compact order format (`hitfam convert`), wall time, least of 3;
           target: within 1.5x; and the job's peak resident memory less the DOT file's size and
           less the same job's on a one-event order (the program's own pages), per event, which
           includes the row's preparation (the reading's own, target at most 150 bytes per
           event, is bench_dot's)
  rows     `gen --d 3 --rows K:K` (the middle row) against the whole `gen --d 3`, wall time
  stats    `hitfam stats` (every line) on both trees; target: a few seconds
  verify   bench_verify tree: the d = 3 check of a 2,000-event random recursive tree against
           the algorithm of 0.1.0 kept as the reference; target: at least 5x faster
  greedy   bench_greedy dag:1000:2 and dag:1000:8: greedy d = 3 on random DAGs of 1,000 events
           (mean degree 2 and 8), processor time; target: within 5 minutes (300 s)

The orders are written into WORKDIR (default: a temporary directory in /dev/shm when it exists,
so that the files measure the writing and not the disk). --quick uses orders 16 times smaller and
skips greedy's degree-8 DAG (a smoke test of the script). Each line ends in "met" or "MISSED".
Wall times: the ratios compare programs run in turn in the same minute, so load stretches both
sides alike; rerun on an idle machine for figures to quote.
"""
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time


def write_dot(path, n, parent):
    with open(path, "w") as f:
        f.write("digraph {\n")
        for v in range(1, n):
            f.write(f"e{parent(v)} -> e{v};\n")
        f.write("}\n")


def run_timed(argv, stdout=subprocess.DEVNULL):
    """Wall seconds, processor seconds of the child and its peak resident memory in bytes."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"targets.py: {' '.join(argv)} exited with {code}: {err.strip()}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss * 1024


def remove_if_there(path):
    if path and os.path.exists(path):
        os.remove(path)


def least(argv, reps=3, fresh=None):
    """The least wall time, processor time and peak memory of reps runs. fresh: a file the
    command writes, removed before each run (outside the timing), so that every run creates it
    and none pays for dropping the pages of the one before."""
    runs = []
    for _ in range(reps):
        remove_if_there(fresh)
        runs.append(run_timed(argv))
    return min(r[0] for r in runs), min(r[1] for r in runs), min(r[2] for r in runs)


def verdict(ok):
    return "met" if ok else "MISSED"


def main():
    args = sys.argv[1:]
    quick = "--quick" in args
    skip = set()
    rest = []
    i = 0
    while i < len(args):
        if args[i] == "--quick":
            pass
        elif args[i] == "--skip" and i + 1 < len(args):
            skip.add(args[i + 1])
            i += 1
        else:
            rest.append(args[i])
        i += 1
    if len(rest) < 3:
        sys.exit(__doc__)
    hitfam, bench_verify, bench_greedy = rest[:3]
    base = rest[3] if len(rest) > 3 else None
    if base is None:
        base = tempfile.mkdtemp(prefix="hitfam-targets-",
                                dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
        own = True
    else:
        os.makedirs(base, exist_ok=True)
        own = False
    try:
        run(hitfam, bench_verify, bench_greedy, base, quick, skip)
    finally:
        if own:
            shutil.rmtree(base, ignore_errors=True)


def run(hitfam, bench_verify, bench_greedy, base, quick, skip):
    scale = 16 if quick else 1
    rng = random.Random(42)
    nb = (1 << (20 if not quick else 16)) - 1
    nr = 10**6 // scale
    rparent = [0] * nr
    for v in range(1, nr):
        rparent[v] = rng.randrange(v)
    trees = [("complete binary tree", nb, lambda v: (v - 1) // 2, "bin"),
             ("random recursive tree", nr, lambda v: rparent[v], "rrt")]
    print(f"# issue 16 targets (workdir {base}{', quick' if quick else ''}); wall seconds, "
          f"least of 3 unless said")
    for label, n, parent, tag in trees:
        dot = os.path.join(base, tag + ".dot")
        write_dot(dot, n, parent)
        out = os.path.join(base, tag + ".txt")
        copy = os.path.join(base, tag + ".copy")
        if "gen" not in skip or "rows" not in skip:
            gen = least([hitfam, "gen", "--d", "3", dot, "-o", out], fresh=out)
            size = os.path.getsize(out)
        if "gen" not in skip:
            cat = least(["sh", "-c", f'cat "{out}" > "{copy}"'], fresh=copy)
            os.remove(copy)
            r = gen[0] / cat[0]
            print(f"gen/cat   {label}, {n} events, {size / 1e6:.0f} MB of text: gen {gen[0]:.3f} s "
                  f"(cpu {gen[1]:.3f}), cat {cat[0]:.3f} s: {r:.2f}x (target <= 2): "
                  f"{verdict(r <= 2)}")
        if "read" not in skip:
            hfo = os.path.join(base, tag + ".hfo")
            run_timed([hitfam, "convert", dot, "-o", hfo])
            one = os.path.join(base, tag + ".one")
            from_dot = least([hitfam, "gen", "--d", "2", "--format", "ids", "--rows", "1:1", dot,
                              "-o", one], fresh=one)
            from_hfo = least([hitfam, "gen", "--d", "2", "--format", "ids", "--rows", "1:1", hfo,
                              "-o", one], fresh=one)
            r = from_dot[0] / from_hfo[0]
            # the program's own pages (code, libraries): the same job on a one-event order
            tiny = os.path.join(base, "tiny.dot")
            with open(tiny, "w") as f:
                f.write("digraph { e0; }\n")
            floor = least([hitfam, "gen", "--d", "2", "--format", "ids", "--rows", "1:1", tiny,
                           "-o", one], fresh=one)[2]
            os.remove(tiny)
            per = (from_dot[2] - floor - os.path.getsize(dot)) / n
            print(f"read      {label}: one-row job from DOT {from_dot[0]:.3f} s, from compact "
                  f"{from_hfo[0]:.3f} s: {r:.2f}x (target <= 1.5): {verdict(r <= 1.5)}; the "
                  f"job's peak memory beyond the file {per:.0f} bytes/event (the reading's "
                  f"alone, target <= 150: bench_dot)")
            os.remove(hfo)
            os.remove(one)
        if "rows" not in skip:
            m = int(re.search(rb"schedules=(\d+)", open(out, "rb").read(4096)).group(1))
            row = os.path.join(base, tag + ".row")
            k = (m + 1) // 2
            one = least([hitfam, "gen", "--d", "3", "--rows", f"{k}:{k}", dot, "-o", row],
                        fresh=row)
            os.remove(row)
            print(f"rows      {label}: row {k} of {m} alone {one[0]:.3f} s, the whole family "
                  f"{gen[0]:.3f} s ({gen[0] / one[0]:.1f}x; a row job costs the reading and "
                  f"preparation, and one row's writing)")
        if os.path.exists(out):
            os.remove(out)
        if "stats" not in skip:
            st = least([hitfam, "stats", dot], reps=1)
            print(f"stats     {label}: every line {st[0]:.2f} s (target: a few seconds): "
                  f"{verdict(st[0] <= 5)}")
        os.remove(dot)
    if "verify" not in skip:
        out = subprocess.run([bench_verify, "tree"], capture_output=True, text=True, check=True)
        m = re.search(r"speed-up: ([0-9.]+)x the reference in processor time on 1 thread; "
                      r"([0-9.]+)x in wall time", out.stdout)
        if not m:
            sys.exit("targets.py: bench_verify tree printed no speed-up line")
        r = float(m.group(1))
        print(f"verify    d = 3, 2,000-event random recursive tree: {r:.1f}x the reference on "
              f"one thread, {float(m.group(2)):.1f}x in wall time on all (target >= 5): "
              f"{verdict(r >= 5)}")
    if "greedy" not in skip:
        for deg in (2,) if quick else (2, 8):
            out = subprocess.run([bench_greedy, f"dag:1000:{deg}"], capture_output=True,
                                 text=True, check=True)
            m = re.search(r"dag deg +\d+ +\d+ +3 +(\d+) .*?\(cpu ([0-9.]+) s", out.stdout)
            if not m:
                sys.exit(f"targets.py: bench_greedy dag:1000:{deg} printed no result: "
                         f"{out.stdout.strip()}")
            secs = float(m.group(2))
            print(f"greedy    d = 3, random DAG of 1,000 events, mean degree {deg}: "
                  f"{m.group(1)} schedules in {secs:.1f} s of processor time (target <= 300): "
                  f"{verdict(secs <= 300)}")


if __name__ == "__main__":
    main()
