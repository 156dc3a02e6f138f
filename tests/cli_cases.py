#!/usr/bin/env python3
"""Data-driven CLI cases: every folder tests/data/cli/<case>/ holds
  cmd              a shell command line run in the folder, with $HITFAM the tool under test
  expected.status  the exit status (required)
  expected.out     the exact standard output (optional)
  expected.err     the exact standard error (optional)
  stdin            fed to standard input (optional; otherwise empty)
Usage: cli_cases.py HITFAM DATA_DIR [--regen]   (--regen rewrites expected.* from the tool)."""
import os
import subprocess
import sys


def main():
    hitfam, data = os.path.abspath(sys.argv[1]), sys.argv[2]
    regen = "--regen" in sys.argv[3:]
    root = os.path.join(data, "cli")
    cases = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
    passed = failed = 0
    for i, case in enumerate(cases, 1):
        where = os.path.join(root, case)
        with open(os.path.join(where, "cmd"), encoding="utf-8") as f:
            cmd = f.read().strip()
        stdin = b""
        if os.path.exists(os.path.join(where, "stdin")):
            with open(os.path.join(where, "stdin"), "rb") as f:
                stdin = f.read()
        env = dict(os.environ, HITFAM=hitfam, LC_ALL="C")
        r = subprocess.run(["sh", "-c", cmd], cwd=where, input=stdin, capture_output=True,
                           env=env, timeout=300)
        if regen:
            for name, content in (("expected.out", r.stdout), ("expected.err", r.stderr)):
                with open(os.path.join(where, name), "wb") as f:
                    f.write(content)
            with open(os.path.join(where, "expected.status"), "w") as f:
                f.write("%d\n" % r.returncode)
        problems = []
        with open(os.path.join(where, "expected.status")) as f:
            want = int(f.read().strip())
        if r.returncode != want:
            problems.append("exit status %d, expected %d" % (r.returncode, want))
        for name, got in (("expected.out", r.stdout), ("expected.err", r.stderr)):
            path = os.path.join(where, name)
            if os.path.exists(path):
                with open(path, "rb") as f:
                    exp = f.read()
                if exp != got:
                    problems.append("%s differs:\n--- expected\n%s\n--- got\n%s" % (
                        name, exp.decode("utf-8", "replace"), got.decode("utf-8", "replace")))
        if problems:
            failed += 1
            print("not ok %d - %s (%s)" % (i, case, cmd))
            for p in problems:
                print("  " + p.replace("\n", "\n  "))
        else:
            passed += 1
            print("ok %d - %s" % (i, case))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
