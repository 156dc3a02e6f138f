#!/usr/bin/env python3
"""The shared library exports the public API and nothing else: every defined dynamic symbol
starts with hf_ (internals are hidden; hf_i_ internals must not leak either)."""
import subprocess
import sys

out = subprocess.run(["nm", "-D", "--defined-only", sys.argv[1]], capture_output=True,
                     text=True, check=True).stdout
bad, good = [], 0
for line in out.splitlines():
    parts = line.split()
    if len(parts) < 3 or parts[1] not in "TDBRVW":
        continue
    name = parts[2].split("@")[0]
    if name.startswith("hf_") and not name.startswith("hf_i_"):
        good += 1
    else:
        bad.append(name)
for name in bad:
    print("leaked symbol: " + name)
print("%d passed, %d failed" % (good, len(bad)))
sys.exit(1 if bad or good == 0 else 0)
