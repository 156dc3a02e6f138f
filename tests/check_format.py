#!/usr/bin/env python3
"""The C sources are formatted as .clang-format says: clang-format --dry-run --Werror over every
.c, .h and .cpp file of lib/, cli/, include/, tests/, examples/ and fuzz/ (except generated
files, listed in GENERATED with the reason). A missing clang-format fails the check: the README's
install step (make deps) installs it. To reformat the tree: clang-format -i with the same files.
Usage: check_format.py SOURCE_ROOT"""
import os
import shutil
import subprocess
import sys

FOLDERS = ["lib", "cli", "include", "tests", "examples", "fuzz"]
GENERATED = {
    # written by papers/any-order/scramble/make_bases.py, one table row per line of the file:
    # the layout is the data's, and reformatting would make it differ from the generator's output
    "lib/scramble_bases.c",
}


def sources(root):
    found = []
    for folder in FOLDERS:
        for where, dirs, files in os.walk(os.path.join(root, folder)):
            dirs[:] = sorted(d for d in dirs if d != "corpus")
            for name in sorted(files):
                path = os.path.relpath(os.path.join(where, name), root)
                if name.endswith((".c", ".h", ".cpp")) and path not in GENERATED:
                    found.append(path)
    return found


def main():
    root = os.path.abspath(sys.argv[1])
    wanted = os.environ.get("CLANG_FORMAT")  # another binary, such as clang-format-14
    tool = shutil.which(wanted) if wanted else \
        shutil.which("clang-format-14") or shutil.which("clang-format")
    if not tool:
        print("check_format: %s is not installed (Debian: apt-get install clang-format, or "
              "`make deps` as root); the format check cannot run" % (wanted or "clang-format"))
        return 1
    version = subprocess.run([tool, "--version"], capture_output=True, text=True).stdout.strip()
    files = sources(root)
    r = subprocess.run([tool, "--dry-run", "--Werror", "--style=file"] + files, cwd=root,
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout + r.stderr)
        bad = sorted({line.split(":")[0] for line in r.stderr.splitlines() if ": error:" in line})
        print("check_format: %d of %d files are not formatted as .clang-format says (%s):"
              % (len(bad), len(files), version))
        for path in bad:
            print("  " + path)
        print("reformat with: (cd %s && %s -i FILES)" % (root, tool))
        return 1
    print("check_format: %d files formatted as .clang-format says (%s)" % (len(files), version))
    return 0


if __name__ == "__main__":
    sys.exit(main())
