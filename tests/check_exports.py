#!/usr/bin/env python3
"""The shared library exports exactly the public API: the defined dynamic symbols equal the
functions and objects declared with HF_API in the public headers (argument 2: the directory of
include/hitfam), every one starts with hf_, and no hf_i_ internal leaks."""
import pathlib
import re
import subprocess
import sys

out = subprocess.run(["nm", "-D", "--defined-only", sys.argv[1]], capture_output=True,
                     text=True, check=True).stdout
exported = set()
for line in out.splitlines():
    parts = line.split()
    if len(parts) < 3 or parts[1] not in "TDBRVW":
        continue
    exported.add(parts[2].split("@")[0])

declared = set()
for header in sorted(pathlib.Path(sys.argv[2]).glob("*.h")):
    text = header.read_text()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"#[^\n]*(\\\n[^\n]*)*", " ", text)  # macro definitions name HF_API too
    for m in re.finditer(r"\bHF_API\b([^;{]*?)\b(\w+)\s*(\(|\[|;)", text):
        declared.add(m.group(2))

failed = 0
for name in sorted(exported - declared):
    print("exported but not declared with HF_API: " + name)
    failed += 1
for name in sorted(declared - exported):
    print("declared with HF_API but not exported: " + name)
    failed += 1
for name in sorted(exported):
    if not name.startswith("hf_") or name.startswith("hf_i_"):
        print("leaked symbol: " + name)
        failed += 1
passed = len(exported & declared)
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed or passed == 0 else 0)
