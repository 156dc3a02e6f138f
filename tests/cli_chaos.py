#!/usr/bin/env python3
"""Out-of-memory paths of the CLI: runs each command of COMMANDS under hitfam-chaos (the CLI whose
context fails allocation number k, see cli/chaos.c) for every k from 1 to the number of
allocations the command makes, failing only allocation k; and for every third k (1, 4, 7, ...)
failing k and every later one (that differs only where a failure path itself allocates; the
stride keeps the run short under AddressSanitizer). Commands listed with a sample size S (compare
makes thousands of allocations) fail a fixed sample instead: the first and last SAMPLE_EDGE
allocations and S more drawn with random.Random(the command's number), in both modes. Each run
must either give exactly the result
of the normal tool (the library absorbed the failure) or: exit status 2, standard error exactly
"hitfam: out of memory", standard output a prefix of the normal output (gen and stats stream,
and a JSON family is closed with "]}"; verify prints nothing), no -o file left behind, no crash
and no sanitizer report.
With --sample N every command fails at most N allocations in each mode besides the SAMPLE_EDGE
at each end, drawn as above (the sanitizer build's run: a sanitized process's own start and leak
check cost about 0.1 s a run, 7,481 runs took 18 minutes; the plain build's run still fails
every allocation).
Usage: cli_chaos.py [--sample N] HITFAM_CHAOS HITFAM DATA_DIR [WORD]  (WORD: only the commands
naming it)"""
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

POSETS = ["forest.dot", "inforest.dot", "wide_tree.dot", "d2.dot", "diamond.dot", "quoted.dot",
          "labelled.dot"]

# Families the verify commands read, written by the normal tool first: name -> gen arguments.
FAMILIES = {
    "wide3.txt": ["gen", "--d", "3", "wide_tree.dot"],
    "d2g.json": ["gen", "--d", "3", "--method", "greedy", "--format", "json", "d2.dot"],
    "inforest2.txt": ["gen", "--d", "2", "inforest.dot"],
}

# (command line, output file it writes or None)
COMMANDS = [
    (["gen", "--d", "2", "--method", "dfs", "forest.dot"], None),
    (["gen", "--d", "2", "--method", "dfs", "--format", "json", "inforest.dot"], None),
    (["gen", "--d", "3", "--method", "doubletree", "wide_tree.dot"], None),
    (["gen", "--d", "4", "--method", "simple", "forest.dot"], None),
    (["gen", "--d", "4", "--method", "pattern", "wide_tree.dot"], None),
    (["gen", "--d", "3", "--method", "pattern", "--patterns", "all", "forest.dot"], None),
    (["gen", "--d", "3", "--method", "greedy", "d2.dot"], None),
    (["gen", "--d", "2", "--method", "random", "--seed", "7", "diamond.dot"], None),
    (["gen", "--d", "3", "--method", "random", "--count", "4", "d2.dot"], None),
    (["gen", "--d", "2", "--method", "rw", "--seed", "3", "diamond.dot"], None),
    (["gen", "--d", "3", "--method", "pct", "--count", "4", "forest.dot"], None),
    (["gen", "--d", "2", "--method", "pos", "--seed", "5", "d2.dot"], None),
    (["gen", "--d", "3", "--method", "basicpos", "--count", "3", "inforest.dot"], None),
    (["gen", "--d", "2", "--method", "dfs", "quoted.dot"], None),
    (["gen", "--d", "3", "-o", "out.txt", "wide_tree.dot"], "out.txt"),
    (["gen", "--d", "3", "--method", "greedy", "--format", "json", "-o", "out.json", "d2.dot"],
     "out.json"),
    (["gen", "--d", "3", "--method", "simple", "--focus", "focus.txt", "wide_tree.dot"], None),
    (["gen", "--d", "4", "--focus-prefix", "--focus", "focus.txt", "wide_tree.dot"], None),
    (["verify", "--d", "3", "wide_tree.dot", "wide3.txt"], None),
    (["verify", "--d", "3", "--focus", "focus.txt", "wide_tree.dot", "wide3.txt"], None),
    (["verify", "d2.dot", "d2g.json"], None),
    (["verify", "--count", "--d", "3", "inforest.dot", "inforest2.txt"], None),
    (["gen", "--d", "3", "--minimize", "--seed", "0x5", "forest.dot"], None),
    (["minimize", "--rounds", "20", "wide_tree.dot", "wide3.txt"], None),
    (["minimize", "--d", "2", "--drop-only", "--format", "json", "-o", "min.json", "inforest.dot",
      "inforest2.txt"], "min.json"),
    (["stats", "d2.dot"], None),
    (["stats", "--json", "wide_tree.dot"], None, 300),
    (["gen", "--d", "3", "--method", "exact", "d2.dot"], None),
    (["minimize", "--sat", "--d", "3", "d2.dot", "d2g.json"], None),
    (["online", "--d", "3", "wide_tree.dot"], None),
    (["online", "--d", "2", "--strategy", "learn", "-o", "online.txt", "forest.dot"], "online.txt"),
    (["enum", "--limit", "50", "d2.dot"], None),
    (["enum", "--count", "d2.dot"], None),
    (["enum", "--traces", "labelled.dot"], None),
    (["enum", "--preemptions", "1", "--format", "json", "labelled.dot"], None),
    (["enum", "--traces", "--count", "-o", "count.txt", "labelled.dot"], "count.txt"),
    (["compare", "--d", "2", "--seeds", "1", "--samples", "300", "labelled.dot"], None, 150),
    (["compare", "--d", "3", "--seeds", "2", "--runs", "30", "--samples", "300", "--json",
      "diamond.dot"], None, 60),
]

# Allocations failed at each end of a sampled command's range (set-up and the last output).
SAMPLE_EDGE = 10


def failure_points(allocations, stride, sample, seed):
    """The allocation numbers to fail: every stride-th, or a fixed sample of them."""
    every = list(range(1, allocations + 1, stride))
    if sample is None or len(every) <= sample + 2 * SAMPLE_EDGE:
        return every
    edges = every[:SAMPLE_EDGE] + every[-SAMPLE_EDGE:]
    middle = every[SAMPLE_EDGE:-SAMPLE_EDGE]
    return sorted(edges + random.Random(seed).sample(middle, sample))

OOM = b"hitfam: out of memory\n"
SANITIZER = re.compile(rb"Sanitizer|runtime error:")


def run(exe, args, cwd, extra_env):
    env = dict(os.environ, LC_ALL="C")
    for key in ("HITFAM_CHAOS_FAIL_AT", "HITFAM_CHAOS_MODE", "HITFAM_CHAOS_COUNT"):
        env.pop(key, None)
    env.update(extra_env)
    r = subprocess.run([exe] + args, cwd=cwd, capture_output=True, env=env, timeout=120)
    return r.returncode, r.stdout, r.stderr


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def read(path):
    if not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        return f.read()


def is_prefix(out, full, json):
    """out is the start of full; a JSON writer also closes its brackets after a failure."""
    return full.startswith(out) or (json and out.endswith(b"]}\n") and full.startswith(out[:-3]))


def main():
    argv = sys.argv[1:]
    cap = None
    if argv[:1] == ["--sample"]:
        if len(argv) < 2 or not argv[1].isdigit():
            sys.exit(__doc__)
        cap = int(argv[1])
        argv = argv[2:]
    if len(argv) < 3 or (cap is not None and cap < 1):
        sys.exit(__doc__)
    chaos, hitfam, data = (os.path.abspath(a) for a in argv[:3])
    word = argv[3] if len(argv) > 3 else None
    work = tempfile.mkdtemp(prefix="hitfam-chaos-")
    failures = runs = 0
    try:
        for name in POSETS:
            shutil.copy(os.path.join(data, "posets", name), work)
        with open(os.path.join(work, "focus.txt"), "w") as f:
            f.write("b\nb1\nd2\n")
        for name, args in FAMILIES.items():
            st, out, err = run(hitfam, args, work, {})
            assert st == 0, (args, err)
            with open(os.path.join(work, name), "wb") as f:
                f.write(out)
        for i, (args, outfile, *sample) in enumerate(COMMANDS, 1):
            sample = sample[0] if sample else None
            if cap is not None:
                sample = cap if sample is None else min(sample, cap)
            if word is not None and word not in args:
                continue
            started = time.monotonic()
            cpu = children_cpu()
            problems = []
            target = os.path.join(work, outfile) if outfile else None
            want = run(hitfam, args, work, {})
            want_file = read(target) if target else None
            if target:
                os.remove(target)
            st, out, err = run(chaos, args, work, {"HITFAM_CHAOS_COUNT": "1"})
            m = re.fullmatch(rb"(.*)hitfam-chaos: (\d+) allocations\n", err, re.S)
            if not m or (st, out, m.group(1)) != want:
                problems.append("without failures hitfam-chaos differs from hitfam: %r" %
                                ((st, out[:200], err[-300:]),))
                allocations = 0
            else:
                allocations = int(m.group(2))
            oom = absorbed = 0
            sampled = sample is not None and allocations > sample + 2 * SAMPLE_EDGE
            for mode, stride in (("once", 1), ("all", 3)):
                for k in failure_points(allocations, stride, sample, i):
                    if target and os.path.exists(target):
                        os.remove(target)
                    runs += 1
                    st, out, err = run(chaos, args, work,
                                       {"HITFAM_CHAOS_FAIL_AT": str(k), "HITFAM_CHAOS_MODE": mode})
                    got_file = read(target) if target else None
                    where = "k=%d %s" % (k, mode)
                    if st < 0 or st in (23, 24) or SANITIZER.search(err):
                        problems.append("%s: crash or sanitizer report (status %d):\n%s" %
                                        (where, st, err.decode("utf-8", "replace")[-3000:]))
                    elif (st, out, err) == want and got_file == want_file:
                        absorbed += 1  # the library recovered: the result is the normal one
                    elif st != 2 or err != OOM:
                        problems.append("%s: status %d, stderr %r (expected 2, %r)" %
                                        (where, st, err[-300:], OOM))
                    elif not is_prefix(out, want[1], "json" in args) or (args[0] == "verify"
                                                                          and out):
                        problems.append("%s: standard output is not a prefix of the normal "
                                        "output: %r" % (where, out[:300]))
                    elif got_file is not None:
                        problems.append("%s: the failed run left %s behind" % (where, outfile))
                    else:
                        oom += 1
                    if len(problems) > 5:
                        break
                if len(problems) > 5:
                    break
            label = " ".join(args)
            if problems:
                failures += 1
                print("not ok %d - %s (%d allocations)" % (i, label, allocations))
                for p in problems:
                    print("  " + p.replace("\n", "\n  "))
            else:
                print("ok %d - %s (%d allocations%s; %d runs out of memory, %d recovered; "
                      "%.1f s, %.1f s CPU)" % (i, label, allocations,
                                               ", %d sampled" % sample if sampled else "", oom,
                                               absorbed, time.monotonic() - started,
                                               children_cpu() - cpu))
    finally:
        shutil.rmtree(work)
    print("%d commands, %d runs, %d failed; %.1f s CPU" % (len(COMMANDS), runs, failures,
                                                          children_cpu()))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
