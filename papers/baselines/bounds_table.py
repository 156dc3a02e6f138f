#!/usr/bin/env python3
"""Preemption bounds beside delay bounds on the 100 POS-shaped programs of table.py: for each
bound, the runs (the schedules `hitfam enum --preemptions K` or `--delays K` writes) and how
much of the admissible d-tuples all of them hit (`hitfam verify --count`), d = 2 and 3.

usage: papers/baselines/bounds_table.py PATH/TO/hitfam [--programs N] [--jobs J]

Prints markdown tables (papers/baselines/README.md, "Delay bounds beside preemption bounds").
The programs are table.py's (Python's random.Random(1000 + i)), written to a temporary
directory; nothing else is read.
"""
import concurrent.futures
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import table  # noqa: E402  (the programs)

BOUNDS = [("preemptions", k) for k in range(3)] + [("delays", k) for k in range(4)]


def run(argv, stdin=None):
    r = subprocess.run(argv, input=stdin, capture_output=True)
    return r.returncode, r.stdout, r.stderr


def measure(hitfam, path, d):
    """{bound name: (runs, uncovered, admissible)} for one program at d."""
    rc, out, err = run([hitfam, "stats", "--d", str(d), path])
    if rc != 0:
        raise RuntimeError("stats %s: %s" % (path, err.decode()))
    admissible = int(re.search(rb"admissible tuples: (\d+)", out).group(1))
    res = {}
    for kind, k in BOUNDS:
        rc, fam, err = run([hitfam, "enum", "--" + kind, str(k), path])
        if rc != 0:
            raise RuntimeError("enum %s: %s" % (path, err.decode()))
        runs = int(re.search(rb"schedules=(\d+)", fam.split(b"\n", 1)[0]).group(1))
        rc, out, err = run([hitfam, "verify", "--d", str(d), "--count", path, "-"], fam)
        if rc not in (0, 1):
            raise RuntimeError("verify %s: %s" % (path, err.decode()))
        uncovered = int(re.search(rb"uncovered tuples: (\d+)", out).group(1))
        res["%s-%d" % (kind, k)] = (runs, uncovered, admissible)
    return res


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) >= 2 else 2
    hitfam = os.path.abspath(argv[1])
    opts = {"--programs": "100", "--jobs": "2"}
    for i in range(2, len(argv) - 1, 2):
        if argv[i] not in opts:
            print("bounds_table.py: bad argument %r" % argv[i], file=sys.stderr)
            return 2
        opts[argv[i]] = argv[i + 1]
    programs, jobs = int(opts["--programs"]), int(opts["--jobs"])
    with tempfile.TemporaryDirectory(prefix="hitfam-bounds-") as work:
        paths = []
        for i in range(programs):
            path = os.path.join(work, "pos%03d.dot" % i)
            with open(path, "w") as f:
                f.write(table.program(i)[0])
            paths.append(path)
        for d in (2, 3):
            with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
                results = list(pool.map(lambda p: measure(hitfam, p, d), paths))
            print("## %d POS-shaped programs, d = %d\n" % (programs, d))
            print("| bound | mean runs | median | max | full coverage | mean share hit |")
            print("|---|---:|---:|---:|---|---:|")
            for kind, k in BOUNDS:
                name = "%s-%d" % (kind, k)
                runs = [r[name][0] for r in results]
                full = sum(1 for r in results if r[name][1] == 0)
                share = statistics.mean(1 - r[name][1] / r[name][2] for r in results)
                print("| %s | %.1f | %g | %d | %d of %d programs | %.2f%% |" % (
                    name, statistics.mean(runs), statistics.median(runs), max(runs), full,
                    programs, 100 * share))
            print()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except RuntimeError as e:
        print("bounds_table.py: %s" % e, file=sys.stderr)
        sys.exit(1)
