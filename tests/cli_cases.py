#!/usr/bin/env python3
"""Data-driven CLI cases: every folder tests/data/cli/<case>/ holds
  cmd              a bash command line (run with pipefail), with $HITFAM the tool under test
  expected.status  the exit status (required)
  expected.out     the exact standard output (optional)
  expected.err     the exact standard error (optional)
  stdin            fed to standard input (optional; otherwise empty)
Each case runs in a scratch copy of the data folder (a temporary directory), so that a case may
write files beside its inputs and keep its exit status last, and never writes into the source
tree; its folder is copied afresh before it runs and after. In expected files @VERSION@ stands
for the tool's version (from `hitfam --version`).
Usage: cli_cases.py HITFAM DATA_DIR [--regen]   (--regen rewrites expected.* from the tool,
with @VERSION@ written back in place of the version)."""
import os
import shutil
import subprocess
import sys
import tempfile

PLACEHOLDER = b"@VERSION@"


def version_of(hitfam):
    r = subprocess.run([hitfam, "--version"], capture_output=True, check=True)
    words = r.stdout.split()
    assert len(words) == 2 and words[0] == b"hitfam", r.stdout
    return words[1]


def with_placeholder(data, version):
    """The tool's output with its version in the two forms it is written replaced by @VERSION@:
    `hitfam VERSION` (text headers, --version, messages) and `"hitfam": "VERSION"` (JSON)."""
    data = data.replace(b"hitfam " + version, b"hitfam " + PLACEHOLDER)
    return data.replace(b'"hitfam": "' + version + b'"', b'"hitfam": "' + PLACEHOLDER + b'"')


def fresh_copy(source, target):
    if os.path.lexists(target):
        shutil.rmtree(target)
    shutil.copytree(source, target, symlinks=True)


def main():
    hitfam, data = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    regen = "--regen" in sys.argv[3:]
    version = version_of(hitfam)
    root = os.path.join(data, "cli")
    cases = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
    passed = failed = 0
    scratch = tempfile.mkdtemp(prefix="hitfam-cli-")
    try:
        # The whole data folder, since cases read ../../posets and sibling cases' inputs.
        work = os.path.join(scratch, "data")
        shutil.copytree(data, work, symlinks=True)
        for i, case in enumerate(cases, 1):
            source = os.path.join(root, case)
            where = os.path.join(work, "cli", case)
            fresh_copy(source, where)
            with open(os.path.join(source, "cmd"), encoding="utf-8") as f:
                cmd = f.read().strip()
            stdin = b""
            if os.path.exists(os.path.join(source, "stdin")):
                with open(os.path.join(source, "stdin"), "rb") as f:
                    stdin = f.read()
            env = dict(os.environ, HITFAM=hitfam, LC_ALL="C")
            r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=where, input=stdin,
                               capture_output=True, env=env, timeout=300)
            fresh_copy(source, where)  # what the case wrote is not seen by later cases
            if regen:
                for name, content in (("expected.out", r.stdout), ("expected.err", r.stderr)):
                    with open(os.path.join(source, name), "wb") as f:
                        f.write(with_placeholder(content, version))
                with open(os.path.join(source, "expected.status"), "w") as f:
                    f.write("%d\n" % r.returncode)
            problems = []
            with open(os.path.join(source, "expected.status")) as f:
                want = int(f.read().strip())
            if r.returncode != want:
                problems.append("exit status %d, expected %d" % (r.returncode, want))
            for name, got in (("expected.out", r.stdout), ("expected.err", r.stderr)):
                path = os.path.join(source, name)
                if os.path.exists(path):
                    with open(path, "rb") as f:
                        exp = f.read().replace(PLACEHOLDER, version)
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
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
