#!/usr/bin/env python3
"""gen -o FILE with a large output: the space reserved on a second thread (cli/out_thread.c,
Linux) changes nothing in the file. On a complete binary tree of 2^18 - 1 events (70 to 135 MB
per format) every format, whole and sliced, and method pattern's first 40 rows (80 MB, through
the output thread of cli/out_thread.c), is byte for byte the output of --threads 1 (which
reserves nothing), the file holds no space beyond its size, and a write that fails (a file size
limit) fails as it does without the reservation, leaving no file behind. With strace at hand,
the reservation is also seen to happen and to stay within the bytes written (the estimate is a
lower bound).
Usage: cli_reserve.py HITFAM"""
import hashlib
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile

EVENTS = 2**18 - 1
PAGE = 4096


def digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def run(cmd, limit=None, env=None):
    def limited():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run(cmd, capture_output=True, preexec_fn=limited if limit else None,
                          env=dict(os.environ, LC_ALL="C", **(env or {})), timeout=300)


def main():
    hitfam = os.path.abspath(sys.argv[1])
    base = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    work = tempfile.mkdtemp(prefix="hitfam-reserve-", dir=base)
    failures = 0

    def check(ok, what):
        nonlocal failures
        print(("ok - " if ok else "not ok - ") + what)
        failures += not ok

    try:
        dot = os.path.join(work, "tree.dot")
        with open(dot, "w") as f:
            f.write("digraph t {\n")
            f.write("".join("e%d -> e%d;\n" % (i // 2, i) for i in range(2, EVENTS + 1)))
            f.write("}\n")
        a, b = os.path.join(work, "a"), os.path.join(work, "b")
        strace = shutil.which("strace")
        # doubletree (auto's choice) writes its rows itself; pattern through the output thread
        runs = [(fmt, rows) for fmt in ("text", "ids", "bin")
                for rows in ([], ["--rows", "2:"], ["--rows", "5:9"])]
        runs.append(("text", ["--method", "pattern", "--rows", "1:40"]))
        for fmt, rows in runs:
            name = "%s %s" % (fmt, " ".join(rows) or "whole")
            gen = [hitfam, "gen", "--d", "3", "--format", fmt] + rows + [dot, "-o"]
            r2 = run(gen + [a, "--threads", "2"])
            r1 = run(gen + [b, "--threads", "1"])
            check(r1.returncode == 0 and r2.returncode == 0 and r1.stderr == r2.stderr == b"",
                  name + ": both runs succeed quietly")
            if r1.returncode or r2.returncode:
                continue
            size = os.stat(a).st_size
            check(size == os.stat(b).st_size and digest(a) == digest(b),
                  name + ": the same bytes as --threads 1 (%d bytes)" % size)
            allocated = os.stat(a).st_blocks * 512
            slack = 64 * 1024  # a filesystem's own blocks for a large file
            check(allocated <= (size + PAGE - 1) // PAGE * PAGE + slack,
                  name + ": no space held past the size (%d allocated)" % allocated)
            if strace and (not rows or "pattern" in rows):
                # (LeakSanitizer, in a sanitizer build, cannot run under strace's ptrace)
                t = run([strace, "-f", "-e", "trace=fallocate", "-o", a + ".trace"] + gen +
                        [a, "--threads", "2"], env={"ASAN_OPTIONS": "detect_leaks=0"})
                with open(a + ".trace") as f:
                    calls = re.findall(r"fallocate\(\d+, FALLOC_FL_KEEP_SIZE, (\d+), (\d+)\)"
                                       r" = 0", f.read())
                end = max((int(o) + int(n) for o, n in calls), default=0)
                check(t.returncode == 0 and size * 0.75 <= end <= size,
                      name + ": %d bytes reserved, at most the %d written (exit %d%s)" %
                      (end, size, t.returncode, t.stderr[-300:].decode(errors="replace")))
        # A failing write: the same exit and message as without the reservation, no file left.
        for fmt, more in (("text", []), ("bin", []), ("text", ["--method", "pattern"])):
            out = []
            for threads in ("2", "1"):
                target = os.path.join(work, "limited")
                r = run([hitfam, "gen", "--d", "3", "--format", fmt] + more +
                        [dot, "-o", target, "--threads", threads], limit=8 << 20)
                left = sorted(x for x in os.listdir(work) if "limited" in x)
                out.append((r.returncode, r.stderr, left))
            check(out[0] == out[1] and out[0][0] == 2 and b"write failed" in out[0][1] and
                  out[0][2] == [], "%s %s: a write beyond the size limit fails the same way: %r" %
                  (fmt, " ".join(more), out[0][:2]))
    finally:
        shutil.rmtree(work)
    print("%d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
